/* The state of one simulation run, shared by the clock (sim_loop.c), the session cycle and its
 * bookkeeping (sim_cycle.c) and the capacity experiment (sim_capacity.c). */
#ifndef TPH_SIM_LOOP_H
#define TPH_SIM_LOOP_H

#include "sim.h"

/* Completions ahead: a binary min-heap of (time, pod). */
typedef struct sim_heap {
	int64_t *t;
	uint32_t *pod;
	uint32_t n, cap;
} sim_heap;

int sim_heap_push(sim_heap *h, int64_t t, uint32_t pod);
uint32_t sim_heap_pop(sim_heap *h);
void sim_heap_free(sim_heap *h);

/* Fragmentation kept per node and summed: only nodes whose use changed are measured again. */
typedef struct sim_frag {
	sim_shape *shapes;
	uint32_t n_shapes;
	double *node;      /* each node's last measure */
	uint8_t *dirty;    /* [node]: its use changed since */
	uint32_t *touched; /* the dirty nodes */
	uint32_t n_touched;
	double sum;
} sim_frag;

int sim_frag_init(sim_frag *f, const sim_workload *w);
void sim_frag_touch(sim_frag *f, int32_t node);
/* The cluster's fragmentation: unusable / unallocated GPU capacity (0 without free GPUs). */
double sim_frag_measure(sim_frag *f, const sim_workload *w, const int64_t *used);
void sim_frag_free(sim_frag *f);

typedef struct loop {
	sim_workload *w;
	const tph_conf *conf;
	const sim_opts *o;
	sim_run *r;
	tph_diag d;
	tph_session_opts sopts;
	uint32_t next;             /* the next arrival in w->arrival_order */
	uint32_t *bound, *evicted; /* decided by the last session, for the kubelet to act on */
	uint32_t n_bound, n_evicted;
	int64_t bind_t; /* when the last session ran */
	sim_heap heap;
	sim_frag frag;
	uint32_t *node_order; /* node indices sorted by name, for the decision log */
	int64_t used[R_N];
	uint32_t pending_tasks, running_tasks, pending_jobs, running_jobs;
	bool changed;  /* the cache changed since the last session */
	bool reported; /* the last session's conf reported deserved (proportion, capacity) */
	bool quiet;    /* the last session decided nothing and changed no phase */
	sim_cycle row; /* the cycle being recorded */
} loop;

double sim_now_ms(void);
void sim_book(loop *l, sim_pod *p, int sign);
/* Play what happened up to `t` (kubelet, completions, arrivals). */
int sim_events(loop *l, int64_t t);
int64_t sim_next_event(const loop *l);
/* One session at `t` and its decisions booked; returns 0 or a TPH_E* status. */
int sim_cycle_run(loop *l, int64_t t);
int loop_init(loop *l, sim_workload *w, const tph_conf *conf, const sim_opts *o, sim_run *r);
void loop_free(loop *l);
/* Append the cycle's row (and its queue shares) to the run; its JSON line when asked. */
int sim_record(loop *l);

#endif

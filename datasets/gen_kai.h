/* The `10k-gpu` generator's model (a `flavour: kai` scenario): GPU nodes, departments with leaf
 * queues, and jobs of six kinds, planned in flat arrays (gen_kai.c) and then written section by
 * section (gen_kai_emit.c). */
#ifndef TPH_GEN_KAI_H
#define TPH_GEN_KAI_H

#include "gen.h"

#define KAI_GPUS_PER_NODE   8u
#define KAI_QUEUES_PER_DEPT 8u

/* What a job's pods ask for. */
enum {
	KJ_TRAIN = 0,    /* distributed training: 8 whole GPUs per pod, a gang of all its pods */
	KJ_SINGLE = 1,   /* one pod of 1, 2 or 4 whole GPUs */
	KJ_ELASTIC = 2,  /* whole GPUs, more pods than minMember */
	KJ_FRACTION = 3, /* gpu-fraction pods sharing a device */
	KJ_GPUMEM = 4,   /* gpu-memory pods sharing a device */
	KJ_CPU = 5,      /* no GPU */
	KJ_KINDS = 6,
};

/* KAI's priority classes (train 50, interactive-preemptible 75, build 100, inference 125); the
 * last two are non-preemptible by default. */
enum {
	KP_TRAIN = 0,
	KP_INTERACTIVE = 1,
	KP_BUILD = 2,
	KP_INFERENCE = 3,
};

typedef struct kai_node_type {
	const char *name, *product;
	int64_t cpu, mem; /* millicores, bytes */
	uint32_t gpu_mem; /* MiB per device */
	uint32_t weight;
} kai_node_type;

typedef struct kai_job {
	uint32_t queue;           /* leaf queue index */
	uint32_t size, min;       /* pods, minMember */
	uint32_t running;         /* the first `running` pods run (0: a pending job) */
	uint32_t first_pod;       /* running jobs: index of its first pod in kai_state.pods */
	uint8_t kind, prio;       /* KJ_*, KP_* */
	uint32_t gpu;             /* whole GPUs, fraction in hundredths, or MiB (by kind) */
	int64_t cpu, mem;         /* per pod: millicores, bytes */
	int64_t created, started; /* seconds since the epoch (started: running jobs) */
} kai_job;

/* A running pod: its node and, for a shared-GPU pod, the device it sits on. */
typedef struct kai_pod {
	uint32_t node;
	uint8_t dev;
} kai_pod;

typedef struct kai_state {
	const tph_gen_opts *o;
	gen_out *w;
	tph_gen_stats st;
	uint8_t *rack_type;    /* per rack */
	uint32_t n_depts;      /* departments: queues / KAI_QUEUES_PER_DEPT, rounded up */
	uint32_t *quota;       /* GPU quota per leaf queue */
	uint8_t *oq_weight;    /* over-quota weight per leaf queue */
	kai_job *rjobs, *jobs; /* running, pending */
	uint32_t n_rjobs, n_jobs;
	kai_pod *pods; /* running pods, job by job */
	uint32_t n_pods;
} kai_state;

extern const kai_node_type kai_node_types[];

static inline const kai_node_type *kai_node(const kai_state *k, uint32_t node)
{
	return &kai_node_types[k->rack_type[node / k->o->rack_size]];
}

/* A leaf queue of the hot third holds most of the running work: over its quota. */
static inline bool kai_queue_hot(uint32_t q)
{
	return q % 3 == 0;
}

/* gen_kai.c */
int gen_kai_write(const tph_gen_opts *o, gen_out *w, tph_gen_stats *st);

/* gen_kai_plan.c */
int kai_plan_running(kai_state *k);
int kai_plan_pending(kai_state *k);

/* gen_kai_emit.c */
void kai_write_queues(kai_state *k);
void kai_write_nodes(kai_state *k);
void kai_write_podgroups(kai_state *k);
void kai_write_pods(kai_state *k);

#endif

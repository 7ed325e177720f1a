/* `tephra simulate`: a time-stepped replay of a workload through the public host loop
 * (put/remove → snapshot → session → apply), with per-cycle metrics, JSON lines and an HTML
 * report. The workload is a scenario (a file, or a generated profile) whose podgroups carry
 * arrival times and durations; this header is the simulator's internal interface. It uses the
 * public API only (<tephra/...>); see sim/README.md. */
#ifndef TPH_SIM_H
#define TPH_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <tephra/tephra.h>

/* ---- a bump arena for what outlives a session (templates, names) ---- */

typedef struct sim_arena {
	struct sim_chunk *head;
	size_t used, cap;
	bool failed; /* an allocation failed: callers check once, at the end */
} sim_arena;

void *sim_alloc(sim_arena *a, size_t n);
char *sim_strdup(sim_arena *a, const char *s);
void sim_arena_free(sim_arena *a);

/* ---- the workload ---- */

/* What the simulator knows of a pod; its descriptor is a template put with a phase and node. */
enum {
	POD_WAITING,
	POD_PENDING,
	POD_BOUND,
	POD_RUNNING,
	POD_RELEASING,
	POD_DONE
};

typedef struct sim_pod {
	tph_pod_desc d;               /* the pod as it arrives: Pending, no node */
	uint32_t job;                 /* index in sim_workload.jobs */
	int32_t node;                 /* index in sim_workload.nodes; -1 when unplaced */
	uint8_t state;                /* POD_* */
	int64_t req[3];               /* cpu, memory, GPU (R_*) */
	int64_t end_ms;               /* when a running pod completes (INT64_MAX: never) */
	tph_kv_list bind_annotations; /* what the binding session set (device assignments) */
} sim_pod;

typedef struct sim_job {
	tph_podgroup_desc d; /* d.name NULL: the pods have no podgroup */
	int64_t arrive_ms;   /* absolute; <= the start: present from the start */
	int64_t dur_ms;      /* run time of each pod once bound; < 0: runs forever */
	uint32_t first_pod, n_pods;
	uint32_t queue;  /* index in sim_workload.queues */
	uint32_t placed; /* pods bound or running now */
	uint32_t done;   /* pods completed */
	int32_t min_member;
	int64_t start_ms; /* when minMember pods were first placed; -1: not yet */
	int64_t end_ms;   /* when its last pod completed; -1: not yet */
	bool arrived;
	bool dropped; /* outside the simulated window: never arrives */
} sim_job;

typedef struct sim_node {
	const char *name;
	int64_t alloc[3]; /* cpu (milli), memory (bytes), GPU (milli-units) */
	int64_t used[3];
	int64_t gpus; /* whole devices: alloc[2] / 1000 */
} sim_node;

typedef struct sim_queue {
	const char *name;
	int32_t weight;
	int64_t capability[3]; /* < 0: unlimited */
	int64_t allocated[3], request[3], deserved[3];
	double got; /* sim_deserved's scratch */
	bool met;
} sim_queue;

/* Resource dimensions the metrics follow: cpu, memory and one GPU resource. */
enum {
	R_CPU,
	R_MEM,
	R_GPU,
	R_N
};
extern const char *const sim_res_names[R_N];

typedef struct sim_workload {
	const char *name;
	tph_cluster *cache; /* the scenario's: the simulation updates it */
	int64_t now_ms;     /* the scenario's clock */
	int64_t t0_ms;      /* the first cycle */
	int64_t end_ms;     /* no cycle after it (INT64_MAX: until nothing is left to happen) */
	sim_pod *pods;
	uint32_t n_pods;
	sim_job *jobs;
	uint32_t n_jobs;
	uint32_t *arrival_order; /* jobs still to arrive at the start, by arrival time */
	uint32_t n_waiting;
	sim_node *nodes;
	uint32_t n_nodes;
	sim_queue *queues;
	uint32_t n_queues;
	int64_t cap[R_N];    /* the cluster's allocatable over ready and not-ready nodes */
	const char *gpu_res; /* the GPU resource's name ("nvidia.com/gpu") */
	/* Pod name → index (open addressing over "namespace/name"), for the decision log. */
	uint32_t *slot;
	uint32_t n_slots;
	sim_arena arena;
} sim_workload;

/* Fill `w` from a loaded scenario: its cache is the one the simulation updates. Pods of
 * podgroups that arrive after `t0_ms` leave the cache until they arrive. Returns 0 or 2 with a
 * message on stderr. */
int sim_workload_from_scenario(tph_scenario *scn, sim_workload *w, tph_diag *d);
/* After the arrivals are final: order them, set t0 (the first arrival, at most the scenario's
 * clock) and remove from the cache the pods and podgroups that arrive after it. */
int sim_workload_start(sim_workload *w, tph_diag *d);
void sim_workload_free(sim_workload *w);
/* (Re)build the pod name index after pods were added. 0 or -1 (out of memory). */
int sim_workload_index(sim_workload *w);
/* The pod named "namespace/name", or UINT32_MAX. */
uint32_t sim_pod_find(const sim_workload *w, const char *key);

/* A pod and its podgroup as descriptors a put takes, rebuilt from a session's view of the
 * snapshot (the scenario's pods, whatever file they came from). Strings and lists are copied
 * into `a`. What a view does not keep (init containers and overhead, already summed into the
 * request) is approximated as sim/README.md says. */
void sim_pod_desc(const tph_session *s, tph_idx t, sim_arena *a, tph_pod_desc *out);
void sim_group_desc(const tph_session *s, tph_idx j, sim_arena *a, tph_podgroup_desc *out);

/* Arrivals and durations. `tephra.io/duration` (or elasticflow/duration) on a podgroup gives
 * its run time in seconds; creationTimestamp its arrival. */
#define SIM_DURATION_KEY "tephra.io/duration"
/* Read an arrival file (sim/README.md): per podgroup `namespace/name arrival_s duration_s`.
 * Returns 0, or 2 after naming file:line:col on stderr. */
int sim_arrivals_read(const char *path, sim_workload *w);
/* Draw arrivals (Poisson, mean gap `span_s / jobs`) and log-normal durations (median
 * `median_s`, shape `sigma`) for every job that is not running at the start, from `seed`. */
void sim_arrivals_draw(sim_workload *w, uint64_t seed, double span_s, double median_s,
                       double sigma);
/* Keep the trace window [from, from + span) (seconds after the first arrival): jobs alive at
 * `from` arrive then with what remains of their run; later ones are dropped. */
void sim_window(sim_workload *w, int64_t from_s, int64_t span_s);

/* ---- metrics ---- */

/* The p-th percentile (0..100) of v[0..n) by nearest rank; sorts v. 0 when n == 0. */
double sim_percentile(int64_t *v, size_t n, double p);

/* FGD's fragmentation (Weng et al., ATC'23): the unallocated GPU capacity (milli-units) of a node
 * that a task of each typical shape could not use, weighted by the shape's popularity. */
typedef struct sim_shape {
	int64_t req[R_N];
	double weight; /* popularity, summing to 1 */
} sim_shape;
double sim_frag_node(const sim_node *n, const sim_shape *shapes, uint32_t n_shapes);
/* The distinct shapes of the workload's GPU-less and GPU pods, weighted by count. */
uint32_t sim_shapes(const sim_workload *w, sim_shape **out);

/* Proportion's deserved share (Volcano's water-filling over queue weights, per resource),
 * computed by the simulator from each queue's weight, capability and request. */
void sim_deserved(sim_queue *q, uint32_t n, const int64_t *total);

typedef struct sim_cycle {
	int64_t t_ms;      /* the cycle's clock */
	uint32_t cycles;   /* cycles this row stands for (1 + identical ones skipped after it) */
	double alloc[R_N]; /* allocated / capacity */
	uint32_t pending_tasks, running_tasks, pending_jobs, running_jobs;
	uint32_t binds, evictions, pipelined, arrivals, completions;
	double frag;       /* unusable fraction of the unallocated GPU capacity */
	double session_ms; /* snapshot + open + run + close + apply */
} sim_cycle;

/* Everything one run records; the report reads two of them for --compare. */
typedef struct sim_run {
	const char *label; /* the conf's name */
	sim_cycle *rows;
	uint32_t n_rows, cap_rows;
	double *queue_alloc, *queue_deserved; /* [row * n_queues + q], GPU else cpu share */
	uint32_t n_queues;
	const char **queue_names;
	/* The plugin whose deserved the queue plot shows ("proportion", "capacity"), or NULL
	 * "" when no session reported one and the simulator computed it (sim_deserved). Copied:
	 * the session's string dies with it, the workload's arena may die before the run. */
	char deserved_source[64];
	int64_t *waits; /* per started job, ms */
	uint32_t n_waits;
	uint64_t cycles, sessions, binds, evictions, jobs_done;
	double wall_ms, session_ms, session_max_ms;
	/* The capacity experiment: arrived GPU request against the GPU allocation ratio. */
	double *cap_x, *cap_y;
	uint32_t n_cap;
	double cap_wall_ms;
} sim_run;

void sim_run_free(sim_run *r);

/* ---- the loop ---- */

typedef struct sim_opts {
	int64_t period_ms;
	int threads;
	bool no_skip; /* run every cycle */
	bool progress;
	FILE *jsonl; /* NULL: none */
	const char *jsonl_label;
} sim_opts;

/* Whether cycles where nothing changed may be skipped under this conf: none of its plugins reads
 * the clock (sla, tdm, cdp, usage) or answers from outside (extender). */
bool sim_conf_timeless(const tph_conf *conf);

/* Run the workload to its end under `conf`, recording into `r`. Returns 0, or 2 with a message
 * on stderr. The workload's cache is changed: run each conf over a freshly loaded workload. */
int sim_run_loop(sim_workload *w, const tph_conf *conf, const sim_opts *o, sim_run *r);

/* The capacity experiment: the workload's pods in a random order from `seed`, one arrival per
 * cycle, no departures, until the arrived GPU request reaches `stop_pct` of the GPUs. */
int sim_capacity(sim_workload *w, const tph_conf *conf, const sim_opts *o, uint64_t seed,
                 double stop_pct, sim_run *r);

/* ---- output ---- */

/* One cycle as a JSON line, and the closing summary line (sim/README.md lists the keys). */
void sim_jsonl_cycle(FILE *f, const sim_run *r, uint32_t row);
void sim_jsonl_summary(FILE *f, const sim_run *r);
/* One line per job that arrived: its arrival, wait and end (sim/README.md). */
void sim_jsonl_jobs(FILE *f, const sim_workload *w, const sim_run *r);
/* The summary figures the report's table and the JSON summary share. */
typedef struct sim_summary {
	double wait_p50_s, wait_p90_s, wait_p99_s;
	double mean_alloc[R_N], mean_frag;
	double session_ms_mean, session_ms_max;
} sim_summary;
void sim_summarise(sim_run *r, sim_summary *s);

/* The self-contained XHTML report: one or two runs (overlaid). Returns 0, or -1 with errno. */
int sim_html_write(FILE *f, const char *title, sim_run *const *runs, uint32_t n_runs);

/* Progress on stderr: "\r[####......] 42% t=3600s" when stderr is a terminal. */
void sim_progress(const sim_opts *o, double frac, int64_t t_s);

/* The command. */
int tph_cmd_simulate(int argc, char **argv);

#endif

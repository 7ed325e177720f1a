/* KAI's job solver (actions/common/solvers; KAI-NOTES section 5), shared by reclaim, preempt
 * and consolidation: per pending job a k-search over how many of its tasks to place, each probe
 * running the registered scenario generators over a victims queue, each scenario simulated in
 * the session's statement (evict every victim, re-place the preemptor and each victim job
 * pipeline-only in queue order, ask the action's validator). Deterministic: no time budget. */
#ifndef TPH_KAI_SOLVER_H
#define TPH_KAI_SOLVER_H

#include "place.h"

typedef struct tph_kai_solver tph_kai_solver;

/* The idle-GPU filter's figures kept over one generator run (solver_idle.c): per node its free
 * GPUs plus the victims' there (cap), the k roomiest nodes (top, pos[node] its place or -1),
 * the probe's requests largest first; the pot victims counted and the touch log read so far. */
typedef struct tph_kai_idle {
	double *cap, *fresh, *req;
	int32_t *pos;
	uint32_t *top, n_top, *list, n_seen, log_at, log_gen;
	uint8_t *mark;
	bool valid;
} tph_kai_idle;

/* A queue as a side of tph_kai_jobq_pop's comparisons (solver_queue.c). */
typedef struct tph_kai_qside {
	/* Its inputs when it was last stamped: best job, the job's version, the queue's event
	 * version, its leaf's popped count; and (a victims queue) its victims summed then. */
	uint64_t jv, qv, pv, stamp;
	double vic[TPH_KAI_DIMS];
	/* Its last QueueOrder answer (sign) against `rival`, and both sides' stamps then. */
	uint64_t own, other;
	int32_t job, rival;
	int8_t answer;
	int32_t best;    /* a leaf's best job, -2: unknown */
	uint64_t popped; /* grows with each job popped from the leaf and at a victims reset */
	/* A leaf's pop sequence (solver_leaf.c): seq[at] is next, n_seq scanned; the job popped
	 * last (-1: none since a scan); whether a forget came since the last pick; whether a job
	 * was put back since the sequence started (then it is not replayed). */
	uint32_t at, n_seq;
	int32_t last;
	bool fresh, put_back;
} tph_kai_qside;

/* What a job queue keeps between pops: [queue] sides, the last stamp given, and per leaf, over
 * its slice of q_jobs, its pop sequence and the jobs (in0) and their versions (gen0) it
 * started from. */
typedef struct tph_kai_jobq {
	tph_kai_qside *side;
	uint64_t stamps;
	uint32_t *seq;
	uint8_t *in0;
	uint64_t *gen0;
} tph_kai_jobq;

/* splitmix64's finaliser: the solver's hashes (signatures, the failed-scenario memo). */
static inline uint64_t tph_kai_mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The failed scenarios of the job being solved (solver_memo.c): 128-bit fingerprints in an
 * open-addressed table; a slot is live when its stamp is the current job's. */
typedef struct tph_kai_memo {
	uint64_t *key; /* [2 * slot] */
	uint32_t *gen; /* [slot] */
	uint32_t mask, cur, n;
} tph_kai_memo;

/* What an action gives the solver: its victim filter (may `victim` give to `preemptor`?) and
 * its scenario validator (asked with the scenario applied in the statement). */
typedef struct tph_kai_solver_rules {
	bool (*candidate)(tph_kai_solver *sv, uint32_t preemptor, uint32_t victim);
	bool (*valid)(tph_kai_solver *sv, const tph_kai_scenario *sc);
	void *state; /* the action's, read by its callbacks through sv->rules.state */
	/* Asked of a job before its signature (NULL: all): a job it refuses is not remembered as
	 * failed (reclaim's CanReclaimResources). */
	bool (*eligible)(tph_kai_solver *sv, uint32_t j);
	bool per_queue; /* failed jobs' signatures are kept per queue (reclaim, preempt) */
} tph_kai_solver_rules;

struct tph_kai_solver {
	tph_kai_session *s;
	tph_kai_placer pl;
	tph_kai_solver_rules rules;
	uint32_t *q_first, *q_jobs; /* jobs by leaf queue: queue q's are q_jobs[q_first[q] ..) */
	/* child queues by parent (slot queues.n: the top level): kids[kid_first[p] ..) */
	uint32_t *kid_first, *kids;
	uint32_t *pool, n_pool; /* the in-pool nodes: where tasks are re-placed */
	uint32_t *pend, n_pend; /* jobs with a Pending pod, found once per solved job */
	/* The job being solved: its tasks of this turn; the probe places the first k. */
	uint32_t job, *tasks, n_tasks, k;
	/* Victims of the last solved probe (KAI's recorded victims), carried into later probes;
	 * in_rec[t] marks exactly them. */
	uint32_t *rec, n_rec;
	/* The victims queue of one generator run: candidate jobs still in it, tasks popped. */
	uint8_t *cand, *vq_in, *taken, *in_rec, *saved;
	uint32_t *taken_list, n_taken; /* the tasks with taken[t] set, to clear and mask them */
	uint32_t *rem;                 /* [sub-group] a victim job's tasks left in the queue */
	double *vq_popped; /* [queue * TPH_KAI_DIMS] the allocated requests of the jobs it popped */
	/* The accumulated scenario: potential victim tasks in pop order, batch b (one pop) ending
	 * at batch_end[b]. */
	uint32_t *pot, n_pot, *batch_end, n_batch;
	/* Scratch: a scenario's victims, the jobs of a re-allocation, the scenario for validators,
	 * per-node capacities, node lists. */
	uint32_t *victims, n_victims, *vjob, *vfirst, n_vjobs, *order, *sub, *tmp;
	uint8_t *job_in, *node_seen, *job_mark;
	/* tph_kai_jobq_pop's kept state: the victims queue's, re-placement's. */
	tph_kai_jobq vq, rq;
	double *cap, *rf, *req;
	uint64_t scenarios; /* scenarios simulated (the count a deterministic budget would cap) */
	tph_kai_memo memo;
	/* The topology filter's scratch: the levels the job's constraints name, the GPUs of the
	 * sets at one level ([sub-group + 1]), each domain's room and what the match took
	 * ([node + 1]: a level has at most one domain per node). */
	uint32_t *filter_levels;
	double *filter_req, *filter_cap, *filter_used;
	/* Where a scenario re-places (solver_nodes.c): [node] feasible for the job being solved;
	 * the scenario's nodes; [node] stamped when a victim of the scenario sits there. */
	uint8_t *feasible;
	uint32_t *nodes, n_nodes, *node_stamp, stamp;
	uint8_t *aff_ok; /* [turn task]: no node asked for, or a feasible node matches */
	tph_kai_idle idle;
};

int tph_kai_solver_init(tph_kai_solver *sv, tph_kai_session *s, tph_kai_solver_rules rules);
void tph_kai_solver_free(tph_kai_solver *sv);

/* Solve pending job j: 1 solved (the statement holds the evictions and placements; commit
 * it), 0 not (the statement is rolled back), < 0 error. */
int tph_kai_solve_job(tph_kai_solver *sv, uint32_t j);

/* KAI's searchMaxSolvableK over n tasks: probe k = 1, 2, 4 ... up to n while probes solve
 * (probe: 1 solved, 0 not, < 0 error), then a binary search between the last solved and the
 * first unsolved. The largest k solved (0: none), or the error. */
int64_t tph_kai_search_k(uint32_t n, int (*try_k)(void *ctx, uint32_t k), void *ctx);

/* The memo of failed scenarios (solver_memo.c): forget the last job's; whether the current
 * probe's scenario with potential victims pot[0..n) failed before (never in naive mode);
 * remember that it failed (TPH_ENOMEM when the table cannot grow). */
void tph_kai_memo_reset(tph_kai_memo *m);
bool tph_kai_memo_failed_before(const tph_kai_solver *sv, const uint32_t *pot, uint32_t n);
int tph_kai_memo_add(tph_kai_solver *sv, const uint32_t *pot, uint32_t n);
void tph_kai_memo_free(tph_kai_memo *m);

/* Try one scenario: the recorded victims plus pot[0..n). 1 solved (statement open), 0 not
 * (or failed before in this job's search). */
int tph_kai_solver_try(tph_kai_solver *sv, const uint32_t *pot, uint32_t n);

/* The victims queue (solver_victims.c): reset it for a generator run (candidates in, nothing
 * popped, no potential victims); pop the next job's tasks onto the accumulated scenario as one
 * batch: 1 added, 0 nothing added (the job held recorded victims), -1 the queue is empty. */
void tph_kai_victims_reset(tph_kai_solver *sv);
int tph_kai_victims_next(tph_kai_solver *sv);

/* KAI's AccumulatedIdleGpus filter (solver_idle.c): whether the probe's k tasks' GPUs could
 * fit the k roomiest nodes given the accumulated scenario's victims; kept from one
 * accumulation to the next until tph_kai_idle_reset (at each tph_kai_victims_reset). */
int tph_kai_idle_init(tph_kai_idle *ig, uint32_t n_nodes, uint32_t n_tasks);
void tph_kai_idle_free(tph_kai_idle *ig);
void tph_kai_idle_reset(tph_kai_idle *ig);
bool tph_kai_idle_gpus_fit(tph_kai_solver *sv);

/* KAI's TopologyAwareIdleGpus filter (solver_filter.c): whether every set of the job's tree
 * with a required topology level could find its pods' GPUs in one domain of that level, given
 * the accumulated scenario's victims (sv->rec, sv->pot) and the probe's k. */
bool tph_kai_topology_room(tph_kai_solver *sv);
/* Task t's GPUs as KAI's victims free them (AcceptedGpuRequirement.GetGpusQuota): a placed
 * shared pod's accepted part of its device, else its request with MIG instances as GPUs. */
double tph_kai_accepted_gpus(const tph_kai_session *s, uint32_t t);

/* KAI's feasible nodes (solver_nodes.c): flag those of job j as its search starts; list the
 * current scenario's (the feasible ones and those of its recorded and evicted victims) in
 * sv->nodes, pool order. */
void tph_kai_feasible_nodes(tph_kai_solver *sv, uint32_t j);
void tph_kai_scenario_nodes(tph_kai_solver *sv);
/* KAI's AccumulatedNodeAffinities filter (solver_nodes.c): every one of the probe's k tasks
 * with a node selector or required node affinity matches a feasible node or one of the
 * accumulation's victims' nodes. tph_kai_feasible_nodes prepares it, after the turn is known. */
bool tph_kai_affinity_room(const tph_kai_solver *sv);

/* The generators (solver_gen.c): enumerate scenarios for the current probe and try each; 1 at
 * the first solved, 0 exhausted, < 0 error. */
int tph_kai_gen_node_local_greedy(tph_kai_solver *sv);
int tph_kai_gen_multi_node_gang(tph_kai_solver *sv);

/* Hierarchical job order (solver_queue.c) over the jobs with in[j] set: the best job by
 * QueueOrder down the queue tree and JobOrder in the leaf, or, for a victims queue, the
 * reverse (the queue that should give back first, its lowest job first; each pop adds the
 * job's allocated requests to vq_popped). Clears in[j] of the job returned; -1 when none is
 * left. `jq` (NULL: none; unused in naive mode) keeps each leaf queue's pop sequence, valid
 * while in[] changes only for jobs just popped (or put back) and no other job's state changes
 * (after tph_kai_jobq_forget it is replayed only from the same jobs in the same versions), and
 * QueueOrder's answers, valid while their inputs stay:
 * the sides' best jobs, those jobs' versions, the queues' event versions, the popped
 * victims. Forget with `victims` also empties vq_popped. One jobq serves one kind of queue. */
int32_t tph_kai_jobq_pop(const tph_kai_solver *sv, uint8_t *in, tph_kai_jobq *jq, bool victims);
void tph_kai_jobq_forget(const tph_kai_solver *sv, tph_kai_jobq *jq, bool victims);
int tph_kai_jobq_init(tph_kai_jobq *jq, uint32_t n_queues, uint32_t n_jobs);
void tph_kai_jobq_free(tph_kai_jobq *jq);
/* A leaf's next job (solver_leaf.c): the literal scan of JobOrder over its jobs in in[]; the
 * same from the jobq's kept sequence; note that job j of leaf q was popped. */
int32_t tph_kai_leaf_scan(const tph_kai_solver *sv, const uint8_t *in, uint32_t q, bool victims);
int32_t tph_kai_leaf_best(const tph_kai_solver *sv, const uint8_t *in, tph_kai_jobq *jq, uint32_t q,
                          bool victims);
void tph_kai_leaf_popped(tph_kai_jobq *jq, uint32_t q, uint32_t j);
/* Fill q_first/q_jobs (jobs of schedulable leaf queues), the child queues and the pool, once
 * per run. */
void tph_kai_solver_index(tph_kai_solver *sv);

/* KAI's scheduling signatures (solver_sig.c). A job's signature hashes its pod sets' topology
 * constraints and the constraints of their pods not active-allocated; computed once per
 * session. The failed jobs of an action are kept per (scope, signature), scope the queue in
 * reclaim and preempt, -1 in consolidation: the smallest footprint represents them. */
typedef struct tph_kai_reps tph_kai_reps;
uint64_t tph_kai_job_signature(tph_kai_session *s, uint32_t j);
tph_kai_reps *tph_kai_reps_new(const tph_kai_session *s);
void tph_kai_reps_free(tph_kai_reps *r);
/* KAI's IsEasierToSchedule, negated: j is no easier than its signature's failed job. */
bool tph_kai_reps_skip(tph_kai_reps *r, tph_kai_session *s, int32_t scope, uint32_t j);
/* KAI's UpdateRepresentative: j failed. */
void tph_kai_reps_failed(tph_kai_reps *r, tph_kai_session *s, int32_t scope, uint32_t j);

/* The standard loop of the three actions: pending ready jobs outside their preemption delay in
 * queue order, each solved once, `admit` deciding whether to try it (NULL: all; a job it
 * refuses counts as failed for the signatures). */
int tph_kai_solver_run(tph_kai_session *s, tph_kai_solver_rules rules, bool preemptible_only,
                       bool (*admit)(tph_kai_solver *sv, uint32_t j), tph_diag *d);

#endif

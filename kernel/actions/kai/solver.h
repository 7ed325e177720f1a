/* KAI's job solver (actions/common/solvers; KAI-NOTES section 5), shared by reclaim, preempt
 * and consolidation: per pending job a k-search over how many of its tasks to place, each probe
 * running the registered scenario generators over a victims queue, each scenario simulated in
 * the session's statement (evict every victim, re-place the preemptor and each victim job
 * pipeline-only in queue order, ask the action's validator). Deterministic: no time budget. */
#ifndef TPH_KAI_SOLVER_H
#define TPH_KAI_SOLVER_H

#include "place.h"

typedef struct tph_kai_solver tph_kai_solver;

/* What an action gives the solver: its victim filter (may `victim` give to `preemptor`?) and
 * its scenario validator (asked with the scenario applied in the statement). */
typedef struct tph_kai_solver_rules {
	bool (*candidate)(tph_kai_solver *sv, uint32_t preemptor, uint32_t victim);
	bool (*valid)(tph_kai_solver *sv, const tph_kai_scenario *sc);
	void *state; /* the action's, read by its callbacks through sv->rules.state */
} tph_kai_solver_rules;

struct tph_kai_solver {
	tph_kai_session *s;
	tph_kai_placer pl;
	tph_kai_solver_rules rules;
	uint32_t *q_first, *q_jobs; /* jobs by leaf queue: queue q's are q_jobs[q_first[q] ..) */
	uint32_t *pool, n_pool;     /* the in-pool nodes: where tasks are re-placed */
	uint32_t *pend, n_pend;     /* jobs with a Pending pod, found once per solved job */
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
	double *cap, *rf, *req;
	uint64_t scenarios; /* scenarios simulated (the count a deterministic budget would cap) */
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

/* Try one scenario: the recorded victims plus pot[0..n). 1 solved (statement open), 0 not. */
int tph_kai_solver_try(tph_kai_solver *sv, const uint32_t *pot, uint32_t n);

/* The victims queue (solver_victims.c): reset it for a generator run (candidates in, nothing
 * popped, no potential victims); pop the next job's tasks onto the accumulated scenario as one
 * batch: 1 added, 0 nothing added (the job held recorded victims), -1 the queue is empty. */
void tph_kai_victims_reset(tph_kai_solver *sv);
int tph_kai_victims_next(tph_kai_solver *sv);

/* The generators (solver_gen.c): enumerate scenarios for the current probe and try each; 1 at
 * the first solved, 0 exhausted, < 0 error. */
int tph_kai_gen_node_local_greedy(tph_kai_solver *sv);
int tph_kai_gen_multi_node_gang(tph_kai_solver *sv);

/* Hierarchical job order (solver_queue.c) over the jobs with in[j] set: the best job by
 * QueueOrder down the queue tree and JobOrder in the leaf, or, for a victims queue, the
 * reverse (the queue that should give back first, its lowest job first). Clears in[j] of the
 * job returned; -1 when none is left. */
int32_t tph_kai_jobq_pop(const tph_kai_solver *sv, uint8_t *in, bool victims);
/* Fill q_first/q_jobs (jobs of schedulable leaf queues) and the pool, once per run. */
void tph_kai_solver_index(tph_kai_solver *sv);

/* A node's idle plus releasing GPUs, shared devices' free parts included (KAI's
 * GetSumOfIdleGPUs + GetSumOfReleasingGPUs). */
double tph_kai_free_gpus(const tph_kai_session *s, uint32_t n);

/* The standard loop of the three actions: pending ready jobs outside their preemption delay in
 * queue order, each solved once, `admit` deciding whether to try it (NULL: all). */
int tph_kai_solver_run(tph_kai_session *s, tph_kai_solver_rules rules, bool preemptible_only,
                       bool (*admit)(tph_kai_solver *sv, uint32_t j), tph_diag *d);

#endif

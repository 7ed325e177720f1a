/* The allocate action's context, shared by its files: allocate.c (the queue and job loop),
 * allocate_job.c (a job's tasks over every node), allocate_nodes.c (choosing among feasible
 * nodes), allocate_fast*.c (the same choice kept per task shape between tasks) and
 * allocate_topo.c (jobs Volcano sends through hypernode gradients). */
#ifndef TPH_ACTION_ALLOCATE_H
#define TPH_ACTION_ALLOCATE_H

#include "common/action_util.h"
#include "session/ep.h"
#include "session/fit.h"

typedef struct alloc_ctx {
	tph_session *s;
	tph_ph_opts opts;
	tph_ph ph;
	tph_eqc *eqc;
	tph_pq queues; /* queues with work, by QueueOrder */
	tph_pq *jobs;  /* [queue] its jobs by JobOrder */
	tph_pq *tasks; /* [job] its pending tasks by TaskOrder (Volcano's worksheet) */
	uint8_t *topo; /* [job] 1: the hypernode path (allocate_topo.c) */
	/* scratch for one task over the ready nodes */
	tph_reason_code *codes;
	tph_idx *feas, *grouped;
	uint8_t *grp;
	double *scores;
	struct ahn_ctx *hn;      /* allocate_topo.c's state, made on the first hypernode-path job */
	struct alloc_fast *fast; /* allocate_fast*.c: class-level candidates; NULL when off */
} alloc_ctx;

/* allocate_job.c: the flat path (allocateResourcesForTasks over the cluster, then commit,
 * keep or discard). *again: the job has tasks left and goes back into its queue. */
int alloc_flat_job(alloc_ctx *c, tph_idx job, bool *again);
/* Volcano's JobInfo.NeedContinueAllocating for a job without sub-group policies. */
bool alloc_need_continue(alloc_ctx *c, tph_idx job);

/* The groups prioritizeNodes tries in order (an enum, so the order is the comparison) and the
 * group of a node for a task's request (G_NONE: not even FutureIdle fits). */
enum {
	G_IDLE,
	G_IDLE_OTHER,
	G_FUTURE,
	G_FUTURE_OTHER,
	G_NONE,
	G_COUNT
};
/* The group of a node whose Idle fits (`idle`) or, failing that, FutureIdle (`future`);
 * `other`: outside the shard in soft sharding. */
static inline uint8_t alloc_group_rule(bool idle, bool future, bool other)
{
	if (idle)
		return other ? G_IDLE_OTHER : G_IDLE;
	if (future)
		return other ? G_FUTURE_OTHER : G_FUTURE;
	return G_NONE;
}
static inline uint8_t alloc_group_in(const tph_node_store *ns, const tph_fit_req *fit, tph_idx node,
                                     bool soft)
{
	bool idle = tph_fit_check(ns, fit, node, false) == TPH_PASS;
	return alloc_group_rule(idle, !idle && tph_fit_check(ns, fit, node, true) == TPH_PASS,
	                        soft && !(ns->flags[node] & TPH_NODE_IN_SHARD));
}
static inline uint8_t alloc_group_of(const tph_session *s, const tph_fit_req *fit, tph_idx node,
                                     bool soft)
{
	return alloc_group_in(&s->nodes, fit, node, soft);
}
/* The request alloc_group_of() compares: Volcano's InitResreq, which has no pods unit. */
static inline void alloc_group_req(const tph_session *s, tph_idx task, tph_fit_req *fit)
{
	tph_fit_prepare(s, task, NULL, false, fit);
}
/* allocate_nodes.c: Volcano's prioritizeNodes: the best of feas[0..n) trying, in order,
 * nodes whose Idle fits (shard first, in soft sharding), then nodes whose FutureIdle fits.
 * TPH_NOIDX when none. */
tph_idx alloc_best_node(alloc_ctx *c, tph_idx task, const tph_idx *feas, uint32_t n);
/* allocateResourcesForTask: allocate when Idle fits, else pipeline when FutureIdle does.
 * TPH_OK, TPH_DECLINED (neither fits), or the statement's error. */
int alloc_place(alloc_ctx *c, tph_statement *st, tph_idx task, tph_idx node);

/* allocate_topo.c: whether the job goes to alloc_topology_job(): Volcano's allocateForJob
 * (a hard network topology once soft is made hard, or sub-group policies) or a flat job whose
 * placement reads hypernode state (a network topology that is not hard, a nominated
 * hypernode). */
bool alloc_job_uses_topology(const tph_session *s, tph_idx job);
/* Volcano skips a job with a network topology while the hypernodes do not form a tree. */
bool alloc_job_skipped(const tph_session *s, tph_idx job);
/* The job's turn: allocateForJob, or the flat path with the nomination fast path and
 * hypernode bookkeeping. *again: committed with tasks left. */
int alloc_topology_job(alloc_ctx *c, tph_idx job, bool *again);
/* Free what alloc_topology_job() allocated outside the arena. */
void alloc_topology_free(alloc_ctx *c);

#endif

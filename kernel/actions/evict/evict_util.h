/* Shared by the eviction actions (preempt, reclaim, shuffle): Volcano's victim order
 * (victim_order.h), the candidate nodes of a preemptor and FutureIdle arithmetic. Everything runs
 * on the session's thread; scratch comes from the session arena once per action run
 * (tph_evict_open) and is reused by every preemptor. */
#ifndef TPH_EVICT_UTIL_H
#define TPH_EVICT_UTIL_H

#include "common/action_util.h"
#include "session/session_int.h"
#include "session/statement.h"
#include "session/victim_order.h"

/* ---- per-action context ---- */

typedef struct tph_evict_ctx {
	tph_session *s;
	int err;             /* first fatal error (out of memory); the action returns it */
	bool fast;           /* the exact shortcuts (not --naive) */
	uint32_t *node_off;  /* CSR: tasks Bound or Running on node n when the action started */
	tph_idx *node_tasks; /* node_tasks[node_off[n] .. node_off[n+1]) in task order */
	uint32_t max_on_node;
	tph_idx *cands, *victims, *vheap; /* scratch, max_on_node each */
	tph_idx *nodes;                   /* candidate nodes of one preemptor (n_ready) */
	tph_idx *eval, *run;              /* scratch (n_ready) */
	tph_reason_code *codes;           /* scratch (n_ready) */
	uint32_t *mark;                   /* per node: == stamp when skipped for this task */
	uint32_t stamp;
	tph_ph_opts ph;      /* node sampling, as allocate reads it */
	tph_fit_cache cache; /* predicate error cache, one pass for the whole action */
} tph_evict_ctx;

/* Build the context. `ph` gives the sampling knobs and predicateErrorCacheEnable; `keep_cache`
 * keeps the error cache for the whole run (preempt has one PredicateHelper per Execute;
 * reclaim makes a fresh one per task, which never hits). */
int tph_evict_open(tph_evict_ctx *c, tph_session *s, const tph_ph_opts *ph, bool keep_cache);
void tph_evict_close(tph_evict_ctx *c);

/* The tasks on `node` (Bound or Running at action start; callers re-check the status). */
static inline const tph_idx *tph_evict_on_node(const tph_evict_ctx *c, tph_idx node, uint32_t *n)
{
	*n = c->node_off[node + 1] - c->node_off[node];
	return c->node_tasks + c->node_off[node];
}

/* The nodes `task` may evict on, as preempt and reclaim compute them: the session's nodes
 * less the task's recorded unresolvable ones (FilterOutUnschedulableAndUnresolvable...), then
 * PredicateHelper.PredicateNodes with PredicateForPreemptAction (error cache, hard shard, at
 * most tph_ph_nodes_to_find found when sampling, in node order), split by
 * GetPredicatedNodeByShard. Writes c->nodes: the in-shard group, then the others; returns the
 * total and sets *n_first to the first group's size. */
uint32_t tph_evict_nodes(tph_evict_ctx *c, tph_idx task, uint32_t *n_first);
/* Its steps: the session's ready nodes less the task's recorded unresolvable ones, into
 * c->eval (marking those with c->stamp in c->mark); and, in soft sharding, c->nodes[0..n)
 * reordered shard first (each part in order), returning the shard's count (else n). */
uint32_t tph_evict_base_nodes(tph_evict_ctx *c, tph_idx task);
uint32_t tph_evict_split_shard(tph_evict_ctx *c, uint32_t n);

/* ---- candidate nodes kept per class (evict_cands.c) ---- */

/* The action's bound for the candidate nodes[0..n) of `task` (key: what else the class is
 * keyed on, such as preempt's scope): live[i] = 0 when trying nodes[i] cannot succeed, else 1.
 * A function of each node's state only, for tasks of one class; a batch, so that what depends
 * on the task alone is worked out once per call. */
typedef void (*tph_ecands_bound)(void *arg, tph_idx task, uint32_t key, const tph_idx *nodes,
                                 uint32_t n, uint8_t *live);

/* What tph_evict_nodes finds, and the bound of each node found, kept for the last class that
 * looked (not --naive, no sampling, node-local predicates): per node its state, the log of
 * nodes the action changed since. rep: the class's first task, TPH_NOIDX when nothing is
 * kept; served: the current task's nodes came from the state (tph_ecands_live answers). */
typedef struct tph_ecands {
	bool on, served;
	tph_idx rep;
	uint32_t key, cap;
	uint8_t *state;
	tph_idx *log, *todo;
	uint32_t n_log, *mark, stamp;
	tph_ecands_bound bound;
	void *arg;
	double *score; /* per node: the class's score, valid while the state says so */
	uint32_t *ver; /* per node: bumped at each touch, whatever the class */
	int64_t *fi;   /* per node, ndim each: FutureIdle when the node's ver was fi_ver - 1 */
	uint32_t *fi_ver;
	uint64_t *live; /* bit per node: the state's live flag, walked in node order */
	uint8_t *out;   /* scratch: the bound's answers (n_ready) */
} tph_ecands;

int tph_ecands_init(tph_ecands *k, tph_evict_ctx *c, tph_ecands_bound bound, void *arg);
/* tph_evict_nodes for task p, from the kept class when p is of it; when served and
 * live_only, only the nodes the bound passes (in the same order, split by shard alike), for a
 * caller to whom every other node fails without a trace. */
uint32_t tph_ecands_nodes(tph_ecands *k, tph_evict_ctx *c, tph_idx p, uint32_t key, bool live_only,
                          uint32_t *n_first);
/* The bound's answer for a node of the task it served. */
static inline bool tph_ecands_live(const tph_ecands *k, tph_idx node)
{
	return k->live[node >> 6] >> (node & 63) & 1;
}
/* A score kept for a node of the task it served, by an earlier task of its class since the
 * node last changed: true and *out set, or false. Only for scores that are node-local
 * (TPH_SCORE_LOCAL, with or without TPH_SCORE_JOB: a class is one job) for the class. */
bool tph_ecands_score(const tph_ecands *k, tph_idx node, double *out);
void tph_ecands_keep_score(tph_ecands *k, tph_idx node, double score);
/* Every change the action makes to a node: the node, or each operation of a statement about
 * to be committed or discarded. */
void tph_ecands_touch(tph_ecands *k, tph_idx node);
/* How often `node` was touched so far (while on: a cache of per-node sums the action keeps
 * holds while the count it was made at holds). */
static inline uint32_t tph_ecands_ver(const tph_ecands *k, tph_idx node)
{
	return k->ver[node];
}
/* FutureIdle = idle + releasing - pipelined, per dimension. */
void tph_future_idle(const tph_session *s, tph_idx node, int64_t *out);
/* tph_future_idle: a row kept since the node was last touched (while on), else buf filled;
 * valid until the next call. Inline: the bounds read it for every candidate node. */
static inline const int64_t *tph_ecands_future_idle(tph_ecands *k, const tph_session *s,
                                                    tph_idx node, int64_t *buf)
{
	if (!k->on) {
		tph_future_idle(s, node, buf);
		return buf;
	}
	int64_t *row = k->fi + (size_t)node * s->ndim;
	if (k->fi_ver[node] != k->ver[node] + 1) {
		tph_future_idle(s, node, row);
		k->fi_ver[node] = k->ver[node] + 1;
	}
	return row;
}
void tph_ecands_touch_stmt(tph_ecands *k, const tph_statement *st);

/* Whether a failed preemptor (or reclaimer) a tells how b fares, the session unchanged: one
 * class (tph_eqc_same_class), priority and flags, a node-local spec, the same nodes recorded as
 * unresolvable. The caller checks the plugins' localities (tephra/plugin.h). */
bool tph_evict_same_class(const tph_session *s, tph_idx a, tph_idx b);

/* ---- resources: FutureIdle = idle + releasing - pipelined, per dimension ---- */

/* tph_future_idle is declared with tph_ecands_future_idle above. */
/* out += sign * request of task. */
void tph_vec_add_task(const tph_session *s, tph_idx task, int sign, int64_t *out);
/* request <= avail as Resource.LessEqual(.., Zero) compares them: cpu and memory always, every
 * other dimension the task requests. */
bool tph_req_fits(const tph_session *s, tph_idx task, const int64_t *avail);
/* util.ValidateVictims: the request fits FutureIdle plus the victims' requests. */
bool tph_validate_victims(const tph_session *s, tph_idx task, tph_idx node, const tph_idx *victims,
                          uint32_t n);

/* Upper bounds on what victims can release, exact shortcuts' first filter: rows[n * ndim ..]
 * gets the requests of the preemptable tasks on node n at action start (the only candidates
 * the victim filters see) whose job's queue is marked in queues[]; tph_evict_rows_fit says
 * whether FutureIdle plus that row fits the task (false: no subset of them makes room). */
void tph_evict_release_rows(const tph_evict_ctx *c, const uint8_t *queues, int64_t *rows);
bool tph_evict_rows_fit(const tph_evict_ctx *c, const int64_t *rows, tph_idx task, tph_idx node);
/* The same tasks as a list per node, in the node index's order: tasks[off[n] .. off[n+1])
 * (off has room for every node + 1, tasks for the index's entries). */
void tph_evict_marked_tasks(const tph_evict_ctx *c, const uint8_t *queues, uint32_t *off,
                            tph_idx *tasks);

/* Pending tasks of `job` pushed into a task-order heap over `buf` (room for the job's tasks). */
/* The tasks Bound or Running on each node when an eviction action starts (what Volcano's
 * NodeInfo.Tasks offers the victim filters), as CSR in the session arena:
 * tasks[off[n] .. off[n+1]) in task order. *max_on_node (may be NULL) gets the largest row. */
int tph_node_tasks_csr(tph_session *s, uint32_t **off, tph_idx **tasks, uint32_t *max_on_node);

void tph_push_pending(const tph_session *s, tph_idx job, tph_pq *h, tph_idx *buf);

/* Record an out-of-memory (or other fatal) status once. */
static inline void tph_evict_fail(tph_evict_ctx *c, int rc)
{
	if (rc == TPH_ENOMEM && !c->err)
		c->err = rc;
}

#endif

/* Building blocks of the scheduling actions (enqueue, allocate, backfill and the eviction
 * actions): Volcano's util.PriorityQueue (pq.h), its PredicateHelper (the per-role error cache
 * of session/fitlog.h, hard shards, node sampling), equivalence classes that let tasks with
 * one spec share filtering results, and Session.dispatch of a ready job's Allocated tasks.
 * Everything here runs on the session's thread. */
#ifndef TPH_ACTION_UTIL_H
#define TPH_ACTION_UTIL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "session/fitlog.h"
#include "session/jobwhy.h"
#include "session/pq.h"
#include "session/session_int.h"
#include "session/statement.h"

/* ---- action scratch ----
 * Columns an action needs only while it runs (heaps, per-node and per-task work columns) come
 * from the heap and are all freed when the action ends (tph_session_run calls
 * tph_act_scratch_end after each action), so the session does not hold them for the rest of its
 * life as it would arena memory. Never from a parallel region. */

/* Zeroed; NULL when out of memory. */
void *tph_act_calloc(tph_session *s, size_t count, size_t size);
#define TPH_ACT_NEW(s, type, count) ((type *)tph_act_calloc((s), (count), sizeof(type)))
/* Not zeroed when it is a block of its own (a small one is cut from a zeroed chunk), for columns
 * whose readers read only entries written first: pages never written are never faulted in
 * (allocate's per-job task heaps on 100k-nodes: ~1,100 pages, a few of them used). */
void *tph_act_alloc(tph_session *s, size_t count, size_t size);
#define TPH_ACT_ALLOC(s, type, count) ((type *)tph_act_alloc((s), (count), sizeof(type)))

/* ---- the queue and job loops of enqueue, allocate and backfill ---- */

/* Volcano's queue and job PriorityQueues, empty: `queues` by QueueOrder with room for every
 * queue, (*jobs)[q] by JobOrder with room for per_queue[q] jobs (at most the session's jobs in
 * all); action scratch. TPH_ENOMEM when out of memory. */
int tph_act_job_heaps(tph_session *s, const uint32_t *per_queue, tph_pq *queues, tph_pq **jobs);
/* Push job j into its queue's heap; the queue joins `queues` with its first job. */
void tph_act_push_job(const tph_session *s, tph_pq *queues, tph_pq *jobs, tph_idx j);

/* ---- the node-filtering options every placing action shares ---- */

typedef struct tph_ph_opts {
	bool error_cache; /* Volcano's predicateErrorCacheEnable (default true) */
	/* stop after enough feasible nodes: with the session's VOLCANO sampling, else when a knob
	 * below is given */
	bool sampling;
	/* VOLCANO sampling (tephra/cluster.h): every scan starts at the session's
	 * lastProcessedNodeIndex and moves it past the nodes it processed, up to the one that
	 * found a feasible node beyond the ones it needs (PredicateNodes run by one worker) */
	bool volcano;
	int32_t min_nodes; /* --minimum-feasible-nodes (Volcano default 100) */
	int32_t min_pct;   /* --minimum-percentage-nodes-to-find (5) */
	int32_t pct;       /* --percentage-nodes-to-find (0: adaptive) */
} tph_ph_opts;

/* The argument table of allocate and backfill (key spellings are Volcano's). */
extern const tph_arg_spec tph_ph_arg_spec[];
/* Read the options from an action's arguments (args may be NULL). */
void tph_ph_opts_read(tph_session *s, const tph_args *args, const char *action, tph_ph_opts *o);
/* Volcano's CalculateNumOfFeasibleNodesToFind. */
uint32_t tph_ph_nodes_to_find(const tph_ph_opts *o, uint32_t n_all);
/* Where a scan over n nodes starts, and what it leaves for the next after processing
 * `processed` of them (lastProcessedNodeIndex): the session's index with VOLCANO sampling;
 * *rr, a scan helper's own, with sampling from the knobs; 0 without sampling. */
uint32_t tph_ph_start(const tph_session *s, const tph_ph_opts *o, const uint32_t *rr, uint32_t n);
void tph_ph_advance(tph_session *s, const tph_ph_opts *o, uint32_t *rr, uint32_t start,
                    uint32_t processed, uint32_t n);

/* ---- equivalence classes ---- */

/* Tasks of one job with the same spec pointer, request row and role get the same verdict from
 * node-local predicates, so one verdict column per class serves them all; after a placement
 * only the touched node is evaluated again. Used only when every predicate is node-local (see
 * action_filter.c); otherwise, and in naive mode, every task is evaluated on its own. */
typedef struct tph_eqc tph_eqc;

/* NULL when classes cannot be used (naive mode, a predicate that is not node-local, or out of
 * memory); callers then filter every task directly. with_fit: the resource fit comes first
 * (allocate), else predicates alone (backfill). */
/* Whether classes may be used: not naive, every predicate node-local (tph_eqc_new's test). */
bool tph_eqc_usable(const tph_session *s);
/* Whether tasks a and b are of one class: same job, spec pointer, role and request row. */
bool tph_eqc_same_class(const tph_session *s, tph_idx a, tph_idx b);
tph_eqc *tph_eqc_new(tph_session *s, bool with_fit);
void tph_eqc_free(tph_eqc *e);
/* A task was placed on or removed from `node`: its verdicts must be recomputed. */
void tph_eqc_touch(tph_eqc *e, tph_idx node);
/* The nodes touched so far, in order (*n of them); *lost changes whenever a touch could not be
 * logged (out of memory), after which anything derived from the log must be recomputed. */
const tph_idx *tph_eqc_log(const tph_eqc *e, uint32_t *n, uint32_t *lost);
/* Whether a spec's verdicts are node-local: no inter-pod terms, no DoNotSchedule spreading. */
bool tph_eqc_spec_local(const tph_pod_spec *sp);
/* Verdicts of `task` on nodes[0..n) (fit first when the classes were made with_fit): from
 * its class's column, brought up to date, or evaluated directly. */
void tph_eqc_eval(tph_eqc *e, tph_idx task, const tph_idx *nodes, uint32_t n, tph_reason_code *out);

/* ---- Volcano's PredicateHelper ---- */

typedef struct tph_ph {
	tph_session *s;
	tph_ph_opts o;
	bool with_fit;
	tph_eqc *eqc;        /* may be NULL */
	tph_fit_cache cache; /* taskPredicateErrorCache; tph_ph_reset starts a new pass */
	uint32_t rr;         /* Volcano's lastProcessedNodeIndex */
	tph_reason_code shard_code;
	tph_idx *eval, *feas; /* scratch for s->nodes.n nodes */
	uint32_t *pos;
	tph_reason_code *codes;
} tph_ph;

int tph_ph_init(tph_ph *ph, tph_session *s, const tph_ph_opts *o, bool with_fit, tph_eqc *eqc);
void tph_ph_free(tph_ph *ph);
/* util.NewPredicateHelper(): forget what earlier calls cached (the round-robin index stays). */
void tph_ph_reset(tph_ph *ph);

/* Volcano's PredicateNodes over nodes[0..n): the feasible nodes go to feasible_out (room for
 * n, in scan order), codes_out[i] gets the verdict of nodes[i] (TPH_PASS for a node that was
 * not examined). Nodes of a task's role that failed an earlier call since the last reset fail
 * again from the cache; in a hard shard the nodes outside it fail. Returns the count. */
uint32_t tph_ph_predicate(tph_ph *ph, tph_idx task, const tph_idx *nodes, uint32_t n,
                          tph_idx *feasible_out, tph_reason_code *codes_out);
/* Report the nodes a statement's operations touched (call before discarding it). */
void tph_ph_touch_stmt(tph_ph *ph, const tph_statement *st);
void tph_ph_touch(tph_ph *ph, tph_idx node);

/* ---- scores in order (action_scored.c) ---- */

/* A score as an order key (tph_order_key) with its candidate's position. */
typedef struct tph_scored {
	uint64_t key;
	uint32_t pos;
} tph_scored;

/* An unsigned key that orders as the doubles do in Volcano's node order: NaN lowest, -0 as +0
 * (IEEE bits, negatives flipped). Inline: callers key every candidate node. */
static inline uint64_t tph_order_key(double d)
{
	if (isnan(d))
		return 0;
	if (d == 0)
		d = 0.0;
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}
/* The higher key first, then the lower position: a total order when positions differ. */
int tph_scored_cmp(const void *a, const void *b);
/* Make h[0..n) a heap in tph_scored_cmp's order (O(n)); take out the first entry, returning
 * its position. Popping gives exactly the sorted order. */
void tph_scored_heap(tph_scored *h, uint32_t n);
uint32_t tph_scored_pop(tph_scored *h, uint32_t *n);

/* ---- Session.dispatch ---- */

/* The job is ready: its Allocated tasks bind, `first` (Allocated) before the others, which
 * follow in snapshot order; one statement, committed at once. */
int tph_act_dispatch_job(tph_session *s, tph_idx job, tph_idx first);

/* Whether the conf's action list names `action` (Volcano's conf.EnabledActionMap). */
bool tph_conf_has_action(const tph_session *s, const char *action);

#endif

/* Extension points, internal side: the list of points (ep_table.h), registration gating
 * (ep.c), Volcano's combination rules (ep_dispatch.c) and the filtering and scoring hot path
 * over node spans (ep_score.c).
 *
 * Actions never walk s->ep[] themselves; they call the dispatchers below, which apply the
 * rules of Volcano's pkg/scheduler/framework/session_plugins.go. Registrations sit in tier
 * order, then plugin order, so "walk the tiers" is "walk the list, noting tier changes".
 * Everything here runs on the session's thread, except the callbacks that tph_filter_nodes()
 * and tph_score_nodes() hand to OpenMP workers over disjoint spans of nodes, and the span
 * functions batch callbacks give tph_session_parallel() (plugin.h; ep_score.c runs both). */
#ifndef TPH_EP_H
#define TPH_EP_H

#include <stdbool.h>
#include <stdint.h>

#include "session/session_int.h"
#include "tephra/conf.h"

/* The enable flags of a plugin instance (s->plugins[i].flags[k]) are indexed by Volcano's conf
 * keys in conf.PluginOption order: tph_conf_flag in tephra/conf.h (TPH_FLAG_JOB_ORDER ..
 * TPH_FLAG_HYPERNODE_GRADIENT); their spelling is tph_conf_flag_name(). */
typedef tph_conf_flag tph_flag;

/* The gate of an extension point: a flag, TPH_EP_ALWAYS or TPH_EP_PREEMPTABLE_OR_ALLOCATABLE
 * (ep_table.h). */
int tph_ep_flag(tph_ep ep);
/* Whether `pi`'s flags let it register `ep`. */
bool tph_ep_enabled(const tph_plugin_inst *pi, tph_ep ep);
/* Register `fn` for `ep` on behalf of the plugin whose on_session_open runs, with the rules of
 * every tph_on_* call (frozen check, flag gating, one function per plugin and point). For the
 * registration functions written by hand (the table's CUSTOM rows) outside ep.c. */
int tph_ep_register(tph_session *s, tph_ep ep, tph_any_fn fn);

/* ---- lifecycle ---- */

/* ep.c's per-session context: reason codes of the fit check and scratch that is sized once
 * and reused by every call. Only the session's thread touches it; parallel regions read the
 * session and write disjoint slices of the columns. Private to ep*.c. */
typedef struct tph_ep_ctx {
	tph_reason_code insuff[TPH_RES_MAX]; /* "Insufficient <dim>" per dimension */
	uint32_t cols_cap;                   /* nodes the score columns below hold */
	double *map, *reduce, *batch;        /* arena: per-call score scratch */
	uint32_t *chunk_cnt;                 /* arena: feasible nodes per span */
	uint32_t chunk_cap;
	uint8_t *mask; /* malloc: victim masks; grown to the largest call */
	uint32_t mask_cap;
	bool mask_busy; /* a nested dispatcher call takes a temporary mask */
	/* malloc: each task's pod index (tph_task_pod_index), parsed on the task's first TaskOrder
	 * comparison instead of at every one; pod_has (in the same block): 0 not parsed yet, 1 no
	 * index, 2 pod_index holds it */
	int64_t *pod_index;
	uint8_t *pod_has;
	/* malloc (task_rank.c): task_rank[t] is t's place among its job's tasks in TaskOrder, for
	 * the jobs whose job_ranked (in the same block) is 1; 0 not ranked yet, 2 left to the
	 * callbacks. Valid for the session: the keys and tie-breaks never change while it runs. */
	uint32_t *task_rank;
	uint8_t *job_ranked;
	/* A BatchNodeOrder callback of the current scoring call reported a failure
	 * (tph_score_fail); session thread only, reset by every tph_score_nodes. */
	bool batch_failed;
} tph_ep_ctx;

/* The context of a session (NULL before tph_ep_init()). */
tph_ep_ctx *tph_ep_ctx_of(const tph_session *s);

/* Called once at session open, before any plugin registers: registers the "Insufficient
 * <resource>" reasons and sizes the scratch columns for s->nodes.n nodes (session arena).
 * Idempotent. Registration and the order/vote dispatchers also work without it (tests);
 * filtering and scoring call it on first use. */
int tph_ep_init(tph_session *s);
/* Free what ep.c allocated outside the arena: the registration lists, the reason table and
 * the mask scratch. Safe on a session whose tph_ep_init() never ran or failed. */
void tph_ep_free(tph_session *s);

/* The text of a reason code ("" for TPH_PASS) and whether it is UnschedulableAndUnresolvable. */
const char *tph_reason_text(const tph_session *s, tph_reason_code code);
bool tph_reason_unresolvable(const tph_session *s, tph_reason_code code);
/* The plugin whose final reasons (tph_declare_final_reason) a kept verdict may rely on: the
 * first with a predicate registration, since a later one sees a node only while every earlier
 * one passes it, which may change; -1 when no reason was declared final. */
int tph_reason_final_plugin(const tph_session *s);
/* The plugin whose pod-count passes (tph_declare_pass_pods) a kept pass may rely on: the
 * only one with a predicate registration, when it declared them; else NULL. */
const tph_plugin_inst *tph_pass_pods_plugin(const tph_session *s);
/* Whether a kept pass on `node` stands without asking, once pi's callback said yes for the
 * task: the node's count is below its limit. */
static inline bool tph_pass_pods_holds(const tph_plugin_inst *pi, tph_idx node)
{
	return (int64_t)pi->pass_count[node] < pi->pass_limit[node];
}
/* Whether a verdict `code` stays for the session: `first` (tph_reason_final_plugin) is its
 * only registrant and declared it final. From the session's thread, outside filtering; over
 * the reason table (s->reasons, s->n_reasons), which loops keep in locals. */
static inline bool tph_reason_final_in(const tph_reason_row *rows, uint32_t n, int first,
                                       tph_reason_code code)
{
	return first >= 0 && code < n && rows[code].final && rows[code].owner == first;
}
/* The code of "Insufficient <dimension name>" (needs tph_ep_init). */
tph_reason_code tph_reason_insufficient(const tph_session *s, uint32_t dim);

/* ---- orders: <0 when a comes first, >0 when b does; 0 only when a == b ---- */

/* First non-zero JobOrder answer in tier order; then creation time, then uid. */
int tph_job_order(const tph_session *s, tph_idx a, tph_idx b);
/* The plugins' answer alone (Volcano's JobOrderCompareFn): 0 when none decides. */
int tph_job_order_cmp_plugins(const tph_session *s, tph_idx a, tph_idx b);
/* QueueOrder; then creation time, then name. */
int tph_queue_order(const tph_session *s, tph_idx a, tph_idx b);
/* TaskOrder; then Volcano's helpers.CompareTask: the pod index (see tph_task_pod_index),
 * creation time, uid. */
int tph_task_order(const tph_session *s, tph_idx a, tph_idx b);
/* The plugins' answer alone (Volcano's TaskCompareFns). */
int tph_task_order_cmp_plugins(const tph_session *s, tph_idx a, tph_idx b);
/* The ranks of job's tasks in tph_task_order (rank[a] < rank[b] exactly when a comes first,
 * for any two tasks of the job), indexed by task; NULL when the callbacks must decide: some
 * TaskOrder plugin declared no key, naive mode, no ep context, or a job where only some
 * tasks have a pod index. Ranks each job once, on its first call. */
const uint32_t *tph_task_ranks(const tph_session *s, tph_idx job);
/* SubJobOrder over subjob indices; then the index itself (callers number subjobs in Volcano's
 * MatchIndex order, so a < b stands for MatchIndex, then uid). */
int tph_subjob_order(const tph_session *s, tph_idx a, tph_idx b);
/* ClusterOrder over cluster indices; then the index (callers number clusters by name). */
int tph_cluster_order(const tph_session *s, tph_idx a, tph_idx b);
/* VictimQueueOrder given the preemptor's queue; then the reverse of tph_queue_order
 * (Volcano: !QueueOrderFn(l, r)). */
int tph_victim_queue_order(const tph_session *s, tph_idx qa, tph_idx qb, tph_idx preemptor_q);

/* Volcano's GetPodIndexUnderTask + strconv.Atoi: the number after the last '-' of a pod name
 * that has at least three '-'-separated parts. Returns false when there is none. */
bool tph_task_pod_index(const char *name, int64_t *out);

/* ---- votes and predicates over jobs and queues ---- */

/* Any Reject -> false; a tier in which some plugin Permits -> true; default true. */
bool tph_job_enqueueable(const tph_session *s, tph_idx job);
/* The same, with *by set to the index of the plugin that vetoed when it returns false. */
bool tph_job_enqueueable_by(const tph_session *s, tph_idx job, uint32_t *by);
bool tph_job_pipelined(const tph_session *s, tph_idx job);
/* Falls back to tph_job_pipelined(job) when the job has no subgroup policy. */
bool tph_subjob_pipelined(const tph_session *s, tph_idx job, tph_idx subjob);
/* AND over every registration; default true. */
bool tph_job_ready(const tph_session *s, tph_idx job);
/* Falls back to tph_job_ready(job) when the job has no subgroup policy. */
bool tph_subjob_ready(const tph_session *s, tph_idx job, tph_idx subjob);
bool tph_allocatable(const tph_session *s, tph_idx queue, tph_idx task);
/* Preemptive(queue, candidates): task, or, when task is TPH_NOIDX, the set the caller put in
 * s->eviction.tasks (Volcano passes a slice; gang reclaim passes every pending task). */
bool tph_preemptive(const tph_session *s, tph_idx queue, tph_idx task);
/* OR; default false. */
bool tph_overused(const tph_session *s, tph_idx queue);
/* AND inside the first tier that has a registration; default false. */
bool tph_job_starving(const tph_session *s, tph_idx job);
/* TPH_OK, or the first failing plugin's status with *out filled (out may be NULL). */
int tph_job_valid(const tph_session *s, tph_idx job, tph_valid_result *out);
/* The same, with *by set to the failing plugin's index (by may be NULL). */
int tph_job_valid_by(const tph_session *s, tph_idx job, tph_valid_result *out, uint32_t *by);
/* Every registration, in order. */
void tph_job_enqueued(tph_session *s, tph_idx job);
void tph_reserved_nodes(tph_session *s);
/* The first registration's answer (even TPH_NOIDX); TPH_NOIDX when none. */
tph_idx tph_target_job(const tph_session *s, const tph_idx *jobs, uint32_t n);

/* ---- victims ---- */

/* Preemptable / Reclaimable / UnifiedEvictable over cands[0..n): per tier, intersect the
 * choices of the plugins that did not abstain; a plugin choosing nothing ends its tier with no
 * victims; the first tier left with victims answers. victims_out (room for n; it may be cands
 * itself) receives them in candidate order; returns how many (0: none may be evicted). */
uint32_t tph_preemptable(tph_session *s, tph_idx preemptor, const tph_idx *cands, uint32_t n,
                         tph_idx *victims_out);
uint32_t tph_reclaimable(tph_session *s, tph_idx reclaimer, const tph_idx *cands, uint32_t n,
                         tph_idx *victims_out);
/* UnifiedEvictable carries Volcano's EvictionContext in s->eviction (session.h): the caller
 * sets kind, job and hn before the call (preemptor is then TPH_NOIDX for the gang kinds) and
 * zeroes s->eviction after; a callback that sees TPH_EVICT_UNKNOWN applies its default. */
uint32_t tph_unified_evictable(tph_session *s, tph_idx preemptor, const tph_idx *cands, uint32_t n,
                               tph_idx *victims_out);
/* VictimTasks (shuffle): union inside a tier, the first tier with any victim answers.
 * victim_out[i] is set to 0/1; returns the number of victims. */
uint32_t tph_victim_tasks(tph_session *s, const tph_idx *tasks, uint32_t n, uint8_t *victim_out);

/* ---- simulations (preempt's what-if checks) ---- */

bool tph_sim_allocatable(const tph_session *s, tph_idx queue, tph_idx task);
/* TPH_PASS or the first failing reason. */
tph_reason_code tph_sim_predicate(const tph_session *s, tph_idx task, tph_idx node);
/* TPH_OK or the first error. */
int tph_sim_add_task(tph_session *s, tph_idx pending, tph_idx task, tph_idx node);
int tph_sim_remove_task(tph_session *s, tph_idx pending, tph_idx task, tph_idx node);

/* ---- events ---- */

/* Fire every allocate (deallocate) handler in registration order. When one fails, the
 * opposite handler of each handler already called runs, in reverse, and its status is
 * returned; the caller then undoes its own change without firing again. */
int tph_fire_allocate(tph_session *s, tph_idx task);
int tph_fire_deallocate(tph_session *s, tph_idx task);
/* Fire every allocate handler, ignoring failures (Volcano's Session.Allocate). */
void tph_fire_allocate_all(tph_session *s, tph_idx task);

/* ---- per-node work ---- */

/* Nodes per span of the parallel loops, and how many threads a call over n nodes may use:
 * the session's threads, but only when every thread gets enough spans to pay for a parallel
 * region. */
#define TPH_SPAN TPH_PAR_SPAN
int tph_span_threads(const tph_session *s, uint32_t n);
/* TPH_PASS or the first failing pre-predicate's reason. */
tph_reason_code tph_prepredicate(const tph_session *s, tph_idx task);

/* Volcano's resource fit (request <= idle + releasing - pipelined on cpu, memory and every
 * other dimension the task requests; the first short dimension in table order names the
 * reason), then every predicate over the nodes that are still feasible. reason_out[i] gets
 * the verdict of nodes[i]; the feasible nodes are written to feasible_out in input order (it
 * must not alias `nodes`); returns their count. Parallel over spans of nodes; the result does
 * not depend on the thread count. Not re-entrant: callbacks must not call it or
 * tph_score_nodes(), which share the session's scratch. */
uint32_t tph_filter_nodes(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                          tph_reason_code *reason_out, tph_idx *feasible_out);
/* The resource fit alone for one node (TPH_PASS or an "Insufficient" reason). */
tph_reason_code tph_fit_node(const tph_session *s, tph_idx task, tph_idx node);

/* Volcano's PrioritizeNodes: total_out[i] = reduce + order + batch for nodes[i], summed in
 * that order and, inside each, in tier/plugin order (so totals are the same bits whatever the
 * thread count). Map scores are floored before their plugin's NodeReduce (Volcano keeps them
 * as int64); a plugin's map scores count only through its NodeReduce. n <= s->nodes.n.
 * Returns false when a BatchNodeOrder callback failed (tph_score_fail): as Volcano's
 * PrioritizeNodes then returns no score at all, every total is NaN and the caller chooses no
 * node of the call (allocate and backfill go on to their next group of candidates, preempt
 * tries none). */
bool tph_score_nodes(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                     double *total_out);
/* tph_score_nodes cut at BatchNodeOrder plugin `tail` (<= their count), for allocate's reuse
 * of TPH_SCORE_HYPERNODE scores: the head writes pre[i] (reduce + order) and bat[i] (the batch
 * sum of the plugins before `tail`); the tail adds the plugins from `tail` on to bat and gives
 * total[i] = pre[i] + that, the same bits as tph_score_nodes. Each returns false, with NaN in
 * pre or total, when a BatchNodeOrder callback failed. */
bool tph_score_nodes_head(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                          uint32_t tail, double *pre, double *bat);
bool tph_score_nodes_tail(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                          uint32_t tail, const double *pre, const double *bat, double *total);
/* tph_score_nodes_tail with every pre and bat 0 (the tail's scores alone, for allocate's sets
 * of nodes held by the same hypernodes): the same bits, failure and profile counts, without
 * the pre and bat columns; the last plugin writes straight into total. */
bool tph_score_nodes_last(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                          uint32_t tail, double *total);
/* tph_score_nodes_head for a task tph_score_head_splits allows: the same bits and profile
 * counts, the batch sum taken from the plugins' split parts on the session's thread (no
 * per-call batch spans, which cost more than the scores on the few nodes a hypernode pick
 * leaves unknown), on that thread whatever the session's threads; tph_score_nodes_head itself
 * when a plugin reduces or a split declines. */
bool tph_score_nodes_head_split(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                                uint32_t tail, double *pre, double *bat);
/* tph_score_nodes for a task whose every scoring plugin answers TPH_SCORE_LOCAL | TPH_SCORE_ROW
 * (tph_score_locality_row): the same bits and profile counts, with each BatchNodeOrder score
 * taken from its plugin's split parts (tph_score_split_fn, norm NULL) on the session's thread,
 * without the batch calls' per-call work, on that thread whatever the session's threads. Falls
 * back to tph_score_nodes when a batch plugin does not split or a plugin reduces. */
bool tph_score_nodes_row(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                         double *total_out);
/* tph_score_nodes_row (taken its row path, without a fallback) that also writes the parts
 * allocate keeps for the same request row's ANCHORED tasks whose scores split at `tail` (the
 * last BatchNodeOrder plugin, tph_score_split_at): pre and bat as tph_score_nodes_head writes
 * them and row, the tail plugin's row part (tph_score_split), the same bits by the split
 * contract (plugin.h: the parts other than spec read only the request row and non-zero
 * request). False, with the outputs unspecified, when the row path does not apply: then
 * score apart. */
bool tph_score_nodes_row_parts(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                               uint32_t tail, double *total, double *pre, double *bat, double *row);
/* For a task whose locality carries TPH_SCORE_HYPERNODE: where its scores split, the first of
 * the BatchNodeOrder plugins that answered with the flag when those are exactly the last ones
 * (and register no other score); else UINT32_MAX. */
uint32_t tph_score_hn_tail(const tph_session *s, tph_idx task);
/* Whether the tail at `tail` (tph_score_hn_tail's answer for the task) is one plugin whose
 * answer carries TPH_SCORE_HN_SET: its score of a node is a function of the node's hypernodes. */
bool tph_score_hn_set(const tph_session *s, tph_idx task, uint32_t tail);
/* For such a tail: its plugin's bound of the nodes' scores (tph_score_hn_bound_fn), true
 * with lower[0..n) and *b written when it gives one (b's values finite, scale and rel not
 * negative); false when the plugin registers none or declines. */
bool tph_score_hn_bound(const tph_session *s, tph_idx task, uint32_t tail, const tph_idx *nodes,
                        uint32_t n, double *lower, tph_score_bound *b);
/* Where the task's scores split when only the last BatchNodeOrder plugin may read more than
 * the node (every other scoring plugin answers plain TPH_SCORE_LOCAL, perhaps with
 * TPH_SCORE_ROW, and that plugin registers no other score): its position, whatever its own
 * answer; else UINT32_MAX. allocate keeps the head's sums of a hypernode's nodes and runs the
 * tail over the candidates of each pick (allocate_hn_pick.c). */
uint32_t tph_score_free_tail(const tph_session *s, tph_idx task);
/* For such a task and tail: whether every BatchNodeOrder plugin before `tail` splits
 * (tph_score_split_fn) and answers TPH_SCORE_LOCAL | TPH_SCORE_ROW for it, so that the head's
 * batch sum may come from the split parts (tph_score_nodes_head_split). */
bool tph_score_head_splits(const tph_session *s, tph_idx task, uint32_t tail);
/* Every plugin with a score registration also registered a locality callback; session.c
 * keeps the answer in s->scores_declared when the registry freezes. */
bool tph_scores_declared(const tph_session *s);
/* The locality of `task`'s scores over every scoring plugin (ep_locality.c; the meanings are
 * plugin.h's): TPH_SCORE_GLOBAL when a scoring plugin registered no locality callback or
 * answers GLOBAL, or when BestNode plugins decide; TPH_SCORE_ANCHORED when any answers so;
 * else TPH_SCORE_LOCAL. Either of the last two carries TPH_SCORE_JOB when any plugin's answer
 * does. */
int tph_score_locality(const tph_session *s, tph_idx task);
/* The same, with *row set when the answer is plain TPH_SCORE_LOCAL and every plugin's answer
 * carries TPH_SCORE_ROW: the scores then read only the task's request row and non-zero
 * request. */
int tph_score_locality_row(const tph_session *s, tph_idx task, bool *row);
/* The least locality declared by the plugins with a predicate registration (TPH_PRED_*,
 * tephra/plugin.h): SPEC_ONLY when none registers a predicate. */
int tph_predicate_locality(const tph_session *s);
/* TPH_ALLOC_QUEUE when every plugin with an Allocatable registration declared it
 * (tephra/plugin.h), else TPH_ALLOC_GLOBAL. */
int tph_allocatable_locality(const tph_session *s);
/* TPH_VICTIM_CLASS when every plugin with a Preemptable (reclaim: Reclaimable) registration
 * declared it, else TPH_VICTIM_GLOBAL. */
int tph_victims_locality(const tph_session *s, bool reclaim);
/* For a task whose locality is TPH_SCORE_ANCHORED: the union of the anchors the plugins name
 * for a call over nodes[0..n), written to out; UINT32_MAX when more than `cap`. */
uint32_t tph_score_anchors(const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                           tph_idx *out, uint32_t cap);
/* For the same task: the normalisation values (tph_score_norm_fn) of every plugin that
 * answered ANCHORED over nodes[0..n), in registration order, written to out; UINT32_MAX when
 * such a plugin registered none or they are more than `cap`. */
uint32_t tph_score_norm(const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                        int64_t *out, uint32_t cap);
/* For an ANCHORED task whose scores split (tph_score_split_fn: one plugin answers ANCHORED,
 * its BatchNodeOrder comes last, every other scoring plugin answers LOCAL | ROW, no BestNode):
 * that BatchNodeOrder's position, the `tail` for tph_score_nodes_head; else UINT32_MAX. */
uint32_t tph_score_split_at(const tph_session *s, tph_idx task);
/* For such a task: the plugin's parts over nodes[0..n) given its normalisation values; spec
 * parts count as ScoreAnchors nodes in the profile (cheap, not whole scorings). */
void tph_score_split(const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                     const int64_t *norm, double *row, double *spec);

/* BestNode plugins first (the first answer that is not TPH_NOIDX), else the highest total,
 * ties to the first in input order. TPH_NOIDX when n == 0 or no score beats -inf. */
tph_idx tph_best_node(const tph_session *s, tph_idx task, const tph_idx *nodes,
                      const double *scores, uint32_t n);

#endif

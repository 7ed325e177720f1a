/* Plugins and actions: constant descriptors, extension points and their callback shapes.
 *
 * A plugin is one constant tph_plugin. When a session opens, the framework instantiates the
 * plugins of each conf tier in order and calls on_session_open, which is the ONLY place a
 * plugin may register callbacks (tph_on_*). The registry freezes before the first action;
 * a registration after that fails with TPH_EFROZEN. Registrations of an extension point whose
 * enable flag is off for this plugin are accepted and dropped, so hot paths never test flags.
 *
 * Per-node callbacks (predicate, node order, node map) receive a task and a span of node
 * indices and write one output per node. They MAY RUN CONCURRENTLY on disjoint spans of the
 * same call: they may read session state, must not write it, and must not allocate from the
 * session arena. Batch callbacks (batch node order, node reduce) get every candidate at once,
 * from one thread. Everything else runs serially on the session's thread.
 *
 * Combination rules are Volcano's: orders take the first non-zero answer in tier order; any
 * failing predicate rejects the node; scores add; votes are Permit/Abstain/Reject with a veto
 * per tier; victim sets intersect inside a tier; see each tph_on_* for its rule. Every point,
 * with its rule, gate and flavour (Volcano, KAI or both), is one row of the kernel's
 * kernel/src/session/ep_table.h. */
#ifndef TEPHRA_PLUGIN_H
#define TEPHRA_PLUGIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tephra/args.h"
#include "tephra/columns.h"
#include "tephra/conf.h"
#include "tephra/status.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

/* Descriptor versions (sqlite3_module's iVersion). A descriptor's `abi` is the version of this
 * header it was built with and says which slot groups it has: slots are only ever appended, in a
 * group labelled with the version that added it, and the kernel reads a group only when
 * TPH_PLUGIN_HAS(desc, version). The kernel loads descriptors of versions TPH_PLUGIN_ABI_MIN to
 * TPH_PLUGIN_ABI; a change that breaks existing plugins (a callback shape, a store's layout in
 * tephra/columns.h) raises TPH_PLUGIN_ABI_MIN to the new version. */
#define TPH_PLUGIN_ABI             1
#define TPH_PLUGIN_ABI_MIN         1
#define TPH_PLUGIN_HAS(d, version) ((d)->abi >= (version))

typedef struct tph_session tph_session;
typedef uint32_t tph_idx;

/* ---- callback shapes ---- */

/* Votes. */
enum {
	TPH_REJECT = -1,
	TPH_ABSTAIN = 0,
	TPH_PERMIT = 1
};

/* A predicate's verdict per node: 0 passes; otherwise a reason code from tph_reason(). */
typedef uint16_t tph_reason_code;
#define TPH_PASS ((tph_reason_code)0)

/* Orders: <0 when a comes first, >0 when b does, 0 when this plugin does not decide. */
typedef int (*tph_cmp_fn)(void *st, const tph_session *s, tph_idx a, tph_idx b);
/* Victim queue order: as tph_cmp_fn, given the preemptor's queue. */
typedef int (*tph_victim_queue_cmp_fn)(void *st, const tph_session *s, tph_idx qa, tph_idx qb,
                                       tph_idx preemptor_queue);

/* Predicate over nodes[0..n): write out[i] = TPH_PASS or a reason code. */
typedef void (*tph_predicate_fn)(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                                 uint32_t n, tph_reason_code *out);
/* Before any node: TPH_PASS, or a reason code that rejects the task outright. */
typedef tph_reason_code (*tph_prepredicate_fn)(void *st, const tph_session *s, tph_idx task);

/* Scores over nodes[0..n): write (node order, node map, batch) out[i]. */
typedef void (*tph_score_fn)(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                             uint32_t n, double *out);
/* Node reduce: rewrite this plugin's map scores of all candidates in place. */
typedef void (*tph_reduce_fn)(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                              uint32_t n, double *scores);
/* Best node among scored candidates, or TPH_NOIDX to let the next plugin (or the highest
 * score) decide. */
typedef tph_idx (*tph_best_node_fn)(void *st, const tph_session *s, tph_idx task,
                                    const tph_idx *nodes, const double *scores, uint32_t n);

/* Victims: given candidates[0..n), set keep[i] = 1 for each candidate this plugin allows to
 * be evicted. Return 0 to abstain (keep ignored), 1 when the plugin decided. */
typedef int (*tph_victims_fn)(void *st, const tph_session *s, tph_idx preemptor,
                              const tph_idx *candidates, uint32_t n, uint8_t *keep);
/* Victim tasks (shuffle): mark victims among tasks[0..n) with victim[i] = 1. */
typedef void (*tph_victim_tasks_fn)(void *st, const tph_session *s, const tph_idx *tasks,
                                    uint32_t n, uint8_t *victim);

typedef int (*tph_job_vote_fn)(void *st, const tph_session *s, tph_idx job);
typedef bool (*tph_job_pred_fn)(void *st, const tph_session *s, tph_idx job);
typedef void (*tph_job_event_fn)(void *st, tph_session *s, tph_idx job);
typedef bool (*tph_queue_pred_fn)(void *st, const tph_session *s, tph_idx queue);
typedef bool (*tph_queue_task_pred_fn)(void *st, const tph_session *s, tph_idx queue, tph_idx task);
typedef tph_idx (*tph_target_job_fn)(void *st, const tph_session *s, const tph_idx *jobs,
                                     uint32_t n);
typedef void (*tph_session_event_fn)(void *st, tph_session *s);

/* JobValid: TPH_OK when valid, else fill reason/message (static or session-arena strings). */
typedef struct tph_valid_result {
	const char *reason;
	const char *message;
} tph_valid_result;
typedef int (*tph_job_valid_fn)(void *st, const tph_session *s, tph_idx job, tph_valid_result *out);

/* Event handlers: the framework fires them after it changed the session for an allocate
 * (allocate, pipeline) or a deallocate (evict, undo). A non-zero return rolls the operation
 * back. They may update the plugin's own state. */
typedef int (*tph_task_event_fn)(void *st, tph_session *s, tph_idx task);

/* Simulations (preempt's what-if checks), over the plugin's own state. */
typedef bool (*tph_sim_allocatable_fn)(void *st, const tph_session *s, tph_idx queue, tph_idx task);
typedef tph_reason_code (*tph_sim_predicate_fn)(void *st, const tph_session *s, tph_idx task,
                                                tph_idx node);
typedef int (*tph_sim_task_fn)(void *st, tph_session *s, tph_idx pending_task, tph_idx task,
                               tph_idx node);

/* ---- registration: only inside on_session_open ---- */

int tph_on_job_order(tph_session *s, tph_cmp_fn fn);                       /* enableJobOrder */
int tph_on_queue_order(tph_session *s, tph_cmp_fn fn);                     /* enableQueueOrder */
int tph_on_task_order(tph_session *s, tph_cmp_fn fn);                      /* enableTaskOrder */
int tph_on_subjob_order(tph_session *s, tph_cmp_fn fn);                    /* enabledSubJobOrder */
int tph_on_cluster_order(tph_session *s, tph_cmp_fn fn);                   /* enabledClusterOrder */
int tph_on_victim_queue_order(tph_session *s, tph_victim_queue_cmp_fn fn); /* always */
int tph_on_predicate(tph_session *s, tph_predicate_fn fn);                 /* enablePredicate */
int tph_on_prepredicate(tph_session *s, tph_prepredicate_fn fn);           /* enablePredicate */
int tph_on_node_order(tph_session *s, tph_score_fn fn);                    /* enableNodeOrder */
int tph_on_batch_node_order(tph_session *s, tph_score_fn fn);              /* enableNodeOrder */
int tph_on_node_map(tph_session *s, tph_score_fn fn);                      /* enableNodeOrder */
int tph_on_node_reduce(tph_session *s, tph_reduce_fn fn);                  /* enableNodeOrder */
int tph_on_best_node(tph_session *s, tph_best_node_fn fn);                 /* enableBestNode */
int tph_on_preemptable(tph_session *s, tph_victims_fn fn);                 /* enablePreemptable */
int tph_on_reclaimable(tph_session *s, tph_victims_fn fn);                 /* enableReclaimable */
int tph_on_unified_evictable(tph_session *s, tph_victims_fn fn);           /* always */
int tph_on_victim_tasks(tph_session *s, tph_victim_tasks_fn fn);           /* enabledVictim */
int tph_on_job_enqueueable(tph_session *s, tph_job_vote_fn fn);            /* enableJobEnqueued */
int tph_on_job_pipelined(tph_session *s, tph_job_vote_fn fn);              /* enableJobPipelined */
int tph_on_subjob_pipelined(tph_session *s, tph_job_vote_fn fn);       /* enabledSubJobPipelined */
int tph_on_job_ready(tph_session *s, tph_job_pred_fn fn);              /* enableJobReady */
int tph_on_subjob_ready(tph_session *s, tph_job_pred_fn fn);           /* enabledSubJobReady */
int tph_on_job_starving(tph_session *s, tph_job_pred_fn fn);           /* enableJobStarving */
int tph_on_job_valid(tph_session *s, tph_job_valid_fn fn);             /* always */
int tph_on_job_enqueued(tph_session *s, tph_job_event_fn fn);          /* enableJobEnqueued */
int tph_on_overused(tph_session *s, tph_queue_pred_fn fn);             /* enabledOverused */
int tph_on_allocatable(tph_session *s, tph_queue_task_pred_fn fn);     /* enabledAllocatable */
int tph_on_preemptive(tph_session *s, tph_queue_task_pred_fn fn);      /* enablePreemptive */
int tph_on_target_job(tph_session *s, tph_target_job_fn fn);           /* enableTargetJob */
int tph_on_reserved_nodes(tph_session *s, tph_session_event_fn fn);    /* enableReservedNodes */
int tph_on_sim_allocatable(tph_session *s, tph_sim_allocatable_fn fn); /* enabledAllocatable */
int tph_on_sim_predicate(tph_session *s, tph_sim_predicate_fn fn);     /* enablePredicate */
/* enablePreemptable or enabledAllocatable */
int tph_on_sim_add_task(tph_session *s, tph_sim_task_fn fn);
int tph_on_sim_remove_task(tph_session *s, tph_sim_task_fn fn);
/* Event handlers: always on. Either may be NULL. */
int tph_on_task_events(tph_session *s, tph_task_event_fn on_allocate,
                       tph_task_event_fn on_deallocate);

/* Register (once per session, any time during open) a reason a predicate reports, and get
 * its code. `unresolvable` marks UnschedulableAndUnresolvable (preempt will not try to
 * evict for that node). Equal texts share a code. A predicate whose reason is known only when
 * it runs (an HTTP extender's message) may also call it from its per-node callback: calls are
 * serialised, and the code stays valid for the session. */
tph_reason_code tph_reason(tph_session *s, const char *text, bool unresolvable);

/* A BatchNodeOrder callback that fails (Volcano's BatchNodeOrderFn returning an error) calls
 * this before it returns. As in Volcano's PrioritizeNodes, the scoring call then yields no score
 * at all: later BatchNodeOrder plugins are not asked, allocate and backfill choose no node of
 * that call (they go on to their next group of candidates), preempt tries none of its nodes,
 * and a probe sees no score. From a batch callback (the session's thread) only; a plugin that
 * may fail registers no locality callback (its scores are then never kept between tasks). */
void tph_score_fail(const tph_session *s);
/* What tph_reason() returns when it cannot register (out of memory, 65534 codes used). */
#define TPH_REASON_INVALID ((tph_reason_code)UINT16_MAX)

/* ---- reading the session (stable accessors for external plugins) ----
 * Built-in plugins read the struct-of-arrays columns directly; these functions give external
 * plugins the same facts through a stable ABI. Indices are dense (0..count-1). Resource
 * values are exact units (resource.h); `dim` indexes the session's dimension table. */

uint32_t tph_session_node_count(const tph_session *s);
uint32_t tph_session_task_count(const tph_session *s);
uint32_t tph_session_job_count(const tph_session *s);
uint32_t tph_session_queue_count(const tph_session *s);
uint32_t tph_session_dim_count(const tph_session *s);
const char *tph_session_dim_name(const tph_session *s, uint32_t dim);
const char *tph_session_node_name(const tph_session *s, tph_idx node);
int64_t tph_session_node_allocatable(const tph_session *s, tph_idx node, uint32_t dim);
int64_t tph_session_node_idle(const tph_session *s, tph_idx node, uint32_t dim);
int64_t tph_session_node_used(const tph_session *s, tph_idx node, uint32_t dim);
/* The value of a node label, or NULL. */
const char *tph_session_node_label(const tph_session *s, tph_idx node, const char *key);
const char *tph_session_task_name(const tph_session *s, tph_idx task);
const char *tph_session_task_namespace(const tph_session *s, tph_idx task);
int64_t tph_session_task_request(const tph_session *s, tph_idx task, uint32_t dim);
int32_t tph_session_task_priority(const tph_session *s, tph_idx task);
/* The job of a task (TPH_NOIDX when it has none) and the node it sits on (or TPH_NOIDX). */
tph_idx tph_session_task_job(const tph_session *s, tph_idx task);
tph_idx tph_session_task_node(const tph_session *s, tph_idx task);
const char *tph_session_job_name(const tph_session *s, tph_idx job);
int32_t tph_session_job_priority(const tph_session *s, tph_idx job);
int32_t tph_session_job_min_member(const tph_session *s, tph_idx job);
tph_idx tph_session_job_queue(const tph_session *s, tph_idx job);
const char *tph_session_queue_name(const tph_session *s, tph_idx queue);
/* Session clock: milliseconds since the epoch (the scenario's `now`). */
int64_t tph_session_now(const tph_session *s);
/* The text of an interned string ("" for TPH_SID_EMPTY, NULL for TPH_SID_NONE), and the id of
 * a text, TPH_SID_NONE when the cluster never interned it (then no label, name or key equals
 * it). Strings live as long as the session. Not for per-node loops: compare ids there. */
const char *tph_session_str(const tph_session *s, tph_sid id);
tph_sid tph_session_sid(const tph_session *s, const char *text, size_t len);
/* The dimension named name[0..len) in the session's dimension table, or TPH_NOIDX. */
uint32_t tph_session_dim_find(const tph_session *s, const char *name, size_t len);
/* A warning to the session's diagnostics (the host's callback or stderr). */
void tph_session_warn(tph_session *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The effective enable flag of the plugin whose on_session_open runs (conf value, else the
 * enableFlagsDefault); -1 outside on_session_open. Flags that gate extension points need no
 * lookup (registrations of a disabled point are dropped); this is for flags a plugin reads
 * itself, such as enableHierarchy. */
int tph_plugin_flag(const tph_session *s, tph_conf_flag flag);
/* Mark a job unschedulable in this session (Volcano's gang plugin writes the podgroup's
 * Unschedulable condition at close for jobs it marked). Session thread only. */
void tph_job_mark_unschedulable(tph_session *s, tph_idx job);

/* Say why `job` is refused, in one line for people with numbers ("queue q1 overused: cpu
 * allocated 30 of deserved 24"): a JobEnqueueable callback that votes TPH_REJECT calls it
 * before it returns, and the job's pending reason (the decision log's tph_job_row) names the
 * plugin and quotes the text. (A JobValid callback says why in its tph_valid_result.) The newest
 * call wins; the text is copied into the session arena (cut at 512 bytes). Session thread only; a
 * callback that is not refusing should not call it (formatting costs, and the text would be kept).
 */
void tph_job_reason(const tph_session *s, tph_idx job, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A queue's figures as a plugin computes them (Volcano's proportion/capacity queueAttr), in
 * exact units per session dimension; a NULL row is not known, INT64_MAX is unlimited. */
typedef struct tph_queue_report {
	const int64_t *deserved, *request, *inqueue, *capability, *guarantee;
	double share;
} tph_queue_report;
/* Report them for the decision log's queue rows (tph_queue_row): from on_session_close,
 * when they are final. The rows are copied; a later report of the queue replaces an earlier
 * one. TPH_EINVAL for a queue out of range, TPH_ENOMEM. */
int tph_queue_report_set(tph_session *s, tph_idx queue, const tph_queue_report *r);

/* ---- bind annotations ----
 * Volcano's plugins add annotations to a task's binding (TaskInfo.PodAnnotations: the device
 * assignment of deviceshare's cards, say); the decision log lists them on the task's bind
 * (tph_decision.annotations), never the pod's own. tph_task_annotate sets `key` to `value` on
 * the task (MergePodAnnotations), or removes it when value is NULL (DeletePodAnnotations); key
 * and value are copied into the session arena. When an event handler fired by a statement's
 * operation sets one, the statement records it: discarding the operation, or the handler
 * chain refusing it, restores the previous value. Otherwise (backfill's allocations, handlers
 * outside statements) the change stands. Session thread only, never from a per-node callback.
 * TPH_EINVAL for a bad task or an empty key, TPH_ENOMEM. */
int tph_task_annotate(tph_session *s, tph_idx task, const char *key, const char *value);
/* The value a plugin set for `key` on the task, or NULL (the pod's own annotations are in its
 * tph_pod_meta). Valid for the session's life. */
const char *tph_task_annotation(const tph_session *s, tph_idx task, const char *key);

/* Volcano's BuildVictimsPriorityQueue, taken whole: the order in which the preempt and reclaim
 * actions would pop tasks[0..n) as victims of `preemptor` if nothing changed between pops (lower
 * job, then task order first within a job or queue; tasks whose job left the session before
 * all; VictimQueueOrder across queues). perm[k] is the index in `tasks` of the k-th task
 * popped. Serial, no allocation; for plugins that walk victims in pop order (capacity's
 * Reclaimable). */
void tph_victims_pop_order(const tph_session *s, tph_idx preemptor, const tph_idx *tasks,
                           uint32_t n, uint32_t *perm);

/* ---- memory: the four disciplines ----
 * 1. Session arena, tph_session_alloc / tph_session_calloc / TPH_SESSION_NEW: zeroed, freed all
 *    at once when the session is freed; no free of its own. For everything sized at open:
 *    per-node and per-task columns, tables, scratch sized once. Cheapest; the default.
 * 2. Plugin state: the descriptor's state_size bytes, zeroed, in the arena (discipline 1),
 *    handed to every callback as `st`.
 * 3. Heap, tph_malloc / tph_calloc / tph_realloc / tph_grow / tph_free (tephra/alloc.h): for
 *    what grows while actions run (per-node lists kept by event handlers). The plugin frees it
 *    in on_session_close, which runs exactly once for every opened plugin. Charged to the
 *    session's memory figure.
 * 4. Action scratch: the kernel's own (actions' per-run buffers), not for plugins.
 * None of them may be used from a per-node callback or a span function, which run on several
 * threads at once: size their scratch at open. */
void *tph_session_alloc(tph_session *s, size_t size);
/* Session allocations start on a cache line, so columns that threads write per span never
 * share one across allocations. */
#define TPH_SESSION_ALIGN 64
/* n zeroed elements of `size` bytes in the session arena; NULL on overflow or OOM. */
void *tph_session_calloc(tph_session *s, size_t n, size_t size);
#define TPH_SESSION_NEW(s, T, n) ((T *)tph_session_calloc((s), (n), sizeof(T)))

/* ---- network topology: hypernodes and subjobs ----
 * Hypernodes are indexed 0..tph_session_hypernode_count()-1: the snapshot's hyperNodes in
 * snapshot order, then the cluster-wide hypernode Volcano adds one tier above the highest
 * (always the last). Only ready nodes belong to hypernodes. Subjobs (Volcano's SubJobInfo, the
 * partition of a job by its subGroupPolicy) have session-wide indices; SubJobOrder/Ready/
 * Pipelined and HyperNodeOrder callbacks receive them. */

/* Why a gradient is asked for (Volcano's api.SearchPurpose). */
enum {
	TPH_PURPOSE_ALLOCATE = 0,
	TPH_PURPOSE_EVICT = 1
};

/* Hypernode gradients: groups of hypernodes an action tries in order, the first group first.
 * Group g is hn[g ? end[g - 1] : 0 .. end[g]). The caller gives room for
 * tph_session_hypernode_count() entries in both arrays (a gradient lists a hypernode at most
 * once) and n == n_groups == 0. */
typedef struct tph_hn_gradient {
	tph_idx *hn;
	uint32_t *end;
	uint32_t n, n_groups;
} tph_hn_gradient;

/* HyperNodeOrder: score hypernodes[0..n) as placements of `subjob`: write out[i]. Scores of
 * every plugin add (Volcano's HyperNodeOrderMapFn, then PrioritizeHyperNodes). */
typedef void (*tph_hn_score_fn)(void *st, const tph_session *s, tph_idx subjob,
                                const tph_idx *hypernodes, uint32_t n, double *out);
/* HyperNodeGradientForJob (`who` is a job) or ForSubJob (`who` is a subjob): fill `out` with
 * the hypernodes under `hypernode` to try, in gradients. Leaving it empty means no placement.
 * The first registration (tier order) decides. */
typedef void (*tph_hn_gradient_fn)(void *st, const tph_session *s, tph_idx who, tph_idx hypernode,
                                   int purpose, tph_hn_gradient *out);

int tph_on_hypernode_order(tph_session *s, tph_hn_score_fn fn); /* enabledHyperNodeOrder */
/* Optional, beside a HyperNodeOrder registration: `each` writes every out[i] as the plugin's
 * HyperNodeOrder would for a call with hypernodes[i] alone, bit for bit (a score that reads the
 * other candidates, as a tie break among them, is left out). The search that ranks hypernodes
 * one by one then makes one call per plugin instead of one per plugin and hypernode, when
 * every HyperNodeOrder plugin registers one. Registered in on_session_open. */
int tph_on_hypernode_order_each(tph_session *s, tph_hn_score_fn each);
int tph_on_hypernode_gradient_job(tph_session *s, tph_hn_gradient_fn fn);    /* enabledHyper- */
int tph_on_hypernode_gradient_subjob(tph_session *s, tph_hn_gradient_fn fn); /* NodeGradient */

uint32_t tph_session_hypernode_count(const tph_session *s);
const char *tph_session_hypernode_name(const tph_session *s, tph_idx hn);
int32_t tph_session_hypernode_tier(const tph_session *s, tph_idx hn);
/* TPH_NOIDX for the cluster-wide hypernode. */
tph_idx tph_session_hypernode_parent(const tph_session *s, tph_idx hn);
/* The nodes of a hypernode in snapshot order; returns the count. */
uint32_t tph_session_hypernode_nodes(const tph_session *s, tph_idx hn, const tph_idx **nodes);
uint32_t tph_session_subjob_count(const tph_session *s);
tph_idx tph_session_subjob_job(const tph_session *s, tph_idx subjob);
/* The subjob of a task, or TPH_NOIDX when the task has no job. */
tph_idx tph_session_task_subjob(const tph_session *s, tph_idx task);

/* ---- score locality (optional): what lets allocate keep scores between tasks ----
 * Allocate keeps the scores of a task's candidates between tasks of one shape (same pod spec
 * and request row) and, after a placement on node X, scores X again instead of every node.
 * It may only do so when every plugin with a score registration (NodeOrder, BatchNodeOrder,
 * NodeMap, NodeReduce) also registered a locality callback and it answers, for the task:
 *
 *  TPH_SCORE_LOCAL     the score of node i depends only on the task's pod spec and request row
 *                      and on node i itself: its own columns (idle, used, ...), its per-node
 *                      plugin state kept by event handlers (a placement on i may change it, a
 *                      placement elsewhere may not) and its static data (labels, taints). Not
 *                      on the other nodes of the call, nor on the task's job, role, labels,
 *                      annotations or namespace.
 *  TPH_SCORE_ANCHORED  as LOCAL, except that the plugin normalises over the call's nodes a raw
 *                      per-node input that is itself static for the task (kube-scheduler's
 *                      NormalizeScore over, say, preferred node affinity weights). Its anchors
 *                      callback names, for a call over S, at most TPH_SCORE_MAX_ANCHORS nodes of
 *                      S such that over every T with anchors <= T <= S each node of T scores
 *                      exactly as over S (for a maximum: one node that holds it).
 *  TPH_SCORE_GLOBAL    anything else (pod-to-pod terms, hypernode aggregates, ...); the default
 *                      for a plugin that registers no locality callback.
 *
 * TPH_SCORE_JOB, or'ed into LOCAL or ANCHORED, relaxes one condition: the score may also read
 * the task's job (its queue, its podgroup), so allocate keeps the scores of such a task per job
 * instead of sharing them across jobs (nodegroup's queue affinity).
 *
 * TPH_SCORE_HYPERNODE, or'ed into LOCAL (with ANCHORED the answer counts as GLOBAL), relaxes
 * another: the score of node i may also read aggregates of the hypernodes that hold i, which
 * the plugin keeps with its own task events (network-topology-aware's hypernode binpacking).
 * A placement or removal on node X may then change the score of every node that shares a
 * hypernode with X; allocate keeps the task's predicate verdicts between tasks and scores its
 * candidates again after such a change. A node in no hypernode stays node-local. Other
 * plugins may answer ANCHORED beside it (the combined answer is then ANCHORED |
 * TPH_SCORE_HYPERNODE) when the plugins answering TPH_SCORE_HYPERNODE are the last
 * BatchNodeOrder plugins and register no other score: allocate keeps the others' sums per
 * group as for ANCHORED and reruns only those last plugins; otherwise the answer is GLOBAL.
 *
 * TPH_SCORE_HN_SET, or'ed into LOCAL | TPH_SCORE_HYPERNODE, narrows the latter: the score of
 * node i reads nothing of node i itself but which hypernodes hold it, so nodes held by the
 * same hypernodes score the same bits, whatever other nodes the call holds. When such a plugin
 * is the last BatchNodeOrder plugin and the only one answering TPH_SCORE_HYPERNODE, allocate
 * scores it once per set of hypernodes (over one node of each) and keeps each set's best node
 * by the other plugins' sums, so a placement ranks the sets again instead of every node
 * (network-topology-aware's binpacking of normal pods). The flag means nothing without
 * TPH_SCORE_HYPERNODE.
 *
 * TPH_SCORE_ROW, or'ed into LOCAL, narrows it instead: the score of node i reads nothing of
 * the task but its request row and its non-zero request (tph_task_store.nonzero), not its pod
 * spec either. When every plugin's answer carries it (and none carries JOB or HYPERNODE),
 * allocate keeps one score per (request row, non-zero request) and node for the tasks of every
 * pod spec; an answer without it is read as plain LOCAL.
 *
 * The answer may differ per task (a plugin whose score is constant for some tasks says LOCAL
 * for those). Both callbacks run on the session's thread and must not
 * write session state; the anchors callback may be NULL when the plugin never answers
 * TPH_SCORE_ANCHORED. Gated by enableNodeOrder, like the scores it describes. */
enum {
	TPH_SCORE_GLOBAL = 0,
	TPH_SCORE_LOCAL = 1,
	TPH_SCORE_ANCHORED = 2,
	TPH_SCORE_JOB = 4,
	TPH_SCORE_HYPERNODE = 8,
	TPH_SCORE_HN_SET = 16,
	TPH_SCORE_ROW = 32
};
#define TPH_SCORE_MAX_ANCHORS 4u
typedef int (*tph_score_locality_fn)(void *st, const tph_session *s, tph_idx task);
/* Write up to TPH_SCORE_MAX_ANCHORS nodes of nodes[0..n) to anchors; return how many. */
typedef uint32_t (*tph_score_anchors_fn)(void *st, const tph_session *s, tph_idx task,
                                         const tph_idx *nodes, uint32_t n, tph_idx *anchors);
int tph_on_score_locality(tph_session *s, tph_score_locality_fn locality,
                          tph_score_anchors_fn anchors);

/* ---- normalisation values (optional): what lets allocate keep an ANCHORED group's scores ----
 * A plugin that answers TPH_SCORE_ANCHORED may also say what its normalisation reads of the
 * call's nodes. For a call over S, norm writes the values v(S) (kube-scheduler's
 * DefaultNormalizeScore: the highest raw score, or 0 when none is positive) and returns how
 * many, at most TPH_SCORE_MAX_ANCHORS and the same count for every S of one task, such that
 *  - a node of two sets with equal values scores the same bits over each,
 *  - the values over a union are the element-wise maxima of the values over its parts (a
 *    plugin that normalises by a minimum writes its negation), and
 *  - the values over its anchors of S (tph_score_anchors_fn) are the values over S.
 * Allocate then keeps a group's scores when an anchor leaves the group but the anchors of
 * what remains still give the same values, and when a node joins without raising a value,
 * instead of scoring the whole group again. Registered in on_session_open, in either order
 * with tph_on_score_locality, which gates it: norm is asked only about a task the plugin
 * answers TPH_SCORE_ANCHORED for. Like the anchors callback it runs on the session's thread,
 * one call at a time, and must not write session state. */
typedef uint32_t (*tph_score_norm_fn)(void *st, const tph_session *s, tph_idx task,
                                      const tph_idx *nodes, uint32_t n, int64_t *norm);
int tph_on_score_norm(tph_session *s, tph_score_norm_fn norm);

/* ---- split anchored scores (optional): what lets allocate share an ANCHORED score's row part ----
 * A plugin with normalisation values may also split its scores for a task it answers
 * TPH_SCORE_ANCHORED for: split writes, for nodes[0..n) and a call whose normalisation values
 * are norm (the plugin's own, as its norm callback writes them), row[i] and spec[i] such that
 *  - its BatchNodeOrder score of node i over any such call is row[i] + spec[i], bit for bit,
 *  - row[i], and every other score registration of the plugin for the task, read nothing of
 *    the task but what TPH_SCORE_ROW allows (its request row and non-zero request): row[i] is
 *    the same for every task with that request row and non-zero request, including one the
 *    plugin answers TPH_SCORE_LOCAL | TPH_SCORE_ROW for (allocate computes the row parts of
 *    an ANCHORED task's request row in the same pass as a TPH_SCORE_ROW task's scores), and
 *  - spec[i] reads nothing that a placement changes (the pod spec, node i's static data, norm).
 * Either output may be NULL (not wanted); n may be 0. It returns false, writing nothing, when
 * the task's scores do not split so. When the plugin is the only one answering ANCHORED, its
 * BatchNodeOrder comes last and every other scoring plugin answers TPH_SCORE_LOCAL |
 * TPH_SCORE_ROW, allocate keeps the row parts once per request row and a group's score of a
 * node costs one spec part, instead of every plugin's score of it. Registered in
 * on_session_open, in any order with the two above; it is asked only about a task whose
 * normalisation values the plugin gives, or, with norm NULL, about a task it answers
 * TPH_SCORE_LOCAL | TPH_SCORE_ROW for: then row[i] + spec[i] is its BatchNodeOrder score of
 * node i, bit for bit (a score that may fail, tph_score_fail, must return false), and allocate
 * scores a request row so when every BatchNodeOrder plugin splits. Like the anchors callback it
 * runs on the session's thread, one call at a time, and must not write session state. */
typedef bool (*tph_score_split_fn)(void *st, const tph_session *s, tph_idx task,
                                   const tph_idx *nodes, uint32_t n, const int64_t *norm,
                                   double *row, double *spec);
int tph_on_score_split(tph_session *s, tph_score_split_fn split);
/* A plugin whose BatchNodeOrder scores are +0.0 for every node of every call (it never fails
 * one) may declare so in on_session_open, once its split is registered: its split must then
 * write +0.0 to both parts and return true for every task. Scorings then add its zeros
 * without calling it (a request row's keys from split parts, a batch sum). Gated by
 * enableNodeOrder; ignored in naive mode; TPH_EINVAL without a split. */
int tph_declare_score_zero(tph_session *s);

/* ---- hypernode-set bounds (optional): what lets allocate rank sets without scoring each ----
 * A plugin that answers TPH_SCORE_HN_SET for a task may also bound its score of a node by a
 * part kept per node and a part common to the call: bound writes lower[i] for nodes[0..n) and
 * fills *b so that its BatchNodeOrder score x_i of node i, over any call for the task before
 * the next task event, satisfies
 *     |x_i - b->scale * (lower[i] + b->top)| <= b->rel * b->scale * (|lower[i]| + |b->top|),
 * every value finite and b->scale, b->rel >= 0. lower[i] must read nothing of the task but its
 * request row, and of the cluster nothing but the tasks on the nodes of the hypernodes holding
 * node i other than the cluster top: a task event on node X leaves it unchanged unless X shares
 * such a hypernode with i (network-topology-aware: lower[i] is the sum over the tiers below the
 * top's; top the cluster top's term, which every placement moves; x_i their scaled sum). n may
 * be 0 (b alone wanted). It returns false, writing nothing to b, when it gives no such bound
 * for the task (or for one of the nodes), and must when the task's score may fail
 * (tph_score_fail). Allocate then keeps each set of nodes' lower part until a placement under
 * one of its hypernodes, orders the sets by their head sums plus the bound, and scores the tail
 * only of the sets within the rounding margin of the best, instead of every set at every
 * placement.
 * Registered in on_session_open, in any order with tph_on_score_locality, which gates it; it
 * runs on the session's thread, one call at a time, and may update the plugin's own caches
 * but must not write session state. */
typedef struct tph_score_bound {
	double top, scale, rel;
} tph_score_bound;
typedef bool (*tph_score_hn_bound_fn)(void *st, const tph_session *s, tph_idx task,
                                      const tph_idx *nodes, uint32_t n, double *lower,
                                      tph_score_bound *b);
int tph_on_score_hn_bound(tph_session *s, tph_score_hn_bound_fn bound);

/* ---- predicate locality: what lets filtering share verdicts between tasks ----
 * Filtering shares verdicts between the tasks of one class (same pod spec, request row, role
 * and job) and, after a placement on node X, evaluates X again and only X; allocate also shares
 * a shape's verdicts between jobs. The kernel does so only while every plugin with a predicate
 * registration declared, in on_session_open, how far its verdicts reach:
 *
 *  TPH_PRED_LOCAL   the verdict on node i depends only on the task's pod spec, request row,
 *                   role and job, and on node i itself: its columns, its static data (labels,
 *                   taints), and per-node plugin state that only a placement on i changes.
 *  TPH_PRED_SPEC    as LOCAL, and not on the role or the job either (nor on anything else of
 *                   the task but its spec and request row): verdicts then serve every job.
 *  TPH_PRED_SPEC_ONLY  as SPEC, and not on the request row either (the kernel checks the
 *                   resource fit itself, before the predicates): allocate then keeps one
 *                   verdict per pod spec and node for every request row, and may ask for it
 *                   on nodes the task does not fit.
 *  TPH_PRED_GLOBAL  anything else; the default for a plugin that declares nothing. Every task
 *                   then filters every node (same decisions, more work).
 *
 * The last declaration of a plugin counts, so a plugin may declare SPEC at first and GLOBAL once
 * it finds, say, a queue resource limit that a placement on one node of a group changes for the
 * whole group. A declaration is gated by enablePredicate, like the predicate it describes;
 * built-in and external plugins are treated alike. */
enum {
	TPH_PRED_GLOBAL = 0,
	TPH_PRED_LOCAL = 1,
	TPH_PRED_SPEC = 2,
	TPH_PRED_SPEC_ONLY = 3
};
int tph_declare_predicate_locality(tph_session *s, int locality);

/* ---- final reasons: what lets allocate keep a failing verdict without asking again ----
 * After a placement on node X, allocate asks the predicates about X again for every pod spec
 * it keeps verdicts of. Many failures cannot change within a session (a node's labels or
 * taints against the pod spec), so a plugin may declare, in on_session_open, a reason code it
 * registered with tph_reason() final, which promises:
 *
 *   once the plugin's predicate reports `code` on node X for a task, it reports `code` on X
 *   for every task with the same pod spec for the rest of the session, whatever is placed,
 *   evicted or changed in the plugin's state meanwhile: the verdict reads only the pod spec
 *   and X's static data (labels, taints, flags, allocatable), and no check whose outcome can
 *   change takes precedence over it (a pod count that fails first would change the reason).
 *
 * The kernel keeps such a verdict only for the first plugin with a predicate registration (a
 * later one sees X only while every earlier one passes it, which may change) and only while
 * the code is that plugin's alone (a text that another plugin or a call outside open
 * registers too no longer tells whose verdict it is). Naive mode asks every time. TPH_EINVAL
 * for a code this plugin did not register, or registered by another plugin first; gated by
 * enablePredicate, like the predicate it describes. A plugin that declares nothing keeps
 * every verdict asked again. */
int tph_declare_final_reason(tph_session *s, tph_reason_code code);

/* ---- pod-count passes: what lets allocate keep a passing verdict without asking again ----
 * After a placement on node X, allocate also asks again about X for every pod spec X passed.
 * Most such passes can only turn into a failure through X's pod count, so a plugin may
 * declare, in on_session_open, a callback and two columns it keeps current for the session,
 * count[node] and limit[node] (its own memory, read by the kernel from the session's thread
 * outside filtering, after the plugin's task events ran). pods(task) returning true
 * promises, for that moment:
 *
 *   on every node X on which the plugin's predicate passed a task with the same pod spec
 *   earlier in the session, it passes `task` now if count[X] < limit[X] (as int64_t).
 *
 * The callback is asked again at every use, so its answer may change with the session's state
 * (predicates says no for a spec that binds a host port or needs its pod-to-pod filters). The
 * kernel then keeps such a pass, without asking, while count[X] < limit[X], and asks
 * otherwise. It relies on it only while the declaring plugin is the only one with a predicate
 * registration (a pass is every such plugin's pass). Naive mode asks every time. TPH_EINVAL
 * without a callback or a column; gated by enablePredicate, like the predicate it describes;
 * the last declaration counts. A plugin that declares nothing keeps every pass asked again. */
typedef bool (*tph_pass_pods_fn)(void *st, const tph_session *s, tph_idx task);
int tph_declare_pass_pods(tph_session *s, tph_pass_pods_fn pods, const uint32_t *count,
                          const int64_t *limit);

/* ---- allocatable locality: what lets preempt skip evictions it knows are in vain ----
 * Preempt evicts a node's victims (all of the preemptor's queue) one by one until the
 * preemptor fits; when Allocatable still refuses it once every victim is gone, the evictions
 * were in vain and are undone. Having seen that on one node, preempt skips, for the same
 * preemptor and session state, every node whose victims request no more on any dimension,
 * without evicting there, provided every plugin with an Allocatable registration declared:
 *
 *  TPH_ALLOC_QUEUE   the verdict on (queue q, task t) depends only on t's request row and on
 *                    q's plugin state; deallocating (evicting) tasks of other queues leaves it
 *                    unchanged, deallocating tasks of q changes it only through the sum of
 *                    their request rows, and a larger sum (no smaller on any dimension) never
 *                    turns a yes into a no (proportion: allocated + request within deserved).
 *  TPH_ALLOC_GLOBAL  anything else (hierarchical queues, whose parents other queues share); the
 *                    default for a plugin that declares nothing. Preempt then evicts on every
 *                    node (same decisions, more work).
 *
 * Declared in on_session_open; the last declaration of a plugin counts; gated by
 * enabledAllocatable, like the verdict it describes. */
enum {
	TPH_ALLOC_GLOBAL = 0,
	TPH_ALLOC_QUEUE = 1
};
int tph_declare_allocatable_locality(tph_session *s, int locality);

/* ---- victim locality: what lets preempt know a preemptor's fate from its predecessor's ----
 * A preemptor that found no node leaves the session as it found it; the next preemptor of its
 * class (same job, pod spec, request row, role, priority and flags), met before anything
 * changed, then fails the same way, and preempt fails it without looking again, provided every
 * plugin with a Preemptable registration declared (besides node-local predicates and
 * TPH_ALLOC_QUEUE above):
 *
 *  TPH_VICTIM_CLASS   its verdicts depend on the evicting task only through its class (the
 *                     fields above), besides the candidates and the session's state.
 *  TPH_VICTIM_GLOBAL  anything else (the evicting task's name, its node, ...); the default.
 *
 * The declaration speaks for the plugin's Preemptable and Reclaimable registrations alike;
 * declared in on_session_open, the last declaration counts; gated by enablePreemptable or
 * enableReclaimable. */
enum {
	TPH_VICTIM_GLOBAL = 0,
	TPH_VICTIM_CLASS = 1
};
int tph_declare_victim_locality(tph_session *s, int locality);

/* ---- task order keys: what lets a job's task queue compare integers ----
 * A job's pending tasks wait in a queue ordered by TaskOrder (allocate, backfill, preempt,
 * reclaim, the hypernode worksheet), which asks every registered TaskOrder callback at each
 * step of the heap. A plugin may declare, in on_session_open, a key whose order is its
 * TaskOrder's: for every two tasks a and b of one job and for the whole session, the callback
 * answers <0 when key(a) < key(b), >0 when key(a) > key(b), 0 when they are equal. When every
 * plugin with a TaskOrder registration declared a key, the kernel sorts each job's tasks once
 * by the keys and Volcano's tie-breaks and its queues compare those ranks: the same pops,
 * without the callbacks. Any plugin without a key, or naive mode, keeps the callbacks. The
 * last declaration counts; gated by enableTaskOrder; TPH_EINVAL for a NULL key. */
typedef int64_t (*tph_task_key_fn)(void *st, const tph_session *s, tph_idx task);
int tph_declare_task_order_key(tph_session *s, tph_task_key_fn key);

/* ---- parallel spans: the per-node work of a batch callback ----
 * Batch callbacks (BatchNodeOrder, NodeReduce) get every candidate at once on the session's
 * thread, because they normalise over the candidates (a maximum, a minimum). They may still
 * hand their per-node work to the session's threads: tph_session_parallel(s, n, fn, ctx) cuts
 * [0, n) into spans of TPH_PAR_SPAN items (span k is [k * TPH_PAR_SPAN, min(n, (k + 1) *
 * TPH_PAR_SPAN))) and calls fn once per span, possibly concurrently on disjoint spans; it
 * returns when every span is done. The spans never depend on the thread count, so a callback
 * that writes per-item outputs and per-span partials (TPH_PAR_SPANS(n) of them, combined in
 * span order afterwards) gets the same bits with any number of threads: map in parallel,
 * reduce serially over the spans, then add in parallel. fn follows the per-node callbacks'
 * rules: read session state, write only its own span's slices, never allocate (size scratch
 * at open; give per-span partials a cache line each). Call it from the session's thread only:
 * from a batch callback or on_session_open, not from fn or a per-node callback. */
#define TPH_PAR_SPAN     256u
#define TPH_PAR_SPANS(n) (((n) + TPH_PAR_SPAN - 1) / TPH_PAR_SPAN)
typedef void (*tph_span_fn)(void *ctx, uint32_t span, uint32_t begin, uint32_t end);
void tph_session_parallel(const tph_session *s, uint32_t n, tph_span_fn fn, void *ctx);

/* ---- descriptors ---- */

/* A plugin: one constant descriptor. Optional slots are NULL. */
typedef struct tph_plugin {
	/* ---- version 1 ---- */
	/* TPH_PLUGIN_ABI as the plugin was built: which groups below it has. */
	uint32_t abi;
	/* The name a conf's tiers use (Volcano's spelling, e.g. "binpack"). An external plugin
	 * with a built-in's name overrides it. */
	const char *name;
	/* Its arguments, terminated by an entry with key NULL; NULL for none. Unknown keys in a
	 * conf are warned about, declared ones are type-checked (tephra/args.h). */
	const tph_arg_spec *args;
	/* Bytes of per-session state, zeroed, in the session arena; handed to every callback. */
	size_t state_size;
	/* Parse arguments and register callbacks (the only place tph_on_* may be called). `st` is
	 * the zeroed state. A non-zero status fails the session's open. */
	int (*on_session_open)(tph_session *s, void *st, const tph_args *args);
	/* Optional. Called exactly once for every plugin whose on_session_open was called: at
	 * tph_session_close, or at tph_session_free for a session that was never closed or failed
	 * to open. Release here what lives outside the session arena (discipline 3 above). */
	void (*on_session_close)(tph_session *s, void *st);
	/* ---- version 2 and later: appended here ---- */
} tph_plugin;

/* An action: one constant descriptor, versioned as tph_plugin is. */
typedef struct tph_action {
	/* ---- version 1 ---- */
	uint32_t abi;             /* TPH_PLUGIN_ABI as the action was built */
	const char *name;         /* the name in the conf's `actions` list */
	const tph_arg_spec *args; /* its `configurations` arguments; NULL for none */
	/* Optional: right before execute (Volcano's Initialize); a failure skips execute. */
	int (*initialize)(tph_session *s, const tph_args *args);
	/* Run where the conf's `actions` list names it; decisions go through statements. */
	int (*execute)(tph_session *s, const tph_args *args);
	/* Optional: right after execute, whatever it returned (Volcano's UnInitialize). */
	void (*uninitialize)(tph_session *s);
	/* ---- version 2 and later: appended here ---- */
} tph_action;

/* The entry symbol an external plugin's shared object exports. */
#define TPH_PLUGIN_ENTRY "tph_plugin_entry"
typedef const tph_plugin *(*tph_plugin_entry_fn)(uint32_t host_abi);

/* ---- session-shared objects ----
 * State several plugins read, built once per session instead of once per plugin (Volcano's
 * plugins share ssn.NodeMap, for one). The first call with a key allocates `size` zeroed bytes
 * that live until the session is freed, runs init(obj, s) on them and, when init returns 0,
 * keeps the object under the key; every later call with the key returns the same object and
 * ignores `size` and `init`. A failed init keeps nothing (the next call tries again) and its
 * status is returned. Keys are compared as strings; the caller keeps its key alive for the
 * session (a string literal). From the session's thread only, typically in on_session_open;
 * init may itself get other shared objects. Which plugin updates a shared object, and when, is
 * the object's own contract. */
typedef int (*tph_shared_init_fn)(void *obj, tph_session *s);
int tph_session_shared(tph_session *s, const char *key, size_t size, tph_shared_init_fn init,
                       void **out);

/* ---- KAI-Scheduler's extension points ----
 * The points of KAI-Scheduler's framework (its pkg/scheduler/framework/session_plugins.go) that
 * Volcano lacks; JobOrder, TaskOrder, PrePredicate, Predicate, NodeOrder and the task events
 * above are shared. Registration works as for the others, but no action dispatches these yet:
 * the KAI actions will. KAI has no enable flags, so they are never gated, and it keeps a list
 * per point, so registering again appends. KAI flattens tiers: no rule below looks at them. */

/* QueueOrder with KAI's arguments: one side of the comparison. KAI's hierarchical queue walk
 * passes each queue's best job and, when it orders victims, the jobs popped from it so far. */
typedef struct tph_queue_side {
	tph_idx queue;
	tph_idx job;
	const tph_idx *victims; /* jobs */
	uint32_t n_victims;
} tph_queue_side;
/* As tph_cmp_fn over a->queue and b->queue; KAI passes the cluster's smallest node GPU memory
 * too (ClusterInfo.MinNodeGPUMemory). The first non-zero answer decides; then creation time,
 * then UID. */
typedef int (*tph_kai_queue_cmp_fn)(void *st, const tph_session *s, const tph_queue_side *a,
                                    const tph_queue_side *b, int64_t min_node_gpu_memory);
int tph_on_kai_queue_order(tph_session *s, tph_kai_queue_cmp_fn fn);
/* SubGroupOrder: tph_cmp_fn over two sub-groups (SubGroupSet or PodSet) of one job. The first
 * non-zero answer decides; then the name. */
int tph_on_subgroup_order(tph_session *s, tph_cmp_fn fn);

/* NodePreOrder: called with `task`'s fitting nodes[0..n) before NodeOrder scores them
 * (nodeplacement, podaffinity and numa register it). Every registration runs; KAI only logs a
 * non-zero status. */
typedef int (*tph_node_pre_order_fn)(void *st, const tph_session *s, tph_idx task,
                                     const tph_idx *nodes, uint32_t n);
int tph_on_node_pre_order(tph_session *s, tph_node_pre_order_fn fn);
/* GpuOrder: score the GPUs gpus[0..n) of `node` for a task that takes a fraction of one: write
 * score[i], or set drop[i] to take GPU i out (KAI: an error drops that GPU). Scores add. */
typedef void (*tph_gpu_order_fn)(void *st, const tph_session *s, tph_idx task, tph_idx node,
                                 const uint32_t *gpus, uint32_t n, double *score, uint8_t *drop);
int tph_on_gpu_order(tph_session *s, tph_gpu_order_fn fn);
/* VictimInvariantPrePredicate: a pre-predicate that no eviction can change (predicates); the
 * first failure answers, and consolidation, reclaim and preempt then skip the job. */
int tph_on_victim_invariant_prepredicate(tph_session *s, tph_prepredicate_fn fn);

/* Node sets: set k is node[k ? end[k - 1] : 0 .. end[k]). The caller gives room for cap node
 * entries and cap_sets sets, with n == n_sets == 0. */
typedef struct tph_node_sets {
	tph_idx *node;
	uint32_t *end;
	uint32_t n, n_sets;
	uint32_t cap, cap_sets;
} tph_node_sets;
/* SubsetNodes: split nodes[0..n_nodes) into the sets that `subgroup` of `job`, with its
 * tasks[0..n_tasks) to place, may be placed on, in the order to try them (topology). Tree
 * expansion: each registration splits every set the one before it produced, and allocate tries
 * the sets of the last one in order. The first non-zero status ends the expansion. */
typedef int (*tph_subset_nodes_fn)(void *st, const tph_session *s, tph_idx job, tph_idx subgroup,
                                   const tph_idx *tasks, uint32_t n_tasks, const tph_idx *nodes,
                                   uint32_t n_nodes, tph_node_sets *out);
int tph_on_subset_nodes(tph_session *s, tph_subset_nodes_fn fn);

/* CanReclaimResources: may `job` reclaim from other queues? The first registration alone
 * answers (proportion); with none, no. */
int tph_on_can_reclaim_resources(tph_session *s, tph_job_pred_fn fn);
/* Victim filters: may victim_job give way to pending_job? A yes/no per pair of jobs, not
 * Volcano's victim sets; every registration must say yes. Reclaim asks for victims of other
 * queues (proportion, minruntime), preempt for victims of the same queue (minruntime). */
typedef bool (*tph_victim_filter_fn)(void *st, const tph_session *s, tph_idx pending_job,
                                     tph_idx victim_job);
int tph_on_reclaim_victim_filter(tph_session *s, tph_victim_filter_fn fn);
int tph_on_preempt_victim_filter(tph_session *s, tph_victim_filter_fn fn);
/* Scenario validators: is a solved scenario (the pending job, its victims, where each is
 * placed again) acceptable? Every registration must say yes (proportion's fairness rules,
 * minruntime). The scenario's accessors come with the solver. */
typedef struct tph_kai_scenario tph_kai_scenario;
typedef bool (*tph_scenario_valid_fn)(void *st, const tph_session *s, const tph_kai_scenario *sc);
int tph_on_reclaim_scenario_validator(tph_session *s, tph_scenario_valid_fn fn);
int tph_on_preempt_scenario_validator(tph_session *s, tph_scenario_valid_fn fn);
/* OnJobSolutionStart: the solver starts on a job (proportion clones its queue state). Every
 * registration runs. */
int tph_on_job_solution_start(tph_session *s, tph_session_event_fn fn);

/* Capacity checks with KAI's SchedulableResult: true when schedulable, else false with `why`
 * filled (static or session-arena strings). The first registration alone answers (proportion);
 * with none, schedulable. IsJobOverQueueCapacity and IsNonPreemptibleJobOverQueueQuota ask about
 * placing tasks[0..n) of `job`; IsTaskAllocationOnNodeOverCapacity (which the predicates
 * plugin calls) about one task on one node. */
typedef bool (*tph_job_capacity_fn)(void *st, const tph_session *s, tph_idx job,
                                    const tph_idx *tasks, uint32_t n, tph_valid_result *why);
typedef bool (*tph_task_capacity_fn)(void *st, const tph_session *s, tph_idx task, tph_idx node,
                                     tph_valid_result *why);
int tph_on_job_over_queue_capacity(tph_session *s, tph_job_capacity_fn fn);
int tph_on_nonpreemptible_over_queue_quota(tph_session *s, tph_job_capacity_fn fn);
int tph_on_task_over_node_capacity(tph_session *s, tph_task_capacity_fn fn);
/* A queue's allocated, deserved or fair-share resources, one value per session dimension in
 * out[0..tph_session_dim_count()). The first registration alone answers (proportion); KAI uses
 * them for messages. */
typedef void (*tph_queue_resources_fn)(void *st, const tph_session *s, tph_idx queue, int64_t *out);
int tph_on_queue_allocated(tph_session *s, tph_queue_resources_fn fn);
int tph_on_queue_deserved(tph_session *s, tph_queue_resources_fn fn);
int tph_on_queue_fair_share(tph_session *s, tph_queue_resources_fn fn);

/* PreJobAllocation: allocate is about to place `job` (topology). Every registration runs. */
int tph_on_pre_job_allocation(tph_session *s, tph_job_event_fn fn);
/* NumaPlacement: where on `node`'s NUMA zones `task` goes; a single registration (numa)
 * answers. The placement's fields come with NUMA support. */
typedef struct tph_numa_placement tph_numa_placement;
typedef int (*tph_numa_placement_fn)(void *st, const tph_session *s, tph_idx task, tph_idx node,
                                     tph_numa_placement *out);
int tph_on_numa_placement(tph_session *s, tph_numa_placement_fn fn);
/* BindRequestMutate: annotations for the bind request of `task` on `node`; the answers merge,
 * a later key overriding an earlier one. No plugin registers it by default; the annotation
 * setters come with KAI's binding. */
typedef struct tph_bind_request tph_bind_request;
typedef int (*tph_bind_mutate_fn)(void *st, const tph_session *s, tph_idx task, tph_idx node,
                                  tph_bind_request *out);
int tph_on_bind_request_mutate(tph_session *s, tph_bind_mutate_fn fn);
/* Scenario generators (sg-nodelocalgreedy, sg-multinodegang): the solver tries them one after
 * another, in registration order, for each job it solves. KAI registers each under a name that
 * keys its search budget; the generator's context, that name and its budget come with the
 * solver. */
typedef struct tph_scenario_gen tph_scenario_gen;
typedef int (*tph_scenario_gen_fn)(void *st, tph_session *s, tph_scenario_gen *gen);
int tph_on_scenario_generator(tph_session *s, tph_scenario_gen_fn fn);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif

/* Sessions: one scheduling cycle over a snapshot. Open instantiates the conf's plugins tier by
 * tier, run executes the conf's actions serially, close computes podgroup phases and returns
 * the decision log. A snapshot is never written, so it can be replayed by many sessions.
 *
 * The host loop, one cycle per scheduling period:
 *
 *     tph_cluster_put_pod(c, &arrival, &d);           // update the cache with what changed
 *     tph_cluster_snapshot(c, now, &snap, &d);
 *     tph_session_open(snap, conf, NULL, &s, &d);
 *     tph_session_run(s, &d);
 *     tph_session_close(s, &d);
 *     tph_cluster_apply(c, s, &d);                    // binds, evictions, nominations, phases
 *     tph_session_free(s);
 *     tph_snapshot_release(snap);
 *
 * Lifetimes: a session holds its snapshot (which holds its cache) and its conf from open to
 * tph_session_free, so a host may release the snapshot, free the conf or the scenario, or
 * destroy the cache while a session is open; the memory goes with the last holder. External
 * plugins stay loaded while any session is open (tph_plugins_unload_all refuses). Plugins a
 * host registered in-process (tph_plugins_register) must outlive the sessions that use them.
 *
 * Diagnostics: open, run and close report to the diag they are given, plugins' warnings
 * included; warnings raised between calls (probes) go to the diag of the last of them, which
 * must then still exist. */
#ifndef TEPHRA_SESSION_H
#define TEPHRA_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tephra/cluster.h"
#include "tephra/conf.h"
#include "tephra/plugin.h"
#include "tephra/status.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

typedef struct tph_session_opts {
	int threads; /* 0: OMP_NUM_THREADS, else the OpenMP default */
	bool naive;  /* no equivalence classes, no incremental updates */
	/* External plugins (a *.so or a directory of them) to load at open; NULL: none. Too late
	 * for a conf that names a plugin only they provide (the conf was checked when loaded):
	 * tph_plugins_load those first (tephra/registry.h); loading them again here is a no-op. */
	const char *plugin_dir;
	bool profile; /* count calls and time per extension point */
	/* Bytes allocate may keep of per-shape candidate state (a shape: tasks with one pod spec
	 * and request; its state is about 16.6 bytes per ready node). 0: room for 256 shapes
	 * (about 4.2 KiB per ready node), at least 256 MiB: 256 MiB up to ~63k ready nodes,
	 * ~405 MiB at 100k. A smaller cap lowers the session's peak memory and costs
	 * evaluations, never decisions: a shape evicted to make room is rebuilt from scratch
	 * when a task of it comes back. */
	size_t shape_cache_bytes;
	/* Node sampling (tephra/cluster.h): TPH_SAMPLING_CACHE (0) leaves it to the cache, whose
	 * default is the full scan; TPH_SAMPLING_VOLCANO samples as Volcano does by default. */
	tph_node_sampling node_sampling;
} tph_session_opts;

/* Open a session. On error nothing is left behind and `d` says why (an unknown plugin, a
 * plugin that is known to Volcano but not built yet, a failing on_session_open, ...). */
int tph_session_open(const tph_snapshot *snap, const tph_conf *conf, const tph_session_opts *opts,
                     tph_session **out, tph_diag *d);
/* Run the conf's actions in order. */
int tph_session_run(tph_session *s, tph_diag *d);
/* Close: on_session_close in order, podgroup phases; the decision log stays readable until
 * tph_session_free(). */
int tph_session_close(tph_session *s, tph_diag *d);
void tph_session_free(tph_session *s);

/* ---- the decision log (valid after close) ---- */

typedef struct tph_decision {
	const char *pod;  /* "namespace/name" */
	const char *node; /* binds and pipelined; NULL for evictions */
	const char *reason;
	/* Binds: the annotations plugins set on the task during the session (Volcano's
	 * TaskInfo.PodAnnotations, e.g. device assignments; tph_task_annotate), keys sorted;
	 * never the pod's own. Empty for every other row. */
	tph_kv_list annotations;
} tph_decision;

typedef struct tph_phase_row {
	const char *podgroup; /* "namespace/name" */
	const char *phase;    /* Pending, Inqueue, Running, Unknown, Completed */
} tph_phase_row;

typedef struct tph_pending_row {
	const char *pod;
	const char *const *reasons; /* "3 node(s) had insufficient cpu", ... */
	uint32_t n_reasons;
} tph_pending_row;

typedef struct tph_action_time {
	const char *action;
	double ms;
} tph_action_time;

/* Why a job is pending: one kind per job, the first that applies in this order. */
typedef enum tph_job_why {
	TPH_WHY_INVALID = 0,      /* a JobValid check refused it (gang: "not enough valid tasks") */
	TPH_WHY_NOT_ENQUEUED = 1, /* a JobEnqueueable vote rejected it: it stays Pending */
	TPH_WHY_QUEUE = 2,        /* its queue: closed, overused or not allocatable (its share) */
	TPH_WHY_PIPELINED = 3,    /* pipelined: waits for resources other tasks are releasing */
	TPH_WHY_TOPOLOGY = 4,     /* hard network topology: no hypernode in its tier fits it */
	TPH_WHY_GANG = 5,         /* fewer placeable tasks than minMember */
	TPH_WHY_UNPLACED = 6,     /* minMember is met, but some tasks fit no node */
	TPH_WHY_NOT_TRIED = 7,    /* no action tried its tasks this session */
	TPH_WHY_COUNT
} tph_job_why;

/* The name of a kind ("Invalid", "NotEnqueued", "QueueShare", "Pipelined", "Topology",
 * "GangShort", "Unplaceable", "NotTried"); NULL out of range. */
const char *tph_job_why_name(tph_job_why why);

/* A pending job: a podgroup with a task left Pending, or left Pending/Inqueue with fewer
 * ready tasks than minMember. Numbers are the session's at close. */
typedef struct tph_job_row {
	const char *podgroup; /* "namespace/name" */
	const char *queue;
	tph_job_why why;
	/* The plugin that refused it (Invalid, NotEnqueued, QueueShare), else NULL. */
	const char *plugin;
	/* One line for people, with numbers ("needs 8, 5 placeable: 3 tasks fit no node — 2
	 * Insufficient nvidia.com/gpu, 1 node(s) didn't match Pod's node affinity/selector"). */
	const char *message;
	int32_t min_member;
	uint32_t tasks;     /* all its tasks */
	uint32_t ready;     /* Volcano's ReadyTaskNum: allocated statuses plus Succeeded */
	uint32_t placeable; /* ready + pending tasks whose last transaction allocated them */
	uint32_t pending;   /* tasks still Pending */
	uint32_t unfit;     /* pending tasks with a fit error (they fit no node) */
	/* The podgroup condition Volcano's gang plugin writes at close (type "Unschedulable",
	 * reason "NotEnoughResources", message "3/8 tasks in gang unschedulable: ..."), or all
	 * NULL when gang is not in the conf or writes none for this job. */
	const char *cond_type, *cond_reason, *cond_message;
} tph_job_row;

/* A queue after close, as Volcano's queue status and its proportion and capacity plugins
 * hold it. Rows are exact values per session dimension (tph_decision_log.dims). */
typedef struct tph_queue_row {
	const char *name;
	const char *state; /* "Open", "Closed", "Closing" */
	int32_t weight;
	/* Volcano's status.allocated: requests of its jobs' tasks in an allocated status (its
	 * children's too, when the snapshot has a root queue). Always set. */
	const int64_t *allocated;
	/* What proportion or capacity computed (tph_queue_report); NULL when neither reported:
	 * deserved, its jobs' requests, inqueue (minResources of admitted jobs), the real
	 * capability and the guarantee. INT64_MAX: unlimited. share < 0: not reported. */
	const int64_t *deserved, *request, *inqueue, *capability, *guarantee;
	double share;
	const char *reported_by; /* the plugin whose report this is, or NULL */
	/* Volcano's queue status counts: its podgroups by the phase close gave them (Pending,
	 * Inqueue, Running, Unknown, Completed; tph_phase_row's order). */
	uint32_t podgroups[5];
	uint32_t jobs_pending;
	uint32_t by_why[TPH_WHY_COUNT]; /* pending jobs per kind */
	/* "q1: 40 jobs pending, 31 by queue share, 9 gang short" ("q1: no job pending"). */
	const char *summary;
} tph_queue_row;

typedef struct tph_decision_log {
	const tph_decision *binds;
	uint32_t n_binds;
	const tph_decision *evictions;
	uint32_t n_evictions;
	const tph_decision *pipelined;
	uint32_t n_pipelined;
	const tph_phase_row *phases;
	uint32_t n_phases;
	const tph_pending_row *pending;
	uint32_t n_pending;
	const tph_action_time *actions;
	uint32_t n_actions;
	double open_ms, close_ms;
	uint32_t jobs_total; /* podgroups in the session */
	uint32_t jobs_ready; /* of which allocated + succeeded tasks reach minMember */
	/* ---- appended: why jobs are pending, and the queues ---- */
	const tph_job_row *jobs; /* every pending job, in podgroup order */
	uint32_t n_jobs;
	const tph_queue_row *queues; /* every queue, in snapshot order */
	uint32_t n_queues;
	const char *const *dims;  /* names of the queue rows' dimensions */
	const uint8_t *dim_units; /* their tph_res_unit, for tph_quantity_format */
	uint32_t n_dims;
} tph_decision_log;

/* NULL before close. */
const tph_decision_log *tph_session_decisions(const tph_session *s);

/* ---- the host loop ---- */

/* Apply a closed session's decisions to the cache its snapshot was taken from, so that the next
 * snapshot starts from them without the host describing the pods again:
 * - a bind makes the pod Bound on its node (Pending with a nodeName, which holds the node's
 *   resources);
 * - an eviction marks the pod deleting: Releasing, still holding its node until the host
 *   removes it (tph_cluster_remove_pod) once the kubelet says it is gone;
 * - a pipelined task gets its nominatedNodeName (it stays Pending);
 * - every podgroup gets the phase the session's close computed (Pending, Inqueue, Running,
 *   Unknown, Completed), as Volcano's status update writes it back.
 * It does not start or complete pods: moving a Bound pod to Running, or to Succeeded, is the
 * host's, when the kubelet reports it (a put with the new phase).
 *
 * Objects changed or removed in the cache since the snapshot are skipped, each with a warning:
 * a pod or node removed, a pod whose status or node is no longer the snapshot's (the host's
 * update wins), a podgroup removed. Applying the same session twice changes nothing the second
 * time. Costs O(decisions + podgroups), looking objects up by their interned keys.
 *
 * Errors, with the cache unchanged: TPH_EINVAL for a NULL cache or session, a session that is
 * not closed, a session whose snapshot came from another cache. Not thread-safe with other
 * updates of the cache (cluster.h). */
int tph_cluster_apply(tph_cluster *c, const tph_session *s, tph_diag *d);

/* ---- the session cache ----
 * A host runs one session per scheduling cycle, and each needs about as much memory as the
 * last. tph_session_free therefore keeps the freed session's memory (its arena's chunks, as far
 * as that session used them) in a small process-wide cache, and the next tph_session_open takes
 * it instead of faulting in fresh pages. The cache keeps at most 2 sessions' memory by default;
 * every call here and every open and free are safe from several threads at once. */

/* Give every cached session's memory back; returns the bytes released. */
size_t tph_session_cache_trim(void);
/* Keep at most `n` sessions' memory (0 disables the cache, at most 16); trims any excess and
 * returns the previous limit. */
unsigned tph_session_cache_limit(unsigned n);
/* Sessions cached now, and the bytes they hold (`bytes` may be NULL). */
unsigned tph_session_cache_count(size_t *bytes);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif

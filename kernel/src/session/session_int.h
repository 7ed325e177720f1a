/* Internal session state: the snapshot's columns (mutable ones copied into the arena), the
 * plugin instances per tier, the registered extension points, statements and the decision
 * log. Everything is owned by the session arena and dropped at tph_session_free(). */
#ifndef TPH_SESSION_INTERNAL_H
#define TPH_SESSION_INTERNAL_H

#include "base/arena.h"
#include "base/mem.h"
#include "cache/snap.h"
#include "tephra/columns.h"
#include "session/ep_table.h"
#include "tephra/plugin.h"
#include "tephra/session.h"

/* Extension points: TPH_EP_<id> for each row of ep_table.h, in the table's order. */
typedef enum tph_ep {
#define TPH_EP_ENUM(id, ...) TPH_EP_##id,
	TPH_EP_TABLE(TPH_EP_ENUM)
#undef TPH_EP_ENUM
	TPH_EP_COUNT
} tph_ep;

/* Each point's row (ep.c). */
extern const tph_ep_info tph_ep_table[TPH_EP_COUNT];

typedef void (*tph_any_fn)(void);

/* One registration: the callback, its plugin's state and where the plugin sits. */
typedef struct tph_ep_entry {
	tph_any_fn fn;
	void *st;
	uint16_t plugin; /* index into tph_session.plugins */
	uint16_t tier;
} tph_ep_entry;

typedef struct tph_ep_list {
	tph_ep_entry *e; /* in tier order, then plugin order */
	uint32_t n, cap;
} tph_ep_list;

typedef struct tph_plugin_inst {
	const tph_plugin *desc;
	void *st;
	const tph_args *args;
	uint16_t tier;
	int8_t flags[TPH_FLAG_COUNT];   /* effective enable flags (0/1), by tph_conf_flag */
	int8_t pred_locality;           /* TPH_PRED_*, as declared at open (GLOBAL if not) */
	int8_t alloc_locality;          /* TPH_ALLOC_*, as declared at open (GLOBAL if not) */
	int8_t victim_locality;         /* TPH_VICTIM_*, as declared at open (GLOBAL if not) */
	tph_score_norm_fn score_norm;   /* tph_on_score_norm's, or NULL */
	tph_score_split_fn score_split; /* tph_on_score_split's, or NULL */
	bool score_zero;                /* tph_declare_score_zero: its split parts are +0.0 */
	tph_score_hn_bound_fn score_hn_bound; /* tph_on_score_hn_bound's, or NULL */
	tph_task_key_fn task_key;             /* tph_declare_task_order_key's, or NULL */
	tph_hn_score_fn hn_order_each;        /* tph_on_hypernode_order_each's, or NULL */
	tph_pass_pods_fn pass_pods;           /* tph_declare_pass_pods's, or NULL */
	const uint32_t *pass_count;           /* its columns, [node] */
	const int64_t *pass_limit;
} tph_plugin_inst;

typedef struct tph_reason_row {
	const char *text;
	bool unresolvable;
	bool final;    /* its owner declared it final (tph_declare_final_reason) */
	int16_t owner; /* the plugin that registered it at open; -1: the kernel, a registration
	                * outside open, or more than one plugin */
} tph_reason_row;

typedef struct tph_log_row {
	tph_idx task;
	tph_idx node; /* evictions: the node the task ran on */
} tph_log_row;

typedef struct tph_log {
	tph_log_row *binds, *evictions, *pipelined;
	const char **reasons; /* [eviction] why it was evicted */
	uint32_t n_binds, n_evictions, n_pipelined;
	uint32_t cap_binds, cap_evictions, cap_pipelined, cap_reasons;
} tph_log;

struct tph_session {
	/* First, so that tph_view_of() (tephra/columns.h) is a cast: set by open, after the
	 * topology. */
	tph_view view;
	tph_arena arena;
	/* Heap blocks allocated on the session's thread while it is entered (open, run, close,
	 * probes, free); base is &arena.allocated, so the peak covers both (tph_session_memory). */
	tph_heap_acct heap;
	const tph_snapshot *snap;
	const tph_conf *conf;
	tph_session_opts opts;
	tph_diag *diag;
	int threads;
	uint32_t ndim;

	tph_node_store nodes; /* mutable columns point into the arena */
	tph_task_store tasks;
	const tph_job_store *jobs;
	const tph_queue_store *queues;
	tph_job_state js;
	tph_idx *ready_nodes; /* nodes that are READY, in snapshot order: the candidates */
	uint32_t n_ready;

	tph_plugin_inst *plugins;
	uint32_t n_plugins, n_tiers;
	int cur_plugin; /* the plugin whose on_session_open runs, else -1 */
	/* Plugins whose on_session_open was called: each gets on_session_close exactly once, at
	 * close, or at free for a session that was never closed (or failed to open). */
	uint32_t n_opened;
	bool plugins_closed;
	uint16_t closing; /* index + 1 of the plugin whose on_session_close runs, else 0 */
	bool frozen;
	/* Every scoring plugin answers for its locality (tph_scores_declared), as the registry
	 * stood when it froze: read on each pick, fixed from then on. */
	bool scores_declared;
	/* An extension point ran out of memory and answered as if it had nothing (no victims,
	 * no feasible node, score 0): the action that saw it fails with TPH_ENOMEM, so a
	 * degraded answer never passes for a decision. */
	bool oom;
	tph_ep_list ep[TPH_EP_COUNT];

	struct tph_ep_ctx *epx;  /* owned by ep.c: fit reasons and reusable scratch */
	tph_reason_row *reasons; /* code 0 is TPH_PASS */
	uint32_t n_reasons, cap_reasons;
	uint32_t n_final; /* reasons declared final (tph_declare_final_reason) */

	/* Why each task is still pending, and the nodes its last failed placement found
	 * UnschedulableAndUnresolvable (Volcano's job.NodesFitErrors); set by actions, see
	 * fitlog.h. NULL until the first record. */
	struct tph_fitlog *fit;
	/* Why jobs stay pending: marks, plugins' reasons, queue reports (jobwhy.h). NULL until
	 * the first. Session thread. */
	struct tph_jobwhy *why;
	/* Heap blocks of the action running now, freed when it ends (action_util.h). */
	struct tph_act_scratch {
		void **blk;
		uint32_t n, cap;
		char *ptr, *end; /* the free rest of the chunk small blocks are cut from */
	} act_scratch;

	tph_log log;
	tph_decision_log out;
	bool closed;
	double open_ms;
	tph_action_time *action_times;
	uint32_t n_action_times;

	struct tph_prof *prof;     /* profile counters (prof.h); NULL unless opts.profile */
	struct tph_topo *topo;     /* hypernode tree, job topologies, subjobs (hypernode.h) */
	tph_eviction eviction;     /* session thread: set by eviction actions around their calls */
	struct tph_shared *shared; /* session thread: tph_session_shared's objects, newest first */
	/* Bind annotations plugins set (tph_task_annotate): [task] one entry per key, newest
	 * first; NULL until the first. Session thread. */
	struct tph_ann **ann;
	/* The statement whose operation's handlers run now, which records their annotations so a
	 * discard undoes them; NULL outside (session thread). */
	struct tph_statement *stmt;
	/* Node sampling (tph_node_sampling, resolved: FULL or VOLCANO) and, for VOLCANO, Volcano's
	 * lastProcessedNodeIndex: read from the cache at open, every PredicateNodes call of every
	 * action moves it (action_filter.c), stored back in the cache at close. Session thread. */
	uint8_t sampling;
	uint32_t sample_rr;
};

typedef struct tph_act_scratch tph_act_scratch;
/* Free the scratch blocks of the action that ran (action_util.h, tph_act_calloc). */
void tph_act_scratch_end(tph_session *s);

/* Arena allocation for framework code; NULL on OOM. */
void *tph_ssn_alloc(tph_session *s, size_t size);

/* The annotations plugins set on `task` (and did not remove), keys sorted, in the arena. */
int tph_bind_annotations(tph_session *s, tph_idx task, tph_kv_list *out);
/* Run on_session_close of every opened plugin, once (close and free both call it). */
void tph_close_plugins(tph_session *s);
/* Flag a job as unschedulable in this session (gang's close-time condition). */
void tph_job_mark_unschedulable(tph_session *s, tph_idx job);

/* Queue of a task's job (TPH_NOIDX without a job). */
static inline tph_idx tph_task_queue(const tph_session *s, tph_idx t)
{
	return tph_task_queue_of(&s->view, t); /* the plugins' rule (tephra/columns.h) */
}

/* "namespace/name" of a task: the cluster interned it as the pod's key, so the snapshot's
 * string table holds it for as long as the session lives. */
const char *tph_ssn_task_key(const tph_session *s, tph_idx t);
/* "namespace/name" of job j cut to its first cap - 1 bytes, as snprintf into cap bytes cuts
 * it: the string table's when the job has a podgroup and no cut applies, else a copy in the
 * session's arena (NULL when out of memory). */
const char *tph_job_key(tph_session *s, tph_idx j, size_t cap);

/* Wall clock in milliseconds (monotonic). */
double tph_now_ms(void);

#endif

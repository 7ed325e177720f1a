/* The fit log: everything the session keeps about failed placements, behind one API.
 *  - Per task, its last failed placement: the reasons, counted over the nodes in Volcano's
 *    FitErrors wording ("3 Insufficient cpu"), or one task-level reason (a job- or queue-level
 *    refusal, allocate's skip message), formatted only at close into the pending rows; and
 *    the nodes that failed it UnschedulableAndUnresolvable (Volcano's job.NodesFitErrors),
 *    which preempt and reclaim skip.
 *  - Per job and per subjob, the roles that have a recorded task (FitFailedRoles), derived
 *    from the records, so they cannot drift from them.
 *  - Per action, the per-role error cache of Volcano's PredicateHelper (tph_fit_cache).
 * Allocate and backfill record, allocate reads the roles, preempt and reclaim read the nodes,
 * close builds the rows (fitlog_rows.c). Records are 4-byte ids per task into interned
 * sequences (base/seqtab.h): tasks failing alike share one stored copy. Session thread only. */
#ifndef TPH_FITLOG_H
#define TPH_FITLOG_H

#include "base/seqtab.h"
#include "session/session_int.h"

/* ---- task records ---- */

/* The task found no node: codes[i] is the verdict on nodes[i] (TPH_PASS counts for nothing).
 * Replaces both parts of the task's record: the reasons with one count per failing code, the
 * nodes with those whose code is UnschedulableAndUnresolvable. */
int tph_fitlog_nodes(tph_session *s, tph_idx task, const tph_idx *nodes,
                     const tph_reason_code *codes, uint32_t n);
/* The same in steps, for a caller that counts the verdicts where it keeps them instead of
 * listing them: tph_fitlog_hist hands out a zeroed histogram (NULL when out of memory), where
 * hist[tph_fitlog_slot(s->n_reasons, c)] counts code c over the nodes; tph_fitlog_counted
 * records the reasons from it and returns 0 when no code that occurs is unresolvable (the
 * record is then whole), 1 when the caller must list the verdicts to tph_fitlog_unres, which
 * completes it, or an error. No other fit log call in between. */
uint32_t *tph_fitlog_hist(tph_session *s);
int tph_fitlog_counted(tph_session *s, tph_idx task);
int tph_fitlog_unres(tph_session *s, tph_idx task, const tph_idx *nodes,
                     const tph_reason_code *codes, uint32_t n);
/* Or, instead of tph_fitlog_unres, the unresolvable nodes themselves, in the order the
 * verdicts would list them (a caller that keeps them). */
int tph_fitlog_unres_nodes(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t k);
/* Codes past the reason table count as TPH_PASS, which counts for nothing. */
static inline uint32_t tph_fitlog_slot(uint32_t n_reasons, tph_reason_code c)
{
	return c < n_reasons ? c : TPH_PASS;
}
/* One task-level reason replaces the task's reasons; `reason` must live as long as the
 * session (a literal, or a string in the session arena). */
int tph_fitlog_text(tph_session *s, tph_idx task, const char *reason);
/* Allocate's "Task <name> with role spec <role> has already predicated failed, skip"
 * replaces the task's reasons. */
int tph_fitlog_skip(tph_session *s, tph_idx task);

/* Whether the task has a reasons record (possibly with no reason in it). */
bool tph_fitlog_has(const tph_session *s, tph_idx task);
/* The nodes preempt and reclaim skip for `task`, in recording order; 0 when none. */
uint32_t tph_fitlog_unresolvable(const tph_session *s, tph_idx task, const tph_idx **out);

/* The parts of a record tph_fitlog_forget() drops. */
enum {
	TPH_FIT_REASONS = 1u << 0,
	TPH_FIT_NODES = 1u << 1,
};
void tph_fitlog_forget(tph_session *s, tph_idx task, unsigned parts);
/* Volcano's job.ResetFitErr: forget both parts for every task of the job. */
void tph_fitlog_reset_job(tph_session *s, tph_idx job);
/* job.ResetSubJobFitErr: the same for the tasks of one subjob. */
void tph_fitlog_reset_subjob(tph_session *s, tph_idx subjob);

/* ---- failed roles ---- */

typedef struct tph_fit_roles {
	tph_sid *v; /* in no particular order */
	uint32_t n, cap;
	bool built; /* false: stale, rebuilt from the records when next read */
} tph_fit_roles;

/* Volcano's FitFailedRoles of `job`, or of its subjob `sj` unless that is TPH_NOIDX: the
 * roles (the empty one too) of its tasks with a reasons record. Out of memory, an empty set
 * and the session's oom flag, which fails the action. Valid until the next record. */
const tph_fit_roles *tph_fitlog_failed_roles(tph_session *s, tph_idx job, tph_idx sj);
bool tph_fit_roles_has(const tph_fit_roles *r, tph_sid role);
/* Volcano's TaskHasFitErrors: the task's role is among the failed roles of its job (of
 * subjob `sj` unless TPH_NOIDX); never for a task without a role. */
bool tph_fitlog_role_failed(tph_session *s, tph_idx task, tph_idx sj);
/* Free the sets (an action ends): they are rebuilt from the records when next read, so the
 * session holds no per-job memory between actions. */
void tph_fitlog_drop_roles(tph_session *s);

/* ---- the per-role error cache (Volcano's PredicateHelper.taskPredicateErrorCache) ----
 * Within one pass, a node that failed a task of (job, role) fails every later task of the
 * role unevaluated, with the reason of its first failure. A pass is what one PredicateHelper
 * lives for: allocate, one run of a job's or subjob's tasks; backfill, one task; preempt, the
 * whole action. Exact per role: keyed by (job, role), never applied to tasks without a role
 * (one cache across unrelated pods, Volcano issue 3527), and a new pass empties it at once.
 * An action owns its cache and frees it when it ends. */

typedef struct tph_fit_role {
	tph_sid role;
	uint32_t next; /* the job's next entry + 1; 0 ends its chain */
	uint32_t pass; /* == the cache's pass: the entry is live */
	bool failed;   /* live with a failure cached */
	/* Live: bit node % 64 of bits[node / 64] marks a cached failure, code[node] its reason
	 * (NULL when the cache keeps no reasons). Columns of a dead entry belong to others. */
	uint64_t *bits;
	tph_reason_code *code;
	/* Allocate's class-level path (allocate_fast_track.c) may follow the role instead of
	 * caching its failures; before a task of the role takes the normal path it caches them
	 * and clears this. */
	void *follower;
} tph_fit_role;

typedef struct tph_fit_cols {
	uint64_t *bits;
	tph_reason_code *code;
	uint32_t owner; /* the entry that took it last + 1; 0: none */
} tph_fit_cols;

typedef struct tph_fit_cache {
	tph_session *s;
	bool on;        /* Volcano's predicateErrorCacheEnable */
	bool codes;     /* keep each failure's reason (preempt needs only that there was one) */
	uint32_t pass;  /* bumped by tph_fit_cache_pass */
	uint32_t *head; /* heap [job]: its first entry + 1; made on first use */
	tph_fit_role *roles; /* heap; entries stay with their job, revived in later passes */
	uint32_t n, cap;
	tph_fit_cols *cols; /* heap; cols[0 .. live_cols) are the live entries' */
	uint32_t n_cols, cap_cols, live_cols;
} tph_fit_cache;

void tph_fit_cache_init(tph_fit_cache *c, tph_session *s, bool on, bool codes);
void tph_fit_cache_free(tph_fit_cache *c);
/* A new pass (Volcano makes a new PredicateHelper): every entry goes. */
void tph_fit_cache_pass(tph_fit_cache *c);
/* Whether the cache applies to the task: on, and the task has a job and a role. */
bool tph_fit_cache_applies(const tph_fit_cache *c, tph_idx task);
/* The live entry of the task's (job, role); NULL when there is none or the cache does not
 * apply. Entries move when one is made: hold a pointer only until the next get. */
tph_fit_role *tph_fit_cache_find(tph_fit_cache *c, tph_idx task);
/* The same, made live when missing (no failure, no follower); NULL when the cache does not
 * apply or out of memory. */
tph_fit_role *tph_fit_cache_get(tph_fit_cache *c, tph_idx task);

/* Cache a failure of `node` for a live entry, unless one is cached already: the first reason
 * stays, as a scan by a task of the role keeps it (`code` is ignored by a cache that keeps no
 * reasons). */
static inline void tph_fit_role_put(tph_fit_role *r, tph_idx node, tph_reason_code code)
{
	uint64_t bit = (uint64_t)1 << (node % 64);
	if (!(r->bits[node / 64] & bit)) {
		r->bits[node / 64] |= bit;
		if (r->code)
			r->code[node] = code;
	}
	r->failed = true;
}

/* Whether a failure of `node` is cached for a live entry... */
static inline bool tph_fit_role_has(const tph_fit_role *r, tph_idx node)
{
	return r->failed && (r->bits[node / 64] >> (node % 64) & 1);
}

/* ... and its reason, TPH_PASS when none (a cache that keeps reasons). */
static inline tph_reason_code tph_fit_role_code(const tph_fit_role *r, tph_idx node)
{
	return tph_fit_role_has(r, node) ? r->code[node] : TPH_PASS;
}

/* ---- close ---- */

/* The pending rows of the decision log: every task still Pending, with its reasons (strings
 * in the session arena, made once per distinct record). */
int tph_fitlog_rows(tph_session *s, const tph_pending_row **out, uint32_t *n_out);
/* The reasons record of `task`: its pairs (count, code) at *out, as many as returned (0: no
 * record). Valid until tph_fitlog_drop. */
uint32_t tph_fitlog_pairs(const tph_session *s, tph_idx task, const uint32_t **out);
/* The text of one pair without its count: the reason, the literal or the skip message. */
const char *tph_fitlog_pair_text(tph_session *s, tph_idx task, const uint32_t *pair);
/* Free the heap parts once the rows are built: nothing is recorded or read after that. */
void tph_fitlog_drop(tph_session *s);

/* ---- private to fitlog*.c ---- */

typedef struct tph_fitlog {
	tph_seqtab seqs; /* values in the session arena, index on the heap */
	/* Heap [task], 0: no record; each allocated at its first record. `why` sequences are
	 * pairs (count, reason code) in code order; count 0 marks a literal (fitlog_rows.c). */
	uint32_t *why, *unres;
	uint32_t *scratch; /* heap: a record being built (reason histogram, then pairs or nodes) */
	uint32_t cap_scratch;
	const char **texts; /* heap: the task-level reasons, by literal index */
	uint32_t n_texts, cap_texts;
	tph_fit_roles *roles[2]; /* heap: by job, by subjob (fitlog.c); made on first read */
	uint32_t n_roles[2];
} tph_fitlog;

/* A literal pair (0, SKIP) stands for the skip message. */
#define TPH_FITLOG_SKIP UINT32_MAX

#endif

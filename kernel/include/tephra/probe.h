/* Probes: one extension-point pass over an open session, outside any action, and the session's
 * profile counters. Benchmarks time filtering, scoring and statements through these; hosts can
 * ask "where would this task fit" without running the conf's actions. A probe sees exactly what
 * an action sees at that moment (same fit check, same combination rules, same threads).
 *
 * Like actions, probes run on the session's thread and must not be called from a plugin
 * callback. Node and task indices are the session's dense indices (see plugin.h). */
#ifndef TEPHRA_PROBE_H
#define TEPHRA_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "tephra/plugin.h"
#include "tephra/status.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

/* The candidate nodes of the session (ready nodes, in snapshot order) and their count. The
 * array belongs to the session. */
uint32_t tph_session_candidates(const tph_session *s, const tph_idx **nodes);

/* Volcano's task status of a task now ("Pending", "Running", "Binding", ...), or NULL for an
 * index out of range. */
const char *tph_session_task_status(const tph_session *s, tph_idx task);

/* Resource fit, then every predicate, of `task` over nodes[0..n) (NULL: the candidates, and n
 * is ignored). feasible_out needs room for n (or the candidate count) and receives the
 * feasible nodes in input order; returns how many. Nothing is recorded in the session. */
uint32_t tph_session_filter(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                            tph_idx *feasible_out);

/* Volcano's PrioritizeNodes for `task` over nodes[0..n): total_out[i] is the score of
 * nodes[i] (reduce + order + batch, as actions rank them). n <= tph_session_node_count().
 * Every total is NaN when a BatchNodeOrder plugin failed (tph_score_fail): Volcano then has no
 * score for any node of the call. */
void tph_session_score(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                       double *total_out);

/* Memory a session holds, in bytes. `arena`: handed out by the session arena (columns, plugin
 * state, the decision log). `heap`: blocks tephra's allocator (tph_allocator) handed out on the
 * session's thread while the session was open, running its actions, closing or serving a probe,
 * and that are not freed yet (action scratch is freed when its action ends; plugins free theirs
 * at close); sizes as requested. Blocks an OpenMP worker allocates are not counted. `peak`: the
 * largest arena + heap at any moment since open. Arena chunk slack (at most a chunk) and
 * allocator overhead are not included. */
typedef struct tph_session_memory {
	size_t arena;
	size_t heap;
	size_t peak;
} tph_session_memory;

tph_session_memory tph_session_mem(const tph_session *s);

/* arena + heap of tph_session_mem: all the memory the session holds now. */
size_t tph_session_bytes(const tph_session *s);

/* ---- statements ---- */

/* A statement outside any action: allocations are applied to the session (event handlers
 * fire, as in an action) and undone by discard, which restores every column bit for bit.
 * Nothing is ever committed, so the decision log is unaffected. */
typedef struct tph_probe_stmt tph_probe_stmt;

int tph_probe_stmt_begin(tph_session *s, tph_probe_stmt **out);
/* Allocate a Pending task on a node: TPH_OK, TPH_EINVAL for a task that is not Pending or a
 * node out of range, or the status of an event handler that refused (nothing changed). */
int tph_probe_stmt_allocate(tph_probe_stmt *p, tph_idx task, tph_idx node);
/* Undo every allocation, newest first; the statement stays usable. */
void tph_probe_stmt_discard(tph_probe_stmt *p);
/* Discard and free. NULL is a no-op. */
void tph_probe_stmt_end(tph_probe_stmt *p);

/* ---- profile (tph_session_opts.profile) ---- */

typedef struct tph_profile_row {
	const char *ep; /* the extension point: "Predicate", "NodeOrder", "JobOrder", ... */
	uint64_t calls; /* dispatcher calls (one per filter, score, comparison, vote, ...) */
	uint64_t nodes; /* nodes evaluated: filter (Predicate) and score (NodeOrder) only */
	double ms;      /* wall time inside filter and score; 0 for the others */
} tph_profile_row;

/* The extension points called at least once so far, in tph_ep order. Filtering counts as
 * Predicate (resource fit included), scoring as NodeOrder (map, reduce and batch included).
 * TPH_DECLINED (and *n = 0) when the session was not opened with opts.profile. The rows
 * belong to the session and are rewritten by the next call. */
int tph_session_profile(const tph_session *s, const tph_profile_row **rows, uint32_t *n);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif

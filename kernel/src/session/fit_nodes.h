/* The session's fit records. Why each task is still pending (Volcano's FitErrors, formatted
 * only at close), and job.NodesFitErrors as preempt and reclaim read it: for each task whose
 * last placement attempt in this session failed, the nodes that failed it
 * UnschedulableAndUnresolvable (FilterOutUnschedulableAndUnresolvableNodesForTask skips them).
 * Allocate and backfill record; preempt and reclaim read.
 *
 * A record is a 4-byte id per task into interned sequences (seqtab.h): tasks failing alike
 * share one stored copy, so recording costs no memory per attempt. Session thread only. */
#ifndef TPH_FIT_NODES_H
#define TPH_FIT_NODES_H

#include "base/seqtab.h"
#include "session/session_int.h"

typedef struct tph_fitlog {
	tph_seqtab seqs; /* values in the session arena, index on the heap */
	/* Heap [task], 0: no record; each allocated at its first record. `why` sequences are
	 * pairs (count, reason code) in code order; count 0 marks a literal (see pending.c). */
	uint32_t *why, *unres;
	uint32_t *scratch; /* heap: a record being built (reason histogram, then pairs or nodes) */
	uint32_t cap_scratch;
	const char **texts; /* heap: literal reasons recorded with tph_record_pending_reason */
	uint32_t n_texts, cap_texts;
} tph_fitlog;

/* The session's fit records, created on first use; NULL when out of memory. */
tph_fitlog *tph_fitlog_of(tph_session *s);
/* Room for `n` values in fl->scratch. */
int tph_fitlog_scratch(tph_fitlog *fl, uint32_t n);
/* *col, allocated zeroed for every task if it was NULL; NULL when out of memory. */
uint32_t *tph_fitlog_column(tph_session *s, uint32_t **col);
/* Free the heap parts once the pending reasons are built at close: no record is made or read
 * after that, and the session no longer holds them. */
void tph_fitlog_drop(tph_session *s);

/* The task found no node: codes[i] is the verdict on nodes[i]. Replaces the task's record
 * (job.NodesFitErrors[task] = fitErrors). Failures that are not unresolvable are not kept. */
int tph_record_fit_nodes(tph_session *s, tph_idx task, const tph_idx *nodes,
                         const tph_reason_code *codes, uint32_t n);
/* Forget the record of every task of `job` (Volcano's job.ResetFitErr)... */
void tph_reset_fit_nodes(tph_session *s, tph_idx job);
/* ... or of one task. */
void tph_clear_fit_nodes(tph_session *s, tph_idx task);
/* The nodes to skip for `task` (in recording order); 0 when none were recorded. */
uint32_t tph_unresolvable_nodes(const tph_session *s, tph_idx task, const tph_idx **out);

/* A task has a pending-reason record (fit errors or a literal), possibly with no reasons. */
bool tph_task_has_fit_errors(const tph_session *s, tph_idx task);
/* Forget a task's pending reasons. */
void tph_clear_fit_errors(tph_session *s, tph_idx task);
/* Record allocate's "Task <name> with role spec <role> has already predicated failed, skip"
 * for `task` (formatted at close). */
int tph_record_skip(tph_session *s, tph_idx task);

#endif

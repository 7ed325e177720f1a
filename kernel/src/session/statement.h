/* Statements: allocate / pipeline / evict recorded with what undoing them needs; commit
 * publishes them to the decision log, discard undoes them in reverse and restores every
 * session column bit for bit. Event handlers fire as in Volcano; an error from one rolls the
 * operation back. */
#ifndef TPH_STATEMENT_H
#define TPH_STATEMENT_H

#include "session/session_int.h"

typedef enum tph_op_kind {
	TPH_OP_ALLOCATE = 0,
	TPH_OP_PIPELINE = 1,
	TPH_OP_EVICT = 2,
} tph_op_kind;

typedef struct tph_stmt_op {
	uint8_t kind;
	uint8_t prev_status;
	tph_idx task, node, prev_node;
	const char *reason;
} tph_stmt_op;

/* A bind annotation a plugin set (tph_task_annotate): one per task and key, in the task's
 * list (tph_session.ann). value NULL: removed. Session arena; written on the session thread. */
typedef struct tph_ann {
	struct tph_ann *next;
	const char *key, *value;
} tph_ann;

/* What undoing an annotation set during operation `op` restores. */
typedef struct tph_stmt_ann {
	tph_ann *ann;
	const char *prev;
	uint32_t op;
} tph_stmt_ann;

typedef struct tph_statement {
	tph_session *s;
	tph_stmt_op *ops;
	uint32_t n, cap;
	/* Annotations the event handlers of ops[op] set, in the order they were set: discarding
	 * ops[op] restores them first (Volcano's predicates drop the device annotations on
	 * deallocate). */
	tph_stmt_ann *anns;
	uint32_t n_ann, cap_ann;
} tph_statement;

void tph_stmt_init(tph_statement *st, tph_session *s);
int tph_stmt_allocate(tph_statement *st, tph_idx task, tph_idx node);
int tph_stmt_pipeline(tph_statement *st, tph_idx task, tph_idx node);
int tph_stmt_evict(tph_statement *st, tph_idx task, const char *reason);
/* Volcano's Session.Allocate (backfill): the task is Allocated on `node` outside any
 * statement, every allocate handler runs and their failures are ignored. */
void tph_ssn_allocate(tph_session *s, tph_idx task, tph_idx node);
/* Publish: allocations become Binding and binds, evictions and pipelines are logged. */
int tph_stmt_commit(tph_statement *st);
/* Undo every operation in reverse. */
void tph_stmt_discard(tph_statement *st);
/* Record that a handler of the statement's last operation changed `ann` from `prev` (called
 * by tph_task_annotate while the statement is the session's current one). */
int tph_stmt_note_ann(tph_statement *st, tph_ann *ann, const char *prev);
/* Move src's operations after dst's (src is left empty). */
int tph_stmt_merge(tph_statement *dst, tph_statement *src);
void tph_stmt_free(tph_statement *st);

/* Append r to one of the session's decision-log lists (rows[0..*n), growing *cap). Shared
 * with the actions' logging of what no commit publishes. TPH_ENOMEM when out of memory. */
int tph_log_push(tph_log_row **rows, uint32_t *n, uint32_t *cap, tph_log_row r);

/* Change a task's status (and node) with node and job accounting, no events. Shared by the
 * statement and the actions' direct updates. */
void tph_task_move(tph_session *s, tph_idx task, uint8_t status, tph_idx node);

#endif

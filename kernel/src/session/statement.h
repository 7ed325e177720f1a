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

typedef struct tph_statement {
	tph_session *s;
	tph_stmt_op *ops;
	uint32_t n, cap;
} tph_statement;

void tph_stmt_init(tph_statement *st, tph_session *s);
int tph_stmt_allocate(tph_statement *st, tph_idx task, tph_idx node);
int tph_stmt_pipeline(tph_statement *st, tph_idx task, tph_idx node);
int tph_stmt_evict(tph_statement *st, tph_idx task, const char *reason);
/* Publish: allocations become Binding and binds, evictions and pipelines are logged. */
int tph_stmt_commit(tph_statement *st);
/* Undo every operation in reverse. */
void tph_stmt_discard(tph_statement *st);
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

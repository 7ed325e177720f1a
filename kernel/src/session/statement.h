/* Statements: allocate / pipeline / evict recorded with what undoing them needs; commit
 * publishes them to the decision log, discard undoes them in reverse and restores every
 * session column bit for bit. Event handlers fire as in Volcano; an error from one rolls the
 * operation back. The decision log (binds, evictions, pipelined) has no other writer: what
 * Volcano publishes outside a commit (Session.dispatch, a pipelined job's kept statement)
 * goes through the operations below too, so its rows keep the order they were made in. */
#ifndef TPH_STATEMENT_H
#define TPH_STATEMENT_H

#include "session/session_int.h"

typedef enum tph_op_kind {
	TPH_OP_ALLOCATE = 0,
	TPH_OP_PIPELINE = 1,
	TPH_OP_EVICT = 2,
	TPH_OP_DISPATCH = 3, /* applied at commit only: nothing to undo */
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
/* Volcano's Session.dispatch of a task already Allocated (by a statement that was not
 * committed, as Session.Allocate leaves it): at commit it becomes Binding and binds. */
int tph_stmt_dispatch(tph_statement *st, tph_idx task);
/* Publish: allocations and dispatches become Binding and binds, evictions and pipelines are
 * logged. */
int tph_stmt_commit(tph_statement *st);
/* Keep without commit (a pipelined job): log the pipelines, leave every operation in place
 * and free the statement. */
int tph_stmt_keep(tph_statement *st);
/* Undo every operation in reverse. */
void tph_stmt_discard(tph_statement *st);
/* Record that a handler of the statement's last operation changed `ann` from `prev` (called
 * by tph_task_annotate while the statement is the session's current one). */
int tph_stmt_note_ann(tph_statement *st, tph_ann *ann, const char *prev);
/* Move src's operations after dst's (src is left empty). */
int tph_stmt_merge(tph_statement *dst, tph_statement *src);
void tph_stmt_free(tph_statement *st);

/* Change a task's status (and node) with node and job accounting, no events. Shared by the
 * statement and the actions' direct updates. */
void tph_task_move(tph_session *s, tph_idx task, uint8_t status, tph_idx node);

#endif

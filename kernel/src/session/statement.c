/* Statement operations and their exact inverses over the session's mutable columns. */
#include "statement.h"

#include "ep.h"
#include "jobwhy.h"
#include "session/topo/hypernode.h"
#include "session/topo/subjob.h"
#include "base/mem.h"

/* Volcano's NodeInfo.AddTask (sign +1) and RemoveTask (sign -1) accounting for one status. */
static void node_account(tph_session *s, tph_idx t, tph_idx n, uint8_t status, int sign)
{
	if (n == TPH_NOIDX)
		return;
	const int64_t *req = s->tasks.req + (size_t)t * s->ndim;
	size_t stride = s->nodes.stride;
	bool holds = tph_ts_allocated(status) || status == TPH_TS_RELEASING;
	if (!holds && status != TPH_TS_PIPELINED)
		return;
	for (uint32_t d = 0; d < s->ndim; d++) {
		int64_t v = sign * req[d];
		size_t i = d * stride + n;
		if (status == TPH_TS_PIPELINED) {
			s->nodes.pipelined[i] += v;
			continue;
		}
		s->nodes.idle[i] -= v;
		s->nodes.used[i] += v;
		if (status == TPH_TS_RELEASING)
			s->nodes.releasing[i] += v;
	}
	if (status != TPH_TS_PIPELINED) {
		int64_t *cm = s->nodes.cm + (size_t)n * TPH_NODE_CM;
		cm[TPH_CM_USED_CPU] += sign * req[TPH_RES_CPU];
		cm[TPH_CM_USED_MEM] += sign * req[TPH_RES_MEMORY];
	}
	s->nodes.ntasks[n] += (uint32_t)sign;
}

/* The job's status counts and allocated sums for a task going from `old` to `now`. */
static void job_account(tph_session *s, tph_idx t, uint8_t old, uint8_t now)
{
	tph_idx j = s->tasks.job[t];
	if (j == TPH_NOIDX)
		return;
	s->js.count[(size_t)j * TPH_TS_COUNT + old]--;
	s->js.count[(size_t)j * TPH_TS_COUNT + now]++;
	int sign = (int)tph_ts_allocated(now) - (int)tph_ts_allocated(old);
	if (!sign)
		return;
	const int64_t *req = s->tasks.req + (size_t)t * s->ndim;
	for (uint32_t d = 0; d < s->ndim; d++)
		s->js.allocated[(size_t)j * s->ndim + d] += sign * req[d];
}

/* How NodeInfo counts a status: not at all, held, held and releasing, or pipelined. */
static int node_class(uint8_t status)
{
	if (status == TPH_TS_RELEASING)
		return 2;
	if (tph_ts_allocated(status))
		return 1;
	return status == TPH_TS_PIPELINED ? 3 : 0;
}

void tph_task_move(tph_session *s, tph_idx task, uint8_t status, tph_idx node)
{
	uint8_t old = s->tasks.status[task];
	tph_idx old_node = s->tasks.node[task];
	/* Allocated to Binding on the same node (every commit) leaves the node and hypernode
	 * sums as they were: removing and adding the same request would cancel out. */
	bool same = node == old_node && node_class(old) == node_class(status);
	if (!same)
		node_account(s, task, old_node, old, -1);
	job_account(s, task, old, status);
	s->tasks.status[task] = status;
	s->tasks.node[task] = node;
	if (same) {
		if (s->topo)
			tph_subjobs_task_moved(s, task, old, old_node);
		return;
	}
	node_account(s, task, node, status, +1);
	tph_topo_task_moved(s, task, old, old_node);
}

void tph_stmt_init(tph_statement *st, tph_session *s)
{
	*st = (tph_statement){.s = s};
}

void tph_stmt_free(tph_statement *st)
{
	tph_free(st->ops);
	tph_free(st->anns);
	*st = (tph_statement){.s = st->s};
}

/* Restore the annotations set by the handlers of ops[from..]: newest first. */
static void undo_anns(tph_statement *st, uint32_t from)
{
	while (st->n_ann && st->anns[st->n_ann - 1].op >= from) {
		const tph_stmt_ann *a = &st->anns[--st->n_ann];
		a->ann->value = a->prev;
	}
}

int tph_stmt_note_ann(tph_statement *st, tph_ann *ann, const char *prev)
{
	if (tph_grow(&st->anns, &st->cap_ann, st->n_ann + 1, sizeof *st->anns))
		return TPH_ENOMEM;
	st->anns[st->n_ann++] = (tph_stmt_ann){ann, prev, st->n - 1};
	return TPH_OK;
}

static int record(tph_statement *st, uint8_t kind, tph_idx task, tph_idx node, const char *reason)
{
	if (tph_grow(&st->ops, &st->cap, st->n + 1, sizeof *st->ops))
		return TPH_ENOMEM;
	tph_session *s = st->s;
	st->ops[st->n++] =
	    (tph_stmt_op){kind, s->tasks.status[task], task, node, s->tasks.node[task], reason};
	return TPH_OK;
}

/* Apply an operation; fire its event; undo it when a handler refuses. While the handlers run
 * the statement is the session's current one, so annotations they set are recorded here. */
static int apply(tph_statement *st, uint8_t kind, tph_idx task, tph_idx node, const char *why)
{
	tph_session *s = st->s;
	int rc = record(st, kind, task, node, why);
	if (rc)
		return rc;
	uint32_t at = st->n - 1;
	tph_stmt_op op = st->ops[at];
	static const uint8_t to[] = {TPH_TS_ALLOCATED, TPH_TS_PIPELINED, TPH_TS_RELEASING};
	tph_task_move(s, task, to[kind], kind == TPH_OP_EVICT ? op.prev_node : node);
	tph_statement *outer = s->stmt;
	s->stmt = st;
	rc = kind == TPH_OP_EVICT ? tph_fire_deallocate(s, task) : tph_fire_allocate(s, task);
	s->stmt = outer;
	if (rc) {
		undo_anns(st, at);
		tph_task_move(s, task, op.prev_status, op.prev_node);
		st->n = at;
	}
	return rc;
}

void tph_ssn_allocate(tph_session *s, tph_idx task, tph_idx node)
{
	tph_task_move(s, task, TPH_TS_ALLOCATED, node);
	tph_fire_allocate_all(s, task);
}

int tph_stmt_allocate(tph_statement *st, tph_idx task, tph_idx node)
{
	return apply(st, TPH_OP_ALLOCATE, task, node, NULL);
}

int tph_stmt_pipeline(tph_statement *st, tph_idx task, tph_idx node)
{
	return apply(st, TPH_OP_PIPELINE, task, node, NULL);
}

int tph_stmt_evict(tph_statement *st, tph_idx task, const char *reason)
{
	return apply(st, TPH_OP_EVICT, task, TPH_NOIDX, reason);
}

int tph_stmt_dispatch(tph_statement *st, tph_idx task)
{
	return record(st, TPH_OP_DISPATCH, task, st->s->tasks.node[task], NULL);
}

void tph_stmt_discard(tph_statement *st)
{
	tph_session *s = st->s;
	while (st->n) {
		tph_stmt_op *op = &st->ops[--st->n];
		undo_anns(st, st->n);
		if (op->kind == TPH_OP_DISPATCH)
			continue;
		tph_jobwhy_discarded(s, op->task, s->tasks.status[op->task]);
		tph_task_move(s, op->task, op->prev_status, op->prev_node);
		/* Volcano's unevict re-allocates; unallocate/unpipeline deallocate. */
		if (op->kind == TPH_OP_EVICT)
			tph_fire_allocate(s, op->task);
		else
			tph_fire_deallocate(s, op->task);
	}
	tph_stmt_free(st);
}

static int log_push(tph_log_row **rows, uint32_t *n, uint32_t *cap, tph_log_row r)
{
	if (tph_grow(rows, cap, *n + 1, sizeof **rows))
		return TPH_ENOMEM;
	(*rows)[(*n)++] = r;
	return TPH_OK;
}

static int commit_op(tph_session *s, const tph_stmt_op *op)
{
	tph_log *l = &s->log;
	tph_log_row r = {op->task, op->node};
	tph_jobwhy_committed(s, op->task);
	switch (op->kind) {
	case TPH_OP_ALLOCATE:
	case TPH_OP_DISPATCH:
		tph_task_move(s, op->task, TPH_TS_BINDING, op->node);
		return log_push(&l->binds, &l->n_binds, &l->cap_binds, r);
	case TPH_OP_PIPELINE:
		return log_push(&l->pipelined, &l->n_pipelined, &l->cap_pipelined, r);
	default:
		if (tph_grow(&l->reasons, &l->cap_reasons, l->n_evictions + 1, sizeof *l->reasons))
			return TPH_ENOMEM;
		l->reasons[l->n_evictions] = op->reason;
		r.node = op->prev_node;
		return log_push(&l->evictions, &l->n_evictions, &l->cap_evictions, r);
	}
}

int tph_stmt_commit(tph_statement *st)
{
	int rc = TPH_OK;
	for (uint32_t i = 0; i < st->n && !rc; i++)
		rc = commit_op(st->s, &st->ops[i]);
	tph_stmt_free(st);
	return rc;
}

int tph_stmt_keep(tph_statement *st)
{
	int rc = TPH_OK;
	for (uint32_t i = 0; i < st->n && !rc; i++)
		if (st->ops[i].kind == TPH_OP_PIPELINE)
			rc = commit_op(st->s, &st->ops[i]);
	tph_stmt_free(st);
	return rc;
}

int tph_stmt_merge(tph_statement *dst, tph_statement *src)
{
	if (tph_grow(&dst->ops, &dst->cap, dst->n + src->n, sizeof *dst->ops) ||
	    tph_grow(&dst->anns, &dst->cap_ann, dst->n_ann + src->n_ann, sizeof *dst->anns))
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < src->n_ann; i++) {
		dst->anns[dst->n_ann] = src->anns[i];
		dst->anns[dst->n_ann++].op += dst->n;
	}
	for (uint32_t i = 0; i < src->n; i++)
		dst->ops[dst->n++] = src->ops[i];
	tph_stmt_free(src);
	return TPH_OK;
}

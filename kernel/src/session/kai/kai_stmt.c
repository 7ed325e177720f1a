/* KAI's Statement (framework/statement.go): allocate and pipeline are virtual — the session
 * state, the node ledger and the plugins' accounting (event handlers) change at once, and every
 * change is logged so a checkpoint can be rolled back and a discarded statement leaves nothing.
 * Commit turns Allocated tasks into binds (Binding) and keeps Pipelined ones as pipelined. */
#include "kai_int.h"

#include "base/mem.h"

static void fire(tph_kai_session *s, uint32_t t, int32_t node, int sign)
{
	const tph_kai_hooks *h = &s->events;
	for (uint32_t i = 0; i < h->n; i++)
		((tph_kai_event_fn)h->items[i].fn)(h->items[i].state, s, t, node, sign);
}

static int place(tph_kai_session *s, uint32_t t, uint32_t n, uint8_t st)
{
	if (tph_grow(&s->ops, &s->cap_ops, s->n_ops + 1, sizeof *s->ops))
		return TPH_ENOMEM;
	s->ops[s->n_ops++] = (tph_kai_op){t, (int32_t)n, s->status[t], st};
	s->status[t] = st;
	s->node[t] = (int32_t)n;
	tph_kai_ledger_take(s, t, n, st, +1);
	fire(s, t, (int32_t)n, +1);
	return TPH_OK;
}

int tph_kai_stmt_allocate(tph_kai_session *s, uint32_t t, uint32_t n)
{
	return place(s, t, n, TPH_KAI_TS_ALLOCATED);
}

int tph_kai_stmt_pipeline(tph_kai_session *s, uint32_t t, uint32_t n)
{
	return place(s, t, n, TPH_KAI_TS_PIPELINED);
}

/* A converted task stays on its node but now claims releasing resources, not idle ones. */
void tph_kai_stmt_to_pipelined(tph_kai_session *s, uint32_t j)
{
	for (uint32_t i = 0; i < s->n_ops; i++) {
		tph_kai_op *o = &s->ops[i];
		if (o->now != TPH_KAI_TS_ALLOCATED || s->v->tasks.job[o->task] != (int32_t)j ||
		    s->status[o->task] != TPH_KAI_TS_ALLOCATED)
			continue;
		s->gpu_keep = true; /* same devices: the pod's gpuGroups stay */
		tph_kai_ledger_take(s, o->task, (uint32_t)o->node, TPH_KAI_TS_ALLOCATED, -1);
		tph_kai_ledger_take(s, o->task, (uint32_t)o->node, TPH_KAI_TS_PIPELINED, +1);
		s->gpu_keep = false;
		o->now = TPH_KAI_TS_PIPELINED;
		s->status[o->task] = TPH_KAI_TS_PIPELINED;
	}
}

void tph_kai_stmt_rollback(tph_kai_session *s, uint32_t checkpoint)
{
	while (s->n_ops > checkpoint) {
		tph_kai_op o = s->ops[--s->n_ops];
		fire(s, o.task, o.node, -1);
		tph_kai_ledger_take(s, o.task, (uint32_t)o.node, o.now, -1);
		s->status[o.task] = o.was;
		s->node[o.task] = -1;
	}
}

int tph_kai_stmt_commit(tph_kai_session *s)
{
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < s->n_ops; i++) {
		tph_kai_op o = s->ops[i];
		if (o.now == TPH_KAI_TS_ALLOCATED) {
			s->status[o.task] = TPH_KAI_TS_BINDING;
			rc = tph_kai_record_bind(s, o.task, o.node);
		} else {
			rc = tph_kai_record_pipelined(s, o.task, o.node);
		}
	}
	s->n_ops = 0;
	return rc;
}

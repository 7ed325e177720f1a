/* KAI's Statement (framework/statement.go): allocate, pipeline and evict are virtual — the
 * session state, the node ledger and the plugins' accounting (event handlers) change at once,
 * and every change is logged so a checkpoint can be rolled back and a discarded statement
 * leaves nothing. Commit turns Allocated tasks into binds (Binding), keeps Pipelined ones as
 * pipelined and records the evictions that stand. */
#include "kai_int.h"

#include "base/mem.h"

#include <string.h>

static void fire(tph_kai_session *s, uint32_t t, int32_t node, int sign)
{
	const tph_kai_hooks *h = &s->events;
	int32_t j = s->v->tasks.job[t];
	for (int32_t q = j < 0 ? -1 : s->v->jobs.queue[j]; q >= 0; q = s->v->queues.parent[q])
		s->queue_gen[q]++;
	for (uint32_t i = 0; i < h->n; i++)
		((tph_kai_event_fn)h->items[i].fn)(h->items[i].state, s, t, node, sign);
}

static int log_op(tph_kai_session *s, tph_kai_op o)
{
	if (tph_grow(&s->ops, &s->cap_ops, s->n_ops + 1, sizeof *s->ops))
		return TPH_ENOMEM;
	s->ops[s->n_ops++] = o;
	return TPH_OK;
}

/* Room for k more saved device ids on the stack beside ops. */
static int reserve_devs(tph_kai_session *s, uint32_t k)
{
	return tph_grow(&s->op_devs, &s->cap_op_devs, s->n_op_devs + k, sizeof *s->op_devs)
	           ? TPH_ENOMEM
	           : TPH_OK;
}

/* Task t between Releasing and an active status on its own node: the ledger follows, and a
 * shared pod keeps its devices (its gpuGroups do not change). */
static void swap_in_place(tph_kai_session *s, uint32_t t, uint8_t from_st, uint8_t to_st)
{
	uint32_t n = (uint32_t)s->node[t];
	s->gpu_keep = true;
	tph_kai_ledger_take(s, t, n, from_st, -1);
	tph_kai_ledger_take(s, t, n, to_st, +1);
	s->gpu_keep = false;
	s->status[t] = to_st;
	tph_kai_touch(s, t);
}

void tph_kai_release_now(tph_kai_session *s, uint32_t t)
{
	if (s->node[t] >= 0 && tph_kai_active_used(s->status[t])) {
		swap_in_place(s, t, s->status[t], TPH_KAI_TS_RELEASING);
		fire(s, t, s->node[t], -1);
	}
	s->status[t] = TPH_KAI_TS_RELEASING;
	tph_kai_touch(s, t);
}

/* A victim evicted in this statement pipelined back onto its own node is unevicted. */
static int unevict(tph_kai_session *s, uint32_t t)
{
	uint32_t i = s->n_ops;
	while (i > 0 && !(s->ops[i - 1].task == t && s->ops[i - 1].kind == TPH_KAI_OP_EVICT))
		i--;
	uint8_t back = s->ops[i - 1].was;
	int rc =
	    log_op(s, (tph_kai_op){t, s->node[t], s->node[t], s->n_op_devs, 0, TPH_KAI_TS_RELEASING,
	                           back, TPH_KAI_OP_UNEVICT, s->virt[t]});
	if (rc < 0)
		return rc;
	s->virt[t] = 0;
	swap_in_place(s, t, TPH_KAI_TS_RELEASING, back);
	fire(s, t, s->node[t], +1);
	return TPH_OK;
}

/* KAI unevicts a victim pipelined back where it was: its node and, for a shared pod, the
 * same devices in the same order (its gpuGroups; other devices of the same node are a move).
 * The pick is written past the top of the device stack, which reserve_devs made room for. */
static bool same_place(tph_kai_session *s, uint32_t t, uint32_t n)
{
	if (s->node[t] != (int32_t)n || !tph_kai_gpu_shared(s, t))
		return s->node[t] == (int32_t)n;
	const int32_t *have = s->task_devs + s->task_dev_first[t];
	int32_t *pick = s->op_devs + s->n_op_devs;
	bool later;
	int32_t got = tph_kai_gpu_pick(s, t, n, pick, &later);
	if (got < 0 || (uint32_t)got != s->task_n_dev[t])
		return false;
	for (uint32_t i = 0; i < (uint32_t)got; i++)
		if (pick[i] != have[i])
			return false;
	return true;
}

/* Logs placing task t on n, saving the devices it held (a moved victim's old ones). */
static int log_place(tph_kai_session *s, uint32_t t, uint32_t n, uint8_t st)
{
	uint32_t k = s->task_n_dev[t];
	tph_kai_op o = {t,  (int32_t)n,       s->node[t], s->n_op_devs, k, s->status[t],
	                st, TPH_KAI_OP_PLACE, s->virt[t]};
	int rc = log_op(s, o);
	if (rc < 0)
		return rc;
	if (k) /* op_devs stays NULL while no shared pod moved */
		memcpy(s->op_devs + s->n_op_devs, s->task_devs + s->task_dev_first[t],
		       k * sizeof *s->op_devs);
	s->n_op_devs += k;
	return TPH_OK;
}

static int place(tph_kai_session *s, uint32_t t, uint32_t n, uint8_t st)
{
	/* room for the saved devices and, before them, same_place's pick */
	uint32_t room = s->task_dev_first[t + 1] - s->task_dev_first[t];
	if (reserve_devs(s, room) < 0)
		return TPH_ENOMEM;
	if (s->virt[t] && st == TPH_KAI_TS_PIPELINED && same_place(s, t, n))
		return unevict(s, t);
	int rc = log_place(s, t, n, st);
	if (rc < 0)
		return rc;
	s->status[t] = st;
	s->node[t] = (int32_t)n;
	tph_kai_touch(s, t);
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

int tph_kai_stmt_evict(tph_kai_session *s, uint32_t t)
{
	int rc = log_op(s, (tph_kai_op){t, s->node[t], s->node[t], s->n_op_devs, 0, s->status[t],
	                                TPH_KAI_TS_RELEASING, TPH_KAI_OP_EVICT, s->virt[t]});
	if (rc < 0)
		return rc;
	swap_in_place(s, t, s->status[t], TPH_KAI_TS_RELEASING);
	s->virt[t] = 1;
	fire(s, t, s->node[t], -1);
	return TPH_OK;
}

/* A converted task stays on its node but now claims releasing resources, not idle ones. */
void tph_kai_stmt_to_pipelined(tph_kai_session *s, uint32_t j)
{
	for (uint32_t i = 0; i < s->n_ops; i++) {
		tph_kai_op *o = &s->ops[i];
		if (o->kind != TPH_KAI_OP_PLACE || o->now != TPH_KAI_TS_ALLOCATED ||
		    s->v->tasks.job[o->task] != (int32_t)j ||
		    s->status[o->task] != TPH_KAI_TS_ALLOCATED)
			continue;
		s->gpu_keep = true; /* same devices: the pod's gpuGroups stay */
		tph_kai_ledger_take(s, o->task, (uint32_t)o->node, TPH_KAI_TS_ALLOCATED, -1);
		tph_kai_ledger_take(s, o->task, (uint32_t)o->node, TPH_KAI_TS_PIPELINED, +1);
		s->gpu_keep = false;
		o->now = TPH_KAI_TS_PIPELINED;
		s->status[o->task] = TPH_KAI_TS_PIPELINED;
		tph_kai_touch(s, o->task);
	}
}

void tph_kai_stmt_rollback(tph_kai_session *s, uint32_t checkpoint)
{
	while (s->n_ops > checkpoint) {
		tph_kai_op o = s->ops[--s->n_ops];
		if (o.kind == TPH_KAI_OP_PLACE) {
			fire(s, o.task, o.node, -1);
			tph_kai_ledger_take(s, o.task, (uint32_t)o.node, o.now, -1);
			s->status[o.task] = o.was;
			s->node[o.task] = o.from;
			tph_kai_touch(s, o.task);
			/* a moved victim's old devices */
			if (o.n_devs)
				memcpy(s->task_devs + s->task_dev_first[o.task],
				       s->op_devs + o.devs_at, o.n_devs * sizeof *s->op_devs);
			s->task_n_dev[o.task] = o.n_devs;
			s->n_op_devs = o.devs_at;
		} else {
			fire(s, o.task, o.node, o.kind == TPH_KAI_OP_EVICT ? +1 : -1);
			s->virt[o.task] = o.virt;
			swap_in_place(s, o.task, o.now, o.was);
			s->n_op_devs = o.devs_at;
		}
		s->virt[o.task] = o.virt;
	}
}

/* An eviction stands unless its task was unevicted (came back to its place) later on. */
static bool evicted(const tph_kai_session *s, uint32_t i)
{
	for (uint32_t k = i + 1; k < s->n_ops; k++)
		if (s->ops[k].task == s->ops[i].task && s->ops[k].kind == TPH_KAI_OP_UNEVICT)
			return false;
	return true;
}

int tph_kai_stmt_commit(tph_kai_session *s)
{
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < s->n_ops; i++) {
		tph_kai_op o = s->ops[i];
		s->virt[o.task] = 0;
		tph_kai_touch(s, o.task);
		if (o.kind == TPH_KAI_OP_EVICT && evicted(s, i))
			rc = tph_kai_record_eviction(s, o.task);
		else if (o.kind != TPH_KAI_OP_PLACE)
			continue;
		else if (o.now == TPH_KAI_TS_ALLOCATED) {
			s->status[o.task] = TPH_KAI_TS_BINDING;
			rc = tph_kai_record_bind(s, o.task, o.node);
		} else {
			rc = tph_kai_record_pipelined(s, o.task, o.node);
		}
	}
	s->n_ops = 0;
	s->n_op_devs = 0;
	return rc;
}

/* gpushare cards (Volcano's nvidia/gpushare GPUDevices): a node's volcano.sh/gpu-memory split
 * evenly over volcano.sh/gpu-number cards, each held by the pods whose volcano.sh/gpu-index
 * lists it (their gpu-memory limit counts on each). A pod takes one card by memory
 * (GPUSharingEnable) or whole idle cards (GPUNumberEnable). */
#include "deviceshare.h"

#include <stdio.h>

#include "tephra/alloc.h"

/* getDevicesIdleGPUMemory: clamped at 0, never wrapped. */
static uint64_t idle(const ds_card *c)
{
	return c->used_mem >= c->memory ? 0 : c->memory - c->used_mem;
}

/* predicateGPUbyMemory's first card (the lowest index), DS_NONE. */
static uint32_t by_memory(const ds_st *st, const ds_node *n, uint64_t mem)
{
	for (uint32_t p = 0; p < n->n; p++)
		if (idle(ds_card_at(st, n, p)) >= mem)
			return p;
	return DS_NONE;
}

static uint32_t idle_cards(const ds_st *st, const ds_node *n)
{
	uint32_t k = 0;
	for (uint32_t p = 0; p < n->n; p++)
		k += ds_card_at(st, n, p)->n_users == 0;
	return k;
}

tph_reason_code ds_gs_filter(const ds_st *st, const ds_node *n, const ds_task *t)
{
	if (st->sharing && t->gs_mem > 0 && by_memory(st, n, t->gs_mem) == DS_NONE)
		return n->r_mem;
	if (st->number && t->gs_num > 0 && (int64_t)idle_cards(st, n) < t->gs_num)
		return n->r_num;
	return TPH_PASS;
}

/* dev.PodMap[uid] = pod. */
static int hold(ds_st *st, ds_card *c, tph_idx task)
{
	if (ds_user_of(c, task, false))
		return TPH_OK;
	ds_user *u = ds_user_of(c, task, true);
	if (!u)
		return TPH_ENOMEM;
	u->mem = st->t[task].gs_mem;
	c->used_mem += u->mem;
	return TPH_OK;
}

static void let_go(ds_card *c, tph_idx task)
{
	const ds_user *u = ds_user_of(c, task, false);
	if (!u)
		return;
	c->used_mem -= u->mem;
	ds_user_drop(c, task);
}

static ds_card *card_by_id(ds_st *st, const ds_node *n, int64_t id)
{
	for (uint32_t p = 0; p < n->n; p++)
		if (st->cards[n->first + p].id == id)
			return &st->cards[n->first + p];
	return NULL;
}

int ds_gs_add(ds_st *st, tph_idx task, tph_idx node)
{
	const ds_node *n = &st->nodes[node];
	const ds_task *x = &st->t[task];
	if ((!x->gs_mem && x->gs_num <= 0) || x->gs_ids == DS_NONE)
		return TPH_OK;
	int rc = TPH_OK;
	for (uint32_t i = 0; !rc && i < x->gs_n_ids; i++) {
		ds_card *c = card_by_id(st, n, st->ids[x->gs_ids + i]);
		rc = c ? hold(st, c, task) : TPH_OK;
	}
	return rc;
}

void ds_gs_remove(ds_st *st, tph_idx task, tph_idx node)
{
	const ds_node *n = &st->nodes[node];
	const ds_task *x = &st->t[task];
	if (x->gs_ids == DS_NONE) { /* GetGPUIndex's nil: every card lets go */
		for (uint32_t p = 0; p < n->n; p++)
			let_go(&st->cards[n->first + p], task);
		return;
	}
	for (uint32_t i = 0; i < x->gs_n_ids; i++) {
		ds_card *c = card_by_id(st, n, st->ids[x->gs_ids + i]);
		if (c)
			let_go(c, task);
	}
}

/* gpuIndexAnnotations: the cards' indices, comma-separated, and the predicate time. */
static int annotate(const ds_st *st, tph_session *s, tph_idx task, const ds_node *n,
                    const uint32_t *pos, uint32_t k)
{
	size_t cap = (size_t)k * 21 + 1, w = 0;
	char *buf = tph_malloc(cap);
	if (!buf)
		return TPH_ENOMEM;
	buf[0] = 0;
	for (uint32_t i = 0; i < k; i++)
		w += (size_t)snprintf(buf + w, cap - w, "%s%lld", i ? "," : "",
		                      (long long)ds_card_at(st, n, pos[i])->id);
	int rc = tph_task_annotate(s, task, "volcano.sh/predicate-time", st->now_ns);
	if (!rc)
		rc = tph_task_annotate(s, task, "volcano.sh/gpu-index", buf);
	tph_free(buf);
	return rc;
}

/* The cards Allocate takes into pos[0..*k): by memory when the pod has a memory limit
 * (whichever flag is on), else by number: the lowest-index idle cards (Volcano takes them in
 * map order; the format pins ascending). */
static bool pick(const ds_st *st, const ds_node *n, const ds_task *x, uint32_t *pos, uint32_t *k)
{
	*k = 0;
	if (x->gs_mem > 0) {
		pos[0] = by_memory(st, n, x->gs_mem);
		*k = pos[0] != DS_NONE;
		return *k;
	}
	if ((int64_t)idle_cards(st, n) < x->gs_num)
		return false;
	for (uint32_t p = 0; p < n->n && (int64_t)*k < x->gs_num; p++)
		if (!ds_card_at(st, n, p)->n_users)
			pos[(*k)++] = p;
	return true;
}

int ds_gs_allocate(ds_st *st, tph_session *s, tph_idx task, tph_idx node)
{
	const ds_node *n = &st->nodes[node];
	const ds_task *x = &st->t[task];
	if (!x->gs_mem && x->gs_num <= 0)
		return TPH_OK;
	uint32_t *pos = tph_malloc(((size_t)n->n + 1) * sizeof *pos), k;
	if (!pos)
		return TPH_ENOMEM;
	int rc = pick(st, n, x, pos, &k) ? annotate(st, s, task, n, pos, k) : TPH_ENOENT;
	for (uint32_t i = 0; !rc && i < k; i++)
		rc = hold(st, &st->cards[n->first + pos[i]], task);
	tph_free(pos);
	return rc;
}

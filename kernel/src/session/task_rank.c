/* A job's tasks ranked once in TaskOrder, when every TaskOrder plugin declared its key
 * (plugin.h's task order keys): the job's task queues (pq.c's tph_pq_init_tasks) then compare
 * two integers where tph_task_order asks every callback and helpers.CompareTask at each sift. */
#include "ep.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

/* One task's place in tph_task_order: the plugins' keys, the pod index when every task of the
 * job has one, creation time, uid, the task's index. */
typedef struct rank_item {
	const int64_t *key;
	uint32_t nk;
	tph_time creation;
	const char *uid;
	tph_idx t;
} rank_item;

static int by_key(const void *pa, const void *pb)
{
	const rank_item *a = pa, *b = pb;
	for (uint32_t i = 0; i < a->nk; i++)
		if (a->key[i] != b->key[i])
			return a->key[i] < b->key[i] ? -1 : 1;
	if (a->creation != b->creation)
		return a->creation < b->creation ? -1 : 1;
	int r = strcmp(a->uid, b->uid);
	if (r)
		return r;
	return a->t < b->t ? -1 : 1;
}

static const char *str(const tph_session *s, tph_sid id)
{
	return tph_strtab_str(s->snap->strs, id);
}

/* Whether the plugins' answers are keys the kernel may sort by. */
static bool keys_declared(const tph_session *s)
{
	const tph_ep_list *l = &s->ep[TPH_EP_TASK_ORDER];
	for (uint32_t i = 0; i < l->n; i++)
		if (!s->plugins[l->e[i].plugin].task_key)
			return false;
	return !s->opts.naive;
}

/* Sort the job's items and number them. CompareTask reads the pod index only when both tasks
 * have one: a job where some do and some do not is left to the chain, which is then no key
 * and need not even be transitive. 1 when ranked, 2 when left. */
static uint8_t rank_items(tph_ep_ctx *c, rank_item *it, uint32_t n, uint32_t indexed)
{
	if (indexed && indexed != n)
		return 2;
	bool sorted = true;
	for (uint32_t i = 0; i < n; i++) {
		it[i].nk -= !indexed;
		sorted = sorted && (!i || by_key(&it[i - 1], &it[i]) < 0);
	}
	if (!sorted) /* jobs list their pods mostly in order already */
		qsort(it, n, sizeof *it, by_key);
	for (uint32_t i = 0; i < n; i++)
		c->task_rank[it[i].t] = i;
	return 1;
}

/* Rank job j's tasks: 1 done, 2 left to the chain, 0 out of memory. */
static uint8_t rank_job(const tph_session *s, tph_ep_ctx *c, tph_idx j)
{
	const tph_ep_list *l = &s->ep[TPH_EP_TASK_ORDER];
	const tph_job_store *js = s->jobs;
	uint32_t lo = js->task_off[j], n = js->task_off[j + 1] - lo, nk = l->n + 1, indexed = 0;
	rank_item *it = tph_malloc(n * sizeof *it + (size_t)n * nk * sizeof(int64_t) + 1);
	if (!it)
		return 0;
	int64_t *keys = (int64_t *)(it + n);
	for (uint32_t i = 0; i < n; i++) {
		tph_idx t = js->task_idx[lo + i];
		int64_t *k = keys + (size_t)i * nk;
		for (uint32_t p = 0; p < l->n; p++)
			k[p] = s->plugins[l->e[p].plugin].task_key(l->e[p].st, s, t);
		indexed += tph_task_pod_index(str(s, s->tasks.name[t]), &k[l->n]);
		it[i] = (rank_item){k, nk, s->tasks.creation[t], str(s, s->tasks.uid[t]), t};
	}
	uint8_t r = rank_items(c, it, n, indexed);
	tph_free(it);
	return r;
}

const uint32_t *tph_task_ranks(const tph_session *s, tph_idx job)
{
	tph_ep_ctx *c = s->epx;
	if (!c || !keys_declared(s))
		return NULL;
	if (!c->task_rank) {
		size_t nt = (size_t)s->tasks.n + 1, nj = (size_t)s->jobs->n + 1;
		c->task_rank = tph_malloc(nt * sizeof *c->task_rank + nj);
		if (!c->task_rank)
			return NULL;
		c->job_ranked = (uint8_t *)(c->task_rank + nt);
		memset(c->job_ranked, 0, nj);
	}
	if (!c->job_ranked[job])
		c->job_ranked[job] = rank_job(s, c, job);
	return c->job_ranked[job] == 1 ? c->task_rank : NULL;
}

/* Go's container/heap over tph_idx (see pq.h): up and down are Go's loops, so ties and stale
 * orders resolve exactly as Volcano's do; a ranked task queue keeps a run while it can. */
#include "pq.h"
#include "ep.h"

#include <assert.h>

static bool less_at(const tph_pq *q, uint32_t i, uint32_t j)
{
	tph_idx a = q->items[i], b = q->items[j];
	if (q->rank)
		return q->rank[a] < q->rank[b];
	return q->cmp ? q->cmp(q->ctx, a, b) < 0 : q->less(q->ctx, a, b);
}

static void swap(tph_pq *q, uint32_t i, uint32_t j)
{
	tph_idx t = q->items[i];
	q->items[i] = q->items[j];
	q->items[j] = t;
}

/* heap.up */
static void up(tph_pq *q, uint32_t j)
{
	while (j > 0) {
		uint32_t i = (j - 1) / 2;
		if (!less_at(q, j, i))
			break;
		swap(q, i, j);
		j = i;
	}
}

/* heap.down over items[0..n) */
static void down(tph_pq *q, uint32_t i, uint32_t n)
{
	for (;;) {
		uint32_t j1 = 2 * i + 1;
		if (j1 >= n)
			break;
		uint32_t j = j1;
		if (j1 + 1 < n && less_at(q, j1 + 1, j1))
			j = j1 + 1;
		if (!less_at(q, j, i))
			break;
		swap(q, i, j);
		i = j;
	}
}

static void reverse(tph_pq *q)
{
	for (uint32_t i = 0, j = q->n; i + 1 < j; i++, j--)
		swap(q, i, j - 1);
}

/* A rank queue's push while its items form a run: true when they still do. Out of the run's
 * order, the items go back ascending, a heap, for up() to take. */
static bool run_push(tph_pq *q, tph_idx item)
{
	uint32_t r = q->rank[item], last = q->n ? q->rank[q->items[q->n - 1]] : r;
	if (!q->n || (q->run == TPH_PQ_ASC ? r > last : r < last)) {
		q->items[q->n++] = item;
		return true;
	}
	if (q->run == TPH_PQ_DESC)
		reverse(q);
	q->run = TPH_PQ_HEAP;
	return false;
}

void tph_pq_init(tph_pq *q, const tph_session *s, tph_pq_cmp cmp, tph_idx *storage, uint32_t cap)
{
	*q = (tph_pq){storage, 0, cap, cmp, NULL, s};
}

void tph_pq_init_tasks(tph_pq *q, const tph_session *s, tph_idx job, tph_idx *storage, uint32_t cap)
{
	tph_pq_init(q, s, tph_task_order, storage, cap);
	q->rank = tph_task_ranks(s, job);
	q->run = q->rank ? TPH_PQ_ASC : TPH_PQ_HEAP;
}

void tph_pq_init_less(tph_pq *q, const void *ctx, tph_pq_less less, tph_idx *storage, uint32_t cap)
{
	*q = (tph_pq){storage, 0, cap, NULL, less, ctx};
}

int tph_pq_push(tph_pq *q, tph_idx item)
{
	assert(q->n < q->cap);
	if (q->n >= q->cap)
		return TPH_ERANGE;
	if (q->run && run_push(q, item))
		return TPH_OK;
	q->items[q->n++] = item;
	up(q, q->n - 1);
	return TPH_OK;
}

tph_idx tph_pq_pop(tph_pq *q)
{
	if (!q->n)
		return TPH_NOIDX;
	if (q->run == TPH_PQ_ASC) {
		reverse(q);
		q->run = TPH_PQ_DESC;
	}
	if (q->run == TPH_PQ_DESC)
		return q->items[--q->n];
	uint32_t last = q->n - 1;
	swap(q, 0, last);
	down(q, 0, last);
	q->n = last;
	return q->items[last];
}

/* Go's container/heap (up, down, Push, Pop) over tph_idx, and the session orders as Less
 * functions: the priority queues of Volcano's preempt and reclaim. */
#include "evict_util.h"

#include "ep.h"

#include <assert.h>

void tph_gheap_init(tph_gheap *h, tph_idx *buf, uint32_t cap, tph_less_fn less, const void *ctx)
{
	*h = (tph_gheap){buf, 0, cap, less, ctx};
}

static bool less_at(const tph_gheap *h, uint32_t i, uint32_t j)
{
	return h->less(h->ctx, h->items[i], h->items[j]);
}

static void swap_at(tph_gheap *h, uint32_t i, uint32_t j)
{
	tph_idx t = h->items[i];
	h->items[i] = h->items[j];
	h->items[j] = t;
}

static void up(tph_gheap *h, uint32_t j)
{
	while (j > 0) {
		uint32_t i = (j - 1) / 2;
		if (!less_at(h, j, i))
			break;
		swap_at(h, i, j);
		j = i;
	}
}

static void down(tph_gheap *h, uint32_t i, uint32_t n)
{
	for (;;) {
		uint32_t j1 = 2 * i + 1;
		if (j1 >= n)
			break;
		uint32_t j = j1;
		if (j1 + 1 < n && less_at(h, j1 + 1, j1))
			j = j1 + 1;
		if (!less_at(h, j, i))
			break;
		swap_at(h, i, j);
		i = j;
	}
}

void tph_gheap_push(tph_gheap *h, tph_idx x)
{
	assert(h->n < h->cap);
	h->items[h->n++] = x;
	up(h, h->n - 1);
}

tph_idx tph_gheap_pop(tph_gheap *h)
{
	if (!h->n)
		return TPH_NOIDX;
	uint32_t n = h->n - 1;
	swap_at(h, 0, n);
	down(h, 0, n);
	h->n = n;
	return h->items[n];
}

bool tph_less_job(const void *s, tph_idx a, tph_idx b)
{
	return tph_job_order(s, a, b) < 0;
}

bool tph_less_task(const void *s, tph_idx a, tph_idx b)
{
	return tph_task_order(s, a, b) < 0;
}

bool tph_less_queue(const void *s, tph_idx a, tph_idx b)
{
	return tph_queue_order(s, a, b) < 0;
}

void tph_push_pending(const tph_session *s, tph_idx job, tph_gheap *h, tph_idx *buf)
{
	const tph_job_store *js = s->jobs;
	uint32_t lo = js->task_off[job], hi = js->task_off[job + 1];
	tph_gheap_init(h, buf, hi - lo, tph_less_task, s);
	for (uint32_t i = lo; i < hi; i++)
		if (s->tasks.status[js->task_idx[i]] == TPH_TS_PENDING)
			tph_gheap_push(h, js->task_idx[i]);
}

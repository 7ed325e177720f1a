/* BuildVictimsPriorityQueue: Volcano's less function over victims and a replay of Go's
 * container/heap (Push each victim, then Pop until empty). */
#include "victim_order.h"

#include <string.h>

#include "ep.h"

static tph_idx job_of(const tph_session *s, tph_idx t)
{
	return s->tasks.job[t];
}

/* !TaskOrderFn(l, r): tph_task_order never ties two distinct tasks. */
static bool task_after(const tph_session *s, tph_idx l, tph_idx r)
{
	return tph_task_order(s, l, r) > 0;
}

static bool job_then_task(const tph_session *s, tph_idx l, tph_idx r)
{
	int c = tph_job_order_cmp_plugins(s, job_of(s, l), job_of(s, r));
	return c ? c > 0 : task_after(s, l, r);
}

/* The less function: true when l pops before r. */
static bool victim_less(const tph_session *s, tph_idx pj, tph_idx l, tph_idx r)
{
	tph_idx lj = job_of(s, l), rj = job_of(s, r);
	if (lj == rj)
		return task_after(s, l, r);
	if (lj == TPH_NOIDX || rj == TPH_NOIDX) /* orphans go first */
		return lj == TPH_NOIDX;
	if (pj == TPH_NOIDX)
		return job_then_task(s, l, r);
	tph_idx lq = s->jobs->queue[lj], rq = s->jobs->queue[rj];
	if (lq != rq)
		return tph_victim_queue_order(s, lq, rq, s->jobs->queue[pj]) < 0;
	return job_then_task(s, l, r);
}

static void swap(uint32_t *h, uint32_t i, uint32_t j)
{
	uint32_t t = h[i];
	h[i] = h[j];
	h[j] = t;
}

static void heap_up(const tph_session *s, tph_idx pj, const tph_idx *t, uint32_t *h, uint32_t j)
{
	while (j > 0) {
		uint32_t i = (j - 1) / 2;
		if (!victim_less(s, pj, t[h[j]], t[h[i]]))
			break;
		swap(h, i, j);
		j = i;
	}
}

static void heap_down(const tph_session *s, tph_idx pj, const tph_idx *t, uint32_t *h, uint32_t i,
                      uint32_t n)
{
	for (;;) {
		uint32_t j = 2 * i + 1;
		if (j >= n)
			break;
		if (j + 1 < n && victim_less(s, pj, t[h[j + 1]], t[h[j]]))
			j++;
		if (!victim_less(s, pj, t[h[j]], t[h[i]]))
			break;
		swap(h, i, j);
		i = j;
	}
}

/* The heap of indices lives in perm[0..k); each Pop moves the root to perm[k-1], so popping
 * fills perm from the back: reverse at the end. */
void tph_victims_pop_order(const tph_session *s, tph_idx preemptor, const tph_idx *tasks,
                           uint32_t n, uint32_t *perm)
{
	tph_idx pj = job_of(s, preemptor);
	for (uint32_t k = 0; k < n; k++) {
		perm[k] = k;
		heap_up(s, pj, tasks, perm, k);
	}
	for (uint32_t k = n; k > 1; k--) {
		swap(perm, 0, k - 1);
		heap_down(s, pj, tasks, perm, 0, k - 1);
	}
	for (uint32_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--)
		swap(perm, i, j);
}

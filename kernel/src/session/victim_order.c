/* BuildVictimsPriorityQueue: Volcano's less function over victims on the shared Go heap. */
#include "victim_order.h"

#include "session/ep.h"

/* Volcano's jobThenTaskOrder: the job plugins' answer reversed, then !TaskOrderFn
 * (tph_task_order never ties two distinct tasks). */
static bool job_then_task(const tph_session *s, tph_idx lj, tph_idx rj, tph_idx l, tph_idx r)
{
	int cmp = tph_job_order_cmp_plugins(s, lj, rj);
	if (cmp)
		return cmp > 0;
	return tph_task_order(s, l, r) > 0;
}

/* The less function: true when l pops before r. */
static bool victim_less(const void *ctx, tph_idx l, tph_idx r)
{
	const tph_victim_order *vo = ctx;
	const tph_session *s = vo->s;
	tph_idx lj = s->tasks.job[l], rj = s->tasks.job[r], pj = s->tasks.job[vo->preemptor];
	if (lj == rj)
		return tph_task_order(s, l, r) > 0;
	if (lj == TPH_NOIDX || rj == TPH_NOIDX) /* orphans go first */
		return lj == TPH_NOIDX;
	if (pj == TPH_NOIDX)
		return job_then_task(s, lj, rj, l, r);
	tph_idx lq = s->jobs->queue[lj], rq = s->jobs->queue[rj];
	if (lq != rq)
		return tph_victim_queue_order(s, lq, rq, s->jobs->queue[pj]) < 0;
	return job_then_task(s, lj, rj, l, r);
}

void tph_victims_queue(tph_pq *q, const tph_victim_order *vo, const tph_idx *victims, uint32_t n,
                       tph_idx *buf)
{
	tph_pq_init_less(q, vo, victim_less, buf, n);
	for (uint32_t i = 0; i < n; i++)
		tph_pq_push(q, victims[i]);
}

/* The queue holds indices into tasks, so equal task ids stay apart. */
typedef struct index_order {
	tph_victim_order vo;
	const tph_idx *tasks;
} index_order;

static bool index_less(const void *ctx, tph_idx a, tph_idx b)
{
	const index_order *io = ctx;
	return victim_less(&io->vo, io->tasks[a], io->tasks[b]);
}

/* Each Pop parks the root just past the shrinking heap, so perm fills from the back: reverse
 * at the end. */
void tph_victims_pop_order(const tph_session *s, tph_idx preemptor, const tph_idx *tasks,
                           uint32_t n, uint32_t *perm)
{
	index_order io = {{s, preemptor}, tasks};
	tph_pq q;
	tph_pq_init_less(&q, &io, index_less, perm, n);
	for (uint32_t k = 0; k < n; k++)
		tph_pq_push(&q, k);
	while (tph_pq_pop(&q) != TPH_NOIDX)
		;
	for (uint32_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
}

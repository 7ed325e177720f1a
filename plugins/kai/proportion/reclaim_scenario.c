/* proportion's ReclaimScenarioValidator (KAI's Reclaimable in reclaimable.go): the victims'
 * resources are taken from their queues one vector at a time, each take allowed by a reclaim
 * strategy; then, level by level up the reclaimer's path, the reclaimer's queue must stay less
 * saturated than every sibling that gave, and a non-preemptible reclaimer within quota. */
#include <math.h>
#include <string.h>

#include "proportion_int.h"

/* Per queue: what remains allocated after the takes (valid when `in`), the resources taken from
 * it or below it, and the queues in the map in the order they entered. */
typedef struct rscratch {
	double *remain; /* [queue * KAI_NRES] */
	uint32_t *list;
	uint8_t *in, *involved, *done;
	uint32_t nlist;
} rscratch;

size_t kai_reclaim_scratch_bytes(uint32_t n)
{
	return (size_t)n * (KAI_NRES * sizeof(double) + sizeof(uint32_t) + 3);
}

static rscratch carve(void *mem, uint32_t n)
{
	rscratch s;
	s.remain = mem;
	s.list = (uint32_t *)(s.remain + (size_t)n * KAI_NRES);
	s.in = (uint8_t *)(s.list + n);
	s.involved = s.in + n;
	s.done = s.involved + n;
	s.nlist = 0;
	memset(s.in, 0, 3 * (size_t)n);
	return s;
}

static double *remain_of(const kai_queues *q, rscratch *s, uint32_t i)
{
	double *rem = s->remain + (size_t)i * KAI_NRES;
	if (!s->in[i]) {
		s->in[i] = 1;
		s->list[s->nlist++] = i;
		for (int r = 0; r < KAI_NRES; r++)
			rem[r] = q->r[r].allocated[i];
	}
	return rem;
}

/* subtractReclaimedResources: the leaf and every ancestor give v and learn what was taken. */
static void take(const kai_queues *q, rscratch *s, uint32_t leaf, const double v[KAI_NRES])
{
	for (uint32_t i = leaf; i < q->n; i = q->parent[i]) {
		double *rem = remain_of(q, s, i);
		for (int r = 0; r < KAI_NRES; r++)
			rem[r] -= v[r];
		s->involved[i] |= s->involved[leaf];
	}
}

/* reclaimResourcesFromReclaimees for the vectors of victim queue vic[first].queue. */
static bool take_queue(const kai_queues *q, const kai_reclaimer *rc, const kai_victim_res *vic,
                       uint32_t nv, uint32_t first, rscratch *s)
{
	uint32_t qv = vic[first].queue, lr, le;
	kai_leveled(q, rc->queue, qv, &lr, &le);
	uint8_t mask = 0;
	for (uint32_t w = first; w < nv; w++)
		if (vic[w].queue == qv)
			mask |= vic[w].involved;
	s->involved[qv] = mask;
	const double *rem = remain_of(q, s, le);
	for (uint32_t w = first; w < nv; w++) {
		if (vic[w].queue != qv)
			continue;
		if (!kai_strategy_fits(q, rc->req, lr, le, rem))
			return false;
		take(q, s, qv, vic[w].v);
	}
	return true;
}

static double saturation_ratio(double allocated, double fair)
{
	if (fair == 0)
		return allocated > 0 ? INFINITY : 0;
	if (fair == KAI_UNLIMITED)
		return 0;
	return allocated / fair;
}

/* isFairShareSaturationLowerPerResource. */
static bool less_saturated(const kai_queues *q, uint8_t involved, const double *mine, uint32_t me,
                           const double *sib, uint32_t s, double mult)
{
	for (int r = 0; r < KAI_NRES; r++) {
		if (!(involved >> r & 1))
			continue;
		double my_fair = q->r[r].fair[me], sib_fair = q->r[r].fair[s];
		if (my_fair == KAI_UNLIMITED && sib_fair == KAI_UNLIMITED)
			continue;
		double ratio = saturation_ratio(mine[r], my_fair);
		double sib_ratio = saturation_ratio(sib[r], sib_fair);
		if (ratio > 1 && sib_fair > 0 && ratio * mult >= sib_ratio)
			return false;
	}
	return true;
}

/* reclaimingQueuesRemainWithinBoundaries. */
static bool within_boundaries(const kai_queues *q, const kai_reclaimer *rc, double mult,
                              rscratch *s)
{
	for (uint32_t rq = rc->queue; rq < q->n; rq = q->parent[rq]) {
		double mine[KAI_NRES];
		for (int r = 0; r < KAI_NRES; r++)
			mine[r] = (s->in[rq] ? s->remain[(size_t)rq * KAI_NRES + r]
			                     : q->r[r].allocated[rq]) +
			          rc->req[r];
		for (uint32_t l = 0; l < s->nlist; l++) {
			uint32_t sib = s->list[l];
			if (q->parent[sib] != q->parent[rq] || sib == rq)
				continue;
			uint8_t inv = s->involved[sib] | rc->involved;
			if (!less_saturated(q, inv, mine, rq, s->remain + (size_t)sib * KAI_NRES,
			                    sib, mult))
				return false;
		}
		if (!rc->preemptible && !kai_np_within_quota(q, rq, rc->req))
			return false;
	}
	return true;
}

bool kai_reclaimable(const kai_queues *q, const kai_reclaimer *rc, const kai_victim_res *vic,
                     uint32_t nv, double saturation, void *scratch)
{
	rscratch s = carve(scratch, q->n);
	for (uint32_t v = 0; v < nv; v++) {
		if (s.done[vic[v].queue])
			continue;
		s.done[vic[v].queue] = 1;
		if (!take_queue(q, rc, vic, nv, v, &s))
			return false;
	}
	return within_boundaries(q, rc, saturation, &s);
}

/* proportion's QueueOrder (KAI's queue_order.go): which of two queues gives its best job the
 * next turn (allocate) or gives back first (the victims queue walks it reversed). Rules in
 * KAI's order, the first that tells the queues apart decides. */
#include <math.h>

#include "proportion_int.h"

#define L_FIRST (-1)
#define R_FIRST 1

/* FairShareLessThanAllocated: over fair share in every resource. */
static bool over_fair_share(const kai_queues *q, uint32_t i)
{
	for (int r = 0; r < KAI_NRES; r++)
		if (q->r[r].fair[i] >= q->r[r].allocated[i])
			return false;
	return true;
}

static int pick(bool l_first, bool r_first)
{
	if (l_first && !r_first)
		return L_FIRST;
	if (r_first && !l_first)
		return R_FIRST;
	return 0;
}

static bool within_deserved_with_job(const kai_queues *q, const kai_qo_side *s)
{
	for (int r = 0; r < KAI_NRES; r++)
		if (kai_cmp(q->r[r].allocated[s->queue] + s->job[r], q->r[r].deserved[s->queue]) >
		    0)
			return false;
	return true;
}

/* penalizeZeroShareWithJob: would hold some resource it may hold none of. */
static bool zero_share_violation(const kai_queues *q, const kai_qo_side *s)
{
	for (int r = 0; r < KAI_NRES; r++)
		if (kai_allocatable(q, s->queue, r) == 0 &&
		    q->r[r].allocated[s->queue] + s->job[r] > 0)
			return true;
	return false;
}

double kai_dominant_share(const kai_queues *q, uint32_t queue, const double alloc[KAI_NRES],
                          const double total[KAI_NRES])
{
	double dominant = 0;
	for (int r = 0; r < KAI_NRES; r++) {
		double share = kai_allocatable(q, queue, r);
		if (share == KAI_UNLIMITED)
			share = total[r];
		double v = share == 0 ? alloc[r] * 1000 : alloc[r] / share;
		dominant = fmax(dominant, v);
	}
	return dominant;
}

static double share_with_job(const kai_queues *q, const kai_qo_side *s,
                             const double total[KAI_NRES], bool with_job)
{
	double alloc[KAI_NRES];
	for (int r = 0; r < KAI_NRES; r++) {
		alloc[r] = q->r[r].allocated[s->queue];
		if (with_job)
			alloc[r] = alloc[r] + s->job[r] - s->victims[r];
	}
	return kai_dominant_share(q, s->queue, alloc, total);
}

static int smaller_share(const kai_queues *q, const kai_qo_side *l, const kai_qo_side *r,
                         const double total[KAI_NRES], bool with_job)
{
	double ls = share_with_job(q, l, total, with_job),
	       rs = share_with_job(q, r, total, with_job);
	return ls < rs ? L_FIRST : ls > rs ? R_FIRST : 0;
}

/* prioritizeBasedOnAllocatableShare: the queue whose allocatable share is nowhere larger and
 * somewhere smaller goes first. */
static int smaller_allocatable(const kai_queues *q, uint32_t l, uint32_t r)
{
	int le = 0, ge = 0, n = KAI_NRES;
	for (int d = 0; d < KAI_NRES; d++) {
		int c = kai_cmp(kai_allocatable(q, l, d), kai_allocatable(q, r, d));
		le += c <= 0;
		ge += c >= 0;
	}
	/* l.LessInAtLeastOneResource(r) is !r.LessEqual(l), i.e. not every d has r <= l. */
	if (ge < n && le == n)
		return L_FIRST;
	if (le < n && ge == n)
		return R_FIRST;
	return 0;
}

int kai_queue_order(const kai_queues *q, const double total[KAI_NRES], const kai_qo_side *l,
                    const kai_qo_side *r)
{
	uint32_t lq = l->queue, rq = r->queue;
	int c = pick(!over_fair_share(q, lq), !over_fair_share(q, rq));
	if (!c)
		c = pick(within_deserved_with_job(q, l), within_deserved_with_job(q, r));
	if (!c)
		c = q->priority[lq] > q->priority[rq]   ? L_FIRST
		    : q->priority[lq] < q->priority[rq] ? R_FIRST
		                                        : 0;
	if (!c)
		c = pick(!zero_share_violation(q, l), !zero_share_violation(q, r));
	if (!c)
		c = smaller_share(q, l, r, total, true);
	if (!c)
		c = smaller_share(q, l, r, total, false);
	if (!c)
		c = smaller_allocatable(q, lq, rq);
	if (!c)
		c = q->created[lq] < q->created[rq] ? L_FIRST : R_FIRST;
	return c;
}

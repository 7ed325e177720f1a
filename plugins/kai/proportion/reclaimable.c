/* Reclaim by fair share (KAI's reclaimable/: reclaimable.go, filter_victims.go,
 * strategies/strategies.go): whether a job may reclaim at all, which victim jobs the search may
 * draw, and whether a scenario's victims leave every queue within the fairness rules. */
#include <math.h>
#include <string.h>

#include "proportion_int.h"

uint8_t kai_involved(const double v[KAI_NRES])
{
	uint8_t m = 0;
	for (int r = 0; r < KAI_NRES; r++)
		if (v[r] > 0)
			m |= (uint8_t)(1u << r);
	return m;
}

bool kai_np_within_quota(const kai_queues *q, uint32_t i, const double req[KAI_NRES])
{
	for (int r = 0; r < KAI_NRES; r++)
		if (kai_cmp(q->r[r].alloc_np[i] + req[r], q->r[r].deserved[i]) > 0)
			return false;
	return true;
}

bool kai_can_reclaim(const kai_queues *q, const kai_reclaimer *rc)
{
	for (int r = 0; r < KAI_NRES; r++)
		if (kai_cmp(q->r[r].allocated[rc->queue] + rc->req[r], q->r[r].fair[rc->queue]) > 0)
			return false;
	return rc->preemptible || kai_np_within_quota(q, rc->queue, rc->req);
}

/* AllocatedPlusResourcesLessEqualDeserved. */
static bool reclaimer_fits_deserved(const kai_queues *q, const double req[KAI_NRES], uint32_t lr)
{
	for (int r = 0; r < KAI_NRES; r++)
		if (kai_cmp(q->r[r].allocated[lr] + req[r], q->r[r].deserved[lr]) > 0)
			return false;
	return true;
}

bool kai_fits_maintain_fair_share(const kai_queues *q, uint32_t le,
                                  const double remaining[KAI_NRES])
{
	for (int r = 0; r < KAI_NRES; r++)
		if (kai_cmp(remaining[r], kai_allocatable(q, le, r)) > 0)
			return true;
	return false;
}

bool kai_fits_guarantee_deserved(const kai_queues *q, const double req[KAI_NRES], uint32_t lr,
                                 uint32_t le, const double remaining[KAI_NRES])
{
	if (!reclaimer_fits_deserved(q, req, lr))
		return false;
	for (int r = 0; r < KAI_NRES; r++)
		if (kai_cmp(remaining[r], q->r[r].deserved[le]) > 0)
			return true;
	return false;
}

bool kai_strategy_fits(const kai_queues *q, const double req[KAI_NRES], uint32_t lr, uint32_t le,
                       const double remaining[KAI_NRES])
{
	return kai_fits_maintain_fair_share(q, le, remaining) ||
	       kai_fits_guarantee_deserved(q, req, lr, le, remaining);
}

/* canBeDeservedQuotaReclaimCandidate: over quota in a resource the reclaimer asks for, or
 * under quota in none of them. */
static bool deserved_candidate(const kai_queues *q, const double req[KAI_NRES], uint32_t le)
{
	bool under = false;
	for (int r = 0; r < KAI_NRES; r++) {
		const kai_share *s = &q->r[r];
		if (req[r] <= 0 || s->deserved[le] == KAI_UNLIMITED)
			continue;
		if (s->allocated[le] > s->deserved[le])
			return true;
		if (s->allocated[le] < s->deserved[le])
			under = true;
	}
	return !under;
}

bool kai_filter_victim(const kai_queues *q, const kai_reclaimer *rc, uint32_t victim_queue)
{
	uint32_t lr, le;
	kai_leveled(q, rc->queue, victim_queue, &lr, &le);
	if (!reclaimer_fits_deserved(q, rc->req, lr)) {
		double alloc[KAI_NRES];
		for (int r = 0; r < KAI_NRES; r++)
			alloc[r] = q->r[r].allocated[le];
		return kai_fits_maintain_fair_share(q, le, alloc);
	}
	return deserved_candidate(q, rc->req, le);
}

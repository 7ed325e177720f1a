/* Victim order (framework.BuildVictimsPriorityQueue) and FutureIdle arithmetic shared by the
 * eviction actions. */
#include "evict_util.h"

#include "ep.h"

/* Volcano's jobThenTaskOrder: the job plugins' answer reversed, then !TaskOrderFn. */
static bool job_then_task(const tph_session *s, tph_idx lj, tph_idx rj, tph_idx l, tph_idx r)
{
	int cmp = tph_job_order_cmp_plugins(s, lj, rj);
	if (cmp)
		return cmp > 0;
	return tph_task_order(s, l, r) > 0;
}

bool tph_less_victim(const void *ctx, tph_idx l, tph_idx r)
{
	const tph_victim_order *vo = ctx;
	const tph_session *s = vo->s;
	tph_idx lj = s->tasks.job[l], rj = s->tasks.job[r], pj = s->tasks.job[vo->preemptor];
	if (lj == rj)
		return tph_task_order(s, l, r) > 0;
	/* A task whose job left the session goes first. */
	if (lj == TPH_NOIDX || rj == TPH_NOIDX)
		return lj == TPH_NOIDX;
	if (pj == TPH_NOIDX)
		return job_then_task(s, lj, rj, l, r);
	tph_idx lq = s->jobs->queue[lj], rq = s->jobs->queue[rj];
	if (lq != rq)
		return tph_victim_queue_order(s, lq, rq, s->jobs->queue[pj]) < 0;
	return job_then_task(s, lj, rj, l, r);
}

void tph_future_idle(const tph_session *s, tph_idx node, int64_t *out)
{
	const tph_node_store *ns = &s->nodes;
	for (uint32_t d = 0; d < s->ndim; d++) {
		size_t at = (size_t)d * ns->stride + node;
		out[d] = ns->idle[at] + ns->releasing[at] - ns->pipelined[at];
	}
}

void tph_vec_add_task(const tph_session *s, tph_idx task, int sign, int64_t *out)
{
	const int64_t *req = s->tasks.req + (size_t)task * s->ndim;
	for (uint32_t d = 0; d < s->ndim; d++)
		out[d] += sign * req[d];
}

bool tph_req_fits(const tph_session *s, tph_idx task, const int64_t *avail)
{
	const int64_t *req = s->tasks.req + (size_t)task * s->ndim;
	for (uint32_t d = 0; d < s->ndim; d++) {
		if (d > TPH_RES_MEMORY && req[d] == 0)
			continue;
		if (req[d] > avail[d])
			return false;
	}
	return true;
}

bool tph_validate_victims(const tph_session *s, tph_idx task, tph_idx node, const tph_idx *victims,
                          uint32_t n)
{
	int64_t avail[TPH_RES_MAX];
	tph_future_idle(s, node, avail);
	for (uint32_t i = 0; i < n; i++)
		tph_vec_add_task(s, victims[i], +1, avail);
	return tph_req_fits(s, task, avail);
}

/* KAI's JobsOrderByQueues (actions/utils/job_order_by_queue.go) for the solver: the next job
 * comes down the queue tree, each level's child queues compared by QueueOrder asked with their
 * best job, the leaf's jobs by JobOrder. A victims queue reverses both comparisons: the queue
 * that should give back first, its lowest job first. KAI asks QueueOrder of a victims queue
 * with the victims popped so far; tephra's QueueOrder point takes one job per side, the next
 * victim (docs/kai.md). Every pop re-evaluates QueueOrder, as a heap kept exact would; a leaf's
 * best job may be cached, as JobOrder compares two jobs by their own state and only the job
 * popped changes between pops of the solver's queues. */
#include "solver.h"

static bool schedulable(const tph_kai_view *v, int32_t q)
{
	return q >= 0 && !v->queues.dropped[q] && !v->queues.has_kids[q];
}

/* Whether l goes before r in the leaf (a victims queue: the reverse of JobOrder). */
static bool job_first(const tph_kai_session *s, uint32_t l, uint32_t r, bool victims)
{
	int c = tph_kai_job_order(s, l, r);
	return victims ? c > 0 : c < 0;
}

static int32_t best_job(const tph_kai_solver *sv, const uint8_t *in, int32_t *cache, uint32_t q,
                        bool victims)
{
	if (cache && cache[q] != -2)
		return cache[q];
	int32_t best = -1;
	for (uint32_t i = sv->q_first[q]; i < sv->q_first[q + 1]; i++) {
		uint32_t j = sv->q_jobs[i];
		if (in[j] && (best < 0 || job_first(sv->s, j, (uint32_t)best, victims)))
			best = (int32_t)j;
	}
	if (cache)
		cache[q] = best;
	return best;
}

static int32_t pick(const tph_kai_solver *sv, const uint8_t *in, int32_t *cache, int32_t parent,
                    bool victims)
{
	const tph_kai_view *v = sv->s->v;
	int32_t best_q = -1, best_j = -1;
	for (uint32_t q = 0; q < v->queues.n; q++) {
		if (v->queues.parent[q] != parent || v->queues.dropped[q])
			continue;
		int32_t j = v->queues.has_kids[q] ? pick(sv, in, cache, (int32_t)q, victims)
		                                  : best_job(sv, in, cache, q, victims);
		if (j < 0)
			continue;
		int c =
		    best_q < 0 ? -1 : tph_kai_queue_order(sv->s, q, (uint32_t)best_q, j, best_j);
		if (best_q < 0 || (victims ? c > 0 : c < 0)) {
			best_q = (int32_t)q;
			best_j = j;
		}
	}
	return best_j;
}

int32_t tph_kai_jobq_pop(const tph_kai_solver *sv, uint8_t *in, int32_t *cache, bool victims)
{
	if (sv->s->naive)
		cache = NULL;
	int32_t j = pick(sv, in, cache, -1, victims);
	if (j >= 0)
		in[j] = 0;
	if (j >= 0 && cache)
		cache[sv->s->v->jobs.queue[j]] = -2;
	return j;
}

void tph_kai_jobq_forget(const tph_kai_solver *sv, int32_t *cache)
{
	for (uint32_t q = 0; q < sv->s->v->queues.n; q++)
		cache[q] = -2;
}

void tph_kai_solver_index(tph_kai_solver *sv)
{
	const tph_kai_view *v = sv->s->v;
	for (uint32_t j = 0; j < v->jobs.n; j++)
		if (schedulable(v, v->jobs.queue[j]))
			sv->q_first[v->jobs.queue[j] + 2]++;
	for (uint32_t q = 0; q < v->queues.n; q++)
		sv->q_first[q + 2] += sv->q_first[q + 1];
	for (uint32_t j = 0; j < v->jobs.n; j++)
		if (schedulable(v, v->jobs.queue[j]))
			sv->q_jobs[sv->q_first[v->jobs.queue[j] + 1]++] = j;
	for (uint32_t n = 0; n < v->nodes.n; n++)
		if (v->nodes.in_pool[n])
			sv->pool[sv->n_pool++] = n;
}

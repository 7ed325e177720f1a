/* KAI's JobsOrderByQueues (actions/utils/job_order_by_queue.go) for the solver: the next job
 * comes down the queue tree, each level's child queues compared by QueueOrder asked with their
 * best job, the leaf's jobs by JobOrder. A victims queue reverses both comparisons (the queue
 * that should give back first, its lowest job first) and asks QueueOrder with no job but each
 * side's victims: those its best leaf popped so far plus its next (getVictimsForQueue), as
 * summed allocated requests (kai.h). Every pop re-evaluates the comparisons, as a heap kept
 * exact would. A leaf's best job may be cached, as JobOrder compares two jobs by their own
 * state and only the job popped changes between pops of the solver's queues. */
#include "solver.h"

#include <string.h>

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

/* pod_status.AllocatedStatus: what a job's AllocatedVector sums (Releasing and Pipelined not). */
static bool allocated_status(uint8_t st)
{
	return tph_kai_active_allocated(st) && st != TPH_KAI_TS_PIPELINED;
}

/* Job j's AllocatedVector as the victims queue holds it (its popped tasks read Releasing),
 * MIG instances counted as GPUs (QueueOrder quantifies it with TotalGPUs). */
static void add_allocated(const tph_kai_session *s, uint32_t j, double out[TPH_KAI_DIMS])
{
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++) {
		uint32_t t = s->job_tasks[i];
		double req[TPH_KAI_DIMS];
		if (!allocated_status(s->status[t]))
			continue;
		tph_kai_task_quota(s, t, req);
		for (int d = 0; d < TPH_KAI_DIMS; d++)
			out[d] += req[d];
	}
}

/* QueueOrder's victims of a side whose best job is j: its leaf's popped jobs and j. */
static void victims_of(const tph_kai_solver *sv, uint32_t j, double out[TPH_KAI_DIMS])
{
	const double *popped = sv->vq_popped + (size_t)sv->s->v->jobs.queue[j] * TPH_KAI_DIMS;
	memcpy(out, popped, TPH_KAI_DIMS * sizeof *out);
	add_allocated(sv->s, j, out);
}

static int32_t pick(const tph_kai_solver *sv, const uint8_t *in, int32_t *cache, int32_t parent,
                    bool victims)
{
	const tph_kai_view *v = sv->s->v;
	int32_t best_q = -1, best_j = -1;
	double vic[TPH_KAI_DIMS], best_vic[TPH_KAI_DIMS];
	for (uint32_t q = 0; q < v->queues.n; q++) {
		if (v->queues.parent[q] != parent || v->queues.dropped[q])
			continue;
		int32_t j = v->queues.has_kids[q] ? pick(sv, in, cache, (int32_t)q, victims)
		                                  : best_job(sv, in, cache, q, victims);
		if (j < 0)
			continue;
		if (victims)
			victims_of(sv, (uint32_t)j, vic);
		int c =
		    best_q < 0 ? -1
		    : victims
		        ? tph_kai_queue_order(sv->s, q, (uint32_t)best_q, -1, -1, vic, best_vic)
		        : tph_kai_queue_order(sv->s, q, (uint32_t)best_q, j, best_j, NULL, NULL);
		if (best_q < 0 || (victims ? c > 0 : c < 0)) {
			best_q = (int32_t)q;
			best_j = j;
			memcpy(best_vic, vic, sizeof vic);
		}
	}
	return best_j;
}

int32_t tph_kai_jobq_pop(const tph_kai_solver *sv, uint8_t *in, int32_t *cache, bool victims)
{
	if (sv->s->naive)
		cache = NULL;
	int32_t j = pick(sv, in, cache, -1, victims);
	if (j < 0)
		return j;
	in[j] = 0;
	if (cache)
		cache[sv->s->v->jobs.queue[j]] = -2;
	if (victims) /* KAI's poppedJobsByQueue keeps the job as popped */
		add_allocated(sv->s, (uint32_t)j,
		              sv->vq_popped + (size_t)sv->s->v->jobs.queue[j] * TPH_KAI_DIMS);
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

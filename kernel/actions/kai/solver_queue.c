/* KAI's JobsOrderByQueues (actions/utils/job_order_by_queue.go) for the solver: the next job
 * comes down the queue tree, each level's child queues compared by QueueOrder asked with their
 * best job, the leaf's jobs by JobOrder. A victims queue reverses both comparisons (the queue
 * that should give back first, its lowest job first) and asks QueueOrder with no job but each
 * side's victims: those its best leaf popped so far plus its next (getVictimsForQueue), as
 * summed allocated requests (kai.h). Every pop walks each level's children in index order, the
 * first best winning, as a heap kept exact would answer. A tph_kai_jobq keeps what a pop may
 * reuse: each leaf's jobs in pop order (solver_leaf.c), and each queue's last QueueOrder answer
 * against the best before it, given again while neither side's inputs changed: its best job,
 * that job's version, the queue's event version (what QueueOrder reads of the plugins' state,
 * tephra/kai.h) and its leaf's popped victims. */
#include "solver.h"

#include "base/mem.h"

#include <string.h>

static bool schedulable(const tph_kai_view *v, int32_t q)
{
	return q >= 0 && !v->queues.dropped[q] && !v->queues.has_kids[q];
}

static int32_t best_job(const tph_kai_solver *sv, const uint8_t *in, tph_kai_jobq *jq, uint32_t q,
                        bool victims)
{
	return jq ? tph_kai_leaf_best(sv, in, jq, q, victims)
	          : tph_kai_leaf_scan(sv, in, q, victims);
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

/* Queue q as a side with best job j: a new stamp whenever an input differs from the last. */
static void see_side(const tph_kai_solver *sv, tph_kai_jobq *jq, uint32_t q, uint32_t j,
                     bool victims)
{
	const tph_kai_session *s = sv->s;
	tph_kai_qside *d = &jq->side[q];
	uint64_t jv = s->job_gen[j], qv = s->queue_gen[q],
	         pv = jq->side[s->v->jobs.queue[j]].popped;
	if (d->job == (int32_t)j && d->jv == jv && d->qv == qv && d->pv == pv)
		return;
	d->job = (int32_t)j;
	d->jv = jv;
	d->qv = qv;
	d->pv = pv;
	d->stamp = ++jq->stamps;
	if (victims)
		victims_of(sv, j, d->vic);
}

/* Whether side a goes before the best so far, b (the victims queue: the reverse). */
static bool queue_first(const tph_kai_solver *sv, tph_kai_jobq *jq, uint32_t a, int32_t ja,
                        const double *va, uint32_t b, int32_t jb, const double *vb, bool victims)
{
	tph_kai_qside *d = jq ? &jq->side[a] : NULL;
	uint64_t other = jq ? jq->side[b].stamp : 0;
	int c;
	if (d && d->rival == (int32_t)b && d->own == d->stamp && d->other == other)
		c = d->answer;
	else {
		c = victims ? tph_kai_queue_order(sv->s, a, b, -1, -1, va, vb)
		            : tph_kai_queue_order(sv->s, a, b, ja, jb, NULL, NULL);
		if (d) {
			d->rival = (int32_t)b;
			d->own = d->stamp;
			d->other = other;
			d->answer = (int8_t)((c > 0) - (c < 0));
		}
	}
	return victims ? c > 0 : c < 0;
}

static int32_t pick(const tph_kai_solver *sv, const uint8_t *in, tph_kai_jobq *jq, int32_t parent,
                    bool victims)
{
	const tph_kai_view *v = sv->s->v;
	uint32_t at = parent < 0 ? v->queues.n : (uint32_t)parent;
	int32_t best_q = -1, best_j = -1;
	double buf[2][TPH_KAI_DIMS]; /* without a jobq: the victims of a side and of the best */
	const double *best_vic = NULL;
	int spare = 0;
	for (uint32_t i = sv->kid_first[at]; i < sv->kid_first[at + 1]; i++) {
		uint32_t q = sv->kids[i];
		int32_t j = v->queues.has_kids[q] ? pick(sv, in, jq, (int32_t)q, victims)
		                                  : best_job(sv, in, jq, q, victims);
		if (j < 0)
			continue;
		const double *vic = NULL;
		if (jq) {
			see_side(sv, jq, q, (uint32_t)j, victims);
			vic = jq->side[q].vic;
		} else if (victims) {
			victims_of(sv, (uint32_t)j, buf[spare]);
			vic = buf[spare];
		}
		if (best_q >= 0 &&
		    !queue_first(sv, jq, q, j, vic, (uint32_t)best_q, best_j, best_vic, victims))
			continue;
		best_q = (int32_t)q;
		best_j = j;
		best_vic = vic;
		spare ^= 1;
	}
	return best_j;
}

int32_t tph_kai_jobq_pop(const tph_kai_solver *sv, uint8_t *in, tph_kai_jobq *jq, bool victims)
{
	if (sv->s->naive)
		jq = NULL;
	int32_t j = pick(sv, in, jq, -1, victims);
	if (j < 0)
		return j;
	in[j] = 0;
	uint32_t leaf = (uint32_t)sv->s->v->jobs.queue[j];
	if (jq) {
		tph_kai_leaf_popped(jq, leaf, (uint32_t)j);
		jq->side[leaf].popped++;
	}
	if (victims) /* KAI's poppedJobsByQueue keeps the job as popped */
		add_allocated(sv->s, (uint32_t)j, sv->vq_popped + (size_t)leaf * TPH_KAI_DIMS);
	return j;
}

void tph_kai_jobq_forget(const tph_kai_solver *sv, tph_kai_jobq *jq, bool victims)
{
	uint32_t nq = sv->s->v->queues.n;
	if (victims)
		memset(sv->vq_popped, 0, (size_t)nq * TPH_KAI_DIMS * sizeof *sv->vq_popped);
	for (uint32_t q = 0; q < nq; q++) {
		jq->side[q].best = -2;
		jq->side[q].fresh = true;
		jq->side[q].popped += victims;
	}
}

int tph_kai_jobq_init(tph_kai_jobq *jq, uint32_t n_queues, uint32_t n_jobs)
{
	*jq = (tph_kai_jobq){0};
	jq->side = tph_calloc((size_t)n_queues + 1, sizeof *jq->side);
	jq->seq = tph_calloc((size_t)n_jobs + 1, sizeof *jq->seq);
	jq->in0 = tph_calloc((size_t)n_jobs + 1, sizeof *jq->in0);
	jq->gen0 = tph_calloc((size_t)n_jobs + 1, sizeof *jq->gen0);
	if (!jq->side || !jq->seq || !jq->in0 || !jq->gen0)
		return TPH_ENOMEM;
	for (uint32_t q = 0; q < n_queues; q++)
		jq->side[q] =
		    (tph_kai_qside){.best = -2, .job = -1, .rival = -1, .last = -1, .fresh = true};
	return TPH_OK;
}

void tph_kai_jobq_free(tph_kai_jobq *jq)
{
	tph_free(jq->side);
	tph_free(jq->seq);
	tph_free(jq->in0);
	tph_free(jq->gen0);
	*jq = (tph_kai_jobq){0};
}

/* Children by parent (slot n: the top level), the non-dropped queues in index order. */
static void index_kids(tph_kai_solver *sv)
{
	const tph_kai_queues *q = &sv->s->v->queues;
	for (uint32_t k = 0; k < q->n; k++)
		if (!q->dropped[k])
			sv->kid_first[(q->parent[k] < 0 ? q->n : (uint32_t)q->parent[k]) + 2]++;
	for (uint32_t k = 0; k <= q->n; k++)
		sv->kid_first[k + 2] += sv->kid_first[k + 1];
	for (uint32_t k = 0; k < q->n; k++)
		if (!q->dropped[k])
			sv->kids[sv->kid_first[(q->parent[k] < 0 ? q->n : (uint32_t)q->parent[k]) +
			                       1]++] = k;
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
	index_kids(sv);
}

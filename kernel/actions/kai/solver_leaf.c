/* A leaf queue's jobs in pop order for tph_kai_jobq_pop (solver_queue.c). Each pop takes the
 * leaf's first job by a linear scan of JobOrder over the jobs still in (the first best wins).
 * JobOrder compares two jobs by their own state, and between two forgets only the popped job
 * changes, so the jobs a leaf gives, one scan after another, follow from the jobs it started
 * with and their states: the sequence is kept, and a later start from the same jobs in the same
 * versions (tph_kai_session_job_version) replays it without a comparison. Re-placement starts
 * every scenario from the same pending jobs, most of whose leaves hold no victim. A job put back
 * after its pop (an elastic victim's rest, in a new state) ends the replay there. */
#include "solver.h"

/* Whether l goes before r in the leaf (a victims queue: the reverse of JobOrder). */
static bool job_first(const tph_kai_session *s, uint32_t l, uint32_t r, bool victims)
{
	int c = tph_kai_job_order(s, l, r);
	return victims ? c > 0 : c < 0;
}

int32_t tph_kai_leaf_scan(const tph_kai_solver *sv, const uint8_t *in, uint32_t q, bool victims)
{
	int32_t best = -1;
	for (uint32_t i = sv->q_first[q]; i < sv->q_first[q + 1]; i++) {
		uint32_t j = sv->q_jobs[i];
		if (in[j] && (best < 0 || job_first(sv->s, j, (uint32_t)best, victims)))
			best = (int32_t)j;
	}
	return best;
}

/* The leaf holds the jobs, in the versions, its sequence started from. */
static bool same_start(const tph_kai_solver *sv, const uint8_t *in, const tph_kai_jobq *jq,
                       uint32_t q)
{
	const uint64_t *gen = sv->s->job_gen;
	for (uint32_t i = sv->q_first[q]; i < sv->q_first[q + 1]; i++) {
		uint32_t j = sv->q_jobs[i];
		if (in[j] != jq->in0[i] || (in[j] && gen[j] != jq->gen0[i]))
			return false;
	}
	return true;
}

static void start(const tph_kai_solver *sv, const uint8_t *in, tph_kai_jobq *jq, uint32_t q)
{
	for (uint32_t i = sv->q_first[q]; i < sv->q_first[q + 1]; i++) {
		uint32_t j = sv->q_jobs[i];
		jq->in0[i] = in[j];
		jq->gen0[i] = sv->s->job_gen[j];
	}
	tph_kai_qside *d = &jq->side[q];
	d->at = d->n_seq = 0;
	d->put_back = false;
}

int32_t tph_kai_leaf_best(const tph_kai_solver *sv, const uint8_t *in, tph_kai_jobq *jq, uint32_t q,
                          bool victims)
{
	tph_kai_qside *d = &jq->side[q];
	uint32_t first = sv->q_first[q], cap = sv->q_first[q + 1] - first;
	if (d->best != -2)
		return d->best;
	if (d->fresh) { /* after a forget: replay, or start again */
		d->fresh = false;
		if (!d->put_back && same_start(sv, in, jq, q))
			d->at = 0;
		else
			start(sv, in, jq, q);
	} else if (d->last >= 0 && in[d->last]) { /* put back: what was scanned after it is stale */
		d->n_seq = d->at;
		d->put_back = true;
	}
	d->last = -1;
	if (d->at == d->n_seq) {
		if (d->n_seq == cap) /* more pops than jobs: start from here */
			start(sv, in, jq, q);
		int32_t j = tph_kai_leaf_scan(sv, in, q, victims);
		if (j < 0)
			return d->best = -1;
		jq->seq[first + d->n_seq++] = (uint32_t)j;
	}
	return d->best = (int32_t)jq->seq[first + d->at];
}

void tph_kai_leaf_popped(tph_kai_jobq *jq, uint32_t q, uint32_t j)
{
	tph_kai_qside *d = &jq->side[q];
	d->at++;
	d->last = (int32_t)j;
	d->best = -2;
}

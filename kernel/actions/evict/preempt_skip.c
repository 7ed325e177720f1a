/* The preempt action's exact shortcuts (not taken with --naive): a bound that rules a node out
 * before Preemptable runs, and the release rows after which Allocatable still refused the
 * preemptor, which rule out, without evicting, every node whose victims release no more. */
#include "preempt.h"

#include <string.h>

bool tph_preempt_bound(tph_preempt_ctx *c, tph_idx preemptor, tph_preempt_scope scope, tph_idx node)
{
	uint32_t n = tph_preemptees(&c->ev, preemptor, scope, node, c->ev.cands);
	return tph_validate_victims(c->ev.s, preemptor, node, c->ev.cands, n);
}

/* qrel for `queue`, rebuilt when the queue changes (the action works queue by queue). */
static void queue_rows(tph_preempt_ctx *c, tph_idx queue)
{
	const tph_session *s = c->ev.s;
	uint32_t nd = s->ndim;
	memset(c->qrel, 0, (size_t)s->nodes.n * nd * sizeof *c->qrel);
	for (tph_idx n = 0; n < s->nodes.n; n++) {
		uint32_t k;
		const tph_idx *on = tph_evict_on_node(&c->ev, n, &k);
		for (uint32_t i = 0; i < k; i++) {
			tph_idx t = on[i], j = s->tasks.job[t];
			if ((s->tasks.flags[t] & TPH_TASK_PREEMPTABLE) && j != TPH_NOIDX &&
			    s->jobs->queue[j] == queue)
				tph_vec_add_task(s, t, +1, c->qrel + (size_t)n * nd);
		}
	}
	c->qrel_of = queue;
}

bool tph_preempt_queue_bound(tph_preempt_ctx *c, tph_idx preemptor, tph_idx node)
{
	const tph_session *s = c->ev.s;
	tph_idx q = tph_task_queue(s, preemptor);
	if (q == TPH_NOIDX)
		return true;
	if (q != c->qrel_of)
		queue_rows(c, q);
	int64_t avail[TPH_RES_MAX];
	tph_future_idle(s, node, avail);
	const int64_t *rel = c->qrel + (size_t)node * s->ndim;
	for (uint32_t d = 0; d < s->ndim; d++)
		avail[d] += rel[d];
	return tph_req_fits(s, preemptor, avail);
}

static bool le_row(const int64_t *a, const int64_t *b, uint32_t nd)
{
	for (uint32_t d = 0; d < nd; d++)
		if (a[d] > b[d])
			return false;
	return true;
}

bool tph_refused_covers(const tph_preempt_ctx *c, const int64_t *rel)
{
	for (uint32_t k = 0; k < c->n_refused; k++)
		if (le_row(rel, c->refused[k], c->ev.s->ndim))
			return true;
	return false;
}

/* Rows the new one covers go; when all slots hold rows it does not cover, the oldest goes. */
void tph_refused_add(tph_preempt_ctx *c, const int64_t *rel)
{
	uint32_t nd = c->ev.s->ndim, k = 0;
	for (uint32_t i = 0; i < c->n_refused; i++)
		if (!le_row(c->refused[i], rel, nd))
			memmove(c->refused[k++], c->refused[i], nd * sizeof *rel);
	if (k == TPH_REFUSED_MAX) {
		memmove(c->refused[0], c->refused[1], (k - 1) * sizeof c->refused[0]);
		k--;
	}
	memcpy(c->refused[k], rel, nd * sizeof *rel);
	c->n_refused = k + 1;
}

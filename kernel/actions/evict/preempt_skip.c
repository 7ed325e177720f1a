/* The preempt action's exact shortcuts (not taken with --naive): a bound that rules a node out
 * before Preemptable runs, and the release rows after which Allocatable still refused the
 * preemptor, which rule out, without evicting, every node whose victims release no more. */
#include "preempt.h"

#include <string.h>

/* The filter passes only preemptable tasks of the preemptor's queue: once qtask lists them
 * (use_queue), only they are walked, in the node index's order. */
uint32_t tph_preempt_cands_on(const tph_preempt_ctx *c, tph_idx preemptor, tph_preempt_scope scope,
                              tph_idx node, tph_idx *out)
{
	const tph_session *s = c->ev.s;
	tph_idx q = tph_task_queue(s, preemptor);
	if (!c->fast || q == TPH_NOIDX || q != c->qrel_of)
		return tph_preemptees(&c->ev, preemptor, scope, node, out);
	uint32_t k = 0;
	for (uint32_t i = c->qoff[node]; i < c->qoff[node + 1]; i++)
		if (tph_preempt_filter(s, preemptor, c->qtask[i], scope))
			out[k++] = c->qtask[i];
	return k;
}

/* qrel and qtask for queue q (the action works queue by queue). */
static void use_queue(tph_preempt_ctx *c, tph_idx q)
{
	if (q == c->qrel_of)
		return;
	if (c->qrel_of != TPH_NOIDX)
		c->qmask[c->qrel_of] = 0;
	c->qmask[q] = 1;
	tph_evict_release_rows(&c->ev, c->qmask, c->qrel);
	tph_evict_marked_tasks(&c->ev, c->qmask, c->qoff, c->qtask);
	c->qrel_of = q;
}

bool tph_preempt_bounds(tph_preempt_ctx *c, tph_idx preemptor, tph_preempt_scope scope,
                        tph_idx node)
{
	const tph_session *s = c->ev.s;
	tph_idx q = tph_task_queue(s, preemptor);
	if (q == TPH_NOIDX) { /* no queue bound */
		uint32_t n = tph_preemptees(&c->ev, preemptor, scope, node, c->ev.cands);
		return tph_validate_victims(s, preemptor, node, c->ev.cands, n);
	}
	use_queue(c, q);
	int64_t fi[TPH_RES_MAX], up[TPH_RES_MAX];
	const int64_t *rel = c->qrel + (size_t)node * s->ndim;
	tph_future_idle(s, node, fi); /* read once for both bounds */
	for (uint32_t d = 0; d < s->ndim; d++)
		up[d] = fi[d] + rel[d];
	if (!tph_req_fits(s, preemptor, up))
		return false;
	for (uint32_t i = c->qoff[node]; i < c->qoff[node + 1]; i++)
		if (tph_preempt_filter(s, preemptor, c->qtask[i], scope))
			tph_vec_add_task(s, c->qtask[i], +1, fi);
	return tph_req_fits(s, preemptor, fi);
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

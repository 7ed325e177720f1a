/* The preempt action's exact shortcuts (not taken with --naive): a bound that rules a node out
 * before Preemptable runs, and the release rows after which Allocatable still refused the
 * preemptor, which rule out, without evicting, every node whose victims release no more. */
#include "preempt.h"

#include "session/fit.h"

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
	memset(c->qrun_ver, 0, (c->ev.s->nodes.n + 1) * sizeof *c->qrun_ver);
	c->qrel_of = q;
}

/* The nodes where job j has a task Bound or Running. During the action a task leaves those
 * states only when evicted and returns to them only on its own node (an undo), so the marks
 * stay a superset of where the job's tasks can pass the filter. */
static void mark_own(tph_preempt_ctx *c, tph_idx j)
{
	const tph_session *s = c->ev.s;
	if (j == c->own_of)
		return;
	if (++c->own_stamp == 0) {
		memset(c->own, 0, (s->nodes.n + 1) * sizeof *c->own);
		c->own_stamp = 1;
	}
	for (uint32_t i = s->jobs->task_off[j]; i < s->jobs->task_off[j + 1]; i++) {
		tph_idx t = s->jobs->task_idx[i];
		uint8_t st = s->tasks.status[t];
		if ((st == TPH_TS_BOUND || st == TPH_TS_RUNNING) && s->tasks.node[t] != TPH_NOIDX)
			c->own[s->tasks.node[t]] = c->own_stamp;
	}
	c->own_of = j;
}

/* qrun's row of the node, summed again when the node was touched since. */
static const int64_t *qrun_row(tph_preempt_ctx *c, tph_idx node)
{
	const tph_session *s = c->ev.s;
	int64_t *row = c->qrun + (size_t)node * s->ndim;
	uint32_t ver = tph_ecands_ver(&c->cands, node) + 1;
	if (c->qrun_ver[node] == ver)
		return row;
	memset(row, 0, s->ndim * sizeof *row);
	for (uint32_t i = c->qoff[node]; i < c->qoff[node + 1]; i++) {
		uint8_t st = s->tasks.status[c->qtask[i]];
		if (st == TPH_TS_BOUND || st == TPH_TS_RUNNING)
			tph_vec_add_task(s, c->qtask[i], +1, row);
	}
	c->qrun_ver[node] = ver;
	return row;
}

/* What the filter's candidates on the node hold, into cr. Without the preemptor's own job's
 * tasks there, the filter passes every Bound or Running task of qtask (other jobs) or none
 * (its own job), unless the preemptor is BestEffort. */
static void cands_sum(tph_preempt_ctx *c, tph_idx p, tph_preempt_scope scope, tph_idx node,
                      int64_t *cr)
{
	const tph_session *s = c->ev.s;
	bool kept = c->cands.on && !(s->tasks.flags[p] & TPH_TASK_BEST_EFFORT);
	if (kept)
		mark_own(c, s->tasks.job[p]);
	if (kept && c->own[node] != c->own_stamp) {
		const int64_t *row = scope == TPH_PREEMPT_SAME_JOB ? NULL : qrun_row(c, node);
		for (uint32_t d = 0; d < s->ndim; d++)
			cr[d] = row ? row[d] : 0;
		return;
	}
	memset(cr, 0, s->ndim * sizeof *cr);
	for (uint32_t i = c->qoff[node]; i < c->qoff[node + 1]; i++)
		if (tph_preempt_filter(s, p, c->qtask[i], scope))
			tph_vec_add_task(s, c->qtask[i], +1, cr);
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
	int64_t buf[TPH_RES_MAX], up[TPH_RES_MAX];
	const int64_t *rel = c->qrel + (size_t)node * s->ndim;
	const int64_t *fi = tph_ecands_future_idle(&c->cands, s, node, buf); /* for both bounds */
	for (uint32_t d = 0; d < s->ndim; d++)
		up[d] = fi[d] + rel[d];
	if (!tph_req_fits(s, preemptor, up))
		return false;
	int64_t *cr = c->crel + (size_t)node * s->ndim;
	cands_sum(c, preemptor, scope, node, cr);
	for (uint32_t d = 0; d < s->ndim; d++)
		up[d] = fi[d] + cr[d];
	return tph_req_fits(s, preemptor, up);
}

/* need[0..k) fits a[dims[]] + b[dims[]]. */
static bool fits_dims(const int64_t *a, const int64_t *b, const uint32_t *dims, const int64_t *need,
                      uint32_t k)
{
	bool ok = true;
	for (uint32_t i = 0; i < k; i++)
		ok &= need[i] <= a[dims[i]] + b[dims[i]];
	return ok;
}

void tph_preempt_bounds_many(tph_preempt_ctx *c, tph_idx p, tph_preempt_scope scope,
                             const tph_idx *nodes, uint32_t n, uint8_t *live)
{
	const tph_session *s = c->ev.s;
	tph_idx q = tph_task_queue(s, p);
	uint32_t nd = s->ndim, dims[TPH_RES_MAX], k = 0;
	int64_t need[TPH_RES_MAX], buf[TPH_RES_MAX], zero[TPH_RES_MAX] = {0};
	const int64_t *req = s->tasks.req + (size_t)p * nd;
	bool kept = c->cands.on && !(s->tasks.flags[p] & TPH_TASK_BEST_EFFORT) && q != TPH_NOIDX;
	if (kept) {
		use_queue(c, q);
		mark_own(c, s->tasks.job[p]);
	}
	for (uint32_t d = 0; d < nd; d++)
		if (tph_fit_counts(d, req, true))
			dims[k] = d, need[k++] = req[d];
	for (uint32_t i = 0; i < n; i++) {
		tph_idx node = nodes[i];
		if (!kept || c->own[node] == c->own_stamp) {
			live[i] = tph_preempt_bounds(c, p, scope, node);
			continue;
		}
		const int64_t *fi = tph_ecands_future_idle(&c->cands, s, node, buf);
		live[i] = fits_dims(fi, c->qrel + (size_t)node * nd, dims, need, k);
		if (!live[i])
			continue;
		/* cands_sum's shortcut: every Bound or Running task of qtask, or none */
		const int64_t *row = scope == TPH_PREEMPT_SAME_JOB ? zero : qrun_row(c, node);
		live[i] = fits_dims(fi, row, dims, need, k);
		if (live[i]) /* crel is read only for live nodes (tph_preempt_covered) */
			memcpy(c->crel + (size_t)node * nd, row, nd * sizeof *row);
	}
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

bool tph_preempt_may_cover(const tph_preempt_ctx *c, tph_idx preemptor)
{
	tph_idx q = tph_task_queue(c->ev.s, preemptor);
	return c->fast && c->alloc_queue && c->n_refused && q != TPH_NOIDX && q == c->qrel_of;
}

bool tph_preempt_covered(const tph_preempt_ctx *c, tph_idx preemptor, tph_idx node)
{
	return tph_preempt_may_cover(c, preemptor) &&
	       tph_refused_covers(c, c->crel + (size_t)node * c->ev.s->ndim);
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

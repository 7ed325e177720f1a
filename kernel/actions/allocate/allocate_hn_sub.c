/* Volcano's allocateForSubJob: the subjob's gradient under the job's hypernode, a dry run per
 * candidate of a group, HyperNodeOrder over the successful ones, the winner replayed. A group
 * of one hypernode is scored before its run (the state is the one its scoring would see), so
 * its run is kept instead of discarded and replayed. Dry runs sure to fail (the resource
 * bound, or a first-step failure already seen in this allocateForJob call) are skipped
 * unless their fit errors can survive. Also the recorded-operation helpers. */
#include "allocate_fast.h"
#include "allocate_hn.h"

#include "base/mem.h"

#include <math.h>

/* ---- recorded operations ---- */

static int ops_push(ahn_ops *o, ahn_op op)
{
	if (tph_grow(&o->v, &o->cap, o->n + 1, sizeof *o->v))
		return TPH_ENOMEM;
	o->v[o->n++] = op;
	return TPH_OK;
}

void ahn_discard(ahn_ctx *h, tph_statement *st)
{
	tph_idx *jhn = h->s->topo->task_job_hn;
	tph_ph_touch_stmt(&h->c->ph, st);
	for (uint32_t i = 0; i < st->n; i++)
		jhn[st->ops[i].task] = TPH_NOIDX; /* unallocate clears JobAllocatedHyperNode */
	tph_stmt_discard(st);
}

ahn_mark ahn_mark_now(const ahn_ctx *h)
{
	ahn_mark m = {0, 0};
	if (h->c->fast)
		tph_eqc_log(h->c->eqc, &m.at, &m.lost);
	return m;
}

void ahn_undo(ahn_ctx *h, tph_statement *st, const ahn_mark *m)
{
	ahn_discard(h, st);
	if (h->c->fast)
		alloc_fast_undone(h->c->fast, m->at, m->lost);
}

int ahn_save(ahn_ctx *h, const tph_statement *st, ahn_ops *ops)
{
	const tph_idx *jhn = h->s->topo->task_job_hn;
	for (uint32_t i = 0; i < st->n; i++) {
		const tph_stmt_op *op = &st->ops[i];
		int rc = ops_push(ops, (ahn_op){op->task, op->node, jhn[op->task], op->kind});
		if (rc)
			return rc;
	}
	return TPH_OK;
}

int ahn_replay(ahn_ctx *h, const ahn_op *ops, uint32_t n, tph_statement *st)
{
	for (uint32_t i = 0; i < n; i++) {
		const ahn_op *op = &ops[i];
		int rc = op->kind == TPH_OP_ALLOCATE ? tph_stmt_allocate(st, op->task, op->node)
		                                     : tph_stmt_pipeline(st, op->task, op->node);
		if (rc)
			return rc;
		h->s->topo->task_job_hn[op->task] = op->jhn;
		tph_ph_touch(&h->c->ph, op->node);
	}
	return TPH_OK;
}

/* ---- candidates ---- */

static int cand_push(ahn_ctx *h, tph_idx hn, uint32_t cur, uint32_t op0)
{
	if (h->n_cand == h->cap_cand) {
		uint32_t cap = h->cap_cand, c2 = cap, c3 = cap;
		if (tph_grow(&h->cand, &cap, h->n_cand + 1, sizeof *h->cand) ||
		    tph_grow(&h->cand_hn, &c2, h->n_cand + 1, sizeof *h->cand_hn) ||
		    tph_grow(&h->cand_score, &c3, h->n_cand + 1, sizeof *h->cand_score))
			return TPH_ENOMEM;
		h->cap_cand = cap < c2 ? (cap < c3 ? cap : c3) : (c2 < c3 ? c2 : c3);
	}
	h->cand[h->n_cand] = (ahn_cand){hn, cur, op0, h->cand_ops.n - op0};
	h->cand_hn[h->n_cand++] = hn;
	return TPH_OK;
}

/* Whether the dry run of k at hn may be skipped: sure to fail, and not the run whose fit
 * errors a job-level run that may survive would keep (the last of its group). */
static bool skip(ahn_ctx *h, ahn_ws *w, tph_idx hn, int64_t need, bool last)
{
	if (h->fidelity && last)
		return false;
	if (h->memo_on && h->first_step && h->memo[hn] == h->gen)
		return true;
	return ahn_doomed(h, w, hn, need);
}

/* One dry run; *ok when it leaves operations behind (st then holds them, applied). */
static int run(ahn_ctx *h, ahn_ws *w, tph_idx k, uint32_t *cur, tph_idx hn, tph_statement *st,
               bool *ok)
{
	ahn_reset_subjob_fit(h, w, k);
	int rc = ahn_tasks_in_hn(h, w, k, cur, hn, st, ok);
	if (rc < 0)
		return rc;
	if (*ok && !st->n)
		*ok = false;
	if (!*ok) {
		tph_stmt_free(st);
		if (h->first_step)
			h->memo[hn] = h->gen;
	}
	return TPH_OK;
}

/* A group of several hypernodes: every candidate run and discarded, the best replayed. */
static int group_many(ahn_ctx *h, ahn_ws *w, ahn_state *ws, tph_idx k, const tph_idx *hns,
                      uint32_t n, tph_statement *out, tph_idx *won, double *score)
{
	uint32_t cur0 = ws->cur[k - w->first];
	int64_t need = ahn_need(h, w, k);
	h->n_cand = 0;
	h->cand_ops.n = 0;
	for (uint32_t i = 0; i < n; i++) {
		tph_statement st;
		uint32_t cur = cur0, op0 = h->cand_ops.n;
		bool ok;
		if (skip(h, w, hns[i], need, i + 1 == n))
			continue;
		ahn_mark m = ahn_mark_now(h);
		int rc = run(h, w, k, &cur, hns[i], &st, &ok);
		if (rc)
			return rc;
		if (!ok)
			continue;
		rc = ahn_save(h, &st, &h->cand_ops);
		ahn_undo(h, &st, &m);
		if (rc || (rc = cand_push(h, hns[i], cur, op0)))
			return rc;
	}
	if (!h->n_cand)
		return TPH_OK;
	tph_hn_order(h->s, k, h->cand_hn, h->n_cand, h->cand_score);
	tph_idx best = tph_hn_best(h->cand_hn, h->cand_score, h->n_cand, score);
	uint32_t i = 0;
	while (i < h->n_cand && h->cand_hn[i] != best)
		i++;
	if (i == h->n_cand) /* a group with candidates ends the search, chosen or not */
		return TPH_DECLINED;
	*won = best;
	h->simple &= h->n_cand == 1 && best == h->try_hn;
	ws->cur[k - w->first] = h->cand[i].cur;
	return ahn_replay(h, h->cand_ops.v + h->cand[i].op0, h->cand[i].nop, out);
}

/* A group of one hypernode: scored first, its run kept. */
static int group_one(ahn_ctx *h, ahn_ws *w, ahn_state *ws, tph_idx k, tph_idx hn,
                     tph_statement *out, tph_idx *won, double *score)
{
	uint32_t cur = ws->cur[k - w->first];
	tph_statement st;
	bool ok;
	if (skip(h, w, hn, ahn_need(h, w, k), true))
		return TPH_OK;
	tph_hn_order(h->s, k, &hn, 1, score);
	ahn_mark m = ahn_mark_now(h);
	int rc = run(h, w, k, &cur, hn, &st, &ok);
	if (rc || !ok)
		return rc;
	if (tph_hn_best(&hn, score, 1, NULL) == TPH_NOIDX) { /* no score beats -inf */
		ahn_undo(h, &st, &m);
		return TPH_DECLINED;
	}
	*won = hn;
	h->simple &= hn == h->try_hn;
	ws->cur[k - w->first] = cur;
	return tph_stmt_merge(out, &st);
}

/* The gradient's groups in order until one yields a winner (or ends the search). */
static int search(ahn_ctx *h, ahn_ws *w, ahn_state *ws, tph_idx k, tph_idx hn_for_job,
                  tph_statement *out, tph_idx *won, double *score)
{
	tph_hn_gradient *g = &h->gs;
	tph_hn_gradient_for_subjob(h->s, k, hn_for_job, TPH_PURPOSE_ALLOCATE, g);
	for (uint32_t gi = 0, at = 0; gi < g->n_groups && *won == TPH_NOIDX; at = g->end[gi++]) {
		uint32_t n = g->end[gi] - at;
		int rc = n == 1 ? group_one(h, w, ws, k, g->hn[at], out, won, score)
		                : group_many(h, w, ws, k, g->hn + at, n, out, won, score);
		if (rc)
			return rc;
	}
	return TPH_OK;
}

int ahn_for_subjob(ahn_ctx *h, ahn_ws *w, ahn_state *ws, tph_idx k, tph_idx hn_for_job,
                   tph_statement *out, bool *got, double *score)
{
	tph_topo *tp = h->s->topo;
	tph_idx won = TPH_NOIDX;
	*got = false;
	*score = 0;
	if (ws->cur[k - w->first] == ahn_end(w, k))
		return TPH_OK;
	if (tp->sj.nominated[k] != TPH_NOIDX) {
		int rc = ahn_from_nomination(h, w, ws, k, hn_for_job, out, got);
		h->simple &= !*got;
		h->steps += *got;
		if (rc || *got)
			return rc;
	}
	int rc = search(h, w, ws, k, hn_for_job, out, &won, score);
	if (rc == TPH_DECLINED || won == TPH_NOIDX) {
		*score = 0;
		return rc == TPH_DECLINED ? TPH_OK : rc;
	}
	if (rc)
		return rc;
	tp->sj.hn[k] = tph_hn_lca(&tp->t, tp->sj.hn[k], won);
	*got = true;
	h->steps++;
	return ahn_dec_save(h, hn_for_job, k, tp->sj.hn[k]);
}

/* Jobs Volcano's allocate sends through allocateForJob (a hard network topology once soft is
 * made hard, or sub-group policies) and flat jobs whose placement reads hypernode state (a
 * network topology that is not hard, or a nominated hypernode): the two branches of
 * allocateResources, the context and the decision recorder. The search itself is in
 * allocate_hn_job.c, allocate_hn_sub.c and allocate_hn_tasks.c (see allocate_hn.h). */
#include "allocate_hn.h"

#include "base/mem.h"

#include <string.h>

bool alloc_job_uses_topology(const tph_session *s, tph_idx job)
{
	if (tph_topo_job_contains_hard(s, job) || tph_job_has_subjob_policy(s, job))
		return true;
	const tph_subjobs *o = tph_subjobs_of(s);
	tph_idx d = tph_job_default_subjob(s, job);
	return d != TPH_NOIDX && (o->topo_has[d] || o->nominated[d] != TPH_NOIDX);
}

bool alloc_job_skipped(const tph_session *s, tph_idx job)
{
	return !s->topo->t.ready && tph_topo_job_contains_topology(s, job);
}

/* ---- the recorder's subJobDecisions: (hyperNodeForJob, subjob) -> hypernode ---- */

static uint32_t dec_slot(const ahn_ctx *h, uint64_t key)
{
	uint64_t x = key * 0x9e3779b97f4a7c15ull;
	uint32_t i = (uint32_t)(x >> 32) & (h->dec_cap - 1);
	while (h->dec_key[i] && h->dec_key[i] != key + 1)
		i = (i + 1) & (h->dec_cap - 1);
	return i;
}

static int dec_grow(ahn_ctx *h)
{
	uint32_t cap = h->dec_cap ? h->dec_cap * 2 : 64, old = h->dec_cap;
	uint64_t *ok = h->dec_key;
	tph_idx *ov = h->dec_val;
	h->dec_key = tph_calloc(cap, sizeof *h->dec_key);
	h->dec_val = tph_calloc(cap, sizeof *h->dec_val);
	if (!h->dec_key || !h->dec_val) {
		tph_free(h->dec_key);
		tph_free(h->dec_val);
		h->dec_key = ok, h->dec_val = ov;
		return TPH_ENOMEM;
	}
	h->dec_cap = cap;
	for (uint32_t i = 0; i < old; i++)
		if (ok[i]) {
			uint32_t at = dec_slot(h, ok[i] - 1);
			h->dec_key[at] = ok[i];
			h->dec_val[at] = ov[i];
		}
	tph_free(ok);
	tph_free(ov);
	return TPH_OK;
}

int ahn_dec_save(ahn_ctx *h, tph_idx hn_for_job, tph_idx sj, tph_idx hn)
{
	if ((h->dec_n + 1) * 2 > h->dec_cap && dec_grow(h))
		return TPH_ENOMEM;
	uint64_t key = (uint64_t)hn_for_job << 32 | sj;
	uint32_t at = dec_slot(h, key);
	h->dec_n += !h->dec_key[at];
	h->dec_key[at] = key + 1;
	h->dec_val[at] = hn;
	return TPH_OK;
}

static tph_idx dec_get(const ahn_ctx *h, tph_idx hn_for_job, tph_idx sj)
{
	if (!h->dec_cap)
		return TPH_NOIDX;
	uint32_t at = dec_slot(h, (uint64_t)hn_for_job << 32 | sj);
	return h->dec_key[at] ? h->dec_val[at] : TPH_NOIDX;
}

/* Recorder.UpdateDecisionToJob, after a commit. */
static void dec_apply(ahn_ctx *h, const ahn_ws *w)
{
	tph_topo *tp = h->s->topo;
	tph_idx hj = h->job_dec[w->job];
	if (hj == TPH_NOIDX)
		return;
	tp->job_hn[w->job] = tph_hn_lca(&tp->t, tp->job_hn[w->job], hj);
	for (uint32_t i = 0; i < w->n_sj; i++) {
		tph_idx k = w->first + i, d = dec_get(h, hj, k);
		if (d == TPH_NOIDX)
			continue;
		tp->sj.hn[k] = tph_hn_lca(&tp->t, tp->sj.hn[k], d);
		tp->sj.nominated[k] = TPH_NOIDX;
	}
}

/* ---- the context ---- */

static int ctx_get(alloc_ctx *c, ahn_ctx **out)
{
	if (c->hn) {
		*out = c->hn;
		return TPH_OK;
	}
	tph_session *s = c->s;
	ahn_ctx *h = tph_calloc(1, sizeof *h);
	if (!h)
		return TPH_ENOMEM;
	c->hn = h;
	h->c = c;
	h->s = s;
	h->ws = TPH_ACT_NEW(s, ahn_ws *, s->jobs->n + 1);
	h->job_dec = TPH_ACT_NEW(s, tph_idx, s->jobs->n + 1);
	if (!h->ws || !h->job_dec || tph_topo_task_hn_make(s) || tph_hn_gradient_init(s, &h->gj) ||
	    tph_hn_gradient_init(s, &h->gs))
		return TPH_ENOMEM;
	memset(h->job_dec, 0xff, (s->jobs->n + 1) * sizeof *h->job_dec);
	*out = h;
	return ahn_bound_init(h);
}

void alloc_topology_free(alloc_ctx *c)
{
	ahn_ctx *h = c->hn;
	if (!h)
		return;
	tph_free(h->job_try.v);
	tph_free(h->job_best.v);
	tph_free(h->cand_ops.v);
	tph_free(h->cand);
	tph_free(h->cand_hn);
	tph_free(h->cand_score);
	tph_free(h->dec_key);
	tph_free(h->dec_val);
	tph_free(h);
	c->hn = NULL;
}

/* ---- the two branches of allocateResources ---- */

/* Hard topology or sub-group policies: allocateForJob from the cluster top; commit when the
 * job is ready, leave a pipelined result in place. */
static int job_branch(ahn_ctx *h, ahn_ws *w, bool *again)
{
	tph_session *s = h->s;
	tph_statement st;
	tph_stmt_init(&st, s);
	bool found = false;
	int rc = ahn_for_job(h, w, s->topo->t.top, &st, &found);
	if (rc < 0) {
		ahn_discard(h, &st);
		return rc;
	}
	if (!found)
		return TPH_OK;
	if (!tph_job_ready(s, w->job))
		return tph_stmt_keep(&st);
	rc = tph_stmt_commit(&st);
	dec_apply(h, w);
	*again = w->st[AHN_MAIN].q.n > 0;
	return rc;
}

/* A flat job (its default subjob over every node) whose tasks carry a network topology or
 * whose subjob has a nominated hypernode: the nomination first, then every node. */
static int flat_branch(ahn_ctx *h, ahn_ws *w, bool *again)
{
	tph_session *s = h->s;
	tph_topo *tp = s->topo;
	tph_idx k = tph_job_default_subjob(s, w->job);
	ahn_state *ms = &w->st[AHN_MAIN];
	tph_statement st;
	tph_stmt_init(&st, s);
	bool ok = false;
	int rc = TPH_OK;
	if (tp->sj.nominated[k] != TPH_NOIDX)
		rc = ahn_from_nomination(h, w, ms, k, tp->t.top, &st, &ok);
	if (!rc && !ok)
		rc = ahn_tasks_in_hn(h, w, k, &ms->cur[k - w->first], tp->t.top, &st, &ok);
	if (rc < 0) {
		ahn_discard(h, &st);
		return rc;
	}
	if (!ok)
		return TPH_OK;
	if (!tph_job_ready(s, w->job))
		return tph_stmt_keep(&st);
	rc = tph_stmt_commit(&st);
	tp->sj.nominated[k] = TPH_NOIDX;
	*again = ms->cur[k - w->first] < ahn_end(w, k);
	return rc;
}

int alloc_topology_job(alloc_ctx *c, tph_idx job, bool *again)
{
	ahn_ctx *h;
	*again = false;
	int rc = ctx_get(c, &h);
	ahn_ws *w = rc ? NULL : h->ws[job];
	if (!rc && !w && !(rc = ahn_ws_build(c->s, job, &w)))
		h->ws[job] = w;
	if (rc)
		return rc;
	if (tph_topo_job_contains_hard(c->s, job) || tph_job_has_subjob_policy(c->s, job))
		return job_branch(h, w, again);
	return flat_branch(h, w, again);
}

/* Volcano's allocateForJob: for each group of the job's gradient, a dry run per hypernode
 * (the worksheet cloned, fit errors reset), the successful one with the highest sum of its
 * subjobs' scores chosen (the first on a tie), its operations kept or replayed.
 *
 * Volcano runs every hypernode of a group in order; what survives of the runs it does not
 * choose is the fit errors of the last one. So a run may be skipped when it is sure to fail
 * (allocate_hn_bound.c) unless it is the group's last, and, when each run's score is known
 * before it (one subjob whose only candidate is the job's hypernode: its score is that
 * hypernode's own HyperNodeOrder), the group is tried best score first and stops at the first
 * success, the group's last run added only when its fit errors can still be seen. A run that
 * turns out not to have that shape sends the group back to the plain order. When no task of
 * the job passes Allocatable, every run fails without placing one: only each group's last
 * runs (ahn_doomed says so of the others). */
#include "allocate_hn.h"

#include "base/mem.h"

#include <math.h>
#include <string.h>

typedef struct job_res {
	bool ok, simple;
	double score;
	ahn_mark mark; /* the run's start */
} job_res;

static void hn_keep(ahn_ws *w, tph_idx *hn, bool restore)
{
	for (uint32_t i = 0; i < w->n_sj; i++) {
		if (restore)
			hn[w->first + i] = w->hn_saved[i];
		else
			w->hn_saved[i] = hn[w->first + i];
	}
}

/* The subjobs of one dry run at hn, into st; *score sums their allocation scores. */
static int job_subjobs(ahn_ctx *h, ahn_ws *w, tph_idx hn, tph_statement *st, double *score)
{
	ahn_state *ws = &w->st[AHN_TRY];
	tph_idx k;
	*score = 0;
	h->first_step = true;
	while ((k = tph_pq_pop(&ws->q)) != TPH_NOIDX) {
		uint32_t before = st->n;
		bool got;
		double sc;
		int rc = ahn_for_subjob(h, w, ws, k, hn, st, &got, &sc);
		h->first_step = false;
		if (rc)
			return rc;
		if (!got || st->n == before)
			continue;
		*score += sc;
		if (ws->cur[k - w->first] < ahn_end(w, k) && (rc = tph_pq_push(&ws->q, k)))
			return rc;
		if (tph_job_ready(h->s, w->job))
			break;
	}
	return TPH_OK;
}

/* One dry run at hn. On success st stays applied and its worksheet is w->st[AHN_TRY]. */
static int job_try(ahn_ctx *h, ahn_ws *w, tph_idx hn, bool fidelity, tph_statement *st, job_res *r)
{
	tph_session *s = h->s;
	r->mark = ahn_mark_now(h);
	tph_stmt_init(st, s);
	ahn_reset_job_fit(h, w);
	ahn_state_copy(w, &w->st[AHN_TRY], &w->st[AHN_MAIN]);
	h->fidelity = fidelity;
	h->simple = true;
	h->steps = 0;
	h->try_hn = hn;
	int rc = job_subjobs(h, w, hn, st, &r->score);
	hn_keep(w, s->topo->sj.hn, true);
	r->ok = !rc && st->n && (tph_job_ready(s, w->job) || tph_job_pipelined(s, w->job));
	r->simple = h->simple && h->steps == 1;
	if (!r->ok && rc)
		ahn_discard(h, st);
	else if (!r->ok)
		ahn_undo(h, st, &r->mark);
	return rc;
}

static void take_best(ahn_ws *w)
{
	ahn_state x = w->st[AHN_TRY];
	w->st[AHN_TRY] = w->st[AHN_BEST];
	w->st[AHN_BEST] = x;
}

/* The group's outcome: the best hypernode (TPH_NOIDX: none), its run still applied in st
 * (held) or recorded in h->job_best. */
typedef struct group_out {
	tph_idx best;
	bool held, any; /* any: some run succeeded (chosen or not) */
	tph_statement st;
	ahn_mark mark; /* the held run's start */
} group_out;

/* Another run is about to start from the group's state: record and undo the held one. */
static int release_held(ahn_ctx *h, group_out *go)
{
	if (!go->held)
		return TPH_OK;
	go->held = false;
	h->job_best.n = 0;
	int rc = ahn_save(h, &go->st, &h->job_best);
	ahn_undo(h, &go->st, &go->mark);
	return rc;
}

static void hold(ahn_ws *w, group_out *go, tph_idx hn, tph_statement *st, const job_res *r)
{
	go->best = hn;
	go->held = true;
	go->st = *st;
	go->mark = r->mark;
	take_best(w);
}

/* A run at hn needing `need` tasks is sure to fail: by the bounds (summed: its summed room was
 * found enough in the state runs start from, ahn_doomed_summed), or because the queue's
 * refusals in this search's runs let none place as many (ahn_ctx.q_cap). */
static bool doomed(ahn_ctx *h, ahn_ws *w, tph_idx hn, int64_t need, bool summed)
{
	return h->q_cap < need ||
	       (summed ? ahn_doomed_summed(h, w, hn, need) : ahn_doomed(h, w, hn, need));
}

/* Every hypernode in order, as Volcano runs them. */
static int group_full(ahn_ctx *h, ahn_ws *w, const tph_idx *hns, uint32_t n, int64_t need,
                      group_out *go)
{
	double top = -(double)INFINITY;
	for (uint32_t i = 0; i < n; i++) {
		bool last = i + 1 == n;
		tph_statement st;
		job_res r;
		h->held = go->held; /* undone before the run, not before the bound */
		bool skip = !last && doomed(h, w, hns[i], need, false);
		h->held = false;
		if (skip)
			continue;
		int rc = release_held(h, go);
		if (rc || (rc = job_try(h, w, hns[i], last, &st, &r)))
			return rc;
		if (!r.ok)
			continue;
		go->any = true;
		if (!(r.score > top)) {
			ahn_undo(h, &st, &r.mark);
			continue;
		}
		top = r.score;
		hold(w, go, hns[i], &st, &r);
	}
	return TPH_OK;
}

/* The group's candidates that can win, as a heap best score first (a group's first success
 * ends its search, so most are never taken out): each hypernode's own score for the
 * single subjob k, those whose summed room is short left out (the node-by-node bounds are
 * asked only of the runs the order reaches, ahn_doomed_summed). UINT32_MAX when the score of one
 * that may succeed is NaN or -inf (no score may beat it, and a success with it ends Volcano's
 * search: the plain order decides). */
static uint32_t rank(ahn_ctx *h, ahn_ws *w, tph_idx k, const tph_idx *hns, uint32_t n, int64_t need)
{
	tph_scored *o = h->ranked;
	tph_idx *at = h->rank_hn;
	double *sc = h->rank_sc;
	uint32_t m = 0;
	ahn_sum sum = {0};
	if (h->prune)
		ahn_sum_prep(h, w, need, &sum);
	uint32_t c = ahn_sum_keep(h, &sum, hns, n, at, o);
	tph_hn_order_each(h->s, k, at, c, sc);
	for (uint32_t j = 0; j < c; j++) {
		uint32_t i = o[j].pos;
		if (!(sc[j] > -(double)INFINITY) && ahn_hopeless(h, w, hns[i], need))
			continue;
		if (!(sc[j] > -(double)INFINITY))
			return UINT32_MAX;
		o[m++] = (tph_scored){tph_order_key(sc[j]), i};
	}
	tph_scored_heap(o, m);
	return m;
}

/* No pending task of the worksheet is left: the fit errors of other runs touch none that
 * anything still reads. */
static bool drained(const ahn_ws *w)
{
	const ahn_state *ms = &w->st[AHN_MAIN];
	for (uint32_t i = 0; i < w->n_sj; i++)
		for (uint32_t p = ms->cur[i]; p < w->off[i + 1]; p++)
			if (w->s->tasks.status[w->task[p]] == TPH_TS_PENDING)
				return false;
	return true;
}

/* Best score first, stopping at the first success; *abort when a run's score was not its
 * hypernode's own. */
static int group_fast(ahn_ctx *h, ahn_ws *w, tph_idx k, const tph_idx *hns, uint32_t n,
                      int64_t need, group_out *go, bool *abort)
{
	uint32_t m = rank(h, w, k, hns, n, need), last_run = UINT32_MAX;
	tph_statement st;
	job_res r;
	if (m == UINT32_MAX) {
		*abort = true;
		return TPH_OK;
	}
	while (m && go->best == TPH_NOIDX) {
		uint32_t i = tph_scored_pop(h->ranked, &m);
		if (i + 1 < n && doomed(h, w, hns[i], need, true))
			continue;
		int rc = job_try(h, w, hns[i], i + 1 == n, &st, &r);
		if (rc)
			return rc;
		last_run = i;
		if (r.ok && !r.simple) {
			ahn_undo(h, &st, &r.mark);
			*abort = true;
			return TPH_OK;
		}
		if (r.ok) {
			go->any = true;
			hold(w, go, hns[i], &st, &r);
		}
	}
	if (last_run + 1 == n || (go->best != TPH_NOIDX && drained(w)))
		return TPH_OK;
	int rc = release_held(h, go); /* the run whose fit errors Volcano keeps */
	if (rc || (rc = job_try(h, w, hns[n - 1], true, &st, &r)))
		return rc;
	if (r.ok)
		ahn_undo(h, &st, &r.mark);
	return TPH_OK;
}

/* Best-score-first applies to a worksheet of one subjob without a nomination. */
static tph_idx single_subjob(const ahn_ctx *h, const ahn_ws *w)
{
	const ahn_state *ms = &w->st[AHN_MAIN];
	if (!h->memo_on || ms->q.n != 1 || h->s->topo->sj.nominated[ms->q.items[0]] != TPH_NOIDX)
		return TPH_NOIDX;
	return ms->q.items[0];
}

static int group(ahn_ctx *h, ahn_ws *w, const tph_idx *hns, uint32_t n, int64_t need, group_out *go)
{
	tph_idx k = h->shut ? TPH_NOIDX : single_subjob(h, w);
	bool abort = false;
	if (k != TPH_NOIDX) {
		int rc = group_fast(h, w, k, hns, n, need, go, &abort);
		if (rc || !abort)
			return rc;
	}
	return group_full(h, w, hns, n, need, go);
}

static void next_gen(ahn_ctx *h)
{
	if (++h->gen == 0) {
		memset(h->memo, 0, (h->s->topo->t.n + 1) * sizeof *h->memo);
		h->gen = 1;
	}
}

/* A nominated subjob places under its nomination, which may lie outside the job's hypernode:
 * no bound then. */
static bool nominated(const tph_session *s, const ahn_ws *w)
{
	for (uint32_t i = 0; i < w->n_sj; i++)
		if (s->topo->sj.nominated[w->first + i] != TPH_NOIDX)
			return true;
	return false;
}

/* No task a run would visit passes Allocatable now (a nomination's check included): no run
 * of this search places one, and each starts from this state, so every run fails. */
static bool queue_shut(const ahn_ctx *h, const ahn_ws *w)
{
	const tph_session *s = h->s;
	const ahn_state *ms = &w->st[AHN_MAIN];
	tph_idx q = s->jobs->queue[w->job];
	if (!h->memo_on)
		return false;
	for (uint32_t i = 0; i < w->n_sj; i++)
		for (uint32_t p = ms->cur[i]; p < w->off[i + 1]; p++)
			if (tph_allocatable(s, q, w->task[p]))
				return false;
	return true;
}

static int for_job(ahn_ctx *h, ahn_ws *w, tph_idx avail, tph_statement *out, bool *found)
{
	tph_session *s = h->s;
	tph_hn_gradient *g = &h->gj;
	hn_keep(w, s->topo->sj.hn, false);
	next_gen(h);
	tph_hn_gradient_for_job(s, w->job, avail, TPH_PURPOSE_ALLOCATE, g);
	int64_t need = nominated(s, w) ? 0 : ahn_need(h, w, TPH_NOIDX);
	for (uint32_t gi = 0, at = 0; gi < g->n_groups; at = g->end[gi++]) {
		group_out go = {.best = TPH_NOIDX};
		int rc = group(h, w, g->hn + at, g->end[gi] - at, need, &go);
		if (rc) {
			if (go.held)
				ahn_discard(h, &go.st);
			return rc;
		}
		if (go.best == TPH_NOIDX && go.any)
			return TPH_OK; /* selectBestHyperNodeForJob found none: Volcano stops */
		if (go.best == TPH_NOIDX)
			continue;
		rc = go.held ? tph_stmt_merge(out, &go.st)
		             : ahn_replay(h, h->job_best.v, h->job_best.n, out);
		ahn_state_copy(w, &w->st[AHN_MAIN], &w->st[AHN_BEST]);
		h->job_dec[w->job] = go.best;
		*found = true;
		return rc;
	}
	return TPH_OK;
}

int ahn_for_job(ahn_ctx *h, ahn_ws *w, tph_idx avail, tph_statement *out, bool *found)
{
	*found = false;
	if (!w->st[AHN_MAIN].q.n)
		return TPH_OK;
	h->shut = queue_shut(h, w);
	h->have0 = ahn_job_have(h, w->job);
	if (h->refusal_stands)
		ahn_placed_sum(h, w, h->placed0);
	h->q_cap = INT64_MAX;
	int rc = for_job(h, w, avail, out, found);
	h->q_cap = INT64_MAX;
	h->shut = false;
	return rc;
}

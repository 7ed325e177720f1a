/* The columns shapes share (allocate_fast.h): a request row's fit verdict, gradient group and,
 * for TPH_SCORE_ROW tasks, score of every ready node, which the shapes of every pod spec with
 * that row read instead of computing them each, and a pod spec's predicate verdicts, which the
 * shapes of every request row read (on 10k-standard 195 shapes are 13 pod specs by 31 rows). */
#include "allocate_fast.h"

#include "base/mem.h"
#include "session/ep.h"
#include "session/ep_predicate.h"
#include "session/prof.h"

#include <math.h>
#include <string.h>

#define NOPOS UINT32_MAX

af_row *af_row_of(alloc_fast *f, tph_idx task)
{
	const tph_session *s = f->s;
	const int64_t *req = s->tasks.req + (size_t)task * s->ndim,
	              *nz = s->tasks.nonzero + (size_t)task * 2;
	for (uint32_t i = 0; i < f->n_rows; i++) {
		af_row *r = f->rows[i];
		if (r->nz[0] == nz[0] && r->nz[1] == nz[1] &&
		    !memcmp(r->req, req, s->ndim * sizeof *req))
			return r;
	}
	af_row *r = tph_calloc(1, sizeof *r);
	if (r)
		r->fg = tph_malloc(((size_t)f->n + 1) * sizeof *r->fg);
	if (!r || !r->fg || tph_grow(&f->rows, &f->cap_rows, f->n_rows + 1, sizeof *f->rows)) {
		if (r)
			tph_free(r->fg);
		tph_free(r);
		return NULL;
	}
	tph_reason_code insuff[TPH_RES_MAX];
	for (uint32_t d = 0; d < TPH_RES_MAX; d++)
		insuff[d] = tph_reason_insufficient(s, d);
	r->req = req;
	r->nz[0] = nz[0];
	r->nz[1] = nz[1];
	tph_fit_prepare(s, task, insuff, true, &r->ffit);
	alloc_group_req(s, task, &r->gfit);
	f->rows[f->n_rows++] = r;
	return r;
}

void af_row_free(alloc_fast *f)
{
	for (uint32_t i = 0; i < f->n_rows; i++) {
		tph_free(f->rows[i]->fg);
		tph_free(f->rows[i]->key);
		tph_free(f->rows[i]->pass);
		tph_free(f->rows[i]);
	}
	tph_free(f->rows);
	f->rows = NULL;
	f->n_rows = f->cap_rows = 0;
	for (uint32_t i = 0; i < f->n_preds; i++) {
		tph_free(f->preds[i]->code);
		tph_free(f->preds[i]->final);
		tph_free(f->preds[i]);
	}
	tph_free(f->preds);
	f->preds = NULL;
	f->n_preds = f->cap_preds = 0;
}

/* tph_fit_check against one position's row of room (FutureIdle or Idle by dimension). */
static inline tph_reason_code room_check(const tph_fit_req *restrict r,
                                         const int64_t *restrict room)
{
	for (uint32_t k = 0; k < r->n; k++)
		if (r->req[k] > room[r->dim[k]])
			return r->code[k];
	return TPH_PASS;
}

/* Fit and group of positions plist[0..k) (every position when plist is NULL), as
 * tph_filter_nodes' fit and alloc_group_in() give them, from the same values kept by
 * position (f->rec.room). */
static inline void fits_as(alloc_fast *f, af_row *r, const int64_t *room, const uint32_t *plist,
                           uint32_t k, bool built)
{
	/* in locals or restrict: the byte stores to the cells could alias them otherwise; the
	 * requests are not copied (two 456-byte copies a call, most calls check one position) */
	const uint8_t *flags = f->s->nodes.flags;
	const tph_fit_req *restrict ffit = &r->ffit, *restrict gfit = &r->gfit;
	const tph_idx *ready = f->s->ready_nodes;
	const tph_reason_code shard = f->shard_code;
	const bool soft = f->soft;
	const uint32_t w = f->rec.rw, nd = f->rec.rnd;
	af_rfit *fg = r->fg;
	/* a list's positions lie anywhere: their rows of room and cells are asked for ahead */
	const uint32_t ahead = af_ahead_end(plist, k);
	for (uint32_t i = 0; i < k; i++) {
		if (i < ahead) {
			__builtin_prefetch(room + (size_t)plist[i + AF_AHEAD] * w);
			__builtin_prefetch(&fg[plist[i + AF_AHEAD]], 1);
		}
		uint32_t p = plist ? plist[i] : i;
		const int64_t *fut = room + (size_t)p * w, *idle = fut + nd;
		bool out = (shard || soft) && !(flags[ready[p]] & TPH_NODE_IN_SHARD);
		tph_reason_code fit = shard && out ? shard : room_check(ffit, fut);
		bool in_idle = fit == TPH_PASS && room_check(gfit, idle) == TPH_PASS;
		bool in_fut = fit == TPH_PASS && !in_idle && room_check(gfit, fut) == TPH_PASS;
		if (built && fg[p].fit != fit)
			af_track_moved(f, r, NULL, p, fg[p].fit);
		fg[p].fit = fit;
		fg[p].grp = alloc_group_rule(in_idle, in_fut, soft && out);
	}
}

/* A first build does not read the cells: a fresh column's page read first maps the zero page
 * and the store then copies it, two faults (12,100 pairs on 100k-nodes). Two copies of the
 * loop, `built` a constant in each, so that neither tests it at each position. */
static void fits(alloc_fast *f, af_row *r, const int64_t *room, const uint32_t *plist, uint32_t k)
{
	if (r->built)
		fits_as(f, r, room, plist, k, true);
	else
		fits_as(f, r, room, plist, k, false);
}

/* Scores of the positions plist[0..k) that the row fits, over themselves, and the anchored
 * parts `a` (NULL: none) of the same positions from the same scoring: true when a moved. */
static bool keys(alloc_fast *f, af_row *r, tph_idx task, const uint32_t *plist, uint32_t k,
                 af_arow *a)
{
	const tph_session *s = f->s;
	uint32_t m = 0;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = plist ? plist[i] : i;
		f->sub[m] = p;
		f->nodes[m] = s->ready_nodes[p];
		m += r->fg[p].fit == TPH_PASS;
	}
	if (!m)
		return a != NULL;
	bool both = a && tph_score_nodes_row_parts(f->s, task, f->nodes, m, a->tail, f->scores,
	                                           f->pre, f->bat, f->rpart);
	if (a)
		r->kapart = !both;
	if (both)
		af_arow_put(f, a, m);
	else
		a = NULL, tph_score_nodes_row(f->s, task, f->nodes, m, f->scores);
	for (uint32_t j = 0; j < m; j++)
		r->key[f->sub[j]] = isnan(f->scores[j]) ? -(double)INFINITY : f->scores[j];
	return a != NULL;
}

int af_row_sync(alloc_fast *f, af_row *r, tph_idx task, bool want_keys)
{
	uint32_t n_log, lost;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &lost);
	const int64_t *room = af_room(f, log, n_log, lost);
	if (!room)
		return TPH_ENOMEM;
	/* keys as current as fit (the usual case): the same positions, walked once */
	bool even = r->scored && r->kseen == r->seen && r->klost == r->lost;
	const uint32_t *list;
	uint32_t k = af_stale_list(f, r->fg, sizeof *r->fg, !r->built, r->seen, r->lost, log, n_log,
	                           lost, &list);
	if (k == NOPOS)
		fits(f, r, room, NULL, f->n);
	else
		fits(f, r, room, list, k);
	r->built = true;
	r->seen = n_log;
	r->lost = lost;
	if (!want_keys)
		return TPH_OK;
	/* made at the first scoring and first written there, at the positions the row fits */
	if (!r->key && !(r->key = tph_malloc(((size_t)f->n + 1) * sizeof *r->key)))
		return TPH_ENOMEM;
	if (!even || k == NOPOS)
		k = af_stale_list(f, r->fg, sizeof *r->fg, !r->scored, r->kseen, r->klost, log,
		                  n_log, lost, &list);
	af_arow *a = af_arow_with_keys(r, k == NOPOS);
	bool moved = k == NOPOS ? keys(f, r, task, NULL, f->n, a) : keys(f, r, task, list, k, a);
	r->scored = true;
	r->kseen = n_log;
	r->klost = lost;
	r->ktask = task;
	if (moved)
		a->built = true, a->seen = n_log, a->lost = lost;
	return TPH_OK;
}

/* ---- a pod spec's predicate verdicts ---- */

af_pred *af_pred_of(alloc_fast *f, tph_idx task)
{
	const tph_pod_spec *sp = f->s->tasks.spec[task];
	for (uint32_t i = 0; i < f->n_preds; i++)
		if (f->preds[i]->spec == sp)
			return f->preds[i];
	af_pred *v = tph_calloc(1, sizeof *v);
	if (v) {
		v->code = tph_malloc(((size_t)f->n + 1) * sizeof *v->code);
		v->final = tph_calloc((size_t)f->n / 64 + 1, sizeof *v->final);
	}
	if (!v || !v->code || !v->final ||
	    tph_grow(&f->preds, &f->cap_preds, f->n_preds + 1, sizeof *f->preds)) {
		if (v)
			tph_free(v->code), tph_free(v->final);
		tph_free(v);
		return NULL;
	}
	v->spec = sp;
	v->at = f->n_preds;
	f->preds[f->n_preds++] = v;
	return v;
}

/* The positions plist[0..k) (every one when NULL) whose kept verdicts are asked again, into
 * f->at and their nodes into f->nodes: not those whose verdict is final, nor, when `pods` is
 * the plugin whose pod-count promise holds for the task, passes on nodes below their pod
 * limit (tph_declare_pass_pods). In locals and restrict, as the stores could alias them
 * otherwise. */
static uint32_t asked(alloc_fast *f, const af_pred *v, const uint32_t *plist, uint32_t k,
                      const tph_plugin_inst *pods)
{
	const tph_idx *restrict ready = f->s->ready_nodes;
	const uint64_t *restrict final = v->final;
	const tph_reason_code *restrict code = v->code;
	uint32_t *restrict at = f->at;
	tph_idx *restrict nodes = f->nodes;
	uint32_t m = 0;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = plist ? plist[i] : i;
		tph_idx x = ready[p];
		at[m] = p;
		nodes[m] = x;
		bool kept = final[p / 64] >> p % 64 & 1;
		if (pods && code[p] == TPH_PASS)
			kept = tph_pass_pods_holds(pods, x);
		m += !kept;
	}
	return m;
}

/* Store the verdicts f->vbuf[0..m) of positions f->at[0..m) (0..m when `first_build`). A new
 * verdict is final when its reason is (tph_reason_final_in) as it is reported: the code then
 * came from the first predicate plugin alone, which promised it for the session, so the mark
 * stays even if the code is shared later. */
static void store(alloc_fast *f, af_pred *v, uint32_t m, bool first_build)
{
	const tph_session *s = f->s;
	const tph_reason_row *restrict rows = s->reasons;
	const uint32_t n_rows = s->n_reasons;
	const int first = tph_reason_final_plugin(s);
	const uint32_t *restrict at = f->at;
	const tph_reason_code *restrict got = f->vbuf;
	for (uint32_t j = 0; j < m; j++) {
		uint32_t p = first_build ? j : at[j];
		tph_reason_code c = got[j];
		if (v->built) { /* only then read: a fresh column's read and write fault twice */
			tph_reason_code old = v->code[p];
			if (old == c)
				continue;
			af_track_moved(f, NULL, v, p, old);
			v->flips += (old == TPH_PASS) != (c == TPH_PASS);
			v->unsettled -= old != TPH_PASS; /* a final one is never asked */
		}
		v->code[p] = c;
		if (c != TPH_PASS && tph_reason_final_in(rows, n_rows, first, c))
			v->final[p / 64] |= (uint64_t)1 << p % 64;
		else
			v->unsettled += c != TPH_PASS;
	}
}

/* The plugin whose pod-count promise holds for `task` now (tph_declare_pass_pods), or NULL. */
static const tph_plugin_inst *promised(const tph_session *s, tph_idx task)
{
	const tph_plugin_inst *pods = tph_pass_pods_plugin(s);
	return pods && pods->pass_pods(pods->st, s, task) ? pods : NULL;
}

/* Whether no position logged since v was current needs asking, under `pods`' promise: v holds
 * no failure that is not final, and no node logged since was at its pod limit when read. The
 * log is read once for every spec; a node read below its limit keeps its count until it is
 * logged again, and a node not logged keeps its verdict. */
static bool settled(alloc_fast *f, const af_pred *v, const tph_plugin_inst *pods,
                    const tph_idx *log, uint32_t n_log, uint32_t lost)
{
	if (v->unsettled || v->lost != lost)
		return false;
	for (uint32_t i = f->pods_fed; i < n_log; i++)
		if (!tph_pass_pods_holds(pods, log[i]))
			f->pods_full = i + 1;
	f->pods_fed = n_log;
	if (f->pods_lost != lost)
		f->pods_lost = lost, f->pods_full = n_log;
	return f->pods_full <= v->seen;
}

void af_pred_sync(alloc_fast *f, af_pred *v, tph_idx task)
{
	tph_session *s = f->s;
	uint32_t n_log, lost;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &lost);
	const tph_plugin_inst *pods = v->built ? promised(s, task) : NULL;
	if (pods && settled(f, v, pods, log, n_log, lost)) {
		v->seen = n_log;
		return;
	}
	const uint32_t *list;
	uint32_t k = af_stale_list(f, v->code, sizeof *v->code, !v->built, v->seen, v->lost, log,
	                           n_log, lost, &list);
	/* a first build asks every position in order: none is final or passed yet */
	bool first_build = k == NOPOS && !v->built;
	uint32_t m = first_build  ? f->n
	             : k == NOPOS ? asked(f, v, NULL, f->n, pods)
	                          : asked(f, v, list, k, pods);
	if (first_build)
		memcpy(f->nodes, s->ready_nodes, m * sizeof *f->nodes);
	double t0 = s->prof ? tph_now_ms() : 0;
	if (m)
		tph_predicate_nodes(s, task, f->nodes, m, f->vbuf);
	if (s->prof)
		tph_prof_add(s, TPH_EP_PREDICATE, m, tph_now_ms() - t0);
	store(f, v, m, first_build);
	v->built = true;
	v->seen = n_log;
	v->lost = lost;
}

/* ANCHORED shapes whose scores split (tph_score_split_fn): the row parts every shape of one
 * request row shares (af_arow), kept current from the touch log, and a shape's keys from them
 * plus the spec part of its group's normalisation values, the same bits as tph_score_nodes; the
 * spec parts of whole scorings kept per (pod spec, values), which never go stale. */
#include "allocate_fast.h"

#include "base/mem.h"

#include <string.h>

#define NOPOS UINT32_MAX

/* The parts of a request row (its af_row: one per row and non-zero request), made when new. */
static af_arow *arow_of(alloc_fast *f, af_row *row, uint32_t tail)
{
	if (row->arow)
		return row->arow;
	if (!f->rpart)
		f->rpart = tph_malloc(((size_t)f->n + 1) * sizeof *f->rpart);
	af_arow *a = f->rpart ? tph_calloc(1, sizeof *a) : NULL;
	if (a)
		a->col = tph_malloc(3 * ((size_t)f->n + 1) * sizeof *a->col);
	if (!a || !a->col || tph_grow(&f->arows, &f->cap_arows, f->n_arows + 1, sizeof *f->arows)) {
		if (a)
			tph_free(a->col);
		tph_free(a);
		return NULL;
	}
	a->row = row;
	a->tail = tail;
	f->arows[f->n_arows++] = a;
	return row->arow = a;
}

af_arow *af_arow_with_keys(const af_row *r, bool whole)
{
	af_arow *a = r->arow;
	if (!a || whole)
		return a;
	return a->built && r->scored && a->seen == r->kseen && a->lost == r->klost ? a : NULL;
}

void af_arow_put(alloc_fast *f, af_arow *a, uint32_t m)
{
	for (uint32_t j = 0; j < m; j++) {
		double *c = &a->col[3 * (size_t)f->sub[j]];
		c[0] = f->pre[j];
		c[1] = f->bat[j];
		c[2] = f->rpart[j];
	}
}

/* A pod spec's spec parts over every ready position under one set of normalisation values.
 * They read nothing a placement changes (plugin.h), so the whole scorings of every group of
 * the spec's shapes (one shape per request row) that find the same values share them. */
struct af_aspec {
	const tph_pod_spec *spec; /* NULL: free slot */
	uint32_t n_norm;
	int64_t norm[AF_MAX_ANCHORS];
	double *col; /* [pos] */
};

/* Kept columns, replaced in turn beyond: a shape's first scorings come together. As many as a
 * sixteenth of the shape budget holds, at least one (a tiny budget replaces them all the time). */
#define AF_MAX_ASPECS 16u

static uint32_t aspec_cap(const alloc_fast *f)
{
	size_t fit = f->budget / 16 / (((size_t)f->n + 1) * sizeof(double));
	return fit < 1 ? 1 : fit > AF_MAX_ASPECS ? AF_MAX_ASPECS : (uint32_t)fit;
}

void af_anchor_free(alloc_fast *f)
{
	for (uint32_t i = 0; i < f->n_arows; i++) {
		tph_free(f->arows[i]->col);
		tph_free(f->arows[i]);
	}
	tph_free(f->arows);
	tph_free(f->rpart);
	f->rpart = NULL;
	f->arows = NULL;
	f->n_arows = f->cap_arows = 0;
	for (uint32_t i = 0; i < f->n_aspecs; i++)
		tph_free(f->aspecs[i].col);
	tph_free(f->aspecs);
	f->aspecs = NULL;
	f->n_aspecs = f->next_aspec = 0;
}

/* The parts of positions plist[0..k) (every position when NULL) that the row fits. */
static void parts(alloc_fast *f, af_arow *a, const af_row *row, tph_idx task, uint32_t tail,
                  const uint32_t *plist, uint32_t k)
{
	tph_session *s = f->s;
	uint32_t m = 0;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = plist ? plist[i] : i;
		f->sub[m] = p;
		f->nodes[m] = s->ready_nodes[p];
		m += af_row_fit(row, p) == TPH_PASS;
	}
	if (!m)
		return;
	tph_score_nodes_head(s, task, f->nodes, m, tail, f->pre, f->bat);
	tph_score_split(s, task, f->nodes, m, NULL, f->scores, NULL);
	for (uint32_t j = 0; j < m; j++) {
		double *c = &a->col[3 * (size_t)f->sub[j]];
		c[0] = f->pre[j];
		c[1] = f->bat[j];
		c[2] = f->scores[j];
	}
}

/* The parts current on their own, from the task's scores. */
static void own_parts(alloc_fast *f, af_arow *a, const af_row *row, tph_idx task, uint32_t tail)
{
	uint32_t n_log, lost;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &lost);
	const uint32_t *list;
	uint32_t k = af_stale_list(f, a->col, 3 * sizeof *a->col, !a->built, a->seen, a->lost, log,
	                           n_log, lost, &list);
	if (k == NOPOS)
		parts(f, a, row, task, tail, NULL, f->n);
	else
		parts(f, a, row, task, tail, list, k);
	a->built = true;
	a->seen = n_log;
	a->lost = lost;
}

/* A row with keys moves its parts with them (af_row_sync, one scoring of each node for both):
 * once both are current as of the same point, the keys' syncs keep them so. Where the keys
 * cannot (a plugin reduces, a batch plugin does not split), each scores apart as before. */
int af_anchor_sync(alloc_fast *f, af_shape *sh, tph_idx task)
{
	sh->split = AF_NOTAIL;
	if ((sh->loc & ~TPH_SCORE_HYPERNODE) != TPH_SCORE_ANCHORED)
		return TPH_OK;
	uint32_t tail = tph_score_split_at(f->s, task);
	af_arow *a = tail == UINT32_MAX ? NULL : sh->arow ? sh->arow : arow_of(f, sh->row, tail);
	if (!a)
		return tail == UINT32_MAX ? TPH_OK : TPH_ENOMEM;
	af_row *r = sh->row;
	bool with = r->scored && !r->kapart;
	if (!with || !af_arow_with_keys(r, false))
		own_parts(f, a, r, task, tail);
	if (with && af_row_sync(f, r, r->ktask, true))
		return TPH_ENOMEM;
	sh->arow = a;
	sh->split = tail;
	return TPH_OK;
}

static bool aspec_is(const struct af_aspec *a, const af_shape *sh, uint32_t g)
{
	return a->spec == sh->spec && a->n_norm == sh->n_norm[g] &&
	       !memcmp(a->norm, sh->norm[g], a->n_norm * sizeof *a->norm);
}

/* The kept spec parts of group g's values for the shape's pod spec; NULL when not kept. */
static const double *aspec_find(const alloc_fast *f, const af_shape *sh, uint32_t g)
{
	for (uint32_t i = 0; i < f->n_aspecs; i++)
		if (aspec_is(&f->aspecs[i], sh, g))
			return f->aspecs[i].col;
	return NULL;
}

/* The spec parts of group g's values for the shape's pod spec, made when new; NULL when out of
 * memory. */
static const double *aspec_of(alloc_fast *f, const af_shape *sh, tph_idx task, uint32_t g)
{
	const double *kept = aspec_find(f, sh, g);
	if (kept)
		return kept;
	if (!f->aspecs && !(f->aspecs = tph_calloc(AF_MAX_ASPECS, sizeof *f->aspecs)))
		return NULL;
	uint32_t cap = aspec_cap(f);
	struct af_aspec *a = &f->aspecs[f->n_aspecs < cap ? f->n_aspecs : f->next_aspec];
	if (!a->col && !(a->col = tph_malloc(((size_t)f->n + 1) * sizeof *a->col)))
		return NULL;
	f->n_aspecs += f->n_aspecs < cap;
	f->next_aspec = (uint32_t)(a - f->aspecs + 1) % cap;
	a->spec = NULL; /* valid once filled */
	tph_score_split(f->s, task, f->s->ready_nodes, f->n, sh->norm[g], NULL, a->col);
	a->spec = sh->spec;
	a->n_norm = sh->n_norm[g];
	memcpy(a->norm, sh->norm[g], a->n_norm * sizeof *a->norm);
	return a->col;
}

const double *af_anchor_kept(const alloc_fast *f, const af_shape *sh, uint32_t g)
{
	return sh->split != AF_NOTAIL && sh->n_norm[g] != AF_NONORM ? aspec_find(f, sh, g) : NULL;
}

void af_anchor_keys(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t g, const uint32_t *plist,
                    uint32_t m)
{
	/* the kept spec parts: made when the call covers a quarter of the positions, read whenever
	 * kept (they never go stale, and a few positions' parts cost a whole scoring call) */
	const double *col =
	    (uint64_t)m * 4 >= f->n ? aspec_of(f, sh, task, g) : aspec_find(f, sh, g);
	if (!col) {
		for (uint32_t i = 0; i < m; i++)
			f->nodes[i] = f->s->ready_nodes[plist[i]];
		tph_score_split(f->s, task, f->nodes, m, sh->norm[g], NULL, f->scores);
	}
	/* locals: the stores could alias the pointers, which would be loaded again each time */
	const double *part = sh->arow->col, *scores = f->scores;
	af_cell *cell = sh->cell;
	uint32_t split = sh->split;
	for (uint32_t i = 0; i < m; i++)
		cell[plist[i]].key =
		    af_anchor_key(part, split, plist[i], col ? col[plist[i]] : scores[i]);
}

/* Node types and the request rows' tournaments per type (allocate_fast_type.h). */
#include "allocate_fast_type.h"

#include "base/mem.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#define NOPOS UINT32_MAX
/* More types than this (or than a sixteenth of the positions) and a pick reading every
 * type's first costs more than the shape's own tournament: the shapes keep theirs. */
#define TYPE_MAX 256u
/* Pod specs a signature holds, one bit each. */
#define SPEC_MAX 64u
/* List entries per tournament leaf. */
#define TB 32u
/* Listed positions a row's catch-up fetches ahead (moved_all). */
#define PF 16u

/* Where a position lies: its type and its leaf's entry in a row's tournaments (win). One read
 * of the pair per touched position, not two of two arrays. */
typedef struct af_tpos {
	uint32_t type, ent;
} af_tpos;

/* The partition: positions grouped by their specs' verdicts (a bit per pod spec, in the order
 * of f->preds: the verdict passes), ascending within each type; each type's tournament lies
 * at base[i] in a row's entries (2 * cap[i] of them, 1 the root). */
typedef struct af_types {
	uint32_t gen;   /* bumped at each partition; 0: none yet */
	uint32_t n;     /* types; 0 when too many */
	af_tpos *at;    /* [pos] */
	uint32_t *list; /* [pos] positions by type */
	uint32_t off[TYPE_MAX + 1], base[TYPE_MAX], cap[TYPE_MAX];
	uint64_t sig[TYPE_MAX];
	uint32_t entries; /* of a row's tournaments */
	/* the partition holds for spec b (f->preds[b]) as of log length seen[b] (lost counter
	 * lost[b], flip counter flips[b]), checked in partition gen chk[b] */
	uint32_t chk[SPEC_MAX], seen[SPEC_MAX], lost[SPEC_MAX], flips[SPEC_MAX];
} af_types;

/* A request row's tournaments, one per type, over the row's order; current as of the log
 * length `seen`. A pick reads every type's root: they are kept side by side in `root` (each
 * equal to its tree's win[1], its `stale` the flag of that winner's leaf), so a pick reads a
 * few lines in a row and enters a tree only when its root's leaf is stale. */
typedef struct af_trow {
	const af_row *row;
	uint32_t gen; /* of the partition its entries follow */
	uint32_t seen, lost;
	uint32_t room;
	af_win *win;
	af_win root[TYPE_MAX];
} af_trow;

struct af_type_state {
	af_types t;
	af_trow **rows;
	uint32_t n_rows, cap_rows;
};

/* ---- the partition ---- */

static uint64_t signature(const alloc_fast *f, uint32_t p)
{
	uint64_t h = 0;
	for (uint32_t i = 0; i < f->n_preds; i++)
		h |= (uint64_t)(f->preds[i]->built && f->preds[i]->code[p] == TPH_PASS) << i;
	return h;
}

static uint32_t type_id(af_types *t, uint64_t sig)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->sig[i] == sig)
			return i;
	if (t->n == TYPE_MAX)
		return NOPOS;
	t->sig[t->n] = sig;
	return t->n++;
}

/* Each type's tournament: leaves of TB entries, a power of two of them. */
static void layout(af_types *t)
{
	t->entries = 0;
	for (uint32_t i = 0; i < t->n; i++) {
		uint32_t leaves = (t->off[i + 1] - t->off[i] + TB - 1) / TB, cap = 1;
		while (cap < leaves)
			cap <<= 1;
		t->base[i] = t->entries;
		t->cap[i] = cap;
		t->entries += 2 * cap;
	}
}

/* The positions grouped by their signature over the built verdict columns, each as current
 * as its column (the log length it reflects). */
static void partition(alloc_fast *f, af_types *t)
{
	uint32_t n = f->n;
	t->gen++;
	t->n = 0;
	if (f->n_preds > SPEC_MAX)
		return;
	memset(t->off, 0, sizeof t->off);
	for (uint32_t p = 0; p < n; p++) {
		uint32_t id = type_id(t, signature(f, p));
		if (id == NOPOS || (uint64_t)t->n * 16 > n) {
			t->n = 0;
			return;
		}
		t->at[p].type = id;
		t->off[id + 1]++;
	}
	for (uint32_t i = 0; i < t->n; i++)
		t->off[i + 1] += t->off[i];
	layout(t);
	uint32_t *next = f->sub;
	memcpy(next, t->off, t->n * sizeof *next);
	for (uint32_t p = 0; p < n; p++) {
		uint32_t i = t->at[p].type, e = next[i]++;
		t->at[p].ent = t->base[i] + t->cap[i] + (e - t->off[i]) / TB;
		t->list[e] = p;
	}
	for (uint32_t b = 0; b < f->n_preds; b++) {
		t->chk[b] = f->preds[b]->built ? t->gen : 0;
		t->seen[b] = f->preds[b]->seen;
		t->lost[b] = f->preds[b]->lost;
		t->flips[b] = f->preds[b]->flips;
	}
}

/* Whether spec b's verdicts still agree with the partition: when none moved between pass and
 * fail since it was last checked, they do; else the positions logged since are compared. */
static bool holds(alloc_fast *f, af_types *t, uint32_t b)
{
	const af_pred *v = f->preds[b];
	if (t->chk[b] != t->gen)
		return false;
	if (v->flips == t->flips[b]) {
		t->seen[b] = v->seen;
		t->lost[b] = v->lost;
		return true;
	}
	uint32_t n_log, lost;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &lost);
	const uint32_t *list;
	uint32_t k = af_stale_list(f, v->code, sizeof *v->code, false, t->seen[b], t->lost[b], log,
	                           v->seen, v->lost, &list);
	if (k == NOPOS)
		return false;
	uint64_t bit = (uint64_t)1 << b;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = list[i];
		if (!(t->sig[t->at[p].type] & bit) != (v->code[p] != TPH_PASS))
			return false;
	}
	t->seen[b] = v->seen;
	t->lost[b] = v->lost;
	t->flips[b] = v->flips;
	return true;
}

static struct af_type_state *state(alloc_fast *f)
{
	struct af_type_state *st = f->types;
	if (st)
		return st;
	st = tph_calloc(1, sizeof *st);
	if (!st)
		return NULL;
	st->t.at = tph_malloc(((size_t)f->n + 1) * sizeof *st->t.at);
	st->t.list = tph_malloc(((size_t)f->n + 1) * sizeof *st->t.list);
	f->types = st;
	if (st->t.at && st->t.list)
		return st;
	af_type_free(f);
	return NULL;
}

void af_type_free(alloc_fast *f)
{
	struct af_type_state *st = f->types;
	if (!st)
		return;
	for (uint32_t i = 0; i < st->n_rows; i++) {
		tph_free(st->rows[i]->win);
		tph_free(st->rows[i]);
	}
	tph_free(st->rows);
	tph_free(st->t.at);
	tph_free(st->t.list);
	tph_free(st);
	f->types = NULL;
}

/* ---- a row's tournaments ---- */

static af_trow *trow_of(struct af_type_state *st, af_row *row)
{
	if (row->trow < st->n_rows && st->rows[row->trow]->row == row)
		return st->rows[row->trow];
	for (uint32_t i = 0; i < st->n_rows; i++)
		if (st->rows[i]->row == row)
			return st->rows[row->trow = i];
	af_trow *r = tph_calloc(1, sizeof *r);
	if (!r || tph_grow(&st->rows, &st->cap_rows, st->n_rows + 1, sizeof *st->rows)) {
		tph_free(r);
		return NULL;
	}
	r->row = row;
	row->trow = st->n_rows;
	st->rows[st->n_rows++] = r;
	return r;
}

static af_win row_entry(const af_row *row, uint32_t p)
{
	uint8_t g = row->fg[p].grp;
	return g < G_NONE ? (af_win){row->key[p], p, g, 0} : AF_NOWIN;
}

/* Leaf j of type i: its entries' first in the row's order. Positions ascend within a type, so
 * a tie stays with the first; the +inf bound keeps infeasible cells (G_NONE) out. A key is
 * read only against an equal group: the key column's lines are not asked for the others. */
static af_win leaf_winner(const af_types *t, const af_row *row, uint32_t i, uint32_t j)
{
	const af_rfit *fg = row->fg;
	const double *key = row->key;
	uint32_t lo = t->off[i] + j * TB, hi = lo + TB < t->off[i + 1] ? lo + TB : t->off[i + 1];
	uint32_t bp = NOPOS;
	unsigned bg = G_NONE;
	double bk = (double)INFINITY;
	for (uint32_t e = lo; e < hi; e++) {
		uint32_t p = t->list[e];
		unsigned g = fg[p].grp;
		if (g < bg || (g == bg && key[p] > bk))
			bp = p, bg = g, bk = key[p];
	}
	return bp == NOPOS ? AF_NOWIN : (af_win){bk, bp, (uint8_t)bg, 0};
}

static void build_type(const af_types *t, af_trow *r, uint32_t i)
{
	af_win *w = r->win + t->base[i];
	uint32_t cap = t->cap[i], leaves = (t->off[i + 1] - t->off[i] + TB - 1) / TB;
	for (uint32_t j = 0; j < cap; j++)
		w[cap + j] = j < leaves ? leaf_winner(t, r->row, i, j) : AF_NOWIN;
	for (uint32_t k = cap - 1; k >= 1; k--)
		w[k] = af_win_before(&w[2 * k + 1], &w[2 * k]) ? w[2 * k + 1] : w[2 * k];
	r->root[i] = w[1];
	r->root[i].stale = 0; /* every leaf just scanned */
}

/* Position p's row cell changed (af_win_offer, as the shapes' tournaments). The root's copy
 * follows: p only got better when its leaf takes it, so a root that changes becomes p, exact;
 * when p's leaf keeps p as a bound, the root is p's (stale) leaf's if it is p. A type the row
 * fits nowhere has no entry but none, so p infeasible there changes nothing: its leaf and
 * the leaf's parent (two scattered lines) are not read. */
static void moved(const af_types *t, af_trow *r, uint32_t p)
{
	af_tpos at = t->at[p];
	af_win e = row_entry(r->row, p), *root = &r->root[at.type];
	if (e.pos == NOPOS && root->pos == NOPOS)
		return;
	uint32_t k = at.ent - t->base[at.type];
	af_win *w = r->win + t->base[at.type];
	if (af_win_offer(&w[k], e, p)) {
		af_win_fix_up(w, k);
		if (w[1].pos == p) {
			*root = w[1];
			root->stale = 0;
		}
	} else if (root->pos == p) {
		root->stale = w[k].stale;
	}
}

#ifndef NDEBUG
/* Whether type i's kept root is its tree's (the invariant moved() and the rescans keep). */
static bool root_holds(const af_types *t, const af_trow *r, uint32_t i)
{
	const af_win *w = r->win + t->base[i], *root = &r->root[i];
	if (root->pos != w[1].pos || root->grp != w[1].grp || memcmp(&root->key, &w[1].key, 8))
		return false;
	return root->pos == NOPOS || root->stale == r->win[t->at[root->pos].ent].stale;
}
#endif

/* moved() for each listed position. The positions are scattered and each offer's outcome is a
 * coin toss (a mispredicted branch stalls the loads behind it), so the entries they read are
 * fetched ahead: a position's place PF entries ahead, its leaf PF / 2 ahead (the place
 * read then is in cache; the last few go without). */
static void moved_all(const af_types *t, af_trow *r, const uint32_t *list, uint32_t k)
{
	const uint32_t ahead = af_ahead_end_by(list, k, PF);
	for (uint32_t i = 0; i < k; i++) {
		if (i < ahead) {
			__builtin_prefetch(&t->at[list[i + PF]]);
			__builtin_prefetch(r->win + t->at[list[i + PF / 2]].ent, 1);
		}
		moved(t, r, list[i]);
	}
}

/* Type i's first in the row's order: its kept root unless the root's leaf is stale, then the
 * stale leaves on the way rescanned. */
static af_win type_first(const af_types *t, af_trow *r, uint32_t i)
{
	assert(root_holds(t, r, i));
	if (!r->root[i].stale)
		return r->root[i];
	af_win *w = r->win + t->base[i];
	uint32_t cap = t->cap[i];
	while (w[1].pos != NOPOS) {
		uint32_t j = t->at[w[1].pos].ent - t->base[i] - cap;
		if (!w[cap + j].stale)
			break;
		w[cap + j] = leaf_winner(t, r->row, i, j);
		af_win_fix_up(w, cap + j);
	}
	r->root[i] = w[1];
	r->root[i].stale = 0;
	return r->root[i];
}

static int trow_sync(alloc_fast *f, const af_types *t, af_trow *r)
{
	uint32_t n_log, lost;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &lost);
	if (r->room < t->entries) {
		af_win *w = tph_realloc(r->win, t->entries * sizeof *w);
		if (!w)
			return TPH_ENOMEM;
		r->win = w;
		r->room = t->entries;
	}
	bool whole = r->gen != t->gen;
	const uint32_t *list;
	uint32_t k = af_stale_list(f, r->row->fg, sizeof *r->row->fg, whole, r->seen, r->lost, log,
	                           n_log, lost, &list);
	if (k == NOPOS)
		for (uint32_t i = 0; i < t->n; i++)
			build_type(t, r, i);
	if (k != NOPOS)
		moved_all(t, r, list, k);
	r->gen = t->gen;
	r->seen = n_log;
	r->lost = lost;
	return TPH_OK;
}

/* ---- a shape's pick ---- */

/* Type i's first in the shape's order, by a scan (the row's first is masked for it). */
static af_win shape_scan(const af_types *t, const af_shape *sh, uint32_t i)
{
	af_win best = AF_NOWIN;
	for (uint32_t j = t->off[i]; j < t->off[i + 1]; j++) {
		uint32_t p = t->list[j];
		const af_cell *c = &sh->cell[p];
		af_win e = c->grp < G_NONE ? (af_win){c->key, p, c->grp, 0} : AF_NOWIN;
		if (af_win_before(&e, &best))
			best = e;
	}
	return best;
}

/* Whether p is a candidate of the tracked shape, its cells behind: feasible now and not held
 * failed by the role's cache (mask() in allocate_fast.c, from the row and spec). */
static bool open_for(const af_shape *sh, const af_track *tr, uint32_t p)
{
	return af_type_verdict(sh, p) == TPH_PASS && tr->ov_at[p] != tr->ov_gen;
}

/* Type i's first in the shape's order among its candidates, by a scan of the row's cells. */
static af_win tracked_scan(const af_types *t, const af_shape *sh, const af_track *tr, uint32_t i)
{
	af_win best = AF_NOWIN;
	for (uint32_t j = t->off[i]; j < t->off[i + 1]; j++) {
		uint32_t p = t->list[j];
		af_win e = open_for(sh, tr, p) ? row_entry(sh->row, p) : AF_NOWIN;
		if (af_win_before(&e, &best))
			best = e;
	}
	return best;
}

static uint32_t spec_bit(const af_pred *v)
{
	return v->at < SPEC_MAX ? v->at : NOPOS;
}

/* The partition, made again when spec b is not in it (its column built since) or its verdicts
 * moved against it. */
static af_types *types(alloc_fast *f, struct af_type_state *st, uint32_t b)
{
	af_types *t = &st->t;
	if (!t->gen || (t->n && !holds(f, t, b)))
		partition(f, t);
	return t->n && t->chk[b] == t->gen ? t : NULL;
}

/* The shape's row's tournaments brought up to date (its spec at bit *b of the partition);
 * NULL when they cannot serve it. */
static af_trow *current(alloc_fast *f, const af_shape *sh, uint32_t *b)
{
	struct af_type_state *st = state(f);
	*b = st ? spec_bit(sh->pred) : NOPOS;
	af_types *t = *b == NOPOS ? NULL : types(f, st, *b);
	af_trow *r = t ? trow_of(st, sh->row) : NULL;
	return r && !trow_sync(f, t, r) ? r : NULL;
}

/* One walk of the log from the row's point: its row's tournaments, synced with it at the
 * same point in most picks, and the spec take their positions from it. */
int af_type_sync(alloc_fast *f, af_shape *sh, tph_idx task)
{
	uint32_t n_log, lost, b;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &lost);
	const af_row *row = sh->row;
	af_walk_begin(f,
	              af_stale(f, row->fg, sizeof *row->fg, !row->built, row->seen, row->lost, log,
	                       n_log, lost),
	              row->seen, n_log);
	int rc = af_row_sync(f, sh->row, task, true);
	if (!rc) {
		af_pred_sync(f, sh->pred, task);
		current(f, sh, &b); /* else af_type_first declines */
	}
	af_walk_end(f);
	return rc ? TPH_ENOMEM : TPH_OK;
}

int af_type_first(alloc_fast *f, af_shape *sh, bool cells, const af_track *tr, af_win *first)
{
	uint32_t b;
	af_trow *r = current(f, sh, &b);
	if (!r)
		return TPH_DECLINED;
	const af_types *t = &f->types->t;
	uint64_t bit = (uint64_t)1 << b;
	af_win best = AF_NOWIN;
	for (uint32_t i = 0; i < t->n; i++) {
		if (!(t->sig[i] & bit))
			continue; /* the spec's predicates fail every node of the type */
		af_win w = type_first(t, r, i);
		if (w.pos == NOPOS || !af_win_before(&w, &best))
			continue; /* a shape's first in the type is no better than the row's */
		af_win e = cells && sh->cell[w.pos].grp >= G_NONE     ? shape_scan(t, sh, i)
		           : !cells && tr && !open_for(sh, tr, w.pos) ? tracked_scan(t, sh, tr, i)
		                                                      : w;
		if (af_win_before(&e, &best))
			best = e;
	}
	*first = best;
	return TPH_OK;
}

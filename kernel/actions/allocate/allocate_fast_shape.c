/* A shape's columns (allocate_fast.h): the verdict, group and score of every ready node for
 * one pod spec and request row, and their upkeep: a whole build, or only the nodes touched
 * since the shape was last current (the tournament over them is allocate_fast_tree.c's). */
#include "allocate_fast.h"
#include "allocate_hn_rank.h"

#include "base/mem.h"
#include "session/ep_predicate.h"
#include "session/prof.h"
#include "tephra/topology.h"

#include <math.h>
#include <string.h>

#define NOPOS UINT32_MAX

/* ---- columns ---- */

static size_t af_kset_words(uint32_t n)
{
	return (size_t)n / 64 + 1;
}

size_t af_shape_bytes(const af_shape *sh, uint32_t n)
{
	size_t part = sh->tail == AF_NOTAIL ? 0 : 2 * sizeof(double) * ((size_t)n + 1);
	size_t head = af_head_only(sh) ? (size_t)n + 1 : 0;
	size_t win = head ? 0 : 2 * sizeof(af_win) * af_tree_leaves(n);
	size_t cell = af_head_bare(sh) ? 0 : sizeof(af_cell) * ((size_t)n + 1);
	size_t code = af_shared_verdicts(sh) ? 0 : sizeof(tph_reason_code) * ((size_t)n + 1);
	size_t kset = af_anchored(sh) ? G_NONE * sizeof(uint64_t) * af_kset_words(n) : 0;
	return cell + code + win + part + head + kset;
}

int af_shape_alloc(af_shape *sh, uint32_t n)
{
	bool cells = !af_head_bare(sh), head = af_head_only(sh); /* a head shape ranks nothing */
	bool codes = !af_shared_verdicts(sh);
	sh->cap = af_tree_leaves(n);
	sh->cell = cells ? tph_malloc(((size_t)n + 1) * sizeof *sh->cell) : NULL;
	sh->code = codes ? tph_malloc(((size_t)n + 1) * sizeof *sh->code) : NULL;
	sh->win = head ? NULL : tph_malloc(2 * (size_t)sh->cap * sizeof *sh->win);
	sh->known = head ? tph_malloc((size_t)n + 1) : NULL;
	bool kset = af_anchored(sh);
	for (uint32_t g = 0; kset && g < G_NONE; g++)
		kset = (sh->kset[g] = tph_malloc(af_kset_words(n) * sizeof(uint64_t))) != NULL;
	if (sh->tail != AF_NOTAIL)
		sh->part = tph_malloc(2 * ((size_t)n + 1) * sizeof *sh->part);
	if ((cells && !sh->cell) || (codes && !sh->code) || (!head && !sh->win) ||
	    (head && !sh->known) || (sh->tail != AF_NOTAIL && !sh->part) ||
	    (af_anchored(sh) && !kset)) {
		af_shape_release(sh);
		return TPH_ENOMEM;
	}
	sh->bytes = af_shape_bytes(sh, n);
	sh->built = false;
	return TPH_OK;
}

void af_shape_release(af_shape *sh)
{
	tph_free(sh->cell);
	tph_free(sh->code);
	tph_free(sh->win);
	tph_free(sh->part);
	tph_free(sh->known);
	for (uint32_t g = 0; g < G_NONE; g++) {
		tph_free(sh->kset[g]);
		sh->kset[g] = NULL;
	}
	af_hn_free(sh);
	sh->cell = NULL;
	sh->code = NULL;
	sh->win = NULL;
	sh->part = NULL;
	sh->known = NULL;
	sh->bytes = 0;
	sh->built = false;
}

/* ---- verdicts, groups, scores ---- */

/* Verdicts of the positions plist[0..k) (every position when plist is NULL): the row's (the
 * hard shard's reason outside the shard, else the fit's), then the predicates where it
 * passes, as tph_filter_nodes() gives them. */
static void verdicts(alloc_fast *f, const af_shape *sh, tph_idx task, const uint32_t *plist,
                     uint32_t k, tph_reason_code *out)
{
	tph_session *s = f->s;
	const af_rfit *rc = sh->row->fg;
	uint32_t m = 0;
	if (sh->pred) {
		const tph_reason_code *pv = sh->pred->code;
		for (uint32_t i = 0; i < k; i++) {
			uint32_t p = plist ? plist[i] : i;
			out[i] = rc[p].fit == TPH_PASS ? pv[p] : rc[p].fit;
		}
		return;
	}
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = plist ? plist[i] : i;
		out[i] = rc[p].fit;
		f->nodes[m] = s->ready_nodes[p];
		f->at[m] = i;
		m += rc[p].fit == TPH_PASS;
	}
	if (!m)
		return;
	double t0 = s->prof ? tph_now_ms() : 0;
	tph_predicate_nodes(s, task, f->nodes, m, f->vbuf);
	if (s->prof)
		tph_prof_add(s, TPH_EP_PREDICATE, m, tph_now_ms() - t0);
	for (uint32_t j = 0; j < m; j++)
		out[f->at[j]] = f->vbuf[j];
}

/* Store p's new verdict in a shape without sh->pred, telling its trackers when it changed. */
static inline void set_code(alloc_fast *f, af_shape *sh, uint32_t p, tph_reason_code code)
{
	if (sh->built && sh->code[p] != code)
		af_track_notify(f, sh, p, sh->code[p]);
	sh->code[p] = code;
}

static void store_codes(alloc_fast *f, af_shape *sh, const uint32_t *plist, uint32_t k,
                        const tph_reason_code *codes)
{
	for (uint32_t i = 0; i < k; i++)
		set_code(f, sh, plist ? plist[i] : i, codes[i]);
}

/* The group of position p given its verdict: the row's when it passes. */
static uint8_t group(const af_shape *sh, uint32_t p, tph_reason_code code)
{
	return code == TPH_PASS ? af_row_grp(sh->row, p) : G_NONE;
}

static void keys(af_shape *sh, const uint32_t *plist, uint32_t m, const double *total)
{
	af_cell *cell = sh->cell; /* a local: the stores could alias sh->cell otherwise */
	for (uint32_t i = 0; i < m; i++)
		cell[plist[i]].key = isnan(total[i]) ? -(double)INFINITY : total[i];
}

/* A split shape: the totals of plist[0..m) from the kept head sums, running only the tail. */
static void score_tail(alloc_fast *f, af_shape *sh, tph_idx task, const uint32_t *plist, uint32_t m)
{
	/* locals: the stores could alias the pointers, which would be loaded again each time */
	const tph_idx *ready = f->s->ready_nodes;
	const double *part = sh->part;
	tph_idx *nodes = f->nodes;
	double *pre = f->pre, *bat = f->bat;
	for (uint32_t i = 0; i < m; i++) {
		size_t p = plist[i];
		nodes[i] = ready[p];
		pre[i] = part[2 * p];
		bat[i] = part[2 * p + 1];
	}
	tph_score_nodes_tail(f->s, task, f->nodes, m, sh->tail, f->pre, f->bat, f->scores);
	keys(sh, plist, m, f->scores);
}

/* Total scores of positions plist[0..m), as tph_score_nodes computes them over those nodes
 * (a split shape keeps the head's sums, a TPH_SCORE_ROW shape reads its row's); f->nodes
 * keeps the nodes for the caller, but for the row's. */
static void score(alloc_fast *f, af_shape *sh, tph_idx task, const uint32_t *plist, uint32_t m)
{
	if (sh->keyrow) { /* LOCAL: no caller reads f->nodes */
		for (uint32_t i = 0; i < m; i++)
			sh->cell[plist[i]].key = af_row_key(sh->row, plist[i]);
		return;
	}
	if (af_head_only(sh)) { /* scored when a pick reads them (allocate_hn_pick.c) */
		for (uint32_t i = 0; i < m; i++)
			sh->known[plist[i]] = 0;
		return;
	}
	for (uint32_t i = 0; i < m; i++)
		f->nodes[i] = f->s->ready_nodes[plist[i]];
	if (!sh->part) {
		tph_score_nodes(f->s, task, f->nodes, m, f->scores);
		keys(sh, plist, m, f->scores);
		return;
	}
	tph_score_nodes_head(f->s, task, f->nodes, m, sh->tail, f->pre, f->bat);
	for (uint32_t i = 0; i < m; i++) {
		sh->part[2 * (size_t)plist[i]] = f->pre[i];
		sh->part[2 * (size_t)plist[i] + 1] = f->bat[i];
	}
	score_tail(f, sh, task, plist, m);
}

/* ---- a whole build ---- */

/* Every position's verdict and group, its score not yet known; the feasible positions into
 * f->sub, their count. With sh->pred the verdicts come from the shared columns in the pass. */
static uint32_t build_cells(alloc_fast *f, af_shape *sh, tph_idx task)
{
	uint32_t n = f->n, m = 0;
	const af_rfit *rc = sh->row->fg;
	const tph_reason_code *pv = sh->pred ? sh->pred->code : NULL;
	if (!pv) {
		verdicts(f, sh, task, NULL, n, f->codes);
		store_codes(f, sh, NULL, n, f->codes);
	}
	memset(sh->cnt, 0, sizeof sh->cnt);
	for (uint32_t p = 0; p < n; p++) {
		tph_reason_code code = !pv                     ? sh->code[p]
		                       : rc[p].fit == TPH_PASS ? pv[p]
		                                               : rc[p].fit;
		uint8_t g = code == TPH_PASS ? rc[p].grp : G_NONE;
		sh->cell[p] = (af_cell){.key = 0, .grp = g};
		sh->cnt[g]++;
		f->sub[m] = p;
		m += g < G_NONE;
	}
	return m;
}

static void build(alloc_fast *f, af_shape *sh, tph_idx task)
{
	uint32_t n = f->n;
	if (af_head_only(sh)) /* every head sum unknown, the part column left as it is */
		memset(sh->known, 0, n);
	if (af_head_bare(sh)) { /* nothing else of its own */
		sh->built = true;
		return;
	}
	uint32_t m = build_cells(f, sh, task);
	bool anchored = af_anchored(sh);
	memset(sh->kset_ok, 0, sizeof sh->kset_ok); /* no group scored since */
	for (uint32_t g = 0; g < G_COUNT; g++) {
		sh->dirty[g] = anchored; /* scored when first needed */
		sh->n_anchor[g] = 0;
		sh->n_norm[g] = AF_NONORM;
		sh->recheck[g] = 0;
	}
	if (!anchored && m && !af_head_only(sh))
		score(f, sh, task, f->sub, m);
	else if (sh->part && !af_head_only(sh)) /* ranks read every feasible position's sums */
		memset(sh->part, 0, 2 * (size_t)n * sizeof *sh->part);
	if (!af_head_only(sh))
		af_tree_build(sh, n);
	sh->built = true;
	af_hn_build(f, sh, task);
}

/* ---- touched nodes ---- */

static bool is_anchor(const af_shape *sh, uint32_t g, uint32_t p)
{
	if (sh->n_anchor[g] == AF_VOLATILE)
		return true;
	for (uint32_t i = 0; i < sh->n_anchor[g]; i++)
		if (sh->anchor[g][i] == p)
			return true;
	return false;
}

enum {
	AF_LEFT = 1,
	AF_JOINED = 2
};

/* A node's new group ng. For ANCHORED scores a group whose scored set lost an anchor or gained
 * a node it was not scored with is scored again whole, before it is next used; with
 * normalisation values, the group is checked first (recheck). */
static void regroup(af_shape *sh, uint32_t p, uint8_t ng)
{
	uint8_t og = sh->cell[p].grp;
	sh->cell[p].grp = ng;
	if (og != ng) {
		sh->cnt[og]--;
		sh->cnt[ng]++;
	}
	if ((sh->loc & ~TPH_SCORE_HYPERNODE) != TPH_SCORE_ANCHORED)
		return;
	if (og < G_NONE && !sh->dirty[og] && (og != ng || sh->n_anchor[og] == AF_VOLATILE) &&
	    is_anchor(sh, og, p)) {
		sh->recheck[og] |= sh->n_norm[og] != AF_NONORM ? AF_LEFT : 0;
		sh->dirty[og] = sh->n_norm[og] == AF_NONORM;
	}
	if (ng < G_NONE && og != ng && !sh->dirty[ng] &&
	    (sh->n_anchor[ng] == AF_VOLATILE || !af_shape_known(sh, ng, p))) {
		sh->recheck[ng] |= sh->n_norm[ng] != AF_NONORM ? AF_JOINED : 0;
		sh->dirty[ng] = sh->n_norm[ng] == AF_NONORM;
	}
}

/* Whether the normalisation values over nodes[0..m) are other than, or above, the group's. */
static bool moved(const alloc_fast *f, const af_shape *sh, tph_idx task, uint32_t g,
                  const tph_idx *nodes, uint32_t m, bool above)
{
	int64_t v[AF_MAX_ANCHORS];
	uint32_t k = tph_score_norm(f->s, task, nodes, m, v, AF_MAX_ANCHORS);
	if (k != sh->n_norm[g])
		return true;
	for (uint32_t i = 0; i < k; i++)
		if (above ? v[i] > sh->norm[g][i] : v[i] != sh->norm[g][i])
			return true;
	return false;
}

/* A group an anchor left: its anchors found again over the members, the group scored again
 * whole only when they give other values. */
static void recheck_left(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t g)
{
	const af_cell *cell = sh->cell;
	const tph_idx *ready = f->s->ready_nodes;
	tph_idx *nodes = f->nodes;
	uint32_t m = 0, n = f->n;
	for (uint32_t p = 0; p < n; p++) {
		nodes[m] = ready[p];
		m += cell[p].grp == g;
	}
	tph_idx a[AF_MAX_ANCHORS];
	uint32_t k = tph_score_anchors(f->s, task, f->nodes, m, a, AF_MAX_ANCHORS);
	sh->dirty[g] = k == UINT32_MAX || moved(f, sh, task, g, a, k, false);
	sh->n_anchor[g] = sh->dirty[g] ? sh->n_anchor[g] : k;
	for (uint32_t i = 0; !sh->dirty[g] && i < k; i++)
		sh->anchor[g][i] = f->pos[a[i]];
}

/* A group nodes joined: scored again whole only when their values (over them all at once,
 * the element-wise maxima of each one's) raise one of the group's. Members of the touched
 * positions it was not scored with are the joiners, and those that joined before without
 * raising a value, which raise none now either. */
static void recheck_joined(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t g, uint32_t k)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = f->plist[i];
		if (sh->cell[p].grp == g && !af_shape_known(sh, g, p))
			f->nodes[m++] = f->s->ready_nodes[p];
	}
	sh->dirty[g] = m && moved(f, sh, task, g, f->nodes, m, true);
}

/* The groups regroup marked, after the touched positions f->plist[0..k) moved. A lost
 * anchor's check takes in the joiners too: values over every member. */
static void recheck(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t k)
{
	for (uint32_t g = 0; g < G_NONE; g++) {
		uint8_t why = sh->recheck[g];
		sh->recheck[g] = 0;
		if (!why || sh->dirty[g])
			continue;
		if (why & AF_LEFT)
			recheck_left(f, sh, task, g);
		else
			recheck_joined(f, sh, task, g, k);
	}
}

/* Groups whose touched members take their keys in the verdicts' pass (reverdict_anchored),
 * with their kept spec parts, col[g] (NULL for the others, G_NONE included): in an ANCHORED
 * split shape with sh->pred and no hypernode in its scores, those whose values are known and
 * kept. Their keys read nothing the pass or recheck() changes, and a group recheck() finds due
 * whole (dirty) is scored again before a pick reads it, whatever its keys. */
static void keyed(const alloc_fast *f, const af_shape *sh, const double **col)
{
	bool split = sh->loc == TPH_SCORE_ANCHORED && sh->pred && sh->split != AF_NOTAIL;
	for (uint32_t g = 0; g < G_COUNT; g++)
		col[g] = split && g < G_NONE && !sh->dirty[g] && sh->n_anchor[g] != AF_VOLATILE
		             ? af_anchor_kept(f, sh, g)
		             : NULL;
}

/* An ANCHORED shape with sh->pred: the touched positions' verdicts and groups, the keys of
 * members of a group of col and, with `put`, their entries offered to the tournament, in one
 * read of each touched cell. A cell whose verdict or group stays (most) changes nothing else
 * (regroup), unless its group's anchors are too many to keep. Columns in locals: the byte
 * stores to the cells could alias them otherwise. */
static void reverdict_anchored(alloc_fast *f, af_shape *sh, uint32_t k, const double *const *col,
                               bool put)
{
	const af_rfit *rc = sh->row->fg;
	const tph_reason_code *pv = sh->pred->code;
	const double *part = sh->arow ? sh->arow->col : NULL;
	const uint32_t *plist = f->plist;
	af_cell *cell = sh->cell;
	af_win *win = sh->win;
	uint32_t split = sh->split, cap = sh->cap, moved = 0;
	bool vol[G_NONE];
	for (uint32_t g = 0; g < G_NONE; g++)
		vol[g] = sh->n_anchor[g] == AF_VOLATILE;
	const uint32_t ahead = af_ahead_end_by(plist, k, 2 * AF_AHEAD);
	for (uint32_t i = 0; i < k; i++) {
		/* The lines of positions ahead (scattered, mostly misses, and the branches below
		 * keep the loads from overlapping): the cells of one 2 * AF_AHEAD on; one AF_AHEAD
		 * on, the spec part of the group its row cell (asked for then) gives it when it
		 * passes, and its row's parts: a wrong guess changes no value. Not the verdicts nor
		 * the leaves (a few hundred KB at 100k nodes: they stay in L2). In the loop, not a
		 * function: GCC finds a function of prefetches alone const and drops its calls. */
		if (i < ahead) {
			uint32_t q = plist[i + 2 * AF_AHEAD], h = plist[i + AF_AHEAD];
			__builtin_prefetch(&rc[q]);
			__builtin_prefetch(&cell[q], 1);
			const double *spec = col[rc[h].fit == TPH_PASS ? rc[h].grp : G_NONE];
			if (spec) { /* the shape splits: its row's parts are kept */
				__builtin_prefetch(&spec[h]);
				__builtin_prefetch(&part[3 * (size_t)h]);
				__builtin_prefetch(&part[3 * (size_t)h + 2]);
			}
		}
		uint32_t p = plist[i];
		af_cell *c = &cell[p];
		tph_reason_code fit = rc[p].fit, code = fit == TPH_PASS ? pv[p] : fit;
		uint8_t og = c->grp, ng = code == TPH_PASS ? rc[p].grp : G_NONE;
		if (og != ng || (og < G_NONE && vol[og]))
			regroup(sh, p, ng);
		if (col[ng])
			c->key = af_anchor_key(part, split, p, col[ng][p]);
		if (put)
			af_tree_put(win, cap, (af_win){c->key, p, ng}, &moved);
	}
	if (put)
		af_tree_put_end(sh, moved);
}

/* The touched positions' verdicts stored and their groups moved: one pass when the verdicts
 * are the row's fit and the spec's predicates (sh->pred), with nothing to evaluate; ANCHORED,
 * with the keys of col's groups and perhaps the tournament's entries (reverdict_anchored). */
static void reverdict(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t k,
                      const double *const *col, bool put)
{
	if (!sh->pred) {
		verdicts(f, sh, task, f->plist, k, f->codes);
		store_codes(f, sh, f->plist, k, f->codes);
		for (uint32_t i = 0; i < k; i++)
			regroup(sh, f->plist[i], group(sh, f->plist[i], f->codes[i]));
		return;
	}
	if (af_anchored(sh)) {
		reverdict_anchored(f, sh, k, col, put);
		return;
	}
	/* The shape is built (update() follows a build). Its columns and counts in locals: the
	 * byte stores to the cells could alias them otherwise. */
	const af_rfit *rc = sh->row->fg;
	const tph_reason_code *pv = sh->pred->code;
	const uint32_t *plist = f->plist;
	af_cell *cell = sh->cell;
	uint32_t cnt[G_COUNT];
	memcpy(cnt, sh->cnt, sizeof cnt);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = plist[i];
		af_cell *c = &cell[p];
		tph_reason_code fit = rc[p].fit, code = fit == TPH_PASS ? pv[p] : fit;
		uint8_t og = c->grp, ng = code == TPH_PASS ? rc[p].grp : G_NONE;
		c->grp = ng; /* no branch: the counts move by zero when the group stays */
		cnt[og]--;
		cnt[ng]++;
	}
	memcpy(sh->cnt, cnt, sizeof cnt);
}

/* Scores of the touched feasible positions, over themselves (the row's, when they are). */
static void rescore_local(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t k)
{
	uint32_t m = 0;
	if (sh->keyrow) {
		const double *key = sh->row->key;
		for (uint32_t i = 0; i < k; i++) {
			uint32_t p = f->plist[i];
			if (sh->cell[p].grp < G_NONE)
				sh->cell[p].key = key[p];
		}
		return;
	}
	for (uint32_t i = 0; i < k; i++)
		if (sh->cell[f->plist[i]].grp < G_NONE)
			f->sub[m++] = f->plist[i];
	if (m)
		score(f, sh, task, f->sub, m);
}

/* ANCHORED: over their group's anchors and themselves (split: themselves alone), in the
 * groups not due to be scored again whole anyway nor keyed already (col[g], reverdict_anchored). */
static bool rescore_anchored(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t k,
                             const double *const *col)
{
	bool scored = false;
	for (uint32_t g = 0; g < G_NONE; g++) {
		if (sh->dirty[g] || sh->n_anchor[g] == AF_VOLATILE || col[g])
			continue;
		bool split = sh->split != AF_NOTAIL && sh->n_norm[g] != AF_NONORM, any = false;
		uint32_t m = split ? 0 : sh->n_anchor[g];
		memcpy(f->sub, sh->anchor[g], m * sizeof *f->sub);
		for (uint32_t i = 0; i < k; i++) {
			uint32_t p = f->plist[i];
			if (sh->cell[p].grp != g)
				continue;
			any = true;
			if (split || !is_anchor(sh, g, p))
				f->sub[m++] = p;
		}
		if (any && split)
			af_anchor_keys(f, sh, task, g, f->sub, m);
		else if (any)
			score(f, sh, task, f->sub, m);
		scored |= any;
	}
	return scored;
}

/* TPH_SCORE_HYPERNODE: every feasible position, the verdicts kept (with a split, the head's
 * sums too: the touched positions already have theirs), but in ANCHORED groups due to be
 * scored again whole anyway. */
static void rescore_all(alloc_fast *f, af_shape *sh, tph_idx task)
{
	/* the groups taken by table, every position stored and counted in: one load a cell and
	 * no branch (10k-topology runs this over every node at each hypernode move); locals, as
	 * the stores to sub could alias the pointers */
	uint8_t take[UINT8_MAX + 1] = {0};
	for (uint32_t g = 0; g < G_NONE; g++)
		take[g] = !sh->dirty[g];
	const af_cell *cell = sh->cell;
	uint32_t *sub = f->sub, m = 0, n = f->n;
	for (uint32_t p = 0; p < n; p++) {
		sub[m] = p;
		m += take[cell[p].grp];
	}
	if (m && sh->part)
		score_tail(f, sh, task, f->sub, m);
	else if (m)
		score(f, sh, task, f->sub, m);
}

/* The touched positions f->plist[0..k) evaluated again; `wide`: every score too. */
static inline void update(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t k, bool wide)
{
	const double *col[G_COUNT] = {0};
	if (!wide)
		keyed(f, sh, col);
	/* a listed node costs about two of a build's, and a block the build would have scanned
	 * comes back as a rescan when it wins: from a quarter, the build (10k-standard) */
	bool build = (uint64_t)k * 4 > f->n;
	/* the tournament takes the touched entries in the pass unless it builds whole (below) */
	bool put = !wide && !build && sh->loc == TPH_SCORE_ANCHORED && sh->pred &&
	           !af_head_only(sh) && !sh->tree_due;
	reverdict(f, sh, task, k, col, put);
	recheck(f, sh, task, k);
	wide = wide || sh->hn; /* ranked per hypernode set: scored whole if the ranks drop */
	bool local = (sh->loc & ~TPH_SCORE_HYPERNODE) == TPH_SCORE_LOCAL;
	if (wide && sh->part && local)
		rescore_local(f, sh, task, k);
	else if (wide && sh->part)
		rescore_anchored(f, sh, task, k, col);
	if (sh->hn && af_hn_update(f, sh, task, k) == TPH_OK)
		return;
	if (wide)
		rescore_all(f, sh, task);
	else if (local)
		rescore_local(f, sh, task, k);
	else /* keys moved after the pass: offered again, below */
		put = !rescore_anchored(f, sh, task, k, col) && put;
	if (af_head_only(sh))
		return; /* no total to rank: its picks read the columns (allocate_hn_pick.c) */
	if (wide || build)
		af_tree_build(sh, f->n);
	else if (!put)
		af_tree_update(sh, f->plist, k);
}

/* TPH_SCORE_HYPERNODE: whether a node logged since the shape was current lies in a hypernode,
 * whose aggregates its change moved for every node under that hypernode. Every ready node
 * lies under the cluster top, so one such node asks for every score again. */
static bool hn_touched(const alloc_fast *f, const af_shape *sh, uint32_t n_log)
{
	return (sh->loc & TPH_SCORE_HYPERNODE) && af_hn_since(f, sh->seen, n_log);
}

/* A bare head shape's touched positions: their head sums unknown, whatever their verdicts (a
 * position that fails now passes again only after a touch of its own, which marks it then). */
static void forget(alloc_fast *f, af_shape *sh, uint32_t k)
{
	uint8_t *known = sh->known;
	for (uint32_t i = 0; i < k; i++)
		known[f->plist[i]] = 0;
}

/* The shape's touched positions walked first, once: its row, spec and anchored row, current
 * as of the same point in most syncs, take theirs from that walk. */
int af_sync(alloc_fast *f, af_shape *sh, tph_idx task)
{
	uint32_t n_log, lost;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &lost);
	if (!sh->bytes)
		return TPH_ENOMEM;
	bool bare = af_head_bare(sh);
	uint32_t k =
	    af_stale(f, bare ? (const void *)sh->known : sh->cell, bare ? 1 : sizeof *sh->cell,
	             !sh->built, sh->seen, sh->lost, log, n_log, lost);
	af_walk_begin(f, k, sh->seen, n_log);
	int rc = af_row_sync(f, sh->row, task, sh->keyrow);
	if (!rc && sh->pred)
		af_pred_sync(f, sh->pred, task);
	if (!rc)
		rc = af_anchor_sync(f, sh, task);
	af_walk_end(f);
	if (rc)
		return TPH_ENOMEM;
	bool wide = k != NOPOS && hn_touched(f, sh, n_log);
	if (k == NOPOS)
		build(f, sh, task);
	else if (bare)
		forget(f, sh, k);
	else if (k || wide)
		update(f, sh, task, k, wide);
	sh->seen = n_log;
	sh->lost = lost;
	return TPH_OK;
}

/* Group g's members into f->sub and f->nodes, and as the set it is scored over (kset[g], a
 * word written whole for each 64 positions); their count. */
static uint32_t members(alloc_fast *f, af_shape *sh, uint32_t g)
{
	/* locals: the stores below may alias the pointers, which would be loaded again each time */
	const af_cell *cell = sh->cell;
	uint32_t *sub = f->sub, m = 0, n = f->n;
	tph_idx *nodes = f->nodes;
	const tph_idx *ready = f->s->ready_nodes;
	uint64_t *kset = sh->kset[g];
	for (uint32_t w = 0; w < af_kset_words(n); w++) {
		uint64_t bits = 0;
		for (uint32_t p = w * 64, end = p + 64 < n ? p + 64 : n; p < end; p++) {
			bool in = cell[p].grp == g;
			bits |= (uint64_t)in << (p % 64);
			sub[m] = p;
			nodes[m] = ready[p];
			m += in;
		}
		kset[w] = bits;
	}
	sh->kset_ok[g] = true;
	return m;
}

int af_rescore(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t g)
{
	bool ranked = sh->hn != NULL;
	uint32_t m = members(f, sh, g);
	tph_idx a[AF_MAX_ANCHORS] = {0};
	uint32_t k = m ? tph_score_anchors(f->s, task, f->nodes, m, a, AF_MAX_ANCHORS) : 0;
	sh->n_anchor[g] = k == UINT32_MAX ? AF_VOLATILE : k;
	for (uint32_t i = 0; k != UINT32_MAX && i < k; i++)
		sh->anchor[g][i] = f->pos[a[i]];
	sh->n_norm[g] = k == UINT32_MAX
	                    ? AF_NONORM
	                    : tph_score_norm(f->s, task, a, k, sh->norm[g], AF_MAX_ANCHORS);
	if (m && sh->split != AF_NOTAIL && sh->n_norm[g] != AF_NONORM)
		af_anchor_keys(f, sh, task, g, f->sub, m);
	else if (m)
		score(f, sh, task, f->sub, m);
	sh->dirty[g] = false;
	sh->recheck[g] = 0;
	if (sh->part) /* ranked (again): the group's new sums, the keys left as they are */
		af_hn_build(f, sh, task);
	if (sh->hn)
		return TPH_OK;
	if (ranked) /* the ranks dropped: every key the tournament reads, again */
		rescore_all(f, sh, task);
	af_tree_build(sh, f->n);
	return TPH_OK;
}

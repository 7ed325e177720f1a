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

size_t af_shape_bytes(const af_shape *sh, uint32_t n)
{
	size_t part = sh->tail == AF_NOTAIL ? 0 : 2 * sizeof(double) * ((size_t)n + 1);
	return sizeof(af_cell) * ((size_t)n + 1) + 2 * sizeof(af_win) * af_tree_leaves(n) + part;
}

int af_shape_alloc(af_shape *sh, uint32_t n)
{
	sh->cap = af_tree_leaves(n);
	sh->cell = tph_malloc(((size_t)n + 1) * sizeof *sh->cell);
	sh->win = tph_malloc(2 * (size_t)sh->cap * sizeof *sh->win);
	if (sh->tail != AF_NOTAIL)
		sh->part = tph_malloc(2 * ((size_t)n + 1) * sizeof *sh->part);
	if (!sh->cell || !sh->win || (sh->tail != AF_NOTAIL && !sh->part)) {
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
	tph_free(sh->win);
	tph_free(sh->part);
	af_hn_free(sh);
	sh->cell = NULL;
	sh->win = NULL;
	sh->part = NULL;
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
	const af_rcell *rc = sh->row->cell;
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

/* Store new verdicts, telling trackers of the shape what changed. */
static void store_codes(alloc_fast *f, af_shape *sh, const uint32_t *plist, uint32_t k,
                        const tph_reason_code *codes)
{
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = plist ? plist[i] : i;
		if (sh->built && sh->cell[p].code != codes[i])
			af_track_notify(f, sh, p, sh->cell[p].code);
		sh->cell[p].code = codes[i];
	}
}

/* The group of position p given its verdict: the row's when it passes. */
static uint8_t group(const af_shape *sh, uint32_t p, tph_reason_code code)
{
	return code == TPH_PASS ? sh->row->cell[p].grp : G_NONE;
}

static void keys(af_shape *sh, const uint32_t *plist, uint32_t m, const double *total)
{
	for (uint32_t i = 0; i < m; i++)
		sh->cell[plist[i]].key = isnan(total[i]) ? -(double)INFINITY : total[i];
}

/* A split shape: the totals of plist[0..m) from the kept head sums, running only the tail. */
static void score_tail(alloc_fast *f, af_shape *sh, tph_idx task, const uint32_t *plist, uint32_t m)
{
	for (uint32_t i = 0; i < m; i++) {
		f->nodes[i] = f->s->ready_nodes[plist[i]];
		f->pre[i] = sh->part[2 * (size_t)plist[i]];
		f->bat[i] = sh->part[2 * (size_t)plist[i] + 1];
	}
	tph_score_nodes_tail(f->s, task, f->nodes, m, sh->tail, f->pre, f->bat, f->scores);
	keys(sh, plist, m, f->scores);
}

/* Total scores of positions plist[0..m), as tph_score_nodes computes them over those nodes
 * (a split shape keeps the head's sums); f->nodes keeps the nodes for the caller. */
static void score(alloc_fast *f, af_shape *sh, tph_idx task, const uint32_t *plist, uint32_t m)
{
	for (uint32_t i = 0; i < m; i++)
		f->nodes[i] = f->s->ready_nodes[plist[i]];
	if (sh->keyrow) {
		for (uint32_t i = 0; i < m; i++)
			sh->cell[plist[i]].key = sh->row->cell[plist[i]].key;
		return;
	}
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

static void build(alloc_fast *f, af_shape *sh, tph_idx task)
{
	uint32_t n = f->n, m = 0;
	bool anchored = (sh->loc & ~TPH_SCORE_HYPERNODE) == TPH_SCORE_ANCHORED;
	verdicts(f, sh, task, NULL, n, f->codes);
	store_codes(f, sh, NULL, n, f->codes);
	memset(sh->cnt, 0, sizeof sh->cnt);
	for (uint32_t p = 0; p < n; p++) {
		uint8_t g = group(sh, p, sh->cell[p].code);
		sh->cell[p].grp = g;
		sh->cnt[g]++;
		sh->cell[p].key = 0;
		sh->cell[p].known = 0;
		if (g < G_NONE)
			f->sub[m++] = p;
	}
	for (uint32_t g = 0; g < G_COUNT; g++) {
		sh->dirty[g] = anchored; /* scored when first needed */
		sh->n_anchor[g] = 0;
	}
	if (!anchored && m)
		score(f, sh, task, f->sub, m);
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

/* A node's new group. For ANCHORED scores a group whose scored set lost an anchor or gained
 * a node it was not scored with is scored again whole, before it is next used. */
static void regroup(alloc_fast *f, af_shape *sh, uint32_t p)
{
	uint8_t og = sh->cell[p].grp, ng = group(sh, p, sh->cell[p].code);
	sh->cell[p].grp = ng;
	if (og != ng) {
		sh->cnt[og]--;
		sh->cnt[ng]++;
	}
	if ((sh->loc & ~TPH_SCORE_HYPERNODE) != TPH_SCORE_ANCHORED)
		return;
	if (og < G_NONE && (og != ng || sh->n_anchor[og] == AF_VOLATILE) && is_anchor(sh, og, p))
		sh->dirty[og] = true;
	if (ng < G_NONE && og != ng &&
	    (sh->n_anchor[ng] == AF_VOLATILE || !(sh->cell[p].known & (1u << ng))))
		sh->dirty[ng] = true;
}

/* Scores of the touched feasible positions, over themselves. */
static void rescore_local(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t k)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < k; i++)
		if (sh->cell[f->plist[i]].grp < G_NONE)
			f->sub[m++] = f->plist[i];
	if (m)
		score(f, sh, task, f->sub, m);
}

/* ANCHORED: over their group's anchors and themselves, in the groups not due to be scored
 * again whole anyway. */
static void rescore_anchored(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t k)
{
	for (uint32_t g = 0; g < G_NONE; g++) {
		if (sh->dirty[g] || sh->n_anchor[g] == AF_VOLATILE)
			continue;
		uint32_t m = sh->n_anchor[g];
		bool any = false;
		memcpy(f->sub, sh->anchor[g], m * sizeof *f->sub);
		for (uint32_t i = 0; i < k; i++) {
			uint32_t p = f->plist[i];
			if (sh->cell[p].grp != g)
				continue;
			any = true;
			if (!is_anchor(sh, g, p))
				f->sub[m++] = p;
		}
		if (any)
			score(f, sh, task, f->sub, m);
	}
}

/* TPH_SCORE_HYPERNODE: every feasible position, the verdicts kept (with a split, the head's
 * sums too: the touched positions already have theirs), but in ANCHORED groups due to be
 * scored again whole anyway. */
static void rescore_all(alloc_fast *f, af_shape *sh, tph_idx task)
{
	uint32_t m = 0;
	for (uint32_t p = 0; p < f->n; p++)
		if (sh->cell[p].grp < G_NONE && !sh->dirty[sh->cell[p].grp])
			f->sub[m++] = p;
	if (m && sh->part)
		score_tail(f, sh, task, f->sub, m);
	else if (m)
		score(f, sh, task, f->sub, m);
}

/* The touched positions f->plist[0..k) evaluated again; `wide`: every score too. */
static void update(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t k, bool wide)
{
	if (k) {
		verdicts(f, sh, task, f->plist, k, f->codes);
		store_codes(f, sh, f->plist, k, f->codes);
	}
	for (uint32_t i = 0; i < k; i++)
		regroup(f, sh, f->plist[i]);
	wide = wide || sh->hn; /* ranked per hypernode set: scored whole if the ranks drop */
	bool local = (sh->loc & ~TPH_SCORE_HYPERNODE) == TPH_SCORE_LOCAL;
	if (wide && sh->part && local)
		rescore_local(f, sh, task, k);
	else if (wide && sh->part)
		rescore_anchored(f, sh, task, k);
	if (sh->hn && af_hn_update(f, sh, task, k) == TPH_OK)
		return;
	if (wide)
		rescore_all(f, sh, task);
	else if (local)
		rescore_local(f, sh, task, k);
	else
		rescore_anchored(f, sh, task, k);
	/* a listed node costs about two of a build's, and a block the build would have scanned
	 * comes back as a rescan when it wins: from a quarter, the build (10k-standard) */
	if (wide || (uint64_t)k * 4 > f->n)
		af_tree_build(sh, f->n);
	else
		af_tree_update(sh, f->plist, k);
}

/* Even when most nodes changed this beats a build, which evaluates every node; many positions
 * are put back in ascending order, so the evaluations walk the node columns forward. */
uint32_t af_touched(alloc_fast *f, uint32_t seen, const tph_idx *log, uint32_t n_log,
                    const void *cells, size_t size)
{
	uint32_t k = 0, gen = ++f->mark_gen, *mark = f->mark, *plist = f->plist;
	const uint32_t *pos = f->pos;
	/* No branch (repeats are common and unpredictable): every entry is written at plist[k]
	 * and kept only when fresh; a node that is not ready marks the spare slot f->n. */
	for (uint32_t i = seen; i < n_log; i++) {
		uint32_t p = pos[log[i]], q = p == NOPOS ? f->n : p;
		uint32_t fresh = (mark[q] != gen) & (p != NOPOS);
		mark[q] = gen;
		plist[k] = p;
		k += fresh;
		__builtin_prefetch((const char *)cells + q * size, 1); /* cold after a while */
	}
	if ((uint64_t)k * 8 > f->n) {
		k = 0;
		for (uint32_t p = 0; p < f->n; p++) {
			plist[k] = p;
			k += mark[p] == gen;
		}
	}
	return k;
}

/* TPH_SCORE_HYPERNODE: whether a node logged since the shape was current lies in a hypernode,
 * whose aggregates its change moved for every node under that hypernode. Every ready node
 * lies under the cluster top, so one such node asks for every score again. */
static bool hn_touched(const alloc_fast *f, const af_shape *sh, const tph_idx *log, uint32_t n_log)
{
	if (!(sh->loc & TPH_SCORE_HYPERNODE) || sh->seen == n_log)
		return false;
	if (!f->s->topo)
		return true;
	const uint32_t *of_off = f->s->topo->t.of_off;
	for (uint32_t i = sh->seen; i < n_log; i++)
		if (of_off[log[i]] != of_off[log[i] + 1])
			return true;
	return false;
}

int af_sync(alloc_fast *f, af_shape *sh, tph_idx task)
{
	uint32_t n_log, lost, k = NOPOS;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &lost);
	if (!sh->cell || af_row_sync(f, sh->row, task, sh->keyrow))
		return TPH_ENOMEM;
	if (sh->pred)
		af_pred_sync(f, sh->pred, task);
	if (sh->built && sh->lost == lost && n_log - sh->seen <= (uint64_t)f->n * 4)
		k = af_touched(f, sh->seen, log, n_log, sh->cell, sizeof *sh->cell);
	bool wide = k != NOPOS && hn_touched(f, sh, log, n_log);
	if (k == NOPOS)
		build(f, sh, task);
	else if (k || wide)
		update(f, sh, task, k, wide);
	sh->seen = n_log;
	sh->lost = lost;
	return TPH_OK;
}

int af_rescore(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t g)
{
	uint32_t m = 0, bit = 1u << g;
	for (uint32_t p = 0; p < f->n; p++) {
		bool in = sh->cell[p].grp == g;
		sh->cell[p].known =
		    (uint8_t)(in ? sh->cell[p].known | bit : sh->cell[p].known & ~bit);
		if (in)
			f->sub[m++] = p;
	}
	tph_idx a[AF_MAX_ANCHORS];
	uint32_t k = 0;
	if (m) {
		score(f, sh, task, f->sub, m);
		k = tph_score_anchors(f->s, task, f->nodes, m, a, AF_MAX_ANCHORS);
	}
	sh->n_anchor[g] = k == UINT32_MAX ? AF_VOLATILE : k;
	for (uint32_t i = 0; k != UINT32_MAX && i < k; i++)
		sh->anchor[g][i] = f->pos[a[i]];
	sh->dirty[g] = false;
	af_tree_build(sh, f->n);
	return TPH_OK;
}

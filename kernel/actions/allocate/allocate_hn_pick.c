/* A task's pick inside a hypernode from its head shape (allocate_fast.h): what feasible() and
 * alloc_best_node() decide over the hypernode's nodes, with the verdicts, groups and head sums
 * read from the columns and only the free tail (tph_score_free_tail: network-topology-aware,
 * whose scores read where the subjob is being placed and tie over the call's nodes) run over
 * the candidates, as tph_score_nodes would run it over them. */
#include "allocate_fast.h"

#include <math.h>

static tph_reason_code code_of(const af_shape *sh, const af_track *t, uint32_t p)
{
	return t ? af_track_code(t, p) : sh->cell[p].code;
}

/* The members of group g among the passing nodes, in their order, into f->nodes, with their
 * positions in f->sub. */
static uint32_t members(alloc_fast *f, const af_shape *sh, const af_track *t, const tph_idx *nodes,
                        uint32_t n, uint8_t g)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = f->pos[nodes[i]];
		f->nodes[m] = nodes[i];
		f->sub[m] = p;
		m += code_of(sh, t, p) == TPH_PASS && sh->cell[p].grp == g;
	}
	return m;
}

#define NOPOS UINT32_MAX

/* lo when nodes[0..n) are the ready positions lo, lo + 1, ..., lo + n - 1: a hypernode's nodes
 * are ascending and distinct (topology.h), as the ready positions are, so its first and last
 * decide it (racks and zones listed in node order, the cluster top); else NOPOS. */
static uint32_t range_of(const alloc_fast *f, const tph_idx *nodes, uint32_t n)
{
	if (!n)
		return NOPOS;
	uint32_t lo = f->pos[nodes[0]], hi = f->pos[nodes[n - 1]];
	return lo != NOPOS && hi != NOPOS && hi >= lo && hi - lo == n - 1 ? lo : NOPOS;
}

/* The count of each group among the passing nodes and the members of the first group (G_IDLE,
 * nearly always the one chosen from) taken in the same pass; how many pass. Most nodes fail
 * (full), so the pass reads only their verdict: positions from lo when the nodes are a range,
 * and the verdicts into codes only when none passes (the caller's only use of them). Inlined
 * with constant `range` and `track`, one loop per case with no test per node. */
static inline uint32_t scan(alloc_fast *f, const af_shape *sh, const af_track *t,
                            const tph_idx *nodes, uint32_t n, uint32_t lo, bool range, bool track,
                            uint32_t cnt[G_COUNT])
{
	uint32_t feasible = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = range ? lo + i : f->pos[nodes[i]];
		if ((track ? af_track_code(t, p) : sh->cell[p].code) != TPH_PASS)
			continue;
		feasible++;
		uint8_t g = sh->cell[p].grp;
		f->nodes[cnt[G_IDLE]] = nodes[i];
		f->sub[cnt[G_IDLE]] = p;
		cnt[g]++;
	}
	return feasible;
}

static uint32_t verdicts(alloc_fast *f, const af_shape *sh, const af_track *t, const tph_idx *nodes,
                         uint32_t n, tph_reason_code *codes, uint32_t cnt[G_COUNT])
{
	uint32_t lo = range_of(f, nodes, n), feasible;
	if (lo != NOPOS)
		feasible = t ? scan(f, sh, t, nodes, n, lo, true, true, cnt)
		             : scan(f, sh, NULL, nodes, n, lo, true, false, cnt);
	else
		feasible = t ? scan(f, sh, t, nodes, n, 0, false, true, cnt)
		             : scan(f, sh, NULL, nodes, n, 0, false, false, cnt);
	for (uint32_t i = 0; !feasible && i < n; i++)
		codes[i] = code_of(sh, t, f->pos[nodes[i]]);
	return feasible;
}

/* The head sums of the m members: those a touch left unknown (NaN, score() in
 * allocate_fast_shape.c) scored first, in one call over them in the members' order (the head's
 * scores are node-local, so any set of nodes gives each the same sums). */
static void head_sums(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t m)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < m; i++) {
		f->feas[k] = f->nodes[i];
		f->at[k] = f->sub[i];
		k += isnan(sh->part[2 * (size_t)f->sub[i]]);
	}
	if (k) {
		if (tph_score_head_splits(f->s, task, sh->tail)) /* a call costs no batch spans */
			tph_score_nodes_head_split(f->s, task, f->feas, k, sh->tail, f->pre,
			                           f->bat);
		else
			tph_score_nodes_head(f->s, task, f->feas, k, sh->tail, f->pre, f->bat);
		for (uint32_t j = 0; j < k; j++) {
			sh->part[2 * (size_t)f->at[j]] = f->pre[j];
			sh->part[2 * (size_t)f->at[j] + 1] = f->bat[j];
		}
	}
	for (uint32_t i = 0; i < m; i++) {
		f->pre[i] = sh->part[2 * (size_t)f->sub[i]];
		f->bat[i] = sh->part[2 * (size_t)f->sub[i] + 1];
	}
}

int af_head_choose(alloc_fast *f, af_shape *sh, const af_track *t, tph_idx task,
                   const tph_idx *nodes, uint32_t n, tph_idx *node, tph_reason_code *codes)
{
	uint32_t cnt[G_COUNT] = {0};
	if (!verdicts(f, sh, t, nodes, n, codes, cnt))
		return AF_NONE;
	*node = TPH_NOIDX;
	for (uint8_t g = 0; g < G_NONE; g++) {
		if (!cnt[g])
			continue;
		uint32_t m = g == G_IDLE ? cnt[g] : members(f, sh, t, nodes, n, g);
		if (m == 1) { /* a single candidate is taken unscored */
			*node = f->nodes[0];
			return AF_NODE;
		}
		head_sums(f, sh, task, m);
		if (!tph_score_nodes_tail(f->s, task, f->nodes, m, sh->tail, f->pre, f->bat,
		                          f->scores))
			continue; /* a failed BatchNodeOrder: no node of this group */
		*node = tph_best_node(f->s, task, f->nodes, f->scores, m);
		if (*node != TPH_NOIDX)
			return AF_NODE;
	}
	return AF_NODE;
}

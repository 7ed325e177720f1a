/* A shape's tournament (allocate_fast.h): positions in blocks of AF_BLOCK, a winner per block
 * and per tree node above, ordered as prioritizeNodes and SelectBestNode choose: the lower
 * group, then the higher score, then the lower position (the first of equal scores). */
#include "allocate_fast.h"
#include "allocate_hn_rank.h"

#define NOPOS UINT32_MAX

uint32_t af_tree_leaves(uint32_t n)
{
	uint32_t blocks = (n + AF_BLOCK - 1) / AF_BLOCK, cap = 1;
	while (cap < blocks)
		cap <<= 1;
	return cap;
}

/* Whether a comes before b; equal group and score go to the lower position. */
static inline bool before(const af_win *a, const af_win *b)
{
	if (a->pos == NOPOS || b->pos == NOPOS)
		return b->pos == NOPOS && a->pos != NOPOS;
	if (a->grp != b->grp)
		return a->grp < b->grp;
	if (a->key != b->key)
		return a->key > b->key;
	return a->pos < b->pos;
}

static af_win entry(const af_shape *sh, uint32_t p)
{
	return (af_win){sh->cell[p].key, p, sh->cell[p].grp};
}

/* Positions lo..hi-1 in one pass with the best so far in registers; the start (group
 * UINT8_MAX) loses to any cell, so an empty range alone gives NOPOS. */
static af_win range_winner(const af_shape *sh, uint32_t lo, uint32_t hi)
{
	uint32_t best = NOPOS;
	uint8_t grp = UINT8_MAX;
	double key = 0;
	for (uint32_t p = lo; p < hi; p++) {
		const af_cell *c = &sh->cell[p];
		bool win = c->grp < grp || (c->grp == grp && c->key > key);
		best = win ? p : best;
		key = win ? c->key : key;
		grp = win ? c->grp : grp;
	}
	return best == NOPOS ? (af_win){0, NOPOS, 0} : entry(sh, best);
}

static af_win block_winner(const af_shape *sh, uint32_t n, uint32_t b)
{
	uint32_t lo = b * AF_BLOCK;
	return range_winner(sh, lo, n - lo < AF_BLOCK ? n : lo + AF_BLOCK);
}

static af_win merge(const af_win *left, const af_win *right)
{
	return before(right, left) ? *right : *left;
}

void af_tree_build(af_shape *sh, uint32_t n)
{
	for (uint32_t b = 0; b < sh->cap; b++)
		sh->win[sh->cap + b] =
		    b * AF_BLOCK < n ? block_winner(sh, n, b) : (af_win){0, NOPOS, 0};
	for (uint32_t i = sh->cap - 1; i >= 1; i--)
		sh->win[i] = merge(&sh->win[2 * i], &sh->win[2 * i + 1]);
}

af_win af_tree_range(const af_shape *sh, uint32_t lo, uint32_t hi)
{
	uint32_t bl = lo / AF_BLOCK, bh = (hi - 1) / AF_BLOCK;
	if (bl == bh)
		return range_winner(sh, lo, hi);
	af_win a = range_winner(sh, lo, (bl + 1) * AF_BLOCK);
	af_win b = range_winner(sh, bh * AF_BLOCK, hi);
	af_win best = merge(&a, &b);
	/* the whole blocks between, bottom-up over the tree */
	for (uint32_t l = sh->cap + bl + 1, r = sh->cap + bh; l < r; l >>= 1, r >>= 1) {
		if (l & 1)
			best = merge(&best, &sh->win[l++]);
		if (r & 1)
			best = merge(&best, &sh->win[--r]);
	}
	return best;
}

static bool same(const af_win *a, const af_win *b)
{
	return a->pos == b->pos && a->grp == b->grp && a->key == b->key;
}

/* Every other position of the block is, as it stands or as it stood at its last call, no
 * better than the block's entry; so only a winner that got worse makes the block be scanned,
 * and the walk up stops at the first node whose entry stays. */
void af_tree_update(af_shape *sh, uint32_t n, uint32_t p)
{
	if (sh->hn) { /* ranked per hypernode set: the tournament is the sets' */
		af_hn_moved(sh, p);
		return;
	}
	uint32_t i = sh->cap + p / AF_BLOCK;
	af_win now = entry(sh, p), *w = &sh->win[i];
	if (w->pos == p)
		*w = before(w, &now) ? block_winner(sh, n, p / AF_BLOCK) : now;
	else if (before(&now, w))
		*w = now;
	else
		return;
	for (i >>= 1; i; i >>= 1) {
		af_win m = merge(&sh->win[2 * i], &sh->win[2 * i + 1]);
		if (same(&m, &sh->win[i]))
			return;
		sh->win[i] = m;
	}
}

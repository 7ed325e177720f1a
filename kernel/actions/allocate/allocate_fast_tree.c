/* A shape's tournament (allocate_fast.h): positions in blocks of AF_BLOCK, a winner per block
 * and per tree node above, ordered as prioritizeNodes and SelectBestNode choose: the lower
 * group, then the higher score, then the lower position (the first of equal scores). */
#include "allocate_fast.h"

#define NOPOS UINT32_MAX

uint32_t af_tree_leaves(uint32_t n)
{
	uint32_t blocks = (n + AF_BLOCK - 1) / AF_BLOCK, cap = 1;
	while (cap < blocks)
		cap <<= 1;
	return cap;
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
	return best == NOPOS ? AF_NOWIN : entry(sh, best);
}

static af_win block_winner(const af_shape *sh, uint32_t n, uint32_t b)
{
	uint32_t lo = b * AF_BLOCK;
	return range_winner(sh, lo, n - lo < AF_BLOCK ? n : lo + AF_BLOCK);
}

static af_win merge(const af_win *left, const af_win *right)
{
	return af_win_before(right, left) ? *right : *left;
}

/* Copied through a pointer to the winning child, as in af_win_fix_up. */
static void merge_all(af_shape *sh)
{
	af_win *win = sh->win;
	for (uint32_t i = sh->cap - 1; i >= 1; i--) {
		const af_win *l = &win[2 * i], *r = &win[2 * i + 1];
		win[i] = af_win_before(r, l) ? *r : *l;
	}
}

static void build_now(af_shape *sh, uint32_t n)
{
	for (uint32_t b = 0; b < sh->cap; b++)
		sh->win[sh->cap + b] = b * AF_BLOCK < n ? block_winner(sh, n, b) : AF_NOWIN;
	merge_all(sh);
	sh->tree_due = false;
}

/* An ANCHORED shape's build is followed by its first group's scoring, which builds again, and
 * catch-ups and scorings may follow each other before a read: one build serves them all. */
void af_tree_build(af_shape *sh, uint32_t n)
{
	if (sh->loc & TPH_SCORE_HYPERNODE)
		build_now(sh, n);
	else
		sh->tree_due = true;
}

/* A stale block's entry is a bound that loses to any exact entry before it, so a first whose
 * block is not stale is the true first. */
static bool settle(af_shape *sh, uint32_t n, const af_win *first)
{
	if (first->pos == NOPOS)
		return true;
	uint32_t i = sh->cap + first->pos / AF_BLOCK;
	if (!sh->win[i].stale)
		return true;
	sh->win[i] = block_winner(sh, n, first->pos / AF_BLOCK);
	af_win_fix_up(sh->win, i);
	return false;
}

af_win af_tree_first(af_shape *sh, uint32_t n)
{
	if (sh->tree_due)
		build_now(sh, n);
	while (!settle(sh, n, &sh->win[1]))
		;
	return sh->win[1];
}

static af_win range_first(const af_shape *sh, uint32_t lo, uint32_t hi)
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

af_win af_tree_range(af_shape *sh, uint32_t n, uint32_t lo, uint32_t hi)
{
	af_win w;
	if (sh->tree_due)
		build_now(sh, n);
	do
		w = range_first(sh, lo, hi);
	while (!settle(sh, n, &w));
	return w;
}

void af_tree_update(af_shape *sh, const uint32_t *plist, uint32_t k)
{
	if (sh->tree_due)
		return; /* the build will read the cells */
	const af_cell *cell = sh->cell;
	af_win *win = sh->win;
	uint32_t moved = 0, cap = sh->cap;
	for (uint32_t i = 0; i < k; i++)
		af_tree_put(win, cap, (af_win){cell[plist[i]].key, plist[i], cell[plist[i]].grp},
		            &moved);
	af_tree_put_end(sh, moved);
}

/* past cap / 8 walks up (of up to log2(cap) merges each), merging every node is cheaper */
void af_tree_put_end(af_shape *sh, uint32_t moved)
{
	if (moved > sh->cap / 8)
		merge_all(sh);
}

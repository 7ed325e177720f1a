/* Scores in Volcano's node order (util.SortNodes: the highest first, NaN last as Go sorts it,
 * equal scores in candidate order) as integer keys, and a binary heap over them for callers
 * that take only the first few: preempt's nodes, the hypernode search's candidates. */
#include "action_util.h"

/* Static, so that the heap's loops inline it (an exported function of the shared library
 * could be interposed, so is not inlined). */
static bool first(const tph_scored *x, const tph_scored *y)
{
	return x->key != y->key ? x->key > y->key : x->pos < y->pos;
}

int tph_scored_cmp(const void *a, const void *b)
{
	const tph_scored *x = a, *y = b;
	if (x->key == y->key && x->pos == y->pos)
		return 0;
	return first(x, y) ? -1 : 1;
}

/* The child of i that goes first (n > 2 i + 1). */
static uint32_t child(const tph_scored *h, uint32_t n, uint32_t i)
{
	uint32_t l = 2 * i + 1;
	return l + 1 < n && first(&h[l + 1], &h[l]) ? l + 1 : l;
}

/* x into the hole at i, moved down past every child that goes before it. */
static void sift_down(tph_scored *h, uint32_t n, uint32_t i, tph_scored x)
{
	while (2 * i + 1 < n) {
		uint32_t m = child(h, n, i);
		if (!first(&h[m], &x))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
}

void tph_scored_heap(tph_scored *h, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(h, n, i, h[i]);
}

/* The hole the first entry leaves goes down to a leaf along the children that go first (one
 * comparison a level), and the last entry rises from there: it came from the bottom, so it
 * seldom rises far (Floyd's order of the comparisons; the same entries come out, in order). */
uint32_t tph_scored_pop(tph_scored *h, uint32_t *n)
{
	uint32_t pos = h[0].pos, i = 0, m = --*n;
	tph_scored x = h[m];
	while (2 * i + 1 < m) {
		uint32_t c = child(h, m, i);
		h[i] = h[c];
		i = c;
	}
	while (i && first(&x, &h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
	return pos;
}

/* Scores in Volcano's node order (util.SortNodes: the highest first, NaN last as Go sorts it,
 * equal scores in candidate order) as integer keys, and a binary heap over them for callers
 * that take only the first few: preempt's nodes, the hypernode search's candidates. */
#include "action_util.h"

/* Static, so that the heap's loops inline it (an exported function of the shared library
 * could be interposed, so is not inlined). */
static int cmp(const tph_scored *x, const tph_scored *y)
{
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

int tph_scored_cmp(const void *a, const void *b)
{
	return cmp(a, b);
}

static void sift_down(tph_scored *h, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		if (l < n && cmp(&h[l], &h[m]) < 0)
			m = l;
		if (l + 1 < n && cmp(&h[l + 1], &h[m]) < 0)
			m = l + 1;
		if (m == i)
			return;
		tph_scored t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

void tph_scored_heap(tph_scored *h, uint32_t n)
{
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(h, n, i);
}

uint32_t tph_scored_pop(tph_scored *h, uint32_t *n)
{
	uint32_t pos = h[0].pos;
	h[0] = h[--*n];
	sift_down(h, *n, 0);
	return pos;
}

/* Sorted keys for the checker's lookups by name: expect: and probe: lists as long as the
 * cluster (50,000 expected binds, a 50,000-task order) took minutes by linear search. */
#include "check_core.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

static int by_key(const void *a, const void *b)
{
	const tph_keyed *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->i > y->i) - (x->i < y->i);
}

tph_keyed *tph_keyed_new(uint32_t n)
{
	return tph_calloc(n + 1, sizeof(tph_keyed));
}

void tph_keyed_sort(tph_keyed *v, uint32_t n)
{
	if (n)
		qsort(v, n, sizeof *v, by_key);
}

uint32_t tph_keyed_find(const tph_keyed *v, uint32_t n, const char *key)
{
	uint32_t lo = 0, hi = n; /* the first entry not below key */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid].key, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(v[lo].key, key) ? v[lo].i : UINT32_MAX;
}

/* Merge sort of pos[lo, hi) by cmp over ids, stable; tmp holds as many entries. */
static void merge_sort(uint32_t *pos, uint32_t *tmp, uint32_t lo, uint32_t hi, const tph_idx *ids,
                       tph_order_fn cmp, const tph_session *s)
{
	if (hi - lo < 2)
		return;
	uint32_t mid = lo + (hi - lo) / 2, a = lo, b = mid, k = lo;
	merge_sort(pos, tmp, lo, mid, ids, cmp, s);
	merge_sort(pos, tmp, mid, hi, ids, cmp, s);
	while (a < mid && b < hi)
		tmp[k++] = cmp(s, ids[pos[b]], ids[pos[a]]) < 0 ? pos[b++] : pos[a++];
	while (a < mid)
		tmp[k++] = pos[a++];
	while (b < hi)
		tmp[k++] = pos[b++];
	memcpy(pos + lo, tmp + lo, (hi - lo) * sizeof *pos);
}

int tph_stable_order(uint32_t *pos, uint32_t n, const tph_idx *ids, tph_order_fn cmp,
                     const tph_session *s)
{
	uint32_t *tmp = tph_calloc(n + 1, sizeof *tmp);
	if (!tmp)
		return TPH_ENOMEM;
	merge_sort(pos, tmp, 0, n, ids, cmp, s);
	tph_free(tmp);
	return TPH_OK;
}

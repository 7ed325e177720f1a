/* Unit tests for kernel/actions/allocate/allocate_fast_tree.c: the tournament over a shape's
 * positions answers a range of positions (a hypernode's, alloc_fast_pick_among) as a scan of
 * that range would: the lower group, then the higher score, then the lower position; after
 * builds and after updates of single positions, with ties, -inf scores and empty groups. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "allocate/allocate_fast.h"

/* The scan's answer over lo..hi-1. */
static uint32_t scan(const af_shape *sh, uint32_t lo, uint32_t hi)
{
	uint32_t best = lo;
	for (uint32_t p = lo + 1; p < hi; p++) {
		const af_cell *a = &sh->cell[p], *b = &sh->cell[best];
		if (a->grp < b->grp || (a->grp == b->grp && a->key > b->key))
			best = p;
	}
	return best;
}

static void fill(af_shape *sh, uint32_t p, unsigned *seed)
{
	static const double keys[] = {3.5, 7.25, 7.25, 0, -1, 12.5};
	int r = rand_r(seed);
	sh->cell[p].grp = (uint8_t)(r % 7 == 6 ? AF_MASKED : r % 7 == 5 ? G_NONE : r % 4);
	sh->cell[p].key = r % 11 == 0 ? -(double)INFINITY : keys[(r >> 4) % 6];
}

static void check_ranges(const af_shape *sh, uint32_t n, unsigned *seed, int tries)
{
	for (int i = 0; i < tries; i++) {
		uint32_t lo = (uint32_t)rand_r(seed) % n,
		         hi = lo + 1 + (uint32_t)rand_r(seed) % (n - lo);
		uint32_t want = scan(sh, lo, hi);
		af_win got = af_tree_range(sh, lo, hi);
		if (got.pos != want)
			fail_msg("n %u range %u..%u: %u, the scan %u", n, lo, hi, got.pos, want);
		assert_int_equal(got.grp, sh->cell[want].grp);
	}
	assert_int_equal(af_tree_range(sh, 0, n).pos, sh->win[1].pos); /* the whole: the root */
}

static void test_ranges(void **state)
{
	(void)state;
	static const uint32_t sizes[] = {1, 63, 64, 65, 200, 1000, 4099};
	unsigned seed = 7;
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		uint32_t n = sizes[k];
		af_shape sh = {.tail = AF_NOTAIL};
		assert_int_equal(af_shape_alloc(&sh, n), 0);
		for (uint32_t p = 0; p < n; p++)
			fill(&sh, p, &seed);
		af_tree_build(&sh, n);
		check_ranges(&sh, n, &seed, 400);
		for (int i = 0; i < 300; i++) { /* single changes kept by the walk up */
			uint32_t p = (uint32_t)rand_r(&seed) % n;
			fill(&sh, p, &seed);
			af_tree_update(&sh, n, p);
		}
		check_ranges(&sh, n, &seed, 400);
		af_shape_release(&sh);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ranges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for kernel/actions/allocate/allocate_fast_tree.c: the tournament over a shape's
 * positions answers the whole (af_tree_first) and a range of positions (a hypernode's,
 * alloc_fast_pick_among) as a scan would: the lower group, then the higher score, then the
 * lower position; after builds and after updates of lists of positions, small and large (past
 * the walks up, every node merged again), with ties, -inf scores, empty groups, and winners that
 * get worse one after another (a stale block's bound must never answer), and positions offered
 * one at a time as they change (af_tree_put); a leaf's offer, taken whole or kept as a bound
 * (af_win_offer); a build that waits for its reader; the default shape budget
 * (allocate_fast.c). */
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

static void check_ranges(af_shape *sh, uint32_t n, unsigned *seed, int tries)
{
	for (int i = 0; i < tries; i++) {
		uint32_t lo = (uint32_t)rand_r(seed) % n,
		         hi = lo + 1 + (uint32_t)rand_r(seed) % (n - lo);
		uint32_t want = scan(sh, lo, hi);
		af_win got = af_tree_range(sh, n, lo, hi);
		if (got.pos != want)
			fail_msg("n %u range %u..%u: %u, the scan %u", n, lo, hi, got.pos, want);
		assert_int_equal(got.grp, sh->cell[want].grp);
	}
	assert_int_equal(af_tree_range(sh, n, 0, n).pos, scan(sh, 0, n));
	assert_int_equal(af_tree_first(sh, n).pos, scan(sh, 0, n));
}

/* m positions (repeats allowed) changed, then listed at once. */
static void change(af_shape *sh, uint32_t n, uint32_t m, unsigned *seed)
{
	uint32_t *list = malloc(m * sizeof *list);
	assert_non_null(list);
	for (uint32_t i = 0; i < m; i++) {
		list[i] = (uint32_t)rand_r(seed) % n;
		fill(sh, list[i], seed);
	}
	af_tree_update(sh, list, m);
	free(list);
}

/* As a placement does: the first gets worse, and the next first is asked for. */
static void worsen_first(af_shape *sh, uint32_t n, int times)
{
	for (int i = 0; i < times; i++) {
		uint32_t p = af_tree_first(sh, n).pos;
		assert_int_equal(p, scan(sh, 0, n));
		af_cell *c = &sh->cell[p];
		if (c->key > -(double)INFINITY && i % 3)
			c->key -= 1;
		else
			c->grp = c->grp < AF_MASKED ? (uint8_t)(c->grp + 1) : c->grp;
		af_tree_update(sh, &p, 1);
	}
}

/* A shape of n positions with random cells and its tournament built over them. */
static void filled(af_shape *sh, uint32_t n, unsigned *seed)
{
	assert_int_equal(af_shape_alloc(sh, n), 0);
	for (uint32_t p = 0; p < n; p++)
		fill(sh, p, seed);
	af_tree_build(sh, n);
}

static void test_ranges(void **state)
{
	(void)state;
	static const uint32_t sizes[] = {1, 63, 64, 65, 200, 1000, 4099};
	unsigned seed = 7;
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		uint32_t n = sizes[k];
		af_shape sh = {.tail = AF_NOTAIL};
		filled(&sh, n, &seed);
		check_ranges(&sh, n, &seed, 400);
		for (int i = 0; i < 300; i++) { /* single changes kept by the walk up */
			change(&sh, n, 1, &seed);
			if (i % 50 == 0)
				check_ranges(&sh, n, &seed, 20);
		}
		check_ranges(&sh, n, &seed, 400);
		static const uint32_t lists[] = {5, 40, 600};
		for (size_t l = 0; l < sizeof lists / sizeof *lists; l++) {
			change(&sh, n, lists[l], &seed);
			check_ranges(&sh, n, &seed, 100);
		}
		worsen_first(&sh, n, 500);
		check_ranges(&sh, n, &seed, 100);
		af_shape_release(&sh);
	}
}

/* m positions, each offered as soon as it changed (af_tree_put, as the verdicts' pass of an
 * ANCHORED shape does), then af_tree_put_end. */
static void change_put(af_shape *sh, uint32_t n, uint32_t m, unsigned *seed)
{
	uint32_t moved = 0;
	for (uint32_t i = 0; i < m; i++) {
		uint32_t p = (uint32_t)rand_r(seed) % n;
		fill(sh, p, seed);
		af_tree_put(sh->win, sh->cap, (af_win){sh->cell[p].key, p, sh->cell[p].grp},
		            &moved);
	}
	af_tree_put_end(sh, moved);
}

/* Positions offered one at a time answer as listed ones: few (each walk up kept), past an
 * eighth of the leaves (every node merged at the end), with winners getting worse between. */
static void test_put_one_at_a_time(void **state)
{
	(void)state;
	static const uint32_t sizes[] = {1, 64, 65, 1000, 4099, 20000};
	unsigned seed = 13;
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		uint32_t n = sizes[k];
		af_shape sh = {.tail = AF_NOTAIL};
		filled(&sh, n, &seed);
		check_ranges(&sh, n, &seed, 50);
		static const uint32_t lists[] = {1, 3, 40, 600, 5000};
		for (size_t l = 0; l < sizeof lists / sizeof *lists; l++) {
			change_put(&sh, n, lists[l], &seed);
			check_ranges(&sh, n, &seed, 100);
			worsen_first(&sh, n, 30);
		}
		af_shape_release(&sh);
	}
}

/* A build waits for its reader: cells changed after it, listed or not, are read by the build;
 * a shape whose scores read hypernodes builds at once (its ranks then write win[1]). */
static void test_build_when_read(void **state)
{
	(void)state;
	unsigned seed = 11;
	uint32_t n = 1000;
	af_shape sh = {.tail = AF_NOTAIL}, hn = {.tail = AF_NOTAIL, .loc = TPH_SCORE_HYPERNODE};
	assert_int_equal(af_shape_alloc(&sh, n), 0);
	assert_int_equal(af_shape_alloc(&hn, n), 0);
	for (int round = 0; round < 20; round++) {
		for (uint32_t p = 0; p < n; p++)
			fill(&sh, p, &seed);
		af_tree_build(&sh, n);
		for (uint32_t p = 0; p < n; p += 7) /* changed after the build, never listed */
			fill(&sh, p, &seed);
		change(&sh, n, 30, &seed);
		if (round % 2)
			check_ranges(&sh, n, &seed, 20);
		else
			worsen_first(&sh, n, 50);
		for (uint32_t p = 0; p < n; p++)
			hn.cell[p] = sh.cell[p];
		af_tree_build(&hn, n);
		assert_int_equal(hn.win[1].pos, scan(&sh, 0, n));
	}
	af_shape_release(&sh);
	af_shape_release(&hn);
}

/* The default shape budget holds 256 plain shapes, never less than 256 MiB. */
static void test_default_budget(void **state)
{
	(void)state;
	static const uint32_t sizes[] = {1, 10000, 61000, 100000, 1000000};
	const af_shape plain = {.tail = AF_NOTAIL};
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		size_t b = alloc_fast_default_budget(sizes[k]),
		       shape = af_shape_bytes(&plain, sizes[k]);
		assert_true(b >= (size_t)256 << 20);
		assert_true(b >= 256 * shape);
		assert_true(b == (size_t)256 << 20 || b == 256 * shape);
	}
	assert_int_equal(alloc_fast_default_budget(10000), (size_t)256 << 20);
	assert_true(alloc_fast_default_budget(100000) > (size_t)256 << 20);
}

static void assert_win(af_win w, double key, uint32_t pos, uint8_t grp, uint8_t stale)
{
	assert_true(w.key == key);
	assert_int_equal(w.pos, pos);
	assert_int_equal(w.grp, grp);
	assert_int_equal(w.stale, stale);
}

/* A leaf's entry offered one position's: a worse offer of its own position leaves it a stale
 * bound, a worse one of another leaves it as it is; a better offer, or an equal one of a lower
 * position, takes it whole: key, position, group, and a clear stale mark (a leaf left marked
 * would be scanned again at every read that reaches it). */
static void test_offer(void **state)
{
	(void)state;
	af_win w = {5.0, 7, G_FUTURE, 0};
	assert_false(af_win_offer(&w, (af_win){4.0, 9, G_FUTURE}, 9));
	assert_win(w, 5.0, 7, G_FUTURE, 0);
	assert_false(af_win_offer(&w, (af_win){3.0, 7, G_FUTURE}, 7));
	assert_win(w, 5.0, 7, G_FUTURE, 1);
	assert_true(af_win_offer(&w, (af_win){6.0, 7, G_FUTURE}, 7));
	assert_win(w, 6.0, 7, G_FUTURE, 0);
	w.stale = 1;
	assert_true(af_win_offer(&w, (af_win){6.0, 3, G_FUTURE}, 3)); /* a tie: the lower */
	assert_win(w, 6.0, 3, G_FUTURE, 0);
	assert_false(af_win_offer(&w, (af_win){6.0, 4, G_FUTURE}, 4));
	assert_win(w, 6.0, 3, G_FUTURE, 0);
	w.stale = 1;
	assert_true(af_win_offer(&w, (af_win){-1.0, 8, G_IDLE}, 8)); /* a lower group wins */
	assert_win(w, -1.0, 8, G_IDLE, 0);
	assert_false(af_win_offer(&w, AF_NOWIN, 8)); /* infeasible now: a bound */
	assert_win(w, -1.0, 8, G_IDLE, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ranges),
	    cmocka_unit_test(test_build_when_read),
	    cmocka_unit_test(test_put_one_at_a_time),
	    cmocka_unit_test(test_default_budget),
	    cmocka_unit_test(test_offer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for a head shape's kept head sums (allocate_fast.h: af_head_pre, af_head_put): a
 * position's sums are unknown until a pick stores them, whatever the part column holds (it is
 * never initialised, so that a pick's stores are its only writes); a stored failed head (NaN)
 * reads as unknown, to be scored again as before; a touch marks a position unknown again
 * without touching the part column; and positions do not see each other's marks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "allocate/allocate_fast.h"

#define N 300u

/* A head shape over N positions as a build leaves it: every cell unknown, the part column
 * holding whatever was there (a finite garbage value, so that reading it would show). */
static af_shape *head_new(void)
{
	af_shape *sh = calloc(1, sizeof *sh);
	assert_non_null(sh);
	sh->loc = TPH_SCORE_LOCAL;
	sh->tail = 2;
	sh->cell = calloc(N, sizeof *sh->cell);
	sh->part = malloc(2 * N * sizeof *sh->part);
	assert_non_null(sh->cell);
	assert_non_null(sh->part);
	for (uint32_t i = 0; i < 2 * N; i++)
		sh->part[i] = 1000.0 + i;
	assert_true(af_head_only(sh));
	return sh;
}

static void head_free(af_shape *sh)
{
	free(sh->cell);
	free(sh->part);
	free(sh);
}

static void unknown_after_build(void **state)
{
	(void)state;
	af_shape *sh = head_new();
	for (uint32_t p = 0; p < N; p++)
		assert_true(isnan(af_head_pre(sh, p)));
	head_free(sh);
}

static void stored_sums_read_back(void **state)
{
	(void)state;
	af_shape *sh = head_new();
	af_head_put(sh, 0, 2.5, -3.0);
	af_head_put(sh, N - 1, 0.0, 7.0);
	af_head_put(sh, 129, -0.0, 1e300);
	assert_true(af_head_pre(sh, 0) == 2.5);
	assert_true(sh->part[1] == -3.0);
	assert_true(af_head_pre(sh, N - 1) == 0.0);
	assert_true(sh->part[2 * (N - 1) + 1] == 7.0);
	assert_true(signbit(af_head_pre(sh, 129))); /* -0.0 kept as it was scored */
	assert_true(sh->part[2 * 129 + 1] == 1e300);
	for (uint32_t p = 1; p < N - 1; p++) /* the neighbours stay unknown */
		if (p != 129)
			assert_true(isnan(af_head_pre(sh, p)));
	head_free(sh);
}

static void failed_head_reads_unknown(void **state)
{
	(void)state;
	af_shape *sh = head_new();
	af_head_put(sh, 5, (double)NAN, 4.0);
	assert_true(isnan(af_head_pre(sh, 5)));
	af_head_put(sh, 5, 1.5, 4.0); /* scored again, now with a sum */
	assert_true(af_head_pre(sh, 5) == 1.5);
	head_free(sh);
}

/* A touch (score() in allocate_fast_shape.c) clears the mark alone: the stale sum stays in
 * the part column and must not be read. */
static void touch_marks_unknown(void **state)
{
	(void)state;
	af_shape *sh = head_new();
	af_head_put(sh, 17, 9.0, 8.0);
	sh->cell[17].known = 0;
	assert_true(isnan(af_head_pre(sh, 17)));
	assert_true(sh->part[2 * 17] == 9.0);
	af_head_put(sh, 17, 6.0, 5.0);
	assert_true(af_head_pre(sh, 17) == 6.0);
	head_free(sh);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(unknown_after_build),
	    cmocka_unit_test(stored_sums_read_back),
	    cmocka_unit_test(failed_head_reads_unknown),
	    cmocka_unit_test(touch_marks_unknown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

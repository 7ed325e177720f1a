/* Unit tests for a head shape's kept head sums (allocate_fast.h: af_head_pre, af_head_put): a
 * position's sums are unknown until a pick stores them, whatever the part column holds (it is
 * never initialised, so that a pick's stores are its only writes); a stored failed head (NaN)
 * reads as unknown, to be scored again as before; a touch marks a position unknown again
 * without touching the part column; and positions do not see each other's marks. A head shape
 * with its spec's verdicts (af_head_bare) keeps no cells: its columns are the part column and
 * the marks, and its verdicts, for its trackers too, are its row's fit and its spec's. */
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
	sh->known = calloc(N, 1);
	sh->part = malloc(2 * N * sizeof *sh->part);
	assert_non_null(sh->known);
	assert_non_null(sh->part);
	for (uint32_t i = 0; i < 2 * N; i++)
		sh->part[i] = 1000.0 + i;
	assert_true(af_head_only(sh));
	return sh;
}

static void head_free(af_shape *sh)
{
	free(sh->known);
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
	sh->known[17] = 0;
	assert_true(isnan(af_head_pre(sh, 17)));
	assert_true(sh->part[2 * 17] == 9.0);
	af_head_put(sh, 17, 6.0, 5.0);
	assert_true(af_head_pre(sh, 17) == 6.0);
	head_free(sh);
}

/* A head shape over N positions with its row and spec (the columns a sync keeps current). */
typedef struct bare_fx {
	af_shape sh;
	af_row row;
	af_pred pred;
	af_rfit rc[N];
	tph_reason_code code[N];
} bare_fx;

static bare_fx *bare_new(void)
{
	bare_fx *x = calloc(1, sizeof *x);
	assert_non_null(x);
	x->row.fg = x->rc;
	x->pred.code = x->code;
	x->sh = (af_shape){.loc = TPH_SCORE_LOCAL, .tail = 1, .row = &x->row, .pred = &x->pred};
	return x;
}

/* Its columns: the marks and the part column, no cells, no tournament; a head shape without a
 * spec column keeps its cells, and a shape that is no head shape is never bare. */
static void bare_shape_has_no_cells(void **state)
{
	(void)state;
	bare_fx *x = bare_new();
	af_shape *sh = &x->sh;
	assert_true(af_head_bare(sh));
	assert_int_equal(af_shape_alloc(sh, N), TPH_OK);
	assert_null(sh->cell);
	assert_null(sh->win);
	assert_non_null(sh->known);
	assert_non_null(sh->part);
	size_t bare = af_shape_bytes(sh, N);
	assert_int_equal(sh->bytes, bare);
	assert_int_equal(bare, (N + 1) * (1 + 2 * sizeof(double)));
	af_shape_release(sh);
	assert_null(sh->known);
	assert_int_equal(sh->bytes, 0);

	sh->pred = NULL; /* its verdicts are its own: cells */
	assert_false(af_head_bare(sh));
	assert_true(af_head_only(sh));
	assert_int_equal(af_shape_alloc(sh, N), TPH_OK);
	assert_non_null(sh->cell);
	assert_non_null(sh->known);
	assert_non_null(sh->code);
	assert_int_equal(af_shape_bytes(sh, N),
	                 bare + (N + 1) * (sizeof(af_cell) + sizeof(tph_reason_code)));
	af_shape_release(sh);
	assert_null(sh->code);

	sh->pred = &x->pred;
	sh->tail =
	    AF_NOTAIL; /* no head shape: cells, but its verdicts are still its row's and spec's */
	assert_false(af_head_bare(sh));
	assert_true(af_shared_verdicts(sh));
	free(x);
}

/* Its verdict at p: the row's fit where it fails, else the spec's, as its sync would have
 * stored them in cells; the same for a tracker's base. */
static void bare_verdicts_from_row_and_spec(void **state)
{
	(void)state;
	bare_fx *x = bare_new();
	af_shape *sh = &x->sh;
	for (uint32_t p = 0; p < N; p++) {
		x->rc[p].fit = p % 3 ? TPH_PASS : (tph_reason_code)(1 + p % 5);
		x->code[p] = p % 2 ? TPH_PASS : (tph_reason_code)(7 + p % 4);
	}
	assert_true(af_shared_verdicts(sh));
	for (uint32_t p = 0; p < N; p++) {
		tph_reason_code want = p % 3 ? x->code[p] : x->rc[p].fit;
		assert_int_equal(af_type_verdict(sh, p), want);
		assert_int_equal(af_track_base(sh, p), want);
	}
	x->code[4] = TPH_PASS; /* the spec moved: read at once */
	assert_int_equal(af_track_base(sh, 4), TPH_PASS);
	x->rc[4].fit = 3;
	assert_int_equal(af_track_base(sh, 4), 3);
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(unknown_after_build),
	    cmocka_unit_test(stored_sums_read_back),
	    cmocka_unit_test(failed_head_reads_unknown),
	    cmocka_unit_test(touch_marks_unknown),
	    cmocka_unit_test(bare_shape_has_no_cells),
	    cmocka_unit_test(bare_verdicts_from_row_and_spec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

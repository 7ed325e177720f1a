/* A request row's columns (allocate_fast.h, af_row): the fit and group of every ready node in
 * one column, read through af_row_fit and af_row_grp, and the scores in a column of their own
 * that a row gets only when it is first scored (af_row_sync asked for keys): a row never
 * scored holds none, and its pages are never made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

#include "fast_harness.h"
#include "session/ep.h"

#define N_NODES 300u

/* The nodes' scores differ (4 to 7 cpu where a fits). */
static char *scenario(uint32_t n)
{
	return pts_rows_scenario(n, "{name: predicates}, {name: nodeorder}, {name: binpack}", true);
}

static int setup(void **state)
{
	return pts_fast_new(state, scenario(N_NODES), N_NODES);
}

/* Row r's keys, where it fits, are the scores the row path gives those nodes now. */
static void keys_are_scores(tph_session *s, const af_row *r, tph_idx task)
{
	tph_idx nodes[N_NODES];
	uint32_t at[N_NODES], m = 0;
	double want[N_NODES];
	for (uint32_t p = 0; p < N_NODES; p++) {
		nodes[m] = s->ready_nodes[p];
		at[m] = p;
		m += af_row_fit(r, p) == TPH_PASS;
	}
	assert_true(m > 0);
	tph_score_nodes_row(s, task, nodes, m, want);
	bool differ = false;
	for (uint32_t j = 0; j < m; j++) {
		double w = isnan(want[j]) ? -(double)INFINITY : want[j];
		assert_true(af_row_key(r, at[j]) == w);
		differ |= w != want[0];
	}
	assert_true(differ); /* the test sees scores, not one value everywhere */
}

/* Task a's request row, synced once (with its keys when `keys`). */
static af_row *synced_a(pts_fast *x, bool keys, tph_idx *a)
{
	*a = pts_task(&x->p, "ns/a");
	af_row *r = af_row_of(x->f, *a);
	assert_non_null(r);
	assert_int_equal(af_row_sync(x->f, r, *a, keys), TPH_OK);
	return r;
}

/* The accessors read what the fit gives each node: a's 3 cpu fit the nodes of 4 or more, the
 * same group for all of them (nothing runs), and no group where it fails. */
static void accessors_read_the_fit(void **state)
{
	pts_fast *x = *state;
	tph_session *s = x->p.s;
	tph_idx a;
	af_row *r = synced_a(x, false, &a);
	assert_int_equal(sizeof(af_rfit), 3); /* packed: 21 positions a line */
	uint8_t fit_grp = G_NONE;
	for (uint32_t p = 0; p < N_NODES; p++) {
		bool fits = s->ready_nodes[p] % 3 != 0;
		assert_int_equal(af_row_fit(r, p) == TPH_PASS, fits);
		assert_int_equal(af_row_fit(r, p), r->fg[p].fit);
		assert_int_equal(af_row_grp(r, p), r->fg[p].grp);
		if (!fits) {
			assert_int_equal(af_row_grp(r, p), G_NONE);
			continue;
		}
		assert_true(af_row_grp(r, p) < G_NONE);
		if (fit_grp == G_NONE)
			fit_grp = af_row_grp(r, p);
		assert_int_equal(af_row_grp(r, p), fit_grp);
	}
}

/* Synced without keys, however often, a row holds no key column; the first sync that asks for
 * keys makes it, with the scores the row path gives the nodes the row fits, over themselves. */
static void key_column_made_at_first_scoring(void **state)
{
	pts_fast *x = *state;
	tph_session *s = x->p.s;
	tph_idx a = pts_task(&x->p, "ns/a"), b = pts_task(&x->p, "ns/b");
	af_row *ra = af_row_of(x->f, a), *rb = af_row_of(x->f, b);
	assert_true(ra && rb && ra != rb);
	assert_int_equal(af_row_sync(x->f, ra, a, false), TPH_OK);
	assert_int_equal(af_row_sync(x->f, rb, b, false), TPH_OK);
	assert_int_equal(af_row_sync(x->f, ra, a, false), TPH_OK);
	assert_null(ra->key);
	assert_null(rb->key);
	assert_false(ra->scored);

	assert_int_equal(af_row_sync(x->f, ra, a, true), TPH_OK);
	assert_non_null(ra->key);
	assert_true(ra->scored);
	assert_null(rb->key); /* the other row stays unscored */

	keys_are_scores(s, ra, a);
	const double *kept = ra->key; /* scored again: the same column */
	assert_int_equal(af_row_sync(x->f, ra, a, true), TPH_OK);
	assert_ptr_equal(ra->key, kept);
}

/* Nodes that move while the row is synced without keys, and back: the next keyed sync brings
 * the keys of every node the row fits again up to date, with the fits and groups. */
static void keys_follow_the_fits(void **state)
{
	pts_fast *x = *state;
	tph_session *s = x->p.s;
	tph_idx a;
	af_row *r = synced_a(x, true, &a);
	for (int round = 0; round < 2; round++) {
		for (uint32_t p = 1; p < N_NODES; p += 7) {
			tph_idx node = s->ready_nodes[p];
			s->nodes.idle[node] = round ? 6000 : 0; /* cpu, dimension 0 */
			tph_eqc_touch(x->e, node);
		}
		assert_int_equal(af_row_sync(x->f, r, a, round == 1), TPH_OK);
		for (uint32_t p = 1; p < N_NODES; p += 7) /* the test sees moves */
			assert_int_equal(af_row_fit(r, p) == TPH_PASS, round == 1);
	}
	keys_are_scores(s, r, a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(accessors_read_the_fit, setup, pts_fast_teardown),
	    cmocka_unit_test_setup_teardown(key_column_made_at_first_scoring, setup,
	                                    pts_fast_teardown),
	    cmocka_unit_test_setup_teardown(keys_follow_the_fits, setup, pts_fast_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

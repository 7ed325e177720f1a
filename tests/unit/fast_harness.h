/* The flat path's tests' fixture: a session opened on a scenario (harness.h) with the
 * equivalence classes, the predicate helper (error cache on) and allocate's flat path made
 * over it, as allocate makes them. Include after harness.h. */
#ifndef TPH_TEST_FAST_HARNESS_H
#define TPH_TEST_FAST_HARNESS_H

#include "allocate/allocate_fast.h"

typedef struct pts_fast {
	pts p;
	char *yaml; /* the scenario, freed with the fixture */
	tph_eqc *e;
	tph_ph ph;
	alloc_fast *f;
} pts_fast;

/* A cmocka setup's fixture into *state: yaml (malloc'd, taken) opened, with n_ready ready
 * nodes. */
static inline int pts_fast_new(void **state, char *yaml, uint32_t n_ready)
{
	pts_fast *x = calloc(1, sizeof *x);
	assert_non_null(x);
	x->yaml = yaml;
	pts_open(&x->p, yaml);
	assert_int_equal(x->p.s->n_ready, n_ready);
	x->e = tph_eqc_new(x->p.s, true);
	tph_ph_opts o = {.error_cache = true};
	assert_int_equal(tph_ph_init(&x->ph, x->p.s, &o, true, x->e), TPH_OK);
	x->f = alloc_fast_new(x->p.s, x->e, &x->ph);
	assert_non_null(x->f);
	*state = x;
	return 0;
}

/* The matching cmocka teardown. */
static inline int pts_fast_teardown(void **state)
{
	pts_fast *x = *state;
	alloc_fast_free(x->f);
	tph_ph_free(&x->ph);
	tph_eqc_free(x->e);
	tph_act_scratch_end(x->p.s);
	pts_free(&x->p);
	free(x->yaml);
	free(x);
	return 0;
}

#endif

/* Unit tests for the free ranges (session/kai/kai_range.c): after every statement operation and
 * rollback, tph_kai_session_free_range equals a pass over the pool, which is what
 * nodeplacement's NodePreOrder took before the ranges, and the kept free GPUs equal naive
 * mode's; the same over a declared subset (tph_kai_ranges_subset, the solver's scenario nodes),
 * declared afresh with new contents midway; and it declines an undeclared subset of the pool
 * and naive mode, where the plugin takes the pass itself. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai_fixture.h"
#include "session/kai/kai_int.h"
#include "tephra/tephra.h"

#define NODE(name, cpu, gpus, pool)                                                         \
	"  - {name: " name ", allocatable: {cpu: \"" cpu "\", memory: 8G, nvidia.com/gpu: " \
	"\"" gpus "\"}, labels: {pool: " pool ", nvidia.com/gpu.memory: \"100\"}}\n"
#define PG(name) "  - {name: " name ", queue: q}\n"
#define POD(name, job, status, node, gpu)                                             \
	"  - {name: " name ", podGroup: " job ", status: " status ", nodeName: " node \
	", requests: {cpu: \"1\", memory: 1G, nvidia.com/gpu: \"" gpu "\"}}\n"
#define PENDING(name, job, gpu)                                                     \
	"  - {name: " name ", podGroup: " job ", status: Pending, requests: {cpu: " \
	"\"1\", memory: 1G, nvidia.com/gpu: \"" gpu "\"}}\n"

/* Five pool nodes (one without GPUs), one outside the pool holding the most of everything, a
 * Running and a Releasing pod, and pending pods to place. */
static const char cluster[] =
    "schedulerParams: {nodePoolLabelKey: pool, nodePoolLabelValue: a}\n"
    "nodes:\n" NODE("n0", "8", "4", "a") NODE("n1", "8", "4", "a") NODE("n2", "4", "2", "a")
        NODE("n3", "4", "0", "a") NODE("n4", "16", "8", "a")
            NODE("x", "64", "16", "b") "podGroups:\n" PG("r") PG("p") "pods:\n" POD(
                "r-0", "r", "Running", "n0", "2") POD("r-1", "r", "Releasing", "n4", "4")
                PENDING("p-0", "p", "1") PENDING("p-1", "p", "2") PENDING("p-2", "p", "0") PENDING(
                    "p-3", "p", "1") "  - {name: p-4, podGroup: p, status: Pending, annotations: "
                                     "{gpu-fraction: \"0.5\"}}\n";

/* The range as the pass over the set takes it. */
static void scan(const kf *f, const uint32_t *set, uint32_t count, int dim, double *min,
                 double *max)
{
	const tph_kai_view *v = tph_kai_session_view(f->s);
	const double *idle = tph_kai_session_idle(f->s), *rel = tph_kai_session_releasing(f->s);
	*min = 1e300;
	*max = 0;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t n = set[i];
		double all = dim == TPH_KAI_GPU   ? v->nodes.gpus[n]
		             : dim == TPH_KAI_CPU ? (double)v->nodes.cpu_milli[n]
		                                  : (double)v->nodes.memory[n];
		if (!v->nodes.in_pool[n] || all == 0)
			continue;
		double x = idle[(size_t)n * TPH_KAI_DIMS + (size_t)dim] +
		           rel[(size_t)n * TPH_KAI_DIMS + (size_t)dim];
		*min = x < *min ? x : *min;
		*max = x > *max ? x : *max;
	}
}

/* The ranges over the set as tph_kai_session_free_range gives them and as a pass takes them. */
static void check_set(const kf *f, const uint32_t *set, uint32_t count)
{
	for (int d = 0; d < TPH_KAI_DIMS; d++) {
		double lo, hi, got_lo, got_hi;
		scan(f, set, count, d, &lo, &hi);
		assert_true(tph_kai_session_free_range(f->s, d, set, count, &got_lo, &got_hi));
		assert_true(got_lo == lo);
		assert_true((got_hi > 0 ? got_hi : 0) == hi);
	}
}

static uint32_t sub[3], n_sub;

/* The ranges as a pass takes them, and each node's free GPUs as naive mode computes them. */
static void check_ranges(const kf *f)
{
	uint32_t pool[8], n = kai_pool_of(f, pool);
	for (uint32_t i = 0; i < tph_kai_session_view(f->s)->nodes.n; i++) {
		double kept = tph_kai_free_gpus(f->s, i);
		tph_kai_session_set_naive(f->s, true);
		assert_true(kept == tph_kai_free_gpus(f->s, i));
		tph_kai_session_set_naive(f->s, false);
	}
	check_set(f, pool, n);
	if (n_sub)
		check_set(f, sub, n_sub);
}

/* Declares the named nodes as the subset (at the same address each time). */
static void declare(const kf *f, const char *a, const char *b, const char *c)
{
	const char *names[] = {a, b, c};
	n_sub = 0;
	for (int i = 0; i < 3; i++)
		if (names[i])
			sub[n_sub++] = kai_node_named(f, names[i]);
	tph_kai_ranges_subset(f->s, sub, n_sub);
}

/* Placements that take the extremes away and give them back, an eviction, a pipeline onto
 * releasing GPUs, then rollbacks to each checkpoint: the range follows each step. */
static void test_follows_statement(void **state)
{
	(void)state;
	kf f;
	kai_open_tier(&f, "allocate", "[{name: predicates}]", cluster);
	tph_kai_session *s = f.s;
	declare(&f, "n0", "n2", "n3"); /* the least free GPUs, a node without any */
	check_ranges(&f);
	uint32_t start = s->n_ops;
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p-1"), kai_node_named(&f, "n2")), 0);
	check_ranges(&f); /* n2 was the least free: now 0 GPUs */
	uint32_t mid = s->n_ops;
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p-0"), kai_node_named(&f, "n4")), 0);
	check_ranges(&f); /* n4 held the most: it moves inwards */
	declare(&f, "n4", "n1", NULL);
	check_ranges(&f);
	assert_int_equal(tph_kai_stmt_evict(s, task_of(&f, "r-0")), 0);
	check_ranges(&f);
	assert_int_equal(tph_kai_stmt_pipeline(s, task_of(&f, "p-3"), kai_node_named(&f, "n0")), 0);
	check_ranges(&f);
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p-2"), kai_node_named(&f, "n3")), 0);
	check_ranges(&f);
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p-4"), kai_node_named(&f, "n1")), 0);
	check_ranges(&f); /* a shared device: n1's free GPUs count its free half */
	assert_true(tph_kai_free_gpus(s, kai_node_named(&f, "n1")) == 3.5);
	tph_kai_stmt_rollback(s, mid);
	check_ranges(&f);
	declare(&f, "n2", "n4", "n0");
	tph_kai_stmt_rollback(s, start);
	check_ranges(&f);
	tph_kai_ranges_subset(s, NULL, 0);
	n_sub = 0;
	close_kai(&f);
}

/* An undeclared subset of the pool and naive mode: the plugin takes the range itself. */
static void test_declines(void **state)
{
	(void)state;
	kf f;
	kai_open_tier(&f, "allocate", "[{name: predicates}]", cluster);
	uint32_t pool[8], n = kai_pool_of(&f, pool);
	double lo = -1, hi = -1;
	assert_int_equal(n, 5);
	assert_false(tph_kai_session_free_range(f.s, TPH_KAI_GPU, pool, n - 1, &lo, &hi));
	assert_true(lo == -1 && hi == -1);
	uint32_t copy[8];
	memcpy(copy, pool, sizeof copy);
	tph_kai_ranges_subset(f.s, pool, n - 1); /* declared: only at that address, of that size */
	assert_false(tph_kai_session_free_range(f.s, TPH_KAI_GPU, copy, n - 1, &lo, &hi));
	assert_false(tph_kai_session_free_range(f.s, TPH_KAI_GPU, pool, n - 2, &lo, &hi));
	assert_true(lo == -1 && hi == -1);
	assert_true(tph_kai_session_free_range(f.s, TPH_KAI_GPU, pool, n - 1, &lo, &hi));
	assert_true(lo == 2 && hi == 4); /* n4 left out */
	tph_kai_ranges_subset(f.s, NULL, 0);
	assert_false(tph_kai_session_free_range(f.s, TPH_KAI_GPU, pool, n - 1, &lo, &hi));
	tph_kai_session_set_naive(f.s, true);
	assert_false(tph_kai_session_free_range(f.s, TPH_KAI_GPU, pool, n, &lo, &hi));
	tph_kai_session_set_naive(f.s, false);
	assert_true(tph_kai_session_free_range(f.s, TPH_KAI_GPU, pool, n, &lo, &hi));
	assert_true(lo == 2 && hi == 8); /* n0 2 idle, n2 2, n4 4 idle + 4 releasing; n3 has none */
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_follows_statement),
	    cmocka_unit_test(test_declines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

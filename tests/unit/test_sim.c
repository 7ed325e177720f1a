/* The simulator's arithmetic (sim/): nearest-rank percentiles, FGD's per-node fragmentation,
 * the completion heap's order, proportion's water-filling, which confs allow skipping cycles,
 * and draws of arrivals that depend on the seed alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "sim_loop.h"

static void test_percentile(void **state)
{
	(void)state;
	int64_t v[] = {50, 10, 40, 20, 30, 60, 70, 80, 90, 100};
	assert_true(sim_percentile(v, 10, 50) == 50); /* rank ceil(5) = 5th of the sorted */
	assert_true(sim_percentile(v, 10, 90) == 90);
	assert_true(sim_percentile(v, 10, 99) == 100);
	assert_true(sim_percentile(v, 10, 0) == 10);
	assert_true(sim_percentile(v, 0, 50) == 0);
	int64_t one[] = {7};
	assert_true(sim_percentile(one, 1, 99) == 7);
}

static void test_frag_node(void **state)
{
	(void)state;
	/* 4 GPUs, 2.5 used: 1 whole device and one with 500m free; cpu plenty. */
	sim_node n = {"n", {32000, 64LL << 30, 4000}, {0, 0, 2500}, 4};
	sim_shape whole = {{1000, 1 << 30, 1000}, 1}, share = {{1000, 1 << 30, 300}, 1},
	          big = {{1000, 1 << 30, 600}, 1}, cpu = {{1000, 1 << 30, 0}, 1},
	          two = {{1000, 1 << 30, 2000}, 1}, fat = {{64000, 1 << 30, 300}, 1};
	assert_true(sim_frag_node(&n, &whole, 1) == 500); /* the partial device is useless to it */
	assert_true(sim_frag_node(&n, &share, 1) == 0);   /* 300m fits in the 500m left */
	assert_true(sim_frag_node(&n, &big, 1) == 500);  /* 600m runs, but not on the 500m device */
	assert_true(sim_frag_node(&n, &cpu, 1) == 1500); /* uses no GPU: all of it */
	assert_true(sim_frag_node(&n, &two, 1) == 1500); /* cannot run: all of it */
	assert_true(sim_frag_node(&n, &fat, 1) == 1500); /* too much cpu: all of it */
	sim_shape mix[2] = {{{1000, 1 << 30, 1000}, 0.5}, {{1000, 1 << 30, 0}, 0.5}};
	assert_true(sim_frag_node(&n, mix, 2) == 1000); /* weighted by popularity */
	sim_node full = {"f", {32000, 64LL << 30, 4000}, {0, 0, 4000}, 4};
	assert_true(sim_frag_node(&full, &cpu, 1) == 0);
}

static void test_heap_order(void **state)
{
	(void)state;
	sim_heap h = {0};
	int64_t t[] = {50, 10, 30, 10, 20, 50};
	uint32_t pod[] = {1, 9, 3, 2, 7, 0};
	for (int i = 0; i < 6; i++)
		assert_int_equal(sim_heap_push(&h, t[i], pod[i]), 0);
	uint32_t want[] = {2, 9, 7, 3, 0, 1}; /* by time, then pod */
	for (int i = 0; i < 6; i++)
		assert_int_equal(sim_heap_pop(&h), want[i]);
	assert_int_equal(h.n, 0);
	sim_heap_free(&h);
}

static void test_deserved(void **state)
{
	(void)state;
	sim_queue q[3] = {
	    {.name = "a", .weight = 1, .capability = {-1, -1, -1}, .request = {100}},
	    {.name = "b", .weight = 1, .capability = {-1, -1, -1}, .request = {1000}},
	    {.name = "c", .weight = 2, .capability = {300, -1, -1}, .request = {1000}}};
	int64_t total[R_N] = {1000, 0, 0};
	sim_deserved(q, 3, total);
	/* a is met at 100; c is capped at 300; b takes what is left. */
	assert_int_equal(q[0].deserved[R_CPU], 100);
	assert_int_equal(q[2].deserved[R_CPU], 300);
	assert_int_equal(q[1].deserved[R_CPU], 600);
	assert_int_equal(q[0].deserved[R_MEM], 0);
}

static tph_conf *conf(const char *text)
{
	tph_conf *c = NULL;
	tph_diag d = {0};
	assert_int_equal(tph_conf_load_string(text, strlen(text), "t", true, &c, &d), 0);
	return c;
}

static void test_timeless(void **state)
{
	(void)state;
	tph_conf *plain = conf("actions: \"allocate\"\ntiers:\n- plugins: [{name: gang}, {name: "
	                       "predicates}]\n");
	tph_conf *sla = conf("actions: \"allocate\"\ntiers:\n- plugins: [{name: gang}]\n- plugins: "
	                     "[{name: sla}]\n");
	assert_true(sim_conf_timeless(plain));
	assert_false(sim_conf_timeless(sla));
	tph_conf_free(plain);
	tph_conf_free(sla);
}

static void draw(uint64_t seed, int64_t *arr, int64_t *dur)
{
	sim_job jobs[4] = {{.n_pods = 1}, {.n_pods = 1, .placed = 1}, {.n_pods = 2}, {.n_pods = 1}};
	sim_workload w = {.jobs = jobs, .n_jobs = 4, .now_ms = 1000};
	sim_arrivals_draw(&w, seed, 300, 60, 1);
	for (int i = 0; i < 4; i++)
		arr[i] = jobs[i].arrive_ms, dur[i] = jobs[i].dur_ms;
}

static void test_draws(void **state)
{
	(void)state;
	int64_t a1[4], d1[4], a2[4], d2[4], a3[4], d3[4];
	draw(7, a1, d1);
	draw(7, a2, d2);
	draw(8, a3, d3);
	assert_memory_equal(a1, a2, sizeof a1);
	assert_memory_equal(d1, d2, sizeof d1);
	assert_true(memcmp(a1, a3, sizeof a1) || memcmp(d1, d3, sizeof d1));
	assert_int_equal(a1[1], 0); /* already running: not drawn */
	assert_true(a1[0] >= 1000 && a1[0] <= a1[2] && a1[2] <= a1[3]); /* in order, after now */
	assert_true(d1[0] > 0 && d1[2] > 0 && d1[3] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_percentile), cmocka_unit_test(test_frag_node),
	    cmocka_unit_test(test_heap_order), cmocka_unit_test(test_deserved),
	    cmocka_unit_test(test_timeless),   cmocka_unit_test(test_draws),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

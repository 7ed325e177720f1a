/* Unit tests for the document builder's bounds (kernel/src/load/yaml_doc.c, YU_MAX_* in
 * yaml_util.h): nesting, scalar length and node count, each a located error that comes before
 * libyaml spends more than a moment, the same through the parallel split as serially, and
 * through the conf embedded in a scenario. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "load/yaml_util.h"
#include "tephra/tephra.h"

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* `head`, then `open` n times, `mid`, then `close` n times, then `tail`; malloc'd. */
static char *nest(const char *head, const char *open, int n, const char *mid, const char *close,
                  const char *tail)
{
	size_t cap = strlen(head) + (strlen(open) + strlen(close)) * (size_t)n + strlen(mid) +
	             strlen(tail) + 1;
	char *t = malloc(cap), *at = t;
	assert_non_null(t);
	at += sprintf(at, "%s", head);
	for (int i = 0; i < n; i++)
		at += sprintf(at, "%s", open);
	at += sprintf(at, "%s", mid);
	for (int i = 0; i < n; i++)
		at += sprintf(at, "%s", close);
	sprintf(at, "%s", tail);
	return t;
}

/* Load a scenario from `t`; expect failure with `want` in the message; return seconds. */
static double expect_error(const char *t, const char *want)
{
	tph_scenario *s = NULL;
	tph_diag d = {0};
	double t0 = now_s();
	int rc = tph_scenario_load_buffer(t, strlen(t), "deep.yaml", &s, &d);
	double took = now_s() - t0;
	if (rc >= 0 || !strstr(d.msg, want))
		fail_msg("rc %d, \"%s\"; want \"%s\"", rc, d.msg, want);
	assert_null(s);
	return took;
}

/* 100,000 nested flow sequences took libyaml 15-47 s (quadratic in the depth); the bound
 * stops it at level 1,001, within a line or 1024 bytes of input. */
static void test_depth_bombs(void **state)
{
	(void)state;
	struct {
		const char *head, *open, *mid, *close, *tail, *want;
		int n;
	} bombs[] = {
	    {"nodes: ", "[", "", "]", "\n",
	     "deep.yaml:1:1007: YAML error: collections nested "
	     "deeper than 1000 levels",
	     100000},
	    {"nodes: ", "{a: ", "b", "}", "\n", "deep.yaml:1:4004: YAML error", 30000},
	    {"nodes: ", "[\n", "", "]", "\n", "deep.yaml:1000:1: YAML error", 100000},
	    {"nodes:\n", "- ", "x", "", "\n", "deep.yaml:2:1999: YAML error", 100000},
	    {"conf:\n  actions: allocate\n  tiers:\n  - plugins:\n    - name: binpack\n"
	     "      arguments: {x: ",
	     "[", "", "]", "}\n", "deep.yaml:6:1015: YAML error", 50000},
	};
	for (size_t i = 0; i < sizeof bombs / sizeof bombs[0]; i++) {
		char *t = nest(bombs[i].head, bombs[i].open, bombs[i].n, bombs[i].mid,
		               bombs[i].close, bombs[i].tail);
		double took = expect_error(t, bombs[i].want);
		if (took > 2.0) /* milliseconds in fact; seconds on a slow sanitizer run at most */
			fail_msg("bomb %zu took %.2f s", i, took);
		free(t);
	}
	/* 999 levels inside the root mapping load as far as YAML goes */
	char *t = nest("nodes: ", "[", 999, "", "]", "\n");
	expect_error(t, "node #1: expected a mapping, got a sequence");
	free(t);
}

static void test_scalar_length(void **state)
{
	(void)state;
	size_t n = YU_MAX_SCALAR + 1;
	char *t = malloc(n + 64);
	assert_non_null(t);
	int at = sprintf(t, "name: ");
	memset(t + at, 'x', n);
	strcpy(t + at + n, "\n");
	expect_error(t, "deep.yaml:1:7: YAML error: a scalar of 1048577 bytes, above 1048576");
	t[at + n - 1] = '\n'; /* exactly the bound: loads */
	t[at + n] = '\0';
	tph_scenario *s = NULL;
	tph_diag d = {0};
	assert_int_equal(tph_scenario_load_buffer(t, strlen(t), "s.yaml", &s, &d), TPH_OK);
	tph_scenario_free(s);
	free(t);
}

/* A generated scenario of `pods` one-line items. */
static char *pods_text(int pods, const char *extra)
{
	size_t cap = (size_t)pods * 64 + strlen(extra) + 256;
	char *t = malloc(cap), *at = t;
	assert_non_null(t);
	at += sprintf(at, "nodes:\n  - {name: n0, allocatable: {cpu: \"64\"}}\npods:\n");
	for (int i = 0; i < pods; i++)
		at += sprintf(at, "  - {name: p%d, requests: {cpu: \"1\"}}\n", i);
	sprintf(at, "%s", extra);
	return t;
}

/* Serial and split loads of `t` give the same status and message. */
static void same_both_ways(const char *t, int want_rc, const char *want)
{
	size_t min_bytes = yu_split_min_bytes, min_chunk = yu_split_min_chunk;
	int threads = yu_split_threads;
	char msg[2][1024];
	unsigned long split = yu_split_done;
	for (int way = 0; way < 2; way++) {
		yu_split_min_bytes = way ? 0 : SIZE_MAX;
		yu_split_min_chunk = 512;
		yu_split_threads = 2;
		tph_scenario *s = NULL;
		tph_diag d = {0};
		int rc = tph_scenario_load_buffer(t, strlen(t), "s.yaml", &s, &d);
		tph_scenario_free(s);
		if (rc != want_rc || (want && !strstr(d.msg, want)))
			fail_msg("way %d: rc %d \"%s\"; want %d \"%s\"", way, rc, d.msg, want_rc,
			         want ? want : "");
		snprintf(msg[way], sizeof msg[way], "%s", d.msg);
	}
	yu_split_min_bytes = min_bytes;
	yu_split_min_chunk = min_chunk;
	yu_split_threads = threads;
	assert_string_equal(msg[0], msg[1]);
	if (want_rc != TPH_ERANGE) /* the document came through the split */
		assert_true(yu_split_done > split);
}

/* A long scalar in a one-line item, which the split's fast path would read. */
static void test_scalar_through_split(void **state)
{
	(void)state;
	char *name = malloc(YU_MAX_SCALAR + 2);
	assert_non_null(name);
	memset(name, 'x', YU_MAX_SCALAR + 1);
	name[YU_MAX_SCALAR + 1] = '\0';
	char *item = malloc(YU_MAX_SCALAR + 64);
	assert_non_null(item);
	sprintf(item, "  - {name: %s}\n", name);
	char *t = pods_text(100, item);
	same_both_ways(t, TPH_ERANGE, "YAML error: a scalar of 1048577 bytes, above 1048576");
	free(t);
	free(item);
	free(name);
}

/* The node bound (lowered here: the real one takes gigabytes to reach) holds for the whole
 * document through the split, where each chunk alone stays under it. */
static void test_node_count(void **state)
{
	(void)state;
	char *t = pods_text(200, "");
	yu_doc doc;
	tph_diag d = {0};
	assert_int_equal(yu_load(t, strlen(t), "s.yaml", 0, 0, &doc, &d), TPH_OK);
	uint32_t saved = yu_max_nodes, held = doc.n;
	yu_doc_free(&doc);
	yu_max_nodes = held;
	same_both_ways(t, TPH_OK, NULL);
	yu_max_nodes = held - 1;
	char want[96];
	snprintf(want, sizeof want, "YAML error: more than %u nodes in one document", held - 1);
	same_both_ways(t, TPH_ERANGE, want);
	yu_max_nodes = saved;
	free(t);
}

/* An item nested to the bound inside a chunk counts the root mapping around it, as serially. */
static void test_depth_through_split(void **state)
{
	(void)state;
	for (int levels = YU_MAX_DEPTH - 3; levels <= YU_MAX_DEPTH - 2; levels++) {
		/* root map, pods seq, item map, then `levels` flow sequences */
		char *item = nest("  - {name: deep, x: ", "[", levels, "", "]", "}\n");
		char *t = pods_text(100, item);
		if (levels + 3 > YU_MAX_DEPTH)
			same_both_ways(t, TPH_ERANGE, "collections nested deeper than 1000 levels");
		else
			same_both_ways(t, TPH_EINVAL, "field x: unknown field");
		free(item);
		free(t);
	}
}

/* The tuning a failed test may leave lowered. */
static int restore(void **state)
{
	(void)state;
	yu_max_nodes = YU_MAX_NODES;
	yu_split_min_bytes = (size_t)1 << 20;
	yu_split_min_chunk = (size_t)256 << 10;
	yu_split_threads = 0;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_depth_bombs, restore),
	    cmocka_unit_test_teardown(test_scalar_length, restore),
	    cmocka_unit_test_teardown(test_scalar_through_split, restore),
	    cmocka_unit_test_teardown(test_node_count, restore),
	    cmocka_unit_test_teardown(test_depth_through_split, restore),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

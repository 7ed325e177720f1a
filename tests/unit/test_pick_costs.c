/* A pick's fixed costs read once what cannot change: whether every scoring plugin registered a
 * locality callback is answered when the registry freezes (s->scores_declared, ep_locality.c),
 * and a frozen session's answers are those of the registrations themselves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* A BatchNodeOrder plugin that answers for no locality: every task's scores are GLOBAL. */
static void silent_batch(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                         uint32_t n, double *out)
{
	(void)st, (void)s, (void)task, (void)nodes;
	memset(out, 0, n * sizeof *out);
}

static int silent_open(tph_session *s, void *st, const tph_args *args)
{
	(void)st, (void)args;
	return tph_on_batch_node_order(s, silent_batch);
}

static const tph_plugin silent_plugin = {
    TPH_PLUGIN_ABI, "silent-score", NULL, 0, silent_open, NULL,
};

static int group_setup(void **state)
{
	(void)state;
	return pts_register(&silent_plugin);
}

static const char *scenario(const char *extra)
{
	static char buf[2048];
	int n =
	    snprintf(buf, sizeof buf,
	             "name: costs\n"
	             "conf: |\n  actions: \"allocate\"\n  tiers:\n  - plugins:\n"
	             "    - name: predicates\n    - name: nodeorder\n    - name: binpack\n%s"
	             "queues: [{name: default}]\n"
	             "nodes:\n  - {name: n0, allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n"
	             "podGroups: [{name: g, namespace: ns, minMember: 1, phase: Inqueue}]\n"
	             "pods:\n  - {name: p0, namespace: ns, podGroup: g, requests: {cpu: '1', "
	             "memory: 1Gi}}\n",
	             extra);
	assert_true(n > 0 && (size_t)n < sizeof buf);
	return buf;
}

/* A session opened with `extra` in the tier is frozen with the registrations' answer kept,
 * and p0's scores are `kind`, with the row flag `row`. */
static void expect(const char *extra, bool declared, int kind, bool row)
{
	pts p;
	pts_open(&p, scenario(extra));
	assert_true(p.s->frozen);
	assert_int_equal(p.s->scores_declared, declared);
	assert_int_equal(tph_scores_declared(p.s), declared);
	bool got = !row;
	tph_idx t = pts_task(&p, "ns/p0");
	assert_int_equal(tph_score_locality_row(p.s, t, &got), kind);
	assert_int_equal(got, row);
	pts_free(&p);
}

/* The built-in scorers all answer for their locality: a pod whose scores read its request row
 * only is plain LOCAL with the row flag. */
static void test_declared_at_open(void **state)
{
	(void)state;
	expect("", true, TPH_SCORE_LOCAL, true);
}

/* One scorer without a locality callback makes every answer GLOBAL. */
static void test_undeclared_at_open(void **state)
{
	(void)state;
	expect("    - name: silent-score\n", false, TPH_SCORE_GLOBAL, false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_declared_at_open),
	    cmocka_unit_test(test_undeclared_at_open),
	};
	return cmocka_run_group_tests(tests, group_setup, NULL);
}

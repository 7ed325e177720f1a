/* Unit tests for the kai minruntime plugin (plugins/kai/minruntime.c) through the KAI session's
 * extension points: registration, dispatch (all filters must pass), preempt min-runtime
 * inherited up the queue tree, reclaim by lca and by queue (different top-level queues), elastic
 * victims passing the filters and bounded by the validators, and bad arguments falling back to
 * KAI's defaults with a warning. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tephra/tephra.h"

static unsigned warnings;

static void count(void *ud, const char *msg)
{
	(void)ud;
	(void)msg;
	warnings++;
}

/* now = 00:10:00. Queues: a (preempt 20s, reclaim 30s) > a1 (reclaim 5s) and a2; b (reclaim
 * 40s) > b1. Jobs: p in a1 (preemptor), v in a2 started 10s ago, e in a2 elastic (3 pods, min 1)
 * started 10s ago, w in b1 started 10s ago, old in a2 started 1h ago. */
static const char head[] = "flavour: kai\nnow: \"2026-01-01T00:10:00Z\"\nconf: |\n"
                           "  actions: \"\"\n  tiers:\n  - plugins:\n    - name: minruntime\n"
                           "      arguments: {%s}\n";
static const char body[] =
    "queues:\n"
    "  - {name: a, preemptMinRuntime: 20s, reclaimMinRuntime: 30s}\n"
    "  - {name: a1, parentQueue: a, reclaimMinRuntime: 5s}\n"
    "  - {name: a2, parentQueue: a}\n"
    "  - {name: b, reclaimMinRuntime: 40s}\n"
    "  - {name: b1, parentQueue: b}\n"
    "nodes: [{name: n0}]\n"
    "podGroups:\n"
    "  - {name: p, queue: a1}\n"
    "  - {name: v, queue: a2, annotations: {kai.scheduler/last-start-timestamp: "
    "\"2026-01-01T00:09:50Z\"}}\n"
    "  - {name: e, queue: a2, annotations: {kai.scheduler/last-start-timestamp: "
    "\"2026-01-01T00:09:50Z\"}}\n"
    "  - {name: w, queue: b1, annotations: {kai.scheduler/last-start-timestamp: "
    "\"2026-01-01T00:09:50Z\"}}\n"
    "  - {name: old, queue: a2, annotations: {kai.scheduler/last-start-timestamp: "
    "\"2026-01-01T00:00:00Z\"}}\n"
    "pods:\n"
    "  - {name: p0, podGroup: p, status: Pending}\n"
    "  - {name: v0, podGroup: v, status: Running, nodeName: n0}\n"
    "  - {name: e0, podGroup: e, status: Running, nodeName: n0}\n"
    "  - {name: e1, podGroup: e, status: Running, nodeName: n0}\n"
    "  - {name: e2, podGroup: e, status: Running, nodeName: n0}\n"
    "  - {name: w0, podGroup: w, status: Running, nodeName: n0}\n"
    "  - {name: o0, podGroup: old, status: Running, nodeName: n0}\n";

enum {
	P,
	V,
	E,
	W,
	OLD
};

typedef struct mr_fixture {
	tph_scenario *sc;
	tph_kai_snapshot *snap;
	tph_kai_session *s;
} mr_fixture;

static void open_with(mr_fixture *f, const char *args)
{
	char text[4096];
	snprintf(text, sizeof text, head, args);
	strncat(text, body, sizeof text - strlen(text) - 1);
	tph_diag d = {.warn = count};
	assert_int_equal(tph_scenario_load_buffer(text, strlen(text), "mr.yaml", &f->sc, &d), 0);
	assert_int_equal(tph_kai_snapshot_build(tph_scenario_kai_cluster(f->sc),
	                                        tph_scenario_now(f->sc), &f->snap, &d),
	                 0);
	assert_int_equal(tph_kai_session_open(f->snap, tph_scenario_conf(f->sc), &f->s, &d), 0);
}

static void close_all(mr_fixture *f)
{
	tph_kai_session_free(f->s);
	tph_kai_snapshot_free(f->snap);
	tph_scenario_free(f->sc);
}

static void test_preempt(void **state)
{
	(void)state;
	mr_fixture f;
	open_with(&f, "defaultPreemptMinRuntime: 1s");
	/* a2 inherits a's 20s: v (10s) protected, old (10m) not; no start time: not protected */
	assert_false(tph_kai_victim_allowed(f.s, TPH_KAI_PREEMPT, P, V));
	assert_true(tph_kai_victim_allowed(f.s, TPH_KAI_PREEMPT, P, OLD));
	assert_true(tph_kai_victim_allowed(f.s, TPH_KAI_PREEMPT, V, P));
	/* elastic e passes the filter; the validator refuses to take it below its minimum */
	assert_true(tph_kai_victim_allowed(f.s, TPH_KAI_PREEMPT, P, E));
	uint32_t job[1] = {E}, first[2] = {0, 2}, tasks[3] = {2, 3, 4};
	tph_kai_scenario sc = {P, 1, job, first, tasks};
	assert_true(tph_kai_scenario_valid(f.s, TPH_KAI_PREEMPT, &sc));
	first[1] = 3;
	assert_false(tph_kai_scenario_valid(f.s, TPH_KAI_PREEMPT, &sc));
	close_all(&f);
}

static void test_reclaim_lca(void **state)
{
	(void)state;
	mr_fixture f;
	open_with(&f, "defaultReclaimMinRuntime: 1s, reclaimResolveMethod: lca");
	/* p (a1) from v (a2): the LCA is a, one step down is a2 (unset), up to a: 30s */
	assert_false(tph_kai_victim_allowed(f.s, TPH_KAI_RECLAIM, P, V));
	/* v (a2) from p (a1): a1's own 5s; p has no start time anyway */
	assert_true(tph_kai_victim_allowed(f.s, TPH_KAI_RECLAIM, V, P));
	/* different top-level queues: the victim's top-level b, 40s */
	assert_false(tph_kai_victim_allowed(f.s, TPH_KAI_RECLAIM, P, W));
	close_all(&f);
}

static void test_reclaim_queue(void **state)
{
	(void)state;
	mr_fixture f;
	/* queue method: v's leaf a2 is unset, its parent a says 30s; an equal start is protected */
	open_with(&f, "defaultReclaimMinRuntime: 1s, reclaimResolveMethod: queue");
	assert_false(tph_kai_victim_allowed(f.s, TPH_KAI_RECLAIM, P, V));
	assert_true(tph_kai_victim_allowed(f.s, TPH_KAI_RECLAIM, P, OLD));
	close_all(&f);
}

/* Arguments that do not parse warn and keep KAI's defaults (0s, lca). */
static void test_bad_arguments(void **state)
{
	(void)state;
	mr_fixture f;
	warnings = 0;
	open_with(&f, "defaultPreemptMinRuntime: soon, reclaimResolveMethod: nearest");
	assert_true(warnings >= 2);
	/* preempt: a's 20s still applies (the default is only the fallback) */
	assert_false(tph_kai_victim_allowed(f.s, TPH_KAI_PREEMPT, P, V));
	close_all(&f);
}

static bool refuse_all(void *st, const tph_kai_session *s, uint32_t p, uint32_t v)
{
	(void)st, (void)s, (void)p, (void)v;
	return false;
}

/* Without the plugin nothing is filtered; registration after open is refused. */
static void test_no_plugin(void **state)
{
	(void)state;
	mr_fixture f;
	char text[4096];
	snprintf(text, sizeof text, "%s",
	         "flavour: kai\nnow: \"2026-01-01T00:10:00Z\"\n"
	         "conf: |\n  actions: \"\"\n  tiers: []\n");
	strncat(text, body, sizeof text - strlen(text) - 1);
	tph_diag d = {.warn = count};
	assert_int_equal(tph_scenario_load_buffer(text, strlen(text), "mr.yaml", &f.sc, &d), 0);
	assert_int_equal(tph_kai_snapshot_build(tph_scenario_kai_cluster(f.sc),
	                                        tph_scenario_now(f.sc), &f.snap, &d),
	                 0);
	assert_int_equal(tph_kai_session_open(f.snap, tph_scenario_conf(f.sc), &f.s, &d), 0);
	assert_true(tph_kai_victim_allowed(f.s, TPH_KAI_PREEMPT, P, V));
	assert_int_equal(tph_kai_add_victim_filter(f.s, TPH_KAI_PREEMPT, refuse_all, NULL),
	                 TPH_EINVAL);
	assert_true(tph_kai_victim_allowed(f.s, TPH_KAI_PREEMPT, P, V));
	close_all(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_preempt),       cmocka_unit_test(test_reclaim_lca),
	    cmocka_unit_test(test_reclaim_queue), cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_no_plugin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

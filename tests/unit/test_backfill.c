/* Unit tests for kernel/actions/backfill.c: only best-effort tasks of admitted jobs, no
 * resource fit, scoring among several nodes, binding once the job is ready, shards, and the
 * queue / job / task order in which tasks are taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "action_spy.h"

#define CONF(spy_args)                    \
	"conf: |\n"                       \
	"  actions: \"backfill\"\n"       \
	"  tiers:\n"                      \
	"  - plugins:\n"                  \
	"    - name: spy\n"               \
	"      arguments: " spy_args "\n" \
	"queues: [{name: q1}]\n"

#define NODE(name, cpu, pods, extra)                                                              \
	"  - {name: " name ", allocatable: {cpu: '" cpu "', memory: 8Gi, pods: '" pods "'}" extra \
	"}\n"
#define PG(name, min, extra)                                                                      \
	"  - {name: " name ", namespace: ns, queue: q1, minMember: " min ", phase: Inqueue" extra \
	"}\n"
#define BE(name, pg, extra) "  - {name: " name ", namespace: ns, podGroup: " pg extra "}\n"

/* A full node (cpu) still takes a best-effort task: backfill checks predicates only. The
 * higher score wins; the pod with requests is left to allocate. */
static void test_best_effort_only(void **state)
{
	(void)state;
	run r;
	run_scenario(&r,
	             CONF("{score: true}") "nodes:\n" NODE("n1", "1", "20", "") NODE(
	                 "n2", "1", "20", ", labels: {score: '5'}") "podGroups:\n" PG("pg", "1", "")
	                 PG("run", "1", "") "pods:\n" BE("be-0", "pg", "")
	                     BE("req-0", "pg", ", requests: {cpu: '1'}")
	                         BE("busy-0", "run",
	                            ", requests: {cpu: '1'}, phase: Running, "
	                            "nodeName: n2"),
	             1, false);
	assert_string_equal(run_bound(&r, "ns/be-0"), "n2");
	assert_null(run_bound(&r, "ns/req-0"));
	pts_free(&r);
}

static void test_pending_job_skipped(void **state)
{
	(void)state;
	run r;
	run_scenario(
	    &r,
	    CONF("{}") "nodes:\n" NODE(
	        "n1", "1", "20", "") "podGroups:\n"
	                             "  - {name: pg, namespace: ns, queue: q1, minMember: 1}\n"
	                             "pods:\n" BE("be-0", "pg", ""),
	    1, false);
	assert_int_equal(r.log->n_binds, 0);
	pts_free(&r);
}

/* Session.Allocate: a task waits Allocated until its job is ready, then every Allocated task
 * of the job binds. */
static void test_binds_when_ready(void **state)
{
	(void)state;
	run r;
	run_scenario(&r,
	             CONF("{ready: true}") "nodes:\n" NODE("n1", "1", "20", "") "podGroups:\n" PG(
	                 "two", "2", "") PG("three", "3", "") "pods:\n" BE("two-0", "two", "")
	                 BE("two-1", "two", "") BE("three-0", "three", "")
	                     BE("three-1", "three", ""),
	             1, false);
	assert_string_equal(run_bound(&r, "ns/two-0"), "n1");
	assert_string_equal(run_bound(&r, "ns/two-1"), "n1");
	assert_null(run_bound(&r, "ns/three-0"));
	assert_int_equal(run_status(&r, "ns/three-0"), TPH_TS_ALLOCATED);
	pts_free(&r);
}

static void test_shards(void **state)
{
	(void)state;
	const char *rest = "nodes:\n" NODE("n1", "1", "20", ", labels: {score: '9'}") NODE(
	    "n2", "1", "20", "") "podGroups:\n" PG("pg", "1", "") "pods:\n" BE("be-0", "pg", "");
	char yaml[2048];
	run r;
	snprintf(yaml, sizeof yaml, "%sshard: {name: s, mode: hard, nodes: [n2]}\n%s",
	         CONF("{score: true}"), rest);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_bound(&r, "ns/be-0"), "n2");
	pts_free(&r);
	snprintf(yaml, sizeof yaml, "%sshard: {name: s, mode: soft, nodes: [n2]}\n%s",
	         CONF("{score: true}"), rest);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_bound(&r, "ns/be-0"), "n2");
	pts_free(&r);
	snprintf(yaml, sizeof yaml, "%s%s", CONF("{score: true}"), rest);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_bound(&r, "ns/be-0"), "n1");
	pts_free(&r);
}

/* One pod slot: queues by QueueOrder (name), then tasks by pod index (2 before 10). */
static void test_order(void **state)
{
	(void)state;
	run r;
	run_scenario(
	    &r,
	    "conf: |\n  actions: \"backfill\"\n  tiers:\n  - plugins:\n    - name: spy\n"
	    "      arguments: {}\n"
	    "    - name: predicates\n"
	    "queues: [{name: qb}, {name: qa}]\n"
	    "nodes:\n" NODE("n1", "1", "1", "")
	        NODE("n2", "1", "1",
	             "") "podGroups:\n"
	                 "  - {name: b, namespace: ns, queue: qb, minMember: 1, phase: Inqueue}\n"
	                 "  - {name: a, namespace: ns, queue: qa, minMember: 1, phase: Inqueue}\n"
	                 "pods:\n" BE("b-x-1", "b", "") BE("a-x-10", "a", "") BE("a-x-2", "a", ""),
	    1, false);
	assert_string_equal(run_bound(&r, "ns/a-x-2"), "n1");
	assert_string_equal(run_bound(&r, "ns/a-x-10"), "n2");
	assert_null(run_bound(&r, "ns/b-x-1"));
	pts_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_best_effort_only),
	    cmocka_unit_test(test_pending_job_skipped),
	    cmocka_unit_test(test_binds_when_ready),
	    cmocka_unit_test(test_shards),
	    cmocka_unit_test(test_order),
	};
	return cmocka_run_group_tests(tests, spy_setup, NULL);
}

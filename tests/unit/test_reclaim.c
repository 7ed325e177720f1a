/* The reclaim action over whole sessions (priority, gang, conformance and evtest's knobs): a
 * starving job takes running work of other, reclaimable queues; overused queues, queues that
 * may not preempt, Never preemptors, non-reclaimable queues and the reclaimer's own queue are
 * left alone; idle room pipelines without evicting; shards limit the nodes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "evict_test.h"

static const char head[] = "name: t\n"
                           "conf: |\n"
                           "  actions: reclaim\n"
                           "  tiers:\n"
                           "  - plugins:\n"
                           "    - name: priority\n"
                           "    - name: gang\n"
                           "    - name: conformance\n"
                           "  - plugins:\n"
                           "    - name: evtest\n"
                           "      arguments: {@}\n";

/* @: q2's reclaimable flag, n1's cpu, the victims' queue, the reclaimer's extra fields. */
static const char body[] =
    "queues: [{name: q1}, {name: q2, reclaimable: @}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '@', memory: 4Gi, pods: '10'}}\n"
    "  - {name: n2, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"
    "podGroups:\n"
    "  - {name: pgv, namespace: c1, queue: @, minMember: 0, phase: Running}\n"
    "  - {name: pgw, namespace: c1, queue: q2, minMember: 0, phase: Running}\n"
    "  - {name: pgr, namespace: c1, queue: q1, minMember: 1, phase: Inqueue}\n"
    "pods:\n"
    "  - {name: v1, namespace: c1, podGroup: pgv, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}}\n"
    "  - {name: v2, namespace: c1, podGroup: pgv, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}}\n"
    "  - {name: w1, namespace: c1, podGroup: pgw, phase: Running, nodeName: n2,"
    " requests: {cpu: '2'}}\n"
    "  - {name: r1, namespace: c1, podGroup: pgr, phase: Pending, requests: {cpu: '1'}@}\n";

static char yaml[8192];

static void run(ev_run *r, const char *evargs, const char *shard, const char *reclaimable,
                const char *cpu, const char *vq, const char *extra)
{
	char h[2048], b[4096];
	const char *ha[] = {evargs}, *ba[] = {reclaimable, cpu, vq, extra};
	ev_fill(h, sizeof h, head, ha);
	ev_fill(b, sizeof b, body, ba);
	snprintf(yaml, sizeof yaml, "%s%s%s", h, shard, b);
	ev_run_yaml(r, yaml);
}

static void test_reclaims_from_other_queue(void **state)
{
	(void)state;
	ev_run r;
	run(&r, "", "", "true", "2", "q2", "");
	/* Same job: reverse task order, so v2 goes first; one frees enough. */
	assert_string_equal(ev_evictions(&r), "c1/v2:reclaim;");
	assert_string_equal(ev_pipelined(&r), "c1/r1@n1;");
	assert_int_equal(r.log->n_binds, 0);
	pts_free(&r);
}

static void test_non_reclaimable_queue_kept(void **state)
{
	(void)state;
	ev_run r;
	run(&r, "", "", "false", "2", "q2", "");
	assert_string_equal(ev_evictions(&r), "");
	assert_string_equal(ev_pipelined(&r), "");
	pts_free(&r);
}

static void test_own_queue_not_reclaimed(void **state)
{
	(void)state;
	ev_run r;
	/* v1, v2 in q1 with the reclaimer; w1 in q2 fills n2 and is taken instead. */
	run(&r, "", "", "true", "2", "q1", "");
	assert_string_equal(ev_evictions(&r), "c1/w1:reclaim;");
	assert_string_equal(ev_pipelined(&r), "c1/r1@n2;");
	pts_free(&r);
}

static void test_overused_queue_skipped(void **state)
{
	(void)state;
	ev_run r;
	run(&r, "overusedQueue: q1", "", "true", "2", "q2", "");
	assert_string_equal(ev_evictions(&r), "");
	pts_free(&r);
}

static void test_not_preemptive_skipped(void **state)
{
	(void)state;
	ev_run r;
	run(&r, "closedQueue: q1", "", "true", "2", "q2", "");
	assert_string_equal(ev_evictions(&r), "");
	pts_free(&r);
}

static void test_never_policy_skipped(void **state)
{
	(void)state;
	ev_run r;
	run(&r, "", "", "true", "2", "q2", ", preemptionPolicy: Never");
	assert_string_equal(ev_evictions(&r), "");
	pts_free(&r);
}

static void test_idle_room_pipelines_without_eviction(void **state)
{
	(void)state;
	ev_run r;
	run(&r, "", "", "true", "3", "q2", "");
	assert_string_equal(ev_evictions(&r), "");
	assert_string_equal(ev_pipelined(&r), "c1/r1@n1;");
	pts_free(&r);
}

static void test_unresolvable_node_skipped(void **state)
{
	(void)state;
	ev_run r;
	run(&r, "unresolvableNode: n1", "", "true", "2", "q2", "");
	assert_string_equal(ev_evictions(&r), "c1/w1:reclaim;");
	assert_string_equal(ev_pipelined(&r), "c1/r1@n2;");
	pts_free(&r);
}

static void test_hard_shard_limits_nodes(void **state)
{
	(void)state;
	ev_run r;
	run(&r, "", "shard: {name: s, mode: hard, nodes: [n2]}\n", "true", "2", "q2", "");
	assert_string_equal(ev_evictions(&r), "c1/w1:reclaim;");
	pts_free(&r);
}

static void test_soft_shard_prefers_shard(void **state)
{
	(void)state;
	ev_run r;
	run(&r, "", "shard: {name: s, mode: soft, nodes: [n2]}\n", "true", "2", "q2", "");
	assert_string_equal(ev_evictions(&r), "c1/w1:reclaim;");
	assert_string_equal(ev_pipelined(&r), "c1/r1@n2;");
	pts_free(&r);
}

/* Out of memory anywhere in the run is reported, never a silently smaller reclaim. */
static void test_out_of_memory_is_reported(void **state)
{
	(void)state;
	char h[2048], b[4096];
	const char *ha[] = {""}, *ba[] = {"true", "2", "q2", ""};
	ev_fill(h, sizeof h, head, ha);
	ev_fill(b, sizeof b, body, ba);
	snprintf(yaml, sizeof yaml, "%s%s", h, b);
	ev_expect_oom_safe(yaml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reclaims_from_other_queue),
	    cmocka_unit_test(test_non_reclaimable_queue_kept),
	    cmocka_unit_test(test_own_queue_not_reclaimed),
	    cmocka_unit_test(test_overused_queue_skipped),
	    cmocka_unit_test(test_not_preemptive_skipped),
	    cmocka_unit_test(test_never_policy_skipped),
	    cmocka_unit_test(test_idle_room_pipelines_without_eviction),
	    cmocka_unit_test(test_unresolvable_node_skipped),
	    cmocka_unit_test(test_hard_shard_limits_nodes),
	    cmocka_unit_test(test_soft_shard_prefers_shard),
	    cmocka_unit_test(test_out_of_memory_is_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

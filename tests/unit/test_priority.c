/* Unit tests for plugins/priority.c: task and job order by priority, the preemptable rule
 * (job priorities across jobs, task priorities inside one) and the starving rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

static const char base[] =
    "conf: |\n"
    "  actions: \"\"\n"
    "  tiers:\n"
    "  - plugins:\n"
    "    - name: priority\n"
    "priorityClasses:\n"
    "  - {name: high, value: 1000}\n"
    "  - {name: low, value: 10}\n"
    "queues: [{name: q1}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '8', memory: 8Gi, pods: '20'}}\n"
    "podGroups:\n"
    "  - {name: lo, namespace: ns, queue: q1, priorityClassName: low,"
    " creationTimestamp: '2026-01-01T00:00:00Z'}\n"
    "  - {name: hi, namespace: ns, queue: q1, priorityClassName: high,"
    " creationTimestamp: '2026-01-01T00:01:00Z'}\n"
    "  - {name: lo2, namespace: ns, queue: q1, priorityClassName: low}\n"
    "pods:\n"
    "  - {name: lo-a, namespace: ns, podGroup: lo, priority: 5, phase: Running,"
    " nodeName: n1, requests: {cpu: '1'}}\n"
    "  - {name: lo-b, namespace: ns, podGroup: lo, priority: 50, requests: {cpu: '1'}}\n"
    "  - {name: lo-c, namespace: ns, podGroup: lo, priority: 50, phase: Running,"
    " nodeName: n1, requests: {cpu: '1'}}\n"
    "  - {name: hi-a, namespace: ns, podGroup: hi, priority: 1, requests: {cpu: '1'}}\n"
    "  - {name: hi-b, namespace: ns, podGroup: hi, priority: 1, phase: Running,"
    " nodeName: n1, requests: {cpu: '1'}}\n"
    "  - {name: lo2-a, namespace: ns, podGroup: lo2, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}}\n";

static void test_task_order_higher_first(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, base);
	tph_idx a = pts_task(&p, "ns/lo-a"), b = pts_task(&p, "ns/lo-b"),
	        c = pts_task(&p, "ns/lo-c");
	assert_true(tph_task_order(p.s, b, a) < 0);
	assert_true(tph_task_order(p.s, a, b) > 0);
	/* Equal priorities: the plugin does not decide. */
	assert_int_equal(tph_task_order_cmp_plugins(p.s, b, c), 0);
	pts_free(&p);
}

static void test_job_order_by_podgroup_class(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, base);
	tph_idx lo = pts_job(&p, "ns/lo"), hi = pts_job(&p, "ns/hi"), lo2 = pts_job(&p, "ns/lo2");
	/* hi was created later but its class is higher. */
	assert_true(tph_job_order(p.s, hi, lo) < 0);
	assert_true(tph_job_order_cmp_plugins(p.s, lo, hi) > 0);
	assert_int_equal(tph_job_order_cmp_plugins(p.s, lo, lo2), 0);
	pts_free(&p);
}

static void test_preemptable_across_jobs_by_job_priority(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, base);
	/* hi-a (task priority 1, job 1000) may evict lo's tasks whatever their task priority,
	 * but not a task of its own job with equal priority. */
	tph_idx c[3] = {pts_task(&p, "ns/lo-a"), pts_task(&p, "ns/lo-c"), pts_task(&p, "ns/hi-b")};
	tph_idx out[3];
	assert_int_equal(tph_preemptable(p.s, pts_task(&p, "ns/hi-a"), c, 3, out), 2);
	assert_int_equal(out[0], c[0]);
	assert_int_equal(out[1], c[1]);
	/* A job of equal priority is no victim; nothing left: no victims at all. */
	tph_idx d[1] = {pts_task(&p, "ns/lo2-a")};
	assert_int_equal(tph_preemptable(p.s, pts_task(&p, "ns/lo-b"), d, 1, out), 0);
	pts_free(&p);
}

static void test_preemptable_inside_job_by_task_priority(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, base);
	/* lo-b (50) may evict lo-a (5) but not lo-c (50). */
	tph_idx c[2] = {pts_task(&p, "ns/lo-c"), pts_task(&p, "ns/lo-a")};
	tph_idx out[2];
	assert_int_equal(tph_preemptable(p.s, pts_task(&p, "ns/lo-b"), c, 2, out), 1);
	assert_int_equal(out[0], c[1]);
	pts_free(&p);
}

static void test_job_starving(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, base);
	tph_idx lo = pts_job(&p, "ns/lo"), lo2 = pts_job(&p, "ns/lo2");
	assert_true(tph_job_starving(p.s, lo)); /* lo-b is pending */
	assert_false(tph_job_starving(p.s, lo2));
	/* A pipelined task counts as waiting, not starving. */
	pts_set_status(&p, pts_task(&p, "ns/lo-b"), TPH_TS_PIPELINED);
	assert_false(tph_job_starving(p.s, lo));
	pts_free(&p);
}

/* A subjob's priority is its highest task priority. */
static void test_subjob_order(void **state)
{
	(void)state;
	pts p;
	pts_open(&p,
	         "conf: |\n"
	         "  actions: \"\"\n"
	         "  tiers:\n"
	         "  - plugins:\n"
	         "    - name: priority\n"
	         "queues: [{name: q1}]\n"
	         "podGroups:\n"
	         "  - {name: sg, namespace: ns, queue: q1, subGroupPolicy: [{name: w,"
	         " matchLabelKeys: [grp]}]}\n"
	         "pods:\n"
	         "  - {name: a0, namespace: ns, podGroup: sg, priority: 5, labels: {grp: a}}\n"
	         "  - {name: b0, namespace: ns, podGroup: sg, priority: 1, labels: {grp: b}}\n"
	         "  - {name: b1, namespace: ns, podGroup: sg, priority: 9, labels: {grp: b}}\n"
	         "  - {name: c0, namespace: ns, podGroup: sg, priority: 9, labels: {grp: c}}\n");
	tph_idx a = tph_task_subjob(p.s, pts_task(&p, "ns/a0"));
	tph_idx b = tph_task_subjob(p.s, pts_task(&p, "ns/b0"));
	tph_idx c = tph_task_subjob(p.s, pts_task(&p, "ns/c0"));
	assert_true(tph_subjob_order(p.s, b, a) < 0);
	assert_true(tph_subjob_order(p.s, a, b) > 0);
	/* Equal: the plugin does not decide, the index does. */
	assert_int_equal(tph_subjob_order(p.s, b, c), b < c ? -1 : 1);
	pts_free(&p);
}

static void test_flags_gate_orders(void **state)
{
	(void)state;
	char yaml[4096];
	snprintf(yaml, sizeof yaml, "%s", base);
	char *at = strstr(yaml, "    - name: priority\n");
	const char *flags = "    - name: priority\n"
	                    "      enableTaskOrder: false\n"
	                    "      enableJobOrder: false\n"
	                    "      enablePreemptable: false\n";
	char rest[4096];
	snprintf(rest, sizeof rest, "%s", at + strlen("    - name: priority\n"));
	snprintf(at, sizeof yaml - (size_t)(at - yaml), "%s%s", flags, rest);
	pts p;
	pts_open(&p, yaml);
	assert_int_equal(p.s->ep[TPH_EP_TASK_ORDER].n, 0);
	assert_int_equal(p.s->ep[TPH_EP_JOB_ORDER].n, 0);
	assert_int_equal(p.s->ep[TPH_EP_PREEMPTABLE].n, 0);
	assert_int_equal(p.s->ep[TPH_EP_JOB_STARVING].n, 1);
	/* Falls back to creation time: lo before hi. */
	assert_true(tph_job_order(p.s, pts_job(&p, "ns/lo"), pts_job(&p, "ns/hi")) < 0);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_task_order_higher_first),
	    cmocka_unit_test(test_job_order_by_podgroup_class),
	    cmocka_unit_test(test_preemptable_across_jobs_by_job_priority),
	    cmocka_unit_test(test_preemptable_inside_job_by_task_priority),
	    cmocka_unit_test(test_job_starving),
	    cmocka_unit_test(test_subjob_order),
	    cmocka_unit_test(test_flags_gate_orders),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for plugins/conformance.c: pods in kube-system or of the system-cluster-critical
 * and system-node-critical classes are never victims, for preempt, reclaim and gang eviction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

static const char scn[] =
    "conf: |\n"
    "  actions: \"\"\n"
    "  tiers:\n"
    "  - plugins:\n"
    "    - name: conformance\n"
    "priorityClasses:\n"
    "  - {name: system-cluster-critical, value: 2000000000}\n"
    "  - {name: system-node-critical, value: 2000001000}\n"
    "  - {name: high, value: 2000000000}\n"
    "queues: [{name: default}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '8', memory: 8Gi, pods: '20'}}\n"
    "pods:\n"
    "  - {name: sys, namespace: kube-system, phase: Running, nodeName: n1}\n"
    "  - {name: cc, namespace: apps, priorityClassName: system-cluster-critical,"
    " phase: Running, nodeName: n1}\n"
    "  - {name: nc, namespace: apps, priorityClassName: system-node-critical,"
    " phase: Running, nodeName: n1}\n"
    "  - {name: hi, namespace: apps, priorityClassName: high, phase: Running, nodeName: n1}\n"
    "  - {name: plain, namespace: kube-public, phase: Running, nodeName: n1}\n"
    "  - {name: new, namespace: apps}\n";

static void check(uint32_t (*fn)(tph_session *, tph_idx, const tph_idx *, uint32_t, tph_idx *))
{
	pts p;
	pts_open(&p, scn);
	const char *names[5] = {"kube-system/sys", "apps/cc", "apps/nc", "apps/hi",
	                        "kube-public/plain"};
	tph_idx c[5], out[5];
	for (int i = 0; i < 5; i++)
		c[i] = pts_task(&p, names[i]);
	/* Same value as a critical class is not enough: the name decides. */
	assert_int_equal(fn(p.s, pts_task(&p, "apps/new"), c, 5, out), 2);
	assert_int_equal(out[0], c[3]);
	assert_int_equal(out[1], c[4]);
	/* Only critical candidates: no victims. */
	assert_int_equal(fn(p.s, pts_task(&p, "apps/new"), c, 3, out), 0);
	pts_free(&p);
}

static void test_preemptable(void **state)
{
	(void)state;
	check(tph_preemptable);
}

static void test_reclaimable(void **state)
{
	(void)state;
	check(tph_reclaimable);
}

static void test_unified_evictable(void **state)
{
	(void)state;
	check(tph_unified_evictable);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_preemptable),
	    cmocka_unit_test(test_reclaimable),
	    cmocka_unit_test(test_unified_evictable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

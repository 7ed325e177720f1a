/* Unit tests for KAI's SubGroupOrder over a set's members (tph_kai_pod_set_order, the
 * subgrouporder plugin in plugins/kai/orders.c): sets and pod sets compare alike — a set counts
 * its satisfied children against its minSubGroup — so a pod set may go before a set; members
 * without a threshold go last, the fewer counted first; GetTasksToAllocate follows the order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai_fixture.h"

static void open_sg(kf *f, const char *plugins, const char *subgroups, const char *pods)
{
	char rest[4096];
	snprintf(rest, sizeof rest,
	         "nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G}}]\n"
	         "podGroups:\n  - name: j\n    queue: q\n    subGroups:\n%s"
	         "pods:\n%s",
	         subgroups, pods);
	kai_open_tier(f, "", plugins, rest);
}

#define RUN(name, sg)                                                                 \
	"  - {name: " name ", podGroup: j, labels: {kai.scheduler/subgroup-name: " sg \
	"}, status: "                                                                 \
	"Running, nodeName: n0, requests: {cpu: \"1\"}}\n"
#define PEND(name, sg)                                                                \
	"  - {name: " name ", podGroup: j, labels: {kai.scheduler/subgroup-name: " sg \
	"}, status: "                                                                 \
	"Pending, requests: {cpu: \"1\"}}\n"

/* Sub-groups 0 a-pod, 1 z-set, 2 zz1, 3 zz2 (both under z-set). */
static const char tree[] = "      - {name: a-pod, minMember: 1}\n"
                           "      - {name: z-set, minSubGroup: 1}\n"
                           "      - {name: zz1, parent: z-set, minMember: 1}\n"
                           "      - {name: zz2, parent: z-set, minMember: 1}\n";

/* z-set satisfies 2 children of 1 (ratio 2), a-pod 1 pod of 1 (ratio 1): a-pod first, and the
 * satisfied root grows it (GetTasksToAllocate's elastic phase takes its first member's pod),
 * where sets-before-pod-sets would grow zz1. */
static void test_pod_set_before_set(void **state)
{
	(void)state;
	kf f;
	open_sg(&f, "[{name: subgrouporder}]", tree,
	        RUN("a-0", "a-pod") PEND("a-1", "a-pod") RUN("zz1-0", "zz1") PEND("zz1-1", "zz1")
	            RUN("zz2-0", "zz2"));
	assert_true(tph_kai_pod_set_order(f.s, 0, 1) < 0);
	uint32_t out[8];
	assert_int_equal(tph_kai_tasks_to_allocate(f.s, 0, out), 1);
	assert_string_equal(tph_kai_session_view(f.s)->tasks.name[out[0]], "a-1");
	close_kai(&f);
}

/* A set below its minSubGroup goes before a satisfied pod set; with no plugin, the name. */
static void test_set_below_threshold_first(void **state)
{
	(void)state;
	static const char two[] = "      - {name: a-pod, minMember: 1}\n"
	                          "      - {name: z-set, minSubGroup: 2}\n"
	                          "      - {name: zz1, parent: z-set, minMember: 1}\n"
	                          "      - {name: zz2, parent: z-set, minMember: 1}\n";
	kf f;
	open_sg(&f, "[{name: subgrouporder}]", two,
	        RUN("a-0", "a-pod") RUN("zz1-0", "zz1") PEND("zz2-0", "zz2"));
	assert_true(tph_kai_pod_set_order(f.s, 1, 0) < 0);
	close_kai(&f);
	open_sg(&f, "[]", two, RUN("a-0", "a-pod") RUN("zz1-0", "zz1") PEND("zz2-0", "zz2"));
	assert_true(tph_kai_pod_set_order(f.s, 0, 1) < 0);
	close_kai(&f);
}

/* minMember 0: a member with a threshold goes first; two without, the fewer allocated. */
static void test_optional_members(void **state)
{
	(void)state;
	static const char opt[] = "      - {name: a, minMember: 0}\n"
	                          "      - {name: b, minMember: 0}\n"
	                          "      - {name: c, minMember: 1}\n";
	kf f;
	open_sg(&f, "[{name: subgrouporder}]", opt,
	        RUN("a-0", "a") RUN("a-1", "a") RUN("b-0", "b") RUN("c-0", "c") RUN("c-1", "c"));
	assert_true(tph_kai_pod_set_order(f.s, 2, 0) < 0); /* c (ratio 2) before optional a */
	assert_true(tph_kai_pod_set_order(f.s, 1, 0) < 0); /* b (1) before a (2) */
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pod_set_before_set),
	    cmocka_unit_test(test_set_below_threshold_first),
	    cmocka_unit_test(test_optional_members),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

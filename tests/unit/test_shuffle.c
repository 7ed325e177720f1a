/* The shuffle action: evtest's VictimTasks picks running tasks below a priority, and each is
 * evicted once with reason "shuffle"; pending tasks and higher priorities stay. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "evict_test.h"

static const char scenario[] =
    "name: t\n"
    "conf: |\n"
    "  actions: shuffle\n"
    "  tiers:\n"
    "  - plugins:\n"
    "    - name: evtest\n"
    "      arguments: {victimBelow: @}\n"
    "queues: [{name: q1}]\n"
    "nodes: [{name: n1, allocatable: {cpu: '8', memory: 4Gi, pods: '10'}}]\n"
    "podGroups: [{name: pg, namespace: c1, queue: q1, phase: Running}]\n"
    "pods:\n"
    "  - {name: a, namespace: c1, podGroup: pg, phase: Running, nodeName: n1, priority: 10}\n"
    "  - {name: b, namespace: c1, podGroup: pg, phase: Running, nodeName: n1, priority: 100}\n"
    "  - {name: c, namespace: c1, podGroup: pg, phase: Running, nodeName: n1, priority: 5}\n"
    "  - {name: d, namespace: c1, podGroup: pg, phase: Pending, priority: 1}\n";

static void run(ev_run *r, const char *below)
{
	static char yaml[2048];
	const char *a[] = {below};
	ev_fill(yaml, sizeof yaml, scenario, a);
	ev_run_yaml(r, yaml);
}

static void test_evicts_victims_once(void **state)
{
	(void)state;
	ev_run r;
	run(&r, "50");
	assert_string_equal(ev_evictions(&r), "c1/a:shuffle;c1/c:shuffle;");
	pts_free(&r);
}

static void test_no_victims_no_evictions(void **state)
{
	(void)state;
	ev_run r;
	run(&r, "0");
	assert_string_equal(ev_evictions(&r), "");
	pts_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_evicts_victims_once),
	    cmocka_unit_test(test_no_victims_no_evictions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for plugins/rescheduling: when its strategies run (interval), which utilisation it
 * reads (metricsPeriod against the nodes' usage periods), the argument shapes Volcano decodes
 * (strategies as mapstructure reads them, thresholds as LowNodeUtilizationConf.parse does), the
 * grouping of nodes, the eviction order of nodes and pods, the stopping rules and the matching
 * of pods to the given tasks by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

/* rescheduling with `args` (flow mapping entries) over `objects`. */
static void open_rs(pts *p, const char *args, const char *objects)
{
	char yaml[8192];
	snprintf(yaml, sizeof yaml,
	         "conf: |\n"
	         "  actions: \"\"\n"
	         "  tiers:\n"
	         "  - plugins:\n"
	         "    - name: rescheduling\n"
	         "      arguments: {%s}\n"
	         "queues: [{name: default}]\n"
	         "priorityClasses: [{name: low, value: 10}, {name: high, value: 100}]\n"
	         "%s",
	         args, objects);
	pts_open(p, yaml);
}

/* The victims among `cands` (task keys; NULL: shuffle's, every Running task in snapshot
 * order), as "ns/a ns/b" in candidate order. */
static void victims_of(pts *p, const char *const *cands, char *out, size_t cap)
{
	tph_idx t[64] = {0};
	uint8_t v[64] = {0};
	uint32_t n = 0;
	for (tph_idx i = 0; !cands && i < p->s->tasks.n && n < 64; i++)
		if (p->s->tasks.status[i] == TPH_TS_RUNNING && p->s->tasks.job[i] != TPH_NOIDX)
			t[n++] = i;
	for (; cands && cands[n]; n++)
		t[n] = pts_task(p, cands[n]);
	tph_victim_tasks(p->s, t, n, v);
	size_t len = 0;
	out[0] = 0;
	for (uint32_t i = 0; i < n; i++)
		if (v[i])
			len += (size_t)snprintf(out + len, cap - len, "%s%s/%s", len ? " " : "",
			                        pts_str(p->s, p->s->tasks.ns[t[i]]),
			                        pts_str(p->s, p->s->tasks.name[t[i]]));
}

static void expect_victims(const char *args, const char *objects, const char *want)
{
	pts p;
	char got[512];
	open_rs(&p, args, objects);
	victims_of(&p, NULL, got, sizeof got);
	if (strcmp(got, want))
		fail_msg("{%s}: victims \"%s\", want \"%s\"", args, got, want);
	pts_free(&p);
}

#define NODE(name, cpu, mem)                                                               \
	"  - {name: " name ", allocatable: {cpu: '10', memory: 10Gi, pods: '20'}, usage: " \
	"{period: 5m, cpu: " cpu ", memory: " mem "}}\n"
#define RUN(name, node, extra) \
	"  - {name: " name ", namespace: ns, phase: Running, nodeName: " node extra "}\n"

/* n1 high, n2 low, n3 between; the pods of n1 by eviction order. */
static const char basic[] =
    "nodes:\n" NODE("n1", "90", "80") NODE("n2", "10", "10") NODE("n3", "30", "30") "pods:\n" RUN(
        "g", "n1", ", requests: {cpu: '1', memory: 1Gi}, limits: {cpu: '1', memory: 1Gi}")
        RUN("b", "n1", ", requests: {cpu: '1'}") RUN("e", "n1", "")
            RUN("p", "n1", ", priorityClassName: low") RUN("q", "n3", ", requests: {cpu: '1'}");

#define LNU(low, target)                                                         \
	"strategies: [{name: lowNodeUtilization, params: {thresholds: " low ", " \
	"targetThresholds: " target "}}]"
#define LNU20_50 LNU("{cpu: 20, memory: 20}", "{cpu: 50, memory: 50}")

static void test_interval(void **state)
{
	(void)state;
	/* Each session is the first of a scheduler that just started (timeToRun). */
	expect_victims(LNU20_50, basic, "");
	expect_victims("interval: 5m, " LNU20_50, basic, "");
	expect_victims("interval: 1ns, " LNU20_50, basic, "");
	expect_victims("interval: '0', " LNU20_50, basic, "ns/g ns/b ns/e ns/p");
	expect_victims("interval: 0s, " LNU20_50, basic, "ns/g ns/b ns/e ns/p");
	expect_victims("interval: -1h, " LNU20_50, basic, "ns/g ns/b ns/e ns/p");
	/* Not a duration, or not a string: the default 5m. */
	expect_victims("interval: soon, " LNU20_50, basic, "");
	expect_victims("interval: 0, " LNU20_50, basic, "");
}

static void test_metrics_period(void **state)
{
	(void)state;
	const char *lnu = "interval: 0s, " LNU20_50;
	char args[512];
	/* 10m matches no node here: every node reads 0%, all are low, nothing moves. */
	snprintf(args, sizeof args, "metricsPeriod: 10m, %s", lnu);
	expect_victims(args, basic, "");
	snprintf(args, sizeof args, "metricsPeriod: 300s, %s", lnu);
	expect_victims(args, basic, "ns/g ns/b ns/e ns/p");
	snprintf(args, sizeof args, "metricsPeriod: '', %s", lnu);
	expect_victims(args, basic, "ns/g ns/b ns/e ns/p");
	/* A usage without a period is the cache's (10m). */
	static const char noperiod[] =
	    "nodes:\n"
	    "  - {name: n1, allocatable: {cpu: '10', memory: 10Gi}, usage: {cpu: 90, memory: 90}}\n"
	    "  - {name: n2, allocatable: {cpu: '10', memory: 10Gi}, usage: {cpu: 1, memory: 1}}\n"
	    "pods:\n" RUN("a", "n1", ", requests: {cpu: '1'}");
	expect_victims(lnu, noperiod, "");
	snprintf(args, sizeof args, "metricsPeriod: 10m, %s", lnu);
	expect_victims(args, noperiod, "ns/a");
}

/* strategies as parseArguments and mapstructure read them. */
static void test_strategies(void **state)
{
	(void)state;
	/* The default lowNodeUtilization: every threshold 100. */
	static const char over[] = "nodes:\n" NODE("n1", "120", "10")
	    NODE("n2", "10", "10") "pods:\n" RUN("a", "n1", ", requests: {cpu: '1'}");
	expect_victims("interval: 0s", over, "ns/a");
	expect_victims("interval: 0s, strategies: []", over, "ns/a");
	expect_victims("interval: 0s, strategies: {name: x}", over, "ns/a");
	expect_victims("interval: 0s, strategies: [{name: lowPriorityFirst}]", over, "");
	expect_victims("interval: 0s, strategies: [{Name: lowNodeUtilization}]", over, "ns/a");
	expect_victims("interval: 0s, strategies: [{NAME: lowNodeUtilization, params: ~}]", over,
	               "ns/a");
	/* Items that do not decode are dropped, leaving no strategy. */
	expect_victims("interval: 0s, strategies: [{name: 5}]", over, "");
	expect_victims("interval: 0s, strategies: [lowNodeUtilization]", over, "");
	expect_victims("interval: 0s, strategies: [{name: lowNodeUtilization, params: 5}]", over,
	               "");
	expect_victims("interval: 0s, strategies: [{name: lowNodeUtilization, params: [1]}]", over,
	               "");
	/* The last lowNodeUtilization's params count. */
	expect_victims("interval: 0s, strategies: [" /* first: targets 200, nothing is high */
	               "{name: lowNodeUtilization, params: {targetThresholds: {cpu: 200}}},"
	               "{name: lowNodeUtilization}]",
	               over, "ns/a");
	expect_victims("interval: 0s, strategies: [{name: lowNodeUtilization},"
	               "{name: lowNodeUtilization, params: {targetThresholds: {cpu: 200}}}]",
	               over, "");
}

/* LowNodeUtilizationConf.parse: integer values of cpu and memory; a map that is not one ends
 * the parse; pods (and pod) never matter. */
static void test_thresholds(void **state)
{
	(void)state;
	const char *a = "interval: 0s, ";
	char args[512];
	/* n1 (90% cpu) is high against 80 and n3 low below 85: e, b (90 -> 80), g (-> 70) */
	snprintf(args, sizeof args, "%s" LNU("{cpu: 85}", "{cpu: 80}"), a);
	expect_victims(args, basic, "ns/g ns/b ns/e");
	/* A float is skipped (Volcano panics): the cpu threshold stays 100, n3 is low too. */
	snprintf(args, sizeof args, "%s" LNU("{cpu: 20.5, memory: 20}", "{cpu: 50, memory: 50}"),
	         a);
	expect_victims(args, basic, "ns/g ns/b ns/e ns/p");
	/* thresholds not a mapping: targetThresholds are never read (100), nothing is high */
	snprintf(args, sizeof args, "%s" LNU("20", "{cpu: 50, memory: 50}"), a);
	expect_victims(args, basic, "");
	snprintf(args, sizeof args,
	         "%s" LNU("{pods: 0, pod: 0, cpu: 20, memory: 20}",
	                  "{pods: 0, pod: 0, cpu: 85, memory: 85}"),
	         a);
	expect_victims(args, basic, "ns/b ns/e");
}

/* Grouping: an unschedulable node is never low; no low node, all low, or no high node: none. */
static void test_grouping(void **state)
{
	(void)state;
	const char *a = "interval: 0s, " LNU20_50;
	expect_victims(
	    a,
	    "nodes:\n" NODE(
	        "n1", "90",
	        "80") "  - {name: n2, allocatable: {cpu: '10', memory: 10Gi}, unschedulable: true,"
	              " usage: {period: 5m, cpu: 1, memory: 1}}\n"
	              "pods:\n" RUN("a", "n1", ", requests: {cpu: '1'}"),
	    "");
	expect_victims(a,
	               "nodes:\n" NODE("n1", "10", "10") NODE("n2", "10", "19.9") "pods:\n" RUN(
	                   "a", "n1", ", requests: {cpu: '1'}"),
	               "");
	expect_victims(a,
	               "nodes:\n" NODE("n1", "50", "50") NODE("n2", "10", "10") "pods:\n" RUN(
	                   "a", "n1", ", requests: {cpu: '1'}"),
	               "");
	/* high needs one resource above its target; memory alone does */
	expect_victims(a,
	               "nodes:\n" NODE("n1", "10", "50.5") NODE("n2", "10", "10") "pods:\n" RUN(
	                   "a", "n1", ", requests: {memory: 1Gi}"),
	               "ns/a");
}

/* The stopping rules: the node goes under every target, or a room reaches exactly 0. */
static void test_stopping(void **state)
{
	(void)state;
	const char *a = "interval: 0s, " LNU20_50;
	/* 60% cpu on 10 cpus: 2 cpus leave, 40% < 50%; memory was below already */
	expect_victims(a,
	               "nodes:\n" NODE("n1", "60", "10")
	                   NODE("n2", "10", "10") "pods:\n" RUN("a", "n1", ", requests: {cpu: '2'}")
	                       RUN("b", "n1", ", requests: {cpu: '2'}"),
	               "ns/a");
	/* n2's room: 50% - 10% of 10 cpus = 4 cpus; exactly 4 leave, then none */
	expect_victims(a,
	               "nodes:\n" NODE("n1", "99", "99")
	                   NODE("n2", "10", "10") "pods:\n" RUN("a", "n1", ", requests: {cpu: '3'}")
	                       RUN("b", "n1", ", requests: {cpu: '1'}")
	                           RUN("c", "n1", ", requests: {cpu: '1'}"),
	               "ns/a ns/b");
	/* more than the room: it goes negative, and that does not stop it */
	expect_victims(a,
	               "nodes:\n" NODE("n1", "99", "99")
	                   NODE("n2", "10", "10") "pods:\n" RUN("a", "n1", ", requests: {cpu: '5'}")
	                       RUN("b", "n1", ", requests: {cpu: '6'}"),
	               "ns/a ns/b");
}

/* Nodes by cpu + memory, most first; pods without priority first, then by priority, then
 * BestEffort, Burstable, Guaranteed; snapshot order on ties. */
static void test_order(void **state)
{
	(void)state;
	const char *a = "interval: 0s, " LNU20_50;
	/* n2's room: 4 cpus; n3 (190) goes before n1 (170) and takes it all */
	expect_victims(a,
	               "nodes:\n" NODE("n1", "90", "80") NODE("n2", "10", "10")
	                   NODE("n3", "95", "95") "pods:\n" RUN("a", "n1", ", requests: {cpu: '1'}")
	                       RUN("c", "n3", ", requests: {cpu: '4'}"),
	               "ns/c");
	pts p;
	char got[256];
	open_rs(&p, a,
	        "nodes:\n" NODE("n1", "99", "99") NODE("n2", "1", "1") "pods:\n" RUN(
	            "hi", "n1", ", priorityClassName: high, requests: {cpu: '1'}")
	            RUN("lo-g", "n1",
	                ", priorityClassName: low, requests: {cpu: '1', memory: 1Gi},"
	                " limits: {cpu: '1', memory: 1Gi}")
	                RUN("lo-b", "n1", ", priorityClassName: low, requests: {cpu: '1'}")
	                    RUN("nil-g", "n1",
	                        ", requests: {cpu: '1', memory: 1Gi},"
	                        " limits: {cpu: '1', memory: 1Gi}") RUN("nil-e", "n1", "")
	                        RUN("p1", "n1", ", priority: 1"));
	const char *c1[] = {"ns/hi", "ns/lo-g", "ns/lo-b", "ns/nil-g", "ns/nil-e", "ns/p1", NULL};
	victims_of(&p, c1, got, sizeof got);
	assert_string_equal(got, "ns/hi ns/lo-g ns/lo-b ns/nil-g ns/nil-e ns/p1");
	pts_free(&p);
	/* the order shows when the room runs out: 4.5 of 10 cpus, 4 pods of 1 and a 0.5 */
	open_rs(
	    &p, a,
	    "nodes:\n" NODE(
	        "n1", "99",
	        "99") "  - {name: n2, allocatable: {cpu: '10', memory: 10Gi}, usage: {period: 5m, "
	              "cpu: "
	              "5, memory: 1}}\n"
	              "pods:\n" RUN("hi", "n1", ", priorityClassName: high, requests: {cpu: '1'}")
	                  RUN("lo-g", "n1",
	                      ", priorityClassName: low, requests: {cpu: '1', memory: 1Gi},"
	                      " limits: {cpu: '1', memory: 1Gi}")
	                      RUN("lo-b", "n1", ", priorityClassName: low, requests: {cpu: '1'}")
	                          RUN("nil-g", "n1",
	                              ", requests: {cpu: '1', memory: 1Gi},"
	                              " limits: {cpu: '1', memory: 1Gi}")
	                              RUN("nil-e", "n1", ", requests: {cpu: 500m}")
	                                  RUN("p1", "n1", ", priority: 1, requests: {cpu: '1'}"));
	victims_of(&p, NULL, got, sizeof got);
	/* nil-e (0.5), nil-g, p1 (priority 1), lo-b, lo-g: 4.5 cpus, the room is 0 */
	assert_string_equal(got, "ns/lo-g ns/lo-b ns/nil-g ns/nil-e ns/p1");
	pts_free(&p);
}

/* A pod names its victim by name among the given tasks: the first given with that name, even
 * in another namespace or on another node; pods of no given task are passed over. */
static void test_match_by_name(void **state)
{
	(void)state;
	pts p;
	char got[256];
	open_rs(&p, "interval: 0s, " LNU20_50,
	        "nodes:\n" NODE("n1", "99", "99") NODE("n2", "1", "1")
	            NODE("n3", "30", "30") "pods:\n" RUN(
	                "a", "n1",
	                ", requests: {cpu: '1'}") "  - {name: a, namespace: other, phase: Running, "
	                                          "nodeName: n3}\n" RUN("b", "n1",
	                                                                ", requests: {cpu: '1'}"));
	const char *c1[] = {"other/a", "ns/a", NULL};
	victims_of(&p, c1, got, sizeof got);
	assert_string_equal(got, "other/a");
	const char *c2[] = {"ns/b", NULL};
	victims_of(&p, c2, got, sizeof got);
	assert_string_equal(got, "ns/b");
	pts_free(&p);
}

/* Capacity for the utilisation drop, allocatable for the room (getNodeCapacity). */
static void test_capacity(void **state)
{
	(void)state;
	const char *a = "interval: 0s, " LNU20_50;
	/* capacity 4 cpus: 1 cpu is 25%, 60% -> 35% after one pod */
	expect_victims(a,
	               "nodes:\n"
	               "  - {name: n1, allocatable: {cpu: '2', memory: 10Gi}, capacity: {cpu: '4', "
	               "memory: 10Gi}, usage: {period: 5m, cpu: 60, memory: 1}}\n" NODE(
	                   "n2", "1", "1") "pods:\n" RUN("a", "n1", ", requests: {cpu: '1'}")
	                   RUN("b", "n1", ", requests: {cpu: '1'}"),
	               "ns/a");
}

/* pod.Spec.Priority is nil without priority, class and globalDefault class (the flag the pod
 * order reads). */
static void test_priority_nil(void **state)
{
	(void)state;
	static const char pods[] = "pods:\n"
	                           "  - {name: none, namespace: ns}\n"
	                           "  - {name: one, namespace: ns, priority: 1}\n"
	                           "  - {name: low, namespace: ns, priorityClassName: low}\n"
	                           "  - {name: gone, namespace: ns, priorityClassName: gone}\n"
	                           "  - {name: anno, namespace: ns,"
	                           " annotations: {volcano.sh/task-priority: '5'}}\n";
	pts p;
	open_rs(&p, "", pods);
	const char *nil[] = {"ns/none", "ns/anno"}, *set[] = {"ns/one", "ns/low", "ns/gone"};
	for (int i = 0; i < 2; i++)
		assert_true(p.s->tasks.flags[pts_task(&p, nil[i])] & TPH_TASK_PRIORITY_NIL);
	for (int i = 0; i < 3; i++)
		assert_false(p.s->tasks.flags[pts_task(&p, set[i])] & TPH_TASK_PRIORITY_NIL);
	pts_free(&p);
	char yaml[1024];
	snprintf(yaml, sizeof yaml,
	         "conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: rescheduling\n"
	         "queues: [{name: default}]\n"
	         "priorityClasses: [{name: d, value: 7, globalDefault: true}]\n%s",
	         pods);
	pts_open(&p, yaml);
	assert_false(p.s->tasks.flags[pts_task(&p, "ns/none")] & TPH_TASK_PRIORITY_NIL);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_interval),   cmocka_unit_test(test_metrics_period),
	    cmocka_unit_test(test_strategies), cmocka_unit_test(test_thresholds),
	    cmocka_unit_test(test_grouping),   cmocka_unit_test(test_stopping),
	    cmocka_unit_test(test_order),      cmocka_unit_test(test_match_by_name),
	    cmocka_unit_test(test_capacity),   cmocka_unit_test(test_priority_nil),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

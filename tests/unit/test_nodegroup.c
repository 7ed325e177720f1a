/* Unit tests for plugins/nodegroup: the verdict and score of each group under required,
 * preferred and anti-affinity, `strict`, `enablePreferredOrder` (duplicates included), the
 * affinity a queue inherits under enableHierarchy (and an empty one that stops it), the queue
 * resource-limit annotation (what counts against it, each way json.Unmarshal refuses it, null
 * groups and quantities, negative limits, resources no task holds), the event handlers through
 * statements, the locality answers, and an allocate run that fills a limited group, decided
 * alike on the fast and the naive path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "session/ep_predicate.h"
#include "harness.h"
#include "session/statement.h"

#define CONF(args, flags)                                                                 \
	"conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: nodegroup\n" flags \
	"      arguments: {" args "}\n"

#define GROUP_NODES                                                         \
	"nodes:\n"                                                          \
	"  - {name: n1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'},"  \
	" labels: {volcano.sh/nodegroup-name: group1}}\n"                   \
	"  - {name: n2, allocatable: {cpu: '4', memory: 16Gi, pods: '10'}," \
	" labels: {volcano.sh/nodegroup-name: group2}}\n"                   \
	"  - {name: n3, allocatable: {cpu: '4', memory: 16Gi, pods: '10'}," \
	" labels: {volcano.sh/nodegroup-name: group3}}\n"                   \
	"  - {name: n4, allocatable: {cpu: '4', memory: 16Gi, pods: '10'}," \
	" labels: {volcano.sh/nodegroup-name: group4}}\n"                   \
	"  - {name: n5, allocatable: {cpu: '4', memory: 16Gi, pods: '10'}}\n"

/* One pending pod in a podgroup of queue q. */
#define POD(q)                                                   \
	"podGroups: [{name: pg, namespace: c1, queue: " q "}]\n" \
	"pods: [{name: p, namespace: c1, podGroup: pg, requests: {cpu: '2', memory: 4Gi}}]\n"

#define Q1_AFFINITY                                                                                \
	"affinity: {nodeGroupAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [group1, " \
	"group3], preferredDuringSchedulingIgnoredDuringExecution: [group3]}, "                    \
	"nodeGroupAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [group2, "        \
	"group4], "                                                                                \
	"preferredDuringSchedulingIgnoredDuringExecution: [group4]}}"

static const char *why(const pts *p, const char *task, const char *node)
{
	return tph_reason_text(p->s,
	                       tph_predicate_node(p->s, pts_task(p, task), pts_node(p, node)));
}

/* The scores of the task on the first n ready nodes are want[0..n). */
static void scores(pts *p, const char *task, const double *want, uint32_t n)
{
	double got[8];
	tph_score_nodes(p->s, pts_task(p, task), p->s->ready_nodes, n, got);
	for (uint32_t i = 0; i < n; i++)
		if (fabs(got[i] - want[i]) > 1e-9)
			fail_msg("%s on node %u: expected %g, got %g", task, i, want[i], got[i]);
}

/* ---- affinity ---- */

static void test_required_preferred_anti(void **state)
{
	(void)state;
	pts p;
	char b[64];
	/* TestNodeGroup "soft constraints is subset of hard constraints". */
	pts_open(&p, CONF("", "") "queues: [{name: q1, " Q1_AFFINITY "}]\n" GROUP_NODES POD("q1"));
	assert_string_equal(pts_passing(&p, "c1/p", b, sizeof b), "n1,n3,n4");
	assert_string_equal(why(&p, "c1/p", "n2"), "node does not satisfy the node group affinity");
	assert_string_equal(why(&p, "c1/p", "n5"), "node group label not found");
	scores(&p, "c1/p", (double[]){100, 0, 150, -1, 0}, 5);
	pts_free(&p);
	/* "soft constraints is not subset of hard constraints": preferred alone lets n3 in. */
	pts_open(&p, CONF("", "") "queues:\n  - name: q2\n    affinity: {nodeGroupAffinity: "
	                          "{requiredDuringSchedulingIgnoredDuringExecution: [group1], "
	                          "preferredDuringSchedulingIgnoredDuringExecution: [group3]}, "
	                          "nodeGroupAntiAffinity: {requiredDuringSchedulingIgnoredDuring"
	                          "Execution: [group2], preferredDuringSchedulingIgnoredDuring"
	                          "Execution: [group4]}}\n" GROUP_NODES POD("q2"));
	assert_string_equal(pts_passing(&p, "c1/p", b, sizeof b), "n1,n3,n4");
	scores(&p, "c1/p", (double[]){100, 0, 50, -1, 0}, 5);
	pts_free(&p);
	/* A group both required and anti-required fails; anti-preferred on top lets it back in
	 * and sets the score to -1 whatever came before. */
	pts_open(&p,
	         CONF("", "") "queues:\n  - name: q\n    affinity: {nodeGroupAffinity: "
	                      "{requiredDuringSchedulingIgnoredDuringExecution: [group1, group2]},"
	                      " nodeGroupAntiAffinity: {requiredDuringSchedulingIgnoredDuring"
	                      "Execution: [group1, group2], preferredDuringSchedulingIgnored"
	                      "DuringExecution: [group2]}}\n" GROUP_NODES POD("q"));
	assert_string_equal(pts_passing(&p, "c1/p", b, sizeof b), "n2");
	scores(&p, "c1/p", (double[]){100, -1, 0, 0, 0}, 5);
	pts_free(&p);
}

static void test_strict(void **state)
{
	(void)state;
	pts p;
	char b[64];
	/* A queue without affinity: labelled nodes fail either way; unlabelled ones only pass
	 * with strict: false. */
	pts_open(&p, CONF("", "") "queues: [{name: q}]\n" GROUP_NODES POD("q"));
	assert_string_equal(pts_passing(&p, "c1/p", b, sizeof b), "");
	assert_string_equal(why(&p, "c1/p", "n1"), "node group affinity not specified");
	assert_string_equal(why(&p, "c1/p", "n5"), "node group label not found");
	scores(&p, "c1/p", (double[]){0, 0, 0, 0, 0}, 5);
	pts_free(&p);
	pts_open(&p, CONF("strict: false", "") "queues: [{name: q}]\n" GROUP_NODES POD("q"));
	assert_string_equal(pts_passing(&p, "c1/p", b, sizeof b), "n5");
	pts_free(&p);
	/* A string is read as strconv.ParseBool reads it. */
	pts_open(&p, CONF("strict: 'false'", "") "queues: [{name: q}]\n" GROUP_NODES POD("q"));
	assert_string_equal(pts_passing(&p, "c1/p", b, sizeof b), "n5");
	pts_free(&p);
	/* A queue with affinity still needs the label, strict or not; an empty affinity is no
	 * affinity. */
	pts_open(&p, CONF("strict: false", "") "queues: [{name: q1, " Q1_AFFINITY
	                                       "}]\n" GROUP_NODES POD("q1"));
	assert_string_equal(pts_passing(&p, "c1/p", b, sizeof b), "n1,n3,n4");
	pts_free(&p);
	pts_open(&p, CONF("strict: false",
	                  "") "queues: [{name: q, affinity: {}}]\n" GROUP_NODES POD("q"));
	assert_string_equal(pts_passing(&p, "c1/p", b, sizeof b), "n5");
	pts_free(&p);
}

static void test_preferred_order(void **state)
{
	(void)state;
	pts p;
	char b[64];
	/* TestNodeGroup "preferred nodegroup priority ordering": 50 * (n - i) / n. */
	pts_open(&p,
	         CONF("enablePreferredOrder: true",
	              "") "queues:\n  - name: q3\n    affinity: "
	                  "{nodeGroupAffinity: {preferredDuringSchedulingIgnoredDuringExecution: "
	                  "[group1, group3]}}\n" GROUP_NODES POD("q3"));
	assert_string_equal(pts_passing(&p, "c1/p", b, sizeof b), "n1,n3");
	scores(&p, "c1/p", (double[]){50, 0, 25, 0, 0}, 5);
	pts_free(&p);
	/* Without the argument every preferred group scores 50. */
	pts_open(&p,
	         CONF("", "") "queues:\n  - name: q3\n    affinity: {nodeGroupAffinity: "
	                      "{preferredDuringSchedulingIgnoredDuringExecution: [group1, group3]}}"
	                      "\n" GROUP_NODES POD("q3"));
	scores(&p, "c1/p", (double[]){50, 0, 50, 0, 0}, 5);
	pts_free(&p);
	/* A repeated group keeps its last index, and n counts distinct groups, listed on nodes or
	 * not: [group1, ghost, group3, group1] -> group1 at 3 of 3: 0; group3 at 2: 50/3. */
	pts_open(&p,
	         CONF("enablePreferredOrder: true",
	              "") "queues:\n  - name: q3\n    affinity: "
	                  "{nodeGroupAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
	                  "[group1], preferredDuringSchedulingIgnoredDuringExecution: "
	                  "[group1, ghost, group3, group1]}}\n" GROUP_NODES POD("q3"));
	scores(&p, "c1/p", (double[]){100, 0, 50.0 / 3, 0, 0}, 5);
	pts_free(&p);
}

#define HIER_QUEUES                                                                                \
	"queues:\n"                                                                                \
	"  - {name: root, " Q1_AFFINITY "}\n"                                                      \
	"  - {name: mid, parent: root}\n"                                                          \
	"  - {name: leaf, parent: mid}\n"                                                          \
	"  - {name: stop, parent: root, affinity: {}}\n"                                           \
	"  - {name: stopleaf, parent: stop}\n"                                                     \
	"  - name: own\n    parent: root\n    affinity: {nodeGroupAffinity: "                      \
	"{requiredDuringSchedulingIgnoredDuringExecution: [group2]}}\n"                            \
	"  - {name: ownleaf, parent: own}\n"                                                       \
	"nodes:\n"                                                                                 \
	"  - {name: n1, allocatable: {cpu: '4', pods: '10'}, labels: {volcano.sh/nodegroup-name: " \
	"group1}}\n"                                                                               \
	"  - {name: n2, allocatable: {cpu: '4', pods: '10'}, labels: {volcano.sh/nodegroup-name: " \
	"group2}}\n"                                                                               \
	"  - {name: n3, allocatable: {cpu: '4', pods: '10'}, labels: {volcano.sh/nodegroup-name: " \
	"group3}}\n"                                                                               \
	"podGroups:\n"                                                                             \
	"  - {name: leaf, namespace: c1, queue: leaf}\n"                                           \
	"  - {name: stopleaf, namespace: c1, queue: stopleaf}\n"                                   \
	"  - {name: ownleaf, namespace: c1, queue: ownleaf}\n"                                     \
	"pods:\n"                                                                                  \
	"  - {name: leaf, namespace: c1, podGroup: leaf}\n"                                        \
	"  - {name: stopleaf, namespace: c1, podGroup: stopleaf}\n"                                \
	"  - {name: ownleaf, namespace: c1, podGroup: ownleaf}\n"

static void test_hierarchy(void **state)
{
	(void)state;
	pts p;
	char b[64];
	/* Off: nobody inherits. */
	pts_open(&p, CONF("", "") HIER_QUEUES);
	assert_string_equal(pts_passing(&p, "c1/leaf", b, sizeof b), "");
	assert_string_equal(pts_passing(&p, "c1/ownleaf", b, sizeof b), "");
	pts_free(&p);
	/* On: the nearest ancestor whose affinity is set, through queues without one; an empty
	 * affinity is set, so its queue and the queues below it have none. */
	pts_open(&p, CONF("", "      enableHierarchy: true\n") HIER_QUEUES);
	assert_string_equal(pts_passing(&p, "c1/leaf", b, sizeof b), "n1,n3");
	scores(&p, "c1/leaf", (double[]){100, 0, 150}, 3);
	assert_string_equal(pts_passing(&p, "c1/stopleaf", b, sizeof b), "");
	assert_string_equal(why(&p, "c1/stopleaf", "n1"), "node group affinity not specified");
	assert_string_equal(pts_passing(&p, "c1/ownleaf", b, sizeof b), "n2");
	scores(&p, "c1/ownleaf", (double[]){0, 100, 0}, 3);
	pts_free(&p);
}

/* ---- resource limits ---- */

#define LIMIT_NODES                                                                                \
	"nodes:\n"                                                                                 \
	"  - {name: n1, allocatable: {cpu: '16', memory: 64Gi, pods: '32', example.com/foo: '8'}," \
	" labels: {volcano.sh/nodegroup-name: group1}}\n"                                          \
	"  - {name: n2, allocatable: {cpu: '16', memory: 64Gi, pods: '32', example.com/foo: '8'}," \
	" labels: {volcano.sh/nodegroup-name: group2}}\n"

/* A queue with the affinity of TestNodeGroupResourceLimits and the annotation `limits`. */
#define LIMIT_QUEUE(limits)                                                                       \
	"queues:\n  - name: q\n    annotations: {volcano.sh/nodegroup-resource-limits: '" limits  \
	"'}\n    affinity: {nodeGroupAffinity: {requiredDuringSchedulingIgnoredDuringExecution: " \
	"[group1, group2], preferredDuringSchedulingIgnoredDuringExecution: [group1]}}\n"         \
	"  - name: other\n    affinity: {nodeGroupAffinity: "                                     \
	"{requiredDuringSchedulingIgnoredDuringExecution: [group1, group2]}}\n"

#define LIMIT_PODS(extra)                                                                          \
	"podGroups:\n  - {name: pg, namespace: limit, queue: q}\n"                                 \
	"  - {name: used, namespace: limit, queue: q, phase: Running}\n"                           \
	"  - {name: else, namespace: limit, queue: other, phase: Running}\n"                       \
	"pods:\n"                                                                                  \
	"  - {name: pending, namespace: limit, podGroup: pg, requests: {cpu: '2', memory: 4Gi}}\n" \
	"  - {name: pending2, namespace: limit, podGroup: pg, requests: {cpu: '2', memory: "       \
	"4Gi}}\n" extra

/* The nodes where limit/pending passes, its queue's annotation being `json`. */
static const char *limit_verdict(const char *json, const char *extra_pods)
{
	static char b[64];
	pts p;
	char *yaml = NULL;
	assert_true(asprintf(&yaml, CONF("", "") LIMIT_NODES LIMIT_QUEUE("%s") LIMIT_PODS("%s"),
	                     json, extra_pods) > 0);
	pts_open(&p, yaml);
	pts_passing(&p, "limit/pending", b, sizeof b);
	pts_free(&p);
	free(yaml);
	return b;
}

typedef struct limit_case {
	const char *json, *pods, *want;
} limit_case;

static void limit_cases(const limit_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *got = limit_verdict(c[i].json, c[i].pods ? c[i].pods : "");
		if (strcmp(got, c[i].want))
			fail_msg("%s: expected \"%s\", got \"%s\"", c[i].json, c[i].want, got);
	}
}

#define USED_N1(req)                                                                       \
	"  - {name: used, namespace: limit, podGroup: used, phase: Running, nodeName: n1," \
	" requests: " req "}\n"

static void test_limits(void **state)
{
	(void)state;
	static const limit_case cases[] = {
	    /* TestNodeGroupResourceLimits */
	    {"", NULL, "n1,n2"},
	    {"{\"group1\":{\"cpu\":\"3\",\"memory\":\"8Gi\"}}", NULL, "n1,n2"},
	    {"{\"group1\":{\"cpu\":\"3\"}}", NULL, "n1,n2"},
	    {"{\"group1\":{\"cpu\":\"1\"}}", NULL, "n2"},
	    /* a running task of the queue on group1 counts: 2 + 2 > 3 */
	    {"{\"group1\":{\"cpu\":\"3\",\"memory\":\"8Gi\"}}", USED_N1("{cpu: '2', memory: 4Gi}"),
	     "n2"},
	    /* exactly at the limit passes; memory alone can exceed it */
	    {"{\"group1\":{\"cpu\":\"4\"}}", USED_N1("{cpu: '2', memory: 4Gi}"), "n1,n2"},
	    {"{\"group1\":{\"memory\":\"8Gi\"}, \"group2\": {\"memory\": \"4095Mi\"}}",
	     USED_N1("{cpu: '2', memory: 4Gi}"), "n1"},
	    /* another queue's tasks, finished ones and releasing ones do not count */
	    {"{\"group1\":{\"cpu\":\"3\"}}",
	     "  - {name: e, namespace: limit, podGroup: else, phase: Running, nodeName: n1,"
	     " requests: {cpu: '2'}}\n"
	     "  - {name: done, namespace: limit, podGroup: used, phase: Succeeded, nodeName: n1,"
	     " requests: {cpu: '2'}}\n"
	     "  - {name: rel, namespace: limit, podGroup: used, phase: Running, deleting: true,"
	     " nodeName: n1, requests: {cpu: '2'}}\n",
	     "n1,n2"},
	    /* a bound task (Pending with a node) counts */
	    {"{\"group1\":{\"cpu\":\"3\"}}",
	     "  - {name: b, namespace: limit, podGroup: used, nodeName: n1, requests: {cpu: "
	     "'2'}}\n",
	     "n2"},
	    /* scalars count in milli-units, whether the task asks for them or not */
	    {"{\"group1\":{\"example.com/foo\":\"1\"}}",
	     USED_N1("{cpu: '1', example.com/foo: 1500m}"), "n2"},
	    {"{\"group1\":{\"example.com/foo\":\"2\"}}",
	     USED_N1("{cpu: '1', example.com/foo: 1500m}"), "n1,n2"},
	};
	limit_cases(cases, sizeof cases / sizeof *cases);
}

static void test_limit_values(void **state)
{
	(void)state;
	static const limit_case cases[] = {
	    /* Resreq holds no pods: a pods limit is never reached unless negative, nor is a limit
	     * on a resource no task holds; a name NewResource drops limits nothing */
	    {"{\"group1\":{\"pods\":\"0\",\"nvidia.com/gpu\":\"0\"}}", NULL, "n1,n2"},
	    {"{\"group1\":{\"pods\":\"-1\"}}", NULL, "n2"},
	    {"{\"group1\":{\"nvidia.com/gpu\":\"-1\"}}", NULL, "n2"},
	    {"{\"group1\":{\"rdma\":\"-1\",\"count/pods\":\"-1\"}}", NULL, "n1,n2"},
	    /* negative and zero limits; null as a quantity is zero */
	    {"{\"group1\":{\"cpu\":\"-1\"}}", NULL, "n2"},
	    {"{\"group1\":{\"cpu\":null}}", NULL, "n2"},
	    /* numbers are quantities too; a string is trimmed of spaces */
	    {"{\"group1\":{\"cpu\":1.5}}", NULL, "n2"},
	    {"{\"group1\":{\"cpu\":2}}", NULL, "n1,n2"},
	    {"{\"group1\":{\"cpu\":\" 1 \"}}", NULL, "n2"},
	    {"{\"group1\":{\"cpu\":\"2e0\"}}", NULL, "n1,n2"},
	    /* a null group limits nothing; the last of repeated keys wins, groups and resources */
	    {"{\"group1\":null}", NULL, "n1,n2"},
	    {"{\"group1\":{\"cpu\":\"1\"},\"group1\":{\"memory\":\"8Gi\"}}", NULL, "n1,n2"},
	    {"{\"group1\":{\"cpu\":\"9\",\"cpu\":\"1\"}}", NULL, "n2"},
	    /* keys are unescaped; a group no node carries is harmless; null limits nothing */
	    {"{\"group\\u0031\":{\"c\\u0070u\":\"1\"}}", NULL, "n2"},
	    {"{\"ghost\":{\"cpu\":\"1\"}}", NULL, "n1,n2"},
	    {" null ", NULL, "n1,n2"},
	    {"{ }", NULL, "n1,n2"},
	};
	limit_cases(cases, sizeof cases / sizeof *cases);
}

/* Everything json.Unmarshal into map[string]v1.ResourceList refuses fails every node. */
static void test_limit_invalid(void **state)
{
	(void)state;
	static const limit_case cases[] = {
	    {"{\"group1\":{\"cpu\":", NULL, ""}, /* TestNodeGroupResourceLimits */
	    {"{\"group1\":{\"cpu\":\"1\"}} x", NULL, ""},
	    {"[]", NULL, ""},
	    {"\"x\"", NULL, ""},
	    {"   ", NULL, ""},
	    {"{\"group1\":5}", NULL, ""},
	    {"{\"group1\":[]}", NULL, ""},
	    {"{\"group1\":{\"cpu\":\"abc\"}}", NULL, ""},
	    {"{\"group1\":{\"cpu\":true}}", NULL, ""},
	    {"{\"group1\":{\"cpu\":{}}}", NULL, ""},
	    /* Quantity.UnmarshalJSON reads the raw bytes */
	    {"{\"group1\":{\"cpu\":\"\\u0031\"}}", NULL, ""},
	    {"{\"group1\":{\"cpu\":\"--1\"}}", NULL, ""},
	    {"{\"group1\":{\"cpu\":01}}", NULL, ""},
	    {"{\"group1\":{\"cpu\":\"1\",}}", NULL, ""},
	    /* a group no node carries still has to parse */
	    {"{\"ghost\":{\"x\":\"bad\"}}", NULL, ""},
	    {"{group1:{}}", NULL, ""},
	    {"{\"a\\q\":{}}", NULL, ""},
	};
	limit_cases(cases, sizeof cases / sizeof *cases);
	pts p;
	pts_open(&p, CONF("", "") LIMIT_NODES LIMIT_QUEUE("{") LIMIT_PODS(""));
	assert_string_equal(why(&p, "limit/pending", "n2"),
	                    "node group resource limit annotation invalid");
	pts_free(&p);
}

/* The allocate and deallocate events keep what the queue holds current, through statements
 * and their undo (TestNodeGroupResourceLimitAllocationEvent, then the way back). */
static void test_limit_events(void **state)
{
	(void)state;
	pts p;
	char b[64];
	pts_open(&p,
	         CONF("", "") LIMIT_NODES LIMIT_QUEUE("{\"group1\":{\"cpu\":\"3\"}}")
	             LIMIT_PODS("  - {name: run, namespace: limit, podGroup: used, phase: Running,"
	                        " nodeName: n2, requests: {cpu: '2'}}\n"));
	assert_true((tph_predicate_locality(p.s) == TPH_PRED_GLOBAL));
	assert_string_equal(pts_passing(&p, "limit/pending2", b, sizeof b), "n1,n2");
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "limit/pending"), pts_node(&p, "n1")),
	                 TPH_OK);
	assert_string_equal(pts_passing(&p, "limit/pending2", b, sizeof b), "n2");
	assert_string_equal(why(&p, "limit/pending2", "n1"), "node group resource limit exceeded");
	tph_stmt_discard(&st);
	assert_string_equal(pts_passing(&p, "limit/pending2", b, sizeof b), "n1,n2");
	/* Pipelining counts too; an eviction gives back, its undo takes again. */
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_pipeline(&st, pts_task(&p, "limit/pending"), pts_node(&p, "n1")),
	                 TPH_OK);
	assert_string_equal(pts_passing(&p, "limit/pending2", b, sizeof b), "n2");
	tph_stmt_discard(&st);
	pts_free(&p);
	pts_open(&p,
	         CONF("", "") LIMIT_NODES LIMIT_QUEUE("{\"group1\":{\"cpu\":\"3\"}}")
	             LIMIT_PODS("  - {name: run, namespace: limit, podGroup: used, phase: Running,"
	                        " nodeName: n1, requests: {cpu: '2'}}\n"));
	assert_string_equal(pts_passing(&p, "limit/pending", b, sizeof b), "n2");
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_evict(&st, pts_task(&p, "limit/run"), "test"), TPH_OK);
	assert_string_equal(pts_passing(&p, "limit/pending", b, sizeof b), "n1,n2");
	tph_stmt_discard(&st);
	assert_string_equal(pts_passing(&p, "limit/pending", b, sizeof b), "n2");
	pts_free(&p);
	/* Without limits the predicate stays node-local. */
	pts_open(&p, CONF("", "") LIMIT_NODES LIMIT_QUEUE("") LIMIT_PODS(""));
	assert_false((tph_predicate_locality(p.s) == TPH_PRED_GLOBAL));
	pts_free(&p);
}

/* ---- the session ---- */

static void test_locality_and_flags(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("", "") "queues: [{name: q1, " Q1_AFFINITY "}]\n" GROUP_NODES POD("q1"));
	assert_int_equal(tph_score_locality(p.s, pts_task(&p, "c1/p")),
	                 TPH_SCORE_LOCAL | TPH_SCORE_JOB);
	pts_free(&p);
	/* enableFlagsDefault false with only the node order: no predicate, no limit handlers. */
	pts_open(&p, "enableFlagsDefault: false\n" CONF("", "      enableNodeOrder: true\n")
	                 LIMIT_NODES LIMIT_QUEUE("{\"group1\":{\"cpu\":\"1\"}}") LIMIT_PODS(""));
	assert_int_equal(p.s->ep[TPH_EP_PREDICATE].n, 0);
	assert_int_equal(p.s->ep[TPH_EP_NODE_ORDER].n, 1);
	assert_int_equal(p.s->ep[TPH_EP_ALLOCATE_EVENT].n, 0);
	assert_false((tph_predicate_locality(p.s) == TPH_PRED_GLOBAL));
	pts_free(&p);
}

/* Two queues prefer opposite groups; queue a's limit on its preferred group runs out and it
 * spills to the other. Decided the same on the fast path and the naive one, with the limit
 * (no shared verdicts) and without, and with the predicate off (scores kept per job: jobs of
 * both queues have the same pods). */
static char *gen_world(const char *limits, const char *flags)
{
	char *yaml = NULL;
	size_t len;
	FILE *f = open_memstream(&yaml, &len);
	fprintf(f,
	        "conf: |\n  actions: \"enqueue, allocate\"\n  tiers:\n  - plugins:\n"
	        "    - name: gang\n    - name: predicates\n    - name: nodegroup\n%s"
	        "    - name: binpack\n",
	        flags);
	fprintf(f,
	        "queues:\n  - name: a\n    annotations: {volcano.sh/nodegroup-resource-limits:"
	        " '%s'}\n    affinity: {nodeGroupAffinity: "
	        "{requiredDuringSchedulingIgnoredDuringExecution: [g1, g2], "
	        "preferredDuringSchedulingIgnoredDuringExecution: [g1]}}\n"
	        "  - name: b\n    affinity: {nodeGroupAffinity: "
	        "{requiredDuringSchedulingIgnoredDuringExecution: [g1, g2], "
	        "preferredDuringSchedulingIgnoredDuringExecution: [g2]}}\nnodes:\n",
	        limits);
	for (int i = 0; i < 12; i++)
		fprintf(f,
		        "  - {name: n%02d, allocatable: {cpu: '8', memory: 32Gi, pods: '20'},"
		        " labels: {volcano.sh/nodegroup-name: g%d}}\n",
		        i, 1 + i % 2);
	fprintf(f, "podGroups:\n");
	for (int j = 0; j < 6; j++)
		fprintf(f,
		        "  - {name: j%d, namespace: ns, queue: %s, minMember: 1, phase: Inqueue}\n",
		        j, j % 2 ? "b" : "a");
	fprintf(f, "pods:\n");
	for (int j = 0; j < 6; j++)
		for (int k = 0; k < 6; k++)
			fprintf(f,
			        "  - {name: j%d-t-%d, namespace: ns, podGroup: j%d, requests: "
			        "{cpu: '%d', memory: 1Gi}}\n",
			        j, k, j, 1 + k % 3);
	fclose(f);
	return yaml;
}

/* The decision log of a run, and how many nodes the node order scored. */
static char *run_log(const char *yaml, bool naive, uint64_t *scored)
{
	pts p;
	tph_session_opts o = {.threads = 1, .naive = naive, .profile = true};
	pts_open_with(&p, yaml, &o);
	pts_run(&p);
	char *text = pts_log_text(p.log);
	const tph_profile_row *rows;
	uint32_t n;
	assert_int_equal(tph_session_profile(p.s, &rows, &n), TPH_OK);
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(rows[i].ep, "NodeOrder"))
			*scored = rows[i].nodes;
	pts_free(&p);
	return text;
}

/* cpu queue a's tasks hold on g1 (even nodes) and on g2, by the decision log. */
static void held(char *log, int64_t *g1, int64_t *g2)
{
	*g1 = *g2 = 0;
	for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n")) {
		int j, k, n;
		if (sscanf(line, "bind ns/j%d-t-%d n%d", &j, &k, &n) == 3 && j % 2 == 0)
			*(n % 2 ? g2 : g1) += 1 + k % 3;
	}
}

static void test_allocate_fills_limit(void **state)
{
	(void)state;
	static const struct {
		const char *limits, *flags;
		int64_t max_g1;
	} cases[] = {
	    {"{\"g1\": {\"cpu\": \"20\"}}", "", 20},
	    {"", "", 36},
	    {"", "      enablePredicate: false\n", 36},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		char *yaml = gen_world(cases[c].limits, cases[c].flags);
		uint64_t fast_scored = 0, naive_scored = 0;
		char *fast = run_log(yaml, false, &fast_scored);
		char *naive = run_log(yaml, true, &naive_scored);
		assert_string_equal(fast, naive);
		/* the limit turns the shared verdicts off; without it scores are kept per job */
		if (c == 0)
			assert_true(fast_scored == naive_scored);
		else
			assert_true(fast_scored < naive_scored);
		int64_t g1, g2;
		held(fast, &g1, &g2);
		/* a takes its preferred g1 first: all of it, or up to its limit then g2 */
		assert_true(g1 > 0 && g1 <= cases[c].max_g1);
		if (c == 0)
			assert_int_equal(g1 + g2, 36);
		free(fast);
		free(naive);
		free(yaml);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_required_preferred_anti),
	    cmocka_unit_test(test_strict),
	    cmocka_unit_test(test_preferred_order),
	    cmocka_unit_test(test_hierarchy),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_limit_values),
	    cmocka_unit_test(test_limit_invalid),
	    cmocka_unit_test(test_limit_events),
	    cmocka_unit_test(test_locality_and_flags),
	    cmocka_unit_test(test_allocate_fills_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

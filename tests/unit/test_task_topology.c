/* Unit tests for plugins/task_topology: the podgroup annotations (accepted and rejected
 * forms), which jobs get a manager, bucket construction (bound tasks, affinities, the resource
 * tie-break), the node score (bound tasks, anti-affinity on the node, tasks taken out until the
 * bucket fits, the fit check, weight and normalisation), the task order, the allocate event
 * (never undone) and score locality. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

/* A scenario with task-topology (`args`), nodes, and podgroup job1 with these annotations. */
static void open_tt(pts *p, const char *args, const char *nodes, const char *annotations,
                    const char *pods)
{
	char yaml[8192];
	snprintf(yaml, sizeof yaml,
	         "enableFlagsDefault: false\n"
	         "conf: |\n"
	         "  actions: \"\"\n"
	         "  tiers:\n"
	         "  - plugins:\n"
	         "    - name: task-topology\n"
	         "      enableTaskOrder: true\n"
	         "      enableNodeOrder: true\n"
	         "      arguments: {%s}\n"
	         "queues: [{name: q1}]\n"
	         "nodes:\n%s"
	         "podGroups:\n"
	         "  - {name: job1, namespace: ns, queue: q1, minMember: 1, annotations: {%s}}\n"
	         "  - {name: job2, namespace: ns, queue: q1, minMember: 1,"
	         " annotations: {volcano.sh/task-topology-affinity: ps}}\n"
	         "  - {name: plain, namespace: ns, queue: q1, minMember: 1}\n"
	         "pods:\n%s",
	         args, nodes, annotations, pods);
	pts_open(p, yaml);
}

#define NODE(name, cpu) \
	"  - {name: " name ", allocatable: {cpu: '" cpu "', memory: 64Gi, pods: '50'}}\n"
#define POD(name, role)                                                                          \
	"  - {name: " name ", namespace: ns, podGroup: job1, requests: {cpu: '1', memory: 1Gi}," \
	" annotations: {volcano.sh/task-spec: " role "}, taskSpec: " role "}\n"
#define BOUND(name, role, node)                                                               \
	"  - {name: " name ", namespace: ns, podGroup: job1, phase: Running, nodeName: " node \
	", requests: {cpu: '1', memory: 1Gi}, annotations: {volcano.sh/task-spec: " role "}," \
	" taskSpec: " role "}\n"

/* Volcano's test job: ps x2, worker x2, chief, evaluator. */
static const char six[] = POD("job1-ps-0", "ps") POD("job1-ps-1", "ps")
    POD("job1-worker-0", "worker") POD("job1-worker-1", "worker") POD("job1-chief-0", "chief")
        POD("job1-evaluator-0", "evaluator");

#define GOOD                                                          \
	"volcano.sh/task-topology-affinity: 'ps,worker;ps,chief',"    \
	" volcano.sh/task-topology-anti-affinity: 'ps;worker,chief'," \
	" volcano.sh/task-topology-task-order: 'ps,worker,chief,evaluator'"

static double score1(pts *p, const char *task)
{
	double out[1];
	tph_score_nodes(p->s, pts_task(p, task), p->s->ready_nodes, 1, out);
	return out[0];
}

/* Scores on the single node n1: 100 for the bucket of 3, 66.67 for the bucket of 2. */
static void expect_parsed(const char *annotations)
{
	pts p;
	open_tt(&p, "", NODE("n1", "16"), annotations, six);
	assert_float_equal(score1(&p, "ns/job1-ps-0"), 100.0, 1e-9);
	assert_float_equal(score1(&p, "ns/job1-worker-0"), 100.0, 1e-9);
	assert_float_equal(score1(&p, "ns/job1-chief-0"), 100.0, 1e-9);
	assert_float_equal(score1(&p, "ns/job1-ps-1"), 200.0 / 3, 1e-9);
	assert_float_equal(score1(&p, "ns/job1-worker-1"), 200.0 / 3, 1e-9);
	assert_float_equal(score1(&p, "ns/job1-evaluator-0"), 0.0, 0);
	static const char *const order[6] = {"ns/job1-ps-0",     "ns/job1-worker-0",
	                                     "ns/job1-chief-0",  "ns/job1-ps-1",
	                                     "ns/job1-worker-1", "ns/job1-evaluator-0"};
	for (int i = 0; i + 1 < 6; i++)
		assert_true(tph_task_order_cmp_plugins(p.s, pts_task(&p, order[i]),
		                                       pts_task(&p, order[i + 1])) < 0);
	pts_free(&p);
}

/* Every task scores 0 and the plugin orders nothing: no manager. */
static void expect_rejected(const char *annotations)
{
	pts p;
	open_tt(&p, "", NODE("n1", "16"), annotations, six);
	const char *tasks[3] = {"ns/job1-ps-0", "ns/job1-ps-1", "ns/job1-evaluator-0"};
	for (int i = 0; i < 3; i++)
		assert_float_equal(score1(&p, tasks[i]), 0.0, 0);
	assert_int_equal(tph_task_order_cmp_plugins(p.s, pts_task(&p, "ns/job1-ps-0"),
	                                            pts_task(&p, "ns/job1-evaluator-0")),
	                 0);
	pts_free(&p);
}

static void test_annotations(void **state)
{
	(void)state;
	expect_parsed(GOOD);
	/* Empty names are kept and never match a task. */
	expect_parsed("volcano.sh/task-topology-affinity: 'ps,worker;ps,,chief,;',"
	              " volcano.sh/task-topology-anti-affinity: 'ps;worker,chief;;;',"
	              " volcano.sh/task-topology-task-order: 'ps,worker,chief,evaluator,,,'");
	/* A name that is no role of the job; one twice in a group; in the task order too. */
	expect_rejected("volcano.sh/task-topology-affinity: '$%GF$^trtqwrg^',"
	                " volcano.sh/task-topology-anti-affinity: 'ps;worker,chief'");
	expect_rejected("volcano.sh/task-topology-anti-affinity: 'ps,ps'");
	expect_rejected("volcano.sh/task-topology-affinity: 'ps,worker',"
	                " volcano.sh/task-topology-task-order: 'ps,worker,boss'");
	/* The task order has no groups: ';' is part of a name. */
	expect_rejected("volcano.sh/task-topology-affinity: 'ps,worker',"
	                " volcano.sh/task-topology-task-order: 'ps;worker'");
	/* Names are whole: " ps" is not ps. */
	expect_rejected("volcano.sh/task-topology-affinity: 'worker, ps'");
	/* None of the three annotations: no manager. */
	expect_rejected("");
}

/* The role checked is TaskRole (annotation, else label), the name a task joins by is its
 * annotation only (getTaskName): a task whose role comes from a label stays out of buckets. */
static void test_role_and_name(void **state)
{
	(void)state;
	pts p;
	open_tt(&p, "", NODE("n1", "16"), "volcano.sh/task-topology-affinity: 'ps,worker'",
	        POD("a", "ps") "  - {name: b, namespace: ns, podGroup: job1, requests: {cpu: '1'},"
	                       " labels: {volcano.sh/task-spec: worker}}\n");
	assert_float_equal(score1(&p, "ns/a"), 100.0, 1e-9);
	assert_float_equal(score1(&p, "ns/b"), 0.0, 0);
	/* In a bucket before out of one. */
	assert_true(tph_task_order_cmp_plugins(p.s, pts_task(&p, "ns/a"), pts_task(&p, "ns/b")) <
	            0);
	pts_free(&p);
}

/* Only jobs with Pending tasks get a manager; between jobs only the in-bucket rule applies,
 * and only when both jobs have one. */
static void test_managers_and_cross_job_order(void **state)
{
	(void)state;
	pts p;
	open_tt(
	    &p, "", NODE("n1", "16"), "volcano.sh/task-topology-affinity: 'ps,worker'",
	    POD("a", "ps") POD(
	        "w",
	        "worker") "  - {name: j2, namespace: ns, podGroup: job2, requests: {cpu: '1'},"
	                  " annotations: {volcano.sh/task-spec: ps}, taskSpec: ps}\n"
	                  "  - {name: j2-x, namespace: ns, podGroup: job2, requests: {cpu: '1'}}\n"
	                  "  - {name: pl, namespace: ns, podGroup: plain, requests: {cpu: '1'}}\n");
	tph_idx a = pts_task(&p, "ns/a"), j2 = pts_task(&p, "ns/j2"), x = pts_task(&p, "ns/j2-x"),
	        pl = pts_task(&p, "ns/pl");
	/* job2's ps is a bucket of one (self-affinity alone). */
	assert_float_equal(score1(&p, "ns/j2"), 100.0, 1e-9);
	assert_true(tph_task_order_cmp_plugins(p.s, a, x) < 0);
	assert_true(tph_task_order_cmp_plugins(p.s, x, a) > 0);
	/* Both in buckets, different jobs: not this plugin's duty. */
	assert_int_equal(tph_task_order_cmp_plugins(p.s, a, j2), 0);
	/* A job without a manager: no order at all. */
	assert_int_equal(tph_task_order_cmp_plugins(p.s, a, pl), 0);
	pts_free(&p);
	/* A job whose tasks are all bound gets no manager. */
	open_tt(&p, "", NODE("n1", "16"), "volcano.sh/task-topology-affinity: 'ps,worker'",
	        BOUND("a", "ps", "n1") BOUND("w", "worker", "n1"));
	tph_idx left[1] = {pts_task(&p, "ns/a")};
	double out[1];
	assert_int_equal(tph_score_locality(p.s, left[0]), TPH_SCORE_LOCAL);
	tph_score_nodes(p.s, left[0], p.s->ready_nodes, 1, out);
	assert_float_equal(out[0], 0.0, 0);
	pts_free(&p);
}

/* Bound tasks first, a bucket per node (by node name); their count on a node is its base. */
static void test_bound_tasks(void **state)
{
	(void)state;
	pts p;
	open_tt(&p, "", NODE("n1", "16") NODE("n2", "16"),
	        "volcano.sh/task-topology-affinity: 'ps,worker'",
	        BOUND("ps-9", "ps", "n2") BOUND("ps-8", "ps", "n2") POD("worker-0", "worker")
	            POD("worker-1", "worker") POD("worker-2", "worker"));
	/* B0 = {ps-8, ps-9 on n2}; each worker joins the bucket with the most affinity (the ps
	 * there): B0 holds 2 bound + 3 workers, bucketMaxSize 5. On n2: 2 bound + 3 = 5 -> 100;
	 * on n1: 3 -> 60. */
	double out[2];
	tph_score_nodes(p.s, pts_task(&p, "ns/worker-0"), p.s->ready_nodes, 2, out);
	assert_float_equal(out[0], 60.0, 1e-9);
	assert_float_equal(out[1], 100.0, 1e-9);
	pts_free(&p);
}

/* Anti-affinity splits, equal affinity goes to the bucket that asks less. */
static void test_bucket_choice(void **state)
{
	(void)state;
	pts p;
	open_tt(
	    &p, "", NODE("n1", "16"),
	    "volcano.sh/task-topology-affinity: 'a,b', volcano.sh/task-topology-anti-affinity: 'a'",
	    "  - {name: a-0, namespace: ns, podGroup: job1, requests: {cpu: '2'},"
	    " annotations: {volcano.sh/task-spec: a}}\n"
	    "  - {name: a-1, namespace: ns, podGroup: job1, requests: {cpu: '1'},"
	    " annotations: {volcano.sh/task-spec: a}}\n"
	    "  - {name: b-0, namespace: ns, podGroup: job1, requests: {cpu: '1'},"
	    " annotations: {volcano.sh/task-spec: b}}\n");
	/* a-0 -> B0, a-1 repelled -> B1; b-0 likes both alike, B1 asks less: B1 = {a-1, b-0}. */
	assert_float_equal(score1(&p, "ns/a-0"), 50.0, 1e-9);
	assert_float_equal(score1(&p, "ns/a-1"), 100.0, 1e-9);
	assert_float_equal(score1(&p, "ns/b-0"), 100.0, 1e-9);
	/* The larger bucket first, then the older one. */
	assert_true(
	    tph_task_order_cmp_plugins(p.s, pts_task(&p, "ns/b-0"), pts_task(&p, "ns/a-0")) < 0);
	pts_free(&p);
}

#define BIG(name, role, cpu)                                                              \
	"  - {name: " name ", namespace: ns, podGroup: job1, requests: {cpu: '" cpu "'}," \
	" annotations: {volcano.sh/task-spec: " role "}}\n"

/* A bucket too big for the node: members are taken out until the rest fits; a node the task
 * itself does not fit scores 0. */
static void test_bucket_must_fit(void **state)
{
	(void)state;
	pts p;
	/* One bucket of five w tasks (self-affinity) asking 1, 2, 3, 4, 5 cpu (joined in name
	 * order). Nodes: 15 cpu (all fit), 9, 4, 2. */
	open_tt(&p, "", NODE("n15", "15") NODE("n9", "9") NODE("n4", "4") NODE("n2", "2"),
	        "volcano.sh/task-topology-affinity: 'w'",
	        BIG("w-1", "w", "1") BIG("w-2", "w", "2") BIG("w-3", "w", "3") BIG("w-4", "w", "4")
	            BIG("w-5", "w", "5"));
	double out[4];
	/* w-3 (3 cpu): n15 5; n9: 15 - 1 - 2 = 12, - 4 = 8 fits after 3 others -> 2; n4: 15 - 1
	 * - 2 - 4 - 5 = 3 fits only with all 4 others out -> 1; n2: 3 > 2 -> 0. */
	tph_score_nodes(p.s, pts_task(&p, "ns/w-3"), p.s->ready_nodes, 4, out);
	assert_float_equal(out[0], 100.0, 1e-9);
	assert_float_equal(out[1], 40.0, 1e-9);
	assert_float_equal(out[2], 20.0, 1e-9);
	assert_float_equal(out[3], 0.0, 0);
	/* w-1 stays in: n9: 15 - 2 - 3 - 4 = 6 fits after 3 -> 2; n4: 15 - 2 - 3 - 4 - 5 = 1
	 * -> 1; n2 the same. */
	tph_score_nodes(p.s, pts_task(&p, "ns/w-1"), p.s->ready_nodes, 4, out);
	assert_float_equal(out[1], 40.0, 1e-9);
	assert_float_equal(out[2], 20.0, 1e-9);
	assert_float_equal(out[3], 20.0, 1e-9);
	pts_free(&p);
}

/* TaskBound on allocate (and pipeline): the bucket shrinks, its node count and the job's
 * names on the node grow; a discarded statement undoes none of it. */
static void test_allocate_event_not_undone(void **state)
{
	(void)state;
	pts p;
	open_tt(&p, "task-topology.weight: 2", NODE("n1", "16") NODE("n2", "16"),
	        "volcano.sh/task-topology-affinity: 'ps,worker',"
	        " volcano.sh/task-topology-anti-affinity: 'ps'",
	        POD("ps-0", "ps") POD("ps-1", "ps") POD("worker-0", "worker")
	            POD("worker-1", "worker"));
	/* B0 = {ps-0, worker-0}, B1 = {ps-1, worker-1}; weight 2: 2 * 2 * 100 / 2 = 200. */
	double out[2];
	tph_idx ps1 = pts_task(&p, "ns/ps-1"), w0 = pts_task(&p, "ns/worker-0");
	tph_score_nodes(p.s, ps1, p.s->ready_nodes, 2, out);
	assert_float_equal(out[0], 200.0, 1e-9);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/ps-0"), pts_node(&p, "n1")),
	                 TPH_OK);
	/* ps-1 avoids the ps on n1: 2 - 1 = 1 there, 2 on n2. */
	tph_score_nodes(p.s, ps1, p.s->ready_nodes, 2, out);
	assert_float_equal(out[0], 100.0, 1e-9);
	assert_float_equal(out[1], 200.0, 1e-9);
	/* worker-0: its bucket's ps is bound on n1 (1 + 1 left) and 1 on n2. */
	tph_score_nodes(p.s, w0, p.s->ready_nodes, 2, out);
	assert_float_equal(out[0], 200.0, 1e-9);
	assert_float_equal(out[1], 100.0, 1e-9);
	/* The smaller bucket now goes after the larger. */
	assert_true(tph_task_order_cmp_plugins(p.s, ps1, w0) < 0);
	tph_stmt_discard(&st);
	tph_stmt_free(&st);
	tph_score_nodes(p.s, ps1, p.s->ready_nodes, 2, out);
	assert_float_equal(out[0], 100.0, 1e-9);
	assert_true(tph_task_order_cmp_plugins(p.s, ps1, w0) < 0);
	pts_free(&p);
}

/* A full session: anti-affine ps tasks on different nodes, each worker with its bucket's ps. */
static void test_allocate_places_buckets(void **state)
{
	(void)state;
	pts p;
	pts_open(&p,
	         "conf: |\n"
	         "  actions: \"allocate\"\n"
	         "  tiers:\n"
	         "  - plugins:\n"
	         "    - name: task-topology\n"
	         "queues: [{name: q1}]\n"
	         "nodes:\n" NODE("n1", "4") NODE(
	             "n2",
	             "4") "podGroups:\n"
	                  "  - {name: job1, namespace: ns, queue: q1, minMember: 4, phase: Inqueue,"
	                  " annotations: {volcano.sh/task-topology-affinity: 'ps,worker',"
	                  " volcano.sh/task-topology-anti-affinity: 'ps'}}\n"
	                  "pods:\n" POD("ps-0", "ps") POD("ps-1", "ps") POD("worker-0", "worker")
	                      POD("worker-1", "worker"));
	pts_run(&p);
	assert_int_equal(p.log->n_binds, 4);
	const char *node_of[4] = {NULL, NULL, NULL, NULL};
	static const char *const pods[4] = {"ns/ps-0", "ns/ps-1", "ns/worker-0", "ns/worker-1"};
	for (uint32_t i = 0; i < p.log->n_binds; i++)
		for (int k = 0; k < 4; k++)
			if (!strcmp(p.log->binds[i].pod, pods[k]))
				node_of[k] = p.log->binds[i].node;
	assert_string_not_equal(node_of[0], node_of[1]);
	assert_string_equal(node_of[0], node_of[2]);
	assert_string_equal(node_of[1], node_of[3]);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_annotations),
	    cmocka_unit_test(test_role_and_name),
	    cmocka_unit_test(test_managers_and_cross_job_order),
	    cmocka_unit_test(test_bound_tasks),
	    cmocka_unit_test(test_bucket_choice),
	    cmocka_unit_test(test_bucket_must_fit),
	    cmocka_unit_test(test_allocate_event_not_undone),
	    cmocka_unit_test(test_allocate_places_buckets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for plugins/capacity/capacity.c: the real capability bound, share order with the
 * deserved tie-break, Preemptive, reclaim victims (pop order, deserved, guarantee), the queue tree
 * (leaves only, ancestors' capability, inheritance, victim queue order), the not-ready cases
 * and ancestorReclaimLevel, and the PrePredicate snapshot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "session/statement.h"

#define CONF(extra)         \
	"conf: |\n"         \
	"  actions: \"\"\n" \
	"  tiers:\n"        \
	"  - plugins:\n"    \
	"    - name: capacity\n" extra
#define TREE "      enableHierarchy: true\n"
#define NODE(cpu) \
	"nodes:\n  - {name: n1, allocatable: {cpu: '" cpu "', memory: 8Gi, pods: '100'}}\n"
#define PEND(name, pg, req) \
	"  - {name: " name ", namespace: ns, podGroup: " pg ", requests: {" req "}}\n"
#define RUN(name, pg, cpu)                                                                    \
	"  - {name: " name ", namespace: ns, podGroup: " pg ", phase: Running, nodeName: n1," \
	" requests: {cpu: '" cpu "'}}\n"
#define PG(name, q) "  - {name: " name ", namespace: ns, queue: " q "}\n"
#define CPU(v)      "cpu: '" v "'"

static const char flat[] =
    CONF("") "queues:\n"
             "  - {name: q1, capability: {cpu: '4'}, deserved: {cpu: '2'}}\n"
             "  - {name: q2}\n"
             "  - {name: q3, deserved: {cpu: '2'}}\n"
             "  - {name: q4, deserved: {cpu: '4'}}\n"
             "  - {name: q5, state: Closed}\n" NODE("10") "podGroups:\n" PG("j1", "q1")
                 PG("j2", "q2") PG("j3", "q3")
                     PG("j4",
                        "q4") "  - {name: j5, namespace: ns, queue: q5, minResources: {cpu: '1'}}\n"
                              "pods:\n" RUN("j1-t-0", "j1", "3") PEND("j1-t-1", "j1", CPU("1"))
                                  PEND("j1-t-2", "j1", CPU("2")) RUN("j2-t-0", "j2", "1")
                                      RUN("j3-t-0", "j3", "2") PEND("j3-t-1", "j3", CPU("1"))
                                          RUN("j4-t-0", "j4", "2") PEND("j4-t-1", "j4", CPU("1"))
                                              PEND("j5-t-0", "j5", CPU("1"));

static void test_flat_capability_and_order(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, flat);
	tph_idx q1 = pts_queue(&p, "q1"), q2 = pts_queue(&p, "q2"), q3 = pts_queue(&p, "q3"),
	        q4 = pts_queue(&p, "q4"), q5 = pts_queue(&p, "q5");
	assert_true(tph_allocatable(p.s, q1, pts_task(&p, "ns/j1-t-1")));  /* 3 + 1 <= 4 */
	assert_false(tph_allocatable(p.s, q1, pts_task(&p, "ns/j1-t-2"))); /* 3 + 2 > 4 */
	/* shares: q4 0.5, q3 1 (with deserved), q2 1 (none: best effort), q1 1.5 */
	assert_true(tph_queue_order(p.s, q4, q3) < 0);
	assert_true(tph_queue_order(p.s, q3, q2) < 0);
	assert_true(tph_queue_order(p.s, q2, q1) < 0);
	assert_true(tph_preemptive(p.s, q4, pts_task(&p, "ns/j4-t-1")));  /* 3 <= 4 deserved */
	assert_false(tph_preemptive(p.s, q3, pts_task(&p, "ns/j3-t-1"))); /* 3 > 2 */
	assert_false(tph_preemptive(p.s, q1, pts_task(&p, "ns/j1-t-2"))); /* over capability */
	assert_false(tph_allocatable(p.s, q5, pts_task(&p, "ns/j5-t-0")));
	assert_false(tph_job_enqueueable(p.s, pts_job(&p, "ns/j5")));
	pts_free(&p);
}

/* qa deserves 1 cpu and holds 3; qb the same but its guarantee of 2 must stay. */
static const char guarantee[] =
    CONF("") "queues:\n"
             "  - {name: qa, deserved: {cpu: '1'}}\n"
             "  - {name: qb, deserved: {cpu: '1'}, guarantee: {cpu: '2'}}\n"
             "  - {name: qc, deserved: {cpu: '5'}}\n" NODE("10") "podGroups:\n" PG("ja", "qa")
                 PG("jb", "qb") PG("jc", "qc") "pods:\n" RUN("qa-run-0", "ja", "1")
                     RUN("qa-run-1", "ja", "1") RUN("qa-run-2", "ja", "1")
                         RUN("qb-run-0", "jb", "1") RUN("qb-run-1", "jb", "1")
                             RUN("qb-run-2", "jb", "1") PEND("qc-pend-0", "jc", CPU("1"));

static void test_reclaim_deserved_and_guarantee(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, guarantee);
	const char *names[6] = {"ns/qa-run-0", "ns/qa-run-1", "ns/qa-run-2",
	                        "ns/qb-run-0", "ns/qb-run-1", "ns/qb-run-2"};
	tph_idx c[6], out[6];
	for (int i = 0; i < 6; i++)
		c[i] = pts_task(&p, names[i]);
	/* Victims pop in reverse task order: qa loses run-2 and run-1 (3 -> 1), qb only run-2
	 * (its guarantee of 2 stays). */
	assert_int_equal(tph_reclaimable(p.s, pts_task(&p, "ns/qc-pend-0"), c, 6, out), 3);
	assert_int_equal(out[0], c[1]);
	assert_int_equal(out[1], c[2]);
	assert_int_equal(out[2], c[5]);
	pts_free(&p);
}

/* root -> qa (4 cpu) -> qa1 (2Gi, cpu inherited), qa2; root -> qb. */
static const char tree[] =
    CONF(TREE) "queues:\n"
               "  - {name: root}\n"
               "  - {name: qa, parent: root, capability: {cpu: '4'}}\n"
               "  - {name: qa1, parent: qa, capability: {memory: 2Gi}}\n"
               "  - {name: qa2, parent: qa, deserved: {cpu: '2'}}\n"
               "  - {name: qb, parent: root, deserved: {cpu: '4'}}\n" NODE(
                   "8") "podGroups:\n"
                        "  - {name: ja1, namespace: ns, queue: qa1, minResources: {cpu: '2'}}\n"
                        "  - {name: ja2, namespace: ns, queue: qa2, phase: Running, minResources: "
                        "{cpu: '3'}}\n" PG("jb", "qb") "pods:\n" PEND("ja1-t-0", "ja1", CPU("5"))
                            PEND("ja1-t-1", "ja1", CPU("4")) PEND("ja1-t-2", "ja1", "memory: 3Gi")
                                PEND("ja1-t-3", "ja1", CPU("1")) RUN("ja2-t-0", "ja2", "3")
                                    RUN("jb-t-0", "jb", "1");

static void test_tree(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, tree);
	tph_idx qa = pts_queue(&p, "qa"), qa1 = pts_queue(&p, "qa1"), qa2 = pts_queue(&p, "qa2"),
	        qb = pts_queue(&p, "qb");
	assert_false(tph_allocatable(p.s, qa, pts_task(&p, "ns/ja1-t-3")));  /* not a leaf */
	assert_false(tph_allocatable(p.s, qa1, pts_task(&p, "ns/ja1-t-0"))); /* 5 > 4 inherited */
	assert_false(tph_allocatable(p.s, qa1, pts_task(&p, "ns/ja1-t-1"))); /* qa: 3 + 4 > 4 */
	assert_false(tph_allocatable(p.s, qa1, pts_task(&p, "ns/ja1-t-2"))); /* 3Gi > 2Gi */
	assert_true(tph_allocatable(p.s, qa1, pts_task(&p, "ns/ja1-t-3")));
	/* qa: 2 + 3 allocated > 4 (ja2 holds its minResources: nothing elastic) */
	assert_false(tph_job_enqueueable(p.s, pts_job(&p, "ns/ja1")));
	assert_true(tph_queue_order(p.s, qa1, qa) < 0);             /* leaves first */
	assert_true(tph_victim_queue_order(p.s, qa2, qb, qa1) < 0); /* closer relative first */
	assert_true(tph_victim_queue_order(p.s, qb, qa2, qa1) > 0);
	pts_free(&p);
}

static void not_ready(const char *yaml, const char *leaf, const char *task, const char *job)
{
	pts p;
	pts_open(&p, yaml);
	tph_idx q = pts_queue(&p, leaf), t = pts_task(&p, task), out[1];
	assert_false(tph_allocatable(p.s, q, t));
	assert_false(tph_job_enqueueable(p.s, pts_job(&p, job)));
	assert_int_equal(p.s->ep[TPH_EP_QUEUE_ORDER].n, 0);
	assert_int_equal(tph_reclaimable(p.s, t, &t, 1, out), 0);
	pts_free(&p);
}

static void test_tree_not_ready(void **state)
{
	(void)state;
	/* A job in an inner queue. */
	not_ready(CONF(TREE) "queues: [{name: root}, {name: qa}, {name: qa1, parent: qa}]\n" NODE(
	              "8") "podGroups:\n" PG("ja", "qa")
	              PG("ja1", "qa1") "pods:\n" PEND("ja-t-0", "ja", CPU("1"))
	                  PEND("ja1-t-0", "ja1", CPU("1")),
	          "qa1", "ns/ja1-t-0", "ns/ja1");
	/* No root queue. */
	not_ready(CONF(TREE) "queues: [{name: qa}]\n" NODE("8") "podGroups:\n" PG(
	              "ja", "qa") "pods:\n" PEND("ja-t-0", "ja", CPU("1")),
	          "qa", "ns/ja-t-0", "ns/ja");
}

/* p1 is over its deserved, its parent p is not. */
#define LEVEL(arg)                                                                       \
	CONF(TREE "      arguments: {ancestorReclaimLevel: " arg "}\n")                  \
	"queues:\n"                                                                      \
	"  - {name: root}\n"                                                             \
	"  - {name: p, deserved: {cpu: '4'}}\n"                                          \
	"  - {name: p1, parent: p, deserved: {cpu: '1'}}\n" NODE("8") "podGroups:\n" PG( \
	    "j1", "p1") "pods:\n" RUN("j1-t-0", "j1", "1") PEND("j1-t-1", "j1", CPU("1"))

static void preemptive_at(const char *yaml, bool want)
{
	pts p;
	pts_open(&p, yaml);
	assert_int_equal(tph_preemptive(p.s, pts_queue(&p, "p1"), pts_task(&p, "ns/j1-t-1")), want);
	pts_free(&p);
}

static void test_ancestor_reclaim_level(void **state)
{
	(void)state;
	preemptive_at(LEVEL("0"), false);
	preemptive_at(LEVEL("1"), true);
	preemptive_at(LEVEL("-1"), false); /* negative: 0, with a warning */
}

/* Volcano's NewResource drops names that are neither native nor extended ("rdma"), so their
 * limits never bind; an extended resource's do. */
static const char names[] =
    CONF("") "queues:\n"
             "  - {name: q1, capability: {cpu: '4', rdma: '1', example.com/foo: '1'}}\n"
             "nodes:\n  - {name: n1, allocatable: {cpu: '8', pods: '9', example.com/foo: '10'}}\n"
             "podGroups:\n" PG("j1", "q1") "pods:\n" PEND("j1-t-0", "j1", "cpu: '1', rdma: '5'")
                 PEND("j1-t-1", "j1", "example.com/foo: '2'")
                     PEND("j1-t-2", "j1", "example.com/foo: '1'");

static void test_resource_names(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, names);
	tph_idx q1 = pts_queue(&p, "q1");
	assert_true(tph_allocatable(p.s, q1, pts_task(&p, "ns/j1-t-0")));
	assert_false(tph_allocatable(p.s, q1, pts_task(&p, "ns/j1-t-1")));
	assert_true(tph_allocatable(p.s, q1, pts_task(&p, "ns/j1-t-2")));
	pts_free(&p);
}

static void test_simulation_snapshot(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, flat);
	tph_idx q1 = pts_queue(&p, "q1"), t1 = pts_task(&p, "ns/j1-t-1"),
	        run = pts_task(&p, "ns/j1-t-0");
	assert_false(tph_sim_allocatable(p.s, q1, t1)); /* no PrePredicate yet */
	assert_int_equal(tph_prepredicate(p.s, t1), TPH_PASS);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, t1, 0), TPH_OK);
	assert_true(tph_sim_allocatable(p.s, q1, t1)); /* as PrePredicate saw q1: 3 + 1 <= 4 */
	assert_int_equal(tph_sim_add_task(p.s, t1, t1, 0), TPH_OK);
	assert_false(tph_sim_allocatable(p.s, q1, t1));
	assert_int_equal(tph_sim_remove_task(p.s, t1, run, 0), TPH_OK);
	assert_int_equal(tph_sim_remove_task(p.s, t1, t1, 0), TPH_OK);
	assert_true(tph_sim_allocatable(p.s, q1, pts_task(&p, "ns/j1-t-2"))); /* 0 + 2 */
	tph_stmt_discard(&st);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flat_capability_and_order),
	    cmocka_unit_test(test_reclaim_deserved_and_guarantee),
	    cmocka_unit_test(test_tree),
	    cmocka_unit_test(test_tree_not_ready),
	    cmocka_unit_test(test_ancestor_reclaim_level),
	    cmocka_unit_test(test_resource_names),
	    cmocka_unit_test(test_simulation_snapshot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

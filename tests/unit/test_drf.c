/* Unit tests for plugins/drf/drf.c: job order by dominant share, shares following allocate events,
 * the preemptable rule (cumulative per job, 1e-6 tolerance), the refusal of enableHierarchy
 * next to proportion, and hierarchical DRF's queue order and reclaim with path weights. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "session/statement.h"

#define NODE "  - {name: n1, allocatable: {cpu: '10', memory: 10Gi, pods: '50'}}\n"
#define RUN(name, pg, cpu)                                                                    \
	"  - {name: " name ", namespace: ns, podGroup: " pg ", phase: Running, nodeName: n1," \
	" requests: {cpu: '" cpu "'}}\n"
#define PEND(name, pg, cpu) \
	"  - {name: " name ", namespace: ns, podGroup: " pg ", requests: {cpu: '" cpu "'}}\n"

/* drf alone, one queue, node n1, podgroups a and b (the pods and any more podgroups follow). */
#define FLAT_HEAD                                   \
	"conf: |\n"                                 \
	"  actions: \"\"\n"                         \
	"  tiers:\n"                                \
	"  - plugins:\n"                            \
	"    - name: drf\n"                         \
	"queues: [{name: q1}]\n"                    \
	"nodes:\n" NODE "podGroups:\n"              \
	"  - {name: a, namespace: ns, queue: q1}\n" \
	"  - {name: b, namespace: ns, queue: q1}\n"

static const char flat[] =
    FLAT_HEAD "  - {name: c, namespace: ns, queue: q1}\n"
              "pods:\n" RUN("a-x-0", "a", "2") RUN("b-x-0", "b", "2") RUN("b-x-1", "b", "2")
                  PEND("c-x-0", "c", "1") PEND("c-x-1", "c", "1") PEND("c-x-2", "c", "1")
                      PEND("c-x-3", "c", "2");

static void test_job_order_by_share(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, flat);
	tph_idx a = pts_job(&p, "ns/a"), b = pts_job(&p, "ns/b"), c = pts_job(&p, "ns/c");
	assert_true(tph_job_order_cmp_plugins(p.s, a, b) < 0); /* 0.2 before 0.4 */
	assert_true(tph_job_order_cmp_plugins(p.s, b, a) > 0);
	assert_true(tph_job_order_cmp_plugins(p.s, c, a) < 0); /* nothing allocated */
	pts_free(&p);
}

/* The share is the largest of allocated/total over the resources, not their sum: a holds 40% of
 * the cpu and nothing else, b 30% of the cpu and 30% of the memory. By the largest b comes
 * first (0.3 < 0.4); by the sum a would (0.4 < 0.6). */
static void test_job_order_dominant_of_two(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, FLAT_HEAD
	         "pods:\n"
	         "  - {name: a-0, namespace: ns, podGroup: a, phase: Running, nodeName: n1,"
	         " requests: {cpu: '4'}}\n"
	         "  - {name: b-0, namespace: ns, podGroup: b, phase: Running, nodeName: n1,"
	         " requests: {cpu: '3', memory: 3Gi}}\n");
	tph_idx a = pts_job(&p, "ns/a"), b = pts_job(&p, "ns/b");
	assert_true(tph_job_order_cmp_plugins(p.s, b, a) < 0);
	assert_true(tph_job_order_cmp_plugins(p.s, a, b) > 0);
	pts_free(&p);
}

static void test_events_move_share(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, flat);
	tph_idx a = pts_job(&p, "ns/a"), b = pts_job(&p, "ns/b"), c = pts_job(&p, "ns/c");
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/c-x-3"), 0), TPH_OK);
	assert_int_equal(tph_job_order_cmp_plugins(p.s, c, a), 0); /* 0.2 each */
	assert_int_equal(tph_stmt_pipeline(&st, pts_task(&p, "ns/c-x-0"), 0), TPH_OK);
	assert_true(tph_job_order_cmp_plugins(p.s, c, a) > 0); /* a pipelined task counts */
	assert_true(tph_job_order_cmp_plugins(p.s, c, b) < 0);
	tph_stmt_discard(&st);
	assert_true(tph_job_order_cmp_plugins(p.s, c, a) < 0);
	pts_free(&p);
}

/* Two dimensions, so a share's dominant one can change with an event. */
static const char recount[] = FLAT_HEAD
    "  - {name: c, namespace: ns, queue: q1}\n"
    "pods:\n" RUN("a-x-0", "a", "2") RUN("b-x-0", "b", "2") PEND("c-x-0", "c", "1") PEND(
        "c-x-1", "c",
        "1") "  - {name: c-x-2, namespace: ns, podGroup: c, requests: {cpu: '1', memory: 6Gi}}\n"
             "  - {name: a-x-1, namespace: ns, podGroup: a, requests: {cpu: 500m, memory: 3Gi}}\n";

/* A job's share counted from its tasks as they stand: allocated or pipelined, over cpu and
 * memory against n1's 10 cpu and 10Gi. */
static double share_recount(const pts *p, tph_idx j)
{
	double cpu = 0, mem = 0;
	for (uint32_t i = p->s->jobs->task_off[j]; i < p->s->jobs->task_off[j + 1]; i++) {
		tph_idx t = p->s->jobs->task_idx[i];
		uint8_t st = p->s->tasks.status[t];
		if (!tph_ts_allocated(st) && st != TPH_TS_PIPELINED)
			continue;
		cpu += (double)p->s->tasks.req[(size_t)t * p->s->ndim + TPH_RES_CPU];
		mem += (double)p->s->tasks.req[(size_t)t * p->s->ndim + TPH_RES_MEMORY];
	}
	cpu /= 10000.0;
	mem /= (double)(10LL << 30);
	return cpu > mem ? cpu : mem;
}

/* Every pair of jobs ordered as the recounted shares order them. */
static void check_recount(const pts *p)
{
	tph_idx jobs[] = {pts_job(p, "ns/a"), pts_job(p, "ns/b"), pts_job(p, "ns/c")};
	for (int x = 0; x < 3; x++)
		for (int y = 0; y < 3; y++) {
			double sx = share_recount(p, jobs[x]), sy = share_recount(p, jobs[y]);
			int want = (sx > sy) - (sx < sy);
			int got = tph_job_order_cmp_plugins(p->s, jobs[x], jobs[y]);
			assert_int_equal((got > 0) - (got < 0), want);
		}
}

/* The shares kept by the events equal a recount after allocations, a pipeline, a commit and
 * a discarded statement (whose undo deallocates). */
static void test_events_equal_recount(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, recount);
	check_recount(&p);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/c-x-2"), 0), TPH_OK);
	check_recount(&p); /* c: memory 0.6 dominates */
	assert_int_equal(tph_stmt_pipeline(&st, pts_task(&p, "ns/c-x-0"), 0), TPH_OK);
	assert_int_equal(tph_stmt_commit(&st), TPH_OK);
	check_recount(&p);
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/a-x-1"), 0), TPH_OK);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/c-x-1"), 0), TPH_OK);
	check_recount(&p);
	tph_stmt_discard(&st);
	check_recount(&p);
	pts_free(&p);
}

static void test_preemptable(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, flat);
	tph_idx cands[3] = {pts_task(&p, "ns/b-x-0"), pts_task(&p, "ns/b-x-1"),
	                    pts_task(&p, "ns/a-x-0")};
	tph_idx out[3];
	/* c-x-0 takes c to 0.1: b goes 0.4 -> 0.2 (victim), then 0.2 -> 0 (not: the second
	 * counts the first); a goes 0.2 -> 0 (not). */
	assert_int_equal(tph_preemptable(p.s, pts_task(&p, "ns/c-x-0"), cands, 3, out), 1);
	assert_int_equal(out[0], cands[0]);
	/* c-x-3 takes c to 0.2: equal to b after one loss, within the 1e-6 tolerance. */
	assert_int_equal(tph_preemptable(p.s, pts_task(&p, "ns/c-x-3"), cands, 2, out), 1);
	assert_int_equal(out[0], cands[0]);
	pts_free(&p);
}

#define HIER_CONF(extra)    \
	"conf: |\n"         \
	"  actions: \"\"\n" \
	"  tiers:\n"        \
	"  - plugins:\n"    \
	"    - name: drf\n" \
	"      enableHierarchy: true\n" extra

static void test_hierarchy_refused_with_proportion(void **state)
{
	(void)state;
	/* Volcano's UnmarshalSchedulerConf refuses the pair in one tier. */
	static const char same_tier[] =
	    HIER_CONF("    - name: proportion\n") "queues: [{name: q1}]\nnodes:\n" NODE;
	tph_scenario *scn = NULL;
	tph_diag d = {0};
	assert_int_not_equal(
	    tph_scenario_load_buffer(same_tier, strlen(same_tier), "t.yaml", &scn, &d), TPH_OK);
	assert_non_null(strstr(d.msg, "proportion and drf with hierarchy enabled conflict"));
	/* In another tier it accepts it. */
	pts p;
	pts_open(&p, HIER_CONF("  - plugins:\n    - name: proportion\n") "queues: [{name: q1}]\n"
	                                                                 "nodes:\n" NODE);
	pts_free(&p);
}

/* Two queues on root/a and root/b, qb's path weighted `wb`, on a 24-cpu node. */
#define HIER(wb, pods)                                                         \
	HIER_CONF("")                                                          \
	"queues:\n"                                                            \
	"  - {name: qa, annotations: {volcano.sh/hierarchy: root/a}}\n"        \
	"  - {name: qb, annotations: {volcano.sh/hierarchy: root/b,"           \
	" volcano.sh/hierarchy-weights: 1/" wb "}}\n"                          \
	"nodes:\n"                                                             \
	"  - {name: n1, allocatable: {cpu: '24', memory: 10Gi, pods: '50'}}\n" \
	"podGroups:\n"                                                         \
	"  - {name: ja, namespace: ns, queue: qa}\n"                           \
	"  - {name: jb, namespace: ns, queue: qb}\n"                           \
	"pods:\n" pods

/* ja holds 4 of 24 cpu, jb 6: neither has all it asked for. */
#define ORDER_A RUN("ja-x-0", "ja", "2") RUN("ja-x-1", "ja", "2") PEND("ja-x-2", "ja", "2")
#define ORDER_B RUN("jb-x-0", "jb", "3") RUN("jb-x-1", "jb", "3") PEND("jb-x-2", "jb", "1")

static void test_hdrf_queue_order_weights(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HIER("1", ORDER_A ORDER_B));
	assert_true(tph_queue_order(p.s, pts_queue(&p, "qa"), pts_queue(&p, "qb")) <
	            0); /* 1/6 < 1/4 */
	pts_free(&p);
	pts_open(&p, HIER("2", ORDER_A ORDER_B));
	tph_idx qa = pts_queue(&p, "qa"), qb = pts_queue(&p, "qb");
	assert_true(tph_queue_order(p.s, qa, qb) > 0); /* 1/6 > (1/4) / 2 */
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/jb-x-2"), 0), TPH_OK);
	/* jb now has all it asked for: saturated queues go last. */
	assert_true(tph_queue_order(p.s, qa, qb) < 0);
	tph_stmt_discard(&st);
	assert_true(tph_queue_order(p.s, qa, qb) > 0);
	pts_free(&p);
}

/* ja: 4 cpu of 8 asked; jb: 14 of 15. */
#define RECLAIM_A ORDER_A PEND("ja-x-3", "ja", "2")
#define RECLAIM_B RUN("jb-x-0", "jb", "7") RUN("jb-x-1", "jb", "7") PEND("jb-x-2", "jb", "1")

static void test_hdrf_reclaimable(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HIER("1", RECLAIM_A RECLAIM_B));
	tph_idx cands[2] = {pts_task(&p, "ns/jb-x-0"), pts_task(&p, "ns/jb-x-1")}, out[2];
	/* ja with ja-x-2 placed: 6/24; jb losing one task: 7/24, still above: a victim. Each
	 * reclaimee is tried on its own, the previous one put back. */
	assert_int_equal(tph_reclaimable(p.s, pts_task(&p, "ns/ja-x-2"), cands, 2, out), 2);
	/* The other way: qb at 15/24 against qa losing a task: never a victim. */
	tph_idx other[1] = {pts_task(&p, "ns/ja-x-0")};
	assert_int_equal(tph_reclaimable(p.s, pts_task(&p, "ns/jb-x-2"), other, 1, out), 0);
	pts_free(&p);
	pts_open(&p, HIER("2", RECLAIM_A RECLAIM_B));
	cands[0] = pts_task(&p, "ns/jb-x-0");
	cands[1] = pts_task(&p, "ns/jb-x-1");
	/* Weighted by 2, jb's 7/24 counts as 7/48, below ja's 6/24: no victim. */
	assert_int_equal(tph_reclaimable(p.s, pts_task(&p, "ns/ja-x-2"), cands, 2, out), 0);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_job_order_by_share),
	    cmocka_unit_test(test_job_order_dominant_of_two),
	    cmocka_unit_test(test_events_move_share),
	    cmocka_unit_test(test_events_equal_recount),
	    cmocka_unit_test(test_preemptable),
	    cmocka_unit_test(test_hierarchy_refused_with_proportion),
	    cmocka_unit_test(test_hdrf_queue_order_weights),
	    cmocka_unit_test(test_hdrf_reclaimable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

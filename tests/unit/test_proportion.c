/* Unit tests for plugins/proportion.c: deserved by weighted water-filling (fractions kept as
 * Volcano keeps them, capped by request and real capability, floored at guarantee), the share
 * order, Allocatable/Overused against deserved, Open queues only, enqueue against the real
 * capability with inqueue and elastic, reclaim victims, and the PrePredicate snapshot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "session/statement.h"

#define CONF                \
	"conf: |\n"         \
	"  actions: \"\"\n" \
	"  tiers:\n"        \
	"  - plugins:\n"    \
	"    - name: proportion\n"
#define NODE(cpu) \
	"nodes:\n  - {name: n1, allocatable: {cpu: '" cpu "', memory: 12Gi, pods: '100'}}\n"
#define PEND(name, pg, cpu) \
	"  - {name: " name ", namespace: ns, podGroup: " pg ", requests: {cpu: '" cpu "'}}\n"
#define RUN(name, pg, cpu)                                                                    \
	"  - {name: " name ", namespace: ns, podGroup: " pg ", phase: Running, nodeName: n1," \
	" requests: {cpu: '" cpu "'}}\n"
#define PG(name, q) "  - {name: " name ", namespace: ns, queue: " q "}\n"

/* 12 cpu over weights 1, 1, 2 with requests 10, 2, 10: round one gives 3, 2 (met), 6; the
 * last cpu goes 1/3 and 2/3: q1 deserves 3.333..., q3 6.666... */
static const char fill[] = CONF "queues: [{name: q1}, {name: q2}, {name: q3, weight: 2}]\n" NODE(
    "12") "podGroups:\n" PG("j1", "q1") PG("j2", "q2")
    PG("j3", "q3") "pods:\n" PEND("j1-t-0", "j1", "1") PEND("j1-t-1", "j1", "1")
        PEND("j1-t-2", "j1", "1") PEND("j1-t-3", "j1", "1") PEND("j1-t-4", "j1", "6")
            PEND("j1-t-5", "j1", "300m") PEND("j2-t-0", "j2", "2") PEND("j3-t-0", "j3", "6700m")
                PEND("j3-t-1", "j3", "3300m") PEND("j3-t-2", "j3", "6666m");

static void allocate(pts *p, tph_statement *st, const char *task)
{
	assert_int_equal(tph_stmt_allocate(st, pts_task(p, task), 0), TPH_OK);
}

static void test_water_filling(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, fill);
	tph_idx q1 = pts_queue(&p, "q1"), q3 = pts_queue(&p, "q3");
	tph_statement st;
	tph_stmt_init(&st, p.s);
	allocate(&p, &st, "ns/j1-t-0");
	allocate(&p, &st, "ns/j1-t-1");
	allocate(&p, &st, "ns/j1-t-2");
	assert_false(tph_allocatable(p.s, q1, pts_task(&p, "ns/j1-t-3"))); /* 4 > 3.333 */
	assert_true(tph_allocatable(p.s, q1, pts_task(&p, "ns/j1-t-5")));  /* 3.3 <= 3.333 */
	assert_false(tph_allocatable(p.s, q3, pts_task(&p, "ns/j3-t-0"))); /* 6.7 > 6.667 */
	assert_true(tph_allocatable(p.s, q3, pts_task(&p, "ns/j3-t-2")));  /* 6.666 */
	/* q1 at 3/3.333, q3 at 0: q3 first; neither is overused. */
	assert_true(tph_queue_order(p.s, q3, q1) < 0);
	assert_false(tph_overused(p.s, q1));
	allocate(&p, &st, "ns/j1-t-3");
	assert_true(tph_overused(p.s, q1));
	assert_true(tph_preemptive(p.s, q3, pts_task(&p, "ns/j3-t-2")));
	tph_stmt_discard(&st);
	assert_false(tph_overused(p.s, q1));
	pts_free(&p);
}

static const char closed[] = CONF
    "queues: [{name: q1}, {name: q4, state: Closed}]\n" NODE("12") "podGroups:\n" PG("j1", "q1")
        PG("j4", "q4") "pods:\n" PEND("j1-t-0", "j1", "1") PEND("j4-t-0", "j4", "1");

static void test_closed_queue(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, closed);
	tph_idx q4 = pts_queue(&p, "q4"), t = pts_task(&p, "ns/j4-t-0");
	assert_false(tph_allocatable(p.s, q4, t));
	assert_false(tph_preemptive(p.s, q4, t));
	assert_false(tph_job_enqueueable(p.s, pts_job(&p, "ns/j4")));
	assert_true(tph_job_enqueueable(p.s, pts_job(&p, "ns/j1"))); /* no minResources */
	assert_true(tph_allocatable(p.s, pts_queue(&p, "q1"), pts_task(&p, "ns/j1-t-0")));
	pts_free(&p);
}

/* q1's guarantee of 4 floors its deserved above its request of 1 and comes out of q2's real
 * capability: q2 deserves 12 - 4 = 8, not 11. Allocatable looks at the task's request only,
 * so j2's tasks probe q1 too. */
static const char guarantee[] =
    CONF "queues: [{name: q1, guarantee: {cpu: '4'}}, {name: q2}]\n" NODE("12") "podGroups:\n" PG(
        "j1", "q1") PG("j2", "q2") "pods:\n" PEND("j1-t-0", "j1", "1") PEND("j2-t-0", "j2", "8")
        PEND("j2-t-1", "j2", "8100m") PEND("j2-t-2", "j2", "4") PEND("j2-t-3", "j2", "4100m");

static void test_guarantee_and_real_capability(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, guarantee);
	tph_idx q1 = pts_queue(&p, "q1"), q2 = pts_queue(&p, "q2");
	assert_true(tph_allocatable(p.s, q2, pts_task(&p, "ns/j2-t-0")));
	assert_false(tph_allocatable(p.s, q2, pts_task(&p, "ns/j2-t-1")));
	assert_true(tph_allocatable(p.s, q1, pts_task(&p, "ns/j2-t-2")));
	assert_false(tph_allocatable(p.s, q1, pts_task(&p, "ns/j2-t-3")));
	pts_free(&p);
}

/* q1 may hold 4 cpu; a Running job holds 2 (its minResources, so nothing inqueue and
 * nothing elastic). */
static const char enqueue[] = CONF "queues: [{name: q1, capability: {cpu: '4'}}]\n" NODE(
    "12") "podGroups:\n"
          "  - {name: run, namespace: ns, queue: q1, phase: Running, minResources: {cpu: '2'}}\n"
          "  - {name: big, namespace: ns, queue: q1, minResources: {cpu: '3'}}\n"
          "  - {name: two, namespace: ns, queue: q1, minResources: {cpu: '2'}}\n"
          "  - {name: one, namespace: ns, queue: q1, minResources: {cpu: '1', memory: 1Gi}}\n"
          "  - {name: free, namespace: ns, queue: q1}\n"
          "pods:\n" RUN("run-t-0", "run", "2") PEND("big-t-0", "big", "3")
              PEND("two-t-0", "two", "2") PEND("one-t-0", "one", "1") PEND("free-t-0", "free", "9");

static void test_enqueue(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, enqueue);
	tph_idx big = pts_job(&p, "ns/big"), two = pts_job(&p, "ns/two"),
	        one = pts_job(&p, "ns/one");
	assert_false(tph_job_enqueueable(p.s, big)); /* 3 + 2 > 4 */
	assert_true(tph_job_enqueueable(p.s, two));  /* 2 + 2 <= 4 */
	assert_true(tph_job_enqueueable(p.s, one));
	tph_job_enqueued(p.s, two);
	assert_false(tph_job_enqueueable(p.s, one)); /* 1 + 2 + 2 inqueue > 4 */
	assert_true(tph_job_enqueueable(p.s, pts_job(&p, "ns/free")));
	pts_free(&p);
}

/* 4 cpu, equal weights: q1 (asks 3) and q2 (asks 2) deserve 2 each; q1 holds 3. */
static const char reclaim[] =
    CONF "queues: [{name: q1}, {name: q2}]\n" NODE("4") "podGroups:\n" PG("j1", "q1")
        PG("j2", "q2") "pods:\n" RUN("j1-t-0", "j1", "1") RUN("j1-t-1", "j1", "1")
            RUN("j1-t-2", "j1", "1") PEND("j2-t-0", "j2", "1") PEND("j2-t-1", "j2", "1");

static void test_reclaimable(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, reclaim);
	tph_idx c[3] = {pts_task(&p, "ns/j1-t-0"), pts_task(&p, "ns/j1-t-1"),
	                pts_task(&p, "ns/j1-t-2")},
	        out[3];
	/* The first takes q1 down to its deserved; the others are not victims. A second call
	 * starts again from the live rows: the same answer. */
	for (int call = 0; call < 2; call++) {
		assert_int_equal(tph_reclaimable(p.s, pts_task(&p, "ns/j2-t-0"), c, 3, out), 1);
		assert_int_equal(out[0], c[0]);
	}
	assert_true(tph_overused(p.s, pts_queue(&p, "q1")));
	assert_false(tph_overused(p.s, pts_queue(&p, "q2")));
	pts_free(&p);
}

/* Simulations see the queues as PrePredicate saw them, whatever happens to the live rows. */
static void test_simulation_snapshot(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, fill);
	tph_idx q1 = pts_queue(&p, "q1"), t3 = pts_task(&p, "ns/j1-t-3");
	assert_false(tph_sim_allocatable(p.s, q1, t3)); /* no PrePredicate yet */
	assert_int_equal(tph_prepredicate(p.s, t3), TPH_PASS);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	allocate(&p, &st, "ns/j1-t-0");
	allocate(&p, &st, "ns/j1-t-1");
	allocate(&p, &st, "ns/j1-t-2");
	assert_false(tph_allocatable(p.s, q1, t3));
	assert_true(tph_sim_allocatable(p.s, q1, t3)); /* snapshot: nothing allocated */
	assert_int_equal(tph_sim_add_task(p.s, t3, pts_task(&p, "ns/j1-t-4"), 0), TPH_OK);
	assert_false(tph_sim_allocatable(p.s, q1, t3)); /* 6 + 1 */
	assert_int_equal(tph_sim_remove_task(p.s, t3, pts_task(&p, "ns/j1-t-4"), 0), TPH_OK);
	assert_true(tph_sim_allocatable(p.s, q1, t3));
	assert_int_equal(tph_prepredicate(p.s, t3), TPH_PASS);
	assert_false(tph_sim_allocatable(p.s, q1, t3)); /* a new snapshot: 3 allocated */
	tph_stmt_discard(&st);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_water_filling),
	    cmocka_unit_test(test_closed_queue),
	    cmocka_unit_test(test_guarantee_and_real_capability),
	    cmocka_unit_test(test_enqueue),
	    cmocka_unit_test(test_reclaimable),
	    cmocka_unit_test(test_simulation_snapshot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

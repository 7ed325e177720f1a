/* Unit tests for plugins/gang.c: validity by minMember and minTaskMember, readiness and
 * pipelining (best-effort pending tasks count), starving, the not-ready-first job order,
 * victims only above minMember, and the close-time Unschedulable mark. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

#define HEAD                     \
	"conf: |\n"              \
	"  actions: \"\"\n"      \
	"  tiers:\n"             \
	"  - plugins:\n"         \
	"    - name: gang\n"     \
	"queues: [{name: q1}]\n" \
	"nodes:\n"               \
	"  - {name: n1, allocatable: {cpu: '8', memory: 8Gi, pods: '20'}}\n"

#define POD(name, pg, extra) \
	"  - {name: " name ", namespace: ns, podGroup: " pg ", requests: {cpu: '1'}" extra "}\n"
#define RUNNING ", phase: Running, nodeName: n1"

static const char jobs[] = HEAD
    "podGroups:\n"
    "  - {name: short, namespace: ns, queue: q1, minMember: 3}\n"
    "  - {name: roles, namespace: ns, queue: q1, minMember: 3,"
    " minTaskMember: {master: 1, worker: 2}}\n"
    "  - {name: loose, namespace: ns, queue: q1, minMember: 1,"
    " minTaskMember: {master: 1, worker: 2}}\n"
    "  - {name: pair, namespace: ns, queue: q1, minMember: 2}\n"
    "  - {name: empty, namespace: ns, queue: q1, minMember: 1}\n"
    "pods:\n" POD("short-0", "short", RUNNING) POD("short-1", "short", "")
        POD("roles-m", "roles", ", taskSpec: master") POD("roles-w0", "roles", ", taskSpec: worker")
            POD("roles-w1", "roles", ", taskSpec: worker, phase: Failed")
                POD("loose-w", "loose", ", taskSpec: worker") POD("pair-0", "pair", RUNNING)
                    POD("pair-1", "pair", "");

static void test_job_valid(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, jobs);
	tph_valid_result r = {0};
	assert_int_equal(tph_job_valid(p.s, pts_job(&p, "ns/short"), &r), TPH_EINVAL);
	assert_string_equal(r.reason, "NotEnoughTasks");
	assert_string_equal(r.message,
	                    "Not enough valid tasks for gang-scheduling, valid: 2, min: 3");
	/* A Failed worker is not valid: one worker of two. */
	assert_int_equal(tph_job_valid(p.s, pts_job(&p, "ns/roles"), &r), TPH_EINVAL);
	assert_string_equal(r.reason, "NotEnoughPodsOfTask");
	/* minMember below the sum of the role minimums: roles are not checked. */
	assert_int_equal(tph_job_valid(p.s, pts_job(&p, "ns/loose"), NULL), TPH_OK);
	assert_int_equal(tph_job_valid(p.s, pts_job(&p, "ns/pair"), NULL), TPH_OK);
	pts_free(&p);
}

static void test_ready_pipelined_starving(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, jobs);
	tph_idx pair = pts_job(&p, "ns/pair"), t = pts_task(&p, "ns/pair-1");
	assert_false(tph_job_ready(p.s, pair));
	assert_false(tph_job_pipelined(p.s, pair));
	assert_true(tph_job_starving(p.s, pair));
	pts_set_status(&p, t, TPH_TS_PIPELINED);
	assert_false(tph_job_ready(p.s, pair));
	assert_true(tph_job_pipelined(p.s, pair));
	assert_false(tph_job_starving(p.s, pair));
	pts_set_status(&p, t, TPH_TS_ALLOCATED);
	assert_true(tph_job_ready(p.s, pair));
	pts_free(&p);
}

static const char roles_ready[] = HEAD
    "podGroups:\n"
    "  - {name: r, namespace: ns, queue: q1, minMember: 2,"
    " minTaskMember: {master: 1, worker: 1}}\n"
    "  - {name: be, namespace: ns, queue: q1, minMember: 2}\n"
    "pods:\n" POD("r-m", "r", ", taskSpec: master") POD("r-w0", "r", ", taskSpec: worker" RUNNING)
        POD("r-w1", "r", ", taskSpec: worker" RUNNING)
            POD("be-0", "be", RUNNING) "  - {name: be-1, namespace: ns, podGroup: be}\n";

static void test_roles_and_best_effort(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, roles_ready);
	tph_idx r = pts_job(&p, "ns/r"), be = pts_job(&p, "ns/be");
	/* Two workers run (2 >= minMember) but the master role is short. */
	assert_false(tph_job_ready(p.s, r));
	assert_false(tph_job_pipelined(p.s, r));
	/* Starving looks at minMember only. */
	assert_false(tph_job_starving(p.s, r));
	pts_set_status(&p, pts_task(&p, "ns/r-m"), TPH_TS_PIPELINED);
	assert_false(tph_job_ready(p.s, r));
	assert_true(tph_job_pipelined(p.s, r));
	/* A pending best-effort task needs no node: the job is ready, yet starving. */
	assert_true(tph_job_ready(p.s, be));
	assert_true(tph_job_starving(p.s, be));
	pts_free(&p);
}

static void test_job_order_not_ready_first(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, roles_ready);
	tph_idx r = pts_job(&p, "ns/r"), be = pts_job(&p, "ns/be");
	/* be is ready, r is ready by count (its roles do not matter to the order). */
	assert_int_equal(tph_job_order_cmp_plugins(p.s, r, be), 0);
	pts_set_status(&p, pts_task(&p, "ns/r-w1"), TPH_TS_PENDING);
	assert_true(tph_job_order_cmp_plugins(p.s, r, be) < 0);
	assert_true(tph_job_order_cmp_plugins(p.s, be, r) > 0);
	pts_free(&p);
}

static const char three[] =
    HEAD "podGroups:\n"
         "  - {name: g, namespace: ns, queue: q1, minMember: 2}\n"
         "  - {name: h, namespace: ns, queue: q1, minMember: 1}\n"
         "  - {name: x, namespace: ns, queue: q1, minMember: 1}\n"
         "pods:\n" POD("g-0", "g", RUNNING) POD("g-1", "g", RUNNING) POD("g-2", "g", RUNNING)
             POD("h-0", "h", RUNNING) POD("h-1", "h", RUNNING) POD("x-0", "x", "");

static void test_victims_above_min_member(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, three);
	tph_idx c[5] = {pts_task(&p, "ns/g-0"), pts_task(&p, "ns/h-0"), pts_task(&p, "ns/g-1"),
	                pts_task(&p, "ns/g-2"), pts_task(&p, "ns/h-1")};
	tph_idx out[5], x = pts_task(&p, "ns/x-0");
	/* g keeps 2 of 3, h keeps 1 of 2: the first of each job's candidates go. */
	assert_int_equal(tph_preemptable(p.s, x, c, 5, out), 2);
	assert_int_equal(out[0], c[0]);
	assert_int_equal(out[1], c[1]);
	/* Each call counts afresh; Reclaimable is the same rule. */
	assert_int_equal(tph_reclaimable(p.s, x, c, 5, out), 2);
	tph_idx only_h[1] = {c[4]};
	pts_set_status(&p, c[1], TPH_TS_RELEASING);
	assert_int_equal(tph_preemptable(p.s, x, only_h, 1, out), 0);
	pts_free(&p);
}

static const char closing[] =
    HEAD "podGroups:\n"
         "  - {name: ready, namespace: ns, queue: q1, minMember: 1}\n"
         "  - {name: short, namespace: ns, queue: q1, minMember: 2}\n"
         "  - {name: leaving, namespace: ns, queue: q1, minMember: 2}\n"
         "  - {name: replaced, namespace: ns, queue: q1, minMember: 2}\n"
         "  - {name: none, namespace: ns, queue: q1, minMember: 1}\n"
         "pods:\n" POD("ready-0", "ready", RUNNING) POD("short-0", "short", RUNNING)
             POD("short-1", "short", "") POD("leaving-0", "leaving", RUNNING)
                 POD("leaving-1", "leaving", RUNNING ", deleting: true")
                     POD("replaced-0", "replaced", RUNNING ", deleting: true")
                         POD("replaced-1", "replaced", RUNNING) POD("replaced-2", "replaced", "");

static void test_close_marks_unready_jobs(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, closing);
	assert_int_equal(tph_session_close(p.s, &p.d), TPH_OK);
	const uint8_t *u = p.s->js.unschedulable;
	assert_false(u[pts_job(&p, "ns/ready")]);
	assert_true(u[pts_job(&p, "ns/short")]);
	/* Releasing tasks still on a node cover minMember: no condition. */
	assert_false(u[pts_job(&p, "ns/leaving")]);
	/* ... unless a pending task still needs scheduling. */
	assert_true(u[pts_job(&p, "ns/replaced")]);
	/* Jobs without tasks are skipped. */
	assert_false(u[pts_job(&p, "ns/none")]);
	/* Running tasks in an unschedulable job: phase Unknown. */
	assert_int_equal(p.s->js.phase[pts_job(&p, "ns/short")], TPH_PG_UNKNOWN);
	pts_free(&p);
}

/* Two subgroups of two by the grp label; minSubGroups from the test. */
#define SUBGROUPS(min)                                                                           \
	HEAD "podGroups:\n"                                                                      \
	     "  - {name: sg, namespace: ns, queue: q1, minMember: 2, subGroupPolicy: [{name: w," \
	     " subGroupSize: 2, minSubGroups: " min ", matchLabelKeys: [grp]}]}\n"               \
	     "pods:\n" POD("a0", "sg", ", labels: {grp: a}" RUNNING)                             \
	         POD("a1", "sg", ", labels: {grp: a}" RUNNING)                                   \
	             POD("b0", "sg", ", labels: {grp: b}") POD("b1", "sg", ", labels: {grp: b}") \
	                 POD("lone", "sg", "")

static void test_subgroup_minimums(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, SUBGROUPS("3"));
	tph_valid_result r = {0};
	assert_int_equal(tph_job_valid(p.s, pts_job(&p, "ns/sg"), &r), TPH_EINVAL);
	assert_string_equal(r.message,
	                    "Not enough valid subGroups of each task for gang-scheduling");
	pts_free(&p);

	pts_open(&p, SUBGROUPS("2"));
	tph_idx sg = pts_job(&p, "ns/sg"), b0 = pts_task(&p, "ns/b0"), b1 = pts_task(&p, "ns/b1");
	assert_int_equal(tph_job_valid(p.s, sg, NULL), TPH_OK);
	/* minMember is met by a0, a1, but subgroup b is not ready. */
	assert_false(tph_job_ready(p.s, sg));
	assert_false(tph_job_pipelined(p.s, sg));
	pts_set_status(&p, b0, TPH_TS_ALLOCATED);
	pts_set_status(&p, b1, TPH_TS_PIPELINED);
	assert_false(tph_job_ready(p.s, sg));
	assert_true(tph_job_pipelined(p.s, sg));
	pts_set_status(&p, b1, TPH_TS_ALLOCATED);
	assert_true(tph_job_ready(p.s, sg));
	pts_free(&p);
}

static void test_subjob_votes_and_order(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, SUBGROUPS("2"));
	tph_idx sg = pts_job(&p, "ns/sg");
	tph_idx a = tph_task_subjob(p.s, pts_task(&p, "ns/a0"));
	tph_idx b = tph_task_subjob(p.s, pts_task(&p, "ns/b0"));
	assert_int_equal(tph_task_subjob(p.s, pts_task(&p, "ns/a1")), a);
	assert_true(a != b);
	assert_true(tph_subjob_ready(p.s, sg, a));
	assert_false(tph_subjob_ready(p.s, sg, b));
	assert_false(tph_subjob_pipelined(p.s, sg, b));
	/* Not-ready subjobs first. */
	assert_true(tph_subjob_order(p.s, b, a) < 0);
	assert_true(tph_subjob_order(p.s, a, b) > 0);
	pts_set_status(&p, pts_task(&p, "ns/b0"), TPH_TS_PIPELINED);
	pts_set_status(&p, pts_task(&p, "ns/b1"), TPH_TS_ALLOCATED);
	assert_false(tph_subjob_ready(p.s, sg, b));
	assert_true(tph_subjob_pipelined(p.s, sg, b));
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_job_valid),
	    cmocka_unit_test(test_ready_pipelined_starving),
	    cmocka_unit_test(test_roles_and_best_effort),
	    cmocka_unit_test(test_job_order_not_ready_first),
	    cmocka_unit_test(test_victims_above_min_member),
	    cmocka_unit_test(test_close_marks_unready_jobs),
	    cmocka_unit_test(test_subgroup_minimums),
	    cmocka_unit_test(test_subjob_votes_and_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

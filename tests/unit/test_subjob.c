/* Unit tests for the subjob partition (kernel/src/subjob*.c): policies matched by label
 * selector and matchLabelKeys, one subjob per value tuple, the default subjob, Volcano's order
 * (MatchIndex, then UID), long ids, MinAvailable, and the counters the task-move hook keeps
 * behind SubJobInfo.IsReady/IsPipelined and JobInfo's subjob checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hypernode.h"
#include "plugin_test_session.h"
#include "statement.h"

#define HEAD                                                                   \
	"conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: gang\n" \
	"queues: [{name: q1}]\n"                                               \
	"nodes: [{name: n1, allocatable: {cpu: '64', memory: 64Gi, pods: '100'}}]\n"

#define POD(name, more) "  - {name: " name ", namespace: c1, podGroup: pg" more "}\n"

static const char scn[] =
    HEAD "podGroups:\n"
         "  - name: pg\n"
         "    namespace: c1\n"
         "    queue: q1\n"
         "    minMember: 3\n"
         "    subGroupPolicy:\n"
         "      - {name: w, subGroupSize: 2, minSubGroups: 2, matchLabelKeys: [idx],"
         " labelSelector: {matchLabels: {role: worker}}}\n"
         "      - {name: ps, minSubGroups: 1, matchLabelKeys: [idx, zone]}\n"
         "      - {name: none, minSubGroups: 0}\n"
         "pods:\n" POD("w-a", ", labels: {role: worker, idx: '1'}, requests: {cpu: '1'}")
             POD("w-b", ", labels: {role: worker, idx: '1'}, requests: {cpu: '2'}")
                 POD("w-c", ", labels: {role: worker, idx: '0'}, requests: {cpu: '4'}")
                     POD("m", ", labels: {role: master, idx: '7', zone: a}, requests: {cpu: '1'}")
                         POD("x", ", labels: {role: worker}, requests: {cpu: '1'}")
                             POD("y", ", labels: {role: worker, idx: ''}")
                                 POD("be", ", labels: {idx: '7', zone: a}");

static tph_idx sj_of(const pts *p, const char *task)
{
	return tph_task_subjob(p->s, pts_task(p, task));
}

static void test_partition(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, scn);
	const tph_subjobs *o = tph_subjobs_of(p.s);
	tph_idx j = pts_job(&p, "c1/pg"), first;
	assert_int_equal(tph_job_subjobs(p.s, j, &first), 4);
	assert_true(tph_job_has_subjob_policy(p.s, j));
	/* MatchIndex then UID: default (0, "c1/pg"), w-0 (0), w-1 (1), ps-7-a (7) */
	assert_string_equal(o->uid[first], "c1/pg");
	assert_string_equal(o->uid[first + 1], "c1/pg/w-0");
	assert_string_equal(o->uid[first + 2], "c1/pg/w-1");
	assert_string_equal(o->uid[first + 3], "c1/pg/ps-7-a");
	assert_int_equal(o->match_index[first + 3], 7);
	/* selector fails: next policy; missing or empty value: default subjob */
	assert_int_equal(sj_of(&p, "c1/w-a"), first + 2);
	assert_int_equal(sj_of(&p, "c1/w-b"), first + 2);
	assert_int_equal(sj_of(&p, "c1/w-c"), first + 1);
	assert_int_equal(sj_of(&p, "c1/m"), first + 3);
	assert_int_equal(sj_of(&p, "c1/be"), first + 3);
	assert_int_equal(sj_of(&p, "c1/x"), first);
	assert_int_equal(sj_of(&p, "c1/y"), first);
	assert_int_equal(o->policy[first], TPH_NOIDX);
	assert_int_equal(o->policy[first + 3], 1);
	/* MinAvailable: the default is 1 with policies; subGroupSize otherwise */
	assert_int_equal(o->min_available[first], 1);
	assert_int_equal(o->min_available[first + 1], 2);
	assert_int_equal(o->min_available[first + 3], 1);
	assert_int_equal(o->task_off[first + 3] - o->task_off[first + 2], 2);
	assert_int_equal(o->task[o->task_off[first + 2]], pts_task(&p, "c1/w-a"));
	assert_int_equal(tph_session_subjob_job(p.s, first), j);
	assert_int_equal(tph_session_task_subjob(p.s, pts_task(&p, "c1/x")), first);
	int64_t row[TPH_RES_MAX];
	tph_subjob_min_resources(p.s, first + 2, row);
	assert_int_equal(row[TPH_RES_CPU], 3000);
	assert_int_equal(row[TPH_RES_PODS], 0);
	pts_free(&p);
}

static void test_counters(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, scn);
	tph_idx j = pts_job(&p, "c1/pg"), first, n1 = 0;
	tph_job_subjobs(p.s, j, &first);
	assert_true(tph_job_subjobs_valid(p.s, j));
	assert_false(tph_job_subjobs_ready(p.s, j));
	/* a pending best-effort task counts as ready: ps-7-a (MinAvailable 1) is */
	assert_true(tph_subjob_is_ready(p.s, first + 3));
	assert_false(tph_subjob_is_ready(p.s, first + 2));
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/w-a"), n1), TPH_OK);
	assert_false(tph_subjob_is_ready(p.s, first + 2));
	assert_int_equal(tph_stmt_pipeline(&st, pts_task(&p, "c1/w-b"), n1), TPH_OK);
	assert_false(tph_subjob_is_ready(p.s, first + 2));
	assert_true(tph_subjob_is_pipelined(p.s, first + 2));
	assert_int_equal(tph_subjob_allocated_num(p.s, first + 2), 1);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/w-c"), n1), TPH_OK);
	assert_false(tph_job_subjobs_ready(p.s, j)); /* w-0 needs 2, has 1 */
	assert_false(tph_job_subjobs_pipelined(p.s, j));
	tph_stmt_discard(&st);
	assert_int_equal(tph_subjob_ready_num(p.s, first + 2), 0);
	assert_int_equal(tph_subjob_allocated_num(p.s, first + 1), 0);
	pts_free(&p);
}

static void test_minimums(void **state)
{
	(void)state;
	pts p;
	/* minSubGroups 3 with two worker subjobs: not valid */
	pts_open(&p, HEAD "podGroups:\n"
	                  "  - {name: pg, namespace: c1, queue: q1, subGroupPolicy: [{name: w,"
	                  " minSubGroups: 3, matchLabelKeys: [idx]}]}\n"
	                  "pods:\n" POD("a", ", labels: {idx: '1'}, phase: Running, nodeName: n1")
	                      POD("b", ", labels: {idx: '2'}, phase: Running, nodeName: n1"));
	tph_idx j = pts_job(&p, "c1/pg");
	assert_false(tph_job_subjobs_valid(p.s, j));
	assert_false(tph_job_subjobs_ready(p.s, j));
	pts_free(&p);
}

static void test_default_only(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HEAD "podGroups:\n"
	                  "  - {name: pg, namespace: c1, queue: q1, minMember: 2}\n"
	                  "  - {name: empty, namespace: c1, queue: q1}\n"
	                  "pods:\n" POD("a", ", priority: 5") POD("b", ", priority: -3"));
	const tph_subjobs *o = tph_subjobs_of(p.s);
	tph_idx j = pts_job(&p, "c1/pg"), first;
	assert_int_equal(tph_job_subjobs(p.s, j, &first), 1);
	assert_int_equal(o->min_available[first], 2);
	assert_int_equal(o->priority[first], 5);
	assert_string_equal(o->uid[first], "c1/pg");
	assert_false(tph_job_has_subjob_policy(p.s, j));
	assert_true(tph_job_subjobs_ready(p.s, j)); /* no policy: nothing to check */
	assert_int_equal(tph_job_subjobs(p.s, pts_job(&p, "c1/empty"), &first), 0);
	pts_free(&p);
}

static void test_long_ids(void **state)
{
	(void)state;
	pts p;
	char v[140];
	memset(v, 'v', sizeof v - 1);
	v[sizeof v - 1] = 0;
	char buf[2048];
	snprintf(buf, sizeof buf,
	         HEAD "podGroups:\n"
	              "  - {name: pg, namespace: c1, queue: q1, subGroupPolicy: [{name: w,"
	              " matchLabelKeys: [k]}]}\n"
	              "pods:\n" POD("a", ", labels: {k: %s}"),
	         v);
	pts_open(&p, buf);
	const tph_subjobs *o = tph_subjobs_of(p.s);
	const char *uid = o->uid[sj_of(&p, "c1/a")];
	/* the id's FNV-32a hash, 2130116065, through rand.SafeEncodeString */
	assert_string_equal(uid, "c1/pg/w-657455b4b9");
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_partition), cmocka_unit_test(test_counters),
	    cmocka_unit_test(test_minimums),  cmocka_unit_test(test_default_only),
	    cmocka_unit_test(test_long_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

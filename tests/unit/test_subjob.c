/* Unit tests for the subjob partition (kernel/src/subjob*.c): policies matched by label
 * selector and matchLabelKeys, one subjob per value tuple, the default subjob, Volcano's order
 * (MatchIndex, then UID), long ids, MinAvailable, and the counters the task-move hook keeps
 * behind SubJobInfo.IsReady/IsPipelined and JobInfo's subjob checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "session/topo/hypernode.h"
#include "plugin_test_session.h"
#include "session/statement.h"

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
	assert_string_equal(tph_subjob_uid(p.s, first), "c1/pg");
	assert_string_equal(tph_subjob_uid(p.s, first + 1), "c1/pg/w-0");
	assert_string_equal(tph_subjob_uid(p.s, first + 2), "c1/pg/w-1");
	assert_string_equal(tph_subjob_uid(p.s, first + 3), "c1/pg/ps-7-a");
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
	assert_string_equal(tph_subjob_uid(p.s, first), "c1/pg");
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

/* Without any subGroupPolicy the partition is built from the job store (no per-task work);
 * with one policy somewhere it takes the general path. Jobs without policies must come out the
 * same either way, and stay the same as tasks move. */
#define SIMPLE_CONF "conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: gang\n"
#define SIMPLE_JOBS                                                                  \
	"queues: [{name: q1}, {name: default}]\n"                                    \
	"nodes: [{name: n1, allocatable: {cpu: '64', memory: 64Gi, pods: '100'}}]\n" \
	"podGroups:\n"                                                               \
	"  - {name: a, namespace: c1, queue: q1, minMember: 2}\n"                    \
	"  - {name: none, namespace: c1, queue: q1}\n"                               \
	"  - {name: b, namespace: c1, queue: q1, minMember: 3}\n"
#define SIMPLE_PODS                                                                            \
	"pods:\n"                                                                              \
	"  - {name: a1, namespace: c1, podGroup: a, priority: 4, requests: {cpu: '1'}}\n"      \
	"  - {name: b1, namespace: c1, podGroup: b, phase: Running, nodeName: n1,"             \
	" requests: {cpu: '2'}}\n"                                                             \
	"  - {name: a2, namespace: c1, podGroup: a, priority: 9}\n"                            \
	"  - {name: b2, namespace: c1, podGroup: b, phase: Succeeded, requests: {cpu: '1'}}\n" \
	"  - {name: b3, namespace: c1, podGroup: b, requests: {cpu: '1'}}\n"                   \
	"  - {name: bare, namespace: c1, requests: {cpu: '1'}}\n"

static const char *const simple_tasks[] = {"c1/a1", "c1/b1", "c1/a2", "c1/b2", "c1/b3", "c1/bare"};

static const char *task_key(const pts *p, tph_idx t)
{
	static char buf[2][64];
	static int i;
	i ^= 1;
	snprintf(buf[i], sizeof buf[i], "%s/%s", pts_str(p->s, p->s->tasks.ns[t]),
	         pts_str(p->s, p->s->tasks.name[t]));
	return buf[i];
}

static void same_subjob(const pts *a, tph_idx ka, const pts *b, tph_idx kb)
{
	const tph_subjobs *x = tph_subjobs_of(a->s), *y = tph_subjobs_of(b->s);
	assert_int_equal(x->policy[ka], TPH_NOIDX);
	assert_int_equal(y->policy[kb], TPH_NOIDX);
	assert_int_equal(x->min_available[ka], y->min_available[kb]);
	assert_int_equal(x->priority[ka], y->priority[kb]);
	assert_int_equal(x->be_pending[ka], y->be_pending[kb]);
	assert_int_equal(x->topo_has[ka], y->topo_has[kb]);
	assert_int_equal(x->topo_tier[ka], y->topo_tier[kb]);
	assert_string_equal(tph_subjob_uid(a->s, ka), tph_subjob_uid(b->s, kb));
	assert_memory_equal(tph_subjob_counts(a->s, ka), tph_subjob_counts(b->s, kb),
	                    TPH_TS_COUNT * sizeof(uint32_t));
	uint32_t n = x->task_off[ka + 1] - x->task_off[ka];
	assert_int_equal(n, y->task_off[kb + 1] - y->task_off[kb]);
	for (uint32_t i = 0; i < n; i++)
		assert_string_equal(task_key(a, x->task[x->task_off[ka] + i]),
		                    task_key(b, y->task[y->task_off[kb] + i]));
}

static void same_partition(const pts *a, const pts *b)
{
	for (size_t i = 0; i < sizeof simple_tasks / sizeof *simple_tasks; i++) {
		tph_idx ka = sj_of(a, simple_tasks[i]), kb = sj_of(b, simple_tasks[i]);
		assert_int_not_equal(ka, TPH_NOIDX);
		assert_int_not_equal(kb, TPH_NOIDX);
		same_subjob(a, ka, b, kb);
	}
}

static void test_simple_matches_general(void **state)
{
	(void)state;
	pts a, b;
	pts_open(&a, SIMPLE_CONF SIMPLE_JOBS SIMPLE_PODS);
	pts_open(&b, SIMPLE_CONF SIMPLE_JOBS
	         "  - {name: zz, namespace: c1, queue: q1, subGroupPolicy: [{name: w,"
	         " matchLabelKeys: [idx]}]}\n" SIMPLE_PODS
	         "  - {name: z1, namespace: c1, podGroup: zz}\n");
	assert_null(tph_subjobs_of(a.s)->of_task); /* the simple path ran */
	assert_non_null(tph_subjobs_of(b.s)->of_task);
	/* a's counts are read through the jobs, b's kept (zz has policies, the others not) */
	assert_null(tph_subjobs_of(a.s)->count);
	assert_non_null(tph_subjobs_of(b.s)->count);
	assert_int_equal(tph_job_subjobs(a.s, pts_job(&a, "c1/none"), &(tph_idx){0}), 0);
	assert_int_equal(tph_job_subjobs(b.s, pts_job(&b, "c1/none"), &(tph_idx){0}), 0);
	assert_int_equal(tph_task_subjob(a.s, a.s->tasks.n), TPH_NOIDX);
	same_partition(&a, &b);
	/* the task-move hook keeps both current */
	tph_statement sa, sb;
	tph_stmt_init(&sa, a.s);
	tph_stmt_init(&sb, b.s);
	assert_int_equal(tph_stmt_allocate(&sa, pts_task(&a, "c1/b3"), 0), TPH_OK);
	assert_int_equal(tph_stmt_allocate(&sb, pts_task(&b, "c1/b3"), 0), TPH_OK);
	assert_int_equal(tph_stmt_pipeline(&sa, pts_task(&a, "c1/a2"), 0), TPH_OK);
	assert_int_equal(tph_stmt_pipeline(&sb, pts_task(&b, "c1/a2"), 0), TPH_OK);
	assert_int_equal(tph_subjob_allocated_num(a.s, sj_of(&a, "c1/b3")), 2);
	same_partition(&a, &b);
	tph_stmt_discard(&sa);
	tph_stmt_discard(&sb);
	same_partition(&a, &b);
	pts_free(&a);
	pts_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_partition), cmocka_unit_test(test_counters),
	    cmocka_unit_test(test_minimums),  cmocka_unit_test(test_default_only),
	    cmocka_unit_test(test_long_ids),  cmocka_unit_test(test_simple_matches_general),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

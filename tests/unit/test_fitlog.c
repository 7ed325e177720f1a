/* The fit log (session/fitlog.h): reasons counted per node and formatted at close, task-level
 * reasons and the skip message, unresolvable nodes, the failed roles derived from the records
 * (per job and per subjob), the per-role error cache with its passes, the pending rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "harness.h"

#include "session/fitlog.h"

/* Three nodes; job pg with roles w (a, b), m (c) and none (d); job other with role w (e); f
 * runs on n1. No action runs: the tests record and read themselves. */
static const char cluster[] =
    "conf: |\n"
    "  actions: \"\"\n"
    "  tiers: [{plugins: [{name: predicates}]}]\n"
    "queues: [{name: q1}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '20'}}\n"
    "  - {name: n2, allocatable: {cpu: '4', memory: 8Gi, pods: '20'}}\n"
    "  - {name: n3, allocatable: {cpu: '4', memory: 8Gi, pods: '20'}}\n"
    "podGroups:\n"
    "  - {name: pg, namespace: ns, queue: q1, minMember: 1, phase: Inqueue}\n"
    "  - {name: other, namespace: ns, queue: q1, minMember: 1, phase: Inqueue}\n"
    "pods:\n"
    "  - {name: a, namespace: ns, podGroup: pg, requests: {cpu: '1'}, taskSpec: w}\n"
    "  - {name: b, namespace: ns, podGroup: pg, requests: {cpu: '1'}, taskSpec: w}\n"
    "  - {name: c, namespace: ns, podGroup: pg, requests: {cpu: '1'}, taskSpec: m}\n"
    "  - {name: d, namespace: ns, podGroup: pg, requests: {cpu: '1'}}\n"
    "  - {name: e, namespace: ns, podGroup: other, requests: {cpu: '1'}, taskSpec: w}\n"
    "  - {name: f, namespace: ns, podGroup: other, requests: {cpu: '1'}, phase: Running, "
    "nodeName: n1}\n";

static const tph_pending_row *row_of(const tph_decision_log *l, const char *pod)
{
	for (uint32_t i = 0; i < l->n_pending; i++)
		if (!strcmp(l->pending[i].pod, pod))
			return &l->pending[i];
	fail_msg("%s is not pending", pod);
	static const tph_pending_row none = {"", NULL, 0};
	return &none;
}

static const tph_decision_log *close_log(pts *p)
{
	assert_int_equal(tph_session_close(p->s, &p->d), TPH_OK);
	return tph_session_decisions(p->s);
}

static int setup(void **state)
{
	pts *p = malloc(sizeof *p);
	assert_non_null(p);
	pts_open(p, cluster);
	*state = p;
	return 0;
}

static int teardown(void **state)
{
	pts_free(*state);
	free(*state);
	return 0;
}

/* An UnschedulableAndUnresolvable reason and one that is not. */
static tph_reason_code fenced_off(tph_session *s)
{
	return tph_reason(s, "node(s) were fenced off", true);
}

static tph_reason_code busy_nodes(tph_session *s)
{
	return tph_reason(s, "node(s) were busy", false);
}

/* ---- reasons ---- */

/* Failures counted per reason in code order, TPH_PASS not counted, a new record replacing the
 * old; tasks failing alike share one set of strings. */
static void test_reasons_counted_per_node(void **state)
{
	pts *p = *state;
	tph_session *s = p->s;
	tph_reason_code cpu = tph_reason_insufficient(s, TPH_RES_CPU);
	tph_reason_code fenced = fenced_off(s);
	tph_idx a = pts_task(p, "ns/a"), b = pts_task(p, "ns/b"), c = pts_task(p, "ns/c");
	const tph_idx nodes[3] = {0, 1, 2};
	const tph_reason_code first[3] = {fenced, fenced, fenced};
	const tph_reason_code codes[3] = {fenced, cpu, cpu};
	const tph_reason_code some[3] = {TPH_PASS, cpu, TPH_PASS};
	assert_int_equal(tph_fitlog_nodes(s, a, nodes, first, 3), TPH_OK);
	assert_int_equal(tph_fitlog_nodes(s, a, nodes, codes, 3), TPH_OK);
	assert_int_equal(tph_fitlog_nodes(s, b, nodes, codes, 3), TPH_OK);
	assert_int_equal(tph_fitlog_nodes(s, c, nodes, some, 3), TPH_OK);
	const tph_decision_log *l = close_log(p);
	const tph_pending_row *ra = row_of(l, "ns/a"), *rb = row_of(l, "ns/b");
	assert_int_equal(ra->n_reasons, 2);
	assert_string_equal(ra->reasons[0], "2 Insufficient cpu");
	assert_string_equal(ra->reasons[1], "1 node(s) were fenced off");
	assert_ptr_equal(ra->reasons, rb->reasons);
	assert_int_equal(row_of(l, "ns/c")->n_reasons, 1);
	assert_string_equal(row_of(l, "ns/c")->reasons[0], "1 Insufficient cpu");
}

/* A task-level reason and the skip message replace what was there; forgetting the reasons
 * leaves the row empty. */
static void test_task_level_reasons(void **state)
{
	pts *p = *state;
	tph_session *s = p->s;
	tph_idx a = pts_task(p, "ns/a"), b = pts_task(p, "ns/b"), c = pts_task(p, "ns/c");
	assert_int_equal(tph_fitlog_skip(s, a), TPH_OK);
	assert_int_equal(tph_fitlog_skip(s, b), TPH_OK);
	assert_int_equal(tph_fitlog_text(s, b, "queue q1 is overused"), TPH_OK);
	assert_int_equal(tph_fitlog_text(s, c, "queue q1 is overused"), TPH_OK);
	assert_true(tph_fitlog_has(s, c));
	tph_fitlog_forget(s, c, TPH_FIT_REASONS);
	assert_false(tph_fitlog_has(s, c));
	const tph_decision_log *l = close_log(p);
	assert_string_equal(row_of(l, "ns/a")->reasons[0],
	                    "Task a with role spec w has already predicated failed, skip");
	assert_int_equal(row_of(l, "ns/b")->n_reasons, 1);
	assert_string_equal(row_of(l, "ns/b")->reasons[0], "queue q1 is overused");
	assert_int_equal(row_of(l, "ns/c")->n_reasons, 0);
}

/* Rows for the tasks still Pending, in task order; a task without a record has none. */
static void test_pending_rows(void **state)
{
	pts *p = *state;
	pts_set_status(p, pts_task(p, "ns/e"), TPH_TS_ALLOCATED);
	const tph_decision_log *l = close_log(p);
	const char *want[] = {"ns/a", "ns/b", "ns/c", "ns/d"};
	assert_int_equal(l->n_pending, 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_string_equal(l->pending[i].pod, want[i]);
		assert_int_equal(l->pending[i].n_reasons, 0);
	}
	assert_false(tph_fitlog_has(p->s, pts_task(p, "ns/a"))); /* dropped at close */
}

/* ---- unresolvable nodes ---- */

/* Only unresolvable failures are kept; equal lists share storage; a record replaces the last;
 * forgetting the nodes keeps the reasons; ResetFitErr forgets both. */
static void test_unresolvable_nodes(void **state)
{
	pts *p = *state;
	tph_session *s = p->s;
	tph_reason_code un = fenced_off(s);
	tph_reason_code soft = busy_nodes(s);
	tph_idx a = pts_task(p, "ns/a"), b = pts_task(p, "ns/b"), nodes[2] = {0, 1};
	tph_reason_code codes[2] = {un, soft};
	const tph_idx *got, *got_b;
	assert_int_equal(tph_fitlog_nodes(s, a, nodes, codes, 2), TPH_OK);
	assert_int_equal(tph_fitlog_nodes(s, b, nodes, codes, 2), TPH_OK);
	assert_int_equal(tph_fitlog_unresolvable(s, a, &got), 1);
	assert_int_equal(got[0], 0);
	tph_fitlog_unresolvable(s, b, &got_b);
	assert_ptr_equal(got, got_b);
	tph_fitlog_forget(s, b, TPH_FIT_NODES);
	assert_int_equal(tph_fitlog_unresolvable(s, b, &got), 0);
	assert_true(tph_fitlog_has(s, b));
	codes[0] = soft;
	assert_int_equal(tph_fitlog_nodes(s, a, nodes, codes, 2), TPH_OK);
	assert_int_equal(tph_fitlog_unresolvable(s, a, &got), 0);
	assert_int_equal(tph_fitlog_nodes(s, b, nodes, (tph_reason_code[]){un, un}, 2), TPH_OK);
	tph_fitlog_reset_job(s, pts_job(p, "ns/pg"));
	assert_int_equal(tph_fitlog_unresolvable(s, b, &got), 0);
	assert_false(tph_fitlog_has(s, b));
}

/* Among passes, soft failures and codes past the reason table, the unresolvable nodes are kept
 * in recording order; the passes and unknown codes count for nothing. */
static void test_unresolvable_among_others(void **state)
{
	pts *p = *state;
	tph_session *s = p->s;
	tph_reason_code un = fenced_off(s), soft = busy_nodes(s);
	tph_reason_code unknown = (tph_reason_code)(s->n_reasons + 1);
	tph_idx a = pts_task(p, "ns/a"), b = pts_task(p, "ns/b");
	const tph_idx nodes[5] = {2, 0, 1, 2, 0};
	const tph_reason_code codes[5] = {TPH_PASS, un, unknown, soft, un};
	const tph_reason_code no_un[4] = {TPH_PASS, soft, unknown, soft};
	const tph_idx *got;
	assert_int_equal(tph_fitlog_nodes(s, a, nodes, codes, 5), TPH_OK);
	assert_int_equal(tph_fitlog_unresolvable(s, a, &got), 2);
	assert_int_equal(got[0], 0);
	assert_int_equal(got[1], 0);
	assert_int_equal(tph_fitlog_nodes(s, b, nodes, codes + 1, 4), TPH_OK);
	assert_int_equal(tph_fitlog_unresolvable(s, b, &got), 2);
	assert_int_equal(got[0], 2);
	assert_int_equal(got[1], 2);
	assert_int_equal(tph_fitlog_nodes(s, b, nodes, no_un, 4), TPH_OK);
	assert_int_equal(tph_fitlog_unresolvable(s, b, &got), 0);
	const tph_decision_log *l = close_log(p);
	const tph_pending_row *ra = row_of(l, "ns/a"), *rb = row_of(l, "ns/b");
	assert_int_equal(ra->n_reasons, 2);
	assert_string_equal(ra->reasons[0], "2 node(s) were fenced off");
	assert_string_equal(ra->reasons[1], "1 node(s) were busy");
	assert_int_equal(rb->n_reasons, 1);
	assert_string_equal(rb->reasons[0], "2 node(s) were busy");
}

/* ---- failed roles ---- */

static bool role_in_job(pts *p, const char *job, const char *role)
{
	const tph_fit_roles *r = tph_fitlog_failed_roles(p->s, pts_job(p, job), TPH_NOIDX);
	tph_sid sid = TPH_SID_EMPTY;
	for (tph_idx t = 0; *role && t < p->s->tasks.n; t++)
		if (!strcmp(pts_str(p->s, p->s->tasks.role[t]), role))
			sid = p->s->tasks.role[t];
	return tph_fit_roles_has(r, sid);
}

/* FitFailedRoles follow the records, whoever makes or forgets them, once built too. */
static void test_failed_roles_follow_records(void **state)
{
	pts *p = *state;
	tph_session *s = p->s;
	tph_idx a = pts_task(p, "ns/a"), b = pts_task(p, "ns/b"), d = pts_task(p, "ns/d");
	const tph_idx nodes[1] = {0};
	const tph_reason_code codes[1] = {tph_reason_insufficient(s, TPH_RES_CPU)};
	assert_false(role_in_job(p, "ns/pg", "w")); /* built, empty */
	assert_int_equal(tph_fitlog_nodes(s, a, nodes, codes, 1), TPH_OK);
	assert_true(role_in_job(p, "ns/pg", "w"));
	assert_true(tph_fitlog_role_failed(s, b, TPH_NOIDX));
	assert_false(tph_fitlog_role_failed(s, pts_task(p, "ns/c"), TPH_NOIDX));
	assert_false(tph_fitlog_role_failed(s, pts_task(p, "ns/e"), TPH_NOIDX)); /* other job */
	assert_int_equal(tph_fitlog_nodes(s, d, nodes, codes, 1), TPH_OK);
	assert_true(role_in_job(p, "ns/pg", ""));              /* the empty role counts ... */
	assert_false(tph_fitlog_role_failed(s, d, TPH_NOIDX)); /* ... but never skips */
	tph_fitlog_forget(s, a, TPH_FIT_REASONS);
	assert_false(role_in_job(p, "ns/pg", "w"));
	assert_int_equal(tph_fitlog_skip(s, b), TPH_OK); /* a skip is a record too */
	assert_true(tph_fitlog_role_failed(s, a, TPH_NOIDX));
	tph_fitlog_reset_job(s, pts_job(p, "ns/pg"));
	assert_int_equal(tph_fitlog_failed_roles(s, pts_job(p, "ns/pg"), TPH_NOIDX)->n, 0);
	assert_false(tph_fitlog_role_failed(s, a, TPH_NOIDX));
}

/* A job with sub-group policies: the sets of each subjob, its job's, and ResetSubJobFitErr. */
static void test_failed_roles_per_subjob(void **state)
{
	(void)state;
	pts p;
	pts_open(&p,
	         "conf: |\n  actions: \"\"\n  tiers: []\n"
	         "queues: [{name: q1}]\n"
	         "nodes: [{name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '20'}}]\n"
	         "podGroups:\n"
	         "  - {name: sg, namespace: ns, queue: q1, subGroupPolicy: [{name: w,"
	         " matchLabelKeys: [idx]}]}\n"
	         "pods:\n"
	         "  - {name: s0, namespace: ns, podGroup: sg, taskSpec: w, labels: {idx: '0'}}\n"
	         "  - {name: s1, namespace: ns, podGroup: sg, taskSpec: w, labels: {idx: '0'}}\n"
	         "  - {name: s2, namespace: ns, podGroup: sg, taskSpec: w, labels: {idx: '1'}}\n");
	tph_session *s = p.s;
	tph_idx s0 = pts_task(&p, "ns/s0"), s1 = pts_task(&p, "ns/s1"), s2 = pts_task(&p, "ns/s2");
	tph_idx k0 = tph_task_subjob(s, s0), k2 = tph_task_subjob(s, s2);
	assert_int_equal(tph_task_subjob(s, s1), k0);
	assert_int_not_equal(k0, k2);
	assert_false(tph_fitlog_role_failed(s, s1, k0)); /* built, empty */
	assert_int_equal(tph_fitlog_skip(s, s0), TPH_OK);
	assert_true(tph_fitlog_role_failed(s, s1, k0));
	assert_false(tph_fitlog_role_failed(s, s2, k2));
	assert_true(tph_fitlog_role_failed(s, s2, TPH_NOIDX));
	tph_fitlog_reset_subjob(s, k0);
	assert_false(tph_fitlog_role_failed(s, s1, k0));
	assert_false(tph_fitlog_role_failed(s, s2, TPH_NOIDX));
	pts_free(&p);
}

/* ---- the per-role error cache ---- */

/* Exact per (job, role); the first reason stays; a new pass empties it; roleless tasks and a
 * cache turned off keep nothing. */
static void test_cache_per_role_and_pass(void **state)
{
	pts *p = *state;
	tph_session *s = p->s;
	tph_reason_code cpu = tph_reason_insufficient(s, TPH_RES_CPU);
	tph_reason_code fenced = fenced_off(s);
	tph_idx a = pts_task(p, "ns/a"), b = pts_task(p, "ns/b"), c = pts_task(p, "ns/c");
	tph_fit_cache fc;
	tph_fit_cache_init(&fc, s, true, true);
	assert_null(tph_fit_cache_find(&fc, a));
	tph_fit_role *r = tph_fit_cache_get(&fc, a);
	assert_non_null(r);
	assert_false(r->failed);
	tph_fit_role_put(r, 1, cpu);
	tph_fit_role_put(r, 1, fenced);
	assert_ptr_equal(tph_fit_cache_find(&fc, b), r);
	assert_int_equal(tph_fit_role_code(r, 1), cpu);
	assert_int_equal(tph_fit_role_code(r, 0), TPH_PASS);
	assert_null(tph_fit_cache_find(&fc, c));
	assert_null(tph_fit_cache_find(&fc, pts_task(p, "ns/e")));
	assert_false(tph_fit_cache_applies(&fc, pts_task(p, "ns/d")));
	assert_null(tph_fit_cache_get(&fc, pts_task(p, "ns/d")));
	assert_non_null(tph_fit_cache_get(&fc, c));
	tph_fit_cache_pass(&fc);
	assert_null(tph_fit_cache_find(&fc, b));
	r = tph_fit_cache_get(&fc, b);
	assert_false(tph_fit_role_has(r, 1)); /* the entry is back, its columns cleared */
	tph_fit_cache_free(&fc);
	tph_fit_cache_init(&fc, s, false, true);
	assert_null(tph_fit_cache_get(&fc, a));
	tph_fit_cache_free(&fc);
	tph_fit_cache_init(&fc, s, true, false); /* failures alone, as preempt keeps them */
	r = tph_fit_cache_get(&fc, a);
	tph_fit_role_put(r, 2, TPH_PASS);
	assert_true(tph_fit_role_has(r, 2));
	assert_false(tph_fit_role_has(r, 1));
	tph_fit_cache_free(&fc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_reasons_counted_per_node, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_task_level_reasons, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_pending_rows, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unresolvable_nodes, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unresolvable_among_others, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_failed_roles_follow_records, setup, teardown),
	    cmocka_unit_test(test_failed_roles_per_subjob),
	    cmocka_unit_test_setup_teardown(test_cache_per_role_and_pass, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

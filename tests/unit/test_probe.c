/* The public probes (tephra/probe.h) and the profile counters: filtering and scoring outside an
 * action, a statement that allocates and discards without a trace, and what --profile counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "tephra/tephra.h"

/* Three nodes; p1 (3 cpu) fits only n2, p2 (1 cpu) fits all; r1 runs on n1. */
static const char scenario[] =
    "name: probe\n"
    "conf: |\n"
    "  actions: \"\"\n"
    "  tiers: []\n"
    "queues: [{name: q1}]\n"
    "nodes:\n"
    "  - {name: n0, allocatable: {cpu: \"2\", memory: 4Gi, pods: \"10\"}}\n"
    "  - {name: n1, allocatable: {cpu: \"2\", memory: 4Gi, pods: \"10\"}}\n"
    "  - {name: n2, allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}}\n"
    "podGroups: [{name: g, namespace: c, queue: q1, phase: Inqueue}]\n"
    "pods:\n"
    "  - {name: p1, namespace: c, podGroup: g, requests: {cpu: \"3\"}}\n"
    "  - {name: p2, namespace: c, podGroup: g, requests: {cpu: \"1\"}}\n"
    "  - {name: r1, namespace: c, podGroup: g, phase: Running, nodeName: n1,\n"
    "     requests: {cpu: \"1\"}}\n";

typedef struct fixture {
	tph_scenario *scn;
	tph_snapshot *snap;
	tph_session *ssn;
} fixture;

static void open_fixture(fixture *f, bool profile)
{
	tph_diag d = {0};
	memset(f, 0, sizeof *f);
	assert_int_equal(
	    tph_scenario_load_buffer(scenario, sizeof scenario - 1, "probe", &f->scn, &d), TPH_OK);
	assert_int_equal(tph_cluster_snapshot(tph_scenario_cluster(f->scn),
	                                      tph_scenario_now(f->scn), &f->snap, &d),
	                 TPH_OK);
	tph_session_opts o = {.threads = 1, .profile = profile};
	assert_int_equal(tph_session_open(f->snap, tph_scenario_conf(f->scn), &o, &f->ssn, &d),
	                 TPH_OK);
}

static void close_fixture(fixture *f)
{
	tph_session_free(f->ssn);
	tph_snapshot_release(f->snap);
	tph_scenario_free(f->scn);
}

static tph_idx task_named(const tph_session *s, const char *name)
{
	for (tph_idx t = 0; t < tph_session_task_count(s); t++)
		if (!strcmp(tph_session_task_name(s, t), name))
			return t;
	fail_msg("no task %s", name);
	return 0;
}

static void test_filter_and_candidates(void **state)
{
	(void)state;
	fixture f;
	open_fixture(&f, false);
	const tph_idx *cand;
	assert_int_equal(tph_session_candidates(f.ssn, &cand), 3);
	tph_idx feas[3];
	assert_int_equal(tph_session_filter(f.ssn, task_named(f.ssn, "p1"), NULL, 0, feas), 1);
	assert_string_equal(tph_session_node_name(f.ssn, feas[0]), "n2");
	assert_int_equal(tph_session_filter(f.ssn, task_named(f.ssn, "p2"), NULL, 0, feas), 3);
	assert_int_equal(tph_session_filter(f.ssn, task_named(f.ssn, "p2"), cand + 1, 2, feas), 2);
	assert_int_equal(feas[0], cand[1]);
	assert_string_equal(tph_session_task_status(f.ssn, task_named(f.ssn, "r1")), "Running");
	assert_null(tph_session_task_status(f.ssn, 99));
	const tph_profile_row *rows;
	uint32_t n;
	assert_int_equal(tph_session_profile(f.ssn, &rows, &n), TPH_DECLINED);
	assert_int_equal(n, 0);
	close_fixture(&f);
}

static void test_statement_leaves_no_trace(void **state)
{
	(void)state;
	fixture f;
	open_fixture(&f, false);
	tph_idx p2 = task_named(f.ssn, "p2"), r1 = task_named(f.ssn, "r1");
	int64_t idle0 = tph_session_node_idle(f.ssn, 0, 0);
	tph_probe_stmt *st;
	assert_int_equal(tph_probe_stmt_begin(f.ssn, &st), TPH_OK);
	assert_int_equal(tph_probe_stmt_allocate(st, r1, 0), TPH_EINVAL); /* not pending */
	assert_int_equal(tph_probe_stmt_allocate(st, p2, 7), TPH_EINVAL); /* no such node */
	assert_int_equal(tph_probe_stmt_allocate(st, p2, 0), TPH_OK);
	assert_int_equal(tph_session_node_idle(f.ssn, 0, 0), idle0 - 1000);
	assert_string_equal(tph_session_task_status(f.ssn, p2), "Allocated");
	tph_probe_stmt_discard(st);
	assert_int_equal(tph_session_node_idle(f.ssn, 0, 0), idle0);
	assert_string_equal(tph_session_task_status(f.ssn, p2), "Pending");
	assert_int_equal(tph_probe_stmt_allocate(st, p2, 2), TPH_OK); /* reusable */
	tph_probe_stmt_end(st);
	assert_string_equal(tph_session_task_status(f.ssn, p2), "Pending");
	tph_probe_stmt_end(NULL);
	close_fixture(&f);
}

static const tph_profile_row *row(const tph_profile_row *rows, uint32_t n, const char *ep)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(rows[i].ep, ep))
			return &rows[i];
	return NULL;
}

static void test_profile_counts(void **state)
{
	(void)state;
	fixture f;
	open_fixture(&f, true);
	tph_idx feas[3], p2 = task_named(f.ssn, "p2");
	const tph_idx *cand;
	uint32_t nc = tph_session_candidates(f.ssn, &cand);
	tph_session_filter(f.ssn, p2, NULL, 0, feas);
	tph_session_filter(f.ssn, p2, cand, 2, feas);
	double scores[3];
	tph_session_score(f.ssn, p2, cand, nc, scores);
	const tph_profile_row *rows;
	uint32_t n;
	assert_int_equal(tph_session_profile(f.ssn, &rows, &n), TPH_OK);
	const tph_profile_row *pred = row(rows, n, "Predicate"), *order = row(rows, n, "NodeOrder");
	if (!pred || !order) {
		fail_msg("no Predicate or NodeOrder row");
		return;
	}
	assert_int_equal(pred->calls, 2);
	assert_int_equal(pred->nodes, 5);
	assert_int_equal(order->calls, 1);
	assert_int_equal(order->nodes, 3);
	assert_true(pred->ms >= 0.0);
	assert_null(row(rows, n, "JobOrder")); /* never called */
	tph_diag d = {0};
	assert_int_equal(tph_session_run(f.ssn, &d), TPH_OK);
	assert_int_equal(tph_session_close(f.ssn, &d), TPH_OK);
	assert_true(tph_session_bytes(f.ssn) > 0);
	close_fixture(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_filter_and_candidates),
	    cmocka_unit_test(test_statement_leaves_no_trace),
	    cmocka_unit_test(test_profile_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

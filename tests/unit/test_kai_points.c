/* Unit tests for the points reclaim, preempt and consolidation ask (session/kai/kai_points.c):
 * three count only their first registration, none registered has KAI's default answer, and
 * OnJobSolutionStart runs every registration. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kai_fixture.h"

static const char scenario[] =
    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"allocate\"\n"
    "  tiers:\n  - plugins: [{name: priority}]\n"
    "queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, "
    "limit: -1}, memory: {quota: -1, limit: -1}}}]\n"
    "nodes:\n  - {name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
    "podGroups: [{name: j, queue: q}]\n"
    "pods:\n  - {name: j-0, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}}\n";

static void open_kai(kf *f)
{
	kai_load(f, scenario);
	f->s->frozen = false; /* register as a plugin would at open */
}

static bool yes_reclaim(void *st, const tph_kai_session *s, uint32_t job)
{
	(void)s, (void)job;
	++*(int *)st;
	return true;
}

static bool no_reclaim(void *st, const tph_kai_session *s, uint32_t job)
{
	(void)s, (void)job;
	++*(int *)st;
	return false;
}

static bool job_over(void *st, const tph_kai_session *s, uint32_t job, const uint32_t *t,
                     uint32_t n)
{
	(void)s, (void)job, (void)t, (void)n;
	++*(int *)st;
	return false;
}

static bool job_within(void *st, const tph_kai_session *s, uint32_t job, const uint32_t *t,
                       uint32_t n)
{
	(void)s, (void)job, (void)t, (void)n;
	++*(int *)st;
	return true;
}

static bool task_over(void *st, const tph_kai_session *s, uint32_t task, uint32_t node)
{
	(void)s, (void)task, (void)node;
	++*(int *)st;
	return false;
}

static void count_start(void *st, const tph_kai_session *s)
{
	(void)s;
	++*(int *)st;
}

static void test_defaults_with_none_registered(void **state)
{
	(void)state;
	kf f;
	open_kai(&f);
	uint32_t t = 0;
	assert_false(tph_kai_can_reclaim(f.s, 0));
	assert_true(tph_kai_nonpreemptible_within_quota(f.s, 0, &t, 1));
	assert_true(tph_kai_task_within_capacity(f.s, 0, 0));
	tph_kai_job_solution_start(f.s); /* nothing to run, nothing to fail */
	close_kai(&f);
}

static void test_first_registered_only(void **state)
{
	(void)state;
	kf f;
	open_kai(&f);
	int first = 0, second = 0, q1 = 0, q2 = 0, c1 = 0, c2 = 0;
	assert_int_equal(tph_kai_add_can_reclaim(f.s, yes_reclaim, &first), 0);
	assert_int_equal(tph_kai_add_can_reclaim(f.s, no_reclaim, &second), 0);
	assert_int_equal(tph_kai_add_nonpreemptible_quota(f.s, job_over, &q1), 0);
	assert_int_equal(tph_kai_add_nonpreemptible_quota(f.s, job_within, &q2), 0);
	assert_int_equal(tph_kai_add_task_capacity(f.s, task_over, &c1), 0);
	assert_int_equal(tph_kai_add_task_capacity(f.s, task_over, &c2), 0);
	uint32_t t = 0;
	assert_true(tph_kai_can_reclaim(f.s, 0));
	assert_false(tph_kai_nonpreemptible_within_quota(f.s, 0, &t, 1));
	assert_false(tph_kai_task_within_capacity(f.s, 0, 0));
	assert_int_equal(first, 1);
	assert_int_equal(second, 0);
	assert_int_equal(q1, 1);
	assert_int_equal(q2, 0);
	assert_int_equal(c1, 1);
	assert_int_equal(c2, 0);
	close_kai(&f);
}

static void test_solution_start_runs_all(void **state)
{
	(void)state;
	kf f;
	open_kai(&f);
	int a = 0, b = 0;
	assert_int_equal(tph_kai_add_job_solution_start(f.s, count_start, &a), 0);
	assert_int_equal(tph_kai_add_job_solution_start(f.s, count_start, &b), 0);
	tph_kai_job_solution_start(f.s);
	assert_int_equal(a, 1);
	assert_int_equal(b, 1);
	f.s->frozen = true;
	assert_int_equal(tph_kai_add_can_reclaim(f.s, yes_reclaim, &a), TPH_EINVAL);
	close_kai(&f);
}

/* tph_kai_sort_tasks gives the order an insertion sort by tph_kai_task_order gives, both ways
 * (ties between equal creation times broken by name). */
static void test_sort_tasks_matches_insertion(void **state)
{
	(void)state;
	static const char many[] =
	    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"allocate\"\n"
	    "  tiers:\n  - plugins: [{name: priority}]\n"
	    "queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, "
	    "limit: -1}, memory: {quota: -1, limit: -1}}}]\n"
	    "nodes:\n  - {name: n0, allocatable: {cpu: \"8\", memory: 8G}}\n"
	    "podGroups: [{name: j, queue: q}]\n"
	    "pods:\n"
	    "  - {name: e, podGroup: j, status: Pending, creationTimestamp: "
	    "\"2025-01-01T00:00:03Z\"}\n"
	    "  - {name: a, podGroup: j, status: Pending, creationTimestamp: "
	    "\"2025-01-01T00:00:05Z\"}\n"
	    "  - {name: d, podGroup: j, status: Pending, creationTimestamp: "
	    "\"2025-01-01T00:00:01Z\"}\n"
	    "  - {name: c, podGroup: j, status: Pending, creationTimestamp: "
	    "\"2025-01-01T00:00:03Z\"}\n"
	    "  - {name: b, podGroup: j, status: Pending, creationTimestamp: "
	    "\"2025-01-01T00:00:02Z\"}\n"
	    "  - {name: g, podGroup: j, status: Pending, creationTimestamp: "
	    "\"2025-01-01T00:00:01Z\"}\n"
	    "  - {name: f, podGroup: j, status: Pending, creationTimestamp: "
	    "\"2025-01-01T00:00:09Z\"}\n";
	kf f;
	kai_load(&f, many);
	for (int dir = -1; dir <= 1; dir += 2) {
		uint32_t got[7], want[7];
		for (uint32_t i = 0; i < 7; i++) {
			got[i] = 6 - i;
			uint32_t at = i;
			while (at > 0 && dir * tph_kai_task_order(f.s, 6 - i, want[at - 1]) < 0) {
				want[at] = want[at - 1];
				at--;
			}
			want[at] = 6 - i;
		}
		tph_kai_sort_tasks(f.s, got, 7, dir);
		assert_memory_equal(got, want, sizeof got);
	}
	/* the fallback order itself: created first, then by name */
	const char *const first[] = {"d", "g", "b", "c", "e", "a", "f"};
	uint32_t t[7] = {0, 1, 2, 3, 4, 5, 6};
	tph_kai_sort_tasks(f.s, t, 7, +1);
	for (int i = 0; i < 7; i++)
		assert_string_equal(f.s->v->tasks.name[t[i]], first[i]);
	close_kai(&f);
}

/* KAI's Session.Evict outside a statement (stalegangeviction): the pod turns Releasing, its
 * node's ledger moves its GPU from used to releasing, and the eviction is recorded. */
static void test_evict_now_moves_ledger(void **state)
{
	(void)state;
	static const char running[] =
	    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"allocate\"\n"
	    "  tiers:\n  - plugins: [{name: priority}]\n"
	    "queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, "
	    "limit: -1}, memory: {quota: -1, limit: -1}}}]\n"
	    "nodes:\n  - {name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"2\"}}\n"
	    "podGroups: [{name: j, queue: q}]\n"
	    "pods:\n  - {name: j-0, podGroup: j, status: Running, nodeName: n0, "
	    "requests: {nvidia.com/gpu: 1}}\n";
	kf f;
	kai_load(&f, running);
	const double *idle = tph_kai_session_idle(f.s), *rel = tph_kai_session_releasing(f.s);
	assert_true(idle[TPH_KAI_GPU] == 1 && rel[TPH_KAI_GPU] == 0);
	assert_int_equal(tph_kai_evict(f.s, 0), 0);
	assert_int_equal(tph_kai_session_status(f.s)[0], TPH_KAI_TS_RELEASING);
	assert_true(idle[TPH_KAI_GPU] == 1 && rel[TPH_KAI_GPU] == 1);
	const tph_kai_decision *ev;
	assert_int_equal(tph_kai_session_evictions(f.s, &ev), 1);
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults_with_none_registered),
	    cmocka_unit_test(test_first_registered_only),
	    cmocka_unit_test(test_solution_start_runs_all),
	    cmocka_unit_test(test_sort_tasks_matches_insertion),
	    cmocka_unit_test(test_evict_now_moves_ledger),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for the kept turn of a job (tph_kai_tasks_to_allocate outside naive mode,
 * kernel/src/session/kai/kai_tasks.c): after every statement operation, rollback and commit
 * that changes one of the job's tasks, the turn read from the session equals the one naive mode
 * computes afresh, and the turn has changed as the gang says it should; the same for elastic's
 * JobOrder, which keeps each job's active pods per job version (plugins/kai/orders.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai_fixture.h"
#include "session/kai/kai_int.h"
#include "tephra/tephra.h"

#define GPU1 "{cpu: \"1\", nvidia.com/gpu: 1}"

/* p: a gang of two over three Pending pods. b: two Running pods, minMember 1. */
static const char *cluster =
    "nodes: [{name: n0, allocatable: {cpu: \"64\", memory: 64Gi, nvidia.com/gpu: \"8\"}}]\n"
    "podGroups: [{name: p, queue: q, minMember: 2}, {name: b, queue: q, minMember: 1}]\n"
    "pods:\n"
    "  - {name: p0, podGroup: p, status: Pending, requests: " GPU1 "}\n"
    "  - {name: p1, podGroup: p, status: Pending, requests: " GPU1 "}\n"
    "  - {name: p2, podGroup: p, status: Pending, requests: " GPU1 "}\n"
    "  - {name: b0, podGroup: b, status: Running, nodeName: n0, requests: " GPU1 "}\n"
    "  - {name: b1, podGroup: b, status: Running, nodeName: n0, requests: " GPU1 "}\n";

/* Job's turn, asked twice (the second from the kept copy), equals naive mode's; it has
 * want tasks, the first of them named first (NULL: none). */
static void turn_is(kf *f, const char *job, uint32_t want, const char *first)
{
	uint32_t j = job_of(f, job), kept[8], again[8], fresh[8];
	uint32_t n = tph_kai_tasks_to_allocate(f->s, j, kept);
	assert_int_equal(tph_kai_tasks_to_allocate(f->s, j, again), n);
	tph_kai_session_set_naive(f->s, true);
	uint32_t m = tph_kai_tasks_to_allocate(f->s, j, fresh);
	tph_kai_session_set_naive(f->s, false);
	assert_int_equal(n, m);
	assert_memory_equal(kept, fresh, n * sizeof *kept);
	assert_memory_equal(again, fresh, n * sizeof *kept);
	assert_int_equal(n, want);
	if (first)
		assert_int_equal(kept[0], task_of(f, first));
}

/* Placing the gang's pods one by one, then rolling back: the turn follows each step. */
static void test_follows_placements(void **state)
{
	(void)state;
	kf f;
	kai_open_tier(&f, "allocate", "[{name: predicates}]", cluster);
	tph_kai_session *s = f.s;
	assert_non_null(s->job_ranked); /* the kept path, not naive's */
	uint32_t start = s->n_ops;
	turn_is(&f, "p", 2, "p0");
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p0"), 0), 0);
	turn_is(&f, "p", 1, "p1");
	assert_int_equal(tph_kai_stmt_pipeline(s, task_of(&f, "p1"), 0), 0);
	turn_is(&f, "p", 1, "p2");
	tph_kai_stmt_to_pipelined(s, job_of(&f, "p"));
	turn_is(&f, "p", 1, "p2");
	tph_kai_stmt_rollback(s, start);
	turn_is(&f, "p", 2, "p0");
	close_kai(&f);
}

/* An eviction makes a Running pod re-placeable (virtual Releasing); a rollback and a commit
 * (the eviction stands, no longer virtual) each take it out of the turn again. */
static void test_follows_evictions(void **state)
{
	(void)state;
	kf f;
	kai_open_tier(&f, "allocate", "[{name: predicates}]", cluster);
	tph_kai_session *s = f.s;
	uint32_t start = s->n_ops;
	turn_is(&f, "b", 0, NULL);
	assert_int_equal(tph_kai_stmt_evict(s, task_of(&f, "b0")), 0);
	turn_is(&f, "b", 1, "b0");
	tph_kai_stmt_rollback(s, start);
	turn_is(&f, "b", 0, NULL);
	assert_int_equal(tph_kai_stmt_evict(s, task_of(&f, "b1")), 0);
	turn_is(&f, "b", 1, "b1");
	assert_int_equal(tph_kai_stmt_commit(s), 0);
	turn_is(&f, "b", 0, NULL);
	close_kai(&f);
}

/* elastic's JobOrder of p before b, kept per job version, equals naive mode's; the version
 * grows with every change of the job's tasks and is 0 in naive mode. */
static void elastic_is(kf *f, int want)
{
	int kept = tph_kai_job_order(f->s, job_of(f, "p"), job_of(f, "b"));
	assert_int_equal(tph_kai_job_order(f->s, job_of(f, "p"), job_of(f, "b")), kept);
	tph_kai_session_set_naive(f->s, true);
	assert_int_equal(tph_kai_session_job_version(f->s, job_of(f, "b")), 0);
	assert_int_equal(tph_kai_job_order(f->s, job_of(f, "p"), job_of(f, "b")), kept);
	tph_kai_session_set_naive(f->s, false);
	assert_int_equal(kept, want);
}

/* p below its minimum, b at or above it: p first, until b's pods are evicted (elastic has no
 * opinion: b first by name) and the evictions rolled back (p first again). */
static void test_follows_job_order(void **state)
{
	(void)state;
	kf f;
	kai_open_tier(&f, "allocate", "[{name: elastic}]", cluster);
	tph_kai_session *s = f.s;
	uint32_t start = s->n_ops, b = job_of(&f, "b");
	elastic_is(&f, -1);
	uint64_t ver = tph_kai_session_job_version(s, b);
	assert_int_equal(tph_kai_stmt_evict(s, task_of(&f, "b0")), 0);
	assert_true(tph_kai_session_job_version(s, b) > ver);
	assert_int_equal(tph_kai_stmt_evict(s, task_of(&f, "b1")), 0);
	elastic_is(&f, 1);
	tph_kai_stmt_rollback(s, start);
	elastic_is(&f, -1);
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_follows_placements),
	    cmocka_unit_test(test_follows_evictions),
	    cmocka_unit_test(test_follows_job_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

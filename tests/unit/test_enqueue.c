/* Unit tests for kernel/actions/enqueue.c: admission without minResources, the
 * JobEnqueueable vote, which jobs are offered, JobOrder within a queue and queues taking turns
 * when their order changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "action_spy.h"

#define CONF(spy_args)                    \
	"conf: |\n"                       \
	"  actions: \"enqueue\"\n"        \
	"  tiers:\n"                      \
	"  - plugins:\n"                  \
	"    - name: spy\n"               \
	"      arguments: " spy_args "\n" \
	"nodes: []\n"

#define PG(name, queue, extra) \
	"  - {name: " name ", namespace: ns, queue: " queue ", minMember: 1" extra "}\n"

static void test_min_resources_and_vote(void **state)
{
	(void)state;
	run r;
	run_scenario(&r,
	             CONF("{deny: den}") "queues: [{name: q1}]\n"
	                                 "podGroups:\n" PG("plain", "q1", "")
	                                     PG("denied", "q1", ", minResources: {cpu: '1'}")
	                                         PG("allowed", "q1", ", minResources: {cpu: '1'}")
	                                             PG("denied-free", "q1", ""),
	             1, false);
	/* no minResources: admitted without asking; otherwise the vote decides */
	assert_string_equal(run_phase(&r, "ns/plain"), "Inqueue");
	assert_string_equal(run_phase(&r, "ns/denied-free"), "Inqueue");
	assert_string_equal(run_phase(&r, "ns/allowed"), "Inqueue");
	assert_string_equal(run_phase(&r, "ns/denied"), "Pending");
	assert_int_equal(spy_log.n_enqueued, 3);
	pts_free(&r);
}

static void test_only_pending_jobs(void **state)
{
	(void)state;
	run r;
	run_scenario(&r,
	             CONF("{}") "queues: [{name: q1}]\n"
	                        "podGroups:\n" PG("inq", "q1", ", phase: Inqueue")
	                            PG("run", "q1", ", phase: Running") PG("pend", "q1", ""),
	             1, false);
	assert_int_equal(spy_log.n_enqueued, 1);
	assert_string_equal(run_job_name(&r, spy_log.enqueued[0]), "pend");
	pts_free(&r);
}

/* Within a queue, jobs come by JobOrder (here creation time), not snapshot order. */
static void test_job_order(void **state)
{
	(void)state;
	run r;
	run_scenario(
	    &r,
	    CONF("{}") "queues: [{name: q1}]\n"
	               "podGroups:\n" PG("late", "q1",
	                                 ", creationTimestamp: '2026-01-01T00:00:09Z'")
	                   PG("early", "q1", ", creationTimestamp: '2026-01-01T00:00:01Z'")
	                       PG("mid", "q1", ", creationTimestamp: '2026-01-01T00:00:05Z'"),
	    1, false);
	assert_int_equal(spy_log.n_enqueued, 3);
	assert_string_equal(run_job_name(&r, spy_log.enqueued[0]), "early");
	assert_string_equal(run_job_name(&r, spy_log.enqueued[1]), "mid");
	assert_string_equal(run_job_name(&r, spy_log.enqueued[2]), "late");
	pts_free(&r);
}

/* A queue goes back after each admission, so an order that counts admissions alternates;
 * with the fallback order (name) qa would be drained first. */
static void test_queues_take_turns(void **state)
{
	(void)state;
	const char *pgs = "queues: [{name: qa}, {name: qb}]\n"
	                  "podGroups:\n" PG("a1", "qa", "") PG("a2", "qa", "") PG("a3", "qa", "")
	                      PG("b1", "qb", "") PG("b2", "qb", "");
	char yaml[2048];
	run r;
	snprintf(yaml, sizeof yaml, "%s%s", CONF("{fair: true}"), pgs);
	run_scenario(&r, yaml, 1, false);
	const char *want_fair[] = {"a1", "b1", "a2", "b2", "a3"};
	assert_int_equal(spy_log.n_enqueued, 5);
	for (int i = 0; i < 5; i++)
		assert_string_equal(run_job_name(&r, spy_log.enqueued[i]), want_fair[i]);
	pts_free(&r);
	snprintf(yaml, sizeof yaml, "%s%s", CONF("{}"), pgs);
	run_scenario(&r, yaml, 1, false);
	const char *want_name[] = {"a1", "a2", "a3", "b1", "b2"};
	for (int i = 0; i < 5; i++)
		assert_string_equal(run_job_name(&r, spy_log.enqueued[i]), want_name[i]);
	pts_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_min_resources_and_vote),
	    cmocka_unit_test(test_only_pending_jobs),
	    cmocka_unit_test(test_job_order),
	    cmocka_unit_test(test_queues_take_turns),
	};
	return cmocka_run_group_tests(tests, spy_setup, NULL);
}

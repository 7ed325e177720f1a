/* Unit tests for plugins/sla.c: the waiting time (podgroup annotations before the argument),
 * deadline order, and the Permit that JobEnqueueable and JobPipelined give once a job has
 * waited its time on the session clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

#define CONF(args)                      \
	"now: '2026-01-01T01:00:00Z'\n" \
	"conf: |\n"                     \
	"  actions: \"\"\n"             \
	"  tiers:\n"                    \
	"  - plugins:\n"                \
	"    - name: sla\n" args "queues: [{name: q1}]\n"

/* Created at 00:00 unless said; the clock is 01:00. */
#define PG(name, extra)    \
	"  - {name: " name \
	", namespace: ns, queue: q1, creationTimestamp: '2026-01-01T00:00:00Z'" extra "}\n"

static const char jobs[] = CONF("      arguments: {sla-waiting-time: 2h}\n") "podGroups:\n" PG(
    "global", "")                                       /* 00:00 + 2h  */
    PG("own", ", annotations: {sla-waiting-time: 30m}") /* 00:00 + 30m */
    PG("new", ", annotations: {volcano.sh/sla-waiting-time: 90m, sla-waiting-time: 1m}") PG(
        "bad",
        ", annotations: {volcano.sh/sla-waiting-time: soon, sla-waiting-time: 45m}") "  - {name: "
                                                                                     "late, "
                                                                                     "namespace: "
                                                                                     "ns, queue: "
                                                                                     "q1, "
                                                                                     "creationTimes"
                                                                                     "tamp: "
                                                                                     "'2026-01-"
                                                                                     "01T00:40:00Z'"
                                                                                     ","
                                                                                     " annotations:"
                                                                                     " {sla-"
                                                                                     "waiting-time:"
                                                                                     " 1m}}\n";

static int vote(const pts *p, tph_ep ep, const char *job)
{
	const tph_ep_entry *e = &p->s->ep[ep].e[0];
	return ((tph_job_vote_fn)e->fn)(e->st, p->s, pts_job(p, job));
}

static void test_waiting_time_sources(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, jobs);
	/* own: 30m passed -> permit; global: 2h not yet -> abstain. */
	assert_int_equal(vote(&p, TPH_EP_JOB_ENQUEUEABLE, "ns/own"), TPH_PERMIT);
	assert_int_equal(vote(&p, TPH_EP_JOB_ENQUEUEABLE, "ns/global"), TPH_ABSTAIN);
	/* The volcano.sh/ key wins (90m, not 1m); an invalid one falls through (45m). */
	assert_int_equal(vote(&p, TPH_EP_JOB_ENQUEUEABLE, "ns/new"), TPH_ABSTAIN);
	assert_int_equal(vote(&p, TPH_EP_JOB_ENQUEUEABLE, "ns/bad"), TPH_PERMIT);
	/* JobPipelined is the same vote. */
	assert_int_equal(vote(&p, TPH_EP_JOB_PIPELINED, "ns/own"), TPH_PERMIT);
	assert_int_equal(vote(&p, TPH_EP_JOB_PIPELINED, "ns/global"), TPH_ABSTAIN);
	pts_free(&p);
}

static void test_deadline_order(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, jobs);
	/* Deadlines: own 00:30, late 00:41, bad 00:45, new 01:30, global 02:00. */
	const char *order[5] = {"ns/own", "ns/late", "ns/bad", "ns/new", "ns/global"};
	for (int i = 0; i + 1 < 5; i++)
		assert_true(tph_job_order_cmp_plugins(p.s, pts_job(&p, order[i]),
		                                      pts_job(&p, order[i + 1])) < 0);
	assert_true(
	    tph_job_order_cmp_plugins(p.s, pts_job(&p, "ns/global"), pts_job(&p, "ns/own")) > 0);
	pts_free(&p);
}

static const char no_global[] = CONF("      arguments: {sla-waiting-time: 5}\n") "podGroups:\n" PG(
    "plain", "") PG("own", ", annotations: {sla-waiting-time: 2h}")
    PG("zero", ", annotations: {sla-waiting-time: 0s}") "  - {name: old, namespace: ns, queue: q1, "
                                                        "annotations: {sla-waiting-time: 1000h}}\n";

static void test_without_global(void **state)
{
	(void)state;
	pts p;
	/* A number is not a duration string: no global waiting time. */
	pts_open(&p, no_global);
	assert_int_equal(vote(&p, TPH_EP_JOB_ENQUEUEABLE, "ns/plain"), TPH_ABSTAIN);
	assert_int_equal(vote(&p, TPH_EP_JOB_ENQUEUEABLE, "ns/zero"), TPH_ABSTAIN);
	/* No creation time is Go's zero time: waited for ages. */
	assert_int_equal(vote(&p, TPH_EP_JOB_ENQUEUEABLE, "ns/old"), TPH_PERMIT);
	/* Jobs with a waiting time come first; among those without, no answer. */
	tph_idx plain = pts_job(&p, "ns/plain"), own = pts_job(&p, "ns/own");
	assert_true(tph_job_order_cmp_plugins(p.s, own, plain) < 0);
	assert_true(tph_job_order_cmp_plugins(p.s, plain, own) > 0);
	assert_int_equal(tph_job_order_cmp_plugins(p.s, plain, pts_job(&p, "ns/zero")), 0);
	assert_true(tph_job_order_cmp_plugins(p.s, pts_job(&p, "ns/old"), own) < 0);
	pts_free(&p);
}

/* In the session's vote an abstaining sla lets a later tier decide; a permit ends the walk. */
static void test_permit_ends_vote(void **state)
{
	(void)state;
	pts p;
	pts_open(
	    &p,
	    CONF("  - plugins:\n"
	         "    - name: overcommit\n") "nodes: []\n"
	                                     "podGroups:\n" PG(
	                                         "own", ", annotations: {sla-waiting-time: 30m},"
	                                                " minResources: {cpu: '1'}")
	                                         PG("wait", ", annotations: {sla-waiting-time: "
	                                                    "3h}, minResources: {cpu: '1'}"));
	assert_true(tph_job_enqueueable(p.s, pts_job(&p, "ns/own")));
	assert_false(tph_job_enqueueable(p.s, pts_job(&p, "ns/wait")));
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_waiting_time_sources),
	    cmocka_unit_test(test_deadline_order),
	    cmocka_unit_test(test_without_global),
	    cmocka_unit_test(test_permit_ends_vote),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for plugins/resourcequota.c: a job's minResources against every quota of its
 * namespace, only on the resources both name, with the quota's status.used and the jobs
 * enqueued earlier in the session counted as in use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

static const char yaml[] =
    "conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: resourcequota\n"
    "queues: [{name: q1}]\n"
    "resourceQuotas:\n"
    "  - {name: big, namespace: a, hard: {cpu: '10', memory: 20Gi}}\n"
    "  - {name: gpus, namespace: a, hard: {nvidia.com/gpu: '1'}}\n"
    "  - {name: tiny, namespace: b, hard: {cpu: '1'}}\n"
    "podGroups:\n"
    "  - {name: six, namespace: a, queue: q1, minResources: {cpu: '6'}}\n"
    "  - {name: six-more, namespace: a, queue: q1, minResources: {cpu: '6'}}\n"
    "  - {name: mem, namespace: a, queue: q1, minResources: {memory: 1Gi, pods: '100'}}\n"
    "  - {name: gpu, namespace: a, queue: q1, minResources: {nvidia.com/gpu: '2'}}\n"
    "  - {name: none, namespace: b, queue: q1}\n"
    "  - {name: huge, namespace: c, queue: q1, minResources: {cpu: '1000'}}\n";

static void test_quota_votes(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, yaml);
	tph_session *s = p.s;
	tph_idx six = pts_job(&p, "a/six"), more = pts_job(&p, "a/six-more");
	assert_true(tph_job_enqueueable(s, six));
	assert_true(tph_job_enqueueable(s, more));
	/* Once six is enqueued, 6 + 6 cpu exceed the 10 of quota big. */
	tph_job_enqueued(s, six);
	assert_false(tph_job_enqueueable(s, more));
	/* memory and pods: big names only memory; the pods need no quota. */
	assert_true(tph_job_enqueueable(s, pts_job(&p, "a/mem")));
	/* The second quota of the namespace limits gpus. */
	assert_false(tph_job_enqueueable(s, pts_job(&p, "a/gpu")));
	/* No minResources, or no quota in the namespace: permitted. */
	assert_true(tph_job_enqueueable(s, pts_job(&p, "b/none")));
	assert_true(tph_job_enqueueable(s, pts_job(&p, "c/huge")));
	pts_free(&p);
}

/* status.used counts toward every resource both name; a zero minResources entry still names
 * its resource (an overused quota then refuses it), an absent one does not. */
static const char used_yaml[] =
    "conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: resourcequota\n"
    "queues: [{name: q1}]\n"
    "resourceQuotas:\n"
    "  - {name: q, namespace: a, hard: {cpu: '10', memory: 4Gi},"
    " used: {cpu: '7', memory: 5Gi, pods: '3'}}\n"
    "podGroups:\n"
    "  - {name: three, namespace: a, queue: q1, minResources: {cpu: '3'}}\n"
    "  - {name: four, namespace: a, queue: q1, minResources: {cpu: '4'}}\n"
    "  - {name: one, namespace: a, queue: q1, minResources: {cpu: '1'}}\n"
    "  - {name: zero-mem, namespace: a, queue: q1, minResources: {cpu: '1', memory: '0'}}\n"
    "  - {name: pods, namespace: a, queue: q1, minResources: {pods: '100'}}\n";

static void test_quota_used(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, used_yaml);
	tph_session *s = p.s;
	/* 7 used + 3 = 10 fits, + 4 does not. */
	assert_true(tph_job_enqueueable(s, pts_job(&p, "a/three")));
	assert_false(tph_job_enqueueable(s, pts_job(&p, "a/four")));
	/* memory is already over (5Gi > 4Gi) but `one` does not name it. */
	assert_true(tph_job_enqueueable(s, pts_job(&p, "a/one")));
	/* `memory: '0'` names it: 5Gi + 0 > 4Gi refuses. */
	assert_false(tph_job_enqueueable(s, pts_job(&p, "a/zero-mem")));
	/* used names pods, hard does not: not compared. */
	assert_true(tph_job_enqueueable(s, pts_job(&p, "a/pods")));
	/* Enqueued jobs add to what is used: 7 + 3 + 1 > 10. */
	tph_job_enqueued(s, pts_job(&p, "a/three"));
	assert_false(tph_job_enqueueable(s, pts_job(&p, "a/one")));
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_quota_votes),
	    cmocka_unit_test(test_quota_used),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

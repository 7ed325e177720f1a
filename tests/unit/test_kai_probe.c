/* Unit tests for the kai probes that ask plugins (session/kai/kai_probe.c): canReclaim is the
 * CanReclaimResources answer job by job, fairShare fails (never passes silently) when no
 * plugin computes it, and a probe that agrees adds no line to the report. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai_fixture.h"
#include "session/kai/kai_check.h"

static const char scenario[] =
    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"\"\n"
    "  tiers:\n  - plugins: [{name: priority}]\n"
    "queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, "
    "limit: -1}, memory: {quota: -1, limit: -1}}}]\n"
    "nodes:\n  - {name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
    "podGroups: [{name: a, queue: q}, {name: b, queue: q}]\n"
    "pods:\n  - {name: a-0, podGroup: a, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
    "  - {name: b-0, podGroup: b, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
    "probe:\n  canReclaim: {a: true, b: false}\n";

/* Job 0 (a) may reclaim, the others not. */
static bool first_job_only(void *st, const tph_kai_session *s, uint32_t job)
{
	(void)st, (void)s;
	return job == 0;
}

static bool nobody(void *st, const tph_kai_session *s, uint32_t job)
{
	(void)st, (void)s, (void)job;
	return false;
}

static void test_can_reclaim(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, scenario);
	f.s->frozen = false; /* register as a plugin would at open */
	assert_int_equal(tph_kai_add_can_reclaim(f.s, first_job_only, NULL), 0);
	tph_kai_check_probe(f.sc, f.s, &f.r);
	assert_int_equal(f.r.failures, 0);
	close_kai(&f);

	kai_load(&f, scenario);
	f.s->frozen = false; /* register as a plugin would at open */
	assert_int_equal(tph_kai_add_can_reclaim(f.s, nobody, NULL), 0);
	tph_kai_check_probe(f.sc, f.s, &f.r);
	assert_int_equal(f.r.failures, 1);
	assert_non_null(strstr(f.r.buf, "probe canReclaim a: false, want true"));
	close_kai(&f);
}

static void test_fair_share_needs_a_plugin(void **state)
{
	(void)state;
	char yaml[sizeof scenario + 64];
	snprintf(yaml, sizeof yaml, "%s  fairShare: {q: {gpu: 1}}\n", scenario);
	kf f;
	kai_load(&f, yaml);
	f.s->frozen = false;
	assert_int_equal(tph_kai_add_can_reclaim(f.s, first_job_only, NULL), 0);
	tph_kai_check_probe(f.sc, f.s, &f.r);
	assert_int_equal(f.r.failures, 1);
	assert_non_null(strstr(f.r.buf, "probe fairShare q: no plugin computes it"));
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_can_reclaim),
	    cmocka_unit_test(test_fair_share_needs_a_plugin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

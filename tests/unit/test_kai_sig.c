/* Unit tests for KAI's scheduling signatures (kernel/actions/kai/solver_sig.c): which jobs
 * share a signature (pod constraints and counts of pods not active-allocated; not requests),
 * the signature kept for the session once asked, IsEasierToSchedule against a failed job of the
 * same signature and scope, and UpdateRepresentative keeping the smallest footprint; then the
 * actions: a job no easier than a failed one is not tried (its pods stay Pending) only when
 * useSchedulingSignatures is set. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai/solver.h"
#include "kai_fixture.h"

#define POD(n, g, st, req) "  - {name: " n ", podGroup: " g ", status: " st ", requests: " req "}\n"
#define GPU1               "{cpu: \"2\", nvidia.com/gpu: 1}"
#define GPU2               "{cpu: \"2\", nvidia.com/gpu: 2}"
#define CPU1               "{cpu: \"1\", nvidia.com/gpu: 1}"
#define CPU3               "{cpu: \"3\", nvidia.com/gpu: 1}"

/* a: two pods of GPU1. b: bigger pods. c: smaller. d: one more pod. e: one pod. f: a node
 * selector. g: one pod Running, two Pending. x: between c and a. */
static const char *JOBS =
    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\n"
    "conf: |\n  actions: \"reclaim\"\n  tiers:\n  - plugins: [{name: priority}]\n"
    "queues: [{name: q}, {name: r}]\n"
    "nodes: [{name: n0, allocatable: {cpu: \"64\", memory: 64Gi, nvidia.com/gpu: \"8\"}}]\n"
    "podGroups: [{name: a, queue: q}, {name: b, queue: q}, {name: c, queue: q}, {name: d, "
    "queue: q}, {name: e, queue: q}, {name: f, queue: q}, {name: g, queue: q}, {name: x, "
    "queue: q}, {name: o, queue: r}]\n"
    "pods:\n" POD("a0", "a", "Pending", GPU1) POD("a1", "a", "Pending", GPU1) POD(
        "b0", "b", "Pending", GPU2) POD("b1", "b", "Pending", GPU2) POD("c0", "c", "Pending", CPU1)
        POD("c1", "c", "Pending", CPU1) POD("d0", "d", "Pending", GPU1)
            POD("d1", "d", "Pending", GPU1) POD("d2", "d", "Pending", GPU1)
                POD("e0", "e", "Pending",
                    GPU1) "  - {name: f0, podGroup: f, status: Pending, requests: " GPU1
                          ", nodeSelector: {k: v}}\n"
                          "  - {name: f1, podGroup: f, status: Pending, requests: " GPU1
                          ", nodeSelector: {k: v}}\n" POD("g0", "g", "Pending", GPU1)
                              POD("g1", "g", "Pending", GPU1) POD("x0", "x", "Pending", CPU1)
                                  POD("x1", "x", "Pending", CPU3) POD("o0", "o", "Pending", GPU1)
                                      POD("o1", "o", "Pending",
                                          GPU1) "  - {name: g2, podGroup: g, status: Running, "
                                                "nodeName: n0, requests: " GPU1 "}\n";

static void test_signatures(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, JOBS);
	tph_kai_session *s = f.s;
	uint64_t a = tph_kai_job_signature(s, job_of(&f, "a"));
	assert_int_equal(a, tph_kai_job_signature(s, job_of(&f, "b"))); /* requests aside */
	assert_int_equal(a, tph_kai_job_signature(s, job_of(&f, "c")));
	assert_int_equal(a, tph_kai_job_signature(s, job_of(&f, "g"))); /* Running pod aside */
	assert_int_equal(a, tph_kai_job_signature(s, job_of(&f, "o"))); /* queue aside */
	assert_int_not_equal(a, tph_kai_job_signature(s, job_of(&f, "d")));
	assert_int_not_equal(a, tph_kai_job_signature(s, job_of(&f, "e")));
	assert_int_not_equal(a, tph_kai_job_signature(s, job_of(&f, "f")));
	/* Kept for the session, as KAI caches it on the podgroup. */
	s->status[task_of(&f, "a1")] = TPH_KAI_TS_RUNNING;
	assert_int_equal(a, tph_kai_job_signature(s, job_of(&f, "a")));
	close_kai(&f);
}

static void test_easier(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, JOBS);
	tph_kai_session *s = f.s;
	tph_kai_reps *r = tph_kai_reps_new(s);
	assert_non_null(r);
	int32_t q = s->v->jobs.queue[job_of(&f, "a")];
	assert_false(tph_kai_reps_skip(r, s, q, job_of(&f, "b"))); /* nothing failed yet */
	tph_kai_reps_failed(r, s, q, job_of(&f, "a"));
	assert_true(tph_kai_reps_skip(r, s, q, job_of(&f, "a")));   /* the same */
	assert_true(tph_kai_reps_skip(r, s, q, job_of(&f, "b")));   /* bigger pods */
	assert_false(tph_kai_reps_skip(r, s, q, job_of(&f, "c")));  /* smaller pods */
	assert_false(tph_kai_reps_skip(r, s, q, job_of(&f, "x")));  /* one pod smaller */
	assert_false(tph_kai_reps_skip(r, s, q, job_of(&f, "f")));  /* another signature */
	assert_false(tph_kai_reps_skip(r, s, -1, job_of(&f, "b"))); /* another scope */
	/* A larger footprint does not replace the representative; a smaller one does. */
	tph_kai_reps_failed(r, s, q, job_of(&f, "b"));
	assert_false(tph_kai_reps_skip(r, s, q, job_of(&f, "x")));
	tph_kai_reps_failed(r, s, q, job_of(&f, "c"));
	assert_true(tph_kai_reps_skip(r, s, q, job_of(&f, "x")));
	assert_true(tph_kai_reps_skip(r, s, q, job_of(&f, "a")));
	tph_kai_reps_free(r);
	close_kai(&f);
}

/* a (a pod of 4 CPUs) fits neither node's 3 CPUs whatever is evicted; b (a pod of 1 CPU and 4
 * GPUs) fits once queue r's job gives a node's GPUs back. b's request is not below a's, so with
 * signatures reclaim does not try b after a failed; without, b reclaims. */
#define RECLAIM_HEAD \
	"flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nschedulerParams: {useSchedulingSignatures: "
#define RECLAIM_REST                                                                               \
	"}\nconf: |\n  actions: \"reclaim\"\n  tiers:\n  - plugins: [{name: priority}, {name: "    \
	"proportion}, {name: sg-nodelocalgreedy}]\n"                                               \
	"queues: [{name: q, resources: {gpu: {quota: 4, limit: -1}, cpu: {quota: -1, limit: -1}, " \
	"memory: {quota: -1, limit: -1}}}, {name: r, resources: {gpu: {quota: 0, limit: -1}, "     \
	"cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}]\n"                         \
	"nodes: [{name: n0, allocatable: {cpu: \"3\", memory: 64Gi, nvidia.com/gpu: \"4\"}}, "     \
	"{name: n1, allocatable: {cpu: \"3\", memory: 64Gi, nvidia.com/gpu: \"4\"}}]\n"            \
	"podGroups: [{name: a, queue: q, creationTimestamp: \"2025-01-01T00:00:00Z\"}, {name: b, " \
	"queue: q, creationTimestamp: \"2025-01-01T00:00:01Z\"}, {name: o, queue: r, minMember: "  \
	"2}]\npods:\n" POD("a0", "a", "Pending", "{cpu: \"4\", nvidia.com/gpu: 1}") POD(           \
	    "b0", "b", "Pending",                                                                  \
	    "{cpu: \"1\", nvidia.com/gpu: 4}") "  - {name: o0, podGroup: o, status: Running, "     \
	                                       "nodeName: n0, requests: {nvidia.com/gpu: 4}}\n"    \
	                                       "  - {name: o1, podGroup: o, status: Running, "     \
	                                       "nodeName: n1, requests: {nvidia.com/gpu: 4}}\n"

static uint8_t b0_after_reclaim(const char *signatures)
{
	char text[4096];
	snprintf(text, sizeof text, RECLAIM_HEAD "%s" RECLAIM_REST, signatures);
	kf f;
	kai_load(&f, text);
	run_ok(&f);
	assert_int_equal(f.s->status[task_of(&f, "a0")], TPH_KAI_TS_PENDING);
	uint8_t st = f.s->status[task_of(&f, "b0")];
	assert_int_equal(tph_kai_session_evictions(f.s, &(const tph_kai_decision *){NULL}),
	                 st == TPH_KAI_TS_PENDING ? 0 : 2);
	close_kai(&f);
	return st;
}

static void test_reclaim_skips(void **state)
{
	(void)state;
	assert_int_equal(b0_after_reclaim("true"), TPH_KAI_TS_PENDING);
	assert_int_equal(b0_after_reclaim("false"), TPH_KAI_TS_PIPELINED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_signatures),
	    cmocka_unit_test(test_easier),
	    cmocka_unit_test(test_reclaim_skips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

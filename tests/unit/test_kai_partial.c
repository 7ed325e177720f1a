/* Unit tests for the preemptor's partial job in KAI's job solver (kernel/actions/kai/solver.c):
 * a scenario validator is shown the tasks the probe placed (tph_kai_scenario.partial: the first
 * k of the turn, KAI's partial job representative), each probe's own k, not the job's next
 * turn; QueueOrder in the scenario's re-placement queue sees the partial job's turn
 * (tph_kai_set_partial). Spy callbacks record what every call saw. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kai_fixture.h"

#define PARTIAL_PLUGINS                                                                      \
	"[{name: priority}, {name: elastic}, {name: nodeavailability}, {name: minruntime}, " \
	"{name: sg-nodelocalgreedy}, {name: sg-multinodegang}]"

/* n0's two GPUs held by lo0 and lo1; hi, a gang of two, pending. */
#define PARTIAL_NODE \
	"nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"2\"}}]\n"
#define PARTIAL_GROUPS                                                                           \
	"  - {name: lo0, queue: q, priority: 10}\n  - {name: lo1, queue: q, priority: 10}\n  - " \
	"{name: hi, queue: q, priority: 100, minMember: 2}\n"
#define PARTIAL_PODS                                                                             \
	"  - {name: lo0-0, podGroup: lo0, status: Running, nodeName: n0, requests: "             \
	"{nvidia.com/gpu: 1}}\n  - {name: lo1-0, podGroup: lo1, status: Running, nodeName: n0, " \
	"requests: {nvidia.com/gpu: 1}}\n  - {name: hi-0, podGroup: hi, status: Pending, "       \
	"requests: {nvidia.com/gpu: 1}}\n  - {name: hi-1, podGroup: hi, status: Pending, "       \
	"requests: {nvidia.com/gpu: 1}}\n"

typedef struct spy {
	const kf *f;
	uint32_t calls, first_k, last_k;
	bool placed; /* every partial task was hi's and Pipelined when asked */
} spy;

static bool accept(void *st, const tph_kai_session *s, const tph_kai_scenario *sc)
{
	spy *p = st;
	const tph_kai_view *v = tph_kai_session_view(s);
	if (!p->calls++)
		p->first_k = sc->n_partial;
	p->last_k = sc->n_partial;
	for (uint32_t i = 0; i < sc->n_partial; i++)
		p->placed = p->placed && v->tasks.job[sc->partial[i]] == (int32_t)sc->preemptor &&
		            tph_kai_session_status(s)[sc->partial[i]] == TPH_KAI_TS_PIPELINED;
	return true;
}

/* A gang of two needs both GPUs of n0: the k-search probes k = 1 (one victim), then k = 2 (both),
 * then solves the whole turn; the validator sees 1 task placed first and 2 at the end. */
static void test_validator_sees_partial(void **state)
{
	(void)state;
	kf f;
	kai_open_tier(&f, "preempt", PARTIAL_PLUGINS,
	              PARTIAL_NODE "podGroups:\n" PARTIAL_GROUPS "pods:\n" PARTIAL_PODS);
	spy p = {.f = &f, .placed = true};
	f.s->frozen = false; /* register as a plugin would at open */
	assert_int_equal(tph_kai_add_scenario_validator(f.s, TPH_KAI_PREEMPT, accept, &p), 0);
	f.s->frozen = true;
	run_ok(&f);
	assert_true(p.calls >= 3);
	assert_int_equal(p.first_k, 1);
	assert_int_equal(p.last_k, 2);
	assert_true(p.placed);
	assert_int_equal(status_of(&f, "hi-0"), TPH_KAI_TS_PIPELINED);
	assert_int_equal(status_of(&f, "hi-1"), TPH_KAI_TS_PIPELINED);
	close_kai(&f);
}

typedef struct turns {
	uint32_t job;      /* the preemptor */
	uint32_t seen[64]; /* its turn's size each time QueueOrder asked with it */
	uint32_t n;
} turns;

static int record_turn(void *st, const tph_kai_session *s, uint32_t lq, uint32_t rq, int32_t ljob,
                       int32_t rjob, const double *lvictims, const double *rvictims)
{
	turns *t = st;
	uint32_t scratch[8];
	(void)lq, (void)rq, (void)lvictims, (void)rvictims;
	if ((ljob == (int32_t)t->job || rjob == (int32_t)t->job) && t->n < 64)
		t->seen[t->n++] = tph_kai_tasks_to_allocate(s, t->job, scratch);
	return 0;
}

/* A second queue's pending job makes the re-placement queue ask QueueOrder with the preemptor
 * on one side: it is asked with the probe's partial job (one task at k = 1), not the job's
 * turn of two; out of the solver the turn is the whole gang again. */
static void test_queue_order_sees_partial(void **state)
{
	(void)state;
	kf f;
	kai_load(&f,
	         "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"preempt\"\n"
	         "  tiers:\n  - plugins: " PARTIAL_PLUGINS "\n"
	         "queues:\n"
	         "  - {name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, limit: "
	         "-1}, memory: {quota: -1, limit: -1}}}\n"
	         "  - {name: q2, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, limit: "
	         "-1}, memory: {quota: -1, limit: -1}}}\n" PARTIAL_NODE
	         "podGroups:\n" PARTIAL_GROUPS "  - {name: other, queue: q2, priority: 10}\n"
	         "pods:\n" PARTIAL_PODS
	         "  - {name: other-0, podGroup: other, status: Pending, requests: {nvidia.com/gpu: "
	         "4}}\n");
	turns t = {.job = (uint32_t)tph_kai_session_view(f.s)->tasks.job[task_of(&f, "hi-0")]};
	uint32_t scratch[8];
	assert_int_equal(tph_kai_tasks_to_allocate(f.s, t.job, scratch), 2);
	f.s->frozen = false;
	assert_int_equal(tph_kai_add_queue_order(f.s, record_turn, &t), 0);
	f.s->frozen = true;
	run_ok(&f);
	bool one = false;
	for (uint32_t i = 0; i < t.n; i++)
		one = one || t.seen[i] == 1;
	assert_true(one);
	assert_int_equal(status_of(&f, "hi-0"), TPH_KAI_TS_PIPELINED);
	assert_false(f.s->partial);
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_validator_sees_partial),
	    cmocka_unit_test(test_queue_order_sees_partial),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for plugins/overcommit.c: the admission arithmetic (allocatable x factor - used
 * against the minResources of inqueue jobs plus the candidate), the factor argument and its
 * fallback, what running jobs reserve, and JobEnqueued growing the inqueue total. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"

#define CONF(args)          \
	"conf: |\n"         \
	"  actions: \"\"\n" \
	"  tiers:\n"        \
	"  - plugins:\n"    \
	"    - name: overcommit\n" args

/* 10 cpu allocatable on ready nodes (the not-ready node's 100 do not count), 2 used. */
#define CLUSTER                                                              \
	"queues: [{name: q1}]\n"                                             \
	"nodes:\n"                                                           \
	"  - {name: n1, allocatable: {cpu: '4', memory: 4Gi, pods: '20'}}\n" \
	"  - {name: n2, allocatable: {cpu: '6', memory: 4Gi, pods: '20'}}\n" \
	"  - {name: down, ready: false, allocatable: {cpu: '100', memory: 100Gi, pods: '9'}}\n"

#define JOBS                                                                                   \
	"podGroups:\n"                                                                         \
	"  - {name: in, namespace: ns, queue: q1, phase: Inqueue, minResources: {cpu: '4'}}\n" \
	"  - {name: run, namespace: ns, queue: q1, phase: Running, minMember: 1,"              \
	" minResources: {cpu: '3'}}\n"                                                         \
	"  - {name: six, namespace: ns, queue: q1, minResources: {cpu: '5'}}\n"                \
	"  - {name: seven, namespace: ns, queue: q1, minResources: {cpu: '6'}}\n"              \
	"  - {name: mem, namespace: ns, queue: q1, minResources: {cpu: '1', memory: 9Gi}}\n"   \
	"  - {name: bigmem, namespace: ns, queue: q1, minResources: {memory: 10Gi}}\n"         \
	"  - {name: be, namespace: ns, queue: q1}\n"                                           \
	"pods:\n"                                                                              \
	"  - {name: run-0, namespace: ns, podGroup: run, phase: Running, nodeName: n1,"        \
	" requests: {cpu: '2'}}\n"

/* Default factor 1.2: idle = 12 - 2 = 10; inqueue = 4 (in) + 3 - 2 (run) = 5. */
static void test_default_factor(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("") CLUSTER JOBS);
	assert_true(tph_job_enqueueable(p.s, pts_job(&p, "ns/six")));    /* 5 + 5 <= 10 */
	assert_false(tph_job_enqueueable(p.s, pts_job(&p, "ns/seven"))); /* 5 + 6 > 10 */
	/* mem asks for memory too: 9Gi <= 8Gi * 1.2 (nothing requests memory yet). */
	assert_true(tph_job_enqueueable(p.s, pts_job(&p, "ns/mem")));
	assert_false(tph_job_enqueueable(p.s, pts_job(&p, "ns/bigmem"))); /* 10Gi > 9.6Gi */
	assert_true(tph_job_enqueueable(p.s, pts_job(&p, "ns/be")));
	/* Admitting six fills the cluster. */
	tph_job_enqueued(p.s, pts_job(&p, "ns/six"));
	assert_false(tph_job_enqueueable(p.s, pts_job(&p, "ns/mem")));
	tph_job_enqueued(p.s, pts_job(&p, "ns/be")); /* best-effort: reserves nothing */
	assert_true(tph_job_enqueueable(p.s, pts_job(&p, "ns/be")));
	pts_free(&p);
}

static void test_factor_argument(void **state)
{
	(void)state;
	pts p;
	/* 2.0: idle = 20 - 2 = 18; memory 8Gi * 2 = 16Gi. */
	pts_open(&p, CONF("      arguments: {overcommit-factor: 2.0}\n") CLUSTER JOBS);
	assert_true(tph_job_enqueueable(p.s, pts_job(&p, "ns/seven")));
	pts_free(&p);
	/* Below 1 falls back to 1.2; an int is read as a float. */
	pts_open(&p, CONF("      arguments: {overcommit-factor: 0.5}\n") CLUSTER JOBS);
	assert_true(tph_job_enqueueable(p.s, pts_job(&p, "ns/six")));
	assert_false(tph_job_enqueueable(p.s, pts_job(&p, "ns/seven")));
	pts_free(&p);
	pts_open(&p, CONF("      arguments: {overcommit-factor: 1}\n") CLUSTER JOBS);
	/* idle = 10 - 2 = 8 < 5 + 5. */
	assert_false(tph_job_enqueueable(p.s, pts_job(&p, "ns/six")));
	pts_free(&p);
}

/* A Running job below its minMember reserves nothing; one that reached it reserves what its
 * allocation does not cover, per dimension. */
static void test_running_reservation(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("") CLUSTER
	         "podGroups:\n"
	         "  - {name: run, namespace: ns, queue: q1, phase: Running, minMember: 2,"
	         " minResources: {cpu: '9'}}\n"
	         "  - {name: ask, namespace: ns, queue: q1, minResources: {cpu: '7'}}\n"
	         "pods:\n"
	         "  - {name: run-0, namespace: ns, podGroup: run, phase: Running, nodeName: n1,"
	         " requests: {cpu: '1'}}\n");
	/* run has 1 of 2 allocated: no reservation; idle = 12 - 1 = 11 >= 7. */
	assert_true(tph_job_enqueueable(p.s, pts_job(&p, "ns/ask")));
	pts_free(&p);
	pts_open(&p, CONF("") CLUSTER
	         "podGroups:\n"
	         "  - {name: run, namespace: ns, queue: q1, phase: Running, minMember: 1,"
	         " minResources: {cpu: '9'}}\n"
	         "  - {name: ask, namespace: ns, queue: q1, minResources: {cpu: '7'}}\n"
	         "pods:\n"
	         "  - {name: run-0, namespace: ns, podGroup: run, phase: Running, nodeName: n1,"
	         " requests: {cpu: '1'}}\n");
	/* Reached: reserves 9 - 1 = 8; 8 + 7 > 11. */
	assert_false(tph_job_enqueueable(p.s, pts_job(&p, "ns/ask")));
	pts_free(&p);
}

static void test_flag_gates_both(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("      enableJobEnqueued: false\n") CLUSTER JOBS);
	assert_int_equal(p.s->ep[TPH_EP_JOB_ENQUEUEABLE].n, 0);
	assert_int_equal(p.s->ep[TPH_EP_JOB_ENQUEUED].n, 0);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_factor),
	    cmocka_unit_test(test_factor_argument),
	    cmocka_unit_test(test_running_reservation),
	    cmocka_unit_test(test_flag_gates_both),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The gangpreempt and gangreclaim actions (kernel/actions/gang_evict*.c) over whole sessions.
 * The first cases are Volcano's own (gangpreempt_test.go, gangreclaim_test.go: the bundle
 * filters, allowWholeBundle, victim podgroup preemptability, cross-queue reclaim, argument
 * parsing) with their asserts turned into eviction expectations; then domains, safe bundles,
 * nominations honoured by allocate, and the eviction context the plugins read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "session/topo/hypernode.h"

static char yaml[8192];

#define TIERS                    \
	"  tiers:\n"             \
	"  - plugins:\n"         \
	"    - name: priority\n" \
	"    - name: gang\n"

/* One node, a high-priority preemptor (one 1-cpu pod) and a low-priority victim job running
 * its one 1-cpu pod there (minMember 1: losing it breaks the gang, a whole bundle). */
static const char preempt_one[] =
    "name: t\n"
    "conf: |\n"
    "  actions: \"gangpreempt\"\n" TIERS "  configurations:\n"
    "  - name: gangpreempt\n"
    "    arguments: {%s}\n"
    "priorityClasses: [{name: high, value: 100}, {name: low, value: 10}]\n"
    "queues: [{name: q1}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}\n"
    "podGroups:\n"
    "  - {name: victim, namespace: ns, queue: q1, minMember: 1, phase: Running,"
    " priorityClassName: low%s}\n"
    "  - {name: preemptor, namespace: ns, queue: q1, minMember: 1, phase: Inqueue,"
    " priorityClassName: high}\n"
    "pods:\n"
    "  - {name: victim, namespace: ns, podGroup: victim, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}, priorityClassName: low}\n"
    "  - {name: preemptor, namespace: ns, podGroup: preemptor, requests: {cpu: '1'},"
    " priorityClassName: high}\n";

static uint32_t evictions(const pts *p, const char *pod)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < p->log->n_evictions; i++)
		n += !pod || !strcmp(p->log->evictions[i].pod, pod);
	return n;
}

static const char *pipelined(const pts *p, const char *pod)
{
	for (uint32_t i = 0; i < p->log->n_pipelined; i++)
		if (!strcmp(p->log->pipelined[i].pod, pod))
			return p->log->pipelined[i].node;
	return NULL;
}

static void run(pts *p, const char *y)
{
	pts_open(p, y);
	pts_run(p);
}

/* TestSelectDomainVictims_RespectAllowWholeBundle: the victim's only bundle is whole. */
static void test_allow_whole_bundle(void **state)
{
	(void)state;
	pts p;
	snprintf(yaml, sizeof yaml, preempt_one, "allowWholeBundle: false", "");
	run(&p, yaml);
	assert_int_equal(evictions(&p, NULL), 0);
	assert_null(pipelined(&p, "ns/preemptor"));
	pts_free(&p);
	snprintf(yaml, sizeof yaml, preempt_one, "allowWholeBundle: true", "");
	run(&p, yaml);
	assert_int_equal(evictions(&p, "ns/victim"), 1);
	assert_string_equal(p.log->evictions[0].reason, "gangpreempt");
	assert_string_equal(pipelined(&p, "ns/preemptor"), "n1");
	/* ApplySubJobNominations: the flat job's subjob is nominated to the cluster top */
	tph_idx k = tph_job_default_subjob(p.s, pts_job(&p, "ns/preemptor"));
	assert_int_equal(p.s->topo->sj.nominated[k], p.s->topo->t.top);
	pts_free(&p);
}

/* TestSelectDomainVictims_RespectVictimJobPreemptable and ..._AllowVictimJobWhen-
 * PreemptableUnset: the victim podgroup's volcano.sh/preemptable decides when present. */
static void test_victim_job_preemptable(void **state)
{
	(void)state;
	static const char *const ann[] = {", annotations: {volcano.sh/preemptable: 'false'}",
	                                  ", annotations: {volcano.sh/preemptable: 'true'}", ""};
	static const uint32_t want[] = {0, 1, 1};
	for (int i = 0; i < 3; i++) {
		pts p;
		snprintf(yaml, sizeof yaml, preempt_one, "", ann[i]);
		run(&p, yaml);
		assert_int_equal(evictions(&p, "ns/victim"), want[i]);
		pts_free(&p);
	}
}

/* TestParseArguments / ..._InvalidMaxDomainsFallsBackToDefault: a non-positive maxDomains
 * warns and behaves as 8 (the run still evicts). */
static void test_max_domains_default(void **state)
{
	(void)state;
	pts p;
	snprintf(yaml, sizeof yaml, preempt_one, "maxDomains: 0", "");
	run(&p, yaml);
	assert_int_equal(evictions(&p, "ns/victim"), 1);
	pts_free(&p);
}

/* Reclaim: a reclaimer of q1; victims of a reclaimable q2 and of q3 that is not. */
static const char reclaim_cross[] =
    "name: t\n"
    "conf: |\n"
    "  actions: \"gangreclaim\"\n" TIERS "queues:\n"
    "  - {name: q1}\n"
    "  - {name: q2, reclaimable: true}\n"
    "  - {name: q3, reclaimable: false}\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"
    "podGroups:\n"
    "  - {name: victim, namespace: ns, queue: q2, minMember: 1, phase: Running%s}\n"
    "  - {name: other, namespace: ns, queue: q3, minMember: 1, phase: Running}\n"
    "  - {name: reclaimer, namespace: ns, queue: q1, minMember: 1, phase: Inqueue}\n"
    "pods:\n"
    "  - {name: victim, namespace: ns, podGroup: victim, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}}\n"
    "  - {name: other, namespace: ns, podGroup: other, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}}\n"
    "  - {name: reclaimer, namespace: ns, podGroup: reclaimer, requests: {cpu: '1'}}\n";

/* TestSelectDomainVictims_ReclaimableCrossQueueOnly: only the reclaimable queue's task. */
static void test_reclaim_cross_queue(void **state)
{
	(void)state;
	pts p;
	snprintf(yaml, sizeof yaml, reclaim_cross, "");
	run(&p, yaml);
	assert_int_equal(evictions(&p, NULL), 1);
	assert_int_equal(evictions(&p, "ns/victim"), 1);
	assert_string_equal(p.log->evictions[0].reason, "gangreclaim");
	assert_string_equal(pipelined(&p, "ns/reclaimer"), "n1");
	pts_free(&p);
}

/* gangreclaim's RespectVictimJobPreemptable: the only reclaimable victim says false. */
static void test_reclaim_victim_preemptable(void **state)
{
	(void)state;
	pts p;
	snprintf(yaml, sizeof yaml, reclaim_cross,
	         ", annotations: {volcano.sh/preemptable: 'false'}");
	run(&p, yaml);
	assert_int_equal(evictions(&p, NULL), 0);
	assert_null(pipelined(&p, "ns/reclaimer"));
	pts_free(&p);
}

/* Two racks under a spine; high-priority work fills rack r0, low-priority work rack r1; a
 * hard tier-1 preemptor needs two nodes of one rack. Its eviction gradient lists r0, r1. */
static const char racks[] =
    "name: t\n"
    "conf: |\n"
    "  actions: \"gangpreempt%s\"\n" TIERS "    - name: predicates\n"
    "    - name: network-topology-aware\n"
    "  configurations:\n"
    "  - name: gangpreempt\n"
    "    arguments: {%s}\n"
    "priorityClasses: [{name: top, value: 1000}, {name: high, value: 100},"
    " {name: low, value: 10}]\n"
    "queues: [{name: q1}]\n"
    "nodes:\n"
    "  - {name: n0, allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}\n"
    "  - {name: n1, allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}\n"
    "  - {name: n2, allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}\n"
    "  - {name: n3, allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}\n"
    "hyperNodes:\n"
    "  - {name: r0, tier: 1, members: [n0, n1]}\n"
    "  - {name: r1, tier: 1, members: [n2, n3]}\n"
    "  - {name: sp, tier: 2, members: [r0, r1]}\n"
    "podGroups:\n"
    "  - {name: busy, namespace: ns, queue: q1, minMember: 0, phase: Running,"
    " priorityClassName: top}\n"
    "  - {name: low, namespace: ns, queue: q1, minMember: 0, phase: Running,"
    " priorityClassName: low}\n"
    "  - {name: big, namespace: ns, queue: q1, minMember: 2, phase: Inqueue,"
    " priorityClassName: high, networkTopology: {mode: hard, highestTierAllowed: 1}}\n"
    "pods:\n"
    "  - {name: b0, namespace: ns, podGroup: busy, phase: Running, nodeName: n0,"
    " requests: {cpu: '1'}, priorityClassName: top}\n"
    "  - {name: b1, namespace: ns, podGroup: busy, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}, priorityClassName: top}\n"
    "  - {name: l2, namespace: ns, podGroup: low, phase: Running, nodeName: n2,"
    " requests: {cpu: '1'}, priorityClassName: low}\n"
    "  - {name: l3, namespace: ns, podGroup: low, phase: Running, nodeName: n3,"
    " requests: {cpu: '1'}, priorityClassName: low}\n"
    "  - {name: w-0, namespace: ns, podGroup: big, requests: {cpu: '1'},"
    " priorityClassName: high}\n"
    "  - {name: w-1, namespace: ns, podGroup: big, requests: {cpu: '1'},"
    " priorityClassName: high}\n";

/* maxDomains caps the domains scanned: r0 alone has nothing to evict. */
static void test_max_domains(void **state)
{
	(void)state;
	pts p;
	snprintf(yaml, sizeof yaml, racks, "", "maxDomains: 1");
	run(&p, yaml);
	assert_int_equal(evictions(&p, NULL), 0);
	pts_free(&p);
	snprintf(yaml, sizeof yaml, racks, "", "maxDomains: 2");
	run(&p, yaml);
	assert_int_equal(evictions(&p, "ns/l2") + evictions(&p, "ns/l3"), 2);
	assert_int_equal(evictions(&p, NULL), 2);
	assert_non_null(pipelined(&p, "ns/w-0"));
	assert_non_null(pipelined(&p, "ns/w-1"));
	tph_idx k = tph_job_default_subjob(p.s, pts_job(&p, "ns/big"));
	assert_string_equal(tph_hn_name(p.s, p.s->topo->sj.nominated[k]), "r1");
	pts_free(&p);
}

/* A victim job running two tasks with minMember 1 can lose one and stay ready: a safe
 * bundle of its first task (priority, then uid), enough for the preemptor. */
static void test_safe_bundle(void **state)
{
	(void)state;
	pts p;
	run(&p, "name: t\n"
	        "conf: |\n"
	        "  actions: \"gangpreempt\"\n" TIERS
	        "priorityClasses: [{name: high, value: 100}, {name: low, value: 10}]\n"
	        "queues: [{name: q1}]\n"
	        "nodes:\n"
	        "  - {name: n1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"
	        "podGroups:\n"
	        "  - {name: v, namespace: ns, queue: q1, minMember: 1, phase: Running,"
	        " priorityClassName: low}\n"
	        "  - {name: p, namespace: ns, queue: q1, minMember: 1, phase: Inqueue,"
	        " priorityClassName: high}\n"
	        "pods:\n"
	        "  - {name: v-b, namespace: ns, podGroup: v, phase: Running, nodeName: n1,"
	        " requests: {cpu: '1'}, priorityClassName: low}\n"
	        "  - {name: v-a, namespace: ns, podGroup: v, phase: Running, nodeName: n1,"
	        " requests: {cpu: '1'}, priorityClassName: low}\n"
	        "  - {name: p-0, namespace: ns, podGroup: p, requests: {cpu: '1'},"
	        " priorityClassName: high}\n");
	assert_int_equal(evictions(&p, NULL), 1);
	assert_int_equal(evictions(&p, "ns/v-a"), 1);
	pts_free(&p);
}

/* The eviction context: priority filters gang preemption by job priority and lets gang
 * reclaim through; without a context it abstains. */
static void test_eviction_kind_priority(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, "name: t\n"
	             "conf: |\n"
	             "  actions: \"\"\n"
	             "  tiers:\n"
	             "  - plugins:\n"
	             "    - name: priority\n"
	             "priorityClasses: [{name: high, value: 100}, {name: low, value: 10}]\n"
	             "queues: [{name: q1}]\n"
	             "nodes:\n"
	             "  - {name: n1, allocatable: {cpu: '4', memory: 4Gi, pods: '10'}}\n"
	             "podGroups:\n"
	             "  - {name: lo, namespace: ns, queue: q1, phase: Running,"
	             " priorityClassName: low}\n"
	             "  - {name: hi, namespace: ns, queue: q1, phase: Running,"
	             " priorityClassName: high}\n"
	             "  - {name: ev, namespace: ns, queue: q1, phase: Inqueue,"
	             " priorityClassName: high}\n"
	             "pods:\n"
	             "  - {name: lo, namespace: ns, podGroup: lo, phase: Running, nodeName: n1,"
	             " requests: {cpu: '1'}, priorityClassName: low}\n"
	             "  - {name: hi, namespace: ns, podGroup: hi, phase: Running, nodeName: n1,"
	             " requests: {cpu: '1'}, priorityClassName: high}\n"
	             "  - {name: ev, namespace: ns, podGroup: ev, requests: {cpu: '1'},"
	             " priorityClassName: high}\n");
	tph_session *s = p.s;
	tph_idx c[2] = {pts_task(&p, "ns/lo"), pts_task(&p, "ns/hi")}, out[2];
	tph_idx ev = pts_job(&p, "ns/ev");
	s->eviction = (tph_eviction){TPH_EVICT_GANG_PREEMPT, ev, s->topo->t.top, NULL, 0};
	assert_int_equal(tph_unified_evictable(s, TPH_NOIDX, c, 2, out), 1);
	assert_int_equal(out[0], c[0]);
	s->eviction.kind = TPH_EVICT_GANG_RECLAIM;
	assert_int_equal(tph_unified_evictable(s, TPH_NOIDX, c, 2, out), 2);
	s->eviction = (tph_eviction){0};
	assert_int_equal(tph_unified_evictable(s, TPH_NOIDX, c, 2, out), 0);
	pts_free(&p);
}

/* capacity: gang preemption takes every candidate; gang reclaim only what leaves a queue
 * over its deserved share. */
static void test_eviction_kind_capacity(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, "name: t\n"
	             "conf: |\n"
	             "  actions: \"\"\n"
	             "  tiers:\n"
	             "  - plugins:\n"
	             "    - name: capacity\n"
	             "queues:\n"
	             "  - {name: q1, deserved: {cpu: '1', memory: 1Gi}}\n"
	             "  - {name: q2, deserved: {cpu: '4', memory: 4Gi}}\n"
	             "nodes:\n"
	             "  - {name: n1, allocatable: {cpu: '8', memory: 8Gi, pods: '10'}}\n"
	             "podGroups:\n"
	             "  - {name: v, namespace: ns, queue: q2, phase: Running}\n"
	             "  - {name: ev, namespace: ns, queue: q1, phase: Inqueue}\n"
	             "pods:\n"
	             "  - {name: v, namespace: ns, podGroup: v, phase: Running, nodeName: n1,"
	             " requests: {cpu: '1', memory: 1Gi}}\n"
	             "  - {name: ev, namespace: ns, podGroup: ev, requests: {cpu: '1'}}\n");
	tph_session *s = p.s;
	tph_idx c[1] = {pts_task(&p, "ns/v")}, out[1];
	s->eviction = (tph_eviction){TPH_EVICT_GANG_PREEMPT, pts_job(&p, "ns/ev"), 0, NULL, 0};
	assert_int_equal(tph_unified_evictable(s, TPH_NOIDX, c, 1, out), 1);
	s->eviction.kind = TPH_EVICT_GANG_RECLAIM;
	assert_int_equal(tph_unified_evictable(s, TPH_NOIDX, c, 1, out), 0);
	s->eviction = (tph_eviction){0};
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_allow_whole_bundle),
	    cmocka_unit_test(test_victim_job_preemptable),
	    cmocka_unit_test(test_max_domains_default),
	    cmocka_unit_test(test_reclaim_cross_queue),
	    cmocka_unit_test(test_reclaim_victim_preemptable),
	    cmocka_unit_test(test_max_domains),
	    cmocka_unit_test(test_safe_bundle),
	    cmocka_unit_test(test_eviction_kind_priority),
	    cmocka_unit_test(test_eviction_kind_capacity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

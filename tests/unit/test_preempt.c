/* The preempt action: whole sessions with the priority, gang and conformance plugins plus evtest's
 * knobs: victims inside the queue only, rollback of evictions that do not make room, unresolvable
 * nodes skipped, shards, preemption inside a job, and the topology-aware dry run with its candidate
 * knobs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "session/victim_order.h"
#include "evict/evict_util.h"
#include "evict_test.h"
#include "session/fitlog.h"
#include "base/mem.h"

/* ---- scenarios ---- */

#define HEAD(actions, preempt_args)           \
	"name: t\n"                           \
	"conf: |\n"                           \
	"  actions: \"" actions "\"\n"        \
	"  tiers:\n"                          \
	"  - plugins:\n"                      \
	"    - name: priority\n"              \
	"    - name: gang\n"                  \
	"    - name: conformance\n"           \
	"  - plugins:\n"                      \
	"    - name: evtest\n"                \
	"      arguments: {@}\n"              \
	"  configurations:\n"                 \
	"  - name: preempt\n"                 \
	"    arguments: {" preempt_args "}\n" \
	"priorityClasses:\n"                  \
	"  - {name: high, value: 1000}\n"     \
	"  - {name: mid, value: 50}\n"        \
	"  - {name: low, value: 10}\n"        \
	"  - {name: lowest, value: 5}\n"

/* Two full 1-cpu nodes, a low job running on each, a high job with one pending pod. */
static const char two_nodes[] =
    "queues: [{name: q1}, {name: q2}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}\n"
    "  - {name: n2, allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}\n"
    "podGroups:\n"
    "  - {name: pga, namespace: c1, queue: q1, minMember: 0, phase: Running,"
    " priorityClassName: @}\n"
    "  - {name: pgb, namespace: c1, queue: q1, minMember: 0, phase: Running,"
    " priorityClassName: @}\n"
    "  - {name: pgh, namespace: c1, queue: @, minMember: 1, phase: Inqueue,"
    " priorityClassName: high}\n"
    "pods:\n"
    "  - {name: a1, namespace: c1, podGroup: pga, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}, priorityClassName: @}\n"
    "  - {name: b1, namespace: c1, podGroup: pgb, phase: Running, nodeName: n2,"
    " requests: {cpu: '1'}, priorityClassName: @}\n"
    "  - {name: h1, namespace: c1, podGroup: pgh, phase: Pending, requests: {cpu: '1'}"
    "@}\n";

static char yaml[8192];

static const char *scenario(const char *head, const char *evargs, const char *body, const char *pa,
                            const char *pb, const char *hq, const char *extra, const char *shard)
{
	char h[4096], b[4096];
	const char *ha[] = {evargs}, *ba[] = {pa, pb, hq, pa, pb, extra};
	ev_fill(h, sizeof h, head, ha);
	ev_fill(b, sizeof b, body, ba);
	int n = snprintf(yaml, sizeof yaml, "%s%s%s", h, shard, b);
	assert_true(n > 0 && (size_t)n < sizeof yaml);
	return yaml;
}

static void run_two(ev_run *r, const char *head, const char *evargs, const char *extra,
                    const char *hq, const char *shard)
{
	ev_run_yaml(r, scenario(head, evargs, two_nodes, "low", "low", hq, extra, shard));
}

static void test_evicts_on_first_node_and_pipelines(void **state)
{
	(void)state;
	ev_run r;
	run_two(&r, HEAD("preempt", ""), "", "", "q1", "");
	assert_string_equal(ev_evictions(&r), "c1/a1:preempt;");
	assert_string_equal(ev_pipelined(&r), "c1/h1@n1;");
	assert_int_equal(r.log->n_binds, 0);
	pts_free(&r);
}

static void test_other_queue_is_not_preempted(void **state)
{
	(void)state;
	ev_run r;
	run_two(&r, HEAD("preempt", ""), "", "", "q2", "");
	assert_string_equal(ev_evictions(&r), "");
	assert_string_equal(ev_pipelined(&r), "");
	pts_free(&r);
}

static void test_never_policy_preempts_nothing(void **state)
{
	(void)state;
	ev_run r;
	run_two(&r, HEAD("preempt", ""), "", ", preemptionPolicy: Never", "q1", "");
	assert_string_equal(ev_evictions(&r), "");
	pts_free(&r);
}

static void test_unresolvable_node_is_skipped(void **state)
{
	(void)state;
	ev_run r;
	run_two(&r, HEAD("preempt", ""), "unresolvableNode: n1", "", "q1", "");
	assert_string_equal(ev_evictions(&r), "c1/b1:preempt;");
	assert_string_equal(ev_pipelined(&r), "c1/h1@n2;");
	pts_free(&r);
}

/* A resolvable failure keeps n1 a candidate, but the preemptor never fits there: the trial
 * eviction on n1 is rolled back and never logged. */
static void test_trial_eviction_rolled_back(void **state)
{
	(void)state;
	ev_run r;
	run_two(&r, HEAD("preempt", ""), "resolvableNode: n1", "", "q1", "");
	assert_string_equal(ev_evictions(&r), "c1/b1:preempt;");
	assert_string_equal(ev_pipelined(&r), "c1/h1@n2;");
	pts_free(&r);
}

/* Allocate's record of unresolvable nodes (job.NodesFitErrors) keeps preempt off n1. */
static void test_recorded_fit_nodes_are_skipped(void **state)
{
	(void)state;
	ev_run r;
	ev_open(&r, scenario(HEAD("preempt", ""), "", two_nodes, "low", "low", "q1", "", ""));
	tph_session *s = r.s;
	tph_idx h1 = TPH_NOIDX;
	for (tph_idx t = 0; t < s->tasks.n; t++)
		if (!strcmp(tph_strtab_str(s->snap->strs, s->tasks.name[t]), "h1"))
			h1 = t;
	const tph_idx nodes[] = {0, 1};
	const tph_reason_code codes[] = {tph_reason(s, "node(s) were fenced off", true), TPH_PASS};
	assert_int_equal(tph_fitlog_nodes(s, h1, nodes, codes, 2), TPH_OK);
	const tph_idx *skip;
	assert_int_equal(tph_fitlog_unresolvable(s, h1, &skip), 1);
	assert_int_equal(skip[0], 0);
	pts_run(&r);
	assert_string_equal(ev_evictions(&r), "c1/b1:preempt;");
	pts_free(&r);
}

static void test_hard_shard_limits_nodes(void **state)
{
	(void)state;
	ev_run r;
	run_two(&r, HEAD("preempt", ""), "", "", "q1",
	        "shard: {name: s, mode: hard, nodes: [n2]}\n");
	assert_string_equal(ev_evictions(&r), "c1/b1:preempt;");
	pts_free(&r);
}

static void test_soft_shard_prefers_shard(void **state)
{
	(void)state;
	ev_run r;
	run_two(&r, HEAD("preempt", ""), "", "", "q1",
	        "shard: {name: s, mode: soft, nodes: [n2]}\n");
	assert_string_equal(ev_evictions(&r), "c1/b1:preempt;");
	pts_free(&r);
}

/* The dry run finds one candidate by default (10% of 2 nodes, at least 1): n1. */
static void test_topology_default_one_candidate(void **state)
{
	(void)state;
	ev_run r;
	ev_run_yaml(&r, scenario(HEAD("preempt", "enableTopologyAwarePreemption: true"), "",
	                         two_nodes, "mid", "low", "q1", "", ""));
	assert_string_equal(ev_evictions(&r), "c1/a1:preempt;");
	assert_string_equal(ev_pipelined(&r), "c1/h1@n1;");
	assert_int_equal(evtest_sim_removed, 0);
	pts_free(&r);
}

/* With two candidates, the node whose highest victim priority is lowest wins. */
static void test_topology_picks_lowest_victims(void **state)
{
	(void)state;
	ev_run r;
	ev_run_yaml(&r, scenario(HEAD("preempt", "enableTopologyAwarePreemption: true, "
	                                         "minCandidateNodesAbsolute: 2"),
	                         "", two_nodes, "mid", "low", "q1", "", ""));
	assert_string_equal(ev_evictions(&r), "c1/b1:preempt;");
	assert_string_equal(ev_pipelined(&r), "c1/h1@n2;");
	assert_int_equal(evtest_sim_removed, 0);
	pts_free(&r);
}

/* One 3-cpu node: small (1 cpu, lowest) and big (2 cpu, low); the preemptor needs 2 cpu.
 * Both come off in victim order; normal preemption evicts both, the dry run gives small back. */
static const char reprieve_body[] =
    "queues: [{name: q1}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '3', memory: 4Gi, pods: '10'}}\n"
    "podGroups:\n"
    "  - {name: pgs, namespace: c1, queue: q1, minMember: 0, phase: Running,"
    " priorityClassName: lowest}\n"
    "  - {name: pgb, namespace: c1, queue: q1, minMember: 0, phase: Running,"
    " priorityClassName: low}\n"
    "  - {name: pgh, namespace: c1, queue: q1, minMember: 1, phase: Inqueue,"
    " priorityClassName: high}\n"
    "pods:\n"
    "  - {name: small, namespace: c1, podGroup: pgs, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}, priorityClassName: lowest}\n"
    "  - {name: big, namespace: c1, podGroup: pgb, phase: Running, nodeName: n1,"
    " requests: {cpu: '2'}, priorityClassName: low}\n"
    "  - {name: h1, namespace: c1, podGroup: pgh, phase: Pending, requests: {cpu: '2'}}\n";

static void test_normal_evicts_in_victim_order(void **state)
{
	(void)state;
	ev_run r;
	char h[4096];
	const char *none[] = {""};
	ev_fill(h, sizeof h, HEAD("preempt", ""), none);
	snprintf(yaml, sizeof yaml, "%s%s", h, reprieve_body);
	ev_run_yaml(&r, yaml);
	assert_string_equal(ev_evictions(&r), "c1/small:preempt;c1/big:preempt;");
	pts_free(&r);
}

static void test_topology_reprieves(void **state)
{
	(void)state;
	ev_run r;
	char h[4096];
	const char *none[] = {""};
	ev_fill(h, sizeof h, HEAD("preempt", "enableTopologyAwarePreemption: true"), none);
	snprintf(yaml, sizeof yaml, "%s%s", h, reprieve_body);
	ev_run_yaml(&r, yaml);
	assert_string_equal(ev_evictions(&r), "c1/big:preempt;");
	assert_string_equal(ev_pipelined(&r), "c1/h1@n1;");
	assert_int_equal(evtest_sim_removed, 0);
	pts_free(&r);
}

/* Victims whose job is not in the session (a bare pod, with no queue "default" for a job of its
 * own) pop before every other, whatever order they came in (BuildVictimsPriorityQueue). */
static void test_victims_without_job_first(void **state)
{
	(void)state;
	pts p;
	pts_open(&p,
	         "conf: |\n  actions: \"preempt\"\n  tiers:\n  - plugins:\n    - name: priority\n"
	         "queues: [{name: q1}]\n"
	         "nodes:\n"
	         "  - {name: n1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"
	         "podGroups:\n"
	         "  - {name: pga, namespace: c1, queue: q1, phase: Running}\n"
	         "  - {name: pgh, namespace: c1, queue: q1, phase: Inqueue}\n"
	         "pods:\n"
	         "  - {name: a1, namespace: c1, podGroup: pga, phase: Running, nodeName: n1,"
	         " requests: {cpu: '1'}}\n"
	         "  - {name: bare, namespace: c1, phase: Running, nodeName: n1,"
	         " requests: {cpu: '1'}}\n"
	         "  - {name: h1, namespace: c1, podGroup: pgh, requests: {cpu: '1'}}\n");
	tph_idx a1 = pts_task(&p, "c1/a1"), bare = pts_task(&p, "c1/bare");
	assert_int_equal(p.s->tasks.job[bare], TPH_NOIDX);
	assert_int_not_equal(p.s->tasks.job[a1], TPH_NOIDX);
	tph_idx h1 = pts_task(&p, "c1/h1");
	const tph_idx orders[2][2] = {{a1, bare}, {bare, a1}};
	for (int k = 0; k < 2; k++) {
		uint32_t perm[2];
		tph_victims_pop_order(p.s, h1, orders[k], 2, perm);
		assert_int_equal(orders[k][perm[0]], bare);
		assert_int_equal(orders[k][perm[1]], a1);
	}
	pts_free(&p);
}

/* Inside one job: the pending high-priority task evicts its own job's low-priority task. */
static void test_preempts_inside_job(void **state)
{
	(void)state;
	ev_run r;
	ev_run_yaml(&r, "name: t\n"
	                "conf: |\n"
	                "  actions: preempt\n"
	                "  tiers:\n"
	                "  - plugins:\n"
	                "    - name: priority\n"
	                "priorityClasses: [{name: high, value: 1000}, {name: low, value: 10}]\n"
	                "queues: [{name: q1}]\n"
	                "nodes: [{name: n1, allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}]\n"
	                "podGroups: [{name: pg, namespace: c1, queue: q1, phase: Running}]\n"
	                "pods:\n"
	                "  - {name: lo, namespace: c1, podGroup: pg, phase: Running, nodeName: n1,"
	                " requests: {cpu: '1'}, priorityClassName: low}\n"
	                "  - {name: hi, namespace: c1, podGroup: pg, phase: Pending,"
	                " requests: {cpu: '1'}, priorityClassName: high}\n");
	assert_string_equal(ev_evictions(&r), "c1/lo:preempt;");
	assert_string_equal(ev_pipelined(&r), "c1/hi@n1;");
	pts_free(&r);
}

/* A preemptor larger than the node: the victims cannot make room, nothing is evicted. */
static void test_victims_too_small(void **state)
{
	(void)state;
	ev_run r;
	char h[4096];
	const char *none[] = {""};
	ev_fill(h, sizeof h, HEAD("preempt", ""), none);
	snprintf(yaml, sizeof yaml, "%s%s", h, reprieve_body);
	char *p = strstr(yaml, "requests: {cpu: '2'}}\n");
	assert_non_null(p);
	memcpy(p, "requests: {cpu: '4'}}\n", 22);
	ev_run_yaml(&r, yaml);
	assert_string_equal(ev_evictions(&r), "");
	assert_string_equal(ev_pipelined(&r), "");
	pts_free(&r);
}

/* Out of memory anywhere in the run is reported, never a silently smaller preemption. */
static void test_out_of_memory_is_reported(void **state)
{
	(void)state;
	ev_expect_oom_safe(
	    scenario(HEAD("preempt", ""), "", two_nodes, "low", "low", "q1", "", ""));
}

/* Three full nodes, a low pod on each, two high preemptors in one queue. With one feasible
 * node to find, the first scan takes n1 and processes n2 (it passes beyond); Volcano's
 * sampling starts the second preemptor's scan at n3, the knob alone at n1 again. */
static const char three_nodes[] =
    "queues: [{name: q1}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}\n"
    "  - {name: n2, allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}\n"
    "  - {name: n3, allocatable: {cpu: '1', memory: 4Gi, pods: '10'}}\n"
    "podGroups:\n"
    "  - {name: pgl, namespace: c1, queue: q1, minMember: 0, phase: Running,"
    " priorityClassName: low}\n"
    "  - {name: pgh, namespace: c1, queue: q1, minMember: 1, phase: Inqueue,"
    " priorityClassName: high}\n"
    "  - {name: pgi, namespace: c1, queue: q1, minMember: 1, phase: Inqueue,"
    " priorityClassName: high, creationTimestamp: '2026-01-01T00:00:01Z'}\n"
    "pods:\n"
    "  - {name: a1, namespace: c1, podGroup: pgl, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}, priorityClassName: low}\n"
    "  - {name: b1, namespace: c1, podGroup: pgl, phase: Running, nodeName: n2,"
    " requests: {cpu: '1'}, priorityClassName: low}\n"
    "  - {name: c1, namespace: c1, podGroup: pgl, phase: Running, nodeName: n3,"
    " requests: {cpu: '1'}, priorityClassName: low}\n"
    "  - {name: h1, namespace: c1, podGroup: pgh, requests: {cpu: '1'}}\n"
    "  - {name: i1, namespace: c1, podGroup: pgi, requests: {cpu: '1'}}\n";

static void test_volcano_sampling_moves_scans(void **state)
{
	(void)state;
	char head[4096], doc[8192];
	const char *none[] = {""};
	ev_fill(head, sizeof head, HEAD("preempt", "minimum-feasible-nodes: 1"), none);
	ev_run r;
	snprintf(doc, sizeof doc, "nodeSampling: volcano\n%s%s", head, three_nodes);
	ev_run_yaml(&r, doc);
	assert_string_equal(ev_evictions(&r), "c1/a1:preempt;c1/c1:preempt;");
	assert_string_equal(ev_pipelined(&r), "c1/h1@n1;c1/i1@n3;");
	pts_free(&r);
	snprintf(doc, sizeof doc, "%s%s", head, three_nodes);
	ev_run_yaml(&r, doc);
	assert_string_equal(ev_evictions(&r), "c1/a1:preempt;");
	pts_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_evicts_on_first_node_and_pipelines),
	    cmocka_unit_test(test_other_queue_is_not_preempted),
	    cmocka_unit_test(test_never_policy_preempts_nothing),
	    cmocka_unit_test(test_unresolvable_node_is_skipped),
	    cmocka_unit_test(test_trial_eviction_rolled_back),
	    cmocka_unit_test(test_recorded_fit_nodes_are_skipped),
	    cmocka_unit_test(test_hard_shard_limits_nodes),
	    cmocka_unit_test(test_soft_shard_prefers_shard),
	    cmocka_unit_test(test_topology_default_one_candidate),
	    cmocka_unit_test(test_topology_picks_lowest_victims),
	    cmocka_unit_test(test_normal_evicts_in_victim_order),
	    cmocka_unit_test(test_topology_reprieves),
	    cmocka_unit_test(test_preempts_inside_job),
	    cmocka_unit_test(test_victims_without_job_first),
	    cmocka_unit_test(test_victims_too_small),
	    cmocka_unit_test(test_out_of_memory_is_reported),
	    cmocka_unit_test(test_volcano_sampling_moves_scans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

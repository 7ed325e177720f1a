/* Unit tests for the scenario loader (kernel/src/scenario_*.c, yaml_*.c): defaults, the three
 * ways to give a conf, enable flags, argument trees, timestamps, durations, the `now` rule,
 * references, expect/probe decoding, and every conformance fixture. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache/cluster_int.h"
#include "load/conf_int.h"
#include "load/scenario_int.h"
#include "tephra/scenario.h"
#include "load/yaml_util.h"
#include "shared_data.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static unsigned warnings_seen;

static void count_warning(void *ud, const char *msg)
{
	(void)ud;
	(void)msg;
	warnings_seen++;
}

static tph_scenario *load_ok(const char *yaml)
{
	tph_diag d = {.warn = count_warning};
	tph_scenario *s = NULL;
	int rc = tph_scenario_load_buffer(yaml, strlen(yaml), "test.yaml", &s, &d);
	if (rc != TPH_OK) {
		print_error("load failed (%d): %s\n", rc, d.msg);
		fail();
	}
	return s;
}

static int load_bad(const char *yaml, char *msg, size_t cap)
{
	tph_diag d = {0};
	tph_scenario *s = (tph_scenario *)0x1;
	int rc = tph_scenario_load_buffer(yaml, strlen(yaml), "bad.yaml", &s, &d);
	assert_null(s);
	snprintf(msg, cap, "%s", d.msg);
	return rc;
}

/* ---- defaults ------------------------------------------------------------------------------- */

static const char *minimal = "queues:\n"
                             "  - name: root\n"
                             "  - name: q1\n"
                             "nodes:\n"
                             "  - name: n1\n"
                             "    allocatable: {cpu: 2, memory: 4Gi, pods: \"10\"}\n"
                             "podGroups:\n"
                             "  - name: pg\n"
                             "    subGroupPolicy: [{name: w}]\n"
                             "    networkTopology: {highestTierAllowed: 1}\n"
                             "pods:\n"
                             "  - name: p\n"
                             "    tolerations: [{key: k, value: v}]\n"
                             "shard: {nodes: [n1]}\n";

struct want {
	const char *what;
	long long got;
	long long want;
};

static void test_defaults(void **state)
{
	(void)state;
	tph_scenario *s = load_ok(minimal);
	const tph_queue_desc *root = &s->queues[0].d, *q1 = &s->queues[1].d;
	const tph_podgroup_desc *g = &s->podgroups[0].d;
	const tph_pod_desc *p = &s->pods[0].d;
	const struct want table[] = {
	    {"enableFlagsDefault", s->enable_flags_default, 1},
	    {"now", s->now, 0},
	    {"queue weight", q1->weight, 1},
	    {"queue reclaimable", q1->not_reclaimable, 0},
	    {"queue state", q1->state, TPH_QUEUE_OPEN},
	    {"queue parent is root", strcmp(q1->parent, "root"), 0},
	    {"root has no parent", root->parent == NULL, 1},
	    {"node ready", s->nodes[0].d.not_ready, 0},
	    {"node capacity (= allocatable)", s->nodes[0].d.capacity.n, 0},
	    {"node cpu", s->nodes[0].d.allocatable.items[0].value, 2000},
	    {"podgroup namespace", strcmp(g->namespace_, "default"), 0},
	    {"podgroup queue", strcmp(g->queue, "default"), 0},
	    {"podgroup minMember", g->min_member, 1},
	    {"podgroup phase", g->phase, TPH_PG_PENDING},
	    {"podgroup uid", strcmp(g->uid, "default/pg"), 0},
	    {"podgroup topology mode (hard when given)", g->topology.mode, TPH_TOPO_HARD},
	    {"podgroup highest tier", g->topology.highest_tier, 1},
	    {"podgroup minResources", g->has_min_resources, 0},
	    {"subgroup size", g->subgroups[0].subgroup_size, 1},
	    {"subgroup minSubGroups", g->subgroups[0].min_subgroups, 0},
	    {"subgroup topology", g->subgroups[0].topology.mode, TPH_TOPO_NONE},
	    {"subgroup selector", g->subgroups[0].selector.present, 0},
	    {"pod namespace", strcmp(p->namespace_, "default"), 0},
	    {"pod phase", p->phase, TPH_POD_PENDING},
	    {"pod uid", strcmp(p->uid, "default-p"), 0},
	    {"pod unbound", p->node_name == NULL, 1},
	    {"pod podGroup", p->pod_group == NULL, 1},
	    {"pod best-effort", p->requests.n, 0},
	    {"pod preemptable unset", p->preemptable, TPH_PREEMPTABLE_UNSET},
	    {"pod priority unset", p->has_priority, 0},
	    {"pod priority class", p->priority_class == NULL, 1},
	    {"pod affinity", p->affinity == NULL, 1},
	    {"toleration operator", p->tolerations[0].op, TPH_TOL_EQUAL},
	    {"toleration effect (all)", p->tolerations[0].effect, -1},
	    {"shard mode", s->shard.mode, TPH_SHARD_HARD},
	    {"no expect", tph_scenario_has_expect(s), 0},
	    {"no probe", tph_scenario_has_probe(s), 0},
	    {"no conf", tph_scenario_conf(s) == NULL, 1},
	};
	for (size_t i = 0; i < N_ELEMS(table); i++) {
		if (table[i].got != table[i].want) {
			print_error("%s: got %lld, want %lld\n", table[i].what, table[i].got,
			            table[i].want);
			fail();
		}
	}
	assert_string_equal(tph_scenario_name(s), "");
	assert_int_equal(tph_cluster_node_count(tph_scenario_cluster(s)), 1);
	assert_int_equal(tph_cluster_pod_count(tph_scenario_cluster(s)), 1);
	tph_scenario_free(s);
}

static void test_quantities(void **state)
{
	(void)state;
	tph_scenario *s =
	    load_ok("nodes:\n"
	            "  - name: n1\n"
	            "    allocatable: {cpu: \"500m\", memory: 1G, pods: 10,"
	            " nvidia.com/gpu: 2, ephemeral-storage: 1Ki, hugepages-2Mi: 2Mi}\n");
	const tph_res_list *r = &s->nodes[0].d.allocatable;
	const struct {
		const char *name;
		int64_t v;
	} want[] = {{"cpu", 500},
	            {"memory", 1000000000},
	            {"pods", 10000},
	            {"nvidia.com/gpu", 2000},
	            {"ephemeral-storage", 1024},
	            {"hugepages-2Mi", 2097152}};
	assert_int_equal(r->n, N_ELEMS(want));
	for (size_t i = 0; i < N_ELEMS(want); i++) {
		assert_string_equal(r->items[i].name, want[i].name);
		assert_int_equal(r->items[i].value, want[i].v);
	}
	tph_scenario_free(s);
}

/* ---- the full shapes of the spec ---------------------------------------------------------- */

static const char *full =
    "name: \"two jobs share one node\"\n"
    "now: \"2026-01-01T00:10:00Z\"\n"
    "enableFlagsDefault: false\n"
    "conf: |\n"
    "  actions: \"enqueue, allocate\"\n"
    "  tiers:\n"
    "  - plugins:\n"
    "    - name: gang\n"
    "    - name: predicates\n"
    "priorityClasses:\n"
    "  - {name: high, value: 1000, preemptionPolicy: PreemptLowerPriority}\n"
    "  - {name: low,  value: 10, globalDefault: false, preemptionPolicy: Never}\n"
    "queues:\n"
    "  - name: c1\n"
    "    weight: 3\n"
    "    capability: {cpu: \"4\", memory: 8Gi}\n"
    "    deserved:   {cpu: \"2\"}\n"
    "    guarantee:  {cpu: \"1\"}\n"
    "    reclaimable: false\n"
    "    state: Closing\n"
    "    parent: root\n"
    "    priority: 7\n"
    "    annotations: {a: b}\n"
    "    affinity:\n"
    "      nodeGroupAffinity:\n"
    "        requiredDuringSchedulingIgnoredDuringExecution: [group-a]\n"
    "        preferredDuringSchedulingIgnoredDuringExecution: [group-b]\n"
    "      nodeGroupAntiAffinity:\n"
    "        requiredDuringSchedulingIgnoredDuringExecution: [group-c]\n"
    "nodes:\n"
    "  - name: n1\n"
    "    allocatable: {cpu: \"2\", memory: 4Gi, pods: \"10\", nvidia.com/gpu: \"8\"}\n"
    "    capacity:    {cpu: \"2\", memory: 4Gi}\n"
    "    labels: {zone: a, nodeRole: worker, rack: r1}\n"
    "    taints: [{key: dedicated, value: gpu, effect: NoSchedule}]\n"
    "    unschedulable: true\n"
    "    ready: false\n"
    "    usage: {period: 5m, cpu: 40.0, memory: 30, metricsTime: \"2026-01-01T00:05:00Z\"}\n"
    "  - {name: n2, allocatable: {pods: 1}}\n"
    "  - {name: r1-n7, allocatable: {pods: 1}}\n"
    "hyperNodes:\n"
    "  - {name: rack0, tier: 1, tierName: rack, members: [n1, n2]}\n"
    "  - {name: rack1, tier: 1, members: [{regex: \"^r1-n[0-9]+$\"}, {labels: {rack: r1}}]}\n"
    "  - {name: spine0, tier: 2, members: [rack0, rack1]}\n"
    "resourceQuotas:\n"
    "  - {name: q-c1, namespace: c1, hard: {cpu: \"10\", memory: 20Gi, pods: \"50\"}}\n"
    "shard: {name: shard-a, mode: soft, nodes: [n1, n2]}\n"
    "podGroups:\n"
    "  - name: pg1\n"
    "    namespace: c1\n"
    "    queue: c1\n"
    "    minMember: 2\n"
    "    minTaskMember: {master: 1, worker: 1, \"\": 0}\n"
    "    minResources: {cpu: \"2\", memory: 2Gi}\n"
    "    phase: Inqueue\n"
    "    priorityClassName: high\n"
    "    creationTimestamp: \"2026-01-01T00:00:00Z\"\n"
    "    annotations: {sla-waiting-time: 30m}\n"
    "    uid: my-uid\n"
    "    networkTopology: {mode: soft, highestTierName: rack}\n"
    "    subGroupPolicy:\n"
    "      - name: workers\n"
    "        subGroupSize: 4\n"
    "        minSubGroups: 2\n"
    "        matchLabelKeys: [volcano.sh/task-index-group]\n"
    "        labelSelector: {matchLabels: {role: worker}}\n"
    "        networkTopology: {mode: hard, highestTierAllowed: 1}\n"
    "  - {name: pg2, namespace: c1, queue: c1}\n"
    "pods:\n"
    "  - name: p1\n"
    "    namespace: c1\n"
    "    podGroup: pg1\n"
    "    phase: Running\n"
    "    nodeName: n1\n"
    "    requests: {cpu: \"1\", memory: 1G}\n"
    "    taskSpec: master\n"
    "    labels: {app: web}\n"
    "    annotations: {volcano.sh/preemptable: \"true\"}\n"
    "    nodeSelector: {nodeRole: master}\n"
    "    tolerations: [{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule},\n"
    "                  {operator: Exists, tolerationSeconds: 30}]\n"
    "    affinity:\n"
    "      nodeAffinity:\n"
    "        requiredDuringSchedulingIgnoredDuringExecution:\n"
    "          nodeSelectorTerms:\n"
    "          - matchExpressions: [{key: zone, operator: In, values: [a, b]},\n"
    "                               {key: gen, operator: Gt, values: [\"3\"]}]\n"
    "        preferredDuringSchedulingIgnoredDuringExecution:\n"
    "        - weight: 10\n"
    "          preference: {matchExpressions: [{key: zone, operator: In, values: [a]}]}\n"
    "      podAffinity:\n"
    "        preferredDuringSchedulingIgnoredDuringExecution:\n"
    "        - weight: 5\n"
    "          podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: zone}\n"
    "      podAntiAffinity:\n"
    "        requiredDuringSchedulingIgnoredDuringExecution:\n"
    "        - labelSelector:\n"
    "            matchExpressions: [{key: app, operator: Exists}]\n"
    "          namespaces: [c1, c2]\n"
    "          topologyKey: kubernetes.io/hostname\n"
    "    topologySpreadConstraints:\n"
    "      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule,\n"
    "         labelSelector: {matchLabels: {app: web}}, minDomains: 2}\n"
    "    priorityClassName: high\n"
    "    priority: 100\n"
    "    preemptionPolicy: Never\n"
    "    preemptable: false\n"
    "    nominatedNodeName: n2\n"
    "    deleting: true\n"
    "    creationTimestamp: \"2026-01-01T00:00:00Z\"\n"
    "    uid: c1-p1\n"
    "  - {name: p2, namespace: c1, podGroup: pg1, nodeName: \"\"}\n"
    "  - {name: p3, namespace: c1, podGroup: pg2, phase: Running, nodeName: n2}\n"
    "  - {name: p9, namespace: c1, podGroup: pg2}\n"
    "expect:\n"
    "  binds: {c1/p2: n1}\n"
    "  bindCount: 1\n"
    "  evictions: [c1/p3]\n"
    "  evictionCount: 1\n"
    "  pipelined: {c1/pg2: [n2]}\n"
    "  podGroupPhases: {c1/pg1: Running}\n"
    "  taskStatusCounts: {c1/pg1: {Pending: 1, Allocated: 2}}\n"
    "  bindsPerHyperNode: [2, 2]\n"
    "probe:\n"
    "  nodeScores: {c1/p2: {n1: 75.0, n2: 40}}\n"
    "  feasibleNodes: {c1/p2: [n1, r1-n7]}\n"
    "  jobOrder: [c1/pg2, c1/pg1]\n"
    "  taskOrder: [c1/p2, c1/p1]\n"
    "  queueOrder: [c1]\n"
    "  jobEnqueueable: {c1/pg1: false}\n"
    "  jobReady: {c1/pg1: false}\n"
    "  jobPipelined: {c1/pg1: false}\n"
    "  jobStarving: {c1/pg1: true}\n"
    "  jobValid: {c1/pg1: false}\n"
    "  overused: {c1: true}\n"
    "  victims:\n"
    "    - {preemptor: c1/p9, candidates: [c1/p1, c1/p3], preemptable: [c1/p1]}\n"
    "    - {reclaimer: c1/p9, candidates: [c1/p1, c1/p3], reclaimable: []}\n";

static void check_full_objects(const tph_scenario *s)
{
	assert_string_equal(tph_scenario_name(s), "two jobs share one node");
	assert_int_equal(tph_scenario_now(s), 1767226200000LL);
	assert_false(tph_scenario_enable_flags_default(s));
	assert_int_equal(s->n_pclasses, 2);
	assert_true(s->pclasses[1].d.preempt_never);
	const tph_queue_desc *q = &s->queues[0].d;
	assert_int_equal(q->weight, 3);
	assert_true(q->not_reclaimable);
	assert_int_equal(q->state, TPH_QUEUE_CLOSING);
	assert_int_equal(q->affinity_required.n, 1);
	assert_string_equal(q->affinity_preferred.items[0], "group-b");
	assert_string_equal(q->anti_affinity_required.items[0], "group-c");
	const tph_node_desc *n = &s->nodes[0].d;
	assert_true(n->unschedulable);
	assert_true(n->not_ready);
	assert_int_equal(n->usage.period_s, 300);
	assert_true(n->usage.cpu_pct == 40.0);
	assert_int_equal(n->usage.metrics_time, 1767225900000LL);
	assert_int_equal(n->taints[0].effect, TPH_TAINT_NO_SCHEDULE);
	const tph_hypernode_desc *h = &s->hypernodes[1].d;
	assert_int_equal(h->members[0].kind, TPH_MEMBER_REGEX);
	assert_int_equal(h->members[1].kind, TPH_MEMBER_LABELS);
	assert_string_equal(s->hypernodes[0].d.tier_name, "rack");
	assert_int_equal(s->shard.mode, TPH_SHARD_SOFT);
	const tph_podgroup_desc *g = &s->podgroups[0].d;
	assert_int_equal(g->n_min_tasks, 3);
	assert_string_equal(g->min_tasks[2].task_spec, "");
	assert_string_equal(g->uid, "my-uid");
	assert_int_equal(g->topology.mode, TPH_TOPO_SOFT);
	assert_int_equal(g->topology.highest_tier, -1);
	assert_string_equal(g->topology.highest_tier_name, "rack");
	assert_int_equal(g->subgroups[0].subgroup_size, 4);
	assert_true(g->subgroups[0].selector.present);
}

static void check_full_pod(const tph_scenario *s)
{
	const tph_pod_desc *p = &s->pods[0].d;
	assert_int_equal(p->phase, TPH_POD_RUNNING);
	assert_string_equal(p->node_name, "n1");
	assert_int_equal(p->n_tolerations, 2);
	assert_int_equal(p->tolerations[1].op, TPH_TOL_EXISTS);
	assert_string_equal(p->tolerations[1].key, "");
	const tph_affinity *a = p->affinity;
	assert_non_null(a);
	assert_int_equal(a->n_node_required, 1);
	assert_int_equal(a->node_required[0].n, 2);
	assert_int_equal(a->node_required[0].exprs[1].op, TPH_SEL_GT);
	assert_int_equal(a->node_preferred[0].weight, 10);
	assert_int_equal(a->pod_preferred[0].weight, 5);
	assert_string_equal(a->pod_preferred[0].topology_key, "zone");
	assert_int_equal(a->anti_required[0].namespaces.n, 2);
	assert_int_equal(a->anti_required[0].selector.match_exprs.exprs[0].op, TPH_SEL_EXISTS);
	assert_true(p->spread[0].do_not_schedule);
	assert_int_equal(p->spread[0].min_domains, 2);
	assert_true(p->has_priority);
	assert_int_equal(p->priority, 100);
	assert_true(p->preempt_never);
	assert_int_equal(p->preemptable, TPH_PREEMPTABLE_NO);
	assert_string_equal(p->nominated_node, "n2");
	assert_true(p->deleting);
	assert_null(s->pods[1].d.node_name);
}

static void check_full_expect(const tph_scenario *s)
{
	const tph_sc_expect *e = &s->expect;
	assert_true(e->present);
	assert_int_equal(e->binds.n, 1);
	assert_string_equal(e->binds.items[0].pod.key, "c1/p2");
	assert_int_equal(e->binds.items[0].pod.idx, 1);
	assert_int_equal(e->binds.items[0].node.idx, 0);
	assert_int_equal(e->bind_count, 1);
	assert_int_equal(e->evictions.items[0].idx, 2);
	assert_int_equal(e->pipelined.items[0].nodes.items[0].idx, 1);
	assert_int_equal(e->podgroup_phases.items[0].phase, TPH_PG_RUNNING);
	const tph_sc_status_count *c = &e->task_status_counts.items[0];
	assert_int_equal(c->count[TPH_SC_TS_PENDING], 1);
	assert_int_equal(c->count[TPH_SC_TS_ALLOCATED], 2);
	assert_int_equal(c->count[TPH_SC_TS_RUNNING], -1);
	assert_int_equal(e->binds_per_hypernode.n, 2);
	const tph_sc_probe *p = &s->probe;
	assert_true(p->present);
	assert_true(p->node_scores.items[0].items[1].score == 40.0);
	assert_int_equal(p->feasible_nodes.items[0].nodes.items[1].idx, 2);
	assert_int_equal(p->job_order.items[0].idx, 1);
	assert_int_equal(p->queue_order.items[0].idx, 0);
	assert_true(p->job_starving.items[0].value);
	assert_true(p->overused.items[0].value);
	assert_int_equal(p->victims.n, 2);
	assert_false(p->victims.items[0].reclaim);
	assert_int_equal(p->victims.items[0].victims.n, 1);
	assert_true(p->victims.items[1].reclaim);
	assert_int_equal(p->victims.items[1].victims.n, 0);
	assert_true(p->victims.items[1].victims.present);
	/* the key keeps its written line (1-based) */
	assert_true(e->binds.items[0].pod.loc.line > 100);
}

static void test_full_scenario(void **state)
{
	(void)state;
	tph_scenario *s = load_ok(full);
	check_full_objects(s);
	check_full_pod(s);
	check_full_expect(s);
	assert_true(tph_scenario_has_expect(s));
	assert_true(tph_scenario_has_probe(s));
	assert_int_equal(tph_conf_action_count(tph_scenario_conf(s)), 2);
	uint32_t line = 1;
	for (const char *c = full; c < strstr(full, "  - name: p1\n"); c++)
		line += *c == '\n';
	assert_int_equal(s->pods[0].line, line);
	tph_scenario_free(s);
}

/* ---- the keys of v1.1 -------------------------------------------------------------------------
 */

static const char *v11 =
    "flavour: volcano\n"
    "queues: [{name: q1}]\n"
    "nodes: [{name: n1, allocatable: {cpu: \"2\", pods: \"10\"}}]\n"
    "podDisruptionBudgets:\n"
    "  - name: pdb-web\n"
    "    namespace: c1\n"
    "    selector: {matchLabels: {app: web}, matchExpressions: [{key: t, operator: Exists}]}\n"
    "    minAvailable: 2\n"
    "    disruptionsAllowed: 1\n"
    "    disruptedPods: {p7: \"2026-01-01T00:09:00Z\", p8: \"0001-01-01T00:00:00Z\"}\n"
    "  - {name: pdb-pct, namespace: c1, maxUnavailable: \"50%\", selector: {}}\n"
    "  - {name: pdb-web}\n"
    "extenderResponses:\n"
    "  predicate:\n"
    "    status: 200\n"
    "    body: {status: \"node is reserved\", code: 2}\n"
    "  prioritize: {body: {nodeScore: {n1: 10.0, n2: 0.0}, errorMessage: \"\"}}\n"
    "  filter: {status: 503, body: \"try later\"}\n"
    "  bind: {}\n"
    "pods:\n"
    "  - name: p1\n"
    "    namespace: c1\n"
    "    requests: {cpu: \"1\"}\n"
    "    limits: {volcano.sh/vgpu-number: \"1\", memory: 1Gi}\n"
    "    conditions:\n"
    "      - {type: PodScheduled, status: \"True\", lastTransitionTime: "
    "\"2026-01-01T00:05:00Z\"}\n"
    "      - type: Ready\n"
    "        status: Unknown\n"
    "        lastProbeTime: \"2026-01-01T00:06:00Z\"\n"
    "        reason: Probing\n"
    "        message: not yet\n"
    "  - {name: p2, namespace: c1, limits: {nvidia.com/gpu: 2}}\n"
    "  - {name: p3, namespace: c1}\n"
    "expect:\n"
    "  bindAnnotations:\n"
    "    c1/p1: {volcano.sh/vgpu-ids-new: \"GPU-a,NVIDIA,4096,25:\", volcano.sh/gpu-index: 0}\n"
    "    c1/p2: {}\n"
    "probe:\n"
    "  victimTasks:\n"
    "    - {candidates: [c1/p2, c1/p1], victims: [c1/p1]}\n"
    "    - {candidates: [], victims: []}\n";

static void check_v11_pods(const tph_scenario *s)
{
	const tph_pod_desc *p = &s->pods[0].d;
	assert_int_equal(p->requests.n, 1); /* limits never go into requests */
	assert_int_equal(p->limits.n, 2);
	assert_string_equal(p->limits.items[0].name, "volcano.sh/vgpu-number");
	assert_int_equal(p->limits.items[0].value, 1000);
	assert_int_equal(p->limits.items[1].value, 1LL << 30);
	assert_int_equal(p->n_conditions, 2);
	const tph_pod_condition *c = p->conditions;
	assert_string_equal(c[0].type, "PodScheduled");
	assert_int_equal(c[0].status, TPH_COND_TRUE);
	assert_int_equal(c[0].last_transition, 1767225900000LL);
	assert_int_equal(c[0].last_probe, 0); /* absent: the zero time */
	assert_string_equal(c[0].reason, "");
	assert_string_equal(c[0].message, "");
	assert_int_equal(c[1].status, TPH_COND_UNKNOWN);
	assert_int_equal(c[1].last_transition, 0);
	assert_int_equal(c[1].last_probe, 1767225960000LL);
	assert_string_equal(c[1].reason, "Probing");
	assert_string_equal(c[1].message, "not yet");
	assert_int_equal(s->pods[1].d.requests.n, 0);
	assert_int_equal(s->pods[1].d.limits.items[0].value, 2000);
	assert_int_equal(s->pods[2].d.limits.n, 0);
	assert_null(s->pods[2].d.conditions);
}

static void check_v11_pdbs(const tph_scenario *s)
{
	assert_int_equal(tph_scenario_pdb_count(s), 3);
	const tph_pdb_desc *a = tph_scenario_pdb(s, 0), *b = tph_scenario_pdb(s, 1),
	                   *c = tph_scenario_pdb(s, 2);
	assert_null(tph_scenario_pdb(s, 3));
	assert_string_equal(a->namespace_, "c1");
	assert_true(a->selector.present);
	assert_string_equal(a->selector.match_labels.items[0].value, "web");
	assert_int_equal(a->selector.match_exprs.exprs[0].op, TPH_SEL_EXISTS);
	assert_true(a->min_available.present);
	assert_false(a->min_available.percent);
	assert_int_equal(a->min_available.value, 2);
	assert_false(a->max_unavailable.present);
	assert_int_equal(a->disruptions_allowed, 1);
	assert_int_equal(a->n_disrupted_pods, 2);
	assert_string_equal(a->disrupted_pods[0].pod, "p7");
	assert_int_equal(a->disrupted_pods[0].time, 1767226140000LL);
	assert_int_equal(a->disrupted_pods[1].time, 0); /* Go's zero time is unset */
	assert_true(b->max_unavailable.present && b->max_unavailable.percent);
	assert_int_equal(b->max_unavailable.value, 50);
	assert_true(b->selector.present); /* {}: present and empty, which matches no pod */
	assert_int_equal(b->selector.match_labels.n + b->selector.match_exprs.n, 0);
	assert_string_equal(c->namespace_, "default"); /* another object than c1/pdb-web */
	assert_false(c->selector.present);
	assert_int_equal(c->disruptions_allowed, 0);
	assert_false(c->min_available.present || c->max_unavailable.present);
}

static void check_v11_extender(const tph_scenario *s)
{
	assert_int_equal(tph_scenario_extender_response_count(s), 4);
	const tph_extender_response *r = tph_scenario_extender_response(s, 0);
	assert_string_equal(r->verb, "predicate");
	assert_int_equal(r->status, 200);
	assert_true(r->json);
	assert_string_equal(r->body, "{\"status\": \"node is reserved\", \"code\": 2}");
	r = tph_scenario_extender_response(s, 1);
	assert_int_equal(r->status, 200); /* the default */
	assert_string_equal(r->body,
	                    "{\"nodeScore\": {\"n1\": 10.0, \"n2\": 0.0}, \"errorMessage\": \"\"}");
	r = tph_scenario_extender_response(s, 2);
	assert_int_equal(r->status, 503);
	assert_false(r->json);
	assert_string_equal(r->body, "try later");
	r = tph_scenario_extender_response(s, 3);
	assert_string_equal(r->verb, "bind");
	assert_string_equal(r->body, ""); /* default: empty */
	assert_false(r->json);
	assert_null(tph_scenario_extender_response(s, 4));
}

static void check_v11_checks(const tph_scenario *s)
{
	const tph_sc_bind_anns *ba = &s->expect.bind_annotations;
	assert_true(ba->present);
	assert_int_equal(ba->n, 2);
	assert_string_equal(ba->items[0].pod.key, "c1/p1");
	assert_int_equal(ba->items[0].pod.idx, 0);
	assert_int_equal(ba->items[0].annotations.n, 2);
	assert_string_equal(ba->items[0].annotations.items[0].value, "GPU-a,NVIDIA,4096,25:");
	assert_string_equal(ba->items[0].annotations.items[1].value, "0");
	assert_int_equal(ba->items[1].annotations.n, 0);
	const tph_sc_victim_tasks_list *vt = &s->probe.victim_tasks;
	assert_true(vt->present);
	assert_int_equal(vt->n, 2);
	assert_int_equal(vt->items[0].candidates.n, 2);
	assert_int_equal(vt->items[0].candidates.items[0].idx, 1); /* the order given */
	assert_int_equal(vt->items[0].victims.items[0].idx, 0);
	assert_true(vt->items[1].victims.present);
	assert_int_equal(vt->items[1].candidates.n, 0);
}

static void test_v11_keys(void **state)
{
	(void)state;
	tph_scenario *s = load_ok(v11);
	check_v11_pods(s);
	check_v11_pdbs(s);
	check_v11_extender(s);
	check_v11_checks(s);
	tph_scenario_free(s);
}

/* A file made of head and tail that must fail with status rc and a message holding want. */
typedef struct err_case {
	const char *head, *tail;
	int rc;
	const char *want;
} err_case;

static void check_errors(const err_case *cases, size_t n)
{
	int failures = 0;
	for (size_t i = 0; i < n; i++) {
		char yaml[2048], msg[1024];
		snprintf(yaml, sizeof yaml, "%s%s", cases[i].head, cases[i].tail);
		int rc = load_bad(yaml, msg, sizeof msg);
		if (rc != cases[i].rc || !strstr(msg, cases[i].want)) {
			print_error("case %zu: rc %d, \"%s\"\n  want %d, \"%s\"\n", i, rc, msg,
			            cases[i].rc, cases[i].want);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

/* Each bad value of a v1.1 key fails with its location, object and field. */
static void test_v11_errors(void **state)
{
	(void)state;
	const char *pod = "pods:\n  - name: p1\n    namespace: c1\n";
	const err_case cases[] = {
	    {pod, "    conditions: [{type: Ready, status: Maybe}]\n", TPH_EINVAL,
	     "bad.yaml:4:40: pod c1/p1: field conditions[0].status: must be one of "
	     "True|False|Unknown, got \"Maybe\""},
	    {pod, "    conditions: [{type: Ready, status: \"True\", lastUpdateTime: x}]\n",
	     TPH_EINVAL,
	     "bad.yaml:4:48: pod c1/p1: field conditions[0].lastUpdateTime: unknown field"},
	    {pod, "    conditions: [{type: Ready}]\n", TPH_EINVAL,
	     "bad.yaml:4:18: pod c1/p1: field conditions[0].status: required field is missing"},
	    {pod, "    conditions: [{status: \"True\"}]\n", TPH_EINVAL,
	     "field conditions[0].type: required field is missing"},
	    {pod,
	     "    conditions: [{type: Ready, status: \"True\"}, {type: Ready, status: "
	     "\"False\"}]\n",
	     TPH_EINVAL,
	     "bad.yaml:4:56: pod c1/p1: field conditions[1].type: condition type Ready "
	     "is listed twice"},
	    {pod, "    conditions: [{type: Ready, status: \"True\", lastProbeTime: yesterday}]\n",
	     TPH_EINVAL, "field conditions[0].lastProbeTime: not an RFC 3339 timestamp"},
	    {pod, "    conditions: {type: Ready}\n", TPH_EINVAL,
	     "field conditions: expected a sequence, got a mapping"},
	    {pod, "    limits: {cpu: lots}\n", TPH_EINVAL,
	     "bad.yaml:4:19: pod c1/p1: field limits.cpu: not a number (\"lots\")"},
	    {"podDisruptionBudgets:\n  - {name: b, namespace: c1, ",
	     "minAvailable: 1, maxUnavailable: \"10%\"}\n", TPH_EINVAL,
	     "bad.yaml:2:63: podDisruptionBudget c1/b: field maxUnavailable: minAvailable and "
	     "maxUnavailable are mutually exclusive"},
	    {"podDisruptionBudgets:\n  - {name: b, ", "maxUnavailable: 150%}\n", TPH_ERANGE,
	     "podDisruptionBudget default/b: field maxUnavailable: a percentage must be at most "
	     "100% (\"150%\")"},
	    {"podDisruptionBudgets:\n  - {name: b, ", "minAvailable: half}\n", TPH_EINVAL,
	     "field minAvailable: expected an integer or a percentage such as \"50%\", got "
	     "\"half\""},
	    {"podDisruptionBudgets:\n  - {name: b, ", "minAvailable: -1}\n", TPH_ERANGE,
	     "field minAvailable: -1 is out of range"},
	    {"podDisruptionBudgets:\n  - {name: b, ", "minAvailable: [1]}\n", TPH_EINVAL,
	     "got a sequence"},
	    {"podDisruptionBudgets:\n  - {name: b, ", "disruptionsAllowed: -2}\n", TPH_ERANGE,
	     "field disruptionsAllowed: -2 is out of range"},
	    {"podDisruptionBudgets:\n  - {name: b, ", "disruptedPods: {p1: now}}\n", TPH_EINVAL,
	     "field disruptedPods.p1: not an RFC 3339 timestamp"},
	    {"podDisruptionBudgets:\n  - {name: b, ", "selector: {matchLabel: {a: b}}}\n",
	     TPH_EINVAL, "field selector.matchLabel: unknown field"},
	    {"podDisruptionBudgets:\n  - {name: b, ", "spec: {}}\n", TPH_EINVAL,
	     "podDisruptionBudget default/b: field spec: unknown field"},
	    {"podDisruptionBudgets:\n  - {name: b}\n", "  - {name: b, namespace: default}\n",
	     TPH_EEXIST,
	     "bad.yaml:3:5: podDisruptionBudget default/b: duplicate pod disruption "
	     "budget default/b"},
	    {"extenderResponses:\n  predicate: ", "{status: abc}\n", TPH_EINVAL,
	     "bad.yaml:2:23: extenderResponse predicate: field status: not an integer (\"abc\")"},
	    {"extenderResponses:\n  predicate: ", "{status: 99}\n", TPH_ERANGE,
	     "field status: 99 is out of range [100, 599]"},
	    {"extenderResponses:\n  predicate: ", "{status: \"200\"}\n", TPH_EINVAL,
	     "field status: expected an integer, got a string"},
	    {"extenderResponses:\n  predicate: ", "{body: [1, 2]}\n", TPH_EINVAL,
	     "extenderResponse predicate: field body: expected a mapping (sent as JSON) or a "
	     "string, got a sequence"},
	    {"extenderResponses:\n  predicate: ", "{code: 2}\n", TPH_EINVAL,
	     "extenderResponse predicate: field code: unknown field"},
	    {"extenderResponses:\n  predicate: ", "{body: {a: 1, a: 2}}\n", TPH_EINVAL,
	     "field body: duplicate key \"a\""},
	    {"extenderResponses:\n  ", "\"\": {}\n", TPH_EINVAL,
	     "scenario: field extenderResponses: empty verb"},
	    {"extenderResponses: ", "[predicate]\n", TPH_EINVAL,
	     "scenario: field extenderResponses: expected a mapping, got a sequence"},
	    {pod, "expect: {bindAnnotations: {c1/p9: {}}}\n", TPH_ENOENT,
	     "expect: field bindAnnotations.c1/p9: no pod \"c1/p9\""},
	    {pod, "expect: {bindAnnotations: {c1/p1: {a: {b: c}}}}\n", TPH_EINVAL,
	     "expect: field bindAnnotations.c1/p1.a: expected a string, got a mapping"},
	    {pod, "expect: {bindAnnotations: {c1/p1: [a]}}\n", TPH_EINVAL,
	     "field bindAnnotations.c1/p1: expected a mapping"},
	    {pod, "probe: {victimTasks: [{candidates: [c1/p1], victims: [c1/p2]}]}\n", TPH_ENOENT,
	     "probe: field victimTasks[0].victims[0]: no pod \"c1/p2\""},
	    {"pods: [{name: p1, namespace: c1}, {name: p2, namespace: c1}]\n",
	     "probe: {victimTasks: [{candidates: [c1/p1], victims: [c1/p2]}]}\n", TPH_EINVAL,
	     "bad.yaml:2:55: probe: victim c1/p2 is not a candidate"},
	    {pod, "probe: {victimTasks: [{candidates: [c1/p1]}]}\n", TPH_EINVAL,
	     "probe: field victimTasks[0].victims: required field is missing"},
	    {pod, "probe: {victimTasks: [{candidates: [c1/p1], victims: [], actor: c1/p1}]}\n",
	     TPH_EINVAL, "probe: field victimTasks[0].actor: unknown field"},
	    {"name: x\n", "flavour: kai\nshard: {}\n", TPH_EINVAL,
	     "bad.yaml:3:8: scenario: field shard: only a volcano scenario has this key"},
	    {"name: x\n", "flavour: slurm\n", TPH_EINVAL,
	     "bad.yaml:2:10: scenario: field flavour: must be one of volcano|kai, got \"slurm\""},
	    {"flavour: volcano\n", "schedulerParams: {}\n", TPH_EINVAL,
	     "bad.yaml:2:18: scenario: field schedulerParams: only a kai scenario has this key"},
	};
	check_errors(cases, N_ELEMS(cases));
}

/* ---- v1.2 keys (docs/format-additions.md) ------------------------------------------------ */

static const char *v12 =
    "nodeSampling: volcano\n"
    "queues: [{name: default}]\n"
    "nodes:\n"
    "  - name: n1\n"
    "    images: [{names: [nginx:1.25, docker.io/library/nginx:1.25], sizeBytes: 1000},"
    " {names: [busybox]}]\n"
    "resourceQuotas:\n"
    "  - {name: q, namespace: c1, hard: {cpu: '4'}, used: {cpu: 1500m, count/pods: '2'}}\n"
    "pods:\n"
    "  - name: p1\n"
    "    namespace: c1\n"
    "    requests: {cpu: '1'}\n"
    "    initContainers:\n"
    "      - {name: init, image: busybox, requests: {cpu: '2'}}\n"
    "      - {name: side, requests: {memory: 1Gi}, restartPolicy: Always}\n"
    "    overhead: {cpu: 100m}\n"
    "    images: [nginx:1.25, app]\n"
    "    hostPorts: [{hostPort: 80}, {hostPort: 53, protocol: UDP, hostIP: '::1'},"
    " {hostPort: 80, hostIP: ''}, {hostPort: 80, protocol: SCTP}]\n";

static void test_v12_keys(void **state)
{
	(void)state;
	char yaml[2048];
	/* the fourth host port repeats the first one ("" is 0.0.0.0): drop it for the good file */
	snprintf(yaml, sizeof yaml, "%s", v12);
	char *dup = strstr(yaml, " {hostPort: 80, hostIP: ''},");
	memmove(dup, dup + strlen(" {hostPort: 80, hostIP: ''},"),
	        strlen(dup + strlen(" {hostPort: 80, hostIP: ''},")) + 1);
	tph_scenario *s = load_ok(yaml);
	assert_int_equal(s->sampling, TPH_SAMPLING_VOLCANO);
	const tph_node_desc *n = &s->nodes[0].d;
	assert_int_equal(n->n_images, 2);
	assert_int_equal(n->images[0].names.n, 2);
	assert_int_equal(n->images[0].size_bytes, 1000);
	assert_int_equal(n->images[1].size_bytes, 0);
	assert_int_equal(s->quotas[0].d.used.n, 2);
	assert_int_equal(s->quotas[0].d.used.items[0].value, 1500);
	const tph_pod_desc *p = &s->pods[0].d;
	assert_int_equal(p->n_init_containers, 2);
	assert_string_equal(p->init_containers[0].image, "busybox");
	assert_false(p->init_containers[0].restart_always);
	assert_null(p->init_containers[1].image);
	assert_true(p->init_containers[1].restart_always);
	assert_int_equal(p->overhead.n, 1);
	assert_int_equal(p->images.n, 2);
	assert_int_equal(p->n_host_ports, 3);
	assert_int_equal(p->host_ports[1].protocol, TPH_PROTO_UDP);
	assert_string_equal(p->host_ports[1].host_ip, "::1");
	assert_int_equal(p->host_ports[2].protocol, TPH_PROTO_SCTP);
	/* the cache got the pod's request and the sampling mode */
	tph_snapshot *snap;
	assert_int_equal(tph_cluster_snapshot(tph_scenario_cluster(s), 0, &snap, NULL), TPH_OK);
	assert_int_equal(snap->tasks.req[TPH_RES_CPU], 2100); /* max(1, 2) + 100m */
	assert_int_equal(snap->cache->sampling, TPH_SAMPLING_VOLCANO);
	tph_snapshot_release(snap);
	tph_scenario_free(s);
	/* full is the default and may be written */
	s = load_ok("nodeSampling: full\n");
	assert_int_equal(s->sampling, TPH_SAMPLING_FULL);
	tph_scenario_free(s);
	s = load_ok("name: x\n");
	assert_int_equal(s->sampling, TPH_SAMPLING_CACHE);
	tph_scenario_free(s);
}

/* Each bad value of a v1.2 key fails with its location, object and field. */
static void test_v12_errors(void **state)
{
	(void)state;
	const char *pod = "pods:\n  - name: p1\n    namespace: c1\n";
	const char *node = "nodes:\n  - name: n1\n";
	const err_case cases[] = {
	    {"", v12, TPH_EINVAL,
	     "bad.yaml:17:90: pod c1/p1: field hostPorts[2].hostPort: host port 80/TCP is listed "
	     "twice"},
	    {pod, "    hostPorts: [{hostPort: 0}]\n", TPH_ERANGE,
	     "bad.yaml:4:28: pod c1/p1: field hostPorts[0].hostPort: 0 is out of range [1, "
	     "65535]"},
	    {pod, "    hostPorts: [{hostPort: 80, protocol: tcp}]\n", TPH_EINVAL,
	     "field hostPorts[0].protocol: must be one of TCP|UDP|SCTP, got \"tcp\""},
	    {pod, "    hostPorts: [{hostPort: 80, hostIP: localhost}]\n", TPH_EINVAL,
	     "field hostPorts[0].hostIP: not an IP address (\"localhost\")"},
	    {pod, "    hostPorts: [{containerPort: 80}]\n", TPH_EINVAL,
	     "field hostPorts[0].containerPort: unknown field"},
	    {pod, "    hostPorts: [{protocol: UDP}]\n", TPH_EINVAL,
	     "field hostPorts[0].hostPort: required field is missing"},
	    {pod, "    initContainers: [{name: a}, {name: a}]\n", TPH_EINVAL,
	     "bad.yaml:4:40: pod c1/p1: field initContainers[1].name: init container a is "
	     "listed twice"},
	    {pod, "    initContainers: [{image: x}]\n", TPH_EINVAL,
	     "field initContainers[0].name: required field is missing"},
	    {pod, "    initContainers: [{name: a, restartPolicy: Never}]\n", TPH_EINVAL,
	     "field initContainers[0].restartPolicy: must be one of Always, got \"Never\""},
	    {pod, "    initContainers: [{name: a, requests: {cpu: x}}]\n", TPH_EINVAL,
	     "field initContainers[0].requests.cpu: not a number (\"x\")"},
	    {pod, "    initContainers: [{name: a, limits: {}}]\n", TPH_EINVAL,
	     "field initContainers[0].limits: unknown field"},
	    {pod, "    initContainers: [{name: a, image: ''}]\n", TPH_EINVAL,
	     "field initContainers[0].image: empty image name"},
	    {pod, "    overhead: {cpu: -1}\n", TPH_EINVAL, "field overhead.cpu"},
	    {pod, "    images: [nginx, '']\n", TPH_EINVAL,
	     "bad.yaml:4:21: pod c1/p1: field images[1]: empty image name"},
	    {pod, "    images: nginx\n", TPH_EINVAL, "field images: expected a sequence"},
	    {node, "    images: [{names: []}]\n", TPH_EINVAL,
	     "bad.yaml:3:22: node n1: field images[0].names: needs at least one name"},
	    {node, "    images: [{sizeBytes: 1}]\n", TPH_EINVAL,
	     "field images[0].names: required field is missing"},
	    {node, "    images: [{names: [a], sizeBytes: -1}]\n", TPH_ERANGE,
	     "field images[0].sizeBytes: -1 is out of range"},
	    {node, "    images: [{names: [a], size: 1}]\n", TPH_EINVAL,
	     "field images[0].size: unknown field"},
	    {"resourceQuotas:\n  - {name: q, ", "used: {cpu: lots}}\n", TPH_EINVAL,
	     "resourceQuota default/q: field used.cpu: not a number (\"lots\")"},
	    {"name: x\n", "nodeSampling: sometimes\n", TPH_EINVAL,
	     "bad.yaml:2:15: scenario: field nodeSampling: must be one of full|volcano, got "
	     "\"sometimes\""},
	};
	check_errors(cases, N_ELEMS(cases));
}

/* Many conditions: the repeated type is found by hashing (pairwise below 17). */
static void test_many_conditions(void **state)
{
	(void)state;
	char yaml[4096], msg[1024];
	size_t at = (size_t)snprintf(yaml, sizeof yaml, "pods:\n  - name: p\n    conditions:\n");
	for (int i = 0; i < 30; i++)
		at += (size_t)snprintf(yaml + at, sizeof yaml - at,
		                       "      - {type: c%d, status: \"True\"}\n", i);
	tph_scenario *s = load_ok(yaml);
	assert_int_equal(s->pods[0].d.n_conditions, 30);
	assert_string_equal(s->pods[0].d.conditions[29].type, "c29");
	tph_scenario_free(s);
	snprintf(yaml + at, sizeof yaml - at, "      - {type: c3, status: \"False\"}\n");
	assert_int_equal(load_bad(yaml, msg, sizeof msg), TPH_EINVAL);
	assert_non_null(strstr(
	    msg, "pod default/p: field conditions[30].type: condition type c3 is listed twice"));
}

/* YAML bodies as the JSON text they are sent as. */
static void test_json_bodies(void **state)
{
	(void)state;
	const struct {
		const char *body, *json;
	} cases[] = {
	    {"{a: 1, b: -2, c: +3, d: 007, e: 0, f: -0}",
	     "{\"a\": 1, \"b\": -2, \"c\": 3, \"d\": 7, \"e\": 0, \"f\": -0}"},
	    {"{a: 10.0, b: .5, c: 1., d: -1.50, e: 2e3, f: 1.5E-7, g: +.25e+2}",
	     "{\"a\": 10.0, \"b\": 0.5, \"c\": 1.0, \"d\": -1.50, \"e\": 2e3, \"f\": 1.5E-7, "
	     "\"g\": 0.25e+2}"},
	    {"{a: \"1\", b: '2.5', c: \"true\", d: 'null'}",
	     "{\"a\": \"1\", \"b\": \"2.5\", \"c\": \"true\", \"d\": \"null\"}"},
	    {"{a: true, b: False, c: null, d: ~, e: , f: yes}",
	     "{\"a\": true, \"b\": false, \"c\": null, \"d\": null, \"e\": null, \"f\": true}"},
	    {"{a: [], b: {}, c: [1, [x, {y: z}]], 1: one, \"k\\\"q\": v}",
	     "{\"a\": [], \"b\": {}, \"c\": [1, [\"x\", {\"y\": \"z\"}]], \"1\": \"one\", "
	     "\"k\\\"q\": \"v\"}"},
	    {"{s: \"tab\\there\\nnew \\\\ \\u0001 \\u00e9\", t: 0x1F, u: .inf, v: 1.2.3}",
	     "{\"s\": \"tab\\there\\nnew \\\\ \\u0001 \xc3\xa9\", \"t\": \"0x1F\", \"u\": "
	     "\".inf\", \"v\": \"1.2.3\"}"},
	    {"{victims: [c1/p1, c1/p2], status: 0}",
	     "{\"victims\": [\"c1/p1\", \"c1/p2\"], \"status\": 0}"},
	    {"&a {x: 1, y: *a}", NULL}, /* recursive alias: rejected by the parser */
	};
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		char yaml[512], msg[1024];
		snprintf(yaml, sizeof yaml, "extenderResponses:\n  v: {body: %s}\n", cases[i].body);
		if (!cases[i].json) {
			assert_true(load_bad(yaml, msg, sizeof msg) < 0);
			continue;
		}
		tph_scenario *s = load_ok(yaml);
		const tph_extender_response *r = tph_scenario_extender_response(s, 0);
		if (strcmp(r->body, cases[i].json))
			fail_msg("body %s\n  got  %s\n  want %s", cases[i].body, r->body,
			         cases[i].json);
		assert_true(r->json);
		tph_scenario_free(s);
	}
	/* Nesting is bounded. */
	char deep[1024], msg[1024];
	size_t at = (size_t)snprintf(deep, sizeof deep, "extenderResponses:\n  v: {body: {a: ");
	for (int d = 0; d < 120; d++)
		deep[at++] = '[';
	for (int d = 0; d < 120; d++)
		deep[at++] = ']';
	snprintf(deep + at, sizeof deep - at, "}}\n");
	assert_int_equal(load_bad(deep, msg, sizeof msg), TPH_EINVAL);
	if (!strstr(msg, "nested more than 100 levels deep"))
		fail_msg("%s", msg);
}

/* ---- conf forms -------------------------------------------------------------------------------
 */

static void check_conf(const tph_conf *c)
{
	assert_non_null(c);
	assert_int_equal(tph_conf_action_count(c), 2);
	assert_string_equal(tph_conf_action(c, 0), "enqueue");
	assert_string_equal(tph_conf_action(c, 1), "allocate");
	assert_int_equal(tph_conf_tier_count(c), 2);
	assert_string_equal(tph_conf_plugin_name(c, 1, 0), "drf");
	assert_int_equal(tph_conf_flag_raw(c, 0, 0, TPH_FLAG_JOB_ORDER), 0);
}

static void test_conf_string_and_mapping(void **state)
{
	(void)state;
	const char *as_string = "conf: |\n"
	                        "  actions: \"enqueue,allocate\"\n"
	                        "  tiers:\n"
	                        "  - plugins:\n"
	                        "    - {name: gang, enableJobOrder: false}\n"
	                        "  - plugins:\n"
	                        "    - name: drf\n";
	const char *as_map = "conf:\n"
	                     "  actions: \" enqueue , allocate \"\n"
	                     "  tiers:\n"
	                     "  - plugins:\n"
	                     "    - {name: gang, enableJobOrder: false}\n"
	                     "  - plugins: [{name: drf}]\n";
	tph_scenario *a = load_ok(as_string), *b = load_ok(as_map);
	check_conf(tph_scenario_conf(a));
	check_conf(tph_scenario_conf(b));
	tph_scenario_free(a);
	tph_scenario_free(b);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_conf_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/tph_scnXXXXXX";
	assert_non_null(mkdtemp(dir));
	char sub[64], scn[96], conf[96];
	snprintf(sub, sizeof sub, "%s/conf", dir);
	snprintf(scn, sizeof scn, "%s/s.yaml", dir);
	snprintf(conf, sizeof conf, "%s/conf/c.yaml", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	write_file(conf, "actions: \"enqueue, allocate\"\n"
	                 "tiers:\n- plugins:\n  - {name: gang, enableJobOrder: false}\n"
	                 "- plugins:\n  - name: drf\n");
	write_file(scn, "confFile: conf/c.yaml\nnodes: []\n");
	tph_diag d = {0};
	tph_scenario *s = NULL;
	assert_int_equal(tph_scenario_load_file(scn, &s, &d), TPH_OK);
	check_conf(tph_scenario_conf(s));
	tph_scenario_free(s);
	/* an error inside the conf file names the conf file */
	write_file(conf, "actions: \"enqueue\"\ntiers:\n- plugins:\n  - name: gnag\n");
	assert_true(tph_scenario_load_file(scn, &s, &d) < 0);
	assert_non_null(strstr(d.msg, "conf/c.yaml:4:11:"));
	assert_non_null(strstr(d.msg, "unknown plugin"));
	unlink(conf);
	assert_true(tph_scenario_load_file(scn, &s, &d) < 0);
	assert_non_null(strstr(d.msg, "s.yaml:1:11:"));
	rmdir(sub);
	unlink(scn);
	rmdir(dir);
}

/* An error inside a `conf: |` block points at the scenario file's line and column. */
static void test_conf_block_location(void **state)
{
	(void)state;
	char msg[1024];
	const char *y = "name: x\n"
	                "conf: |\n"
	                "\n"
	                "    actions: \"allocate\"\n"
	                "    tiers:\n"
	                "    - plugins:\n"
	                "      - name: gang\n"
	                "        enableJobOrdr: true\n";
	assert_int_equal(load_bad(y, msg, sizeof msg), TPH_EINVAL);
	assert_non_null(strstr(msg, "bad.yaml:8:9: conf tier 1 plugin gang: field enableJobOrdr"));
	assert_non_null(strstr(msg, "unknown enable flag"));
}

/* ---- flags and arguments --------------------------------------------------------------------- */

static void test_flags_tristate(void **state)
{
	(void)state;
	for (int def = 0; def < 2; def++) {
		char buf[512];
		snprintf(buf, sizeof buf,
		         "enableFlagsDefault: %s\n"
		         "conf:\n"
		         "  actions: \"\"\n"
		         "  tiers:\n"
		         "  - plugins:\n"
		         "    - {name: drf, enableJobOrder: true, enablePreemptable: false}\n",
		         def ? "true" : "false");
		tph_scenario *s = load_ok(buf);
		const tph_conf *c = tph_scenario_conf(s);
		assert_int_equal(tph_conf_action_count(c), 0);
		assert_int_equal(tph_conf_enable_flags_default(c), def);
		assert_int_equal(tph_conf_flag_raw(c, 0, 0, TPH_FLAG_JOB_ORDER), 1);
		assert_int_equal(tph_conf_flag_raw(c, 0, 0, TPH_FLAG_PREEMPTABLE), 0);
		assert_int_equal(tph_conf_flag_raw(c, 0, 0, TPH_FLAG_NODE_ORDER), -1);
		assert_true(tph_conf_flag_on(c, 0, 0, TPH_FLAG_JOB_ORDER));
		assert_false(tph_conf_flag_on(c, 0, 0, TPH_FLAG_PREEMPTABLE));
		assert_int_equal(tph_conf_flag_on(c, 0, 0, TPH_FLAG_NODE_ORDER), def);
		/* Volcano never defaults these two */
		assert_false(tph_conf_flag_on(c, 0, 0, TPH_FLAG_HIERARCHY));
		assert_false(tph_conf_flag_on(c, 0, 0, TPH_FLAG_CLUSTER_ORDER));
		tph_scenario_free(s);
	}
}

static void test_arguments_tree(void **state)
{
	(void)state;
	tph_scenario *s = load_ok("conf:\n"
	                          "  actions: allocate\n"
	                          "  tiers:\n"
	                          "  - plugins:\n"
	                          "    - name: binpack\n"
	                          "      arguments:\n"
	                          "        binpack.weight: 10\n"
	                          "        quoted: \"10\"\n"
	                          "        empty:\n"
	                          "        list: [a, {b: 1}]\n"
	                          "        nested: {x: {y: [1, 2]}}\n"
	                          "        unknown.key.is.kept: yes\n"
	                          "  configurations:\n"
	                          "  - name: allocate\n"
	                          "    arguments: {enablePredicateErrorCache: true}\n");
	const tph_conf *c = tph_scenario_conf(s);
	const tph_arg *args = &c->tiers[0].plugins[0].args;
	assert_true(c->tiers[0].plugins[0].has_args);
	assert_int_equal(args->kind, TPH_ARGV_MAP);
	assert_int_equal(args->n, 6);
	const tph_arg *w = tph_arg_get(args, "binpack.weight");
	assert_non_null(w);
	assert_int_equal(w->kind, TPH_ARGV_SCALAR);
	assert_string_equal(w->text, "10");
	assert_false(w->quoted);
	assert_int_equal(w->line, 7);
	assert_int_equal(w->col, 25);
	assert_string_equal(w->file, "test.yaml");
	assert_true(tph_arg_get(args, "quoted")->quoted);
	assert_true(tph_arg_get(args, "empty")->null);
	const tph_arg *l = tph_arg_get(args, "list");
	assert_int_equal(l->kind, TPH_ARGV_SEQ);
	assert_int_equal(l->items[1].kind, TPH_ARGV_MAP);
	assert_string_equal(l->items[1].items[0].key, "b");
	const tph_arg *y = tph_arg_get(tph_arg_get(tph_arg_get(args, "nested"), "x"), "y");
	assert_int_equal(y->n, 2);
	assert_null(tph_arg_get(args, "missing"));
	const tph_conf_action_args *aa = tph_conf_find_action_args(c, "allocate");
	assert_non_null(aa);
	assert_string_equal(tph_arg_get(&aa->args, "enablePredicateErrorCache")->text, "true");
	assert_null(tph_conf_find_action_args(c, "backfill"));
	assert_ptr_equal(tph_args_of(args), (const tph_args *)args);
	tph_scenario_free(s);
}

/* ---- timestamps and durations ------------------------------------------------------------------
 */

static void test_timestamps(void **state)
{
	(void)state;
	const struct {
		const char *in;
		int64_t ms;
	} ok[] = {
	    {"1970-01-01T00:00:00Z", 0},
	    {"2026-01-01T00:10:00Z", 1767226200000LL},
	    {"2026-01-01T00:10:00.250Z", 1767226200250LL},
	    {"2026-01-01T00:10:00.2509999Z", 1767226200250LL},
	    {"2026-01-01T02:10:00+02:00", 1767226200000LL},
	    {"2025-12-31T23:10:00-01:00", 1767226200000LL},
	    {"2024-02-29T00:00:00z", 1709164800000LL},
	    {"0001-01-01T00:00:00Z", TPH_GO_ZERO_TIME_MS},
	};
	for (size_t i = 0; i < N_ELEMS(ok); i++) {
		tph_time t = -1;
		const char *why = NULL;
		if (tph_parse_time(ok[i].in, strlen(ok[i].in), &t, &why) != TPH_OK ||
		    t != ok[i].ms) {
			print_error("%s: got %lld (%s)\n", ok[i].in, (long long)t, why ? why : "");
			fail();
		}
	}
	const char *bad[] = {"",
	                     "2026-01-01",
	                     "2026-01-01T00:00:00",
	                     "2026-13-01T00:00:00Z",
	                     "2025-02-29T00:00:00Z",
	                     "2026-01-01T24:00:00Z",
	                     "2026-01-01T00:60:00Z",
	                     "2026-01-01T00:00:60Z",
	                     "2026-01-01 00:00:00Z",
	                     "2026-01-01T00:00:00.Z",
	                     "2026-01-01T00:00:00+0200",
	                     "2026-01-01T00:00:00Zx",
	                     "x026-01-01T00:00:00Z"};
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		tph_time t;
		const char *why = NULL;
		if (tph_parse_time(bad[i], strlen(bad[i]), &t, &why) == TPH_OK || !why) {
			print_error("accepted %s\n", bad[i]);
			fail();
		}
	}
}

static void test_durations(void **state)
{
	(void)state;
	const struct {
		const char *in;
		int64_t ns;
	} ok[] = {
	    {"0", 0},
	    {"-0", 0},
	    {"30m", 1800000000000LL},
	    {"1h30m", 5400000000000LL},
	    {"500ms", 500000000LL},
	    {"1.5h", 5400000000000LL},
	    {"-2s", -2000000000LL},
	    {"+3us", 3000},
	    {"3\xc2\xb5s", 3000},
	    {"7ns", 7},
	    {".5s", 500000000LL},
	    {"2562047h47m16.854775807s", INT64_MAX},
	};
	for (size_t i = 0; i < N_ELEMS(ok); i++) {
		int64_t ns = -1;
		const char *why = NULL;
		if (tph_parse_duration(ok[i].in, strlen(ok[i].in), &ns, &why) != TPH_OK ||
		    ns != ok[i].ns) {
			print_error("%s: got %lld (%s)\n", ok[i].in, (long long)ns, why ? why : "");
			fail();
		}
	}
	const char *bad[] = {"",  "5",      "m", "1x",       "1.x",
	                     ".", "1h 30m", "-", "3000000h", "9223372036854775808ns"};
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		int64_t ns;
		const char *why = NULL;
		if (tph_parse_duration(bad[i], strlen(bad[i]), &ns, &why) == TPH_OK) {
			print_error("accepted %s\n", bad[i]);
			fail();
		}
	}
}

/* ---- the `now` rule
 * ------------------------------------------------------------------------------ */

static void test_now_default(void **state)
{
	(void)state;
	const struct {
		const char *yaml;
		tph_time want;
	} cases[] = {
	    {"nodes: []\n", 0},
	    {"queues: [{name: q, creationTimestamp: \"2026-01-01T00:00:05Z\"}]\n"
	     "podGroups: [{name: g, creationTimestamp: \"2026-01-01T00:00:07Z\"}]\n"
	     "pods: [{name: p, creationTimestamp: \"2026-01-01T00:00:06Z\"}]\n",
	     1767225607000LL},
	    {"pods: [{name: p, creationTimestamp: \"2026-01-01T00:00:09Z\"},"
	     " {name: p2, creationTimestamp: \"0001-01-01T00:00:00Z\"}]\n",
	     1767225609000LL},
	    {"now: \"2026-01-01T00:00:01Z\"\n"
	     "pods: [{name: p, creationTimestamp: \"2026-01-01T00:00:09Z\"}]\n",
	     1767225601000LL},
	};
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		tph_scenario *s = load_ok(cases[i].yaml);
		assert_int_equal(tph_scenario_now(s), cases[i].want);
		tph_scenario_free(s);
	}
	/* Go's zero time is "unset" for creation timestamps */
	tph_scenario *s =
	    load_ok("pods: [{name: p, creationTimestamp: \"0001-01-01T00:00:00Z\"}]\n");
	assert_int_equal(s->pods[0].d.creation, 0);
	tph_scenario_free(s);
}

/* ---- references
 * ----------------------------------------------------------------------------------- */

static void test_references(void **state)
{
	(void)state;
	warnings_seen = 0;
	tph_scenario *s = load_ok("queues: [{name: a, parent: b}, {name: b}]\n"
	                          "nodes: [{name: n1}, {name: n2}]\n"
	                          "hyperNodes:\n"
	                          "  - {name: top, tier: 2, members: [mid]}\n"
	                          "  - {name: mid, tier: 0, members: [n1, {regex: \"^n\"}]}\n"
	                          "podGroups: [{name: g, queue: nowhere}]\n"
	                          "pods:\n"
	                          "  - {name: p, podGroup: missing}\n"
	                          "  - {name: q, podGroup: g, nominatedNodeName: gone}\n");
	assert_int_equal(warnings_seen, 2); /* missing podGroup, missing nominated node */
	assert_string_equal(s->queues[0].d.parent, "b");
	assert_string_equal(s->podgroups[0].d.queue, "nowhere"); /* kept; the cache drops it */
	assert_string_equal(s->pods[0].d.pod_group, "missing");
	tph_scenario_free(s);
}

/* ---- the parallel split -------------------------------------------------------------------------
 */

static int same_node(const yu_doc *a, uint32_t x, const yu_doc *b, uint32_t y)
{
	const yu_node *n = &a->nodes[x], *m = &b->nodes[y];
	if (n->type != m->type || n->len != m->len || n->line != m->line || n->col != m->col ||
	    n->style != m->style) {
		print_error("node differs at %u:%u (vs %u:%u)\n", n->line + 1, n->col + 1,
		            m->line + 1, m->col + 1);
		return 0;
	}
	if (n->type == YU_SCALAR)
		return strcmp(n->u.str, m->u.str) == 0;
	uint32_t k = n->type == YU_MAP ? 2 * n->len : n->len;
	for (uint32_t i = 0; i < k; i++)
		if (!same_node(a, n->u.items[i], b, m->u.items[i]))
			return 0;
	return 1;
}

/* yu_load_parallel gives what yu_load gives: the same tree, or the same error. */
static void check_split(const char *text)
{
	size_t len = strlen(text);
	yu_doc a, b;
	tph_diag da = {0}, db = {0};
	int ra = yu_load(text, len, "s.yaml", 0, 0, &a, &da);
	int rb = yu_load_parallel(text, len, "s.yaml", &b, &db);
	assert_int_equal(ra, rb);
	if (ra == TPH_OK) {
		assert_int_equal(a.root == YU_NONE, b.root == YU_NONE);
		if (a.root != YU_NONE && !same_node(&a, a.root, &b, b.root))
			fail_msg("split parse differs for:\n%.300s", text);
		yu_doc_free(&a);
		yu_doc_free(&b);
	} else {
		assert_string_equal(da.msg, db.msg);
	}
}

/* A scenario text with the shapes a split must survive: items at indentation 0 and 2,
 * comments and blank lines between items, block scalars and multi-line flow collections
 * inside items, CRLF line ends when asked. */
static char *split_text(int pods, bool crlf, const char *extra)
{
	size_t cap = (size_t)pods * 400 + 4096 + strlen(extra), at = 0;
	char *t = malloc(cap);
	assert_non_null(t);
	const char *nl = crlf ? "\r\n" : "\n";
	at += (size_t)snprintf(t + at, cap - at, "name: split%s# a comment%snodes:%s", nl, nl, nl);
	for (int i = 0; i < pods / 4 + 2; i++)
		at += (size_t)snprintf(
		    t + at, cap - at,
		    "  - name: n%d%s    allocatable: {cpu: \"4\",%s      pods: 10}%s", i, nl, nl,
		    nl);
	at += (size_t)snprintf(t + at, cap - at, "%s%spods:%s", extra, nl, nl);
	for (int i = 0; i < pods; i++)
		at += (size_t)snprintf(t + at, cap - at,
		                       "- name: p%d%s  namespace: c1%s%s"
		                       "  annotations:%s    note: |%s      - not an item%s"
		                       "      pods:%s  labels: {app: \"web\", i: '%d'}%s",
		                       i, nl, nl, i % 7 ? "" : "# between items\n\n", nl, nl, nl,
		                       nl, i, nl);
	at += (size_t)snprintf(t + at, cap - at, "expect: {bindCount: 1}%s", nl);
	return t;
}

static void test_parallel_split(void **state)
{
	(void)state;
	size_t min_bytes = yu_split_min_bytes, min_chunk = yu_split_min_chunk;
	int threads = yu_split_threads;
	yu_split_min_bytes = 0;
	yu_split_min_chunk = 512;
	yu_split_threads = 3;
	const char *extras[] = {
	    "",
	    "queues: &q [{name: q1}]\nqueueCopy: *q\n",        /* anchors in the main part */
	    "podGroups:\n  - &g {name: g1}\n  - *g\n",         /* an anchor inside a section */
	    "name2: \"abc\npods:\n- x\"\n",                    /* a key-like line in a string */
	    "podGroups:\n  - {name: g1}\n - {name: broken}\n", /* a chunk that fails */
	    "podGroups:\n  - {name: g1, labels: *nowhere}\n",  /* an undefined alias */
	};
	for (size_t e = 0; e < N_ELEMS(extras); e++) {
		for (int crlf = 0; crlf < 2; crlf++) {
			unsigned long before = yu_split_done;
			char *t = split_text(300, crlf, extras[e]);
			check_split(t);
			free(t);
			/* the first two split; the others must decline and parse sequentially */
			assert_int_equal(yu_split_done - before, e < 2 ? 1 : 0);
		}
	}
	yu_split_min_bytes = min_bytes;
	yu_split_min_chunk = min_chunk;
	yu_split_threads = threads;
}

/* ---- every conformance fixture
 * ------------------------------------------------------------------- */

static int load_tree(const char *dir, unsigned *count)
{
	DIR *dh = opendir(dir);
	if (!dh)
		return -1;
	int failures = 0;
	struct dirent *e;
	while ((e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int f = load_tree(path, count);
			failures += f > 0 ? f : 0;
			continue;
		}
		size_t len = strlen(e->d_name);
		if (len < 5 || strcmp(e->d_name + len - 5, ".yaml") != 0)
			continue;
		tph_diag d = {0};
		tph_scenario *s = NULL;
		(*count)++;
		if (tph_scenario_load_file(path, &s, &d) != TPH_OK) {
			print_error("%s\n", d.msg);
			failures++;
		}
		tph_scenario_free(s);
	}
	closedir(dh);
	return failures;
}

static void test_all_fixtures(void **state)
{
	(void)state;
	char dir[4096];
	const char *shared = getenv("TPH_SHARED_DIR");
	const char *src = getenv("TPH_SOURCE_DIR");
	struct stat st;
	if (shared && *shared) {
		snprintf(dir, sizeof dir, "%s/conformance", shared);
		if (stat(dir, &st) != 0)
			snprintf(dir, sizeof dir, "%s", shared);
	} else {
		snprintf(dir, sizeof dir, "%s/../shared/conformance", src ? src : ".");
	}
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		skip_without_shared(dir);
	unsigned count = 0;
	int failures = load_tree(dir, &count);
	print_message("loaded %u fixtures from %s\n", count, dir);
	assert_int_equal(failures, 0);
	assert_true(count > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),       cmocka_unit_test(test_quantities),
	    cmocka_unit_test(test_full_scenario),  cmocka_unit_test(test_conf_string_and_mapping),
	    cmocka_unit_test(test_conf_file),      cmocka_unit_test(test_conf_block_location),
	    cmocka_unit_test(test_flags_tristate), cmocka_unit_test(test_arguments_tree),
	    cmocka_unit_test(test_timestamps),     cmocka_unit_test(test_durations),
	    cmocka_unit_test(test_now_default),    cmocka_unit_test(test_references),
	    cmocka_unit_test(test_parallel_split), cmocka_unit_test(test_v11_keys),
	    cmocka_unit_test(test_v11_errors),     cmocka_unit_test(test_many_conditions),
	    cmocka_unit_test(test_json_bodies),    cmocka_unit_test(test_all_fixtures),
	    cmocka_unit_test(test_v12_keys),       cmocka_unit_test(test_v12_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for the kai flavour's loaders (kernel/src/load/kai_*.c, conf_kai.c): every key of
 * shared/spec/kai-format.md into the scenario's kai model, KAI's defaults, located errors for
 * bad values and for the other flavour's keys, KAI's SchedulerConfiguration, and every fixture
 * of ../shared/conformance-kai. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/mem.h"
#include "load/conf_int.h"
#include "load/scenario_int.h"
#include "tephra/kai.h"
#include "tephra/scenario.h"
#include "shared_data.h"

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
	int rc = tph_scenario_load_buffer(yaml, strlen(yaml), "kai.yaml", &s, &d);
	if (rc != TPH_OK) {
		print_error("load failed (%d): %s\n", rc, d.msg);
		fail();
	}
	return s;
}

/* ---- every key ------------------------------------------------------------------------------ */

static const char full[] =
    "flavour: kai\n"
    "name: full\n"
    "now: \"2026-01-01T00:00:00Z\"\n"
    "schedulerParams:\n"
    "  maxNumberConsolidationPreemptees: -1\n"
    "  allowConsolidatingReclaim: false\n"
    "  useSchedulingSignatures: false\n"
    "  globalDefaultStalenessGracePeriod: -1s\n"
    "  fullHierarchyFairness: false\n"
    "  restrictSchedulingNodes: true\n"
    "  stuckInReleasingThreshold: 3m\n"
    "  schedulerName: other\n"
    "  nodeGPUMemoryMiB: {min: 100, max: 200}\n"
    "  nodePoolLabelKey: pool\n"
    "  nodePoolLabelValue: a\n"
    "conf: |\n"
    "  actions: \"allocate, stalegangeviction\"\n"
    "  tiers:\n"
    "  - plugins:\n"
    "    - name: proportion\n"
    "      arguments: {kValue: \"1.5\"}\n"
    "  - plugins:\n"
    "    - name: minruntime\n"
    "  queueDepthPerAction: {reclaim: 20}\n"
    "  scenarioSearchBudgets:\n"
    "    maxActionSearchDuration: {default: 5m}\n"
    "    maxJobSearchDuration: 4m\n"
    "    minJobSearchDuration: 0s\n"
    "    maxGeneratorSearchDuration: {default: 2m, NodeLocalGreedy: 30s}\n"
    "priorityClasses:\n"
    "  - {name: train, value: 50}\n"
    "topologies:\n"
    "  - name: topo\n"
    "    levels: [{nodeLabel: zone}, {nodeLabel: rack}]\n"
    "queues:\n"
    "  - name: dept\n"
    "    creationTimestamp: \"2025-12-31T00:00:00Z\"\n"
    "    resources:\n"
    "      gpu: {quota: 4, overQuotaWeight: 2, limit: -1}\n"
    "      memory: {quota: 3, overQuotaWeight: 1, limit: 5}\n"
    "  - name: team\n"
    "    parentQueue: dept\n"
    "    priority: 7\n"
    "    preemptMinRuntime: 5m\n"
    "    reclaimMinRuntime: 10m\n"
    "    displayName: Team\n"
    "    resources: {gpu: {quota: 0.5, overQuotaWeight: 1, limit: 3}}\n"
    "nodes:\n"
    "  - name: n0\n"
    "    allocatable: {cpu: \"16\", memory: 64Gi, nvidia.com/gpu: \"8\", pods: \"110\"}\n"
    "    labels: {nvidia.com/gpu.count: \"8\", nvidia.com/gpu.memory: \"40000\", zone: a, "
    "rack: r1}\n"
    "    taints: [{key: k, value: v, effect: NoSchedule}]\n"
    "    unschedulable: true\n"
    "    ready: false\n"
    "podGroups:\n"
    "  - name: job1\n"
    "    queue: team\n"
    "    priorityClassName: train\n"
    "    preemptibility: non-preemptible\n"
    "    minMember: 2\n"
    "    minSubGroup: 1\n"
    "    subGroups:\n"
    "      - {name: workers, minSubGroup: 1}\n"
    "      - {name: w0, parent: workers, minMember: 2,\n"
    "         topologyConstraint: {topology: topo, requiredTopologyLevel: rack}}\n"
    "    topologyConstraint: {topology: topo, preferredTopologyLevel: zone}\n"
    "    preemptionDelay: 30s\n"
    "    stalenessGracePeriod: 90s\n"
    "    creationTimestamp: \"2025-12-31T23:58:00Z\"\n"
    "    annotations:\n"
    "      kai.scheduler/last-start-timestamp: \"2025-12-31T23:59:00Z\"\n"
    "      kai.scheduler/last-eviction-timestamp: \"2025-12-31T23:50:00Z\"\n"
    "      kai.scheduler/stale-podgroup-timestamp: \"2025-12-31T23:58:59Z\"\n"
    "      other: ignored\n"
    "  - {name: job2, queue: team, priority: 120}\n"
    "pods:\n"
    "  - name: job1-0\n"
    "    podGroup: job1\n"
    "    status: Running\n"
    "    nodeName: n0\n"
    "    requests: {cpu: \"1\", memory: 1G}\n"
    "    labels: {kai.scheduler/subgroup-name: w0, kai.scheduler/task-priority: \"10\"}\n"
    "    annotations: {gpu-fraction: \"0.5\", gpu-memory: \"2000\", "
    "gpu-fraction-num-devices: \"2\", received-resource-type: Fraction}\n"
    "    gpuGroups: [\"0\", \"1\"]\n"
    "    schedulerName: kai-scheduler\n"
    "    nominatedNodeName: n0\n"
    "    creationTimestamp: \"2025-12-31T23:59:30Z\"\n"
    "    affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
    "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}}}\n"
    "    tolerations: [{key: k, operator: Exists}]\n"
    "  - {name: job2-0, podGroup: job2, requests: {nvidia.com/gpu: \"1\"}}\n"
    "expect:\n"
    "  tasks:\n"
    "    job1-0: {status: Releasing, nodeName: n0}\n"
    "    job2-0: {status: Pipelined, nodeName: n0, acceptedGPUs: 0.5, "
    "lastStartTimestampOlderThan: 30s}\n"
    "  podGroups:\n"
    "    job2: {status: Binding}\n"
    "  nodes:\n"
    "    n0: {idleGPUs: 1, releasingGPUs: 2}\n"
    "  binds: {job2-0: n0}\n"
    "  evictions: [job1-0]\n"
    "  maxBinds: 2\n"
    "  maxEvictions: 1\n"
    "  maxPipelined: 0\n"
    "probe:\n"
    "  jobOrder: [job2, job1]\n"
    "  queueOrder: [team]\n"
    "  victimFilter: [{action: reclaim, preemptor: job2, victim: job1, allowed: false}]\n"
    "  scenarioValid: [{action: preempt, preemptor: job2, victims: {job1: [job1-0]}, "
    "valid: true}]\n"
    "  canReclaim: {job2: true}\n"
    "  fairShare: {team: {gpu: 2}}\n";

static void check_params(const tph_kai_params *p)
{
	assert_int_equal(p->max_consolidation_preemptees, -1);
	assert_false(p->allow_consolidating_reclaim);
	assert_false(p->use_scheduling_signatures);
	assert_int_equal(p->staleness_grace_ms, -1000);
	assert_false(p->full_hierarchy_fairness);
	assert_true(p->restrict_scheduling_nodes);
	assert_int_equal(p->stuck_in_releasing_ms, 180000);
	assert_string_equal(p->scheduler_name, "other");
	assert_true(p->has_gpu_memory);
	assert_int_equal(p->gpu_memory_min_mib, 100);
	assert_int_equal(p->gpu_memory_max_mib, 200);
	assert_string_equal(p->node_pool_key, "pool");
	assert_string_equal(p->node_pool_value, "a");
}

static void check_conf(const tph_conf *c)
{
	assert_int_equal(tph_conf_flavour_of(c), TPH_CONF_KAI);
	assert_int_equal(c->n_actions, 2);
	assert_string_equal(c->actions[1], "stalegangeviction");
	assert_int_equal(c->n_tiers, 1); /* flattened */
	assert_int_equal(c->tiers[0].n_plugins, 2);
	assert_string_equal(c->tiers[0].plugins[1].name, "minruntime");
	const tph_arg *k = tph_arg_get(&c->tiers[0].plugins[0].args, "kValue");
	assert_non_null(k);
	assert_string_equal(k->text, "1.5");
	assert_int_equal(c->n_queue_depth, 1);
	assert_int_equal(c->queue_depth[0].depth, 20);
	assert_int_equal(c->budgets.job_ms, 240000);
	assert_int_equal(c->budgets.n_generator, 2);
	assert_string_equal(c->budgets.generator[1].name, "NodeLocalGreedy");
	assert_int_equal(c->budgets.generator[1].ms, 30000);
}

static void check_queues(const tph_sc_kai *k)
{
	assert_int_equal(k->n_queues, 2);
	const tph_kai_queue_desc *dept = &k->queues[0].d, *team = &k->queues[1].d;
	assert_null(dept->parent);
	assert_int_equal(dept->priority, 100);
	assert_true(dept->res[TPH_KAI_GPU].quota == 4 && dept->res[TPH_KAI_GPU].limit == -1);
	assert_true(dept->res[TPH_KAI_MEMORY].quota == 3e6 &&
	            dept->res[TPH_KAI_MEMORY].limit == 5e6);
	assert_true(dept->res[TPH_KAI_CPU].quota == 0); /* left out: zero values */
	assert_int_equal(dept->preempt_min_runtime_ms, TPH_KAI_INHERIT);
	assert_string_equal(team->parent, "dept");
	assert_int_equal(team->priority, 7);
	assert_int_equal(team->preempt_min_runtime_ms, 300000);
	assert_int_equal(team->reclaim_min_runtime_ms, 600000);
	assert_true(team->res[TPH_KAI_GPU].quota == 0.5);
	assert_int_equal(k->n_topologies, 1);
	assert_int_equal(k->topologies[0].d.levels.n, 2);
}

static void check_podgroups(const tph_sc_kai *k)
{
	const tph_kai_podgroup_desc *g = &k->podgroups[0].d;
	assert_string_equal(g->namespace_, "");
	assert_string_equal(g->priority_class, "train");
	assert_int_equal(g->preemptibility, TPH_KAI_NON_PREEMPTIBLE);
	assert_int_equal(g->min_member, 2);
	assert_int_equal(g->min_subgroup, 1);
	assert_int_equal(g->n_subgroups, 2);
	assert_string_equal(g->subgroups[1].parent, "workers");
	assert_int_equal(g->subgroups[1].min_member, 2);
	assert_int_equal(g->subgroups[0].min_subgroup, 1);
	assert_string_equal(g->subgroups[1].topology.required_level, "rack");
	assert_string_equal(g->topology.preferred_level, "zone");
	assert_int_equal(g->preemption_delay_ms, 30000);
	assert_true(g->has_staleness_grace);
	assert_int_equal(g->staleness_grace_ms, 90000);
	assert_true(g->last_start == 1767225540000LL && g->stale_since == 1767225539000LL);
	assert_true(g->last_eviction == 1767225000000LL);
	const tph_kai_podgroup_desc *g2 = &k->podgroups[1].d;
	assert_true(g2->has_priority);
	assert_int_equal(g2->priority, 120);
	assert_int_equal(g2->min_member, 1);
	assert_int_equal(g2->preemption_delay_ms, -1);
}

static void check_pods(const tph_scenario *s)
{
	const tph_kai_pod_desc *p = &s->kai->pods[0];
	assert_int_equal(p->status, TPH_KAI_TS_RUNNING);
	assert_true(p->gpu_fraction == 0.5);
	assert_int_equal(p->gpu_memory_mib, 2000);
	assert_int_equal(p->gpu_devices, 2);
	assert_int_equal(p->received, TPH_KAI_RECEIVED_FRACTION);
	assert_int_equal(p->gpu_groups.n, 2);
	assert_string_equal(p->subgroup, "w0");
	assert_true(p->has_task_priority);
	assert_int_equal(p->task_priority, 10);
	assert_string_equal(s->pods[0].d.node_name, "n0");
	assert_non_null(s->pods[0].d.affinity);
	assert_int_equal(s->pods[0].d.n_tolerations, 1);
	const tph_kai_pod_desc *q = &s->kai->pods[1];
	assert_int_equal(q->status, TPH_KAI_TS_DERIVED);
	assert_int_equal(q->gpu_devices, 1);
	assert_null(q->subgroup);
}

static void check_expect(const tph_scenario *s)
{
	const tph_sc_kai_expect *e = &s->kai->expect;
	assert_true(e->present && s->expect.present);
	assert_int_equal(e->tasks.n, 2);
	assert_int_equal(e->tasks.items[0].status, TPH_KAI_TS_RELEASING);
	assert_true(e->tasks.items[1].has_gpus && e->tasks.items[1].accepted_gpus == 0.5);
	assert_int_equal(e->tasks.items[1].older_than_ms, 30000);
	assert_int_equal(e->tasks.items[0].older_than_ms, -1);
	assert_int_equal(e->podgroups.items[0].key.idx, 1);
	assert_false(e->podgroups.items[0].has_node);
	assert_true(e->nodes.items[0].idle_gpus == 1 && e->nodes.items[0].releasing_gpus == 2);
	assert_int_equal(e->binds.n, 1);
	assert_int_equal(e->evictions.items[0].idx, 0);
	assert_int_equal(e->max_binds, 2);
	assert_int_equal(e->max_pipelined, 0);
	const tph_sc_kai_probe *p = &s->kai->probe;
	assert_int_equal(s->probe.job_order.n, 2);
	assert_int_equal(p->n_victim_filters, 1);
	assert_false(p->victim_filters[0].allowed);
	assert_int_equal(p->victim_filters[0].victim.idx, 0);
	assert_int_equal(p->scenario_valid[0].action, TPH_SC_KAI_PREEMPT);
	assert_int_equal(p->scenario_valid[0].victims[0].pods.n, 1);
	assert_true(p->can_reclaim.items[0].value);
	assert_true(p->fair_shares[0].share[TPH_KAI_GPU] == 2);
	assert_true(isnan(p->fair_shares[0].share[TPH_KAI_CPU]));
}

static void test_every_key(void **state)
{
	(void)state;
	warnings_seen = 0;
	tph_scenario *s = load_ok(full);
	assert_int_equal(warnings_seen, 0);
	assert_non_null(s->kai);
	assert_int_equal(s->flavour, TPH_CONF_KAI);
	check_params(&s->kai->params);
	check_conf(s->conf);
	check_queues(s->kai);
	check_podgroups(s->kai);
	check_pods(s);
	check_expect(s);
	assert_int_equal(tph_cluster_node_count(tph_scenario_cluster(s)), 1);
	tph_scenario_free(s);
}

/* ---- defaults ------------------------------------------------------------------------------- */

static void test_defaults(void **state)
{
	(void)state;
	tph_scenario *s = load_ok("flavour: kai\n"
	                          "queues: [{name: q}]\n"
	                          "podGroups: [{name: g, queue: q}]\n"
	                          "pods: [{name: p, podGroup: g}]\n");
	const tph_kai_params *p = &s->kai->params;
	assert_int_equal(p->max_consolidation_preemptees, 16);
	assert_true(p->allow_consolidating_reclaim && p->use_scheduling_signatures);
	assert_int_equal(p->staleness_grace_ms, 60000);
	assert_int_equal(p->stuck_in_releasing_ms, 120000);
	assert_false(p->has_gpu_memory);
	assert_null(s->conf); /* the host or the CLI picks KAI's default */
	assert_int_equal(s->kai->podgroups[0].d.min_subgroup, TPH_KAI_UNSET);
	assert_int_equal(s->kai->podgroups[0].d.preemptibility, TPH_KAI_PREEMPTIBLE_UNSET);
	assert_true(s->kai->queues[0].d.res[TPH_KAI_GPU].quota == 0);
	assert_false(s->kai->expect.present);
	tph_scenario_free(s);
}

/* KAI's built-in conf when the ConfigMap omits actions or tiers, and the default text. */
static void test_conf_defaults(void **state)
{
	(void)state;
	tph_diag d = {.warn = count_warning};
	tph_conf *c = NULL;
	static const char def[] = TPH_CONF_KAI_DEFAULT;
	assert_int_equal(tph_conf_load_kai_string(def, sizeof def - 1, "def", &c, &d), TPH_OK);
	assert_int_equal(c->n_actions, 5);
	assert_int_equal(c->tiers[0].n_plugins, 20);
	assert_string_equal(c->tiers[0].plugins[14].name, "nodeplacement");
	tph_conf_free(c);
	static const char only_actions[] = "actions: \"reclaim\"\n";
	assert_int_equal(
	    tph_conf_load_kai_string(only_actions, sizeof only_actions - 1, "a", &c, &d), TPH_OK);
	assert_int_equal(c->n_actions, 1);
	assert_int_equal(c->tiers[0].n_plugins, 20);
	tph_conf_free(c);
	assert_int_equal(tph_conf_load_kai_string("", 0, "empty", &c, &d), TPH_OK);
	assert_int_equal(c->n_actions, 5);
	assert_string_equal(c->actions[4], "stalegangeviction");
	tph_conf_free(c);
	static const char none[] = "actions: \"\"\ntiers: []\n";
	assert_int_equal(tph_conf_load_kai_string(none, sizeof none - 1, "none", &c, &d), TPH_OK);
	assert_int_equal(c->n_actions, 0);
	assert_int_equal(c->tiers[0].n_plugins, 0);
	tph_conf_free(c);
}

/* An unknown plugin is left out with a warning, as KAI logs it and goes on. */
static void test_conf_unknown_plugin(void **state)
{
	(void)state;
	tph_diag d = {.warn = count_warning};
	tph_conf *c = NULL;
	static const char text[] = "actions: allocate\n"
	                           "tiers:\n"
	                           "- plugins: [{name: frob}, {name: priority}]\n";
	warnings_seen = 0;
	assert_int_equal(tph_conf_load_kai_string(text, sizeof text - 1, "c", &c, &d), TPH_OK);
	assert_int_equal(warnings_seen, 1);
	assert_int_equal(c->tiers[0].n_plugins, 1);
	assert_string_equal(c->tiers[0].plugins[0].name, "priority");
	tph_conf_free(c);
}

/* ---- errors --------------------------------------------------------------------------------- */

typedef struct err_case {
	const char *yaml;
	const char *want;
} err_case;

#define KAI "flavour: kai\n"

static const err_case errors[] = {
    /* Volcano's keys in a kai scenario, and KAI's in a volcano one */
    {KAI "enableFlagsDefault: true\n",
     "kai.yaml:2:21: scenario: field enableFlagsDefault: only a volcano scenario has this key"},
    {KAI "queues: [{name: q, weight: 2}]\n",
     "queue q: field weight: only a volcano scenario has this key"},
    {KAI "queues: [{name: q}]\npods: [{name: p, taskSpec: x}]\n",
     "pod p: field taskSpec: only a volcano scenario has this key"},
    {"schedulerParams: {}\n", "scenario: field schedulerParams: only a kai scenario has this key"},
    {"queues: [{name: q, parentQueue: r}]\n",
     "queue q: field parentQueue: only a kai scenario has this key"},
    {"pods: [{name: p, status: Running}]\n",
     "pod default/p: field status: only a kai scenario has this key"},
    {"podGroups: [{name: g, subGroups: []}]\n",
     "podGroup default/g: field subGroups: only a kai scenario has this key"},
    {"expect: {maxBinds: 1}\n", "expect: field maxBinds: only a kai scenario has this key"},
    /* bad values, located */
    {KAI "schedulerParams: {maxNumberConsolidationPreemptees: -2}\n",
     "schedulerParams: field maxNumberConsolidationPreemptees:"},
    {KAI "schedulerParams: {nodeGPUMemoryMiB: {min: 200, max: 100}}\n",
     "field nodeGPUMemoryMiB: min is above max"},
    {KAI "queues: [{name: q, resources: {gpu: {quota: -2}}}]\n",
     "kai.yaml:2:45: queue q: field resources.gpu.quota: must be -1 (unlimited) or 0 or more"},
    {KAI "queues: [{name: q, resources: {tpu: {quota: 1}}}]\n",
     "queue q: field resources.tpu: unknown field"},
    {KAI "queues: [{name: q, parentQueue: q}]\n", "a queue cannot be its own parent"},
    {KAI "queues: [{name: a, parentQueue: b}, {name: b, parentQueue: a}]\n",
     "queue parents form a cycle"},
    {KAI "nodes: [{name: n, labels: {nvidia.com/gpu.memory: lots}}]\n",
     "node n: field labels.nvidia.com/gpu.memory: not a non-negative integer (\"lots\")"},
    {KAI "podGroups: [{name: g, preemptibility: maybe}]\n", "podGroup g: field preemptibility:"},
    {KAI "podGroups: [{name: g, subGroups: [{name: a}, {name: a}]}]\n",
     "field subGroups[1]: duplicate sub-group \"a\""},
    {KAI "podGroups: [{name: g, subGroups: [{name: a, parent: z}]}]\n",
     "field subGroups[0].parent: no such sub-group (sub-group \"a\")"},
    {KAI "podGroups: [{name: g, subGroups: [{name: a, parent: b}, {name: b, parent: a}]}]\n",
     "sub-group parents form a cycle"},
    {KAI "podGroups: [{name: g, subGroups: [{name: a, minMember: 1}, {name: b, parent: a}]}]\n",
     "takes minSubGroup, not minMember"},
    {KAI "podGroups: [{name: g, minSubGroup: 1}]\n",
     "podGroup g: field minSubGroup: a podgroup without subGroups has no minSubGroup"},
    {KAI "podGroups: [{name: g, topologyConstraint: {topology: t}}]\n",
     "field topologyConstraint.topology: no topology \"t\""},
    {KAI "topologies: [{name: t, levels: [{nodeLabel: a}]}]\n"
         "podGroups: [{name: g, topologyConstraint: {topology: t, requiredTopologyLevel: b}}]\n",
     "field topologyConstraint.requiredTopologyLevel: topology t has no level \"b\""},
    {KAI "podGroups: [{name: g, annotations: {kai.scheduler/last-start-timestamp: soon}}]\n",
     "field annotations.kai.scheduler/last-start-timestamp:"},
    {KAI "pods: [{name: p, status: Sleeping}]\n", "pod p: field status:"},
    {KAI "pods: [{name: p, annotations: {gpu-fraction: half}}]\n",
     "pod p: field annotations.gpu-fraction: not a number (\"half\")"},
    {KAI "pods: [{name: p, annotations: {gpu-fraction-num-devices: \"0\"}}]\n",
     "field annotations.gpu-fraction-num-devices: not an integer in [1,"},
    {KAI "pods: [{name: p, annotations: {received-resource-type: Shared}}]\n",
     "field annotations.received-resource-type:"},
    {KAI "pods: [{name: p, nodeName: n9}]\n", "pod p: field nodeName: no node \"n9\""},
    {KAI "pods: [{name: p}]\nexpect: {tasks: {q: {status: Running}}}\n",
     "expect: field tasks.q: no pod \"q\""},
    {KAI "nodes: [{name: n}]\npods: [{name: p}]\nexpect: {tasks: {p: {nodeName: n}}}\n",
     "field tasks.p.status: required field is missing"},
    {KAI
     "podGroups: [{name: g}]\npods: [{name: p}]\n"
     "probe: {scenarioValid: [{action: reclaim, preemptor: g, victims: {g: [p]}, valid: true}]}\n",
     "pod p is not in podGroup g"},
    {KAI "probe: {victimFilter: [{action: consolidate}]}\n", "field victimFilter[0].action:"},
    {KAI "conf: |\n  actions: \"allocate, enqueue\"\n",
     "kai.yaml:3:12: conf: field actions: unknown KAI action \"enqueue\""},
    {KAI "conf: |\n  tiers:\n  - plugins:\n    - {name: priority, enableJobOrder: true}\n",
     "field enableJobOrder: KAI plugins have no enable flags"},
    {KAI "conf: |\n  tiers:\n  - plugins:\n    - {name: proportion, arguments: {kValue: [1]}}\n",
     "field arguments.kValue: KAI plugin arguments are strings, got a sequence"},
    {KAI "conf: |\n  queueDepthPerAction: {reclaim: 0}\n", "field queueDepthPerAction.reclaim:"},
    {KAI "conf: |\n  scenarioSearchBudgets: {maxJobSearchDuration: -1s}\n",
     "field scenarioSearchBudgets.maxJobSearchDuration: must not be negative"},
};

static void test_errors(void **state)
{
	(void)state;
	int failures = 0;
	for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++) {
		tph_diag d = {.warn = count_warning};
		tph_scenario *s = NULL;
		const char *y = errors[i].yaml;
		int rc = tph_scenario_load_buffer(y, strlen(y), "kai.yaml", &s, &d);
		if (rc >= 0 || s || !strstr(d.msg, errors[i].want)) {
			print_error("case %zu: rc %d, \"%s\"\n  want \"%s\"\n", i, rc, d.msg,
			            errors[i].want);
			failures++;
		}
		tph_scenario_free(s);
	}
	assert_int_equal(failures, 0);
}

/* A pod whose podgroup or pod set does not exist is never scheduled: a warning, not an error. */
static void test_warnings(void **state)
{
	(void)state;
	warnings_seen = 0;
	tph_scenario *s = load_ok(KAI "podGroups: [{name: g, subGroups: [{name: a}]}]\n"
	                              "pods: [{name: p, podGroup: nope},\n"
	                              "       {name: q, podGroup: g},\n"
	                              "       {name: r, podGroup: g, labels: "
	                              "{kai.scheduler/subgroup-name: a}},\n"
	                              "       {name: f, annotations: {gpu-fraction: \"1.5\"}}]\n");
	assert_int_equal(warnings_seen, 3); /* p, q and the fraction out of (0, 1] */
	assert_true(s->kai->pods[3].gpu_fraction == 0);
	tph_scenario_free(s);
	warnings_seen = 0;
	s = load_ok(KAI "queues: [{name: a, parentQueue: gone}, {name: b, parentQueue: a}]\n");
	assert_int_equal(warnings_seen, 1); /* only the queue naming the missing parent */
	tph_scenario_free(s);
}

/* ---- truncations and allocation failures --------------------------------------------------- */

/* Every prefix of the full kai scenario loads or fails cleanly, naming the file. */
static void test_truncations(void **state)
{
	(void)state;
	size_t len = strlen(full);
	unsigned ok = 0, failed = 0;
	for (size_t cut = 0; cut <= len; cut++) {
		tph_diag d = {.warn = count_warning};
		tph_scenario *s = NULL;
		int rc = tph_scenario_load_buffer(full, cut, "cut.yaml", &s, &d);
		if (rc == TPH_OK) {
			ok++;
			tph_scenario_free(s);
			continue;
		}
		failed++;
		assert_null(s);
		if (!strstr(d.msg, "cut.yaml"))
			fail_msg("cut at %zu: message without the file: %s", cut, d.msg);
	}
	assert_true(failed > 0 && ok > 0);
}

/* Load, snapshot and open a session with the Nth allocation failing, N = 1, 2, ... until the
 * injected failure is no longer reached: each step fails cleanly or succeeds. */
static int load_to_session(void)
{
	tph_diag d = {.warn = count_warning};
	tph_scenario *s = NULL;
	tph_kai_snapshot *snap = NULL;
	tph_kai_session *ssn = NULL;
	int rc = tph_scenario_load_buffer(full, strlen(full), "full.yaml", &s, &d);
	if (rc == TPH_OK)
		rc = tph_kai_snapshot_build(tph_scenario_kai_cluster(s), tph_scenario_now(s), &snap,
		                            &d);
	if (rc == TPH_OK)
		rc = tph_kai_session_open(snap, tph_scenario_conf(s), &ssn, &d);
	if (rc < 0)
		assert_true(d.msg[0] != '\0');
	tph_kai_session_free(ssn);
	tph_kai_snapshot_free(snap);
	tph_scenario_free(s);
	return rc;
}

static void test_allocation_failures(void **state)
{
	(void)state;
	long n;
	for (n = 1;; n++) {
		tph_mem_fail_after(n, 0);
		int rc = load_to_session();
		long attempts = tph_mem_attempts();
		tph_mem_fail_after(0, 0);
		if (rc == TPH_OK) {
			assert_true(attempts < n);
			break;
		}
		assert_true(rc < 0);
	}
	print_message("%ld allocation points checked\n", n - 1);
	assert_true(n > 10);
}

/* ---- every fixture of ../shared/conformance-kai --------------------------------------------- */

static int load_tree(const char *dir, unsigned *count)
{
	DIR *dh = opendir(dir);
	if (!dh)
		return -1;
	int failures = 0;
	struct dirent *e;
	while ((e = readdir(dh))) {
		char path[4096];
		size_t len = strlen(e->d_name);
		struct stat st;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (e->d_name[0] == '.' || stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			int f = load_tree(path, count);
			failures += f > 0 ? f : 0;
			continue;
		}
		if (len < 5 || strcmp(e->d_name + len - 5, ".yaml") != 0)
			continue;
		tph_diag d = {.warn = count_warning};
		tph_scenario *s = NULL;
		(*count)++;
		if (tph_scenario_load_file(path, &s, &d) != TPH_OK || !s->kai) {
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
	if (shared && *shared)
		snprintf(dir, sizeof dir, "%s/conformance-kai", shared);
	else
		snprintf(dir, sizeof dir, "%s/../shared/conformance-kai", src ? src : ".");
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
		skip_without_shared(dir);
	unsigned count = 0;
	int failures = load_tree(dir, &count);
	print_message("loaded %u kai fixtures from %s\n", count, dir);
	assert_int_equal(failures, 0);
	assert_true(count > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_key),     cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_conf_defaults), cmocka_unit_test(test_conf_unknown_plugin),
	    cmocka_unit_test(test_errors),        cmocka_unit_test(test_warnings),
	    cmocka_unit_test(test_truncations),   cmocka_unit_test(test_allocation_failures),
	    cmocka_unit_test(test_all_fixtures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for KAI's predicates plugin (plugins/kai/predicates.c) and its points
 * (session/kai/kai_pred.c): each rule refuses the nodes it must and only those, through the
 * public dispatch (tph_kai_pre_predicate, tph_kai_victim_invariant_fails, tph_kai_predicate);
 * PrePredicate and Predicate need every registration to pass, VictimInvariantPrePredicate the
 * first failure, QueueFairShare only the first registration. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai_fixture.h"

#define Q                                                                                        \
	"{gpu: {quota: -1, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: " \
	"-1}}"
#define ALLOC_(gpus, pods) \
	"allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"" gpus "\", pods: \"" pods "\"}"

/* One node per rule; the running pods fill n6 (one pod allowed) and half of a shared GPU on n9
 * (three pods allowed, two held). */
static const char scenario[] =
    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"allocate\"\n"
    "  tiers:\n  - plugins: [{name: predicates}]\n"
    "queues: [{name: q, resources: " Q "}]\n"
    "nodes:\n"
    "  - {name: n0, " ALLOC_(
        "2",
        "110") ", labels: {zone: a, nvidia.com/gpu.memory: \"40000\"}}\n"
               "  - {name: n1, " ALLOC_(
                   "2",
                   "110") ", taints: [{key: ded, value: gpu, effect: NoSchedule}]}\n"
                          "  - {name: n2, " ALLOC_(
                              "2",
                              "110") ", unschedulable: true}\n"
                                     "  - {name: n3, " ALLOC_(
                                         "2",
                                         "110") ", ready: false}\n"
                                                "  - {name: n4, " ALLOC_(
                                                    "2",
                                                    "110") ", labels: {zone: b}}\n"
                                                           "  - {name: n5, " ALLOC_(
                                                               "2",
                                                               "110") ", labels: "
                                                                      "{node-role.kubernetes.io/"
                                                                      "mig-enabled: \"true\", "
                                                                      "nvidia.com/mig.strategy: "
                                                                      "single}}\n"
                                                                      "  - {name: n6, " ALLOC_(
                                                                          "2",
                                                                          "1") "}\n"
                                                                               "  - {name: "
                                                                               "n7, " ALLOC_(
                                                                                   "2",
                                                                                   "110") ", "
                                                                                          "taints: "
                                                                                          "[{key: "
                                                                                          "ded, "
                                                                                          "value: "
                                                                                          "gpu, "
                                                                                          "effect: "
                                                                                          "PreferNo"
                                                                                          "Schedule"
                                                                                          "}]}\n"
                                                                                          "  - "
                                                                                          "{name: "
                                                                                          "n8,"
                                                                                          " " ALLOC_(
                                                                                              "2",
                                                                                              "110") ", labels: {node-role.kubernetes.io/mig-enabled: \"true\", "
                                                                                                     "nvidia.com/mig.strategy: mixed}}\n"
                                                                                                     "  - {name: n9, " ALLOC_(
                                                                                                         "2",
                                                                                                         "3") ", labels: {nvidia.com/gpu.memory: \"40000\"}}\n"
                                                                                                              "  - {name: n10, " ALLOC_(
                                                                                                                  "2",
                                                                                                                  "110") ", taints: [{key: ded, value: gpu, effect: NoExecute}]}\n"
                                                                                                                         "podGroups: [{name: j, queue: q, minMember: 0}, {name: run, queue: q, minMember: 0}]\n"
                                                                                                                         "pods:\n"
                                                                                                                         "  - {name: plain, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
                                                                                                                         "  - {name: tol, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}, tolerations: "
                                                                                                                         "[{key: ded, operator: Exists}]}\n"
                                                                                                                         "  - {name: sel, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}, nodeSelector: "
                                                                                                                         "{zone: b}}\n"
                                                                                                                         "  - name: aff\n    podGroup: j\n    status: Pending\n    requests: {nvidia.com/gpu: 1}\n"
                                                                                                                         "    affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
                                                                                                                         "{nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]}}}\n"
                                                                                                                         "  - {name: mem, podGroup: j, status: Pending, annotations: {gpu-memory: \"1000\"}}\n"
                                                                                                                         "  - {name: frac, podGroup: j, status: Pending, annotations: {gpu-fraction: \"0.5\"}}\n"
                                                                                                                         "  - {name: frac3, podGroup: j, status: Pending, annotations: {gpu-fraction: \"0.75\"}}\n"
                                                                                                                         "  - {name: cpu, podGroup: j, status: Pending, requests: {cpu: \"1\"}}\n"
                                                                                                                         "  - {name: mig, podGroup: j, status: Pending, requests: {nvidia.com/mig-1g.10gb: 1}}\n"
                                                                                                                         "  - {name: huge, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 3}}\n"
                                                                                                                         "  - {name: run-0, podGroup: run, status: Running, nodeName: n6, requests: {cpu: \"1\"}}\n"
                                                                                                                         "  - {name: run-1, podGroup: run, status: Running, nodeName: n9, requests: {cpu: \"1\"}}\n"
                                                                                                                         "  - {name: run-2, podGroup: run, status: Running, nodeName: n9, gpuGroups: [\"0\"], "
                                                                                                                         "annotations: {gpu-fraction: \"0.5\"}}\n";

static uint32_t task_named(const kf *f, const char *name)
{
	const tph_kai_tasks *t = &tph_kai_snapshot_view(f->snap)->tasks;
	for (uint32_t i = 0; i < t->n; i++)
		if (strcmp(t->name[i], name) == 0)
			return i;
	fail_msg("no task %s", name);
	return 0;
}

/* The nodes (n0 .. n10) where `task` passes Predicate, as a string of 0/1. */
static void feasible(const kf *f, const char *task, const char *want)
{
	char got[16] = {0};
	uint32_t t = task_named(f, task), n = tph_kai_snapshot_view(f->snap)->nodes.n;
	for (uint32_t i = 0; i < n && i < sizeof got - 1; i++)
		got[i] = tph_kai_predicate(f->s, t, i) ? '1' : '0';
	if (strcmp(got, want) != 0)
		fail_msg("%s: feasible %s, want %s", task, got, want);
}

/*                                   n0 n1 n2 n3 n4 n5 n6 n7 n8 n9 n10 */
static void test_node_rules(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, scenario);
	/* taints (NoSchedule, NoExecute; PreferNoSchedule ignored), unschedulable, not ready, max
	 * pods; a whole-GPU pod is "regular" on a single-strategy MIG node, not on a mixed one */
	feasible(&f, "plain", "10001101010");
	feasible(&f, "tol", "11001101011");
	feasible(&f, "sel", "00001000000");
	feasible(&f, "aff", "10000000000");
	/* gpu memory needs the memory label; a fraction is not regular (MIG single) */
	feasible(&f, "mem", "10000000010");
	/* the 0.5 fraction joins n9's half-used GPU (one pod of room suffices); the 0.75 one would
	 * open a new group, which needs two pods of room */
	feasible(&f, "frac", "10001001010");
	feasible(&f, "frac3", "10001001000");
	/* a CPU pod passes the GPU type rules everywhere */
	feasible(&f, "cpu", "10001101110");
	feasible(&f, "mig", "00000000100");
	close_kai(&f);
}

static void test_pre_predicate(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, scenario);
	uint32_t huge = task_named(&f, "huge"), plain = task_named(&f, "plain");
	assert_false(tph_kai_pre_predicate(f.s, huge, 0));
	assert_true(tph_kai_victim_invariant_fails(f.s, huge));
	assert_true(tph_kai_pre_predicate(f.s, plain, 0));
	assert_false(tph_kai_victim_invariant_fails(f.s, plain));
	close_kai(&f);
}

/* Within capacity on one node only. */
static bool within_on_one(void *st, const tph_kai_session *s, uint32_t task, uint32_t node)
{
	(void)s, (void)task;
	return node == *(uint32_t *)st;
}

/* The queue-capacity point the plugin asks first (proportion's, registered here by hand). */
static void test_queue_capacity(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, scenario);
	uint32_t only = 4;
	f.s->frozen = false;
	assert_int_equal(tph_kai_add_task_capacity(f.s, within_on_one, &only), 0);
	feasible(&f, "plain", "00001000000");
	close_kai(&f);
}

static const char restricted[] =
    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nschedulerParams: {restrictSchedulingNodes: "
    "true}\n"
    "conf: |\n  actions: \"allocate\"\n  tiers:\n  - plugins: [{name: predicates}]\n"
    "queues: [{name: q, resources: " Q "}]\n"
    "nodes:\n"
    "  - {name: g, " ALLOC_(
        "2", "110") ", labels: {node-role.kubernetes.io/gpu-worker: \"\"}}\n"
                    "  - {name: c, " ALLOC_(
                        "2", "110") ", labels: {node-role.kubernetes.io/cpu-worker: \"\"}}\n"
                                    "  - {name: none, " ALLOC_(
                                        "2",
                                        "110") "}\n"
                                               "podGroups: [{name: j, queue: q}]\n"
                                               "pods:\n"
                                               "  - {name: plain, podGroup: j, status: Pending, "
                                               "requests: {nvidia.com/gpu: 1}}\n"
                                               "  - {name: frac, podGroup: j, status: Pending, "
                                               "annotations: {gpu-fraction: \"0.5\"}}\n"
                                               "  - {name: cpu, podGroup: j, status: Pending, "
                                               "requests: {cpu: \"1\"}}\n";

static void test_restricted_nodes(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, restricted);
	feasible(&f, "plain", "100");
	feasible(&f, "frac", "100");
	feasible(&f, "cpu", "010");
	close_kai(&f);
}

/* Gt/Lt compare the label's integer value; a node without it, or with a non-integer one,
 * never matches. */
static const char gt_lt[] =
    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\n"
    "conf: |\n  actions: \"allocate\"\n  tiers:\n  - plugins: [{name: predicates}]\n"
    "queues: [{name: q, resources: " Q "}]\n"
    "nodes:\n"
    "  - {name: old, " ALLOC_(
        "2",
        "110") ", labels: {gen: \"1\"}}\n"
               "  - {name: new, " ALLOC_(
                   "2",
                   "110") ", labels: {gen: \"3\"}}\n"
                          "  - {name: odd, " ALLOC_(
                              "2",
                              "110") ", labels: {gen: three}}\n"
                                     "  - {name: none, " ALLOC_(
                                         "2",
                                         "110") "}\n"
                                                "podGroups: [{name: j, queue: q, minMember: 0}]\n"
                                                "pods:\n"
                                                "  - name: gt\n    podGroup: j\n    requests: "
                                                "{cpu: \"1\"}\n"
                                                "    affinity: {nodeAffinity: "
                                                "{requiredDuringSchedulingIgnoredDuringExecution: "
                                                "{nodeSelectorTerms: [{matchExpressions: [{key: "
                                                "gen, operator: Gt, values: [\"2\"]}]}]}}}\n"
                                                "  - name: lt\n    podGroup: j\n    requests: "
                                                "{cpu: \"1\"}\n"
                                                "    affinity: {nodeAffinity: "
                                                "{requiredDuringSchedulingIgnoredDuringExecution: "
                                                "{nodeSelectorTerms: [{matchExpressions: [{key: "
                                                "gen, operator: Lt, values: [\"2\"]}]}]}}}\n";

static void test_gt_lt(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, gt_lt);
	feasible(&f, "gt", "0100");
	feasible(&f, "lt", "1000");
	close_kai(&f);
}

static bool yes(void *st, const tph_kai_session *s, uint32_t task, uint32_t x)
{
	(void)s, (void)task, (void)x;
	++*(int *)st;
	return true;
}

static bool no(void *st, const tph_kai_session *s, uint32_t task, uint32_t x)
{
	(void)s, (void)task, (void)x;
	++*(int *)st;
	return false;
}

static bool fails(void *st, const tph_kai_session *s, uint32_t task)
{
	(void)s, (void)task;
	++*(int *)st;
	return true;
}

static void share(void *st, const tph_kai_session *s, uint32_t q, double out[TPH_KAI_DIMS])
{
	(void)s;
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		out[d] = *(double *)st + q;
}

/* A session without plugins: each point's rule over registrations made by hand. */
static void test_dispatch_rules(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, restricted);
	f.s->frozen = false;
	double out[TPH_KAI_DIMS] = {-1, -1, -1}, one = 1, two = 2;
	int a = 0, b = 0, c = 0, v1 = 0, v2 = 0;
	assert_false(tph_kai_fair_share(f.s, 0, out));
	assert_true(out[0] == -1);
	/* the open already registered the plugin's own: count on top of them */
	tph_kai_hooks keep = f.s->predicate, keep_pre = f.s->pre_predicate;
	tph_kai_hooks keep_vi = f.s->victim_invariant;
	f.s->predicate = f.s->pre_predicate = f.s->victim_invariant = (tph_kai_hooks){0};
	assert_true(tph_kai_predicate(f.s, 0, 0));
	assert_true(tph_kai_pre_predicate(f.s, 0, 0));
	assert_false(tph_kai_victim_invariant_fails(f.s, 0));
	assert_int_equal(tph_kai_add_predicate(f.s, yes, &a), 0);
	assert_int_equal(tph_kai_add_predicate(f.s, no, &b), 0);
	assert_int_equal(tph_kai_add_predicate(f.s, yes, &c), 0);
	assert_false(tph_kai_predicate(f.s, 0, 0));
	assert_int_equal(a, 1), assert_int_equal(b, 1), assert_int_equal(c, 0);
	assert_int_equal(tph_kai_add_pre_predicate(f.s, (tph_kai_pre_predicate_fn)yes, &a), 0);
	assert_true(tph_kai_pre_predicate(f.s, 0, 0));
	assert_int_equal(tph_kai_add_victim_invariant(f.s, fails, &v1), 0);
	assert_int_equal(tph_kai_add_victim_invariant(f.s, fails, &v2), 0);
	assert_true(tph_kai_victim_invariant_fails(f.s, 0));
	assert_int_equal(v1, 1), assert_int_equal(v2, 0);
	assert_int_equal(tph_kai_add_fair_share(f.s, share, &one), 0);
	assert_int_equal(tph_kai_add_fair_share(f.s, share, &two), 0);
	assert_true(tph_kai_fair_share(f.s, 0, out));
	assert_true(out[TPH_KAI_GPU] == 1 && out[TPH_KAI_MEMORY] == 1);
	f.s->frozen = true;
	assert_int_equal(tph_kai_add_predicate(f.s, yes, &a), TPH_EINVAL);
	tph_free(f.s->predicate.items), tph_free(f.s->pre_predicate.items);
	tph_free(f.s->victim_invariant.items);
	f.s->predicate = keep, f.s->pre_predicate = keep_pre, f.s->victim_invariant = keep_vi;
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_node_rules),     cmocka_unit_test(test_pre_predicate),
	    cmocka_unit_test(test_queue_capacity), cmocka_unit_test(test_restricted_nodes),
	    cmocka_unit_test(test_gt_lt),          cmocka_unit_test(test_dispatch_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

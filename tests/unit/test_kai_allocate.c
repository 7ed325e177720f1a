/* Unit tests for the kai allocate action (kernel/actions/kai/allocate.c), its extension points
 * (session/kai/kai_order.c), the node ledger and statement, and the plugins it uses: priority,
 * elastic, nodeavailability, resourcetype, nominatednode, nodeplacement, proportion. Each
 * scenario is small and written here, so every assertion names the rule it checks. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai_fixture.h"
#include "tephra/tephra.h"

/* Conf with the given actions and plugins (a YAML flow list of plugin entries). */
static void open_kai(kf *f, const char *actions, const char *plugins, const char *rest)
{
	char text[8192];
	snprintf(text, sizeof text,
	         "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"%s\"\n"
	         "  tiers:\n  - plugins: %s\n%s",
	         actions, plugins, rest);
	kai_load(f, text);
}

#define Q                                                                               \
	"queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, " \
	"limit: -1}, memory: {quota: -1, limit: -1}}}]\n"

/* A gang of 3 on two 1-GPU nodes cannot start: nothing is bound (all or nothing); a gang of 2
 * can, one pod per node; the job gets last-start now. */
static void test_gang(void **state)
{
	(void)state;
	kf f;
	open_kai(
	    &f, "allocate", "[{name: nodeavailability}]",
	    Q "nodes:\n"
	      "  - {name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
	      "  - {name: n1, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
	      "podGroups:\n  - {name: big, queue: q, minMember: 3}\n"
	      "  - {name: two, queue: q, minMember: 2}\n"
	      "pods:\n"
	      "  - {name: big-0, podGroup: big, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	      "  - {name: big-1, podGroup: big, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	      "  - {name: big-2, podGroup: big, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	      "  - {name: two-0, podGroup: two, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	      "  - {name: two-1, podGroup: two, status: Pending, requests: {nvidia.com/gpu: 1}}\n");
	run_ok(&f);
	assert_int_equal(status_of(&f, "big-0"), TPH_KAI_TS_PENDING);
	assert_int_equal(status_of(&f, "two-0"), TPH_KAI_TS_BINDING);
	assert_int_equal(status_of(&f, "two-1"), TPH_KAI_TS_BINDING);
	assert_string_not_equal(node_of(&f, "two-0"), node_of(&f, "two-1"));
	const tph_kai_decision *b;
	assert_int_equal(tph_kai_session_binds(f.s, &b), 2);
	assert_int_equal(tph_kai_session_last_start(f.s)[1], tph_scenario_now(f.sc));
	assert_int_equal(tph_kai_session_last_start(f.s)[0], 0);
	close_kai(&f);
}

/* An elastic job (min 1 of 3) on room for two: the gang part, then one more pod per turn. */
static void test_elastic_growth(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[{name: elastic}]",
	         Q "nodes: [{name: n0, allocatable: {cpu: \"2\", memory: 8G}}]\n"
	           "podGroups: [{name: e, queue: q, minMember: 1}]\n"
	           "pods:\n"
	           "  - {name: e-0, podGroup: e, status: Pending, requests: {cpu: \"1\"}}\n"
	           "  - {name: e-1, podGroup: e, status: Pending, requests: {cpu: \"1\"}}\n"
	           "  - {name: e-2, podGroup: e, status: Pending, requests: {cpu: \"1\"}}\n");
	run_ok(&f);
	const tph_kai_decision *b;
	assert_int_equal(tph_kai_session_binds(f.s, &b), 2);
	assert_int_equal(status_of(&f, "e-2"), TPH_KAI_TS_PENDING);
	close_kai(&f);
}

/* A gang of 2 where one pod fits only on releasing resources: the whole job is pipelined
 * (neither pod bound), and it gets no last-start timestamp. */
static void test_pipeline_whole_job(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[{name: nodeavailability}]",
	         Q
	         "nodes:\n"
	         "  - {name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
	         "  - {name: n1, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
	         "podGroups:\n  - {name: old, queue: q}\n  - {name: g, queue: q, minMember: 2}\n"
	         "pods:\n"
	         "  - {name: old-0, podGroup: old, status: Releasing, nodeName: n1, requests: "
	         "{nvidia.com/gpu: 1}}\n"
	         "  - {name: g-0, podGroup: g, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	         "  - {name: g-1, podGroup: g, status: Pending, requests: {nvidia.com/gpu: 1}}\n");
	run_ok(&f);
	assert_int_equal(status_of(&f, "g-0"), TPH_KAI_TS_PIPELINED);
	assert_int_equal(status_of(&f, "g-1"), TPH_KAI_TS_PIPELINED);
	const tph_kai_decision *b;
	assert_int_equal(tph_kai_session_binds(f.s, &b), 0);
	assert_int_equal(tph_kai_session_pipelined(f.s, &b), 2);
	assert_int_equal(tph_kai_session_last_start(f.s)[1], 0);
	/* the ledger: n1's releasing GPU is claimed by the pipelined pod */
	assert_true(tph_kai_session_releasing(f.s)[1 * TPH_KAI_DIMS + TPH_KAI_GPU] == 0);
	close_kai(&f);
}

static const char two_jobs[] =
    Q "nodes: [{name: n0, allocatable: {cpu: \"1\", memory: 8G}}]\n"
      "podGroups:\n"
      "  - {name: low, queue: q, priority: 50, creationTimestamp: \"2025-12-31T00:00:00Z\"}\n"
      "  - {name: high, queue: q, priority: 125, creationTimestamp: \"2025-12-31T01:00:00Z\"}\n"
      "pods:\n"
      "  - {name: low-0, podGroup: low, status: Pending, requests: {cpu: \"1\"}}\n"
      "  - {name: high-0, podGroup: high, status: Pending, requests: {cpu: \"1\"}}\n";

/* JobOrder: priority decides; without a plugin the fallback (created first) does. */
static void test_job_order(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[{name: priority}]", two_jobs);
	assert_true(tph_kai_job_order(f.s, 1, 0) < 0);
	run_ok(&f);
	assert_int_equal(status_of(&f, "high-0"), TPH_KAI_TS_BINDING);
	assert_int_equal(status_of(&f, "low-0"), TPH_KAI_TS_PENDING);
	close_kai(&f);
	open_kai(&f, "allocate", "[]", two_jobs);
	assert_true(tph_kai_job_order(f.s, 0, 1) < 0);
	run_ok(&f);
	assert_int_equal(status_of(&f, "low-0"), TPH_KAI_TS_BINDING);
	close_kai(&f);
}

/* elastic's JobOrder: below its minimum before at it, at it before above it; else no opinion
 * (the fallback decides). */
static void test_elastic_order(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "", "[{name: elastic}]",
	         Q "nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G}}]\n"
	           "podGroups:\n  - {name: below, queue: q, minMember: 2}\n"
	           "  - {name: at, queue: q, minMember: 1}\n  - {name: above, queue: q, "
	           "minMember: 1}\n"
	           "pods:\n"
	           "  - {name: b-0, podGroup: below, status: Running, nodeName: n0}\n"
	           "  - {name: b-1, podGroup: below, status: Pending}\n"
	           "  - {name: at-0, podGroup: at, status: Running, nodeName: n0}\n"
	           "  - {name: at-1, podGroup: at, status: Pending}\n"
	           "  - {name: ab-0, podGroup: above, status: Running, nodeName: n0}\n"
	           "  - {name: ab-1, podGroup: above, status: Running, nodeName: n0}\n"
	           "  - {name: ab-2, podGroup: above, status: Pending}\n");
	assert_true(tph_kai_job_order(f.s, 0, 1) < 0);
	assert_true(tph_kai_job_order(f.s, 1, 0) > 0);
	assert_true(tph_kai_job_order(f.s, 1, 2) < 0);
	assert_true(tph_kai_job_order(f.s, 2, 1) > 0);
	close_kai(&f);
}

static const char three_nodes[] =
    Q "nodes:\n"
      "  - {name: c, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"4\"}}\n"
      "  - {name: b, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"4\"}}\n"
      "  - {name: a, allocatable: {cpu: \"8\", memory: 8G}}\n"
      "podGroups:\n  - {name: r, queue: q}\n  - {name: p, queue: q}\n  - {name: cpu, queue: q}\n"
      "pods:\n"
      "  - {name: r-0, podGroup: r, status: Running, nodeName: c, requests: {nvidia.com/gpu: 3}}\n"
      "  - {name: p-0, podGroup: p, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
      "  - {name: cpu-0, podGroup: cpu, status: Pending, requests: {cpu: \"1\"}}\n";

/* NodeOrder sums: nodeavailability 1000 where the task fits idle now, resourcetype 10 for a
 * CPU pod on a GPU-less node, nodeplacement binpack 9 on the fullest node. */
static void test_node_scores(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate",
	         "[{name: nodeavailability}, {name: resourcetype}, {name: nodeplacement}]",
	         three_nodes);
	uint32_t p0 = task_of(&f, "p-0"), all[3] = {0, 1, 2};
	double sc = 0;
	tph_kai_node_pre_order(f.s, p0, all, 3);
	assert_int_equal(tph_kai_node_score(f.s, p0, 0, &sc), 0);
	assert_true(sc == 1009); /* c: 1 GPU free of 4, the least free: binpack 9 */
	assert_int_equal(tph_kai_node_score(f.s, p0, 1, &sc), 0);
	assert_true(sc == 1000); /* b: the most free: 0 */
	assert_int_equal(tph_kai_node_score(f.s, p0, 2, &sc), 0);
	assert_true(sc == 0); /* a: no GPU at all */
	uint32_t c0 = task_of(&f, "cpu-0");
	tph_kai_node_pre_order(f.s, c0, all, 3);
	assert_int_equal(tph_kai_node_score(f.s, c0, 2, &sc), 0);
	assert_true(sc == 1000 + 10 + 9); /* all have 8 cpus free: equal range, 9 */
	run_ok(&f);
	assert_string_equal(node_of(&f, "p-0"), "c");
	assert_string_equal(node_of(&f, "cpu-0"), "a");
	close_kai(&f);
}

/* Spread: the free share; equal scores go to the node whose name sorts first. */
static void test_spread_and_ties(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[{name: nodeplacement, arguments: {gpu: spread}}]", three_nodes);
	run_ok(&f);
	assert_string_equal(node_of(&f, "p-0"), "b");   /* 4/4 free beats c's 1/4 */
	assert_string_equal(node_of(&f, "cpu-0"), "a"); /* binpack cpu: all equal; name order */
	close_kai(&f);
}

/* nominatednode: 10^7 outweighs every other tier. */
static void test_nominated(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[{name: nodeavailability}, {name: nominatednode}]",
	         Q "nodes:\n  - {name: a, allocatable: {cpu: \"8\", memory: 8G}}\n"
	           "  - {name: z, allocatable: {cpu: \"8\", memory: 8G}}\n"
	           "podGroups: [{name: j, queue: q}]\n"
	           "pods: [{name: j-0, podGroup: j, status: Pending, nominatedNodeName: z}]\n");
	run_ok(&f);
	assert_string_equal(node_of(&f, "j-0"), "z");
	close_kai(&f);
}

/* proportion: IsJobOverQueueCapacity refuses a job over its queue's limit (first registered
 * only); QueueOrder gives the turn to the queue under its fair share. Registration is refused
 * once the plugins have opened. */
static void test_proportion(void **state)
{
	(void)state;
	kf f;
	open_kai(
	    &f, "allocate", "[{name: proportion}]",
	    "queues:\n"
	    "  - {name: a, creationTimestamp: \"2025-01-01T00:00:00Z\", resources: {gpu: "
	    "{quota: 1, limit: 1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: "
	    "-1}}}\n"
	    "  - {name: b, creationTimestamp: \"2025-01-02T00:00:00Z\", resources: {gpu: "
	    "{quota: 1, limit: -1}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: "
	    "-1}}}\n"
	    "nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: "
	    "\"4\"}}]\n"
	    "podGroups:\n  - {name: ja, queue: a}\n  - {name: big, queue: a}\n"
	    "  - {name: jb, queue: b}\n"
	    "pods:\n"
	    "  - {name: ra-0, podGroup: ja, status: Running, nodeName: n0, requests: "
	    "{nvidia.com/gpu: 1}}\n"
	    "  - {name: big-0, podGroup: big, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	    "  - {name: jb-0, podGroup: jb, status: Pending, requests: {nvidia.com/gpu: 1}}\n");
	/* a holds its quota; b holds nothing: b first, whatever their creation order */
	assert_true(tph_kai_queue_order(f.s, 1, 0, 2, 1, NULL, NULL) < 0);
	uint32_t t = task_of(&f, "big-0");
	assert_false(tph_kai_job_schedulable(f.s, 1, &t, 1));
	assert_int_equal(tph_kai_add_job_order(f.s, NULL, NULL), TPH_EINVAL);
	run_ok(&f);
	assert_int_equal(status_of(&f, "big-0"), TPH_KAI_TS_PENDING);
	assert_int_equal(status_of(&f, "jb-0"), TPH_KAI_TS_BINDING);
	close_kai(&f);
}

/* PodSetOrder: subgrouporder puts a pod set below its minimum first, then the lower ratio of
 * allocated pods to minMember; the fallback is the name. */
static void test_pod_set_order(void **state)
{
	(void)state;
	static const char body[] =
	    Q "nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G}}]\n"
	      "podGroups:\n"
	      "  - name: j\n    queue: q\n    subGroups:\n"
	      "      - {name: a, minMember: 1}\n      - {name: b, minMember: 1}\n"
	      "      - {name: c, minMember: 2}\n"
	      "pods:\n"
	      "  - {name: a-0, podGroup: j, labels: {kai.scheduler/subgroup-name: a}, status: "
	      "Running, nodeName: n0}\n"
	      "  - {name: a-1, podGroup: j, labels: {kai.scheduler/subgroup-name: a}, status: "
	      "Running, nodeName: n0}\n"
	      "  - {name: b-0, podGroup: j, labels: {kai.scheduler/subgroup-name: b}, status: "
	      "Pending}\n"
	      "  - {name: c-0, podGroup: j, labels: {kai.scheduler/subgroup-name: c}, status: "
	      "Running, nodeName: n0}\n"
	      "  - {name: c-1, podGroup: j, labels: {kai.scheduler/subgroup-name: c}, status: "
	      "Running, nodeName: n0}\n";
	kf f;
	open_kai(&f, "", "[{name: subgrouporder}]", body);
	/* sub-groups 0 a (2/1), 1 b (0/1), 2 c (2/2) */
	assert_true(tph_kai_pod_set_order(f.s, 1, 0) < 0);
	assert_true(tph_kai_pod_set_order(f.s, 2, 0) < 0);
	close_kai(&f);
	open_kai(&f, "", "[]", body);
	assert_true(tph_kai_pod_set_order(f.s, 0, 1) < 0);
	close_kai(&f);
}

/* A discarded statement undoes the plugins' accounting too (event handlers with sign -1): the
 * gang of three places two pods, fails the third and is rolled back; then the queue, limited
 * to 2 GPUs, still takes the 2-GPU job. Without the undo it would count 2 GPUs in use. */
static void test_rollback_events(void **state)
{
	(void)state;
	kf f;
	open_kai(
	    &f, "allocate", "[{name: proportion}]",
	    "queues: [{name: q, resources: {gpu: {quota: -1, limit: 2}, cpu: {quota: -1, "
	    "limit: -1}, memory: {quota: -1, limit: -1}}}]\n"
	    "nodes:\n"
	    "  - {name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
	    "  - {name: n1, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
	    "podGroups:\n"
	    "  - {name: a3, queue: q, minMember: 3, creationTimestamp: "
	    "\"2025-01-01T00:00:00Z\"}\n"
	    "  - {name: b2, queue: q, minMember: 2, creationTimestamp: "
	    "\"2025-01-02T00:00:00Z\"}\n"
	    "pods:\n"
	    "  - {name: a-0, podGroup: a3, status: Pending, requests: {nvidia.com/gpu: 1, cpu: "
	    "\"1\"}}\n"
	    "  - {name: a-1, podGroup: a3, status: Pending, requests: {cpu: \"1\"}}\n"
	    "  - {name: a-2, podGroup: a3, status: Pending, requests: {nvidia.com/gpu: 1, cpu: "
	    "\"9\"}}\n"
	    "  - {name: b-0, podGroup: b2, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	    "  - {name: b-1, podGroup: b2, status: Pending, requests: {nvidia.com/gpu: 1}}\n");
	run_ok(&f);
	assert_int_equal(status_of(&f, "a-0"), TPH_KAI_TS_PENDING);
	assert_int_equal(status_of(&f, "b-0"), TPH_KAI_TS_BINDING);
	assert_int_equal(status_of(&f, "b-1"), TPH_KAI_TS_BINDING);
	close_kai(&f);
}

/* GetTasksToAllocate: a gang below its minimum asks for the missing pods; a satisfied one for
 * one more. */
static void test_tasks_to_allocate(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "", "[]",
	         Q "nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G}}]\n"
	           "podGroups:\n  - {name: g, queue: q, minMember: 3}\n"
	           "  - {name: e, queue: q, minMember: 1}\n"
	           "pods:\n"
	           "  - {name: g-0, podGroup: g, status: Running, nodeName: n0}\n"
	           "  - {name: g-1, podGroup: g, status: Pending}\n"
	           "  - {name: g-2, podGroup: g, status: Pending}\n"
	           "  - {name: g-3, podGroup: g, status: Pending}\n"
	           "  - {name: e-0, podGroup: e, status: Running, nodeName: n0}\n"
	           "  - {name: e-1, podGroup: e, status: Pending}\n"
	           "  - {name: e-2, podGroup: e, status: Pending}\n");
	uint32_t out[8];
	assert_int_equal(tph_kai_tasks_to_allocate(f.s, 0, out), 2);
	assert_int_equal(out[0], task_of(&f, "g-1"));
	assert_int_equal(out[1], task_of(&f, "g-2"));
	assert_int_equal(tph_kai_tasks_to_allocate(f.s, 1, out), 1);
	assert_int_equal(out[0], task_of(&f, "e-1"));
	close_kai(&f);
}

/* TaskOrder: taskorder puts the higher task-priority label first; without it, the fallback
 * (created first, then name) decides, so the gang of one takes t-a. */
static void test_task_order(void **state)
{
	(void)state;
	static const char body[] =
	    Q "nodes: [{name: n0, allocatable: {cpu: \"1\", memory: 8G}}]\n"
	      "podGroups: [{name: t, queue: q, minMember: 1}]\n"
	      "pods:\n"
	      "  - {name: t-a, podGroup: t, status: Pending, requests: {cpu: \"1\"}}\n"
	      "  - {name: t-b, podGroup: t, status: Pending, requests: {cpu: \"1\"}, labels: "
	      "{kai.scheduler/task-priority: \"10\"}}\n";
	kf f;
	open_kai(&f, "allocate", "[{name: taskorder}]", body);
	run_ok(&f);
	assert_int_equal(status_of(&f, "t-b"), TPH_KAI_TS_BINDING);
	assert_int_equal(status_of(&f, "t-a"), TPH_KAI_TS_PENDING);
	close_kai(&f);
	open_kai(&f, "allocate", "[]", body);
	run_ok(&f);
	assert_int_equal(status_of(&f, "t-a"), TPH_KAI_TS_BINDING);
	close_kai(&f);
}

/* Nodes, podgroups and pods of the shared-GPU tests. */
#define GPU_NODE(name, gpus, mem)                                                            \
	"  - {name: " name ", allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"" gpus \
	"\"}, labels: {nvidia.com/gpu.count: \"" gpus "\", nvidia.com/gpu.memory: \"" mem "\"}}\n"
#define UNLABELLED_NODE(name, gpus)                                                          \
	"  - {name: " name ", allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"" gpus \
	"\"}}\n"
#define PG(name) "  - {name: " name ", queue: q}\n"
#define PENDING(job, ann) \
	"  - {name: " job "-0, podGroup: " job ", status: Pending, annotations: {" ann "}}\n"
#define PENDING_GPU(job)                                                                        \
	"  - {name: " job "-0, podGroup: " job ", status: Pending, requests: {nvidia.com/gpu: " \
	"1}}\n"
#define HOLDING(pod, job, status, node, group, frac)                                 \
	"  - {name: " pod ", podGroup: " job ", status: " status ", nodeName: " node \
	", gpuGroups: [" group "], annotations: {gpu-fraction: \"" frac "\"}}\n"

/* Fractional pods share one device while their fractions sum to at most 1; the shared device
 * leaves the node's idle whole GPUs; a fraction that fits no shared device takes a whole one. */
static void test_gpu_sharing(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[{name: nodeavailability}]",
	         Q "nodes:\n" GPU_NODE("n0", "2", "100") "podGroups:\n" PG("a") PG("b") PG("c")
	             PG("d") "pods:\n" PENDING("a", "gpu-fraction: \"0.5\"")
	                 PENDING("b", "gpu-fraction: \"0.5\"") PENDING("c", "gpu-fraction: \"0.6\"")
	                     PENDING_GPU("d"));
	run_ok(&f);
	assert_int_equal(status_of(&f, "a-0"), TPH_KAI_TS_BINDING);
	assert_int_equal(status_of(&f, "b-0"), TPH_KAI_TS_BINDING);
	assert_int_equal(status_of(&f, "c-0"), TPH_KAI_TS_BINDING);
	/* a and b share one device, c holds the other: no whole GPU is left for d. */
	assert_int_equal(status_of(&f, "d-0"), TPH_KAI_TS_PENDING);
	assert_true(tph_kai_session_idle(f.s)[TPH_KAI_GPU] == 0);
	close_kai(&f);
}

/* Running pods sit on the device their gpuGroups names: equal names share one device,
 * distinct names hold two. */
static void test_gpu_groups(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[{name: nodeavailability}]",
	         Q "nodes:\n" GPU_NODE("n0", "2", "100")
	             GPU_NODE("n1", "2", "100") "podGroups:\n" PG("r") PG("p")
	                 PG("w") "pods:\n" HOLDING("r-0", "r", "Running", "n0", "g", "0.25")
	                     HOLDING("r-1", "r", "Running", "n0", "g", "0.25")
	                         HOLDING("r-2", "r", "Running", "n1", "x", "0.25")
	                             HOLDING("r-3", "r", "Running", "n1", "y", "0.25")
	                                 PENDING_GPU("p") PENDING_GPU("w"));
	const double *idle = tph_kai_session_idle(f.s);
	assert_true(idle[TPH_KAI_GPU] == 1);
	assert_true(idle[TPH_KAI_DIMS + TPH_KAI_GPU] == 0);
	run_ok(&f);
	/* Only n0 has a whole GPU left: one whole-GPU job runs there, the other waits. */
	assert_string_equal(node_of(&f, "p-0"), "n0");
	assert_int_equal(status_of(&f, "w-0"), TPH_KAI_TS_PENDING);
	close_kai(&f);
}

/* gpu-memory becomes a fraction of the node's memory per device; a node without the memory
 * label serves no memory request. */
static void test_gpu_memory(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[{name: nodeavailability}]",
	         Q "nodes:\n" GPU_NODE("n0", "1",
	                               "1000") UNLABELLED_NODE("n1", "4") "podGroups:\n" PG("a")
	             PG("b") PG("c") "pods:\n" PENDING("a", "gpu-memory: \"400\"")
	                 PENDING("b", "gpu-memory: \"600\"") PENDING("c", "gpu-memory: \"100\""));
	run_ok(&f);
	assert_string_equal(node_of(&f, "a-0"), "n0");
	assert_string_equal(node_of(&f, "b-0"), "n0");
	assert_int_equal(status_of(&f, "c-0"), TPH_KAI_TS_PENDING);
	close_kai(&f);
}

/* KAI takes the first GPU the pod fits once Releasing pods go: a shared device half releasing
 * pipelines the pod even though the node's other GPU is idle. */
static void test_gpu_releasing(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[{name: nodeavailability}]",
	         Q "nodes:\n" GPU_NODE("n0", "2", "100") "podGroups:\n" PG("r") PG("x")
	             PG("p") "pods:\n" HOLDING("r-0", "r", "Running", "n0", "g", "0.5")
	                 HOLDING("x-0", "x", "Releasing", "n0", "g", "0.5")
	                     PENDING("p", "gpu-fraction: \"0.5\""));
	run_ok(&f);
	assert_int_equal(status_of(&f, "p-0"), TPH_KAI_TS_PIPELINED);
	assert_true(tph_kai_session_idle(f.s)[TPH_KAI_GPU] == 1);
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gpu_sharing),
	    cmocka_unit_test(test_gpu_groups),
	    cmocka_unit_test(test_gpu_memory),
	    cmocka_unit_test(test_gpu_releasing),
	    cmocka_unit_test(test_gang),
	    cmocka_unit_test(test_elastic_growth),
	    cmocka_unit_test(test_pipeline_whole_job),
	    cmocka_unit_test(test_job_order),
	    cmocka_unit_test(test_elastic_order),
	    cmocka_unit_test(test_node_scores),
	    cmocka_unit_test(test_spread_and_ties),
	    cmocka_unit_test(test_nominated),
	    cmocka_unit_test(test_proportion),
	    cmocka_unit_test(test_tasks_to_allocate),
	    cmocka_unit_test(test_task_order),
	    cmocka_unit_test(test_rollback_events),
	    cmocka_unit_test(test_pod_set_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for KAI's shared GPUs (session/kai/kai_gpu.c, kai_gpu_pick.c): the GpuOrder point
 * (summed, an error drops the candidate), the plugins gpupack, gpuspread and gpusharingorder,
 * multi-device fractions, KAI's ledger rules for a Pipelined shared pod, and the TaskOrder
 * plugins kubeflow and ray. Each scenario is written here, small, one rule per test. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai_fixture.h"
#include "session/kai/kai_int.h"
#include "tephra/tephra.h"

#define HEAD                                                                            \
	"flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\n"                                 \
	"queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, " \
	"limit: -1}, memory: {quota: -1, limit: -1}}}]\n"
#define NODE(name, gpus)                                                                     \
	"  - {name: " name ", allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"" gpus \
	"\"}, labels: {nvidia.com/gpu.count: \"" gpus "\", nvidia.com/gpu.memory: \"100\"}}\n"
#define PG(name, created) \
	"  - {name: " name ", queue: q, creationTimestamp: \"2025-12-31T0" created ":00:00Z\"}\n"
#define SHARED(pod, job, status, node, groups, ann)                                  \
	"  - {name: " pod ", podGroup: " job ", status: " status ", nodeName: " node \
	", gpuGroups: [" groups "], annotations: {" ann "}}\n"
#define PENDING(pod, job, ann) \
	"  - {name: " pod ", podGroup: " job ", status: Pending, annotations: {" ann "}}\n"

/* A scenario with the given plugins (a YAML flow list) and cluster; the registry is left open
 * so a test can add its own callbacks, as a plugin would at open. */
static void open_kai(kf *f, const char *plugins, const char *cluster)
{
	char text[8192];
	snprintf(text, sizeof text,
	         HEAD "conf: |\n  actions: \"allocate\"\n  tiers:\n  - plugins: %s\n%s", plugins,
	         cluster);
	kai_load(f, text);
	f->s->frozen = false;
}

/* Freeze the registry (as the session does after open) and run. */
static void run(kf *f)
{
	f->s->frozen = true;
	run_ok(f);
}

/* The gpuGroups names of a placed task, comma-separated; "-" for a device first taken here. */
static const char *groups_of(const kf *f, const char *task, char *buf, size_t size)
{
	const int32_t *devs;
	uint32_t n = tph_kai_task_devices(f->s, task_of(f, task), &devs);
	buf[0] = 0;
	for (uint32_t i = 0; i < n; i++) {
		const char *name = tph_kai_device_name(f->s, (uint32_t)devs[i]);
		size_t at = strlen(buf);
		snprintf(buf + at, size - at, "%s%s", i ? "," : "", name ? name : "-");
	}
	return buf;
}

static double idle_gpus(const kf *f, uint32_t node)
{
	return tph_kai_session_idle(f->s)[(size_t)node * TPH_KAI_DIMS + TPH_KAI_GPU];
}

static double releasing_gpus(const kf *f, uint32_t node)
{
	return tph_kai_session_releasing(f->s)[(size_t)node * TPH_KAI_DIMS + TPH_KAI_GPU];
}

/* One node of 2 GPUs, a pod holding a quarter of device "g", a pending half. */
static const char quarter_used[] = "nodes:\n" NODE("n0", "2") "podGroups:\n" PG("r", "0")
    PG("p", "1") "pods:\n" SHARED("r-0", "r", "Running", "n0", "g", "gpu-fraction: \"0.25\"")
        PENDING("p-0", "p", "gpu-fraction: \"0.5\"");

/* gpupack: the used device (portion 0.25) beats a whole GPU (0): the pod joins "g" and the
 * node keeps its other GPU idle. */
static void test_gpupack(void **state)
{
	(void)state;
	kf f;
	char buf[64];
	open_kai(&f, "[{name: gpupack}]", quarter_used);
	double sc;
	assert_int_equal(tph_kai_gpu_order(f.s, task_of(&f, "p-0"), 0, 0, &sc), 0);
	assert_true(sc == 0.25);
	assert_int_equal(tph_kai_gpu_order(f.s, task_of(&f, "p-0"), 0, TPH_KAI_WHOLE_GPU, &sc), 0);
	assert_true(sc == 0);
	run(&f);
	assert_int_equal(status_of(&f, "p-0"), TPH_KAI_TS_BINDING);
	assert_string_equal(groups_of(&f, "p-0", buf, sizeof buf), "g");
	assert_true(idle_gpus(&f, 0) == 1);
	close_kai(&f);
}

/* gpuspread: a whole GPU (1) beats the used device (0.75): the pod opens a new device. */
static void test_gpuspread(void **state)
{
	(void)state;
	kf f;
	char buf[64];
	open_kai(&f, "[{name: gpuspread}]", quarter_used);
	double sc;
	assert_int_equal(tph_kai_gpu_order(f.s, task_of(&f, "p-0"), 0, 0, &sc), 0);
	assert_true(sc == 0.75);
	run(&f);
	assert_int_equal(status_of(&f, "p-0"), TPH_KAI_TS_BINDING);
	assert_string_equal(groups_of(&f, "p-0", buf, sizeof buf), "-");
	assert_true(idle_gpus(&f, 0) == 0);
	close_kai(&f);
}

static int refuse_named(void *state, const tph_kai_session *s, uint32_t t, uint32_t node,
                        int32_t dev, double *score)
{
	(void)state, (void)t, (void)node;
	*score = 0;
	return dev >= 0 && tph_kai_device_name(s, (uint32_t)dev) ? -1 : 0;
}

static int add_two(void *state, const tph_kai_session *s, uint32_t t, uint32_t node, int32_t dev,
                   double *score)
{
	(void)state, (void)s, (void)t, (void)node, (void)dev;
	*score = 2;
	return 0;
}

/* GpuOrder scores are summed over plugins; an error from one drops that candidate only. */
static void test_gpu_order_rules(void **state)
{
	(void)state;
	kf f;
	char buf[64];
	open_kai(&f, "[{name: gpupack}]", quarter_used);
	assert_int_equal(tph_kai_add_gpu_order(f.s, add_two, NULL), 0);
	double sc;
	assert_int_equal(tph_kai_gpu_order(f.s, task_of(&f, "p-0"), 0, 0, &sc), 0);
	assert_true(sc == 2.25);
	assert_int_equal(tph_kai_add_gpu_order(f.s, refuse_named, NULL), 0);
	assert_int_equal(tph_kai_gpu_order(f.s, task_of(&f, "p-0"), 0, 0, &sc), -1);
	assert_int_equal(tph_kai_gpu_order(f.s, task_of(&f, "p-0"), 0, TPH_KAI_WHOLE_GPU, &sc), 0);
	assert_true(sc == 2);
	run(&f);
	/* "g" dropped: the pod takes a whole GPU although gpupack prefers "g". */
	assert_string_equal(groups_of(&f, "p-0", buf, sizeof buf), "-");
	close_kai(&f);
}

/* gpusharingorder: 10^4 on a node with a shared device the pod fits, 0 elsewhere; so the pod
 * goes to n1 although n0 comes first by name. A pod asking more than the device has left
 * scores 0 there. */
static void test_gpusharingorder(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "[{name: gpusharingorder}]",
	         "nodes:\n" NODE("n0", "2") NODE("n1", "2") "podGroups:\n" PG("r", "0") PG("p", "1")
	             PG("b", "2") "pods:\n" SHARED("r-0", "r", "Running", "n1", "g",
	                                           "gpu-fraction: \"0.5\"")
	                 PENDING("p-0", "p", "gpu-fraction: \"0.5\"")
	                     PENDING("b-0", "b", "gpu-fraction: \"0.75\""));
	double sc;
	assert_int_equal(tph_kai_node_score(f.s, task_of(&f, "p-0"), 1, &sc), 0);
	assert_true(sc == 1e4);
	assert_int_equal(tph_kai_node_score(f.s, task_of(&f, "p-0"), 0, &sc), 0);
	assert_true(sc == 0);
	assert_int_equal(tph_kai_node_score(f.s, task_of(&f, "b-0"), 1, &sc), 0);
	assert_true(sc == 0);
	run(&f);
	assert_int_equal(tph_kai_session_node(f.s)[task_of(&f, "p-0")], 1);
	close_kai(&f);
}

/* KAI's IsTaskAllocatable (nodeavailability's 1000) for a shared pod: no idle whole GPU, but a
 * used device with room counts; a pod bigger than that room does not fit now. */
static void test_availability_shared(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "[{name: nodeavailability}]",
	         "nodes:\n" NODE("n0", "1") "podGroups:\n" PG("r", "0") PG("p", "1")
	             PG("b", "2") "pods:\n" SHARED("r-0", "r", "Running", "n0", "g",
	                                           "gpu-fraction: \"0.5\"")
	                 PENDING("p-0", "p", "gpu-fraction: \"0.5\"")
	                     PENDING("b-0", "b", "gpu-fraction: \"0.75\""));
	assert_true(idle_gpus(&f, 0) == 0);
	double sc;
	assert_true(tph_kai_task_allocatable(f.s, task_of(&f, "p-0"), 0));
	assert_int_equal(tph_kai_node_score(f.s, task_of(&f, "p-0"), 0, &sc), 0);
	assert_true(sc == 1000);
	assert_false(tph_kai_task_allocatable(f.s, task_of(&f, "b-0"), 0));
	close_kai(&f);
}

/* A fraction on two devices takes two distinct devices (the shared one it fits, gpupack first,
 * then a whole GPU) and leaves the node's other GPUs idle; a running one sits on the two
 * devices its gpuGroups name. */
static void test_multi_device(void **state)
{
	(void)state;
	kf f;
	char buf[64];
	open_kai(&f, "[{name: gpupack}]",
	         "nodes:\n" NODE("n0", "4") NODE("n1", "4") "podGroups:\n" PG("r", "0") PG("m", "1")
	             PG("w", "2") "pods:\n" SHARED("r-0", "r", "Running", "n0", "g",
	                                           "gpu-fraction: \"0.5\"")
	                 SHARED("w-0", "w", "Running", "n1", "\"a\", \"b\"",
	                        "gpu-fraction: \"0.5\", gpu-fraction-num-devices: \"2\"")
	                     PENDING("m-0", "m",
	                             "gpu-fraction: \"0.5\", gpu-fraction-num-devices: \"2\""));
	assert_true(idle_gpus(&f, 1) == 2);
	assert_string_equal(groups_of(&f, "w-0", buf, sizeof buf), "a,b");
	run(&f);
	assert_int_equal(status_of(&f, "m-0"), TPH_KAI_TS_BINDING);
	assert_int_equal(tph_kai_session_node(f.s)[task_of(&f, "m-0")], 0);
	assert_string_equal(groups_of(&f, "m-0", buf, sizeof buf), "g,-");
	assert_true(idle_gpus(&f, 0) == 2);
	close_kai(&f);
}

/* KAI's ledger for a Pipelined shared pod: it claims a releasing GPU (releasing -1) and leaves
 * its device without an allocated share, so a pod that joins that device is pipelined too
 * (fixture 023), here even with a whole GPU idle on the node. */
static void test_pipelined_device(void **state)
{
	(void)state;
	kf f;
	char buf[64];
	open_kai(&f, "[{name: gpupack}]",
	         "nodes:\n" NODE("n0", "2") "podGroups:\n" PG("r", "0")
	             PG("p", "1") "pods:\n" SHARED("r-0", "r", "Pipelined", "n0", "\"1\"",
	                                           "gpu-fraction: \"0.5\"")
	                 PENDING("p-0", "p", "gpu-fraction: \"0.5\""));
	assert_true(idle_gpus(&f, 0) == 2);
	assert_true(releasing_gpus(&f, 0) == -1);
	run(&f);
	assert_int_equal(status_of(&f, "p-0"), TPH_KAI_TS_PIPELINED);
	assert_string_equal(groups_of(&f, "p-0", buf, sizeof buf), "1");
	close_kai(&f);
}

/* A device whose only pod is Releasing counts once as a releasing GPU and not idle; a pod that
 * wants it whole waits for it (pipelined), and its Releasing share keeps the count. */
static void test_releasing_device(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "[{name: gpupack}]",
	         "nodes:\n" NODE("n0", "1") "podGroups:\n" PG("r", "0")
	             PG("p", "1") "pods:\n" SHARED("r-0", "r", "Releasing", "n0", "g",
	                                           "gpu-fraction: \"0.5\"")
	                 PENDING("p-0", "p", "gpu-fraction: \"0.75\""));
	assert_true(idle_gpus(&f, 0) == 0);
	assert_true(releasing_gpus(&f, 0) == 1);
	run(&f);
	assert_int_equal(status_of(&f, "p-0"), TPH_KAI_TS_PIPELINED);
	close_kai(&f);
}

/* A gang whose second pod can only pipeline is pipelined whole: the first pod, allocated a
 * device, keeps that device as it turns Pipelined. */
static void test_pipelined_gang_keeps_device(void **state)
{
	(void)state;
	kf f;
	open_kai(
	    &f, "[{name: gpupack}]",
	    "nodes:\n" NODE("n0", "2") "podGroups:\n" PG(
	        "r", "0") "  - {name: j, queue: q, minMember: 2}\npods:\n"
	                  "  - {name: r-0, podGroup: r, status: Releasing, nodeName: n0, requests: "
	                  "{nvidia.com/gpu: 1}}\n" PENDING("j-0", "j", "gpu-fraction: \"0.75\"")
	                      PENDING("j-1", "j", "gpu-fraction: \"0.75\""));
	run(&f);
	assert_int_equal(status_of(&f, "j-0"), TPH_KAI_TS_PIPELINED);
	assert_int_equal(status_of(&f, "j-1"), TPH_KAI_TS_PIPELINED);
	const int32_t *d0, *d1;
	assert_int_equal(tph_kai_task_devices(f.s, task_of(&f, "j-0"), &d0), 1);
	assert_int_equal(tph_kai_task_devices(f.s, task_of(&f, "j-1"), &d1), 1);
	assert_int_not_equal(d0[0], d1[0]);
	close_kai(&f);
}

/* A device count no node can give leaves the pod pending (and costs no memory per device). */
static void test_too_many_devices(void **state)
{
	(void)state;
	kf f;
	open_kai(
	    &f, "[{name: gpupack}]",
	    "nodes:\n" NODE("n0", "2") "podGroups:\n" PG("p", "0") "pods:\n" PENDING(
	        "p-0", "p", "gpu-fraction: \"0.5\", gpu-fraction-num-devices: \"2000000000\""));
	run(&f);
	assert_int_equal(status_of(&f, "p-0"), TPH_KAI_TS_PENDING);
	assert_true(idle_gpus(&f, 0) == 2);
	close_kai(&f);
}

#define ROLE_PODS(key, leader)                                                                 \
	"nodes:\n" NODE("n0",                                                                  \
	                "1") "podGroups: [{name: j, queue: q, minMember: 1}]\npods:\n"         \
	                     "  - {name: a, podGroup: j, status: Pending, creationTimestamp: " \
	                     "\"2025-01-01T00:00:00Z\", labels: {" key ": worker}}\n"          \
	                     "  - {name: b, podGroup: j, status: Pending, creationTimestamp: " \
	                     "\"2025-01-02T00:00:00Z\"}\n"                                     \
	                     "  - {name: c, podGroup: j, status: Pending, creationTimestamp: " \
	                     "\"2025-01-03T00:00:00Z\", labels: {" key ": " leader "}}\n"

/* kubeflow and ray: a leader-role pod before the others, who keep creation order; the other
 * plugin's label means nothing to it. */
static void check_leader(const char *plugin, const char *cluster, bool leads)
{
	kf f;
	open_kai(&f, plugin, cluster);
	uint32_t a = task_of(&f, "a"), b = task_of(&f, "b"), c = task_of(&f, "c");
	assert_int_equal(tph_kai_task_order(f.s, c, a) < 0, leads);
	assert_int_equal(tph_kai_task_order(f.s, a, c) > 0, leads);
	assert_true(tph_kai_task_order(f.s, a, b) < 0);
	close_kai(&f);
}

static void test_kubeflow_ray(void **state)
{
	(void)state;
	check_leader("[{name: kubeflow}]", ROLE_PODS("training.kubeflow.org/job-role", "master"),
	             true);
	check_leader("[{name: kubeflow}]", ROLE_PODS("training.kubeflow.org/job-role", "launcher"),
	             true);
	check_leader("[{name: kubeflow}]", ROLE_PODS("ray.io/node-type", "head"), false);
	check_leader("[{name: ray}]", ROLE_PODS("ray.io/node-type", "head"), true);
	check_leader("[{name: ray}]", ROLE_PODS("ray.io/node-type", "master"), false);
	check_leader("[{name: priority}]", ROLE_PODS("ray.io/node-type", "head"), false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gpupack),
	    cmocka_unit_test(test_gpuspread),
	    cmocka_unit_test(test_gpu_order_rules),
	    cmocka_unit_test(test_gpusharingorder),
	    cmocka_unit_test(test_multi_device),
	    cmocka_unit_test(test_pipelined_device),
	    cmocka_unit_test(test_releasing_device),
	    cmocka_unit_test(test_kubeflow_ray),
	    cmocka_unit_test(test_pipelined_gang_keeps_device),
	    cmocka_unit_test(test_too_many_devices),
	    cmocka_unit_test(test_availability_shared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

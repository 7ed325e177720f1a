/* Unit tests for MIG instances counted as GPUs (cache/kai_snap_mig.c): a profile counts as the
 * g of nvidia.com/mig-<g>g.<m>gb (KAI's ExtractGpuAndMemoryFromMigResourceName), per node and
 * per pod; proportion's totals and requests and the solver's free GPUs add them, the node
 * ledger's GPU column does not. Legacy MIG pods (a nvidia.com/mig-* annotation) replace their
 * GPU request by the annotation's instances and mark the node they hold. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai/solver.h"
#include "kai_fixture.h"

/* 4 x 1g and 1 x 3g on n0 (7 GPUs' worth, no whole GPU); pods hold 1g, 3g (Releasing), and ask
 * for 2 x 1g and one profile of another form, which counts as no GPU. */
static const char scenario[] =
    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"\"\n"
    "  tiers:\n  - plugins: [{name: proportion}]\n"
    "queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, "
    "limit: -1}, memory: {quota: -1, limit: -1}}}]\n"
    "nodes:\n"
    "  - name: n0\n"
    "    allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"0\", nvidia.com/mig-1g.10gb: "
    "\"4\", nvidia.com/mig-3g.40gb: \"1\"}\n"
    "    labels: {node-role.kubernetes.io/mig-enabled: \"true\", nvidia.com/mig.strategy: "
    "mixed}\n"
    "podGroups: [{name: j, queue: q, minMember: 0}]\n"
    "pods:\n"
    "  - {name: run, podGroup: j, status: Running, nodeName: n0, requests: "
    "{nvidia.com/mig-1g.10gb: 1}}\n"
    "  - {name: rel, podGroup: j, status: Releasing, nodeName: n0, requests: "
    "{nvidia.com/mig-3g.40gb: 1}}\n"
    "  - {name: two, podGroup: j, status: Pending, requests: {nvidia.com/mig-1g.10gb: 2}}\n"
    "  - {name: odd, podGroup: j, status: Pending, requests: {nvidia.com/mig-1c.3g.20gb: 1}}\n";

static uint32_t profile_index(const tph_kai_nodes *nd, const char *name)
{
	for (uint32_t p = 0; p < nd->n_mig; p++)
		if (strcmp(nd->mig_names[p], name) == 0)
			return p;
	fail_msg("no profile %s", name);
	return 0;
}

static double profile(const tph_kai_nodes *nd, const char *name)
{
	return nd->mig_profile_gpus[profile_index(nd, name)];
}

static void test_gpus_of_profiles(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, scenario);
	const tph_kai_view *v = tph_kai_session_view(f.s);
	assert_int_equal(v->nodes.n_mig, 3);
	assert_true(profile(&v->nodes, "nvidia.com/mig-1g.10gb") == 1);
	assert_true(profile(&v->nodes, "nvidia.com/mig-3g.40gb") == 3);
	assert_true(profile(&v->nodes, "nvidia.com/mig-1c.3g.20gb") == 0);
	assert_true(v->nodes.mig_gpus[0] == 7);
	assert_true(v->tasks.mig_gpus[task_of(&f, "run")] == 1);
	assert_true(v->tasks.mig_gpus[task_of(&f, "rel")] == 3);
	assert_true(v->tasks.mig_gpus[task_of(&f, "two")] == 2);
	assert_true(v->tasks.mig_gpus[task_of(&f, "odd")] == 0);
	close_kai(&f);
}

/* The queue asks for 1 + 2 GPUs (the Releasing pod is not allocated) of the 7 the node's MIG
 * instances count as: its fair share is 3 GPUs, where counting no MIG GPU gives 0. */
static void test_fair_share_counts_mig(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, scenario);
	double got[TPH_KAI_DIMS];
	assert_true(tph_kai_fair_share(f.s, 0, got));
	assert_true(got[TPH_KAI_GPU] == 3);
	close_kai(&f);
}

/* Idle 3 x 1g and releasing 1 x 3g: 6 GPUs free for the solver; the ledger's GPU column,
 * which fits whole GPUs, stays 0. */
static void test_free_gpus_count_mig(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, scenario);
	assert_true(tph_kai_free_gpus(f.s, 0) == 6);
	assert_true(tph_kai_session_idle(f.s)[TPH_KAI_GPU] == 0);
	assert_true(tph_kai_session_releasing(f.s)[TPH_KAI_GPU] == 0);
	close_kai(&f);
}

/* Each profile's <m> GB, 0 for a name of another form. */
static void test_memory_of_profiles(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, scenario);
	const tph_kai_nodes *nd = &tph_kai_session_view(f.s)->nodes;
	assert_true(nd->mig_profile_gb[profile_index(nd, "nvidia.com/mig-1g.10gb")] == 10);
	assert_true(nd->mig_profile_gb[profile_index(nd, "nvidia.com/mig-3g.40gb")] == 40);
	assert_true(nd->mig_profile_gb[profile_index(nd, "nvidia.com/mig-1c.3g.20gb")] == 0);
	close_kai(&f);
}

/* Legacy pods: the annotation's instances replace whole GPUs and a fraction (KAI's
 * NewGpuResourceRequirementWithMig) but not the containers' MIG requests in the ledger's
 * vector; the GPU quota counts the annotation only. n0 is marked by the Running legacy pod,
 * n1 by nothing (its legacy pod is Pending, its other pod is no legacy one). */
static const char legacy[] =
    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"\"\n"
    "  tiers:\n  - plugins: [{name: proportion}]\n"
    "queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}}}]\n"
    "nodes:\n"
    "  - {name: n0, allocatable: {nvidia.com/gpu: \"2\", nvidia.com/mig-2g.20gb: \"2\"}}\n"
    "  - {name: n1, allocatable: {nvidia.com/mig-1g.10gb: \"4\"}}\n"
    "podGroups: [{name: j, queue: q, minMember: 0}]\n"
    "pods:\n"
    "  - {name: run, podGroup: j, status: Running, nodeName: n0, requests: {nvidia.com/gpu: 1, "
    "nvidia.com/mig-1g.10gb: 1}, annotations: {nvidia.com/mig-2g.20gb: \"1\", gpu-fraction: "
    "\"0.5\"}}\n"
    "  - {name: wait, podGroup: j, status: Pending, nodeName: n1, annotations: "
    "{nvidia.com/mig-3g.40gb: \"0\"}}\n"
    "  - {name: plain, podGroup: j, status: Running, nodeName: n1, requests: "
    "{nvidia.com/mig-1g.10gb: 1}}\n";

static int64_t instances(const tph_kai_view *v, uint32_t t, const char *name)
{
	return v->tasks.mig_request[(size_t)t * v->nodes.n_mig + profile_index(&v->nodes, name)];
}

static void test_legacy_pods(void **state)
{
	(void)state;
	kf f;
	kai_load(&f, legacy);
	const tph_kai_view *v = tph_kai_session_view(f.s);
	uint32_t run = task_of(&f, "run"), wait = task_of(&f, "wait"), plain = task_of(&f, "plain");
	assert_true(v->tasks.legacy_mig[run] && v->tasks.legacy_mig[wait]);
	assert_false(v->tasks.legacy_mig[plain]);
	assert_true(v->tasks.mig[run] && v->tasks.mig[wait]);
	assert_true(v->tasks.gpus[run] == 0 && v->tasks.gpu_fraction[run] == 0);
	assert_int_equal(instances(v, run, "nvidia.com/mig-2g.20gb"), 1);
	assert_int_equal(instances(v, run, "nvidia.com/mig-1g.10gb"), 1);
	assert_int_equal(instances(v, wait, "nvidia.com/mig-3g.40gb"), 0);
	assert_true(v->tasks.mig_gpus[run] == 2);
	assert_true(v->tasks.mig_gpus[wait] == 0);
	assert_true(v->nodes.legacy_mig[0]);
	assert_false(v->nodes.legacy_mig[1]);
	close_kai(&f);
}

/* A host's legacy request must name a MIG resource with a count of 0 or more. */
static void test_host_legacy_checked(void **state)
{
	(void)state;
	tph_pod_desc pod = TPH_POD_DESC_INIT;
	tph_kai_pod_desc k = TPH_KAI_POD_DESC_INIT;
	tph_kai_cluster_desc c = TPH_KAI_CLUSTER_DESC_INIT;
	pod.name = "p";
	c.pods = &pod, c.kai_pods = &k, c.n_pods = 1;
	const char *names[] = {"nvidia.com/gpu", "nvidia.com/mig-1g.10gb"};
	const int64_t counts[] = {1, -1};
	for (int i = 0; i < 2; i++) {
		tph_diag d = {0};
		tph_kai_snapshot *snap = NULL;
		k.legacy_mig = names[i], k.legacy_mig_count = counts[i];
		assert_int_equal(tph_kai_snapshot_build(&c, 0, &snap, &d), TPH_EINVAL);
		assert_non_null(strstr(d.msg, "pod /p: legacy MIG request"));
		assert_null(snap);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gpus_of_profiles),
	    cmocka_unit_test(test_fair_share_counts_mig),
	    cmocka_unit_test(test_free_gpus_count_mig),
	    cmocka_unit_test(test_memory_of_profiles),
	    cmocka_unit_test(test_legacy_pods),
	    cmocka_unit_test(test_host_legacy_checked),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

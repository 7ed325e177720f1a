/* Unit tests for MIG instances counted as GPUs (cache/kai_snap_mig.c): a profile counts as the
 * g of nvidia.com/mig-<g>g.<m>gb (KAI's ExtractGpuAndMemoryFromMigResourceName), per node and
 * per pod; proportion's totals and requests and the solver's free GPUs add them, the node
 * ledger's GPU column does not. */
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

static double profile(const tph_kai_nodes *nd, const char *name)
{
	for (uint32_t p = 0; p < nd->n_mig; p++)
		if (strcmp(nd->mig_names[p], name) == 0)
			return nd->mig_profile_gpus[p];
	fail_msg("no profile %s", name);
	return -1;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gpus_of_profiles),
	    cmocka_unit_test(test_fair_share_counts_mig),
	    cmocka_unit_test(test_free_gpus_count_mig),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

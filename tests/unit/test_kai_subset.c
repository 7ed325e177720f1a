/* Unit tests for KAI's SubsetNodes and PreJobAllocation points (session/kai/kai_subset.c) and
 * their use by the allocate action: the tree expansion rule, and node sets tried in order from
 * a checkpoint. Test functions are registered by reopening the registry, as a plugin would at
 * open. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "kai_fixture.h"

static const char scenario[] =
    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"allocate\"\n"
    "  tiers:\n  - plugins: [{name: priority}]\n"
    "queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, "
    "limit: -1}, memory: {quota: -1, limit: -1}}}]\n"
    "nodes:\n"
    "  - {name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
    "  - {name: n1, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
    "  - {name: n2, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
    "  - {name: n3, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}\n"
    "podGroups: [{name: j, queue: q, minMember: 2}]\n"
    "pods:\n"
    "  - {name: j-0, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
    "  - {name: j-1, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}}\n";

static void open_kai(kf *f)
{
	kai_load(f, scenario);
	f->s->frozen = false; /* register as a plugin would at open */
}

/* Splits a set into its first half and the rest. */
static int halves(void *state, const tph_kai_session *s, uint32_t job, int32_t sg,
                  const uint32_t *tasks, uint32_t n_tasks, const uint32_t *nodes, uint32_t n,
                  tph_kai_node_sets *out)
{
	(void)state, (void)s, (void)job, (void)sg, (void)tasks, (void)n_tasks;
	int rc = tph_kai_node_sets_push(out, nodes, n / 2);
	return rc < 0 ? rc : tph_kai_node_sets_push(out, nodes + n / 2, n - n / 2);
}

/* Splits a set into one set per node, last node first. */
static int singles_reversed(void *state, const tph_kai_session *s, uint32_t job, int32_t sg,
                            const uint32_t *tasks, uint32_t n_tasks, const uint32_t *nodes,
                            uint32_t n, tph_kai_node_sets *out)
{
	(void)state, (void)s, (void)job, (void)sg, (void)tasks, (void)n_tasks;
	for (uint32_t i = n; i-- > 0;) {
		int rc = tph_kai_node_sets_push(out, &nodes[i], 1);
		if (rc < 0)
			return rc;
	}
	return TPH_OK;
}

static int refuse(void *state, const tph_kai_session *s, uint32_t job, int32_t sg,
                  const uint32_t *tasks, uint32_t n_tasks, const uint32_t *nodes, uint32_t n,
                  tph_kai_node_sets *out)
{
	(void)state, (void)s, (void)job, (void)sg, (void)tasks, (void)n_tasks, (void)nodes, (void)n;
	(void)out;
	return TPH_EINVAL;
}

static void assert_set(const tph_kai_node_sets *ns, uint32_t i, const uint32_t *want, uint32_t n)
{
	assert_int_equal(ns->first[i + 1] - ns->first[i], n);
	for (uint32_t k = 0; k < n; k++)
		assert_int_equal(ns->nodes[ns->first[i] + k], want[k]);
}

/* No function: the one set given. Two functions: the second splits every set of the first,
 * in the first's order: halves {0,1} {2,3}, then singles reversed within each: 1 0 3 2. A
 * failing function fails the whole expansion. */
static void test_tree_expansion(void **state)
{
	(void)state;
	kf f;
	open_kai(&f);
	const uint32_t all[] = {0, 1, 2, 3};
	tph_kai_node_sets ns = {0};
	assert_int_equal(tph_kai_subset_nodes(f.s, 0, -1, NULL, 0, all, 4, &ns), 0);
	assert_int_equal(ns.n, 1);
	assert_set(&ns, 0, all, 4);
	assert_int_equal(tph_kai_add_subset_nodes(f.s, halves, NULL), 0);
	assert_int_equal(tph_kai_add_subset_nodes(f.s, singles_reversed, NULL), 0);
	assert_int_equal(tph_kai_subset_nodes(f.s, 0, -1, NULL, 0, all, 4, &ns), 0);
	assert_int_equal(ns.n, 4);
	const uint32_t want[] = {1, 0, 3, 2};
	for (uint32_t i = 0; i < 4; i++)
		assert_set(&ns, i, &want[i], 1);
	assert_int_equal(tph_kai_add_subset_nodes(f.s, refuse, NULL), 0);
	assert_true(tph_kai_subset_nodes(f.s, 0, -1, NULL, 0, all, 4, &ns) < 0);
	tph_kai_node_sets_free(&ns);
	f.s->frozen = true;
	assert_int_equal(tph_kai_add_subset_nodes(f.s, halves, NULL), TPH_EINVAL);
	assert_int_equal(tph_kai_add_pre_job_allocation(f.s, NULL, NULL), TPH_EINVAL);
	close_kai(&f);
}

/* At the root: {n0} first, where the gang of 2 cannot fit, then {n1, n2, n3}; pod sets keep
 * the set they are given. */
static int root_split(void *state, const tph_kai_session *s, uint32_t job, int32_t sg,
                      const uint32_t *tasks, uint32_t n_tasks, const uint32_t *nodes, uint32_t n,
                      tph_kai_node_sets *out)
{
	(void)state, (void)s, (void)job, (void)tasks;
	assert_int_equal(n_tasks, 2);
	if (sg >= 0 || n < 2)
		return tph_kai_node_sets_push(out, nodes, n);
	int rc = tph_kai_node_sets_push(out, nodes, 1);
	return rc < 0 ? rc : tph_kai_node_sets_push(out, nodes + 1, n - 1);
}

static void count_turns(void *state, const tph_kai_session *s, uint32_t job)
{
	(void)s, (void)job;
	(*(int *)state)++;
}

/* The first set takes one pod and fails the second: rolled back to the set's checkpoint, so
 * n0 ends empty and the gang lands on the next set (n1, n2 by name). PreJobAllocation runs
 * once for the job's one turn. */
static void test_sets_in_order(void **state)
{
	(void)state;
	kf f;
	int turns = 0;
	open_kai(&f);
	assert_int_equal(tph_kai_add_subset_nodes(f.s, root_split, NULL), 0);
	assert_int_equal(tph_kai_add_pre_job_allocation(f.s, count_turns, &turns), 0);
	f.s->frozen = true;
	tph_diag d = {0};
	assert_int_equal(tph_kai_session_run(f.s, &d), 0);
	const int32_t *node = tph_kai_session_node(f.s);
	const uint8_t *st = tph_kai_session_status(f.s);
	assert_int_equal(st[0], TPH_KAI_TS_BINDING);
	assert_int_equal(st[1], TPH_KAI_TS_BINDING);
	assert_int_equal(node[0], 1);
	assert_int_equal(node[1], 2);
	assert_int_equal(turns, 1);
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tree_expansion),
	    cmocka_unit_test(test_sets_in_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

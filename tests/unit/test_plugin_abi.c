/* The plugin contract's growth rules: descriptors outside TPH_PLUGIN_ABI_MIN..TPH_PLUGIN_ABI are
 * refused, and the view a plugin reads (tephra/columns.h) is the session's own state, with a size
 * that tells which fields exist. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "harness.h"
#include "tephra/topology.h"

static int open_nothing(tph_session *s, void *st, const tph_args *args)
{
	(void)s, (void)st, (void)args;
	return TPH_OK;
}

static void test_abi_range(void **state)
{
	(void)state;
	tph_diag d = {0};
	static const tph_plugin too_old = {
	    .abi = TPH_PLUGIN_ABI_MIN - 1, .name = "abi-too-old", .on_session_open = open_nothing};
	static const tph_plugin too_new = {
	    .abi = TPH_PLUGIN_ABI + 1, .name = "abi-too-new", .on_session_open = open_nothing};
	static const tph_plugin current = {
	    .abi = TPH_PLUGIN_ABI, .name = "abi-current", .on_session_open = open_nothing};
	assert_int_equal(tph_plugins_register(&too_old, &d), TPH_EABI);
	assert_non_null(strstr(d.msg, "plugin ABI"));
	assert_int_equal(tph_plugins_register(&too_new, &d), TPH_EABI);
	assert_int_equal(tph_plugins_register(&current, &d), TPH_OK);
	assert_true(TPH_PLUGIN_HAS(&current, 1));
	assert_false(TPH_PLUGIN_HAS(&current, TPH_PLUGIN_ABI + 1));
	tph_plugins_unload_all();
}

/* What a plugin reads through tph_view_of() while it opens. */
typedef struct seen {
	const tph_view *v;
	uint32_t nodes, tasks, ready;
	tph_sid gpu_name;
	uint32_t gpu_dim;
	int hier;
	const struct tph_topo *topo;
} seen;

static seen g_seen;

static int open_reader(tph_session *s, void *st, const tph_args *args)
{
	(void)st, (void)args;
	const tph_view *v = tph_view_of(s);
	g_seen = (seen){v,
	                v->nodes->n,
	                v->tasks->n,
	                v->n_ready,
	                tph_session_sid(s, "nvidia.com/gpu", 14),
	                tph_session_dim_find(s, "nvidia.com/gpu", 14),
	                tph_plugin_flag(s, TPH_FLAG_HIERARCHY),
	                v->topo};
	return TPH_OK;
}

static const tph_plugin reader = {
    .abi = TPH_PLUGIN_ABI, .name = "view-reader", .on_session_open = open_reader};

static const char scenario[] = "name: view\n"
                               "conf: |\n"
                               "  actions: \"\"\n"
                               "  tiers:\n"
                               "  - plugins:\n"
                               "    - name: view-reader\n"
                               "      enableHierarchy: true\n"
                               "queues: [{name: default}]\n"
                               "nodes:\n"
                               "  - {name: n1, allocatable: {cpu: '4', nvidia.com/gpu: '2'}}\n"
                               "  - {name: n2, allocatable: {cpu: '4'}, ready: false}\n"
                               "pods:\n"
                               "  - {name: p1, namespace: ns, requests: {cpu: '1'}}\n";

static void test_view_is_the_session(void **state)
{
	(void)state;
	tph_diag d = {0};
	assert_int_equal(tph_plugins_register(&reader, &d), TPH_OK);
	tph_scenario *sc = NULL;
	assert_int_equal(tph_scenario_load_buffer(scenario, strlen(scenario), "view.yaml", &sc, &d),
	                 TPH_OK);
	tph_snapshot *snap = NULL;
	assert_int_equal(
	    tph_cluster_snapshot(tph_scenario_cluster(sc), tph_scenario_now(sc), &snap, &d),
	    TPH_OK);
	tph_session *s = NULL;
	assert_int_equal(tph_session_open(snap, tph_scenario_conf(sc), NULL, &s, &d), TPH_OK);
	const tph_view *v = g_seen.v;
	assert_ptr_equal(v, tph_view_of(s));
	assert_int_equal(v->size, sizeof(tph_view));
	assert_true(TPH_VIEW_HAS(v, topo));
	assert_int_equal(g_seen.nodes, 2);
	assert_int_equal(g_seen.tasks, 1);
	assert_int_equal(g_seen.ready, 1); /* n2 is not ready: not a candidate */
	assert_int_equal(v->ready_nodes[0], 0);
	assert_int_not_equal(g_seen.gpu_name, TPH_SID_NONE);
	assert_string_equal(tph_session_str(s, g_seen.gpu_name), "nvidia.com/gpu");
	assert_int_equal(g_seen.gpu_dim, tph_session_dim_find(s, "nvidia.com/gpu", 14));
	assert_int_not_equal(g_seen.gpu_dim, TPH_NOIDX);
	assert_int_equal(tph_session_dim_find(s, "example.com/none", 16), TPH_NOIDX);
	assert_int_equal(g_seen.hier, 1);
	assert_int_equal(tph_plugin_flag(s, TPH_FLAG_HIERARCHY), -1); /* outside open */
	assert_non_null(g_seen.topo);
	/* the view reads the session's live columns: cpu idle of n1 as the snapshot has it */
	assert_int_equal(v->nodes->idle[0], 4000);
	tph_session_free(s);
	tph_snapshot_release(snap);
	tph_scenario_free(sc);
	tph_plugins_unload_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_abi_range),
	    cmocka_unit_test(test_view_is_the_session),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* External plugins: a shared object is loaded with dlopen, its callbacks are called by the
 * session; a missing entry symbol, a wrong ABI and a missing file fail with clear errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "harness.h"

#define PLUGIN(name) TPH_TEST_PLUGIN_DIR "/" name ".so"

static const char scenario[] =
    "name: external\n"
    "conf: |\n"
    "  actions: \"\"\n"
    "  tiers:\n"
    "  - plugins:\n"
    "    - name: example-external\n"
    "queues: [{name: default}]\n"
    "nodes:\n"
    "  - {name: blocked-1, allocatable: {cpu: '4', memory: 4Gi, pods: '10'}}\n"
    "  - {name: open-1, allocatable: {cpu: '4', memory: 4Gi, pods: '10'}}\n"
    "  - {name: blocked-2, allocatable: {cpu: '4', memory: 4Gi, pods: '10'}}\n"
    "podGroups:\n"
    "  - {name: zeta, namespace: ns, minMember: 1}\n"
    "  - {name: alpha, namespace: ns, minMember: 1}\n"
    "pods:\n"
    "  - {name: p1, namespace: ns, podGroup: zeta, requests: {cpu: '1'}}\n";

static void test_loads_and_callbacks_run(void **state)
{
	tph_diag d = {0};
	assert_int_equal(tph_plugins_load(PLUGIN("example_plugin"), &d), TPH_OK);
	/* Loading the same path again is a no-op. */
	assert_int_equal(tph_plugins_load(PLUGIN("example_plugin"), &d), TPH_OK);
	pts p;
	pts_open(&p, scenario); /* no creationTimestamp: the clock is 0 */
	tph_session *s = p.s;

	tph_idx nodes[3] = {0, 1, 2}, feas[3];
	tph_reason_code why[3];
	assert_int_equal(tph_filter_nodes(s, 0, nodes, 3, why, feas), 1);
	assert_int_equal(feas[0], 1);
	assert_string_equal(tph_reason_text(s, why[0]),
	                    "node(s) were blocked by the example plugin");
	/* Job order by name: alpha (job 1) before zeta (job 0). */
	assert_true(tph_job_order(s, 1, 0) < 0);

	pts_free(&p);
}

static void test_missing_entry_symbol(void **state)
{
	tph_diag d = {0};
	assert_int_equal(tph_plugins_load(PLUGIN("noentry_plugin"), &d), TPH_EPLUGIN);
	assert_non_null(strstr(d.msg, "no symbol tph_plugin_entry"));
	assert_non_null(strstr(d.msg, "noentry_plugin.so"));
}

static void test_wrong_abi(void **state)
{
	tph_diag d = {0};
	assert_int_equal(tph_plugins_load(PLUGIN("badabi_plugin"), &d), TPH_EABI);
	assert_non_null(strstr(d.msg, "plugin ABI"));
}

static void test_missing_file(void **state)
{
	tph_diag d = {0};
	assert_int_equal(tph_plugins_load(PLUGIN("does_not_exist"), &d), TPH_ENOENT);
	assert_non_null(strstr(d.msg, "does_not_exist.so"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_loads_and_callbacks_run),
	    cmocka_unit_test(test_missing_entry_symbol),
	    cmocka_unit_test(test_wrong_abi),
	    cmocka_unit_test(test_missing_file),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tph_plugins_unload_all();
	return rc;
}

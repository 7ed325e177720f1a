/* External plugins: a shared object is loaded with dlopen, its callbacks are called by the
 * session; a missing entry symbol, a wrong ABI and a missing file fail with clear errors; a conf
 * may name a plugin once it is loaded; loading or registering one twice is harmless; one named
 * like a built-in overrides it, with one warning. The working plugins are examples/plugins. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "harness.h"
#include "base/registry_int.h"

#define PLUGIN(name) TPH_TEST_PLUGIN_DIR "/" name ".so"
/* The examples under another spelling of their path: the same objects for dlopen. */
#define EXAMPLE(name)       TPH_EXAMPLE_PLUGIN_DIR "/" name ".so"
#define EXAMPLE_AGAIN(name) TPH_EXAMPLE_PLUGIN_DIR "/./" name ".so"

/* Records the warnings of a diag. */
typedef struct warns {
	unsigned n;
	char last[256];
} warns;

static void record(void *ud, const char *msg)
{
	warns *w = ud;
	w->n++;
	snprintf(w->last, sizeof w->last, "%s", msg);
}

static const char conf_external[] = "actions: \"\"\n"
                                    "tiers:\n"
                                    "- plugins:\n"
                                    "  - name: example-external\n";

/* Runs first: nothing is loaded yet. */
static void test_conf_names_plugin_once_loaded(void **state)
{
	tph_diag d = {0};
	tph_conf *conf = NULL;
	assert_int_equal(
	    tph_conf_load_string(conf_external, strlen(conf_external), "c.conf", true, &conf, &d),
	    TPH_EINVAL);
	assert_non_null(strstr(d.msg, "c.conf:4:11:"));
	assert_non_null(strstr(d.msg, "unknown plugin \"example-external\""));
	assert_int_equal(tph_plugins_load(EXAMPLE("example_external"), &d), TPH_OK);
	assert_int_equal(
	    tph_conf_load_string(conf_external, strlen(conf_external), "c.conf", true, &conf, &d),
	    TPH_OK);
	tph_conf_free(conf);
}

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
	assert_int_equal(tph_plugins_load(EXAMPLE("example_external"), &d), TPH_OK);
	/* Loading the same path again is a no-op, and so is the session's opts.plugin_dir. */
	assert_int_equal(tph_plugins_load(EXAMPLE("example_external"), &d), TPH_OK);
	pts p;
	pts_open_with(&p, scenario, &(tph_session_opts){.plugin_dir = EXAMPLE("example_external")});
	/* no creationTimestamp: the clock is 0 */
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

/* The same object under another path, as the CLI's --plugins and then a session's plugin_dir
 * may spell it: no error (its name is not "already registered"), no warning. */
static void test_same_object_other_path(void **state)
{
	warns w = {0};
	tph_diag d = {.warn = record, .warn_ud = &w};
	assert_int_equal(tph_plugins_load(EXAMPLE("example_external"), &d), TPH_OK);
	assert_int_equal(tph_plugins_load(EXAMPLE_AGAIN("example_external"), &d), TPH_OK);
	assert_int_equal(w.n, 0);
}

static int open_nothing(tph_session *s, void *st, const tph_args *args)
{
	return TPH_OK;
}

static const tph_plugin inproc = {
    .abi = TPH_PLUGIN_ABI, .name = "in-process", .on_session_open = open_nothing};
static const tph_plugin inproc_twin = {
    .abi = TPH_PLUGIN_ABI, .name = "in-process", .on_session_open = open_nothing};
static const tph_plugin inproc_priority = {
    .abi = TPH_PLUGIN_ABI, .name = "priority", .on_session_open = open_nothing};

static void test_register_twice(void **state)
{
	warns w = {0};
	tph_diag d = {.warn = record, .warn_ud = &w};
	assert_int_equal(tph_plugins_register(&inproc, &d), TPH_OK);
	assert_int_equal(tph_plugins_register(&inproc, &d), TPH_OK);
	/* Another descriptor with a registered external name is refused. */
	assert_int_equal(tph_plugins_register(&inproc_twin, &d), TPH_EEXIST);
	assert_non_null(strstr(d.msg, "a plugin named in-process is already registered"));
	assert_int_equal(w.n, 0);
}

/* Overrides run last: later sessions of this process get the external plugins. */
static void test_override_builtin(void **state)
{
	warns w = {0};
	tph_diag d = {.warn = record, .warn_ud = &w};
	assert_int_equal(tph_plugins_load(EXAMPLE("binpack"), &d), TPH_OK);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.last,
	                    "plugin binpack from " EXAMPLE("binpack") " overrides the built-in");
	assert_int_equal(tph_plugins_load(EXAMPLE_AGAIN("binpack"), &d), TPH_OK);
	assert_int_equal(w.n, 1);
	assert_int_equal(tph_plugins_register(&inproc_priority, &d), TPH_OK);
	assert_int_equal(w.n, 2);
	assert_string_equal(w.last, "plugin priority registered in-process overrides the built-in");

	const tph_plugin *p = NULL;
	assert_int_equal(tph_registry_plugin("priority", &p, &d), TPH_OK);
	assert_ptr_equal(p, &inproc_priority);
	assert_int_equal(tph_registry_plugin("binpack", &p, &d), TPH_OK);
	for (size_t i = 0; tph_builtin_plugins[i]; i++)
		assert_ptr_not_equal(p, tph_builtin_plugins[i]);
	assert_string_equal(p->name, "binpack");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conf_names_plugin_once_loaded),
	    cmocka_unit_test(test_loads_and_callbacks_run),
	    cmocka_unit_test(test_same_object_other_path),
	    cmocka_unit_test(test_register_twice),
	    cmocka_unit_test(test_missing_entry_symbol),
	    cmocka_unit_test(test_wrong_abi),
	    cmocka_unit_test(test_missing_file),
	    cmocka_unit_test(test_override_builtin),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tph_plugins_unload_all();
	return rc;
}

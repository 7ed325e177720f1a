/* The API's error discipline: every status has a name and a text, a plugin that cannot be loaded
 * is TPH_EPLUGIN (not an I/O error), and the session calls are safe on NULL and on misuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "harness.h"

#define PLUGIN(name) TPH_TEST_PLUGIN_DIR "/" name ".so"

static void test_status_names(void **state)
{
	(void)state;
	static const int codes[] = {TPH_OK,     TPH_DECLINED, TPH_ENOMEM, TPH_EINVAL, TPH_ENOENT,
	                            TPH_EEXIST, TPH_EPARSE,   TPH_EIO,    TPH_ERANGE, TPH_ENOTSUP,
	                            TPH_EABI,   TPH_EFROZEN,  TPH_EPLUGIN};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		assert_non_null(tph_errname(codes[i]));
		assert_int_equal(strncmp(tph_errname(codes[i]), "TPH_", 4), 0);
		assert_string_not_equal(tph_strerror(codes[i]), "unknown status");
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(tph_errname(codes[i]), tph_errname(codes[j]));
	}
	assert_string_equal(tph_errname(TPH_ENOMEM), "TPH_ENOMEM");
	assert_null(tph_errname(-1000));
	assert_string_equal(tph_strerror(-1000), "unknown status");
}

static void test_undefined_symbol_is_a_plugin_error(void **state)
{
	(void)state;
	tph_diag d = {0};
	assert_int_equal(tph_plugins_load(PLUGIN("undef_plugin"), &d), TPH_EPLUGIN);
	assert_non_null(strstr(d.msg, "tph_test_undefined_function"));
	assert_non_null(strstr(d.msg, "undef_plugin.so"));
}

static void test_null_and_misuse(void **state)
{
	(void)state;
	tph_diag d = {0};
	assert_int_equal(tph_session_close(NULL, &d), TPH_EINVAL);
	assert_int_equal(tph_session_run(NULL, &d), TPH_EINVAL);
	assert_null(tph_session_decisions(NULL));
	tph_session_free(NULL);
	tph_snapshot_release(NULL);
	tph_cluster_destroy(NULL);
	tph_scenario_free(NULL);
	tph_conf_free(NULL);

	static const char text[] = "name: twice\n"
	                           "conf: |\n"
	                           "  actions: \"allocate\"\n"
	                           "  tiers:\n"
	                           "  - plugins: [{name: predicates}]\n"
	                           "queues: [{name: default}]\n"
	                           "nodes: [{name: n1, allocatable: {cpu: '2', pods: '10'}}]\n"
	                           "pods: [{name: p1, namespace: ns, requests: {cpu: '1'}}]\n";
	tph_scenario *sc = NULL;
	tph_snapshot *snap = NULL;
	tph_session *s = NULL;
	assert_int_equal(tph_scenario_load_buffer(text, sizeof text - 1, "twice.yaml", &sc, &d), 0);
	assert_int_equal(
	    tph_cluster_snapshot(tph_scenario_cluster(sc), tph_scenario_now(sc), &snap, &d), 0);
	assert_int_equal(tph_session_open(snap, tph_scenario_conf(sc), NULL, &s, &d), 0);
	assert_null(tph_session_decisions(s)); /* not closed yet */
	assert_int_equal(tph_session_run(s, &d), TPH_OK);
	assert_int_equal(tph_session_run(s, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "already ran"));
	assert_int_equal(tph_session_close(s, &d), TPH_OK);
	assert_int_equal(tph_session_close(s, &d), TPH_OK); /* idempotent */
	assert_int_equal(tph_session_decisions(s)->n_binds, 1);
	tph_session_free(s);
	tph_snapshot_release(snap);
	tph_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_status_names),
	    cmocka_unit_test(test_undefined_symbol_is_a_plugin_error),
	    cmocka_unit_test(test_null_and_misuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The API's error discipline: every status has a name and a text, a plugin that cannot be loaded
 * is TPH_EPLUGIN (not an I/O error), the session calls are safe on NULL and on misuse, a call
 * that succeeds leaves no stale message, warnings reach stderr unless silenced, and a session
 * holds what it uses (its snapshot, the cache behind it, its conf, the plugins). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

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

static const char twice_yaml[] = "name: twice\n"
                                 "conf: |\n"
                                 "  actions: \"allocate\"\n"
                                 "  tiers:\n"
                                 "  - plugins: [{name: predicates}]\n"
                                 "queues: [{name: default}]\n"
                                 "nodes: [{name: n1, allocatable: {cpu: '2', pods: '10'}}]\n"
                                 "pods: [{name: p1, namespace: ns, requests: {cpu: '1'}}]\n";

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

	tph_scenario *sc = NULL;
	tph_snapshot *snap = NULL;
	tph_session *s = NULL;
	assert_int_equal(
	    tph_scenario_load_buffer(twice_yaml, sizeof twice_yaml - 1, "twice.yaml", &sc, &d), 0);
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

/* Everything a NULL handle can be given to: frees and closes are no-ops or EINVAL, counts 0. */
static void test_null_everywhere(void **state)
{
	(void)state;
	tph_diag d = {0};
	tph_probe_stmt_end(NULL);
	assert_int_equal(tph_cluster_apply(NULL, NULL, &d), TPH_EINVAL);
	assert_int_equal(tph_cluster_node_count(NULL), 0);
	assert_int_equal(tph_cluster_pod_count(NULL), 0);
	assert_int_equal(tph_snapshot_task_count(NULL), 0);
	assert_int_equal(tph_snapshot_bytes(NULL), 0);
	assert_int_equal(tph_cluster_put_node(NULL, NULL, &d), TPH_EINVAL);
	assert_int_equal(tph_cluster_remove_pod(NULL, "ns", "p", &d), TPH_EINVAL);
	assert_int_equal(tph_cluster_snapshot(NULL, 0, NULL, &d), TPH_EINVAL);
	assert_int_equal(tph_session_open(NULL, NULL, NULL, NULL, &d), TPH_EINVAL);
	assert_int_equal(tph_conf_load_file(NULL, true, NULL, &d), TPH_EINVAL);
	assert_int_equal(tph_scenario_load_file(NULL, NULL, &d), TPH_EINVAL);
	assert_int_equal(tph_plugins_load(NULL, &d), TPH_EINVAL);
	assert_int_equal(tph_plugins_register(NULL, &d), TPH_EINVAL);
}

/* A call that succeeds empties diag.msg: text from an earlier failure never lingers. */
static void test_success_clears_message(void **state)
{
	(void)state;
	tph_diag d = {.warn = TPH_WARN_SILENT};
	tph_scenario *sc = NULL;
	tph_snapshot *snap = NULL;
	tph_session *s = NULL;
	tph_conf *conf = NULL;
	tph_scenario *bad = NULL;
#define FAIL_THEN(call)                                                                     \
	do {                                                                                \
		assert_int_equal(tph_scenario_load_buffer("x: [", 4, "bad.yaml", &bad, &d), \
		                 TPH_EPARSE);                                               \
		assert_int_not_equal(d.msg[0], '\0');                                       \
		assert_int_equal(call, TPH_OK);                                             \
		assert_string_equal(d.msg, "");                                             \
	} while (0)
	FAIL_THEN(tph_scenario_load_buffer(twice_yaml, sizeof twice_yaml - 1, "t.yaml", &sc, &d));
	FAIL_THEN(tph_conf_load_string("actions: allocate", 17, "c", true, &conf, &d));
	tph_cluster *c = tph_scenario_cluster(sc);
	FAIL_THEN(tph_cluster_snapshot(c, 0, &snap, &d));
	FAIL_THEN(tph_session_open(snap, conf, NULL, &s, &d));
	FAIL_THEN(tph_session_run(s, &d));
	FAIL_THEN(tph_session_close(s, &d));
	FAIL_THEN(tph_cluster_apply(c, s, &d));
	FAIL_THEN(tph_cluster_remove_pod(c, "ns", "p1", &d));
#undef FAIL_THEN
	tph_session_free(s);
	tph_snapshot_release(snap);
	tph_conf_free(conf);
	tph_scenario_free(sc);
}

/* stderr while `begin` .. `end` run, into buf. */
typedef struct capture {
	int saved;
	FILE *f;
} capture;

static void capture_begin(capture *c)
{
	fflush(stderr);
	c->f = tmpfile();
	assert_non_null(c->f);
	c->saved = dup(2);
	assert_int_equal(dup2(fileno(c->f), 2), 2);
}

static const char *capture_end(capture *c, char *buf, size_t cap)
{
	fflush(stderr);
	dup2(c->saved, 2);
	close(c->saved);
	rewind(c->f);
	size_t n = fread(buf, 1, cap - 1, c->f);
	buf[n] = '\0';
	fclose(c->f);
	return buf;
}

/* A pod without a podgroup and no "default" queue is left out with a warning: a diag without a
 * callback (and a NULL diag) prints it on stderr; TPH_WARN_SILENT only counts it. */
static void test_warnings_reach_stderr(void **state)
{
	(void)state;
	static const char text[] = "queues: [{name: q1}]\n"
	                           "pods: [{name: p1, namespace: ns}]\n";
	tph_diag d = {0};
	tph_scenario *sc = NULL;
	tph_snapshot *snap = NULL;
	assert_int_equal(tph_scenario_load_buffer(text, sizeof text - 1, "w.yaml", &sc, &d), 0);
	tph_cluster *c = tph_scenario_cluster(sc);
	capture cap;
	char out[2048];
	capture_begin(&cap);
	assert_int_equal(tph_cluster_snapshot(c, 0, &snap, &d), TPH_OK);
	tph_snapshot_release(snap);
	assert_int_equal(tph_cluster_snapshot(c, 0, &snap, NULL), TPH_OK);
	tph_snapshot_release(snap);
	assert_string_equal(capture_end(&cap, out, sizeof out),
	                    "tephra: warning: 1 pods without a podgroup are left out: queue "
	                    "\"default\" does not exist\n"
	                    "tephra: warning: 1 pods without a podgroup are left out: queue "
	                    "\"default\" does not exist\n");
	assert_int_equal(d.warnings, 1);
	d.warn = TPH_WARN_SILENT;
	capture_begin(&cap);
	assert_int_equal(tph_cluster_snapshot(c, 0, &snap, &d), TPH_OK);
	tph_snapshot_release(snap);
	assert_string_equal(capture_end(&cap, out, sizeof out), "");
	assert_int_equal(d.warnings, 2); /* silenced, still counted */
	tph_scenario_free(sc);
}

/* A session holds its snapshot, the cache behind it and its conf: the host may let go of all
 * three (and of the scenario that owned the cache and conf) while it is open; the session still
 * runs and its log, action names included, stays readable. ASan builds catch a use after free. */
static void test_session_outlives_its_inputs(void **state)
{
	(void)state;
	tph_diag d = {.warn = TPH_WARN_SILENT};
	tph_scenario *sc = NULL;
	tph_snapshot *snap = NULL;
	tph_session *s = NULL, *s2 = NULL;
	tph_conf *conf = NULL;
	assert_int_equal(
	    tph_scenario_load_buffer(twice_yaml, sizeof twice_yaml - 1, "t.yaml", &sc, &d), 0);
	static const char conf_text[] = "actions: \"allocate\"\n"
	                                "tiers:\n"
	                                "- plugins: [{name: predicates}]\n";
	assert_int_equal(
	    tph_conf_load_string(conf_text, sizeof conf_text - 1, "c.yaml", true, &conf, &d), 0);
	assert_int_equal(
	    tph_cluster_snapshot(tph_scenario_cluster(sc), tph_scenario_now(sc), &snap, &d), 0);
	assert_int_equal(tph_session_open(snap, tph_scenario_conf(sc), NULL, &s, &d), 0);
	assert_int_equal(tph_session_open(snap, conf, NULL, &s2, &d), 0);
	tph_snapshot_release(snap);
	tph_scenario_free(sc); /* its cache and its conf */
	tph_conf_free(conf);
	assert_int_equal(tph_plugins_unload_all(), TPH_EINVAL); /* sessions are open */
	tph_session *both[] = {s, s2};
	for (int i = 0; i < 2; i++) {
		assert_int_equal(tph_session_run(both[i], &d), TPH_OK);
		assert_int_equal(tph_session_close(both[i], &d), TPH_OK);
		const tph_decision_log *log = tph_session_decisions(both[i]);
		assert_int_equal(log->n_binds, 1);
		assert_string_equal(log->binds[0].pod, "ns/p1");
		assert_string_equal(log->binds[0].node, "n1");
		assert_string_equal(log->actions[0].action, "allocate");
	}
	tph_session_free(s);
	assert_int_equal(tph_plugins_unload_all(), TPH_EINVAL);
	tph_session_free(s2); /* the last holder: conf, snapshot and cache go now */
	assert_int_equal(tph_plugins_unload_all(), TPH_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_status_names),
	    cmocka_unit_test(test_undefined_symbol_is_a_plugin_error),
	    cmocka_unit_test(test_null_and_misuse),
	    cmocka_unit_test(test_null_everywhere),
	    cmocka_unit_test(test_success_clears_message),
	    cmocka_unit_test(test_warnings_reach_stderr),
	    cmocka_unit_test(test_session_outlives_its_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unknown argument keys: declared keys, prefix patterns, NOFIELD entries and included tables
 * are known; anything else warns once, naming the owner and the key; a session warns for the
 * unknown keys of a real plugin's conf entry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "load/conf_int.h"
#include "tephra/tephra.h"

static char warnings[4096];

static void collect(void *ud, const char *msg)
{
	(void)ud;
	strncat(warnings, msg, sizeof warnings - strlen(warnings) - 2);
	strcat(warnings, "\n");
}

static const tph_arg_spec shared[] = {
    {"shared.key", TPH_ARG_BOOL, NULL, 0, 0, TPH_ARG_NOFIELD, NULL},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

static const tph_arg_spec spec[] = {
    {"plain", TPH_ARG_INT, "1", 0, 0, 0, NULL},
    {"family.*", TPH_ARG_INT, NULL, 0, 0, TPH_ARG_NOFIELD, NULL},
    {"manual", TPH_ARG_MAP, NULL, 0, 0, TPH_ARG_NOFIELD, NULL},
    {"", 0, NULL, 0, 0, TPH_ARG_NOFIELD, NULL, shared},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* The arguments of the first plugin of a conf. */
static tph_conf *conf_with(const char *args)
{
	char text[1024];
	snprintf(text, sizeof text,
	         "actions: \"\"\ntiers:\n- plugins:\n  - name: binpack\n    arguments: %s\n", args);
	tph_conf *c = NULL;
	tph_diag d = {0};
	assert_int_equal(tph_conf_load_string(text, strlen(text), "t.conf", true, &c, &d), TPH_OK);
	return c;
}

static const tph_args *first_args(const tph_conf *c)
{
	return &c->tiers[0].plugins[0].args;
}

static void test_declared_keys_are_known(void **state)
{
	tph_conf *c = conf_with("{plain: 2, family.a: 1, family.b/c: 3, manual: {x: 1}, "
	                        "shared.key: true}");
	tph_diag d = {.warn = collect};
	warnings[0] = '\0';
	assert_int_equal(tph_args_check_unknown(first_args(c), spec, &d, "plugin x"), 0);
	assert_string_equal(warnings, "");
	tph_conf_free(c);
}

static void test_unknown_keys_warn(void **state)
{
	tph_conf *c = conf_with("{plain: 2, familyx: 1, typo.key: 3}");
	tph_diag d = {.warn = collect};
	warnings[0] = '\0';
	assert_int_equal(tph_args_check_unknown(first_args(c), spec, &d, "plugin x"), 2);
	assert_non_null(strstr(warnings, "plugin x: unknown argument familyx"));
	assert_non_null(strstr(warnings, "plugin x: unknown argument typo.key"));
	tph_conf_free(c);
}

static void test_null_table_declares_nothing(void **state)
{
	tph_conf *c = conf_with("{anything: 1}");
	tph_diag d = {.warn = collect};
	warnings[0] = '\0';
	assert_int_equal(tph_args_check_unknown(first_args(c), NULL, &d, "plugin y"), 1);
	tph_conf_free(c);
}

static void test_apply_skips_declarations(void **state)
{
	struct {
		int64_t plain;
	} dst = {0};
	tph_conf *c = conf_with("{plain: 7, family.a: 1}");
	/* Applying must not write through the NOFIELD offset of the pattern or include. */
	assert_int_equal(tph_args_apply(first_args(c), spec, &dst, NULL, "plugin x"), TPH_OK);
	assert_int_equal(dst.plain, 7);
	tph_conf_free(c);
}

static void test_session_warns_for_real_plugin(void **state)
{
	static const char scn[] = "name: w\n"
	                          "conf: |\n"
	                          "  actions: \"\"\n"
	                          "  tiers:\n"
	                          "  - plugins:\n"
	                          "    - name: binpack\n"
	                          "      arguments: {binpack.weight: 2, binpack.wieght: 3}\n"
	                          "queues: [{name: default}]\n"
	                          "nodes: []\n";
	tph_diag d = {.warn = collect};
	warnings[0] = '\0';
	tph_scenario *sc;
	assert_int_equal(tph_scenario_load_buffer(scn, strlen(scn), "w.yaml", &sc, &d), TPH_OK);
	tph_snapshot *snap;
	assert_int_equal(tph_cluster_snapshot(tph_scenario_cluster(sc), 0, &snap, &d), TPH_OK);
	tph_session *s;
	assert_int_equal(tph_session_open(snap, tph_scenario_conf(sc), NULL, &s, &d), TPH_OK);
	assert_non_null(strstr(warnings, "binpack: unknown argument binpack.wieght"));
	assert_null(strstr(warnings, "binpack.weight ("));
	tph_session_free(s);
	tph_snapshot_release(snap);
	tph_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_declared_keys_are_known),
	    cmocka_unit_test(test_unknown_keys_warn),
	    cmocka_unit_test(test_null_table_declares_nothing),
	    cmocka_unit_test(test_apply_skips_declarations),
	    cmocka_unit_test(test_session_warns_for_real_plugin),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

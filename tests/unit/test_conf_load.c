/* Unit tests for the Volcano conf loader (kernel/src/load/conf_load.c) and the name tables
 * (kernel/src/base/names.c): action splitting, plugin entries and their enable flags, arguments,
 * configurations, and every rejection with its location. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "load/conf_int.h"
#include "base/names.h"
#include "tephra/conf.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

static tph_conf *conf_ok(const char *text, bool efd)
{
	tph_diag d = {0};
	tph_conf *c = NULL;
	int rc = tph_conf_load_string(text, strlen(text), "c.yaml", efd, &c, &d);
	if (rc != TPH_OK) {
		print_error("conf failed (%d): %s\n", rc, d.msg);
		fail();
	}
	return c;
}

static void test_actions(void **state)
{
	(void)state;
	const struct {
		const char *text;
		unsigned n;
		const char *first, *last;
	} cases[] = {
	    {"actions: \"enqueue, allocate, backfill\"", 3, "enqueue", "backfill"},
	    {"actions: allocate", 1, "allocate", "allocate"},
	    {"actions: \" reclaim,preempt ,shuffle \"", 3, "reclaim", "shuffle"},
	    {"actions: \"gangpreempt, gangreclaim\"", 2, "gangpreempt", "gangreclaim"},
	    {"actions: \"allocate, allocate\"", 2, "allocate", "allocate"},
	    {"actions: \"\"", 0, NULL, NULL},
	    {"actions: \"   \"", 0, NULL, NULL},
	    {"actions: ~", 0, NULL, NULL},
	};
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		tph_conf *c = conf_ok(cases[i].text, true);
		assert_int_equal(tph_conf_action_count(c), cases[i].n);
		if (cases[i].n) {
			assert_string_equal(tph_conf_action(c, 0), cases[i].first);
			assert_string_equal(tph_conf_action(c, cases[i].n - 1), cases[i].last);
		}
		assert_null(tph_conf_action(c, cases[i].n));
		tph_conf_free(c);
	}
}

static void test_plugins_and_flags(void **state)
{
	(void)state;
	tph_conf *c = conf_ok("actions: \"enqueue, allocate\"\n"
	                      "tiers:\n"
	                      "- plugins:\n"
	                      "  - name: priority\n"
	                      "  - name: gang\n"
	                      "    enableJobOrder: true\n"
	                      "    enablePreemptable: false\n"
	                      "    enabledHyperNodeGradient: true\n"
	                      "    enableHierarchy: ~\n"
	                      "- plugins:\n"
	                      "  - {name: drf, enableHierarchy: true}\n"
	                      "  - {name: numa-aware}\n"
	                      "  - {name: network-topology-aware, arguments: {weight: 2}}\n",
	                      false);
	assert_int_equal(tph_conf_tier_count(c), 2);
	assert_int_equal(tph_conf_plugin_count(c, 0), 2);
	assert_int_equal(tph_conf_plugin_count(c, 1), 3);
	assert_int_equal(tph_conf_plugin_count(c, 2), 0);
	assert_string_equal(tph_conf_plugin_name(c, 0, 1), "gang");
	assert_null(tph_conf_plugin_name(c, 0, 2));
	assert_int_equal(tph_conf_flag_raw(c, 0, 1, TPH_FLAG_JOB_ORDER), 1);
	assert_int_equal(tph_conf_flag_raw(c, 0, 1, TPH_FLAG_PREEMPTABLE), 0);
	assert_int_equal(tph_conf_flag_raw(c, 0, 1, TPH_FLAG_HYPERNODE_GRADIENT), 1);
	assert_int_equal(tph_conf_flag_raw(c, 0, 1, TPH_FLAG_HIERARCHY), -1); /* null = absent */
	assert_int_equal(tph_conf_flag_raw(c, 0, 0, TPH_FLAG_JOB_ORDER), -1);
	assert_false(tph_conf_flag_on(c, 0, 0, TPH_FLAG_JOB_ORDER)); /* default false */
	assert_true(tph_conf_flag_on(c, 1, 0, TPH_FLAG_HIERARCHY));
	assert_int_equal(tph_conf_flag_raw(c, 9, 0, TPH_FLAG_JOB_ORDER), -1);
	assert_int_equal(c->tiers[1].plugins[2].line, 13);
	assert_int_equal(c->tiers[1].plugins[2].col, 5);
	assert_string_equal(tph_arg_get(&c->tiers[1].plugins[2].args, "weight")->text, "2");
	assert_false(c->tiers[0].plugins[0].has_args);
	assert_int_equal(c->tiers[0].plugins[0].args.kind, TPH_ARGV_MAP);
	assert_int_equal(c->tiers[0].plugins[0].args.n, 0);
	tph_conf_free(c);
}

static void test_flag_names(void **state)
{
	(void)state;
	/* Volcano's conf.PluginOption yaml tags, in order */
	static const char *const volcano[] = {
	    "enableJobOrder",           "enableHierarchy",        "enableJobReady",
	    "enableJobPipelined",       "enableTaskOrder",        "enablePreemptable",
	    "enableReclaimable",        "enablePreemptive",       "enableQueueOrder",
	    "enabledClusterOrder",      "enablePredicate",        "enableBestNode",
	    "enableNodeOrder",          "enableTargetJob",        "enableReservedNodes",
	    "enableJobEnqueued",        "enabledVictim",          "enableJobStarving",
	    "enabledOverused",          "enabledAllocatable",     "enabledHyperNodeOrder",
	    "enabledSubJobReady",       "enabledSubJobPipelined", "enabledSubJobOrder",
	    "enabledHyperNodeGradient",
	};
	assert_int_equal(N_ELEMS(volcano), TPH_FLAG_COUNT);
	for (int f = 0; f < TPH_FLAG_COUNT; f++) {
		assert_string_equal(tph_conf_flag_name((tph_conf_flag)f), volcano[f]);
		assert_int_equal(tph_conf_flag_follows_default((tph_conf_flag)f),
		                 f != TPH_FLAG_HIERARCHY && f != TPH_FLAG_CLUSTER_ORDER);
	}
	assert_null(tph_conf_flag_name(TPH_FLAG_COUNT));
	/* every flag is accepted with its own spelling and lands on its own slot */
	for (int f = 0; f < TPH_FLAG_COUNT; f++) {
		char text[256];
		snprintf(text, sizeof text,
		         "actions: \"\"\ntiers:\n- plugins:\n  - {name: gang, %s: false}\n",
		         volcano[f]);
		tph_conf *c = conf_ok(text, true);
		for (int g = 0; g < TPH_FLAG_COUNT; g++)
			assert_int_equal(tph_conf_flag_raw(c, 0, 0, (tph_conf_flag)g),
			                 g == f ? 0 : -1);
		tph_conf_free(c);
	}
}

static void test_names(void **state)
{
	(void)state;
	static const char *const plugins[] = {
	    "binpack",
	    "capacity",
	    "cdp",
	    "conformance",
	    "deviceshare",
	    "drf",
	    "extender",
	    "gang",
	    "network-topology-aware",
	    "nodegroup",
	    "nodeorder",
	    "numa-aware",
	    "overcommit",
	    "pdb",
	    "predicates",
	    "priority",
	    "proportion",
	    "rescheduling",
	    "resource-strategy-fit",
	    "resourcequota",
	    "sla",
	    "task-topology",
	    "tdm",
	    "usage",
	};
	assert_int_equal(tph_plugin_name_count, N_ELEMS(plugins));
	for (size_t i = 0; i < N_ELEMS(plugins); i++)
		assert_true(tph_plugin_name_known(plugins[i]));
	static const char *const actions[] = {"enqueue", "allocate", "backfill",    "preempt",
	                                      "reclaim", "shuffle",  "gangpreempt", "gangreclaim"};
	assert_int_equal(tph_action_name_count, N_ELEMS(actions));
	for (size_t i = 0; i < N_ELEMS(actions); i++)
		assert_true(tph_action_name_known(actions[i]));
	const char *no[] = {"numaaware", "Gang", "", "allocate ", "nodeOrder"};
	for (size_t i = 0; i < N_ELEMS(no); i++) {
		assert_false(tph_plugin_name_known(no[i]));
		assert_false(tph_action_name_known(no[i]));
	}
	assert_false(tph_plugin_name_known(NULL));
	assert_false(tph_action_name_known("gang"));
}

static void test_configurations_and_metrics(void **state)
{
	(void)state;
	tph_conf *c = conf_ok("actions: allocate\n"
	                      "configurations:\n"
	                      "- name: allocate\n"
	                      "  arguments: {enablePredicateErrorCache: true, foo: [1, 2]}\n"
	                      "- name: preempt\n"
	                      "metrics:\n"
	                      "  address: http://prometheus\n"
	                      "  interval: 30s\n",
	                      true);
	assert_int_equal(c->n_configurations, 2);
	const tph_conf_action_args *a = tph_conf_find_action_args(c, "allocate");
	assert_int_equal(a->args.n, 2);
	assert_int_equal(tph_arg_get(&a->args, "foo")->n, 2);
	assert_int_equal(tph_conf_find_action_args(c, "preempt")->args.n, 0);
	assert_true(c->has_metrics);
	assert_string_equal(tph_arg_get(&c->metrics, "interval")->text, "30s");
	tph_conf_free(c);
}

static void test_volcano_default(void **state)
{
	(void)state;
	tph_conf *c = conf_ok(TPH_CONF_VOLCANO_DEFAULT, true);
	assert_int_equal(tph_conf_action_count(c), 3);
	assert_int_equal(tph_conf_tier_count(c), 2);
	assert_int_equal(tph_conf_plugin_count(c, 1), 5);
	assert_true(tph_conf_flag_on(c, 1, 4, TPH_FLAG_NODE_ORDER));
	tph_conf_free(c);
}

static void test_rejections(void **state)
{
	(void)state;
	const struct {
		const char *text;
		int status;
		const char *want;
	} bad[] = {
	    {"actions: \"enqueue, alocate\"", TPH_EINVAL,
	     "c.yaml:1:10: conf: field actions: unknown action \"alocate\""},
	    {"actions: \"enqueue,,allocate\"", TPH_EINVAL, "empty action name"},
	    {"actions: [enqueue]", TPH_EINVAL, "expected a comma-separated string"},
	    {"tiers:\n- plugins:\n  - name: gnag\n", TPH_EINVAL,
	     "c.yaml:3:11: conf tier 1 plugin gnag: field name: unknown plugin \"gnag\""},
	    {"tiers:\n- plugins:\n  - {name: gang, enableJobOrdr: true}\n", TPH_EINVAL,
	     "c.yaml:3:18: conf tier 1 plugin gang: field enableJobOrdr: unknown enable flag"},
	    {"tiers:\n- plugins:\n  - {name: gang, weight: 1}\n", TPH_EINVAL,
	     "conf tier 1 plugin gang: field weight: unknown field"},
	    {"tiers:\n- plugins:\n  - {name: gang, enableJobOrder: 1}\n", TPH_EINVAL,
	     "field enableJobOrder: expected true or false"},
	    {"tiers:\n- plugins:\n  - {name: gang, enableJobOrder: true, enableJobOrder: false}\n",
	     TPH_EINVAL, "duplicate field"},
	    {"tiers:\n- plugins:\n  - {enableJobOrder: true}\n", TPH_EINVAL,
	     "conf tier 1 plugin #1: field name: required field is missing"},
	    {"tiers:\n- plugins:\n  - name: gang\n    arguments: [a]\n", TPH_EINVAL,
	     "field arguments: expected a mapping, got a sequence"},
	    {"tiers:\n- plugins:\n  - name: gang\n    arguments: {a: 1, a: 2}\n", TPH_EINVAL,
	     "duplicate key \"a\""},
	    {"tiers:\n- plugins:\n  - {name: drf, enableHierarchy: true}\n  - name: proportion\n",
	     TPH_EINVAL, "c.yaml:2:3: conf tier 1: proportion and drf with hierarchy"},
	    {"tiers:\n- plugin: []\n", TPH_EINVAL, "conf tier 1: field plugin: unknown field"},
	    {"tiers: {plugins: []}\n", TPH_EINVAL, "field tiers: expected a sequence"},
	    {"actions: allocate\nplugins: []\n", TPH_EINVAL, "conf: field plugins: unknown field"},
	    {"configurations:\n- name: allocat\n", TPH_EINVAL, "unknown action \"allocat\""},
	    {"configurations:\n- {name: allocate, args: {}}\n", TPH_EINVAL,
	     "conf configuration allocate: field args: unknown field"},
	    {"configurations:\n- arguments: {}\n", TPH_EINVAL, "required field is missing"},
	    {"- actions: allocate\n", TPH_EINVAL, "expected a mapping, got a sequence"},
	    {"actions: \"allocate\nx", TPH_EPARSE, "YAML syntax error"},
	    {"a: &x [*x]\nactions: *y\n", TPH_EPARSE, "undefined alias"},
	    {"actions: allocate\n---\nactions: allocate\n", TPH_EPARSE,
	     "more than one YAML document"},
	    /* a conf that does not say which actions ran none, exit 0 */
	    {"", TPH_EINVAL, "c.yaml:1:1: conf has no actions (write actions: \"\" to run none)"},
	    {"# only a comment\n\n", TPH_EINVAL, "c.yaml:1:1: conf has no actions"},
	    {"~\n", TPH_EINVAL, "c.yaml:1:1: conf has no actions"},
	    {"\ntiers: []\n", TPH_EINVAL, "c.yaml:2:1: conf has no actions"},
	    {"tiers:\n- plugins:\n  - name: gang\n", TPH_EINVAL, "conf has no actions"},
	};
	for (size_t i = 0; i < N_ELEMS(bad); i++) {
		tph_diag d = {0};
		tph_conf *c = (tph_conf *)0x1;
		int rc =
		    tph_conf_load_string(bad[i].text, strlen(bad[i].text), "c.yaml", true, &c, &d);
		if (rc != bad[i].status || c != NULL || !strstr(d.msg, bad[i].want)) {
			print_error("case %zu: rc=%d msg=\"%s\", want %d \"%s\"\n", i, rc, d.msg,
			            bad[i].status, bad[i].want);
			fail();
		}
	}
}

/* An alias loop inside arguments is caught, not followed forever. */
static void test_alias_loop(void **state)
{
	(void)state;
	const char *text = "tiers:\n- plugins:\n  - name: gang\n    arguments: &a {x: *a}\n";
	tph_diag d = {0};
	tph_conf *c = NULL;
	assert_int_equal(tph_conf_load_string(text, strlen(text), "c.yaml", true, &c, &d),
	                 TPH_ERANGE);
	assert_null(c);
	assert_non_null(strstr(d.msg, "nested too deeply"));
}

static void test_load_file(void **state)
{
	(void)state;
	tph_diag d = {0};
	tph_conf *c = (tph_conf *)0x1;
	assert_int_equal(tph_conf_load_file("/nonexistent/conf.yaml", true, &c, &d), TPH_ENOENT);
	assert_null(c);
	assert_non_null(strstr(d.msg, "/nonexistent/conf.yaml"));
	char path[] = "/tmp/tph_confXXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("actions: \"enqueue\"\ntiers:\n- plugins:\n  - name: gang\n", f);
	fclose(f);
	assert_int_equal(tph_conf_load_file(path, false, &c, &d), TPH_OK);
	assert_int_equal(tph_conf_action_count(c), 1);
	assert_false(tph_conf_enable_flags_default(c));
	assert_string_equal(c->file, path);
	tph_conf_free(c);
	remove(path);
	tph_conf_free(NULL);
}

/* tph_conf_set_plugin_arg: replace, append, every entry of the plugin, none for another. */
static void test_set_plugin_arg(void **state)
{
	(void)state;
	tph_conf *c =
	    conf_ok("actions: allocate\ntiers:\n- plugins:\n  - name: extender\n"
	            "    arguments: {extender.urlPrefix: http://x, extender.ignorable: true}\n"
	            "  - name: gang\n- plugins:\n  - name: extender\n",
	            true);
	assert_int_equal(tph_conf_set_plugin_arg(c, "extender", "extender.urlPrefix", "8080"), 2);
	const tph_arg *a = &c->tiers[0].plugins[0].args, *v = tph_arg_get(a, "extender.urlPrefix");
	assert_non_null(v);
	assert_string_equal(v->text, "8080");
	assert_true(v->quoted); /* a string, though it reads as a number */
	assert_non_null(tph_arg_get(a, "extender.ignorable"));
	a = &c->tiers[1].plugins[0].args;
	assert_true(c->tiers[1].plugins[0].has_args);
	assert_string_equal(tph_arg_get(a, "extender.urlPrefix")->text, "8080");
	assert_int_equal(tph_conf_set_plugin_arg(c, "binpack", "k", "v"), 0);
	assert_int_equal(tph_conf_set_plugin_arg(c, "gang", "", "v"), TPH_EINVAL);
	assert_int_equal(tph_conf_set_plugin_arg(NULL, "gang", "k", "v"), TPH_EINVAL);
	tph_conf_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_actions),
	    cmocka_unit_test(test_plugins_and_flags),
	    cmocka_unit_test(test_flag_names),
	    cmocka_unit_test(test_names),
	    cmocka_unit_test(test_configurations_and_metrics),
	    cmocka_unit_test(test_volcano_default),
	    cmocka_unit_test(test_rejections),
	    cmocka_unit_test(test_alias_loop),
	    cmocka_unit_test(test_load_file),
	    cmocka_unit_test(test_set_plugin_arg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* A spy plugin records every call the framework makes: proves open/close order, argument
 * delivery, enable-flag gating, tier-ordered dispatch and the frozen registry. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "harness.h"

static char spy_log[8192];

static void logf_(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	strncat(spy_log, line, sizeof spy_log - strlen(spy_log) - 1);
	strncat(spy_log, ";", sizeof spy_log - strlen(spy_log) - 1);
}

typedef struct spy_state {
	const char *name;
	int64_t order; /* what job order answers */
	const char *tag;
	tph_session *ssn;
} spy_state;

static const tph_arg_spec spy_args[] = {
    {"order", TPH_ARG_INT, "0", 0, 0, offsetof(spy_state, order), "job order answer"},
    {"tag", TPH_ARG_STRING, "none", 0, 0, offsetof(spy_state, tag), "a label to log"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

static int spy_job_order(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	spy_state *sp = st;
	logf_("%s.job_order(%u,%u)", sp->name, a, b);
	return (int)sp->order;
}

static void spy_predicate(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                          uint32_t n, tph_reason_code *out)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = TPH_PASS;
}

static bool spy_ready(void *st, const tph_session *s, tph_idx job)
{
	spy_state *sp = st;
	logf_("%s.job_ready(%u)", sp->name, job);
	return true;
}

static int open_common(tph_session *s, spy_state *sp, const char *name)
{
	sp->name = name;
	sp->ssn = s;
	logf_("%s.open(tag=%s,order=%lld)", name, sp->tag, (long long)sp->order);
	int rc = tph_on_job_order(s, spy_job_order);
	if (!rc)
		rc = tph_on_job_ready(s, spy_ready);
	if (!rc)
		rc = tph_on_predicate(s, spy_predicate);
	return rc;
}

static int open_a(tph_session *s, void *st, const tph_args *a)
{
	return open_common(s, st, "spy_a");
}

static int open_b(tph_session *s, void *st, const tph_args *a)
{
	return open_common(s, st, "spy_b");
}

static int open_c(tph_session *s, void *st, const tph_args *a)
{
	return open_common(s, st, "spy_c");
}

static void spy_close(tph_session *s, void *st)
{
	spy_state *sp = st;
	/* The registry is frozen after open: registering now must fail. */
	int rc = tph_on_job_order(s, spy_job_order);
	logf_("%s.close(register=%s)", sp->name, rc == TPH_EFROZEN ? "frozen" : "accepted");
}

static const tph_plugin spy_a = {TPH_PLUGIN_ABI,    "spy_a", spy_args,
                                 sizeof(spy_state), open_a,  spy_close};
static const tph_plugin spy_b = {TPH_PLUGIN_ABI,    "spy_b", spy_args,
                                 sizeof(spy_state), open_b,  spy_close};
static const tph_plugin spy_c = {TPH_PLUGIN_ABI,    "spy_c", spy_args,
                                 sizeof(spy_state), open_c,  spy_close};

static const char scenario[] =
    "name: spy\n"
    "enableFlagsDefault: true\n"
    "conf: |\n"
    "  actions: \"\"\n"
    "  tiers:\n"
    "  - plugins:\n"
    "    - name: spy_a\n"
    "      arguments: {tag: first, order: 0}\n"
    "    - name: spy_b\n"
    "      enableJobOrder: false\n"
    "      arguments: {tag: second, order: -1}\n"
    "  - plugins:\n"
    "    - name: spy_c\n"
    "      arguments: {tag: third, order: 1}\n"
    "queues: [{name: default}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}\n"
    "podGroups:\n"
    "  - {name: pg1, namespace: ns, queue: default, minMember: 1}\n"
    "  - {name: pg2, namespace: ns, queue: default, minMember: 1}\n"
    "pods:\n"
    "  - {name: p1, namespace: ns, podGroup: pg1, requests: {cpu: '1'}}\n"
    "  - {name: p2, namespace: ns, podGroup: pg2, requests: {cpu: '1'}}\n";

typedef pts fixture;

static int setup(void **state)
{
	static bool registered;
	static fixture f;
	spy_log[0] = '\0';
	if (!registered) {
		tph_diag d = {0};
		assert_int_equal(tph_plugins_register(&spy_a, &d), TPH_OK);
		assert_int_equal(tph_plugins_register(&spy_b, &d), TPH_OK);
		assert_int_equal(tph_plugins_register(&spy_c, &d), TPH_OK);
		registered = true;
	}
	pts_open(&f, scenario);
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	pts_free(*state);
	return 0;
}

static void test_open_order_and_arguments(void **state)
{
	(void)state;
	assert_string_equal(spy_log, "spy_a.open(tag=first,order=0);"
	                             "spy_b.open(tag=second,order=-1);"
	                             "spy_c.open(tag=third,order=1);");
}

static void test_disabled_flag_drops_registration(void **state)
{
	fixture *f = *state;
	spy_log[0] = '\0';
	/* spy_a abstains (0), spy_b is disabled for JobOrder, spy_c decides: a before b? c says 1.
	 */
	int r = tph_job_order(f->s, 0, 1);
	assert_true(r > 0);
	assert_string_equal(spy_log, "spy_a.job_order(0,1);spy_c.job_order(0,1);");
}

static void test_and_rule_calls_every_tier(void **state)
{
	fixture *f = *state;
	spy_log[0] = '\0';
	assert_true(tph_job_ready(f->s, 1));
	assert_string_equal(spy_log, "spy_a.job_ready(1);spy_b.job_ready(1);spy_c.job_ready(1);");
}

static void test_registration_outside_open_refused(void **state)
{
	fixture *f = *state;
	assert_int_not_equal(tph_on_job_order(f->s, spy_job_order), TPH_OK);
}

static void test_close_order_and_frozen(void **state)
{
	fixture *f = *state;
	spy_log[0] = '\0';
	assert_int_equal(tph_session_close(f->s, &f->d), TPH_OK);
	assert_string_equal(spy_log, "spy_a.close(register=frozen);spy_b.close(register=frozen);"
	                             "spy_c.close(register=frozen);");
}

static void test_free_without_close_closes_plugins(void **state)
{
	spy_log[0] = '\0';
	pts_free(*state); /* never closed: free must still run every on_session_close once */
	*state = NULL;
	assert_string_equal(spy_log, "spy_a.close(register=frozen);spy_b.close(register=frozen);"
	                             "spy_c.close(register=frozen);");
}

static int teardown_if_open(void **state)
{
	if (*state)
		pts_free(*state);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_open_order_and_arguments, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_disabled_flag_drops_registration, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_and_rule_calls_every_tier, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_registration_outside_open_refused, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_close_order_and_frozen, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_free_without_close_closes_plugins, setup,
	                                    teardown_if_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

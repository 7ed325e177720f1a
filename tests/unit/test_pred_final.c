/* Final reasons (plugin.h, tph_declare_final_reason) in allocate's kept verdicts: a spec's
 * verdict with a final reason is not asked again after a placement on its node; one with any
 * other reason is, and may change; a final reason of a plugin that is not the first with a
 * predicate is asked again. A spy predicate counts the calls per node for one pod spec. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "harness.h"

/* Spec A (the "a" pods, nodeSelector zone: z) fails n1 for a static reason, and n2 for a
 * dynamic one while n2 has 4 idle cpus or more; spec B passes everywhere. */
typedef struct fin_state {
	bool final; /* declare the static reason final */
	tph_reason_code r_static, r_dynamic;
} fin_state;

static uint32_t asked[2]; /* spec A's calls on n1, n2 */

static const tph_arg_spec fin_args[] = {
    {"final", TPH_ARG_BOOL, "false", 0, 0, offsetof(fin_state, final), "declare it final"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

static tph_reason_code fin_verdict(const fin_state *st, const tph_session *s, tph_idx node)
{
	bool n1 = !strcmp(tph_session_node_name(s, node), "n1");
	asked[n1 ? 0 : 1]++;
	if (n1)
		return st->r_static;
	return tph_session_node_idle(s, node, TPH_RES_CPU) >= 4000 ? st->r_dynamic : TPH_PASS;
}

static void fin_predicate(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                          uint32_t n, tph_reason_code *out)
{
	bool a = tph_session_task_name(s, task)[0] == 'a';
	for (uint32_t i = 0; i < n; i++)
		out[i] = a ? fin_verdict(stv, s, nodes[i]) : TPH_PASS;
}

static int fin_open(tph_session *s, void *stv, const tph_args *args)
{
	fin_state *st = stv;
	st->r_static = tph_reason(s, "fin: static", true);
	st->r_dynamic = tph_reason(s, "fin: dynamic", false);
	int rc = tph_declare_predicate_locality(s, TPH_PRED_SPEC_ONLY);
	if (!rc && st->final)
		rc = tph_declare_final_reason(s, st->r_static);
	return rc ? rc : tph_on_predicate(s, fin_predicate);
}

static const tph_plugin fin_plugin = {TPH_PLUGIN_ABI,    "finspy", fin_args,
                                      sizeof(fin_state), fin_open, NULL};

/* a1 fails both nodes and builds A's verdicts; b's two pods take a node each; a2 then finds
 * n2 passing (3 idle cpus), n1 still failing. */
static const char body[] =
    "queues: [{name: default}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '8', memory: 16Gi, pods: '10'}, labels: {zone: z}}\n"
    "  - {name: n2, allocatable: {cpu: '8', memory: 16Gi, pods: '10'}, labels: {zone: z}}\n"
    "podGroups:\n"
    "  - {name: a1, namespace: ns, queue: default, minMember: 1, phase: Inqueue,"
    " creationTimestamp: '2026-01-01T00:00:01Z'}\n"
    "  - {name: b, namespace: ns, queue: default, minMember: 1, phase: Inqueue,"
    " creationTimestamp: '2026-01-01T00:00:02Z'}\n"
    "  - {name: a2, namespace: ns, queue: default, minMember: 1, phase: Inqueue,"
    " creationTimestamp: '2026-01-01T00:00:03Z'}\n"
    "pods:\n"
    "  - {name: a1-0, namespace: ns, podGroup: a1, requests: {cpu: '1'},"
    " nodeSelector: {zone: z}}\n"
    "  - {name: b-0, namespace: ns, podGroup: b, requests: {cpu: '5'}}\n"
    "  - {name: b-1, namespace: ns, podGroup: b, requests: {cpu: '5'}}\n"
    "  - {name: a2-0, namespace: ns, podGroup: a2, requests: {cpu: '1'},"
    " nodeSelector: {zone: z}}\n";

/* Run the scenario with `plugins` (the tier's list, YAML at four spaces), naive or fast;
 * returns where a2-0 went ("" when pending). */
static const char *run(const char *plugins, bool naive, char *where, size_t cap)
{
	pts p;
	memset(asked, 0, sizeof asked);
	pts_run_tier(&p, plugins, body, naive);
	where[0] = '\0';
	for (uint32_t i = 0; i < p.log->n_binds; i++)
		if (!strcmp(p.log->binds[i].pod, "ns/a2-0"))
			snprintf(where, cap, "%s", p.log->binds[i].node);
	pts_free(&p);
	return where;
}

static const char fin_final[] = "    - name: finspy\n      arguments: {final: true}\n";
static const char fin_plain[] = "    - name: finspy\n";

/* n1's static failure is asked once (a1's whole build) when final, again after b's
 * placement there when not; n2's dynamic failure is asked again either way and turns to a
 * pass, so a2 goes there, as naive decides. */
static void test_final_kept(void **state)
{
	char fast[64], naive[64];
	run(fin_final, true, naive, sizeof naive);
	assert_string_equal(naive, "n2");
	run(fin_final, false, fast, sizeof fast);
	assert_string_equal(fast, "n2");
	assert_int_equal(asked[0], 1);
	assert_int_equal(asked[1], 2);
	run(fin_plain, false, fast, sizeof fast);
	assert_string_equal(fast, "n2");
	assert_int_equal(asked[0], 2);
	assert_int_equal(asked[1], 2);
}

/* Behind another predicate plugin, fin's final reason is asked again: the first plugin's pass
 * could turn into a failure with its own reason. */
static void test_final_not_first(void **state)
{
	char fast[64];
	char plugins[256];
	snprintf(plugins, sizeof plugins, "    - name: pts-pass\n%s", fin_final);
	run(plugins, false, fast, sizeof fast);
	assert_string_equal(fast, "n2");
	assert_int_equal(asked[0], 2);
}

static int setup(void **state)
{
	(void)state;
	return pts_register(&fin_plugin) || pts_register(pts_pass_plugin());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_final_kept),
	    cmocka_unit_test(test_final_not_first),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

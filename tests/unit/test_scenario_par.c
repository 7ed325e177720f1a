/* Unit tests for the parallel decoding of large sections (kernel/src/load/scenario_par.c): with
 * the threshold lowered, a load on two threads gives the same objects as a serial one, and
 * errors (first in item order, field errors and duplicates alike) and warnings (held by the
 * threads, given out in item order, none after an error) come out exactly as a serial load
 * gives them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/scenario_ld.h"
#include "tephra/tephra.h"

static int pods_n = 600; /* pods in a scenario() */

typedef struct warnings {
	char text[8192];
	unsigned n;
} warnings;

static void keep_warning(void *ud, const char *msg)
{
	warnings *w = ud;
	size_t at = strlen(w->text);
	snprintf(w->text + at, sizeof w->text - at, "%s\n", msg);
	w->n++;
}

/* Pods with every kind of field; `edit(i)` may replace pod i's line. */
static char *scenario(const char *(*edit)(int i))
{
	size_t cap = (size_t)pods_n * 600 + 4096, at = 0;
	char *t = malloc(cap);
	assert_non_null(t);
	at += (size_t)snprintf(t + at, cap - at,
	                       "nodes:\n  - {name: n0, allocatable: {cpu: \"64\"}}\n"
	                       "  - {name: n1, allocatable: {cpu: \"64\"}}\n"
	                       "podGroups:\n  - {name: g, namespace: ns0}\n"
	                       "  - {name: g, namespace: ns1}\npods:\n");
	for (int i = 0; i < pods_n; i++) {
		const char *line = edit ? edit(i) : NULL;
		if (line)
			at += (size_t)snprintf(t + at, cap - at, "%s\n", line);
		else
			at += (size_t)snprintf(
			    t + at, cap - at,
			    "  - {name: p%d, namespace: ns%d, podGroup: g, nodeName: n%d, "
			    "requests: {cpu: \"%dm\"}, labels: {app: a%d}, creationTimestamp: "
			    "\"2026-01-01T00:%02d:00Z\", tolerations: [{key: k, operator: "
			    "Exists}], "
			    "affinity: {nodeAffinity: "
			    "{requiredDuringSchedulingIgnoredDuringExecution: "
			    "{nodeSelectorTerms: [{matchExpressions: [{key: z, operator: In, "
			    "values: "
			    "[a, b]}]}]}}}%s}\n",
			    i, i % 2, i % 2, 100 + i, i % 5, i % 60,
			    i % 3 ? ""
			          : ", limits: {cpu: \"2\", x.io/g: \"1\"}, conditions: [{type: "
			            "PodScheduled, status: \"True\", reason: r}]");
	}
	return t;
}

typedef struct outcome {
	int rc;
	tph_diag d;
	warnings w;
	tph_scenario *s;
} outcome;

static void load(const char *text, int threads, outcome *o)
{
	memset(o, 0, sizeof *o);
	o->d.warn = keep_warning;
	o->d.warn_ud = &o->w;
	yu_split_threads = threads;
	o->rc = tph_scenario_load_buffer(text, strlen(text), "par.yaml", &o->s, &o->d);
	yu_split_threads = 0;
}

static void same_pods(const tph_scenario *a, const tph_scenario *b)
{
	assert_int_equal(a->n_pods, b->n_pods);
	for (uint32_t i = 0; i < a->n_pods; i++) {
		const tph_pod_desc *x = &a->pods[i].d, *y = &b->pods[i].d;
		assert_int_equal(a->pods[i].line, b->pods[i].line);
		assert_string_equal(x->name, y->name);
		assert_string_equal(x->namespace_, y->namespace_);
		assert_string_equal(x->uid, y->uid);
		assert_string_equal(x->node_name ? x->node_name : "-",
		                    y->node_name ? y->node_name : "-");
		assert_int_equal(x->creation, y->creation);
		assert_int_equal(x->requests.n, y->requests.n);
		assert_int_equal(x->labels.n, y->labels.n);
		for (uint32_t k = 0; k < x->labels.n; k++)
			assert_string_equal(x->labels.items[k].value, y->labels.items[k].value);
		assert_int_equal(x->n_tolerations, y->n_tolerations);
		assert_int_equal(x->limits.n, y->limits.n);
		for (uint32_t k = 0; k < x->limits.n; k++)
			assert_int_equal(x->limits.items[k].value, y->limits.items[k].value);
		assert_int_equal(x->n_conditions, y->n_conditions);
		for (uint32_t k = 0; k < x->n_conditions; k++)
			assert_string_equal(x->conditions[k].reason, y->conditions[k].reason);
		assert_int_equal(x->affinity != NULL, y->affinity != NULL);
		if (x->affinity)
			assert_int_equal(x->affinity->node_required[0].exprs[0].values.n,
			                 y->affinity->node_required[0].exprs[0].values.n);
	}
	assert_int_equal(a->n_podgroups, b->n_podgroups);
	for (uint32_t i = 0; i < a->n_podgroups; i++) {
		assert_string_equal(a->podgroups[i].d.name, b->podgroups[i].d.name);
		assert_string_equal(a->podgroups[i].d.uid, b->podgroups[i].d.uid);
		assert_int_equal(a->podgroups[i].d.min_member, b->podgroups[i].d.min_member);
	}
	assert_int_equal(a->now, b->now);
}

/* Serial and parallel loads of `text` agree; returns whether the parallel one ran. */
static bool check(const char *text)
{
	outcome s, p;
	load(text, 1, &s);
	unsigned long before = sc_par_done;
	load(text, 2, &p);
	assert_int_equal(s.rc, p.rc);
	assert_string_equal(s.d.msg, p.d.msg);
	assert_string_equal(s.w.text, p.w.text);
	if (s.rc == TPH_OK)
		same_pods(s.s, p.s);
	tph_scenario_free(s.s);
	tph_scenario_free(p.s);
	return sc_par_done > before;
}

static void test_same_objects(void **state)
{
	(void)state;
	char *t = scenario(NULL);
	assert_true(check(t));
	free(t);
}

static const char *late_error(int i)
{
	return i == 450 ? "  - {name: bad, requests: {cpu: abc}}" : NULL;
}

static const char *late_condition_error(int i)
{
	return i == 450 ? "  - {name: bad, conditions: [{type: Ready, status: Maybe}]}" : NULL;
}

static const char *duplicate_then_error(int i)
{
	return i == 300   ? "  - {name: p10, namespace: ns0}"
	       : i == 500 ? "  - {name: bad, requests: {cpu: abc}}"
	                  : NULL;
}

static const char *error_then_duplicate(int i)
{
	return i == 100   ? "  - {name: bad, phase: Sleeping}"
	       : i == 500 ? "  - {name: p10, namespace: ns0}"
	                  : NULL;
}

static const char *duplicate(int i)
{
	return i == 599 ? "  - {name: p2, namespace: ns0}" : NULL;
}

static const char *warnings_at(int i)
{
	static char line[64];
	snprintf(line, sizeof line, "  - {name: lonely%d, podGroup: nowhere}", i);
	return i == 20 || i == 590 ? line : NULL;
}

static const char *warning_duplicate_warning(int i)
{
	static char line[64];
	snprintf(line, sizeof line, "  - {name: lonely%d, podGroup: nowhere}", i);
	return i == 20 || i == 590 ? line : i == 300 ? "  - {name: p10, namespace: ns0}" : NULL;
}

static const char *missing_node(int i)
{
	return i == 350 ? "  - {name: lost, nodeName: n9}" : NULL;
}

static void test_same_errors(void **state)
{
	(void)state;
	const char *(*const edits[])(int) = {
	    late_error, late_condition_error, duplicate_then_error,     error_then_duplicate,
	    duplicate,  missing_node,         warning_duplicate_warning};
	for (size_t e = 0; e < sizeof edits / sizeof edits[0]; e++) {
		char *t = scenario(edits[e]);
		bool parallel = check(t);
		/* only names clash after a parallel decode */
		assert_true(parallel ==
		            (edits[e] == duplicate || edits[e] == warning_duplicate_warning));
		outcome o;
		load(t, 2, &o);
		assert_int_not_equal(o.rc, TPH_OK);
		if (edits[e] == warning_duplicate_warning) /* the one after the error never comes */
			assert_int_equal(o.w.n, 1);
		free(t);
	}
}

static const char *many_warnings(int i)
{
	static char line[64];
	snprintf(line, sizeof line, "  - {name: lonely%d, podGroup: nowhere}", i);
	return i % 97 == 5 ? line : NULL;
}

/* Enough items that both threads hold warnings, interleaved by blocks. */
static void test_many_warnings(void **state)
{
	(void)state;
	pods_n = 8000;
	char *t = scenario(many_warnings);
	assert_true(check(t));
	free(t);
	pods_n = 600;
}

static void test_same_warnings(void **state)
{
	(void)state;
	char *t = scenario(warnings_at);
	outcome o;
	assert_true(check(t)); /* held and given out in order, not a reason to decline */
	load(t, 2, &o);
	assert_int_equal(o.rc, TPH_OK);
	assert_int_equal(o.w.n, 2);
	assert_true(strncmp(o.w.text, "par.yaml:28:", 12) == 0); /* item 20 first */
	tph_scenario_free(o.s);
	free(t);
}

/* Podgroups decode in parallel too; `dup` repeats podgroup 3 at item `dup` (0: none). */
static char *podgroups(int dup)
{
	size_t cap = 200 * 120 + 64, at = 0;
	char *t = malloc(cap);
	assert_non_null(t);
	at += (size_t)snprintf(t + at, cap - at, "podGroups:\n");
	for (int i = 0; i < 200; i++)
		at += (size_t)snprintf(t + at, cap - at,
		                       "  - {name: g%d, namespace: ns, minMember: %d, "
		                       "creationTimestamp: \"2026-01-01T00:00:%02dZ\"}\n",
		                       dup && i == dup ? 3 : i, 1 + i % 9, i % 60);
	return t;
}

static void test_podgroups(void **state)
{
	(void)state;
	char *t = podgroups(0);
	assert_true(check(t));
	free(t);
	t = podgroups(150);
	assert_true(check(t)); /* decoded in parallel; the duplicate found in order after */
	outcome o;
	load(t, 2, &o);
	assert_int_equal(o.rc, TPH_EEXIST);
	assert_non_null(strstr(o.d.msg, "duplicate podGroup ns/g3"));
	free(t);
}

int main(void)
{
	sc_par_min_items = 64;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_objects),  cmocka_unit_test(test_same_errors),
	    cmocka_unit_test(test_same_warnings), cmocka_unit_test(test_many_warnings),
	    cmocka_unit_test(test_podgroups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

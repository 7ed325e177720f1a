/* Pod-count passes (plugin.h, tph_declare_pass_pods) in allocate's kept verdicts: a spec's pass
 * on a node is not asked again after a placement there while the node's count stays below its
 * limit, and is asked again at the limit; a plugin that does not declare it, whose callback
 * says no, or that sits behind another predicate plugin is asked every time. A spy predicate
 * counts the calls per node for one pod spec and keeps its own pod count per node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "harness.h"

/* Spec A (the "a" pods) passes a node while the spy's count there is below its limit (n1:
 * `limit`, n2: 100), and with `empty`, fails n2 while it holds no pod; every other spec passes
 * everywhere. */
typedef struct pods_state {
	bool declare, promise; /* declare the columns; what the callback answers */
	bool empty;
	int64_t limit;
	uint32_t *count; /* [node] pods the spy saw allocated */
	int64_t *lim;    /* [node] */
	tph_idx *where;  /* [task] the node its allocation counted on */
	tph_reason_code r_full, r_empty;
} pods_state;

static uint32_t asked[2]; /* spec A's calls on n1, n2 */

static const tph_arg_spec pods_args[] = {
    {"declare", TPH_ARG_BOOL, "true", 0, 0, offsetof(pods_state, declare), NULL},
    {"promise", TPH_ARG_BOOL, "true", 0, 0, offsetof(pods_state, promise), NULL},
    {"limit", TPH_ARG_INT, "5", 0, 1000, offsetof(pods_state, limit), NULL},
    {"empty", TPH_ARG_BOOL, "false", 0, 0, offsetof(pods_state, empty), NULL},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

static bool is_n1(const tph_session *s, tph_idx node)
{
	return !strcmp(tph_session_node_name(s, node), "n1");
}

static void pods_predicate(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                           uint32_t n, tph_reason_code *out)
{
	const pods_state *st = stv;
	bool a = tph_session_task_name(s, task)[0] == 'a';
	for (uint32_t i = 0; i < n; i++) {
		tph_idx x = nodes[i];
		bool n1 = is_n1(s, x);
		out[i] = TPH_PASS;
		if (!a)
			continue;
		asked[n1 ? 0 : 1]++;
		if (st->count[x] >= st->lim[x])
			out[i] = st->r_full;
		else if (st->empty && !n1 && !st->count[x])
			out[i] = st->r_empty;
	}
}

static bool pods_promise(void *stv, const tph_session *s, tph_idx task)
{
	(void)s, (void)task;
	return ((const pods_state *)stv)->promise;
}

static int pods_alloc(void *stv, tph_session *s, tph_idx task)
{
	pods_state *st = stv;
	if (st->where[task] != TPH_NOIDX)
		st->count[st->where[task]]--;
	st->where[task] = tph_view_of(s)->tasks->node[task];
	if (st->where[task] != TPH_NOIDX)
		st->count[st->where[task]]++;
	return TPH_OK;
}

static int pods_dealloc(void *stv, tph_session *s, tph_idx task)
{
	pods_state *st = stv;
	(void)s;
	if (st->where[task] != TPH_NOIDX)
		st->count[st->where[task]]--;
	st->where[task] = TPH_NOIDX;
	return TPH_OK;
}

static int pods_open(tph_session *s, void *stv, const tph_args *args)
{
	pods_state *st = stv;
	uint32_t n = tph_view_of(s)->nodes->n, nt = tph_view_of(s)->tasks->n;
	st->count = TPH_SESSION_NEW(s, uint32_t, n);
	st->lim = TPH_SESSION_NEW(s, int64_t, n);
	st->where = TPH_SESSION_NEW(s, tph_idx, nt + 1);
	if (!st->count || !st->lim || !st->where)
		return TPH_ENOMEM;
	for (tph_idx x = 0; x < n; x++)
		st->lim[x] = is_n1(s, x) ? st->limit : 100;
	for (tph_idx t = 0; t < nt; t++)
		st->where[t] = tph_view_of(s)->tasks->node[t];
	st->r_full = tph_reason(s, "pods: full", false);
	st->r_empty = tph_reason(s, "pods: empty", false);
	int rc = tph_declare_predicate_locality(s, TPH_PRED_SPEC_ONLY);
	if (!rc && st->declare)
		rc = tph_declare_pass_pods(s, pods_promise, st->count, st->lim);
	if (!rc)
		rc = tph_on_task_events(s, pods_alloc, pods_dealloc);
	return rc ? rc : tph_on_predicate(s, pods_predicate);
}

static const tph_plugin pods_plugin = {TPH_PLUGIN_ABI,     "podsspy", pods_args,
                                       sizeof(pods_state), pods_open, NULL};

/* Three jobs of spec A that only n1 fits (n2 has 1 cpu), one after the other. */
static const char body[] =
    "queues: [{name: default}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: '8', memory: 16Gi, pods: '10'}}\n"
    "  - {name: n2, allocatable: {cpu: '1', memory: 16Gi, pods: '10'}}\n"
    "podGroups:\n"
    "  - {name: a1, namespace: ns, queue: default, minMember: 1, phase: Inqueue,"
    " creationTimestamp: '2026-01-01T00:00:01Z'}\n"
    "  - {name: a2, namespace: ns, queue: default, minMember: 1, phase: Inqueue,"
    " creationTimestamp: '2026-01-01T00:00:02Z'}\n"
    "  - {name: a3, namespace: ns, queue: default, minMember: 1, phase: Inqueue,"
    " creationTimestamp: '2026-01-01T00:00:03Z'}\n"
    "pods:\n"
    "  - {name: a1-0, namespace: ns, podGroup: a1, requests: {cpu: '2'}}\n"
    "  - {name: a2-0, namespace: ns, podGroup: a2, requests: {cpu: '2'}}\n"
    "  - {name: a3-0, namespace: ns, podGroup: a3, requests: {cpu: '2'}}\n";

/* a1-0 takes n1 (A fails the empty n2); b-0, of another spec, fits only n2 then; a2-0 finds
 * n2 passing. */
static const char body_empty[] =
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
    "  - {name: a1-0, namespace: ns, podGroup: a1, requests: {cpu: '2'},"
    " nodeSelector: {zone: z}}\n"
    "  - {name: b-0, namespace: ns, podGroup: b, requests: {cpu: '7'}}\n"
    "  - {name: a2-0, namespace: ns, podGroup: a2, requests: {cpu: '1'},"
    " nodeSelector: {zone: z}}\n";

/* Run `body` with `plugins` (the tier's list, YAML at four spaces), naive or fast; the binds
 * go into where as "pod=node;" in the log's order. */
static const char *run_body(const char *scen, const char *plugins, bool naive, char *where,
                            size_t cap)
{
	pts p;
	memset(asked, 0, sizeof asked);
	pts_run_tier(&p, plugins, scen, naive);
	size_t len = 0;
	where[0] = '\0';
	for (uint32_t i = 0; i < p.log->n_binds && len < cap; i++)
		len += (size_t)snprintf(where + len, cap - len, "%s=%s;", p.log->binds[i].pod,
		                        p.log->binds[i].node);
	pts_free(&p);
	return where;
}

static const char *run(const char *plugins, bool naive, char *where, size_t cap)
{
	return run_body(body, plugins, naive, where, cap);
}

static const char spy_far[] = "    - name: podsspy\n";
static const char spy_near[] = "    - name: podsspy\n      arguments: {limit: 2}\n";
static const char spy_plain[] = "    - name: podsspy\n      arguments: {declare: false}\n";
static const char spy_no[] = "    - name: podsspy\n      arguments: {promise: false}\n";

/* Far from the limit, n1's pass is asked once (a1's whole build) when declared; three times
 * (the build, then after a1's and a2's placements) when not declared or when the callback
 * says no. The decisions are naive's either way. */
static void test_pass_kept(void **state)
{
	char fast[256], naive[256];
	run(spy_far, true, naive, sizeof naive);
	assert_string_equal(naive, "ns/a1-0=n1;ns/a2-0=n1;ns/a3-0=n1;");
	run(spy_far, false, fast, sizeof fast);
	assert_string_equal(fast, naive);
	assert_int_equal(asked[0], 1);
	const char *asked_each[] = {spy_plain, spy_no};
	for (int i = 0; i < 2; i++) {
		run(asked_each[i], false, fast, sizeof fast);
		assert_string_equal(fast, naive);
		assert_int_equal(asked[0], 3);
	}
}

/* At the limit (two pods on n1) the pass is asked again and fails: a3 stays pending, as naive
 * decides; n1 was asked by the build and by a3, not by a2. */
static void test_pass_at_limit(void **state)
{
	char fast[256], naive[256];
	run(spy_near, true, naive, sizeof naive);
	assert_string_equal(naive, "ns/a1-0=n1;ns/a2-0=n1;");
	run(spy_near, false, fast, sizeof fast);
	assert_string_equal(fast, naive);
	assert_int_equal(asked[0], 2);
}

/* Behind another predicate plugin the spy's pass is asked again: a pass is both plugins'. */
static void test_pass_not_sole(void **state)
{
	char fast[256], plugins[256];
	snprintf(plugins, sizeof plugins, "    - name: pts-pass\n%s", spy_far);
	run(plugins, false, fast, sizeof fast);
	assert_string_equal(fast, "ns/a1-0=n1;ns/a2-0=n1;ns/a3-0=n1;");
	assert_int_equal(asked[0], 3);
}

/* A failure that is not the pod count is asked again when its node is logged, though every
 * node logged is below its limit: n2 after b-0's placement, where A now passes. */
static void test_failure_asked(void **state)
{
	char fast[256], naive[256];
	static const char spy[] = "    - name: podsspy\n      arguments: {empty: true}\n";
	run_body(body_empty, spy, true, naive, sizeof naive);
	assert_non_null(strstr(naive, "ns/a1-0=n1;ns/b-0=n2;ns/a2-0="));
	run_body(body_empty, spy, false, fast, sizeof fast);
	assert_string_equal(fast, naive);
	assert_int_equal(asked[0], 1); /* n1: a1's build only, a pass below the limit */
	assert_int_equal(asked[1], 2); /* n2: the build, then after b-0 */
}

static int setup(void **state)
{
	(void)state;
	return pts_register(&pods_plugin) || pts_register(pts_pass_plugin());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pass_kept),
	    cmocka_unit_test(test_pass_at_limit),
	    cmocka_unit_test(test_pass_not_sole),
	    cmocka_unit_test(test_failure_asked),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

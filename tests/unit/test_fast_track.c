/* allocate's fast path and the per-role error cache (session/fitlog.h) when a node that failed
 * a task of (job, role) passes later in the job's pass. With the built-in predicates that never
 * happens in allocate (the fit only shrinks, host ports and pod slots only fill up), but the
 * plugin contract allows it: a TPH_PRED_SPEC_ONLY verdict may read per-node state that a
 * placement on the node changes (plugin.h). A spy plugin fails a node holding an odd number of
 * tasks, unless the pod tolerates anything. Role r1's picks read the node types (nodeorder
 * scores the request row only), so its tracker learns of the move from the spec's column
 * (af_track_moved in af_pred_sync) and its picks must leave the node out (open_for and
 * tracked_scan in allocate_fast_type.c), as Volcano's cache does. With network-topology-aware
 * scoring and the job held to one hypernode, the picks come from the roles' head shapes
 * (allocate_hn_pick.c), whose verdicts are the row's and spec's too (af_head_bare). With a
 * preferred node affinity, r1's scores are ANCHORED and its shape keeps no verdicts either: its
 * tracker follows the row and spec the same way (af_shared_verdicts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

typedef struct par_st {
	tph_reason_code odd;
} par_st;

static void par_predicate(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                          uint32_t n, tph_reason_code *out)
{
	const par_st *st = stv;
	const tph_view *v = tph_view_of(s);
	bool any = v->tasks->spec[task]->n_tolerations > 0;
	for (uint32_t i = 0; i < n; i++)
		out[i] = any || v->nodes->ntasks[nodes[i]] % 2 == 0 ? TPH_PASS : st->odd;
}

static int par_open(tph_session *s, void *stv, const tph_args *args)
{
	par_st *st = stv;
	(void)args;
	st->odd = tph_reason(s, "node(s) hold an odd number of tasks", false);
	int rc = tph_on_predicate(s, par_predicate);
	return rc ? rc : tph_declare_predicate_locality(s, TPH_PRED_SPEC_ONLY);
}

static const tph_plugin par_plugin = {
    TPH_PLUGIN_ABI, "parity", NULL, sizeof(par_st), par_open, NULL,
};

#define NODES 40u /* node types are kept only with 16 positions or more a type */

/* n0 holds one task and is the roomiest. r1-0 finds n0 odd and takes another node; r2-0
 * tolerates anything and takes n0, which turns even. For r1-1, n0 passes now and would score
 * best, but the role's cache holds it failed: r1-1 must go elsewhere, even when an earlier
 * preemption nominated n0 for it (`nominate`). With `topo`, every node lies in one hypernode
 * to which the job is held, and network-topology-aware scores last (the head shapes' tail).
 * With `anch`, r1 prefers the nodes labelled zone a (n0 and every even node). */
static const char *scenario(bool nominate, bool topo, bool anch)
{
	static char buf[8192];
	size_t n = (size_t)snprintf(
	    buf, sizeof buf,
	    "name: parity\n"
	    "conf: |\n  actions: \"enqueue, allocate\"\n  tiers:\n  - plugins:\n"
	    "    - name: priority\n    - name: gang\n  - plugins:\n    - name: parity\n"
	    "    - name: nodeorder\n%s"
	    "priorityClasses: [{name: p100, value: 100}, {name: p90, value: 90}, "
	    "{name: p80, value: 80}]\n"
	    "queues: [{name: default}]\nnodes:\n",
	    topo ? "    - name: network-topology-aware\n      enableNodeOrder: true\n" : "");
	for (uint32_t i = 0; i < NODES; i++)
		n +=
		    (size_t)snprintf(buf + n, sizeof buf - n,
		                     "  - {name: n%u, labels: {zone: %s}, allocatable: {cpu: '%u', "
		                     "memory: 32Gi, pods: '110'}}\n",
		                     i, i % 2 ? "b" : "a", i ? 4 : 16);
	if (topo) {
		n += (size_t)snprintf(buf + n, sizeof buf - n,
		                      "hyperNodes:\n  - {name: h0, tier: 1, members: [");
		for (uint32_t i = 0; i < NODES; i++)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "%sn%u", i ? ", " : "", i);
		n += (size_t)snprintf(buf + n, sizeof buf - n, "]}\n");
	}
	const char *prefer =
	    anch ? ", affinity: {nodeAffinity: "
	           "{preferredDuringSchedulingIgnoredDuringExecution: [{weight: 10, "
	           "preference: {matchExpressions: [{key: zone, operator: In, "
	           "values: [a]}]}}]}}"
	         : "";
	n += (size_t)snprintf(
	    buf + n, sizeof buf - n,
	    "podGroups:\n  - {name: pg, namespace: ns, minMember: 3, phase: Inqueue%s}\n"
	    "pods:\n"
	    "  - {name: old, namespace: kube, phase: Running, nodeName: n0, requests: {cpu: '1'}}\n"
	    "  - {name: r1-0, namespace: ns, podGroup: pg, taskSpec: r1, priorityClassName: p100,"
	    " requests: {cpu: '1', memory: 1Gi}%s}\n"
	    "  - {name: r2-0, namespace: ns, podGroup: pg, taskSpec: r2, priorityClassName: p90,"
	    " requests: {cpu: '1', memory: 1Gi}, tolerations: [{operator: Exists}]}\n"
	    "  - {name: r1-1, namespace: ns, podGroup: pg, taskSpec: r1, priorityClassName: p80,"
	    " requests: {cpu: '1', memory: 1Gi}%s%s}\n",
	    topo ? ", networkTopology: {mode: hard, highestTierAllowed: 1}" : "", prefer, prefer,
	    nominate ? ", nominatedNodeName: n0" : "");
	assert_true(n < sizeof buf);
	return buf;
}

static char *decisions(bool nominate, bool topo, bool anch, bool naive, int threads)
{
	pts p;
	tph_session_opts o = {.threads = threads, .naive = naive};
	pts_open_with(&p, scenario(nominate, topo, anch), &o);
	pts_run(&p);
	assert_int_equal(p.log->n_binds, 3);
	char *text = pts_log_text(p.log);
	pts_free(&p);
	return text;
}

static int setup(void **state)
{
	(void)state;
	return pts_register(&par_plugin);
}

/* The cached failure outlives the node's move: naive, and fast at 1 and 2 threads. */
static void cached_node_left_out(bool nominate, bool topo, bool anch)
{
	char *naive = decisions(nominate, topo, anch, true, 1),
	     *fast = decisions(nominate, topo, anch, false, 1),
	     *two = decisions(nominate, topo, anch, false, 2);
	assert_non_null(strstr(naive, "bind ns/r2-0 n0\n"));
	assert_null(strstr(naive, "bind ns/r1-1 n0\n"));
	assert_string_equal(naive, fast);
	assert_string_equal(fast, two);
	free(naive);
	free(fast);
	free(two);
}

static void test_cached_node_left_out(void **state)
{
	(void)state;
	cached_node_left_out(false, false, false);
}

/* The nominated node is taken first only when the role's cache does not hold it failed
 * (allocate_fast.c's nominated, reading the tracker's code). */
static void test_cached_nominated_node_left_out(void **state)
{
	(void)state;
	cached_node_left_out(true, false, false);
}

/* The same picks inside a hypernode, from the roles' head shapes: their trackers follow the
 * spec's column as the type-serving shapes' do (af_track_moved). */
static void test_cached_node_left_out_in_hypernode(void **state)
{
	(void)state;
	cached_node_left_out(false, true, false);
}

/* The same with ANCHORED scores: the shape keeps no verdicts, its tracker follows the spec's
 * column (af_track_moved) and holds n0 failed, so r1-1's pick declines (mask) and the normal
 * path reads the role's cache. */
static void test_cached_node_left_out_anchored(void **state)
{
	(void)state;
	cached_node_left_out(false, false, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cached_node_left_out),
	    cmocka_unit_test(test_cached_nominated_node_left_out),
	    cmocka_unit_test(test_cached_node_left_out_in_hypernode),
	    cmocka_unit_test(test_cached_node_left_out_anchored),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

/* Unit tests for plugins/lib/k8s_view.c: one NodeInfo view per session, shared by predicates and
 * nodeorder (built once, same columns), kept current by predicates' handlers only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "nodeorder/nodeorder.h"
#include "predicates/predicates.h"
#include "harness.h"
#include "session/statement.h"

#define HEAD(plugins)                                                                         \
	"conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n" plugins "queues: [{name: q1}]\n" \
	"nodes:\n"                                                                            \
	"  - {name: n1, allocatable: {cpu: '8', memory: 8Gi, pods: '10'}}\n"                  \
	"  - {name: n2, allocatable: {cpu: '8', memory: 8Gi, pods: '10'}}\n"                  \
	"podGroups: [{name: pg, namespace: c1, queue: q1}]\n"                                 \
	"pods:\n"                                                                             \
	"  - {name: r, namespace: c1, podGroup: pg, phase: Running, nodeName: n1,"            \
	" requests: {cpu: '2'}}\n"                                                            \
	"  - {name: p, namespace: c1, podGroup: pg, requests: {cpu: '1'}}\n"

static void *state_of(const pts *p, const char *plugin)
{
	for (uint32_t i = 0; i < p->s->n_plugins; i++)
		if (!strcmp(p->s->plugins[i].desc->name, plugin))
			return p->s->plugins[i].st;
	fail_msg("no plugin %s", plugin);
	abort();
}

static tph_k8s_view *shared_view(const pts *p)
{
	void *v = NULL;
	assert_int_equal(tph_session_shared(p->s, "k8s.nodeinfo", 0, NULL, &v), TPH_OK);
	return v;
}

static void test_one_view_both_plugins(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HEAD("    - name: predicates\n    - name: nodeorder\n"));
	const pred_st *ps = state_of(&p, "predicates");
	const no_st *ns = state_of(&p, "nodeorder");
	const tph_k8s_view *v = shared_view(&p);
	/* the same columns: one build, half the memory */
	assert_ptr_equal(ps->v->sum, v->sum);
	assert_ptr_equal(ns->v->sum, v->sum);
	assert_ptr_equal(ns->v->head, ps->v->head);
	assert_ptr_equal(ns->v->topo.dom, ps->v->topo.dom);
	tph_idx n1 = pts_node(&p, "n1"), n2 = pts_node(&p, "n2");
	assert_int_equal(ns->v->npods[n1], 1);
	assert_int_equal(ns->v->sum[TPH_KV_CPU * ns->v->n_nodes + n1], 2000);
	/* predicates' handlers keep it current; nodeorder reads the same columns */
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/p"), n2), TPH_OK);
	assert_int_equal(ns->v->npods[n2], 1);
	assert_int_equal(ns->v->sum[TPH_KV_CPU * ns->v->n_nodes + n2], 1000);
	assert_int_equal(ps->v->at[pts_task(&p, "c1/p")], n2);
	tph_stmt_discard(&st);
	assert_int_equal(ns->v->npods[n2], 0);
	assert_int_equal(ns->v->sum[TPH_KV_CPU * ns->v->n_nodes + n2], 0);
	pts_free(&p);
}

static void test_static_without_predicates(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HEAD("    - name: nodeorder\n"));
	const no_st *ns = state_of(&p, "nodeorder");
	assert_ptr_equal(ns->v->sum, shared_view(&p)->sum);
	tph_idx n2 = pts_node(&p, "n2");
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/p"), n2), TPH_OK);
	assert_int_equal(ns->v->npods[n2], 0); /* nobody updates it, as in Volcano */
	tph_stmt_discard(&st);
	pts_free(&p);
}

static void test_spec_maxima(void **state)
{
	(void)state;
	pts p;
	pts_open(
	    &p,
	    HEAD(
	        "    - name: predicates\n    - name: nodeorder\n") "  - name: s\n    namespace: "
	                                                           "c1\n    podGroup: pg\n    "
	                                                           "labels: {app: a}\n"
	                                                           "    affinity:\n      "
	                                                           "podAntiAffinity: "
	                                                           "{requiredDuringSchedulingIgnore"
	                                                           "dDuringExecution:"
	                                                           " [{labelSelector: "
	                                                           "{matchLabels: {app: a}}, "
	                                                           "topologyKey: zone},"
	                                                           " {labelSelector: {matchLabels: "
	                                                           "{app: b}}, topologyKey: "
	                                                           "zone}]}\n"
	                                                           "    topologySpreadConstraints: "
	                                                           "[{maxSkew: 1, topologyKey: "
	                                                           "zone,"
	                                                           " whenUnsatisfiable: "
	                                                           "DoNotSchedule, labelSelector: "
	                                                           "{matchLabels: {app: a}}},"
	                                                           " {maxSkew: 1, topologyKey: "
	                                                           "kubernetes.io/hostname,"
	                                                           " whenUnsatisfiable: "
	                                                           "ScheduleAnyway, labelSelector: "
	                                                           "{matchLabels: {app: a}}},"
	                                                           " {maxSkew: 2, topologyKey: "
	                                                           "zone,"
	                                                           " whenUnsatisfiable: "
	                                                           "ScheduleAnyway, labelSelector: "
	                                                           "{matchLabels: {app: a}}}]\n");
	const tph_k8s_view *v = shared_view(&p);
	assert_int_equal(v->max_pod_required, 0);
	assert_int_equal(v->max_anti_required, 2);
	assert_int_equal(v->max_spread, 3);
	assert_int_equal(v->max_soft_spread, 2);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_view_both_plugins),
	    cmocka_unit_test(test_static_without_predicates),
	    cmocka_unit_test(test_spec_maxima),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

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
	assert_ptr_equal(ps->v->line, v->line);
	assert_ptr_equal(ns->v->line, v->line);
	assert_ptr_equal(ns->v->head, ps->v->head);
	assert_ptr_equal(ns->v->topo.dom, ps->v->topo.dom);
	tph_idx n1 = pts_node(&p, "n1"), n2 = pts_node(&p, "n2");
	assert_int_equal(ns->v->npods[n1], 1);
	assert_int_equal(tph_k8s_sum(ns->v, n1, TPH_KV_CPU), 2000);
	/* predicates' handlers keep it current; nodeorder reads the same columns */
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/p"), n2), TPH_OK);
	assert_int_equal(ns->v->npods[n2], 1);
	assert_int_equal(tph_k8s_sum(ns->v, n2, TPH_KV_CPU), 1000);
	assert_int_equal(ps->v->at[pts_task(&p, "c1/p")], n2);
	tph_stmt_discard(&st);
	assert_int_equal(ns->v->npods[n2], 0);
	assert_int_equal(tph_k8s_sum(ns->v, n2, TPH_KV_CPU), 0);
	pts_free(&p);
}

static void test_static_without_predicates(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HEAD("    - name: nodeorder\n"));
	const no_st *ns = state_of(&p, "nodeorder");
	assert_ptr_equal(ns->v->line, shared_view(&p)->line);
	tph_idx n2 = pts_node(&p, "n2");
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/p"), n2), TPH_OK);
	assert_int_equal(ns->v->npods[n2], 0); /* nobody updates it, as in Volcano */
	tph_stmt_discard(&st);
	pts_free(&p);
}

/* Each node's line against its sums recomputed from the tasks the view holds, and against the
 * node store's allocatable. */
static void expect_lines(const pts *p, const tph_k8s_view *v)
{
	const tph_session *s = p->s;
	const tph_node_store *ns = tph_view_of(s)->nodes;
	for (tph_idx n = 0; n < v->n_nodes; n++) {
		int64_t want[TPH_KV_COUNT] = {0};
		for (tph_idx t = 0; t < v->n_tasks; t++) {
			if (v->at[t] != n)
				continue;
			const int64_t *req =
			    tph_view_of(s)->tasks->req + (size_t)t * tph_view_of(s)->ndim;
			want[TPH_KV_CPU] += req[TPH_RES_CPU];
			want[TPH_KV_MEM] += req[TPH_RES_MEMORY];
			want[TPH_KV_NZ_CPU] += tph_k8s_nonzero(s, t)[0];
			want[TPH_KV_NZ_MEM] += tph_k8s_nonzero(s, t)[1];
			want[TPH_KV_GPU] += tph_k8s_value(req[v->gpu_dim]);
		}
		for (uint32_t k = 0; k < TPH_KV_COUNT; k++)
			assert_int_equal(tph_k8s_sum(v, n, k), want[k]);
		assert_int_equal(v->line[n].cap_cpu, ns->alloc[TPH_RES_CPU * ns->stride + n]);
		assert_int_equal(v->line[n].cap_mem, ns->alloc[TPH_RES_MEMORY * ns->stride + n]);
		assert_int_equal(v->line[n].cap_gpu,
		                 ns->alloc[(size_t)v->gpu_dim * ns->stride + n]);
	}
}

#define LINES                                                                                    \
	"conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: predicates\n"             \
	"    - name: nodeorder\n"                                                                \
	"queues: [{name: q1}]\n"                                                                 \
	"nodes:\n"                                                                               \
	"  - {name: n1, allocatable: {cpu: '8', memory: 8Gi, pods: '10'}}\n"                     \
	"  - {name: n2, allocatable: {cpu: '16', memory: 4Gi, pods: '10', nvidia.com/gpu: 4}}\n" \
	"podGroups: [{name: pg, namespace: c1, queue: q1}]\n"                                    \
	"pods:\n"                                                                                \
	"  - {name: r, namespace: c1, podGroup: pg, phase: Running, nodeName: n1,"               \
	" requests: {cpu: '2'}}\n"                                                               \
	"  - {name: g, namespace: c1, podGroup: pg, phase: Running, nodeName: n2,"               \
	" requests: {cpu: 500m, memory: 1Gi, nvidia.com/gpu: 2}}\n"                              \
	"  - {name: p, namespace: c1, podGroup: pg, requests: {cpu: '1'}}\n"                     \
	"  - {name: q, namespace: c1, podGroup: pg, requests: {memory: 1Gi}}\n"                  \
	"  - {name: e, namespace: c1, podGroup: pg}\n"

/* The lines after open, adds, a discarded statement, an eviction and a commit. */
static void test_lines_follow_the_tasks(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, LINES);
	const tph_k8s_view *v = shared_view(&p);
	assert_int_not_equal(v->gpu_dim, TPH_NOIDX);
	tph_idx n1 = pts_node(&p, "n1"), n2 = pts_node(&p, "n2");
	expect_lines(&p, v);
	assert_int_equal(tph_k8s_sum(v, n2, TPH_KV_GPU), 2);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/p"), n2), TPH_OK);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/q"), n2), TPH_OK);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/e"), n1), TPH_OK);
	expect_lines(&p, v);
	assert_int_equal(tph_k8s_sum(v, n1, TPH_KV_NZ_CPU), 2000 + 100);
	tph_stmt_discard(&st);
	expect_lines(&p, v);
	assert_int_equal(tph_k8s_sum(v, n1, TPH_KV_NZ_CPU), 2000);
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_evict(&st, pts_task(&p, "c1/g"), "test"), TPH_OK);
	expect_lines(&p, v);
	assert_int_equal(tph_k8s_sum(v, n2, TPH_KV_GPU), 0);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/q"), n1), TPH_OK);
	assert_int_equal(tph_stmt_commit(&st), TPH_OK);
	expect_lines(&p, v);
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

/* The open-time lists: nodes holding a pod with any pod (anti-)affinity, and nodes holding one
 * with required anti-affinity; a pod that is not held (pending) lists no node. */
static void test_open_affinity_lists(void **state)
{
	(void)state;
	pts p;
	pts_open(
	    &p,
	    HEAD("    - name: predicates\n") ""
	                                     "  - {name: a, namespace: c1, podGroup: pg, phase: "
	                                     "Running, nodeName: n1,"
	                                     " labels: {app: a}, affinity: {podAffinity:"
	                                     " {preferredDuringSchedulingIgnoredDuringExecution: "
	                                     "[{weight: 1,"
	                                     " podAffinityTerm: {labelSelector: {matchLabels: "
	                                     "{app: a}},"
	                                     " topologyKey: zone}}]}}}\n"
	                                     "  - {name: b, namespace: c1, podGroup: pg, phase: "
	                                     "Running, nodeName: n2,"
	                                     " labels: {app: b}, affinity: {podAntiAffinity:"
	                                     " {requiredDuringSchedulingIgnoredDuringExecution: "
	                                     "[{labelSelector:"
	                                     " {matchLabels: {app: a}}, topologyKey: zone}]}}}\n"
	                                     "  - {name: c, namespace: c1, podGroup: pg, labels: "
	                                     "{app: c},"
	                                     " affinity: {podAntiAffinity:"
	                                     " {requiredDuringSchedulingIgnoredDuringExecution: "
	                                     "[{labelSelector:"
	                                     " {matchLabels: {app: a}}, topologyKey: zone}]}}}\n");
	const tph_k8s_view *v = shared_view(&p);
	tph_idx n1 = pts_node(&p, "n1"), n2 = pts_node(&p, "n2");
	assert_int_equal(v->n_aff_nodes, 2);
	assert_int_equal(v->aff_nodes[0], n1 < n2 ? n1 : n2);
	assert_int_equal(v->aff_nodes[1], n1 < n2 ? n2 : n1);
	assert_int_equal(v->n_anti_nodes, 1);
	assert_int_equal(v->anti_nodes[0], n2);
	assert_int_equal(v->npods[n1], 2); /* r and a */
	assert_int_equal(v->npods[n2], 1);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_view_both_plugins),
	    cmocka_unit_test(test_static_without_predicates),
	    cmocka_unit_test(test_lines_follow_the_tasks),
	    cmocka_unit_test(test_spec_maxima),
	    cmocka_unit_test(test_open_affinity_lists),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for plugins/nodeorder/nodeorder.c, nodeorder_pod.c and nodeorder_image.c: each
 * kube-scheduler scorer with its 0..100 normalisation worked out by hand, the default weights,
 * ImageLocality over the images Volcano's cache summarised, and the view that follows
 * allocations only when predicates runs in the session (as Volcano's shared NodeMap). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "harness.h"
#include "session/statement.h"

/* nodeorder with these weights (least, most, balanced, node affinity, pod affinity, taint,
 * spread) and ImageLocality off. */
#define W(l, m, b, na, pa, t, sp)                                                    \
	"    - name: nodeorder\n"                                                    \
	"      arguments: {leastrequested.weight: " #l ", mostrequested.weight: " #m \
	", balancedresource.weight: " #b ", nodeaffinity.weight: " #na               \
	", podaffinity.weight: " #pa ", tainttoleration.weight: " #t                 \
	", imagelocality.weight: 0, podtopologyspread.weight: " #sp "}\n"

#define HEAD(plugins) \
	"conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n" plugins "queues: [{name: q1}]\n"

/* Scores of a task on every ready node, in node order. */
static void scores(pts *p, const char *task, double *out)
{
	tph_score_nodes(p->s, pts_task(p, task), p->s->ready_nodes, p->s->n_ready, out);
}

static void expect(const double *got, const double *want, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (fabs(got[i] - want[i]) > 1e-9)
			fail_msg("node %u: expected %.4f, got %.4f", i, want[i], got[i]);
}

#define RESOURCES                                                                           \
	"nodes:\n"                                                                          \
	"  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"                \
	"  - {name: n2, allocatable: {cpu: '8', memory: 8Gi, pods: '10'}}\n"                \
	"pods:\n"                                                                           \
	"  - {name: run, namespace: ns, phase: Running, nodeName: n1, requests: {cpu: '1'," \
	" memory: 2Gi}}\n"                                                                  \
	"  - {name: t, namespace: ns, requests: {cpu: '1', memory: 1Gi}}\n"                 \
	"  - {name: be, namespace: ns}\n"

static void test_least_allocated(void **state)
{
	(void)state;
	pts p;
	double got[2];
	pts_open(&p, HEAD(W(2, 0, 0, 0, 0, 0, 0)) RESOURCES);
	/* n1: cpu (4-2)/4 -> 50, memory (8-3)/8 -> 62; (50*50 + 62*50) / 100 = 56. */
	scores(&p, "ns/t", got);
	expect(got, (double[]){112, 174}, 2);
	/* A best-effort pod counts as 100m and 200Mi: n1 cpu 72, memory 72; n2 98, 97 -> 97. */
	scores(&p, "ns/be", got);
	expect(got, (double[]){144, 194}, 2);
	pts_free(&p);
}

static void test_most_allocated_and_balanced(void **state)
{
	(void)state;
	pts p;
	double got[2];
	pts_open(&p, HEAD(W(0, 1, 0, 0, 0, 0, 0)) RESOURCES);
	scores(&p, "ns/t", got); /* n1: cpu 50, memory 37 -> 43; n2: 12, 12 */
	expect(got, (double[]){43, 12}, 2);
	pts_free(&p);
	pts_open(&p, HEAD(W(0, 0, 1, 0, 0, 0, 0)) RESOURCES);
	scores(&p, "ns/t", got); /* n1: fractions .5 and .375 -> 100 * (1 - .0625) */
	expect(got, (double[]){93, 100}, 2);
	scores(&p, "ns/be", got); /* best effort: not scored */
	expect(got, (double[]){0, 0}, 2);
	pts_free(&p);
}

static void test_default_weights(void **state)
{
	(void)state;
	pts p;
	double got[2];
	/* least 1 + balanced 1 + taint 3 * 100; the other scorers skip or score 0. */
	pts_open(&p, HEAD("    - name: nodeorder\n") RESOURCES);
	scores(&p, "ns/t", got);
	expect(got, (double[]){56 + 93 + 300, 87 + 100 + 300}, 2);
	pts_free(&p);
}

/* The nodes off the default scorers' common case: an overcommitted cpu or memory
 * (LeastAllocated 0, BalancedAllocation's fraction capped at 1), a node without cpu, one
 * without memory, and a gpu pod (three fractions where the node has gpus). */
#define EDGES                                                                                      \
	"nodes:\n"                                                                                 \
	"  - {name: n1, allocatable: {cpu: '2', memory: 8Gi, pods: '10'}}\n"                       \
	"  - {name: n2, allocatable: {cpu: '0', memory: 8Gi, pods: '10'}}\n"                       \
	"  - {name: n3, allocatable: {cpu: '8', memory: 8Gi, nvidia.com/gpu: '4', pods: '10'}}\n"  \
	"  - {name: n4, allocatable: {cpu: '4', memory: '0', pods: '10'}}\n"                       \
	"  - {name: n5, allocatable: {cpu: '8', memory: 4Gi, pods: '10'}}\n"                       \
	"  - {name: n6, allocatable: {cpu: '8', memory: 4Gi, pods: '10'}}\n"                       \
	"pods:\n"                                                                                  \
	"  - {name: run, namespace: ns, phase: Running, nodeName: n1, requests: {cpu: '3',"        \
	" memory: 2Gi}}\n"                                                                         \
	"  - {name: full, namespace: ns, phase: Running, nodeName: n5, requests: {memory: 4Gi}}\n" \
	"  - {name: nomem, namespace: ns, phase: Running, nodeName: n6, requests: {cpu: '2'}}\n"   \
	"  - {name: t, namespace: ns, requests: {cpu: '1', memory: 1Gi}}\n"                        \
	"  - {name: g, namespace: ns, requests: {cpu: '1', memory: 1Gi, nvidia.com/gpu: '1'}}\n"

static void test_default_weights_edges(void **state)
{
	(void)state;
	pts p;
	double got[6];
	pts_open(&p, HEAD("    - name: nodeorder\n") EDGES);
	/* n1: least (0 * 50 + 62 * 50) / 100 = 31; balanced fractions 1 (4/2 capped) and .375 ->
	 * 100 * (1 - .3125) = 68. n2: memory only, 87 and 100. n3: 87, 87 -> 87 and .125, .125
	 * -> 100. n4 (not ready, scored all the same): cpu only, 75 and 100. n5: cpu 1.1 with
	 * full's 100m, (86 * 50 + 0) / 100 = 43; fractions .125 and 1 (5/4 capped) -> 56. n6:
	 * memory 1Gi + nomem's 200Mi of 4Gi, (62 * 50 + 70 * 50) / 100 = 66; BalancedAllocation
	 * reads the real requests, fractions .375 and .25 (not 1.2Gi/4Gi) -> 93. Plus
	 * TaintToleration's 300. */
	const tph_idx all[6] = {pts_node(&p, "n1"), pts_node(&p, "n2"), pts_node(&p, "n3"),
	                        pts_node(&p, "n4"), pts_node(&p, "n5"), pts_node(&p, "n6")};
	tph_score_nodes(p.s, pts_task(&p, "ns/t"), all, 6, got);
	expect(got,
	       (double[]){31 + 68 + 300, 87 + 100 + 300, 87 + 100 + 300, 75 + 100 + 300,
	                  43 + 56 + 300, 66 + 93 + 300},
	       6);
	/* n3 with the gpu: fractions .125, .125, .25, standard deviation .0589 -> 94. */
	tph_score_nodes(p.s, pts_task(&p, "ns/g"), all, 6, got);
	expect(got,
	       (double[]){31 + 68 + 300, 87 + 100 + 300, 87 + 94 + 300, 75 + 100 + 300,
	                  43 + 56 + 300, 66 + 93 + 300},
	       6);
	pts_free(&p);
}

static void test_node_affinity_and_taints(void **state)
{
	(void)state;
	pts p;
	double got[3];
	pts_open(
	    &p,
	    HEAD(W(
	        0, 0, 0, 1, 0, 2,
	        0)) "nodes:\n"
	            "  - {name: n1, allocatable: {pods: '9'}, labels: {zone: a}, taints:"
	            " [{key: b, effect: PreferNoSchedule}, {key: c, effect: PreferNoSchedule}]}\n"
	            "  - {name: n2, allocatable: {pods: '9'}, labels: {zone: b}, taints:"
	            " [{key: a, effect: PreferNoSchedule}, {key: b, effect: PreferNoSchedule}]}\n"
	            "  - {name: n3, allocatable: {pods: '9'}}\n"
	            "pods:\n"
	            "  - name: t\n    namespace: ns\n"
	            "    tolerations: [{key: a, operator: Exists, effect: PreferNoSchedule},"
	            " {key: c, operator: Exists, effect: NoSchedule}]\n"
	            "    affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"
	            " [{weight: 10, preference: {matchExpressions: [{key: zone, operator: In,"
	            " values: [a]}]}}, {weight: 30, preference: {matchExpressions: [{key: zone,"
	            " operator: Exists}]}}]}}\n");
	/* Affinity 40, 30, 0 -> 100, 75, 0. Intolerable PreferNoSchedule taints 2, 1, 0 -> reversed
	 * 0, 50, 100, times 2. */
	scores(&p, "ns/t", got);
	expect(got, (double[]){100 + 0, 75 + 100, 0 + 200}, 3);
	pts_free(&p);
}

/* Locality (plugin.h): labels-only normalisations are anchored at the last node holding the
 * highest raw score, and scoring over any set between the anchors and the whole gives the same
 * scores; pod-to-pod terms make scores global. */
#define ANCHORS_CLUSTER                                                                    \
	"nodes:\n"                                                                         \
	"  - {name: n1, allocatable: {cpu: '4', pods: '9'}, labels: {zone: a}, taints:"    \
	" [{key: b, effect: PreferNoSchedule}, {key: c, effect: PreferNoSchedule}]}\n"     \
	"  - {name: n2, allocatable: {cpu: '4', pods: '9'}, labels: {zone: b}, taints:"    \
	" [{key: b, effect: PreferNoSchedule}]}\n"                                         \
	"  - {name: n3, allocatable: {cpu: '4', pods: '9'}, labels: {zone: b}}\n"          \
	"pods:\n"                                                                          \
	"  - name: t\n    namespace: ns\n"                                                 \
	"    affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"   \
	" [{weight: 10, preference: {matchExpressions: [{key: zone, operator: In, values:" \
	" [b]}]}}]}}\n"                                                                    \
	"  - {name: plain, namespace: ns}\n"                                               \
	"  - name: pa\n    namespace: ns\n"                                                \
	"    affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"    \
	" [{weight: 1, podAffinityTerm: {labelSelector: {matchLabels: {x: y}},"            \
	" topologyKey: zone}}]}}\n"

/* A request row's scores from the batch plugins' split parts (norm NULL) are tph_score_nodes'
 * bits, TaintToleration's constant spec part included. */
static void row_from_split(pts *p)
{
	const char *names[] = {"ns/t", "ns/be"};
	for (int k = 0; k < 2; k++) {
		tph_idx t = pts_task(p, names[k]);
		double want[2], got[2];
		bool row = false;
		tph_score_locality_row(p->s, t, &row);
		assert_true(row);
		assert_true(tph_score_nodes(p->s, t, p->s->ready_nodes, 2, want));
		assert_true(tph_score_nodes_row(p->s, t, p->s->ready_nodes, 2, got));
		assert_memory_equal(got, want, sizeof want);
	}
}

static void test_locality_and_anchors(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HEAD(W(1, 0, 1, 1, 2, 2, 2)) ANCHORS_CLUSTER);
	tph_session *s = p.s;
	tph_idx t = pts_task(&p, "ns/t"), all[3] = {0, 1, 2}, a[8];
	assert_int_equal(tph_score_locality(s, t), TPH_SCORE_ANCHORED);
	assert_int_equal(tph_score_locality(s, pts_task(&p, "ns/plain")), TPH_SCORE_ANCHORED);
	assert_int_equal(tph_score_locality(s, pts_task(&p, "ns/pa")), TPH_SCORE_GLOBAL);
	/* affinity raw 0, 10, 10 -> n3 (the last of the highest); soft taints 2, 1, 0 -> n1 */
	assert_int_equal(tph_score_anchors(s, t, all, 3, a, 8), 2);
	assert_int_equal(a[0], 2);
	assert_int_equal(a[1], 0);
	double whole[3], part[2];
	tph_idx some[2] = {0, 2};
	tph_score_nodes(s, t, all, 3, whole);
	tph_score_nodes(s, t, some, 2, part);
	assert_true(part[0] == whole[0] && part[1] == whole[2]);
	/* normalisation values: the highest affinity and soft-taint raw scores, at least 0; those
	 * over the anchors are those over the whole, and a union takes the maxima */
	int64_t v[8], w[8];
	assert_int_equal(tph_score_norm(s, t, all, 3, v, 8), 2);
	assert_true(v[0] == 10 && v[1] == 2);
	assert_int_equal(tph_score_norm(s, t, a, 2, w, 8), 2);
	assert_true(w[0] == 10 && w[1] == 2);
	assert_int_equal(tph_score_norm(s, t, all, 1, w, 8), 2);
	assert_true(w[0] == 0 && w[1] == 2);
	assert_int_equal(tph_score_norm(s, t, all + 1, 1, w, 8), 2);
	assert_true(w[0] == 10 && w[1] == 1);
	assert_int_equal(tph_score_norm(s, t, all, 0, w, 8), 2);
	assert_true(w[0] == 0 && w[1] == 0);
	/* the split: row part + spec part of the values over a set is its score over that set */
	double rowp[3], spec[3];
	assert_int_equal(tph_score_split_at(s, t), 0);
	tph_score_split(s, t, all, 3, v, rowp, spec);
	for (int i = 0; i < 3; i++)
		assert_true(rowp[i] + spec[i] == whole[i]);
	tph_score_nodes(s, t, some, 2, part);
	tph_score_norm(s, t, some, 2, w, 8);
	tph_score_split(s, t, some, 2, w, rowp, spec);
	assert_true(rowp[0] + spec[0] == part[0] && rowp[1] + spec[1] == part[1]);
	pts_free(&p);
	pts_open(&p, HEAD(W(1, 0, 1, 1, 2, 2, 2)) RESOURCES);
	assert_int_equal(tph_score_locality(p.s, pts_task(&p, "ns/t")), TPH_SCORE_LOCAL);
	bool row = false;
	tph_score_locality_row(p.s, pts_task(&p, "ns/t"), &row);
	assert_true(row);
	row_from_split(&p);
	pts_free(&p);
	pts_open(&p, HEAD("    - name: predicates\n" W(1, 0, 1, 1, 2, 2, 2) "    - name: binpack\n")
	                 RESOURCES);
	row_from_split(&p);
	pts_free(&p);
}

/* A request row's scores with the parts its ANCHORED tasks keep (tph_score_nodes_row_parts):
 * the row task's total is tph_score_nodes', and pre, bat and the row part are what
 * tph_score_nodes_head and tph_score_split give an anchored task of the same request row. */
#define SAME_ROW                                                                                \
	"nodes:\n"                                                                              \
	"  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}, labels: {zone: a}}\n" \
	"  - {name: n2, allocatable: {cpu: '8', memory: 8Gi, pods: '10'}, labels: {zone: b}}\n" \
	"pods:\n"                                                                               \
	"  - {name: run, namespace: ns, phase: Running, nodeName: n1, requests: {cpu: '1',"     \
	" memory: 2Gi}}\n"                                                                      \
	"  - {name: t, namespace: ns, requests: {cpu: '1', memory: 1Gi}}\n"                     \
	"  - name: a\n    namespace: ns\n    requests: {cpu: '1', memory: 1Gi}\n"               \
	"    affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"        \
	" [{weight: 10, preference: {matchExpressions: [{key: zone, operator: In, values:"      \
	" [b]}]}}]}}\n"

static void row_parts_at(int threads)
{
	static const char yaml[] =
	    HEAD("    - name: predicates\n" W(1, 1, 1, 1, 2, 2, 2) "    - name: binpack\n")
	        SAME_ROW;
	pts p;
	tph_session_opts o = {.threads = threads};
	pts_open_with(&p, yaml, &o);
	tph_idx t = pts_task(&p, "ns/t"), a = pts_task(&p, "ns/a"), all[2] = {0, 1};
	bool row = false;
	tph_score_locality_row(p.s, t, &row);
	assert_true(row);
	assert_int_equal(tph_score_locality(p.s, a), TPH_SCORE_ANCHORED);
	uint32_t tail = tph_score_split_at(p.s, a);
	assert_int_equal(tail, 1); /* predicates' batch comes first */
	double total[2], pre[2] = {NAN, NAN}, bat[2] = {NAN, NAN}, rowp[2] = {NAN, NAN}, want[2],
	                 wpre[2], wbat[2], wrow[2];
	assert_true(tph_score_nodes_row_parts(p.s, t, all, 2, tail, total, pre, bat, rowp));
	assert_true(tph_score_nodes(p.s, t, all, 2, want));
	assert_memory_equal(total, want, sizeof want);
	assert_true(tph_score_nodes_head(p.s, a, all, 2, tail, wpre, wbat));
	tph_score_split(p.s, a, all, 2, NULL, wrow, NULL);
	assert_memory_equal(pre, wpre, sizeof pre);
	assert_memory_equal(bat, wbat, sizeof bat);
	assert_memory_equal(rowp, wrow, sizeof rowp);
	assert_true(pre[0] != 0 && rowp[0] != 0); /* binpack and the unnormalised scorers count */
	/* a tail past the batch plugins: no parts */
	assert_false(tph_score_nodes_row_parts(p.s, t, all, 2, 2, total, pre, bat, rowp));
	pts_free(&p);
}

/* With threads too: the parts come from the same one-thread pass (ep_score.c's score_row). */
static void test_row_parts(void **state)
{
	(void)state;
	row_parts_at(1);
	row_parts_at(2);
}

static void test_inter_pod_affinity(void **state)
{
	(void)state;
	pts p;
	double got[3];
	pts_open(
	    &p,
	    HEAD(W(
	        0, 0, 0, 0, 3, 0,
	        0)) "nodes:\n"
	            "  - {name: n1, allocatable: {pods: '9'}, labels: {zone: a}}\n"
	            "  - {name: n2, allocatable: {pods: '9'}, labels: {zone: a}}\n"
	            "  - {name: n3, allocatable: {pods: '9'}, labels: {zone: b}}\n"
	            "pods:\n"
	            "  - {name: e1, namespace: ns, phase: Running, nodeName: n1, labels: {app: "
	            "web}}\n"
	            "  - name: e2\n    namespace: ns\n    phase: Running\n    nodeName: n3\n"
	            "    affinity: {podAntiAffinity: "
	            "{preferredDuringSchedulingIgnoredDuringExecution:"
	            " [{weight: 20, podAffinityTerm: {labelSelector: {matchLabels: {app: cache}},"
	            " topologyKey: zone}}]}}\n"
	            "  - name: e3\n    namespace: ns\n    phase: Running\n    nodeName: n3\n"
	            "    affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"
	            " [{weight: 10, podAffinityTerm: {labelSelector: {matchLabels: {app: cache}},"
	            " topologyKey: zone}}]}}\n"
	            "  - name: e4\n    namespace: ns\n    phase: Running\n    nodeName: n3\n"
	            "    affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
	            " [{labelSelector: {matchLabels: {app: cache}}, topologyKey: zone}]}}\n"
	            "  - name: t\n    namespace: ns\n    labels: {app: cache}\n"
	            "    affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"
	            " [{weight: 50, podAffinityTerm: {labelSelector: {matchLabels: {app: web}},"
	            " topologyKey: zone}}]}}\n"
	            "  - {name: plain, namespace: ns, labels: {app: cache}}\n");
	/* Zone a +50; zone b -20 + 10 (e4's required term weighs HardPodAffinityWeight 0):
	 * 50, 50, -10 -> 100, 100, 0. */
	scores(&p, "ns/t", got);
	expect(got, (double[]){300, 300, 0}, 3);
	/* Without terms of its own, only the existing pods' preferred terms count: b = -10. */
	scores(&p, "ns/plain", got);
	expect(got, (double[]){300, 300, 0}, 3);
	pts_free(&p);
}

#define SPREAD(key)                                                          \
	"  - name: t\n    namespace: ns\n    labels: {app: foo}\n"           \
	"    topologySpreadConstraints: [{maxSkew: 1, topologyKey: " key "," \
	" whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: foo}}}]\n"

#define SPREAD_NODES                                                                           \
	"nodes:\n"                                                                             \
	"  - {name: n1, allocatable: {pods: '9'}, labels: {zone: z1, kubernetes.io/hostname: " \
	"n1}}\n"                                                                               \
	"  - {name: n2, allocatable: {pods: '9'}, labels: {zone: z2, kubernetes.io/hostname: " \
	"n2}}\n"                                                                               \
	"  - {name: n3, allocatable: {pods: '9'}, labels: {zone: z3, kubernetes.io/hostname: " \
	"n3}}\n"                                                                               \
	"  - {name: n4, allocatable: {pods: '9'}, labels: {kubernetes.io/hostname: n4}}\n"     \
	"pods:\n"                                                                              \
	"  - {name: a, namespace: ns, phase: Running, nodeName: n1, labels: {app: foo}}\n"     \
	"  - {name: b, namespace: ns, phase: Running, nodeName: n1, labels: {app: foo}}\n"     \
	"  - {name: c, namespace: ns, phase: Running, nodeName: n2, labels: {app: foo}}\n"     \
	"  - {name: d, namespace: other, phase: Running, nodeName: n3, labels: {app: foo}}\n"

static void test_topology_spread(void **state)
{
	(void)state;
	pts p;
	double got[4];
	pts_open(&p, HEAD(W(0, 0, 0, 0, 0, 0, 1)) SPREAD_NODES SPREAD("zone"));
	/* Three zones: weight log(5); raw 2*1.609 -> 3, 1.609 -> 2, 0; n4 lacks the key (0).
	 * Normalised 100 * (3 + 0 - s) / 3. */
	scores(&p, "ns/t", got);
	expect(got, (double[]){0, 33, 100, 0}, 4);
	pts_free(&p);
	pts_open(&p, HEAD(W(0, 0, 0, 0, 0, 0, 1)) SPREAD_NODES SPREAD("kubernetes.io/hostname"));
	/* Per node counts, weight log(4 + 2): 2 -> 4, 1 -> 2, 0, 0 -> 0, 50, 100, 100. */
	scores(&p, "ns/t", got);
	expect(got, (double[]){0, 50, 100, 100}, 4);
	pts_free(&p);
}

static void test_view_follows_predicates_only(void **state)
{
	(void)state;
	pts p;
	double got[2];
	tph_statement st;
	/* Alone, nodeorder scores against the pods present at open (Volcano's NodeMap is only
	 * updated by predicates' event handlers). */
	pts_open(&p, HEAD(W(1, 0, 0, 0, 0, 0, 0)) RESOURCES);
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/t"), pts_node(&p, "n2")), TPH_OK);
	scores(&p, "ns/be", got);
	expect(got, (double[]){72, 97}, 2);
	tph_stmt_discard(&st);
	pts_free(&p);
	pts_open(&p, HEAD("    - name: predicates\n" W(1, 0, 0, 0, 0, 0, 0)) RESOURCES);
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/t"), pts_node(&p, "n2")), TPH_OK);
	/* n2 now holds 1.1 cpu and 1Gi + 200Mi: cpu 86, memory 85. */
	scores(&p, "ns/be", got);
	expect(got, (double[]){72, 85}, 2);
	tph_stmt_discard(&st);
	scores(&p, "ns/be", got);
	expect(got, (double[]){72, 97}, 2);
	pts_free(&p);
}

/* ImageLocality alone, weight 2. */
#define IMAGES_ONLY                                                                  \
	"    - name: nodeorder\n"                                                    \
	"      arguments: {leastrequested.weight: 0, balancedresource.weight: 0,"    \
	" nodeaffinity.weight: 0, podaffinity.weight: 0, tainttoleration.weight: 0," \
	" podtopologyspread.weight: 0, imagelocality.weight: 2}\n"

/* n2 lists nginx:1.25 second (NumNodes 2, the first size); n4 is not ready (counted by the
 * cache, not in the session's 3 nodes); n3 lists busybox twice (the first entry counts). */
static const char images_yaml[] =
    HEAD(IMAGES_ONLY) "nodes:\n"
                      "  - {name: n1, allocatable: {cpu: '4', pods: '10'}, images: [{names: "
                      "[nginx:1.25, docker.io/library/nginx:1.25], sizeBytes: 629145600}]}\n"
                      "  - {name: n2, allocatable: {cpu: '4', pods: '10'}, images: [{names: "
                      "[nginx:1.25], sizeBytes: 943718400}]}\n"
                      "  - {name: n3, allocatable: {cpu: '4', pods: '10'}, images: [{names: "
                      "[busybox:latest], sizeBytes: 104857600}, {names: [busybox:latest], "
                      "sizeBytes: 5}]}\n"
                      "  - {name: n4, ready: false, images: [{names: [nginx:1.25]}]}\n"
                      "pods:\n"
                      "  - {name: one, namespace: ns, images: [nginx:1.25]}\n"
                      "  - {name: untagged, namespace: ns, images: [nginx]}\n"
                      "  - {name: bb, namespace: ns, images: [busybox]}\n"
                      "  - {name: three, namespace: ns, images: ['busybox:latest', other],"
                      " initContainers: [{name: i, image: 'nginx:1.25'}]}\n"
                      "  - {name: none, namespace: ns}\n";

static void test_image_locality(void **state)
{
	(void)state;
	pts p;
	double got[3];
	pts_open(&p, images_yaml);
	/* n1: 600Mi * 1/3 = 209715200; (209715200 - 23Mi) * 100 / (1000Mi - 23Mi) = 18.
	 * n2: 600Mi * 2/3 = 419430400 -> 38. Weighted 2. */
	scores(&p, "ns/one", got);
	expect(got, (double[]){36, 76, 0}, 3);
	/* "nginx" is "nginx:latest", which no node holds. */
	scores(&p, "ns/untagged", got);
	expect(got, (double[]){0, 0, 0}, 3);
	/* busybox:latest: 100Mi / 3 = 34952533 -> 1. */
	scores(&p, "ns/bb", got);
	expect(got, (double[]){0, 0, 2}, 3);
	/* Three containers (one init): the ceiling is 3000Mi. n1 5, n2 12, n3 0. */
	scores(&p, "ns/three", got);
	expect(got, (double[]){10, 24, 0}, 3);
	scores(&p, "ns/none", got);
	expect(got, (double[]){0, 0, 0}, 3);
	/* Node-local: the score of a node is the same over any candidates. A pod with images
	 * reads its spec; one without reads only its request row. */
	assert_int_equal(tph_score_locality(p.s, pts_task(&p, "ns/one")), TPH_SCORE_LOCAL);
	bool row = true;
	assert_int_equal(tph_score_locality_row(p.s, pts_task(&p, "ns/one"), &row),
	                 TPH_SCORE_LOCAL);
	assert_false(row);
	assert_int_equal(tph_score_locality_row(p.s, pts_task(&p, "ns/none"), &row),
	                 TPH_SCORE_LOCAL);
	assert_true(row);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_image_locality),
	    cmocka_unit_test(test_least_allocated),
	    cmocka_unit_test(test_most_allocated_and_balanced),
	    cmocka_unit_test(test_default_weights),
	    cmocka_unit_test(test_default_weights_edges),
	    cmocka_unit_test(test_node_affinity_and_taints),
	    cmocka_unit_test(test_locality_and_anchors),
	    cmocka_unit_test(test_row_parts),
	    cmocka_unit_test(test_inter_pod_affinity),
	    cmocka_unit_test(test_topology_spread),
	    cmocka_unit_test(test_view_follows_predicates_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

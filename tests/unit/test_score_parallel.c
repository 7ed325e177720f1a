/* Parallel spans (tph_session_parallel, plugin.h) and the scorers built on them: the spans
 * cover every item once with bounds that do not depend on the thread count, big calls really
 * run on two threads, and nodeorder's BatchNodeOrder (every kube-scheduler scorer on) and the
 * whole PrioritizeNodes give the same bits with one thread and two, over all nodes and over a
 * subset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

/* ---- the span mechanism ---- */

typedef struct visits {
	uint8_t *seen;      /* [item] times visited */
	uint32_t *span_of;  /* [item] the span that visited it */
	pthread_t *thread;  /* [span] who ran it */
	uint32_t bad_spans; /* spans whose bounds were not k * TPH_PAR_SPAN .. */
	uint32_t n;
} visits;

static void visit(void *cv, uint32_t k, uint32_t b, uint32_t e)
{
	visits *v = cv;
	uint32_t want_e = (k + 1) * TPH_PAR_SPAN < v->n ? (k + 1) * TPH_PAR_SPAN : v->n;
	if (b != k * TPH_PAR_SPAN || e != want_e)
		__atomic_add_fetch(&v->bad_spans, 1, __ATOMIC_RELAXED);
	v->thread[k] = pthread_self();
	for (uint32_t i = b; i < e; i++) {
		v->seen[i]++;
		v->span_of[i] = k;
	}
}

static void run_spans(tph_session *s, uint32_t n, visits *v)
{
	v->n = n;
	v->bad_spans = 0;
	v->seen = calloc(n + 1, 1);
	v->span_of = calloc(n + 1, sizeof *v->span_of);
	v->thread = calloc(TPH_PAR_SPANS(n) + 1, sizeof *v->thread);
	assert_non_null(v->seen);
	tph_session_parallel(s, n, visit, v);
	assert_int_equal(v->bad_spans, 0);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(v->seen[i], 1);
		assert_int_equal(v->span_of[i], i / TPH_PAR_SPAN);
	}
}

static void free_visits(visits *v)
{
	free(v->seen);
	free(v->span_of);
	free(v->thread);
}

#define ONE_NODE                                                                \
	"conf: |\n  actions: \"\"\n  tiers: []\nqueues: [{name: q1}]\nnodes:\n" \
	"  - {name: n1, allocatable: {cpu: '1'}}\n"

static void test_spans_cover_once(void **state)
{
	(void)state;
	static const uint32_t sizes[] = {0, 1, 255, 256, 257, 5000, 40000};
	for (int threads = 1; threads <= 2; threads++) {
		pts p;
		pts_open_with(&p, ONE_NODE, &(tph_session_opts){.threads = threads});
		for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
			visits v;
			run_spans(p.s, sizes[i], &v);
			free_visits(&v);
		}
		pts_free(&p);
	}
}

/* A call big enough for two threads runs its last span off the caller's thread (OMP_DYNAMIC
 * is false under ctest, so the team has the size asked for); a small one stays on it. */
static void test_big_calls_use_threads(void **state)
{
	(void)state;
	pts p;
	pts_open_with(&p, ONE_NODE, &(tph_session_opts){.threads = 2});
	visits v;
	uint32_t n = 64 * TPH_PAR_SPAN;
	run_spans(p.s, n, &v);
#ifdef TPH_HAVE_OPENMP
	assert_int_equal(tph_span_threads(p.s, n), 2);
	assert_false(pthread_equal(v.thread[0], v.thread[TPH_PAR_SPANS(n) - 1]));
#endif
	free_visits(&v);
	run_spans(p.s, 3, &v);
	assert_true(pthread_equal(v.thread[0], pthread_self()));
	free_visits(&v);
	pts_free(&p);
}

/* ---- nodeorder and PrioritizeNodes, one thread against two ---- */

#define NODES 6000u

/* Nodes in 7 zones with hostnames, a PreferNoSchedule taint on every 5th, a label that node
 * affinity prefers on every 3rd; running pods with labels and preferred (anti-)affinity; the
 * pending pods use every scorer. The extremes of each normalised score sit near the end only
 * (zone zx, two taints, a rarer label, pods that attract), so each is in one span. */
static char *big_scenario(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	fprintf(f, "conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: predicates\n"
	           "    - name: nodeorder\n      arguments: {mostrequested.weight: 1}\n"
	           "    - name: binpack\nqueues: [{name: q1}]\nnodes:\n");
	for (uint32_t i = 0; i < NODES; i++) {
		char zone[8];
		snprintf(zone, sizeof zone, i < NODES - 500 ? "z%u" : "zx", i % 7);
		fprintf(f,
		        "  - {name: n%u, allocatable: {cpu: '%u', memory: %uGi, pods: '50'},"
		        " labels: {zone: %s, kubernetes.io/hostname: n%u, disk: %s, rare: %s}",
		        i, 8 + i % 5 * 8, 16 << (i % 3), zone, i, i % 3 ? "hdd" : "ssd",
		        i > NODES - 40 ? "yes" : "no");
		if (i % 5 == 0)
			fprintf(f, ", taints: [{key: k, value: v, effect: PreferNoSchedule}%s]",
			        i > NODES - 100 ? ", {key: j, value: v, effect: PreferNoSchedule}"
			                        : "");
		fprintf(f, "}\n");
	}
	fprintf(f, "pods:\n");
	for (uint32_t i = 0; i < 800; i++)
		fprintf(f,
		        "  - name: r%u\n    namespace: ns\n    phase: Running\n    nodeName: n%u\n"
		        "    labels: {app: a%u}\n    requests: {cpu: '%u', memory: 1Gi}\n%s",
		        i, i * 7 % NODES, i % 3, 1 + i % 4,
		        i % 4 ? ""
		              : "    affinity: {podAntiAffinity: "
		                "{preferredDuringSchedulingIgnoredDuringExecution: [{weight: 7,"
		                " podAffinityTerm: {labelSelector: {matchLabels: {app: a0}},"
		                " topologyKey: zone}}]}}\n");
	for (uint32_t i = 0; i < 60; i++)
		fprintf(f,
		        "  - {name: x%u, namespace: ns, phase: Running, nodeName: n%u,"
		        " labels: {app: a%u}}\n",
		        i, i < 30 ? NODES - 1 - i * 10 : NODES - 3, 1 + i % 2);
	fprintf(f, "  - name: t\n    namespace: ns\n    labels: {app: a0}\n"
	           "    requests: {cpu: '1', memory: 2Gi}\n"
	           "    affinity:\n"
	           "      nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"
	           " [{weight: 5, preference: {matchExpressions: [{key: disk, operator: In,"
	           " values: [ssd]}]}}, {weight: 9, preference: {matchExpressions: [{key: rare,"
	           " operator: In, values: ['yes']}]}}]}\n"
	           "      podAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"
	           " [{weight: 30, podAffinityTerm: {labelSelector: {matchLabels: {app: a1}},"
	           " topologyKey: zone}}]}\n"
	           "    topologySpreadConstraints: [{maxSkew: 2, topologyKey: zone,"
	           " whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: a0}}},"
	           " {maxSkew: 1, topologyKey: kubernetes.io/hostname,"
	           " whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: a2}}}]\n"
	           "    tolerations: [{key: k, operator: Exists, effect: PreferNoSchedule}]\n"
	           "  - {name: plain, namespace: ns, requests: {cpu: '2', memory: 4Gi}}\n"
	           "  - {name: be, namespace: ns}\n");
	fclose(f);
	return buf;
}

/* Scores of `task` over nodes[0..n) with a session of `threads` threads; the first pass over
 * half the nodes evaluates NodeAffinity per node, the later ones read its cached column. The
 * last pass scores the same nodes in reverse order (put back in order): normalising over the
 * candidates must not depend on which span holds the extremes. */
static double *scores_with(const char *yaml, int threads, const char *task, const tph_idx *nodes,
                           uint32_t n)
{
	pts p;
	pts_open_with(&p, yaml, &(tph_session_opts){.threads = threads});
	tph_idx t = pts_task(&p, task);
	double *out = calloc(5 * (size_t)n + 1, sizeof *out), *rev = out + 4 * (size_t)n;
	tph_idx *back = calloc(n + 1, sizeof *back);
	assert_true(out && back);
	tph_score_nodes(p.s, t, nodes, n / 2, out);
	tph_score_nodes(p.s, t, p.s->ready_nodes, p.s->n_ready, out + n);
	tph_score_nodes(p.s, t, nodes, n, out + 2 * (size_t)n);
	for (uint32_t i = 0; i < n; i++)
		back[i] = nodes[n - 1 - i];
	tph_score_nodes(p.s, t, back, n, rev);
	for (uint32_t i = 0; i < n; i++)
		out[3 * (size_t)n + i] = rev[n - 1 - i];
	free(back);
	pts_free(&p);
	return out;
}

static void test_scores_same_bits(void **state)
{
	(void)state;
	char *yaml = big_scenario();
	static tph_idx odd[NODES / 2]; /* a candidate list that is not the whole cluster */
	for (uint32_t i = 0; i < NODES / 2; i++)
		odd[i] = 2 * i + 1;
	static const char *const tasks[] = {"ns/t", "ns/plain", "ns/be"};
	for (size_t k = 0; k < sizeof tasks / sizeof *tasks; k++) {
		double *one = scores_with(yaml, 1, tasks[k], odd, NODES / 2);
		double *two = scores_with(yaml, 2, tasks[k], odd, NODES / 2);
		for (uint32_t i = 0; i < 4 * (NODES / 2); i++)
			if (memcmp(&one[i], &two[i], sizeof *one))
				fail_msg("%s: score %u: %.17g with one thread, %.17g with two",
				         tasks[k], i, one[i], two[i]);
		const double *fwd = one + 2 * (NODES / 2), *rev = one + 3 * (NODES / 2);
		for (uint32_t i = 0; i < NODES / 2; i++)
			if (memcmp(&fwd[i], &rev[i], sizeof *fwd))
				fail_msg("%s: node %u: %.17g in order, %.17g in reverse", tasks[k],
				         odd[i], fwd[i], rev[i]);
		/* the scorers did run: t's scores are not all equal */
		bool differ = false;
		for (uint32_t i = 1; i < NODES / 2; i++)
			differ |= one[i] != one[0];
		assert_true(differ);
		free(one);
		free(two);
	}
	free(yaml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spans_cover_once),
	    cmocka_unit_test(test_big_calls_use_threads),
	    cmocka_unit_test(test_scores_same_bits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for plugins/network_topology_aware*.c and its extension points
 * (kernel/src/session/ep_topology.c): hypernode-level binpacking of normal pods over every tier
 * (gaps and nodes outside hypernodes score full), LCA-tier scores of network-aware pods with the
 * task-share tie break, HyperNodeOrder, gradients for jobs and subjobs (resource pre-filter at
 * the opening idle, allocated hypernodes, eviction order and cap), the flags that gate them,
 * and the bindsPerHyperNode expectation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "session/check_core.h"
#include "session/topo/hypernode.h"
#include "plugin_test_session.h"
#include "session/statement.h"

#define CONF(args, flags)                                                                        \
	"conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: network-topology-aware\n" \
	"      arguments: " args "\n" flags

#define TOPO                                                                                 \
	"queues: [{name: q1}]\n"                                                             \
	"nodes:\n"                                                                           \
	"  - {name: a1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"                 \
	"  - {name: a2, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"                 \
	"  - {name: b1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"                 \
	"  - {name: c1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"                 \
	"  - {name: d1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"                 \
	"  - {name: z, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"                  \
	"hyperNodes:\n"                                                                      \
	"  - {name: A, tier: 1, members: [a1, a2]}\n"                                        \
	"  - {name: B, tier: 1, members: [b1]}\n"                                            \
	"  - {name: S, tier: 2, members: [A, B]}\n"                                          \
	"  - {name: C, tier: 1, members: [c1]}\n"                                            \
	"  - {name: D, tier: 1, members: [d1]}\n"                                            \
	"podGroups:\n"                                                                       \
	"  - {name: plain, namespace: c1, queue: q1}\n"                                      \
	"  - {name: net, namespace: c1, queue: q1,"                                          \
	" networkTopology: {mode: hard, highestTierAllowed: 1}}\n"                           \
	"  - {name: fresh, namespace: c1, queue: q1, minResources: {cpu: '6'},"              \
	" networkTopology: {mode: hard, highestTierAllowed: 1}}\n"                           \
	"  - {name: spread, namespace: c1, queue: q1,"                                       \
	" networkTopology: {mode: hard, highestTierAllowed: 2}}\n"                           \
	"  - {name: be, namespace: c1, queue: q1}\n"                                         \
	"pods:\n"                                                                            \
	"  - {name: r, namespace: c1, podGroup: plain, phase: Running, nodeName: b1,"        \
	" requests: {cpu: '2'}}\n"                                                           \
	"  - {name: p, namespace: c1, podGroup: plain, requests: {cpu: '1', memory: 2Gi}}\n" \
	"  - {name: big, namespace: c1, podGroup: plain, requests: {cpu: '5'}}\n"            \
	"  - {name: t, namespace: c1, podGroup: net, requests: {cpu: '1', memory: 2Gi}}\n"   \
	"  - {name: r2, namespace: c1, podGroup: net, phase: Running, nodeName: d1,"         \
	" requests: {cpu: '1', memory: 1Gi}}\n"                                              \
	"  - {name: u, namespace: c1, podGroup: spread, requests: {cpu: '1'}}\n"             \
	"  - {name: u2, namespace: c1, podGroup: spread, phase: Running, nodeName: b1}\n"    \
	"  - {name: e1, namespace: c1, podGroup: be, phase: Running, nodeName: c1}\n"        \
	"  - {name: e2, namespace: c1, podGroup: be}\n"                                      \
	"  - {name: f, namespace: c1, podGroup: fresh, requests: {cpu: '1'}}\n"

enum {
	A,
	B,
	S,
	C,
	D,
	TOP
};

static void scores(pts *p, const char *task, double *out)
{
	tph_score_nodes(p->s, pts_task(p, task), p->s->ready_nodes, p->s->n_ready, out);
}

static void expect6(pts *p, const char *task, const double *want)
{
	double got[6];
	scores(p, task, got);
	for (int i = 0; i < 6; i++)
		if (fabs(got[i] - want[i]) > 1e-9)
			fail_msg("%s node %d: expected %.6f, got %.6f", task, i, want[i], got[i]);
}

static void test_normal_pods(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("{}", "") TOPO);
	/* tiers 1..3 (the top), weights 1, 0.8, 0.64; cpu and memory averaged */
	double w = 2.44, top = (4.0 / 24 + 3.0 / 48) / 2; /* r and r2 run */
	double a = 1.0 / 8 + 2.0 / 16, s12 = ((2.0 + 1) / 12 + 2.0 / 24) / 2;
	double b = ((2.0 + 1) / 4 + 2.0 / 8) / 2, d = ((1.0 + 1) / 4 + 3.0 / 8) / 2;
	double c = (1.0 / 4 + 2.0 / 8) / 2;
	double want[6] = {(a / 2 + 0.8 * s12 + 0.64 * top) / w * 100,
	                  (a / 2 + 0.8 * s12 + 0.64 * top) / w * 100,
	                  (b + 0.8 * s12 + 0.64 * top) / w * 100,
	                  (c + 0.8 + 0.64 * top) / w * 100, /* no tier-2 hypernode: full */
	                  (d + 0.8 + 0.64 * top) / w * 100,
	                  (1 + 0.8 + 0.64 * top) / w * 100};
	expect6(&p, "c1/p", want);
	/* 5 cpu overflows every tier-1 hypernode but A */
	double sbig = (2.0 + 5) / 12, tbig = (3.0 + 5) / 24; /* cpu alone */
	double want_big[6] = {(5.0 / 8 + 0.8 * sbig + 0.64 * tbig) / w * 100,
	                      (5.0 / 8 + 0.8 * sbig + 0.64 * tbig) / w * 100,
	                      (0 + 0.8 * sbig + 0.64 * tbig) / w * 100,
	                      (0 + 0.8 + 0.64 * tbig) / w * 100,
	                      (0 + 0.8 + 0.64 * tbig) / w * 100,
	                      (1 + 0.8 + 0.64 * tbig) / w * 100};
	expect6(&p, "c1/big", want_big);
	pts_free(&p);
}

/* Normal pods score by their node's hypernodes alone (TPH_SCORE_HN_SET): nodes held by the
 * same hypernodes score the same bits over any set of nodes, one node per call included, so
 * allocate may score one node per set; network-aware pods and disabled binpacking say nothing
 * of it. */
static void test_hn_set(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("{}", "") TOPO);
	tph_idx t = pts_task(&p, "c1/p");
	assert_int_equal(tph_score_locality(p.s, t), TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE);
	uint32_t tail = tph_score_hn_tail(p.s, t);
	assert_int_equal(tail, 0);
	assert_true(tph_score_hn_set(p.s, t, tail));
	double all[6], one[2];
	scores(&p, "c1/p", all);
	tph_idx a2 = p.s->ready_nodes[1], a1 = p.s->ready_nodes[0];
	tph_score_nodes(p.s, t, &a2, 1, &one[0]); /* fewer binpacks than hypernodes: per node */
	tph_score_nodes(p.s, t, &a1, 1, &one[1]);
	assert_memory_equal(&one[0], &all[1], sizeof one[0]);
	assert_memory_equal(&one[1], &all[0], sizeof one[1]);
	assert_memory_equal(&all[0], &all[1], sizeof all[0]); /* a1 and a2: A, S and the top */
	assert_false(tph_score_hn_set(p.s, pts_task(&p, "c1/t"), tail)); /* network-aware */
	pts_free(&p);
	pts_open(&p, CONF("{hypernode.binpack.normal-pod.enable: false}", "") TOPO);
	t = pts_task(&p, "c1/p");
	assert_int_equal(tph_score_locality(p.s, t), TPH_SCORE_LOCAL);
	assert_false(tph_score_hn_set(p.s, t, 0));
	pts_free(&p);
}

static void test_normal_pod_arguments(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("{hypernode.binpack.normal-pod.enable: false}", "") TOPO);
	double zero[6] = {0};
	expect6(&p, "c1/p", zero);
	pts_free(&p);
	/* fading 0: only tier 1 counts (0^0 = 1); memory weight 3; plugin weight 2 */
	pts_open(&p, CONF("{weight: 2, hypernode.binpack.memory: 3,"
	                  " hypernode.binpack.normal-pod.fading: 0}",
	                  "") TOPO);
	double a = (1.0 / 8 + 3 * 2.0 / 16) / 4 * 200, c = (1.0 / 4 + 3 * 2.0 / 8) / 4 * 200;
	double want[6] = {a,
	                  a,
	                  ((2.0 + 1) / 4 + 3 * 2.0 / 8) / 4 * 200,
	                  c,
	                  ((1.0 + 1) / 4 + 3 * 3.0 / 8) / 4 * 200,
	                  200};
	expect6(&p, "c1/p", want);
	pts_free(&p);
}

static void test_network_aware(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("{}", "") TOPO);
	tph_idx u = pts_task(&p, "c1/u");
	double zero[6] = {0};
	expect6(&p, "c1/u", zero);           /* not being placed yet */
	assert_null(p.s->topo->task_job_hn); /* no task placed by the hypernode path */
	assert_int_equal(tph_task_job_hn(p.s, u), TPH_NOIDX);
	assert_int_equal(tph_topo_task_hn_make(p.s), TPH_OK);
	expect6(&p, "c1/u", zero); /* made: still none */
	p.s->topo->task_job_hn[u] = A;
	/* A: 1; b1: LCA S, tier 2 of 1..3: 0.5; c1, d1: LCA top: 0; z: no hypernode */
	double want[6] = {100, 100, 50, 0, 0, 0};
	expect6(&p, "c1/u", want);
	p.s->topo->task_job_hn[u] = B;
	/* b1 alone at the top score: no tie break */
	double want_b[6] = {50, 50, 100, 0, 0, 0};
	expect6(&p, "c1/u", want_b);
	p.s->topo->task_job_hn[u] = S;
	/* a1, a2, b1 tie at 0.5: u2 (1 of the subjob's 2 tasks) runs on b1 */
	double want_s[6] = {50, 50, 100, 0, 0, 0};
	expect6(&p, "c1/u", want_s);
	pts_free(&p);
}

/* The tie break's counts are kept between calls: a task placed or taken off since, and another
 * subjob's counts taken in between, must show in the next call. */
static void test_tie_break_moves(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("{}", "") TOPO);
	tph_idx u = pts_task(&p, "c1/u");
	assert_int_equal(tph_topo_task_hn_make(p.s), TPH_OK);
	p.s->topo->task_job_hn[u] = S;
	double before[6] = {50, 50, 100, 0, 0, 0};
	expect6(&p, "c1/u", before);
	tph_idx cd[2] = {C, D};
	double got[2];
	tph_hn_order(p.s, tph_task_subjob(p.s, pts_task(&p, "c1/e2")), cd, 2, got);
	assert_true(fabs(got[0] - 50) < 1e-9 && fabs(got[1]) < 1e-9);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	/* the subjob's move counter: one per node change, with the task (topology.h) */
	const tph_subjobs *o = &p.s->topo->sj;
	tph_idx k = tph_task_subjob(p.s, u);
	uint32_t m0 = o->moves[k];
	/* and each hypernode's: one per task leaving or joining one of its nodes */
	const uint32_t *hm = p.s->topo->t.moves;
	uint32_t h0[TOP + 1];
	memcpy(h0, hm, sizeof h0);
	assert_int_equal(tph_stmt_allocate(&st, u, 0), TPH_OK); /* u on a1: A holds 1 of 2 */
	assert_int_equal(o->moves[k], m0 + 1);
	assert_int_equal(o->last_moved[k], u);
	for (uint32_t h = 0; h <= TOP; h++)
		assert_int_equal(hm[h], h0[h] + (h == A || h == S || h == TOP));
	double placed[6] = {100, 100, 100, 0, 0, 0};
	expect6(&p, "c1/u", placed);
	expect6(&p, "c1/u", placed); /* no move since: the counts stay */
	tph_stmt_discard(&st);
	assert_int_equal(o->moves[k], m0 + 2);
	for (uint32_t h = 0; h <= TOP; h++)
		assert_int_equal(hm[h], h0[h] + 2 * (h == A || h == S || h == TOP));
	expect6(&p, "c1/u", before);
	tph_hn_order(p.s, tph_task_subjob(p.s, pts_task(&p, "c1/e2")), cd, 2, got);
	assert_true(fabs(got[0] - 50) < 1e-9 && fabs(got[1]) < 1e-9);
	pts_free(&p);
}

/* The whole call's scores (the chain table, with each chain's kept sum of its lower tiers)
 * equal each node scored alone, bit for bit. Alone is per node (fewer binpacks than
 * hypernodes) only while the table holds another request row: `other`'s, whose call also
 * leaves the next call of task's row nothing kept. */
static void same_alone(pts *p, const char *task, const char *other)
{
	double all[6], one;
	scores(p, task, all);
	scores(p, other, (double[6]){0});
	for (uint32_t i = 0; i < 6; i++) {
		tph_score_nodes(p->s, pts_task(p, task), &p->s->ready_nodes[i], 1, &one);
		if (memcmp(&one, &all[i], sizeof one))
			fail_msg("%s node %u: %.17g alone, %.17g in the call", task, i, one,
			         all[i]);
	}
}

/* The kept sums follow the placements: one on a1 moves A, S and the top, so chain B's sum
 * (over S) must go as well as A's; a discard moves them back; another request row drops all.
 * A call of the row before each change keeps its sums for same_alone's call after it. */
static void test_kept_sums(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("{}", "") TOPO);
	double all[6];
	same_alone(&p, "c1/p", "c1/big");
	scores(&p, "c1/p", all);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/p"), 0), TPH_OK);
	same_alone(&p, "c1/p", "c1/big");
	same_alone(&p, "c1/big", "c1/p");
	same_alone(&p, "c1/p", "c1/big");
	scores(&p, "c1/p", all);
	tph_stmt_discard(&st);
	same_alone(&p, "c1/p", "c1/big");
	pts_free(&p);
}

/* The bound allocate ranks sets by (tph_score_hn_bound_fn): every node's score within rel of
 * scale (lower + top), before and after a placement (the kept sums of chains A and B, and the
 * top's term, move) and a discard, for two request rows in turn; nothing for network-aware
 * pods. */
static void bound_holds(pts *p, const char *task)
{
	tph_idx t = pts_task(p, task);
	double x[6], lower[6];
	tph_score_bound b;
	assert_true(tph_score_hn_bound(p->s, t, 0, p->s->ready_nodes, 6, lower, &b));
	scores(p, task, x);
	assert_true(b.rel < 1e-12);
	for (uint32_t i = 0; i < 6; i++) {
		double est = b.scale * (lower[i] + b.top);
		if (fabs(x[i] - est) > b.rel * b.scale * (fabs(lower[i]) + fabs(b.top)))
			fail_msg("%s node %u: %.17g, bound %.17g", task, i, x[i], est);
	}
}

static void test_score_bound(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("{}", "") TOPO);
	bound_holds(&p, "c1/p");
	bound_holds(&p, "c1/big");
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/p"), 0), TPH_OK);
	bound_holds(&p, "c1/p");
	bound_holds(&p, "c1/big");
	bound_holds(&p, "c1/p");
	tph_stmt_discard(&st);
	bound_holds(&p, "c1/p");
	double lower[6];
	tph_score_bound b;
	assert_false(tph_score_hn_bound(p.s, pts_task(&p, "c1/t"), 0, p.s->ready_nodes, 6, lower,
	                                &b)); /* network-aware */
	pts_free(&p);
}

static void test_hypernode_order(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("{}", "") TOPO);
	tph_idx cand[3] = {A, B, C};
	double got[3];
	tph_idx sj = tph_task_subjob(p.s, pts_task(&p, "c1/t"));
	/* t and r2 together: 2 cpu, 3Gi */
	tph_hn_order(p.s, sj, cand, 3, got);
	assert_true(fabs(got[0] - (2.0 / 8 + 3.0 / 16) / 2 * 100) < 1e-9);
	assert_true(fabs(got[1] - (4.0 / 4 + 3.0 / 8) / 2 * 100) < 1e-9);
	assert_true(fabs(got[2] - (2.0 / 4 + 3.0 / 8) / 2 * 100) < 1e-9);
	double best;
	assert_int_equal(tph_hn_best(cand, got, 3, &best), B);
	assert_true(fabs(best - got[1]) < 1e-9);
	/* nothing to binpack: every hypernode ties at 0, e1 runs under C */
	tph_idx cd[2] = {C, D};
	tph_idx e2 = tph_task_subjob(p.s, pts_task(&p, "c1/e2"));
	tph_hn_order(p.s, e2, cd, 2, got);
	assert_true(fabs(got[0] - 50) < 1e-9 && fabs(got[1]) < 1e-9);
	/* each alone: no tie, so no task share; the bits of one-candidate calls */
	double each[3], one;
	tph_hn_order_each(p.s, e2, cd, 2, each);
	for (uint32_t i = 0; i < 2; i++) {
		tph_hn_order(p.s, e2, &cd[i], 1, &one);
		assert_memory_equal(&each[i], &one, sizeof one);
	}
	assert_true(fabs(each[0]) < 1e-9);
	tph_hn_order_each(p.s, sj, cand, 3, each);
	assert_true(fabs(each[1] - (4.0 / 4 + 3.0 / 8) / 2 * 100) < 1e-9);
	for (uint32_t i = 0; i < 3; i++) {
		tph_hn_order(p.s, sj, &cand[i], 1, &one);
		assert_memory_equal(&each[i], &one, sizeof one);
	}
	/* allocations move the plugin's `used` */
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/big"), 0), TPH_OK);
	tph_hn_order(p.s, sj, cand, 1, got);
	assert_true(fabs(got[0] - (7.0 / 8 + 3.0 / 16) / 2 * 100) < 1e-9);
	tph_stmt_discard(&st);
	tph_hn_order(p.s, sj, cand, 1, got);
	assert_true(fabs(got[0] - (2.0 / 8 + 3.0 / 16) / 2 * 100) < 1e-9);
	pts_free(&p);
}

static char *gradient_text(const tph_hn_gradient *g, char *buf, size_t cap)
{
	size_t len = 0;
	buf[0] = 0;
	for (uint32_t k = 0, i = 0; k < g->n_groups && len < cap; k++) {
		len += (size_t)snprintf(buf + len, cap - len, "[");
		for (; i < g->end[k] && len < cap; i++)
			len += (size_t)snprintf(buf + len, cap - len, "%s%u",
			                        i > (k ? g->end[k - 1] : 0) ? " " : "", g->hn[i]);
		len += (size_t)snprintf(buf + len, cap - len, "]");
	}
	return buf;
}

static void job_gradient(pts *p, const char *job, int purpose, const char *want)
{
	tph_idx hn[8];
	uint32_t end[8];
	char buf[128];
	tph_hn_gradient g = {hn, end, 0, 0};
	tph_hn_gradient_for_job(p->s, pts_job(p, job), p->s->topo->t.top, purpose, &g);
	assert_string_equal(gradient_text(&g, buf, sizeof buf), want);
}

static void test_gradients(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("{hypernode.gradient.evict.max-hypernodes: 2}", "") TOPO);
	/* fresh: tier 1, minResources 6 cpu: only A has that much idle */
	job_gradient(&p, "c1/fresh", TPH_PURPOSE_ALLOCATE, "[0]");
	/* net runs r2 on d1: its search is D itself, unfiltered */
	job_gradient(&p, "c1/net", TPH_PURPOSE_ALLOCATE, "[4]");
	/* spread runs on b1: the search starts at S, no resource filter */
	job_gradient(&p, "c1/spread", TPH_PURPOSE_ALLOCATE, "[0 1][2]");
	job_gradient(&p, "c1/plain", TPH_PURPOSE_ALLOCATE, "[5]");
	/* eviction: against allocatable, widest first, capped at 2 */
	job_gradient(&p, "c1/spread", TPH_PURPOSE_EVICT, "[2][1]");
	/* the pre-filter keeps the idle of session open, as Volcano's cache does */
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/big"), 0), TPH_OK);
	assert_true(p.s->topo->t.idle[A] < 6000);
	job_gradient(&p, "c1/fresh", TPH_PURPOSE_ALLOCATE, "[0]");
	tph_stmt_discard(&st);
	/* a subjob: its pending tasks' requests (f: 1 cpu) under S */
	tph_idx hn[8];
	uint32_t end[8];
	char buf[128];
	tph_hn_gradient g = {hn, end, 0, 0};
	tph_hn_gradient_for_subjob(p.s, tph_task_subjob(p.s, pts_task(&p, "c1/f")), S,
	                           TPH_PURPOSE_ALLOCATE, &g);
	assert_string_equal(gradient_text(&g, buf, sizeof buf), "[0 1]");
	/* net's subjob is allocated under D, which S does not hold: no gradient */
	tph_hn_gradient_for_subjob(p.s, tph_task_subjob(p.s, pts_task(&p, "c1/t")), S,
	                           TPH_PURPOSE_ALLOCATE, &g);
	assert_string_equal(gradient_text(&g, buf, sizeof buf), "");
	pts_free(&p);
}

#define GPU_TOPO                                                                                   \
	"queues: [{name: q1}]\n"                                                                   \
	"nodes:\n"                                                                                 \
	"  - {name: g1, allocatable: {cpu: '8', memory: 16Gi, nvidia.com/gpu: '4', pods: '10'}}\n" \
	"  - {name: g2, allocatable: {cpu: '8', memory: 16Gi, pods: '10'}}\n"                      \
	"hyperNodes:\n"                                                                            \
	"  - {name: G, tier: 1, members: [g1]}\n"                                                  \
	"  - {name: H, tier: 1, members: [g2]}\n"                                                  \
	"  - {name: P, tier: 2, members: [G, H]}\n"                                                \
	"podGroups:\n"                                                                             \
	"  - {name: run, namespace: c1, queue: q1}\n"                                              \
	"  - {name: gp, namespace: c1, queue: q1, minResources: {nvidia.com/gpu: '3'},"            \
	" networkTopology: {mode: hard, highestTierAllowed: 2}}\n"                                 \
	"  - {name: mem, namespace: c1, queue: q1, minResources: {memory: 20Gi},"                  \
	" networkTopology: {mode: hard, highestTierAllowed: 2}}\n"                                 \
	"  - {name: many, namespace: c1, queue: q1, minResources: {pods: '11'},"                   \
	" networkTopology: {mode: hard, highestTierAllowed: 2}}\n"                                 \
	"pods:\n"                                                                                  \
	"  - {name: r, namespace: c1, podGroup: run, phase: Running, nodeName: g1,"                \
	" requests: {cpu: '2', nvidia.com/gpu: '1'}}\n"                                            \
	"  - {name: x, namespace: c1, podGroup: gp,"                                               \
	" requests: {cpu: '1', memory: 1Gi, nvidia.com/gpu: '2'}}\n"                               \
	"  - {name: y, namespace: c1, podGroup: mem, requests: {cpu: '1', memory: 20Gi}}\n"        \
	"  - {name: z, namespace: c1, podGroup: many, requests: {cpu: '1'}}\n"                     \
	"  - {name: w, namespace: c1, podGroup: run,"                                              \
	" requests: {cpu: '1', memory: 20Gi, nvidia.com/gpu: '2'}}\n"

/* Scores over runs of nodes of one rack, broken by a node in no hypernode (z) and by other
 * racks, equal the same nodes' scores in a call over every node, bit for bit: the calls carry
 * a rack's score along its run. (For u the two calls tie at the same top, a1 a2 b1.) */
static void test_rack_runs(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("{}", "") TOPO);
	tph_idx u = pts_task(&p, "c1/u");
	assert_int_equal(tph_topo_task_hn_make(p.s), TPH_OK);
	p.s->topo->task_job_hn[u] = S;
	const tph_idx *r = p.s->ready_nodes; /* a1 a2 b1 c1 d1 z */
	/* the second ties (b1 twice: its share, u2 runs there) only if z does not hide B */
	uint32_t at[2][9] = {{0, 5, 1, 2, 2, 0, 5, 5, 3}, {2, 5, 2}}, len[2] = {9, 3};
	const char *tasks[2] = {"c1/u", "c1/p"};
	for (int k = 0; k < 4; k++) {
		tph_idx runs[9];
		double all[9], full[6];
		const uint32_t *a = at[k / 2];
		for (uint32_t i = 0; i < len[k / 2]; i++)
			runs[i] = r[a[i]];
		scores(&p, tasks[k % 2], full);
		tph_score_nodes(p.s, pts_task(&p, tasks[k % 2]), runs, len[k / 2], all);
		for (uint32_t i = 0; i < len[k / 2]; i++)
			if (memcmp(&full[a[i]], &all[i], sizeof *all))
				fail_msg("%s entry %u: %.17g over every node, %.17g here",
				         tasks[k % 2], i, full[a[i]], all[i]);
	}
	pts_free(&p);
}

/* Binpack's and the pre-filter's dimensions, prepared once per request row: a weighted
 * scalar counts, a zero-weight dimension (memory here) adds nothing but still scores 0 when
 * it overflows, a hypernode without the scalar overflows; the pre-filter compares a requested
 * scalar, memory and pods (against the allocatable). */
static void test_prepared_rows(void **state)
{
	(void)state;
	pts p;
	pts_open(&p,
	         CONF("{hypernode.binpack.memory: 0, hypernode.binpack.resources: nvidia.com/gpu,"
	              " hypernode.binpack.resources.nvidia.com/gpu: 2}",
	              "") "" GPU_TOPO);
	enum {
		G,
		H,
		P
	};
	tph_idx cand[3] = {G, H, P};
	double got[3];
	tph_hn_order(p.s, tph_task_subjob(p.s, pts_task(&p, "c1/x")), cand, 3, got);
	double want[3] = {100.0 * ((1.0 * (3.0 / 8) + 0.0 * (1.0 / 16) + 2.0 * (3.0 / 4)) / 3), 0,
	                  100.0 * ((1.0 * (3.0 / 16) + 0.0 * (1.0 / 32) + 2.0 * (3.0 / 4)) / 3)};
	assert_memory_equal(got, want, sizeof want);
	/* x placed on g1: 5 gpus asked of G's and P's 4 (the scalar's used moves too), so every
	 * binpack is 0 */
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/x"), 0), TPH_OK);
	tph_hn_order(p.s, tph_task_subjob(p.s, pts_task(&p, "c1/x")), cand, 3, got);
	double placed[3] = {100, 0, 100}; /* all 0: the tie break's share of x, now on g1 */
	assert_memory_equal(got, placed, sizeof placed);
	tph_stmt_discard(&st);
	tph_hn_order(p.s, tph_task_subjob(p.s, pts_task(&p, "c1/x")), cand, 3, got);
	assert_memory_equal(got, want, sizeof want);
	tph_hn_order(p.s, tph_task_subjob(p.s, pts_task(&p, "c1/y")), cand, 3, got);
	double want_y[3] = {0, 0, 100.0 * ((1.0 * (3.0 / 16) + 0.0 * (20.0 / 32)) / 1)};
	assert_memory_equal(got, want_y, sizeof want_y);
	/* w, a normal pod, per node: tier 1 overflows (memory on G, the gpu on H) */
	double both = (1.0 * (3.0 / 16) + 0.0 * (20.0 / 32) + 2.0 * (3.0 / 4)) / 3;
	double node[2];
	tph_score_nodes(p.s, pts_task(&p, "c1/w"), p.s->ready_nodes, 2, node);
	for (int i = 0; i < 2; i++)
		assert_true(fabs(node[i] - (0.8 * both + 0.64 * both) / 2.44 * 100) < 1e-9);
	job_gradient(&p, "c1/gp", TPH_PURPOSE_ALLOCATE, "[0][2]"); /* 3 gpus idle on G only */
	job_gradient(&p, "c1/mem", TPH_PURPOSE_ALLOCATE, "[2]");   /* 20Gi: only P */
	job_gradient(&p, "c1/many", TPH_PURPOSE_ALLOCATE, "[2]");  /* 11 pods: only P */
	job_gradient(&p, "c1/gp", TPH_PURPOSE_EVICT, "[2][0]");    /* 4 gpus allocatable on G */
	pts_free(&p);
}

static void test_flags(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("{}", "      enabledHyperNodeGradient: false\n"
	                        "      enabledHyperNodeOrder: false\n") TOPO);
	job_gradient(&p, "c1/net", TPH_PURPOSE_ALLOCATE, "[5]");
	assert_int_equal(p.s->ep[TPH_EP_HN_GRADIENT_JOB].n, 0);
	assert_int_equal(p.s->ep[TPH_EP_HN_GRADIENT_SUBJOB].n, 0);
	assert_int_equal(p.s->ep[TPH_EP_HYPERNODE_ORDER].n, 0);
	assert_int_equal(p.s->ep[TPH_EP_BATCH_NODE_ORDER].n, 1);
	tph_idx cand[2] = {A, B};
	double got[2] = {7, 7};
	tph_hn_order(p.s, 0, cand, 2, got);
	assert_true(got[0] == 0 && got[1] == 0);
	pts_free(&p);
}

static void test_binds_per_hypernode(void **state)
{
	(void)state;
	static const char base[] =
	    "conf: |\n  actions: \"allocate\"\n  tiers:\n  - plugins:\n    - name: gang\n"
	    "    - name: predicates\n"
	    "queues: [{name: q1}]\n"
	    "nodes:\n"
	    "  - {name: a1, allocatable: {cpu: '2', pods: '10'}}\n"
	    "  - {name: a2, allocatable: {cpu: '2', pods: '10'}}\n"
	    "  - {name: b1, allocatable: {cpu: '2', pods: '10'}}\n"
	    "hyperNodes:\n"
	    "  - {name: A, tier: 1, members: [a1, a2]}\n"
	    "  - {name: B, tier: 1, members: [b1]}\n"
	    "podGroups: [{name: pg, namespace: c1, queue: q1, minMember: 3, phase: Inqueue}]\n"
	    "pods:\n"
	    "  - {name: p1, namespace: c1, podGroup: pg, requests: {cpu: '2'}}\n"
	    "  - {name: p2, namespace: c1, podGroup: pg, requests: {cpu: '2'}}\n"
	    "  - {name: p3, namespace: c1, podGroup: pg, requests: {cpu: '2'}}\n"
	    "expect:\n  bindsPerHyperNode: ";
	const char *cases[][2] = {
	    {"[2, 1]", ""}, {"[1, 2]", ""}, {"[3]", "expected [3], got [1, 2]"}};
	for (int i = 0; i < 3; i++) {
		char yaml[2048];
		snprintf(yaml, sizeof yaml, "%s%s\n", base, cases[i][0]);
		pts p;
		pts_open(&p, yaml);
		assert_int_equal(tph_session_run(p.s, &p.d), TPH_OK);
		assert_int_equal(tph_session_close(p.s, &p.d), TPH_OK);
		tph_check_report r = {0};
		tph_check_expect(p.scn, p.s, &r);
		if (cases[i][1][0])
			assert_non_null(r.buf && strstr(r.buf, cases[i][1]));
		else
			assert_int_equal(r.failures, 0);
		tph_report_free(&r);
		pts_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_normal_pods),     cmocka_unit_test(test_normal_pod_arguments),
	    cmocka_unit_test(test_hn_set),          cmocka_unit_test(test_network_aware),
	    cmocka_unit_test(test_tie_break_moves), cmocka_unit_test(test_kept_sums),
	    cmocka_unit_test(test_hypernode_order), cmocka_unit_test(test_gradients),
	    cmocka_unit_test(test_flags),           cmocka_unit_test(test_binds_per_hypernode),
	    cmocka_unit_test(test_prepared_rows),   cmocka_unit_test(test_rack_runs),
	    cmocka_unit_test(test_score_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

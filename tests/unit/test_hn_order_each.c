/* HyperNodeOrder scored each hypernode alone in one call (tph_on_hypernode_order_each,
 * kernel/src/session/ep_topology.c): tph_hn_order_each must give, bit for bit, what one call
 * per hypernode gives, summed over the plugins in their order; it may take the one-call path
 * only when every HyperNodeOrder plugin registers one. Two spy plugins: "hoa" scores by the
 * call's size as well (a multi-candidate call differs from one-candidate calls, as a tie break
 * would), "hob" by the hypernode alone; each optionally registers its each-callback and logs
 * its calls. Also the other pieces of the search's ranking (allocate_hn_job.c's rank): the
 * scored heap (action_scored.c) and the summed-room filter (allocate_hn_bound.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "allocate/allocate_hn.h"
#include "common/action_util.h"
#include "harness.h"
#include "session/topo/hypernode.h"

typedef struct ho_st {
	bool each; /* register the each-callback */
} ho_st;

static struct {
	uint32_t calls[2], each_calls[2]; /* per plugin: 0 hoa, 1 hob */
} ho_log;

static const tph_arg_spec ho_args[] = {
    {"each", TPH_ARG_BOOL, "true", 0, 0, offsetof(ho_st, each), NULL},
    {0},
};

/* hoa's score of h in a call of n: -0.0 for hypernode 0 alone (0 + -0 is +0, the sum's bits),
 * else a value that is not a sum of short binary fractions, so the order of additions shows. */
static double hoa_score(tph_idx h, uint32_t n)
{
	return h == 0 && n == 1 ? -0.0 : 0.1 * (h + 1) + 1000.0 * (n - 1);
}

static double hob_score(tph_idx h)
{
	return 1e16 + 0.3 * h;
}

static void hoa_order(void *st, const tph_session *s, tph_idx sj, const tph_idx *hns, uint32_t n,
                      double *out)
{
	(void)st, (void)s, (void)sj;
	ho_log.calls[0]++;
	for (uint32_t i = 0; i < n; i++)
		out[i] = hoa_score(hns[i], n);
}

static void hoa_each(void *st, const tph_session *s, tph_idx sj, const tph_idx *hns, uint32_t n,
                     double *out)
{
	(void)st, (void)s, (void)sj;
	ho_log.each_calls[0]++;
	for (uint32_t i = 0; i < n; i++)
		out[i] = hoa_score(hns[i], 1);
}

static void hob_order(void *st, const tph_session *s, tph_idx sj, const tph_idx *hns, uint32_t n,
                      double *out)
{
	(void)st, (void)s, (void)sj;
	ho_log.calls[1]++;
	for (uint32_t i = 0; i < n; i++)
		out[i] = hob_score(hns[i]);
}

static void hob_each(void *st, const tph_session *s, tph_idx sj, const tph_idx *hns, uint32_t n,
                     double *out)
{
	(void)st, (void)s, (void)sj;
	ho_log.each_calls[1]++;
	for (uint32_t i = 0; i < n; i++)
		out[i] = hob_score(hns[i]);
}

static int open_with(tph_session *s, const ho_st *st, tph_hn_score_fn order, tph_hn_score_fn each)
{
	int rc = tph_on_hypernode_order(s, order);
	if (!rc && st->each)
		rc = tph_on_hypernode_order_each(s, each);
	return rc;
}

static int hoa_open(tph_session *s, void *st, const tph_args *args)
{
	(void)args;
	return open_with(s, st, hoa_order, hoa_each);
}

static int hob_open(tph_session *s, void *st, const tph_args *args)
{
	(void)args;
	return open_with(s, st, hob_order, hob_each);
}

static const tph_plugin hoa_plugin = {
    TPH_PLUGIN_ABI, "hnorder-a", ho_args, sizeof(ho_st), hoa_open, NULL,
};
static const tph_plugin hob_plugin = {
    TPH_PLUGIN_ABI, "hnorder-b", ho_args, sizeof(ho_st), hob_open, NULL,
};

static int setup(void **state)
{
	(void)state;
	return pts_register(&hoa_plugin) || pts_register(&hob_plugin);
}

/* Three racks under the top; hnorder-a then, unless b_each is NULL, hnorder-b, each with its
 * `each` argument. */
static void open_pair(pts *p, const char *a_each, const char *b_each)
{
	char yaml[2048], b[128] = "";
	if (b_each)
		snprintf(b, sizeof b, "    - name: hnorder-b\n      arguments: {each: %s}\n",
		         b_each);
	snprintf(yaml, sizeof yaml,
	         "conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n"
	         "    - name: hnorder-a\n      arguments: {each: %s}\n%s"
	         "queues: [{name: q1}]\n"
	         "nodes:\n"
	         "  - {name: n0, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"
	         "  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"
	         "  - {name: n2, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"
	         "hyperNodes:\n"
	         "  - {name: R0, tier: 1, members: [n0]}\n"
	         "  - {name: R1, tier: 1, members: [n1]}\n"
	         "  - {name: R2, tier: 1, members: [n2]}\n"
	         "podGroups:\n  - {name: g, namespace: ns, queue: q1}\n"
	         "pods:\n  - {name: t, namespace: ns, podGroup: g, requests: {cpu: '1'}}\n",
	         a_each, b);
	pts_open(p, yaml);
	memset(&ho_log, 0, sizeof ho_log);
}

/* tph_hn_order_each against one tph_hn_order call per hypernode, bit for bit. */
static void each_matches_ones(pts *p)
{
	tph_idx hns[3] = {2, 0, 1};
	double each[3], one;
	tph_idx sj = tph_task_subjob(p->s, pts_task(p, "ns/t"));
	tph_hn_order_each(p->s, sj, hns, 3, each);
	for (uint32_t i = 0; i < 3; i++) {
		tph_hn_order(p->s, sj, &hns[i], 1, &one);
		assert_memory_equal(&each[i], &one, sizeof one);
	}
}

static void test_both_each(void **state)
{
	(void)state;
	pts p;
	open_pair(&p, "true", "true");
	tph_idx hns[3] = {2, 0, 1};
	double got[3];
	tph_hn_order_each(p.s, 0, hns, 3, got);
	/* one call per plugin, none of the per-candidate ones */
	assert_int_equal(ho_log.each_calls[0], 1);
	assert_int_equal(ho_log.each_calls[1], 1);
	assert_int_equal(ho_log.calls[0] + ho_log.calls[1], 0);
	each_matches_ones(&p);
	/* an empty call writes nothing and fails nothing */
	tph_hn_order_each(p.s, 0, hns, 0, got);
	pts_free(&p);
}

/* One plugin: its -0.0 adds to the zero the sum starts from, +0.0 as one call per hypernode
 * gives it. */
static void test_single_sign(void **state)
{
	(void)state;
	pts p;
	open_pair(&p, "true", NULL);
	tph_idx hns[3] = {2, 0, 1};
	double got[3];
	tph_hn_order_each(p.s, 0, hns, 3, got);
	assert_int_equal(ho_log.each_calls[0], 1);
	assert_int_equal(ho_log.calls[0], 0);
	assert_true(got[1] == 0 && !signbit(got[1]));
	each_matches_ones(&p);
	pts_free(&p);
}

/* One plugin without the each-callback: every plugin is asked once per hypernode. */
static void test_one_without(void **state)
{
	(void)state;
	const char *args[2][2] = {{"true", "false"}, {"false", "true"}};
	for (uint32_t k = 0; k < 2; k++) {
		pts p;
		open_pair(&p, args[k][0], args[k][1]);
		tph_idx hns[3] = {2, 0, 1};
		double got[3];
		tph_hn_order_each(p.s, 0, hns, 3, got);
		assert_int_equal(ho_log.each_calls[0] + ho_log.each_calls[1], 0);
		assert_int_equal(ho_log.calls[0], 3);
		assert_int_equal(ho_log.calls[1], 3);
		each_matches_ones(&p);
		pts_free(&p);
	}
}

/* The registration: only while a plugin opens, and with a callback. */
static void test_registration(void **state)
{
	(void)state;
	pts p;
	open_pair(&p, "true", "true");
	assert_int_equal(tph_on_hypernode_order_each(p.s, hoa_each), TPH_EFROZEN);
	pts_free(&p);
	assert_int_equal(tph_on_hypernode_order_each(NULL, NULL), TPH_EINVAL);
}

/* The heap pops every entry in tph_scored_cmp's order: ties on the key by position, for every
 * size up to 40 and keys from few distinct values, as a sort gives them. */
static void test_scored_heap(void **state)
{
	(void)state;
	tph_scored h[40], sorted[40];
	uint32_t seed = 7;
	for (uint32_t n = 0; n <= 40; n++) {
		for (uint32_t round = 0; round < 20; round++) {
			for (uint32_t i = 0; i < n; i++) {
				seed = seed * 1103515245u + 12345u;
				h[i] = (tph_scored){
				    tph_order_key((double)((seed >> 16) % (round + 2))),
				    (i * 7 + round) % n + n * i};
			}
			memcpy(sorted, h, n * sizeof *h);
			qsort(sorted, n, sizeof *sorted, tph_scored_cmp);
			tph_scored_heap(h, n);
			for (uint32_t i = 0, m = n; i < n; i++)
				assert_int_equal(tph_scored_pop(h, &m), sorted[i].pos);
		}
	}
}

/* ahn_sum_keep keeps exactly the hypernodes ahn_sum_short finds not short, in order, with
 * their positions: rows short in the last dimension alone, in the first alone, at equality,
 * hypernodes with pipelined or releasing room, a third dimension (pods) that only the racks
 * kept by the first two lack, no dimension (every one kept) and `all`. */
static void test_sum_keep(void **state)
{
	(void)state;
	pts p;
	open_pair(&p, "true", NULL);
	tph_hn_tree *t = &p.s->topo->t;
	assert_int_equal(tph_hn_aggregates(p.s), TPH_OK);
	ahn_ctx h = {.s = p.s};
	tph_idx hns[4] = {2, 0, 3, 1}, at[4];
	tph_scored o[4];
	/* R1 has a pipelined cpu, R2 a releasing one: future idle 3 and 5 cpus */
	t->pipelined[(size_t)TPH_RES_CPU * t->n + 1] += 1000;
	t->releasing[(size_t)TPH_RES_CPU * t->n + 2] += 1000;
	/* a rack's pods, in the aggregates' unit */
	int64_t pods = t->idle[(size_t)TPH_RES_PODS * t->n];
	assert_true(pods > 0);
	const int64_t rows[9][3] = {{4000, 1, 0},
	                            {3500, 1, 0},
	                            {1, 8LL << 30, 0},
	                            {1, (8LL << 30) + 1, 0},
	                            {5000, 8LL << 30, 0},
	                            {1, 1, pods + 1},
	                            {3500, 1, pods},
	                            {3500, 1, pods + 1},
	                            {0, 0, 0}};
	/* by hand: R1 short of cpu in the first two rows, R0 to R2 of memory alone in the fourth,
	 * R0 and R1 of cpu in the fifth; the racks (10 pods each) of pods alone in the sixth, R1
	 * of cpu in the seventh (pods at equality), R1 of cpu and the others of pods in the
	 * eighth; the top (12 cpus, 24Gi, 30 pods) never; the last row asks for no dimension */
	const uint32_t kept[9] = {3, 3, 4, 1, 2, 1, 3, 1, 4}, dims[9] = {2, 2, 2, 2, 2, 3, 3, 3, 0};
	for (uint32_t r = 0; r < 9; r++) {
		ahn_sum sum = {.n = dims[r],
		               .dim = {TPH_RES_CPU, TPH_RES_MEMORY, TPH_RES_PODS},
		               .v = {rows[r][0], rows[r][1], rows[r][2]}};
		uint32_t c = ahn_sum_keep(&h, &sum, hns, 4, at, o), want = 0;
		for (uint32_t k = 0; k < 4; k++) {
			if (ahn_sum_short(&h, &sum, hns[k]))
				continue;
			assert_true(want < c);
			assert_int_equal(at[want], hns[k]);
			assert_int_equal(o[want++].pos, k);
		}
		assert_int_equal(c, want);
		assert_int_equal(c, kept[r]);
	}
	ahn_sum all = {.all = true};
	assert_int_equal(ahn_sum_keep(&h, &all, hns, 4, at, o), 0);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_both_each),   cmocka_unit_test(test_single_sign),
	    cmocka_unit_test(test_one_without), cmocka_unit_test(test_registration),
	    cmocka_unit_test(test_scored_heap), cmocka_unit_test(test_sum_keep),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

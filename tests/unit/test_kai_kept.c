/* Unit tests for the placement walk's kept verdicts (kernel/actions/kai/place_kept.c): after every
 * statement operation and rollback, the node the kept verdicts give each pending task equals a
 * fresh pass over the pool (the fit test, the summed scores, the name tie-break, the predicates),
 * and over a declared subset (tph_kai_ranges_subset, the solver's scenario nodes) a fresh pass
 * over it, the two kept side by side; and they decline an undeclared subset of the pool, naive
 * mode, and a NodeOrder not declared local. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai/place.h"
#include "kai_fixture.h"
#include "tephra/tephra.h"

#define NODE(name, cpu, gpus)                                                               \
	"  - {name: " name ", allocatable: {cpu: \"" cpu "\", memory: 8G, nvidia.com/gpu: " \
	"\"" gpus "\"}, labels: {pool: a, nvidia.com/gpu.memory: \"100\"}}\n"
#define PG(name) "  - {name: " name ", queue: q}\n"
#define POD(name, job, status, node, gpu)                                             \
	"  - {name: " name ", podGroup: " job ", status: " status ", nodeName: " node \
	", requests: {cpu: \"1\", memory: 1G, nvidia.com/gpu: \"" gpu "\"}}\n"
#define PENDING(name, cpu, gpu)                                                                    \
	"  - {name: " name ", podGroup: p, status: Pending, requests: {cpu: \"" cpu "\", memory: " \
	"1G, nvidia.com/gpu: \"" gpu "\"}}\n"

/* Pool nodes of several sizes (one without GPUs, one full, one idle: the GPU range stays, so the
 * kept verdicts are not filled afresh), one outside the pool, Running and Releasing pods,
 * pending pods of five shapes (three alike). */
#define NODES                \
	NODE("n0", "8", "4") \
	NODE("n1", "8", "4") \
	NODE("n2", "4", "2") \
	NODE("n3", "4", "0") \
	NODE("n4", "16", "8") NODE("n5", "8", "4") NODE("n6", "8", "4") NODE("n7", "16", "8")
#define OUTSIDE                                                                           \
	"  - {name: x, allocatable: {cpu: \"64\", memory: 64G, nvidia.com/gpu: \"16\"}, " \
	"labels: {pool: b}}\n"
#define RUNNING                                 \
	POD("r-0", "r", "Running", "n0", "2")   \
	POD("r-1", "r", "Releasing", "n4", "4") \
	POD("r-2", "r", "Running", "n5", "1") POD("r-3", "r", "Running", "n6", "4")
#define PENDINGS                                                      \
	PENDING("p-0", "1", "1")                                      \
	PENDING("p-1", "1", "2")                                      \
	PENDING("p-2", "2", "0")                                      \
	PENDING("p-3", "1", "1")                                      \
	PENDING("p-4", "1", "4")                                      \
	PENDING("p-6", "1", "1")                                      \
	"  - {name: p-5, podGroup: p, status: Pending, annotations: " \
	"{gpu-fraction: \"0.5\"}}\n"
#define CLUSTER                                                                                    \
	"schedulerParams: {nodePoolLabelKey: pool, nodePoolLabelValue: a}\nnodes:\n" NODES OUTSIDE \
	"podGroups:\n" PG("r") PG("p") "pods:\n" RUNNING PENDINGS

static const char cluster[] = CLUSTER;
/* The same with a preferred pod-affinity term, so podaffinity registers its NodeOrder. */
static const char cluster_aff[] = CLUSTER
    "  - {name: p-9, podGroup: p, status: Pending, requests: {cpu: \"1\"}, labels: {app: web}, "
    "affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 5, "
    "podAffinityTerm: {labelSelector: {matchLabels: {app: web}}, topologyKey: zone}}]}}}\n";

#define TIER                                                                              \
	"[{name: predicates}, {name: nodeavailability}, {name: gpusharingorder}, {name: " \
	"gpupack}, "                                                                      \
	"{name: resourcetype}, {name: nominatednode}, {name: nodeplacement}"

static const char *const pending[] = {"p-0", "p-1", "p-2", "p-3", "p-4", "p-5", "p-6"};

/* What the kept verdicts give task t over the pool, NodePreOrder first as the walk runs it. */
static int64_t kept(tph_kai_placer *p, uint32_t t, const uint32_t *pool, uint32_t n)
{
	tph_kai_ranges_read(p->s);
	tph_kai_node_pre_order(p->s, t, pool, n);
	return tph_kai_kept_best(p, t, pool, n);
}

/* The best-ordered node of the pool task t fits, scores and passes the predicates on. */
static int64_t fresh(tph_kai_placer *p, uint32_t t, const uint32_t *pool, uint32_t n)
{
	double need[TPH_KAI_DIMS], best_sc = 0;
	int64_t best = -1;
	tph_kai_node_pre_order(p->s, t, pool, n);
	tph_kai_place_need(p->s, t, need);
	for (uint32_t i = 0; i < n; i++) {
		double sc;
		if (tph_kai_place_eval(p->s, t, need, pool[i], &sc) == 1 &&
		    tph_kai_predicate(p->s, t, pool[i]) &&
		    (best < 0 || tph_kai_ranked_before(sc, p->name_rank[pool[i]], best_sc,
		                                       p->name_rank[best]))) {
			best = pool[i];
			best_sc = sc;
		}
	}
	return best;
}

static uint32_t sub[16], n_sub; /* the declared subset (n_sub 0: none) */

/* Declares every `step`th pool node from `from` the subset (at the same address each time). */
static void declare(const kf *f, uint32_t from, uint32_t step)
{
	uint32_t pool[16], n = kai_pool_of(f, pool);
	n_sub = 0;
	for (uint32_t i = from; i < n; i += step)
		sub[n_sub++] = pool[i];
	tph_kai_ranges_subset(f->s, sub, n_sub);
}

/* No subset declared any more (before the placer and session that read it go). */
static void undeclare(const kf *f)
{
	tph_kai_ranges_subset(f->s, NULL, 0);
	n_sub = 0;
}

/* Every pending task, twice (the second ask reads the sorted verdicts), over the pool and the
 * declared subset in turn: kept = fresh. */
static void check_all(const kf *f, tph_kai_placer *p)
{
	uint32_t pool[16], n = kai_pool_of(f, pool);
	for (int round = 0; round < 4; round++)
		for (size_t i = 0; i < sizeof pending / sizeof *pending; i++) {
			uint32_t t = task_of(f, pending[i]);
			const uint32_t *set = round % 2 && n_sub ? sub : pool;
			uint32_t count = set == sub ? n_sub : n;
			if (tph_kai_session_status(f->s)[t] != TPH_KAI_TS_PENDING)
				continue;
			int64_t want = fresh(p, t, set, count);
			assert_int_equal(kept(p, t, set, count), want);
		}
}

/* Placements onto the node the kept verdicts prefer (twice in a row onto one node, which the
 * touch log must not fold into one entry after a read), an eviction, a pipeline onto releasing
 * GPUs, a shared device, then rollbacks to each checkpoint. */
static void test_follows_statement(void **state)
{
	(void)state;
	kf f;
	kai_open_tier(&f, "allocate", TIER "]", cluster);
	tph_kai_session *s = f.s;
	tph_kai_placer p;
	assert_int_equal(tph_kai_placer_init(&p, s), 0);
	uint32_t pool[16], n = kai_pool_of(&f, pool);
	declare(&f, 0, 2);
	check_all(&f, &p);
	uint32_t start = s->n_ops;
	int64_t at = kept(&p, task_of(&f, "p-0"), pool, n);
	assert_true(at >= 0);
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p-0"), (uint32_t)at), 0);
	check_all(&f, &p);
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p-3"), (uint32_t)at), 0);
	check_all(&f, &p);
	uint32_t mid = s->n_ops;
	assert_int_equal(tph_kai_stmt_evict(s, task_of(&f, "r-0")), 0);
	check_all(&f, &p);
	assert_int_equal(tph_kai_stmt_pipeline(s, task_of(&f, "p-4"), kai_node_named(&f, "n4")), 0);
	check_all(&f, &p);
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p-5"), kai_node_named(&f, "n1")), 0);
	check_all(&f, &p);
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p-1"), kai_node_named(&f, "n2")), 0);
	check_all(&f, &p);
	tph_kai_stmt_rollback(s, mid);
	check_all(&f, &p);
	declare(&f, 1, 2); /* new contents at the same address */
	check_all(&f, &p);
	tph_kai_stmt_rollback(s, start);
	check_all(&f, &p);
	undeclare(&f);
	tph_kai_placer_free(&p);
	close_kai(&f);
}

/* A node touched twice in a row, a shape filled in between: the second touch is news. */
static void test_touched_twice(void **state)
{
	(void)state;
	kf f;
	kai_open_tier(&f, "allocate", TIER "]", cluster);
	tph_kai_session *s = f.s;
	uint32_t pool[16], n = kai_pool_of(&f, pool), n0 = kai_node_named(&f, "n0");
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p-0"), n0), 0);
	tph_kai_placer p;
	assert_int_equal(tph_kai_placer_init(&p, s), 0);
	uint32_t t = task_of(&f, "p-6");
	assert_int_equal(kept(&p, t, pool, n), n0); /* filled now: n0, the fullest, fits one */
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p-3"), n0), 0);
	int64_t want = fresh(&p, t, pool, n);
	assert_true(want >= 0 && want != n0);
	assert_int_equal(kept(&p, t, pool, n), want);
	tph_kai_placer_free(&p);
	close_kai(&f);
}

/* A move of the most free node inwards changes the GPU range and with it the binpack score of
 * every node: d holds the least free GPUs (but no cpu, so nothing fits it), b is the best of
 * the rest (4 of 2..6 free); 3 GPUs taken on c make c the fullest of b and c (3 of 2..4), which
 * only scores taken afresh can tell (kept ones tie c's with b's, and b's name goes first). */
static void test_range_moves(void **state)
{
	(void)state;
	kf f;
	kai_open_tier(&f, "allocate", TIER "]",
	              "schedulerParams: {nodePoolLabelKey: pool, nodePoolLabelValue: a}\n"
	              "nodes:\n" NODE("b", "8", "4") NODE("c", "8", "6")
	                  NODE("d", "1", "2") "podGroups:\n" PG("r")
	                      PG("p") "pods:\n" POD("r-0", "r", "Running", "d", "0")
	                          PENDING("p-0", "1", "1") PENDING("p-1", "1", "3"));
	tph_kai_session *s = f.s;
	uint32_t pool[4], n = kai_pool_of(&f, pool), t = task_of(&f, "p-0");
	tph_kai_placer p;
	assert_int_equal(tph_kai_placer_init(&p, s), 0);
	assert_int_equal(kept(&p, t, pool, n), kai_node_named(&f, "b"));
	assert_int_equal(kept(&p, t, pool, n), kai_node_named(&f, "b")); /* sorted now */
	assert_int_equal(tph_kai_stmt_allocate(s, task_of(&f, "p-1"), kai_node_named(&f, "c")), 0);
	assert_int_equal(fresh(&p, t, pool, n), kai_node_named(&f, "c"));
	assert_int_equal(kept(&p, t, pool, n), kai_node_named(&f, "c"));
	tph_kai_placer_free(&p);
	close_kai(&f);
}

/* Placements and rollbacks over the pool, asked after each: more touches than a refresh waits
 * for (32 plus one per 64 nodes), so the kept verdicts are merged with the touched nodes' many
 * times, then asked again with the statement holding placements. */
static void test_refreshes(void **state)
{
	(void)state;
	kf f;
	kai_open_tier(&f, "allocate", TIER "]", cluster);
	tph_kai_session *s = f.s;
	tph_kai_placer p;
	assert_int_equal(tph_kai_placer_init(&p, s), 0);
	uint32_t pool[16], n = kai_pool_of(&f, pool);
	static const char *const movers[] = {"p-0", "p-1", "p-2", "p-5"};
	for (uint32_t round = 0; round < 48; round++) {
		if (round % 16 == 0)
			declare(&f, round / 16, 1 + round / 16);
		uint32_t cp = tph_kai_stmt_checkpoint(s);
		uint32_t t = task_of(&f, movers[round % 4]);
		int64_t at = kept(&p, t, pool, n);
		if (at >= 0 && tph_kai_session_status(s)[t] == TPH_KAI_TS_PENDING)
			assert_int_equal(tph_kai_stmt_allocate(s, t, (uint32_t)at), 0);
		check_all(&f, &p);
		if (round != 21 && round != 42) /* two placements stay */
			tph_kai_stmt_rollback(s, cp);
		check_all(&f, &p);
	}
	undeclare(&f);
	tph_kai_placer_free(&p);
	close_kai(&f);
}

/* Not kept: an undeclared subset of the pool, naive mode, a NodeOrder registered without locality
 * (podaffinity's). */
static void test_declines(void **state)
{
	(void)state;
	kf f;
	kai_open_tier(&f, "allocate", TIER "]", cluster);
	tph_kai_placer p;
	assert_int_equal(tph_kai_placer_init(&p, f.s), 0);
	uint32_t pool[16], n = kai_pool_of(&f, pool), t = task_of(&f, "p-0");
	assert_true(kept(&p, t, pool, n) >= 0);
	assert_int_equal(kept(&p, t, pool, n - 1), -3);
	tph_kai_ranges_subset(f.s, pool, n - 1);
	assert_true(kept(&p, t, pool, n - 1) >= 0);
	assert_int_equal(kept(&p, t, pool + 1, n - 1), -3);
	tph_kai_ranges_subset(f.s, NULL, 0);
	assert_int_equal(kept(&p, t, pool, n - 1), -3);
	tph_kai_session_set_naive(f.s, true);
	assert_int_equal(kept(&p, t, pool, n), -3);
	tph_kai_placer_free(&p);
	close_kai(&f);
	kai_open_tier(&f, "allocate", TIER ", {name: podaffinity}]", cluster_aff);
	assert_int_equal(tph_kai_placer_init(&p, f.s), 0);
	n = kai_pool_of(&f, pool);
	assert_int_equal(kept(&p, task_of(&f, "p-0"), pool, n), -3);
	tph_kai_placer_free(&p);
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_follows_statement), cmocka_unit_test(test_touched_twice),
	    cmocka_unit_test(test_range_moves),       cmocka_unit_test(test_refreshes),
	    cmocka_unit_test(test_declines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

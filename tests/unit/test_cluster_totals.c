/* The cluster's kept sums of its bounded row columns (cluster_totals.c): equal to the sums
 * recomputed from the cache after puts, replacements, removals, compaction and new resource
 * names; the overflow error the same as a walk of the cache gives; and a snapshot taken after
 * the churn (over a parked arena) equal to one of a cache built with the end state only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cache/cluster_int.h"

#define BIG TPH_RES_VALUE_MAX

static tph_cluster *cache(void)
{
	tph_cluster *c = NULL;
	assert_int_equal(tph_cluster_create(&c), TPH_OK);
	return c;
}

static void node(tph_cluster *c, const char *name, int64_t cpu, const char *extra)
{
	tph_res_item al[] = {{"cpu", cpu}, {"memory", 8LL << 30}, {extra ? extra : "pods", 7}};
	tph_res_item cap[] = {{"cpu", cpu + 1}};
	tph_node_desc n = TPH_NODE_DESC_INIT;
	n.name = name;
	n.allocatable = (tph_res_list){al, 3};
	n.capacity = (tph_res_list){cap, cpu % 2 ? 1u : 0u}; /* odd: capacity of its own */
	assert_int_equal(tph_cluster_put_node(c, &n, NULL), TPH_OK);
}

static void pod(tph_cluster *c, const char *name, int64_t cpu, const char *at, const char *pg)
{
	tph_res_item rq[] = {{"cpu", cpu}, {"memory", cpu << 10}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = name;
	p.namespace_ = "ns";
	p.requests = (tph_res_list){rq, 2};
	p.node_name = at;
	p.phase = at ? TPH_POD_RUNNING : TPH_POD_PENDING;
	p.nominated_node = at ? NULL : "n0"; /* pending pods wait for n0 */
	p.pod_group = pg;
	assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_OK);
}

static void podgroup(tph_cluster *c, const char *name, int64_t cpu)
{
	tph_res_item mr[] = {{"cpu", cpu}};
	tph_podgroup_desc g = TPH_PODGROUP_DESC_INIT;
	g.name = name;
	g.namespace_ = "ns";
	g.queue = "default";
	g.min_member = 1;
	g.min_resources = (tph_res_list){mr, 1};
	assert_int_equal(tph_cluster_put_podgroup(c, &g, NULL), TPH_OK);
}

static void queue(tph_cluster *c, const char *name, int64_t cap, int64_t des, int64_t gua)
{
	tph_res_item a[] = {{"cpu", cap}}, b[] = {{"cpu", des}}, g[] = {{"memory", gua}};
	tph_queue_desc q = TPH_QUEUE_DESC_INIT;
	q.name = name;
	q.weight = 1;
	q.capability = (tph_res_list){a, 1};
	q.deserved = (tph_res_list){b, 1};
	q.guarantee = (tph_res_list){g, 1};
	assert_int_equal(tph_cluster_put_queue(c, &q, NULL), TPH_OK);
}

static void quota(tph_cluster *c, const char *name, int64_t hard, int64_t used)
{
	tph_res_item h[] = {{"cpu", hard}}, u[] = {{"cpu", used}};
	tph_quota_desc q = TPH_QUOTA_DESC_INIT;
	q.name = name;
	q.namespace_ = "ns";
	q.hard = (tph_res_list){h, 1};
	q.used = (tph_res_list){u, 1};
	assert_int_equal(tph_cluster_put_quota(c, &q, NULL), TPH_OK);
}

/* Every kept sum against the sum over the cache's live rows, column by column. */
static void expect_totals(const tph_cluster *c)
{
	const struct {
		const tph_kind *k;
		uint32_t col;
	} cols[TPH_CL_TOTAL_COLS] = {
	    {&c->nodes, N_ALLOC}, {&c->nodes, N_CAPACITY}, {&c->pods, P_REQ},
	    {&c->pgs, G_MIN_RES}, {&c->queues, Q_CAP},     {&c->queues, Q_DES},
	    {&c->queues, Q_GUA},  {&c->quotas, R_HARD},    {&c->quotas, R_USED}};
	for (uint32_t i = 0; i < TPH_CL_TOTAL_COLS; i++) {
		int64_t sum[TPH_RES_MAX] = {0}; /* small values here: no overflow */
		const tph_kind *k = cols[i].k;
		for (uint32_t s = 0; s < k->n; s++) {
			const int64_t *row = tph_kind_at(c, k, cols[i].col, s);
			for (uint32_t d = 0; KCOL(k, K_LIVE, uint8_t)[s] && d < c->dims.n; d++)
				sum[d] += row[d];
		}
		for (uint32_t d = 0; d < TPH_RES_MAX; d++) {
			assert_int_equal(c->totals[i][d].hi, 0);
			assert_int_equal(c->totals[i][d].lo, (uint64_t)sum[d]);
		}
	}
}

static void remove_pod(tph_cluster *c, const char *name)
{
	assert_int_equal(tph_cluster_remove_pod(c, "ns", name, NULL), TPH_OK);
}

/* The end state of churn() put in one go, in the churned cache's slot order. */
static void final_state(tph_cluster *c)
{
	char name[16];
	queue(c, "default", 9, 8, 7);
	queue(c, "q2", 5, 5, 5);
	quota(c, "r1", 40, 3);
	node(c, "n0", 1000, NULL);
	node(c, "n1", 3001, NULL);
	node(c, "n2", 999, "gpu");
	podgroup(c, "g0", 300);
	podgroup(c, "g1", 200);
	for (int i = 0; i < 600; i++) {
		snprintf(name, sizeof name, "p%d", i);
		if (i % 3 == 0)
			pod(c, name, i % 7 ? 20 : 5, i % 2 ? "n1" : NULL, "g0");
	}
	for (int i = 600; i < 700; i++) {
		snprintf(name, sizeof name, "p%d", i);
		pod(c, name, 11, i % 5 ? NULL : "n2", i % 2 ? "g1" : NULL);
	}
}

/* Puts, replacements (of every kind with a bounded row), removals, a compaction and a resource
 * name added after the rows exist, checking the kept sums all along. */
static void churn(tph_cluster *c)
{
	char name[16];
	queue(c, "default", 1, 2, 3);
	queue(c, "q2", 5, 5, 5);
	queue(c, "q3", 100, 100, 100);
	quota(c, "r1", 10, 10);
	node(c, "n0", 1000, NULL);
	node(c, "n1", 2000, NULL);
	podgroup(c, "g0", 100);
	podgroup(c, "g1", 200);
	expect_totals(c);
	for (int i = 0; i < 600; i++) {
		snprintf(name, sizeof name, "p%d", i);
		pod(c, name, 10, i % 2 ? "n1" : NULL, "g0");
	}
	for (int i = 0; i < 600; i++) { /* two in three go, the others are replaced */
		snprintf(name, sizeof name, "p%d", i);
		if (i % 3)
			remove_pod(c, name);
		else
			pod(c, name, i % 7 ? 20 : 5, i % 2 ? "n1" : NULL, "g0"); /* replaced */
	}
	expect_totals(c);
	node(c, "n2", 999, "gpu"); /* a new resource name: every row gets a column */
	for (int i = 600; i < 700; i++) {
		snprintf(name, sizeof name, "p%d", i);
		pod(c, name, 11, i % 5 ? NULL : "n2", i % 2 ? "g1" : NULL);
	}
	queue(c, "default", 9, 8, 7);
	quota(c, "r1", 40, 3);
	node(c, "n1", 3001, NULL);
	podgroup(c, "g0", 300);
	assert_int_equal(tph_cluster_remove_queue(c, "q3", NULL), TPH_OK);
	tph_kind_compact(c, &c->pods);
	expect_totals(c);
}

static void test_totals_follow_churn(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	churn(c);
	tph_cluster_destroy(c);
}

#define EQ_COL(a, b, col, n) assert_memory_equal((a)->col, (b)->col, (size_t)(n) * sizeof *(a)->col)

static void expect_same_nodes(const tph_snapshot *a, const tph_snapshot *b)
{
	const tph_node_store *x = &a->nodes, *y = &b->nodes;
	size_t cells = (size_t)a->dims.n * x->stride;
	assert_int_equal(x->n, y->n);
	assert_int_equal(x->stride, y->stride);
	EQ_COL(x, y, alloc, cells); /* the padding past n included */
	EQ_COL(x, y, capacity, cells);
	EQ_COL(x, y, idle, cells);
	EQ_COL(x, y, releasing, cells);
	EQ_COL(x, y, pipelined, cells);
	EQ_COL(x, y, ntasks, x->n);
	for (uint32_t d = 0; d < a->dims.n; d++)
		EQ_COL(x, y, used + (size_t)d * x->stride, x->n);
}

static void expect_same_jobs(const tph_snapshot *a, const tph_snapshot *b)
{
	const tph_job_store *x = &a->jobs, *y = &b->jobs;
	size_t rows = (size_t)x->n * a->dims.n;
	assert_int_equal(x->n, y->n);
	EQ_COL(x, y, queue, x->n);
	EQ_COL(x, y, min_res, rows);
	EQ_COL(x, y, task_off, x->n + 1);
	EQ_COL(x, y, task_idx, a->tasks.n);
	EQ_COL(x, y, ts_count, (size_t)x->n * TPH_TS_COUNT);
	EQ_COL(x, y, alloc_req, rows);
	EQ_COL(x, y, pending_req, rows);
	EQ_COL(x, y, top_prio, x->n);
	EQ_COL(x, y, be_pending, x->n);
}

static void expect_same_tasks(const tph_snapshot *a, const tph_snapshot *b)
{
	const tph_task_store *x = &a->tasks, *y = &b->tasks;
	assert_int_equal(x->n, y->n);
	EQ_COL(x, y, req, (size_t)x->n * a->dims.n);
	EQ_COL(x, y, job, x->n);
	EQ_COL(x, y, status, x->n);
	EQ_COL(x, y, node, x->n);
	EQ_COL(x, y, nominated, x->n);
	EQ_COL(x, y, priority, x->n);
	EQ_COL(x, y, flags, x->n);
	EQ_COL(x, y, nonzero, 2 * (size_t)x->n);
	for (uint32_t t = 0; t < x->n; t++)
		assert_string_equal(tph_strtab_str(a->strs, x->name[t]),
		                    tph_strtab_str(b->strs, y->name[t]));
}

/* The churned cache's snapshot reuses the parked arena of one taken before the churn, whose
 * zeroed columns then hold old sums; the other cache's is fresh. Both hold the same values. */
static void test_snapshot_after_churn_equals_fresh(void **state)
{
	(void)state;
	tph_cluster *c = cache(), *f = cache();
	tph_snapshot *s = NULL;
	queue(c, "default", 1, 2, 3);
	node(c, "n0", 1000, NULL);
	node(c, "n1", 2000, "gpu");
	for (int i = 0; i < 3000; i++) { /* an arena large enough for the churned snapshot */
		char name[16];
		snprintf(name, sizeof name, "p%d", i);
		pod(c, name, 3, i % 4 ? "n0" : "n1", NULL);
	}
	assert_int_equal(tph_cluster_snapshot(c, 0, &s, NULL), TPH_OK);
	tph_snapshot_release(s); /* parked */
	for (int i = 0; i < 3000; i++) {
		char name[16];
		snprintf(name, sizeof name, "p%d", i);
		remove_pod(c, name);
	}
	assert_int_equal(tph_cluster_remove_node(c, "n1", NULL), TPH_OK);
	churn(c);
	final_state(f);
	tph_snapshot *a = NULL, *b = NULL;
	assert_int_equal(tph_cluster_snapshot(c, 0, &a, NULL), TPH_OK);
	assert_int_equal(tph_cluster_snapshot(f, 0, &b, NULL), TPH_OK);
	assert_int_equal(a->dims.n, b->dims.n);
	expect_same_nodes(a, b);
	expect_same_tasks(a, b);
	expect_same_jobs(a, b);
	assert_int_equal(a->tasks.nominated[0], 0); /* p0: pending, waiting for n0 */
	tph_snapshot_release(a);
	tph_snapshot_release(b);
	tph_cluster_destroy(c);
	tph_cluster_destroy(f);
}

static void quiet(void *ud, const char *msg)
{
	(void)ud;
	(void)msg;
}

static int try_snapshot(tph_cluster *c, tph_diag *d)
{
	tph_snapshot *s = NULL;
	int rc = tph_cluster_snapshot(c, 0, &s, d);
	tph_snapshot_release(s);
	return rc;
}

/* Past 2^64 the kept sum carries into its high word, and borrows back as pods go: 2,100 pods
 * of 2^53 cpu sum to 2^64 + 52 * 2^53, whose low word alone is below the bound. */
static void test_totals_past_64_bits(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_diag d = {.warn = quiet};
	char name[16];
	for (int i = 0; i < 2100; i++) {
		snprintf(name, sizeof name, "p%d", i);
		pod(c, name, 1000, NULL, NULL);
	}
	for (int i = 0; i < 2100; i++) { /* replaced, as a host's updates come */
		snprintf(name, sizeof name, "p%d", i);
		tph_res_item rq[] = {{"cpu", BIG}};
		tph_pod_desc p = TPH_POD_DESC_INIT;
		p.name = name;
		p.namespace_ = "ns";
		p.requests = (tph_res_list){rq, 1};
		assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_OK);
	}
	assert_int_equal(try_snapshot(c, &d), TPH_ERANGE);
	assert_string_equal(d.msg, "pod ns/p128: requests: cpu summed over every pod passes 2^60 "
	                           "units here (the most one cluster holds of a resource)");
	for (int i = 0; i < 1972; i++) { /* 128 left: 2^60 exactly, at the bound */
		snprintf(name, sizeof name, "p%d", i);
		remove_pod(c, name);
	}
	assert_int_equal(try_snapshot(c, &d), TPH_OK);
	pod(c, "one-more", 1, NULL, NULL); /* 2^60 + 1 */
	assert_int_equal(try_snapshot(c, &d), TPH_ERANGE);
	assert_non_null(strstr(d.msg, "pod ns/one-more: requests: cpu summed"));
	tph_cluster_destroy(c);
}

/* Each kind's columns in their order: the first column over names the object at which its
 * running sum passes; lowering a row by a replacement clears it. */
static void test_overflow_names_kind_field_object(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_diag d = {.warn = quiet};
	char name[16];
	for (int i = 0; i < 200; i++) {
		snprintf(name, sizeof name, "q%d", i);
		queue(c, name, 1, i < 150 ? BIG : 1, BIG);
	}
	assert_int_equal(try_snapshot(c, &d), TPH_ERANGE);
	assert_non_null(strstr(d.msg, "queue q128: deserved: cpu summed over every queue passes"));
	for (int i = 0; i < 200; i++) { /* deserved back to 1; guarantee's memory now passes */
		snprintf(name, sizeof name, "q%d", i);
		queue(c, name, 1, 1, BIG);
	}
	assert_int_equal(try_snapshot(c, &d), TPH_ERANGE);
	assert_non_null(strstr(d.msg, "queue q128: guarantee: memory summed"));
	for (int i = 128; i < 200; i++) {
		snprintf(name, sizeof name, "q%d", i);
		assert_int_equal(tph_cluster_remove_queue(c, name, NULL), TPH_OK);
	}
	assert_int_equal(try_snapshot(c, &d), TPH_OK);
	for (int i = 0; i < 129; i++) {
		snprintf(name, sizeof name, "g%d", i);
		podgroup(c, name, BIG);
		snprintf(name, sizeof name, "r%d", i);
		quota(c, name, 1, BIG);
	}
	assert_int_equal(try_snapshot(c, &d), TPH_ERANGE); /* podgroups come before quotas */
	assert_non_null(strstr(d.msg, "podgroup ns/g128: minResources: cpu summed"));
	podgroup(c, "g5", 0);
	assert_int_equal(try_snapshot(c, &d), TPH_ERANGE);
	assert_non_null(strstr(d.msg, "quota ns/r128: used: cpu summed over every quota"));
	quota(c, "r0", 1, 0);
	assert_int_equal(try_snapshot(c, &d), TPH_OK);
	tph_cluster_destroy(c);
}

/* A resource named after the rows exist is the last dimension, and is checked like the rest. */
static void test_overflow_in_last_resource(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_diag d = {.warn = quiet};
	char name[16];
	for (int i = 0; i < 129; i++) {
		snprintf(name, sizeof name, "n%d", i);
		node(c, name, 2 * i, NULL);
	}
	for (int i = 0; i < 129; i++) {
		snprintf(name, sizeof name, "n%d", i);
		node(c, name, 2 * i, "example.com/last");
	}
	assert_int_equal(try_snapshot(c, &d), TPH_OK);
	for (int i = 0; i < 128; i++) { /* 128 * 2^53 is the bound: the n nodes' 7s pass it */
		snprintf(name, sizeof name, "m%d", i);
		tph_res_item al[] = {{"example.com/last", BIG}};
		tph_node_desc n = TPH_NODE_DESC_INIT;
		n.name = name;
		n.allocatable = (tph_res_list){al, 1};
		assert_int_equal(tph_cluster_put_node(c, &n, NULL), TPH_OK);
	}
	assert_string_equal(tph_strtab_str(&c->strs, c->dims.name[c->dims.n - 1]),
	                    "example.com/last");
	assert_int_equal(try_snapshot(c, &d), TPH_ERANGE);
	assert_non_null(strstr(d.msg, "node m127: allocatable: example.com/last summed"));
	tph_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_totals_follow_churn),
	    cmocka_unit_test(test_snapshot_after_churn_equals_fresh),
	    cmocka_unit_test(test_totals_past_64_bits),
	    cmocka_unit_test(test_overflow_names_kind_field_object),
	    cmocka_unit_test(test_overflow_in_last_resource),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

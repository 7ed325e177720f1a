/* Unit tests for plugins/kai/proportion (KAI's proportion arithmetic). The cases marked "KAI"
 * carry the inputs and expected numbers of KAI's own tests at d5bc503a (pkg/scheduler/plugins/
 * proportion/, named by file and case); the others pin rules those tests leave open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kai/proportion/proportion_int.h"

#ifndef assert_double_equal /* cmocka before 1.1.6 */
static void double_equal(double a, double b, double eps, const char *file, int line)
{
	if (!(fabs(a - b) <= eps)) {
		print_error("%.17g != %.17g\n", a, b);
		_fail(file, line);
	}
}
#define assert_double_equal(a, b, eps) double_equal((a), (b), (eps), __FILE__, __LINE__)
#endif

#define U    KAI_UNLIMITED
#define CPU  KAI_CPU
#define MEM  KAI_MEM
#define GPU  KAI_GPU
#define NOQ  KAI_NOQ
#define QMAX 16
#define NONE3           \
	{               \
		0, 0, 0 \
	}

/* One ResourceShare as KAI's tests write it: Deserved, FairShare, OverQuotaWeight, MaxAllowed,
 * Allocated, Request, AllocatedNotPreemptible; fields left out are 0 (rs.EmptyResource()). */
typedef struct rsh {
	double d, f, w, m, a, r, np;
} rsh;

typedef struct qs {
	kai_queues q;
	void *mem, *scratch;
} qs;

static qs *qs_new(uint32_t n)
{
	qs *s = calloc(1, sizeof *s);
	assert_non_null(s);
	s->mem = aligned_alloc(8, (kai_queues_bytes(n) + 7) & ~(size_t)7);
	size_t sb = kai_share_scratch_bytes(n) + kai_reclaim_scratch_bytes(n) + 64;
	s->scratch = aligned_alloc(8, (sb + 7) & ~(size_t)7);
	assert_non_null(s->mem);
	assert_non_null(s->scratch);
	kai_queues_init(&s->q, n, s->mem);
	for (uint32_t i = 0; i < n; i++)
		s->q.created[i] = i; /* v1.Now() per queue: created in index order */
	return s;
}

static void qs_free(qs *s)
{
	free(s->mem);
	free(s->scratch);
	free(s);
}

static void put(qs *s, uint32_t i, int res, rsh v)
{
	kai_share *r = &s->q.r[res];
	r->deserved[i] = v.d;
	r->fair[i] = v.f;
	r->weight[i] = v.w;
	r->max_allowed[i] = v.m;
	r->allocated[i] = v.a;
	r->request[i] = v.r;
	r->alloc_np[i] = v.np;
}

static double fs(const qs *s, uint32_t i, int res)
{
	return s->q.r[res].fair[i];
}

static const uint32_t ALL[QMAX] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};

/* ---------------- resource_division_test.go: setResourceShare - GPU ---------------- */

/* "single queue within quota (sanity)": Deserved 3, weight 0, Request 2. */
static qs *single_within(void)
{
	qs *s = qs_new(1);
	put(s, 0, GPU, (rsh){.d = 3, .w = 0, .m = U, .r = 2});
	return s;
}

static void check_divide(qs *s, double total, double want_left, double want_fair)
{
	double left = kai_share_divide(&s->q, GPU, ALL, s->q.n, total, 0, s->scratch);
	assert_double_equal(left, want_left, 0);
	assert_double_equal(fs(s, 0, GPU), want_fair, 0);
	qs_free(s);
}

static void kai_division_single_within_quota(void **state)
{
	(void)state;
	check_divide(single_within(), 2, 0, 2); /* gives requested GPUs - no remaining */
	check_divide(single_within(), 3, 1, 2); /* gives requested GPUs with remaining */
	qs *s = single_within();                /* doesn't give more GPUs than allowed */
	s->q.r[GPU].max_allowed[0] = 2;
	check_divide(s, 3, 1, 2);
	check_divide(single_within(), 1, 0, 2); /* gives up to deserved when over subscribed */
	s = single_within();                    /* gives up to full quota */
	s->q.r[GPU].request[0] = 5;
	check_divide(s, 7, 4, 3);
	s = single_within(); /* gives with fraction, if stated in deserved */
	s->q.r[GPU].deserved[0] = 1.5;
	check_divide(s, 2, 0.5, 1.5);
	s = single_within(); /* gives with fraction, if stated in request */
	s->q.r[GPU].request[0] = 1.5;
	check_divide(s, 2, 0.5, 1.5);
	s = single_within(); /* doesn't give if deserved is zero */
	s->q.r[GPU].deserved[0] = 0;
	check_divide(s, 2, 2, 0);
}

/* "single queue over quota (sanity)": divideOverQuotaResource with FairShare 3 already given. */
static qs *single_over(void)
{
	qs *s = qs_new(1);
	put(s, 0, GPU, (rsh){.d = 3, .f = 3, .w = 1, .m = U, .r = 5});
	return s;
}

static void check_over(qs *s, double total, double want_left, double want_fair)
{
	double left = kai_share_over_quota(&s->q, GPU, ALL, s->q.n, total, 0, s->scratch);
	assert_double_equal(left, want_left, 0);
	assert_double_equal(fs(s, 0, GPU), want_fair, 0);
	qs_free(s);
}

static void kai_division_single_over_quota(void **state)
{
	(void)state;
	check_over(single_over(), 2, 0, 5); /* gives requested GPUs no remaining */
	check_over(single_over(), 3, 1, 5); /* gives requested GPUs with remaining */
	qs *s = single_over();              /* doesn't give more GPUs than allowed */
	s->q.r[GPU].max_allowed[0] = 4;
	check_over(s, 2, 1, 4);
	s = single_over(); /* doesn't give when over quota weight is zero */
	s->q.r[GPU].weight[0] = 0;
	check_over(s, 2, 2, 3);
	s = single_over(); /* gives with fraction if requested */
	s->q.r[GPU].request[0] = 4.5;
	check_over(s, 2, 0.5, 4.5);
	check_over(single_over(), 0.5, 0, 3.5); /* gives remainder fraction */
	s = single_over();                      /* gives when deserved is zero */
	s->q.r[GPU].deserved[0] = 0;
	s->q.r[GPU].fair[0] = 0;
	check_over(s, 6, 1, 5);
	check_over(single_over(), 0, 0, 3); /* doesn't break when there are zero resources */
	s = single_over();                  /* doesn't give when over quota weight is zero */
	s->q.r[GPU].weight[0] = 0;
	check_over(s, 10, 10, 3);
	s = qs_new(2); /* two queues over quota (sanity): queue 1 has weight 0 */
	put(s, 0, GPU, (rsh){.d = 3, .f = 3, .w = 0, .m = U, .r = 5});
	put(s, 1, GPU, (rsh){.d = 3, .f = 3, .w = 1, .m = U, .r = 3});
	check_over(s, 10, 10, 3);
}

/* "two queues" DescribeTable: both Deserved 2, weight 2, Request 6, unlimited. */
typedef struct two_case {
	double total, req[2], max[2], w[2];
	int prio[2];
	double left, share[2];
} two_case;

static void kai_division_two_queues(void **state)
{
	(void)state;
	static const two_case cases[] = {
	    {15, {6, 6}, {U, U}, {2, 2}, {0, 0}, 3, {6, 6}},   /* allocates many available gpus */
	    {12, {6, 6}, {U, U}, {2, 2}, {0, 0}, 0, {6, 6}},   /* exact requested amount */
	    {8, {6, 6}, {U, U}, {1, 3}, {0, 0}, 0, {3, 5}},    /* proportionally */
	    {12, {6, 6}, {5, U}, {2, 2}, {0, 0}, 1, {5, 6}},   /* not more than allowed */
	    {11, {10, 10}, {U, U}, {1, 4}, {0, 0}, 0, {3, 8}}, /* largest remaining */
	    {11, {6, 6}, {U, U}, {2, 2}, {0, 0}, 0, {6, 5}},   /* remainder by creation time */
	    {4, {6, 6}, {U, U}, {2, 2}, {1, 2}, 0, {2, 2}},   /* priority doesn't affect deserved */
	    {6, {6, 6}, {U, U}, {2, 2}, {1, 2}, 0, {2, 4}},   /* priority does affect over-quota */
	    {6, {6, 6}, {U, U}, {100, 1}, {1, 2}, 0, {2, 4}}, /* ... even with overQuotaWeight */
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		const two_case *t = &cases[c];
		qs *s = qs_new(2);
		for (uint32_t i = 0; i < 2; i++) {
			put(s, i, GPU, (rsh){.d = 2, .w = t->w[i], .m = t->max[i], .r = t->req[i]});
			s->q.priority[i] = t->prio[i];
		}
		double left = kai_share_divide(&s->q, GPU, ALL, 2, t->total, 0, s->scratch);
		assert_double_equal(left, t->left, 0);
		assert_double_equal(fs(s, 0, GPU), t->share[0], 0);
		assert_double_equal(fs(s, 1, GPU), t->share[1], 0);
		qs_free(s);
	}
}

/* KAI "divides the remainder even when using priorities". */
static void kai_division_remainder_with_priorities(void **state)
{
	(void)state;
	qs *s = qs_new(3);
	put(s, 0, GPU, (rsh){.d = 2, .w = 2, .m = U, .r = 5});
	put(s, 1, GPU, (rsh){.d = 2, .w = 2, .m = U, .r = 5});
	put(s, 2, GPU, (rsh){.d = 1, .w = 2, .m = U, .r = 0});
	s->q.priority[0] = s->q.priority[1] = 2;
	s->q.priority[2] = 1;
	assert_double_equal(kai_share_divide(&s->q, GPU, ALL, 3, 5, 0, s->scratch), 0, 0);
	assert_double_equal(fs(s, 0, GPU), 3, 0);
	assert_double_equal(fs(s, 1, GPU), 2, 0);
	assert_double_equal(fs(s, 2, GPU), 0, 0);
	qs_free(s);
}

/* ------------- setResourceShare - CPU (and the same cases for memory) ------------- */

typedef struct three_case {
	double req[3], max[3], alloc[3], deserved[3], w[3];
	double share[3];
} three_case;

static void run_three(int res, const three_case *t, uint32_t n, double total)
{
	qs *s = qs_new(n);
	for (uint32_t i = 0; i < n; i++)
		put(s, i, res,
		    (rsh){.d = t->deserved[i],
		          .w = t->w[i],
		          .m = t->max[i],
		          .a = t->alloc[i],
		          .r = t->req[i]});
	assert_double_equal(kai_share_divide(&s->q, res, ALL, n, total, 0, s->scratch), 0, 0);
	for (uint32_t i = 0; i < n; i++)
		assert_double_equal(fs(s, i, res), t->share[i], 0);
	qs_free(s);
}

static void kai_division_cpu_memory(void **state)
{
	(void)state;
	/* three queues, Deserved 5000, weight 5000, total 10000 */
	static const three_case three[] = {
	    /* all request 5000: each gets its deserved (over subscription) */
	    {{5000, 5000, 5000},
	     {U, U, U},
	     {0},
	     {5000, 5000, 5000},
	     {5000, 5000, 5000},
	     {5000, 5000, 5000}},
	    /* one requests 7000, two 2000 */
	    {{7000, 2000, 2000},
	     {U, U, U},
	     {0},
	     {5000, 5000, 5000},
	     {5000, 5000, 5000},
	     {6000, 2000, 2000}},
	    {{7000, 5000, 2000},
	     {U, U, U},
	     {0},
	     {5000, 5000, 5000},
	     {5000, 5000, 5000},
	     {5000, 5000, 2000}},
	    /* ... and allowed 7000 */
	    {{7000, 2000, 2000},
	     {7000, U, U},
	     {0},
	     {5000, 5000, 5000},
	     {5000, 5000, 5000},
	     {6000, 2000, 2000}},
	    /* q2 has no deserved CPU but is allowed OQ */
	    {{5000, 5000, 5000},
	     {U, U, U},
	     {0},
	     {5000, 0, 5000},
	     {5000, 5000, 5000},
	     {5000, 0, 5000}},
	    /* all resources allocated between 2 queues: allocation does not change the division */
	    {{7000, 2000, 2000},
	     {U, U, U},
	     {5000, 5000, 0},
	     {5000, 5000, 5000},
	     {5000, 5000, 5000},
	     {6000, 2000, 2000}},
	    {{10000, 5000, 10000},
	     {U, U, U},
	     {5000, 5000, 0},
	     {5000, 0, 5000},
	     {5000, 5000, 5000},
	     {5000, 0, 5000}},
	};
	for (int res = CPU; res <= MEM; res++) {
		/* one queue: Deserved 3000, weight 3000, Request 2000 */
		qs *s = qs_new(1);
		put(s, 0, res, (rsh){.d = 3000, .w = 3000, .m = U, .r = 2000});
		assert_double_equal(kai_share_divide(&s->q, res, ALL, 1, 3000, 0, s->scratch), 1000,
		                    0);
		assert_double_equal(fs(s, 0, res), 2000, 0);
		qs_free(s);
		s = qs_new(1);
		put(s, 0, res, (rsh){.d = 3000, .w = 3000, .m = U, .r = 2000});
		assert_double_equal(kai_share_divide(&s->q, res, ALL, 1, 1000, 0, s->scratch), 0,
		                    0);
		assert_double_equal(fs(s, 0, res), 2000, 0);
		qs_free(s);
		/* two queues: queue 2 has no deserved CPU, weight 0: all to queue 1 */
		static const three_case two = {{10000, 5000}, {U, U},    {0, 5000},
		                               {5000, 0},     {5000, 0}, {10000, 0}};
		run_three(res, &two, 2, 10000);
		for (size_t c = 0; c < sizeof three / sizeof *three; c++)
			run_three(res, &three[c], 3, 10000);
		/* over quota: all request 6000 of 18000 */
		static const three_case over = {
		    {6000, 6000, 6000}, {U, U, U},          {0},
		    {5000, 5000, 5000}, {5000, 5000, 5000}, {6000, 6000, 6000}};
		run_three(res, &over, 3, 18000);
	}
}

/* ---------------- SetResourcesShare (all three resources, k = 0) ---------------- */

typedef struct srs_queue {
	rsh r[KAI_NRES]; /* cpu, memory, gpu */
	double want[KAI_NRES];
} srs_queue;

static void run_srs(const srs_queue *qs_in, uint32_t n, const double total[KAI_NRES])
{
	qs *s = qs_new(n);
	for (uint32_t i = 0; i < n; i++)
		for (int r = 0; r < KAI_NRES; r++)
			put(s, i, r, qs_in[i].r[r]);
	assert_int_equal(kai_share_tree(&s->q, total, 0, s->scratch), 0);
	for (uint32_t i = 0; i < n; i++)
		for (int r = 0; r < KAI_NRES; r++)
			assert_double_equal(fs(s, i, r), qs_in[i].want[r], 0);
	qs_free(s);
}

#define SAME3(d_, w_, m_, r_)                                                               \
	{                                                                                   \
		{.d = d_, .w = w_, .m = m_, .r = r_}, {.d = d_, .w = w_, .m = m_, .r = r_}, \
		{                                                                           \
			.d = d_, .w = w_, .m = m_, .r = r_                                  \
		}                                                                           \
	}

static void kai_set_resources_share(void **state)
{
	(void)state;
	/* one queue: enough resources */
	run_srs((srs_queue[]){{{{.d = 200, .w = 1, .m = U, .r = 500},
	                        {.d = 1000, .w = 1, .m = U, .r = 500},
	                        {.d = 1, .w = 1, .m = U, .r = 1}},
	                       {500, 500, 1}}},
	        1, (double[]){2500, 1000, 10});
	/* one queue: not enough resources: the quota is given even beyond the total */
	run_srs((srs_queue[]){{{{.d = 20000, .w = 1, .m = U, .r = 2500},
	                        {.d = 1000, .w = 1, .m = U, .r = 5000},
	                        {.d = 2, .w = 1, .m = U, .r = 3}},
	                       {2500, 3000, 2}}},
	        1, (double[]){1000, 3000, 1});
	/* two queues: enough resources */
	srs_queue two[2];
	for (int i = 0; i < 2; i++)
		two[i] = (srs_queue){{{.d = 200, .w = 1, .m = U, .r = 500},
		                      {.d = 1000, .w = 1, .m = U, .r = 500},
		                      {.d = 1, .w = 1, .m = U, .r = 1}},
		                     {500, 500, 1}};
	run_srs(two, 2, (double[]){2500, 1000, 10});
	/* two queues: request more than total, same weight and quota: divide evenly */
	for (int i = 0; i < 2; i++)
		two[i] = (srs_queue){{{.d = 2000, .w = 1, .m = U, .r = 3000},
		                      {.d = 1000, .w = 1, .m = U, .r = 5000},
		                      {.d = 1, .w = 1, .m = U, .r = 8}},
		                     {2000, 1000, 5}};
	run_srs(two, 2, (double[]){3000, 1000, 10});
	/* two queues: different over-quota weights */
	two[0] = (srs_queue){SAME3(250, 1, U, 5000), {450, 450, 450}};
	two[1] = (srs_queue){SAME3(150, 2, U, 5000), {550, 550, 550}};
	run_srs(two, 2, (double[]){1000, 1000, 1000});
	/* ... and max allowed */
	two[0] = (srs_queue){SAME3(250, 1, U, 5000), {600, 600, 600}};
	two[1] = (srs_queue){SAME3(150, 2, 400, 5000), {400, 400, 400}};
	run_srs(two, 2, (double[]){1000, 1000, 1000});
	/* three queues: divide evenly; different over quota */
	srs_queue three[3];
	for (int i = 0; i < 3; i++)
		three[i] = (srs_queue){SAME3(1000, 1, U, 10000), {3333, 3333, 3333}};
	run_srs(three, 3, (double[]){9999, 9999, 9999});
	three[0] = (srs_queue){SAME3(0, 6, U, 10000), {6666, 6666, 6666}};
	three[1] = (srs_queue){SAME3(0, 2, U, 10000), {2222, 2222, 2222}};
	three[2] = (srs_queue){SAME3(0, 1, U, 10000), {1111, 1111, 1111}};
	run_srs(three, 3, (double[]){9999, 9999, 9999});
	/* advanced: fractional fair share (cpu and memory empty) */
	memset(three, 0, sizeof three);
	three[0].r[GPU] = (rsh){.d = 12, .w = 12, .m = U, .r = 32.54999999999996};
	three[0].want[GPU] = 32.54999999999996;
	three[1].r[GPU] = (rsh){.d = 7, .w = 7, .m = U, .r = 9.5};
	three[1].want[GPU] = 9.5;
	three[2].r[GPU] = (rsh){.d = 2, .w = 2, .m = 2, .r = 1.65};
	three[2].want[GPU] = 1.65;
	run_srs(three, 3, (double[]){0, 0, 45});
}

/* KAI "divide last remaining GPU based to similar queues": equal creation times, UID order. */
static void kai_last_unit_by_uid(void **state)
{
	(void)state;
	qs *s = qs_new(2);
	for (uint32_t i = 0; i < 2; i++) {
		put(s, i, GPU, (rsh){.d = 2, .w = 2, .m = U, .r = 3});
		s->q.created[i] = 7;
	}
	s->q.rank[0] = 1; /* "queue-2" listed first, "queue-1" second */
	s->q.rank[1] = 0;
	assert_int_equal(kai_share_tree(&s->q, (double[]){0, 0, 5}, 0, s->scratch), 0);
	assert_double_equal(fs(s, 1, GPU), 3, 0);
	assert_double_equal(fs(s, 0, GPU), 2, 0);
	qs_free(s);
}

/* ---------------- proportion_test.go: setFairShare over the tree (k = 0) ---------------- */

static void kai_tree_multi_hierarchy(void **state)
{
	(void)state;
	/* "simple scenario with single top queue": top -> mid -> leaf-1, leaf-2 */
	qs *s = qs_new(4);
	s->q.parent[1] = 0;
	s->q.parent[2] = s->q.parent[3] = 1;
	put(s, 0, GPU, (rsh){.d = 3, .m = U, .r = 3});
	put(s, 1, GPU, (rsh){.d = 3, .m = U, .r = 3});
	put(s, 2, GPU, (rsh){.d = 2, .m = U, .r = 2});
	put(s, 3, GPU, (rsh){.d = 1, .m = U, .r = 1});
	assert_int_equal(kai_share_tree(&s->q, (double[]){0, 0, 3}, 0, s->scratch), 0);
	static const double want1[] = {3, 3, 2, 1};
	for (uint32_t i = 0; i < 4; i++)
		assert_double_equal(fs(s, i, GPU), want1[i], 0);
	qs_free(s);
	/* "two top parent queues": children listed before their parents here */
	s = qs_new(6);
	uint32_t top1 = 4, top2 = 5;
	s->q.parent[0] = s->q.parent[1] = top1;
	s->q.parent[2] = s->q.parent[3] = top2;
	put(s, top1, GPU, (rsh){.d = 2, .m = U, .r = 2});
	put(s, 0, GPU, (rsh){.d = 1, .m = U, .r = 1});
	put(s, 1, GPU, (rsh){.d = 1, .m = U, .r = 1});
	put(s, top2, GPU, (rsh){.d = 2, .m = U, .r = 2});
	put(s, 2, GPU, (rsh){.d = 0, .m = U, .r = 0});
	put(s, 3, GPU, (rsh){.d = 1, .w = 1, .m = U, .r = 2});
	assert_int_equal(kai_share_tree(&s->q, (double[]){0, 0, 4}, 0, s->scratch), 0);
	static const double want2[] = {1, 1, 0, 2, 2, 2};
	for (uint32_t i = 0; i < 6; i++)
		assert_double_equal(fs(s, i, GPU), want2[i], 0);
	qs_free(s);
}

/* "Set fair share for 2 hierarchy queues - simplified": d1 -> q1, d2 -> q2 (indices 0-3). */
typedef struct dept_case {
	double total, d[4], w[4];
	int prio[4];
	double want[4];
} dept_case;

static void kai_tree_two_departments(void **state)
{
	(void)state;
	static const dept_case cases[] = {
	    {4, {2, 2, 2, 2}, {1, 1, 1, 1}, {0}, {2, 2, 2, 2}},             /* sanity */
	    {4, {3, 2, 1, 2}, {1, 1, 1, 1}, {0}, {3, 3, 1, 2}},             /* department quota */
	    {12, {3, 2, 1, 2}, {1, 1, 1, 1}, {0}, {7, 7, 5, 5}},            /* over-quota */
	    {12, {3, 2, 1, 2}, {1, 1, 7, 1}, {0}, {4, 4, 8, 8}},            /* over-quota weight */
	    {12, {3, 2, 1, 2}, {7, 1, 1, 1}, {0}, {10, 10, 2, 2}},          /* ... reversed */
	    {12, {1, 1, 1, 1}, {7, 1, 1, 1}, {1, 0, 2, 0}, {1, 1, 11, 11}}, /* priority */
	    {12, {1, 1, 1, 1}, {1, 1, 7, 1}, {2, 0, 1, 0}, {11, 11, 1, 1}}, /* ... reversed */
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		const dept_case *t = &cases[c];
		qs *s = qs_new(4);
		s->q.parent[1] = 0;
		s->q.parent[3] = 2;
		for (uint32_t i = 0; i < 4; i++) {
			put(s, i, GPU, (rsh){.d = t->d[i], .w = t->w[i], .m = U, .r = 100});
			s->q.priority[i] = t->prio[i];
			s->q.created[i] = 0;
		}
		assert_int_equal(kai_share_tree(&s->q, (double[]){0, 0, t->total}, 0, s->scratch),
		                 0);
		for (uint32_t i = 0; i < 4; i++)
			assert_double_equal(fs(s, i, GPU), t->want[i], 0);
		qs_free(s);
	}
}

/* ---------------- rules KAI's tests leave open ---------------- */

/* kValue: w' + k (w' - usage), floored at 0; a queue that used more than its weight gets less. */
static void kai_kvalue_and_usage(void **state)
{
	(void)state;
	qs *s = qs_new(2);
	put(s, 0, GPU, (rsh){.w = 1, .m = U, .r = 100});
	put(s, 1, GPU, (rsh){.w = 1, .m = U, .r = 100});
	s->q.r[GPU].usage[0] = 0.5; /* w' = 0.5 each: 0.5 + 1 (0.5 - 0.5) = 0.5, 0.5 + 0.5 = 1 */
	assert_double_equal(kai_share_divide(&s->q, GPU, ALL, 2, 30, 1, s->scratch), 0, 0);
	assert_double_equal(fs(s, 0, GPU), 10, 0);
	assert_double_equal(fs(s, 1, GPU), 20, 0);
	/* k = 0 ignores usage */
	memset(s->q.r[GPU].fair, 0, 2 * sizeof(double));
	assert_double_equal(kai_share_divide(&s->q, GPU, ALL, 2, 30, 0, s->scratch), 0, 0);
	assert_double_equal(fs(s, 0, GPU), 15, 0);
	/* usage 2 with k 1: 0.5 + (0.5 - 2) < 0 is floored at 0: nothing over quota for queue 0 */
	memset(s->q.r[GPU].fair, 0, 2 * sizeof(double));
	s->q.r[GPU].usage[0] = 2;
	assert_double_equal(kai_share_divide(&s->q, GPU, ALL, 2, 30, 1, s->scratch), 0, 0);
	assert_double_equal(fs(s, 0, GPU), 0, 0);
	assert_double_equal(fs(s, 1, GPU), 30, 0);
	/* every weight floored at 0: the division stops and keeps the rest */
	memset(s->q.r[GPU].fair, 0, 2 * sizeof(double));
	s->q.r[GPU].usage[1] = 2;
	assert_double_equal(kai_share_divide(&s->q, GPU, ALL, 2, 30, 1, s->scratch), 30, 0);
	qs_free(s);
}

/* Rounds: a queue that asks less than its share frees the rest for the next round; shares are
 * floored, the floored-off parts go one unit each to the largest remainders. */
static void kai_rounds_and_leftovers(void **state)
{
	(void)state;
	qs *s = qs_new(3);
	put(s, 0, GPU, (rsh){.w = 1, .m = U, .r = 1});
	put(s, 1, GPU, (rsh){.w = 1, .m = U, .r = 10});
	put(s, 2, GPU, (rsh){.w = 1, .m = U, .r = 10});
	/* round 1: 10/3 each: q0 takes 1, q1 and q2 floor 3.33 to 3 (rest 0.33); round 2 divides
	 * 3 by halves: 1 each (rest 0.5 each); the last unit goes to q1 (remainder tie, created
	 * first) */
	assert_double_equal(kai_share_divide(&s->q, GPU, ALL, 3, 10, 0, s->scratch), 0, 0);
	assert_double_equal(fs(s, 0, GPU), 1, 0);
	assert_double_equal(fs(s, 1, GPU), 5, 0);
	assert_double_equal(fs(s, 2, GPU), 4, 0);
	qs_free(s);
	/* a leftover unit goes even to a queue its limit would stop (KAI gives it blindly): 4/3
	 * each, floored to 1; equal remainders, so the first created gets the last unit */
	s = qs_new(3);
	put(s, 0, GPU, (rsh){.w = 1, .m = 1.5, .r = 10});
	put(s, 1, GPU, (rsh){.w = 1, .m = U, .r = 10});
	put(s, 2, GPU, (rsh){.w = 1, .m = U, .r = 10});
	assert_double_equal(kai_share_divide(&s->q, GPU, ALL, 3, 4, 0, s->scratch), 0, 0);
	assert_double_equal(fs(s, 0, GPU), 2, 0);
	assert_double_equal(fs(s, 1, GPU), 1, 0);
	assert_double_equal(fs(s, 2, GPU), 1, 0);
	qs_free(s);
	/* a remainder below one unit is handed out whole: 0.25 of a GPU */
	s = qs_new(1);
	put(s, 0, GPU, (rsh){.w = 1, .m = U, .r = 10});
	assert_double_equal(kai_share_divide(&s->q, GPU, ALL, 1, 2.25, 0, s->scratch), 0, 0);
	assert_double_equal(fs(s, 0, GPU), 2.25, 0);
	qs_free(s);
}

/* Quota -1 takes the whole total as its quota; a lower band gets only what higher ones leave. */
static void kai_unlimited_quota_and_bands(void **state)
{
	(void)state;
	qs *s = qs_new(3);
	put(s, 0, CPU, (rsh){.d = U, .w = 1, .m = U, .r = 700});
	put(s, 1, CPU, (rsh){.d = 100, .w = 1, .m = U, .r = 900});
	put(s, 2, CPU, (rsh){.d = 100, .w = 5, .m = U, .r = 900});
	s->q.priority[0] = 300;
	s->q.priority[1] = 200;
	s->q.priority[2] = 100;
	/* quotas: 700, 100, 100 of 1000; the 100 left all go to the higher band (q1) */
	assert_double_equal(kai_share_divide(&s->q, CPU, ALL, 3, 1000, 0, s->scratch), 0, 0);
	assert_double_equal(fs(s, 0, CPU), 700, 0);
	assert_double_equal(fs(s, 1, CPU), 200, 0);
	assert_double_equal(fs(s, 2, CPU), 100, 0);
	qs_free(s);
}

static void kai_tree_rejects_bad_parents(void **state)
{
	(void)state;
	qs *s = qs_new(3);
	s->q.parent[0] = 1; /* 0 -> 1 -> 0: a cycle the top never reaches */
	s->q.parent[1] = 0;
	assert_int_equal(kai_share_tree(&s->q, (double[]){1, 1, 1}, 1, s->scratch), -1);
	s->q.parent[0] = 7; /* out of range */
	s->q.parent[1] = KAI_NOQ;
	assert_int_equal(kai_share_tree(&s->q, (double[]){1, 1, 1}, 1, s->scratch), -1);
	s->q.parent[0] = 0; /* itself */
	assert_int_equal(kai_share_tree(&s->q, (double[]){1, 1, 1}, 1, s->scratch), -1);
	qs_free(s);
}

/* ---------------- queues.c: quotas, accounting, totals, levels ---------------- */

static void kai_accounting(void **state)
{
	(void)state;
	qs *s = qs_new(3); /* 0 dept, 1 leaf, 2 other top */
	s->q.parent[1] = 0;
	kai_queue_set_quota(&s->q, 1, MEM, 2, -1, 3);
	assert_double_equal(s->q.r[MEM].deserved[1], 2e6, 0);
	assert_double_equal(s->q.r[MEM].max_allowed[1], U, 0);
	assert_double_equal(s->q.r[MEM].weight[1], 3, 0);
	kai_queue_set_quota(&s->q, 1, GPU, -1, 4, 1);
	assert_double_equal(s->q.r[GPU].deserved[1], U, 0);
	const double v[KAI_NRES] = {500, 1e9, 1};
	kai_account_allocated(&s->q, 1, v, false);
	kai_account_allocated(&s->q, 1, v, true);
	kai_account_pending(&s->q, 1, v);
	for (uint32_t i = 0; i < 2; i++) {
		assert_double_equal(s->q.r[CPU].allocated[i], 1000, 0);
		assert_double_equal(s->q.r[CPU].alloc_np[i], 500, 0);
		assert_double_equal(s->q.r[GPU].request[i], 3, 0);
	}
	assert_double_equal(s->q.r[CPU].request[2], 0, 0);
	kai_account_event(&s->q, 1, v, false, -1);
	assert_double_equal(s->q.r[GPU].allocated[0], 1, 0);
	assert_double_equal(s->q.r[GPU].alloc_np[0], 0, 0);
	assert_double_equal(s->q.r[GPU].request[0], 3, 0); /* events leave requests alone */
	/* the clone keeps its values when the original moves on */
	qs *c = qs_new(3);
	kai_queues_copy(&c->q, &s->q);
	kai_account_event(&s->q, 1, v, true, 1);
	assert_double_equal(c->q.r[GPU].allocated[1], 1, 0);
	assert_int_equal(c->q.parent[1], 0);
	qs_free(c);
	/* totals: a not-ready node adds nothing; foreign pods are subtracted */
	double total[KAI_NRES] = {0};
	kai_total_add_node(total, (double[]){8000, 32e9, 8}, (double[]){1000, 0, 1}, true, false);
	kai_total_add_node(total, (double[]){8000, 32e9, 8}, (double[]){0, 0, 0}, false, false);
	kai_total_add_node(total, (double[]){4000, 16e9, 4}, (double[]){0, 0, 0}, true, true);
	assert_double_equal(total[CPU], 11000, 0);
	assert_double_equal(total[MEM], 48e9, 0);
	assert_double_equal(total[GPU], 7, 0);
	assert_double_equal(kai_gpu_memory_fraction(2, 5000, 10000), 1, 0);
	assert_double_equal(kai_gpu_memory_fraction(2, 5000, 0), 0, 0);
	/* leveled queues */
	uint32_t a, b;
	kai_leveled(&s->q, 1, 2, &a, &b);
	assert_int_equal(a, 0);
	assert_int_equal(b, 2);
	kai_leveled(&s->q, 1, 0, &a, &b); /* a path that contains the other */
	assert_int_equal(a, 0);
	assert_int_equal(b, 0);
	qs_free(s);
}

/* ---------------- capacity_policy tests ---------------- */

typedef struct limit_case {
	double max[3], alloc[3], req[3];
	int reason, res;
} limit_case;

/* KAI max_allowed_check_test.go "IsOverMaxAllowed" and quota_check_test.go
 * "isAllocatedNonPreemptibleOverQuota" (cpu, memory, gpu). */
static void kai_capacity_single_queue(void **state)
{
	(void)state;
	static const limit_case limit[] = {
	    {{U, U, U}, {500, 1, 1}, {1000, 1, 1}, KAI_SCHEDULABLE, -1},
	    {{1000, 1, 1}, {0, 0, 0}, {1000, 1, 1}, KAI_SCHEDULABLE, -1},
	    {{1000, 1, 1}, {0, 0, 0}, {500, 0.5, 0.5}, KAI_SCHEDULABLE, -1},
	    {{1000, 1, 1}, {500, 1, 1}, {1000, 1, 1}, KAI_OVER_LIMIT, CPU},
	    {{1000, 1, 1}, {500, 1, 1}, {1000, 0, 0}, KAI_OVER_LIMIT, CPU},
	    {{1000, 1, 1}, {500, 1, 1}, {0, 1, 0}, KAI_OVER_LIMIT, MEM},
	    {{1000, 1, 1}, {500, 1, 1}, {0, 0, 1}, KAI_OVER_LIMIT, GPU},
	    {{1000, 1, 1}, {1500, 1, 0}, {0, 0, 1}, KAI_SCHEDULABLE, -1},
	};
	static const limit_case quota[] = {
	    {{5, 5, 5}, {1, 1, 1}, {3, 3, 3}, KAI_SCHEDULABLE, -1},
	    {{5, 5, 5}, {1, 1, 1}, {10, 3, 3}, KAI_NONPREEMPTIBLE_OVER, CPU},
	    {{5, 5, 5}, {1, 1, 1}, {10, 10, 10}, KAI_NONPREEMPTIBLE_OVER, CPU},
	    {{5, 5, 5}, {4, 4, 6}, {1, 1, 0}, KAI_SCHEDULABLE, -1},
	};
	kai_verdict v;
	for (size_t c = 0; c < sizeof limit / sizeof *limit; c++) {
		qs *s = qs_new(1);
		for (int r = 0; r < KAI_NRES; r++)
			put(s, 0, r, (rsh){.m = limit[c].max[r], .a = limit[c].alloc[r], .d = U});
		assert_int_equal(kai_job_over_capacity(&s->q, 0, limit[c].req, true, &v),
		                 limit[c].reason);
		assert_int_equal(v.res, limit[c].res);
		qs_free(s);
	}
	for (size_t c = 0; c < sizeof quota / sizeof *quota; c++) {
		qs *s = qs_new(1);
		for (int r = 0; r < KAI_NRES; r++)
			put(s, 0, r, (rsh){.d = quota[c].max[r], .np = quota[c].alloc[r], .m = U});
		assert_int_equal(kai_nonpreemptible_over_quota(&s->q, 0, quota[c].req, false, &v),
		                 quota[c].reason);
		assert_int_equal(v.res, quota[c].res);
		/* a preemptible job is never over quota; the job check falls back to the quota */
		assert_int_equal(kai_nonpreemptible_over_quota(&s->q, 0, quota[c].req, true, &v),
		                 0);
		assert_int_equal(kai_job_over_capacity(&s->q, 0, quota[c].req, false, &v),
		                 quota[c].reason);
		qs_free(s);
	}
}

/* KAI max_allowed_check_test.go "resultsOverLimit" and quota_check_test.go: up the path. */
static void kai_capacity_path(void **state)
{
	(void)state;
	kai_verdict v;
	qs *s = qs_new(1);
	put(s, 0, GPU, (rsh){.m = U, .a = 1});
	assert_int_equal(kai_job_over_capacity(&s->q, 0, (double[]){0, 0, 10}, true, &v), 0);
	s->q.r[GPU].max_allowed[0] = 3;
	assert_int_equal(kai_job_over_capacity(&s->q, 0, (double[]){0, 0, 2}, true, &v), 0);
	assert_int_equal(kai_job_over_capacity(&s->q, 0, (double[]){0, 0, 3}, true, &v),
	                 KAI_OVER_LIMIT);
	s->q.r[GPU].allocated[0] = 0;
	assert_int_equal(kai_job_over_capacity(&s->q, 0, (double[]){0, 0, 4}, true, &v),
	                 KAI_OVER_LIMIT);
	assert_double_equal(v.used, 0, 0);
	qs_free(s);
	/* top <- mid <- leaf (indices 0, 1, 2) */
	s = qs_new(3);
	s->q.parent[1] = 0;
	s->q.parent[2] = 1;
	for (uint32_t i = 0; i < 3; i++)
		put(s, i, GPU, (rsh){.m = 3, .a = 2});
	assert_int_equal(kai_job_over_capacity(&s->q, 2, (double[]){0, 0, 1}, true, &v), 0);
	put(s, 0, GPU, (rsh){.m = 3, .a = 3});
	put(s, 1, GPU, (rsh){.m = 2, .a = 1});
	put(s, 2, GPU, (rsh){.m = 1, .a = 0});
	assert_int_equal(kai_job_over_capacity(&s->q, 2, (double[]){0, 0, 1}, true, &v),
	                 KAI_OVER_LIMIT);
	assert_int_equal(v.queue, 0);
	qs_free(s);
	/* quota: preemptible jobs pass; non-preemptible ones stop at the first queue over */
	s = qs_new(1);
	put(s, 0, GPU, (rsh){.d = 3, .np = 1, .m = U});
	assert_int_equal(kai_nonpreemptible_over_quota(&s->q, 0, (double[]){0, 0, 10}, true, &v),
	                 0);
	assert_int_equal(kai_nonpreemptible_over_quota(&s->q, 0, (double[]){0, 0, 2}, false, &v),
	                 0);
	assert_int_equal(kai_nonpreemptible_over_quota(&s->q, 0, (double[]){0, 0, 3}, false, &v),
	                 KAI_NONPREEMPTIBLE_OVER);
	qs_free(s);
}

static void expect_message(const kai_verdict *v, const char *queue, const char *want)
{
	char buf[512];
	int n = kai_verdict_message(v, queue, buf, sizeof buf);
	assert_string_equal(buf, want);
	assert_int_equal(n, (int)strlen(want));
}

/* The messages of api/unschedule_info.go, numbers as HumanizeResource and %v print them. */
static void kai_capacity_messages(void **state)
{
	(void)state;
	kai_verdict v;
	qs *s = qs_new(1);
	put(s, 0, GPU, (rsh){.m = 3, .a = 1, .d = 3, .np = 1});
	put(s, 0, CPU, (rsh){.m = 2000, .a = 1000, .d = 1500, .np = 1000});
	put(s, 0, MEM, (rsh){.m = U, .d = 3e9, .np = 2.5e9});
	kai_job_over_capacity(&s->q, 0, (double[]){0, 0, 1.0 / 3 + 2}, true, &v);
	expect_message(&v, "q1",
	               "q1 quota has reached the allowable limit of GPUs. Limit is 3 GPUs, "
	               "currently 1 GPUs allocated and workload requested 2.333 GPUs");
	kai_job_over_capacity(&s->q, 0, (double[]){1500, 0, 0}, true, &v);
	expect_message(&v, "q1",
	               "q1 quota has reached the allowable limit of CPU cores. Limit is 2 cores, "
	               "currently 1 cores allocated and workload requested 1.5 cores");
	kai_job_over_capacity(&s->q, 0, (double[]){0, 1e9, 0}, false, &v);
	expect_message(&v, "q1",
	               "Non-preemptible workload is over quota. Workload requested 1 GB memory, "
	               "but q1 quota is 3 GB, while 2.5 GB are already allocated for "
	               "non-preemptible pods. Use a preemptible workload to go over quota.");
	s->q.r[GPU].max_allowed[0] = U;
	kai_job_over_capacity(&s->q, 0, (double[]){0, 0, 2.5}, false, &v);
	expect_message(&v, "q1",
	               "Non-preemptible workload is over quota. Workload requested 2.5 GPUs, but "
	               "q1 quota is 3 GPUs, while 1 GPUs are already allocated for non-preemptible "
	               "pods. Use a preemptible workload to go over quota.");
	kai_job_over_capacity(&s->q, 0, (double[]){0, 0, 2e6}, false, &v); /* Go's %v: 2e+06 */
	expect_message(&v, "q",
	               "Non-preemptible workload is over quota. Workload requested 2e+06 GPUs, but "
	               "q quota is 3 GPUs, while 1 GPUs are already allocated for non-preemptible "
	               "pods. Use a preemptible workload to go over quota.");
	s->q.r[CPU].max_allowed[0] = U;
	kai_job_over_capacity(&s->q, 0, (double[]){1234.5678, 0, 0}, false, &v);
	expect_message(
	    &v, "q",
	    "Non-preemptible workload is over quota. Workload requested 1.234 CPU cores, "
	    "but q quota is 1.5 cores, while 1 cores are already allocated for "
	    "non-preemptible pods. Use a preemptible workload to go over quota.");
	/* a schedulable verdict has no message; a short buffer is cut and says the length */
	kai_job_over_capacity(&s->q, 0, (double[]){0, 0, 0}, false, &v);
	expect_message(&v, "q", "");
	s->q.r[GPU].max_allowed[0] = 3;
	kai_job_over_capacity(&s->q, 0, (double[]){0, 0, 3}, true, &v);
	char small[8];
	assert_true(kai_verdict_message(&v, "q1", small, sizeof small) > 7);
	assert_string_equal(small, "q1 quot");
	qs_free(s);
}

/* ---------------- strategies_test.go ---------------- */

static const double MINMEM = 10.0 * 1024 * 1024; /* resource_info.MinMemory */

static void kai_strategies(void **state)
{
	(void)state;
	/* "Reclaim strategy predicates" (queue 0 reclaimer, 1 reclaimee) */
	qs *s = qs_new(2);
	put(s, 1, GPU, (rsh){.d = 2, .f = 4, .m = U});
	assert_false(kai_fits_maintain_fair_share(&s->q, 1, (double[]){0, 0, 3}));
	assert_true(kai_fits_maintain_fair_share(&s->q, 1, (double[]){0, 0, 5}));
	put(s, 0, GPU, (rsh){.d = 4, .f = 4, .a = 2});
	put(s, 1, GPU, (rsh){.d = 2, .f = 4});
	assert_true(
	    kai_fits_guarantee_deserved(&s->q, (double[]){0, 0, 2}, 0, 1, (double[]){0, 0, 3}));
	assert_false(
	    kai_fits_guarantee_deserved(&s->q, (double[]){0, 0, 3}, 0, 1, (double[]){0, 0, 3}));
	assert_false(
	    kai_fits_guarantee_deserved(&s->q, (double[]){0, 0, 2}, 0, 1, (double[]){0, 0, 2}));
	qs_free(s);
	/* "Maintain Fair Share Strategy": reclaimee GPU {D, F, A}, remaining = its allocated */
	static const double mfs[][4] = {
	    {3, 4, 1, 0}, {3, 4, 3, 0}, {1, 3, 3, 0}, {3, 3, 3, 0}, {2, 3, 4, 1},
	};
	for (size_t c = 0; c < sizeof mfs / sizeof *mfs; c++) {
		s = qs_new(2);
		put(s, 0, GPU, (rsh){.d = 5, .f = 5, .m = U});
		put(s, 1, GPU, (rsh){.d = mfs[c][0], .f = mfs[c][1], .a = mfs[c][2], .m = U});
		double rem[KAI_NRES] = {0, 0, mfs[c][2]};
		assert_int_equal(kai_fits_maintain_fair_share(&s->q, 1, rem), mfs[c][3] != 0);
		qs_free(s);
	}
	/* "Maintain Fair Share Strategy - Multi Resource": {D, F, M}, remaining cpu/mem/gpu */
	static const double multi[][8] = {
	    {100, 200, U, 220, 220, 80, 1},  {100, 200, U, 80, 220, 220, 1},
	    {100, 200, U, 220, 80, 220, 1},  {200, 200, U, 220, 220, 80, 1},
	    {200, 200, U, 80, 220, 220, 1},  {200, 200, U, 220, 80, 220, 1},
	    {200, 200, U, 120, 120, 220, 1}, {200, 200, U, 220, 120, 120, 1},
	    {200, 200, U, 120, 220, 120, 1}, {200, 200, U, 120, 120, 120, 0},
	    {200, 200, 100, 120, 30, 50, 1},
	};
	for (size_t c = 0; c < sizeof multi / sizeof *multi; c++) {
		const double *m = multi[c];
		s = qs_new(2);
		put(s, 1, CPU, (rsh){.d = m[0], .f = m[1], .m = m[2]});
		put(s, 1, MEM, (rsh){.d = m[0] * MINMEM, .f = m[1] * MINMEM, .m = m[2]});
		put(s, 1, GPU, (rsh){.d = m[0], .f = m[1], .m = m[2]});
		double rem[KAI_NRES] = {m[3], m[4] * MINMEM, m[5]};
		assert_int_equal(kai_fits_maintain_fair_share(&s->q, 1, rem), m[6] != 0);
		qs_free(s);
	}
	/* "Guarantee Deserved Quota Strategy": reclaimer asks 2 GPUs; GPU {D, F, A} of reclaimer
	 * and reclaimee, reclaimee cpu {D, F}, memory {D, F}; remaining = reclaimee allocated */
	static const double gdq[][11] = {
	    {1, 5, 3, 1, 5, 3, 0, 0, 0, 0, 0},     {5, 5, 3, 1, 5, 4, 0, 0, 0, 0, 1},
	    {5, 5, 3, 1, 3, 3, 0, 0, 0, 0, 1},     {4, 5, 2, 3, 5, 4, 1, 1, 1, 1, 1},
	    {5, 2, 2, 1, 3, 3, 100, 100, 0, 0, 1}, {5, 2, 2, 3, 3, 3, 0, 0, 0, 0, 0},
	    {5, 2, 2, 3, 2, 2, 0, 0, 0, 0, 0},     {4, 4, 2, 0, 2, 2, 0, 0, 0, 0, 1},
	};
	for (size_t c = 0; c < sizeof gdq / sizeof *gdq; c++) {
		const double *g = gdq[c];
		s = qs_new(2);
		put(s, 0, GPU, (rsh){.d = g[0], .f = g[1], .a = g[2]});
		put(s, 1, GPU, (rsh){.d = g[3], .f = g[4], .a = g[5]});
		put(s, 1, CPU, (rsh){.d = g[6], .f = g[7]});
		put(s, 1, MEM, (rsh){.d = g[8], .f = g[9]});
		double rem[KAI_NRES] = {0, 0, g[5]};
		assert_int_equal(kai_fits_guarantee_deserved(&s->q, (double[]){0, 0, 2}, 0, 1, rem),
		                 g[10] != 0);
		qs_free(s);
	}
}

/* ---------------- reclaimable_test.go: Can Reclaim Resources ---------------- */

typedef struct can_case {
	double req[3];
	bool preemptible;
	rsh r[3]; /* cpu, memory, gpu */
	bool want;
} can_case;

static void kai_can_reclaim_cases(void **state)
{
	(void)state;
	static const can_case cases[] = {
	    /* Preemptible job */
	    {{1000, 1000, 1}, true, {{.f = 2000}, {.f = 2000}, {.f = 2}}, true},
	    {{1000, 1000, 1},
	     true,
	     {{.f = 3000, .a = 1000}, {.f = 3000, .a = 1000}, {.f = 3, .a = 1}},
	     true},
	    {{500, 1000, 0},
	     true,
	     {{.f = 2000, .a = 1000}, {.f = 2000, .a = 1000}, {.f = 2, .a = 1}},
	     true},
	    {{1000, 1000, 1},
	     true,
	     {{.f = 2000, .a = 1000}, {.f = 2000, .a = 1000}, {.f = 2, .a = 1}},
	     true},
	    {{1, 1000, 1000},
	     true,
	     {{.f = 1500, .a = 1000}, {.f = 3000, .a = 1000}, {.f = 1, .a = 1}},
	     false},
	    {{1, 1000, 1000},
	     true,
	     {{.f = 1500, .a = 1000}, {.f = 1500, .a = 1000}, {.f = 1, .a = 1}},
	     false},
	    {{1, 1000, 1000},
	     true,
	     {{.f = 3000, .a = 2000}, {.f = 3000, .a = 1000}, {.f = 0, .a = 1}},
	     false},
	    /* Non-preemptible job */
	    {{1000, 1000, 1},
	     false,
	     {{.d = 2000, .f = 2000}, {.d = 2000, .f = 2000}, {.d = 2, .f = 2}},
	     true},
	    {{1000, 1000, 1},
	     false,
	     {{.d = 1000, .f = 2000}, {.d = 1000, .f = 2000}, {.d = 1, .f = 2}},
	     true},
	    {{1, 1000, 1000},
	     false,
	     {{.d = 1000, .f = 2000}, {.d = 500, .f = 2000}, {.d = 0, .f = 2}},
	     false},
	    {{1000, 1000, 1},
	     false,
	     {{.d = 3000, .f = 3000, .a = 1000, .np = 1000},
	      {.d = 3000, .f = 3000, .a = 1000, .np = 1000},
	      {.d = 3, .f = 3, .a = 1, .np = 1}},
	     true},
	    {{1, 1000, 1000},
	     false,
	     {{.d = 0, .f = 3000, .a = 1000},
	      {.d = 0, .f = 3000, .a = 1000},
	      {.d = 0, .f = 3, .a = 1}},
	     false},
	    {{1, 1000, 1000},
	     false,
	     {{.d = 1500, .f = 3000, .a = 1000, .np = 1000},
	      {.d = 3000, .f = 3000, .a = 1000, .np = 1000},
	      {.d = 0, .f = 3, .a = 1, .np = 1}},
	     false},
	    {{1, 1000, 1000},
	     false,
	     {{.d = 1500, .f = 3000, .a = 1000, .np = 1000},
	      {.d = 1500, .f = 3000, .a = 1000, .np = 1000},
	      {.d = 1, .f = 3, .a = 1, .np = 1}},
	     false},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		qs *s = qs_new(1);
		for (int r = 0; r < KAI_NRES; r++)
			put(s, 0, r, cases[c].r[r]);
		kai_reclaimer rc = {.queue = 0, .preemptible = cases[c].preemptible};
		memcpy(rc.req, cases[c].req, sizeof rc.req);
		assert_int_equal(kai_can_reclaim(&s->q, &rc), cases[c].want);
		qs_free(s);
	}
}

/* ---------------- reclaimable_test.go: Reclaimable (the scenario validator) ---------------- */

/* "Single department": p1 (0, reclaimer), p2 (1, reclaimee with one 1-GPU pod), default (2). */
static qs *single_department(void)
{
	qs *s = qs_new(3);
	s->q.parent[0] = s->q.parent[1] = 2;
	put(s, 0, GPU, (rsh){.d = 3, .f = 3, .a = 2, .m = U});
	put(s, 1, GPU, (rsh){.d = 2, .f = 2, .a = 3, .m = U});
	put(s, 2, GPU, (rsh){.d = 5, .f = 5, .a = 5, .m = U});
	return s;
}

static bool validate(qs *s, bool preemptible, uint32_t queue, const kai_victim_res *vic,
                     uint32_t nv)
{
	kai_reclaimer rc = {.queue = queue, .req = {0, 0, 1}, .preemptible = preemptible};
	rc.involved = kai_involved(rc.req);
	bool ok = kai_reclaimable(&s->q, &rc, vic, nv, 1, s->scratch);
	qs_free(s);
	return ok;
}

static const kai_victim_res P2_ONE = {.queue = 1, .v = {0, 0, 1}, .involved = 1u << GPU};

static void kai_reclaimable_single_department(void **state)
{
	(void)state;
	/* Reclaimer is below fair share, reclaimee above fair share */
	assert_true(validate(single_department(), true, 0, &P2_ONE, 1));
	/* Reclaimee exactly at fair share */
	qs *s = single_department();
	s->q.r[GPU].allocated[1] = 2;
	s->q.r[GPU].allocated[2] = 4;
	assert_false(validate(s, true, 0, &P2_ONE, 1));
	/* Reclaimer and reclaimee are below fair share */
	s = single_department();
	s->q.r[GPU].allocated[1] = 1;
	s->q.r[GPU].allocated[2] = 3;
	assert_false(validate(s, true, 0, &P2_ONE, 1));
	/* Reclaimer below deserved and reclaimee above deserved (within fair share) */
	s = single_department();
	s->q.r[GPU].fair[1] = 3;
	assert_true(validate(s, true, 0, &P2_ONE, 1));
	/* Reclaimer at fair share, reclaimee above fair share, department below fair share */
	s = single_department();
	s->q.r[GPU].allocated[0] = 3;
	s->q.r[GPU].allocated[2] = 6;
	s->q.r[GPU].deserved[2] = 7;
	s->q.r[GPU].fair[2] += 7 - 2;
	assert_false(validate(s, true, 0, &P2_ONE, 1));
	/* ... department above fair share */
	s = single_department();
	s->q.r[GPU].allocated[0] = 3;
	s->q.r[GPU].allocated[2] = 6;
	assert_false(validate(s, true, 0, &P2_ONE, 1));
	/* Reclaimer above deserved, non-preemptible reclaimer */
	s = single_department();
	s->q.r[GPU].deserved[0] = 2;
	assert_true(validate(s, false, 0, &P2_ONE, 1));
	/* Reclaimer department only preemptible above deserved */
	s = single_department();
	s->q.r[GPU].deserved[0] = 2;
	s->q.r[GPU].deserved[2] = 3;
	assert_true(validate(s, false, 0, &P2_ONE, 1));
	/* Reclaimer department non-preemptible equal to deserved */
	s = single_department();
	s->q.r[GPU].deserved[0] = 2;
	s->q.r[GPU].deserved[2] = 3;
	s->q.r[GPU].alloc_np[2] = 3;
	assert_false(validate(s, false, 0, &P2_ONE, 1));
	/* Reclaimer department allocated above fair share */
	s = single_department();
	s->q.r[GPU].deserved[0] = 2;
	s->q.r[GPU].deserved[2] = 1;
	s->q.r[GPU].fair[2] = 1;
	s->q.r[GPU].allocated[2] = 3;
	assert_true(validate(s, true, 0, &P2_ONE, 1));
}

/* "Multiple departments": p1 (0) under d1 (2), p2 (1) under d2 (3). */
static qs *two_departments(void)
{
	qs *s = qs_new(4);
	s->q.parent[0] = 2;
	s->q.parent[1] = 3;
	put(s, 0, GPU, (rsh){.d = 3, .f = 3, .a = 2, .m = U});
	put(s, 1, GPU, (rsh){.d = 2, .f = 2, .a = 3, .m = U});
	put(s, 2, GPU, (rsh){.d = 3, .f = 3, .a = 2, .m = U});
	put(s, 3, GPU, (rsh){.d = 2, .f = 2, .a = 3, .m = U});
	return s;
}

static void kai_reclaimable_departments(void **state)
{
	(void)state;
	assert_true(validate(two_departments(), true, 0, &P2_ONE, 1));
	qs *s = two_departments(); /* Reclaimee department goes below fair share */
	s->q.r[GPU].allocated[1] = s->q.r[GPU].allocated[3] = 2;
	assert_false(validate(s, true, 0, &P2_ONE, 1));
	s = two_departments(); /* reclaimee department above deserved, within fair share */
	s->q.r[GPU].allocated[0] = s->q.r[GPU].allocated[2] = 1;
	s->q.r[GPU].fair[1] = s->q.r[GPU].fair[3] = 4;
	assert_true(validate(s, true, 0, &P2_ONE, 1));
}

/* buildQueues: GPU {deserved, fairShare, allocated}, unlimited; parent index or NOQ. */
typedef struct bq {
	uint32_t parent;
	double d, f, a;
} bq;

static qs *build(const bq *b, uint32_t n)
{
	qs *s = qs_new(n);
	for (uint32_t i = 0; i < n; i++) {
		s->q.parent[i] = b[i].parent;
		put(s, i, GPU, (rsh){.d = b[i].d, .f = b[i].f, .a = b[i].a, .m = U});
	}
	return s;
}

static void kai_reclaimable_hierarchy(void **state)
{
	(void)state;
	/* left-top 0, left-mid 1, left-leaf 2, right-top 3, right-mid 4, right-leaf 5; the
	 * reclaimee is a 2-GPU pod of right-leaf */
	const kai_victim_res right2 = {.queue = 5, .v = {0, 0, 2}, .involved = 1u << GPU};
	static const bq sanity[] = {{NOQ, 1, 1, 0}, {0, 1, 1, 0}, {1, 1, 1, 0},
	                            {NOQ, 1, 1, 2}, {3, 1, 1, 2}, {4, 1, 1, 2}};
	assert_true(validate(build(sanity, 6), true, 2, &right2, 1));
	/* "Reclaimer top queue will go over quota": left-top-oq-leaf (6) holds 1 */
	static const bq over[] = {{NOQ, 1, 1, 1}, {0, 1, 1, 0}, {1, 1, 1, 0}, {NOQ, 1, 1, 2},
	                          {3, 1, 1, 2},   {4, 1, 1, 2}, {0, 0, 0, 1}};
	assert_false(validate(build(over, 7), true, 2, &right2, 1));
	/* same branch: top 0, mid1 1, mid2 2, left-leaf1 3, left-leaf2 4, right-leaf 5 */
	static const bq branch[] = {{NOQ, 2, 2, 2}, {0, 1, 1, 0.5}, {0, 1, 1, 1.5},
	                            {1, 1, 1, 0},   {1, 0, 0, 0.5}, {2, 1, 1, 1.5}};
	const kai_victim_res right15 = {.queue = 5, .v = {0, 0, 1.5}, .involved = 1u << GPU};
	assert_false(validate(build(branch, 6), true, 3, &right15, 1));
	const kai_victim_res both[] = {right15, {.queue = 4, .v = {0, 0, 0.5}, .involved = 4}};
	assert_true(validate(build(branch, 6), true, 3, both, 2));
	/* "lower utilization ratio than reclaimee but over 1": d1 0, d1-p1 1, d1-p2 2, d2 3,
	 * d2-p1 4 */
	static const bq ratio[] = {
	    {NOQ, 4, 4, 4}, {0, 3, 1, 0}, {0, 1, 3, 4}, {NOQ, 3, 3, 7}, {3, 3, 3, 7}};
	const kai_victim_res d2p1 = {.queue = 4, .v = {0, 0, 1}, .involved = 1u << GPU};
	assert_true(validate(build(ratio, 5), true, 1, &d2p1, 1));
	/* "Reclamation with uninvolved resources": cpu saturation is not compared */
	static const bq uninv[] = {{NOQ, 4, 4, 4}, {0, 1, 1, 1}, {NOQ, 3, 3, 7}, {2, 3, 3, 7}};
	qs *s = build(uninv, 4);
	put(s, 0, CPU, (rsh){.a = 3000, .f = 1000});
	put(s, 2, CPU, (rsh){.a = 1000, .f = 1000});
	const kai_victim_res d2p = {.queue = 3, .v = {0, 0, 1}, .involved = 1u << GPU};
	assert_true(validate(s, true, 1, &d2p, 1));
	/* ... but compared when the victim gave cpu too: 3000/1000 > 1 and >= 0/1000 */
	s = build(uninv, 4);
	put(s, 0, CPU, (rsh){.a = 3000, .f = 1000});
	put(s, 2, CPU, (rsh){.a = 1000, .f = 1000});
	put(s, 3, CPU, (rsh){.a = 1000, .f = 1000});
	const kai_victim_res d2cpu = {.queue = 3, .v = {1000, 0, 1}, .involved = 5};
	assert_false(validate(s, true, 1, &d2cpu, 1));
}

/* The saturation multiplier: the reclaimer's ratio times it must stay below the sibling's. */
static void kai_reclaimable_saturation(void **state)
{
	(void)state;
	/* d1 0 (reclaimer's department), d1-p 1, d2 2, d2-p 3 */
	static const bq q[] = {{NOQ, 4, 4, 4}, {0, 4, 4, 4}, {NOQ, 4, 4, 8}, {2, 4, 4, 8}};
	const kai_victim_res v = {.queue = 3, .v = {0, 0, 1}, .involved = 1u << GPU};
	kai_reclaimer rc = {.queue = 1, .req = {0, 0, 1}, .involved = 4, .preemptible = true};
	/* after the take: d1 5/4 = 1.25, d2 7/4 = 1.75 */
	qs *s = build(q, 4);
	assert_true(kai_reclaimable(&s->q, &rc, &v, 1, 1, s->scratch));
	assert_true(kai_reclaimable(&s->q, &rc, &v, 1, 1.39, s->scratch));
	assert_false(kai_reclaimable(&s->q, &rc, &v, 1, 1.5, s->scratch));
	qs_free(s);
}

/* ---------------- reclaimable_test.go: FilterVictim ---------------- */

static void kai_filter_victims(void **state)
{
	(void)state;
	/* reclaimer asks 2 GPUs; reclaimer queue 0 and victim queue 1 are top-level */
	static const double cases[][7] = {
	    /* reclaimer d, f, a; victim d, f, a; kept */
	    {4, 4, 0, 4, 4, 2, 0}, {4, 4, 0, 0, 4, 4, 1}, {4, 4, 0, 2, 4, 2, 1},
	    {1, 4, 0, 2, 4, 3, 0}, {1, 4, 0, 2, 4, 5, 1},
	};
	kai_reclaimer rc = {.queue = 0, .req = {0, 0, 2}, .involved = 4, .preemptible = true};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		const double *t = cases[c];
		qs *s = qs_new(2);
		put(s, 0, GPU, (rsh){.d = t[0], .f = t[1], .a = t[2], .m = U});
		put(s, 1, GPU, (rsh){.d = t[3], .f = t[4], .a = t[5], .m = U});
		assert_int_equal(kai_filter_victim(&s->q, &rc, 1), t[6] != 0);
		qs_free(s);
	}
}

/* ---------------- queue_order_test.go ---------------- */

static int order(qs *s, const double total[KAI_NRES], const double lj[3], const double rj[3])
{
	kai_qo_side l = {.queue = 0}, r = {.queue = 1};
	memcpy(l.job, lj, sizeof l.job);
	memcpy(r.job, rj, sizeof r.job);
	int c = kai_queue_order(&s->q, total, &l, &r);
	qs_free(s);
	return c;
}

static qs *two_for_order(rsh l, int lp, rsh r, int rp)
{
	qs *s = qs_new(2);
	put(s, 0, GPU, l);
	put(s, 1, GPU, r);
	s->q.priority[0] = lp;
	s->q.priority[1] = rp;
	s->q.created[0] = s->q.created[1] = 0;
	return s;
}

static void kai_queue_order_cases(void **state)
{
	(void)state;
	static const double none[3] = NONE3, total0[3] = NONE3;
	rsh hungry = {.d = 2, .f = 99, .m = U, .w = 1, .a = 20, .r = 99};
	/* fair share starvation; quota starvation even with another priority */
	assert_int_equal(
	    order(two_for_order(hungry, 0, (rsh){.d = 2, .f = 2, .m = U, .w = 1, .r = 2}, 0),
	          total0, none, none),
	    1);
	assert_int_equal(
	    order(two_for_order(hungry, 1, (rsh){.d = 2, .f = 2, .m = U, .w = 1, .r = 2}, 0),
	          total0, none, none),
	    1);
	/* queue priority when both are satisfied */
	assert_int_equal(
	    order(
	        two_for_order(hungry, 1, (rsh){.d = 2, .f = 2, .m = U, .w = 1, .a = 3, .r = 99}, 0),
	        total0, none, none),
	    -1);
	assert_int_equal(
	    order(two_for_order(hungry, 1, (rsh){.d = 2, .f = 80, .m = U, .w = 1, .a = 3, .r = 99},
	                        0),
	          total0, none, none),
	    -1);
	/* GPU memory requests as fractions of the smallest node GPU memory (10000 MiB) */
	rsh fifty = {.d = 50, .f = 50, .m = U, .w = 1, .a = 40, .r = 50};
	const double total[3] = {0, 0, 100};
	double l1[3] = {0, 0, kai_gpu_memory_fraction(2, 5000, 10000)};
	double r1[3] = {0, 0, kai_gpu_memory_fraction(2, 10000, 10000)};
	assert_int_equal(order(two_for_order(fifty, 0, fifty, 0), total, l1, r1), -1);
	double l2[3] = {0, 0, kai_gpu_memory_fraction(4, 8000, 10000)};
	double r2[3] = {0, 0, kai_gpu_memory_fraction(4, 2000, 10000)};
	assert_int_equal(order(two_for_order(fifty, 0, fifty, 0), total, l2, r2), 1);
}

/* Own queue-order rules: victims leave the share, zero-share penalty, allocatable, creation. */
static void kai_queue_order_rules(void **state)
{
	(void)state;
	const double total[3] = {0, 0, 10};
	static const double none[3] = NONE3;
	qs *s;
	/* KAI TestPrioritizeUnderUtilized: r over its fair share in all three resources */
	s = qs_new(2);
	for (int res = 0; res < KAI_NRES; res++) {
		put(s, 0, res, (rsh){.f = 1, .a = 1});
		put(s, 1, res, (rsh){.f = 1, .a = 2});
	}
	assert_int_equal(order(s, total, none, none), -1);
	s = qs_new(2); /* over in two of three is not over */
	for (int res = 0; res < KAI_NRES; res++) {
		put(s, 0, res, (rsh){.f = 1, .a = 1, .d = 5});
		put(s, 1, res, (rsh){.f = 1, .a = res == CPU ? 1 : 2, .d = 5});
	}
	s->q.priority[1] = 200;
	assert_int_equal(order(s, total, none, none), 1);
	/* KAI TestPrioritizeUnderQuotaWithJob: r over quota, l within */
	s = qs_new(2);
	for (int res = 0; res < KAI_NRES; res++) {
		put(s, 0, res, (rsh){.d = 1, .f = 5});
		put(s, 1, res, (rsh){.d = 1, .a = 2, .f = 5});
	}
	assert_int_equal(order(s, total, none, none), -1);
	/* equal on every rule up to the share: l holds 6 of 10, r 5; l's popped victims give 2 */
	rsh l = {.d = U, .f = 10, .m = U, .a = 6}, r = {.d = U, .f = 10, .m = U, .a = 5};
	s = two_for_order(l, 0, r, 0);
	kai_qo_side ls = {.queue = 0}, rs = {.queue = 1};
	assert_int_equal(kai_queue_order(&s->q, total, &ls, &rs), 1);
	ls.victims[GPU] = 2;
	assert_int_equal(kai_queue_order(&s->q, total, &ls, &rs), -1);
	/* the rule without jobs and victims breaks a tie of the rule with them */
	ls.victims[GPU] = 0;
	ls.job[GPU] = 1;
	rs.job[GPU] = 2;
	assert_int_equal(kai_queue_order(&s->q, total, &ls, &rs), 1);
	qs_free(s);
	/* a queue whose job needs a resource it has no share of goes after */
	s = two_for_order((rsh){.d = 0, .m = 0}, 0, (rsh){.d = 1, .m = 1, .f = 1}, 0);
	s->q.r[GPU].allocated[1] = 5; /* r is over its fair share in gpu only: not "over" */
	assert_int_equal(order(s, total, (double[]){0, 0, 1}, none), 1);
	/* equal shares: the queue with the smaller allocatable share goes first */
	s = two_for_order((rsh){.d = 2, .f = 2, .m = U}, 0, (rsh){.d = 3, .f = 3, .m = U}, 0);
	assert_int_equal(order(s, total, none, none), -1);
	/* all equal: creation decides; equal creation gives r */
	s = two_for_order((rsh){.d = 2, .f = 2, .m = U}, 0, (rsh){.d = 2, .f = 2, .m = U}, 0);
	s->q.created[1] = -1;
	assert_int_equal(order(s, total, none, none), 1);
	s = two_for_order((rsh){.d = 2, .f = 2, .m = U}, 0, (rsh){.d = 2, .f = 2, .m = U}, 0);
	assert_int_equal(order(s, total, none, none), 1);
	/* dominant share: unlimited allocatable reads the total, zero allocatable costs 1000x */
	s = qs_new(1);
	put(s, 0, GPU, (rsh){.d = U, .m = U});
	assert_double_equal(kai_dominant_share(&s->q, 0, (double[]){0, 0, 5}, total), 0.5, 0);
	assert_double_equal(kai_dominant_share(&s->q, 0, (double[]){2, 0, 5}, total), 2000, 0);
	qs_free(s);
}

/* The fixtures reclaim/024 and reclaim/025 of ../shared/conformance-kai, through the accounting
 * API as the session will drive it: a "default" parent (gpu quota and weight -1), queue0
 * (quota 2, weight 1) and queue1 (quota 2, weight 2), one ready node of 10 GPUs, kValue 1. The
 * fair shares are those of exact arithmetic (quotas 2 + 2, then 6 by weights 1:2 with no
 * usage: 2 and 4); 024 expects queue1 to reclaim 6 GPUs, 025 not to reclaim 7. */
static qs *fixture_queues(double running, double pending)
{
	qs *s = qs_new(3);
	s->q.parent[1] = s->q.parent[2] = 0;
	double w[3] = {-1, 1, 2}, quota[3] = {-1, 2, 2};
	for (uint32_t i = 0; i < 3; i++) {
		kai_queue_set_quota(&s->q, i, GPU, quota[i], -1, w[i]);
		kai_queue_set_quota(&s->q, i, CPU, -1, -1, 1);
		kai_queue_set_quota(&s->q, i, MEM, -1, -1, 1);
	}
	kai_account_allocated(&s->q, 1, (double[]){1000, 1e9, running}, true);
	kai_account_pending(&s->q, 2, (double[]){1000, 1e9, pending});
	double total[KAI_NRES] = {0};
	kai_total_add_node(total, (double[]){2e7, 2e10, 10}, (double[])NONE3, true, false);
	assert_int_equal(kai_share_tree(&s->q, total, 1, s->scratch), 0);
	return s;
}

static void kai_fixture_fair_share_and_reclaim(void **state)
{
	(void)state;
	qs *s = fixture_queues(8, 6); /* reclaim/024 */
	assert_double_equal(fs(s, 0, GPU), 10, 0);
	assert_double_equal(fs(s, 1, GPU), 4, 0);
	assert_double_equal(fs(s, 2, GPU), 6, 0);
	assert_double_equal(fs(s, 2, CPU), 1000, 0);
	assert_double_equal(fs(s, 2, MEM), 1e9, 0);
	kai_reclaimer rc = {.queue = 2, .req = {1000, 1e9, 6}, .preemptible = true};
	rc.involved = kai_involved(rc.req);
	assert_true(kai_can_reclaim(&s->q, &rc));
	assert_true(kai_filter_victim(&s->q, &rc, 1));
	kai_victim_res v = {.queue = 1, .v = {1000, 1e9, 8}};
	v.involved = kai_involved(v.v);
	assert_true(kai_reclaimable(&s->q, &rc, &v, 1, 1, s->scratch));
	qs_free(s);
	s = fixture_queues(4, 7); /* reclaim/025 */
	assert_double_equal(fs(s, 1, GPU), 4, 0);
	assert_double_equal(fs(s, 2, GPU), 6, 0);
	rc.req[GPU] = 7;
	assert_false(kai_can_reclaim(&s->q, &rc));
	qs_free(s);
}

/* KAI proportion_test.go "getVictimResources": tasks of 1 cpu, 1Gi, all Pending. */
static uint32_t victim_vectors(uint32_t nt, uint32_t min, kai_victim_res *out)
{
	kai_victim_task t[4];
	for (uint32_t i = 0; i < nt; i++)
		t[i] = (kai_victim_task){.podset = 0, .v = {1000, 1073741824.0, 0}};
	uint32_t count[1];
	return kai_victim_vectors(9, t, nt, (uint32_t[]){min}, count, 1, true, out);
}

static void kai_victim_resources(void **state)
{
	(void)state;
	kai_victim_res out[5];
	assert_int_equal(victim_vectors(1, 2, out), 1); /* MinAvailable above the task count */
	assert_double_equal(out[0].v[CPU], 1000, 0);
	assert_int_equal(victim_vectors(3, 1, out), 3); /* 2 elastic + 1 core */
	for (int i = 0; i < 3; i++)
		assert_double_equal(out[i].v[CPU], 1000, 0);
	assert_int_equal(victim_vectors(2, 2, out), 1); /* all core, together */
	assert_double_equal(out[0].v[CPU], 2000, 0);
	assert_int_equal(out[0].queue, 9);
	assert_int_equal(out[0].involved, 3);
	assert_int_equal(victim_vectors(2, 0, out), 2); /* zero MinAvailable: all elastic */
	/* two pod sets, minimum 1 each; a moved task is left out only when asked */
	const kai_victim_task t[] = {{0, {0, 0, 1}, false},
	                             {1, {0, 0, 2}, false},
	                             {0, {0, 0, 4}, true},
	                             {1, {0, 0, 8}, false},
	                             {0, {0, 0, 16}, false}};
	uint32_t count[2];
	assert_int_equal(kai_victim_vectors(0, t, 5, (uint32_t[]){1, 1}, count, 2, true, out), 3);
	assert_double_equal(out[0].v[GPU], 8, 0);
	assert_double_equal(out[1].v[GPU], 16, 0);
	assert_double_equal(out[2].v[GPU], 3, 0);
	assert_int_equal(kai_victim_vectors(0, t, 5, (uint32_t[]){1, 1}, count, 2, false, out), 4);
	assert_double_equal(out[0].v[GPU], 4, 0);
	assert_double_equal(out[3].v[GPU], 3, 0);
	/* only moved core tasks: no core vector */
	assert_int_equal(kai_victim_vectors(0, t + 2, 1, (uint32_t[]){1}, count, 1, true, out), 0);
}

/* KAI capacity_policy_test.go: IsJobOverQueueCapacity, IsNonPreemptibleJobOverQuota and
 * IsTaskAllocationOnNodeOverCapacity over top <- mid <- leaf, one resource each; gpu-memory
 * requests of half a GPU's memory (DefaultGpuMemory 100 of 100) are 0.5 GPUs. */
typedef struct cap_case {
	int res;
	rsh lvl[3]; /* top, mid, leaf */
	double req;
	bool preemptible, np_only, ok;
} cap_case;

static void kai_capacity_policy_cases(void **state)
{
	(void)state;
	const double half = kai_gpu_memory_fraction(1, 50, 100);
	const cap_case cases[] = {
	    /* max allowed: gpu memory over / below limit, non-preemptible over quota */
	    {GPU, {{.m = 3, .a = 3}, {.m = 3, .a = 3}, {.m = 3, .a = 3}}, half, true, false, false},
	    {GPU, {{.m = 3, .a = 2}, {.m = 3, .a = 2}, {.m = 3, .a = 2}}, half, true, false, true},
	    {GPU,
	     {{.m = U, .np = 3, .d = 3}, {.m = U, .np = 3, .d = 3}, {.m = U, .np = 3, .d = 3}},
	     half,
	     false,
	     false,
	     false},
	    {GPU, {{.m = 3, .a = 2}, {.m = 3, .a = 2}, {.m = 3, .a = 2}}, 1, true, false, true},
	    {GPU, {{.m = 3, .a = 3}, {.m = 3, .a = 2}, {.m = 3, .a = 2}}, 1, true, false, false},
	    /* allocated non-preemptible over quota (job check, then the quota check alone) */
	    {GPU,
	     {{.m = U, .np = 2, .d = 3}, {.m = U, .np = 2, .d = 3}, {.m = U, .np = 2, .d = 3}},
	     1,
	     false,
	     false,
	     true},
	    {GPU,
	     {{.m = U, .np = 3, .d = 3}, {.m = U, .np = 2, .d = 3}, {.m = U, .np = 2, .d = 3}},
	     1,
	     false,
	     false,
	     false},
	    {GPU,
	     {{.m = U, .np = 2, .d = 3}, {.m = U, .np = 2, .d = 3}, {.m = U, .np = 2, .d = 3}},
	     1,
	     false,
	     true,
	     true},
	    {GPU,
	     {{.m = U, .np = 3, .d = 3}, {.m = U, .np = 2, .d = 3}, {.m = U, .np = 2, .d = 3}},
	     1,
	     false,
	     true,
	     false},
	    /* task on node: cpu */
	    {CPU,
	     {{.m = U, .np = 2000, .d = 3000},
	      {.m = U, .np = 2000, .d = 3000},
	      {.m = U, .np = 2000, .d = 3000}},
	     1000,
	     false,
	     false,
	     true},
	    {CPU,
	     {{.m = U, .np = 3000, .d = 3000},
	      {.m = U, .np = 2000, .d = 3000},
	      {.m = U, .np = 2000, .d = 3000}},
	     1000,
	     false,
	     false,
	     false},
	    {CPU,
	     {{.m = U, .np = 2000, .d = 3000},
	      {.m = U, .np = 2000, .d = 3000},
	      {.m = U, .np = 2000, .d = 3000}},
	     1000,
	     true,
	     false,
	     true},
	    {CPU,
	     {{.m = U, .np = 3000, .d = 3000},
	      {.m = U, .np = 2000, .d = 3000},
	      {.m = U, .np = 2000, .d = 3000}},
	     1000,
	     true,
	     false,
	     true},
	    {CPU,
	     {{.m = 3000, .a = 2000, .np = 2000, .d = 3000},
	      {.m = 3000, .a = 2000, .np = 2000, .d = 3000},
	      {.m = 3000, .a = 2000, .np = 2000, .d = 3000}},
	     500,
	     false,
	     false,
	     true},
	    {CPU,
	     {{.m = 3000, .a = 2000, .np = 2000, .d = 4000},
	      {.m = 3000, .a = 2000, .np = 2000, .d = 4000},
	      {.m = 3000, .a = 2000, .np = 2000, .d = 4000}},
	     1100,
	     false,
	     false,
	     false},
	    {CPU,
	     {{.m = 3000, .a = 2000, .np = 2000, .d = 3000},
	      {.m = 3000, .a = 2000, .np = 2000, .d = 3000},
	      {.m = 3000, .a = 2000, .np = 2000, .d = 3000}},
	     500,
	     true,
	     false,
	     true},
	    {CPU,
	     {{.m = 3000, .a = 2000, .np = 2000, .d = 4000},
	      {.m = 3000, .a = 2000, .np = 2000, .d = 4000},
	      {.m = 3000, .a = 2000, .np = 2000, .d = 4000}},
	     1100,
	     true,
	     false,
	     false},
	    /* multi-device fractions: 2 x 0.6 GPU against 0.4 of quota 1; a 2-GPU task, limit 1 */
	    {GPU,
	     {{.m = U, .np = 0.4, .d = 1}, {.m = U, .d = U}, {.m = U, .d = U}},
	     1.2,
	     false,
	     false,
	     false},
	    {GPU, {{.m = 1, .d = U}, {.m = U, .d = U}, {.m = U, .d = U}}, 2, false, false, false},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		const cap_case *t = &cases[c];
		qs *s = qs_new(3);
		s->q.parent[1] = 0;
		s->q.parent[2] = 1;
		for (uint32_t i = 0; i < 3; i++)
			put(s, i, t->res, t->lvl[i]);
		double req[KAI_NRES] = {0};
		req[t->res] = t->req;
		kai_verdict v;
		int reason = t->np_only
		                 ? kai_nonpreemptible_over_quota(&s->q, 2, req, t->preemptible, &v)
		                 : kai_job_over_capacity(&s->q, 2, req, t->preemptible, &v);
		assert_int_equal(reason == KAI_SCHEDULABLE, t->ok);
		qs_free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(kai_division_single_within_quota),
	    cmocka_unit_test(kai_division_single_over_quota),
	    cmocka_unit_test(kai_division_two_queues),
	    cmocka_unit_test(kai_division_remainder_with_priorities),
	    cmocka_unit_test(kai_division_cpu_memory),
	    cmocka_unit_test(kai_set_resources_share),
	    cmocka_unit_test(kai_last_unit_by_uid),
	    cmocka_unit_test(kai_tree_multi_hierarchy),
	    cmocka_unit_test(kai_tree_two_departments),
	    cmocka_unit_test(kai_kvalue_and_usage),
	    cmocka_unit_test(kai_rounds_and_leftovers),
	    cmocka_unit_test(kai_unlimited_quota_and_bands),
	    cmocka_unit_test(kai_tree_rejects_bad_parents),
	    cmocka_unit_test(kai_accounting),
	    cmocka_unit_test(kai_capacity_single_queue),
	    cmocka_unit_test(kai_capacity_path),
	    cmocka_unit_test(kai_capacity_messages),
	    cmocka_unit_test(kai_capacity_policy_cases),
	    cmocka_unit_test(kai_strategies),
	    cmocka_unit_test(kai_can_reclaim_cases),
	    cmocka_unit_test(kai_reclaimable_single_department),
	    cmocka_unit_test(kai_reclaimable_departments),
	    cmocka_unit_test(kai_reclaimable_hierarchy),
	    cmocka_unit_test(kai_reclaimable_saturation),
	    cmocka_unit_test(kai_filter_victims),
	    cmocka_unit_test(kai_queue_order_cases),
	    cmocka_unit_test(kai_queue_order_rules),
	    cmocka_unit_test(kai_fixture_fair_share_and_reclaim),
	    cmocka_unit_test(kai_victim_resources),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for plugins/lib/vres.c's per-job open-time rows: the shared Pending sums
 * (the snapshot's task pass) give what a per-job walk over tasks gives, and the one-pass rows
 * what the row helpers give; the ready nodes' shared sums. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "lib/vres.h"
#include "harness.h"

static const char scn[] =
    "conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: proportion\n"
    "queues: [{name: q1}, {name: default}]\n"
    "nodes: [{name: n1, allocatable: {cpu: '64', memory: 64Gi, pods: '100',"
    " nvidia.com/gpu: '4'}}]\n"
    "podGroups:\n"
    "  - {name: a, namespace: c1, queue: q1, minMember: 2, phase: Running,"
    " minResources: {cpu: '3', memory: 1Gi}}\n"
    "  - {name: b, namespace: c1, queue: q1, minMember: 1, phase: Inqueue,"
    " minResources: {cpu: '8'}}\n"
    "  - {name: c, namespace: c1, queue: q1, minMember: 1, phase: Running,"
    " minResources: {cpu: '6'}}\n"
    "  - {name: none, namespace: c1, queue: q1}\n"
    "pods:\n"
    "  - {name: a1, namespace: c1, podGroup: a, phase: Running, nodeName: n1,"
    " requests: {cpu: '2', memory: 1Gi, nvidia.com/gpu: '1'}}\n"
    "  - {name: a2, namespace: c1, podGroup: a, requests: {cpu: '1', memory: 2Gi}}\n"
    "  - {name: a3, namespace: c1, podGroup: a, phase: Succeeded, requests: {cpu: '5'}}\n"
    "  - {name: b1, namespace: c1, podGroup: b, requests: {cpu: '4', nvidia.com/gpu: '2'}}\n"
    "  - {name: b2, namespace: c1, podGroup: b, phase: Failed,"
    " requests: {cpu: '1'}}\n"
    "  - {name: c1, namespace: c1, podGroup: c, phase: Running, nodeName: n1,"
    " requests: {cpu: '2'}}\n"
    "  - {name: bare, namespace: c1, requests: {cpu: '1', memory: 1Gi}}\n";

/* The Pending requests of job j, walked over its tasks. */
static void walk_pending(const tph_session *s, tph_idx j, int64_t *pj)
{
	memset(pj, 0, TPH_RES_MAX * sizeof *pj);
	for (uint32_t k = s->jobs->task_off[j]; k < s->jobs->task_off[j + 1]; k++) {
		tph_idx t = s->jobs->task_idx[k];
		if (s->tasks.status[t] != TPH_TS_PENDING)
			continue;
		for (uint32_t d = 0; d < s->ndim; d++)
			pj[d] += s->tasks.req[(size_t)t * s->ndim + d];
	}
}

static void test_shared_pending_rows(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, scn);
	vr_dims v;
	vr_dims_init(&v, p.s);
	for (tph_idx j = 0; j < p.s->jobs->n; j++) {
		int64_t walk[TPH_RES_MAX];
		walk_pending(p.s, j, walk);
		const int64_t *shared = p.s->jobs->pending_req + (size_t)j * p.s->ndim;
		assert_memory_equal(walk, shared, p.s->ndim * sizeof *walk);
		vr_jobrows r;
		vr_job_rows(&v, p.s, j, &r);
		for (uint32_t d = 0; d < v.n; d++)
			if (vr_has(v.cmp, d))
				assert_int_equal(r.request[d], r.alloc[d] + walk[d]);
	}
	/* a2 is the only Pending task of a: 1 cpu, 2Gi on top of a1's 2 cpu, 1Gi */
	vr_jobrows a;
	vr_job_rows(&v, p.s, pts_job(&p, "c1/a"), &a);
	assert_int_equal(a.alloc[TPH_RES_CPU], 2000);
	assert_int_equal(a.request[TPH_RES_CPU], 3000);
	assert_int_equal(a.request[TPH_RES_MEMORY], (int64_t)3 << 30);
	pts_free(&p);
}

/* vr_job_rows' one pass against the helpers it stands for: allocated on cmp's dimensions,
 * elastic the part of it above minResources, inqueue GetInqueueResource when the podgroup
 * reserves (Inqueue, or Running with minMember allocated), else zero. */
static void test_job_rows_one_pass(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, scn);
	vr_dims v;
	vr_dims_init(&v, p.s);
	uint32_t reserving = 0;
	for (tph_idx j = 0; j < p.s->jobs->n; j++) {
		vr_jobrows r;
		int64_t ja[TPH_RES_MAX], mn[TPH_RES_MAX], el[TPH_RES_MAX], iq[TPH_RES_MAX] = {0};
		vr_job_rows(&v, p.s, j, &r);
		for (uint32_t d = 0; d < v.n; d++)
			ja[d] = vr_has(v.cmp, d) ? p.s->js.allocated[(size_t)j * v.n + d] : 0;
		vr_job_min(&v, p.s, j, mn);
		vr_exceeded(&v, ja, mn, el, NULL);
		const uint32_t *c = p.s->js.count + (size_t)j * TPH_TS_COUNT;
		uint32_t held =
		    c[TPH_TS_ALLOCATED] + c[TPH_TS_BINDING] + c[TPH_TS_BOUND] + c[TPH_TS_RUNNING];
		uint8_t ph = p.s->js.phase[j];
		bool reserves =
		    p.s->jobs->has_min_res[j] &&
		    (ph == TPH_PG_INQUEUE ||
		     (ph == TPH_PG_RUNNING && held >= (uint32_t)p.s->jobs->min_member[j]));
		if (reserves)
			vr_job_inqueue(&v, p.s, j, ja, iq);
		reserving += reserves;
		assert_memory_equal(r.alloc, ja, v.n * sizeof *ja);
		assert_memory_equal(r.elastic, el, v.n * sizeof *el);
		assert_memory_equal(r.inqueue, iq, v.n * sizeof *iq);
	}
	/* b, and c (Running with its 1 task of minMember 1 allocated); a is Running with 1 of its
	 * 2 tasks allocated */
	assert_int_equal(reserving, 2);
	/* a holds 2 cpu, 1Gi and a gpu against minResources of 3 cpu, 1Gi: the gpu is elastic */
	vr_jobrows a, b;
	vr_job_rows(&v, p.s, pts_job(&p, "c1/a"), &a);
	assert_int_equal(a.elastic[TPH_RES_CPU], 0);
	assert_int_equal(a.inqueue[TPH_RES_CPU], 0);
	vr_job_rows(&v, p.s, pts_job(&p, "c1/b"), &b);
	assert_int_equal(b.inqueue[TPH_RES_CPU], 8000);
	pts_free(&p);
}

/* vr_job_rows_add adds every job's rows into a queue's, starting from what the queue holds,
 * and writes nothing past the session's dimensions. */
static void test_job_rows_add_sums(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, scn);
	vr_dims v;
	vr_dims_init(&v, p.s);
	int64_t q[4][TPH_RES_MAX], want[4][TPH_RES_MAX];
	for (uint32_t k = 0; k < 4; k++)
		for (uint32_t d = 0; d < TPH_RES_MAX; d++)
			q[k][d] = want[k][d] = 5;
	for (tph_idx j = 0; j < p.s->jobs->n; j++) {
		vr_jobrows r;
		vr_job_rows(&v, p.s, j, &r);
		const int64_t *rows[4] = {r.alloc, r.request, r.inqueue, r.elastic};
		for (uint32_t k = 0; k < 4; k++)
			for (uint32_t d = 0; d < v.n; d++)
				want[k][d] += rows[k][d];
		vr_job_rows_add(&v, p.s, j, &(vr_qrows){q[0], q[1], q[2], q[3]});
	}
	assert_memory_equal(q, want, sizeof q);
	assert_true(v.n < TPH_RES_MAX);
	assert_int_equal(q[2][TPH_RES_CPU], 5 + 8000 + 4000); /* b 8 cpu, c 6 less its 2 */
	pts_free(&p);
}

static void check_node_sums(const char *yaml, uint32_t n_ready)
{
	pts p;
	pts_open(&p, yaml);
	assert_int_equal(p.s->n_ready, n_ready);
	const vr_node_sums *ns = vr_node_sums_get(p.s);
	assert_non_null(ns);
	assert_ptr_equal(vr_node_sums_get(p.s), ns); /* made once */
	for (uint32_t d = 0; d < p.s->ndim; d++) {
		int64_t alloc = 0, used = 0;
		for (uint32_t n = 0; n < p.s->nodes.n; n++)
			if (p.s->nodes.flags[n] & TPH_NODE_READY) {
				alloc += p.s->nodes.alloc[(size_t)d * p.s->nodes.stride + n];
				used += p.s->nodes.used[(size_t)d * p.s->nodes.stride + n];
			}
		assert_int_equal(ns->alloc[d], alloc);
		assert_int_equal(ns->used[d], used);
	}
	vr_dims v;
	vr_dims_init(&v, p.s);
	int64_t t1[TPH_RES_MAX], t2[TPH_RES_MAX];
	tph_dimmask k1, k2;
	vr_total(&v, p.s, t1, &k1);
	vr_total_from(&v, ns->alloc, t2, &k2);
	assert_memory_equal(t1, t2, v.n * sizeof *t1);
	assert_int_equal(k1, k2);
	pts_free(&p);
}

#define SUMS_HEAD                                                                     \
	"conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: drf\n"         \
	"queues: [{name: q1}]\n"                                                      \
	"podGroups: [{name: a, namespace: c1, queue: q1}]\n"                          \
	"pods: [{name: a1, namespace: c1, podGroup: a, phase: Running, nodeName: n2," \
	" requests: {cpu: '3', nvidia.com/gpu: '1'}}]\n"                              \
	"nodes:\n"                                                                    \
	"  - {name: n1, allocatable: {cpu: '8', memory: 8Gi, pods: '10'}}\n"          \
	"  - {name: n2, allocatable: {cpu: '16', memory: 4Gi, pods: '10', nvidia.com/gpu: '2'}}\n"

/* The ready nodes' sums: every node ready (rows summed whole), and one node not ready (the
 * sums skip it: its allocatable and used count nowhere). */
static void test_node_sums(void **state)
{
	(void)state;
	check_node_sums(SUMS_HEAD, 2);
	check_node_sums(SUMS_HEAD
	                "  - {name: nr, allocatable: {cpu: '64', memory: 64Gi, pods: '10',"
	                " nvidia.com/gpu: '8'}, ready: false}\n",
	                2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shared_pending_rows),
	    cmocka_unit_test(test_job_rows_one_pass),
	    cmocka_unit_test(test_job_rows_add_sums),
	    cmocka_unit_test(test_node_sums),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

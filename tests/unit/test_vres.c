/* Unit tests for plugins/lib/vres.c's per-job open-time rows: the shared Pending sums
 * (the snapshot's task pass) give what a per-job walk over tasks gives. */
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
    "  - {name: none, namespace: c1, queue: q1}\n"
    "pods:\n"
    "  - {name: a1, namespace: c1, podGroup: a, phase: Running, nodeName: n1,"
    " requests: {cpu: '2', memory: 1Gi, nvidia.com/gpu: '1'}}\n"
    "  - {name: a2, namespace: c1, podGroup: a, requests: {cpu: '1', memory: 2Gi}}\n"
    "  - {name: a3, namespace: c1, podGroup: a, phase: Succeeded, requests: {cpu: '5'}}\n"
    "  - {name: b1, namespace: c1, podGroup: b, requests: {cpu: '4', nvidia.com/gpu: '2'}}\n"
    "  - {name: b2, namespace: c1, podGroup: b, phase: Failed,"
    " requests: {cpu: '1'}}\n"
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_shared_pending_rows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

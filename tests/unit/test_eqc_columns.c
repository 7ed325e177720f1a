/* The equivalence classes' verdict columns (action_eqc.c): a column's stamps are zeroed a block
 * of nodes at a time, when a node of the block is first asked about. The columns come from an
 * allocator that fills every block with 0xff, so a stamp read before its block was zeroed looks
 * current and hands back a verdict that was never evaluated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "harness.h"

#include "common/action_util.h"
#include "tephra/alloc.h"

#define N_NODES 2600u /* three blocks of stamps, the last one short */

static void *dirty_malloc(void *ud, size_t n)
{
	(void)ud;
	void *p = malloc(n);
	if (p)
		memset(p, 0xff, n);
	return p;
}

static void *plain_realloc(void *ud, void *p, size_t n)
{
	(void)ud;
	return realloc(p, n);
}

static void plain_free(void *ud, void *p)
{
	(void)ud;
	free(p);
}

static const tph_allocator dirty = {dirty_malloc, plain_realloc, plain_free, NULL};

/* N_NODES nodes, one in three with 1 cpu (a 2-cpu pod does not fit), the others 4. */
static char *scenario(void)
{
	size_t cap = 128u * N_NODES + 1024, len = 0;
	char *y = malloc(cap);
	assert_non_null(y);
	len += (size_t)snprintf(y + len, cap - len,
	                        "conf: |\n"
	                        "  actions: \"allocate\"\n"
	                        "  tiers: [{plugins: [{name: predicates}]}]\n"
	                        "queues: [{name: q1}]\n"
	                        "nodes:\n");
	for (uint32_t i = 0; i < N_NODES; i++)
		len +=
		    (size_t)snprintf(y + len, cap - len,
		                     "  - {name: n%u, allocatable: {cpu: '%u', memory: 8Gi, pods: "
		                     "'20'}}\n",
		                     i, i % 3 ? 4u : 1u);
	snprintf(y + len, cap - len,
	         "podGroups:\n"
	         "  - {name: pg, namespace: ns, queue: q1, minMember: 1, phase: Inqueue}\n"
	         "pods:\n"
	         "  - {name: a, namespace: ns, podGroup: pg, requests: {cpu: '2'}}\n");
	return y;
}

typedef struct fixture {
	pts p;
	char *yaml;
	tph_eqc *e;
	tph_idx task;
	tph_idx *nodes;
	tph_reason_code *got, *want;
	tph_idx *feas;
} fixture;

static void open_fixture(fixture *x)
{
	memset(x, 0, sizeof *x);
	x->yaml = scenario();
	pts_open(&x->p, x->yaml);
	assert_int_equal(x->p.s->nodes.n, N_NODES);
	x->task = pts_task(&x->p, "ns/a");
	x->nodes = malloc(N_NODES * sizeof *x->nodes);
	x->got = malloc(N_NODES * sizeof *x->got);
	x->want = malloc(N_NODES * sizeof *x->want);
	x->feas = malloc(N_NODES * sizeof *x->feas);
	assert_true(x->nodes && x->got && x->want && x->feas);
	tph_set_allocator(&dirty); /* the class's columns come dirty */
	x->e = tph_eqc_new(x->p.s, true);
	assert_non_null(x->e);
}

static void close_fixture(fixture *x)
{
	tph_eqc_free(x->e);
	tph_set_allocator(NULL);
	free(x->nodes);
	free(x->got);
	free(x->want);
	free(x->feas);
	pts_free(&x->p);
	free(x->yaml);
}

/* The class's verdicts over nodes lo..hi (ascending) against the filter's. */
static void check_range(fixture *x, tph_idx lo, tph_idx hi)
{
	uint32_t n = 0;
	for (tph_idx i = lo; i <= hi; i++)
		x->nodes[n++] = i;
	tph_eqc_eval(x->e, x->task, x->nodes, n, x->got);
	tph_filter_nodes(x->p.s, x->task, x->nodes, n, x->want, x->feas);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(x->got[i], x->want[i]);
}

/* Blocks asked about out of order, and ranges across their edges, the last block's end
 * included: every verdict is the filter's, none read from a stamp never zeroed. */
static void blocks_zeroed_when_first_asked(void **state)
{
	(void)state;
	fixture x;
	open_fixture(&x);
	check_range(&x, 2048, 2100);        /* the third block first */
	check_range(&x, 1020, 1030);        /* across the first edge: block 0's end, block 1 */
	check_range(&x, 2040, N_NODES - 1); /* the rest of block 1, the third to its last node */
	check_range(&x, 0, N_NODES - 1);    /* everything, half of it kept */
	assert_int_not_equal(x.want[3], TPH_PASS); /* a 1-cpu node fails: the test sees verdicts */
	assert_int_equal(x.want[4], TPH_PASS);
	close_fixture(&x);
}

/* A kept verdict is not evaluated again until its node is touched: a node whose room went
 * away untouched keeps its pass; touched, it is asked again. Were a block's stamps zeroed at
 * each read (its mark never set), the pass would be lost at once. Four nodes a call: fewer
 * are evaluated directly. */
static void kept_until_touched(void **state)
{
	(void)state;
	fixture x;
	open_fixture(&x);
	tph_session *s = x.p.s;
	check_range(&x, 1000, 1100);
	const tph_idx node = 1024; /* the second block's first node: 4 cpu */
	assert_int_equal(x.want[node - 1000], TPH_PASS);
	s->nodes.idle[node] = 0; /* cpu, dimension 0 */
	for (uint32_t i = 0; i < 4; i++)
		x.nodes[i] = node + i;
	tph_filter_nodes(s, x.task, x.nodes, 4, x.want, x.feas);
	assert_int_not_equal(x.want[0], TPH_PASS);
	tph_eqc_eval(x.e, x.task, x.nodes, 4, x.got);
	assert_int_equal(x.got[0], TPH_PASS);
	tph_eqc_touch(x.e, node);
	tph_eqc_eval(x.e, x.task, x.nodes, 4, x.got);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(x.got[i], x.want[i]);
	close_fixture(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(blocks_zeroed_when_first_asked),
	    cmocka_unit_test(kept_until_touched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

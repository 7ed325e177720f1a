/* Columns that start fresh: a request row's and a pod spec's first builds
 * (allocate_fast_row.c) write their columns without reading them first (a fresh page read
 * first maps the zero page and the store then copies it: two faults where one does), counted
 * as the process's minor faults over columns from an allocator that maps every block afresh;
 * and the equivalence classes' verdict columns (action_eqc.c), whose stamps are zeroed a block
 * of nodes at a time when a node of the block is first asked about, over columns from an
 * allocator that fills every block with 0xff, so that a stamp read before its block was zeroed
 * looks current and hands back a verdict never evaluated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"

#include "allocate/allocate_fast.h"
#include "tephra/alloc.h"

#define N_NODES 24000u /* the fault counts: a row's column spans 94 pages */
#define N_EQC   2600u  /* the classes' columns: three blocks of stamps, the last one short */
#define PAGE    4096u
#define HDR     64u /* a block's mapped length, before it */

/* ---- an allocator of fresh pages (installed once the session is open) ---- */

#define MAX_LIVE 256u
static void *live[MAX_LIVE]; /* its blocks: anything else is the C library's */

static void *fresh_malloc(void *ud, size_t n)
{
	(void)ud;
	uint32_t i = 0;
	while (i < MAX_LIVE && live[i])
		i++;
	if (i == MAX_LIVE)
		return NULL;
	size_t len = n + HDR;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, &len, sizeof len);
	return live[i] = p + HDR;
}

static int32_t live_at(const void *p)
{
	for (uint32_t i = 0; p && i < MAX_LIVE; i++)
		if (live[i] == p)
			return (int32_t)i;
	return -1;
}

static void fresh_free(void *ud, void *p)
{
	(void)ud;
	int32_t i = live_at(p);
	if (i < 0) {
		free(p);
		return;
	}
	size_t len;
	memcpy(&len, (char *)p - HDR, sizeof len);
	munmap((char *)p - HDR, len);
	live[i] = NULL;
}

static void *fresh_realloc(void *ud, void *p, size_t n)
{
	int32_t i = live_at(p);
	if (i < 0)
		return realloc(p, n);
	size_t len;
	memcpy(&len, (char *)p - HDR, sizeof len);
	void *q = fresh_malloc(ud, n);
	if (q) {
		memcpy(q, p, len - HDR < n ? len - HDR : n);
		fresh_free(ud, p);
	}
	return q;
}

static const tph_allocator fresh = {fresh_malloc, fresh_realloc, fresh_free, NULL};

/* ---- the session ---- */

static char *scenario(uint32_t n)
{
	return pts_rows_scenario(n, "{name: predicates}", false);
}

/* Pages a column of n + 1 elements of `size` bytes spans, its block's header included. */
static long column_pages(size_t size)
{
	return (long)((HDR + ((size_t)N_NODES + 1) * size + PAGE - 1) / PAGE);
}

static void first_builds_fault_once_a_page(void **state)
{
	(void)state;
	char *yaml = scenario(N_NODES);
	pts p;
	pts_open(&p, yaml);
	tph_session *s = p.s;
	assert_int_equal(s->n_ready, N_NODES);
	tph_set_allocator(&fresh);
	tph_eqc *e = tph_eqc_new(s, true);
	tph_ph ph;
	tph_ph_opts o = {.error_cache = true};
	assert_int_equal(tph_ph_init(&ph, s, &o, true, e), TPH_OK);
	alloc_fast *f = alloc_fast_new(s, e, &ph);
	assert_non_null(f);
	tph_idx a = pts_task(&p, "ns/a"), b = pts_task(&p, "ns/b");

	/* b's row first: the room the fits read is then filled */
	af_row *rb = af_row_of(f, b), *ra = af_row_of(f, a);
	assert_true(rb && ra && rb != ra);
	assert_int_equal(af_row_sync(f, rb, b, false), TPH_OK);
	long before = pts_minor_faults();
	assert_int_equal(af_row_sync(f, ra, a, false), TPH_OK);
	long row = pts_minor_faults() - before, pages = column_pages(sizeof *ra->fg);
	assert_true(row >= pages - 1); /* the test sees the column's faults */
	assert_true(row <= pages + pages / 4);
	for (uint32_t q = 0; q < N_NODES; q++) /* a fit the build made */
		assert_int_equal(ra->fg[q].fit == TPH_PASS, s->ready_nodes[q] % 3 != 0);

	af_pred *v = af_pred_of(f, a);
	assert_non_null(v);
	/* the scratch and the plugins' first calls fault elsewhere: made before counting */
	memcpy(f->nodes, s->ready_nodes, N_NODES * sizeof *f->nodes);
	tph_predicate_nodes(s, a, f->nodes, N_NODES, f->vbuf);
	before = pts_minor_faults();
	af_pred_sync(f, v, a);
	long pred = pts_minor_faults() - before;
	pages = column_pages(sizeof *v->code);
	assert_true(pred >= pages - 1);
	assert_true(pred <= pages + pages / 4);
	for (uint32_t q = 0; q < N_NODES; q++)
		assert_int_equal(v->code[q], TPH_PASS);

	alloc_fast_free(f);
	tph_ph_free(&ph);
	tph_eqc_free(e);
	tph_act_scratch_end(s);
	pts_free(&p);
	tph_set_allocator(NULL);
	free(yaml);
}

/* ---- the classes' columns ---- */

static void *dirty_malloc(void *ud, size_t n)
{
	(void)ud;
	return pts_filled_block(n);
}

/* The fresh allocator's blocks, left by a test that failed, are still freed as theirs. */
static const tph_allocator dirty = {dirty_malloc, fresh_realloc, fresh_free, NULL};

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
	x->yaml = scenario(N_EQC);
	pts_open(&x->p, x->yaml);
	assert_int_equal(x->p.s->nodes.n, N_EQC);
	x->task = pts_task(&x->p, "ns/a");
	x->nodes = malloc(N_EQC * sizeof *x->nodes);
	x->got = malloc(N_EQC * sizeof *x->got);
	x->want = malloc(N_EQC * sizeof *x->want);
	x->feas = malloc(N_EQC * sizeof *x->feas);
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
	check_range(&x, 2048, 2100);      /* the third block first */
	check_range(&x, 1020, 1030);      /* across the first edge: block 0's end, block 1 */
	check_range(&x, 2040, N_EQC - 1); /* the rest of block 1, the third to its last node */
	check_range(&x, 0, N_EQC - 1);    /* everything, half of it kept */
	assert_int_not_equal(x.want[3], TPH_PASS); /* a 2-cpu node fails: the test sees verdicts */
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
	    cmocka_unit_test(first_builds_fault_once_a_page),
	    cmocka_unit_test(blocks_zeroed_when_first_asked),
	    cmocka_unit_test(kept_until_touched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

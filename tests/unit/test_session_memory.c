/* Session memory: the heap account behind tph_session_mem (mem.c), action scratch freed when its
 * action ends (action_util.c), interned sequences (seqtab.c) and the fit records built on them
 * (fitlog.c), shared by tasks that fail alike; the fit log's API is test_fitlog.c's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "harness.h"

#include "common/action_util.h"
#include "session/fitlog.h"
#include "base/mem.h"
#include "base/seqtab.h"
#include "tephra/probe.h"

/* Three pods of 4 cpu on two 2-cpu nodes: every one stays pending for the same reason. */
static const char too_big[] = "conf: |\n"
                              "  actions: \"allocate\"\n"
                              "  tiers: [{plugins: [{name: predicates}]}]\n"
                              "queues: [{name: q1}]\n"
                              "nodes:\n"
                              "  - {name: n1, allocatable: {cpu: '2', memory: 8Gi, pods: '20'}}\n"
                              "  - {name: n2, allocatable: {cpu: '2', memory: 8Gi, pods: '20'}}\n"
                              "podGroups:\n"
                              "  - {name: pg, namespace: ns, queue: q1, minMember: 1, phase: "
                              "Inqueue}\n"
                              "pods:\n"
                              "  - {name: a, namespace: ns, podGroup: pg, requests: {cpu: '4'}}\n"
                              "  - {name: b, namespace: ns, podGroup: pg, requests: {cpu: '4'}}\n"
                              "  - {name: c, namespace: ns, podGroup: pg, requests: {cpu: '4'}}\n";

static const char idle[] = "conf: |\n"
                           "  actions: \"\"\n"
                           "  tiers: []\n"
                           "queues: [{name: q1}]\n"
                           "nodes:\n"
                           "  - {name: n1, allocatable: {cpu: '2', memory: 8Gi, pods: '20'}}\n"
                           "podGroups:\n"
                           "  - {name: pg, namespace: ns, queue: q1, minMember: 1, phase: "
                           "Inqueue}\n"
                           "pods:\n"
                           "  - {name: a, namespace: ns, podGroup: pg, requests: {cpu: '1'}}\n";

/* ---- the heap account ---- */

static void test_account_charges_its_blocks(void **state)
{
	(void)state;
	size_t base = 100;
	tph_heap_acct a = {.base = &base};
	tph_heap_acct *prev = tph_heap_enter(&a);
	void *p = tph_malloc(1000);
	assert_int_equal(a.live, 1000);
	p = tph_realloc(p, 3000);
	void *q = tph_calloc(10, 10);
	assert_int_equal(a.live, 3100);
	tph_heap_leave(prev);
	void *outside = tph_malloc(50); /* allocated with no account entered */
	prev = tph_heap_enter(&a);
	tph_free(outside); /* never charged: nothing changes */
	assert_int_equal(a.live, 3100);
	tph_free(p);
	tph_free(q);
	assert_int_equal(a.live, 0);
	assert_int_equal(tph_heap_peak(&a), 3200);
	base = 5000; /* the owner's other bytes count into the peak as they are now */
	assert_int_equal(tph_heap_peak(&a), 5000);
	tph_heap_leave(prev);
	tph_heap_release(&a);
}

/* Enough blocks to grow the table several times, freed in an order that moves probe chains. */
static void test_account_many_blocks(void **state)
{
	(void)state;
	enum {
		N = 5000
	};
	static void *blk[N];
	tph_heap_acct a = {0};
	tph_heap_acct *prev = tph_heap_enter(&a);
	size_t want = 0;
	for (uint32_t i = 0; i < N; i++) {
		blk[i] = tph_malloc(i % 97 + 1);
		want += i % 97 + 1;
	}
	assert_int_equal(a.live, want);
	assert_int_equal(a.n, N);
	for (uint32_t i = 0; i < N; i += 2) {
		tph_free(blk[i]);
		want -= i % 97 + 1;
	}
	assert_int_equal(a.live, want);
	for (uint32_t i = 1; i < N; i += 2)
		tph_free(blk[i]);
	assert_int_equal(a.live, 0);
	assert_int_equal(a.n, 0);
	assert_false(a.lost);
	tph_heap_leave(prev);
	tph_heap_release(&a);
}

/* A probe statement and its operations are the session's heap while they live. */
static void test_session_counts_heap(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, idle);
	tph_session_memory m0 = tph_session_mem(p.s);
	assert_int_equal(tph_session_bytes(p.s), m0.arena + m0.heap);
	assert_true(m0.peak >= m0.arena + m0.heap);
	tph_probe_stmt *st;
	assert_int_equal(tph_probe_stmt_begin(p.s, &st), TPH_OK);
	assert_int_equal(tph_probe_stmt_allocate(st, pts_task(&p, "ns/a"), 0), TPH_OK);
	tph_session_memory m1 = tph_session_mem(p.s);
	assert_true(m1.heap > m0.heap);
	tph_probe_stmt_end(st);
	tph_session_memory m2 = tph_session_mem(p.s);
	assert_int_equal(m2.heap, m0.heap);
	assert_true(m2.peak >= m1.arena + m1.heap);
	pts_free(&p);
}

/* ---- action scratch ---- */

static void test_action_scratch_freed_at_end(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, idle);
	tph_heap_acct *prev = tph_heap_enter(&p.s->heap);
	size_t heap0 = p.s->heap.live, arena0 = p.s->arena.allocated;
	uint64_t *col = TPH_ACT_NEW(p.s, uint64_t, 1000);
	assert_non_null(col);
	assert_int_equal(col[999], 0);
	assert_true(p.s->heap.live >= heap0 + 8000);
	assert_int_equal(p.s->arena.allocated, arena0);
	tph_act_scratch_end(p.s);
	assert_int_equal(p.s->heap.live, heap0);
	tph_heap_leave(prev);
	pts_free(&p);
}

/* Small blocks cut from shared chunks (action_util.c) stay zeroed, aligned as malloc's and
 * apart: blocks of every small size, across several chunks and next to large ones. */
static void test_action_scratch_small_blocks(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, idle);
	tph_heap_acct *prev = tph_heap_enter(&p.s->heap);
	size_t heap0 = p.s->heap.live;
	enum {
		N = 700
	};
	static const size_t sizes[] = {0, 1, 3, 8, 15, 16, 17, 100, 2047, 2048, 2049, 5000};
	unsigned char *blk[N];
	size_t len[N];
	for (int i = 0; i < N; i++) {
		len[i] = sizes[i % (sizeof sizes / sizeof *sizes)];
		blk[i] = tph_act_calloc(p.s, len[i], 1);
		assert_non_null(blk[i]);
		assert_int_equal((uintptr_t)blk[i] % 16, 0);
		const tph_act_scratch *sc =
		    &p.s->act_scratch; /* a cut block ends inside its chunk */
		if (!TPH_ARENA_MALLOC && len[i] <= 2048)
			assert_true(blk[i] + len[i] <= (unsigned char *)sc->end &&
			            sc->ptr <= sc->end);
		for (size_t j = 0; j < len[i]; j++)
			assert_int_equal(blk[i][j], 0);
		memset(blk[i], i % 251 + 1, len[i]);
	}
	uint64_t *cols = TPH_ACT_NEW(p.s, uint64_t, 0); /* count 0: a block all the same */
	assert_non_null(cols);
	for (int i = 0; i < N; i++) /* no block wrote into another */
		for (size_t j = 0; j < len[i]; j++)
			assert_int_equal(blk[i][j], i % 251 + 1);
	assert_true(p.s->heap.live > heap0);
	tph_act_scratch_end(p.s);
	assert_int_equal(p.s->heap.live, heap0);
	assert_null(p.s->act_scratch.ptr);
	tph_heap_leave(prev);
	pts_free(&p);
}

/* A block whose chunk cannot be had is NULL, and the next one, with memory, is whole. */
static void test_action_scratch_out_of_memory(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, idle);
	tph_mem_fail_after(1, 1);
	assert_null(TPH_ACT_NEW(p.s, uint32_t, 10));
	assert_null(TPH_ACT_NEW(p.s, uint32_t, 100000));
	tph_mem_fail_after(0, 0);
	uint32_t *a = TPH_ACT_NEW(p.s, uint32_t, 10);
	assert_non_null(a);
	assert_int_equal(a[9], 0);
	tph_mem_fail_after(1, 1); /* a block that fits the chunk asks the heap for nothing */
	uint32_t *b = TPH_ACT_NEW(p.s, uint32_t, 10);
	tph_mem_fail_after(0, 0);
	if (TPH_ARENA_MALLOC) {
		assert_null(b);
	} else {
		assert_non_null(b);
		assert_true(b >= a + 10);
		assert_int_equal(b[9], 0);
	}
	tph_act_scratch_end(p.s);
	pts_free(&p);
}

/* A block of its own from TPH_ACT_ALLOC is not zeroed, so its pages are not written until the
 * caller writes them (64 MiB of fresh memory: a few faults, where TPH_ACT_NEW's memset takes
 * one a page; not counted in the sanitizer build); a small one is still cut from a zeroed
 * chunk. */
static void test_action_scratch_unzeroed_blocks(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, idle);
	size_t n = (size_t)64 << 20;
	long pages = (long)(n / 4096);
	long f0 = pts_minor_faults();
	unsigned char *a = TPH_ACT_ALLOC(p.s, unsigned char, n);
	long taken = pts_minor_faults() - f0;
	assert_non_null(a);
	if (!TPH_ARENA_MALLOC) /* ASan's allocator writes the block's shadow, a page per 32 KiB */
		assert_in_range(taken, 0, pages / 64);
	f0 = pts_minor_faults();
	unsigned char *z = TPH_ACT_NEW(p.s, unsigned char, n);
	taken = pts_minor_faults() - f0;
	assert_non_null(z);
	assert_in_range(taken, pages / 2, 2 * pages);
	uint32_t *small = TPH_ACT_ALLOC(p.s, uint32_t, 10);
	assert_non_null(small);
	for (uint32_t i = 0; !TPH_ARENA_MALLOC && i < 10; i++)
		assert_int_equal(small[i], 0);
	tph_mem_fail_after(1, 1);
	assert_null(TPH_ACT_ALLOC(p.s, unsigned char, n));
	tph_mem_fail_after(0, 0);
	tph_act_scratch_end(p.s);
	pts_free(&p);
}

/* After a real run nothing of the actions' scratch is left. */
static void test_run_leaves_no_scratch(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, too_big);
	pts_run(&p);
	assert_int_equal(p.s->act_scratch.n, 0);
	assert_null(p.s->act_scratch.blk);
	pts_free(&p);
}

/* ---- interned sequences ---- */

static void test_seqtab(void **state)
{
	(void)state;
	tph_arena a;
	tph_arena_init(&a, 0);
	tph_seqtab t;
	tph_seq_init(&t, &a);
	const uint32_t x[] = {1, 2, 3}, y[] = {1, 2, 4};
	uint32_t ix = tph_seq_intern(&t, x, 3), iy = tph_seq_intern(&t, y, 3);
	uint32_t ie = tph_seq_intern(&t, NULL, 0);
	assert_true(ix && iy && ie);
	assert_int_not_equal(ix, iy);
	assert_int_not_equal(ie, ix);
	assert_int_equal(tph_seq_intern(&t, x, 3), ix);
	assert_int_equal(tph_seq_intern(&t, x, 2), tph_seq_intern(&t, y, 2)); /* {1, 2} */
	uint32_t n;
	const uint32_t *v = tph_seq_get(&t, iy, &n);
	assert_int_equal(n, 3);
	assert_int_equal(v[2], 4);
	assert_null(tph_seq_get(&t, ie, &n));
	assert_int_equal(n, 0);
	assert_null(tph_seq_get(&t, 0, &n)); /* "no record" */
	for (uint32_t i = 0; i < 2000; i++)  /* past several index growths */
		assert_int_equal(tph_seq_intern(&t, &i, 1), tph_seq_intern(&t, &i, 1));
	assert_int_equal(tph_seq_intern(&t, x, 3), ix);
	tph_seq_free(&t);
	tph_arena_destroy(&a);
}

/* ---- fit records ---- */

static const tph_pending_row *pending_of(const pts *p, const char *pod)
{
	for (uint32_t i = 0; i < p->log->n_pending; i++)
		if (!strcmp(p->log->pending[i].pod, pod))
			return &p->log->pending[i];
	fail_msg("%s is not pending", pod);
	static const tph_pending_row none = {"", NULL, 0};
	return &none;
}

/* Tasks failing alike share one record, and at close one set of strings. */
static void test_alike_failures_share_one_record(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, too_big);
	assert_int_equal(tph_session_run(p.s, &p.d), TPH_OK);
	tph_idx a = pts_task(&p, "ns/a"), b = pts_task(&p, "ns/b"), c = pts_task(&p, "ns/c");
	assert_true(tph_fitlog_has(p.s, a));
	assert_int_not_equal(p.s->fit->why[a], 0);
	assert_int_equal(p.s->fit->why[a], p.s->fit->why[b]);
	assert_int_equal(p.s->fit->why[a], p.s->fit->why[c]);
	assert_int_equal(tph_session_close(p.s, &p.d), TPH_OK);
	p.log = tph_session_decisions(p.s);
	assert_int_equal(p.log->n_pending, 3);
	const tph_pending_row *ra = pending_of(&p, "ns/a"), *rc = pending_of(&p, "ns/c");
	assert_int_equal(ra->n_reasons, 1);
	assert_string_equal(ra->reasons[0], "2 Insufficient cpu");
	assert_ptr_equal(ra->reasons, rc->reasons);
	assert_false(tph_fitlog_has(p.s, a)); /* dropped at close */
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_account_charges_its_blocks),
	    cmocka_unit_test(test_account_many_blocks),
	    cmocka_unit_test(test_session_counts_heap),
	    cmocka_unit_test(test_action_scratch_freed_at_end),
	    cmocka_unit_test(test_action_scratch_small_blocks),
	    cmocka_unit_test(test_action_scratch_out_of_memory),
	    cmocka_unit_test(test_action_scratch_unzeroed_blocks),
	    cmocka_unit_test(test_run_leaves_no_scratch),
	    cmocka_unit_test(test_seqtab),
	    cmocka_unit_test(test_alike_failures_share_one_record),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Column blocks (base/colmem.h): where a block comes from (the entered account's pool or a
 * plain block), what the account is charged, reuse of a freed block by the next of its size,
 * the huge-page alignment of a fresh region, more sizes than free lists, allocation failure
 * and release with the account. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base/colmem.h"

#define BIG ((size_t)200 << 10)

#ifdef TPH_ARENA_MALLOC
#define POOLED 0 /* every block a malloc block of its own, as the arena's */
#else
#define POOLED 1
#endif

static void test_plain_without_account(void **state)
{
	(void)state;
	unsigned char *p = tph_col_alloc(BIG, true);
	assert_non_null(p);
	assert_int_equal((uintptr_t)p % 64, 0);
	for (size_t i = 0; i < BIG; i += 4096)
		assert_int_equal(p[i], 0);
	tph_col_free(p);
	tph_col_free(NULL);
}

static void test_charged_and_reused(void **state)
{
	(void)state;
	tph_heap_acct a = {0};
	tph_heap_acct *prev = tph_heap_enter(&a);
	char *small = tph_col_alloc(100, false);
	assert_non_null(small);
	assert_null(a.pool); /* small blocks never map a region */
	char *p = tph_col_alloc(BIG, false);
	assert_non_null(p);
	assert_int_equal(a.live, BIG + 100);
	assert_int_equal((uintptr_t)p % 64, 0);
	memset(p, 0xab, BIG);
	tph_col_free(p);
	assert_int_equal(a.live, 100);
	unsigned char *q = tph_col_alloc(BIG, true);
	assert_non_null(q);
	assert_int_equal(q[0], 0);
	assert_int_equal(q[BIG - 1], 0);
	if (POOLED) {
		assert_non_null(a.pool);
		assert_ptr_equal(q, p); /* the freed block serves the next of its size */
		/* the region's first block starts one header past a 2 MiB boundary */
		assert_int_equal(((uintptr_t)q - 64) % ((uintptr_t)2 << 20), 0);
	}
	assert_int_equal(tph_heap_peak(&a), BIG + 100);
	tph_col_free(q);
	tph_col_free(small);
	assert_int_equal(a.live, 0);
	tph_heap_leave(prev);
	tph_heap_release(&a);
	assert_null(a.pool);
}

/* More sizes than free lists: the extra sizes are plain blocks, and every one goes back. */
static void test_many_sizes(void **state)
{
	(void)state;
	tph_heap_acct a = {0};
	tph_heap_acct *prev = tph_heap_enter(&a);
	enum {
		N = 20
	};
	char *p[N];
	size_t total = 0;
	for (int i = 0; i < N; i++) {
		size_t n = BIG + (size_t)i * 4096;
		p[i] = tph_col_alloc(n, false);
		assert_non_null(p[i]);
		memset(p[i], i, n);
		total += n;
	}
	assert_int_equal(a.live, total);
	for (int i = 0; i < N; i++) {
		assert_int_equal(p[i][0], i);
		tph_col_free(p[i]);
	}
	assert_int_equal(a.live, 0);
	tph_heap_leave(prev);
	tph_heap_release(&a);
}

/* Blocks larger than a region get a region of their own. */
static void test_larger_than_region(void **state)
{
	(void)state;
	tph_heap_acct a = {0};
	tph_heap_acct *prev = tph_heap_enter(&a);
	size_t n = (size_t)40 << 20;
	char *p = tph_col_alloc(BIG, false), *q = tph_col_alloc(n, false);
	assert_non_null(p);
	assert_non_null(q);
	q[0] = 1, q[n - 1] = 2;
	assert_int_equal(a.live, BIG + n);
	tph_col_free(q);
	tph_col_free(p);
	tph_heap_leave(prev);
	tph_heap_release(&a);
}

/* Every allocation the pool makes can fail; the caller gets NULL and nothing stays charged. */
static void test_failure(void **state)
{
	(void)state;
	for (long k = 1; k <= 3; k++) {
		tph_heap_acct a = {0};
		tph_heap_acct *prev = tph_heap_enter(&a);
		tph_mem_fail_after(k, 0);
		char *p = NULL;
		long tries = 0;
		while (!(p = tph_col_alloc(BIG, false)))
			tries++;
		tph_mem_fail_after(0, 0);
		assert_true(tries <= 1);
		assert_int_equal(a.live, BIG);
		tph_col_free(p);
		assert_int_equal(a.live, 0);
		tph_heap_leave(prev);
		tph_heap_release(&a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain_without_account),
	    cmocka_unit_test(test_charged_and_reused),
	    cmocka_unit_test(test_many_sizes),
	    cmocka_unit_test(test_larger_than_region),
	    cmocka_unit_test(test_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Arena tests: alignment, chunk reuse across resets, allocations larger than a chunk, cleanup
 * order and the allocation-failure hook. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "arena.h"
#include "mem.h"
#include "tephra/status.h"

static void test_alignment(void **state)
{
	(void)state;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, 4096), TPH_OK);
	for (size_t align = 1; align <= 4096; align *= 2) {
		char *p = tph_arena_alloc(&a, 3, align);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % (align < 8 ? 8 : align), 0);
		memset(p, 0xab, 3);
	}
	int64_t *v = TPH_ARENA_NEW(&a, int64_t, 100);
	assert_non_null(v);
	for (int i = 0; i < 100; i++)
		assert_int_equal(v[i], 0);
	tph_arena_destroy(&a);
}

static void test_reset_reuses_chunks(void **state)
{
	(void)state;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, 1024), TPH_OK);
	void *first = tph_arena_alloc(&a, 100, 8);
	for (int i = 0; i < 50; i++) /* several chunks */
		assert_non_null(tph_arena_alloc(&a, 100, 8));
	size_t reserved = a.reserved;
	assert_true(reserved >= 5000);
	assert_true(a.allocated >= 5100);
	tph_arena_reset(&a);
	assert_int_equal(a.allocated, 0);
	assert_ptr_equal(tph_arena_alloc(&a, 100, 8), first);
	for (int i = 0; i < 50; i++)
		assert_non_null(tph_arena_alloc(&a, 100, 8));
	assert_int_equal(a.reserved, reserved); /* no new chunk */
	tph_arena_destroy(&a);
	assert_null(a.first);
}

static void test_big_allocations(void **state)
{
	(void)state;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, 4096), TPH_OK);
	char *small = tph_arena_alloc(&a, 16, 8);
	char *big = tph_arena_alloc(&a, (size_t)1 << 20, 64);
	assert_non_null(small);
	assert_non_null(big);
	memset(big, 1, (size_t)1 << 20);
	assert_true(a.reserved >= ((size_t)1 << 20));
	char *after = tph_arena_alloc(&a, 16, 8);
	assert_non_null(after);
	assert_true(after < big || after >= big + ((size_t)1 << 20));
	assert_null(tph_arena_alloc(&a, SIZE_MAX - 8, 8));
	assert_null(tph_arena_calloc(&a, SIZE_MAX / 2, 4, 8));
	char *s = tph_arena_strndup(&a, "hello world", 5);
	assert_string_equal(s, "hello");
	tph_arena_destroy(&a);
}

static char order[8];
static char ka[] = "a", kb[] = "b", kx[] = "x", ky[] = "y", kz[] = "z", kq[] = "q";

static void note(void *ud)
{
	strncat(order, ud, sizeof order - strlen(order) - 1);
}

static void test_cleanup_order(void **state)
{
	(void)state;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, 0), TPH_OK);
	order[0] = '\0';
	assert_int_equal(tph_arena_on_cleanup(&a, note, ka), TPH_OK);
	assert_int_equal(tph_arena_on_cleanup(&a, note, kb), TPH_OK);
	tph_arena_reset(&a); /* a reset runs them too, newest first */
	assert_string_equal(order, "ba");
	order[0] = '\0';
	assert_int_equal(tph_arena_on_cleanup(&a, note, kx), TPH_OK);
	assert_int_equal(tph_arena_on_cleanup(&a, note, ky), TPH_OK);
	assert_int_equal(tph_arena_on_cleanup(&a, note, kz), TPH_OK);
	tph_arena_destroy(&a);
	assert_string_equal(order, "zyx");
}

static void test_failure_hook(void **state)
{
	(void)state;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, 4096), TPH_OK);
	tph_mem_fail_after(1, 0);
	assert_null(tph_arena_alloc(&a, 16, 8)); /* the first chunk cannot be had */
	assert_non_null(tph_arena_alloc(&a, 16, 8));
	tph_mem_fail_after(1, 1);
	assert_non_null(tph_arena_alloc(&a, 16, 8)); /* fits the current chunk: no allocation */
	assert_null(tph_arena_alloc(&a, 8192, 8));
	assert_int_equal(tph_arena_on_cleanup(&a, note, kq) == TPH_OK, 1);
	assert_null(tph_arena_alloc(&a, 1 << 16, 8));
	assert_true(tph_mem_attempts() >= 2);
	tph_mem_fail_after(0, 0);
	assert_non_null(tph_arena_alloc(&a, 8192, 8));
	order[0] = '\0';
	tph_arena_destroy(&a);
	assert_string_equal(order, "q");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_alignment),       cmocka_unit_test(test_reset_reuses_chunks),
	    cmocka_unit_test(test_big_allocations), cmocka_unit_test(test_cleanup_order),
	    cmocka_unit_test(test_failure_hook),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Columns zeroed a block at a time on their first write (base/lazycol.h): every value reads 0
 * until written, whatever the allocator hands out (blocks filled with 0xff, so a value read from
 * a block never zeroed, or zeroed short, shows), a clear makes every value 0 again, and a
 * column whose blocks are never written holds no page of its values (minor faults over blocks
 * mapped afresh, counted as a range). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "harness.h"

#include "base/lazycol.h"
#include "base/mem.h"
#include "tephra/alloc.h"
#include "tephra/status.h"

#define BLOCK (1u << TPH_LAZY_SHIFT)
#define N     (5u * BLOCK + 300u) /* five whole blocks and a short last one */
#define PAGE  4096u
#define HDR   64u

/* ---- allocators: blocks filled with 0xff, or mapped afresh ---- */

static void *filled_malloc(void *ud, size_t n)
{
	(void)ud;
	return pts_filled_block(n);
}

static void *filled_realloc(void *ud, void *p, size_t n)
{
	(void)ud;
	return realloc(p, n);
}

static void plain_free(void *ud, void *p)
{
	(void)ud;
	free(p);
}

static const tph_allocator filled = {filled_malloc, filled_realloc, plain_free, NULL};

static void *mapped_malloc(void *ud, size_t n)
{
	(void)ud;
	size_t len = n + HDR;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, &len, sizeof len);
	return p + HDR;
}

static void mapped_free(void *ud, void *p)
{
	(void)ud;
	if (!p)
		return;
	size_t len;
	memcpy(&len, (char *)p - HDR, sizeof len);
	munmap((char *)p - HDR, len);
}

static const tph_allocator mapped = {mapped_malloc, NULL, mapped_free, NULL};

/* ---- tests ---- */

static void zero_until_written(void **state)
{
	(void)state;
	tph_set_allocator(&filled);
	tph_lazy32 c;
	assert_int_equal(tph_lazy32_init(&c, N), TPH_OK);
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(tph_lazy32_get(&c, i), 0);
	/* both ends of a block, across a block edge, the short last block's last value */
	const uint32_t at[] = {0, BLOCK - 1, BLOCK, 3 * BLOCK + 7, N - 1};
	for (uint32_t k = 0; k < sizeof at / sizeof *at; k++)
		tph_lazy32_set(&c, at[k], 100 + k);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t want = 0;
		for (uint32_t k = 0; k < sizeof at / sizeof *at; k++)
			want = at[k] == i ? 100 + k : want;
		assert_int_equal(tph_lazy32_get(&c, i), want);
	}
	tph_lazy32_set(&c, BLOCK, 0); /* a written 0 reads 0, its neighbours stay */
	assert_int_equal(tph_lazy32_get(&c, BLOCK), 0);
	assert_int_equal(tph_lazy32_get(&c, BLOCK - 1), 101);
	tph_lazy32_clear(&c);
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(tph_lazy32_get(&c, i), 0);
	tph_lazy32_set(&c, 2 * BLOCK + 5, 9); /* a block written again after a clear */
	for (uint32_t i = 2 * BLOCK; i < 3 * BLOCK; i++)
		assert_int_equal(tph_lazy32_get(&c, i), i == 2 * BLOCK + 5 ? 9 : 0);
	tph_lazy32_free(&c);
	tph_set_allocator(NULL);
}

static void unmade_frees(void **state)
{
	(void)state;
	tph_lazy32 c = {0};
	tph_lazy32_free(&c); /* a column never made, or freed, is freed again safely */
	assert_null(c.v);
	tph_lazy32_clear(&c);
	tph_lazy32_free(&c);
}

/* Pages of the values a write of `blocks` blocks faults in: each block a page (the values
 * start HDR bytes into their mapping, so a block spans two pages, whose first may be shared
 * with the block before). */
static void untouched_blocks_hold_no_pages(void **state)
{
	(void)state;
	tph_set_allocator(&mapped);
	tph_lazy32 c;
	assert_int_equal(tph_lazy32_init(&c, N), TPH_OK);
	long f0 = pts_minor_faults();
	uint32_t sum = 0;
	for (uint32_t i = 0; i < N; i++)
		sum += tph_lazy32_get(&c, i);
	long reads = pts_minor_faults() - f0;
	assert_int_equal(sum, 0);
	assert_in_range(reads, 0, 1); /* the marks' page, at most: no value read from memory */
	f0 = pts_minor_faults();
	tph_lazy32_set(&c, 2 * BLOCK + 1, 1);
	tph_lazy32_set(&c, 2 * BLOCK + 2, 2);
	long one = pts_minor_faults() - f0;
	assert_in_range(one, 1, 2); /* one block: one or two pages, not the column's six */
	f0 = pts_minor_faults();
	tph_lazy32_set(&c, N - 1, 3);
	long last = pts_minor_faults() - f0;
	assert_in_range(last, 1, 2);
	tph_lazy32_free(&c);
	tph_set_allocator(NULL);
}

static void out_of_memory(void **state)
{
	(void)state;
	tph_lazy32 c;
	tph_mem_fail_after(1, 0);
	assert_int_equal(tph_lazy32_init(&c, N), TPH_ENOMEM);
	assert_null(c.v);
	assert_null(c.zeroed);
	tph_lazy32_free(&c);
	tph_mem_fail_after(2, 0);
	assert_int_equal(tph_lazy32_init(&c, N), TPH_ENOMEM);
	assert_null(c.v);
	tph_mem_fail_after(0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(zero_until_written),
	    cmocka_unit_test(unmade_frees),
	    cmocka_unit_test(untouched_blocks_hold_no_pages),
	    cmocka_unit_test(out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

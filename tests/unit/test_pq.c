/* The shared priority queue (pq.c): Go's container/heap, sift for sift. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "session/pq.h"

static bool less_u32(const void *ctx, tph_idx a, tph_idx b)
{
	(void)ctx;
	return a < b;
}

static void test_pushes_and_pops_as_go(void **state)
{
	(void)state;
	tph_idx buf[8];
	tph_pq h;
	tph_pq_init_less(&h, NULL, less_u32, buf, 8);
	const tph_idx in[] = {5, 3, 8, 1};
	for (int i = 0; i < 4; i++)
		tph_pq_push(&h, in[i]);
	/* Go's heap.Push leaves [1 3 8 5]; Pop swaps the root with the last and sifts down. */
	assert_int_equal(buf[0], 1);
	assert_int_equal(buf[1], 3);
	assert_int_equal(buf[2], 8);
	assert_int_equal(buf[3], 5);
	assert_int_equal(tph_pq_pop(&h), 1);
	assert_int_equal(buf[0], 3);
	assert_int_equal(buf[1], 5);
	assert_int_equal(buf[2], 8);
	assert_int_equal(tph_pq_pop(&h), 3);
	assert_int_equal(tph_pq_pop(&h), 5);
	assert_int_equal(tph_pq_pop(&h), 8);
	assert_int_equal(tph_pq_pop(&h), TPH_NOIDX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pushes_and_pops_as_go),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

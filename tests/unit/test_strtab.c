/* String table tests: dense ids, lookups, lengths, growth to 100k strings, OOM. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "mem.h"
#include "strtab.h"
#include "tephra/status.h"

static void test_dense_ids(void **state)
{
	(void)state;
	tph_strtab t;
	assert_int_equal(tph_strtab_init(&t), TPH_OK);
	assert_int_equal(tph_strtab_find(&t, "", 0), TPH_SID_EMPTY);
	assert_int_equal(tph_strtab_intern_cstr(&t, "cpu"), 1);
	assert_int_equal(tph_strtab_intern_cstr(&t, "memory"), 2);
	assert_int_equal(tph_strtab_intern_cstr(&t, "cpu"), 1);
	assert_int_equal(tph_strtab_intern(&t, "cpu-x", 3), 1); /* by length, no NUL needed */
	assert_int_equal(tph_strtab_intern_cstr(&t, "pods"), 3);
	assert_int_equal(t.n, 4);
	assert_string_equal(tph_strtab_str(&t, 2), "memory");
	assert_int_equal(t.len[2], 6);
	assert_string_equal(tph_strtab_str(&t, 99), "");
	assert_string_equal(tph_strtab_str(&t, TPH_SID_NONE), "");
	tph_strtab_free(&t);
}

static void test_find(void **state)
{
	(void)state;
	tph_strtab t;
	assert_int_equal(tph_strtab_init(&t), TPH_OK);
	tph_sid a = tph_strtab_intern_cstr(&t, "alpha");
	assert_int_equal(tph_strtab_find(&t, "alpha", 5), a);
	assert_int_equal(tph_strtab_find(&t, "alph", 4), TPH_SID_NONE);
	assert_int_equal(tph_strtab_find(&t, "beta", 4), TPH_SID_NONE);
	assert_int_equal(t.n, 2); /* find never interns */
	tph_sid nul = tph_strtab_intern(&t, "a\0b", 3);
	assert_int_not_equal(nul, tph_strtab_find(&t, "a", 1));
	assert_int_equal(tph_strtab_find(&t, "a\0b", 3), nul);
	tph_strtab_free(&t);
}

static void test_growth_100k(void **state)
{
	(void)state;
	tph_strtab t;
	char buf[32];
	assert_int_equal(tph_strtab_init(&t), TPH_OK);
	for (uint32_t i = 0; i < 100000; i++) {
		int n = snprintf(buf, sizeof buf, "pod-%u", i);
		assert_int_equal(tph_strtab_intern(&t, buf, (size_t)n), i + 1);
	}
	assert_int_equal(t.n, 100001);
	for (uint32_t i = 0; i < 100000; i += 7) {
		int n = snprintf(buf, sizeof buf, "pod-%u", i);
		assert_int_equal(tph_strtab_find(&t, buf, (size_t)n), i + 1);
		assert_string_equal(tph_strtab_str(&t, i + 1), buf);
	}
	assert_true(t.mask + 1 >= t.n);
	tph_strtab_free(&t);
}

static void test_out_of_memory(void **state)
{
	(void)state;
	tph_strtab t;
	char buf[32];
	assert_int_equal(tph_strtab_init(&t), TPH_OK);
	uint32_t failures = 0;
	for (uint32_t i = 0; i < 2000; i++) {
		int n = snprintf(buf, sizeof buf, "s%u", i);
		tph_mem_fail_after(1, 0);
		tph_sid id = tph_strtab_intern(&t, buf, (size_t)n);
		tph_mem_fail_after(0, 0);
		if (id == TPH_SID_NONE) {
			failures++;
			assert_int_equal(tph_strtab_find(&t, buf, (size_t)n), TPH_SID_NONE);
			id = tph_strtab_intern(&t, buf, (size_t)n);
		}
		assert_int_equal(id, t.n - 1);
	}
	assert_true(failures > 0);
	for (uint32_t i = 0; i < 2000; i++) {
		int n = snprintf(buf, sizeof buf, "s%u", i);
		assert_int_equal(tph_strtab_find(&t, buf, (size_t)n), i + 1);
	}
	tph_strtab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dense_ids),
	    cmocka_unit_test(test_find),
	    cmocka_unit_test(test_growth_100k),
	    cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

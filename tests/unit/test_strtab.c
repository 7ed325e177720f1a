/* String table tests: dense ids, lookups, lengths, growth to 100k strings, OOM, the memo of
 * recent strings, reserving room. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/mem.h"
#include "base/strtab.h"
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

/* Re-interning recent strings (answered by the memo) and older ones (by the table) gives the
 * same ids, also when many strings share a memo slot. */
static void test_memo(void **state)
{
	(void)state;
	tph_strtab t;
	char buf[32];
	assert_int_equal(tph_strtab_init(&t), TPH_OK);
	for (uint32_t round = 0; round < 3; round++)
		for (uint32_t i = 0; i < 5 * TPH_STRTAB_MEMO; i++) {
			int n = snprintf(buf, sizeof buf, "ns%u", i % (2 * TPH_STRTAB_MEMO));
			tph_sid id = tph_strtab_intern(&t, buf, (size_t)n);
			assert_int_equal(tph_strtab_intern(&t, buf, (size_t)n), id);
			tph_sid prefix =
			    tph_strtab_intern(&t, buf, (size_t)n - 1); /* "ns1" of "ns12" */
			assert_int_equal(tph_strtab_find(&t, buf, (size_t)n - 1), prefix);
			assert_string_equal(tph_strtab_str(&t, id), buf);
		}
	tph_strtab_free(&t);
}

/* After a reserve, that many strings go in without a rehash (the slots stay as they are). */
static void test_reserve(void **state)
{
	(void)state;
	tph_strtab t;
	char buf[32];
	assert_int_equal(tph_strtab_init(&t), TPH_OK);
	assert_int_equal(tph_strtab_intern_cstr(&t, "before"), 1);
	assert_int_equal(tph_strtab_reserve(&t, 50000), TPH_OK);
	const uint64_t *slots = t.slots;
	uint32_t mask = t.mask;
	assert_int_equal(tph_strtab_find(&t, "before", 6), 1);
	for (uint32_t i = 0; i < 50000; i++) {
		int n = snprintf(buf, sizeof buf, "pod-%u", i);
		assert_int_equal(tph_strtab_intern(&t, buf, (size_t)n), i + 2);
	}
	assert_ptr_equal(t.slots, slots);
	assert_int_equal(t.mask, mask);
	assert_int_equal(tph_strtab_reserve(&t, 0), TPH_OK); /* nothing to do */
	assert_ptr_equal(t.slots, slots);
	tph_strtab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dense_ids),   cmocka_unit_test(test_find),
	    cmocka_unit_test(test_growth_100k), cmocka_unit_test(test_out_of_memory),
	    cmocka_unit_test(test_memo),        cmocka_unit_test(test_reserve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The checker's helpers for long expect: and probe: lists (issue 12): sorted keys that find
 * the first of equal keys, a stable order that agrees with the insertion sort it replaced, and
 * a report that lists a bounded number of differences while counting them all. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "base/mem.h"
#include "session/check_core.h"

static void test_keyed_find(void **state)
{
	(void)state;
	static const char *const keys[] = {"c1/p2", "c1/p1", "c1/p2", "c2/p1", "c1/p10"};
	tph_keyed *v = tph_keyed_new(5);
	assert_non_null(v);
	for (uint32_t i = 0; i < 5; i++)
		v[i] = (tph_keyed){keys[i], i};
	tph_keyed_sort(v, 5);
	assert_int_equal(tph_keyed_find(v, 5, "c1/p2"), 0); /* the first of two */
	assert_int_equal(tph_keyed_find(v, 5, "c1/p1"), 1);
	assert_int_equal(tph_keyed_find(v, 5, "c1/p10"), 4);
	assert_int_equal(tph_keyed_find(v, 5, "c2/p1"), 3);
	assert_int_equal(tph_keyed_find(v, 5, "c1/p"), UINT32_MAX);
	assert_int_equal(tph_keyed_find(v, 5, "zz"), UINT32_MAX);
	assert_int_equal(tph_keyed_find(v, 0, "c1/p2"), UINT32_MAX);
	tph_free(v);
}

/* Orders by id / 10: ids with equal tens tie and must keep their listed order. */
static int by_tens(const tph_session *s, tph_idx a, tph_idx b)
{
	(void)s;
	return (int)(a / 10) - (int)(b / 10);
}

static void test_stable_order(void **state)
{
	(void)state;
	enum {
		N = 5000
	};
	static tph_idx ids[N];
	static uint32_t pos[N], want[N];
	uint64_t x = 12345;
	for (uint32_t i = 0; i < N; i++) {
		x = x * 6364136223846793005ull + 1442695040888963407ull;
		ids[i] = (tph_idx)(x >> 40) % 700;
		pos[i] = want[i] = i;
	}
	for (uint32_t i = 1; i < N; i++) /* the insertion sort the probe used before */
		for (uint32_t k = i; k > 0 && by_tens(NULL, ids[want[k]], ids[want[k - 1]]) < 0;
		     k--) {
			uint32_t t = want[k];
			want[k] = want[k - 1];
			want[k - 1] = t;
		}
	assert_int_equal(tph_stable_order(pos, N, ids, by_tens, NULL), TPH_OK);
	assert_memory_equal(pos, want, sizeof pos);
	assert_int_equal(tph_stable_order(pos, 0, ids, by_tens, NULL), TPH_OK);
}

static void test_report_bounded(void **state)
{
	(void)state;
	tph_check_report r = {0};
	for (uint32_t i = 0; i < TPH_REPORT_MAX_LINES + 500; i++)
		tph_report_fail(&r, "feasibleNodes: c1/p0 is feasible on n%u, not listed", i);
	assert_int_equal(r.failures, TPH_REPORT_MAX_LINES + 500);
	uint32_t lines = 0;
	for (const char *p = r.buf; (p = strchr(p, '\n')); p++)
		lines++;
	assert_int_equal(lines, TPH_REPORT_MAX_LINES + 1);
	char last[64];
	snprintf(last, sizeof last, "on n%u, not listed\n", TPH_REPORT_MAX_LINES - 1);
	assert_non_null(strstr(r.buf, last));
	const char *tail = "  (further differences are counted, not listed)\n";
	assert_string_equal(r.buf + r.len - strlen(tail), tail);
	tph_report_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_keyed_find),
	    cmocka_unit_test(test_stable_order),
	    cmocka_unit_test(test_report_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

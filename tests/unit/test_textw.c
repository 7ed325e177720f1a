/* Unit tests for the text writer (kernel/src/base/textw.c): every piece and every conversion
 * of the format subset writes the bytes snprintf writes, cut where snprintf cuts, at every
 * buffer size around the cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tephra/textw.h"
#include "tephra/resource.h"

/* What snprintf(buf, cap, fmt, ...) leaves in buf, against the writer's bytes and length. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void
expect_same(size_t cap, const char *fmt, ...)
{
	char want[256], got[256];
	memset(got, 'x', sizeof got);
	va_list ap, aq;
	va_start(ap, fmt);
	va_copy(aq, ap);
	int k = vsnprintf(want, cap, fmt, ap);
	tph_tw w;
	tph_tw_init(&w, got, cap);
	tph_tw_vfmt(&w, fmt, aq);
	va_end(aq);
	va_end(ap);
	assert_true(k >= 0);
	assert_int_equal(w.n, (size_t)k < cap ? (size_t)k : cap - 1);
	assert_memory_equal(got, want, w.n + 1);
	assert_int_equal(got[cap], 'x'); /* nothing past the buffer */
}

/* Every cap from 1 to past the whole text. */
#define EACH_CAP(...)                          \
	for (size_t cap = 1; cap < 100; cap++) \
	expect_same(cap, __VA_ARGS__)

static void test_unsigned(void **state)
{
	(void)state;
	EACH_CAP("%u", 0u);
	EACH_CAP("%u", 7u);
	EACH_CAP("%u", 10u);
	EACH_CAP("%u", UINT32_MAX);
	EACH_CAP("%llu", 0ull);
	EACH_CAP("%llu", (unsigned long long)UINT64_MAX);
	EACH_CAP("%llu", 10000000000000000000ull);
}

static void test_signed(void **state)
{
	(void)state;
	EACH_CAP("%d", 0);
	EACH_CAP("%d", -1);
	EACH_CAP("%d", 42);
	EACH_CAP("%d", INT32_MIN);
	EACH_CAP("%d", INT32_MAX);
	EACH_CAP("%lld", 0ll);
	EACH_CAP("%lld", -9ll);
	EACH_CAP("%lld", (long long)INT64_MIN);
	EACH_CAP("%lld", (long long)INT64_MAX);
}

static void test_strings(void **state)
{
	(void)state;
	EACH_CAP("%s", "");
	EACH_CAP("%s%s", "", "");
	EACH_CAP("%s/%s", "default", "job-1");
	EACH_CAP("%s/%s", "", "");
	EACH_CAP("%c%s%c", 'a', "bc", 'd');
	EACH_CAP(" \xe2\x80\x94 %u %s", 3u, "Insufficient cpu"); /* a cut may split the dash */
	EACH_CAP("100%% of %s", "it");
	EACH_CAP("no conversion at all");
}

/* Each format the decision log writes (jobwhy_rows.c, queue_rows.c, fitlog_rows.c), with
 * values at the edges. */
static void test_formats_in_use(void **state)
{
	(void)state;
	EACH_CAP("%s%u %s", ", ", 0u, "");
	EACH_CAP(", %u other", UINT32_MAX);
	EACH_CAP("%lld/%u tasks in gang unschedulable: ", (long long)INT64_MIN, 0u);
	EACH_CAP("%d minAvailable", -1);
	EACH_CAP("0/%u nodes are unavailable: ", 12u);
	EACH_CAP(". Origin reason is %s: ", "pod-0");
	EACH_CAP("needs %d, %u placeable", INT32_MAX, 5u);
	EACH_CAP("%u of %u task%s pending", 1u, 1u, "");
	EACH_CAP("; only %u task%s exist%s", 2u, "s", "");
	EACH_CAP("not enqueued: %s: %s", "proportion", "queue full");
	EACH_CAP("queue %s is %s", "q1", "Closed");
	EACH_CAP("%s allocated ", "cpu");
	EACH_CAP("%u job%s pending", 3u, "s");
	EACH_CAP("Task %s with role spec %s has already predicated failed, skip", "t", "r");
}

/* Pieces with known lengths: a piece that fills the buffer exactly, and one a byte past. */
static void test_pieces_cut(void **state)
{
	(void)state;
	char b[8];
	tph_tw w;
	tph_tw_init(&w, b, sizeof b);
	assert_int_equal(w.n, 0);
	assert_string_equal(b, "");
	tph_tw_mem(&w, "abcdefgXYZ", 3);
	tph_tw_str(&w, "defg"); /* 7 bytes: exactly full */
	assert_int_equal(w.n, 7);
	assert_string_equal(b, "abcdefg");
	tph_tw_str(&w, "h");
	tph_tw_u64(&w, 9);
	tph_tw_i64(&w, -9);
	assert_int_equal(w.n, 7);
	assert_string_equal(b, "abcdefg");
	tph_tw_init(&w, b, sizeof b);
	tph_tw_str(&w, "abcdefgh"); /* one past */
	assert_string_equal(b, "abcdefg");
	tph_tw_init(&w, b, 1); /* room for the NUL only */
	tph_tw_i64(&w, INT64_MIN);
	assert_int_equal(w.n, 0);
	assert_string_equal(b, "");
}

/* tph_quantity_format keeps snprintf's contract: the length it needed, cut bytes, and nothing
 * written at cap 0. */
static void test_quantity_contract(void **state)
{
	(void)state;
	char full[64], cut[64];
	const int64_t vals[] = {0, 1, -1, 1500, 2000, -2000, INT64_MAX, INT64_MIN, 1024, 4LL << 30};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++)
		for (int u = 0; u < 2; u++) {
			tph_res_unit unit = u ? TPH_UNIT_BYTES : TPH_UNIT_MILLI;
			size_t n = tph_quantity_format(vals[i], unit, full, sizeof full);
			assert_int_equal(n, strlen(full));
			for (size_t cap = 1; cap <= n + 1; cap++) {
				memset(cut, 'x', sizeof cut);
				assert_int_equal(tph_quantity_format(vals[i], unit, cut, cap), n);
				size_t k = n < cap ? n : cap - 1;
				assert_memory_equal(cut, full, k);
				assert_int_equal(cut[k], '\0');
				assert_int_equal(cut[cap], 'x');
			}
			cut[0] = 'x';
			assert_int_equal(tph_quantity_format(vals[i], unit, cut, 0), n);
			assert_int_equal(cut[0], 'x');
		}
	assert_int_equal(tph_quantity_format(INT64_MIN, TPH_UNIT_MILLI, full, sizeof full), 21);
	assert_string_equal(full, "-9223372036854775808m");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unsigned),   cmocka_unit_test(test_signed),
	    cmocka_unit_test(test_strings),    cmocka_unit_test(test_formats_in_use),
	    cmocka_unit_test(test_pieces_cut), cmocka_unit_test(test_quantity_contract),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

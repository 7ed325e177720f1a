/* Unit tests for the Kubernetes quantity parser/formatter (kernel/src/base/quantity.c): every
 * suffix in both units, rounding, exponents, int64 boundaries, every rejection, a seeded
 * format/parse round trip, and the resource-name -> unit mapping. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tephra/resource.h"
#include "tephra/status.h"

#define MILLI      TPH_UNIT_MILLI
#define BYTES      TPH_UNIT_BYTES
#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* A value out of reach of any case, to prove `out` is left alone on errors. */
#define SENTINEL INT64_C(-7777777)

struct ok_case {
	const char *in;
	tph_res_unit unit;
	int64_t want;
};

struct bad_case {
	const char *in;
	tph_res_unit unit;
	int status;
};

static const char *unit_name(tph_res_unit unit)
{
	return unit == BYTES ? "bytes" : "milli";
}

static void expect_ok_n(const char *in, size_t len, tph_res_unit unit, int64_t want)
{
	int64_t got = SENTINEL;
	const char *why = NULL;
	int rc = tph_quantity_parse(in, len, unit, &got, &why);
	if (rc != TPH_OK || got != want) {
		print_error("parse(\"%.*s\", %s): rc=%d why=%s got=%" PRId64 " want=%" PRId64 "\n",
		            (int)len, in, unit_name(unit), rc, why ? why : "(null)", got, want);
		fail();
	}
}

static void expect_ok(const char *in, tph_res_unit unit, int64_t want)
{
	expect_ok_n(in, strlen(in), unit, want);
}

static void expect_bad_n(const char *in, size_t len, tph_res_unit unit, int status)
{
	int64_t got = SENTINEL;
	const char *why = NULL;
	int rc = tph_quantity_parse(in, len, unit, &got, &why);
	if (rc != status || got != SENTINEL || why == NULL || why[0] == '\0') {
		print_error("parse(\"%.*s\", %s): rc=%d want %d, why=%s, out=%" PRId64 "\n",
		            (int)len, in, unit_name(unit), rc, status, why ? why : "(null)", got);
		fail();
	}
	if (status == TPH_ERANGE && strstr(why, "overflow") == NULL) {
		print_error("parse(\"%.*s\"): overflow why does not say so: %s\n", (int)len, in,
		            why);
		fail();
	}
}

static void expect_bad(const char *in, tph_res_unit unit, int status)
{
	expect_bad_n(in, strlen(in), unit, status);
}

static void run_ok(const struct ok_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		expect_ok(cases[i].in, cases[i].unit, cases[i].want);
}

static void run_bad(const struct bad_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		expect_bad(cases[i].in, cases[i].unit, cases[i].status);
}

/* ---- suffixes ---------------------------------------------------------------------- */

static void test_decimal_suffixes(void **state)
{
	static const struct ok_case cases[] = {
	    {"1n", BYTES, 1},
	    {"1u", BYTES, 1},
	    {"1m", BYTES, 1},
	    {"1", BYTES, 1},
	    {"1k", BYTES, INT64_C(1000)},
	    {"1M", BYTES, INT64_C(1000000)},
	    {"1G", BYTES, INT64_C(1000000000)},
	    {"1T", BYTES, INT64_C(1000000000000)},
	    {"1P", BYTES, INT64_C(1000000000000000)},
	    {"1E", BYTES, INT64_C(1000000000000000000)},
	    {"1n", MILLI, 1},
	    {"1u", MILLI, 1},
	    {"1m", MILLI, 1},
	    {"1", MILLI, INT64_C(1000)},
	    {"1k", MILLI, INT64_C(1000000)},
	    {"1M", MILLI, INT64_C(1000000000)},
	    {"1G", MILLI, INT64_C(1000000000000)},
	    {"1T", MILLI, INT64_C(1000000000000000)},
	    {"1P", MILLI, INT64_C(1000000000000000000)},
	    {"500m", MILLI, 500},
	    {"2", MILLI, 2000},
	    {"250k", BYTES, 250000},
	    {"3G", BYTES, INT64_C(3000000000)},
	    {"9E", BYTES, INT64_C(9000000000000000000)},
	    {"1000000n", MILLI, 1},
	    {"1000001n", MILLI, 2},
	    {"999999n", MILLI, 1},
	    {"2000000000n", MILLI, 2000},
	    {"1000u", MILLI, 1},
	    {"1500u", MILLI, 2},
	    {"1000m", BYTES, 1},
	    {"1001m", BYTES, 2},
	    {"1999m", BYTES, 2},
	    {"2000m", BYTES, 2},
	    {"1000000000n", BYTES, 1},
	    {"1000000001n", BYTES, 2},
	};
	(void)state;
	run_ok(cases, N_ELEMS(cases));
}

static void test_binary_suffixes(void **state)
{
	static const struct ok_case cases[] = {
	    {"1Ki", BYTES, INT64_C(1024)},
	    {"1Mi", BYTES, INT64_C(1048576)},
	    {"1Gi", BYTES, INT64_C(1073741824)},
	    {"1Ti", BYTES, INT64_C(1099511627776)},
	    {"1Pi", BYTES, INT64_C(1125899906842624)},
	    {"1Ei", BYTES, INT64_C(1152921504606846976)},
	    {"1Ki", MILLI, INT64_C(1024000)},
	    {"1Mi", MILLI, INT64_C(1048576000)},
	    {"1Gi", MILLI, INT64_C(1073741824000)},
	    {"1Ti", MILLI, INT64_C(1099511627776000)},
	    {"1Pi", MILLI, INT64_C(1125899906842624000)},
	    {"4Gi", BYTES, INT64_C(4294967296)},
	    {"7Ei", BYTES, INT64_C(8070450532247928832)},
	    {"8191Pi", BYTES, INT64_C(9222246136947933184)},
	    {"512Mi", BYTES, INT64_C(536870912)},
	    {"3Ki", MILLI, INT64_C(3072000)},
	};
	(void)state;
	run_ok(cases, N_ELEMS(cases));
}

/* ---- fractions and rounding -------------------------------------------------------- */

static void test_fractions_round_up(void **state)
{
	static const struct ok_case cases[] = {
	    {"0.5m", MILLI, 1},
	    {"1.5", BYTES, 2},
	    {"100n", MILLI, 1},
	    {"1.5Gi", BYTES, INT64_C(1610612736)},
	    {"0.1", MILLI, 100},
	    {"0.001", MILLI, 1},
	    {"0.0001", MILLI, 1},
	    {"0.0011", MILLI, 2},
	    {"0.0010", MILLI, 1},
	    {"1.0001", BYTES, 2},
	    {"1.000", BYTES, 1},
	    {"2.5", MILLI, 2500},
	    {".5", MILLI, 500},
	    {"+.5", MILLI, 500},
	    {"5.", BYTES, 5},
	    {"1.G", BYTES, INT64_C(1000000000)},
	    {"0.5Ki", BYTES, 512},
	    {"1.5Ki", BYTES, 1536},
	    {"0.3Ki", BYTES, 308},     /* 307.2 */
	    {"0.1Ki", BYTES, 103},     /* 102.4 */
	    {"1.1Ki", BYTES, 1127},    /* 1126.4 */
	    {"1.1Ki", MILLI, 1126400}, /* exact */
	    {"0.0001Ki", MILLI, 103},  /* 102.4 */
	    {"0.001Mi", BYTES, 1049},  /* 1048.576 */
	    {"0.000001Ei", BYTES, INT64_C(1152921504607)},
	    {"2.5E", BYTES, INT64_C(2500000000000000000)},
	    {"7.5Ei", BYTES, INT64_C(8646911284551352320)},
	    {"1.5m", MILLI, 2},
	    {"1.5m", BYTES, 1},
	    {"0.000000001", BYTES, 1},
	    {"0.000000001n", MILLI, 1},
	    {"123.456789k", BYTES, 123457},
	    {"123.456789k", MILLI, 123456789},
	};
	(void)state;
	run_ok(cases, N_ELEMS(cases));
}

/* ---- decimal exponents ------------------------------------------------------------- */

static void test_exponents(void **state)
{
	static const struct ok_case cases[] = {
	    {"1e3", BYTES, 1000},
	    {"1E3", BYTES, 1000},
	    {"1e+3", BYTES, 1000},
	    {"1E+3", BYTES, 1000},
	    {"1e0", BYTES, 1},
	    {"1e-0", BYTES, 1},
	    {"1e+0", MILLI, 1000},
	    {"1e003", BYTES, 1000},
	    {"1e-3", MILLI, 1},
	    {"1E-3", MILLI, 1},
	    {"1e-3", BYTES, 1},
	    {"1e-2", MILLI, 10},
	    {"1e-4", MILLI, 1},
	    {"1e-9", MILLI, 1},
	    {"5e-1", MILLI, 500},
	    {"12e-1", BYTES, 2},
	    {"100000e-5", BYTES, 1},
	    {"1.5e3", BYTES, 1500},
	    {"1.5e-3", MILLI, 2},
	    {".5e1", BYTES, 5},
	    {"1e18", BYTES, INT64_C(1000000000000000000)},
	    {"1e15", MILLI, INT64_C(1000000000000000000)},
	    {"9.223372036854775807e18", BYTES, INT64_MAX},
	    {"9223372036854775807e-3", MILLI, INT64_MAX},
	    {"92233720368547758070e-1", BYTES, INT64_MAX},
	    {"0.0000000000000000001e19", BYTES, 1},
	    {"1e-999999999999999999999999", BYTES, 1},
	    {"1e-999999999999999999999999", MILLI, 1},
	    {"0e999999999999999999999999", BYTES, 0},
	    {"0.0e+999999999999999999999999", MILLI, 0},
	    {"1e-1000000000000000", BYTES, 1},
	    {"1e-2147483648", BYTES, 1},
	};
	(void)state;
	run_ok(cases, N_ELEMS(cases));
}

/* ---- signs, zeros and leading zeros ------------------------------------------------ */

static void test_signs_and_zeros(void **state)
{
	static const struct ok_case cases[] = {
	    {"0", BYTES, 0},         {"0", MILLI, 0},        {"00", BYTES, 0},
	    {"0.0", MILLI, 0},       {"000.000m", MILLI, 0}, {".0", BYTES, 0},
	    {"0.", BYTES, 0},        {"+0", BYTES, 0},       {"-0", BYTES, 0},
	    {"-0", MILLI, 0},        {"-0.0", MILLI, 0},     {"-.0", BYTES, 0},
	    {"-0Ki", BYTES, 0},      {"-0e5", BYTES, 0},     {"-0E", MILLI, 0},
	    {"0Ei", BYTES, 0},       {"0E", BYTES, 0},       {"0e99", MILLI, 0},
	    {"0n", MILLI, 0},        {"+1", BYTES, 1},       {"+1", MILLI, 1000},
	    {"007", BYTES, 7},       {"007", MILLI, 7000},   {"+007k", BYTES, 7000},
	    {"0001Ki", BYTES, 1024}, {"00.5", MILLI, 500},   {"0.50", MILLI, 500},
	    {"+0.000", MILLI, 0},
	};
	(void)state;
	run_ok(cases, N_ELEMS(cases));
}

/* ---- int64 boundaries -------------------------------------------------------------- */

static void test_int64_boundaries(void **state)
{
	static const struct ok_case ok[] = {
	    {"9223372036854775807", BYTES, INT64_MAX},
	    {"0009223372036854775807", BYTES, INT64_MAX},
	    {"+9223372036854775807", BYTES, INT64_MAX},
	    {"9223372036854775807.0", BYTES, INT64_MAX},
	    {"9223372036854775806.1", BYTES, INT64_MAX},
	    {"9223372036854775807m", MILLI, INT64_MAX},
	    {"9223372036854775.807", MILLI, INT64_MAX},
	    {"9223372036854775.8069", MILLI, INT64_MAX},
	    {"9223372036854775807000m", BYTES, INT64_MAX},
	    {"9223372036854775806001m", BYTES, INT64_MAX},
	    {"9223372036854775807n", MILLI, INT64_C(9223372036855)},
	    {"9223372036854775807000000n", MILLI, INT64_MAX},
	    {"7.999999999999999999Ei", BYTES, INT64_MAX},
	    {"8191.999999999999999Pi", BYTES, INT64_MAX},
	    {"9223372036854.775807M", BYTES, INT64_MAX},
	    {"9.223372036854775807E", BYTES, INT64_MAX},
	    {"8589934.591Gi", MILLI, INT64_C(9223372035781033984)},
	    {"8589934.591999999999Gi", MILLI, INT64_MAX},
	};
	static const struct bad_case bad[] = {
	    {"9223372036854775808", BYTES, TPH_ERANGE},
	    {"9223372036854775807.1", BYTES, TPH_ERANGE},
	    {"9223372036854775807", MILLI, TPH_ERANGE},
	    {"9223372036854775.808", MILLI, TPH_ERANGE},
	    {"9223372036854775.8071", MILLI, TPH_ERANGE},
	    {"9223372036854775808m", MILLI, TPH_ERANGE},
	    {"9223372036854775807001m", BYTES, TPH_ERANGE},
	    {"9223372036854775807000001n", MILLI, TPH_ERANGE},
	    {"18446744073709551615", BYTES, TPH_ERANGE},
	    {"18446744073709551616", BYTES, TPH_ERANGE},
	    {"8Ei", BYTES, TPH_ERANGE},
	    {"8.0000000000000000001Ei", BYTES, TPH_ERANGE},
	    {"8192Pi", BYTES, TPH_ERANGE},
	    {"1Ei", MILLI, TPH_ERANGE},
	    {"10E", BYTES, TPH_ERANGE},
	    {"1E", MILLI, TPH_ERANGE},
	    {"9.223372036854775808E", BYTES, TPH_ERANGE},
	    {"1e19", BYTES, TPH_ERANGE},
	    {"1e16", MILLI, TPH_ERANGE},
	    {"9.223372036854775808e18", BYTES, TPH_ERANGE},
	    {"1e999999999999999999999999", BYTES, TPH_ERANGE},
	    {"8589934.592Gi", MILLI, TPH_ERANGE},
	    {"9223372036854775807k", MILLI, TPH_ERANGE},
	};
	(void)state;
	run_ok(ok, N_ELEMS(ok));
	run_bad(bad, N_ELEMS(bad));
}

/* ---- very long digit strings ------------------------------------------------------- */

/* Writes pre, then `count` copies of c, then post into buf (NUL-terminated). */
static const char *repeat(char *buf, size_t cap, const char *pre, char c, size_t count,
                          const char *post)
{
	size_t lp = strlen(pre), lq = strlen(post);
	assert_true(lp + count + lq < cap);
	memcpy(buf, pre, lp);
	memset(buf + lp, c, count);
	memcpy(buf + lp + count, post, lq + 1);
	return buf;
}

static void test_long_digit_strings(void **state)
{
	static char b[4096];
	(void)state;
	/* Overflow halfway through digit accumulation must be caught, not wrapped. */
	expect_bad(repeat(b, sizeof b, "1", '0', 39, ""), BYTES, TPH_ERANGE);
	expect_bad(repeat(b, sizeof b, "", '9', 40, ""), MILLI, TPH_ERANGE);
	expect_bad(repeat(b, sizeof b, "1", '0', 39, "e-20"), BYTES, TPH_ERANGE);
	expect_bad(repeat(b, sizeof b, "1", '0', 1000, "n"), MILLI, TPH_ERANGE);
	expect_bad(repeat(b, sizeof b, "1", '0', 39, ".5"), BYTES, TPH_ERANGE);
	/* Many digits whose value is small once the exponent or fraction is applied. */
	expect_ok(repeat(b, sizeof b, "1", '0', 39, "e-39"), BYTES, 1);
	expect_ok(repeat(b, sizeof b, "1", '0', 1000, "e-1000"), MILLI, 1000);
	expect_ok(repeat(b, sizeof b, "1", '0', 1000, "e-997"), BYTES, 1000);
	expect_ok(repeat(b, sizeof b, "", '0', 1000, "5"), BYTES, 5);
	expect_ok(repeat(b, sizeof b, "", '0', 3000, "Ki"), BYTES, 0);
	expect_ok(repeat(b, sizeof b, "0.", '0', 1000, "1"), MILLI, 1);
	expect_ok(repeat(b, sizeof b, "0.", '0', 1000, "1Ei"), BYTES, 1);
	expect_ok(repeat(b, sizeof b, "1.", '0', 1000, ""), BYTES, 1);
	expect_ok(repeat(b, sizeof b, "1.", '0', 1000, "1"), BYTES, 2);
	expect_ok(repeat(b, sizeof b, "1.", '0', 1000, "1Ki"), BYTES, 1025);
	expect_ok(repeat(b, sizeof b, "0.", '9', 1000, ""), BYTES, 1);
	expect_ok(repeat(b, sizeof b, "0.", '9', 1000, "Ki"), BYTES, 1024);
	expect_ok(repeat(b, sizeof b, "1023.", '9', 1000, "Ki"), BYTES, 1024 * 1024);
	expect_ok(repeat(b, sizeof b, "9223372036854775807.", '0', 2000, ""), BYTES, INT64_MAX);
	expect_bad(repeat(b, sizeof b, "9223372036854775807.", '0', 2000, "1"), BYTES, TPH_ERANGE);
	expect_ok(repeat(b, sizeof b, "9223372036854775806.", '9', 2000, ""), BYTES, INT64_MAX);
	expect_ok(repeat(b, sizeof b, "-0.", '0', 2000, ""), MILLI, 0);
	expect_bad(repeat(b, sizeof b, "-0.", '0', 2000, "1"), MILLI, TPH_EINVAL);
	expect_bad(repeat(b, sizeof b, "1e", '9', 2000, ""), BYTES, TPH_ERANGE);
	expect_ok(repeat(b, sizeof b, "1e-", '9', 2000, ""), MILLI, 1);
	expect_ok(repeat(b, sizeof b, "1e-", '0', 2000, "18"), BYTES, 1);
}

/* ---- rejections -------------------------------------------------------------------- */

static void test_syntax_errors(void **state)
{
	static const struct bad_case cases[] = {
	    {"", BYTES, TPH_EINVAL},
	    {" ", BYTES, TPH_EINVAL},
	    {" 1", BYTES, TPH_EINVAL},
	    {"1 ", MILLI, TPH_EINVAL},
	    {"1 Ki", BYTES, TPH_EINVAL},
	    {"\t1", BYTES, TPH_EINVAL},
	    {"1\n", BYTES, TPH_EINVAL},
	    {"1 000", BYTES, TPH_EINVAL},
	    {"1e 3", BYTES, TPH_EINVAL},
	    {"1KB", BYTES, TPH_EINVAL},
	    {"1g", BYTES, TPH_EINVAL},
	    {"1ki", BYTES, TPH_EINVAL},
	    {"1K", BYTES, TPH_EINVAL},
	    {"1KiB", BYTES, TPH_EINVAL},
	    {"1Kii", BYTES, TPH_EINVAL},
	    {"1mi", BYTES, TPH_EINVAL},
	    {"0.1mi", MILLI, TPH_EINVAL},
	    {"1i", BYTES, TPH_EINVAL},
	    {"1mm", MILLI, TPH_EINVAL},
	    {"1kk", BYTES, TPH_EINVAL},
	    {"1x", BYTES, TPH_EINVAL},
	    {"1b", BYTES, TPH_EINVAL},
	    {"1ei", BYTES, TPH_EINVAL},
	    {"1.1.1", BYTES, TPH_EINVAL},
	    {"1..1", BYTES, TPH_EINVAL},
	    {"1.1.M", BYTES, TPH_EINVAL},
	    {"..", BYTES, TPH_EINVAL},
	    {"+", BYTES, TPH_EINVAL},
	    {"-", MILLI, TPH_EINVAL},
	    {".", BYTES, TPH_EINVAL},
	    {"+.", BYTES, TPH_EINVAL},
	    {"-.", BYTES, TPH_EINVAL},
	    {"Ki", BYTES, TPH_EINVAL},
	    {"m", MILLI, TPH_EINVAL},
	    {"E", BYTES, TPH_EINVAL},
	    {"e3", BYTES, TPH_EINVAL},
	    {".e3", BYTES, TPH_EINVAL},
	    {"abc", BYTES, TPH_EINVAL},
	    {"1e", BYTES, TPH_EINVAL},
	    {"1E+", BYTES, TPH_EINVAL},
	    {"1e-", BYTES, TPH_EINVAL},
	    {"1e+-3", BYTES, TPH_EINVAL},
	    {"1e3Ki", BYTES, TPH_EINVAL},
	    {"1e3e3", BYTES, TPH_EINVAL},
	    {"1Ee3", BYTES, TPH_EINVAL},
	    {"1e1.5", BYTES, TPH_EINVAL},
	    {"1e3.", BYTES, TPH_EINVAL},
	    {"1Ki5", BYTES, TPH_EINVAL},
	    {"1Kie3", BYTES, TPH_EINVAL},
	    {"1+1", BYTES, TPH_EINVAL},
	    {"++1", BYTES, TPH_EINVAL},
	    {"+-1", BYTES, TPH_EINVAL},
	    {"--1", BYTES, TPH_EINVAL},
	    {"1-", BYTES, TPH_EINVAL},
	    {"1,000", BYTES, TPH_EINVAL},
	    {"1_000", BYTES, TPH_EINVAL},
	    {"0x10", BYTES, TPH_EINVAL},
	    {"1/2", BYTES, TPH_EINVAL},
	    {"inf", BYTES, TPH_EINVAL},
	    {"NaN", BYTES, TPH_EINVAL},
	    {"1e99999999999999999999x", BYTES, TPH_EINVAL},
	    {"9999999999999999999999Q", BYTES, TPH_EINVAL},
	};
	(void)state;
	run_bad(cases, N_ELEMS(cases));
	/* An embedded NUL is a character like any other, not a terminator. */
	expect_bad_n("1\0", 2, BYTES, TPH_EINVAL);
	expect_bad_n("\0"
	             "1",
	             2, BYTES, TPH_EINVAL);
	expect_bad_n(NULL, 0, BYTES, TPH_EINVAL);
}

static void test_negative_values(void **state)
{
	static const char *const cases[] = {
	    "-1",
	    "-1Ki",
	    "-0.5m",
	    "-.1",
	    "-1e-30",
	    "-1e100",
	    "-9223372036854775808",
	    "-0.0000000001",
	    "-1E",
	    "-8Ei",
	};
	(void)state;
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		for (int u = 0; u < 2; u++) {
			const char *why = NULL;
			int64_t got = SENTINEL;
			int rc = tph_quantity_parse(cases[i], strlen(cases[i]), (tph_res_unit)u,
			                            &got, &why);
			assert_int_equal(rc, TPH_EINVAL);
			assert_non_null(why);
			assert_string_equal(why, "negative quantity");
			assert_true(got == SENTINEL);
		}
	}
}

/* Messages are part of the diagnostics users read: check the distinct ones. */
static void test_why_messages(void **state)
{
	static const struct {
		const char *in;
		const char *why;
	} cases[] = {
	    {"", "empty quantity"},         {"+", "not a number"},
	    {"1KB", "unknown suffix"},      {"1.2.3", "more than one decimal point"},
	    {"1e", "unknown suffix"},       {"1e+", "exponent has no digits"},
	    {"1e3x", "malformed exponent"}, {"1e20", "quantity overflows int64"},
	};
	(void)state;
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		const char *why = NULL;
		int64_t got;
		assert_true(
		    tph_quantity_parse(cases[i].in, strlen(cases[i].in), BYTES, &got, &why) < 0);
		assert_non_null(why);
		assert_string_equal(why, cases[i].why);
	}
}

static void test_api_edges(void **state)
{
	int64_t got = SENTINEL;
	(void)state;
	/* A NULL why is tolerated on both paths. */
	assert_int_equal(tph_quantity_parse("1Ki", 3, BYTES, &got, NULL), TPH_OK);
	assert_true(got == 1024);
	assert_int_equal(tph_quantity_parse("1KB", 3, BYTES, &got, NULL), TPH_EINVAL);
	assert_int_equal(tph_quantity_parse("8Ei", 3, BYTES, &got, NULL), TPH_ERANGE);
	assert_true(got == 1024);
	/* Only `len` bytes are read: the input need not be NUL-terminated. */
	static const char unterminated[3] = {'1', 'K', 'i'};
	expect_ok_n(unterminated, sizeof unterminated, BYTES, 1024);
	expect_ok_n("1Kixyz", 3, BYTES, 1024);
	expect_ok_n("2500m trailing", 5, MILLI, 2500);
	expect_ok_n("1e3e3", 3, BYTES, 1000);
	expect_bad_n("1e3e3", 2, BYTES, TPH_EINVAL);
	/* An out-of-range unit is a bad argument, not a crash. */
	const char *why = NULL;
	assert_int_equal(tph_quantity_parse("1", 1, (tph_res_unit)7, &got, &why), TPH_EINVAL);
	assert_non_null(why);
}

/* ---- formatting -------------------------------------------------------------------- */

static void test_format_table(void **state)
{
	static const struct {
		int64_t v;
		tph_res_unit unit;
		const char *want;
	} cases[] = {
	    {0, MILLI, "0"},
	    {0, BYTES, "0"},
	    {1, MILLI, "1m"},
	    {500, MILLI, "500m"},
	    {1500, MILLI, "1500m"},
	    {2000, MILLI, "2"},
	    {1000000000, MILLI, "1000000"},
	    {INT64_MAX, MILLI, "9223372036854775807m"},
	    {INT64_C(9223372036854775000), MILLI, "9223372036854775"},
	    {-1500, MILLI, "-1500m"},
	    {-2000, MILLI, "-2"},
	    {1, BYTES, "1"},
	    {123, BYTES, "123"},
	    {1000, BYTES, "1k"},
	    {1024, BYTES, "1Ki"},
	    {1536, BYTES, "1536"},
	    {2048, BYTES, "2Ki"},
	    {1500000, BYTES, "1500k"},
	    {1048576, BYTES, "1Mi"},
	    {INT64_C(4294967296), BYTES, "4Gi"},
	    {INT64_C(1610612736), BYTES, "1536Mi"},
	    {INT64_C(5000000000), BYTES, "5G"},
	    {INT64_C(100000000000), BYTES, "100G"},      /* not 97656250Ki */
	    {INT64_C(1000000000000), BYTES, "1T"},       /* not 976562500Ki */
	    {INT64_C(1000000000000000000), BYTES, "1E"}, /* not 976562500000000Ki */
	    {1024000, BYTES, "1024k"},                   /* shorter than 1000Ki */
	    {128000, BYTES, "128k"},                     /* shorter than 125Ki */
	    {INT64_C(3377699720527872), BYTES, "3Pi"},
	    {INT64_C(1152921504606846976), BYTES, "1Ei"},
	    {INT64_C(8070450532247928832), BYTES, "7Ei"},
	    {INT64_C(9000000000000000000), BYTES, "9E"},
	    {INT64_MAX, BYTES, "9223372036854775807"},
	    {INT64_MIN, BYTES, "-8Ei"},
	    {INT64_MIN, MILLI, "-9223372036854775808m"},
	    {-1024, BYTES, "-1Ki"},
	};
	(void)state;
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		char buf[64];
		size_t n = tph_quantity_format(cases[i].v, cases[i].unit, buf, sizeof buf);
		if (strcmp(buf, cases[i].want) != 0 || n != strlen(cases[i].want)) {
			print_error("format(%" PRId64 ", %s) = \"%s\" (%zu), want \"%s\"\n",
			            cases[i].v, unit_name(cases[i].unit), buf, n, cases[i].want);
			fail();
		}
	}
}

static void test_format_buffer_contract(void **state)
{
	char buf[8];
	(void)state;
	/* cap 0: nothing written, the needed length still reported. */
	memset(buf, 'X', sizeof buf);
	assert_int_equal(tph_quantity_format(1500, MILLI, buf, 0), 5);
	assert_int_equal(buf[0], 'X');
	assert_int_equal(tph_quantity_format(1500, MILLI, NULL, 0), 5);
	/* Truncation keeps the NUL inside cap and does not touch bytes past it. */
	assert_int_equal(tph_quantity_format(1500, MILLI, buf, 3), 5);
	assert_string_equal(buf, "15");
	assert_int_equal(buf[3], 'X');
	assert_int_equal(tph_quantity_format(1500, MILLI, buf, 1), 5);
	assert_int_equal(buf[0], '\0');
	/* Exact fit needs room for the NUL. */
	assert_int_equal(tph_quantity_format(1500, MILLI, buf, 6), 5);
	assert_string_equal(buf, "1500m");
	assert_int_equal(tph_quantity_format(4294967296, BYTES, buf, 4), 3);
	assert_string_equal(buf, "4Gi");
}

/* ---- round trip -------------------------------------------------------------------- */

static uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Non-negative values of every magnitude, half of them multiples of 1000^k or 1024^k so
 * the suffixed forms are exercised as much as plain digits. */
static int64_t random_value(uint64_t *seed)
{
	uint64_t r = xorshift64(seed), pick = xorshift64(seed);
	uint64_t v = (r >> 1) >> (pick % 63);
	unsigned k = (unsigned)((pick >> 8) % 7);
	switch ((pick >> 16) % 4) {
	case 0:
		while (k-- > 0 && v <= (uint64_t)INT64_MAX / 1024)
			v *= 1024;
		break;
	case 1:
		while (k-- > 0 && v <= (uint64_t)INT64_MAX / 1000)
			v *= 1000;
		break;
	default:
		break;
	}
	return (int64_t)v;
}

static void round_trip_one(int64_t v, tph_res_unit unit)
{
	char buf[32], plain[32];
	size_t n = tph_quantity_format(v, unit, buf, sizeof buf);
	assert_int_equal(n, strlen(buf));
	/* Never longer than the plain form the formatter could always fall back to. */
	int np = snprintf(plain, sizeof plain, "%" PRId64 "%s", v,
	                  unit == MILLI && v % 1000 != 0 ? "m" : "");
	assert_true(np > 0);
	assert_true(n <= (size_t)np);
	expect_ok(buf, unit, v);
}

static void test_round_trip_random(void **state)
{
	uint64_t seed = UINT64_C(0x9E3779B97F4A7C15);
	(void)state;
	for (int i = 0; i < 5000; i++) {
		int64_t v = random_value(&seed);
		round_trip_one(v, MILLI);
		round_trip_one(v, BYTES);
	}
	static const int64_t edges[] = {0,
	                                1,
	                                999,
	                                1000,
	                                1001,
	                                1023,
	                                1024,
	                                1025,
	                                INT64_MAX,
	                                INT64_MAX - 1,
	                                INT64_C(8070450532247928832),
	                                INT64_C(9000000000000000000)};
	for (size_t i = 0; i < N_ELEMS(edges); i++) {
		round_trip_one(edges[i], MILLI);
		round_trip_one(edges[i], BYTES);
	}
}

/* ---- resource name -> unit --------------------------------------------------------- */

static void test_res_unit_of(void **state)
{
	static const struct {
		const char *name;
		tph_res_unit want;
	} cases[] = {
	    {"memory", BYTES},
	    {"ephemeral-storage", BYTES},
	    {"hugepages-2Mi", BYTES},
	    {"hugepages-1Gi", BYTES},
	    {"cpu", MILLI},
	    {"pods", MILLI},
	    {"nvidia.com/gpu", MILLI},
	    {"example.com/foo", MILLI},
	    {"", MILLI},
	    {"mem", MILLI},
	    {"memoryx", MILLI},
	    {"Memory", MILLI},
	    {"ephemeral-storag", MILLI},
	    {"hugepages", MILLI},
	    {"hugepages_2Mi", MILLI},
	    {"xhugepages-2Mi", MILLI},
	};
	(void)state;
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		tph_res_unit got = tph_res_unit_of(cases[i].name, strlen(cases[i].name));
		if (got != cases[i].want) {
			print_error("unit_of(\"%s\") = %s\n", cases[i].name, unit_name(got));
			fail();
		}
	}
	/* The length bounds the name: a prefix of "memory" is not "memory". */
	assert_int_equal(tph_res_unit_of("memory", 3), MILLI);
	assert_int_equal(tph_res_unit_of("memoryXYZ", 6), BYTES);
	assert_int_equal(tph_res_unit_of(NULL, 0), MILLI);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_decimal_suffixes),
	    cmocka_unit_test(test_binary_suffixes),
	    cmocka_unit_test(test_fractions_round_up),
	    cmocka_unit_test(test_exponents),
	    cmocka_unit_test(test_signs_and_zeros),
	    cmocka_unit_test(test_int64_boundaries),
	    cmocka_unit_test(test_long_digit_strings),
	    cmocka_unit_test(test_syntax_errors),
	    cmocka_unit_test(test_negative_values),
	    cmocka_unit_test(test_why_messages),
	    cmocka_unit_test(test_api_edges),
	    cmocka_unit_test(test_format_table),
	    cmocka_unit_test(test_format_buffer_contract),
	    cmocka_unit_test(test_round_trip_random),
	    cmocka_unit_test(test_res_unit_of),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

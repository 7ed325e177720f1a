/* Unit tests for hypernode member regexes (kernel/src/base/regex_go.c): Go's RE2 syntax read by
 * PCRE2, what RE2 refuses refused with the byte it was found at, the limits that bound compile
 * and match, and clean failures under allocation faults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "base/mem.h"
#include "base/regex_go.h"
#include "tephra/status.h"

/* 1 match, 0 no match, or the compile/match status. */
static int match(const char *pattern, const char *s)
{
	tph_re *re;
	char why[256];
	int rc = tph_re_compile(pattern, &re, why, sizeof why);
	if (rc)
		return rc;
	rc = tph_re_match(re, s, strlen(s));
	tph_re_free(re);
	return rc;
}

static void expect_refused(const char *pattern, const char *want)
{
	tph_re *re = (tph_re *)0x1;
	char why[256] = "";
	int rc = tph_re_compile(pattern, &re, why, sizeof why);
	if (rc != TPH_EINVAL || !strstr(why, want))
		fail_msg("%s: rc %d, \"%s\"; want \"%s\"", pattern, rc, why, want);
	assert_null(re);
}

/* Volcano's regexp.MatchString: an unanchored search in Go's syntax. */
static void test_go_syntax(void **state)
{
	(void)state;
	assert_int_equal(match("^n\\d+$", "n12"), 1);
	assert_int_equal(match("^n\\d+$", "n12x"), 0);
	assert_int_equal(match("^n\\d+$", "m12"), 0);
	assert_int_equal(match("n\\d", "rack-n1-x"), 1); /* unanchored */
	assert_int_equal(match("^\\w+-\\d{2}$", "gpu_a-07"), 1);
	assert_int_equal(match("^r.+?-n1$", "r1-n1"), 1); /* non-greedy */
	assert_int_equal(match("(?i)^NODE-[a-f]$", "node-C"), 1);
	assert_int_equal(match("^(?i:n)1$", "N1"), 1);
	assert_int_equal(match("^(?P<rack>r\\d)-(?<n>n\\d)$", "r1-n2"), 1);
	assert_int_equal(match("^(?:a|b)+$", "abba"), 1);
	assert_int_equal(match("^[[:alpha:]]+\\z", "abc"), 1);
	assert_int_equal(match("^\\pL+$", "n\xc3\xa9"), 1); /* UTF-8 */
	assert_int_equal(match("^\\Qa.b\\E$", "a.b"), 1);
	assert_int_equal(match("^\\Qa.b\\E$", "axb"), 0);
	assert_int_equal(match("x{,2}", "x{,2}"), 1); /* a literal in Go too */
	assert_int_equal(match("^n$", "n\n"), 0);     /* `$` is the end of the text in Go */
	assert_int_equal(match("^a{1000}$", "a"), 0);
}

static void test_refused(void **state)
{
	(void)state;
	expect_refused("(ab)++++++++++++++++++++", "nested repetition operator");
	expect_refused("(ab)++++++++++++++++++++", "at byte 6");
	expect_refused("a*+", "nested repetition");
	expect_refused("a{2}{3}", "nested repetition");
	expect_refused("a??+", "nested repetition");
	expect_refused("(n*)\\1", "backreferences are not supported");
	expect_refused("(?P<x>n)\\k<x>", "backreferences");
	expect_refused("^n(?=\\d)", "lookaround is not supported");
	expect_refused("(?<!r)n", "lookaround is not supported");
	expect_refused("(?>n+)", "group syntax not in RE2");
	expect_refused("(?x) n", "group syntax not in RE2");
	expect_refused("(?R)", "group syntax not in RE2");
	expect_refused("(*ACCEPT)n", "verbs");
	expect_refused("n\\Z", "escape not in RE2");
	expect_refused("[\\K]", "escape not in RE2");
	expect_refused("x{1001}", "repeat count above 1000");
	expect_refused("x{2,100000000000000000000000}",
	               "repeat count above 1000 (Go's limit), at byte 5");
	expect_refused("n[0-9", "missing terminating ]");
	expect_refused("*n", "quantifier does not follow");
	expect_refused("\xff", "UTF-8");
}

static void test_limits(void **state)
{
	(void)state;
	char big[TPH_RE_MAX_LEN + 2];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	expect_refused(big, "longer than 1024 bytes");
	big[TPH_RE_MAX_LEN] = '\0';
	assert_int_equal(match(big, big), 1);
	/* counts that multiply: PCRE2 stops at its compiled size, not gigabytes later */
	expect_refused("((((n{1,100}){1,100}){1,100}){1,100})", "too large");
	char deep[2 * (TPH_RE_MAX_NEST + 1) + 2];
	memset(deep, '(', TPH_RE_MAX_NEST + 1);
	deep[TPH_RE_MAX_NEST + 1] = 'n';
	memset(deep + TPH_RE_MAX_NEST + 2, ')', TPH_RE_MAX_NEST + 1);
	deep[sizeof deep - 1] = '\0';
	expect_refused(deep, "parentheses are too deeply nested");
	/* exponential backtracking stops at the match limit, valid RE2 or not */
	assert_int_equal(match("(?:a|aa)*$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"),
	                 TPH_ERANGE);
	assert_int_equal(match("^(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"),
	                 TPH_ERANGE);
}

static void test_allocation_failures(void **state)
{
	(void)state;
	long n;
	for (n = 1;; n++) {
		tph_mem_fail_after(n, 1);
		tph_re *re;
		char why[256];
		int rc = tph_re_compile("^r(\\d+)-n[0-9]+$", &re, why, sizeof why);
		if (rc == TPH_OK)
			rc = tph_re_match(re, "r1-n1", 5);
		tph_re_free(re);
		tph_mem_fail_after(0, 0);
		if (rc == 1)
			break;
		assert_int_equal(rc, TPH_ENOMEM);
	}
	assert_true(n > 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_go_syntax),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_allocation_failures),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

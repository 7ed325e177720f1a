/* Unit tests for plugins/extender/ext_json.c, the extender's reply reader: the scanner against
 * encoding/json's Decoder (where a value ends, what is read after it, Go's messages for broken
 * input, the depth limit, byte-at-a-time feeding) and the decoder against json.Unmarshal into
 * Volcano's response structs (folded field names, last key wins, type errors that keep the rest,
 * null, int and float ranges, strings with broken UTF-8 and surrogates, victims), then random and
 * mutated garbage, which must never crash nor read past the input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "extender/extender.h"

static ej_scan sc;

/* Scan `text` whole, then EOF; returns the status. */
static int scan_all(const char *text, size_t n)
{
	ej_scan_init(&sc);
	ej_scan_feed(&sc, text, n);
	ej_scan_eof(&sc);
	return sc.status;
}

static int scan(const char *text)
{
	return scan_all(text, strlen(text));
}

static void expect_error(const char *text, const char *msg)
{
	assert_int_equal(scan(text), EJ_ERROR);
	if (strcmp(sc.err, msg))
		fail_msg("%s: got \"%s\", want \"%s\"", text, sc.err, msg);
}

static void expect_end(const char *text, size_t end)
{
	if (scan(text) != EJ_DONE)
		fail_msg("%s: %s", text, sc.err);
	assert_int_equal(sc.end, end);
}

static void test_scan_values(void **state)
{
	(void)state;
	expect_end("{}", 2);
	expect_end("  {\"a\": [1, -2.5e+3, true, false, null, \"x\\u00e9\\n\"]} ", 53);
	expect_end("{\"a\":1}{\"b\":2}", 7); /* Decoder reads one value */
	expect_end("{\"a\":1} trailing garbage", 7);
	expect_end("[]]", 2);
	expect_end("null", 4);
	expect_end("123", 3);    /* a number ends at EOF ... */
	expect_end("123 ", 3);   /* ... or at the byte after it, not consumed */
	expect_end("01", 1);     /* "0" is a whole number; "1" would be the next value */
	expect_end("\"s\"x", 3); /* a top-level string ends on the next byte */
	expect_end("-0.0e-0", 7);
}

static void test_scan_errors(void **state)
{
	(void)state;
	expect_error("", "EOF");
	expect_error(" \n\t\r", "EOF");
	expect_error("{", "unexpected EOF");
	expect_error("{\"a\":1", "unexpected EOF");
	expect_error("[1,2", "unexpected EOF");
	expect_error("\"abc", "unexpected EOF");
	expect_error("tru", "unexpected EOF");
	expect_error("-", "unexpected EOF");
	expect_error("garbage", "invalid character 'g' looking for beginning of value");
	expect_error("nope", "invalid character 'o' in literal null (expecting 'u')");
	expect_error("{a:1}", "invalid character 'a' looking for beginning of object key string");
	expect_error("{\"a\" 1}", "invalid character '1' after object key");
	expect_error("{\"a\":1 \"b\"}", "invalid character '\"' after object key:value pair");
	expect_error("[1 2]", "invalid character '2' after array element");
	expect_error("[1,]", "invalid character ']' looking for beginning of value");
	expect_error("{\"a\":1,}",
	             "invalid character '}' looking for beginning of object key string");
	expect_error("\"a\nb\"", "invalid character '\\n' in string literal");
	expect_error("\"\\x\"", "invalid character 'x' in string escape code");
	expect_error("\"\\u12g4\"", "invalid character 'g' in \\u hexadecimal character escape");
	expect_error("[-a]", "invalid character 'a' in numeric literal");
	expect_error("[1.]", "invalid character ']' after decimal point in numeric literal");
	expect_error("[1e]", "invalid character ']' in exponent of numeric literal");
	expect_error("[01]", "invalid character '1' after array element");
	expect_error("{\"a\":01}", "invalid character '1' after object key:value pair");
	expect_error("\x01", "invalid character '\\x01' looking for beginning of value");
	expect_error("\xc3",
	             "invalid character '\xc3\x83' looking for beginning of value"); /* 'Ã' */
	expect_error("\x85", "invalid character '\\u0085' looking for beginning of value");
	expect_error("'", "invalid character '\\'' looking for beginning of value");
}

static void test_scan_depth(void **state)
{
	(void)state;
	size_t n = 2 * (EJ_MAX_DEPTH + 1);
	char *deep = malloc(n + 1);
	assert_non_null(deep);
	for (size_t i = 0; i < EJ_MAX_DEPTH; i++) {
		deep[i] = '[';
		deep[EJ_MAX_DEPTH + i] = ']';
	}
	assert_int_equal(scan_all(deep, 2 * EJ_MAX_DEPTH), EJ_DONE); /* 10000 levels: allowed */
	memmove(deep + 1, deep, 2 * EJ_MAX_DEPTH);
	deep[0] = '[';
	deep[n - 1] = ']';
	assert_int_equal(scan_all(deep, n), EJ_ERROR);
	assert_string_equal(sc.err, "invalid character '[' exceeded max depth");
	free(deep);
}

/* Feeding one byte at a time ends where feeding it whole does. */
static void test_scan_bytewise(void **state)
{
	(void)state;
	const char *texts[] = {"{\"a\":[1,{\"b\":\"c\\\"\"}]}  x", "12 ", "\"s\" ", "[1 2]", "nul"};
	for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
		int whole = scan(texts[k]);
		size_t end = sc.end;
		char err[96];
		snprintf(err, sizeof err, "%s", sc.err);
		ej_scan_init(&sc);
		size_t len = strlen(texts[k]);
		for (size_t i = 0; i < len && sc.status == EJ_MORE; i++)
			if (!ej_scan_feed(&sc, texts[k] + i, 1))
				break; /* a number ended before this byte */
		ej_scan_eof(&sc);
		assert_int_equal(sc.status, whole);
		if (whole == EJ_DONE)
			assert_int_equal(sc.end, end);
		else
			assert_string_equal(sc.err, err);
	}
}

/* ---- decoding ---- */

static const ej_field f_pred[] = {{"status", EJ_STRING}, {"code", EJ_INT}};
static const ej_type t_pred = {"PredicateResponse", f_pred, 2};
static const ej_field f_prio[] = {{"nodeScore", EJ_SCORES}, {"errorMessage", EJ_STRING}};
static const ej_type t_prio = {"PrioritizeResponse", f_prio, 2};
static const ej_field f_vic[] = {{"status", EJ_INT}, {"victims", EJ_VICTIMS}};
static const ej_type t_vic = {"PreemptableResponse", f_vic, 2};
static const ej_field f_ready[] = {{"status", EJ_BOOL}};
static const ej_type t_ready = {"JobReadyResponse", f_ready, 1};

static bool decode(const char *text, const ej_type *t, ej_out *o)
{
	if (scan(text) != EJ_DONE)
		fail_msg("%s: %s", text, sc.err);
	char *copy = strndup(text, sc.end);
	bool ok = ej_decode(copy, sc.end, t, o);
	free(copy);
	return ok;
}

static void test_decode_fields(void **state)
{
	(void)state;
	ej_out o;
	assert_true(decode("{\"status\":\"busy\",\"code\":3}", &t_pred, &o));
	assert_string_equal(ej_str(&o, 0), "busy");
	assert_int_equal(o.num[1], 3);
	ej_out_free(&o);
	/* Folded names: ASCII case, ſ (U+017F) as s, as a rune and as an escape. */
	assert_true(decode("{\"STATUS\":\"a\",\"Code\":2}", &t_pred, &o));
	assert_string_equal(ej_str(&o, 0), "a");
	assert_int_equal(o.num[1], 2);
	ej_out_free(&o);
	assert_true(decode("{\"\xc5\xbftatus\":\"b\"}", &t_pred, &o));
	assert_string_equal(ej_str(&o, 0), "b");
	ej_out_free(&o);
	assert_true(decode("{\"\\u017ftatus\":\"c\",\"co\\u0064e\":1}", &t_pred, &o));
	assert_string_equal(ej_str(&o, 0), "c");
	assert_int_equal(o.num[1], 1);
	ej_out_free(&o);
	/* Last key wins; null leaves a field alone; unknown keys are skipped whole. */
	assert_true(decode("{\"status\":\"x\",\"skip\":{\"status\":[1,{}]},\"status\":\"y\","
	                   "\"code\":null}",
	                   &t_pred, &o));
	assert_string_equal(ej_str(&o, 0), "y");
	assert_false(o.set[1]);
	ej_out_free(&o);
	assert_true(decode("null", &t_pred, &o));
	assert_false(o.set[0]);
	ej_out_free(&o);
	assert_true(decode("{\"status\":true}", &t_ready, &o));
	assert_int_equal(o.num[0], 1);
	ej_out_free(&o);
}

static void expect_decode_error(const char *text, const ej_type *t, const char *msg)
{
	ej_out o;
	assert_false(decode(text, t, &o));
	if (strcmp(o.err, msg))
		fail_msg("%s: got \"%s\", want \"%s\"", text, o.err, msg);
	ej_out_free(&o);
}

static void test_decode_type_errors(void **state)
{
	(void)state;
	expect_decode_error("[]", &t_pred,
	                    "json: cannot unmarshal array into Go value of type "
	                    "extender.PredicateResponse");
	expect_decode_error("\"s\"", &t_pred,
	                    "json: cannot unmarshal string into Go value of type "
	                    "extender.PredicateResponse");
	expect_decode_error("{\"status\":5}", &t_pred,
	                    "json: cannot unmarshal number into Go struct field "
	                    "PredicateResponse.status of type string");
	expect_decode_error("{\"code\":\"2\"}", &t_pred,
	                    "json: cannot unmarshal string into Go struct field "
	                    "PredicateResponse.code of type int");
	expect_decode_error("{\"code\":1.5}", &t_pred,
	                    "json: cannot unmarshal number 1.5 into Go struct field "
	                    "PredicateResponse.code of type int");
	expect_decode_error("{\"code\":9223372036854775808}", &t_pred,
	                    "json: cannot unmarshal number 9223372036854775808 into Go struct "
	                    "field PredicateResponse.code of type int");
	expect_decode_error("{\"nodeScore\":{\"n1\":1e400}}", &t_prio,
	                    "json: cannot unmarshal number 1e400 into Go struct field "
	                    "PrioritizeResponse.nodeScore of type float64");
	expect_decode_error("{\"nodeScore\":[]}", &t_prio,
	                    "json: cannot unmarshal array into Go struct field "
	                    "PrioritizeResponse.nodeScore of type map[string]float64");
	expect_decode_error("{\"victims\":[{\"UID\":7}]}", &t_vic,
	                    "json: cannot unmarshal number into Go struct field "
	                    "PreemptableResponse.victims.UID of type api.TaskID");
	/* The first error is the error; fields after it still decode. */
	ej_out o;
	assert_false(decode("{\"code\":\"x\",\"status\":\"kept\",\"code\":true}", &t_pred, &o));
	assert_string_equal(ej_str(&o, 0), "kept");
	assert_non_null(strstr(o.err, "unmarshal string"));
	ej_out_free(&o);
}

static void test_decode_scores_and_victims(void **state)
{
	(void)state;
	ej_out o;
	assert_true(decode("{\"nodeScore\":{\"n1\":10.5,\"n2\":-1e-400,\"n3\":null,\"n1\":2}}",
	                   &t_prio, &o));
	assert_false(o.nil);
	assert_int_equal(o.n_ent, 4);
	assert_string_equal(o.text + o.ent[0].key, "n1");
	assert_true(o.ent[0].num == 10.5);
	assert_true(o.ent[1].num == 0.0); /* underflow is no error */
	assert_true(o.ent[2].num == 0.0); /* null: the zero value */
	assert_true(o.ent[3].num == 2.0); /* a later n1 */
	ej_out_free(&o);
	assert_true(decode("{\"nodeScore\":{\"n1\":1},\"nodeScore\":null}", &t_prio, &o));
	assert_true(o.nil); /* null makes the map nil again */
	ej_out_free(&o);
	assert_true(decode("{\"nodeScore\":{}}", &t_prio, &o));
	assert_false(o.nil);
	assert_int_equal(o.n_ent, 0);
	ej_out_free(&o);
	assert_true(decode("{\"status\":1,\"victims\":[{\"Name\":\"x\",\"uid\":\"c1-a\"},null,{}]}",
	                   &t_vic, &o));
	assert_int_equal(o.n_ent, 3);
	assert_string_equal(o.text + o.ent[0].key, "c1-a");
	assert_int_equal(o.ent[1].klen, UINT32_MAX); /* a nil element */
	assert_int_equal(o.ent[2].klen, 0);          /* an element without a UID */
	ej_out_free(&o);
}

static void test_decode_strings(void **state)
{
	(void)state;
	ej_out o;
	/* Broken UTF-8 becomes U+FFFD byte by byte; a pair of escapes is one rune; a lone
	 * surrogate is U+FFFD. */
	assert_true(decode("{\"status\":\"a\xff\xc3(\\ud83d\\ude00\\ud800x\\t\"}", &t_pred, &o));
	assert_string_equal(ej_str(&o, 0),
	                    "a\xef\xbf\xbd\xef\xbf\xbd(\xf0\x9f\x98\x80\xef\xbf\xbdx\t");
	ej_out_free(&o);
}

/* Random bytes and mutations of valid replies: the scanner and decoder must end, never read
 * past the input (ASan watches), and a value the scanner accepts must decode or fail cleanly. */
static void test_garbage(void **state)
{
	(void)state;
	static const char *seeds[] = {
	    "{\"status\":\"x\",\"code\":2}",
	    "{\"nodeScore\":{\"n1\":1.5,\"n2\":2},\"errorMessage\":\"\"}",
	    "{\"status\":1,\"victims\":[{\"UID\":\"a\"},null]}",
	    "[[[[{\"a\":\"\\u0041\"}]]]]",
	};
	const ej_type *types[] = {&t_pred, &t_prio, &t_vic, &t_ready};
	uint32_t seed = 12345;
	char buf[96];
	for (int round = 0; round < 20000; round++) {
		const char *base = seeds[round % 4];
		size_t n = strlen(base);
		memcpy(buf, base, n);
		for (int k = 0; k < 1 + round % 4; k++) {
			seed = seed * 1103515245u + 12345u;
			buf[(seed >> 8) % n] = (char)(seed >> 16);
		}
		if (round % 5 == 0)
			n = (seed >> 4) % n;
		char *exact = malloc(n + 1); /* no slack: ASan sees a read past the end */
		memcpy(exact, buf, n);
		exact[n] = 0;
		if (scan_all(exact, n) == EJ_DONE) {
			ej_out o;
			ej_decode(exact, sc.end, types[round % 4], &o);
			ej_out_free(&o);
		}
		free(exact);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_scan_values),
	    cmocka_unit_test(test_scan_errors),
	    cmocka_unit_test(test_scan_depth),
	    cmocka_unit_test(test_scan_bytewise),
	    cmocka_unit_test(test_decode_fields),
	    cmocka_unit_test(test_decode_type_errors),
	    cmocka_unit_test(test_decode_scores_and_victims),
	    cmocka_unit_test(test_decode_strings),
	    cmocka_unit_test(test_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

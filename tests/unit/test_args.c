/* Unit tests for argument getters (kernel/src/load/args.c): Volcano's typing of conf values
 * (gopkg.in/yaml.v2 into interface{}, then framework/arguments.go's type checks), warnings
 * that name the owner and key and leave *out alone, dotted keys, iteration, spec tables with
 * defaults and bounds, and the same values read through the conf loader. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "load/conf_int.h"
#include "tephra/args.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))

/* ---- trees by hand ---- */

static tph_args plain(const char *key, const char *text)
{
	return (tph_args){.kind = TPH_ARGV_SCALAR,
	                  .key = key,
	                  .text = text,
	                  .len = (uint32_t)strlen(text),
	                  .line = 3,
	                  .col = 7,
	                  .file = "conf.yaml"};
}

static tph_args quoted(const char *key, const char *text)
{
	tph_args a = plain(key, text);
	a.quoted = true;
	return a;
}

static tph_args coll(tph_argv_kind kind, const char *key, tph_args *items, uint32_t n)
{
	return (tph_args){.kind = kind, .key = key, .text = "", .items = items, .n = n};
}

/* ---- warnings ---- */

static char last_warning[1024];
static unsigned n_warnings;

static void on_warn(void *ud, const char *msg)
{
	snprintf(last_warning, sizeof last_warning, "%s", msg);
	n_warnings++;
}

static tph_diag diag = {.warn = on_warn};

static int setup(void **state)
{
	last_warning[0] = 0;
	n_warnings = 0;
	tph_args_set_diag(NULL, &diag, "binpack");
	return 0;
}

/* One value under key "k" of a one-entry mapping. */
typedef struct one {
	tph_args item;
	tph_args map;
} one;

static const tph_args *wrap(one *o, tph_args v)
{
	o->item = v;
	o->item.key = "k";
	o->map = coll(TPH_ARGV_MAP, NULL, &o->item, 1);
	return &o->map;
}

/* ---- getters ---- */

typedef struct int_case {
	const char *text;
	bool quoted;
	bool ok;
	int64_t i;
} int_case;

typedef struct float_case {
	const char *text;
	bool quoted;
	bool ok;
	double f;
} float_case;

static void test_int(void **state)
{
	static const int_case cases[] = {
	    {"10", false, true, 10},
	    {"-3", false, true, -3},
	    {"+7", false, true, 7},
	    {"0x1F", false, true, 31},
	    {"010", false, true, 8}, /* ParseInt base 0: octal */
	    {"0o17", false, true, 15},
	    {"0b101", false, true, 5},
	    {"1_000", false, true, 1000},
	    {"0", false, true, 0},
	    {"2147483647", false, true, TPH_ARG_INT_LIMIT},
	    {"-2147483647", false, true, -TPH_ARG_INT_LIMIT},
	    {"2147483648", false, false, 0}, /* beyond TPH_ARG_INT_LIMIT: 100 * w must not wrap */
	    {"9223372036854775807", false, false, 0},
	    {"-9223372036854775808", false, false, 0},
	    {"9223372036854775808", false, false, 0}, /* uint64 */
	    {"1.5", false, false, 0},
	    {"08", false, false, 0}, /* not octal: a float */
	    {"1e3", false, false, 0},
	    {"abc", false, false, 0},
	    {"5", true, false, 0}, /* a string: GetInt wants an int */
	    {"true", false, false, 0},
	    {"2024-01-02", false, false, 0}, /* a timestamp */
	    {"", false, false, 0},           /* null */
	    {"0x", false, false, 0},
	};
	for (size_t c = 0; c < N_ELEMS(cases); c++) {
		one o;
		tph_args v =
		    cases[c].quoted ? quoted("k", cases[c].text) : plain("k", cases[c].text);
		int64_t got = 42;
		unsigned w = n_warnings;
		int rc = tph_args_int(wrap(&o, v), "k", &got);
		if (cases[c].ok && (rc != TPH_OK || got != cases[c].i))
			fail_msg("\"%s\": rc %d got %lld", cases[c].text, rc, (long long)got);
		if (!cases[c].ok && (rc >= 0 || got != 42 || n_warnings != w + 1))
			fail_msg("\"%s\": rc %d got %lld (want a warning)", cases[c].text, rc,
			         (long long)got);
	}
}

static void test_float(void **state)
{
	static const float_case cases[] = {
	    {"1.5", false, true, 1.5},    {"3", false, true, 3.0}, /* ints are accepted */
	    {".5", false, true, 0.5},     {"-2.", false, true, -2.0},
	    {"1e3", false, true, 1000.0}, {"08", false, true, 8.0},
	    {"1_0.5", false, true, 10.5}, {"0x10", false, true, 16.0},
	    {"1e400", false, false, 0}, /* overflows: a string */
	    {"1.5", true, false, 0},      {"18446744073709551615", false, false, 0}, /* uint64 */
	    {"abc", false, false, 0},     {"no", false, false, 0},
	};
	for (size_t c = 0; c < N_ELEMS(cases); c++) {
		one o;
		tph_args v =
		    cases[c].quoted ? quoted("k", cases[c].text) : plain("k", cases[c].text);
		double got = 42;
		int rc = tph_args_float(wrap(&o, v), "k", &got);
		if (cases[c].ok && (rc != TPH_OK || got != cases[c].f))
			fail_msg("\"%s\": rc %d got %g", cases[c].text, rc, got);
		if (!cases[c].ok && (rc != TPH_EINVAL || got != 42))
			fail_msg("\"%s\": rc %d got %g", cases[c].text, rc, got);
	}
	one o;
	double f = 0;
	assert_int_equal(tph_args_float(wrap(&o, plain("k", "-.inf")), "k", &f), TPH_OK);
	assert_true(isinf(f) && f < 0);
	assert_int_equal(tph_args_float(wrap(&o, plain("k", ".NaN")), "k", &f), TPH_OK);
	assert_true(isnan(f));
}

static void test_bool(void **state)
{
	static const struct {
		const char *text;
		bool quoted;
		int want; /* -1: warns */
	} cases[] = {
	    {"true", false, 1},    {"True", false, 1}, {"TRUE", false, 1},  {"yes", false, 1},
	    {"on", false, 1},      {"Y", false, 1},    {"false", false, 0}, {"no", false, 0},
	    {"Off", false, 0},     {"n", false, 0},    {"true", true, 1},   {"1", true, 1},
	    {"t", true, 1},        {"F", true, 0},     {"0", true, 0},      {"t", false, 1},
	    {"yes", true, -1},     {"1", false, -1},   {"TRue", false, -1}, {"", false, -1},
	    {"enable", false, -1},
	};
	for (size_t c = 0; c < N_ELEMS(cases); c++) {
		one o;
		tph_args v =
		    cases[c].quoted ? quoted("k", cases[c].text) : plain("k", cases[c].text);
		bool got = true;
		int rc = tph_args_bool(wrap(&o, v), "k", &got);
		bool ok = cases[c].want < 0 ? rc == TPH_EINVAL && got
		                            : rc == TPH_OK && got == (cases[c].want == 1);
		if (!ok)
			fail_msg("\"%s\"%s: rc %d got %d", cases[c].text,
			         cases[c].quoted ? " quoted" : "", rc, got);
	}
}

static void test_string_and_messages(void **state)
{
	one o;
	const char *s = "unset";
	assert_int_equal(tph_args_string(wrap(&o, plain("k", "abc")), "k", &s), TPH_OK);
	assert_string_equal(s, "abc");
	assert_int_equal(tph_args_string(wrap(&o, quoted("k", "5")), "k", &s), TPH_OK);
	assert_string_equal(s, "5");
	s = "unset";
	assert_int_equal(tph_args_string(wrap(&o, plain("k", "5")), "k", &s), TPH_EINVAL);
	assert_string_equal(s, "unset");
	assert_string_equal(last_warning, "conf.yaml:3:7: plugin binpack: argument k: expected a "
	                                  "string, got an integer (5)");
	assert_int_equal(tph_args_string(wrap(&o, plain("k", "~")), "k", &s), TPH_EINVAL);
	assert_string_equal(
	    last_warning, "conf.yaml:3:7: plugin binpack: argument k: expected a string, got null");

	/* The brief's example, and owners that are actions or already qualified. */
	tph_args bw = plain("binpack.weight", "abc");
	bw.file = NULL;
	tph_args m = coll(TPH_ARGV_MAP, NULL, &bw, 1);
	int64_t i = 1;
	assert_int_equal(tph_args_int(&m, "binpack.weight", &i), TPH_EINVAL);
	assert_string_equal(
	    last_warning,
	    "plugin binpack: argument binpack.weight: expected an integer, got \"abc\"");
	tph_args_set_diag(&m, &diag, "allocate");
	tph_args_int(&m, "binpack.weight", &i);
	assert_string_equal(
	    last_warning,
	    "action allocate: argument binpack.weight: expected an integer, got \"abc\"");
	tph_args_set_diag(&m, &diag, "conf tier 1 plugin x");
	tph_args_int(&m, "binpack.weight", &i);
	assert_string_equal(last_warning,
	                    "conf tier 1 plugin x: argument binpack.weight: expected an "
	                    "integer, got \"abc\"");
	unsigned w = n_warnings;
	tph_args_set_diag(&m, NULL, "binpack"); /* no sink: silent */
	assert_int_equal(tph_args_int(&m, "binpack.weight", &i), TPH_EINVAL);
	assert_int_equal(n_warnings, w);
	assert_int_equal(i, 1);
}

static void test_duration(void **state)
{
	static const struct {
		const char *text;
		bool quoted;
		bool ok;
		int64_t ms;
	} cases[] = {
	    {"30s", false, true, 30000},   {"1h30m", false, true, 5400000},
	    {"500ms", false, true, 500},   {"1.5s", false, true, 1500},
	    {"-2m", false, true, -120000}, {"1500us", false, true, 1},
	    {"0", true, true, 0},          {"0", false, false, 0}, /* an int */
	    {"30", true, false, 0},        {"5x", false, false, 0},
	    {"", true, false, 0},
	};
	for (size_t c = 0; c < N_ELEMS(cases); c++) {
		one o;
		tph_args v =
		    cases[c].quoted ? quoted("k", cases[c].text) : plain("k", cases[c].text);
		int64_t got = 42;
		int rc = tph_args_duration(wrap(&o, v), "k", &got);
		bool ok = cases[c].ok ? rc == TPH_OK && got == cases[c].ms
		                      : rc == TPH_EINVAL && got == 42;
		if (!ok)
			fail_msg("\"%s\": rc %d got %lld", cases[c].text, rc, (long long)got);
	}
	one o;
	int64_t ms;
	tph_args_duration(wrap(&o, plain("k", "5x")), "k", &ms);
	assert_non_null(strstr(last_warning, "argument k: invalid duration \"5x\""));
}

static void test_quantity(void **state)
{
	static const struct {
		const char *text;
		bool quoted;
		tph_res_unit unit;
		bool ok;
		int64_t v;
	} cases[] = {
	    {"500m", false, TPH_UNIT_MILLI, true, 500},
	    {"2", false, TPH_UNIT_MILLI, true, 2000}, /* an int: whole units */
	    {"1.5", true, TPH_UNIT_MILLI, true, 1500},
	    {"1.5", false, TPH_UNIT_MILLI, false, 0}, /* a float */
	    {"1Gi", false, TPH_UNIT_BYTES, true, 1073741824},
	    {"3", false, TPH_UNIT_BYTES, true, 3},
	    {"-1", false, TPH_UNIT_MILLI, false, 0},
	    {"abc", false, TPH_UNIT_MILLI, false, 0},
	    {"true", false, TPH_UNIT_MILLI, false, 0},
	};
	for (size_t c = 0; c < N_ELEMS(cases); c++) {
		one o;
		tph_args v =
		    cases[c].quoted ? quoted("k", cases[c].text) : plain("k", cases[c].text);
		int64_t got = 42;
		int rc = tph_args_quantity(wrap(&o, v), "k", cases[c].unit, &got);
		bool ok =
		    cases[c].ok ? rc == TPH_OK && got == cases[c].v : rc == TPH_EINVAL && got == 42;
		if (!ok)
			fail_msg("\"%s\": rc %d got %lld", cases[c].text, rc, (long long)got);
	}
}

static void test_tree_and_keys(void **state)
{
	tph_args seq[] = {plain(NULL, "a"), plain(NULL, "b")};
	tph_args inner[] = {plain("x", "1")};
	tph_args top[] = {
	    plain("binpack.resources.nvidia.com/gpu", "5"),
	    plain("binpack.resources", "nvidia.com/gpu"),
	    coll(TPH_ARGV_SEQ, "list", seq, 2),
	    coll(TPH_ARGV_MAP, "map", inner, 1),
	};
	tph_args root = coll(TPH_ARGV_MAP, NULL, top, 4);
	int64_t i = 0;
	assert_int_equal(tph_args_int(&root, "binpack.resources.nvidia.com/gpu", &i), TPH_OK);
	assert_int_equal(i, 5);
	const char *s = NULL;
	assert_int_equal(tph_args_string(&root, "binpack.resources", &s), TPH_OK);
	assert_string_equal(s, "nvidia.com/gpu");
	/* Keys are whole: no dotted-path lookup. */
	assert_int_equal(tph_args_int(&root, "binpack", &i), TPH_DECLINED);
	assert_int_equal(tph_args_int(&root, "map.x", &i), TPH_DECLINED);
	assert_int_equal(tph_args_int(NULL, "k", &i), TPH_DECLINED);
	assert_int_equal(tph_args_int(&top[0], "k", &i), TPH_DECLINED); /* not a mapping */
	assert_int_equal(n_warnings, 0);

	assert_int_equal(tph_args_count(&root), 4);
	assert_string_equal(tph_args_key_at(&root, 2), "list");
	assert_null(tph_args_key_at(&root, 4));
	const tph_args *l = tph_args_child(&root, "list");
	assert_ptr_equal(l, &top[2]);
	assert_int_equal(tph_args_count(l), 2);
	assert_null(tph_args_key_at(l, 0));
	assert_string_equal(tph_args_text(tph_args_at(l, 1)), "b");
	assert_null(tph_args_at(l, 2));
	assert_null(tph_args_text(l));
	const tph_args *m = tph_args_child(&root, "map");
	assert_int_equal(tph_args_int(m, "x", &i), TPH_OK);
	assert_int_equal(i, 1);
	assert_int_equal(tph_args_count(&top[0]), 0);
	assert_null(tph_args_child(&root, "absent"));
	assert_int_equal(n_warnings, 0);
	assert_null(tph_args_child(&root, "binpack.resources")); /* a scalar */
	assert_int_equal(n_warnings, 1);
	assert_non_null(strstr(last_warning, "expected a mapping or a sequence"));
}

/* tph_args_type: the yaml.v2 type of a value, for Volcano's type switches; never a warning. */
static void test_type(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		bool quoted;
		int type;
	} cases[] = {
	    {"5", false, TPH_ARG_INT},         {"-0x1f", false, TPH_ARG_INT},
	    {"5", true, TPH_ARG_STRING},       {"500m", false, TPH_ARG_STRING},
	    {"1.5", false, TPH_ARG_FLOAT},     {"1e3", false, TPH_ARG_FLOAT},
	    {"true", false, TPH_ARG_BOOL},     {"yes", false, TPH_ARG_BOOL},
	    {"true", true, TPH_ARG_STRING},    {"~", false, TPH_EINVAL},
	    {"2026-01-01", false, TPH_EINVAL}, {"18446744073709551615", false, TPH_EINVAL},
	};
	one o;
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		tph_args v =
		    cases[i].quoted ? quoted(NULL, cases[i].text) : plain(NULL, cases[i].text);
		if (tph_args_type(wrap(&o, v), "k") != cases[i].type)
			fail_msg("%s: expected %d, got %d", cases[i].text, cases[i].type,
			         tph_args_type(wrap(&o, v), "k"));
	}
	tph_args seq[] = {plain(NULL, "a")};
	assert_int_equal(tph_args_type(wrap(&o, coll(TPH_ARGV_SEQ, NULL, seq, 1)), "k"),
	                 TPH_ARG_LIST);
	assert_int_equal(tph_args_type(wrap(&o, coll(TPH_ARGV_MAP, NULL, seq, 0)), "k"),
	                 TPH_ARG_MAP);
	assert_int_equal(tph_args_type(wrap(&o, plain(NULL, "5")), "absent"), TPH_ENOENT);
	assert_int_equal(tph_args_type(NULL, "k"), TPH_ENOENT);
	assert_int_equal(n_warnings, 0);
}

/* ---- spec tables ---- */

typedef struct opts {
	int64_t weight;
	double ratio;
	bool on;
	const char *mode;
	int64_t wait_ms;
	int64_t cpu;
	const tph_args *list;
	const tph_args *map;
	int64_t untouched;
	int64_t bounded;
	double fbounded;
} opts;

static const tph_arg_spec spec[] = {
    {"w", TPH_ARG_INT, "1", 0, 100, offsetof(opts, weight), "weight"},
    {"r", TPH_ARG_FLOAT, "0.5", 0, 0, offsetof(opts, ratio), NULL},
    {"on", TPH_ARG_BOOL, "true", 0, 0, offsetof(opts, on), NULL},
    {"mode", TPH_ARG_STRING, "fast", 0, 0, offsetof(opts, mode), NULL},
    {"wait", TPH_ARG_DURATION, "1m", 0, 0, offsetof(opts, wait_ms), NULL},
    {"cpu", TPH_ARG_QUANTITY, "500m", 0, 0, offsetof(opts, cpu), NULL},
    {"list", TPH_ARG_LIST, NULL, 0, 0, offsetof(opts, list), NULL},
    {"map", TPH_ARG_MAP, NULL, 0, 0, offsetof(opts, map), NULL},
    {"absent", TPH_ARG_INT, "7", 0, 0, offsetof(opts, untouched), NULL},
    {"b", TPH_ARG_INT, "5", 1, 10, offsetof(opts, bounded), NULL},
    {"fb", TPH_ARG_FLOAT, "0.25", 0, 1, offsetof(opts, fbounded), NULL},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

static void test_apply_defaults(void **state)
{
	opts o;
	memset(&o, 0xAB, sizeof o);
	assert_int_equal(tph_args_apply(NULL, spec, &o, &diag, "binpack"), TPH_OK);
	assert_int_equal(o.weight, 1);
	assert_true(o.ratio == 0.5);
	assert_true(o.on);
	assert_string_equal(o.mode, "fast");
	assert_int_equal(o.wait_ms, 60000);
	assert_int_equal(o.cpu, 500);
	assert_null(o.list);
	assert_null(o.map);
	assert_int_equal(o.untouched, 7);
	assert_int_equal(o.bounded, 5);
	assert_int_equal(n_warnings, 0);
}

static void test_apply_values(void **state)
{
	tph_args seq[] = {plain(NULL, "x")};
	tph_args top[] = {
	    plain("w", "30"),
	    plain("r", "2"),
	    quoted("on", "false"),
	    plain("mode", "slow"),
	    plain("wait", "90s"),
	    quoted("cpu", "2"),
	    coll(TPH_ARGV_SEQ, "list", seq, 1),
	    plain("map", "nope"),
	    plain("b", "11"),
	    plain("fb", "1"),
	    plain("unknown", "1"),
	};
	tph_args root = coll(TPH_ARGV_MAP, NULL, top, N_ELEMS(top));
	opts o;
	memset(&o, 0, sizeof o);
	tph_diag d = {.warn = on_warn};
	tph_args_apply(&root, spec, &o, &d, "binpack");
	assert_int_equal(o.weight, 30);
	assert_true(o.ratio == 2.0);
	assert_false(o.on);
	assert_string_equal(o.mode, "slow");
	assert_int_equal(o.wait_ms, 90000);
	assert_int_equal(o.cpu, 2000);
	assert_ptr_equal(o.list, &top[6]);
	assert_null(o.map);             /* wrong type: the default */
	assert_int_equal(o.bounded, 5); /* out of bounds: the default */
	assert_true(o.fbounded == 1.0);
	assert_int_equal(d.warnings, 2);
	assert_non_null(strstr(last_warning, "argument b: 11 is out of range [1, 10]"));

	/* Wrong types keep the defaults and warn once each; a scalar is a one-item list. */
	tph_args bad[] = {quoted("w", "30"),  plain("r", "x"),     plain("on", "1"),
	                  plain("mode", "1"), plain("wait", "10"), plain("list", "a,b"),
	                  plain("w", "1")};
	tph_args broot = coll(TPH_ARGV_MAP, NULL, bad, N_ELEMS(bad));
	tph_diag d2 = {.warn = on_warn};
	tph_args_apply(&broot, spec, &o, &d2, "binpack");
	assert_int_equal(o.weight, 1); /* the first "w" counts */
	assert_true(o.ratio == 0.5);
	assert_true(o.on);
	assert_string_equal(o.mode, "fast");
	assert_int_equal(o.wait_ms, 60000);
	assert_ptr_equal(o.list, &bad[5]);
	assert_int_equal(d2.warnings, 5);

	/* An integer beyond TPH_ARG_INT_LIMIT (binpack.weight: 2^63 - 1 made 100 * weight
	 * overflow) keeps the default, with a warning naming the key, bounds declared or not. */
	tph_args huge[] = {plain("absent", "9223372036854775807"), plain("w", "-2147483648")};
	tph_args hroot = coll(TPH_ARGV_MAP, NULL, huge, N_ELEMS(huge));
	tph_diag d3 = {.warn = on_warn};
	tph_args_apply(&hroot, spec, &o, &d3, "binpack");
	assert_int_equal(o.untouched, 7);
	assert_int_equal(o.weight, 1);
	assert_int_equal(d3.warnings, 2);
	assert_non_null(strstr(last_warning,
	                       "plugin binpack: argument absent: 9223372036854775807 is "
	                       "out of range [-2147483647, 2147483647]; using the "
	                       "default"));
}

/* The same rules on a conf the loader read: quoting survives. */
static void test_through_conf_loader(void **state)
{
	static const char text[] = "actions: \"allocate\"\n"
	                           "tiers:\n"
	                           "- plugins:\n"
	                           "  - name: binpack\n"
	                           "    arguments:\n"
	                           "      binpack.weight: \"10\"\n"
	                           "      binpack.cpu: 5\n"
	                           "      binpack.resources.nvidia.com/gpu: 2\n"
	                           "      sla-waiting-time: 1m\n"
	                           "      flag: yes\n";
	tph_conf *conf = NULL;
	tph_diag d = {.warn = on_warn};
	int rc = tph_conf_load_string(text, sizeof text - 1, "inline.yaml", true, &conf, &d);
	if (rc != TPH_OK)
		fail_msg("conf: %s", d.msg);
	const tph_args *a = tph_args_of(&conf->tiers[0].plugins[0].args);
	int64_t i = -1;
	assert_int_equal(tph_args_int(a, "binpack.weight", &i), TPH_EINVAL);
	assert_int_equal(i, -1);
	assert_non_null(strstr(last_warning, "inline.yaml:6:"));
	assert_int_equal(tph_args_int(a, "binpack.cpu", &i), TPH_OK);
	assert_int_equal(i, 5);
	assert_int_equal(tph_args_int(a, "binpack.resources.nvidia.com/gpu", &i), TPH_OK);
	assert_int_equal(i, 2);
	int64_t ms = 0;
	assert_int_equal(tph_args_duration(a, "sla-waiting-time", &ms), TPH_OK);
	assert_int_equal(ms, 60000);
	bool b = false;
	assert_int_equal(tph_args_bool(a, "flag", &b), TPH_OK);
	assert_true(b);
	tph_conf_free(conf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_int, setup),
	    cmocka_unit_test_setup(test_float, setup),
	    cmocka_unit_test_setup(test_bool, setup),
	    cmocka_unit_test_setup(test_string_and_messages, setup),
	    cmocka_unit_test_setup(test_duration, setup),
	    cmocka_unit_test_setup(test_quantity, setup),
	    cmocka_unit_test_setup(test_tree_and_keys, setup),
	    cmocka_unit_test_setup(test_type, setup),
	    cmocka_unit_test_setup(test_apply_defaults, setup),
	    cmocka_unit_test_setup(test_apply_values, setup),
	    cmocka_unit_test_setup(test_through_conf_loader, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for the fast path of the YAML split (kernel/src/load/yaml_fast.c): every chunk it
 * accepts must give exactly the nodes libyaml's event builder gives (types, styles, texts,
 * lines, columns, children), checked on hand-picked chunks and on random ones; everything
 * outside its subset must decline and leave the document as it was; and a generated
 * scenario must take it through yu_load_parallel with one thread and with two. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tephra/tephra.h"
#include "load/yaml_util.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define REGION     4096u
#define SHIFT      7u /* a chunk's first line in its file */

static bool same_node(const yu_doc *a, uint32_t x, const yu_doc *b, uint32_t y)
{
	const yu_node *n = &a->nodes[x], *m = &b->nodes[y];
	if (n->type != m->type || n->len != m->len || n->line != m->line || n->col != m->col ||
	    n->style != m->style) {
		print_error("node differs: %u:%u type %d len %u vs %u:%u type %d len %u\n",
		            n->line + 1, n->col + 1, n->type, n->len, m->line + 1, m->col + 1,
		            m->type, m->len);
		return false;
	}
	if (n->type == YU_SCALAR)
		return strcmp(n->u.str, m->u.str) == 0;
	uint32_t k = n->type == YU_MAP ? 2 * n->len : n->len;
	for (uint32_t i = 0; i < k; i++)
		if (!same_node(a, n->u.items[i], b, m->u.items[i]))
			return false;
	return true;
}

/* A chunk document in a fixed region that does not start at id 0, as the split makes them. */
static void prepare(yu_doc *doc, yu_node *nodes)
{
	*doc = (yu_doc){.nodes = nodes,
	                .n = 100,
	                .cap = REGION,
	                .root = YU_NONE,
	                .fixed = true,
	                .line_shift = SHIFT};
}

/* Parse `text` both ways; returns the fast path's status (TPH_OK only when both agree). */
static int compare(const char *text)
{
	static yu_node fast_nodes[REGION], slow_nodes[REGION];
	yu_doc f, s;
	prepare(&f, fast_nodes);
	prepare(&s, slow_nodes);
	/* an exact-size copy, no NUL after it: ASan sees any read past the end */
	size_t len = strlen(text);
	char *exact = malloc(len ? len : 1);
	assert_non_null(exact);
	memcpy(exact, text, len);
	int rc = yu_fast_items(exact, len, &f);
	free(exact);
	if (rc != TPH_OK) {
		assert_int_equal(f.n, 100); /* declined: nothing kept */
		assert_int_equal(f.root, YU_NONE);
		assert_null(f.arena.head);
		assert_null(f.strs.head);
		return rc;
	}
	tph_diag d = {0};
	int slow = yu_load_into(text, strlen(text), "t.yaml", 0, 0, &s, &d);
	if (slow != TPH_OK)
		fail_msg("the fast path accepted what libyaml rejects (%s):\n%s", d.msg, text);
	assert_int_equal(f.n, s.n);
	if (!same_node(&f, f.root, &s, s.root))
		fail_msg("the fast path differs from libyaml on:\n%s", text);
	yu_doc_free(&f);
	yu_doc_free(&s);
	return TPH_OK;
}

static void test_accepted(void **state)
{
	(void)state;
	static const char *const ok[] = {
	    "  - {name: p1, requests: {cpu: \"2\", memory: 4Gi}}\n",
	    "\n  - {name: p1}\n\n  - {name: p2}\n   \n",
	    "- {a: b}\n- {a: c}",
	    "    -   {a: b c ,  d: \"x y\",e: [p, q], f: {}, g: [], h: [{k: v}, [x]]}   \n",
	    "  - {name: -1, v: a -b, w: a  b, x: 0.5e+3, y: kubernetes.io/host_name, z: \"\"}\n",
	    "  - {n: null, t: true, q: \" #not a comment, {}[] :\"}\n",
	    "  - {a: {b: {c: {d: {e: {f: [[[[1]]]]}}}}}}\n",
	};
	for (size_t i = 0; i < N_ELEMS(ok); i++)
		if (compare(ok[i]) != TPH_OK)
			fail_msg("declined:\n%s", ok[i]);
}

static void test_declined(void **state)
{
	(void)state;
	char long_key[1200];
	memset(long_key, 'k', sizeof long_key);
	memcpy(long_key, "- {", 3);
	strcpy(long_key + sizeof long_key - 8, ": v}\n");
	const char *const no[] = {
	    "  - {a: b} # comment\n",
	    "  # comment\n  - {a: b}\n",
	    "  - {a: 'b'}\n",
	    "  - {a: \"b\\n\"}\n",
	    "  - {a: b,}\n",
	    "  - {a}\n",
	    "  - {a: }\n",
	    "  - {a:b}\n",
	    "  - {a : b}\n",
	    "  - {a: &x b}\n",
	    "  - {a: *x}\n",
	    "  - {a: !t b}\n",
	    "  - {a: b\n    c}\n",
	    "  - {a: b}\r\n",
	    "  - {a:\tb}\n",
	    "  - {a: caf\xc3\xa9}\n",
	    "  - {a: b}\n - {a: c}\n",
	    "  - {a: b}\n    - {a: c}\n",
	    "  - name: p\n",
	    "  - [a]\n",
	    "  - {a: b}}\n",
	    "  - {a: [b, c: d]}\n",
	    "  - {a: -}\n",
	    "  - {a: ~}\n",
	    "  - {\"a\": b}\n",
	    "  - {a: b} x\n",
	    "\n\n",
	    "  - {a: {b: c}: d}\n",
	    "  - {a: b?c}\n",
	    "  - {a: b:c}\n",
	    "  - {a: b\"}\n",
	    "  - {a: \"b}\n",
	    "-{a: b}\n",
	    "  - {a: "
	    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}\n",
	    long_key,
	};
	for (size_t i = 0; i < N_ELEMS(no); i++)
		if (compare(no[i]) != TPH_DECLINED)
			fail_msg("accepted:\n%s", no[i]);
}

/* ---- random chunks: whatever the fast path accepts, libyaml reads the same ---------------- */

static unsigned long rnd_state = 12345;

static unsigned rnd(unsigned n)
{
	rnd_state = rnd_state * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)(rnd_state >> 33) % n;
}

static void put(char **at, const char *s)
{
	size_t n = strlen(s);
	memcpy(*at, s, n);
	*at += n;
}

/* The first SAFE_KEYS atoms are plain keys the fast path takes, the first SAFE_VALUES values
 * it takes; the rest are near misses. */
#define SAFE_KEYS   7
#define SAFE_VALUES 10
static const char *const atoms[] = {
    "a",        "b c",  "x  y",     "-1",          "0.5",  "a-b",      "a/b.c_d+e", "\"q\"", "\"\"",
    "\"a b\"",  "-",    "'s'",      "a:b",         "a #c", "~",        "&a x",      "*a",    "!t x",
    "\"e\\t\"", "?x",   "a?b",      "a b:c",       "%",    "@x",       "`x",        "|",     ">",
    "",         "a\tb", "\"x\ny\"", "caf\xc3\xa9", "a,b",  "\"k\": v", "a: b",
};
static const char *const gaps[] = {"", " ", "  ", " ", "\t", "\n"};

static bool clean; /* this chunk uses only what the fast path takes */

static const char *pick(const char *const *from, unsigned safe, unsigned all)
{
	return from[rnd(clean || rnd(4) ? safe : all)];
}

static void gen_value(char **at, int depth);

static void gen_collection(char **at, int depth, bool map)
{
	put(at, map ? "{" : "[");
	put(at, pick(gaps, 4, N_ELEMS(gaps)));
	int n = (int)rnd(4);
	for (int i = 0; i < n; i++) {
		if (i)
			put(at, clean || rnd(30) ? "," : ""), put(at, pick(gaps, 4, N_ELEMS(gaps)));
		if (map) {
			put(at, pick(atoms, SAFE_KEYS, N_ELEMS(atoms)));
			put(at, clean || rnd(20) ? ": " : rnd(2) ? ":" : " : ");
		}
		gen_value(at, depth + 1);
		put(at, pick(gaps, 4, N_ELEMS(gaps)));
	}
	if (n && !clean && !rnd(30))
		put(at, ",");
	put(at, map ? "}" : "]");
}

static void gen_value(char **at, int depth)
{
	unsigned k = rnd(10);
	if (depth < 4 && k < 2)
		gen_collection(at, depth, k == 0);
	else
		put(at, pick(atoms, SAFE_VALUES, N_ELEMS(atoms)));
}

static void gen_chunk(char *buf)
{
	char *at = buf;
	int lines = 1 + (int)rnd(6);
	clean = rnd(2);
	for (int l = 0; l < lines; l++) {
		if (!rnd(8)) {
			put(&at, rnd(2) ? "\n" : "   \n");
			continue;
		}
		put(&at, clean || rnd(20) ? "  - " : rnd(2) ? "   - " : "  -  ");
		gen_collection(&at, 0, clean || rnd(10) != 0);
		put(&at, rnd(10) ? "\n" : clean || rnd(2) ? "  \n" : " # c\n");
	}
	*at = '\0';
}

static void test_random(void **state)
{
	(void)state;
	static char buf[1 << 16];
	unsigned accepted = 0;
	for (int i = 0; i < 20000; i++) {
		gen_chunk(buf);
		accepted += compare(buf) == TPH_OK;
	}
	print_message("fast path accepted %u of 20000 random chunks\n", accepted);
	assert_true(accepted > 5000); /* the generator must keep reaching it */
}

/* ---- through the split --------------------------------------------------------------------- */

static char *scenario(int pods)
{
	size_t cap = (size_t)pods * 200 + 1024, at = 0;
	char *t = malloc(cap);
	assert_non_null(t);
	at += (size_t)snprintf(t + at, cap - at,
	                       "name: fast\nnodes:\n  - {name: n0, allocatable: {cpu: \"64\"}}\n"
	                       "pods:\n");
	for (int i = 0; i < pods; i++)
		at += (size_t)snprintf(t + at, cap - at,
		                       "  - {name: p%d, nodeName: n0, phase: Running, requests: "
		                       "{cpu: \"%dm\", memory: 1Gi}, labels: {app: web}}\n",
		                       i, 100 + i % 7);
	return t;
}

/* Load `t` serially and through the split (with small chunks, on `threads` threads), check
 * both give the same document, and return how many chunks took the fast path. */
static unsigned long split_load(const char *t, int threads)
{
	size_t min_bytes = yu_split_min_bytes, min_chunk = yu_split_min_chunk;
	int saved = yu_split_threads;
	yu_split_min_bytes = 0;
	yu_split_min_chunk = 1024;
	yu_split_threads = threads;
	unsigned long fast = yu_fast_done;
	yu_doc a, b;
	tph_diag d = {0};
	assert_int_equal(yu_load(t, strlen(t), "s.yaml", 0, 0, &a, &d), TPH_OK);
	assert_int_equal(yu_load_parallel(t, strlen(t), "s.yaml", &b, &d), TPH_OK);
	assert_true(same_node(&a, a.root, &b, b.root));
	yu_doc_free(&a);
	yu_doc_free(&b);
	yu_split_min_bytes = min_bytes;
	yu_split_min_chunk = min_chunk;
	yu_split_threads = saved;
	return yu_fast_done - fast;
}

static void test_split_uses_it(void **state)
{
	(void)state;
	char *t = scenario(400);
	for (int th = 1; th <= 2; th++)
		assert_true(split_load(t, th) >= 2); /* more than one chunk of pods */
	free(t);
}

/* Every prefix of an accepted chunk, each in a buffer of its exact size: a chunk cut inside a
 * collection (`  - {` at the end of a buffer with no NUL after it) once read a byte past it. */
static void test_prefixes(void **state)
{
	(void)state;
	const char *chunk = "  - {name: p1, a: -b, q: \"x\", r: {s: [t, -1]}, u: {}}\n  - {v: w}\n";
	char buf[128];
	for (size_t cut = 0; cut <= strlen(chunk); cut++) {
		memcpy(buf, chunk, cut);
		buf[cut] = '\0';
		compare(buf);
	}
}

/* The same through the public loader with the split forced on: a buffer that is not
 * NUL-terminated and ends in `  - {` fails with a located error (ASan: no over-read). */
static void test_unterminated_buffer(void **state)
{
	(void)state;
	static const char text[] = "pods:\n  - {name: a}\n  - {";
	size_t min_bytes = yu_split_min_bytes, min_chunk = yu_split_min_chunk;
	int saved = yu_split_threads;
	yu_split_min_bytes = 0;
	yu_split_min_chunk = 1;
	yu_split_threads = 2;
	size_t len = sizeof text - 1;
	char *exact = malloc(len);
	assert_non_null(exact);
	memcpy(exact, text, len);
	tph_scenario *scn = NULL;
	tph_diag d = {0};
	int rc = tph_scenario_load_buffer(exact, len, "cut.yaml", &scn, &d);
	free(exact);
	yu_split_min_bytes = min_bytes;
	yu_split_min_chunk = min_chunk;
	yu_split_threads = saved;
	assert_int_equal(rc, TPH_EPARSE);
	assert_null(scn);
	assert_non_null(strstr(d.msg, "cut.yaml:4:1: YAML syntax error"));
}

/* TPH_YAML_FAST=0: every chunk through libyaml, the same document. */
static void test_switch_off(void **state)
{
	(void)state;
	char *t = scenario(400);
	setenv("TPH_YAML_FAST", "0", 1);
	unsigned long fast = split_load(t, 2);
	unsetenv("TPH_YAML_FAST");
	assert_int_equal(fast, 0);
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_accepted),
	    cmocka_unit_test(test_declined),
	    cmocka_unit_test(test_random),
	    cmocka_unit_test(test_split_uses_it),
	    cmocka_unit_test(test_switch_off),
	    cmocka_unit_test(test_prefixes),
	    cmocka_unit_test(test_unterminated_buffer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for YAML merge keys (kernel/src/load/yaml_merge.c), as go-yaml reads them for
 * kubectl: own keys win, earlier sources win over later ones, nested and aliased merges, a
 * quoted "<<" stays an ordinary key, and a merge of a scalar or of a mapping into itself is a
 * located error. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "load/yaml_util.h"

typedef struct merged {
	yu_doc doc;
	yu_arena arena;
	yu_ctx c;
	tph_diag d;
	int rc;
} merged;

static void load(merged *m, const char *text)
{
	memset(m, 0, sizeof *m);
	assert_int_equal(yu_load(text, strlen(text), "m.yaml", 0, 0, &m->doc, &m->d), TPH_OK);
	yu_ctx_init(&m->c, &m->doc, "m.yaml", &m->arena, &m->d);
	m->rc = yu_resolve_merges(&m->c, &m->doc);
}

static void drop(merged *m)
{
	yu_arena_free(&m->arena);
	yu_doc_free(&m->doc);
}

/* The text of root[key][sub], or NULL. */
static const char *at(merged *m, const char *key, const char *sub)
{
	const yu_node *n = yu_map_find(&m->c, yu_at(&m->c, m->doc.root), key);
	n = n ? yu_map_find(&m->c, n, sub) : NULL;
	return n && n->type == YU_SCALAR ? yu_sv(n) : NULL;
}

static uint32_t len_of(merged *m, const char *key)
{
	return yu_map_find(&m->c, yu_at(&m->c, m->doc.root), key)->len;
}

static void test_own_keys_win(void **state)
{
	(void)state;
	merged m;
	load(&m, "base: &b {cpu: '1', memory: 1Gi}\n"
	         "pod:\n  <<: *b\n  cpu: '2'\n");
	assert_int_equal(m.rc, TPH_OK);
	assert_string_equal(at(&m, "pod", "cpu"), "2");
	assert_string_equal(at(&m, "pod", "memory"), "1Gi");
	assert_int_equal(len_of(&m, "pod"), 2); /* the merge key itself is gone */
	assert_null(at(&m, "pod", "<<"));
	drop(&m);
}

static void test_earlier_source_wins(void **state)
{
	(void)state;
	merged m;
	load(&m, "a: &a {x: a, only_a: 1}\n"
	         "b: &b {x: b, only_b: 2}\n"
	         "c: {<<: [*a, *b], own: 3}\n"
	         "inline: {<<: {y: lit}, z: 1}\n");
	assert_int_equal(m.rc, TPH_OK);
	assert_string_equal(at(&m, "c", "x"), "a");
	assert_string_equal(at(&m, "c", "only_a"), "1");
	assert_string_equal(at(&m, "c", "only_b"), "2");
	assert_string_equal(at(&m, "c", "own"), "3");
	assert_int_equal(len_of(&m, "c"), 4);
	assert_string_equal(at(&m, "inline", "y"), "lit"); /* a literal mapping merges too */
	drop(&m);
}

/* A source that merges in turn is resolved first; an alias of a merged mapping sees the
 * result. */
static void test_nested(void **state)
{
	(void)state;
	merged m;
	load(&m, "a: &a {x: 1}\n"
	         "b: &b {<<: *a, y: 2}\n"
	         "c: {<<: *b, z: 3}\n"
	         "d: *b\n");
	assert_int_equal(m.rc, TPH_OK);
	assert_string_equal(at(&m, "c", "x"), "1");
	assert_string_equal(at(&m, "c", "y"), "2");
	assert_string_equal(at(&m, "d", "x"), "1");
	drop(&m);
}

static void test_quoted_key_is_plain_key(void **state)
{
	(void)state;
	merged m;
	load(&m, "a: &a {x: 1}\nb: {\"<<\": *a}\n");
	assert_int_equal(m.rc, TPH_OK);
	assert_int_equal(len_of(&m, "b"), 1);
	assert_null(at(&m, "b", "x"));
	drop(&m);
}

static void test_errors(void **state)
{
	(void)state;
	merged m;
	load(&m, "a: &a scalar\nb:\n  <<: *a\n");
	assert_int_equal(m.rc, TPH_EINVAL);
	assert_non_null(strstr(m.d.msg, "m.yaml:1:4: "));
	assert_non_null(strstr(m.d.msg, "a merge key (<<) takes a mapping"));
	drop(&m);
	load(&m, "b: [{x: 1}, {<<: [x]}]\n");
	assert_int_equal(m.rc, TPH_EINVAL);
	drop(&m);
	load(&m, "a: &a {x: 1, <<: *a}\n");
	assert_int_equal(m.rc, TPH_EINVAL);
	assert_non_null(strstr(m.d.msg, "into itself"));
	drop(&m);
	/* An alias of a mapping inside itself, merged further down, is no merge into itself */
	load(&m, "a: &a {x: 1, self: {<<: *a}}\n");
	assert_int_equal(m.rc, TPH_OK);
	drop(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_own_keys_win), cmocka_unit_test(test_earlier_source_wins),
	    cmocka_unit_test(test_nested),       cmocka_unit_test(test_quoted_key_is_plain_key),
	    cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

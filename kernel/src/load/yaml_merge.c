/* YAML merge keys (`<<: *base`, `<<: [*a, *b]`), resolved in a loaded document as go-yaml
 * (and so kubectl) reads them: the mapping gets the merged mappings' pairs whose keys it does
 * not have itself, an earlier source winning over a later one. Used by the kube importer;
 * the scenario loader keeps `<<` an unknown key. */
#include "yaml_util.h"

#include <string.h>

enum {
	M_TODO = 0,
	M_BUSY = 1,
	M_DONE = 2
};

typedef struct merger {
	yu_ctx *c;
	yu_doc *doc;
	uint8_t *state; /* per node id */
} merger;

static bool is_merge_key(const yu_node *k)
{
	return k->type == YU_SCALAR && k->style == YAML_PLAIN_SCALAR_STYLE && k->len == 2 &&
	       !memcmp(k->u.str, "<<", 2);
}

static bool same_key(const yu_node *a, const yu_node *b)
{
	return a->type == YU_SCALAR && b->type == YU_SCALAR && a->len == b->len &&
	       !memcmp(a->u.str, b->u.str, a->len);
}

static bool has_key(const yu_doc *doc, const yu_pair *p, uint32_t n, uint32_t key)
{
	for (uint32_t i = 0; i < n; i++)
		if (p[i].key == key || same_key(&doc->nodes[p[i].key], &doc->nodes[key]))
			return true;
	return false;
}

static int fail(merger *m, uint32_t id, const char *why)
{
	return yu_err(m->c, &m->doc->nodes[id], TPH_EINVAL, "YAML error: %s", why);
}

static int resolve(merger *m, uint32_t id);

/* Append the pairs of source mapping `src` that `out` lacks. */
static int take(merger *m, uint32_t src, yu_pair *out, uint32_t *n)
{
	const yu_node *s = &m->doc->nodes[src];
	if (s->type != YU_MAP)
		return fail(m, src, "a merge key (<<) takes a mapping or a sequence of mappings");
	int rc = resolve(m, src);
	for (uint32_t i = 0; rc == TPH_OK && i < s->len; i++)
		if (!has_key(m->doc, out, *n, s->u.pairs[i].key))
			out[(*n)++] = s->u.pairs[i];
	return rc;
}

/* Sources in order; room for every pair they could add. */
static uint32_t room(const yu_doc *doc, const yu_node *map)
{
	uint64_t total = map->len;
	for (uint32_t i = 0; i < map->len; i++) {
		if (!is_merge_key(&doc->nodes[map->u.pairs[i].key]))
			continue;
		const yu_node *v = &doc->nodes[map->u.pairs[i].value];
		if (v->type == YU_MAP)
			total += v->len;
		for (uint32_t j = 0; v->type == YU_SEQ && j < v->len; j++)
			total += doc->nodes[v->u.items[j]].len;
	}
	return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

static int merge_map(merger *m, uint32_t id)
{
	yu_node *map = &m->doc->nodes[id];
	yu_pair *out = yu_alloc_array(&m->doc->arena, room(m->doc, map), sizeof *out);
	if (!out)
		return yu_err(m->c, map, TPH_ENOMEM, "out of memory");
	uint32_t n = 0;
	for (uint32_t i = 0; i < map->len; i++)
		if (!is_merge_key(&m->doc->nodes[map->u.pairs[i].key]))
			out[n++] = map->u.pairs[i];
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < map->len; i++) {
		if (!is_merge_key(&m->doc->nodes[map->u.pairs[i].key]))
			continue;
		uint32_t v = map->u.pairs[i].value;
		const yu_node *vn = &m->doc->nodes[v];
		if (vn->type != YU_SEQ) {
			rc = take(m, v, out, &n);
			continue;
		}
		for (uint32_t j = 0; rc == TPH_OK && j < vn->len; j++)
			rc = take(m, vn->u.items[j], out, &n);
	}
	map = &m->doc->nodes[id];
	map->u.pairs = out;
	map->len = n;
	return rc;
}

static int resolve(merger *m, uint32_t id)
{
	if (m->state[id] == M_DONE)
		return TPH_OK;
	if (m->state[id] == M_BUSY)
		return fail(m, id, "a merge key (<<) merges a mapping into itself");
	m->state[id] = M_BUSY;
	const yu_node *map = &m->doc->nodes[id];
	bool any = false;
	for (uint32_t i = 0; i < map->len && !any; i++)
		any = is_merge_key(&m->doc->nodes[map->u.pairs[i].key]);
	int rc = any ? merge_map(m, id) : TPH_OK;
	m->state[id] = M_DONE;
	return rc;
}

static bool any_merge(const yu_doc *doc)
{
	for (uint32_t id = 0; id < doc->n; id++) {
		const yu_node *n = &doc->nodes[id];
		for (uint32_t i = 0; n->type == YU_MAP && i < n->len; i++)
			if (is_merge_key(&doc->nodes[n->u.pairs[i].key]))
				return true;
	}
	return false;
}

int yu_resolve_merges(yu_ctx *c, yu_doc *doc)
{
	if (!any_merge(doc))
		return TPH_OK;
	merger m = {c, doc, yu_calloc(doc->n, 1)};
	if (!m.state)
		return yu_err(c, &doc->nodes[doc->root], TPH_ENOMEM, "out of memory");
	int rc = TPH_OK;
	for (uint32_t id = 0; rc == TPH_OK && id < doc->n; id++)
		if (doc->nodes[id].type == YU_MAP)
			rc = resolve(&m, id);
	yu_free(m.state);
	return rc;
}

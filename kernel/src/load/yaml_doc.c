/* Builds the compact document of yaml_util.h from libyaml's event stream: one node array,
 * texts and child lists in one arena. libyaml's own document API costs a malloc per node plus
 * a tag copy, several times the parse itself on large scenarios. */
#include "base/mem.h"
#include "yaml_util.h"

#include <stdio.h>
#include <string.h>

typedef struct frame {
	uint32_t id;
	uint32_t kids_start; /* where this collection's children start in `kids` */
	uint32_t anchor;     /* its entry in `anchor_recs`, or YU_NONE */
	uint64_t expanded;   /* nodes it holds once aliases are expanded, itself included */
} frame;

/* An anchored node and its size once aliases are expanded (0 while it is still open). */
typedef struct anchor_rec {
	uint32_t id;
	uint64_t expanded;
} anchor_rec;

/* Texts longer than this are not worth caching. */
#define STR_SHORT 48

typedef struct builder {
	yu_doc *doc;
	yu_text_slot *cache;
	uint32_t *kids; /* children of the open collections, innermost last */
	uint32_t n_kids, cap_kids;
	frame *frames;
	uint32_t n_frames, cap_frames;
	yu_map anchors; /* anchor name -> index in anchor_recs */
	anchor_rec *anchor_recs;
	uint32_t n_anchor_recs, cap_anchor_recs;
	uint64_t made;    /* nodes created */
	uint64_t aliased; /* nodes reached through aliases, expanded */
	int docs;
} builder;

const char *yu_text(yu_text_slot *cache, yu_arena *a, const char *v, size_t len)
{
	if (len > STR_SHORT)
		return yu_strndup(a, v, len);
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)v[i]) * 16777619u;
	yu_text_slot *slot = &cache[(h ^ (h >> 15)) & (YU_TEXT_CACHE - 1)];
	if (slot->s && slot->h == h && slot->len == len && memcmp(slot->s, v, len) == 0)
		return slot->s;
	const char *s = yu_strndup(a, v, len);
	if (s)
		*slot = (yu_text_slot){s, (uint32_t)len, h};
	return s;
}

static int new_node(builder *b, uint8_t type, yaml_mark_t m, uint32_t *id)
{
	yu_doc *doc = b->doc;
	if (doc->n >= doc->cap && doc->fixed)
		return TPH_ERANGE;
	if (doc->n == YU_NONE - 1 || tph_grow(&doc->nodes, &doc->cap, doc->n + 1, sizeof(yu_node)))
		return TPH_ENOMEM;
	doc->nodes[doc->n] = (yu_node){
	    .type = type, .line = (uint32_t)m.line + doc->line_shift, .col = (uint32_t)m.column};
	*id = doc->n++;
	b->made++;
	if (b->n_frames)
		b->frames[b->n_frames - 1].expanded++; /* collections count themselves */
	return TPH_OK;
}

static int add_child(builder *b, uint32_t id)
{
	if (b->n_frames == 0) {
		b->doc->root = id;
		return TPH_OK;
	}
	if (tph_grow(&b->kids, &b->cap_kids, b->n_kids + 1, sizeof *b->kids))
		return TPH_ENOMEM;
	b->kids[b->n_kids++] = id;
	return TPH_OK;
}

/* Record anchor `name` on node `id`; *rec receives its index (YU_NONE without a name). */
static int anchor(builder *b, const yaml_char_t *name, uint32_t id, uint64_t expanded,
                  uint32_t *rec)
{
	*rec = YU_NONE;
	if (!name)
		return TPH_OK;
	size_t len = strlen((const char *)name);
	char *copy = yu_strndup(&b->doc->arena, (const char *)name, len);
	/* A redefinition takes the name over (yu_map_set overwrites). */
	if (!copy || b->n_anchor_recs == YU_NONE ||
	    tph_grow(&b->anchor_recs, &b->cap_anchor_recs, b->n_anchor_recs + 1,
	             sizeof *b->anchor_recs) ||
	    yu_map_set(&b->anchors, copy, len, NULL, 0, b->n_anchor_recs) < 0)
		return TPH_ENOMEM;
	*rec = b->n_anchor_recs++;
	b->anchor_recs[*rec] = (anchor_rec){id, expanded};
	return TPH_OK;
}

static int on_scalar(builder *b, const yaml_event_t *e)
{
	uint32_t id;
	int rc = new_node(b, YU_SCALAR, e->start_mark, &id);
	if (rc < 0)
		return rc;
	size_t len = e->data.scalar.length;
	const char *v = e->data.scalar.value ? (const char *)e->data.scalar.value : "";
	yu_node *n = &b->doc->nodes[id];
	n->style = (uint8_t)e->data.scalar.style;
	n->len = (uint32_t)len;
	if (len >= UINT32_MAX || !(n->u.str = yu_text(b->cache, &b->doc->strs, v, len)))
		return TPH_ENOMEM;
	uint32_t rec;
	rc = anchor(b, e->data.scalar.anchor, id, 1, &rec);
	return rc < 0 ? rc : add_child(b, id);
}

static int on_start(builder *b, const yaml_event_t *e, uint8_t type, const yaml_char_t *anc)
{
	uint32_t id, rec = YU_NONE;
	int rc = new_node(b, type, e->start_mark, &id);
	if (rc == TPH_OK)
		rc = anchor(b, anc, id, 0, &rec);
	if (rc == TPH_OK)
		rc = add_child(b, id);
	if (rc == TPH_OK &&
	    tph_grow(&b->frames, &b->cap_frames, b->n_frames + 1, sizeof *b->frames))
		rc = TPH_ENOMEM;
	if (rc == TPH_OK) {
		if (b->n_frames) /* new_node counted it; its size is added when it ends */
			b->frames[b->n_frames - 1].expanded--;
		b->frames[b->n_frames++] = (frame){id, b->n_kids, rec, 1};
	}
	return rc;
}

static int on_end(builder *b)
{
	frame f = b->frames[--b->n_frames];
	uint32_t count = b->n_kids - f.kids_start;
	uint32_t *kids = yu_alloc_array(&b->doc->arena, count, sizeof *kids);
	if (!kids)
		return TPH_ENOMEM;
	if (count) /* b->kids is NULL until the first child */
		memcpy(kids, b->kids + f.kids_start, count * sizeof *kids);
	yu_node *n = &b->doc->nodes[f.id];
	n->len = n->type == YU_MAP ? count / 2 : count;
	n->u.items = kids;
	b->n_kids = f.kids_start;
	if (f.anchor != YU_NONE)
		b->anchor_recs[f.anchor].expanded = f.expanded;
	if (b->n_frames)
		b->frames[b->n_frames - 1].expanded += f.expanded;
	return TPH_OK;
}

/* go-yaml's bound on alias expansion (Kubernetes and Volcano read YAML with it): up to 99% of
 * the decoded nodes may come through aliases in a document of 400k nodes, sliding down to
 * 10% from 4M on. Readers expand aliases, so without a bound a few kilobytes of anchors and
 * aliases would cost gigabytes and minutes (the "billion laughs"). */
static bool excessive_aliasing(const builder *b)
{
	double decoded = (double)b->made + (double)b->aliased, low = 4e5, high = 4e6;
	double ratio = decoded <= low    ? 0.99
	               : decoded >= high ? 0.10
	                                 : 0.99 - 0.89 * (decoded - low) / (high - low);
	return b->aliased > 100 && decoded > 1000 && (double)b->aliased / decoded > ratio;
}

static int on_alias(builder *b, const yaml_event_t *e, const char *file, int lb, int cb,
                    tph_diag *d)
{
	const char *name = (const char *)e->data.alias.anchor;
	uint32_t rec;
	if (!yu_map_get(&b->anchors, name, strlen(name), NULL, 0, &rec))
		return tph_diag_set(
		    d, TPH_EPARSE, "%s:%d:%d: YAML syntax error: undefined alias *%s", file,
		    (int)e->start_mark.line + lb + 1, (int)e->start_mark.column + cb + 1, name);
	const anchor_rec *a = &b->anchor_recs[rec];
	uint64_t expanded = a->expanded ? a->expanded : 1; /* an open one: a cycle */
	b->aliased += expanded;
	if (b->n_frames)
		b->frames[b->n_frames - 1].expanded += expanded;
	if (excessive_aliasing(b))
		return tph_diag_set(d, TPH_EPARSE, "%s:%d:%d: YAML error: %s (*%s)", file,
		                    (int)e->start_mark.line + lb + 1,
		                    (int)e->start_mark.column + cb + 1,
		                    "the document contains excessive aliasing", name);
	return add_child(b, a->id);
}

uint32_t yu_max_nodes = YU_MAX_NODES;

/* Why an event crosses a YU_MAX_* bound (written into why[cap]), or false. */
static bool over_limit(const builder *b, const yaml_event_t *e, char *why, size_t cap)
{
	bool start = e->type == YAML_SEQUENCE_START_EVENT || e->type == YAML_MAPPING_START_EVENT;
	if (start && b->n_frames + b->doc->depth >= YU_MAX_DEPTH)
		snprintf(why, cap, "collections nested deeper than %d levels", YU_MAX_DEPTH);
	else if (e->type == YAML_SCALAR_EVENT && e->data.scalar.length > YU_MAX_SCALAR)
		snprintf(why, cap, "a scalar of %zu bytes, above %u", e->data.scalar.length,
		         YU_MAX_SCALAR);
	else if ((start || e->type == YAML_SCALAR_EVENT) && b->made >= yu_max_nodes)
		snprintf(why, cap, "more than %u nodes in one document", yu_max_nodes);
	else
		return false;
	return true;
}

static int on_event(builder *b, const yaml_event_t *e, const char *file, int lb, int cb,
                    tph_diag *d)
{
	switch (e->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++b->docs > 1)
			return tph_diag_set(d, TPH_EPARSE, "%s:%d:%d: more than one YAML document",
			                    file, (int)e->start_mark.line + lb + 1,
			                    (int)e->start_mark.column + cb + 1);
		return TPH_OK;
	case YAML_SCALAR_EVENT:
		return on_scalar(b, e);
	case YAML_SEQUENCE_START_EVENT:
		return on_start(b, e, YU_SEQ, e->data.sequence_start.anchor);
	case YAML_MAPPING_START_EVENT:
		return on_start(b, e, YU_MAP, e->data.mapping_start.anchor);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		return on_end(b);
	case YAML_ALIAS_EVENT:
		return on_alias(b, e, file, lb, cb, d);
	default:
		return TPH_OK;
	}
}

/* Line and column (0-based) of byte `off`: the reader reports bad bytes by offset only. */
static yaml_mark_t mark_of(const char *buf, size_t len, size_t off)
{
	yaml_mark_t m = {0};
	for (size_t i = 0; i < off && i < len; i++) {
		if (buf[i] == '\n')
			m.line++, m.column = 0;
		else
			m.column++;
	}
	return m;
}

static int parser_error(const yaml_parser_t *p, const char *buf, size_t len, const char *file,
                        int lb, int cb, tph_diag *d)
{
	if (p->error == YAML_MEMORY_ERROR)
		return tph_diag_set(d, TPH_ENOMEM, "%s: out of memory while parsing YAML", file);
	yaml_mark_t m = p->problem_mark;
	const char *problem = p->problem ? p->problem : "malformed YAML";
	if (p->error == YAML_READER_ERROR) {
		m = mark_of(buf, len, p->problem_offset);
		return tph_diag_set(d, TPH_EPARSE, "%s:%d:%d: YAML syntax error: %s (byte %zu)",
		                    file, (int)m.line + lb + 1, (int)m.column + cb + 1, problem,
		                    p->problem_offset);
	}
	if (p->context)
		return tph_diag_set(d, TPH_EPARSE,
		                    "%s:%d:%d: YAML syntax error: %s (%s at line %d)", file,
		                    (int)m.line + lb + 1, (int)m.column + cb + 1, problem,
		                    p->context, (int)p->context_mark.line + lb + 1);
	return tph_diag_set(d, TPH_EPARSE, "%s:%d:%d: YAML syntax error: %s", file,
	                    (int)m.line + lb + 1, (int)m.column + cb + 1, problem);
}

static int run(yaml_parser_t *p, builder *b, const char *buf, size_t len, const char *file, int lb,
               int cb, tph_diag *d)
{
	for (;;) {
		yaml_event_t e;
		if (!yaml_parser_parse(p, &e))
			return parser_error(p, buf, len, file, lb, cb, d);
		char why[96];
		bool over = over_limit(b, &e, why, sizeof why);
		int rc = over ? TPH_OK : on_event(b, &e, file, lb, cb, d);
		bool end = e.type == YAML_STREAM_END_EVENT;
		yaml_mark_t m = e.start_mark;
		yaml_event_delete(&e);
		if (over)
			return tph_diag_set(d, TPH_ERANGE, "%s:%d:%d: YAML error: %s", file,
			                    (int)m.line + lb + 1, (int)m.column + cb + 1, why);
		if (rc == TPH_ENOMEM)
			return tph_diag_set(d, rc, "%s: out of memory while parsing YAML", file);
		if (rc == TPH_ERANGE) /* a fixed region is full: only parallel parts have one */
			return tph_diag_set(d, rc, "%s: node region full", file);
		if (rc < 0 || end)
			return rc;
	}
}

int yu_load_into(const char *buf, size_t len, const char *file, int line_base, int col_base,
                 yu_doc *doc, tph_diag *d)
{
	builder b = {.doc = doc};
	yaml_parser_t p;
	b.cache = yu_calloc(YU_TEXT_CACHE, sizeof *b.cache);
	if (!b.cache || yu_map_init(&b.anchors, 8) < 0 || !yaml_parser_initialize(&p)) {
		yu_free(b.cache);
		yu_map_free(&b.anchors);
		yu_doc_free(doc);
		return tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", file);
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
	int rc = run(&p, &b, buf, len, file, line_base, col_base, d);
	yaml_parser_delete(&p);
	yu_free(b.cache);
	yu_free(b.kids);
	yu_free(b.frames);
	yu_free(b.anchor_recs);
	doc->anchors = b.anchors.count;
	yu_map_free(&b.anchors);
	if (rc != TPH_OK)
		yu_doc_free(doc);
	return rc;
}

int yu_load(const char *buf, size_t len, const char *file, int line_base, int col_base, yu_doc *doc,
            tph_diag *d)
{
	memset(doc, 0, sizeof *doc);
	doc->root = YU_NONE;
	/* Every node takes at least two bytes of input ("a,"): reserve for one per four bytes up
	 * front (untouched pages cost nothing) rather than copy the array as it doubles. */
	uint32_t guess = len / 4 < (1u << 28) ? (uint32_t)(len / 4) + 16 : (1u << 28);
	if (tph_grow(&doc->nodes, &doc->cap, guess, sizeof(yu_node)) < 0)
		return tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", file);
	return yu_load_into(buf, len, file, line_base, col_base, doc, d);
}

void yu_doc_free(yu_doc *doc)
{
	if (!doc->fixed)
		yu_free(doc->nodes);
	yu_arena_free(&doc->arena);
	yu_arena_free(&doc->strs);
	doc->nodes = NULL;
	doc->n = doc->cap = 0;
	doc->root = YU_NONE;
}

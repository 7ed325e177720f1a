/* A fast path for the chunks the parallel split (yaml_split.c) cuts out of a scenario's
 * sections. Generated scenarios write one object per line, `  - {name: p1, requests: {cpu:
 * "2"}}`, and libyaml's scanner costs far more than the tree: a chunk made only of such lines,
 * with plain scalars of a safe alphabet and double-quoted scalars without escapes, is read
 * here straight into the document, giving what the event builder (yaml_doc.c) gives from
 * libyaml: the same nodes in the same order, texts, styles, lines and columns. Anything
 * outside that subset (comments, quoting rules, multi-line items, non-ASCII, ...) declines,
 * and the chunk goes to libyaml, which also gives every error. Every byte consumed is checked
 * (printable ASCII, spaces, '\n' between lines), so columns are bytes and lines are '\n's. */
#include "base/mem.h"
#include "yaml_util.h"

#include <string.h>

#define MAX_DEPTH 32
/* libyaml forgets a possible simple key 1024 characters on; stay well inside. */
#define MAX_KEY 1000

typedef struct fast {
	const char *p, *end;
	const char *line_start; /* columns count from here (ASCII only, so bytes are columns) */
	uint32_t line;
	yu_doc *doc;
	yu_text_slot *cache;
	uint32_t *kids; /* children of the open collections, innermost last */
	uint32_t n_kids, cap_kids;
} fast;

/* Bytes that may continue a plain scalar anywhere in flow context with no other meaning. */
static bool plain_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '.' || c == '_' || c == '/' || c == '+';
}

/* A plain scalar starts with one of them; '-' (an indicator) only before another. At least a
 * byte is left: the chunk may end anywhere (an item cut at `{`) and has no NUL after it. */
static bool plain_start(const fast *f)
{
	unsigned char c = (unsigned char)*f->p;
	if (c == '-')
		return f->p + 1 < f->end && plain_char((unsigned char)f->p[1]);
	return plain_char(c);
}

static void skip_spaces(fast *f)
{
	while (f->p < f->end && *f->p == ' ')
		f->p++;
}

static int new_node(fast *f, uint8_t type, const char *at, uint32_t *id)
{
	yu_doc *doc = f->doc;
	if (doc->n >= doc->cap && doc->fixed)
		return TPH_ERANGE;
	if (doc->n == YU_NONE - 1 || tph_grow(&doc->nodes, &doc->cap, doc->n + 1, sizeof(yu_node)))
		return TPH_ENOMEM;
	doc->nodes[doc->n] = (yu_node){
	    .type = type, .line = f->line + doc->line_shift, .col = (uint32_t)(at - f->line_start)};
	*id = doc->n++;
	if (tph_grow(&f->kids, &f->cap_kids, f->n_kids + 1, sizeof *f->kids))
		return TPH_ENOMEM;
	f->kids[f->n_kids++] = *id;
	return TPH_OK;
}

static int scalar(fast *f, const char *at, const char *text, size_t len, uint8_t style)
{
	uint32_t id;
	int rc = new_node(f, YU_SCALAR, at, &id);
	if (rc < 0)
		return rc;
	yu_node *n = &f->doc->nodes[id];
	n->style = style;
	n->len = (uint32_t)len;
	n->u.str = yu_text(f->cache, &f->doc->strs, text, len);
	return n->u.str ? TPH_OK : TPH_ENOMEM;
}

/* Spaces inside a plain scalar belong to it when more of it follows on the line. */
static int plain(fast *f)
{
	const char *s = f->p, *q = s + 1;
	for (;;) {
		while (q < f->end && plain_char((unsigned char)*q))
			q++;
		const char *r = q;
		while (r < f->end && *r == ' ')
			r++;
		if (r == q || r == f->end || !plain_char((unsigned char)*r))
			break;
		q = r;
	}
	f->p = q;
	return scalar(f, s, s, (size_t)(q - s), YAML_PLAIN_SCALAR_STYLE);
}

static int quoted(fast *f)
{
	const char *s = f->p, *q = s + 1;
	while (q < f->end && *q != '"') {
		if (*q < 0x20 || *q > 0x7e || *q == '\\')
			return TPH_DECLINED;
		q++;
	}
	if (q == f->end)
		return TPH_DECLINED;
	f->p = q + 1;
	return scalar(f, s, s + 1, (size_t)(q - s - 1), YAML_DOUBLE_QUOTED_SCALAR_STYLE);
}

static int collection(fast *f, int depth);

static int value(fast *f, int depth)
{
	if (f->p == f->end)
		return TPH_DECLINED;
	if (*f->p == '{' || *f->p == '[')
		return collection(f, depth + 1);
	if (*f->p == '"')
		return quoted(f);
	return plain_start(f) ? plain(f) : TPH_DECLINED;
}

/* A mapping entry: a plain key, ": ", a value. */
static int entry(fast *f, int depth)
{
	if (f->p == f->end || !plain_start(f))
		return TPH_DECLINED;
	const char *key = f->p;
	int rc = plain(f);
	if (rc != TPH_OK)
		return rc;
	if (f->p - key > MAX_KEY || f->end - f->p < 2 || f->p[0] != ':' || f->p[1] != ' ')
		return TPH_DECLINED;
	f->p += 2;
	skip_spaces(f);
	return value(f, depth);
}

/* The children's ids, from the stack into the document's arena. */
static int close_collection(fast *f, uint32_t id, uint32_t start)
{
	uint32_t count = f->n_kids - start;
	uint32_t *kids = yu_alloc_array(&f->doc->arena, count, sizeof *kids);
	if (!kids)
		return TPH_ENOMEM;
	if (count)
		memcpy(kids, f->kids + start, count * sizeof *kids);
	yu_node *n = &f->doc->nodes[id];
	n->len = n->type == YU_MAP ? count / 2 : count;
	n->u.items = kids;
	f->n_kids = start;
	return TPH_OK;
}

/* A flow mapping or sequence on the current line; no trailing comma. */
static int collection(fast *f, int depth)
{
	bool map = *f->p == '{';
	char close = map ? '}' : ']';
	uint32_t id = 0;
	int rc = depth > MAX_DEPTH ? TPH_DECLINED : new_node(f, map ? YU_MAP : YU_SEQ, f->p, &id);
	uint32_t start = f->n_kids;
	f->p++;
	skip_spaces(f);
	if (rc == TPH_OK && f->p < f->end && *f->p == close) {
		f->p++;
		return close_collection(f, id, start);
	}
	while (rc == TPH_OK) {
		rc = map ? entry(f, depth) : value(f, depth);
		skip_spaces(f);
		if (rc != TPH_OK || f->p == f->end)
			break;
		if (*f->p == close) {
			f->p++;
			return close_collection(f, id, start);
		}
		if (*f->p != ',')
			break;
		f->p++;
		skip_spaces(f);
	}
	return rc != TPH_OK ? rc : TPH_DECLINED;
}

/* Past the end of the current line, which must hold nothing but spaces from here. */
static bool end_of_line(fast *f)
{
	skip_spaces(f);
	if (f->p < f->end && *f->p != '\n')
		return false;
	if (f->p < f->end)
		f->p++;
	f->line++;
	f->line_start = f->p;
	return true;
}

/* One line: blank, or an item `INDENT- {...}` (the first one fixes INDENT and opens the
 * sequence). */
static int line(fast *f, uint32_t *seq, uint32_t *indent)
{
	const char *s = f->p;
	skip_spaces(f);
	if (f->p == f->end || *f->p == '\n')
		return end_of_line(f) ? TPH_OK : TPH_DECLINED;
	uint32_t col = (uint32_t)(f->p - s);
	if (*seq == YU_NONE) {
		int rc = new_node(f, YU_SEQ, f->p, seq);
		if (rc < 0)
			return rc;
		*indent = col;
	}
	if (col != *indent || f->end - f->p < 3 || f->p[0] != '-' || f->p[1] != ' ')
		return TPH_DECLINED;
	f->p += 2;
	skip_spaces(f);
	if (f->p == f->end || *f->p != '{')
		return TPH_DECLINED;
	int rc = collection(f, 1);
	if (rc == TPH_OK && (size_t)(f->p - s) > YU_MAX_SCALAR) /* it may hold a scalar as long */
		return TPH_DECLINED;                            /* libyaml's path reports it */
	return rc != TPH_OK ? rc : end_of_line(f) ? TPH_OK : TPH_DECLINED;
}

static int parse(fast *f)
{
	uint32_t seq = YU_NONE, indent = 0;
	int rc = TPH_OK;
	while (rc == TPH_OK && f->p < f->end)
		rc = line(f, &seq, &indent);
	if (rc == TPH_OK && seq == YU_NONE)
		rc = TPH_DECLINED;
	if (rc == TPH_OK) {
		f->doc->root = seq;
		rc = close_collection(f, seq, 1);
	}
	return rc;
}

int yu_fast_items(const char *buf, size_t len, yu_doc *doc)
{
	fast f = {.p = buf, .end = buf + len, .line_start = buf, .doc = doc};
	uint32_t first = doc->n;
	f.cache = yu_calloc(YU_TEXT_CACHE, sizeof *f.cache);
	int rc = f.cache ? parse(&f) : TPH_ENOMEM;
	yu_free(f.cache);
	yu_free(f.kids);
	if (rc != TPH_OK) {
		yu_arena_free(&doc->arena);
		yu_arena_free(&doc->strs);
		doc->n = first;
		doc->root = YU_NONE;
	}
	return rc;
}

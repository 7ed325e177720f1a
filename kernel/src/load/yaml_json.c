/* YAML nodes as JSON text, for what a scenario keeps to send as JSON later (the bodies of
 * extenderResponses). Mappings become objects (keys in document order, always strings),
 * sequences arrays, quoted and block scalars strings; plain scalars are read as the loader reads
 * them everywhere else (yu_kind): null, a boolean, a number, or else a string. A number keeps
 * its digits and is only respelled into JSON's grammar ("+1" 1, "007" 7, ".5" 0.5, "1." 1.0),
 * so a YAML float stays the same JSON number. */
#include "yaml_util.h"

#include "base/mem.h"

#include <stdio.h>
#include <string.h>

/* Bodies are small documents; a deeper one is a mistake, not a reason to recurse on. */
#define JSON_MAX_DEPTH 100

typedef struct jbuf {
	char *p;
	uint32_t len, cap;
	bool oom;
} jbuf;

static void put(jbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (n > UINT32_MAX / 4 - b->len ||
	    tph_grow(&b->p, &b->cap, b->len + (uint32_t)n + 1, 1) != TPH_OK) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->len, s, n);
	b->len += (uint32_t)n;
}

static void puts_(jbuf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void put_string(jbuf *b, const char *s, size_t n)
{
	put(b, "\"", 1);
	size_t run = 0; /* bytes copied as they are, flushed before each escape */
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		char esc[8];
		const char *e = NULL;
		if (ch == '"')
			e = "\\\"";
		else if (ch == '\\')
			e = "\\\\";
		else if (ch == '\n')
			e = "\\n";
		else if (ch == '\t')
			e = "\\t";
		else if (ch == '\r')
			e = "\\r";
		else if (ch < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", ch);
			e = esc;
		}
		if (!e)
			continue;
		put(b, s + run, i - run);
		puts_(b, e);
		run = i + 1;
	}
	put(b, s + run, n - run);
	put(b, "\"", 1);
}

/* A plain scalar that yu_kind calls a number ([-+]? digits [. digits] [e[-+]digits]) in
 * JSON's number grammar. */
static void put_number(jbuf *b, const char *s)
{
	if (*s == '-')
		put(b, s++, 1);
	else if (*s == '+')
		s++;
	size_t ip = strspn(s, "0123456789"), lead = 0;
	while (lead + 1 < ip && s[lead] == '0')
		lead++;
	if (ip == 0)
		put(b, "0", 1);
	else
		put(b, s + lead, ip - lead);
	s += ip;
	if (*s == '.') {
		size_t fp = strspn(s + 1, "0123456789");
		if (fp)
			put(b, s, fp + 1);
		else
			put(b, ".0", 2);
		s += 1 + fp;
	}
	puts_(b, s); /* the exponent, if any: already JSON */
}

static int put_node(yu_ctx *c, jbuf *b, const yu_node *n, int depth);

static int put_map(yu_ctx *c, jbuf *b, const yu_node *n, int depth)
{
	int rc = yu_check_unique_keys(c, n);
	put(b, "{", 1);
	for (size_t i = 0; rc == TPH_OK && i < yu_map_len(n); i++) {
		const yu_node *k = yu_at(c, n->u.pairs[i].key);
		if (i)
			put(b, ", ", 2);
		put_string(b, yu_sv(k), k->len);
		put(b, ": ", 2);
		yu_push(c, yu_sv(k));
		rc = put_node(c, b, yu_at(c, n->u.pairs[i].value), depth + 1);
		yu_pop(c);
	}
	put(b, "}", 1);
	return rc;
}

static int put_seq(yu_ctx *c, jbuf *b, const yu_node *n, int depth)
{
	int rc = TPH_OK;
	put(b, "[", 1);
	for (size_t i = 0; rc == TPH_OK && i < yu_seq_len(n); i++) {
		if (i)
			put(b, ", ", 2);
		yu_push_idx(c, (int32_t)i);
		rc = put_node(c, b, yu_at(c, n->u.items[i]), depth + 1);
		yu_pop(c);
	}
	put(b, "]", 1);
	return rc;
}

static int put_node(yu_ctx *c, jbuf *b, const yu_node *n, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		return yu_err(c, n, TPH_EINVAL, "nested more than %d levels deep", JSON_MAX_DEPTH);
	if (n->type == YU_MAP)
		return put_map(c, b, n, depth);
	if (n->type == YU_SEQ)
		return put_seq(c, b, n, depth);
	const char *kind = yu_kind(n);
	bool flag;
	if (!strcmp(kind, "null"))
		puts_(b, "null");
	else if (!strcmp(kind, "a boolean") && yu_bool(c, n, &flag) == TPH_OK)
		puts_(b, flag ? "true" : "false");
	else if (!strcmp(kind, "a number"))
		put_number(b, yu_sv(n));
	else
		put_string(b, yu_sv(n), n->len);
	return TPH_OK;
}

int yu_json(yu_ctx *c, const yu_node *n, const char **out)
{
	jbuf b = {0};
	int rc = put_node(c, &b, n, 0);
	const char *text = NULL;
	if (rc == TPH_OK && !b.oom)
		text = yu_strndup(c->arena, b.p ? b.p : "", b.len);
	tph_free(b.p);
	if (rc == TPH_OK && !text)
		return yu_err(c, n, TPH_ENOMEM, "out of memory");
	if (rc == TPH_OK)
		*out = text;
	return rc;
}

/* nodegroup: json.Unmarshal of the volcano.sh/nodegroup-resource-limits annotation into
 * map[string]v1.ResourceList, as encoding/json does it: the whole input must be valid JSON (the
 * scanner checks it before decoding), the top level null or an object, each group null or an
 * object, each quantity a string, a number or null handed raw to Quantity.UnmarshalJSON (quotes
 * dropped, escapes not decoded, spaces trimmed, then resource.ParseQuantity). Keys are decoded
 * as encoding/json unquotes them; the last of repeated keys wins (nodegroup_limits.c). */
#include "nodegroup.h"

#include <string.h>

#include "tephra/alloc.h"

static void ws(ng_json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool lit(ng_json *j, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return false;
	j->p += n;
	return true;
}

static bool put(ng_json *j, const char *b, size_t n)
{
	if (tph_grow(&j->text, &j->cap_text, j->n_text + (uint32_t)n, 1)) {
		j->oom = true;
		return false;
	}
	memcpy(j->text + j->n_text, b, n);
	j->n_text += (uint32_t)n;
	return true;
}

static bool put_rune(ng_json *j, uint32_t r)
{
	char b[4];
	size_t n;
	if (r < 0x80)
		b[0] = (char)r, n = 1;
	else if (r < 0x800)
		b[0] = (char)(0xc0 | r >> 6), b[1] = (char)(0x80 | (r & 0x3f)), n = 2;
	else if (r < 0x10000)
		b[0] = (char)(0xe0 | r >> 12), b[1] = (char)(0x80 | (r >> 6 & 0x3f)),
		b[2] = (char)(0x80 | (r & 0x3f)), n = 3;
	else
		b[0] = (char)(0xf0 | r >> 18), b[1] = (char)(0x80 | (r >> 12 & 0x3f)),
		b[2] = (char)(0x80 | (r >> 6 & 0x3f)), b[3] = (char)(0x80 | (r & 0x3f)), n = 4;
	return put(j, b, n);
}

static int hex4(const char *p)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];
		int d = c >= '0' && c <= '9'   ? c - '0'
		        : c >= 'a' && c <= 'f' ? c - 'a' + 10
		        : c >= 'A' && c <= 'F' ? c - 'A' + 10
		                               : -1;
		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* One UTF-8 sequence at p (utf8.DecodeRune): its length, or 0 when invalid. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n = *p < 0x80                 ? 1
	           : *p >= 0xc2 && *p < 0xe0 ? 2
	           : *p >= 0xe0 && *p < 0xf0 ? 3
	           : *p >= 0xf0 && *p < 0xf5 ? 4
	                                     : 0;
	if (!n || (size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 3 && *p == 0xe0 && p[1] < 0xa0) || (n == 3 && *p == 0xed && p[1] >= 0xa0) ||
	    (n == 4 && *p == 0xf0 && p[1] < 0x90) || (n == 4 && *p == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

/* A JSON string at j->p (the opening quote): its text at *off, decoded as encoding/json
 * unquotes a key (escapes, surrogate pairs, U+FFFD for what is not valid UTF-8), or raw (the
 * bytes between the quotes, as Quantity.UnmarshalJSON sees them). */
static bool string(ng_json *j, bool raw, uint32_t *off)
{
	*off = j->n_text;
	for (j->p++; j->p < j->end && *j->p != '"';) {
		unsigned char c = (unsigned char)*j->p;
		if (c < 0x20)
			return false;
		if (c == '\\') {
			if (j->end - j->p < 2)
				return false;
			static const char esc[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
			const char *e = j->p[1] ? strchr(esc, j->p[1]) : NULL;
			if (e) {
				if (!put(j, raw ? j->p : &to[e - esc], raw ? 2 : 1))
					return false;
				j->p += 2;
				continue;
			}
			int r = j->p[1] == 'u' && j->end - j->p >= 6 ? hex4(j->p + 2) : -1;
			if (r < 0)
				return false;
			const char *start = j->p;
			j->p += 6;
			if (r >= 0xd800 && r < 0xdc00 && j->end - j->p >= 6 && j->p[0] == '\\' &&
			    j->p[1] == 'u') {
				int lo = hex4(j->p + 2);
				if (lo >= 0xdc00 && lo < 0xe000) {
					r = 0x10000 + ((r - 0xd800) << 10) + (lo - 0xdc00);
					j->p += 6;
				}
			}
			if (r >= 0xd800 && r < 0xe000)
				r = 0xfffd;
			if (!(raw ? put(j, start, (size_t)(j->p - start))
			          : put_rune(j, (uint32_t)r)))
				return false;
			continue;
		}
		size_t n = utf8_len((const unsigned char *)j->p, (const unsigned char *)j->end);
		if (!(n || raw ? put(j, j->p, n ? n : 1) : put_rune(j, 0xfffd)))
			return false;
		j->p += n ? n : 1;
	}
	if (j->p >= j->end)
		return false;
	j->p++;
	return put(j, "", 1);
}

/* A JSON number (the scanner's grammar) copied as text. */
static bool number(ng_json *j, uint32_t *off)
{
	const char *s = j->p;
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || *j->p < '0' || *j->p > '9')
		return false;
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	if (j->p < j->end && *j->p == '.') {
		const char *f = ++j->p;
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
		if (j->p == f)
			return false;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		const char *e = j->p;
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
		if (j->p == e)
			return false;
	}
	*off = j->n_text;
	return put(j, s, (size_t)(j->p - s)) && put(j, "", 1);
}

/* Quantity.UnmarshalJSON's input: a string (quotes dropped, spaces trimmed), a number, or
 * null (the zero quantity). Any other value cannot become a quantity. */
static bool quantity_value(ng_json *j, uint32_t *raw)
{
	if (lit(j, "null")) {
		*raw = UINT32_MAX;
		return true;
	}
	if (j->p < j->end && *j->p == '"')
		return string(j, true, raw);
	return number(j, raw);
}

/* An object, `{ "key": value, ... }`: each key decoded, each value read by `member`. */
static bool object(ng_json *j, bool (*member)(ng_json *j, uint32_t key, void *ctx), void *ctx)
{
	if (j->p >= j->end || *j->p++ != '{')
		return false;
	ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p++;
		return true;
	}
	for (;;) {
		uint32_t key;
		ws(j);
		if (j->p >= j->end || *j->p != '"' || !string(j, false, &key))
			return false;
		ws(j);
		if (j->p >= j->end || *j->p++ != ':')
			return false;
		ws(j);
		if (!member(j, key, ctx))
			return false;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		return j->p < j->end && *j->p++ == '}';
	}
}

/* One resource of a group: a quantity. */
static bool resource(ng_json *j, uint32_t key, void *ctx)
{
	ng_jres r = {.name = key};
	if (!quantity_value(j, &r.raw))
		return false;
	if (tph_grow(&j->res, &j->cap_res, j->n_res + 1, sizeof *j->res)) {
		j->oom = true;
		return false;
	}
	j->res[j->n_res++] = r;
	((ng_jgroup *)ctx)->n++;
	return true;
}

/* One group: its resource list, or null. */
static bool group(ng_json *j, uint32_t key, void *ctx)
{
	ng_jgroup g = {.name = key, .first = j->n_res};
	(void)ctx;
	if (lit(j, "null"))
		g.null = true;
	else if (!object(j, resource, &g))
		return false;
	if (tph_grow(&j->grp, &j->cap_grp, j->n_grp + 1, sizeof *j->grp)) {
		j->oom = true;
		return false;
	}
	j->grp[j->n_grp++] = g;
	return true;
}

/* The whole annotation: null, or an object of groups, then nothing but white space. */
static bool document(ng_json *j)
{
	ws(j);
	if (!lit(j, "null") && !object(j, group, NULL))
		return false;
	ws(j);
	return j->p == j->end;
}

/* resource.ParseQuantity of a quantity text (spaces trimmed, as Quantity.UnmarshalJSON does),
 * scaled to `unit`: *v negative for a negative quantity; a magnitude beyond int64 saturates. */
bool ng_quantity(const char *t, tph_res_unit unit, int64_t *v)
{
	if (!t) {
		*v = 0;
		return true;
	}
	while (*t == ' ')
		t++;
	size_t n = strlen(t);
	while (n && t[n - 1] == ' ')
		n--;
	bool neg = n && *t == '-';
	if (n && (*t == '-' || *t == '+'))
		t++, n--;
	if (n && (*t == '-' || *t == '+'))
		return false;
	int64_t m;
	int rc = tph_quantity_parse(t, n, unit, &m, NULL);
	if (rc == TPH_ERANGE)
		m = INT64_MAX;
	else if (rc < 0)
		return false;
	*v = neg ? -m : m;
	return true;
}

/* Everything Volcano would refuse, quantities included: a refused annotation fails the queue. */
bool ng_json_parse(ng_json *j, const char *raw)
{
	j->p = raw;
	j->end = raw + strlen(raw);
	if (!document(j))
		return false;
	int64_t v;
	for (uint32_t i = 0; i < j->n_res; i++)
		if (!ng_quantity(ng_json_raw(j, j->res[i].raw), TPH_UNIT_MILLI, &v))
			return false;
	return true;
}

void ng_json_free(ng_json *j)
{
	tph_free(j->text);
	tph_free(j->res);
	tph_free(j->grp);
}

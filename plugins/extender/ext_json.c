/* extender: replies read as Volcano's send() reads them, json.NewDecoder(body).Decode(result)
 * over at most 10 MiB. The scanner follows encoding/json's (scanner.go): one byte at a time,
 * bounded depth, Go's error messages, and it stops where Decoder stops reading. Decoding then
 * walks the checked text and fills the reply's fields with Go's rules (decode.go). A reply is
 * hostile input: every loop is bounded by its length and nothing recurses on it. */
#include "extender.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tephra/alloc.h"
#include "tephra/args.h"

/* ---- the scanner ---- */

enum {
	S_VALUE = 0, /* a value begins (spaces first) */
	S_OBJ_FIRST, /* after '{': a key or '}' */
	S_OBJ_KEY,   /* after ',' in an object: a key */
	S_COLON,     /* after a key */
	S_OBJ_NEXT,  /* after a value in an object: ',' or '}' */
	S_ARR_FIRST, /* after '[': a value or ']' */
	S_ARR_NEXT,  /* after a value in an array: ',' or ']' */
	S_STR,       /* in a string */
	S_STR_ESC,   /* after a backslash */
	S_STR_HEX,   /* in \uXXXX */
	S_NEG,       /* after '-' */
	S_ZERO,      /* a number's leading 0 */
	S_INT,       /* integer digits */
	S_DOT,       /* after '.' */
	S_FRAC,      /* fraction digits */
	S_EXP_E,     /* after 'e' */
	S_EXP_SIGN,  /* after the exponent's sign */
	S_EXP,       /* exponent digits */
	S_LIT,       /* in true, false or null */
	S_TOP_END,   /* a top-level string or literal ended: Decoder needs one more byte or EOF */
};

static bool is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static bool is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

/* encoding/json's quoteChar: the byte as strconv.Quote shows the rune of that value. */
static void quote_char(unsigned char c, char *out, size_t cap)
{
	static const char esc[] = "\a\b\f\n\r\t\v";
	static const char name[] = "abfnrtv";
	const char *e = c ? strchr(esc, c) : NULL;
	if (c == '\'')
		snprintf(out, cap, "'\\''");
	else if (c == '\\')
		snprintf(out, cap, "'\\\\'");
	else if (e)
		snprintf(out, cap, "'\\%c'", name[e - esc]);
	else if (c < 0x20 || c == 0x7f)
		snprintf(out, cap, "'\\x%02x'", c);
	else if (c < 0x7f)
		snprintf(out, cap, "'%c'", c);
	else if (c <= 0xa0 || c == 0xad) /* not printable: C1 controls, NBSP, soft hyphen */
		snprintf(out, cap, "'\\u%04x'", c);
	else
		snprintf(out, cap, "'%c%c'", 0xc0 | (c >> 6), 0x80 | (c & 0x3f));
}

static void fail(ej_scan *s, unsigned char c, const char *context)
{
	char q[16];
	quote_char(c, q, sizeof q);
	snprintf(s->err, sizeof s->err, "invalid character %s %s", q, context);
	s->status = EJ_ERROR;
}

void ej_scan_init(ej_scan *s)
{
	s->status = EJ_MORE;
	s->state = S_VALUE;
	s->depth = 0;
	s->fed = 0;
	s->end = 0;
	s->nonspace = false;
	s->err[0] = 0;
}

static bool push(ej_scan *s, unsigned char c, bool object)
{
	if (s->depth >= EJ_MAX_DEPTH) {
		fail(s, c, "exceeded max depth");
		return false;
	}
	uint32_t d = s->depth++;
	if (object)
		s->stack[d / 8] |= (uint8_t)(1u << (d % 8));
	else
		s->stack[d / 8] &= (uint8_t) ~(1u << (d % 8));
	return true;
}

static bool top_is_object(const ej_scan *s)
{
	uint32_t d = s->depth - 1;
	return s->stack[d / 8] >> (d % 8) & 1;
}

/* A value ended with the byte just consumed (`consumed`) or before the current one. */
static void end_value(ej_scan *s, bool scalar_top)
{
	if (s->depth == 0) {
		if (scalar_top) {
			s->state = S_TOP_END;
		} else {
			s->status = EJ_DONE;
			s->end = s->fed;
		}
		return;
	}
	s->state = top_is_object(s) ? S_OBJ_NEXT : S_ARR_NEXT;
}

static void begin_value(ej_scan *s, unsigned char c)
{
	static const char *const words[] = {"true", "false", "null"};
	switch (c) {
	case '{':
		if (push(s, c, true))
			s->state = S_OBJ_FIRST;
		return;
	case '[':
		if (push(s, c, false))
			s->state = S_ARR_FIRST;
		return;
	case '"':
		s->key = false;
		s->state = S_STR;
		return;
	case '-':
		s->state = S_NEG;
		return;
	case '0':
		s->state = S_ZERO;
		return;
	case 't':
	case 'f':
	case 'n':
		s->word = words[c == 't' ? 0 : c == 'f' ? 1 : 2];
		s->lit = 1;
		s->state = S_LIT;
		return;
	default:
		if (c >= '1' && c <= '9')
			s->state = S_INT;
		else
			fail(s, c, "looking for beginning of value");
	}
}

/* Structural states; returns false when c is not consumed (never here). */
static void step_struct(ej_scan *s, unsigned char c)
{
	if (is_space(c))
		return;
	switch (s->state) {
	case S_VALUE:
		begin_value(s, c);
		return;
	case S_OBJ_FIRST:
	case S_OBJ_KEY:
		if (c == '}' && s->state == S_OBJ_FIRST) {
			s->depth--;
			end_value(s, false);
		} else if (c == '"') {
			s->key = true;
			s->state = S_STR;
		} else {
			fail(s, c, "looking for beginning of object key string");
		}
		return;
	case S_COLON:
		if (c == ':')
			s->state = S_VALUE;
		else
			fail(s, c, "after object key");
		return;
	case S_OBJ_NEXT:
		if (c == ',') {
			s->state = S_OBJ_KEY;
		} else if (c == '}') {
			s->depth--;
			end_value(s, false);
		} else {
			fail(s, c, "after object key:value pair");
		}
		return;
	case S_ARR_FIRST:
		if (c == ']') {
			s->depth--;
			end_value(s, false);
		} else {
			begin_value(s, c);
		}
		return;
	default: /* S_ARR_NEXT */
		if (c == ',') {
			s->state = S_VALUE;
		} else if (c == ']') {
			s->depth--;
			end_value(s, false);
		} else {
			fail(s, c, "after array element");
		}
	}
}

static bool is_hex(unsigned char c)
{
	return is_digit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

static void step_string(ej_scan *s, unsigned char c)
{
	if (s->state == S_STR_ESC) {
		if (c == 'u') {
			s->hex = 4;
			s->state = S_STR_HEX;
		} else if (strchr("bfnrt\\/\"", c) && c) {
			s->state = S_STR;
		} else {
			fail(s, c, "in string escape code");
		}
	} else if (s->state == S_STR_HEX) {
		if (!is_hex(c))
			fail(s, c, "in \\u hexadecimal character escape");
		else if (--s->hex == 0)
			s->state = S_STR;
	} else if (c == '"') {
		if (s->key)
			s->state = S_COLON;
		else
			end_value(s, true);
	} else if (c == '\\') {
		s->state = S_STR_ESC;
	} else if (c < 0x20) {
		fail(s, c, "in string literal");
	}
}

/* Number states; returns false when c ends the number and is not consumed. */
static bool step_number(ej_scan *s, unsigned char c)
{
	switch (s->state) {
	case S_NEG:
		if (c == '0')
			s->state = S_ZERO;
		else if (c >= '1' && c <= '9')
			s->state = S_INT;
		else
			fail(s, c, "in numeric literal");
		return true;
	case S_DOT:
		if (is_digit(c))
			s->state = S_FRAC;
		else
			fail(s, c, "after decimal point in numeric literal");
		return true;
	case S_EXP_E:
		if (c == '+' || c == '-' || is_digit(c))
			s->state = is_digit(c) ? S_EXP : S_EXP_SIGN;
		else
			fail(s, c, "in exponent of numeric literal");
		return true;
	case S_EXP_SIGN:
		if (is_digit(c))
			s->state = S_EXP;
		else
			fail(s, c, "in exponent of numeric literal");
		return true;
	default:
		break;
	}
	if (is_digit(c) && s->state != S_ZERO)
		return true;
	if (c == '.' && (s->state == S_ZERO || s->state == S_INT)) {
		s->state = S_DOT;
		return true;
	}
	if ((c == 'e' || c == 'E') && s->state != S_EXP) {
		s->state = S_EXP_E;
		return true;
	}
	if (s->depth == 0) { /* Decoder's scanEnd: the byte after a top-level number */
		s->status = EJ_DONE;
		s->end = s->fed;
		return false;
	}
	end_value(s, false);
	return false;
}

static void step_literal(ej_scan *s, unsigned char c)
{
	if ((unsigned char)s->word[s->lit] != c) {
		char ctx[48];
		snprintf(ctx, sizeof ctx, "in literal %s (expecting '%c')", s->word,
		         s->word[s->lit]);
		fail(s, c, ctx);
		return;
	}
	if (!s->word[++s->lit])
		end_value(s, true);
}

size_t ej_scan_feed(ej_scan *s, const char *p, size_t n)
{
	size_t i = 0;
	while (i < n && s->status == EJ_MORE) {
		unsigned char c = (unsigned char)p[i];
		uint8_t st = s->state;
		if (st == S_TOP_END) {
			s->status = EJ_DONE;
			s->end = s->fed;
			break;
		}
		if (!is_space(c))
			s->nonspace = true;
		if (st >= S_NEG && st <= S_EXP) {
			if (!step_number(s, c))
				continue; /* reread c in the state after the number */
		} else if (st == S_LIT) {
			step_literal(s, c);
		} else if (st >= S_STR && st <= S_STR_HEX) {
			step_string(s, c);
		} else {
			step_struct(s, c);
		}
		i++;
		s->fed++;
		if (s->status == EJ_DONE)
			s->end = s->fed;
	}
	return i;
}

void ej_scan_eof(ej_scan *s)
{
	if (s->status != EJ_MORE)
		return;
	uint8_t st = s->state;
	bool number_end = st == S_ZERO || st == S_INT || st == S_FRAC || st == S_EXP;
	if (st == S_TOP_END || (number_end && s->depth == 0)) {
		s->status = EJ_DONE;
		s->end = s->fed;
		return;
	}
	snprintf(s->err, sizeof s->err, "%s", s->nonspace ? "unexpected EOF" : "EOF");
	s->status = EJ_ERROR;
}

/* ---- walking checked text ---- */

static const char *ws(const char *p)
{
	while (is_space((unsigned char)*p))
		p++;
	return p;
}

/* After the string that starts at p ('"'). */
static const char *skip_string(const char *p)
{
	for (p++; *p != '"'; p++)
		if (*p == '\\')
			p++;
	return p + 1;
}

/* After the value at p; containers are walked with a counter, not recursion. */
static const char *skip_value(const char *p)
{
	if (*p == '"')
		return skip_string(p);
	if (*p != '{' && *p != '[') {
		while (*p && strchr("truefalsn0123456789+-.eE", *p))
			p++;
		return p;
	}
	size_t depth = 0;
	do {
		if (*p == '"') {
			p = skip_string(p);
			continue;
		}
		if (*p == '{' || *p == '[')
			depth++;
		else if (*p == '}' || *p == ']')
			depth--;
		p++;
	} while (depth);
	return p;
}

/* Members of an object or elements of an array: *val is each value in turn, key (objects)
 * its raw key between the quotes. */
typedef struct ej_iter {
	const char *p, *val;
	bool obj;
} ej_iter;

static ej_iter iter(const char *p)
{
	return (ej_iter){p + 1, NULL, *p == '{'};
}

static bool next(ej_iter *it, const char **key, size_t *klen, const char **val)
{
	const char *p = ws(it->val ? skip_value(it->val) : it->p);
	if (*p == '}' || *p == ']')
		return false;
	if (*p == ',')
		p = ws(p + 1);
	if (it->obj) {
		const char *e = skip_string(p);
		*key = p + 1;
		*klen = (size_t)(e - p - 2);
		p = ws(ws(e) + 1); /* the ':' */
	}
	it->val = *val = p;
	return true;
}

/* ---- strings: Go's unquote ---- */

static int hex4(const char *p)
{
	int v = 0;
	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)p[i],
		    d = is_digit((unsigned char)c) ? c - '0' : (c | 0x20) - 'a' + 10;
		v = v * 16 + d;
	}
	return v;
}

static size_t put_rune(char *o, uint32_t r)
{
	if (r < 0x80) {
		o[0] = (char)r;
		return 1;
	}
	if (r < 0x800) {
		o[0] = (char)(0xc0 | r >> 6), o[1] = (char)(0x80 | (r & 0x3f));
		return 2;
	}
	if (r < 0x10000) {
		o[0] = (char)(0xe0 | r >> 12), o[1] = (char)(0x80 | (r >> 6 & 0x3f));
		o[2] = (char)(0x80 | (r & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | r >> 18), o[1] = (char)(0x80 | (r >> 12 & 0x3f));
	o[2] = (char)(0x80 | (r >> 6 & 0x3f)), o[3] = (char)(0x80 | (r & 0x3f));
	return 4;
}

/* The length of a valid UTF-8 sequence at p (within n bytes), 0 when invalid (utf8.DecodeRune
 * gives RuneError, 1). */
static size_t utf8_len(const unsigned char *p, size_t n, uint32_t *r)
{
	unsigned char c = p[0];
	size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
	if (!len || len > n || c > 0xf4)
		return 0;
	uint32_t v = c & (0xff >> (len + 1));
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (p[i] & 0x3f);
	}
	static const uint32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
	if (v < min[len] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*r = v;
	return len;
}

/* raw[0..n), a checked string's content, decoded into o (room for 3 * n bytes). */
static size_t unquote(const char *raw, size_t n, char *o)
{
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)raw[i];
		if (c == '\\') {
			char e = raw[i + 1];
			if (e != 'u') {
				static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";
				const char *k = strchr(from, e);
				o[w++] = k ? to[k - from] : e;
				i += 2;
				continue;
			}
			uint32_t r = (uint32_t)hex4(raw + i + 2);
			i += 6;
			if (r >= 0xd800 && r < 0xe000) {
				uint32_t lo = i + 6 <= n && raw[i] == '\\' && raw[i + 1] == 'u'
				                  ? (uint32_t)hex4(raw + i + 2)
				                  : 0;
				if (r < 0xdc00 && lo >= 0xdc00 && lo < 0xe000) {
					r = 0x10000 + ((r - 0xd800) << 10) + (lo - 0xdc00);
					i += 6;
				} else {
					r = 0xfffd;
				}
			}
			w += put_rune(o + w, r);
		} else if (c < 0x80) {
			o[w++] = (char)c;
			i++;
		} else {
			uint32_t r;
			size_t len = utf8_len((const unsigned char *)raw + i, n - i, &r);
			if (len) {
				memcpy(o + w, raw + i, len);
				w += len;
				i += len;
			} else {
				w += put_rune(o + w, 0xfffd);
				i++;
			}
		}
	}
	return w;
}

/* Whether a raw key names `field` as encoding/json matches names: exactly, or both folded
 * (ASCII case, and the four runes whose fold is an ASCII letter: ſ K İ ı). */
static bool key_is(const char *raw, size_t n, const char *field)
{
	char buf[3 * 128 + 1];
	if (n > 128)
		return false;
	size_t len = unquote(raw, n, buf);
	const unsigned char *k = (const unsigned char *)buf, *end = k + len;
	for (const char *f = field; *f; f++) {
		if (k == end)
			return false;
		uint32_t r = *k;
		size_t step = 1;
		if (r >= 0x80 && !(step = utf8_len(k, (size_t)(end - k), &r)))
			return false;
		k += step;
		char c = r < 0x80                   ? (char)r
		         : r == 0x17f               ? 's'
		         : r == 0x212a              ? 'k'
		         : r == 0x130 || r == 0x131 ? 'i'
		                                    : 0;
		if (((c | 0x20) != (*f | 0x20)) || !c)
			return false;
	}
	return k == end;
}

/* ---- decoding ---- */

static bool add_text(ej_out *o, const char *raw, size_t n, uint32_t *off, uint32_t *len)
{
	if (n > (UINT32_MAX - 1 - o->n_text) / 3 ||
	    tph_grow(&o->text, &o->cap_text, o->n_text + (uint32_t)(3 * n + 1), 1)) {
		o->oom = true;
		return false;
	}
	*off = o->n_text;
	*len = (uint32_t)unquote(raw, n, o->text + o->n_text);
	o->text[o->n_text + *len] = 0;
	o->n_text += *len + 1;
	return true;
}

static ej_entry *add_entry(ej_out *o)
{
	if (tph_grow(&o->ent, &o->cap_ent, o->n_ent + 1, sizeof *o->ent)) {
		o->oom = true;
		return NULL;
	}
	ej_entry *e = &o->ent[o->n_ent++];
	*e = (ej_entry){0, 0, 0.0};
	return e;
}

static const char *kind_of(const char *v)
{
	switch (*v) {
	case '"':
		return "string";
	case '{':
		return "object";
	case '[':
		return "array";
	case 't':
	case 'f':
		return "bool";
	default:
		return "number";
	}
}

/* Record an UnmarshalTypeError unless one is recorded already. */
static void type_error(ej_out *o, const ej_type *t, const char *path, const char *value,
                       size_t vlen, const char *go_type)
{
	if (o->err[0])
		return;
	snprintf(o->err, sizeof o->err,
	         "json: cannot unmarshal %.*s into Go struct field %s.%s of type %s",
	         (int)(vlen > 64 ? 64 : vlen), value, t->go_name, path, go_type);
}

static void number_error(ej_out *o, const ej_type *t, const char *path, const char *v,
                         const char *go_type)
{
	char what[80];
	size_t n = (size_t)(skip_value(v) - v);
	snprintf(what, sizeof what, "number %.*s", (int)(n > 60 ? 60 : n), v);
	type_error(o, t, path, what, strlen(what), go_type);
}

/* A checked number as strconv reads it into an int (ParseInt) or a float64 (ParseFloat). */
static bool parse_int(const char *v, int64_t *out)
{
	char buf[32];
	size_t n = (size_t)(skip_value(v) - v);
	if (n >= sizeof buf)
		return false;
	memcpy(buf, v, n);
	buf[n] = 0;
	return tph_parse_int(buf, 64, out);
}

static bool parse_float(const char *v, double *out)
{
	size_t n = (size_t)(skip_value(v) - v);
	char small[64], *buf = n < sizeof small ? small : tph_malloc(n + 1);
	if (!buf)
		return false;
	memcpy(buf, v, n);
	buf[n] = 0;
	double d = strtod(buf, NULL);
	if (buf != small)
		tph_free(buf);
	*out = d;
	return !isinf(d); /* ParseFloat: out of range is an error, underflow is not */
}

static void scores(ej_out *o, const ej_type *t, const char *name, const char *v)
{
	if (*v == 'n') {
		o->nil = true;
		o->n_ent = 0;
		return;
	}
	if (*v != '{') {
		type_error(o, t, name, kind_of(v), strlen(kind_of(v)), "map[string]float64");
		return;
	}
	o->nil = false; /* a second object adds to the map, as Go decodes into the same map */
	ej_iter it = iter(v);
	const char *key, *val;
	size_t klen;
	while (next(&it, &key, &klen, &val) && !o->oom) {
		ej_entry *e = add_entry(o);
		if (!e || !add_text(o, key, klen, &e->key, &e->klen))
			return;
		if (*val == 'n')
			continue;
		if (*val == '"' || *val == '{' || *val == '[' || *val == 't' || *val == 'f')
			type_error(o, t, name, kind_of(val), strlen(kind_of(val)), "float64");
		else if (!parse_float(val, &e->num))
			number_error(o, t, name, val, "float64");
	}
}

/* One victim: a TaskInfo object, of which only UID is read. */
static void victim(ej_out *o, const ej_type *t, const char *name, const char *v)
{
	ej_entry *e = add_entry(o);
	if (!e)
		return;
	e->klen = UINT32_MAX;
	if (*v == 'n')
		return;
	if (*v != '{') {
		type_error(o, t, name, kind_of(v), strlen(kind_of(v)), "api.TaskInfo");
		return;
	}
	ej_iter it = iter(v);
	const char *key, *val;
	size_t klen;
	char path[48];
	snprintf(path, sizeof path, "%s.UID", name);
	e->klen = 0;
	e->key = UINT32_MAX; /* "" until a UID is read */
	while (next(&it, &key, &klen, &val) && !o->oom) {
		if (!key_is(key, klen, "UID") || *val == 'n')
			continue;
		if (*val != '"')
			type_error(o, t, path, kind_of(val), strlen(kind_of(val)), "api.TaskID");
		else
			add_text(o, val + 1, (size_t)(skip_string(val) - val - 2), &e->key,
			         &e->klen);
	}
}

static void victims(ej_out *o, const ej_type *t, const char *name, const char *v)
{
	o->n_ent = 0; /* Go reslices to zero before an array, and null makes it nil */
	o->nil = *v == 'n';
	if (o->nil)
		return;
	if (*v != '[') {
		o->nil = true;
		type_error(o, t, name, kind_of(v), strlen(kind_of(v)), "[]*api.TaskInfo");
		return;
	}
	ej_iter it = iter(v);
	const char *val, *key;
	size_t klen;
	while (next(&it, &key, &klen, &val) && !o->oom)
		victim(o, t, name, val);
}

static void scalar(ej_out *o, const ej_type *t, uint32_t f, const char *v)
{
	const ej_field *fd = &t->fields[f];
	static const char *const go[] = {"string", "int", "bool"};
	if (*v == 'n')
		return;
	bool ok = false;
	if (fd->type == EJ_STRING && *v == '"') {
		ok = add_text(o, v + 1, (size_t)(skip_string(v) - v - 2), &o->str[f], &o->slen[f]);
	} else if (fd->type == EJ_BOOL && (*v == 't' || *v == 'f')) {
		o->num[f] = *v == 't';
		ok = true;
	} else if (fd->type == EJ_INT && (*v == '-' || is_digit((unsigned char)*v))) {
		if (!parse_int(v, &o->num[f])) {
			number_error(o, t, fd->name, v, "int");
			return;
		}
		ok = true;
	}
	if (ok)
		o->set[f] = true;
	else if (!o->oom)
		type_error(o, t, fd->name, kind_of(v), strlen(kind_of(v)), go[fd->type]);
}

bool ej_decode(const char *text, size_t len, const ej_type *t, ej_out *out)
{
	memset(out, 0, sizeof *out);
	out->nil = true;
	const char *v = ws(text);
	if (!len || *v == 'n')
		return true;
	if (*v != '{') {
		snprintf(out->err, sizeof out->err,
		         "json: cannot unmarshal %s into Go value of type extender.%s", kind_of(v),
		         t->go_name);
		return false;
	}
	ej_iter it = iter(v);
	const char *key, *val;
	size_t klen;
	while (next(&it, &key, &klen, &val) && !out->oom) {
		for (uint32_t f = 0; f < t->n_fields; f++) {
			if (!key_is(key, klen, t->fields[f].name))
				continue;
			if (t->fields[f].type == EJ_SCORES)
				scores(out, t, t->fields[f].name, val);
			else if (t->fields[f].type == EJ_VICTIMS)
				victims(out, t, t->fields[f].name, val);
			else
				scalar(out, t, f, val);
			break;
		}
	}
	if (out->oom)
		snprintf(out->err, sizeof out->err, "out of memory decoding the reply");
	return !out->err[0];
}

void ej_out_free(ej_out *out)
{
	tph_free(out->ent);
	tph_free(out->text);
	out->ent = NULL;
	out->text = NULL;
	out->n_ent = out->cap_ent = out->n_text = out->cap_text = 0;
}

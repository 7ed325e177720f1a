/* Typed getters over a plugin's or action's `arguments` (the tree conf.h keeps verbatim), with
 * Volcano's typing: each scalar is first typed as gopkg.in/yaml.v2 types it when it decodes
 * into map[string]interface{}, then accepted or refused as framework/arguments.go does.
 *
 * Getters return TPH_OK when they wrote *out, TPH_DECLINED when the key is absent (or `a` is
 * not a mapping), TPH_EINVAL when the value has the wrong type (a warning names the owner, the
 * key and the value; *out is left alone). Warnings go to the diag of the last
 * tph_args_set_diag() on the calling thread: plugins and actions run on the session thread. */
#include "load/conf_int.h"
#include "base/names.h"
#include "tephra/args.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- yaml.v2 typing (resolve.go) ---- */

typedef enum vkind {
	V_NULL,
	V_BOOL,
	V_INT,   /* Go int */
	V_UINT,  /* Go uint64: above int64 */
	V_FLOAT, /* Go float64 */
	V_TIME,  /* Go time.Time */
	V_STRING,
	V_SEQ,
	V_MAP,
} vkind;

typedef struct yval {
	vkind k;
	bool b;
	int64_t i;
	double f;
} yval;

static bool in_list(const char *s, const char *const *l)
{
	for (; *l; l++)
		if (!strcmp(s, *l))
			return true;
	return false;
}

/* resolveMap: the words yaml.v2 types without parsing. */
static bool resolve_word(const char *s, yval *v)
{
	static const char *const yes[] = {"y",    "Y",    "yes", "Yes", "YES", "true",
	                                  "True", "TRUE", "on",  "On",  "ON",  NULL};
	static const char *const no[] = {"n",     "N",     "no",  "No",  "NO",  "false",
	                                 "False", "FALSE", "off", "Off", "OFF", NULL};
	static const char *const nan[] = {".nan", ".NaN", ".NAN", NULL};
	static const char *const inf[] = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", NULL};
	static const char *const ninf[] = {"-.inf", "-.Inf", "-.INF", NULL};
	static const char *const null[] = {"", "~", "null", "Null", "NULL", NULL};
	if (in_list(s, yes) || in_list(s, no))
		*v = (yval){.k = V_BOOL, .b = in_list(s, yes)};
	else if (in_list(s, nan))
		*v = (yval){.k = V_FLOAT, .f = (double)NAN};
	else if (in_list(s, inf) || in_list(s, ninf))
		*v = (yval){.k = V_FLOAT,
		            .f = in_list(s, inf) ? (double)INFINITY : -(double)INFINITY};
	else if (in_list(s, null))
		*v = (yval){.k = V_NULL};
	else
		return false;
	return true;
}

static unsigned digit_val(char c)
{
	if (c >= '0' && c <= '9')
		return (unsigned)(c - '0');
	if (c >= 'a' && c <= 'z')
		return (unsigned)(c - 'a' + 10);
	if (c >= 'A' && c <= 'Z')
		return (unsigned)(c - 'A' + 10);
	return 99;
}

/* strconv.ParseUint(s, 0, 64): 0b/0o/0x prefixes (with at least one digit after), a leading
 * 0 for octal, else decimal. */
static bool go_parse_uint0(const char *s, uint64_t *out)
{
	size_t len = strlen(s);
	unsigned base = 10;
	if (!len)
		return false;
	if (s[0] == '0') {
		char c1 = len >= 3 ? (char)(s[1] | 0x20) : 0;
		base = c1 == 'b' ? 2 : c1 == 'o' ? 8 : c1 == 'x' ? 16 : 8;
		s += c1 == 'b' || c1 == 'o' || c1 == 'x' ? 2 : 1;
	}
	uint64_t v = 0;
	for (; *s; s++) {
		unsigned d = digit_val(*s);
		if (d >= base || v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

/* strconv.ParseInt(s, 0, 64). */
static bool go_parse_int0(const char *s, int64_t *out)
{
	bool neg = *s == '-';
	uint64_t u;
	if (*s == '+' || *s == '-')
		s++;
	if (!go_parse_uint0(s, &u))
		return false;
	if (u > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
		return false;
	*out = neg ? (int64_t)(0 - u) : (int64_t)u;
	return true;
}

static size_t digits(const char *s)
{
	return strspn(s, "0123456789");
}

/* yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_style_float(const char *s)
{
	if (*s == '+' || *s == '-')
		s++;
	if (*s == '.') {
		if (!digits(s + 1))
			return false;
		s += 1 + digits(s + 1);
	} else {
		if (!digits(s))
			return false;
		s += digits(s);
		if (*s == '.')
			s += 1 + digits(s + 1);
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!digits(s))
			return false;
		s += digits(s);
	}
	return !*s;
}

/* strconv.ParseFloat over a yamlStyleFloat string: an overflow is an error. */
static bool go_parse_float(const char *s, double *out)
{
	double f = strtod(s, NULL);
	if (isinf(f))
		return false;
	*out = f;
	return true;
}

/* n digits (1..max) at *p, advancing. */
static bool num_field(const char **p, int min_d, int max_d, int lo, int hi)
{
	int v = 0, n = 0;
	while (n < max_d && **p >= '0' && **p <= '9')
		v = v * 10 + (*(*p)++ - '0'), n++;
	return n >= min_d && v >= lo && v <= hi;
}

/* parseTimestamp's formats: 2006-1-2, then optionally [Tt]15:4:5[.frac](Z|±07:00) or
 * " 15:4:5[.frac]" (time.Parse checks day-of-month ranges loosely here: 1..31). */
static bool yaml_timestamp(const char *s)
{
	const char *p = s;
	if (!num_field(&p, 4, 4, 0, 9999) || *p++ != '-' || !num_field(&p, 1, 2, 1, 12) ||
	    *p++ != '-' || !num_field(&p, 1, 2, 1, 31))
		return false;
	if (!*p)
		return true;
	char sep = *p++;
	if ((sep != 'T' && sep != 't' && sep != ' ') || !num_field(&p, 1, 2, 0, 23) ||
	    *p++ != ':' || !num_field(&p, 1, 2, 0, 59) || *p++ != ':' ||
	    !num_field(&p, 1, 2, 0, 59))
		return false;
	if (*p == '.' && digits(p + 1))
		p += 1 + digits(p + 1);
	if (sep == ' ')
		return !*p;
	if (*p == 'Z')
		return !p[1];
	if (*p != '+' && *p != '-')
		return false;
	p++;
	return num_field(&p, 2, 2, 0, 23) && *p++ == ':' && num_field(&p, 2, 2, 0, 59) && !*p;
}

/* Digits, sign: timestamp, int, uint, float, in that order, on the text without '_'. */
static void resolve_number(const char *in, yval *v)
{
	char plain[128];
	size_t n = 0;
	if (yaml_timestamp(in)) {
		*v = (yval){.k = V_TIME};
		return;
	}
	for (const char *p = in; *p && n + 1 < sizeof plain; p++)
		if (*p != '_')
			plain[n++] = *p;
	plain[n] = 0;
	uint64_t u;
	if (strlen(in) >= sizeof plain)
		*v = (yval){.k = V_STRING};
	else if (go_parse_int0(plain, &v->i))
		v->k = V_INT;
	else if (go_parse_uint0(plain, &u))
		*v = (yval){.k = V_UINT};
	else if (yaml_style_float(plain) && go_parse_float(plain, &v->f))
		v->k = V_FLOAT;
	else
		*v = (yval){.k = V_STRING};
}

static yval resolve(const tph_args *a)
{
	yval v = {.k = V_STRING};
	if (a->kind == TPH_ARGV_SEQ || a->kind == TPH_ARGV_MAP)
		return (yval){.k = a->kind == TPH_ARGV_SEQ ? V_SEQ : V_MAP};
	if (a->quoted)
		return v;
	if (a->null)
		return (yval){.k = V_NULL};
	const char *t = a->text;
	if (resolve_word(t, &v))
		return v;
	if ((*t >= '0' && *t <= '9') || *t == '+' || *t == '-')
		resolve_number(t, &v);
	else if (*t == '.' && yaml_style_float(t) && go_parse_float(t, &v.f))
		v.k = V_FLOAT;
	return v;
}

/* strconv.ParseBool. */
static bool go_parse_bool(const char *s, bool *out)
{
	static const char *const t[] = {"1", "t", "T", "TRUE", "true", "True", NULL};
	static const char *const f[] = {"0", "f", "F", "FALSE", "false", "False", NULL};
	if (in_list(s, t) || in_list(s, f)) {
		*out = in_list(s, t);
		return true;
	}
	return false;
}

/* ---- warnings ---- */

typedef struct wctx {
	tph_diag *d;
	const char *owner;
} wctx;

static _Thread_local wctx cur_diag;

void tph_args_set_diag(const tph_args *a, tph_diag *d, const char *owner)
{
	(void)a;
	cur_diag = (wctx){d, owner};
}

/* How a value reads in a message: "abc" for a string, an integer (5), a mapping, ... */
static void describe(const tph_args *v, char *buf, size_t cap)
{
	yval y = resolve(v);
	static const char *const kinds[] = {
	    [V_BOOL] = "a boolean", [V_INT] = "an integer",   [V_UINT] = "an integer",
	    [V_FLOAT] = "a number", [V_TIME] = "a timestamp",
	};
	if (y.k == V_NULL)
		snprintf(buf, cap, "null");
	else if (y.k == V_SEQ || y.k == V_MAP)
		snprintf(buf, cap, "%s", y.k == V_SEQ ? "a sequence" : "a mapping");
	else if (y.k == V_STRING)
		snprintf(buf, cap, "\"%.200s\"", v->text);
	else
		snprintf(buf, cap, "%s (%.200s)", kinds[y.k], v->text);
}

static void warn(const wctx *w, const tph_args *v, const char *key, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static void warn(const wctx *w, const tph_args *v, const char *key, const char *fmt, ...)
{
	if (!w->d)
		return;
	char where[320] = "", who[160], msg[512];
	if (v && v->file && v->line)
		snprintf(where, sizeof where, "%s:%u:%u: ", v->file, v->line, v->col);
	const char *o = w->owner ? w->owner : "arguments";
	if (!w->owner || strchr(o, ' '))
		snprintf(who, sizeof who, "%s", o);
	else
		snprintf(who, sizeof who, "%s %s", tph_action_name_known(o) ? "action" : "plugin",
		         o);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	tph_diag_warn(w->d, "%s%s: argument %s: %s", where, who, key, msg);
}

static int wrong(const wctx *w, const tph_args *v, const char *key, const char *expected)
{
	char got[256];
	describe(v, got, sizeof got);
	warn(w, v, key, "expected %s, got %s", expected, got);
	return TPH_EINVAL;
}

/* ---- getters ---- */

static const tph_args *lookup(const tph_args *a, const char *key)
{
	if (!a || a->kind != TPH_ARGV_MAP || !key)
		return NULL;
	for (uint32_t i = 0; i < a->n; i++)
		if (a->items[i].key && !strcmp(a->items[i].key, key))
			return &a->items[i];
	return NULL;
}

/* GetInt: a YAML int only, within TPH_ARG_INT_LIMIT (args.h). */
static int get_int(const wctx *w, const tph_args *v, const char *key, int64_t *out)
{
	yval y = resolve(v);
	if (y.k != V_INT)
		return wrong(w, v, key, "an integer");
	if (y.i < -TPH_ARG_INT_LIMIT || y.i > TPH_ARG_INT_LIMIT) {
		warn(w, v, key, "%.200s is out of range [%d, %d]; using the default", v->text,
		     -TPH_ARG_INT_LIMIT, TPH_ARG_INT_LIMIT);
		return TPH_ERANGE;
	}
	*out = y.i;
	return TPH_OK;
}

/* GetFloat64: a float, or an int converted. */
static int get_float(const wctx *w, const tph_args *v, const char *key, double *out)
{
	yval y = resolve(v);
	if (y.k != V_FLOAT && y.k != V_INT)
		return wrong(w, v, key, "a number");
	*out = y.k == V_INT ? (double)y.i : y.f;
	return TPH_OK;
}

/* GetBool: a YAML bool, or a string strconv.ParseBool accepts. */
static int get_bool(const wctx *w, const tph_args *v, const char *key, bool *out)
{
	yval y = resolve(v);
	if (y.k == V_BOOL) {
		*out = y.b;
		return TPH_OK;
	}
	if (y.k == V_STRING && go_parse_bool(v->text, out))
		return TPH_OK;
	return wrong(w, v, key, "a boolean");
}

/* GetString: a YAML string only (a plain 5 is an int). */
static int get_string(const wctx *w, const tph_args *v, const char *key, const char **out)
{
	if (resolve(v).k != V_STRING)
		return wrong(w, v, key, "a string");
	*out = v->text;
	return TPH_OK;
}

/* A string that time.ParseDuration accepts (sla, tdm, rescheduling read durations so);
 * milliseconds, truncated toward zero. */
static int get_duration(const wctx *w, const tph_args *v, const char *key, int64_t *out_ms)
{
	if (resolve(v).k != V_STRING)
		return wrong(w, v, key, "a duration string (e.g. 30s, 1h30m)");
	int64_t ns;
	const char *why = "not a duration";
	if (tph_parse_duration(v->text, strlen(v->text), &ns, &why) < 0) {
		warn(w, v, key, "invalid duration \"%.200s\": %s", v->text, why);
		return TPH_EINVAL;
	}
	*out_ms = ns / 1000000;
	return TPH_OK;
}

/* A Kubernetes quantity string, or a non-negative int counted in whole units. */
static int get_quantity(const wctx *w, const tph_args *v, const char *key, tph_res_unit unit,
                        int64_t *out)
{
	yval y = resolve(v);
	int64_t scale = unit == TPH_UNIT_BYTES ? 1 : 1000;
	if (y.k == V_INT && y.i >= 0 && y.i <= INT64_MAX / scale) {
		*out = y.i * scale;
		return TPH_OK;
	}
	if (y.k != V_STRING)
		return wrong(w, v, key, "a quantity");
	const char *why = "not a quantity";
	if (tph_quantity_parse(v->text, strlen(v->text), unit, out, &why) < 0) {
		warn(w, v, key, "invalid quantity \"%.200s\": %s", v->text, why);
		return TPH_EINVAL;
	}
	return TPH_OK;
}

int tph_args_int(const tph_args *a, const char *key, int64_t *out)
{
	const tph_args *v = lookup(a, key);
	return v ? get_int(&cur_diag, v, key, out) : TPH_DECLINED;
}

int tph_args_float(const tph_args *a, const char *key, double *out)
{
	const tph_args *v = lookup(a, key);
	return v ? get_float(&cur_diag, v, key, out) : TPH_DECLINED;
}

int tph_args_bool(const tph_args *a, const char *key, bool *out)
{
	const tph_args *v = lookup(a, key);
	return v ? get_bool(&cur_diag, v, key, out) : TPH_DECLINED;
}

int tph_args_string(const tph_args *a, const char *key, const char **out)
{
	const tph_args *v = lookup(a, key);
	return v ? get_string(&cur_diag, v, key, out) : TPH_DECLINED;
}

int tph_args_duration(const tph_args *a, const char *key, int64_t *out_ms)
{
	const tph_args *v = lookup(a, key);
	return v ? get_duration(&cur_diag, v, key, out_ms) : TPH_DECLINED;
}

int tph_args_quantity(const tph_args *a, const char *key, tph_res_unit unit, int64_t *out)
{
	const tph_args *v = lookup(a, key);
	return v ? get_quantity(&cur_diag, v, key, unit, out) : TPH_DECLINED;
}

const tph_args *tph_args_child(const tph_args *a, const char *key)
{
	const tph_args *v = lookup(a, key);
	if (!v || v->kind == TPH_ARGV_MAP || v->kind == TPH_ARGV_SEQ)
		return v;
	wrong(&cur_diag, v, key, "a mapping or a sequence");
	return NULL;
}

int tph_args_type(const tph_args *a, const char *key)
{
	const tph_args *v = lookup(a, key);
	if (!v)
		return TPH_ENOENT;
	switch (resolve(v).k) {
	case V_INT:
		return TPH_ARG_INT;
	case V_FLOAT:
		return TPH_ARG_FLOAT;
	case V_BOOL:
		return TPH_ARG_BOOL;
	case V_STRING:
		return TPH_ARG_STRING;
	case V_SEQ:
		return TPH_ARG_LIST;
	case V_MAP:
		return TPH_ARG_MAP;
	default:
		return TPH_EINVAL;
	}
}

uint32_t tph_args_count(const tph_args *a)
{
	return a && a->kind != TPH_ARGV_SCALAR ? a->n : 0;
}

const char *tph_args_key_at(const tph_args *a, uint32_t i)
{
	return a && a->kind == TPH_ARGV_MAP && i < a->n ? a->items[i].key : NULL;
}

const tph_args *tph_args_at(const tph_args *a, uint32_t i)
{
	return a && a->kind != TPH_ARGV_SCALAR && i < a->n ? &a->items[i] : NULL;
}

const char *tph_args_text(const tph_args *a)
{
	return a && a->kind == TPH_ARGV_SCALAR ? a->text : NULL;
}

/* ---- spec tables ---- */

/* A default, parsed like a plain conf value (a programming error in it warns and zeroes). */
static void apply_default(const wctx *w, const tph_arg_spec *sp, void *f)
{
	if (sp->type == TPH_ARG_STRING) {
		*(const char **)f = sp->def;
		return;
	}
	if (!sp->def || sp->type == TPH_ARG_LIST || sp->type == TPH_ARG_MAP)
		return;
	tph_args tmp = {.kind = TPH_ARGV_SCALAR, .text = sp->def, .len = (uint32_t)strlen(sp->def)};
	wctx quiet = {NULL, NULL};
	int rc = TPH_EINVAL;
	switch (sp->type) {
	case TPH_ARG_INT:
		rc = get_int(&quiet, &tmp, sp->key, f);
		break;
	case TPH_ARG_FLOAT:
		rc = get_float(&quiet, &tmp, sp->key, f);
		break;
	case TPH_ARG_BOOL:
		rc = get_bool(&quiet, &tmp, sp->key, f);
		break;
	case TPH_ARG_DURATION:
		rc = get_duration(&quiet, &tmp, sp->key, f);
		break;
	case TPH_ARG_QUANTITY:
		rc = get_quantity(&quiet, &tmp, sp->key, TPH_UNIT_MILLI, f);
		break;
	default:
		break;
	}
	if (rc)
		warn(w, NULL, sp->key, "bad default \"%s\" in the option table", sp->def);
}

static size_t field_size(tph_arg_type t)
{
	switch (t) {
	case TPH_ARG_FLOAT:
		return sizeof(double);
	case TPH_ARG_BOOL:
		return sizeof(bool);
	case TPH_ARG_STRING:
	case TPH_ARG_LIST:
	case TPH_ARG_MAP:
		return sizeof(void *);
	default:
		return sizeof(int64_t);
	}
}

/* The conf value into `tmp` (a field-sized buffer): TPH_OK when it is usable. */
static int read_value(const wctx *w, const tph_arg_spec *sp, const tph_args *v, void *tmp)
{
	switch (sp->type) {
	case TPH_ARG_INT:
		return get_int(w, v, sp->key, tmp);
	case TPH_ARG_FLOAT:
		return get_float(w, v, sp->key, tmp);
	case TPH_ARG_BOOL:
		return get_bool(w, v, sp->key, tmp);
	case TPH_ARG_STRING:
		return get_string(w, v, sp->key, tmp);
	case TPH_ARG_DURATION:
		return get_duration(w, v, sp->key, tmp);
	case TPH_ARG_QUANTITY:
		return get_quantity(w, v, sp->key, TPH_UNIT_MILLI, tmp);
	case TPH_ARG_LIST:
		if (v->kind == TPH_ARGV_MAP || resolve(v).k == V_NULL)
			return wrong(w, v, sp->key, "a sequence or a comma-separated string");
		*(const tph_args **)tmp = v;
		return TPH_OK;
	case TPH_ARG_MAP:
		if (v->kind != TPH_ARGV_MAP)
			return wrong(w, v, sp->key, "a mapping");
		*(const tph_args **)tmp = v;
		return TPH_OK;
	}
	return TPH_EINVAL;
}

static int check_bounds(const wctx *w, const tph_arg_spec *sp, const tph_args *v, const void *tmp)
{
	double x;
	if (!(sp->min < sp->max))
		return TPH_OK;
	if (sp->type == TPH_ARG_FLOAT)
		memcpy(&x, tmp, sizeof x);
	else if (sp->type == TPH_ARG_INT || sp->type == TPH_ARG_DURATION)
		x = (double)*(const int64_t *)tmp;
	else
		return TPH_OK;
	if (x >= sp->min && x <= sp->max)
		return TPH_OK;
	warn(w, v, sp->key, "%.200s is out of range [%g, %g]; using the default", v->text, sp->min,
	     sp->max);
	return TPH_ERANGE;
}

int tph_args_apply(const tph_args *a, const tph_arg_spec *spec, void *dst, tph_diag *d,
                   const char *owner)
{
	const wctx w = {d, owner};
	for (const tph_arg_spec *sp = spec; sp && sp->key; sp++) {
		size_t klen = strlen(sp->key);
		if (sp->include || sp->offset == TPH_ARG_NOFIELD ||
		    (klen && sp->key[klen - 1] == '*'))
			continue; /* declarations only: see args.h */
		void *f = (char *)dst + sp->offset;
		memset(f, 0, field_size(sp->type));
		apply_default(&w, sp, f);
		const tph_args *v = lookup(a, sp->key);
		_Alignas(8) unsigned char tmp[8];
		if (v && read_value(&w, sp, v, tmp) == TPH_OK &&
		    check_bounds(&w, sp, v, tmp) == TPH_OK)
			memcpy(f, tmp, field_size(sp->type));
	}
	return TPH_OK;
}

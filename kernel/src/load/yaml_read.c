/* Typed readers over libyaml scalars: timestamps, durations, numbers, booleans, quantities,
 * string maps and lists, and the yu_walk field handlers built on them. */
#include "yaml_util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- timestamps ------------------------------------------------------------------------------ */

static bool num_at(const char *s, size_t n, int *out)
{
	int v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m)
{
	static const int dim[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return m == 2 && leap ? 29 : dim[m - 1];
}

/* Parses the zone suffix at s[i..len): Z or ±hh:mm; *off_min is east of UTC. */
static bool parse_zone(const char *s, size_t i, size_t len, int *off_min)
{
	if (len - i == 1 && (s[i] == 'Z' || s[i] == 'z')) {
		*off_min = 0;
		return true;
	}
	int hh, mm;
	if (len - i != 6 || (s[i] != '+' && s[i] != '-') || s[i + 3] != ':' ||
	    !num_at(s + i + 1, 2, &hh) || !num_at(s + i + 4, 2, &mm) || hh > 23 || mm > 59)
		return false;
	*off_min = (s[i] == '-' ? -1 : 1) * (hh * 60 + mm);
	return true;
}

int tph_parse_time(const char *s, size_t len, tph_time *out, const char **why)
{
	int y, mo, d, h, mi, se, off;
	*why = "not an RFC 3339 timestamp (want e.g. 2026-01-01T00:00:00Z)";
	if (len < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
	    s[13] != ':' || s[16] != ':' || !num_at(s, 4, &y) || !num_at(s + 5, 2, &mo) ||
	    !num_at(s + 8, 2, &d) || !num_at(s + 11, 2, &h) || !num_at(s + 14, 2, &mi) ||
	    !num_at(s + 17, 2, &se))
		return TPH_EINVAL;
	size_t i = 19;
	int64_t ms = 0;
	if (s[i] == '.') {
		size_t f0 = ++i;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (i - f0 < 3)
				ms = ms * 10 + (s[i] - '0');
		if (i == f0)
			return TPH_EINVAL;
		for (size_t k = i - f0; k < 3; k++)
			ms *= 10;
	}
	if (i >= len || !parse_zone(s, i, len, &off))
		return TPH_EINVAL;
	if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 ||
	    se > 59) {
		*why = "date or time out of range";
		return TPH_EINVAL;
	}
	int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - off * 60;
	*out = secs * 1000 + ms;
	*why = NULL;
	return TPH_OK;
}

/* ---- durations ---------------------------------------------------------------------------------
 */

static uint64_t unit_ns(const char *u, size_t n)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = {
	    {"ns", 1},       {"us", 1000},         {"\xc2\xb5s", 1000},   {"\xce\xbcs", 1000},
	    {"ms", 1000000}, {"s", 1000000000ull}, {"m", 60000000000ull}, {"h", 3600000000000ull},
	};
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (strlen(units[i].name) == n && memcmp(units[i].name, u, n) == 0)
			return units[i].ns;
	return 0;
}

#define DUR_LIMIT ((uint64_t)1 << 63)

/* One `<number><unit>` element at s[*i..]; adds its value to *total. */
static int dur_element(const char *s, size_t len, size_t *i, uint64_t *total, const char **why)
{
	uint64_t v = 0;
	double frac = 0, scale = 1;
	bool any = false;
	for (; *i < len && s[*i] >= '0' && s[*i] <= '9'; (*i)++, any = true) {
		if (v > (DUR_LIMIT - 9) / 10)
			return *why = "overflows int64 nanoseconds", TPH_ERANGE;
		v = v * 10 + (uint64_t)(s[*i] - '0');
	}
	if (*i < len && s[*i] == '.') {
		for ((*i)++; *i < len && s[*i] >= '0' && s[*i] <= '9'; (*i)++, any = true)
			if (scale < 1e18) {
				frac = frac * 10 + (s[*i] - '0');
				scale *= 10;
			}
	}
	if (!any)
		return *why = "not a duration (want e.g. 30m, 1h30m, 500ms)", TPH_EINVAL;
	size_t u0 = *i;
	while (*i < len && s[*i] != '.' && (s[*i] < '0' || s[*i] > '9'))
		(*i)++;
	if (u0 == *i)
		return *why = "missing unit in duration", TPH_EINVAL;
	uint64_t unit = unit_ns(s + u0, *i - u0);
	if (!unit)
		return *why = "unknown unit in duration (use ns, us, ms, s, m, h)", TPH_EINVAL;
	if (v > DUR_LIMIT / unit)
		return *why = "overflows int64 nanoseconds", TPH_ERANGE;
	v *= unit;
	if (frac > 0)
		v += (uint64_t)(frac * ((double)unit / scale));
	if (v > DUR_LIMIT || *total > DUR_LIMIT - v)
		return *why = "overflows int64 nanoseconds", TPH_ERANGE;
	*total += v;
	return TPH_OK;
}

int tph_parse_duration(const char *s, size_t len, int64_t *ns, const char **why)
{
	size_t i = 0;
	bool neg = false;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	if (len - i == 1 && s[i] == '0') {
		*ns = 0;
		return TPH_OK;
	}
	if (i == len)
		return *why = "not a duration (want e.g. 30m, 1h30m, 500ms)", TPH_EINVAL;
	uint64_t total = 0;
	while (i < len) {
		int rc = dur_element(s, len, &i, &total, why);
		if (rc < 0)
			return rc;
	}
	if (!neg && total > (uint64_t)INT64_MAX)
		return *why = "overflows int64 nanoseconds", TPH_ERANGE;
	*ns = neg ? (int64_t)(0 - total) : (int64_t)total;
	return TPH_OK;
}

/* ---- scalar classification
 * ------------------------------------------------------------------------ */

static const char *const bool_true[] = {"true", "True", "TRUE", "yes", "Yes",
                                        "YES",  "on",   "On",   "ON",  NULL};
static const char *const bool_false[] = {"false", "False", "FALSE", "no",  "No",
                                         "NO",    "off",   "Off",   "OFF", NULL};

static int word_in(const char *s, const char *const *words)
{
	for (int i = 0; words[i]; i++)
		if (strcmp(s, words[i]) == 0)
			return 1;
	return 0;
}

static bool is_int_text(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* YAML 1.2 core float: [-+]? (\.[0-9]+ | [0-9]+(\.[0-9]*)?) ([eE][-+]?[0-9]+)? */
static bool is_float_text(const char *s)
{
	if (*s == '-' || *s == '+')
		s++;
	size_t ip = strspn(s, "0123456789");
	s += ip;
	size_t fp = 0;
	if (*s == '.') {
		fp = strspn(s + 1, "0123456789");
		s += 1 + fp;
	}
	if (ip == 0 && fp == 0)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			s++;
		size_t ep = strspn(s, "0123456789");
		if (ep == 0)
			return false;
		s += ep;
	}
	return *s == '\0';
}

const char *yu_kind(const yu_node *n)
{
	if (n->type == YU_MAP)
		return "a mapping";
	if (n->type == YU_SEQ)
		return "a sequence";
	if (n->type != YU_SCALAR)
		return "nothing";
	if (!yu_plain(n))
		return "a string";
	if (yu_is_null(n))
		return "null";
	const char *s = yu_sv(n);
	if (word_in(s, bool_true) || word_in(s, bool_false))
		return "a boolean";
	if (is_float_text(s))
		return "a number";
	return "a string";
}

/* ---- typed readers
 * ---------------------------------------------------------------------------------- */

int yu_str(yu_ctx *c, const yu_node *n, const char **out)
{
	if (n->type != YU_SCALAR)
		return yu_err(c, n, TPH_EINVAL, "expected a string, got %s", yu_kind(n));
	if (memchr(yu_sv(n), '\0', n->len))
		return yu_err(c, n, TPH_EINVAL, "a string must not contain a NUL character");
	*out = yu_sv(n); /* lives in the document's string arena, which the owner adopts */
	return TPH_OK;
}

int yu_name(yu_ctx *c, const yu_node *n, const char **out)
{
	int rc = yu_want_scalar(c, n, "a name");
	if (rc < 0)
		return rc;
	if (n->len == 0)
		return yu_err(c, n, TPH_EINVAL, "must not be empty");
	if (memchr(yu_sv(n), '/', n->len))
		return yu_err(c, n, TPH_EINVAL, "must not contain '/' (\"%s\")", yu_sv(n));
	return yu_str(c, n, out);
}

int yu_bool(yu_ctx *c, const yu_node *n, bool *out)
{
	if (n->type == YU_SCALAR && yu_plain(n)) {
		if (word_in(yu_sv(n), bool_true))
			return *out = true, TPH_OK;
		if (word_in(yu_sv(n), bool_false))
			return *out = false, TPH_OK;
	}
	if (n->type == YU_SCALAR && !yu_is_null(n))
		return yu_err(c, n, TPH_EINVAL, "expected true or false, got %s (\"%s\")",
		              yu_kind(n), yu_sv(n));
	return yu_err(c, n, TPH_EINVAL, "expected true or false, got %s", yu_kind(n));
}

int yu_int(yu_ctx *c, const yu_node *n, int64_t lo, int64_t hi, int64_t *out)
{
	if (n->type != YU_SCALAR || yu_is_null(n))
		return yu_err(c, n, TPH_EINVAL, "expected an integer, got %s", yu_kind(n));
	const char *s = yu_sv(n);
	if (!yu_plain(n))
		return yu_err(c, n, TPH_EINVAL, "expected an integer, got a string (\"%s\")", s);
	if (!is_int_text(s))
		return yu_err(c, n, TPH_EINVAL, "not an integer (\"%s\")", s);
	bool neg = *s == '-';
	uint64_t v = 0;
	for (const char *p = s + (*s == '-' || *s == '+'); *p; p++) {
		if (v > (UINT64_MAX - 9) / 10)
			return yu_err(c, n, TPH_ERANGE, "integer overflows (\"%s\")", s);
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if ((!neg && v > (uint64_t)INT64_MAX) || (neg && v > (uint64_t)INT64_MAX + 1))
		return yu_err(c, n, TPH_ERANGE, "integer overflows (\"%s\")", s);
	int64_t x = neg ? (int64_t)(0 - v) : (int64_t)v;
	if (x < lo || x > hi)
		return yu_err(c, n, TPH_ERANGE, "%s is out of range [%lld, %lld]", s, (long long)lo,
		              (long long)hi);
	*out = x;
	return TPH_OK;
}

int yu_i32(yu_ctx *c, const yu_node *n, int32_t lo, int32_t hi, int32_t *out)
{
	int64_t v = 0;
	int rc = yu_int(c, n, lo, hi, &v);
	if (rc == TPH_OK)
		*out = (int32_t)v;
	return rc;
}

int yu_float(yu_ctx *c, const yu_node *n, double *out)
{
	if (n->type != YU_SCALAR || yu_is_null(n))
		return yu_err(c, n, TPH_EINVAL, "expected a number, got %s", yu_kind(n));
	const char *s = yu_sv(n);
	if (!yu_plain(n))
		return yu_err(c, n, TPH_EINVAL, "expected a number, got a string (\"%s\")", s);
	if (!is_float_text(s))
		return yu_err(c, n, TPH_EINVAL, "not a number (\"%s\")", s);
	double v = strtod(s, NULL);
	if (!isfinite(v))
		return yu_err(c, n, TPH_ERANGE, "number out of range (\"%s\")", s);
	*out = v;
	return TPH_OK;
}

int yu_time(yu_ctx *c, const yu_node *n, tph_time *out)
{
	int rc = yu_want_scalar(c, n, "a timestamp");
	if (rc < 0)
		return rc;
	const char *why;
	rc = tph_parse_time(yu_sv(n), n->len, out, &why);
	if (rc < 0)
		return yu_err(c, n, rc, "%s (\"%s\")", why, yu_sv(n));
	return TPH_OK;
}

int yu_duration(yu_ctx *c, const yu_node *n, int64_t *ns)
{
	int rc = yu_want_scalar(c, n, "a duration");
	if (rc < 0)
		return rc;
	const char *why;
	rc = tph_parse_duration(yu_sv(n), n->len, ns, &why);
	if (rc < 0)
		return yu_err(c, n, rc, "%s (\"%s\")", why, yu_sv(n));
	return TPH_OK;
}

int yu_enum(yu_ctx *c, const yu_node *n, const char *const *names, int *out)
{
	int rc = yu_want_scalar(c, n, "a string");
	if (rc < 0)
		return rc;
	for (int i = 0; names[i]; i++) {
		if (strcmp(names[i], yu_sv(n)) == 0) {
			*out = i;
			return TPH_OK;
		}
	}
	char list[256];
	size_t len = 0;
	for (int i = 0; names[i] && len < sizeof list; i++)
		len +=
		    (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? "|" : "", names[i]);
	return yu_err(c, n, TPH_EINVAL, "must be one of %s, got \"%s\"", list, yu_sv(n));
}

int yu_quantity(yu_ctx *c, const yu_node *n, const char *res, size_t res_len, int64_t *out)
{
	int rc = yu_want_scalar(c, n, "a quantity");
	if (rc < 0)
		return rc;
	const char *why = NULL;
	rc = tph_quantity_parse(yu_sv(n), n->len, tph_res_unit_of(res, res_len), out, &why);
	if (rc < 0)
		return yu_err(c, n, rc, "%s (\"%s\")", why ? why : "not a quantity", yu_sv(n));
	if (*out > TPH_RES_VALUE_MAX)
		return yu_err(c, n, TPH_ERANGE, "quantity above 2^53 units (\"%s\")", yu_sv(n));
	return TPH_OK;
}

/* Duplicate keys in a free-form mapping: pairwise for small maps, hashed for large ones. */
static int check_unique_keys(yu_ctx *c, const yu_node *map)
{
	size_t n = yu_map_len(map);
	const yu_pair *pairs = map->u.pairs;
	for (size_t i = 0; i < n; i++) {
		yu_node *k = yu_at(c, pairs[i].key);
		if (k->type != YU_SCALAR)
			return yu_err(c, k, TPH_EINVAL, "a key must be a string, got %s",
			              yu_kind(k));
	}
	if (n <= 16) {
		for (size_t i = 1; i < n; i++) {
			yu_node *k = yu_at(c, pairs[i].key);
			for (size_t j = 0; j < i; j++)
				if (strcmp(yu_sv(yu_at(c, pairs[j].key)), yu_sv(k)) == 0)
					return yu_err(c, k, TPH_EINVAL, "duplicate key \"%s\"",
					              yu_sv(k));
		}
		return TPH_OK;
	}
	yu_map m;
	if (yu_map_init(&m, n) < 0)
		return yu_err(c, map, TPH_ENOMEM, "out of memory");
	int rc = TPH_OK;
	for (size_t i = 0; i < n && rc == TPH_OK; i++) {
		yu_node *k = yu_at(c, pairs[i].key);
		int put = yu_map_put(&m, yu_sv(k), k->len, NULL, 0, 0, NULL);
		if (put < 0)
			rc = yu_err(c, k, TPH_ENOMEM, "out of memory");
		else if (put == 0)
			rc = yu_err(c, k, TPH_EINVAL, "duplicate key \"%s\"", yu_sv(k));
	}
	yu_map_free(&m);
	return rc;
}

int yu_check_unique_keys(yu_ctx *c, const yu_node *map)
{
	int rc = yu_want_map(c, map);
	return rc < 0 ? rc : check_unique_keys(c, map);
}

int yu_res_list(yu_ctx *c, const yu_node *n, tph_res_list *out)
{
	int rc = yu_check_unique_keys(c, n);
	if (rc < 0)
		return rc;
	size_t cnt = yu_map_len(n);
	tph_res_item *items = yu_alloc_array(c->arena, cnt, sizeof *items);
	if (!items)
		return yu_err(c, n, TPH_ENOMEM, "out of memory");
	for (size_t i = 0; i < cnt; i++) {
		const yu_pair *p = &n->u.pairs[i];
		yu_node *k = yu_at(c, p->key);
		if (k->len == 0)
			return yu_err(c, k, TPH_EINVAL, "empty resource name");
		yu_push(c, yu_sv(k));
		rc = yu_quantity(c, yu_at(c, p->value), yu_sv(k), k->len, &items[i].value);
		yu_pop(c);
		if (rc < 0)
			return rc;
		if ((rc = yu_str(c, k, &items[i].name)) < 0)
			return rc;
	}
	*out = (tph_res_list){items, (uint32_t)cnt};
	return TPH_OK;
}

int yu_kv_list(yu_ctx *c, const yu_node *n, tph_kv_list *out)
{
	int rc = yu_check_unique_keys(c, n);
	if (rc < 0)
		return rc;
	size_t cnt = yu_map_len(n);
	tph_kv *items = yu_alloc_array(c->arena, cnt, sizeof *items);
	if (!items)
		return yu_err(c, n, TPH_ENOMEM, "out of memory");
	for (size_t i = 0; i < cnt; i++) {
		const yu_pair *p = &n->u.pairs[i];
		yu_node *k = yu_at(c, p->key);
		yu_node *v = yu_at(c, p->value);
		if (k->len == 0 || yu_is_null(k))
			return yu_err(c, k, TPH_EINVAL, "empty key");
		if (v->type != YU_SCALAR) {
			yu_push(c, yu_sv(k));
			rc = yu_err(c, v, TPH_EINVAL, "expected a string, got %s", yu_kind(v));
			yu_pop(c);
			return rc;
		}
		if ((rc = yu_str(c, k, &items[i].key)) < 0)
			return rc;
		if (yu_is_null(v))
			items[i].value = "";
		else if ((rc = yu_str(c, v, &items[i].value)) < 0)
			return rc;
	}
	*out = (tph_kv_list){items, (uint32_t)cnt};
	return TPH_OK;
}

int yu_str_list(yu_ctx *c, const yu_node *n, tph_str_list *out)
{
	int rc = yu_want_seq(c, n);
	if (rc < 0)
		return rc;
	size_t cnt = yu_seq_len(n);
	const char **items = yu_alloc_array(c->arena, cnt, sizeof *items);
	if (!items)
		return yu_err(c, n, TPH_ENOMEM, "out of memory");
	for (size_t i = 0; i < cnt && rc == TPH_OK; i++) {
		yu_node *v = yu_at(c, n->u.items[i]);
		yu_push_idx(c, (int32_t)i);
		rc = yu_want_scalar(c, v, "a string");
		if (rc == TPH_OK)
			rc = yu_str(c, v, &items[i]);
		yu_pop(c);
	}
	if (rc == TPH_OK)
		*out = (tph_str_list){items, (uint32_t)cnt};
	return rc;
}

/* ---- yu_walk handlers
 * ----------------------------------------------------------------------------- */

int yu_f_str(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_str(c, v, (const char **)dst);
}

int yu_f_name(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_name(c, v, (const char **)dst);
}

int yu_f_bool(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_bool(c, v, (bool *)dst);
}

int yu_f_bool_not(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	bool b = false;
	int rc = yu_bool(c, v, &b);
	if (rc == TPH_OK)
		*(bool *)dst = !b;
	return rc;
}

int yu_f_tristate(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	bool b = false;
	int rc = yu_bool(c, v, &b);
	if (rc == TPH_OK)
		*(int *)dst = b ? 1 : 2;
	return rc;
}

int yu_f_i32(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_i32(c, v, INT32_MIN, INT32_MAX, (int32_t *)dst);
}

int yu_f_i32_nonneg(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_i32(c, v, 0, INT32_MAX, (int32_t *)dst);
}

int yu_f_i32_pos(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_i32(c, v, 1, INT32_MAX, (int32_t *)dst);
}

int yu_f_float(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_float(c, v, (double *)dst);
}

int yu_f_time(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_time(c, v, (tph_time *)dst);
}

int yu_f_enum(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_enum(c, v, (const char *const *)aux, (int *)dst);
}

int yu_f_res(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_res_list(c, v, (tph_res_list *)dst);
}

int yu_f_kv(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_kv_list(c, v, (tph_kv_list *)dst);
}

int yu_f_strs(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_str_list(c, v, (tph_str_list *)dst);
}

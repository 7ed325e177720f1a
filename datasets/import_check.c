/* Checks on trace fields before they reach a scenario: integers within bounds, names that are
 * safe as plain YAML scalars, running sums within the cache's totals (TPH_RES_TOTAL_MAX) and
 * distinct names. A bad field is "tephra import: FILE:LINE: column NAME: why", exit 2. */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* A field as messages quote it: cut at 40 bytes, anything but printable ASCII as \xNN. */
static const char *quoted(const char *s, char *buf, size_t cap)
{
	size_t at = 0;
	for (size_t i = 0; s[i] && i < 40 && at + 5 < cap; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch >= 0x20 && ch < 0x7f && ch != '\\')
			buf[at++] = (char)ch;
		else
			at += (size_t)snprintf(buf + at, cap - at, "\\x%02x", ch);
	}
	buf[at] = '\0';
	return buf;
}

bool csv_bad(const csv_reader *c, uint32_t line, const char *col, const char *fmt, ...)
{
	fprintf(stderr, "tephra import: %s:%u: column %s: ", c->path, line, col);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return false;
}

bool csv_int(const csv_reader *c, uint32_t i, const char *col, int64_t lo, int64_t hi,
             bool allow_empty, int64_t *out)
{
	char q[200];
	if (i >= c->n)
		return csv_bad(c, c->line_no, col, "missing (the row has %u fields)", c->n);
	const char *s = c->field[i];
	*out = 0;
	if (!*s)
		return allow_empty || csv_bad(c, c->line_no, col, "empty");
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || errno || isspace((unsigned char)*s))
		return csv_bad(c, c->line_no, col, "not an integer (\"%s\")",
		               quoted(s, q, sizeof q));
	if (v < lo || v > hi)
		return csv_bad(c, c->line_no, col, "%lld is out of range [%lld, %lld]", v,
		               (long long)lo, (long long)hi);
	*out = v;
	return true;
}

bool csv_name(const csv_reader *c, uint32_t i, const char *col, size_t max, bool allow_empty)
{
	char q[200];
	if (i >= c->n)
		return csv_bad(c, c->line_no, col, "missing (the row has %u fields)", c->n);
	const char *s = c->field[i];
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
	if (s[n] || (!n && !allow_empty) || n > max)
		return csv_bad(c, c->line_no, col,
		               "\"%s\" is not a name (1 to %zu of A-Z, a-z, 0-9, '.', '_', '-')",
		               quoted(s, q, sizeof q), max);
	return true;
}

bool csv_sum(const csv_reader *c, const char *col, int64_t v, int64_t limit, int64_t *sum)
{
	if (v > limit - *sum)
		return csv_bad(c, c->line_no, col,
		               "the rows up to here sum to more than %lld (a cluster's total of a "
		               "resource is at most 2^60 units)",
		               (long long)limit);
	*sum += v;
	return true;
}

int csv_names_add(csv_names *ns, const char *s, uint32_t line)
{
	if (ns->n == ns->cap) {
		uint32_t cap = ns->cap ? ns->cap * 2 : 1024;
		csv_name_at *v = realloc(ns->v, cap * sizeof *v);
		if (!v)
			return -1;
		ns->v = v;
		ns->cap = cap;
	}
	char *copy = strdup(s);
	if (!copy)
		return -1;
	ns->v[ns->n++] = (csv_name_at){copy, line};
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const csv_name_at *x = a, *y = b;
	int r = strcmp(x->s, y->s);
	return r ? r : (x->line > y->line) - (x->line < y->line);
}

int csv_names_check(csv_names *ns, const char *path, const char *col)
{
	const csv_reader *c = &(csv_reader){.path = path};
	if (ns->n)
		qsort(ns->v, ns->n, sizeof *ns->v, by_name);
	for (uint32_t i = 1; i < ns->n; i++)
		if (!strcmp(ns->v[i - 1].s, ns->v[i].s)) {
			csv_bad(c, ns->v[i].line, col, "%s is also on line %u", ns->v[i].s,
			        ns->v[i - 1].line);
			return -1;
		}
	return 0;
}

void csv_names_free(csv_names *ns)
{
	for (uint32_t i = 0; i < ns->n; i++)
		free(ns->v[i].s);
	free(ns->v);
	memset(ns, 0, sizeof *ns);
}

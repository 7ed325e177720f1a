/* Go-dialect regexes over PCRE2 (regex_go.h): a one-pass scan refuses what Go's
 * regexp/syntax refuses but PCRE2 would accept, then PCRE2 compiles and matches under limits.
 * Syntax errors that both refuse (an unclosed bracket, a quantifier with nothing before it)
 * are left to PCRE2's message. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "regex_go.h"

#include "mem.h"
#include "tephra/status.h"

#include <pcre2.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct tph_re {
	pcre2_general_context *gen;
	pcre2_code *code;
	pcre2_match_context *mctx;
	pcre2_match_data *md;
};

/* ---- the RE2 gate ---- */

typedef struct gate {
	const char *p;
	size_t n, at;    /* pattern, its length, where the refusal is */
	const char *why; /* NULL while the pattern is acceptable */
} gate;

static size_t refuse(gate *g, size_t at, const char *why)
{
	g->at = at;
	g->why = why;
	return g->n;
}

static bool is_alnum(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The escape at p[i] ('\\'); returns the index of its last byte. Go knows punctuation, the
 * letters below (in a class: not the assertions A b B z) and octal from \0; PCRE2 would take
 * \1-\9, \g and \k as backreferences and many more letters as its own escapes. */
static size_t escape(gate *g, size_t i, bool in_class)
{
	char c = i + 1 < g->n ? g->p[i + 1] : '\0';
	if (c >= '1' && c <= '9')
		return refuse(g, i, "backreferences are not supported (RE2 syntax)");
	if (c == 'g' || c == 'k')
		return refuse(g, i,
		              "backreferences and subroutine calls are not supported (RE2 syntax)");
	if ((unsigned char)c >= 0x80 ||
	    (is_alnum(c) && c != '0' &&
	     !strchr(in_class ? "afnrtvxdDsSwWpP" : "afnrtvxdDsSwWpPAbBz", c)))
		return refuse(g, i, "escape not in RE2 syntax");
	i++;
	if ((c == 'x' || c == 'p' || c == 'P') && i + 1 < g->n && g->p[i + 1] == '{') {
		const char *close = memchr(g->p + i, '}', g->n - i);
		return close ? (size_t)(close - g->p) : g->n;
	}
	return i;
}

/* \Q...\E: literal text up to \E or the end. */
static size_t quoted(const gate *g, size_t i)
{
	for (i += 2; i + 1 < g->n; i++)
		if (g->p[i] == '\\' && g->p[i + 1] == 'E')
			return i + 1;
	return g->n;
}

/* The bracket expression at p[i] ('['); returns the index of its ']' (g->n when unclosed:
 * PCRE2 reports it). A ']' first is a member; [:name:] is a class name. */
static size_t bracket(gate *g, size_t i)
{
	i++;
	if (i < g->n && g->p[i] == '^')
		i++;
	if (i < g->n && g->p[i] == ']')
		i++;
	for (; i < g->n && g->p[i] != ']' && !g->why; i++) {
		if (g->p[i] == '\\') {
			i = escape(g, i, true);
		} else if (g->p[i] == '[' && i + 1 < g->n && g->p[i + 1] == ':') {
			const char *end = strstr(g->p + i + 2, ":]");
			i = end ? (size_t)(end - g->p) + 1 : i;
		}
	}
	return i;
}

/* "(?" at p[i]: Go knows flag groups (?imsU-imsU) and (?flags:...) (flags may be none), and
 * named groups (?P<name>...) and (?<name>...). Everything else after "(?" is Perl or PCRE2's
 * alone. */
static size_t group(gate *g, size_t i)
{
	const char *q = g->p + i + 2;
	if ((q[0] == 'P' && q[1] == '<') || (q[0] == '<' && q[1] != '=' && q[1] != '!'))
		return i + 1;
	if (q[0] == '=' || q[0] == '!' || q[0] == '<')
		return refuse(g, i, "lookaround is not supported (RE2 syntax)");
	size_t k = 0;
	while (q[k] && strchr("imsU-", q[k]))
		k++;
	if (q[k] == ':' || (k > 0 && q[k] == ')'))
		return i + 1 + k;
	return refuse(g, i,
	              "group syntax not in RE2 syntax (only flags i, m, s, U and named groups)");
}

/* A counted repetition {n}, {n,} or {n,m} at p[i]; returns the index of its '}', or i when
 * the brace is a literal (Go and PCRE2 10.42 alike read "{", "{,n}" and "{x}" so). */
static size_t count(gate *g, size_t i)
{
	size_t j = i + 1;
	for (int part = 0; part < 2; part++) {
		unsigned long v = 0;
		size_t d = j;
		for (; j < g->n && g->p[j] >= '0' && g->p[j] <= '9'; j++)
			v = v > TPH_RE_MAX_COUNT ? v : v * 10 + (unsigned long)(g->p[j] - '0');
		if (j == d && (part == 0 || g->p[j] != '}'))
			return i;
		if (v > TPH_RE_MAX_COUNT)
			return refuse(g, d, "repeat count above 1000 (Go's limit)");
		if (j < g->n && g->p[j] == '}')
			return j;
		if (part == 1 || j >= g->n || g->p[j] != ',')
			return i;
		j++;
	}
	return i;
}

/* A repetition operator at p[i]..p[end]; `*rep` is how many operators precede it directly.
 * Go allows one, then a '?' that makes it lazy; PCRE2 reads a trailing '+' as possessive. */
static void repetition(gate *g, size_t i, int *rep)
{
	bool lazy = g->p[i] == '?' && *rep == 1;
	if (*rep >= 1 && !lazy) {
		refuse(g, i,
		       "nested repetition operator (RE2 syntax: one of *, +, ?, {n,m} then ?)");
		return;
	}
	*rep = lazy ? 2 : 1;
}

static void gate_scan(gate *g)
{
	int rep = 0; /* repetition operators directly before p[i] */
	for (size_t i = 0; i < g->n && !g->why; i++) {
		char c = g->p[i];
		size_t end = i;
		if (c == '*' || c == '+' || c == '?' || (c == '{' && (end = count(g, i)) != i)) {
			repetition(g, i, &rep);
			i = end;
			continue;
		}
		rep = 0;
		if (c == '\\')
			i = i + 1 < g->n && g->p[i + 1] == 'Q' ? quoted(g, i) : escape(g, i, false);
		else if (c == '[')
			i = bracket(g, i);
		else if (c == '(' && i + 1 < g->n && g->p[i + 1] == '?')
			i = group(g, i);
		else if (c == '(' && i + 1 < g->n && g->p[i + 1] == '*')
			refuse(g, i, "verbs such as (*ACCEPT) are not RE2 syntax");
	}
}

/* ---- PCRE2 ---- */

static void *re_malloc(size_t n, void *ud)
{
	(void)ud;
	return tph_malloc(n);
}

static void re_free(void *p, void *ud)
{
	(void)ud;
	tph_free(p);
}

/* Compile options that read the pattern as Go does: UTF-8 text, `$` only at the end of the
 * text (Go's default; (?m) still makes it per line), ASCII \d \w \b (no PCRE2_UCP), no \C. */
#define RE_OPTIONS \
	(PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C)

static int re_build(tph_re *re, const char *pattern, size_t len, char *why, size_t cap)
{
	pcre2_compile_context *cc = pcre2_compile_context_create(re->gen);
	if (!cc)
		return TPH_ENOMEM;
	pcre2_set_max_pattern_length(cc, TPH_RE_MAX_LEN);
	pcre2_set_parens_nest_limit(cc, TPH_RE_MAX_NEST);
	int err;
	PCRE2_SIZE off;
	re->code = pcre2_compile((PCRE2_SPTR)pattern, len, RE_OPTIONS, &err, &off, cc);
	pcre2_compile_context_free(cc);
	if (!re->code) {
		if (err == PCRE2_ERROR_HEAP_FAILED)
			return TPH_ENOMEM;
		PCRE2_UCHAR text[160];
		if (pcre2_get_error_message(err, text, sizeof text) < 0)
			snprintf((char *)text, sizeof text, "error %d", err);
		snprintf(why, cap, "%s, at byte %zu", (const char *)text, (size_t)off + 1);
		return TPH_EINVAL;
	}
	re->mctx = pcre2_match_context_create(re->gen);
	re->md = pcre2_match_data_create(1, re->gen);
	if (!re->mctx || !re->md)
		return TPH_ENOMEM;
	pcre2_set_match_limit(re->mctx, TPH_RE_MATCH_LIMIT);
	pcre2_set_depth_limit(re->mctx, TPH_RE_DEPTH_LIMIT);
	pcre2_set_heap_limit(re->mctx, TPH_RE_HEAP_KIB);
	return TPH_OK;
}

int tph_re_compile(const char *pattern, tph_re **out, char *why, size_t cap)
{
	*out = NULL;
	size_t len = strlen(pattern);
	if (len > TPH_RE_MAX_LEN) {
		snprintf(why, cap, "longer than %d bytes", TPH_RE_MAX_LEN);
		return TPH_EINVAL;
	}
	gate g = {.p = pattern, .n = len};
	gate_scan(&g);
	if (g.why) {
		snprintf(why, cap, "%s, at byte %zu", g.why, g.at + 1);
		return TPH_EINVAL;
	}
	tph_re *re = tph_calloc(1, sizeof *re);
	if (!re)
		return TPH_ENOMEM;
	re->gen = pcre2_general_context_create(re_malloc, re_free, NULL);
	int rc = re->gen ? re_build(re, pattern, len, why, cap) : TPH_ENOMEM;
	if (rc != TPH_OK) {
		tph_re_free(re);
		return rc;
	}
	*out = re;
	return TPH_OK;
}

int tph_re_match(tph_re *re, const char *s, size_t n)
{
	int rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, 0, 0, re->md, re->mctx);
	if (rc >= 0)
		return 1;
	if (rc == PCRE2_ERROR_NOMATCH)
		return 0;
	return rc == PCRE2_ERROR_NOMEMORY ? TPH_ENOMEM : TPH_ERANGE;
}

void tph_re_free(tph_re *re)
{
	if (!re)
		return;
	pcre2_match_data_free(re->md);
	pcre2_match_context_free(re->mctx);
	pcre2_code_free(re->code);
	pcre2_general_context_free(re->gen);
	tph_free(re);
}

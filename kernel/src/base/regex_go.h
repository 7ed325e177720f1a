/* Regular expressions read as Go's regexp reads them (RE2 syntax), matched by PCRE2 under hard
 * bounds. Volcano compiles hypernode member regexes with regexp.Compile and selects the nodes
 * whose name MatchString accepts (an unanchored search); this module gives the same answers
 * for every pattern Go accepts that PCRE2 can compile within the limits below, and refuses
 * what Go refuses: backreferences, lookaround, atomic groups, possessive or nested repetition,
 * verbs, recursion, conditionals, escapes and inline flags that Go does not know.
 *
 * Known differences, none of which a Kubernetes node name can show: `\s` also matches a
 * vertical tab and `\v` is PCRE2's vertical-space class (Go: `[\t\n\f\r ]` and the tab only);
 * `\12` and the like are refused as backreferences where Go reads an octal escape.
 *
 * Limits (documented in README's "Bad input" section):
 * - TPH_RE_MAX_LEN bytes of pattern, counts up to TPH_RE_MAX_COUNT (Go's own bound), groups
 *   nested up to TPH_RE_MAX_NEST deep, and a compiled program within PCRE2's 64 KiB link size:
 *   compiling takes a bounded time and memory whatever the pattern.
 * - Per match, at most TPH_RE_MATCH_LIMIT backtracking steps (about 80 us), TPH_RE_DEPTH_LIMIT
 *   nested backtracking frames and TPH_RE_HEAP_KIB of frame memory: a pattern that backtracks
 *   exponentially stops with TPH_ERANGE instead of running for minutes. Real member patterns
 *   need a handful of steps per node name (`^r1-n[0-9]+$`: 3; `^(a|b|-)*$` on a 253-byte name,
 *   the longest Kubernetes allows: 576).
 * Memory comes from tph_malloc, so the allocation-failure tests reach it. */
#ifndef TPH_REGEX_GO_H
#define TPH_REGEX_GO_H

#include <stddef.h>

#define TPH_RE_MAX_LEN     1024
#define TPH_RE_MAX_COUNT   1000
#define TPH_RE_MAX_NEST    100
#define TPH_RE_MATCH_LIMIT 10000
#define TPH_RE_DEPTH_LIMIT 1000
#define TPH_RE_HEAP_KIB    1024

typedef struct tph_re tph_re;

/* Compile `pattern` (NUL-terminated UTF-8). TPH_OK with *out set; TPH_EINVAL with the reason
 * and the byte offset it was found at in why[cap] (e.g. `lookaround is not supported (RE2
 * syntax), at byte 3`); TPH_ENOMEM. */
int tph_re_compile(const char *pattern, tph_re **out, char *why, size_t cap);

/* 1 when `s` (n bytes) holds a match, 0 when not, TPH_ERANGE when a match limit stopped the
 * search, TPH_ENOMEM. Not thread-safe on one tph_re (it owns its match scratch). */
int tph_re_match(tph_re *re, const char *s, size_t n);

void tph_re_free(tph_re *re);

#endif

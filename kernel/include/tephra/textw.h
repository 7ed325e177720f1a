/* An append-only text writer over a caller's buffer, for text made in bulk (the decision log
 * at session close, the reasons plugins give for every refused job): pieces are copied or
 * converted straight into the buffer, without stdio's per-call setup. Every piece is cut where
 * the buffer ends, as snprintf cuts, so a text made piece by piece holds exactly the bytes one
 * snprintf of the whole would. Public: plugins write reasons with it too. */
#ifndef TEPHRA_TEXTW_H
#define TEPHRA_TEXTW_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tph_tw {
	char *b;
	size_t cap; /* > 0: b[cap - 1] is the last byte a NUL may take */
	size_t n;   /* bytes written; b[n] == '\0' and n < cap always */
} tph_tw;

static inline void tph_tw_init(tph_tw *w, char *buf, size_t cap)
{
	*w = (tph_tw){buf, cap, 0};
	buf[0] = '\0';
}

/* `len` bytes of `s` (they need not end in a NUL). */
static inline void tph_tw_mem(tph_tw *w, const char *s, size_t len)
{
	size_t room = w->cap - 1 - w->n;
	if (len > room)
		len = room;
	memcpy(w->b + w->n, s, len);
	w->n += len;
	w->b[w->n] = '\0';
}

static inline void tph_tw_str(tph_tw *w, const char *s)
{
	tph_tw_mem(w, s, strlen(s));
}

/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

/* The decimal digits of `v`, as "%llu" and "%lld" write them. */
void tph_tw_u64(tph_tw *w, uint64_t v);
void tph_tw_i64(tph_tw *w, int64_t v);

/* snprintf's subset that the decision log uses: %s, %c, %d, %u, %lld, %llu and %%, without
 * flags, widths or precisions (any other conversion writes nothing: a test checks every
 * format in use against snprintf). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void tph_tw_fmt(tph_tw *w, const char *fmt, ...);
void tph_tw_vfmt(tph_tw *w, const char *fmt, va_list ap);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif

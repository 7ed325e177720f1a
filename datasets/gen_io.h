/* Shared by the generator and the importers: a splitmix64 PRNG (never rand(): output must be the
 * same bytes on every libc) and a buffered writer with integer, quantity and timestamp
 * formatting that never allocates. */
#ifndef TPH_GEN_IO_H
#define TPH_GEN_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* ---- splitmix64 ---- */

typedef struct gen_rng {
	uint64_t s;
} gen_rng;

static inline uint64_t rng_next(gen_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* An independent stream per section, so changing one count leaves the other sections as
 * they were. */
static inline gen_rng rng_stream(uint64_t seed, uint64_t section)
{
	gen_rng r = {seed ^ (section * 0xd1b54a32d192ed03ull)};
	rng_next(&r);
	return r;
}

/* Uniform in [0, n) (Lemire's multiply-shift; the tiny bias is irrelevant here). */
static inline uint32_t rng_below(gen_rng *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Uniform in [lo, hi]. */
static inline uint32_t rng_range(gen_rng *r, uint32_t lo, uint32_t hi)
{
	return lo + rng_below(r, hi - lo + 1);
}

/* True with probability pct/100. */
static inline bool rng_pct(gen_rng *r, uint32_t pct)
{
	return rng_below(r, 100) < pct;
}

/* Uniform in [0, 1). */
static inline double rng_unit(gen_rng *r)
{
	return (double)(rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

/* An index drawn with the given integer weights. */
uint32_t rng_weighted(gen_rng *r, const uint32_t *w, uint32_t n);

/* ---- buffered writer ---- */

typedef struct gen_out {
	FILE *f;
	size_t n;
	uint64_t total;
	bool err;
	int errnum; /* errno of the first failed write (EOVERFLOW: a line too long for out_fmt) */
	char buf[1 << 16];
} gen_out;

void out_init(gen_out *w, FILE *f);
/* Flush what is buffered; false when any write so far failed. */
bool out_flush(gen_out *w);
void out_mem(gen_out *w, const char *s, size_t n);
void out_str(gen_out *w, const char *s);
void out_u64(gen_out *w, uint64_t v);
/* Zero-padded to `width` digits. */
void out_pad(gen_out *w, uint64_t v, int width);
/* printf-style, for the few lines that are not hot. */
void out_fmt(gen_out *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A quoted cpu-style quantity from milli-units ("2", "500m"). */
void out_milli(gen_out *w, int64_t milli);
/* A memory quantity from bytes ("8Gi"). */
void out_bytes(gen_out *w, int64_t bytes);
/* A quoted RFC 3339 UTC timestamp from seconds since the epoch. */
void out_time(gen_out *w, int64_t secs);

#endif

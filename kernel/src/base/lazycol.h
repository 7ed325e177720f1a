/* A column of uint32 values, all 0 until written, whose pages are written only for the blocks
 * of 1,024 values (a page) that a write reaches: the values are malloc'd, not zeroed, and a
 * block is zeroed on its first write; a read of a block never written gives 0 without touching
 * it. For columns indexed by task of which a run uses few: a zeroed column faults in every page
 * (100k-nodes: ~2 MB a task column, ~500 pages, most never read). The C library's calloc is no
 * substitute: memory the session reuses (already faulted in, free of faults for a memset)
 * came back from it as fresh pages, +700 faults on 10k-standard. */
#ifndef TPH_LAZYCOL_H
#define TPH_LAZYCOL_H

#include <stdbool.h>
#include <stdint.h>

#define TPH_LAZY_SHIFT 10u

typedef struct tph_lazy32 {
	uint32_t *v;
	uint8_t *zeroed; /* [i >> TPH_LAZY_SHIFT]: that block of v holds its values */
	uint32_t n;
} tph_lazy32;

/* n values, all 0; TPH_ENOMEM leaves c empty (tph_lazy32_free is safe on it). */
int tph_lazy32_init(tph_lazy32 *c, uint32_t n);
void tph_lazy32_free(tph_lazy32 *c);
/* Every value 0 again, no page written. */
void tph_lazy32_clear(tph_lazy32 *c);
/* Zero block b of c and mark it. */
void tph_lazy32_zero(tph_lazy32 *c, uint32_t b);

/* Value i of a made column. */
static inline uint32_t tph_lazy32_get(const tph_lazy32 *c, uint32_t i)
{
	return c->zeroed[i >> TPH_LAZY_SHIFT] ? c->v[i] : 0;
}

static inline void tph_lazy32_set(tph_lazy32 *c, uint32_t i, uint32_t x)
{
	if (!c->zeroed[i >> TPH_LAZY_SHIFT])
		tph_lazy32_zero(c, i >> TPH_LAZY_SHIFT);
	c->v[i] = x;
}

#endif

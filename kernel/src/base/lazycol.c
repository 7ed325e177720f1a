/* Columns whose blocks are zeroed on their first write (lazycol.h). */
#include "lazycol.h"

#include "mem.h"

#include "tephra/status.h"

#include <string.h>

int tph_lazy32_init(tph_lazy32 *c, uint32_t n)
{
	*c = (tph_lazy32){0};
	c->v = tph_malloc(((size_t)n + 1) * sizeof *c->v);
	c->zeroed = tph_calloc(((size_t)n >> TPH_LAZY_SHIFT) + 1, 1);
	if (!c->v || !c->zeroed) {
		tph_lazy32_free(c);
		return TPH_ENOMEM;
	}
	c->n = n;
	return TPH_OK;
}

void tph_lazy32_free(tph_lazy32 *c)
{
	tph_free(c->v);
	tph_free(c->zeroed);
	*c = (tph_lazy32){0};
}

void tph_lazy32_clear(tph_lazy32 *c)
{
	if (c->zeroed)
		memset(c->zeroed, 0, ((size_t)c->n >> TPH_LAZY_SHIFT) + 1);
}

void tph_lazy32_zero(tph_lazy32 *c, uint32_t b)
{
	size_t lo = (size_t)b << TPH_LAZY_SHIFT, hi = lo + ((size_t)1 << TPH_LAZY_SHIFT);
	memset(c->v + lo, 0, ((hi < c->n ? hi : c->n) - lo) * sizeof *c->v);
	c->zeroed[b] = 1;
}

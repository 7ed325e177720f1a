/* Column blocks (colmem.h): a pool per heap account, bump-allocated over regions whose 2 MiB
 * aligned interior is advised MADV_HUGEPAGE, with a free list per block size (a session's
 * columns come in a handful of sizes: one per kind of column over its nodes). Every block
 * starts after a header naming its pool, so it can be given back from any call site. */
#include "colmem.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE ((uintptr_t)2 << 20)
#define HDR  ((size_t)64) /* keeps blocks on a cache line */
#define NCLS 8

typedef struct col_hdr {
	struct tph_colpool *pool; /* NULL: a plain tph_malloc block */
	size_t size;              /* bytes after the header */
	struct col_hdr *next;     /* on the free list */
} col_hdr;

_Static_assert(sizeof(col_hdr) <= HDR, "the header fits its cache line");

typedef struct region {
	struct region *next;
} region;

/* Only the thread that entered the owning account touches a pool (mem.h). */
struct tph_colpool {
	region *regions;
	char *ptr, *end;    /* the unused rest of the newest region */
	size_t next_region; /* bytes of the next region: doubles up to REGION_MAX */
	struct {
		size_t size;
		col_hdr *free;
	} cls[NCLS];
};

#define REGION_MIN ((size_t)16 << 20)
#define REGION_MAX ((size_t)256 << 20)

/* Regions are the pool's reserve, not the owner's memory: they go uncharged (the blocks carved
 * from them are charged) and fault injection covers them as any allocation. */
static void *uncharged_malloc(size_t n)
{
	tph_heap_acct *prev = tph_heap_enter(NULL);
	void *p = tph_malloc(n);
	tph_heap_leave(prev);
	return p;
}

static int region_new(struct tph_colpool *cp, size_t need)
{
	size_t size = cp->next_region;
	while (size < need)
		size *= 2;
	region *r = uncharged_malloc(size + HUGE);
	if (!r)
		return -1;
	r->next = cp->regions;
	cp->regions = r;
	uintptr_t lo = ((uintptr_t)(r + 1) + HUGE - 1) & ~(HUGE - 1);
#ifdef MADV_HUGEPAGE
	(void)madvise((void *)lo, size, MADV_HUGEPAGE); /* advice: refused, small pages serve */
#endif
	cp->ptr = (char *)lo;
	cp->end = (char *)lo + size;
	if (cp->next_region < REGION_MAX)
		cp->next_region *= 2;
	return 0;
}

static struct tph_colpool *pool_of(tph_heap_acct *a)
{
	if (!a->pool) {
		a->pool = uncharged_malloc(sizeof *a->pool);
		if (a->pool)
			*a->pool = (struct tph_colpool){.next_region = REGION_MIN};
	}
	return a->pool;
}

/* The free list for blocks of `size` bytes; NULL when every list serves another size. */
static col_hdr **free_list(struct tph_colpool *cp, size_t size)
{
	for (int i = 0; i < NCLS; i++) {
		if (!cp->cls[i].size)
			cp->cls[i].size = size;
		if (cp->cls[i].size == size)
			return &cp->cls[i].free;
	}
	return NULL;
}

/* A block of n bytes from the pool: 0, or 1 when no free list serves its size (a plain block
 * then), or -1 on OOM. */
static int pool_take(struct tph_colpool *cp, size_t n, col_hdr **out)
{
	col_hdr **fl = free_list(cp, n);
	if (!fl)
		return 1;
	if ((*out = *fl)) {
		*fl = (*out)->next;
		return 0;
	}
	size_t bytes = HDR + ((n + HDR - 1) & ~(HDR - 1));
	if ((size_t)(cp->end - cp->ptr) < bytes && region_new(cp, bytes))
		return -1;
	*out = (col_hdr *)cp->ptr;
	cp->ptr += bytes;
	**out = (col_hdr){.pool = cp, .size = n};
	return 0;
}

static bool pooled(void)
{
#ifdef TPH_ARENA_MALLOC /* a block of its own for LSan and valgrind, as the arena does */
	return false;
#else
	return true;
#endif
}

void *tph_col_alloc(size_t n, bool zero)
{
	tph_heap_acct *a = tph_heap_entered();
	struct tph_colpool *cp = NULL;
	if (a && n >= TPH_COL_MIN && pooled() && !(cp = pool_of(a)))
		return NULL;
	col_hdr *h = NULL;
	int rc = cp ? pool_take(cp, n, &h) : 1;
	if (rc < 0)
		return NULL;
	if (rc) {
		if (!(h = uncharged_malloc(HDR + n)))
			return NULL;
		*h = (col_hdr){.size = n};
	}
	tph_heap_charge(h, n);
	void *p = (char *)h + HDR;
	if (zero)
		memset(p, 0, n);
	return p;
}

void tph_col_free(void *p)
{
	if (!p)
		return;
	col_hdr *h = (col_hdr *)((char *)p - HDR);
	if (!h->pool) {
		tph_free(h); /* uncharges it */
		return;
	}
	tph_heap_uncharge(h);
	col_hdr **fl = free_list(h->pool, h->size); /* found: the block was taken from it */
	if (fl) {
		h->next = *fl;
		*fl = h;
	}
}

void tph_colpool_release(tph_heap_acct *a)
{
	struct tph_colpool *cp = a->pool;
	if (!cp)
		return;
	for (region *r = cp->regions, *n; r; r = n) {
		n = r->next;
		tph_free(r);
	}
	tph_free(cp);
	a->pool = NULL;
}

/* Session arena: bump allocation over chunks from a dedicated jemalloc arena, so a session's
 * memory is contiguous, cheap to drop and isolated from the host's heap.
 *
 * jemalloc is used when the process has it (the tephra CLI, the tests and the benchmarks link
 * it; a host may): the references below are weak, so libtephra never links jemalloc and never
 * replaces the host's malloc (a static link would make jemalloc the whole host's malloc, and
 * dlopen cannot load Debian's jemalloc later: its TLS is initial-exec). Without it, chunks come
 * from aligned_alloc; the arena pool (tph_arena_park) keeps them across sessions either way.
 *
 * Under AddressSanitizer the bytes not handed out stay poisoned; with TPH_ARENA_MALLOC every
 * allocation is a malloc block of its own, so LeakSanitizer and valgrind see each one. */
#include "arena.h"

#include "mem.h"
#include "tephra/status.h"

#include <jemalloc/jemalloc.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma weak mallocx
#pragma weak dallocx
#pragma weak mallctl

static bool have_jemalloc(void)
{
	return mallocx && dallocx && mallctl;
}

/* ASan cannot see inside a chunk: it checks only that the whole chunk is live. Poisoning what
 * the arena has not handed out makes an overflow past an allocation a report, as on the heap. */
#ifdef TPH_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n)   ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

struct tph_arena_chunk {
	tph_arena_chunk *next;
	size_t size;  /* usable bytes after the header */
	size_t dirty; /* bytes from data on that may be non-zero; the rest are zero */
	_Alignas(TPH_CACHELINE) char data[];
};

/* A chunk is asked zeroed only from a jemalloc arena that never had memory back: its extents
 * are then fresh mappings, which jemalloc knows are zero, so asking costs nothing and leaves
 * their pages untouched. A reused extent would be purged (its pages faulted in again) or
 * cleared whole: those chunks are taken as they come, and zeroed where handed out. */
static bool zero_is_free(const tph_arena *a)
{
	return a->has_je_arena && !a->je_reused;
}

static tph_arena_chunk *chunk_mem(tph_arena *a, size_t size)
{
	if (tph_mem_should_fail())
		return NULL;
	size_t bytes = sizeof(tph_arena_chunk) + size;
	tph_arena_chunk *c;
	if (!have_jemalloc()) { /* C11 wants a multiple of the alignment */
		c = aligned_alloc(TPH_CACHELINE,
		                  (bytes + TPH_CACHELINE - 1) & ~(size_t)(TPH_CACHELINE - 1));
	} else {
		int flags = MALLOCX_ALIGN(TPH_CACHELINE);
		if (a->has_je_arena)
			flags |= MALLOCX_ARENA(a->je_arena) | MALLOCX_TCACHE_NONE;
		if (zero_is_free(a))
			flags |= MALLOCX_ZERO;
		c = mallocx(bytes, flags);
	}
	if (c) {
		c->dirty = zero_is_free(a) ? 0 : size;
		POISON(c->data, size);
	}
	return c;
}

static void chunk_free(tph_arena *a, tph_arena_chunk *c)
{
	/* jemalloc hands this memory out again, to callers that do not unpoison it. */
	UNPOISON(c->data, c->size);
	a->je_reused = 1;
	if (!have_jemalloc()) {
		free(c);
		return;
	}
	int flags = a->has_je_arena ? (MALLOCX_TCACHE_NONE) : 0;
	dallocx(c, flags);
}

/* ---- TPH_ARENA_MALLOC: one malloc block per allocation ---- */

/* A block's header sits just before the memory handed out, which ends the block, so an
 * overflow runs into the allocator's redzone. */
struct tph_arena_block {
	tph_arena_block *next;
	void *base; /* what posix_memalign returned */
};

static void *block_alloc(tph_arena *a, size_t size, size_t align)
{
	size_t off = align < sizeof(tph_arena_block) ? sizeof(tph_arena_block) : align;
	void *base;
	if (tph_mem_should_fail() || posix_memalign(&base, off, off + size) != 0)
		return NULL;
	tph_arena_block *b = (tph_arena_block *)((char *)base + off) - 1;
	b->next = a->blocks;
	b->base = base;
	a->blocks = b;
	a->reserved += off + size;
	a->allocated += size;
	return b + 1;
}

/* With TPH_ARENA_MALLOC the blocks are all the arena holds. */
static void blocks_free(tph_arena *a)
{
	if (!a->blocks)
		return;
	for (tph_arena_block *b = a->blocks, *n; b; b = n) {
		n = b->next;
		free(b->base);
	}
	a->blocks = NULL;
	a->reserved = 0;
}

/* ---- spare jemalloc arenas ----
 * jemalloc keeps part of an arena's metadata after arena.<i>.destroy, and arenas.create then
 * allocates more: a process that loads scenarios or creates caches in a loop grew by about
 * 6.5 KB per arena for ever (the fuzzers reached their RSS limit after ~10^6 loads). An arena
 * given up is therefore reset (its allocations discarded, its metadata kept) and its index
 * reused by the next init; only beyond TPH_ARENA_SPARE_MAX spare ones is one destroyed. No
 * thread cache holds its memory (MALLOCX_TCACHE_NONE), which reset requires. */
#define TPH_ARENA_SPARE_MAX 256
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned spare[TPH_ARENA_SPARE_MAX], spare_n;

static bool spare_pop(unsigned *ind)
{
	pthread_mutex_lock(&spare_lock);
	bool got = spare_n > 0;
	if (got)
		*ind = spare[--spare_n];
	pthread_mutex_unlock(&spare_lock);
	return got;
}

static void je_arena_ctl(const char *op, unsigned ind)
{
	char name[64];
	snprintf(name, sizeof name, "arena.%u.%s", ind, op);
	mallctl(name, NULL, NULL, NULL, 0);
}

static void spare_push(unsigned ind)
{
	je_arena_ctl("reset", ind);
	pthread_mutex_lock(&spare_lock);
	bool kept = spare_n < TPH_ARENA_SPARE_MAX;
	if (kept)
		spare[spare_n++] = ind;
	pthread_mutex_unlock(&spare_lock);
	if (!kept)
		je_arena_ctl("destroy", ind);
}

int tph_arena_init(tph_arena *a, size_t chunk_size)
{
	memset(a, 0, sizeof *a);
	a->chunk_size = chunk_size ? chunk_size : ((size_t)1 << 20);
	unsigned ind = 0;
	size_t sz = sizeof ind;
	/* Without a dedicated arena we still work, on jemalloc's default ones. */
	if (!TPH_ARENA_MALLOC && have_jemalloc()) {
		bool kept = spare_pop(&ind);
		if (kept || mallctl("arenas.create", &ind, &sz, NULL, 0) == 0) {
			a->je_arena = ind;
			a->has_je_arena = 1;
			a->je_reused = kept; /* a reset arena keeps the extents it had */
		}
	}
	return TPH_OK;
}

static void run_cleanups(tph_arena *a)
{
	while (a->cleanups) {
		tph_arena_cleanup *c = a->cleanups;
		a->cleanups = c->next;
		c->fn(c->ud);
	}
}

void tph_arena_destroy(tph_arena *a)
{
	run_cleanups(a);
	for (tph_arena_chunk *c = a->first, *n; c; c = n) {
		n = c->next;
		chunk_free(a, c);
	}
	blocks_free(a);
	if (a->has_je_arena)
		spare_push(a->je_arena);
	memset(a, 0, sizeof *a);
}

void tph_arena_reset(tph_arena *a)
{
	run_cleanups(a);
	blocks_free(a);
#ifdef TPH_ARENA_ASAN
	for (tph_arena_chunk *c = a->first; c; c = c->next)
		POISON(c->data, c->size); /* handed out before, free again */
#endif
	a->cur = a->first;
	a->ptr = a->first ? a->first->data : NULL;
	a->end = a->first ? a->first->data + a->first->size : NULL;
	a->allocated = 0;
}

/* Move to the next kept chunk that can hold `need` bytes, or append a new one. */
static int next_chunk(tph_arena *a, size_t need)
{
	tph_arena_chunk *c = a->cur ? a->cur->next : a->first;
	while (c && c->size < need)
		c = c->next; /* a too-small kept chunk is skipped until the next reset */
	if (!c) {
		size_t size = need > a->chunk_size ? need : a->chunk_size;
		c = chunk_mem(a, size);
		if (!c)
			return TPH_ENOMEM;
		c->size = size;
		c->next = NULL;
		tph_arena_chunk **tail = &a->first;
		while (*tail)
			tail = &(*tail)->next;
		*tail = c;
		a->reserved += size;
	}
	a->cur = c;
	a->ptr = c->data;
	a->end = c->data + c->size;
	return TPH_OK;
}

/* Hand out `size` bytes; *dirty gets how many of them, from the start, may be non-zero (all of
 * them in a block of its own). */
static void *bump(tph_arena *a, size_t size, size_t align, size_t *dirty)
{
	if (align < 8)
		align = 8;
	*dirty = size;
	if (size > SIZE_MAX / 2)
		return NULL;
	if (TPH_ARENA_MALLOC)
		return block_alloc(a, size, align);
	uintptr_t p = ((uintptr_t)a->ptr + (align - 1)) & ~(uintptr_t)(align - 1);
	if (!a->ptr || p + size > (uintptr_t)a->end) {
		if (next_chunk(a, size + align) != TPH_OK)
			return NULL;
		p = ((uintptr_t)a->ptr + (align - 1)) & ~(uintptr_t)(align - 1);
	}
	size_t off = p - (uintptr_t)a->cur->data;
	if (off + size > a->cur->dirty) {
		*dirty = a->cur->dirty > off ? a->cur->dirty - off : 0;
		a->cur->dirty = off + size;
	}
	a->allocated += (p + size) - (uintptr_t)a->ptr;
	a->ptr = (char *)(p + size);
	UNPOISON((void *)p, size);
	return (void *)p;
}

void *tph_arena_alloc(tph_arena *a, size_t size, size_t align)
{
	size_t dirty;
	return bump(a, size, align, &dirty);
}

/* Only the bytes some earlier use may have written are cleared: a column past a fresh chunk's
 * high mark is zero already, and stays unfaulted until its first use. */
void *tph_arena_calloc(tph_arena *a, size_t count, size_t size, size_t align)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	size_t dirty;
	void *p = bump(a, count * size, align, &dirty);
	if (p && dirty)
		memset(p, 0, dirty);
	return p;
}

char *tph_arena_strndup(tph_arena *a, const char *s, size_t n)
{
	char *d = tph_arena_alloc(a, n + 1, 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

int tph_arena_on_cleanup(tph_arena *a, tph_cleanup_fn fn, void *ud)
{
	tph_arena_cleanup *c = TPH_ARENA_NEW(a, tph_arena_cleanup, 1);
	if (!c)
		return TPH_ENOMEM;
	c->fn = fn;
	c->ud = ud;
	c->next = a->cleanups;
	a->cleanups = c;
	return TPH_OK;
}

/* ---- the pool of parked arenas ---- */

/* All under pool_lock: the parked arenas (rewound copies that own their chunks) and the limit. */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static tph_arena pool[TPH_ARENA_POOL_MAX];
static unsigned pool_n, pool_limit = TPH_ARENA_POOL_DEFAULT;

int tph_arena_take(tph_arena *a, size_t chunk_size)
{
	size_t want = chunk_size ? chunk_size : ((size_t)1 << 20);
	pthread_mutex_lock(&pool_lock);
	for (unsigned i = pool_n; i-- > 0;)
		if (pool[i].chunk_size == want) {
			*a = pool[i];
			pool[i] = pool[--pool_n];
			pthread_mutex_unlock(&pool_lock);
			return TPH_OK;
		}
	pthread_mutex_unlock(&pool_lock);
	return tph_arena_init(a, chunk_size);
}

/* Chunks past the current one were not reached since the last reset: give them back, so a
 * parked arena holds what its last use needed and no more. */
static void drop_unreached(tph_arena *a)
{
	tph_arena_chunk **link = a->cur ? &a->cur->next : &a->first;
	for (tph_arena_chunk *c = *link, *n; c; c = n) {
		n = c->next;
		a->reserved -= c->size;
		chunk_free(a, c);
	}
	*link = NULL;
}

void tph_arena_park(tph_arena *a)
{
	run_cleanups(a);
	drop_unreached(a);
	tph_arena_reset(a);
	bool kept = false;
	pthread_mutex_lock(&pool_lock);
	if (pool_n < pool_limit) {
		pool[pool_n++] = *a;
		kept = true;
	}
	pthread_mutex_unlock(&pool_lock);
	if (!kept)
		tph_arena_destroy(a);
	memset(a, 0, sizeof *a);
}

/* Destroy the parked arenas beyond `keep`; the bytes they held. */
static size_t trim_to(unsigned keep)
{
	tph_arena out[TPH_ARENA_POOL_MAX];
	unsigned n = 0;
	pthread_mutex_lock(&pool_lock);
	while (pool_n > keep)
		out[n++] = pool[--pool_n];
	pthread_mutex_unlock(&pool_lock);
	size_t bytes = 0;
	for (unsigned i = 0; i < n; i++) {
		bytes += out[i].reserved;
		tph_arena_destroy(&out[i]);
	}
	return bytes;
}

size_t tph_arena_pool_trim(void)
{
	return trim_to(0);
}

unsigned tph_arena_pool_set_limit(unsigned n)
{
	pthread_mutex_lock(&pool_lock);
	unsigned old = pool_limit;
	pool_limit = n < TPH_ARENA_POOL_MAX ? n : TPH_ARENA_POOL_MAX;
	n = pool_limit;
	pthread_mutex_unlock(&pool_lock);
	trim_to(n);
	return old;
}

unsigned tph_arena_pool_count(size_t *bytes)
{
	pthread_mutex_lock(&pool_lock);
	unsigned n = pool_n;
	size_t b = 0;
	for (unsigned i = 0; i < n; i++)
		b += pool[i].reserved;
	pthread_mutex_unlock(&pool_lock);
	if (bytes)
		*bytes = b;
	return n;
}

/* The per-session arena: bump allocation from chunks taken from a jemalloc arena of its own,
 * no individual frees, O(1) reset, cleanups for anything that lives outside it.
 *
 * Not thread-safe: an arena belongs to one session and is used from the thread that runs the
 * session's actions. Parallel callbacks never allocate; they write into columns allocated
 * before the parallel region. */
#ifndef TPH_ARENA_H
#define TPH_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct tph_arena_chunk tph_arena_chunk;
typedef void (*tph_cleanup_fn)(void *ud);

typedef struct tph_arena_cleanup {
	tph_cleanup_fn fn;
	void *ud;
	struct tph_arena_cleanup *next;
} tph_arena_cleanup;

typedef struct tph_arena {
	tph_arena_chunk *first;      /* chunks kept across resets, in allocation order */
	tph_arena_chunk *cur;        /* the chunk being bumped */
	char *ptr, *end;             /* free space in cur */
	size_t chunk_size;           /* default size of a new chunk */
	size_t allocated;            /* bytes handed out since the last reset */
	size_t reserved;             /* bytes held in chunks */
	tph_arena_cleanup *cleanups; /* run in reverse registration order */
	unsigned je_arena;           /* jemalloc arena index; 0 when none could be created */
	int has_je_arena;
} tph_arena;

/* Create the arena and its jemalloc arena. chunk_size 0 picks 1 MiB. */
int tph_arena_init(tph_arena *a, size_t chunk_size);
/* Run cleanups, give every chunk back and destroy the jemalloc arena. */
void tph_arena_destroy(tph_arena *a);
/* Run cleanups and rewind to the first chunk, keeping the chunks for reuse: O(1) in the
 * bytes allocated (O(cleanups) for the cleanups). */
void tph_arena_reset(tph_arena *a);

/* `align` must be a power of two (<= 4096). NULL when memory runs out. */
void *tph_arena_alloc(tph_arena *a, size_t size, size_t align);
/* Zeroed; count*size overflow yields NULL. */
void *tph_arena_calloc(tph_arena *a, size_t count, size_t size, size_t align);
/* Copy `n` bytes of `s` plus a NUL. */
char *tph_arena_strndup(tph_arena *a, const char *s, size_t n);
/* Register `fn(ud)` to run at reset or destroy. */
int tph_arena_on_cleanup(tph_arena *a, tph_cleanup_fn fn, void *ud);

#define TPH_CACHELINE 64

#define TPH_ARENA_NEW(a, type, count) \
	((type *)tph_arena_calloc((a), (count), sizeof(type), _Alignof(type)))

#endif

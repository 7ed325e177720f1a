/* The per-session arena: bump allocation from chunks taken from a jemalloc arena of its own,
 * no individual frees, O(1) reset, cleanups for anything that lives outside it.
 *
 * A zeroed allocation clears only the bytes of its chunk that an earlier allocation may have
 * written (below the chunk's high mark): a fresh chunk comes zeroed from jemalloc without its
 * pages being touched, so a column that is never used costs no page fault.
 *
 * For the sanitizers: under AddressSanitizer the bytes of a chunk not handed out are poisoned,
 * so an overflow past an allocation is reported; built with TPH_ARENA_MALLOC=1 (the sanitizer
 * build's default) every allocation is a malloc block of its own, freed at reset or destroy, so
 * LeakSanitizer and valgrind see each one. Then there are no chunks to reuse: reset and park
 * free every block and `reserved` counts the blocks' bytes.
 *
 * Not thread-safe: an arena belongs to one session and is used from the thread that runs the
 * session's actions. Parallel callbacks never allocate; they write into columns allocated
 * before the parallel region. */
#ifndef TPH_ARENA_H
#define TPH_ARENA_H

#include <stddef.h>
#include <stdint.h>

#ifndef TPH_ARENA_MALLOC
#define TPH_ARENA_MALLOC 0
#endif
/* Defined when AddressSanitizer instruments this build (clang's and gcc's spellings). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TPH_ARENA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(TPH_ARENA_ASAN)
#define TPH_ARENA_ASAN 1
#endif

typedef struct tph_arena_chunk tph_arena_chunk;
typedef struct tph_arena_block tph_arena_block;
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
	int je_reused; /* the jemalloc arena had memory back: its chunks are not asked zeroed */
	tph_arena_block *blocks; /* TPH_ARENA_MALLOC: every allocation, newest first */
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

/* ---- the pool of parked arenas ----
 * A host runs one session per scheduling cycle, each needing about the same memory; faulting in
 * fresh chunks (and creating and destroying a jemalloc arena) every cycle costs more than
 * filling them. An arena given back with tph_arena_park keeps its jemalloc arena and the chunks
 * its last use reached, and the next tph_arena_take with the same chunk size starts on them,
 * already rewound. The pool holds at most tph_arena_pool_limit() arenas (TPH_ARENA_POOL_DEFAULT
 * unless set); a park beyond it destroys. Every pool call is thread-safe (one mutex); the
 * arenas themselves stay single-threaded. */
#define TPH_ARENA_POOL_DEFAULT 2
#define TPH_ARENA_POOL_MAX     16

/* A parked arena of `chunk_size` (rewound, no cleanups pending), else a fresh tph_arena_init. */
int tph_arena_take(tph_arena *a, size_t chunk_size);
/* Run cleanups, free the chunks past the last one used since the last reset, rewind and park;
 * destroy instead when the pool is full. `a` is zeroed either way. */
void tph_arena_park(tph_arena *a);
/* Destroy every parked arena; returns the bytes of chunks given back. */
size_t tph_arena_pool_trim(void);
/* Set how many arenas the pool keeps (clamped to TPH_ARENA_POOL_MAX), trimming any excess;
 * returns the previous limit. */
unsigned tph_arena_pool_set_limit(unsigned n);
/* Arenas parked now, and the bytes their chunks hold. */
unsigned tph_arena_pool_count(size_t *bytes);

#define TPH_CACHELINE 64

#define TPH_ARENA_NEW(a, type, count) \
	((type *)tph_arena_calloc((a), (count), sizeof(type), _Alignof(type)))

#endif

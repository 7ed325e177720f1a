/* The allocator every long-lived kernel structure goes through (the cluster cache, loaders,
 * registries). Session memory comes from per-session arenas instead (see session.h).
 * A host may install its own functions before creating any tephra object. */
#ifndef TEPHRA_ALLOC_H
#define TEPHRA_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

typedef struct tph_allocator {
	void *(*malloc_fn)(void *ud, size_t size);
	void *(*realloc_fn)(void *ud, void *ptr, size_t size);
	void (*free_fn)(void *ud, void *ptr);
	void *ud;
} tph_allocator;

/* Install `a` (copied), or restore the default (the C library's, which the tephra CLI links
 * to jemalloc) with NULL. Not thread-safe: call it before anything else. */
void tph_set_allocator(const tph_allocator *a);

/* The installed allocator, for plugins' heap state (tephra/plugin.h, discipline 3) and hosts.
 * tph_calloc fails on overflow; tph_grow grows *arr (of `elem` bytes each) to hold at least
 * `need` elements, updating *cap, and returns 0, or TPH_ENOMEM leaving both unchanged. */
void *tph_malloc(size_t n);
void *tph_calloc(size_t count, size_t size);
void *tph_realloc(void *p, size_t n);
void tph_free(void *p);
int tph_grow(void *arr, uint32_t *cap, uint32_t need, size_t elem);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif

/* The allocator every long-lived kernel structure goes through (the cluster cache, loaders,
 * registries). Session memory comes from per-session arenas instead (see session.h).
 * A host may install its own functions before creating any tephra object. */
#ifndef TEPHRA_ALLOC_H
#define TEPHRA_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tph_allocator {
	void *(*malloc_fn)(void *ud, size_t size);
	void *(*realloc_fn)(void *ud, void *ptr, size_t size);
	void (*free_fn)(void *ud, void *ptr);
	void *ud;
} tph_allocator;

/* Install `a` (copied), or restore the default (the C library's, which the tephra CLI links
 * to jemalloc) with NULL. Not thread-safe: call it before anything else. */
void tph_set_allocator(const tph_allocator *a);

#ifdef __cplusplus
}
#endif
#endif

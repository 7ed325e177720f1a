/* Internal allocation wrappers over the installed tph_allocator, with a fault-injection hook
 * so tests can make the Nth allocation fail and check that every caller fails cleanly. */
#ifndef TPH_MEM_H
#define TPH_MEM_H

#include <stddef.h>
#include <stdint.h>

void *tph_malloc(size_t n);
void *tph_calloc(size_t count, size_t size);
void *tph_realloc(void *p, size_t n);
void tph_free(void *p);
char *tph_strndup(const char *s, size_t n);

/* Grow *arr (of `elem` bytes each) so it holds at least `need` elements; *cap is updated.
 * Returns 0, or TPH_ENOMEM leaving *arr and *cap unchanged. */
int tph_grow(void *arr, uint32_t *cap, uint32_t need, size_t elem);

/* Fault injection (tests only): make the allocation `n` calls from now fail, and every later
 * one while `sticky`. n == 0 turns injection off. Also covers arena chunk allocation. */
void tph_mem_fail_after(long n, int sticky);
/* Allocations attempted since the last tph_mem_fail_after() call. */
long tph_mem_attempts(void);
/* 1 when this allocation must fail (called by every allocation path). */
int tph_mem_should_fail(void);

#endif

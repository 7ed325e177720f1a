/* Internal allocation wrappers over the installed tph_allocator, with a fault-injection hook
 * so tests can make the Nth allocation fail and check that every caller fails cleanly. */
#ifndef TPH_MEM_H
#define TPH_MEM_H

#include <stddef.h>
#include <stdint.h>

#include "tephra/alloc.h" /* tph_malloc, tph_calloc, tph_realloc, tph_free, tph_grow */

char *tph_strndup(const char *s, size_t n);

/* ---- heap accounting ----
 * A session charges to an account the blocks that tph_malloc, tph_calloc, tph_realloc (and so
 * tph_grow and tph_strndup) hand out on its thread while it is entered, so it can report all
 * the memory it holds and not only its arena. An account remembers each charged block with its
 * requested size; freeing a block it never charged (allocated before, or on another thread,
 * such as an OpenMP worker) changes nothing. Only the thread that entered an account touches
 * it. */
typedef struct tph_heap_slot tph_heap_slot;
typedef struct tph_heap_acct {
	tph_heap_slot *slot; /* open addressing over block addresses; NULL until the first charge */
	uint32_t cap, n;     /* slots, blocks charged */
	size_t live;         /* requested bytes of the charged blocks still held */
	size_t peak;         /* the largest live + *base seen */
	const size_t *base; /* bytes the owner holds besides (its arena's), for the peak; or NULL */
	int lost;           /* a block went uncharged because the slot table could not grow */
} tph_heap_acct;

/* Charge this thread's allocations to `a` (NULL: to nothing) until tph_heap_leave; returns the
 * account entered before, to pass to tph_heap_leave. Enters nest. */
tph_heap_acct *tph_heap_enter(tph_heap_acct *a);
void tph_heap_leave(tph_heap_acct *prev);
/* The peak of live + *base, counting the present moment. */
size_t tph_heap_peak(const tph_heap_acct *a);
/* Release the account's own table (the blocks it charged are the owner's to free). */
void tph_heap_release(tph_heap_acct *a);

/* Fault injection (tests only): make the allocation `n` calls from now fail, and every later
 * one while `sticky`. n == 0 turns injection off. Also covers arena chunk allocation. */
void tph_mem_fail_after(long n, int sticky);
/* Allocations attempted since the last tph_mem_fail_after() call. */
long tph_mem_attempts(void);
/* 1 when this allocation must fail (called by every allocation path). */
int tph_mem_should_fail(void);

#endif

/* Allocation wrappers and the fault-injection hook behind every long-lived allocation. */
#include "mem.h"

#include "tephra/alloc.h"
#include "tephra/status.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static void *default_malloc(void *ud, size_t n)
{
	(void)ud;
	return malloc(n);
}

static void *default_realloc(void *ud, void *p, size_t n)
{
	(void)ud;
	return realloc(p, n);
}

static void default_free(void *ud, void *p)
{
	(void)ud;
	free(p);
}

static const tph_allocator default_allocator = {default_malloc, default_realloc, default_free,
                                                NULL};
static tph_allocator current = {default_malloc, default_realloc, default_free, NULL};

/* Fault injection is a test facility, but allocations happen on several threads (the parallel
 * YAML split), so the counters are atomics. */
static _Atomic long fail_countdown;
static _Atomic int fail_sticky;
static _Atomic long attempts;

void tph_set_allocator(const tph_allocator *a)
{
	current = a ? *a : default_allocator;
}

void tph_mem_fail_after(long n, int sticky)
{
	fail_countdown = n;
	fail_sticky = sticky;
	attempts = 0;
}

long tph_mem_attempts(void)
{
	return attempts;
}

int tph_mem_should_fail(void)
{
	atomic_fetch_add_explicit(&attempts, 1, memory_order_relaxed);
	long c = atomic_load_explicit(&fail_countdown, memory_order_relaxed);
	while (c > 0) {
		long next = c == 1 ? (atomic_load(&fail_sticky) ? 1 : 0) : c - 1;
		if (atomic_compare_exchange_weak(&fail_countdown, &c, next))
			return c == 1;
	}
	return 0;
}

/* ---- heap accounting ---- */

struct tph_heap_slot {
	const void *p; /* NULL: empty */
	size_t size;
};

static _Thread_local tph_heap_acct *entered;

tph_heap_acct *tph_heap_enter(tph_heap_acct *a)
{
	tph_heap_acct *prev = entered;
	entered = a;
	return prev;
}

void tph_heap_leave(tph_heap_acct *prev)
{
	entered = prev;
}

static void note_peak(tph_heap_acct *a)
{
	size_t now = a->live + (a->base ? *a->base : 0);
	if (now > a->peak)
		a->peak = now;
}

size_t tph_heap_peak(const tph_heap_acct *a)
{
	size_t now = a->live + (a->base ? *a->base : 0);
	return now > a->peak ? now : a->peak;
}

void tph_heap_release(tph_heap_acct *a)
{
	if (a->slot)
		current.free_fn(current.ud, a->slot);
	a->slot = NULL;
	a->cap = a->n = 0;
}

static uint32_t home(const tph_heap_acct *a, const void *p)
{
	return (uint32_t)(((uintptr_t)p >> 4) * 0x9E3779B97F4A7C15ull >> 32) & (a->cap - 1);
}

static void slot_put(tph_heap_acct *a, const void *p, size_t size)
{
	uint32_t i = home(a, p);
	while (a->slot[i].p)
		i = (i + 1) & (a->cap - 1);
	a->slot[i] = (tph_heap_slot){p, size};
}

/* The table stays at most half full. Its own bytes are the measurement's, not the owner's, and
 * come from the allocator directly (no fault injection: accounting never fails a caller). */
static int slots_room(tph_heap_acct *a)
{
	if (2 * (a->n + 1) <= a->cap)
		return 1;
	uint32_t ncap = a->cap ? 2 * a->cap : 256;
	tph_heap_slot *old = a->slot, *n = current.malloc_fn(current.ud, ncap * sizeof *n);
	if (!n)
		return 0;
	memset(n, 0, ncap * sizeof *n);
	uint32_t ocap = a->cap;
	a->slot = n;
	a->cap = ncap;
	for (uint32_t i = 0; i < ocap; i++)
		if (old[i].p)
			slot_put(a, old[i].p, old[i].size);
	if (old)
		current.free_fn(current.ud, old);
	return 1;
}

static void charge(void *p, size_t size)
{
	tph_heap_acct *a = entered;
	if (!a || !p)
		return;
	if (!slots_room(a)) {
		a->lost = 1;
		return;
	}
	slot_put(a, p, size);
	a->n++;
	a->live += size;
	note_peak(a);
}

/* Forget p if this account charged it (backward-shift deletion keeps probe chains whole). */
static void uncharge(const void *p)
{
	tph_heap_acct *a = entered;
	if (!a || !p || !a->n)
		return;
	uint32_t m = a->cap - 1, i = home(a, p);
	while (a->slot[i].p != p) {
		if (!a->slot[i].p)
			return;
		i = (i + 1) & m;
	}
	note_peak(a);
	a->live -= a->slot[i].size;
	a->n--;
	for (uint32_t j = (i + 1) & m; a->slot[j].p; j = (j + 1) & m) {
		uint32_t h = home(a, a->slot[j].p);
		if (((j - h) & m) >= ((j - i) & m)) {
			a->slot[i] = a->slot[j];
			i = j;
		}
	}
	a->slot[i].p = NULL;
}

/* ---- allocation ---- */

void *tph_malloc(size_t n)
{
	if (tph_mem_should_fail())
		return NULL;
	void *p = current.malloc_fn(current.ud, n ? n : 1);
	charge(p, n);
	return p;
}

void *tph_calloc(size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		return NULL;
	void *p = tph_malloc(count * size);
	if (p)
		memset(p, 0, count * size);
	return p;
}

void *tph_realloc(void *p, size_t n)
{
	if (tph_mem_should_fail())
		return NULL;
	void *q = current.realloc_fn(current.ud, p, n ? n : 1);
	if (q) {
		uncharge(p);
		charge(q, n);
	}
	return q;
}

void tph_free(void *p)
{
	if (!p)
		return;
	uncharge(p);
	current.free_fn(current.ud, p);
}

char *tph_strndup(const char *s, size_t n)
{
	char *d = tph_malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

int tph_grow(void *arr, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return TPH_OK;
	uint64_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	if (ncap > UINT32_MAX || ncap > SIZE_MAX / elem)
		return TPH_ENOMEM;
	void **p = arr;
	void *n = tph_realloc(*p, (size_t)ncap * elem);
	if (!n)
		return TPH_ENOMEM;
	*p = n;
	*cap = (uint32_t)ncap;
	return TPH_OK;
}

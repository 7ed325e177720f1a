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

void *tph_malloc(size_t n)
{
	if (tph_mem_should_fail())
		return NULL;
	return current.malloc_fn(current.ud, n ? n : 1);
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
	return current.realloc_fn(current.ud, p, n ? n : 1);
}

void tph_free(void *p)
{
	if (p)
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

/* Arena tests: alignment, chunk reuse across resets, allocations larger than a chunk, cleanup
 * order, the allocation-failure hook and, under AddressSanitizer, that an overflow past an
 * allocation is reported. Built with TPH_ARENA_MALLOC there are no chunks to reuse: those
 * tests check that reset frees every block instead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>
#include <sys/resource.h>

#include "base/arena.h"
#include "base/mem.h"
#include "tephra/status.h"

static void test_alignment(void **state)
{
	(void)state;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, 4096), TPH_OK);
	for (size_t align = 1; align <= 4096; align *= 2) {
		char *p = tph_arena_alloc(&a, 3, align);
		assert_non_null(p);
		assert_int_equal((uintptr_t)p % (align < 8 ? 8 : align), 0);
		memset(p, 0xab, 3);
	}
	int64_t *v = TPH_ARENA_NEW(&a, int64_t, 100);
	assert_non_null(v);
	for (int i = 0; i < 100; i++)
		assert_int_equal(v[i], 0);
	tph_arena_destroy(&a);
}

static void test_reset_reuses_chunks(void **state)
{
	(void)state;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, 1024), TPH_OK);
	void *first = tph_arena_alloc(&a, 100, 8);
	for (int i = 0; i < 50; i++) /* several chunks */
		assert_non_null(tph_arena_alloc(&a, 100, 8));
	size_t reserved = a.reserved;
	assert_true(reserved >= 5000);
	assert_true(a.allocated >= 5100);
	tph_arena_reset(&a);
	assert_int_equal(a.allocated, 0);
	if (TPH_ARENA_MALLOC) {
		assert_int_equal(a.reserved, 0);
		assert_null(a.blocks);
		tph_arena_destroy(&a);
		return;
	}
	assert_ptr_equal(tph_arena_alloc(&a, 100, 8), first);
	for (int i = 0; i < 50; i++)
		assert_non_null(tph_arena_alloc(&a, 100, 8));
	assert_int_equal(a.reserved, reserved); /* no new chunk */
	tph_arena_destroy(&a);
	assert_null(a.first);
}

static void test_big_allocations(void **state)
{
	(void)state;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, 4096), TPH_OK);
	char *small = tph_arena_alloc(&a, 16, 8);
	char *big = tph_arena_alloc(&a, (size_t)1 << 20, 64);
	assert_non_null(small);
	assert_non_null(big);
	memset(big, 1, (size_t)1 << 20);
	assert_true(a.reserved >= ((size_t)1 << 20));
	char *after = tph_arena_alloc(&a, 16, 8);
	assert_non_null(after);
	assert_true(after < big || after >= big + ((size_t)1 << 20));
	assert_null(tph_arena_alloc(&a, SIZE_MAX - 8, 8));
	assert_null(tph_arena_calloc(&a, SIZE_MAX / 2, 4, 8));
	char *s = tph_arena_strndup(&a, "hello world", 5);
	assert_string_equal(s, "hello");
	tph_arena_destroy(&a);
}

static char order[8];
static char ka[] = "a", kb[] = "b", kx[] = "x", ky[] = "y", kz[] = "z", kq[] = "q";

static void note(void *ud)
{
	strncat(order, ud, sizeof order - strlen(order) - 1);
}

static void test_cleanup_order(void **state)
{
	(void)state;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, 0), TPH_OK);
	order[0] = '\0';
	assert_int_equal(tph_arena_on_cleanup(&a, note, ka), TPH_OK);
	assert_int_equal(tph_arena_on_cleanup(&a, note, kb), TPH_OK);
	tph_arena_reset(&a); /* a reset runs them too, newest first */
	assert_string_equal(order, "ba");
	order[0] = '\0';
	assert_int_equal(tph_arena_on_cleanup(&a, note, kx), TPH_OK);
	assert_int_equal(tph_arena_on_cleanup(&a, note, ky), TPH_OK);
	assert_int_equal(tph_arena_on_cleanup(&a, note, kz), TPH_OK);
	tph_arena_destroy(&a);
	assert_string_equal(order, "zyx");
}

static void test_failure_hook(void **state)
{
	(void)state;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, 4096), TPH_OK);
	tph_mem_fail_after(1, 0);
	assert_null(tph_arena_alloc(&a, 16, 8)); /* the first chunk cannot be had */
	assert_non_null(tph_arena_alloc(&a, 16, 8));
	tph_mem_fail_after(1, 1);
	if (TPH_ARENA_MALLOC) {
		assert_null(tph_arena_alloc(&a, 16, 8)); /* every allocation is one */
		tph_mem_fail_after(0, 0);
		assert_int_equal(tph_arena_on_cleanup(&a, note, kq), TPH_OK);
		tph_mem_fail_after(1, 1);
	} else {
		assert_non_null(tph_arena_alloc(&a, 16, 8)); /* fits the current chunk: none */
		assert_int_equal(tph_arena_on_cleanup(&a, note, kq), TPH_OK);
	}
	assert_null(tph_arena_alloc(&a, 8192, 8));
	assert_null(tph_arena_alloc(&a, 1 << 16, 8));
	assert_true(tph_mem_attempts() >= 2);
	tph_mem_fail_after(0, 0);
	assert_non_null(tph_arena_alloc(&a, 8192, 8));
	order[0] = '\0';
	tph_arena_destroy(&a);
	assert_string_equal(order, "q");
}

/* ---- the pool of parked arenas ---- */

static void test_pool_reuses_chunks(void **state)
{
	(void)state;
	tph_arena_pool_trim();
	tph_arena a, b;
	assert_int_equal(tph_arena_take(&a, 4096), TPH_OK);
	void *first = tph_arena_alloc(&a, 100, 8);
	for (int i = 0; i < 200; i++) /* several chunks */
		assert_non_null(tph_arena_alloc(&a, 100, 8));
	size_t reserved = a.reserved;
	order[0] = '\0';
	assert_int_equal(tph_arena_on_cleanup(&a, note, ka), TPH_OK);
	tph_arena_park(&a);
	assert_string_equal(order, "a"); /* parking runs the cleanups */
	assert_null(a.first);
	size_t bytes;
	assert_int_equal(tph_arena_pool_count(&bytes), 1);
	if (TPH_ARENA_MALLOC) { /* parking freed every block */
		assert_int_equal(bytes, 0);
		assert_int_equal(tph_arena_pool_trim(), 0);
		return;
	}
	assert_int_equal(bytes, reserved);
	/* another chunk size does not take it */
	assert_int_equal(tph_arena_take(&b, 8192), TPH_OK);
	assert_int_equal(b.reserved, 0);
	assert_int_equal(tph_arena_pool_count(NULL), 1);
	tph_arena_destroy(&b);
	/* the same size does, rewound, on the same chunks */
	assert_int_equal(tph_arena_take(&b, 4096), TPH_OK);
	assert_int_equal(tph_arena_pool_count(NULL), 0);
	assert_int_equal(b.allocated, 0);
	assert_int_equal(b.reserved, reserved);
	assert_ptr_equal(tph_arena_alloc(&b, 100, 8), first);
	/* chunks the last use did not reach are given back at park */
	tph_arena_park(&b);
	assert_int_equal(tph_arena_pool_count(&bytes), 1);
	assert_true(bytes < reserved);
	assert_true(bytes >= 4096);
	assert_int_equal(tph_arena_pool_trim(), bytes);
	assert_int_equal(tph_arena_pool_count(NULL), 0);
}

static void test_pool_limit(void **state)
{
	(void)state;
	tph_arena a[4];
	unsigned old = tph_arena_pool_set_limit(2);
	assert_int_equal(old, TPH_ARENA_POOL_DEFAULT);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(tph_arena_take(&a[i], 4096), TPH_OK);
		assert_non_null(tph_arena_alloc(&a[i], 64, 8));
	}
	for (int i = 0; i < 4; i++)
		tph_arena_park(&a[i]); /* the last two are destroyed */
	assert_int_equal(tph_arena_pool_count(NULL), 2);
	assert_int_equal(tph_arena_pool_set_limit(1), 2); /* trims to the new limit */
	assert_int_equal(tph_arena_pool_count(NULL), 1);
	tph_arena_pool_set_limit(0); /* off: park destroys */
	assert_int_equal(tph_arena_pool_count(NULL), 0);
	assert_int_equal(tph_arena_take(&a[0], 4096), TPH_OK);
	tph_arena_park(&a[0]);
	assert_int_equal(tph_arena_pool_count(NULL), 0);
	assert_int_equal(tph_arena_pool_set_limit(1000), 0);
	assert_int_equal(tph_arena_pool_set_limit(TPH_ARENA_POOL_DEFAULT), TPH_ARENA_POOL_MAX);
}

static void *pool_worker(void *ud)
{
	(void)ud;
	for (int i = 0; i < 200; i++) {
		tph_arena a;
		if (tph_arena_take(&a, 4096) != TPH_OK)
			return ud;
		char *p = tph_arena_alloc(&a, 3000, 8);
		if (!p)
			return ud;
		memset(p, i, 3000); /* two threads never hold the same arena */
		for (int k = 0; k < 3000; k++)
			if (p[k] != (char)i)
				return ud;
		tph_arena_park(&a);
	}
	return NULL;
}

static void test_pool_threads(void **state)
{
	(void)state;
	pthread_t th[4];
	static int fail;
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&th[i], NULL, pool_worker, &fail), 0);
	for (int i = 0; i < 4; i++) {
		void *r;
		assert_int_equal(pthread_join(th[i], &r), 0);
		assert_null(r);
	}
	assert_true(tph_arena_pool_count(NULL) <= TPH_ARENA_POOL_DEFAULT);
	tph_arena_pool_trim();
}

/* jemalloc's metadata after many arena lifetimes: destroy + create leaked ~6.5 KB each (a
 * process loading scenarios in a loop grew without bound); spare arenas are reset and reused. */
#include <jemalloc/jemalloc.h>
#pragma weak mallctl

static size_t je_metadata(void)
{
	uint64_t epoch = 1;
	size_t md = 0, sz = sizeof md;
	mallctl("epoch", NULL, NULL, &epoch, sizeof epoch);
	if (mallctl("stats.metadata", &md, &sz, NULL, 0))
		return 0;
	return md;
}

static void test_arena_lifetimes_bounded(void **state)
{
	(void)state;
	if (!mallctl || !je_metadata()) {
		skip(); /* no jemalloc (or no stats): nothing to measure */
		return;
	}
	tph_arena a;
	for (int i = 0; i < 50; i++) { /* warm: the spare list and jemalloc's own caches */
		assert_int_equal(tph_arena_init(&a, 4096), TPH_OK);
		assert_non_null(tph_arena_alloc(&a, 100, 8));
		tph_arena_destroy(&a);
	}
	size_t before = je_metadata();
	for (int i = 0; i < 2000; i++) {
		assert_int_equal(tph_arena_init(&a, 4096), TPH_OK);
		assert_non_null(tph_arena_alloc(&a, 100, 8));
		tph_arena_destroy(&a);
	}
	size_t after = je_metadata();
	/* 2000 leaked lifetimes were ~13 MB; a reused arena costs nothing new */
	assert_true(after < before + ((size_t)1 << 20));
}

/* ---- zeroed allocations: only bytes an earlier use may have written are cleared ---- */

static long minor_faults(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_minflt;
}

static void assert_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			fail_msg("byte %zu of %zu is %u", i, n, p[i]);
}

/* An arena on a jemalloc arena of its own that never had memory back (the other tests leave
 * spare ones, which tph_arena_init takes first): the others taken meanwhile are destroyed. */
static void fresh_arena(tph_arena *a, size_t chunk)
{
	static tph_arena spare[300];
	int n = 0;
	assert_int_equal(tph_arena_init(a, chunk), TPH_OK);
	while (a->je_reused && n < 300) {
		spare[n++] = *a;
		assert_int_equal(tph_arena_init(a, chunk), TPH_OK);
	}
	while (n > 0)
		tph_arena_destroy(&spare[--n]);
}

/* After a reset a zeroed allocation may start inside what the last use wrote and end past it,
 * or end exactly where that use ended. */
static void test_calloc_over_written_bytes(void **state)
{
	(void)state;
	tph_arena a;
	fresh_arena(&a, 4096);
	unsigned char *p = tph_arena_alloc(&a, 1000, 8);
	memset(p, 0xab, 1000);
	tph_arena_reset(&a);
	unsigned char *q = tph_arena_calloc(&a, 3000, 1, 8);
	assert_non_null(q);
	assert_zero(q, 3000);
	memset(q, 0xcd, 3000);
	tph_arena_reset(&a);
	assert_non_null(tph_arena_alloc(&a, 504, 8));
	unsigned char *r = tph_arena_calloc(&a, 2496, 1, 8); /* ends where q ended */
	assert_non_null(r);
	assert_zero(r, 2496);
	int64_t *v = TPH_ARENA_NEW(&a, int64_t, 64); /* past q: never written */
	assert_non_null(v);
	assert_zero((const unsigned char *)v, 64 * sizeof *v);
	tph_arena_destroy(&a);
}

/* A zeroed allocation from a fresh chunk writes none of its pages (the chunk came zeroed from
 * a jemalloc arena that never had memory back); reading it gives zeros. */
static void test_fresh_calloc_touches_no_page(void **state)
{
	(void)state;
	size_t n = (size_t)32 << 20;
	long pages = (long)(n / 4096);
	tph_arena a;
	fresh_arena(&a, (size_t)64 << 20);
	long f0 = minor_faults();
	unsigned char *p = tph_arena_calloc(&a, n, 1, TPH_CACHELINE);
	long taken = minor_faults() - f0;
	assert_non_null(p);
	if (!TPH_ARENA_MALLOC && mallctl) /* otherwise memset clears it: a fault a page */
		assert_in_range(taken, 0, pages / 64);
	assert_zero(p, n);
	tph_arena_destroy(&a);
}

/* A spare jemalloc arena keeps the extents it had, written: its chunks are cleared where
 * handed out, not asked zeroed (jemalloc would drop their pages, to be faulted in again). */
static void test_calloc_on_spare_arena(void **state)
{
	(void)state;
	size_t n = (size_t)4 << 20;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, n), TPH_OK);
	unsigned char *p = tph_arena_alloc(&a, n, TPH_CACHELINE);
	assert_non_null(p);
	memset(p, 0xee, n);
	tph_arena_destroy(&a);
	assert_int_equal(tph_arena_init(&a, n), TPH_OK);
	long f0 = minor_faults();
	unsigned char *q = tph_arena_calloc(&a, n, 1, TPH_CACHELINE);
	assert_non_null(q);
	assert_zero(q, n);
	long taken = minor_faults() - f0;
	if (!TPH_ARENA_MALLOC && mallctl)
		assert_in_range(taken, 0, (long)(n / 4096) / 8);
	tph_arena_destroy(&a);
}

/* ---- under AddressSanitizer: overflows inside the arena are reported ---- */

#ifdef TPH_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Poisoned right past an allocation and, after a reset, where it was (a chunk's free bytes,
 * or with TPH_ARENA_MALLOC a block's redzone and a freed block). */
static void test_poisoned_beyond(void **state)
{
	(void)state;
	tph_arena a;
	assert_int_equal(tph_arena_init(&a, 4096), TPH_OK);
	char *p = tph_arena_alloc(&a, 3, 8);
	char *q = tph_arena_alloc(&a, 100, 8);
	assert_false(__asan_address_is_poisoned(p + 2));
	assert_true(__asan_address_is_poisoned(p + 3));
	assert_false(__asan_address_is_poisoned(q + 99));
	assert_true(__asan_address_is_poisoned(q + 100));
	tph_arena_reset(&a);
	assert_true(__asan_address_is_poisoned(p));
	assert_true(__asan_address_is_poisoned(q + 50));
	tph_arena_destroy(&a);
}

/* fn() in a child whose stderr goes to /dev/null (a sanitizer report expected there is noise
 * here); the child's wait status. */
static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, STDERR_FILENO);
		_exit(fn());
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

/* Writes one byte past an arena allocation: 0 if that went unseen, 3 if it could not set up. */
static int overflow_by_one(void)
{
	tph_arena a;
	if (tph_arena_init(&a, 4096) != TPH_OK)
		return 3;
	volatile char *p = tph_arena_alloc(&a, 5, 8);
	if (!p)
		return 3;
	p[5] = 1;
	return 0;
}

/* The death test: ASan must end the overflowing child with a failure (exit 1, or SIGABRT under
 * abort_on_error). */
static void test_overflow_reported(void **state)
{
	(void)state;
	int status = in_child(overflow_by_one);
	if (WIFEXITED(status)) {
		assert_int_not_equal(WEXITSTATUS(status), 0); /* the overflow went unseen */
		assert_int_not_equal(WEXITSTATUS(status), 3);
	} else {
		assert_true(WIFSIGNALED(status));
	}
}

#if TPH_ARENA_MALLOC
#include <sanitizer/lsan_interface.h>
#include <stdlib.h>

/* An arena whose one block is lost: its only pointer forgotten, the arena itself freed. Not
 * inlined, so the pointers it held are in a dead frame the caller overwrites. */
static __attribute__((noinline)) int lose_block(void)
{
	tph_arena *a = malloc(sizeof *a);
	if (!a || tph_arena_init(a, 4096) != TPH_OK || !tph_arena_alloc(a, 40, 8))
		return -1;
	a->blocks = NULL;
	free(a);
	return 0;
}

static __attribute__((noinline)) void clobber_stack(void)
{
	volatile char junk[4096];
	memset((char *)junk, 0, sizeof junk);
}

/* 1 when LeakSanitizer finds the lost block, 0 when not, 3 if it could not set up. */
static int leak_one(void)
{
	if (lose_block() != 0)
		return 3;
	clobber_stack();
	return __lsan_do_recoverable_leak_check() ? 1 : 0;
}

/* With TPH_ARENA_MALLOC, LeakSanitizer sees an arena allocation nobody can free any more. */
static void test_leak_reported(void **state)
{
	(void)state;
	int status = in_child(leak_one);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
}
#endif
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alignment),
		cmocka_unit_test(test_reset_reuses_chunks),
		cmocka_unit_test(test_big_allocations),
		cmocka_unit_test(test_cleanup_order),
		cmocka_unit_test(test_failure_hook),
		cmocka_unit_test(test_pool_reuses_chunks),
		cmocka_unit_test(test_pool_limit),
		cmocka_unit_test(test_pool_threads),
		cmocka_unit_test(test_arena_lifetimes_bounded),
		cmocka_unit_test(test_calloc_over_written_bytes),
		cmocka_unit_test(test_fresh_calloc_touches_no_page),
		cmocka_unit_test(test_calloc_on_spare_arena),
#ifdef TPH_ARENA_ASAN
		cmocka_unit_test(test_poisoned_beyond),
		cmocka_unit_test(test_overflow_reported),
#if TPH_ARENA_MALLOC
		cmocka_unit_test(test_leak_reported),
#endif
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

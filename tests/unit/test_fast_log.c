/* Unit tests for kernel/actions/allocate/allocate_fast_log.c: af_touched gives the distinct
 * ready positions logged since a point, as a dedupe of the log's entries would, whichever way
 * it takes (a walk of the entries, a scan of the positions for long ranges, a sort of many),
 * in ascending order when they are many, with nodes that are not ready left out and the log
 * growing between calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "allocate/allocate_fast.h"
#include "base/mem.h"

enum {
	NODES = 1000,
	READY = 900,
	LOG = 20000
};

/* Node i is ready at position i - 100 (the first 100 nodes are not ready). */
static void setup(alloc_fast *f)
{
	memset(f, 0, sizeof *f);
	f->n = READY;
	f->pos = malloc(NODES * sizeof *f->pos);
	f->plist = malloc((READY + 1) * sizeof *f->plist);
	assert_non_null(f->pos);
	assert_non_null(f->plist);
	for (uint32_t i = 0; i < NODES; i++)
		f->pos[i] = i < NODES - READY ? UINT32_MAX : i - (NODES - READY);
	assert_int_equal(af_recent_init(f), 0);
}

static void teardown(alloc_fast *f)
{
	af_recent_free(f);
	free(f->pos);
	free(f->plist);
}

/* The dedupe of log[seen..n_log) against f->plist[0..k). */
static void check(alloc_fast *f, const tph_idx *log, uint32_t seen, uint32_t n_log, uint32_t k)
{
	static uint8_t want[READY], got[READY];
	uint32_t n_want = 0;
	memset(want, 0, sizeof want);
	memset(got, 0, sizeof got);
	for (uint32_t i = seen; i < n_log; i++) {
		uint32_t p = f->pos[log[i]];
		if (p != UINT32_MAX && !want[p]++)
			n_want++;
	}
	if (k != n_want)
		fail_msg("log %u..%u: %u positions, want %u", seen, n_log, k, n_want);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = f->plist[i];
		assert_true(p < READY);
		assert_true(want[p]);
		assert_false(got[p]++); /* each once */
		if ((uint64_t)k * 8 > READY && i)
			assert_true(f->plist[i - 1] < p);
	}
}

static void test_touched(void **state)
{
	(void)state;
	alloc_fast f;
	setup(&f);
	tph_idx *log = malloc(LOG * sizeof *log);
	assert_non_null(log);
	unsigned seed = 11;
	uint32_t n_log = 0, cells[READY + 1];
	while (n_log < LOG) {
		/* a burst of touches, often on a few hot nodes (repeats), sometimes spread */
		uint32_t burst = 1 + (uint32_t)rand_r(&seed) % (rand_r(&seed) % 8 ? 40 : 900);
		for (uint32_t b = 0; b < burst && n_log < LOG; b++)
			log[n_log++] = (tph_idx)(rand_r(&seed) % 3 ? 100 + rand_r(&seed) % 120
			                                           : rand_r(&seed) % NODES);
		for (int q = 0; q < 4; q++) { /* recent points, and far ones for the scan */
			uint32_t back =
			    (uint32_t)rand_r(&seed) % (q == 3 ? n_log + 1 : 60u + q * 300);
			uint32_t seen = back > n_log ? 0 : n_log - back;
			uint32_t k = af_touched(&f, seen, log, n_log, cells, sizeof *cells);
			check(&f, log, seen, n_log, k);
		}
	}
	assert_int_equal(af_touched(&f, n_log, log, n_log, cells, sizeof *cells), 0);
	free(log);
	teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_touched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

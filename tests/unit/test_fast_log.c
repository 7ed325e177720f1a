/* Unit tests for kernel/actions/allocate/allocate_fast_log.c: af_touched gives the distinct
 * ready positions logged since a point, as a dedupe of the log's entries would, whichever way
 * it takes (a walk of the entries, a scan of the positions for long ranges, a sort of many),
 * in ascending order when they are many, with nodes that are not ready left out and the log
 * growing between calls; af_room keeps each ready position's FutureIdle and Idle equal to the
 * node store's columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "allocate/allocate_fast.h"
#include "base/mem.h"
#include "session/session_int.h"

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

/* ---- af_room: FutureIdle and Idle by position, kept from the log ---- */

enum {
	DIMS = 5 /* two cache lines a position */
};

static int64_t col_idle[DIMS * NODES], col_rel[DIMS * NODES], col_pipe[DIMS * NODES];

static void room_session(alloc_fast *f, tph_session *s, tph_idx *ready)
{
	memset(s, 0, sizeof *s);
	s->ndim = DIMS;
	s->nodes.n = s->nodes.stride = NODES;
	s->nodes.idle = col_idle;
	s->nodes.releasing = col_rel;
	s->nodes.pipelined = col_pipe;
	for (uint32_t i = 0; i < READY; i++)
		ready[i] = (tph_idx)(i + NODES - READY);
	s->ready_nodes = ready;
	s->n_ready = READY;
	f->s = s;
}

/* A node's columns changed at random (what a placement or an undo does). */
static void move_node(unsigned *seed, tph_idx node)
{
	for (uint32_t d = 0; d < DIMS; d++) {
		size_t at = (size_t)d * NODES + node;
		col_idle[at] = rand_r(seed) % 1000 - 100;
		col_rel[at] = rand_r(seed) % 50;
		col_pipe[at] = rand_r(seed) % 70;
	}
}

static void check_room(const alloc_fast *f, const int64_t *room)
{
	assert_non_null(room);
	assert_int_equal((uintptr_t)room % 64, 0);
	for (uint32_t p = 0; p < READY; p++)
		for (uint32_t d = 0; d < DIMS; d++) {
			size_t at = (size_t)d * NODES + f->s->ready_nodes[p];
			const int64_t *r = room + (size_t)p * f->rec.rw;
			if (r[d] != col_idle[at] + col_rel[at] - col_pipe[at] ||
			    r[DIMS + d] != col_idle[at])
				fail_msg("position %u, dimension %u: room %lld / %lld", p, d,
				         (long long)r[d], (long long)r[DIMS + d]);
		}
}

/* Every node whose columns change is logged before the next read; af_touched walks feed the
 * log in between, as the shapes' walks do. A lost entry (a change with no entry) fills the
 * whole room again. Fails when feeding stops refreshing a logged node, or a lost counter
 * that moved is ignored. */
static void test_room(void **state)
{
	(void)state;
	alloc_fast f;
	tph_session s;
	static tph_idx ready[READY], log[LOG];
	setup(&f);
	room_session(&f, &s, ready);
	unsigned seed = 5;
	for (tph_idx i = 0; i < NODES; i++)
		move_node(&seed, i);
	uint32_t n_log = 0, lost = 0, cells[READY + 1];
	check_room(&f, af_room(&f, log, n_log, lost));
	while (n_log + 60 < LOG) {
		for (uint32_t b = 1 + (uint32_t)rand_r(&seed) % 50; b; b--) {
			tph_idx node = (tph_idx)(rand_r(&seed) % NODES);
			move_node(&seed, node);
			log[n_log++] = node;
		}
		if (rand_r(&seed) % 3 == 0) /* a shape's walk feeds the log first */
			af_touched(&f, n_log - 1, log, n_log, cells, sizeof *cells);
		if (rand_r(&seed) % 16 == 0) { /* a touch that could not be logged */
			move_node(&seed, (tph_idx)(NODES - 1 - rand_r(&seed) % READY));
			lost++;
		}
		check_room(&f, af_room(&f, log, n_log, lost));
	}
	teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_touched),
	    cmocka_unit_test(test_room),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

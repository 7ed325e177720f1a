/* Unit tests for kernel/actions/allocate/allocate_fast_log.c: af_touched gives the distinct
 * ready positions logged since a point, as a dedupe of the log's entries would, whichever way
 * it takes (a walk of the entries, a scan of the positions for long ranges, a sort of many),
 * in ascending order when they are many, with nodes that are not ready left out and the log
 * growing between calls; inside a sync, af_stale_list gives each consumer the same positions
 * from the shape's walk (or its own) and leaves the shape's list in place, and af_hn_since tells
 * whether a node in a hypernode was logged since a point; af_room keeps each ready position's
 * FutureIdle and Idle equal to the node store's columns; a list walk that reads ahead stops
 * asking before the list's end (af_ahead_end, af_ahead_end_by). */
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
#include "tephra/topology.h"

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

/* The dedupe of log[seen..n_log) against list[0..k). */
static void check_list(alloc_fast *f, const tph_idx *log, uint32_t seen, uint32_t n_log,
                       const uint32_t *list, uint32_t k)
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
		uint32_t p = list[i];
		assert_true(p < READY);
		assert_true(want[p]);
		assert_false(got[p]++); /* each once */
		if ((uint64_t)k * 8 > READY && i)
			assert_true(list[i - 1] < p);
	}
}

static void check(alloc_fast *f, const tph_idx *log, uint32_t seen, uint32_t n_log, uint32_t k)
{
	check_list(f, log, seen, n_log, f->plist, k);
}

/* A burst of touches onto log[*n_log..), often on a few hot nodes (repeats), sometimes
 * spread. */
static void burst(unsigned *seed, tph_idx *log, uint32_t *n_log)
{
	uint32_t b = 1 + (uint32_t)rand_r(seed) % (rand_r(seed) % 8 ? 40 : 900);
	for (uint32_t i = 0; i < b && *n_log < LOG; i++)
		log[(*n_log)++] =
		    (tph_idx)(rand_r(seed) % 3 ? 100 + rand_r(seed) % 120 : rand_r(seed) % NODES);
}

/* The fast path's log state over room for LOG entries. */
static tph_idx *log_open(alloc_fast *f)
{
	setup(f);
	tph_idx *log = malloc(LOG * sizeof *log);
	assert_non_null(log);
	return log;
}

static void log_close(alloc_fast *f, tph_idx *log)
{
	free(log);
	teardown(f);
}

/* A point at most `back` entries before n_log, or any. */
static uint32_t point(unsigned *seed, uint32_t n_log, uint32_t back)
{
	uint32_t b = (uint32_t)rand_r(seed) % (back ? back : n_log + 1);
	return b > n_log ? 0 : n_log - b;
}

static void test_touched(void **state)
{
	(void)state;
	alloc_fast f;
	tph_idx *log = log_open(&f);
	unsigned seed = 11;
	uint32_t n_log = 0, cells[READY + 1];
	while (n_log < LOG) {
		burst(&seed, log, &n_log);
		for (int q = 0; q < 4; q++) { /* recent points, and far ones for the scan */
			uint32_t seen = point(&seed, n_log, q == 3 ? 0 : 60u + q * 300);
			uint32_t k = af_touched(&f, seen, log, n_log, cells, sizeof *cells);
			check(&f, log, seen, n_log, k);
		}
	}
	assert_int_equal(af_touched(&f, n_log, log, n_log, cells, sizeof *cells), 0);
	log_close(&f, log);
}

/* One sync: the shape's walk from `sh` (or none, a whole build), then consumers at points
 * before, at and after it, each given the positions af_touched gives for its point, or NOPOS
 * where af_stale would; the shape's list stays. */
static void sync_once(alloc_fast *f, unsigned *seed, const tph_idx *log, uint32_t n_log)
{
	static uint32_t shape[READY + 1];
	uint32_t cells[READY + 1], sh = point(seed, n_log, rand_r(seed) % 4 ? 300 : 0);
	bool whole = rand_r(seed) % 5 == 0;
	uint32_t k = af_stale(f, cells, sizeof *cells, whole, sh, 0, log, n_log, 0);
	memcpy(shape, f->plist, (k == UINT32_MAX ? 0 : k) * sizeof *shape);
	af_walk_begin(f, k, sh, n_log);
	for (int c = 0; c < 5; c++) {
		uint32_t seen = c == 0 ? sh : point(seed, n_log, 400), lost = c == 4;
		bool cwhole = rand_r(seed) % 9 == 0;
		const uint32_t *list;
		uint32_t m = af_stale_list(f, cells, sizeof *cells, cwhole, seen, lost, log, n_log,
		                           0, &list);
		if (cwhole || lost || n_log - seen > 4 * READY)
			assert_int_equal(m, UINT32_MAX);
		else
			check_list(f, log, seen, n_log, list, m);
		if (k != UINT32_MAX)
			assert_memory_equal(f->plist, shape, k * sizeof *shape);
	}
	af_walk_end(f);
	uint32_t seen = point(seed, n_log, 300);
	const uint32_t *list;
	uint32_t m = af_stale_list(f, cells, sizeof *cells, false, seen, 0, log, n_log, 0, &list);
	assert_ptr_equal(list, f->plist); /* outside a sync: af_stale */
	check(f, log, seen, n_log, m);
}

static void test_shared_walk(void **state)
{
	(void)state;
	alloc_fast f;
	tph_idx *log = log_open(&f);
	unsigned seed = 5;
	uint32_t n_log = 0;
	while (n_log < LOG) {
		burst(&seed, log, &n_log);
		for (int q = 0; q < 3; q++)
			sync_once(&f, &seed, log, n_log);
	}
	log_close(&f, log);
}

/* Nodes divisible by 7 lie in a hypernode: af_hn_since against the log's entries. */
static void test_hn_since(void **state)
{
	(void)state;
	alloc_fast f;
	tph_idx *log = log_open(&f);
	static uint32_t of_off[NODES + 1];
	for (uint32_t i = 0; i <= NODES; i++)
		of_off[i] = (i + 6) / 7; /* node i holds one hypernode when i % 7 == 0 */
	static tph_topo tp;
	static tph_session s;
	tp.t.of_off = of_off;
	s.topo = &tp;
	f.s = &s;
	unsigned seed = 3;
	uint32_t n_log = 0, cells[READY + 1];
	while (n_log < LOG) {
		uint32_t b = 1 + (uint32_t)rand_r(&seed) % 30;
		for (uint32_t i = 0; i < b && n_log < LOG; i++) /* in a hypernode: 1 in 100 */
			log[n_log++] = (tph_idx)(rand_r(&seed) % 100 ? 7 * (rand_r(&seed) % 140) + 1
			                                             : 7 * (rand_r(&seed) % 140));
		af_touched(&f, n_log, log, n_log, cells, sizeof *cells); /* feeds the log */
		for (int q = 0; q < 4; q++) {
			uint32_t seen = point(&seed, n_log, q == 3 ? 0 : 200), want = 0;
			for (uint32_t i = seen; i < n_log; i++)
				want |= log[i] % 7 == 0;
			assert_int_equal(af_hn_since(&f, seen, n_log), want);
		}
	}
	s.topo = NULL; /* no topology: every node asks */
	assert_true(af_hn_since(&f, n_log - 1, n_log));
	assert_false(af_hn_since(&f, n_log, n_log));
	log_close(&f, log);
}

/* ---- undone dry runs (af_undone) ---- */

enum {
	DEPTH = 3, /* dry runs inside dry runs, as a job's run holds its subjobs' */
	UNDO_LOG = 6000
};

/* The log with its undone spans: an entry is undone when a span holds it; a point inside a
 * span (b < seen < e) reads every entry after it. */
typedef struct undo_model {
	tph_idx log[UNDO_LOG];
	bool undone[UNDO_LOG];
	uint32_t n_log, b[UNDO_LOG], e[UNDO_LOG], n_span;
} undo_model;

static bool inside(const undo_model *m, uint32_t seen)
{
	for (uint32_t i = 0; i < m->n_span; i++)
		if (m->b[i] < seen && seen < m->e[i])
			return true;
	return false;
}

/* The positions to read again for columns current as of `seen`: those with an entry after it
 * that no span undid (every entry when `seen` lies inside a span), each once. */
static void check_undone_list(const alloc_fast *f, const undo_model *m, uint32_t seen,
                              const uint32_t *list, uint32_t k)
{
	static uint8_t want[READY], got[READY];
	uint32_t n_want = 0;
	bool all = inside(m, seen);
	memset(want, 0, sizeof want);
	memset(got, 0, sizeof got);
	for (uint32_t i = seen; i < m->n_log; i++) {
		uint32_t p = f->pos[m->log[i]];
		if (p != UINT32_MAX && (all || !m->undone[i]) && !want[p]++)
			n_want++;
	}
	if (k != n_want)
		fail_msg("seen %u of %u: %u positions, want %u", seen, m->n_log, k, n_want);
	for (uint32_t i = 0; i < k; i++) {
		assert_true(list[i] < READY);
		assert_true(want[list[i]]);
		assert_false(got[list[i]]++);
	}
}

/* A consumer's copy of each position's value, brought up to date from its list. */
typedef struct undo_user {
	uint32_t seen;
	int val[READY];
} undo_user;

static void user_read(const alloc_fast *f, undo_user *u, const int *val, const uint32_t *list,
                      uint32_t k)
{
	for (uint32_t i = 0; i < k; i++)
		u->val[list[i]] = val[list[i]];
	for (uint32_t p = 0; p < READY; p++) /* what was not listed did not change */
		if (u->val[p] != val[p])
			fail_msg("position %u: %d kept, %d now", p, u->val[p], val[p]);
	(void)f;
}

/* Consumer c brought up to date from its list (UINT32_MAX: every position), checked against
 * the model, af_hn_since with it. */
static void user_sync(const alloc_fast *f, const undo_model *m, undo_user *c, const int *val,
                      const uint32_t *list, uint32_t k)
{
	static uint32_t every[READY];
	static int pval[READY];
	bool hn = false;
	for (uint32_t i = c->seen; i < m->n_log; i++)
		hn |= m->log[i] % 3 == 0 && (!m->undone[i] || inside(m, c->seen));
	assert_int_equal(af_hn_since(f, c->seen, m->n_log), hn);
	if (k == UINT32_MAX) {
		for (uint32_t p = 0; p < READY; p++)
			every[p] = p;
		list = every;
		k = READY;
	} else {
		check_undone_list(f, m, c->seen, list, k);
	}
	for (uint32_t p = 0; p < READY; p++)
		pval[p] = val[p + NODES - READY];
	user_read(f, c, pval, list, k);
	c->seen = m->n_log;
}

/* Dry runs change nodes (each change logged), some inside others; an undone run logs the nodes
 * it changed once more (tph_ph_touch_stmt) and puts them back, a kept one leaves them to the
 * run around it. Consumers current at any point, some inside a run that is undone later, read
 * again exactly the positions logged after their point outside the undone spans (or all, from
 * inside one), and their copies stay equal to the values; af_hn_since agrees. Fails when the
 * spans are ignored (copies right, lists too long), when a consumer inside a span skips it
 * (copies wrong), or when a span's positions are not put back to their earlier entries. */
static void test_undone(void **state)
{
	(void)state;
	alloc_fast f;
	static undo_model m;
	static undo_user u[4];
	static int val[NODES], snap[DEPTH][NODES];
	static uint32_t of_off[NODES + 1];
	static tph_topo tp;
	static tph_session s;
	uint32_t from[DEPTH], depth = 0, cells[READY + 1];
	setup(&f);
	for (uint32_t i = 0; i <= NODES; i++)
		of_off[i] = (i + 2) / 3; /* node i holds one hypernode when i % 3 == 0 */
	tp.t.of_off = of_off;
	s.topo = &tp;
	f.s = &s;
	memset(&m, 0, sizeof m);
	memset(u, 0, sizeof u);
	memset(val, 0, sizeof val);
	unsigned seed = 9;
	while (m.n_log + 2 * NODES < UNDO_LOG) {
		int op = rand_r(&seed) % 10;
		if (op < 5) { /* a change: often a few hot nodes, as placements in one rack */
			tph_idx node = (tph_idx)(rand_r(&seed) % 2 ? 100 + rand_r(&seed) % 40
			                                           : rand_r(&seed) % NODES);
			val[node] += 1 + rand_r(&seed) % 3;
			m.log[m.n_log++] = node;
		} else if (op < 7 && depth < DEPTH) {
			from[depth] = m.n_log;
			memcpy(snap[depth++], val, sizeof val);
		} else if (op < 8 && depth) {
			uint32_t b = from[--depth];
			if (rand_r(&seed) % 4 == 0)
				continue; /* kept: its changes are the outer run's */
			for (tph_idx node = 0; node < NODES; node++)
				if (val[node] != snap[depth][node])
					m.log[m.n_log++] = node;
			memcpy(val, snap[depth], sizeof val);
			for (uint32_t i = b; i < m.n_log; i++)
				m.undone[i] = true;
			while (m.n_span && m.b[m.n_span - 1] >= b)
				m.n_span--;
			m.b[m.n_span] = b;
			m.e[m.n_span++] = m.n_log;
			af_undone(&f, m.log, m.n_log, b);
		} else {
			undo_user *c = &u[rand_r(&seed) % 4], *d = &u[rand_r(&seed) % 4];
			uint32_t k = af_stale(&f, cells, sizeof *cells, false, c->seen, 0, m.log,
			                      m.n_log, 0);
			if (op == 9 && c != d) { /* d inside c's sync, from c's walk or its own */
				const uint32_t *list;
				af_walk_begin(&f, k, c->seen, m.n_log);
				uint32_t kd = af_stale_list(&f, cells, sizeof *cells, false,
				                            d->seen, 0, m.log, m.n_log, 0, &list);
				user_sync(&f, &m, d, val, list, kd);
				af_walk_end(&f);
			}
			user_sync(&f, &m, c, val, f.plist, k);
		}
	}
	teardown(&f);
}

/* ---- a row's fit passes as bits (af_row_pass, af_bits_list) ---- */

/* Ranges starting and ending on and off word boundaries, empty ones, full and empty words:
 * the set bits inside the range, ascending, each once. */
static void test_bits_list(void **state)
{
	(void)state;
	static uint64_t bits[READY / 64 + 1];
	static uint32_t out[READY + 1];
	unsigned seed = 4;
	for (uint32_t w = 0; w <= READY / 64; w++)
		bits[w] = w % 5 == 0   ? ~0ull
		          : w % 5 == 1 ? 0
		                       : (uint64_t)rand_r(&seed) << 32 ^ rand_r(&seed);
	for (uint32_t q = 0; q < 4000; q++) {
		uint32_t lo = q < 64 ? q : (uint32_t)rand_r(&seed) % READY;
		uint32_t n = q % 7 == 0   ? 0
		             : q % 7 == 1 ? 64 - lo % 64
		                          : (uint32_t)rand_r(&seed) % (READY - lo + 1);
		uint32_t k = af_bits_list(bits, lo, n, out), want = 0;
		for (uint32_t p = lo; p < lo + n; p++)
			if (bits[p / 64] >> (p % 64) & 1) {
				assert_true(want < k);
				assert_int_equal(out[want++], p);
			}
		assert_int_equal(k, want);
	}
}

/* The row's cells change at logged positions (a few hot ones, some spread), sometimes under an
 * run that is undone; the bits, asked at random points with the row current, equal its passes.
 * Refused while the row is behind the log. Fails when a logged position is not read again or
 * a whole build misses a position. */
static void test_row_pass(void **state)
{
	(void)state;
	alloc_fast f;
	static tph_idx log[LOG];
	static af_rfit cell[READY + 1];
	af_row r = {.fg = cell, .built = true};
	uint32_t n_log = 0;
	unsigned seed = 21;
	setup(&f);
	for (uint32_t p = 0; p < READY; p++)
		cell[p].fit = rand_r(&seed) % 5 ? 7 : TPH_PASS;
	while (n_log + 400 < LOG) {
		static af_rfit before[READY + 1];
		uint32_t from = n_log;
		bool undo = rand_r(&seed) % 4 == 0;
		memcpy(before, cell, sizeof cell);
		for (uint32_t b = 1 + (uint32_t)rand_r(&seed) % 60; b; b--) {
			tph_idx node = (tph_idx)(rand_r(&seed) % 3 ? 100 + rand_r(&seed) % 80
			                                           : rand_r(&seed) % NODES);
			if (f.pos[node] != UINT32_MAX)
				cell[f.pos[node]].fit = rand_r(&seed) % 3 ? 7 : TPH_PASS;
			log[n_log++] = node;
		}
		if (undo) { /* a run undone: its nodes logged again and put back as they were */
			for (uint32_t i = from, end = n_log; i < end; i++)
				log[n_log++] = log[i];
			memcpy(cell, before, sizeof cell);
			af_undone(&f, log, n_log, from);
		}
		r.seen = n_log;
		if (rand_r(&seed) % 4 == 0) { /* the row behind: no bits */
			r.seen = n_log - 1;
			assert_null(af_row_pass(&f, &r, log, n_log, 0));
			continue;
		}
		const uint64_t *bits = af_row_pass(&f, &r, log, n_log, 0);
		assert_non_null(bits);
		for (uint32_t p = 0; p < READY; p++)
			assert_int_equal(bits[p / 64] >> (p % 64) & 1, cell[p].fit == TPH_PASS);
	}
	free(r.pass);
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

/* Cache lines position p of a line-aligned column spans, w int64 a position. */
static uint32_t lines_of(uint32_t p, uint32_t w)
{
	uint64_t at = (uint64_t)p * w * 8;
	return (uint32_t)((at + w * 8 - 1) / 64 - at / 64 + 1);
}

/* A position of the room is never more cache lines than its 2 * rnd values need, wherever it
 * starts (a line-aligned column, positions side by side), and no narrower width would do:
 * 2 * rnd unless a position could then span a line more. Every width keeps a position's
 * int64s 16-byte aligned. */
static void test_room_width(void **state)
{
	(void)state;
	for (uint32_t rnd = 1; rnd <= TPH_RES_MAX; rnd++) {
		uint32_t w = af_room_width(rnd), need = (2 * rnd * 8 + 63) / 64, most = 0, over = 0;
		assert_true(w >= 2 * rnd);
		assert_int_equal(w % 2, 0);
		for (uint32_t p = 0; p < 64; p++) {
			most = lines_of(p, w) > most ? lines_of(p, w) : most;
			over += lines_of(p, 2 * rnd) > need;
		}
		if (most > need)
			fail_msg("%u dimensions: %u int64 a position span %u lines, %u need", rnd,
			         w, most, need);
		if (w > 2 * rnd && !over)
			fail_msg("%u dimensions: %u int64 a position where %u would do", rnd, w,
			         2 * rnd);
	}
}

/* The positions of the log are kept in room asked for once, as many as the session's tasks
 * (a run that places each task once never grows it), and a longer log grows it as before. */
static void test_plog_room(void **state)
{
	(void)state;
	enum {
		TASKS = 3000
	};
	alloc_fast f;
	tph_session s;
	memset(&s, 0, sizeof s);
	s.tasks.n = TASKS;
	tph_idx *log = log_open(&f);
	f.s = &s;
	unsigned seed = 3;
	uint32_t n_log = 0, cells[READY + 1];
	log[n_log++] = NODES - 1;
	check(&f, log, 0, n_log, af_touched(&f, 0, log, n_log, cells, sizeof *cells));
	assert_true(f.rec.cap >= TASKS);
	while (n_log < LOG) {
		burst(&seed, log, &n_log);
		uint32_t seen = point(&seed, n_log, 500);
		check(&f, log, seen, n_log, af_touched(&f, seen, log, n_log, cells, sizeof *cells));
		assert_true(f.rec.cap >= n_log);
	}
	log_close(&f, log);
}

/* A list walk that reads ahead (fits() in allocate_fast_row.c) stops asking AF_AHEAD entries
 * before the end: no list, an empty one and one of up to AF_AHEAD entries ask for nothing;
 * the last entry asked for is list[k - 1]. */
static void test_ahead_end(void **state)
{
	(void)state;
	static const uint32_t list[3 * AF_AHEAD];
	assert_int_equal(af_ahead_end(NULL, 3 * AF_AHEAD), 0);
	for (uint32_t k = 0; k <= AF_AHEAD; k++)
		assert_int_equal(af_ahead_end(list, k), 0);
	for (uint32_t k = AF_AHEAD + 1; k <= 3 * AF_AHEAD; k++) {
		uint32_t end = af_ahead_end(list, k);
		assert_int_equal(end - 1 + AF_AHEAD, k - 1); /* the last asked for is the last */
	}
}

/* The same at another distance (reverdict_anchored in allocate_fast_shape.c asks for the cells
 * 2 * AF_AHEAD entries ahead): lists up to the distance ask for nothing, longer ones up to their
 * last entry, and a distance of 0 asks for every entry of a list. */
static void test_ahead_end_by(void **state)
{
	(void)state;
	enum {
		D = 2 * AF_AHEAD
	};
	static const uint32_t list[3 * D];
	assert_int_equal(af_ahead_end_by(NULL, 3 * D, D), 0);
	for (uint32_t k = 0; k <= D; k++)
		assert_int_equal(af_ahead_end_by(list, k, D), 0);
	for (uint32_t k = D + 1; k <= 3 * D; k++)
		assert_int_equal(af_ahead_end_by(list, k, D) - 1 + D, k - 1);
	assert_int_equal(af_ahead_end_by(list, 5, 0), 5);
	assert_int_equal(af_ahead_end_by(list, 0, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_touched),      cmocka_unit_test(test_shared_walk),
	    cmocka_unit_test(test_hn_since),     cmocka_unit_test(test_undone),
	    cmocka_unit_test(test_bits_list),    cmocka_unit_test(test_row_pass),
	    cmocka_unit_test(test_room),         cmocka_unit_test(test_ahead_end),
	    cmocka_unit_test(test_ahead_end_by), cmocka_unit_test(test_room_width),
	    cmocka_unit_test(test_plog_room),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* A request row's large catch-ups cut into parts for the session's team (af_fits in
 * kernel/actions/allocate/allocate_fast_row.c, tph_session_team / tph_session_parts in
 * kernel/src/session/ep_score.c): at 1, 2 and 8 threads, over lists shorter and longer than
 * the split threshold, every listed position gets the fit and group a plain check gives, and
 * the row's tracker hears of every verdict that moved, once, with its old verdict, in the
 * list's order, whichever part found it. The parts themselves: each runs once, part 0 on the
 * calling thread, and a team is asked for only when every part gets its share. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "allocate/allocate_fast.h"
#include "base/omp_team.h"
#include "session/session_int.h"

#ifdef TPH_HAVE_OPENMP
#include <omp.h>
#endif

enum {
	N = 700,    /* positions */
	EACH = 16,  /* the split threshold the tests set: a part gets at least this many */
	FCODE = 41, /* the filter's reason when the room is short */
	GCODE = 42  /* the group request's (never a verdict: only a group) */
};

typedef struct world {
	tph_session s;
	tph_ph ph;
	alloc_fast f;
	af_row r;
	af_pred v;
	af_shape sh;
	af_track t;
	af_track *tr[1];
	int64_t room[2 * N]; /* per position: FutureIdle, then Idle (one dimension) */
	tph_idx ready[N];
	uint32_t list[N];
} world;

static uint64_t rng = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static void req_one(tph_fit_req *q, int64_t want, tph_reason_code code)
{
	memset(q, 0, sizeof *q);
	q->n = 1;
	q->dim[0] = 0;
	q->req[0] = want;
	q->code[0] = code;
}

/* A row requesting 10 of the dimension for both checks; the room 0..19 per position. */
static world *world_new(int threads)
{
	world *w = calloc(1, sizeof *w);
	assert_non_null(w);
	w->s.threads = threads;
	for (uint32_t p = 0; p < N; p++)
		w->ready[p] = p;
	w->s.ready_nodes = w->ready;
	alloc_fast *f = &w->f;
	f->s = &w->s;
	f->ph = &w->ph;
	f->n = N;
	f->rec.rw = 2;
	f->rec.rnd = 1;
	f->split_min = EACH;
	f->mv_pos = malloc((N + 1) * sizeof *f->mv_pos);
	f->mv_old = malloc((N + 1) * sizeof *f->mv_old);
	w->r.cell = calloc(N + 1, sizeof *w->r.cell);
	w->v.code = calloc(N + 1, sizeof *w->v.code);
	af_track *t = &w->t;
	t->mod_at = calloc(N + 1, sizeof *t->mod_at);
	t->mod_old = calloc(N + 1, sizeof *t->mod_old);
	t->mods = calloc(N + 1, sizeof *t->mods);
	assert_true(f->mv_pos && f->mv_old && w->r.cell && w->v.code && t->mod_at && t->mod_old &&
	            t->mods);
	for (uint32_t p = 0; p < N; p++)
		w->v.code[p] =
		    TPH_PASS; /* the spec passes everywhere: the row's verdicts are heard */
	req_one(&w->r.ffit, 10, FCODE);
	req_one(&w->r.gfit, 10, GCODE);
	w->sh.keyrow = true;
	w->sh.row = &w->r;
	w->sh.pred = &w->v;
	t->sh = &w->sh;
	t->gen = w->ph.cache.pass;
	t->evals = 1;
	t->mod_gen = 1;
	w->tr[0] = t;
	f->tr = w->tr;
	f->n_tr = 1;
	for (uint32_t p = 0; p < 2 * N; p++)
		w->room[p] = rnd(20);
	af_fits(f, &w->r, w->room, NULL, N); /* built whole: no tracker hears */
	assert_int_equal(t->n_mods, 0);
	w->r.built = true;
	return w;
}

static void world_free(world *w)
{
	free(w->f.mv_pos);
	free(w->f.mv_old);
	free(w->r.cell);
	free(w->v.code);
	free(w->t.mod_at);
	free(w->t.mod_old);
	free(w->t.mods);
	free(w);
}

/* k distinct positions in a random order, their room changed. */
static void touch(world *w, uint32_t k)
{
	static uint32_t perm[N];
	for (uint32_t p = 0; p < N; p++)
		perm[p] = p;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t j = i + rnd(N - i), p = perm[j];
		perm[j] = perm[i];
		w->list[i] = p;
		w->room[2 * p] = rnd(20);
		w->room[2 * p + 1] = rnd(20);
	}
}

/* One catch-up over k listed positions: the cells as a plain check gives them, the tracker's
 * moves those of the list whose verdict changed, in list order, with the old verdicts. */
static void catch_up(world *w, uint32_t k)
{
	static tph_reason_code old[N];
	for (uint32_t p = 0; p < N; p++)
		old[p] = w->r.cell[p].fit;
	touch(w, k);
	w->t.mod_gen++;
	w->t.n_mods = 0;
	af_fits(&w->f, &w->r, w->room, w->list, k);
	uint32_t m = 0;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = w->list[i];
		int64_t fut = w->room[2 * p], idle = w->room[2 * p + 1];
		tph_reason_code fit = fut >= 10 ? TPH_PASS : FCODE;
		uint8_t g = alloc_group_rule(fit == TPH_PASS && idle >= 10, fit == TPH_PASS, false);
		assert_int_equal(w->r.cell[p].fit, fit);
		assert_int_equal(w->r.cell[p].grp, g);
		if (fit == old[p])
			continue;
		if (m >= w->t.n_mods)
			fail_msg("k %u: position %u (entry %u) moved, the tracker heard %u moves",
			         k, p, i, w->t.n_mods);
		if (w->t.mods[m] != p)
			fail_msg("k %u: move %u is position %u, want %u (entry %u)", k, m,
			         w->t.mods[m], p, i);
		assert_int_equal(w->t.mod_old[p], old[p]);
		m++;
	}
	assert_int_equal(w->t.n_mods, m);
}

/* Lists around each multiple of the threshold up to 8 parts, and the whole list. */
static void catch_ups(int threads)
{
	world *w = world_new(threads);
	static const uint32_t k[] = {0,
	                             1,
	                             EACH - 1,
	                             EACH,
	                             2 * EACH - 1,
	                             2 * EACH,
	                             2 * EACH + 1,
	                             3 * EACH + 5,
	                             8 * EACH - 1,
	                             8 * EACH,
	                             8 * EACH + 3,
	                             16 * EACH + 7,
	                             N - 1,
	                             N};
	for (int rep = 0; rep < 3; rep++)
		for (size_t i = 0; i < sizeof k / sizeof *k; i++)
			catch_up(w, k[i]);
	world_free(w);
}

static void test_fits_one_thread(void **state)
{
	(void)state;
	catch_ups(1);
}

static void test_fits_two_threads(void **state)
{
	(void)state;
	catch_ups(2);
}

static void test_fits_eight_threads(void **state)
{
	(void)state;
	catch_ups(8);
}

/* ---- the parts ---- */

typedef struct seen {
	int runs[TPH_PARTS_MAX];
	int thread0; /* the thread part 0 ran on */
} seen;

static void mark(void *cv, uint32_t j)
{
	seen *c = cv;
	c->runs[j]++; /* each part once: no two threads write one slot */
#ifdef TPH_HAVE_OPENMP
	if (!j)
		c->thread0 = omp_get_thread_num();
#endif
}

static void test_parts(void **state)
{
	(void)state;
	tph_session s;
	memset(&s, 0, sizeof s);
	static const int threads[] = {1, 2, 8};
	for (size_t i = 0; i < 3; i++) {
		s.threads = threads[i];
		/* a part must get its share: fewer items, fewer parts */
		assert_int_equal(tph_session_team(&s, 2 * EACH - 1, EACH), 1);
		uint32_t full = tph_session_team(&s, 100 * EACH, EACH);
#ifdef TPH_HAVE_OPENMP
		assert_int_equal(full, (uint32_t)threads[i]);
		assert_int_equal(tph_session_team(&s, 3 * EACH, EACH),
		                 threads[i] < 3 ? threads[i] : 3);
#else
		assert_int_equal(full, 1);
#endif
		for (uint32_t parts = 1; parts <= full; parts++) {
			seen c = {{0}, -1};
			tph_session_parts(&s, parts, mark, &c);
			for (uint32_t j = 0; j < TPH_PARTS_MAX; j++)
				assert_int_equal(c.runs[j], j < parts);
#ifdef TPH_HAVE_OPENMP
			assert_int_equal(c.thread0, 0);
#endif
		}
	}
	s.threads = 64; /* never more parts than TPH_PARTS_MAX */
	assert_true(tph_session_team(&s, 1000 * EACH, EACH) <= TPH_PARTS_MAX);
}

int main(void)
{
	setenv("TPH_THREADS_EXACT", "1", 1); /* the teams asked for, however loaded the machine */
	tph_team_reset();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fits_one_thread),
	    cmocka_unit_test(test_fits_two_threads),
	    cmocka_unit_test(test_fits_eight_threads),
	    cmocka_unit_test(test_parts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

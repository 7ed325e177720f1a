/* The team governor (base/omp_team.h): a region whose threads were not busy together pauses
 * the teams, the pause doubles with each such region and ends on its own, a region that pays
 * shortens the next pause, TPH_THREADS_EXACT keeps every team; and through a session, a region
 * held by a slow worker sends the next calls to the caller's thread. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "base/omp_team.h"
#include "harness.h"

#define MS 1000000ull

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts))
		;
}

/* ctest sets TPH_THREADS_EXACT=1 for the thread-count tests; these need the governor on. */
static int governed(void **state)
{
	(void)state;
	setenv("TPH_THREADS_EXACT", "0", 1);
	tph_team_reset();
	return 0;
}

static int exact(void **state)
{
	(void)state;
	setenv("TPH_THREADS_EXACT", "1", 1);
	tph_team_reset();
	return 0;
}

static void test_a_paying_region_keeps_the_team(void **state)
{
	(void)state;
	tph_team_judge(19 * MS, 10 * MS); /* two threads busy 9.5 of 10 ms each */
	assert_int_equal(tph_team_admit(2), 2);
	assert_int_equal(tph_team_admit(1), 1);
}

/* Busy 1.2x the wall: not the 1.25x that says two threads beat one. */
static void test_a_region_that_did_not_pay_pauses_the_team(void **state)
{
	(void)state;
	tph_team_judge(12 * MS, 10 * MS);
	assert_int_equal(tph_team_admit(2), 1);
	assert_int_equal(tph_team_admit(8), 1);
}

/* A miss at `now` pauses the teams for `ms`: until no earlier and no later than the judging. */
static void miss_pauses(unsigned ms)
{
	uint64_t t0 = tph_mono_ns();
	tph_team_judge(10 * MS, 10 * MS);
	uint64_t t1 = tph_mono_ns(), until = tph_team_paused_until();
	assert_true(until >= t0 + ms * MS);
	assert_true(until <= t1 + ms * MS);
}

/* 32 ms, then 64, then 128; and a pause ends on its own. */
static void test_the_pause_doubles_and_ends(void **state)
{
	(void)state;
	miss_pauses(32);
	miss_pauses(64);
	miss_pauses(128);
	uint64_t until = tph_team_paused_until();
	while (tph_mono_ns() <= until)
		sleep_ms(10);
	assert_int_equal(tph_team_admit(2), 2);
}

/* Two misses, a paying region (no pause), a miss: 64 ms, not the third miss's 128. */
static void test_a_paying_region_shortens_the_next_pause(void **state)
{
	(void)state;
	miss_pauses(32);
	miss_pauses(64);
	tph_team_judge(20 * MS, 10 * MS);
	assert_int_equal(tph_team_paused_until(), 0);
	assert_int_equal(tph_team_admit(2), 2);
	miss_pauses(64);
}

/* The pause stops growing at 4 s. */
static void test_the_pause_is_bounded(void **state)
{
	(void)state;
	for (int i = 0; i < 8; i++)
		tph_team_judge(10 * MS, 10 * MS);
	miss_pauses(4096);
	miss_pauses(4096);
}

static void test_exact_keeps_every_team(void **state)
{
	(void)state;
	tph_team_judge(10 * MS, 10 * MS);
	assert_int_equal(tph_team_admit(2), 2);
}

/* ---- through a session ---- */

#define ONE_NODE                                                                \
	"conf: |\n  actions: \"\"\n  tiers: []\nqueues: [{name: q1}]\nnodes:\n" \
	"  - {name: n1, allocatable: {cpu: '1'}}\n"

typedef struct spans {
	pthread_t caller;
	uint32_t off_caller; /* spans run on another thread */
} spans;

/* A worker that is slow (as one waiting for a busy core is) holds the region's end. */
static void slow_worker(void *cv, uint32_t k, uint32_t b, uint32_t e)
{
	spans *c = cv;
	(void)k, (void)b, (void)e;
	if (!pthread_equal(pthread_self(), c->caller)) {
		__atomic_add_fetch(&c->off_caller, 1, __ATOMIC_RELAXED);
		sleep_ms(1);
	}
}

/* A build without OpenMP runs every region on the caller's thread: nothing to govern. */
static void no_team_without_openmp(void)
{
#ifndef TPH_HAVE_OPENMP
	skip();
#endif
}

static uint32_t run(tph_session *s, uint32_t n)
{
	spans c = {pthread_self(), 0};
	tph_session_parallel(s, n, slow_worker, &c);
	return c.off_caller;
}

static void test_a_slow_worker_sends_regions_to_the_caller(void **state)
{
	(void)state;
	no_team_without_openmp();
	pts p;
	/* opened exact, so that the load average does not take the second thread away */
	setenv("TPH_THREADS_EXACT", "1", 1);
	pts_open_with(&p, ONE_NODE, &(tph_session_opts){.threads = 2});
	governed(state);
	uint32_t n = 64 * TPH_PAR_SPAN;
	assert_true(run(p.s, n) > 0); /* the team ran, and its worker held it */
	assert_int_equal(run(p.s, n), 0);
	assert_int_equal(run(p.s, n), 0);
	pts_free(&p);
}

static void test_exact_sessions_keep_the_team(void **state)
{
	(void)state;
	no_team_without_openmp();
	pts p;
	pts_open_with(&p, ONE_NODE, &(tph_session_opts){.threads = 2});
	uint32_t n = 64 * TPH_PAR_SPAN;
	assert_true(run(p.s, n) > 0);
	assert_true(run(p.s, n) > 0);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_a_paying_region_keeps_the_team, governed),
	    cmocka_unit_test_setup(test_a_region_that_did_not_pay_pauses_the_team, governed),
	    cmocka_unit_test_setup(test_the_pause_doubles_and_ends, governed),
	    cmocka_unit_test_setup(test_a_paying_region_shortens_the_next_pause, governed),
	    cmocka_unit_test_setup(test_the_pause_is_bounded, governed),
	    cmocka_unit_test_setup(test_exact_keeps_every_team, exact),
	    cmocka_unit_test_setup(test_a_slow_worker_sends_regions_to_the_caller, governed),
	    cmocka_unit_test_setup(test_exact_sessions_keep_the_team, exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

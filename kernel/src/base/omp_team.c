/* OpenMP team sizing shared by every parallel region of the kernel (see omp_team.h). */
#include "omp_team.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef TPH_HAVE_OPENMP
#include <omp.h>

int tph_omp_enter(void)
{
	static _Atomic int adjust = -1; /* OMP_DYNAMIC unset: 1 */
	int was = omp_get_dynamic();
	if (adjust < 0)
		adjust = getenv("OMP_DYNAMIC") == NULL;
	if (adjust)
		omp_set_dynamic(1);
	return was;
}

void tph_omp_leave(int saved)
{
	omp_set_dynamic(saved);
}
#else
int tph_omp_enter(void)
{
	return 0;
}

void tph_omp_leave(int saved)
{
	(void)saved;
}
#endif

/* ---- the governor (omp_team.h) ---- */

#define PAUSE_NS   16000000ull /* the first pause is twice this */
#define MAX_MISSES 8u

static _Atomic uint64_t serial_until; /* CLOCK_MONOTONIC ns */
static _Atomic uint32_t misses;       /* the pause's exponent */
static _Atomic int exact = -1;        /* TPH_THREADS_EXACT, read once */

static bool governed(void)
{
	int e = atomic_load_explicit(&exact, memory_order_relaxed);
	if (e < 0) {
		const char *v = getenv("TPH_THREADS_EXACT");
		e = v && *v && strcmp(v, "0");
		atomic_store_explicit(&exact, e, memory_order_relaxed);
	}
	return !e;
}

uint64_t tph_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int tph_team_admit(int nt)
{
	uint64_t until = atomic_load_explicit(&serial_until, memory_order_relaxed);
	if (nt <= 1 || !until || !governed())
		return nt;
	return tph_mono_ns() < until ? 1 : nt;
}

void tph_team_judge(uint64_t busy_ns, uint64_t wall_ns)
{
	if (!governed())
		return;
	uint32_t m = atomic_load_explicit(&misses, memory_order_relaxed);
	uint64_t until = 0;
	if (busy_ns * 4 >= wall_ns * 5) /* one lucky region does not undo a loaded machine */
		m -= m > 0;
	else {
		m += m < MAX_MISSES;
		until = tph_mono_ns() + (PAUSE_NS << m);
	}
	atomic_store_explicit(&misses, m, memory_order_relaxed);
	atomic_store_explicit(&serial_until, until, memory_order_relaxed);
}

uint64_t tph_team_paused_until(void)
{
	return atomic_load_explicit(&serial_until, memory_order_relaxed);
}

void tph_team_reset(void)
{
	atomic_store_explicit(&misses, 0, memory_order_relaxed);
	atomic_store_explicit(&serial_until, 0, memory_order_relaxed);
	atomic_store_explicit(&exact, -1, memory_order_relaxed);
}

void tph_team_for(int nt, int n, bool dynamic, void (*each)(void *ud, int i), void *ud)
{
#ifdef TPH_HAVE_OPENMP
	nt = omp_in_parallel() ? 1 : tph_team_admit(nt);
#else
	nt = 1;
#endif
	if (nt <= 1) {
		for (int i = 0; i < n; i++)
			each(ud, i);
		return;
	}
	int saved = tph_omp_enter();
	uint64_t busy = 0, t0 = tph_mono_ns();
#ifdef TPH_HAVE_OPENMP
#pragma omp parallel num_threads(nt) reduction(+ : busy)
	{
		uint64_t b = tph_mono_ns();
		if (dynamic) {
#pragma omp for schedule(dynamic, 1) nowait
			for (int i = 0; i < n; i++)
				each(ud, i);
		} else {
#pragma omp for schedule(static) nowait
			for (int i = 0; i < n; i++)
				each(ud, i);
		}
		busy += tph_mono_ns() - b;
	}
#endif
	tph_team_judge(busy, tph_mono_ns() - t0);
	tph_omp_leave(saved);
}

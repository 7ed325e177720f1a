/* OpenMP helpers: how parallel regions size their teams. */
#ifndef TPH_BASE_OMP_TEAM_H
#define TPH_BASE_OMP_TEAM_H

#include <stdbool.h>
#include <stdint.h>

/* Around each parallel region: let the OpenMP runtime shrink the team when the machine is
 * loaded (dynamic adjustment), unless OMP_DYNAMIC says otherwise. On an oversubscribed
 * machine a worker that is not running holds the region's end for a time slice, and idle
 * workers spin between regions; results never depend on the team size. enter returns the
 * caller's setting, which leave restores. */
int tph_omp_enter(void);
void tph_omp_leave(int saved);

/* Whether parallel regions pay, judged by their own measure rather than by what the host's
 * OpenMP settings or a load average say. The load average lags by a minute, and with
 * OMP_DYNAMIC=false libgomp keeps every team whole: one worker waiting for a busy core then
 * holds each region's end for a time slice, and a session of many regions ran 36x slower than
 * on one thread. So each region's threads add up the time they were working; when that sum is
 * under 1.25x the region's wall time, the team did not beat one thread, and regions run on the
 * caller's thread for a pause that doubles with each such region (32 ms to about 4 s), after
 * which one region tries the team again; a region that pays shortens the next pause. The
 * machine's load is the process's, so the state is too (relaxed atomics: a lost update between
 * sessions on two host threads costs one region's choice). Team sizes never change a result;
 * TPH_THREADS_EXACT=1 keeps the team asked for. */
/* CLOCK_MONOTONIC in ns: what regions time their threads' work and their own wall with. */
uint64_t tph_mono_ns(void);
/* The team for a region sized for nt threads: nt, or 1 while paused. */
int tph_team_admit(int nt);
/* After a region of more than one thread: busy_ns summed over its threads, wall_ns its own. */
void tph_team_judge(uint64_t busy_ns, uint64_t wall_ns);
/* One governed region: each(ud, i) for every i < n on a team of at most nt threads that
 * tph_team_admit allows, judged by tph_team_judge; on the caller's thread alone when the team
 * is one or an enclosing region is running. `dynamic`: iterations handed out one at a time (pieces
 * of unequal size balance), else in equal blocks, one per thread (spans of equal size). Results
 * must not depend on which thread runs an iteration. */
void tph_team_for(int nt, int n, bool dynamic, void (*each)(void *ud, int i), void *ud);
/* Until when regions stay on the caller's thread (0: they do not), and forgetting every
 * verdict: for tests. */
uint64_t tph_team_paused_until(void);
void tph_team_reset(void);

#endif

/* OpenMP helpers: how parallel regions size their teams. */
#ifndef TPH_BASE_OMP_TEAM_H
#define TPH_BASE_OMP_TEAM_H

/* Around each parallel region: let the OpenMP runtime shrink the team when the machine is
 * loaded (dynamic adjustment), unless OMP_DYNAMIC says otherwise. On an oversubscribed
 * machine a worker that is not running holds the region's end for a time slice, and idle
 * workers spin between regions; results never depend on the team size. enter returns the
 * caller's setting, which leave restores. */
int tph_omp_enter(void);
void tph_omp_leave(int saved);

#endif

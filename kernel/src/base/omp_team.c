/* OpenMP team sizing shared by every parallel region of the kernel (see omp_team.h). */
#include "omp_team.h"

#include <stdlib.h>

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

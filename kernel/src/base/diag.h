/* What every public call that takes a tph_diag does first (tephra/status.h): empty its message,
 * so that a call that succeeds leaves no stale error text behind. */
#ifndef TPH_DIAG_INTERNAL_H
#define TPH_DIAG_INTERNAL_H

#include "tephra/status.h"

static inline void tph_diag_begin(tph_diag *d)
{
	if (d)
		d->msg[0] = '\0';
}

#endif

/* The warning trampoline: a tph_warn_fn that hands the message to the Go function whose
 * cgo.Handle is the diag's warn_ud (warn.go). */
#include "shim.h"

#include "_cgo_export.h"

static void tph_go_warn(void *ud, const char *msg)
{
	tephraGoWarn((uintptr_t)ud, (char *)msg);
}

void tph_go_diag_warn_to(tph_diag *d, uintptr_t handle)
{
	d->warn = tph_go_warn;
	d->warn_ud = (void *)handle;
}

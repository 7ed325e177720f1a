/* Status names and the caller-owned diagnostic buffer with its warning sink. */
#include "tephra/status.h"
#include "tephra/version.h"

#include "msg_text.h"

#include <stdarg.h>
#include <stdio.h>

const char *tph_strerror(int status)
{
	switch (status) {
#define CASE(name, value, text) \
	case value:             \
		return text;
		TPH_STATUS_MAP(CASE)
#undef CASE
	default:
		return "unknown status";
	}
}

const char *tph_errname(int status)
{
	switch (status) {
#define CASE(name, value, text) \
	case value:             \
		return "TPH_" #name;
		TPH_STATUS_MAP(CASE)
#undef CASE
	default:
		return NULL;
	}
}

/* Every message is escaped here (msg_text.h): its names and values come from inputs. */
int tph_diag_set(tph_diag *d, int status, const char *fmt, ...)
{
	if (d) {
		char buf[sizeof d->msg];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(buf, sizeof buf, fmt, ap);
		va_end(ap);
		tph_msg_escape(d->msg, sizeof d->msg, buf);
	}
	return status;
}

void tph_warn_silent(void *ud, const char *msg)
{
	(void)ud;
	(void)msg;
}

void tph_diag_vwarn(tph_diag *d, const char *fmt, va_list ap)
{
	if (d)
		d->warnings++;
	if (d && d->warn == TPH_WARN_SILENT)
		return;
	char buf[1024], safe[1024];
	vsnprintf(buf, sizeof buf, fmt, ap);
	tph_msg_escape(safe, sizeof safe, buf);
	if (d && d->warn)
		d->warn(d->warn_ud, safe);
	else /* nobody listens: a warning dropped silently once cost a host its pods */
		fprintf(stderr, "tephra: warning: %s\n", safe);
}

void tph_diag_warn(tph_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	tph_diag_vwarn(d, fmt, ap);
	va_end(ap);
}

int tph_version(void)
{
	return TPH_VERSION_NUMBER;
}

const char *tph_version_string(void)
{
	return TPH_VERSION_STRING;
}

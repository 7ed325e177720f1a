/* Status names and the caller-owned diagnostic buffer. */
#include "tephra/status.h"
#include "tephra/version.h"

#include "msg_text.h"

#include <stdarg.h>
#include <stdio.h>

const char *tph_strerror(int status)
{
	switch (status) {
	case TPH_OK:
		return "ok";
	case TPH_DECLINED:
		return "declined";
	case TPH_ENOMEM:
		return "out of memory";
	case TPH_EINVAL:
		return "invalid value";
	case TPH_ENOENT:
		return "no such object";
	case TPH_EEXIST:
		return "object already exists";
	case TPH_EPARSE:
		return "malformed input";
	case TPH_EIO:
		return "input/output error";
	case TPH_ERANGE:
		return "value out of range";
	case TPH_ENOTSUP:
		return "not supported";
	case TPH_EABI:
		return "ABI version mismatch";
	case TPH_EFROZEN:
		return "registry is frozen";
	default:
		return "unknown status";
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

void tph_diag_warn(tph_diag *d, const char *fmt, ...)
{
	if (!d)
		return;
	d->warnings++;
	if (!d->warn)
		return;
	char buf[1024], safe[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	tph_msg_escape(safe, sizeof safe, buf);
	d->warn(d->warn_ud, safe);
}

int tph_version(void)
{
	return TPH_VERSION_NUMBER;
}

const char *tph_version_string(void)
{
	return TPH_VERSION_STRING;
}

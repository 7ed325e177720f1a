/* The checks shared by every harness: failed loads carry a located message, warnings are valid
 * strings. Linked into both the libFuzzer binaries and the replay drivers. */
#include "fuzz.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fuzz_fail(const char *what, int rc, const tph_diag *d)
{
	fprintf(stderr, "fuzz: %s (rc=%d: %s)\n  msg: %s\n", what, rc, tph_strerror(rc),
	        d ? d->msg : "");
	abort();
}

/* `FILE:LINE:COL: ` right after `file` somewhere in `msg`. */
static int located_at(const char *msg, const char *file)
{
	size_t fl = strlen(file);
	for (const char *p = strstr(msg, file); p; p = strstr(p + 1, file)) {
		const char *q = p + fl;
		if (*q++ != ':' || !isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q++ != ':' || !isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (q[0] == ':' && q[1] == ' ')
			return 1;
	}
	return 0;
}

void fuzz_check_error(int rc, const tph_diag *d, const char *file)
{
	if (rc >= 0)
		fuzz_fail("failure with a non-negative status", rc, d);
	if (memchr(d->msg, '\0', sizeof d->msg) == NULL)
		fuzz_fail("message not terminated", rc, NULL);
	if (rc == TPH_ENOMEM)
		return;
	if (!located_at(d->msg, file))
		fuzz_fail("error without a FILE:LINE:COL location", rc, d);
}

void fuzz_warn(void *ud, const char *msg)
{
	size_t *total = ud;
	*total += strlen(msg);
}

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

/* Whether `q` starts with `:LINE:COL: `. */
static int location_after(const char *q)
{
	if (*q++ != ':' || !isdigit((unsigned char)*q))
		return 0;
	while (isdigit((unsigned char)*q))
		q++;
	if (*q++ != ':' || !isdigit((unsigned char)*q))
		return 0;
	while (isdigit((unsigned char)*q))
		q++;
	return q[0] == ':' && q[1] == ' ';
}

/* `FILE:LINE:COL: ` with FILE the input's name or, for an error inside a file the input names
 * (a scenario's confFile:), any name at the start of the message. */
static int located(const char *msg, const char *file)
{
	for (const char *p = strstr(msg, file); p; p = strstr(p + 1, file))
		if (location_after(p + strlen(file)))
			return 1;
	const char *colon = strchr(msg, ':');
	return colon && colon > msg && location_after(colon);
}

void fuzz_check_error(int rc, const tph_diag *d, const char *file)
{
	if (rc >= 0)
		fuzz_fail("failure with a non-negative status", rc, d);
	if (memchr(d->msg, '\0', sizeof d->msg) == NULL)
		fuzz_fail("message not terminated", rc, NULL);
	if (rc == TPH_ENOMEM)
		return;
	if (!located(d->msg, file))
		fuzz_fail("error without a FILE:LINE:COL location", rc, d);
}

void fuzz_warn(void *ud, const char *msg)
{
	size_t *total = ud;
	*total += strlen(msg);
}

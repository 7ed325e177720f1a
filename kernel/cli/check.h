/* Checking one scenario file against its expect: and probe: sections. */
#ifndef TPH_CLI_CHECK_H
#define TPH_CLI_CHECK_H

#include "cli.h"

enum {
	CHECK_SKIP = 0,
	CHECK_PASS = 1,
	CHECK_FAIL = 2
};

/* Run and check `path` ("-": standard input); print "PASS path" or "FAIL path: reason" plus
 * indented details (only FAIL lines when quiet). A scenario with neither expect: nor probe: is
 * loaded, not run: "SKIP path: no expect: or probe: section" (not when quiet). */
int check_file(const char *path, const run_opts *o, bool quiet, FILE *out);

#endif

/* The output file of `tephra gen` and `tephra import` (-o FILE): written under a temporary name
 * in FILE's directory and renamed over FILE only once every write, flush and close succeeded,
 * so a run that is killed or fails part-way never leaves a truncated scenario that loads. "-"
 * is standard output; a FILE that exists and is not a regular file (a device, a pipe) is
 * written in place, since a rename would replace the node itself. */
#ifndef TPH_OUT_FILE_H
#define TPH_OUT_FILE_H

#include <stdio.h>

typedef struct out_file {
	FILE *f;
	const char *path; /* as given, for messages */
	char tmp[4096];   /* the temporary name; "" when writing in place or to stdout */
} out_file;

/* Open `path` for writing. Returns 0, or -1 after printing "<who>: <path>: <reason>". */
int out_file_open(out_file *o, const char *path, const char *who);

/* Finish: unless `write_err` (the errno of a write that already failed, else 0) says
 * otherwise, flush and close, then rename the temporary into place. On any failure the
 * temporary is removed, and "<who>: <path>: <reason>" printed. Returns 0 or -1. Standard
 * output is flushed and checked, not closed. */
int out_file_close(out_file *o, int write_err, const char *who);

/* Drop what was written (the input turned out bad): close and remove the temporary, silently. */
void out_file_discard(out_file *o);

#endif

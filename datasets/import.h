/* Shared by the trace importers: a CSV reader over one reusable line buffer, a reader for one
 * member of a .tar.gz through the system `tar` (no zlib dependency), and the scenario header
 * every imported file starts with. */
#ifndef TPH_IMPORT_H
#define TPH_IMPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "gen_io.h"
#include "out_file.h"

#define CSV_MAX_FIELDS 16

/* A CSV file read line by line; fields point into the line buffer and stay valid until the
 * next csv_next(). The traces have no quoted fields. */
typedef struct csv_reader {
	FILE *f;
	pid_t child; /* the tar process when reading from an archive, else 0 */
	char *line;
	size_t cap;
	uint32_t line_no;
	char *field[CSV_MAX_FIELDS];
	uint32_t n;
	const char *path; /* for messages */
	bool bad; /* a line held a NUL byte or could not be read: said, and csv_close fails */
} csv_reader;

/* Open a plain CSV file ("-": standard input). Returns 0, or -1 with a message on stderr. */
int csv_open(csv_reader *c, const char *path);
/* Open `member` of a gzip tarball by running `tar -xzOf archive member`. */
int csv_open_tar(csv_reader *c, const char *archive, const char *member);
/* Read the next line into fields. Returns 1 for a line, 0 at the end, -1 on error (a read
 * error or a NUL byte, which would cut the line short: said on stderr, and csv_close fails). */
int csv_next(csv_reader *c);
/* Close; for an archive, also reap tar. Returns -1 when tar failed (e.g. no such member) or
 * csv_next met an error. */
int csv_close(csv_reader *c);

/* Field i as an integer (0 for an empty field when allow_empty); false on garbage. */
bool csv_i64(const csv_reader *c, uint32_t i, bool allow_empty, int64_t *out);

/* ---- field checks (import_check.c); each prints "tephra import: FILE:LINE: column COL: why"
 * and returns false on a bad field ---- */

/* The message itself, for `line`; always false. */
bool csv_bad(const csv_reader *c, uint32_t line, const char *col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Field i as a decimal integer in [lo, hi]; empty: 0, valid only when allow_empty. */
bool csv_int(const csv_reader *c, uint32_t i, const char *col, int64_t lo, int64_t hi,
             bool allow_empty, int64_t *out);
/* Field i is a name written as a plain YAML scalar: at most `max` of A-Z a-z 0-9 . _ - (no
 * quoting needed, nothing to inject); empty only when allow_empty. */
bool csv_name(const csv_reader *c, uint32_t i, const char *col, size_t max, bool allow_empty);
/* Add v (>= 0) to *sum unless that passes `limit`. */
bool csv_sum(const csv_reader *c, const char *col, int64_t v, int64_t limit, int64_t *sum);

/* Names collected to find one given twice (a duplicate node or pod would not load). */
typedef struct csv_name_at {
	char *s;
	uint32_t line;
} csv_name_at;
typedef struct csv_names {
	csv_name_at *v;
	uint32_t n, cap;
} csv_names;
int csv_names_add(csv_names *ns, const char *s, uint32_t line); /* -1: out of memory */
/* 0 when all are distinct; else -1 with the message for the later line of the first pair. */
int csv_names_check(csv_names *ns, const char *path, const char *col);
void csv_names_free(csv_names *ns);
/* Whether the current line's fields match the expected header names. */
bool csv_header_is(const csv_reader *c, const char *const *names, uint32_t n);
/* Read the header line: 0 when it starts with these names, else -1 with a message naming the
 * file's line 1 and the header wanted. */
int csv_header(csv_reader *c, const char *const *names, uint32_t n);

/* Trace times are seconds from the trace's start, at most this (as --at): 31 years. */
#define CSV_MAX_TIME 1000000000
/* Bytes of one resource a whole cluster holds (TPH_RES_TOTAL_MAX, tephra/resource.h). */
#define CSV_TOTAL_MAX ((int64_t)1 << 60)

/* The common start of an imported scenario: a comment naming the source, name, now and
 * Volcano's helm-chart conf (the default plus binpack). */
void import_header(gen_out *w, const char *name, const char *source, int64_t now);

/* `-o FILE` ("-" for stdout) opened for writing (out_file.h): 0, or -1 with a message. */
int import_open_out(out_file *of, const char *path);
/* Flush and, when `keep`, put the file in place: false (with a message) if any write failed.
 * Without `keep` (the input was bad) what was written is dropped and false returned. */
bool import_close_out(gen_out *w, out_file *of, bool keep);

/* The commands; argv[0] is the trace's name ("alibaba"). Exit codes as tph_cmd_import's. */
int import_alibaba(int argc, char **argv);
int import_itp(int argc, char **argv);

#endif

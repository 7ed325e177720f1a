/* Shared pieces of the `tephra` command line: option parsing helpers, the run pipeline
 * (load, snapshot, session) and the decision writers. */
#ifndef TPH_CLI_H
#define TPH_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "tephra/tephra.h"

/* Exit codes. */
enum {
	CLI_OK = 0,
	CLI_FAILED = 1,
	CLI_USAGE = 2
};

typedef enum out_format {
	OUT_TEXT = 0,
	OUT_YAML = 1,
	OUT_JSON = 2
} out_format;

/* Options shared by run and check. */
typedef struct run_opts {
	const char *conf_file;  /* --conf: overrides the scenario's conf */
	int threads;            /* --threads */
	bool naive;             /* --naive */
	bool profile;           /* --profile */
	const char *plugin_dir; /* --plugins: loaded by load_plugins before any scenario */
	int shape_cache_mb;     /* --shape-cache-mb; 0: the kernel's default */
} run_opts;

/* One scenario run: everything a writer or the checker needs afterwards. */
typedef struct run_result {
	tph_scenario *scn;
	tph_conf *conf_override;
	tph_snapshot *snap;
	tph_session *ssn;
	const tph_decision_log *log;
	double load_ms, session_ms;
	size_t mem_open, mem_run; /* tph_session_bytes after open and after the actions */
	tph_diag diag;
	struct ext_server *extender; /* serves the scenario's extenderResponses (ext_server.h) */
} run_result;

/* Load --plugins, if given, before any scenario or conf: loading a conf checks its plugin names
 * against the registry. Prints the error as `tephra CMD: ...` and returns CLI_USAGE, or CLI_OK;
 * an external plugin that overrides a built-in gets one line on stderr. */
int load_plugins(const char *cmd, const run_opts *o);

/* Load, snapshot, open, (probe hook), run, close. A scenario with extenderResponses gets a
 * loopback server for them first, and the extender plugin's `extender.urlPrefix` points at it
 * (in the conf the session uses: --conf's or the scenario's). Plugins are loaded already
 * (load_plugins). On
 * failure returns a negative status with the message in r->diag; r must still be released with
 * run_release(). */
int run_scenario(const char *path, const run_opts *o, run_result *r,
                 int (*after_open)(run_result *r, void *ud), void *ud);
void run_release(run_result *r);

void write_text(FILE *f, const run_result *r, bool summary_only);
void write_yaml(FILE *f, const run_result *r);
void write_json(FILE *f, const run_result *r);

/* Parse "--threads N" style integers; returns false on garbage. */
bool parse_int(const char *s, int lo, int hi, int *out);

int cmd_run(int argc, char **argv);
int cmd_check(int argc, char **argv);

#endif

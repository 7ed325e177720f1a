/* Shared pieces of the `tephra` command line: option parsing helpers, the run pipeline
 * (load, snapshot, session) and the decision writers. */
#ifndef TPH_CLI_H
#define TPH_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "cmdline.h"
#include "tephra/tephra.h"

/* Exit codes, and CLI_DONE: a parser printed what was asked (--help), exit 0. */
enum {
	CLI_DONE = -1,
	CLI_OK = 0,
	CLI_FAILED = 1,
	CLI_USAGE = 2
};

/* How standard input (`-` as a file) is named in messages. */
#define CLI_STDIN_NAME "<stdin>"

/* Long options of run and check without a short form (cmdline.h). */
enum {
	OPT_CONF = CMD_LONG,
	OPT_THREADS,
	OPT_FORMAT,
	OPT_SUMMARY,
	OPT_NAIVE,
	OPT_PROFILE,
	OPT_SHAPE_CACHE,
	OPT_PLUGINS,
	OPT_QUIET,
	OPT_KUBE
};

typedef enum out_format {
	OUT_TEXT = 0,
	OUT_YAML = 1,
	OUT_JSON = 2
} out_format;

/* Options shared by run and check. A file named "-" is standard input. */
typedef struct run_opts {
	const char *conf_file;  /* --conf: overrides the scenario's conf */
	int threads;            /* --threads */
	bool naive;             /* --naive */
	bool profile;           /* --profile */
	const char *plugin_dir; /* --plugins: loaded by load_plugins before any scenario */
	int shape_cache_mb;     /* --shape-cache-mb; 0: the kernel's default */
	bool notes_name_file;   /* check: the no-conf note names the scenario file */
	/* NULL, or false for a loaded scenario not worth running (check: nothing to check) */
	bool (*wanted)(const tph_scenario *scn);
	/* run --kube: kubectl dumps imported in memory (kube/kube.h) instead of a scenario file */
	const char *kube[16];
	int n_kube;
} run_opts;

/* An option run and check share (--threads, --naive, --plugins) into `o`: 1 when `c` was one,
 * 0 when not, -1 after a usage error. */
int run_opt(const cmd_args *a, int c, run_opts *o);
/* --format's value into *fmt; false after a usage error naming `cmd`. */
bool parse_format(const char *cmd, const cmd_args *a, out_format *fmt);

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
	tph_kai_snapshot *kai_snap;  /* a kai scenario's snapshot and session (no snap, ssn) */
	tph_kai_session *kai_ssn;
	double kai_open_ms; /* part of session_ms */
	double snap_ms;     /* the snapshot's part of session_ms (either flavour) */
} run_result;

/* Load --plugins, if given, before any scenario or conf: loading a conf checks its plugin names
 * against the registry. Prints the error as `tephra CMD: ...` and returns CLI_USAGE, or CLI_OK;
 * an external plugin that overrides a built-in gets one line on stderr. */
int load_plugins(const char *cmd, const run_opts *o);

/* Load, snapshot, open, (probe hook), run, close. Plugins are loaded already (load_plugins). A
 * scenario that o->wanted refuses stops after loading, with TPH_DECLINED. A scenario without a
 * conf, and no --conf, runs Volcano's default conf (TPH_CONF_VOLCANO_DEFAULT), said on stderr. A
 * scenario with extenderResponses gets a loopback server for them first, and the extender
 * plugin's `extender.urlPrefix` points at it (in the conf the session uses). On failure returns
 * a negative status with the message in r->diag; r must still be released with run_release(). */
int run_scenario(const char *path, const run_opts *o, run_result *r,
                 int (*after_open)(run_result *r, void *ud), void *ud);
void run_release(run_result *r);

void write_text(FILE *f, const run_result *r, bool summary_only);
/* A kai scenario's decisions (output_kai.c): text, or one JSON object (also for yaml); with
 * `summary` (text) the counts and timing instead of one line per decision. */
void write_kai(FILE *f, const run_result *r, bool json, bool summary);
/* --profile for a kai scenario: wall time per action. */
void write_kai_profile(FILE *f, const run_result *r);
void write_yaml(FILE *f, const run_result *r);
void write_json(FILE *f, const run_result *r);
/* --summary --format yaml|json: counts, timing and memory (README, "Using it"). */
void write_summary(FILE *f, const run_result *r, bool json);
/* The session memory budget: 256 B per node and 128 B per task of the snapshot. */
double mem_budget(const run_result *r);
/* A JSON string (also a YAML double-quoted scalar). */
void json_str(FILE *f, const char *s);

/* Why jobs are pending and the queue readout (output_why.c), only the job `job` when it is
 * not NULL: JSON's `"jobs"` and `"queues"` keys (the object's last), YAML's, and text lines
 * (with each job's podgroup condition when `conditions`). */
void json_why(FILE *f, const tph_decision_log *l, const char *job);
void yaml_why(FILE *f, const tph_decision_log *l, const char *job);
void text_why(FILE *f, const tph_decision_log *l, const char *job, bool conditions);

int cmd_run(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_check(int argc, char **argv);

#endif

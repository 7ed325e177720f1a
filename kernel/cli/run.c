/* `tephra run SCENARIO`: run a scenario's session and print its decisions. */
#include "cli.h"

#include <string.h>

static const char run_usage[] =
    "usage: tephra run SCENARIO [options]\n"
    "\n"
    "Runs the scenario's session (snapshot, open, actions, close) and prints the decisions:\n"
    "binds, evictions, pipelined tasks, podgroup phases, why each unplaced task is pending,\n"
    "and the time per phase.\n"
    "\n"
    "Options:\n"
    "  --conf FILE        use this Volcano scheduler conf instead of the scenario's\n"
    "  --threads N        threads for filtering and scoring (default: OMP_NUM_THREADS)\n"
    "  --format FMT       text (default), yaml or json (the spec's decision output)\n"
    "  --summary          print only a short summary (counts and timings)\n"
    "  --naive            naive mode: no equivalence classes, no incremental updates\n"
    "  --profile          count calls and time per action and extension point\n"
    "  --shape-cache-mb N cap allocate's per-shape candidate state at N MiB (default 256):\n"
    "                     lower peak memory, more nodes evaluated, same decisions\n"
    "  --plugins PATH     load external plugins (a .so file or a directory of them) before\n"
    "                     the scenario, so its conf may name them; one named like a\n"
    "                     built-in plugin replaces it (with a warning on stderr)\n";

/* Parse options shared by run and check; returns the index of the first non-option or -1. */
static int parse_opts(int argc, char **argv, run_opts *o, out_format *fmt, bool *summary,
                      const char **scenario)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--conf") && v) {
			o->conf_file = v;
			i++;
		} else if (!strcmp(a, "--threads") && v && parse_int(v, 1, 1024, &o->threads)) {
			i++;
		} else if (!strcmp(a, "--shape-cache-mb") && v &&
		           parse_int(v, 1, 1 << 20, &o->shape_cache_mb)) {
			i++;
		} else if (!strcmp(a, "--plugins") && v) {
			o->plugin_dir = v;
			i++;
		} else if (!strcmp(a, "--format") && v &&
		           (!strcmp(v, "text") || !strcmp(v, "yaml") || !strcmp(v, "json"))) {
			*fmt = v[0] == 't' ? OUT_TEXT : v[0] == 'y' ? OUT_YAML : OUT_JSON;
			i++;
		} else if (!strcmp(a, "--summary")) {
			*summary = true;
		} else if (!strcmp(a, "--naive")) {
			o->naive = true;
		} else if (!strcmp(a, "--profile")) {
			o->profile = true;
		} else if (a[0] != '-' && !*scenario) {
			*scenario = a;
		} else {
			fprintf(stderr, "tephra run: bad or incomplete option '%s'\n", a);
			return -1;
		}
	}
	return 0;
}

/* --profile: wall time per action, then calls (and nodes evaluated) per extension point. */
static void write_profile(FILE *f, const run_result *r)
{
	const tph_decision_log *l = r->log;
	fputs("profile: action            calls         ms\n", f);
	for (uint32_t i = 0; i < l->n_actions; i++)
		fprintf(f, "  %-22s %7u %10.2f\n", l->actions[i].action, 1u, l->actions[i].ms);
	const tph_profile_row *rows;
	uint32_t n;
	if (tph_session_profile(r->ssn, &rows, &n) != TPH_OK)
		return;
	fputs("profile: extension point   calls      nodes evaluated         ms   ns/node\n", f);
	for (uint32_t i = 0; i < n; i++) {
		fprintf(f, "  %-22s %10llu %20llu", rows[i].ep, (unsigned long long)rows[i].calls,
		        (unsigned long long)rows[i].nodes);
		if (rows[i].nodes)
			fprintf(f, " %10.2f %9.1f", rows[i].ms,
			        rows[i].ms * 1e6 / (double)rows[i].nodes);
		fputc('\n', f);
	}
}

int cmd_run(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(run_usage, stdout);
			return CLI_OK;
		}
	run_opts o = {0};
	out_format fmt = OUT_TEXT;
	bool summary = false;
	const char *scenario = NULL;
	if (parse_opts(argc, argv, &o, &fmt, &summary, &scenario) < 0 || !scenario) {
		if (!scenario)
			fputs("tephra run: no scenario file given\n", stderr);
		fputs(run_usage, stderr);
		return CLI_USAGE;
	}
	if (load_plugins("run", &o) != CLI_OK)
		return CLI_USAGE;
	run_result r;
	int rc = run_scenario(scenario, &o, &r, NULL, NULL);
	if (rc) {
		fprintf(stderr, "tephra run: %s\n", r.diag.msg[0] ? r.diag.msg : tph_strerror(rc));
		run_release(&r);
		return CLI_USAGE;
	}
	if (fmt == OUT_JSON)
		write_json(stdout, &r);
	else if (fmt == OUT_YAML)
		write_yaml(stdout, &r);
	else
		write_text(stdout, &r, summary);
	if (o.profile && fmt == OUT_TEXT)
		write_profile(stdout, &r);
	run_release(&r);
	return CLI_OK;
}

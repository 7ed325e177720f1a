/* `tephra run SCENARIO`: run a scenario's session and print its decisions. */
#include "cli.h"

#include <string.h>

static const char run_usage[] =
    "usage: tephra run SCENARIO [options]\n"
    "       tephra run --kube FILE|DIR [--kube ...] [options]\n"
    "\n"
    "Runs the scenario's session (snapshot, open, actions, close) and prints the decisions:\n"
    "binds, evictions, pipelined tasks, podgroup phases, why each unplaced task is pending,\n"
    "the time per phase, then why each pending job is pending and every queue's readout\n"
    "(deserved, allocated, request, share; see `tephra explain`). SCENARIO `-` is standard input. "
    "A scenario without a conf, run\n"
    "without --conf, gets Volcano's default conf (a note on stderr says so).\n"
    "\n"
    "Options (`--opt=value` or `--opt value`; `--` ends them):\n"
    "  --kube FILE|DIR    run kubectl objects (`kubectl get ... -o yaml|json`) instead of\n"
    "                     a scenario, imported in memory as `tephra import kube` does;\n"
    "                     repeat it for several dumps\n"
    "  --conf FILE        use this Volcano scheduler conf instead of the scenario's\n"
    "                     (`-`: standard input)\n"
    "  --threads N        threads for filtering and scoring (default: OMP_NUM_THREADS)\n"
    "  --format FMT       text (default), yaml or json (the spec's decision output)\n"
    "  --summary          print only a short summary (counts, timings, memory), in the\n"
    "                     --format given\n"
    "  --naive            naive mode: no equivalence classes, no incremental updates\n"
    "  --profile          count calls and time per action and extension point (text)\n"
    "  --shape-cache-mb N cap allocate's per-shape candidate state at N MiB (default: room\n"
    "                     for 256 shapes, ~4.2 KiB per ready node, at least 256 MiB):\n"
    "                     lower peak memory, more nodes evaluated, same decisions\n"
    "  --plugins PATH     load external plugins (a .so file or a directory of them) before\n"
    "                     the scenario, so its conf may name them; one named like a\n"
    "                     built-in plugin replaces it (with a warning on stderr)\n"
    "  -h, --help         show this help\n";

static const struct option run_longs[] = {
    {"help", no_argument, NULL, 'h'},
    {"conf", required_argument, NULL, OPT_CONF},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"summary", no_argument, NULL, OPT_SUMMARY},
    {"naive", no_argument, NULL, OPT_NAIVE},
    {"profile", no_argument, NULL, OPT_PROFILE},
    {"shape-cache-mb", required_argument, NULL, OPT_SHAPE_CACHE},
    {"plugins", required_argument, NULL, OPT_PLUGINS},
    {"kube", required_argument, NULL, OPT_KUBE},
    {NULL, 0, NULL, 0},
};

/* What `tephra run` was asked for. */
typedef struct run_args {
	run_opts o;
	out_format fmt;
	bool summary;
	const char *scenario;
} run_args;

int run_opt(const cmd_args *a, int c, run_opts *o)
{
	uint32_t v;
	switch (c) {
	case OPT_THREADS:
		if (!cmd_u32(a, "threads", 1, 1024, &v))
			return -1;
		o->threads = (int)v;
		return 1;
	case OPT_NAIVE:
		o->naive = true;
		return 1;
	case OPT_PLUGINS:
		o->plugin_dir = a->arg;
		return 1;
	default:
		return 0;
	}
}

bool parse_format(const char *cmd, const cmd_args *a, out_format *fmt)
{
	static const char *const names[] = {"text", "yaml", "json"};
	for (int i = 0; i < 3; i++)
		if (!strcmp(a->arg, names[i])) {
			*fmt = (out_format)i;
			return true;
		}
	cmd_usage_error(cmd, "--format wants text, yaml or json, not '%s'", a->arg);
	return false;
}

/* One option or operand; CLI_OK to go on. */
static int run_arg(const cmd_args *a, int c, void *ud)
{
	run_args *ra = ud;
	uint32_t mb;
	int shared = run_opt(a, c, &ra->o);
	if (shared)
		return shared > 0 ? CLI_OK : CLI_USAGE;
	switch (c) {
	case 'h':
		fputs(run_usage, stdout);
		return CLI_DONE;
	case OPT_CONF:
		ra->o.conf_file = a->arg;
		return CLI_OK;
	case OPT_FORMAT:
		return parse_format("run", a, &ra->fmt) ? CLI_OK : CLI_USAGE;
	case OPT_SUMMARY:
		ra->summary = true;
		return CLI_OK;
	case OPT_PROFILE:
		ra->o.profile = true;
		return CLI_OK;
	case OPT_SHAPE_CACHE:
		if (!cmd_u32(a, "shape-cache-mb", 1, 1 << 20, &mb))
			return CLI_USAGE;
		ra->o.shape_cache_mb = (int)mb;
		return CLI_OK;
	case OPT_KUBE:
		if (ra->o.n_kube == (int)(sizeof ra->o.kube / sizeof ra->o.kube[0]))
			return cmd_usage_error("run", "--kube given more than %d times",
			                       ra->o.n_kube);
		ra->o.kube[ra->o.n_kube++] = a->arg;
		return CLI_OK;
	case CMD_OPERAND: /* one scenario at a time */
		return cmd_operand(a, &ra->scenario);
	default:
		return CLI_USAGE; /* CMD_ERROR: said already */
	}
}

static int parse_run(int argc, char **argv, run_args *ra)
{
	cmd_args a;
	cmd_args_init(&a, "run", argc, argv, "h", run_longs);
	int rc = cmd_parse(&a, run_arg, ra);
	if (rc != CLI_OK)
		return rc;
	if (ra->scenario && ra->o.n_kube)
		return cmd_usage_error("run", "a scenario and --kube cannot both be given");
	if (!ra->scenario && !ra->o.n_kube)
		return cmd_usage_error("run", "no scenario file given");
	if (!ra->scenario)
		ra->scenario = ra->o.kube[0];
	if (!strcmp(ra->scenario, "-") && ra->o.conf_file && !strcmp(ra->o.conf_file, "-"))
		return cmd_usage_error("run",
		                       "the scenario and --conf cannot both be standard input");
	return CLI_OK;
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
	run_args ra = {.fmt = OUT_TEXT};
	int rc = parse_run(argc, argv, &ra);
	if (rc != CLI_OK)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (load_plugins("run", &ra.o) != CLI_OK)
		return CLI_USAGE;
	run_result r;
	rc = run_scenario(ra.scenario, &ra.o, &r, NULL, NULL);
	if (rc) {
		fprintf(stderr, "tephra run: %s\n", r.diag.msg[0] ? r.diag.msg : tph_strerror(rc));
		run_release(&r);
		return CLI_USAGE;
	}
	if (r.kai_ssn)
		write_kai(stdout, &r, ra.fmt != OUT_TEXT, ra.summary);
	else if (ra.summary && ra.fmt != OUT_TEXT)
		write_summary(stdout, &r, ra.fmt == OUT_JSON);
	else if (ra.fmt == OUT_JSON)
		write_json(stdout, &r);
	else if (ra.fmt == OUT_YAML)
		write_yaml(stdout, &r);
	else
		write_text(stdout, &r, ra.summary);
	if (ra.o.profile && ra.fmt == OUT_TEXT)
		(r.kai_ssn ? write_kai_profile : write_profile)(stdout, &r);
	run_release(&r);
	return CLI_OK;
}

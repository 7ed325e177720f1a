/* `tephra explain SCENARIO`: run a scenario's session and say why each pending job is pending
 * (tph_job_row), with the podgroup condition Volcano would write, and each queue's readout and
 * pending summary (tph_queue_row). */
#include "cli.h"

#include <string.h>

static const char explain_usage[] =
    "usage: tephra explain SCENARIO [options]\n"
    "\n"
    "Runs the scenario's session and prints, for every pending job (a podgroup with a task\n"
    "left Pending, or fewer ready tasks than minMember), one line saying why, with numbers:\n"
    "not enqueued (which plugin's vote rejected it and why), its queue's share, gang short\n"
    "(\"needs 8, 5 placeable: 3 tasks fit no node — 2 Insufficient nvidia.com/gpu, ...\"),\n"
    "hard network topology, invalid, pipelined; the podgroup condition Volcano's gang plugin\n"
    "would write; then every queue: deserved, allocated, request, inqueue, capability,\n"
    "guarantee, share and state, and its pending jobs by kind.\n"
    "\n"
    "Options (`--opt=value` or `--opt value`; `--` ends them):\n"
    "  --conf FILE        use this Volcano scheduler conf instead of the scenario's\n"
    "  --format FMT       text (default), yaml or json (keys `jobs` and `queues`)\n"
    "  --job NS/NAME      only this podgroup (the queues are still all listed)\n"
    "  --threads N        threads for filtering and scoring (default: OMP_NUM_THREADS)\n"
    "  --plugins PATH     load external plugins (a .so file or a directory of them)\n"
    "  -h, --help         show this help\n";

enum {
	OPT_JOB = OPT_QUIET + 1
};

static const struct option explain_longs[] = {
    {"help", no_argument, NULL, 'h'},
    {"conf", required_argument, NULL, OPT_CONF},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"job", required_argument, NULL, OPT_JOB},
    {"plugins", required_argument, NULL, OPT_PLUGINS},
    {NULL, 0, NULL, 0},
};

typedef struct explain_args {
	run_opts o;
	out_format fmt;
	const char *job;
	const char *scenario;
} explain_args;

static int explain_arg(const cmd_args *a, int c, void *ud)
{
	explain_args *ea = ud;
	int shared = run_opt(a, c, &ea->o);
	if (shared)
		return shared > 0 ? CLI_OK : CLI_USAGE;
	switch (c) {
	case 'h':
		fputs(explain_usage, stdout);
		return CLI_DONE;
	case OPT_CONF:
		ea->o.conf_file = a->arg;
		return CLI_OK;
	case OPT_FORMAT:
		return parse_format("explain", a, &ea->fmt) ? CLI_OK : CLI_USAGE;
	case OPT_JOB:
		ea->job = a->arg;
		return CLI_OK;
	case CMD_OPERAND:
		return cmd_operand(a, &ea->scenario);
	default:
		return CLI_USAGE;
	}
}

static bool has_job(const tph_decision_log *l, const char *job)
{
	for (uint32_t i = 0; i < l->n_jobs; i++)
		if (!strcmp(l->jobs[i].podgroup, job))
			return true;
	for (uint32_t i = 0; i < l->n_phases; i++)
		if (!strcmp(l->phases[i].podgroup, job))
			return true;
	return false;
}

static void write_explain(const explain_args *ea, const run_result *r)
{
	const tph_decision_log *l = r->log;
	if (ea->fmt == OUT_JSON) {
		fputs("{\n  \"scenario\": ", stdout);
		json_str(stdout, tph_scenario_name(r->scn));
		fputs(",\n", stdout);
		json_why(stdout, l, ea->job);
		fputs("}\n", stdout);
	} else if (ea->fmt == OUT_YAML) {
		fputs("scenario: ", stdout);
		json_str(stdout, tph_scenario_name(r->scn));
		fputc('\n', stdout);
		yaml_why(stdout, l, ea->job);
	} else {
		printf("%s: %u of %u jobs pending\n", tph_scenario_name(r->scn), l->n_jobs,
		       l->jobs_total);
		text_why(stdout, l, ea->job, true);
	}
}

int cmd_explain(int argc, char **argv)
{
	explain_args ea = {.fmt = OUT_TEXT};
	cmd_args a;
	cmd_args_init(&a, "explain", argc, argv, "h", explain_longs);
	int rc = cmd_parse(&a, explain_arg, &ea);
	if (rc != CLI_OK)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (!ea.scenario)
		return cmd_usage_error("explain", "no scenario file given");
	if (load_plugins("explain", &ea.o) != CLI_OK)
		return CLI_USAGE;
	run_result r;
	rc = run_scenario(ea.scenario, &ea.o, &r, NULL, NULL);
	if (rc) {
		fprintf(stderr, "tephra explain: %s\n",
		        r.diag.msg[0] ? r.diag.msg : tph_strerror(rc));
		run_release(&r);
		return CLI_USAGE;
	}
	if (ea.job && !has_job(r.log, ea.job)) {
		fprintf(stderr, "tephra explain: %s: no podgroup '%s'\n", ea.scenario, ea.job);
		run_release(&r);
		return CLI_USAGE;
	}
	write_explain(&ea, &r);
	run_release(&r);
	return CLI_OK;
}

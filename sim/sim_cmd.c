/* `tephra simulate`'s command line (getopt_long, as every tephra command) and its progress bar. */
#include "sim_cmd.h"
#include "cmdline.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: tephra simulate SCENARIO [options]\n"
    "       tephra simulate --gen PROFILE [--seed N] [options]\n"
    "\n"
    "Replays a workload over time through the host loop (cache updates, snapshot, session,\n"
    "apply), one session per cycle: jobs arrive at their creationTimestamp, bound pods run\n"
    "for their podgroup's tephra.io/duration (seconds) and complete, evicted pods come back\n"
    "pending. Writes per-cycle metrics as JSON lines and an HTML report (sim/README.md).\n"
    "\n"
    "Workload:\n"
    "  SCENARIO            a scenario file (e.g. `tephra import alibaba DIR --durations`)\n"
    "  --gen PROFILE       a generated profile (tephra gen --help) whose pending gangs arrive\n"
    "                      as a Poisson process with log-normal durations, from --seed\n"
    "  --seed N            seed of the profile and of the draws (default 1)\n"
    "  --nodes N, --tasks N, --jobs N, --queues N   override the profile\n"
    "  --arrive-over S     --gen: mean gap between arrivals is S / gangs (default 3600)\n"
    "  --median S          --gen: median duration in seconds (default 600)\n"
    "  --sigma X           --gen: log-normal shape (default 1)\n"
    "  --arrivals FILE     per job `namespace/podgroup ARRIVAL_S [DURATION_S|-]`, seconds\n"
    "                      after the scenario's now (sim/README.md)\n"
    "  --from S            start S seconds after the first arrival (jobs alive then\n"
    "                      arrive at the start with what is left of their run)\n"
    "  --span S            stop after S seconds (default: when nothing is left to happen)\n"
    "\n"
    "Scheduling:\n"
    "  --conf FILE         the conf (default: the scenario's, else Volcano's default)\n"
    "  --compare A B       run conf A and conf B over the same workload, side by side\n"
    "  --period S          cycle period in seconds (default 1, Volcano's schedulePeriod)\n"
    "  --threads N         session threads (decisions do not depend on it)\n"
    "  --no-skip           run a session every cycle, even when it cannot decide anything\n"
    "  --capacity          FGD's capacity experiment instead of the replay: jobs in a random\n"
    "                      order from --seed, one per cycle, no departures, until the\n"
    "                      arrived GPU request reaches --stop percent of the GPUs\n"
    "  --stop PCT          (default 130)\n"
    "\n"
    "Output:\n"
    "  --jsonl FILE        one JSON object per cycle run, then a summary (`-`: stdout)\n"
    "  --html FILE         a self-contained XHTML report with SVG plots\n"
    "  -h, --help          show this help\n"
    "\n"
    "A progress bar goes to standard error when it is a terminal.\n";

enum {
	OPT_GEN = CMD_LONG,
	OPT_SEED,
	OPT_NODES,
	OPT_TASKS,
	OPT_JOBS,
	OPT_QUEUES,
	OPT_OVER,
	OPT_MEDIAN,
	OPT_SIGMA,
	OPT_ARRIVALS,
	OPT_FROM,
	OPT_SPAN,
	OPT_CONF,
	OPT_COMPARE,
	OPT_PERIOD,
	OPT_THREADS,
	OPT_NO_SKIP,
	OPT_CAPACITY,
	OPT_STOP,
	OPT_JSONL,
	OPT_HTML,
};

static const struct option longs[] = {
    {"help", no_argument, NULL, 'h'},
    {"gen", required_argument, NULL, OPT_GEN},
    {"seed", required_argument, NULL, OPT_SEED},
    {"nodes", required_argument, NULL, OPT_NODES},
    {"tasks", required_argument, NULL, OPT_TASKS},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"queues", required_argument, NULL, OPT_QUEUES},
    {"arrive-over", required_argument, NULL, OPT_OVER},
    {"median", required_argument, NULL, OPT_MEDIAN},
    {"sigma", required_argument, NULL, OPT_SIGMA},
    {"arrivals", required_argument, NULL, OPT_ARRIVALS},
    {"from", required_argument, NULL, OPT_FROM},
    {"span", required_argument, NULL, OPT_SPAN},
    {"conf", required_argument, NULL, OPT_CONF},
    {"compare", required_argument, NULL, OPT_COMPARE},
    {"period", required_argument, NULL, OPT_PERIOD},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"no-skip", no_argument, NULL, OPT_NO_SKIP},
    {"capacity", no_argument, NULL, OPT_CAPACITY},
    {"stop", required_argument, NULL, OPT_STOP},
    {"jsonl", required_argument, NULL, OPT_JSONL},
    {"html", required_argument, NULL, OPT_HTML},
    {NULL, 0, NULL, 0},
};

typedef sim_args args;

static bool number(const cmd_args *a, const char *name, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(a->arg, &end);
	if (*a->arg && !*end && !errno && v >= lo && v <= hi) {
		*out = v;
		return true;
	}
	cmd_usage_error("simulate", "--%s wants a number in [%g, %g], not '%s'", name, lo, hi,
	                a->arg);
	return false;
}

static int counts(const cmd_args *a, int c, args *g)
{
	switch (c) {
	case OPT_SEED:
		return cmd_u32(a, "seed", 0, UINT32_MAX, &g->seed) ? 0 : 2;
	case OPT_NODES:
		return cmd_u32(a, "nodes", 1, 10000000, &g->nodes) ? 0 : 2;
	case OPT_TASKS:
		return cmd_u32(a, "tasks", 0, 100000000, &g->tasks) ? 0 : 2;
	case OPT_JOBS:
		return cmd_u32(a, "jobs", 1, 100000000, &g->jobs) ? 0 : 2;
	case OPT_QUEUES:
		return cmd_u32(a, "queues", 1, 100000, &g->queues) ? 0 : 2;
	case OPT_FROM:
		return cmd_u32(a, "from", 0, 1000000000, &g->from) ? 0 : 2;
	case OPT_SPAN:
		g->has_span = true;
		return cmd_u32(a, "span", 1, 1000000000, &g->span) ? 0 : 2;
	case OPT_THREADS:
		return cmd_u32(a, "threads", 0, 1024, &g->threads) ? 0 : 2;
	case OPT_STOP:
		return cmd_u32(a, "stop", 1, 1000, &g->stop) ? 0 : 2;
	case OPT_OVER:
		return number(a, "arrive-over", 0, 1e9, &g->over) ? 0 : 2;
	case OPT_MEDIAN:
		return number(a, "median", 0.001, 1e9, &g->median) ? 0 : 2;
	case OPT_SIGMA:
		return number(a, "sigma", 0, 10, &g->sigma) ? 0 : 2;
	case OPT_PERIOD:
		return number(a, "period", 0.001, 86400, &g->period) ? 0 : 2;
	default:
		return 1;
	}
}

/* One option or operand; 0 to go on, 2 after a usage error, -1 after --help. */
static int sim_arg(const cmd_args *a, int c, void *ud)
{
	args *g = ud;
	int rc = counts(a, c, g);
	if (rc != 1)
		return rc;
	switch (c) {
	case 'h':
		fputs(usage, stdout);
		return -1;
	case OPT_GEN:
		g->profile = a->arg;
		return 0;
	case OPT_ARRIVALS:
		g->arrivals = a->arg;
		return 0;
	case OPT_CONF:
		g->confs[0] = a->arg;
		g->n_confs = 1;
		return 0;
	case OPT_COMPARE:
		g->confs[0] = a->arg;
		g->n_confs = 2;
		g->expect_b = true;
		return 0;
	case OPT_NO_SKIP:
		g->no_skip = true;
		return 0;
	case OPT_CAPACITY:
		g->capacity = true;
		return 0;
	case OPT_JSONL:
		g->jsonl = a->arg;
		return 0;
	case OPT_HTML:
		g->html = a->arg;
		return 0;
	case CMD_OPERAND:
		if (g->expect_b) { /* --compare A B: B is the operand right after */
			g->expect_b = false;
			g->confs[1] = a->arg;
			return 0;
		}
		return cmd_operand(a, &g->scenario);
	default:
		return 2; /* CMD_ERROR: said already */
	}
}

int sim_parse(int argc, char **argv, sim_args *g)
{
	cmd_args a;
	cmd_args_init(&a, "simulate", argc, argv, "h", longs);
	int rc = cmd_parse(&a, sim_arg, g);
	if (rc)
		return rc;
	if (g->expect_b)
		return cmd_usage_error("simulate", "--compare wants two confs (--compare A B)");
	if (!g->scenario == !g->profile)
		return cmd_usage_error("simulate", g->profile
		                                       ? "a scenario or --gen, not both"
		                                       : "no scenario given (or --gen PROFILE)");
	return 0;
}

void sim_progress(const sim_opts *o, double frac, int64_t t_s)
{
	static int last = -1;
	if (!o->progress)
		return;
	if (frac < 0) {
		if (last >= 0)
			fputs("\r\033[K", stderr);
		last = -1;
		return;
	}
	int pct = frac > 1 ? 100 : (int)(frac * 100);
	if (pct == last)
		return;
	last = pct;
	char bar[41];
	memset(bar, '#', (size_t)pct * 40 / 100);
	memset(bar + pct * 40 / 100, '.', 40 - (size_t)pct * 40 / 100);
	bar[40] = 0;
	fprintf(stderr, "\r[%s] %3d%% t=%llds", bar, pct, (long long)t_s);
}

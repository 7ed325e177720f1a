/* `tephra gen PROFILE [options] -o FILE`: write a synthetic scenario. */
#include "cmdline.h"
#include "datasets.h"
#include "out_file.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char gen_usage[] =
    "usage: tephra gen PROFILE [options] -o FILE\n"
    "\n"
    "Writes a synthetic scenario (shared/spec/scenario-format.md). The same profile, flags\n"
    "and seed give the same bytes on every machine.\n"
    "\n"
    "Profiles:\n"
    "  1k-small       1,000 nodes, 10,000 pending tasks in ~500 gangs, 4 queues\n"
    "  10k-standard   10,000 heterogeneous nodes at ~30% running load, 100,000 pending\n"
    "                 tasks in ~5,000 gangs of 1-128 over 16 queues; Volcano's default\n"
    "                 conf plus binpack\n"
    "  10k-preempt    10,000 nodes ~95% full of low-priority preemptable work, 20,000\n"
    "                 mostly high-priority pending tasks; conf with reclaim and preempt\n"
    "  10k-topology   10,000 nodes in racks and spines (2 hypernode tiers), 50,000 tasks,\n"
    "                 most gangs network-topology aware; adds network-topology-aware\n"
    "  100k-nodes     100,000 nodes, 200,000 pending tasks in ~10,000 gangs, 64 queues\n"
    "  10k-mixed      10,000 nodes ~80% full (half of it low-priority, piled in a quarter of\n"
    "                 the queues), 30,000 pending tasks of mixed priority, a fifth of the\n"
    "                 gangs network-topology aware over racks and spines; Volcano's\n"
    "                 Helm-chart conf with enqueue, allocate, preempt, reclaim, backfill\n"
    "  10k-gpu        a KAI scenario (flavour: kai, KAI's default conf): 10,000 nodes of 8\n"
    "                 GPUs, ~75% of them busy; 64 quota'd queues in 8 departments, the hot\n"
    "                 third over quota; 20,000 pending pods: gangs, elastic, whole-GPU,\n"
    "                 gpu-fraction, gpu-memory and CPU jobs (uses --seed --nodes --tasks\n"
    "                 --queues --max-gang --load --rack-size only)\n"
    "\n"
    "Options (each overrides the profile's value; `--opt=value` or `--opt value`):\n"
    "  --seed N        PRNG seed (default 1)\n"
    "  --nodes N       nodes (exact)\n"
    "  --tasks N       pending tasks (exact)\n"
    "  --queues N      queues (exact)\n"
    "  --jobs N        pending gangs (approximate: sets the mean gang size to tasks/jobs)\n"
    "  --max-gang N    largest gang\n"
    "  --load PCT      running load in percent of each node's cpu, on average (0-98)\n"
    "  --gpu PCT       percent of racks that hold GPU nodes (0-100)\n"
    "  --tiers N       hypernode tiers: racks, spines, pods, zones (0-4)\n"
    "  --rack-size N   nodes per rack (default 20)\n"
    "  --pod-affinity PCT  percent of plain CPU gangs with required pod anti-affinity per\n"
    "                  host (zone spread when over 16 pods); default 0\n"
    "  -o, --output FILE  where to write (`-` for standard output)\n"
    "  --quiet         no summary line on standard error\n"
    "  -h, --help      show this help\n";

static bool parse_seed(const char *s, uint64_t *out)
{
	if (!s || !*s || *s == '-')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	*out = v;
	return !*end && !errno;
}

/* The numeric flags, each a field of tph_gen_opts; their getopt values are OPT_U32 + index. */
typedef struct u32_flag {
	const char *name;
	size_t off;
	uint32_t lo, hi;
} u32_flag;

static const u32_flag u32_flags[] = {
    {"nodes", offsetof(tph_gen_opts, nodes), 1, 10000000},
    {"tasks", offsetof(tph_gen_opts, tasks), 0, 100000000},
    {"queues", offsetof(tph_gen_opts, queues), 1, 100000},
    {"jobs", offsetof(tph_gen_opts, jobs), 1, 100000000},
    {"max-gang", offsetof(tph_gen_opts, max_gang), 1, 100000},
    {"load", offsetof(tph_gen_opts, load_pct), 0, 98},
    {"gpu", offsetof(tph_gen_opts, gpu_pct), 0, 100},
    {"tiers", offsetof(tph_gen_opts, tiers), 0, 4},
    {"rack-size", offsetof(tph_gen_opts, rack_size), 1, 100000},
    {"pod-affinity", offsetof(tph_gen_opts, pod_affinity_pct), 0, 100},
};
#define N_U32 (sizeof u32_flags / sizeof u32_flags[0])

enum {
	OPT_SEED = CMD_LONG,
	OPT_QUIET,
	OPT_U32
};

/* What the command line says; flags apply over the profile once it is known. */
typedef struct gen_args {
	const char *profile, *out;
	bool quiet, has_seed;
	uint64_t seed;
	uint32_t u32[N_U32];
	bool set[N_U32];
} gen_args;

static void gen_longs(struct option *l)
{
	static const struct option fixed[] = {
	    {"help", no_argument, NULL, 'h'},
	    {"output", required_argument, NULL, 'o'},
	    {"seed", required_argument, NULL, OPT_SEED},
	    {"quiet", no_argument, NULL, OPT_QUIET},
	};
	size_t n = sizeof fixed / sizeof fixed[0];
	memcpy(l, fixed, sizeof fixed);
	for (size_t i = 0; i < N_U32; i++)
		l[n + i] =
		    (struct option){u32_flags[i].name, required_argument, NULL, OPT_U32 + (int)i};
	l[n + N_U32] = (struct option){NULL, 0, NULL, 0};
}

/* One option or operand; 0 to go on, 2 after a usage error, -1 after --help. */
static int gen_arg(const cmd_args *a, int c, void *ud)
{
	gen_args *g = ud;
	if (c >= OPT_U32 && c < OPT_U32 + (int)N_U32) {
		const u32_flag *f = &u32_flags[c - OPT_U32];
		g->set[c - OPT_U32] = true;
		return cmd_u32(a, f->name, f->lo, f->hi, &g->u32[c - OPT_U32]) ? 0 : 2;
	}
	switch (c) {
	case 'h':
		fputs(gen_usage, stdout);
		return -1;
	case 'o':
		g->out = a->arg;
		return 0;
	case OPT_SEED:
		g->has_seed = true;
		if (parse_seed(a->arg, &g->seed))
			return 0;
		return cmd_usage_error("gen", "--seed wants an unsigned integer, not '%s'", a->arg);
	case OPT_QUIET:
		g->quiet = true;
		return 0;
	case CMD_OPERAND:
		return cmd_operand(a, &g->profile);
	default:
		return 2; /* CMD_ERROR: said already */
	}
}

/* The profile with the flags over it; 0, 2 after a usage error or -1 after --help. */
static int parse_gen(int argc, char **argv, tph_gen_opts *o, gen_args *g)
{
	struct option longs[4 + N_U32 + 1];
	gen_longs(longs);
	cmd_args a;
	cmd_args_init(&a, "gen", argc, argv, "ho:", longs);
	int rc = cmd_parse(&a, gen_arg, g);
	if (rc)
		return rc;
	if (!g->profile)
		return cmd_usage_error("gen", "no profile given");
	if (tph_gen_profile(g->profile, o) != 0) {
		char names[256] = "";
		for (size_t i = 0, n = 0; tph_gen_profiles[i] && n < sizeof names; i++)
			n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
			                      tph_gen_profiles[i]);
		return cmd_usage_error("gen", "unknown profile '%s' (%s)", g->profile, names);
	}
	if (!g->out)
		return cmd_usage_error("gen", "no output file (-o FILE)");
	for (size_t i = 0; i < N_U32; i++)
		if (g->set[i])
			*(uint32_t *)((char *)o + u32_flags[i].off) = g->u32[i];
	if (g->has_seed)
		o->seed = g->seed;
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void summary(const char *path, const tph_gen_stats *st, double ms)
{
	fprintf(stderr,
	        "tephra gen: wrote %s: %u nodes, %u queues, %u hypernodes, %u pending tasks in %u "
	        "jobs, %u running tasks in %u jobs; %.1f MB in %.0f ms\n",
	        path, st->nodes, st->queues, st->hypernodes, st->tasks, st->jobs, st->running_tasks,
	        st->running_jobs, (double)st->bytes / 1e6, ms);
}

int tph_cmd_gen(int argc, char **argv)
{
	tph_gen_opts o;
	gen_args g = {0};
	int rc = parse_gen(argc, argv, &o, &g);
	if (rc)
		return rc < 0 ? 0 : 2;
	out_file of;
	if (out_file_open(&of, g.out, "tephra gen") != 0)
		return 2;
	tph_gen_stats st;
	double t0 = now_ms();
	int err = tph_gen_write(&o, of.f, &st) ? (errno ? errno : EIO) : 0;
	if (out_file_close(&of, err, "tephra gen") != 0)
		return 2; /* no half-written scenario left behind */
	if (!g.quiet)
		summary(g.out, &st, now_ms() - t0);
	return 0;
}

/* `tephra gen PROFILE [options] -o FILE`: write a synthetic scenario. */
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
    "\n"
    "Options (each overrides the profile's value):\n"
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
    "  -o FILE         where to write (`-` for standard output)\n"
    "  --quiet         no summary line on standard error\n";

static bool parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	if (!s || !*s || *s == '-')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return false;
	*out = (uint32_t)v;
	return true;
}

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

typedef struct u32_flag {
	const char *name;
	size_t off;
	uint32_t lo, hi;
} u32_flag;

static const u32_flag u32_flags[] = {
    {"--nodes", offsetof(tph_gen_opts, nodes), 1, 10000000},
    {"--tasks", offsetof(tph_gen_opts, tasks), 0, 100000000},
    {"--queues", offsetof(tph_gen_opts, queues), 1, 100000},
    {"--jobs", offsetof(tph_gen_opts, jobs), 1, 100000000},
    {"--max-gang", offsetof(tph_gen_opts, max_gang), 1, 100000},
    {"--load", offsetof(tph_gen_opts, load_pct), 0, 98},
    {"--gpu", offsetof(tph_gen_opts, gpu_pct), 0, 100},
    {"--tiers", offsetof(tph_gen_opts, tiers), 0, 4},
    {"--rack-size", offsetof(tph_gen_opts, rack_size), 1, 100000},
    {"--pod-affinity", offsetof(tph_gen_opts, pod_affinity_pct), 0, 100},
};

/* Returns 1 when a known numeric flag consumed `v`, 0 when `a` is not one, -1 on a bad value. */
static int parse_u32_flag(const char *a, const char *v, tph_gen_opts *o)
{
	for (size_t i = 0; i < sizeof u32_flags / sizeof u32_flags[0]; i++) {
		const u32_flag *f = &u32_flags[i];
		if (strcmp(a, f->name) != 0)
			continue;
		uint32_t *dst = (uint32_t *)((char *)o + f->off);
		if (parse_u32(v, f->lo, f->hi, dst))
			return 1;
		fprintf(stderr, "tephra gen: %s wants an integer in [%u, %u]\n", a, f->lo, f->hi);
		return -1;
	}
	return 0;
}

static int parse_gen(int argc, char **argv, tph_gen_opts *o, const char **out, bool *quiet)
{
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int r = parse_u32_flag(a, v, o);
		if (r < 0)
			return -1;
		if (r > 0 || (!strcmp(a, "--seed") && parse_seed(v, &o->seed))) {
			i++;
		} else if (!strcmp(a, "-o") && v) {
			*out = v;
			i++;
		} else if (!strcmp(a, "--quiet")) {
			*quiet = true;
		} else {
			fprintf(stderr, "tephra gen: bad or incomplete option '%s'\n", a);
			return -1;
		}
	}
	if (!*out)
		fputs("tephra gen: no output file (-o FILE)\n", stderr);
	return *out ? 0 : -1;
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
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(gen_usage, stdout);
			return 0;
		}
	tph_gen_opts o;
	if (argc < 2 || tph_gen_profile(argv[1], &o) != 0) {
		fprintf(stderr, "tephra gen: %s%s\n\n%s",
		        argc < 2 ? "no profile given" : "unknown profile ", argc < 2 ? "" : argv[1],
		        gen_usage);
		return 2;
	}
	const char *path = NULL;
	bool quiet = false;
	if (parse_gen(argc, argv, &o, &path, &quiet) != 0) {
		fputs(gen_usage, stderr);
		return 2;
	}
	out_file of;
	if (out_file_open(&of, path, "tephra gen") != 0)
		return 2;
	tph_gen_stats st;
	double t0 = now_ms();
	int err = tph_gen_write(&o, of.f, &st) ? (errno ? errno : EIO) : 0;
	if (out_file_close(&of, err, "tephra gen") != 0)
		return 2; /* no half-written scenario left behind */
	if (!quiet)
		summary(path, &st, now_ms() - t0);
	return 0;
}

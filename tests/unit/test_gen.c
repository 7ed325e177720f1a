/* The generator and the trace importers: same seed same bytes, different seeds differ, every
 * profile's output loads, counts match the flags, `-o FILE` replaces FILE only when the whole
 * file was written, and the real traces (when shared/datasets is there) import into scenarios
 * that load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "datasets.h"
#include "shared_data.h"
#include "cache/snap.h"
#include "tephra/tephra.h"

typedef struct buf {
	char *p;
	size_t n;
} buf;

static buf gen(const tph_gen_opts *o, tph_gen_stats *st)
{
	buf b = {NULL, 0};
	FILE *f = open_memstream(&b.p, &b.n);
	assert_non_null(f);
	assert_int_equal(tph_gen_write(o, f, st), 0);
	fclose(f);
	return b;
}

/* A profile scaled down so the tests stay fast (and fast under ASan). */
static tph_gen_opts small(const char *profile)
{
	tph_gen_opts o;
	assert_int_equal(tph_gen_profile(profile, &o), 0);
	o.nodes = 300;
	o.tasks = 3000;
	o.jobs = 150;
	o.queues = 5;
	return o;
}

static void test_same_seed_same_bytes(void **state)
{
	(void)state;
	tph_gen_opts o = small("10k-standard");
	o.seed = 7;
	buf a = gen(&o, NULL), b = gen(&o, NULL);
	assert_true(a.n > 0);
	assert_int_equal(a.n, b.n);
	assert_memory_equal(a.p, b.p, a.n);
	free(a.p);
	free(b.p);
}

static void test_different_seeds_differ(void **state)
{
	(void)state;
	tph_gen_opts o = small("10k-standard");
	buf a = gen(&o, NULL);
	o.seed = 2;
	buf b = gen(&o, NULL);
	assert_true(a.n != b.n || memcmp(a.p, b.p, a.n) != 0);
	free(a.p);
	free(b.p);
}

static uint32_t count_status(const tph_snapshot *sn, uint8_t status)
{
	uint32_t k = 0;
	for (uint32_t t = 0; t < sn->tasks.n; t++)
		k += sn->tasks.status[t] == status;
	return k;
}

/* Load the bytes and check every count against the options and the writer's stats. */
static void check_loads(const tph_gen_opts *o)
{
	tph_gen_stats st;
	buf b = gen(o, &st);
	tph_diag d = {0};
	tph_scenario *sc = NULL;
	int rc = tph_scenario_load_buffer(b.p, b.n, o->profile, &sc, &d);
	if (rc)
		fail_msg("%s: %s", o->profile, d.msg);
	assert_int_equal(d.warnings, 0);
	tph_cluster *c = tph_scenario_cluster(sc);
	assert_int_equal(tph_cluster_node_count(c), o->nodes);
	assert_int_equal(tph_cluster_pod_count(c), o->tasks + st.running_tasks);
	tph_snapshot *sn = NULL;
	assert_int_equal(tph_cluster_snapshot(c, tph_scenario_now(sc), &sn, &d), 0);
	assert_int_equal(sn->queues.n, o->queues);
	assert_int_equal(sn->jobs.n, st.jobs + st.running_jobs);
	assert_int_equal(count_status(sn, TPH_TS_PENDING), o->tasks);
	assert_int_equal(count_status(sn, TPH_TS_RUNNING), st.running_tasks);
	assert_int_equal(sn->hypernodes.n, st.hypernodes);
	assert_true(o->tiers == 0 || st.hypernodes > 0);
	assert_int_equal(st.bytes, b.n);
	assert_non_null(tph_scenario_conf(sc));
	tph_snapshot_release(sn);
	tph_scenario_free(sc);
	free(b.p);
}

static void test_every_profile_loads(void **state)
{
	(void)state;
	for (const char *const *p = tph_gen_profiles; *p; p++) {
		tph_gen_opts o = small(*p);
		if (o.kind != TPH_GEN_KAI_GPU) /* test_kai_gpu_loads */
			check_loads(&o);
	}
}

static uint32_t count_kai_status(const tph_kai_view *v, uint8_t status)
{
	uint32_t k = 0;
	for (uint32_t t = 0; t < v->tasks.n; t++)
		k += v->tasks.status[t] == status;
	return k;
}

/* 10k-gpu loads as a kai scenario without a conf (KAI's default), with no warning; every
 * count matches; every queue is in the tree (none dropped); running shared-GPU pods share
 * devices; and a KAI session with allocate runs over it. */
static void check_kai_loads(const tph_gen_opts *o)
{
	tph_gen_stats st;
	buf b = gen(o, &st);
	tph_diag d = {0};
	tph_scenario *sc = NULL;
	if (tph_scenario_load_buffer(b.p, b.n, o->profile, &sc, &d))
		fail_msg("%s: %s", o->profile, d.msg);
	assert_int_equal(d.warnings, 0);
	assert_int_equal(tph_scenario_flavour(sc), TPH_CONF_KAI);
	assert_null(tph_scenario_conf(sc));
	tph_kai_snapshot *sn = NULL;
	assert_int_equal(
	    tph_kai_snapshot_build(tph_scenario_kai_cluster(sc), tph_scenario_now(sc), &sn, &d),
	    TPH_OK);
	const tph_kai_view *v = tph_kai_snapshot_view(sn);
	assert_int_equal(v->nodes.n, o->nodes);
	assert_int_equal(v->queues.n, st.queues);
	for (uint32_t q = 0; q < v->queues.n; q++)
		assert_false(v->queues.dropped[q]);
	assert_int_equal(v->jobs.n, st.jobs + st.running_jobs);
	assert_int_equal(count_kai_status(v, TPH_KAI_TS_PENDING), st.tasks);
	assert_int_equal(count_kai_status(v, TPH_KAI_TS_RUNNING), st.running_tasks);
	assert_true(st.tasks >= o->tasks); /* elastic running jobs add their pending growth */
	uint32_t shared = 0;
	for (uint32_t t = 0; t < v->tasks.n; t++)
		shared += v->tasks.gpu_fraction[t] > 0;
	assert_true(shared > 0);
	assert_int_equal(st.bytes, b.n);
	tph_conf *conf = NULL;
	static const char alloc[] = "actions: \"allocate, stalegangeviction\"\n";
	assert_int_equal(tph_conf_load_kai_string(alloc, sizeof alloc - 1, "conf", &conf, &d), 0);
	tph_kai_session *ss = NULL;
	assert_int_equal(tph_kai_session_open(sn, conf, &ss, &d), TPH_OK);
	assert_int_equal(tph_kai_session_run(ss, &d), TPH_OK);
	const tph_kai_decision *binds;
	assert_true(!st.tasks || tph_kai_session_binds(ss, &binds) > 0);
	tph_kai_session_free(ss);
	tph_conf_free(conf);
	tph_kai_snapshot_free(sn);
	tph_scenario_free(sc);
	free(b.p);
}

static void test_kai_gpu_loads(void **state)
{
	(void)state;
	tph_gen_opts o = small("10k-gpu");
	check_kai_loads(&o);
	o.nodes = 57, o.tasks = 999, o.queues = 13, o.max_gang = 64, o.load_pct = 98;
	o.rack_size = 7, o.seed = 3;
	check_kai_loads(&o);
	o.load_pct = 0, o.tasks = 0, o.queues = 1;
	check_kai_loads(&o);
}

static void test_counts_match_flags(void **state)
{
	(void)state;
	tph_gen_opts o;
	assert_int_equal(tph_gen_profile("1k-small", &o), 0);
	check_loads(&o); /* full size */
	o.nodes = 123, o.tasks = 4567, o.queues = 7, o.jobs = 89, o.max_gang = 300;
	o.load_pct = 60, o.tiers = 3, o.rack_size = 10, o.pod_affinity_pct = 30;
	check_loads(&o);
	o.load_pct = 0, o.tasks = 0;
	check_loads(&o);
}

static void test_unknown_profile_and_bad_opts(void **state)
{
	(void)state;
	tph_gen_opts o;
	assert_int_equal(tph_gen_profile("no-such-profile", &o), -1);
	assert_int_equal(tph_gen_profile("10k-topology", &o), 0);
	o.nodes = 0;
	assert_int_equal(tph_gen_write(&o, stdout, NULL), -1);
}

/* ---- -o FILE: written beside FILE, renamed into place ---- */

/* `tephra gen 1k-small -o path` (2.5 MB) in a child whose files may not pass 64 KiB: it is
 * killed part-way by SIGXFSZ, or with the signal ignored its write fails with EFBIG. The
 * child's wait status. */
static int gen_cut_short(const char *path, bool killed)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit fsize = {1 << 16, 1 << 16}, core = {0, 0};
		setrlimit(RLIMIT_CORE, &core);
		setrlimit(RLIMIT_FSIZE, &fsize);
		if (!killed)
			signal(SIGXFSZ, SIG_IGN);
		if (!freopen("/dev/null", "w", stderr))
			_exit(3);
		static char a0[] = "gen", a1[] = "1k-small", a2[] = "-o", a3[4096];
		snprintf(a3, sizeof a3, "%s", path);
		char *argv[] = {a0, a1, a2, a3, NULL};
		_exit(tph_cmd_gen(4, argv));
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void expect_content(const char *path, const char *want)
{
	char got[64] = "";
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	size_t n = fread(got, 1, sizeof got - 1, f);
	got[n] = '\0';
	fclose(f);
	assert_string_equal(got, want);
}

/* Temporaries left in dir (names starting with '.'), removed; how many there were. */
static int remove_temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] != '.' || !strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char p[4096];
		snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
		unlink(p);
		n++;
	}
	closedir(d);
	return n;
}

static void test_output_replaced_whole(void **state)
{
	(void)state;
	char dir[] = "/tmp/tph-test-gen-XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/out.yaml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("old\n", f);
	fclose(f);

	int st = gen_cut_short(path, true);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGXFSZ);
	expect_content(path, "old\n"); /* not a truncated scenario */
	remove_temporaries(dir);       /* a killed run cannot clean up */

	st = gen_cut_short(path, false);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	expect_content(path, "old\n");
	assert_int_equal(remove_temporaries(dir), 0); /* a failed run cleans up */

	/* A run that completes replaces the file, with the mode a plain open would give. */
	mode_t mask = umask(022);
	static char a0[] = "gen", a1[] = "1k-small", a2[] = "--nodes", a3[] = "5", a4[] = "--tasks",
	            a5[] = "5", a6[] = "--quiet", a7[] = "-o";
	char *argv[] = {a0, a1, a2, a3, a4, a5, a6, a7, path, NULL};
	assert_int_equal(tph_cmd_gen(9, argv), 0);
	umask(mask);
	struct stat sb;
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644);
	tph_diag d = {0};
	tph_scenario *sc = NULL;
	assert_int_equal(tph_scenario_load_file(path, &sc, &d), TPH_OK);
	assert_int_equal(tph_cluster_node_count(tph_scenario_cluster(sc)), 5);
	tph_scenario_free(sc);
	assert_int_equal(remove_temporaries(dir), 0);
	unlink(path);
	rmdir(dir);
}

/* ---- importers over the real traces (skipped when shared/datasets is absent, unless
 * TPH_REQUIRE_SHARED) ---- */

static const char *datasets_dir(char *out, size_t cap)
{
	const char *src = getenv("TPH_SOURCE_DIR");
	struct stat st;
	snprintf(out, cap, "%s/../shared/datasets", src ? src : ".");
	return stat(out, &st) == 0 ? out : NULL;
}

/* tph_cmd_import takes a writable argv, as main() gets it. */
static void check_import(const char *const *args, int argc, const char *path, uint32_t min_pods)
{
	static char store[16][4200];
	char *argv[16];
	for (int i = 0; i < argc; i++) {
		snprintf(store[i], sizeof store[i], "%s", args[i]);
		argv[i] = store[i];
	}
	assert_int_equal(tph_cmd_import(argc, argv), 0);
	tph_diag d = {0};
	tph_scenario *sc = NULL;
	int rc = tph_scenario_load_file(path, &sc, &d);
	if (rc)
		fail_msg("%s: %s", path, d.msg);
	assert_true(tph_cluster_pod_count(tph_scenario_cluster(sc)) >= min_pods);
	assert_true(tph_cluster_node_count(tph_scenario_cluster(sc)) > 0);
	tph_scenario_free(sc);
	unlink(path);
}

static void test_import_traces(void **state)
{
	(void)state;
	char dir[4096], ali[4200], itp[4200];
	if (!datasets_dir(dir, sizeof dir))
		skip_without_shared(dir);
	snprintf(ali, sizeof ali, "%s/alibaba-openb-gpu2023", dir);
	snprintf(itp, sizeof itp, "%s/msft-itp-elasticflow/raw-traces.tar.gz", dir);
	const char *out = "/tmp/tph-test-import.yaml";
	const char *a1[] = {"import", "alibaba",  ali, "--limit", "500", "--gang-window",
	                    "60",     "--queues", "3", "-o",      out};
	check_import(a1, 11, out, 500);
	const char *a2[] = {"import", "itp", itp, "--cluster", "10", "--nodes", "16", "-o", out};
	check_import(a2, 9, out, 260);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same_seed_same_bytes),
	    cmocka_unit_test(test_different_seeds_differ),
	    cmocka_unit_test(test_every_profile_loads),
	    cmocka_unit_test(test_kai_gpu_loads),
	    cmocka_unit_test(test_counts_match_flags),
	    cmocka_unit_test(test_unknown_profile_and_bad_opts),
	    cmocka_unit_test(test_output_replaced_whole),
	    cmocka_unit_test(test_import_traces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Every pending job of every conformance fixture in ../shared/conformance, and of the ITP and
 * Alibaba traces imported whole, gets a job row with a non-empty reason. "Pending" is decided here
 * from the session's public facts, not from the kernel's own rule: a podgroup with a task still
 * Pending, or whose phase is Pending or Inqueue with fewer tasks in an allocated status (or
 * Succeeded) than minMember. Skipped without
 * ../shared, unless TPH_REQUIRE_SHARED. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "datasets.h"
#include "harness.h"
#include "shared_data.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

static uint32_t n_files, n_pending_jobs;

static bool has_row(const tph_decision_log *l, const char *key)
{
	for (uint32_t i = 0; i < l->n_jobs; i++)
		if (!strcmp(l->jobs[i].podgroup, key))
			return l->jobs[i].message && l->jobs[i].message[0];
	return false;
}

static const char *phase_of(const tph_decision_log *l, const char *key)
{
	for (uint32_t i = 0; i < l->n_phases; i++)
		if (!strcmp(l->phases[i].podgroup, key))
			return l->phases[i].phase;
	return NULL;
}

static bool allocated_name(const char *st)
{
	static const char *const ok[] = {"Allocated", "Binding", "Bound", "Running", "Succeeded"};
	for (int i = 0; i < 5; i++)
		if (!strcmp(st, ok[i]))
			return true;
	return false;
}

static void check_session(const char *file, tph_session *s)
{
	const tph_decision_log *l = tph_session_decisions(s);
	uint32_t nj = tph_session_job_count(s), nt = tph_session_task_count(s);
	uint32_t *ready = calloc(nj + 1, sizeof *ready);
	uint8_t *pend = calloc(nj + 1, 1);
	assert_non_null(ready);
	assert_non_null(pend);
	for (tph_idx t = 0; t < nt; t++) {
		tph_idx j = tph_session_task_job(s, t);
		const char *st = tph_session_task_status(s, t);
		if (j == TPH_NOIDX)
			continue;
		pend[j] |= !strcmp(st, "Pending");
		ready[j] += allocated_name(st);
	}
	for (tph_idx j = 0; j < nj; j++) {
		char key[600];
		snprintf(key, sizeof key, "%s/%s", pts_str(s, s->jobs->ns[j]),
		         tph_session_job_name(s, j));
		const char *ph = phase_of(l, key);
		bool short_gang = ph && (!strcmp(ph, "Pending") || !strcmp(ph, "Inqueue")) &&
		                  (int32_t)ready[j] < tph_session_job_min_member(s, j);
		if (!pend[j] && !short_gang)
			continue;
		n_pending_jobs++;
		if (!has_row(l, key))
			fail_msg("%s: pending job %s has no job-level reason", file, key);
	}
	free(ready);
	free(pend);
}

/* Run one scenario file (its conf, else Volcano's default) and check its pending jobs. */
static void check_file(const char *path)
{
	tph_diag d = {0};
	tph_scenario *scn = NULL;
	if (tph_scenario_load_file(path, &scn, &d))
		fail_msg("%s: %s", path, d.msg);
	tph_conf *dflt = NULL;
	const tph_conf *conf = tph_scenario_conf(scn);
	if (tph_scenario_extender_response_count(scn)) { /* needs the CLI's loopback server */
		tph_scenario_free(scn);
		return;
	}
	if (!conf) {
		assert_int_equal(tph_conf_load_string(
		                     TPH_CONF_VOLCANO_DEFAULT, sizeof TPH_CONF_VOLCANO_DEFAULT - 1,
		                     "conf", tph_scenario_enable_flags_default(scn), &dflt, &d),
		                 TPH_OK);
		conf = dflt;
	}
	tph_snapshot *snap = NULL;
	tph_session *s = NULL;
	d.warn = TPH_WARN_SILENT;
	assert_int_equal(
	    tph_cluster_snapshot(tph_scenario_cluster(scn), tph_scenario_now(scn), &snap, &d), 0);
	if (tph_session_open(snap, conf, NULL, &s, &d) || tph_session_run(s, &d) ||
	    tph_session_close(s, &d))
		fail_msg("%s: %s", path, d.msg);
	check_session(path, s);
	n_files++;
	tph_session_free(s);
	tph_snapshot_release(snap);
	tph_conf_free(dflt);
	tph_scenario_free(scn);
}

static int one_file(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	size_t n = strlen(path);
	if (flag == FTW_F && n >= 5 && !strcmp(path + n - 5, ".yaml"))
		check_file(path);
	return 0;
}

static const char *shared_dir(const char *sub, char *out, size_t cap)
{
	const char *src = getenv("TPH_SOURCE_DIR");
	struct stat st;
	snprintf(out, cap, "%s/../shared/%s", src ? src : ".", sub);
	return stat(out, &st) == 0 ? out : NULL;
}

static void test_every_fixture(void **state)
{
	(void)state;
	char dir[4096];
	if (!shared_dir("conformance", dir, sizeof dir))
		skip_without_shared(dir);
	n_files = n_pending_jobs = 0;
	assert_int_equal(nftw(dir, one_file, 16, FTW_PHYS), 0);
	assert_true(n_files > 100);
	assert_true(n_pending_jobs > 0);
	printf("%u fixtures, %u pending jobs, each with a reason\n", n_files, n_pending_jobs);
}

/* The traces as `tephra import` writes them, whole (issue 16: the ITP import's 68,539 podgroups
 * that never pass enqueue had no reason). tph_cmd_import takes a writable argv. */
static void import_and_check(int argc, const char *const *args, const char *out)
{
	char store[12][4200], *argv[12];
	for (int i = 0; i < argc; i++) {
		snprintf(store[i], sizeof store[i], "%s", args[i]);
		argv[i] = store[i];
	}
	assert_int_equal(tph_cmd_import(argc, argv), 0);
	n_files = n_pending_jobs = 0;
	check_file(out);
	unlink(out);
	assert_true(n_pending_jobs > 0);
	printf("%s: %u pending jobs, each with a reason\n", args[1], n_pending_jobs);
}

static void test_imported_traces(void **state)
{
	(void)state;
	char dir[4096], ali[4300], itp[4300], out[64];
	if (!shared_dir("datasets", dir, sizeof dir))
		skip_without_shared(dir);
	snprintf(ali, sizeof ali, "%s/alibaba-openb-gpu2023", dir);
	snprintf(itp, sizeof itp, "%s/msft-itp-elasticflow/raw-traces.tar.gz", dir);
	snprintf(out, sizeof out, "/tmp/tph-test-jobwhy-%ld.yaml", (long)getpid());
	const char *a1[] = {"import", "itp", itp, "-o", out};
	import_and_check(5, a1, out);
	const char *a2[] = {"import", "alibaba", ali, "-o", out};
	import_and_check(5, a2, out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_fixture),
	    cmocka_unit_test(test_imported_traces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

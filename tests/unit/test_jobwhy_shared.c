/* Every pending job of every conformance fixture in ../shared/conformance gets a job row with a
 * non-empty reason. "Pending" is decided here from the session's public facts, not from the
 * kernel's own rule: a podgroup with a task still Pending, or whose phase is Pending or Inqueue
 * with fewer tasks in an allocated status (or Succeeded) than minMember. Skipped without
 * ../shared, unless TPH_REQUIRE_SHARED. */
#define _XOPEN_SOURCE 700
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "shared_data.h"

#include <ftw.h>
#include <sys/stat.h>

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

static int one_file(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	size_t n = strlen(path);
	if (flag != FTW_F || n < 5 || strcmp(path + n - 5, ".yaml"))
		return 0;
	tph_diag d = {0};
	tph_scenario *scn = NULL;
	if (tph_scenario_load_file(path, &scn, &d))
		fail_msg("%s: %s", path, d.msg);
	tph_conf *dflt = NULL;
	const tph_conf *conf = tph_scenario_conf(scn);
	if (tph_scenario_extender_response_count(scn)) { /* needs the CLI's loopback server */
		tph_scenario_free(scn);
		return 0;
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
	return 0;
}

static void test_every_fixture(void **state)
{
	(void)state;
	const char *src = getenv("TPH_SOURCE_DIR");
	char dir[4096];
	struct stat st;
	snprintf(dir, sizeof dir, "%s/../shared/conformance", src ? src : ".");
	if (stat(dir, &st) != 0)
		skip_without_shared(dir);
	assert_int_equal(nftw(dir, one_file, 16, FTW_PHYS), 0);
	assert_true(n_files > 100);
	assert_true(n_pending_jobs > 0);
	printf("%u fixtures, %u pending jobs, each with a reason\n", n_files, n_pending_jobs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_fixture),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Fuzz harness for the scenario loader: load the bytes with tph_scenario_load_buffer; when they
 * load, take a snapshot and run a whole session with the scenario's conf (Volcano's default
 * when it has none), answer its probe: and check its expect:, then free everything. A failed
 * load must leave nothing behind and carry a located message. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "session/check_core.h"
#include "tephra/tephra.h"

#define FILE_NAME "fuzz.yaml"

static void run_session(tph_scenario *sc)
{
	tph_diag d = {0};
	size_t warned = 0;
	d.warn = fuzz_warn;
	d.warn_ud = &warned;
	tph_conf *own = NULL;
	const tph_conf *conf = tph_scenario_conf(sc);
	if (!conf) {
		int rc = tph_conf_load_string(TPH_CONF_VOLCANO_DEFAULT,
		                              strlen(TPH_CONF_VOLCANO_DEFAULT), "default.conf",
		                              tph_scenario_enable_flags_default(sc), &own, &d);
		if (rc)
			fuzz_fail("the default conf does not load", rc, &d);
		conf = own;
	}
	tph_snapshot *snap = NULL;
	int rc = tph_cluster_snapshot(tph_scenario_cluster(sc), tph_scenario_now(sc), &snap, &d);
	if (rc) {
		if (rc != TPH_ENOMEM)
			fuzz_fail("snapshot of a loaded scenario failed", rc, &d);
		tph_conf_free(own);
		return;
	}
	(void)tph_snapshot_node_count(snap);
	(void)tph_snapshot_task_count(snap);
	(void)tph_snapshot_job_count(snap);
	tph_session_opts so = {.threads = 1};
	tph_session *ssn = NULL;
	tph_check_report rep = {0};
	rc = tph_session_open(snap, conf, &so, &ssn, &d);
	if (rc == TPH_OK) {
		tph_check_probe(sc, ssn, &rep);
		rc = tph_session_run(ssn, &d);
		if (rc == TPH_OK)
			rc = tph_session_close(ssn, &d);
		if (rc == TPH_OK) {
			if (!tph_session_decisions(ssn))
				fuzz_fail("no decision log after close", rc, &d);
			tph_check_expect(sc, ssn, &rep);
		}
	}
	if (rc && !d.msg[0])
		fuzz_fail("session failed without a message", rc, &d);
	tph_report_free(&rep);
	tph_session_free(ssn);
	tph_snapshot_release(snap);
	tph_conf_free(own);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	tph_diag d = {0};
	size_t warned = 0;
	d.warn = fuzz_warn;
	d.warn_ud = &warned;
	tph_scenario *sc = (tph_scenario *)&d; /* must be overwritten */
	int rc = tph_scenario_load_buffer((const char *)data, size, FILE_NAME, &sc, &d);
	if (rc != TPH_OK) {
		if (sc)
			fuzz_fail("failed load returned a scenario", rc, &d);
		fuzz_check_error(rc, &d, FILE_NAME);
		return 0;
	}
	if (!sc || !tph_scenario_cluster(sc))
		fuzz_fail("load succeeded without a scenario or cache", rc, &d);
	(void)strlen(tph_scenario_name(sc));
	(void)strlen(tph_scenario_file(sc));
	run_session(sc);
	tph_scenario_free(sc);
	return 0;
}

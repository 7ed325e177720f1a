/* Fuzz harness for the scheduler-conf loader: load the bytes with tph_conf_load_string; when
 * they load, read every accessor and open, run and close a session with the conf over a small
 * fixed cluster (so plugin and action arguments reach their typed getters). */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "tephra/tephra.h"

#define FILE_NAME "fuzz.conf"

static tph_scenario *world;
static tph_snapshot *snap;

static void release_world(void)
{
	tph_snapshot_release(snap);
	tph_scenario_free(world);
}

static void init_world(void)
{
	tph_diag d = {0};
	int rc = tph_scenario_load_buffer(fuzz_world_yaml, strlen(fuzz_world_yaml), "world.yaml",
	                                  &world, &d);
	if (rc == TPH_OK)
		rc = tph_cluster_snapshot(tph_scenario_cluster(world), tph_scenario_now(world),
		                          &snap, &d);
	if (rc)
		fuzz_fail("the fixed cluster does not load", rc, &d);
	atexit(release_world);
}

static void read_conf(const tph_conf *conf)
{
	for (uint32_t i = 0; i < tph_conf_action_count(conf); i++)
		(void)strlen(tph_conf_action(conf, i));
	for (uint32_t t = 0; t < tph_conf_tier_count(conf); t++)
		for (uint32_t p = 0; p < tph_conf_plugin_count(conf, t); p++) {
			(void)strlen(tph_conf_plugin_name(conf, t, p));
			for (int f = 0; f < TPH_FLAG_COUNT; f++)
				if (tph_conf_flag_raw(conf, t, p, (tph_conf_flag)f) > 1)
					fuzz_fail("flag out of range", 0, NULL);
		}
}

static void run_session(const tph_conf *conf)
{
	tph_diag d = {0};
	size_t warned = 0;
	d.warn = fuzz_warn;
	d.warn_ud = &warned;
	tph_session_opts so = {.threads = 1};
	tph_session *ssn = NULL;
	int rc = tph_session_open(snap, conf, &so, &ssn, &d);
	if (rc == TPH_OK)
		rc = tph_session_run(ssn, &d);
	if (rc == TPH_OK)
		rc = tph_session_close(ssn, &d);
	if (rc && !d.msg[0])
		fuzz_fail("session failed without a message", rc, &d);
	tph_session_free(ssn);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!world)
		init_world();
	tph_diag d = {0};
	size_t warned = 0;
	d.warn = fuzz_warn;
	d.warn_ud = &warned;
	/* The first byte's low bit picks the enable-flags default; the text is the whole input. */
	bool efd = size == 0 || !(data[0] & 1);
	tph_conf *conf = (tph_conf *)&d; /* must be overwritten */
	int rc = tph_conf_load_string((const char *)data, size, FILE_NAME, efd, &conf, &d);
	if (rc != TPH_OK) {
		if (conf)
			fuzz_fail("failed load returned a conf", rc, &d);
		fuzz_check_error(rc, &d, FILE_NAME);
		return 0;
	}
	if (!conf || tph_conf_enable_flags_default(conf) != efd)
		fuzz_fail("conf loaded wrong", rc, &d);
	read_conf(conf);
	run_session(conf);
	tph_conf_free(conf);
	return 0;
}

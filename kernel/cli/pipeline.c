/* The run pipeline shared by `run` and `check`: load the scenario, take a snapshot, open a
 * session, let the caller look at it (probes), run the actions and close. */
#include "cli.h"
#include "ext_server.h"

#include "load/scenario_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void print_warning(void *ud, const char *msg)
{
	(void)ud;
	fprintf(stderr, "warning: %s\n", msg);
}

static void print_note(void *ud, const char *msg)
{
	(void)ud;
	fprintf(stderr, "tephra: %s\n", msg);
}

int load_plugins(const char *cmd, const run_opts *o)
{
	tph_diag d = {.warn = print_note};
	if (!o->plugin_dir || tph_plugins_load(o->plugin_dir, &d) == TPH_OK)
		return CLI_OK;
	fprintf(stderr, "tephra %s: %s\n", cmd, d.msg);
	return CLI_USAGE;
}

static int open_session(run_result *r, const run_opts *o)
{
	const tph_conf *conf = r->conf_override ? r->conf_override : tph_scenario_conf(r->scn);
	tph_session_opts so = {.threads = o->threads,
	                       .naive = o->naive,
	                       .profile = o->profile,
	                       .shape_cache_bytes = (size_t)o->shape_cache_mb << 20};
	int rc = tph_cluster_snapshot(tph_scenario_cluster(r->scn), tph_scenario_now(r->scn),
	                              &r->snap, &r->diag);
	if (!rc)
		rc = tph_session_open(r->snap, conf, &so, &r->ssn, &r->diag);
	return rc;
}

/* The spec's harness: serve extenderResponses on 127.0.0.1 and point the extender there. */
static int serve_extender(run_result *r)
{
	uint32_t n = tph_scenario_extender_response_count(r->scn);
	if (!n)
		return TPH_OK;
	tph_extender_response *answers = calloc(n, sizeof *answers);
	if (!answers)
		return tph_diag_set(&r->diag, TPH_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		answers[i] = *tph_scenario_extender_response(r->scn, i);
	char err[256];
	int rc = ext_server_start(answers, n, &r->extender, err, sizeof err);
	free(answers);
	if (rc)
		return tph_diag_set(&r->diag, rc, "%s", err);
	char url[64];
	snprintf(url, sizeof url, "http://127.0.0.1:%u", (unsigned)ext_server_port(r->extender));
	tph_conf *conf = r->conf_override ? r->conf_override : r->scn->conf;
	rc = conf ? tph_conf_set_plugin_arg(conf, "extender", "extender.urlPrefix", url) : 0;
	return rc < 0 ? tph_diag_set(&r->diag, rc, "cannot set extender.urlPrefix") : TPH_OK;
}

int run_scenario(const char *path, const run_opts *o, run_result *r,
                 int (*after_open)(run_result *r, void *ud), void *ud)
{
	memset(r, 0, sizeof *r);
	r->diag.warn = print_warning;
	double t0 = now_ms();
	int rc = tph_scenario_load_file(path, &r->scn, &r->diag);
	if (!rc && o->conf_file)
		rc = tph_conf_load_file(o->conf_file, true, &r->conf_override, &r->diag);
	r->load_ms = now_ms() - t0;
	if (!rc)
		rc = serve_extender(r);
	if (rc)
		return rc;
	double t1 = now_ms();
	rc = open_session(r, o);
	if (!rc && after_open)
		rc = after_open(r, ud);
	if (!rc)
		r->mem_open = tph_session_bytes(r->ssn);
	if (!rc)
		rc = tph_session_run(r->ssn, &r->diag);
	if (!rc)
		r->mem_run = tph_session_bytes(r->ssn);
	if (!rc)
		rc = tph_session_close(r->ssn, &r->diag);
	r->session_ms = now_ms() - t1;
	if (!rc)
		r->log = tph_session_decisions(r->ssn);
	return rc;
}

void run_release(run_result *r)
{
	tph_session_free(r->ssn);
	if (r->snap)
		tph_snapshot_release(r->snap);
	ext_server_stop(r->extender); /* after the session: its close may still call it */
	tph_conf_free(r->conf_override);
	tph_scenario_free(r->scn);
	memset(r, 0, sizeof *r);
}

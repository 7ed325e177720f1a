/* The run pipeline shared by `run` and `check`: load the scenario (and the conf: --conf, the
 * scenario's, else Volcano's default), take a snapshot, open a session, let the caller look at it
 * (probes), run the actions and close. */
#include "cli.h"
#include "ext_server.h"
#include "kube/kube.h"

#include "load/scenario_int.h"

#include <errno.h>
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
	double t0 = now_ms();
	int rc = tph_cluster_snapshot(tph_scenario_cluster(r->scn), tph_scenario_now(r->scn),
	                              &r->snap, &r->diag);
	r->snap_ms = now_ms() - t0;
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

/* All of standard input (`-` as a file), in a malloc'd buffer. */
static int read_stdin(char **out, size_t *len, tph_diag *d)
{
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		n += fread(buf + n, 1, cap - n, stdin);
		if (n < cap)
			break;
		char *more = realloc(buf, cap *= 2);
		if (!more)
			free(buf);
		buf = more;
	}
	if (!buf)
		return tph_diag_set(d, TPH_ENOMEM, "%s: out of memory", CLI_STDIN_NAME);
	if (ferror(stdin)) {
		free(buf);
		return tph_diag_set(d, TPH_EIO, "%s: %s", CLI_STDIN_NAME, strerror(errno));
	}
	*out = buf;
	*len = n;
	return TPH_OK;
}

/* run --kube: the dumps imported in memory, loaded as the scenario. */
static int load_kube(const run_opts *o, run_result *r)
{
	return kube_scenario(o->kube, o->n_kube, NULL, &r->scn, &r->diag);
}

/* The scenario and the conf: from their files, or standard input for "-". */
static int load_inputs(const char *path, const run_opts *o, run_result *r)
{
	char *buf = NULL;
	size_t len = 0;
	const char *conf_file = o->conf_file;
	bool scn_stdin = !o->n_kube && !strcmp(path, "-");
	bool conf_stdin = conf_file && !strcmp(conf_file, "-");
	int rc = scn_stdin || conf_stdin ? read_stdin(&buf, &len, &r->diag) : TPH_OK;
	if (!rc && o->n_kube)
		rc = load_kube(o, r);
	else if (!rc)
		rc = scn_stdin
		         ? tph_scenario_load_buffer(buf, len, CLI_STDIN_NAME, &r->scn, &r->diag)
		         : tph_scenario_load_file(path, &r->scn, &r->diag);
	bool kai = !rc && tph_scenario_flavour(r->scn) == TPH_CONF_KAI;
	if (!rc && conf_stdin && kai)
		rc =
		    tph_conf_load_kai_string(buf, len, CLI_STDIN_NAME, &r->conf_override, &r->diag);
	else if (!rc && conf_stdin)
		rc = tph_conf_load_string(buf, len, CLI_STDIN_NAME, true, &r->conf_override,
		                          &r->diag);
	else if (!rc && conf_file && kai)
		rc = tph_conf_load_kai_file(conf_file, &r->conf_override, &r->diag);
	else if (!rc && conf_file)
		rc = tph_conf_load_file(conf_file, true, &r->conf_override, &r->diag);
	free(buf);
	return rc;
}

/* No conf in the scenario and no --conf: Volcano's own fallback (pkg/scheduler/util.go,
 * DefaultSchedulerConf), its absent enable flags meaning what the scenario says they mean. An
 * empty conf is a conf, not an absent one. */
static int default_conf(run_result *r, const run_opts *o)
{
	bool kai = tph_scenario_flavour(r->scn) == TPH_CONF_KAI;
	const char *whose = kai ? "KAI" : "Volcano";
	if (o->notes_name_file)
		fprintf(stderr, "tephra: %s: no conf given: using %s's default conf\n",
		        tph_scenario_file(r->scn), whose);
	else
		fprintf(stderr, "tephra: no conf given: using %s's default conf\n", whose);
	if (kai)
		return tph_conf_load_kai_string(TPH_CONF_KAI_DEFAULT,
		                                sizeof TPH_CONF_KAI_DEFAULT - 1,
		                                "KAI's default conf", &r->conf_override, &r->diag);
	return tph_conf_load_string(
	    TPH_CONF_VOLCANO_DEFAULT, sizeof TPH_CONF_VOLCANO_DEFAULT - 1, "Volcano's default conf",
	    tph_scenario_enable_flags_default(r->scn), &r->conf_override, &r->diag);
}

/* A kai scenario: its own snapshot and session, the probe hook, then the conf's actions. */
static int run_kai(run_result *r, bool naive, int (*after_open)(run_result *r, void *ud), void *ud)
{
	const tph_conf *conf = r->conf_override ? r->conf_override : tph_scenario_conf(r->scn);
	double t0 = now_ms();
	int rc = tph_kai_snapshot_build(tph_scenario_kai_cluster(r->scn), tph_scenario_now(r->scn),
	                                &r->kai_snap, &r->diag);
	r->snap_ms = now_ms() - t0;
	if (!rc)
		rc = tph_kai_session_open(r->kai_snap, conf, &r->kai_ssn, &r->diag);
	if (!rc)
		tph_kai_session_set_naive(r->kai_ssn, naive);
	r->kai_open_ms = now_ms() - t0 - r->snap_ms;
	if (!rc && after_open)
		rc = after_open(r, ud);
	if (!rc)
		rc = tph_kai_session_run(r->kai_ssn, &r->diag);
	r->session_ms = now_ms() - t0;
	return rc;
}

int run_scenario(const char *path, const run_opts *o, run_result *r,
                 int (*after_open)(run_result *r, void *ud), void *ud)
{
	memset(r, 0, sizeof *r);
	r->diag.warn = print_warning;
	double t0 = now_ms();
	int rc = load_inputs(path, o, r);
	if (!rc && o->wanted && !o->wanted(r->scn))
		rc = TPH_DECLINED;
	if (!rc && !r->conf_override && !tph_scenario_conf(r->scn))
		rc = default_conf(r, o);
	r->load_ms = now_ms() - t0;
	if (!rc && tph_scenario_flavour(r->scn) == TPH_CONF_KAI)
		return run_kai(r, o->naive, after_open, ud);
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
	tph_kai_session_free(r->kai_ssn);
	tph_kai_snapshot_free(r->kai_snap);
	tph_session_free(r->ssn);
	if (r->snap)
		tph_snapshot_release(r->snap);
	ext_server_stop(r->extender); /* after the session: its close may still call it */
	tph_conf_free(r->conf_override);
	tph_scenario_free(r->scn);
	memset(r, 0, sizeof *r);
}

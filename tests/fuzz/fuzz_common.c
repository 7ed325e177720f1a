/* The checks shared by every harness: failed loads carry a located message, warnings are valid
 * strings. Linked into both the libFuzzer binaries and the replay drivers. */
#include "fuzz.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/check_core.h"
#include "tephra/tephra.h"

void fuzz_fail(const char *what, int rc, const tph_diag *d)
{
	fprintf(stderr, "fuzz: %s (rc=%d: %s)\n  msg: %s\n", what, rc, tph_strerror(rc),
	        d ? d->msg : "");
	abort();
}

/* Whether `q` starts with `:LINE:COL: `. */
static int location_after(const char *q)
{
	if (*q++ != ':' || !isdigit((unsigned char)*q))
		return 0;
	while (isdigit((unsigned char)*q))
		q++;
	if (*q++ != ':' || !isdigit((unsigned char)*q))
		return 0;
	while (isdigit((unsigned char)*q))
		q++;
	return q[0] == ':' && q[1] == ' ';
}

/* `FILE:LINE:COL: ` with FILE the input's name or, for an error inside a file the input names
 * (a scenario's confFile:), any name at the start of the message. */
static int located(const char *msg, const char *file)
{
	for (const char *p = strstr(msg, file); p; p = strstr(p + 1, file))
		if (location_after(p + strlen(file)))
			return 1;
	const char *colon = strchr(msg, ':');
	return colon && colon > msg && location_after(colon);
}

void fuzz_check_error(int rc, const tph_diag *d, const char *file)
{
	if (rc >= 0)
		fuzz_fail("failure with a non-negative status", rc, d);
	if (memchr(d->msg, '\0', sizeof d->msg) == NULL)
		fuzz_fail("message not terminated", rc, NULL);
	if (rc == TPH_ENOMEM)
		return;
	if (!located(d->msg, file))
		fuzz_fail("error without a FILE:LINE:COL location", rc, d);
}

void fuzz_warn(void *ud, const char *msg)
{
	size_t *total = ud;
	*total += strlen(msg);
}

/* A small cluster the conf harnesses run their confs over. */
const char fuzz_world_yaml[] =
    "now: \"2026-01-01T00:10:00Z\"\n"
    "queues: [{name: root}, {name: default, parent: root}, {name: q1, weight: 2}]\n"
    "nodes:\n"
    "  - {name: n1, allocatable: {cpu: \"4\", memory: 8Gi, pods: \"10\"}, labels: {zone: a}}\n"
    "  - {name: n2, allocatable: {cpu: \"2\", memory: 4Gi, pods: \"10\"}, labels: {zone: b},\n"
    "     taints: [{key: k, value: v, effect: NoSchedule}]}\n"
    "hyperNodes: [{name: r0, tier: 1, members: [n1, n2]}]\n"
    "podGroups:\n"
    "  - {name: pg1, namespace: c1, queue: q1, minMember: 2, phase: Inqueue,\n"
    "     creationTimestamp: \"2026-01-01T00:00:00Z\"}\n"
    "  - {name: pg2, namespace: c1, queue: default, minMember: 1}\n"
    "pods:\n"
    "  - {name: p1, namespace: c1, podGroup: pg1, requests: {cpu: \"1\", memory: 1Gi}}\n"
    "  - {name: p2, namespace: c1, podGroup: pg1, requests: {cpu: \"1\"}}\n"
    "  - {name: p3, namespace: c1, podGroup: pg2, phase: Running, nodeName: n1,\n"
    "     requests: {cpu: \"2\"}}\n";

void fuzz_run_scenario(tph_scenario *sc)
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

/* A host program that links libtephra the way an embedder does (shared or static, no kernel
 * internals): the library must leave the host's malloc alone — jemalloc is not linked in, and
 * malloc resolves to the C library's — and a session must still run, its arena taking chunks from
 * the C library. Exits 0 when both hold; prints why not otherwise. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "tephra/tephra.h"

static const char scenario[] = "name: host\n"
                               "conf: |\n"
                               "  actions: \"enqueue, allocate\"\n"
                               "  tiers:\n"
                               "  - plugins: [{name: gang}, {name: predicates}]\n"
                               "queues: [{name: default}]\n"
                               "nodes: [{name: n1, allocatable: {cpu: '2', pods: '10'}}]\n"
                               "pods: [{name: p1, namespace: ns, requests: {cpu: '1'}}]\n";

int main(void)
{
	if (dlsym(RTLD_DEFAULT, "mallctl") || dlsym(RTLD_DEFAULT, "mallocx")) {
		fprintf(stderr,
		        "host_malloc: jemalloc is in the process: linking tephra brought it\n");
		return 1;
	}
	Dl_info info;
	void *m = dlsym(RTLD_DEFAULT, "malloc");
	/* under AddressSanitizer, malloc is its interceptor: that is the host's too */
	if (!m || !dladdr(m, &info) ||
	    !(strstr(info.dli_fname, "libc.so") || strstr(info.dli_fname, "libasan"))) {
		fprintf(stderr, "host_malloc: malloc resolves to %s, not the C library\n",
		        m && dladdr(m, &info) ? info.dli_fname : "nothing");
		return 1;
	}
	tph_diag d = {0};
	tph_scenario *sc = NULL;
	tph_snapshot *snap = NULL;
	tph_session *s = NULL;
	int rc = tph_scenario_load_buffer(scenario, sizeof scenario - 1, "host.yaml", &sc, &d);
	if (!rc)
		rc =
		    tph_cluster_snapshot(tph_scenario_cluster(sc), tph_scenario_now(sc), &snap, &d);
	if (!rc)
		rc = tph_session_open(snap, tph_scenario_conf(sc), NULL, &s, &d);
	if (!rc)
		rc = tph_session_run(s, &d);
	if (!rc)
		rc = tph_session_close(s, &d);
	const tph_decision_log *log = rc ? NULL : tph_session_decisions(s);
	int ok = log && log->n_binds == 1;
	if (!ok)
		fprintf(stderr, "host_malloc: session failed (%d): %s\n", rc, d.msg);
	tph_session_free(s);
	tph_snapshot_release(snap);
	tph_scenario_free(sc);
	return ok ? 0 : 1;
}

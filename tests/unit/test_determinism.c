/* Determinism of the placing actions over large generated clusters: the decision log (binds,
 * pipelined tasks, podgroup phases, pending reasons) is byte for byte the same with one
 * thread or two, and with equivalence classes or without (naive mode). The scenarios mix
 * gangs, roles, node selectors, taints, required pod affinity, running and releasing pods,
 * best-effort pods and Pending podgroups, under the built-in plugins that exist. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "base/registry_int.h"
#include "tephra/tephra.h"

typedef struct gen {
	uint32_t nodes, jobs, tasks_per_job;
	uint64_t seed;
} gen;

static uint32_t rnd(uint64_t *s, uint32_t n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((*s >> 33) % n);
}

/* The plugins of the conf: those built in this tree (others are still being written). */
static void conf_plugins(FILE *f, const char *const *names)
{
	tph_diag d = {0};
	for (; *names; names++) {
		const tph_plugin *p;
		if (tph_registry_plugin(*names, &p, &d) == TPH_OK)
			fprintf(f, "    - name: %s\n", *names);
	}
}

static void gen_conf(FILE *f)
{
	static const char *const t1[] = {"priority", "gang", "conformance", NULL};
	static const char *const t2[] = {"drf",       "predicates", "proportion",
	                                 "nodeorder", "binpack",    NULL};
	fprintf(f, "conf: |\n  actions: \"enqueue, allocate, backfill\"\n  tiers:\n  - plugins:\n");
	conf_plugins(f, t1);
	fprintf(f, "  - plugins:\n");
	conf_plugins(f, t2);
	fprintf(f, "priorityClasses:\n  - {name: high, value: 1000}\n  - {name: low, value: 10}\n");
	fprintf(f, "queues:\n");
	for (int q = 0; q < 4; q++)
		fprintf(f, "  - {name: q%d, weight: %d}\n", q, q + 1);
}

static void gen_nodes(FILE *f, const gen *g)
{
	static const char *const cpu[] = {"16", "32", "64"};
	fprintf(f, "nodes:\n");
	for (uint32_t i = 0; i < g->nodes; i++) {
		fprintf(f,
		        "  - {name: n%05u, allocatable: {cpu: '%s', memory: %uGi, pods: '110'%s},"
		        " labels: {zone: z%u, rack: r%u}%s}\n",
		        i, cpu[i % 3], 64u << (i % 2), i % 7 == 0 ? ", nvidia.com/gpu: '8'" : "",
		        i % 4, i % 50,
		        i % 10 == 0 ? ", taints: [{key: dedicated, value: gpu, effect: NoSchedule}]"
		                    : "");
	}
}

static void gen_podgroups(FILE *f, const gen *g)
{
	static const int32_t mins[] = {0, 1, 2};
	fprintf(f, "podGroups:\n  - {name: sys, namespace: kube, queue: q0, minMember: 1,"
	           " phase: Running}\n");
	for (uint32_t j = 0; j < g->jobs; j++) {
		int32_t min = mins[j % 3] == 0   ? (int32_t)g->tasks_per_job
		              : mins[j % 3] == 1 ? (int32_t)g->tasks_per_job / 2
		                                 : 1;
		fprintf(
		    f,
		    "  - {name: job%04u, namespace: ns%u, queue: q%u, minMember: %d, phase: %s,"
		    " priorityClassName: %s, creationTimestamp: '2026-01-01T00:%02u:%02uZ'%s}\n",
		    j, j % 5, j % 4, min, j % 11 == 0 ? "Pending" : "Inqueue",
		    j % 2 ? "high" : "low", (j / 60) % 60, j % 60,
		    j % 9 == 0 ? ", minTaskMember: {master: 1, worker: 2}" : "");
	}
}

static void gen_system_pods(FILE *f, const gen *g, uint64_t *seed)
{
	fprintf(f, "pods:\n");
	for (uint32_t i = 0; i < g->nodes; i += 2)
		fprintf(f,
		        "  - {name: sys-%u, namespace: kube, podGroup: sys, phase: Running,"
		        " nodeName: n%05u, requests: {cpu: '%u', memory: 4Gi}%s}\n",
		        i, i, 1 + rnd(seed, 12), i % 6 == 0 ? ", deleting: true" : "");
}

static void gen_task(FILE *f, uint32_t j, uint32_t k, uint64_t *seed)
{
	static const char *const cpu[] = {"500m", "1", "2", "4", "8"};
	static const char *const mem[] = {"1Gi", "2Gi", "4Gi", "8Gi"};
	bool be = k % 25 == 24;
	fprintf(f, "  - {name: job%04u-t-%u, namespace: ns%u, podGroup: job%04u, taskSpec: %s", j,
	        k, j % 5, j, k == 0 ? "master" : "worker");
	if (!be)
		fprintf(f, ", requests: {cpu: '%s', memory: %s%s}", cpu[(j + k / 10) % 5],
		        mem[j % 4], j % 7 == 3 ? ", nvidia.com/gpu: '1'" : "");
	if (j % 6 == 1)
		fprintf(f, ", nodeSelector: {zone: z%u}", j % 4);
	if (j % 8 == 2)
		fprintf(f, ", tolerations: [{key: dedicated, operator: Exists}]");
	if (j % 13 == 5)
		fprintf(f,
		        ", labels: {app: job%04u}, affinity: {podAffinity: "
		        "{requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: "
		        "{matchLabels: {app: job%04u}}, topologyKey: zone}]}}",
		        j, j);
	fprintf(f, "%s}\n", rnd(seed, 40) == 0 ? ", nominatedNodeName: n00003" : "");
}

static char *generate(const gen *g, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	uint64_t seed = g->seed;
	fprintf(f, "name: generated\n");
	gen_conf(f);
	gen_nodes(f, g);
	gen_podgroups(f, g);
	gen_system_pods(f, g, &seed);
	for (uint32_t j = 0; j < g->jobs; j++)
		for (uint32_t k = 0; k < g->tasks_per_job; k++)
			gen_task(f, j, k, &seed);
	fclose(f);
	return buf;
}

typedef struct world {
	tph_scenario *scn;
	tph_snapshot *snap;
} world;

static void world_load(world *w, const gen *g)
{
	size_t len;
	char *yaml = generate(g, &len);
	const char *dump = getenv("TPH_DUMP_SCENARIO"); /* for profiling with the CLI */
	FILE *df = dump ? fopen(dump, "w") : NULL;
	if (df) {
		fwrite(yaml, 1, len, df);
		fclose(df);
	}
	tph_diag d = {0};
	int rc = tph_scenario_load_buffer(yaml, len, "generated.yaml", &w->scn, &d);
	if (rc)
		fprintf(stderr, "scenario: %s\n", d.msg);
	assert_int_equal(rc, TPH_OK);
	free(yaml);
	rc = tph_cluster_snapshot(tph_scenario_cluster(w->scn), tph_scenario_now(w->scn), &w->snap,
	                          &d);
	assert_int_equal(rc, TPH_OK);
}

static void world_free(world *w)
{
	tph_snapshot_release(w->snap);
	tph_scenario_free(w->scn);
}

static char *decide(const world *w, int threads, bool naive, uint32_t *binds)
{
	tph_diag d = {0};
	tph_session *s;
	tph_session_opts o = {.threads = threads, .naive = naive};
	int rc = tph_session_open(w->snap, tph_scenario_conf(w->scn), &o, &s, &d);
	if (rc)
		fprintf(stderr, "session: %s\n", d.msg);
	assert_int_equal(rc, TPH_OK);
	rc = tph_session_run(s, &d);
	if (rc)
		fprintf(stderr, "run: %s\n", d.msg);
	assert_int_equal(rc, TPH_OK);
	assert_int_equal(tph_session_close(s, &d), TPH_OK);
	char *out = pts_log_text(tph_session_decisions(s));
	*binds = tph_session_decisions(s)->n_binds;
	tph_session_free(s);
	return out;
}

static void same(const char *a, const char *b, const char *what)
{
	if (strcmp(a, b)) {
		size_t i = 0;
		while (a[i] && a[i] == b[i])
			i++;
		size_t from = i > 200 ? i - 200 : 0;
		fprintf(stderr, "%s differ at byte %zu:\n--- a\n%.400s\n--- b\n%.400s\n", what, i,
		        a + from, b + from);
	}
	assert_string_equal(a, b);
}

static void test_threads(void **state)
{
	(void)state;
	const gen g = {.nodes = 2000, .jobs = 400, .tasks_per_job = 50, .seed = 7};
	world w;
	world_load(&w, &g);
	uint32_t b1, b2;
	char *one = decide(&w, 1, false, &b1);
	char *two = decide(&w, 2, false, &b2);
	assert_true(b1 > 1000);
	same(one, two, "threads=1 vs threads=2");
	free(one);
	free(two);
	world_free(&w);
}

static void test_naive(void **state)
{
	(void)state;
	const gen g = {.nodes = 600, .jobs = 120, .tasks_per_job = 40, .seed = 11};
	world w;
	world_load(&w, &g);
	uint32_t b1, b2, b3;
	char *fast = decide(&w, 1, false, &b1);
	char *naive = decide(&w, 1, true, &b2);
	char *naive2 = decide(&w, 2, true, &b3);
	assert_true(b1 > 500);
	same(fast, naive, "fast vs naive");
	same(naive, naive2, "naive threads=1 vs threads=2");
	free(fast);
	free(naive);
	free(naive2);
	world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_naive),
	    cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Broken inputs for the scenario loader: the catalogue in tests/bad (each file must fail with
 * a negative status and a message holding the file name, a :line:col location and the
 * substring listed in tests/bad/EXPECTED.txt), every truncation of a rich scenario, and an
 * allocation-failure loop over a full load. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "tephra/scenario.h"

static char bad_dir[4096];

static int setup(void **state)
{
	(void)state;
	const char *src = getenv("TPH_SOURCE_DIR");
	snprintf(bad_dir, sizeof bad_dir, "%s/tests/bad", src ? src : ".");
	return 0;
}

/* `msg` holds "<file>:<line>:<col>: ". */
static bool located(const char *msg, const char *file)
{
	const char *p = strstr(msg, file);
	if (!p)
		return false;
	p += strlen(file);
	if (*p++ != ':' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != ':' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == ':';
}

static bool check_one(const char *file, const char *want)
{
	char path[4600];
	snprintf(path, sizeof path, "%s/%s", bad_dir, file);
	tph_diag d = {0};
	tph_scenario *s = (tph_scenario *)0x1;
	int rc = tph_scenario_load_file(path, &s, &d);
	bool ok = rc < 0 && s == NULL && strstr(d.msg, want) && located(d.msg, file);
	if (!ok)
		print_error("%s: rc=%d msg=\"%s\"\n    want \"%s\"\n", file, rc, d.msg, want);
	if (rc == TPH_OK)
		tph_scenario_free(s);
	return ok;
}

/* One catalogue line: "<file>\t<substring>"; comments and blank lines are skipped. */
static int run_line(char *line, unsigned *count)
{
	size_t len = strlen(line);
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		line[--len] = '\0';
	if (!len || line[0] == '#')
		return 0;
	char *tab = strchr(line, '\t');
	if (!tab) {
		print_error("EXPECTED.txt: no tab in \"%s\"\n", line);
		return 1;
	}
	*tab = '\0';
	(*count)++;
	return check_one(line, tab + 1) ? 0 : 1;
}

static unsigned yaml_files(void)
{
	DIR *dh = opendir(bad_dir);
	assert_non_null(dh);
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(dh))) {
		size_t len = strlen(e->d_name);
		n += len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0;
	}
	closedir(dh);
	return n;
}

static void test_catalogue(void **state)
{
	(void)state;
	char path[4600];
	snprintf(path, sizeof path, "%s/EXPECTED.txt", bad_dir);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[1024];
	unsigned count = 0;
	int failures = 0;
	while (fgets(line, sizeof line, f))
		failures += run_line(line, &count);
	fclose(f);
	print_message("%u bad inputs checked\n", count);
	assert_int_equal(failures, 0);
	assert_true(count >= 40);
	assert_int_equal(count, yaml_files()); /* every file is listed, and only once */
}

/* ---- truncations and allocation failures ------------------------------------------------------
 */

static const char *rich =
    "flavour: volcano\n"
    "name: rich\n"
    "now: \"2026-01-01T00:10:00Z\"\n"
    "conf: |\n"
    "  actions: \"enqueue, allocate\"\n"
    "  tiers:\n"
    "  - plugins:\n"
    "    - {name: gang, enableJobOrder: true}\n"
    "    - name: binpack\n"
    "      arguments: {binpack.weight: 10, nested: {a: [1, 2]}}\n"
    "  configurations:\n"
    "  - {name: allocate, arguments: {x: 1}}\n"
    "priorityClasses: [{name: high, value: 1000}]\n"
    "queues: [{name: root}, {name: c1, parent: root, capability: {cpu: \"4\"}}]\n"
    "nodes:\n"
    "  - name: n1\n"
    "    allocatable: {cpu: \"2\", memory: 4Gi, pods: \"10\"}\n"
    "    labels: {zone: a}\n"
    "    taints: [{key: k, value: v, effect: NoSchedule}]\n"
    "    usage: {period: 5m, cpu: 40.0, memory: 30.0}\n"
    "  - {name: n2, allocatable: {cpu: \"2\", pods: \"10\"}}\n"
    "hyperNodes:\n"
    "  - {name: rack0, tier: 1, members: [n1, {regex: \"^n2$\"}]}\n"
    "  - {name: spine, tier: 2, members: [rack0]}\n"
    "resourceQuotas: [{name: q, namespace: c1, hard: {cpu: \"10\"}}]\n"
    "podDisruptionBudgets:\n"
    "  - {name: b, namespace: c1, selector: {matchLabels: {a: b}}, maxUnavailable: \"50%\",\n"
    "     disruptionsAllowed: 1, disruptedPods: {p2: \"2026-01-01T00:09:00Z\"}}\n"
    "extenderResponses:\n"
    "  predicate: {status: 200, body: {status: \"no\", code: 2, list: [1.5, true, null]}}\n"
    "  bind: {body: \"ok\"}\n"
    "shard: {name: s, mode: soft, nodes: [n1]}\n"
    "podGroups:\n"
    "  - {name: pg1, namespace: c1, queue: c1, minMember: 2, minTaskMember: {m: 1},\n"
    "     networkTopology: {mode: hard, highestTierAllowed: 1},\n"
    "     subGroupPolicy: [{name: w, labelSelector: {matchLabels: {r: w}}}]}\n"
    "pods:\n"
    "  - name: p1\n"
    "    namespace: c1\n"
    "    podGroup: pg1\n"
    "    requests: {cpu: \"1\", memory: 1Gi}\n"
    "    tolerations: [{operator: Exists}]\n"
    "    affinity:\n"
    "      nodeAffinity:\n"
    "        requiredDuringSchedulingIgnoredDuringExecution:\n"
    "          nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In, values: [a]}]}]\n"
    "      podAntiAffinity:\n"
    "        requiredDuringSchedulingIgnoredDuringExecution:\n"
    "        - {labelSelector: {matchLabels: {a: b}}, topologyKey: zone}\n"
    "    topologySpreadConstraints:\n"
    "      - {maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule}\n"
    "    limits: {cpu: \"2\", volcano.sh/vgpu-number: \"1\"}\n"
    "    conditions:\n"
    "      - {type: PodScheduled, status: \"True\", lastTransitionTime: "
    "\"2026-01-01T00:05:00Z\",\n"
    "         reason: r, message: m}\n"
    "  - {name: p2, namespace: c1, podGroup: pg1, phase: Running, nodeName: n2}\n"
    "expect: {binds: {c1/p1: n1}, evictions: [], taskStatusCounts: {c1/pg1: {Pending: 1}},\n"
    "         bindAnnotations: {c1/p1: {volcano.sh/gpu-index: \"0\"}}}\n"
    "probe:\n"
    "  nodeScores: {c1/p1: {n1: 1.5}}\n"
    "  victims: [{preemptor: c1/p1, candidates: [c1/p2], preemptable: [c1/p2]}]\n"
    "  victimTasks: [{candidates: [c1/p2, c1/p1], victims: [c1/p2]}]\n";

/* Every prefix of a valid scenario loads or fails cleanly (ASan catches the rest). */
static void test_truncations(void **state)
{
	(void)state;
	size_t len = strlen(rich);
	unsigned ok = 0, failed = 0;
	for (size_t cut = 0; cut <= len; cut++) {
		tph_diag d = {0};
		tph_scenario *s = NULL;
		int rc = tph_scenario_load_buffer(rich, cut, "cut.yaml", &s, &d);
		if (rc == TPH_OK) {
			ok++;
			tph_scenario_free(s);
			continue;
		}
		failed++;
		assert_null(s);
		if (!strstr(d.msg, "cut.yaml")) {
			print_error("cut at %zu: message without file: %s\n", cut, d.msg);
			fail();
		}
	}
	assert_true(failed > 0);
	assert_true(ok > 0); /* at least the whole text */
}

/* Fail the Nth allocation for N = 1, 2, ... until the load no longer reaches it: every
 * failure must be a clean TPH_ENOMEM-or-error with nothing returned. */
static void test_allocation_failures(void **state)
{
	(void)state;
	long n;
	for (n = 1;; n++) {
		tph_diag d = {0};
		tph_scenario *s = NULL;
		tph_mem_fail_after(n, 0);
		int rc = tph_scenario_load_buffer(rich, strlen(rich), "rich.yaml", &s, &d);
		long attempts = tph_mem_attempts();
		tph_mem_fail_after(0, 0);
		if (rc == TPH_OK) {
			tph_scenario_free(s);
			assert_true(attempts < n); /* the injected failure was never reached */
			break;
		}
		assert_null(s);
		if (rc != TPH_ENOMEM)
			print_message("allocation %ld failed as %d: %s\n", n, rc, d.msg);
		assert_true(rc < 0);
		assert_true(d.msg[0] != '\0');
	}
	print_message("%ld allocation points checked\n", n - 1);
	assert_true(n > 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_catalogue),
	    cmocka_unit_test(test_truncations),
	    cmocka_unit_test(test_allocation_failures),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

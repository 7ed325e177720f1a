/* Unit tests for plugins/numa_aware: the node `numa:` field (loader bounds and errors), the
 * predicate's filter and its reasons, which pods it concerns (Guaranteed ones, lib/qos.h), the
 * topology policies' admission, the CPUs assigned (expected sets computed by Volcano's own code:
 * its numaaware policy and cpumanager packages run over the same topologies, on cases where
 * Volcano's answer does not depend on map order), the BatchNodeOrder score and the allocate /
 * deallocate events. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "harness.h"
#include "numa_aware/numa_aware.h"

/* 16 CPUs, Linux numbering: socket s = NUMA node s holds cores 4s..4s+3, whose two threads are
 * CPUs c and c + 8. */
static void topo16(char *out, size_t cap)
{
	size_t n = 0;
	n += (size_t)snprintf(out + n, cap - n, "      cpuDetail:\n");
	for (int cpu = 0; cpu < 16; cpu++) {
		int sock = (cpu % 8) / 4;
		n += (size_t)snprintf(out + n, cap - n,
		                      "        \"%d\": {numa: %d, socket: %d, core: %d}\n", cpu,
		                      sock, sock, cpu % 8);
	}
}

/* A scenario whose conf has numa-aware alone, with `flags` (its indented option lines). */
static void open_conf(pts *p, const char *flags, const char *rest)
{
	char yaml[8192];
	snprintf(yaml, sizeof yaml,
	         "conf: |\n"
	         "  actions: \"\"\n"
	         "  tiers:\n"
	         "  - plugins:\n"
	         "    - name: numa-aware\n"
	         "%s"
	         "queues: [{name: default}]\n"
	         "%s",
	         flags, rest);
	pts_open(p, yaml);
}

/* One node n1 with the 16-CPU topology, policy `tm`, free cpuset `alloc`, reserved cpu `res`
 * ("" none), then `more` (other nodes, pods); numa-aware with `flags`. */
static void open_flags(pts *p, const char *flags, const char *tm, const char *alloc,
                       const char *res, const char *more)
{
	char detail[2048], rest[6144];
	topo16(detail, sizeof detail);
	snprintf(rest, sizeof rest,
	         "nodes:\n"
	         "  - name: n1\n"
	         "    allocatable: {cpu: '16', memory: 64Gi, pods: '100'}\n"
	         "    numa:\n"
	         "      policies: {CPUManagerPolicy: static, TopologyManagerPolicy: %s}\n"
	         "      numares: {cpu: {allocatable: '%s', capacity: 16}}\n"
	         "      resReserved: {%s}\n"
	         "%s"
	         "%s",
	         tm, alloc, res, detail, more);
	open_conf(p, flags, rest);
}

/* open_flags with the predicate and the score on, and numa-aware's `args`. */
static void open_numa(pts *p, const char *tm, const char *alloc, const char *res, const char *args,
                      const char *more)
{
	char flags[256];
	snprintf(flags, sizeof flags, "      arguments: {%s}\n", args);
	open_flags(p, flags, tm, alloc, res, more);
}

static numa_st *numa_state(pts *p)
{
	for (uint32_t i = 0; i < p->s->n_plugins; i++)
		if (!strcmp(p->s->plugins[i].desc->name, "numa-aware"))
			return p->s->plugins[i].st;
	fail_msg("no numa-aware");
	abort();
}

/* The CPUs numa_place gives `task` on n1 as a cpuset string ("0-2,8"), or "reject". */
static void place_text(pts *p, const char *task, char *out, size_t cap)
{
	numa_st *g = numa_state(p);
	tph_idx n = pts_node(p, "n1");
	numa_cpus cpus;
	bool rec = false;
	if (numa_place(g, pts_task(p, task), n, &rec, &cpus) != TPH_PASS) {
		snprintf(out, cap, "reject");
		return;
	}
	const numa_node *nd = g->node[n];
	size_t len = 0;
	out[0] = 0;
	for (uint32_t i = 0; i < nd->nc; i++) {
		if (!((cpus.w[i / 64] >> (i % 64)) & 1))
			continue;
		uint32_t j = i;
		while (j + 1 < nd->nc && ((cpus.w[(j + 1) / 64] >> ((j + 1) % 64)) & 1) &&
		       nd->id[j + 1] == nd->id[j] + 1)
			j++;
		len += (size_t)snprintf(out + len, cap - len, len ? ",%d" : "%d", nd->id[i]);
		if (j > i)
			len += (size_t)snprintf(out + len, cap - len, "-%d", nd->id[j]);
		i = j;
	}
	assert_true(rec);
}

#define POD(name, cpu, extra)                                                          \
	"  - {name: " name ", namespace: ns, requests: {cpu: '" cpu "', memory: 1Gi}," \
	" limits: {cpu: '" cpu "', memory: 1Gi}" extra "}\n"

static void expect_cpus(const char *tm, const char *alloc, const char *res, const char *cpu,
                        const char *want)
{
	char more[256], got[256];
	snprintf(more, sizeof more, "pods:\n" POD("p", "%s", ""), cpu, cpu);
	pts p;
	open_numa(&p, tm, alloc, res, "", more);
	place_text(&p, "ns/p", got, sizeof got);
	if (strcmp(got, want))
		fail_msg("%s %s cpu %s: got %s, want %s", tm, alloc, cpu, got, want);
	pts_free(&p);
}

/* Expected sets from Volcano's code (see the file comment). */
static void test_assignments_as_volcano(void **state)
{
	(void)state;
	expect_cpus("best-effort", "0-15", "", "2", "0,8");
	expect_cpus("restricted", "0-15", "", "6", "0-2,8-10");
	expect_cpus("single-numa-node", "0-15", "", "9", "reject");
	expect_cpus("best-effort", "0-15", "", "9", "0-4,8-11");
	expect_cpus("best-effort", "0-15", "cpu: '1'", "1", "8");
	expect_cpus("single-numa-node", "0-1,4-8,12-15", "", "3", "0-1,8");
	expect_cpus("restricted", "0,4-5,8,12-13", "", "3", "4-5,12");
	expect_cpus("best-effort", "0-15", "", "1500m", "");
	expect_cpus("foo", "0-15", "", "4", "0-1,8-9");
	expect_cpus("single-numa-node", "0-15", "cpu: 2500m", "4", "2-3,10-11");
}

/* The filter of a pod with a topology policy, and Volcano's texts. */
static void expect_reason(const char *node_numa, const char *text)
{
	char rest[2048];
	snprintf(
	    rest, sizeof rest,
	    "nodes:\n"
	    "  - {name: n1, allocatable: {cpu: '8', memory: 8Gi, pods: '9'}%s}\n"
	    "pods:\n" POD("p", "2", ", annotations: {volcano.sh/numa-topology-policy: restricted}"),
	    node_numa);
	pts p;
	open_conf(&p, "", rest);
	tph_reason_code why[1];
	tph_idx feas[1];
	assert_int_equal(
	    tph_filter_nodes(p.s, pts_task(&p, "ns/p"), p.s->ready_nodes, 1, why, feas), 0);
	assert_string_equal(tph_reason_text(p.s, why[0]), text);
	assert_true(tph_reason_unresolvable(p.s, why[0]));
	pts_free(&p);
}

#define CPU01 ", cpuDetail: {'0': {numa: 0}, '1': {numa: 0}}"

static void test_filter_reasons(void **state)
{
	(void)state;
	expect_reason("", "numa info is empty");
	expect_reason(", numa: {policies: {TopologyManagerPolicy: restricted}}",
	              "cpu manager policy isn't static");
	expect_reason(", numa: {policies: {CPUManagerPolicy: static, "
	              "TopologyManagerPolicy: best-effort}}",
	              "task topology policy[restricted] is different with node[best-effort]");
	expect_reason(", numa: {policies: {CPUManagerPolicy: static}}",
	              "task topology policy[restricted] is different with node[]");
	expect_reason(", numa: {policies: {CPUManagerPolicy: static, TopologyManagerPolicy: "
	              "restricted}" CPU01 "}",
	              "cpu allocatable map is empty");
	expect_reason(", numa: {policies: {CPUManagerPolicy: static, TopologyManagerPolicy: "
	              "restricted}, numares: {cpu: {allocatable: ''}}" CPU01 "}",
	              "cpu allocatable map is empty");
	expect_reason(", numa: {policies: {CPUManagerPolicy: static, TopologyManagerPolicy: "
	              "restricted}, numares: {cpu: {allocatable: '0'}}" CPU01 "}",
	              "container  cannot be assigned by numa");
}

/* Only Guaranteed pods (cpu and memory limits, requests equal to them) are checked; a pod
 * without a policy only on active nodes. */
static void test_which_pods(void **state)
{
	(void)state;
	pts p;
	open_numa(&p, "single-numa-node", "0-15", "", "",
	          "pods:\n"
	          "  - {name: burstable, namespace: ns, requests: {cpu: '12'}}\n"
	          "  - {name: besteffort, namespace: ns}\n" POD("big", "12", "")
	              POD("none", "12", ", annotations: {volcano.sh/numa-topology-policy: none}"));
	tph_reason_code why[1];
	tph_idx feas[1];
	const char *pass[] = {"ns/burstable", "ns/besteffort"};
	for (int i = 0; i < 2; i++)
		assert_int_equal(
		    tph_filter_nodes(p.s, pts_task(&p, pass[i]), p.s->ready_nodes, 1, why, feas),
		    1);
	/* 12 CPUs fit no single NUMA node: a Guaranteed pod fails, "none" is no policy */
	assert_int_equal(
	    tph_filter_nodes(p.s, pts_task(&p, "ns/big"), p.s->ready_nodes, 1, why, feas), 0);
	assert_int_equal(
	    tph_filter_nodes(p.s, pts_task(&p, "ns/none"), p.s->ready_nodes, 1, why, feas), 0);
	pts_free(&p);
	/* A node whose topology policy is none takes it without a look. */
	open_numa(&p, "none", "0-15", "", "", "pods:\n" POD("big", "12", ""));
	assert_int_equal(
	    tph_filter_nodes(p.s, pts_task(&p, "ns/big"), p.s->ready_nodes, 1, why, feas), 1);
	pts_free(&p);
}

/* BatchNodeOrder: fewer NUMA nodes score higher, normalised over the candidates, times the
 * weight; pods without a policy get no score. */
static void test_batch_score(void **state)
{
	(void)state;
	pts p;
	char detail[2048], more[4096];
	topo16(detail, sizeof detail);
	snprintf(
	    more, sizeof more,
	    "  - name: n2\n"
	    "    allocatable: {cpu: '16', memory: 64Gi, pods: '100'}\n"
	    "    numa:\n"
	    "      policies: {CPUManagerPolicy: static, TopologyManagerPolicy: best-effort}\n"
	    "      numares: {cpu: {allocatable: '0-2,4-6'}}\n"
	    "%s"
	    "pods:\n" POD("p", "4", ", annotations: {volcano.sh/numa-topology-policy: best-effort}")
	        POD("q", "4", ""),
	    detail);
	open_numa(&p, "best-effort", "0-15", "", "weight: 2", more);
	/* n1 gives 4 CPUs of NUMA node 0, n2 needs both: 100 - 100 * 1 / 2 and 100 - 100 * 2 / 2 */
	pts_expect_scores(&p, "ns/p", 100, 0);
	assert_int_equal(tph_score_locality(p.s, pts_task(&p, "ns/p")), TPH_SCORE_GLOBAL);
	pts_expect_scores(&p, "ns/q", 0, 0);
	assert_int_equal(tph_score_locality(p.s, pts_task(&p, "ns/q")), TPH_SCORE_LOCAL);
	pts_free(&p);
}

/* The allocate event takes the CPUs from the node for later pods; undoing gives them back. */
static void test_events(void **state)
{
	(void)state;
	pts p;
	open_numa(&p, "single-numa-node", "0-15", "", "",
	          "pods:\n" POD("a", "6", "") POD("b", "6", "") POD("c", "6", ""));
	char got[64];
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/a"), pts_node(&p, "n1")), TPH_OK);
	place_text(&p, "ns/b", got, sizeof got);
	assert_string_equal(got, "4-6,12-14"); /* NUMA node 0 has 2 CPUs left */
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/b"), pts_node(&p, "n1")), TPH_OK);
	place_text(&p, "ns/c", got, sizeof got);
	assert_string_equal(got, "reject");
	tph_stmt_discard(&st);
	place_text(&p, "ns/c", got, sizeof got);
	assert_string_equal(got, "0-2,8-10");
	tph_stmt_free(&st);
	pts_free(&p);
}

/* The conf's enablePredicate off: no assignment, so no event and no score (assignRes empty). */
static void test_predicate_off(void **state)
{
	(void)state;
	pts p;
	open_flags(&p, "      enablePredicate: false\n", "restricted", "0-15", "",
	           "pods:\n" POD("p", "4",
	                         ", annotations: {volcano.sh/numa-topology-policy: restricted}"));
	double sc[1];
	tph_score_nodes(p.s, pts_task(&p, "ns/p"), p.s->ready_nodes, 1, sc);
	assert_true(sc[0] == 0);
	assert_null(numa_state(&p)->held_node);
	pts_free(&p);
}

/* The loader: cpusets, ids and bounds are located errors; the cache keeps the cpu entry. */
static void expect_load_error(const char *numa, const char *want)
{
	char yaml[2048];
	snprintf(yaml, sizeof yaml, "nodes:\n  - name: n1\n    numa: %s\n", numa);
	tph_scenario *sc = NULL;
	tph_diag d = {0};
	int rc = tph_scenario_load_buffer(yaml, strlen(yaml), "t.yaml", &sc, &d);
	if (rc == TPH_OK || !strstr(d.msg, want))
		fail_msg("%s: rc %d, \"%s\", want \"%s\"", numa, rc, d.msg, want);
	tph_scenario_free(sc);
}

static void test_loader(void **state)
{
	(void)state;
	expect_load_error("{numares: {cpu: {allocatable: '0-3,x'}}}",
	                  "t.yaml:3:41: node n1: field numa.numares.cpu.allocatable: bad cpuset "
	                  "\"0-3,x\": an element is not a number");
	expect_load_error("{numares: {cpu: {allocatable: '3-1'}}}", "a range ends below its start");
	expect_load_error("{numares: {cpu: {allocatable: '1,,2'}}}", "an element is not a number");
	expect_load_error("{numares: {cpu: {allocatable: '-1'}}}", "an element is not a number");
	expect_load_error("{numares: {cpu: {allocatable: '0-70000'}}}", "not below 65536");
	expect_load_error("{numares: {cpu: {allocatble: '0'}}}", "allocatble");
	expect_load_error("{policies: {CpuManagerPolicy: static}}", "CpuManagerPolicy");
	expect_load_error("{cpuDetail: {'1': {numa: 64}}}", "out of range");
	expect_load_error("{cpuDetail: {'x': {numa: 0}}}", "CPU id \"x\" is not an integer");
	expect_load_error("{cpuDetail: {'1': {}, '01': {}}}", "CPU 1 appears twice");
	expect_load_error("{cpuDetail: {'1': {core: -1}}}", "out of range");
	expect_load_error("{zones: []}", "zones");

	pts p;
	open_numa(&p, "restricted", "+3-5,1", "cpu: '2', memory: 1Gi", "",
	          "  - {name: n2, allocatable: {cpu: '1'}}\n");
	const tph_node_numa_row *r = p.s->nodes.meta[pts_node(&p, "n1")]->numa;
	assert_non_null(r);
	assert_true(r->has_cpu);
	assert_int_equal(r->n_cpu_alloc, 4);
	assert_int_equal(r->cpu_alloc[0], 1);
	assert_int_equal(r->cpu_alloc[3], 5);
	assert_int_equal(r->reserved_cpu, 2000);
	assert_int_equal(r->n_cpus, 16);
	assert_int_equal(r->cpus[9].core, 1);
	assert_string_equal(pts_str(p.s, r->topology_manager_policy), "restricted");
	assert_null(p.s->nodes.meta[pts_node(&p, "n2")]->numa);
	pts_free(&p);
}

/* A host's descriptor goes through the cache's own checks. */
static int put(const tph_node_numa *numa, tph_diag *d)
{
	tph_cluster *c;
	assert_int_equal(tph_cluster_create(&c), TPH_OK);
	tph_res_item cpu = {"cpu", 4000};
	tph_node_desc n = TPH_NODE_DESC_INIT;
	n.name = "n1";
	n.allocatable = (tph_res_list){&cpu, 1};
	n.numa = numa;
	int rc = tph_cluster_put_node(c, &n, d);
	tph_cluster_destroy(c);
	return rc;
}

static void test_host_put(void **state)
{
	(void)state;
	tph_diag d = {0};
	tph_numa_cpu cpus[3] = {{2, 1, 0, 2}, {0, 0, 0, 0}, {1, 0, 0, 1}};
	tph_numa_res res[2] = {{"cpu", "0-2", 3}, {"memory", "", 0}};
	tph_node_numa ok = {"static", "restricted", {NULL, 0}, res, 2, cpus, 3};
	assert_int_equal(put(&ok, &d), TPH_OK);
	tph_numa_res bad_set[1] = {{"cpu", "0-2,", 3}};
	tph_node_numa bad = ok;
	bad.numares = bad_set;
	bad.n_numares = 1;
	assert_int_equal(put(&bad, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "numa.numares: cpu: bad cpuset \"0-2,\""));
	tph_numa_cpu twice[2] = {{1, 0, 0, 0}, {1, 0, 0, 1}};
	bad = ok;
	bad.cpus = twice;
	bad.n_cpus = 2;
	assert_int_equal(put(&bad, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "CPU 1 appears twice"));
	tph_numa_cpu far[1] = {{1, 64, 0, 0}};
	bad = ok;
	bad.cpus = far;
	bad.n_cpus = 1;
	assert_int_equal(put(&bad, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "an id out of range"));
	tph_numa_res two[2] = {{"cpu", "", 0}, {"cpu", "1", 0}};
	bad = ok;
	bad.numares = two;
	assert_int_equal(put(&bad, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "cpu appears twice"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_assignments_as_volcano),
	    cmocka_unit_test(test_filter_reasons),
	    cmocka_unit_test(test_which_pods),
	    cmocka_unit_test(test_batch_score),
	    cmocka_unit_test(test_events),
	    cmocka_unit_test(test_predicate_off),
	    cmocka_unit_test(test_loader),
	    cmocka_unit_test(test_host_put),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

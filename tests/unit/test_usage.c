/* Unit tests for plugins/usage.c: the thresholds against fresh, stale, never-updated and
 * other-period metrics; the score with its weights and their fallbacks; the shadow load of
 * the tasks on a node (which statuses count, best-effort pods, the risk factor and the clamp
 * of the estimator, each estimator argument and the types Volcano accepts for them); the event
 * handlers through statements and their undo; locality, and an allocate run decided alike on
 * the fast path and the naive one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "session/ep_predicate.h"
#include "harness.h"
#include "session/statement.h"

#define GI (1024.0 * 1024 * 1024)

#define CONF(args)                                                              \
	"now: '2026-01-01T00:10:00Z'\n"                                         \
	"conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: usage\n" \
	"      arguments: {" args "}\n"                                         \
	"queues: [{name: q1}]\n"                                                \
	"podGroups: [{name: pg, namespace: c1, queue: q1}]\n"

/* n1: 4 cpu, 8Gi, fresh usage (cpu, mem) and the pods given. */
#define NODE1(cpu, mem)                                                            \
	"nodes:\n  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}," \
	" usage: {period: 10m, cpu: " cpu ", memory: " mem "}}\n"

#define PENDING "  - {name: p, namespace: c1, podGroup: pg, requests: {cpu: '1', memory: 1Gi}}\n"

static const char *why(const pts *p, const char *task, const char *node)
{
	return tph_reason_text(p->s,
	                       tph_predicate_node(p->s, pts_task(p, task), pts_node(p, node)));
}

static double score1(pts *p, const char *task, const char *node)
{
	double out;
	tph_idx n = pts_node(p, node);
	tph_score_nodes(p->s, pts_task(p, task), &n, 1, &out);
	return out;
}

/* Volcano's CalcNodeScore over composite loads (real percent + shadow estimate). */
static double expect_score(double cpu_pct, double est_cpu, double cap_cpu, double mem_pct,
                           double est_mem, double cap_mem, double cw, double mw, double uw)
{
	double cc = (cpu_pct / 100.0 * cap_cpu + est_cpu) / cap_cpu;
	double mc = (mem_pct / 100.0 * cap_mem + est_mem) / cap_mem;
	cc = cc > 1 ? 1 : cc;
	mc = mc > 1 ? 1 : mc;
	return ((1.0 - cc) * cw + (1.0 - mc) * mw) / (cw + mw) * 100.0 * uw;
}

static void close_to(double got, double want)
{
	if (fabs(got - want) > 1e-9)
		fail_msg("expected %.12g, got %.12g", want, got);
}

/* ---- the predicate ---- */

#define FIVE_NODES                                                                               \
	"nodes:\n"                                                                               \
	"  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {period: 10m, cpu: 81.0, memory: 60.0}}\n"                                      \
	"  - {name: n2, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {period: 10m, cpu: 60.0, memory: 81.0}}\n"                                      \
	"  - {name: n3, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {period: 10m, cpu: 80.0, memory: 79.0}}\n"                                      \
	"  - {name: n4, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {period: 10m, cpu: 90.0, memory: 81.0, metricsTime: '2026-01-01T00:04:00Z'}}\n" \
	"  - {name: n5, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {period: 10m, cpu: 90.0, memory: 81.0, metricsTime: '0001-01-01T00:00:00Z'}}\n" \
	"  - {name: n6, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n"                     \
	"  - {name: n7, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {period: 5m, cpu: 90.0, memory: 90.0}}\n"                                       \
	"  - {name: n8, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {cpu: 90.0, memory: 10.0, metricsTime: '2026-01-01T00:05:00Z'}}\n"              \
	"pods:\n" PENDING

static void test_thresholds(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, CONF("thresholds: {cpu: 80, mem: 80}") FIVE_NODES);
	assert_string_equal(why(&p, "c1/p", "n1"),
	                    "the CPU load of the node exceeds the upper limit.");
	assert_string_equal(why(&p, "c1/p", "n2"),
	                    "the memory load of the node exceeds the upper limit.");
	assert_int_equal(tph_predicate_node(p.s, pts_task(&p, "c1/p"), pts_node(&p, "n3")),
	                 TPH_PASS);
	/* Six minutes old, never updated, no report, another period: no check. Exactly five
	 * minutes old is still fresh (n8, with no period: the cache's). */
	static const char *const unchecked[] = {"n4", "n5", "n6", "n7"};
	for (size_t i = 0; i < sizeof unchecked / sizeof *unchecked; i++)
		assert_int_equal(
		    tph_predicate_node(p.s, pts_task(&p, "c1/p"), pts_node(&p, unchecked[i])),
		    TPH_PASS);
	assert_string_equal(why(&p, "c1/p", "n8"),
	                    "the CPU load of the node exceeds the upper limit.");
	pts_free(&p);
	/* Thresholds of the arguments: integers within [0, 100] only. */
	pts_open(&p, CONF("thresholds: {cpu: 95, mem: 78}") FIVE_NODES);
	assert_int_equal(tph_predicate_node(p.s, pts_task(&p, "c1/p"), pts_node(&p, "n1")),
	                 TPH_PASS);
	assert_string_equal(why(&p, "c1/p", "n3"),
	                    "the memory load of the node exceeds the upper limit.");
	pts_free(&p);
	pts_open(&p, CONF("thresholds: {cpu: 101, mem: 85.5}") FIVE_NODES);
	assert_string_equal(why(&p, "c1/p", "n1"),
	                    "the CPU load of the node exceeds the upper limit.");
	assert_string_equal(why(&p, "c1/p", "n2"),
	                    "the memory load of the node exceeds the upper limit.");
	pts_free(&p);
	/* A section that is not a mapping is ignored: the defaults (80) hold. */
	pts_open(&p, CONF("thresholds: [cpu, 10]") FIVE_NODES);
	assert_int_equal(tph_predicate_node(p.s, pts_task(&p, "c1/p"), pts_node(&p, "n3")),
	                 TPH_PASS);
	assert_string_equal(why(&p, "c1/p", "n1"),
	                    "the CPU load of the node exceeds the upper limit.");
	pts_free(&p);
	/* enablePredicate off: nothing is filtered. */
	pts_open(&p, "enableFlagsDefault: false\n" CONF("") FIVE_NODES);
	assert_int_equal(p.s->ep[TPH_EP_PREDICATE].n, 0);
	assert_int_equal(p.s->ep[TPH_EP_NODE_ORDER].n, 0);
	assert_int_equal(p.s->ep[TPH_EP_ALLOCATE_EVENT].n, 0);
	pts_free(&p);
}

/* ---- the score ---- */

#define SCORE_NODES                                                                              \
	"nodes:\n"                                                                               \
	"  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {period: 10m, cpu: 30.0, memory: 50.0}}\n"                                      \
	"  - {name: n2, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {period: 10m, cpu: 60.0, memory: 50.0}}\n"                                      \
	"  - {name: n3, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {period: 10m, cpu: 60.0, memory: 80.0}}\n"                                      \
	"  - {name: n4, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {period: 10m, cpu: 10.0, memory: 20.0, metricsTime: '2026-01-01T00:04:00Z'}}\n" \
	"  - {name: n5, allocatable: {cpu: '4', memory: 8Gi, pods: '10'},"                       \
	" usage: {period: 10m, cpu: 0.0, memory: 0.0, metricsTime: '0001-01-01T00:00:00Z'}}\n"   \
	"pods:\n" PENDING

static void five_scores(const char *yaml, double a, double b, double c)
{
	pts p;
	double got[5];
	pts_open(&p, yaml);
	tph_score_nodes(p.s, pts_task(&p, "c1/p"), p.s->ready_nodes, 5, got);
	close_to(got[0], a);
	close_to(got[1], b);
	close_to(got[2], c);
	close_to(got[3], 0);
	close_to(got[4], 0);
	pts_free(&p);
}

static void test_scores_and_weights(void **state)
{
	(void)state;
	/* TestUsage_nodeOrderFn's two cases. */
	five_scores(CONF("usage.weight: 5, cpu.weight: 1, memory.weight: 1") SCORE_NODES, 300, 225,
	            150);
	five_scores(CONF("usage.weight: 5, cpu.weight: 2, memory.weight: 8") SCORE_NODES, 270, 240,
	            120);
	/* The defaults are 5, 1, 1; negative weights, and weights that are not YAML integers,
	 * keep them. */
	five_scores(CONF("") SCORE_NODES, 300, 225, 150);
	five_scores(CONF("usage.weight: -1, cpu.weight: -1, memory.weight: -1") SCORE_NODES, 300,
	            225, 150);
	five_scores(CONF("usage.weight: '7', cpu.weight: 2.0, memory.weight: '3'") SCORE_NODES, 300,
	            225, 150);
	/* Zero weights: no score. */
	five_scores(CONF("usage.weight: 0") SCORE_NODES, 0, 0, 0);
	five_scores(CONF("cpu.weight: 0, memory.weight: 0") SCORE_NODES, 0, 0, 0);
	five_scores(CONF("cpu.weight: 1, memory.weight: 0, usage.weight: 1") SCORE_NODES, 70, 40,
	            40);
	/* A usage with another period than 10m reads as no load, fresh: the full score. */
	five_scores(CONF("") "nodes:\n  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: "
	                     "'10'}, usage: {period: 5m, cpu: 90.0, memory: 90.0}}\n"
	                     "  - {name: n2, allocatable: {cpu: '4', pods: '10'}}\n"
	                     "  - {name: n3, allocatable: {cpu: '4', pods: '10'}}\n"
	                     "  - {name: n4, allocatable: {cpu: '4', pods: '10'}}\n"
	                     "  - {name: n5, allocatable: {cpu: '4', pods: '10'}}\n"
	                     "pods:\n" PENDING,
	            500, 0, 0);
}

/* ---- the shadow load ---- */

static void test_shadow_statuses(void **state)
{
	(void)state;
	pts p;
	/* Running (no start time) and bound pods count, 0.7 of their requests; releasing,
	 * finished and pending ones do not, nor a pod on a node that is not ready. */
	pts_open(
	    &p,
	    CONF("") NODE1(
	        "30.0",
	        "50.0") "  - {name: nr, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}, ready: "
	                "false}\n"
	                "pods:\n" PENDING
	                "  - {name: run, namespace: c1, podGroup: pg, phase: Running, nodeName: n1,"
	                " requests: {cpu: '1', memory: 1Gi}}\n"
	                "  - {name: bound, namespace: c1, podGroup: pg, nodeName: n1,"
	                " requests: {cpu: '1', memory: 2Gi}}\n"
	                "  - {name: rel, namespace: c1, podGroup: pg, phase: Running, deleting: "
	                "true,"
	                " nodeName: n1, requests: {cpu: '3'}}\n"
	                "  - {name: done, namespace: c1, podGroup: pg, phase: Succeeded, nodeName: "
	                "n1,"
	                " requests: {cpu: '3'}}\n"
	                "  - {name: nrp, namespace: c1, podGroup: pg, phase: Running, nodeName: nr,"
	                " requests: {cpu: '3'}}\n");
	close_to(score1(&p, "c1/p", "n1"),
	         expect_score(30, 1400, 4000, 50, 0.7 * 3 * GI, 8 * GI, 1, 1, 5));
	pts_free(&p);
	/* Best-effort pods count be_cpu and be_mem: 250m and 200Mi by default. */
	pts_open(&p, CONF("") NODE1("30.0", "50.0") "pods:\n" PENDING
	                                            "  - {name: be, namespace: c1, podGroup: pg, "
	                                            "phase: Running, nodeName: n1}\n");
	close_to(score1(&p, "c1/p", "n1"),
	         expect_score(30, 250, 4000, 50, 200.0 * 1024 * 1024, 8 * GI, 1, 1, 5));
	pts_free(&p);
	/* The score reads capacity, not allocatable. */
	pts_open(&p, CONF("") "nodes:\n  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: "
	                      "'10'}, capacity: {cpu: '8', memory: 16Gi},"
	                      " usage: {period: 10m, cpu: 30.0, memory: 50.0}}\n"
	                      "pods:\n" PENDING
	                      "  - {name: run, namespace: c1, podGroup: pg, phase: Running,"
	                      " nodeName: n1, requests: {cpu: '1', memory: 1Gi}}\n");
	close_to(score1(&p, "c1/p", "n1"),
	         expect_score(30, 700, 8000, 50, 0.7 * GI, 16 * GI, 1, 1, 5));
	pts_free(&p);
}

static void test_risk_and_clamp(void **state)
{
	(void)state;
	pts p;
	/* Composite load (0.6 + 0.7) / 2 >= 0.6: estimates are inflated by 1.2. */
	pts_open(
	    &p,
	    CONF("") NODE1(
	        "60.0",
	        "70.0") "pods:\n" PENDING
	                "  - {name: run, namespace: c1, podGroup: pg, phase: Running, nodeName: n1,"
	                " requests: {cpu: '1', memory: 1Gi}}\n");
	close_to(score1(&p, "c1/p", "n1"),
	         expect_score(60, 1000 * 0.7 * 1.2, 4000, 70, GI * 0.7 * 1.2, 8 * GI, 1, 1, 5));
	pts_free(&p);
	/* The first task's estimate takes the node over the threshold: the second is inflated. */
	pts_open(
	    &p,
	    CONF("") NODE1(
	        "50.0",
	        "50.0") "pods:\n" PENDING
	                "  - {name: a, namespace: c1, podGroup: pg, phase: Running, nodeName: n1,"
	                " requests: {cpu: '4', memory: 4Gi}}\n"
	                "  - {name: b, namespace: c1, podGroup: pg, phase: Running, nodeName: n1,"
	                " requests: {cpu: '1', memory: 1Gi}}\n");
	close_to(score1(&p, "c1/p", "n1"),
	         expect_score(50, 4000 * 0.7 + 1000 * 0.7 * 1.2, 4000, 50,
	                      4 * GI * 0.7 + GI * 0.7 * 1.2, 8 * GI, 1, 1, 5));
	pts_free(&p);
	/* request_ratio 1 and risk_factor 1.5: the estimate is clamped to the request (no limits);
	 * risk_threshold 0 always applies it; burst_ratio reads nothing without limits. */
	pts_open(&p, CONF("estimator: {request_ratio: 1, burst_ratio: 0.5, risk_threshold: 0,"
	                  " risk_factor: 1.5}")
	                 NODE1("10.0", "10.0") "pods:\n" PENDING
	                                       "  - {name: run, namespace: c1, podGroup: pg, "
	                                       "phase: Running, nodeName: n1,"
	                                       " requests: {cpu: '1', memory: 1Gi}}\n");
	close_to(score1(&p, "c1/p", "n1"), expect_score(10, 1000, 4000, 10, GI, 8 * GI, 1, 1, 5));
	pts_free(&p);
	/* Out of range values keep the defaults (0.7, 0.6, 1.2). */
	pts_open(&p, CONF("estimator: {request_ratio: 1.5, burst_ratio: -0.1, risk_threshold: 2,"
	                  " risk_factor: 0.5}")
	                 NODE1("60.0", "70.0") "pods:\n" PENDING
	                                       "  - {name: run, namespace: c1, podGroup: pg, "
	                                       "phase: Running, nodeName: n1,"
	                                       " requests: {cpu: '1', memory: 1Gi}}\n");
	close_to(score1(&p, "c1/p", "n1"),
	         expect_score(60, 1000 * 0.7 * 1.2, 4000, 70, GI * 0.7 * 1.2, 8 * GI, 1, 1, 5));
	pts_free(&p);
	/* An integer ratio is read as a float; a string is not. */
	pts_open(&p,
	         CONF("estimator: {request_ratio: 0, risk_threshold: '0'}") NODE1(
	             "60.0", "70.0") "pods:\n" PENDING
	                             "  - {name: run, namespace: c1, podGroup: pg, phase: Running,"
	                             " nodeName: n1, requests: {cpu: '1', memory: 1Gi}}\n");
	close_to(score1(&p, "c1/p", "n1"), expect_score(60, 0, 4000, 70, 0, 8 * GI, 1, 1, 5));
	pts_free(&p);
}

/* be_cpu / be_mem: an int is millicores / MiB, a string a quantity, anything else (or a
 * negative or bad value) the default. */
static void be_case(const char *args, double cpu, double mem)
{
	pts p;
	char *yaml = NULL;
	assert_true(
	    asprintf(
	        &yaml,
	        "%s" NODE1("30.0",
	                   "50.0") "pods:\n" PENDING
	                           "  - {name: be, namespace: c1, podGroup: pg, phase: Running,"
	                           " nodeName: n1}\n",
	        args) > 0);
	pts_open(&p, yaml);
	close_to(score1(&p, "c1/p", "n1"), expect_score(30, cpu, 4000, 50, mem, 8 * GI, 1, 1, 5));
	pts_free(&p);
	free(yaml);
}

static void test_best_effort_values(void **state)
{
	(void)state;
	const double mi = 1024.0 * 1024;
	be_case(CONF("estimator: {be_cpu: 500m, be_mem: 300Mi}"), 500, 300 * mi);
	be_case(CONF("estimator: {be_cpu: 500, be_mem: 100}"), 500, 100 * mi);
	be_case(CONF("estimator: {be_cpu: '1', be_mem: '1000'}"), 1000, 1000);
	be_case(CONF("estimator: {be_cpu: -1, be_mem: bad}"), 250, 200 * mi);
	be_case(CONF("estimator: {be_cpu: '-1', be_mem: 1.5}"), 250, 200 * mi);
	be_case(CONF("estimator: [be_cpu]"), 250, 200 * mi);
}

/* The event handlers: an allocation adds its estimate (with the risk it saw), its undo takes
 * exactly that back; an eviction drops the task's estimate, its undo adds it again. */
static void test_events(void **state)
{
	(void)state;
	pts p;
	pts_open(
	    &p,
	    CONF("") NODE1(
	        "20.0",
	        "20.0") "pods:\n" PENDING "  - {name: q, namespace: c1, podGroup: pg, requests: "
	                "{cpu: '2', memory: 4Gi}}\n"
	                "  - {name: run, namespace: c1, podGroup: pg, phase: Running, nodeName: n1,"
	                " requests: {cpu: '1', memory: 1Gi}}\n");
	double before = score1(&p, "c1/p", "n1");
	close_to(before, expect_score(20, 700, 4000, 20, 0.7 * GI, 8 * GI, 1, 1, 5));
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "c1/q"), pts_node(&p, "n1")), TPH_OK);
	close_to(score1(&p, "c1/p", "n1"),
	         expect_score(20, 700 + 1400, 4000, 20, 0.7 * GI + 2.8 * GI, 8 * GI, 1, 1, 5));
	/* (0.725 + 0.6375) / 2 is over the risk threshold now: the next one is inflated */
	assert_int_equal(tph_stmt_pipeline(&st, pts_task(&p, "c1/p"), pts_node(&p, "n1")), TPH_OK);
	close_to(score1(&p, "c1/q", "n1"),
	         expect_score(20, 700 + 1400 + 840, 4000, 20, 0.7 * GI + 2.8 * GI + 0.84 * GI,
	                      8 * GI, 1, 1, 5));
	tph_stmt_discard(&st);
	assert_true(score1(&p, "c1/p", "n1") == before);
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_evict(&st, pts_task(&p, "c1/run"), "test"), TPH_OK);
	close_to(score1(&p, "c1/p", "n1"), expect_score(20, 0, 4000, 20, 0, 8 * GI, 1, 1, 5));
	tph_stmt_discard(&st);
	assert_true(score1(&p, "c1/p", "n1") == before);
	assert_int_equal(tph_score_locality(p.s, pts_task(&p, "c1/p")), TPH_SCORE_LOCAL);
	pts_free(&p);
}

/* Nodes of several loads fill up; decided the same fast and naive, at one and two threads. */
static void test_allocate_fast_and_naive(void **state)
{
	(void)state;
	char *yaml = NULL;
	size_t len;
	FILE *f = open_memstream(&yaml, &len);
	fprintf(f, "now: '2026-01-01T00:10:00Z'\n"
	           "conf: |\n  actions: \"enqueue, allocate\"\n  tiers:\n  - plugins:\n"
	           "    - name: gang\n    - name: predicates\n    - name: usage\n"
	           "      arguments: {thresholds: {cpu: 85, mem: 90}}\n    - name: binpack\n"
	           "queues: [{name: q1}]\nnodes:\n");
	for (int i = 0; i < 40; i++)
		fprintf(f,
		        "  - {name: n%02d, allocatable: {cpu: '8', memory: 16Gi, pods: '20'},"
		        " usage: {period: 10m, cpu: %d.5, memory: %d.0%s}}\n",
		        i, (i * 37) % 95, (i * 53) % 95,
		        i % 7 == 3 ? ", metricsTime: '2026-01-01T00:00:00Z'" : "");
	fprintf(f, "podGroups:\n");
	for (int j = 0; j < 10; j++)
		fprintf(f,
		        "  - {name: j%d, namespace: ns, queue: q1, minMember: 1, phase: Inqueue}\n",
		        j);
	fprintf(f, "pods:\n");
	for (int i = 0; i < 40; i += 3)
		fprintf(f,
		        "  - {name: run%d, namespace: ns, podGroup: j0, phase: Running, nodeName: "
		        "n%02d,"
		        " requests: {cpu: '2', memory: 2Gi}}\n",
		        i, i);
	for (int j = 0; j < 10; j++)
		for (int k = 0; k < 8; k++)
			fprintf(f, "  - {name: j%d-t-%d, namespace: ns, podGroup: j%d%s}\n", j, k,
			        j, k % 5 == 4 ? "" : ", requests: {cpu: '1', memory: 2Gi}");
	fclose(f);
	char *logs[3];
	uint64_t scored[3] = {0};
	for (int r = 0; r < 3; r++) {
		pts p;
		tph_session_opts o = {.threads = r == 2 ? 2 : 1, .naive = r == 0, .profile = true};
		pts_open_with(&p, yaml, &o);
		pts_run(&p);
		logs[r] = pts_log_text(p.log);
		assert_non_null(strstr(logs[r], "bind "));
		const tph_profile_row *rows;
		uint32_t n;
		assert_int_equal(tph_session_profile(p.s, &rows, &n), TPH_OK);
		for (uint32_t i = 0; i < n; i++)
			if (!strcmp(rows[i].ep, "NodeOrder"))
				scored[r] = rows[i].nodes;
		pts_free(&p);
	}
	assert_string_equal(logs[0], logs[1]);
	assert_string_equal(logs[1], logs[2]);
	/* node-local: the fast path keeps scores between tasks */
	assert_true(scored[1] * 2 < scored[0]);
	for (int r = 0; r < 3; r++)
		free(logs[r]);
	free(yaml);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_thresholds),
	    cmocka_unit_test(test_scores_and_weights),
	    cmocka_unit_test(test_shadow_statuses),
	    cmocka_unit_test(test_risk_and_clamp),
	    cmocka_unit_test(test_best_effort_values),
	    cmocka_unit_test(test_events),
	    cmocka_unit_test(test_allocate_fast_and_naive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for the allocate action (kernel/actions/allocate*.c): binds and best-effort
 * tasks, Pending jobs with and without enqueue, gang discard and pipelined keep, Idle before
 * FutureIdle, shards, nominated nodes, overused queues, the role error cache, the gang
 * continuation rules and node sampling. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "action_spy.h"
#include "common/action_util.h"
#include "session/fitlog.h"

#define CONF(actions, spy_args)        \
	"conf: |\n"                    \
	"  actions: \"" actions "\"\n" \
	"  tiers:\n"                   \
	"  - plugins:\n"               \
	"    - name: spy\n"            \
	"      arguments: " spy_args "\n"
#define CONF_ARGS(actions, spy_args, action_args) \
	CONF(actions, spy_args)                   \
	"  configurations:\n"                     \
	"  - name: allocate\n"                    \
	"    arguments: " action_args "\n"

#define NODE(name, cpu, extra) \
	"  - {name: " name ", allocatable: {cpu: '" cpu "', memory: 8Gi, pods: '20'}" extra "}\n"
#define PG(name, min, extra)                                                                      \
	"  - {name: " name ", namespace: ns, queue: q1, minMember: " min ", phase: Inqueue" extra \
	"}\n"
#define POD(name, pg, cpu, extra)                                                                \
	"  - {name: " name ", namespace: ns, podGroup: " pg ", requests: {cpu: '" cpu "'}" extra \
	"}\n"
#define Q1 "queues: [{name: q1}]\n"

static void test_binds_skip_best_effort(void **state)
{
	(void)state;
	run r;
	run_scenario(&r,
	             CONF("allocate", "{}") Q1 "nodes:\n" NODE("n1", "4", "") "podGroups:\n" PG(
	                 "pg", "1", "") "pods:\n" POD("p-1", "pg", "1", "")
	                 POD("p-2", "pg", "1", "") "  - {name: be, namespace: ns, podGroup: pg}\n",
	             1, false);
	assert_string_equal(run_bound(&r, "ns/p-1"), "n1");
	assert_string_equal(run_bound(&r, "ns/p-2"), "n1");
	assert_null(run_bound(&r, "ns/be"));
	assert_int_equal(run_status(&r, "ns/be"), TPH_TS_PENDING);
	pts_free(&r);
}

/* Without an enqueue action a Pending job is treated as Inqueue; with one it waits for it. */
static void test_pending_jobs(void **state)
{
	(void)state;
	const char *rest = Q1 "nodes:\n" NODE(
	    "n1", "4",
	    "") "podGroups:\n"
	        "  - {name: pg, namespace: ns, queue: q1, minMember: 1, minResources: {cpu: '1'}}\n"
	        "pods:\n" POD("p-1", "pg", "1", "");
	char yaml[2048];
	run r;
	snprintf(yaml, sizeof yaml, "%s%s", CONF("allocate", "{}"), rest);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_bound(&r, "ns/p-1"), "n1");
	pts_free(&r);
	snprintf(yaml, sizeof yaml, "%s%s", CONF("enqueue, allocate", "{deny: pg}"), rest);
	run_scenario(&r, yaml, 1, false);
	assert_null(run_bound(&r, "ns/p-1"));
	assert_string_equal(run_phase(&r, "ns/pg"), "Pending");
	pts_free(&r);
	snprintf(yaml, sizeof yaml, "%s%s", CONF("enqueue, allocate", "{}"), rest);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_bound(&r, "ns/p-1"), "n1");
	pts_free(&r);
}

/* A gang that cannot be met is discarded; the next job gets the room. */
static void test_gang_discard(void **state)
{
	(void)state;
	run r;
	run_scenario(
	    &r,
	    CONF("allocate", "{ready: true}") Q1 "nodes:\n" NODE("n1", "4", "") "podGroups:\n" PG(
	        "big", "3", ", creationTimestamp: '2026-01-01T00:00:00Z'")
	        PG("small", "1", ", creationTimestamp: '2026-01-01T00:00:01Z'") "pods:\n" POD(
	            "big-0", "big", "2", "") POD("big-1", "big", "2", "")
	            POD("big-2", "big", "2", "") POD("small-0", "small", "3", ""),
	    1, false);
	assert_int_equal(r.log->n_binds, 1);
	assert_string_equal(run_bound(&r, "ns/small-0"), "n1");
	assert_int_equal(run_status(&r, "ns/big-0"), TPH_TS_PENDING);
	pts_free(&r);
}

#define RELEASING(name, node, cpu)                                                       \
	"  - {name: " name ", namespace: ns, podGroup: old, requests: {cpu: '" cpu "'}," \
	" phase: Running, nodeName: " node ", deleting: true}\n"

/* n1 scores higher but only its FutureIdle fits: the Idle node wins. */
static void test_idle_before_future(void **state)
{
	(void)state;
	run r;
	run_scenario(&r,
	             CONF("allocate", "{score: true}") Q1
	             "nodes:\n" NODE("n1", "2", ", labels: {score: '10'}")
	                 NODE("n2", "2", "") "podGroups:\n" PG("old", "1", "")
	                     PG("pg", "1", "") "pods:\n" RELEASING("old-0", "n1", "2")
	                         POD("p-0", "pg", "1", ""),
	             1, false);
	assert_string_equal(run_bound(&r, "ns/p-0"), "n2");
	pts_free(&r);
}

/* Only FutureIdle fits: the task is pipelined. A job that is ready commits (the pipelined
 * task is published); one that is only pipelined keeps its state without a bind. */
static void test_pipeline(void **state)
{
	(void)state;
	const char *rest = Q1 "nodes:\n" NODE("n1", "2", "") "podGroups:\n" PG("old", "1", "")
	    PG("pg", "1", "") "pods:\n" RELEASING("old-0", "n1", "2") POD("p-0", "pg", "1", "");
	char yaml[2048];
	run r;
	snprintf(yaml, sizeof yaml, "%s%s", CONF("allocate", "{}"), rest);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_pipelined(&r, "ns/p-0"), "n1");
	assert_int_equal(r.log->n_binds, 0);
	pts_free(&r);
	snprintf(yaml, sizeof yaml, "%s%s", CONF("allocate", "{ready: true}"), rest);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_pipelined(&r, "ns/p-0"), "n1");
	assert_int_equal(run_status(&r, "ns/p-0"), TPH_TS_PIPELINED);
	pts_free(&r);
}

static void test_shards(void **state)
{
	(void)state;
	const char *nodes = "nodes:\n" NODE("n1", "2", ", labels: {score: '10'}")
	    NODE("n2", "1", "") "podGroups:\n" PG("pg", "1", "") "pods:\n" POD("p-0", "pg", "1", "")
	        POD("p-1", "pg", "1", "");
	char yaml[2048];
	run r;
	snprintf(yaml, sizeof yaml, "%s" Q1 "shard: {name: s, mode: hard, nodes: [n2]}\n%s",
	         CONF("allocate", "{score: true}"), nodes);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_bound(&r, "ns/p-0"), "n2");
	assert_null(run_bound(&r, "ns/p-1"));
	bool shard_reason = false;
	for (uint32_t i = 0; i < r.log->n_pending; i++)
		for (uint32_t k = 0; k < r.log->pending[i].n_reasons; k++)
			shard_reason |= strstr(r.log->pending[i].reasons[k],
			                       "isn't in scheduler node shard") != NULL;
	assert_true(shard_reason);
	pts_free(&r);
	/* soft: the shard's node first even though n1 scores higher, then the rest */
	snprintf(yaml, sizeof yaml, "%s" Q1 "shard: {name: s, mode: soft, nodes: [n2]}\n%s",
	         CONF("allocate", "{score: true}"), nodes);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_bound(&r, "ns/p-0"), "n2");
	assert_string_equal(run_bound(&r, "ns/p-1"), "n1");
	pts_free(&r);
}

static void test_nominated_first(void **state)
{
	(void)state;
	run r;
	run_scenario(&r,
	             CONF("allocate", "{score: true}") Q1
	             "nodes:\n" NODE("n1", "2", ", labels: {score: '10'}")
	                 NODE("n2", "2", "") "podGroups:\n" PG("pg", "1", "") "pods:\n" POD(
	                     "p-0", "pg", "1", ", nominatedNodeName: n2") POD("p-1", "pg", "1", ""),
	             1, false);
	assert_string_equal(run_bound(&r, "ns/p-0"), "n2");
	assert_string_equal(run_bound(&r, "ns/p-1"), "n1");
	pts_free(&r);
}

static void test_overused_queue(void **state)
{
	(void)state;
	run r;
	run_scenario(
	    &r,
	    CONF("allocate", "{overused: q1}") "queues: [{name: q1}, {name: q2}]\n"
	                                       "nodes:\n" NODE("n1", "4", "") "podGroups:\n" PG(
	                                           "pg", "1",
	                                           "") "  - {name: other, namespace: ns, queue: "
	                                               "q2, minMember: 1, phase: Inqueue}\n"
	                                               "pods:\n" POD("p-0", "pg", "1", "")
	                                                   POD("o-0", "other", "1", ""),
	    1, false);
	assert_null(run_bound(&r, "ns/p-0"));
	assert_string_equal(run_bound(&r, "ns/o-0"), "n1");
	pts_free(&r);
}

/* Role w: w-0 (2 cpu) fails n1 and lands on n2; w-1 (1 cpu) would fit n1, but the role's
 * cache says n1 failed, so the gang of two fails; without the cache both bind. */
static void test_error_cache(void **state)
{
	(void)state;
	const char *rest = Q1 "nodes:\n" NODE("n1", "1", "") NODE("n2", "2", "") "podGroups:\n" PG(
	    "pg", "2", "") "pods:\n" POD("w-0", "pg", "2", ", taskSpec: w")
	    POD("w-1", "pg", "1", ", taskSpec: w");
	char yaml[2048];
	for (int naive = 0; naive < 2; naive++) {
		run r;
		snprintf(yaml, sizeof yaml, "%s%s", CONF("allocate", "{ready: true}"), rest);
		run_scenario(&r, yaml, 1, naive);
		assert_int_equal(r.log->n_binds, 0);
		pts_free(&r);
		snprintf(
		    yaml, sizeof yaml, "%s%s",
		    CONF_ARGS("allocate", "{ready: true}", "{predicateErrorCacheEnable: false}"),
		    rest);
		run_scenario(&r, yaml, 1, naive);
		assert_string_equal(run_bound(&r, "ns/w-0"), "n2");
		assert_string_equal(run_bound(&r, "ns/w-1"), "n1");
		pts_free(&r);
	}
}

/* Naive mode evaluates a node skipped by the cache not at all: one predicate call on n1 for
 * two tasks of the role with the cache, two without. */
static void test_error_cache_calls(void **state)
{
	(void)state;
	const char *rest = Q1 "nodes:\n" NODE("n1", "4", ", labels: {deny: w}")
	    NODE("n2", "4", "") "podGroups:\n" PG("pg", "2", "") "pods:\n" POD(
	        "w-0", "pg", "1", ", taskSpec: w") POD("w-1", "pg", "1", ", taskSpec: w");
	char yaml[2048];
	run r;
	snprintf(yaml, sizeof yaml, "%s%s", CONF("allocate", "{ready: true, predicate: true}"),
	         rest);
	run_scenario(&r, yaml, 1, true);
	assert_int_equal(r.log->n_binds, 2);
	assert_int_equal(spy_log.pred_calls[0], 1);
	pts_free(&r);
	snprintf(yaml, sizeof yaml, "%s%s",
	         CONF_ARGS("allocate", "{ready: true, predicate: true}",
	                   "{predicateErrorCacheEnable: false}"),
	         rest);
	run_scenario(&r, yaml, 1, true);
	assert_int_equal(spy_log.pred_calls[0], 2);
	pts_free(&r);
}

/* A role that failed makes its later tasks skip (TaskHasFitErrors); an empty role never does. */
#define SKIP_FMT                                                                                \
	"%s" Q1 "nodes:\n" NODE("n1", "1", "") "podGroups:\n" PG(                               \
	    "pg", "1",                                                                          \
	    "") "pods:\n  - {name: w-0, namespace: ns, podGroup: pg, requests: {cpu: '2'}%s}\n" \
	        "  - {name: w-1, namespace: ns, podGroup: pg, requests: {cpu: '1'}%s}\n"

static void test_role_failed_skip(void **state)
{
	(void)state;
	char yaml[2048];
	run r;
	snprintf(yaml, sizeof yaml, SKIP_FMT, CONF("allocate", "{ready: true}"), ", taskSpec: w",
	         ", taskSpec: w");
	run_scenario(&r, yaml, 1, false);
	assert_int_equal(r.log->n_binds, 0);
	pts_free(&r);
	snprintf(yaml, sizeof yaml, SKIP_FMT, CONF("allocate", "{ready: true}"), "", "");
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_bound(&r, "ns/w-1"), "n1");
	pts_free(&r);
}

/* NeedContinueAllocating. minMember below the roles' sum: go on while the pending tasks of
 * roles that never failed can still reach minMember. Otherwise: stop when a failed role is
 * below its own minimum. */
#define CONT_FMT                                                                                \
	"%s" Q1                                                                                 \
	"nodes:\n" NODE("n1", "%s", "") "podGroups:\n  - {name: pg, namespace: ns, queue: q1, " \
	                                "phase: Inqueue, minMember: %d,"                        \
	                                " minTaskMember: %s}\n"                                 \
	                                "pods:\n" POD("a-0", "pg", "9", ", taskSpec: a")        \
	                                    POD("b-1", "pg", "1", ", taskSpec: b")              \
	                                        POD("b-2", "pg", "1", ", taskSpec: b")          \
	                                            POD("b-3", "pg", "1", ", taskSpec: b")      \
	                                                POD("b-4", "pg", "1", ", taskSpec: b")

static void test_continue_rules(void **state)
{
	(void)state;
	char yaml[4096];
	const struct {
		const char *cpu;
		int min;
		const char *roles;
		uint32_t binds;
	} cases[] = {
	    {"3", 3, "{a: 2, b: 2}", 3}, /* 0 ready + 4 b pending >= 3 */
	    {"4", 4, "{a: 1, b: 3}", 0}, /* role a failed below its minimum */
	    {"4", 4, "{a: 0, b: 4}", 4}, /* role a has no minimum */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		run r;
		snprintf(yaml, sizeof yaml, CONT_FMT, CONF("allocate", "{ready: true}"),
		         cases[i].cpu, cases[i].min, cases[i].roles);
		run_scenario(&r, yaml, 1, false);
		assert_int_equal(r.log->n_binds, cases[i].binds);
		pts_free(&r);
	}
}

/* With sampling one feasible node is enough and the scan start rotates; without it every
 * node is scanned and the tie goes to the first. */
static void test_sampling(void **state)
{
	(void)state;
	const char *rest = Q1 "nodes:\n" NODE("n1", "4", "") NODE("n2", "4", "")
	    NODE("n3", "4", "") "podGroups:\n" PG("a", "1", "") PG("b", "1", "")
	        PG("c", "1", "") "pods:\n" POD("a-0", "a", "1", "") POD("b-0", "b", "1", "")
	            POD("c-0", "c", "1", "");
	char yaml[2048];
	run r;
	snprintf(yaml, sizeof yaml, "%s%s",
	         CONF_ARGS("allocate", "{}", "{minimum-feasible-nodes: 1}"), rest);
	for (int naive = 0; naive < 2; naive++) {
		run_scenario(&r, yaml, 1, naive);
		assert_string_equal(run_bound(&r, "ns/a-0"), "n1");
		assert_string_equal(run_bound(&r, "ns/b-0"), "n2");
		assert_string_equal(run_bound(&r, "ns/c-0"), "n3");
		pts_free(&r);
	}
	snprintf(yaml, sizeof yaml, "%s%s", CONF("allocate", "{}"), rest);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_bound(&r, "ns/c-0"), "n1");
	pts_free(&r);
}

/* One scheduling cycle over cache c (no apply): the node the one bind went to, "" for none. */
static const char *cycle(tph_cluster *c, const tph_conf *conf, tph_node_sampling mode, char *buf)
{
	tph_session_opts o = {.threads = 1, .node_sampling = mode};
	tph_snapshot *sn;
	tph_session *s;
	assert_int_equal(tph_cluster_snapshot(c, 0, &sn, NULL), TPH_OK);
	assert_int_equal(tph_session_open(sn, conf, &o, &s, NULL), TPH_OK);
	assert_int_equal(tph_session_run(s, NULL), TPH_OK);
	assert_int_equal(tph_session_close(s, NULL), TPH_OK);
	const tph_decision_log *l = tph_session_decisions(s);
	snprintf(buf, 16, "%s", l->n_binds ? l->binds[0].node : "");
	tph_session_free(s);
	tph_snapshot_release(sn);
	return buf;
}

/* 250 nodes, one pending task that fits anywhere (and one nominated to n5 when asked). */
static tph_scenario *sampled(const char *mode, const char *extra)
{
	static char yaml[32768];
	int k = snprintf(yaml, sizeof yaml, "nodeSampling: %s\n%s" Q1 "nodes:\n", mode,
	                 CONF("allocate", "{}"));
	for (int i = 0; i < 250; i++)
		k += snprintf(yaml + k, sizeof yaml - (size_t)k, NODE("n%03d", "4", ""), i);
	snprintf(yaml + k, sizeof yaml - (size_t)k,
	         "podGroups:\n" PG("pg", "1", "") "pods:\n" POD("p-0", "pg", "1", "%s"), extra);
	tph_scenario *sc = NULL;
	tph_diag d = {0};
	assert_int_equal(tph_scenario_load_buffer(yaml, strlen(yaml), "s.yaml", &sc, &d), TPH_OK);
	return sc;
}

/* Volcano's sampling over 250 nodes finds 250 * 48% = 120 nodes: the scan processes 121 (the
 * one that passes beyond ends it) and the next session of the cache starts where it stopped:
 * 0, 121, 242, then (242 + 121) mod 250 = 113. Full mode scans from n000 and leaves the index
 * alone; a scan of one nominated node brings it back to 0. */
static void test_volcano_sampling_across_sessions(void **state)
{
	(void)state;
	char b[16];
	tph_scenario *sc = sampled("volcano", "");
	tph_cluster *c = tph_scenario_cluster(sc);
	const tph_conf *conf = tph_scenario_conf(sc);
	assert_int_equal(tph_cluster_node_sampling_start(c), 0);
	assert_string_equal(cycle(c, conf, TPH_SAMPLING_CACHE, b), "n000");
	assert_int_equal(tph_cluster_node_sampling_start(c), 121);
	assert_string_equal(cycle(c, conf, TPH_SAMPLING_CACHE, b), "n121");
	assert_int_equal(tph_cluster_node_sampling_start(c), 242);
	assert_string_equal(cycle(c, conf, TPH_SAMPLING_VOLCANO, b), "n242");
	assert_int_equal(tph_cluster_node_sampling_start(c), 113);
	assert_string_equal(cycle(c, conf, TPH_SAMPLING_FULL, b), "n000");
	assert_int_equal(tph_cluster_node_sampling_start(c), 113);
	tph_scenario_free(sc);
	/* a full scenario samples when the session asks */
	sc = sampled("full", "");
	c = tph_scenario_cluster(sc);
	assert_string_equal(cycle(c, tph_scenario_conf(sc), TPH_SAMPLING_CACHE, b), "n000");
	assert_int_equal(tph_cluster_node_sampling_start(c), 0);
	assert_string_equal(cycle(c, tph_scenario_conf(sc), TPH_SAMPLING_VOLCANO, b), "n000");
	assert_string_equal(cycle(c, tph_scenario_conf(sc), TPH_SAMPLING_VOLCANO, b), "n121");
	tph_scenario_free(sc);
	sc = sampled("volcano", ", nominatedNodeName: n005");
	c = tph_scenario_cluster(sc);
	assert_string_equal(cycle(c, tph_scenario_conf(sc), TPH_SAMPLING_CACHE, b), "n005");
	assert_int_equal(tph_cluster_node_sampling_start(c), 0);
	tph_scenario_free(sc);
}

/* Within a session the index moves from scan to scan; the knobs still override Volcano's 100,
 * 5% and adaptive percentage: minimum-feasible-nodes 1 over 3 nodes finds one, and the scan
 * goes on to the next that passes. */
static void test_volcano_sampling_in_session(void **state)
{
	(void)state;
	const char *rest = Q1 "nodes:\n" NODE("n1", "4", "") NODE("n2", "4", "")
	    NODE("n3", "4", "") "podGroups:\n" PG("a", "1", "") PG("b", "1", "")
	        PG("c", "1", "") "pods:\n" POD("a-0", "a", "1", "") POD("b-0", "b", "1", "")
	            POD("c-0", "c", "1", "");
	char yaml[4096];
	run r;
	/* a-0 scans n1 (found), n2 (beyond): index 2; b-0 from n3: n3, n1 -> index 1; c-0: n2 */
	snprintf(yaml, sizeof yaml, "nodeSampling: volcano\n%s%s",
	         CONF_ARGS("allocate", "{}", "{minimum-feasible-nodes: 1}"), rest);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_bound(&r, "ns/a-0"), "n1");
	assert_string_equal(run_bound(&r, "ns/b-0"), "n3");
	assert_string_equal(run_bound(&r, "ns/c-0"), "n2");
	pts_free(&r);
	/* 3 nodes, Volcano's defaults: all are found, each scan ends where it began */
	snprintf(yaml, sizeof yaml, "nodeSampling: volcano\n%s%s", CONF("allocate", "{}"), rest);
	run_scenario(&r, yaml, 1, false);
	assert_string_equal(run_bound(&r, "ns/c-0"), "n1");
	pts_free(&r);
}

static void test_nodes_to_find(void **state)
{
	(void)state;
	tph_ph_opts o = {.sampling = false, .min_nodes = 100, .min_pct = 5, .pct = 0};
	assert_int_equal(tph_ph_nodes_to_find(&o, 5000), 5000);
	o.sampling = true;
	assert_int_equal(tph_ph_nodes_to_find(&o, 100), 100);
	assert_int_equal(tph_ph_nodes_to_find(&o, 5000), 5000 * 10 / 100);  /* 50 - 40 */
	assert_int_equal(tph_ph_nodes_to_find(&o, 10000), 10000 * 5 / 100); /* floor 5% */
	o.pct = 30;
	assert_int_equal(tph_ph_nodes_to_find(&o, 1000), 300);
	o.pct = 100;
	assert_int_equal(tph_ph_nodes_to_find(&o, 1000), 1000);
}

/* A task its PrePredicate refuses fails every ready node with that reason, counted once over
 * them; the reason being unresolvable, preempt and reclaim would skip every ready node. */
static void test_prepredicate_refusal(void **state)
{
	(void)state;
	run r;
	pts_open(&r, CONF("allocate", "{prefail: x}") Q1 "nodes:\n" NODE("n1", "4", "")
	                 NODE("n2", "4", "") NODE("n3", "4", "") "podGroups:\n" PG(
	                     "pg", "1", "") "pods:\n" POD("p-1", "pg", "1", ", taskSpec: x")
	                     POD("p-2", "pg", "1", ", taskSpec: y"));
	assert_int_equal(tph_session_run(r.s, &r.d), TPH_OK);
	tph_idx t = pts_task(&r, "ns/p-1");
	const tph_idx *x;
	assert_int_equal(tph_fitlog_unresolvable(r.s, t, &x), 3);
	assert_int_equal(x[0], pts_node(&r, "n1"));
	assert_int_equal(x[2], pts_node(&r, "n3"));
	assert_int_equal(tph_session_close(r.s, &r.d), TPH_OK);
	r.log = tph_session_decisions(r.s);
	char *log = pts_log_text(r.log);
	assert_non_null(strstr(log, "pending ns/p-1 | 3 spy refused the pod\n"));
	assert_non_null(strstr(log, "bind ns/p-2 n1\n"));
	free(log);
	pts_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_binds_skip_best_effort),
	    cmocka_unit_test(test_prepredicate_refusal),
	    cmocka_unit_test(test_pending_jobs),
	    cmocka_unit_test(test_gang_discard),
	    cmocka_unit_test(test_idle_before_future),
	    cmocka_unit_test(test_pipeline),
	    cmocka_unit_test(test_shards),
	    cmocka_unit_test(test_nominated_first),
	    cmocka_unit_test(test_overused_queue),
	    cmocka_unit_test(test_error_cache),
	    cmocka_unit_test(test_error_cache_calls),
	    cmocka_unit_test(test_role_failed_skip),
	    cmocka_unit_test(test_continue_rules),
	    cmocka_unit_test(test_sampling),
	    cmocka_unit_test(test_nodes_to_find),
	    cmocka_unit_test(test_volcano_sampling_across_sessions),
	    cmocka_unit_test(test_volcano_sampling_in_session),
	};
	return cmocka_run_group_tests(tests, spy_setup, NULL);
}

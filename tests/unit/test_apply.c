/* tph_cluster_apply: a closed session's binds, evictions, nominations and podgroup phases
 * written back to the cache, so that the next snapshot starts from them; objects removed or
 * changed since the snapshot skipped with a warning; misuse refused with the cache unchanged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cache/cluster_int.h"
#include "harness.h"

/* One node of 4 cpu, a gang of two 1-cpu pods waiting in queue default. */
static const char gang_yaml[] =
    "name: gang\n"
    "conf: |\n"
    "  actions: \"enqueue, allocate\"\n"
    "  tiers:\n"
    "  - plugins: [{name: priority}, {name: gang}, {name: conformance}]\n"
    "  - plugins: [{name: predicates}, {name: proportion}, {name: nodeorder}]\n"
    "queues: [{name: default}]\n"
    "nodes: [{name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}]\n"
    "podGroups: [{name: g, namespace: ns, minMember: 2}]\n"
    "pods:\n"
    "  - {name: a, namespace: ns, podGroup: g, requests: {cpu: '1'}}\n"
    "  - {name: b, namespace: ns, podGroup: g, requests: {cpu: '1'}}\n";

/* A full node: a high-priority pod preempts a low one and is pipelined onto its node, and a
 * Pending podgroup is enqueued. */
static const char preempt_yaml[] =
    "name: preempt\n"
    "conf: |\n"
    "  actions: \"enqueue, allocate, preempt\"\n"
    "  tiers:\n"
    "  - plugins: [{name: priority}, {name: gang}, {name: conformance}]\n"
    "  - plugins: [{name: predicates}, {name: proportion}, {name: nodeorder}]\n"
    "priorityClasses: [{name: high, value: 1000}, {name: low, value: 10}]\n"
    "queues: [{name: default}]\n"
    "nodes: [{name: n1, allocatable: {cpu: '2', memory: 4Gi, pods: '10'}}]\n"
    "podGroups:\n"
    "  - {name: low, namespace: ns, phase: Running, priorityClassName: low}\n"
    "  - {name: high, namespace: ns, phase: Inqueue, priorityClassName: high}\n"
    "  - {name: more, namespace: ns, priorityClassName: low}\n"
    "pods:\n"
    "  - {name: r1, namespace: ns, podGroup: low, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}, priorityClassName: low}\n"
    "  - {name: r2, namespace: ns, podGroup: low, phase: Running, nodeName: n1,"
    " requests: {cpu: '1'}, priorityClassName: low}\n"
    "  - {name: h1, namespace: ns, podGroup: high, requests: {cpu: '1'},"
    " priorityClassName: high}\n";

typedef struct warns {
	int n;
	char last[512];
} warns;

static void record(void *ud, const char *msg)
{
	warns *w = ud;
	w->n++;
	snprintf(w->last, sizeof w->last, "%s", msg);
}

/* A cycle over the scenario's cache: snapshot, open, run, close (the session is left open for
 * the caller to apply and free). */
static tph_session *cycle(tph_scenario *sc, tph_diag *d)
{
	tph_snapshot *snap = NULL;
	tph_session *s = NULL;
	assert_int_equal(tph_cluster_snapshot(tph_scenario_cluster(sc), 0, &snap, d), TPH_OK);
	assert_int_equal(tph_session_open(snap, tph_scenario_conf(sc), NULL, &s, d), TPH_OK);
	tph_snapshot_release(snap); /* the session holds it */
	assert_int_equal(tph_session_run(s, d), TPH_OK);
	assert_int_equal(tph_session_close(s, d), TPH_OK);
	return s;
}

static tph_scenario *load(const char *yaml, tph_diag *d)
{
	tph_scenario *sc = NULL;
	int rc = tph_scenario_load_buffer(yaml, strlen(yaml), "apply.yaml", &sc, d);
	if (rc)
		fail_msg("%s", d->msg);
	return sc;
}

/* Task `key` of snapshot `s`. */
static tph_idx task(const tph_snapshot *s, const char *key)
{
	tph_sid id = tph_strtab_find(s->strs, key, strlen(key));
	for (tph_idx t = 0; t < s->tasks.n; t++)
		if (s->tasks.key[t] == id)
			return t;
	fail_msg("no task %s", key);
	return TPH_NOIDX;
}

static const char *node_of(const tph_snapshot *s, tph_idx n)
{
	return n == TPH_NOIDX ? "-" : tph_strtab_str(s->strs, s->nodes.name[n]);
}

static const char *phase_of(const tph_decision_log *l, const char *podgroup)
{
	for (uint32_t i = 0; i < l->n_phases; i++)
		if (!strcmp(l->phases[i].podgroup, podgroup))
			return l->phases[i].phase;
	return NULL;
}

static void test_binds_and_phases(void **state)
{
	(void)state;
	tph_diag d = {0};
	tph_scenario *sc = load(gang_yaml, &d);
	tph_cluster *c = tph_scenario_cluster(sc);
	tph_session *s = cycle(sc, &d);
	const tph_decision_log *log = tph_session_decisions(s);
	assert_int_equal(log->n_binds, 2);
	assert_string_equal(phase_of(log, "ns/g"), "Inqueue");
	assert_int_equal(tph_cluster_apply(c, s, &d), TPH_OK);
	assert_int_equal(d.warnings, 0);
	tph_session_free(s);

	tph_snapshot *snap = NULL;
	assert_int_equal(tph_cluster_snapshot(c, 0, &snap, &d), TPH_OK);
	for (int i = 0; i < 2; i++) {
		tph_idx t = task(snap, i ? "ns/b" : "ns/a");
		assert_int_equal(snap->tasks.status[t], TPH_TS_BOUND);
		assert_string_equal(node_of(snap, snap->tasks.node[t]), "n1");
	}
	assert_int_equal(snap->jobs.phase[0], TPH_PG_INQUEUE);
	assert_int_equal(snap->nodes.idle[TPH_RES_CPU * snap->nodes.stride], 2000);
	tph_snapshot_release(snap);

	s = cycle(sc, &d); /* the pods hold their node now: nothing new to bind */
	log = tph_session_decisions(s);
	assert_int_equal(log->n_binds, 0);
	assert_string_equal(phase_of(log, "ns/g"), "Running"); /* Bound counts as scheduled */
	assert_int_equal(tph_cluster_apply(c, s, &d), TPH_OK);
	assert_int_equal(tph_cluster_apply(c, s, &d), TPH_OK); /* twice: no change, no warning */
	assert_int_equal(d.warnings, 0);
	tph_session_free(s);
	assert_int_equal(tph_cluster_snapshot(c, 0, &snap, &d), TPH_OK);
	assert_int_equal(snap->jobs.phase[0], TPH_PG_RUNNING);
	tph_snapshot_release(snap);
	tph_scenario_free(sc);
}

static void test_evictions_and_nominations(void **state)
{
	(void)state;
	tph_diag d = {0};
	tph_scenario *sc = load(preempt_yaml, &d);
	tph_cluster *c = tph_scenario_cluster(sc);
	tph_session *s = cycle(sc, &d);
	const tph_decision_log *log = tph_session_decisions(s);
	assert_int_equal(log->n_evictions, 1);
	assert_string_equal(log->evictions[0].pod, "ns/r1");
	assert_int_equal(log->n_pipelined, 1);
	assert_string_equal(log->pipelined[0].pod, "ns/h1");
	assert_int_equal(tph_cluster_apply(c, s, &d), TPH_OK);
	tph_session_free(s);

	tph_snapshot *snap = NULL;
	assert_int_equal(tph_cluster_snapshot(c, 0, &snap, &d), TPH_OK);
	tph_idx r1 = task(snap, "ns/r1"), h1 = task(snap, "ns/h1");
	assert_int_equal(snap->tasks.status[r1], TPH_TS_RELEASING);
	assert_string_equal(node_of(snap, snap->tasks.node[r1]), "n1");
	assert_int_equal(snap->tasks.status[h1], TPH_TS_PENDING);
	assert_string_equal(node_of(snap, snap->tasks.nominated[h1]), "n1");
	assert_int_equal(snap->jobs.phase[2], TPH_PG_INQUEUE); /* "more" was enqueued */
	tph_snapshot_release(snap);

	/* The kubelet reports r1 gone: the host removes it, and h1 binds where it was nominated. */
	assert_int_equal(tph_cluster_remove_pod(c, "ns", "r1", &d), TPH_OK);
	s = cycle(sc, &d);
	log = tph_session_decisions(s);
	assert_int_equal(log->n_binds, 1);
	assert_string_equal(log->binds[0].pod, "ns/h1");
	assert_string_equal(log->binds[0].node, "n1");
	assert_int_equal(log->n_evictions, 0);
	assert_int_equal(tph_cluster_apply(c, s, &d), TPH_OK);
	tph_session_free(s);
	assert_int_equal(d.warnings, 0);
	tph_scenario_free(sc);
}

/* Objects gone or changed since the snapshot are skipped, each with a warning; the rest
 * applies. */
static void test_removed_and_changed_objects(void **state)
{
	(void)state;
	warns w = {0};
	tph_diag d = {.warn = record, .warn_ud = &w};
	tph_scenario *sc = load(gang_yaml, &d);
	tph_cluster *c = tph_scenario_cluster(sc);
	tph_session *s = cycle(sc, &d);
	assert_int_equal(tph_cluster_remove_pod(c, "ns", "a", &d), TPH_OK);
	assert_int_equal(tph_cluster_apply(c, s, &d), TPH_OK);
	assert_int_equal(w.n, 1);
	assert_string_equal(w.last,
	                    "apply: pod ns/a was removed since the snapshot; its bind skipped");
	tph_snapshot *snap = NULL;
	assert_int_equal(tph_cluster_snapshot(c, 0, &snap, &d), TPH_OK);
	assert_int_equal(snap->tasks.n, 1);
	assert_int_equal(snap->tasks.status[task(snap, "ns/b")], TPH_TS_BOUND);
	tph_snapshot_release(snap);
	tph_session_free(s);
	tph_scenario_free(sc);

	/* the podgroup removed, a pod started elsewhere by the host, the node removed */
	sc = load(gang_yaml, &d);
	c = tph_scenario_cluster(sc);
	s = cycle(sc, &d);
	w.n = 0;
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = "b";
	p.namespace_ = "ns";
	p.pod_group = "g";
	p.phase = TPH_POD_RUNNING;
	p.node_name = "n9";
	assert_int_equal(tph_cluster_put_pod(c, &p, &d), TPH_OK);
	assert_int_equal(tph_cluster_remove_podgroup(c, "ns", "g", &d), TPH_OK);
	assert_int_equal(tph_cluster_apply(c, s, &d), TPH_OK);
	assert_int_equal(w.n, 2);
	assert_string_equal(
	    w.last, "apply: podgroup ns/g was removed since the snapshot; its phase skipped");
	assert_int_equal(tph_cluster_remove_node(c, "n1", &d), TPH_OK);
	assert_int_equal(tph_cluster_apply(c, s, &d), TPH_OK);
	assert_string_equal(w.last,
	                    "apply: podgroup ns/g was removed since the snapshot; its phase "
	                    "skipped");
	assert_int_equal(w.n, 5); /* a and b: their node is gone; podgroup g: gone */
	tph_session_free(s);
	tph_scenario_free(sc);
}

static void test_misuse_changes_nothing(void **state)
{
	(void)state;
	tph_diag d = {.warn = TPH_WARN_SILENT};
	tph_scenario *sc = load(gang_yaml, &d), *other = load(gang_yaml, &d);
	tph_cluster *c = tph_scenario_cluster(sc);
	tph_snapshot *snap = NULL;
	tph_session *s = NULL;
	assert_int_equal(tph_cluster_apply(c, NULL, &d), TPH_EINVAL);
	assert_int_equal(tph_cluster_snapshot(c, 0, &snap, &d), TPH_OK);
	assert_int_equal(tph_session_open(snap, tph_scenario_conf(sc), NULL, &s, &d), TPH_OK);
	assert_int_equal(tph_session_run(s, &d), TPH_OK);
	assert_int_equal(tph_cluster_apply(c, s, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "not closed"));
	assert_int_equal(tph_session_close(s, &d), TPH_OK);
	assert_int_equal(tph_cluster_apply(NULL, s, &d), TPH_EINVAL);
	assert_int_equal(tph_cluster_apply(tph_scenario_cluster(other), s, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "another cache"));
	tph_session_free(s);
	tph_snapshot_release(snap);
	for (int i = 0; i < 2; i++) { /* neither cache saw a bind */
		tph_cluster *k = i ? tph_scenario_cluster(other) : c;
		assert_int_equal(tph_cluster_snapshot(k, 0, &snap, &d), TPH_OK);
		for (tph_idx t = 0; t < snap->tasks.n; t++)
			assert_int_equal(snap->tasks.status[t], TPH_TS_PENDING);
		assert_int_equal(snap->jobs.phase[0], TPH_PG_PENDING);
		tph_snapshot_release(snap);
	}
	tph_scenario_free(other);
	tph_scenario_free(sc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_binds_and_phases),
	    cmocka_unit_test(test_evictions_and_nominations),
	    cmocka_unit_test(test_removed_and_changed_objects),
	    cmocka_unit_test(test_misuse_changes_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

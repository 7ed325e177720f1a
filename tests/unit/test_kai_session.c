/* Unit tests for the KAI snapshot and session through the public C API (tephra/kai.h), as a host
 * would drive them: descriptors in, resolved columns out (queue branches dropped, priorities
 * and preemptibility, pod sets, derived statuses), refused descriptors, and the
 * stalegangeviction action (staleness over the sub-group tree, grace periods, what is evicted,
 * timestamps cleared), every action run in order, and a Volcano conf refused. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tephra/tephra.h"

#define NOW 1767225600000LL /* 2026-01-01T00:00:00Z */
#define MIN 60000LL

typedef struct fixture {
	tph_kai_queue_desc queues[3];
	tph_node_desc nodes[1];
	tph_kai_podgroup_desc groups[3];
	tph_kai_subgroup subgroups[3];
	tph_pod_desc pods[6];
	tph_kai_pod_desc kai[6];
	tph_priority_class_desc classes[1];
	tph_kai_params params;
	tph_kai_topology_desc topo[1];
	const char *levels[2];
	tph_kv labels[3][2];
	tph_node_desc more_nodes[3];
	tph_kai_cluster_desc c;
} fixture;

static void add_pod(fixture *f, uint32_t i, const char *name, const char *group, tph_kai_status st,
                    const char *subgroup)
{
	f->pods[i] = (tph_pod_desc)TPH_POD_DESC_INIT;
	f->pods[i].name = name;
	f->pods[i].pod_group = group;
	f->pods[i].node_name = st == TPH_KAI_TS_PENDING ? NULL : "n0";
	f->kai[i] = (tph_kai_pod_desc)TPH_KAI_POD_DESC_INIT;
	f->kai[i].status = st;
	f->kai[i].subgroup = subgroup;
}

/* Queues: dept > team, and orphan under a missing parent. Jobs: g1 (minMember 3, class
 * train), g2 (a tree: set "s" needing 1 of pod sets a and b, each minMember 1), g3 in orphan. */
static void setup_fixture(fixture *f)
{
	memset(f, 0, sizeof *f);
	for (int i = 0; i < 3; i++)
		f->queues[i] = (tph_kai_queue_desc)TPH_KAI_QUEUE_DESC_INIT;
	f->queues[0].name = "dept";
	f->queues[1].name = "team", f->queues[1].parent = "dept";
	f->queues[2].name = "orphan", f->queues[2].parent = "gone";
	f->nodes[0] = (tph_node_desc)TPH_NODE_DESC_INIT;
	f->nodes[0].name = "n0";
	f->classes[0] = (tph_priority_class_desc)TPH_PRIORITY_CLASS_DESC_INIT;
	f->classes[0].name = "train", f->classes[0].value = 50;
	for (int i = 0; i < 3; i++) {
		f->groups[i] = (tph_kai_podgroup_desc)TPH_KAI_PODGROUP_DESC_INIT;
		f->groups[i].queue = "team";
	}
	f->groups[0].name = "g1", f->groups[0].min_member = 3,
	f->groups[0].priority_class = "train";
	f->groups[0].stale_since = NOW - 2 * MIN;
	f->groups[1].name = "g2", f->groups[1].has_priority = true, f->groups[1].priority = 125;
	f->subgroups[0] = (tph_kai_subgroup){.name = "s", .min_member = -1, .min_subgroup = 1};
	f->subgroups[1] = (tph_kai_subgroup){.name = "a", .parent = "s", .min_member = 1};
	f->subgroups[2] = (tph_kai_subgroup){.name = "b", .parent = "s", .min_member = 1};
	f->groups[1].subgroups = f->subgroups, f->groups[1].n_subgroups = 3;
	f->groups[2].name = "g3", f->groups[2].queue = "orphan";
	add_pod(f, 0, "g1-0", "g1", TPH_KAI_TS_RUNNING, NULL);
	add_pod(f, 1, "g1-1", "g1", TPH_KAI_TS_PENDING, NULL);
	add_pod(f, 2, "g1-2", "g1", TPH_KAI_TS_RELEASING, NULL);
	add_pod(f, 3, "g2-0", "g2", TPH_KAI_TS_RUNNING, "a");
	add_pod(f, 4, "g2-1", "g2", TPH_KAI_TS_FAILED, "b");
	add_pod(f, 5, "loose", NULL, TPH_KAI_TS_DERIVED, "zz");
	f->pods[5].phase = TPH_POD_RUNNING, f->pods[5].deleting = true, f->pods[5].node_name = "n0";
	f->params = (tph_kai_params)TPH_KAI_PARAMS_INIT;
	f->params.staleness_grace_ms = MIN;
	f->c = (tph_kai_cluster_desc)TPH_KAI_CLUSTER_DESC_INIT;
	f->c.params = &f->params;
	f->c.pclasses = f->classes, f->c.n_pclasses = 1;
	f->c.queues = f->queues, f->c.n_queues = 3;
	f->c.nodes = f->nodes, f->c.n_nodes = 1;
	f->c.podgroups = f->groups, f->c.n_podgroups = 3;
	f->c.pods = f->pods, f->c.kai_pods = f->kai, f->c.n_pods = 6;
}

static tph_kai_snapshot *build(const fixture *f)
{
	tph_diag d = {0};
	tph_kai_snapshot *s = NULL;
	int rc = tph_kai_snapshot_build(&f->c, NOW, &s, &d);
	if (rc != TPH_OK)
		fail_msg("build: %s", d.msg);
	return s;
}

static void test_columns(void **state)
{
	(void)state;
	fixture f;
	setup_fixture(&f);
	tph_kai_snapshot *s = build(&f);
	const tph_kai_view *v = tph_kai_snapshot_view(s);
	assert_int_equal(v->queues.parent[1], 0);
	assert_true(v->queues.dropped[2] && !v->queues.dropped[1]);
	assert_true(v->queues.has_kids[0] && !v->queues.has_kids[1]);
	assert_int_equal(v->jobs.queue[2], -1); /* its queue is dropped */
	assert_int_equal(v->jobs.priority[0], 50);
	assert_true(v->jobs.preemptible[0] && !v->jobs.preemptible[1]);
	assert_int_equal(v->jobs.staleness_grace_ms[0], MIN);
	assert_int_equal(v->jobs.sg_count[0], 1); /* the implicit pod set */
	assert_int_equal(v->subgroups.min_member[v->jobs.sg_first[0]], 3);
	assert_int_equal(v->jobs.sg_count[1], 3);
	uint32_t s0 = v->jobs.sg_first[1];
	assert_false(v->subgroups.pod_set[s0]);
	assert_int_equal(v->subgroups.parent[s0 + 2], (int32_t)s0);
	assert_int_equal(v->tasks.pod_set[3], (int32_t)s0 + 1);
	assert_int_equal(v->tasks.pod_set[4], (int32_t)s0 + 2);
	assert_int_equal(v->tasks.job[5], -1);
	assert_int_equal(v->tasks.status[5], TPH_KAI_TS_RELEASING); /* derived: deleting */
	assert_int_equal(v->tasks.node[1], -1);
	assert_int_equal(v->nodes.gpu_memory_mib[0], 100); /* not labelled */
	assert_false(v->nodes.memory_synced[0]);
	tph_kai_snapshot_free(s);
}

/* Topology levels cut the nodes into domains by label value, dense per level; a node without
 * the label is in none. */
static void test_topology_domains(void **state)
{
	(void)state;
	fixture f;
	setup_fixture(&f);
	static const char *const zones[3] = {"z1", "z2", "z1"};
	for (int i = 0; i < 3; i++) {
		f.more_nodes[i] = (tph_node_desc)TPH_NODE_DESC_INIT;
		f.labels[i][0] = (tph_kv){"zone", zones[i]};
		f.labels[i][1] = (tph_kv){"rack", i == 1 ? "r9" : "r1"};
		f.more_nodes[i].labels = (tph_kv_list){f.labels[i], i == 2 ? 1u : 2u};
	}
	f.more_nodes[0].name = "n0", f.more_nodes[1].name = "n1", f.more_nodes[2].name = "n2";
	f.levels[0] = "zone", f.levels[1] = "rack";
	f.topo[0] = (tph_kai_topology_desc)TPH_KAI_TOPOLOGY_DESC_INIT;
	f.topo[0].name = "t";
	f.topo[0].levels = (tph_str_list){f.levels, 2};
	f.c.nodes = f.more_nodes, f.c.n_nodes = 3;
	f.c.topologies = f.topo, f.c.n_topologies = 1;
	tph_kai_snapshot *s = build(&f);
	const tph_kai_topologies *t = &tph_kai_snapshot_view(s)->topologies;
	assert_int_equal(t->n_all_levels, 2);
	assert_string_equal(t->level_label[1], "rack");
	assert_int_equal(t->n_domains[0], 2);
	assert_int_equal(t->domain[0], 0);
	assert_int_equal(t->domain[1], 1);
	assert_int_equal(t->domain[2], 0); /* z1 again */
	assert_int_equal(t->n_domains[1], 2);
	assert_int_equal(t->domain[3 + 1], 1);  /* r9 */
	assert_int_equal(t->domain[3 + 2], -1); /* n2 has no rack label */
	tph_kai_snapshot_free(s);
}

/* fullHierarchyFairness: false puts every queue that has a parent under one implicit "default"
 * (unlimited) and drops the parentless ones; a node pool marks the nodes of the partition. */
static void test_flat_and_pool(void **state)
{
	(void)state;
	fixture f;
	setup_fixture(&f);
	f.params.full_hierarchy_fairness = false;
	f.groups[2].queue = "default";
	tph_kv pool_label = {"pool", "a"};
	f.nodes[0].labels = (tph_kv_list){&pool_label, 1};
	f.params.node_pool_key = "pool", f.params.node_pool_value = "b";
	tph_kai_snapshot *s = build(&f);
	const tph_kai_view *v = tph_kai_snapshot_view(s);
	assert_int_equal(v->queues.n, 4);
	assert_string_equal(v->queues.name[3], "default");
	assert_true(v->queues.dropped[0] && !v->queues.dropped[1] && !v->queues.dropped[2]);
	assert_int_equal(v->queues.parent[1], 3);
	assert_int_equal(v->queues.parent[2], 3); /* its own parent was missing: flattened too */
	assert_true(v->queues.has_kids[3] && v->queues.res[3 * TPH_KAI_DIMS].quota == -1);
	assert_int_equal(v->jobs.queue[0], 1);
	assert_int_equal(v->jobs.queue[2], 3); /* queue "default" is the implicit one */
	assert_false(v->nodes.in_pool[0]);
	tph_kai_snapshot_free(s);
	f.params.node_pool_value = "a";
	s = build(&f);
	assert_true(tph_kai_snapshot_view(s)->nodes.in_pool[0]);
	tph_kai_snapshot_free(s);
}

static void test_refused(void **state)
{
	(void)state;
	fixture f;
	tph_diag d = {0};
	tph_kai_snapshot *s = NULL;
	setup_fixture(&f);
	f.groups[2].name = "g1";
	assert_int_equal(tph_kai_snapshot_build(&f.c, NOW, &s, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "duplicate podgroup /g1"));
	setup_fixture(&f);
	f.pods[0].node_name = "n9";
	assert_int_equal(tph_kai_snapshot_build(&f.c, NOW, &s, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "pod /g1-0: no node \"n9\""));
	setup_fixture(&f);
	f.queues[1].size = 0;
	assert_int_equal(tph_kai_snapshot_build(&f.c, NOW, &s, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "TPH_KAI_QUEUE_DESC_INIT"));
	assert_null(s);
}

static tph_conf *kai_conf(const char *actions)
{
	char text[256];
	snprintf(text, sizeof text, "actions: \"%s\"\ntiers: []\n", actions);
	tph_diag d = {0};
	tph_conf *c = NULL;
	assert_int_equal(tph_conf_load_kai_string(text, strlen(text), "c", &c, &d), TPH_OK);
	return c;
}

static tph_kai_session *run(tph_kai_snapshot *snap, tph_conf *conf, int want_rc)
{
	tph_diag d = {0};
	tph_kai_session *s = NULL;
	assert_int_equal(tph_kai_session_open(snap, conf, &s, &d), TPH_OK);
	int rc = tph_kai_session_run(s, &d);
	if (rc != want_rc)
		fail_msg("run: %d, want %d: %s", rc, want_rc, d.msg);
	return s;
}

/* g1 is stale (2 active pods, Releasing included, of 3) for 2 minutes, past its 1-minute
 * grace: its active allocated pod goes, the Releasing one stays as it is. g2's set is satisfied
 * by pod set a alone (minSubGroup 1): not stale, its timestamp cleared. */
static void test_stale_gang(void **state)
{
	(void)state;
	fixture f;
	setup_fixture(&f);
	f.groups[1].stale_since = NOW - 10 * MIN;
	tph_kai_snapshot *snap = build(&f);
	tph_conf *conf = kai_conf("stalegangeviction");
	tph_kai_session *s = run(snap, conf, TPH_OK);
	const tph_kai_decision *ev;
	assert_int_equal(tph_kai_session_evictions(s, &ev), 1);
	assert_int_equal(ev[0].task, 0);
	assert_string_equal(ev[0].action, "stalegangeviction");
	const uint8_t *st = tph_kai_session_status(s);
	assert_int_equal(st[0], TPH_KAI_TS_RELEASING);
	assert_int_equal(st[1], TPH_KAI_TS_PENDING);
	assert_int_equal(st[2], TPH_KAI_TS_RELEASING);
	assert_int_equal(tph_kai_session_node(s)[0], 0);
	assert_int_equal(tph_kai_session_stale_since(s)[1], 0);
	tph_kai_session_free(s);
	tph_kai_snapshot_free(snap);
	/* Within the grace period, or with a negative one, nothing goes; a job seen stale for the
	 * first time is stale from now. */
	f.groups[0].stale_since = NOW - 30000;
	f.groups[2].min_member = 2, f.groups[2].queue = "team";
	add_pod(&f, 5, "g3-0", "g3", TPH_KAI_TS_RUNNING, NULL);
	snap = build(&f);
	s = run(snap, conf, TPH_OK);
	assert_int_equal(tph_kai_session_evictions(s, &ev), 0);
	assert_int_equal(tph_kai_session_stale_since(s)[2], NOW);
	tph_kai_session_free(s);
	tph_kai_snapshot_free(snap);
	f.groups[0].stale_since = NOW - 5 * MIN;
	f.groups[0].has_staleness_grace = true, f.groups[0].staleness_grace_ms = -1;
	snap = build(&f);
	s = run(snap, conf, TPH_OK);
	assert_int_equal(tph_kai_session_evictions(s, &ev), 0);
	tph_kai_session_free(s);
	tph_kai_snapshot_free(snap);
	tph_conf_free(conf);
}

/* A Succeeded pod keeps a job from being stale; the tree needs minSubGroup of its pod sets. */
static void test_not_stale(void **state)
{
	(void)state;
	fixture f;
	setup_fixture(&f);
	f.kai[1].status = TPH_KAI_TS_SUCCEEDED;
	f.subgroups[0].min_subgroup = 2; /* now g2 needs a and b: b has no active pod */
	f.groups[1].stale_since = NOW - 10 * MIN;
	tph_kai_snapshot *snap = build(&f);
	tph_conf *conf = kai_conf("stalegangeviction");
	tph_kai_session *s = run(snap, conf, TPH_OK);
	const tph_kai_decision *ev;
	assert_int_equal(tph_kai_session_evictions(s, &ev), 1);
	assert_int_equal(ev[0].task, 3); /* g2-0; g1 has a Succeeded pod */
	tph_kai_session_free(s);
	tph_kai_snapshot_free(snap);
	tph_conf_free(conf);
}

/* Every KAI action runs, in the conf's order: the solver actions after stalegangeviction find
 * the stale gang's evictions made and nothing more to do. */
static void test_all_actions(void **state)
{
	(void)state;
	fixture f;
	setup_fixture(&f);
	tph_kai_snapshot *snap = build(&f);
	tph_conf *conf = kai_conf("allocate, stalegangeviction, consolidation, reclaim, preempt");
	tph_diag d = {0};
	tph_kai_session *s = NULL;
	assert_int_equal(tph_kai_session_open(snap, conf, &s, &d), TPH_OK);
	assert_int_equal(tph_kai_session_run(s, &d), TPH_OK);
	const tph_kai_decision *ev;
	assert_int_equal(tph_kai_session_evictions(s, &ev), 1);
	assert_string_equal(ev[0].action, "stalegangeviction");
	tph_kai_session_free(s);
	tph_conf_free(conf);
	/* A Volcano conf is not a KAI conf; and a Volcano session refuses a KAI conf. */
	tph_conf *vc = NULL;
	static const char v[] = "actions: \"allocate\"\n";
	assert_int_equal(tph_conf_load_string(v, sizeof v - 1, "v", true, &vc, &d), TPH_OK);
	assert_int_equal(tph_kai_session_open(snap, vc, &s, &d), TPH_EINVAL);
	assert_null(s);
	tph_conf_free(vc);
	tph_kai_snapshot_free(snap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_columns),          cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_topology_domains), cmocka_unit_test(test_flat_and_pool),
	    cmocka_unit_test(test_stale_gang),       cmocka_unit_test(test_not_stale),
	    cmocka_unit_test(test_all_actions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

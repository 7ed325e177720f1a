/* Unit tests for KAI's topology plugin (plugins/kai/topology*.c): the node sets its SubsetNodes
 * proposes (asked directly through tph_kai_subset_nodes, as allocate asks), its NodeOrder
 * scores, and the allocate decisions they lead to. One rule per test; every scenario is small
 * and written here. The cluster: racks r1, r2, each with spines s1, s2 (one 2-GPU node per
 * spine, named n<rack><spine>), and n9 without topology labels. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tephra/tephra.h"

typedef struct kf {
	tph_scenario *sc;
	tph_kai_snapshot *snap;
	tph_kai_session *s;
	char sets[512];
} kf;

#define NODE(name, rack, spine, gpus)                                                        \
	"  - {name: " name ", allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"" gpus \
	"\"}, labels: {k8s.io/rack: " rack ", k8s.io/spine: " spine "}}\n"

/* Nodes in file order unlike their paths, so sets follow IDs, not the file. */
#define CLUSTER                                                                                  \
	"topologies: [{name: topo, levels: [{nodeLabel: k8s.io/rack}, {nodeLabel: "              \
	"k8s.io/spine}]}]\n"                                                                     \
	"queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, "          \
	"limit: -1}, memory: {quota: -1, limit: -1}}}]\n"                                        \
	"nodes:\n" NODE("n22", "r2", "s2", "2") NODE("n21", "r2", "s1", "2")                     \
	    NODE("n12", "r1", "s2", "2")                                                         \
	        NODE("n11", "r1", "s1", "2") "  - {name: n9, allocatable: {cpu: \"8\", memory: " \
	                                     "8G, nvidia.com/gpu: \"8\"}}\n"

#define PLUGINS "[{name: topology}]"

static void open_kai(kf *f, const char *plugins, const char *rest)
{
	char text[8192];
	snprintf(text, sizeof text,
	         "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"allocate\"\n"
	         "  tiers:\n  - plugins: %s\n%s",
	         plugins, rest);
	tph_diag d = {0};
	int rc = tph_scenario_load_buffer(text, strlen(text), "t.yaml", &f->sc, &d);
	if (rc)
		fprintf(stderr, "%s\n", d.msg);
	assert_int_equal(rc, 0);
	assert_int_equal(tph_kai_snapshot_build(tph_scenario_kai_cluster(f->sc),
	                                        tph_scenario_now(f->sc), &f->snap, &d),
	                 0);
	assert_int_equal(tph_kai_session_open(f->snap, tph_scenario_conf(f->sc), &f->s, &d), 0);
}

static void close_kai(kf *f)
{
	tph_kai_session_free(f->s);
	tph_kai_snapshot_free(f->snap);
	tph_scenario_free(f->sc);
}

static uint32_t find(const char *const *names, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return i;
	fail_msg("no %s", name);
	return 0;
}

static uint32_t job_of(const kf *f, const char *name)
{
	const tph_kai_view *v = tph_kai_session_view(f->s);
	return find(v->jobs.name, v->jobs.n, name);
}

static uint32_t task_of(const kf *f, const char *name)
{
	const tph_kai_view *v = tph_kai_session_view(f->s);
	return find(v->tasks.name, v->tasks.n, name);
}

static uint32_t node_index(const kf *f, const char *name)
{
	const tph_kai_view *v = tph_kai_session_view(f->s);
	return find(v->nodes.name, v->nodes.n, name);
}

static const char *node_of(const kf *f, const char *task)
{
	int32_t n = tph_kai_session_node(f->s)[task_of(f, task)];
	return n < 0 ? "" : tph_kai_session_view(f->s)->nodes.name[n];
}

/* The sets SubsetNodes proposes for job `job`'s root over the given nodes (NULL: all), as
 * "a,b|c": the turn's tasks, after PreJobAllocation, as allocate asks. */
static const char *sets_of(kf *f, const char *job, const char *const *only, uint32_t n_only)
{
	const tph_kai_view *v = tph_kai_session_view(f->s);
	uint32_t j = job_of(f, job), tasks[16], nodes[16], n = 0;
	for (uint32_t i = 0; !only && i < v->nodes.n; i++)
		nodes[n++] = i;
	for (uint32_t i = 0; only && i < n_only; i++)
		nodes[n++] = node_index(f, only[i]);
	tph_kai_pre_job_allocation(f->s, j);
	uint32_t nt = tph_kai_tasks_to_allocate(f->s, j, tasks);
	tph_kai_node_sets ns = {0};
	assert_int_equal(tph_kai_subset_nodes(f->s, j, -1, tasks, nt, nodes, n, &ns), 0);
	f->sets[0] = 0;
	for (uint32_t i = 0; i < ns.n; i++)
		for (uint32_t k = ns.first[i]; k < ns.first[i + 1]; k++)
			snprintf(f->sets + strlen(f->sets), sizeof f->sets - strlen(f->sets),
			         "%s%s",
			         k > ns.first[i] ? ","
			         : i             ? "|"
			                         : "",
			         v->nodes.name[ns.nodes[k]]);
	tph_kai_node_sets_free(&ns);
	return f->sets;
}

static void run_ok(kf *f)
{
	tph_diag d = {0};
	assert_int_equal(tph_kai_session_run(f->s, &d), 0);
}

/* A domain is a path of label values: spine s1 under r1 and under r2 are two domains, so a
 * required spine offers four sets of one node, racks and spines in ID (label value) order
 * whatever the file order; n9, without the labels, is in none. */
static void test_domains_are_paths(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, PLUGINS,
	         CLUSTER "podGroups: [{name: j, queue: q, topologyConstraint: {topology: topo, "
	                 "requiredTopologyLevel: k8s.io/spine}}]\n"
	                 "pods: [{name: j-0, podGroup: j, status: Pending, requests: "
	                 "{nvidia.com/gpu: 1}}]\n");
	const tph_kai_topologies *t = &tph_kai_session_view(f.s)->topologies;
	assert_string_equal(t->domain_value[1 * 5 + t->domain[1 * 5 + 0]], "s2"); /* n22's spine */
	assert_string_equal(sets_of(&f, "j", NULL, 0), "n11|n12|n21|n22");
	close_kai(&f);
}

/* KAI's bin-packing order: among siblings, the domain the job fills the most (largest share
 * of a free resource) first; equal shares by ID. n21 holds 1 GPU of 2, so r2 (3 free) goes
 * before r1 (4), and n21 before n22 in it. */
static void test_fuller_domain_first(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, PLUGINS,
	         CLUSTER "podGroups:\n  - {name: j, queue: q, topologyConstraint: {topology: topo, "
	                 "requiredTopologyLevel: k8s.io/spine}}\n  - {name: r, queue: q}\n"
	                 "pods:\n  - {name: j-0, podGroup: j, status: Pending, requests: "
	                 "{nvidia.com/gpu: 1}}\n"
	                 "  - {name: r-0, podGroup: r, status: Running, nodeName: n21, requests: "
	                 "{nvidia.com/gpu: 1}}\n");
	assert_string_equal(sets_of(&f, "j", NULL, 0), "n21|n22|n11|n12");
	close_kai(&f);
}

/* Required level: the whole gang in one domain. r1 has 2 GPUs free (n12 is full), r2 has 4:
 * a gang of 3 lands in r2 only; a gang of 5 fits no rack (n9 is outside the topology) and
 * nothing is bound. */
static void test_required_one_domain(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "[{name: topology}, {name: nodeplacement}]",
	         CLUSTER
	         "podGroups:\n  - {name: j, queue: q, minMember: 3, topologyConstraint: "
	         "{topology: topo, requiredTopologyLevel: k8s.io/rack}}\n"
	         "  - {name: big, queue: q, minMember: 5, topologyConstraint: "
	         "{topology: topo, requiredTopologyLevel: k8s.io/rack}}\n"
	         "  - {name: r, queue: q}\n"
	         "pods:\n"
	         "  - {name: j-0, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	         "  - {name: j-1, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	         "  - {name: j-2, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	         "  - {name: r-0, podGroup: r, status: Running, nodeName: n12, requests: "
	         "{nvidia.com/gpu: 2}}\n"
	         "  - {name: big-0, podGroup: big, status: Pending, requests: "
	         "{nvidia.com/gpu: 1}}\n"
	         "  - {name: big-1, podGroup: big, status: Pending, requests: "
	         "{nvidia.com/gpu: 1}}\n"
	         "  - {name: big-2, podGroup: big, status: Pending, requests: "
	         "{nvidia.com/gpu: 1}}\n"
	         "  - {name: big-3, podGroup: big, status: Pending, requests: "
	         "{nvidia.com/gpu: 1}}\n"
	         "  - {name: big-4, podGroup: big, status: Pending, requests: "
	         "{nvidia.com/gpu: 1}}\n");
	assert_string_equal(sets_of(&f, "j", NULL, 0), "n21,n22");
	assert_string_equal(sets_of(&f, "big", NULL, 0), "");
	run_ok(&f);
	for (int i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof name, "j-%d", i);
		assert_int_equal(node_of(&f, name)[1], '2');
	}
	assert_string_equal(node_of(&f, "big-0"), "");
	const tph_kai_decision *b;
	assert_int_equal(tph_kai_session_binds(f.s, &b), 3);
	close_kai(&f);
}

/* Preferred level: its domains first, then each level up to the required one (or the root
 * without one), deepest first; a level whose domains cannot hold the gang is skipped. */
static void test_preferred_then_relax(void **state)
{
	(void)state;
	kf f;
	open_kai(
	    &f, PLUGINS,
	    CLUSTER
	    "podGroups:\n"
	    "  - {name: two, queue: q, minMember: 2, topologyConstraint: {topology: "
	    "topo, preferredTopologyLevel: k8s.io/spine}}\n"
	    "  - {name: both, queue: q, minMember: 2, topologyConstraint: {topology: "
	    "topo, requiredTopologyLevel: k8s.io/rack, preferredTopologyLevel: "
	    "k8s.io/spine}}\n"
	    "  - {name: three, queue: q, minMember: 3, topologyConstraint: {topology: "
	    "topo, requiredTopologyLevel: k8s.io/rack, preferredTopologyLevel: "
	    "k8s.io/spine}}\n"
	    "pods:\n"
	    "  - {name: two-0, podGroup: two, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	    "  - {name: two-1, podGroup: two, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	    "  - {name: both-0, podGroup: both, status: Pending, requests: "
	    "{nvidia.com/gpu: 1}}\n"
	    "  - {name: both-1, podGroup: both, status: Pending, requests: "
	    "{nvidia.com/gpu: 1}}\n"
	    "  - {name: three-0, podGroup: three, status: Pending, requests: "
	    "{nvidia.com/gpu: 1}}\n"
	    "  - {name: three-1, podGroup: three, status: Pending, requests: "
	    "{nvidia.com/gpu: 1}}\n"
	    "  - {name: three-2, podGroup: three, status: Pending, requests: "
	    "{nvidia.com/gpu: 1}}\n");
	assert_string_equal(sets_of(&f, "two", NULL, 0),
	                    "n11|n12|n21|n22|n11,n12|n21,n22|n11,n12,n21,n22");
	assert_string_equal(sets_of(&f, "both", NULL, 0), "n11|n12|n21|n22|n11,n12|n21,n22");
	assert_string_equal(sets_of(&f, "three", NULL, 0), "n11,n12|n21,n22");
	close_kai(&f);
}

/* NodeOrder with a preferred level: 10^5 * floor(10 * (i + 1) / n) by the node's preferred
 * domain's place i of n in the sorted tree (so the last domains score highest, as KAI's do);
 * a node outside them is dropped. The scores belong to the job's allocation turn:
 * PreJobAllocation forgets them. */
static void test_node_scores(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, PLUGINS,
	         CLUSTER
	         "podGroups: [{name: j, queue: q, minMember: 3, topologyConstraint: {topology: "
	         "topo, preferredTopologyLevel: k8s.io/spine}}]\n"
	         "pods:\n"
	         "  - {name: j-0, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	         "  - {name: j-1, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	         "  - {name: j-2, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}}\n");
	assert_string_equal(sets_of(&f, "j", NULL, 0), "n11,n12|n21,n22|n11,n12,n21,n22");
	static const char *const nodes[] = {"n11", "n12", "n21", "n22"};
	static const double want[] = {2e5, 5e5, 7e5, 10e5};
	uint32_t t = task_of(&f, "j-0");
	double sc;
	for (int i = 0; i < 4; i++) {
		assert_int_equal(tph_kai_node_score(f.s, t, node_index(&f, nodes[i]), &sc), 0);
		assert_true(sc == want[i]);
	}
	assert_true(tph_kai_node_score(f.s, t, node_index(&f, "n9"), &sc) < 0);
	tph_kai_pre_job_allocation(f.s, job_of(&f, "j"));
	assert_int_equal(tph_kai_node_score(f.s, t, node_index(&f, "n9"), &sc), 0);
	assert_true(sc == 0);
	close_kai(&f);
}

/* Sub-groups under a root constraint: the root takes one rack (r2 is fuller but cannot hold
 * all four pods, so r1), then each sub-group one spine inside it. */
static void test_subgroups_under_root(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, PLUGINS,
	         CLUSTER
	         "podGroups:\n  - name: j\n    queue: q\n"
	         "    topologyConstraint: {topology: topo, requiredTopologyLevel: k8s.io/rack}\n"
	         "    subGroups:\n"
	         "      - {name: a, minMember: 2, topologyConstraint: {topology: topo, "
	         "requiredTopologyLevel: k8s.io/spine}}\n"
	         "      - {name: b, minMember: 2, topologyConstraint: {topology: topo, "
	         "requiredTopologyLevel: k8s.io/spine}}\n"
	         "  - {name: r, queue: q}\n"
	         "pods:\n"
	         "  - {name: a-0, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}, "
	         "labels: {kai.scheduler/subgroup-name: a}}\n"
	         "  - {name: a-1, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}, "
	         "labels: {kai.scheduler/subgroup-name: a}}\n"
	         "  - {name: b-0, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}, "
	         "labels: {kai.scheduler/subgroup-name: b}}\n"
	         "  - {name: b-1, podGroup: j, status: Pending, requests: {nvidia.com/gpu: 1}, "
	         "labels: {kai.scheduler/subgroup-name: b}}\n"
	         "  - {name: r-0, podGroup: r, status: Running, nodeName: n22, requests: "
	         "{nvidia.com/gpu: 1}}\n");
	run_ok(&f);
	assert_string_equal(node_of(&f, "a-0"), "n11");
	assert_string_equal(node_of(&f, "a-1"), "n11");
	assert_string_equal(node_of(&f, "b-0"), "n12");
	assert_string_equal(node_of(&f, "b-1"), "n12");
	close_kai(&f);
}

#define SMALL                                                                                   \
	"topologies: [{name: topo, levels: [{nodeLabel: k8s.io/rack}]}]\n"                      \
	"queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, "         \
	"limit: -1}, memory: {quota: -1, limit: -1}}}]\n"                                       \
	"nodes:\n"                                                                              \
	"  - {name: m0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}, labels: " \
	"{k8s.io/rack: r1}}\n"                                                                  \
	"  - {name: m1, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}, labels: " \
	"{k8s.io/rack: r1}}\n"                                                                  \
	"  - {name: m2, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"2\"}, labels: " \
	"{k8s.io/rack: r2}}\n"
#define RACK "topologyConstraint: {topology: topo, requiredTopologyLevel: k8s.io/rack}"

/* Capacity: when every task asks for GPUs (or none does), a domain holds what its nodes hold
 * of the largest pod (r1's two 1-GPU nodes hold no 2-GPU pod, though it has 2 GPUs free);
 * with GPU and CPU-only pods mixed, the summed requests against the domain's free resources
 * decide (r1 is offered). Releasing resources count as free. */
static void test_capacity_accounting(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, PLUGINS,
	         SMALL
	         "podGroups:\n  - {name: one, queue: q, " RACK "}\n"
	         "  - {name: mix, queue: q, minMember: 2, " RACK "}\n"
	         "  - {name: old, queue: q}\n"
	         "pods:\n"
	         "  - {name: one-0, podGroup: one, status: Pending, requests: "
	         "{nvidia.com/gpu: 2}}\n"
	         "  - {name: mix-0, podGroup: mix, status: Pending, requests: "
	         "{nvidia.com/gpu: 2}}\n"
	         "  - {name: mix-1, podGroup: mix, status: Pending, requests: {cpu: \"1\"}}\n"
	         "  - {name: old-0, podGroup: old, status: Releasing, nodeName: m2, requests: "
	         "{nvidia.com/gpu: 1}}\n");
	assert_string_equal(sets_of(&f, "one", NULL, 0), "m2");
	assert_string_equal(sets_of(&f, "mix", NULL, 0), "m0,m1|m2");
	close_kai(&f);
}

/* A node short of a resource the pods do not even ask for (memory over-committed by a running
 * pod) holds none of them, as KAI's per-node accommodation compares every resource: r2 cannot
 * hold the 2-GPU pod, though its GPUs are free. */
static void test_overcommitted_node(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, PLUGINS,
	         SMALL "podGroups:\n  - {name: one, queue: q, " RACK
	               "}\n  - {name: hog, queue: q}\n"
	               "pods:\n"
	               "  - {name: one-0, podGroup: one, status: Pending, requests: "
	               "{nvidia.com/gpu: 2}}\n"
	               "  - {name: hog-0, podGroup: hog, status: Running, nodeName: m2, requests: "
	               "{memory: 9G}}\n");
	assert_true(tph_kai_session_idle(f.s)[2 * TPH_KAI_DIMS + TPH_KAI_MEMORY] < 0);
	assert_string_equal(sets_of(&f, "one", NULL, 0), "");
	close_kai(&f);
}

/* A job with an active pod in a domain of its required level stays there: the elastic job's
 * next pod is offered r2 only, though r1 (as full, and first by ID) would come first. */
static void test_active_pods_pin(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, PLUGINS,
	         SMALL
	         "podGroups:\n  - {name: e, queue: q, minMember: 1, " RACK "}\n"
	         "  - {name: r, queue: q}\n"
	         "pods:\n"
	         "  - {name: e-0, podGroup: e, status: Running, nodeName: m2, requests: "
	         "{nvidia.com/gpu: 1}}\n"
	         "  - {name: e-1, podGroup: e, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
	         "  - {name: r-0, podGroup: r, status: Running, nodeName: m0, requests: "
	         "{nvidia.com/gpu: 1}}\n");
	assert_string_equal(sets_of(&f, "e", NULL, 0), "m2");
	close_kai(&f);
}

/* Reopen f's session over its snapshot rebuilt with podgroup `pg`'s constraint replaced, as a
 * host may give what the scenario loader refuses (an unknown topology or level). */
static void reopen_with(kf *f, const char *pg, tph_kai_topo_constraint c)
{
	const tph_kai_cluster_desc *orig = tph_scenario_kai_cluster(f->sc);
	tph_kai_cluster_desc copy = *orig;
	tph_kai_podgroup_desc pgs[8];
	assert_true(orig->n_podgroups <= 8);
	memcpy(pgs, orig->podgroups, orig->n_podgroups * sizeof *pgs);
	for (uint32_t i = 0; i < orig->n_podgroups; i++)
		if (strcmp(pgs[i].name, pg) == 0)
			pgs[i].topology = c;
	copy.podgroups = pgs;
	tph_kai_session_free(f->s);
	tph_kai_snapshot_free(f->snap);
	tph_diag d = {0};
	assert_int_equal(tph_kai_snapshot_build(&copy, tph_scenario_now(f->sc), &f->snap, &d), 0);
	assert_int_equal(tph_kai_session_open(f->snap, tph_scenario_conf(f->sc), &f->s, &d), 0);
}

/* KAI's configuration errors (a level the topology lacks, no level, a preferred level above
 * the required one) and a missing topology offer nothing; no constraint keeps the set as
 * given. A set inside one rack's subtree asked for a higher level is refused too: KAI counts
 * free resources from the set's lowest common domain down, so its ancestors have none. */
static void test_constraint_errors(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, PLUGINS,
	         CLUSTER "podGroups:\n"
	                 "  - {name: upside, queue: q, topologyConstraint: {topology: topo, "
	                 "requiredTopologyLevel: k8s.io/spine, preferredTopologyLevel: "
	                 "k8s.io/rack}}\n"
	                 "  - {name: free, queue: q}\n"
	                 "  - {name: racked, queue: q, topologyConstraint: {topology: topo, "
	                 "requiredTopologyLevel: k8s.io/rack}}\n"
	                 "pods:\n"
	                 "  - {name: upside-0, podGroup: upside, status: Pending}\n"
	                 "  - {name: free-0, podGroup: free, status: Pending}\n"
	                 "  - {name: racked-0, podGroup: racked, status: Pending, requests: "
	                 "{nvidia.com/gpu: 1}}\n");
	assert_string_equal(sets_of(&f, "upside", NULL, 0), "");
	assert_string_equal(sets_of(&f, "free", NULL, 0), "n22,n21,n12,n11,n9");
	static const char *const one_spine[] = {"n11"}, *const one_rack[] = {"n11", "n12"};
	assert_string_equal(sets_of(&f, "racked", one_spine, 1), "");
	assert_string_equal(sets_of(&f, "racked", one_rack, 2), "n11,n12");
	reopen_with(&f, "free", (tph_kai_topo_constraint){"topo", "k8s.io/zone", NULL});
	assert_string_equal(sets_of(&f, "free", NULL, 0), "");
	reopen_with(&f, "free", (tph_kai_topo_constraint){"other", "k8s.io/rack", NULL});
	assert_string_equal(sets_of(&f, "free", NULL, 0), "");
	/* Without tasks a constrained set stays as given, but a missing topology is nowhere even
	 * then: KAI looks it up first. */
	tph_kai_node_sets ns = {0};
	const uint32_t all[] = {0, 1};
	assert_int_equal(tph_kai_subset_nodes(f.s, job_of(&f, "free"), -1, NULL, 0, all, 2, &ns),
	                 0);
	assert_int_equal(ns.n, 0);
	assert_int_equal(tph_kai_subset_nodes(f.s, job_of(&f, "racked"), -1, NULL, 0, all, 2, &ns),
	                 0);
	assert_int_equal(ns.n, 1);
	tph_kai_node_sets_free(&ns);
	reopen_with(&f, "free", (tph_kai_topo_constraint){"topo", NULL, NULL});
	assert_string_equal(sets_of(&f, "free", NULL, 0), "");
	close_kai(&f);
}

#define MULTI_TOPOLOGIES                                                                \
	"topologies:\n  - {name: rack-topology, levels: [{nodeLabel: rack-domain}]}\n"  \
	"  - {name: zone-topology, levels: [{nodeLabel: zone-domain}]}\n"               \
	"queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, " \
	"limit: -1}, memory: {quota: -1, limit: -1}}}]\n"
#define GPU8(name, rack, zone)                                                                  \
	"  - {name: " name ", allocatable: {cpu: \"64\", memory: 64G, nvidia.com/gpu: \"8\"}, " \
	"labels: {rack-domain: " rack ", zone-domain: " zone "}}\n"
#define POD4(name, job, sg)                                                                        \
	"  - {name: " name ", podGroup: " job ", status: Pending, requests: {nvidia.com/gpu: 4}, " \
	"labels: {kai.scheduler/subgroup-name: " sg "}}\n"
#define SEED(name, node)                                                                       \
	"  - {name: " name ", podGroup: seed, status: Running, nodeName: " node ", requests: " \
	"{nvidia.com/gpu: 4}}\n"

/* Whether every pod named prefix-0 .. prefix-2 is Binding on one of `nodes` (comma-joined)
 * and all on nodes with the same `label` value, returned (KAI's multi-topology test asserts
 * its sub-groups this way: by domain and node set, not pod by pod). */
static const char *one_domain(const kf *f, const char *prefix, const char *nodes, const char *label)
{
	const char *domain = NULL;
	for (int i = 0; i < 3; i++) {
		char name[32];
		snprintf(name, sizeof name, "%s-%d", prefix, i);
		assert_int_equal(tph_kai_session_status(f->s)[task_of(f, name)],
		                 TPH_KAI_TS_BINDING);
		const char *node = node_of(f, name);
		char list[128], want[32];
		snprintf(list, sizeof list, ",%s,", nodes);
		snprintf(want, sizeof want, ",%s,", node);
		assert_non_null(strstr(list, want));
		const tph_kai_view *v = tph_kai_session_view(f->s);
		uint32_t n = node_index(f, node), level = strcmp(label, "rack-domain") == 0 ? 0 : 1;
		const char *value =
		    v->topologies
		        .domain_value[level * v->nodes.n +
		                      (uint32_t)v->topologies.domain[level * v->nodes.n + n]];
		if (domain)
			assert_string_equal(value, domain);
		domain = value;
	}
	return domain;
}

/* KAI's allocate_multi_topology_test.go, first case: two pod sets of one job under different
 * Topology objects; the rack workers fill the fullest rack (rack-a: node0, node1), the zone
 * workers the fullest zone (zone-x: node2, node4). */
static void test_topologies_per_subgroup(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "[{name: topology}, {name: nodeplacement}, {name: subgrouporder}]",
	         MULTI_TOPOLOGIES "nodes:\n" GPU8("node0", "rack-a", "zone-x") GPU8(
	             "node1", "rack-a", "zone-y") GPU8("node2", "rack-b", "zone-x")
	             GPU8("node3", "rack-b", "zone-y") GPU8("node4", "rack-c", "zone-x") GPU8(
	                 "node5", "rack-c",
	                 "zone-y") "podGroups:\n  - {name: seed, queue: q, minMember: 0}\n"
	                           "  - name: j\n    queue: q\n    minSubGroup: 2\n    subGroups:\n"
	                           "      - {name: rack-workers, minMember: 3, topologyConstraint: "
	                           "{topology: "
	                           "rack-topology, requiredTopologyLevel: rack-domain}}\n"
	                           "      - {name: zone-workers, minMember: 3, topologyConstraint: "
	                           "{topology: "
	                           "zone-topology, requiredTopologyLevel: zone-domain}}\n"
	                           "pods:\n" SEED("seed-0", "node0") SEED("seed-1", "node2")
	                               POD4("r-0", "j", "rack-workers")
	                                   POD4("r-1", "j", "rack-workers")
	                                       POD4("r-2", "j", "rack-workers")
	                                           POD4("z-0", "j", "zone-workers")
	                                               POD4("z-1", "j", "zone-workers")
	                                                   POD4("z-2", "j", "zone-workers"));
	run_ok(&f);
	assert_string_equal(one_domain(&f, "r", "node0,node1", "rack-domain"), "rack-a");
	assert_string_equal(one_domain(&f, "z", "node2,node4", "zone-domain"), "zone-x");
	close_kai(&f);
}

/* Its second case: a parent set under the zone topology, its two pod sets under the rack
 * topology: both children in zone-x (the fuller zone), each in one rack, not the same one,
 * rack-a and rack-b (the fuller racks). */
static void test_topologies_per_level(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "[{name: topology}, {name: nodeplacement}, {name: subgrouporder}]",
	         MULTI_TOPOLOGIES "nodes:\n" GPU8("node0", "rack-a", "zone-x") GPU8(
	             "node1", "rack-a", "zone-x") GPU8("node2", "rack-b", "zone-x")
	             GPU8("node3", "rack-b", "zone-x") GPU8("node4", "rack-c", "zone-x") GPU8(
	                 "node5", "rack-c", "zone-x") GPU8("node6", "rack-a", "zone-y")
	                 GPU8("node7", "rack-a", "zone-y") GPU8("node8", "rack-b", "zone-y") GPU8(
	                     "node9", "rack-b", "zone-y") GPU8("node10", "rack-c", "zone-y")
	                     GPU8("node11", "rack-c",
	                          "zone-y") "podGroups:\n  - {name: seed, queue: q, minMember: 0}\n"
	                                    "  - name: j\n    queue: q\n    subGroups:\n"
	                                    "      - {name: parent, minSubGroup: 2, "
	                                    "topologyConstraint: {topology: "
	                                    "zone-topology, requiredTopologyLevel: zone-domain}}\n"
	                                    "      - {name: child-a, parent: parent, minMember: 3, "
	                                    "topologyConstraint: {topology: "
	                                    "rack-topology, requiredTopologyLevel: rack-domain}}\n"
	                                    "      - {name: child-b, parent: parent, minMember: 3, "
	                                    "topologyConstraint: {topology: "
	                                    "rack-topology, requiredTopologyLevel: rack-domain}}\n"
	                                    "pods:\n" SEED("seed-0", "node0")
	                                        SEED("seed-1", "node2") POD4("a-0", "j", "child-a")
	                                            POD4("a-1", "j", "child-a")
	                                                POD4("a-2", "j", "child-a")
	                                                    POD4("b-0", "j", "child-b")
	                                                        POD4("b-1", "j", "child-b")
	                                                            POD4("b-2", "j", "child-b"));
	run_ok(&f);
	assert_string_equal(
	    one_domain(&f, "a", "node0,node1,node2,node3,node4,node5", "zone-domain"), "zone-x");
	assert_string_equal(
	    one_domain(&f, "b", "node0,node1,node2,node3,node4,node5", "zone-domain"), "zone-x");
	const char *ra = one_domain(&f, "a", "node0,node1,node2,node3", "rack-domain");
	const char *rb = one_domain(&f, "b", "node0,node1,node2,node3", "rack-domain");
	assert_string_not_equal(ra, rb);
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_domains_are_paths),
	    cmocka_unit_test(test_fuller_domain_first),
	    cmocka_unit_test(test_required_one_domain),
	    cmocka_unit_test(test_preferred_then_relax),
	    cmocka_unit_test(test_node_scores),
	    cmocka_unit_test(test_subgroups_under_root),
	    cmocka_unit_test(test_capacity_accounting),
	    cmocka_unit_test(test_overcommitted_node),
	    cmocka_unit_test(test_active_pods_pin),
	    cmocka_unit_test(test_constraint_errors),
	    cmocka_unit_test(test_topologies_per_subgroup),
	    cmocka_unit_test(test_topologies_per_level),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

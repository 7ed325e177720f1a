/* The allocate action's hypernode path (kernel/actions/allocate/allocate_topo.c, allocate_hn*.c):
 * hypernode choice by HyperNodeOrder, soft topology falling back to the cluster top, hard
 * topology that does not fit, minMember below the replicas, the recorder, the nomination fast
 * path and its fallback, hypernodes that do not form a tree; then the exact shortcuts
 * (resource bound, best-score-first, first-step memo) against the naive search on random
 * clusters, the classes' verdicts skipping dry runs, with verdict columns evaluated only
 * where asked, and a job its queue cannot take running one dry run per group. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "harness.h"
#include "session/topo/hypernode.h"

static char yaml[1 << 16];

/* Two racks of two 2-cpu nodes under a spine; r1 already runs one pod. */
static const char base[] =
    "name: t\n"
    "enableFlagsDefault: true\n"
    "conf: |\n"
    "  actions: \"allocate\"\n"
    "  tiers:\n"
    "  - plugins:\n"
    "    - name: gang\n"
    "    - name: predicates\n"
    "    - name: network-topology-aware\n"
    "queues: [{name: q1}]\n"
    "nodes:\n"
    "  - {name: n0, allocatable: {cpu: '2', memory: 8Gi, pods: '10'}}\n"
    "  - {name: n1, allocatable: {cpu: '2', memory: 8Gi, pods: '10'}}\n"
    "  - {name: n2, allocatable: {cpu: '2', memory: 8Gi, pods: '10'}}\n"
    "  - {name: n3, allocatable: {cpu: '2', memory: 8Gi, pods: '10'}}\n"
    "hyperNodes:\n"
    "  - {name: r0, tier: 1, members: [n0, n1]}\n"
    "  - {name: r1, tier: 1, members: [n2, n3]}\n"
    "  - {name: sp, tier: 2, members: [%s]}\n"
    "podGroups:\n"
    "  - {name: bg, namespace: ns, queue: q1, minMember: 1, phase: Running}\n"
    "  - {name: j, namespace: ns, queue: q1, minMember: %d, phase: Inqueue%s}\n"
    "pods:\n"
    "  - {name: bg, namespace: ns, podGroup: bg, phase: Running, nodeName: n2,"
    " requests: {cpu: '1'}}\n";

static void pod(char *at, size_t room, int i, const char *cpu)
{
	snprintf(at, room, "  - {name: w-%d, namespace: ns, podGroup: j, requests: {cpu: '%s'}}\n",
	         i, cpu);
}

static void make(const char *spine, int min, const char *pg, int pods, const char *cpu)
{
	int n = snprintf(yaml, sizeof yaml, base, spine, min, pg);
	for (int i = 0; i < pods; i++)
		pod(yaml + strlen(yaml), sizeof yaml - strlen(yaml), i, cpu);
	(void)n;
}

static const char *bound(const pts *p, const char *pod)
{
	for (uint32_t i = 0; i < p->log->n_binds; i++)
		if (!strcmp(p->log->binds[i].pod, pod))
			return p->log->binds[i].node;
	return NULL;
}

/* Both racks fit the job; network-topology-aware's binpacking prefers the busier r1. */
static void test_hypernode_by_order(void **state)
{
	(void)state;
	pts p;
	make("r0, r1", 2, ", networkTopology: {mode: hard, highestTierAllowed: 1}", 2, "1");
	pts_open(&p, yaml);
	pts_run(&p);
	assert_int_equal(p.log->n_binds, 2);
	for (int i = 0; i < 2; i++) {
		char key[16];
		snprintf(key, sizeof key, "ns/w-%d", i);
		const char *n = bound(&p, key);
		assert_true(n && (!strcmp(n, "n2") || !strcmp(n, "n3")));
	}
	/* the recorder: the job's allocated hypernode is the rack it took */
	assert_string_equal(tph_hn_name(p.s, p.s->topo->job_hn[pts_job(&p, "ns/j")]), "r1");
	pts_free(&p);
}

/* Binds of a whole session over `yaml`. */
static uint32_t run_binds(void)
{
	pts p;
	pts_open(&p, yaml);
	pts_run(&p);
	uint32_t n = p.log->n_binds;
	pts_free(&p);
	return n;
}

/* Nominate ns/j's default subjob to hypernode `hn` and `task` to `node`; the subjob's index. */
static tph_idx nominate(pts *p, const char *hn, const char *task, const char *node)
{
	tph_session *s = p->s;
	tph_idx k = tph_job_default_subjob(s, pts_job(p, "ns/j"));
	s->topo->sj.nominated[k] = tph_hn_find(s, hn);
	s->tasks.nominated[pts_task(p, task)] = pts_node(p, node);
	return k;
}

/* Six 1-cpu tasks fit no rack: hard tier 1 binds nothing, soft falls back to the top. */
static void test_hard_and_soft(void **state)
{
	(void)state;
	make("r0, r1", 6, ", networkTopology: {mode: hard, highestTierAllowed: 1}", 6, "1");
	assert_int_equal(run_binds(), 0);
	make("r0, r1", 6, ", networkTopology: {mode: soft}", 6, "1");
	assert_int_equal(run_binds(), 6);
}

/* minMember 2 of 5 replicas: the job commits once ready and comes back for the rest. */
static void test_min_member_below_replicas(void **state)
{
	(void)state;
	make("r0, r1", 2, ", networkTopology: {mode: hard, highestTierAllowed: 2}", 5, "1");
	assert_int_equal(run_binds(), 5);
}

/* A hypernode claimed by two parents: no tree, so jobs with a topology are skipped while the
 * others still allocate. */
static void test_hypernodes_not_ready(void **state)
{
	(void)state;
	pts p;
	make("r0, r1]}\n  - {name: sp2, tier: 2, members: [r1", 1,
	     ", networkTopology: {mode: hard, highestTierAllowed: 2}", 1, "1");
	strcat(yaml, "  - {name: solo, namespace: ns, podGroup: bg, requests: {cpu: '1'}}\n");
	pts_open(&p, yaml);
	if (p.s->topo->t.ready) { /* the loader may already reject the shape */
		pts_free(&p);
		skip();
	}
	pts_run(&p);
	assert_null(bound(&p, "ns/w-0"));
	assert_non_null(bound(&p, "ns/solo"));
	pts_free(&p);
}

/* The nomination fast path: a subjob nominated to r0 with every task nominated to a node of
 * it lands there, although binpacking prefers r1; the nomination is then redeemed. */
static void test_nomination(void **state)
{
	(void)state;
	pts p;
	make("r0, r1", 2, ", networkTopology: {mode: hard, highestTierAllowed: 1}", 2, "1");
	pts_open(&p, yaml);
	tph_session *s = p.s;
	tph_idx k = nominate(&p, "r0", "ns/w-0", "n0");
	s->tasks.nominated[pts_task(&p, "ns/w-1")] = pts_node(&p, "n0");
	pts_run(&p);
	assert_string_equal(bound(&p, "ns/w-0"), "n0");
	assert_string_equal(bound(&p, "ns/w-1"), "n0");
	assert_int_equal(s->topo->sj.nominated[k], TPH_NOIDX);
	pts_free(&p);
}

/* A task without a nominated node invalidates the nomination: the normal search runs and
 * every pending task's nominated node is cleared. */
static void test_nomination_invalidated(void **state)
{
	(void)state;
	pts p;
	make("r0, r1", 2, ", networkTopology: {mode: hard, highestTierAllowed: 1}", 2, "1");
	pts_open(&p, yaml);
	tph_session *s = p.s;
	tph_idx k = nominate(&p, "r0", "ns/w-0", "n0"), w0 = pts_task(&p, "ns/w-0");
	pts_run(&p);
	assert_int_equal(s->topo->sj.nominated[k], TPH_NOIDX);
	assert_int_equal(s->tasks.nominated[w0], TPH_NOIDX);
	assert_int_equal(p.log->n_binds, 2);
	assert_string_equal(tph_hn_name(s, s->topo->job_hn[pts_job(&p, "ns/j")]), "r1");
	pts_free(&p);
}

/* A flat job (no topology) whose subjob is nominated takes the fast path too. */
static void test_flat_nomination(void **state)
{
	(void)state;
	pts p;
	make("r0, r1", 1, "", 1, "1");
	pts_open(&p, yaml);
	tph_session *s = p.s;
	tph_idx k = nominate(&p, "r1", "ns/w-0", "n3");
	pts_run(&p);
	assert_string_equal(bound(&p, "ns/w-0"), "n3");
	assert_int_equal(s->topo->sj.nominated[k], TPH_NOIDX);
	pts_free(&p);
}

/* ---- the shortcuts against the naive search ---- */

static uint64_t rng;
static bool kinds; /* random_cluster labels some nodes kind: gpu, and some jobs select them */

static uint32_t rnd(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33) % n;
}

#define ADD(...) (at += (size_t)snprintf(yaml + at, sizeof yaml - at, __VA_ARGS__))

/* Racks of 2-4 nodes (tier 1), spines of 2-3 racks (tier 2), one pod per node in between. */
static size_t random_nodes(size_t at, uint32_t n)
{
	ADD("nodes:\n");
	for (uint32_t i = 0; i < n; i++)
		ADD("  - {name: n%u, allocatable: {cpu: '%u', memory: 64Gi, pods: '10'}%s}\n", i,
		    2 + rnd(6), kinds && !rnd(3) ? ", labels: {kind: gpu}" : "");
	ADD("hyperNodes:\n");
	uint32_t racks = 0, spines = 0;
	for (uint32_t i = 0; i < n; racks++) {
		uint32_t k = 2 + rnd(3);
		ADD("  - {name: r%u, tier: 1, members: [", racks);
		for (uint32_t m = 0; m < k && i < n; m++, i++)
			ADD("%sn%u", m ? ", " : "", i);
		ADD("]}\n");
	}
	for (uint32_t r = 0; r < racks; spines++) {
		uint32_t k = 2 + rnd(2);
		ADD("  - {name: s%u, tier: 2, members: [", spines);
		for (uint32_t m = 0; m < k && r < racks; m++, r++)
			ADD("%sr%u", m ? ", " : "", r);
		ADD("]}\n");
	}
	return at;
}

static size_t random_job(size_t at, uint32_t j)
{
	static const char *const topo[] = {"",
	                                   ", networkTopology: {mode: hard, highestTierAllowed: 1}",
	                                   ", networkTopology: {mode: hard, highestTierAllowed: 2}",
	                                   ", networkTopology: {mode: soft}"};
	uint32_t reps = 1 + rnd(8), min = rnd(3) ? reps : 1 + rnd(reps), cpu = 1 + rnd(3);
	ADD("  - {name: j%u, namespace: ns, queue: q1, minMember: %u, phase: Inqueue%s%s", j, min,
	    topo[rnd(4)], rnd(3) ? "" : ", minResources: {cpu: '2'}");
	if (!rnd(3))
		ADD(", subGroupPolicy: [{name: sg, subGroupSize: 2, minSubGroups: %u,"
		    " matchLabelKeys: [grp]%s}]",
		    rnd(3), rnd(2) ? ", networkTopology: {mode: hard, highestTierAllowed: 1}" : "");
	ADD("}\n");
	return at | (size_t)reps << 32 | (size_t)cpu << 48;
}

static void random_cluster(uint64_t seed)
{
	rng = seed;
	size_t at = 0;
	uint32_t n = 6 + rnd(20), jobs = 3 + rnd(6);
	ADD("name: r\nenableFlagsDefault: true\nconf: |\n  actions: \"allocate\"\n"
	    "  tiers:\n  - plugins:\n    - name: gang\n    - name: predicates\n"
	    "    - name: network-topology-aware\n%s"
	    "queues: [{name: q1}]\n",
	    rnd(2) ? "    - name: binpack\n" : "");
	at = random_nodes(at, n);
	uint32_t reps[16], cpu[16];
	ADD("podGroups:\n  - {name: bg, namespace: ns, queue: q1, minMember: 1, phase: Running}\n");
	for (uint32_t j = 0; j < jobs; j++) {
		size_t r = random_job(at, j);
		at = r & 0xffffffffu;
		reps[j] = (uint32_t)(r >> 32) & 0xffff;
		cpu[j] = (uint32_t)(r >> 48);
	}
	ADD("pods:\n");
	for (uint32_t i = 0; i < n; i++)
		if (rnd(2))
			ADD("  - {name: bg%u, namespace: ns, podGroup: bg, phase: Running, "
			    "nodeName: n%u,"
			    " requests: {cpu: '1'}}\n",
			    i, i);
	for (uint32_t j = 0; j < jobs; j++)
		for (uint32_t i = 0; i < reps[j]; i++)
			ADD("  - {name: j%u-w-%u, namespace: ns, podGroup: j%u, requests: {cpu: "
			    "'%u'},"
			    " labels: {grp: 'g%u'}%s}\n",
			    j, i, j, cpu[j], i / 2,
			    kinds && j % 2 ? ", nodeSelector: {kind: gpu}" : "");
}

static void same_rows(const tph_decision *a, uint32_t na, const tph_decision *b, uint32_t nb)
{
	assert_int_equal(na, nb);
	for (uint32_t i = 0; i < na; i++) {
		assert_string_equal(a[i].pod, b[i].pod);
		if (a[i].node || b[i].node)
			assert_string_equal(a[i].node, b[i].node);
	}
}

static void same_log(const tph_decision_log *a, const tph_decision_log *b)
{
	same_rows(a->binds, a->n_binds, b->binds, b->n_binds);
	same_rows(a->pipelined, a->n_pipelined, b->pipelined, b->n_pipelined);
	assert_int_equal(a->n_pending, b->n_pending);
	for (uint32_t i = 0; i < a->n_pending; i++) {
		assert_string_equal(a->pending[i].pod, b->pending[i].pod);
		assert_int_equal(a->pending[i].n_reasons, b->pending[i].n_reasons);
		for (uint32_t k = 0; k < a->pending[i].n_reasons; k++)
			assert_string_equal(a->pending[i].reasons[k], b->pending[i].reasons[k]);
	}
}

/* Random clusters: the same decisions (binds, pipelines, pending reasons) with and without
 * the shortcuts; with kinds, also where the classes' verdicts bound the runs. */
static void shortcuts_exact(uint64_t seeds)
{
	for (uint64_t seed = 1; seed <= seeds; seed++) {
		pts fast, naive;
		tph_session_opts o = {.threads = 1, .naive = true};
		random_cluster(seed);
		pts_open(&fast, yaml);
		pts_run(&fast);
		pts_open_with(&naive, yaml, &o);
		pts_run(&naive);
		same_log(fast.log, naive.log);
		pts_free(&fast);
		pts_free(&naive);
	}
}

static void test_shortcuts_exact(void **state)
{
	(void)state;
	kinds = false;
	shortcuts_exact(150);
}

static void test_shortcuts_exact_kinds(void **state)
{
	(void)state;
	kinds = true;
	shortcuts_exact(300);
	kinds = false;
}

/* Racks of four 4-cpu nodes, `racks` of them; rack `gpu` has nodes labelled kind: gpu. One
 * job, hard at tier 1, of two pods with selector `sel` asking for `cpu0` and `cpu1` cpu (two
 * classes when they differ); `plugin` ends the conf's plugins, `queue` the queue's fields. */
static void racks_with(uint32_t racks, uint32_t gpu, const char *sel, const char *cpu0,
                       const char *cpu1, const char *plugin, const char *queue)
{
	size_t at = (size_t)snprintf(yaml, sizeof yaml,
	                             "name: g\nenableFlagsDefault: true\nconf: |\n"
	                             "  actions: \"allocate\"\n  tiers:\n  - plugins:\n"
	                             "    - name: gang\n    - name: predicates\n"
	                             "    - name: network-topology-aware\n%s"
	                             "queues: [{name: q1%s}]\nnodes:\n",
	                             plugin, queue);
	for (uint32_t i = 0; i < 4 * racks; i++)
		at += (size_t)snprintf(yaml + at, sizeof yaml - at,
		                       "  - {name: n%u, allocatable: {cpu: '4', memory: 8Gi, pods: "
		                       "'10'}%s}\n",
		                       i, i / 4 == gpu ? ", labels: {kind: gpu}" : "");
	at += (size_t)snprintf(yaml + at, sizeof yaml - at, "hyperNodes:\n");
	for (uint32_t r = 0; r < racks; r++)
		at += (size_t)snprintf(yaml + at, sizeof yaml - at,
		                       "  - {name: r%u, tier: 1, members: [n%u, n%u, n%u, n%u]}\n",
		                       r, 4 * r, 4 * r + 1, 4 * r + 2, 4 * r + 3);
	snprintf(yaml + at, sizeof yaml - at,
	         "podGroups:\n"
	         "  - {name: j, namespace: ns, queue: q1, minMember: 2, phase: Inqueue,"
	         " networkTopology: {mode: hard, highestTierAllowed: 1}}\n"
	         "pods:\n"
	         "  - {name: w-0, namespace: ns, podGroup: j, requests: {cpu: '%s'}%s}\n"
	         "  - {name: w-1, namespace: ns, podGroup: j, requests: {cpu: '%s'}%s}\n",
	         cpu0, sel, cpu1, sel);
}

static const char gpu_sel[] = ", nodeSelector: {kind: gpu}";

/* Both pods select the gpu rack and are of one class. */
static void gpu_racks(uint32_t racks, uint32_t gpu)
{
	racks_with(racks, gpu, gpu_sel, "1", "1", "", "");
}

/* What a profiled run counted. */
typedef struct counts {
	uint32_t binds;
	uint64_t pre;         /* PrePredicate calls: one per task a dry run tries */
	uint64_t nodes;       /* Predicate nodes: verdicts evaluated */
	uint64_t allocatable; /* Allocatable calls */
} counts;

/* Decide over `yaml` with the profile on, naive or not, with the same decisions and pending
 * reasons in both modes; every bind must land in rack `rack` (UINT32_MAX: anywhere). */
static counts profiled(bool naive, uint32_t rack)
{
	pts p, ref;
	tph_session_opts o = {.threads = 1, .naive = naive, .profile = true};
	tph_session_opts r = {.threads = 1, .naive = !naive};
	pts_open_with(&p, yaml, &o);
	pts_run(&p);
	pts_open_with(&ref, yaml, &r);
	pts_run(&ref);
	same_log(p.log, ref.log);
	pts_free(&ref);
	const tph_profile_row *rows;
	uint32_t n;
	counts c = {.binds = p.log->n_binds};
	assert_int_equal(tph_session_profile(p.s, &rows, &n), TPH_OK);
	for (uint32_t i = 0; i < n; i++) {
		if (!strcmp(rows[i].ep, "PrePredicate"))
			c.pre = rows[i].calls;
		if (!strcmp(rows[i].ep, "Predicate"))
			c.nodes = rows[i].nodes;
		if (!strcmp(rows[i].ep, "Allocatable"))
			c.allocatable = rows[i].calls;
	}
	for (uint32_t i = 0; rack != UINT32_MAX && i < c.binds; i++) {
		unsigned node = 0;
		assert_int_equal(sscanf(p.log->binds[i].node, "n%u", &node), 1);
		assert_int_equal(node / 4, rack);
	}
	pts_free(&p);
	return c;
}

/* Five racks whose nodes the job's selector refuses, then the one it fits: the resource
 * bound passes them all, the class's verdicts skip their dry runs, so only the last rack's
 * two tasks are tried (the literal search tries the first task in each rack too). */
static void test_class_bound(void **state)
{
	(void)state;
	gpu_racks(6, 5);
	counts fast = profiled(false, 5), naive = profiled(true, 5);
	assert_int_equal(fast.binds, 2);
	assert_int_equal(naive.binds, 2);
	assert_int_equal(fast.pre, 2);
	assert_true(naive.pre > fast.pre);
}

/* The same with the two pods of two classes (their requests differ): no rack's node passes
 * either class but the last rack's, so only that rack's run is made. */
static void test_classes_bound(void **state)
{
	(void)state;
	racks_with(6, 5, gpu_sel, "1", "2", "", "");
	counts fast = profiled(false, 5), naive = profiled(true, 5);
	assert_int_equal(fast.binds, 2);
	assert_int_equal(fast.pre, 2);
	assert_true(naive.pre > fast.pre);
}

/* Two classes, one short of memory and one of cpu on each node of the first five racks (a
 * running pod leaves 1.5 cpu and 2Gi there), and a gang of one: the resource bounds pass
 * those racks (a node-by-node cut is asked only below the gang's need, and the summed room
 * holds one task), so only the fit in the classes' verdicts skips their runs. */
static void test_classes_bound_fit(void **state)
{
	(void)state;
	static const char bg[] = "  - {name: bg, namespace: ns, queue: q1, minMember: 1, phase: "
	                         "Running}\n";
	racks_with(6, 6, "", "1', memory: '4Gi", "2', memory: '1Gi", "", "");
	memcpy(strstr(yaml, "minMember: 2"), "minMember: 1", 12);
	char *groups = strstr(yaml, "podGroups:\n") + strlen("podGroups:\n");
	memmove(groups + strlen(bg), groups, strlen(groups) + 1);
	memcpy(groups, bg, strlen(bg));
	for (uint32_t i = 0; i < 20; i++) {
		size_t len = strlen(yaml);
		snprintf(yaml + len, sizeof yaml - len,
		         "  - {name: bg-%u, namespace: ns, podGroup: bg, phase: Running, nodeName: "
		         "n%u, requests: {cpu: 2500m, memory: 6Gi}}\n",
		         i, i);
	}
	counts fast = profiled(false, 5), naive = profiled(true, 5);
	assert_int_equal(fast.binds, 2);
	assert_int_equal(fast.pre, 2);
	assert_true(naive.pre > fast.pre);
}

/* The rack that fits comes first among forty: its run succeeds at once. The bound asks the
 * pod spec's verdicts, which the task's head shape (allocate_hn_pick.c) shares: the cluster's
 * 160 evaluated once; not the one node the first task took, which predicates' pass keeps below
 * its pod limit (tph_declare_pass_pods); none for the bound itself. */
static void test_class_columns_partial(void **state)
{
	(void)state;
	gpu_racks(40, 0);
	counts fast = profiled(false, 0);
	assert_int_equal(fast.binds, 2);
	assert_int_equal(fast.pre, 2);
	assert_int_equal(fast.nodes, 160);
}

/* Six racks that fit, but the queue's capability (proportion's Allocatable) takes neither
 * 2-cpu pod: every run fails without placing one. The literal search runs all six racks (two
 * Allocatable calls each); the shortcut asks both pods once and runs only the group's last
 * rack, whose fit errors stand, asking its first pod (the second, of the same row, is refused
 * as the first was: test_refusal_stands). */
static void test_queue_shut(void **state)
{
	(void)state;
	racks_with(6, 0, "", "2", "2", "    - name: proportion\n", ", capability: {cpu: '1'}");
	counts fast = profiled(false, 0), naive = profiled(true, 0);
	assert_int_equal(fast.binds, 0);
	assert_int_equal(naive.allocatable, 12);
	assert_int_equal(fast.allocatable, 3);
}

/* One rack of four 4-cpu nodes, a gang of five 1-cpu pods and a queue whose capability takes
 * two: the rack's run places two, then proportion's Allocatable refuses the third pod, and the
 * fourth and fifth, of the same request row, are refused without asking. The literal search
 * asks five times; the shortcut asks one pod before the search (ahn_for_job's queue check) and
 * three in the run. The same decisions and pending reasons either way. */
static void test_refusal_stands(void **state)
{
	(void)state;
	racks_with(1, 0, "", "1", "1", "    - name: proportion\n", ", capability: {cpu: '2'}");
	memcpy(strstr(yaml, "minMember: 2"), "minMember: 5", 12);
	for (uint32_t i = 2; i < 5; i++) {
		size_t len = strlen(yaml);
		snprintf(yaml + len, sizeof yaml - len,
		         "  - {name: w-%u, namespace: ns, podGroup: j, requests: {cpu: '1'}}\n", i);
	}
	counts fast = profiled(false, 0), naive = profiled(true, 0);
	assert_int_equal(fast.binds, 0);
	assert_int_equal(naive.allocatable, 5);
	assert_int_equal(fast.allocatable, 4);
}

/* Six racks that fit a gang of two 1-cpu pods, but the queue's capability takes one: each
 * rack's run places the first pod, then Allocatable refuses the second. After the first run
 * the shortcut knows that no run of the search places more than one (the queue's state is
 * the start plus one row per placed pod), so it skips the others but the group's last, whose
 * fit errors stand: two runs where the literal search makes six. */
static void test_queue_capped(void **state)
{
	(void)state;
	racks_with(6, 0, "", "1", "1", "    - name: proportion\n", ", capability: {cpu: '1'}");
	counts fast = profiled(false, 0), naive = profiled(true, 0);
	assert_int_equal(fast.binds, 0);
	assert_int_equal(naive.pre, 6);
	assert_int_equal(fast.pre, 2);
}

/* Six racks, a gang of three: a 1-cpu pod, then two 2-cpu pods (two request rows). With a
 * capability of two cpus each rack's run places the first pod and is refused the second:
 * no run places a 2-cpu pod once it has placed a pod (any pod asks for at least the cpu the
 * refused run had placed), so none places more than two, short of the three the gang needs,
 * and the shortcut runs the first rack and the group's last. With three cpus each run places
 * two and is refused the third: a run could still place the 1-cpu pod after both others,
 * so every rack runs, as in the literal search. */
static void test_queue_capped_rows(void **state)
{
	(void)state;
	const char *cap[] = {", capability: {cpu: '2'}", ", capability: {cpu: '3'}"};
	const uint64_t pre[] = {2, 12};
	for (uint32_t i = 0; i < 2; i++) {
		racks_with(6, 0, "", "1", "2", "    - name: proportion\n", cap[i]);
		memcpy(strstr(yaml, "minMember: 2"), "minMember: 3", 12);
		size_t len = strlen(yaml);
		snprintf(yaml + len, sizeof yaml - len,
		         "  - {name: w-2, namespace: ns, podGroup: j, requests: {cpu: '2'}}\n");
		counts fast = profiled(false, 0), naive = profiled(true, 0);
		assert_int_equal(fast.binds, 0);
		assert_int_equal(naive.pre, 6 * (i + 1));
		assert_int_equal(fast.pre, pre[i]);
	}
}

/* Three racks of three 2-cpu nodes; jobs b (two pods) then c (three), hard at tier 1, every
 * pod asking for 1 cpu and host port 80, so one pod spec and one pod a node. b runs once and
 * takes two nodes of a rack, the second after the spec's kept verdicts were last caught up
 * (by its pick). That rack ranks first for c (the busiest) and holds one node its port passes,
 * room for two of c's three pods, so the class bound skips its run only if it sees the
 * verdict of the node b took last as it is now, not as kept; c's next rack then succeeds:
 * 2 + 3 dry-run tasks (7 with that rack's run, which fails on its second pod). */
static void test_class_verdicts_touched(void **state)
{
	(void)state;
	size_t at = (size_t)snprintf(yaml, sizeof yaml,
	                             "name: p\nenableFlagsDefault: true\nconf: |\n"
	                             "  actions: \"allocate\"\n  tiers:\n  - plugins:\n"
	                             "    - name: gang\n    - name: predicates\n"
	                             "    - name: network-topology-aware\n"
	                             "queues: [{name: q1}]\nnodes:\n");
	for (uint32_t i = 0; i < 9; i++)
		at += (size_t)snprintf(yaml + at, sizeof yaml - at,
		                       "  - {name: n%u, allocatable: {cpu: '2', memory: 8Gi, pods: "
		                       "'10'}}\n",
		                       i);
	at += (size_t)snprintf(yaml + at, sizeof yaml - at, "hyperNodes:\n");
	for (uint32_t r = 0; r < 3; r++)
		at += (size_t)snprintf(yaml + at, sizeof yaml - at,
		                       "  - {name: r%u, tier: 1, members: [n%u, n%u, n%u]}\n", r,
		                       3 * r, 3 * r + 1, 3 * r + 2);
	static const char jobs[] =
	    "podGroups:\n"
	    "  - {name: b, namespace: ns, queue: q1, minMember: 2, phase: Inqueue,"
	    " networkTopology: {mode: hard, highestTierAllowed: 1}}\n"
	    "  - {name: c, namespace: ns, queue: q1, minMember: 3, phase: Inqueue,"
	    " networkTopology: {mode: hard, highestTierAllowed: 1}}\n"
	    "pods:\n";
	at += (size_t)snprintf(yaml + at, sizeof yaml - at, "%s", jobs);
	for (uint32_t i = 0; i < 5; i++)
		at += (size_t)snprintf(
		    yaml + at, sizeof yaml - at,
		    "  - {name: w-%u, namespace: ns, podGroup: %c, requests: {cpu: '1'},"
		    " hostPorts: [{hostPort: 80}]}\n",
		    i, i < 2 ? 'b' : 'c');
	counts fast = profiled(false, UINT32_MAX), naive = profiled(true, UINT32_MAX);
	assert_int_equal(fast.binds, 5);
	assert_int_equal(fast.pre, 5);
	assert_true(naive.pre > fast.pre);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hypernode_by_order),
	    cmocka_unit_test(test_hard_and_soft),
	    cmocka_unit_test(test_min_member_below_replicas),
	    cmocka_unit_test(test_hypernodes_not_ready),
	    cmocka_unit_test(test_nomination),
	    cmocka_unit_test(test_nomination_invalidated),
	    cmocka_unit_test(test_flat_nomination),
	    cmocka_unit_test(test_shortcuts_exact),
	    cmocka_unit_test(test_shortcuts_exact_kinds),
	    cmocka_unit_test(test_class_bound),
	    cmocka_unit_test(test_classes_bound),
	    cmocka_unit_test(test_classes_bound_fit),
	    cmocka_unit_test(test_class_columns_partial),
	    cmocka_unit_test(test_queue_shut),
	    cmocka_unit_test(test_refusal_stands),
	    cmocka_unit_test(test_queue_capped),
	    cmocka_unit_test(test_queue_capped_rows),
	    cmocka_unit_test(test_class_verdicts_touched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

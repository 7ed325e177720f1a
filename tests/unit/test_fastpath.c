/* allocate's class-level path (kernel/actions/allocate_fast*.c) decides exactly as the naive
 * path: generated clusters under several plugin mixes (the default conf with binpack;
 * nodeorder with every weight; resource-strategy-fit with its sra and proportional parts;
 * predicates over taints, selectors and required terms; soft and hard shards; the error cache
 * off) give byte-identical decision logs fast and naive, and fast at one and two threads. The
 * specs mix node-local scores (kept per shape), anchored ones (preferred node affinity,
 * PreferNoSchedule taints), global ones (pod-to-pod terms, soft spreading, pod strategy
 * annotations) and non-local predicates, so every way in and out of the path is taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cluster_int.h"
#include "harness.h"
#include "session/fitlog.h"
#include "tephra/tephra.h"

enum {
	F_TAINTS = 1 << 0,   /* NoSchedule and PreferNoSchedule taints, tolerations */
	F_SELECT = 1 << 1,   /* nodeSelector, required node affinity */
	F_PREFER = 1 << 2,   /* preferred node affinity (anchored scores) */
	F_POD = 1 << 3,      /* preferred pod terms, soft spreading, a few required terms */
	F_GPU = 1 << 4,      /* gpu nodes; jobs whose roles alternate gpu and cpu tasks */
	F_ANNOT = 1 << 5,    /* resource-strategy-fit annotations on some pods */
	F_RELEASE = 1 << 6,  /* releasing pods: FutureIdle candidates */
	F_NOMINATE = 1 << 7, /* nominated nodes */
	F_RAW = 1 << 8,      /* preferred terms of three weights, nodes with two soft taints */
	F_ROLES = 1 << 9,    /* roles alternate; only one tolerates taints; one request per role */
	F_TOPO = 1 << 10,    /* task-topology annotations, tdm zones (with F_ROLES, not F_ANNOT) */
	F_IMAGES = 1 << 11,  /* node and pod images, init containers, overhead, host ports */
};

typedef struct mix {
	const char *name;
	const char *plugins; /* the second tier, YAML at four spaces */
	const char *alloc;   /* the allocate action's arguments, or NULL */
	const char *shard;   /* "hard", "soft" or NULL */
	unsigned feat;
	uint32_t nodes, jobs, tasks;
	uint64_t seed;
	bool volcano; /* nodeSampling: volcano */
} mix;

static uint32_t rnd(uint64_t *s, uint32_t n)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)((*s >> 33) % n);
}

static void gen_conf(FILE *f, const mix *m)
{
	fprintf(f, "conf: |\n  actions: \"enqueue, allocate, backfill\"\n");
	if (m->alloc)
		fprintf(f, "  configurations:\n  - name: allocate\n    arguments: {%s}\n",
		        m->alloc);
	fprintf(f,
	        "  tiers:\n  - plugins:\n    - name: priority\n    - name: gang\n"
	        "    - name: conformance\n  - plugins:\n%s",
	        m->plugins);
	fprintf(f, "priorityClasses:\n  - {name: high, value: 1000}\n  - {name: low, value: 10}\n"
	           "queues:\n");
	for (int q = 0; q < 3; q++)
		fprintf(f, "  - {name: q%d, weight: %d}\n", q, q + 1);
}

static void gen_node(FILE *f, const mix *m, uint32_t i)
{
	static const char *const cpu[] = {"16", "32", "64"};
	bool gpu = (m->feat & F_GPU) && i % 5 == 0;
	fprintf(f, "  - {name: n%04u, allocatable: {cpu: '%s', memory: %uGi, pods: '%u'%s},", i,
	        cpu[i % 3], 64u << (i % 2), i % 11 ? 110 : 6, gpu ? ", nvidia.com/gpu: '8'" : "");
	if ((m->feat & F_IMAGES) && i % 3)
		fprintf(f, " images: [{names: [app%u:v1, reg/app%u:v1], sizeBytes: %u}],", i % 5,
		        i % 5, (200u + 100u * (i % 7)) << 20);
	fprintf(
	    f, " labels: {zone: z%u, rack: r%u, kubernetes.io/hostname: n%04u%s}", i % 4, i % 9, i,
	    !(m->feat & F_TOPO) || i % 4 != 1 ? ""
	                                      : (i % 8 == 1 ? ", volcano.sh/revocable-zone: open"
	                                                    : ", volcano.sh/revocable-zone: shut"));
	if ((m->feat & F_RAW) && i % 5 == 1)
		fprintf(f, ", taints: [{key: a, value: x, effect: PreferNoSchedule},"
		           " {key: b, value: y, effect: PreferNoSchedule}]");
	else if ((m->feat & F_TAINTS) && i % 10 == 0)
		fprintf(f, ", taints: [{key: dedicated, value: gpu, effect: NoSchedule}]");
	else if ((m->feat & F_TAINTS) && i % 7 == 3)
		fprintf(f, ", taints: [{key: spot, value: 'yes', effect: PreferNoSchedule}]");
	fprintf(f, "%s}\n", i % 97 == 5 ? ", unschedulable: true" : "");
}

static void gen_cluster(FILE *f, const mix *m)
{
	fprintf(f, "nodes:\n");
	for (uint32_t i = 0; i < m->nodes; i++)
		gen_node(f, m, i);
	if (m->shard) {
		fprintf(f, "shard:\n  name: s\n  mode: %s\n  nodes: [", m->shard);
		for (uint32_t i = 0; i < m->nodes; i += 3)
			fprintf(f, "%sn%04u", i ? ", " : "", i);
		fprintf(f, "]\n");
	}
	fprintf(f, "podGroups:\n  - {name: sys, namespace: kube, queue: q0, minMember: 1,"
	           " phase: Running}\n");
	for (uint32_t j = 0; j < m->jobs; j++)
		fprintf(
		    f,
		    "  - {name: job%03u, namespace: ns%u, queue: q%u, minMember: %u, phase: %s,"
		    " priorityClassName: %s, creationTimestamp: '2026-01-01T00:%02u:%02uZ'%s}\n",
		    j, j % 3, j % 3,
		    j % 3 == 0   ? m->tasks
		    : j % 3 == 1 ? m->tasks / 2
		                 : 1,
		    j % 13 == 0 ? "Pending" : "Inqueue", j % 2 ? "high" : "low", (j / 60) % 60,
		    j % 60,
		    !(m->feat & F_TOPO) || j % 5 == 0 ? ""
		    : j % 5 == 4 ? ", annotations: {volcano.sh/preemptable: 'true'}"
		                 : ", annotations: {volcano.sh/task-topology-affinity: 'even,odd',"
		                   " volcano.sh/task-topology-anti-affinity: 'even',"
		                   " volcano.sh/task-topology-task-order: 'odd,even'}");
	fprintf(f, "pods:\n");
	for (uint32_t i = 0; i < m->nodes; i += 2)
		fprintf(
		    f,
		    "  - {name: sys-%u, namespace: kube, podGroup: sys, phase: Running,"
		    " nodeName: n%04u, requests: {cpu: '%u', memory: 4Gi}%s%s}\n",
		    i, i, 1 + i % 9, (m->feat & F_RELEASE) && i % 6 == 0 ? ", deleting: true" : "",
		    (m->feat & F_IMAGES) && i % 10 == 0 ? ", hostPorts: [{hostPort: 9000}]" : "");
}

/* Scheduling constraints of job j's task k: each kind on a share of the jobs. */
static void gen_constraints(FILE *f, const mix *m, uint32_t j, uint32_t k, uint64_t *seed)
{
	if ((m->feat & F_SELECT) && j % 6 == 1)
		fprintf(f, ", nodeSelector: {zone: z%u}", j % 4);
	if ((m->feat & F_TAINTS) && j % 4 == 2 && (!(m->feat & F_ROLES) || k % 2))
		fprintf(f, ", tolerations: [{key: dedicated, operator: Exists}]");
	if ((m->feat & F_RAW) && j % 2 == 0)
		fprintf(
		    f,
		    ", affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"
		    " [{weight: 10, preference: {matchExpressions: [{key: zone, operator: In,"
		    " values: [z%u]}]}}, {weight: 7, preference: {matchExpressions: [{key: rack,"
		    " operator: In, values: [r1, r2, r%u]}]}}, {weight: 3, preference:"
		    " {matchExpressions: [{key: zone, operator: NotIn, values: [z0]}]}}]}}",
		    j % 4, j % 9);
	if ((m->feat & F_SELECT) && j % 9 == 4)
		fprintf(
		    f, ", affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
		       " {nodeSelectorTerms: [{matchExpressions: [{key: rack, operator: NotIn,"
		       " values: [r1, r2]}]}]}}}");
	else if ((m->feat & F_PREFER) && j % 3 == 0)
		fprintf(
		    f,
		    ", affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"
		    " [{weight: %u, preference: {matchExpressions: [{key: zone, operator: In,"
		    " values: [z%u]}]}}]}}",
		    10 + j % 3, j % 4);
	else if ((m->feat & F_POD) && j % 7 == 5)
		fprintf(
		    f,
		    ", affinity: {podAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"
		    " [{weight: 5, podAffinityTerm: {labelSelector: {matchLabels: {app: a%u}},"
		    " topologyKey: zone}}]}}",
		    j);
	else if ((m->feat & F_POD) && j % 17 == 8)
		fprintf(f,
		        ", affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
		        " [{labelSelector: {matchLabels: {app: a%u}}, topologyKey: zone}]}}",
		        j);
	if ((m->feat & F_POD) && j % 7 == 3)
		fprintf(f,
		        ", topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone,"
		        " whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: "
		        "a%u}}}]",
		        j);
	if ((m->feat & F_ANNOT) && j % 5 == 2 && k % 2)
		fprintf(f,
		        ", annotations: {volcano.sh/resource-strategy-scoring-type: MostAllocated,"
		        " volcano.sh/resource-strategy-weight: '{\"cpu\": 2, \"memory\": 1}'}");
	if ((m->feat & F_IMAGES) && j % 4 == 1)
		fprintf(f, ", images: [app%u:v1, sidecar]", j % 5);
	if ((m->feat & F_IMAGES) && j % 6 == 3)
		fprintf(f,
		        ", initContainers: [{name: init, image: reg/app%u, requests: {cpu: '3'}},"
		        " {name: side, requests: {memory: 1Gi}, restartPolicy: Always}]",
		        j % 5);
	if ((m->feat & F_IMAGES) && j % 7 == 2)
		fprintf(f, ", hostPorts: [{hostPort: %u}]", 9000 + j % 2);
	if ((m->feat & F_IMAGES) && j % 11 == 6)
		fprintf(f, ", overhead: {cpu: 250m, memory: 64Mi}");
	if ((m->feat & F_NOMINATE) && rnd(seed, 30) == 0)
		fprintf(f, ", nominatedNodeName: n%04u", rnd(seed, m->nodes));
	if (m->feat & F_TOPO) /* the name task-topology reads; some may use revocable nodes */
		fprintf(f, ", annotations: {volcano.sh/task-spec: %s%s}", k % 2 ? "odd" : "even",
		        j % 3 == 1 ? ", volcano.sh/revocable-zone: '*'" : "");
}

static void gen_task(FILE *f, const mix *m, uint32_t j, uint32_t k, uint64_t *seed)
{
	static const char *const cpu[] = {"500m", "1", "2", "4", "8"};
	static const char *const mem[] = {"1Gi", "2Gi", "4Gi", "8Gi"};
	/* gpu jobs alternate a gpu role and a cpu role, so the proportional predicate (which a
	 * gpu placement can turn from failing to passing) meets the role's error cache */
	bool gpu = (m->feat & F_GPU) && j % 4 == 3 && k % 2;
	bool alt = (m->feat & F_ROLES) || gpu;
	const char *role = gpu      ? "gpu"
	                   : alt    ? (k % 2 ? "odd" : "even")
	                   : k == 0 ? "master"
	                            : "worker";
	uint32_t shape = alt ? k % 2 : k / 8;
	fprintf(f,
	        "  - {name: job%03u-t-%u, namespace: ns%u, podGroup: job%03u, taskSpec: %s,"
	        " labels: {app: a%u}",
	        j, k, j % 3, j, role, j);
	if (k % 25 != 24)
		fprintf(f, ", requests: {cpu: '%s', memory: %s%s}", cpu[(j + shape) % 5],
		        mem[j % 4], gpu ? ", nvidia.com/gpu: '1'" : "");
	gen_constraints(f, m, j, k, seed);
	fprintf(f, "}\n");
}

static char *generate(const mix *m, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	assert_non_null(f);
	uint64_t seed = m->seed;
	fprintf(f, "name: %s\n%s", m->name, m->volcano ? "nodeSampling: volcano\n" : "");
	gen_conf(f, m);
	gen_cluster(f, m);
	for (uint32_t j = 0; j < m->jobs; j++)
		for (uint32_t k = 0; k < m->tasks; k++)
			gen_task(f, m, j, k, &seed);
	fclose(f);
	return buf;
}

typedef struct world {
	tph_scenario *scn;
	tph_snapshot *snap;
} world;

typedef struct run {
	char *log;
	uint32_t binds;
	uint64_t scored; /* nodes scored (profile) */
	uint64_t parts;  /* nodes scored from split parts (ScoreAnchors' nodes) */
	char *unres;     /* each failed task's UnschedulableAndUnresolvable nodes, as text */
	char *reasons;   /* each failed task's reasons record (count, code pairs), as text */
} run;

static void world_load(world *w, const mix *m)
{
	size_t len;
	char *yaml = generate(m, &len);
	tph_diag d = {0};
	int rc = tph_scenario_load_buffer(yaml, len, m->name, &w->scn, &d);
	if (rc)
		fprintf(stderr, "%s: %s\n", m->name, d.msg);
	assert_int_equal(rc, TPH_OK);
	free(yaml);
	rc = tph_cluster_snapshot(tph_scenario_cluster(w->scn), tph_scenario_now(w->scn), &w->snap,
	                          &d);
	assert_int_equal(rc, TPH_OK);
}

/* Two readings of the fit log as the session ends (it is dropped at close): each failed task's
 * UnschedulableAndUnresolvable nodes, what preempt and reclaim would skip and no decision
 * shows when no eviction follows, into *unres; and its reasons record (count, code pairs),
 * which the readouts print and the fast path counts from its kept columns and the roles'
 * trackers (allocate_fast_none.c), not from a filter's verdicts, into *reasons. */
static void fitlog_texts(const tph_session *s, char **unres, char **reasons)
{
	size_t len[2];
	FILE *fu = open_memstream(unres, &len[0]), *fr = open_memstream(reasons, &len[1]);
	assert_non_null(fu);
	assert_non_null(fr);
	for (tph_idx t = 0; t < s->tasks.n; t++) {
		const tph_idx *x;
		uint32_t n = tph_fitlog_unresolvable(s, t, &x);
		for (uint32_t i = 0; i < n; i++)
			fprintf(fu, "%s%u", i ? " " : "\n", x[i]);
		const uint32_t *pr;
		n = tph_fitlog_pairs(s, t, &pr);
		for (uint32_t i = 0; i < n; i++)
			fprintf(fr, "%s%u:%u", i ? " " : "\n", pr[2 * i], pr[2 * i + 1]);
	}
	fclose(fu);
	fclose(fr);
}

static run decide_capped(const world *w, int threads, bool naive, size_t cache)
{
	tph_diag d = {0};
	tph_session *s;
	/* every run starts Volcano's scans at index 0, not where the last run left it */
	tph_cluster *c = tph_scenario_cluster(w->scn);
	if (c->sampling == TPH_SAMPLING_VOLCANO)
		assert_int_equal(tph_cluster_set_node_sampling(c, TPH_SAMPLING_VOLCANO, NULL),
		                 TPH_OK);
	tph_session_opts o = {
	    .threads = threads, .naive = naive, .profile = true, .shape_cache_bytes = cache};
	int rc = tph_session_open(w->snap, tph_scenario_conf(w->scn), &o, &s, &d);
	if (!rc)
		rc = tph_session_run(s, &d);
	char *unres = NULL, *reasons = NULL;
	if (!rc)
		fitlog_texts(s, &unres, &reasons);
	if (!rc)
		rc = tph_session_close(s, &d);
	if (rc)
		fprintf(stderr, "session: %s\n", d.msg);
	assert_int_equal(rc, TPH_OK);
	run r = {pts_log_text(tph_session_decisions(s)),
	         tph_session_decisions(s)->n_binds,
	         0,
	         0,
	         unres,
	         reasons};
	const tph_profile_row *rows;
	uint32_t n;
	assert_int_equal(tph_session_profile(s, &rows, &n), TPH_OK);
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(rows[i].ep, "NodeOrder"))
			r.scored = rows[i].nodes;
		else if (!strcmp(rows[i].ep, "ScoreAnchors"))
			r.parts = rows[i].nodes;
	tph_session_free(s);
	return r;
}

static run decide(const world *w, int threads, bool naive)
{
	return decide_capped(w, threads, naive, 0);
}

static void same(const mix *m, const char *a, const char *b, const char *what)
{
	if (strcmp(a, b)) {
		size_t i = 0;
		while (a[i] && a[i] == b[i])
			i++;
		size_t from = i > 300 ? i - 300 : 0;
		fprintf(stderr, "%s: %s differ at byte %zu:\n--- a\n%.600s\n--- b\n%.600s\n",
		        m->name, what, i, a + from, b + from);
	}
	assert_string_equal(a, b);
}

/* Fast at 1 and 2 threads against naive; `kept`: the path must have spared most scoring. */
static void check(const mix *m, bool kept)
{
	world w;
	world_load(&w, m);
	run naive = decide(&w, 1, true), fast = decide(&w, 1, false), two = decide(&w, 2, false);
	assert_true(naive.binds > m->jobs);
	same(m, naive.log, fast.log, "naive vs fast");
	same(m, fast.log, two.log, "fast threads=1 vs threads=2");
	same(m, naive.unres, fast.unres, "unresolvable nodes, naive vs fast");
	same(m, fast.unres, two.unres, "unresolvable nodes, fast threads=1 vs threads=2");
	same(m, naive.reasons, fast.reasons, "failed tasks' reasons, naive vs fast");
	same(m, fast.reasons, two.reasons, "failed tasks' reasons, fast threads=1 vs threads=2");
	if (kept && fast.scored * 3 > naive.scored)
		fail_msg("%s: fast scored %llu nodes, naive %llu", m->name,
		         (unsigned long long)fast.scored, (unsigned long long)naive.scored);
	/* A one-byte shape cache keeps one shape at a time: more evaluations, same decisions. */
	run tiny = decide_capped(&w, 1, false, 1);
	same(m, fast.log, tiny.log, "fast vs fast with a one-byte shape cache");
	same(m, fast.unres, tiny.unres, "unresolvable nodes with a one-byte shape cache");
	same(m, fast.reasons, tiny.reasons, "failed tasks' reasons with a one-byte shape cache");
	if (kept && tiny.scored + tiny.parts <= fast.scored + fast.parts)
		fail_msg("%s: the shape cache cap evicted nothing (%llu nodes scored both ways)",
		         m->name, (unsigned long long)(fast.scored + fast.parts));
	free(tiny.log);
	free(naive.log);
	free(fast.log);
	free(two.log);
	free(tiny.unres);
	free(naive.unres);
	free(fast.unres);
	free(two.unres);
	free(tiny.reasons);
	free(naive.reasons);
	free(fast.reasons);
	free(two.reasons);
	tph_snapshot_release(w.snap);
	tph_scenario_free(w.scn);
}

#define DEFAULT_TIER                                                                               \
	"    - name: drf\n    - name: predicates\n    - name: proportion\n    - name: nodeorder\n" \
	"    - name: binpack\n"

static void test_default_conf(void **state)
{
	(void)state;
	const mix m = {
	    "default", DEFAULT_TIER, NULL, NULL, F_TAINTS | F_SELECT | F_RELEASE | F_NOMINATE,
	    500,       90,           24,   3};
	check(&m, true);
}

static void test_nodeorder_all_weights(void **state)
{
	(void)state;
	const mix m = {"nodeorder",
	               "    - name: drf\n    - name: predicates\n    - name: proportion\n"
	               "    - name: nodeorder\n      arguments: {leastrequested.weight: 2,"
	               " mostrequested.weight: 1, nodeaffinity.weight: 3, podaffinity.weight: 2,"
	               " balancedresource.weight: 1, tainttoleration.weight: 3,"
	               " imagelocality.weight: 1, podtopologyspread.weight: 2}\n"
	               "    - name: binpack\n      arguments: {binpack.weight: 2}\n",
	               NULL,
	               NULL,
	               F_TAINTS | F_SELECT | F_PREFER | F_POD | F_RELEASE,
	               400,
	               80,
	               20,
	               5};
	check(&m, false);
}

static void test_resource_strategy_fit(void **state)
{
	(void)state;
	const mix m = {"rsf",
	               "    - name: drf\n    - name: predicates\n    - name: proportion\n"
	               "    - name: resource-strategy-fit\n      arguments:\n"
	               "        resourceStrategyFitWeight: 10\n        resources:\n"
	               "          cpu: {type: MostAllocated, weight: 2}\n"
	               "          memory: {type: LeastAllocated, weight: 1}\n"
	               "          nvidia.com/gpu: {type: MostAllocated, weight: 3}\n"
	               "        sra: {enable: true, resources: nvidia.com/gpu, weight: 4}\n"
	               "        proportional: {enable: true, resources: nvidia.com/gpu,"
	               " resourceProportion: {nvidia.com/gpu.cpu: 2, nvidia.com/gpu.memory: 4}}\n",
	               NULL,
	               NULL,
	               F_GPU | F_ANNOT | F_RELEASE,
	               400,
	               80,
	               20,
	               9};
	check(&m, false);
}

static void test_predicates_mixed(void **state)
{
	(void)state;
	const mix m = {"predicates",
	               DEFAULT_TIER,
	               NULL,
	               NULL,
	               F_TAINTS | F_SELECT | F_PREFER | F_POD | F_NOMINATE,
	               450,
	               90,
	               20,
	               13};
	check(&m, false);
}

static void test_shards_and_no_error_cache(void **state)
{
	(void)state;
	const mix soft = {
	    "soft-shard", DEFAULT_TIER, NULL, "soft", F_TAINTS | F_SELECT | F_PREFER | F_RELEASE,
	    300,          60,           20,   17};
	const mix hard = {"hard-shard", DEFAULT_TIER, NULL, "hard", F_TAINTS | F_SELECT,
	                  300,          60,           20,   19};
	const mix nocache = {"no-cache",
	                     DEFAULT_TIER,
	                     "predicateErrorCacheEnable: false",
	                     NULL,
	                     F_TAINTS | F_SELECT | F_GPU,
	                     300,
	                     60,
	                     20,
	                     23};
	check(&soft, false);
	check(&hard, false);
	check(&nocache, false);
}

/* Scores that read only the request row (no soft taints, no preferred terms): picks read the
 * rows' winners per node type (allocate_fast_type.c), types made by the specs' selectors, the
 * unschedulable nodes and the nodes out of pods; a node leaves its type when it fills up. */
static void test_node_types(void **state)
{
	(void)state;
	const mix m = {"types", DEFAULT_TIER, NULL, NULL, F_SELECT | F_RELEASE | F_NOMINATE,
	               640,     120,          16,   29};
	/* no role's error cache: every pick reads the types alone, the shapes' columns unread */
	const mix light = {"types-no-cache",
	                   DEFAULT_TIER,
	                   "predicateErrorCacheEnable: false",
	                   "hard",
	                   F_SELECT | F_RELEASE | F_NOMINATE | F_IMAGES,
	                   640,
	                   120,
	                   16,
	                   31};
	/* A small cluster filled up under least-requested scores alone: every placement makes its
	 * node worse, so a type's root often stands on a stale leaf; nodes out of pods or ports
	 * leave their types, which empty, and host ports flip verdicts (partitions made again). */
	const mix filled = {"types-filled",
	                    "    - name: drf\n    - name: predicates\n    - name: proportion\n"
	                    "    - name: nodeorder\n",
	                    "predicateErrorCacheEnable: false",
	                    NULL,
	                    F_SELECT | F_RELEASE | F_IMAGES,
	                    160,
	                    120,
	                    16,
	                    43};
	/* The same with the roles' error cache: the trackers follow the rows and specs */
	mix cached = filled;
	cached.name = "types-filled-cache";
	cached.alloc = NULL;
	check(&m, false);
	check(&light, false);
	check(&filled, false);
	check(&cached, false);
}

/* A small cluster filled up: anchors leave their groups, normalisations change, and roles
 * that alternate see nodes fail first for one reason and then for another. */
static void test_filled_cluster(void **state)
{
	(void)state;
	const mix anchored = {"anchored",
	                      "    - name: drf\n    - name: predicates\n    - name: proportion\n"
	                      "    - name: nodeorder\n      arguments: {nodeaffinity.weight: 5,"
	                      " tainttoleration.weight: 4}\n    - name: binpack\n",
	                      NULL,
	                      NULL,
	                      F_RAW | F_RELEASE,
	                      60,
	                      40,
	                      30,
	                      29};
	const mix roles = {"roles", DEFAULT_TIER, NULL, NULL, F_TAINTS | F_SELECT | F_ROLES | F_GPU,
	                   80,      60,           24,   31};
	const mix gpu = {
	    "proportional",
	    "    - name: drf\n    - name: predicates\n    - name: proportion\n"
	    "    - name: binpack\n    - name: resource-strategy-fit\n      arguments:\n"
	    "        proportional: {enable: true, resources: nvidia.com/gpu,"
	    " resourceProportion: {nvidia.com/gpu.cpu: 2, nvidia.com/gpu.memory: 4}}\n",
	    NULL,
	    NULL,
	    F_GPU | F_ROLES,
	    80,
	    60,
	    24,
	    37};
	/* roles whose scores read only their row: their picks read the node types with the roles'
	 * error cache on, so their trackers follow the rows' fits and the specs' verdicts */
	const mix typed = {"roles-typed",
	                   "    - name: drf\n    - name: predicates\n    - name: proportion\n"
	                   "    - name: nodeorder\n",
	                   NULL,
	                   NULL,
	                   F_ROLES | F_GPU,
	                   320,
	                   200,
	                   24,
	                   31};
	check(&anchored, false);
	check(&roles, true);
	check(&gpu, true);
	check(&typed, false);
}

/* task-topology's bucket scores read other placements (GLOBAL), its other tasks score 0
 * (LOCAL); tdm's score reads the task's zone annotation. Without tdm's predicate the fast path
 * runs; with it (a predicate outside the node-local list) filtering is per task. */
static void test_task_topology_and_tdm(void **state)
{
	(void)state;
	const mix scores = {"topology",
	                    DEFAULT_TIER "    - name: task-topology\n"
	                                 "      arguments: {task-topology.weight: 3}\n"
	                                 "    - name: tdm\n      enablePredicate: false\n"
	                                 "      arguments: {tdm.revocable-zone.open: '0:00-0:00',"
	                                 " tdm.revocable-zone.shut: '12:00-13:00'}\n",
	                    NULL,
	                    NULL,
	                    F_TAINTS | F_ROLES | F_TOPO | F_RELEASE,
	                    120,
	                    60,
	                    12,
	                    41};
	const mix filter = {"tdm-predicate",
	                    DEFAULT_TIER "    - name: task-topology\n"
	                                 "    - name: tdm\n      arguments:"
	                                 " {tdm.revocable-zone.open: '0:00-0:00',"
	                                 " tdm.revocable-zone.shut: '12:00-13:00'}\n",
	                    NULL,
	                    NULL,
	                    F_SELECT | F_ROLES | F_TOPO,
	                    120,
	                    60,
	                    12,
	                    43};
	check(&scores, false);
	check(&filter, false);
}

/* ImageLocality (node-local scores), NodePorts (a verdict a placement changes on its node
 * only), init containers and overhead in the requests; then the same under Volcano's node
 * sampling, where every task takes the normal path and the scans' start index moves. */
static void test_images_ports_and_sampling(void **state)
{
	(void)state;
	const mix images = {"images",
	                    "    - name: drf\n    - name: predicates\n    - name: proportion\n"
	                    "    - name: nodeorder\n      arguments: {imagelocality.weight: 5}\n"
	                    "    - name: binpack\n",
	                    NULL,
	                    NULL,
	                    F_TAINTS | F_SELECT | F_IMAGES | F_RELEASE,
	                    300,
	                    70,
	                    16,
	                    47};
	check(&images, true);
	mix sampled = images;
	sampled.name = "sampled";
	sampled.nodes = 420; /* over 100 nodes: 420 * 47% = 197 are enough */
	sampled.volcano = true;
	sampled.seed = 53;
	check(&sampled, false);
}

/* ---- two cases built by hand, each with the node the naive path picks ---- */

#define SMALL_CONF                                                                         \
	"conf: |\n  actions: \"allocate\"\n  tiers:\n  - plugins:\n    - name: priority\n" \
	"    - name: gang\n  - plugins:\n    - name: predicates\n%s"                       \
	"queues:\n  - {name: q}\n"

/* The bind of `pod` in a log made by pts_log_text(). */
static void bound_to(const char *log, const char *pod, const char *node)
{
	char want[128];
	snprintf(want, sizeof want, "bind %s %s\n", pod, node);
	if (!strstr(log, want))
		fail_msg("no \"%s\" in\n%s", want, log);
}

static void check_yaml(const char *name, const char *yaml, const char *pod, const char *node)
{
	world w;
	tph_diag d = {0};
	int rc = tph_scenario_load_buffer(yaml, strlen(yaml), name, &w.scn, &d);
	if (rc)
		fprintf(stderr, "%s: %s\n", name, d.msg);
	assert_int_equal(rc, TPH_OK);
	assert_int_equal(
	    tph_cluster_snapshot(tph_scenario_cluster(w.scn), tph_scenario_now(w.scn), &w.snap, &d),
	    TPH_OK);
	run naive = decide(&w, 1, true), fast = decide(&w, 1, false);
	const mix m = {.name = name};
	same(&m, naive.log, fast.log, "naive vs fast");
	same(&m, naive.unres, fast.unres, "unresolvable nodes, naive vs fast");
	same(&m, naive.reasons, fast.reasons, "failed tasks' reasons, naive vs fast");
	bound_to(naive.log, pod, node);
	free(naive.log);
	free(fast.log);
	free(naive.unres);
	free(fast.unres);
	free(naive.reasons);
	free(fast.reasons);
	tph_snapshot_release(w.snap);
	tph_scenario_free(w.scn);
}

/* Node g fails the proportional predicate for role cpu (too little cpu would stay for its idle
 * gpus); the gpu task takes a gpu and g would pass, but the role's error cache keeps it failed
 * for the rest of the pass: j-t-2 goes to c although binpack prefers g. */
static void test_error_cache_outlives_a_pass(void **state)
{
	(void)state;
	static const char yaml[] =
	    "name: cache\n" SMALL_CONF
	    "nodes:\n  - {name: c, allocatable: {cpu: '64', memory: 64Gi, pods: '110'}}\n"
	    "  - {name: g, allocatable: {cpu: '16', memory: 64Gi, pods: '110', nvidia.com/gpu: "
	    "'2'}}\n"
	    "podGroups:\n  - {name: j, namespace: n, queue: q, minMember: 3, phase: Inqueue}\n"
	    "pods:\n  - {name: j-t-0, namespace: n, podGroup: j, taskSpec: cpu,"
	    " requests: {cpu: '4', memory: 1Gi}}\n"
	    "  - {name: j-t-1, namespace: n, podGroup: j, taskSpec: gpu,"
	    " requests: {cpu: '1', memory: 1Gi, nvidia.com/gpu: '1'}}\n"
	    "  - {name: j-t-2, namespace: n, podGroup: j, taskSpec: cpu,"
	    " requests: {cpu: '4', memory: 1Gi}}\n";
	char buf[2048];
	snprintf(buf, sizeof buf, yaml,
	         "    - name: binpack\n      arguments: {binpack.weight: 10}\n"
	         "    - name: resource-strategy-fit\n      arguments:\n"
	         "        resourceStrategyFitWeight: 0\n"
	         "        proportional: {enable: true, resources: nvidia.com/gpu,"
	         " resourceProportion: {nvidia.com/gpu.cpu: 8}}\n");
	check_yaml("cache", buf, "n/j-t-2", "c");
}

/* Shape s scores group Idle while a is full: raw weights b 5, c 0, d 5 (the anchor); j-t-1
 * lands on d, j fails and a comes back with raw 15. The group must be scored again (b drops
 * from 100 to 33), so k-t-0 goes to a, not to b. */
static void test_unknown_node_joins(void **state)
{
	(void)state;
	static const char yaml[] =
	    "name: joins\n" SMALL_CONF
	    "nodes:\n  - {name: a, allocatable: {cpu: '16', memory: 64Gi, pods: '110'},"
	    " labels: {zone: z1, rack: r1}}\n"
	    "  - {name: b, allocatable: {cpu: '16', memory: 64Gi, pods: '110'},"
	    " labels: {zone: z2, rack: r1}}\n"
	    "  - {name: c, allocatable: {cpu: '16', memory: 64Gi, pods: '110'}, labels: {zone: "
	    "z3}}\n"
	    "  - {name: d, allocatable: {cpu: '16', memory: 64Gi, pods: '110'},"
	    " labels: {zone: z4, rack: r1}}\n"
	    "podGroups:\n  - {name: busy, namespace: n, queue: q, minMember: 1, phase: Running}\n"
	    "  - {name: j, namespace: n, queue: q, minMember: 3, phase: Inqueue,"
	    " creationTimestamp: '2026-01-01T00:00:01Z'}\n"
	    "  - {name: k, namespace: n, queue: q, minMember: 1, phase: Inqueue,"
	    " creationTimestamp: '2026-01-01T00:00:02Z'}\n"
	    "pods:\n  - {name: busy-0, namespace: n, podGroup: busy, phase: Running, nodeName: b,"
	    " requests: {cpu: '4', memory: 1Gi}}\n"
	    "  - {name: busy-1, namespace: n, podGroup: busy, phase: Running, nodeName: d,"
	    " requests: {cpu: '8', memory: 1Gi}}\n"
	    "  - {name: j-t-0, namespace: n, podGroup: j, requests: {cpu: '16', memory: 1Gi},"
	    " nodeSelector: {zone: z1}}\n"
	    "  - {name: j-t-1, namespace: n, podGroup: j, requests: {cpu: '1', memory: 1Gi}%s}\n"
	    "  - {name: j-t-2, namespace: n, podGroup: j, requests: {cpu: '99', memory: 1Gi}}\n"
	    "  - {name: k-t-0, namespace: n, podGroup: k, requests: {cpu: '1', memory: 1Gi}%s}\n";
	const char *pref =
	    ", affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution:"
	    " [{weight: 10, preference: {matchExpressions: [{key: zone, operator: In, values:"
	    " [z1]}]}}, {weight: 5, preference: {matchExpressions: [{key: rack, operator: In,"
	    " values: [r1]}]}}]}}";
	char buf[4096];
	snprintf(buf, sizeof buf, yaml,
	         "    - name: nodeorder\n      arguments: {leastrequested.weight: 0,"
	         " balancedresource.weight: 0}\n    - name: binpack\n",
	         pref, pref);
	check_yaml("joins", buf, "n/k-t-0", "a");
}

/* 32 equal nodes of 4 cpus: gang g's first 32 tasks (3 cpus each) fill them, so the request
 * row fits no node of the one type when its 33rd task asks (the types' tournaments hold no
 * entry), and g is discarded. b-t-0 has the same row: its catch-up must offer every node
 * given back, although the type had no feasible node when last read, and it binds to n00. */
static void test_type_room_returns(void **state)
{
	(void)state;
	char buf[8192];
	size_t at = (size_t)snprintf(buf, sizeof buf, "name: type-room\n" SMALL_CONF "nodes:\n",
	                             "    - name: nodeorder\n");
	for (int i = 0; i < 32; i++)
		at += (size_t)snprintf(
		    buf + at, sizeof buf - at,
		    "  - {name: n%02d, allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n", i);
	at += (size_t)snprintf(
	    buf + at, sizeof buf - at,
	    "podGroups:\n  - {name: g, namespace: n, queue: q, minMember: 33, phase: Inqueue,"
	    " creationTimestamp: '2026-01-01T00:00:01Z'}\n"
	    "  - {name: b, namespace: n, queue: q, minMember: 1, phase: Inqueue,"
	    " creationTimestamp: '2026-01-01T00:00:02Z'}\npods:\n"
	    "  - {name: b-t-0, namespace: n, podGroup: b, requests: {cpu: '3', memory: 1Gi}}\n");
	for (int i = 0; i < 33; i++)
		at += (size_t)snprintf(buf + at, sizeof buf - at,
		                       "  - {name: g-t-%d, namespace: n, podGroup: g,"
		                       " requests: {cpu: '3', memory: 1Gi}}\n",
		                       i);
	assert_true(at < sizeof buf);
	check_yaml("type-room", buf, "n/b-t-0", "n00");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_conf),
	    cmocka_unit_test(test_nodeorder_all_weights),
	    cmocka_unit_test(test_resource_strategy_fit),
	    cmocka_unit_test(test_predicates_mixed),
	    cmocka_unit_test(test_shards_and_no_error_cache),
	    cmocka_unit_test(test_filled_cluster),
	    cmocka_unit_test(test_node_types),
	    cmocka_unit_test(test_task_topology_and_tdm),
	    cmocka_unit_test(test_images_ports_and_sampling),
	    cmocka_unit_test(test_error_cache_outlives_a_pass),
	    cmocka_unit_test(test_unknown_node_joins),
	    cmocka_unit_test(test_type_room_returns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

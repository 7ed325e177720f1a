/* Unit tests for KAI's job solver (kernel/actions/kai/solver*.c) and the statement's evictions
 * (session/kai/kai_stmt.c): the k-search's probe sizes, the victims queue's order (lowest
 * first, one elastic pod at a time; QueueOrder asked with the victims popped so far), a scenario a
 * validator rejects rolled back whole, and victims moved (evicted and pipelined elsewhere) versus
 * killed (left Releasing) versus put back (unevicted: no eviction at all), a moved shared pod's
 * devices and the predicates' pod count through rollback, and a job failing
 * VictimInvariantPrePredicate skipped, and the idle-GPU filter's kept figures against the literal
 * pass. Each scenario is small and written here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai/solver.h"
#include "kai_fixture.h"

/* A scenario with consolidation's preemptee limit `limit` (-1: none). */
static void open_limit(kf *f, int limit, const char *actions, const char *plugins, const char *rest)
{
	char text[8192];
	snprintf(text, sizeof text,
	         "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\n"
	         "schedulerParams: {maxNumberConsolidationPreemptees: %d}\n"
	         "conf: |\n  actions: \"%s\"\n  tiers:\n  - plugins: %s\n%s",
	         limit, actions, plugins, rest);
	kai_load(f, text);
}

static void open_kai(kf *f, const char *actions, const char *plugins, const char *rest)
{
	open_limit(f, -1, actions, plugins, rest);
}

/* The evictions, as "a b c" in the order made. */
static void evictions(const kf *f, char *out, size_t n)
{
	const tph_kai_decision *ev;
	uint32_t m = tph_kai_session_evictions(f->s, &ev);
	out[0] = '\0';
	for (uint32_t i = 0; i < m; i++)
		snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? " " : "",
		         tph_kai_session_view(f->s)->tasks.name[ev[i].task]);
}

#define Q                                                                               \
	"queues: [{name: q, resources: {gpu: {quota: -1, limit: -1}, cpu: {quota: -1, " \
	"limit: -1}, memory: {quota: -1, limit: -1}}}]\n"
#define SOLVER_PLUGINS                                                                       \
	"[{name: priority}, {name: elastic}, {name: nodeavailability}, {name: minruntime}, " \
	"{name: sg-nodelocalgreedy}, {name: sg-multinodegang}]"

/* ---- the k-search ---- */

typedef struct probes {
	uint32_t solvable; /* probes up to this k solve */
	int fail_at;       /* this k returns an error (0: none) */
	uint32_t seen[16], n;
} probes;

static int record_probe(void *ctx, uint32_t k)
{
	probes *p = ctx;
	p->seen[p->n++] = k;
	if ((int)k == p->fail_at)
		return TPH_ENOMEM;
	return k <= p->solvable;
}

/* k = 1, 2, 4, 8 while solved, then the binary search between 4 and 8. */
static void test_search_k(void **state)
{
	(void)state;
	probes p = {.solvable = 5};
	assert_int_equal(tph_kai_search_k(10, record_probe, &p), 5);
	uint32_t want[] = {1, 2, 4, 8, 6, 5};
	assert_int_equal(p.n, 6);
	assert_memory_equal(p.seen, want, sizeof want);
	/* Doubling stops at n; every probe solved: n. */
	p = (probes){.solvable = 99};
	assert_int_equal(tph_kai_search_k(3, record_probe, &p), 3);
	uint32_t all[] = {1, 2, 3};
	assert_int_equal(p.n, 3);
	assert_memory_equal(p.seen, all, sizeof all);
	/* Nothing solves: one probe, 0. An error stops the search and is returned. */
	p = (probes){.solvable = 0};
	assert_int_equal(tph_kai_search_k(4, record_probe, &p), 0);
	assert_int_equal(p.n, 1);
	p = (probes){.solvable = 99, .fail_at = 2};
	assert_int_equal(tph_kai_search_k(4, record_probe, &p), TPH_ENOMEM);
}

/* ---- the statement's evictions ---- */

#define TWO_NODES                                                                          \
	Q "nodes:\n"                                                                       \
	  "  - {name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"2\"}}\n" \
	  "  - {name: n1, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"2\"}}\n"

/* Evict, then pipeline elsewhere: a move (one eviction, one pipelined); pipelined back onto its
 * own node: an unevict (nothing recorded); a rollback restores status and ledger exactly. */
static void test_stmt_evict(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[]",
	         TWO_NODES "podGroups: [{name: a, queue: q}, {name: b, queue: q}]\n"
	                   "pods:\n"
	                   "  - {name: a-0, podGroup: a, status: Running, nodeName: n0, requests: "
	                   "{nvidia.com/gpu: 1}}\n"
	                   "  - {name: b-0, podGroup: b, status: Running, nodeName: n0, requests: "
	                   "{nvidia.com/gpu: 1}}\n");
	tph_kai_session *s = f.s;
	uint32_t a = task_of(&f, "a-0"), b = task_of(&f, "b-0");
	double idle0 = s->idle[TPH_KAI_GPU], rel0 = s->releasing[TPH_KAI_GPU];
	assert_int_equal(tph_kai_stmt_evict(s, a), 0);
	assert_int_equal(s->status[a], TPH_KAI_TS_RELEASING);
	assert_true(s->releasing[TPH_KAI_GPU] == rel0 + 1);
	assert_int_equal(tph_kai_stmt_pipeline(s, a, 1), 0); /* moved to n1 */
	assert_int_equal(tph_kai_stmt_evict(s, b), 0);
	assert_int_equal(tph_kai_stmt_pipeline(s, b, 0), 0); /* back on n0: unevicted */
	assert_int_equal(s->status[b], TPH_KAI_TS_RUNNING);
	uint32_t cp = tph_kai_stmt_checkpoint(s);
	assert_int_equal(tph_kai_stmt_evict(s, b), 0);
	tph_kai_stmt_rollback(s, cp);
	assert_int_equal(s->status[b], TPH_KAI_TS_RUNNING);
	assert_true(s->idle[TPH_KAI_GPU] == idle0 && s->releasing[TPH_KAI_GPU] == rel0 + 1);
	s->action = "test";
	assert_int_equal(tph_kai_stmt_commit(s), 0);
	char ev[64];
	evictions(&f, ev, sizeof ev);
	assert_string_equal(ev, "a-0");
	const tph_kai_decision *pl;
	assert_int_equal(tph_kai_session_pipelined(s, &pl), 1);
	assert_int_equal(pl[0].task, a);
	assert_int_equal(pl[0].node, 1);
	assert_false(s->virt[a] || s->virt[b]);
	close_kai(&f);
}

/* One GPU to free on n0, held by two lower-priority jobs. */
#define LOWEST_FIRST                                                                            \
	Q "nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"2\"}}]\n" \
	  "podGroups:\n"                                                                        \
	  "  - {name: lo, queue: q, priority: 10}\n"                                            \
	  "  - {name: mid, queue: q, priority: 50}\n"                                           \
	  "  - {name: hi, queue: q, priority: 100}\n"                                           \
	  "pods:\n"                                                                             \
	  "  - {name: mid-0, podGroup: mid, status: Running, nodeName: n0, requests: "          \
	  "{nvidia.com/gpu: 1}}\n"                                                              \
	  "  - {name: lo-0, podGroup: lo, status: Running, nodeName: n0, requests: "            \
	  "{nvidia.com/gpu: 1}}\n"                                                              \
	  "  - {name: hi-0, podGroup: hi, status: Pending, requests: {nvidia.com/gpu: 1}}\n"

/* ---- the statement: a moved shared pod's devices, the predicates' pod count ---- */

#define SHARED_NODES                                                                       \
	Q "nodes:\n"                                                                       \
	  "  - {name: n0, labels: {nvidia.com/gpu.memory: \"40000\"}, allocatable: {cpu: " \
	  "\"8\", memory: 8G, nvidia.com/gpu: \"2\"}}\n"                                   \
	  "  - {name: n1, labels: {nvidia.com/gpu.memory: \"40000\"}, allocatable: {cpu: " \
	  "\"8\", memory: 8G, nvidia.com/gpu: \"2\"}}\n"

/* A two-device fractional pod evicted keeps its devices (Releasing there); pipelined onto n1 it
 * takes two of n1's devices; a rollback puts back its device list, its node and every ledger
 * figure (node vectors and per-device memory) exactly. */
static void test_stmt_move_shared(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[]",
	         SHARED_NODES "podGroups: [{name: a, queue: q}]\n"
	                      "pods:\n"
	                      "  - {name: a-0, podGroup: a, status: Running, nodeName: n0, "
	                      "annotations: {gpu-fraction: \"0.5\", gpu-fraction-num-devices: "
	                      "\"2\"}, gpuGroups: [g0, g1]}\n");
	tph_kai_session *s = f.s;
	uint32_t a = task_of(&f, "a-0"), nd = s->dev_first[2];
	const int32_t *devs;
	assert_int_equal(tph_kai_task_devices(s, a, &devs), 2);
	int32_t was[2] = {devs[0], devs[1]};
	double idle[2 * TPH_KAI_DIMS], rel[2 * TPH_KAI_DIMS];
	int64_t used[16], alloc[16], dev_rel[16];
	assert_true(nd <= 16);
	memcpy(idle, s->idle, sizeof idle);
	memcpy(rel, s->releasing, sizeof rel);
	memcpy(used, s->dev_used, nd * sizeof *used);
	memcpy(alloc, s->dev_alloc, nd * sizeof *alloc);
	memcpy(dev_rel, s->dev_rel, nd * sizeof *dev_rel);
	uint32_t cp = tph_kai_stmt_checkpoint(s);
	assert_int_equal(tph_kai_stmt_evict(s, a), 0);
	assert_int_equal(tph_kai_task_devices(s, a, &devs), 2);
	assert_memory_equal(devs, was, sizeof was);
	assert_int_equal(tph_kai_stmt_pipeline(s, a, 1), 0);
	assert_int_equal(s->node[a], 1);
	assert_int_equal(tph_kai_task_devices(s, a, &devs), 2);
	for (int i = 0; i < 2; i++)
		assert_true((uint32_t)devs[i] >= s->dev_first[1] && (uint32_t)devs[i] < nd);
	tph_kai_stmt_rollback(s, cp);
	assert_int_equal(s->node[a], 0);
	assert_int_equal(s->status[a], TPH_KAI_TS_RUNNING);
	assert_false(s->virt[a]);
	assert_int_equal(tph_kai_task_devices(s, a, &devs), 2);
	assert_memory_equal(devs, was, sizeof was);
	assert_memory_equal(s->idle, idle, sizeof idle);
	assert_memory_equal(s->releasing, rel, sizeof rel);
	assert_memory_equal(s->dev_used, used, nd * sizeof *used);
	assert_memory_equal(s->dev_alloc, alloc, nd * sizeof *alloc);
	assert_memory_equal(s->dev_rel, dev_rel, nd * sizeof *dev_rel);
	assert_int_equal(s->n_op_devs, 0);
	close_kai(&f);
}

/* A node with room for two pods holding two: an eviction gives one back (the Predicate passes
 * for a third pod), its rollback and an unevict take it again. */
static void test_stmt_pod_count(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "allocate", "[{name: predicates}]",
	         Q "nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: "
	           "\"2\", pods: \"2\"}}]\n"
	           "podGroups: [{name: a, queue: q}, {name: p, queue: q}]\n"
	           "pods:\n"
	           "  - {name: a-0, podGroup: a, status: Running, nodeName: n0, requests: "
	           "{nvidia.com/gpu: 1}}\n"
	           "  - {name: a-1, podGroup: a, status: Running, nodeName: n0, requests: "
	           "{nvidia.com/gpu: 1}}\n"
	           "  - {name: p-0, podGroup: p, status: Pending, requests: {cpu: \"1\"}}\n");
	tph_kai_session *s = f.s;
	uint32_t a = task_of(&f, "a-0"), p = task_of(&f, "p-0");
	assert_false(tph_kai_predicate(s, p, 0));
	uint32_t cp = tph_kai_stmt_checkpoint(s);
	assert_int_equal(tph_kai_stmt_evict(s, a), 0);
	assert_true(tph_kai_predicate(s, p, 0));
	tph_kai_stmt_rollback(s, cp);
	assert_false(tph_kai_predicate(s, p, 0));
	assert_int_equal(tph_kai_stmt_evict(s, a), 0);
	assert_int_equal(tph_kai_stmt_pipeline(s, a, 0), 0); /* back in place: unevicted */
	assert_int_equal(s->status[a], TPH_KAI_TS_RUNNING);
	assert_false(tph_kai_predicate(s, p, 0));
	tph_kai_stmt_rollback(s, cp);
	assert_false(tph_kai_predicate(s, p, 0));
	close_kai(&f);
}

/* ---- VictimInvariantPrePredicate ---- */

typedef struct invariant {
	uint32_t task, asked;
} invariant;

static bool fails_one(void *state, const tph_kai_session *s, uint32_t task)
{
	invariant *iv = state;
	(void)s;
	iv->asked++;
	return task == iv->task;
}

/* test_lowest_first's preemption, with hi-0 failing VictimInvariantPrePredicate: preempt skips
 * the job, so nobody is evicted and hi-0 stays pending. */
static void test_victim_invariant_skips(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "preempt", SOLVER_PLUGINS, LOWEST_FIRST);
	invariant iv = {task_of(&f, "hi-0"), 0};
	f.s->frozen = false; /* a test registers after open */
	assert_int_equal(tph_kai_add_victim_invariant(f.s, fails_one, &iv), 0);
	f.s->frozen = true;
	run_ok(&f);
	char ev[64];
	evictions(&f, ev, sizeof ev);
	assert_string_equal(ev, "");
	assert_int_equal(status_of(&f, "hi-0"), TPH_KAI_TS_PENDING);
	assert_int_equal(status_of(&f, "lo-0"), TPH_KAI_TS_RUNNING);
	assert_true(iv.asked > 0);
	close_kai(&f);
}

/* ---- preempt: the victims queue ---- */

/* One GPU to free, two lower-priority victims: the lowest priority goes (the victims queue is
 * the job order reversed), the other keeps running; the preemptor is pipelined there. */
static void test_lowest_first(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "preempt", SOLVER_PLUGINS, LOWEST_FIRST);
	run_ok(&f);
	char ev[64];
	evictions(&f, ev, sizeof ev);
	assert_string_equal(ev, "lo-0");
	assert_int_equal(status_of(&f, "mid-0"), TPH_KAI_TS_RUNNING);
	assert_int_equal(status_of(&f, "hi-0"), TPH_KAI_TS_PIPELINED);
	assert_string_equal(node_of(&f, "hi-0"), "n0");
	const tph_kai_decision *d;
	assert_int_equal(tph_kai_session_evictions(f.s, &d), 1);
	assert_string_equal(d[0].action, "preempt");
	close_kai(&f);
}

/* An elastic victim (min 1 of 3) gives one pod per pop: freeing one GPU costs it one pod. */
static void test_elastic_one_pod(void **state)
{
	(void)state;
	kf f;
	open_kai(
	    &f, "preempt", SOLVER_PLUGINS,
	    Q "nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"3\"}}]\n"
	      "podGroups:\n"
	      "  - {name: e, queue: q, priority: 50, minMember: 1}\n"
	      "  - {name: hi, queue: q, priority: 100}\n"
	      "pods:\n"
	      "  - {name: e-0, podGroup: e, status: Running, nodeName: n0, requests: "
	      "{nvidia.com/gpu: 1}}\n"
	      "  - {name: e-1, podGroup: e, status: Running, nodeName: n0, requests: "
	      "{nvidia.com/gpu: 1}}\n"
	      "  - {name: e-2, podGroup: e, status: Running, nodeName: n0, requests: "
	      "{nvidia.com/gpu: 1}}\n"
	      "  - {name: hi-0, podGroup: hi, status: Pending, requests: {nvidia.com/gpu: 1}}\n");
	run_ok(&f);
	const tph_kai_decision *ev;
	assert_int_equal(tph_kai_session_evictions(f.s, &ev), 1);
	assert_int_equal(status_of(&f, "hi-0"), TPH_KAI_TS_PIPELINED);
	uint32_t running = 0;
	for (int i = 0; i < 3; i++) {
		char name[8];
		snprintf(name, sizeof name, "e-%d", i);
		running += status_of(&f, name) == TPH_KAI_TS_RUNNING;
	}
	assert_int_equal(running, 2);
	close_kai(&f);
}

/* ---- a validator's veto ---- */

typedef struct spy {
	const kf *f;
	uint32_t calls;
	bool applied; /* every call saw the victim Releasing and the preemptor Pipelined */
} spy;

static bool refuse(void *st, const tph_kai_session *s, const tph_kai_scenario *sc)
{
	spy *p = st;
	p->calls++;
	p->applied = (p->calls == 1 || p->applied) &&
	             tph_kai_session_status(s)[task_of(p->f, "lo-0")] == TPH_KAI_TS_RELEASING &&
	             tph_kai_session_status(s)[task_of(p->f, "hi-0")] == TPH_KAI_TS_PIPELINED &&
	             sc->n_victims == 1;
	return false;
}

/* Every scenario refused: nothing is decided and the ledger is as it was; the validator saw
 * each scenario applied in the statement. */
static void test_validator_rolls_back(void **state)
{
	(void)state;
	kf f;
	open_kai(
	    &f, "preempt", SOLVER_PLUGINS,
	    Q "nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"1\"}}]\n"
	      "podGroups: [{name: lo, queue: q, priority: 10}, {name: hi, queue: q, priority: "
	      "100}]\n"
	      "pods:\n"
	      "  - {name: lo-0, podGroup: lo, status: Running, nodeName: n0, requests: "
	      "{nvidia.com/gpu: 1}}\n"
	      "  - {name: hi-0, podGroup: hi, status: Pending, requests: {nvidia.com/gpu: 1}}\n");
	spy p = {.f = &f};
	f.s->frozen = false; /* register as a plugin would at open */
	assert_int_equal(tph_kai_add_scenario_validator(f.s, TPH_KAI_PREEMPT, refuse, &p), 0);
	f.s->frozen = true;
	double idle[TPH_KAI_DIMS], rel[TPH_KAI_DIMS];
	memcpy(idle, tph_kai_session_idle(f.s), sizeof idle);
	memcpy(rel, tph_kai_session_releasing(f.s), sizeof rel);
	run_ok(&f);
	assert_true(p.calls > 0);
	assert_true(p.applied);
	const tph_kai_decision *d;
	assert_int_equal(tph_kai_session_evictions(f.s, &d), 0);
	assert_int_equal(tph_kai_session_pipelined(f.s, &d), 0);
	assert_int_equal(status_of(&f, "lo-0"), TPH_KAI_TS_RUNNING);
	assert_int_equal(status_of(&f, "hi-0"), TPH_KAI_TS_PENDING);
	assert_memory_equal(tph_kai_session_idle(f.s), idle, sizeof idle);
	assert_memory_equal(tph_kai_session_releasing(f.s), rel, sizeof rel);
	close_kai(&f);
}

/* ---- consolidation: moved, not killed ---- */

/* a and b hold one GPU each on n0 and n1; p needs two on one node. */
#define SPLIT_PAIR                                                                                \
	"podGroups:\n"                                                                            \
	"  - {name: a, queue: q, priority: 50}\n"                                                 \
	"  - {name: b, queue: q, priority: 50}\n"                                                 \
	"  - {name: p, queue: q, priority: 50}\n"                                                 \
	"pods:\n"                                                                                 \
	"  - {name: a-0, podGroup: a, status: Running, nodeName: n0, requests: {nvidia.com/gpu: " \
	"1}}\n"                                                                                   \
	"  - {name: b-0, podGroup: b, status: Running, nodeName: n1, requests: {nvidia.com/gpu: " \
	"1}}\n"                                                                                   \
	"  - {name: p-0, podGroup: p, status: Pending, requests: {nvidia.com/gpu: 2}}\n"

/* A 2-GPU pod fits no node while a and b hold one GPU each on n0 and n1: consolidation moves b
 * next to a (evicted and pipelined, nobody killed) and pipelines the pending pod on n1. */
static void test_consolidation_moves(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "consolidation", SOLVER_PLUGINS, TWO_NODES SPLIT_PAIR);
	run_ok(&f);
	char ev[64];
	evictions(&f, ev, sizeof ev);
	uint8_t sa = status_of(&f, "a-0"), sb = status_of(&f, "b-0");
	/* One of the two moved onto the other's node; neither is left Releasing. */
	assert_true(strcmp(ev, "a-0") == 0 || strcmp(ev, "b-0") == 0);
	assert_true(sa != TPH_KAI_TS_RELEASING && sb != TPH_KAI_TS_RELEASING);
	assert_string_equal(node_of(&f, "a-0"), node_of(&f, "b-0"));
	assert_int_equal(status_of(&f, "p-0"), TPH_KAI_TS_PIPELINED);
	assert_string_not_equal(node_of(&f, "p-0"), node_of(&f, "a-0"));
	close_kai(&f);
}

/* maxConsolidationPreemptees 0 turns consolidation off. */
static void test_consolidation_off(void **state)
{
	(void)state;
	kf f;
	open_limit(&f, 0, "consolidation", SOLVER_PLUGINS, TWO_NODES SPLIT_PAIR);
	run_ok(&f);
	const tph_kai_decision *d;
	assert_int_equal(tph_kai_session_evictions(f.s, &d), 0);
	assert_int_equal(status_of(&f, "p-0"), TPH_KAI_TS_PENDING);
	close_kai(&f);
}

/* ---- reclaim: proportion's points ---- */

#define TWO_QUEUES(q1_running)                                                                \
	"queues:\n"                                                                           \
	"  - {name: q1, resources: {gpu: {quota: 1, limit: -1, overQuotaWeight: 1}, cpu: "    \
	"{quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}\n"                          \
	"  - {name: q2, resources: {gpu: {quota: 1, limit: -1, overQuotaWeight: 1}, cpu: "    \
	"{quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}\n"                          \
	"nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"3\"}}]\n" \
	"podGroups:\n"                                                                        \
	"  - {name: e, queue: q2, priority: 50, minMember: 1}\n"                              \
	"  - {name: r, queue: q1, priority: 50}\n"                                            \
	"  - {name: p, queue: q1, priority: 50}\n"                                            \
	"pods:\n"                                                                             \
	"  - {name: e-0, podGroup: e, status: Running, nodeName: n0, requests: "              \
	"{nvidia.com/gpu: 1}}\n"                                                              \
	"  - {name: e-1, podGroup: e, status: Running, nodeName: n0, requests: "              \
	"{nvidia.com/gpu: 1}}\n" q1_running                                                   \
	"  - {name: p-0, podGroup: p, status: Pending, requests: {nvidia.com/gpu: 1}}\n"
#define PROPORTION                                                                           \
	"[{name: proportion}, {name: priority}, {name: elastic}, {name: nodeavailability}, " \
	"{name: sg-nodelocalgreedy}, {name: sg-multinodegang}]"

/* q2 holds two GPUs of three with a quota of one; q1, under its share, reclaims one of them
 * (one pod of q2's elastic job). */
static void test_reclaim_under_share(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "reclaim", PROPORTION,
	         TWO_QUEUES("  - {name: r-0, podGroup: r, status: Running, nodeName: n0, requests: "
	                    "{nvidia.com/gpu: 1}}\n"));
	run_ok(&f);
	const tph_kai_decision *d;
	assert_int_equal(tph_kai_session_evictions(f.s, &d), 1);
	assert_string_equal(d[0].action, "reclaim");
	assert_int_equal(tph_kai_session_view(f.s)->tasks.job[d[0].task], 0); /* e's pod */
	assert_int_equal(status_of(&f, "p-0"), TPH_KAI_TS_PIPELINED);
	close_kai(&f);
}

/* Without the proportion plugin nothing registers CanReclaimResources: KAI's answer is no. */
static void test_reclaim_needs_proportion(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "reclaim", SOLVER_PLUGINS,
	         TWO_QUEUES("  - {name: r-0, podGroup: r, status: Running, nodeName: n0, requests: "
	                    "{nvidia.com/gpu: 1}}\n"));
	run_ok(&f);
	const tph_kai_decision *d;
	assert_int_equal(tph_kai_session_evictions(f.s, &d), 0);
	assert_int_equal(status_of(&f, "p-0"), TPH_KAI_TS_PENDING);
	close_kai(&f);
}

/* ---- reclaim: the victims queue asks QueueOrder with the victims popped so far ---- */

#define QUOTA(name, gpus, weight)                             \
	"  - {name: " name ", resources: {gpu: {quota: " gpus \
	", limit: -1, overQuotaWeight: " weight               \
	"}, cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}}\n"
#define RUN1(job, queue, prio) "  - {name: " job ", queue: " queue ", priority: " prio "}\n"
#define POD1(job)                                                                  \
	"  - {name: " job "-0, podGroup: " job ", status: Running, nodeName: n0, " \
	"requests: {nvidia.com/gpu: 1}}\n"

/* qa and qb hold two GPUs each over a quota of one. The victims queue pops qb's lowest job
 * first (equal queues: the later created gives back first); then qb's popped job and its next
 * leave it at no share while qa's next leaves it at its quota, so qa gives next (KAI's
 * getVictimsForQueue; with the next victim alone the queues would tie and qb give again). */
static void test_victims_queue_counts_popped(void **state)
{
	(void)state;
	kf f;
	open_kai(&f, "reclaim", PROPORTION,
	         "queues:\n" QUOTA("qa", "1", "1") QUOTA("qb", "1", "1") QUOTA(
	             "qr", "2",
	             "0") "nodes: [{name: n0, allocatable: {cpu: \"8\", memory: 8G, "
	                  "nvidia.com/gpu: \"4\"}}]\n"
	                  "podGroups:\n" RUN1("a1", "qa", "50") RUN1("a0", "qa", "49")
	                      RUN1("b1", "qb", "50") RUN1(
	                          "b0", "qb",
	                          "49") "  - {name: r, queue: qr, priority: 50, minMember: 2}\n"
	                                "pods:\n" POD1("a1") POD1("a0") POD1("b1")
	                                    POD1("b0") "  - {name: r-0, podGroup: r, status: "
	                                               "Pending, requests: {nvidia.com/gpu: 1}}\n"
	                                               "  - {name: r-1, podGroup: r, status: "
	                                               "Pending, requests: {nvidia.com/gpu: 1}}\n");
	tph_kai_solver sv;
	assert_int_equal(tph_kai_solver_init(&sv, f.s, (tph_kai_solver_rules){0}), 0);
	const tph_kai_view *v = tph_kai_session_view(f.s);
	for (uint32_t j = 0; j < v->jobs.n; j++)
		sv.cand[j] = strcmp(v->jobs.name[j], "r") != 0;
	tph_kai_victims_reset(&sv);
	char order[64] = "";
	for (int32_t j; (j = tph_kai_jobq_pop(&sv, sv.vq_in, NULL, true)) >= 0;)
		snprintf(order + strlen(order), sizeof order - strlen(order), "%s%s",
		         *order ? " " : "", v->jobs.name[j]);
	assert_string_equal(order, "b0 a0 b1 a1");
	tph_kai_solver_free(&sv);
	close_kai(&f);
}

/* ---- the idle-GPU filter kept over a generator run ---- */

#define GPU_NODE(name, gpus)                                                                 \
	"  - {name: " name ", allocatable: {cpu: \"8\", memory: 8G, nvidia.com/gpu: \"" gpus \
	"\"}}\n"
#define RUN_POD(job, node, gpus)                                                         \
	"  - {name: " job "-0, podGroup: " job ", status: Running, nodeName: " node ", " \
	"requests: {nvidia.com/gpu: " gpus "}}\n"

/* The kept capacities equal free GPUs plus the victims' there summed afresh, and the kept
 * roomiest nodes and verdict equal the literal pass's (naive mode), after each accumulated
 * victim and after the ledger changed a node between two accumulations, up (an eviction) and
 * down (its rollback, which asks for a new selection). */
static void check_idle(kf *f, tph_kai_solver *sv)
{
	tph_kai_session *s = f->s;
	bool kept = tph_kai_idle_gpus_fit(sv);
	uint32_t nn = tph_kai_session_view(s)->nodes.n, n_top = sv->idle.n_top, top[8];
	for (uint32_t n = 0; n < nn; n++) {
		double want = tph_kai_free_gpus(s, n);
		for (uint32_t i = 0; i < sv->n_pot; i++)
			if (s->node[sv->pot[i]] == (int32_t)n)
				want += tph_kai_accepted_gpus(s, sv->pot[i]);
		assert_true(sv->idle.cap[n] == want);
	}
	assert_true(n_top <= 8);
	memcpy(top, sv->idle.top, n_top * sizeof *top);
	tph_kai_session_set_naive(s, true);
	assert_int_equal(tph_kai_idle_gpus_fit(sv), kept);
	tph_kai_session_set_naive(s, false);
	for (uint32_t i = 0; i < n_top; i++)
		assert_int_equal(top[i], sv->tmp[i]);
}

static void test_idle_gpus_kept(void **state)
{
	(void)state;
	kf f;
	open_kai(
	    &f, "reclaim", SOLVER_PLUGINS,
	    Q "nodes:\n" GPU_NODE("n0", "4") GPU_NODE("n1", "4") GPU_NODE("n2", "4") GPU_NODE(
	        "n3", "2") "podGroups:\n"
	                   "  - {name: v0, queue: q, priority: 10}\n"
	                   "  - {name: v1, queue: q, priority: 11}\n"
	                   "  - {name: v2, queue: q, priority: 12}\n"
	                   "  - {name: v3, queue: q, priority: 13}\n"
	                   "  - {name: r, queue: q, priority: 50, minMember: 2}\n"
	                   "pods:\n" RUN_POD("v0", "n0", "2") RUN_POD("v1", "n1", "3")
	                       RUN_POD("v2", "n2", "1") RUN_POD(
	                           "v3", "n0", "2") "  - {name: r-0, podGroup: r, status: Pending, "
	                                            "requests: {nvidia.com/gpu: 3}}\n"
	                                            "  - {name: r-1, podGroup: r, status: Pending, "
	                                            "requests: {nvidia.com/gpu: 3}}\n");
	tph_kai_session *s = f.s;
	tph_kai_solver sv;
	assert_int_equal(tph_kai_solver_init(&sv, s, (tph_kai_solver_rules){0}), 0);
	const tph_kai_view *v = tph_kai_session_view(s);
	uint32_t r = job_of(&f, "r");
	for (uint32_t j = 0; j < v->jobs.n; j++)
		sv.cand[j] = j != r;
	sv.job = r;
	sv.tasks[0] = task_of(&f, "r-0");
	sv.tasks[1] = task_of(&f, "r-1");
	sv.k = 2;
	tph_kai_victims_reset(&sv);
	uint32_t cp = tph_kai_stmt_checkpoint(s), pops = 0;
	check_idle(&f, &sv);
	for (int rc; (rc = tph_kai_victims_next(&sv)) >= 0; pops++) {
		check_idle(&f, &sv);
		if (pops == 0) {
			assert_int_equal(tph_kai_stmt_evict(s, task_of(&f, "v1-0")), 0);
			check_idle(&f, &sv);
		} else if (pops == 1) {
			tph_kai_stmt_rollback(s, cp);
			check_idle(&f, &sv);
		}
	}
	assert_int_equal(pops, 4);
	assert_true(tph_kai_idle_gpus_fit(&sv)); /* n0 with v0 and v3, n1 with v1 */
	tph_kai_solver_free(&sv);
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_search_k),
	    cmocka_unit_test(test_stmt_evict),
	    cmocka_unit_test(test_stmt_move_shared),
	    cmocka_unit_test(test_stmt_pod_count),
	    cmocka_unit_test(test_victim_invariant_skips),
	    cmocka_unit_test(test_lowest_first),
	    cmocka_unit_test(test_elastic_one_pod),
	    cmocka_unit_test(test_validator_rolls_back),
	    cmocka_unit_test(test_consolidation_moves),
	    cmocka_unit_test(test_consolidation_off),
	    cmocka_unit_test(test_reclaim_under_share),
	    cmocka_unit_test(test_reclaim_needs_proportion),
	    cmocka_unit_test(test_victims_queue_counts_popped),
	    cmocka_unit_test(test_idle_gpus_kept),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

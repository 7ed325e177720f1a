/* Unit tests for extension points (kernel/src/session/ep.c, ep_dispatch.c, ep_score.c): a session
 * is built by hand, spy plugins register callbacks whose answers come from their state, and each
 * combination rule of Volcano's session_plugins.go is checked from a table. Filtering and
 * scoring are checked against naive loops and for identical results at 1..8 threads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/ep.h"
#include "base/mem.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define MAXP       8
#define NDIM       5

/* ---- fixture: a session with MAXP plugin instances and small stores ---- */

typedef struct spy {
	int id;
	int cmp;                /* order answer */
	int vote;               /* vote answer */
	bool pred;              /* bool answer */
	int decide;             /* victims: 0 abstains */
	const char *keep;       /* victims: '1' per kept candidate */
	int fail;               /* status to return (events, sims, job valid) */
	tph_reason_code reason; /* predicate verdict for rejected nodes */
	uint32_t reject_mod;    /* predicate: reject nodes with node % reject_mod == reject_rem */
	uint32_t reject_rem;
	double weight; /* scores */
	tph_idx best;  /* best node answer */
	int locality;  /* score locality answer */
	uint32_t n_anchor;
	tph_idx anchor[TPH_SCORE_MAX_ANCHORS + 1];
	uint32_t n_norm; /* normalisation values */
	int64_t norm[TPH_SCORE_MAX_ANCHORS + 1];
	bool splits;      /* split answer: row part = node, spec part = norm[0] */
	bool batch_fails; /* cb_batch_fails: the call fails (tph_score_fail) */
} spy;

typedef struct fx {
	tph_session s;
	tph_snapshot snap;
	tph_strtab strs;
	tph_plugin_inst pl[MAXP];
	spy sp[MAXP];
	tph_job_store jobs;
	tph_queue_store queues;
	tph_job_meta meta_sub;
	tph_subgroup_row subgroup;
	void *mem[32];
	int n_mem;
} fx;

static int calls[256];
static int n_calls;

static void log_call(int v)
{
	if (n_calls < (int)N_ELEMS(calls))
		calls[n_calls++] = v;
}

static void *fx_alloc(fx *f, size_t n)
{
	void *p = calloc(1, n ? n : 1);
	assert_non_null(p);
	f->mem[f->n_mem++] = p;
	return p;
}

static tph_sid intern(fx *f, const char *s)
{
	return tph_strtab_intern_cstr(&f->strs, s);
}

static const char *const dim_names[NDIM] = {"cpu", "memory", "pods", "ephemeral-storage",
                                            "nvidia.com/gpu"};

/* n_plugins instances in the given tiers, every flag on; n_nodes nodes, n_tasks tasks, three
 * jobs and three queues. */
static fx *fx_new(uint32_t n_plugins, const uint16_t *tiers, uint32_t n_nodes, uint32_t n_tasks)
{
	fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	assert_int_equal(tph_strtab_init(&f->strs), TPH_OK);
	f->snap.strs = &f->strs;
	f->snap.dims.n = NDIM;
	for (uint32_t d = 0; d < NDIM; d++)
		f->snap.dims.name[d] = intern(f, dim_names[d]);
	tph_session *s = &f->s;
	assert_int_equal(tph_arena_init(&s->arena, 0), TPH_OK);
	s->snap = &f->snap;
	s->ndim = NDIM;
	s->threads = 1;
	s->cur_plugin = -1;
	s->plugins = f->pl;
	s->n_plugins = n_plugins;
	for (uint32_t i = 0; i < n_plugins; i++) {
		f->pl[i].tier = tiers ? tiers[i] : 0;
		f->pl[i].st = &f->sp[i];
		memset(f->pl[i].flags, 1, sizeof f->pl[i].flags);
		f->sp[i].id = (int)i;
		f->sp[i].best = TPH_NOIDX;
	}
	tph_node_store *ns = &s->nodes;
	ns->n = n_nodes;
	ns->stride = n_nodes + 3; /* not n, to catch [d * stride + i] mistakes */
	ns->idle = fx_alloc(f, sizeof(int64_t) * NDIM * ns->stride);
	ns->releasing = fx_alloc(f, sizeof(int64_t) * NDIM * ns->stride);
	ns->pipelined = fx_alloc(f, sizeof(int64_t) * NDIM * ns->stride);
	tph_task_store *ts = &s->tasks;
	ts->n = n_tasks;
	ts->req = fx_alloc(f, sizeof(int64_t) * NDIM * (n_tasks + 1));
	ts->name = fx_alloc(f, sizeof(tph_sid) * (n_tasks + 1));
	ts->uid = fx_alloc(f, sizeof(tph_sid) * (n_tasks + 1));
	ts->creation = fx_alloc(f, sizeof(tph_time) * (n_tasks + 1));
	f->jobs.n = 3;
	f->jobs.creation = fx_alloc(f, sizeof(tph_time) * 3);
	f->jobs.uid = fx_alloc(f, sizeof(tph_sid) * 3);
	f->jobs.meta = fx_alloc(f, sizeof(tph_job_meta *) * 3);
	f->queues.n = 3;
	f->queues.creation = fx_alloc(f, sizeof(tph_time) * 3);
	f->queues.name = fx_alloc(f, sizeof(tph_sid) * 3);
	s->jobs = &f->jobs;
	s->queues = &f->queues;
	f->meta_sub.subgroups = &f->subgroup;
	f->meta_sub.n_subgroups = 1;
	return f;
}

static void fx_free(fx *f)
{
	tph_ep_free(&f->s);
	tph_arena_destroy(&f->s.arena);
	tph_strtab_free(&f->strs);
	for (int i = 0; i < f->n_mem; i++)
		free(f->mem[i]);
	free(f);
}

/* Run `reg` as plugin i's on_session_open would. */
#define AS(f, i, call)                            \
	do {                                      \
		(f)->s.cur_plugin = (i);          \
		assert_int_equal((call), TPH_OK); \
		(f)->s.cur_plugin = -1;           \
	} while (0)

/* ---- spy callbacks ---- */

static int cb_cmp(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	const spy *p = st;
	log_call(p->id);
	return a < b ? p->cmp : -p->cmp;
}

static int cb_vq_cmp(void *st, const tph_session *s, tph_idx a, tph_idx b, tph_idx pq)
{
	const spy *p = st;
	log_call(p->id);
	return a < b ? p->cmp : -p->cmp;
}

static int cb_vote(void *st, const tph_session *s, tph_idx job)
{
	const spy *p = st;
	log_call(p->id);
	return p->vote;
}

static bool cb_pred(void *st, const tph_session *s, tph_idx job)
{
	const spy *p = st;
	log_call(p->id);
	return p->pred;
}

static bool cb_qpred(void *st, const tph_session *s, tph_idx q)
{
	const spy *p = st;
	log_call(p->id);
	return p->pred;
}

static bool cb_qtpred(void *st, const tph_session *s, tph_idx q, tph_idx t)
{
	const spy *p = st;
	log_call(p->id);
	return p->pred;
}

static int cb_victims(void *st, const tph_session *s, tph_idx who, const tph_idx *c, uint32_t n,
                      uint8_t *keep)
{
	const spy *p = st;
	log_call(p->id);
	for (uint32_t i = 0; p->keep && i < n && p->keep[i]; i++)
		keep[i] = p->keep[i] == '1';
	return p->decide;
}

static void cb_victim_tasks(void *st, const tph_session *s, const tph_idx *t, uint32_t n,
                            uint8_t *victim)
{
	const spy *p = st;
	log_call(p->id);
	for (uint32_t i = 0; p->keep && i < n && p->keep[i]; i++)
		if (p->keep[i] == '1')
			victim[i] = 1;
}

static int cb_alloc(void *st, tph_session *s, tph_idx task)
{
	const spy *p = st;
	log_call(100 + p->id);
	return p->fail;
}

static int cb_dealloc(void *st, tph_session *s, tph_idx task)
{
	const spy *p = st;
	log_call(200 + p->id);
	return p->fail;
}

static int cb_valid(void *st, const tph_session *s, tph_idx job, tph_valid_result *out)
{
	const spy *p = st;
	log_call(p->id);
	if (p->fail) {
		out->reason = "NotEnoughPods";
		out->message = p->id == 1 ? "one" : "other";
	}
	return p->fail;
}

static void cb_job_event(void *st, tph_session *s, tph_idx job)
{
	log_call(((const spy *)st)->id);
}

static void cb_session_event(void *st, tph_session *s)
{
	log_call(((const spy *)st)->id);
}

static tph_idx cb_target(void *st, const tph_session *s, const tph_idx *jobs, uint32_t n)
{
	const spy *p = st;
	log_call(p->id);
	return p->best;
}

static bool cb_sim_alloc(void *st, const tph_session *s, tph_idx q, tph_idx t)
{
	const spy *p = st;
	log_call(p->id);
	return p->pred;
}

static tph_reason_code cb_sim_pred(void *st, const tph_session *s, tph_idx t, tph_idx n)
{
	const spy *p = st;
	log_call(p->id);
	return p->reason;
}

static int cb_sim_task(void *st, tph_session *s, tph_idx pt, tph_idx t, tph_idx n)
{
	const spy *p = st;
	log_call(p->id);
	return p->fail;
}

static tph_reason_code cb_prepred(void *st, const tph_session *s, tph_idx task)
{
	const spy *p = st;
	log_call(p->id);
	return p->reason;
}

/* Rejects node % mod == rem with the spy's reason. Called from OpenMP workers: no logging. */
static void cb_predicate(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                         uint32_t n, tph_reason_code *out)
{
	const spy *p = st;
	for (uint32_t i = 0; i < n; i++)
		out[i] = nodes[i] % p->reject_mod == p->reject_rem ? p->reason : TPH_PASS;
}

/* A deterministic, fractional score per (plugin, node). */
static double node_score(const spy *p, tph_idx task, tph_idx node)
{
	return p->weight *
	       (double)((node * 2654435761u + task * 40503u + (unsigned)p->id * 97u) % 1000u) / 7.0;
}

static void cb_score(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                     double *out)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = node_score(st, task, nodes[i]);
}

/* Min-max normalise to 0..100 as Volcano's reduce functions do (int64 scores). */
static void cb_reduce(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, double *scores)
{
	const spy *p = st;
	log_call(300 + p->id);
	double mx = 0;
	for (uint32_t i = 0; i < n; i++)
		mx = scores[i] > mx ? scores[i] : mx;
	for (uint32_t i = 0; i < n; i++)
		scores[i] = mx > 0 ? scores[i] * 100.0 / mx : 0;
}

static int batch_calls;

static void cb_batch(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                     double *out)
{
	batch_calls++;
	cb_score(st, s, task, nodes, n, out);
}

static tph_idx cb_best(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                       const double *scores, uint32_t n)
{
	const spy *p = st;
	log_call(p->id);
	return p->best;
}

/* ---- registration ---- */

static void test_flags_gate_registration(void **state)
{
	fx *f = fx_new(3, NULL, 0, 0);
	f->pl[0].flags[TPH_FLAG_JOB_ORDER] = 0;
	AS(f, 0, tph_on_job_order(&f->s, cb_cmp)); /* accepted, dropped */
	AS(f, 1, tph_on_job_order(&f->s, cb_cmp));
	assert_int_equal(f->s.ep[TPH_EP_JOB_ORDER].n, 1);
	assert_int_equal(f->s.ep[TPH_EP_JOB_ORDER].e[0].plugin, 1);
	assert_ptr_equal(f->s.ep[TPH_EP_JOB_ORDER].e[0].st, &f->sp[1]);

	/* JobEnqueueable and JobEnqueued share enableJobEnqueued. */
	f->pl[2].flags[TPH_FLAG_JOB_ENQUEUED] = 0;
	AS(f, 2, tph_on_job_enqueueable(&f->s, cb_vote));
	AS(f, 2, tph_on_job_enqueued(&f->s, cb_job_event));
	assert_int_equal(f->s.ep[TPH_EP_JOB_ENQUEUEABLE].n, 0);
	assert_int_equal(f->s.ep[TPH_EP_JOB_ENQUEUED].n, 0);

	/* Simulate{Add,Remove}Task: preemptable OR allocatable. */
	f->pl[0].flags[TPH_FLAG_PREEMPTABLE] = 0;
	AS(f, 0, tph_on_sim_add_task(&f->s, cb_sim_task));
	assert_int_equal(f->s.ep[TPH_EP_SIM_ADD_TASK].n, 1);
	f->pl[2].flags[TPH_FLAG_PREEMPTABLE] = 0;
	f->pl[2].flags[TPH_FLAG_ALLOCATABLE] = 0;
	AS(f, 2, tph_on_sim_remove_task(&f->s, cb_sim_task));
	AS(f, 2, tph_on_sim_add_task(&f->s, cb_sim_task));
	assert_int_equal(f->s.ep[TPH_EP_SIM_REMOVE_TASK].n, 0);
	assert_int_equal(f->s.ep[TPH_EP_SIM_ADD_TASK].n, 1);

	/* Never gated: victim queue order, unified evictable, job valid, events. */
	memset(f->pl[2].flags, 0, sizeof f->pl[2].flags);
	AS(f, 2, tph_on_victim_queue_order(&f->s, cb_vq_cmp));
	AS(f, 2, tph_on_unified_evictable(&f->s, cb_victims));
	AS(f, 2, tph_on_job_valid(&f->s, cb_valid));
	AS(f, 2, tph_on_task_events(&f->s, cb_alloc, NULL));
	AS(f, 2, tph_on_predicate(&f->s, cb_predicate)); /* enablePredicate off */
	AS(f, 2, tph_on_node_map(&f->s, cb_score));      /* enableNodeOrder off */
	assert_int_equal(f->s.ep[TPH_EP_VICTIM_QUEUE_ORDER].n, 1);
	assert_int_equal(f->s.ep[TPH_EP_UNIFIED_EVICTABLE].n, 1);
	assert_int_equal(f->s.ep[TPH_EP_JOB_VALID].n, 1);
	assert_int_equal(f->s.ep[TPH_EP_ALLOCATE_EVENT].n, 1);
	assert_int_equal(f->s.ep[TPH_EP_DEALLOCATE_EVENT].n, 1);
	assert_null(f->s.ep[TPH_EP_DEALLOCATE_EVENT].e[0].fn);
	assert_int_equal(f->s.ep[TPH_EP_PREDICATE].n, 0);
	assert_int_equal(f->s.ep[TPH_EP_NODE_MAP].n, 0);
	fx_free(f);
}

static void test_registry_refusals(void **state)
{
	fx *f = fx_new(1, NULL, 0, 0);
	assert_int_equal(tph_on_job_order(&f->s, cb_cmp), TPH_EINVAL); /* outside open */
	f->s.cur_plugin = 0;
	assert_int_equal(tph_on_job_order(&f->s, NULL), TPH_EINVAL);
	f->s.frozen = true;
	assert_int_equal(tph_on_job_order(&f->s, cb_cmp), TPH_EFROZEN);
	assert_int_equal(tph_on_task_events(&f->s, cb_alloc, cb_dealloc), TPH_EFROZEN);
	assert_int_equal(f->s.ep[TPH_EP_JOB_ORDER].n, 0);
	f->s.frozen = false;
	/* Volcano keeps one function per plugin and point: registering again replaces. */
	assert_int_equal(tph_on_job_order(&f->s, cb_cmp), TPH_OK);
	assert_int_equal(tph_on_job_order(&f->s, cb_cmp), TPH_OK);
	assert_int_equal(f->s.ep[TPH_EP_JOB_ORDER].n, 1);
	/* Victim task filters and event handlers are lists. */
	assert_int_equal(tph_on_victim_tasks(&f->s, cb_victim_tasks), TPH_OK);
	assert_int_equal(tph_on_victim_tasks(&f->s, cb_victim_tasks), TPH_OK);
	assert_int_equal(f->s.ep[TPH_EP_VICTIM_TASKS].n, 2);
	fx_free(f);
}

static void test_reasons(void **state)
{
	fx *f = fx_new(0, NULL, 0, 0);
	tph_session *s = &f->s;
	tph_reason_code a = tph_reason(s, "node(s) didn't match", false);
	tph_reason_code b = tph_reason(s, "node(s) had taints", true);
	assert_int_not_equal(a, TPH_PASS);
	assert_int_not_equal(a, b);
	assert_int_equal(tph_reason(s, "node(s) didn't match", false), a);
	assert_string_equal(tph_reason_text(s, a), "node(s) didn't match");
	assert_string_equal(tph_reason_text(s, TPH_PASS), "");
	assert_false(tph_reason_unresolvable(s, a));
	assert_true(tph_reason_unresolvable(s, b));
	assert_int_equal(tph_ep_init(s), TPH_OK);
	tph_reason_code gpu = tph_reason_insufficient(s, 4);
	assert_string_equal(tph_reason_text(s, gpu), "Insufficient nvidia.com/gpu");
	assert_int_equal(tph_reason(s, "Insufficient cpu", false), tph_reason_insufficient(s, 0));
	fx_free(f);
}

/* ---- orders ---- */

typedef struct order_case {
	const char *name;
	uint16_t tiers[4];
	int cmp[4]; /* each plugin's answer for (0, 1) */
	uint32_t n;
	int want; /* tph_job_order(0, 1) */
	int n_calls;
} order_case;

static void test_job_order_first_non_zero(void **state)
{
	static const order_case cases[] = {
	    {"no plugin: creation decides", {0}, {0}, 0, -1, 0},
	    {"all zero: fallback", {0, 0, 1}, {0, 0, 0}, 3, -1, 3},
	    {"first non-zero wins", {0, 0, 1}, {0, 1, -1}, 3, 1, 2},
	    {"later tier decides", {0, 1, 1}, {0, 0, 1}, 3, 1, 3},
	    {"first tier decides", {0, 1}, {-5, 7}, 2, -1, 1},
	};
	for (size_t c = 0; c < N_ELEMS(cases); c++) {
		fx *f = fx_new(cases[c].n, cases[c].tiers, 0, 0);
		f->jobs.creation[0] = 10, f->jobs.creation[1] = 20;
		for (uint32_t i = 0; i < cases[c].n; i++) {
			f->sp[i].cmp = cases[c].cmp[i];
			AS(f, (int)i, tph_on_job_order(&f->s, cb_cmp));
		}
		n_calls = 0;
		int got = tph_job_order(&f->s, 0, 1);
		if (got != cases[c].want || n_calls != cases[c].n_calls)
			fail_msg("%s: got %d calls %d", cases[c].name, got, n_calls);
		assert_int_equal(tph_job_order(&f->s, 1, 0), -cases[c].want);
		assert_int_equal(tph_job_order(&f->s, 1, 1), 0);
		fx_free(f);
	}
}

static void test_order_fallbacks(void **state)
{
	fx *f = fx_new(0, NULL, 0, 4);
	tph_session *s = &f->s;
	/* Jobs: creation, then uid (bytewise), then index. */
	f->jobs.creation[0] = 5, f->jobs.creation[1] = 5, f->jobs.creation[2] = 1;
	f->jobs.uid[0] = intern(f, "uid-b"), f->jobs.uid[1] = intern(f, "uid-a");
	f->jobs.uid[2] = intern(f, "uid-z");
	assert_true(tph_job_order(s, 0, 1) > 0);
	assert_true(tph_job_order(s, 2, 0) < 0);
	assert_int_equal(tph_job_order_cmp_plugins(s, 0, 1), 0);
	/* Queues: creation, then name. */
	f->queues.creation[0] = 7, f->queues.creation[1] = 7, f->queues.creation[2] = 9;
	f->queues.name[0] = intern(f, "q2"), f->queues.name[1] = intern(f, "q1");
	f->queues.name[2] = intern(f, "q0");
	assert_true(tph_queue_order(s, 0, 1) > 0);
	assert_true(tph_queue_order(s, 1, 2) < 0);
	/* Victim queues: !QueueOrderFn(l, r), i.e. the reverse. */
	assert_true(tph_victim_queue_order(s, 0, 1, 2) < 0);
	assert_true(tph_victim_queue_order(s, 1, 2, 0) > 0);
	assert_int_equal(tph_victim_queue_order(s, 1, 1, 0), 0);
	/* Subjobs and clusters: the index. */
	assert_true(tph_subjob_order(s, 3, 4) < 0);
	assert_true(tph_cluster_order(s, 4, 3) > 0);
	fx_free(f);
}

static void test_victim_queue_order_plugins(void **state)
{
	uint16_t tiers[] = {0, 1};
	fx *f = fx_new(2, tiers, 0, 0);
	f->queues.creation[0] = 1, f->queues.creation[1] = 2;
	f->sp[0].cmp = 0, f->sp[1].cmp = 1;
	AS(f, 0, tph_on_victim_queue_order(&f->s, cb_vq_cmp));
	AS(f, 1, tph_on_victim_queue_order(&f->s, cb_vq_cmp));
	assert_int_equal(tph_victim_queue_order(&f->s, 0, 1, 2), 1);
	fx_free(f);
}

static void test_pod_index(void **state)
{
	static const struct {
		const char *name;
		bool ok;
		int64_t v;
	} cases[] = {
	    {"job-task-3", true, 3},
	    {"a-b-c-007", true, 7},
	    {"job-task-+4", true, 4},
	    {"job-task-9223372036854775807", true, INT64_MAX},
	    {"job-task-9223372036854775808", false, 0},
	    {"p-1", false, 0}, /* Split gives two parts: no index */
	    /* the spec's examples (Fallback orders): at least three parts, a decimal last one */
	    {"job-worker-3", true, 3},
	    {"worker-3", false, 0},
	    {"job-worker-a", false, 0},
	    {"job-worker-3a", false, 0},
	    {"a-b-c-d-12", true, 12},
	    {"job-task-", false, 0},
	    {"job-task-x1", false, 0},
	    {"job-task-+", false, 0},
	    {"job--", false, 0},
	    {"plain", false, 0},
	};
	for (size_t i = 0; i < N_ELEMS(cases); i++) {
		int64_t v = -1;
		bool ok = tph_task_pod_index(cases[i].name, &v);
		if (ok != cases[i].ok || (ok && v != cases[i].v))
			fail_msg("%s: ok %d v %lld", cases[i].name, ok, (long long)v);
	}
}

static void test_task_order_fallback(void **state)
{
	fx *f = fx_new(0, NULL, 0, 4);
	tph_task_store *t = &f->s.tasks;
	const char *names[] = {"j-w-10", "j-w-9", "p-1", "j-w-9"};
	tph_time created[] = {100, 200, 50, 100};
	const char *uids[] = {"u3", "u2", "u1", "u0"};
	for (int i = 0; i < 4; i++) {
		t->name[i] = intern(f, names[i]);
		t->creation[i] = created[i];
		t->uid[i] = intern(f, uids[i]);
	}
	/* 9 before 10, whatever the creation time. */
	assert_true(tph_task_order(&f->s, 1, 0) < 0);
	/* No index on one side: creation time. */
	assert_true(tph_task_order(&f->s, 2, 0) < 0);
	assert_true(tph_task_order(&f->s, 0, 2) > 0);
	/* Equal index: creation, then uid. */
	assert_true(tph_task_order(&f->s, 3, 1) < 0);
	t->creation[3] = 200;
	assert_true(tph_task_order(&f->s, 3, 1) < 0); /* uid u0 < u2 */
	assert_true(tph_task_order(&f->s, 1, 3) > 0);
	/* Two parts are no index ("worker-10", "worker-9"): creation time decides, not 9 < 10. */
	t->name[0] = intern(f, "worker-10");
	t->name[1] = intern(f, "worker-9");
	assert_true(tph_task_order(&f->s, 0, 1) < 0); /* created 100 < 200 */
	t->name[0] = intern(f, "job-worker-10");
	t->name[1] = intern(f, "job-worker-9");
	assert_true(tph_task_order(&f->s, 0, 1) > 0); /* three parts: 9 before 10 */
	/* A plugin decides first. */
	uint16_t tier = 0;
	fx *g = fx_new(1, &tier, 0, 2);
	g->sp[0].cmp = 1;
	AS(g, 0, tph_on_task_order(&g->s, cb_cmp));
	assert_true(tph_task_order(&g->s, 0, 1) > 0);
	assert_int_equal(tph_task_order_cmp_plugins(&g->s, 0, 1), 1);
	fx_free(g);
	fx_free(f);
}

/* ---- votes ---- */

typedef struct vote_case {
	const char *name;
	uint32_t n;
	uint16_t tiers[4];
	int vote[4];
	bool want;
	int n_calls;
} vote_case;

/* The session's pod-index cache (tph_ep_init on) gives every comparison the answer a parse
 * of both names gives, for names with an index and names without one alike, and parses only
 * the tasks that were compared. */
static void test_task_order_cached(void **state)
{
	enum {
		N = 7
	};
	const char *names[N] = {"j-w-10", "p-1", "j-w-9", "plain", "j-w-+9", "a-b-c-0", "x-y-z"};
	tph_time created[N] = {300, 100, 200, 100, 50, 400, 0};
	fx *f = fx_new(0, NULL, 0, N + 1); /* task N is never compared */
	tph_task_store *t = &f->s.tasks;
	t->name[N] = intern(f, "never-compared-1");
	for (int i = 0; i < N; i++) {
		t->name[i] = intern(f, names[i]);
		t->creation[i] = created[i];
		t->uid[i] = intern(f, names[i]);
	}
	int parsed[N][N];
	for (int a = 0; a < N; a++)
		for (int b = 0; b < N; b++)
			parsed[a][b] = tph_task_order(&f->s, (tph_idx)a, (tph_idx)b);
	assert_int_equal(tph_ep_init(&f->s), TPH_OK);
	for (int a = 0; a < N; a++)
		for (int b = 0; b < N; b++)
			if (tph_task_order(&f->s, (tph_idx)a, (tph_idx)b) != parsed[a][b])
				fail_msg("%s vs %s", names[a], names[b]);
	const tph_ep_ctx *c = tph_ep_ctx_of(&f->s);
	assert_non_null(c->pod_index);
	for (int i = 0; i < N; i++) {
		int64_t v;
		assert_int_equal(c->pod_has[i], 1 + tph_task_pod_index(names[i], &v));
	}
	assert_int_equal(c->pod_has[N], 0);
	fx_free(f);
}

static void test_votes(void **state)
{
	static const vote_case cases[] = {
	    {"none: permit", 0, {0}, {0}, true, 0},
	    {"all abstain", 2, {0, 1}, {0, 0}, true, 2},
	    {"reject vetoes", 2, {0, 0}, {0, -1}, false, 2},
	    {"permit then reject in one tier", 2, {0, 0}, {1, -1}, false, 2},
	    {"permit ends at its tier", 3, {0, 0, 1}, {1, 0, -1}, true, 2},
	    {"abstaining tier passes on", 2, {0, 1}, {0, -1}, false, 2},
	    {"later tier permits", 3, {0, 1, 1}, {0, 1, 0}, true, 3},
	};
	for (size_t c = 0; c < N_ELEMS(cases); c++) {
		fx *f = fx_new(cases[c].n, cases[c].tiers, 0, 0);
		for (uint32_t i = 0; i < cases[c].n; i++) {
			f->sp[i].vote = cases[c].vote[i];
			AS(f, (int)i, tph_on_job_enqueueable(&f->s, cb_vote));
			AS(f, (int)i, tph_on_job_pipelined(&f->s, cb_vote));
			AS(f, (int)i, tph_on_subjob_pipelined(&f->s, cb_vote));
		}
		n_calls = 0;
		bool got = tph_job_enqueueable(&f->s, 0);
		if (got != cases[c].want || n_calls != cases[c].n_calls)
			fail_msg("%s: got %d calls %d", cases[c].name, got, n_calls);
		assert_int_equal(tph_job_pipelined(&f->s, 0), cases[c].want);
		f->jobs.meta[1] = &f->meta_sub;
		assert_int_equal(tph_subjob_pipelined(&f->s, 1, 0), cases[c].want);
		assert_int_equal(tph_subjob_pipelined(&f->s, 0, 0), cases[c].want);
		fx_free(f);
	}
}

typedef struct pred_case {
	const char *name;
	uint32_t n;
	uint16_t tiers[4];
	bool v[4];
	bool and_all;  /* JobReady, Allocatable, Preemptive, SimulateAllocatable */
	bool or_any;   /* Overused */
	bool starving; /* JobStarving: AND inside the first tier with a registration */
} pred_case;

static void test_predicates(void **state)
{
	static const pred_case cases[] = {
	    {"none", 0, {0}, {0}, true, false, false},
	    {"all true", 2, {0, 1}, {true, true}, true, true, true},
	    {"one false", 2, {0, 0}, {true, false}, false, true, false},
	    {"false in a later tier", 2, {0, 1}, {true, false}, false, true, true},
	    {"first tier false", 2, {1, 2}, {false, true}, false, true, false},
	    {"all false", 2, {0, 1}, {false, false}, false, false, false},
	};
	for (size_t c = 0; c < N_ELEMS(cases); c++) {
		fx *f = fx_new(cases[c].n, cases[c].tiers, 0, 0);
		for (uint32_t i = 0; i < cases[c].n; i++) {
			f->sp[i].pred = cases[c].v[i];
			AS(f, (int)i, tph_on_job_ready(&f->s, cb_pred));
			AS(f, (int)i, tph_on_subjob_ready(&f->s, cb_pred));
			AS(f, (int)i, tph_on_allocatable(&f->s, cb_qtpred));
			AS(f, (int)i, tph_on_preemptive(&f->s, cb_qtpred));
			AS(f, (int)i, tph_on_sim_allocatable(&f->s, cb_sim_alloc));
			AS(f, (int)i, tph_on_overused(&f->s, cb_qpred));
			AS(f, (int)i, tph_on_job_starving(&f->s, cb_pred));
		}
		const char *nm = cases[c].name;
		if (tph_job_ready(&f->s, 0) != cases[c].and_all ||
		    tph_allocatable(&f->s, 0, 0) != cases[c].and_all ||
		    tph_preemptive(&f->s, 0, 0) != cases[c].and_all ||
		    tph_sim_allocatable(&f->s, 0, 0) != cases[c].and_all)
			fail_msg("%s: AND", nm);
		f->jobs.meta[2] = &f->meta_sub;
		if (tph_subjob_ready(&f->s, 2, 0) != cases[c].and_all ||
		    tph_subjob_ready(&f->s, 0, 0) != cases[c].and_all)
			fail_msg("%s: subjob AND", nm);
		if (tph_overused(&f->s, 0) != cases[c].or_any)
			fail_msg("%s: OR", nm);
		if (tph_job_starving(&f->s, 0) != cases[c].starving)
			fail_msg("%s: starving", nm);
		fx_free(f);
	}
}

static void test_job_valid_and_events(void **state)
{
	uint16_t tiers[] = {0, 0, 1};
	fx *f = fx_new(3, tiers, 0, 0);
	f->sp[1].fail = TPH_EINVAL;
	f->sp[2].fail = TPH_ERANGE;
	for (int i = 0; i < 3; i++) {
		AS(f, i, tph_on_job_valid(&f->s, cb_valid));
		AS(f, i, tph_on_job_enqueued(&f->s, cb_job_event));
		AS(f, i, tph_on_reserved_nodes(&f->s, cb_session_event));
	}
	tph_valid_result r = {NULL, NULL};
	n_calls = 0;
	assert_int_equal(tph_job_valid(&f->s, 0, &r), TPH_EINVAL);
	assert_int_equal(n_calls, 2);
	assert_string_equal(r.message, "one");
	n_calls = 0;
	tph_job_enqueued(&f->s, 0);
	tph_reserved_nodes(&f->s);
	int want[] = {0, 1, 2, 0, 1, 2};
	assert_int_equal(n_calls, 6);
	assert_memory_equal(calls, want, sizeof want);
	f->sp[1].fail = f->sp[2].fail = 0;
	assert_int_equal(tph_job_valid(&f->s, 0, NULL), TPH_OK);
	fx_free(f);
}

static void test_target_job_and_sims(void **state)
{
	uint16_t tiers[] = {0, 1};
	fx *f = fx_new(2, tiers, 0, 0);
	tph_idx jobs[] = {0, 1, 2};
	assert_int_equal(tph_target_job(&f->s, jobs, 3), TPH_NOIDX);
	f->sp[0].best = TPH_NOIDX, f->sp[1].best = 2;
	f->sp[0].reason = TPH_PASS, f->sp[1].reason = 9;
	f->sp[0].fail = 0, f->sp[1].fail = TPH_ENOENT;
	for (int i = 0; i < 2; i++) {
		AS(f, i, tph_on_target_job(&f->s, cb_target));
		AS(f, i, tph_on_sim_predicate(&f->s, cb_sim_pred));
		AS(f, i, tph_on_sim_add_task(&f->s, cb_sim_task));
		AS(f, i, tph_on_sim_remove_task(&f->s, cb_sim_task));
		AS(f, i, tph_on_prepredicate(&f->s, cb_prepred));
	}
	/* The first registration answers, even with no job. */
	assert_int_equal(tph_target_job(&f->s, jobs, 3), TPH_NOIDX);
	assert_int_equal(tph_sim_predicate(&f->s, 0, 0), 9);
	assert_int_equal(tph_prepredicate(&f->s, 0), 9);
	assert_int_equal(tph_sim_add_task(&f->s, 0, 1, 0), TPH_ENOENT);
	assert_int_equal(tph_sim_remove_task(&f->s, 0, 1, 0), TPH_ENOENT);
	f->sp[0].reason = 4, f->sp[0].fail = TPH_EIO;
	assert_int_equal(tph_prepredicate(&f->s, 0), 4);
	assert_int_equal(tph_sim_add_task(&f->s, 0, 1, 0), TPH_EIO);
	fx_free(f);
}

static void test_event_rollback(void **state)
{
	fx *f = fx_new(4, NULL, 0, 0);
	AS(f, 0, tph_on_task_events(&f->s, cb_alloc, cb_dealloc));
	AS(f, 1, tph_on_task_events(&f->s, NULL, cb_dealloc)); /* no allocate handler */
	AS(f, 2, tph_on_task_events(&f->s, cb_alloc, cb_dealloc));
	AS(f, 3, tph_on_task_events(&f->s, cb_alloc, cb_dealloc));
	n_calls = 0;
	assert_int_equal(tph_fire_allocate(&f->s, 0), TPH_OK);
	int ok[] = {100, 102, 103};
	assert_int_equal(n_calls, 3);
	assert_memory_equal(calls, ok, sizeof ok);

	/* Plugin 3 fails: 2 and 0 are undone in reverse; 1 never ran its allocate. */
	f->sp[3].fail = TPH_EINVAL;
	n_calls = 0;
	assert_int_equal(tph_fire_allocate(&f->s, 0), TPH_EINVAL);
	int rb[] = {100, 102, 103, 202, 200};
	assert_int_equal(n_calls, 5);
	assert_memory_equal(calls, rb, sizeof rb);

	/* Deallocate is symmetric: plugin 2 fails, 1 and 0 get their allocate back. */
	f->sp[3].fail = 0, f->sp[2].fail = TPH_ERANGE;
	n_calls = 0;
	assert_int_equal(tph_fire_deallocate(&f->s, 0), TPH_ERANGE);
	int drb[] = {200, 201, 202, 100};
	assert_int_equal(n_calls, 4);
	assert_memory_equal(calls, drb, sizeof drb);
	fx_free(f);
}

/* ---- victims ---- */

typedef struct victim_case {
	const char *name;
	uint32_t n;
	uint16_t tiers[4];
	int decide[4];
	const char *keep[4];
	const char *want; /* over 4 candidates */
} victim_case;

static void test_victims(void **state)
{
	static const victim_case cases[] = {
	    {"none registered", 0, {0}, {0}, {NULL}, "0000"},
	    {"one plugin", 1, {0}, {1}, {"0110"}, "0110"},
	    {"intersect in a tier", 2, {0, 0}, {1, 1}, {"1110", "0111"}, "0110"},
	    {"abstain ignored", 2, {0, 0}, {0, 1}, {"1111", "0101"}, "0101"},
	    {"all abstain: next tier", 2, {0, 1}, {0, 1}, {"1111", "1000"}, "1000"},
	    {"empty ends the tier", 3, {0, 0, 1}, {1, 1, 1}, {"0000", "1111", "0011"}, "0011"},
	    {"empty at the end: nothing", 2, {0, 0}, {1, 1}, {"1100", "0000"}, "0000"},
	    {"first tier wins", 2, {0, 1}, {1, 1}, {"0100", "1011"}, "0100"},
	    /* Volcano: an empty intersection is nil again, the next plugin starts afresh. */
	    {"empty intersection restarts",
	     3,
	     {0, 0, 0},
	     {1, 1, 1},
	     {"1000", "0100", "0010"},
	     "0010"},
	    {"empty intersection at tier end",
	     3,
	     {0, 0, 1},
	     {1, 1, 1},
	     {"1000", "0100", "0001"},
	     "0001"},
	};
	for (size_t c = 0; c < N_ELEMS(cases); c++) {
		fx *f = fx_new(cases[c].n, cases[c].tiers, 0, 0);
		assert_int_equal(tph_ep_init(&f->s), TPH_OK);
		for (uint32_t i = 0; i < cases[c].n; i++) {
			f->sp[i].decide = cases[c].decide[i];
			f->sp[i].keep = cases[c].keep[i];
			AS(f, (int)i, tph_on_preemptable(&f->s, cb_victims));
			AS(f, (int)i, tph_on_reclaimable(&f->s, cb_victims));
			AS(f, (int)i, tph_on_unified_evictable(&f->s, cb_victims));
		}
		tph_idx cands[4] = {40, 41, 42, 43}, out[4];
		uint32_t (*fns[])(tph_session *, tph_idx, const tph_idx *, uint32_t, tph_idx *) = {
		    tph_preemptable, tph_reclaimable, tph_unified_evictable};
		for (size_t k = 0; k < N_ELEMS(fns); k++) {
			uint32_t got = fns[k](&f->s, 7, cands, 4, out);
			char mask[5] = "0000";
			for (uint32_t j = 0; j < got; j++)
				mask[out[j] - 40] = '1';
			for (uint32_t j = 1; j < got; j++)
				assert_true(out[j - 1] < out[j]); /* candidate order */
			if (strcmp(mask, cases[c].want))
				fail_msg("%s: got %s want %s", cases[c].name, mask, cases[c].want);
		}
		fx_free(f);
	}
}

static void test_victim_tasks(void **state)
{
	static const struct {
		const char *name;
		uint32_t n;
		uint16_t tiers[3];
		const char *keep[3];
		const char *want;
	} cases[] = {
	    {"none", 0, {0}, {NULL}, "0000"},
	    {"union in a tier", 2, {0, 0, 1}, {"1000", "0010"}, "1010"},
	    {"first tier with a victim", 3, {0, 1, 1}, {"0000", "0100", "0001"}, "0101"},
	    {"earlier tier wins", 3, {0, 0, 1}, {"0001", "0000", "1111"}, "0001"},
	};
	for (size_t c = 0; c < N_ELEMS(cases); c++) {
		fx *f = fx_new(cases[c].n, cases[c].tiers, 0, 0);
		for (uint32_t i = 0; i < cases[c].n; i++) {
			f->sp[i].keep = cases[c].keep[i];
			AS(f, (int)i, tph_on_victim_tasks(&f->s, cb_victim_tasks));
		}
		tph_idx tasks[4] = {0, 1, 2, 3};
		uint8_t v[4];
		uint32_t k = tph_victim_tasks(&f->s, tasks, 4, v);
		char mask[5];
		uint32_t cnt = 0;
		for (int j = 0; j < 4; j++) {
			mask[j] = v[j] ? '1' : '0';
			cnt += v[j];
		}
		mask[4] = 0;
		if (strcmp(mask, cases[c].want) || k != cnt)
			fail_msg("%s: got %s (%u)", cases[c].name, mask, k);
		fx_free(f);
	}
}

/* ---- filtering ---- */

static uint64_t rng = 88172645463325252ull;

static uint64_t xorshift(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#define BIG 10000u

/* BIG nodes with random free resources, 8 tasks with random requests (some scalars 0). */
static fx *fx_cluster(uint32_t n_plugins)
{
	uint16_t tiers[MAXP] = {0, 0, 1, 1, 2, 2, 3, 3};
	fx *f = fx_new(n_plugins, tiers, BIG, 8);
	tph_node_store *ns = &f->s.nodes;
	for (uint32_t d = 0; d < NDIM; d++)
		for (uint32_t i = 0; i < BIG; i++) {
			size_t at = (size_t)d * ns->stride + i;
			ns->idle[at] = (int64_t)(xorshift() % 8000);
			ns->releasing[at] = (int64_t)(xorshift() % 3) * 500;
			ns->pipelined[at] = (int64_t)(xorshift() % 4) * 400;
		}
	for (uint32_t t = 0; t < 8; t++)
		for (uint32_t d = 0; d < NDIM; d++)
			f->s.tasks.req[t * NDIM + d] =
			    d >= 2 && t % 3 == 0 ? 0 : (int64_t)(xorshift() % 6000);
	assert_int_equal(tph_ep_init(&f->s), TPH_OK);
	return f;
}

/* Volcano's LessEqualWithResourcesName over one node, written the obvious way. */
static tph_reason_code naive_fit(fx *f, tph_idx t, tph_idx i)
{
	const tph_node_store *ns = &f->s.nodes;
	for (uint32_t d = 0; d < NDIM; d++) {
		int64_t r = f->s.tasks.req[t * NDIM + d];
		if (d >= 2 && r == 0)
			continue;
		size_t at = (size_t)d * ns->stride + i;
		if (r > ns->idle[at] + ns->releasing[at] - ns->pipelined[at])
			return tph_reason_insufficient(&f->s, d);
	}
	return TPH_PASS;
}

static void test_fit_matches_naive(void **state)
{
	fx *f = fx_cluster(0);
	tph_idx *nodes = malloc(BIG * sizeof *nodes), *feas = malloc(BIG * sizeof *feas);
	tph_reason_code *rc = malloc(BIG * sizeof *rc);
	for (uint32_t i = 0; i < BIG; i++)
		nodes[i] = BIG - 1 - i; /* any order: results follow the input */
	for (tph_idx t = 0; t < 8; t++) {
		uint32_t k = tph_filter_nodes(&f->s, t, nodes, BIG, rc, feas), m = 0;
		for (uint32_t i = 0; i < BIG; i++) {
			tph_reason_code want = naive_fit(f, t, nodes[i]);
			assert_int_equal(rc[i], want);
			assert_int_equal(tph_fit_node(&f->s, t, nodes[i]), want);
			if (want == TPH_PASS)
				assert_int_equal(feas[m++], nodes[i]);
		}
		assert_int_equal(k, m);
	}
	free(nodes), free(feas), free(rc);
	fx_free(f);
}

static void test_predicates_first_failure(void **state)
{
	fx *f = fx_cluster(2);
	tph_reason_code a = tph_reason(&f->s, "A", false), b = tph_reason(&f->s, "B", true);
	f->sp[0] = (spy){.id = 0, .reason = a, .reject_mod = 3, .reject_rem = 0};
	f->sp[1] = (spy){.id = 1, .reason = b, .reject_mod = 2, .reject_rem = 0};
	AS(f, 0, tph_on_predicate(&f->s, cb_predicate));
	AS(f, 1, tph_on_predicate(&f->s, cb_predicate));
	memset(f->s.tasks.req, 0, sizeof(int64_t) * NDIM); /* task 0 fits almost everywhere */
	tph_idx nodes[600], feas[600];
	tph_reason_code rc[600];
	for (uint32_t i = 0; i < 600; i++)
		nodes[i] = i;
	uint32_t k = tph_filter_nodes(&f->s, 0, nodes, 600, rc, feas), m = 0;
	for (uint32_t i = 0; i < 600; i++) {
		tph_reason_code want = naive_fit(f, 0, i);
		if (want == TPH_PASS)
			want = i % 3 == 0 ? a : i % 2 == 0 ? b : TPH_PASS;
		assert_int_equal(rc[i], want);
		if (want == TPH_PASS)
			assert_int_equal(feas[m++], i);
	}
	assert_int_equal(k, m);
	fx_free(f);
}

/* ---- scoring ---- */

static int cb_locality(void *st, const tph_session *s, tph_idx task)
{
	return ((const spy *)st)->locality;
}

static uint32_t cb_anchors(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                           uint32_t n, tph_idx *out)
{
	const spy *p = st;
	memcpy(out, p->anchor,
	       sizeof *out * (p->n_anchor < TPH_SCORE_MAX_ANCHORS ? p->n_anchor : 0));
	return p->n_anchor;
}

static uint32_t cb_norm(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                        uint32_t n, int64_t *out)
{
	const spy *p = st;
	memcpy(out, p->norm, sizeof *out * (p->n_norm <= TPH_SCORE_MAX_ANCHORS ? p->n_norm : 0));
	return p->n_norm;
}

/* Normalisation values: those of the ANCHORED plugins, in registration order; none when an
 * ANCHORED plugin registered no callback, or they are too many; registered only in open. */
static void test_score_norm(void **state)
{
	fx *f = fx_new(3, NULL, 10, 1);
	tph_idx nodes[] = {4, 7, 9};
	int64_t out[8];
	assert_int_equal(tph_on_score_norm(&f->s, cb_norm), TPH_EINVAL); /* outside open */
	f->s.cur_plugin = 0;
	assert_int_equal(tph_on_score_norm(&f->s, NULL), TPH_EINVAL);
	f->s.frozen = true;
	assert_int_equal(tph_on_score_norm(&f->s, cb_norm), TPH_EFROZEN);
	f->s.frozen = false;
	f->s.cur_plugin = -1;
	for (int i = 0; i < 3; i++) {
		AS(f, i, tph_on_batch_node_order(&f->s, cb_batch));
		AS(f, i, tph_on_score_locality(&f->s, cb_locality, cb_anchors));
		f->sp[i].locality = TPH_SCORE_LOCAL;
	}
	AS(f, 0, tph_on_score_norm(&f->s, cb_norm));
	AS(f, 2, tph_on_score_norm(&f->s, cb_norm));
	f->sp[0].n_norm = 1, f->sp[0].norm[0] = 5;
	f->sp[2].n_norm = 2, f->sp[2].norm[0] = 7, f->sp[2].norm[1] = -3;
	assert_int_equal(tph_score_norm(&f->s, 0, nodes, 3, out, 8), 0); /* none ANCHORED */
	f->sp[2].locality = TPH_SCORE_ANCHORED | TPH_SCORE_JOB;
	f->sp[0].locality = TPH_SCORE_ANCHORED;
	assert_int_equal(tph_score_norm(&f->s, 0, nodes, 3, out, 8), 3);
	assert_true(out[0] == 5 && out[1] == 7 && out[2] == -3);
	assert_int_equal(tph_score_norm(&f->s, 0, nodes, 3, out, 2), UINT32_MAX); /* cap */
	f->sp[2].n_norm = TPH_SCORE_MAX_ANCHORS + 1;
	assert_int_equal(tph_score_norm(&f->s, 0, nodes, 3, out, 8), UINT32_MAX);
	f->sp[2].n_norm = 0;
	assert_int_equal(tph_score_norm(&f->s, 0, nodes, 3, out, 8), 1);
	f->sp[1].locality = TPH_SCORE_ANCHORED; /* anchored without a norm callback */
	assert_int_equal(tph_score_norm(&f->s, 0, nodes, 3, out, 8), UINT32_MAX);
	fx_free(f);
}

static bool cb_split(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                     const int64_t *norm, double *row, double *spec)
{
	const spy *p = st;
	for (uint32_t i = 0; p->splits && i < n; i++) {
		if (row)
			row[i] = nodes[i];
		if (spec)
			spec[i] = (double)norm[0];
	}
	return p->splits;
}

/* A split is offered only for a lone ANCHORED plugin that splits, whose BatchNodeOrder comes
 * last, beside plugins answering LOCAL | ROW, with no BestNode; the parts come from it. */
static void test_score_anchored_split(void **state)
{
	fx *f = fx_new(3, NULL, 10, 1);
	tph_idx nodes[] = {4, 7};
	double row[2], spec[2];
	const int64_t norm[] = {6};
	f->s.cur_plugin = 0;
	assert_int_equal(tph_on_score_split(&f->s, NULL), TPH_EINVAL);
	f->s.cur_plugin = -1;
	assert_int_equal(tph_on_score_split(&f->s, cb_split), TPH_EINVAL); /* outside open */
	for (int i = 0; i < 3; i++) {
		AS(f, i, tph_on_batch_node_order(&f->s, cb_batch));
		AS(f, i, tph_on_score_locality(&f->s, cb_locality, cb_anchors));
		AS(f, i, tph_on_score_split(&f->s, cb_split));
		f->sp[i].locality = TPH_SCORE_LOCAL | TPH_SCORE_ROW;
		f->sp[i].splits = true;
	}
	assert_int_equal(tph_score_split_at(&f->s, 0), UINT32_MAX); /* nobody ANCHORED */
	f->sp[2].locality = TPH_SCORE_ANCHORED;
	assert_int_equal(tph_score_split_at(&f->s, 0), 2);
	tph_score_split(&f->s, 0, nodes, 2, norm, row, spec);
	assert_true(row[0] == 4 && row[1] == 7 && spec[0] == 6 && spec[1] == 6);
	f->sp[2].splits = false;
	assert_int_equal(tph_score_split_at(&f->s, 0), UINT32_MAX);
	f->sp[2].splits = true;
	f->sp[0].locality = TPH_SCORE_LOCAL; /* reads the spec */
	assert_int_equal(tph_score_split_at(&f->s, 0), UINT32_MAX);
	f->sp[0].locality = TPH_SCORE_LOCAL | TPH_SCORE_ROW | TPH_SCORE_JOB;
	assert_int_equal(tph_score_split_at(&f->s, 0), UINT32_MAX);
	f->sp[0].locality = TPH_SCORE_ANCHORED; /* two ANCHORED */
	assert_int_equal(tph_score_split_at(&f->s, 0), UINT32_MAX);
	f->sp[0].locality = TPH_SCORE_LOCAL | TPH_SCORE_ROW;
	f->sp[2].locality = TPH_SCORE_ANCHORED | TPH_SCORE_JOB;
	assert_int_equal(tph_score_split_at(&f->s, 0), UINT32_MAX);
	f->sp[2].locality = TPH_SCORE_LOCAL | TPH_SCORE_ROW;
	f->sp[1].locality = TPH_SCORE_ANCHORED; /* its BatchNodeOrder is not the last */
	assert_int_equal(tph_score_split_at(&f->s, 0), UINT32_MAX);
	f->sp[1].locality = TPH_SCORE_LOCAL | TPH_SCORE_ROW;
	f->sp[2].locality = TPH_SCORE_ANCHORED;
	AS(f, 0, tph_on_best_node(&f->s, cb_best));
	assert_int_equal(tph_score_split_at(&f->s, 0), UINT32_MAX);
	fx_free(f);
}

/* Scores are kept only when every scoring plugin vouches for them: the weakest answer wins,
 * anchors are a union without repeats, and BestNode plugins or a missing callback forbid. */
static void test_score_locality(void **state)
{
	fx *f = fx_new(3, NULL, 10, 1);
	tph_idx nodes[] = {4, 7, 9}, out[8];
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_LOCAL); /* nobody scores */
	AS(f, 0, tph_on_node_order(&f->s, cb_score));
	AS(f, 1, tph_on_batch_node_order(&f->s, cb_batch));
	AS(f, 0, tph_on_score_locality(&f->s, cb_locality, NULL));
	f->sp[0].locality = f->sp[1].locality = TPH_SCORE_LOCAL;
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_GLOBAL); /* plugin 1 is silent */
	AS(f, 1, tph_on_score_locality(&f->s, cb_locality, cb_anchors));
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_LOCAL);
	f->sp[1].locality = TPH_SCORE_ANCHORED;
	f->sp[1].n_anchor = 2, f->sp[1].anchor[0] = 9, f->sp[1].anchor[1] = 4;
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_ANCHORED);
	assert_int_equal(tph_score_anchors(&f->s, 0, nodes, 3, out, 8), 2);
	assert_int_equal(out[0], 9);
	assert_int_equal(out[1], 4);
	assert_int_equal(tph_score_anchors(&f->s, 0, nodes, 3, out, 1), UINT32_MAX); /* cap */
	f->sp[1].n_anchor = TPH_SCORE_MAX_ANCHORS + 1;
	assert_int_equal(tph_score_anchors(&f->s, 0, nodes, 3, out, 8), UINT32_MAX);
	f->sp[0].locality = TPH_SCORE_ANCHORED; /* anchored without an anchors callback */
	assert_int_equal(tph_score_anchors(&f->s, 0, nodes, 3, out, 8), UINT32_MAX);
	/* TPH_SCORE_JOB carries through the combination; alone it is no answer. */
	f->sp[0].locality = TPH_SCORE_LOCAL | TPH_SCORE_JOB;
	f->sp[1].n_anchor = 2;
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_ANCHORED | TPH_SCORE_JOB);
	assert_int_equal(tph_score_anchors(&f->s, 0, nodes, 3, out, 8), 2);
	f->sp[1].locality = TPH_SCORE_ANCHORED | TPH_SCORE_JOB;
	assert_int_equal(tph_score_anchors(&f->s, 0, nodes, 3, out, 8), 2);
	f->sp[1].locality = TPH_SCORE_LOCAL;
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_LOCAL | TPH_SCORE_JOB);
	f->sp[0].locality = TPH_SCORE_JOB;
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_GLOBAL);
	f->sp[0].locality = 7; /* not an answer: GLOBAL */
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_GLOBAL);
	/* TPH_SCORE_HYPERNODE carries through beside LOCAL, but makes ANCHORED GLOBAL. */
	f->sp[0].locality = TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE;
	f->sp[1].locality = TPH_SCORE_LOCAL | TPH_SCORE_JOB;
	assert_int_equal(tph_score_locality(&f->s, 0),
	                 TPH_SCORE_LOCAL | TPH_SCORE_JOB | TPH_SCORE_HYPERNODE);
	f->sp[1].locality = TPH_SCORE_ANCHORED;
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_GLOBAL);
	f->sp[0].locality = TPH_SCORE_LOCAL;
	f->sp[1].locality = TPH_SCORE_ANCHORED | TPH_SCORE_HYPERNODE;
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_GLOBAL);
	assert_int_equal(tph_score_anchors(&f->s, 0, nodes, 3, out, 8), 0);
	f->sp[1].locality = TPH_SCORE_HYPERNODE; /* alone it is no answer */
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_GLOBAL);
	/* ANCHORED beside a hypernode tail (the last batch plugin, with no other score) stays */
	AS(f, 2, tph_on_batch_node_order(&f->s, cb_batch));
	AS(f, 2, tph_on_score_locality(&f->s, cb_locality, NULL));
	f->sp[1].locality = TPH_SCORE_ANCHORED;
	f->sp[2].locality = TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE;
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_ANCHORED | TPH_SCORE_HYPERNODE);
	f->sp[0].locality = TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE; /* a NodeOrder: no tail */
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_GLOBAL);
	f->sp[2].locality = TPH_SCORE_LOCAL;
	f->sp[0].locality = TPH_SCORE_LOCAL, f->sp[1].locality = TPH_SCORE_LOCAL;
	AS(f, 2, tph_on_best_node(&f->s, cb_best));
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_GLOBAL);
	fx_free(f);
}

/* TPH_SCORE_ROW holds only when every scoring plugin answers LOCAL with it and nothing else;
 * tph_score_locality() reads it as plain LOCAL. */
static void test_score_locality_row(void **state)
{
	fx *f = fx_new(3, NULL, 10, 1);
	bool row = true;
	assert_int_equal(tph_score_locality_row(&f->s, 0, &row), TPH_SCORE_LOCAL);
	assert_true(row); /* nobody scores: nothing reads the spec */
	AS(f, 0, tph_on_node_order(&f->s, cb_score));
	AS(f, 1, tph_on_batch_node_order(&f->s, cb_batch));
	AS(f, 0, tph_on_score_locality(&f->s, cb_locality, NULL));
	f->sp[0].locality = f->sp[1].locality = TPH_SCORE_LOCAL | TPH_SCORE_ROW;
	assert_int_equal(tph_score_locality_row(&f->s, 0, &row), TPH_SCORE_GLOBAL);
	assert_false(row); /* plugin 1 is silent */
	AS(f, 1, tph_on_score_locality(&f->s, cb_locality, cb_anchors));
	assert_int_equal(tph_score_locality_row(&f->s, 0, &row), TPH_SCORE_LOCAL);
	assert_true(row);
	assert_int_equal(tph_score_locality(&f->s, 0), TPH_SCORE_LOCAL);
	f->sp[1].locality = TPH_SCORE_LOCAL; /* one plugin reads the spec */
	assert_int_equal(tph_score_locality_row(&f->s, 0, &row), TPH_SCORE_LOCAL);
	assert_false(row);
	f->sp[1].locality = TPH_SCORE_LOCAL | TPH_SCORE_ROW | TPH_SCORE_JOB;
	assert_int_equal(tph_score_locality_row(&f->s, 0, &row), TPH_SCORE_LOCAL | TPH_SCORE_JOB);
	assert_false(row);
	f->sp[1].locality = TPH_SCORE_LOCAL | TPH_SCORE_ROW | TPH_SCORE_HYPERNODE;
	assert_int_equal(tph_score_locality_row(&f->s, 0, &row),
	                 TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE);
	assert_false(row);
	f->sp[1].locality = TPH_SCORE_ANCHORED | TPH_SCORE_ROW; /* ROW narrows LOCAL only */
	f->sp[1].n_anchor = 0;
	assert_int_equal(tph_score_locality_row(&f->s, 0, &row), TPH_SCORE_ANCHORED);
	assert_false(row);
	f->sp[1].locality = TPH_SCORE_ROW; /* alone it is no answer */
	assert_int_equal(tph_score_locality_row(&f->s, 0, &row), TPH_SCORE_GLOBAL);
	assert_false(row);
	fx_free(f);
}

/* Predicate locality is declared per plugin; the session's is the least among the plugins that
 * register a predicate (none: SPEC_ONLY); a plugin that declares nothing is GLOBAL; the last
 * declaration counts; a disabled predicate's declaration is dropped; only during open. */
static void test_predicate_locality(void **state)
{
	fx *f = fx_new(3, NULL, 4, 1);
	assert_int_equal(tph_predicate_locality(&f->s), TPH_PRED_SPEC_ONLY); /* no predicate */
	AS(f, 0, tph_on_predicate(&f->s, cb_predicate));
	assert_int_equal(tph_predicate_locality(&f->s), TPH_PRED_GLOBAL); /* undeclared */
	AS(f, 0, tph_declare_predicate_locality(&f->s, TPH_PRED_SPEC_ONLY));
	assert_int_equal(tph_predicate_locality(&f->s), TPH_PRED_SPEC_ONLY);
	AS(f, 0, tph_declare_predicate_locality(&f->s, TPH_PRED_SPEC));
	assert_int_equal(tph_predicate_locality(&f->s), TPH_PRED_SPEC);
	AS(f, 1, tph_on_predicate(&f->s, cb_predicate));
	AS(f, 1, tph_declare_predicate_locality(&f->s, TPH_PRED_SPEC));
	AS(f, 1, tph_declare_predicate_locality(&f->s, TPH_PRED_LOCAL)); /* the last counts */
	assert_int_equal(tph_predicate_locality(&f->s), TPH_PRED_LOCAL);
	f->pl[2].flags[TPH_FLAG_PREDICATE] = 0; /* a disabled predicate says nothing */
	AS(f, 2, tph_declare_predicate_locality(&f->s, TPH_PRED_GLOBAL));
	assert_int_equal(tph_predicate_locality(&f->s), TPH_PRED_LOCAL);
	f->s.cur_plugin = 0;
	assert_int_equal(tph_declare_predicate_locality(&f->s, 7), TPH_EINVAL);
	f->s.cur_plugin = -1;
	assert_int_equal(tph_declare_predicate_locality(&f->s, TPH_PRED_LOCAL), TPH_EINVAL);
	f->s.frozen = true;
	f->s.cur_plugin = 1;
	assert_int_equal(tph_declare_predicate_locality(&f->s, TPH_PRED_GLOBAL), TPH_EFROZEN);
	f->s.cur_plugin = -1;
	assert_int_equal(tph_predicate_locality(&f->s), TPH_PRED_LOCAL);
	fx_free(f);
}

/* The kernel's test of a final verdict (tph_reason_final_in) over the session's reason table. */
static bool reason_final(const tph_session *s, int first, tph_reason_code code)
{
	return tph_reason_final_in(s->reasons, s->n_reasons, first, code);
}

/* Final reasons: a plugin declares only a code it registered first; the kernel relies on them
 * for the first plugin with a predicate registration only, and not on a code another plugin
 * or a call outside open registered too; a disabled predicate's declaration is dropped; only
 * during open. */
static void test_final_reason(void **state)
{
	fx *f = fx_new(3, NULL, 4, 1);
	tph_session *s = &f->s;
	f->s.cur_plugin = 0;
	tph_reason_code a = tph_reason(s, "a", true), b = tph_reason(s, "b", true),
	                c = tph_reason(s, "shared", false), a2 = tph_reason(s, "a2", true);
	f->s.cur_plugin = 1;
	tph_reason_code d = tph_reason(s, "d", true);
	f->s.cur_plugin = 2;
	tph_reason_code e = tph_reason(s, "e", true);
	f->s.cur_plugin = -1;
	AS(f, 0, tph_on_predicate(s, cb_predicate));
	assert_int_equal(tph_reason_final_plugin(s), -1); /* none declared */
	AS(f, 0, tph_declare_final_reason(s, a));
	AS(f, 0, tph_declare_final_reason(s, a2));
	AS(f, 0, tph_declare_final_reason(s, c));
	int first = tph_reason_final_plugin(s);
	assert_int_equal(first, 0);
	assert_true(reason_final(s, first, a));
	assert_true(reason_final(s, first, c));
	assert_false(reason_final(s, first, b)); /* undeclared */
	assert_false(reason_final(s, first, TPH_PASS));
	assert_false(reason_final(s, -1, a));
	f->s.cur_plugin = 1;
	assert_int_equal(tph_reason(s, "shared", false), c);          /* plugin 1 reports it too */
	assert_int_equal(tph_declare_final_reason(s, a), TPH_EINVAL); /* plugin 0's */
	assert_int_equal(tph_declare_final_reason(s, c), TPH_EINVAL);
	assert_int_equal(tph_declare_final_reason(s, TPH_PASS), TPH_EINVAL);
	assert_int_equal(tph_declare_final_reason(s, (tph_reason_code)(e + 1)), TPH_EINVAL);
	f->s.cur_plugin = -1;
	assert_false(reason_final(s, first, c));
	/* a later plugin sees a node only while plugin 0 passes it, which may change */
	AS(f, 1, tph_on_predicate(s, cb_predicate));
	AS(f, 1, tph_declare_final_reason(s, d));
	assert_false(reason_final(s, tph_reason_final_plugin(s), d));
	f->pl[2].flags[TPH_FLAG_PREDICATE] = 0; /* a disabled predicate says nothing */
	AS(f, 2, tph_declare_final_reason(s, e));
	assert_false(s->reasons[e].final);
	assert_int_equal(tph_reason(s, "a2", true), a2); /* outside open: a per-node callback */
	assert_false(reason_final(s, first, a2));
	assert_true(reason_final(s, first, a));
	assert_int_equal(tph_declare_final_reason(s, b), TPH_EINVAL); /* not opening */
	f->s.frozen = true;
	f->s.cur_plugin = 0;
	assert_int_equal(tph_declare_final_reason(s, b), TPH_EFROZEN);
	f->s.cur_plugin = -1;
	assert_false(reason_final(s, first, b));
	fx_free(f);
}

static bool cb_pass_pods(void *st, const tph_session *s, tph_idx task)
{
	(void)st, (void)s, (void)task;
	return true;
}

/* Pod-count passes: a callback and both columns or TPH_EINVAL; relied on only while the
 * declaring plugin is the only one with a predicate registration; a disabled predicate's
 * declaration is dropped; only during open. */
static void test_pass_pods(void **state)
{
	fx *f = fx_new(3, NULL, 4, 1);
	tph_session *s = &f->s;
	static const uint32_t count[4] = {0, 1, 2, 3};
	static const int64_t limit[4] = {1, 1, 3, 3};
	assert_null(tph_pass_pods_plugin(s)); /* no predicate */
	AS(f, 0, tph_on_predicate(s, cb_predicate));
	assert_null(tph_pass_pods_plugin(s)); /* undeclared */
	f->s.cur_plugin = 0;
	assert_int_equal(tph_declare_pass_pods(s, NULL, count, limit), TPH_EINVAL);
	assert_int_equal(tph_declare_pass_pods(s, cb_pass_pods, NULL, limit), TPH_EINVAL);
	assert_int_equal(tph_declare_pass_pods(s, cb_pass_pods, count, NULL), TPH_EINVAL);
	f->s.cur_plugin = -1;
	assert_null(tph_pass_pods_plugin(s));
	AS(f, 0, tph_declare_pass_pods(s, cb_pass_pods, count, limit));
	const tph_plugin_inst *pi = tph_pass_pods_plugin(s);
	assert_ptr_equal(pi, &f->pl[0]);
	assert_true(tph_pass_pods_holds(pi, 0));
	assert_false(tph_pass_pods_holds(pi, 1)); /* at the limit */
	assert_true(tph_pass_pods_holds(pi, 2));
	assert_false(tph_pass_pods_holds(pi, 3));
	f->pl[2].flags[TPH_FLAG_PREDICATE] = 0; /* a disabled predicate says nothing */
	AS(f, 2, tph_declare_pass_pods(s, cb_pass_pods, count, limit));
	assert_null(f->pl[2].pass_pods);
	/* a pass is every predicate plugin's: a second one, declaring or not, ends it */
	AS(f, 1, tph_on_predicate(s, cb_predicate));
	assert_null(tph_pass_pods_plugin(s));
	AS(f, 1, tph_declare_pass_pods(s, cb_pass_pods, count, limit));
	assert_null(tph_pass_pods_plugin(s));
	assert_int_equal(tph_declare_pass_pods(s, cb_pass_pods, count, limit), TPH_EINVAL);
	f->s.frozen = true;
	f->s.cur_plugin = 0;
	assert_int_equal(tph_declare_pass_pods(s, cb_pass_pods, count, limit), TPH_EFROZEN);
	f->s.cur_plugin = -1;
	fx_free(f);
}

/* Allocatable locality: QUEUE only when every plugin with an Allocatable registration
 * declared it (none registered: QUEUE); the last declaration counts; a disabled Allocatable's
 * declaration is dropped; only during open. */
static void test_allocatable_locality(void **state)
{
	fx *f = fx_new(3, NULL, 4, 1);
	assert_int_equal(tph_allocatable_locality(&f->s), TPH_ALLOC_QUEUE);
	AS(f, 0, tph_on_allocatable(&f->s, cb_qtpred));
	assert_int_equal(tph_allocatable_locality(&f->s), TPH_ALLOC_GLOBAL); /* undeclared */
	AS(f, 0, tph_declare_allocatable_locality(&f->s, TPH_ALLOC_QUEUE));
	assert_int_equal(tph_allocatable_locality(&f->s), TPH_ALLOC_QUEUE);
	AS(f, 1, tph_on_allocatable(&f->s, cb_qtpred));
	AS(f, 1, tph_declare_allocatable_locality(&f->s, TPH_ALLOC_QUEUE));
	AS(f, 1, tph_declare_allocatable_locality(&f->s, TPH_ALLOC_GLOBAL)); /* the last counts */
	assert_int_equal(tph_allocatable_locality(&f->s), TPH_ALLOC_GLOBAL);
	AS(f, 1, tph_declare_allocatable_locality(&f->s, TPH_ALLOC_QUEUE));
	f->pl[2].flags[TPH_FLAG_ALLOCATABLE] = 0; /* a disabled Allocatable says nothing */
	AS(f, 2, tph_declare_allocatable_locality(&f->s, TPH_ALLOC_GLOBAL));
	assert_int_equal(tph_allocatable_locality(&f->s), TPH_ALLOC_QUEUE);
	f->s.cur_plugin = 0;
	assert_int_equal(tph_declare_allocatable_locality(&f->s, 2), TPH_EINVAL);
	f->s.cur_plugin = -1;
	assert_int_equal(tph_declare_allocatable_locality(&f->s, TPH_ALLOC_QUEUE), TPH_EINVAL);
	f->s.frozen = true;
	f->s.cur_plugin = 1;
	assert_int_equal(tph_declare_allocatable_locality(&f->s, TPH_ALLOC_GLOBAL), TPH_EFROZEN);
	f->s.cur_plugin = -1;
	assert_int_equal(tph_allocatable_locality(&f->s), TPH_ALLOC_QUEUE);
	fx_free(f);
}

/* Victim locality: one declaration speaks for a plugin's Preemptable and Reclaimable; each
 * list is CLASS only when all its plugins declared it; gated by either flag. */
static void test_victim_locality(void **state)
{
	fx *f = fx_new(3, NULL, 4, 1);
	assert_int_equal(tph_victims_locality(&f->s, false), TPH_VICTIM_CLASS);
	AS(f, 0, tph_on_preemptable(&f->s, cb_victims));
	AS(f, 0, tph_on_reclaimable(&f->s, cb_victims));
	AS(f, 1, tph_on_reclaimable(&f->s, cb_victims));
	assert_int_equal(tph_victims_locality(&f->s, false), TPH_VICTIM_GLOBAL);
	AS(f, 0, tph_declare_victim_locality(&f->s, TPH_VICTIM_CLASS));
	assert_int_equal(tph_victims_locality(&f->s, false), TPH_VICTIM_CLASS);
	assert_int_equal(tph_victims_locality(&f->s, true), TPH_VICTIM_GLOBAL); /* plugin 1 */
	f->pl[1].flags[TPH_FLAG_PREEMPTABLE] = 0; /* Reclaimable alone still lets it declare */
	AS(f, 1, tph_declare_victim_locality(&f->s, TPH_VICTIM_CLASS));
	assert_int_equal(tph_victims_locality(&f->s, true), TPH_VICTIM_CLASS);
	f->s.cur_plugin = 0;
	assert_int_equal(tph_declare_victim_locality(&f->s, -1), TPH_EINVAL);
	f->s.frozen = true;
	assert_int_equal(tph_declare_victim_locality(&f->s, TPH_VICTIM_GLOBAL), TPH_EFROZEN);
	f->s.cur_plugin = -1;
	assert_int_equal(tph_victims_locality(&f->s, false), TPH_VICTIM_CLASS);
	fx_free(f);
}

static void register_scorers(fx *f)
{
	for (int i = 0; i < 6; i++)
		f->sp[i].weight = 1.0 + i * 0.37;
	AS(f, 0, tph_on_node_order(&f->s, cb_score));
	AS(f, 1, tph_on_node_map(&f->s, cb_score));
	AS(f, 1, tph_on_node_reduce(&f->s, cb_reduce));
	AS(f, 2, tph_on_node_order(&f->s, cb_score));
	AS(f, 2, tph_on_batch_node_order(&f->s, cb_batch));
	AS(f, 3, tph_on_node_map(&f->s, cb_score));     /* no reduce: never counts */
	AS(f, 4, tph_on_node_reduce(&f->s, cb_reduce)); /* no map: an empty list */
	AS(f, 5, tph_on_batch_node_order(&f->s, cb_batch));
}

static void test_score_matches_volcano(void **state)
{
	fx *f = fx_cluster(6);
	register_scorers(f);
	enum {
		N = 700
	};
	tph_idx nodes[N];
	double got[N], map[N], want[N];
	for (uint32_t i = 0; i < N; i++)
		nodes[i] = (i * 7) % BIG;
	n_calls = 0, batch_calls = 0;
	tph_score_nodes(&f->s, 3, nodes, N, got);
	/* reduce calls: plugin 1 then plugin 4 */
	assert_int_equal(n_calls, 2);
	assert_int_equal(calls[0], 301);
	assert_int_equal(calls[1], 304);
	assert_int_equal(batch_calls, 2);
	/* PrioritizeNodes by hand. */
	for (uint32_t i = 0; i < N; i++)
		map[i] = floor(node_score(&f->sp[1], 3, nodes[i]));
	cb_reduce(&f->sp[1], &f->s, 3, nodes, N, map);
	for (uint32_t i = 0; i < N; i++) {
		double r = 0.0 + trunc(map[i]);
		double o = 0.0 + node_score(&f->sp[0], 3, nodes[i]);
		o += node_score(&f->sp[2], 3, nodes[i]);
		double b = 0.0 + node_score(&f->sp[2], 3, nodes[i]);
		b += node_score(&f->sp[5], 3, nodes[i]);
		want[i] = ((0.0 + r) + o) + b;
		if (got[i] != want[i])
			fail_msg("node %u: got %.17g want %.17g", nodes[i], got[i], want[i]);
	}
	fx_free(f);
}

static void cb_batch_fails(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                           uint32_t n, double *out)
{
	cb_batch(st, s, task, nodes, n, out);
	if (((const spy *)st)->batch_fails)
		tph_score_fail(s);
}

/* The tail of one plugin, the last (tph_score_nodes_tail's lean call: the plugin writes into
 * total): tph_score_nodes' bits with one batch call, a failure as NaN and false that the next
 * call does not inherit, and a lone batch plugin (tail 0) as tph_score_nodes sums it. */
static void test_score_tail_one(void **state)
{
	enum {
		N = 40
	};
	tph_idx nodes[N];
	double want[N], pre[N], bat[N], got[N];
	for (uint32_t i = 0; i < N; i++)
		nodes[i] = (i * 13 + 5) % BIG;
	for (int lone = 0; lone < 2; lone++) {
		fx *f = fx_cluster(6);
		for (int i = 0; i < 6; i++)
			f->sp[i].weight = 1.0 + i * 0.37;
		AS(f, 0, tph_on_node_order(&f->s, cb_score));
		if (!lone) {
			AS(f, 1, tph_on_node_map(&f->s, cb_score));
			AS(f, 1, tph_on_node_reduce(&f->s, cb_reduce));
			AS(f, 2, tph_on_batch_node_order(&f->s, cb_batch));
		}
		AS(f, 5, tph_on_batch_node_order(&f->s, cb_batch_fails));
		uint32_t tail = f->s.ep[TPH_EP_BATCH_NODE_ORDER].n - 1;
		assert_int_equal(tail, lone ? 0 : 1);
		assert_true(tph_score_nodes(&f->s, 4, nodes, N, want));
		assert_true(tph_score_nodes_head(&f->s, 4, nodes, N, tail, pre, bat));
		batch_calls = 0;
		assert_true(tph_score_nodes_tail(&f->s, 4, nodes, N, tail, pre, bat, got));
		assert_int_equal(batch_calls, 1);
		assert_memory_equal(got, want, sizeof want);
		f->sp[5].batch_fails = true;
		assert_false(tph_score_nodes_tail(&f->s, 4, nodes, N, tail, pre, bat, got));
		for (uint32_t i = 0; i < N; i++)
			assert_true(isnan(got[i]));
		f->sp[5].batch_fails = false;
		assert_true(tph_score_nodes_tail(&f->s, 4, nodes, N, tail, pre, bat, got));
		assert_memory_equal(got, want, sizeof want);
		fx_free(f);
	}
}

/* Scores cut at a BatchNodeOrder plugin add up to tph_score_nodes' bits at every cut, and
 * the cut is where the plugins answering TPH_SCORE_HYPERNODE are exactly the last batch ones. */
static void test_score_split(void **state)
{
	fx *f = fx_cluster(6);
	register_scorers(f);
	enum {
		N = 300
	};
	tph_idx nodes[N];
	double want[N], pre[N], bat[N], got[N];
	for (uint32_t i = 0; i < N; i++)
		nodes[i] = (i * 11) % BIG;
	tph_score_nodes(&f->s, 4, nodes, N, want);
	for (uint32_t tail = 0; tail <= f->s.ep[TPH_EP_BATCH_NODE_ORDER].n; tail++) {
		assert_true(tph_score_nodes_head(&f->s, 4, nodes, N, tail, pre, bat));
		assert_true(tph_score_nodes_tail(&f->s, 4, nodes, N, tail, pre, bat, got));
		assert_memory_equal(got, want, sizeof want);
	}
	for (int i = 0; i < 6; i++)
		AS(f, i, tph_on_score_locality(&f->s, cb_locality, NULL));
	assert_int_equal(tph_score_hn_tail(&f->s, 4), UINT32_MAX); /* nobody answers so */
	f->sp[5].locality = TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE;
	assert_int_equal(tph_score_hn_tail(&f->s, 4), 1);
	f->sp[2].locality = TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE; /* it has a NodeOrder too */
	assert_int_equal(tph_score_hn_tail(&f->s, 4), UINT32_MAX);
	f->sp[5].locality = TPH_SCORE_LOCAL; /* and it is not the last batch plugin */
	assert_int_equal(tph_score_hn_tail(&f->s, 4), UINT32_MAX);
	/* TPH_SCORE_HN_SET: said by the one tail plugin, never part of the combined answer, and
	 * nothing without TPH_SCORE_HYPERNODE */
	for (int i = 0; i < 5; i++)
		f->sp[i].locality = TPH_SCORE_LOCAL;
	f->sp[5].locality = TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE;
	assert_false(tph_score_hn_set(&f->s, 4, 1));
	f->sp[5].locality = TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE | TPH_SCORE_HN_SET;
	assert_int_equal(tph_score_locality(&f->s, 4), TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE);
	assert_int_equal(tph_score_hn_tail(&f->s, 4), 1);
	assert_true(tph_score_hn_set(&f->s, 4, 1));
	assert_false(tph_score_hn_set(&f->s, 4, 0));          /* a tail of two plugins */
	assert_false(tph_score_hn_set(&f->s, 4, UINT32_MAX)); /* no tail */
	f->sp[5].locality = TPH_SCORE_LOCAL | TPH_SCORE_HN_SET;
	assert_int_equal(tph_score_locality(&f->s, 4), TPH_SCORE_LOCAL);
	assert_false(tph_score_hn_set(&f->s, 4, 1));
	fx_free(f);
}

/* A batch score with negative zeros (the sign a total never shows), or a failure. */
static void cb_batch_neg(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                         uint32_t n, double *out)
{
	const spy *p = st;
	batch_calls++;
	for (uint32_t i = 0; i < n; i++)
		out[i] = nodes[i] % 3 ? -node_score(st, task, nodes[i]) : -0.0;
	if (p->fail)
		tph_score_fail(s);
}

/* tph_score_nodes_last is tph_score_nodes_tail over zero head sums, bit for bit (a -0.0 comes
 * out +0.0), at every cut; only the plugins from the cut on are called, and a failure gives
 * false and NaN as the tail's does. */
static void test_score_last(void **state)
{
	fx *f = fx_cluster(6);
	register_scorers(f);
	AS(f, 3, tph_on_batch_node_order(&f->s, cb_batch_neg));
	(void)state;
	enum {
		N = 200
	};
	tph_idx nodes[N];
	double zero[N] = {0}, want[N], got[N];
	for (uint32_t i = 0; i < N; i++)
		nodes[i] = (i * 7) % BIG;
	uint32_t nb = f->s.ep[TPH_EP_BATCH_NODE_ORDER].n;
	assert_int_equal(nb, 3);
	for (uint32_t tail = 0; tail <= nb; tail++) {
		assert_true(tph_score_nodes_tail(&f->s, 4, nodes, N, tail, zero, zero, want));
		batch_calls = 0;
		assert_true(tph_score_nodes_last(&f->s, 4, nodes, N, tail, got));
		assert_int_equal(batch_calls, nb - tail);
		assert_memory_equal(got, want, sizeof want);
		if (tail == nb - 1) /* node 0 scored -0.0 by the last plugin alone */
			assert_true(got[0] == 0 && !signbit(got[0]));
	}
	f->sp[3].fail = 1;
	assert_false(tph_score_nodes_tail(&f->s, 4, nodes, N, nb - 1, zero, zero, want));
	assert_false(tph_score_nodes_last(&f->s, 4, nodes, N, nb - 1, got));
	for (uint32_t i = 0; i < N; i++)
		assert_true(isnan(got[i]) && isnan(want[i]));
	f->sp[3].fail = 0; /* the failure does not outlive its call */
	assert_true(tph_score_nodes_last(&f->s, 4, nodes, N, nb - 1, got));
	fx_free(f);
}

/* The free tail: the last BatchNodeOrder plugin, whatever it answers, when every other
 * scoring plugin answers plain TPH_SCORE_LOCAL and it scores nowhere else. */
static void test_score_free_tail(void **state)
{
	fx *f = fx_cluster(6);
	register_scorers(f);
	(void)state;
	assert_int_equal(tph_score_free_tail(&f->s, 4), UINT32_MAX); /* no locality declared */
	for (int i = 0; i < 6; i++)
		AS(f, i, tph_on_score_locality(&f->s, cb_locality, NULL));
	for (int i = 0; i < 6; i++)
		f->sp[i].locality = TPH_SCORE_LOCAL | TPH_SCORE_ROW;
	assert_int_equal(tph_score_free_tail(&f->s, 4), 1);
	f->sp[5].locality = TPH_SCORE_GLOBAL; /* the tail's own answer does not count */
	assert_int_equal(tph_score_free_tail(&f->s, 4), 1);
	f->sp[0].locality = TPH_SCORE_LOCAL | TPH_SCORE_JOB; /* the head must be plain LOCAL */
	assert_int_equal(tph_score_free_tail(&f->s, 4), UINT32_MAX);
	f->sp[0].locality = TPH_SCORE_ANCHORED;
	assert_int_equal(tph_score_free_tail(&f->s, 4), UINT32_MAX);
	f->sp[0].locality = TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE;
	assert_int_equal(tph_score_free_tail(&f->s, 4), UINT32_MAX);
	f->sp[0].locality = TPH_SCORE_LOCAL;
	assert_int_equal(tph_score_free_tail(&f->s, 4), 1);
	fx_free(f);
	/* a tail plugin with a NodeOrder too is no free tail */
	f = fx_cluster(6);
	AS(f, 0, tph_on_node_order(&f->s, cb_score));
	AS(f, 1, tph_on_node_order(&f->s, cb_score));
	AS(f, 1, tph_on_batch_node_order(&f->s, cb_batch));
	for (int i = 0; i < 2; i++)
		AS(f, i, tph_on_score_locality(&f->s, cb_locality, NULL));
	f->sp[0].locality = f->sp[1].locality = TPH_SCORE_LOCAL;
	assert_int_equal(tph_score_free_tail(&f->s, 4), UINT32_MAX);
	fx_free(f);
}

/* A batch score that splits (cb_split8) into its plugin's node score and 8. */
static void cb_batch8(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, double *out)
{
	batch_calls++;
	for (uint32_t i = 0; i < n; i++)
		out[i] = node_score(st, task, nodes[i]) + 8.0;
}

static bool cb_split8(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, const int64_t *norm, double *row, double *spec)
{
	const spy *p = st;
	assert_null(norm);
	for (uint32_t i = 0; p->splits && i < n; i++) {
		row[i] = node_score(p, task, nodes[i]);
		spec[i] = 8.0;
	}
	return p->splits;
}

static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x >> 8;
}

/* tph_score_nodes_row over random node lists: tph_score_nodes' bits without a batch call. */
static void row_matches(fx *f, uint32_t n, uint32_t seed, bool split)
{
	tph_idx *nodes = calloc(n, sizeof *nodes);
	double *want = calloc(n, sizeof *want), *got = calloc(n, sizeof *got);
	assert_true(nodes && want && got);
	for (uint32_t i = 0; i < n; i++)
		nodes[i] = lcg(&seed) % BIG;
	tph_idx task = seed % 5;
	assert_true(tph_score_nodes(&f->s, task, nodes, n, want));
	batch_calls = 0;
	assert_true(tph_score_nodes_row(&f->s, task, nodes, n, got));
	assert_int_equal(batch_calls == 0, split);
	assert_memory_equal(got, want, n * sizeof *got);
	free(nodes), free(want), free(got);
}

/* tph_score_nodes_head_split over random node lists: tph_score_nodes_head's bits, without a
 * batch call when the plugins split. */
static void head_matches(fx *f, uint32_t n, uint32_t seed, uint32_t tail, bool split)
{
	tph_idx *nodes = calloc(n, sizeof *nodes);
	double *want = calloc(2 * (size_t)n, sizeof *want),
	       *got = calloc(2 * (size_t)n, sizeof *got);
	assert_true(nodes && want && got);
	for (uint32_t i = 0; i < n; i++)
		nodes[i] = lcg(&seed) % BIG;
	tph_idx task = seed % 5;
	assert_true(tph_score_nodes_head(&f->s, task, nodes, n, tail, want, want + n));
	batch_calls = 0;
	assert_true(tph_score_nodes_head_split(&f->s, task, nodes, n, tail, got, got + n));
	assert_int_equal(batch_calls == 0, split);
	assert_memory_equal(got, want, 2 * (size_t)n * sizeof *got);
	free(nodes), free(want), free(got);
}

/* A head before a tail plugin that neither splits nor answers LOCAL (network-topology-aware's
 * place): its sums from split parts are tph_score_nodes_head's, bit for bit (the spies' scores
 * are sevenths: test_score_row shows that another order of additions changes bits), at any
 * thread count; a plugin that does not split, or a reduce, gives tph_score_nodes_head itself. */
static void test_score_head_split(void **state)
{
	fx *f = fx_cluster(6);
	for (int i = 0; i < 5; i++) {
		f->sp[i].weight = 1.0 + i * 0.37;
		f->sp[i].splits = i < 4;
		f->sp[i].locality = i < 4 ? TPH_SCORE_LOCAL | TPH_SCORE_ROW : TPH_SCORE_GLOBAL;
		AS(f, i, tph_on_score_locality(&f->s, cb_locality, NULL));
	}
	AS(f, 0, tph_on_node_order(&f->s, cb_score));
	for (int i = 1; i < 5; i++) {
		if (i == 2)
			AS(f, i, tph_on_node_order(&f->s, cb_score));
		AS(f, i, tph_on_batch_node_order(&f->s, cb_batch8));
		if (i < 4)
			AS(f, i, tph_on_score_split(&f->s, cb_split8));
	}
	assert_int_equal(tph_score_free_tail(&f->s, 1), 3);
	assert_true(tph_score_head_splits(&f->s, 1, 3));
	assert_false(tph_score_head_splits(&f->s, 1, 4)); /* the tail's plugin does not split */
	uint32_t seed = 23;
	for (int round = 0; round < 30; round++)
		head_matches(f, 1 + lcg(&seed) % 600, seed, 3, true);
	head_matches(f, 2, 3, 3, true);
	head_matches(f, 40, 4, 0, true); /* no plugin before the tail: bat all zeros */
	head_matches(f, 2100, 5, 3, true);
	/* with threads, the head's sums (parallel spans) against the split's, on one thread */
	f->s.threads = 2;
	head_matches(f, 2100, 6, 3, true);
	f->s.threads = 8;
	head_matches(f, 8193, 7, 3, true);
	f->s.threads = 1;
	f->sp[2].locality = TPH_SCORE_LOCAL; /* no ROW: its split may not be asked */
	assert_false(tph_score_head_splits(&f->s, 1, 3));
	f->sp[2].locality = TPH_SCORE_LOCAL | TPH_SCORE_ROW;
	f->sp[2].splits = false;
	head_matches(f, 300, 8, 3, false);
	f->sp[2].splits = true;
	AS(f, 5, tph_on_node_map(&f->s, cb_score));
	AS(f, 5, tph_on_node_reduce(&f->s, cb_reduce));
	head_matches(f, 300, 9, 3, false);
	fx_free(f);
}

/* The scores are sevenths of mixed weights, so adding them in another order changes bits: the
 * check below proves the test would see it. With threads the row's scores still come from the
 * split, on one thread, the bits of tph_score_nodes' parallel spans; without a split or with a
 * reduce, from tph_score_nodes itself. */
static void test_score_row(void **state)
{
	fx *f = fx_cluster(5);
	for (int i = 0; i < 4; i++) {
		f->sp[i].weight = 1.0 + i * 0.37;
		f->sp[i].splits = true;
	}
	AS(f, 0, tph_on_node_order(&f->s, cb_score));
	for (int i = 1; i < 4; i++) {
		if (i != 3)
			AS(f, i, tph_on_node_order(&f->s, cb_score));
		AS(f, i, tph_on_batch_node_order(&f->s, cb_batch8));
		AS(f, i, tph_on_score_split(&f->s, cb_split8));
	}
	uint32_t seed = 11, differ = 0;
	for (int round = 0; round < 40; round++)
		row_matches(f, 1 + lcg(&seed) % 700, seed, true);
	for (tph_idx node = 0; node < 1000; node++) {
		double o = 0.0 + node_score(&f->sp[0], 1, node), b[4];
		o += node_score(&f->sp[1], 1, node);
		o += node_score(&f->sp[2], 1, node);
		for (int i = 1; i < 4; i++)
			b[i] = node_score(&f->sp[i], 1, node) + 8.0;
		differ +=
		    ((0.0 + o) + ((b[1] + b[2]) + b[3])) != ((0.0 + o) + (b[1] + (b[2] + b[3])));
	}
	assert_true(differ > 0);
	row_matches(f, 2100, 5, true); /* one thread: any length */
	f->s.threads = 2;
	row_matches(f, 2100, 6, true); /* tph_score_nodes over 2 threads */
	row_matches(f, 300, 7, true);
	f->s.threads = 8;
	row_matches(f, 8193, 10, true); /* 33 spans over 8 threads */
	row_matches(f, 3, 11, true);
	f->s.threads = 1;
	f->sp[2].splits = false;
	row_matches(f, 300, 8, false);
	f->sp[2].splits = true;
	AS(f, 4, tph_on_node_map(&f->s, cb_score));
	AS(f, 4, tph_on_node_reduce(&f->s, cb_reduce));
	row_matches(f, 300, 9, false);
	fx_free(f);
}

/* A BatchNodeOrder of -0.0 everywhere, split into -0.0 and -0.0: the sign a zero plugin's
 * +0.0 must still clear when added after it (-0.0 + 0.0 is +0.0), and keep clear before it
 * (0.0 + -0.0 is +0.0). */
static void cb_batch_negz(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                          uint32_t n, double *out)
{
	batch_calls++;
	for (uint32_t i = 0; i < n; i++)
		out[i] = -0.0;
}

static bool cb_split_negz(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                          uint32_t n, const int64_t *norm, double *row, double *spec)
{
	for (uint32_t i = 0; i < n; i++) {
		if (row)
			row[i] = -0.0;
		if (spec)
			spec[i] = -0.0;
	}
	return true;
}

/* A plugin that declares its scores +0.0 (tph_declare_score_zero); its calls counted apart. */
static int zero_calls;

static void cb_batch_zero(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                          uint32_t n, double *out)
{
	zero_calls++;
	memset(out, 0, n * sizeof *out);
}

static bool cb_split_zero(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                          uint32_t n, const int64_t *norm, double *row, double *spec)
{
	zero_calls++;
	if (row)
		memset(row, 0, n * sizeof *row);
	if (spec)
		memset(spec, 0, n * sizeof *spec);
	return true;
}

enum {
	ZN = 300
};

/* The head sums before the tail (batch plugin 2) by the batch calls and by the split parts:
 * the same bits, every batch sum +0.0, and the zero plugin asked `asked` times in all. */
static void zero_head(fx *f, int asked)
{
	tph_idx nodes[ZN];
	double want[2 * ZN], got[2 * ZN];
	for (uint32_t i = 0; i < ZN; i++)
		nodes[i] = (i * 37u) % BIG;
	zero_calls = 0;
	assert_true(tph_score_nodes_head(&f->s, 1, nodes, ZN, 2, want, want + ZN));
	assert_true(tph_score_nodes_head_split(&f->s, 1, nodes, ZN, 2, got, got + ZN));
	assert_memory_equal(got, want, sizeof got);
	for (uint32_t i = 0; i < ZN; i++)
		assert_true(got[ZN + i] == 0.0 && !signbit(got[ZN + i]));
	assert_int_equal(zero_calls, asked);
}

/* A row scoring's parts cut at the zero plugin (batch plugin `at`): its row part +0.0, the sum
 * before it as the other plugins' parts give it (-0.0 when the -0.0 plugin is first), the
 * totals tph_score_nodes'. */
static void zero_cut(fx *f, uint32_t at)
{
	tph_idx nodes[ZN];
	double want[ZN], total[ZN], pre[ZN], bat[ZN], row[ZN];
	for (uint32_t i = 0; i < ZN; i++)
		nodes[i] = (i * 53u + 1) % BIG, row[i] = bat[i] = 1.0;
	assert_true(tph_score_nodes(&f->s, 2, nodes, ZN, want));
	zero_calls = 0;
	assert_true(tph_score_nodes_row_parts(&f->s, 2, nodes, ZN, at, total, pre, bat, row));
	assert_int_equal(zero_calls, 0);
	assert_memory_equal(total, want, sizeof total);
	for (uint32_t i = 0; i < ZN; i++) {
		assert_true(row[i] == 0.0 && !signbit(row[i]));
		assert_true(bat[i] == 0.0 && !signbit(bat[i]) == !at);
	}
}

/* PrioritizeNodes starts each score at +0.0, so NodeOrder scores of -0.0 sum to +0.0: the
 * first plugin's scores, written into the sums themselves, still take that first add. */
static void test_score_order_negz(void **state)
{
	(void)state;
	fx *f = fx_cluster(2);
	tph_idx nodes[ZN];
	double out[ZN];
	for (uint32_t i = 0; i < ZN; i++)
		nodes[i] = (i * 41u) % BIG;
	for (int i = 0; i < 2; i++) {
		AS(f, i, tph_on_node_order(&f->s, cb_batch_negz));
		assert_true(tph_score_nodes(&f->s, 1, nodes, ZN, out));
		for (uint32_t k = 0; k < ZN; k++)
			assert_true(out[k] == 0.0 && !signbit(out[k]));
	}
	fx_free(f);
}

/* tph_declare_score_zero: the zero plugin first or second among the batch plugins, its
 * scores never asked outside naive mode, the sums' bits those of the calls; the declaration
 * needs an opening plugin with a split and is gated by enableNodeOrder. */
static void test_score_zero(void **state)
{
	(void)state;
	for (uint32_t first = 0; first < 2; first++) {
		fx *f = fx_cluster(4);
		uint32_t z = first ? 1 : 2, neg = first ? 2 : 1;
		f->sp[0].weight = 1.3, f->sp[3].weight = 0.7, f->sp[3].splits = true;
		AS(f, 0, tph_on_node_order(&f->s, cb_score));
		for (uint32_t i = 1; i < 3; i++) { /* batch plugin i - 1 */
			if (i == neg) {
				AS(f, neg, tph_on_batch_node_order(&f->s, cb_batch_negz));
				AS(f, neg, tph_on_score_split(&f->s, cb_split_negz));
				continue;
			}
			AS(f, z, tph_on_batch_node_order(&f->s, cb_batch_zero));
			f->s.cur_plugin = (int)z;
			assert_int_equal(tph_declare_score_zero(&f->s), TPH_EINVAL); /* no split */
			f->s.cur_plugin = -1;
			AS(f, z, tph_on_score_split(&f->s, cb_split_zero));
			AS(f, z, tph_declare_score_zero(&f->s));
		}
		AS(f, 3, tph_on_batch_node_order(&f->s, cb_batch8));
		AS(f, 3, tph_on_score_split(&f->s, cb_split8));
		zero_head(f, 0);
		zero_cut(f, z - 1);
		zero_calls = 0;
		row_matches(f, 500, 3 + first, true);
		assert_int_equal(zero_calls, 0);
		f->s.opts.naive = true; /* the promise is ignored: each scoring asks once */
		zero_head(f, 2);
		fx_free(f);
	}
	fx *f = fx_cluster(2);
	assert_int_equal(tph_declare_score_zero(&f->s), TPH_EINVAL); /* outside open */
	f->pl[1].flags[TPH_FLAG_NODE_ORDER] = 0;
	for (int i = 0; i < 2; i++) {
		AS(f, i, tph_on_score_split(&f->s, cb_split_zero));
		AS(f, i, tph_declare_score_zero(&f->s));
	}
	assert_true(f->pl[0].score_zero);
	assert_false(f->pl[1].score_zero);
	fx_free(f);
}

static void test_best_node(void **state)
{
	uint16_t tiers[] = {0, 1};
	fx *f = fx_new(2, tiers, 10, 1);
	tph_idx nodes[] = {5, 3, 8, 1};
	double sc[] = {1.0, 7.5, 7.5, -2.0};
	assert_int_equal(tph_best_node(&f->s, 0, nodes, sc, 4), 3); /* tie: first in order */
	assert_int_equal(tph_best_node(&f->s, 0, nodes, sc, 0), TPH_NOIDX);
	double ninf[] = {-(double)INFINITY, -(double)INFINITY};
	assert_int_equal(tph_best_node(&f->s, 0, nodes, ninf, 2), TPH_NOIDX);
	AS(f, 0, tph_on_best_node(&f->s, cb_best));
	AS(f, 1, tph_on_best_node(&f->s, cb_best));
	assert_int_equal(tph_best_node(&f->s, 0, nodes, sc, 4), 3); /* both pass */
	f->sp[1].best = 8;
	assert_int_equal(tph_best_node(&f->s, 0, nodes, sc, 4), 8);
	f->sp[0].best = 1;
	assert_int_equal(tph_best_node(&f->s, 0, nodes, sc, 4), 1);
	fx_free(f);
}

/* Filtering and scoring give the same bits at any thread count. */
static void test_threads_deterministic(void **state)
{
	fx *f = fx_cluster(8);
	register_scorers(f);
	tph_reason_code a = tph_reason(&f->s, "A", false), b = tph_reason(&f->s, "B", false);
	f->sp[6] = (spy){.id = 6, .reason = a, .reject_mod = 5, .reject_rem = 1};
	f->sp[7] = (spy){.id = 7, .reason = b, .reject_mod = 11, .reject_rem = 3};
	AS(f, 6, tph_on_predicate(&f->s, cb_predicate));
	AS(f, 7, tph_on_predicate(&f->s, cb_predicate));
	tph_idx *nodes = malloc(BIG * sizeof *nodes);
	for (uint32_t i = 0; i < BIG; i++)
		nodes[i] = i;
	tph_idx *feas[2] = {malloc(BIG * sizeof(tph_idx)), malloc(BIG * sizeof(tph_idx))};
	tph_reason_code *rc[2] = {malloc(BIG * sizeof(tph_reason_code)),
	                          malloc(BIG * sizeof(tph_reason_code))};
	double *sc[2] = {malloc(BIG * sizeof(double)), malloc(BIG * sizeof(double))};
	int threads[] = {2, 3, 8};
	for (tph_idx t = 0; t < 8; t++) {
		f->s.threads = 1;
		uint32_t k0 = tph_filter_nodes(&f->s, t, nodes, BIG, rc[0], feas[0]);
		tph_score_nodes(&f->s, t, feas[0], k0, sc[0]);
		for (size_t j = 0; j < N_ELEMS(threads); j++) {
			f->s.threads = threads[j];
			uint32_t k1 = tph_filter_nodes(&f->s, t, nodes, BIG, rc[1], feas[1]);
			assert_int_equal(k0, k1);
			assert_memory_equal(rc[0], rc[1], BIG * sizeof(tph_reason_code));
			assert_memory_equal(feas[0], feas[1], k0 * sizeof(tph_idx));
			tph_score_nodes(&f->s, t, feas[1], k1, sc[1]);
			assert_memory_equal(sc[0], sc[1], k0 * sizeof(double));
		}
		/* Every node is scored the same wherever it sits in the input. */
		tph_score_nodes(&f->s, t, nodes, BIG, sc[1]);
		tph_score_nodes(&f->s, t, nodes, BIG, sc[0]);
		assert_memory_equal(sc[0], sc[1], BIG * sizeof(double));
	}
	for (int i = 0; i < 2; i++)
		free(feas[i]), free(rc[i]), free(sc[i]);
	free(nodes);
	fx_free(f);
}

/* Nested victim calls (a plugin asking the framework again) use their own scratch. */
static fx *nest_fx;

static int cb_nested(void *st, const tph_session *s, tph_idx who, const tph_idx *c, uint32_t n,
                     uint8_t *keep)
{
	if (who == 1) {
		tph_idx out[4];
		assert_int_equal(tph_reclaimable(&nest_fx->s, 2, c, n, out), 2);
	}
	keep[0] = keep[1] = 1;
	return 1;
}

static void test_nested_scratch(void **state)
{
	nest_fx = fx_new(1, NULL, 0, 0);
	assert_int_equal(tph_ep_init(&nest_fx->s), TPH_OK);
	AS(nest_fx, 0, tph_on_preemptable(&nest_fx->s, cb_nested));
	AS(nest_fx, 0, tph_on_reclaimable(&nest_fx->s, cb_nested));
	tph_idx c[4] = {0, 1, 2, 3}, out[4];
	assert_int_equal(tph_preemptable(&nest_fx->s, 1, c, 4, out), 2);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[1], 1);
	fx_free(nest_fx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flags_gate_registration),
	    cmocka_unit_test(test_registry_refusals),
	    cmocka_unit_test(test_reasons),
	    cmocka_unit_test(test_job_order_first_non_zero),
	    cmocka_unit_test(test_order_fallbacks),
	    cmocka_unit_test(test_victim_queue_order_plugins),
	    cmocka_unit_test(test_pod_index),
	    cmocka_unit_test(test_task_order_fallback),
	    cmocka_unit_test(test_task_order_cached),
	    cmocka_unit_test(test_votes),
	    cmocka_unit_test(test_predicates),
	    cmocka_unit_test(test_job_valid_and_events),
	    cmocka_unit_test(test_target_job_and_sims),
	    cmocka_unit_test(test_event_rollback),
	    cmocka_unit_test(test_victims),
	    cmocka_unit_test(test_victim_tasks),
	    cmocka_unit_test(test_fit_matches_naive),
	    cmocka_unit_test(test_predicates_first_failure),
	    cmocka_unit_test(test_score_matches_volcano),
	    cmocka_unit_test(test_score_split),
	    cmocka_unit_test(test_score_tail_one),
	    cmocka_unit_test(test_score_free_tail),
	    cmocka_unit_test(test_score_last),
	    cmocka_unit_test(test_score_row),
	    cmocka_unit_test(test_score_head_split),
	    cmocka_unit_test(test_score_zero),
	    cmocka_unit_test(test_score_order_negz),
	    cmocka_unit_test(test_best_node),
	    cmocka_unit_test(test_threads_deterministic),
	    cmocka_unit_test(test_nested_scratch),
	    cmocka_unit_test(test_score_locality),
	    cmocka_unit_test(test_score_locality_row),
	    cmocka_unit_test(test_score_norm),
	    cmocka_unit_test(test_score_anchored_split),
	    cmocka_unit_test(test_predicate_locality),
	    cmocka_unit_test(test_final_reason),
	    cmocka_unit_test(test_pass_pods),
	    cmocka_unit_test(test_allocatable_locality),
	    cmocka_unit_test(test_victim_locality),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

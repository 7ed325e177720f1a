/* Unit tests for the extension point table (kernel/src/session/ep_table.h): its rows agree with
 * conf.h's flag spellings, the registrations it generates are gated as the rows say, and every
 * Volcano point has a dispatcher that combines the answers of three plugins in one to three
 * tiers as its row's rule says, checked against a model of each rule written from Volcano's
 * session_plugins.go over every answer combination. A change to one place only fails here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/ep.h"
#include "session/topo/hypernode.h"

#define N_ELEMS(a) (sizeof(a) / sizeof((a)[0]))
#define NP         3 /* plugins */

/* ---- fixture: NP plugins whose callbacks answer from ans[], two of everything ---- */

typedef struct fx {
	tph_session s;
	tph_plugin_inst pl[NP];
	int ans[NP];
	int64_t req[1];
	tph_job_store jobs;
	tph_job_meta meta; /* job 0 has a subgroup policy */
	const tph_job_meta *metas[2];
	tph_subgroup_row sub;
	tph_queue_store queues;
	tph_topo topo;
} fx;

static fx *fx_new(const uint16_t *tiers, uint32_t n)
{
	fx *f = calloc(1, sizeof *f);
	assert_non_null(f);
	tph_session *s = &f->s;
	assert_int_equal(tph_arena_init(&s->arena, 0), TPH_OK);
	s->threads = 1;
	s->cur_plugin = -1;
	s->plugins = f->pl;
	s->n_plugins = n;
	for (uint32_t i = 0; i < n; i++) {
		f->pl[i].tier = tiers ? tiers[i] : 0;
		f->pl[i].st = &f->ans[i];
		memset(f->pl[i].flags, 1, sizeof f->pl[i].flags);
		s->n_tiers = f->pl[i].tier + 1u;
	}
	s->nodes.n = s->nodes.stride = 2;
	s->tasks.n = 2;
	s->tasks.req = f->req; /* no dimensions: every node fits */
	f->meta.subgroups = &f->sub;
	f->meta.n_subgroups = 1;
	f->metas[0] = &f->meta;
	f->jobs.n = 2;
	f->jobs.meta = f->metas;
	s->jobs = &f->jobs;
	f->queues.n = 2;
	s->queues = &f->queues;
	f->topo.t.n = 2;
	s->topo = &f->topo;
	return f;
}

static void fx_free(fx *f)
{
	tph_ep_free(&f->s);
	tph_arena_destroy(&f->s.arena);
	free(f);
}

/* ---- spies: one per distinct callback type; an answer means what the point's rule needs ---- */

#define FAIL ((tph_reason_code)1)

static int n_calls;

static int ans_of(const void *st)
{
	n_calls++;
	return *(const int *)st;
}

static int spy_cmp(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	int v = ans_of(st);
	return a < b ? v : -v;
}

static int spy_vq_cmp(void *st, const tph_session *s, tph_idx a, tph_idx b, tph_idx pq)
{
	return spy_cmp(st, s, a, b);
}

static void spy_predicate(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                          uint32_t n, tph_reason_code *out)
{
	int v = ans_of(st);
	for (uint32_t i = 0; i < n; i++)
		out[i] = v ? TPH_PASS : FAIL;
}

static tph_reason_code spy_prepredicate(void *st, const tph_session *s, tph_idx task)
{
	return ans_of(st) ? TPH_PASS : FAIL;
}

/* NodeOrder, BatchNodeOrder, NodeMap, NodeReduce (which overwrites) and HyperNodeOrder. */
static void spy_score(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, double *out)
{
	int v = ans_of(st);
	for (uint32_t i = 0; i < n; i++)
		out[i] = v;
}

/* -1: the first node, 1: the second, 0: declines. */
static tph_idx spy_best_node(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                             const double *scores, uint32_t n)
{
	int v = ans_of(st);
	return v ? nodes[v > 0] : TPH_NOIDX;
}

/* 0 abstains; else bit k keeps candidate k (4: decided, none). */
static int spy_victims(void *st, const tph_session *s, tph_idx who, const tph_idx *c, uint32_t n,
                       uint8_t *keep)
{
	int v = ans_of(st);
	keep[0] = v & 1;
	keep[1] = (v >> 1) & 1;
	return v != 0;
}

static void spy_victim_tasks(void *st, const tph_session *s, const tph_idx *t, uint32_t n,
                             uint8_t *victim)
{
	int v = ans_of(st);
	victim[0] = v & 1;
	victim[1] = (v >> 1) & 1;
}

/* Votes and score localities. */
static int spy_int(void *st, const tph_session *s, tph_idx x)
{
	return ans_of(st);
}

static bool spy_pred(void *st, const tph_session *s, tph_idx x)
{
	return ans_of(st) != 0;
}

static bool spy_pred2(void *st, const tph_session *s, tph_idx x, tph_idx y)
{
	return ans_of(st) != 0;
}

static int spy_job_valid(void *st, const tph_session *s, tph_idx job, tph_valid_result *out)
{
	if (ans_of(st))
		return TPH_OK;
	out->reason = "spy";
	return TPH_EINVAL;
}

static void spy_job_event(void *st, tph_session *s, tph_idx job)
{
	ans_of(st);
}

static tph_idx spy_target_job(void *st, const tph_session *s, const tph_idx *jobs, uint32_t n)
{
	return jobs[ans_of(st)];
}

static void spy_session_event(void *st, tph_session *s)
{
	ans_of(st);
}

static tph_reason_code spy_sim_predicate(void *st, const tph_session *s, tph_idx t, tph_idx node)
{
	return ans_of(st) ? TPH_PASS : FAIL;
}

static int spy_sim_task(void *st, tph_session *s, tph_idx pending, tph_idx t, tph_idx node)
{
	return ans_of(st) ? TPH_OK : TPH_EINVAL;
}

static int spy_task_event(void *st, tph_session *s, tph_idx task)
{
	ans_of(st);
	return TPH_OK;
}

static void spy_gradient(void *st, const tph_session *s, tph_idx who, tph_idx hn, int purpose,
                         tph_hn_gradient *out)
{
	tph_hn_gradient_single(out, (tph_idx)ans_of(st));
}

static int spy_anchored(void *st, const tph_session *s, tph_idx task)
{
	return TPH_SCORE_ANCHORED;
}

/* Bit k names node k. */
static uint32_t spy_anchors(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                            uint32_t n, tph_idx *anchors)
{
	int v = ans_of(st);
	uint32_t k = 0;
	for (uint32_t i = 0; i < 2; i++)
		if (v >> i & 1)
			anchors[k++] = nodes[i];
	return k;
}

/* KAI's points: registered, never dispatched. */
static void spy_never(void)
{
	fail_msg("a KAI extension point was dispatched");
}

/* The spy of a callback type. Types that are the same type under two names (tph_score_fn and
 * tph_reduce_fn, tph_job_vote_fn and tph_score_locality_fn, ...) appear once. */
/* clang-format off */
#define SPY(type)                                               \
	_Generic((type)0,                                       \
	    tph_cmp_fn: spy_cmp,                                \
	    tph_victim_queue_cmp_fn: spy_vq_cmp,                \
	    tph_predicate_fn: spy_predicate,                    \
	    tph_prepredicate_fn: spy_prepredicate,              \
	    tph_score_fn: spy_score,                            \
	    tph_best_node_fn: spy_best_node,                    \
	    tph_victims_fn: spy_victims,                        \
	    tph_victim_tasks_fn: spy_victim_tasks,              \
	    tph_job_vote_fn: spy_int,                           \
	    tph_job_pred_fn: spy_pred,                          \
	    tph_queue_task_pred_fn: spy_pred2,                  \
	    tph_job_valid_fn: spy_job_valid,                    \
	    tph_job_event_fn: spy_job_event,                    \
	    tph_target_job_fn: spy_target_job,                  \
	    tph_session_event_fn: spy_session_event,            \
	    tph_sim_predicate_fn: spy_sim_predicate,            \
	    tph_sim_task_fn: spy_sim_task,                      \
	    tph_hn_gradient_fn: spy_gradient,                   \
	    default: (type)spy_never)
/* clang-format on */

/* Register the spy for `ep` through its tph_on_* call, as the plugin whose open runs. */
static int register_spy(tph_session *s, tph_ep ep)
{
	switch (ep) {
#define REG(id, name, reg, type, mode, ...) REG_##mode(id, reg, type)
#define REG_REPLACE(id, reg, type) \
	case TPH_EP_##id:          \
		return tph_on_##reg(s, SPY(type));
#define REG_APPEND REG_REPLACE
#define REG_CUSTOM(id, reg, type)
		TPH_EP_TABLE(REG)
#undef REG
#undef REG_REPLACE
#undef REG_APPEND
#undef REG_CUSTOM
	case TPH_EP_ALLOCATE_EVENT:
		return tph_on_task_events(s, spy_task_event, NULL);
	case TPH_EP_DEALLOCATE_EVENT:
		return tph_on_task_events(s, NULL, spy_task_event);
	case TPH_EP_SCORE_LOCALITY:
		return tph_on_score_locality(s, spy_int, NULL);
	case TPH_EP_SCORE_ANCHORS:
		return tph_on_score_locality(s, spy_anchored, spy_anchors);
	default:
		fail_msg("%s has no registration", tph_ep_table[ep].name);
		return TPH_EINVAL;
	}
}

#define AS(f, i, call)                            \
	do {                                      \
		(f)->s.cur_plugin = (int)(i);     \
		assert_int_equal((call), TPH_OK); \
		(f)->s.cur_plugin = -1;           \
	} while (0)

/* ---- the rows themselves ---- */

static bool gate_key_ok(const tph_ep_info *e)
{
	if (e->gate == TPH_EP_ALWAYS)
		return !strcmp(e->gate_key, "");
	if (e->gate == TPH_EP_PREEMPTABLE_OR_ALLOCATABLE) {
		char both[128];
		snprintf(both, sizeof both, "%s|%s", tph_conf_flag_name(TPH_FLAG_PREEMPTABLE),
		         tph_conf_flag_name(TPH_FLAG_ALLOCATABLE));
		return !strcmp(e->gate_key, both);
	}
	const char *key = tph_conf_flag_name((tph_conf_flag)e->gate);
	return e->gate >= 0 && e->gate < TPH_FLAG_COUNT && key && !strcmp(e->gate_key, key);
}

static void test_rows(void **state)
{
	for (int i = 0; i < TPH_EP_COUNT; i++) {
		const tph_ep_info *e = &tph_ep_table[i];
		if (!e->name || !e->name[0] || !e->reg || !e->reg[0])
			fail_msg("row %d has no name or registration", i);
		for (int j = 0; j < i; j++)
			if ((tph_ep_table[j].flavours & e->flavours) &&
			    !strcmp(tph_ep_table[j].name, e->name))
				fail_msg("%s is named twice in one flavour", e->name);
		if (!gate_key_ok(e))
			fail_msg("%s: gate %d is not spelled \"%s\" in the conf", e->name, e->gate,
			         e->gate_key);
		if (e->flavours < TPH_FLAVOUR_VOLCANO || e->flavours > TPH_FLAVOUR_BOTH ||
		    e->rule >= TPH_RULE_COUNT || e->mode > TPH_EP_REG_CUSTOM)
			fail_msg("%s: bad flavour, rule or mode", e->name);
		/* KAI has no enable flags and keeps a list per point. */
		if (e->flavours == TPH_FLAVOUR_KAI &&
		    (e->gate != TPH_EP_ALWAYS || e->mode != TPH_EP_REG_APPEND))
			fail_msg("%s: a KAI point is gated or replaces", e->name);
		if ((e->flavours & TPH_FLAVOUR_VOLCANO) &&
		    (e->rule == TPH_RULE_TREE || e->rule == TPH_RULE_MERGE ||
		     e->rule == TPH_RULE_IN_ORDER))
			fail_msg("%s: a Volcano point with a KAI rule", e->name);
	}
}

/* Count the registrations of `ep` after the spy registers once (twice: twice) with `flags`. */
static uint32_t registered(tph_ep ep, const int8_t *flags, int times)
{
	fx *f = fx_new(NULL, 1);
	memcpy(f->pl[0].flags, flags, sizeof f->pl[0].flags);
	for (int k = 0; k < times; k++)
		AS(f, 0, register_spy(&f->s, ep));
	uint32_t n = f->s.ep[ep].n;
	fx_free(f);
	return n;
}

/* Each registration lands in its own point's list, gated by exactly its row's flag. */
static void test_registration_gated_by_row(void **state)
{
	int8_t off[TPH_FLAG_COUNT] = {0}, on[TPH_FLAG_COUNT], gate_only[TPH_FLAG_COUNT],
	       all_but_gate[TPH_FLAG_COUNT];
	memset(on, 1, sizeof on);
	for (int i = 0; i < TPH_EP_COUNT; i++) {
		const tph_ep_info *e = &tph_ep_table[i];
		int g = e->gate;
		assert_int_equal(registered((tph_ep)i, on, 1), 1);
		assert_int_equal(registered((tph_ep)i, off, 1), g == TPH_EP_ALWAYS);
		if (e->mode != TPH_EP_REG_CUSTOM)
			assert_int_equal(registered((tph_ep)i, on, 2),
			                 e->mode == TPH_EP_REG_APPEND ? 2 : 1);
		if (g == TPH_EP_ALWAYS)
			continue;
		int a = g >= 0 ? g : TPH_FLAG_PREEMPTABLE, b = g >= 0 ? g : TPH_FLAG_ALLOCATABLE;
		memset(all_but_gate, 1, sizeof all_but_gate);
		all_but_gate[a] = all_but_gate[b] = 0;
		if (registered((tph_ep)i, all_but_gate, 1))
			fail_msg("%s registers without its gate", e->name);
		for (int k = 0; k < 2; k++) {
			memset(gate_only, 0, sizeof gate_only);
			gate_only[k ? b : a] = 1;
			if (registered((tph_ep)i, gate_only, 1) != 1)
				fail_msg("%s is not registered by its gate", e->name);
		}
	}
}

/* ---- dispatchers: one driver per Volcano point, an abstract answer in, one out ---- */

typedef int (*driver_fn)(fx *f);

static const tph_idx two[2] = {0, 1};

static int mask_of(const tph_idx *v, uint32_t k)
{
	int m = 0;
	for (uint32_t i = 0; i < k; i++)
		m |= 1 << v[i];
	return m;
}

static int feasible(fx *f)
{
	tph_reason_code r[1];
	tph_idx out[1];
	return (int)tph_filter_nodes(&f->s, 0, two, 1, r, out);
}

static int total_score(fx *f)
{
	double total = -1;
	tph_score_nodes(&f->s, 0, two, 1, &total);
	return (int)total;
}

static void keep_scores(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                        uint32_t n, double *scores)
{
}

/* A map score counts through its own plugin's reduce only: the first plugin alone has one. */
static int paired_maps(fx *f)
{
	AS(f, 0, tph_on_node_reduce(&f->s, keep_scores));
	return total_score(f);
}

/* Each reduce rewrites its own plugin's map scores, so every plugin gets a map. */
static int reduced_maps(fx *f)
{
	for (uint32_t i = 0; i < f->s.n_plugins; i++)
		AS(f, i, tph_on_node_map(&f->s, keep_scores));
	return total_score(f);
}

static int best_node(fx *f)
{
	static const double scores[2] = {0, 0};
	return tph_best_node(&f->s, 0, two, scores, 2) == 1 ? 1 : -1;
}

static int victim_mask(fx *f, uint32_t (*victims)(tph_session *, tph_idx, const tph_idx *, uint32_t,
                                                  tph_idx *))
{
	tph_idx out[2];
	return mask_of(out, victims(&f->s, 0, two, 2, out));
}

static int victim_tasks(fx *f)
{
	uint8_t v[2];
	tph_victim_tasks(&f->s, two, 2, v);
	return v[0] | v[1] << 1;
}

static int fired(fx *f, int (*fire)(tph_session *, tph_idx))
{
	assert_int_equal(fire(&f->s, 0), TPH_OK);
	return n_calls;
}

static int hn_total(fx *f)
{
	double total = -1;
	tph_hn_order(&f->s, 0, two, 1, &total);
	return (int)total;
}

static int gradient(fx *f, void (*for_who)(tph_session *, tph_idx, tph_idx, int, tph_hn_gradient *))
{
	tph_idx hn[2];
	uint32_t end[2];
	tph_hn_gradient g = {hn, end, 0, 0};
	for_who(&f->s, 0, 1, TPH_PURPOSE_ALLOCATE, &g);
	return g.n ? (int)g.hn[0] : -1;
}

static int anchor_mask(fx *f)
{
	tph_idx out[4];
	return mask_of(out, tph_score_anchors(&f->s, 0, two, 2, out, 4));
}

/* The driver of a point: its dispatcher over the fixture `f`. */
#define DRIVE(point, call)          \
	static int d_##point(fx *f) \
	{                           \
		return (call);      \
	}

DRIVE(job_order, tph_job_order(&f->s, 0, 1))
DRIVE(queue_order, tph_queue_order(&f->s, 0, 1))
DRIVE(task_order, tph_task_order(&f->s, 0, 1))
DRIVE(subjob_order, tph_subjob_order(&f->s, 0, 1))
DRIVE(cluster_order, tph_cluster_order(&f->s, 0, 1))
DRIVE(victim_queue_order, tph_victim_queue_order(&f->s, 0, 1, 0))
DRIVE(predicate, feasible(f))
DRIVE(prepredicate, tph_prepredicate(&f->s, 0) == TPH_PASS)
DRIVE(node_order, total_score(f))
DRIVE(batch_node_order, total_score(f))
DRIVE(node_map, paired_maps(f))
DRIVE(node_reduce, reduced_maps(f))
DRIVE(best_node, best_node(f))
DRIVE(preemptable, victim_mask(f, tph_preemptable))
DRIVE(reclaimable, victim_mask(f, tph_reclaimable))
DRIVE(unified_evictable, victim_mask(f, tph_unified_evictable))
DRIVE(victim_tasks, victim_tasks(f))
DRIVE(job_enqueueable, tph_job_enqueueable(&f->s, 0))
DRIVE(job_pipelined, tph_job_pipelined(&f->s, 0))
DRIVE(subjob_pipelined, tph_subjob_pipelined(&f->s, 0, 0))
DRIVE(job_ready, tph_job_ready(&f->s, 0))
DRIVE(subjob_ready, tph_subjob_ready(&f->s, 0, 0))
DRIVE(job_starving, tph_job_starving(&f->s, 0))
DRIVE(job_valid, tph_job_valid(&f->s, 0, NULL) == TPH_OK)
DRIVE(job_enqueued, (tph_job_enqueued(&f->s, 0), n_calls))
DRIVE(overused, tph_overused(&f->s, 0))
DRIVE(allocatable, tph_allocatable(&f->s, 0, 0))
DRIVE(preemptive, tph_preemptive(&f->s, 0, 0))
DRIVE(target_job, (int)tph_target_job(&f->s, two, 2))
DRIVE(reserved_nodes, (tph_reserved_nodes(&f->s), n_calls))
DRIVE(sim_allocatable, tph_sim_allocatable(&f->s, 0, 0))
DRIVE(sim_predicate, tph_sim_predicate(&f->s, 0, 0) == TPH_PASS)
DRIVE(sim_add_task, tph_sim_add_task(&f->s, 0, 1, 0) == TPH_OK)
DRIVE(sim_remove_task, tph_sim_remove_task(&f->s, 0, 1, 0) == TPH_OK)
DRIVE(allocate_event, fired(f, tph_fire_allocate))
DRIVE(deallocate_event, fired(f, tph_fire_deallocate))
DRIVE(hypernode_order, hn_total(f))
DRIVE(hn_gradient_job, gradient(f, tph_hn_gradient_for_job))
DRIVE(hn_gradient_subjob, gradient(f, tph_hn_gradient_for_subjob))
DRIVE(score_locality, tph_score_locality(&f->s, 0))
DRIVE(score_anchors, anchor_mask(f))

static const driver_fn drivers[TPH_EP_COUNT] = {
    [TPH_EP_JOB_ORDER] = d_job_order,
    [TPH_EP_QUEUE_ORDER] = d_queue_order,
    [TPH_EP_TASK_ORDER] = d_task_order,
    [TPH_EP_SUBJOB_ORDER] = d_subjob_order,
    [TPH_EP_CLUSTER_ORDER] = d_cluster_order,
    [TPH_EP_VICTIM_QUEUE_ORDER] = d_victim_queue_order,
    [TPH_EP_PREDICATE] = d_predicate,
    [TPH_EP_PREPREDICATE] = d_prepredicate,
    [TPH_EP_NODE_ORDER] = d_node_order,
    [TPH_EP_BATCH_NODE_ORDER] = d_batch_node_order,
    [TPH_EP_NODE_MAP] = d_node_map,
    [TPH_EP_NODE_REDUCE] = d_node_reduce,
    [TPH_EP_BEST_NODE] = d_best_node,
    [TPH_EP_PREEMPTABLE] = d_preemptable,
    [TPH_EP_RECLAIMABLE] = d_reclaimable,
    [TPH_EP_UNIFIED_EVICTABLE] = d_unified_evictable,
    [TPH_EP_VICTIM_TASKS] = d_victim_tasks,
    [TPH_EP_JOB_ENQUEUEABLE] = d_job_enqueueable,
    [TPH_EP_JOB_PIPELINED] = d_job_pipelined,
    [TPH_EP_SUBJOB_PIPELINED] = d_subjob_pipelined,
    [TPH_EP_JOB_READY] = d_job_ready,
    [TPH_EP_SUBJOB_READY] = d_subjob_ready,
    [TPH_EP_JOB_STARVING] = d_job_starving,
    [TPH_EP_JOB_VALID] = d_job_valid,
    [TPH_EP_JOB_ENQUEUED] = d_job_enqueued,
    [TPH_EP_OVERUSED] = d_overused,
    [TPH_EP_ALLOCATABLE] = d_allocatable,
    [TPH_EP_PREEMPTIVE] = d_preemptive,
    [TPH_EP_TARGET_JOB] = d_target_job,
    [TPH_EP_RESERVED_NODES] = d_reserved_nodes,
    [TPH_EP_SIM_ALLOCATABLE] = d_sim_allocatable,
    [TPH_EP_SIM_PREDICATE] = d_sim_predicate,
    [TPH_EP_SIM_ADD_TASK] = d_sim_add_task,
    [TPH_EP_SIM_REMOVE_TASK] = d_sim_remove_task,
    [TPH_EP_ALLOCATE_EVENT] = d_allocate_event,
    [TPH_EP_DEALLOCATE_EVENT] = d_deallocate_event,
    [TPH_EP_HYPERNODE_ORDER] = d_hypernode_order,
    [TPH_EP_HN_GRADIENT_JOB] = d_hn_gradient_job,
    [TPH_EP_HN_GRADIENT_SUBJOB] = d_hn_gradient_subjob,
    [TPH_EP_SCORE_LOCALITY] = d_score_locality,
    [TPH_EP_SCORE_ANCHORS] = d_score_anchors,
};

/* ---- the rules, from session_plugins.go: what n answers in tiers tier[] come to ---- */

/* Victim sets (bit k: candidate k; 0 abstains; 4 chooses none): a plugin that chooses none
 * ends its tier with nothing; an intersection left empty starts over at the next plugin; the
 * first tier with victims answers. */
static int tier_intersect(const uint16_t *tier, const int *ans, int n)
{
	int acc = 0;
	for (int i = 0; i < n; i++) {
		if (ans[i] == 4) {
			acc = 0;
			while (i + 1 < n && tier[i + 1] == tier[i])
				i++;
		} else if (ans[i]) {
			acc = acc ? acc & ans[i] : ans[i];
		}
		if (acc && (i + 1 == n || tier[i + 1] != tier[i]))
			return acc;
	}
	return 0;
}

static int model(int rule, const uint16_t *tier, const int *ans, int n)
{
	int r = 0;
	switch (rule) {
	case TPH_RULE_FIRST_NONZERO:
		for (int i = 0; i < n && !r; i++)
			r = ans[i];
		return r;
	case TPH_RULE_ALL_PASS:
		for (int i = 0; i < n; i++)
			if (!ans[i])
				return 0;
		return 1;
	case TPH_RULE_SUM:
	case TPH_RULE_UNION:
		for (int i = 0; i < n; i++)
			r = rule == TPH_RULE_SUM ? r + ans[i] : r | ans[i];
		return r;
	case TPH_RULE_PAIRED: /* the drivers pair the first plugin alone */
		return ans[0];
	case TPH_RULE_VOTE:
		for (int i = 0; i < n; i++) {
			if (ans[i] < 0)
				return 0;
			r |= ans[i] > 0;
			if (r && (i + 1 == n || tier[i + 1] != tier[i]))
				return 1;
		}
		return 1;
	case TPH_RULE_TIER_INTERSECT:
		return tier_intersect(tier, ans, n);
	case TPH_RULE_TIER_UNION:
		for (int i = 0; i < n; i++) {
			r |= ans[i];
			if (r && (i + 1 == n || tier[i + 1] != tier[i]))
				return r;
		}
		return r;
	case TPH_RULE_FIRST_TIER_ALL:
		for (int i = 0; i < n && tier[i] == tier[0]; i++)
			if (!ans[i])
				return 0;
		return 1;
	case TPH_RULE_ANY:
		for (int i = 0; i < n; i++)
			r |= ans[i] != 0;
		return r;
	case TPH_RULE_ALL_RUN:
		return n;
	case TPH_RULE_FIRST_ONLY:
		return ans[0];
	case TPH_RULE_WEAKEST:
		r = TPH_SCORE_LOCAL;
		for (int i = 0; i < n; i++)
			if (ans[i] == TPH_SCORE_GLOBAL ||
			    (ans[i] == TPH_SCORE_ANCHORED && r == TPH_SCORE_LOCAL))
				r = ans[i];
		return r;
	default:
		fail_msg("rule %d has no model", rule);
		return 0;
	}
}

/* The answers a rule tells apart. */
static int domain(int rule, int *out)
{
	static const struct {
		int rule, n, v[5];
	} d[] = {
	    {TPH_RULE_FIRST_NONZERO, 3, {-1, 0, 1}},
	    {TPH_RULE_VOTE, 3, {-1, 0, 1}},
	    {TPH_RULE_SUM, 3, {0, 1, 2}},
	    {TPH_RULE_PAIRED, 3, {0, 1, 2}},
	    {TPH_RULE_WEAKEST, 3, {TPH_SCORE_GLOBAL, TPH_SCORE_LOCAL, TPH_SCORE_ANCHORED}},
	    {TPH_RULE_TIER_INTERSECT, 5, {0, 1, 2, 3, 4}},
	    {TPH_RULE_TIER_UNION, 4, {0, 1, 2, 3}},
	    {TPH_RULE_UNION, 4, {0, 1, 2, 3}},
	    {TPH_RULE_ALL_RUN, 1, {1}},
	};
	for (size_t i = 0; i < N_ELEMS(d); i++)
		if (d[i].rule == rule) {
			memcpy(out, d[i].v, sizeof d[i].v);
			return d[i].n;
		}
	out[0] = 0, out[1] = 1; /* yes/no */
	return 2;
}

static const uint16_t layouts[][NP] = {{0, 0, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 2}};

/* One point, one layout, one set of answers: the dispatcher against the model. */
static void check_once(tph_ep ep, const uint16_t *tier, const int *ans)
{
	const tph_ep_info *e = &tph_ep_table[ep];
	fx *f = fx_new(tier, NP);
	memcpy(f->ans, ans, sizeof f->ans);
	for (uint32_t i = 0; i < NP; i++)
		AS(f, i, register_spy(&f->s, ep));
	n_calls = 0;
	int got = drivers[ep](f), want = model(e->rule, tier, ans, NP);
	if (got != want)
		fail_msg("%s: answers %d %d %d in tiers %d %d %d give %d, its rule says %d",
		         e->name, ans[0], ans[1], ans[2], tier[0], tier[1], tier[2], got, want);
	if (e->rule == TPH_RULE_FIRST_ONLY && n_calls != 1)
		fail_msg("%s asked %d plugins, not the first alone", e->name, n_calls);
	fx_free(f);
}

static void test_dispatchers_follow_rules(void **state)
{
	for (int ep = 0; ep < TPH_EP_COUNT; ep++) {
		const tph_ep_info *e = &tph_ep_table[ep];
		if (!(e->flavours & TPH_FLAVOUR_VOLCANO))
			continue;
		if (!drivers[ep])
			fail_msg("%s has no dispatcher here", e->name);
		int v[5], nv = domain(e->rule, v), ans[NP];
		for (size_t l = 0; l < N_ELEMS(layouts); l++)
			for (int c = 0; c < nv * nv * nv; c++) {
				for (int i = 0, k = c; i < NP; i++, k /= nv)
					ans[i] = v[k % nv];
				/* All declining leaves the order to the fallbacks, not the rule. */
				if (e->rule == TPH_RULE_FIRST_NONZERO && !ans[0] && !ans[1] &&
				    !ans[2])
					continue;
				check_once((tph_ep)ep, layouts[l], ans);
			}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),
	    cmocka_unit_test(test_registration_gated_by_row),
	    cmocka_unit_test(test_dispatchers_follow_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

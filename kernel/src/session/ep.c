/* Extension point registration: the tph_on_* calls plugins make in on_session_open, gated by
 * their enable flags as Volcano gates the dispatch, the reason table, and ep.c's per-session
 * context (fit reasons and scratch) that ep_dispatch.c and ep_score.c use. */
#include "ep.h"

#include "base/mem.h"

#include <stdio.h>
#include <string.h>

const char *const tph_ep_names[TPH_EP_COUNT] = {
    "JobOrder",
    "QueueOrder",
    "TaskOrder",
    "SubJobOrder",
    "ClusterOrder",
    "VictimQueueOrder",
    "Predicate",
    "PrePredicate",
    "NodeOrder",
    "BatchNodeOrder",
    "NodeMap",
    "NodeReduce",
    "BestNode",
    "Preemptable",
    "Reclaimable",
    "UnifiedEvictable",
    "VictimTasks",
    "JobEnqueueable",
    "JobPipelined",
    "SubJobPipelined",
    "JobReady",
    "SubJobReady",
    "JobStarving",
    "JobValid",
    "JobEnqueued",
    "Overused",
    "Allocatable",
    "Preemptive",
    "TargetJob",
    "ReservedNodes",
    "SimulateAllocatable",
    "SimulatePredicate",
    "SimulateAddTask",
    "SimulateRemoveTask",
    "AllocateEvent",
    "DeallocateEvent",
    "HyperNodeOrder",
    "HyperNodeGradientForJob",
    "HyperNodeGradientForSubJob",
    "ScoreLocality",
    "ScoreAnchors",
};

/* Which flag each dispatcher of session_plugins.go tests (isEnabled(plugin.EnabledX)). */
static const int8_t ep_flags[TPH_EP_COUNT] = {
    [TPH_EP_JOB_ORDER] = TPH_FLAG_JOB_ORDER,
    [TPH_EP_QUEUE_ORDER] = TPH_FLAG_QUEUE_ORDER,
    [TPH_EP_TASK_ORDER] = TPH_FLAG_TASK_ORDER,
    [TPH_EP_SUBJOB_ORDER] = TPH_FLAG_SUBJOB_ORDER,
    [TPH_EP_CLUSTER_ORDER] = TPH_FLAG_CLUSTER_ORDER,
    [TPH_EP_VICTIM_QUEUE_ORDER] = TPH_EP_ALWAYS,
    [TPH_EP_PREDICATE] = TPH_FLAG_PREDICATE,
    [TPH_EP_PREPREDICATE] = TPH_FLAG_PREDICATE,
    [TPH_EP_NODE_ORDER] = TPH_FLAG_NODE_ORDER,
    [TPH_EP_BATCH_NODE_ORDER] = TPH_FLAG_NODE_ORDER,
    [TPH_EP_NODE_MAP] = TPH_FLAG_NODE_ORDER,
    [TPH_EP_NODE_REDUCE] = TPH_FLAG_NODE_ORDER,
    [TPH_EP_BEST_NODE] = TPH_FLAG_BEST_NODE,
    [TPH_EP_PREEMPTABLE] = TPH_FLAG_PREEMPTABLE,
    [TPH_EP_RECLAIMABLE] = TPH_FLAG_RECLAIMABLE,
    [TPH_EP_UNIFIED_EVICTABLE] = TPH_EP_ALWAYS,
    [TPH_EP_VICTIM_TASKS] = TPH_FLAG_VICTIM,
    [TPH_EP_JOB_ENQUEUEABLE] = TPH_FLAG_JOB_ENQUEUED,
    [TPH_EP_JOB_PIPELINED] = TPH_FLAG_JOB_PIPELINED,
    [TPH_EP_SUBJOB_PIPELINED] = TPH_FLAG_SUBJOB_PIPELINED,
    [TPH_EP_JOB_READY] = TPH_FLAG_JOB_READY,
    [TPH_EP_SUBJOB_READY] = TPH_FLAG_SUBJOB_READY,
    [TPH_EP_JOB_STARVING] = TPH_FLAG_JOB_STARVING,
    [TPH_EP_JOB_VALID] = TPH_EP_ALWAYS,
    [TPH_EP_JOB_ENQUEUED] = TPH_FLAG_JOB_ENQUEUED,
    [TPH_EP_OVERUSED] = TPH_FLAG_OVERUSED,
    [TPH_EP_ALLOCATABLE] = TPH_FLAG_ALLOCATABLE,
    [TPH_EP_PREEMPTIVE] = TPH_FLAG_PREEMPTIVE,
    [TPH_EP_TARGET_JOB] = TPH_FLAG_TARGET_JOB,
    [TPH_EP_RESERVED_NODES] = TPH_FLAG_RESERVED_NODES,
    [TPH_EP_SIM_ALLOCATABLE] = TPH_FLAG_ALLOCATABLE,
    [TPH_EP_SIM_PREDICATE] = TPH_FLAG_PREDICATE,
    [TPH_EP_SIM_ADD_TASK] = TPH_EP_PREEMPTABLE_OR_ALLOCATABLE,
    [TPH_EP_SIM_REMOVE_TASK] = TPH_EP_PREEMPTABLE_OR_ALLOCATABLE,
    [TPH_EP_ALLOCATE_EVENT] = TPH_EP_ALWAYS,
    [TPH_EP_DEALLOCATE_EVENT] = TPH_EP_ALWAYS,
    [TPH_EP_HYPERNODE_ORDER] = TPH_FLAG_HYPERNODE_ORDER,
    [TPH_EP_HN_GRADIENT_JOB] = TPH_FLAG_HYPERNODE_GRADIENT,
    [TPH_EP_HN_GRADIENT_SUBJOB] = TPH_FLAG_HYPERNODE_GRADIENT,
    [TPH_EP_SCORE_LOCALITY] = TPH_FLAG_NODE_ORDER,
    [TPH_EP_SCORE_ANCHORS] = TPH_FLAG_NODE_ORDER,
};

int tph_ep_flag(tph_ep ep)
{
	return (unsigned)ep < TPH_EP_COUNT ? ep_flags[ep] : TPH_EP_ALWAYS;
}

bool tph_ep_enabled(const tph_plugin_inst *pi, tph_ep ep)
{
	int f = tph_ep_flag(ep);
	if (f == TPH_EP_ALWAYS)
		return true;
	if (f == TPH_EP_PREEMPTABLE_OR_ALLOCATABLE)
		return pi->flags[TPH_FLAG_PREEMPTABLE] > 0 || pi->flags[TPH_FLAG_ALLOCATABLE] > 0;
	return pi->flags[f] > 0;
}

/* ---- registration ---- */

typedef enum {
	REPLACE,
	APPEND
} reg_mode;

static int check_open(const tph_session *s)
{
	if (s->frozen)
		return TPH_EFROZEN;
	if (s->cur_plugin < 0 || (uint32_t)s->cur_plugin >= s->n_plugins)
		return TPH_EINVAL;
	return TPH_OK;
}

static int push(tph_session *s, tph_ep ep, tph_any_fn fn)
{
	tph_ep_list *l = &s->ep[ep];
	if (tph_grow(&l->e, &l->cap, l->n + 1, sizeof *l->e))
		return TPH_ENOMEM;
	const tph_plugin_inst *pi = &s->plugins[s->cur_plugin];
	l->e[l->n++] = (tph_ep_entry){fn, pi->st, (uint16_t)s->cur_plugin, pi->tier};
	return TPH_OK;
}

/* Volcano keeps one function per plugin name and extension point (a map), so registering
 * again replaces; victim task filters and event handlers are lists and append. */
static int reg(tph_session *s, tph_ep ep, tph_any_fn fn, reg_mode mode)
{
	int rc = check_open(s);
	if (rc)
		return rc;
	if (!fn)
		return TPH_EINVAL;
	if (!tph_ep_enabled(&s->plugins[s->cur_plugin], ep))
		return TPH_OK;
	tph_ep_list *l = &s->ep[ep];
	if (mode == REPLACE && l->n && l->e[l->n - 1].plugin == (uint16_t)s->cur_plugin) {
		l->e[l->n - 1].fn = fn;
		return TPH_OK;
	}
	return push(s, ep, fn);
}

#define ANY(fn) ((tph_any_fn)(fn))

int tph_ep_register(tph_session *s, tph_ep ep, tph_any_fn fn)
{
	return reg(s, ep, fn, REPLACE);
}

int tph_on_job_order(tph_session *s, tph_cmp_fn fn)
{
	return reg(s, TPH_EP_JOB_ORDER, ANY(fn), REPLACE);
}

int tph_on_queue_order(tph_session *s, tph_cmp_fn fn)
{
	return reg(s, TPH_EP_QUEUE_ORDER, ANY(fn), REPLACE);
}

int tph_on_task_order(tph_session *s, tph_cmp_fn fn)
{
	return reg(s, TPH_EP_TASK_ORDER, ANY(fn), REPLACE);
}

int tph_on_subjob_order(tph_session *s, tph_cmp_fn fn)
{
	return reg(s, TPH_EP_SUBJOB_ORDER, ANY(fn), REPLACE);
}

int tph_on_cluster_order(tph_session *s, tph_cmp_fn fn)
{
	return reg(s, TPH_EP_CLUSTER_ORDER, ANY(fn), REPLACE);
}

int tph_on_victim_queue_order(tph_session *s, tph_victim_queue_cmp_fn fn)
{
	return reg(s, TPH_EP_VICTIM_QUEUE_ORDER, ANY(fn), REPLACE);
}

int tph_on_predicate(tph_session *s, tph_predicate_fn fn)
{
	return reg(s, TPH_EP_PREDICATE, ANY(fn), REPLACE);
}

int tph_on_prepredicate(tph_session *s, tph_prepredicate_fn fn)
{
	return reg(s, TPH_EP_PREPREDICATE, ANY(fn), REPLACE);
}

int tph_on_node_order(tph_session *s, tph_score_fn fn)
{
	return reg(s, TPH_EP_NODE_ORDER, ANY(fn), REPLACE);
}

int tph_on_batch_node_order(tph_session *s, tph_score_fn fn)
{
	return reg(s, TPH_EP_BATCH_NODE_ORDER, ANY(fn), REPLACE);
}

int tph_on_node_map(tph_session *s, tph_score_fn fn)
{
	return reg(s, TPH_EP_NODE_MAP, ANY(fn), REPLACE);
}

int tph_on_node_reduce(tph_session *s, tph_reduce_fn fn)
{
	return reg(s, TPH_EP_NODE_REDUCE, ANY(fn), REPLACE);
}

int tph_on_best_node(tph_session *s, tph_best_node_fn fn)
{
	return reg(s, TPH_EP_BEST_NODE, ANY(fn), REPLACE);
}

int tph_on_preemptable(tph_session *s, tph_victims_fn fn)
{
	return reg(s, TPH_EP_PREEMPTABLE, ANY(fn), REPLACE);
}

int tph_on_reclaimable(tph_session *s, tph_victims_fn fn)
{
	return reg(s, TPH_EP_RECLAIMABLE, ANY(fn), REPLACE);
}

int tph_on_unified_evictable(tph_session *s, tph_victims_fn fn)
{
	return reg(s, TPH_EP_UNIFIED_EVICTABLE, ANY(fn), REPLACE);
}

int tph_on_victim_tasks(tph_session *s, tph_victim_tasks_fn fn)
{
	return reg(s, TPH_EP_VICTIM_TASKS, ANY(fn), APPEND);
}

int tph_on_job_enqueueable(tph_session *s, tph_job_vote_fn fn)
{
	return reg(s, TPH_EP_JOB_ENQUEUEABLE, ANY(fn), REPLACE);
}

int tph_on_job_pipelined(tph_session *s, tph_job_vote_fn fn)
{
	return reg(s, TPH_EP_JOB_PIPELINED, ANY(fn), REPLACE);
}

int tph_on_subjob_pipelined(tph_session *s, tph_job_vote_fn fn)
{
	return reg(s, TPH_EP_SUBJOB_PIPELINED, ANY(fn), REPLACE);
}

int tph_on_job_ready(tph_session *s, tph_job_pred_fn fn)
{
	return reg(s, TPH_EP_JOB_READY, ANY(fn), REPLACE);
}

int tph_on_subjob_ready(tph_session *s, tph_job_pred_fn fn)
{
	return reg(s, TPH_EP_SUBJOB_READY, ANY(fn), REPLACE);
}

int tph_on_job_starving(tph_session *s, tph_job_pred_fn fn)
{
	return reg(s, TPH_EP_JOB_STARVING, ANY(fn), REPLACE);
}

int tph_on_job_valid(tph_session *s, tph_job_valid_fn fn)
{
	return reg(s, TPH_EP_JOB_VALID, ANY(fn), REPLACE);
}

int tph_on_job_enqueued(tph_session *s, tph_job_event_fn fn)
{
	return reg(s, TPH_EP_JOB_ENQUEUED, ANY(fn), REPLACE);
}

int tph_on_overused(tph_session *s, tph_queue_pred_fn fn)
{
	return reg(s, TPH_EP_OVERUSED, ANY(fn), REPLACE);
}

int tph_on_allocatable(tph_session *s, tph_queue_task_pred_fn fn)
{
	return reg(s, TPH_EP_ALLOCATABLE, ANY(fn), REPLACE);
}

int tph_on_preemptive(tph_session *s, tph_queue_task_pred_fn fn)
{
	return reg(s, TPH_EP_PREEMPTIVE, ANY(fn), REPLACE);
}

int tph_on_target_job(tph_session *s, tph_target_job_fn fn)
{
	return reg(s, TPH_EP_TARGET_JOB, ANY(fn), REPLACE);
}

int tph_on_reserved_nodes(tph_session *s, tph_session_event_fn fn)
{
	return reg(s, TPH_EP_RESERVED_NODES, ANY(fn), REPLACE);
}

int tph_on_sim_allocatable(tph_session *s, tph_sim_allocatable_fn fn)
{
	return reg(s, TPH_EP_SIM_ALLOCATABLE, ANY(fn), REPLACE);
}

int tph_on_sim_predicate(tph_session *s, tph_sim_predicate_fn fn)
{
	return reg(s, TPH_EP_SIM_PREDICATE, ANY(fn), REPLACE);
}

int tph_on_sim_add_task(tph_session *s, tph_sim_task_fn fn)
{
	return reg(s, TPH_EP_SIM_ADD_TASK, ANY(fn), REPLACE);
}

int tph_on_sim_remove_task(tph_session *s, tph_sim_task_fn fn)
{
	return reg(s, TPH_EP_SIM_REMOVE_TASK, ANY(fn), REPLACE);
}

/* The two event lists stay parallel (entry i of each is one registration; either fn may be
 * NULL) so that a failing handler's predecessors can be undone pairwise. */
int tph_on_task_events(tph_session *s, tph_task_event_fn on_allocate,
                       tph_task_event_fn on_deallocate)
{
	int rc = check_open(s);
	if (rc)
		return rc;
	if (!on_allocate && !on_deallocate)
		return TPH_OK;
	tph_ep_list *a = &s->ep[TPH_EP_ALLOCATE_EVENT], *d = &s->ep[TPH_EP_DEALLOCATE_EVENT];
	if (tph_grow(&a->e, &a->cap, a->n + 1, sizeof *a->e) ||
	    tph_grow(&d->e, &d->cap, d->n + 1, sizeof *d->e))
		return TPH_ENOMEM;
	push(s, TPH_EP_ALLOCATE_EVENT, ANY(on_allocate));
	push(s, TPH_EP_DEALLOCATE_EVENT, ANY(on_deallocate));
	return TPH_OK;
}

/* ---- reasons ---- */

tph_reason_code tph_reason(tph_session *s, const char *text, bool unresolvable)
{
	if (!text)
		return TPH_REASON_INVALID;
	for (uint32_t i = 1; i < s->n_reasons; i++)
		if (s->reasons[i].unresolvable == unresolvable && !strcmp(s->reasons[i].text, text))
			return (tph_reason_code)i;
	uint32_t n = s->n_reasons ? s->n_reasons : 1; /* row 0 is TPH_PASS */
	char *copy = NULL;
	if (n >= TPH_REASON_INVALID ||
	    tph_grow(&s->reasons, &s->cap_reasons, n + 1, sizeof *s->reasons) ||
	    !(copy = tph_arena_strndup(&s->arena, text, strlen(text)))) {
		tph_diag_warn(s->diag, "cannot register reason \"%s\"", text);
		return TPH_REASON_INVALID;
	}
	s->reasons[0] = (tph_reason_row){"", false};
	s->reasons[n] = (tph_reason_row){copy, unresolvable};
	s->n_reasons = n + 1;
	return (tph_reason_code)n;
}

const char *tph_reason_text(const tph_session *s, tph_reason_code code)
{
	if (code == TPH_PASS)
		return "";
	if (code >= s->n_reasons)
		return "unknown reason";
	return s->reasons[code].text;
}

bool tph_reason_unresolvable(const tph_session *s, tph_reason_code code)
{
	return code != TPH_PASS && code < s->n_reasons && s->reasons[code].unresolvable;
}

/* ---- per-session context ---- */

tph_ep_ctx *tph_ep_ctx_of(const tph_session *s)
{
	return s->epx;
}

/* "Insufficient <resource>" (Volcano's WrapInsufficientResourceReason). */
static int register_fit_reasons(tph_session *s, tph_ep_ctx *c)
{
	const tph_snapshot *sn = s->snap;
	char buf[256];
	for (uint32_t d = 0; d < s->ndim && d < TPH_RES_MAX; d++) {
		const char *name = tph_strtab_str(sn->strs, sn->dims.name[d]);
		snprintf(buf, sizeof buf, "Insufficient %s", name);
		c->insuff[d] = tph_reason(s, buf, false);
		if (c->insuff[d] == TPH_REASON_INVALID)
			return TPH_ENOMEM;
	}
	return TPH_OK;
}

#define SPAN TPH_SPAN

int tph_ep_init(tph_session *s)
{
	if (tph_ep_ctx_of(s))
		return TPH_OK;
	tph_ep_ctx *c = TPH_ARENA_NEW(&s->arena, tph_ep_ctx, 1);
	if (!c)
		return TPH_ENOMEM;
	uint32_t n = s->nodes.n ? s->nodes.n : 1;
	c->cols_cap = n;
	c->map = TPH_ARENA_NEW(&s->arena, double, n);
	c->reduce = TPH_ARENA_NEW(&s->arena, double, n);
	c->batch = TPH_ARENA_NEW(&s->arena, double, n);
	c->chunk_cap = n / SPAN + 1;
	c->chunk_cnt = TPH_ARENA_NEW(&s->arena, uint32_t, c->chunk_cap);
	if (!c->map || !c->reduce || !c->batch || !c->chunk_cnt)
		return TPH_ENOMEM;
	int rc = s->snap ? register_fit_reasons(s, c) : TPH_OK;
	if (!rc)
		s->epx = c;
	return rc;
}

void tph_ep_free(tph_session *s)
{
	tph_ep_ctx *c = s->epx;
	if (c) {
		tph_free(c->mask);
		tph_free(c->pod_index);
	}
	s->epx = NULL;
	for (int i = 0; i < TPH_EP_COUNT; i++) {
		tph_free(s->ep[i].e);
		s->ep[i] = (tph_ep_list){0};
	}
	tph_free(s->reasons);
	s->reasons = NULL;
	s->n_reasons = s->cap_reasons = 0;
}

tph_reason_code tph_reason_insufficient(const tph_session *s, uint32_t dim)
{
	tph_ep_ctx *c = tph_ep_ctx_of(s);
	return c && dim < TPH_RES_MAX ? c->insuff[dim] : TPH_REASON_INVALID;
}

/* KAI's minruntime plugin (plugins/minruntime): a victim job that started less than its
 * min-runtime ago is protected. Preempt: the victim's queue's preemptMinRuntime, inherited up
 * the tree, else the plugin default. Reclaim: by `reclaimResolveMethod` — `queue` resolves as
 * preempt does on reclaimMinRuntime; `lca` (default) starts at the child of the lowest common
 * ancestor of the two leaf queues on the victim's side and walks up (different top-level
 * queues: the victim's top-level queue, else the default). Victim filters let elastic jobs
 * through; the scenario validators refuse to shrink a protected elastic job below its minimum. */
#include "tephra/alloc.h"
#include "kai_plugins.h"

#include <stddef.h>
#include <string.h>

typedef struct mr_state {
	int64_t preempt_ms, reclaim_ms;
	const char *method;
	bool queue_method;
} mr_state;

static const tph_arg_spec mr_args[] = {
    {"defaultPreemptMinRuntime", TPH_ARG_DURATION, "0s", 0, 1e15, offsetof(mr_state, preempt_ms),
     "preempt protection when no queue sets it", NULL},
    {"defaultReclaimMinRuntime", TPH_ARG_DURATION, "0s", 0, 1e15, offsetof(mr_state, reclaim_ms),
     "reclaim protection when no queue sets it", NULL},
    {"reclaimResolveMethod", TPH_ARG_STRING, "lca", 0, 0, offsetof(mr_state, method), "lca | queue",
     NULL},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL},
};

/* The first min-runtime set from q up to its top-level queue (`field` picks which). */
static int64_t inherited(const tph_kai_queues *q, int32_t i, const int64_t *field, int64_t dflt)
{
	for (uint32_t steps = 0; i >= 0 && steps <= q->n; i = q->parent[i], steps++)
		if (field[i] != TPH_KAI_INHERIT)
			return field[i];
	return dflt;
}

/* The path from q's top-level queue down to q; its length. */
static uint32_t path_of(const tph_kai_queues *q, int32_t i, int32_t *path, uint32_t cap)
{
	uint32_t n = 0;
	for (int32_t k = i; k >= 0 && n < cap; k = q->parent[k])
		n++;
	for (uint32_t at = n; i >= 0 && at > 0; i = q->parent[i])
		path[--at] = i;
	return n;
}

static int64_t reclaim_lca(const mr_state *m, const tph_kai_queues *q, int32_t pq, int32_t vq)
{
	int32_t pp[64] = {0}, vp[64] = {0};
	uint32_t np = path_of(q, pq, pp, 64), nv = path_of(q, vq, vp, 64);
	const int64_t *rmr = q->reclaim_min_runtime_ms;
	if (pp[0] != vp[0])
		return rmr[vp[0]] != TPH_KAI_INHERIT ? rmr[vp[0]] : m->reclaim_ms;
	uint32_t lca = 0;
	for (uint32_t i = 0; i < np && i < nv && pp[i] == vp[i]; i++)
		lca = i;
	if (lca + 1 < nv)
		lca++;
	for (uint32_t i = lca + 1; i-- > 0;)
		if (rmr[vp[i]] != TPH_KAI_INHERIT)
			return rmr[vp[i]];
	return m->reclaim_ms;
}

static int64_t min_runtime(const mr_state *m, const tph_kai_session *s, tph_kai_evict_action a,
                           uint32_t preemptor, uint32_t victim)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	const tph_kai_queues *q = &v->queues;
	int32_t pq = v->jobs.queue[preemptor], vq = v->jobs.queue[victim];
	if (a == TPH_KAI_PREEMPT)
		return vq < 0 ? m->preempt_ms
		              : inherited(q, vq, q->preempt_min_runtime_ms, m->preempt_ms);
	if (pq < 0 || vq < 0)
		return m->reclaim_ms;
	if (m->queue_method)
		return inherited(q, vq, q->reclaim_min_runtime_ms, m->reclaim_ms);
	return reclaim_lca(m, q, pq, vq);
}

static bool is_protected(const mr_state *m, const tph_kai_session *s, tph_kai_evict_action a,
                         uint32_t preemptor, uint32_t victim)
{
	tph_time start = tph_kai_session_last_start(s)[victim];
	return start &&
	       tph_kai_session_view(s)->now < start + min_runtime(m, s, a, preemptor, victim);
}

/* Whether the job has more pods than its gang minimum. */
static bool elastic(const tph_kai_session *s, uint32_t j)
{
	const uint32_t *tasks;
	return tph_kai_job_min(tph_kai_session_view(s), j) <
	       tph_kai_session_job_tasks(s, j, &tasks);
}

static int64_t actively_running(const tph_kai_session *s, uint32_t j)
{
	const uint32_t *tasks;
	const uint8_t *st = tph_kai_session_status(s);
	uint32_t n = tph_kai_session_job_tasks(s, j, &tasks);
	int64_t count = 0;
	for (uint32_t i = 0; i < n; i++)
		count += st[tasks[i]] == TPH_KAI_TS_ALLOCATED ||
		         st[tasks[i]] == TPH_KAI_TS_PIPELINED ||
		         st[tasks[i]] == TPH_KAI_TS_BINDING || st[tasks[i]] == TPH_KAI_TS_BOUND ||
		         st[tasks[i]] == TPH_KAI_TS_RUNNING;
	return count;
}

static bool filter(void *state, const tph_kai_session *s, tph_kai_evict_action a,
                   uint32_t preemptor, uint32_t victim)
{
	return elastic(s, victim) || !is_protected(state, s, a, preemptor, victim);
}

static bool reclaim_filter(void *state, const tph_kai_session *s, uint32_t p, uint32_t v)
{
	return filter(state, s, TPH_KAI_RECLAIM, p, v);
}

static bool preempt_filter(void *state, const tph_kai_session *s, uint32_t p, uint32_t v)
{
	return filter(state, s, TPH_KAI_PREEMPT, p, v);
}

static bool validate(void *state, const tph_kai_session *s, tph_kai_evict_action a,
                     const tph_kai_scenario *sc)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	for (uint32_t i = 0; i < sc->n_victims; i++) {
		uint32_t j = sc->victim_job[i];
		if (!elastic(s, j) || !is_protected(state, s, a, sc->preemptor, j))
			continue;
		int64_t taken = sc->task_first[i + 1] - sc->task_first[i];
		if (tph_kai_job_min(v, j) > actively_running(s, j) - taken)
			return false;
	}
	return true;
}

static bool reclaim_valid(void *state, const tph_kai_session *s, const tph_kai_scenario *sc)
{
	return validate(state, s, TPH_KAI_RECLAIM, sc);
}

static bool preempt_valid(void *state, const tph_kai_session *s, const tph_kai_scenario *sc)
{
	return validate(state, s, TPH_KAI_PREEMPT, sc);
}

static int open_mr(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	mr_state *m = tph_calloc(1, sizeof *m);
	if (!m)
		return tph_diag_set(d, TPH_ENOMEM, "minruntime: out of memory");
	*state = m;
	tph_args_apply(args, mr_args, m, d, "minruntime");
	m->queue_method = m->method && strcmp(m->method, "queue") == 0;
	if (m->method && !m->queue_method && strcmp(m->method, "lca") != 0)
		tph_diag_warn(
		    d, "minruntime: reclaimResolveMethod \"%s\" is not lca or queue: using lca",
		    m->method);
	int rc = tph_kai_add_victim_filter(s, TPH_KAI_RECLAIM, reclaim_filter, m);
	if (rc == TPH_OK)
		rc = tph_kai_add_victim_filter(s, TPH_KAI_PREEMPT, preempt_filter, m);
	if (rc == TPH_OK)
		rc = tph_kai_add_scenario_validator(s, TPH_KAI_RECLAIM, reclaim_valid, m);
	if (rc == TPH_OK)
		rc = tph_kai_add_scenario_validator(s, TPH_KAI_PREEMPT, preempt_valid, m);
	return rc < 0 ? tph_diag_set(d, rc, "minruntime: cannot register its callbacks") : TPH_OK;
}

static void close_mr(tph_kai_session *s, void *state)
{
	tph_free(state);
}

const tph_kai_plugin tph_kai_plugin_minruntime = {TPH_KAI_PLUGIN_ABI, "minruntime", open_mr,
                                                  close_mr};

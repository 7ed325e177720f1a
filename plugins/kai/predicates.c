/* KAI's predicates plugin (plugins/predicates, k8s_internal/predicates): PrePredicate and
 * VictimInvariantPrePredicate refuse a task no node of the pool could hold (MaxNodePoolResources);
 * Predicate refuses a node over the task's queue capacity (IsTaskAllocationOnNodeOverCapacity),
 * of the wrong GPU type (MIG or not), without synced GPU memory for a gpu-memory task, without
 * room for one more pod (two when a shared GPU opens a new group: its reservation pod), not
 * ready or unschedulable, whose labels miss the task's node selector or required node affinity,
 * with a NoSchedule/NoExecute taint the task does not tolerate, or, with
 * restrictSchedulingNodes, without the worker label of the task's kind, or against the
 * required pod affinity and anti-affinity of the task or of the placed pods (InterPodAffinity's
 * PreFilter and Filter, counted in interpod.c; a task whose PreFilter once skipped is never
 * filtered again in the session, as KAI remembers the skip per pod). Labels and taints are
 * interned ids (tph_kai_view, tephra/k8s.h): no string work per task and node. */
#include "interpod_int.h"

#include "tephra/alloc.h"
#include "tephra/k8s.h"
#include "tephra/kai.h"

typedef struct pred_state {
	double max_res[TPH_KAI_DIMS]; /* the largest allocatable of a node in the pool */
	int64_t *pods;                /* [node] pods that leave it no room: all but Releasing */
	ip_index *ix;                 /* NULL: no pod has a required pod (anti-)affinity term */
	uint8_t *ip_skip;             /* [task] InterPodAffinity's PreFilter skipped it */
} pred_state;

static bool any_gpu(const tph_kai_tasks *k, uint32_t t)
{
	return k->gpus[t] > 0 || k->gpu_fraction[t] > 0 || k->gpu_memory_mib[t] > 0 || k->mig[t];
}

/* MaxNodePoolResources: the request of t exceeds every node of the pool in some dimension. */
static bool over_every_node(const pred_state *p, const tph_kai_session *s, uint32_t t)
{
	double req[TPH_KAI_DIMS];
	tph_kai_task_request(s, t, req);
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		if (req[d] > p->max_res[d])
			return true;
	return false;
}

static bool pre_predicate(void *state, const tph_kai_session *s, uint32_t t, uint32_t job)
{
	pred_state *p = state;
	(void)job;
	if (p->ix && ip_filter_skips(p->ix, t))
		p->ip_skip[t] = 1;
	return !over_every_node(p, s, t);
}

static bool victim_invariant(void *state, const tph_kai_session *s, uint32_t t)
{
	return over_every_node(state, s, t);
}

/* NodeInfo.PredicateByNodeResourcesType (DRA aside): a legacy MIG pod is never placed, and no
 * MIG pod joins one on its node. */
static bool resource_type_fits(const tph_kai_view *v, uint32_t t, uint32_t n)
{
	const tph_kai_tasks *k = &v->tasks;
	if (k->legacy_mig[t])
		return false;
	if (!any_gpu(k, t))
		return true;
	uint8_t mig = v->nodes.mig[n];
	if (mig == TPH_KAI_MIG_OFF)
		return !k->mig[t];
	if (k->mig[t] && v->nodes.legacy_mig[n])
		return false;
	bool regular =
	    k->gpus[t] > 0 && k->gpu_fraction[t] <= 0 && k->gpu_memory_mib[t] <= 0 && !k->mig[t];
	if (mig == TPH_KAI_MIG_SINGLE)
		return regular;
	return mig != TPH_KAI_MIG_MIXED || k->mig[t];
}

/* checkMaxPodsWithGpuGroupReservation. */
static bool pods_fit(const pred_state *p, const tph_kai_session *s, uint32_t t, uint32_t n)
{
	int64_t max = tph_kai_session_view(s)->nodes.max_pods[n];
	if (max < 0)
		return true;
	int64_t room = max - p->pods[n];
	if (!tph_kai_task_shared_gpu(s, t))
		return room > 0;
	return room >= 2 || !tph_kai_gpu_new_group(s, t, n);
}

/* TaintToleration's filter: every NoSchedule and NoExecute taint tolerated. */
static bool tolerated(const tph_pod_spec *sp, const tph_node_meta *m)
{
	for (uint32_t i = 0; i < m->n_taints; i++)
		if (m->taints[i].effect != TPH_TAINT_PREFER_NO_SCHEDULE &&
		    !tph_k8s_tolerated(sp->tolerations, sp->n_tolerations, &m->taints[i]))
			return false;
	return true;
}

/* restrictSchedulingNodes: GPU tasks on GPU workers only, the others on CPU workers only. */
static bool worker_fits(const tph_kai_view *v, uint32_t t, uint32_t n)
{
	if (!v->params.restrict_scheduling_nodes)
		return true;
	unsigned want = any_gpu(&v->tasks, t) ? TPH_KAI_GPU_WORKER : TPH_KAI_CPU_WORKER;
	return (v->nodes.workers[n] & want) != 0;
}

static bool inter_pod_ok(const pred_state *p, uint32_t t, uint32_t n)
{
	return !p->ix || p->ip_skip[t] || ip_filter(p->ix, t, n);
}

static bool predicate(void *state, const tph_kai_session *s, uint32_t t, uint32_t n)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	const tph_pod_spec *sp = v->tasks.spec[t];
	const tph_node_meta *m = v->nodes.meta[n];
	if (!tph_kai_task_within_capacity(s, t, n) || !resource_type_fits(v, t, n))
		return false;
	if (v->tasks.gpu_memory_mib[t] > 0 && !v->nodes.memory_synced[n])
		return false;
	if (!pods_fit(state, s, t, n) || !v->nodes.ready[n] || v->nodes.unschedulable[n])
		return false;
	return tph_k8s_node_affinity(sp, m, v->nodes.label_nums, n) && tolerated(sp, m) &&
	       worker_fits(v, t, n) && inter_pod_ok(state, t, n);
}

static bool holds_room(uint8_t st)
{
	return tph_kai_active_used(st) && st != TPH_KAI_TS_RELEASING;
}

/* A task placed (+1) or taken back (-1) holds one pod of its node; an eviction (a -1 on a
 * task that becomes Releasing) gives it back. */
static void on_event(void *state, const tph_kai_session *s, uint32_t t, int32_t node, int sign)
{
	pred_state *p = state;
	if (node >= 0)
		p->pods[node] += sign;
	if (p->ix)
		ip_event(p->ix, s, t, node, sign);
}

static void open_totals(pred_state *p, const tph_kai_session *s)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	const uint8_t *st = tph_kai_session_status(s);
	const int32_t *node = tph_kai_session_node(s);
	for (uint32_t n = 0; n < v->nodes.n; n++) {
		if (!v->nodes.in_pool[n])
			continue;
		double have[TPH_KAI_DIMS] = {v->nodes.gpus[n], (double)v->nodes.cpu_milli[n],
		                             (double)v->nodes.memory[n]};
		for (int d = 0; d < TPH_KAI_DIMS; d++)
			p->max_res[d] = have[d] > p->max_res[d] ? have[d] : p->max_res[d];
	}
	for (uint32_t t = 0; t < v->tasks.n; t++)
		if (node[t] >= 0 && holds_room(st[t]))
			p->pods[node[t]]++;
}

static int open_pred(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	(void)args;
	pred_state *p = tph_calloc(1, sizeof *p);
	if (p) {
		p->pods = tph_calloc((size_t)v->nodes.n + 1, sizeof *p->pods);
		p->ip_skip = tph_calloc((size_t)v->tasks.n + 1, 1);
	}
	*state = p;
	if (!p || !p->pods || !p->ip_skip || ip_build(s, IP_REQUIRED, &p->ix) < 0)
		return tph_diag_set(d, TPH_ENOMEM, "predicates: out of memory");
	open_totals(p, s);
	int rc = tph_kai_add_pre_predicate(s, pre_predicate, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_victim_invariant(s, victim_invariant, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_predicate(s, predicate, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_event_handler(s, on_event, p);
	return rc < 0 ? tph_diag_set(d, rc, "predicates: cannot register") : TPH_OK;
}

static void close_pred(tph_kai_session *s, void *state)
{
	pred_state *p = state;
	(void)s;
	if (p) {
		tph_free(p->pods);
		tph_free(p->ip_skip);
		ip_free(p->ix);
	}
	tph_free(p);
}

const tph_kai_plugin tph_kai_plugin_predicates = {TPH_KAI_PLUGIN_ABI, "predicates", open_pred,
                                                  close_pred};

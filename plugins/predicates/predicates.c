/* predicates: Volcano's predicates plugin, the kube-scheduler Filters it wraps, in its order:
 * the node pod-count check, then NodeUnschedulable, NodeAffinity (nodeSelector and required
 * terms) and TaintToleration, then NodePorts (predicates_ports.c), InterPodAffinity and
 * PodTopologySpread (predicates_pod.c). NodeVolumeLimits, VolumeZone, VolumeBinding and DRA
 * have no data in tephra's format and always pass; their enable keys are accepted. Its event
 * handlers keep the k8s view current, which nodeorder relies on, and assign the cards of the
 * devices a task asks (lib/devices.h, which deviceshare fills); with enablePredicate off they
 * refuse every allocation, as Volcano's Reserve does. */
#include "predicates.h"

#include <stdio.h>
#include <string.h>

#include "tephra/alloc.h"

#define OFF(f) offsetof(pred_st, f)
static const tph_arg_spec pred_args[] = {
    {"predicate.NodeAffinityEnable", TPH_ARG_BOOL, "true", 0, 0, OFF(node_affinity), NULL},
    {"predicate.NodePortsEnable", TPH_ARG_BOOL, "true", 0, 0, OFF(node_ports), NULL},
    {"predicate.TaintTolerationEnable", TPH_ARG_BOOL, "true", 0, 0, OFF(taint_toleration), NULL},
    {"predicate.PodAffinityEnable", TPH_ARG_BOOL, "true", 0, 0, OFF(pod_affinity), NULL},
    {"predicate.NodeVolumeLimitsEnable", TPH_ARG_BOOL, "true", 0, 0, OFF(volume_limits), "no-op"},
    {"predicate.VolumeZoneEnable", TPH_ARG_BOOL, "true", 0, 0, OFF(volume_zone), "no-op"},
    {"predicate.PodTopologySpreadEnable", TPH_ARG_BOOL, "true", 0, 0, OFF(topology_spread), NULL},
    {"predicate.VolumeBindingEnable", TPH_ARG_BOOL, "true", 0, 0, OFF(volume_binding), "no-op"},
    {"predicate.CacheEnable", TPH_ARG_BOOL, "false", 0, 0, OFF(cache),
     "equivalence cache: same verdicts, no-op"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* ---- the stable filters ---- */

/* NodeUnschedulable: tolerating the node.kubernetes.io/unschedulable:NoSchedule taint is
 * tolerating spec.unschedulable. */
static bool unschedulable(const pred_st *st, const tph_session *s, const tph_pod_spec *sp,
                          tph_idx node)
{
	if (!(tph_view_of(s)->nodes->flags[node] & TPH_NODE_UNSCHEDULABLE))
		return false;
	tph_taint_row t = {st->unsched_key, TPH_SID_EMPTY, TPH_TAINT_NO_SCHEDULE};
	return !tph_k8s_tolerated(sp->tolerations, sp->n_tolerations, &t);
}

/* FindMatchingUntoleratedTaint over NoSchedule and NoExecute: the first one, in node order.
 * The taint offsets say how many a node has without touching its cold metadata. */
static tph_reason_code untolerated(const pred_st *st, const tph_session *s, const tph_pod_spec *sp,
                                   tph_idx node)
{
	uint32_t off = st->taint_off[node], n = st->taint_off[node + 1] - off;
	const tph_taint_row *taints = n ? tph_view_of(s)->nodes->meta[node]->taints : NULL;
	for (uint32_t i = 0; i < n; i++) {
		tph_reason_code code = st->taint_code[off + i];
		if (code && !tph_k8s_tolerated(sp->tolerations, sp->n_tolerations, &taints[i]))
			return code;
	}
	return TPH_PASS;
}

/* NodeUnschedulable, NodeAffinity, TaintToleration: they read only the spec and the node's
 * flags, labels and taints, so their verdict never changes in a session; verdict() lets a
 * failure here win over every other check, so its reasons are final (plugin.h). */
static tph_reason_code stable(const pred_st *st, const tph_session *s, const tph_pod_spec *sp,
                              tph_idx node)
{
	if (unschedulable(st, s, sp, node))
		return st->r_unsched;
	bool constrained = sp->node_selector.n || sp->n_node_required;
	if (st->node_affinity && constrained &&
	    !tph_k8s_node_affinity(sp, tph_view_of(s)->nodes->meta[node], &st->v->nums, node))
		return st->r_nodeaff;
	return st->taint_toleration ? untolerated(st, s, sp, node) : TPH_PASS;
}

/* Volcano's Predicate over one node. Its statuses collapse to one code: the one that aborts
 * (UnschedulableAndUnresolvable) if any, else the first Unschedulable (the pod count, then
 * NodePorts, then the pod-to-pod filters). */
static tph_reason_code verdict(const pred_st *st, const tph_session *s, tph_idx task,
                               const pred_pod *pp, const tph_reason_code *col, tph_idx node)
{
	const tph_pod_spec *sp = tph_view_of(s)->tasks->spec[task];
	tph_reason_code soft = st->max_pods[node] <= (int64_t)st->v->npods[node] ? st->r_podnum : 0;
	tph_reason_code t = col ? col[node] : stable(st, s, sp, node);
	if (t)
		return t;
	if (!soft)
		soft = tph_pred_ports_filter(st, sp, node);
	bool unres = false;
	tph_reason_code p = pp ? tph_pred_pod_filter(st, s, pp, task, node, &unres) : TPH_PASS;
	return unres || !soft ? p : soft;
}

/* verdict() once stable() passed a node: the pod count, then NodePorts and the pod-to-pod
 * filters, which pass a spec without host ports that needs no pod state. So a pass moves only
 * with the node's pod count (plugin.h, tph_declare_pass_pods) while that holds. */
static bool pass_pods(void *stv, const tph_session *s, tph_idx task)
{
	const pred_st *st = stv;
	const tph_pod_spec *sp = tph_view_of(s)->tasks->spec[task];
	return (!st->ports.node || !sp->n_host_ports) && !tph_pred_pod_needed(st, s, task);
}

#define STABLE_BUDGET ((size_t)64 << 20)
#define STABLE_SHARE  8u

static tph_reason_code *stable_build(pred_st *st, const tph_session *s, const tph_pod_spec *sp)
{
	size_t bytes = ((size_t)tph_view_of(s)->nodes->n + 1) * sizeof(tph_reason_code);
	tph_reason_code *col = NULL;
	pthread_mutex_lock(&st->lock);
	col = atomic_load_explicit(&st->stable[sp->id], memory_order_acquire);
	if (!col && st->stable_bytes + bytes <= STABLE_BUDGET && (col = tph_malloc(bytes))) {
		for (tph_idx node = 0; node < tph_view_of(s)->nodes->n; node++)
			col[node] = stable(st, s, sp, node);
		st->stable_bytes += bytes;
		atomic_store_explicit(&st->stable[sp->id], col, memory_order_release);
	}
	pthread_mutex_unlock(&st->lock);
	return col;
}

/* The spec's stable column, made once the spec has been filtered over an eighth of the
 * session's nodes (so a spec seen on a few nodes costs little more than before, and a spec
 * filtered over every node, as allocate's kept verdicts are first, evaluates its stable
 * filters about 1.1 times a node instead of twice); NULL until then. */
static const tph_reason_code *stable_col(pred_st *st, const tph_session *s, const tph_pod_spec *sp,
                                         uint32_t n)
{
	if (sp->id >= st->n_specs)
		return NULL;
	tph_reason_code *col = atomic_load_explicit(&st->stable[sp->id], memory_order_acquire);
	if (col)
		return col;
	uint32_t seen =
	    atomic_fetch_add_explicit(&st->stable_seen[sp->id], n, memory_order_relaxed);
	return seen + n >= tph_view_of(s)->nodes->n / STABLE_SHARE ? stable_build(st, s, sp) : NULL;
}

static void predicate(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, tph_reason_code *out)
{
	pred_st *st = stv;
	const pred_pod *pp =
	    tph_pred_pod_needed(st, s, task) ? tph_pred_pod_state(st, s, task) : NULL;
	const tph_reason_code *col = stable_col(st, s, tph_view_of(s)->tasks->spec[task], n);
	for (uint32_t i = 0; i < n; i++)
		out[i] = verdict(st, s, task, pp, col, nodes[i]);
}

/* PrePredicate: Volcano's PreFilters never reject a pod tephra can express; this is where the
 * pod-to-pod state is brought up to date, before the parallel filtering. */
static tph_reason_code prepredicate(void *stv, const tph_session *s, tph_idx task)
{
	pred_st *st = stv;
	if (tph_pred_pod_needed(st, s, task))
		tph_pred_pod_state(st, s, task);
	return TPH_PASS;
}

/* ---- events: Reserve, device allocation, NodeInfo.AddPod / RemovePod ---- */

/* Volcano's allocate event runs the Reserve plugins first: VolumeBinding's Reserve reads the
 * cycle state its PreFilter wrote, and PrePredicate runs only with enablePredicate on, so
 * without it every allocation through a statement is refused (backfill ignores the refusal).
 * Then each device the task asks takes its cards (Devices.Allocate), then the pod joins the
 * node; a refusal leaves the view as it was. */
static int on_allocate(void *stv, tph_session *s, tph_idx task)
{
	pred_st *st = stv;
	if (!st->reserve)
		return TPH_ENOENT;
	if (st->dev->asks && st->dev->asks[task]) {
		int rc = st->dev->allocate(st->dev, s, task);
		if (rc)
			return rc;
	}
	tph_idx old = tph_k8s_view_remove(st->v, s, task);
	tph_pred_pod_event(st, s, task, old, -1);
	tph_pred_ports_event(st, s, task, old, -1);
	tph_idx node = tph_view_of(s)->tasks->node[task];
	if (node == TPH_NOIDX)
		return TPH_OK;
	tph_k8s_view_add(st->v, s, task, node);
	tph_pred_pod_event(st, s, task, node, +1);
	return tph_pred_ports_event(st, s, task, node, +1);
}

static int on_deallocate(void *stv, tph_session *s, tph_idx task)
{
	pred_st *st = stv;
	if (st->dev->asks && st->dev->asks[task])
		st->dev->release(st->dev, s, task);
	tph_idx old = tph_k8s_view_remove(st->v, s, task);
	tph_pred_pod_event(st, s, task, old, -1);
	return tph_pred_ports_event(st, s, task, old, -1);
}

/* ---- BatchNodeOrder: VolumeBinding and DRA scores ----
 * Volcano registers a BatchNodeOrder that runs the score plugins it wraps, VolumeBinding
 * (predicate.VolumeBindingEnable) and DRA. Their PreScore skips a pod without unbound claims
 * or resource claims, the only pods the format has: every node scores 0, whatever node, so the
 * scores are node-local. */
static void batch(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                  double *out)
{
	(void)st, (void)s, (void)task, (void)nodes;
	memset(out, 0, n * sizeof *out);
}

static int batch_locality(void *st, const tph_session *s, tph_idx task)
{
	(void)st, (void)s, (void)task;
	return TPH_SCORE_LOCAL | TPH_SCORE_ROW;
}

/* The split (plugin.h) of those scores: all of the nothing is the row part. */
static bool split(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                  const int64_t *norm, double *row, double *spec)
{
	(void)st, (void)s, (void)task, (void)nodes, (void)norm;
	if (row)
		memset(row, 0, n * sizeof *row);
	if (spec)
		memset(spec, 0, n * sizeof *spec);
	return true;
}

/* ---- open ---- */

static int init_reasons(pred_st *st, tph_session *s)
{
	st->r_podnum = tph_reason(s, "node(s) pod number exceeded", false);
	st->r_unsched = tph_reason(s, "node(s) were unschedulable", true);
	st->r_nodeaff = tph_reason(s, "node(s) didn't match Pod's node affinity/selector", true);
	st->r_aff = tph_reason(s, "node(s) didn't match pod affinity rules", true);
	st->r_anti = tph_reason(s, "node(s) didn't match pod anti-affinity rules", false);
	st->r_exist =
	    tph_reason(s, "node(s) didn't satisfy existing pods anti-affinity rules", false);
	st->r_spread = tph_reason(s, "node(s) didn't match pod topology spread constraints", false);
	st->r_spread_label = tph_reason(
	    s, "node(s) didn't match pod topology spread constraints (missing required label)",
	    true);
	tph_reason_code all[] = {st->r_podnum, st->r_unsched, st->r_nodeaff, st->r_aff,
	                         st->r_anti,   st->r_exist,   st->r_spread,  st->r_spread_label};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		if (all[i] == TPH_REASON_INVALID)
			return TPH_ENOMEM;
	/* verdict() returns a stable() failure before any other check counts; a code another
	 * plugin registered first stays asked again (the kernel refuses it) */
	(void)tph_declare_final_reason(s, st->r_unsched);
	(void)tph_declare_final_reason(s, st->r_nodeaff);
	return TPH_OK;
}

/* One reason per NoSchedule/NoExecute taint of each node, in the taint's own words. */
static int init_taints(pred_st *st, tph_session *s)
{
	uint32_t total = 0;
	st->taint_off = TPH_SESSION_NEW(s, uint32_t, tph_view_of(s)->nodes->n + 1);
	for (tph_idx n = 0; st->taint_off && n < tph_view_of(s)->nodes->n; n++) {
		st->taint_off[n] = total;
		total += tph_view_of(s)->nodes->meta[n]->n_taints;
	}
	st->taint_code = TPH_SESSION_NEW(s, tph_reason_code, total + 1);
	if (!st->taint_off || !st->taint_code)
		return TPH_ENOMEM;
	st->taint_off[tph_view_of(s)->nodes->n] = total;
	char text[512];
	tph_sid key = TPH_SID_NONE, value = TPH_SID_NONE; /* nodes mostly share their taints: */
	tph_reason_code c = TPH_REASON_INVALID;           /* the last one's code, memoised */
	for (tph_idx n = 0; n < tph_view_of(s)->nodes->n; n++) {
		const tph_node_meta *m = tph_view_of(s)->nodes->meta[n];
		for (uint32_t i = 0; i < m->n_taints; i++) {
			const tph_taint_row *t = &m->taints[i];
			if (t->effect == TPH_TAINT_PREFER_NO_SCHEDULE)
				continue;
			if (c == TPH_REASON_INVALID || t->key != key || t->value != value) {
				snprintf(text, sizeof text,
				         "node(s) had untolerated taint {%s: %s}",
				         tph_session_str(s, t->key), tph_session_str(s, t->value));
				if ((c = tph_reason(s, text, true)) == TPH_REASON_INVALID)
					return TPH_ENOMEM;
				(void)tph_declare_final_reason(s, c);
				key = t->key, value = t->value;
			}
			st->taint_code[st->taint_off[n] + i] = c;
		}
	}
	return TPH_OK;
}

static int init_nodes(pred_st *st, tph_session *s)
{
	st->max_pods = TPH_SESSION_NEW(s, int64_t, tph_view_of(s)->nodes->n + 1);
	if (!st->max_pods)
		return TPH_ENOMEM;
	for (tph_idx n = 0; n < tph_view_of(s)->nodes->n; n++)
		st->max_pods[n] = tph_k8s_value(
		    tph_view_of(s)
		        ->nodes->alloc[(size_t)TPH_RES_PODS * tph_view_of(s)->nodes->stride + n]);
	const char *key = "node.kubernetes.io/unschedulable";
	st->unsched_key = tph_session_sid(s, key, strlen(key));
	st->n_specs = tph_view_of(s)->n_specs;
	st->stable = TPH_SESSION_NEW(s, _Atomic(tph_reason_code *), st->n_specs + 1);
	st->stable_seen = TPH_SESSION_NEW(s, _Atomic uint32_t, st->n_specs + 1);
	return st->stable && st->stable_seen ? TPH_OK : TPH_ENOMEM;
}

static void pred_close(tph_session *s, void *stv)
{
	pred_st *st = stv;
	(void)s;
	for (uint32_t i = 0; st->stable && i < st->n_specs; i++)
		tph_free(atomic_load(&st->stable[i]));
	st->stable = NULL;
	tph_pred_ports_free(st);
	if (st->lock_init)
		pthread_mutex_destroy(&st->lock);
	st->lock_init = false;
}

static int register_all(pred_st *st, tph_session *s)
{
	/* its filters read the pod spec and the node, never the request; pod-to-pod terms are the
	 * kernel's to judge (a spec with them is never shared) */
	int rc = tph_declare_predicate_locality(s, TPH_PRED_SPEC_ONLY);
	if (!rc)
		rc = tph_declare_pass_pods(s, pass_pods, st->v->npods, st->max_pods);
	if (!rc)
		rc = tph_on_predicate(s, predicate);
	if (!rc)
		rc = tph_on_prepredicate(s, prepredicate);
	if (!rc)
		rc = tph_on_task_events(s, on_allocate, on_deallocate);
	if (!rc)
		rc = tph_on_sim_add_task(s, tph_pred_sim_add);
	if (!rc)
		rc = tph_on_sim_remove_task(s, tph_pred_sim_remove);
	if (!rc)
		rc = tph_on_sim_predicate(s, tph_pred_sim_predicate);
	if (!rc)
		rc = tph_on_batch_node_order(s, batch);
	if (!rc)
		rc = tph_on_score_locality(s, batch_locality, NULL);
	if (!rc)
		rc = tph_on_score_split(s, split);
	if (!rc)
		rc = tph_declare_score_zero(s);
	return rc;
}

static int pred_open(tph_session *s, void *stv, const tph_args *args)
{
	pred_st *st = stv;
	(void)args;
	if (pthread_mutex_init(&st->lock, NULL))
		return TPH_ENOMEM;
	st->lock_init = true;
	st->reserve = tph_plugin_flag(s, TPH_FLAG_PREDICATE) > 0;
	int rc = tph_k8s_view_share(s, &st->v);
	if (!rc)
		rc = tph_devices_share(s, &st->dev);
	if (!rc)
		rc = tph_pred_pod_init(st, s);
	if (!rc)
		rc = init_nodes(st, s);
	if (!rc)
		rc = init_reasons(st, s);
	if (!rc)
		rc = init_taints(st, s);
	if (!rc)
		rc = tph_pred_ports_init(st, s);
	if (!rc)
		rc = register_all(st, s);
	if (rc)
		pred_close(s, st);
	return rc;
}

const tph_plugin tph_plugin_predicates = {
    .abi = TPH_PLUGIN_ABI,
    .name = "predicates",
    .args = pred_args,
    .state_size = sizeof(pred_st),
    .on_session_open = pred_open,
    .on_session_close = pred_close,
};

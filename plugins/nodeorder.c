/* nodeorder: Volcano's nodeorder plugin. Its BatchNodeOrder runs kube-scheduler's score
 * plugins over the candidate nodes, each normalised to 0..100 as Kubernetes does and
 * multiplied by its weight: NodeResourcesFit LeastAllocated / MostAllocated, NodeResources
 * BalancedAllocation, NodeAffinity (preferred terms), TaintToleration (PreferNoSchedule), and
 * InterPodAffinity and PodTopologySpread (nodeorder_pod.c). ImageLocality is its NodeOrder and
 * scores 0 in tephra, whose pods carry no images. */
#include "nodeorder.h"

#include "mem.h"

#include <math.h>
#include <string.h>

#define OFF(f) offsetof(no_st, f)
static const tph_arg_spec no_args[] = {
    {"leastrequested.weight", TPH_ARG_INT, "1", 0, 0, OFF(w_least), NULL},
    {"mostrequested.weight", TPH_ARG_INT, "0", 0, 0, OFF(w_most), NULL},
    {"nodeaffinity.weight", TPH_ARG_INT, "2", 0, 0, OFF(w_node_aff), NULL},
    {"podaffinity.weight", TPH_ARG_INT, "2", 0, 0, OFF(w_pod_aff), NULL},
    {"balancedresource.weight", TPH_ARG_INT, "1", 0, 0, OFF(w_balanced), NULL},
    {"tainttoleration.weight", TPH_ARG_INT, "3", 0, 0, OFF(w_taint), NULL},
    {"imagelocality.weight", TPH_ARG_INT, "1", 0, 0, OFF(w_image), NULL},
    {"podtopologyspread.weight", TPH_ARG_INT, "2", 0, 0, OFF(w_spread), NULL},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* helper.DefaultNormalizeScore(MaxNodeScore, reverse, scores). */
static void default_normalize(int64_t *raw, uint32_t n, bool reverse)
{
	int64_t max = 0;
	for (uint32_t i = 0; i < n; i++)
		max = raw[i] > max ? raw[i] : max;
	for (uint32_t i = 0; i < n; i++) {
		int64_t v = max ? TPH_MAX_NODE_SCORE * raw[i] / max : 0;
		raw[i] = reverse ? TPH_MAX_NODE_SCORE - v : v;
	}
}

/* ---- NodeResourcesFit and BalancedAllocation ---- */

typedef enum {
	LEAST,
	MOST
} fit_kind;

static int64_t fit_one(fit_kind k, int64_t req, int64_t cap)
{
	if (k == LEAST)
		return req > cap ? 0 : (cap - req) * TPH_MAX_NODE_SCORE / cap;
	return (req > cap ? cap : req) * TPH_MAX_NODE_SCORE / cap;
}

/* Least: cpu and memory weighted 50/50; Most: 1/1. Both count a pod without a cpu or memory
 * request as 100m / 200Mi (NonZeroRequested), the pod being placed included. */
static void fit_scores(const no_st *st, const tph_session *s, tph_idx task, fit_kind k,
                       const tph_idx *nodes, uint32_t n, int64_t *raw)
{
	const int64_t *req = s->tasks.req + (size_t)task * s->ndim, w = k == LEAST ? 50 : 1;
	int64_t pod[2] = {req[TPH_RES_CPU] ? req[TPH_RES_CPU] : TPH_K8S_DEFAULT_MILLI_CPU,
	                  req[TPH_RES_MEMORY] ? req[TPH_RES_MEMORY] : TPH_K8S_DEFAULT_MEMORY};
	const uint32_t dims[2] = {TPH_RES_CPU, TPH_RES_MEMORY},
	               sums[2] = {TPH_KV_NZ_CPU, TPH_KV_NZ_MEM};
	for (uint32_t i = 0; i < n; i++) {
		int64_t score = 0, wsum = 0;
		for (uint32_t r = 0; r < 2; r++) {
			int64_t cap = s->nodes.alloc[(size_t)dims[r] * s->nodes.stride + nodes[i]];
			if (!cap)
				continue;
			int64_t used = st->v.sum[(size_t)sums[r] * st->v.n_nodes + nodes[i]];
			score += fit_one(k, used + pod[r], cap) * w;
			wsum += w;
		}
		raw[i] = wsum ? score / wsum : 0;
	}
}

/* balancedResourceScorer: 100 * (1 - the standard deviation of requested/allocatable). */
static int64_t balanced_one(const double *f, uint32_t m)
{
	double std = 0, total = 0;
	for (uint32_t i = 0; i < m; i++)
		total += f[i];
	if (m == 2) {
		std = fabs((f[0] - f[1]) / 2);
	} else if (m > 2) {
		double mean = total / m, sum = 0;
		for (uint32_t i = 0; i < m; i++)
			sum = sum + (f[i] - mean) * (f[i] - mean);
		std = sqrt(sum / m);
	}
	return (int64_t)((1 - std) * (double)TPH_MAX_NODE_SCORE);
}

/* cpu, memory and nvidia.com/gpu by their real requests; a best-effort pod is not scored. */
static bool balanced_scores(const no_st *st, const tph_session *s, tph_idx task,
                            const tph_idx *nodes, uint32_t n, int64_t *raw)
{
	const int64_t *req = s->tasks.req + (size_t)task * s->ndim;
	uint32_t g = st->v.gpu_dim;
	int64_t pod[3] = {req[TPH_RES_CPU], req[TPH_RES_MEMORY],
	                  g == TPH_NOIDX ? 0 : tph_k8s_value(req[g])};
	if (!pod[0] && !pod[1] && !pod[2])
		return false;
	const uint32_t sums[3] = {TPH_KV_CPU, TPH_KV_MEM, TPH_KV_GPU};
	for (uint32_t i = 0; i < n; i++) {
		tph_idx node = nodes[i];
		const int64_t *alloc = s->nodes.alloc;
		size_t stride = s->nodes.stride;
		int64_t cap[3] = {alloc[TPH_RES_CPU * stride + node],
		                  alloc[TPH_RES_MEMORY * stride + node],
		                  pod[2] ? tph_k8s_value(alloc[(size_t)g * stride + node]) : 0};
		double f[3];
		uint32_t m = 0;
		for (uint32_t r = 0; r < 3; r++) {
			if (!cap[r])
				continue;
			int64_t used = st->v.sum[(size_t)sums[r] * st->v.n_nodes + node] + pod[r];
			double x = (double)used / (double)cap[r];
			f[m++] = x > 1 ? 1 : x;
		}
		raw[i] = balanced_one(f, m);
	}
	return true;
}

/* ---- NodeAffinity and TaintToleration ---- */

/* The summed weights of the preferred terms each node matches. */
static void node_affinity_eval(const no_st *st, const tph_session *s, const tph_pod_spec *sp,
                               const tph_idx *nodes, uint32_t n, int64_t *raw)
{
	for (uint32_t i = 0; i < n; i++) {
		tph_labels l = s->nodes.meta[nodes[i]]->labels;
		raw[i] = 0;
		for (uint32_t t = 0; t < sp->n_node_preferred; t++)
			if (tph_k8s_node_term(&sp->node_preferred[t].term, l, &st->v.nums,
			                      nodes[i]))
				raw[i] += sp->node_preferred[t].weight;
	}
}

#define AFF_BUDGET ((size_t)64 << 20)

/* The spec's column of raw scores once it has been scored over s->nodes.n nodes; NULL before
 * (or past the memory budget). */
static const int64_t *aff_column(no_st *st, const tph_session *s, const tph_pod_spec *sp,
                                 uint32_t n)
{
	if (sp->id >= st->n_specs)
		return NULL;
	if (st->aff_raw[sp->id] || (st->aff_seen[sp->id] += n) < s->nodes.n)
		return st->aff_raw[sp->id];
	size_t bytes = ((size_t)s->nodes.n + 1) * sizeof(int64_t);
	int64_t *col = st->aff_bytes + bytes <= AFF_BUDGET ? tph_malloc(bytes) : NULL;
	if (!col)
		return NULL;
	for (tph_idx node = 0; node < s->nodes.n; node++)
		node_affinity_eval(st, s, sp, &node, 1, &col[node]);
	st->aff_bytes += bytes;
	return st->aff_raw[sp->id] = col;
}

static void node_affinity_raw(no_st *st, const tph_session *s, const tph_pod_spec *sp,
                              const tph_idx *nodes, uint32_t n, int64_t *raw)
{
	const int64_t *col = aff_column(st, s, sp, n);
	if (!col) {
		node_affinity_eval(st, s, sp, nodes, n, raw);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		raw[i] = col[nodes[i]];
}

static bool node_affinity_scores(no_st *st, const tph_session *s, tph_idx task,
                                 const tph_idx *nodes, uint32_t n, int64_t *raw)
{
	const tph_pod_spec *sp = s->tasks.spec[task];
	if (!sp->n_node_preferred)
		return false;
	node_affinity_raw(st, s, sp, nodes, n, raw);
	default_normalize(raw, n, false);
	return true;
}

/* PreferNoSchedule taints no toleration without an effect or with PreferNoSchedule covers. */
static int64_t intolerable(const tph_pod_spec *sp, const tph_node_meta *m)
{
	int64_t count = 0;
	for (uint32_t i = 0; i < m->n_taints; i++) {
		const tph_taint_row *t = &m->taints[i];
		bool ok = t->effect != TPH_TAINT_PREFER_NO_SCHEDULE;
		for (uint32_t j = 0; j < sp->n_tolerations && !ok; j++) {
			const tph_tol_row *tol = &sp->tolerations[j];
			ok = (tol->effect < 0 || tol->effect == TPH_TAINT_PREFER_NO_SCHEDULE) &&
			     tph_k8s_tolerates(tol, t);
		}
		count += !ok;
	}
	return count;
}

/* Nodes without PreferNoSchedule taints, and pods without a toleration that could cover one,
 * need no look at the node's taints. */
static void taint_raw(const no_st *st, const tph_session *s, const tph_pod_spec *sp,
                      const tph_idx *nodes, uint32_t n, int64_t *raw)
{
	bool tolerates = false;
	for (uint32_t j = 0; j < sp->n_tolerations; j++)
		tolerates |= sp->tolerations[j].effect < 0 ||
		             sp->tolerations[j].effect == TPH_TAINT_PREFER_NO_SCHEDULE;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = st->prefer[nodes[i]];
		raw[i] = k && tolerates ? intolerable(sp, s->nodes.meta[nodes[i]]) : k;
	}
}

static void taint_scores(const no_st *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                         uint32_t n, int64_t *raw)
{
	taint_raw(st, s, s->tasks.spec[task], nodes, n, raw);
	default_normalize(raw, n, true);
}

/* ---- BatchNodeOrder ---- */

static void add_weighted(double *out, const int64_t *raw, uint32_t n, int64_t w)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] += (double)(raw[i] * w);
}

static void batch(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                  double *out)
{
	no_st *st = stv;
	int64_t *raw = st->raw;
	memset(out, 0, n * sizeof *out);
	if (st->w_least) {
		fit_scores(st, s, task, LEAST, nodes, n, raw);
		add_weighted(out, raw, n, st->w_least);
	}
	if (st->w_most) {
		fit_scores(st, s, task, MOST, nodes, n, raw);
		add_weighted(out, raw, n, st->w_most);
	}
	if (st->w_balanced && balanced_scores(st, s, task, nodes, n, raw))
		add_weighted(out, raw, n, st->w_balanced);
	if (st->w_node_aff && node_affinity_scores(st, s, task, nodes, n, raw))
		add_weighted(out, raw, n, st->w_node_aff);
	if (st->w_pod_aff && tph_no_pod_affinity(st, s, task, nodes, n, raw))
		add_weighted(out, raw, n, st->w_pod_aff);
	if (st->w_taint) {
		taint_scores(st, s, task, nodes, n, raw);
		add_weighted(out, raw, n, st->w_taint);
	}
	if (st->w_spread && tph_no_spread(st, s, task, nodes, n, raw))
		add_weighted(out, raw, n, st->w_spread);
}

/* ImageLocality: a pod without images scores 0 everywhere (its sum stays under the minimum
 * threshold). */
static void image_locality(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                           uint32_t n, double *out)
{
	(void)st, (void)s, (void)task, (void)nodes;
	memset(out, 0, n * sizeof *out);
}

/* ---- locality (plugin.h) ---- */

static bool soft_spread(const tph_pod_spec *sp)
{
	for (uint32_t i = 0; i < sp->n_spread; i++)
		if (!sp->spread[i].do_not_schedule)
			return true;
	return false;
}

/* Pod-to-pod scores count placements on other nodes (InterPodAffinity is skipped only when
 * the pod has no preferred terms and no node held pods with affinity at open). NodeAffinity
 * and TaintToleration normalise labels-only inputs over the candidates: anchored. */
static int locality(void *stv, const tph_session *s, tph_idx task)
{
	const no_st *st = stv;
	const tph_pod_spec *sp = s->tasks.spec[task];
	if (st->w_pod_aff && (sp->n_pod_preferred || sp->n_anti_preferred || st->v.n_aff_nodes))
		return TPH_SCORE_GLOBAL;
	if (st->w_spread && soft_spread(sp))
		return TPH_SCORE_GLOBAL;
	if ((st->w_node_aff && sp->n_node_preferred) || (st->w_taint && st->any_prefer))
		return TPH_SCORE_ANCHORED;
	return TPH_SCORE_LOCAL;
}

/* The last node with the highest positive raw score: DefaultNormalizeScore divides by it. */
static bool top(const int64_t *raw, uint32_t n, uint32_t *at)
{
	int64_t max = 0;
	for (uint32_t i = 0; i < n; i++)
		if (raw[i] > 0 && raw[i] >= max)
			max = raw[i], *at = i;
	return max > 0;
}

static uint32_t anchors(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                        uint32_t n, tph_idx *out)
{
	no_st *st = stv;
	const tph_pod_spec *sp = s->tasks.spec[task];
	uint32_t k = 0, at;
	if (st->w_node_aff && sp->n_node_preferred) {
		node_affinity_raw(st, s, sp, nodes, n, st->raw);
		if (top(st->raw, n, &at))
			out[k++] = nodes[at];
	}
	if (st->w_taint && st->any_prefer) {
		taint_raw(st, s, sp, nodes, n, st->raw);
		if (top(st->raw, n, &at))
			out[k++] = nodes[at];
	}
	return k;
}

/* ---- events (only when predicates shares the view) ---- */

static int on_allocate(void *stv, tph_session *s, tph_idx task)
{
	no_st *st = stv;
	if (s->tasks.node[task] != TPH_NOIDX)
		tph_k8s_view_add(&st->v, s, task, s->tasks.node[task]);
	else
		tph_k8s_view_remove(&st->v, s, task);
	return TPH_OK;
}

static int on_deallocate(void *stv, tph_session *s, tph_idx task)
{
	tph_k8s_view_remove(&((no_st *)stv)->v, s, task);
	return TPH_OK;
}

static int init_prefer(no_st *st, tph_session *s)
{
	st->prefer = TPH_ARENA_NEW(&s->arena, uint32_t, s->nodes.n + 1);
	if (!st->prefer)
		return TPH_ENOMEM;
	for (tph_idx n = 0; n < s->nodes.n; n++) {
		const tph_node_meta *m = s->nodes.meta[n];
		for (uint32_t i = 0; i < m->n_taints; i++)
			st->prefer[n] += m->taints[i].effect == TPH_TAINT_PREFER_NO_SCHEDULE;
		st->any_prefer |= st->prefer[n] > 0;
	}
	return TPH_OK;
}

static void no_close(tph_session *s, void *stv)
{
	no_st *st = stv;
	(void)s;
	for (uint32_t i = 0; st->aff_raw && i < st->n_specs; i++)
		tph_free(st->aff_raw[i]);
	st->aff_raw = NULL;
}

static int no_open(tph_session *s, void *stv, const tph_args *args)
{
	no_st *st = stv;
	(void)args;
	st->n_specs = s->snap->n_specs;
	st->aff_raw = TPH_ARENA_NEW(&s->arena, int64_t *, st->n_specs + 1);
	st->aff_seen = TPH_ARENA_NEW(&s->arena, uint32_t, st->n_specs + 1);
	int rc = st->aff_raw && st->aff_seen ? tph_k8s_view_init(&st->v, s) : TPH_ENOMEM;
	if (!rc)
		rc = tph_no_pod_init(st, s);
	if (!rc)
		rc = init_prefer(st, s);
	if (rc)
		return rc;
	rc = tph_on_node_order(s, image_locality);
	if (!rc)
		rc = tph_on_batch_node_order(s, batch);
	if (!rc)
		rc = tph_on_score_locality(s, locality, anchors);
	if (!rc && tph_k8s_conf_has(s, "predicates"))
		rc = tph_on_task_events(s, on_allocate, on_deallocate);
	return rc;
}

const tph_plugin tph_plugin_nodeorder = {
    .abi = TPH_PLUGIN_ABI,
    .name = "nodeorder",
    .args = no_args,
    .state_size = sizeof(no_st),
    .on_session_open = no_open,
    .on_session_close = no_close,
};

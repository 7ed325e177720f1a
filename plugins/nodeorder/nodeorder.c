/* nodeorder: Volcano's nodeorder plugin. Its BatchNodeOrder runs kube-scheduler's score
 * plugins over the candidate nodes, each normalised to 0..100 as Kubernetes does and
 * multiplied by its weight: NodeResourcesFit LeastAllocated / MostAllocated, NodeResources
 * BalancedAllocation, NodeAffinity (preferred terms), TaintToleration (PreferNoSchedule), and
 * InterPodAffinity and PodTopologySpread (nodeorder_pod.c). ImageLocality is its NodeOrder
 * (nodeorder_image.c). */
#include "nodeorder.h"

#include "tephra/alloc.h"

#include <assert.h>
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

/* helper.DefaultNormalizeScore(MaxNodeScore, reverse, scores) of one score, given the
 * highest over the candidates (at least 0). */
static int64_t default_normalize(int64_t raw, int64_t max, bool reverse)
{
	int64_t v = max ? TPH_MAX_NODE_SCORE * raw / max : 0;
	return reverse ? TPH_MAX_NODE_SCORE - v : v;
}

/* ---- NodeResourcesFit and BalancedAllocation ---- */

typedef enum {
	LEAST,
	MOST
} fit_kind;

static inline int64_t fit_one(fit_kind k, int64_t req, int64_t cap)
{
	if (k == LEAST)
		return req > cap ? 0 : (cap - req) * TPH_MAX_NODE_SCORE / cap;
	return (req > cap ? cap : req) * TPH_MAX_NODE_SCORE / cap;
}

/* Least: cpu and memory weighted 50/50; Most: 1/1, over the resources the node has. Both
 * count a container without a cpu or memory request as 100m / 200Mi (NonZeroRequested), the
 * pod being placed included. Inlined with k a constant, the weighted mean divides by one. */
static inline int64_t fit_score(fit_kind k, int64_t cpu, int64_t mem, int64_t cap_cpu,
                                int64_t cap_mem)
{
	const int64_t w = k == LEAST ? 50 : 1;
	int64_t score = 0, wsum = 0;
	if (cap_cpu)
		score += fit_one(k, cpu, cap_cpu) * w, wsum += w;
	if (cap_mem)
		score += fit_one(k, mem, cap_mem) * w, wsum += w;
	return wsum == 2 * w ? score / (2 * w) : wsum ? score / w : 0;
}

/* balancedResourceScorer: 100 * (1 - the standard deviation of requested/allocatable). */
static inline int64_t balanced_one(const double *f, uint32_t m)
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

/* The pod's cpu, memory and nvidia.com/gpu requests; a best-effort pod is not scored. */
static bool balanced_pod(const no_st *st, const tph_session *s, tph_idx task, int64_t pod[3])
{
	const int64_t *req = tph_view_of(s)->tasks->req + (size_t)task * tph_view_of(s)->ndim;
	uint32_t g = st->v->gpu_dim;
	pod[0] = req[TPH_RES_CPU];
	pod[1] = req[TPH_RES_MEMORY];
	pod[2] = g == TPH_NOIDX ? 0 : tph_k8s_value(req[g]);
	return pod[0] || pod[1] || pod[2];
}

/* What the unnormalised scorers read for one pod, found once per call: the view's node lines
 * (a node's sums and allocatable in one line) and the pod's requests. */
typedef struct no_row {
	const tph_k8s_line *line;
	bool gpu;                            /* balanced over gpu (the pod requests some) */
	int64_t nz[2], pod[3];               /* the pod's own (balanced_pod) */
	int64_t w_least, w_most, w_balanced; /* w_balanced 0: the pod is not scored */
} no_row;

static void row_prepare(const no_st *st, const tph_session *s, tph_idx task, bool balanced,
                        const int64_t pod[3], no_row *r)
{
	const int64_t *nz = tph_k8s_nonzero(s, task);
	*r = (no_row){.line = st->v->line,
	              .gpu = balanced && pod[2],
	              .nz = {nz[0], nz[1]},
	              .pod = {pod[0], pod[1], pod[2]},
	              .w_least = st->w_least,
	              .w_most = st->w_most,
	              .w_balanced = balanced ? st->w_balanced : 0};
}

/* cpu, memory and nvidia.com/gpu by their real requests (balanced_pod). */
static inline int64_t balanced_node(const no_row *r, const tph_k8s_line *l)
{
	int64_t cap[3] = {l->cap_cpu, l->cap_mem, r->gpu ? tph_k8s_value(l->cap_gpu) : 0};
	static const uint32_t used[3] = {TPH_KV_CPU, TPH_KV_MEM, TPH_KV_GPU};
	double f[3];
	uint32_t m = 0;
	for (uint32_t k = 0; k < 3; k++) {
		if (!cap[k])
			continue;
		int64_t u = l->sum[used[k]] + r->pod[k];
		double x = (double)u / (double)cap[k];
		f[m++] = x > 1 ? 1 : x;
	}
	return balanced_one(f, m);
}

/* The unnormalised scores of one node, weighted and summed from 0 in kube-scheduler's order. */
static inline double row_node(const no_row *r, tph_idx node)
{
	const tph_k8s_line *l = &r->line[node];
	int64_t cap_cpu = l->cap_cpu, cap_mem = l->cap_mem;
	int64_t cpu = l->sum[TPH_KV_NZ_CPU] + r->nz[0], mem = l->sum[TPH_KV_NZ_MEM] + r->nz[1];
	double v = 0;
	if (r->w_least)
		v += (double)(fit_score(LEAST, cpu, mem, cap_cpu, cap_mem) * r->w_least);
	if (r->w_most)
		v += (double)(fit_score(MOST, cpu, mem, cap_cpu, cap_mem) * r->w_most);
	if (r->w_balanced)
		v += (double)(balanced_node(r, l) * r->w_balanced);
	return v;
}

/* ---- NodeAffinity and TaintToleration ---- */

/* The summed weights of the preferred terms each node matches. */
static void node_affinity_eval(const no_st *st, const tph_session *s, const tph_pod_spec *sp,
                               const tph_idx *nodes, uint32_t n, int64_t *raw)
{
	for (uint32_t i = 0; i < n; i++) {
		tph_labels l = tph_view_of(s)->nodes->meta[nodes[i]]->labels;
		raw[i] = 0;
		for (uint32_t t = 0; t < sp->n_node_preferred; t++)
			if (tph_k8s_node_term(&sp->node_preferred[t].term, l, &st->v->nums,
			                      nodes[i]))
				raw[i] += sp->node_preferred[t].weight;
	}
}

#define AFF_BUDGET ((size_t)64 << 20)

/* The spec's column of raw scores once it has been scored over tph_view_of(s)->nodes->n nodes; NULL
 * before (or past the memory budget). */
static const int64_t *aff_column(no_st *st, const tph_session *s, const tph_pod_spec *sp,
                                 uint32_t n)
{
	if (sp->id >= st->n_specs)
		return NULL;
	if (st->aff_raw[sp->id] || (st->aff_seen[sp->id] += n) < tph_view_of(s)->nodes->n)
		return st->aff_raw[sp->id];
	size_t bytes = ((size_t)tph_view_of(s)->nodes->n + 1) * sizeof(int64_t);
	int64_t *col = st->aff_bytes + bytes <= AFF_BUDGET ? tph_malloc(bytes) : NULL;
	if (!col)
		return NULL;
	for (tph_idx node = 0; node < tph_view_of(s)->nodes->n; node++)
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
		raw[i] =
		    k && tolerates ? intolerable(sp, tph_view_of(s)->nodes->meta[nodes[i]]) : k;
	}
}

/* ---- BatchNodeOrder ----
 * Two parallel passes over spans of the candidates (tph_session_parallel): the first writes
 * the unnormalised scores (NodeResourcesFit, BalancedAllocation) weighted into out and the raw
 * scores of the normalised scorers into their columns, with each span's extremes; the
 * extremes are combined in span order; the second adds the normalised scores. Each node's
 * score is summed in kube-scheduler's plugin order, whatever the thread count. */

typedef struct no_call {
	no_st *st;
	const tph_session *s;
	tph_idx task;
	const tph_pod_spec *sp;
	const tph_idx *nodes;
	double *out;
	const int64_t *aff_col; /* NodeAffinity's column of the spec, or NULL: evaluate */
	bool run[NO_COLS];
	no_row row;                       /* NodeResourcesFit and BalancedAllocation */
	int64_t lo[NO_COLS], hi[NO_COLS]; /* extremes over the candidates */
} no_call;

/* The highest score of each scorer starts at 0 (DefaultNormalizeScore, PodTopologySpread),
 * InterPodAffinity's at the lowest int64. */
static void extremes_init(int64_t *lo, int64_t *hi)
{
	for (int k = 0; k < NO_COLS; k++) {
		lo[k] = INT64_MAX;
		hi[k] = k == NO_IPA ? INT64_MIN : 0;
	}
}

static void extremes(const int64_t *raw, const uint8_t *skip, uint32_t n, int64_t *lo, int64_t *hi)
{
	for (uint32_t i = 0; i < n; i++) {
		if (skip && skip[i])
			continue;
		*lo = raw[i] < *lo ? raw[i] : *lo;
		*hi = raw[i] > *hi ? raw[i] : *hi;
	}
}

static void raw_cols(const no_call *c, const tph_idx *nodes, uint32_t b, uint32_t n, int64_t *ext)
{
	const no_st *st = c->st;
	int64_t *const *col = st->col;
	if (c->run[NO_AFF] && c->aff_col)
		for (uint32_t i = 0; i < n; i++)
			col[NO_AFF][b + i] = c->aff_col[nodes[i]];
	else if (c->run[NO_AFF])
		node_affinity_eval(st, c->s, c->sp, nodes, n, col[NO_AFF] + b);
	if (c->run[NO_IPA])
		tph_no_ipa_raw(st, nodes, n, col[NO_IPA] + b);
	if (c->run[NO_TAINT])
		taint_raw(st, c->s, c->sp, nodes, n, col[NO_TAINT] + b);
	if (c->run[NO_PTS])
		tph_no_pts_raw(st, c->s, c->task, nodes, st->skip + b, n, col[NO_PTS] + b);
	extremes_init(ext, ext + NO_COLS);
	for (int k = 0; k < NO_COLS; k++)
		if (c->run[k])
			extremes(col[k] + b, k == NO_PTS ? st->skip + b : NULL, n, &ext[k],
			         &ext[NO_COLS + k]);
}

/* row_node with the default scorers (LeastAllocated and BalancedAllocation, no gpu request) on a
 * node with cpu and memory: the same operations, with the branches on the weights, the
 * resources the node has and BalancedAllocation's count of them taken once per call. */
static inline double row_node_least(const no_row *r, tph_idx node)
{
	const tph_k8s_line *l = &r->line[node];
	int64_t cap_cpu = l->cap_cpu, cap_mem = l->cap_mem;
	if (!cap_cpu || !cap_mem)
		return row_node(r, node);
	int64_t cpu = l->sum[TPH_KV_NZ_CPU] + r->nz[0], mem = l->sum[TPH_KV_NZ_MEM] + r->nz[1];
	int64_t least =
	    (fit_one(LEAST, cpu, cap_cpu) * 50 + fit_one(LEAST, mem, cap_mem) * 50) / 100;
	double x0 = (double)(l->sum[TPH_KV_CPU] + r->pod[0]) / (double)cap_cpu;
	double x1 = (double)(l->sum[TPH_KV_MEM] + r->pod[1]) / (double)cap_mem;
	const double f[2] = {x0 > 1 ? 1 : x0, x1 > 1 ? 1 : x1};
	double v = 0;
	v += (double)(least * r->w_least);
	v += (double)(balanced_one(f, 2) * r->w_balanced);
	return v;
}

/* The unnormalised scores of nodes[0..n), weighted and summed into out. */
static void row_span(const no_row *r, const tph_idx *nodes, uint32_t n, double *out)
{
	if (r->w_least && !r->w_most && r->w_balanced && !r->gpu)
		for (uint32_t i = 0; i < n; i++)
			out[i] = row_node_least(r, nodes[i]);
	else
		for (uint32_t i = 0; i < n; i++)
			out[i] = row_node(r, nodes[i]);
}

static void map_span(void *cv, uint32_t k, uint32_t b, uint32_t e)
{
	const no_call *c = cv;
	row_span(&c->row, c->nodes + b, e - b, c->out + b);
	raw_cols(c, c->nodes + b, b, e - b, c->st->ext + (size_t)k * 2 * NO_COLS);
}

static void add_span(void *cv, uint32_t k, uint32_t b, uint32_t e)
{
	const no_call *c = cv;
	const no_st *st = c->st;
	int64_t *const *col = st->col;
	double *out = c->out;
	(void)k;
	for (uint32_t i = b; c->run[NO_AFF] && i < e; i++)
		out[i] += (double)(default_normalize(col[NO_AFF][i], c->hi[NO_AFF], false) *
		                   st->w_node_aff);
	for (uint32_t i = b; c->run[NO_IPA] && i < e; i++)
		out[i] += (double)(tph_no_ipa_norm(col[NO_IPA][i], c->lo[NO_IPA], c->hi[NO_IPA]) *
		                   st->w_pod_aff);
	for (uint32_t i = b; c->run[NO_TAINT] && i < e; i++)
		out[i] += (double)(default_normalize(col[NO_TAINT][i], c->hi[NO_TAINT], true) *
		                   st->w_taint);
	for (uint32_t i = b; c->run[NO_PTS] && i < e; i++)
		out[i] += (double)(tph_no_pts_norm(col[NO_PTS][i], st->skip[i], c->lo[NO_PTS],
		                                   c->hi[NO_PTS]) *
		                   st->w_spread);
}

/* PreScore of every scorer that needs one (session thread, before the passes). */
static void prescore(no_call *c, uint32_t n)
{
	no_st *st = c->st;
	const tph_session *s = c->s;
	int64_t pod[3] = {0};
	bool balanced = st->w_balanced && balanced_pod(st, s, c->task, pod);
	row_prepare(st, s, c->task, balanced, pod, &c->row);
	c->run[NO_AFF] = st->w_node_aff && c->sp->n_node_preferred;
	if (c->run[NO_AFF])
		c->aff_col = aff_column(st, s, c->sp, n);
	c->run[NO_IPA] = st->w_pod_aff && tph_no_ipa_prescore(st, s, c->task);
	c->run[NO_TAINT] = st->w_taint != 0;
	c->run[NO_PTS] = st->w_spread && tph_no_pts_prescore(st, s, c->task, c->nodes, n);
	for (int k = 0; k < NO_COLS; k++)
		assert(!c->run[k] || st->col[k]);
}

static void batch(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                  double *out)
{
	no_call c = {.st = stv,
	             .s = s,
	             .task = task,
	             .sp = tph_view_of(s)->tasks->spec[task],
	             .nodes = nodes,
	             .out = out};
	prescore(&c, n);
	tph_session_parallel(s, n, map_span, &c);
	extremes_init(c.lo, c.hi);
	for (uint32_t k = 0; k < TPH_PAR_SPANS(n); k++) {
		const int64_t *ext = c.st->ext + (size_t)k * 2 * NO_COLS;
		for (int j = 0; j < NO_COLS; j++) {
			c.lo[j] = ext[j] < c.lo[j] ? ext[j] : c.lo[j];
			c.hi[j] = ext[NO_COLS + j] > c.hi[j] ? ext[NO_COLS + j] : c.hi[j];
		}
	}
	if (c.run[NO_AFF] || c.run[NO_IPA] || c.run[NO_TAINT] || c.run[NO_PTS])
		tph_session_parallel(s, n, add_span, &c);
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
 * and TaintToleration normalise labels-only inputs over the candidates: anchored.
 * ImageLocality reads the pod's images and the node's own: local. Without those, the rest
 * reads only the request row and the non-zero request: TPH_SCORE_ROW. */
static int locality(void *stv, const tph_session *s, tph_idx task)
{
	const no_st *st = stv;
	const tph_pod_spec *sp = tph_view_of(s)->tasks->spec[task];
	if (st->w_pod_aff && (sp->n_pod_preferred || sp->n_anti_preferred || st->v->n_aff_nodes))
		return TPH_SCORE_GLOBAL;
	if (st->w_spread && soft_spread(sp))
		return TPH_SCORE_GLOBAL;
	if ((st->w_node_aff && sp->n_node_preferred) || (st->w_taint && st->any_prefer))
		return TPH_SCORE_ANCHORED;
	if (st->w_image && st->img_off && sp->n_images)
		return TPH_SCORE_LOCAL;
	return TPH_SCORE_LOCAL | TPH_SCORE_ROW;
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
	const tph_pod_spec *sp = tph_view_of(s)->tasks->spec[task];
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

/* DefaultNormalizeScore divides by the highest raw score, at least 0 (extremes_init). */
static int64_t highest(const int64_t *raw, uint32_t n)
{
	int64_t max = 0;
	for (uint32_t i = 0; i < n; i++)
		max = raw[i] > max ? raw[i] : max;
	return max;
}

static uint32_t norm_values(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                            uint32_t n, int64_t *out)
{
	no_st *st = stv;
	const tph_pod_spec *sp = tph_view_of(s)->tasks->spec[task];
	uint32_t k = 0;
	if (st->w_node_aff && sp->n_node_preferred) {
		node_affinity_raw(st, s, sp, nodes, n, st->raw);
		out[k++] = highest(st->raw, n);
	}
	if (st->w_taint && st->any_prefer) {
		taint_raw(st, s, sp, nodes, n, st->raw);
		out[k++] = highest(st->raw, n);
	}
	return k;
}

/* The split (plugin.h) of a pod without images: the unnormalised scores are the row part,
 * NodeAffinity and TaintToleration normalised by norm the spec part. Every term is an integer
 * far below 2^53 while the weights are, so both sums, and the batch score, are exact. */
#define SPLIT_MAX_WEIGHT ((int64_t)1 << 40)

static bool splits(const no_st *st, const tph_pod_spec *sp)
{
	const int64_t w[] = {st->w_least, st->w_most, st->w_balanced, st->w_node_aff, st->w_taint};
	for (size_t i = 0; i < sizeof w / sizeof *w; i++)
		if (w[i] > SPLIT_MAX_WEIGHT || w[i] < -SPLIT_MAX_WEIGHT)
			return false;
	return !(st->w_image && st->img_off && sp->n_images);
}

static void spec_span(no_st *st, const tph_session *s, const tph_pod_spec *sp, const tph_idx *nodes,
                      uint32_t n, const int64_t *norm, double *out)
{
	int64_t raw[TPH_PAR_SPAN];
	uint32_t k = 0;
	memset(out, 0, n * sizeof *out);
	if (st->w_node_aff && sp->n_node_preferred) {
		node_affinity_raw(st, s, sp, nodes, n, raw);
		for (uint32_t i = 0; i < n; i++)
			out[i] +=
			    (double)(default_normalize(raw[i], norm[k], false) * st->w_node_aff);
		k++;
	}
	if (!st->w_taint)
		return;
	if (!st->any_prefer) { /* no soft taint: every node's raw score and the highest are 0 */
		double t = (double)(default_normalize(0, 0, true) * st->w_taint);
		for (uint32_t i = 0; i < n; i++)
			out[i] += t;
		return;
	}
	taint_raw(st, s, sp, nodes, n, raw);
	for (uint32_t i = 0; i < n; i++)
		out[i] += (double)(default_normalize(raw[i], norm[k], true) * st->w_taint);
}

static bool split(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                  const int64_t *norm, double *row, double *spec)
{
	no_st *st = stv;
	const tph_pod_spec *sp = tph_view_of(s)->tasks->spec[task];
	if (!splits(st, sp))
		return false;
	int64_t pod[3] = {0};
	bool balanced = st->w_balanced && balanced_pod(st, s, task, pod);
	no_row r;
	row_prepare(st, s, task, balanced, pod, &r);
	if (row)
		row_span(&r, nodes, n, row);
	for (uint32_t b = 0; spec && b < n; b += TPH_PAR_SPAN) {
		uint32_t m = n - b < TPH_PAR_SPAN ? n - b : TPH_PAR_SPAN;
		spec_span(st, s, sp, nodes + b, m, norm, spec + b);
	}
	return true;
}

static int init_prefer(no_st *st, tph_session *s)
{
	st->prefer = TPH_SESSION_NEW(s, uint32_t, tph_view_of(s)->nodes->n + 1);
	if (!st->prefer)
		return TPH_ENOMEM;
	for (tph_idx n = 0; n < tph_view_of(s)->nodes->n; n++) {
		const tph_node_meta *m = tph_view_of(s)->nodes->meta[n];
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
	st->n_specs = tph_view_of(s)->n_specs;
	st->aff_raw = TPH_SESSION_NEW(s, int64_t *, st->n_specs + 1);
	st->aff_seen = TPH_SESSION_NEW(s, uint32_t, st->n_specs + 1);
	int rc = st->aff_raw && st->aff_seen ? tph_k8s_view_share(s, &st->v) : TPH_ENOMEM;
	if (!rc)
		rc = tph_no_pod_init(st, s);
	if (!rc)
		rc = init_prefer(st, s);
	if (!rc)
		rc = tph_no_image_init(st, s);
	if (rc)
		return rc;
	rc = tph_on_node_order(s, tph_no_image_locality);
	if (!rc)
		rc = tph_on_batch_node_order(s, batch);
	if (!rc)
		rc = tph_on_score_locality(s, locality, anchors);
	if (!rc)
		rc = tph_on_score_norm(s, norm_values);
	if (!rc)
		rc = tph_on_score_split(s, split);
	return rc; /* the shared view is live exactly when predicates' handlers run */
}

const tph_plugin tph_plugin_nodeorder = {
    .abi = TPH_PLUGIN_ABI,
    .name = "nodeorder",
    .args = no_args,
    .state_size = sizeof(no_st),
    .on_session_open = no_open,
    .on_session_close = no_close,
};

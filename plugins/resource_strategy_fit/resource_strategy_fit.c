/* resource-strategy-fit: Volcano's resource-strategy-fit plugin. A NodeOrder that scores each
 * configured resource the task requests by LeastAllocated or MostAllocated (pod annotations may
 * override the strategy), averaged over the weights and scaled to 100 * the plugin weight;
 * plus sra, which steers tasks away from nodes with scarce resources they do not need; plus
 * the proportional predicate, which keeps cpu and memory in proportion to an idle resource. */
#include "resource_strategy_fit.h"

#include <string.h>

enum {
	K_LEAST,
	K_MOST,
	K_OTHER
};

/* ---- pod-level strategy: annotations ---- */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* A JSON integer that fits a Go int; fractions and exponents are errors, as for an int. */
static const char *json_int(const char *p, int64_t *out)
{
	bool neg = *p == '-';
	p += neg;
	if (*p < '0' || *p > '9' || (*p == '0' && p[1] >= '0' && p[1] <= '9'))
		return NULL;
	uint64_t v = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (UINT64_C(1) << 62) / 5)
			return NULL;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.' || *p == 'e' || *p == 'E' || v > (uint64_t)INT64_MAX + neg)
		return NULL;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return p;
}

/* json.Unmarshal into map[ResourceName]int, kept for the session's dimensions. */
static bool parse_weights(const tph_session *s, const char *p, int64_t *w, uint8_t *has)
{
	p = skip_ws(p);
	if (!strncmp(p, "null", 4))
		return !*skip_ws(p + 4);
	if (*p++ != '{')
		return false;
	p = skip_ws(p);
	for (bool first = true; *p != '}'; first = false) {
		if (!first && *p++ != ',')
			return false;
		p = skip_ws(p);
		const char *k = p + 1, *e = *p == '"' ? strchr(k, '"') : NULL;
		if (!e || memchr(k, '\\', (size_t)(e - k)))
			return false;
		p = skip_ws(e + 1);
		int64_t v;
		if (*p++ != ':' || !(p = json_int(skip_ws(p), &v)))
			return false;
		p = skip_ws(p);
		uint32_t d = tph_rsf_dim(s, k, (size_t)(e - k));
		if (d != TPH_NOIDX)
			w[d] = v, has[d] = 1;
	}
	return !*skip_ws(p + 1);
}

typedef struct strategy {
	int kind; /* K_*, -1: the configured one per resource */
	int64_t w[TPH_RES_MAX];
	uint8_t has[TPH_RES_MAX];
	bool zero; /* the annotations are unusable: every node scores 0 */
} strategy;

static void pod_strategy(const rsf_st *st, const tph_session *s, tph_idx task, strategy *g)
{
	memset(g, 0, sizeof *g);
	g->kind = -1;
	tph_labels ann = tph_view_of(s)->tasks->meta[task]->annotations;
	tph_sid type = tph_labels_get(ann, st->ann_type);
	if (type == TPH_SID_NONE || type == TPH_SID_EMPTY)
		return;
	const char *t = tph_session_str(s, type);
	g->kind = !strcmp(t, "MostAllocated")    ? K_MOST
	          : !strcmp(t, "LeastAllocated") ? K_LEAST
	                                         : K_OTHER;
	tph_sid wv = tph_labels_get(ann, st->ann_weight);
	g->zero = wv == TPH_SID_NONE || wv == TPH_SID_EMPTY ||
	          !parse_weights(s, tph_session_str(s, wv), g->w, g->has);
}

/* ---- scores ---- */

/* Score: -1 when a scored resource would overflow the node (the whole node scores 0). */
static double strategy_score(const rsf_st *st, const tph_session *s, const strategy *g,
                             const int64_t *req, tph_idx node)
{
	double sum = 0, wsum = 0;
	const tph_node_store *ns = tph_view_of(s)->nodes;
	for (uint32_t d = 0; d < tph_view_of(s)->ndim && d < TPH_RES_MAX; d++) {
		if (req[d] <= 0 || (g->kind < 0 ? !st->has[d] : !g->has[d]))
			continue;
		int kind = g->kind < 0 ? (st->most[d] ? K_MOST : K_LEAST) : g->kind;
		int64_t w = g->kind < 0 ? st->w[d] : g->w[d];
		size_t at = (size_t)d * ns->stride + node;
		double cap = (double)ns->alloc[at], fin = (double)(req[d] + ns->used[at]);
		if (kind != K_OTHER && w && cap != 0) {
			if (fin > cap)
				return -1;
			sum += (kind == K_MOST ? fin : cap - fin) * (double)w / cap;
		}
		wsum += (double)w;
	}
	return wsum > 0 ? sum / wsum : sum;
}

/* sra: 0 where the node lacks a requested resource; else 100 * weight * (1 - the share of the
 * scarce-resource weights the node has). */
static double sra_score(const rsf_st *st, const tph_session *s, const int64_t *req, tph_idx node)
{
	const tph_node_store *ns = tph_view_of(s)->nodes;
	for (uint32_t d = 0; d < tph_view_of(s)->ndim; d++)
		if (req[d] > 0 && !ns->alloc[(size_t)d * ns->stride + node])
			return 0;
	double score = 0;
	for (uint32_t i = 0; i < st->n_sra; i++)
		if (ns->alloc[(size_t)st->sra_dim[i] * ns->stride + node] > 0)
			score += (double)st->sra_w[i];
	if (st->sra_sum > 0)
		score = 1.0 - score / (double)st->sra_sum;
	return score * (double)(100 * st->sra_weight);
}

static void node_order(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                       uint32_t n, double *out)
{
	const rsf_st *st = stv;
	const int64_t *req = tph_view_of(s)->tasks->req + (size_t)task * tph_view_of(s)->ndim;
	strategy g = {.kind = -1};
	if (st->weight > 0)
		pod_strategy(st, s, task, &g);
	for (uint32_t i = 0; i < n; i++) {
		double score = 0;
		if (st->weight > 0 && !g.zero) {
			double v = strategy_score(st, s, &g, req, nodes[i]);
			score += v < 0 ? 0 : v * (double)(100 * st->weight);
		}
		if (st->sra_weight > 0)
			score += sra_score(st, s, req, nodes[i]);
		out[i] = score;
	}
}

/* Node-local, unless a pod annotation picks the strategy: then the score is the pod's own. */
static int locality(void *stv, const tph_session *s, tph_idx task)
{
	const rsf_st *st = stv;
	tph_sid type =
	    st->weight > 0
	        ? tph_labels_get(tph_view_of(s)->tasks->meta[task]->annotations, st->ann_type)
	        : TPH_SID_NONE;
	return type == TPH_SID_NONE || type == TPH_SID_EMPTY ? TPH_SCORE_LOCAL : TPH_SCORE_GLOBAL;
}

/* ---- proportional ---- */

static tph_reason_code proportional_one(const rsf_st *st, const tph_session *s, const int64_t *req,
                                        tph_idx node)
{
	const tph_node_store *ns = tph_view_of(s)->nodes;
	size_t stride = ns->stride;
	for (uint32_t i = 0; i < st->n_prop; i++) {
		size_t at = (size_t)st->prop_dim[i] * stride + node;
		if (!ns->alloc[at])
			continue;
		double idle = (double)ns->idle[at];
		double cpu = (double)(ns->idle[TPH_RES_CPU * stride + node] - req[TPH_RES_CPU]);
		double mem =
		    (double)(ns->idle[TPH_RES_MEMORY * stride + node] - req[TPH_RES_MEMORY]);
		if (cpu < idle * st->prop_cpu[i] || mem < idle * st->prop_mem[i] * 1000 * 1000)
			return st->prop_code[i];
	}
	return TPH_PASS;
}

/* A task that requests one of the resources is not held back; others must leave cpu and
 * memory for the idle units of each resource a node has. */
static void proportional(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                         uint32_t n, tph_reason_code *out)
{
	const rsf_st *st = stv;
	const int64_t *req = tph_view_of(s)->tasks->req + (size_t)task * tph_view_of(s)->ndim;
	bool exempt = false;
	for (uint32_t i = 0; i < st->n_prop; i++)
		exempt |= req[st->prop_dim[i]] > 0;
	for (uint32_t i = 0; i < n; i++)
		out[i] = exempt ? TPH_PASS : proportional_one(st, s, req, nodes[i]);
}

static int rsf_open(tph_session *s, void *stv, const tph_args *args)
{
	rsf_st *st = stv;
	const char *t = "volcano.sh/resource-strategy-scoring-type";
	const char *w = "volcano.sh/resource-strategy-weight";
	st->ann_type = tph_session_sid(s, t, strlen(t));
	st->ann_weight = tph_session_sid(s, w, strlen(w));
	int rc = tph_rsf_args(st, s, args);
	if (!rc && st->proportional)
		rc = tph_on_predicate(s, proportional);
	if (!rc && st->proportional) /* the task's request against the node's idle */
		rc = tph_declare_predicate_locality(s, TPH_PRED_SPEC);
	if (!rc && (st->weight > 0 || st->sra_weight > 0))
		rc = tph_on_node_order(s, node_order);
	if (!rc && (st->weight > 0 || st->sra_weight > 0))
		rc = tph_on_score_locality(s, locality, NULL);
	return rc;
}

/* Nested maps, read with the getters in resource_strategy_fit_args.c. */
static const tph_arg_spec rsf_args[] = {
    {"resourceStrategyFitWeight", TPH_ARG_INT, NULL, 0, 0, TPH_ARG_NOFIELD, NULL},
    {"resources", TPH_ARG_MAP, NULL, 0, 0, TPH_ARG_NOFIELD, "per resource: type, weight"},
    {"sra", TPH_ARG_MAP, NULL, 0, 0, TPH_ARG_NOFIELD, "scarce resource avoidance"},
    {"proportional", TPH_ARG_MAP, NULL, 0, 0, TPH_ARG_NOFIELD, NULL},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

const tph_plugin tph_plugin_resource_strategy_fit = {
    .abi = TPH_PLUGIN_ABI,
    .name = "resource-strategy-fit",
    .args = rsf_args,
    .state_size = sizeof(rsf_st),
    .on_session_open = rsf_open,
};

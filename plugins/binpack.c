/* binpack: Volcano's binpack plugin. A NodeOrder that prefers nodes whose weighted resources
 * would be fullest after the task lands: per requested resource with a weight,
 * (request + used) / allocatable * weight, averaged over the weights and scaled to
 * 100 * binpack.weight. A node where a weighted resource would overflow scores 0. */
#include <stdio.h>

#include "tephra/plugin.h"
#include "lib/vres.h"

typedef struct bp_st {
	int64_t weight, cpu, memory;
	const char *resources;
	double w[TPH_RES_MAX];    /* per dimension */
	uint8_t has[TPH_RES_MAX]; /* the dimension has a weight (even 0) */
} bp_st;

#define OFF(f) offsetof(bp_st, f)
static const tph_arg_spec bp_args[] = {
    {"binpack.weight", TPH_ARG_INT, "1", 0, 0, OFF(weight), NULL},
    {"binpack.cpu", TPH_ARG_INT, "1", 0, 0, OFF(cpu), NULL},
    {"binpack.memory", TPH_ARG_INT, "1", 0, 0, OFF(memory), NULL},
    {"binpack.resources", TPH_ARG_STRING, NULL, 0, 0, OFF(resources),
     "comma-separated extra resources"},
    {"binpack.resources.*", TPH_ARG_INT, NULL, 0, 0, TPH_ARG_NOFIELD,
     "the weight of each resource named in binpack.resources"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

static void set_weight(bp_st *st, const tph_session *s, const char *name, size_t len, int64_t w)
{
	uint32_t d = tph_session_dim_find(s, name, len);
	if (d != TPH_NOIDX) {
		st->w[d] = (double)w;
		st->has[d] = 1;
	}
}

typedef struct bp_names {
	bp_st *st;
	const tph_session *s;
	const tph_args *args;
} bp_names;

/* One name of binpack.resources ("a, b"): its weight is binpack.resources.<name> (default 1,
 * negative -> 1). */
static void extra_resource(void *ud, const char *name, size_t len)
{
	const bp_names *x = ud;
	char key[256];
	int64_t w = 1;
	if (len >= sizeof key - 20)
		return;
	snprintf(key, sizeof key, "binpack.resources.%.*s", (int)len, name);
	tph_args_int(x->args, key, &w);
	set_weight(x->st, x->s, name, len, w < 0 ? 1 : w);
}

/* What one call reads per dimension, found once per call: the dimensions the task requests
 * with a non-zero weight (one of weight 0 adds nothing and never overflows). */
typedef struct bp_dim {
	double w;
	int64_t req;
	const int64_t *alloc, *used; /* node i's values at [i * step] */
	size_t step;
} bp_dim;

_Static_assert(TPH_RES_CPU == 0 && TPH_RES_MEMORY == 1 &&
                   TPH_CM_ALLOC_MEM == TPH_CM_ALLOC_CPU + 1 &&
                   TPH_CM_USED_MEM == TPH_CM_USED_CPU + 1,
               "dim_of indexes a node's line by the dimension");

/* cpu and memory from the nodes' lines (tph_node_store.cm: one line a node for both), the
 * other dimensions from their columns. */
static bp_dim dim_of(const tph_session *s, uint32_t d, double w, int64_t req)
{
	const tph_node_store *ns = tph_view_of(s)->nodes;
	if (d <= TPH_RES_MEMORY && TPH_VIEW_REV(tph_view_of(s), 2) && ns->cm)
		return (bp_dim){w, req, ns->cm + TPH_CM_ALLOC_CPU + d, ns->cm + TPH_CM_USED_CPU + d,
		                TPH_NODE_CM};
	return (bp_dim){w, req, ns->alloc + (size_t)d * ns->stride,
	                ns->used + (size_t)d * ns->stride, 1};
}

/* The task's weighted dimensions into dims, their count; *wsum: the sum of the weights of
 * every requested dimension with one, in dimension order as Volcano adds them. */
static uint32_t weighted_dims(const bp_st *st, const tph_session *s, const int64_t *req,
                              bp_dim *dims, double *wsum)
{
	uint32_t m = 0;
	*wsum = 0;
	for (uint32_t d = 0; d < tph_view_of(s)->ndim && d < TPH_RES_MAX; d++) {
		if (!req[d] || !st->has[d])
			continue;
		*wsum += st->w[d];
		if (st->w[d] != 0)
			dims[m++] = dim_of(s, d, st->w[d], req[d]);
	}
	return m;
}

/* One node's score before the scale: past an overflow the sum is not read. */
static inline double node_score(const bp_dim *dims, uint32_t m, double wsum, tph_idx node)
{
	double sum = 0;
	bool over = false;
	for (uint32_t k = 0; k < m; k++) {
		size_t at = (size_t)node * dims[k].step;
		double cap = (double)dims[k].alloc[at],
		       fin = (double)(dims[k].req + dims[k].used[at]);
		if (cap != 0) {
			over |= fin > cap;
			sum += fin * dims[k].w / cap;
		}
	}
	return over ? 0 : (wsum > 0 ? sum / wsum : sum);
}

static void score(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                  double *out)
{
	const bp_st *st = stv;
	const int64_t *req = tph_view_of(s)->tasks->req + (size_t)task * tph_view_of(s)->ndim;
	bp_dim dims[TPH_RES_MAX];
	double wsum, scale = (double)(100 * st->weight);
	uint32_t m = weighted_dims(st, s, req, dims, &wsum);
	if (m == 2) /* cpu and memory, most tasks: the dimension loop unrolled */
		for (uint32_t i = 0; i < n; i++)
			out[i] = node_score(dims, 2, wsum, nodes[i]) * scale;
	else
		for (uint32_t i = 0; i < n; i++)
			out[i] = node_score(dims, m, wsum, nodes[i]) * scale;
}

/* Node-local: the request row against the node's own used and allocatable. */
static int locality(void *st, const tph_session *s, tph_idx task)
{
	(void)st, (void)s, (void)task;
	return TPH_SCORE_LOCAL | TPH_SCORE_ROW;
}

static int bp_open(tph_session *s, void *stv, const tph_args *args)
{
	bp_st *st = stv;
	vr_each_name(st->resources, extra_resource, &(bp_names){st, s, args});
	/* cpu and memory are set last: their own keys win over binpack.resources.cpu. */
	st->w[TPH_RES_CPU] = (double)(st->cpu < 0 ? 1 : st->cpu);
	st->w[TPH_RES_MEMORY] = (double)(st->memory < 0 ? 1 : st->memory);
	st->has[TPH_RES_CPU] = st->has[TPH_RES_MEMORY] = 1;
	if (!st->weight)
		return TPH_OK;
	int rc = tph_on_node_order(s, score);
	return rc ? rc : tph_on_score_locality(s, locality, NULL);
}

const tph_plugin tph_plugin_binpack = {
    .abi = TPH_PLUGIN_ABI,
    .name = "binpack",
    .args = bp_args,
    .state_size = sizeof(bp_st),
    .on_session_open = bp_open,
};

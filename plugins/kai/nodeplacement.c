/* KAI's nodeplacement plugin (plugins/nodeplacement): per kind of pod (CPU-only or GPU, the
 * `cpu` and `gpu` arguments, default binpack) a NodeOrder score of at most 9. Binpack: the
 * NodePreOrder takes, over the nodes that have the resource at all, the least and the most not
 * yet allocated (idle plus releasing); a node scores 9 * (1 - (its free - least) / (most -
 * least)), 9 when all are equal, 0 when none is free or the node has none. Spread: the node's
 * free share (free / allocatable). */
#include "kai_plugins.h"

#include "tephra/alloc.h"

#include <stddef.h>
#include <string.h>

#define MAX_HIGH_DENSITY 9.0

typedef struct np_state {
	const char *cpu, *gpu;
	bool spread[2];  /* [gpu pod] */
	double min, max; /* binpack's range for the task being ordered */
} np_state;

static const tph_arg_spec np_args[] = {
    {"cpu", TPH_ARG_STRING, "binpack", 0, 0, offsetof(np_state, cpu),
     "binpack | spread for CPU-only pods", NULL},
    {"gpu", TPH_ARG_STRING, "binpack", 0, 0, offsetof(np_state, gpu),
     "binpack | spread for GPU pods", NULL},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL},
};

static int dim_of(const tph_kai_view *v, uint32_t t)
{
	return tph_kai_cpu_only(v, t) ? TPH_KAI_CPU : TPH_KAI_GPU;
}

static double allocatable(const tph_kai_view *v, uint32_t node, int dim)
{
	return dim == TPH_KAI_GPU ? v->nodes.gpus[node] : (double)v->nodes.cpu_milli[node];
}

static double free_of(const tph_kai_session *s, uint32_t node, int dim)
{
	size_t at = (size_t)node * TPH_KAI_DIMS + (size_t)dim;
	return tph_kai_session_idle(s)[at] + tph_kai_session_releasing(s)[at];
}

static void pre_order(void *state, const tph_kai_session *s, uint32_t t, const uint32_t *nodes,
                      uint32_t n)
{
	np_state *p = state;
	const tph_kai_view *v = tph_kai_session_view(s);
	int dim = dim_of(v, t);
	if (p->spread[dim == TPH_KAI_GPU]) /* spread scores need no range */
		return;
	if (tph_kai_session_free_range(s, dim, nodes, n, &p->min, &p->max)) {
		p->max = p->max > 0 ? p->max : 0; /* the scan's start */
		return;
	}
	p->min = 1e300;
	p->max = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (allocatable(v, nodes[i], dim) == 0)
			continue;
		double f = free_of(s, nodes[i], dim);
		p->min = f < p->min ? f : p->min;
		p->max = f > p->max ? f : p->max;
	}
}

static int score(void *state, const tph_kai_session *s, uint32_t t, uint32_t node, double *out)
{
	np_state *p = state;
	const tph_kai_view *v = tph_kai_session_view(s);
	int dim = dim_of(v, t);
	double all = allocatable(v, node, dim), f = free_of(s, node, dim);
	if (p->spread[dim == TPH_KAI_GPU])
		*out = all == 0 ? 0 : f / all;
	else if (all == 0 || p->max == 0)
		*out = 0;
	else if (p->min == p->max)
		*out = MAX_HIGH_DENSITY;
	else
		*out = MAX_HIGH_DENSITY * (1 - (f - p->min) / (p->max - p->min));
	return 0;
}

static int open_np(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	np_state *p = tph_calloc(1, sizeof *p);
	if (!p)
		return tph_diag_set(d, TPH_ENOMEM, "nodeplacement: out of memory");
	*state = p;
	tph_args_apply(args, np_args, p, d, "nodeplacement");
	p->spread[0] = p->cpu && strcmp(p->cpu, "spread") == 0;
	p->spread[1] = p->gpu && strcmp(p->gpu, "spread") == 0;
	int rc = tph_kai_add_local_node_pre_order(s, pre_order, NULL, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_local_node_order(s, score, NULL, p);
	return rc < 0 ? tph_diag_set(d, rc, "nodeplacement: cannot register") : TPH_OK;
}

static void close_np(tph_kai_session *s, void *state)
{
	(void)s;
	tph_free(state);
}

const tph_kai_plugin tph_kai_plugin_nodeplacement = {TPH_KAI_PLUGIN_ABI, "nodeplacement", open_np,
                                                     close_np};

/* binpack as an external plugin: Volcano's binpack (pkg/scheduler/plugins/binpack), written on
 * the public headers alone, to show that a plugin built outside the tree can take a built-in's
 * place decision for decision. Named "binpack", with the built-in's arguments, so
 * `tephra run --plugins binpack.so` runs it instead of plugins/binpack.c (the registry warns).
 *
 * A NodeOrder: per requested resource that has a weight, (request + used) / allocatable * weight,
 * summed in dimension order, over the sum of those weights, times 100 * binpack.weight. A node
 * on which a weighted resource would overflow scores 0. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "tephra/plugin.h"

typedef struct binpack {
	int64_t weight, cpu, memory; /* binpack.weight, binpack.cpu, binpack.memory */
	const char *resources;       /* binpack.resources: "nvidia.com/gpu, example.com/foo" */
	double w[TPH_RES_MAX];       /* weight per dimension of the session */
	bool weighted[TPH_RES_MAX];  /* the dimension has a weight, 0 included */
} binpack;

/* The framework fills the fields at these offsets before on_session_open (defaults, then the
 * conf), and warns about any key not declared here. */
static const tph_arg_spec binpack_args[] = {
    {"binpack.weight", TPH_ARG_INT, "1", 0, 0, offsetof(binpack, weight), NULL},
    {"binpack.cpu", TPH_ARG_INT, "1", 0, 0, offsetof(binpack, cpu), NULL},
    {"binpack.memory", TPH_ARG_INT, "1", 0, 0, offsetof(binpack, memory), NULL},
    {"binpack.resources", TPH_ARG_STRING, NULL, 0, 0, offsetof(binpack, resources),
     "comma-separated extra resources"},
    {"binpack.resources.*", TPH_ARG_INT, NULL, 0, 0, TPH_ARG_NOFIELD,
     "the weight of each resource named in binpack.resources"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* A resource the session does not know has no dimension: no task requests it. */
static void weigh(binpack *bp, const tph_session *s, const char *name, size_t len, int64_t w)
{
	uint32_t d = tph_session_dim_find(s, name, len);
	if (d == TPH_NOIDX || d >= TPH_RES_MAX)
		return;
	bp->w[d] = (double)w;
	bp->weighted[d] = true;
}

/* binpack.resources, as Go splits it on commas and trims each name; the weight of a name is
 * binpack.resources.<name>, 1 when absent or negative. */
static void weigh_extra(binpack *bp, const tph_session *s, const tph_args *args)
{
	for (const char *p = bp->resources; p && *p;) {
		const char *comma = strchr(p, ',');
		const char *b = p, *e = comma ? comma : p + strlen(p);
		p = comma ? comma + 1 : NULL;
		while (b < e && isspace((unsigned char)*b))
			b++;
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		char key[512]; /* a Kubernetes resource name has at most 317 bytes */
		int len = (int)(e - b);
		if (len == 0 ||
		    snprintf(key, sizeof key, "binpack.resources.%.*s", len, b) >= (int)sizeof key)
			continue;
		int64_t w = 1;
		tph_args_int(args, key, &w);
		weigh(bp, s, b, (size_t)len, w < 0 ? 1 : w);
	}
}

/* The task's share of one node, before the plugin weight. The operations and their order are
 * Volcano's (and the built-in's), so the doubles agree to the bit. */
static double fill(const binpack *bp, const tph_node_store *ns, const int64_t *req,
                   const uint32_t *dims, uint32_t m, tph_idx node)
{
	double sum = 0, wsum = 0;
	for (uint32_t k = 0; k < m; k++) {
		uint32_t d = dims[k];
		size_t at = (size_t)d * ns->stride + node;
		double cap = (double)ns->alloc[at], fin = (double)(req[d] + ns->used[at]);
		wsum += bp->w[d];
		/* Volcano scores such a resource 0 but keeps its weight in the divisor. */
		if (cap == 0 || bp->w[d] == 0)
			continue;
		if (fin > cap)
			return 0;
		sum += fin * bp->w[d] / cap;
	}
	return wsum > 0 ? sum / wsum : sum;
}

/* Per-node callback: may run on several threads over disjoint spans, so it reads the columns
 * and writes only out[]. */
static void score(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                  double *out)
{
	const binpack *bp = st;
	const tph_view *v = tph_view_of(s);
	const int64_t *req = v->tasks->req + (size_t)task * v->ndim;
	uint32_t dims[TPH_RES_MAX], m = 0;
	for (uint32_t d = 0; d < v->ndim && d < TPH_RES_MAX; d++)
		if (req[d] != 0 && bp->weighted[d])
			dims[m++] = d;
	double scale = (double)(100 * bp->weight);
	for (uint32_t i = 0; i < n; i++)
		out[i] = fill(bp, v->nodes, req, dims, m, nodes[i]) * scale;
}

/* A node's score reads only the task's request row and that node's own columns, so allocate
 * may keep scores between tasks of one shape (its fast path), and, as it reads nothing of the
 * pod spec (TPH_SCORE_ROW), between the shapes of one request row; without this answer
 * decisions stay the same but every task scores every node. */
static int locality(void *st, const tph_session *s, tph_idx task)
{
	(void)st, (void)s, (void)task;
	return TPH_SCORE_LOCAL | TPH_SCORE_ROW;
}

static int binpack_open(tph_session *s, void *st, const tph_args *args)
{
	binpack *bp = st;
	weigh_extra(bp, s, args);
	/* cpu and memory last: their own keys win over binpack.resources.cpu, as in Volcano. */
	weigh(bp, s, "cpu", 3, bp->cpu < 0 ? 1 : bp->cpu);
	weigh(bp, s, "memory", 6, bp->memory < 0 ? 1 : bp->memory);
	if (bp->weight == 0)
		return TPH_OK; /* Volcano adds no node order then */
	int rc = tph_on_node_order(s, score);
	return rc ? rc : tph_on_score_locality(s, locality, NULL);
}

static const tph_plugin binpack_plugin = {
    .abi = TPH_PLUGIN_ABI,
    .name = "binpack",
    .args = binpack_args,
    .state_size = sizeof(binpack),
    .on_session_open = binpack_open,
};

const tph_plugin *tph_plugin_entry(uint32_t host_abi);

/* The host passes its TPH_PLUGIN_ABI and refuses a descriptor whose .abi differs, naming both;
 * a plugin built for several ABIs would choose its descriptor by host_abi here. */
const tph_plugin *tph_plugin_entry(uint32_t host_abi)
{
	(void)host_abi;
	return &binpack_plugin;
}

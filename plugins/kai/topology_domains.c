/* One SubsetNodes call of the topology plugin over a domain tree (topology_int.h): the lowest
 * common domain of the node set, what each domain of its subtree has free and can hold for the
 * call's tasks, KAI's fit rule and its bin-packing sort (plugins/topology/job_filtering.go,
 * common.go). Loops run over id ranges and the node columns; no names are compared. */
#include "topology_int.h"

#include "tephra/alloc.h"

#include <stdlib.h>
#include <string.h>

/* KAI's requiredResourceNotInDomainRatio: a resource asked for that a domain has none of. */
#define NOT_IN_DOMAIN 1000.0

struct topo_pair {
	double ratio;
	uint32_t id;
};

int topo_scratch_alloc(topo_scratch *x, const tph_kai_view *v, uint32_t max_dom, uint32_t levels)
{
	size_t nd = (size_t)max_dom + 1, nn = (size_t)v->nodes.n + 1;
	x->free = tph_calloc(nd * TPH_KAI_DIMS, sizeof *x->free);
	x->pods = tph_calloc(nd, sizeof *x->pods);
	x->lo = tph_calloc((size_t)levels + 1, sizeof *x->lo);
	x->hi = tph_calloc((size_t)levels + 1, sizeof *x->hi);
	x->bfs = tph_calloc(nd, sizeof *x->bfs);
	x->bfs_first = tph_calloc((size_t)levels + 2, sizeof *x->bfs_first);
	x->pairs = tph_calloc(nd, sizeof *x->pairs);
	x->active = tph_calloc(nd, sizeof *x->active);
	x->marked = tph_calloc((size_t)v->tasks.n + 1, sizeof *x->marked);
	x->pod_set = tph_calloc((size_t)v->subgroups.n + 1, sizeof *x->pod_set);
	x->in_set = tph_calloc(nn, sizeof *x->in_set);
	x->valid = tph_calloc(nn, sizeof *x->valid);
	x->buf = tph_calloc(nn, sizeof *x->buf);
	bool ok = x->free && x->pods && x->lo && x->hi && x->bfs && x->bfs_first && x->pairs &&
	          x->active && x->marked && x->pod_set && x->in_set && x->valid && x->buf;
	return ok ? TPH_OK : TPH_ENOMEM;
}

void topo_scratch_free(topo_scratch *x)
{
	tph_free(x->free);
	tph_free(x->pods);
	tph_free(x->lo);
	tph_free(x->hi);
	tph_free(x->bfs);
	tph_free(x->bfs_first);
	tph_free(x->pairs);
	tph_free(x->active);
	tph_free(x->marked);
	tph_free(x->pod_set);
	tph_free(x->in_set);
	tph_free(x->valid);
	tph_free(x->buf);
}

void topo_lca(topo_call *c, uint32_t stop)
{
	const topo_tree *t = c->t;
	const uint32_t *valid = c->x->valid;
	uint32_t lca = 0, depth = 0;
	for (uint32_t d = 1; d <= t->levels && c->n_valid; d++) {
		uint32_t common = topo_at(t, c->nn, d, valid[0]);
		bool all = true;
		for (uint32_t i = 1; i < c->n_valid && all; i++)
			all = topo_at(t, c->nn, d, valid[i]) == common;
		/* KAI also stops at an empty label value: its ID part would be "". */
		if (!all || !*t->value[common])
			break;
		lca = common, depth = d;
		if (d == stop)
			break;
	}
	c->lca = lca, c->lca_depth = depth;
}

/* The tasks' requests together, their largest per resource, and whether every task or none
 * asks for GPUs (KAI's useRepresentorPodsAccounting; tephra has no extended resources). */
static void sum_tasks(topo_call *c, const uint32_t *tasks, double most[TPH_KAI_DIMS])
{
	uint32_t gpu_pods = 0;
	memset(c->sum, 0, sizeof c->sum);
	memset(most, 0, TPH_KAI_DIMS * sizeof *most);
	for (uint32_t i = 0; i < c->n_tasks; i++) {
		double req[TPH_KAI_DIMS];
		tph_kai_task_request(c->s, tasks[i], req);
		for (int k = 0; k < TPH_KAI_DIMS; k++) {
			c->sum[k] += req[k];
			most[k] = req[k] > most[k] ? req[k] : most[k];
		}
		gpu_pods += req[TPH_KAI_GPU] > 0;
	}
	c->by_pods = gpu_pods == 0 || gpu_pods == c->n_tasks;
}

/* KAI's calcNodeAccommodation: how many pods of the largest request node n holds (up to the
 * task count) on idle plus releasing resources (plus its shared GPUs' room for a fractional
 * request); none where a resource is short, even one the pods do not ask for (an
 * over-committed node). */
static int64_t accommodation(const topo_call *c, const double most[TPH_KAI_DIMS], uint32_t n)
{
	bool asks = false;
	for (int k = 0; k < TPH_KAI_DIMS; k++)
		asks |= most[k] > 0;
	if (!asks)
		return (int64_t)c->n_tasks;
	const double *idle = tph_kai_session_idle(c->s) + (size_t)n * TPH_KAI_DIMS;
	const double *rel = tph_kai_session_releasing(c->s) + (size_t)n * TPH_KAI_DIMS;
	double room[TPH_KAI_DIMS];
	for (int k = 0; k < TPH_KAI_DIMS; k++)
		room[k] = idle[k] + rel[k];
	if (most[TPH_KAI_GPU] > 0 && most[TPH_KAI_GPU] < 1)
		room[TPH_KAI_GPU] += tph_kai_session_shared_gpus_free(c->s, n);
	for (int k = 0; k < TPH_KAI_DIMS; k++)
		if (most[k] > room[k])
			return 0;
	int64_t least = INT64_MAX;
	for (int k = 0; k < TPH_KAI_DIMS; k++) {
		double q = most[k] > 0 ? room[k] / most[k] : 9e18;
		int64_t pods = q >= 9e18 ? INT64_MAX : (int64_t)q;
		least = pods < least ? pods : least;
	}
	/* Only "at least the task count" is ever asked: capped, the domain sums cannot overflow. */
	return least < (int64_t)c->n_tasks ? least : (int64_t)c->n_tasks;
}

/* The subtree's domain ranges per depth, zeroed. */
static void clear_subtree(topo_call *c)
{
	const topo_tree *t = c->t;
	topo_scratch *x = c->x;
	uint32_t lo = c->lca, hi = c->lca + 1;
	for (uint32_t d = c->lca_depth;; d++) {
		x->lo[d] = lo, x->hi[d] = hi;
		memset(x->free + (size_t)lo * TPH_KAI_DIMS, 0,
		       (size_t)(hi - lo) * TPH_KAI_DIMS * sizeof *x->free);
		memset(x->pods + lo, 0, (size_t)(hi - lo) * sizeof *x->pods);
		if (d == t->levels)
			break;
		/* Members have every level, so only a tree without members runs out of kids. */
		uint32_t next_lo = lo < hi ? t->kid_lo[lo] : 0,
		         next_hi = lo < hi ? t->kid_hi[hi - 1] : 0;
		lo = next_lo, hi = next_hi;
	}
}

void topo_account(topo_call *c, const uint32_t *tasks)
{
	const topo_tree *t = c->t;
	topo_scratch *x = c->x;
	double most[TPH_KAI_DIMS];
	sum_tasks(c, tasks, most);
	clear_subtree(c);
	const double *idle = tph_kai_session_idle(c->s), *rel = tph_kai_session_releasing(c->s);
	for (uint32_t i = t->node_lo[c->lca]; i < t->node_hi[c->lca]; i++) {
		uint32_t n = t->nodes[i], leaf = topo_at(t, c->nn, t->levels, n);
		for (int k = 0; k < TPH_KAI_DIMS; k++)
			x->free[(size_t)leaf * TPH_KAI_DIMS + (size_t)k] +=
			    idle[(size_t)n * TPH_KAI_DIMS + (size_t)k] +
			    rel[(size_t)n * TPH_KAI_DIMS + (size_t)k];
		if (c->by_pods)
			x->pods[leaf] += accommodation(c, most, n);
	}
	for (uint32_t d = t->levels; d > c->lca_depth; d--)
		for (uint32_t dom = x->lo[d]; dom < x->hi[d]; dom++) {
			uint32_t p = t->parent[dom];
			for (int k = 0; k < TPH_KAI_DIMS; k++)
				x->free[(size_t)p * TPH_KAI_DIMS + (size_t)k] +=
				    x->free[(size_t)dom * TPH_KAI_DIMS + (size_t)k];
			x->pods[p] += x->pods[dom];
		}
}

/* KAI's getJobRatioToFreeResources: the largest share of a free resource the tasks ask for.
 * A domain outside the subtree (an ancestor of the LCA) has nothing free. */
static double ratio_of(const topo_call *c, uint32_t dom)
{
	bool in = c->t->depth[dom] >= c->lca_depth;
	double ratio = 0;
	for (int k = 0; k < TPH_KAI_DIMS; k++) {
		if (c->sum[k] <= 0)
			continue;
		double f = in ? c->x->free[(size_t)dom * TPH_KAI_DIMS + (size_t)k] : 0;
		double r = f <= 0 ? NOT_IN_DOMAIN : c->sum[k] / f;
		ratio = r > ratio ? r : ratio;
	}
	return ratio;
}

bool topo_fits(const topo_call *c, uint32_t dom)
{
	if (c->by_pods && c->t->depth[dom] >= c->lca_depth)
		return c->x->pods[dom] >= (int64_t)c->n_tasks;
	return ratio_of(c, dom) <= 1;
}

/* Fuller after the job first (higher ratio), then by ID (the domain's number). */
static int by_packing(const void *pa, const void *pb)
{
	const struct topo_pair *l = pa, *r = pb;
	if (l->ratio != r->ratio)
		return l->ratio > r->ratio ? -1 : 1;
	return (l->id > r->id) - (l->id < r->id);
}

/* Sort dom's children in the tree and append them to the BFS list at *n. */
static void sort_kids(topo_call *c, uint32_t dom, uint32_t *n)
{
	const topo_tree *t = c->t;
	topo_scratch *x = c->x;
	uint32_t lo = t->kid_lo[dom], k = t->kid_hi[dom] - lo;
	for (uint32_t i = 0; i < k; i++)
		x->pairs[i] = (struct topo_pair){ratio_of(c, t->kids[lo + i]), t->kids[lo + i]};
	qsort(x->pairs, k, sizeof *x->pairs, by_packing);
	for (uint32_t i = 0; i < k; i++)
		t->kids[lo + i] = x->bfs[(*n)++] = x->pairs[i].id;
}

void topo_sort(topo_call *c, uint32_t deepest)
{
	topo_scratch *x = c->x;
	uint32_t n = 1;
	x->bfs[0] = c->lca;
	x->bfs_first[0] = 0, x->bfs_first[1] = 1;
	for (uint32_t d = c->lca_depth; d < deepest; d++) {
		uint32_t i = d - c->lca_depth;
		for (uint32_t b = x->bfs_first[i]; b < x->bfs_first[i + 1]; b++)
			sort_kids(c, x->bfs[b], &n);
		x->bfs_first[i + 2] = n;
	}
}

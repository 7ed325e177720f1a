/* The topology plugin's domain trees (topology_int.h), built once at open from the snapshot's
 * per-level domains: KAI's initializeTopologyTree, with domain IDs as paths of label values
 * (calcDomainId) and a node outside the topology when it lacks any level's label
 * (isNodePartOfTopology). One sort of the members by path numbers every domain. */
#include "topology_int.h"

#include "tephra/alloc.h"

#include <stdlib.h>
#include <string.h>

typedef struct by_value {
	const char *value;
	uint32_t id;
} by_value;

static int cmp_value(const void *pa, const void *pb)
{
	const by_value *l = pa, *r = pb;
	int c = strcmp(l->value, r->value);
	return c ? c : (l->id > r->id) - (l->id < r->id);
}

/* A member's path as ranks of its label values (KAI's ID order), L per member. */
typedef struct path_key {
	const uint32_t *rank;
	uint32_t levels, node;
} path_key;

static int cmp_path(const void *pa, const void *pb)
{
	const path_key *l = pa, *r = pb;
	for (uint32_t k = 0; k < l->levels; k++)
		if (l->rank[k] != r->rank[k])
			return l->rank[k] < r->rank[k] ? -1 : 1;
	return (l->node > r->node) - (l->node < r->node);
}

/* Each level's value ids ranked by value, into rank[k * nn + id]. */
static int rank_values(const tph_kai_view *v, uint32_t first, uint32_t levels, uint32_t *rank)
{
	uint32_t nn = v->nodes.n;
	by_value *b = tph_calloc((size_t)nn + 1, sizeof *b);
	if (!b)
		return TPH_ENOMEM;
	for (uint32_t k = 0; k < levels; k++) {
		uint32_t l = first + k, n = v->topologies.n_domains[l];
		for (uint32_t id = 0; id < n; id++)
			b[id] = (by_value){v->topologies.domain_value[(size_t)l * nn + id], id};
		qsort(b, n, sizeof *b, cmp_value);
		for (uint32_t r = 0; r < n; r++)
			rank[(size_t)k * nn + b[r].id] = r;
	}
	tph_free(b);
	return TPH_OK;
}

static int alloc_tree(topo_tree *t, uint32_t levels, uint32_t nn)
{
	size_t nd = (size_t)levels * nn + 2;
	t->levels = levels;
	t->depth_first = tph_calloc((size_t)levels + 2, sizeof *t->depth_first);
	t->depth = tph_calloc(nd, sizeof *t->depth);
	t->parent = tph_calloc(nd, sizeof *t->parent);
	t->kid_lo = tph_calloc(nd, sizeof *t->kid_lo);
	t->kid_hi = tph_calloc(nd, sizeof *t->kid_hi);
	t->kids = tph_calloc(nd, sizeof *t->kids);
	t->node_lo = tph_calloc(nd, sizeof *t->node_lo);
	t->node_hi = tph_calloc(nd, sizeof *t->node_hi);
	t->nodes = tph_calloc((size_t)nn + 1, sizeof *t->nodes);
	t->at = tph_calloc(nd, sizeof *t->at);
	t->member = tph_calloc((size_t)nn + 1, sizeof *t->member);
	t->value = tph_calloc(nd, sizeof *t->value);
	bool ok = t->depth_first && t->depth && t->parent && t->kid_lo && t->kid_hi && t->kids &&
	          t->node_lo && t->node_hi && t->nodes && t->at && t->member && t->value;
	return ok ? TPH_OK : TPH_ENOMEM;
}

/* Depth d's domains from the sorted members: a new one wherever the path up to depth d
 * changes; each with its parent, nodes and label value; every member's domain there. */
static void number_depth(topo_tree *t, const tph_kai_view *v, uint32_t level, uint32_t d,
                         const path_key *keys, uint32_t n)
{
	uint32_t nn = v->nodes.n, id = t->depth_first[d] - 1;
	for (uint32_t i = 0; i < n; i++) {
		bool fresh = i == 0;
		for (uint32_t k = 0; k < d && !fresh; k++)
			fresh = keys[i].rank[k] != keys[i - 1].rank[k];
		uint32_t node = keys[i].node;
		if (fresh) {
			id++;
			t->depth[id] = d;
			t->parent[id] = topo_at(t, nn, d - 1, node);
			t->node_lo[id] = i;
			int32_t vid = v->topologies.domain[(size_t)level * nn + node];
			t->value[id] =
			    v->topologies.domain_value[(size_t)level * nn + (uint32_t)vid];
		}
		t->node_hi[id] = i + 1;
		t->at[(size_t)(d - 1) * nn + node] = (int32_t)id;
	}
	t->depth_first[d + 1] = id + 1;
}

/* Children ranges (ids are grouped by parent) and each domain's count at its depth. */
static void link_kids(topo_tree *t)
{
	for (uint32_t id = 1; id < t->n_dom; id++) {
		uint32_t p = t->parent[id];
		if (t->kid_hi[p] == 0)
			t->kid_lo[p] = id;
		t->kid_hi[p] = id + 1;
	}
	for (uint32_t id = 0; id < t->n_dom; id++)
		t->kids[id] = id;
	for (uint32_t d = 0; d <= t->levels; d++) {
		uint32_t n = t->depth_first[d + 1] - t->depth_first[d];
		t->max_per_depth = n > t->max_per_depth ? n : t->max_per_depth;
	}
}

static int build_one(const tph_kai_view *v, uint32_t topo, topo_tree *t, uint32_t *rank,
                     path_key *keys)
{
	uint32_t nn = v->nodes.n, first = v->topologies.level_first[topo];
	uint32_t levels = v->topologies.n_levels[topo], n = 0;
	int rc = alloc_tree(t, levels, nn);
	if (rc == TPH_OK)
		rc = rank_values(v, first, levels, rank);
	if (rc < 0)
		return rc;
	for (uint32_t node = 0; node < nn; node++) {
		bool in = v->nodes.in_pool[node];
		for (uint32_t k = 0; k < levels && in; k++) {
			int32_t id = v->topologies.domain[(size_t)(first + k) * nn + node];
			in = id >= 0;
			rank[(size_t)levels * nn + (size_t)n * levels + k] =
			    in ? rank[(size_t)k * nn + (uint32_t)id] : 0;
		}
		if (in) {
			t->member[node] = 1;
			keys[n] = (path_key){rank + (size_t)levels * nn + (size_t)n * levels,
			                     levels, node};
			n++;
		}
	}
	qsort(keys, n, sizeof *keys, cmp_path);
	for (uint32_t i = 0; i < n; i++)
		t->nodes[i] = keys[i].node;
	t->node_hi[0] = n;
	t->value[0] = "";
	t->depth_first[1] = 1;
	for (uint32_t d = 1; d <= levels; d++)
		number_depth(t, v, first + d - 1, d, keys, n);
	t->n_dom = t->depth_first[levels + 1];
	link_kids(t);
	return TPH_OK;
}

int topo_trees_build(const tph_kai_view *v, topo_tree *trees)
{
	uint32_t nn = v->nodes.n, most = 0;
	for (uint32_t t = 0; t < v->topologies.n; t++)
		most = v->topologies.n_levels[t] > most ? v->topologies.n_levels[t] : most;
	/* Per level the value ranks, then every member's path of ranks. */
	uint32_t *rank = tph_calloc((size_t)most * nn * 2 + 1, sizeof *rank);
	path_key *keys = tph_calloc((size_t)nn + 1, sizeof *keys);
	int rc = rank && keys ? TPH_OK : TPH_ENOMEM;
	for (uint32_t t = 0; rc == TPH_OK && t < v->topologies.n; t++)
		rc = build_one(v, t, &trees[t], rank, keys);
	tph_free(rank);
	tph_free(keys);
	return rc;
}

void topo_trees_free(topo_tree *trees, uint32_t n)
{
	for (uint32_t i = 0; trees && i < n; i++) {
		topo_tree *t = &trees[i];
		tph_free(t->depth_first);
		tph_free(t->depth);
		tph_free(t->parent);
		tph_free(t->kid_lo);
		tph_free(t->kid_hi);
		tph_free(t->kids);
		tph_free(t->node_lo);
		tph_free(t->node_hi);
		tph_free(t->nodes);
		tph_free(t->at);
		tph_free(t->member);
		tph_free(t->value);
	}
}

/* Queries over the hypernode tree (ancestors, LCA, membership, recovery of an allocated
 * hypernode), the gradient construction network-topology-aware uses, job topology predicates
 * and the public hypernode/subjob accessors of plugin.h. */
#include "hypernode.h"

#include <stdlib.h>
#include <string.h>

const char *tph_hn_name(const tph_session *s, tph_idx hn)
{
	const tph_hn_tree *t = &s->topo->t;
	if (hn >= t->n)
		return "";
	return hn == t->top ? TPH_HN_TOP_NAME : tph_strtab_str(s->snap->strs, t->name[hn]);
}

tph_idx tph_hn_find(const tph_session *s, const char *name)
{
	const tph_hn_tree *t = &s->topo->t;
	for (tph_idx h = 0; h < t->n; h++)
		if (!strcmp(tph_hn_name(s, h), name))
			return h;
	return TPH_NOIDX;
}

bool tph_hn_has_node(const tph_hn_tree *t, tph_idx hn, tph_idx node)
{
	if (node == TPH_NOIDX)
		return false;
	for (uint32_t k = t->of_off[node]; k < t->of_off[node + 1]; k++)
		if (t->of[k] == hn)
			return true;
	return false;
}

tph_idx tph_hn_lca(const tph_hn_tree *t, tph_idx a, tph_idx b)
{
	if (a == TPH_NOIDX)
		return b;
	if (b == TPH_NOIDX)
		return a;
	while (t->depth[a] > t->depth[b])
		a = t->parent[a];
	while (t->depth[b] > t->depth[a])
		b = t->parent[b];
	while (a != b) {
		a = t->parent[a];
		b = t->parent[b];
	}
	return a;
}

/* Among the hypernodes holding the first node, the lowest tier that holds every node. */
tph_idx tph_hn_lowest_holding(const tph_hn_tree *t, const tph_idx *nodes, uint32_t n)
{
	if (!n || nodes[0] == TPH_NOIDX)
		return TPH_NOIDX;
	tph_idx best = TPH_NOIDX;
	for (uint32_t k = t->of_off[nodes[0]]; k < t->of_off[nodes[0] + 1]; k++) {
		tph_idx h = t->of[k];
		if (best != TPH_NOIDX && t->tier[h] >= t->tier[best])
			continue;
		uint32_t i = 1;
		while (i < n && tph_hn_has_node(t, h, nodes[i]))
			i++;
		if (i == n)
			best = h;
	}
	return best;
}

bool tph_hn_tier_of_name(const tph_hn_tree *t, tph_sid name, int32_t *tier)
{
	for (uint32_t k = 0; k < t->n_tier_names; k++)
		if (t->tn_name[k] == name) {
			*tier = t->tn_tier[k];
			return true;
		}
	return false;
}

tph_idx tph_hn_extend(const tph_hn_tree *t, tph_idx allocated, tph_idx node)
{
	tph_idx h = node == TPH_NOIDX ? TPH_NOIDX : t->lowest[node];
	return h == TPH_NOIDX ? allocated : tph_hn_lca(t, h, allocated);
}

/* ---- gradients ---- */

/* getHighestAllowedHyperNode, then the intersection with `avail` (getSearchRoot). */
tph_idx tph_hn_search_root(const tph_hn_tree *t, tph_idx avail, int32_t highest_tier,
                           tph_idx allocated)
{
	if (allocated == TPH_NOIDX)
		return avail;
	tph_idx high = TPH_NOIDX;
	for (tph_idx a = allocated; a != TPH_NOIDX && t->tier[a] <= highest_tier; a = t->parent[a])
		high = a;
	if (high == TPH_NOIDX)
		return TPH_NOIDX;
	tph_idx lca = tph_hn_lca(t, avail, high);
	if (lca == high)
		return avail;
	return lca == avail ? high : TPH_NOIDX;
}

static void close_group(tph_hn_gradient *g)
{
	if (g->n > (g->n_groups ? g->end[g->n_groups - 1] : 0))
		g->end[g->n_groups++] = g->n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

#define SMALL_SUBTREE 256u

/* A small subtree: collect, sort by (tier, index), cut at tier changes. */
static void gradient_small(const tph_hn_tree *t, tph_idx root, int32_t highest,
                           const uint8_t *eligible, tph_hn_gradient *out)
{
	uint64_t key[SMALL_SUBTREE];
	const tph_idx *sub;
	uint32_t n = tph_hn_subtree(t, root, &sub), k = 0;
	for (uint32_t i = 0; i < n; i++) {
		tph_idx h = sub[i];
		if (t->tier[h] <= highest && (!eligible || eligible[h]))
			key[k++] = (uint64_t)((uint32_t)t->tier[h] ^ 0x80000000u) << 32 | h;
	}
	qsort(key, k, sizeof *key, cmp_u64);
	for (uint32_t i = 0; i < k; i++) {
		if (i && key[i] >> 32 != key[i - 1] >> 32)
			close_group(out);
		out->hn[out->n++] = (tph_idx)key[i];
	}
	close_group(out);
}

void tph_hn_gradient_build(const tph_hn_tree *t, tph_idx root, int32_t highest_tier,
                           const uint8_t *eligible, tph_hn_gradient *out)
{
	out->n = out->n_groups = 0;
	if (root == TPH_NOIDX)
		return;
	if (t->size[root] <= SMALL_SUBTREE) {
		gradient_small(t, root, highest_tier, eligible, out);
		return;
	}
	/* A large subtree: walk the tiers' index-ordered lists, keeping the subtree's members. */
	for (uint32_t r = 0; r < t->n_tiers && t->tiers[r] <= highest_tier; r++) {
		for (uint32_t k = t->tier_off[r]; k < t->tier_off[r + 1]; k++) {
			tph_idx h = t->by_tier[k];
			if (tph_hn_in_subtree(t, root, h) && (!eligible || eligible[h]))
				out->hn[out->n++] = h;
		}
		close_group(out);
	}
}

static void reverse(tph_idx *a, uint32_t n)
{
	for (uint32_t i = 0; i < n / 2; i++) {
		tph_idx x = a[i];
		a[i] = a[n - 1 - i];
		a[n - 1 - i] = x;
	}
}

void tph_hn_gradient_reverse_cap(tph_hn_gradient *g, uint32_t cap)
{
	uint32_t ng = g->n_groups, start = 0, at = 0, kept = 0, out = 0;
	if (!cap)
		return;
	for (uint32_t k = ng; k-- > 1;) /* ends become lengths, highest tier first */
		g->end[k] -= g->end[k - 1];
	reverse(g->end, ng);
	reverse(g->hn, g->n);
	for (uint32_t i = 0; i < ng && kept < cap; i++) {
		uint32_t len = g->end[i];
		uint32_t take = len <= cap - kept ? len : cap - kept;
		reverse(g->hn + start, len);
		memmove(g->hn + at, g->hn + start + (len - take), take * sizeof *g->hn);
		start += len;
		at += take;
		kept += take;
		g->end[i] = at;
		out = i + 1;
	}
	g->n = at;
	g->n_groups = out;
}

int tph_hn_gradient_init(tph_session *s, tph_hn_gradient *g)
{
	uint32_t n = s->topo->t.n;
	g->hn = TPH_ARENA_NEW(&s->arena, tph_idx, n);
	g->end = TPH_ARENA_NEW(&s->arena, uint32_t, n);
	g->n = g->n_groups = 0;
	return g->hn && g->end ? TPH_OK : TPH_ENOMEM;
}

void tph_hn_gradient_single(tph_hn_gradient *g, tph_idx hn)
{
	g->hn[0] = hn;
	g->end[0] = 1;
	g->n = g->n_groups = 1;
}

/* ---- jobs ---- */

bool tph_topo_job_contains_hard(const tph_session *s, tph_idx job)
{
	const tph_topo *tp = s->topo;
	if (tp->job_tier[job] >= 0)
		return true;
	for (uint32_t k = tp->sj.job_off[job]; k < tp->sj.job_off[job + 1]; k++)
		if (tp->sj.topo_tier[k] >= 0)
			return true;
	return false;
}

bool tph_topo_job_contains_topology(const tph_session *s, tph_idx job)
{
	const tph_topo *tp = s->topo;
	if (tp->job_has[job])
		return true;
	for (uint32_t k = tp->sj.job_off[job]; k < tp->sj.job_off[job + 1]; k++)
		if (tp->sj.topo_has[k])
			return true;
	return false;
}

bool tph_hn_fits(const tph_session *s, const int64_t *row, const int64_t *avail, tph_idx h)
{
	const tph_hn_tree *t = &s->topo->t;
	for (uint32_t d = 0; d < t->ndim; d++) {
		size_t at = (size_t)d * t->n + h;
		if (d == TPH_RES_PODS) {
			if (row[d] > t->alloc[at]) /* Volcano's idle never loses pods */
				return false;
		} else if ((d <= TPH_RES_MEMORY || row[d] != 0) && row[d] > avail[at]) {
			return false;
		}
	}
	return true;
}

/* ---- public accessors (plugin.h) ---- */

uint32_t tph_session_hypernode_count(const tph_session *s)
{
	return s->topo ? s->topo->t.n : 0;
}

const char *tph_session_hypernode_name(const tph_session *s, tph_idx hn)
{
	return s->topo ? tph_hn_name(s, hn) : "";
}

int32_t tph_session_hypernode_tier(const tph_session *s, tph_idx hn)
{
	return s->topo && hn < s->topo->t.n ? s->topo->t.tier[hn] : -1;
}

tph_idx tph_session_hypernode_parent(const tph_session *s, tph_idx hn)
{
	return s->topo && hn < s->topo->t.n ? s->topo->t.parent[hn] : TPH_NOIDX;
}

uint32_t tph_session_hypernode_nodes(const tph_session *s, tph_idx hn, const tph_idx **nodes)
{
	if (!s->topo || hn >= s->topo->t.n) {
		*nodes = NULL;
		return 0;
	}
	return tph_hn_nodes(&s->topo->t, hn, nodes);
}

uint32_t tph_session_subjob_count(const tph_session *s)
{
	return s->topo ? s->topo->sj.n : 0;
}

tph_idx tph_session_subjob_job(const tph_session *s, tph_idx subjob)
{
	return s->topo && subjob < s->topo->sj.n ? s->topo->sj.job[subjob] : TPH_NOIDX;
}

tph_idx tph_session_task_subjob(const tph_session *s, tph_idx task)
{
	return tph_task_subjob(s, task);
}

/* Tiers of the hypernode tree (HyperNodesTiers, HyperNodesSetByTier, the tierName map, each
 * node's lowest-tier hypernode) and the per-hypernode resource aggregates, which the task-move
 * hook keeps current with the same accounting the statement applies to nodes. */
#include "hypernode.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

static uint32_t tier_rank(const tph_hn_tree *t, int32_t tier)
{
	uint32_t lo = 0, hi = t->n_tiers;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (t->tiers[mid] < tier)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int distinct_tiers(tph_session *s, tph_hn_tree *t)
{
	t->tiers = TPH_ARENA_NEW(&s->arena, int32_t, t->n);
	if (!t->tiers)
		return TPH_ENOMEM;
	memcpy(t->tiers, t->tier, t->n * sizeof *t->tiers);
	qsort(t->tiers, t->n, sizeof *t->tiers, cmp_i32);
	uint32_t k = 0;
	for (uint32_t i = 0; i < t->n; i++)
		if (!k || t->tiers[k - 1] != t->tiers[i])
			t->tiers[k++] = t->tiers[i];
	t->n_tiers = k;
	t->tier_off = TPH_ARENA_NEW(&s->arena, uint32_t, k + 1);
	t->by_tier = TPH_ARENA_NEW(&s->arena, tph_idx, t->n);
	uint32_t *fill = TPH_ARENA_NEW(&s->arena, uint32_t, k + 1);
	if (!t->tier_off || !t->by_tier || !fill)
		return TPH_ENOMEM;
	for (tph_idx h = 0; h < t->n; h++)
		t->tier_off[tier_rank(t, t->tier[h]) + 1]++;
	for (uint32_t r = 0; r < k; r++)
		t->tier_off[r + 1] += t->tier_off[r];
	memcpy(fill, t->tier_off, k * sizeof *fill);
	for (tph_idx h = 0; h < t->n; h++)
		t->by_tier[fill[tier_rank(t, t->tier[h])]++] = h;
	return TPH_OK;
}

/* HyperNodesInfo.HyperNodeTierNameMap: a later hypernode overrides a conflicting tier. */
static int tier_names(tph_session *s, tph_hn_tree *t)
{
	t->tn_name = TPH_ARENA_NEW(&s->arena, tph_sid, t->n);
	t->tn_tier = TPH_ARENA_NEW(&s->arena, int32_t, t->n);
	if (!t->tn_name || !t->tn_tier)
		return TPH_ENOMEM;
	for (tph_idx h = 0; h < t->n; h++) {
		if (t->tier_name[h] == TPH_SID_NONE || t->tier_name[h] == TPH_SID_EMPTY)
			continue;
		uint32_t k = 0;
		while (k < t->n_tier_names && t->tn_name[k] != t->tier_name[h])
			k++;
		t->tn_name[k] = t->tier_name[h];
		t->tn_tier[k] = t->tier[h];
		if (k == t->n_tier_names)
			t->n_tier_names++;
	}
	return TPH_OK;
}

int tph_hn_tiers_build(tph_session *s, tph_hn_tree *t)
{
	int rc = distinct_tiers(s, t);
	if (!rc)
		rc = tier_names(s, t);
	if (rc || t->lowest) /* the top alone: made with the node lists */
		return rc;
	t->lowest = TPH_ARENA_NEW(&s->arena, tph_idx, s->nodes.n + 1);
	if (!t->lowest)
		return TPH_ENOMEM;
	for (tph_idx i = 0; i < s->nodes.n; i++) {
		t->lowest[i] = TPH_NOIDX;
		for (uint32_t k = t->of_off[i]; k < t->of_off[i + 1]; k++)
			if (t->tier[t->of[k]] == t->tiers[0]) {
				t->lowest[i] = t->of[k];
				break;
			}
	}
	return TPH_OK;
}

/* ---- aggregates ---- */

/* Each ready node's hypernodes form one chain from a deepest one to the top (a node is a
 * direct member of one hypernode, the usual case): its value then enters once at the bottom
 * of the chain and flows up the tree. bottom[i] gets the chain's deepest hypernode. */
static bool chains(const tph_hn_tree *t, uint32_t nn, tph_idx *bottom)
{
	for (tph_idx i = 0; i < nn; i++) {
		uint32_t a = t->of_off[i], e = t->of_off[i + 1];
		tph_idx b = TPH_NOIDX;
		for (uint32_t k = a; k < e; k++)
			if (b == TPH_NOIDX || t->depth[t->of[k]] > t->depth[b])
				b = t->of[k];
		if (b != TPH_NOIDX && e - a != t->depth[b] + 1)
			return false;
		bottom[i] = b;
	}
	return true;
}

/* One aggregate column from a node column: through the chains when `bottom` is given (nodes
 * into their deepest hypernode, then children into parents in reverse pre-order), else by
 * adding each node to every hypernode that holds it (overlapping members count once). */
static void sum_column(const tph_hn_tree *t, const tph_session *s, const tph_idx *bottom,
                       const int64_t *node_col, int64_t *hn_col)
{
	if (bottom) {
		for (tph_idx i = 0; i < s->nodes.n; i++)
			if (bottom[i] != TPH_NOIDX)
				hn_col[bottom[i]] += node_col[i];
		for (uint32_t k = t->n; k-- > 1;)
			hn_col[t->parent[t->preorder[k]]] += hn_col[t->preorder[k]];
		return;
	}
	for (tph_idx i = 0; i < s->nodes.n; i++) {
		int64_t v = node_col[i];
		for (uint32_t k = t->of_off[i]; k < t->of_off[i + 1]; k++)
			hn_col[t->of[k]] += v;
	}
}

int tph_hn_agg_build(tph_session *s, tph_hn_tree *t)
{
	size_t cells = (size_t)s->ndim * t->n + 1;
	int64_t *alloc = TPH_ARENA_NEW(&s->arena, int64_t, cells);
	int64_t *idle = TPH_ARENA_NEW(&s->arena, int64_t, cells);
	int64_t *used = TPH_ARENA_NEW(&s->arena, int64_t, cells);
	int64_t *releasing = TPH_ARENA_NEW(&s->arena, int64_t, cells);
	int64_t *pipelined = TPH_ARENA_NEW(&s->arena, int64_t, cells);
	uint32_t *moves = TPH_ARENA_NEW(&s->arena, uint32_t, t->n + 1);
	tph_idx *bottom = tph_malloc((s->nodes.n + 1) * sizeof *bottom);
	if (!alloc || !idle || !used || !releasing || !pipelined || !moves || !bottom) {
		tph_free(bottom);
		return TPH_ENOMEM;
	}
	const tph_idx *b = chains(t, s->nodes.n, bottom) ? bottom : NULL;
	const tph_node_store *ns = &s->nodes;
	for (uint32_t d = 0; d < s->ndim; d++) {
		size_t nb = (size_t)d * ns->stride, hb = (size_t)d * t->n;
		sum_column(t, s, b, ns->alloc + nb, alloc + hb);
		sum_column(t, s, b, ns->idle + nb, idle + hb);
		sum_column(t, s, b, ns->used + nb, used + hb);
		sum_column(t, s, b, ns->releasing + nb, releasing + hb);
		sum_column(t, s, b, ns->pipelined + nb, pipelined + hb);
	}
	tph_free(bottom);
	t->alloc = alloc;
	t->used = used;
	t->releasing = releasing;
	t->pipelined = pipelined;
	t->moves = moves;
	t->idle = idle; /* last: the hook keeps them once idle is set */
	return TPH_OK;
}

/* The node columns change only through the statement's accounting, which the hook repeats
 * on the hypernodes, so sums of them made now are what sums kept since open hold. */
int tph_hn_aggregates(tph_session *s)
{
	if (!s->topo)
		return TPH_EINVAL;
	return s->topo->t.idle ? TPH_OK : tph_hn_agg_build(s, &s->topo->t);
}

/* The statement's node accounting (NodeInfo.AddTask/RemoveTask), for every hypernode that
 * holds the node; each one's move counter counts the change (the node columns change with it,
 * statement.c's node_account, under the same conditions). */
static void hn_account(tph_session *s, tph_idx task, tph_idx node, uint8_t status, int sign)
{
	tph_hn_tree *t = &s->topo->t;
	bool holds = tph_ts_allocated(status) || status == TPH_TS_RELEASING;
	if (node == TPH_NOIDX || (!holds && status != TPH_TS_PIPELINED))
		return;
	const int64_t *req = s->tasks.req + (size_t)task * s->ndim;
	for (uint32_t k = t->of_off[node]; k < t->of_off[node + 1]; k++) {
		tph_idx h = t->of[k];
		t->moves[h]++;
		for (uint32_t d = 0; d < t->ndim; d++) {
			int64_t v = sign * req[d];
			size_t at = (size_t)d * t->n + h;
			if (status == TPH_TS_PIPELINED) {
				t->pipelined[at] += v;
				continue;
			}
			t->idle[at] -= v;
			t->used[at] += v;
			if (status == TPH_TS_RELEASING)
				t->releasing[at] += v;
		}
	}
}

void tph_topo_task_moved(tph_session *s, tph_idx task, uint8_t old_status, tph_idx old_node)
{
	if (!s->topo)
		return;
	if (s->topo->t.idle) { /* made: some reader asked for them */
		hn_account(s, task, old_node, old_status, -1);
		hn_account(s, task, s->tasks.node[task], s->tasks.status[task], +1);
	}
	tph_subjobs_task_moved(s, task, old_status, old_node);
}

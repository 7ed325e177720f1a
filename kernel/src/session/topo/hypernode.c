/* The hypernode tree at session open: members resolved to nodes (by name, Go regex over node
 * names, node labels) and child hypernodes, parent links with the cluster top over
 * every root, the pre-order, and both directions of node membership (Volcano's HyperNodesInfo
 * build plus Session.addClusterTopHyperNode). Aggregates and tiers: hypernode_agg.c. */
#include "hypernode.h"

#include "tephra/k8s.h"
#include "base/mem.h"
#include "base/regex_go.h"

#include <stdlib.h>
#include <string.h>

/* Open addressing from interned name to index, over scratch memory. */
typedef struct sid_map {
	uint32_t mask;
	tph_sid *key;
	tph_idx *val;
} sid_map;

typedef struct hn_build {
	tph_session *s;
	tph_hn_tree *t;
	uint32_t nreal;
	sid_map nodes, hns;
	tph_idx *pair_node, *pair_hn; /* direct node members, ready nodes only */
	uint32_t n_pairs, cap_pairs, cap_pairs_hn;
} hn_build;

static uint32_t sid_hash(tph_sid k)
{
	return (uint32_t)((k * 0x9E3779B1u) ^ (k >> 15));
}

static int map_init(sid_map *m, uint32_t n)
{
	uint32_t cap = 16;
	while (cap < 2 * n)
		cap <<= 1;
	m->mask = cap - 1;
	m->key = tph_malloc(cap * sizeof *m->key);
	m->val = tph_malloc(cap * sizeof *m->val);
	if (!m->key || !m->val)
		return TPH_ENOMEM;
	memset(m->key, 0xff, cap * sizeof *m->key); /* TPH_SID_NONE: empty */
	return TPH_OK;
}

/* The first insertion of a name wins, as names are unique across nodes and hypernodes. */
static void map_put(sid_map *m, tph_sid k, tph_idx v)
{
	uint32_t i = sid_hash(k) & m->mask;
	while (m->key[i] != TPH_SID_NONE && m->key[i] != k)
		i = (i + 1) & m->mask;
	if (m->key[i] == TPH_SID_NONE) {
		m->key[i] = k;
		m->val[i] = v;
	}
}

static tph_idx map_get(const sid_map *m, tph_sid k)
{
	for (uint32_t i = sid_hash(k) & m->mask; m->key[i] != TPH_SID_NONE; i = (i + 1) & m->mask)
		if (m->key[i] == k)
			return m->val[i];
	return TPH_NOIDX;
}

static void map_free(sid_map *m)
{
	tph_free(m->key);
	tph_free(m->val);
}

static bool node_ready(const tph_session *s, tph_idx n)
{
	return (s->nodes.flags[n] & TPH_NODE_READY) != 0;
}

static int add_pair(hn_build *b, tph_idx node, tph_idx h)
{
	if (!node_ready(b->s, node))
		return TPH_OK;
	if (tph_grow(&b->pair_node, &b->cap_pairs, b->n_pairs + 1, sizeof *b->pair_node) ||
	    tph_grow(&b->pair_hn, &b->cap_pairs_hn, b->n_pairs + 1, sizeof *b->pair_hn))
		return TPH_ENOMEM;
	b->pair_node[b->n_pairs] = node;
	b->pair_hn[b->n_pairs++] = h;
	return TPH_OK;
}

static bool is_ancestor(const tph_hn_tree *t, tph_idx a, tph_idx h)
{
	for (; h != TPH_NOIDX; h = t->parent[h])
		if (h == a)
			return true;
	return false;
}

/* HyperNodesInfo.addChild: a hypernode has one parent; a second claim, or one that closes a
 * cycle, fails the build, which Volcano reports as hypernodes not ready to schedule. */
static void link_child(hn_build *b, tph_idx h, tph_idx c)
{
	tph_hn_tree *t = b->t;
	if (t->parent[c] == h)
		return;
	if (t->parent[c] != TPH_NOIDX || is_ancestor(t, c, h)) {
		tph_diag_warn(b->s->diag,
		              "hypernode %s: member %s already has a parent or closes a "
		              "cycle; hypernodes are not ready to schedule",
		              tph_hn_name(b->s, h), tph_hn_name(b->s, c));
		t->ready = false;
		return;
	}
	t->parent[c] = h;
}

/* Compiled once per member and tree build, matched against every ready node name. The loader
 * and the cache refuse a pattern that does not compile, so failing here is out of memory; a
 * name on which the match limits stop the search (a pattern that backtracks exponentially)
 * drops the member whole, with a warning, rather than a partial set of nodes. */
static int regex_members(hn_build *b, tph_idx h, tph_sid pattern)
{
	const tph_session *s = b->s;
	const char *p = tph_strtab_str(s->snap->strs, pattern);
	tph_re *re;
	char why[256];
	int rc = tph_re_compile(p, &re, why, sizeof why);
	if (rc == TPH_EINVAL) {
		tph_diag_warn(s->diag, "hypernode %s: bad regex \"%s\": %s; no members",
		              tph_hn_name(s, h), p, why);
		return TPH_OK;
	}
	uint32_t first = b->n_pairs;
	for (tph_idx n = 0; n < s->nodes.n && rc == TPH_OK; n++) {
		const char *name = tph_strtab_str(s->snap->strs, s->nodes.name[n]);
		if (!node_ready(s, n))
			continue;
		rc = tph_re_match(re, name, strlen(name));
		if (rc == 1)
			rc = add_pair(b, n, h);
		if (rc == TPH_ERANGE) {
			tph_diag_warn(
			    s->diag,
			    "hypernode %s: regex \"%s\" exceeds the match limits on node %s; "
			    "no members",
			    tph_hn_name(s, h), p, name);
			b->n_pairs = first;
			rc = TPH_OK;
			break;
		}
	}
	tph_re_free(re);
	return rc;
}

static int label_members(hn_build *b, tph_idx h, tph_labels want)
{
	const tph_session *s = b->s;
	int rc = TPH_OK;
	if (!want.n) /* an empty labelMatch selects nothing */
		return rc;
	for (tph_idx n = 0; n < s->nodes.n && !rc; n++) {
		const tph_node_meta *m = s->nodes.meta ? s->nodes.meta[n] : NULL;
		tph_labels have = m ? m->labels : (tph_labels){NULL, 0};
		if (node_ready(s, n) && tph_k8s_labels_subset(want, have))
			rc = add_pair(b, n, h);
	}
	return rc;
}

static int resolve_member(hn_build *b, tph_idx h, const tph_hn_member_row *m)
{
	switch (m->kind) {
	case TPH_MEMBER_REGEX:
		return regex_members(b, h, m->name);
	case TPH_MEMBER_LABELS:
		return label_members(b, h, m->labels);
	default: {
		tph_idx node = map_get(&b->nodes, m->name), c;
		if (node != TPH_NOIDX)
			return add_pair(b, node, h);
		if ((c = map_get(&b->hns, m->name)) != TPH_NOIDX && c != h)
			link_child(b, h, c);
		return TPH_OK; /* a name that is neither: a node not in the cluster */
	}
	}
}

static int resolve_all(hn_build *b)
{
	const tph_hypernode_store *hs = &b->s->snap->hypernodes;
	const tph_node_store *ns = &b->s->nodes;
	int rc = map_init(&b->nodes, ns->n);
	if (!rc)
		rc = map_init(&b->hns, b->nreal);
	for (tph_idx i = 0; !rc && i < ns->n; i++)
		map_put(&b->nodes, ns->name[i], i);
	for (tph_idx h = 0; !rc && h < b->nreal; h++)
		map_put(&b->hns, hs->name[h], h);
	for (tph_idx h = 0; !rc && h < b->nreal; h++)
		for (uint32_t k = 0; !rc && k < hs->n_members[h]; k++)
			rc = resolve_member(b, h, &hs->members[h][k]);
	return rc;
}

/* ---- shape: parents, depth, children, pre-order ---- */

static int shape(tph_session *s, tph_hn_tree *t)
{
	uint32_t n = t->n;
	t->depth = TPH_ARENA_NEW(&s->arena, uint32_t, n);
	t->child_off = TPH_ARENA_NEW(&s->arena, uint32_t, n + 1);
	t->child = TPH_ARENA_NEW(&s->arena, tph_idx, n);
	if (!t->depth || !t->child_off || !t->child)
		return TPH_ENOMEM;
	for (tph_idx h = 0; h + 1 < n; h++)
		if (t->parent[h] == TPH_NOIDX)
			t->parent[h] = t->top; /* addClusterTopHyperNode adopts every root */
	for (tph_idx h = 0; h < n; h++)
		if (t->parent[h] != TPH_NOIDX)
			t->child_off[t->parent[h] + 1]++;
	for (uint32_t h = 0; h < n; h++)
		t->child_off[h + 1] += t->child_off[h];
	uint32_t *fill = TPH_ARENA_NEW(&s->arena, uint32_t, n + 1);
	if (!fill)
		return TPH_ENOMEM;
	memcpy(fill, t->child_off, (n + 1) * sizeof *fill);
	for (tph_idx h = 0; h < n; h++) /* ascending: children in index order */
		if (t->parent[h] != TPH_NOIDX)
			t->child[fill[t->parent[h]]++] = h;
	return TPH_OK;
}

/* Iterative pre-order from the top; children in index order; depth and subtree sizes. */
static int preorder(tph_session *s, tph_hn_tree *t)
{
	uint32_t n = t->n, len = 0, top = 0;
	t->preorder = TPH_ARENA_NEW(&s->arena, tph_idx, n);
	t->pre = TPH_ARENA_NEW(&s->arena, uint32_t, n);
	t->size = TPH_ARENA_NEW(&s->arena, uint32_t, n);
	tph_idx *stack = tph_malloc(n * sizeof *stack);
	if (!t->preorder || !t->pre || !t->size || !stack) {
		tph_free(stack);
		return TPH_ENOMEM;
	}
	stack[top++] = t->top;
	while (top) {
		tph_idx h = stack[--top];
		t->pre[h] = len;
		t->preorder[len++] = h;
		t->depth[h] = h == t->top ? 0 : t->depth[t->parent[h]] + 1;
		for (uint32_t c = t->child_off[h + 1]; c-- > t->child_off[h];)
			stack[top++] = t->child[c];
	}
	tph_free(stack);
	for (uint32_t i = n; i-- > 0;) {
		tph_idx h = t->preorder[i];
		t->size[h] += 1;
		if (t->parent[h] != TPH_NOIDX)
			t->size[t->parent[h]] += t->size[h];
	}
	return len == n ? TPH_OK : TPH_EINVAL;
}

/* ---- node membership: RealNodesSet, closed upwards ---- */

static void sort_small(tph_idx *a, uint32_t n)
{
	for (uint32_t i = 1; i < n; i++)
		for (uint32_t j = i; j > 0 && a[j - 1] > a[j]; j--) {
			tph_idx x = a[j];
			a[j] = a[j - 1];
			a[j - 1] = x;
		}
}

/* The hypernodes holding `node`: its direct hypernodes and their ancestors (the top always).
 * `out` NULL only counts. `mark` is stamped with node + 1. */
static uint32_t closure(const hn_build *b, tph_idx node, const uint32_t *first, uint32_t *mark,
                        tph_idx *out)
{
	const tph_hn_tree *t = b->t;
	uint32_t k = 0;
	for (uint32_t p = first[node]; p < first[node + 1]; p++)
		for (tph_idx a = b->pair_hn[p]; a != TPH_NOIDX && mark[a] != node + 1;
		     a = t->parent[a]) {
			mark[a] = node + 1;
			if (out)
				out[k] = a;
			k++;
		}
	if (mark[t->top] != node + 1) {
		mark[t->top] = node + 1;
		if (out)
			out[k] = t->top;
		k++;
	}
	if (out)
		sort_small(out, k);
	return k;
}

/* Pairs grouped by node (counting sort), into first[node] .. first[node + 1). */
static int group_pairs(hn_build *b, uint32_t nn, uint32_t **first_out)
{
	uint32_t *first = tph_calloc(nn + 2, sizeof *first);
	tph_idx *hn = tph_malloc((b->n_pairs + 1) * sizeof *hn);
	if (!first || !hn) {
		tph_free(first);
		tph_free(hn);
		return TPH_ENOMEM;
	}
	for (uint32_t p = 0; p < b->n_pairs; p++)
		first[b->pair_node[p] + 2]++;
	for (uint32_t i = 0; i < nn; i++)
		first[i + 2] += first[i + 1];
	for (uint32_t p = 0; p < b->n_pairs; p++)
		hn[first[b->pair_node[p] + 1]++] = b->pair_hn[p];
	tph_free(b->pair_hn);
	b->pair_hn = hn;
	*first_out = first;
	return TPH_OK;
}

static int node_lists(hn_build *b, const uint32_t *first, uint32_t *mark)
{
	tph_session *s = b->s;
	tph_hn_tree *t = b->t;
	uint32_t nn = s->nodes.n;
	t->of_off = TPH_ARENA_NEW(&s->arena, uint32_t, nn + 1);
	if (!t->of_off)
		return TPH_ENOMEM;
	for (tph_idx i = 0; i < nn; i++)
		t->of_off[i + 1] =
		    t->of_off[i] + (node_ready(s, i) ? closure(b, i, first, mark, NULL) : 0);
	t->of = TPH_ARENA_NEW(&s->arena, tph_idx, t->of_off[nn] + 1);
	t->node_off = TPH_ARENA_NEW(&s->arena, uint32_t, t->n + 1);
	t->node = TPH_ARENA_NEW(&s->arena, tph_idx, t->of_off[nn] + 1);
	if (!t->of || !t->node_off || !t->node)
		return TPH_ENOMEM;
	memset(mark, 0, t->n * sizeof *mark);
	for (tph_idx i = 0; i < nn; i++)
		if (node_ready(s, i))
			closure(b, i, first, mark, t->of + t->of_off[i]);
	for (uint32_t k = 0; k < t->of_off[nn]; k++)
		t->node_off[t->of[k] + 1]++;
	for (uint32_t h = 0; h < t->n; h++)
		t->node_off[h + 1] += t->node_off[h];
	memcpy(mark, t->node_off, t->n * sizeof *mark);
	for (tph_idx i = 0; i < nn; i++) /* ascending nodes: snapshot order per hypernode */
		for (uint32_t k = t->of_off[i]; k < t->of_off[i + 1]; k++)
			t->node[mark[t->of[k]]++] = i;
	return TPH_OK;
}

static int membership(hn_build *b)
{
	uint32_t *first = NULL;
	uint32_t *mark = tph_calloc(b->t->n + 1, sizeof *mark);
	int rc = mark ? group_pairs(b, b->s->nodes.n, &first) : TPH_ENOMEM;
	if (!rc)
		rc = node_lists(b, first, mark);
	tph_free(first);
	tph_free(mark);
	return rc;
}

/* No declared hypernode: the top alone holds every ready node, so its node list is the
 * session's ready nodes (snapshot order), each ready node's list is the top, index 0, which
 * the fresh zeroed `of` already holds, and so is its lowest-tier hypernode. */
static int top_only(tph_session *s, tph_hn_tree *t)
{
	uint32_t nn = s->nodes.n;
	t->of_off = TPH_ARENA_NEW(&s->arena, uint32_t, nn + 1);
	t->of = TPH_ARENA_NEW(&s->arena, tph_idx, s->n_ready + 1);
	t->node_off = TPH_ARENA_NEW(&s->arena, uint32_t, 2);
	t->lowest = TPH_ARENA_NEW(&s->arena, tph_idx, nn + 1);
	if (!t->of_off || !t->of || !t->node_off || !t->lowest)
		return TPH_ENOMEM;
	for (tph_idx i = 0; i < nn; i++) {
		bool ready = node_ready(s, i);
		t->of_off[i + 1] = t->of_off[i] + ready;
		t->lowest[i] = ready ? 0 : TPH_NOIDX;
	}
	t->node_off[1] = s->n_ready;
	t->node = s->ready_nodes;
	return TPH_OK;
}

/* ---- the tree ---- */

static int alloc_base(tph_session *s, tph_hn_tree *t, uint32_t nreal)
{
	const tph_hypernode_store *hs = &s->snap->hypernodes;
	t->n = nreal + 1;
	t->top = nreal;
	t->ready = true;
	tph_sid *name = TPH_ARENA_NEW(&s->arena, tph_sid, t->n);
	int32_t *tier = TPH_ARENA_NEW(&s->arena, int32_t, t->n);
	tph_sid *tname = TPH_ARENA_NEW(&s->arena, tph_sid, t->n);
	t->parent = TPH_ARENA_NEW(&s->arena, tph_idx, t->n);
	if (!name || !tier || !tname || !t->parent)
		return TPH_ENOMEM;
	int32_t top_tier = 1; /* addClusterTopHyperNode: above every tier, at least 1 */
	for (uint32_t h = 0; h < nreal; h++) {
		name[h] = hs->name[h];
		tier[h] = hs->tier[h];
		tname[h] = hs->tier_name[h];
		if (tier[h] >= top_tier)
			top_tier = tier[h] + 1;
	}
	name[nreal] = tname[nreal] = TPH_SID_NONE;
	tier[nreal] = top_tier;
	memset(t->parent, 0xff, t->n * sizeof *t->parent);
	t->name = name;
	t->tier = tier;
	t->tier_name = tname;
	return TPH_OK;
}

int tph_hn_tree_build(tph_session *s, tph_hn_tree *t)
{
	hn_build b = {.s = s, .t = t, .nreal = s->snap->hypernodes.n};
	int rc = alloc_base(s, t, b.nreal);
	t->ndim = s->ndim;
	if (!rc && b.nreal)
		rc = resolve_all(&b);
	if (!rc)
		rc = shape(s, t);
	if (!rc)
		rc = preorder(s, t);
	if (!rc)
		rc = b.nreal ? membership(&b) : top_only(s, t);
	if (!rc)
		rc = tph_hn_tiers_build(s, t);
	map_free(&b.nodes);
	map_free(&b.hns);
	tph_free(b.pair_node);
	tph_free(b.pair_hn);
	return rc;
}

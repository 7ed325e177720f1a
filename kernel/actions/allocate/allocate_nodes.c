/* Choosing among a task's feasible nodes (Volcano's prioritizeNodes) and placing it there
 * (allocateResourcesForTask): nodes with enough Idle are preferred to nodes that only have
 * enough once releasing resources are freed, and in soft sharding this shard's nodes come
 * before the others within each kind. */
#include "allocate.h"
#include "allocate_fast.h"

/* Stable partition of feas[0..n) into c->grouped by gradient; off[g] is where group g starts. */
static void partition(alloc_ctx *c, tph_idx task, const tph_idx *feas, uint32_t n,
                      uint32_t off[G_COUNT + 1])
{
	const tph_session *s = c->s;
	bool soft = s->snap->shard_mode == TPH_SHARD_SOFT;
	uint32_t cnt[G_COUNT] = {0};
	tph_fit_req fit;
	alloc_group_req(s, task, &fit);
	for (uint32_t i = 0; i < n; i++)
		cnt[c->grp[i] = alloc_group_of(s, &fit, feas[i], soft)]++;
	off[0] = 0;
	for (uint32_t g = 0; g < G_COUNT; g++)
		off[g + 1] = off[g] + cnt[g];
	uint32_t at[G_COUNT];
	for (uint32_t g = 0; g < G_COUNT; g++)
		at[g] = off[g];
	for (uint32_t i = 0; i < n; i++)
		c->grouped[at[c->grp[i]]++] = feas[i];
}

tph_idx alloc_best_node(alloc_ctx *c, tph_idx task, const tph_idx *feas, uint32_t n)
{
	tph_session *s = c->s;
	uint32_t off[G_COUNT + 1];
	partition(c, task, feas, n, off);
	for (uint32_t g = 0; g < G_NONE; g++) {
		const tph_idx *nodes = c->grouped + off[g];
		uint32_t m = off[g + 1] - off[g];
		if (!m)
			continue;
		if (m == 1)
			return nodes[0]; /* a single candidate is taken unscored */
		if (!tph_score_nodes(s, task, nodes, m, c->scores))
			continue; /* a failed BatchNodeOrder: no scores, no node of this group */
		tph_idx best = tph_best_node(s, task, nodes, c->scores, m);
		if (best != TPH_NOIDX)
			return best;
	}
	return TPH_NOIDX;
}

int alloc_place(alloc_ctx *c, tph_statement *st, tph_idx task, tph_idx node)
{
	tph_fit_req own;
	const tph_fit_req *fit = alloc_fast_fit(c->fast, task); /* the pick's, when it made one */
	if (!fit)
		alloc_group_req(c->s, task, &own), fit = &own;
	uint8_t g = alloc_group_of(c->s, fit, node, false);
	if (g == G_NONE)
		return TPH_DECLINED;
	int rc =
	    g == G_IDLE ? tph_stmt_allocate(st, task, node) : tph_stmt_pipeline(st, task, node);
	/* A refused allocation may still have changed plugin state on the node (Volcano's vGPU
	 * ledger keeps what its allocate event took), so the node is evaluated again either way. */
	tph_ph_touch(&c->ph, node);
	return rc;
}

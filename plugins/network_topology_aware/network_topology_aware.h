/* network-topology-aware: state shared by its two files. network_topology_aware.c holds the
 * arguments, the resource cache, the node chains, the events and the hypernode gradients;
 * network_topology_aware_score.c the node scores (BatchNodeOrder) and the hypernode scores
 * (HyperNodeOrder). */
#ifndef TPH_NETWORK_TOPOLOGY_AWARE_H
#define TPH_NETWORK_TOPOLOGY_AWARE_H

#include "tephra/topology.h"

/* getPodHyperNodeBinPackingScore's dimensions for one request row, prepared once for the many
 * hypernodes it is computed for: those asked for (request > 0) with a weight, ascending, zero
 * weights included (their overflow still scores 0). */
typedef struct nta_bp {
	uint32_t n;
	size_t off[TPH_RES_MAX]; /* d * nh: the dimension's column in alloc and used */
	double r[TPH_RES_MAX], w[TPH_RES_MAX];
	int64_t wsum;
} nta_bp;

typedef struct nta_st {
	/* Arguments, Volcano's keys and defaults (a negative weight means 1, a negative fading
	 * 0.8, max-hypernodes <= 0 means 8). */
	int64_t weight, cpu, memory;
	const char *resources;
	bool normal_enable;
	double fading;
	int64_t evict_max;
	/* Binpack weight of each dimension that has one (cpu, memory, the listed resources). */
	int64_t w[TPH_RES_MAX];
	uint8_t has[TPH_RES_MAX];
	/* The dimensions with a weight (has), ascending: the only ones of `used` binpack reads. */
	uint32_t wd[TPH_RES_MAX], n_wd;
	/* HyperNodesTiers' lowest and highest (the cluster top's) tier, and the normal-pod tier
	 * weights fading^(tier - 1) over min..max with their sum. */
	int32_t min_tier, max_tier;
	double *tier_w, tier_w_sum;
	/* hyperNodeResourceCache, columns [d * nh + h]: allocatable (the tree's), used (moved by
	 * this plugin's events only: allocate and pipeline add, evict and undo subtract), and idle
	 * and future idle as they were at session open. */
	uint32_t nh;
	const int64_t *alloc;
	int64_t *used, *idle, *future;
	tph_idx *where;    /* [tasks]: the node whose hypernodes count the task in `used` */
	uint8_t *eligible; /* [nh] gradient scratch */
	/* scoreWithTaskNum's counts, kept (session thread: scores run there): cnt[h] = the tasks
	 * of subjob cnt_sj (TPH_NOIDX: none) counted on nodes of h, each task counted at its node
	 * seen[task], every one as it was when the subjob's move counter was cnt_moves; a call
	 * brings them to the tasks' current nodes, so no event can miss one. */
	uint32_t *cnt, cnt_moves;
	tph_idx *seen, cnt_sj;
	int64_t *sj_req;   /* [ndim] the summed requests of subjob sj_req_of (HyperNodeOrder) */
	tph_idx sj_req_of; /* TPH_NOIDX: none yet */
	nta_bp sj_bp;      /* sj_req's binpack dimensions */
	int64_t *row;      /* [ndim] scratch */
	double *hb; /* [nh] normal pods' binpack per hypernode, for one call (session thread) */
	/* [nodes] the deepest hypernode holding the node when the node's hypernodes are exactly
	 * it and its ancestors (then nodes with the same chain score alike), else TPH_NOIDX; and
	 * per chain, the score of one call's task (session thread), valid where mark == gen. */
	tph_idx *chain;
	double *chain_score;
	uint32_t *chain_mark, chain_gen;
	tph_idx *listed; /* [nh] the lowest hypernodes one network-aware call scored */
	/* [h * tiers + tier - min_tier] for a chain's deepest hypernode h: the chain's hypernode
	 * of each tier (what nta_at_tier gives its nodes), TPH_NOIDX where none; NULL when
	 * normal pods score nothing or the tiers span too many. */
	tph_idx *chain_at;
	/* [nh] per chain, its chain_at sum over every tier but the last (whose hypernode, the
	 * cluster top, every placement moves) from hb (session thread): valid where pre_mark ==
	 * pre_gen. hb_fill drops the chains under each hypernode it recomputes (those that sum it),
	 * and all of them for a new request row. NULL with chain_at. */
	double *pre;
	uint32_t *pre_mark, pre_gen;
	/* hb as a cache (session thread): valid for the request row hb_req when hb_valid, but for
	 * the hypernodes listed in hb_dirty (hb_stale[h] set), whose used moved since. */
	int64_t *hb_req;
	bool hb_valid;
	uint8_t *hb_stale;
	tph_idx *hb_dirty;
	uint32_t n_dirty;
} nta_st;

/* The first hypernode of `tier` holding `node` (HyperNodesSetByTier[tier] scanned in order). */
static inline tph_idx nta_at_tier(const tph_hn_tree *t, tph_idx node, int32_t tier)
{
	for (uint32_t k = t->of_off[node]; k < t->of_off[node + 1]; k++)
		if (t->tier[t->of[k]] == tier)
			return t->of[k];
	return TPH_NOIDX;
}

/* 100 * weight * score (scaleFinalScore). */
static inline double nta_scale(const nta_st *st, double score)
{
	return 100.0 * (double)st->weight * score;
}

/* BatchNodeOrder and HyperNodeOrder (network_topology_aware_score.c). */
void nta_batch_node_order(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                          uint32_t n, double *out);
/* Score locality (plugin.h): LOCAL where the node scores are zero everywhere (no job; a
 * network-aware subjob not being placed yet; normal pods with hypernode binpacking off), LOCAL
 * with TPH_SCORE_HYPERNODE and TPH_SCORE_HN_SET for the hypernode binpacking of normal pods
 * (normal_node reads only the hypernodes holding the node), else GLOBAL. */
int nta_score_locality(void *st, const tph_session *s, tph_idx task);
/* The bound of tph_score_hn_bound_fn for a task nta_score_locality answers TPH_SCORE_HN_SET for,
 * its nodes each in a chain: lower[i] the chain's kept sum of the tiers below the cluster top's,
 * top the top's term, scale 100 * weight / the tier weights' sum. */
bool nta_score_hn_bound(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                        uint32_t n, double *lower, tph_score_bound *b);
void nta_hypernode_order(void *st, const tph_session *s, tph_idx subjob, const tph_idx *hns,
                         uint32_t n, double *out);
/* nta_hypernode_order for each hypernode alone (tph_on_hypernode_order_each). */
void nta_hypernode_order_each(void *st, const tph_session *s, tph_idx subjob, const tph_idx *hns,
                              uint32_t n, double *out);

#endif

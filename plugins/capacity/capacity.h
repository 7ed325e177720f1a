/* capacity plugin, private: the per-queue rows both halves share. capacity_hierarchy.c builds
 * them (flat, or over the queue tree under enableHierarchy), capacity.c answers the extension
 * points. All rows are exact int64; VR_INF stands for Volcano's unbounded capability. */
#ifndef TPH_PLUGINS_CAPACITY_H
#define TPH_PLUGINS_CAPACITY_H

#include "lib/vres.h"

typedef struct cap_st {
	int64_t level;     /* ancestorReclaimLevel */
	bool dra, dra_cap; /* capacity.DynamicResourceAllocationEnable, ...DRAConsumable...:
	                      read for compatibility; tephra has no DRA claims */
	vr_dims v;
	uint32_t nq, nd;
	bool hier, ready; /* ready: Volcano's readyToSchedule */
	tph_idx root;     /* the queue named "root", or TPH_NOIDX */
	uint8_t *has;     /* [q]: the queue has attributes (flat: has jobs; tree: all) */
	int64_t *alloc, *request, *inqueue, *elastic;           /* [q * nd] */
	int64_t *des, *cap, *guar, *realcap;                    /* [q * nd] */
	tph_dimmask *des_keys, *cap_keys, *guar_keys, *rc_keys; /* scalar keys present */
	double *share;                                          /* [q] */
	tph_idx *anc; /* ancestors of q, root first: anc[anc_off[q] .. anc_off[q+1]) */
	uint32_t *anc_off;
	uint32_t *nchild; /* [q]: child queues */
	tph_idx *child;   /* children of q: child[child_off[q] .. child_off[q+1]) */
	uint32_t *child_off;
	vr_clone clones;    /* per-call clones of allocated (victim checks) */
	uint32_t *perm;     /* [task]: victim pop order scratch */
	int64_t **anc_rows; /* [max ancestors]: reclaim's ancestor clones of one reclaimee */
	vr_clone sim;       /* PrePredicate snapshot of allocated (see sim_row) */
	bool sim_ready;
} cap_st;

static inline int64_t *cap_row(const cap_st *st, int64_t *base, tph_idx q)
{
	return base + (size_t)q * st->nd;
}

static inline uint32_t cap_nanc(const cap_st *st, tph_idx q)
{
	return st->anc_off ? st->anc_off[q + 1] - st->anc_off[q] : 0;
}

static inline const tph_idx *cap_ancestors(const cap_st *st, tph_idx q)
{
	return st->anc_off ? st->anc + st->anc_off[q] : NULL;
}

static inline bool cap_leaf(const cap_st *st, tph_idx q)
{
	return !st->nchild || st->nchild[q] == 0;
}

/* Allocate the rows (zeroed). */
int cap_alloc_rows(tph_session *s, cap_st *st);
/* buildQueueAttrs: queues with jobs, deserved capped by the real capability. */
void cap_build_flat(const tph_session *s, cap_st *st);
/* buildHierarchicalQueueAttrs: every queue, ancestors, inheritance from the root down.
 * Returns Volcano's readyToSchedule. */
bool cap_build_tree(tph_session *s, cap_st *st);
/* updateQueueAttrShare: 1 for a queue without deserved, else the largest allocated/deserved. */
void cap_update_share(cap_st *st, tph_idx q);

#endif

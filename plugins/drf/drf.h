/* drf plugin, private: the hierarchical DRF tree (drf_hdrf.c) that drf.c keeps under
 * enableHierarchy. Queues name their path with the annotations volcano.sh/hierarchy
 * ("root/eng/prod") and volcano.sh/hierarchy-weights ("1/2/8"); every job is a leaf under its
 * queue's path. Shares are float64 in Volcano's units, computed in Volcano's order of
 * operations, since scaled allocations are not whole numbers. */
#ifndef TPH_PLUGINS_DRF_H
#define TPH_PLUGINS_DRF_H

#include "lib/vres.h"

/* The values of every node: one tree shape, several sets of values (the live tree and the
 * reclaim check's clone). */
typedef struct hdrf_ws {
	double *alloc; /* [node * ndim]: allocated, Volcano units */
	double *share; /* [node]: dominant share */
	uint8_t *sat;  /* [node]: saturated */
} hdrf_ws;

typedef struct hdrf {
	const vr_dims *v;
	uint32_t nn; /* nodes; node 0 is the root */
	tph_idx *parent, *first, *last, *next;
	tph_idx *job;      /* leaf: its job; internal: TPH_NOIDX */
	const char **name; /* internal: path component (not NUL-terminated) */
	uint32_t *name_len;
	double *weight;
	double *req; /* [node * ndim]: a leaf's job.TotalRequest, Volcano units */
	double total[TPH_RES_MAX];
	tph_dimmask total_names; /* dimensions of the total resource (ResourceNames) */
	int64_t total_exact[TPH_RES_MAX];
	tph_idx *leaf;  /* [job]: its leaf */
	tph_idx *qpath; /* queue q's path nodes: qpath[qoff[q] .. qoff[q+1]) */
	uint32_t *qoff;
	hdrf_ws live;
	tph_dimmask live_demand; /* demanding resources the live values were computed with */
} hdrf;

/* Build the tree over every job (drf's OnSessionOpen). alloc[j * ndim] and share[j] are the
 * jobs' allocated rows and shares; total_alloc the sum of every job's allocated. */
int hdrf_build(tph_session *s, hdrf *h, const vr_dims *v, const int64_t *total,
               const int64_t *alloc, const double *share, const int64_t *total_alloc);
/* UpdateHierarchicalShare after job j's allocated changed to `alloc` with `share`. */
void hdrf_update(const hdrf *h, hdrf_ws *ws, tph_dimmask *demand, tph_idx j, const int64_t *alloc,
                 double share, const int64_t *total_alloc);
/* compareQueues: <0 when queue a has the lower weighted share along the paths, >0 when b,
 * 0 when they tie (or a path node is missing, where Volcano would dereference nil). */
double hdrf_compare(const hdrf *h, const hdrf_ws *ws, tph_idx qa, tph_idx qb);
/* A copy of the live values in `ws`, whose arrays come from `buf` (hdrf_ws_bytes()). */
size_t hdrf_ws_bytes(const hdrf *h);
void hdrf_ws_clone(const hdrf *h, hdrf_ws *ws, void *buf);

#endif

/* Volcano's resource fit, the one implementation: a task's request against a node's Idle or
 * FutureIdle (idle + releasing - pipelined), dimension by dimension. Filtering
 * (tph_filter_nodes: FutureIdle, "Insufficient <dim>" reasons), allocate's choice between
 * allocating and pipelining (Idle, then FutureIdle) and the eviction actions' "fits once
 * these victims go" all read it. Everything is inline: a loop over nodes prepares the request
 * once and stays a loop over columns with no call per node; a single check walks the row
 * once. */
#ifndef TPH_FIT_H
#define TPH_FIT_H

#include "session/ep.h"

/* Volcano's LessEqual(..., Zero) compares cpu and memory always and any other dimension only
 * when the request carries it. `pods`: whether the pods unit tephra adds to every request
 * counts; filtering counts it (LessEqualWithResourcesName over the pod's resources),
 * InitResreq.LessEqual(node.Idle) does not, Volcano's InitResreq having none. */
static inline bool tph_fit_counts(uint32_t d, const int64_t *req, bool pods)
{
	return (d <= TPH_RES_MEMORY || req[d] != 0) && (pods || d != TPH_RES_PODS);
}

/* What the node has in dimension d: Idle, or FutureIdle. */
static inline int64_t tph_fit_room(const tph_node_store *ns, uint32_t d, tph_idx node, bool future)
{
	size_t at = (size_t)d * ns->stride + node;
	return future ? ns->idle[at] + ns->releasing[at] - ns->pipelined[at] : ns->idle[at];
}

/* The dimensions one task is checked on, with the reason each failure gives. */
typedef struct tph_fit_req {
	uint32_t n;
	uint32_t dim[TPH_RES_MAX];
	int64_t req[TPH_RES_MAX];
	tph_reason_code code[TPH_RES_MAX];
} tph_fit_req;

/* Prepare a task's request for checks over many nodes. `insuff`: the "Insufficient <dim>"
 * codes by dimension, or NULL when only pass or fail matters. */
static inline void tph_fit_prepare(const tph_session *s, tph_idx task,
                                   const tph_reason_code *insuff, bool pods, tph_fit_req *r)
{
	const int64_t *req = s->tasks.req + (size_t)task * s->ndim;
	r->n = 0;
	for (uint32_t d = 0; d < s->ndim && d < TPH_RES_MAX; d++) {
		if (!tph_fit_counts(d, req, pods))
			continue;
		r->dim[r->n] = d;
		r->req[r->n] = req[d];
		r->code[r->n++] = insuff ? insuff[d] : TPH_REASON_INVALID;
	}
}

/* TPH_PASS when the request fits the node's Idle (future: FutureIdle), else the code of the
 * first short dimension in table order. */
static inline tph_reason_code tph_fit_check(const tph_node_store *ns, const tph_fit_req *r,
                                            tph_idx node, bool future)
{
	for (uint32_t k = 0; k < r->n; k++)
		if (r->req[k] > tph_fit_room(ns, r->dim[k], node, future))
			return r->code[k];
	return TPH_PASS;
}

/* One task on one node, for a single check (allocate's nominated node, gang evict's trial):
 * the pods unit left out, as tph_fit_prepare(.., false, ..) leaves it. */
static inline bool tph_fits(const tph_session *s, tph_idx task, tph_idx node, bool future)
{
	const int64_t *req = s->tasks.req + (size_t)task * s->ndim;
	for (uint32_t d = 0; d < s->ndim; d++)
		if (tph_fit_counts(d, req, false) &&
		    req[d] > tph_fit_room(&s->nodes, d, node, future))
			return false;
	return true;
}

/* One task against a row by dimension (the eviction actions' FutureIdle plus victims), the
 * pods unit counted. */
static inline bool tph_fits_row(const tph_session *s, tph_idx task, const int64_t *avail)
{
	const int64_t *req = s->tasks.req + (size_t)task * s->ndim;
	for (uint32_t d = 0; d < s->ndim; d++)
		if (tph_fit_counts(d, req, true) && req[d] > avail[d])
			return false;
	return true;
}

#endif

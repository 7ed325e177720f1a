/* Volcano's api.Resource rules over tephra's exact rows, shared by drf, proportion and capacity.
 *
 * Volcano keeps resources as float64 with a 0.1 tolerance (minResource) and a map of scalar
 * resources whose keys matter to some operations. Here a resource is a row of int64 in the
 * session's exact units (cpu millicores, memory bytes, scalars milli-units), plus, where a key
 * set matters, a tph_dimmask of the scalar dimensions that are present. Every value Volcano
 * compares in these plugins is a whole number in its own units, so "l < r || |l-r| < 0.1" is
 * exactly l <= r on the int64s and "x < 0.1" is x <= 0; a dimension that is absent reads 0.
 * Volcano's unbounded values (math.MaxFloat64, a root queue's MaxInt64 scalars) are VR_INF,
 * which absorbs additions and subtractions as the huge float does.
 *
 * Deviations from Volcano, by design: a task's request never holds `pods` (tephra charges one
 * pods unit per task for the node fit; Volcano's Resreq has none), and dimensions that Volcano's
 * NewResource drops (names that are neither native nor a valid extended resource, e.g. "rdma")
 * are outside `vis` and ignored everywhere. Where a node lists a scalar with value 0, Volcano's
 * total resource has the key and tephra's does not (node rows have no key set). */
#ifndef TPH_PLUGINS_VRES_H
#define TPH_PLUGINS_VRES_H

#include <stdbool.h>
#include <stdint.h>

#include "tephra/plugin.h"

#define VR_INF INT64_MAX

/* How a dimension's value reads in Volcano's float units. */
enum {
	VR_SAME = 0,       /* cpu millicores, memory bytes, scalar milli-units */
	VR_COUNT = 1,      /* pods: Volcano keeps Value(), a count */
	VR_MILLIBYTES = 2, /* ephemeral-storage, hugepages-*: Volcano keeps MilliValue() of bytes */
};

typedef struct vr_dims {
	uint32_t n;
	tph_dimmask vis;  /* the dimensions Volcano's NewResource keeps */
	tph_dimmask scal; /* vis without cpu and memory: Volcano's ScalarResources */
	tph_dimmask cmp;  /* vis without pods: what ...WithDimension and IsEmpty look at */
	uint8_t kind[TPH_RES_MAX];
	/* cmp's dimensions in order: the per-placement loops visit only these */
	uint8_t cmp_dim[TPH_RES_MAX];
	uint32_t n_cmp;
} vr_dims;

/* The session's dimension table as Volcano sees it. */
void vr_dims_init(vr_dims *v, const tph_session *s);
/* Whether api.NewResource keeps a resource of this name (the dimensions in `vis`). */
bool vr_visible_name(const char *name);

static inline bool vr_has(tph_dimmask m, uint32_t d)
{
	return (m >> d) & 1u;
}

static inline int64_t vr_add(int64_t a, int64_t b)
{
	return a == VR_INF || b == VR_INF ? VR_INF : a + b;
}

static inline int64_t vr_sub(int64_t a, int64_t b)
{
	return a == VR_INF ? (b == VR_INF ? 0 : VR_INF) : a - b;
}

/* A value in Volcano's float units (for the plugins that keep floats as Volcano does).
 * Inline: drf's and proportion's shares read it on every placement. */
static inline double vr_vol(const vr_dims *v, uint32_t d, int64_t x)
{
	switch (v->kind[d]) {
	case VR_COUNT: /* Quantity.Value() rounds milli-units up */
		return (double)(x / 1000 + (x % 1000 > 0));
	case VR_MILLIBYTES:
		return (double)x * 1000.0;
	default:
		return (double)x;
	}
}
/* The inverse, for reports: a value in Volcano's units back in exact units (rounded down;
 * a value beyond int64 reads VR_INF). */
int64_t vr_exact(const vr_dims *v, uint32_t d, double x);

/* row += sign * (task t's request as Volcano's Resreq: visible dimensions, no pods). Inline
 * for the same reason. */
static inline void vr_add_req(const vr_dims *v, const tph_session *s, tph_idx t, int64_t *row,
                              int sign)
{
	const int64_t *req = tph_view_of(s)->tasks->req + (size_t)t * tph_view_of(s)->ndim;
	for (uint32_t i = 0; i < v->n_cmp; i++)
		row[v->cmp_dim[i]] += sign * req[v->cmp_dim[i]];
}
/* Task t's request as Volcano's Resreq. */
void vr_req(const vr_dims *v, const tph_session *s, tph_idx t, int64_t *out);
/* ssn.TotalResource: the allocatable of every ready node. *keys gets the scalar dimensions
 * it holds (approximated by a positive total). */
void vr_total(const vr_dims *v, const tph_session *s, int64_t *out, tph_dimmask *keys);

/* The ready nodes' allocatable and used, every dimension summed, made once per session (a
 * session-shared object) for the plugins that read them at open: drf's and proportion's
 * total, overcommit's total and used. Used as the nodes stood at the first call; NULL when
 * the session is out of memory. */
typedef struct vr_node_sums {
	int64_t alloc[TPH_RES_MAX], used[TPH_RES_MAX];
} vr_node_sums;
const vr_node_sums *vr_node_sums_get(tph_session *s);
/* vr_total from the ready nodes' allocatable summed (vr_node_sums.alloc). */
void vr_total_from(const vr_dims *v, const int64_t *alloc, int64_t *out, tph_dimmask *keys);
/* NewResource(podgroup.minResources), or zeros when the podgroup has none. */
void vr_job_min(const vr_dims *v, const tph_session *s, tph_idx j, int64_t *out);
/* util.GetInqueueResource(job, allocated): what minResources still reserves. */
void vr_job_inqueue(const vr_dims *v, const tph_session *s, tph_idx j, const int64_t *allocated,
                    int64_t *out);

/* NewResource of a queue spec row (capability, deserved, guarantee) with the dimensions
 * `mask` names: the visible ones, others 0. Returns the scalar keys present. */
tph_dimmask vr_spec_row(const vr_dims *v, const int64_t *src, tph_dimmask mask, int64_t *out);

/* The sum of every queue's guarantee (NewResource of each spec row): what proportion and
 * capacity hold back from the cluster for guarantees. */
void vr_guarantee_total(const vr_dims *v, const tph_session *s, int64_t *out);

/* What job j adds to its queue at session open, as proportion and capacity count it (each row
 * holds the session's dimensions; the entries past them are left unwritten). */
typedef struct vr_jobrows {
	int64_t alloc[TPH_RES_MAX];   /* AllocatedStatus tasks */
	int64_t request[TPH_RES_MAX]; /* AllocatedStatus and Pending tasks */
	int64_t
	    inqueue[TPH_RES_MAX]; /* Inqueue, or Running with enough tasks: unmet minResources */
	int64_t elastic[TPH_RES_MAX]; /* GetElasticResources: allocated beyond minResources */
} vr_jobrows;
/* At session open only: allocated is the session's per-job sum, request adds the requests of
 * the job's Pending tasks, which the snapshot's task pass summed
 * (tph_view_of(s)->jobs->pending_req: the session's statuses at open). */
void vr_job_rows(const vr_dims *v, const tph_session *s, tph_idx j, vr_jobrows *out);
/* A queue's four rows (the same meaning as vr_jobrows'). */
typedef struct vr_qrows {
	int64_t *alloc, *request, *inqueue, *elastic;
} vr_qrows;
/* vr_job_rows' rows of job j added into q's first n entries, without the rows between: one
 * pass for a caller that only sums jobs into queues. */
void vr_job_rows_add(const vr_dims *v, const tph_session *s, tph_idx j, const vr_qrows *q);

/* LessEqualWithDimensionAndResourcesName(limit, req) of (base + req): false when some
 * dimension the request asks for (req > 0, pods ignored) would exceed the limit. */
bool vr_fits(const vr_dims *v, const int64_t *base, const int64_t *req, const int64_t *limit);
/* The dimensions with a value (ResourceNames: value >= minResource, pods included). */
tph_dimmask vr_names(const vr_dims *v, const int64_t *x);
/* IsEmpty: no dimension other than pods holds a value. */
bool vr_is_empty(const vr_dims *v, const int64_t *x);
/* LessEqual(r, Zero) restricted to cpu, memory and l's scalar keys `lkeys`. */
bool vr_le(const vr_dims *v, const int64_t *l, tph_dimmask lkeys, const int64_t *r);
/* r.GreaterPartlyWithRelevantDimensions(rr, req); rr's scalar keys are rr_keys. */
bool vr_gt_relevant(const vr_dims *v, const int64_t *r, const int64_t *rr, tph_dimmask rr_keys,
                    const int64_t *req);
/* r.LessEqualPartlyWithDimensionZeroFiltered(rr, req). */
bool vr_le_partly(const vr_dims *v, const int64_t *r, const int64_t *rr, const int64_t *req);
/* ExceededPart(l, r): per dimension l - r where l > r, else 0; *keys gets the scalar
 * dimensions where l > r (the keys Volcano's Diff leaves). keys may be NULL. */
void vr_exceeded(const vr_dims *v, const int64_t *l, const int64_t *r, int64_t *out,
                 tph_dimmask *keys);
/* row.MinDimensionResource(cap, Infinity): cpu and memory always, scalars present in cap. */
void vr_min_cap(const vr_dims *v, int64_t *row, const int64_t *cap, tph_dimmask cap_keys);
/* helpers.Max(a, b) into out (may alias a). */
void vr_max(const vr_dims *v, const int64_t *a, const int64_t *b, int64_t *out);
/* Intersection of ResourceNames, pods excluded when `no_pods`: any shared dimension? */
bool vr_intersects(const vr_dims *v, const int64_t *a, const int64_t *b, bool no_pods);

/* strings.Split(list, ",") with each name trimmed of spaces, tabs and line ends: fn gets
 * every non-empty name (not NUL-terminated). list may be NULL. */
void vr_each_name(const char *list, void (*fn)(void *ud, const char *name, size_t len), void *ud);

/* Arena scratch that grows geometrically (old blocks stay in the arena, bounded by 2x). */
typedef struct vr_scratch {
	void *p;
	size_t cap;
} vr_scratch;
void *vr_scratch_get(tph_session *s, vr_scratch *sc, size_t bytes);

/* A copy of a table of rows made row by row on first touch. Volcano clones whole attribute
 * maps per call (victim checks) or per PrePredicate (simulations) and works on the clone;
 * copying only the rows touched since the last reset gives the same values. */
typedef struct vr_clone {
	int64_t *rows;   /* [i * nd] */
	uint32_t *stamp; /* [i]: rows[i] is a copy for this epoch when stamp[i] == epoch */
	uint32_t epoch, n, nd;
} vr_clone;

/* Room for n rows of nd values in the session arena; TPH_ENOMEM when it is out. */
int vr_clone_init(tph_session *s, vr_clone *c, uint32_t n, uint32_t nd);
/* Forget every copy: the next touch of each row copies it again. */
void vr_clone_reset(vr_clone *c);
/* Row i of the clone; its first touch since the reset copies `live`, the table's row i.
 * Inline: proportion asks for it at every placement after a PrePredicate. */
static inline int64_t *vr_clone_row(vr_clone *c, uint32_t i, const int64_t *live)
{
	int64_t *r = c->rows + (size_t)i * c->nd;
	if (c->stamp[i] != c->epoch) {
		for (uint32_t d = 0; d < c->nd; d++)
			r[d] = live[d];
		c->stamp[i] = c->epoch;
	}
	return r;
}

#endif

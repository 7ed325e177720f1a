/* drf plugin (Volcano pkg/scheduler/plugins/drf): jobs ordered by dominant resource share,
 * preemption only towards a lower share; under enableHierarchy, queues ordered and reclaimed by
 * hierarchical DRF over the queues' volcano.sh/hierarchy paths (drf_hdrf.c). Per-job allocated
 * rows are exact and follow every allocate/deallocate event (pipelined tasks included, as in
 * Volcano). Volcano registers no namespace order at this version. */
#include "drf.h"

#include <math.h>
#include <string.h>

#define SHARE_DELTA 0.000001

typedef struct drf_st {
	vr_dims v;
	int64_t total[TPH_RES_MAX];
	tph_dimmask names; /* the total resource's names: the dimensions a share looks at */
	uint8_t name_dim[TPH_RES_MAX]; /* names' dimensions in order, and their totals as doubles */
	double name_total[TPH_RES_MAX];
	uint32_t n_names;
	int64_t *alloc; /* [job * ndim] */
	double *share;  /* [job] */
	bool hierarchy;
	hdrf tree;
	int64_t total_alloc[TPH_RES_MAX]; /* hierarchy: every job's allocated */
	vr_clone clones;                  /* preemptable's per-call job rows */
	void *ws_buf;                     /* the reclaim check's clone of the tree values */
} drf_st;

/* calculateShare: the largest allocated/total over the total's resource names. */
static double share_of(const drf_st *st, const int64_t *a)
{
	double res = 0;
	for (uint32_t i = 0; i < st->n_names; i++) {
		double sh = (double)a[st->name_dim[i]] / st->name_total[i];
		if (sh > res)
			res = sh;
	}
	return res;
}

static int64_t *row(const drf_st *st, int64_t *base, tph_idx j)
{
	return base + (size_t)j * st->v.n;
}

/* Job j's allocated row moved by `sign` times task t's request. */
static void job_row_with(const drf_st *st, const tph_session *s, tph_idx j, tph_idx t, int sign,
                         int64_t *out)
{
	memcpy(out, row(st, st->alloc, j), st->v.n * sizeof *out);
	vr_add_req(&st->v, s, t, out, sign);
}

static int job_order(void *stv, const tph_session *s, tph_idx a, tph_idx b)
{
	const drf_st *st = stv;
	(void)s;
	if (st->share[a] == st->share[b])
		return 0;
	return st->share[a] < st->share[b] ? -1 : 1;
}

/* A preemptee is a victim when the preemptor's share after placing its task stays below (or
 * within 1e-6 of) the preemptee job's share after losing it, and every earlier preemptee of
 * that job in the list. */
static int preemptable(void *stv, const tph_session *s, tph_idx preemptor, const tph_idx *c,
                       uint32_t n, uint8_t *keep)
{
	drf_st *st = stv;
	tph_idx pj = tph_view_of(s)->tasks->job[preemptor];
	if (pj == TPH_NOIDX)
		return 1;
	int64_t l[TPH_RES_MAX];
	job_row_with(st, s, pj, preemptor, 1, l);
	double ls = share_of(st, l);
	vr_clone_reset(&st->clones);
	for (uint32_t i = 0; i < n; i++) {
		tph_idx j = tph_view_of(s)->tasks->job[c[i]];
		if (j == TPH_NOIDX)
			continue;
		int64_t *r = vr_clone_row(&st->clones, j, row(st, st->alloc, j));
		vr_add_req(&st->v, s, c[i], r, -1);
		double rs = share_of(st, r);
		keep[i] = ls < rs || fabs(ls - rs) <= SHARE_DELTA;
	}
	return 1;
}

static int on_event(drf_st *st, tph_session *s, tph_idx t, int sign)
{
	tph_idx j = tph_view_of(s)->tasks->job[t];
	if (j == TPH_NOIDX)
		return TPH_OK;
	int64_t *a = row(st, st->alloc, j);
	vr_add_req(&st->v, s, t, a, sign);
	st->share[j] = share_of(st, a);
	if (st->hierarchy) {
		vr_add_req(&st->v, s, t, st->total_alloc, sign);
		hdrf_update(&st->tree, &st->tree.live, &st->tree.live_demand, j, a, st->share[j],
		            st->total_alloc);
	}
	return TPH_OK;
}

static int on_allocate(void *stv, tph_session *s, tph_idx t)
{
	return on_event(stv, s, t, 1);
}

static int on_deallocate(void *stv, tph_session *s, tph_idx t)
{
	return on_event(stv, s, t, -1);
}

static int queue_order(void *stv, const tph_session *s, tph_idx a, tph_idx b)
{
	const drf_st *st = stv;
	(void)s;
	double r = hdrf_compare(&st->tree, &st->tree.live, a, b);
	return (r > 0) - (r < 0);
}

/* Set job j's leaf in a clone to `a` (the job's row moved by `sign` times task t's request). */
static void clone_job(drf_st *st, const tph_session *s, hdrf_ws *ws, tph_dimmask *dm,
                      int64_t *total, tph_idx j, tph_idx t, int sign)
{
	int64_t a[TPH_RES_MAX];
	job_row_with(st, s, j, t, sign, a);
	hdrf_update(&st->tree, ws, dm, j, a, share_of(st, a), total);
}

/* HDRF reclaim: on a clone of the tree holding the reclaimer's task, a reclaimee is a victim
 * when, with its task removed, the reclaimer's queue still compares lower than its own. Each
 * reclaimee is put back (at its job's session row) before the next is tried. */
static int reclaimable(void *stv, const tph_session *s, tph_idx reclaimer, const tph_idx *c,
                       uint32_t n, uint8_t *keep)
{
	drf_st *st = stv;
	tph_idx lj = tph_view_of(s)->tasks->job[reclaimer];
	if (lj == TPH_NOIDX)
		return 1;
	hdrf_ws ws;
	hdrf_ws_clone(&st->tree, &ws, st->ws_buf);
	tph_dimmask dm = st->tree.live_demand;
	int64_t total[TPH_RES_MAX];
	memcpy(total, st->total_alloc, sizeof total);
	vr_add_req(&st->v, s, reclaimer, total, 1);
	clone_job(st, s, &ws, &dm, total, lj, reclaimer, 1);
	tph_idx lq = tph_view_of(s)->jobs->queue[lj];
	for (uint32_t i = 0; i < n; i++) {
		tph_idx rj = tph_view_of(s)->tasks->job[c[i]];
		if (rj == TPH_NOIDX)
			continue;
		vr_add_req(&st->v, s, c[i], total, -1);
		clone_job(st, s, &ws, &dm, total, rj, c[i], -1);
		double ret = hdrf_compare(&st->tree, &ws, lq, tph_view_of(s)->jobs->queue[rj]);
		vr_add_req(&st->v, s, c[i], total, 1);
		clone_job(st, s, &ws, &dm, total, rj, c[i], 0);
		keep[i] = ret < 0;
	}
	return 1;
}

/* A tier holding proportion next to drf with enableHierarchy never gets here: the conf loader
 * refuses it as Volcano's UnmarshalSchedulerConf does. */
static int open_hierarchy(tph_session *s, drf_st *st)
{
	int rc;
	for (tph_idx j = 0; j < tph_view_of(s)->jobs->n; j++)
		for (uint32_t d = 0; d < st->v.n; d++)
			st->total_alloc[d] += row(st, st->alloc, j)[d];
	rc = hdrf_build(s, &st->tree, &st->v, st->total, st->alloc, st->share, st->total_alloc);
	if (!rc && !(st->ws_buf = tph_session_alloc(s, hdrf_ws_bytes(&st->tree))))
		rc = TPH_ENOMEM;
	if (!rc)
		rc = tph_on_queue_order(s, queue_order);
	if (!rc)
		rc = tph_on_reclaimable(s, reclaimable);
	return rc;
}

/* The total and its names, from the ready nodes' sums every plugin shares. */
static int drf_total(tph_session *s, drf_st *st)
{
	const vr_node_sums *ns = vr_node_sums_get(s);
	tph_dimmask keys;
	if (!ns)
		return TPH_ENOMEM;
	vr_total_from(&st->v, ns->alloc, st->total, &keys);
	st->names = vr_names(&st->v, st->total);
	for (uint32_t d = 0; d < st->v.n; d++)
		if (vr_has(st->names, d)) {
			st->name_dim[st->n_names] = (uint8_t)d;
			st->name_total[st->n_names++] = (double)st->total[d];
		}
	return TPH_OK;
}

/* Job.Allocated of every job: the session's per-job sums on the dimensions Volcano's Resreq
 * holds (the others stay zero). */
static void drf_rows(const tph_session *s, drf_st *st)
{
	const int64_t *ja = tph_view_of(s)->js->allocated;
	for (tph_idx j = 0; j < tph_view_of(s)->jobs->n; j++) {
		int64_t *r = row(st, st->alloc, j);
		const int64_t *a = ja + (size_t)j * tph_view_of(s)->ndim;
		for (uint32_t i = 0; i < st->v.n_cmp; i++)
			r[st->v.cmp_dim[i]] = a[st->v.cmp_dim[i]];
		st->share[j] = share_of(st, r);
	}
}

static int drf_open(tph_session *s, void *stv, const tph_args *args)
{
	drf_st *st = stv;
	uint32_t nj = tph_view_of(s)->jobs->n;
	(void)args;
	vr_dims_init(&st->v, s);
	if (drf_total(s, st))
		return TPH_ENOMEM;
	st->alloc = TPH_SESSION_NEW(s, int64_t, (size_t)nj * st->v.n + 1);
	st->share = TPH_SESSION_NEW(s, double, nj + 1);
	if (!st->alloc || !st->share || vr_clone_init(s, &st->clones, nj, st->v.n))
		return TPH_ENOMEM;
	drf_rows(s, st);
	st->hierarchy = tph_plugin_flag(s, TPH_FLAG_HIERARCHY);
	int rc = st->hierarchy ? open_hierarchy(s, st) : TPH_OK;
	if (!rc)
		rc = tph_on_preemptable(s, preemptable);
	if (!rc) /* the preemptor's job and request */
		rc = tph_declare_victim_locality(s, TPH_VICTIM_CLASS);
	if (!rc)
		rc = tph_on_job_order(s, job_order);
	if (!rc)
		rc = tph_on_task_events(s, on_allocate, on_deallocate);
	return rc;
}

const tph_plugin tph_plugin_drf = {
    .abi = TPH_PLUGIN_ABI,
    .name = "drf",
    .args = NULL,
    .state_size = sizeof(drf_st),
    .on_session_open = drf_open,
    .on_session_close = NULL,
};

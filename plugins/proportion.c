/* proportion plugin (Volcano pkg/scheduler/plugins/proportion): each queue that has jobs gets a
 * deserved share of the cluster by weighted water-filling, capped by its real capability and
 * its request and floored at its guarantee; queues are ordered by allocated/deserved, limited
 * to deserved when allocating, preempting and reclaiming, and to their real capability when
 * enqueuing. Only Open queues allocate or enqueue.
 *
 * Rows are exact int64 except `deserved`: water-filling splits the remainder by weight
 * ratios, so deserved is kept as Volcano keeps it, float64 in Volcano's units with its scalar
 * key set, computed in Volcano's order of operations; every comparison against it converts
 * the exact side to those units and applies Volcano's 0.1 tolerance where Volcano does. */
#include "lib/vres.h"
#include "lib/why.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct prop_st {
	vr_dims v;
	uint32_t nq, nd;
	uint8_t *has;               /* [q]: the queue has jobs (Volcano's queueOpts) */
	int64_t *alloc, *request;   /* [q * nd] */
	int64_t *inqueue, *elastic; /* [q * nd] */
	int64_t *guar, *realcap;    /* [q * nd] */
	tph_dimmask *guar_keys, *rc_keys;
	double *des;           /* [q * nd]: deserved, Volcano units */
	tph_dimmask *des_keys; /* deserved's scalar keys */
	double *share;         /* [q] */
	/* [q * TPH_RES_MAX]: the dimensions a queue's share looks at, share_n[q] of them; kept
	 * with deserved (set_share_dims), which moves only while water-filling */
	uint8_t *share_dim, *share_n;
	vr_clone clones;  /* reclaimable's per-call queue rows */
	uint32_t *within; /* [q]: the clones' epoch when the queue's row fit its deserved */
	vr_clone sim;     /* the PrePredicate snapshot, see sim_row() */
	bool sim_ready;
} prop_st;

static int64_t *qrow(const prop_st *st, int64_t *base, tph_idx q)
{
	return base + (size_t)q * st->nd;
}

static const int64_t *task_req(const tph_session *s, tph_idx t)
{
	return tph_view_of(s)->tasks->req + (size_t)t * tph_view_of(s)->ndim;
}

static bool le_tol(double l, double r)
{
	return l < r || fabs(l - r) < 0.1;
}

/* The dimensions updateQueueAttrShare looks at, kept for queue q whenever its deserved
 * moves: deserved's resource names, skipping those whose deserved is below 0.1. */
static void set_share_dims(prop_st *st, tph_idx q)
{
	const double *d = st->des + (size_t)q * st->nd;
	tph_dimmask keys = (st->v.vis & ~st->v.scal) | st->des_keys[q];
	uint8_t *dims = st->share_dim + (size_t)q * TPH_RES_MAX, n = 0;
	for (uint32_t k = 0; k < st->nd; k++)
		if (vr_has(keys, k) && d[k] >= 0.1)
			dims[n++] = (uint8_t)k;
	st->share_n[q] = n;
}

/* updateQueueAttrShare: the largest allocated/deserved over those dimensions. */
static void update_share(prop_st *st, tph_idx q)
{
	const double *d = st->des + (size_t)q * st->nd;
	const int64_t *a = qrow(st, st->alloc, q);
	const uint8_t *dims = st->share_dim + (size_t)q * TPH_RES_MAX;
	double res = 0;
	for (uint32_t i = 0; i < st->share_n[q]; i++) {
		double sh = vr_vol(&st->v, dims[i], a[dims[i]]) / d[dims[i]];
		if (sh > res)
			res = sh;
	}
	st->share[q] = res;
}

/* (alloc + req) fits deserved on every dimension the request asks for: req's dimensions
 * outside v.cmp are not read, so a task's own request row serves as vr_req's would. */
static bool fits_deserved(const prop_st *st, tph_idx q, const int64_t *alloc, const int64_t *req)
{
	const double *d = st->des + (size_t)q * st->nd;
	for (uint32_t i = 0; i < st->v.n_cmp; i++) {
		uint32_t k = st->v.cmp_dim[i];
		if (req[k] > 0 && vr_vol(&st->v, k, alloc[k] + req[k]) > d[k])
			return false;
	}
	return true;
}

/* Volcano's LessEqual(Zero) between an exact row and deserved, in either direction, over cpu,
 * memory and `keys`. */
static bool exact_le_des(const prop_st *st, tph_idx q, const int64_t *x, bool des_left)
{
	const double *d = st->des + (size_t)q * st->nd;
	tph_dimmask keys = (st->v.vis & ~st->v.scal) | (des_left ? st->des_keys[q] : st->v.scal);
	for (uint32_t k = 0; k < st->nd; k++) {
		if (!vr_has(keys, k))
			continue;
		double xv = vr_vol(&st->v, k, x[k]);
		if (des_left ? !le_tol(d[k], xv) : !le_tol(xv, d[k]))
			return false;
	}
	return true;
}

/* ---- deserved: Volcano's water-filling loop ---- */

/* A float resource as Volcano holds it: values and the scalar keys present. */
typedef struct frow {
	double v[TPH_RES_MAX];
	tph_dimmask keys;
} frow;

/* equality.Semantic.DeepEqual of two Resources (an empty scalar map equals a nil one). */
static bool frow_equal(const vr_dims *v, const double *a, tph_dimmask ak, const double *b,
                       tph_dimmask bk)
{
	if (a[TPH_RES_CPU] != b[TPH_RES_CPU] || a[TPH_RES_MEMORY] != b[TPH_RES_MEMORY])
		return false;
	if (ak != bk)
		return false;
	for (uint32_t d = 0; d < v->n; d++)
		if (vr_has(ak, d) && a[d] != b[d])
			return false;
	return true;
}

/* One queue's step: deserved += remaining * w/W, then min realCapability (Infinity), min
 * request (Zero), max guarantee; record the change in inc/dec; mark it met when its request
 * fits or its deserved stopped moving. */
static void fill_queue(prop_st *st, tph_idx q, const frow *rem, double ratio, double *inc,
                       double *dec, uint8_t *meet)
{
	const vr_dims *v = &st->v;
	tph_dimmask cm = v->vis & ~v->scal;
	double *d = st->des + (size_t)q * st->nd, old[TPH_RES_MAX];
	tph_dimmask old_keys = st->des_keys[q];
	memcpy(old, d, st->nd * sizeof *d);
	st->des_keys[q] |= rem->keys;
	tph_dimmask keys = st->des_keys[q];
	for (uint32_t k = 0; k < st->nd; k++) {
		if (!vr_has(cm | keys, k))
			continue;
		if (vr_has(cm | rem->keys, k))
			d[k] += rem->v[k] * ratio;
		double rc = vr_vol(v, k, qrow(st, st->realcap, q)[k]);
		if ((vr_has(cm, k) || vr_has(st->rc_keys[q], k)) && rc < d[k])
			d[k] = rc;
		double rq = vr_vol(v, k, qrow(st, st->request, q)[k]);
		if (rq < d[k])
			d[k] = rq;
	}
	st->des_keys[q] |= st->guar_keys[q];
	for (uint32_t k = 0; k < st->nd; k++) {
		double g = vr_vol(v, k, qrow(st, st->guar, q)[k]);
		if (vr_has(cm | st->des_keys[q], k) && g > d[k])
			d[k] = g;
	}
	set_share_dims(st, q);
	update_share(st, q);
	if (exact_le_des(st, q, qrow(st, st->request, q), false) ||
	    frow_equal(v, d, st->des_keys[q], old, old_keys))
		meet[q] = 1;
	for (uint32_t k = 0; k < st->nd; k++) {
		if (d[k] > old[k])
			inc[k] += d[k] - old[k];
		else
			dec[k] += old[k] - d[k];
	}
}

/* remaining = ExceededPart(remaining + dec, inc); true when the loop must stop. */
static bool next_remaining(const vr_dims *v, frow *rem, const double *inc, const double *dec)
{
	frow old = *rem;
	rem->keys = 0;
	bool empty = true;
	for (uint32_t d = 0; d < v->n; d++) {
		double l = old.v[d] + dec[d];
		rem->v[d] = l > inc[d] ? l - inc[d] : 0;
		if (l > inc[d] && vr_has(v->scal, d))
			rem->keys |= (tph_dimmask)1 << d;
		if (vr_has(v->cmp, d) && rem->v[d] >= 0.1)
			empty = false;
	}
	return empty || frow_equal(v, rem->v, rem->keys, old.v, old.keys);
}

static int water_fill(tph_session *s, prop_st *st, const int64_t *total, tph_dimmask total_keys)
{
	uint8_t *meet = TPH_SESSION_NEW(s, uint8_t, st->nq + 1);
	if (!meet)
		return TPH_ENOMEM;
	frow rem = {.keys = total_keys};
	for (uint32_t d = 0; d < st->nd; d++)
		rem.v[d] = vr_has(st->v.vis, d) ? vr_vol(&st->v, d, total[d]) : 0;
	/* Volcano loops until nothing moves; the cap only guards against a float cycle. */
	for (int round = 0; round < 100000; round++) {
		int64_t w = 0;
		for (tph_idx q = 0; q < st->nq; q++)
			if (st->has[q] && !meet[q])
				w += tph_view_of(s)->queues->weight[q];
		if (w == 0)
			break;
		double inc[TPH_RES_MAX] = {0}, dec[TPH_RES_MAX] = {0};
		for (tph_idx q = 0; q < st->nq; q++)
			if (st->has[q] && !meet[q])
				fill_queue(st, q, &rem,
				           (double)tph_view_of(s)->queues->weight[q] / (double)w,
				           inc, dec, meet);
		if (next_remaining(&st->v, &rem, inc, dec))
			break;
	}
	return TPH_OK;
}

/* ---- queue attributes ---- */

/* realCapability = ExceededPart(total, totalGuarantee) + guarantee, min capability (whose
 * missing cpu or memory means unlimited). */
static void init_queue(prop_st *st, const tph_session *s, tph_idx q, const int64_t *total,
                       const int64_t *total_guar)
{
	const tph_queue_store *qs = tph_view_of(s)->queues;
	size_t o = (size_t)q * st->nd;
	int64_t *rc = st->realcap + o, cap[TPH_RES_MAX];
	st->has[q] = 1;
	if (qs->gua_mask[q])
		st->guar_keys[q] =
		    vr_spec_row(&st->v, qs->guarantee + o, qs->gua_mask[q], st->guar + o);
	vr_exceeded(&st->v, total, total_guar, rc, &st->rc_keys[q]);
	for (uint32_t d = 0; d < st->nd; d++)
		rc[d] += st->guar[o + d];
	st->rc_keys[q] |= st->guar_keys[q];
	if (!qs->cap_mask[q])
		return;
	tph_dimmask ck = vr_spec_row(&st->v, qs->capability + o, qs->cap_mask[q], cap);
	if (cap[TPH_RES_CPU] <= 0)
		cap[TPH_RES_CPU] = VR_INF;
	if (cap[TPH_RES_MEMORY] <= 0)
		cap[TPH_RES_MEMORY] = VR_INF;
	vr_min_cap(&st->v, rc, cap, ck);
}

static void add_job(prop_st *st, const tph_session *s, tph_idx j)
{
	tph_idx q = tph_view_of(s)->jobs->queue[j];
	vr_job_rows_add(&st->v, s, j,
	                &(vr_qrows){qrow(st, st->alloc, q), qrow(st, st->request, q),
	                            qrow(st, st->inqueue, q), qrow(st, st->elastic, q)});
}

static int alloc_rows(tph_session *s, prop_st *st)
{
	size_t rows = (size_t)st->nq * st->nd + 1;
	int64_t **cols[] = {&st->alloc,   &st->request, &st->inqueue,
	                    &st->elastic, &st->guar,    &st->realcap};
	for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
		if (!(*cols[i] = TPH_SESSION_NEW(s, int64_t, rows)))
			return TPH_ENOMEM;
	st->has = TPH_SESSION_NEW(s, uint8_t, st->nq + 1);
	st->guar_keys = TPH_SESSION_NEW(s, tph_dimmask, st->nq + 1);
	st->rc_keys = TPH_SESSION_NEW(s, tph_dimmask, st->nq + 1);
	st->des_keys = TPH_SESSION_NEW(s, tph_dimmask, st->nq + 1);
	st->des = TPH_SESSION_NEW(s, double, rows);
	st->share = TPH_SESSION_NEW(s, double, st->nq + 1);
	st->share_dim = TPH_SESSION_NEW(s, uint8_t, (size_t)st->nq * TPH_RES_MAX + 1);
	st->share_n = TPH_SESSION_NEW(s, uint8_t, st->nq + 1);
	if (!st->has || !st->guar_keys || !st->rc_keys || !st->des_keys || !st->des || !st->share ||
	    !st->share_dim || !st->share_n ||
	    !(st->within = TPH_SESSION_NEW(s, uint32_t, st->nq + 1)))
		return TPH_ENOMEM;
	int rc = vr_clone_init(s, &st->clones, st->nq, st->nd);
	return rc ? rc : vr_clone_init(s, &st->sim, st->nq, st->nd);
}

static int build_queues(tph_session *s, prop_st *st)
{
	int64_t total[TPH_RES_MAX], tg[TPH_RES_MAX];
	tph_dimmask total_keys;
	const vr_node_sums *ns = vr_node_sums_get(s);
	if (!ns)
		return TPH_ENOMEM;
	vr_total_from(&st->v, ns->alloc, total, &total_keys);
	vr_guarantee_total(&st->v, s, tg);
	for (tph_idx j = 0; j < tph_view_of(s)->jobs->n; j++) {
		tph_idx q = tph_view_of(s)->jobs->queue[j];
		if (!st->has[q])
			init_queue(st, s, q, total, tg);
		add_job(st, s, j);
	}
	return water_fill(s, st, total, total_keys);
}

/* ---- extension points ---- */

static int queue_order(void *stv, const tph_session *s, tph_idx a, tph_idx b)
{
	const prop_st *st = stv;
	int32_t pa = tph_view_of(s)->queues->priority[a], pb = tph_view_of(s)->queues->priority[b];
	if (pa != pb)
		return pa > pb ? -1 : 1;
	if (st->share[a] == st->share[b])
		return 0;
	return st->share[a] < st->share[b] ? -1 : 1;
}

/* A reclaimee is a victim while its queue (net of the victims already chosen from it) holds
 * more than its deserved on some dimension. A queue's row changes only when it gives a
 * victim, so once it is within its deserved it stays so for the rest of the call: marked
 * with the call's clone epoch (`within`), its later candidates are passed over unchecked. */
static int reclaimable(void *stv, const tph_session *s, tph_idx reclaimer, const tph_idx *c,
                       uint32_t n, uint8_t *keep)
{
	prop_st *st = stv;
	(void)reclaimer;
	vr_clone_reset(&st->clones);
	if (st->clones.epoch == 1) /* the first call, or the epochs wrapped */
		memset(st->within, 0, st->nq * sizeof *st->within);
	for (uint32_t i = 0; i < n; i++) {
		tph_idx q = tph_task_queue_of(tph_view_of(s), c[i]);
		if (q == TPH_NOIDX || !st->has[q] || st->within[q] == st->clones.epoch)
			continue;
		int64_t *a = vr_clone_row(&st->clones, q, qrow(st, st->alloc, q));
		if (exact_le_des(st, q, a, false)) {
			st->within[q] = st->clones.epoch;
			continue;
		}
		vr_add_req(&st->v, s, c[i], a, -1);
		keep[i] = 1;
	}
	return 1;
}

static bool overused(void *stv, const tph_session *s, tph_idx q)
{
	const prop_st *st = stv;
	(void)s;
	return st->has[q] && exact_le_des(st, q, qrow(st, st->alloc, q), true);
}

/* Allocatable, and Preemptive over task t or, when t is TPH_NOIDX, over the candidate set in
 * tph_view_of(s)->eviction->tasks (queueAllocatable sums them). */
static bool allocatable(void *stv, const tph_session *s, tph_idx q, tph_idx t)
{
	const prop_st *st = stv;
	if (tph_view_of(s)->queues->state[q] != TPH_QUEUE_OPEN || !st->has[q])
		return false;
	if (t != TPH_NOIDX) /* every task allocate tries: no copy of its row */
		return fits_deserved(st, q, qrow(st, st->alloc, q), task_req(s, t));
	int64_t req[TPH_RES_MAX] = {0};
	for (uint32_t i = 0; i < tph_view_of(s)->eviction->n_tasks; i++)
		vr_add_req(&st->v, s, tph_view_of(s)->eviction->tasks[i], req, 1);
	return fits_deserved(st, q, qrow(st, st->alloc, q), req);
}

static int job_enqueueable(void *stv, const tph_session *s, tph_idx j)
{
	const prop_st *st = stv;
	tph_idx q = tph_view_of(s)->jobs->queue[j];
	if (tph_view_of(s)->queues->state[q] != TPH_QUEUE_OPEN) {
		tph_job_reason(s, j, "queue %s is not open", tph_session_queue_name(s, q));
		return TPH_REJECT;
	}
	if (!tph_view_of(s)->jobs->has_min_res[j])
		return TPH_PERMIT;
	int64_t mn[TPH_RES_MAX], base[TPH_RES_MAX];
	vr_job_min(&st->v, s, j, mn);
	for (uint32_t d = 0; d < st->nd; d++)
		base[d] = qrow(st, st->alloc, q)[d] + qrow(st, st->inqueue, q)[d] -
		          qrow(st, st->elastic, q)[d];
	if (vr_fits(&st->v, base, mn, qrow(st, st->realcap, q)))
		return TPH_PERMIT;
	char scope[300];
	snprintf(scope, sizeof scope, "queue %s", tph_session_queue_name(s, q));
	why_over(s, j,
	         &(why_over_args){"queue resource quota insufficient", "insufficient", scope,
	                          "allocated+inqueue-elastic", "capability", base, mn,
	                          qrow(st, st->realcap, q)});
	return TPH_REJECT;
}

static void job_enqueued(void *stv, tph_session *s, tph_idx j)
{
	prop_st *st = stv;
	tph_idx q = tph_view_of(s)->jobs->queue[j];
	if (!tph_view_of(s)->jobs->has_min_res[j] || !st->has[q])
		return;
	int64_t mn[TPH_RES_MAX];
	vr_job_min(&st->v, s, j, mn);
	for (uint32_t d = 0; d < st->nd; d++)
		qrow(st, st->inqueue, q)[d] += mn[d];
}

/* ---- simulations over the PrePredicate snapshot ---- */

/* Volcano's PrePredicate clones every queue's attributes into the task's cycle state and the
 * Simulate* functions work on that clone. Here the clone of queue q is made the first time q
 * is touched after PrePredicate, by a simulation or by an event (which copies before it
 * changes the live row), so it always holds q as PrePredicate saw it. */
static int64_t *sim_row(prop_st *st, tph_idx q)
{
	return vr_clone_row(&st->sim, q, qrow(st, st->alloc, q));
}

static tph_reason_code prepredicate(void *stv, const tph_session *s, tph_idx task)
{
	prop_st *st = stv;
	(void)s;
	(void)task;
	vr_clone_reset(&st->sim);
	st->sim_ready = true;
	return TPH_PASS;
}

static bool sim_allocatable(void *stv, const tph_session *s, tph_idx q, tph_idx t)
{
	prop_st *st = stv;
	if (!st->sim_ready || !st->has[q])
		return false;
	return fits_deserved(st, q, sim_row(st, q), task_req(s, t));
}

static int sim_move(prop_st *st, const tph_session *s, tph_idx t, int sign)
{
	tph_idx q = tph_task_queue_of(tph_view_of(s), t);
	if (!st->sim_ready || q == TPH_NOIDX || !st->has[q])
		return TPH_EINVAL;
	vr_add_req(&st->v, s, t, sim_row(st, q), sign);
	return TPH_OK;
}

static int sim_add(void *stv, tph_session *s, tph_idx pending, tph_idx t, tph_idx node)
{
	(void)pending;
	(void)node;
	return sim_move(stv, s, t, 1);
}

static int sim_remove(void *stv, tph_session *s, tph_idx pending, tph_idx t, tph_idx node)
{
	(void)pending;
	(void)node;
	return sim_move(stv, s, t, -1);
}

static int on_event(prop_st *st, tph_session *s, tph_idx t, int sign)
{
	tph_idx q = tph_task_queue_of(tph_view_of(s), t);
	if (q == TPH_NOIDX || !st->has[q])
		return TPH_OK;
	if (st->sim_ready)
		sim_row(st, q);
	vr_add_req(&st->v, s, t, qrow(st, st->alloc, q), sign);
	update_share(st, q);
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

/* The queue figures for the decision log: deserved back in exact units (Volcano's units
 * divided out, rounded down). */
static void prop_close(tph_session *s, void *stv)
{
	prop_st *st = stv;
	int64_t des[TPH_RES_MAX];
	if (!st->has || !st->des || !st->share) /* its open failed */
		return;
	for (tph_idx q = 0; q < st->nq; q++) {
		if (!st->has[q])
			continue;
		for (uint32_t d = 0; d < st->nd; d++)
			des[d] = vr_exact(&st->v, d, st->des[(size_t)q * st->nd + d]);
		tph_queue_report r = {des,
		                      qrow(st, st->request, q),
		                      qrow(st, st->inqueue, q),
		                      qrow(st, st->realcap, q),
		                      qrow(st, st->guar, q),
		                      st->share[q]};
		tph_queue_report_set(s, q, &r);
	}
}

static int prop_open(tph_session *s, void *stv, const tph_args *args)
{
	prop_st *st = stv;
	(void)args;
	vr_dims_init(&st->v, s);
	st->nq = tph_view_of(s)->queues->n;
	st->nd = st->v.n;
	int rc = alloc_rows(s, st);
	if (!rc)
		rc = build_queues(s, st);
	if (rc)
		return rc;
	rc = tph_on_queue_order(s, queue_order);
	rc = rc ? rc : tph_on_reclaimable(s, reclaimable);
	rc = rc ? rc : tph_declare_victim_locality(s, TPH_VICTIM_CLASS); /* reads no reclaimer */
	rc = rc ? rc : tph_on_overused(s, overused);
	rc = rc ? rc : tph_on_allocatable(s, allocatable);
	rc = rc ? rc : tph_declare_allocatable_locality(s, TPH_ALLOC_QUEUE);
	rc = rc ? rc : tph_on_sim_allocatable(s, sim_allocatable);
	rc = rc ? rc : tph_on_preemptive(s, allocatable);
	rc = rc ? rc : tph_on_prepredicate(s, prepredicate);
	rc = rc ? rc : tph_on_job_enqueueable(s, job_enqueueable);
	rc = rc ? rc : tph_on_job_enqueued(s, job_enqueued);
	rc = rc ? rc : tph_on_sim_add_task(s, sim_add);
	rc = rc ? rc : tph_on_sim_remove_task(s, sim_remove);
	return rc ? rc : tph_on_task_events(s, on_allocate, on_deallocate);
}

const tph_plugin tph_plugin_proportion = {
    .abi = TPH_PLUGIN_ABI,
    .name = "proportion",
    .args = NULL,
    .state_size = sizeof(prop_st),
    .on_session_open = prop_open,
    .on_session_close = prop_close,
};

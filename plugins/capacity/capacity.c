/* capacity plugin (Volcano pkg/scheduler/plugins/capacity): queues with deserved, capability
 * and guarantee, flat or (enableHierarchy) as a tree under the queue named "root". Allocation
 * and enqueueing stay within the real capability of the queue and every ancestor; reclaim takes
 * from queues above their deserved, never below their guarantee, and with ancestorReclaimLevel
 * also checks ancestors that the reclaimer does not share. Queues must be Open to allocate,
 * reclaim or enqueue. Attributes are built in capacity_hierarchy.c. */
#include "capacity.h"
#include "lib/why.h"

#include <stdio.h>

#include <string.h>

static const tph_arg_spec cap_args[] = {
    {"ancestorReclaimLevel", TPH_ARG_INT, "0", 0, 2147483647, offsetof(cap_st, level),
     "ancestor levels reclaim also checks (0: the leaf queue only)"},
    {"capacity.DynamicResourceAllocationEnable", TPH_ARG_BOOL, "true", 0, 0, offsetof(cap_st, dra),
     "DRA quota (tephra has no DRA claims)"},
    {"capacity.DRAConsumableCapacityEnable", TPH_ARG_BOOL, "false", 0, 0, offsetof(cap_st, dra_cap),
     "DRA consumable capacity (tephra has no DRA claims)"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* allocations[q] in Volcano's victim checks: q's allocated, cloned on first use per call. */
static int64_t *clone_row(cap_st *st, tph_idx q)
{
	return vr_clone_row(&st->clones, q, cap_row(st, st->alloc, q));
}

/* The ancestor `depth` levels above q (1: parent), or TPH_NOIDX. */
static tph_idx ancestor_at(const cap_st *st, tph_idx q, int64_t depth)
{
	uint32_t n = cap_nanc(st, q);
	return depth <= 0 || n < depth ? TPH_NOIDX : cap_ancestors(st, q)[n - depth];
}

/* ---- orders ---- */

/* compareShareWithDeserved: lower share first; at equal shares a queue with deserved first. */
static int compare_share(const cap_st *st, tph_idx a, tph_idx b)
{
	if (st->share[a] == st->share[b]) {
		bool ha = !vr_is_empty(&st->v, cap_row(st, st->des, a));
		bool hb = !vr_is_empty(&st->v, cap_row(st, st->des, b));
		return ha == hb ? 0 : ha ? -1 : 1;
	}
	return st->share[a] < st->share[b] ? -1 : 1;
}

static int priority_first(const tph_session *s, tph_idx a, tph_idx b)
{
	int32_t pa = tph_view_of(s)->queues->priority[a], pb = tph_view_of(s)->queues->priority[b];
	return pa == pb ? 0 : pa > pb ? -1 : 1;
}

static int queue_order_flat(void *stv, const tph_session *s, tph_idx a, tph_idx b)
{
	int r = priority_first(s, a, b);
	return r ? r : compare_share(stv, a, b);
}

/* getQueueLevel: the deepest index at which the two ancestor lists still agree. */
static uint32_t common_level(const cap_st *st, tph_idx a, tph_idx b)
{
	uint32_t na = cap_nanc(st, a), nb = cap_nanc(st, b), level = 0;
	const tph_idx *pa = cap_ancestors(st, a), *pb = cap_ancestors(st, b);
	for (uint32_t i = 0; i < na && i < nb; i++) {
		if (pa[i] != pb[i])
			break;
		level = i;
	}
	return level;
}

/* Leaves before inner queues; two leaves compare by their branches below the deepest common
 * ancestor (the shares of inner queues are the ones computed at session open). */
static int queue_order_tree(void *stv, const tph_session *s, tph_idx a, tph_idx b)
{
	const cap_st *st = stv;
	int r = priority_first(s, a, b);
	if (r)
		return r;
	bool la = cap_leaf(st, a), lb = cap_leaf(st, b);
	if (la != lb)
		return la ? -1 : 1;
	if (!la)
		return compare_share(st, a, b);
	uint32_t level = common_level(st, a, b);
	tph_idx pa = level + 1 < cap_nanc(st, a) ? cap_ancestors(st, a)[level + 1] : a;
	tph_idx pb = level + 1 < cap_nanc(st, b) ? cap_ancestors(st, b)[level + 1] : b;
	return compare_share(st, pa, pb);
}

/* Victims from the queue that shares the deepest ancestor with the preemptor's come first. */
static int victim_queue_order(void *stv, const tph_session *s, tph_idx a, tph_idx b, tph_idx p)
{
	const cap_st *st = stv;
	(void)s;
	uint32_t la = common_level(st, a, p), lb = common_level(st, b, p);
	return la == lb ? 0 : la > lb ? -1 : 1;
}

/* ---- reclaim ---- */

/* sharesAnyNonRootAncestorWithinLevel. */
static bool share_ancestor(const cap_st *st, tph_idx a, tph_idx b)
{
	for (int64_t la = 1; la <= st->level; la++) {
		tph_idx x = ancestor_at(st, a, la);
		if (x == TPH_NOIDX || x == st->root)
			continue;
		for (int64_t lb = 1; lb <= st->level; lb++)
			if (ancestor_at(st, b, lb) == x)
				return true;
	}
	return false;
}

/* Is q (through its allocated clone `a`) over its deserved on a dimension the request uses?
 * A request that shares no dimension with deserved is always a victim. */
static bool over_deserved(const cap_st *st, tph_idx q, const int64_t *a, const int64_t *req)
{
	const int64_t *d = cap_row(st, st->des, q);
	return !vr_intersects(&st->v, req, d, false) ||
	       vr_gt_relevant(&st->v, a, d, st->des_keys[q], req);
}

/* With ancestorReclaimLevel, every reclaimee ancestor up to that level that the reclaimer
 * does not share (and that is not the root) must be over its deserved too; the clones of the
 * ancestors checked are returned in anc[0..*n). */
static bool ancestors_eligible(cap_st *st, tph_idx rq, tph_idx q, const int64_t *req, int64_t **anc,
                               uint32_t *n)
{
	*n = 0;
	for (int64_t l = 1; l <= st->level; l++) {
		tph_idx x = ancestor_at(st, q, l);
		if (x == TPH_NOIDX || x == st->root || ancestor_at(st, rq, l) == x)
			continue;
		int64_t *a = clone_row(st, x);
		anc[(*n)++] = a;
		if (!over_deserved(st, x, a, req))
			return false;
	}
	return true;
}

/* One reclaimee: guarantee kept, its queue over deserved (or no shared dimension, unless the
 * reclaimer has no deserved there under a shared ancestor), ancestors too. */
static bool reclaim_one(cap_st *st, const tph_session *s, tph_idx reclaimer, tph_idx rq, tph_idx t)
{
	int64_t req[TPH_RES_MAX], rr[TPH_RES_MAX], except[TPH_RES_MAX];
	tph_idx q = tph_task_queue_of(tph_view_of(s), t);
	if (q == TPH_NOIDX || !st->has[q])
		return false;
	vr_req(&st->v, s, t, req);
	vr_req(&st->v, s, reclaimer, rr);
	if (!vr_intersects(&st->v, req, rr, true))
		return false;
	int64_t *a = clone_row(st, q);
	for (uint32_t d = 0; d < st->nd; d++)
		except[d] = a[d] - req[d];
	if (!vr_le(&st->v, cap_row(st, st->guar, q), st->guar_keys[q], except))
		return false;
	bool deep = st->hier && st->level > 0;
	const int64_t *des = cap_row(st, st->des, q);
	if (!vr_intersects(&st->v, req, des, false)) {
		if (deep && share_ancestor(st, rq, q) &&
		    !vr_intersects(&st->v, rr, cap_row(st, st->des, rq), false))
			return false;
	} else if (!vr_gt_relevant(&st->v, a, des, st->des_keys[q], req)) {
		return false;
	}
	uint32_t na = 0;
	int64_t **anc = st->anc_rows;
	if (deep && !ancestors_eligible(st, rq, q, req, anc, &na))
		return false;
	for (uint32_t d = 0; d < st->nd; d++) {
		a[d] -= req[d];
		for (uint32_t i = 0; i < na; i++)
			anc[i][d] -= req[d];
	}
	return true;
}

static int reclaimable(void *stv, const tph_session *s, tph_idx reclaimer, const tph_idx *c,
                       uint32_t n, uint8_t *keep)
{
	cap_st *st = stv;
	tph_idx rq = tph_task_queue_of(tph_view_of(s), reclaimer);
	if (!st->ready || rq == TPH_NOIDX || !st->has[rq])
		return 1;
	vr_clone_reset(&st->clones);
	tph_victims_pop_order(s, reclaimer, c, n, st->perm);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = st->perm[k];
		keep[i] = reclaim_one(st, s, reclaimer, rq, c[i]);
	}
	return 1;
}

/* Gang preemption (tph_view_of(s)->eviction->kind): every candidate. Gang reclaim, or any other
 * kind: the guarantee kept and the queue over deserved, candidates in the given order. */
static int unified_evictable(void *stv, const tph_session *s, tph_idx who, const tph_idx *c,
                             uint32_t n, uint8_t *keep)
{
	cap_st *st = stv;
	(void)who;
	if (tph_view_of(s)->eviction->kind == TPH_EVICT_GANG_PREEMPT) {
		memset(keep, 1, n);
		return 1;
	}
	if (!st->ready)
		return 1;
	vr_clone_reset(&st->clones);
	for (uint32_t i = 0; i < n; i++) {
		int64_t req[TPH_RES_MAX], except[TPH_RES_MAX];
		tph_idx q = tph_task_queue_of(tph_view_of(s), c[i]);
		if (q == TPH_NOIDX || !st->has[q])
			continue;
		vr_req(&st->v, s, c[i], req);
		int64_t *a = clone_row(st, q);
		for (uint32_t d = 0; d < st->nd; d++)
			except[d] = a[d] - req[d];
		if (!vr_le(&st->v, cap_row(st, st->guar, q), st->guar_keys[q], except) ||
		    !over_deserved(st, q, a, req))
			continue;
		memcpy(a, except, st->nd * sizeof *a);
		keep[i] = 1;
	}
	return 1;
}

/* ---- queue checks ---- */

/* Preemptive's candidates: task t, or the set in tph_view_of(s)->eviction->tasks when t is
 * TPH_NOIDX. */
static void candidates_req(const vr_dims *v, const tph_session *s, tph_idx t, int64_t *req)
{
	if (t != TPH_NOIDX) {
		vr_req(v, s, t, req);
		return;
	}
	memset(req, 0, TPH_RES_MAX * sizeof *req);
	for (uint32_t i = 0; i < tph_view_of(s)->eviction->n_tasks; i++)
		vr_add_req(v, s, tph_view_of(s)->eviction->tasks[i], req, 1);
}

/* Reclaim may start when the task fits the queue's real capability and the queue (or, with
 * ancestorReclaimLevel, an ancestor below the root) is within deserved on some requested
 * dimension. Only the queue's own real capability is checked here. */
static bool preemptive(void *stv, const tph_session *s, tph_idx q, tph_idx t)
{
	const cap_st *st = stv;
	if (!st->ready || tph_view_of(s)->queues->state[q] != TPH_QUEUE_OPEN || !st->has[q])
		return false;
	int64_t req[TPH_RES_MAX], fu[TPH_RES_MAX];
	candidates_req(&st->v, s, t, req);
	const int64_t *a = cap_row(st, st->alloc, q);
	if (!vr_fits(&st->v, a, req, cap_row(st, st->realcap, q)))
		return false;
	for (uint32_t d = 0; d < st->nd; d++)
		fu[d] = a[d] + req[d];
	if (vr_le_partly(&st->v, fu, cap_row(st, st->des, q), req))
		return true;
	for (int64_t l = 1; st->hier && l <= st->level; l++) {
		tph_idx x = ancestor_at(st, q, l);
		if (x == TPH_NOIDX || x == st->root)
			continue;
		for (uint32_t d = 0; d < st->nd; d++)
			fu[d] = cap_row(st, st->alloc, x)[d] + req[d];
		if (vr_le_partly(&st->v, fu, cap_row(st, st->des, x), req))
			return true;
	}
	return false;
}

/* The task fits the real capability of q and of every ancestor, leaf first; `rows` is the
 * allocated column to check (the live one, or the simulation's). */
static bool fits_chain(cap_st *st, tph_idx q, const int64_t *req, bool sim);

static bool allocatable(void *stv, const tph_session *s, tph_idx q, tph_idx t)
{
	cap_st *st = stv;
	if (tph_view_of(s)->queues->state[q] != TPH_QUEUE_OPEN || !st->ready || !st->has[q])
		return false;
	if (st->hier && !cap_leaf(st, q))
		return false;
	int64_t req[TPH_RES_MAX];
	vr_req(&st->v, s, t, req);
	return fits_chain(st, q, req, false);
}

/* minResources + allocated + inqueue - elastic within the real capability, for the queue and
 * every ancestor. */
static int job_enqueueable(void *stv, const tph_session *s, tph_idx j)
{
	const cap_st *st = stv;
	tph_idx q = tph_view_of(s)->jobs->queue[j];
	const char *qn = tph_session_queue_name(s, q);
	if (!st->ready || (st->hier && !cap_leaf(st, q))) {
		tph_job_reason(s, j,
		               st->ready ? "queue %s is not a leaf queue"
		                         : "queue hierarchy is invalid (queue %s)",
		               qn);
		return TPH_REJECT;
	}
	if (tph_view_of(s)->queues->state[q] != TPH_QUEUE_OPEN) {
		tph_job_reason(s, j, "queue %s is not open", qn);
		return TPH_REJECT;
	}
	if (!tph_view_of(s)->jobs->has_min_res[j] || !st->has[q])
		return TPH_PERMIT;
	int64_t mn[TPH_RES_MAX], base[TPH_RES_MAX];
	vr_job_min(&st->v, s, j, mn);
	for (uint32_t i = 0; i <= cap_nanc(st, q); i++) {
		tph_idx x = i == 0 ? q : cap_ancestors(st, q)[cap_nanc(st, q) - i];
		for (uint32_t d = 0; d < st->nd; d++)
			base[d] = cap_row(st, st->alloc, x)[d] + cap_row(st, st->inqueue, x)[d] -
			          cap_row(st, st->elastic, x)[d];
		if (!vr_fits(&st->v, base, mn, cap_row(st, st->realcap, x))) {
			char scope[300];
			snprintf(scope, sizeof scope, "queue %s", tph_session_queue_name(s, x));
			why_over(s, j,
			         &(why_over_args){"queue resource quota insufficient",
			                          "insufficient", scope,
			                          "allocated+inqueue-elastic", "capability", base,
			                          mn, cap_row(st, st->realcap, x)});
			return TPH_REJECT;
		}
	}
	return TPH_PERMIT;
}

static void job_enqueued(void *stv, tph_session *s, tph_idx j)
{
	cap_st *st = stv;
	tph_idx q = tph_view_of(s)->jobs->queue[j];
	if (!st->has[q] || !tph_view_of(s)->jobs->has_min_res[j])
		return;
	int64_t mn[TPH_RES_MAX];
	vr_job_min(&st->v, s, j, mn);
	for (uint32_t i = 0; i <= cap_nanc(st, q); i++) {
		tph_idx x = i == 0 ? q : cap_ancestors(st, q)[i - 1];
		for (uint32_t d = 0; d < st->nd; d++)
			cap_row(st, st->inqueue, x)[d] += mn[d];
	}
}

/* ---- simulations over the PrePredicate snapshot ---- */

/* Volcano's PrePredicate clones every queue's attributes into the task's cycle state and the
 * Simulate* functions work on that clone. Here the clone of queue q is made the first time q
 * is touched after PrePredicate, by a simulation or by an event (which copies before it
 * changes the live row), so it always holds q as PrePredicate saw it. */
static int64_t *sim_row(cap_st *st, tph_idx q)
{
	return vr_clone_row(&st->sim, q, cap_row(st, st->alloc, q));
}

static bool fits_chain(cap_st *st, tph_idx q, const int64_t *req, bool sim)
{
	uint32_t n = cap_nanc(st, q);
	for (uint32_t i = 0; i <= n; i++) {
		tph_idx x = i == 0 ? q : cap_ancestors(st, q)[n - i];
		const int64_t *a = sim ? sim_row(st, x) : cap_row(st, st->alloc, x);
		if (!vr_fits(&st->v, a, req, cap_row(st, st->realcap, x)))
			return false;
	}
	return true;
}

static tph_reason_code prepredicate(void *stv, const tph_session *s, tph_idx task)
{
	cap_st *st = stv;
	(void)s;
	(void)task;
	vr_clone_reset(&st->sim);
	st->sim_ready = true;
	return TPH_PASS;
}

static bool sim_allocatable(void *stv, const tph_session *s, tph_idx q, tph_idx t)
{
	cap_st *st = stv;
	if (!st->sim_ready || !st->ready || !st->has[q] || (st->hier && !cap_leaf(st, q)))
		return false;
	int64_t req[TPH_RES_MAX];
	vr_req(&st->v, s, t, req);
	return fits_chain(st, q, req, true);
}

static int sim_move(cap_st *st, const tph_session *s, tph_idx t, int sign)
{
	tph_idx q = tph_task_queue_of(tph_view_of(s), t);
	if (!st->sim_ready || q == TPH_NOIDX || !st->has[q])
		return TPH_EINVAL;
	vr_add_req(&st->v, s, t, sim_row(st, q), sign);
	for (uint32_t i = 0; i < cap_nanc(st, q); i++)
		vr_add_req(&st->v, s, t, sim_row(st, cap_ancestors(st, q)[i]), sign);
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

/* ---- events ---- */

/* The queue's share follows; its ancestors' allocated does, their shares do not (Volcano). */
static int on_event(cap_st *st, tph_session *s, tph_idx t, int sign)
{
	tph_idx q = tph_task_queue_of(tph_view_of(s), t);
	if (q == TPH_NOIDX || !st->has[q])
		return TPH_OK;
	for (uint32_t i = 0; i <= cap_nanc(st, q); i++) {
		tph_idx x = i == 0 ? q : cap_ancestors(st, q)[i - 1];
		if (st->sim_ready)
			sim_row(st, x);
		vr_add_req(&st->v, s, t, cap_row(st, st->alloc, x), sign);
	}
	cap_update_share(st, q);
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

/* ---- open ---- */

static int register_orders(tph_session *s, cap_st *st)
{
	if (!st->hier)
		return tph_on_queue_order(s, queue_order_flat);
	if (!st->ready) /* Volcano registers them at the end of a successful build */
		return TPH_OK;
	int rc = tph_on_queue_order(s, queue_order_tree);
	return rc ? rc : tph_on_victim_queue_order(s, victim_queue_order);
}

static int anc_scratch(tph_session *s, cap_st *st)
{
	uint32_t most = 1;
	for (tph_idx q = 0; q < st->nq; q++)
		if (cap_nanc(st, q) + 1 > most)
			most = cap_nanc(st, q) + 1;
	st->anc_rows = TPH_SESSION_NEW(s, int64_t *, most);
	return st->anc_rows ? TPH_OK : TPH_ENOMEM;
}

/* The queue figures for the decision log. */
static void cap_close(tph_session *s, void *stv)
{
	cap_st *st = stv;
	if (!st->has || !st->des || !st->share) /* its open failed */
		return;
	for (tph_idx q = 0; q < st->nq; q++) {
		if (!st->has[q])
			continue;
		tph_queue_report r = {cap_row(st, st->des, q),     cap_row(st, st->request, q),
		                      cap_row(st, st->inqueue, q), cap_row(st, st->realcap, q),
		                      cap_row(st, st->guar, q),    st->share[q]};
		tph_queue_report_set(s, q, &r);
	}
}

static int cap_open(tph_session *s, void *stv, const tph_args *args)
{
	cap_st *st = stv;
	(void)args;
	vr_dims_init(&st->v, s);
	st->nq = tph_view_of(s)->queues->n;
	st->nd = st->v.n;
	st->root = TPH_NOIDX;
	st->hier = tph_plugin_flag(s, TPH_FLAG_HIERARCHY);
	int rc = cap_alloc_rows(s, st);
	if (rc)
		return rc;
	st->ready = true;
	if (st->hier)
		st->ready = cap_build_tree(s, st);
	else
		cap_build_flat(s, st);
	rc = anc_scratch(s, st);
	rc = rc ? rc : register_orders(s, st);
	rc = rc ? rc : tph_on_reclaimable(s, reclaimable);
	rc = rc ? rc : tph_on_unified_evictable(s, unified_evictable);
	rc = rc ? rc : tph_on_preemptive(s, preemptive);
	rc = rc ? rc : tph_on_allocatable(s, allocatable);
	rc = rc ? rc : tph_on_job_enqueueable(s, job_enqueueable);
	rc = rc ? rc : tph_on_job_enqueued(s, job_enqueued);
	rc = rc ? rc : tph_on_prepredicate(s, prepredicate);
	rc = rc ? rc : tph_on_sim_add_task(s, sim_add);
	rc = rc ? rc : tph_on_sim_remove_task(s, sim_remove);
	rc = rc ? rc : tph_on_sim_allocatable(s, sim_allocatable);
	return rc ? rc : tph_on_task_events(s, on_allocate, on_deallocate);
}

const tph_plugin tph_plugin_capacity = {
    .abi = TPH_PLUGIN_ABI,
    .name = "capacity",
    .args = cap_args,
    .state_size = sizeof(cap_st),
    .on_session_open = cap_open,
    .on_session_close = cap_close,
};

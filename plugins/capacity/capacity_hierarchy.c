/* capacity plugin: the queue attributes at session open. Flat (buildQueueAttrs): queues with
 * jobs, real capability = cluster minus others' guarantees, deserved capped by it. Tree
 * (buildHierarchicalQueueAttrs): every queue with its ancestors; jobs only in leaves; sums
 * roll up; capability, real capability and deserved flow from the root down. */
#include "capacity.h"

#include <string.h>

int cap_alloc_rows(tph_session *s, cap_st *st)
{
	size_t rows = (size_t)st->nq * st->nd + 1, nq = st->nq + 1;
	int64_t **cols[] = {&st->alloc, &st->request, &st->inqueue, &st->elastic,
	                    &st->des,   &st->cap,     &st->guar,    &st->realcap};
	for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
		if (!(*cols[i] = TPH_SESSION_NEW(s, int64_t, rows)))
			return TPH_ENOMEM;
	tph_dimmask **masks[] = {&st->des_keys, &st->cap_keys, &st->guar_keys, &st->rc_keys};
	for (size_t i = 0; i < sizeof masks / sizeof *masks; i++)
		if (!(*masks[i] = TPH_SESSION_NEW(s, tph_dimmask, nq)))
			return TPH_ENOMEM;
	st->has = TPH_SESSION_NEW(s, uint8_t, nq);
	st->share = TPH_SESSION_NEW(s, double, nq);
	st->perm = TPH_SESSION_NEW(s, uint32_t, tph_view_of(s)->tasks->n + 1);
	if (!st->has || !st->share || !st->perm)
		return TPH_ENOMEM;
	int rc = vr_clone_init(s, &st->clones, st->nq, st->nd);
	return rc ? rc : vr_clone_init(s, &st->sim, st->nq, st->nd);
}

void cap_update_share(cap_st *st, tph_idx q)
{
	const int64_t *d = cap_row(st, st->des, q), *a = cap_row(st, st->alloc, q);
	if (vr_is_empty(&st->v, d)) {
		st->share[q] = 1;
		return;
	}
	double res = 0;
	tph_dimmask names = vr_names(&st->v, d);
	for (uint32_t k = 0; k < st->nd; k++)
		if (vr_has(names, k) && (double)a[k] / (double)d[k] > res)
			res = (double)a[k] / (double)d[k];
	st->share[q] = res;
}

/* newQueueAttr: deserved, capability and guarantee as the queue spec gives them. */
static void spec_rows(cap_st *st, const tph_session *s, tph_idx q)
{
	const tph_queue_store *qs = tph_view_of(s)->queues;
	size_t o = (size_t)q * st->nd;
	st->has[q] = 1;
	st->des_keys[q] = vr_spec_row(&st->v, qs->deserved + o, qs->des_mask[q], st->des + o);
	if (qs->cap_mask[q])
		st->cap_keys[q] =
		    vr_spec_row(&st->v, qs->capability + o, qs->cap_mask[q], st->cap + o);
	if (qs->gua_mask[q])
		st->guar_keys[q] =
		    vr_spec_row(&st->v, qs->guarantee + o, qs->gua_mask[q], st->guar + o);
}

static void add_rows(cap_st *st, tph_idx q, const vr_jobrows *jr)
{
	for (uint32_t d = 0; d < st->nd; d++) {
		cap_row(st, st->alloc, q)[d] += jr->alloc[d];
		cap_row(st, st->request, q)[d] += jr->request[d];
		cap_row(st, st->inqueue, q)[d] += jr->inqueue[d];
		cap_row(st, st->elastic, q)[d] += jr->elastic[d];
	}
}

/* realCapability = ExceededPart(total, totalGuarantee) + guarantee, min capability (whose
 * missing cpu or memory means unlimited); deserved is then capped by it and floored at the
 * guarantee. */
static void flat_queue(cap_st *st, const tph_session *s, tph_idx q, const int64_t *total,
                       const int64_t *tg)
{
	size_t o = (size_t)q * st->nd;
	int64_t *rc = st->realcap + o, *c = st->cap + o;
	spec_rows(st, s, q);
	vr_exceeded(&st->v, total, tg, rc, &st->rc_keys[q]);
	for (uint32_t d = 0; d < st->nd; d++)
		rc[d] += st->guar[o + d];
	st->rc_keys[q] |= st->guar_keys[q];
	if (!tph_view_of(s)->queues->cap_mask[q])
		return;
	if (c[TPH_RES_CPU] <= 0)
		c[TPH_RES_CPU] = VR_INF;
	if (c[TPH_RES_MEMORY] <= 0)
		c[TPH_RES_MEMORY] = VR_INF;
	vr_min_cap(&st->v, rc, c, st->cap_keys[q]);
}

void cap_build_flat(const tph_session *s, cap_st *st)
{
	int64_t total[TPH_RES_MAX], tg[TPH_RES_MAX];
	tph_dimmask keys;
	vr_total(&st->v, s, total, &keys);
	vr_guarantee_total(&st->v, s, tg);
	for (tph_idx j = 0; j < tph_view_of(s)->jobs->n; j++) {
		tph_idx q = tph_view_of(s)->jobs->queue[j];
		vr_jobrows jr;
		if (!st->has[q])
			flat_queue(st, s, q, total, tg);
		vr_job_rows(&st->v, s, j, &jr);
		add_rows(st, q, &jr);
	}
	for (tph_idx q = 0; q < st->nq; q++) {
		if (!st->has[q])
			continue;
		int64_t *d = cap_row(st, st->des, q);
		vr_min_cap(&st->v, d, cap_row(st, st->realcap, q),
		           st->rc_keys[q] & st->des_keys[q]);
		vr_max(&st->v, d, cap_row(st, st->guar, q), d);
		st->des_keys[q] |= st->guar_keys[q];
		cap_update_share(st, q);
	}
}

/* Children lists (CSR) and the queues by depth, so that a parent's values are final before
 * its children's are derived. */
static bool tree_index(tph_session *s, cap_st *st, tph_idx *depth_order)
{
	uint32_t nq = st->nq, k = 0;
	st->child_off = TPH_SESSION_NEW(s, uint32_t, nq + 1);
	st->child = TPH_SESSION_NEW(s, tph_idx, nq + 1);
	uint32_t *fill = TPH_SESSION_NEW(s, uint32_t, nq + 1);
	if (!st->child_off || !st->child || !fill)
		return false;
	for (tph_idx q = 0; q < nq; q++) {
		st->child_off[q + 1] = st->child_off[q] + st->nchild[q];
		fill[q] = st->child_off[q];
	}
	for (tph_idx q = 0; q < nq; q++)
		if (q != st->root)
			st->child[fill[tph_view_of(s)->queues->parent[q]]++] = q;
	for (uint32_t d = 0; k < nq; d++)
		for (tph_idx q = 0; q < nq; q++)
			if (cap_nanc(st, q) == d)
				depth_order[k++] = q;
	return true;
}

/* updateAncestors over every queue: a queue other than "root" whose parent chain does not
 * reach the root (missing parent, or a cycle) makes the plugin not ready. */
static bool tree_links(tph_session *s, cap_st *st)
{
	const tph_queue_store *qs = tph_view_of(s)->queues;
	uint32_t total = 0;
	for (tph_idx q = 0; q < st->nq; q++) {
		uint32_t n = 0;
		for (tph_idx p = q; p != st->root; p = qs->parent[p], n++)
			if (p == TPH_NOIDX || n > st->nq)
				return false;
		st->anc_off[q] = total;
		total += n;
	}
	st->anc_off[st->nq] = total;
	if (!(st->anc = TPH_SESSION_NEW(s, tph_idx, total + 1)))
		return false;
	for (tph_idx q = 0; q < st->nq; q++) {
		uint32_t i = st->anc_off[q + 1];
		for (tph_idx p = q; p != st->root; p = qs->parent[p])
			st->anc[--i] = qs->parent[p];
		if (q != st->root)
			st->nchild[qs->parent[q]]++;
	}
	return true;
}

static tph_idx find_root(const tph_session *s)
{
	for (tph_idx q = 0; q < tph_view_of(s)->queues->n; q++)
		if (strcmp(tph_session_str(s, tph_view_of(s)->queues->name[q]), "root") == 0)
			return q;
	return TPH_NOIDX;
}

/* Jobs sit in leaves; what a job adds to its queue is added to every ancestor too. */
static bool tree_jobs(const tph_session *s, cap_st *st)
{
	for (tph_idx j = 0; j < tph_view_of(s)->jobs->n; j++) {
		tph_idx q = tph_view_of(s)->jobs->queue[j];
		if (!cap_leaf(st, q))
			return false;
		vr_jobrows jr;
		vr_job_rows(&st->v, s, j, &jr);
		add_rows(st, q, &jr);
		for (uint32_t i = 0; i < cap_nanc(st, q); i++)
			add_rows(st, cap_ancestors(st, q)[i], &jr);
	}
	return true;
}

/* The root is not limited by the cluster: no capability means unlimited. */
static void root_capability(const tph_session *s, cap_st *st)
{
	int64_t total[TPH_RES_MAX], *c = cap_row(st, st->cap, st->root);
	tph_dimmask keys;
	if (vr_is_empty(&st->v, c)) {
		vr_total(&st->v, s, total, &keys);
		c[TPH_RES_CPU] = c[TPH_RES_MEMORY] = VR_INF;
		for (uint32_t d = 0; d < st->nd; d++)
			if (vr_has(keys, d))
				c[d] = VR_INF;
		st->cap_keys[st->root] = keys;
	}
	memcpy(cap_row(st, st->realcap, st->root), c, st->nd * sizeof *c);
	st->rc_keys[st->root] = st->cap_keys[st->root];
}

/* A child's deserved is floored at its guarantee; a capability it leaves out (cpu or memory
 * not above 0, a scalar not given) is its parent's. */
static void inherit(cap_st *st, tph_idx x, tph_idx c)
{
	int64_t *cc = cap_row(st, st->cap, c), *xc = cap_row(st, st->cap, x);
	int64_t *d = cap_row(st, st->des, c);
	vr_max(&st->v, d, cap_row(st, st->guar, c), d);
	st->des_keys[c] |= st->guar_keys[c];
	if (cc[TPH_RES_CPU] <= 0)
		cc[TPH_RES_CPU] = xc[TPH_RES_CPU];
	if (cc[TPH_RES_MEMORY] <= 0)
		cc[TPH_RES_MEMORY] = xc[TPH_RES_MEMORY];
	tph_dimmask add = st->cap_keys[x] & ~st->cap_keys[c];
	for (uint32_t k = 0; k < st->nd; k++)
		if (vr_has(add, k))
			cc[k] = xc[k];
	st->cap_keys[c] |= add;
}

/* checkHierarchicalQueue for node x: its children's deserved and capability, the root's
 * guarantee and deserved as its children's sums, then each child's real capability from
 * x's minus the children's guarantees. */
static void check_node(cap_st *st, tph_idx x)
{
	int64_t tg[TPH_RES_MAX] = {0}, td[TPH_RES_MAX] = {0};
	tph_dimmask tg_keys = 0, td_keys = 0;
	const tph_idx *kids = st->child + st->child_off[x];
	uint32_t nk = st->nchild[x];
	for (uint32_t i = 0; i < nk; i++) {
		tph_idx c = kids[i];
		inherit(st, x, c);
		for (uint32_t d = 0; d < st->nd; d++) {
			td[d] += cap_row(st, st->des, c)[d];
			tg[d] += cap_row(st, st->guar, c)[d];
		}
		td_keys |= st->des_keys[c];
		tg_keys |= st->guar_keys[c];
	}
	if (x == st->root) {
		memcpy(cap_row(st, st->guar, x), tg, st->nd * sizeof *tg);
		memcpy(cap_row(st, st->des, x), td, st->nd * sizeof *td);
		st->guar_keys[x] = tg_keys;
		st->des_keys[x] = td_keys;
	}
	for (uint32_t i = 0; i < nk; i++) {
		tph_idx c = kids[i];
		int64_t *rc = cap_row(st, st->realcap, c);
		vr_exceeded(&st->v, cap_row(st, st->realcap, x), tg, rc, &st->rc_keys[c]);
		for (uint32_t d = 0; d < st->nd; d++)
			rc[d] = vr_add(rc[d], cap_row(st, st->guar, c)[d]);
		st->rc_keys[c] |= st->guar_keys[c];
		vr_min_cap(&st->v, rc, cap_row(st, st->cap, c), st->cap_keys[c]);
	}
}

bool cap_build_tree(tph_session *s, cap_st *st)
{
	st->root = find_root(s);
	st->anc_off = TPH_SESSION_NEW(s, uint32_t, st->nq + 1);
	st->nchild = TPH_SESSION_NEW(s, uint32_t, st->nq + 1);
	tph_idx *order = TPH_SESSION_NEW(s, tph_idx, st->nq + 1);
	if (!st->anc_off || !st->nchild || !order)
		return false;
	for (tph_idx q = 0; q < st->nq; q++)
		spec_rows(st, s, q);
	if (st->root == TPH_NOIDX || !tree_links(s, st) || !tree_index(s, st, order) ||
	    !tree_jobs(s, st)) {
		st->anc_off = NULL; /* not ready: no ancestor walks */
		return false;
	}
	root_capability(s, st);
	for (uint32_t i = 0; i < st->nq; i++)
		check_node(st, order[i]);
	for (tph_idx q = 0; q < st->nq; q++)
		cap_update_share(st, q);
	return true;
}

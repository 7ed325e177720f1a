/* network-topology-aware: Volcano's plugin of that name. Gradients of candidate hypernodes for
 * jobs and subjobs in hard mode (soft mode was made hard at the cluster top's tier when the
 * session opened), hypernode-level binpacking and LCA-tier node scores, and a resource cache
 * per hypernode that its own allocate/deallocate events keep. */
#include "network_topology_aware.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define OFF(f) offsetof(nta_st, f)
static const tph_arg_spec nta_args[] = {
    {"weight", TPH_ARG_INT, "1", 0, 0, OFF(weight), NULL},
    {"hypernode.binpack.cpu", TPH_ARG_INT, "1", 0, 0, OFF(cpu), NULL},
    {"hypernode.binpack.memory", TPH_ARG_INT, "1", 0, 0, OFF(memory), NULL},
    {"hypernode.binpack.resources", TPH_ARG_STRING, NULL, 0, 0, OFF(resources),
     "comma-separated extra resources, each weighted by hypernode.binpack.resources.<name>"},
    {"hypernode.binpack.normal-pod.enable", TPH_ARG_BOOL, "true", 0, 0, OFF(normal_enable), NULL},
    {"hypernode.binpack.normal-pod.fading", TPH_ARG_FLOAT, "0.8", 0, 0, OFF(fading), NULL},
    {"hypernode.gradient.evict.max-hypernodes", TPH_ARG_INT, "8", 0, 0, OFF(evict_max), NULL},
    {"hypernode.binpack.resources.*", TPH_ARG_INT, NULL, 0, 0, TPH_ARG_NOFIELD,
     "the weight of each resource named in hypernode.binpack.resources"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* ---- arguments ---- */

static void set_weight(nta_st *st, const tph_session *s, const char *name, size_t len, int64_t w)
{
	uint32_t d = tph_session_dim_find(s, name, len);
	if (d != TPH_NOIDX) {
		st->w[d] = w;
		st->has[d] = 1;
	}
}

/* getPriorityWeight: "a, b" -> hypernode.binpack.resources.<name> (default 1, negative 1);
 * cpu and memory keep their own keys' weights. */
static void weights(nta_st *st, const tph_session *s, const tph_args *args)
{
	char key[320];
	for (const char *p = st->resources; p && *p;) {
		const char *end = strchr(p, ','), *b = p, *e;
		e = end ? end : p + strlen(p);
		while (b < e && (*b == ' ' || *b == '\t' || *b == '\n' || *b == '\r'))
			b++;
		while (e > b && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
			e--;
		int64_t w = 1;
		if (e > b && (size_t)(e - b) < sizeof key - 40) {
			snprintf(key, sizeof key, "hypernode.binpack.resources.%.*s", (int)(e - b),
			         b);
			tph_args_int(args, key, &w);
			set_weight(st, s, b, (size_t)(e - b), w < 0 ? 1 : w);
		}
		p = end ? end + 1 : NULL;
	}
	st->w[TPH_RES_CPU] = st->cpu < 0 ? 1 : st->cpu;
	st->w[TPH_RES_MEMORY] = st->memory < 0 ? 1 : st->memory;
	st->has[TPH_RES_CPU] = st->has[TPH_RES_MEMORY] = 1;
	st->has[TPH_RES_PODS] = 0; /* Volcano's task requests carry no pods */
	st->n_wd = 0;
	for (uint32_t d = 0; d < tph_view_of(s)->ndim && d < TPH_RES_MAX; d++)
		if (st->has[d])
			st->wd[st->n_wd++] = d;
	if (st->weight < 0)
		st->weight = 1;
	if (st->fading < 0)
		st->fading = 0.8;
	if (st->evict_max <= 0)
		st->evict_max = 8;
}

/* Tier weights of normal pods: fading^(tier - 1) for every tier from min to max. */
static int tier_weights(nta_st *st, tph_session *s)
{
	const tph_hn_tree *t = &tph_view_of(s)->topo->t;
	st->min_tier = t->tiers[0];
	st->max_tier = t->tiers[t->n_tiers - 1];
	uint32_t span = (uint32_t)(st->max_tier - st->min_tier) + 1;
	if (span > (1u << 16) && st->normal_enable) { /* Volcano would loop over every tier */
		tph_session_warn(s,
		                 "network-topology-aware: tiers %d..%d are too far apart; "
		                 "no hypernode-level binpacking",
		                 st->min_tier, st->max_tier);
		st->normal_enable = false;
	}
	if (!st->normal_enable)
		return TPH_OK;
	if (!(st->tier_w = tph_session_alloc(s, span * sizeof *st->tier_w)))
		return TPH_ENOMEM;
	st->tier_w_sum = 0;
	for (int32_t tier = st->min_tier; tier <= st->max_tier; tier++) {
		double w = pow(st->fading, (double)(tier - 1)); /* pow(0, 0) is 1, as in Go */
		st->tier_w_sum += w;
		st->tier_w[tier - st->min_tier] = w;
	}
	return TPH_OK;
}

/* ---- the resource cache (initHyperNodeResourceCache) and its events ---- */

static int cache(nta_st *st, tph_session *s)
{
	const tph_hn_tree *t = &tph_view_of(s)->topo->t;
	if (tph_hn_aggregates(s))
		return TPH_ENOMEM;
	size_t cells = (size_t)tph_view_of(s)->ndim * t->n;
	st->nh = t->n;
	st->alloc = t->alloc;
	st->used = tph_session_alloc(s, (cells + 1) * sizeof *st->used);
	st->idle = tph_session_alloc(s, (cells + 1) * sizeof *st->idle);
	st->future = tph_session_alloc(s, (cells + 1) * sizeof *st->future);
	st->where = tph_session_alloc(s, (tph_view_of(s)->tasks->n + 1) * sizeof *st->where);
	st->eligible = tph_session_alloc(s, t->n + 1);
	st->cnt = tph_session_alloc(s, (t->n + 1) * sizeof *st->cnt);
	st->seen = tph_session_alloc(s, (tph_view_of(s)->tasks->n + 1) * sizeof *st->seen);
	st->row = tph_session_alloc(s, (tph_view_of(s)->ndim + 1) * sizeof *st->row);
	st->sj_req = tph_session_alloc(s, (tph_view_of(s)->ndim + 1) * sizeof *st->sj_req);
	st->hb = tph_session_alloc(s, (t->n + 1) * sizeof *st->hb);
	st->hb_req = tph_session_alloc(s, (tph_view_of(s)->ndim + 1) * sizeof *st->hb_req);
	st->hb_stale = tph_session_alloc(s, t->n + 1);
	st->hb_dirty = tph_session_alloc(s, (t->n + 1) * sizeof *st->hb_dirty);
	st->sj_req_of = TPH_NOIDX;
	if (!st->used || !st->idle || !st->future || !st->where || !st->eligible || !st->row ||
	    !st->cnt || !st->seen || !st->sj_req || !st->hb || !st->hb_req || !st->hb_stale ||
	    !st->hb_dirty)
		return TPH_ENOMEM;
	memset(st->hb_stale, 0, t->n + 1);
	memset(st->cnt, 0, (t->n + 1) * sizeof *st->cnt);
	st->cnt_sj = TPH_NOIDX;
	st->hb_valid = false;
	st->n_dirty = 0;
	memcpy(st->used, t->used, cells * sizeof *st->used);
	memcpy(st->idle, t->idle, cells * sizeof *st->idle);
	for (size_t i = 0; i < cells; i++)
		st->future[i] = t->idle[i] + t->releasing[i] - t->pipelined[i];
	for (tph_idx k = 0; k < tph_view_of(s)->tasks->n; k++) { /* what NodeInfo.Used holds */
		uint8_t status = tph_view_of(s)->tasks->status[k];
		bool held = tph_ts_allocated(status) || status == TPH_TS_RELEASING;
		st->where[k] = held ? tph_view_of(s)->tasks->node[k] : TPH_NOIDX;
	}
	return TPH_OK;
}

/* The node's deepest hypernode when its hypernodes are that one's ancestors-or-self, one each
 * (a tree gives that; anything else keeps per-node scoring). */
static tph_idx chain_of(const tph_hn_tree *t, tph_idx node)
{
	uint32_t b = t->of_off[node], e = t->of_off[node + 1];
	if (b == e || !t->ready)
		return TPH_NOIDX;
	tph_idx d = t->of[b];
	for (uint32_t k = b + 1; k < e; k++)
		d = t->depth[t->of[k]] > t->depth[d] ? t->of[k] : d;
	for (uint32_t k = b; k < e; k++) {
		tph_idx h = t->of[k];
		if (t->pre[d] < t->pre[h] || t->pre[d] >= t->pre[h] + t->size[h])
			return TPH_NOIDX;
	}
	return e - b == t->depth[d] + 1 ? d : TPH_NOIDX;
}

/* chain_at is kept for tiers up to this span (Volcano's trees have a handful). */
#define MAX_CHAIN_TIERS 64u

static int chains(nta_st *st, tph_session *s)
{
	const tph_hn_tree *t = &tph_view_of(s)->topo->t;
	uint32_t n = tph_view_of(s)->nodes->n, tiers = (uint32_t)(st->max_tier - st->min_tier + 1);
	bool at = st->normal_enable && tiers <= MAX_CHAIN_TIERS;
	st->chain = tph_session_alloc(s, (n + 1) * sizeof *st->chain);
	st->chain_score = tph_session_alloc(s, (t->n + 1) * sizeof *st->chain_score);
	st->chain_mark = tph_session_alloc(s, (t->n + 1) * sizeof *st->chain_mark);
	st->listed = tph_session_alloc(s, (t->n + 1) * sizeof *st->listed);
	st->chain_at =
	    at ? tph_session_alloc(s, ((size_t)t->n * tiers + 1) * sizeof *st->chain_at) : NULL;
	st->pre = at ? tph_session_alloc(s, (t->n + 1) * sizeof *st->pre) : NULL;
	st->pre_mark = at ? tph_session_alloc(s, (t->n + 1) * sizeof *st->pre_mark) : NULL;
	if (!st->chain || !st->chain_score || !st->chain_mark || !st->listed ||
	    (at && (!st->chain_at || !st->pre || !st->pre_mark)))
		return TPH_ENOMEM;
	memset(st->chain_mark, 0, (t->n + 1) * sizeof *st->chain_mark);
	st->chain_gen = 0;
	if (at)
		memset(st->pre_mark, 0, (t->n + 1) * sizeof *st->pre_mark);
	st->pre_gen = 1;
	for (tph_idx i = 0; i < n; i++) {
		tph_idx ch = st->chain[i] = chain_of(t, i);
		for (uint32_t k = 0; at && ch != TPH_NOIDX && k < tiers;
		     k++) /* alike for its nodes */
			st->chain_at[(size_t)ch * tiers + k] =
			    nta_at_tier(t, i, st->min_tier + (int32_t)k);
		/* the cluster top holds every ready node, alone at the highest tier (topology.h) */
		assert(!at || ch == TPH_NOIDX ||
		       st->chain_at[(size_t)ch * tiers + tiers - 1] == t->top);
	}
	return TPH_OK;
}

static void move_used(nta_st *st, const tph_session *s, tph_idx task, tph_idx node, int sign)
{
	const tph_hn_tree *t = &tph_view_of(s)->topo->t;
	const int64_t *req = tph_view_of(s)->tasks->req + (size_t)task * tph_view_of(s)->ndim;
	if (node == TPH_NOIDX)
		return;
	for (uint32_t k = t->of_off[node]; k < t->of_off[node + 1]; k++) {
		tph_idx h = t->of[k];
		for (uint32_t j = 0; j < st->n_wd; j++) /* no other dimension is read */
			st->used[(size_t)st->wd[j] * st->nh + h] += sign * req[st->wd[j]];
		if (!st->hb_stale[h]) { /* the binpack cache (hb_fill) */
			st->hb_stale[h] = 1;
			st->hb_dirty[st->n_dirty++] = h;
		}
	}
}

static int on_allocate(void *stv, tph_session *s, tph_idx task)
{
	nta_st *st = stv;
	move_used(st, s, task, tph_view_of(s)->tasks->node[task], +1);
	st->where[task] = tph_view_of(s)->tasks->node[task];
	return TPH_OK;
}

/* The statement may already have taken the task off its node (an undone allocation). */
static int on_deallocate(void *stv, tph_session *s, tph_idx task)
{
	nta_st *st = stv;
	tph_idx node =
	    st->where[task] != TPH_NOIDX ? st->where[task] : tph_view_of(s)->tasks->node[task];
	move_used(st, s, task, node, -1);
	st->where[task] = TPH_NOIDX;
	return TPH_OK;
}

/* ---- gradients (hyperNodeGradientFn) ---- */

/* tph_hn_fits' comparisons for one row, prepared once for a subtree: pods against the
 * allocatable (the same for every column asked), cpu and memory always, any other dimension
 * when the row asks for it; off[k] = d * nh. */
typedef struct nta_fit {
	uint32_t n;
	bool pods;
	int64_t pods_v;
	size_t pods_off, off[TPH_RES_MAX];
	int64_t v[TPH_RES_MAX];
} nta_fit;

static void fit_prep(const nta_st *st, uint32_t nd, const int64_t *row, nta_fit *f)
{
	f->n = 0;
	f->pods = false;
	f->pods_v = 0;
	f->pods_off = 0;
	for (uint32_t d = 0; d < nd && d < TPH_RES_MAX; d++) {
		if (d == TPH_RES_PODS) {
			f->pods = true;
			f->pods_v = row[d];
			f->pods_off = (size_t)d * st->nh;
		} else if (d <= TPH_RES_MEMORY || row[d] != 0) {
			f->off[f->n] = (size_t)d * st->nh;
			f->v[f->n++] = row[d];
		}
	}
}

/* tph_hn_fits(s, row, avail, h) but for the pods check, which fit_pods makes. */
static bool fit_rest(const nta_fit *f, const int64_t *avail, tph_idx h)
{
	if (f->n == 2) /* cpu and memory alone, the common row */
		return !(f->v[0] > avail[f->off[0] + h]) && !(f->v[1] > avail[f->off[1] + h]);
	for (uint32_t k = 0; k < f->n; k++)
		if (f->v[k] > avail[f->off[k] + h])
			return false;
	return true;
}

static bool fit_pods(const nta_st *st, const nta_fit *f, tph_idx h)
{
	return !f->pods || !(f->pods_v > st->alloc[f->pods_off + h]);
}

/* isEligibleHyperNode's resource pre-filter, from the cache (idle as at session open). */
static void mark_eligible(nta_st *st, const tph_session *s, tph_idx root, const int64_t *min,
                          int purpose)
{
	const tph_idx *sub;
	uint32_t n = tph_hn_subtree(&tph_view_of(s)->topo->t, root, &sub);
	nta_fit f;
	fit_prep(st, tph_view_of(s)->ndim, min, &f);
	for (uint32_t i = 0; i < n; i++) {
		tph_idx h = sub[i];
		st->eligible[h] = fit_pods(st, &f, h) &&
		                  (purpose == TPH_PURPOSE_EVICT
		                       ? fit_rest(&f, st->alloc, h)
		                       : fit_rest(&f, st->idle, h) || fit_rest(&f, st->future, h));
	}
}

static void gradient(nta_st *st, const tph_session *s, tph_idx hn, int32_t tier, tph_idx allocated,
                     const int64_t *min, int purpose, tph_hn_gradient *out)
{
	const tph_hn_tree *t = &tph_view_of(s)->topo->t;
	out->n = out->n_groups = 0;
	if (tier < 0) { /* not hard: the hypernode as given */
		tph_hn_gradient_single(out, hn);
		return;
	}
	tph_idx root = tph_hn_search_root(t, hn, tier, allocated);
	if (root == TPH_NOIDX)
		return; /* getSearchRoot failed: no gradient at all */
	/* a job already partly running skips the resource pre-filter */
	if (allocated == TPH_NOIDX)
		mark_eligible(st, s, root, min, purpose);
	tph_hn_gradient_build(t, root, tier, allocated == TPH_NOIDX ? st->eligible : NULL, out);
	if (purpose == TPH_PURPOSE_EVICT)
		tph_hn_gradient_reverse_cap(out, (uint32_t)st->evict_max);
}

static void gradient_job(void *stv, const tph_session *s, tph_idx job, tph_idx hn, int purpose,
                         tph_hn_gradient *out)
{
	nta_st *st = stv;
	const tph_job_store *js = tph_view_of(s)->jobs;
	for (uint32_t d = 0; d < tph_view_of(s)->ndim;
	     d++) /* JobInfo.GetMinResources: minResources */
		st->row[d] =
		    js->has_min_res[job] ? js->min_res[(size_t)job * tph_view_of(s)->ndim + d] : 0;
	gradient(st, s, hn, tph_topo_job_tier(s, job), tph_view_of(s)->topo->job_hn[job], st->row,
	         purpose, out);
}

static void gradient_subjob(void *stv, const tph_session *s, tph_idx k, tph_idx hn, int purpose,
                            tph_hn_gradient *out)
{
	nta_st *st = stv;
	const tph_subjobs *o = &tph_view_of(s)->topo->sj;
	tph_subjob_min_resources(s, k, st->row);
	gradient(st, s, hn, o->topo_tier[k], o->hn[k], st->row, purpose, out);
}

/* ---- open ---- */

static int nta_open(tph_session *s, void *stv, const tph_args *args)
{
	nta_st *st = stv;
	if (!tph_view_of(s)->topo)
		return TPH_EINVAL;
	weights(st, s, args);
	int rc = tier_weights(st, s);
	if (!rc)
		rc = cache(st, s);
	if (!rc)
		rc = chains(st, s);
	if (!rc)
		rc = tph_on_hypernode_order(s, nta_hypernode_order);
	if (!rc)
		rc = tph_on_hypernode_order_each(s, nta_hypernode_order_each);
	if (!rc)
		rc = tph_on_batch_node_order(s, nta_batch_node_order);
	if (!rc)
		rc = tph_on_score_locality(s, nta_score_locality, NULL);
	if (!rc)
		rc = tph_on_score_hn_bound(s, nta_score_hn_bound);
	if (!rc)
		rc = tph_on_hypernode_gradient_job(s, gradient_job);
	if (!rc)
		rc = tph_on_hypernode_gradient_subjob(s, gradient_subjob);
	if (!rc)
		rc = tph_on_task_events(s, on_allocate, on_deallocate);
	return rc;
}

const tph_plugin tph_plugin_network_topology_aware = {
    .abi = TPH_PLUGIN_ABI,
    .name = "network-topology-aware",
    .args = nta_args,
    .state_size = sizeof(nta_st),
    .on_session_open = nta_open,
};

/* The pod-to-pod Filters of Volcano's predicates plugin: kube-scheduler's InterPodAffinity and
 * PodTopologySpread. Their PreFilter state (per topology domain counts) is built once per pod
 * shape and then kept current by the allocate/deallocate events instead of being recomputed
 * per task; predicate callbacks only read it. */
#include "predicates.h"

#include <limits.h>
#include <string.h>

enum {
	C_AFF,
	C_ANTI,
	C_EXIST
};

/* ---- counting ---- */

/* Add delta to the count of `what` at node's domain of key k: the state, or the simulation. */
static void bump(pred_st *st, bool sim, int what, uint32_t k, tph_idx node, int delta)
{
	pred_pod *pp = &st->pp;
	uint32_t d = k == TPH_NOIDX ? TPH_NOIDX : tph_k8s_dom(st->v, k, node);
	if (d == TPH_NOIDX)
		return;
	if (sim) {
		int32_t *a = what == C_AFF    ? st->sim.aff
		             : what == C_ANTI ? st->sim.anti
		                              : st->sim.exist;
		a[k] += delta;
		return;
	}
	int32_t *a = what == C_AFF ? pp->aff : what == C_ANTI ? pp->anti : pp->exist;
	uint32_t *pairs = what == C_AFF    ? &pp->aff_pairs
	                  : what == C_ANTI ? &pp->anti_pairs
	                                   : &pp->exist_pairs;
	int32_t *x = &a[st->v->topo.off[k] + d], old = *x;
	*x += delta;
	if (!old == !*x)
		return;
	uint32_t step = old ? (uint32_t)-1 : 1u;
	*pairs += step;
	if (what == C_EXIST)
		pp->exist_key_pairs[k] += step;
}

static bool matches_all(const tph_podaff_row *t, uint32_t n, tph_sid owner_ns, tph_sid ns,
                        tph_labels l)
{
	for (uint32_t i = 0; i < n; i++)
		if (!tph_k8s_term_matches(&t[i], owner_ns, ns, l))
			return false;
	return n > 0;
}

/* Pod e on node against the pod's own required terms (affinity counts need all to match). */
static void ipa_incoming(pred_st *st, const tph_session *s, bool sim, tph_idx e, tph_idx node,
                         int delta)
{
	const pred_pod *pp = &st->pp;
	const tph_pod_spec *sp = pp->spec;
	tph_sid ens = tph_view_of(s)->tasks->ns[e];
	tph_labels el = tph_view_of(s)->tasks->meta[e]->labels;
	if (matches_all(sp->pod_required, sp->n_pod_required, pp->ns, ens, el))
		for (uint32_t i = 0; i < sp->n_pod_required; i++)
			bump(st, sim, C_AFF, pp->req_key[i], node, delta);
	for (uint32_t i = 0; i < sp->n_anti_required; i++)
		if (tph_k8s_term_matches(&sp->anti_required[i], pp->ns, ens, el))
			bump(st, sim, C_ANTI, pp->anti_key[i], node, delta);
}

/* Pod e's required anti-affinity terms that select the pod. */
static void ipa_existing(pred_st *st, const tph_session *s, bool sim, tph_idx e, tph_idx node,
                         int delta)
{
	const pred_pod *pp = &st->pp;
	const tph_pod_spec *es = tph_view_of(s)->tasks->spec[e];
	for (uint32_t i = 0; i < es->n_anti_required; i++) {
		const tph_podaff_row *t = &es->anti_required[i];
		if (tph_k8s_term_matches(t, tph_view_of(s)->tasks->ns[e], pp->ns, pp->labels))
			bump(st, sim, C_EXIST, tph_k8s_topo_key(&st->v->topo, t->topology_key),
			     node, delta);
	}
}

/* countPodsMatchSelector for pod e on node: same namespace, not terminating, an empty
 * selector counts nothing. */
static void pts_pod(pred_st *st, const tph_session *s, tph_idx e, tph_idx node, int delta)
{
	pred_pod *pp = &st->pp;
	if (!pp->n_c || !pp->elig[node] || tph_view_of(s)->tasks->ns[e] != pp->ns ||
	    tph_view_of(s)->open_tasks->status[e] == TPH_TS_RELEASING)
		return;
	tph_labels el = tph_view_of(s)->tasks->meta[e]->labels;
	for (uint32_t c = 0; c < pp->n_c; c++) {
		const tph_spread_row *r = &pp->spec->spread[pp->c_row[c]];
		if (!pp->c_counts[c] || !tph_k8s_selector_match(&r->selector, el))
			continue;
		pp->cnt[pp->c_off[c] + tph_k8s_dom(st->v, pp->c_key[c], node)] += delta;
		pp->mins_dirty = true;
	}
}

/* ---- building ---- */

static void ipa_reset(pred_st *st, const tph_session *s)
{
	pred_pod *pp = &st->pp;
	const tph_pod_spec *sp = pp->spec;
	size_t total = st->v->topo.total;
	memset(pp->aff, 0, total * sizeof *pp->aff);
	memset(pp->anti, 0, total * sizeof *pp->anti);
	memset(pp->exist, 0, total * sizeof *pp->exist);
	memset(pp->exist_key_pairs, 0, st->v->topo.n_keys * sizeof *pp->exist_key_pairs);
	pp->aff_pairs = pp->anti_pairs = pp->exist_pairs = 0;
	for (uint32_t i = 0; i < sp->n_pod_required; i++)
		pp->req_key[i] = tph_k8s_topo_key(&st->v->topo, sp->pod_required[i].topology_key);
	for (uint32_t i = 0; i < sp->n_anti_required; i++)
		pp->anti_key[i] = tph_k8s_topo_key(&st->v->topo, sp->anti_required[i].topology_key);
	pp->self_match =
	    matches_all(sp->pod_required, sp->n_pod_required, pp->ns, pp->ns, pp->labels);
	(void)s;
}

static bool has_keys(const pred_pod *pp, const tph_k8s_view *v, tph_idx node)
{
	for (uint32_t c = 0; c < pp->n_c; c++)
		if (pp->c_key[c] == TPH_NOIDX || tph_k8s_dom(v, pp->c_key[c], node) == TPH_NOIDX)
			return false;
	return true;
}

/* The DoNotSchedule constraints, and the nodes spreading counts: ready, holding every
 * constraint's key and matching the pod's required node affinity (NodeAffinityPolicy Honor). */
static void pts_reset(pred_st *st, const tph_session *s)
{
	pred_pod *pp = &st->pp;
	const tph_pod_spec *sp = pp->spec;
	const tph_k8s_view *v = st->v;
	uint32_t off = 0;
	pp->n_c = 0;
	for (uint32_t i = 0; i < sp->n_spread && st->topology_spread; i++) {
		const tph_spread_row *r = &sp->spread[i];
		if (!r->do_not_schedule)
			continue;
		uint32_t c = pp->n_c++, k = tph_k8s_topo_key(&v->topo, r->topology_key);
		pp->c_row[c] = i;
		pp->c_key[c] = k;
		pp->c_off[c] = off;
		off += k == TPH_NOIDX ? 0 : v->topo.n_dom[k];
		pp->c_self[c] = tph_k8s_selector_match(&r->selector, pp->labels);
		pp->c_counts[c] = r->selector.present &&
		                  r->selector.match_labels.n + r->selector.match_exprs.n > 0;
	}
	for (uint32_t i = 0; i < off; i++)
		pp->cnt[i] = -1;
	for (tph_idx n = 0; pp->n_c && n < v->n_nodes; n++) {
		pp->elig[n] =
		    (tph_view_of(s)->nodes->flags[n] & TPH_NODE_READY) && has_keys(pp, v, n) &&
		    tph_k8s_node_affinity(sp, tph_view_of(s)->nodes->meta[n], &v->nums, n);
		for (uint32_t c = 0; pp->elig[n] && c < pp->n_c; c++) {
			int32_t *x = &pp->cnt[pp->c_off[c] + tph_k8s_dom(v, pp->c_key[c], n)];
			*x = *x < 0 ? 0 : *x;
		}
	}
	pp->mins_dirty = true;
}

/* minMatchNum per constraint: the lowest count over the domains, 0 below minDomains. */
static void pts_mins(pred_st *st)
{
	pred_pod *pp = &st->pp;
	for (uint32_t c = 0; c < pp->n_c; c++) {
		uint32_t k = pp->c_key[c], doms = 0;
		int32_t min = INT32_MAX;
		for (uint32_t d = 0; k != TPH_NOIDX && d < st->v->topo.n_dom[k]; d++) {
			int32_t x = pp->cnt[pp->c_off[c] + d];
			if (x < 0)
				continue;
			doms++;
			min = x < min ? x : min;
		}
		int32_t want = pp->spec->spread[pp->c_row[c]].min_domains;
		pp->c_min[c] = doms < (uint32_t)(want > 0 ? want : 1) ? 0 : min;
	}
	pp->mins_dirty = false;
}

static void rebuild(pred_st *st, const tph_session *s, tph_idx task)
{
	pred_pod *pp = &st->pp;
	const tph_k8s_view *v = st->v;
	pp->spec = tph_view_of(s)->tasks->spec[task];
	pp->ns = tph_view_of(s)->tasks->ns[task];
	pp->labels = tph_view_of(s)->tasks->meta[task]->labels;
	pp->valid = true;
	ipa_reset(st, s);
	pts_reset(st, s);
	const tph_pod_spec *sp = pp->spec;
	bool terms = st->pod_affinity && (sp->n_pod_required || sp->n_anti_required);
	for (tph_idx n = 0; (terms || pp->n_c) && n < v->n_nodes; n++)
		for (tph_idx e = v->head[n]; e != TPH_NOIDX; e = v->next[e]) {
			if (terms)
				ipa_incoming(st, s, false, e, n, +1);
			pts_pod(st, s, e, n, +1);
		}
	for (uint32_t i = 0; st->pod_affinity && i < v->n_anti_nodes; i++) {
		tph_idx n = v->anti_nodes[i];
		for (tph_idx e = v->head[n]; e != TPH_NOIDX; e = v->next[e])
			if (tph_view_of(s)->tasks->spec[e]->n_anti_required)
				ipa_existing(st, s, false, e, n, +1);
	}
}

static bool same_shape(const pred_pod *pp, const tph_session *s, tph_idx t)
{
	tph_labels l = tph_view_of(s)->tasks->meta[t]->labels;
	if (!pp->valid || pp->spec->id != tph_view_of(s)->tasks->spec[t]->id ||
	    pp->ns != tph_view_of(s)->tasks->ns[t] || pp->labels.n != l.n)
		return false;
	return !l.n || pp->labels.items == l.items ||
	       !memcmp(pp->labels.items, l.items, l.n * sizeof *l.items);
}

const pred_pod *tph_pred_pod_state(pred_st *st, const tph_session *s, tph_idx task)
{
	uint64_t gen = st->v->gen;
	if (atomic_load_explicit(&st->ready_task, memory_order_acquire) == task &&
	    atomic_load_explicit(&st->ready_gen, memory_order_acquire) == gen)
		return &st->pp;
	pthread_mutex_lock(&st->lock);
	if (atomic_load_explicit(&st->ready_task, memory_order_relaxed) != task ||
	    atomic_load_explicit(&st->ready_gen, memory_order_relaxed) != gen) {
		if (!same_shape(&st->pp, s, task))
			rebuild(st, s, task);
		if (st->pp.mins_dirty)
			pts_mins(st);
		atomic_store_explicit(&st->ready_gen, gen, memory_order_release);
		atomic_store_explicit(&st->ready_task, task, memory_order_release);
	}
	pthread_mutex_unlock(&st->lock);
	return &st->pp;
}

bool tph_pred_pod_needed(const pred_st *st, const tph_session *s, tph_idx task)
{
	const tph_pod_spec *sp = tph_view_of(s)->tasks->spec[task];
	if (st->pod_affinity && (sp->n_pod_required || sp->n_anti_required || st->v->n_anti_nodes))
		return true;
	for (uint32_t i = 0; st->topology_spread && i < sp->n_spread; i++)
		if (sp->spread[i].do_not_schedule)
			return true;
	return false;
}

void tph_pred_pod_event(pred_st *st, const tph_session *s, tph_idx task, tph_idx node, int sign)
{
	pred_pod *pp = &st->pp;
	if (!pp->valid || node == TPH_NOIDX)
		return;
	const tph_pod_spec *sp = pp->spec;
	if (st->pod_affinity && (sp->n_pod_required || sp->n_anti_required))
		ipa_incoming(st, s, false, task, node, sign);
	if (st->pod_affinity && st->v->open_anti[node] &&
	    tph_view_of(s)->tasks->spec[task]->n_anti_required)
		ipa_existing(st, s, false, task, node, sign);
	pts_pod(st, s, task, node, sign);
}

/* ---- filtering ---- */

/* Domains with a non-zero count once the simulation's deltas at `node` are added. */
static uint32_t eff_pairs(const pred_st *st, uint32_t pairs, const int32_t *base,
                          const int32_t *delta, tph_idx node)
{
	for (uint32_t k = 0; delta && k < st->v->topo.n_keys; k++) {
		uint32_t d = tph_k8s_dom(st->v, k, node);
		if (!delta[k] || d == TPH_NOIDX)
			continue;
		int32_t b = base[st->v->topo.off[k] + d];
		pairs += (!b && b + delta[k]) ? 1u : (b && !(b + delta[k])) ? (uint32_t)-1 : 0u;
	}
	return pairs;
}

static int32_t count_at(const pred_st *st, const int32_t *base, const int32_t *delta, uint32_t k,
                        uint32_t d)
{
	return base[st->v->topo.off[k] + d] + (delta ? delta[k] : 0);
}

/* satisfyPodAffinity: every term's key on the node with matching pods in its domain, unless
 * no pod matches anywhere and the pod matches its own terms (the first of a group). */
static bool ipa_affinity(const pred_st *st, const pred_pod *pp, const pred_sim *sim, tph_idx node)
{
	const int32_t *delta = sim ? sim->aff : NULL;
	bool exist = true;
	for (uint32_t i = 0; i < pp->spec->n_pod_required; i++) {
		uint32_t k = pp->req_key[i];
		uint32_t d = k == TPH_NOIDX ? TPH_NOIDX : tph_k8s_dom(st->v, k, node);
		if (d == TPH_NOIDX)
			return false;
		if (count_at(st, pp->aff, delta, k, d) <= 0)
			exist = false;
	}
	return exist || (!eff_pairs(st, pp->aff_pairs, pp->aff, delta, node) && pp->self_match);
}

static bool ipa_anti(const pred_st *st, const pred_pod *pp, const pred_sim *sim, tph_idx node)
{
	const int32_t *delta = sim ? sim->anti : NULL;
	if (!eff_pairs(st, pp->anti_pairs, pp->anti, delta, node))
		return true;
	for (uint32_t i = 0; i < pp->spec->n_anti_required; i++) {
		uint32_t k = pp->anti_key[i];
		uint32_t d = k == TPH_NOIDX ? TPH_NOIDX : tph_k8s_dom(st->v, k, node);
		if (d != TPH_NOIDX && count_at(st, pp->anti, delta, k, d) > 0)
			return false;
	}
	return true;
}

static bool ipa_existing_ok(const pred_st *st, const pred_pod *pp, const pred_sim *sim,
                            tph_idx node)
{
	const int32_t *delta = sim ? sim->exist : NULL;
	if (!eff_pairs(st, pp->exist_pairs, pp->exist, delta, node))
		return true;
	for (uint32_t k = 0; k < st->v->topo.n_keys; k++) {
		uint32_t d = tph_k8s_dom(st->v, k, node);
		if (d != TPH_NOIDX && count_at(st, pp->exist, delta, k, d) > 0)
			return false;
	}
	return true;
}

/* PreFilter returned Skip: no required terms and no existing pod's anti-affinity selects it. */
static bool ipa_skip(const pred_pod *pp)
{
	return !pp->spec->n_pod_required && !pp->spec->n_anti_required && !pp->exist_pairs;
}

static tph_reason_code ipa_filter(const pred_st *st, const pred_pod *pp, const pred_sim *sim,
                                  tph_idx node, bool *unres)
{
	if (ipa_skip(pp))
		return TPH_PASS;
	if (!ipa_affinity(st, pp, sim, node)) {
		*unres = true;
		return st->r_aff;
	}
	if (!ipa_anti(st, pp, sim, node))
		return st->r_anti;
	return ipa_existing_ok(st, pp, sim, node) ? TPH_PASS : st->r_exist;
}

/* 'existing matching num' + 'self-match' - 'global minimum' <= maxSkew. */
static tph_reason_code pts_filter(const pred_st *st, const pred_pod *pp, tph_idx node, bool *unres)
{
	for (uint32_t c = 0; c < pp->n_c; c++) {
		uint32_t k = pp->c_key[c];
		uint32_t d = k == TPH_NOIDX ? TPH_NOIDX : tph_k8s_dom(st->v, k, node);
		if (d == TPH_NOIDX) {
			*unres = true;
			return st->r_spread_label;
		}
		int32_t m = pp->cnt[pp->c_off[c] + d];
		int64_t skew = (int64_t)(m > 0 ? m : 0) + pp->c_self[c] - pp->c_min[c];
		if (skew > pp->spec->spread[pp->c_row[c]].max_skew)
			return st->r_spread;
	}
	return TPH_PASS;
}

tph_reason_code tph_pred_pod_filter(const pred_st *st, const tph_session *s, const pred_pod *pp,
                                    tph_idx task, tph_idx node, bool *unres)
{
	(void)s;
	(void)task;
	*unres = false;
	tph_reason_code r = st->pod_affinity ? ipa_filter(st, pp, NULL, node, unres) : TPH_PASS;
	if (*unres)
		return r;
	tph_reason_code p = pts_filter(st, pp, node, unres);
	if (*unres)
		return p;
	return r ? r : p;
}

/* ---- simulations ---- */

static void sim_pod(pred_st *st, const tph_session *s, tph_idx pending, tph_idx task, tph_idx node,
                    int sign)
{
	pred_sim *m = &st->sim;
	const pred_pod *pp = tph_pred_pod_state(st, s, pending);
	if (ipa_skip(pp))
		return;
	if (!m->active || m->pending != pending || m->node != node || m->gen != st->v->gen) {
		uint32_t nk = st->v->topo.n_keys;
		memset(m->aff, 0, nk * sizeof *m->aff);
		memset(m->anti, 0, nk * sizeof *m->anti);
		memset(m->exist, 0, nk * sizeof *m->exist);
		*m = (pred_sim){true, pending, node, st->v->gen, m->aff, m->anti, m->exist};
	}
	ipa_incoming(st, s, true, task, node, sign);
	ipa_existing(st, s, true, task, node, sign);
}

int tph_pred_sim_add(void *st, tph_session *s, tph_idx pending, tph_idx task, tph_idx node)
{
	if (((pred_st *)st)->pod_affinity)
		sim_pod(st, s, pending, task, node, +1);
	return TPH_OK;
}

int tph_pred_sim_remove(void *st, tph_session *s, tph_idx pending, tph_idx task, tph_idx node)
{
	if (((pred_st *)st)->pod_affinity)
		sim_pod(st, s, pending, task, node, -1);
	return TPH_OK;
}

tph_reason_code tph_pred_sim_predicate(void *stv, const tph_session *s, tph_idx task, tph_idx node)
{
	pred_st *st = stv;
	if (!st->pod_affinity)
		return TPH_PASS;
	const pred_pod *pp = tph_pred_pod_state(st, s, task);
	const pred_sim *m = &st->sim;
	bool mine = m->active && m->pending == task && m->node == node && m->gen == st->v->gen;
	bool unres = false;
	return ipa_filter(st, pp, mine ? m : NULL, node, &unres);
}

/* ---- sizing ---- */

int tph_pred_pod_init(pred_st *st, tph_session *s)
{
	uint32_t req = st->v->max_pod_required, anti = st->v->max_anti_required;
	uint32_t spread = st->v->max_spread, maxdom = 0;
	const tph_k8s_topo *tp = &st->v->topo;
	for (uint32_t k = 0; k < tp->n_keys; k++)
		maxdom = tp->n_dom[k] > maxdom ? tp->n_dom[k] : maxdom;
	pred_pod *pp = &st->pp;
	pp->aff = TPH_SESSION_NEW(s, int32_t, tp->total + 1);
	pp->anti = TPH_SESSION_NEW(s, int32_t, tp->total + 1);
	pp->exist = TPH_SESSION_NEW(s, int32_t, tp->total + 1);
	pp->exist_key_pairs = TPH_SESSION_NEW(s, uint32_t, tp->n_keys + 1);
	pp->req_key = TPH_SESSION_NEW(s, uint32_t, req + 1);
	pp->anti_key = TPH_SESSION_NEW(s, uint32_t, anti + 1);
	pp->c_row = TPH_SESSION_NEW(s, uint32_t, spread + 1);
	pp->c_key = TPH_SESSION_NEW(s, uint32_t, spread + 1);
	pp->c_off = TPH_SESSION_NEW(s, uint32_t, spread + 1);
	pp->c_min = TPH_SESSION_NEW(s, int32_t, spread + 1);
	pp->c_self = TPH_SESSION_NEW(s, uint8_t, spread + 1);
	pp->c_counts = TPH_SESSION_NEW(s, uint8_t, spread + 1);
	pp->cnt = TPH_SESSION_NEW(s, int32_t, (size_t)spread * maxdom + 1);
	pp->elig = TPH_SESSION_NEW(s, uint8_t, tph_view_of(s)->nodes->n + 1);
	st->sim.aff = TPH_SESSION_NEW(s, int32_t, tp->n_keys + 1);
	st->sim.anti = TPH_SESSION_NEW(s, int32_t, tp->n_keys + 1);
	st->sim.exist = TPH_SESSION_NEW(s, int32_t, tp->n_keys + 1);
	if (!pp->aff || !pp->anti || !pp->exist || !pp->exist_key_pairs || !pp->req_key ||
	    !pp->anti_key || !pp->c_row || !pp->c_key || !pp->c_off || !pp->c_min || !pp->c_self ||
	    !pp->c_counts || !pp->cnt || !pp->elig || !st->sim.aff || !st->sim.anti ||
	    !st->sim.exist)
		return TPH_ENOMEM;
	atomic_store(&st->ready_task, TPH_NOIDX);
	return TPH_OK;
}

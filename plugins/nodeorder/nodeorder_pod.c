/* nodeorder's pod-to-pod scorers: kube-scheduler's InterPodAffinity (preferred terms of the pod
 * and of the pods already placed, per topology domain) and PodTopologySpread (ScheduleAnyway
 * constraints), PreScore, Score and NormalizeScore over the candidates of one batch call. */
#include "nodeorder.h"

#include <limits.h>
#include <math.h>
#include <string.h>

/* ---- InterPodAffinity ---- */

typedef struct ipa_ctx {
	no_st *st;
	const tph_session *s;
	tph_sid ns;
	tph_labels labels;
	const tph_pod_spec *sp;
	bool touched; /* some term matched on a node with its key: topologyScore is not empty */
} ipa_ctx;

/* processTerm: when `pod` matches the term, weight goes to every node in the domain of the
 * existing pod's node. */
static void process_terms(ipa_ctx *c, const tph_podaff_row *t, uint32_t n, tph_sid owner_ns,
                          tph_sid pod_ns, tph_labels pod_labels, tph_idx node, int sign)
{
	const tph_k8s_view *v = c->st->v;
	for (uint32_t i = 0; i < n; i++) {
		if (!tph_k8s_term_matches(&t[i], owner_ns, pod_ns, pod_labels))
			continue;
		uint32_t k = tph_k8s_topo_key(&v->topo, t[i].topology_key);
		uint32_t d = k == TPH_NOIDX ? TPH_NOIDX : tph_k8s_dom(v, k, node);
		if (d == TPH_NOIDX)
			continue;
		c->st->topo[v->topo.off[k] + d] += sign * (int64_t)t[i].weight;
		c->touched = true;
	}
}

/* processExistingPod. HardPodAffinityWeight is 0 in the args Volcano passes, so the existing
 * pods' required affinity terms add nothing. */
static void process_pod(ipa_ctx *c, tph_idx e, tph_idx node)
{
	const tph_session *s = c->s;
	const tph_pod_spec *es = tph_view_of(s)->tasks->spec[e], *sp = c->sp;
	tph_sid ens = tph_view_of(s)->tasks->ns[e];
	tph_labels el = tph_view_of(s)->tasks->meta[e]->labels;
	process_terms(c, sp->pod_preferred, sp->n_pod_preferred, c->ns, ens, el, node, +1);
	process_terms(c, sp->anti_preferred, sp->n_anti_preferred, c->ns, ens, el, node, -1);
	process_terms(c, es->pod_preferred, es->n_pod_preferred, ens, c->ns, c->labels, node, +1);
	process_terms(c, es->anti_preferred, es->n_anti_preferred, ens, c->ns, c->labels, node, -1);
}

/* Unless the pod has preferred terms, only pods with affinity on the nodes that had such pods
 * when the session's k8s snapshot was taken are processed (HavePodsWithAffinityList). */
static void ipa_prescore(ipa_ctx *c)
{
	const tph_k8s_view *v = c->st->v;
	bool all = c->sp->n_pod_preferred || c->sp->n_anti_preferred;
	uint32_t n = all ? v->n_nodes : v->n_aff_nodes;
	for (uint32_t i = 0; i < n; i++) {
		tph_idx node = all ? i : v->aff_nodes[i];
		for (tph_idx e = v->head[node]; e != TPH_NOIDX; e = v->next[e])
			if (all || tph_k8s_has_pod_affinity(tph_view_of(c->s)->tasks->spec[e]))
				process_pod(c, e, node);
	}
}

bool tph_no_ipa_prescore(no_st *st, const tph_session *s, tph_idx task)
{
	ipa_ctx c = {st,
	             s,
	             tph_view_of(s)->tasks->ns[task],
	             tph_view_of(s)->tasks->meta[task]->labels,
	             tph_view_of(s)->tasks->spec[task],
	             false};
	memset(st->topo, 0, st->v->topo.total * sizeof *st->topo);
	ipa_prescore(&c);
	return c.touched;
}

void tph_no_ipa_raw(const no_st *st, const tph_idx *nodes, uint32_t n, int64_t *raw)
{
	const tph_k8s_view *v = st->v;
	for (uint32_t i = 0; i < n; i++) {
		int64_t score = 0;
		for (uint32_t k = 0; k < v->topo.n_keys; k++) {
			uint32_t d = tph_k8s_dom(v, k, nodes[i]);
			score += d == TPH_NOIDX ? 0 : st->topo[v->topo.off[k] + d];
		}
		raw[i] = score;
	}
}

/* ---- PodTopologySpread ---- */

/* The soft constraints of one pod, in arrays of the state sized for the largest spec. */
typedef struct pts_ctx {
	const tph_spread_row **row;
	uint32_t *key, *off;
	double *weight;
	uint8_t *hostname;
	uint32_t n;
} pts_ctx;

/* countPodsMatchSelector: same namespace, not terminating, an empty selector counts none. */
static int64_t count_pods(const no_st *st, const tph_session *s, tph_idx node,
                          const tph_selector_row *sel, tph_sid ns)
{
	if (!sel->present || !(sel->match_labels.n + sel->match_exprs.n))
		return 0;
	int64_t n = 0;
	for (tph_idx e = st->v->head[node]; e != TPH_NOIDX; e = st->v->next[e])
		n += tph_view_of(s)->tasks->ns[e] == ns &&
		     tph_view_of(s)->open_tasks->status[e] != TPH_TS_RELEASING &&
		     tph_k8s_selector_match(sel, tph_view_of(s)->tasks->meta[e]->labels);
	return n;
}

static bool has_all_keys(const no_st *st, const pts_ctx *c, tph_idx node)
{
	for (uint32_t i = 0; i < c->n; i++)
		if (c->key[i] == TPH_NOIDX || tph_k8s_dom(st->v, c->key[i], node) == TPH_NOIDX)
			return false;
	return true;
}

/* The soft constraints, the candidates that lack a key (ignored) and the domains of the others
 * (topology size for the normalizing weight log(size + 2)). */
static void pts_domains(no_st *st, const tph_session *s, pts_ctx *c, const tph_idx *nodes,
                        uint32_t n)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < n; i++) {
		st->skip[i] = !has_all_keys(st, c, nodes[i]);
		kept += !st->skip[i];
	}
	for (uint32_t j = 0; j < c->n; j++) {
		uint32_t size = 0;
		for (uint32_t i = 0; i < n && !c->hostname[j]; i++) {
			if (st->skip[i])
				continue;
			uint8_t *seen =
			    &st->seen[c->off[j] + tph_k8s_dom(st->v, c->key[j], nodes[i])];
			size += !*seen;
			*seen = 1;
		}
		c->weight[j] = log((double)((c->hostname[j] ? kept : size) + 2));
	}
	(void)s;
}

/* PreScore's counts: every session node matching the pod's required node affinity and holding
 * every key adds its matching pods to its domain, when a candidate shares that domain. */
static void pts_counts(no_st *st, const tph_session *s, const pts_ctx *c, tph_idx task)
{
	const tph_pod_spec *sp = tph_view_of(s)->tasks->spec[task];
	tph_sid ns = tph_view_of(s)->tasks->ns[task];
	for (tph_idx m = 0; m < st->v->n_nodes; m++) {
		if (!(tph_view_of(s)->nodes->flags[m] & TPH_NODE_READY) ||
		    !has_all_keys(st, c, m) ||
		    !tph_k8s_node_affinity(sp, tph_view_of(s)->nodes->meta[m], &st->v->nums, m))
			continue;
		for (uint32_t j = 0; j < c->n; j++) {
			uint32_t at = c->off[j] + tph_k8s_dom(st->v, c->key[j], m);
			if (!c->hostname[j] && st->seen[at])
				st->cnt[at] += count_pods(st, s, m, &c->row[j]->selector, ns);
		}
	}
}

static int64_t pts_node_score(const no_st *st, const tph_session *s, const pts_ctx *c, tph_idx node,
                              tph_sid ns)
{
	double score = 0;
	for (uint32_t j = 0; j < c->n; j++) {
		int64_t cnt = c->hostname[j]
		                  ? count_pods(st, s, node, &c->row[j]->selector, ns)
		                  : st->cnt[c->off[j] + tph_k8s_dom(st->v, c->key[j], node)];
		score += (double)cnt * c->weight[j] + (double)(c->row[j]->max_skew - 1);
	}
	return (int64_t)round(score);
}

/* Tephra has no Services or ReplicaSets, so the system default constraints never apply. */
static uint32_t soft_constraints(const no_st *st, const tph_pod_spec *sp, pts_ctx *c)
{
	uint32_t off = 0;
	*c = (pts_ctx){st->pts_row, st->pts_key, st->pts_off, st->pts_weight, st->pts_host, 0};
	for (uint32_t i = 0; i < sp->n_spread; i++) {
		const tph_spread_row *r = &sp->spread[i];
		if (r->do_not_schedule)
			continue;
		uint32_t j = c->n++;
		c->row[j] = r;
		c->key[j] = tph_k8s_topo_key(&st->v->topo, r->topology_key);
		c->hostname[j] = r->topology_key == st->v->hostname;
		c->off[j] = off;
		off += c->key[j] == TPH_NOIDX ? 0 : st->v->topo.n_dom[c->key[j]];
	}
	return off;
}

static void pts_ctx_of(const no_st *st, pts_ctx *c)
{
	*c = (pts_ctx){st->pts_row,    st->pts_key,  st->pts_off,
	               st->pts_weight, st->pts_host, st->pts_n};
}

bool tph_no_pts_prescore(no_st *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                         uint32_t n)
{
	pts_ctx c;
	uint32_t cells = soft_constraints(st, tph_view_of(s)->tasks->spec[task], &c);
	st->pts_n = c.n;
	if (!c.n || !n || !st->v->n_nodes)
		return false;
	memset(st->cnt, 0, cells * sizeof *st->cnt);
	memset(st->seen, 0, cells * sizeof *st->seen);
	pts_domains(st, s, &c, nodes, n);
	pts_counts(st, s, &c, task);
	return true;
}

void tph_no_pts_raw(const no_st *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                    const uint8_t *skip, uint32_t n, int64_t *raw)
{
	pts_ctx c;
	pts_ctx_of(st, &c);
	for (uint32_t i = 0; i < n; i++)
		raw[i] = skip[i]
		             ? 0
		             : pts_node_score(st, s, &c, nodes[i], tph_view_of(s)->tasks->ns[task]);
}

/* The batch call's raw columns, each only when some spec of the session can need it (a task
 * whose spec has no term, or no soft constraint, never runs that scorer; InterPodAffinity
 * needs a term on the pod or on a placed one), and one cache line of extremes per span. */
static int init_cols(no_st *st, tph_session *s, uint32_t soft)
{
	bool aff = false, ipa = false;
	for (tph_idx t = 0; t < tph_view_of(s)->tasks->n; t++) {
		const tph_pod_spec *sp = tph_view_of(s)->tasks->spec[t];
		aff |= sp->n_node_preferred > 0;
		ipa |= sp->n_pod_preferred + sp->n_anti_preferred > 0;
	}
	const bool need[NO_COLS] = {aff && st->w_node_aff, ipa && st->w_pod_aff, false,
	                            soft && st->w_spread};
	st->raw = TPH_SESSION_NEW(s, int64_t, tph_view_of(s)->nodes->n + 1);
	st->col[NO_TAINT] = st->raw; /* anchors() uses raw only outside batch calls */
	for (int k = 0; k < NO_COLS; k++)
		if (need[k] &&
		    !(st->col[k] = TPH_SESSION_NEW(s, int64_t, tph_view_of(s)->nodes->n + 1)))
			return TPH_ENOMEM;
	size_t line = 2 * NO_COLS * sizeof(int64_t);
	_Static_assert(2 * NO_COLS * sizeof(int64_t) == TPH_SESSION_ALIGN, "one line per span");
	st->ext = tph_session_calloc(s, TPH_PAR_SPANS(tph_view_of(s)->nodes->n) + 1, line);
	return st->raw && st->ext ? TPH_OK : TPH_ENOMEM;
}

int tph_no_pod_init(no_st *st, tph_session *s)
{
	const tph_k8s_topo *tp = &st->v->topo;
	uint32_t soft = st->v->max_soft_spread, maxdom = 0; /* the view walked the specs */
	for (uint32_t k = 0; k < tp->n_keys; k++)
		maxdom = tp->n_dom[k] > maxdom ? tp->n_dom[k] : maxdom;
	st->max_soft = soft;
	st->maxdom = maxdom;
	if (init_cols(st, s, soft))
		return TPH_ENOMEM;
	st->skip = TPH_SESSION_NEW(s, uint8_t, tph_view_of(s)->nodes->n + 1);
	st->topo = TPH_SESSION_NEW(s, int64_t, tp->total + 1);
	st->cnt = TPH_SESSION_NEW(s, int64_t, (size_t)st->max_soft * maxdom + 1);
	st->seen = TPH_SESSION_NEW(s, uint8_t, (size_t)st->max_soft * maxdom + 1);
	st->pts_row = TPH_SESSION_NEW(s, const tph_spread_row *, soft + 1);
	st->pts_key = TPH_SESSION_NEW(s, uint32_t, soft + 1);
	st->pts_off = TPH_SESSION_NEW(s, uint32_t, soft + 1);
	st->pts_weight = TPH_SESSION_NEW(s, double, soft + 1);
	st->pts_host = TPH_SESSION_NEW(s, uint8_t, soft + 1);
	return st->skip && st->topo && st->cnt && st->seen && st->pts_row && st->pts_key &&
	               st->pts_off && st->pts_weight && st->pts_host
	           ? TPH_OK
	           : TPH_ENOMEM;
}

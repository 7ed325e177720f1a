/* Network-topology extension points: the dispatch rules of Volcano's session_plugins.go (the
 * first gradient registration decides, HyperNodeOrder scores add across plugins). ep.c
 * generates their registration, gated by enabledHyperNode{Order,Gradient}, from ep_table.h. */
#include "ep.h"
#include "session/topo/hypernode.h"
#include "prof.h"

#include <math.h>
#include <string.h>

#define CALL(type, e) ((type)(e)->fn)

static void gradient(tph_session *s, tph_ep ep, tph_idx who, tph_idx hn, int purpose,
                     tph_hn_gradient *out)
{
	TPH_PROF(s, ep);
	const tph_ep_list *l = &s->ep[ep];
	out->n = out->n_groups = 0;
	if (!l->n) {
		tph_hn_gradient_single(out, hn);
		return;
	}
	CALL(tph_hn_gradient_fn, &l->e[0])(l->e[0].st, s, who, hn, purpose, out);
}

void tph_hn_gradient_for_job(tph_session *s, tph_idx job, tph_idx hn, int purpose,
                             tph_hn_gradient *out)
{
	gradient(s, TPH_EP_HN_GRADIENT_JOB, job, hn, purpose, out);
}

void tph_hn_gradient_for_subjob(tph_session *s, tph_idx subjob, tph_idx hn, int purpose,
                                tph_hn_gradient *out)
{
	gradient(s, TPH_EP_HN_GRADIENT_SUBJOB, subjob, hn, purpose, out);
}

/* The scratch column a plugin's scores go to before they add; NULL when out of memory. */
static double *scratch(tph_session *s)
{
	tph_topo *tp = s->topo;
	if (!tp->scores && !(tp->scores = TPH_ARENA_NEW(&s->arena, double, tp->t.n + 1))) {
		tph_diag_warn(s->diag, "HyperNodeOrder: out of memory; hypernodes score 0");
		s->oom = true;
	}
	return tp->scores;
}

/* total_out[k] = the sum over the plugins, in order from 0, of fn(plugin)'s out[k]; an
 * each-callback writes every out[k], the plain one from zeros. */
static void order_sum(tph_session *s, const tph_ep_list *l, bool each, tph_idx subjob,
                      const tph_idx *hns, uint32_t n, double *total_out)
{
	double *one = scratch(s);
	if (!one) {
		memset(total_out, 0, n * sizeof *total_out);
		return;
	}
	for (uint32_t i = 0; i < l->n; i++) {
		tph_hn_score_fn fn = each ? s->plugins[l->e[i].plugin].hn_order_each
		                          : CALL(tph_hn_score_fn, &l->e[i]);
		if (!each)
			memset(one, 0, n * sizeof *one);
		fn(l->e[i].st, s, subjob, hns, n, one);
		for (uint32_t k = 0; k < n; k++)
			total_out[k] = (i ? total_out[k] : 0.0) + one[k];
	}
}

void tph_hn_order(tph_session *s, tph_idx subjob, const tph_idx *hns, uint32_t n, double *total_out)
{
	TPH_PROF(s, TPH_EP_HYPERNODE_ORDER);
	const tph_ep_list *l = &s->ep[TPH_EP_HYPERNODE_ORDER];
	memset(total_out, 0, n * sizeof *total_out);
	if (n > s->topo->t.n) /* candidates are distinct hypernodes */
		n = s->topo->t.n;
	if (l->n && n)
		order_sum(s, l, false, subjob, hns, n, total_out);
}

/* Whether every HyperNodeOrder plugin scores hypernodes each alone in one call. */
static bool each_registered(const tph_session *s, const tph_ep_list *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (!s->plugins[l->e[i].plugin].hn_order_each)
			return false;
	return true;
}

void tph_hn_order_each(tph_session *s, tph_idx subjob, const tph_idx *hns, uint32_t n,
                       double *total_out)
{
	TPH_PROF(s, TPH_EP_HYPERNODE_ORDER);
	const tph_ep_list *l = &s->ep[TPH_EP_HYPERNODE_ORDER];
	if (l->n && n <= s->topo->t.n && each_registered(s, l)) {
		order_sum(s, l, true, subjob, hns, n, total_out);
		return;
	}
	for (uint32_t k = 0; k < n; k++) {
		double total = 0;
		for (uint32_t i = 0; i < l->n; i++) {
			double one = 0;
			CALL(tph_hn_score_fn, &l->e[i])(l->e[i].st, s, subjob, &hns[k], 1, &one);
			total += one;
		}
		total_out[k] = total;
	}
}

tph_idx tph_hn_best(const tph_idx *hns, const double *totals, uint32_t n, double *score_out)
{
	tph_idx best = TPH_NOIDX;
	double top = -INFINITY;
	for (uint32_t i = 0; i < n; i++)
		if (totals[i] > top) {
			top = totals[i];
			best = hns[i];
		}
	if (score_out)
		*score_out = best == TPH_NOIDX ? 0 : top;
	return best;
}

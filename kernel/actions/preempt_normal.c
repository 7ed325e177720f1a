/* Volcano's normalPreempt: score the candidate nodes, then on each in score order evict the
 * lowest-ordered victims until the preemptor fits (queue allocatable, FutureIdle, predicates),
 * and pipeline it there. Each node's evictions live in their own statement until they succeed. */
#include "preempt.h"

#include "ep.h"
#include "ep_predicate.h"

#include <math.h>
#include <stdlib.h>

/* util.SortNodes: highest score first (NaN last, as Go sorts it), equal scores in candidate
 * order. */
static int cmp_scored(const void *a, const void *b)
{
	const tph_scored *x = a, *y = b;
	bool xn = isnan(x->score), yn = isnan(y->score);
	if (xn != yn)
		return xn ? 1 : -1;
	if (!xn && x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* preemptorFitsOnNode. */
static bool fits_on_node(const tph_session *s, tph_idx queue, tph_idx p, tph_idx node)
{
	if (!tph_allocatable(s, queue, p))
		return false;
	int64_t fi[TPH_RES_MAX];
	tph_future_idle(s, node, fi);
	return tph_req_fits(s, p, fi) && tph_predicate_node(s, p, node) == TPH_PASS;
}

/* Evict victims in victim order until the preemptor fits; true when it does. */
static bool evict_until_fits(tph_preempt_ctx *c, tph_statement *ns, tph_idx p, tph_idx node,
                             uint32_t nv)
{
	tph_session *s = c->ev.s;
	tph_victim_order vo = {s, p};
	tph_pq h;
	tph_victims_queue(&h, &vo, c->ev.victims, nv, c->ev.vheap);
	tph_idx queue = tph_task_queue(s, p);
	bool fits = fits_on_node(s, queue, p, node);
	while (!fits && h.n) {
		int rc = tph_stmt_evict(ns, tph_pq_pop(&h), "preempt");
		tph_evict_fail(&c->ev, rc);
		fits = fits_on_node(s, queue, p, node);
	}
	return fits;
}

static bool try_node(tph_preempt_ctx *c, tph_statement *stmt, tph_idx p, tph_preempt_scope scope,
                     tph_idx node)
{
	tph_session *s = c->ev.s;
	uint32_t nc = tph_preemptees(&c->ev, p, scope, node, c->ev.cands);
	uint32_t nv = tph_preemptable(s, p, c->ev.cands, nc, c->ev.victims);
	if (!tph_validate_victims(s, p, node, c->ev.victims, nv))
		return false;
	tph_statement ns;
	tph_stmt_init(&ns, s);
	if (evict_until_fits(c, &ns, p, node, nv)) {
		/* out of memory in the pipeline or the merge ends the action (tph_evict_fail) */
		int rc = tph_stmt_pipeline(&ns, p, node);
		if (rc == TPH_OK && (rc = tph_stmt_merge(stmt, &ns)) == TPH_OK)
			return true;
		tph_evict_fail(&c->ev, rc);
	}
	tph_stmt_discard(&ns);
	return false;
}

bool tph_preempt_normal(tph_preempt_ctx *c, tph_statement *stmt, tph_idx preemptor,
                        tph_preempt_scope scope, const tph_idx *nodes, uint32_t n)
{
	if (!n)
		return false;
	tph_scored *order = c->order;
	tph_score_nodes(c->ev.s, preemptor, nodes, n, c->scores);
	for (uint32_t i = 0; i < n; i++)
		order[i] = (tph_scored){c->scores[i], i};
	qsort(order, n, sizeof *order, cmp_scored);
	for (uint32_t i = 0; i < n && !c->ev.err; i++)
		if (try_node(c, stmt, preemptor, scope, nodes[order[i].pos]))
			return true;
	return false;
}

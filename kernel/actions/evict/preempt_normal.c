/* Volcano's normalPreempt: score the candidate nodes, then on each in score order evict the
 * lowest-ordered victims until the preemptor fits (queue allocatable, FutureIdle, predicates),
 * and pipeline it there. Each node's evictions live in their own statement until they succeed. */
#include "preempt.h"

#include "session/ep.h"
#include "session/ep_predicate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* util.SortNodes: highest score first (NaN last, as Go sorts it), equal scores in candidate
 * order. The score becomes an unsigned key that orders as the doubles do (IEEE bits, negatives
 * flipped, -0 read as +0, NaN 0 so last), so the sort compares integers. */
static uint64_t order_key(double d)
{
	if (isnan(d))
		return 0;
	if (d == 0)
		d = 0.0;
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u >> 63 ? ~u : u | (UINT64_C(1) << 63);
}

static int cmp_scored(const void *a, const void *b)
{
	const tph_scored *x = a, *y = b;
	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
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

/* The nodes in SortNodes order: the first HEAP_TRIES from a binary heap (a preemptor that
 * lands at all usually lands on one of its first nodes, and building the heap is O(n)), then,
 * for a preemptor still trying, the rest sorted at once (popping thousands would cost more than
 * a sort). cmp_scored is a total order (positions differ), so both give exactly the sorted
 * order. */
#define HEAP_TRIES 8u

static void sift_down(tph_scored *h, uint32_t n, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, m = i;
		if (l < n && cmp_scored(&h[l], &h[m]) < 0)
			m = l;
		if (l + 1 < n && cmp_scored(&h[l + 1], &h[m]) < 0)
			m = l + 1;
		if (m == i)
			return;
		tph_scored t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static uint32_t pop_first(tph_scored *h, uint32_t *n)
{
	uint32_t pos = h[0].pos;
	h[0] = h[--*n];
	sift_down(h, *n, 0);
	return pos;
}

bool tph_preempt_normal(tph_preempt_ctx *c, tph_statement *stmt, tph_idx preemptor,
                        tph_preempt_scope scope, const tph_idx *nodes, uint32_t n)
{
	if (!n)
		return false;
	tph_scored *heap = c->order;
	/* A failed BatchNodeOrder leaves Volcano's SortNodes nothing to try. */
	if (!tph_score_nodes(c->ev.s, preemptor, nodes, n, c->scores))
		return false;
	for (uint32_t i = 0; i < n; i++)
		heap[i] = (tph_scored){order_key(c->scores[i]), i};
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(heap, n, i);
	for (uint32_t k = 0; k < HEAP_TRIES && n && !c->ev.err; k++)
		if (try_node(c, stmt, preemptor, scope, nodes[pop_first(heap, &n)]))
			return true;
	qsort(heap, n, sizeof *heap, cmp_scored);
	for (uint32_t i = 0; i < n && !c->ev.err; i++)
		if (try_node(c, stmt, preemptor, scope, nodes[heap[i].pos]))
			return true;
	return false;
}

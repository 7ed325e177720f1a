/* Volcano's normalPreempt: score the candidate nodes, then on each in score order evict the
 * lowest-ordered victims until the preemptor fits (queue allocatable, FutureIdle, predicates),
 * and pipeline it there. Each node's evictions live in their own statement until they succeed.
 * Unless --naive, the nodes bound to fail before any eviction are left out of the order, and
 * evictions Allocatable is known to refuse are not made (preempt_skip.c). */
#include "preempt.h"

#include "session/ep.h"
#include "session/ep_predicate.h"

#include <stdlib.h>
#include <string.h>

/* preemptorFitsOnNode, with the reason when not. */
enum {
	FITS,
	REFUSED,
	NO_ROOM
};

static int fits_on_node(const tph_session *s, tph_idx queue, tph_idx p, tph_idx node)
{
	if (!tph_allocatable(s, queue, p))
		return REFUSED;
	int64_t fi[TPH_RES_MAX];
	tph_future_idle(s, node, fi);
	bool ok = tph_req_fits(s, p, fi) && tph_predicate_node(s, p, node) == TPH_PASS;
	return ok ? FITS : NO_ROOM;
}

/* Evict victims in victim order until the preemptor fits. A try that evicted every victim
 * and still met Allocatable's refusal teaches the fast path about `rel` (their requests). */
static bool evict_until_fits(tph_preempt_ctx *c, tph_statement *ns, tph_idx p, tph_idx node,
                             uint32_t nv, const int64_t *rel)
{
	tph_session *s = c->ev.s;
	tph_victim_order vo = {s, p};
	tph_pq h;
	tph_victims_queue(&h, &vo, c->ev.victims, nv, c->ev.vheap);
	tph_idx queue = tph_task_queue(s, p);
	int fit = fits_on_node(s, queue, p, node);
	bool all = true;
	while (fit != FITS && h.n) {
		int rc = tph_stmt_evict(ns, tph_pq_pop(&h), "preempt");
		tph_evict_fail(&c->ev, rc);
		all &= rc == TPH_OK;
		fit = fits_on_node(s, queue, p, node);
	}
	if (fit == REFUSED && all && rel)
		tph_refused_add(c, rel);
	return fit == FITS;
}

static void release_row(const tph_session *s, const tph_idx *v, uint32_t n, int64_t *rel)
{
	memset(rel, 0, s->ndim * sizeof *rel);
	for (uint32_t i = 0; i < n; i++)
		tph_vec_add_task(s, v[i], +1, rel);
}

/* One node of normalPreempt. */
static bool try_node(tph_preempt_ctx *c, tph_statement *stmt, tph_idx p, tph_preempt_scope scope,
                     tph_idx node)
{
	tph_session *s = c->ev.s;
	if (tph_preempt_covered(c, p, node))
		return false;
	uint32_t nc = tph_preempt_cands_on(c, p, scope, node, c->ev.cands);
	uint32_t nv = tph_preemptable(s, p, c->ev.cands, nc, c->ev.victims);
	if (!tph_validate_victims(s, p, node, c->ev.victims, nv))
		return false;
	int64_t rel[TPH_RES_MAX], *learn = NULL;
	if (c->fast && c->alloc_queue) {
		release_row(s, c->ev.victims, nv, rel);
		if (tph_refused_covers(c, rel))
			return false;
		learn = rel;
	}
	tph_statement ns;
	tph_stmt_init(&ns, s);
	if (evict_until_fits(c, &ns, p, node, nv, learn)) {
		/* out of memory in the pipeline or the merge ends the action (tph_evict_fail) */
		int rc = tph_stmt_pipeline(&ns, p, node);
		tph_ecands_touch(&c->cands, node);
		if (rc == TPH_OK && (rc = tph_stmt_merge(stmt, &ns)) == TPH_OK)
			return true;
		tph_evict_fail(&c->ev, rc);
	}
	tph_stmt_discard(&ns);
	tph_ecands_touch(&c->cands, node);
	return false;
}

/* The nodes in SortNodes order: the first HEAP_TRIES from a binary heap (a preemptor that
 * lands at all usually lands on one of its first nodes, and building the heap is O(n)), then,
 * for a preemptor still trying, the rest sorted at once (popping thousands would cost more than
 * a sort). tph_scored_cmp is a total order (positions differ), so both give exactly the sorted
 * order. */
#define HEAP_TRIES 8u

/* The entries whose tries a remembered refusal already fails go before the sort (their order
 * among the others does not matter: they fail without a trace). */
static uint32_t drop_covered(const tph_preempt_ctx *c, tph_idx p, const tph_idx *nodes,
                             tph_scored *heap, uint32_t n)
{
	if (!tph_preempt_may_cover(c, p))
		return n;
	uint32_t k = 0, nd = c->ev.s->ndim;
	for (uint32_t i = 0; i < n; i++)
		if (!tph_refused_covers(c, c->crel + (size_t)nodes[heap[i].pos] * nd))
			heap[k++] = heap[i];
	return k;
}

/* Try nodes[heap[i].pos] for the n entries of heap in SortNodes order. */
static bool try_in_order(tph_preempt_ctx *c, tph_statement *stmt, tph_idx p,
                         tph_preempt_scope scope, const tph_idx *nodes, tph_scored *heap,
                         uint32_t n)
{
	tph_scored_heap(heap, n);
	for (uint32_t k = 0; k < HEAP_TRIES && n && !c->ev.err; k++)
		if (try_node(c, stmt, p, scope, nodes[tph_scored_pop(heap, &n)]))
			return true;
	n = drop_covered(c, p, nodes, heap, n);
	qsort(heap, n, sizeof *heap, tph_scored_cmp);
	for (uint32_t i = 0; i < n && !c->ev.err; i++)
		if (try_node(c, stmt, p, scope, nodes[heap[i].pos]))
			return true;
	return false;
}

/* Volcano's loop: score every node, try them all in score order. */
static bool normal_naive(tph_preempt_ctx *c, tph_statement *stmt, tph_idx p,
                         tph_preempt_scope scope, const tph_idx *nodes, uint32_t n)
{
	tph_scored *heap = c->order;
	/* A failed BatchNodeOrder leaves Volcano's SortNodes nothing to try. */
	if (!tph_score_nodes(c->ev.s, p, nodes, n, c->scores))
		return false;
	for (uint32_t i = 0; i < n; i++)
		heap[i] = (tph_scored){tph_order_key(c->scores[i]), i};
	return try_in_order(c, stmt, p, scope, nodes, heap, n);
}

/* c->scores[0..m) for the live nodes, node-local scores: those the class kept for unchanged
 * nodes, the others scored (each node's score is the same in any call) and kept. */
static bool kept_scores(tph_preempt_ctx *c, tph_idx p, uint32_t m)
{
	tph_idx *todo = c->ev.run;
	uint32_t t = 0;
	for (uint32_t k = 0; k < m; k++)
		if (!tph_ecands_score(&c->cands, c->live_node[k], &c->scores[k]))
			todo[t++] = c->live_node[k];
	if (!t)
		return true;
	if (!tph_score_nodes(c->ev.s, p, todo, t, c->scores))
		return false;
	for (uint32_t i = 0; i < t; i++)
		tph_ecands_keep_score(&c->cands, todo[i], c->scores[i]);
	for (uint32_t k = 0; k < m; k++)
		tph_ecands_score(&c->cands, c->live_node[k], &c->scores[k]);
	return true;
}

#define MAX_ANCHORS 32u

/* The nodes to score when the scores are anchored: the live ones and the anchors of the
 * call over all n (any such subset scores each of its nodes as the full call would), in
 * node order, into c->ev.run; UINT32_MAX when the plugins name too many anchors. */
static uint32_t anchored_set(tph_preempt_ctx *c, tph_idx p, const tph_idx *nodes, uint32_t n,
                             uint32_t m)
{
	tph_evict_ctx *ev = &c->ev;
	tph_idx a[MAX_ANCHORS];
	uint32_t na = tph_score_anchors(ev->s, p, nodes, n, a, MAX_ANCHORS);
	if (na == UINT32_MAX)
		return UINT32_MAX;
	if (++ev->stamp == 0) {
		memset(ev->mark, 0, (ev->s->nodes.n + 1) * sizeof *ev->mark);
		ev->stamp = 1;
	}
	for (uint32_t i = 0; i < na; i++)
		ev->mark[a[i]] = ev->stamp;
	uint32_t t = 0;
	for (uint32_t i = 0, k = 0; i < n; i++) {
		bool live = k < m && c->live[k] == i;
		k += live;
		if (live || ev->mark[nodes[i]] == ev->stamp)
			ev->run[t++] = nodes[i];
	}
	return t;
}

/* c->scores[0..m): the scores of the live nodes, each as Volcano's call over all n nodes
 * gives it, scoring no more nodes than the plugins' localities require. */
static bool live_scores(tph_preempt_ctx *c, tph_idx p, const tph_idx *nodes, uint32_t n, uint32_t m)
{
	tph_session *s = c->ev.s;
	int loc = tph_score_locality(s, p) & ~TPH_SCORE_JOB;
	if (loc == TPH_SCORE_LOCAL)
		return c->cands.served ? kept_scores(c, p, m)
		                       : tph_score_nodes(s, p, c->live_node, m, c->scores);
	uint32_t t = loc == TPH_SCORE_ANCHORED ? anchored_set(c, p, nodes, n, m) : UINT32_MAX;
	const tph_idx *set = t == UINT32_MAX ? nodes : c->ev.run;
	t = t == UINT32_MAX ? n : t;
	if (!tph_score_nodes(s, p, set, t, c->scores))
		return false;
	/* keep the live ones, in order: each sits at or after its live index */
	for (uint32_t j = 0, k = 0; j < t && k < m; j++)
		if (set[j] == c->live_node[k])
			c->scores[k++] = c->scores[j];
	return true;
}

/* The same tries less those that would fail before evicting: only nodes that pass the bound
 * are ordered (their relative order is the full one's, positions kept), none scored when none
 * passes, and only the nodes the scores' locality needs are scored. */
static bool normal_fast(tph_preempt_ctx *c, tph_statement *stmt, tph_idx p, tph_preempt_scope scope,
                        const tph_idx *nodes, uint32_t n)
{
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++)
		if (c->cands.served ? tph_ecands_live(&c->cands, nodes[i])
		                    : tph_preempt_bounds(c, p, scope, nodes[i])) {
			c->live[m] = i;
			c->live_node[m++] = nodes[i];
		}
	if (!m)
		return false;
	if (!live_scores(c, p, nodes, n, m)) {
		c->score_failed = true;
		return false;
	}
	tph_scored *heap = c->order;
	for (uint32_t k = 0; k < m; k++)
		heap[k] = (tph_scored){tph_order_key(c->scores[k]), c->live[k]};
	return try_in_order(c, stmt, p, scope, nodes, heap, m);
}

bool tph_preempt_normal(tph_preempt_ctx *c, tph_statement *stmt, tph_idx preemptor,
                        tph_preempt_scope scope, const tph_idx *nodes, uint32_t n)
{
	if (!n)
		return false;
	return c->fast ? normal_fast(c, stmt, preemptor, scope, nodes, n)
	               : normal_naive(c, stmt, preemptor, scope, nodes, n);
}

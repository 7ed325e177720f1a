/* The eviction actions' context (node -> tasks index, scratch) and the candidate nodes of a
 * preemptor: Volcano's FilterOutUnschedulableAndUnresolvableNodesForTask, then
 * PredicateHelper.PredicateNodes over PredicateForPreemptAction, then GetPredicatedNodeByShard. */
#include "evict_util.h"

#include "session/ep.h"
#include "session/ep_predicate.h"
#include "session/fitlog.h"

#include <string.h>

/* Nodes examined per step when sampling stops the scan early; otherwise all at once. */
#define CHUNK 256u

static int build_node_index(tph_evict_ctx *c)
{
	return tph_node_tasks_csr(c->s, &c->node_off, &c->node_tasks, &c->max_on_node);
}

int tph_evict_open(tph_evict_ctx *c, tph_session *s, const tph_ph_opts *ph, bool keep_cache)
{
	memset(c, 0, sizeof *c);
	c->s = s;
	c->ph = *ph;
	c->fast = !s->opts.naive;
	uint32_t nn = s->nodes.n + 1;
	if (build_node_index(c))
		return TPH_ENOMEM;
	uint32_t m = c->max_on_node + 1;
	c->cands = TPH_ACT_NEW(s, tph_idx, m);
	c->victims = TPH_ACT_NEW(s, tph_idx, m);
	c->vheap = TPH_ACT_NEW(s, tph_idx, m);
	c->nodes = TPH_ACT_NEW(s, tph_idx, nn);
	c->eval = TPH_ACT_NEW(s, tph_idx, nn);
	c->run = TPH_ACT_NEW(s, tph_idx, nn);
	c->codes = TPH_ACT_NEW(s, tph_reason_code, nn);
	c->mark = TPH_ACT_NEW(s, uint32_t, nn);
	/* the failures alone: preempt never reports them */
	tph_fit_cache_init(&c->cache, s, keep_cache && ph->error_cache, false);
	if (!c->cands || !c->victims || !c->vheap || !c->nodes || !c->eval || !c->run ||
	    !c->codes || !c->mark)
		return TPH_ENOMEM;
	return TPH_OK;
}

void tph_evict_close(tph_evict_ctx *c)
{
	tph_fit_cache_free(&c->cache);
}

/* ---- candidate nodes ---- */

uint32_t tph_evict_base_nodes(tph_evict_ctx *c, tph_idx task)
{
	const tph_session *s = c->s;
	const tph_idx *skip;
	uint32_t ns = tph_fitlog_unresolvable(s, task, &skip);
	if (!ns) {
		memcpy(c->eval, s->ready_nodes, s->n_ready * sizeof *c->eval);
		return s->n_ready;
	}
	if (++c->stamp == 0) {
		memset(c->mark, 0, (s->nodes.n + 1) * sizeof *c->mark);
		c->stamp = 1;
	}
	for (uint32_t i = 0; i < ns; i++)
		c->mark[skip[i]] = c->stamp;
	uint32_t k = 0;
	for (uint32_t i = 0; i < s->n_ready; i++)
		if (c->mark[s->ready_nodes[i]] != c->stamp)
			c->eval[k++] = s->ready_nodes[i];
	return k;
}

typedef struct scan {
	tph_fit_role *cache;   /* the role's cached failures; NULL when not cached */
	bool hard;             /* hard shard mode */
	bool volcano;          /* VOLCANO sampling: on to the node past the limit */
	bool done;             /* the scan stopped */
	uint32_t found, limit; /* nodes passed so far, how many to find */
	uint32_t seen;         /* nodes walked (PredicateNodes' processedNodes once done) */
} scan;

/* One chunk of nodes, in order: cached failure, shard, predicate. Stops at the limit, or with
 * VOLCANO sampling at the next node that passes (as action_filter.c's collect). */
static void scan_chunk(tph_evict_ctx *c, tph_idx task, scan *sc, const tph_idx *in, uint32_t n)
{
	const tph_session *s = c->s;
	tph_idx *run = c->run;
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		tph_idx nd = in[i];
		bool cached = sc->cache && tph_fit_role_has(sc->cache, nd);
		bool outside = sc->hard && !(s->nodes.flags[nd] & TPH_NODE_IN_SHARD);
		if (!cached && !outside)
			run[m++] = nd;
	}
	tph_predicate_nodes(s, task, run, m, c->codes);
	for (uint32_t i = 0, r = 0; i < n && !sc->done; i++) {
		tph_idx nd = in[i];
		sc->seen++;
		if (r < m && run[r] == nd) {
			if (!tph_predicate_blocks_preempt(s, c->codes[r++])) {
				sc->done = sc->found == sc->limit; /* VOLCANO only */
				if (!sc->done)
					c->nodes[sc->found++] = nd;
				sc->done |= sc->found == sc->limit && !sc->volcano;
				continue;
			}
		} else if (sc->cache && tph_fit_role_has(sc->cache, nd)) {
			continue; /* Volcano re-reports the cached error; nothing new to cache */
		}
		if (sc->cache)
			tph_fit_role_put(sc->cache, nd, TPH_PASS);
	}
}

uint32_t tph_evict_split_shard(tph_evict_ctx *c, uint32_t n)
{
	const tph_session *s = c->s;
	if (s->snap->shard_mode != TPH_SHARD_SOFT)
		return n;
	uint32_t k = 0, o = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (s->nodes.flags[c->nodes[i]] & TPH_NODE_IN_SHARD)
			c->nodes[k++] = c->nodes[i];
		else
			c->eval[o++] = c->nodes[i];
	}
	memcpy(c->nodes + k, c->eval, o * sizeof *c->eval);
	return k;
}

/* The scan starts at the session's lastProcessedNodeIndex with VOLCANO sampling (the knobs
 * alone scan from the first node): c->eval rotated to start there. */
static uint32_t rotate(tph_evict_ctx *c, uint32_t nb)
{
	uint32_t rr = 0, start = tph_ph_start(c->s, &c->ph, &rr, nb);
	if (start) {
		memcpy(c->nodes, c->eval + start, (nb - start) * sizeof *c->nodes);
		memcpy(c->nodes + nb - start, c->eval, start * sizeof *c->nodes);
		memcpy(c->eval, c->nodes, nb * sizeof *c->eval);
	}
	return start;
}

uint32_t tph_evict_nodes(tph_evict_ctx *c, tph_idx task, uint32_t *n_first)
{
	uint32_t nb = tph_evict_base_nodes(c, task), start = rotate(c, nb), rr = 0;
	scan sc = {NULL,
	           c->s->snap->shard_mode == TPH_SHARD_HARD,
	           c->ph.volcano,
	           false,
	           0,
	           tph_ph_nodes_to_find(&c->ph, nb),
	           0};
	/* Volcano creates the group at its first failure; an empty group caches nothing. */
	if (tph_fit_cache_applies(&c->cache, task) &&
	    !(sc.cache = tph_fit_cache_get(&c->cache, task)))
		tph_evict_fail(c, TPH_ENOMEM);
	uint32_t step = sc.limit < nb ? CHUNK : (nb ? nb : 1);
	for (uint32_t off = 0; off < nb && !sc.done; off += step)
		scan_chunk(c, task, &sc, c->eval + off, nb - off < step ? nb - off : step);
	tph_ph_advance(c->s, &c->ph, &rr, start, sc.done ? sc.seen : nb, nb);
	*n_first = tph_evict_split_shard(c, sc.found);
	return sc.found;
}

/* Candidate nodes kept between preemptors of one class (preempt and reclaim, not --naive):
 * what tph_evict_nodes scans for a preemptor (predicates through the role's error cache) and
 * which of those nodes pass the action's bounds, held per node for the last class that
 * looked, and brought up to date from a log of the nodes the action changed since.
 *
 * Exact because, for preemptors of one class (tph_evict_same_class, one key), a node's
 * answers read only that node: node-local predicates of a spec-local pod, its FutureIdle, the
 * statuses of the tasks that were on it at the start, and the role's cached failures, which
 * only this class's scans add to while the slot is kept (another class's scan takes the slot
 * and builds it again). The action logs the node of every statement operation.
 *
 * Also kept, for the action's bounds: a touch count per node and the node's FutureIdle at its
 * last count (a node changes only through the operations it is touched for), and for preempt
 * the class's node-local scores (tph_ecands_score), cleared with the node's state. */
#include "evict_util.h"

#include "session/ep.h"
#include "session/ep_predicate.h"
#include "session/fitlog.h"

#include <string.h>

enum {
	EC_PASS = 1, /* the scan keeps the node (no blocking predicate, not cached, in shard) */
	EC_LIVE = 2, /* and the bound passes (also in the live bitmap) */
	EC_OUT = 4,  /* not ready or unresolvable for the class: never looked at */
	EC_SCORE = 8 /* score[] holds the class's score of the node */
};

int tph_ecands_init(tph_ecands *k, tph_evict_ctx *c, tph_ecands_bound bound, void *arg)
{
	tph_session *s = c->s;
	memset(k, 0, sizeof *k);
	k->rep = TPH_NOIDX;
	k->bound = bound;
	k->arg = arg;
	k->on = c->fast && !c->ph.sampling && tph_eqc_usable(s);
	if (!k->on)
		return TPH_OK;
	uint32_t nn = s->nodes.n + 1;
	k->cap = nn;
	k->state = TPH_ACT_NEW(s, uint8_t, nn);
	k->log = TPH_ACT_NEW(s, tph_idx, nn);
	k->todo = TPH_ACT_NEW(s, tph_idx, nn);
	k->mark = TPH_ACT_NEW(s, uint32_t, nn);
	k->score = TPH_ACT_NEW(s, double, nn);
	k->ver = TPH_ACT_NEW(s, uint32_t, nn);
	k->fi = TPH_ACT_NEW(s, int64_t, (size_t)nn * s->ndim);
	k->fi_ver = TPH_ACT_NEW(s, uint32_t, nn);
	k->live = TPH_ACT_NEW(s, uint64_t, nn / 64 + 1);
	k->out = TPH_ACT_NEW(s, uint8_t, nn);
	if (!k->state || !k->log || !k->todo || !k->mark || !k->score || !k->ver || !k->fi ||
	    !k->fi_ver || !k->live || !k->out)
		return TPH_ENOMEM;
	memset(k->mark, 0, nn * sizeof *k->mark);
	return TPH_OK;
}

void tph_ecands_touch(tph_ecands *k, tph_idx node)
{
	if (!k->on)
		return;
	k->ver[node]++;
	if (k->rep == TPH_NOIDX)
		return;
	if (k->n_log == k->cap)
		k->rep = TPH_NOIDX; /* more than a build's worth: build again */
	else
		k->log[k->n_log++] = node;
}

void tph_ecands_touch_stmt(tph_ecands *k, const tph_statement *st)
{
	for (uint32_t i = 0; k->on && i < st->n; i++) {
		const tph_stmt_op *op = &st->ops[i];
		tph_ecands_touch(k, op->kind == TPH_OP_EVICT ? op->prev_node : op->node);
	}
}

/* The nodes todo[0..n) evaluated for p as tph_evict_nodes would (caching the failures) and,
 * those the scan keeps, bounded. `fresh`: a build cleared the live bits already. */
static void evaluate(tph_ecands *k, tph_evict_ctx *c, tph_idx p, tph_fit_role *r,
                     const tph_idx *todo, uint32_t n, bool fresh)
{
	tph_session *s = c->s;
	bool hard = s->snap->shard_mode == TPH_SHARD_HARD;
	tph_idx *run = c->run;
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		tph_idx nd = todo[i];
		k->state[nd] = 0;
		if (!fresh)
			k->live[nd >> 6] &= ~(UINT64_C(1) << (nd & 63));
		if ((r && tph_fit_role_has(r, nd)) ||
		    (hard && !(s->nodes.flags[nd] & TPH_NODE_IN_SHARD)))
			continue;
		run[m++] = nd;
	}
	tph_predicate_nodes(s, p, run, m, c->codes);
	uint32_t np = 0;
	for (uint32_t i = 0; i < m; i++) {
		tph_idx nd = run[i];
		if (c->codes[i] == TPH_PASS || !tph_predicate_blocks_preempt(s, c->codes[i]))
			run[np++] = nd;
		else if (r)
			tph_fit_role_put(r, nd, TPH_PASS);
	}
	k->bound(k->arg, p, k->key, run, np, k->out);
	for (uint32_t i = 0; i < np; i++) {
		tph_idx nd = run[i];
		uint8_t live = k->out[i];
		k->state[nd] = (uint8_t)(EC_PASS | (live ? EC_LIVE : 0));
		k->live[nd >> 6] |= (uint64_t)live << (nd & 63);
	}
}

/* The slot taken by p's class: every ready node evaluated. */
static void build(tph_ecands *k, tph_evict_ctx *c, tph_idx p, tph_fit_role *r)
{
	uint32_t nb = tph_evict_base_nodes(c, p);
	memset(k->state, EC_OUT, k->cap);
	memset(k->live, 0, (k->cap / 64 + 1) * sizeof *k->live);
	k->rep = p;
	evaluate(k, c, p, r, c->eval, nb, true);
}

/* The logged nodes the class looks at, each once, evaluated again. */
static void update(tph_ecands *k, tph_evict_ctx *c, tph_idx p, tph_fit_role *r)
{
	uint32_t n = 0;
	if (++k->stamp == 0) {
		memset(k->mark, 0, k->cap * sizeof *k->mark);
		k->stamp = 1;
	}
	for (uint32_t i = 0; i < k->n_log; i++) {
		tph_idx nd = k->log[i];
		if (k->mark[nd] == k->stamp || (k->state[nd] & EC_OUT))
			continue;
		k->mark[nd] = k->stamp;
		k->todo[n++] = nd;
	}
	evaluate(k, c, p, r, k->todo, n, false);
}

/* The live nodes in node order, which is the ready nodes' order. */
static uint32_t live_nodes(const tph_ecands *k, tph_idx *out)
{
	uint32_t n = 0;
	for (uint32_t w = 0; w <= k->cap / 64; w++)
		for (uint64_t b = k->live[w]; b; b &= b - 1)
			out[n++] = (tph_idx)(w * 64 + (uint32_t)__builtin_ctzll(b));
	return n;
}

uint32_t tph_ecands_nodes(tph_ecands *k, tph_evict_ctx *c, tph_idx p, uint32_t key, bool live_only,
                          uint32_t *n_first)
{
	tph_session *s = c->s;
	k->served = false;
	if (!k->on || !tph_eqc_spec_local(s->tasks.spec[p])) {
		k->rep = TPH_NOIDX; /* its scan may cache failures of a kept class's role */
		return tph_evict_nodes(c, p, n_first);
	}
	tph_fit_role *r = NULL;
	if (tph_fit_cache_applies(&c->cache, p) && !(r = tph_fit_cache_get(&c->cache, p)))
		tph_evict_fail(c, TPH_ENOMEM);
	bool kept = k->rep != TPH_NOIDX && k->key == key && tph_evict_same_class(s, k->rep, p);
	k->key = key;
	if (kept)
		update(k, c, p, r);
	else
		build(k, c, p, r);
	k->n_log = 0;
	uint32_t n = 0;
	if (live_only)
		n = live_nodes(k, c->nodes);
	else
		for (uint32_t i = 0; i < s->n_ready; i++)
			if (k->state[s->ready_nodes[i]] & EC_PASS)
				c->nodes[n++] = s->ready_nodes[i];
	*n_first = tph_evict_split_shard(c, n);
	k->served = true;
	return n;
}

bool tph_ecands_score(const tph_ecands *k, tph_idx node, double *out)
{
	if (!(k->state[node] & EC_SCORE))
		return false;
	*out = k->score[node];
	return true;
}

void tph_ecands_keep_score(tph_ecands *k, tph_idx node, double score)
{
	k->score[node] = score;
	k->state[node] |= EC_SCORE;
}

/* Volcano's PredicateHelper.PredicateNodes for the placing actions: the per-role predicate
 * error cache (session/fitlog.h), the hard-shard rule and optional node sampling over a
 * rotating start, with the node evaluations themselves served by equivalence classes
 * (action_eqc.c) when allowed. */
#include "action_util.h"

#include "session/ep.h"
#include "session/ep_predicate.h"
#include "base/mem.h"

#include <string.h>

int tph_ph_init(tph_ph *ph, tph_session *s, const tph_ph_opts *o, bool with_fit, tph_eqc *eqc)
{
	memset(ph, 0, sizeof *ph);
	ph->s = s;
	ph->o = *o;
	ph->with_fit = with_fit;
	ph->eqc = eqc;
	tph_fit_cache_init(&ph->cache, s, o->error_cache, true);
	uint32_t n = s->nodes.n + 1;
	ph->eval = TPH_ACT_NEW(s, tph_idx, n);
	ph->feas = TPH_ACT_NEW(s, tph_idx, n);
	ph->pos = TPH_ACT_NEW(s, uint32_t, n);
	ph->codes = TPH_ACT_NEW(s, tph_reason_code, n);
	if (!ph->eval || !ph->feas || !ph->pos || !ph->codes)
		return TPH_ENOMEM;
	if (s->snap->shard_mode == TPH_SHARD_HARD)
		ph->shard_code = tph_reason(s, "node isn't in scheduler node shard", false);
	return TPH_OK;
}

void tph_ph_free(tph_ph *ph)
{
	tph_fit_cache_free(&ph->cache);
}

void tph_ph_reset(tph_ph *ph)
{
	tph_fit_cache_pass(&ph->cache);
}

/* Split the scan into nodes answered without evaluation (the role's cached failures, nodes
 * outside a hard shard) and the nodes to evaluate, kept in ph->eval / ph->pos. */
static uint32_t classify(tph_ph *ph, const tph_fit_role *cached, const tph_idx *nodes, uint32_t n,
                         uint32_t start, tph_reason_code *codes)
{
	const uint8_t *flags = ph->s->nodes.flags;
	uint32_t k = 0;
	for (uint32_t i = 0, at = start; i < n; i++, at = at + 1 == n ? 0 : at + 1) {
		tph_idx node = nodes[at];
		tph_reason_code c = cached ? tph_fit_role_code(cached, node) : TPH_PASS;
		if (c != TPH_PASS) {
			codes[at] = c;
			continue;
		}
		if (ph->shard_code && !(flags[node] & TPH_NODE_IN_SHARD)) {
			codes[at] = ph->shard_code;
			continue;
		}
		ph->eval[k] = node;
		ph->pos[k++] = at;
	}
	return k;
}

static void evaluate_span(tph_ph *ph, tph_idx task, uint32_t off, uint32_t len)
{
	tph_reason_code *out = ph->codes + off;
	if (ph->eqc)
		tph_eqc_eval(ph->eqc, task, ph->eval + off, len, out);
	else if (ph->with_fit)
		tph_filter_nodes(ph->s, task, ph->eval + off, len, out, ph->feas);
	else
		tph_predicate_nodes(ph->s, task, ph->eval + off, len, out);
}

/* Evaluate ph->eval[0..k) in scan order; with sampling, only until `want` nodes passed (only
 * evaluated nodes can pass; VOLCANO sampling scans on to the next feasible node, so its `want`
 * is one more). Positions left unevaluated lie past collect()'s cut-off. */
static void evaluate(tph_ph *ph, tph_idx task, uint32_t k, uint32_t want, tph_reason_code *codes)
{
	uint32_t done = 0, passed = 0;
	while (done < k && passed < want) {
		uint32_t len = want >= k ? k - done : k - done < 256 ? k - done : 256;
		evaluate_span(ph, task, done, len);
		for (uint32_t i = done; i < done + len; i++) {
			codes[ph->pos[i]] = ph->codes[i];
			passed += ph->codes[i] == TPH_PASS;
		}
		done += len;
	}
}

/* Walk the scan in order: feasible nodes out until enough are found, failures into the role's
 * cache; nodes past the cut-off count as never examined. Volcano's workers cancel the scan when
 * a node passes beyond the `want` found: with VOLCANO sampling, that node and the failures
 * before it are processed (and cached) too, as one worker would, and the node is left out. */
static uint32_t collect(tph_ph *ph, tph_idx task, const tph_idx *nodes, uint32_t n, uint32_t start,
                        tph_reason_code *codes, tph_idx *feas)
{
	bool keep = tph_fit_cache_applies(&ph->cache, task);
	tph_fit_role *r = NULL;
	uint32_t want = tph_ph_nodes_to_find(&ph->o, n), found = 0, processed = n;
	for (uint32_t i = 0, at = start; i < n; i++, at = at + 1 == n ? 0 : at + 1) {
		if (codes[at] == TPH_PASS) {
			if (found == want) { /* only VOLCANO gets here: the one past the cut */
				processed = i + 1;
				break;
			}
			feas[found++] = nodes[at];
			if (found == want && !ph->o.volcano) {
				processed = i + 1;
				break;
			}
			continue;
		}
		if (keep && !r && !(r = tph_fit_cache_get(&ph->cache, task))) {
			ph->s->oom = true; /* the action fails rather than decide without it */
			keep = false;
		}
		if (r)
			tph_fit_role_put(r, nodes[at], codes[at]);
	}
	for (uint32_t i = processed, at = (start + processed) % n; i < n;
	     i++, at = at + 1 == n ? 0 : at + 1)
		codes[at] = TPH_PASS;
	tph_ph_advance(ph->s, &ph->o, &ph->rr, start, processed, n);
	return found;
}

uint32_t tph_ph_predicate(tph_ph *ph, tph_idx task, const tph_idx *nodes, uint32_t n,
                          tph_idx *feasible_out, tph_reason_code *codes_out)
{
	if (!n)
		return 0;
	const tph_fit_role *cached = tph_fit_cache_find(&ph->cache, task);
	uint32_t start = tph_ph_start(ph->s, &ph->o, &ph->rr, n);
	uint32_t k = classify(ph, cached, nodes, n, start, codes_out);
	evaluate(ph, task, k, tph_ph_nodes_to_find(&ph->o, n) + ph->o.volcano, codes_out);
	return collect(ph, task, nodes, n, start, codes_out, feasible_out);
}

void tph_ph_touch(tph_ph *ph, tph_idx node)
{
	if (ph->eqc && node != TPH_NOIDX)
		tph_eqc_touch(ph->eqc, node);
}

void tph_ph_touch_stmt(tph_ph *ph, const tph_statement *st)
{
	for (uint32_t i = 0; ph->eqc && i < st->n; i++) {
		const tph_stmt_op *op = &st->ops[i];
		tph_ph_touch(ph, op->kind == TPH_OP_EVICT ? op->prev_node : op->node);
	}
}

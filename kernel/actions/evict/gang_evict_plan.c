/* The dry run of gang preempt and reclaim (Volcano's BuildNominationPlanInDomain and
 * runSimulateTrialAtHyperNode): victims evicted, then each subjob of the job's worksheet
 * pipelined whole onto the nodes of one hypernode (the first of its eviction gradient that
 * takes it, for a job with hard topology; the domain itself otherwise), until the job is
 * pipelined. Also the pending tasks a job evicts for (CollectPendingTasksForGangEviction). */
#include "gang_evict.h"

#include "session/ep_predicate.h"
#include "session/fit.h"
#include "session/fitlog.h"

#include <string.h>

/* ---- pending tasks ---- */

int gev_pending(gev_ctx *c)
{
	tph_session *s = c->s;
	ahn_ws *w = c->ws;
	ahn_state *ws = &w->st[AHN_TRY];
	bool ready = tph_job_ready(s, c->job); /* a running job evicts for one subjob */
	tph_idx k;
	c->n_pending = 0;
	ahn_state_copy(w, ws, &w->st[AHN_MAIN]);
	while ((k = tph_pq_pop(&ws->q)) != TPH_NOIDX) {
		for (uint32_t p = ws->cur[k - w->first]; p < ahn_end(w, k); p++)
			c->pending[c->n_pending++] = w->task[p];
		if (ready && c->n_pending)
			break;
	}
	return TPH_OK;
}

/* ---- the predicate helper of a trial (util.PredicateHelper with simulatePredicate) ---- */

/* A node for the preemptor's task: FutureIdle fits, then PredicateForPreemptAction (only an
 * UnschedulableAndUnresolvable failure counts). */
static bool node_ok(const tph_session *s, tph_idx t, tph_idx node)
{
	if (s->snap->shard_mode == TPH_SHARD_HARD && !(s->nodes.flags[node] & TPH_NODE_IN_SHARD))
		return false;
	if (!tph_fits(s, t, node, true))
		return false;
	tph_reason_code code = tph_predicate_node(s, t, node);
	return code == TPH_PASS || !tph_predicate_blocks_preempt(s, code);
}

/* PredicateNodes over nodes[0..n) into c->ac.feas: a role's failed nodes fail again within
 * the trial; with node sampling, the scan stops once enough nodes passed (VOLCANO sampling:
 * from the session's index, on to the next feasible node, as action_filter.c's collect). */
static uint32_t filter(gev_ctx *c, tph_idx t, const tph_idx *nodes, uint32_t n)
{
	tph_session *s = c->s;
	bool keep = tph_fit_cache_applies(&c->cache, t);
	tph_fit_role *r = tph_fit_cache_find(&c->cache, t);
	uint32_t want = tph_ph_nodes_to_find(&c->ph, n), k = 0, rr = 0, processed = n;
	uint32_t start = tph_ph_start(s, &c->ph, &rr, n);
	for (uint32_t i = 0, at = start; i < n; i++, at = at + 1 == n ? 0 : at + 1) {
		if (r && tph_fit_role_has(r, nodes[at]))
			continue;
		if (node_ok(s, t, nodes[at])) {
			if (k == want) { /* VOLCANO only: the node past the cut ends the scan */
				processed = i + 1;
				break;
			}
			c->ac.feas[k++] = nodes[at];
			if (k == want && !c->ph.volcano) {
				processed = i + 1;
				break;
			}
			continue;
		}
		if (keep && !r && !(r = tph_fit_cache_get(&c->cache, t))) {
			s->oom = true; /* the action fails rather than decide without it */
			keep = false;
		}
		if (r)
			tph_fit_role_put(r, nodes[at], TPH_PASS);
	}
	tph_ph_advance(s, &c->ph, &rr, start, processed, n);
	return k;
}

/* FilterOutUnschedulableAndUnresolvableNodesForTask intersected with the hypernode's nodes;
 * when the filter leaves no session node, the hypernode's nodes as they are. */
static uint32_t schedulable(gev_ctx *c, tph_idx t, const tph_idx *nodes, uint32_t n)
{
	tph_session *s = c->s;
	const tph_idx *unres;
	uint32_t nu = tph_fitlog_unresolvable(s, t, &unres), skipped = 0, k = 0;
	if (++c->skip_gen == 0) {
		memset(c->skip, 0, (s->nodes.n + 1) * sizeof *c->skip);
		c->skip_gen = 1;
	}
	for (uint32_t i = 0; i < nu; i++)
		if (unres[i] != TPH_NOIDX && (s->nodes.flags[unres[i]] & TPH_NODE_READY) &&
		    c->skip[unres[i]] != c->skip_gen) {
			c->skip[unres[i]] = c->skip_gen;
			skipped++;
		}
	for (uint32_t i = 0; i < n; i++)
		if (skipped == s->n_ready || c->skip[nodes[i]] != c->skip_gen)
			c->nodes[k++] = nodes[i];
	return k;
}

/* ---- a trial ---- */

/* One task of a trial: TPH_OK when pipelined, TPH_DECLINED when the trial fails. */
static int trial_task(gev_ctx *c, tph_idx t, const tph_idx *nodes, uint32_t n, tph_statement *st)
{
	tph_session *s = c->s;
	if (!tph_allocatable(s, c->queue, t))
		return TPH_DECLINED;
	uint32_t m = schedulable(c, t, nodes, n);
	if (!m || tph_prepredicate(s, t) != TPH_PASS)
		return TPH_DECLINED;
	uint32_t k = filter(c, t, c->nodes, m);
	tph_idx best = k ? alloc_best_node(&c->ac, t, c->ac.feas, k) : TPH_NOIDX;
	if (best == TPH_NOIDX || !tph_fits(s, t, best, true))
		return TPH_DECLINED;
	int rc = tph_stmt_pipeline(st, t, best);
	return rc == TPH_ENOMEM ? rc : rc ? TPH_DECLINED : TPH_OK;
}

/* runSimulateTrialAtHyperNode: every task of subjob k pipelined under hn; *ok: tr holds them
 * and the subjob is ready or pipelined. */
static int trial(gev_ctx *c, tph_idx k, tph_idx hn, tph_statement *tr, bool *ok)
{
	tph_session *s = c->s;
	ahn_ws *w = c->ws;
	const tph_idx *nodes;
	uint32_t n = tph_hn_nodes(&s->topo->t, hn, &nodes);
	int rc = TPH_OK;
	*ok = false;
	tph_stmt_init(tr, s);
	if (!n)
		return TPH_OK;
	tph_fit_cache_pass(&c->cache); /* a new PredicateHelper */
	for (uint32_t p = w->st[AHN_TRY].cur[k - w->first]; p < ahn_end(w, k) && !rc; p++)
		rc = trial_task(c, w->task[p], nodes, n, tr);
	*ok =
	    !rc && tr->n && (tph_subjob_ready(s, c->job, k) || tph_subjob_pipelined(s, c->job, k));
	if (!*ok)
		tph_stmt_discard(tr);
	return rc == TPH_DECLINED ? TPH_OK : rc;
}

/* The subjob's hypernode: the first of its eviction gradient under hn that takes it (hard
 * topology), else hn. *won: TPH_NOIDX when none did. */
static int place_subjob(gev_ctx *c, tph_idx k, tph_idx hn, tph_statement *chain, tph_idx *won)
{
	tph_session *s = c->s;
	tph_hn_gradient *g = &c->gs;
	tph_statement tr;
	bool ok = false;
	*won = TPH_NOIDX;
	if (tph_topo_job_contains_hard(s, c->job))
		tph_hn_gradient_for_subjob(s, k, hn, TPH_PURPOSE_EVICT, g);
	else
		tph_hn_gradient_single(g, hn);
	for (uint32_t i = 0; i < g->n && !ok; i++) {
		int rc = trial(c, k, g->hn[i], &tr, &ok);
		if (rc)
			return rc;
		if (ok)
			*won = g->hn[i];
	}
	return ok ? tph_stmt_merge(chain, &tr) : TPH_OK;
}

static int evict_all(gev_ctx *c, const tph_idx *victims, uint32_t n, tph_statement *chain)
{
	for (uint32_t i = 0; i < n; i++) {
		int rc = tph_stmt_evict(chain, victims[i], c->reason);
		if (rc == TPH_ENOMEM)
			return rc; /* a refused eviction is left out, as Volcano logs and goes on */
	}
	return TPH_OK;
}

int gev_plan(gev_ctx *c, tph_idx hn, const tph_idx *victims, uint32_t n, tph_statement *st,
             bool *ok)
{
	tph_session *s = c->s;
	ahn_ws *w = c->ws;
	ahn_state *ws = &w->st[AHN_TRY];
	tph_statement chain;
	bool was_ready = tph_job_ready(s, c->job), pipelined = false;
	*ok = false;
	if (!tph_hn_node_count(&s->topo->t, hn) || !w->st[AHN_MAIN].q.n)
		return TPH_OK;
	tph_stmt_init(&chain, s);
	ahn_state_copy(w, ws, &w->st[AHN_MAIN]);
	c->n_nom = 0;
	int rc = evict_all(c, victims, n, &chain);
	tph_idx k, won = TPH_NOIDX;
	while (!rc && (k = tph_pq_pop(&ws->q)) != TPH_NOIDX) {
		if (ws->cur[k - w->first] == ahn_end(w, k))
			continue;
		if ((rc = place_subjob(c, k, hn, &chain, &won)) || won == TPH_NOIDX)
			break;
		c->nom[c->n_nom++] = (gev_nom){k, won};
		pipelined = tph_job_pipelined(s, c->job);
		if (was_ready || pipelined)
			break;
	}
	if (rc || won == TPH_NOIDX || !pipelined) {
		tph_stmt_discard(&chain);
		c->n_nom = 0;
		return rc;
	}
	*ok = true;
	return tph_stmt_merge(st, &chain);
}

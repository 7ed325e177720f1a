/* Volcano's topologyAwarePreempt: a dry run (SelectVictimsOnNode) over the candidate nodes finds
 * the smallest victim set per node with the plugins' simulations, SelectCandidate picks one
 * node, and the victims are evicted and the preemptor pipelined there.
 * Volcano starts the dry run at a random node and runs it on parallel workers, so which
 * candidates it finds first is not determined; tephra walks the nodes in order from the first
 * and stops at the same count, which is one of Volcano's possible outcomes. */
#include "preempt.h"

#include "session/ep.h"

/* calculateNumCandidates. */
static int64_t num_candidates(const tph_preempt_opts *o, uint32_t n)
{
	int64_t k = (int64_t)n * o->min_pct / 100;
	if (k < o->min_abs)
		k = o->min_abs;
	if (k > o->max_abs)
		k = o->max_abs;
	return k > (int64_t)n ? (int64_t)n : k;
}

typedef struct dry {
	tph_preempt_ctx *c;
	tph_idx p, node, queue;
	int64_t fi[TPH_RES_MAX]; /* the node's FutureIdle with the removed tasks given back */
	bool ok;                 /* no simulation failed */
} dry;

/* The preemptor would fit: SimulateAllocatable, FutureIdle, SimulatePredicate. */
static bool sim_fits(const dry *d)
{
	const tph_session *s = d->c->ev.s;
	return tph_sim_allocatable(s, d->queue, d->p) && tph_req_fits(s, d->p, d->fi) &&
	       tph_sim_predicate(s, d->p, d->node) == TPH_PASS;
}

static void sim_remove(dry *d, const tph_idx *pot, uint32_t i)
{
	tph_session *s = d->c->ev.s;
	if (tph_sim_remove_task(s, d->p, pot[i], d->node) != TPH_OK) {
		d->ok = false;
		return;
	}
	tph_vec_add_task(s, pot[i], +1, d->fi);
	d->c->removed[i] = 1;
}

static void sim_add(dry *d, const tph_idx *pot, uint32_t i)
{
	tph_session *s = d->c->ev.s;
	if (tph_sim_add_task(s, d->p, pot[i], d->node) != TPH_OK) {
		d->ok = false;
		return;
	}
	tph_vec_add_task(s, pot[i], -1, d->fi);
	d->c->removed[i] = 0;
}

/* Pop victims in victim order, removing each, until the preemptor would fit. */
static uint32_t remove_until_fits(dry *d, tph_idx *pot, uint32_t nv)
{
	tph_evict_ctx *ev = &d->c->ev;
	tph_victim_order vo = {ev->s, d->p};
	tph_pq h;
	tph_victims_queue(&h, &vo, ev->victims, nv, ev->vheap);
	uint32_t np = 0;
	while (h.n && d->ok) {
		pot[np] = tph_pq_pop(&h);
		d->c->removed[np] = 0;
		sim_remove(d, pot, np++);
		if (d->ok && sim_fits(d))
			break;
	}
	return np;
}

/* Give back potential victims, highest ordered first, while the preemptor still fits; the
 * ones that cannot be given back are the victims, written to out in that order. */
static uint32_t reprieve(dry *d, const tph_idx *pot, uint32_t np, tph_idx *out)
{
	uint32_t k = 0;
	for (uint32_t i = np; i-- > 0 && d->ok;) {
		sim_add(d, pot, i);
		if (!d->ok)
			break;
		if (sim_fits(d))
			continue;
		sim_remove(d, pot, i);
		out[k++] = pot[i];
	}
	return k;
}

/* SelectVictimsOnNode. Adds a candidate when a non-empty victim set makes the preemptor fit;
 * the plugins' simulation state is restored before returning. */
static void select_victims(tph_preempt_ctx *c, tph_idx p, tph_preempt_scope scope, tph_idx node)
{
	tph_session *s = c->ev.s;
	uint32_t nc = tph_preemptees(&c->ev, p, scope, node, c->ev.cands);
	uint32_t nv = tph_preemptable(s, p, c->ev.cands, nc, c->ev.victims);
	if (!tph_validate_victims(s, p, node, c->ev.victims, nv))
		return;
	dry d = {c, p, node, tph_task_queue(s, p), {0}, true};
	tph_future_idle(s, node, d.fi);
	tph_idx *pot = c->ev.cands;
	uint32_t np = remove_until_fits(&d, pot, nv);
	bool fits = d.ok && np && tph_sim_predicate(s, p, node) == TPH_PASS;
	tph_idx *out = c->cand_vict + c->cand_off[c->n_cand];
	uint32_t k = fits ? reprieve(&d, pot, np, out) : 0;
	for (uint32_t i = np; i-- > 0;)
		if (c->removed[i])
			tph_sim_add_task(s, p, pot[i], node);
	if (!d.ok || !k)
		return;
	c->cand_node[c->n_cand++] = node;
	c->cand_off[c->n_cand] = c->cand_off[c->n_cand - 1] + k;
}

/* pickOneNodeForPreemption's criteria as scores, higher wins. Start times are not in the
 * snapshot (Volcano reads time.Now() for pods without one), so the fourth criterion ties. */
static int64_t candidate_score(const tph_preempt_ctx *c, uint32_t k, int f)
{
	const int32_t *prio = c->ev.s->tasks.priority;
	const tph_idx *v = c->cand_vict + c->cand_off[k];
	uint32_t n = c->cand_off[k + 1] - c->cand_off[k];
	if (f == 0)
		return -(int64_t)prio[v[0]];
	if (f == 2)
		return -(int64_t)n;
	int64_t sum = 0;
	for (uint32_t i = 0; i < n; i++)
		sum += (int64_t)prio[v[i]] + ((int64_t)INT32_MAX + 1);
	return -sum;
}

/* SelectCandidate: keep the best under each criterion in turn; the first left wins. */
static uint32_t select_candidate(tph_preempt_ctx *c)
{
	uint32_t *keep = (uint32_t *)c->ev.eval, n = c->n_cand;
	for (uint32_t k = 0; k < n; k++)
		keep[k] = k;
	for (int f = 0; f < 3 && n > 1; f++) {
		int64_t best = INT64_MIN;
		uint32_t m = 0;
		for (uint32_t i = 0; i < n; i++) {
			int64_t sc = candidate_score(c, keep[i], f);
			if (sc > best) {
				best = sc;
				m = 0;
			}
			if (sc == best)
				keep[m++] = keep[i];
		}
		n = m;
	}
	return keep[0];
}

/* prepareCandidate and the pipeline, in a statement of their own. */
static bool apply_candidate(tph_preempt_ctx *c, tph_statement *stmt, tph_idx p, uint32_t k)
{
	tph_session *s = c->ev.s;
	tph_statement ts;
	tph_stmt_init(&ts, s);
	for (uint32_t i = c->cand_off[k]; i < c->cand_off[k + 1]; i++)
		tph_evict_fail(&c->ev, tph_stmt_evict(&ts, c->cand_vict[i], "preempt"));
	int rc = tph_stmt_pipeline(&ts, p, c->cand_node[k]);
	if (rc == TPH_OK && (rc = tph_stmt_merge(stmt, &ts)) == TPH_OK)
		return true;
	tph_evict_fail(&c->ev, rc);
	tph_stmt_discard(&ts);
	return false;
}

bool tph_preempt_topology(tph_preempt_ctx *c, tph_statement *stmt, tph_idx preemptor,
                          tph_preempt_scope scope, const tph_idx *nodes, uint32_t n)
{
	if (!n)
		return false;
	int64_t want = num_candidates(&c->o, n);
	c->n_cand = 0;
	c->cand_off[0] = 0;
	for (uint32_t i = 0; i < n && c->n_cand < want; i++)
		select_victims(c, preemptor, scope, nodes[i]);
	if (!c->n_cand)
		return false;
	return apply_candidate(c, stmt, preemptor, select_candidate(c));
}

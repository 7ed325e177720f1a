/* Gang preempt and reclaim, the loops (Volcano's gangpreempt/gangreclaim Execute and
 * preemptJobInDomains / reclaimJobInDomains): queues in QueueOrder, each queue's starving
 * jobs in JobOrder; per job, its candidate domains and, per domain, bundles added until the
 * domain can hold the job, each step tried as a plan. */
#include "gang_evict.h"

#include "evict_util.h"

#include "load/conf_int.h"
#include "base/mem.h"

#include <stddef.h>
#include <string.h>

const tph_arg_spec gev_arg_spec[] = {
    {"maxDomains", TPH_ARG_INT, "8", 0, 0, offsetof(gev_opts, max_domains),
     "candidate hypernode domains per starving job (<= 0: 8)"},
    {"allowWholeBundle", TPH_ARG_BOOL, "true", 0, 0, offsetof(gev_opts, allow_whole),
     "whole-job victim bundles may be chosen"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* ---- the context ---- */

/* Tasks Bound or Running per ready node (what NodeInfo.Tasks offers the victim filters). */
static int node_tasks(gev_ctx *c)
{
	return tph_node_tasks_csr(c->s, &c->node_off, &c->node_task, NULL);
}

static int uid_cmp(const void *ctx, uint32_t a, uint32_t b)
{
	const tph_session *s = ctx;
	return strcmp(tph_strtab_str(s->snap->strs, s->tasks.uid[a]),
	              tph_strtab_str(s->snap->strs, s->tasks.uid[b]));
}

/* Per task its rank in uid order, per job its tasks' summed requests: fixed for the action. */
static int statics(gev_ctx *c)
{
	tph_session *s = c->s;
	uint32_t nt = s->tasks.n;
	tph_idx *ix = TPH_ACT_NEW(s, tph_idx, nt + 1);
	tph_idx *tmp = TPH_ACT_NEW(s, tph_idx, nt + 1);
	c->uid_rank = TPH_ACT_NEW(s, uint32_t, nt + 1);
	c->job_req = TPH_ACT_NEW(s, int64_t, (size_t)s->jobs->n * s->ndim + 1);
	c->job_ok = TPH_ACT_NEW(s, uint8_t, s->jobs->n + 1);
	if (!ix || !tmp || !c->uid_rank || !c->job_req || !c->job_ok)
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < s->jobs->n; j++)
		c->job_ok[j] = gev_job_evictable(s, j);
	for (uint32_t i = 0; i < nt; i++)
		ix[i] = i;
	gev_msort(ix, tmp, nt, uid_cmp, s);
	for (uint32_t i = 0; i < nt; i++)
		c->uid_rank[ix[i]] = i;
	for (tph_idx t = 0; t < nt; t++) {
		tph_idx j = s->tasks.job[t];
		for (uint32_t d = 0; j != TPH_NOIDX && d < s->ndim; d++)
			c->job_req[(size_t)j * s->ndim + d] +=
			    s->tasks.req[(size_t)t * s->ndim + d];
	}
	return TPH_OK;
}

/* Scratch for one turn, sized for the session (arena). */
static int scratch(gev_ctx *c)
{
	tph_session *s = c->s;
	uint32_t nt = s->tasks.n + 1, nn = s->nodes.n + 1;
	c->ac.s = s;
	c->ac.grouped = TPH_ACT_NEW(s, tph_idx, nn);
	c->ac.grp = TPH_ACT_NEW(s, uint8_t, nn);
	c->ac.scores = TPH_ACT_NEW(s, double, nn);
	c->ac.feas = TPH_ACT_NEW(s, tph_idx, nn);
	c->nodes = TPH_ACT_NEW(s, tph_idx, nn);
	c->skip = TPH_ACT_NEW(s, uint32_t, nn);
	c->dom = TPH_ACT_NEW(s, tph_idx, s->topo->t.n + 1);
	c->pending = TPH_ACT_NEW(s, tph_idx, nt);
	c->cand = TPH_ACT_NEW(s, tph_idx, nt);
	c->flat = TPH_ACT_NEW(s, tph_idx, nt);
	c->sel = TPH_ACT_NEW(s, tph_idx, nt);
	c->bt = TPH_ACT_NEW(s, tph_idx, nt);
	c->allowed = TPH_ACT_NEW(s, uint8_t, nt);
	c->b = TPH_ACT_NEW(s, gev_bundle, nt);
	c->b2 = TPH_ACT_NEW(s, gev_bundle, nt);
	c->need = TPH_ACT_NEW(s, int64_t, s->ndim + 1);
	c->nom = TPH_ACT_NEW(s, gev_nom, tph_subjobs_of(s)->n + 1);
	bool ok = c->ac.grouped && c->ac.grp && c->ac.scores && c->ac.feas && c->nodes && c->skip &&
	          c->dom && c->pending && c->cand && c->flat && c->sel && c->bt && c->allowed &&
	          c->b && c->b2 && c->need && c->nom;
	if (!ok || tph_hn_gradient_init(s, &c->g) || tph_hn_gradient_init(s, &c->gs))
		return TPH_ENOMEM;
	return TPH_OK;
}

static int ctx_open(gev_ctx *c, tph_session *s, const tph_args *args, gev_kind k)
{
	const char *name = k == GEV_PREEMPT ? "gangpreempt" : "gangreclaim";
	const tph_conf_action_args *alloc = tph_conf_find_action_args(s->conf, "allocate");
	*c = (gev_ctx){.s = s, .kind = k, .reason = name};
	tph_args_apply(args, gev_arg_spec, &c->o, s->diag, name);
	if (c->o.max_domains <= 0) {
		tph_diag_warn(s->diag, "%s: maxDomains %lld is not positive; using 8", name,
		              (long long)c->o.max_domains);
		c->o.max_domains = 8;
	}
	/* the dry run honours allocate's predicateErrorCacheEnable (and sampling knobs) */
	tph_ph_opts_read(s, alloc ? &alloc->args : NULL, "allocate", &c->ph);
	tph_fit_cache_init(&c->cache, s, c->ph.error_cache, false);
	int rc = scratch(c);
	if (!rc)
		rc = node_tasks(c);
	return rc ? rc : statics(c);
}

/* ---- one job ---- */

/* GetCandidateDomains: the job's eviction gradient from the cluster top, flattened, at most
 * maxDomains; the top itself for a job without hard topology when the gradient is empty. */
static uint32_t domains(gev_ctx *c, tph_idx *out)
{
	tph_session *s = c->s;
	tph_idx top = s->topo->t.top;
	uint32_t n = 0;
	tph_hn_gradient_for_job(s, c->job, top, TPH_PURPOSE_EVICT, &c->g);
	for (uint32_t i = 0; i < c->g.n && n < (uint64_t)c->o.max_domains; i++) {
		uint32_t k = 0;
		while (k < n && out[k] != c->g.hn[i])
			k++;
		if (k == n)
			out[n++] = c->g.hn[i];
	}
	if (!n && !tph_topo_job_contains_hard(s, c->job))
		out[n++] = top;
	return n;
}

bool gev_need_fits(const tph_session *s, const int64_t *need, const int64_t *avail)
{
	for (uint32_t d = 0; d < s->ndim; d++)
		if (d != TPH_RES_PODS && (d <= TPH_RES_MEMORY || need[d] > 0) && need[d] > avail[d])
			return false;
	return true;
}

static void add_req(const tph_session *s, tph_idx t, int64_t *row)
{
	const int64_t *r = s->tasks.req + (size_t)t * s->ndim;
	for (uint32_t d = 0; d < s->ndim; d++)
		row[d] += d == TPH_RES_PODS ? 0 : r[d];
}

/* One domain: bundles in order, the plan tried each time the victims so far make room. */
static int in_domain(gev_ctx *c, tph_idx hn, tph_statement *st, bool *ok)
{
	tph_session *s = c->s;
	const tph_idx *nodes;
	uint32_t n = tph_hn_nodes(&s->topo->t, hn, &nodes);
	int64_t avail[TPH_RES_MAX] = {0};
	if (!n)
		return TPH_OK;
	for (uint32_t i = 0; i < n; i++) /* SumIdleAndReleasing */
		for (uint32_t d = 0; d < s->ndim; d++) {
			size_t at = (size_t)d * s->nodes.stride + nodes[i];
			avail[d] += s->nodes.idle[at] + s->nodes.releasing[at];
		}
	int rc = gev_bundles(c, hn, avail);
	if (rc || !c->nb)
		return rc;
	c->n_sel = 0;
	for (uint32_t b = 0; b < c->nb && !*ok; b++) {
		for (uint32_t i = 0; i < c->b[b].nt; i++) {
			c->sel[c->n_sel++] = c->bt[c->b[b].t0 + i];
			add_req(s, c->bt[c->b[b].t0 + i], avail);
		}
		if (gev_need_fits(s, c->need, avail) &&
		    (rc = gev_plan(c, hn, c->sel, c->n_sel, st, ok)))
			return rc;
	}
	return TPH_OK;
}

/* preemptJobInDomains / reclaimJobInDomains. */
static int in_domains(gev_ctx *c, tph_statement *st)
{
	tph_session *s = c->s;
	int rc = gev_pending(c);
	if (rc || !c->n_pending)
		return rc;
	if (c->kind == GEV_RECLAIM) {
		s->eviction = (tph_eviction){.tasks = c->pending, .n_tasks = c->n_pending};
		bool may = tph_preemptive(s, c->queue, TPH_NOIDX);
		s->eviction = (tph_eviction){0};
		if (!may)
			return TPH_OK;
	}
	memset(c->need, 0, s->ndim * sizeof *c->need);
	for (uint32_t i = 0; i < c->n_pending; i++)
		add_req(s, c->pending[i], c->need);
	uint32_t nd = domains(c, c->dom);
	bool ok = false;
	for (uint32_t i = 0; i < nd && !ok && !rc; i++)
		rc = in_domain(c, c->dom[i], st, &ok);
	return rc;
}

static int turn(gev_ctx *c, tph_idx q, tph_idx j)
{
	tph_session *s = c->s;
	tph_statement st;
	tph_stmt_init(&st, s);
	c->job = j;
	c->queue = q;
	c->n_nom = 0;
	int rc = ahn_ws_build(s, j, &c->ws);
	if (!rc)
		rc = in_domains(c, &st);
	if (rc || !tph_job_pipelined(s, j)) {
		tph_stmt_discard(&st);
		return rc;
	}
	rc = tph_stmt_commit(&st);
	for (uint32_t i = 0; i < c->n_nom; i++) /* ApplySubJobNominations */
		s->topo->sj.nominated[c->nom[i].sj] = c->nom[i].hn;
	return rc;
}

/* ---- the queue and job loops ---- */

typedef struct gev_loop {
	tph_pq queues, *jobs;
	tph_idx *qbuf, *jbuf, *first; /* first: queues in the order a job first names them */
	uint32_t *per_queue, n_first;
	uint8_t *starving;
} gev_loop;

/* Every job that is not Pending and is valid makes its queue a candidate; starving ones
 * become preemptors (two passes: counts, then pushes in job order). */
static int loop_build(gev_ctx *c, gev_loop *l)
{
	tph_session *s = c->s;
	uint32_t nq = s->queues->n, nj = s->jobs->n;
	l->qbuf = TPH_ACT_NEW(s, tph_idx, nq + 1);
	l->jbuf = TPH_ACT_NEW(s, tph_idx, nj + 1);
	l->first = TPH_ACT_NEW(s, tph_idx, nq + 1);
	l->per_queue = TPH_ACT_NEW(s, uint32_t, nq + 1);
	l->jobs = TPH_ACT_NEW(s, tph_pq, nq + 1);
	l->starving = TPH_ACT_NEW(s, uint8_t, nj + 1);
	uint8_t *seen = TPH_ACT_NEW(s, uint8_t, nq + 1);
	if (!l->qbuf || !l->jbuf || !l->first || !l->per_queue || !l->jobs || !l->starving || !seen)
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < nj; j++) {
		tph_idx q = s->jobs->queue[j];
		if (s->js.phase[j] == TPH_PG_PENDING || q == TPH_NOIDX ||
		    tph_job_valid(s, j, NULL) != TPH_OK)
			continue;
		if (!seen[q]) {
			seen[q] = 1;
			l->first[l->n_first++] = q;
		}
		l->starving[j] = tph_job_starving(s, j);
		l->per_queue[q] += l->starving[j];
	}
	tph_pq_init(&l->queues, s, tph_queue_order, l->qbuf, nq);
	for (uint32_t i = 0; i < l->n_first; i++)
		tph_pq_push(&l->queues, l->first[i]);
	tph_idx *jb = l->jbuf;
	for (tph_idx q = 0; q < nq; q++) {
		tph_pq_init(&l->jobs[q], s, tph_job_order, jb, l->per_queue[q]);
		jb += l->per_queue[q];
	}
	for (tph_idx j = 0; j < nj; j++)
		if (l->starving[j])
			tph_pq_push(&l->jobs[s->jobs->queue[j]], j);
	return TPH_OK;
}

int gev_execute(tph_session *s, const tph_args *args, gev_kind k)
{
	gev_ctx c;
	gev_loop l = {0};
	int rc = ctx_open(&c, s, args, k);
	if (!rc)
		rc = loop_build(&c, &l);
	tph_idx q, j;
	while (!rc && (q = tph_pq_pop(&l.queues)) != TPH_NOIDX) {
		if (k == GEV_RECLAIM && tph_overused(s, q))
			continue;
		while (!rc && (j = tph_pq_pop(&l.jobs[q])) != TPH_NOIDX)
			rc = turn(&c, q, j);
	}
	tph_fit_cache_free(&c.cache);
	return rc;
}

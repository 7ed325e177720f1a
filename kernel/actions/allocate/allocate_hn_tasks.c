/* A subjob's tasks inside one hypernode (Volcano's allocateResourcesForTasks with the
 * hypernode's nodes as candidates), the nomination fast path (allocateFromNomination) and
 * the fit-error bookkeeping scoped to a subjob (TaskHasFitErrors, NeedContinueAllocating,
 * ResetSubJobFitErr). */
#include "allocate_fast.h"
#include "allocate_hn.h"
#include "session/fitlog.h"

#include <stdio.h>
#include <string.h>

/* ---- fit errors per subjob ---- */

/* The subjob whose failed roles count for k's tasks: k itself in a job with sub-group
 * policies, else none (the job's). */
static tph_idx roles_scope(const ahn_ws *w, tph_idx k)
{
	return ahn_policy_job(w) ? k : TPH_NOIDX;
}

void ahn_reset_job_fit(ahn_ctx *h, ahn_ws *w)
{
	tph_fitlog_reset_job(h->s, w->job);
}

void ahn_reset_subjob_fit(ahn_ctx *h, ahn_ws *w, tph_idx k)
{
	if (ahn_policy_job(w))
		tph_fitlog_reset_subjob(h->s, k);
	else /* the default subjob holds every task */
		tph_fitlog_reset_job(h->s, w->job);
}

/* JobInfo.NeedContinueAllocating(subJob). */
static bool need_continue(ahn_ctx *h, ahn_ws *w, tph_idx k)
{
	const tph_session *s = h->s;
	const tph_subjobs *o = tph_subjobs_of(s);
	if (!ahn_policy_job(w))
		return alloc_need_continue(h->c, w->job);
	uint32_t job_tasks = s->jobs->task_off[w->job + 1] - s->jobs->task_off[w->job];
	if ((int64_t)s->jobs->min_member[w->job] == job_tasks)
		return false;
	return o->min_available[k] < (int64_t)(o->task_off[k + 1] - o->task_off[k]);
}

/* This path's skip also forgets the task's unresolvable nodes. */
static int record_skip(ahn_ctx *h, tph_idx t)
{
	tph_fitlog_forget(h->s, t, TPH_FIT_NODES);
	return tph_fitlog_skip(h->s, t);
}

/* ---- allocateResourcesForTasks ---- */

enum {
	T_NEXT = 0,
	T_STOP = 1
};

/* The nominated node first when it belongs to hn and its future idle fits, then hn's nodes. */
static uint32_t feasible(ahn_ctx *h, tph_idx t, tph_idx hn, const tph_idx *nodes, uint32_t n)
{
	tph_session *s = h->s;
	alloc_ctx *c = h->c;
	tph_idx nom = s->tasks.nominated[t];
	uint32_t k = 0;
	if (nom != TPH_NOIDX && tph_hn_has_node(&s->topo->t, hn, nom) && tph_fits(s, t, nom, true))
		k = tph_ph_predicate(&c->ph, t, &nom, 1, c->feas, c->codes);
	if (!k)
		k = tph_ph_predicate(&c->ph, t, nodes, n, c->feas, c->codes);
	return k;
}

typedef struct hn_run {
	ahn_ws *w;
	tph_idx k, hn;
	const tph_idx *nodes;
	uint32_t n;
	tph_idx placing; /* the subjob's allocated hypernode as its tasks land */
	tph_statement *st;
	const int64_t *refused; /* the request row Allocatable last refused in this run */
} hn_run;

static int failed(ahn_ctx *h, hn_run *r, tph_idx t, tph_reason_code pre)
{
	if (pre != TPH_PASS)
		for (uint32_t i = 0; i < r->n; i++)
			h->c->codes[i] = pre;
	int rc = tph_fitlog_nodes(h->s, t, r->nodes, h->c->codes, r->n);
	if (rc)
		return rc;
	return need_continue(h, r->w, r->k) ? T_NEXT : T_STOP;
}

/* The node for t among hn's nodes: from its shape when it qualifies (allocate_fast.h), else
 * by filtering and prioritizeNodes. AF_NODE with *best (TPH_NOIDX: no score won) once the
 * task's JobAllocatedHyperNode is `placing` (set before scoring, as Volcano does), or AF_NONE
 * with the verdicts of r->nodes in c->codes. */
static int choose(ahn_ctx *h, hn_run *r, tph_idx t, tph_idx *best)
{
	alloc_ctx *c = h->c;
	tph_topo *tp = h->s->topo;
	bool mark = tp->sj.topo_has[r->k];
	tph_idx was = tp->task_job_hn[t];
	if (mark)
		tp->task_job_hn[t] = r->placing;
	int rc = c->fast ? alloc_fast_pick_among(c->fast, t, r->nodes, r->n, best, c->codes)
	                 : TPH_DECLINED;
	if (rc == AF_NODE)
		return rc;
	tp->task_job_hn[t] = was;
	if (rc != TPH_DECLINED)
		return rc;
	uint32_t n = feasible(h, t, r->hn, r->nodes, r->n);
	if (!n)
		return AF_NONE;
	if (mark)
		tp->task_job_hn[t] = r->placing;
	*best = alloc_best_node(c, t, c->feas, n);
	return AF_NODE;
}

static bool one_row(ahn_ws *w)
{
	const tph_session *s = w->s;
	uint32_t n = w->off[w->n_sj];
	if (!w->rows) {
		const int64_t *first = s->tasks.req + (size_t)w->task[0] * s->ndim;
		w->rows = 1;
		for (uint32_t i = 1; i < n && w->rows == 1; i++)
			if (memcmp(first, s->tasks.req + (size_t)w->task[i] * s->ndim,
			           s->ndim * sizeof *first))
				w->rows = 2;
	}
	return w->rows == 1;
}

/* A refusal under TPH_ALLOC_QUEUE caps every run of the search (allocate_hn_job.c skips
 * those that need more). Where every task of the worksheet asks for one row, the queue's
 * state is the search's start plus that row once per task the run placed, so any run that
 * places as many meets the same state and is refused its next task: the cap is the count;
 * else it is bounded by the rows placed (ahn_refused_cap). */
static void queue_capped(ahn_ctx *h, ahn_ws *w, const int64_t *row)
{
	int64_t cap = one_row(w) ? ahn_job_have(h, w->job) - h->have0 : ahn_refused_cap(h, w, row);
	if (cap < h->q_cap)
		h->q_cap = cap;
}

/* Allocatable for t. A run only adds to its queue (every task it places is the job's), and
 * under TPH_ALLOC_QUEUE a queue that refused a request row refuses it still with more
 * allocated (a yes there would be a yes once the additions are taken away), so a task of the
 * row last refused is refused without asking. */
static bool allocatable(ahn_ctx *h, hn_run *r, tph_idx t)
{
	const tph_session *s = h->s;
	const int64_t *row = s->tasks.req + (size_t)t * s->ndim;
	if (r->refused && !memcmp(r->refused, row, s->ndim * sizeof *row))
		return false;
	if (tph_allocatable(s, s->jobs->queue[r->w->job], t))
		return true;
	if (h->refusal_stands) {
		r->refused = row;
		queue_capped(h, r->w, row);
	}
	return false;
}

static int one_task(ahn_ctx *h, hn_run *r, tph_idx t)
{
	tph_session *s = h->s;
	tph_topo *tp = s->topo;
	tph_idx j = r->w->job;
	if (!allocatable(h, r, t)) {
		tph_jobwhy_note(s, j, TPH_NOTE_QUEUE);
		return T_NEXT;
	}
	if (tph_fitlog_role_failed(s, t, roles_scope(r->w, r->k)))
		return record_skip(h, t);
	tph_reason_code pre = tph_prepredicate(s, t);
	if (pre != TPH_PASS)
		return failed(h, r, t, pre);
	tph_idx best;
	int rc = choose(h, r, t, &best);
	if (rc == AF_NONE)
		return failed(h, r, t, TPH_PASS);
	if (best == TPH_NOIDX)
		return T_NEXT;
	rc = alloc_place(h->c, r->st, t, best);
	if (rc == TPH_ENOMEM)
		return rc;
	if (rc < 0)
		return T_NEXT;
	if (tp->sj.topo_has[r->k])
		r->placing = tph_hn_extend(&tp->t, r->placing, best);
	return tph_subjob_ready(s, j, r->k) ? T_STOP : T_NEXT;
}

int ahn_tasks_in_hn(ahn_ctx *h, ahn_ws *w, tph_idx k, uint32_t *cur, tph_idx hn, tph_statement *st,
                    bool *ok)
{
	tph_session *s = h->s;
	hn_run r = {.w = w, .k = k, .hn = hn, .placing = s->topo->sj.hn[k], .st = st};
	ahn_mark m = ahn_mark_now(h);
	tph_stmt_init(st, s);
	*ok = false;
	r.n = tph_hn_nodes(&s->topo->t, hn, &r.nodes);
	if (!r.n)
		return TPH_OK;
	tph_ph_reset(&h->c->ph);
	uint32_t end = ahn_end(w, k);
	int rc = T_NEXT;
	while (rc == T_NEXT && *cur < end)
		rc = one_task(h, &r, w->task[(*cur)++]);
	if (rc < 0) {
		ahn_discard(h, st);
		return rc;
	}
	*ok = tph_subjob_ready(s, w->job, k) || tph_subjob_pipelined(s, w->job, k);
	if (!*ok)
		ahn_undo(h, st, &m);
	return TPH_OK;
}

/* ---- allocateFromNomination ---- */

static void invalidate(ahn_ctx *h, ahn_ws *w, const ahn_state *ws, tph_idx k)
{
	tph_session *s = h->s;
	s->topo->sj.nominated[k] = TPH_NOIDX;
	for (uint32_t p = ws->cur[k - w->first]; p < ahn_end(w, k); p++)
		s->tasks.nominated[w->task[p]] = TPH_NOIDX;
}

/* validateNomination: every pending task has a nominated node under the pinned hypernode
 * that passes PrePredicate and Predicate (each checked against the current state). */
static bool validate(ahn_ctx *h, ahn_ws *w, const ahn_state *ws, tph_idx k, tph_idx pinned)
{
	tph_session *s = h->s;
	alloc_ctx *c = h->c;
	tph_ph_reset(&c->ph);
	for (uint32_t p = ws->cur[k - w->first]; p < ahn_end(w, k); p++) {
		tph_idx t = w->task[p], nom = s->tasks.nominated[t];
		if (!tph_allocatable(s, s->jobs->queue[w->job], t) || nom == TPH_NOIDX ||
		    !tph_hn_has_node(&s->topo->t, pinned, nom) ||
		    !(s->nodes.flags[nom] & TPH_NODE_READY) || tph_prepredicate(s, t) != TPH_PASS ||
		    !tph_ph_predicate(&c->ph, t, &nom, 1, c->feas, c->codes))
			return false;
	}
	return true;
}

static int place_nominated(ahn_ctx *h, ahn_ws *w, const ahn_state *ws, tph_idx k, tph_idx pinned,
                           tph_statement *st)
{
	tph_session *s = h->s;
	for (uint32_t p = ws->cur[k - w->first]; p < ahn_end(w, k); p++) {
		tph_idx t = w->task[p];
		if (s->topo->sj.topo_has[k])
			s->topo->task_job_hn[t] = pinned;
		int rc = alloc_place(h->c, st, t, s->tasks.nominated[t]);
		if (rc && rc != TPH_DECLINED)
			return rc;
	}
	return TPH_OK;
}

int ahn_from_nomination(ahn_ctx *h, ahn_ws *w, ahn_state *ws, tph_idx k, tph_idx hn_for_job,
                        tph_statement *out, bool *ok)
{
	tph_session *s = h->s;
	tph_topo *tp = s->topo;
	tph_idx pinned = tp->sj.nominated[k];
	*ok = false;
	if (!tph_hn_node_count(&tp->t, pinned) || !validate(h, w, ws, k, pinned)) {
		invalidate(h, w, ws, k);
		return TPH_OK;
	}
	tph_statement st;
	tph_stmt_init(&st, s);
	int rc = place_nominated(h, w, ws, k, pinned, &st);
	if (rc) {
		ahn_discard(h, &st);
		invalidate(h, w, ws, k);
		return rc == TPH_ENOMEM ? rc : TPH_OK;
	}
	ws->cur[k - w->first] = ahn_end(w, k);
	tp->sj.hn[k] = tph_hn_lca(&tp->t, tp->sj.hn[k], pinned);
	*ok = true;
	rc = ahn_dec_save(h, hn_for_job, k, tp->sj.hn[k]);
	return rc ? rc : tph_stmt_merge(out, &st);
}

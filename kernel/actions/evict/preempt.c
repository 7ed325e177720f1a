/* The preempt action (Volcano's actions/preempt): starving jobs evict lower-ordered work of
 * their own queue, queue by queue, then each such job's pending tasks evict inside the job.
 * This file holds the loops and the per-preemptor checks; the node search is in
 * preempt_normal.c or preempt_topology.c. */
#include "preempt.h"

#include "common/action_util.h"
#include "session/ep.h"
#include "session/ep_predicate.h"

#include <stddef.h>

static const tph_arg_spec preempt_args[] = {
    {"enableTopologyAwarePreemption", TPH_ARG_BOOL, "false", 0, 0,
     offsetof(tph_preempt_opts, topology_aware), "dry-run victims per node, then pick a node"},
    {"topologyAwarePreemptWorkerNum", TPH_ARG_INT, "16", 0, 0, offsetof(tph_preempt_opts, workers),
     "dry-run workers (the dry run is serial here)"},
    {"minCandidateNodesPercentage", TPH_ARG_INT, "10", 0, 0, offsetof(tph_preempt_opts, min_pct),
     "candidate nodes to find, percent of the nodes"},
    {"minCandidateNodesAbsolute", TPH_ARG_INT, "1", 0, 0, offsetof(tph_preempt_opts, min_abs),
     "at least this many candidate nodes"},
    {"maxCandidateNodesAbsolute", TPH_ARG_INT, "100", 0, 0, offsetof(tph_preempt_opts, max_abs),
     "at most this many candidate nodes"},
    /* The predicate error cache and node sampling keys, read through action_util. */
    {"", 0, NULL, 0, 0, TPH_ARG_NOFIELD, NULL, tph_ph_arg_spec},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

bool tph_preempt_filter(const tph_session *s, tph_idx preemptor, tph_idx task,
                        tph_preempt_scope scope)
{
	uint8_t st = s->tasks.status[task];
	const uint8_t *fl = s->tasks.flags;
	if (st != TPH_TS_BOUND && st != TPH_TS_RUNNING)
		return false;
	if ((fl[preemptor] & TPH_TASK_BEST_EFFORT) && !(fl[task] & TPH_TASK_BEST_EFFORT))
		return false;
	if (!(fl[task] & TPH_TASK_PREEMPTABLE))
		return false;
	tph_idx pj = s->tasks.job[preemptor], tj = s->tasks.job[task];
	if (scope == TPH_PREEMPT_SAME_JOB)
		return tj == pj;
	return tj != TPH_NOIDX && tj != pj && s->jobs->queue[tj] == s->jobs->queue[pj];
}

uint32_t tph_preemptees(const tph_evict_ctx *c, tph_idx preemptor, tph_preempt_scope scope,
                        tph_idx node, tph_idx *out)
{
	uint32_t n, k = 0;
	const tph_idx *on = tph_evict_on_node(c, node, &n);
	for (uint32_t i = 0; i < n; i++)
		if (tph_preempt_filter(c->s, preemptor, on[i], scope))
			out[k++] = on[i];
	return k;
}

/* The bounds normal_fast applies (preempt_skip.c), for the kept candidates. */
static void cands_bound(void *arg, tph_idx p, uint32_t scope, const tph_idx *nodes, uint32_t n,
                        uint8_t *live)
{
	tph_preempt_bounds_many(arg, p, (tph_preempt_scope)scope, nodes, n, live);
}

int tph_preempt_scratch(tph_preempt_ctx *c)
{
	tph_session *s = c->ev.s;
	uint32_t nn = s->nodes.n + 1;
	c->scores = TPH_ACT_NEW(s, double, nn);
	c->order = TPH_ACT_NEW(s, tph_scored, nn);
	c->removed = TPH_ACT_NEW(s, uint8_t, c->ev.max_on_node + 1);
	c->cand_node = TPH_ACT_NEW(s, tph_idx, nn);
	c->cand_off = TPH_ACT_NEW(s, uint32_t, nn + 1);
	c->cand_vict = TPH_ACT_NEW(s, tph_idx, c->ev.node_off[s->nodes.n] + 1);
	c->qrel = TPH_ACT_NEW(s, int64_t, (size_t)nn * s->ndim);
	c->qrel_of = TPH_NOIDX;
	c->qmask = TPH_ACT_NEW(s, uint8_t, s->queues->n + 1);
	c->qoff = TPH_ACT_NEW(s, uint32_t, nn);
	c->qtask = TPH_ACT_NEW(s, tph_idx, c->ev.node_off[s->nodes.n] + 1);
	c->crel = TPH_ACT_NEW(s, int64_t, (size_t)nn * s->ndim);
	c->qrun = TPH_ACT_NEW(s, int64_t, (size_t)nn * s->ndim);
	c->qrun_ver = TPH_ACT_NEW(s, uint32_t, nn);
	c->own = TPH_ACT_NEW(s, uint32_t, nn);
	c->own_of = TPH_NOIDX;
	c->live = TPH_ACT_NEW(s, tph_idx, nn);
	c->live_node = TPH_ACT_NEW(s, tph_idx, nn);
	c->fast = c->ev.fast;
	c->alloc_queue = tph_allocatable_locality(s) == TPH_ALLOC_QUEUE;
	c->failed = TPH_NOIDX;
	c->memo_ok = c->fast && c->alloc_queue && !c->o.topology_aware && !c->ev.ph.sampling &&
	             tph_victims_locality(s, false) == TPH_VICTIM_CLASS && tph_eqc_usable(s);
	bool ok = c->scores && c->order && c->removed && c->cand_node && c->cand_off &&
	          c->cand_vict && c->qrel && c->qmask && c->qoff && c->qtask && c->crel &&
	          c->qrun && c->qrun_ver && c->own && c->live && c->live_node;
	if (!ok || tph_ecands_init(&c->cands, &c->ev, cands_bound, c))
		return TPH_ENOMEM;
	c->cands.on &= !c->o.topology_aware; /* its dry runs log nothing */
	return TPH_OK;
}

/* taskEligibleToPreempt. A nominated node that already fits the task makes it ineligible, as
 * do a nominated node outside the session and (not expressible in a snapshot) a lower-priority
 * pod terminating by preemption there. */
static bool eligible(const tph_session *s, tph_idx p)
{
	if (s->tasks.flags[p] & TPH_TASK_PREEMPT_NEVER)
		return false;
	tph_idx nom = s->tasks.nominated[p];
	if (nom == TPH_NOIDX)
		return true;
	if (!(s->nodes.flags[nom] & TPH_NODE_READY))
		return false;
	return tph_predicate_node(s, p, nom) != TPH_PASS;
}

/* The last failed preemptor, in an unchanged session, was of p's class (tephra/plugin.h's
 * victim locality) and skipped the same nodes as unresolvable: p fails as it did. */
static bool fails_like_last(const tph_preempt_ctx *c, tph_idx p, tph_preempt_scope scope)
{
	const tph_session *s = c->ev.s;
	tph_idx f = c->failed;
	if (!c->memo_ok || f == TPH_NOIDX || c->failed_epoch != c->epoch ||
	    c->failed_scope != scope)
		return false;
	return tph_evict_same_class(s, f, p);
}

static bool try_groups(tph_preempt_ctx *c, tph_statement *stmt, tph_idx p, tph_preempt_scope scope)
{
	/* node-local scores: normal_fast orders and scores the live nodes alone */
	bool local = (tph_score_locality(c->ev.s, p) & ~TPH_SCORE_JOB) == TPH_SCORE_LOCAL;
	uint32_t n0, n = tph_ecands_nodes(&c->cands, &c->ev, p, scope, local, &n0);
	const tph_idx *g[2] = {c->ev.nodes, c->ev.nodes + n0};
	const uint32_t ng[2] = {n0, n - n0};
	for (int i = 0; i < 2 && !c->ev.err; i++) {
		bool ok = c->o.topology_aware ? tph_preempt_topology(c, stmt, p, scope, g[i], ng[i])
		                              : tph_preempt_normal(c, stmt, p, scope, g[i], ng[i]);
		if (ok)
			return true;
	}
	return false;
}

/* Volcano's preempt(): the candidate nodes in shard groups, each group tried in turn. */
static bool preempt_one(tph_preempt_ctx *c, tph_statement *stmt, tph_idx p, tph_preempt_scope scope)
{
	tph_session *s = c->ev.s;
	if (!eligible(s, p) || tph_prepredicate(s, p) != TPH_PASS || fails_like_last(c, p, scope))
		return false;
	c->n_refused = 0; /* what Allocatable refused is this preemptor's */
	c->score_failed = false;
	if (try_groups(c, stmt, p, scope)) {
		c->epoch++;
		return true;
	}
	if (!c->ev.err && !c->score_failed) {
		c->failed = p;
		c->failed_scope = scope;
		c->failed_epoch = c->epoch;
	}
	return false;
}

/* ---- the loops ---- */

typedef struct preempt_run {
	tph_preempt_ctx c;
	tph_pq queues;
	tph_pq *jheap;      /* per queue: its preemptor jobs in job order */
	uint32_t *q_off;    /* per queue: its preemptor jobs q_jobs[q_off[q] .. q_off[q+1]) */
	tph_idx *q_jobs;    /* in job index order (underRequestByQueue) */
	tph_pq *theap;      /* per preemptor job: its pending tasks in task order */
	tph_idx *tbuf;      /* heap buffers: job j's at tbuf + task_off[j] */
	uint8_t *preemptor; /* per job */
} preempt_run;

/* The jobs Volcano's Execute collects: not Pending, valid, starving, no network topology. */
static bool is_preemptor(const tph_session *s, tph_idx j)
{
	if (s->js.phase[j] == TPH_PG_PENDING || tph_job_valid(s, j, NULL) != TPH_OK)
		return false;
	if (!tph_job_starving(s, j) || s->jobs->topo_mode[j] != TPH_TOPO_NONE)
		return false;
	const tph_job_meta *m = s->jobs->meta ? s->jobs->meta[j] : NULL;
	for (uint32_t i = 0; m && i < m->n_subgroups; i++)
		if (m->subgroups[i].topo_mode != TPH_TOPO_NONE)
			return false;
	return true;
}

static int run_alloc(preempt_run *r)
{
	tph_session *s = r->c.ev.s;
	uint32_t nq = s->queues->n, nj = s->jobs->n;
	r->jheap = TPH_ACT_NEW(s, tph_pq, nq + 1);
	r->q_off = TPH_ACT_NEW(s, uint32_t, nq + 2);
	r->q_jobs = TPH_ACT_NEW(s, tph_idx, 2 * (size_t)nj + nq + 1);
	r->theap = TPH_ACT_NEW(s, tph_pq, nj + 1);
	r->tbuf = TPH_ACT_NEW(s, tph_idx, s->tasks.n + 1);
	r->preemptor = TPH_ACT_NEW(s, uint8_t, nj + 1);
	bool ok = r->jheap && r->q_off && r->q_jobs && r->theap && r->tbuf && r->preemptor;
	return ok ? TPH_OK : TPH_ENOMEM;
}

/* preemptorsMap, preemptorTasks, underRequestByQueue and the queue heap. */
static int run_setup(preempt_run *r)
{
	tph_session *s = r->c.ev.s;
	uint32_t nq = s->queues->n, nj = s->jobs->n;
	if (run_alloc(r))
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < nj; j++)
		if ((r->preemptor[j] = is_preemptor(s, j)))
			r->q_off[s->jobs->queue[j] + 2]++;
	for (uint32_t q = 0; q < nq; q++)
		r->q_off[q + 2] += r->q_off[q + 1];
	for (tph_idx j = 0; j < nj; j++)
		if (r->preemptor[j])
			r->q_jobs[r->q_off[s->jobs->queue[j] + 1]++] = j;
	tph_idx *jbuf = r->q_jobs + nj, *qbuf = jbuf + nj;
	tph_pq_init(&r->queues, s, tph_queue_order, qbuf, nq);
	for (tph_idx q = 0; q < nq; q++) {
		uint32_t lo = r->q_off[q], hi = r->q_off[q + 1];
		tph_pq_init(&r->jheap[q], s, tph_job_order, jbuf + lo, hi - lo);
		for (uint32_t i = lo; i < hi; i++) {
			tph_idx j = r->q_jobs[i];
			tph_pq_push(&r->jheap[q], j);
			tph_push_pending(s, j, &r->theap[j], r->tbuf + s->jobs->task_off[j]);
		}
		if (hi > lo)
			tph_pq_push(&r->queues, q);
	}
	return TPH_OK;
}

static void finish(tph_preempt_ctx *c, tph_statement *st, bool commit)
{
	tph_evict_ctx *ev = &c->ev;
	c->epoch++;
	tph_ecands_touch_stmt(&c->cands, st);
	if (commit)
		tph_evict_fail(ev, tph_stmt_commit(st));
	else
		tph_stmt_discard(st);
}

/* Preemption between jobs within the queue: one statement per job, kept when it pipelines. */
static void between_jobs(preempt_run *r, tph_idx q)
{
	tph_session *s = r->c.ev.s;
	for (tph_idx j; !r->c.ev.err && (j = tph_pq_pop(&r->jheap[q])) != TPH_NOIDX;) {
		tph_statement st;
		tph_stmt_init(&st, s);
		while (!r->c.ev.err && tph_job_starving(s, j)) {
			tph_idx t = tph_pq_pop(&r->theap[j]);
			if (t == TPH_NOIDX)
				break;
			preempt_one(&r->c, &st, t, TPH_PREEMPT_OTHER_JOBS);
		}
		finish(&r->c, &st, !r->c.ev.err && tph_job_pipelined(s, j));
	}
}

/* Preemption between tasks within each job: one statement per task, the first failure ends
 * the job. */
static void within_jobs(preempt_run *r, tph_idx q)
{
	tph_session *s = r->c.ev.s;
	for (uint32_t i = r->q_off[q]; i < r->q_off[q + 1] && !r->c.ev.err; i++) {
		tph_idx j = r->q_jobs[i];
		tph_pq h;
		tph_push_pending(s, j, &h, r->tbuf + s->jobs->task_off[j]);
		for (tph_idx t; !r->c.ev.err && (t = tph_pq_pop(&h)) != TPH_NOIDX;) {
			tph_statement st;
			tph_stmt_init(&st, s);
			bool ok = preempt_one(&r->c, &st, t, TPH_PREEMPT_SAME_JOB);
			finish(&r->c, &st, ok && !r->c.ev.err);
			if (!ok)
				break;
		}
	}
}

static int preempt_execute(tph_session *s, const tph_args *args)
{
	preempt_run r = {0};
	tph_ph_opts ph;
	tph_ph_opts_read(s, args, "preempt", &ph);
	tph_args_apply(args, preempt_args, &r.c.o, s->diag, "preempt");
	int rc = tph_evict_open(&r.c.ev, s, &ph, true);
	if (!rc)
		rc = tph_preempt_scratch(&r.c);
	if (!rc)
		rc = run_setup(&r);
	for (tph_idx q; !rc && !r.c.ev.err && (q = tph_pq_pop(&r.queues)) != TPH_NOIDX;) {
		between_jobs(&r, q);
		within_jobs(&r, q);
	}
	tph_evict_close(&r.c.ev);
	return rc ? rc : r.c.ev.err;
}

const tph_action tph_action_preempt = {
    .abi = TPH_PLUGIN_ABI,
    .name = "preempt",
    .args = preempt_args,
    .execute = preempt_execute,
};

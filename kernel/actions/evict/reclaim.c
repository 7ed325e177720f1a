/* The reclaim action (Volcano's actions/reclaim): starving jobs of queues that are not overused
 * take back resources from running, preemptable tasks of other, reclaimable queues. One
 * statement per job, kept when the job pipelines; one statement per node tried, merged into
 * the job's when the reclaimer can be pipelined there. */
#include "evict_util.h"

#include "session/ep.h"

#include <string.h>

typedef struct reclaim_run {
	tph_evict_ctx ev;
	tph_pq queues;
	uint8_t *seen; /* per queue: pushed once at setup */
	tph_pq *jheap; /* per queue: its starving jobs */
	tph_pq *theap; /* per starving job: its pending tasks */
	tph_idx *tbuf; /* job j's task heap at tbuf + task_off[j] */
	/* The last reclaimer that found no node, while nothing changed since (epoch): the next of
	 * its class fails alike when memo_ok (the localities of tephra/plugin.h hold). */
	bool memo_ok;
	int64_t *rel;   /* fast: tph_evict_release_rows over the reclaimable queues */
	uint32_t *roff; /* fast: the tasks rel sums, per node: rtask[roff[n] .. roff[n+1]) */
	tph_idx *rtask;
	/* kept candidates on: per node, ndim + 1 each, what rtask's Running tasks there hold and
	 * their count, summed when the node's tph_ecands_ver was rrun_ver - 1 (0: never) */
	int64_t *rrun;
	uint32_t *rrun_ver;
	uint64_t *rqueues; /* per node: bit q for a queue q < 64 with a task of rtask there */
	tph_idx failed;
	uint32_t epoch, failed_epoch;
	tph_ecands cands; /* evict_cands.c */
} reclaim_run;

/* Running, preemptable tasks on the node whose jobs sit in another, reclaimable queue. Fast
 * mode walks only the preemptable tasks of reclaimable queues (the same order). */
static uint32_t reclaimees(const reclaim_run *r, tph_idx queue, tph_idx node, tph_idx *out)
{
	const tph_evict_ctx *c = &r->ev;
	const tph_session *s = c->s;
	uint32_t n = 0, k = 0;
	const tph_idx *on;
	if (r->rtask) {
		on = r->rtask + r->roff[node];
		n = r->roff[node + 1] - r->roff[node];
	} else {
		on = tph_evict_on_node(c, node, &n);
	}
	for (uint32_t i = 0; i < n; i++) {
		tph_idx t = on[i], j = s->tasks.job[t];
		if (s->tasks.status[t] != TPH_TS_RUNNING ||
		    !(s->tasks.flags[t] & TPH_TASK_PREEMPTABLE))
			continue;
		if (j == TPH_NOIDX || s->jobs->queue[j] == queue)
			continue;
		if (s->queues->reclaimable[s->jobs->queue[j]])
			out[k++] = t;
	}
	return k;
}

/* Evict victims in victim order until the request fits the node's FutureIdle. */
static bool evict_until_fits(tph_evict_ctx *c, tph_statement *ns, tph_idx task, tph_idx node,
                             uint32_t nv)
{
	tph_session *s = c->s;
	tph_victim_order vo = {s, task};
	tph_pq h;
	tph_victims_queue(&h, &vo, c->victims, nv, c->vheap);
	int64_t avail[TPH_RES_MAX];
	tph_future_idle(s, node, avail);
	while (h.n && !tph_req_fits(s, task, avail)) {
		tph_idx v = tph_pq_pop(&h);
		int rc = tph_stmt_evict(ns, v, "reclaim");
		tph_evict_fail(c, rc);
		if (rc == TPH_OK)
			tph_vec_add_task(s, v, +1, avail);
	}
	return tph_req_fits(s, task, avail);
}

/* What rules a node out before Reclaimable runs: c->cands gets the reclaimees, *nc their
 * count. */
static bool may_take(reclaim_run *r, tph_idx task, tph_idx node, uint32_t *nc)
{
	const tph_evict_ctx *c = &r->ev;
	const tph_session *s = c->s;
	int64_t fi[TPH_RES_MAX], up[TPH_RES_MAX];
	const int64_t *kept = tph_ecands_future_idle(&r->cands, s, node, fi); /* for both bounds */
	for (uint32_t d = 0; kept != fi && d < s->ndim; d++)
		fi[d] = kept[d];
	*nc = 0;
	/* Reclaimees are preemptable tasks of reclaimable queues: when all of them would not do,
	 * none of their subsets will. */
	for (uint32_t d = 0; r->rel && d < s->ndim; d++)
		up[d] = fi[d] + r->rel[(size_t)node * s->ndim + d];
	if (r->rel && !tph_req_fits(s, task, up))
		return false;
	*nc = reclaimees(r, tph_task_queue(s, task), node, c->cands);
	if (!*nc || !c->fast)
		return *nc != 0;
	/* Reclaimable keeps a subset: when all of them would not do, its victims will not. */
	for (uint32_t i = 0; i < *nc; i++)
		tph_vec_add_task(s, c->cands[i], +1, fi);
	return tph_req_fits(s, task, fi);
}

/* rrun's row of the node, summed again when the node was touched since. */
static const int64_t *rrun_row(reclaim_run *r, tph_idx node)
{
	const tph_session *s = r->ev.s;
	int64_t *row = r->rrun + (size_t)node * (s->ndim + 1);
	uint32_t ver = tph_ecands_ver(&r->cands, node) + 1;
	if (r->rrun_ver[node] == ver)
		return row;
	memset(row, 0, (s->ndim + 1) * sizeof *row);
	for (uint32_t i = r->roff[node]; i < r->roff[node + 1]; i++)
		if (r->ev.s->tasks.status[r->rtask[i]] == TPH_TS_RUNNING) {
			tph_vec_add_task(s, r->rtask[i], +1, row);
			row[s->ndim]++;
		}
	r->rrun_ver[node] = ver;
	return row;
}

/* may_take's answer. Where the reclaimer's queue has no task of rtask, the reclaimees are
 * rtask's Running tasks, whose sum and count rrun keeps. */
static bool bound_one(reclaim_run *r, tph_idx task, tph_idx node)
{
	const tph_session *s = r->ev.s;
	tph_idx q = tph_task_queue(s, task);
	uint32_t nc;
	if (!r->rrun || q == TPH_NOIDX || q >= 64 || (r->rqueues[node] >> q & 1))
		return may_take(r, task, node, &nc);
	int64_t buf[TPH_RES_MAX], sum[TPH_RES_MAX];
	const int64_t *fi = tph_ecands_future_idle(&r->cands, s, node, buf);
	const int64_t *row = rrun_row(r, node);
	if (!row[s->ndim])
		return false;
	for (uint32_t d = 0; d < s->ndim; d++)
		sum[d] = fi[d] + row[d];
	return tph_req_fits(s, task, sum);
}

static void cands_bound(void *arg, tph_idx task, uint32_t key, const tph_idx *nodes, uint32_t n,
                        uint8_t *live)
{
	(void)key;
	for (uint32_t i = 0; i < n; i++)
		live[i] = bound_one(arg, task, nodes[i]);
}

/* rrun and rqueues, with the kept candidates (whose touches rrun_ver follows). */
static int keep_sums(reclaim_run *r)
{
	tph_session *s = r->ev.s;
	uint32_t nn = s->nodes.n + 1;
	r->rrun = TPH_ACT_NEW(s, int64_t, (size_t)nn * (s->ndim + 1));
	r->rrun_ver = TPH_ACT_NEW(s, uint32_t, nn);
	r->rqueues = TPH_ACT_NEW(s, uint64_t, nn);
	if (!r->rrun || !r->rrun_ver || !r->rqueues)
		return TPH_ENOMEM;
	for (tph_idx n = 0; n < s->nodes.n; n++)
		for (uint32_t i = r->roff[n]; i < r->roff[n + 1]; i++) {
			tph_idx q = s->jobs->queue[s->tasks.job[r->rtask[i]]];
			r->rqueues[n] |= q < 64 ? UINT64_C(1) << q : 0;
		}
	return TPH_OK;
}

static bool try_node(reclaim_run *r, tph_statement *stmt, tph_idx task, tph_idx node)
{
	tph_evict_ctx *c = &r->ev;
	tph_session *s = c->s;
	uint32_t nc = 0;
	if (r->cands.served ? !tph_ecands_live(&r->cands, node) : !may_take(r, task, node, &nc))
		return false;
	if (r->cands.served)
		nc = reclaimees(r, tph_task_queue(s, task), node, c->cands);
	uint32_t nv = tph_reclaimable(s, task, c->cands, nc, c->victims);
	if (!tph_validate_victims(s, task, node, c->victims, nv))
		return false;
	tph_statement ns;
	tph_stmt_init(&ns, s);
	if (evict_until_fits(c, &ns, task, node, nv)) {
		/* out of memory in the pipeline or the merge ends the action (tph_evict_fail) */
		int rc = tph_stmt_pipeline(&ns, task, node);
		tph_ecands_touch(&r->cands, node);
		if (rc == TPH_OK && (rc = tph_stmt_merge(stmt, &ns)) == TPH_OK)
			return true;
		tph_evict_fail(c, rc);
	}
	tph_stmt_discard(&ns);
	tph_ecands_touch(&r->cands, node);
	return false;
}

/* reclaimForTask: the candidate nodes, in-shard ones first, until one takes the task. */
static bool reclaim_for_task(reclaim_run *r, tph_statement *stmt, tph_idx task)
{
	tph_evict_ctx *c = &r->ev;
	uint32_t n0, n = tph_ecands_nodes(&r->cands, c, task, 0, true, &n0);
	for (uint32_t i = 0; i < n && !c->err; i++)
		if (try_node(r, stmt, task, c->nodes[i]))
			return true;
	return false;
}

/* A failed reclaimer leaves the session as it found it: the next of its class fails too. */
static void reclaim_task(reclaim_run *r, tph_statement *st, tph_idx t)
{
	if (r->memo_ok && r->failed != TPH_NOIDX && r->failed_epoch == r->epoch &&
	    tph_evict_same_class(r->ev.s, r->failed, t))
		return;
	if (reclaim_for_task(r, st, t)) {
		r->epoch++;
	} else if (!r->ev.err) {
		r->failed = t;
		r->failed_epoch = r->epoch;
	}
}

/* ---- the loops ---- */

enum {
	JOB_IN = 1,
	JOB_STARVING = 2
};

static int run_alloc(reclaim_run *r, uint8_t **flags, uint32_t **off)
{
	tph_session *s = r->ev.s;
	uint32_t nq = s->queues->n, nj = s->jobs->n;
	r->seen = TPH_ACT_NEW(s, uint8_t, nq + 1);
	r->jheap = TPH_ACT_NEW(s, tph_pq, nq + 1);
	r->theap = TPH_ACT_NEW(s, tph_pq, nj + 1);
	r->tbuf = TPH_ACT_NEW(s, tph_idx, s->tasks.n + 1);
	*flags = TPH_ACT_NEW(s, uint8_t, nj + 1);
	*off = TPH_ACT_NEW(s, uint32_t, nq + 2);
	tph_idx *buf = TPH_ACT_NEW(s, tph_idx, 2 * (size_t)nj + nq + 1);
	if (!r->seen || !r->jheap || !r->theap || !r->tbuf || !*flags || !*off || !buf)
		return TPH_ENOMEM;
	/* Each job pop may push its queue again: room for nq + nj queue entries. */
	tph_pq_init(&r->queues, s, tph_queue_order, buf + nj, nq + nj);
	r->jheap[0].items = buf; /* carved per queue in run_setup */
	return TPH_OK;
}

/* Volcano's collection pass: queues of the jobs that are not Pending and valid, in the order
 * met; the starving ones become preemptors with their pending tasks. */
static int run_setup(reclaim_run *r)
{
	tph_session *s = r->ev.s;
	uint32_t nq = s->queues->n, nj = s->jobs->n, *off;
	uint8_t *fl;
	if (run_alloc(r, &fl, &off))
		return TPH_ENOMEM;
	tph_idx *jbuf = r->jheap[0].items;
	for (tph_idx j = 0; j < nj; j++) {
		if (s->js.phase[j] == TPH_PG_PENDING || tph_job_valid(s, j, NULL) != TPH_OK)
			continue;
		fl[j] = JOB_IN | (tph_job_starving(s, j) ? JOB_STARVING : 0);
		off[s->jobs->queue[j] + 1] += fl[j] >> 1;
	}
	for (tph_idx q = 0; q < nq; q++) {
		off[q + 1] += off[q];
		tph_pq_init(&r->jheap[q], s, tph_job_order, jbuf + off[q], off[q + 1] - off[q]);
	}
	for (tph_idx j = 0; j < nj; j++) {
		tph_idx q = s->jobs->queue[j];
		if ((fl[j] & JOB_IN) && !r->seen[q]) {
			r->seen[q] = 1;
			tph_pq_push(&r->queues, q);
		}
		if (!(fl[j] & JOB_STARVING))
			continue;
		tph_pq_push(&r->jheap[q], j);
		tph_push_pending(s, j, &r->theap[j], r->tbuf + s->jobs->task_off[j]);
	}
	return TPH_OK;
}

/* One starving job: its tasks reclaim while the job starves; kept when it pipelines. */
static void reclaim_job(reclaim_run *r, tph_idx q, tph_idx j)
{
	tph_session *s = r->ev.s;
	tph_statement st;
	tph_stmt_init(&st, s);
	while (!r->ev.err && tph_job_starving(s, j)) {
		tph_idx t = tph_pq_pop(&r->theap[j]);
		if (t == TPH_NOIDX)
			break;
		if (s->tasks.flags[t] & TPH_TASK_PREEMPT_NEVER)
			continue;
		if (!tph_preemptive(s, q, t) || tph_prepredicate(s, t) != TPH_PASS)
			continue;
		reclaim_task(r, &st, t);
	}
	r->epoch++;
	tph_ecands_touch_stmt(&r->cands, &st);
	if (!r->ev.err && tph_job_pipelined(s, j))
		tph_evict_fail(&r->ev, tph_stmt_commit(&st));
	else
		tph_stmt_discard(&st);
}

static int reclaim_execute(tph_session *s, const tph_args *args)
{
	tph_ph_opts ph;
	tph_ph_opts_read(s, args, "reclaim", &ph);
	reclaim_run r = {0};
	int rc = tph_evict_open(&r.ev, s, &ph, false);
	r.failed = TPH_NOIDX;
	r.memo_ok = r.ev.fast && !ph.sampling &&
	            tph_victims_locality(s, true) == TPH_VICTIM_CLASS && tph_eqc_usable(s);
	if (!rc)
		rc = run_setup(&r);
	if (!rc && r.ev.fast) {
		r.rel = TPH_ACT_NEW(s, int64_t, ((size_t)s->nodes.n + 1) * s->ndim);
		r.roff = TPH_ACT_NEW(s, uint32_t, s->nodes.n + 1);
		r.rtask = TPH_ACT_NEW(s, tph_idx, r.ev.node_off[s->nodes.n] + 1);
		rc = r.rel && r.roff && r.rtask ? TPH_OK : TPH_ENOMEM;
		if (!rc) {
			tph_evict_release_rows(&r.ev, s->queues->reclaimable, r.rel);
			tph_evict_marked_tasks(&r.ev, s->queues->reclaimable, r.roff, r.rtask);
		}
	}
	if (!rc)
		rc = tph_ecands_init(&r.cands, &r.ev, cands_bound, &r);
	if (!rc && r.cands.on && r.rtask)
		rc = keep_sums(&r);
	for (tph_idx q; !rc && !r.ev.err && (q = tph_pq_pop(&r.queues)) != TPH_NOIDX;) {
		if (tph_overused(s, q))
			continue;
		for (tph_idx j; !r.ev.err && (j = tph_pq_pop(&r.jheap[q])) != TPH_NOIDX;) {
			reclaim_job(&r, q, j);
			if (r.jheap[q].n)
				tph_pq_push(&r.queues, q);
		}
	}
	tph_evict_close(&r.ev);
	return rc ? rc : r.ev.err;
}

const tph_action tph_action_reclaim = {
    .abi = TPH_PLUGIN_ABI,
    .name = "reclaim",
    .args = tph_ph_arg_spec,
    .execute = reclaim_execute,
};

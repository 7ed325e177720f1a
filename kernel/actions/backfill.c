/* The backfill action (Volcano's actions/backfill): best-effort tasks of admitted jobs, taken
 * queue by queue, job by job, in the session's orders, each bound to the best node passing the
 * predicates (no resource fit: they request nothing). In soft sharding this shard's nodes are
 * tried first. A placement binds once the job is ready, as Session.Allocate does. */
#include "common/action_util.h"
#include "session/ep.h"

typedef struct bf_ctx {
	tph_session *s;
	tph_ph ph;
	tph_pq queues;
	tph_pq *jobs;   /* [queue] */
	tph_pq *tasks;  /* [job] */
	tph_idx *order; /* the tasks, as pickUpPendingTasks returns them */
	uint32_t n_order;
	tph_reason_code *codes;
	tph_idx *feas, *grouped;
	double *scores;
} bf_ctx;

static bool best_effort(const tph_session *s, tph_idx t, uint8_t status)
{
	return s->tasks.status[t] == status && (s->tasks.flags[t] & TPH_TASK_BEST_EFFORT);
}

/* First pass: the jobs that take part (admitted, valid, with best-effort work), sized. */
static uint32_t select_jobs(bf_ctx *c, uint32_t *per_queue, uint32_t *per_job)
{
	tph_session *s = c->s;
	const tph_job_store *js = s->jobs;
	uint32_t total = 0;
	for (tph_idx j = 0; j < js->n; j++) {
		if (s->js.phase[j] == TPH_PG_PENDING || tph_job_valid(s, j, NULL) != TPH_OK)
			continue;
		uint32_t k = 0;
		for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++)
			k += best_effort(s, js->task_idx[i], TPH_TS_PENDING) ||
			     best_effort(s, js->task_idx[i], TPH_TS_PIPELINED);
		per_job[j] = k;
		per_queue[js->queue[j]] += k ? 1 : 0;
		total += k;
	}
	return total;
}

/* A job's best-effort tasks into its heap: Pending ones, then Pipelined ones taken back off
 * their nodes (Statement.UnPipeline). */
static void job_tasks(bf_ctx *c, tph_idx j)
{
	tph_session *s = c->s;
	const tph_job_store *js = s->jobs;
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++)
		if (best_effort(s, js->task_idx[i], TPH_TS_PENDING))
			tph_pq_push(&c->tasks[j], js->task_idx[i]);
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		if (!best_effort(s, t, TPH_TS_PIPELINED))
			continue;
		tph_idx node = s->tasks.node[t];
		tph_task_move(s, t, TPH_TS_PENDING, TPH_NOIDX);
		tph_fire_deallocate(s, t);
		tph_ph_touch(&c->ph, node);
		tph_pq_push(&c->tasks[j], t);
	}
}

static int fill_heaps(bf_ctx *c, const uint32_t *per_queue, const uint32_t *per_job, uint32_t total)
{
	tph_session *s = c->s;
	tph_idx *tbuf = TPH_ACT_NEW(s, tph_idx, total + 1);
	c->order = TPH_ACT_NEW(s, tph_idx, total + 1);
	if (!tbuf || !c->order || tph_act_job_heaps(s, per_queue, &c->queues, &c->jobs))
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < s->jobs->n; j++) {
		if (!per_job[j])
			continue;
		tph_pq_init_tasks(&c->tasks[j], s, j, tbuf, per_job[j]);
		tbuf += per_job[j];
		job_tasks(c, j); /* before the job's push: un-pipelining moves the orders */
		tph_act_push_job(s, &c->queues, c->jobs, j);
	}
	return TPH_OK;
}

/* pickUpPendingTasks: every task of every job of every queue, drained in order. */
static int pick_up(bf_ctx *c)
{
	tph_session *s = c->s;
	uint32_t nq = s->queues->n, nj = s->jobs->n;
	uint32_t *per_queue = TPH_ACT_NEW(s, uint32_t, nq + 1);
	uint32_t *per_job = TPH_ACT_NEW(s, uint32_t, nj + 1);
	c->tasks = TPH_ACT_ALLOC(s, tph_pq, nj + 1); /* set and read only for jobs with tasks */
	if (!per_queue || !per_job || !c->tasks)
		return TPH_ENOMEM;
	int rc = fill_heaps(c, per_queue, per_job, select_jobs(c, per_queue, per_job));
	tph_idx q, j, t;
	while (!rc && (q = tph_pq_pop(&c->queues)) != TPH_NOIDX)
		while ((j = tph_pq_pop(&c->jobs[q])) != TPH_NOIDX)
			while ((t = tph_pq_pop(&c->tasks[j])) != TPH_NOIDX)
				c->order[c->n_order++] = t;
	return rc;
}

/* Several feasible nodes: score this shard's first (soft sharding), then the others. */
static tph_idx choose(bf_ctx *c, tph_idx t, uint32_t n)
{
	tph_session *s = c->s;
	bool soft = s->snap->shard_mode == TPH_SHARD_SOFT;
	uint32_t in = 0, out = n;
	for (uint32_t i = 0; i < n; i++) {
		bool other = soft && !(s->nodes.flags[c->feas[i]] & TPH_NODE_IN_SHARD);
		if (!other)
			c->grouped[in++] = c->feas[i];
	}
	for (uint32_t i = n; i-- > 0;) /* the others fill the tail, order kept */
		if (soft && !(s->nodes.flags[c->feas[i]] & TPH_NODE_IN_SHARD))
			c->grouped[--out] = c->feas[i];
	const uint32_t off[3] = {0, in, n};
	for (uint32_t g = 0; g < 2; g++) {
		uint32_t m = off[g + 1] - off[g];
		if (!m)
			continue;
		if (!tph_score_nodes(s, t, c->grouped + off[g], m, c->scores))
			continue; /* a failed BatchNodeOrder: no scores, no node of this group */
		tph_idx best = tph_best_node(s, t, c->grouped + off[g], c->scores, m);
		if (best != TPH_NOIDX)
			return best;
	}
	return TPH_NOIDX;
}

/* Session.Allocate: the task is Allocated there, whatever the event handlers say; the job's
 * Allocated tasks bind once it is ready. */
static int bind(bf_ctx *c, tph_idx t, tph_idx node)
{
	tph_session *s = c->s;
	tph_ssn_allocate(s, t, node);
	tph_ph_touch(&c->ph, node);
	tph_idx j = s->tasks.job[t];
	if (!tph_job_ready(s, j))
		return TPH_OK;
	/* this task first: usually the job's only Allocated one, so no scan follows */
	return tph_act_dispatch_job(s, j, t);
}

static int one_task(bf_ctx *c, tph_idx t)
{
	tph_session *s = c->s;
	tph_reason_code pre = tph_prepredicate(s, t);
	if (pre != TPH_PASS) {
		for (uint32_t i = 0; i < s->n_ready; i++)
			c->codes[i] = pre;
		return tph_fitlog_nodes(s, t, s->ready_nodes, c->codes, s->n_ready);
	}
	tph_ph_reset(&c->ph); /* a new PredicateHelper per task */
	uint32_t n = tph_ph_predicate(&c->ph, t, s->ready_nodes, s->n_ready, c->feas, c->codes);
	if (!n)
		return tph_fitlog_nodes(s, t, s->ready_nodes, c->codes, s->n_ready);
	tph_idx node = n == 1 ? c->feas[0] : choose(c, t, n);
	return node == TPH_NOIDX ? TPH_OK : bind(c, t, node);
}

static int backfill_execute(tph_session *s, const tph_args *args)
{
	bf_ctx c = {.s = s};
	tph_ph_opts o;
	tph_ph_opts_read(s, args, "backfill", &o);
	uint32_t nr = s->nodes.n + 1;
	/* outputs of the filter and the scoring, read only where written */
	c.codes = TPH_ACT_ALLOC(s, tph_reason_code, nr);
	c.feas = TPH_ACT_ALLOC(s, tph_idx, nr);
	c.grouped = TPH_ACT_ALLOC(s, tph_idx, nr);
	c.scores = TPH_ACT_ALLOC(s, double, nr);
	tph_eqc *eqc = tph_eqc_new(s, false);
	int rc = c.codes && c.feas && c.grouped && c.scores ? TPH_OK : TPH_ENOMEM;
	if (!rc)
		rc = tph_ph_init(&c.ph, s, &o, false, eqc);
	if (!rc)
		rc = pick_up(&c);
	for (uint32_t i = 0; !rc && i < c.n_order; i++)
		rc = one_task(&c, c.order[i]);
	tph_ph_free(&c.ph);
	tph_eqc_free(eqc);
	return rc;
}

const tph_action tph_action_backfill = {
    TPH_PLUGIN_ABI, "backfill", tph_ph_arg_spec, NULL, backfill_execute, NULL,
};

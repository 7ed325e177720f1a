/* The allocate action (Volcano's actions/allocate): pick the best queue, its best job, place
 * the job's pending tasks, commit when the job is ready, and put queue and job back while
 * they have work. Jobs Volcano sends through hypernode gradients go to allocate_topo.c. */
#include "allocate.h"
#include "allocate_fast.h"

/* Volcano's buildAllocateContext, first pass: which jobs take part (phase, JobValid, a
 * non-empty worksheet), counting their tasks per job and their jobs per queue. */
static uint32_t select_jobs(alloc_ctx *c, uint32_t *per_queue, uint32_t *per_job)
{
	tph_session *s = c->s;
	const tph_job_store *js = s->jobs;
	bool enqueue = tph_conf_has_action(s, "enqueue");
	uint32_t total = 0;
	for (tph_idx j = 0; j < js->n; j++) {
		if (s->js.phase[j] == TPH_PG_PENDING) {
			if (enqueue)
				continue;
			s->js.phase[j] =
			    TPH_PG_INQUEUE; /* no enqueue action: nothing would admit it */
		}
		if (tph_job_valid(s, j, NULL) != TPH_OK || alloc_job_skipped(s, j))
			continue;
		uint32_t k = 0;
		for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
			tph_idx t = js->task_idx[i];
			/* best-effort tasks are backfill's */
			k += s->tasks.status[t] == TPH_TS_PENDING &&
			     !(s->tasks.flags[t] & TPH_TASK_BEST_EFFORT);
		}
		per_job[j] = k;
		per_queue[js->queue[j]] += k ? 1 : 0;
		total += k;
	}
	return total;
}

/* Second pass: the heaps, filled in Volcano's order (queue on its first job, job, tasks). */
static int fill_heaps(alloc_ctx *c, const uint32_t *per_queue, const uint32_t *per_job,
                      uint32_t total)
{
	tph_session *s = c->s;
	const tph_job_store *js = s->jobs;
	tph_idx *tbuf = TPH_ACT_NEW(s, tph_idx, total + 1);
	if (!tbuf || tph_act_job_heaps(s, per_queue, &c->queues, &c->jobs))
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < js->n; j++) {
		if (!per_job[j])
			continue;
		tph_act_push_job(s, &c->queues, c->jobs, j);
		tph_pq_init_tasks(&c->tasks[j], s, j, tbuf, per_job[j]);
		tbuf += per_job[j];
		for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
			tph_idx t = js->task_idx[i];
			if (s->tasks.status[t] == TPH_TS_PENDING &&
			    !(s->tasks.flags[t] & TPH_TASK_BEST_EFFORT))
				tph_pq_push(&c->tasks[j], t);
		}
		c->topo[j] = alloc_job_uses_topology(s, j);
	}
	return TPH_OK;
}

static int build(alloc_ctx *c)
{
	tph_session *s = c->s;
	uint32_t nq = s->queues->n, nj = s->jobs->n, nr = s->nodes.n + 1;
	uint32_t *per_queue = TPH_ACT_NEW(s, uint32_t, nq + 1);
	uint32_t *per_job = TPH_ACT_NEW(s, uint32_t, nj + 1);
	/* set and read only for jobs with tasks to place (fill_heaps); the node columns are the
	 * normal path's outputs, read only where written (unused while the flat path serves) */
	c->tasks = TPH_ACT_ALLOC(s, tph_pq, nj + 1);
	c->topo = TPH_ACT_ALLOC(s, uint8_t, nj + 1);
	c->codes = TPH_ACT_ALLOC(s, tph_reason_code, nr);
	c->feas = TPH_ACT_ALLOC(s, tph_idx, nr);
	c->grouped = TPH_ACT_ALLOC(s, tph_idx, nr);
	c->grp = TPH_ACT_ALLOC(s, uint8_t, nr);
	c->scores = TPH_ACT_ALLOC(s, double, nr);
	if (!per_queue || !per_job || !c->tasks || !c->topo || !c->codes || !c->feas ||
	    !c->grouped || !c->grp || !c->scores)
		return TPH_ENOMEM;
	uint32_t total = select_jobs(c, per_queue, per_job);
	return fill_heaps(c, per_queue, per_job, total);
}

/* allocateResources: a queue leaves when it is overused or has no job left; a job returns to
 * its queue only when it committed and still has tasks. */
static int run(alloc_ctx *c)
{
	tph_session *s = c->s;
	tph_idx q;
	while ((q = tph_pq_pop(&c->queues)) != TPH_NOIDX) {
		if (tph_overused(s, q))
			continue;
		tph_pq *jobs = &c->jobs[q];
		tph_idx j = tph_pq_pop(jobs);
		if (j == TPH_NOIDX)
			continue;
		bool again = false;
		int rc =
		    c->topo[j] ? alloc_topology_job(c, j, &again) : alloc_flat_job(c, j, &again);
		if (rc < 0)
			return rc;
		if (again)
			tph_pq_push(jobs, j);
		tph_pq_push(&c->queues, q);
	}
	return TPH_OK;
}

static void release(alloc_ctx *c)
{
	alloc_topology_free(c);
	alloc_fast_free(c->fast);
	tph_ph_free(&c->ph);
	tph_eqc_free(c->eqc);
}

static int allocate_execute(tph_session *s, const tph_args *args)
{
	alloc_ctx c = {.s = s};
	tph_ph_opts_read(s, args, "allocate", &c.opts);
	c.eqc = tph_eqc_new(s, true);
	int rc = tph_ph_init(&c.ph, s, &c.opts, true, c.eqc);
	if (!rc)
		c.fast = alloc_fast_new(s, c.eqc, &c.ph);
	if (!rc)
		rc = build(&c);
	if (!rc)
		rc = run(&c);
	release(&c);
	return rc;
}

const tph_action tph_action_allocate = {
    TPH_PLUGIN_ABI, "allocate", tph_ph_arg_spec, NULL, allocate_execute, NULL,
};

/* The loop reclaim, preempt and consolidation share (actions/{reclaim,preempt,consolidation}):
 * jobs with a pending pod, ready (enough alive pods per gang) and outside their preemption
 * delay (each leaf queue's queueDepthPerAction best, job_depth.c), in queue order, each once;
 * per job, unless a task of its next turn fails
 * VictimInvariantPrePredicate, the action admits it, its victim candidates are
 * the jobs with an active pod the action's filter accepts, and the solver's statement is
 * committed when it solves. */
#include "solver.h"

#include "base/mem.h"

static bool has_pending(const tph_kai_session *s, uint32_t j)
{
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++)
		if (s->status[s->job_tasks[i]] == TPH_KAI_TS_PENDING)
			return true;
	return false;
}

static bool any_active(const tph_kai_session *s, uint32_t j)
{
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++)
		if (tph_kai_active_allocated(s->status[s->job_tasks[i]]))
			return true;
	return false;
}

/* KAI's IsWithinPreemptionDelay: a positive delay from creation, or the last eviction if
 * later, not yet over. */
static bool within_delay(const tph_kai_view *v, uint32_t j)
{
	tph_time anchor = v->jobs.creation[j];
	if (v->jobs.last_eviction[j] > anchor)
		anchor = v->jobs.last_eviction[j];
	int64_t delay = v->jobs.preemption_delay_ms[j];
	return delay > 0 && v->now < anchor + delay;
}

/* Jobs the action tries, flagged in `in`. */
static void queue_jobs(tph_kai_solver *sv, uint8_t *in, bool preemptible_only)
{
	const tph_kai_session *s = sv->s;
	const tph_kai_view *v = s->v;
	for (uint32_t q = 0; q < v->queues.n; q++)
		for (uint32_t i = sv->q_first[q]; i < sv->q_first[q + 1]; i++) {
			uint32_t j = sv->q_jobs[i];
			in[j] = has_pending(s, j) && tph_kai_gang_satisfied(s, j, tph_kai_alive) &&
			        !within_delay(v, j) &&
			        (!preemptible_only || v->jobs.preemptible[j]);
		}
}

/* The victim candidates of preemptor p: preemptible jobs of a leaf queue with an active pod
 * that the action's filter accepts. */
static void candidates(tph_kai_solver *sv, uint32_t p)
{
	const tph_kai_view *v = sv->s->v;
	for (uint32_t j = 0; j < v->jobs.n; j++)
		sv->cand[j] = 0;
	for (uint32_t q = 0; q < v->queues.n; q++)
		for (uint32_t i = sv->q_first[q]; i < sv->q_first[q + 1]; i++) {
			uint32_t j = sv->q_jobs[i];
			sv->cand[j] = j != p && v->jobs.preemptible[j] && any_active(sv->s, j) &&
			              sv->rules.candidate(sv, p, j);
		}
}

/* KAI's VictimInvariantPrePredicateFailureForTasks: a task of the job's next turn that fails
 * whatever is evicted keeps the job out of the action. */
static bool victim_invariant_fails(tph_kai_solver *sv, uint32_t j)
{
	uint32_t n = tph_kai_tasks_to_allocate(sv->s, j, sv->tasks);
	for (uint32_t i = 0; i < n; i++)
		if (tph_kai_victim_invariant_fails(sv->s, sv->tasks[i]))
			return true;
	return false;
}

/* Try job j: 1 solved and committed, 0 not tried or failed, < 0 error. `failed` tells a
 * failure the signatures remember from a job not tried. */
static int try_job(tph_kai_solver *sv, tph_kai_reps *reps, uint32_t j,
                   bool (*admit)(tph_kai_solver *sv, uint32_t j), bool *failed)
{
	const tph_kai_solver_rules *r = &sv->rules;
	*failed = false;
	if (r->eligible && !r->eligible(sv, j))
		return 0;
	int32_t scope = r->per_queue ? sv->s->v->jobs.queue[j] : -1;
	if ((reps && tph_kai_reps_skip(reps, sv->s, scope, j)) || victim_invariant_fails(sv, j))
		return 0;
	*failed = true;
	if (admit && !admit(sv, j))
		return 0;
	candidates(sv, j);
	int rc = tph_kai_solve_job(sv, j);
	*failed = rc == 0;
	return rc > 0 ? tph_kai_stmt_commit(sv->s) : rc;
}

int tph_kai_solver_run(tph_kai_session *s, tph_kai_solver_rules rules, bool preemptible_only,
                       bool (*admit)(tph_kai_solver *sv, uint32_t j), tph_diag *d)
{
	tph_kai_solver sv;
	int rc = tph_kai_solver_init(&sv, s, rules);
	uint8_t *in = rc == TPH_OK ? tph_calloc((size_t)s->v->jobs.n + 1, 1) : NULL;
	tph_kai_reps *reps = NULL;
	if (rc == TPH_OK && s->v->params.use_scheduling_signatures)
		reps = tph_kai_reps_new(s);
	if (rc == TPH_OK && (!in || (s->v->params.use_scheduling_signatures && !reps)))
		rc = TPH_ENOMEM;
	if (rc == TPH_OK)
		queue_jobs(&sv, in, preemptible_only);
	if (rc == TPH_OK)
		rc = tph_kai_limit_depth(s, in, sv.q_first, sv.q_jobs);
	for (int32_t j; rc >= 0 && (j = tph_kai_jobq_pop(&sv, in, NULL, false)) >= 0;) {
		bool failed;
		rc = try_job(&sv, reps, (uint32_t)j, admit, &failed);
		if (failed && reps)
			tph_kai_reps_failed(reps, s, rules.per_queue ? s->v->jobs.queue[j] : -1,
			                    (uint32_t)j);
	}
	tph_kai_reps_free(reps);
	tph_free(in);
	tph_kai_solver_free(&sv);
	return rc < 0 ? tph_diag_set(d, rc, "%s: out of memory", s->action) : TPH_OK;
}

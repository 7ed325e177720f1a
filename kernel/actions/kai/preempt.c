/* KAI's preempt action (actions/preempt): a pending job takes from lower-priority preemptible
 * jobs of its own queue, when its non-preemptible pods keep the queue within quota
 * (IsNonPreemptibleJobOverQueueQuota); victims pass every PreemptVictimFilter, scenarios every
 * PreemptScenarioValidator. */
#include "solver.h"

static bool candidate(tph_kai_solver *sv, uint32_t p, uint32_t j)
{
	const tph_kai_jobs *jobs = &sv->s->v->jobs;
	return jobs->priority[j] < jobs->priority[p] && jobs->queue[j] == jobs->queue[p] &&
	       tph_kai_victim_allowed(sv->s, TPH_KAI_PREEMPT, p, j);
}

static bool valid(tph_kai_solver *sv, const tph_kai_scenario *sc)
{
	return tph_kai_scenario_valid(sv->s, TPH_KAI_PREEMPT, sc);
}

static bool admit(tph_kai_solver *sv, uint32_t j)
{
	uint32_t n = tph_kai_tasks_to_allocate(sv->s, j, sv->tasks);
	return tph_kai_nonpreemptible_within_quota(sv->s, j, sv->tasks, n);
}

static int run(tph_kai_session *s, tph_diag *d)
{
	tph_kai_solver_rules rules = {candidate, valid, NULL, NULL, true};
	return tph_kai_solver_run(s, rules, false, admit, d);
}

const tph_kai_action tph_kai_action_preempt = {"preempt", run};

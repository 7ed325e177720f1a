/* KAI's reclaim action (actions/reclaim): a pending job its queue may reclaim for
 * (CanReclaimResources) takes from preemptible jobs of other queues that pass every
 * ReclaimVictimFilter; a scenario must pass every ReclaimScenarioValidator, which simulate on
 * the queue state OnJobSolutionStart gives them per job. */
#include "solver.h"

static bool candidate(tph_kai_solver *sv, uint32_t p, uint32_t j)
{
	const tph_kai_jobs *jobs = &sv->s->v->jobs;
	return jobs->queue[j] != jobs->queue[p] &&
	       tph_kai_victim_allowed(sv->s, TPH_KAI_RECLAIM, p, j);
}

static bool valid(tph_kai_solver *sv, const tph_kai_scenario *sc)
{
	return tph_kai_scenario_valid(sv->s, TPH_KAI_RECLAIM, sc);
}

static bool eligible(tph_kai_solver *sv, uint32_t j)
{
	return tph_kai_can_reclaim(sv->s, j);
}

static bool admit(tph_kai_solver *sv, uint32_t j)
{
	(void)j;
	tph_kai_job_solution_start(sv->s);
	return true;
}

static int run(tph_kai_session *s, tph_diag *d)
{
	tph_kai_solver_rules rules = {candidate, valid, NULL, eligible, true};
	return tph_kai_solver_run(s, rules, false, admit, d);
}

const tph_kai_action tph_kai_action_reclaim = {"reclaim", run};

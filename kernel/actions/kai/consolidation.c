/* KAI's consolidation action (actions/consolidation): off when maxConsolidationPreemptees is 0.
 * A pending preemptible job, when the cluster's idle and releasing GPUs could hold its next
 * turn, moves preemptible running jobs out of the way: a scenario is valid only if every victim
 * is re-placed (none left Releasing), so nobody is killed. With a preemptee limit, the first
 * `limit + 1` jobs that pass the filter (in job order; KAI walks a Go map) are candidates. */
#include "solver.h"

typedef struct consolidation {
	int32_t limit; /* -1: unlimited */
	int32_t counted;
} consolidation;

static bool candidate(tph_kai_solver *sv, uint32_t p, uint32_t j)
{
	consolidation *c = sv->rules.state;
	(void)p, (void)j;
	if (c->limit >= 0 && c->counted > c->limit)
		return false;
	c->counted++;
	return true;
}

static bool valid(tph_kai_solver *sv, const tph_kai_scenario *sc)
{
	for (uint32_t i = 0; i < sc->task_first[sc->n_victims]; i++)
		if (sv->s->status[sc->tasks[i]] == TPH_KAI_TS_RELEASING)
			return false;
	return true;
}

/* KAI's IsEnoughGPUsAllocatableForJob over ready nodes. */
static bool admit(tph_kai_solver *sv, uint32_t j)
{
	const tph_kai_session *s = sv->s;
	consolidation *c = sv->rules.state;
	double have = 0, want = 0, req[TPH_KAI_DIMS];
	for (uint32_t n = 0; n < s->v->nodes.n; n++)
		if (s->v->nodes.ready[n])
			have += tph_kai_free_gpus(s, n);
	uint32_t nt = tph_kai_tasks_to_allocate(s, j, sv->tasks);
	for (uint32_t i = 0; i < nt; i++) {
		tph_kai_task_quota(s, sv->tasks[i], req);
		want += req[TPH_KAI_GPU];
	}
	c->counted = 0;
	return have >= want;
}

static int run(tph_kai_session *s, tph_diag *d)
{
	consolidation c = {s->v->params.max_consolidation_preemptees, 0};
	if (c.limit == 0)
		return TPH_OK;
	tph_kai_solver_rules rules = {candidate, valid, &c};
	return tph_kai_solver_run(s, rules, true, admit, d);
}

const tph_kai_action tph_kai_action_consolidation = {"consolidation", run};

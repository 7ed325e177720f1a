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

/* A node's idle or releasing GPUs, MIG instances counted as GPUs (ResourceVector.TotalGPUs). */
static double total_gpus(const tph_kai_session *s, uint32_t n, const double *vec,
                         const int64_t *mig)
{
	uint32_t m = s->v->nodes.n_mig;
	double gpus = vec[(size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU];
	for (uint32_t p = 0; p < m; p++)
		gpus += (double)mig[(size_t)n * m + p] * s->v->nodes.mig_profile_gpus[p];
	return gpus;
}

/* KAI's GetSumOfIdleGPUs plus GetSumOfReleasingGPUs, their memory half (MiB): each whole GPU,
 * MIG instances included and truncated per vector, at the node's memory per GPU; the free part
 * of each device shared pods hold; the releasing part of each device not wholly releasing. */
static int64_t free_gpu_memory(const tph_kai_session *s, uint32_t n)
{
	int64_t mem = s->v->nodes.gpu_memory_mib[n];
	int64_t sum = (int64_t)total_gpus(s, n, s->idle, s->mig_idle) * mem +
	              (int64_t)total_gpus(s, n, s->releasing, s->mig_rel) * mem;
	for (uint32_t g = s->dev_first[n]; g < s->dev_first[n + 1]; g++) {
		bool all_releasing = s->dev_used[g] != 0 && s->dev_rel[g] == s->dev_used[g];
		if (s->dev_alloc[g] > 0)
			sum += mem - s->dev_alloc[g];
		if (s->dev_rel[g] > 0 && !all_releasing)
			sum += s->dev_rel[g];
	}
	return sum;
}

/* What GetTasksToAllocateRequestedGPUs sums as memory: each pod's GPU memory (once, whatever
 * its device count) and, per MIG instance, the <m> GB of its profile's name, unconverted. */
static int64_t task_gpu_memory(const tph_kai_session *s, uint32_t t)
{
	uint32_t m = s->v->nodes.n_mig;
	int64_t sum = s->v->tasks.gpu_memory_mib[t];
	for (uint32_t p = 0; p < m; p++)
		sum += s->v->tasks.mig_request[(size_t)t * m + p] *
		       (int64_t)s->v->nodes.mig_profile_gb[p];
	return sum;
}

/* KAI's IsEnoughGPUsAllocatableForJob over ready nodes: GPUs and GPU memory both suffice. The
 * memory sum is taken only for a turn that asks for memory (gpu-memory or MIG pods): no sum is
 * negative, so the others always pass it. */
static bool admit(tph_kai_solver *sv, uint32_t j)
{
	const tph_kai_session *s = sv->s;
	consolidation *c = sv->rules.state;
	double have = 0, want = 0, req[TPH_KAI_DIMS];
	int64_t have_mem = 0, want_mem = 0;
	c->counted = 0;
	uint32_t nt = tph_kai_tasks_to_allocate(s, j, sv->tasks);
	for (uint32_t i = 0; i < nt; i++) {
		tph_kai_task_quota(s, sv->tasks[i], req);
		want += req[TPH_KAI_GPU];
		want_mem += task_gpu_memory(s, sv->tasks[i]);
	}
	for (uint32_t n = 0; n < s->v->nodes.n; n++)
		if (s->v->nodes.ready[n])
			have += tph_kai_free_gpus(s, n);
	if (have < want)
		return false;
	for (uint32_t n = 0; want_mem > 0 && n < s->v->nodes.n; n++)
		if (s->v->nodes.ready[n])
			have_mem += free_gpu_memory(s, n);
	return have_mem >= want_mem;
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

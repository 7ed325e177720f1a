/* Where a scenario's simulation may place pods (KAI's FeasibleNodesForJob, actions/common,
 * and byPodSolver's feasibleNodes, solvers/by_pod_solver.go): when every pod of the preemptor
 * asks for a GPU, the pool nodes with idle or releasing GPUs as its search starts, else every
 * pool node; plus, per scenario, the nodes its recorded and evicted victims sit on. The
 * preemptor and the victim jobs are re-placed there only: a victim that asks for no GPU cannot
 * move to a node without GPU room that no victim frees. The same nodes answer KAI's
 * AccumulatedNodeAffinities filter: a scenario where a pod of the probe with a node selector or
 * required node affinity matches none of them is dropped before it is tried, predicates plugin
 * or not. */
#include "solver.h"

#include "tephra/k8s.h"

static bool wants_gpu(const tph_kai_view *v, uint32_t t)
{
	const tph_kai_tasks *k = &v->tasks;
	if (k->gpus[t] > 0 || k->gpu_fraction[t] > 0 || k->gpu_memory_mib[t] > 0 ||
	    k->mig_gpus[t] > 0)
		return true;
	for (uint32_t p = 0; p < v->nodes.n_mig; p++)
		if (k->mig_request[(size_t)t * v->nodes.n_mig + p] > 0)
			return true;
	return false;
}

static bool required_affinity(const tph_pod_spec *sp)
{
	return sp && (sp->node_selector.n || sp->n_node_required);
}

static bool matches(const tph_kai_view *v, const tph_pod_spec *sp, uint32_t n)
{
	return tph_k8s_node_affinity(sp, v->nodes.meta[n], v->nodes.label_nums, n);
}

/* aff_ok[i]: turn task i asks for no node, or a feasible node matches it (specs are interned:
 * a task with the previous one's spec has its answer). */
static void feasible_affinity(tph_kai_solver *sv)
{
	const tph_kai_view *v = sv->s->v;
	const tph_pod_spec *last = NULL;
	bool ok = true;
	for (uint32_t i = 0; i < sv->n_tasks; i++) {
		const tph_pod_spec *sp = v->tasks.spec[sv->tasks[i]];
		if (i == 0 || sp != last) {
			ok = !required_affinity(sp);
			for (uint32_t p = 0; p < sv->n_pool && !ok; p++)
				ok = sv->feasible[sv->pool[p]] && matches(v, sp, sv->pool[p]);
			last = sp;
		}
		sv->aff_ok[i] = ok;
	}
}

void tph_kai_feasible_nodes(tph_kai_solver *sv, uint32_t j)
{
	const tph_kai_session *s = sv->s;
	bool all_gpu = true;
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1] && all_gpu; i++)
		all_gpu = wants_gpu(s->v, s->job_tasks[i]);
	for (uint32_t i = 0; i < sv->n_pool; i++)
		sv->feasible[sv->pool[i]] = !all_gpu || tph_kai_free_gpus(s, sv->pool[i]) > 0;
	feasible_affinity(sv);
}

/* Whether a recorded or potential victim of the accumulation sits on a node matching sp. */
static bool victim_node_matches(const tph_kai_solver *sv, const tph_pod_spec *sp)
{
	const tph_kai_session *s = sv->s;
	for (uint32_t i = 0; i < sv->n_rec + sv->n_pot; i++) {
		uint32_t t = i < sv->n_rec ? sv->rec[i] : sv->pot[i - sv->n_rec];
		if (s->node[t] >= 0 && matches(s->v, sp, (uint32_t)s->node[t]))
			return true;
	}
	return false;
}

bool tph_kai_affinity_room(const tph_kai_solver *sv)
{
	const tph_kai_view *v = sv->s->v;
	for (uint32_t i = 0; i < sv->k; i++)
		if (!sv->aff_ok[i] && !victim_node_matches(sv, v->tasks.spec[sv->tasks[i]]))
			return false;
	return true;
}

static void mark(tph_kai_solver *sv, uint32_t t)
{
	int32_t n = sv->s->node[t];
	if (n >= 0)
		sv->node_stamp[n] = sv->stamp;
}

void tph_kai_scenario_nodes(tph_kai_solver *sv)
{
	if (++sv->stamp == 0) { /* wrapped: forget every old mark */
		for (uint32_t n = 0; n < sv->s->v->nodes.n; n++)
			sv->node_stamp[n] = 0;
		sv->stamp = 1;
	}
	for (uint32_t i = 0; i < sv->n_rec; i++)
		mark(sv, sv->rec[i]);
	for (uint32_t i = 0; i < sv->n_victims; i++)
		mark(sv, sv->victims[i]);
	sv->n_nodes = 0;
	for (uint32_t i = 0; i < sv->n_pool; i++) {
		uint32_t n = sv->pool[i];
		if (sv->feasible[n] || sv->node_stamp[n] == sv->stamp)
			sv->nodes[sv->n_nodes++] = n;
	}
	tph_kai_ranges_subset(sv->s, sv->nodes, sv->n_nodes);
}

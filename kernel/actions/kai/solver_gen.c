/* KAI's scenario generators (plugins/nodelocalgreedy, plugins/multinodegang over
 * solvers/pod_scenario_builder.go and sub_scenario_emitter.go): both accumulate victims from the
 * victims queue one pop at a time and drop an accumulation the idle-GPU filter (solver_idle.c)
 * says cannot fit the probe's tasks, the topology filter (solver_filter.c) a set, or the
 * node-affinity filter (solver_nodes.c) a pod.
 * NodeLocalGreedy then tries, per node of the latest victim job (by name), the victims that sit
 * with it there; MultiNodeGang tries growing sets of the nodes the victims sit on, smallest
 * capacity first, starting at the fewest that could cover the demand. */
#include "solver.h"

/* A task's GPUs (KAI's GetGpusQuota; solver_filter.c). */
static double gpus_of(const tph_kai_session *s, uint32_t t)
{
	return tph_kai_accepted_gpus(s, t);
}

/* Next accumulation: the first call keeps the scenario as it is (recorded victims only).
 * 1 a scenario passed the filter, 0 the queue is empty. */
static int accumulate(tph_kai_solver *sv, bool *first)
{
	for (;;) {
		if (!*first) {
			int r = tph_kai_victims_next(sv);
			if (r < 0)
				return 0;
			if (r == 0)
				continue;
		}
		*first = false;
		if (tph_kai_idle_gpus_fit(sv) && tph_kai_topology_room(sv) &&
		    tph_kai_affinity_room(sv))
			return 1;
	}
}

/* The potential victims of the batches that have a task on a marked node (node_seen). */
static uint32_t victims_on_marked(tph_kai_solver *sv)
{
	const int32_t *node = sv->s->node;
	uint32_t m = 0, start = 0;
	for (uint32_t b = 0; b < sv->n_batch; start = sv->batch_end[b++]) {
		bool hit = false;
		for (uint32_t i = start; i < sv->batch_end[b] && !hit; i++)
			hit = node[sv->pot[i]] >= 0 && sv->node_seen[node[sv->pot[i]]];
		for (uint32_t i = start; hit && i < sv->batch_end[b]; i++)
			sv->sub[m++] = sv->pot[i];
	}
	return m;
}

/* The nodes the potential victims sit on, each once, in order of first appearance; capacity
 * per node (free GPUs, recorded and potential victims' GPUs there) in sv->cap. */
static uint32_t victim_nodes(tph_kai_solver *sv, uint32_t *nodes)
{
	const tph_kai_session *s = sv->s;
	uint32_t n = 0;
	for (uint32_t i = 0; i < s->v->nodes.n; i++)
		sv->cap[i] = sv->rf[i] = 0;
	for (uint32_t i = 0; i < sv->n_rec; i++)
		if (s->node[sv->rec[i]] >= 0)
			sv->rf[s->node[sv->rec[i]]] += gpus_of(s, sv->rec[i]);
	for (uint32_t i = 0; i < sv->n_pot; i++) {
		int32_t at = s->node[sv->pot[i]];
		if (at < 0)
			continue;
		if (!sv->node_seen[at]) {
			sv->node_seen[at] = 1;
			nodes[n++] = (uint32_t)at;
			sv->cap[at] = sv->rf[at] + tph_kai_free_gpus(s, (uint32_t)at);
		}
		sv->cap[at] += gpus_of(s, sv->pot[i]);
	}
	return n;
}

/* KAI's subScenarioEmitter over the accumulated scenario. */
static int emit(tph_kai_solver *sv)
{
	const tph_kai_session *s = sv->s;
	uint32_t *cands = sv->order, n = victim_nodes(sv, cands), kept = 0;
	double demand = 0, min_task = -1, baseline = 0;
	for (uint32_t i = 0; i < sv->k; i++) {
		double g = gpus_of(s, sv->tasks[i]);
		demand += g;
		min_task = min_task < 0 || g < min_task ? g : min_task;
	}
	for (uint32_t i = 0; i < sv->n_pool; i++)
		if (!sv->node_seen[sv->pool[i]])
			baseline += tph_kai_free_gpus(s, sv->pool[i]) + sv->rf[sv->pool[i]];
	for (uint32_t i = 0; i < n; i++) { /* viable nodes by capacity, then first appearance */
		uint32_t c = cands[i], at = kept;
		sv->node_seen[c] = 0;
		if (min_task > 0 && sv->cap[c] < min_task)
			continue;
		while (at > 0 && sv->cap[c] < sv->cap[cands[at - 1]]) {
			cands[at] = cands[at - 1];
			at--;
		}
		cands[at] = c;
		kept++;
	}
	double need = demand - baseline, sum = 0;
	uint32_t k = need <= 0 ? 0 : kept + 1;
	for (uint32_t i = 0; need > 0 && i < kept && k > kept; i++)
		if ((sum += sv->cap[cands[i]]) >= need)
			k = i + 1;
	for (uint32_t dk = 1; k <= kept; dk *= 2) {
		for (uint32_t i = 0; i < k; i++)
			sv->node_seen[cands[i]] = 1;
		uint32_t m = victims_on_marked(sv);
		for (uint32_t i = 0; i < k; i++)
			sv->node_seen[cands[i]] = 0;
		int rc = tph_kai_solver_try(sv, sv->sub, m);
		if (rc != 0 || k == kept)
			return rc;
		k = k + dk > kept ? kept : k + dk;
	}
	return 0;
}

int tph_kai_gen_multi_node_gang(tph_kai_solver *sv)
{
	bool first = true;
	tph_kai_victims_reset(sv);
	while (accumulate(sv, &first)) {
		int rc = sv->n_pot ? emit(sv) : tph_kai_solver_try(sv, NULL, 0);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The nodes job j's pods sit on, by name. */
static uint32_t job_nodes(tph_kai_solver *sv, uint32_t j, uint32_t *out)
{
	const tph_kai_session *s = sv->s;
	uint32_t n = 0;
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++) {
		int32_t at = s->node[s->job_tasks[i]];
		if (at < 0 || sv->node_seen[at])
			continue;
		sv->node_seen[at] = 1;
		uint32_t k = n++;
		while (k > 0 && sv->pl.name_rank[at] < sv->pl.name_rank[out[k - 1]]) {
			out[k] = out[k - 1];
			k--;
		}
		out[k] = (uint32_t)at;
	}
	for (uint32_t i = 0; i < n; i++)
		sv->node_seen[out[i]] = 0;
	return n;
}

/* Per node of the latest victim job: the potential victims of every job with one there. */
static int per_node(tph_kai_solver *sv)
{
	const tph_kai_session *s = sv->s;
	uint32_t *nodes = sv->order,
	         nn = job_nodes(sv, (uint32_t)s->v->tasks.job[sv->pot[sv->n_pot - 1]], nodes);
	for (uint32_t i = 0; i < nn; i++) {
		for (uint32_t p = 0; p < sv->n_pot; p++)
			if (s->node[sv->pot[p]] == (int32_t)nodes[i])
				sv->job_mark[s->v->tasks.job[sv->pot[p]]] = 1;
		uint32_t m = 0;
		for (uint32_t p = 0; p < sv->n_pot; p++)
			if (sv->job_mark[s->v->tasks.job[sv->pot[p]]])
				sv->sub[m++] = sv->pot[p];
		for (uint32_t p = 0; p < sv->n_pot; p++)
			sv->job_mark[s->v->tasks.job[sv->pot[p]]] = 0;
		int rc = m ? tph_kai_solver_try(sv, sv->sub, m) : 0;
		if (rc != 0)
			return rc;
	}
	return 0;
}

int tph_kai_gen_node_local_greedy(tph_kai_solver *sv)
{
	bool first = true;
	tph_kai_victims_reset(sv);
	while (accumulate(sv, &first)) {
		int rc = sv->n_pot ? per_node(sv) : sv->n_rec ? tph_kai_solver_try(sv, NULL, 0) : 0;
		if (rc != 0)
			return rc;
	}
	return 0;
}

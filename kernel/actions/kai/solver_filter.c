/* KAI's TopologyAwareIdleGpus accumulated-scenario filter
 * (solvers/accumulated_scenario_filters/idle_gpus/topology_aware_idle_gpus.go), asked with the
 * idle-GPU one before a generator tries an accumulation. Each set of the preemptor's tree with a
 * required topology level (the root for the podgroup's constraint, and the sets below it; pod
 * sets are not asked) needs its pods' GPUs within one domain of that level: the GPUs every pod of
 * its pod sets in the probe's partial job requests (the active ones, which already hold theirs,
 * and the probe's k pending), against each domain's idle and releasing GPUs plus the scenario's
 * victims' there. Sets of one level are matched together, largest first, greedily onto the
 * roomiest domains. KAI counts the running pods again, so a gang that already holds part of a
 * domain can be refused room the simulation would have found: this filter changes decisions. */
#include "solver.h"

#include <string.h>

/* A task's GPUs as KAI's victims free them (AcceptedGpuRequirement.GetGpusQuota). */
double tph_kai_accepted_gpus(const tph_kai_session *s, uint32_t t)
{
	double req[TPH_KAI_DIMS];
	if (s->node[t] >= 0 && tph_kai_gpu_shared(s, t))
		return tph_kai_gpu_fraction(s, t, (uint32_t)s->node[t]);
	tph_kai_task_quota(s, t, req);
	return req[TPH_KAI_GPU];
}

/* The level a required constraint names (its Topology's level labelled so), or -1. */
static int32_t required_level(const tph_kai_view *v, const tph_kai_topo_constraint *c)
{
	if (!c->topology || !c->required_level || !*c->required_level)
		return -1;
	const tph_kai_topologies *tp = &v->topologies;
	for (uint32_t t = 0; t < tp->n; t++) {
		if (strcmp(tp->name[t], c->topology) != 0)
			continue;
		for (uint32_t l = tp->level_first[t]; l < tp->level_first[t] + tp->n_levels[t]; l++)
			if (strcmp(tp->level_label[l], c->required_level) == 0)
				return (int32_t)l;
	}
	return -1;
}

/* Whether pod set ps lies under set `set` (-1: the root) of its job. */
static bool under(const tph_kai_view *v, int32_t ps, int32_t set)
{
	for (int32_t c = ps; c >= 0; c = v->subgroups.parent[c])
		if (c == set)
			return true;
	return set < 0;
}

/* The GPUs task t adds to set `set` of the partial job, 0 when it is not there. */
static double gpus_in(const tph_kai_session *s, uint32_t t, int32_t set)
{
	int32_t ps = s->v->tasks.pod_set[t];
	if (ps < 0 || !under(s->v, ps, set))
		return 0;
	double req[TPH_KAI_DIMS];
	tph_kai_task_quota(s, t, req);
	return req[TPH_KAI_GPU];
}

/* sumGpuRequirements of set `set` over the probe's partial job: its active pods and the first
 * k tasks of the turn. */
static double set_gpus(const tph_kai_solver *sv, int32_t set)
{
	const tph_kai_session *s = sv->s;
	double sum = 0;
	for (uint32_t i = s->job_first[sv->job]; i < s->job_first[sv->job + 1]; i++) {
		uint32_t t = s->job_tasks[i];
		if (tph_kai_active_allocated(s->status[t]))
			sum += gpus_in(s, t, set);
	}
	for (uint32_t i = 0; i < sv->k; i++)
		sum += gpus_in(s, sv->tasks[i], set);
	return sum;
}

/* Each domain of level l: idle and releasing GPUs of its pool nodes plus the victims' there. */
static void domain_room(tph_kai_solver *sv, uint32_t l, double *cap)
{
	const tph_kai_session *s = sv->s;
	const tph_kai_view *v = s->v;
	const int32_t *dom = v->topologies.domain + (size_t)l * v->nodes.n;
	for (uint32_t d = 0; d < v->topologies.n_domains[l]; d++)
		cap[d] = 0;
	for (uint32_t n = 0; n < sv->n_pool; n++)
		if (dom[sv->pool[n]] >= 0)
			cap[dom[sv->pool[n]]] += tph_kai_free_gpus(s, sv->pool[n]);
	for (uint32_t i = 0; i < sv->n_rec + sv->n_pot; i++) {
		uint32_t t = i < sv->n_rec ? sv->rec[i] : sv->pot[i - sv->n_rec];
		int32_t n = s->node[t];
		if (n >= 0 && v->nodes.in_pool[n] && dom[n] >= 0)
			cap[dom[n]] += tph_kai_accepted_gpus(s, t);
	}
}

/* greedyMatchRequirements: req[0..r) largest first, each onto the roomiest domain with room
 * left for it. Domains of equal room are alike, so which one KAI's sort puts first is moot. */
static bool match(const tph_kai_view *v, uint32_t l, const double *cap, double *used, double *req,
                  uint32_t r)
{
	uint32_t nd = v->topologies.n_domains[l];
	for (uint32_t i = 1; i < r; i++)
		for (uint32_t at = i; at > 0 && req[at] > req[at - 1]; at--) {
			double x = req[at];
			req[at] = req[at - 1];
			req[at - 1] = x;
		}
	for (uint32_t d = 0; d < nd; d++)
		used[d] = 0;
	for (uint32_t i = 0; i < r && req[i] != 0; i++) {
		int32_t best = -1;
		for (uint32_t d = 0; d < nd; d++)
			if (cap[d] - used[d] >= req[i] && (best < 0 || cap[d] > cap[best]))
				best = (int32_t)d;
		if (best < 0)
			return false;
		used[best] += req[i];
	}
	return true;
}

/* The required sets of the job's tree at level l: their GPUs into req; how many. */
static uint32_t level_sets(const tph_kai_solver *sv, uint32_t l, double *req)
{
	const tph_kai_view *v = sv->s->v;
	uint32_t j = sv->job, r = 0;
	if (required_level(v, &v->jobs.topology[j]) == (int32_t)l)
		req[r++] = set_gpus(sv, -1);
	for (uint32_t c = v->jobs.sg_first[j]; c < v->jobs.sg_first[j] + v->jobs.sg_count[j]; c++)
		if (!v->subgroups.pod_set[c] &&
		    required_level(v, &v->subgroups.topology[c]) == (int32_t)l)
			req[r++] = set_gpus(sv, (int32_t)c);
	return r;
}

/* The levels the job's required constraints name, each once, into lv; how many. */
static uint32_t job_levels(const tph_kai_view *v, uint32_t j, uint32_t *lv)
{
	uint32_t n = 0;
	for (int64_t c = -1; c < (int64_t)v->jobs.sg_count[j]; c++) {
		uint32_t sg = v->jobs.sg_first[j] + (uint32_t)c;
		int32_t l = c < 0 ? required_level(v, &v->jobs.topology[j])
		            : v->subgroups.pod_set[sg]
		                ? -1
		                : required_level(v, &v->subgroups.topology[sg]);
		bool seen = l < 0;
		for (uint32_t i = 0; i < n && !seen; i++)
			seen = lv[i] == (uint32_t)l;
		if (!seen)
			lv[n++] = (uint32_t)l;
	}
	return n;
}

bool tph_kai_topology_room(tph_kai_solver *sv)
{
	const tph_kai_view *v = sv->s->v;
	uint32_t *lv = sv->filter_levels;
	uint32_t nl = job_levels(v, sv->job, lv);
	for (uint32_t i = 0; i < nl; i++) {
		uint32_t r = level_sets(sv, lv[i], sv->filter_req);
		domain_room(sv, lv[i], sv->filter_cap);
		if (!match(v, lv[i], sv->filter_cap, sv->filter_used, sv->filter_req, r))
			return false;
	}
	return true;
}

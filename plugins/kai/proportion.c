/* KAI's proportion plugin (plugins/proportion) wired into the kai session over the pure
 * arithmetic of proportion/ (proportion_int.h, plugins/kai/README.md): at open the queue columns,
 * their allocated and requested resources and the cluster totals, then the fair-share division;
 * it registers QueueOrder, QueueFairShare, the capacity checks (IsJobOverQueueCapacity,
 * IsNonPreemptibleJobOverQueueQuota, IsTaskAllocationOnNodeOverCapacity), the reclaim points
 * (CanReclaimResources, ReclaimVictimFilter, ReclaimScenarioValidator over the queue state
 * OnJobSolutionStart clones) and the event handlers that keep the allocated accounting current
 * through the statement's virtual operations. */
#include "proportion/proportion_int.h"

#include "tephra/alloc.h"
#include "tephra/kai.h"

#include <stddef.h>
#include <string.h>

typedef struct prop_state {
	kai_queues q;
	kai_queues sim; /* the queues as the job solution started (OnJobSolutionStart) */
	void *mem, *sim_mem, *scratch, *rscratch;
	double total[KAI_NRES];
	double k, saturation;
	uint32_t *tasks; /* scratch: a job's tasks to allocate */
	int64_t min_gpu_mib, max_gpu_mib;
	kai_victim_task *vt;         /* scratch of the scenario validator, [tasks] */
	kai_victim_res *vic;         /* [tasks + jobs] */
	uint32_t *min_avail, *count; /* [sub-groups] */
	/* [task * KAI_NRES] task_res at min_gpu_mib, once at open: QueueOrder sums a job's turn
	 * per comparison, and the solver compares queues per pop. */
	double *res_min;
	/* [job] tph_kai_session_job_version when turn_res[job * KAI_NRES ..] was summed (turn_res)
	 */
	uint64_t *turn_ver;
	double *turn_res;
} prop_state;

static const tph_arg_spec prop_args[] = {
    {"kValue", TPH_ARG_FLOAT, "1", -1e300, 1e300, offsetof(prop_state, k),
     "weight of historical usage in the over-quota division", NULL},
    {"relcaimerSaturationMultiplier", TPH_ARG_FLOAT, "1", -1e300, 1e300,
     offsetof(prop_state, saturation), "reclaimer saturation multiplier (>= 1)", NULL},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL},
};

/* tephra's dimension order (gpu, cpu, memory) to the arithmetic's (cpu, memory, gpu). */
static const int res_of_dim[TPH_KAI_DIMS] = {KAI_GPU, KAI_CPU, KAI_MEM};

/* A task's resources in the arithmetic's order (KAI's QuantifyVector: MIG instances count as
 * GPUs); a GPU-memory request as a fraction of device_mib (the smallest node GPU memory for
 * requests, the largest for capacity checks). */
static void task_res(const tph_kai_session *s, uint32_t t, int64_t device_mib, double out[KAI_NRES])
{
	const tph_kai_tasks *k = &tph_kai_session_view(s)->tasks;
	double req[TPH_KAI_DIMS];
	tph_kai_task_quota(s, t, req);
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		out[res_of_dim[d]] = req[d];
	if (k->gpu_memory_mib[t] > 0)
		out[KAI_GPU] +=
		    kai_gpu_memory_fraction(k->gpu_devices[t], k->gpu_memory_mib[t], device_mib);
}

static int32_t queue_of_task(const tph_kai_view *v, uint32_t t)
{
	int32_t j = v->tasks.job[t];
	return j < 0 ? -1 : v->jobs.queue[j];
}

static void set_queues(prop_state *p, const tph_kai_view *v)
{
	const tph_kai_queues *vq = &v->queues;
	for (uint32_t i = 0; i < vq->n; i++) {
		p->q.parent[i] = vq->parent[i] < 0 ? KAI_NOQ : (uint32_t)vq->parent[i];
		p->q.priority[i] = vq->priority[i];
		p->q.created[i] = vq->creation[i];
		uint32_t rank = 0;
		for (uint32_t o = 0; o < vq->n; o++)
			rank += strcmp(vq->name[o], vq->name[i]) < 0;
		p->q.rank[i] = rank;
		for (int d = 0; d < TPH_KAI_DIMS; d++) {
			const tph_kai_share *sh = &vq->res[i * TPH_KAI_DIMS + d];
			kai_share *r = &p->q.r[res_of_dim[d]];
			r->deserved[i] = sh->quota;
			r->max_allowed[i] = sh->limit;
			r->weight[i] = sh->over_quota_weight;
		}
	}
}

/* updateQueuesCurrentResourceUsage: allocated tasks and pending requests, up the tree. */
static void account_tasks(prop_state *p, const tph_kai_session *s)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	const uint8_t *st = tph_kai_session_status(s);
	for (uint32_t t = 0; t < v->tasks.n; t++) {
		int32_t q = queue_of_task(v, t);
		if (q < 0 || v->queues.dropped[q])
			continue;
		double r[KAI_NRES];
		task_res(s, t, p->min_gpu_mib, r);
		bool pre = v->jobs.preemptible[v->tasks.job[t]];
		if (tph_kai_active_allocated(st[t]))
			kai_account_allocated(&p->q, (uint32_t)q, r, pre);
		else if (st[t] == TPH_KAI_TS_PENDING)
			kai_account_pending(&p->q, (uint32_t)q, r);
	}
}

static void totals(prop_state *p, const tph_kai_view *v)
{
	const tph_kai_nodes *n = &v->nodes;
	double none[KAI_NRES] = {0};
	p->min_gpu_mib = p->max_gpu_mib = 0;
	for (uint32_t i = 0; i < n->n; i++) {
		if (!n->in_pool[i])
			continue;
		double alloc[KAI_NRES] = {0};
		alloc[KAI_CPU] = (double)n->cpu_milli[i];
		alloc[KAI_MEM] = (double)n->memory[i];
		alloc[KAI_GPU] = n->gpus[i] + n->mig_gpus[i];
		kai_total_add_node(p->total, alloc, none, n->ready[i], false);
		if (n->gpus[i] > 0) {
			int64_t m = n->gpu_memory_mib[i];
			p->min_gpu_mib = !p->min_gpu_mib || m < p->min_gpu_mib ? m : p->min_gpu_mib;
			p->max_gpu_mib = m > p->max_gpu_mib ? m : p->max_gpu_mib;
		}
	}
}

/* The init resources of job j's next turn (GetTasksToAllocateInitResource). */
/* job_res at min_gpu_mib, from the rows noted at open (the same sums in the same order). */
static void job_res_min(const prop_state *p, const uint32_t *tasks, uint32_t n,
                        double out[KAI_NRES])
{
	memset(out, 0, KAI_NRES * sizeof *out);
	for (uint32_t i = 0; i < n; i++)
		for (int k = 0; k < KAI_NRES; k++)
			out[k] += p->res_min[(size_t)tasks[i] * KAI_NRES + k];
}

static void job_res(const tph_kai_session *s, const uint32_t *tasks, uint32_t n, int64_t device_mib,
                    double out[KAI_NRES])
{
	memset(out, 0, KAI_NRES * sizeof *out);
	for (uint32_t i = 0; i < n; i++) {
		double r[KAI_NRES];
		task_res(s, tasks[i], device_mib, r);
		for (int k = 0; k < KAI_NRES; k++)
			out[k] += r[k];
	}
}

/* job_res_min of job j's turn, kept while the job's version stays (tph_kai_session_job_version):
 * QueueOrder asks for it on both sides of every comparison of every pop. */
static void turn_res(prop_state *p, const tph_kai_session *s, uint32_t j, double out[KAI_NRES])
{
	uint64_t ver = tph_kai_session_job_version(s, j);
	double *kept = p->turn_res + (size_t)j * KAI_NRES;
	if (!ver) { /* naive mode */
		job_res_min(p, p->tasks, tph_kai_tasks_to_allocate(s, j, p->tasks), out);
		return;
	}
	if (ver != p->turn_ver[j]) {
		uint32_t n = tph_kai_tasks_to_allocate(s, j, p->tasks);
		job_res_min(p, p->tasks, n, kept);
		p->turn_ver[j] = ver;
	}
	memcpy(out, kept, KAI_NRES * sizeof *out);
}

static void victims_res(const double *v, double out[KAI_NRES])
{
	for (int d = 0; v && d < TPH_KAI_DIMS; d++)
		out[res_of_dim[d]] = v[d];
}

static int queue_order(void *state, const tph_kai_session *s, uint32_t lq, uint32_t rq,
                       int32_t ljob, int32_t rjob, const double *lvictims, const double *rvictims)
{
	prop_state *p = state;
	kai_qo_side l = {.queue = lq}, r = {.queue = rq};
	victims_res(lvictims, l.victims);
	victims_res(rvictims, r.victims);
	if (ljob >= 0)
		turn_res(p, s, (uint32_t)ljob, l.job);
	if (rjob >= 0)
		turn_res(p, s, (uint32_t)rjob, r.job);
	return kai_queue_order(&p->q, p->total, &l, &r);
}

static bool job_capacity(void *state, const tph_kai_session *s, uint32_t j, const uint32_t *tasks,
                         uint32_t n)
{
	prop_state *p = state;
	const tph_kai_view *v = tph_kai_session_view(s);
	double req[KAI_NRES];
	job_res(s, tasks, n, p->max_gpu_mib, req);
	kai_verdict verdict;
	return kai_job_over_capacity(&p->q, (uint32_t)v->jobs.queue[j], req, v->jobs.preemptible[j],
	                             &verdict) == KAI_SCHEDULABLE;
}

static bool nonpreemptible_quota(void *state, const tph_kai_session *s, uint32_t j,
                                 const uint32_t *tasks, uint32_t n)
{
	prop_state *p = state;
	const tph_kai_view *v = tph_kai_session_view(s);
	double req[KAI_NRES];
	job_res(s, tasks, n, p->max_gpu_mib, req);
	kai_verdict verdict;
	return kai_nonpreemptible_over_quota(&p->q, (uint32_t)v->jobs.queue[j], req,
	                                     v->jobs.preemptible[j], &verdict) == KAI_SCHEDULABLE;
}

/* A task's quota on one node: a GPU-memory request as a fraction of that node's GPU memory. */
static bool task_capacity(void *state, const tph_kai_session *s, uint32_t t, uint32_t node)
{
	prop_state *p = state;
	const tph_kai_view *v = tph_kai_session_view(s);
	double req[KAI_NRES];
	task_res(s, t, v->nodes.gpu_memory_mib[node], req);
	int32_t j = v->tasks.job[t];
	kai_verdict verdict;
	return j < 0 || kai_job_over_capacity(&p->q, (uint32_t)v->jobs.queue[j], req,
	                                      v->jobs.preemptible[j], &verdict) == KAI_SCHEDULABLE;
}

/* buildReclaimerInfo: the queue, the init resources of tasks[0..n), preemptibility. */
static kai_reclaimer reclaimer_of(prop_state *p, const tph_kai_session *s, uint32_t j,
                                  const uint32_t *tasks, uint32_t n)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	kai_reclaimer r = {.queue = (uint32_t)v->jobs.queue[j],
	                   .preemptible = v->jobs.preemptible[j]};
	job_res(s, tasks, n, p->min_gpu_mib, r.req);
	r.involved = kai_involved(r.req);
	return r;
}

/* buildReclaimerInfo of job j's next turn. */
static kai_reclaimer reclaimer(prop_state *p, const tph_kai_session *s, uint32_t j)
{
	return reclaimer_of(p, s, j, p->tasks, tph_kai_tasks_to_allocate(s, j, p->tasks));
}

static bool can_reclaim(void *state, const tph_kai_session *s, uint32_t j)
{
	prop_state *p = state;
	kai_reclaimer r = reclaimer(p, s, j);
	return kai_can_reclaim(&p->q, &r);
}

static bool victim_filter(void *state, const tph_kai_session *s, uint32_t preemptor,
                          uint32_t victim)
{
	prop_state *p = state;
	kai_reclaimer r = reclaimer(p, s, preemptor);
	return kai_filter_victim(&p->q, &r, (uint32_t)tph_kai_session_view(s)->jobs.queue[victim]);
}

static void solution_start(void *state, const tph_kai_session *s)
{
	prop_state *p = state;
	(void)s;
	kai_queues_copy(&p->sim, &p->q);
}

/* getVictimResources of one victim job: its scenario tasks per pod set (the job's pod sets
 * numbered from its first sub-group), those re-placed (an active status now) left out when
 * consolidating reclaim is allowed. Returns the vectors written at out. */
static uint32_t victim_res(prop_state *p, const tph_kai_session *s, uint32_t j,
                           const uint32_t *tasks, uint32_t n, kai_victim_res *out)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	const uint8_t *st = tph_kai_session_status(s);
	uint32_t first = v->jobs.sg_first[j], nps = v->jobs.sg_count[j], m = 0;
	for (uint32_t c = 0; c < nps; c++)
		p->min_avail[c] = v->subgroups.pod_set[first + c]
		                      ? (uint32_t)v->subgroups.min_member[first + c]
		                      : 0;
	for (uint32_t i = 0; i < n; i++) {
		if (v->tasks.pod_set[tasks[i]] < 0)
			continue;
		p->vt[m].podset = (uint32_t)v->tasks.pod_set[tasks[i]] - first;
		p->vt[m].moved = tph_kai_active_allocated(st[tasks[i]]);
		task_res(s, tasks[i], p->min_gpu_mib, p->vt[m].v);
		m++;
	}
	return kai_victim_vectors((uint32_t)v->jobs.queue[j], p->vt, m, p->min_avail, p->count, nps,
	                          v->params.allow_consolidating_reclaim, out);
}

static bool reclaim_valid(void *state, const tph_kai_session *s, const tph_kai_scenario *sc)
{
	prop_state *p = state;
	/* KAI asks with the partial job, whose init resources were summed (and kept) while its
	 * k tasks were pending: the re-placement queue's QueueOrder asked for them first. */
	kai_reclaimer r = reclaimer_of(p, s, sc->preemptor, sc->partial, sc->n_partial);
	uint32_t nv = 0;
	for (uint32_t i = 0; i < sc->n_victims; i++) {
		const uint32_t *t = sc->tasks + sc->task_first[i];
		uint32_t n = sc->task_first[i + 1] - sc->task_first[i];
		nv += victim_res(p, s, sc->victim_job[i], t, n, p->vic + nv);
	}
	return kai_reclaimable(&p->sim, &r, p->vic, nv, p->saturation, p->rscratch);
}

static void on_event(void *state, const tph_kai_session *s, uint32_t t, int32_t node, int sign)
{
	prop_state *p = state;
	const tph_kai_view *v = tph_kai_session_view(s);
	int32_t q = queue_of_task(v, t);
	(void)node;
	if (q < 0)
		return;
	kai_account_event(&p->q, (uint32_t)q, p->res_min + (size_t)t * KAI_NRES,
	                  v->jobs.preemptible[v->tasks.job[t]], sign);
}

/* QueueFairShare: the division's result, in tephra's dimension order. */
static void fair_share(void *state, const tph_kai_session *s, uint32_t q, double out[TPH_KAI_DIMS])
{
	const prop_state *p = state;
	(void)s;
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		out[d] = p->q.r[res_of_dim[d]].fair[q];
}

static int open_prop(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	prop_state *p = tph_calloc(1, sizeof *p);
	if (!p)
		return tph_diag_set(d, TPH_ENOMEM, "proportion: out of memory");
	*state = p;
	tph_args_apply(args, prop_args, p, d, "proportion");
	p->k = p->k < 0 ? 0 : p->k;
	p->saturation = p->saturation < 1 ? 1 : p->saturation;
	size_t nt = (size_t)v->tasks.n + 1, nsg = (size_t)v->subgroups.n + 1;
	p->mem = tph_malloc(kai_queues_bytes(v->queues.n));
	p->sim_mem = tph_malloc(kai_queues_bytes(v->queues.n));
	p->scratch = tph_malloc(kai_share_scratch_bytes(v->queues.n));
	p->rscratch = tph_malloc(kai_reclaim_scratch_bytes(v->queues.n) + 8);
	p->tasks = tph_calloc(nt, sizeof *p->tasks);
	p->vt = tph_calloc(nt, sizeof *p->vt);
	p->vic = tph_calloc(nt + v->jobs.n, sizeof *p->vic);
	p->min_avail = tph_calloc(nsg, sizeof *p->min_avail);
	p->count = tph_calloc(nsg, sizeof *p->count);
	p->res_min = tph_malloc(nt * KAI_NRES * sizeof *p->res_min);
	p->turn_ver = tph_calloc((size_t)v->jobs.n + 1, sizeof *p->turn_ver);
	p->turn_res = tph_calloc(((size_t)v->jobs.n + 1) * KAI_NRES, sizeof *p->turn_res);
	if (!p->mem || !p->sim_mem || !p->scratch || !p->rscratch || !p->tasks || !p->vt ||
	    !p->vic || !p->min_avail || !p->count || !p->res_min || !p->turn_ver || !p->turn_res)
		return tph_diag_set(d, TPH_ENOMEM, "proportion: out of memory");
	kai_queues_init(&p->q, v->queues.n, p->mem);
	kai_queues_init(&p->sim, v->queues.n, p->sim_mem);
	set_queues(p, v);
	totals(p, v);
	for (uint32_t t = 0; t < v->tasks.n; t++)
		task_res(s, t, p->min_gpu_mib, p->res_min + (size_t)t * KAI_NRES);
	account_tasks(p, s);
	if (kai_share_tree(&p->q, p->total, p->k, p->scratch) < 0)
		return tph_diag_set(d, TPH_EINVAL, "proportion: the queue tree has a cycle");
	int rc = tph_kai_add_queue_order(s, queue_order, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_job_capacity(s, job_capacity, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_event_handler(s, on_event, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_fair_share(s, fair_share, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_can_reclaim(s, can_reclaim, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_victim_filter(s, TPH_KAI_RECLAIM, victim_filter, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_scenario_validator(s, TPH_KAI_RECLAIM, reclaim_valid, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_job_solution_start(s, solution_start, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_nonpreemptible_quota(s, nonpreemptible_quota, p);
	if (rc == TPH_OK)
		rc = tph_kai_add_task_capacity(s, task_capacity, p);
	return rc < 0 ? tph_diag_set(d, rc, "proportion: cannot register") : TPH_OK;
}

static void close_prop(tph_kai_session *s, void *state)
{
	prop_state *p = state;
	(void)s;
	if (!p)
		return;
	tph_free(p->mem);
	tph_free(p->sim_mem);
	tph_free(p->scratch);
	tph_free(p->rscratch);
	tph_free(p->tasks);
	tph_free(p->vt);
	tph_free(p->vic);
	tph_free(p->min_avail);
	tph_free(p->count);
	tph_free(p->res_min);
	tph_free(p->turn_ver);
	tph_free(p->turn_res);
	tph_free(p);
}

const tph_kai_plugin tph_kai_plugin_proportion = {TPH_KAI_PLUGIN_ABI, "proportion", open_prop,
                                                  close_prop};

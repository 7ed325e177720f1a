/* Planning the workload: the running load node by node (grouped into running jobs), then the
 * pending gangs with their sizes, requests, roles, priorities and constraints. */
#include "gen.h"

#include <math.h>
#include <stdlib.h>

enum {
	SECTION_RUNNING = 4,
	SECTION_JOBS = 5
};

/* Queues for running work: by weight, except that under preemption the first quarter of the
 * queues holds most of it, so they are over their share and reclaim has victims. */
static uint32_t pick_queue(gen_state *g, gen_rng *r, bool running)
{
	uint32_t nq = g->o->queues;
	bool piled = g->o->kind == TPH_GEN_PREEMPT || g->o->kind == TPH_GEN_MIXED;
	if (running && piled && nq >= 4 && rng_pct(r, 60))
		return rng_below(r, nq / 4);
	return rng_weighted(r, g->queue_weight, nq);
}

static int new_running_job(gen_state *g, gen_rng *r, uint32_t *cap)
{
	if (gen_grow((void **)&g->rjobs, cap, g->n_rjobs + 1, sizeof *g->rjobs))
		return -1;
	gen_job *j = &g->rjobs[g->n_rjobs++];
	*j = (gen_job){0};
	j->queue = pick_queue(g, r, true);
	j->min = rng_range(r, 1, 8); /* the size it will reach; trimmed at the end */
	j->phase = PHASE_RUNNING;
	bool mixed = g->o->kind == TPH_GEN_MIXED;
	j->prio = g->o->kind == TPH_GEN_PREEMPT ? PRIO_LOW
	          : rng_pct(r, mixed ? 50 : 70) ? PRIO_NORMAL
	                                        : PRIO_LOW;
	j->created = GEN_NOW - (int64_t)rng_range(r, 3600, 86400);
	return 0;
}

/* One running pod sized to what is left of the node's target. */
static bool pick_running_pod(gen_rng *r, const gen_node_type *t, int64_t cpu_left, int64_t mem_left,
                             int64_t gpu_left, gen_pod *p)
{
	static const int64_t cores[] = {1, 2, 4, 8, 16};
	int64_t c = cores[rng_below(r, 5)] * 1000;
	while (c > cpu_left && c > 1000)
		c /= 2;
	int64_t m = c / 1000 * (int64_t)(2u << rng_below(r, 3)) * GIB;
	while (m > mem_left && m > GIB / 2)
		m /= 2;
	if (c > cpu_left || m > mem_left)
		return false;
	p->cpu = c, p->mem = m;
	p->gpu = t->gpu && gpu_left > 0 ? 1 + (int64_t)rng_below(r, (uint32_t)gpu_left) : 0;
	return true;
}

static int fill_node(gen_state *g, gen_rng *r, uint32_t i, uint32_t *cap, uint32_t *jcap)
{
	const gen_node_type *t = gen_node(g, i);
	int spread = g->o->load_pct >= 15 ? 15 : (int)g->o->load_pct;
	int pct = (int)g->o->load_pct - spread + (int)rng_below(r, (uint32_t)(2 * spread + 1));
	pct = pct > 98 ? 98 : pct;
	int64_t cpu_left = t->cpu * pct / 100, mem_left = t->mem * pct / 100;
	int64_t gpu_left = (int64_t)t->gpu * pct / 100;
	for (gen_pod p; pick_running_pod(r, t, cpu_left, mem_left, gpu_left, &p);) {
		if (!g->n_rjobs || g->rjobs[g->n_rjobs - 1].size >= g->rjobs[g->n_rjobs - 1].min)
			if (new_running_job(g, r, jcap))
				return -1;
		if (gen_grow((void **)&g->run, cap, g->n_run + 1, sizeof *g->run))
			return -1;
		p.node = i;
		p.job = g->n_rjobs - 1;
		g->run[g->n_run++] = p;
		g->rjobs[p.job].size++;
		cpu_left -= p.cpu, mem_left -= p.mem, gpu_left -= p.gpu;
	}
	return 0;
}

int gen_plan_running(gen_state *g)
{
	gen_rng r = rng_stream(g->o->seed, SECTION_RUNNING);
	uint32_t cap = 0, jcap = 0;
	for (uint32_t i = 0; g->o->load_pct && i < g->o->nodes; i++)
		if (fill_node(g, &r, i, &cap, &jcap))
			return -1;
	for (uint32_t k = 0; k < g->n_rjobs; k++)
		g->rjobs[k].min = g->rjobs[k].size;
	g->st.running_jobs = g->n_rjobs;
	g->st.running_tasks = g->n_run;
	return 0;
}

/* ---- pending gangs ---- */

/* Sizes: 1 with probability p, else log-uniform over [2, max], with p chosen so that the mean
 * is tasks/jobs (log-uniform over [2, M] has mean (M - 2) / ln(M / 2)). */
static uint32_t gang_size(gen_rng *r, double p_one, uint32_t max)
{
	if (max <= 1 || rng_unit(r) < p_one)
		return 1;
	double v = 2.0 * pow((double)max / 2.0, rng_unit(r));
	uint32_t s = (uint32_t)v;
	return s > max ? max : s < 2 ? 2 : s;
}

static double p_one_for(const tph_gen_opts *o)
{
	double mean = o->jobs ? (double)o->tasks / o->jobs : 1.0;
	double m = o->max_gang;
	double lu = m > 2 ? (m - 2) / log(m / 2) : 2.0;
	double p = lu > 1 ? (lu - mean) / (lu - 1) : 1.0;
	return p < 0 ? 0 : p > 1 ? 1 : p;
}

static void job_requests(gen_state *g, gen_rng *r, gen_job *j)
{
	bool gpu = g->o->gpu_pct && rng_pct(r, g->o->kind == TPH_GEN_TOPOLOGY ? 50 : 15);
	if (gpu) {
		static const uint32_t w[] = {40, 30, 20, 10};
		j->gpu = (int64_t)1 << rng_weighted(r, w, 4);
		j->cpu = j->gpu * (rng_pct(r, 50) ? 4000 : 8000);
		j->mem = j->gpu * (rng_pct(r, 50) ? 16 : 32) * GIB;
		j->flags |= JOB_GPU;
		return;
	}
	static const int64_t cpu[] = {500, 1000, 2000, 4000, 8000};
	static const uint32_t w[] = {15, 30, 25, 20, 10};
	j->cpu = cpu[rng_weighted(r, w, 5)];
	j->mem = j->cpu * (int64_t)(1u << rng_below(r, 3)) * GIB / 1000;
}

static void job_constraints(gen_state *g, gen_rng *r, gen_job *j)
{
	uint32_t roll = rng_below(r, 100);
	if (j->flags & JOB_GPU) {
		if (roll < 30) {
			j->flags |= JOB_TYPE_SEL;
			j->sel =
			    (uint8_t)(gen_n_node_types - 1 - (j->gpu > 4 ? 0 : rng_below(r, 2)));
		}
	} else if (roll < 12) {
		j->flags |= JOB_ZONE_SEL;
		j->sel = (uint8_t)rng_below(r, GEN_ZONES);
	} else if (roll < 20) {
		j->flags |= JOB_TYPE_AFF;
	} else if (roll < 30) {
		j->flags |= JOB_ZONE_PREF;
		j->sel = (uint8_t)rng_below(r, GEN_ZONES);
	} else if (rng_pct(r, g->o->pod_affinity_pct)) {
		j->flags |= j->size <= 16 ? JOB_ANTI : JOB_SPREAD;
	}
	/* the mixed profile: a fifth of the gangs ask for a topology */
	bool topo =
	    g->o->kind == TPH_GEN_TOPOLOGY || (g->o->kind == TPH_GEN_MIXED && rng_pct(r, 20));
	if (g->o->tiers && topo) {
		uint32_t t = rng_below(r, 100);
		j->flags |= t < 60 ? JOB_TOPO_HARD : t < 80 ? JOB_TOPO_SOFT : 0;
		j->topo_tier = (uint8_t)(j->size <= g->o->rack_size || g->o->tiers < 2 ? 1 : 2);
	}
}

static void plan_job(gen_state *g, gen_rng *r, gen_job *j, uint32_t size)
{
	*j = (gen_job){0};
	j->size = size;
	j->queue = pick_queue(g, r, false);
	job_requests(g, r, j);
	if (size >= 4 && rng_pct(r, 50))
		j->flags |= JOB_MASTER;
	j->min = rng_pct(r, 75) ? size : (size * 3 + 3) / 4;
	bool preempt = g->o->kind == TPH_GEN_PREEMPT, mixed = g->o->kind == TPH_GEN_MIXED;
	uint32_t p = rng_below(r, 100);
	uint32_t high = preempt ? 70 : mixed ? 30 : 10, normal = preempt ? 100 : 80;
	j->prio = p < high ? PRIO_HIGH : p < normal ? PRIO_NORMAL : PRIO_LOW;
	j->phase = rng_pct(r, preempt ? 90 : 80) ? PHASE_INQUEUE : PHASE_PENDING;
	j->created = GEN_NOW - (int64_t)rng_range(r, 1, 7200);
	job_constraints(g, r, j);
}

int gen_plan_jobs(gen_state *g)
{
	const tph_gen_opts *o = g->o;
	gen_rng r = rng_stream(o->seed, SECTION_JOBS);
	double p_one = p_one_for(o);
	uint32_t cap = 0, left = o->tasks;
	while (left) {
		uint32_t size = gang_size(&r, p_one, o->max_gang);
		size = size > left ? left : size;
		if (gen_grow((void **)&g->jobs, &cap, g->n_jobs + 1, sizeof *g->jobs))
			return -1;
		plan_job(g, &r, &g->jobs[g->n_jobs++], size);
		left -= size;
	}
	g->st.jobs = g->n_jobs;
	g->st.tasks = o->tasks;
	return 0;
}

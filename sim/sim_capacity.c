/* `--capacity`: the experiment of the FGD paper (Weng et al., ATC'23) on any workload. The
 * workload is inflated as FGD's simulator does (jobs drawn again with replacement until their GPU
 * request reaches the stop percentage of the cluster's GPUs); jobs arrive one per cycle in a
 * random order drawn from the seed, nothing departs, and a job the session could not place is
 * dropped (FGD's simulator discards it) rather than retried, until the arrived GPU request
 * reaches the stop percentage. Each cycle is a full
 * session: batching arrivals would let the session's job order (priority, queue share, creation)
 * reorder them, which is not the one-by-one placement the experiment measures. */
#include "sim_loop.h"
#include "gen_io.h"

#include <stdlib.h>
#include <string.h>

static bool fresh(const sim_job *j)
{
	return j->n_pods && !j->placed && !j->done;
}

static int64_t gpu_of(const sim_workload *w, const sim_job *j)
{
	int64_t g = 0;
	for (uint32_t p = j->first_pod; p < j->first_pod + j->n_pods; p++)
		g += w->pods[p].req[R_GPU];
	return g;
}

static char *suffixed(sim_arena *a, const char *name, uint32_t k)
{
	size_t n = strlen(name) + 16;
	char *s = sim_alloc(a, n);
	if (s)
		snprintf(s, n, "%s-c%u", name, k);
	return s;
}

/* Job `src` again, as clone k: the same spec under new names, appended to the arrays. */
static void clone(sim_workload *w, uint32_t src, uint32_t k)
{
	sim_job *j = &w->jobs[w->n_jobs];
	*j = w->jobs[src];
	if (j->d.name)
		j->d.name = suffixed(&w->arena, j->d.name, k);
	j->first_pod = w->n_pods;
	for (uint32_t p = 0; p < j->n_pods; p++) {
		sim_pod *pod = &w->pods[w->n_pods++];
		*pod = w->pods[w->jobs[src].first_pod + p];
		pod->d.name = suffixed(&w->arena, pod->d.name, k);
		pod->d.uid = NULL;
		pod->d.pod_group = j->d.name;
		pod->job = w->n_jobs;
	}
	w->n_jobs++;
}

/* FGD's inflation: jobs drawn again (with replacement) until the workload's GPU request reaches
 * the stop percentage; the originals and the copies then arrive in one shuffled order. */
static int inflate(sim_workload *w, gen_rng *r, double stop_pct, uint32_t *order, uint32_t n)
{
	int64_t total = 0, target = (int64_t)(stop_pct / 100 * (double)w->cap[R_GPU]);
	uint32_t extra = 0, extra_pods = 0, cap = n + 1;
	uint32_t *draws = malloc(cap * sizeof *draws);
	if (!draws)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		total += gpu_of(w, &w->jobs[order[i]]);
	for (int64_t t = total; n && t < target; extra++) {
		if (extra == cap) {
			uint32_t *nd = realloc(draws, (cap *= 2) * sizeof *nd);
			if (!nd)
				return free(draws), -1;
			draws = nd;
		}
		draws[extra] = order[rng_below(r, n)];
		t += gpu_of(w, &w->jobs[draws[extra]]);
		extra_pods += w->jobs[draws[extra]].n_pods;
	}
	sim_job *jobs = sim_alloc(&w->arena, (w->n_jobs + extra + 1) * sizeof *jobs);
	sim_pod *pods = sim_alloc(&w->arena, (w->n_pods + extra_pods + 1) * sizeof *pods);
	if (jobs && pods) {
		memcpy(jobs, w->jobs, w->n_jobs * sizeof *jobs);
		memcpy(pods, w->pods, w->n_pods * sizeof *pods);
		w->jobs = jobs, w->pods = pods;
		for (uint32_t i = 0; i < extra; i++)
			clone(w, draws[i], i + 1);
	}
	free(draws);
	return w->arena.failed || sim_workload_index(w) ? -1 : 0;
}

static int shuffle(sim_workload *w, uint64_t seed, int64_t period, double stop_pct)
{
	gen_rng r = rng_stream(seed, 103);
	uint32_t n = 0, *order = malloc((w->n_jobs + 1) * sizeof *order);
	if (!order)
		return -1;
	for (uint32_t j = 0; j < w->n_jobs; j++)
		if (fresh(&w->jobs[j]))
			order[n++] = j;
	uint32_t first = w->n_jobs;
	int rc = inflate(w, &r, stop_pct, order, n);
	uint32_t *all = rc ? NULL : realloc(order, (w->n_jobs + 1) * sizeof *order);
	if (!all)
		return free(order), -1;
	for (uint32_t j = first; j < w->n_jobs; j++)
		all[n++] = j;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t k = rng_below(&r, i), t = all[i - 1];
		all[i - 1] = all[k];
		all[k] = t;
	}
	for (uint32_t i = 0; i < n; i++) {
		w->jobs[all[i]].arrive_ms = w->now_ms + (int64_t)(i + 1) * period;
		w->jobs[all[i]].dur_ms = -1;
		w->jobs[all[i]].dropped = false;
	}
	free(all);
	w->end_ms = INT64_MAX;
	return 0;
}

/* The job the session could not place leaves: FGD counts it as failed and moves on. */
static int drop(loop *l, sim_job *j)
{
	int rc = 0;
	for (uint32_t p = j->first_pod; p < j->first_pod + j->n_pods && !rc; p++) {
		sim_pod *pod = &l->w->pods[p];
		if (pod->state != POD_PENDING)
			continue;
		pod->state = POD_WAITING;
		l->pending_tasks--;
		rc = tph_cluster_remove_pod(l->w->cache, pod->d.namespace_, pod->d.name, &l->d);
	}
	if (!rc && !j->placed && j->d.name)
		rc = tph_cluster_remove_podgroup(l->w->cache, j->d.namespace_, j->d.name, &l->d);
	l->pending_jobs -= j->start_ms < 0;
	return rc;
}

static int point(sim_run *r, double x, double y)
{
	if (!(r->n_cap & (r->n_cap + 1))) {
		size_t cap = 2 * (size_t)r->n_cap + 2;
		double *nx = realloc(r->cap_x, cap * sizeof *nx);
		if (!nx)
			return TPH_ENOMEM;
		r->cap_x = nx;
		double *ny = realloc(r->cap_y, cap * sizeof *ny);
		if (!ny)
			return TPH_ENOMEM;
		r->cap_y = ny;
	}
	r->cap_x[r->n_cap] = x;
	r->cap_y[r->n_cap++] = y;
	return 0;
}

static int arrivals(loop *l, double stop_pct)
{
	sim_workload *w = l->w;
	double gpus = (double)w->cap[R_GPU], arrived = 0;
	int rc = 0;
	for (uint32_t k = 0; k < w->n_waiting && !rc && 100 * arrived < stop_pct * gpus; k++) {
		sim_job *j = &w->jobs[w->arrival_order[k]];
		int64_t t = j->arrive_ms;
		if ((rc = sim_events(l, t)) || (rc = sim_cycle_run(l, t)))
			break;
		for (uint32_t p = j->first_pod; p < j->first_pod + j->n_pods; p++)
			arrived += (double)w->pods[p].req[R_GPU];
		if (j->start_ms < 0)
			rc = drop(l, j);
		if (!rc)
			rc = point(l->r, 100 * arrived / gpus, 100 * (double)l->used[R_GPU] / gpus);
		sim_progress(l->o, 100 * arrived / (stop_pct * gpus), (t - w->t0_ms) / 1000);
	}
	return rc;
}

int sim_capacity(sim_workload *w, const tph_conf *conf, const sim_opts *o, uint64_t seed,
                 double stop_pct, sim_run *r)
{
	tph_diag d = {.warn = TPH_WARN_SILENT};
	if (!w->cap[R_GPU]) {
		fprintf(stderr, "tephra simulate: --capacity: the cluster has no GPUs\n");
		return 2;
	}
	if (shuffle(w, seed, o->period_ms, stop_pct) || sim_workload_start(w, &d))
		return 2;
	loop l;
	double t0 = sim_now_ms();
	int rc = loop_init(&l, w, conf, o, r);
	if (!rc)
		rc = arrivals(&l, stop_pct);
	sim_progress(o, -1, 0);
	if (rc)
		fprintf(stderr, "tephra simulate: %s\n", l.d.msg[0] ? l.d.msg : tph_strerror(rc));
	loop_free(&l);
	r->cap_wall_ms = r->wall_ms = sim_now_ms() - t0;
	return rc ? 2 : 0;
}

/* The workload: a loaded scenario read back through one action-less session's view into pod
 * and podgroup templates, nodes and queues, with each podgroup's arrival (its creationTimestamp)
 * and duration (its tephra.io/duration annotation). sim_workload_start() then takes out of the
 * cache what arrives later. */
#include "sim.h"

#include <stdlib.h>
#include <string.h>

const char *const sim_res_names[R_N] = {"cpu", "memory", "gpu"};

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

static uint64_t key_hash(const char *ns, const char *name)
{
	return fnv(fnv(fnv(0xcbf29ce484222325ull, ns, strlen(ns)), "/", 1), name, strlen(name));
}

int sim_workload_index(sim_workload *w)
{
	free(w->slot);
	w->n_slots = 16;
	while (w->n_slots < 2 * w->n_pods)
		w->n_slots *= 2;
	w->slot = malloc(w->n_slots * sizeof *w->slot);
	if (!w->slot)
		return -1;
	memset(w->slot, 0xff, w->n_slots * sizeof *w->slot);
	for (uint32_t p = 0; p < w->n_pods; p++) {
		uint32_t i =
		    key_hash(w->pods[p].d.namespace_, w->pods[p].d.name) & (w->n_slots - 1);
		while (w->slot[i] != UINT32_MAX)
			i = (i + 1) & (w->n_slots - 1);
		w->slot[i] = p;
	}
	return 0;
}

uint32_t sim_pod_find(const sim_workload *w, const char *key)
{
	const char *slash = strchr(key, '/');
	if (!slash)
		return UINT32_MAX;
	size_t nsl = (size_t)(slash - key);
	uint32_t i = fnv(0xcbf29ce484222325ull, key, strlen(key)) & (w->n_slots - 1);
	for (; w->slot[i] != UINT32_MAX; i = (i + 1) & (w->n_slots - 1)) {
		const tph_pod_desc *d = &w->pods[w->slot[i]].d;
		if (!strncmp(d->namespace_, key, nsl) && !d->namespace_[nsl] &&
		    !strcmp(d->name, slash + 1))
			return w->slot[i];
	}
	return UINT32_MAX;
}

/* The GPU dimension: nvidia.com/gpu, else the first scalar whose name ends in "gpu". */
static uint32_t gpu_dim(const tph_session *s)
{
	uint32_t nd = tph_session_dim_count(s), found = TPH_NOIDX;
	for (uint32_t d = TPH_RES_FIXED; d < nd; d++) {
		const char *n = tph_session_dim_name(s, d);
		size_t l = strlen(n);
		if (!strcmp(n, "nvidia.com/gpu"))
			return d;
		if (found == TPH_NOIDX && l >= 3 && !strcmp(n + l - 3, "gpu"))
			found = d;
	}
	return found;
}

static void read_res(const int64_t *row, uint32_t gd, int64_t *out)
{
	out[R_CPU] = row[TPH_RES_CPU];
	out[R_MEM] = row[TPH_RES_MEMORY];
	out[R_GPU] = gd == TPH_NOIDX ? 0 : row[gd];
}

static void read_nodes(const tph_session *s, sim_workload *w, uint32_t gd)
{
	const tph_node_store *ns = tph_view_of(s)->nodes;
	w->n_nodes = ns->n;
	for (uint32_t i = 0; i < ns->n; i++) {
		sim_node *n = &w->nodes[i];
		n->name = sim_strdup(&w->arena, tph_session_str(s, ns->name[i]));
		for (int r = 0; r < R_N; r++) {
			uint32_t d = r == R_CPU ? TPH_RES_CPU : r == R_MEM ? TPH_RES_MEMORY : gd;
			n->alloc[r] = d == TPH_NOIDX ? 0 : ns->alloc[(size_t)d * ns->stride + i];
			w->cap[r] += n->alloc[r];
		}
		n->gpus = n->alloc[R_GPU] / 1000;
	}
}

static void read_queues(const tph_session *s, sim_workload *w, uint32_t gd)
{
	const tph_view *v = tph_view_of(s);
	const tph_queue_store *qs = v->queues;
	w->n_queues = qs->n;
	for (uint32_t q = 0; q < qs->n; q++) {
		sim_queue *sq = &w->queues[q];
		sq->name = sim_strdup(&w->arena, tph_session_str(s, qs->name[q]));
		sq->weight = qs->weight[q];
		int64_t cap[R_N];
		read_res(&qs->capability[(size_t)q * v->ndim], gd, cap);
		for (int r = 0; r < R_N; r++) {
			uint32_t d = r == R_CPU ? TPH_RES_CPU : r == R_MEM ? TPH_RES_MEMORY : gd;
			bool set = d != TPH_NOIDX && (qs->cap_mask[q] >> d & 1);
			sq->capability[r] = set ? cap[r] : -1;
		}
	}
}

/* A podgroup's run time: tephra.io/duration or elasticflow/duration, in seconds; -1 without. */
static int64_t duration_ms(const tph_podgroup_desc *g)
{
	for (uint32_t i = 0; i < g->annotations.n; i++) {
		const tph_kv *kv = &g->annotations.items[i];
		if (strcmp(kv->key, SIM_DURATION_KEY) && strcmp(kv->key, "elasticflow/duration"))
			continue;
		char *end;
		double s = strtod(kv->value, &end);
		return end != kv->value && !*end && s >= 0 ? (int64_t)(s * 1000) : -1;
	}
	return -1;
}

static void read_job(const tph_session *s, sim_workload *w, tph_idx j, uint32_t gd)
{
	const tph_view *v = tph_view_of(s);
	const tph_job_store *js = v->jobs;
	sim_job *job = &w->jobs[w->n_jobs];
	uint32_t a = js->task_off[j], b = js->task_off[j + 1];
	bool own = b > a && (v->tasks->flags[js->task_idx[a]] & TPH_TASK_OWN_JOB);
	if (!own)
		sim_group_desc(s, j, &w->arena, &job->d);
	job->queue = js->queue[j];
	job->min_member = js->min_member[j];
	job->first_pod = w->n_pods;
	job->n_pods = b - a;
	job->arrive_ms = js->creation[j];
	job->dur_ms = own ? -1 : duration_ms(&job->d);
	job->start_ms = job->end_ms = -1;
	for (uint32_t k = a; k < b; k++) {
		tph_idx t = js->task_idx[k];
		sim_pod *p = &w->pods[w->n_pods++];
		sim_pod_desc(s, t, &w->arena, &p->d);
		read_res(&v->tasks->req[(size_t)t * v->ndim], gd, p->req);
		p->job = w->n_jobs;
		p->node = -1;
		p->end_ms = INT64_MAX;
		uint8_t st = v->tasks->status[t];
		if (tph_ts_allocated(st) || st == TPH_TS_RELEASING) {
			p->node = (int32_t)v->tasks->node[t];
			p->state = POD_RUNNING; /* the load already there: it keeps running */
			job->placed++;
		} else
			p->state = st == TPH_TS_SUCCEEDED ? POD_DONE : POD_PENDING;
		job->done += p->state == POD_DONE;
	}
	w->n_jobs++;
}

static int extract(const tph_session *s, sim_workload *w)
{
	const tph_view *v = tph_view_of(s);
	uint32_t gd = gpu_dim(s);
	w->gpu_res =
	    gd == TPH_NOIDX ? "nvidia.com/gpu" : sim_strdup(&w->arena, tph_session_dim_name(s, gd));
	w->nodes = sim_alloc(&w->arena, (v->nodes->n + 1) * sizeof *w->nodes);
	w->queues = sim_alloc(&w->arena, (v->queues->n + 1) * sizeof *w->queues);
	w->jobs = sim_alloc(&w->arena, (v->jobs->n + 1) * sizeof *w->jobs);
	w->pods = sim_alloc(&w->arena, (v->tasks->n + 1) * sizeof *w->pods);
	if (w->arena.failed)
		return -1;
	read_nodes(s, w, gd);
	read_queues(s, w, gd);
	for (tph_idx j = 0; j < v->jobs->n; j++)
		read_job(s, w, j, gd);
	return w->arena.failed ? -1 : 0;
}

int sim_workload_from_scenario(tph_scenario *scn, sim_workload *w, tph_diag *d)
{
	static const char none[] = "actions: \"\"\n";
	memset(w, 0, sizeof *w);
	w->name = tph_scenario_name(scn)[0] ? tph_scenario_name(scn) : tph_scenario_file(scn);
	w->cache = tph_scenario_cluster(scn);
	w->now_ms = tph_scenario_now(scn);
	w->end_ms = INT64_MAX;
	tph_conf *conf = NULL;
	tph_snapshot *snap = NULL;
	tph_session *s = NULL;
	int rc = tph_conf_load_string(none, sizeof none - 1, "simulate", true, &conf, d);
	if (!rc)
		rc = tph_cluster_snapshot(w->cache, w->now_ms, &snap, d);
	if (!rc)
		rc = tph_session_open(snap, conf, NULL, &s, d);
	if (!rc)
		rc = extract(s, w) ? TPH_ENOMEM : 0;
	tph_session_free(s);
	tph_snapshot_release(snap);
	tph_conf_free(conf);
	if (!rc && sim_workload_index(w))
		rc = TPH_ENOMEM;
	if (rc)
		fprintf(stderr, "tephra simulate: %s: %s\n", tph_scenario_file(scn),
		        d->msg[0] ? d->msg : tph_strerror(rc));
	return rc ? 2 : 0;
}

void sim_workload_free(sim_workload *w)
{
	free(w->slot);
	free(w->arrival_order);
	sim_arena_free(&w->arena);
	memset(w, 0, sizeof *w);
}

static int by_arrival(const void *a, const void *b, void *ud)
{
	const sim_job *j = ud;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (j[x].arrive_ms != j[y].arrive_ms)
		return j[x].arrive_ms < j[y].arrive_ms ? -1 : 1;
	return x < y ? -1 : x > y;
}

/* Take a job that has not arrived out of the cache: its pods, then its podgroup. */
static int withdraw(sim_workload *w, sim_job *j, tph_diag *d)
{
	int rc = 0;
	for (uint32_t p = j->first_pod; p < j->first_pod + j->n_pods && !rc; p++) {
		w->pods[p].state = POD_WAITING;
		rc =
		    tph_cluster_remove_pod(w->cache, w->pods[p].d.namespace_, w->pods[p].d.name, d);
	}
	if (!rc && j->d.name)
		rc = tph_cluster_remove_podgroup(w->cache, j->d.namespace_, j->d.name, d);
	return rc == TPH_ENOENT ? 0 : rc;
}

int sim_workload_start(sim_workload *w, tph_diag *d)
{
	w->t0_ms = w->now_ms;
	for (uint32_t j = 0; j < w->n_jobs; j++)
		if (!w->jobs[j].dropped && !w->jobs[j].placed && w->jobs[j].arrive_ms < w->t0_ms)
			w->t0_ms = w->jobs[j].arrive_ms;
	w->arrival_order = malloc((w->n_jobs + 1) * sizeof *w->arrival_order);
	if (!w->arrival_order)
		return 2;
	w->n_waiting = 0;
	int rc = 0;
	for (uint32_t j = 0; j < w->n_jobs && !rc; j++) {
		sim_job *job = &w->jobs[j];
		job->arrived =
		    !job->dropped && (job->placed || job->done || job->arrive_ms <= w->t0_ms);
		if (job->arrived) {
			for (uint32_t p = job->first_pod; p < job->first_pod + job->n_pods; p++)
				if (w->pods[p].state == POD_RUNNING && job->dur_ms >= 0)
					w->pods[p].end_ms = w->t0_ms + job->dur_ms;
			continue;
		}
		rc = withdraw(w, job, d);
		if (!job->dropped)
			w->arrival_order[w->n_waiting++] = j;
	}
	qsort_r(w->arrival_order, w->n_waiting, sizeof *w->arrival_order, by_arrival, w->jobs);
	if (rc)
		fprintf(stderr, "tephra simulate: %s\n", d->msg);
	return rc ? 2 : 0;
}

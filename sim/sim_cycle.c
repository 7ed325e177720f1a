/* One scheduling cycle through the public host loop (snapshot → open → run → close → apply) and
 * its decisions booked in the simulator's own records; and the run: cycles from the first
 * arrival until the window ends or nothing is left to happen. */
#include "sim_loop.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const clock_readers[] = {"sla",   "tdm",      "cdp",
                                            "usage", "extender", "rescheduling"};

bool sim_conf_timeless(const tph_conf *conf)
{
	for (uint32_t t = 0; t < tph_conf_tier_count(conf); t++)
		for (uint32_t i = 0; i < tph_conf_plugin_count(conf, t); i++)
			for (size_t k = 0; k < sizeof clock_readers / sizeof *clock_readers; k++)
				if (!strcmp(tph_conf_plugin_name(conf, t, i), clock_readers[k]))
					return false;
	return true;
}

static int by_name(const void *a, const void *b, void *w)
{
	const sim_node *n = ((const sim_workload *)w)->nodes;
	return strcmp(n[*(const uint32_t *)a].name, n[*(const uint32_t *)b].name);
}

static int32_t node_find(const loop *l, const char *name)
{
	uint32_t lo = 0, hi = l->w->n_nodes;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		int c = strcmp(l->w->nodes[l->node_order[mid]].name, name);
		if (!c)
			return (int32_t)l->node_order[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static tph_kv_list copy_kvs(sim_arena *a, tph_kv_list in)
{
	tph_kv *kv = in.n ? sim_alloc(a, in.n * sizeof *kv) : NULL;
	for (uint32_t i = 0; kv && i < in.n; i++)
		kv[i] = (tph_kv){sim_strdup(a, in.items[i].key), sim_strdup(a, in.items[i].value)};
	return (tph_kv_list){kv, kv ? in.n : 0};
}

static int record_wait(loop *l, sim_job *j, int64_t t)
{
	j->start_ms = t;
	l->pending_jobs--;
	sim_run *r = l->r;
	if (!(r->n_waits & (r->n_waits + 1))) { /* grow at 0, 1, 3, 7, ... */
		int64_t *nw = realloc(r->waits, (2 * (size_t)r->n_waits + 2) * sizeof *nw);
		if (!nw)
			return TPH_ENOMEM;
		r->waits = nw;
	}
	r->waits[r->n_waits++] = t - j->arrive_ms;
	return 0;
}

static int book_bind(loop *l, const tph_decision *b, int64_t t)
{
	uint32_t pi = sim_pod_find(l->w, b->pod);
	int32_t node = b->node ? node_find(l, b->node) : -1;
	if (pi == UINT32_MAX || node < 0 || l->w->pods[pi].state != POD_PENDING)
		return 0; /* not one of ours (a pod without a queue): nothing to follow */
	sim_pod *p = &l->w->pods[pi];
	sim_job *j = &l->w->jobs[p->job];
	p->state = POD_BOUND;
	p->node = node;
	p->bind_annotations = copy_kvs(&l->w->arena, b->annotations);
	sim_book(l, p, +1);
	l->pending_tasks--;
	l->bound[l->n_bound++] = pi;
	if (j->start_ms < 0 && (int32_t)j->placed >= j->min_member)
		return record_wait(l, j, t);
	return 0;
}

static void book_eviction(loop *l, const tph_decision *e)
{
	uint32_t pi = sim_pod_find(l->w, e->pod);
	if (pi == UINT32_MAX)
		return;
	sim_pod *p = &l->w->pods[pi];
	if (p->state == POD_BOUND || p->state == POD_RUNNING) {
		p->state = POD_RELEASING;
		l->evicted[l->n_evicted++] = pi;
	}
}

/* The session wrote no phase back that differs from the snapshot's. A pod without a podgroup
 * has no phase to write back: the next snapshot starts it from the same one again. */
static bool phases_kept(const tph_session *s)
{
	const tph_view *v = tph_view_of(s);
	const tph_job_store *js = v->jobs;
	for (uint32_t j = 0; j < js->n; j++) {
		bool own = js->task_off[j + 1] > js->task_off[j] &&
		           (v->tasks->flags[js->task_idx[js->task_off[j]]] & TPH_TASK_OWN_JOB);
		if (!own && v->js->phase[j] != js->phase[j])
			return false;
	}
	return true;
}

static uint32_t dim_of(const tph_decision_log *log, const char *name)
{
	for (uint32_t d = 0; d < log->n_dims; d++)
		if (!strcmp(log->dims[d], name))
			return d;
	return TPH_NOIDX;
}

/* The session's own deserved (the queue readout of proportion or capacity) replaces the
 * simulator's estimate whenever the conf has a plugin that reports it: the plot then shows
 * what the scheduler itself worked with. A queue the plugin left out (a hierarchy's root)
 * deserves nothing of its own. Rows come in snapshot order, as the workload's queues were
 * read; a name that differs means the order does not hold, and the estimate stays. */
static void take_deserved(loop *l, const tph_decision_log *log)
{
	sim_workload *w = l->w;
	const char *by = NULL;
	l->reported = false;
	if (log->n_queues != w->n_queues)
		return;
	for (uint32_t q = 0; q < w->n_queues; q++) {
		const tph_queue_row *row = &log->queues[q];
		if (strcmp(row->name, w->queues[q].name))
			return;
		if (row->deserved && !by)
			by = row->reported_by ? row->reported_by : "session";
	}
	if (!by)
		return;
	uint32_t dim[R_N] = {dim_of(log, "cpu"), dim_of(log, "memory"), dim_of(log, w->gpu_res)};
	for (uint32_t q = 0; q < w->n_queues; q++) {
		const int64_t *d = log->queues[q].deserved;
		for (int r = 0; r < R_N; r++)
			w->queues[q].deserved[r] = !d || dim[r] == TPH_NOIDX ? 0 : d[dim[r]];
	}
	l->reported = true;
	snprintf(l->r->deserved_source, sizeof l->r->deserved_source, "%s", by);
}

static int book(loop *l, const tph_session *s, int64_t t)
{
	const tph_decision_log *log = tph_session_decisions(s);
	int rc = 0;
	for (uint32_t i = 0; i < log->n_binds && !rc; i++)
		rc = book_bind(l, &log->binds[i], t);
	for (uint32_t i = 0; i < log->n_evictions; i++)
		book_eviction(l, &log->evictions[i]);
	take_deserved(l, log);
	l->row.binds = log->n_binds;
	l->row.evictions = log->n_evictions;
	l->row.pipelined = log->n_pipelined;
	l->quiet = !log->n_binds && !log->n_evictions && !log->n_pipelined && phases_kept(s);
	return rc ? rc : l->w->arena.failed ? TPH_ENOMEM : 0;
}

int sim_cycle_run(loop *l, int64_t t)
{
	double t0 = sim_now_ms();
	tph_cluster *c = l->w->cache;
	uint32_t sampling = tph_cluster_node_sampling_start(c);
	tph_snapshot *snap = NULL;
	tph_session *s = NULL;
	int rc = tph_cluster_snapshot(c, t, &snap, &l->d);
	if (!rc)
		rc = tph_session_open(snap, l->conf, &l->sopts, &s, &l->d);
	if (!rc)
		rc = tph_session_run(s, &l->d);
	if (!rc)
		rc = tph_session_close(s, &l->d);
	if (!rc)
		rc = tph_cluster_apply(c, s, &l->d);
	if (!rc)
		rc = book(l, s, t);
	tph_session_free(s);
	tph_snapshot_release(snap);
	l->quiet = l->quiet && sampling == tph_cluster_node_sampling_start(c);
	l->changed = false;
	l->bind_t = t;
	l->row.session_ms = sim_now_ms() - t0;
	l->r->sessions++;
	l->r->binds += l->row.binds;
	l->r->evictions += l->row.evictions;
	l->r->session_ms += l->row.session_ms;
	if (l->row.session_ms > l->r->session_max_ms)
		l->r->session_max_ms = l->row.session_ms;
	return rc;
}

int loop_init(loop *l, sim_workload *w, const tph_conf *conf, const sim_opts *o, sim_run *r)
{
	memset(l, 0, sizeof *l);
	l->w = w, l->conf = conf, l->o = o, l->r = r;
	l->d.warn = TPH_WARN_SILENT; /* podgroups whose queue is gone, every cycle */
	l->sopts.threads = o->threads;
	l->bound = malloc((w->n_pods + 1) * sizeof *l->bound);
	l->evicted = malloc((w->n_pods + 1) * sizeof *l->evicted);
	l->node_order = malloc((w->n_nodes + 1) * sizeof *l->node_order);
	if (!l->bound || !l->evicted || !l->node_order || sim_frag_init(&l->frag, w))
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < w->n_nodes; i++)
		l->node_order[i] = i;
	qsort_r(l->node_order, w->n_nodes, sizeof *l->node_order, by_name, w);
	for (uint32_t j = 0; j < w->n_jobs; j++)
		w->jobs[j].placed = 0; /* counted again as the running pods are booked */
	for (uint32_t p = 0; p < w->n_pods; p++) {
		sim_pod *pod = &w->pods[p];
		sim_job *j = &w->jobs[pod->job];
		if (!j->arrived || pod->state == POD_DONE)
			continue;
		for (int k = 0; k < R_N; k++)
			w->queues[j->queue].request[k] += pod->req[k];
		if (pod->state == POD_RUNNING && pod->node >= 0) {
			sim_book(l, pod, +1);
			if (pod->end_ms != INT64_MAX && sim_heap_push(&l->heap, pod->end_ms, p))
				return TPH_ENOMEM;
		} else
			l->pending_tasks++;
	}
	for (uint32_t j = 0; j < w->n_jobs; j++) {
		sim_job *job = &w->jobs[j];
		if (job->arrived && job->placed < (uint32_t)job->min_member &&
		    job->done < job->n_pods)
			l->pending_jobs++;
		else if (job->arrived)
			job->start_ms = job->arrive_ms;
	}
	r->n_queues = w->n_queues;
	r->queue_names = calloc(w->n_queues + 1, sizeof *r->queue_names);
	if (!r->queue_names)
		return TPH_ENOMEM;
	for (uint32_t q = 0; q < w->n_queues; q++)
		if (!(r->queue_names[q] = strdup(w->queues[q].name)))
			return TPH_ENOMEM;
	return 0;
}

void loop_free(loop *l)
{
	free(l->bound);
	free(l->evicted);
	free(l->node_order);
	sim_heap_free(&l->heap);
	sim_frag_free(&l->frag);
}

/* The clock: each cycle first plays what the cluster did since the last one (the kubelet starts
 * what was bound and removes what was evicted, which the job controller recreates as pending;
 * running pods complete; jobs arrive), then runs one session through the host loop and books
 * its decisions. A cycle is skipped only when it would provably decide nothing (sim/README.md). */
#include "sim_loop.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

double sim_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int put_pod(loop *l, sim_pod *p, tph_pod_phase phase)
{
	tph_pod_desc d = p->d;
	d.phase = phase;
	d.node_name = p->node >= 0 ? l->w->nodes[p->node].name : NULL;
	d.creation =
	    l->w->jobs[p->job].arrive_ms > d.creation ? l->w->jobs[p->job].arrive_ms : d.creation;
	if (p->bind_annotations.n) {
		tph_kv *kv =
		    sim_alloc(&l->w->arena, (d.annotations.n + p->bind_annotations.n) * sizeof *kv);
		if (!kv)
			return TPH_ENOMEM;
		memcpy(kv, d.annotations.items, d.annotations.n * sizeof *kv);
		memcpy(kv + d.annotations.n, p->bind_annotations.items,
		       p->bind_annotations.n * sizeof *kv);
		d.annotations = (tph_kv_list){kv, d.annotations.n + p->bind_annotations.n};
	}
	l->changed = true;
	return tph_cluster_put_pod(l->w->cache, &d, &l->d);
}

/* A pod takes or gives back its node's and its queue's resources. */
void sim_book(loop *l, sim_pod *p, int sign)
{
	sim_job *j = &l->w->jobs[p->job];
	sim_node *n = &l->w->nodes[p->node];
	for (int r = 0; r < R_N; r++) {
		n->used[r] += sign * p->req[r];
		l->w->queues[j->queue].allocated[r] += sign * p->req[r];
		l->used[r] += sign * p->req[r];
	}
	if (sign > 0 && j->placed++ == 0)
		l->running_jobs++;
	if (sign < 0 && --j->placed == 0)
		l->running_jobs--;
	l->running_tasks += sign;
	sim_frag_touch(&l->frag, p->node);
}

static int arrive(loop *l, sim_job *j)
{
	int rc = 0;
	j->arrived = true;
	l->row.arrivals++;
	l->pending_jobs++;
	if (j->d.name) {
		tph_podgroup_desc g = j->d;
		g.creation = j->arrive_ms;
		g.phase = TPH_PG_PENDING;
		l->changed = true;
		rc = tph_cluster_put_podgroup(l->w->cache, &g, &l->d);
	}
	for (uint32_t p = j->first_pod; p < j->first_pod + j->n_pods && !rc; p++) {
		sim_pod *pod = &l->w->pods[p];
		pod->state = POD_PENDING;
		l->pending_tasks++;
		for (int r = 0; r < R_N; r++)
			l->w->queues[j->queue].request[r] += pod->req[r];
		rc = put_pod(l, pod, TPH_POD_PENDING);
	}
	return rc;
}

/* The job's pods are all done: Volcano's garbage collection takes it away. */
static int finish_job(loop *l, sim_job *j)
{
	int rc = 0;
	for (uint32_t p = j->first_pod; p < j->first_pod + j->n_pods && !rc; p++)
		rc = tph_cluster_remove_pod(l->w->cache, l->w->pods[p].d.namespace_,
		                            l->w->pods[p].d.name, &l->d);
	if (!rc && j->d.name)
		rc = tph_cluster_remove_podgroup(l->w->cache, j->d.namespace_, j->d.name, &l->d);
	l->r->jobs_done++;
	return rc;
}

static int complete(loop *l, uint32_t pi, int64_t due)
{
	sim_pod *p = &l->w->pods[pi];
	sim_job *j = &l->w->jobs[p->job];
	if (p->state != POD_RUNNING || p->end_ms != due)
		return 0; /* evicted since (and maybe running again): a stale completion */
	sim_book(l, p, -1);
	p->state = POD_DONE;
	j->done++;
	l->row.completions++;
	for (int r = 0; r < R_N; r++)
		l->w->queues[j->queue].request[r] -= p->req[r];
	int rc = put_pod(l, p, TPH_POD_SUCCEEDED);
	if (!rc && j->done == j->n_pods) {
		j->end_ms = p->end_ms;
		rc = finish_job(l, j);
	}
	return rc;
}

/* Evicted last cycle: gone now, and recreated by the job controller as a pending pod. */
static int requeue(loop *l, uint32_t pi)
{
	sim_pod *p = &l->w->pods[pi];
	int rc = tph_cluster_remove_pod(l->w->cache, p->d.namespace_, p->d.name, &l->d);
	sim_book(l, p, -1);
	l->pending_tasks++;
	p->state = POD_PENDING;
	p->node = -1;
	p->end_ms = INT64_MAX;
	p->bind_annotations = (tph_kv_list){0};
	return rc ? rc : put_pod(l, p, TPH_POD_PENDING);
}

/* Bound last cycle: the kubelet runs it now, until its job's duration has passed. */
static int start(loop *l, uint32_t pi)
{
	sim_pod *p = &l->w->pods[pi];
	if (p->state != POD_BOUND)
		return 0;
	p->state = POD_RUNNING;
	int64_t dur = l->w->jobs[p->job].dur_ms;
	if (dur >= 0) {
		p->end_ms = l->bind_t + dur;
		if (sim_heap_push(&l->heap, p->end_ms, pi))
			return TPH_ENOMEM;
	}
	return put_pod(l, p, TPH_POD_RUNNING);
}

int sim_events(loop *l, int64_t t)
{
	int rc = 0;
	for (uint32_t i = 0; i < l->n_evicted && !rc; i++)
		rc = requeue(l, l->evicted[i]);
	for (uint32_t i = 0; i < l->n_bound && !rc; i++)
		rc = start(l, l->bound[i]);
	l->n_evicted = l->n_bound = 0;
	while (!rc && l->heap.n && l->heap.t[0] <= t) {
		int64_t due = l->heap.t[0];
		rc = complete(l, sim_heap_pop(&l->heap), due);
	}
	while (!rc && l->next < l->w->n_waiting &&
	       l->w->jobs[l->w->arrival_order[l->next]].arrive_ms <= t)
		rc = arrive(l, &l->w->jobs[l->w->arrival_order[l->next++]]);
	return rc;
}

/* The next time something happens without a session: an arrival or a completion. */
int64_t sim_next_event(const loop *l)
{
	int64_t t = INT64_MAX;
	if (l->next < l->w->n_waiting)
		t = l->w->jobs[l->w->arrival_order[l->next]].arrive_ms;
	if (l->heap.n && l->heap.t[0] < t)
		t = l->heap.t[0];
	return t;
}

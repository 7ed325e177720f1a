/* A run: the clock from the first cycle to the end of the window (or until nothing is left to
 * happen), one row per session, and the rule that skips the cycles that cannot decide anything. */
#include "sim_loop.h"

#include <stdlib.h>
#include <string.h>

/* The resource the queue plot follows: GPU when the cluster has GPUs, else cpu. */
static int main_res(const sim_workload *w)
{
	return w->cap[R_GPU] ? R_GPU : R_CPU;
}

static int grow(sim_run *r)
{
	if (r->n_rows < r->cap_rows)
		return 0;
	uint32_t cap = r->cap_rows ? r->cap_rows * 2 : 256;
	sim_cycle *rows = realloc(r->rows, cap * sizeof *rows);
	if (!rows)
		return -1;
	r->rows = rows;
	size_t nq = (size_t)cap * (r->n_queues ? r->n_queues : 1);
	double *a = realloc(r->queue_alloc, nq * sizeof *a);
	if (!a)
		return -1;
	r->queue_alloc = a;
	double *d = realloc(r->queue_deserved, nq * sizeof *d);
	if (!d)
		return -1;
	r->queue_deserved = d;
	r->cap_rows = cap;
	return 0;
}

int sim_record(loop *l)
{
	sim_run *r = l->r;
	sim_workload *w = l->w;
	if (grow(r))
		return TPH_ENOMEM;
	sim_cycle *c = &l->row;
	for (int k = 0; k < R_N; k++)
		c->alloc[k] = w->cap[k] ? (double)l->used[k] / (double)w->cap[k] : 0;
	c->pending_tasks = l->pending_tasks;
	c->running_tasks = l->running_tasks;
	c->pending_jobs = l->pending_jobs;
	c->running_jobs = l->running_jobs;
	c->frag = sim_frag_measure(&l->frag, w, l->used);
	if (!l->reported)
		sim_deserved(w->queues, w->n_queues, w->cap);
	int m = main_res(w);
	for (uint32_t q = 0; q < w->n_queues; q++) {
		double cap = w->cap[m] ? (double)w->cap[m] : 1;
		r->queue_alloc[(size_t)r->n_rows * w->n_queues + q] =
		    w->queues[q].allocated[m] / cap;
		r->queue_deserved[(size_t)r->n_rows * w->n_queues + q] =
		    w->queues[q].deserved[m] / cap;
	}
	r->rows[r->n_rows++] = *c;
	r->cycles++;
	if (l->o->jsonl)
		sim_jsonl_cycle(l->o->jsonl, r, r->n_rows - 1);
	return 0;
}

/* Cycles from `t` on that decide nothing, up to the one at or after the next event (past the
 * end of the window when nothing happens before it; INT64_MAX without a window). */
static int64_t skip_to(const loop *l, int64_t t)
{
	int64_t e = sim_next_event(l), p = l->o->period_ms, end = l->w->end_ms;
	if (e == INT64_MAX && end == INT64_MAX)
		return INT64_MAX;
	if (e > end)
		e = end + 1;
	return e <= t ? t : t + (e - t + p - 1) / p * p;
}

static int run_cycles(loop *l, bool skippable)
{
	const sim_workload *w = l->w;
	double span = w->end_ms == INT64_MAX ? 0 : (double)(w->end_ms - w->t0_ms);
	for (int64_t t = w->t0_ms; t <= w->end_ms;) {
		memset(&l->row, 0, sizeof l->row);
		l->row.t_ms = t;
		l->row.cycles = 1;
		int rc = sim_events(l, t);
		if (rc)
			return rc;
		bool idle = !l->changed && l->quiet;
		if (idle &&
		    (skippable || (w->end_ms == INT64_MAX && sim_next_event(l) == INT64_MAX))) {
			int64_t next = skip_to(l, t);
			uint64_t n =
			    next == INT64_MAX ? 0 : (uint64_t)((next - t) / l->o->period_ms);
			if (l->r->n_rows)
				l->r->rows[l->r->n_rows - 1].cycles += (uint32_t)n;
			l->r->cycles += n;
			if (next == INT64_MAX || next > w->end_ms)
				return 0;
			t = next;
			continue;
		}
		if ((rc = sim_cycle_run(l, t)) || (rc = sim_record(l)))
			return rc;
		if (span > 0)
			sim_progress(l->o, (double)(t - w->t0_ms) / span, (t - w->t0_ms) / 1000);
		else
			sim_progress(l->o, w->n_waiting ? (double)l->next / w->n_waiting : 1,
			             (t - w->t0_ms) / 1000);
		t += l->o->period_ms;
	}
	return 0;
}

int sim_run_loop(sim_workload *w, const tph_conf *conf, const sim_opts *o, sim_run *r)
{
	loop l;
	double t0 = sim_now_ms();
	int rc = loop_init(&l, w, conf, o, r);
	if (!rc)
		rc = run_cycles(&l, !o->no_skip && sim_conf_timeless(conf));
	sim_progress(o, -1, 0);
	if (rc)
		fprintf(stderr, "tephra simulate: %s\n", l.d.msg[0] ? l.d.msg : tph_strerror(rc));
	loop_free(&l);
	r->wall_ms = sim_now_ms() - t0;
	return rc ? 2 : 0;
}

void sim_run_free(sim_run *r)
{
	free(r->rows);
	free(r->queue_alloc);
	free(r->queue_deserved);
	for (uint32_t q = 0; r->queue_names && q < r->n_queues; q++)
		free((char *)r->queue_names[q]);
	free(r->queue_names);
	free(r->waits);
	free(r->cap_x);
	free(r->cap_y);
	memset(r, 0, sizeof *r);
}

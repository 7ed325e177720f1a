/* FutureIdle arithmetic, the pending-task queues and the class test shared by the eviction
 * actions. */
#include "evict_util.h"

#include "session/ep.h"
#include "session/fit.h"
#include "session/fitlog.h"

#include <string.h>

bool tph_evict_same_class(const tph_session *s, tph_idx a, tph_idx b)
{
	if (!tph_eqc_same_class(s, a, b) || s->tasks.priority[a] != s->tasks.priority[b] ||
	    s->tasks.flags[a] != s->tasks.flags[b] || !tph_eqc_spec_local(s->tasks.spec[b]))
		return false;
	const tph_idx *x, *y;
	uint32_t nx = tph_fitlog_unresolvable(s, a, &x), ny = tph_fitlog_unresolvable(s, b, &y);
	return nx == ny && (x == y || !memcmp(x, y, nx * sizeof *x));
}

void tph_future_idle(const tph_session *s, tph_idx node, int64_t *out)
{
	const tph_node_store *ns = &s->nodes;
	for (uint32_t d = 0; d < s->ndim; d++) {
		size_t at = (size_t)d * ns->stride + node;
		out[d] = ns->idle[at] + ns->releasing[at] - ns->pipelined[at];
	}
}

void tph_vec_add_task(const tph_session *s, tph_idx task, int sign, int64_t *out)
{
	const int64_t *req = s->tasks.req + (size_t)task * s->ndim;
	for (uint32_t d = 0; d < s->ndim; d++)
		out[d] += sign * req[d];
}

bool tph_req_fits(const tph_session *s, tph_idx task, const int64_t *avail)
{
	return tph_fits_row(s, task, avail);
}

bool tph_validate_victims(const tph_session *s, tph_idx task, tph_idx node, const tph_idx *victims,
                          uint32_t n)
{
	int64_t avail[TPH_RES_MAX];
	tph_future_idle(s, node, avail);
	for (uint32_t i = 0; i < n; i++)
		tph_vec_add_task(s, victims[i], +1, avail);
	return tph_req_fits(s, task, avail);
}

void tph_evict_release_rows(const tph_evict_ctx *c, const uint8_t *queues, int64_t *rows)
{
	const tph_session *s = c->s;
	uint32_t nd = s->ndim;
	memset(rows, 0, (size_t)s->nodes.n * nd * sizeof *rows);
	for (tph_idx n = 0; n < s->nodes.n; n++) {
		uint32_t k;
		const tph_idx *on = tph_evict_on_node(c, n, &k);
		for (uint32_t i = 0; i < k; i++) {
			tph_idx t = on[i], j = s->tasks.job[t];
			if ((s->tasks.flags[t] & TPH_TASK_PREEMPTABLE) && j != TPH_NOIDX &&
			    queues[s->jobs->queue[j]])
				tph_vec_add_task(s, t, +1, rows + (size_t)n * nd);
		}
	}
}

void tph_evict_marked_tasks(const tph_evict_ctx *c, const uint8_t *queues, uint32_t *off,
                            tph_idx *tasks)
{
	const tph_session *s = c->s;
	off[0] = 0;
	for (tph_idx n = 0; n < s->nodes.n; n++) {
		uint32_t k, m = off[n];
		const tph_idx *on = tph_evict_on_node(c, n, &k);
		for (uint32_t i = 0; i < k; i++) {
			tph_idx t = on[i], j = s->tasks.job[t];
			if ((s->tasks.flags[t] & TPH_TASK_PREEMPTABLE) && j != TPH_NOIDX &&
			    queues[s->jobs->queue[j]])
				tasks[m++] = t;
		}
		off[n + 1] = m;
	}
}

bool tph_evict_rows_fit(const tph_evict_ctx *c, const int64_t *rows, tph_idx task, tph_idx node)
{
	const tph_session *s = c->s;
	int64_t avail[TPH_RES_MAX];
	tph_future_idle(s, node, avail);
	const int64_t *rel = rows + (size_t)node * s->ndim;
	for (uint32_t d = 0; d < s->ndim; d++)
		avail[d] += rel[d];
	return tph_req_fits(s, task, avail);
}

void tph_push_pending(const tph_session *s, tph_idx job, tph_pq *h, tph_idx *buf)
{
	const tph_job_store *js = s->jobs;
	uint32_t lo = js->task_off[job], hi = js->task_off[job + 1];
	tph_pq_init_tasks(h, s, job, buf, hi - lo);
	for (uint32_t i = lo; i < hi; i++)
		if (s->tasks.status[js->task_idx[i]] == TPH_TS_PENDING)
			tph_pq_push(h, js->task_idx[i]);
}

static bool on_node(const tph_session *s, tph_idx t)
{
	uint8_t st = s->tasks.status[t];
	return (st == TPH_TS_BOUND || st == TPH_TS_RUNNING) && s->tasks.node[t] != TPH_NOIDX;
}

int tph_node_tasks_csr(tph_session *s, uint32_t **off, tph_idx **tasks, uint32_t *max_on_node)
{
	uint32_t nn = s->nodes.n, most = 0;
	uint32_t *o = TPH_ACT_NEW(s, uint32_t, nn + 2);
	if (!o)
		return TPH_ENOMEM;
	for (tph_idx t = 0; t < s->tasks.n; t++)
		if (on_node(s, t))
			o[s->tasks.node[t] + 2]++;
	for (uint32_t n = 0; n < nn; n++) {
		most = o[n + 2] > most ? o[n + 2] : most;
		o[n + 2] += o[n + 1];
	}
	tph_idx *ts = TPH_ACT_NEW(s, tph_idx, o[nn + 1] + 1);
	if (!ts)
		return TPH_ENOMEM;
	for (tph_idx t = 0; t < s->tasks.n; t++)
		if (on_node(s, t))
			ts[o[s->tasks.node[t] + 1]++] = t;
	*off = o;
	*tasks = ts;
	if (max_on_node)
		*max_on_node = most;
	return TPH_OK;
}

/* The decision log's queue rows (tph_queue_row): Volcano's status.allocated, computed as its
 * framework's updateQueueStatus does (session.go), the figures proportion or capacity report
 * (tph_queue_report_set) and the per-queue count of pending jobs by kind. Built at close after
 * the job rows. */
#include "jobwhy.h"

#include "tephra/textw.h"
#include "cache/cluster_int.h"

#include <string.h>

enum {
	R_DESERVED,
	R_REQUEST,
	R_INQUEUE,
	R_CAPABILITY,
	R_GUARANTEE,
	R_COUNT
};

int tph_queue_report_set(tph_session *s, tph_idx q, const tph_queue_report *r)
{
	if (!s || !r || q >= s->queues->n)
		return TPH_EINVAL;
	tph_jobwhy *w = tph_jobwhy_get(s);
	tph_qreport *qr = w ? &w->reports[q] : NULL;
	if (qr && !qr->rows)
		qr->rows = TPH_ARENA_NEW(&s->arena, int64_t, (size_t)R_COUNT * s->ndim + 1);
	if (!qr || !qr->rows)
		return TPH_ENOMEM;
	const int64_t *src[R_COUNT] = {r->deserved, r->request, r->inqueue, r->capability,
	                               r->guarantee};
	qr->has = 0;
	for (uint32_t i = 0; i < R_COUNT; i++)
		if (src[i]) {
			memcpy(qr->rows + (size_t)i * s->ndim, src[i], s->ndim * sizeof *src[i]);
			qr->has |= (uint8_t)(1u << i);
		}
	qr->share = r->share;
	qr->plugin = s->closing;
	return TPH_OK;
}

const char *tph_queue_reporter(const tph_session *s, tph_idx q)
{
	const tph_qreport *r = s->why ? &s->why->reports[q] : NULL;
	return r && r->rows && r->plugin ? s->plugins[r->plugin - 1].desc->name : NULL;
}

static const int64_t *report_row(const tph_session *s, tph_idx q, unsigned i)
{
	const tph_qreport *r = s->why ? &s->why->reports[q] : NULL;
	return r && r->rows && (r->has >> i & 1) ? r->rows + (size_t)i * s->ndim : NULL;
}

/* Allocated per queue: its jobs' allocated requests, and, when a root queue exists, every
 * queue's added up its parent chain (Volcano rolls them up only then). */
static int64_t *queue_allocated(tph_session *s)
{
	uint32_t nq = s->queues->n, nd = s->ndim;
	int64_t *a = TPH_ARENA_NEW(&s->arena, int64_t, (size_t)nq * nd + 1);
	if (!a)
		return NULL;
	tph_sid root = tph_strtab_find(s->snap->strs, "root", 4);
	bool has_root = false;
	for (tph_idx q = 0; q < nq; q++)
		has_root |= s->queues->name[q] == root;
	for (tph_idx j = 0; j < s->jobs->n; j++) {
		const int64_t *ja = s->js.allocated + (size_t)j * nd;
		uint32_t hops = 0;
		for (tph_idx q = s->jobs->queue[j]; q != TPH_NOIDX && hops <= nq; hops++) {
			for (uint32_t d = 0; d < nd; d++)
				a[(size_t)q * nd + d] += ja[d];
			if (!has_root || s->queues->name[q] == root)
				break;
			q = s->queues->parent[q];
		}
	}
	return a;
}

/* A quantity as tph_quantity_format writes it, or "unlimited". */
static void qty(const tph_session *s, tph_tw *w, uint32_t d, int64_t v)
{
	char buf[48];
	if (v == INT64_MAX) {
		tph_tw_str(w, "unlimited");
		return;
	}
	size_t n = tph_quantity_format(v, (tph_res_unit)s->snap->dims.unit[d], buf, sizeof buf);
	tph_tw_mem(w, buf, n < sizeof buf ? n : sizeof buf - 1);
}

static const char *dim_name(const tph_session *s, uint32_t d)
{
	return tph_strtab_str(s->snap->strs, s->snap->dims.name[d]);
}

/* "cpu allocated 30 of deserved 24", or with a request "cpu allocated 3 + 4 placed for this
 * job + 2 requested > deserved 8": the dimension that passes deserved by the largest ratio
 * (pods aside), cpu when none does. `tent` (may be NULL) is what the job held when its tasks
 * were refused: its allocations a discard has since undone. */
static void put_over(const tph_session *s, tph_tw *w, const int64_t *a, const int64_t *tent,
                     const int64_t *req, const int64_t *des)
{
	uint32_t best = TPH_RES_CPU;
	double worst = 0;
	for (uint32_t d = 0; d < s->ndim; d++) {
		int64_t need = a[d] + (tent ? tent[d] : 0) + (req ? req[d] : 0);
		if (d == TPH_RES_PODS || des[d] == INT64_MAX || (req && req[d] <= 0) || need <= 0)
			continue;
		double r = des[d] > 0 ? (double)need / (double)des[d] : 1e300;
		if (need > des[d] && r > worst) {
			best = d;
			worst = r;
		}
	}
	tph_tw_fmt(w, "%s allocated ", dim_name(s, best));
	qty(s, w, best, a[best]);
	if (req && tent && tent[best]) {
		tph_tw_str(w, " + ");
		qty(s, w, best, tent[best]);
		tph_tw_str(w, " placed for this job");
	}
	if (req) {
		tph_tw_str(w, " + ");
		qty(s, w, best, req[best]);
		tph_tw_str(w, " requested >");
	} else
		tph_tw_str(w, " of");
	tph_tw_str(w, " deserved ");
	qty(s, w, best, des[best]);
}

static const char *const state_names[] = {"Open", "Closed", "Closing"};

void tph_queue_why(tph_session *s, tph_idx q, tph_idx task, const int64_t *tent, char *buf,
                   size_t cap)
{
	const char *name = tph_strtab_str(s->snap->strs, s->queues->name[q]);
	uint8_t st = s->queues->state[q];
	tph_tw w;
	tph_tw_init(&w, buf, cap);
	if (st != TPH_QUEUE_OPEN) {
		tph_tw_fmt(&w, "queue %s is %s", name, st < 3 ? state_names[st] : "not Open");
		return;
	}
	const int64_t *des = report_row(s, q, R_DESERVED);
	const int64_t *a = s->out.queues ? s->out.queues[q].allocated : NULL;
	bool over = s->why->overused[q];
	tph_tw_fmt(&w, over ? "queue %s overused" : "queue %s at its deserved share", name);
	if (!des || !a)
		return;
	const int64_t *req =
	    over || task == TPH_NOIDX ? NULL : s->tasks.req + (size_t)task * s->ndim;
	tph_tw_str(&w, ": ");
	put_over(s, &w, a, tent, req, des);
}

static const char *const kind_words[TPH_WHY_COUNT] = {
    "invalid",     "not enqueued", "by queue share", "pipelined",
    "by topology", "gang short",   "unplaceable",    "not tried",
};

static const char *summary(tph_session *s, const tph_queue_row *r)
{
	char buf[512];
	tph_tw w;
	tph_tw_init(&w, buf, sizeof buf);
	tph_tw_fmt(&w, "%s: ", r->name);
	if (!r->jobs_pending)
		tph_tw_str(&w, "no job pending");
	else
		tph_tw_fmt(&w, "%u job%s pending", r->jobs_pending,
		           r->jobs_pending == 1 ? "" : "s");
	for (uint32_t k = 0; k < TPH_WHY_COUNT; k++)
		if (r->by_why[k])
			tph_tw_fmt(&w, ", %u %s", r->by_why[k], kind_words[k]);
	return tph_arena_strndup(&s->arena, buf, w.n);
}

/* The rows without the pending counts: the job rows' messages read them. */
static int base_rows(tph_session *s)
{
	uint32_t nq = s->queues->n;
	tph_queue_row *rows = TPH_ARENA_NEW(&s->arena, tph_queue_row, nq + 1);
	int64_t *alloc = queue_allocated(s);
	const char **dims = TPH_ARENA_NEW(&s->arena, const char *, s->ndim + 1);
	if (!rows || !alloc || !dims || !tph_jobwhy_get(s))
		return TPH_ENOMEM;
	for (uint32_t d = 0; d < s->ndim; d++)
		dims[d] = dim_name(s, d);
	for (tph_idx q = 0; q < nq; q++) {
		tph_queue_row *r = &rows[q];
		uint8_t st = s->queues->state[q];
		r->name = tph_strtab_str(s->snap->strs, s->queues->name[q]);
		r->state = st < 3 ? state_names[st] : "Unknown";
		r->weight = s->queues->weight[q];
		r->allocated = alloc + (size_t)q * s->ndim;
		r->deserved = report_row(s, q, R_DESERVED);
		r->request = report_row(s, q, R_REQUEST);
		r->inqueue = report_row(s, q, R_INQUEUE);
		r->capability = report_row(s, q, R_CAPABILITY);
		r->guarantee = report_row(s, q, R_GUARANTEE);
		r->reported_by = tph_queue_reporter(s, q);
		r->share = r->reported_by ? s->why->reports[q].share : -1;
	}
	for (tph_idx j = 0; j < s->jobs->n; j++)
		if (s->js.phase[j] < 5)
			rows[s->jobs->queue[j]].podgroups[s->js.phase[j]]++;
	s->out.queues = rows;
	s->out.n_queues = nq;
	s->out.dims = dims;
	s->out.dim_units = s->snap->dims.unit;
	s->out.n_dims = s->ndim;
	return TPH_OK;
}

int tph_queue_rows(tph_session *s)
{
	int rc = base_rows(s);
	if (!rc)
		rc = tph_jobwhy_rows(s);
	if (rc)
		return rc;
	tph_queue_row *rows = (tph_queue_row *)s->out.queues;
	for (tph_idx q = 0; q < s->queues->n; q++)
		if (!(rows[q].summary = summary(s, &rows[q])))
			return TPH_ENOMEM;
	return TPH_OK;
}

/* The kai probes that ask plugins directly (kai-format.md, "Expectations"): nodeScores and
 * feasibleNodes as allocate sees a task (NodePreOrder over the pool, summed NodeOrder; fit on
 * idle plus releasing, PrePredicate and Predicate), the job, task and queue orders with KAI's
 * fallbacks, CanReclaimResources and proportion's QueueFairShare. Answered from the open session
 * before any action, as the victim filters and validators are (kai_check.c). */
#include "kai_check.h"

#include "kai_int.h"

#include "base/mem.h"

#include <math.h>

/* The in-pool nodes, the set allocate starts from; *n their count. NULL when out of memory. */
static uint32_t *pool_nodes(const tph_kai_session *s, uint32_t *n)
{
	uint32_t *out = tph_calloc((size_t)s->v->nodes.n + 1, sizeof *out);
	*n = 0;
	for (uint32_t i = 0; out && i < s->v->nodes.n; i++)
		if (s->v->nodes.in_pool[i])
			out[(*n)++] = i;
	return out;
}

static void probe_scores(const tph_sc_score_row *row, const tph_kai_session *s, tph_check_report *r)
{
	uint32_t n, t = row->pod.idx;
	uint32_t *pool = pool_nodes(s, &n);
	if (!pool)
		return tph_report_fail(r, "nodeScores: out of memory");
	tph_kai_node_pre_order(s, t, pool, n);
	for (uint32_t i = 0; i < row->n; i++) {
		double got = NAN;
		if (tph_kai_node_score(s, t, row->items[i].node.idx, &got) < 0)
			got = NAN;
		if (!(fabs(got - row->items[i].score) <= 0.01))
			tph_report_fail(r, "nodeScores: %s on %s expected %.4f, got %.4f",
			                row->pod.key, row->items[i].node.key, row->items[i].score,
			                got);
	}
	tph_free(pool);
}

static bool feasible(const tph_kai_session *s, uint32_t t, uint32_t n)
{
	return s->v->nodes.in_pool[n] && tph_kai_fits_future(s, t, n) && tph_kai_predicate(s, t, n);
}

static void probe_feasible(const tph_sc_keyed_nodes *kn, const tph_kai_session *s,
                           tph_check_report *r)
{
	const tph_kai_view *v = s->v;
	uint32_t t = kn->key.idx;
	uint8_t *listed = tph_calloc((size_t)v->nodes.n + 1, 1);
	if (!listed)
		return tph_report_fail(r, "feasibleNodes: out of memory");
	for (uint32_t x = 0; x < kn->nodes.n; x++)
		listed[kn->nodes.items[x].idx] = 1;
	bool pre = v->tasks.job[t] >= 0 && tph_kai_pre_predicate(s, t, (uint32_t)v->tasks.job[t]);
	for (uint32_t n = 0; n < v->nodes.n; n++) {
		bool ok = pre && feasible(s, t, n);
		if (ok && !listed[n])
			tph_report_fail(r, "feasibleNodes: %s is feasible on %s, not listed",
			                kn->key.key, v->nodes.name[n]);
		if (!ok && listed[n])
			tph_report_fail(r, "feasibleNodes: %s expected feasible on %s, is not",
			                kn->key.key, v->nodes.name[n]);
	}
	tph_free(listed);
}

/* Whether queue q is `anc` or below it. */
static bool in_subtree(const tph_kai_view *v, int32_t q, uint32_t anc)
{
	for (; q >= 0; q = v->queues.parent[q])
		if ((uint32_t)q == anc)
			return true;
	return false;
}

static bool pending(const tph_kai_session *s, uint32_t j)
{
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++) {
		uint32_t t = s->job_tasks[i];
		if (s->status[t] == TPH_KAI_TS_PENDING && s->v->tasks.pod_set[t] >= 0)
			return true;
	}
	return false;
}

/* The best job with a pending pod at or below queue q (JobOrder), -1 when none: the job
 * QueueOrder is asked with. */
static int32_t best_job(const tph_kai_session *s, uint32_t q)
{
	int32_t best = -1;
	for (uint32_t j = 0; j < s->v->jobs.n; j++)
		if (in_subtree(s->v, s->v->jobs.queue[j], q) && pending(s, j) &&
		    (best < 0 || tph_kai_job_order(s, j, (uint32_t)best) < 0))
			best = (int32_t)j;
	return best;
}

enum {
	O_JOB,
	O_TASK,
	O_QUEUE
};

static int order_of(const tph_kai_session *s, int kind, uint32_t l, uint32_t r)
{
	if (kind == O_JOB)
		return tph_kai_job_order(s, l, r);
	if (kind == O_TASK)
		return tph_kai_task_order(s, l, r);
	return tph_kai_queue_order(s, l, r, best_job(s, l), best_job(s, r), NULL, NULL);
}

/* Sort the listed objects (a stable insertion sort) and compare with the listed sequence. */
static void probe_order(const char *what, int kind, const tph_sc_refs *refs,
                        const tph_kai_session *s, tph_check_report *r)
{
	uint32_t n = refs->n, *pos = tph_calloc((size_t)n + 1, sizeof *pos);
	if (!pos)
		return tph_report_fail(r, "%s: out of memory", what);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t k = i;
		for (; k > 0 &&
		       order_of(s, kind, refs->items[i].idx, refs->items[pos[k - 1]].idx) < 0;
		     k--)
			pos[k] = pos[k - 1];
		pos[k] = i;
	}
	tph_report_order(r, what, refs, pos);
	tph_free(pos);
}

static void probe_reclaim(const tph_sc_flags *f, const tph_kai_session *s, tph_check_report *r)
{
	for (uint32_t i = 0; i < f->n; i++) {
		bool got = tph_kai_can_reclaim(s, f->items[i].key.idx);
		if (got != f->items[i].value)
			tph_report_fail(r, "probe canReclaim %s: %s, want %s", f->items[i].key.key,
			                got ? "true" : "false",
			                f->items[i].value ? "true" : "false");
	}
}

static void probe_fair_share(const tph_sc_kai_fair_share *f, const tph_kai_session *s,
                             tph_check_report *r)
{
	double got[TPH_KAI_DIMS];
	if (!tph_kai_fair_share(s, f->queue.idx, got))
		return tph_report_fail(r, "probe fairShare %s: no plugin computes it (proportion)",
		                       f->queue.key);
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		if (!isnan(f->share[d]) && fabs(got[d] - f->share[d]) > 1e-6)
			tph_report_fail(r, "probe fairShare %s: %s %g, want %g", f->queue.key,
			                tph_kai_dim_name((tph_kai_dim)d), got[d], f->share[d]);
}

void tph_kai_check_plugin_probes(const tph_scenario *sc, const tph_kai_session *s,
                                 tph_check_report *r)
{
	const tph_sc_probe *p = &sc->probe;
	const tph_sc_kai_probe *k = &sc->kai->probe;
	for (uint32_t i = 0; i < p->node_scores.n; i++)
		probe_scores(&p->node_scores.items[i], s, r);
	for (uint32_t i = 0; i < p->feasible_nodes.n; i++)
		probe_feasible(&p->feasible_nodes.items[i], s, r);
	probe_order("jobOrder", O_JOB, &p->job_order, s, r);
	probe_order("taskOrder", O_TASK, &p->task_order, s, r);
	probe_order("queueOrder", O_QUEUE, &p->queue_order, s, r);
	probe_reclaim(&k->can_reclaim, s, r);
	for (uint32_t i = 0; i < k->n_fair_shares; i++)
		probe_fair_share(&k->fair_shares[i], s, r);
}

/* probe: checks, answered from the open session before any action: scores, feasible nodes,
 * orders, votes, victims and VictimTasks. They observe the combination rules exactly as
 * actions see them. */
#include "check_core.h"

#include "ep.h"
#include "base/mem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_idx(const void *a, const void *b)
{
	tph_idx x = *(const tph_idx *)a, y = *(const tph_idx *)b;
	return x < y ? -1 : x > y;
}

static void probe_scores(const tph_sc_score_row *row, tph_session *s, tph_check_report *r)
{
	tph_idx t = tph_check_task(s, &row->pod);
	tph_idx *nodes = tph_calloc(row->n + 1, sizeof *nodes);
	double *out = tph_calloc(row->n + 1, sizeof *out);
	if (!nodes || !out || t == TPH_NOIDX)
		goto done;
	for (uint32_t i = 0; i < row->n; i++)
		nodes[i] = tph_check_node(s, &row->items[i].node);
	qsort(nodes, row->n, sizeof *nodes, cmp_idx);
	tph_score_nodes(s, t, nodes, row->n, out);
	for (uint32_t i = 0; i < row->n; i++) {
		tph_idx n = tph_check_node(s, &row->items[i].node);
		tph_idx *at = bsearch(&n, nodes, row->n, sizeof *nodes, cmp_idx);
		double got = at ? out[at - nodes] : (double)NAN;
		if (!(fabs(got - row->items[i].score) <= 0.01))
			tph_report_fail(r, "nodeScores: %s on %s expected %.4f, got %.4f",
			                row->pod.key, row->items[i].node.key, row->items[i].score,
			                got);
	}
done:
	tph_free(nodes);
	tph_free(out);
}

static void probe_feasible(const tph_sc_keyed_nodes *kn, tph_session *s, tph_check_report *r)
{
	tph_idx t = tph_check_task(s, &kn->key);
	uint32_t n = s->n_ready;
	tph_idx *feas = tph_calloc(n + 1, sizeof *feas);
	tph_reason_code *why = tph_calloc(n + 1, sizeof *why);
	uint8_t *mark = tph_calloc(s->nodes.n + 1, 1); /* 1: listed, 2: feasible */
	if (!feas || !why || !mark || t == TPH_NOIDX)
		goto done;
	uint32_t k = tph_filter_nodes(s, t, s->ready_nodes, n, why, feas);
	for (uint32_t x = 0; x < kn->nodes.n; x++) {
		tph_idx want = tph_check_node(s, &kn->nodes.items[x]);
		if (want != TPH_NOIDX)
			mark[want] |= 1;
	}
	const tph_strtab *st = s->snap->strs;
	for (uint32_t i = 0; i < k; i++) {
		mark[feas[i]] |= 2;
		if (!(mark[feas[i]] & 1))
			tph_report_fail(r, "feasibleNodes: %s is feasible on %s, not listed",
			                kn->key.key, tph_strtab_str(st, s->nodes.name[feas[i]]));
	}
	for (uint32_t x = 0; x < kn->nodes.n; x++) {
		tph_idx want = tph_check_node(s, &kn->nodes.items[x]);
		if (want == TPH_NOIDX || !(mark[want] & 2))
			tph_report_fail(r, "feasibleNodes: %s expected feasible on %s, is not",
			                kn->key.key, kn->nodes.items[x].key);
	}
done:
	tph_free(feas);
	tph_free(why);
	tph_free(mark);
}

/* Sort the listed objects with the session's order and compare with the listed sequence. */
static void probe_order(const char *what, const tph_sc_refs *refs, tph_idx *ids, tph_order_fn cmp,
                        const tph_session *s, tph_check_report *r)
{
	uint32_t n = refs->n;
	uint32_t *pos = tph_calloc(n + 1, sizeof *pos);
	for (uint32_t i = 0; pos && i < n; i++)
		pos[i] = i;
	if (!pos || tph_stable_order(pos, n, ids, cmp, s) != TPH_OK) {
		tph_report_fail(r, "%s: out of memory", what);
		tph_free(pos);
		return;
	}
	tph_report_order(r, what, refs, pos);
	tph_free(pos);
}

static void probe_orders(const tph_sc_probe *p, tph_session *s, tph_check_report *r)
{
	const tph_sc_refs *lists[3] = {&p->job_order, &p->task_order, &p->queue_order};
	static const char *const what[3] = {"jobOrder", "taskOrder", "queueOrder"};
	static const tph_order_fn fns[3] = {tph_job_order, tph_task_order, tph_queue_order};
	for (int k = 0; k < 3; k++) {
		const tph_sc_refs *refs = lists[k];
		tph_idx *ids = tph_calloc(refs->n + 1, sizeof *ids);
		if (!ids)
			return;
		bool ok = true;
		for (uint32_t i = 0; i < refs->n; i++) {
			const tph_sc_ref *ref = &refs->items[i];
			ids[i] = k == 0   ? tph_check_job(s, ref->key)
			         : k == 1 ? tph_check_task(s, ref)
			                  : tph_check_queue(s, ref->key);
			if (ids[i] == TPH_NOIDX) {
				tph_report_fail(r, "%s: %s is not in the session", what[k],
				                ref->key);
				ok = false;
			}
		}
		if (ok)
			probe_order(what[k], refs, ids, fns[k], s, r);
		tph_free(ids);
	}
}

enum {
	V_ENQUEUEABLE,
	V_READY,
	V_PIPELINED,
	V_STARVING,
	V_VALID
};

static bool job_verdict(const tph_session *s, tph_idx j, int which)
{
	switch (which) {
	case V_ENQUEUEABLE:
		return tph_job_enqueueable(s, j);
	case V_READY:
		return tph_job_ready(s, j);
	case V_PIPELINED:
		return tph_job_pipelined(s, j);
	case V_STARVING:
		return tph_job_starving(s, j);
	default:
		return tph_job_valid(s, j, NULL) == TPH_OK;
	}
}

static void probe_flags(const tph_sc_probe *p, const tph_session *s, tph_check_report *r)
{
	const tph_sc_flags *lists[5] = {&p->job_enqueueable, &p->job_ready, &p->job_pipelined,
	                                &p->job_starving, &p->job_valid};
	static const char *const what[5] = {"jobEnqueueable", "jobReady", "jobPipelined",
	                                    "jobStarving", "jobValid"};
	for (int k = 0; k < 5; k++)
		for (uint32_t i = 0; i < lists[k]->n; i++) {
			const tph_sc_flag *f = &lists[k]->items[i];
			tph_idx j = tph_check_job(s, f->key.key);
			if (j == TPH_NOIDX) {
				tph_report_fail(r, "%s: %s is not in the session", what[k],
				                f->key.key);
				continue;
			}
			bool got = job_verdict(s, j, k);
			if (got != f->value)
				tph_report_fail(r, "%s: %s expected %s, got %s", what[k],
				                f->key.key, f->value ? "true" : "false",
				                got ? "true" : "false");
		}
	for (uint32_t i = 0; i < p->overused.n; i++) {
		const tph_sc_flag *f = &p->overused.items[i];
		tph_idx q = tph_check_queue(s, f->key.key);
		bool got = q != TPH_NOIDX && tph_overused(s, q);
		if (got != f->value)
			tph_report_fail(r, "overused: %s expected %s, got %s", f->key.key,
			                f->value ? "true" : "false", got ? "true" : "false");
	}
}

/* The keys of `refs`, sorted for lookups; NULL (reported as a failure of `what`) when out of
 * memory. */
static tph_keyed *listed_keys(const tph_sc_refs *refs, const char *what, tph_check_report *r)
{
	tph_keyed *v = tph_keyed_new(refs->n);
	if (!v) {
		tph_report_fail(r, "%s: out of memory", what);
		return NULL;
	}
	for (uint32_t x = 0; x < refs->n; x++)
		v[x] = (tph_keyed){refs->items[x].key, x};
	tph_keyed_sort(v, refs->n);
	return v;
}

/* The tasks of `refs` in order (n + 1 entries, heap); NULL when out of memory or when one is
 * not in the session (reported as a failure of `what`). */
static tph_idx *task_ids(tph_session *s, const tph_sc_refs *refs, const char *what,
                         tph_check_report *r)
{
	tph_idx *ids = tph_calloc(refs->n + 1, sizeof *ids);
	if (!ids) {
		tph_report_fail(r, "%s: out of memory", what);
		return NULL;
	}
	for (uint32_t i = 0; i < refs->n; i++)
		if ((ids[i] = tph_check_task(s, &refs->items[i])) == TPH_NOIDX) {
			tph_report_fail(r, "%s: %s is not in the session", what,
			                refs->items[i].key);
			tph_free(ids);
			return NULL;
		}
	return ids;
}

static void probe_victims(const tph_sc_victims *v, tph_session *s, tph_check_report *r)
{
	uint32_t n = v->candidates.n;
	const char *what = v->reclaim ? "victims (reclaimable)" : "victims (preemptable)";
	tph_idx *cands = task_ids(s, &v->candidates, what, r);
	tph_keyed *want = cands ? listed_keys(&v->victims, what, r) : NULL;
	tph_idx *out = tph_calloc(n + 1, sizeof *out);
	uint8_t *is_out = tph_calloc(s->tasks.n + 1, 1);
	tph_idx actor = tph_check_task(s, &v->actor);
	if (want && (!out || !is_out))
		tph_report_fail(r, "%s: out of memory", what);
	if (!want || !out || !is_out || actor == TPH_NOIDX)
		goto done;
	uint32_t k = v->reclaim ? tph_reclaimable(s, actor, cands, n, out)
	                        : tph_preemptable(s, actor, cands, n, out);
	for (uint32_t x = 0; x < k; x++)
		is_out[out[x]] = 1;
	for (uint32_t i = 0; i < n; i++) {
		const char *key = v->candidates.items[i].key;
		bool w = tph_keyed_find(want, v->victims.n, key) != UINT32_MAX,
		     got = is_out[cands[i]];
		if (w != got)
			tph_report_fail(r, "%s: %s of %s expected %s, got %s", what, key,
			                v->actor.key, w ? "a victim" : "not a victim",
			                got ? "a victim" : "not");
	}
done:
	tph_free(cands);
	tph_free(want);
	tph_free(out);
	tph_free(is_out);
}

/* VictimTasks over the candidates in the order given (tier by tier, the first tier naming any
 * victim decides); the victims compare as a set. */
static void probe_victim_tasks(const tph_sc_victim_tasks *v, tph_session *s, tph_check_report *r)
{
	uint32_t n = v->candidates.n;
	tph_idx *cands = task_ids(s, &v->candidates, "victimTasks", r);
	tph_keyed *want = cands ? listed_keys(&v->victims, "victimTasks", r) : NULL;
	uint8_t *got = tph_calloc(n + 1, 1);
	if (!want || !got) {
		if (want)
			tph_report_fail(r, "victimTasks: out of memory");
		goto done;
	}
	tph_victim_tasks(s, cands, n, got);
	for (uint32_t i = 0; i < n; i++) {
		const char *key = v->candidates.items[i].key;
		bool w = tph_keyed_find(want, v->victims.n, key) != UINT32_MAX;
		if (w != (got[i] != 0))
			tph_report_fail(r, "victimTasks: %s expected %s, got %s", key,
			                w ? "a victim" : "not a victim",
			                got[i] ? "a victim" : "not");
	}
done:
	tph_free(cands);
	tph_free(want);
	tph_free(got);
}

void tph_check_probe(const tph_scenario *sc, tph_session *s, tph_check_report *r)
{
	const tph_sc_probe *p = &sc->probe;
	if (!p->present)
		return;
	for (uint32_t i = 0; i < p->node_scores.n; i++)
		probe_scores(&p->node_scores.items[i], s, r);
	for (uint32_t i = 0; i < p->feasible_nodes.n; i++)
		probe_feasible(&p->feasible_nodes.items[i], s, r);
	probe_orders(p, s, r);
	probe_flags(p, s, r);
	for (uint32_t i = 0; i < p->victims.n; i++)
		probe_victims(&p->victims.items[i], s, r);
	for (uint32_t i = 0; i < p->victim_tasks.n; i++)
		probe_victim_tasks(&p->victim_tasks.items[i], s, r);
}

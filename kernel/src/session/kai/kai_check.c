/* Checking a KAI session against a kai scenario's expect: (kai-format.md, "Expectations"): task
 * and podgroup statuses and nodes, granted GPUs, last-start timestamps, exact binds and
 * evictions, the bounds on committed decisions and the node GPU ledger; the victim filter and
 * scenario validator probes (the others: kai_probe.c). */
#include "kai_check.h"

#include "kai_int.h"

#include "base/mem.h"

#include <math.h>
#include <string.h>

static const char *status_name(uint8_t st)
{
	return tph_kai_status_name((tph_kai_status)st);
}

/* GPUs a task holds: whole ones, or its fraction on each of its devices, while allocated. A
 * gpu-memory pod's fraction is its memory over its node's memory per device, as KAI grants it. */
static double accepted_gpus(const tph_kai_session *s, uint32_t t)
{
	const tph_kai_tasks *k = &s->v->tasks;
	if (!tph_kai_active_allocated(s->status[t]))
		return 0;
	double frac = k->gpu_fraction[t];
	if (frac <= 0 && k->gpu_memory_mib[t] > 0 && s->node[t] >= 0)
		frac =
		    (double)k->gpu_memory_mib[t] / (double)s->v->nodes.gpu_memory_mib[s->node[t]];
	return k->gpus[t] + frac * k->gpu_devices[t];
}

/* Allocated, Binding, Bound and Running imply the job started: it has a last-start time. */
static bool implies_start(tph_kai_status st)
{
	return st == TPH_KAI_TS_ALLOCATED || st == TPH_KAI_TS_BINDING || st == TPH_KAI_TS_BOUND ||
	       st == TPH_KAI_TS_RUNNING;
}

static void check_task(const tph_kai_session *s, const char *what, const tph_sc_kai_task_exp *e,
                       uint32_t t, tph_check_report *r)
{
	const tph_kai_view *v = s->v;
	if (s->status[t] != e->status)
		tph_report_fail(r, "%s %s: status %s, want %s", what, e->key.key,
		                status_name(s->status[t]), status_name((uint8_t)e->status));
	const char *node = s->node[t] >= 0 ? v->nodes.name[s->node[t]] : "";
	if (e->has_node && strcmp(node, e->node.key) != 0)
		tph_report_fail(r, "%s %s: node \"%s\", want %s", what, e->key.key, node,
		                e->node.key);
	int32_t j = v->tasks.job[t];
	tph_time start = j >= 0 ? s->last_start[j] : 0;
	if (implies_start(e->status) && !start)
		tph_report_fail(r, "%s %s: its podgroup has no last-start timestamp", what,
		                e->key.key);
	if (e->older_than_ms >= 0 && (!start || v->now - start < e->older_than_ms))
		tph_report_fail(r, "%s %s: last start is not %lld ms before now", what, e->key.key,
		                (long long)e->older_than_ms);
}

static void check_tasks(const tph_kai_session *s, const tph_sc_kai_task_exps *l,
                        tph_check_report *r)
{
	for (uint32_t i = 0; i < l->n; i++) {
		const tph_sc_kai_task_exp *e = &l->items[i];
		check_task(s, "task", e, e->key.idx, r);
		if (e->has_gpus && fabs(accepted_gpus(s, e->key.idx) - e->accepted_gpus) > 1e-6)
			tph_report_fail(r, "task %s: acceptedGPUs %g, want %g", e->key.key,
			                accepted_gpus(s, e->key.idx), e->accepted_gpus);
	}
}

static void check_podgroups(const tph_kai_session *s, const tph_sc_kai_task_exps *l,
                            tph_check_report *r)
{
	for (uint32_t i = 0; i < l->n; i++) {
		const tph_sc_kai_task_exp *e = &l->items[i];
		uint32_t j = e->key.idx;
		double gpus = 0;
		for (uint32_t k = s->job_first[j]; k < s->job_first[j + 1]; k++) {
			check_task(s, "podGroup", e, s->job_tasks[k], r);
			gpus += accepted_gpus(s, s->job_tasks[k]);
		}
		if (e->has_gpus && fabs(gpus - e->accepted_gpus) > 1e-6)
			tph_report_fail(r, "podGroup %s: acceptedGPUs %g, want %g", e->key.key,
			                gpus, e->accepted_gpus);
	}
}

/* An expected decision: its pod, and its node for a bind (NULL for an eviction). */
typedef struct want_row {
	const tph_sc_ref *pod, *node;
} want_row;

static want_row want_at(const tph_sc_kai_expect *e, bool binds, uint32_t i)
{
	if (binds)
		return (want_row){&e->binds.items[i].pod, &e->binds.items[i].node};
	return (want_row){&e->evictions.items[i], NULL};
}

/* Exact lists: every expected decision made, and no other. */
static void check_exact(const tph_kai_session *s, const tph_sc_kai_expect *e, bool binds,
                        const tph_kai_decision *got, uint32_t n, tph_check_report *r)
{
	const tph_kai_view *v = s->v;
	const char *what = binds ? "binds" : "evictions";
	uint32_t want = binds ? e->binds.n : e->evictions.n;
	for (uint32_t i = 0; i < want; i++) {
		want_row w = want_at(e, binds, i);
		bool found = false;
		for (uint32_t k = 0; k < n && !found; k++)
			found = got[k].task == w.pod->idx &&
			        (!w.node || got[k].node == (int32_t)w.node->idx);
		if (!found)
			tph_report_fail(r, "%s: %s%s%s not made", what, w.pod->key,
			                w.node ? " -> " : "", w.node ? w.node->key : "");
	}
	for (uint32_t k = 0; k < n; k++) {
		bool expected = false;
		for (uint32_t i = 0; i < want && !expected; i++)
			expected = got[k].task == want_at(e, binds, i).pod->idx;
		if (!expected)
			tph_report_fail(r, "%s: unexpected %s", what, v->tasks.name[got[k].task]);
	}
}

static void check_bound(const char *what, uint32_t n, int64_t max, tph_check_report *r)
{
	if (max >= 0 && n > max)
		tph_report_fail(r, "%s: %u made, at most %lld expected", what, (unsigned)n,
		                (long long)max);
}

static void check_decisions(const tph_kai_session *s, const tph_sc_kai_expect *e,
                            tph_check_report *r)
{
	const tph_kai_decision *ev, *bi, *pi;
	uint32_t nev = tph_kai_session_evictions(s, &ev), nbi = tph_kai_session_binds(s, &bi);
	uint32_t npi = tph_kai_session_pipelined(s, &pi);
	(void)pi;
	if (e->evictions.present)
		check_exact(s, e, false, ev, nev, r);
	if (e->binds.present)
		check_exact(s, e, true, bi, nbi, r);
	check_bound("binds", nbi, e->max_binds, r);
	check_bound("evictions", nev, e->max_evictions, r);
	check_bound("pipelined", npi, e->max_pipelined, r);
}

static const char *const actions[] = {"reclaim", "preempt"};

static void check_filters(const tph_kai_session *s, const tph_sc_kai_probe *p, tph_check_report *r)
{
	for (uint32_t i = 0; i < p->n_victim_filters; i++) {
		const tph_sc_kai_victim_filter *f = &p->victim_filters[i];
		tph_kai_evict_action a =
		    f->action == TPH_SC_KAI_RECLAIM ? TPH_KAI_RECLAIM : TPH_KAI_PREEMPT;
		bool got = tph_kai_victim_allowed(s, a, f->preemptor.idx, f->victim.idx);
		if (got != f->allowed)
			tph_report_fail(
			    r, "probe victimFilter[%u] (%s, %s takes from %s): %s, want %s",
			    (unsigned)i, actions[f->action], f->preemptor.key, f->victim.key,
			    got ? "allowed" : "refused", f->allowed ? "allowed" : "refused");
	}
}

/* One scenarioValid row as the tph_kai_scenario the validators take. */
static bool scenario_of(const tph_sc_kai_scenario_valid *v, tph_kai_scenario *sc, uint32_t **bufs)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < v->n_victims; i++)
		n += v->victims[i].pods.n;
	uint32_t *jobs = tph_calloc((size_t)v->n_victims + 1, sizeof *jobs);
	uint32_t *first = tph_calloc((size_t)v->n_victims + 1, sizeof *first);
	uint32_t *tasks = tph_calloc((size_t)n + 1, sizeof *tasks);
	bufs[0] = jobs, bufs[1] = first, bufs[2] = tasks;
	if (!jobs || !first || !tasks)
		return false;
	for (uint32_t i = 0, k = 0; i < v->n_victims; i++) {
		jobs[i] = v->victims[i].job.idx;
		for (uint32_t t = 0; t < v->victims[i].pods.n; t++)
			tasks[k++] = v->victims[i].pods.items[t].idx;
		first[i + 1] = k;
	}
	*sc = (tph_kai_scenario){v->preemptor.idx, v->n_victims, jobs, first, tasks};
	return true;
}

static void check_validators(const tph_kai_session *s, const tph_sc_kai_probe *p,
                             tph_check_report *r)
{
	for (uint32_t i = 0; i < p->n_scenario_valid; i++) {
		const tph_sc_kai_scenario_valid *v = &p->scenario_valid[i];
		tph_kai_evict_action a =
		    v->action == TPH_SC_KAI_RECLAIM ? TPH_KAI_RECLAIM : TPH_KAI_PREEMPT;
		uint32_t *bufs[3];
		tph_kai_scenario sc;
		if (!scenario_of(v, &sc, bufs))
			tph_report_fail(r, "probe scenarioValid[%u]: out of memory", (unsigned)i);
		else if (tph_kai_scenario_valid(s, a, &sc) != v->valid)
			tph_report_fail(r, "probe scenarioValid[%u] (%s by %s): %s, want %s",
			                (unsigned)i, actions[v->action], v->preemptor.key,
			                v->valid ? "invalid" : "valid",
			                v->valid ? "valid" : "invalid");
		for (int k = 0; k < 3; k++)
			tph_free(bufs[k]);
	}
}

void tph_kai_check_probe(const tph_scenario *sc, const tph_kai_session *s, tph_check_report *r)
{
	check_filters(s, &sc->kai->probe, r);
	check_validators(s, &sc->kai->probe, r);
	tph_kai_check_plugin_probes(sc, s, r);
}

/* `nodes:` against the session's node ledger (whole GPUs; fractional pods hold whole devices
 * until GPU sharing is built, docs/kai.md). */
static void check_nodes(const tph_kai_session *s, const tph_sc_kai_node_exps *e,
                        tph_check_report *r)
{
	for (uint32_t i = 0; i < e->n; i++) {
		const tph_sc_kai_node_exp *x = &e->items[i];
		size_t at = (size_t)x->node.idx * TPH_KAI_DIMS + TPH_KAI_GPU;
		double idle = s->idle[at], rel = s->releasing[at];
		if (!isnan(x->idle_gpus) && idle != x->idle_gpus)
			tph_report_fail(r, "node %s: idleGPUs %g, want %g", x->node.key, idle,
			                x->idle_gpus);
		if (!isnan(x->releasing_gpus) && rel != x->releasing_gpus)
			tph_report_fail(r, "node %s: releasingGPUs %g, want %g", x->node.key, rel,
			                x->releasing_gpus);
	}
}

void tph_kai_check(const tph_scenario *sc, const tph_kai_session *s, tph_check_report *r)
{
	const tph_sc_kai_expect *e = &sc->kai->expect;
	check_tasks(s, &e->tasks, r);
	check_podgroups(s, &e->podgroups, r);
	check_nodes(s, &e->nodes, r);
	check_decisions(s, e, r);
}

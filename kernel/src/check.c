/* expect: checks over the closed session: binds, evictions, pipelined tasks, phases, task
 * status counts. Lookups by name are linear or sorted scans: checking is not a hot path. */
#include "check_core.h"

#include "mem.h"

#include <stdio.h>
#include <string.h>

void tph_report_fail(tph_check_report *r, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof line - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	size_t len = (size_t)n < sizeof line - 2 ? (size_t)n : sizeof line - 3;
	r->failures++;
	if (r->len + len + 4 > r->cap) {
		size_t cap = (r->cap ? r->cap * 2 : 1024) + len + 4;
		char *nb = tph_realloc(r->buf, cap);
		if (!nb)
			return;
		r->buf = nb;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, "  ", 2);
	memcpy(r->buf + r->len + 2, line, len);
	r->len += len + 2;
	r->buf[r->len++] = '\n';
	r->buf[r->len] = '\0';
}

void tph_report_free(tph_check_report *r)
{
	tph_free(r->buf);
	memset(r, 0, sizeof *r);
}

static bool key_is(const tph_strtab *st, tph_sid ns, tph_sid name, const char *key)
{
	const char *a = tph_strtab_str(st, ns), *b = tph_strtab_str(st, name);
	size_t la = strlen(a);
	return !strncmp(key, a, la) && key[la] == '/' && !strcmp(key + la + 1, b);
}

tph_idx tph_check_task(const tph_session *s, const tph_sc_ref *ref)
{
	const tph_strtab *st = s->snap->strs;
	/* The loader puts pods in file order, so the scenario index is the task index. */
	if (ref->idx < s->tasks.n &&
	    key_is(st, s->tasks.ns[ref->idx], s->tasks.name[ref->idx], ref->key))
		return ref->idx;
	for (tph_idx t = 0; t < s->tasks.n; t++)
		if (key_is(st, s->tasks.ns[t], s->tasks.name[t], ref->key))
			return t;
	return TPH_NOIDX;
}

tph_idx tph_check_node(const tph_session *s, const tph_sc_ref *ref)
{
	const tph_strtab *st = s->snap->strs;
	for (tph_idx n = 0; n < s->nodes.n; n++)
		if (!strcmp(tph_strtab_str(st, s->nodes.name[n]), ref->key))
			return n;
	return TPH_NOIDX;
}

tph_idx tph_check_job(const tph_session *s, const char *key)
{
	for (tph_idx j = 0; j < s->jobs->n; j++)
		if (key_is(s->snap->strs, s->jobs->ns[j], s->jobs->name[j], key))
			return j;
	return TPH_NOIDX;
}

tph_idx tph_check_queue(const tph_session *s, const char *name)
{
	for (tph_idx q = 0; q < s->queues->n; q++)
		if (!strcmp(tph_strtab_str(s->snap->strs, s->queues->name[q]), name))
			return q;
	return TPH_NOIDX;
}

static const tph_decision *find_row(const tph_decision *rows, uint32_t n, const char *pod)
{
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(rows[i].pod, pod))
			return &rows[i];
	return NULL;
}

static bool bind_expected(const tph_sc_binds *b, const char *pod)
{
	for (uint32_t i = 0; i < b->n; i++)
		if (!strcmp(b->items[i].pod.key, pod))
			return true;
	return false;
}

static void check_binds(const tph_sc_expect *e, const tph_decision_log *l, tph_check_report *r)
{
	for (uint32_t i = 0; i < e->binds.n; i++) {
		const tph_sc_bind *b = &e->binds.items[i];
		const tph_decision *got = find_row(l->binds, l->n_binds, b->pod.key);
		if (!got)
			tph_report_fail(r, "binds: %s expected on %s, not bound", b->pod.key,
			                b->node.key);
		else if (strcmp(got->node, b->node.key))
			tph_report_fail(r, "binds: %s expected on %s, bound to %s", b->pod.key,
			                b->node.key, got->node);
	}
	for (uint32_t i = 0; i < l->n_binds; i++)
		if (!bind_expected(&e->binds, l->binds[i].pod))
			tph_report_fail(r, "binds: unexpected bind %s -> %s", l->binds[i].pod,
			                l->binds[i].node);
}

static bool ref_listed(const tph_sc_refs *refs, const char *key)
{
	for (uint32_t i = 0; i < refs->n; i++)
		if (!strcmp(refs->items[i].key, key))
			return true;
	return false;
}

static void check_evictions(const tph_sc_expect *e, const tph_decision_log *l, tph_check_report *r)
{
	for (uint32_t i = 0; i < e->evictions.n; i++)
		if (!find_row(l->evictions, l->n_evictions, e->evictions.items[i].key))
			tph_report_fail(r, "evictions: %s expected to be evicted, was not",
			                e->evictions.items[i].key);
	for (uint32_t i = 0; i < l->n_evictions; i++)
		if (!ref_listed(&e->evictions, l->evictions[i].pod))
			tph_report_fail(r, "evictions: unexpected eviction of %s",
			                l->evictions[i].pod);
}

static void check_counts(const tph_sc_expect *e, const tph_decision_log *l, tph_check_report *r)
{
	if (e->bind_count >= 0 && e->bind_count != (int64_t)l->n_binds)
		tph_report_fail(r, "bindCount: expected %lld, got %u", (long long)e->bind_count,
		                l->n_binds);
	if (e->eviction_count >= 0 && e->eviction_count != (int64_t)l->n_evictions)
		tph_report_fail(r, "evictionCount: expected %lld, got %u",
		                (long long)e->eviction_count, l->n_evictions);
}

static void check_pipelined_job(const tph_session *s, const tph_sc_keyed_nodes *kn,
                                tph_check_report *r)
{
	tph_idx j = tph_check_job(s, kn->key.key);
	uint32_t found = 0;
	for (uint32_t k = j == TPH_NOIDX ? 0 : s->jobs->task_off[j];
	     j != TPH_NOIDX && k < s->jobs->task_off[j + 1]; k++) {
		tph_idx t = s->jobs->task_idx[k];
		if (s->tasks.status[t] != TPH_TS_PIPELINED)
			continue;
		found++;
		const char *node = tph_strtab_str(s->snap->strs, s->nodes.name[s->tasks.node[t]]);
		if (!ref_listed(&kn->nodes, node))
			tph_report_fail(r, "pipelined: a task of %s is pipelined on %s, not listed",
			                kn->key.key, node);
	}
	if (!found)
		tph_report_fail(r, "pipelined: %s has no pipelined task", kn->key.key);
}

static void check_phases(const tph_sc_expect *e, const tph_decision_log *l, tph_check_report *r)
{
	static const char *const names[] = {"Pending", "Inqueue", "Running", "Unknown",
	                                    "Completed"};
	for (uint32_t i = 0; i < e->podgroup_phases.n; i++) {
		const tph_sc_phase *p = &e->podgroup_phases.items[i];
		const char *got = NULL;
		for (uint32_t k = 0; k < l->n_phases && !got; k++)
			if (!strcmp(l->phases[k].podgroup, p->podgroup.key))
				got = l->phases[k].phase;
		if (!got || strcmp(got, names[p->phase]))
			tph_report_fail(r, "podGroupPhases: %s expected %s, got %s",
			                p->podgroup.key, names[p->phase],
			                got ? got : "(not in the session)");
	}
}

static void check_status_counts(const tph_sc_expect *e, const tph_session *s, tph_check_report *r)
{
	for (uint32_t i = 0; i < e->task_status_counts.n; i++) {
		const tph_sc_status_count *c = &e->task_status_counts.items[i];
		tph_idx j = tph_check_job(s, c->podgroup.key);
		for (uint32_t st = 0; st < TPH_SC_TS_COUNT; st++) {
			if (c->count[st] < 0)
				continue;
			uint32_t got =
			    j == TPH_NOIDX ? 0 : s->js.count[(size_t)j * TPH_TS_COUNT + st];
			if ((int64_t)got != c->count[st])
				tph_report_fail(r, "taskStatusCounts: %s %s expected %d, got %u",
				                c->podgroup.key, tph_sc_task_status_names[st],
				                c->count[st], got);
		}
	}
}

void tph_check_expect(const tph_scenario *sc, const tph_session *s, tph_check_report *r)
{
	const tph_sc_expect *e = &sc->expect;
	const tph_decision_log *l = tph_session_decisions(s);
	if (!e->present || !l)
		return;
	if (e->binds.present)
		check_binds(e, l, r);
	if (e->evictions.present)
		check_evictions(e, l, r);
	check_counts(e, l, r);
	for (uint32_t i = 0; i < e->pipelined.n; i++)
		check_pipelined_job(s, &e->pipelined.items[i], r);
	check_phases(e, l, r);
	check_status_counts(e, s, r);
	if (e->binds_per_hypernode.present)
		tph_report_fail(r, "bindsPerHyperNode: needs the hypernode tree, not built yet");
}

/* expect: checks over the closed session: binds, evictions, pipelined tasks, phases, task
 * status counts, bind annotations. Lookups in lists that grow with the cluster (binds,
 * evictions) go through sorted keys (check_keys.c); the rest are short scans. */
#include "check_core.h"

#include "cache/cluster_int.h"
#include "session/topo/hypernode.h"
#include "base/mem.h"
#include "base/msg_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report_line(tph_check_report *r, const char *raw);

void tph_report_fail(tph_check_report *r, const char *fmt, ...)
{
	char raw[1024];
	/* a probe can differ on every node for every task: past the cap only the count grows */
	if (r->failures++ >= TPH_REPORT_MAX_LINES) {
		if (r->failures == TPH_REPORT_MAX_LINES + 1)
			report_line(r, "(further differences are counted, not listed)");
		return;
	}
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	if (n >= 0)
		report_line(r, raw);
}

void tph_report_order(tph_check_report *r, const char *what, const tph_sc_refs *refs,
                      const uint32_t *pos)
{
	for (uint32_t i = 0; i < refs->n; i++)
		if (pos[i] != i) {
			tph_report_fail(r, "%s: expected %s at position %u, got %s", what,
			                refs->items[i].key, i + 1, refs->items[pos[i]].key);
			return;
		}
}

static void report_line(tph_check_report *r, const char *raw)
{
	char line[1024];
	size_t len = tph_msg_escape(line, sizeof line, raw); /* names come from the scenario */
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
	/* as for tasks, the scenario index is the node index unless nodes were left out */
	if (ref->idx < s->nodes.n && !strcmp(tph_strtab_str(st, s->nodes.name[ref->idx]), ref->key))
		return ref->idx;
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

static bool ref_listed(const tph_sc_refs *refs, const char *key)
{
	for (uint32_t i = 0; i < refs->n; i++)
		if (!strcmp(refs->items[i].key, key))
			return true;
	return false;
}

/* The decision rows' pods, sorted; NULL (reported) when out of memory. */
static tph_keyed *row_keys(const tph_decision *rows, uint32_t n, const char *what,
                           tph_check_report *r)
{
	tph_keyed *v = tph_keyed_new(n);
	if (!v) {
		tph_report_fail(r, "%s: out of memory", what);
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++)
		v[i] = (tph_keyed){rows[i].pod, i};
	tph_keyed_sort(v, n);
	return v;
}

static tph_keyed *ref_keys(const tph_sc_refs *refs, tph_check_report *r)
{
	tph_keyed *v = tph_keyed_new(refs->n);
	if (!v) {
		tph_report_fail(r, "evictions: out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < refs->n; i++)
		v[i] = (tph_keyed){refs->items[i].key, i};
	tph_keyed_sort(v, refs->n);
	return v;
}

static void check_binds(const tph_sc_expect *e, const tph_decision_log *l, tph_check_report *r)
{
	tph_keyed *got = row_keys(l->binds, l->n_binds, "binds", r);
	tph_keyed *want = got ? tph_keyed_new(e->binds.n) : NULL;
	if (got && !want)
		tph_report_fail(r, "binds: out of memory");
	for (uint32_t i = 0; want && i < e->binds.n; i++)
		want[i] = (tph_keyed){e->binds.items[i].pod.key, i};
	if (want)
		tph_keyed_sort(want, e->binds.n);
	for (uint32_t i = 0; want && i < e->binds.n; i++) {
		const tph_sc_bind *b = &e->binds.items[i];
		uint32_t k = tph_keyed_find(got, l->n_binds, b->pod.key);
		if (k == UINT32_MAX)
			tph_report_fail(r, "binds: %s expected on %s, not bound", b->pod.key,
			                b->node.key);
		else if (strcmp(l->binds[k].node, b->node.key))
			tph_report_fail(r, "binds: %s expected on %s, bound to %s", b->pod.key,
			                b->node.key, l->binds[k].node);
	}
	for (uint32_t i = 0; want && i < l->n_binds; i++)
		if (tph_keyed_find(want, e->binds.n, l->binds[i].pod) == UINT32_MAX)
			tph_report_fail(r, "binds: unexpected bind %s -> %s", l->binds[i].pod,
			                l->binds[i].node);
	tph_free(got);
	tph_free(want);
}

static void check_evictions(const tph_sc_expect *e, const tph_decision_log *l, tph_check_report *r)
{
	tph_keyed *got = row_keys(l->evictions, l->n_evictions, "evictions", r);
	tph_keyed *want = got ? ref_keys(&e->evictions, r) : NULL;
	for (uint32_t i = 0; want && i < e->evictions.n; i++)
		if (tph_keyed_find(got, l->n_evictions, e->evictions.items[i].key) == UINT32_MAX)
			tph_report_fail(r, "evictions: %s expected to be evicted, was not",
			                e->evictions.items[i].key);
	for (uint32_t i = 0; want && i < l->n_evictions; i++)
		if (tph_keyed_find(want, e->evictions.n, l->evictions[i].pod) == UINT32_MAX)
			tph_report_fail(r, "evictions: unexpected eviction of %s",
			                l->evictions[i].pod);
	tph_free(got);
	tph_free(want);
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

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static void format_counts(char *buf, size_t cap, const uint32_t *v, uint32_t n)
{
	size_t len = (size_t)snprintf(buf, cap, "[");
	for (uint32_t i = 0; i < n && len < cap; i++)
		len += (size_t)snprintf(buf + len, cap - len, "%s%u", i ? ", " : "", v[i]);
	if (len < cap)
		snprintf(buf + len, cap - len, "]");
}

/* Volcano's CheckBindInHyperNode: binds grouped by util.FindHyperNodeForNode of their node (a
 * node in no lowest-tier hypernode forms the "" group), the sorted counts. */
static void check_binds_per_hypernode(const tph_sc_expect *e, const tph_session *s,
                                      tph_check_report *r)
{
	const tph_sc_ints *want = &e->binds_per_hypernode;
	uint32_t nb = s->log.n_binds, ng = 0;
	uint32_t *key = tph_malloc((nb + 1) * sizeof *key),
	         *got = tph_malloc((nb + 1) * sizeof *got);
	uint32_t *exp = tph_malloc((want->n + 1) * sizeof *exp);
	if (!key || !got || !exp || !s->topo) {
		tph_report_fail(r, "bindsPerHyperNode: out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < nb; i++)
		key[i] = s->topo->t.lowest[s->log.binds[i].node];
	qsort(key, nb, sizeof *key, cmp_u32);
	for (uint32_t i = 0; i < nb; i++)
		if (!i || key[i] != key[i - 1])
			got[ng++] = 1;
		else
			got[ng - 1]++;
	qsort(got, ng, sizeof *got, cmp_u32);
	for (uint32_t i = 0; i < want->n; i++)
		exp[i] = want->items[i] < 0 ? UINT32_MAX : (uint32_t)want->items[i];
	qsort(exp, want->n, sizeof *exp, cmp_u32);
	if (ng != want->n || memcmp(got, exp, ng * sizeof *got)) {
		char a[256], b[256];
		format_counts(a, sizeof a, exp, want->n);
		format_counts(b, sizeof b, got, ng);
		tph_report_fail(r, "bindsPerHyperNode: expected %s, got %s", a, b);
	}
out:
	tph_free(key);
	tph_free(got);
	tph_free(exp);
}

/* Each listed pod is bound, and its bind carries each listed key with exactly that value among
 * the annotations plugins set on it (not the pod's own); keys not listed are not checked. */
static void check_bind_annotations(const tph_sc_expect *e, const tph_decision_log *l,
                                   tph_check_report *r)
{
	tph_keyed *bound = row_keys(l->binds, l->n_binds, "bindAnnotations", r);
	for (uint32_t i = 0; bound && i < e->bind_annotations.n; i++) {
		const tph_sc_bind_ann *want = &e->bind_annotations.items[i];
		uint32_t at = tph_keyed_find(bound, l->n_binds, want->pod.key);
		const tph_decision *got = at == UINT32_MAX ? NULL : &l->binds[at];
		if (!got) {
			tph_report_fail(r, "bindAnnotations: %s expected bound, not bound",
			                want->pod.key);
			continue;
		}
		for (uint32_t k = 0; k < want->annotations.n; k++) {
			const tph_kv *kv = &want->annotations.items[k];
			const char *v = tph_kv_find(got->annotations, kv->key);
			if (!v)
				tph_report_fail(r,
				                "bindAnnotations: %s: bind annotation %s missing",
				                want->pod.key, kv->key);
			else if (strcmp(v, kv->value))
				tph_report_fail(
				    r,
				    "bindAnnotations: %s: bind annotation %s is \"%s\", "
				    "expected \"%s\"",
				    want->pod.key, kv->key, v, kv->value);
		}
	}
	tph_free(bound);
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
		check_binds_per_hypernode(e, s, r);
	check_bind_annotations(e, l, r);
}

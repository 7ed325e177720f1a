/* Building the subjob partition at session open (JobInfo.getOrCreateSubJob over every task):
 * match values per policy, one subjob per (policy, values) found through a per-job hash
 * table, then each job's subjobs sorted by (MatchIndex, UID) into session-wide indices. */
#include "subjob.h"

#include "tephra/k8s.h"
#include "base/mem.h"
#include "session/session_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sj_local {
	uint32_t policy; /* TPH_NOIDX: the default subjob */
	uint32_t vals;   /* its match values: b->vals[vals .. vals + n_keys) */
	uint64_t hash;
	int64_t match_index;
	const char *uid;
	uint32_t ntask;
	uint32_t rank; /* position after sorting, inside its job */
} sj_local;

typedef struct sj_build {
	tph_session *s;
	sj_local *loc;
	uint32_t n_loc, cap_loc;
	tph_sid *vals;
	uint32_t n_vals, cap_vals;
	uint32_t *task_loc; /* [tasks]: local subjob of each task of a job with policies */
	uint32_t *table;    /* the current job's (policy, values) -> loc + 1; 0: empty */
	uint32_t mask, cap_table;
	tph_sid tmp[64];
} sj_build;

static const char *str(const tph_session *s, tph_sid id)
{
	return tph_strtab_str(s->snap->strs, id);
}

/* getSubJobMatchValues: the pod passes the labelSelector (when set) and has a non-empty value
 * for every matchLabelKeys key; no keys means no match (the default subjob). */
static bool match_values(const tph_subgroup_row *p, tph_labels l, tph_sid *out)
{
	if (p->selector.present && !tph_k8s_selector_match(&p->selector, l))
		return false;
	if (!p->n_match_label_keys || p->n_match_label_keys > 64)
		return false;
	for (uint32_t k = 0; k < p->n_match_label_keys; k++) {
		out[k] = tph_labels_get(l, p->match_label_keys[k]);
		if (out[k] == TPH_SID_NONE || out[k] == TPH_SID_EMPTY)
			return false;
	}
	return true;
}

static uint64_t key_hash(uint32_t policy, const tph_sid *v, uint32_t n)
{
	uint64_t h = 1469598103934665603ull ^ policy;
	for (uint32_t k = 0; k < n; k++)
		h = (h ^ v[k]) * 1099511628211ull;
	return h;
}

/* strconv.Atoi: an optional sign and decimal digits that fit an int64. */
static bool go_atoi(const char *p, int64_t *out)
{
	bool neg = *p == '-';
	p += *p == '+' || *p == '-';
	if (!*p)
		return false;
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > (lim - (uint64_t)(*p - '0')) / 10)
			return false;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

/* getSubJobID: "<job>/<policy>-<values joined by '-'>"; an id over 128 bytes is replaced by
 * rand.SafeEncodeString of its FNV-32a hash in decimal. */
static const char *make_uid(sj_build *b, tph_idx job, const tph_subgroup_row *p, const tph_sid *v,
                            uint32_t n)
{
	char id[512], h[16];
	size_t len = 0;
	for (uint32_t k = 0; k < n && len < sizeof id - 1; k++)
		len += (size_t)snprintf(id + len, sizeof id - len, "%s%s", k ? "-" : "",
		                        str(b->s, v[k]));
	if (len > 128) {
		uint32_t f = 2166136261u;
		for (size_t i = 0; i < len && id[i]; i++)
			f = (f ^ (uint8_t)id[i]) * 16777619u;
		static const char alnum[] = "bcdfghjklmnpqrstvwxz2456789";
		int m = snprintf(h, sizeof h, "%u", f);
		for (int i = 0; i < m; i++)
			h[i] = alnum[(uint8_t)h[i] % (sizeof alnum - 1)];
		snprintf(id, sizeof id, "%s", h);
	}
	char out[1024];
	int m = snprintf(out, sizeof out, "%s/%s-%s", str(b->s, b->s->jobs->uid[job]),
	                 str(b->s, p->name), id);
	return tph_arena_strndup(&b->s->arena, out, m < 0 ? 0 : (size_t)m);
}

static uint32_t new_local(sj_build *b, uint32_t policy, const tph_sid *v, uint32_t n, uint64_t hash)
{
	if (tph_grow(&b->loc, &b->cap_loc, b->n_loc + 1, sizeof *b->loc) ||
	    tph_grow(&b->vals, &b->cap_vals, b->n_vals + n + 1, sizeof *b->vals))
		return TPH_NOIDX;
	sj_local *l = &b->loc[b->n_loc];
	*l = (sj_local){policy, b->n_vals, hash, 0, NULL, 0, 0};
	if (n) {
		memcpy(b->vals + b->n_vals, v, n * sizeof *v);
		b->n_vals += n;
		go_atoi(str(b->s, v[0]), &l->match_index);
	}
	return b->n_loc++;
}

/* The local subjob of (policy, values), created on first use. */
static uint32_t find_or_add(sj_build *b, tph_idx job, uint32_t p, const tph_sid *v, uint32_t n)
{
	const tph_subgroup_row *row = &b->s->jobs->meta[job]->subgroups[p];
	uint64_t h = key_hash(p, v, n);
	uint32_t i = (uint32_t)h & b->mask;
	for (; b->table[i]; i = (i + 1) & b->mask) {
		const sj_local *l = &b->loc[b->table[i] - 1];
		if (l->hash == h && l->policy == p && !memcmp(b->vals + l->vals, v, n * sizeof *v))
			return b->table[i] - 1;
	}
	uint32_t k = new_local(b, p, v, n, h);
	if (k == TPH_NOIDX || !(b->loc[k].uid = make_uid(b, job, row, v, n)))
		return TPH_NOIDX;
	b->table[i] = k + 1;
	return k;
}

static int table_for(sj_build *b, uint32_t ntask)
{
	uint32_t cap = 16;
	while (cap < 2 * ntask)
		cap <<= 1;
	if (tph_grow(&b->table, &b->cap_table, cap, sizeof *b->table))
		return TPH_ENOMEM;
	memset(b->table, 0, cap * sizeof *b->table);
	b->mask = cap - 1;
	return TPH_OK;
}

static uint32_t default_local(sj_build *b, tph_idx job, uint32_t *dflt)
{
	if (*dflt == TPH_NOIDX && (*dflt = new_local(b, TPH_NOIDX, NULL, 0, 0)) != TPH_NOIDX)
		b->loc[*dflt].uid = str(b->s, b->s->jobs->uid[job]);
	return *dflt;
}

static int partition_job(sj_build *b, tph_idx job)
{
	const tph_job_store *js = b->s->jobs;
	const tph_job_meta *m = js->meta ? js->meta[job] : NULL;
	uint32_t np = m ? m->n_subgroups : 0, dflt = TPH_NOIDX;
	uint32_t first = js->task_off[job], end = js->task_off[job + 1];
	if (!np) { /* one default subjob with every task: no per-task work */
		if (first < end && default_local(b, job, &dflt) == TPH_NOIDX)
			return TPH_ENOMEM;
		if (first < end)
			b->loc[dflt].ntask = end - first;
		return TPH_OK;
	}
	if (table_for(b, end - first))
		return TPH_ENOMEM;
	for (uint32_t i = first; i < end; i++) {
		tph_idx t = js->task_idx[i];
		const tph_pod_meta *pm = b->s->tasks.meta ? b->s->tasks.meta[t] : NULL;
		tph_labels l = pm ? pm->labels : (tph_labels){NULL, 0};
		uint32_t p = 0, k = TPH_NOIDX;
		while (p < np && !match_values(&m->subgroups[p], l, b->tmp))
			p++;
		if (p < np)
			k = find_or_add(b, job, p, b->tmp, m->subgroups[p].n_match_label_keys);
		else
			k = default_local(b, job, &dflt);
		if (k == TPH_NOIDX)
			return TPH_ENOMEM;
		b->task_loc[t] = k;
		b->loc[k].ntask++;
	}
	return TPH_OK;
}

/* Volcano's default SubJobOrder: MatchIndex, then UID. */
static int cmp_local(const void *x, const void *y)
{
	const sj_local *a = *(sj_local *const *)x, *b = *(sj_local *const *)y;
	if (a->match_index != b->match_index)
		return a->match_index < b->match_index ? -1 : 1;
	return strcmp(a->uid, b->uid);
}

static int rank_job(sj_build *b, uint32_t first, uint32_t end)
{
	uint32_t n = end - first;
	if (n <= 1) {
		if (n)
			b->loc[first].rank = 0;
		return TPH_OK;
	}
	sj_local **order = tph_malloc(n * sizeof *order);
	if (!order)
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		order[i] = &b->loc[first + i];
	qsort(order, n, sizeof *order, cmp_local);
	for (uint32_t i = 0; i < n; i++)
		order[i]->rank = i;
	tph_free(order);
	return TPH_OK;
}

/* `count` only with policies: without, each subjob's counts are its job's (tph_subjob_counts). */
static int alloc_store(tph_session *s, tph_subjobs *o, uint32_t n, bool policies)
{
	tph_arena *a = &s->arena;
	o->n = n;
	o->job = TPH_ARENA_NEW(a, tph_idx, n + 1);
	o->policy = TPH_ARENA_NEW(a, uint32_t, n + 1);
	o->min_available = TPH_ARENA_NEW(a, int32_t, n + 1);
	o->match_index = TPH_ARENA_NEW(a, int64_t, n + 1);
	o->uid = TPH_ARENA_NEW(a, const char *, n + 1);
	o->priority = TPH_ARENA_NEW(a, int32_t, n + 1);
	o->topo_has = TPH_ARENA_NEW(a, uint8_t, n + 1);
	o->topo_tier = TPH_ARENA_NEW(a, int32_t, n + 1);
	o->hn = TPH_ARENA_NEW(a, tph_idx, n + 1);
	o->nominated = TPH_ARENA_NEW(a, tph_idx, n + 1);
	o->task_off = TPH_ARENA_NEW(a, uint32_t, n + 2);
	o->count = policies ? TPH_ARENA_NEW(a, uint32_t, (size_t)n * TPH_TS_COUNT + 1) : NULL;
	o->be_pending = TPH_ARENA_NEW(a, uint32_t, n + 1);
	o->moves = TPH_ARENA_NEW(a, uint32_t, n + 1);
	o->last_moved = TPH_ARENA_NEW(a, tph_idx, n + 1);
	if (!o->job || !o->policy || !o->min_available || !o->match_index || !o->uid ||
	    !o->priority || !o->topo_has || !o->topo_tier || !o->hn || !o->nominated ||
	    !o->task_off || (policies && !o->count) || !o->be_pending || !o->moves ||
	    !o->last_moved)
		return TPH_ENOMEM;
	memset(o->last_moved, 0xff, (n + 1) * sizeof *o->last_moved);
	memset(o->hn, 0xff, (n + 1) * sizeof *o->hn);
	memset(o->nominated, 0xff, (n + 1) * sizeof *o->nominated);
	return TPH_OK;
}

/* Copy one local subjob into its session-wide slot. */
static void store_one(const sj_build *b, tph_subjobs *o, tph_idx job, const sj_local *l)
{
	tph_idx g = o->job_off[job] + l->rank;
	const tph_job_meta *m = b->s->jobs->meta ? b->s->jobs->meta[job] : NULL;
	o->job[g] = job;
	o->policy[g] = l->policy;
	o->match_index[g] = l->match_index;
	o->uid[g] = l->uid;
	if (l->policy != TPH_NOIDX)
		o->min_available[g] = m->subgroups[l->policy].subgroup_size;
	else
		o->min_available[g] = m && m->n_subgroups ? 1 : b->s->jobs->min_member[job];
	o->task_off[g + 1] = l->ntask;
}

/* Per-subjob task lists (job task order), statuses, priorities. */
static int fill_tasks(sj_build *b, tph_subjobs *o)
{
	tph_session *s = b->s;
	const tph_job_store *js = s->jobs;
	for (uint32_t k = 0; k < o->n; k++)
		o->task_off[k + 1] += o->task_off[k];
	o->task = TPH_ARENA_NEW(&s->arena, tph_idx, o->task_off[o->n] + 1);
	o->of_task = TPH_ARENA_NEW(&s->arena, tph_idx, s->tasks.n + 1);
	uint32_t *fill = tph_malloc((o->n + 1) * sizeof *fill);
	if (!o->task || !o->of_task || !fill) {
		tph_free(fill);
		return TPH_ENOMEM;
	}
	memcpy(fill, o->task_off, (o->n + 1) * sizeof *fill);
	memset(o->of_task, 0xff, (s->tasks.n + 1) * sizeof *o->of_task);
	for (tph_idx j = 0; j < js->n; j++)
		for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
			bool one = o->job_off[j + 1] - o->job_off[j] == 1;
			tph_idx t = js->task_idx[i];
			tph_idx g = o->job_off[j] + (one ? 0 : b->loc[b->task_loc[t]].rank);
			o->of_task[t] = g;
			o->task[fill[g]++] = t;
			o->count[(size_t)g * TPH_TS_COUNT + s->tasks.status[t]]++;
			o->be_pending[g] += s->tasks.status[t] == TPH_TS_PENDING &&
			                    (s->tasks.flags[t] & TPH_TASK_BEST_EFFORT);
			if (s->tasks.priority[t] > o->priority[g])
				o->priority[g] = s->tasks.priority[t];
		}
	tph_free(fill);
	return TPH_OK;
}

static int build_store(sj_build *b, tph_subjobs *o, const uint32_t *first)
{
	const tph_job_store *js = b->s->jobs;
	int rc = alloc_store(b->s, o, b->n_loc, true);
	o->job_off = TPH_ARENA_NEW(&b->s->arena, uint32_t, js->n + 1);
	if (rc || !o->job_off)
		return TPH_ENOMEM;
	memcpy(o->job_off, first, (js->n + 1) * sizeof *first);
	for (tph_idx j = 0; j < js->n; j++)
		for (uint32_t k = first[j]; k < first[j + 1]; k++)
			store_one(b, o, j, &b->loc[k]);
	return fill_tasks(b, o);
}

static bool any_policy(const tph_job_store *js)
{
	for (tph_idx j = 0; js->meta && j < js->n; j++)
		if (js->meta[j] && js->meta[j]->n_subgroups)
			return true;
	return false;
}

/* No podgroup declares a subGroupPolicy (the common case): each job with tasks has just its
 * default subjob, holding the job's tasks in job order, so the job store's task lists and the
 * session's per-job sums (init_job_state) serve as they are, of_task stays NULL (a task's
 * subjob is its job's only one, see tph_task_subjob) and count too (the job's status counts,
 * which the statement keeps, are the subjob's): no per-task work. */
static int build_simple(tph_session *s, tph_subjobs *o)
{
	const tph_job_store *js = s->jobs;
	uint32_t n = 0;
	o->job_off = TPH_ARENA_NEW(&s->arena, uint32_t, js->n + 1);
	if (!o->job_off)
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < js->n; j++) {
		o->job_off[j] = n;
		n += js->task_off[j + 1] > js->task_off[j];
	}
	o->job_off[js->n] = n;
	if (alloc_store(s, o, n, false))
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < js->n; j++) {
		if (js->task_off[j + 1] == js->task_off[j])
			continue;
		tph_idx g = o->job_off[j];
		o->job[g] = j;
		o->policy[g] = TPH_NOIDX;
		o->min_available[g] = js->min_member[j];
		o->task_off[g] = js->task_off[j];
		o->priority[g] = s->js.open_top_prio[j];
		o->be_pending[g] = s->js.open_be_pending[j];
	}
	o->task_off[n] = js->task_off[js->n];
	o->task = js->task_idx;
	o->of_task = NULL;
	return TPH_OK;
}

int tph_subjobs_build(tph_session *s, tph_subjobs *out)
{
	const tph_job_store *js = s->jobs;
	if (!any_policy(js))
		return build_simple(s, out);
	sj_build b = {.s = s};
	uint32_t *first = tph_calloc(js->n + 1, sizeof *first);
	b.task_loc = tph_malloc((s->tasks.n + 1) * sizeof *b.task_loc);
	int rc = first && b.task_loc ? TPH_OK : TPH_ENOMEM;
	for (tph_idx j = 0; !rc && j < js->n; j++) {
		first[j] = b.n_loc;
		rc = partition_job(&b, j);
		if (!rc)
			rc = rank_job(&b, first[j], b.n_loc);
	}
	if (!rc) {
		first[js->n] = b.n_loc;
		rc = build_store(&b, out, first);
	}
	tph_free(first);
	tph_free(b.task_loc);
	tph_free(b.loc);
	tph_free(b.vals);
	tph_free(b.table);
	return rc;
}

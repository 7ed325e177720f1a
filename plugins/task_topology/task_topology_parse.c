/* task-topology's podgroup annotations: volcano.sh/task-topology-affinity and -anti-affinity
 * (groups separated by ';', task names by ','), volcano.sh/task-topology-task-order (names by
 * ','). Every non-empty name must be the role of a task of the job and appear once in its
 * group, or the job gets no manager (readTopologyFromPgAnnotations, affinityCheck); empty names
 * are kept by Volcano and never match a task. Then JobManager.ApplyTaskTopology. */
#include "task_topology.h"

#include <stdlib.h>
#include <string.h>

#include "tephra/alloc.h"

/* One annotation split into groups of names: part i is sid[i] (TPH_SID_EMPTY for ""), group g
 * ends at end[g]. */
typedef struct tt_list {
	tph_sid *sid;
	uint32_t *end;
	uint32_t n, ng;
} tt_list;

static int cmp_sid(const void *a, const void *b)
{
	tph_sid x = *(const tph_sid *)a, y = *(const tph_sid *)b;
	return x < y ? -1 : x > y;
}

/* The job's task roles (TaskRole), sorted and distinct; *out is heap memory. */
static int roles_of(const tph_session *s, tph_idx j, tph_sid **out, uint32_t *n)
{
	const tph_view *v = tph_view_of(s);
	uint32_t off = v->jobs->task_off[j], m = v->jobs->task_off[j + 1] - off, k = 0;
	tph_sid *r = tph_malloc(((size_t)m + 1) * sizeof *r);
	if (!r)
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < m; i++) {
		tph_sid role = v->tasks->role[v->jobs->task_idx[off + i]];
		if (role != TPH_SID_NONE)
			r[k++] = role;
	}
	qsort(r, k, sizeof *r, cmp_sid);
	uint32_t u = 0;
	for (uint32_t i = 0; i < k; i++)
		if (!u || r[u - 1] != r[i])
			r[u++] = r[i];
	*out = r, *n = u;
	return TPH_OK;
}

/* strings.Split into groups at `gsep` (none when 0), then names at ','; affinityCheck on each
 * group. Returns TPH_OK, TPH_DECLINED when a name is no role of the job or repeats in its
 * group, TPH_ENOMEM. */
static int split(tph_session *s, const char *text, char gsep, const tph_sid *roles, uint32_t nr,
                 tt_list *l)
{
	size_t len = strlen(text);
	l->sid = tph_malloc((len + 1) * sizeof *l->sid);
	l->end = tph_malloc((len + 1) * sizeof *l->end);
	if (!l->sid || !l->end)
		return TPH_ENOMEM;
	uint32_t group = 0;
	for (const char *p = text;; p++) {
		const char *e = p;
		while (*e && *e != ',' && (!gsep || *e != gsep))
			e++;
		tph_sid sid = e == p ? TPH_SID_EMPTY : tph_session_sid(s, p, (size_t)(e - p));
		if (sid != TPH_SID_EMPTY) {
			if (sid == TPH_SID_NONE ||
			    !bsearch(&sid, roles, nr, sizeof *roles, cmp_sid))
				return TPH_DECLINED; /* "task %s do not exist in job" */
			for (uint32_t i = group; i < l->n; i++)
				if (l->sid[i] == sid)
					return TPH_DECLINED; /* "task %s is duplicate in job" */
		}
		l->sid[l->n++] = sid;
		if (!*e || *e != ',') {
			l->end[l->ng++] = l->n;
			group = l->n;
		}
		if (!*e)
			return TPH_OK;
		p = e;
	}
}

static uint32_t name_index(const tt_topo *t, tph_sid sid)
{
	for (uint32_t a = 0; a < t->k; a++)
		if (t->name[a] == sid)
			return a;
	return TPH_NOIDX;
}

/* MarkTaskHasTopology: the highest priority of the kinds of topology a name has. */
static void mark(tt_topo *t, uint32_t a, int32_t prio)
{
	if (prio > t->prio[a])
		t->prio[a] = prio;
}

/* One affinity or anti-affinity list: a group of one name is a self relation, a longer group
 * relates each pair of its names (ApplyTaskTopology). Priorities: selfAntiAffinity 4,
 * interAffinity 3, selfAffinity 2, interAntiAffinity 1. */
static void apply(tt_topo *t, const tt_list *l, uint8_t bit, int32_t self_prio, int32_t inter_prio)
{
	for (uint32_t g = 0, from = 0; g < l->ng; from = l->end[g++]) {
		uint32_t to = l->end[g];
		for (uint32_t i = from; i < to; i++) {
			uint32_t a = name_index(t, l->sid[i]);
			if (a == TPH_NOIDX)
				continue; /* the empty name */
			if (to - from == 1) {
				t->rel[a * t->k + a] |= bit;
				mark(t, a, self_prio);
				continue;
			}
			for (uint32_t k = from; k < i; k++) {
				uint32_t b = name_index(t, l->sid[k]);
				if (b != TPH_NOIDX)
					t->rel[a * t->k + b] |= bit, t->rel[b * t->k + a] |= bit;
			}
			mark(t, a, inter_prio);
		}
	}
}

static int build(tph_session *s, tt_topo *t, const tt_list *aff, const tt_list *anti,
                 const tt_list *order)
{
	uint32_t most = aff->n + anti->n + 1;
	t->name = TPH_SESSION_NEW(s, tph_sid, most);
	if (!t->name)
		return TPH_ENOMEM;
	const tt_list *lists[2] = {aff, anti};
	for (int li = 0; li < 2; li++)
		for (uint32_t i = 0; i < lists[li]->n; i++)
			if (lists[li]->sid[i] != TPH_SID_EMPTY &&
			    name_index(t, lists[li]->sid[i]) == TPH_NOIDX)
				t->name[t->k++] = lists[li]->sid[i];
	t->order = TPH_SESSION_NEW(s, int32_t, t->k + 1);
	t->prio = TPH_SESSION_NEW(s, int32_t, t->k + 1);
	t->rel = TPH_SESSION_NEW(s, uint8_t, (size_t)t->k * t->k + 1);
	if (!t->order || !t->prio || !t->rel)
		return TPH_ENOMEM;
	apply(t, aff, TT_AFF, 2, 3);
	apply(t, anti, TT_ANTI, 4, 1);
	for (uint32_t i = 0; i < order->n; i++) {
		uint32_t a =
		    order->sid[i] == TPH_SID_EMPTY ? TPH_NOIDX : name_index(t, order->sid[i]);
		if (a != TPH_NOIDX)
			t->order[a] = (int32_t)(order->n - i);
	}
	return TPH_OK;
}

static void list_free(tt_list *l)
{
	tph_free(l->sid);
	tph_free(l->end);
}

int tt_parse_job(tph_session *s, tph_idx j, tt_topo *t)
{
	const tph_job_meta *m = tph_view_of(s)->jobs->meta ? tph_view_of(s)->jobs->meta[j] : NULL;
	static const char *const keys[3] = {"volcano.sh/task-topology-affinity",
	                                    "volcano.sh/task-topology-anti-affinity",
	                                    "volcano.sh/task-topology-task-order"};
	const char *text[3] = {NULL, NULL, NULL};
	for (int i = 0; i < 3 && m; i++) {
		tph_sid key = tph_session_sid(s, keys[i], strlen(keys[i]));
		tph_sid v =
		    key == TPH_SID_NONE ? TPH_SID_NONE : tph_labels_get(m->annotations, key);
		text[i] = v == TPH_SID_NONE ? NULL : tph_session_str(s, v);
	}
	if (!text[0] && !text[1] && !text[2])
		return TPH_DECLINED;
	tph_sid *roles = NULL;
	uint32_t nr = 0;
	int rc = roles_of(s, j, &roles, &nr);
	tt_list l[3];
	memset(l, 0, sizeof l);
	static const char gsep[3] = {';', ';', 0};
	for (int i = 0; i < 3 && !rc; i++)
		if (text[i])
			rc = split(s, text[i], gsep[i], roles, nr, &l[i]);
	if (!rc)
		rc = build(s, t, &l[0], &l[1], &l[2]);
	for (int i = 0; i < 3; i++)
		list_free(&l[i]);
	tph_free(roles);
	return rc;
}

uint32_t tt_name_of(const tph_session *s, const tt_topo *t, tph_sid key, tph_idx task)
{
	const tph_pod_meta *m =
	    tph_view_of(s)->tasks->meta ? tph_view_of(s)->tasks->meta[task] : NULL;
	tph_sid v = !m || key == TPH_SID_NONE ? TPH_SID_NONE : tph_labels_get(m->annotations, key);
	return v == TPH_SID_NONE || v == TPH_SID_EMPTY ? TPH_NOIDX : name_index(t, v);
}

/* nodegroup's queue resource limits (nodegroup.go parseNodeGroupResourceLimits,
 * checkNodeGroupResourceLimit and the Allocate/Deallocate handlers). The annotation
 * volcano.sh/nodegroup-resource-limits holds JSON, group -> resource list; anything
 * json.Unmarshal refuses (nodegroup_json.c) makes the queue's annotation invalid and every node
 * fails its tasks. A queue's tasks in an allocated status on a group's nodes count against the
 * queue's limit on that group; a task may take a node while what the queue holds there plus its
 * request stays within every limited resource. */
#include "nodegroup.h"

#include <string.h>

#include "tephra/alloc.h"

#define LIMITS_KEY "volcano.sh/nodegroup-resource-limits"

/* A limit found in an annotation, before the tables are sized. */
typedef struct pending {
	tph_idx q;
	uint32_t g;
	ng_limit l;
} pending;

typedef struct found {
	pending *p;
	uint32_t n, cap;
} found;

/* Resource k of group g has no later key of the same name (the later JSON key wins). */
static bool last_res(const ng_json *j, const ng_jgroup *g, uint32_t k)
{
	const char *me = j->text + j->res[g->first + k].name;
	for (uint32_t i = k + 1; i < g->n; i++)
		if (!strcmp(j->text + j->res[g->first + i].name, me))
			return false;
	return true;
}

static bool last_group(const ng_json *j, uint32_t k)
{
	const char *me = j->text + j->grp[k].name;
	for (uint32_t i = k + 1; i < j->n_grp; i++)
		if (!strcmp(j->text + j->grp[i].name, me))
			return false;
	return true;
}

/* NewResource(resourceList) with its key set, as limitedResourceExceededNames reads it. */
static void fill_limit(const tph_session *s, const ng_st *st, const ng_json *j, const ng_jgroup *g,
                       ng_limit *l)
{
	for (uint32_t k = 0; k < g->n; k++) {
		const ng_jres *r = &j->res[g->first + k];
		const char *name = j->text + r->name;
		if (!last_res(j, g, k) || !vr_visible_name(name))
			continue; /* NewResource drops it: the limit and the use both read 0 */
		uint32_t d = tph_session_dim_find(s, name, strlen(name));
		tph_res_unit unit = d == TPH_NOIDX ? tph_res_unit_of(name, strlen(name))
		                    : vr_has(st->milli, d)
		                        ? TPH_UNIT_MILLI
		                        : (tph_res_unit)tph_view_of(s)->dims->unit[d];
		int64_t v = 0;
		ng_quantity(ng_json_raw(j, r->raw), unit, &v);
		if (d == TPH_NOIDX || d == TPH_RES_PODS) {
			l->always |=
			    v < 0; /* no Resreq holds it: a use of 0 exceeds a negative limit */
			continue;
		}
		l->dims |= (tph_dimmask)1 << d;
		l->lim[d] = v;
	}
}

/* The limits of queue q on the node groups, from its parsed annotation. */
static int queue_limits(tph_session *s, const ng_st *st, tph_idx q, const ng_json *j, found *f)
{
	uint32_t nd = tph_view_of(s)->ndim;
	for (uint32_t i = 0; i < j->n_grp; i++) {
		const char *name = j->text + j->grp[i].name;
		tph_sid sid = tph_session_sid(s, name, strlen(name));
		uint32_t g = sid == TPH_SID_NONE ? NG_NONE : ng_group_of(st, sid);
		if (g == NG_NONE || !last_group(j, i))
			continue; /* no node has the group: nothing is ever placed there */
		if (tph_grow(&f->p, &f->cap, f->n + 1, sizeof *f->p))
			return TPH_ENOMEM;
		pending *p = &f->p[f->n++];
		*p = (pending){.q = q, .g = g};
		p->l.lim = TPH_SESSION_NEW(s, int64_t, nd + 1);
		p->l.used = TPH_SESSION_NEW(s, int64_t, nd + 1);
		if (!p->l.lim || !p->l.used)
			return TPH_ENOMEM;
		if (!j->grp[i].null)
			fill_limit(s, st, j, &j->grp[i], &p->l);
	}
	return TPH_OK;
}

/* parseNodeGroupResourceLimits over every queue: bad[q] for an annotation Volcano refuses. */
static int read_annotations(tph_session *s, ng_st *st, found *f)
{
	const tph_queue_store *qs = tph_view_of(s)->queues;
	tph_sid key = tph_session_sid(s, LIMITS_KEY, strlen(LIMITS_KEY));
	for (tph_idx q = 0; q < qs->n && key != TPH_SID_NONE; q++) {
		tph_sid val =
		    qs->meta[q] ? tph_labels_get(qs->meta[q]->annotations, key) : TPH_SID_NONE;
		const char *raw = val == TPH_SID_NONE ? NULL : tph_session_str(s, val);
		if (!raw || !*raw)
			continue;
		if (!st->bad && !(st->bad = TPH_SESSION_NEW(s, uint8_t, qs->n + 1)))
			return TPH_ENOMEM;
		ng_json j = {0};
		int rc = TPH_OK;
		if (!ng_json_parse(&j, raw))
			st->bad[q] = 1;
		else
			rc = queue_limits(s, st, q, &j, f);
		bool oom = j.oom;
		ng_json_free(&j);
		if (rc || oom)
			return TPH_ENOMEM;
	}
	return TPH_OK;
}

/* Size the tables and move the limits found into them. */
static int tables(tph_session *s, ng_st *st, const found *f)
{
	uint32_t nq = tph_view_of(s)->queues->n;
	st->lim_row = TPH_SESSION_NEW(s, uint32_t, nq + 1);
	st->limits = TPH_SESSION_NEW(s, ng_limit, f->n + 1);
	if (!st->lim_row || !st->limits)
		return TPH_ENOMEM;
	memset(st->lim_row, 0xff, (nq + 1) * sizeof *st->lim_row);
	for (uint32_t i = 0; i < f->n; i++)
		if (st->lim_row[f->p[i].q] == NG_NONE)
			st->lim_row[f->p[i].q] = st->n_lim_rows++;
	size_t cells = (size_t)st->n_lim_rows * st->stride;
	st->lim_of = TPH_SESSION_NEW(s, uint32_t, cells + 1);
	if (!st->lim_of)
		return TPH_ENOMEM;
	memset(st->lim_of, 0xff, (cells + 1) * sizeof *st->lim_of);
	for (uint32_t i = 0; i < f->n; i++) {
		st->limits[i] = f->p[i].l;
		st->lim_of[(size_t)st->lim_row[f->p[i].q] * st->stride + f->p[i].g] = i;
	}
	st->n_limits = f->n;
	return TPH_OK;
}

/* ---- what the limited queues hold ---- */

/* The limit of task t's queue on the group of `node`, or NULL (taskNodeGroup: the node is in
 * the session and carries the label). */
static ng_limit *limit_at(const tph_session *s, const ng_st *st, tph_idx t, tph_idx node)
{
	const tph_view *v = tph_view_of(s);
	tph_idx j = v->tasks->job[t];
	if (j == TPH_NOIDX || node == TPH_NOIDX || !(v->nodes->flags[node] & TPH_NODE_READY))
		return NULL;
	uint32_t row = st->lim_row[v->jobs->queue[j]], g = st->grp[node];
	if (row == NG_NONE || g == st->n_groups)
		return NULL;
	uint32_t i = st->lim_of[(size_t)row * st->stride + g];
	return i == NG_NONE ? NULL : &st->limits[i];
}

/* add/subNodeGroupAllocated with the task's Resreq (what Volcano sees: no pods). */
static void account(const tph_session *s, const ng_st *st, tph_idx t, ng_limit *l, int sign)
{
	const tph_view *v = tph_view_of(s);
	const int64_t *req = v->tasks->req + (size_t)t * v->ndim;
	for (uint32_t d = 0; d < v->ndim; d++)
		if (vr_has(st->v.cmp, d))
			l->used[d] += sign * req[d];
}

static int on_allocate(void *stv, tph_session *s, tph_idx t)
{
	ng_st *st = stv;
	tph_idx node = tph_view_of(s)->tasks->node[t];
	st->ev_node[t] = node;
	ng_limit *l = limit_at(s, st, t, node);
	if (l) {
		account(s, st, t, l, +1);
		l->touched = true;
	}
	return TPH_OK;
}

/* An undone allocation fires after the task lost its node: the node it was counted on. */
static int on_deallocate(void *stv, tph_session *s, tph_idx t)
{
	ng_st *st = stv;
	tph_idx node = tph_view_of(s)->tasks->node[t];
	ng_limit *l = limit_at(s, st, t, node != TPH_NOIDX ? node : st->ev_node[t]);
	if (l && l->touched)
		account(s, st, t, l, -1);
	return TPH_OK;
}

/* initNodeGroupAllocated: the tasks of the session's jobs in an allocated status. */
static int count_open(tph_session *s, ng_st *st)
{
	const tph_task_store *ts = tph_view_of(s)->tasks;
	st->ev_node = TPH_SESSION_NEW(s, tph_idx, ts->n + 1);
	if (!st->ev_node)
		return TPH_ENOMEM;
	for (tph_idx t = 0; t < ts->n; t++) {
		st->ev_node[t] = ts->node[t];
		ng_limit *l =
		    tph_ts_allocated(ts->status[t]) ? limit_at(s, st, t, ts->node[t]) : NULL;
		if (l) {
			account(s, st, t, l, +1);
			l->touched = true;
		}
	}
	return TPH_OK;
}

int ng_limits_open(tph_session *s, ng_st *st)
{
	for (uint32_t d = 0; d < st->v.n; d++)
		if (st->v.kind[d] == VR_MILLIBYTES)
			st->milli |= (tph_dimmask)1 << d;
	found f = {0};
	int rc = read_annotations(s, st, &f);
	if (!rc && f.n)
		rc = tables(s, st, &f);
	tph_free(f.p);
	if (rc || !st->n_limits)
		return rc;
	rc = count_open(s, st);
	if (!rc)
		rc = tph_on_task_events(s, on_allocate, on_deallocate);
	/* A placement changes the verdict on every node of its group. */
	if (!rc)
		rc = tph_declare_predicate_locality(s, TPH_PRED_GLOBAL);
	return rc;
}

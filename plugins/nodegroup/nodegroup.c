/* nodegroup: Volcano's nodegroup plugin (pkg/scheduler/plugins/nodegroup). A queue's node-group
 * affinity and anti-affinity (required and preferred lists of values of the node label
 * volcano.sh/nodegroup-name) decide where its tasks may go and score the nodes; with
 * enableHierarchy a queue without affinity takes its nearest ancestor's. The queue annotation
 * volcano.sh/nodegroup-resource-limits caps what the queue may hold per group
 * (nodegroup_limits.c).
 *
 * Every rule depends only on the node's group and the task's queue, so open computes one row
 * per distinct affinity: the verdict and the score of each group (and of "no label"), and the
 * per-node callbacks read row[queue][group[node]]. */
#include "nodegroup.h"

#include <stdlib.h>
#include <string.h>

#include "tephra/alloc.h"

#define NODEGROUP_KEY "volcano.sh/nodegroup-name"
#define BASE_SCORE    100.0 /* nodegroup.go BaseScore */

static const tph_arg_spec ng_arg_spec[] = {
    {"strict", TPH_ARG_BOOL, "true", 0, 0, offsetof(ng_st, strict),
     "false: a queue without affinity may use nodes without a group label"},
    {"enablePreferredOrder", TPH_ARG_BOOL, "false", 0, 0, offsetof(ng_st, preferred_order),
     "score preferred groups by their list order, earlier higher"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

static int cmp_sid(const void *a, const void *b)
{
	tph_sid x = *(const tph_sid *)a, y = *(const tph_sid *)b;
	return (x > y) - (x < y);
}

uint32_t ng_group_of(const ng_st *st, tph_sid value)
{
	const tph_sid *p = bsearch(&value, st->groups, st->n_groups, sizeof *st->groups, cmp_sid);
	return p ? (uint32_t)(p - st->groups) : NG_NONE;
}

/* ---- node groups ---- */

static int build_groups(tph_session *s, ng_st *st)
{
	const tph_node_store *ns = tph_view_of(s)->nodes;
	tph_sid key = tph_session_sid(s, NODEGROUP_KEY, strlen(NODEGROUP_KEY));
	st->grp = TPH_SESSION_NEW(s, uint32_t, ns->n + 1);
	st->groups = TPH_SESSION_NEW(s, tph_sid, ns->n + 1);
	if (!st->grp || !st->groups)
		return TPH_ENOMEM;
	uint32_t n = 0;
	for (uint32_t i = 0; i < ns->n; i++) {
		tph_sid v =
		    key == TPH_SID_NONE ? TPH_SID_NONE : tph_labels_get(ns->meta[i]->labels, key);
		st->grp[i] = v; /* the value for now; the index below */
		if (v != TPH_SID_NONE)
			st->groups[n++] = v;
	}
	qsort(st->groups, n, sizeof *st->groups, cmp_sid);
	st->n_groups = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!st->n_groups || st->groups[st->n_groups - 1] != st->groups[i])
			st->groups[st->n_groups++] = st->groups[i];
	st->stride = st->n_groups + 1;
	for (uint32_t i = 0; i < ns->n; i++)
		st->grp[i] =
		    st->grp[i] == TPH_SID_NONE ? st->n_groups : ng_group_of(st, st->grp[i]);
	return TPH_OK;
}

/* ---- affinity rows ---- */

enum {
	F_REQ = 1,
	F_PREF = 2,
	F_ANTI_REQ = 4,
	F_ANTI_PREF = 8
};

static void mark(const ng_st *st, uint8_t *flags, const tph_sid *list, uint32_t n, uint8_t f)
{
	for (uint32_t i = 0; i < n; i++) {
		uint32_t g = ng_group_of(st, list[i]);
		if (g != NG_NONE)
			flags[g] |= f;
	}
}

/* len(queueGroupAffinityPreferredIndexes): the distinct preferred groups, listed or not on
 * nodes. */
static uint32_t distinct(const tph_sid *list, uint32_t n, tph_sid *tmp)
{
	if (!n)
		return 0;
	memcpy(tmp, list, n * sizeof *tmp);
	qsort(tmp, n, sizeof *tmp, cmp_sid);
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		k += !i || tmp[i] != tmp[i - 1];
	return k;
}

/* queueGroupAffinity.predicate: in required or preferred; anti-required vetoes, and
 * anti-preferred lets the node back in. */
static bool group_fits(uint8_t f)
{
	bool ok = f & (F_REQ | F_PREF);
	if (f & F_ANTI_REQ)
		ok = false;
	if (f & F_ANTI_PREF)
		ok = true;
	return ok;
}

/* queueGroupAffinity.score: required +100; preferred +50 (or, by list order, 50 (n - i) / n
 * with i the group's last index and n the distinct preferred groups); anti-preferred -1. */
static double group_score(const ng_st *st, uint8_t f, uint32_t last, uint32_t n_pref)
{
	double score = 0.0;
	if (f & F_REQ)
		score += BASE_SCORE;
	if (f & F_PREF)
		score += st->preferred_order
		             ? 0.5 * BASE_SCORE * (double)((int64_t)n_pref - last) / (double)n_pref
		             : 0.5 * BASE_SCORE;
	if (f & F_ANTI_PREF)
		score = -1;
	return score;
}

/* Fill row r from queue q's own affinity; the scratch holds stride flags, stride indexes and
 * the preferred list. */
static void fill_row(ng_st *st, const tph_queue_meta *m, uint32_t r, uint8_t *flags, uint32_t *last,
                     tph_sid *tmp)
{
	memset(flags, 0, st->stride);
	mark(st, flags, m->aff_required, m->n_aff_required, F_REQ);
	mark(st, flags, m->aff_preferred, m->n_aff_preferred, F_PREF);
	mark(st, flags, m->anti_required, m->n_anti_required, F_ANTI_REQ);
	mark(st, flags, m->anti_preferred, m->n_anti_preferred, F_ANTI_PREF);
	for (uint32_t i = 0; i < m->n_aff_preferred; i++) {
		uint32_t g = ng_group_of(st, m->aff_preferred[i]);
		if (g != NG_NONE)
			last[g] = i; /* a map assignment per index: the last one stays */
	}
	uint32_t n_pref = distinct(m->aff_preferred, m->n_aff_preferred, tmp);
	tph_reason_code *v = st->verdict + (size_t)r * st->stride;
	double *sc = st->score + (size_t)r * st->stride;
	for (uint32_t g = 0; g < st->n_groups; g++) {
		v[g] = group_fits(flags[g]) ? TPH_PASS : st->r_unsat;
		sc[g] = group_score(st, flags[g], last[g], n_pref);
	}
	v[st->n_groups] = st->r_nolabel;
	sc[st->n_groups] = 0;
}

static bool has_rules(const tph_queue_meta *m)
{
	return m->n_aff_required || m->n_aff_preferred || m->n_anti_required || m->n_anti_preferred;
}

/* The queue whose affinity q uses: its own when set; under enableHierarchy the nearest
 * ancestor's that is set (updateAffinityFromAncestor); NG_NONE for none. */
static tph_idx owner(const tph_queue_store *qs, tph_idx q, bool hier)
{
	for (uint32_t steps = 0; q != TPH_NOIDX && steps <= qs->n; steps++) {
		if (qs->meta[q] && qs->meta[q]->has_affinity)
			return q;
		if (!hier)
			break;
		q = qs->parent[q];
	}
	return NG_NONE;
}

static int build_rows(tph_session *s, ng_st *st, bool hier)
{
	const tph_queue_store *qs = tph_view_of(s)->queues;
	uint32_t *row_of = tph_calloc(qs->n + 1, sizeof *row_of); /* owner -> its row, 0 none */
	st->row = TPH_SESSION_NEW(s, uint32_t, qs->n + 1);
	if (!row_of || !st->row) {
		tph_free(row_of);
		return TPH_ENOMEM;
	}
	uint32_t rows = 1, max_pref = 0;
	for (tph_idx q = 0; q < qs->n; q++) {
		tph_idx o = owner(qs, q, hier);
		if (o == NG_NONE || !has_rules(qs->meta[o]))
			continue;
		if (!row_of[o])
			row_of[o] = rows++;
		if (qs->meta[o]->n_aff_preferred > max_pref)
			max_pref = qs->meta[o]->n_aff_preferred;
		st->row[q] = row_of[o];
	}
	size_t cells = (size_t)rows * st->stride;
	st->verdict = TPH_SESSION_NEW(s, tph_reason_code, cells);
	st->score = TPH_SESSION_NEW(s, double, cells);
	uint8_t *flags = tph_malloc(st->stride);
	uint32_t *last = tph_malloc(st->stride * sizeof *last);
	tph_sid *tmp = tph_malloc((max_pref + 1) * sizeof *tmp);
	int rc = st->verdict && st->score && flags && last && tmp ? TPH_OK : TPH_ENOMEM;
	if (!rc) {
		for (uint32_t g = 0; g < st->n_groups; g++)
			st->verdict[g] = st->r_notfound;
		st->verdict[st->n_groups] = st->strict ? st->r_nolabel : TPH_PASS;
		for (tph_idx q = 0; q < qs->n; q++)
			if (row_of[q])
				fill_row(st, qs->meta[q], row_of[q], flags, last, tmp);
	}
	tph_free(row_of);
	tph_free(flags);
	tph_free(last);
	tph_free(tmp);
	return rc;
}

/* ---- extension points ---- */

static void fill(tph_reason_code *out, uint32_t n, tph_reason_code code)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = code;
}

/* nodegroup.go predicateFn: the queue's annotation must parse; then the group's verdict in the
 * queue's row; then the queue's limit on the group. */
static void predicate(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, tph_reason_code *out)
{
	const ng_st *st = stv;
	const tph_view *v = tph_view_of(s);
	tph_idx j = v->tasks->job[task];
	if (j == TPH_NOIDX) {
		fill(out, n, st->r_nojob);
		return;
	}
	tph_idx q = v->jobs->queue[j];
	if (st->bad && st->bad[q]) {
		fill(out, n, st->r_invalid);
		return;
	}
	const tph_reason_code *vr = st->verdict + (size_t)st->row[q] * st->stride;
	const uint32_t *lim = st->lim_row && st->lim_row[q] != NG_NONE
	                          ? st->lim_of + (size_t)st->lim_row[q] * st->stride
	                          : NULL;
	const int64_t *req = v->tasks->req + (size_t)task * v->ndim;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t g = st->grp[nodes[i]];
		tph_reason_code c = vr[g];
		if (c == TPH_PASS && lim && lim[g] != NG_NONE &&
		    ng_over(st, &st->limits[lim[g]], req, v->ndim))
			c = st->r_exceeded;
		out[i] = c;
	}
}

/* nodegroup.go nodeOrderFn: the group's score in the queue's row; 0 without a label. */
static void score(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                  double *out)
{
	const ng_st *st = stv;
	const tph_view *v = tph_view_of(s);
	tph_idx j = v->tasks->job[task];
	const double *sc =
	    st->score + (size_t)(j == TPH_NOIDX ? 0 : st->row[v->jobs->queue[j]]) * st->stride;
	for (uint32_t i = 0; i < n; i++)
		out[i] = sc[st->grp[nodes[i]]];
}

/* The score reads the node's group and the task's queue: node-local, per job. */
static int locality(void *st, const tph_session *s, tph_idx task)
{
	(void)st, (void)s, (void)task;
	return TPH_SCORE_LOCAL | TPH_SCORE_JOB;
}

static int ng_reasons(tph_session *s, ng_st *st)
{
	/* errors.go; every one is UnschedulableAndUnresolvable (newFitErr) but the missing job's,
	 * a plain error. */
	st->r_nojob = tph_reason(s, "job not found in session", false);
	st->r_nolabel = tph_reason(s, "node group label not found", true);
	st->r_notfound = tph_reason(s, "node group affinity not specified", true);
	st->r_unsat = tph_reason(s, "node does not satisfy the node group affinity", true);
	st->r_invalid = tph_reason(s, "node group resource limit annotation invalid", true);
	st->r_exceeded = tph_reason(s, "node group resource limit exceeded", true);
	tph_reason_code all[] = {st->r_nojob, st->r_nolabel, st->r_notfound,
	                         st->r_unsat, st->r_invalid, st->r_exceeded};
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		if (all[i] == TPH_REASON_INVALID)
			return TPH_ENOMEM;
	return TPH_OK;
}

static int ng_open(tph_session *s, void *stv, const tph_args *args)
{
	ng_st *st = stv;
	(void)args;
	vr_dims_init(&st->v, s);
	int rc = ng_reasons(s, st);
	if (!rc)
		rc = build_groups(s, st);
	if (!rc)
		rc = build_rows(s, st, tph_plugin_flag(s, TPH_FLAG_HIERARCHY) > 0);
	if (!rc) /* by the task's queue (its job) and the node's group; limits may widen it */
		rc = tph_declare_predicate_locality(s, TPH_PRED_LOCAL);
	if (!rc && tph_plugin_flag(s, TPH_FLAG_PREDICATE) > 0)
		rc = ng_limits_open(s, st);
	if (!rc)
		rc = tph_on_predicate(s, predicate);
	if (!rc)
		rc = tph_on_node_order(s, score);
	if (!rc)
		rc = tph_on_score_locality(s, locality, NULL);
	return rc;
}

const tph_plugin tph_plugin_nodegroup = {
    .abi = TPH_PLUGIN_ABI,
    .name = "nodegroup",
    .args = ng_arg_spec,
    .state_size = sizeof(ng_st),
    .on_session_open = ng_open,
};

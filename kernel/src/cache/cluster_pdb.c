/* PodDisruptionBudgets in the cluster cache: validated as the API server validates them
 * (ValidatePodDisruptionBudgetSpec/Status), their cold part (selector, disrupted pods, the
 * minAvailable/maxUnavailable pair) interned as a blob like the other kinds' metas, then put by
 * namespace/name. The pdb plugin reads them through the snapshot's tph_pdb_store. */
#include "cache/cluster_int.h"

#include <stdio.h>

/* metav1.LabelSelectorAsSelector's rules: the four label operators, values for In and NotIn
 * only. Gt and Lt are node selector operators; the API server refuses them in a PDB. */
static void w_label_selector(tph_wr *w, const tph_label_selector *s)
{
	const char *f = "selector";
	const tph_sel_term *t = &s->match_exprs;
	for (uint32_t i = 0; i < t->n && t->exprs; i++) {
		const tph_sel_expr *e = &t->exprs[i];
		const char *key = e->key ? e->key : "";
		bool in = e->op == TPH_SEL_IN || e->op == TPH_SEL_NOT_IN;
		if ((unsigned)e->op > TPH_SEL_DOES_NOT_EXIST)
			return tph_w_fail(w, f,
			                  "key %s: operator %d is not a label selector operator",
			                  key, (int)e->op);
		if (in && e->values.n == 0)
			return tph_w_fail(w, f, "key %s: In and NotIn need at least one value",
			                  key);
		if (!in && e->values.n > 0)
			return tph_w_fail(w, f, "key %s: Exists and DoesNotExist take no values",
			                  key);
	}
	tph_w_selector(w, s, f);
}

/* Disrupted pods as records of 3 words (name id, time), sorted by name id. */
static void w_disrupted(tph_wr *w, const tph_pdb_desc *p)
{
	const char *f = "disruptedPods";
	if (p->n_disrupted_pods && !p->disrupted_pods)
		return tph_w_fail(w, f, "no items");
	tph_w_u32(w, p->n_disrupted_pods);
	uint32_t start = w->c->nwords;
	for (uint32_t i = 0; i < p->n_disrupted_pods; i++) {
		const tph_disrupted_pod *x = &p->disrupted_pods[i];
		if (tph_empty(x->pod))
			return tph_w_fail(w, f, "item %u: empty pod name", i);
		tph_w_str(w, x->pod);
		tph_w_i64(w, x->time);
	}
	tph_w_sort_unique(w, start, p->n_disrupted_pods, 3, f, "pod");
}

/* intstr.IntOrString as ValidatePodDisruptionBudgetSpec accepts it: >= 0, a percentage <= 100. */
static void w_int_or_percent(tph_wr *w, const tph_int_or_percent *x, const char *field)
{
	if (x->present && x->value < 0)
		return tph_w_fail(w, field, "%d%s is negative", (int)x->value,
		                  x->percent ? "%" : "");
	if (x->present && x->percent && x->value > 100)
		return tph_w_fail(w, field, "%d%% is above 100%%", (int)x->value);
	tph_w_u32(w, x->present);
	tph_w_u32(w, x->present && x->percent);
	tph_w_u32(w, x->present ? (uint32_t)x->value : 0);
}

static tph_int_or_percent r_int_or_percent(tph_rd *r)
{
	tph_int_or_percent x;
	x.present = tph_r_u32(r) != 0;
	x.percent = tph_r_u32(r) != 0;
	x.value = (int32_t)tph_r_u32(r);
	return x;
}

static void *build_pdb_meta(tph_rd *r)
{
	tph_pdb_meta *m = tph_r_new(r, 1, sizeof *m), scratch;
	tph_pdb_meta *t = m ? m : &scratch; /* keep reading in step; the result is dropped */
	t->selector = tph_r_selector(r);
	t->n_disrupted = tph_r_u32(r);
	tph_disrupted_row *d = tph_r_new(r, t->n_disrupted, sizeof *d), ds;
	for (uint32_t i = 0; i < t->n_disrupted; i++) {
		tph_disrupted_row *x = d ? &d[i] : &ds;
		x->pod = tph_r_u32(r);
		x->time = tph_r_i64(r);
	}
	t->disrupted = d;
	t->min_available = r_int_or_percent(r);
	t->max_unavailable = r_int_or_percent(r);
	return m;
}

static int intern_pdb_meta(tph_cluster *c, const tph_pdb_desc *p, const char *obj,
                           const tph_pdb_meta **out, tph_diag *d)
{
	tph_wr w;
	tph_w_begin(&w, c, TPH_B_PDB_META, obj, d);
	if (p->min_available.present && p->max_unavailable.present)
		tph_w_fail(&w, "maxUnavailable",
		           "minAvailable and maxUnavailable are mutually "
		           "exclusive");
	w_label_selector(&w, &p->selector);
	w_disrupted(&w, p);
	w_int_or_percent(&w, &p->min_available, "minAvailable");
	w_int_or_percent(&w, &p->max_unavailable, "maxUnavailable");
	return tph_w_finish(&w, build_pdb_meta, (const void **)out, NULL);
}

int tph_cluster_put_pdb(tph_cluster *c, const tph_pdb_desc *p, tph_diag *d)
{
	int rc0 = TPH_CL_PUT_BEGIN(c, p, tph_pdb_desc, TPH_PDB_DESC_INIT, d);
	if (rc0)
		return rc0;
	if (tph_empty(p->name) || tph_empty(p->namespace_))
		return tph_diag_set(d, TPH_EINVAL,
		                    "pod disruption budget: empty name or namespace");
	char obj[512];
	snprintf(obj, sizeof obj, "pod disruption budget %s/%s", p->namespace_, p->name);
	if (p->disruptions_allowed < 0)
		return tph_diag_set(d, TPH_EINVAL, "%s: disruptionsAllowed: negative", obj);
	int err = TPH_OK, rc;
	tph_sid key = tph_cl_intern2(c, p->namespace_, '/', p->name, &err);
	tph_sid name = tph_cl_intern(c, p->name, &err);
	tph_sid ns = tph_cl_intern(c, p->namespace_, &err);
	if (err)
		return tph_cl_oom(d, obj);
	const tph_pdb_meta *meta;
	uint32_t s;
	bool fresh;
	if ((rc = intern_pdb_meta(c, p, obj, &meta, d)) ||
	    (rc = tph_cl_reserve(c, &c->pdbs, key, NULL, &s, &fresh, d, obj)))
		return rc;
	tph_kind *k = &c->pdbs;
	KCOL(k, D_NAME, tph_sid)[s] = name;
	KCOL(k, D_NS, tph_sid)[s] = ns;
	KCOL(k, D_ALLOWED, int32_t)[s] = p->disruptions_allowed;
	KCOL(k, D_META, const tph_pdb_meta *)[s] = meta;
	tph_kind_commit(k, key, s, fresh);
	return TPH_OK;
}

/* Kubernetes matching rules over interned ids (see k8s_match.h): apimachinery's
 * labels.Requirement.Matches, nodeaffinity's RequiredNodeAffinity and v1helper's tolerations. */
#include "tephra/k8s.h"

#include "tephra/alloc.h"
#include "tephra/status.h"

#include <stdlib.h>

static bool in_values(const tph_expr_row *e, tph_sid v)
{
	for (uint32_t i = 0; i < e->n_values; i++)
		if (e->values[i] == v)
			return true;
	return false;
}

bool tph_k8s_expr_match(const tph_expr_row *e, tph_labels l)
{
	tph_sid v = tph_labels_get(l, e->key);
	switch (e->op) {
	case TPH_SEL_IN:
		return v != TPH_SID_NONE && in_values(e, v);
	case TPH_SEL_NOT_IN:
		return v == TPH_SID_NONE || !in_values(e, v);
	case TPH_SEL_EXISTS:
		return v != TPH_SID_NONE;
	case TPH_SEL_DOES_NOT_EXIST:
		return v == TPH_SID_NONE;
	default:
		return false;
	}
}

bool tph_k8s_labels_subset(tph_labels want, tph_labels l)
{
	for (uint32_t i = 0; i < want.n; i++)
		if (tph_labels_get(l, want.items[i].key) != want.items[i].value)
			return false;
	return true;
}

bool tph_k8s_selector_match(const tph_selector_row *sel, tph_labels l)
{
	if (!sel->present || !tph_k8s_labels_subset(sel->match_labels, l))
		return false;
	for (uint32_t i = 0; i < sel->match_exprs.n; i++)
		if (!tph_k8s_expr_match(&sel->match_exprs.exprs[i], l))
			return false;
	return true;
}

/* labels.Requirement Gt/Lt: the label exists and parses as an integer that compares. */
static bool node_number(const tph_expr_row *e, const tph_k8s_nums *nums, uint32_t node)
{
	for (uint32_t k = 0; nums && k < nums->n_keys; k++) {
		if (nums->keys[k] != e->key)
			continue;
		size_t at = (size_t)k * nums->n_nodes + node;
		if (!nums->ok[at] || !e->numbers)
			return false;
		return e->op == TPH_SEL_GT ? nums->val[at] > e->numbers[0]
		                           : nums->val[at] < e->numbers[0];
	}
	return false;
}

bool tph_k8s_node_expr(const tph_expr_row *e, tph_labels l, const tph_k8s_nums *nums, uint32_t node)
{
	if (e->op == TPH_SEL_GT || e->op == TPH_SEL_LT)
		return node_number(e, nums, node);
	return tph_k8s_expr_match(e, l);
}

bool tph_k8s_node_term(const tph_term_row *t, tph_labels l, const tph_k8s_nums *nums, uint32_t node)
{
	if (!t->n)
		return false;
	for (uint32_t i = 0; i < t->n; i++)
		if (!tph_k8s_node_expr(&t->exprs[i], l, nums, node))
			return false;
	return true;
}

bool tph_k8s_node_affinity(const tph_pod_spec *sp, const tph_node_meta *m, const tph_k8s_nums *nums,
                           uint32_t node)
{
	if (!tph_k8s_labels_subset(sp->node_selector, m->labels))
		return false;
	if (!sp->n_node_required)
		return true;
	for (uint32_t i = 0; i < sp->n_node_required; i++)
		if (tph_k8s_node_term(&sp->node_required[i], m->labels, nums, node))
			return true;
	return false;
}

bool tph_k8s_tolerates(const tph_tol_row *t, const tph_taint_row *taint)
{
	if (t->effect >= 0 && (uint8_t)t->effect != taint->effect)
		return false;
	if (t->key != TPH_SID_EMPTY && t->key != taint->key)
		return false;
	return t->op == TPH_TOL_EXISTS || t->value == taint->value;
}

bool tph_k8s_tolerated(const tph_tol_row *tols, uint32_t n, const tph_taint_row *taint)
{
	for (uint32_t i = 0; i < n; i++)
		if (tph_k8s_tolerates(&tols[i], taint))
			return true;
	return false;
}

bool tph_k8s_term_matches(const tph_podaff_row *term, tph_sid owner_ns, tph_sid pod_ns,
                          tph_labels pod_labels)
{
	bool ns_ok = false;
	if (!term->n_namespaces)
		ns_ok = pod_ns == owner_ns;
	for (uint32_t i = 0; i < term->n_namespaces && !ns_ok; i++)
		ns_ok = term->namespaces[i] == pod_ns;
	return ns_ok && tph_k8s_selector_match(&term->selector, pod_labels);
}

typedef struct value_node {
	tph_sid value;
	uint32_t node;
} value_node;

static int by_value_node(const void *a, const void *b)
{
	const value_node *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

int tph_k8s_domains(const tph_node_meta *const *meta, uint32_t n, tph_sid key, uint32_t *dom,
                    uint32_t *n_dom)
{
	value_node *tmp = tph_malloc(((size_t)n + 1) * sizeof *tmp);
	if (!tmp)
		return TPH_ENOMEM;
	uint32_t m = 0, ids = 0;
	for (uint32_t i = 0; i < n; i++) {
		dom[i] = TPH_NOIDX;
		tph_sid v = tph_labels_get(meta[i]->labels, key);
		if (v != TPH_SID_NONE)
			tmp[m++] = (value_node){v, i};
	}
	qsort(tmp, m, sizeof *tmp, by_value_node);
	for (uint32_t i = 0; i < m; i++) {
		if (i && tmp[i].value != tmp[i - 1].value)
			ids++;
		dom[tmp[i].node] = ids;
	}
	*n_dom = m ? ids + 1 : 0;
	tph_free(tmp);
	return TPH_OK;
}

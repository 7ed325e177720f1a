/* Kubernetes matching rules over tephra's interned rows, shared by predicates and nodeorder:
 * label selectors, node selector terms, tolerations and pod (anti-)affinity terms, as
 * apimachinery's labels package and kube-scheduler's helpers decide them. Pure functions over
 * ids: no strings, no allocation, safe from any thread. */
#ifndef TEPHRA_K8S_H
#define TEPHRA_K8S_H

#include <stdbool.h>
#include <stdint.h>

#include "tephra/columns.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

/* Integer values of node labels for the keys Gt/Lt expressions use, parsed once per session so
 * that node terms never parse strings per node. Built by tph_k8s_nums_build (k8s_view.c). */
typedef struct tph_k8s_nums {
	uint32_t n_keys;
	tph_sid *keys;
	int64_t *val; /* [k * n_nodes + node] */
	uint8_t *ok;  /* [k * n_nodes + node]: the label exists and parses as an int64 */
	uint32_t n_nodes;
} tph_k8s_nums;

/* One matchExpressions requirement against a label set (In, NotIn, Exists, DoesNotExist; Gt and
 * Lt never match here: labels.Selector's Gt/Lt need a parsed value, see tph_k8s_node_expr). */
bool tph_k8s_expr_match(const tph_expr_row *e, tph_labels l);
/* A LabelSelector: nil (present == false) matches nothing, empty matches everything. */
bool tph_k8s_selector_match(const tph_selector_row *sel, tph_labels l);
/* Every key of `want` is in `l` with the same value (a nodeSelector). */
bool tph_k8s_labels_subset(tph_labels want, tph_labels l);

/* One node selector requirement against node `node` (Gt/Lt through `nums`). */
bool tph_k8s_node_expr(const tph_expr_row *e, tph_labels l, const tph_k8s_nums *nums,
                       uint32_t node);
/* A node selector term: an empty term matches nothing; otherwise every requirement holds. */
bool tph_k8s_node_term(const tph_term_row *t, tph_labels l, const tph_k8s_nums *nums,
                       uint32_t node);
/* GetRequiredNodeAffinity(pod).Match(node): the nodeSelector and, when there are required
 * terms, one of them. */
bool tph_k8s_node_affinity(const tph_pod_spec *sp, const tph_node_meta *m, const tph_k8s_nums *nums,
                           uint32_t node);

/* v1 Toleration.ToleratesTaint / TolerationsTolerateTaint. */
bool tph_k8s_tolerates(const tph_tol_row *t, const tph_taint_row *taint);
bool tph_k8s_tolerated(const tph_tol_row *tols, uint32_t n, const tph_taint_row *taint);

/* AffinityTerm.Matches: the pod's namespace is among the term's (the owner's own namespace
 * when the term lists none) and its labels match the selector. */
bool tph_k8s_term_matches(const tph_podaff_row *term, tph_sid owner_ns, tph_sid pod_ns,
                          tph_labels pod_labels);

/* Topology domains of label `key` over n nodes: dom[i] is the dense id of node i's value (ids in
 * value-id order), TPH_NOIDX when the node lacks the label; *n_dom gets how many ids. Returns
 * TPH_OK or TPH_ENOMEM (it takes n entries of scratch). */
int tph_k8s_domains(const tph_node_meta *const *meta, uint32_t n, tph_sid key, uint32_t *dom,
                    uint32_t *n_dom);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif

/* Scenario section for pods, with the Kubernetes shapes they carry: label and node selectors,
 * affinity, tolerations, topology spread constraints and status conditions (containers' fields:
 * scenario_containers.c). */
#include "scenario_ld.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(tph_pod_phase) == sizeof(int), "enum fields are written as int");
_Static_assert(sizeof(tph_sel_op) == sizeof(int), "enum fields are written as int");
_Static_assert(sizeof(tph_toleration_op) == sizeof(int), "enum fields are written as int");
_Static_assert(sizeof(tph_cond_status) == sizeof(int), "enum fields are written as int");
_Static_assert(sizeof(tph_pod_preemptable) == sizeof(int), "enum fields are written as int");

static const char *const pod_phases[] = {"Pending", "Running", "Succeeded",
                                         "Failed",  "Unknown", NULL};
static const char *const sel_ops[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", NULL};

/* ---- selectors
 * ----------------------------------------------------------------------------------- */

static const yu_field expr_fields[] = {
    YU_F("key", sc_f_key, tph_sel_expr, key, NULL, YU_REQUIRED),
    YU_F("operator", yu_f_enum, tph_sel_expr, op, sel_ops, YU_REQUIRED),
    YU_F("values", yu_f_strs, tph_sel_expr, values, NULL, 0),
};

static bool is_int64(const char *s)
{
	char *end;
	errno = 0;
	(void)strtoll(s, &end, 10);
	return *s && *end == '\0' && errno == 0 && s[strspn(s, "+-0123456789")] == '\0';
}

static int check_expr(yu_ctx *c, const yu_node *item, const tph_sel_expr *e, bool node_ops)
{
	const char *op = sel_ops[e->op];
	const char *why = NULL;
	if (!node_ops && (e->op == TPH_SEL_GT || e->op == TPH_SEL_LT))
		why = "is not a label selector operator (use In, NotIn, Exists, DoesNotExist)";
	else if ((e->op == TPH_SEL_IN || e->op == TPH_SEL_NOT_IN) && e->values.n == 0)
		why = "needs at least one value";
	else if ((e->op == TPH_SEL_EXISTS || e->op == TPH_SEL_DOES_NOT_EXIST) && e->values.n > 0)
		why = "takes no values";
	else if ((e->op == TPH_SEL_GT || e->op == TPH_SEL_LT) &&
	         (e->values.n != 1 || !is_int64(e->values.items[0])))
		why = "needs exactly one integer value";
	if (!why)
		return TPH_OK;
	yu_push(c, "operator");
	int rc = yu_err(c, item, TPH_EINVAL, "%s %s", op, why);
	yu_pop(c);
	return rc;
}

static int read_expr(yu_ctx *c, yu_node *item, tph_sel_expr *e, bool node_ops)
{
	int rc = yu_walk(c, item, expr_fields, sizeof expr_fields / sizeof expr_fields[0], e);
	return rc < 0 ? rc : check_expr(c, item, e, node_ops);
}

static int read_node_expr(yu_ctx *c, yu_node *item, void *dst)
{
	return read_expr(c, item, dst, true);
}

static int read_label_expr(yu_ctx *c, yu_node *item, void *dst)
{
	return read_expr(c, item, dst, false);
}

static int read_exprs(yu_ctx *c, yu_node *v, tph_sel_term *t, bool node_ops)
{
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_sel_expr), &items, &t->n,
	                node_ops ? read_node_expr : read_label_expr);
	t->exprs = items;
	return rc;
}

static int f_node_exprs(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return read_exprs(c, v, dst, true);
}

static int f_label_exprs(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return read_exprs(c, v, dst, false);
}

static const yu_field term_fields[] = {
    {"matchExpressions", f_node_exprs, 0, NULL, 0},
    {"matchFields", sc_f_unsupported, 0, NULL, 0},
};

static int f_term(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_walk(c, v, term_fields, sizeof term_fields / sizeof term_fields[0], dst);
}

static int read_term(yu_ctx *c, yu_node *item, void *dst)
{
	return f_term(c, item, dst, NULL);
}

static const yu_field selector_fields[] = {
    YU_F("matchLabels", yu_f_kv, tph_label_selector, match_labels, NULL, 0),
    YU_F("matchExpressions", f_label_exprs, tph_label_selector, match_exprs, NULL, 0),
};

int sc_f_label_selector(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_label_selector *s = dst;
	s->present = true;
	return yu_walk(c, v, selector_fields, sizeof selector_fields / sizeof selector_fields[0],
	               s);
}

/* ---- node affinity ----------------------------------------------------------------------------
 */

static int f_weight(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_i32(c, v, 1, 100, (int32_t *)dst);
}

static int f_node_terms(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_affinity *a = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_sel_term), &items, &a->n_node_required, read_term);
	a->node_required = items;
	return rc;
}

static const yu_field node_required_fields[] = {
    {"nodeSelectorTerms", f_node_terms, 0, NULL, YU_REQUIRED},
};

static const yu_field pref_term_fields[] = {
    YU_F("weight", f_weight, tph_pref_term, weight, NULL, YU_REQUIRED),
    YU_F("preference", f_term, tph_pref_term, term, NULL, YU_REQUIRED),
};

static int read_pref_term(yu_ctx *c, yu_node *item, void *dst)
{
	return yu_walk(c, item, pref_term_fields, 2, dst);
}

static int f_node_required(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_walk(c, v, node_required_fields, 1, dst);
}

static int f_node_preferred(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_affinity *a = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_pref_term), &items, &a->n_node_preferred, read_pref_term);
	a->node_preferred = items;
	return rc;
}

static const yu_field node_aff_fields[] = {
    {"requiredDuringSchedulingIgnoredDuringExecution", f_node_required, 0, NULL, 0},
    {"preferredDuringSchedulingIgnoredDuringExecution", f_node_preferred, 0, NULL, 0},
};

static int f_node_affinity(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_walk(c, v, node_aff_fields, 2, dst);
}

/* ---- pod affinity ------------------------------------------------------------------------------
 */

static const yu_field pod_term_fields[] = {
    YU_F("labelSelector", sc_f_label_selector, tph_pod_affinity_term, selector, NULL, 0),
    YU_F("namespaces", yu_f_strs, tph_pod_affinity_term, namespaces, NULL, 0),
    YU_F("topologyKey", sc_f_key, tph_pod_affinity_term, topology_key, NULL, YU_REQUIRED),
    {"namespaceSelector", sc_f_unsupported, 0, NULL, 0},
    {"matchLabelKeys", sc_f_unsupported, 0, NULL, 0},
    {"mismatchLabelKeys", sc_f_unsupported, 0, NULL, 0},
};

static int f_pod_term(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_walk(c, v, pod_term_fields, sizeof pod_term_fields / sizeof pod_term_fields[0],
	               dst);
}

static int read_pod_term(yu_ctx *c, yu_node *item, void *dst)
{
	return f_pod_term(c, item, dst, NULL);
}

static const yu_field weighted_term_fields[] = {
    YU_F("weight", f_weight, tph_pod_affinity_term, weight, NULL, YU_REQUIRED),
    {"podAffinityTerm", f_pod_term, 0, NULL, YU_REQUIRED},
};

static int read_weighted_term(yu_ctx *c, yu_node *item, void *dst)
{
	return yu_walk(c, item, weighted_term_fields, 2, dst);
}

typedef struct pod_aff {
	void *req;
	uint32_t n_req;
	void *pref;
	uint32_t n_pref;
} pod_aff;

static int f_pod_req(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	pod_aff *p = dst;
	return sc_seq(c, v, sizeof(tph_pod_affinity_term), &p->req, &p->n_req, read_pod_term);
}

static int f_pod_pref(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	pod_aff *p = dst;
	return sc_seq(c, v, sizeof(tph_pod_affinity_term), &p->pref, &p->n_pref,
	              read_weighted_term);
}

static const yu_field pod_aff_fields[] = {
    {"requiredDuringSchedulingIgnoredDuringExecution", f_pod_req, 0, NULL, 0},
    {"preferredDuringSchedulingIgnoredDuringExecution", f_pod_pref, 0, NULL, 0},
};

static int f_pod_affinity(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_affinity *a = dst;
	pod_aff p = {0};
	int rc = yu_walk(c, v, pod_aff_fields, 2, &p);
	a->pod_required = p.req, a->n_pod_required = p.n_req;
	a->pod_preferred = p.pref, a->n_pod_preferred = p.n_pref;
	return rc;
}

static int f_pod_anti_affinity(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_affinity *a = dst;
	pod_aff p = {0};
	int rc = yu_walk(c, v, pod_aff_fields, 2, &p);
	a->anti_required = p.req, a->n_anti_required = p.n_req;
	a->anti_preferred = p.pref, a->n_anti_preferred = p.n_pref;
	return rc;
}

static const yu_field affinity_fields[] = {
    {"nodeAffinity", f_node_affinity, 0, NULL, 0},
    {"podAffinity", f_pod_affinity, 0, NULL, 0},
    {"podAntiAffinity", f_pod_anti_affinity, 0, NULL, 0},
};

int sc_f_affinity(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_pod_desc *p = dst;
	tph_affinity *a = yu_alloc_array(c->arena, 1, sizeof *a);
	if (!a)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	p->affinity = a;
	return yu_walk(c, v, affinity_fields, sizeof affinity_fields / sizeof affinity_fields[0],
	               a);
}

/* ---- tolerations and spread ---------------------------------------------------------------------
 */

static const char *const tol_ops[] = {"Equal", "Exists", NULL};
static const char *const tol_effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute", NULL};

/* effect: "" (or absent) tolerates every effect (-1). */
static int f_tol_effect(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	if (v->type == YU_SCALAR && v->len == 0)
		return *(int *)dst = -1, TPH_OK;
	return yu_enum(c, v, tol_effects, (int *)dst);
}

static int f_ignore_int(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	int64_t ignored;
	return yu_int(c, v, INT64_MIN, INT64_MAX, &ignored);
}

static const yu_field tol_fields[] = {
    YU_F("key", yu_f_str, tph_toleration, key, NULL, 0),
    YU_F("operator", yu_f_enum, tph_toleration, op, tol_ops, 0),
    YU_F("value", yu_f_str, tph_toleration, value, NULL, 0),
    YU_F("effect", f_tol_effect, tph_toleration, effect, NULL, 0),
    {"tolerationSeconds", f_ignore_int, 0, NULL, 0},
};

static int read_toleration(yu_ctx *c, yu_node *item, void *dst)
{
	tph_toleration *t = dst;
	*t = (tph_toleration){"", TPH_TOL_EQUAL, "", -1};
	int rc = yu_walk(c, item, tol_fields, sizeof tol_fields / sizeof tol_fields[0], t);
	if (rc == TPH_OK && t->op == TPH_TOL_EXISTS && t->value[0])
		rc = yu_err(c, item, TPH_EINVAL, "value must be empty when operator is Exists");
	if (rc == TPH_OK && t->op == TPH_TOL_EQUAL && !t->key[0])
		rc = yu_err(c, item, TPH_EINVAL, "operator must be Exists when key is empty");
	return rc;
}

int sc_f_tolerations(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_pod_desc *p = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_toleration), &items, &p->n_tolerations, read_toleration);
	p->tolerations = items;
	return rc;
}

static int f_when_unsatisfiable(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	static const char *const whens[] = {"DoNotSchedule", "ScheduleAnyway", NULL};
	int w;
	int rc = yu_enum(c, v, whens, &w);
	if (rc == TPH_OK)
		*(bool *)dst = w == 0;
	return rc;
}

static const yu_field spread_fields[] = {
    YU_F("maxSkew", yu_f_i32_pos, tph_spread_constraint, max_skew, NULL, YU_REQUIRED),
    YU_F("topologyKey", sc_f_key, tph_spread_constraint, topology_key, NULL, YU_REQUIRED),
    YU_F("whenUnsatisfiable", f_when_unsatisfiable, tph_spread_constraint, do_not_schedule, NULL,
         YU_REQUIRED),
    YU_F("labelSelector", sc_f_label_selector, tph_spread_constraint, selector, NULL, 0),
    YU_F("minDomains", yu_f_i32_pos, tph_spread_constraint, min_domains, NULL, 0),
    {"matchLabelKeys", sc_f_unsupported, 0, NULL, 0},
    {"nodeAffinityPolicy", sc_f_unsupported, 0, NULL, 0},
    {"nodeTaintsPolicy", sc_f_unsupported, 0, NULL, 0},
};

static int read_spread(yu_ctx *c, yu_node *item, void *dst)
{
	tph_spread_constraint *s = dst;
	int rc = yu_walk(c, item, spread_fields, sizeof spread_fields / sizeof spread_fields[0], s);
	if (rc == TPH_OK && s->min_domains > 0 && !s->do_not_schedule)
		rc = yu_err(c, item, TPH_EINVAL,
		            "minDomains is only valid with whenUnsatisfiable: DoNotSchedule");
	return rc;
}

static int f_spread(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_pod_desc *p = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_spread_constraint), &items, &p->n_spread, read_spread);
	p->spread = items;
	return rc;
}

/* ---- conditions
 * ---------------------------------------------------------------------------------- */

static const char *const cond_statuses[] = {"True", "False", "Unknown", NULL};

static int f_cond_time(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	int rc = yu_time(c, v, (tph_time *)dst);
	sc_zero_time((tph_time *)dst);
	return rc;
}

static const yu_field cond_fields[] = {
    YU_F("type", sc_f_key, tph_pod_condition, type, NULL, YU_REQUIRED),
    YU_F("status", yu_f_enum, tph_pod_condition, status, cond_statuses, YU_REQUIRED),
    YU_F("lastTransitionTime", f_cond_time, tph_pod_condition, last_transition, NULL, 0),
    YU_F("lastProbeTime", f_cond_time, tph_pod_condition, last_probe, NULL, 0),
    YU_F("reason", yu_f_str, tph_pod_condition, reason, NULL, 0),
    YU_F("message", yu_f_str, tph_pod_condition, message, NULL, 0),
};

static int read_condition(yu_ctx *c, yu_node *item, void *dst)
{
	tph_pod_condition *x = dst;
	x->reason = x->message = "";
	return yu_walk(c, item, cond_fields, sizeof cond_fields / sizeof cond_fields[0], x);
}

/* Conditions are keyed by type (a list map in the API): a type given twice is an error. */
static int f_conditions(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_pod_desc *p = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_pod_condition), &items, &p->n_conditions, read_condition);
	p->conditions = items;
	uint32_t at = UINT32_MAX;
	if (rc == TPH_OK && sc_find_repeat(items, p->n_conditions, sizeof(tph_pod_condition),
	                                   offsetof(tph_pod_condition, type), &at) < 0)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	if (at != UINT32_MAX) {
		yu_push_idx(c, (int32_t)at);
		yu_push(c, "type");
		rc = yu_err(c, yu_map_find(c, yu_at(c, v->u.items[at]), "type"), TPH_EINVAL,
		            "condition type %s is listed twice", p->conditions[at].type);
		c->depth -= 2;
	}
	return rc;
}

/* ---- pods
 * ---------------------------------------------------------------------------------------- */

/* A string where "" means absent (NULL). */
static int f_opt_str(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	if (v->type == YU_SCALAR && v->len == 0)
		return *(const char **)dst = NULL, TPH_OK;
	return yu_str(c, v, (const char **)dst);
}

/* A name where "" means absent (NULL). */
static int f_opt_name(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	if (v->type == YU_SCALAR && v->len == 0)
		return *(const char **)dst = NULL, TPH_OK;
	return yu_name(c, v, (const char **)dst);
}

static int f_priority(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_pod_desc *p = dst;
	p->has_priority = true;
	return yu_i32(c, v, INT32_MIN, INT32_MAX, &p->priority);
}

static const yu_field pod_fields[] = {
    YU_F("name", yu_f_name, tph_pod_desc, name, NULL, YU_REQUIRED),
    YU_F("namespace", yu_f_name, tph_pod_desc, namespace_, NULL, 0),
    YU_F("podGroup", f_opt_name, tph_pod_desc, pod_group, NULL, 0),
    YU_F("phase", yu_f_enum, tph_pod_desc, phase, pod_phases, 0),
    YU_F("nodeName", f_opt_name, tph_pod_desc, node_name, NULL, 0),
    YU_F("requests", yu_f_res, tph_pod_desc, requests, NULL, 0),
    YU_F("limits", yu_f_res, tph_pod_desc, limits, NULL, 0),
    YU_F("taskSpec", f_opt_str, tph_pod_desc, task_spec, NULL, 0),
    YU_F("labels", yu_f_kv, tph_pod_desc, labels, NULL, 0),
    YU_F("annotations", yu_f_kv, tph_pod_desc, annotations, NULL, 0),
    YU_F("nodeSelector", yu_f_kv, tph_pod_desc, node_selector, NULL, 0),
    {"tolerations", sc_f_tolerations, 0, NULL, 0},
    {"affinity", sc_f_affinity, 0, NULL, 0},
    {"topologySpreadConstraints", f_spread, 0, NULL, 0},
    YU_F("priorityClassName", sc_f_key, tph_pod_desc, priority_class, NULL, 0),
    {"priority", f_priority, 0, NULL, 0},
    YU_F("preemptionPolicy", sc_f_preempt_never, tph_pod_desc, preempt_never, NULL, 0),
    YU_F("preemptable", yu_f_tristate, tph_pod_desc, preemptable, NULL, 0),
    YU_F("nominatedNodeName", f_opt_name, tph_pod_desc, nominated_node, NULL, 0),
    YU_F("deleting", yu_f_bool, tph_pod_desc, deleting, NULL, 0),
    YU_F("creationTimestamp", yu_f_time, tph_pod_desc, creation, NULL, 0),
    YU_F("uid", sc_f_key, tph_pod_desc, uid, NULL, 0),
    {"conditions", f_conditions, 0, NULL, 0},
    {"initContainers", sc_f_init_containers, 0, NULL, 0},
    YU_F("overhead", yu_f_res, tph_pod_desc, overhead, NULL, 0),
    YU_F("images", sc_f_images, tph_pod_desc, images, NULL, 0),
    SC_KAI_ONLY("status"),
    SC_KAI_ONLY("gpuGroups"),
    {"hostPorts", sc_f_host_ports, 0, NULL, 0},
    YU_F("schedulerName", f_opt_str, tph_pod_desc, scheduler_name, NULL, 0),
};

static bool is_node(sc_ld *L, const char *name)
{
	uint32_t v;
	return yu_map_get(&L->names, name, strlen(name), NULL, 0, &v) && !(v & SC_HN_BIT);
}

/* nodeName must name a node; a missing nominated node or podgroup is only a warning. */
static int check_pod_refs(sc_ld *L, const yu_node *item, const tph_pod_desc *p)
{
	yu_ctx *c = &L->c;
	if (p->node_name && !is_node(L, p->node_name)) {
		yu_push(c, "nodeName");
		return yu_err(c, yu_map_find(c, item, "nodeName"), TPH_ENOENT, "no node \"%s\"",
		              p->node_name);
	}
	if (p->nominated_node && !is_node(L, p->nominated_node)) {
		yu_push(c, "nominatedNodeName");
		yu_warn(c, yu_map_find(c, item, "nominatedNodeName"), "no node \"%s\"; ignored",
		        p->nominated_node);
		yu_pop(c);
	}
	if (p->pod_group && !yu_map_get(&L->podgroups, p->namespace_, strlen(p->namespace_),
	                                p->pod_group, strlen(p->pod_group), NULL)) {
		yu_push(c, "podGroup");
		yu_warn(c, yu_map_find(c, item, "podGroup"),
		        "no podGroup %s/%s; the pod is its own one-member job", p->namespace_,
		        p->pod_group);
		yu_pop(c);
	}
	return TPH_OK;
}

/* Everything but the name's registration: runs on any thread (scenario_par.c). */
static int decode_pod(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_pod *pod = &L->sc->pods[i];
	tph_pod_desc *p = &pod->d;
	sc_begin_obj(L, "pod", item, true, i);
	pod->line = yu_line(&L->c, item);
	*p = (tph_pod_desc)TPH_POD_DESC_INIT;
	p->namespace_ = "default";
	int rc = yu_walk(&L->c, item, pod_fields, sizeof pod_fields / sizeof pod_fields[0], p);
	if (rc == TPH_OK)
		rc = check_pod_refs(L, item, p);
	if (rc < 0)
		return rc;
	sc_note_creation(L, &p->creation);
	if (!p->uid && !(p->uid = sc_join(L, p->namespace_, '-', p->name)))
		return sc_nomem(L, item);
	return TPH_OK;
}

/* Pods a few items on, already decoded when the names are registered after a parallel
 * decode: start loading their map slots now. */
#define LOOK_AHEAD 4

static int register_pod(sc_ld *L, yu_node *item, uint32_t i)
{
	const tph_pod_desc *p = &L->sc->pods[i].d;
	const tph_pod_desc *next =
	    i + LOOK_AHEAD < L->sc->n_pods ? &L->sc->pods[i + LOOK_AHEAD].d : NULL;
	if (next && next->name) /* NULL: not decoded yet (a serial decode) */
		yu_map_prefetch(&L->pods, next->namespace_, strlen(next->namespace_), next->name,
		                strlen(next->name));
	/* what sc_begin_obj names it, for an item that decoded */
	yu_set_obj(&L->c, "pod", p->namespace_, p->name, (long)i);
	L->c.depth = 0;
	return sc_register(L, &L->pods, item, p->namespace_, p->name, i, "pod");
}

int sc_load_pods(sc_ld *L, const yu_node *seq)
{
	if (!(L->sc->pods = sc_alloc_items(L, seq, sizeof(tph_sc_pod), &L->sc->n_pods)))
		return TPH_ENOMEM;
	return sc_each_par(L, seq, "pods", decode_pod, register_pod, L->sc->pods,
	                   sizeof(tph_sc_pod));
}

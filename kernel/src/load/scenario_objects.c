/* Scenario sections for cluster-scoped objects: priority classes, queues (with the parent
 * check), nodes, resource quotas, PodDisruptionBudgets and the shard. */
#include "scenario_ld.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(tph_queue_state) == sizeof(int), "enum fields are written as int");
_Static_assert(sizeof(tph_taint_effect) == sizeof(int), "enum fields are written as int");

/* ---- priority classes --------------------------------------------------------------------------
 */

static const yu_field pclass_fields[] = {
    YU_F("name", yu_f_name, tph_priority_class_desc, name, NULL, YU_REQUIRED),
    YU_F("value", yu_f_i32, tph_priority_class_desc, value, NULL, YU_REQUIRED),
    YU_F("globalDefault", yu_f_bool, tph_priority_class_desc, global_default, NULL, 0),
    YU_F("preemptionPolicy", sc_f_preempt_never, tph_priority_class_desc, preempt_never, NULL, 0),
};

static int read_pclass(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_pclass *pc = &L->sc->pclasses[i];
	sc_begin_obj(L, "priorityClass", item, false, i);
	pc->line = yu_line(&L->c, item);
	pc->d = (tph_priority_class_desc)TPH_PRIORITY_CLASS_DESC_INIT;
	int rc = yu_walk(&L->c, item, pclass_fields, sizeof pclass_fields / sizeof pclass_fields[0],
	                 &pc->d);
	if (rc == TPH_OK)
		rc = sc_register(L, &L->pclasses, item, pc->d.name, NULL, i, "priority class");
	for (uint32_t j = 0; rc == TPH_OK && pc->d.global_default && j < i; j++)
		if (L->sc->pclasses[j].d.global_default)
			rc = yu_err(&L->c, item, TPH_EINVAL,
			            "globalDefault: true is already set by priority class %s",
			            L->sc->pclasses[j].d.name);
	return rc;
}

int sc_load_pclasses(sc_ld *L, const yu_node *seq)
{
	if (!(L->sc->pclasses = sc_alloc_items(L, seq, sizeof(tph_sc_pclass), &L->sc->n_pclasses)))
		return TPH_ENOMEM;
	return sc_each(L, seq, "priorityClasses", read_pclass);
}

/* ---- queues -----------------------------------------------------------------------------------
 */

static const char *const queue_states[] = {"Open", "Closed", "Closing", NULL};

typedef struct group_aff {
	tph_str_list required;
	tph_str_list preferred;
} group_aff;

static const yu_field group_aff_fields[] = {
    YU_F("requiredDuringSchedulingIgnoredDuringExecution", yu_f_strs, group_aff, required, NULL, 0),
    YU_F("preferredDuringSchedulingIgnoredDuringExecution", yu_f_strs, group_aff, preferred, NULL,
         0),
};

static int f_group_aff(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_walk(c, v, group_aff_fields, 2, dst);
}

typedef struct queue_aff {
	group_aff aff;
	group_aff anti;
} queue_aff;

static const yu_field queue_aff_fields[] = {
    YU_F("nodeGroupAffinity", f_group_aff, queue_aff, aff, NULL, 0),
    YU_F("nodeGroupAntiAffinity", f_group_aff, queue_aff, anti, NULL, 0),
};

static int f_queue_affinity(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_queue_desc *q = dst;
	queue_aff qa = {0};
	int rc = yu_walk(c, v, queue_aff_fields, 2, &qa);
	q->affinity_required = qa.aff.required;
	q->affinity_preferred = qa.aff.preferred;
	q->anti_affinity_required = qa.anti.required;
	q->anti_affinity_preferred = qa.anti.preferred;
	q->has_affinity = true;
	return rc;
}

static const yu_field queue_fields[] = {
    YU_F("name", yu_f_name, tph_queue_desc, name, NULL, YU_REQUIRED),
    YU_F("weight", yu_f_i32_nonneg, tph_queue_desc, weight, NULL, 0),
    YU_F("capability", yu_f_res, tph_queue_desc, capability, NULL, 0),
    YU_F("deserved", yu_f_res, tph_queue_desc, deserved, NULL, 0),
    YU_F("guarantee", yu_f_res, tph_queue_desc, guarantee, NULL, 0),
    YU_F("reclaimable", yu_f_bool_not, tph_queue_desc, not_reclaimable, NULL, 0),
    YU_F("state", yu_f_enum, tph_queue_desc, state, queue_states, 0),
    YU_F("parent", yu_f_name, tph_queue_desc, parent, NULL, 0),
    YU_F("priority", yu_f_i32, tph_queue_desc, priority, NULL, 0),
    YU_F("annotations", yu_f_kv, tph_queue_desc, annotations, NULL, 0),
    {"affinity", f_queue_affinity, 0, NULL, 0},
    YU_F("creationTimestamp", yu_f_time, tph_queue_desc, creation, NULL, 0),
    SC_KAI_ONLY("parentQueue"),
    SC_KAI_ONLY("resources"),
    SC_KAI_ONLY("preemptMinRuntime"),
    SC_KAI_ONLY("reclaimMinRuntime"),
    SC_KAI_ONLY("displayName"),
};

static int read_queue(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_queue *q = &L->sc->queues[i];
	sc_begin_obj(L, "queue", item, false, i);
	q->line = yu_line(&L->c, item);
	q->d = (tph_queue_desc)TPH_QUEUE_DESC_INIT;
	q->d.state = TPH_QUEUE_OPEN;
	int rc =
	    yu_walk(&L->c, item, queue_fields, sizeof queue_fields / sizeof queue_fields[0], &q->d);
	if (rc < 0)
		return rc;
	sc_note_creation(L, &q->d.creation);
	if (strcmp(q->d.name, "root") == 0 && q->d.parent) {
		yu_push(&L->c, "parent");
		return yu_err(&L->c, yu_map_find(&L->c, item, "parent"), TPH_EINVAL,
		              "the root queue has no parent");
	}
	if (strcmp(q->d.name, "root") != 0 && !q->d.parent)
		q->d.parent = "root";
	return sc_register(L, &L->queues, item, q->d.name, NULL, i, "queue");
}

int sc_load_queues(sc_ld *L, const yu_node *seq)
{
	if (!(L->sc->queues = sc_alloc_items(L, seq, sizeof(tph_sc_queue), &L->sc->n_queues)))
		return TPH_ENOMEM;
	return sc_each(L, seq, "queues", read_queue);
}

/* Where queue `i` names its parent, for messages (the item itself if `parent` is implicit). */
static yu_node *parent_node(sc_ld *L, uint32_t i)
{
	yu_node *item = yu_at(&L->c, L->sec[SEC_QUEUES]->u.items[i]);
	sc_begin_obj(L, "queue", item, false, i);
	yu_node *p = yu_map_find(&L->c, item, "parent");
	yu_push(&L->c, "parent");
	return p ? p : item;
}

/* parent index of queue i, or -1 for none (root, or the implicit root) */
static int parent_of(sc_ld *L, uint32_t i, int32_t *out)
{
	const char *p = L->sc->queues[i].d.parent;
	uint32_t idx;
	*out = -1;
	if (!p)
		return TPH_OK;
	if (yu_map_get(&L->queues, p, strlen(p), NULL, 0, &idx)) {
		*out = (int32_t)idx;
		return TPH_OK;
	}
	if (strcmp(p, "root") == 0)
		return TPH_OK;
	return yu_err(&L->c, parent_node(L, i), TPH_ENOENT, "no queue \"%s\"", p);
}

/* Follow parents from i, marking the path 1 and then 2 (done); reaching a 1 is a cycle. */
static int walk_parents(sc_ld *L, const int32_t *parent, uint8_t *state, uint32_t i)
{
	int32_t j = (int32_t)i;
	while (j >= 0 && state[j] == 0) {
		state[j] = 1;
		j = parent[j];
	}
	if (j >= 0 && state[j] == 1)
		return yu_err(&L->c, parent_node(L, (uint32_t)j), TPH_EINVAL,
		              "queue parents form a cycle through \"%s\"", L->sc->queues[j].d.name);
	for (j = (int32_t)i; j >= 0 && state[j] == 1; j = parent[j])
		state[j] = 2;
	return TPH_OK;
}

int sc_check_queue_parents(sc_ld *L)
{
	uint32_t n = L->sc->n_queues;
	int32_t *parent = yu_calloc(n, sizeof *parent);
	uint8_t *state = yu_calloc(n, 1);
	int rc = parent && state
	             ? TPH_OK
	             : tph_diag_set(L->c.d, TPH_ENOMEM, "%s: out of memory", L->sc->file);
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++)
		rc = parent_of(L, i, &parent[i]);
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++)
		rc = walk_parents(L, parent, state, i);
	yu_free(parent);
	yu_free(state);
	L->c.depth = 0;
	return rc;
}

/* ---- nodes -------------------------------------------------------------------------------------
 */

static const char *const taint_effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute", NULL};

static const yu_field taint_fields[] = {
    YU_F("key", sc_f_key, tph_taint, key, NULL, YU_REQUIRED),
    YU_F("value", yu_f_str, tph_taint, value, NULL, 0),
    YU_F("effect", yu_f_enum, tph_taint, effect, taint_effects, YU_REQUIRED),
};

static int read_taint(yu_ctx *c, yu_node *item, void *dst)
{
	tph_taint *t = dst;
	t->value = "";
	return yu_walk(c, item, taint_fields, sizeof taint_fields / sizeof taint_fields[0], t);
}

int sc_f_taints(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_node_desc *n = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_taint), &items, &n->n_taints, read_taint);
	n->taints = items;
	return rc;
}

static int f_period(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	int64_t ns;
	int rc = yu_duration(c, v, &ns);
	if (rc == TPH_OK && ns < 0)
		rc = yu_err(c, v, TPH_EINVAL, "must not be negative (\"%s\")", yu_sv(v));
	if (rc == TPH_OK)
		*(int64_t *)dst = ns / 1000000000;
	return rc;
}

static int f_percent(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	int rc = yu_float(c, v, (double *)dst);
	if (rc == TPH_OK && *(double *)dst < 0)
		rc = yu_err(c, v, TPH_EINVAL, "a percentage must not be negative (\"%s\")",
		            yu_sv(v));
	return rc;
}

static const yu_field usage_fields[] = {
    YU_F("period", f_period, tph_node_usage, period_s, NULL, 0),
    YU_F("cpu", f_percent, tph_node_usage, cpu_pct, NULL, 0),
    YU_F("memory", f_percent, tph_node_usage, mem_pct, NULL, 0),
    YU_F("metricsTime", yu_f_time, tph_node_usage, metrics_time, NULL, 0),
};

static int f_usage(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_node_usage *u = dst;
	u->present = true;
	return yu_walk(c, v, usage_fields, sizeof usage_fields / sizeof usage_fields[0], u);
}

static const yu_field node_fields[] = {
    YU_F("name", yu_f_name, tph_node_desc, name, NULL, YU_REQUIRED),
    YU_F("allocatable", yu_f_res, tph_node_desc, allocatable, NULL, 0),
    YU_F("capacity", yu_f_res, tph_node_desc, capacity, NULL, 0),
    YU_F("labels", yu_f_kv, tph_node_desc, labels, NULL, 0),
    YU_F("annotations", yu_f_kv, tph_node_desc, annotations, NULL, 0),
    {"taints", sc_f_taints, 0, NULL, 0},
    YU_F("unschedulable", yu_f_bool, tph_node_desc, unschedulable, NULL, 0),
    YU_F("ready", yu_f_bool_not, tph_node_desc, not_ready, NULL, 0),
    YU_F("usage", f_usage, tph_node_desc, usage, NULL, 0),
    YU_F("numa", sc_f_numa, tph_node_desc, numa, NULL, 0),
    {"images", sc_f_node_images, 0, NULL, 0},
};

static int read_node(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_node *n = &L->sc->nodes[i];
	sc_begin_obj(L, "node", item, false, i);
	n->line = yu_line(&L->c, item);
	n->d = (tph_node_desc)TPH_NODE_DESC_INIT;
	int rc =
	    yu_walk(&L->c, item, node_fields, sizeof node_fields / sizeof node_fields[0], &n->d);
	return rc < 0 ? rc : sc_register(L, &L->names, item, n->d.name, NULL, i, "node");
}

int sc_load_nodes(sc_ld *L, const yu_node *seq)
{
	if (!(L->sc->nodes = sc_alloc_items(L, seq, sizeof(tph_sc_node), &L->sc->n_nodes)))
		return TPH_ENOMEM;
	return sc_each(L, seq, "nodes", read_node);
}

/* ---- resource quotas ---------------------------------------------------------------------------
 */

static const yu_field quota_fields[] = {
    YU_F("name", yu_f_name, tph_quota_desc, name, NULL, YU_REQUIRED),
    YU_F("namespace", yu_f_name, tph_quota_desc, namespace_, NULL, 0),
    YU_F("hard", yu_f_res, tph_quota_desc, hard, NULL, 0),
    YU_F("used", yu_f_res, tph_quota_desc, used, NULL, 0),
};

static int read_quota(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_quota *q = &L->sc->quotas[i];
	sc_begin_obj(L, "resourceQuota", item, true, i);
	q->line = yu_line(&L->c, item);
	q->d = (tph_quota_desc)TPH_QUOTA_DESC_INIT;
	q->d.namespace_ = "default";
	int rc =
	    yu_walk(&L->c, item, quota_fields, sizeof quota_fields / sizeof quota_fields[0], &q->d);
	return rc < 0 ? rc
	              : sc_register(L, &L->quotas, item, q->d.namespace_, q->d.name, i,
	                            "resource quota");
}

int sc_load_quotas(sc_ld *L, const yu_node *seq)
{
	if (!(L->sc->quotas = sc_alloc_items(L, seq, sizeof(tph_sc_quota), &L->sc->n_quotas)))
		return TPH_ENOMEM;
	return sc_each(L, seq, "resourceQuotas", read_quota);
}

/* ---- PodDisruptionBudgets ------------------------------------------------------------------
 */

static bool all_digits(const char *s, size_t n)
{
	return n > 0 && strspn(s, "0123456789") == n;
}

/* intstr.IntOrString as a PDB validates it: an integer >= 0 or a percentage up to "100%". */
static int f_int_or_percent(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_int_or_percent *x = dst;
	const char *s = yu_sv(v);
	x->present = true;
	if (v->type == YU_SCALAR && v->len > 1 && s[v->len - 1] == '%' &&
	    all_digits(s, v->len - 1)) {
		size_t lead = strspn(s, "0");
		if (v->len - 1 - lead > 3 || atoi(s) > 100)
			return yu_err(c, v, TPH_ERANGE,
			              "a percentage must be at most 100%% (\"%s\")", s);
		x->percent = true;
		x->value = atoi(s);
		return TPH_OK;
	}
	if (v->type == YU_SCALAR && yu_plain(v) && !strcmp(yu_kind(v), "a number"))
		return yu_i32(c, v, 0, INT32_MAX, &x->value);
	if (v->type == YU_SCALAR)
		return yu_err(c, v, TPH_EINVAL,
		              "expected an integer or a percentage such as \"50%%\", got \"%s\"",
		              s);
	return yu_err(c, v, TPH_EINVAL,
	              "expected an integer or a percentage such as \"50%%\", got %s", yu_kind(v));
}

/* disruptedPods: pod name -> time. */
static int f_disrupted(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_pdb_desc *p = dst;
	int rc = yu_check_unique_keys(c, v);
	if (rc < 0)
		return rc;
	uint32_t n = (uint32_t)yu_map_len(v);
	tph_disrupted_pod *items = yu_alloc_array(c->arena, n, sizeof *items);
	if (!items)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++) {
		const yu_pair *pr = &v->u.pairs[i];
		yu_node *k = yu_at(c, pr->key);
		rc = yu_name(c, k, &items[i].pod);
		yu_push(c, yu_sv(k));
		if (rc == TPH_OK)
			rc = yu_time(c, yu_at(c, pr->value), &items[i].time);
		yu_pop(c);
		sc_zero_time(&items[i].time);
	}
	p->disrupted_pods = items;
	p->n_disrupted_pods = n;
	return rc;
}

static const yu_field pdb_fields[] = {
    YU_F("name", yu_f_name, tph_pdb_desc, name, NULL, YU_REQUIRED),
    YU_F("namespace", yu_f_name, tph_pdb_desc, namespace_, NULL, 0),
    YU_F("selector", sc_f_label_selector, tph_pdb_desc, selector, NULL, 0),
    YU_F("minAvailable", f_int_or_percent, tph_pdb_desc, min_available, NULL, 0),
    YU_F("maxUnavailable", f_int_or_percent, tph_pdb_desc, max_unavailable, NULL, 0),
    YU_F("disruptionsAllowed", yu_f_i32_nonneg, tph_pdb_desc, disruptions_allowed, NULL, 0),
    {"disruptedPods", f_disrupted, 0, NULL, 0},
};

static int read_pdb(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_pdb *p = &L->sc->pdbs[i];
	sc_begin_obj(L, "podDisruptionBudget", item, true, i);
	p->line = yu_line(&L->c, item);
	p->d = (tph_pdb_desc)TPH_PDB_DESC_INIT;
	p->d.namespace_ = "default";
	int rc = yu_walk(&L->c, item, pdb_fields, sizeof pdb_fields / sizeof pdb_fields[0], &p->d);
	if (rc < 0)
		return rc;
	if (p->d.min_available.present && p->d.max_unavailable.present) {
		yu_node *min = yu_map_find(&L->c, item, "minAvailable");
		yu_node *max = yu_map_find(&L->c, item, "maxUnavailable");
		bool max_later =
		    max->line > min->line || (max->line == min->line && max->col > min->col);
		yu_push(&L->c, max_later ? "maxUnavailable" : "minAvailable");
		rc = yu_err(&L->c, max_later ? max : min, TPH_EINVAL,
		            "minAvailable and maxUnavailable are mutually exclusive");
		yu_pop(&L->c);
		return rc;
	}
	return sc_register(L, &L->pdbs, item, p->d.namespace_, p->d.name, i,
	                   "pod disruption budget");
}

int sc_load_pdbs(sc_ld *L, const yu_node *seq)
{
	if (!(L->sc->pdbs = sc_alloc_items(L, seq, sizeof(tph_sc_pdb), &L->sc->n_pdbs)))
		return TPH_ENOMEM;
	return sc_each(L, seq, "podDisruptionBudgets", read_pdb);
}

/* ---- shard --------------------------------------------------------------------------------------
 */

static const char *const shard_modes[] = {"hard", "soft", NULL};

static int f_shard_mode(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	int m;
	int rc = yu_enum(c, v, shard_modes, &m);
	if (rc == TPH_OK)
		*(tph_shard_mode *)dst = m == 0 ? TPH_SHARD_HARD : TPH_SHARD_SOFT;
	return rc;
}

static const yu_field shard_fields[] = {
    YU_F("name", yu_f_str, tph_sc_shard, name, NULL, 0),
    YU_F("mode", f_shard_mode, tph_sc_shard, mode, NULL, 0),
    YU_F("nodes", yu_f_strs, tph_sc_shard, nodes, NULL, 0),
};

int sc_load_shard(sc_ld *L, const yu_node *map)
{
	tph_sc_shard *sh = &L->sc->shard;
	yu_set_obj(&L->c, "shard", NULL, sc_peek(L, map, "name"), -1);
	L->c.depth = 0;
	sh->present = true;
	sh->mode = TPH_SHARD_HARD;
	sh->name = "";
	sh->line = yu_line(&L->c, map);
	int rc =
	    yu_walk(&L->c, map, shard_fields, sizeof shard_fields / sizeof shard_fields[0], sh);
	yu_node *nodes = yu_map_find(&L->c, map, "nodes");
	for (uint32_t i = 0; rc == TPH_OK && i < sh->nodes.n; i++) {
		const char *nm = sh->nodes.items[i];
		uint32_t v;
		if (yu_map_get(&L->names, nm, strlen(nm), NULL, 0, &v) && !(v & SC_HN_BIT))
			continue;
		yu_push(&L->c, "nodes");
		yu_push_idx(&L->c, (int32_t)i);
		rc = yu_err(&L->c, yu_at(&L->c, nodes->u.items[i]), TPH_ENOENT, "no node \"%s\"",
		            nm);
	}
	L->c.depth = 0;
	return rc;
}

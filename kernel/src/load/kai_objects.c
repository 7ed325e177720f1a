/* kai scenario sections for cluster-scoped objects: Topology objects, KAI Queue v2 (the tree and
 * the per-resource quota triples) and nodes (Kubernetes nodes whose GPU labels KAI reads). */
#include "kai_ld.h"

#include <stdlib.h>
#include <string.h>

/* ---- topologies ----------------------------------------------------------------------------- */

static int read_level(yu_ctx *c, yu_node *item, void *dst)
{
	static const yu_field level_fields[] = {
	    {"nodeLabel", sc_f_key, 0, NULL, YU_REQUIRED},
	};
	return yu_walk(c, item, level_fields, 1, dst);
}

static int f_levels(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_str_list *l = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(const char *), &items, &l->n, read_level);
	l->items = items;
	if (rc == TPH_OK && l->n == 0)
		rc = yu_err(c, v, TPH_EINVAL, "a topology needs at least one level");
	for (uint32_t i = 1; rc == TPH_OK && i < l->n; i++)
		for (uint32_t j = 0; j < i; j++)
			if (strcmp(l->items[i], l->items[j]) == 0)
				return yu_err(c, yu_at(c, v->u.items[i]), TPH_EINVAL,
				              "level \"%s\" is listed twice", l->items[i]);
	return rc;
}

static const yu_field topology_fields[] = {
    YU_F("name", yu_f_name, tph_kai_topology_desc, name, NULL, YU_REQUIRED),
    YU_F("levels", f_levels, tph_kai_topology_desc, levels, NULL, YU_REQUIRED),
};

static int read_topology(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_kai_topology *t = &L->sc->kai->topologies[i];
	sc_begin_obj(L, "topology", item, false, i);
	t->line = yu_line(&L->c, item);
	t->d = (tph_kai_topology_desc)TPH_KAI_TOPOLOGY_DESC_INIT;
	int rc = yu_walk(&L->c, item, topology_fields,
	                 sizeof topology_fields / sizeof topology_fields[0], &t->d);
	return rc < 0 ? rc : sc_register(L, &L->topologies, item, t->d.name, NULL, i, "topology");
}

int sc_kai_topologies(sc_ld *L, const yu_node *seq)
{
	tph_sc_kai *k = L->sc->kai;
	if (!(k->topologies = sc_alloc_items(L, seq, sizeof *k->topologies, &k->n_topologies)))
		return TPH_ENOMEM;
	return sc_each(L, seq, "topologies", read_topology);
}

/* ---- queues --------------------------------------------------------------------------------- */

/* A quota or a limit: -1 (unlimited) or a non-negative number, times `aux`'s scale. */
static int read_amount(yu_ctx *c, yu_node *v, double *out, double scale, bool may_be_unlimited)
{
	int rc = yu_float(c, v, out);
	if (rc < 0)
		return rc;
	if (*out == TPH_KAI_UNLIMITED && may_be_unlimited)
		return TPH_OK;
	if (*out < 0)
		return yu_err(c, v, TPH_EINVAL, "must be %s0 or more (\"%s\")",
		              may_be_unlimited ? "-1 (unlimited) or " : "", yu_sv(v));
	*out *= scale;
	return TPH_OK;
}

static const double scale_one = 1, scale_mb = 1e6;

static int f_amount(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return read_amount(c, v, dst, *(const double *)aux, true);
}

/* KAI's unit-test harness writes -1 for the weight of its implicit parent queue. */
static int f_weight(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return read_amount(c, v, dst, 1, true);
}

static const yu_field share_fields[] = {
    YU_F("quota", f_amount, tph_kai_share, quota, &scale_one, 0),
    YU_F("overQuotaWeight", f_weight, tph_kai_share, over_quota_weight, NULL, 0),
    YU_F("limit", f_amount, tph_kai_share, limit, &scale_one, 0),
};

static const yu_field memory_fields[] = {
    YU_F("quota", f_amount, tph_kai_share, quota, &scale_mb, 0),
    YU_F("overQuotaWeight", f_weight, tph_kai_share, over_quota_weight, NULL, 0),
    YU_F("limit", f_amount, tph_kai_share, limit, &scale_mb, 0),
};

static int f_share(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_walk(c, v, aux ? memory_fields : share_fields, 3, dst);
}

static const yu_field resources_fields[] = {
    {"gpu", f_share, TPH_KAI_GPU * sizeof(tph_kai_share), NULL, 0},
    {"cpu", f_share, TPH_KAI_CPU * sizeof(tph_kai_share), NULL, 0},
    {"memory", f_share, TPH_KAI_MEMORY * sizeof(tph_kai_share), &scale_mb, 0},
};

static int f_resources(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_walk(c, v, resources_fields, 3, dst);
}

static const int nonneg = 1;

static const yu_field queue_fields[] = {
    YU_F("name", yu_f_name, tph_kai_queue_desc, name, NULL, YU_REQUIRED),
    YU_F("parentQueue", yu_f_name, tph_kai_queue_desc, parent, NULL, 0),
    YU_F("priority", yu_f_i32, tph_kai_queue_desc, priority, NULL, 0),
    YU_F("preemptMinRuntime", sc_kai_f_ms, tph_kai_queue_desc, preempt_min_runtime_ms, &nonneg, 0),
    YU_F("reclaimMinRuntime", sc_kai_f_ms, tph_kai_queue_desc, reclaim_min_runtime_ms, &nonneg, 0),
    YU_F("displayName", yu_f_str, tph_kai_queue_desc, display_name, NULL, 0),
    YU_F("resources", f_resources, tph_kai_queue_desc, res, NULL, 0),
    YU_F("creationTimestamp", yu_f_time, tph_kai_queue_desc, creation, NULL, 0),
    SC_VOLCANO_ONLY("parent"),
    SC_VOLCANO_ONLY("weight"),
    SC_VOLCANO_ONLY("capability"),
    SC_VOLCANO_ONLY("deserved"),
    SC_VOLCANO_ONLY("guarantee"),
    SC_VOLCANO_ONLY("reclaimable"),
    SC_VOLCANO_ONLY("state"),
};

static int read_queue(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_kai_queue *q = &L->sc->kai->queues[i];
	sc_begin_obj(L, "queue", item, false, i);
	q->line = yu_line(&L->c, item);
	q->d = (tph_kai_queue_desc)TPH_KAI_QUEUE_DESC_INIT;
	int rc =
	    yu_walk(&L->c, item, queue_fields, sizeof queue_fields / sizeof queue_fields[0], &q->d);
	if (rc < 0)
		return rc;
	sc_note_creation(L, &q->d.creation);
	if (q->d.parent && strcmp(q->d.parent, q->d.name) == 0) {
		yu_push(&L->c, "parentQueue");
		return yu_err(&L->c, yu_map_find(&L->c, item, "parentQueue"), TPH_EINVAL,
		              "a queue cannot be its own parent");
	}
	return sc_register(L, &L->queues, item, q->d.name, NULL, i, "queue");
}

/* KAI drops a queue whose parent is missing, with its children (a warning here); a cycle of
 * parents cannot come from KAI's API and is an error. */
static int check_parents(sc_ld *L)
{
	tph_sc_kai *k = L->sc->kai;
	for (uint32_t i = 0; i < k->n_queues; i++) {
		uint32_t j = i, steps = 0, p;
		while (k->queues[j].d.parent && steps++ <= k->n_queues) {
			const char *name = k->queues[j].d.parent;
			if (!yu_map_get(&L->queues, name, strlen(name), NULL, 0, &p))
				break;
			j = p;
		}
		yu_node *item = yu_at(&L->c, L->sec[SEC_QUEUES]->u.items[i]);
		sc_begin_obj(L, "queue", item, false, i);
		yu_push(&L->c, "parentQueue");
		const char *top = k->queues[j].d.parent;
		if (steps > k->n_queues)
			return yu_err(&L->c, yu_map_find(&L->c, item, "parentQueue"), TPH_EINVAL,
			              "queue parents form a cycle");
		if (top && j == i)
			yu_warn(&L->c, yu_map_find(&L->c, item, "parentQueue"),
			        "no queue \"%s\": the queue and its children are dropped", top);
	}
	L->c.depth = 0;
	return TPH_OK;
}

int sc_kai_queues(sc_ld *L, const yu_node *seq)
{
	tph_sc_kai *k = L->sc->kai;
	if (!(k->queues = sc_alloc_items(L, seq, sizeof *k->queues, &k->n_queues)))
		return TPH_ENOMEM;
	int rc = sc_each(L, seq, "queues", read_queue);
	return rc < 0 ? rc : check_parents(L);
}

/* ---- nodes ---------------------------------------------------------------------------------- */

static const yu_field node_fields[] = {
    YU_F("name", yu_f_name, tph_node_desc, name, NULL, YU_REQUIRED),
    YU_F("allocatable", yu_f_res, tph_node_desc, allocatable, NULL, 0),
    YU_F("labels", yu_f_kv, tph_node_desc, labels, NULL, 0),
    {"taints", sc_f_taints, 0, NULL, 0},
    YU_F("unschedulable", yu_f_bool, tph_node_desc, unschedulable, NULL, 0),
    YU_F("ready", yu_f_bool_not, tph_node_desc, not_ready, NULL, 0),
};

/* The GPU labels KAI parses as integers: a value that is not one is a located error. */
static int check_gpu_labels(sc_ld *L, const yu_node *item)
{
	static const char *const keys[] = {"nvidia.com/gpu.count", "nvidia.com/gpu.memory"};
	yu_node *labels = yu_map_find(&L->c, item, "labels");
	for (size_t i = 0; labels && i < sizeof keys / sizeof keys[0]; i++) {
		yu_node *v = yu_map_find(&L->c, labels, keys[i]);
		if (!v)
			continue;
		const char *s = yu_sv(v);
		char *end;
		long long x = strtoll(s, &end, 10);
		if (v->len && *end == '\0' && x >= 0 && s[0] != '+' && s[0] != ' ')
			continue;
		yu_push(&L->c, "labels");
		yu_push(&L->c, keys[i]);
		return yu_err(&L->c, v, TPH_EINVAL, "not a non-negative integer (\"%s\")", s);
	}
	return TPH_OK;
}

static int read_node(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_node *n = &L->sc->nodes[i];
	sc_begin_obj(L, "node", item, false, i);
	n->line = yu_line(&L->c, item);
	n->d = (tph_node_desc)TPH_NODE_DESC_INIT;
	int rc =
	    yu_walk(&L->c, item, node_fields, sizeof node_fields / sizeof node_fields[0], &n->d);
	if (rc == TPH_OK)
		rc = check_gpu_labels(L, item);
	return rc < 0 ? rc : sc_register(L, &L->names, item, n->d.name, NULL, i, "node");
}

int sc_kai_nodes(sc_ld *L, const yu_node *seq)
{
	if (!(L->sc->nodes = sc_alloc_items(L, seq, sizeof(tph_sc_node), &L->sc->n_nodes)))
		return TPH_ENOMEM;
	return sc_each(L, seq, "nodes", read_node);
}

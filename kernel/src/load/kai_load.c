/* A `flavour: kai` scenario, top level: the keys of shared/spec/kai-format.md (Volcano's own keys
 * are errors here), schedulerParams, then the sections in dependency order. Section readers live
 * in kai_objects.c, kai_podgroups.c, kai_pods.c and kai_expect.c. */
#include "kai_ld.h"

#include <stddef.h>
#include <string.h>

#define SEC(key, id)                                                                      \
	{                                                                                 \
		key, sc_f_stash, offsetof(sc_ld, sec) + (id) * sizeof(yu_node *), NULL, 0 \
	}
static const yu_field top_fields[] = {
    SEC("flavour", SEC_FLAVOUR),
    SEC("name", SEC_NAME),
    SEC("now", SEC_NOW),
    SEC("conf", SEC_CONF),
    SEC("confFile", SEC_CONF_FILE),
    SEC("schedulerParams", SEC_KAI_PARAMS),
    SEC("priorityClasses", SEC_PCLASSES),
    SEC("topologies", SEC_KAI_TOPOLOGIES),
    SEC("queues", SEC_QUEUES),
    SEC("nodes", SEC_NODES),
    SEC("podGroups", SEC_PODGROUPS),
    SEC("pods", SEC_PODS),
    SEC("expect", SEC_EXPECT),
    SEC("probe", SEC_PROBE),
    SC_VOLCANO_ONLY("enableFlagsDefault"),
    SC_VOLCANO_ONLY("hyperNodes"),
    SC_VOLCANO_ONLY("resourceQuotas"),
    SC_VOLCANO_ONLY("shard"),
    SC_VOLCANO_ONLY("nodeSampling"),
    SC_VOLCANO_ONLY("podDisruptionBudgets"),
    SC_VOLCANO_ONLY("extenderResponses"),
};

int sc_kai_ms(yu_ctx *c, const yu_node *v, bool nonneg, int64_t *ms)
{
	int64_t ns = 0;
	int rc = yu_duration(c, v, &ns);
	if (rc == TPH_OK && nonneg && ns < 0)
		rc = yu_err(c, v, TPH_EINVAL, "must not be negative (\"%s\")", yu_sv(v));
	*ms = ns / 1000000;
	return rc;
}

int sc_kai_f_ms(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return sc_kai_ms(c, v, aux != NULL, dst);
}

int sc_kai_f_status(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	const char *names[TPH_KAI_TS_COUNT];
	names[TPH_KAI_TS_COUNT - 1] = NULL;
	for (int i = 1; i < TPH_KAI_TS_COUNT; i++)
		names[i - 1] = tph_kai_status_name((tph_kai_status)i);
	int which;
	int rc = yu_enum(c, v, names, &which);
	if (rc == TPH_OK)
		*(tph_kai_status *)dst = (tph_kai_status)(which + 1);
	return rc;
}

/* ---- schedulerParams ------------------------------------------------------------------------ */

static int f_preemptees(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_i32(c, v, -1, INT32_MAX, dst);
}

static int f_mib(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_int(c, v, 1, INT32_MAX, dst);
}

static const yu_field gpu_memory_fields[] = {
    YU_F("min", f_mib, tph_kai_params, gpu_memory_min_mib, NULL, YU_REQUIRED),
    YU_F("max", f_mib, tph_kai_params, gpu_memory_max_mib, NULL, YU_REQUIRED),
};

static int f_gpu_memory(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_kai_params *p = dst;
	p->has_gpu_memory = true;
	int rc = yu_walk(c, v, gpu_memory_fields,
	                 sizeof gpu_memory_fields / sizeof gpu_memory_fields[0], p);
	if (rc == TPH_OK && p->gpu_memory_min_mib > p->gpu_memory_max_mib)
		rc = yu_err(c, v, TPH_EINVAL, "min is above max");
	return rc;
}

static const int nonneg = 1;

static const yu_field params_fields[] = {
    YU_F("maxNumberConsolidationPreemptees", f_preemptees, tph_kai_params,
         max_consolidation_preemptees, NULL, 0),
    YU_F("allowConsolidatingReclaim", yu_f_bool, tph_kai_params, allow_consolidating_reclaim, NULL,
         0),
    YU_F("useSchedulingSignatures", yu_f_bool, tph_kai_params, use_scheduling_signatures, NULL, 0),
    YU_F("globalDefaultStalenessGracePeriod", sc_kai_f_ms, tph_kai_params, staleness_grace_ms, NULL,
         0),
    YU_F("fullHierarchyFairness", yu_f_bool, tph_kai_params, full_hierarchy_fairness, NULL, 0),
    YU_F("restrictSchedulingNodes", yu_f_bool, tph_kai_params, restrict_scheduling_nodes, NULL, 0),
    YU_F("stuckInReleasingThreshold", sc_kai_f_ms, tph_kai_params, stuck_in_releasing_ms, &nonneg,
         0),
    YU_F("schedulerName", yu_f_name, tph_kai_params, scheduler_name, NULL, 0),
    {"nodeGPUMemoryMiB", f_gpu_memory, 0, NULL, 0},
    YU_F("nodePoolLabelKey", yu_f_str, tph_kai_params, node_pool_key, NULL, 0),
    YU_F("nodePoolLabelValue", yu_f_str, tph_kai_params, node_pool_value, NULL, 0),
};

int sc_kai_params(sc_ld *L, const yu_node *map)
{
	yu_set_obj(&L->c, "schedulerParams", NULL, NULL, -1);
	L->c.depth = 0;
	int rc = yu_walk(&L->c, map, params_fields, sizeof params_fields / sizeof params_fields[0],
	                 &L->sc->kai->params);
	L->c.depth = 0;
	return rc;
}

/* ---- top level ------------------------------------------------------------------------------ */

/* Sections in dependency order: what a section refers to is read before it. */
static const sc_step section_order[] = {
    {SEC_KAI_PARAMS, sc_kai_params},
    {SEC_PCLASSES, sc_load_pclasses},
    {SEC_KAI_TOPOLOGIES, sc_kai_topologies},
    {SEC_QUEUES, sc_kai_queues},
    {SEC_NODES, sc_kai_nodes},
    {SEC_PODGROUPS, sc_kai_podgroups},
    {SEC_PODS, sc_kai_pods},
    {SEC_EXPECT, sc_kai_expect},
    {SEC_PROBE, sc_kai_probe},
};

static int kai_new(sc_ld *L, const yu_node *root)
{
	tph_sc_kai *k = yu_alloc_array(&L->sc->arena, 1, sizeof *k);
	if (!k)
		return sc_nomem(L, root);
	k->params = (tph_kai_params)TPH_KAI_PARAMS_INIT;
	k->expect.max_binds = k->expect.max_evictions = k->expect.max_pipelined = -1;
	L->sc->kai = k;
	return TPH_OK;
}

/* The wrapped objects (descriptor + source line) as plain descriptor arrays, what
 * tph_kai_snapshot_build takes. */
#define UNWRAP(L, dst, src, n, T)                                        \
	do {                                                             \
		T *a_ = yu_alloc_array(&(L)->sc->arena, (n), sizeof(T)); \
		if (!a_)                                                 \
			return sc_nomem((L), root);                      \
		for (uint32_t i_ = 0; i_ < (n); i_++)                    \
			a_[i_] = (src)[i_].d;                            \
		(dst) = a_;                                              \
	} while (0)

static int gather(sc_ld *L, const yu_node *root)
{
	tph_scenario *sc = L->sc;
	tph_sc_kai *k = sc->kai;
	tph_kai_cluster_desc *c = &k->cluster;
	*c = (tph_kai_cluster_desc)TPH_KAI_CLUSTER_DESC_INIT;
	c->params = &k->params;
	UNWRAP(L, c->pclasses, sc->pclasses, sc->n_pclasses, tph_priority_class_desc);
	UNWRAP(L, c->topologies, k->topologies, k->n_topologies, tph_kai_topology_desc);
	UNWRAP(L, c->queues, k->queues, k->n_queues, tph_kai_queue_desc);
	UNWRAP(L, c->nodes, sc->nodes, sc->n_nodes, tph_node_desc);
	UNWRAP(L, c->podgroups, k->podgroups, k->n_podgroups, tph_kai_podgroup_desc);
	UNWRAP(L, c->pods, sc->pods, sc->n_pods, tph_pod_desc);
	c->kai_pods = k->pods;
	c->n_pclasses = sc->n_pclasses, c->n_topologies = k->n_topologies;
	c->n_queues = k->n_queues, c->n_nodes = sc->n_nodes, c->n_podgroups = k->n_podgroups;
	c->n_pods = sc->n_pods;
	return TPH_OK;
}

int sc_kai_decode(sc_ld *L, const yu_node *root)
{
	int rc = kai_new(L, root);
	if (rc == TPH_OK)
		rc = sc_decode_sections(L, root, top_fields,
		                        sizeof top_fields / sizeof top_fields[0], section_order,
		                        sizeof section_order / sizeof section_order[0]);
	return rc == TPH_OK ? gather(L, root) : rc;
}

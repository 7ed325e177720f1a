/* kai scenario section `podGroups:` (KAI PodGroup v2alpha2): priority, preemptibility, the
 * sub-group tree with its minimums and topology constraints, preemption delay, staleness grace
 * and the timestamp annotations. The tree is checked here: names unique, parents known, no
 * cycle, minMember only on pod sets and minSubGroup only on sets. */
#include "kai_ld.h"

#include "cache/kai_snap.h"

#include <string.h>

/* ---- topology constraints ------------------------------------------------------------------- */

static const yu_field constraint_fields[] = {
    YU_F("topology", yu_f_name, tph_kai_topo_constraint, topology, NULL, YU_REQUIRED),
    YU_F("requiredTopologyLevel", sc_f_key, tph_kai_topo_constraint, required_level, NULL, 0),
    YU_F("preferredTopologyLevel", sc_f_key, tph_kai_topo_constraint, preferred_level, NULL, 0),
};

static bool has_level(const tph_kai_topology_desc *t, const char *level)
{
	for (uint32_t i = 0; i < t->levels.n; i++)
		if (strcmp(t->levels.items[i], level) == 0)
			return true;
	return false;
}

static int check_level(yu_ctx *c, const yu_node *v, const char *key, const tph_kai_topology_desc *t,
                       const char *level)
{
	if (!level || has_level(t, level))
		return TPH_OK;
	yu_push(c, key);
	int rc = yu_err(c, yu_map_find(c, v, key), TPH_ENOENT, "topology %s has no level \"%s\"",
	                t->name, level);
	yu_pop(c);
	return rc;
}

static int f_constraint(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_kai_topo_constraint *k = dst;
	sc_ld *L = sc_ld_of(c);
	int rc = yu_walk(c, v, constraint_fields,
	                 sizeof constraint_fields / sizeof constraint_fields[0], k);
	uint32_t idx;
	if (rc == TPH_OK &&
	    !yu_map_get(&L->topologies, k->topology, strlen(k->topology), NULL, 0, &idx)) {
		yu_push(c, "topology");
		return yu_err(c, yu_map_find(c, v, "topology"), TPH_ENOENT, "no topology \"%s\"",
		              k->topology);
	}
	const tph_kai_topology_desc *t = rc == TPH_OK ? &L->sc->kai->topologies[idx].d : NULL;
	if (rc == TPH_OK)
		rc = check_level(c, v, "requiredTopologyLevel", t, k->required_level);
	if (rc == TPH_OK)
		rc = check_level(c, v, "preferredTopologyLevel", t, k->preferred_level);
	return rc;
}

/* ---- the sub-group tree --------------------------------------------------------------------- */

static const yu_field subgroup_fields[] = {
    YU_F("name", yu_f_name, tph_kai_subgroup, name, NULL, YU_REQUIRED),
    YU_F("parent", yu_f_name, tph_kai_subgroup, parent, NULL, 0),
    YU_F("minMember", yu_f_i32_nonneg, tph_kai_subgroup, min_member, NULL, 0),
    YU_F("minSubGroup", yu_f_i32_nonneg, tph_kai_subgroup, min_subgroup, NULL, 0),
    YU_F("topologyConstraint", f_constraint, tph_kai_subgroup, topology, NULL, 0),
};

static int read_subgroup(yu_ctx *c, yu_node *item, void *dst)
{
	tph_kai_subgroup *s = dst;
	*s = (tph_kai_subgroup){.min_member = TPH_KAI_UNSET, .min_subgroup = TPH_KAI_UNSET};
	return yu_walk(c, item, subgroup_fields, sizeof subgroup_fields / sizeof subgroup_fields[0],
	               s);
}

static int64_t find_subgroup(const tph_kai_podgroup_desc *g, const char *name)
{
	for (uint32_t i = 0; name && i < g->n_subgroups; i++)
		if (strcmp(g->subgroups[i].name, name) == 0)
			return i;
	return -1;
}

/* Sub-group i's own checks: a unique name, a known parent, no cycle through it, and the
 * minimum that suits its kind. `at` is its item. */
static int check_subgroup(yu_ctx *c, const tph_kai_podgroup_desc *g, uint32_t i, yu_node *at)
{
	const tph_kai_subgroup *s = &g->subgroups[i];
	if (find_subgroup(g, s->name) != i)
		return yu_err(c, at, TPH_EEXIST, "duplicate sub-group \"%s\"", s->name);
	int64_t p = s->parent ? find_subgroup(g, s->parent) : -1;
	const char *key = NULL, *why = NULL;
	if (s->parent && p < 0)
		key = "parent", why = "no such sub-group";
	for (uint32_t steps = 0; !why && p >= 0;
	     steps++, p = find_subgroup(g, g->subgroups[p].parent))
		if (p == i || steps > g->n_subgroups)
			key = "parent", why = "sub-group parents form a cycle";
	uint32_t kids = tph_kai_children(g, s->name);
	if (!why && kids && s->min_member != TPH_KAI_UNSET)
		key = "minMember",
		why = "a sub-group with sub-groups takes minSubGroup, not minMember";
	if (!why && !kids && s->min_subgroup != TPH_KAI_UNSET)
		key = "minSubGroup",
		why = "a pod set (no sub-groups under it) takes minMember, not minSubGroup";
	if (!why && kids && s->min_subgroup > (int32_t)kids)
		key = "minSubGroup", why = "above the number of sub-groups under it";
	if (!why)
		return TPH_OK;
	yu_push(c, key);
	int rc =
	    yu_err(c, yu_map_find(c, at, key), TPH_EINVAL, "%s (sub-group \"%s\")", why, s->name);
	yu_pop(c);
	return rc;
}

static int f_subgroups(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_kai_podgroup_desc *g = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_kai_subgroup), &items, &g->n_subgroups, read_subgroup);
	g->subgroups = items;
	for (uint32_t i = 0; rc == TPH_OK && i < g->n_subgroups; i++) {
		yu_push_idx(c, (int32_t)i);
		rc = check_subgroup(c, g, i, yu_at(c, v->u.items[i]));
		yu_pop(c);
	}
	return rc;
}

/* ---- podgroups ------------------------------------------------------------------------------ */

static int f_preemptibility(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	static const char *const names[] = {"preemptible", "non-preemptible", NULL};
	int which;
	int rc = yu_enum(c, v, names, &which);
	if (rc == TPH_OK)
		*(tph_kai_preemptibility *)dst =
		    which ? TPH_KAI_NON_PREEMPTIBLE : TPH_KAI_PREEMPTIBLE;
	return rc;
}

static int f_priority(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_kai_podgroup_desc *g = dst;
	g->has_priority = true;
	return yu_i32(c, v, INT32_MIN, INT32_MAX, &g->priority);
}

static int f_grace(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_kai_podgroup_desc *g = dst;
	g->has_staleness_grace = true;
	return sc_kai_ms(c, v, false, &g->staleness_grace_ms);
}

/* The annotations KAI keeps its timestamps in; other annotations are not read. */
static const yu_field annotation_fields[] = {
    YU_F("kai.scheduler/last-start-timestamp", yu_f_time, tph_kai_podgroup_desc, last_start, NULL,
         0),
    YU_F("kai.scheduler/last-eviction-timestamp", yu_f_time, tph_kai_podgroup_desc, last_eviction,
         NULL, 0),
    YU_F("kai.scheduler/stale-podgroup-timestamp", yu_f_time, tph_kai_podgroup_desc, stale_since,
         NULL, 0),
};

static int f_annotations(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	int rc = yu_want_map(c, v);
	if (rc == TPH_OK)
		rc = yu_check_unique_keys(c, v);
	for (size_t i = 0;
	     rc == TPH_OK && i < sizeof annotation_fields / sizeof annotation_fields[0]; i++) {
		yu_node *x = yu_map_find(c, v, annotation_fields[i].key);
		if (!x || yu_is_null(x))
			continue;
		yu_push(c, annotation_fields[i].key);
		rc = yu_f_time(c, x, (char *)dst + annotation_fields[i].off, NULL);
		yu_pop(c);
	}
	return rc;
}

/* subGroups is read after the other fields (read_tree): its checks need the root's. */
static int later(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return TPH_OK;
}

static const int nonneg = 1;

static const yu_field podgroup_fields[] = {
    YU_F("name", yu_f_name, tph_kai_podgroup_desc, name, NULL, YU_REQUIRED),
    YU_F("namespace", yu_f_name, tph_kai_podgroup_desc, namespace_, NULL, 0),
    YU_F("queue", yu_f_name, tph_kai_podgroup_desc, queue, NULL, 0),
    YU_F("priorityClassName", sc_f_key, tph_kai_podgroup_desc, priority_class, NULL, 0),
    {"priority", f_priority, 0, NULL, 0},
    YU_F("preemptibility", f_preemptibility, tph_kai_podgroup_desc, preemptibility, NULL, 0),
    YU_F("minMember", yu_f_i32_nonneg, tph_kai_podgroup_desc, min_member, NULL, 0),
    YU_F("minSubGroup", yu_f_i32_nonneg, tph_kai_podgroup_desc, min_subgroup, NULL, 0),
    YU_F("topologyConstraint", f_constraint, tph_kai_podgroup_desc, topology, NULL, 0),
    YU_F("preemptionDelay", sc_kai_f_ms, tph_kai_podgroup_desc, preemption_delay_ms, &nonneg, 0),
    {"stalenessGracePeriod", f_grace, 0, NULL, 0},
    YU_F("creationTimestamp", yu_f_time, tph_kai_podgroup_desc, creation, NULL, 0),
    {"annotations", f_annotations, 0, NULL, 0},
    {"subGroups", later, 0, NULL, 0},
    SC_VOLCANO_ONLY("minTaskMember"),
    SC_VOLCANO_ONLY("minResources"),
    SC_VOLCANO_ONLY("phase"),
    SC_VOLCANO_ONLY("networkTopology"),
    SC_VOLCANO_ONLY("subGroupPolicy"),
    SC_VOLCANO_ONLY("uid"),
};

static int read_tree(sc_ld *L, yu_node *item, tph_kai_podgroup_desc *g)
{
	yu_node *v = yu_map_find(&L->c, item, "subGroups");
	if (v && !yu_is_null(v)) {
		yu_push(&L->c, "subGroups");
		int rc = f_subgroups(&L->c, v, g, NULL);
		yu_pop(&L->c);
		if (rc < 0)
			return rc;
	}
	uint32_t kids = tph_kai_children(g, NULL);
	yu_node *m = yu_map_find(&L->c, item, "minSubGroup");
	yu_push(&L->c, "minSubGroup");
	int rc = TPH_OK;
	if (g->min_subgroup != TPH_KAI_UNSET && !g->n_subgroups)
		rc =
		    yu_err(&L->c, m, TPH_EINVAL, "a podgroup without subGroups has no minSubGroup");
	else if (g->min_subgroup > (int32_t)kids)
		rc = yu_err(&L->c, m, TPH_EINVAL, "above the %u sub-groups under the root",
		            (unsigned)kids);
	yu_pop(&L->c);
	return rc;
}

static int read_podgroup(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_kai_podgroup *pg = &L->sc->kai->podgroups[i];
	tph_kai_podgroup_desc *g = &pg->d;
	yu_set_obj(&L->c, "podGroup", sc_peek(L, item, "namespace"), sc_peek(L, item, "name"),
	           (long)i);
	L->c.depth = 0;
	pg->line = yu_line(&L->c, item);
	*g = (tph_kai_podgroup_desc)TPH_KAI_PODGROUP_DESC_INIT;
	g->namespace_ = "";
	int rc = yu_walk(&L->c, item, podgroup_fields,
	                 sizeof podgroup_fields / sizeof podgroup_fields[0], g);
	if (rc == TPH_OK)
		rc = read_tree(L, item, g);
	if (rc < 0)
		return rc;
	sc_note_creation(L, &g->creation);
	return sc_register(L, &L->podgroups, item, g->namespace_, g->name, i, "podGroup");
}

int sc_kai_podgroups(sc_ld *L, const yu_node *seq)
{
	tph_sc_kai *k = L->sc->kai;
	if (!(k->podgroups = sc_alloc_items(L, seq, sizeof *k->podgroups, &k->n_podgroups)))
		return TPH_ENOMEM;
	return sc_each(L, seq, "podGroups", read_podgroup);
}

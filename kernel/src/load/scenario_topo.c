/* Scenario sections for network topology and jobs: hypernodes (members resolved and checked
 * for cycles once all are read), network topology specs and podgroups with their subgroup
 * policies. */
#include "cache/cluster_int.h"
#include "scenario_ld.h"

#include "base/regex_go.h"
#include <string.h>

_Static_assert(sizeof(tph_pg_phase) == sizeof(int), "enum fields are written as int");

/* ---- hypernodes --------------------------------------------------------------------------------
 */

/* Compiled once here to report a bad pattern at its place in the file; the session compiles
 * it again when it builds the topology. */
static int check_regex(yu_ctx *c, const yu_node *v)
{
	tph_re *re;
	char why[256];
	int rc = tph_re_compile(yu_sv(v), &re, why, sizeof why);
	tph_re_free(re);
	if (rc == TPH_EINVAL)
		return yu_err(c, v, rc, "bad regex: %s (\"%s\")", why, yu_sv(v));
	return rc == TPH_OK ? rc : yu_err(c, v, rc, "out of memory");
}

static int read_member_map(yu_ctx *c, yu_node *item, tph_hypernode_member *m)
{
	const yu_pair *p = item->u.pairs;
	yu_node *k = yu_map_len(item) == 1 ? yu_at(c, p->key) : NULL;
	const char *key = k && k->type == YU_SCALAR ? yu_sv(k) : "";
	yu_node *v = yu_map_len(item) == 1 ? yu_at(c, p->value) : NULL;
	if (strcmp(key, "regex") == 0) {
		m->kind = TPH_MEMBER_REGEX;
		yu_push(c, "regex");
		int rc = yu_want_scalar(c, v, "a regular expression");
		if (rc == TPH_OK)
			rc = check_regex(c, v);
		if (rc == TPH_OK)
			rc = yu_str(c, v, &m->name_or_regex);
		yu_pop(c);
		return rc;
	}
	if (strcmp(key, "labels") == 0) {
		m->kind = TPH_MEMBER_LABELS;
		yu_push(c, "labels");
		int rc = yu_kv_list(c, v, &m->labels);
		yu_pop(c);
		return rc;
	}
	return yu_err(c, item, TPH_EINVAL, "a member is a name, {regex: ...} or {labels: ...}");
}

static int read_member(yu_ctx *c, yu_node *item, void *dst)
{
	tph_hypernode_member *m = dst;
	if (item->type == YU_MAP)
		return read_member_map(c, item, m);
	m->kind = TPH_MEMBER_NAME;
	return yu_name(c, item, &m->name_or_regex);
}

static int f_members(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_hypernode_desc *h = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_hypernode_member), &items, &h->n_members, read_member);
	h->members = items;
	return rc;
}

static int f_tier(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_i32(c, v, 0, TPH_HN_TIER_MAX, (int32_t *)dst);
}

static const yu_field hypernode_fields[] = {
    YU_F("name", yu_f_name, tph_hypernode_desc, name, NULL, YU_REQUIRED),
    YU_F("tier", f_tier, tph_hypernode_desc, tier, NULL, YU_REQUIRED),
    YU_F("tierName", sc_f_key, tph_hypernode_desc, tier_name, NULL, 0),
    {"members", f_members, 0, NULL, 0},
};

static int read_hypernode(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_hypernode *h = &L->sc->hypernodes[i];
	sc_begin_obj(L, "hyperNode", item, false, i);
	h->line = yu_line(&L->c, item);
	h->d = (tph_hypernode_desc)TPH_HYPERNODE_DESC_INIT;
	int rc = yu_walk(&L->c, item, hypernode_fields,
	                 sizeof hypernode_fields / sizeof hypernode_fields[0], &h->d);
	if (rc < 0)
		return rc;
	uint32_t old;
	rc = yu_map_put(&L->names, h->d.name, strlen(h->d.name), NULL, 0, i | SC_HN_BIT, &old);
	if (rc < 0)
		return sc_nomem(L, item);
	if (rc == 0)
		return yu_err(&L->c, item, TPH_EEXIST, "%s %s",
		              old & SC_HN_BIT ? "duplicate hyperNode" : "name already used by node",
		              h->d.name);
	return TPH_OK;
}

int sc_load_hypernodes(sc_ld *L, const yu_node *seq)
{
	if (!(L->sc->hypernodes =
	          sc_alloc_items(L, seq, sizeof(tph_sc_hypernode), &L->sc->n_hypernodes)))
		return TPH_ENOMEM;
	int rc = sc_each(L, seq, "hyperNodes", read_hypernode);
	return rc == TPH_OK ? sc_resolve_hypernodes(L) : rc;
}

/* Locate member `m` of hypernode `h` for messages. */
static yu_node *member_node(sc_ld *L, uint32_t h, uint32_t m)
{
	yu_node *item = yu_at(&L->c, L->sec[SEC_HYPERNODES]->u.items[h]);
	sc_begin_obj(L, "hyperNode", item, false, h);
	yu_node *members = yu_map_find(&L->c, item, "members");
	yu_push(&L->c, "members");
	yu_push_idx(&L->c, (int32_t)m);
	return yu_at(&L->c, members->u.items[m]);
}

/* Hypernode-to-hypernode edges in CSR form; `via` is the member index of each edge. */
typedef struct hn_graph {
	uint32_t *start; /* n + 1 */
	uint32_t *to;
	uint32_t *via;
} hn_graph;

static int build_graph(sc_ld *L, hn_graph *g)
{
	tph_scenario *sc = L->sc;
	uint32_t n = sc->n_hypernodes, edges = 0;
	for (uint32_t h = 0; h < n; h++)
		edges += sc->hypernodes[h].d.n_members;
	g->start = yu_calloc(n + 1, sizeof *g->start);
	g->to = yu_calloc(edges, sizeof *g->to);
	g->via = yu_calloc(edges, sizeof *g->via);
	if (!g->start || !g->to || !g->via)
		return tph_diag_set(L->c.d, TPH_ENOMEM, "%s: out of memory", sc->file);
	uint32_t e = 0;
	for (uint32_t h = 0; h < n; h++) {
		g->start[h] = e;
		const tph_hypernode_desc *d = &sc->hypernodes[h].d;
		for (uint32_t m = 0; m < d->n_members; m++) {
			const char *nm = d->members[m].name_or_regex;
			uint32_t v;
			if (d->members[m].kind != TPH_MEMBER_NAME)
				continue;
			if (!yu_map_get(&L->names, nm, strlen(nm), NULL, 0, &v))
				return yu_err(&L->c, member_node(L, h, m), TPH_ENOENT,
				              "\"%s\" names no node or hyperNode", nm);
			if (v & SC_HN_BIT)
				g->to[e] = v & ~SC_HN_BIT, g->via[e++] = m;
		}
	}
	g->start[n] = e;
	return TPH_OK;
}

/* Iterative depth-first search; reaching a node on the current path is a cycle. */
static int find_cycle(sc_ld *L, const hn_graph *g, uint8_t *color, uint32_t *stack, uint32_t *pos,
                      uint32_t root)
{
	uint32_t top = 0;
	stack[top] = root;
	pos[root] = g->start[root];
	color[root] = 1;
	for (;;) {
		uint32_t u = stack[top];
		if (pos[u] == g->start[u + 1]) {
			color[u] = 2;
			if (top-- == 0)
				return TPH_OK;
			continue;
		}
		uint32_t e = pos[u]++, v = g->to[e];
		if (color[v] == 1)
			return yu_err(&L->c, member_node(L, u, g->via[e]), TPH_EINVAL,
			              "hyperNode members form a cycle through \"%s\"",
			              L->sc->hypernodes[v].d.name);
		if (color[v] == 0) {
			color[v] = 1;
			pos[v] = g->start[v];
			stack[++top] = v;
		}
	}
}

int sc_resolve_hypernodes(sc_ld *L)
{
	uint32_t n = L->sc->n_hypernodes;
	hn_graph g = {0};
	uint8_t *color = yu_calloc(n, 1);
	uint32_t *stack = yu_calloc(n, sizeof *stack), *pos = yu_calloc(n, sizeof *pos);
	int rc = color && stack && pos ? build_graph(L, &g)
	                               : tph_diag_set(L->c.d, TPH_ENOMEM, "out of memory");
	for (uint32_t h = 0; rc == TPH_OK && h < n; h++)
		if (color[h] == 0)
			rc = find_cycle(L, &g, color, stack, pos, h);
	yu_free(g.start);
	yu_free(g.to);
	yu_free(g.via);
	yu_free(color);
	yu_free(stack);
	yu_free(pos);
	L->c.depth = 0;
	return rc;
}

/* ---- network topology
 * ---------------------------------------------------------------------------- */

static const char *const topo_modes[] = {"hard", "soft", NULL};

static int f_topo_mode(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	int m;
	int rc = yu_enum(c, v, topo_modes, &m);
	if (rc == TPH_OK)
		*(tph_topo_mode *)dst = m == 0 ? TPH_TOPO_HARD : TPH_TOPO_SOFT;
	return rc;
}

static const yu_field topo_fields[] = {
    YU_F("mode", f_topo_mode, tph_net_topology, mode, NULL, 0),
    YU_F("highestTierAllowed", yu_f_i32_nonneg, tph_net_topology, highest_tier, NULL, 0),
    YU_F("highestTierName", sc_f_key, tph_net_topology, highest_tier_name, NULL, 0),
};

int sc_f_net_topology(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_net_topology *t = dst;
	*t = (tph_net_topology){TPH_TOPO_HARD, -1, NULL};
	int rc = yu_walk(c, v, topo_fields, sizeof topo_fields / sizeof topo_fields[0], t);
	if (rc == TPH_OK && t->highest_tier >= 0 && t->highest_tier_name)
		rc = yu_err(c, v, TPH_EINVAL,
		            "highestTierAllowed and highestTierName are mutually exclusive");
	return rc;
}

/* ---- podgroups
 * ------------------------------------------------------------------------------------- */

static const char *const pg_phases[] = {"Pending", "Inqueue",   "Running",
                                        "Unknown", "Completed", NULL};

static const yu_field subgroup_fields[] = {
    YU_F("name", yu_f_name, tph_subgroup_policy, name, NULL, YU_REQUIRED),
    YU_F("subGroupSize", yu_f_i32_pos, tph_subgroup_policy, subgroup_size, NULL, 0),
    YU_F("minSubGroups", yu_f_i32_nonneg, tph_subgroup_policy, min_subgroups, NULL, 0),
    YU_F("matchLabelKeys", yu_f_strs, tph_subgroup_policy, match_label_keys, NULL, 0),
    YU_F("labelSelector", sc_f_label_selector, tph_subgroup_policy, selector, NULL, 0),
    YU_F("networkTopology", sc_f_net_topology, tph_subgroup_policy, topology, NULL, 0),
};

static int read_subgroup(yu_ctx *c, yu_node *item, void *dst)
{
	tph_subgroup_policy *s = dst;
	*s = (tph_subgroup_policy)TPH_SUBGROUP_POLICY_INIT;
	return yu_walk(c, item, subgroup_fields, sizeof subgroup_fields / sizeof subgroup_fields[0],
	               s);
}

static int unique_subgroups(yu_ctx *c, const yu_node *v, const tph_podgroup_desc *g)
{
	uint32_t at;
	if (sc_find_repeat(g->subgroups, g->n_subgroups, sizeof *g->subgroups,
	                   offsetof(tph_subgroup_policy, name), &at) < 0)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	if (at == UINT32_MAX)
		return TPH_OK;
	yu_push_idx(c, (int32_t)at);
	int rc = yu_err(c, yu_at(c, v->u.items[at]), TPH_EEXIST, "duplicate subgroup policy \"%s\"",
	                g->subgroups[at].name);
	yu_pop(c);
	return rc;
}

static int f_subgroups(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_podgroup_desc *g = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof(tph_subgroup_policy), &items, &g->n_subgroups, read_subgroup);
	g->subgroups = items;
	return rc < 0 ? rc : unique_subgroups(c, v, g);
}

static int f_min_tasks(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_podgroup_desc *g = dst;
	int rc = yu_check_unique_keys(c, v);
	uint32_t n = rc == TPH_OK ? (uint32_t)yu_map_len(v) : 0;
	tph_min_task *mt = rc == TPH_OK ? yu_alloc_array(c->arena, n, sizeof *mt) : NULL;
	if (rc == TPH_OK && !mt)
		rc = yu_err(c, v, TPH_ENOMEM, "out of memory");
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++) {
		const yu_pair *p = &v->u.pairs[i];
		yu_node *k = yu_at(c, p->key);
		rc = yu_str(c, k, &mt[i].task_spec);
		yu_push(c, yu_sv(k));
		if (rc == TPH_OK)
			rc = yu_i32(c, yu_at(c, p->value), 0, INT32_MAX, &mt[i].min);
		yu_pop(c);
	}
	g->min_tasks = mt;
	g->n_min_tasks = n;
	return rc;
}

static int f_min_resources(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_podgroup_desc *g = dst;
	g->has_min_resources = true;
	return yu_res_list(c, v, &g->min_resources);
}

static const yu_field podgroup_fields[] = {
    YU_F("name", yu_f_name, tph_podgroup_desc, name, NULL, YU_REQUIRED),
    YU_F("namespace", yu_f_name, tph_podgroup_desc, namespace_, NULL, 0),
    YU_F("queue", yu_f_name, tph_podgroup_desc, queue, NULL, 0),
    YU_F("minMember", yu_f_i32_nonneg, tph_podgroup_desc, min_member, NULL, 0),
    {"minTaskMember", f_min_tasks, 0, NULL, 0},
    {"minResources", f_min_resources, 0, NULL, 0},
    YU_F("phase", yu_f_enum, tph_podgroup_desc, phase, pg_phases, 0),
    YU_F("priorityClassName", sc_f_key, tph_podgroup_desc, priority_class, NULL, 0),
    YU_F("creationTimestamp", yu_f_time, tph_podgroup_desc, creation, NULL, 0),
    YU_F("annotations", yu_f_kv, tph_podgroup_desc, annotations, NULL, 0),
    YU_F("uid", sc_f_key, tph_podgroup_desc, uid, NULL, 0),
    YU_F("networkTopology", sc_f_net_topology, tph_podgroup_desc, topology, NULL, 0),
    {"subGroupPolicy", f_subgroups, 0, NULL, 0},
    SC_KAI_ONLY("preemptibility"),
    SC_KAI_ONLY("minSubGroup"),
    SC_KAI_ONLY("subGroups"),
    SC_KAI_ONLY("topologyConstraint"),
    SC_KAI_ONLY("preemptionDelay"),
    SC_KAI_ONLY("stalenessGracePeriod"),
    SC_KAI_ONLY("priority"),
};

const char *sc_join(sc_ld *L, const char *a, char sep, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = yu_alloc(L->c.arena, la + lb + 2);
	if (s) {
		memcpy(s, a, la);
		s[la] = sep;
		memcpy(s + la + 1, b, lb + 1);
	}
	return s;
}

/* Everything but the name's registration: runs on any thread (scenario_par.c). */
static int decode_podgroup(sc_ld *L, yu_node *item, uint32_t i)
{
	tph_sc_podgroup *pg = &L->sc->podgroups[i];
	tph_podgroup_desc *g = &pg->d;
	sc_begin_obj(L, "podGroup", item, true, i);
	pg->line = yu_line(&L->c, item);
	*g = (tph_podgroup_desc)TPH_PODGROUP_DESC_INIT;
	g->namespace_ = "default";
	g->queue = "default";
	int rc = yu_walk(&L->c, item, podgroup_fields,
	                 sizeof podgroup_fields / sizeof podgroup_fields[0], g);
	if (rc < 0)
		return rc;
	sc_note_creation(L, &g->creation);
	if (!g->uid && !(g->uid = sc_join(L, g->namespace_, '/', g->name)))
		return sc_nomem(L, item);
	return TPH_OK;
}

static int register_podgroup(sc_ld *L, yu_node *item, uint32_t i)
{
	const tph_podgroup_desc *g = &L->sc->podgroups[i].d;
	/* what sc_begin_obj names it, for an item that decoded */
	yu_set_obj(&L->c, "podGroup", g->namespace_, g->name, (long)i);
	L->c.depth = 0;
	return sc_register(L, &L->podgroups, item, g->namespace_, g->name, i, "podGroup");
}

int sc_load_podgroups(sc_ld *L, const yu_node *seq)
{
	if (!(L->sc->podgroups =
	          sc_alloc_items(L, seq, sizeof(tph_sc_podgroup), &L->sc->n_podgroups)))
		return TPH_ENOMEM;
	return sc_each_par(L, seq, "podGroups", decode_podgroup, register_podgroup,
	                   L->sc->podgroups, sizeof(tph_sc_podgroup));
}

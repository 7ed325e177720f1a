/* kai scenario sections `expect:` and `probe:` (kai-format.md, "Expectations"). Keys name pods
 * and podgroups by their bare name when their namespace is "" (sc_resolve); every reference is
 * resolved here and kept with the object's index for the checker. */
#include "kai_ld.h"

#include <math.h>
#include <string.h>

/* ---- expect --------------------------------------------------------------------------------- */

static int f_node(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_kai_task_exp *e = dst;
	e->has_node = true;
	return sc_resolve(c, v, REF_NODE, &e->node);
}

static int f_gpus(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_kai_task_exp *e = dst;
	e->has_gpus = true;
	int rc = yu_float(c, v, &e->accepted_gpus);
	if (rc == TPH_OK && e->accepted_gpus < 0)
		rc = yu_err(c, v, TPH_EINVAL, "must not be negative (\"%s\")", yu_sv(v));
	return rc;
}

static const int nonneg = 1;

static const yu_field task_fields[] = {
    YU_F("status", sc_kai_f_status, tph_sc_kai_task_exp, status, NULL, YU_REQUIRED),
    {"nodeName", f_node, 0, NULL, 0},
    {"acceptedGPUs", f_gpus, 0, NULL, 0},
    YU_F("lastStartTimestampOlderThan", sc_kai_f_ms, tph_sc_kai_task_exp, older_than_ms, &nonneg,
         0),
};

static int task_row(yu_ctx *c, yu_node *val, void *row)
{
	tph_sc_kai_task_exp *e = row;
	e->older_than_ms = -1;
	return yu_walk(c, val, task_fields, sizeof task_fields / sizeof task_fields[0], e);
}

static int f_tasks(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_kai_task_exps *out = dst;
	void *items = NULL;
	int rc = sc_keyed_rows(c, v, (ref_kind) * (const int *)aux, sizeof *out->items, task_row,
	                       &out->n, &items);
	out->items = items;
	out->present = true;
	return rc;
}

static int f_gpu_count(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	int rc = yu_float(c, v, dst);
	if (rc == TPH_OK && *(double *)dst < 0)
		rc = yu_err(c, v, TPH_EINVAL, "must not be negative (\"%s\")", yu_sv(v));
	return rc;
}

static const yu_field node_fields[] = {
    YU_F("idleGPUs", f_gpu_count, tph_sc_kai_node_exp, idle_gpus, NULL, 0),
    YU_F("releasingGPUs", f_gpu_count, tph_sc_kai_node_exp, releasing_gpus, NULL, 0),
};

static int node_row(yu_ctx *c, yu_node *val, void *row)
{
	tph_sc_kai_node_exp *e = row;
	e->idle_gpus = e->releasing_gpus = NAN;
	return yu_walk(c, val, node_fields, sizeof node_fields / sizeof node_fields[0], e);
}

static int f_nodes(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_kai_node_exps *out = dst;
	void *items = NULL;
	int rc = sc_keyed_rows(c, v, REF_NODE, sizeof *out->items, node_row, &out->n, &items);
	out->items = items;
	out->present = true;
	return rc;
}

static const yu_field expect_fields[] = {
    YU_F("tasks", f_tasks, tph_sc_kai_expect, tasks, &sc_ref_kinds[REF_POD], 0),
    YU_F("podGroups", f_tasks, tph_sc_kai_expect, podgroups, &sc_ref_kinds[REF_PODGROUP], 0),
    YU_F("nodes", f_nodes, tph_sc_kai_expect, nodes, NULL, 0),
    YU_F("binds", sc_f_binds, tph_sc_kai_expect, binds, NULL, 0),
    YU_F("evictions", sc_f_refs, tph_sc_kai_expect, evictions, &sc_ref_kinds[REF_POD], 0),
    YU_F("maxBinds", sc_f_count, tph_sc_kai_expect, max_binds, NULL, 0),
    YU_F("maxEvictions", sc_f_count, tph_sc_kai_expect, max_evictions, NULL, 0),
    YU_F("maxPipelined", sc_f_count, tph_sc_kai_expect, max_pipelined, NULL, 0),
    SC_VOLCANO_ONLY("bindCount"),
    SC_VOLCANO_ONLY("evictionCount"),
    SC_VOLCANO_ONLY("pipelined"),
    SC_VOLCANO_ONLY("podGroupPhases"),
    SC_VOLCANO_ONLY("taskStatusCounts"),
    SC_VOLCANO_ONLY("bindsPerHyperNode"),
    SC_VOLCANO_ONLY("bindAnnotations"),
};

int sc_kai_expect(sc_ld *L, const yu_node *map)
{
	tph_sc_kai_expect *e = &L->sc->kai->expect;
	yu_set_obj(&L->c, "expect", NULL, NULL, -1);
	L->c.depth = 0;
	e->present = L->sc->expect.present = true;
	e->loc = (tph_sc_loc){yu_line(&L->c, map), yu_col(&L->c, map)};
	return yu_walk(&L->c, map, expect_fields, sizeof expect_fields / sizeof expect_fields[0],
	               e);
}

/* ---- probe ---------------------------------------------------------------------------------- */

static const char *const kai_actions[] = {"reclaim", "preempt", NULL};

static int f_job(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return sc_resolve(c, v, REF_PODGROUP, dst);
}

static const yu_field filter_fields[] = {
    YU_F("action", yu_f_enum, tph_sc_kai_victim_filter, action, kai_actions, YU_REQUIRED),
    YU_F("preemptor", f_job, tph_sc_kai_victim_filter, preemptor, NULL, YU_REQUIRED),
    YU_F("victim", f_job, tph_sc_kai_victim_filter, victim, NULL, YU_REQUIRED),
    YU_F("allowed", yu_f_bool, tph_sc_kai_victim_filter, allowed, NULL, YU_REQUIRED),
};

static int read_filter(yu_ctx *c, yu_node *item, void *dst)
{
	tph_sc_kai_victim_filter *f = dst;
	f->loc = (tph_sc_loc){yu_line(c, item), yu_col(c, item)};
	return yu_walk(c, item, filter_fields, sizeof filter_fields / sizeof filter_fields[0], f);
}

static int f_filters(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_kai_probe *p = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof *p->victim_filters, &items, &p->n_victim_filters, read_filter);
	p->victim_filters = items;
	return rc;
}

/* victims: {job: [its pods]}; every pod must belong to that job. */
static int victim_row(yu_ctx *c, yu_node *val, void *row)
{
	tph_sc_kai_victim_job *j = row;
	int rc = sc_f_refs(c, val, &j->pods, &sc_ref_kinds[REF_POD]);
	const tph_sc_kai_podgroup *g = &sc_ld_of(c)->sc->kai->podgroups[j->job.idx];
	for (uint32_t i = 0; rc == TPH_OK && i < j->pods.n; i++) {
		const tph_pod_desc *p = &sc_ld_of(c)->sc->pods[j->pods.items[i].idx].d;
		if (p->pod_group && strcmp(p->pod_group, g->d.name) == 0 &&
		    strcmp(p->namespace_, g->d.namespace_) == 0)
			continue;
		yu_push_idx(c, (int32_t)i);
		rc = yu_err(c, yu_at(c, val->u.items[i]), TPH_EINVAL,
		            "pod %s is not in podGroup %s", p->name, g->d.name);
		yu_pop(c);
	}
	return rc;
}

static int f_victims(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_kai_scenario_valid *s = dst;
	void *items = NULL;
	int rc = sc_keyed_rows(c, v, REF_PODGROUP, sizeof *s->victims, victim_row, &s->n_victims,
	                       &items);
	s->victims = items;
	return rc;
}

static const yu_field valid_fields[] = {
    YU_F("action", yu_f_enum, tph_sc_kai_scenario_valid, action, kai_actions, YU_REQUIRED),
    YU_F("preemptor", f_job, tph_sc_kai_scenario_valid, preemptor, NULL, YU_REQUIRED),
    {"victims", f_victims, 0, NULL, YU_REQUIRED},
    YU_F("valid", yu_f_bool, tph_sc_kai_scenario_valid, valid, NULL, YU_REQUIRED),
};

static int read_valid(yu_ctx *c, yu_node *item, void *dst)
{
	tph_sc_kai_scenario_valid *s = dst;
	s->loc = (tph_sc_loc){yu_line(c, item), yu_col(c, item)};
	return yu_walk(c, item, valid_fields, sizeof valid_fields / sizeof valid_fields[0], s);
}

static int f_valid(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_kai_probe *p = dst;
	void *items = NULL;
	int rc = sc_seq(c, v, sizeof *p->scenario_valid, &items, &p->n_scenario_valid, read_valid);
	p->scenario_valid = items;
	return rc;
}

static int f_share(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_float(c, v, dst);
}

static const yu_field share_fields[] = {
    {"gpu", f_share, TPH_KAI_GPU * sizeof(double), NULL, 0},
    {"cpu", f_share, TPH_KAI_CPU * sizeof(double), NULL, 0},
    {"memory", f_share, TPH_KAI_MEMORY * sizeof(double), NULL, 0},
};

static int share_row(yu_ctx *c, yu_node *val, void *row)
{
	tph_sc_kai_fair_share *f = row;
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		f->share[d] = NAN;
	return yu_walk(c, val, share_fields, TPH_KAI_DIMS, f->share);
}

static int f_fair_shares(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_kai_probe *p = dst;
	void *items = NULL;
	int rc = sc_keyed_rows(c, v, REF_QUEUE, sizeof *p->fair_shares, share_row,
	                       &p->n_fair_shares, &items);
	p->fair_shares = items;
	return rc;
}

/* Two bases: Volcano-shaped probes go to the scenario's tph_sc_probe, KAI's to sc->kai->probe. */
typedef struct kai_probe_rd {
	tph_sc_probe *v;
	tph_sc_kai_probe *k;
} kai_probe_rd;

#define V(key, fn, member, aux)                                 \
	{                                                       \
		key, fn, offsetof(tph_sc_probe, member), aux, 0 \
	}

static const yu_field volcano_probe_fields[] = {
    V("nodeScores", sc_f_scores, node_scores, NULL),
    V("feasibleNodes", sc_f_keyed_nodes, feasible_nodes, &sc_ref_kinds[REF_POD]),
    V("jobOrder", sc_f_refs, job_order, &sc_ref_kinds[REF_PODGROUP]),
    V("taskOrder", sc_f_refs, task_order, &sc_ref_kinds[REF_POD]),
    V("queueOrder", sc_f_refs, queue_order, &sc_ref_kinds[REF_QUEUE]),
};

static const yu_field kai_probe_fields[] = {
    {"victimFilter", f_filters, 0, NULL, 0},
    {"scenarioValid", f_valid, 0, NULL, 0},
    YU_F("canReclaim", sc_f_flags, tph_sc_kai_probe, can_reclaim, &sc_ref_kinds[REF_PODGROUP], 0),
    {"fairShare", f_fair_shares, 0, NULL, 0},
};

#define N_VOLCANO (sizeof volcano_probe_fields / sizeof volcano_probe_fields[0])
#define N_KAI     (sizeof kai_probe_fields / sizeof kai_probe_fields[0])

/* One key of the probe: from whichever table has it (yu_walk takes a single base). */
static int probe_key(yu_ctx *c, const yu_node *k, yu_node *v, kai_probe_rd *r)
{
	const char *key = yu_sv(k);
	for (size_t i = 0; i < N_VOLCANO; i++)
		if (strcmp(key, volcano_probe_fields[i].key) == 0)
			return volcano_probe_fields[i].fn(
			    c, v, (char *)r->v + volcano_probe_fields[i].off,
			    volcano_probe_fields[i].aux);
	for (size_t i = 0; i < N_KAI; i++)
		if (strcmp(key, kai_probe_fields[i].key) == 0)
			return kai_probe_fields[i].fn(c, v, (char *)r->k + kai_probe_fields[i].off,
			                              kai_probe_fields[i].aux);
	return yu_err(c, k, TPH_EINVAL, "unknown field");
}

int sc_kai_probe(sc_ld *L, const yu_node *map)
{
	yu_ctx *c = &L->c;
	tph_sc_probe *p = &L->sc->probe;
	kai_probe_rd r = {p, &L->sc->kai->probe};
	yu_set_obj(c, "probe", NULL, NULL, -1);
	c->depth = 0;
	p->present = true;
	p->loc = (tph_sc_loc){yu_line(c, map), yu_col(c, map)};
	int rc = yu_want_map(c, map);
	if (rc == TPH_OK)
		rc = yu_check_unique_keys(c, map);
	for (uint32_t i = 0; rc == TPH_OK && i < map->len; i++) {
		const yu_node *k = yu_at(c, map->u.pairs[i].key);
		yu_node *v = yu_at(c, map->u.pairs[i].value);
		yu_push(c, yu_sv(k));
		rc = yu_is_null(v) ? TPH_OK : probe_key(c, k, v, &r);
		yu_pop(c);
	}
	return rc;
}

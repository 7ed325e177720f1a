/* Scenario sections `expect:` and `probe:`. Every key and value that names an object is
 * resolved here (an unknown pod, podgroup, queue or node is a located error) and kept as
 * written with the object's index, for the check command. */
#include "scenario_ld.h"

#include <stddef.h>
#include <string.h>

const char *const tph_sc_task_status_names[TPH_SC_TS_COUNT + 1] = {
    "Pending",   "Allocated", "Pipelined", "Binding", "Bound", "Running",
    "Releasing", "Succeeded", "Failed",    "Unknown", NULL,
};

static const char *const pg_phase_names[] = {"Pending", "Inqueue",   "Running",
                                             "Unknown", "Completed", NULL};

const int sc_ref_kinds[] = {REF_POD, REF_PODGROUP, REF_QUEUE, REF_NODE};
#define ref_kinds sc_ref_kinds
static const char *const ref_names[] = {"pod", "podGroup", "queue", "node"};

/* ---- references
 * ---------------------------------------------------------------------------------- */

static bool lookup(sc_ld *L, ref_kind kind, const char *s, size_t len, uint32_t *idx)
{
	if (kind == REF_QUEUE)
		return yu_map_get(&L->queues, s, len, NULL, 0, idx);
	if (kind == REF_NODE)
		return yu_map_get(&L->names, s, len, NULL, 0, idx) && !(*idx & SC_HN_BIT);
	const char *slash = memchr(s, '/', len);
	const yu_map *m = kind == REF_POD ? &L->pods : &L->podgroups;
	if (!slash) /* a kai key: the namespace is "" */
		return yu_map_get(m, "", 0, s, len, idx);
	size_t ns = (size_t)(slash - s);
	return yu_map_get(m, s, ns, slash + 1, len - ns - 1, idx);
}

int sc_resolve(yu_ctx *c, const yu_node *n, ref_kind kind, tph_sc_ref *out)
{
	sc_ld *L = sc_ld_of(c);
	bool keyed = (kind == REF_POD || kind == REF_PODGROUP) && !L->kai;
	int rc = yu_want_scalar(c, n, keyed ? "a namespace/name key" : "a name");
	if (rc < 0)
		return rc;
	const char *s = yu_sv(n);
	size_t len = n->len;
	const char *slash = memchr(s, '/', len);
	if (keyed && (!slash || slash == s || slash == s + len - 1 ||
	              memchr(slash + 1, '/', len - (size_t)(slash - s) - 1)))
		return yu_err(c, n, TPH_EINVAL, "\"%s\" is not a namespace/name key", s);
	if (!lookup(L, kind, s, len, &out->idx))
		return yu_err(c, n, TPH_ENOENT, "no %s \"%s\"", ref_names[kind], s);
	out->loc = (tph_sc_loc){yu_line(c, n), yu_col(c, n)};
	return yu_str(c, n, &out->key);
}

/* The pairs of a free-form mapping, keys checked to be unique scalars. */
static int pairs_of(yu_ctx *c, const yu_node *v, uint32_t *n, size_t size, void **items)
{
	int rc = yu_check_unique_keys(c, v);
	if (rc < 0)
		return rc;
	*n = (uint32_t)yu_map_len(v);
	*items = yu_alloc_array(c->arena, *n, size);
	return *items ? TPH_OK : yu_err(c, v, TPH_ENOMEM, "out of memory");
}

/* Key `i` of mapping `v` resolved into *key; the key is pushed on the path (pop it after). */
static int pair_key(yu_ctx *c, const yu_node *v, uint32_t i, ref_kind kind, tph_sc_ref *key,
                    yu_node **val)
{
	const yu_pair *p = &v->u.pairs[i];
	yu_node *k = yu_at(c, p->key);
	*val = yu_at(c, p->value);
	yu_push(c, yu_sv(k));
	return sc_resolve(c, k, kind, key);
}

int sc_keyed_rows(yu_ctx *c, const yu_node *v, ref_kind kind, size_t size, sc_row_fn fn,
                  uint32_t *n, void **items)
{
	int rc = pairs_of(c, v, n, size, items);
	for (uint32_t i = 0; rc == TPH_OK && i < *n; i++) {
		char *row = (char *)*items + i * size;
		yu_node *val;
		rc = pair_key(c, v, i, kind, (tph_sc_ref *)row, &val);
		if (rc == TPH_OK)
			rc = fn(c, val, row);
		yu_pop(c);
	}
	return rc;
}

_Static_assert(offsetof(tph_sc_keyed_nodes, key) == 0, "keyed rows start with their key");
_Static_assert(offsetof(tph_sc_flag, key) == 0, "keyed rows start with their key");
_Static_assert(offsetof(tph_sc_bind, pod) == 0, "keyed rows start with their key");
_Static_assert(offsetof(tph_sc_phase, podgroup) == 0, "keyed rows start with their key");
_Static_assert(offsetof(tph_sc_status_count, podgroup) == 0, "keyed rows start with their key");
_Static_assert(offsetof(tph_sc_score, node) == 0, "keyed rows start with their key");
_Static_assert(offsetof(tph_sc_score_row, pod) == 0, "keyed rows start with their key");
_Static_assert(offsetof(tph_sc_bind_ann, pod) == 0, "keyed rows start with their key");

/* A sequence of references; the same object twice is an error. */
static int read_refs(yu_ctx *c, const yu_node *v, ref_kind kind, tph_sc_refs *out)
{
	int rc = yu_want_seq(c, v);
	if (rc < 0)
		return rc;
	out->present = true;
	out->n = (uint32_t)yu_seq_len(v);
	out->items = yu_alloc_array(c->arena, out->n, sizeof *out->items);
	yu_map seen = {0};
	if (!out->items || yu_map_init(&seen, out->n) < 0)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	for (uint32_t i = 0; rc == TPH_OK && i < out->n; i++) {
		yu_node *item = yu_at(c, v->u.items[i]);
		yu_push_idx(c, (int32_t)i);
		rc = sc_resolve(c, item, kind, &out->items[i]);
		int put = rc < 0 ? 1 : yu_map_put(&seen, yu_sv(item), item->len, NULL, 0, i, NULL);
		if (put < 0)
			rc = yu_err(c, item, TPH_ENOMEM, "out of memory");
		else if (put == 0)
			rc = yu_err(c, item, TPH_EINVAL, "\"%s\" is listed twice", yu_sv(item));
		yu_pop(c);
	}
	yu_map_free(&seen);
	return rc;
}

int sc_f_refs(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return read_refs(c, v, (ref_kind) * (const int *)aux, dst);
}

static int node_list_row(yu_ctx *c, yu_node *val, void *row)
{
	return read_refs(c, val, REF_NODE, &((tph_sc_keyed_nodes *)row)->nodes);
}

/* key -> [nodes] (pipelined: podgroups; feasibleNodes: pods) */
int sc_f_keyed_nodes(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_keyed_nodes_list *out = dst;
	void *items = NULL;
	int rc = sc_keyed_rows(c, v, (ref_kind) * (const int *)aux, sizeof *out->items,
	                       node_list_row, &out->n, &items);
	out->items = items;
	out->present = true;
	return rc;
}

static int flag_row(yu_ctx *c, yu_node *val, void *row)
{
	return yu_bool(c, val, &((tph_sc_flag *)row)->value);
}

/* key -> bool (podgroups or queues) */
int sc_f_flags(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_flags *out = dst;
	void *items = NULL;
	int rc = sc_keyed_rows(c, v, (ref_kind) * (const int *)aux, sizeof *out->items, flag_row,
	                       &out->n, &items);
	out->items = items;
	out->present = true;
	return rc;
}

/* ---- expect
 * ---------------------------------------------------------------------------------------- */

static int bind_row(yu_ctx *c, yu_node *val, void *row)
{
	return sc_resolve(c, val, REF_NODE, &((tph_sc_bind *)row)->node);
}

int sc_f_binds(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_binds *out = dst;
	void *items = NULL;
	int rc = sc_keyed_rows(c, v, REF_POD, sizeof *out->items, bind_row, &out->n, &items);
	out->items = items;
	out->present = true;
	return rc;
}

int sc_f_count(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_int(c, v, 0, INT32_MAX, (int64_t *)dst);
}

static int phase_row(yu_ctx *c, yu_node *val, void *row)
{
	int phase = 0;
	int rc = yu_enum(c, val, pg_phase_names, &phase);
	((tph_sc_phase *)row)->phase = (tph_pg_phase)phase;
	return rc;
}

static int f_phases(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_phases *out = dst;
	void *items = NULL;
	int rc = sc_keyed_rows(c, v, REF_PODGROUP, sizeof *out->items, phase_row, &out->n, &items);
	out->items = items;
	out->present = true;
	return rc;
}

static int read_status_counts(yu_ctx *c, yu_node *v, void *row)
{
	tph_sc_status_count *sc = row;
	int rc = yu_check_unique_keys(c, v);
	for (int s = 0; s < TPH_SC_TS_COUNT; s++)
		sc->count[s] = -1;
	for (size_t i = 0; rc == TPH_OK && i < yu_map_len(v); i++) {
		const yu_pair *p = &v->u.pairs[i];
		int status;
		rc = yu_enum(c, yu_at(c, p->key), tph_sc_task_status_names, &status);
		yu_push(c, yu_sv(yu_at(c, p->key)));
		if (rc == TPH_OK)
			rc = yu_i32(c, yu_at(c, p->value), 0, INT32_MAX, &sc->count[status]);
		yu_pop(c);
	}
	return rc;
}

static int f_status_counts(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_status_counts *out = dst;
	void *items = NULL;
	int rc = sc_keyed_rows(c, v, REF_PODGROUP, sizeof *out->items, read_status_counts, &out->n,
	                       &items);
	out->items = items;
	out->present = true;
	return rc;
}

static int f_ints(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_ints *out = dst;
	int rc = yu_want_seq(c, v);
	if (rc < 0)
		return rc;
	out->present = true;
	out->n = (uint32_t)yu_seq_len(v);
	out->items = yu_alloc_array(c->arena, out->n, sizeof *out->items);
	if (!out->items)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	for (uint32_t i = 0; rc == TPH_OK && i < out->n; i++) {
		yu_push_idx(c, (int32_t)i);
		rc = yu_int(c, yu_at(c, v->u.items[i]), 0, INT32_MAX, &out->items[i]);
		yu_pop(c);
	}
	return rc;
}

static int bind_ann_row(yu_ctx *c, yu_node *val, void *row)
{
	return yu_kv_list(c, val, &((tph_sc_bind_ann *)row)->annotations);
}

/* pod -> {annotation key: exact value} */
static int f_bind_anns(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_bind_anns *out = dst;
	void *items = NULL;
	int rc = sc_keyed_rows(c, v, REF_POD, sizeof *out->items, bind_ann_row, &out->n, &items);
	out->items = items;
	out->present = true;
	return rc;
}

static const yu_field expect_fields[] = {
    YU_F("binds", sc_f_binds, tph_sc_expect, binds, NULL, 0),
    YU_F("bindCount", sc_f_count, tph_sc_expect, bind_count, NULL, 0),
    YU_F("evictions", sc_f_refs, tph_sc_expect, evictions, &ref_kinds[REF_POD], 0),
    YU_F("evictionCount", sc_f_count, tph_sc_expect, eviction_count, NULL, 0),
    YU_F("pipelined", sc_f_keyed_nodes, tph_sc_expect, pipelined, &ref_kinds[REF_PODGROUP], 0),
    YU_F("podGroupPhases", f_phases, tph_sc_expect, podgroup_phases, NULL, 0),
    YU_F("taskStatusCounts", f_status_counts, tph_sc_expect, task_status_counts, NULL, 0),
    YU_F("bindsPerHyperNode", f_ints, tph_sc_expect, binds_per_hypernode, NULL, 0),
    YU_F("bindAnnotations", f_bind_anns, tph_sc_expect, bind_annotations, NULL, 0),
    SC_KAI_ONLY("tasks"),
    SC_KAI_ONLY("podGroups"),
    SC_KAI_ONLY("nodes"),
    SC_KAI_ONLY("maxBinds"),
    SC_KAI_ONLY("maxEvictions"),
    SC_KAI_ONLY("maxPipelined"),
};

int sc_load_expect(sc_ld *L, const yu_node *map)
{
	tph_sc_expect *e = &L->sc->expect;
	yu_set_obj(&L->c, "expect", NULL, NULL, -1);
	L->c.depth = 0;
	e->present = true;
	e->loc = (tph_sc_loc){yu_line(&L->c, map), yu_col(&L->c, map)};
	return yu_walk(&L->c, map, expect_fields, sizeof expect_fields / sizeof expect_fields[0],
	               e);
}

/* ---- probe
 * ------------------------------------------------------------------------------------------ */

static int score_cell(yu_ctx *c, yu_node *val, void *cell)
{
	return yu_float(c, val, &((tph_sc_score *)cell)->score);
}

/* node -> score, the row of one pod */
static int score_row(yu_ctx *c, yu_node *val, void *row)
{
	tph_sc_score_row *r = row;
	void *items = NULL;
	int rc = sc_keyed_rows(c, val, REF_NODE, sizeof *r->items, score_cell, &r->n, &items);
	r->items = items;
	return rc;
}

int sc_f_scores(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_score_rows *out = dst;
	void *items = NULL;
	int rc = sc_keyed_rows(c, v, REF_POD, sizeof *out->items, score_row, &out->n, &items);
	out->items = items;
	out->present = true;
	return rc;
}

static int f_pod_ref(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return sc_resolve(c, v, REF_POD, dst);
}

typedef struct victims_raw {
	tph_sc_ref preemptor, reclaimer;
	tph_sc_refs candidates, preemptable, reclaimable;
} victims_raw;

static const yu_field victims_fields[] = {
    YU_F("preemptor", f_pod_ref, victims_raw, preemptor, NULL, 0),
    YU_F("reclaimer", f_pod_ref, victims_raw, reclaimer, NULL, 0),
    YU_F("candidates", sc_f_refs, victims_raw, candidates, &ref_kinds[REF_POD], YU_REQUIRED),
    YU_F("preemptable", sc_f_refs, victims_raw, preemptable, &ref_kinds[REF_POD], 0),
    YU_F("reclaimable", sc_f_refs, victims_raw, reclaimable, &ref_kinds[REF_POD], 0),
};

static int check_victims(yu_ctx *c, const yu_node *item, const victims_raw *r)
{
	bool pre = r->preemptor.key != NULL, rec = r->reclaimer.key != NULL;
	if (pre == rec)
		return yu_err(c, item, TPH_EINVAL, "give exactly one of preemptor and reclaimer");
	if (pre ? r->reclaimable.present : r->preemptable.present)
		return yu_err(c, item, TPH_EINVAL, "%s goes with %s",
		              pre ? "preemptor" : "reclaimer", pre ? "preemptable" : "reclaimable");
	if (!(pre ? r->preemptable.present : r->reclaimable.present))
		return yu_err(c, item, TPH_EINVAL, "%s needs the expected %s list",
		              pre ? "preemptor" : "reclaimer", pre ? "preemptable" : "reclaimable");
	return TPH_OK;
}

/* Every victim must be a candidate (checked with a set of candidate indices). */
static int check_subset(yu_ctx *c, const tph_sc_refs *cand, const tph_sc_refs *vic)
{
	yu_map set;
	if (yu_map_init(&set, cand->n) < 0)
		return tph_diag_set(c->d, TPH_ENOMEM, "out of memory");
	int rc = TPH_OK;
	for (uint32_t i = 0; i < cand->n && rc == TPH_OK; i++)
		if (yu_map_put(&set, cand->items[i].key, strlen(cand->items[i].key), NULL, 0, i,
		               NULL) < 0)
			rc = tph_diag_set(c->d, TPH_ENOMEM, "out of memory");
	for (uint32_t i = 0; i < vic->n && rc == TPH_OK; i++) {
		const tph_sc_ref *v = &vic->items[i];
		if (!yu_map_get(&set, v->key, strlen(v->key), NULL, 0, NULL))
			rc = tph_diag_set(c->d, TPH_EINVAL,
			                  "%s:%u:%u: probe: victim %s is not a candidate", c->file,
			                  v->loc.line, v->loc.col, v->key);
	}
	yu_map_free(&set);
	return rc;
}

static int read_victims(yu_ctx *c, yu_node *item, void *dst)
{
	tph_sc_victims *out = dst;
	victims_raw r = {0};
	int rc =
	    yu_walk(c, item, victims_fields, sizeof victims_fields / sizeof victims_fields[0], &r);
	if (rc == TPH_OK)
		rc = check_victims(c, item, &r);
	out->reclaim = r.reclaimer.key != NULL;
	out->actor = out->reclaim ? r.reclaimer : r.preemptor;
	out->candidates = r.candidates;
	out->victims = out->reclaim ? r.reclaimable : r.preemptable;
	out->loc = (tph_sc_loc){yu_line(c, item), yu_col(c, item)};
	return rc < 0 ? rc : check_subset(c, &out->candidates, &out->victims);
}

static int f_victims(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_victims_list *out = dst;
	void *items = NULL;
	out->present = true;
	int rc = sc_seq(c, v, sizeof *out->items, &items, &out->n, read_victims);
	out->items = items;
	return rc;
}

static const yu_field victim_tasks_fields[] = {
    YU_F("candidates", sc_f_refs, tph_sc_victim_tasks, candidates, &ref_kinds[REF_POD],
         YU_REQUIRED),
    YU_F("victims", sc_f_refs, tph_sc_victim_tasks, victims, &ref_kinds[REF_POD], YU_REQUIRED),
};

static int read_victim_tasks(yu_ctx *c, yu_node *item, void *dst)
{
	tph_sc_victim_tasks *out = dst;
	out->loc = (tph_sc_loc){yu_line(c, item), yu_col(c, item)};
	int rc = yu_walk(c, item, victim_tasks_fields,
	                 sizeof victim_tasks_fields / sizeof victim_tasks_fields[0], out);
	return rc < 0 ? rc : check_subset(c, &out->candidates, &out->victims);
}

static int f_victim_tasks(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_sc_victim_tasks_list *out = dst;
	void *items = NULL;
	out->present = true;
	int rc = sc_seq(c, v, sizeof *out->items, &items, &out->n, read_victim_tasks);
	out->items = items;
	return rc;
}

static const yu_field probe_fields[] = {
    YU_F("nodeScores", sc_f_scores, tph_sc_probe, node_scores, NULL, 0),
    YU_F("feasibleNodes", sc_f_keyed_nodes, tph_sc_probe, feasible_nodes, &ref_kinds[REF_POD], 0),
    YU_F("jobOrder", sc_f_refs, tph_sc_probe, job_order, &ref_kinds[REF_PODGROUP], 0),
    YU_F("taskOrder", sc_f_refs, tph_sc_probe, task_order, &ref_kinds[REF_POD], 0),
    YU_F("queueOrder", sc_f_refs, tph_sc_probe, queue_order, &ref_kinds[REF_QUEUE], 0),
    YU_F("jobEnqueueable", sc_f_flags, tph_sc_probe, job_enqueueable, &ref_kinds[REF_PODGROUP], 0),
    YU_F("jobReady", sc_f_flags, tph_sc_probe, job_ready, &ref_kinds[REF_PODGROUP], 0),
    YU_F("jobPipelined", sc_f_flags, tph_sc_probe, job_pipelined, &ref_kinds[REF_PODGROUP], 0),
    YU_F("jobStarving", sc_f_flags, tph_sc_probe, job_starving, &ref_kinds[REF_PODGROUP], 0),
    YU_F("jobValid", sc_f_flags, tph_sc_probe, job_valid, &ref_kinds[REF_PODGROUP], 0),
    YU_F("overused", sc_f_flags, tph_sc_probe, overused, &ref_kinds[REF_QUEUE], 0),
    YU_F("victims", f_victims, tph_sc_probe, victims, NULL, 0),
    YU_F("victimTasks", f_victim_tasks, tph_sc_probe, victim_tasks, NULL, 0),
    SC_KAI_ONLY("victimFilter"),
    SC_KAI_ONLY("scenarioValid"),
    SC_KAI_ONLY("canReclaim"),
    SC_KAI_ONLY("fairShare"),
};

int sc_load_probe(sc_ld *L, const yu_node *map)
{
	tph_sc_probe *p = &L->sc->probe;
	yu_set_obj(&L->c, "probe", NULL, NULL, -1);
	L->c.depth = 0;
	p->present = true;
	p->loc = (tph_sc_loc){yu_line(&L->c, map), yu_col(&L->c, map)};
	return yu_walk(&L->c, map, probe_fields, sizeof probe_fields / sizeof probe_fields[0], p);
}

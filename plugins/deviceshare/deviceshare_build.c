/* The session's devices, read once at open: each node's cards (gpushare from its capacity,
 * NewGPUDevices in gpushare/device_info.go; vGPU from volcano.sh/node-vgpu-register and its
 * allocatable, NewGPUDevices in vgpu/device_info.go), what each pod asks (its limits and
 * annotations) and holds (NodeInfo.AddTask at snapshot time), the exclusivity reservations
 * (wrapGPUDevicesForExclusivity), and which tasks of one shape ask alike. */
#include "deviceshare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tephra/alloc.h"

typedef struct ds_keys {
	tph_sid reg, unhealthy, index, ids, mode, spread, use, nouse, use_type, nouse_type, vgroup;
	tph_sid l_vnum, l_vmem, l_vcore, l_gmem, l_gnum;
	uint32_t d_vnum, d_vmem, d_vcore, d_gmem, d_gnum;
} ds_keys;

static tph_sid sid(const tph_session *s, const char *text)
{
	return tph_session_sid(s, text, strlen(text));
}

static void keys_init(ds_keys *k, const tph_session *s)
{
	k->reg = sid(s, "volcano.sh/node-vgpu-register");
	k->unhealthy = sid(s, "volcano.sh/gpu-unhealthy-ids");
	k->index = sid(s, "volcano.sh/gpu-index");
	k->ids = sid(s, "volcano.sh/vgpu-ids-new");
	k->mode = sid(s, "volcano.sh/vgpu-mode");
	k->spread = sid(s, "volcano.sh/vgpu-podgroup-policy");
	k->use = sid(s, "volcano.sh/vgpu-use-gpuuuid");
	k->nouse = sid(s, "volcano.sh/vgpu-nouse-gpuuuid");
	k->use_type = sid(s, "nvidia.com/use-gputype");
	k->nouse_type = sid(s, "nvidia.com/nouse-gputype");
	k->vgroup = sid(s, "scheduling.volcano.sh/group-name");
	k->l_vnum = sid(s, "volcano.sh/vgpu-number");
	k->l_vmem = sid(s, "volcano.sh/vgpu-memory");
	k->l_vcore = sid(s, "volcano.sh/vgpu-cores");
	k->l_gmem = sid(s, "volcano.sh/gpu-memory");
	k->l_gnum = sid(s, "volcano.sh/gpu-number");
	const char *d[] = {"volcano.sh/vgpu-number", "volcano.sh/vgpu-memory",
	                   "volcano.sh/vgpu-cores", "volcano.sh/gpu-memory",
	                   "volcano.sh/gpu-number"};
	uint32_t *out[] = {&k->d_vnum, &k->d_vmem, &k->d_vcore, &k->d_gmem, &k->d_gnum};
	for (int i = 0; i < 5; i++)
		*out[i] = tph_session_dim_find(s, d[i], strlen(d[i]));
}

static ds_str text_of(const tph_session *s, tph_sid id)
{
	const char *t = id == TPH_SID_NONE ? NULL : tph_session_str(s, id);
	return (ds_str){t ? t : "", t ? (uint32_t)strlen(t) : 0};
}

/* ---- quantities (exact units, as the cache keeps them) ---- */

/* Quantity.Value(): whole units, rounded up. */
static int64_t value_of(int64_t v, tph_res_unit unit)
{
	return unit == TPH_UNIT_BYTES ? v : v / 1000 + (v % 1000 > 0);
}

/* Quantity.AsInt64(): whole units when exact. */
static bool as_int64(int64_t v, tph_res_unit unit, int64_t *out)
{
	if (unit == TPH_UNIT_BYTES) {
		*out = v;
		return true;
	}
	if (v % 1000)
		return false;
	*out = v / 1000;
	return true;
}

static tph_res_unit unit_of(const tph_session *s, tph_sid name)
{
	ds_str t = text_of(s, name);
	return tph_res_unit_of(t.p, t.n);
}

/* A container limit (present or not) in exact units. */
static bool limit(const tph_pod_meta *m, tph_sid name, int64_t *v)
{
	for (uint32_t i = 0; m && name != TPH_SID_NONE && i < m->n_limits; i++)
		if (m->limits[i].name == name) {
			*v = m->limits[i].value;
			return true;
		}
	return false;
}

/* A node column value in whole units (0 when the dimension does not exist). */
static int64_t node_value(const tph_session *s, const int64_t *col, uint32_t d, tph_idx n)
{
	const tph_view *v = tph_view_of(s);
	if (d == TPH_NOIDX)
		return 0;
	return value_of(col[(size_t)d * v->nodes->stride + n], v->dims->unit[d]);
}

static tph_sid ann(const tph_labels *l, tph_sid key)
{
	return key == TPH_SID_NONE || !l ? TPH_SID_NONE : tph_labels_get(*l, key);
}

/* ---- nodes ---- */

/* gpushare: cards 0..n-1 of the capacity's memory / n each, less the unhealthy ones. */
static int gs_node(ds_st *st, tph_session *s, const ds_keys *k, tph_idx n, bool fill)
{
	const tph_view *v = tph_view_of(s);
	int64_t mem = node_value(s, v->nodes->capacity, k->d_gmem, n);
	int64_t num = node_value(s, v->nodes->capacity, k->d_gnum, n);
	if (mem <= 0 || num <= 0) /* an absent quantity reads 0 here: no devices either way */
		return 0;
	ds_str txt = text_of(s, ann(&v->nodes->meta[n]->annotations, k->unhealthy));
	uint32_t nb = ds_parse_unhealthy(txt, NULL, 0);
	int64_t *bad = nb ? tph_malloc(nb * sizeof *bad) : NULL;
	if (nb && !bad)
		return -1;
	ds_parse_unhealthy(txt, bad, nb);
	ds_node *nd = &st->nodes[n];
	uint32_t count = 0;
	for (int64_t id = 0; id < num; id++) {
		bool skip = false;
		for (uint32_t b = 0; b < nb && !skip; b++)
			skip = bad[b] == id;
		if (skip)
			continue;
		if (fill)
			st->cards[nd->first + count] = (ds_card){
			    .id = id, .memory = (uint64_t)(mem / num), .uuid_id = DS_NONE};
		count++;
	}
	tph_free(bad);
	if (!fill || !count)
		return (int)count;
	char text[320];
	const char *name = tph_session_node_name(s, n);
	snprintf(text, sizeof text, "GpuShare no enough gpu memory on node %s", name);
	nd->r_mem = tph_reason(s, text, false);
	snprintf(text, sizeof text, "GpuNumber no enough gpu number on node %s", name);
	nd->r_num = tph_reason(s, text, false);
	bool bad_code = nd->r_mem == TPH_REASON_INVALID || nd->r_num == TPH_REASON_INVALID;
	return bad_code ? -1 : (int)count;
}

/* vGPU: the register annotation's cards, when the node's allocatable lists all three vGPU
 * resources, none zero. */
static int vg_node(ds_st *st, tph_session *s, const ds_keys *k, tph_idx n, bool fill)
{
	const tph_view *v = tph_view_of(s);
	const int64_t *al = v->nodes->alloc;
	if (node_value(s, al, k->d_vnum, n) <= 0 || node_value(s, al, k->d_vcore, n) <= 0 ||
	    node_value(s, al, k->d_vmem, n) <= 0)
		return 0;
	tph_sid reg = ann(&v->nodes->meta[n]->annotations, k->reg);
	if (reg == TPH_SID_NONE)
		return 0;
	ds_str txt = text_of(s, reg);
	int count = ds_parse_register(txt, NULL, 0);
	if (count <= 0 || !fill)
		return count < 0 ? 0 : count;
	ds_reg_card *rc = tph_malloc((size_t)count * sizeof *rc);
	ds_node *nd = &st->nodes[n];
	nd->order = TPH_SESSION_NEW(s, uint32_t, (size_t)count);
	if (!rc || !nd->order) {
		tph_free(rc);
		return -1;
	}
	ds_parse_register(txt, rc, (uint32_t)count);
	for (int i = 0; i < count; i++)
		st->cards[nd->first + (uint32_t)i] = (ds_card){.uuid = rc[i].uuid,
		                                               .type = rc[i].type,
		                                               .number = rc[i].number,
		                                               .memory = rc[i].memory};
	tph_free(rc);
	return count;
}

/* Two passes over the nodes: count the cards, then fill them. */
static int read_nodes(ds_st *st, tph_session *s, const ds_keys *k)
{
	uint32_t nn = tph_view_of(s)->nodes->n;
	for (int pass = 0; pass < 2; pass++) {
		uint32_t total = 0;
		for (tph_idx n = 0; n < nn; n++) {
			ds_node *nd = &st->nodes[n];
			nd->first = total;
			int c = st->vgpu ? vg_node(st, s, k, n, pass) : gs_node(st, s, k, n, pass);
			if (c < 0)
				return TPH_ENOMEM;
			nd->n = (uint32_t)c;
			nd->kind = !c ? DS_KIND_NONE : st->vgpu ? DS_KIND_VGPU : DS_KIND_GPUSHARE;
			total += (uint32_t)c;
		}
		if (!pass && !(st->cards = TPH_SESSION_NEW(s, ds_card, (size_t)total + 1)))
			return TPH_ENOMEM;
		st->n_cards = total;
	}
	return TPH_OK;
}

/* ---- the card UUID and type tables: per-node loops compare ids, not text ---- */

static int str_cmp(const void *a, const void *b)
{
	const ds_str *x = a, *y = b;
	uint32_t m = x->n < y->n ? x->n : y->n;
	int c = m ? memcmp(x->p, y->p, m) : 0;
	return c ? c : (x->n > y->n) - (x->n < y->n);
}

static uint32_t find_str(const ds_str *tab, uint32_t n, ds_str s)
{
	const ds_str *hit = n ? bsearch(&s, tab, n, sizeof *tab, str_cmp) : NULL;
	return hit ? (uint32_t)(hit - tab) : DS_NONE;
}

/* Sort all[0..n) and keep each value once; the count. */
static uint32_t distinct(ds_str *all, uint32_t n)
{
	if (n)
		qsort(all, n, sizeof *all, str_cmp);
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!k || str_cmp(&all[k - 1], &all[i]))
			all[k++] = all[i];
	return k;
}

static int vg_tables(ds_st *st, tph_session *s)
{
	st->uuids = TPH_SESSION_NEW(s, ds_str, (size_t)st->n_cards + 1);
	st->types = TPH_SESSION_NEW(s, ds_str, (size_t)st->n_cards + 1);
	if (!st->uuids || !st->types)
		return TPH_ENOMEM;
	for (uint32_t c = 0; c < st->n_cards; c++) {
		st->uuids[c] = st->cards[c].uuid;
		st->types[c] = st->cards[c].type;
	}
	st->n_uuids = distinct(st->uuids, st->n_cards);
	st->n_types = distinct(st->types, st->n_cards);
	st->type_nvidia = TPH_SESSION_NEW(s, uint8_t, (size_t)st->n_types + 1);
	if (!st->type_nvidia)
		return TPH_ENOMEM;
	/* checkType: strings.Contains(card type, "NVIDIA"), the type every request asks */
	for (uint32_t i = 0; i < st->n_types; i++)
		st->type_nvidia[i] = ds_str_contains(st->types[i], (ds_str){"NVIDIA", 6});
	for (uint32_t c = 0; c < st->n_cards; c++) {
		st->cards[c].uuid_id = find_str(st->uuids, st->n_uuids, st->cards[c].uuid);
		st->cards[c].type_id = find_str(st->types, st->n_types, st->cards[c].type);
	}
	st->empty_uuid = find_str(st->uuids, st->n_uuids, (ds_str){"", 0});
	return TPH_OK;
}

/* ---- tasks ---- */

/* int32(x), as Go converts an int64. */
static int32_t i32(int64_t x)
{
	return (int32_t)(uint32_t)(uint64_t)x;
}

/* A request amount: the limit, else the request row (devices.ExtractResourceRequest reads
 * both through Quantity.AsInt64; a value that is not whole reads 0). */
static int32_t amount(const tph_session *s, const tph_pod_meta *m, tph_sid lim, uint32_t dim,
                      tph_idx t)
{
	const tph_view *v = tph_view_of(s);
	int64_t raw, out = 0;
	tph_res_unit u = unit_of(s, lim);
	if (limit(m, lim, &raw))
		return as_int64(raw, u, &out) ? i32(out) : 0;
	if (dim == TPH_NOIDX)
		return 0;
	raw = v->tasks->req[(size_t)t * v->ndim + dim];
	return as_int64(raw, v->dims->unit[dim], &out) ? i32(out) : 0;
}

/* The one container's request of vgpu resourcereqs (the default device config: count, memory
 * and cores names, no memory-percentage name). */
static void vg_request(const tph_session *s, const ds_keys *k, tph_idx t, ds_task *x)
{
	const tph_pod_meta *m = tph_view_of(s)->tasks->meta[t];
	int64_t num, mem;
	bool has_num = limit(m, k->l_vnum, &num), has_mem = limit(m, k->l_vmem, &mem);
	x->vg_ask = has_num || has_mem; /* checkVGPUResourcesInPod */
	if (!x->vg_ask)
		return;
	int64_t n = 1;
	if (has_num && !as_int64(num, unit_of(s, k->l_vnum), &n))
		n = 0;
	x->vg_nums = i32(n);
	x->vg_mem = amount(s, m, k->l_vmem, k->d_vmem, t);
	x->vg_pct = x->vg_mem == 0 ? 100 : 101;
	x->vg_core = amount(s, m, k->l_vcore, k->d_vcore, t);
}

/* getPodGroupKey: "namespace/" + the k8s group-name annotation, else the Volcano one. Keys
 * are string ids; one that names no interned string gets an id of its own from the top. */
static int group_of(ds_st *st, const tph_session *s, const ds_keys *k, tph_idx t, uint32_t *out)
{
	const tph_view *v = tph_view_of(s);
	*out = DS_NONE;
	if (v->tasks->group && v->tasks->group[t] != TPH_SID_NONE) {
		*out = v->tasks->group[t];
		return TPH_OK;
	}
	tph_sid g = ann(&v->tasks->meta[t]->annotations, k->vgroup);
	if (g == TPH_SID_NONE || g == TPH_SID_EMPTY)
		return TPH_OK;
	char buf[640];
	int len = snprintf(buf, sizeof buf, "%s/%s", tph_session_str(s, v->tasks->ns[t]),
	                   tph_session_str(s, g));
	tph_sid known = len > 0 && (size_t)len < sizeof buf ? tph_session_sid(s, buf, (size_t)len)
	                                                    : TPH_SID_NONE;
	if (known != TPH_SID_NONE) {
		*out = known;
		return TPH_OK;
	}
	tph_label key = {v->tasks->ns[t], g};
	uint32_t i = 0;
	while (i < st->n_syn && (st->syn[i].key != key.key || st->syn[i].value != key.value))
		i++;
	if (i == st->n_syn) {
		if (tph_grow(&st->syn, &st->cap_syn, st->n_syn + 1, sizeof *st->syn))
			return TPH_ENOMEM;
		st->syn[st->n_syn++] = key;
	}
	*out = DS_NONE - 1 - i;
	return TPH_OK;
}

static int push_uuids(ds_st *st, ds_str list, uint32_t *first, uint32_t *n)
{
	*n = ds_parse_uuids(list, NULL, 0);
	*first = st->n_uuid_ids;
	if (!*n)
		return TPH_OK;
	ds_str *tmp = tph_malloc(*n * sizeof *tmp);
	if (!tmp ||
	    tph_grow(&st->uuid_ids, &st->cap_uuid_ids, st->n_uuid_ids + *n, sizeof *st->uuid_ids)) {
		tph_free(tmp);
		return TPH_ENOMEM;
	}
	ds_parse_uuids(list, tmp, *n);
	for (uint32_t i = 0; i < *n; i++)
		st->uuid_ids[st->n_uuid_ids++] = find_str(st->uuids, st->n_uuids, tmp[i]);
	tph_free(tmp);
	return TPH_OK;
}

/* The vGPU search's steering annotations: mode, spread, UUID lists, card types. */
static int vg_steering(ds_st *st, tph_session *s, const ds_keys *k, tph_idx t, ds_task *x)
{
	const tph_labels *a = &tph_view_of(s)->tasks->meta[t]->annotations;
	x->a_mode = ann(a, k->mode);
	x->mode_ok =
	    x->a_mode == TPH_SID_NONE || !strcmp(tph_session_str(s, x->a_mode), "hami-core");
	tph_sid policy = ann(a, k->spread);
	bool spread = policy != TPH_SID_NONE && !strcmp(tph_session_str(s, policy), "spread");
	x->spread = spread ? x->group : DS_NONE;
	x->a_use = ann(a, k->use);
	x->a_nouse = ann(a, k->nouse);
	int rc = push_uuids(st, text_of(s, x->a_use), &x->allow, &x->n_allow);
	if (!rc)
		rc = push_uuids(st, text_of(s, x->a_nouse), &x->deny, &x->n_deny);
	x->a_use_type = ann(a, k->use_type);
	x->a_nouse_type = ann(a, k->nouse_type);
	if (rc || (x->a_use_type == TPH_SID_NONE && x->a_nouse_type == TPH_SID_NONE))
		return rc;
	uint8_t *ok = TPH_SESSION_NEW(s, uint8_t, (size_t)st->n_types + 1);
	if (!ok)
		return TPH_ENOMEM;
	const char *use = x->a_use_type == TPH_SID_NONE ? NULL : tph_session_str(s, x->a_use_type);
	const char *nouse =
	    x->a_nouse_type == TPH_SID_NONE ? NULL : tph_session_str(s, x->a_nouse_type);
	for (uint32_t i = 0; i < st->n_types; i++)
		ok[i] = ds_gpu_type_ok(use, nouse, st->types[i]);
	x->type_ok = ok;
	return TPH_OK;
}

/* Its own volcano.sh/vgpu-ids-new and volcano.sh/gpu-index. */
static int own_devices(ds_st *st, tph_session *s, const ds_keys *k, tph_idx t, ds_task *x)
{
	const tph_labels *a = &tph_view_of(s)->tasks->meta[t]->annotations;
	tph_sid ids = ann(a, k->ids), index = ann(a, k->index);
	x->has_ids = ids != TPH_SID_NONE;
	x->cdevs = st->n_cdevs;
	x->n_cdevs = x->has_ids ? ds_parse_ids(text_of(s, ids), NULL, 0) : 0;
	if (x->n_cdevs) {
		if (tph_grow(&st->cdevs, &st->cap_cdevs, st->n_cdevs + x->n_cdevs,
		             sizeof *st->cdevs))
			return TPH_ENOMEM;
		st->n_cdevs += ds_parse_ids(text_of(s, ids), st->cdevs + x->cdevs, x->n_cdevs);
	}
	x->gs_ids = DS_NONE;
	uint32_t n;
	if (index == TPH_SID_NONE || !ds_parse_index(text_of(s, index), NULL, 0, &n))
		return TPH_OK;
	if (tph_grow(&st->ids, &st->cap_ids, st->n_ids + n + 1, sizeof *st->ids))
		return TPH_ENOMEM;
	ds_parse_index(text_of(s, index), st->ids + st->n_ids, n, &n);
	x->gs_ids = st->n_ids;
	x->gs_n_ids = n;
	st->n_ids += n;
	return TPH_OK;
}

static bool matches_rule(const ds_st *st, const tph_labels *l, uint32_t r)
{
	for (uint32_t i = st->rule_off[r]; i < st->rule_off[r + 1]; i++) {
		const tph_label *kv = &st->rule_kv[i];
		if (kv->key == TPH_SID_NONE || kv->value == TPH_SID_NONE ||
		    tph_labels_get(*l, kv->key) != kv->value)
			return false;
	}
	return true;
}

static int read_task(ds_st *st, tph_session *s, const ds_keys *k, tph_idx t)
{
	const tph_view *v = tph_view_of(s);
	const tph_pod_meta *m = v->tasks->meta[t];
	ds_task *x = &st->t[t];
	*x = (ds_task){.gs_ids = DS_NONE,
	               .spread = DS_NONE,
	               .held = TPH_NOIDX,
	               .at = TPH_NOIDX,
	               .tracked = TPH_NOIDX,
	               .mode_ok = true};
	int64_t raw;
	if (limit(m, k->l_gmem, &raw))
		x->gs_mem = (uint64_t)value_of(raw, unit_of(s, k->l_gmem));
	if (limit(m, k->l_gnum, &raw))
		x->gs_num = value_of(raw, unit_of(s, k->l_gnum));
	int rc = group_of(st, s, k, t, &x->group);
	if (!rc && st->vgpu) {
		vg_request(s, k, t, x);
		rc = vg_steering(st, s, k, t, x);
	}
	if (!rc)
		rc = own_devices(st, s, k, t, x);
	for (uint32_t r = 0; r < st->n_rules; r++)
		if (matches_rule(st, &m->labels, r))
			st->rules[(size_t)t * st->rule_words + r / 64] |= (uint64_t)1 << (r % 64);
	bool gs = st->sharing || st->number;
	st->asks[t] = (st->vgpu && x->vg_ask) || (st->sharing && x->gs_mem > 0) ||
	              (st->number && x->gs_num > 0);
	x->relevant = (gs && (x->gs_mem > 0 || x->gs_num > 0)) ||
	              (st->vgpu && (x->has_ids || ds_rule_any(st, t)));
	return rc;
}

/* ---- tasks of one shape ask alike ---- */

static bool same_ask(const ds_st *st, tph_idx a, tph_idx b)
{
	const ds_task *x = &st->t[a], *y = &st->t[b];
	if (!st->asks[a] && !st->asks[b]) /* both pass everywhere and score 0 */
		return true;
	if (st->asks[a] != st->asks[b] || x->gs_mem != y->gs_mem || x->gs_num != y->gs_num ||
	    x->vg_ask != y->vg_ask || x->vg_nums != y->vg_nums || x->vg_mem != y->vg_mem ||
	    x->vg_core != y->vg_core || x->a_mode != y->a_mode || x->spread != y->spread ||
	    x->a_use != y->a_use || x->a_nouse != y->a_nouse || x->a_use_type != y->a_use_type ||
	    x->a_nouse_type != y->a_nouse_type)
		return false;
	for (uint32_t w = 0; st->n_rules && w < st->rule_words; w++)
		if (st->rules[(size_t)a * st->rule_words + w] !=
		    st->rules[(size_t)b * st->rule_words + w])
			return false;
	return true;
}

static const tph_view *sort_view; /* qsort has no context; open runs on one thread */

static uint32_t spec_id(const tph_view *v, tph_idx t)
{
	return v->tasks->spec[t] ? v->tasks->spec[t]->id : UINT32_MAX;
}

static int shape_order(const tph_view *v, tph_idx a, tph_idx b)
{
	uint32_t sa = spec_id(v, a), sb = spec_id(v, b);
	if (sa != sb)
		return sa < sb ? -1 : 1;
	return memcmp(v->tasks->req + (size_t)a * v->ndim, v->tasks->req + (size_t)b * v->ndim,
	              v->ndim * sizeof(int64_t));
}

static int shape_cmp(const void *pa, const void *pb)
{
	tph_idx a = *(const tph_idx *)pa, b = *(const tph_idx *)pb;
	int c = shape_order(sort_view, a, b);
	return c ? c : (a > b) - (a < b);
}

/* Filtering and scoring share a verdict between the Pending tasks of one job with one pod
 * spec and request row (the kernel's shapes); deviceshare also reads limits, annotations and
 * labels, so it marks the tasks of a shape whose asks differ. True when some do. */
static bool mark_uniform(ds_st *st, tph_session *s, tph_idx *buf)
{
	const tph_view *v = tph_view_of(s);
	bool mixed = false;
	for (uint32_t t = 0; t < v->tasks->n; t++)
		st->t[t].uniform = true;
	for (tph_idx j = 0; j < v->jobs->n; j++) {
		uint32_t n = 0;
		for (uint32_t i = v->jobs->task_off[j]; i < v->jobs->task_off[j + 1]; i++)
			if (v->tasks->status[v->jobs->task_idx[i]] == TPH_TS_PENDING)
				buf[n++] = v->jobs->task_idx[i];
		uint32_t i = 1;
		while (i < n && same_ask(st, buf[0], buf[i]))
			i++;
		if (i >= n)
			continue;
		sort_view = v;
		qsort(buf, n, sizeof *buf, shape_cmp);
		for (uint32_t a = 0, b; a < n; a = b) {
			bool alike = true;
			for (b = a + 1; b < n && !shape_order(v, buf[a], buf[b]); b++)
				alike &= same_ask(st, buf[a], buf[b]);
			for (uint32_t k = a; !alike && k < b; k++)
				st->t[buf[k]].uniform = false;
			mixed |= !alike;
		}
	}
	return mixed;
}

/* ---- what the pods on each node hold at open ---- */

/* wrapGPUDevicesForExclusivity: the cards each rule holds, from the pods a card's PodMap
 * lists, then (for a rule's pod no card lists, a Releasing one say) from its own
 * volcano.sh/vgpu-ids-new by exact UUID. */
static int reserve_rules(ds_st *st, tph_session *s)
{
	const tph_view *v = tph_view_of(s);
	for (tph_idx n = 0; n < v->nodes->n; n++) {
		ds_node *nd = &st->nodes[n];
		if (nd->kind == DS_KIND_VGPU &&
		    !(nd->rsv = TPH_SESSION_NEW(s, uint8_t, (size_t)st->n_rules * nd->n)))
			return TPH_ENOMEM;
	}
	for (tph_idx t = 0; t < v->tasks->n; t++) {
		tph_idx n = v->tasks->node[t];
		uint8_t ts = v->tasks->status[t];
		if (n != TPH_NOIDX && ts != TPH_TS_SUCCEEDED && ts != TPH_TS_FAILED &&
		    st->nodes[n].kind == DS_KIND_VGPU && ds_rule_any(st, t))
			st->t[t].tracked = n;
	}
	for (tph_idx t = 0; t < v->tasks->n; t++) {
		tph_idx n = st->t[t].tracked;
		if (n == TPH_NOIDX)
			continue;
		ds_node *nd = &st->nodes[n];
		const uint64_t *rw = st->rules + (size_t)t * st->rule_words;
		bool listed = false;
		for (uint32_t p = 0; p < nd->n; p++)
			listed |= ds_user_of(&st->cards[nd->first + p], t, false) != NULL;
		for (uint32_t p = 0; p < nd->n; p++) {
			bool hold = ds_user_of(&st->cards[nd->first + p], t, false) != NULL;
			for (uint32_t i = 0; !listed && !hold && i < st->t[t].n_cdevs; i++) {
				ds_str u = st->cdevs[st->t[t].cdevs + i].uuid;
				uint32_t q = 0;
				while (q < nd->n && !ds_str_eq(st->cards[nd->first + q].uuid, u))
					q++;
				hold = q == p;
			}
			for (uint32_t r = 0; hold && r < st->n_rules; r++)
				if (rw[r / 64] >> (r % 64) & 1)
					nd->rsv[(size_t)r * nd->n + p] = 1;
		}
	}
	return TPH_OK;
}

int ds_build(ds_st *st, tph_session *s)
{
	const tph_view *v = tph_view_of(s);
	ds_keys k;
	keys_init(&k, s);
	uint32_t nt = v->tasks->n;
	st->asks = TPH_SESSION_NEW(s, uint8_t, (size_t)nt + 1);
	st->t = TPH_SESSION_NEW(s, ds_task, (size_t)nt + 1);
	st->nodes = TPH_SESSION_NEW(s, ds_node, (size_t)v->nodes->n + 1);
	st->rules = TPH_SESSION_NEW(s, uint64_t, (size_t)nt * st->rule_words + 1);
	tph_idx *buf = TPH_SESSION_NEW(s, tph_idx, (size_t)nt + 1);
	if (!st->asks || !st->t || !st->nodes || !st->rules || !buf)
		return TPH_ENOMEM;
	int rc = read_nodes(st, s, &k);
	if (!rc && st->vgpu)
		rc = vg_tables(st, s);
	for (tph_idx t = 0; !rc && t < nt; t++)
		rc = read_task(st, s, &k, t);
	for (tph_idx t = 0; !rc && t < nt; t++)
		if (v->tasks->node[t] != TPH_NOIDX && tph_ts_allocated(v->tasks->status[t]))
			rc = ds_hold(st, t, v->tasks->node[t]);
	if (!rc && st->vgpu && st->n_rules)
		rc = reserve_rules(st, s);
	for (tph_idx n = 0; !rc && n < v->nodes->n; n++)
		if (st->nodes[n].kind == DS_KIND_VGPU)
			ds_vg_reorder(st, &st->nodes[n]);
	/* the task's device ask is read from its limits and annotations, which a class shares only
	 * when mark_uniform finds its tasks alike */
	if (!rc)
		rc = tph_declare_predicate_locality(s, mark_uniform(st, s, buf) ? TPH_PRED_GLOBAL
		                                                                : TPH_PRED_LOCAL);
	return rc;
}

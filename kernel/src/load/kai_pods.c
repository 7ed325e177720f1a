/* kai scenario section `pods:`: the Kubernetes part of a pod (into the scenario's pod list, as a
 * tph_pod_desc) and KAI's (into sc->kai->pods, a tph_kai_pod_desc): status, GPU request
 * annotations, GPU groups, scheduler name, and the sub-group and task-priority labels. */
#include "kai_ld.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct kai_pod_rd {
	tph_pod_desc d;
	tph_kai_pod_desc k;
} kai_pod_rd;

static const char *const pod_phases[] = {"Pending", "Running", "Succeeded",
                                         "Failed",  "Unknown", NULL};

/* ---- annotations and labels that KAI reads -------------------------------------------------- */

/* Annotation and label values are strings, quoted or not: KAI parses their text. */
static int text_float(yu_ctx *c, const yu_node *v, double *out)
{
	const char *s = yu_sv(v);
	char *end;
	int rc = yu_want_scalar(c, v, "a number");
	if (rc < 0)
		return rc;
	*out = strtod(s, &end);
	if (!v->len || *end || isspace((unsigned char)s[0]) || !isfinite(*out))
		return yu_err(c, v, TPH_EINVAL, "not a number (\"%s\")", s);
	return TPH_OK;
}

static int text_int(yu_ctx *c, const yu_node *v, int64_t lo, int64_t hi, int64_t *out)
{
	const char *s = yu_sv(v);
	char *end;
	int rc = yu_want_scalar(c, v, "an integer");
	if (rc < 0)
		return rc;
	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (!v->len || *end || isspace((unsigned char)s[0]) || errno || x < lo || x > hi)
		return yu_err(c, v, TPH_EINVAL, "not an integer in [%lld, %lld] (\"%s\")",
		              (long long)lo, (long long)hi, s);
	*out = x;
	return TPH_OK;
}

static int f_fraction(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	double f;
	int rc = text_float(c, v, &f);
	if (rc == TPH_OK && f > 0 && f <= 1)
		*(double *)dst = f;
	else if (rc == TPH_OK)
		yu_warn(c, v, "a GPU fraction is in (0, 1]: %s is ignored", yu_sv(v));
	return rc;
}

static int f_mib(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return text_int(c, v, 0, INT32_MAX, dst);
}

static int f_devices(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	int64_t n = 0;
	int rc = text_int(c, v, 1, INT32_MAX, &n);
	*(int32_t *)dst = (int32_t)n;
	return rc;
}

static int f_received(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	static const char *const names[] = {"Regular", "Fraction", "MigInstance", NULL};
	int which;
	int rc = yu_enum(c, v, names, &which);
	if (rc == TPH_OK)
		*(tph_kai_received *)dst = (tph_kai_received)(which + 1);
	return rc;
}

static int f_task_priority(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	tph_kai_pod_desc *k = dst;
	int64_t x = 0;
	k->has_task_priority = true;
	int rc = text_int(c, v, INT32_MIN, INT32_MAX, &x);
	k->task_priority = (int32_t)x;
	return rc;
}

static int f_subgroup_label(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	return yu_name(c, v, dst);
}

/* Known keys of a free-form map read with `fn` into the KAI part; the rest is kept as is. */
typedef struct known_key {
	const char *key;
	yu_field_fn fn;
	size_t off; /* in tph_kai_pod_desc */
} known_key;

static const known_key annotation_keys[] = {
    {"gpu-fraction", f_fraction, offsetof(tph_kai_pod_desc, gpu_fraction)},
    {"gpu-memory", f_mib, offsetof(tph_kai_pod_desc, gpu_memory_mib)},
    {"gpu-fraction-num-devices", f_devices, offsetof(tph_kai_pod_desc, gpu_devices)},
    {"received-resource-type", f_received, offsetof(tph_kai_pod_desc, received)},
};

static const known_key label_keys[] = {
    {"kai.scheduler/subgroup-name", f_subgroup_label, offsetof(tph_kai_pod_desc, subgroup)},
    {"kai.scheduler/task-priority", f_task_priority, 0},
};

static int read_known(yu_ctx *c, yu_node *v, const known_key *keys, size_t n, void *k)
{
	int rc = TPH_OK;
	for (size_t i = 0; rc == TPH_OK && i < n; i++) {
		yu_node *x = yu_map_find(c, v, keys[i].key);
		if (!x || yu_is_null(x))
			continue;
		yu_push(c, keys[i].key);
		rc = keys[i].fn(c, x, (char *)k + keys[i].off, NULL);
		yu_pop(c);
	}
	return rc;
}

/* A legacy MIG pod: an annotation named after a MIG resource, with the instances it asks for
 * (KAI's updateLegacyMigResourceRequestFromAnnotations). KAI skips a value that is no integer
 * and, with two such annotations, keeps one in Go map order: both are errors here. */
static int read_legacy_mig(yu_ctx *c, const yu_node *v, const tph_kv_list *kept,
                           tph_kai_pod_desc *k)
{
	static const char prefix[] = "nvidia.com/mig-";
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < v->len; i++) {
		const yu_node *key = yu_at(c, v->u.pairs[i].key);
		if (strncmp(yu_sv(key), prefix, sizeof prefix - 1) != 0)
			continue;
		yu_push(c, yu_sv(key));
		if (k->legacy_mig)
			rc = yu_err(
			    c, key, TPH_EINVAL,
			    "a second legacy MIG annotation (the first is %s): KAI would keep "
			    "one of them at random",
			    k->legacy_mig);
		else
			rc = text_int(c, yu_at(c, v->u.pairs[i].value), 0, INT32_MAX,
			              &k->legacy_mig_count);
		k->legacy_mig = kept->items[i].key; /* the loader's copy outlives the document */
		yu_pop(c);
	}
	return rc;
}

static int f_annotations(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	kai_pod_rd *r = dst;
	int rc = yu_kv_list(c, v, &r->d.annotations);
	if (rc == TPH_OK)
		rc = read_known(c, v, annotation_keys,
		                sizeof annotation_keys / sizeof annotation_keys[0], &r->k);
	return rc < 0 ? rc : read_legacy_mig(c, v, &r->d.annotations, &r->k);
}

static int f_labels(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	kai_pod_rd *r = dst;
	int rc = yu_kv_list(c, v, &r->d.labels);
	return rc < 0
	           ? rc
	           : read_known(c, v, label_keys, sizeof label_keys / sizeof label_keys[0], &r->k);
}

static const yu_field pod_fields[] = {
    YU_F("name", yu_f_name, kai_pod_rd, d.name, NULL, YU_REQUIRED),
    YU_F("namespace", yu_f_name, kai_pod_rd, d.namespace_, NULL, 0),
    YU_F("podGroup", yu_f_name, kai_pod_rd, d.pod_group, NULL, 0),
    YU_F("status", sc_kai_f_status, kai_pod_rd, k.status, NULL, 0),
    YU_F("phase", yu_f_enum, kai_pod_rd, d.phase, pod_phases, 0),
    YU_F("deleting", yu_f_bool, kai_pod_rd, d.deleting, NULL, 0),
    YU_F("nodeName", yu_f_name, kai_pod_rd, d.node_name, NULL, 0),
    YU_F("requests", yu_f_res, kai_pod_rd, d.requests, NULL, 0),
    {"labels", f_labels, 0, NULL, 0},
    {"annotations", f_annotations, 0, NULL, 0},
    YU_F("gpuGroups", yu_f_strs, kai_pod_rd, k.gpu_groups, NULL, 0),
    YU_F("schedulerName", yu_f_name, kai_pod_rd, k.scheduler_name, NULL, 0),
    YU_F("nominatedNodeName", yu_f_name, kai_pod_rd, d.nominated_node, NULL, 0),
    YU_F("creationTimestamp", yu_f_time, kai_pod_rd, d.creation, NULL, 0),
    YU_F("nodeSelector", yu_f_kv, kai_pod_rd, d.node_selector, NULL, 0),
    YU_F("affinity", sc_f_affinity, kai_pod_rd, d, NULL, 0),
    YU_F("tolerations", sc_f_tolerations, kai_pod_rd, d, NULL, 0),
    SC_VOLCANO_ONLY("taskSpec"),
    SC_VOLCANO_ONLY("preemptable"),
};

/* ---- references ----------------------------------------------------------------------------- */

static bool is_node(sc_ld *L, const char *name)
{
	uint32_t v;
	return yu_map_get(&L->names, name, strlen(name), NULL, 0, &v);
}

static const tph_kai_podgroup_desc *podgroup_of(sc_ld *L, const tph_pod_desc *p)
{
	uint32_t i;
	if (!p->pod_group || !yu_map_get(&L->podgroups, p->namespace_, strlen(p->namespace_),
	                                 p->pod_group, strlen(p->pod_group), &i))
		return NULL;
	return &L->sc->kai->podgroups[i].d;
}

static bool has_pod_set(const tph_kai_podgroup_desc *g, const char *name)
{
	if (!g->n_subgroups)
		return strcmp(name, "default") == 0;
	for (uint32_t i = 0; i < g->n_subgroups; i++) {
		bool leaf = true;
		for (uint32_t j = 0; j < g->n_subgroups && leaf; j++)
			leaf = !g->subgroups[j].parent ||
			       strcmp(g->subgroups[j].parent, g->subgroups[i].name) != 0;
		if (leaf && strcmp(g->subgroups[i].name, name) == 0)
			return true;
	}
	return false;
}

/* nodeName must name a node; the rest (a missing podgroup or pod set, an unknown nominated
 * node) makes the pod unschedulable in KAI, so it is a warning here. */
static int check_refs(sc_ld *L, const yu_node *item, const kai_pod_rd *r)
{
	yu_ctx *c = &L->c;
	if (r->d.node_name && !is_node(L, r->d.node_name)) {
		yu_push(c, "nodeName");
		return yu_err(c, yu_map_find(c, item, "nodeName"), TPH_ENOENT, "no node \"%s\"",
		              r->d.node_name);
	}
	if (r->d.nominated_node && !is_node(L, r->d.nominated_node))
		yu_warn(c, yu_map_find(c, item, "nominatedNodeName"), "no node \"%s\"; ignored",
		        r->d.nominated_node);
	const tph_kai_podgroup_desc *g = podgroup_of(L, &r->d);
	const char *set = r->k.subgroup ? r->k.subgroup : "default";
	if (r->d.pod_group && !g)
		yu_warn(c, yu_map_find(c, item, "podGroup"),
		        "no podGroup \"%s\": the pod is never scheduled", r->d.pod_group);
	else if (g && !has_pod_set(g, set))
		yu_warn(c, item, "podGroup %s has no pod set \"%s\": the pod is never scheduled",
		        g->name, set);
	return TPH_OK;
}

static int read_pod(sc_ld *L, yu_node *item, uint32_t i)
{
	kai_pod_rd r = {.d = TPH_POD_DESC_INIT, .k = TPH_KAI_POD_DESC_INIT};
	r.d.namespace_ = "";
	yu_set_obj(&L->c, "pod", sc_peek(L, item, "namespace"), sc_peek(L, item, "name"), (long)i);
	L->c.depth = 0;
	int rc = yu_walk(&L->c, item, pod_fields, sizeof pod_fields / sizeof pod_fields[0], &r);
	if (rc == TPH_OK)
		rc = check_refs(L, item, &r);
	if (rc < 0)
		return rc;
	sc_note_creation(L, &r.d.creation);
	L->sc->pods[i] = (tph_sc_pod){.d = r.d, .line = yu_line(&L->c, item)};
	L->sc->kai->pods[i] = r.k;
	return sc_register(L, &L->pods, item, r.d.namespace_, r.d.name, i, "pod");
}

int sc_kai_pods(sc_ld *L, const yu_node *seq)
{
	uint32_t n;
	if (!(L->sc->pods = sc_alloc_items(L, seq, sizeof(tph_sc_pod), &L->sc->n_pods)) ||
	    !(L->sc->kai->pods = sc_alloc_items(L, seq, sizeof(tph_kai_pod_desc), &n)))
		return TPH_ENOMEM;
	return sc_each(L, seq, "pods", read_pod);
}

/* The Kubernetes part of a KAI snapshot: node labels and taints, pods' node selectors, required
 * node affinity, tolerations, pod (anti-)affinity terms, labels and namespaces, interned once by
 * the cluster cache's own machinery (a private tph_cluster the snapshot keeps), so the predicates
 * plugin matches ids with tephra/k8s.h and never strings; plus the per-node facts KAI's predicates
 * read from labels (MIG mode, worker roles, max pods, the integer values Gt/Lt requirements
 * compare) and whether a pod asks for a MIG profile. */
#include "cluster_int.h"
#include "base/mem.h"
#include "kai_snap.h"
#include "tephra/args.h"

#include <stdio.h>
#include <string.h>

static const char *label_of(const tph_kv_list *l, const char *key)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].key, key) == 0)
			return l->items[i].value;
	return NULL;
}

static bool has_mig_resource(const tph_res_list *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (strncmp(l->items[i].name, "nvidia.com/mig-", 15) == 0 && l->items[i].value > 0)
			return true;
	return false;
}

/* strconv.ParseBool's true spellings; anything else (false or unparsable) is false. */
static bool go_true(const char *v)
{
	static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
		if (strcmp(v, yes[i]) == 0)
			return true;
	return false;
}

/* NodeInfo.IsMIGEnabled, then GetMigStrategy. */
static uint8_t mig_mode(const tph_node_desc *n)
{
	const char *en = label_of(&n->labels, "node-role.kubernetes.io/mig-enabled");
	if (en ? !go_true(en) : !has_mig_resource(&n->allocatable))
		return TPH_KAI_MIG_OFF;
	const char *st = label_of(&n->labels, "nvidia.com/mig.strategy");
	if (st && strcmp(st, "single") == 0)
		return TPH_KAI_MIG_SINGLE;
	return st && strcmp(st, "mixed") == 0 ? TPH_KAI_MIG_MIXED : TPH_KAI_MIG_NONE;
}

static int64_t max_pods(const tph_res_list *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].name, "pods") == 0)
			return l->items[i].value / 1000;
	return -1;
}

static int nodes_k8s(tph_cluster *cl, tph_arena *a, const tph_kai_cluster_desc *c,
                     tph_kai_nodes *nd, tph_diag *d)
{
	uint32_t n = c->n_nodes;
	uint8_t *unsched = tph_arena_calloc(a, (size_t)n + 1, 1, 8);
	uint8_t *mig = tph_arena_calloc(a, (size_t)n + 1, 1, 8);
	uint8_t *workers = tph_arena_calloc(a, (size_t)n + 1, 1, 8);
	int64_t *pods = tph_arena_calloc(a, (size_t)n + 1, sizeof *pods, 8);
	const tph_node_meta **meta = tph_arena_calloc(a, (size_t)n + 1, sizeof *meta, 8);
	if (!unsched || !mig || !workers || !pods || !meta)
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	for (uint32_t i = 0; i < n; i++) {
		const tph_node_desc *x = &c->nodes[i];
		char obj[160];
		snprintf(obj, sizeof obj, "kai snapshot: node %s", x->name);
		int rc = tph_intern_node_meta(cl, x, NULL, obj, &meta[i], d);
		if (rc < 0)
			return rc;
		unsched[i] = x->unschedulable;
		mig[i] = mig_mode(x);
		pods[i] = max_pods(&x->allocatable);
		workers[i] =
		    (label_of(&x->labels, "node-role.kubernetes.io/gpu-worker") ? TPH_KAI_GPU_WORKER
		                                                                : 0) |
		    (label_of(&x->labels, "node-role.kubernetes.io/cpu-worker") ? TPH_KAI_CPU_WORKER
		                                                                : 0);
	}
	nd->unschedulable = unsched, nd->max_pods = pods, nd->mig = mig, nd->workers = workers;
	nd->meta = meta;
	return TPH_OK;
}

static int tasks_k8s(tph_cluster *cl, tph_arena *a, const tph_kai_cluster_desc *c, tph_kai_tasks *t,
                     tph_diag *d)
{
	uint32_t n = c->n_pods;
	const tph_pod_spec **spec = tph_arena_calloc(a, (size_t)n + 1, sizeof *spec, 8);
	const tph_pod_meta **meta = tph_arena_calloc(a, (size_t)n + 1, sizeof *meta, 8);
	tph_sid *ns = tph_arena_calloc(a, (size_t)n + 1, sizeof *ns, 8);
	uint8_t *mig = tph_arena_calloc(a, (size_t)n + 1, 1, 8);
	if (!spec || !meta || !ns || !mig)
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	for (uint32_t i = 0; i < n; i++) {
		const tph_pod_desc *p = &c->pods[i];
		char obj[160];
		snprintf(obj, sizeof obj, "kai snapshot: pod %s/%s",
		         p->namespace_ ? p->namespace_ : "", p->name);
		int rc = tph_intern_pod_spec(cl, p, obj, &spec[i], d);
		if (rc == TPH_OK)
			rc = tph_intern_pod_meta(cl, p, obj, &meta[i], d);
		if (rc < 0)
			return rc;
		ns[i] = tph_strtab_intern_cstr(&cl->strs, p->namespace_ ? p->namespace_ : "");
		if (ns[i] == TPH_SID_NONE)
			return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
		mig[i] =
		    has_mig_resource(&p->requests) || (c->kai_pods && c->kai_pods[i].legacy_mig);
	}
	t->spec = spec, t->mig = mig, t->meta = meta, t->ns = ns;
	return TPH_OK;
}

/* Every label key a Gt/Lt node requirement of some task names, once, into *keys (tph_grow);
 * how many, or TPH_ENOMEM. */
static int64_t gt_lt_keys(const tph_kai_tasks *t, tph_sid **keys)
{
	uint32_t n = 0, cap = 0;
	for (uint32_t i = 0; i < t->n; i++) {
		const tph_pod_spec *sp = t->spec[i];
		for (uint32_t r = 0; r < sp->n_node_required; r++)
			for (uint32_t e = 0; e < sp->node_required[r].n; e++) {
				const tph_expr_row *x = &sp->node_required[r].exprs[e];
				bool seen = x->op != TPH_SEL_GT && x->op != TPH_SEL_LT;
				for (uint32_t k = 0; k < n && !seen; k++)
					seen = (*keys)[k] == x->key;
				if (seen)
					continue;
				if (tph_grow(keys, &cap, n + 1, sizeof **keys))
					return TPH_ENOMEM;
				(*keys)[n++] = x->key;
			}
	}
	return n;
}

/* strconv.ParseInt(label, 10, 64) of each node's value for those keys, as the Volcano
 * flavour's k8s view does. */
static int label_nums(const tph_cluster *cl, tph_arena *a, tph_kai_nodes *nd,
                      const tph_kai_tasks *t, tph_diag *d)
{
	tph_sid *keys = NULL;
	int64_t got = gt_lt_keys(t, &keys);
	uint32_t nk = got < 0 ? 0 : (uint32_t)got, n = nd->n;
	tph_k8s_nums *m = tph_arena_calloc(a, 1, sizeof *m, 8);
	int64_t *val = tph_arena_calloc(a, (size_t)nk * n + 1, sizeof *val, 8);
	uint8_t *ok = tph_arena_calloc(a, (size_t)nk * n + 1, 1, 8);
	tph_sid *k_ids = tph_arena_calloc(a, (size_t)nk + 1, sizeof *k_ids, 8);
	if (got < 0 || !m || !val || !ok || !k_ids) {
		tph_free(keys);
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	}
	for (uint32_t k = 0; k < nk; k++) {
		k_ids[k] = keys[k];
		for (uint32_t i = 0; i < n; i++) {
			tph_sid v = tph_labels_get(nd->meta[i]->labels, keys[k]);
			size_t at = (size_t)k * n + i;
			ok[at] = v != TPH_SID_NONE &&
			         tph_parse_int(tph_strtab_str(&cl->strs, v), 64, &val[at]);
		}
	}
	tph_free(keys);
	*m = (tph_k8s_nums){nk, k_ids, val, ok, n};
	nd->label_nums = m;
	return TPH_OK;
}

int tph_kai_snap_k8s(tph_arena *a, const tph_kai_cluster_desc *c, tph_kai_nodes *nd,
                     tph_kai_tasks *t, tph_cluster **out, tph_diag *d)
{
	if (tph_cluster_create(out) < 0)
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	int rc = nodes_k8s(*out, a, c, nd, d);
	if (rc == TPH_OK)
		rc = tasks_k8s(*out, a, c, t, d);
	return rc < 0 ? rc : label_nums(*out, a, nd, t, d);
}

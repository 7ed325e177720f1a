/* `tephra import kube`: the cluster-wide objects as the scheduler's cache reads them (Volcano's
 * pkg/scheduler/api/node_info.go, queue_info.go; its hypernode, priority class, quota and PDB
 * informers). Fields the scheduler does not read are ignored, whatever they hold. */
#include "kube.h"

#include "../cli.h"

#include <string.h>

/* Scenario keys without a Kubernetes home that export keeps in a node's annotations. */
static const char *const node_carried[] = {KUBE_ANN_PREFIX "usage", KUBE_ANN_PREFIX "numa", NULL};

/* NodeInfo.setNodeState: only a Ready condition whose status is not True makes a node
 * NotReady; a node without one is ready. */
static int node_ready(yu_ctx *c, const yu_node *obj, bool *ready)
{
	const yu_node *conds = kget(c, obj, "status.conditions");
	*ready = true;
	if (!conds)
		return TPH_OK;
	char store[32];
	int pushed = kpush(c, "status.conditions", store, sizeof store);
	int rc = yu_want_seq(c, conds);
	for (uint32_t i = 0; rc == TPH_OK && i < conds->len; i++) {
		const yu_node *cond = yu_at(c, conds->u.items[i]);
		const char *type = kstr(c, cond, "type"), *status = kstr(c, cond, "status");
		if (type && !strcmp(type, "Ready"))
			*ready = status && !strcmp(status, "True");
	}
	kpop(c, pushed);
	return rc;
}

static const kfield taint_fields[] = {
    {"key", "key", kl_scalar, NULL},
    {"value", "value", kl_scalar, NULL},
    {"effect", "effect", kl_scalar, NULL},
};
static const kfields taints = KFIELDS(taint_fields);

static const kfield image_fields[] = {
    {"names", "names", kl_tree, NULL},
    {"sizeBytes", "sizeBytes", kl_plain, "an integer"},
};
static const kfields images = KFIELDS(image_fields);

/* A value export kept in an annotation: one line of JSON, written as the scenario key. */
static int carried_value(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux)
{
	(void)aux;
	int rc = yu_want_scalar(c, v, "a string");
	if (rc == TPH_OK && strpbrk(yu_sv(v), "\n\r"))
		rc = yu_err(c, v, TPH_EINVAL, "expected one line of JSON");
	if (rc == TPH_OK)
		kl_raw(l, key, yu_sv(v));
	return rc;
}

static int node_carried_keys(kl *l, yu_ctx *c, const yu_node *obj)
{
	const yu_node *ann = kget(c, obj, "metadata.annotations");
	int rc = TPH_OK;
	for (const char *const *p = node_carried; rc == TPH_OK && ann && *p; p++) {
		const yu_node *v = ann->type == YU_MAP ? yu_map_find(c, ann, *p) : NULL;
		if (!v)
			continue;
		yu_push(c, "metadata");
		yu_push(c, "annotations");
		yu_push(c, *p);
		rc = carried_value(l, c, *p + strlen(KUBE_ANN_PREFIX), v, NULL);
		c->depth -= 3;
	}
	return rc;
}

int kube_node(kube_import *k, yu_ctx *c, const yu_node *obj)
{
	const char *name, *ns;
	int rc = kube_meta(c, obj, "Node", false, &name, &ns);
	bool ready = true;
	if (rc == TPH_OK)
		rc = node_ready(c, obj, &ready);
	if (rc == TPH_OK)
		rc = kube_node_name(k, name);
	if (rc < 0)
		return rc;
	static const kfield fields[] = {
	    {"status.allocatable", "allocatable", kl_res, NULL},
	    {"status.capacity", "capacity", kl_res, NULL},
	    {"metadata.labels", "labels", kl_strmap, NULL},
	    {"metadata.annotations", "annotations", kl_strmap, node_carried},
	    {"spec.taints", "taints", kl_maps, &taints},
	    {"spec.unschedulable", "unschedulable", kl_plain, "a boolean"},
	    {"status.images", "images", kl_maps, &images},
	};
	static const kfields table = KFIELDS(fields);
	kl l = kube_item(k, KS_NODES, c, obj);
	kl_str(&l, "name", name);
	if (!ready)
		kl_raw(&l, "ready", "false");
	rc = kl_fields(&l, c, obj, &table);
	if (rc == TPH_OK)
		rc = node_carried_keys(&l, c, obj);
	kl_close(&l);
	return rc;
}

int kube_queue(kube_import *k, yu_ctx *c, const yu_node *obj)
{
	static const kfield fields[] = {
	    {"spec.weight", "weight", kl_plain, "an integer"},
	    {"spec.capability", "capability", kl_res, NULL},
	    {"spec.deserved", "deserved", kl_res, NULL},
	    {"spec.guarantee.resource", "guarantee", kl_res, NULL},
	    {"spec.reclaimable", "reclaimable", kl_plain, "a boolean"},
	    {"spec.parent", "parent", kl_scalar, NULL},
	    {"spec.priority", "priority", kl_plain, "an integer"},
	    {"spec.affinity", "affinity", kl_tree, NULL},
	    {"status.state", "state", kl_scalar, NULL},
	    {"metadata.annotations", "annotations", kl_strmap, NULL},
	    {"metadata.creationTimestamp", "creationTimestamp", kl_scalar, NULL},
	};
	static const kfields table = KFIELDS(fields);
	return kube_plain(k, c, obj, "Queue", KS_QUEUES, &table);
}

int kube_pclass(kube_import *k, yu_ctx *c, const yu_node *obj)
{
	static const kfield fields[] = {
	    {"value", "value", kl_plain, "an integer"},
	    {"globalDefault", "globalDefault", kl_plain, "a boolean"},
	    {"preemptionPolicy", "preemptionPolicy", kl_scalar, NULL},
	};
	static const kfields table = KFIELDS(fields);
	if (!kget(c, obj, "value")) {
		yu_set_obj(c, "PriorityClass", NULL, kstr(c, obj, "metadata.name"), 0);
		yu_push(c, "value");
		int rc = yu_err(c, obj, TPH_EINVAL, "missing");
		yu_pop(c);
		return rc;
	}
	return kube_plain(k, c, obj, "PriorityClass", KS_PCLASSES, &table);
}

/* A HyperNode member: exactMatch → its name, regexMatch → {regex}, labelMatch → {labels}. */
static int member(kl *l, yu_ctx *c, const yu_node *m)
{
	const yu_node *sel = kget(c, m, "selector");
	const char *exact = kstr(c, m, "selector.exactMatch.name");
	const char *regex = kstr(c, m, "selector.regexMatch.pattern");
	const yu_node *labels = kget(c, m, "selector.labelMatch");
	kl_key(l, NULL);
	if (exact) {
		kq(l->f, exact);
		return TPH_OK;
	}
	if (regex) {
		fputs("{regex: ", l->f);
		kq(l->f, regex);
		fputc('}', l->f);
		return TPH_OK;
	}
	if (labels && !kget(c, labels, "matchExpressions")) {
		kl inner = {l->f, false};
		fputc('{', l->f);
		int rc = kl_at(&inner, c, labels, "matchLabels", "labels", kl_strmap, NULL);
		fputc('}', l->f);
		return rc;
	}
	yu_push(c, "selector");
	int rc = yu_err(c, sel ? sel : m, TPH_EINVAL,
	                labels ? "labelMatch.matchExpressions: not supported by the scenario format"
	                       : "expected exactMatch, regexMatch or labelMatch");
	yu_pop(c);
	return rc;
}

static int members(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux)
{
	(void)aux;
	int rc = yu_want_seq(c, v);
	if (rc == TPH_OK)
		kl_key(l, key), fputc('[', l->f);
	kl inner = {l->f, false};
	for (uint32_t i = 0; rc == TPH_OK && i < v->len; i++) {
		yu_push_idx(c, (int32_t)i);
		rc = member(&inner, c, yu_at(c, v->u.items[i]));
		yu_pop(c);
	}
	if (rc == TPH_OK)
		fputc(']', l->f);
	return rc;
}

int kube_hypernode(kube_import *k, yu_ctx *c, const yu_node *obj)
{
	static const kfield fields[] = {
	    {"spec.tier", "tier", kl_plain, "an integer"},
	    {"spec.tierName", "tierName", kl_scalar, NULL},
	    {"spec.members", "members", members, NULL},
	};
	static const kfields table = KFIELDS(fields);
	return kube_plain(k, c, obj, "HyperNode", KS_HYPERNODES, &table);
}

int kube_quota(kube_import *k, yu_ctx *c, const yu_node *obj)
{
	static const kfield fields[] = {
	    {"spec.hard", "hard", kl_res, NULL},
	    {"status.used", "used", kl_res, NULL},
	};
	static const kfields table = KFIELDS(fields);
	return kube_plain(k, c, obj, "ResourceQuota", KS_QUOTAS, &table);
}

/* status.disruptedPods: pod name -> time */
static int disrupted(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux)
{
	return v->type == YU_MAP && v->len == 0 ? TPH_OK : kl_strmap(l, c, key, v, aux);
}

int kube_pdb(kube_import *k, yu_ctx *c, const yu_node *obj)
{
	static const kfield fields[] = {
	    {"spec.selector", "selector", kl_tree, NULL},
	    {"spec.minAvailable", "minAvailable", kl_tree, NULL},
	    {"spec.maxUnavailable", "maxUnavailable", kl_tree, NULL},
	    {"status.disruptionsAllowed", "disruptionsAllowed", kl_plain, "an integer"},
	    {"status.disruptedPods", "disruptedPods", disrupted, NULL},
	};
	static const kfields table = KFIELDS(fields);
	return kube_plain(k, c, obj, "PodDisruptionBudget", KS_PDBS, &table);
}

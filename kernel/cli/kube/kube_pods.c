/* `tephra import kube`: Pods and Volcano PodGroups as Volcano's cache reads them
 * (pkg/scheduler/cache/event_handlers.go, api/pod_info.go, api/job_info.go): the job from the
 * `scheduling.k8s.io/group-name` annotation, the task's status from phase, nodeName and
 * deletionTimestamp (the scenario's phase, nodeName and deleting), the request from the
 * containers, init containers and overhead (docs/format-additions.md). Pods of another
 * scheduler that sit on no node are not in Volcano's cache; on a node they hold resources. */
#include "kube.h"

#include "../cli.h"

#include <string.h>

#define GROUP_KEY "scheduling.k8s.io/group-name"

/* Annotations the scenario carries elsewhere (podGroup) or that only export writes. */
static const char *const ann_skipped[] = {GROUP_KEY, KUBE_ANN_NO_IMAGE, NULL};
/* Kubernetes fields the scenario format cannot express: fine when empty, an error otherwise. */
static const char *const affinity_unsupported[] = {"matchFields", "namespaceSelector",
                                                   "matchLabelKeys", "mismatchLabelKeys", NULL};
static const char *const spread_unsupported[] = {"matchLabelKeys", "nodeAffinityPolicy",
                                                 "nodeTaintsPolicy", NULL};

int kube_podgroup(kube_import *k, yu_ctx *c, const yu_node *obj)
{
	static const kfield fields[] = {
	    {"metadata.uid", "uid", kl_scalar, NULL},
	    {"metadata.creationTimestamp", "creationTimestamp", kl_scalar, NULL},
	    {"metadata.annotations", "annotations", kl_strmap, NULL},
	    {"spec.queue", "queue", kl_scalar, NULL},
	    {"spec.minMember", "minMember", kl_plain, "an integer"},
	    {"spec.minTaskMember", "minTaskMember", kl_tree, NULL},
	    {"spec.minResources", "minResources", kl_res, NULL},
	    {"spec.priorityClassName", "priorityClassName", kl_scalar, NULL},
	    {"spec.networkTopology", "networkTopology", kl_tree, NULL},
	    {"spec.subGroupPolicy", "subGroupPolicy", kl_tree, NULL},
	    {"status.phase", "phase", kl_scalar, NULL},
	};
	static const kfields table = KFIELDS(fields);
	return kube_plain(k, c, obj, "PodGroup", KS_PODGROUPS, &table);
}

/* ---- containers ---- */

typedef struct pod_sums {
	kres req, lim;
	bool all_images;
} pod_sums;

static int container_sums(yu_ctx *c, const yu_node *ctrs, pod_sums *s)
{
	int rc = yu_want_seq(c, ctrs);
	for (uint32_t i = 0; rc == TPH_OK && i < ctrs->len; i++) {
		const yu_node *ct = yu_at(c, ctrs->u.items[i]);
		yu_push_idx(c, (int32_t)i);
		rc = yu_want_map(c, ct);
		const yu_node *req = rc == TPH_OK ? kget(c, ct, "resources.requests") : NULL;
		const yu_node *lim = rc == TPH_OK ? kget(c, ct, "resources.limits") : NULL;
		char st[32];
		int pushed = kpush(c, "resources.requests", st, sizeof st);
		if (req)
			rc = kres_add(&s->req, c, req, false);
		c->path[c->depth - 1].key = "limits";
		if (rc == TPH_OK && lim)
			rc = kres_add(&s->lim, c, lim, false);
		kpop(c, pushed);
		s->all_images &= kstr(c, ct, "image") != NULL;
		yu_pop(c);
	}
	return rc;
}

static void images(kl *l, yu_ctx *c, const yu_node *ctrs)
{
	kl_key(l, "images");
	fputc('[', l->f);
	for (uint32_t i = 0; i < ctrs->len; i++) {
		fputs(i ? ", " : "", l->f);
		kq(l->f, kstr(c, yu_at(c, ctrs->u.items[i]), "image"));
	}
	fputc(']', l->f);
}

/* restartPolicy of an init container: only Always (a sidecar) means anything to the request */
static int always(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux)
{
	(void)c, (void)aux;
	if (v->type == YU_SCALAR && !strcmp(yu_sv(v), "Always"))
		kl_str(l, key, "Always");
	return TPH_OK;
}

/* An image, unless it is export's placeholder for none (the pod carries KUBE_ANN_NO_IMAGE). */
static int real_image(kl *l, yu_ctx *c, const char *key, const yu_node *v, const void *aux)
{
	return v->type == YU_SCALAR && !strcmp(yu_sv(v), KUBE_NO_IMAGE)
	           ? TPH_OK
	           : kl_scalar(l, c, key, v, aux);
}

static const kfield init_fields[2][4] = {
    {{"name", "name", kl_scalar, NULL},
     {"image", "image", kl_scalar, NULL},
     {"resources.requests", "requests", kl_res, NULL},
     {"restartPolicy", "restartPolicy", always, NULL}},
    {{"name", "name", kl_scalar, NULL},
     {"image", "image", real_image, NULL},
     {"resources.requests", "requests", kl_res, NULL},
     {"restartPolicy", "restartPolicy", always, NULL}},
};
static const kfields init_tables[2] = {{init_fields[0], 4}, {init_fields[1], 4}};

static const kfield port_fields[] = {
    {"hostPort", "hostPort", kl_plain, "an integer"},
    {"protocol", "protocol", kl_scalar, NULL},
    {"hostIP", "hostIP", kl_scalar, NULL},
};
static const kfields port_table = KFIELDS(port_fields);

/* The ports of one container list that bind a host port. */
static int host_ports(kl *l, yu_ctx *c, const yu_node *ctrs, bool restartable_only, bool *open)
{
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && ctrs && i < ctrs->len; i++) {
		const yu_node *ct = yu_at(c, ctrs->u.items[i]);
		const char *policy = kstr(c, ct, "restartPolicy");
		const yu_node *ports = kget(c, ct, "ports");
		if (!ports || (restartable_only && !(policy && !strcmp(policy, "Always"))))
			continue;
		yu_push_idx(c, (int32_t)i);
		yu_push(c, "ports");
		rc = yu_want_seq(c, ports);
		for (uint32_t j = 0; rc == TPH_OK && j < ports->len; j++) {
			const yu_node *p = yu_at(c, ports->u.items[j]);
			const char *hp = kstr(c, p, "hostPort");
			if (!hp || !strcmp(hp, "0"))
				continue;
			if (!*open)
				kl_key(l, "hostPorts"), fputc('[', l->f);
			fputs(*open ? ", {" : "{", l->f);
			*open = true;
			kl item = {l->f, false};
			yu_push_idx(c, (int32_t)j);
			rc = kl_fields(&item, c, p, &port_table);
			yu_pop(c);
			fputc('}', l->f);
		}
		c->depth -= 2;
	}
	return rc;
}

static int containers(kl *l, yu_ctx *c, const yu_node *obj, bool no_image)
{
	const yu_node *ctrs = kget(c, obj, "spec.containers");
	const yu_node *inits = kget(c, obj, "spec.initContainers");
	pod_sums s = {.all_images = ctrs != NULL};
	int rc = TPH_OK;
	if (ctrs) {
		char st[32];
		int pushed = kpush(c, "spec.containers", st, sizeof st);
		rc = container_sums(c, ctrs, &s);
		kpop(c, pushed);
	}
	if (rc < 0)
		return rc;
	kres_write(l, "requests", &s.req);
	kres_write(l, "limits", &s.lim);
	rc = kl_at(l, c, obj, "spec.initContainers", "initContainers", kl_maps,
	           &init_tables[no_image]);
	if (rc == TPH_OK)
		rc = kl_at(l, c, obj, "spec.overhead", "overhead", kl_res, NULL);
	if (rc == TPH_OK && s.all_images && ctrs->len && !no_image)
		images(l, c, ctrs);
	bool open = false;
	yu_push(c, "spec");
	yu_push(c, "containers");
	if (rc == TPH_OK)
		rc = host_ports(l, c, ctrs, false, &open);
	c->path[c->depth - 1].key = "initContainers";
	if (rc == TPH_OK)
		rc = host_ports(l, c, inits, true, &open);
	c->depth -= 2;
	if (open)
		fputc(']', l->f);
	return rc;
}

/* ---- status ---- */

static const kfield cond_fields[] = {
    {"type", "type", kl_scalar, NULL},
    {"status", "status", kl_scalar, NULL},
    {"lastTransitionTime", "lastTransitionTime", kl_scalar, NULL},
    {"lastProbeTime", "lastProbeTime", kl_scalar, NULL},
    {"reason", "reason", kl_scalar, NULL},
    {"message", "message", kl_scalar, NULL},
};
static const kfields conditions = KFIELDS(cond_fields);

/* Another scheduler's pod is never placed by this one: only what other pods' placement reads
 * of it (its pod affinity terms) is kept of its constraints. */
static int foreign_affinity(kl *l, yu_ctx *c, const yu_node *obj)
{
	const yu_node *aff = kget(c, obj, "spec.affinity");
	if (!aff || (!kget(c, aff, "podAffinity") && !kget(c, aff, "podAntiAffinity")))
		return TPH_OK;
	kl_key(l, "affinity");
	fputc('{', l->f);
	kl inner = {l->f, false};
	int rc = kl_at(&inner, c, obj, "spec.affinity.podAffinity", "podAffinity", kl_tree,
	               affinity_unsupported);
	if (rc == TPH_OK)
		rc = kl_at(&inner, c, obj, "spec.affinity.podAntiAffinity", "podAntiAffinity",
		           kl_tree, affinity_unsupported);
	fputc('}', l->f);
	return rc;
}

static int constraints(kl *l, yu_ctx *c, const yu_node *obj, bool ours)
{
	if (!ours)
		return foreign_affinity(l, c, obj);
	int rc = kl_at(l, c, obj, "spec.nodeSelector", "nodeSelector", kl_strmap, NULL);
	if (rc == TPH_OK)
		rc = kl_at(l, c, obj, "spec.tolerations", "tolerations", kl_tree, NULL);
	if (rc == TPH_OK)
		rc = kl_at(l, c, obj, "spec.affinity", "affinity", kl_tree, affinity_unsupported);
	if (rc == TPH_OK)
		rc = kl_at(l, c, obj, "spec.topologySpreadConstraints", "topologySpreadConstraints",
		           kl_tree, spread_unsupported);
	return rc;
}

static int pod_fields(kl *l, yu_ctx *c, const yu_node *obj, bool ours)
{
	static const kfield fields[] = {
	    {"metadata.uid", "uid", kl_scalar, NULL},
	    {"metadata.creationTimestamp", "creationTimestamp", kl_scalar, NULL},
	    {"metadata.labels", "labels", kl_strmap, NULL},
	    {"metadata.annotations", "annotations", kl_strmap, ann_skipped},
	    {"spec.priorityClassName", "priorityClassName", kl_scalar, NULL},
	    {"spec.priority", "priority", kl_plain, "an integer"},
	    {"spec.preemptionPolicy", "preemptionPolicy", kl_scalar, NULL},
	    {"status.nominatedNodeName", "nominatedNodeName", kl_scalar, NULL},
	    {"status.conditions", "conditions", kl_maps, &conditions},
	};
	static const kfields table = KFIELDS(fields);
	int rc = kl_fields(l, c, obj, &table);
	if (rc == TPH_OK && kget(c, obj, "metadata.deletionTimestamp"))
		kl_raw(l, "deleting", "true");
	const yu_node *ann = kget(c, obj, "metadata.annotations");
	const yu_node *ni =
	    ann && ann->type == YU_MAP ? yu_map_find(c, ann, KUBE_ANN_NO_IMAGE) : NULL;
	if (rc == TPH_OK)
		rc = containers(l, c, obj,
		                ni && ni->type == YU_SCALAR && !strcmp(yu_sv(ni), "true"));
	if (rc == TPH_OK)
		rc = constraints(l, c, obj, ours);
	return rc;
}

int kube_pod(kube_import *k, yu_ctx *c, const yu_node *obj)
{
	const char *name, *ns;
	int rc = kube_meta(c, obj, "Pod", true, &name, &ns);
	if (rc < 0)
		return rc;
	const char *sched = kstr(c, obj, "spec.schedulerName");
	if (!sched || !*sched)
		sched = "default-scheduler"; /* the API server's default */
	bool ours = !strcmp(sched, k->scheduler_name);
	const yu_node *ann = kget(c, obj, "metadata.annotations");
	const yu_node *group = ann ? yu_map_find(c, ann, GROUP_KEY) : NULL;
	if (!ours && !kstr(c, obj, "spec.nodeName")) {
		k->foreign_unplaced++;
		return TPH_OK;
	}
	kl l = kube_item(k, KS_PODS, c, obj);
	kl_str(&l, "name", name);
	kl_str(&l, "namespace", ns);
	if (group && group->type == YU_SCALAR && group->len)
		kl_str(&l, "podGroup", yu_sv(group));
	if (!ours) /* the kernel calls every name but "volcano" another scheduler's */
		kl_str(&l, "schedulerName", strcmp(sched, "volcano") ? sched : "volcano (other)");
	rc = kube_placement(k, &l, c, obj, ours);
	if (rc == TPH_OK)
		rc = pod_fields(&l, c, obj, ours);
	kl_close(&l);
	return rc;
}

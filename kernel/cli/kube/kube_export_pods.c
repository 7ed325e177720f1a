/* `tephra export kube`: podgroups as Volcano PodGroups and pods as Pods. A pod's summed
 * requests and its limits go on its first container, its images one per container, its host
 * ports on the first container; podGroup, taskSpec and preemptable become the annotations
 * Volcano reads them from. */
#include "kube_export.h"

#include "../cli.h"

#include <string.h>

int kx_podgroup(kx *x, const yu_node *it)
{
	kl l;
	kl_open(&l, x->out, "");
	kl_raw(&l, "apiVersion", "scheduling.volcano.sh/v1beta1");
	kl_raw(&l, "kind", "PodGroup");
	kl m = kx_meta(&l, x, it, "PodGroup", true);
	int rc = kx_copy(&m, x, it, "uid", "uid", kl_tree);
	if (rc == TPH_OK)
		rc = kx_copy(&m, x, it, "creationTimestamp", "creationTimestamp", kl_tree);
	kx_annotations(&m, x, it, NULL, 0);
	kx_end(&m);
	kl s = kx_begin(&l, "spec");
	if (!kget(&x->c, it, "minMember"))
		kl_raw(&s, "minMember", "1"); /* the scenario's default; the CRD's is 0 */
	static const kxf same[] = {{"queue", "queue"},
	                           {"minMember", "minMember"},
	                           {"minTaskMember", "minTaskMember"},
	                           {"minResources", "minResources"},
	                           {"priorityClassName", "priorityClassName"},
	                           {"networkTopology", "networkTopology"},
	                           {"subGroupPolicy", "subGroupPolicy"}};
	if (rc == TPH_OK)
		rc = KX_SECTION(&s, x, it, NULL, same);
	kx_end(&s);
	kl st = kx_begin(&l, "status");
	const char *phase = kstr(&x->c, it, "phase");
	kl_str(&st, "phase", phase ? phase : "Pending");
	kx_end(&st);
	kl_close(&l);
	return rc;
}

static int pod_meta(kl *l, kx *x, const yu_node *it)
{
	kl m = kx_meta(l, x, it, "Pod", true);
	int rc = kx_copy(&m, x, it, "uid", "uid", kl_tree);
	if (rc == TPH_OK)
		rc = kx_copy(&m, x, it, "creationTimestamp", "creationTimestamp", kl_tree);
	const char *deleting = kstr(&x->c, it, "deleting");
	bool del = false;
	if (rc == TPH_OK && deleting)
		rc = yu_bool(&x->c, kget(&x->c, it, "deleting"), &del);
	if (del) { /* import reads only that it is there */
		const char *t = kstr(&x->c, it, "creationTimestamp");
		kl_str(&m, "deletionTimestamp", t ? t : "1970-01-01T00:00:00Z");
	}
	if (rc == TPH_OK)
		rc = kx_copy(&m, x, it, "labels", "labels", kl_tree);
	const yu_node *pre = kget(&x->c, it, "preemptable");
	bool pb = true;
	if (rc == TPH_OK && pre)
		rc = yu_bool(&x->c, pre, &pb);
	kx_ann extra[] = {
	    {"scheduling.k8s.io/group-name", kstr(&x->c, it, "podGroup")},
	    {"volcano.sh/task-spec", kstr(&x->c, it, "taskSpec")},
	    {"volcano.sh/preemptable", pre ? (pb ? "true" : "false") : NULL},
	    {KUBE_ANN_NO_IMAGE, kget(&x->c, it, "images") ? NULL : "true"},
	};
	kx_annotations(&m, x, it, extra, sizeof extra / sizeof extra[0]);
	kx_end(&m);
	return rc;
}

static int host_ports(kl *l, kx *x, const yu_node *ports)
{
	kl_key(l, "ports");
	fputc('[', l->f);
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < ports->len; i++) {
		static const kxf port[] = {{"hostPort", "containerPort"},
		                           {"hostPort", "hostPort"},
		                           {"protocol", "protocol"},
		                           {"hostIP", "hostIP"}};
		const yu_node *p = yu_at(&x->c, ports->u.items[i]);
		kl item = {l->f, false};
		fputs(i ? ", {" : "{", l->f);
		rc = KX_SECTION(&item, x, p, NULL, port);
		fputc('}', l->f);
	}
	fputc(']', l->f);
	return rc;
}

static int containers(kl *s, kx *x, const yu_node *it)
{
	const yu_node *images = kget(&x->c, it, "images");
	const yu_node *ports = kget(&x->c, it, "hostPorts");
	uint32_t n = images && images->len ? images->len : 1;
	kl_key(s, "containers");
	fputc('[', s->f);
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++) {
		kl ct = {s->f, false};
		fprintf(s->f, "%s{name: c%u, image: ", i ? ", " : "", i);
		kq(s->f,
		   images && images->len ? yu_sv(yu_at(&x->c, images->u.items[i])) : KUBE_NO_IMAGE);
		ct.more = true;
		if (i == 0 && (kget(&x->c, it, "requests") || kget(&x->c, it, "limits"))) {
			kl r = kx_begin(&ct, "resources");
			rc = kx_copy(&r, x, it, "requests", "requests", kl_tree);
			if (rc == TPH_OK)
				rc = kx_copy(&r, x, it, "limits", "limits", kl_tree);
			kx_end(&r);
		}
		if (i == 0 && ports && rc == TPH_OK)
			rc = host_ports(&ct, x, ports);
		fputc('}', s->f);
	}
	fputc(']', s->f);
	return rc;
}

static int init_containers(kl *s, kx *x, const yu_node *inits)
{
	kl_key(s, "initContainers");
	fputc('[', s->f);
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < inits->len; i++) {
		const yu_node *ic = yu_at(&x->c, inits->u.items[i]);
		kl ct = {s->f, false};
		fputs(i ? ", {" : "{", s->f);
		rc = kx_copy(&ct, x, ic, "name", "name", kl_tree);
		const char *image = kstr(&x->c, ic, "image");
		kl_str(&ct, "image", image ? image : KUBE_NO_IMAGE);
		if (rc == TPH_OK && kget(&x->c, ic, "requests")) {
			kl r = kx_begin(&ct, "resources");
			rc = kx_copy(&r, x, ic, "requests", "requests", kl_tree);
			kx_end(&r);
		}
		if (rc == TPH_OK)
			rc = kx_copy(&ct, x, ic, "restartPolicy", "restartPolicy", kl_tree);
		fputc('}', s->f);
	}
	fputc(']', s->f);
	return rc;
}

static int pod_spec(kl *l, kx *x, const yu_node *it)
{
	kl s = kx_begin(l, "spec");
	const char *sched = kstr(&x->c, it, "schedulerName");
	kl_str(&s, "schedulerName", sched && *sched ? sched : "volcano");
	static const kxf same[] = {{"nodeName", "nodeName"},
	                           {"priorityClassName", "priorityClassName"},
	                           {"priority", "priority"},
	                           {"preemptionPolicy", "preemptionPolicy"},
	                           {"nodeSelector", "nodeSelector"},
	                           {"tolerations", "tolerations"},
	                           {"affinity", "affinity"},
	                           {"overhead", "overhead"},
	                           {"topologySpreadConstraints", "topologySpreadConstraints"}};
	int rc = KX_SECTION(&s, x, it, NULL, same);
	const yu_node *inits = kget(&x->c, it, "initContainers");
	if (rc == TPH_OK && inits)
		rc = init_containers(&s, x, inits);
	if (rc == TPH_OK)
		rc = containers(&s, x, it);
	kx_end(&s);
	return rc;
}

int kx_pod(kx *x, const yu_node *it)
{
	kl l;
	kl_open(&l, x->out, "");
	kl_raw(&l, "apiVersion", "v1");
	kl_raw(&l, "kind", "Pod");
	int rc = pod_meta(&l, x, it);
	if (rc == TPH_OK)
		rc = pod_spec(&l, x, it);
	kl st = kx_begin(&l, "status");
	const char *phase = kstr(&x->c, it, "phase");
	kl_str(&st, "phase", phase ? phase : "Pending");
	if (rc == TPH_OK)
		rc = kx_copy(&st, x, it, "nominatedNodeName", "nominatedNodeName", kl_tree);
	if (rc == TPH_OK)
		rc = kx_copy(&st, x, it, "conditions", "conditions", kl_tree);
	kx_end(&st);
	kl_close(&l);
	return rc;
}

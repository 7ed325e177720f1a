/* `tephra export kube`: the cluster-wide sections as Kubernetes objects (Node, Queue,
 * HyperNode, PriorityClass, ResourceQuota, PodDisruptionBudget), each on one line. */
#include "kube_export.h"

#include "../cli.h"

#include <string.h>

kl kx_begin(kl *l, const char *key)
{
	kl_key(l, key);
	fputc('{', l->f);
	return (kl){l->f, false};
}

void kx_end(kl *inner)
{
	fputc('}', inner->f);
}

int kx_copy(kl *l, kx *x, const yu_node *item, const char *skey, const char *key, kl_fn fn)
{
	return kl_at(l, &x->c, item, skey, key, fn, NULL);
}

int kx_section(kl *l, kx *x, const yu_node *it, const char *key, const kxf *f, size_t n)
{
	kl s = key ? kx_begin(l, key) : *l;
	int rc = TPH_OK;
	for (size_t i = 0; rc == TPH_OK && i < n; i++)
		rc = kx_copy(&s, x, it, f[i].skey, f[i].kkey, kl_tree);
	if (key)
		kx_end(&s);
	else
		*l = s;
	return rc;
}

void kx_annotations(kl *m, kx *x, const yu_node *item, const kx_ann *extra, int n)
{
	const yu_node *ann = kget(&x->c, item, "annotations");
	bool any = ann && ann->len;
	for (int i = 0; i < n; i++)
		any |= extra[i].value != NULL;
	if (!any)
		return;
	kl a = kx_begin(m, "annotations");
	for (uint32_t i = 0; ann && i < ann->len; i++) {
		const char *k = yu_sv(yu_at(&x->c, ann->u.pairs[i].key));
		bool over = false;
		for (int j = 0; j < n; j++)
			over |= extra[j].value && !strcmp(extra[j].key, k);
		if (over)
			continue;
		kl_key(&a, NULL);
		kk(a.f, k);
		fputs(": ", a.f);
		kq(a.f, yu_sv(yu_at(&x->c, ann->u.pairs[i].value)));
	}
	for (int j = 0; j < n; j++) {
		if (!extra[j].value)
			continue;
		kl_key(&a, NULL);
		kk(a.f, extra[j].key);
		fputs(": ", a.f);
		kq(a.f, extra[j].value);
	}
	kx_end(&a);
}

static void head(kl *l, kx *x, const char *api, const char *kind)
{
	kl_open(l, x->out, "");
	kl_raw(l, "apiVersion", api);
	kl_raw(l, "kind", kind);
}

/* A DNS-1123 subdomain (dots: object names, at most 253 bytes) or label (namespaces, 63):
 * lowercase letters, digits and '-', each dot-separated part starting and ending with either. */
static bool dns_name(const char *s, size_t max, bool dots)
{
	size_t n = strlen(s);
	if (!n || n > max)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		bool edge = i == 0 || i == n - 1 || s[i - 1] == '.' || s[i + 1] == '.';
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			continue;
		if (!((c == '-' && !edge) || (c == '.' && dots && !edge)))
			return false;
	}
	return true;
}

static void check_name(kx *x, const char *kind, const char *name, bool label)
{
	if (dns_name(name, label ? 63 : 253, !label))
		return;
	if (!x->bad_names++)
		snprintf(x->bad_example, sizeof x->bad_example, "%s \"%s\"", kind, name);
}

kl kx_meta(kl *l, kx *x, const yu_node *item, const char *kind, bool namespaced)
{
	kl m = kx_begin(l, "metadata");
	const char *name = kstr(&x->c, item, "name");
	kl_str(&m, "name", name);
	check_name(x, kind, name, false);
	if (namespaced) {
		const char *ns = kstr(&x->c, item, "namespace");
		kl_str(&m, "namespace", ns && *ns ? ns : "default");
		check_name(x, "namespace", ns && *ns ? ns : "default", true);
	}
	return m;
}

int kx_pclass(kx *x, const yu_node *it)
{
	static const kxf same[] = {{"value", "value"},
	                           {"globalDefault", "globalDefault"},
	                           {"preemptionPolicy", "preemptionPolicy"}};
	kl l;
	head(&l, x, "scheduling.k8s.io/v1", "PriorityClass");
	kl m = kx_meta(&l, x, it, "PriorityClass", false);
	kx_end(&m);
	int rc = KX_SECTION(&l, x, it, NULL, same);
	kl_close(&l);
	return rc;
}

int kx_queue(kx *x, const yu_node *it)
{
	kl l;
	head(&l, x, "scheduling.volcano.sh/v1beta1", "Queue");
	kl m = kx_meta(&l, x, it, "Queue", false);
	int rc = kx_copy(&m, x, it, "creationTimestamp", "creationTimestamp", kl_tree);
	kx_annotations(&m, x, it, NULL, 0);
	kx_end(&m);
	static const kxf same[] = {{"weight", "weight"},     {"capability", "capability"},
	                           {"deserved", "deserved"}, {"reclaimable", "reclaimable"},
	                           {"parent", "parent"},     {"priority", "priority"},
	                           {"affinity", "affinity"}};
	static const kxf guarantee[] = {{"guarantee", "resource"}};
	static const kxf state[] = {{"state", "state"}};
	kl s = kx_begin(&l, "spec");
	if (rc == TPH_OK)
		rc = KX_SECTION(&s, x, it, NULL, same);
	if (rc == TPH_OK && kget(&x->c, it, "guarantee"))
		rc = KX_SECTION(&s, x, it, "guarantee", guarantee);
	kx_end(&s);
	if (rc == TPH_OK && kget(&x->c, it, "state"))
		rc = KX_SECTION(&l, x, it, "status", state);
	kl_close(&l);
	return rc;
}

static int node_status(kl *l, kx *x, const yu_node *it)
{
	kl st = kx_begin(l, "status");
	bool cap = kget(&x->c, it, "capacity") != NULL;
	int rc = kx_copy(&st, x, it, cap ? "capacity" : "allocatable", "capacity", kl_tree);
	if (rc == TPH_OK)
		rc = kx_copy(&st, x, it, "allocatable", "allocatable", kl_tree);
	const yu_node *ready = kget(&x->c, it, "ready");
	bool not_ready = ready && ready->type == YU_SCALAR && !strcmp(yu_sv(ready), "false");
	kl_raw(&st, "conditions",
	       not_ready ? "[{type: Ready, status: \"False\"}]"
	                 : "[{type: Ready, status: \"True\"}]");
	if (rc == TPH_OK)
		rc = kx_copy(&st, x, it, "images", "images", kl_tree);
	kx_end(&st);
	return rc;
}

int kx_node(kx *x, const yu_node *it)
{
	kl l;
	head(&l, x, "v1", "Node");
	kl m = kx_meta(&l, x, it, "Node", false);
	int rc = kx_copy(&m, x, it, "labels", "labels", kl_tree);
	/* usage and numa have no home on a Node: JSON in annotations, read back by import */
	kx_ann extra[2] = {{KUBE_ANN_PREFIX "usage", NULL}, {KUBE_ANN_PREFIX "numa", NULL}};
	const char *keys[2] = {"usage", "numa"};
	for (int i = 0; rc == TPH_OK && i < 2; i++) {
		const yu_node *v = kget(&x->c, it, keys[i]);
		if (v)
			rc = yu_json(&x->c, v, &extra[i].value);
	}
	kx_annotations(&m, x, it, extra, 2);
	kx_end(&m);
	if (kget(&x->c, it, "taints") || kget(&x->c, it, "unschedulable")) {
		kl s = kx_begin(&l, "spec");
		if (rc == TPH_OK)
			rc = kx_copy(&s, x, it, "taints", "taints", kl_tree);
		if (rc == TPH_OK)
			rc = kx_copy(&s, x, it, "unschedulable", "unschedulable", kl_tree);
		kx_end(&s);
	}
	if (rc == TPH_OK)
		rc = node_status(&l, x, it);
	kl_close(&l);
	return rc;
}

/* A member: a name (a hypernode's or a node's), {regex: ...} or {labels: ...}. */
static int member(kl *l, kx *x, const yu_node *m)
{
	kl_key(l, NULL);
	uint32_t v;
	if (m->type == YU_SCALAR) {
		bool hn = yu_map_get(&x->hypernodes, yu_sv(m), m->len, NULL, 0, &v);
		fprintf(l->f,
		        "{type: %s, selector: {exactMatch: {name: ", hn ? "HyperNode" : "Node");
		kq(l->f, yu_sv(m));
		fputs("}}}", l->f);
		return TPH_OK;
	}
	const char *regex = kstr(&x->c, m, "regex");
	if (regex) {
		fputs("{type: Node, selector: {regexMatch: {pattern: ", l->f);
		kq(l->f, regex);
		fputs("}}}", l->f);
		return TPH_OK;
	}
	fputs("{type: Node, selector: {labelMatch: {", l->f);
	kl inner = {l->f, false};
	int rc = kx_copy(&inner, x, m, "labels", "matchLabels", kl_tree);
	fputs("}}}", l->f);
	return rc;
}

int kx_hypernode(kx *x, const yu_node *it)
{
	kl l;
	head(&l, x, "topology.volcano.sh/v1alpha1", "HyperNode");
	kl m = kx_meta(&l, x, it, "HyperNode", false);
	kx_end(&m);
	static const kxf same[] = {{"tier", "tier"}, {"tierName", "tierName"}};
	kl s = kx_begin(&l, "spec");
	int rc = KX_SECTION(&s, x, it, NULL, same);
	const yu_node *mem = kget(&x->c, it, "members");
	kl_key(&s, "members");
	fputc('[', s.f);
	kl ms = {s.f, false};
	for (uint32_t i = 0; rc == TPH_OK && mem && i < mem->len; i++)
		rc = member(&ms, x, yu_at(&x->c, mem->u.items[i]));
	fputc(']', s.f);
	kx_end(&s);
	kl_close(&l);
	return rc;
}

int kx_quota(kx *x, const yu_node *it)
{
	static const kxf spec[] = {{"hard", "hard"}};
	static const kxf status[] = {{"hard", "hard"}, {"used", "used"}};
	kl l;
	head(&l, x, "v1", "ResourceQuota");
	kl m = kx_meta(&l, x, it, "ResourceQuota", true);
	kx_end(&m);
	int rc = KX_SECTION(&l, x, it, "spec", spec);
	if (rc == TPH_OK && kget(&x->c, it, "used"))
		rc = KX_SECTION(&l, x, it, "status", status);
	kl_close(&l);
	return rc;
}

int kx_pdb(kx *x, const yu_node *it)
{
	static const kxf spec[] = {{"selector", "selector"},
	                           {"minAvailable", "minAvailable"},
	                           {"maxUnavailable", "maxUnavailable"}};
	static const kxf status[] = {{"disruptedPods", "disruptedPods"}};
	kl l;
	head(&l, x, "policy/v1", "PodDisruptionBudget");
	kl m = kx_meta(&l, x, it, "PodDisruptionBudget", true);
	kx_end(&m);
	int rc = KX_SECTION(&l, x, it, "spec", spec);
	kl st =
	    kx_begin(&l, "status"); /* the fields policy/v1 requires, then what the plugin reads */
	kl_raw(&st, "currentHealthy", "0");
	kl_raw(&st, "desiredHealthy", "0");
	kl_raw(&st, "expectedPods", "0");
	const yu_node *da = kget(&x->c, it, "disruptionsAllowed");
	kl_raw(&st, "disruptionsAllowed", da ? yu_sv(da) : "0");
	if (rc == TPH_OK)
		rc = KX_SECTION(&st, x, it, NULL, status);
	kx_end(&st);
	kl_close(&l);
	return rc;
}

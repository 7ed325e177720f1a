/* `tephra export kube`: a scenario as a `kind: List` of Kubernetes objects that `kubectl apply`
 * (or a KWOK cluster) accepts, and that `tephra import kube` reads back to the same decisions.
 * The scenario is loaded first (so a bad one fails with the loader's message), then its YAML
 * is walked section by section. Top-level keys without a Kubernetes home ride on the scheduler
 * ConfigMap's tephra.io/ annotations; expect: and probe: are dropped. */
#include "kube_export.h"

#include "../cli.h"

#include <libgen.h>
#include <stdlib.h>
#include <string.h>

static const char *const carried[] = {
    "name", "now", "enableFlagsDefault", "nodeSampling", "shard", "extenderResponses", NULL};

/* ---- the scheduler ConfigMap ---- */

static int conf_text(kx *x, const yu_node *root, FILE *f)
{
	const yu_node *conf = kget(&x->c, root, "conf");
	const char *file = kstr(&x->c, root, "confFile");
	if (conf && conf->type == YU_SCALAR) {
		kq(f, yu_sv(conf));
		return TPH_OK;
	}
	const char *json;
	if (conf) /* an inline mapping: its JSON text is a conf in YAML */
		return yu_json(&x->c, conf, &json) < 0 ? TPH_EINVAL : (kq(f, json), TPH_OK);
	char path[4096], dir[4096];
	snprintf(dir, sizeof dir, "%s", x->path);
	int n = file[0] == '/' ? snprintf(path, sizeof path, "%s", file)
	                       : snprintf(path, sizeof path, "%s/%s", dirname(dir), file);
	if ((size_t)n >= sizeof path)
		return tph_diag_set(x->d, TPH_EINVAL, "%s: confFile: path too long", x->path);
	char *buf;
	size_t len;
	int rc = yu_read_file(path, &buf, &len, x->d);
	if (rc < 0)
		return rc;
	kq(f, buf);
	yu_free(buf);
	return TPH_OK;
}

static int configmap(kx *x, const yu_node *root)
{
	kl l;
	kl_open(&l, x->out, "");
	kl_raw(&l, "apiVersion", "v1");
	kl_raw(&l, "kind", "ConfigMap");
	kl_key(&l, "metadata");
	fputs("{name: volcano-scheduler-configmap, namespace: volcano-system, annotations: {",
	      x->out);
	bool more = false;
	for (const char *const *p = carried; *p; p++) {
		const yu_node *v = kget(&x->c, root, *p);
		const char *json;
		if (!v)
			continue;
		yu_push(&x->c, *p);
		int rc = yu_json(&x->c, v, &json);
		yu_pop(&x->c);
		if (rc < 0)
			return rc;
		fprintf(x->out, "%s\"" KUBE_ANN_PREFIX "%s\": ", more ? ", " : "", *p);
		kq(x->out, json);
		more = true;
	}
	fputs("}}", x->out);
	int rc = TPH_OK;
	if (kget(&x->c, root, "conf") || kget(&x->c, root, "confFile")) {
		kl_key(&l, "data");
		fputs("{volcano-scheduler.conf: ", x->out);
		rc = conf_text(x, root, x->out);
		fputc('}', x->out);
	}
	kl_close(&l);
	return rc;
}

/* ---- namespaces: every one an object names, so that apply finds them ---- */

static void namespaces(kx *x, const yu_node *root)
{
	static const char *const sections[] = {"pods", "podGroups", "resourceQuotas",
	                                       "podDisruptionBudgets", NULL};
	yu_map seen;
	if (yu_map_init(&seen, 64) < 0)
		return;
	const char *system = "volcano-system";
	yu_map_put(&seen, system, strlen(system), NULL, 0, 0, NULL);
	fputs("- {apiVersion: v1, kind: Namespace, metadata: {name: volcano-system}}\n", x->out);
	for (const char *const *s = sections; *s; s++) {
		const yu_node *seq = kget(&x->c, root, *s);
		for (uint32_t i = 0; seq && seq->type == YU_SEQ && i < seq->len; i++) {
			const char *ns = kstr(&x->c, yu_at(&x->c, seq->u.items[i]), "namespace");
			ns = ns && *ns ? ns : "default";
			if (yu_map_put(&seen, ns, strlen(ns), NULL, 0, 0, NULL) != 1)
				continue;
			fputs("- {apiVersion: v1, kind: Namespace, metadata: {name: ", x->out);
			kq(x->out, ns);
			fputs("}}\n", x->out);
		}
	}
	yu_map_free(&seen);
}

/* ---- the walk ---- */

static const struct {
	const char *key;
	int (*fn)(kx *x, const yu_node *item);
} sections[] = {
    {"priorityClasses", kx_pclass},
    {"queues", kx_queue},
    {"nodes", kx_node},
    {"hyperNodes", kx_hypernode},
    {"resourceQuotas", kx_quota},
    {"podDisruptionBudgets", kx_pdb},
    {"podGroups", kx_podgroup},
    {"pods", kx_pod},
};

static int walk(kx *x, const yu_node *root)
{
	static const char *const dropped[] = {"expect", "probe", NULL};
	for (const char *const *p = dropped; *p; p++)
		if (kget(&x->c, root, *p)) {
			fprintf(x->out, "# dropped: %s (no Kubernetes home)\n", *p);
			tph_diag_warn(x->d, "%s: %s: dropped (no Kubernetes home)", x->path, *p);
		}
	fputs("apiVersion: v1\nkind: List\nmetadata: {}\nitems:\n", x->out);
	namespaces(x, root);
	int rc = configmap(x, root);
	const yu_node *hns = kget(&x->c, root, "hyperNodes");
	for (uint32_t i = 0; rc == TPH_OK && hns && hns->type == YU_SEQ && i < hns->len; i++) {
		const char *n = kstr(&x->c, yu_at(&x->c, hns->u.items[i]), "name");
		if (n && yu_map_put(&x->hypernodes, n, strlen(n), NULL, 0, 0, NULL) < 0)
			rc = tph_diag_set(x->d, TPH_ENOMEM, "out of memory");
	}
	for (size_t s = 0; rc == TPH_OK && s < sizeof sections / sizeof sections[0]; s++) {
		const yu_node *seq = kget(&x->c, root, sections[s].key);
		yu_push(&x->c, sections[s].key);
		for (uint32_t i = 0; rc == TPH_OK && seq && i < seq->len; i++) {
			yu_push_idx(&x->c, (int32_t)i);
			rc = sections[s].fn(x, yu_at(&x->c, seq->u.items[i]));
			yu_pop(&x->c);
		}
		yu_pop(&x->c);
	}
	return rc;
}

int kube_export(const char *path, FILE *out, tph_diag *d)
{
	tph_scenario *scn;
	int rc = tph_scenario_load_file(path, &scn, d); /* the loader's checks, and its messages */
	if (rc < 0)
		return rc;
	tph_scenario_free(scn);
	char *buf;
	size_t len;
	if ((rc = yu_read_file(path, &buf, &len, d)) < 0)
		return rc;
	kx x = {.path = path, .out = out, .d = d};
	yu_doc doc;
	rc = yu_load_parallel(buf, len, path, &doc, d);
	if (rc == TPH_OK) {
		yu_ctx_init(&x.c, &doc, path, &x.arena, d);
		rc = yu_map_init(&x.hypernodes, 64);
		const char *flavour =
		    rc == TPH_OK ? kstr(&x.c, yu_at(&x.c, doc.root), "flavour") : NULL;
		if (flavour && strcmp(flavour, "volcano"))
			rc = tph_diag_set(d, TPH_EINVAL, "%s: flavour %s: only volcano is exported",
			                  path, flavour);
		if (rc == TPH_OK)
			rc = walk(&x, yu_at(&x.c, doc.root));
		if (rc == TPH_OK && x.bad_names)
			tph_diag_warn(
			    d,
			    "%s: %u name%s that Kubernetes refuses (e.g. %s): kubectl apply "
			    "will not create %s; import reads %s",
			    path, x.bad_names, x.bad_names == 1 ? "" : "s", x.bad_example,
			    x.bad_names == 1 ? "it" : "them", x.bad_names == 1 ? "it" : "them");
		yu_map_free(&x.hypernodes);
		yu_arena_free(&x.arena);
		yu_doc_free(&doc);
	}
	yu_free(buf);
	return rc;
}

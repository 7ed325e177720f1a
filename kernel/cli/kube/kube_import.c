/* `tephra import kube`: which kinds become which scenario section, the scheduler ConfigMap, and
 * the scenario written out at the end, sections in the spec's order. */
#include "kube.h"

#include "../cli.h"

#include <stdlib.h>
#include <string.h>

static const char *const section_keys[KS_COUNT] = {
    "priorityClasses",      "queues",    "nodes", "hyperNodes", "resourceQuotas",
    "podDisruptionBudgets", "podGroups", "pods"};

int kube_import_init(kube_import *k, const char *scheduler_name, tph_diag *d)
{
	memset(k, 0, sizeof *k);
	k->scheduler_name = scheduler_name;
	k->d = d;
	for (int i = 0; i < KS_COUNT; i++)
		if (!(k->sec[i] = open_memstream(&k->buf[i], &k->len[i])))
			return tph_diag_set(d, TPH_ENOMEM, "out of memory");
	if (!(k->head = open_memstream(&k->head_buf, &k->head_len)) ||
	    yu_map_init(&k->node_names, 1024) < 0)
		return tph_diag_set(d, TPH_ENOMEM, "out of memory");
	return TPH_OK;
}

void kube_import_free(kube_import *k)
{
	for (int i = 0; i < KS_COUNT; i++) {
		if (k->sec[i])
			fclose(k->sec[i]);
		free(k->buf[i]);
	}
	for (int i = 0; i <= KS_COUNT; i++)
		free(k->orig[i].v);
	for (uint32_t i = 0; i < k->n_files; i++)
		free(k->files[i]);
	free(k->files);
	free(k->line_orig);
	free(k->placed);
	yu_map_free(&k->node_names);
	yu_arena_free(&k->names);
	if (k->head)
		fclose(k->head);
	free(k->head_buf);
	memset(k, 0, sizeof *k);
}

/* Grow an array of `size`-byte elements to hold n + 1; false when memory runs out. */
static bool room(void **v, uint32_t *cap, uint32_t n, size_t size)
{
	if (n < *cap)
		return true;
	uint32_t c = *cap ? *cap * 2 : 64;
	void *p = realloc(*v, (size_t)c * size);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

int kube_file(kube_import *k, const char *name)
{
	char *copy = strdup(name);
	if (!copy || !room((void **)&k->files, &k->cap_files, k->n_files, sizeof *k->files)) {
		free(copy);
		return tph_diag_set(k->d, TPH_ENOMEM, "out of memory");
	}
	k->files[k->n_files++] = copy;
	return TPH_OK;
}

static void remember(kube_import *k, int sec, const yu_ctx *c, const yu_node *obj)
{
	korigins *o = &k->orig[sec];
	if (!room((void **)&o->v, &o->cap, o->n, sizeof *o->v)) {
		k->oom = true;
		return;
	}
	o->v[o->n++] = (korigin){k->n_files - 1, yu_line(c, obj), yu_col(c, obj)};
}

int kube_node_name(kube_import *k, const char *name)
{
	const char *copy = yu_strndup(&k->names, name, strlen(name));
	if (!copy || yu_map_put(&k->node_names, copy, strlen(copy), NULL, 0, 0, NULL) < 0)
		return tph_diag_set(k->d, TPH_ENOMEM, "out of memory");
	return TPH_OK;
}

int kube_placement(kube_import *k, kl *l, yu_ctx *c, const yu_node *obj, bool ours)
{
	const char *node = kstr(c, obj, "spec.nodeName"), *phase = kstr(c, obj, "status.phase");
	long from = ftell(l->f);
	int rc = kl_at(l, c, obj, "status.phase", "phase", kl_scalar, NULL);
	if (rc == TPH_OK)
		rc = kl_at(l, c, obj, "spec.nodeName", "nodeName", kl_scalar, NULL);
	if (rc < 0 || !node || !*node)
		return rc;
	struct kplaced *p = NULL;
	if (room((void **)&k->placed, &k->cap_placed, k->n_placed, sizeof *k->placed))
		p = &k->placed[k->n_placed++];
	if (p)
		*p = (struct kplaced){
		    (size_t)from, (size_t)ftell(l->f), yu_strndup(&k->names, node, strlen(node)),
		    phase ? yu_strndup(&k->names, phase, strlen(phase)) : NULL, ours};
	if (from < 0 || !p || !p->node || (phase && !p->phase))
		return tph_diag_set(k->d, TPH_ENOMEM, "out of memory");
	return TPH_OK;
}

kl kube_item(kube_import *k, int sec, const yu_ctx *c, const yu_node *obj)
{
	remember(k, sec, c, obj);
	kl l;
	kl_open(&l, k->sec[sec], "  ");
	return l;
}

int kube_meta(yu_ctx *c, const yu_node *obj, const char *kind, bool namespaced, const char **name,
              const char **ns)
{
	const yu_node *n = kget(c, obj, "metadata.name");
	*name = n && n->type == YU_SCALAR ? yu_sv(n) : NULL;
	*ns = namespaced ? kstr(c, obj, "metadata.namespace") : NULL;
	if (namespaced && (!*ns || !**ns))
		*ns = "default";
	yu_set_obj(c, kind, *ns, *name, 0);
	if (*name && **name && !strchr(*name, '/'))
		return TPH_OK;
	char store[32];
	int pushed = kpush(c, "metadata.name", store, sizeof store);
	int rc = yu_err(c, n ? n : obj, TPH_EINVAL,
	                n ? "expected a name without '/'" : "missing (every object needs one)");
	kpop(c, pushed);
	return rc;
}

int kube_plain(kube_import *k, yu_ctx *c, const yu_node *obj, const char *kind, int sec,
               const kfields *t)
{
	bool namespaced = sec == KS_QUOTAS || sec == KS_PDBS || sec == KS_PODGROUPS;
	const char *name, *ns;
	int rc = kube_meta(c, obj, kind, namespaced, &name, &ns);
	if (rc < 0)
		return rc;
	kl l = kube_item(k, sec, c, obj);
	kl_str(&l, "name", name);
	if (ns)
		kl_str(&l, "namespace", ns);
	rc = kl_fields(&l, c, obj, t);
	kl_close(&l);
	return rc;
}

/* data["volcano-scheduler.conf"] (a key kget's dotted paths cannot spell). */
static const yu_node *sched_conf(const yu_ctx *c, const yu_node *obj)
{
	const yu_node *data = kget(c, obj, "data");
	return data ? yu_map_find(c, data, "volcano-scheduler.conf") : NULL;
}

static void skip_kind(kube_import *k, const char *kind, const char *api)
{
	char label[64];
	snprintf(label, sizeof label, "%s%s%s%s", kind, api ? " (" : "", api ? api : "",
	         api ? ")" : "");
	uint32_t i = 0;
	while (i < k->n_skipped && strcmp(k->skipped[i].kind, label))
		i++;
	if (i == k->n_skipped && i < KUBE_SKIP_KINDS)
		snprintf(k->skipped[k->n_skipped++].kind, sizeof k->skipped[0].kind, "%s", label);
	if (i < k->n_skipped)
		k->skipped[i].n++;
}

static bool group_is(const char *api, const char *group)
{
	size_t n = strlen(group);
	return api && !strncmp(api, group, n) && api[n] == '/';
}

int kube_object(kube_import *k, yu_ctx *c, const yu_node *obj)
{
	const char *kind = kstr(c, obj, "kind"), *api = kstr(c, obj, "apiVersion");
	yu_set_obj(c, NULL, NULL, NULL, 0);
	if (!kind) {
		yu_push(c, "kind");
		int rc = yu_err(c, obj, TPH_EINVAL, "missing: every object needs its kind");
		yu_pop(c);
		return rc;
	}
	bool core = api && !strchr(api, '/');
	if (!strcmp(kind, "Node") && core)
		return kube_node(k, c, obj);
	if (!strcmp(kind, "Pod") && core)
		return kube_pod(k, c, obj);
	if (!strcmp(kind, "PodGroup") && group_is(api, "scheduling.volcano.sh"))
		return kube_podgroup(k, c, obj);
	if (!strcmp(kind, "Queue") && group_is(api, "scheduling.volcano.sh"))
		return kube_queue(k, c, obj);
	if (!strcmp(kind, "HyperNode") && group_is(api, "topology.volcano.sh"))
		return kube_hypernode(k, c, obj);
	if (!strcmp(kind, "PriorityClass") && group_is(api, "scheduling.k8s.io"))
		return kube_pclass(k, c, obj);
	if (!strcmp(kind, "ResourceQuota") && core)
		return kube_quota(k, c, obj);
	if (!strcmp(kind, "PodDisruptionBudget") && group_is(api, "policy"))
		return kube_pdb(k, c, obj);
	if (!strcmp(kind, "ConfigMap") && core && sched_conf(c, obj))
		return kube_configmap(k, c, obj);
	static const char *const known[] = {
	    "Node",      "Pod",           "PodGroup",      "Queue",
	    "HyperNode", "PriorityClass", "ResourceQuota", "PodDisruptionBudget",
	    NULL};
	bool other_api = false;
	for (const char *const *p = known; *p; p++)
		other_api |= !strcmp(kind, *p);
	skip_kind(k, kind, other_api ? (api ? api : "no apiVersion") : NULL);
	return TPH_OK;
}

/* ---- the scheduler ConfigMap ---- */

/* Top-level scenario keys the export keeps in annotations (kube.h), each written back as it
 * came: a JSON value (a string for `name`, `now`, `nodeSampling`). */
static const char *const carried[] = {
    "name", "now", "enableFlagsDefault", "nodeSampling", "shard", "extenderResponses", NULL};

static int carried_keys(kube_import *k, yu_ctx *c, const yu_node *ann)
{
	for (uint32_t i = 0; ann && ann->type == YU_MAP && i < ann->len; i++) {
		const yu_node *key = yu_at(c, ann->u.pairs[i].key),
		              *v = yu_at(c, ann->u.pairs[i].value);
		size_t pl = strlen(KUBE_ANN_PREFIX);
		if (key->type != YU_SCALAR || strncmp(yu_sv(key), KUBE_ANN_PREFIX, pl))
			continue;
		const char *what = yu_sv(key) + pl;
		const char *const *p = carried;
		while (*p && strcmp(*p, what))
			p++;
		if (!*p)
			continue;
		yu_push(c, "metadata");
		yu_push(c, "annotations");
		yu_push(c, yu_sv(key));
		int rc = yu_want_scalar(c, v, "a string");
		if (rc == TPH_OK && strpbrk(yu_sv(v), "\n\r"))
			rc = yu_err(c, v, TPH_EINVAL, "expected one line of JSON");
		c->depth -= 3;
		if (rc < 0)
			return rc;
		remember(k, KS_HEAD, c, key);
		fprintf(k->head, "%s: %s\n", what, yu_sv(v));
	}
	return TPH_OK;
}

int kube_configmap(kube_import *k, yu_ctx *c, const yu_node *obj)
{
	const char *name, *ns;
	int rc = kube_meta(c, obj, "ConfigMap", true, &name, &ns);
	if (rc < 0)
		return rc;
	if (k->conf_from[0]) {
		yu_warn(c, obj, "a second volcano-scheduler.conf; the one of ConfigMap %s is used",
		        k->conf_from);
		return TPH_OK;
	}
	snprintf(k->conf_from, sizeof k->conf_from, "%s/%s", ns, name);
	const yu_node *conf = sched_conf(c, obj);
	yu_push(c, "data");
	yu_push(c, "volcano-scheduler.conf");
	rc = yu_want_scalar(c, conf, "a string");
	yu_pop(c);
	yu_pop(c);
	if (rc < 0)
		return rc;
	remember(k, KS_HEAD, c, conf);
	fputs("conf: ", k->head);
	kq(k->head, yu_sv(conf));
	fputc('\n', k->head);
	return carried_keys(k, c, kget(c, obj, "metadata.annotations"));
}

/* ---- the scenario ---- */

static bool head_has(const kube_import *k, const char *key)
{
	size_t n = strlen(key);
	for (const char *p = k->head_buf; p && *p;) {
		if (!strncmp(p, key, n) && p[n] == ':')
			return true;
		const char *nl = strchr(p, '\n');
		p = nl ? nl + 1 : "";
	}
	return false;
}

/* Lines written so far, and where each came from (none for headers). */
static void lines(kube_import *k, uint32_t n, const korigin *from)
{
	if (k->oom || n >= UINT32_MAX - k->n_lines) {
		k->oom = true;
		return;
	}
	korigin *p = realloc(k->line_orig, ((size_t)k->n_lines + n + 1) * sizeof *p);
	if (!p) {
		k->oom = true;
		return;
	}
	k->line_orig = p;
	for (uint32_t i = 0; i < n; i++)
		p[k->n_lines++] = from ? from[i] : (korigin){UINT32_MAX, 0, 0};
}

static void warn_skipped(kube_import *k)
{
	for (uint32_t i = 0; i < k->n_skipped; i++)
		tph_diag_warn(k->d, "skipped %u object%s of kind %s (not read by the scheduler)",
		              k->skipped[i].n, k->skipped[i].n == 1 ? "" : "s", k->skipped[i].kind);
	if (k->foreign_unplaced)
		tph_diag_warn(k->d,
		              "skipped %u pod%s of other schedulers on no node (Volcano's cache "
		              "leaves them out)",
		              k->foreign_unplaced, k->foreign_unplaced == 1 ? "" : "s");
	if (!k->conf_from[0])
		tph_diag_warn(k->d, "no ConfigMap with volcano-scheduler.conf: the scenario has no "
		                    "conf (Volcano's default conf applies)");
}

/* The pods section, with the pods whose node the dump does not hold on no node: Volcano's
 * cache keeps such a pod on a node of that name that never makes its snapshot (it has no
 * Node object, so it is not ready): the pod holds nothing anyone sees, and counts for its
 * job as it is; a bound one (Pending with a node) as Running, both being allocated. */
static void write_pods(kube_import *k, FILE *out)
{
	size_t at = 0;
	uint32_t missing = 0, v;
	for (uint32_t i = 0; i < k->n_placed; i++) {
		const struct kplaced *p = &k->placed[i];
		if (yu_map_get(&k->node_names, p->node, strlen(p->node), NULL, 0, &v))
			continue;
		fwrite(k->buf[KS_PODS] + at, 1, p->from - at, out);
		bool bound = !p->phase || !strcmp(p->phase, "Pending");
		if (p->phase || (bound && p->ours)) {
			fputs(", phase: ", out);
			kq(out, bound && p->ours ? "Running" : p->phase);
		}
		at = p->to;
		missing++;
	}
	fwrite(k->buf[KS_PODS] + at, 1, k->len[KS_PODS] - at, out);
	if (missing)
		tph_diag_warn(
		    k->d,
		    "%u pod%s on nodes the dump does not hold: on no node, as Volcano keeps "
		    "them on a node it never schedules to (bound ones count as Running)",
		    missing, missing == 1 ? "" : "s");
}

int kube_import_write(kube_import *k, const char *name, FILE *out)
{
	for (int i = 0; i < KS_COUNT; i++)
		k->oom |= fflush(k->sec[i]) != 0;
	k->oom |= fflush(k->head) != 0;
	warn_skipped(k);
	k->n_lines = 0;
	fputs("# tephra import kube: kubectl objects as a scenario (datasets/README.md)\n", out);
	lines(k, 1, NULL);
	if (!head_has(k, "name")) {
		fputs("name: ", out);
		kq(out, name);
		fputc('\n', out);
		lines(k, 1, NULL);
	}
	fwrite(k->head_buf, 1, k->head_len, out);
	lines(k, k->orig[KS_HEAD].n, k->orig[KS_HEAD].v);
	for (int i = 0; i < KS_COUNT; i++) {
		if (!k->len[i] && i != KS_NODES)
			continue;
		fprintf(out, "%s:%s\n", section_keys[i], k->len[i] ? "" : " []");
		lines(k, 1, NULL);
		if (i == KS_PODS)
			write_pods(k, out);
		else
			fwrite(k->buf[i], 1, k->len[i], out);
		lines(k, k->orig[i].n, k->orig[i].v);
	}
	return k->oom ? tph_diag_set(k->d, TPH_ENOMEM, "out of memory") : TPH_OK;
}

#define KUBE_DISPLAY "<kube import>"

/* "<kube import>:L:C: rest" -> "FILE:LINE:COL: rest" at the object line L came from. */
static void retell(kube_import *k)
{
	tph_diag *d = k->d;
	size_t pl = strlen(KUBE_DISPLAY);
	char *end;
	if (!d || strncmp(d->msg, KUBE_DISPLAY ":", pl + 1))
		return;
	unsigned long line = strtoul(d->msg + pl + 1, &end, 10);
	const char *rest = *end == ':' ? strstr(end + 1, ": ") : NULL;
	if (!rest || line == 0 || line > k->n_lines || k->line_orig[line - 1].file == UINT32_MAX)
		return;
	korigin o = k->line_orig[line - 1];
	char buf[sizeof d->msg];
	snprintf(buf, sizeof buf, "%s:%u:%u%s", k->files[o.file], o.line, o.col, rest);
	tph_diag_set(d, TPH_EINVAL, "%s", buf);
}

int kube_load(kube_import *k, const char *buf, size_t len, tph_scenario **out)
{
	int rc = tph_scenario_load_buffer(buf, len, KUBE_DISPLAY, out, k->d);
	if (rc < 0)
		retell(k);
	return rc;
}

/* The cold parts of each object kind as canonical blobs (written from descriptors, validated)
 * and their builders (blob -> rows): pod specs and metas, node, job and queue metas, hypernode
 * members. The blob table in cluster_intern.c dedups them. */
#include "cache/cluster_int.h"

#include "base/mem.h"
#include "base/regex_go.h"

#include <stdlib.h>
#include <string.h>

/* ---- pod spec ---- */

static void w_podaffs(tph_wr *w, const tph_pod_affinity_term *t, uint32_t n, const char *field)
{
	if (n && !t)
		return tph_w_fail(w, field, "no terms");
	tph_w_u32(w, n);
	for (uint32_t i = 0; i < n; i++) {
		if (!t[i].topology_key || !t[i].topology_key[0])
			return tph_w_fail(w, field, "term %u: empty topologyKey", i);
		if (t[i].weight < 0)
			return tph_w_fail(w, field, "term %u: negative weight", i);
		tph_w_selector(w, &t[i].selector, field);
		tph_w_strs(w, t[i].namespaces, field);
		tph_w_str(w, t[i].topology_key);
		tph_w_u32(w, (uint32_t)t[i].weight);
	}
}

static void w_tolerations(tph_wr *w, const tph_pod_desc *p)
{
	if (p->n_tolerations && !p->tolerations)
		return tph_w_fail(w, "tolerations", "no items");
	tph_w_u32(w, p->n_tolerations);
	for (uint32_t i = 0; i < p->n_tolerations; i++) {
		const tph_toleration *t = &p->tolerations[i];
		if ((unsigned)t->op > TPH_TOL_EXISTS || t->effect < -1 ||
		    t->effect > TPH_TAINT_NO_EXECUTE)
			return tph_w_fail(w, "tolerations", "item %u: bad operator or effect", i);
		tph_w_str(w, t->key);
		tph_w_str(w, t->value);
		tph_w_u32(w, (uint32_t)t->op);
		tph_w_u32(w, (uint32_t)(t->effect + 1));
	}
}

static void w_node_affinity(tph_wr *w, const tph_affinity *a)
{
	const char *req = "nodeAffinity required", *pref = "nodeAffinity preferred";
	if ((a->n_node_required && !a->node_required) ||
	    (a->n_node_preferred && !a->node_preferred))
		return tph_w_fail(w, req, "no terms");
	tph_w_u32(w, a->n_node_required);
	for (uint32_t i = 0; i < a->n_node_required; i++)
		tph_w_term(w, &a->node_required[i], req);
	tph_w_u32(w, a->n_node_preferred);
	for (uint32_t i = 0; i < a->n_node_preferred; i++) {
		if (a->node_preferred[i].weight < 0)
			return tph_w_fail(w, pref, "term %u: negative weight", i);
		tph_w_u32(w, (uint32_t)a->node_preferred[i].weight);
		tph_w_term(w, &a->node_preferred[i].term, pref);
	}
}

static void w_spread(tph_wr *w, const tph_pod_desc *p)
{
	const char *f = "topologySpreadConstraints";
	if (p->n_spread && !p->spread)
		return tph_w_fail(w, f, "no items");
	tph_w_u32(w, p->n_spread);
	for (uint32_t i = 0; i < p->n_spread; i++) {
		const tph_spread_constraint *s = &p->spread[i];
		if (s->max_skew <= 0 || s->min_domains < 0)
			return tph_w_fail(w, f, "item %u: maxSkew must be > 0, minDomains >= 0", i);
		if (!s->topology_key || !s->topology_key[0])
			return tph_w_fail(w, f, "item %u: empty topologyKey", i);
		tph_w_u32(w, (uint32_t)s->max_skew);
		tph_w_str(w, s->topology_key);
		tph_w_u32(w, s->do_not_schedule);
		tph_w_u32(w, (uint32_t)s->min_domains);
		tph_w_selector(w, &s->selector, f);
	}
}

static const tph_podaff_row *r_podaffs(tph_rd *r, uint32_t *n)
{
	*n = tph_r_u32(r);
	tph_podaff_row *a = tph_r_new(r, *n, sizeof *a), scratch;
	for (uint32_t i = 0; i < *n; i++) {
		tph_podaff_row *x = a ? &a[i] : &scratch;
		x->selector = tph_r_selector(r);
		x->n_namespaces = tph_r_u32(r);
		x->namespaces = tph_r_sids(r, x->n_namespaces);
		x->topology_key = tph_r_u32(r);
		x->weight = (int32_t)tph_r_u32(r);
	}
	return a;
}

static void r_tolerations(tph_rd *r, tph_pod_spec *s)
{
	s->n_tolerations = tph_r_u32(r);
	tph_tol_row *t = tph_r_new(r, s->n_tolerations, sizeof *t), scratch;
	for (uint32_t i = 0; i < s->n_tolerations; i++) {
		tph_tol_row *x = t ? &t[i] : &scratch;
		x->key = tph_r_u32(r);
		x->value = tph_r_u32(r);
		x->op = (uint8_t)tph_r_u32(r);
		x->effect = (int8_t)((int)tph_r_u32(r) - 1);
	}
	s->tolerations = t;
}

static void r_node_affinity(tph_rd *r, tph_pod_spec *s)
{
	s->n_node_required = tph_r_u32(r);
	tph_term_row *req = tph_r_new(r, s->n_node_required, sizeof *req), ts;
	for (uint32_t i = 0; i < s->n_node_required; i++)
		*(req ? &req[i] : &ts) = tph_r_term(r);
	s->node_required = req;
	s->n_node_preferred = tph_r_u32(r);
	tph_pref_row *pref = tph_r_new(r, s->n_node_preferred, sizeof *pref), ps;
	for (uint32_t i = 0; i < s->n_node_preferred; i++) {
		tph_pref_row *x = pref ? &pref[i] : &ps;
		x->weight = (int32_t)tph_r_u32(r);
		x->term = tph_r_term(r);
	}
	s->node_preferred = pref;
}

static void r_spread(tph_rd *r, tph_pod_spec *s)
{
	s->n_spread = tph_r_u32(r);
	tph_spread_row *sp = tph_r_new(r, s->n_spread, sizeof *sp), scratch;
	for (uint32_t i = 0; i < s->n_spread; i++) {
		tph_spread_row *x = sp ? &sp[i] : &scratch;
		x->max_skew = (int32_t)tph_r_u32(r);
		x->topology_key = tph_r_u32(r);
		x->do_not_schedule = tph_r_u32(r) != 0;
		x->min_domains = (int32_t)tph_r_u32(r);
		x->selector = tph_r_selector(r);
	}
	s->spread = sp;
}

/* Host ports as (ip, protocol, port) records, sorted: kube-scheduler's NodePorts compares them
 * as sets. A host IP left out is 0.0.0.0 and a protocol TCP (HostPortInfo.sanitize). */
static int cmp_port(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	for (int i = 0; i < 3; i++)
		if (x[i] != y[i])
			return x[i] < y[i] ? -1 : 1;
	return 0;
}

static void w_ports(tph_wr *w, const tph_pod_desc *p)
{
	const char *f = "hostPorts";
	if (p->n_host_ports && !p->host_ports)
		return tph_w_fail(w, f, "no items");
	tph_w_u32(w, p->n_host_ports);
	uint32_t start = w->c->nwords;
	for (uint32_t i = 0; i < p->n_host_ports; i++) {
		const tph_host_port *hp = &p->host_ports[i];
		if (hp->port < 1 || hp->port > 65535 || (unsigned)hp->protocol > TPH_PROTO_SCTP)
			return tph_w_fail(w, f, "item %u: port %d out of 1..65535 or bad protocol",
			                  i, (int)hp->port);
		tph_w_str(w, tph_empty(hp->host_ip) ? "0.0.0.0" : hp->host_ip);
		tph_w_u32(w, (uint32_t)hp->protocol);
		tph_w_u32(w, (uint32_t)hp->port);
	}
	if (w->err)
		return;
	uint32_t *rec = w->c->words + start;
	qsort(rec, p->n_host_ports, 3 * sizeof *rec, cmp_port);
	for (uint32_t i = 1; i < p->n_host_ports; i++)
		if (!cmp_port(rec + 3 * i, rec + 3 * (i - 1)))
			return tph_w_fail(w, f, "port %u/%s on %s given twice", rec[3 * i + 2],
			                  rec[3 * i + 1] == TPH_PROTO_TCP   ? "TCP"
			                  : rec[3 * i + 1] == TPH_PROTO_UDP ? "UDP"
			                                                    : "SCTP",
			                  tph_strtab_str(&w->c->strs, rec[3 * i]));
}

/* normalizedImageName (kube-scheduler's ImageLocality): a name whose last ':' does not come
 * after its last '/' has no tag and gets ":latest". */
static void w_image(tph_wr *w, const char *img, const char *field)
{
	if (!img || !img[0])
		return tph_w_fail(w, field, "empty image");
	const char *colon = strrchr(img, ':'), *slash = strrchr(img, '/');
	if (colon && (!slash || colon > slash))
		return tph_w_str(w, img);
	size_t n = strlen(img);
	if (n + 8 >= UINT32_MAX || tph_grow(&w->c->chars, &w->c->chars_cap, (uint32_t)n + 8, 1)) {
		w->err = tph_cl_oom(w->d, w->obj);
		return;
	}
	memcpy(w->c->chars, img, n);
	memcpy(w->c->chars + n, ":latest", 8);
	tph_w_str(w, w->c->chars);
}

/* The known images of the init containers, then of the containers, and the container count
 * (a pod without `images` has one container, of no known image). */
static void w_images(tph_wr *w, const tph_pod_desc *p)
{
	uint32_t known = 0;
	for (uint32_t i = 0; p->init_containers && i < p->n_init_containers; i++)
		known += p->init_containers[i].image != NULL;
	if (p->images.n && !p->images.items)
		return tph_w_fail(w, "images", "no items");
	tph_w_u32(w, known + p->images.n);
	for (uint32_t i = 0; p->init_containers && i < p->n_init_containers; i++)
		if (p->init_containers[i].image)
			w_image(w, p->init_containers[i].image, "initContainers");
	for (uint32_t i = 0; i < p->images.n; i++)
		w_image(w, p->images.items[i], "images");
	tph_w_u32(w, p->n_init_containers + (p->images.n ? p->images.n : 1));
}

static void r_ports_images(tph_rd *r, tph_pod_spec *s)
{
	s->n_host_ports = tph_r_u32(r);
	tph_port_row *ports = tph_r_new(r, s->n_host_ports, sizeof *ports), scratch;
	for (uint32_t i = 0; i < s->n_host_ports; i++) {
		tph_port_row *x = ports ? &ports[i] : &scratch;
		x->ip = tph_r_u32(r);
		x->protocol = (uint8_t)tph_r_u32(r);
		x->port = (int32_t)tph_r_u32(r);
	}
	s->host_ports = ports;
	s->n_images = tph_r_u32(r);
	s->images = tph_r_sids(r, s->n_images);
	s->n_containers = tph_r_u32(r);
}

static void *build_spec(tph_rd *r)
{
	tph_pod_spec *s = tph_r_new(r, 1, sizeof *s), scratch;
	tph_pod_spec *t = s ? s : &scratch; /* keep reading in step; the result is dropped */
	t->node_selector = tph_r_labels(r);
	r_tolerations(r, t);
	r_node_affinity(r, t);
	t->pod_required = r_podaffs(r, &t->n_pod_required);
	t->pod_preferred = r_podaffs(r, &t->n_pod_preferred);
	t->anti_required = r_podaffs(r, &t->n_anti_required);
	t->anti_preferred = r_podaffs(r, &t->n_anti_preferred);
	r_spread(r, t);
	r_ports_images(r, t);
	return s;
}

int tph_intern_pod_spec(tph_cluster *c, const tph_pod_desc *p, const char *obj,
                        const tph_pod_spec **out, tph_diag *d)
{
	static const tph_affinity none;
	const tph_affinity *a = p->affinity ? p->affinity : &none;
	tph_wr w;
	tph_w_begin(&w, c, TPH_B_SPEC, obj, d);
	tph_w_labels(&w, p->node_selector, "nodeSelector");
	w_tolerations(&w, p);
	w_node_affinity(&w, a);
	w_podaffs(&w, a->pod_required, a->n_pod_required, "podAffinity required");
	w_podaffs(&w, a->pod_preferred, a->n_pod_preferred, "podAffinity preferred");
	w_podaffs(&w, a->anti_required, a->n_anti_required, "podAntiAffinity required");
	w_podaffs(&w, a->anti_preferred, a->n_anti_preferred, "podAntiAffinity preferred");
	w_spread(&w, p);
	w_ports(&w, p);
	w_images(&w, p);
	void *fresh;
	int rc = tph_w_finish(&w, build_spec, (const void **)out, &fresh);
	if (!rc && fresh)
		((tph_pod_spec *)fresh)->id = c->n_specs++;
	return rc;
}

/* ---- pod meta ---- */

/* Limits as (name id, value) triples of words, sorted by name id. */
static void w_limits(tph_wr *w, tph_res_list l)
{
	const char *f = "limits";
	if (l.n && !l.items)
		return tph_w_fail(w, f, "no items");
	tph_w_u32(w, l.n);
	uint32_t start = w->c->nwords;
	for (uint32_t i = 0; i < l.n; i++) {
		const tph_res_item *it = &l.items[i];
		if (!it->name || !it->name[0])
			return tph_w_fail(w, f, "empty resource name");
		if (it->value < 0 || it->value > TPH_RES_VALUE_MAX)
			return tph_w_fail(w, f, "%s is negative or above 2^53 units", it->name);
		tph_w_str(w, it->name);
		tph_w_i64(w, it->value);
	}
	tph_w_sort_unique(w, start, l.n, 3, f, "resource");
}

/* Conditions as records of 8 words (type id, status, two times, reason, message), sorted by
 * type id: a pod's conditions are keyed by type. */
static void w_conditions(tph_wr *w, const tph_pod_desc *p)
{
	const char *f = "conditions";
	if (p->n_conditions && !p->conditions)
		return tph_w_fail(w, f, "no items");
	tph_w_u32(w, p->n_conditions);
	uint32_t start = w->c->nwords;
	for (uint32_t i = 0; i < p->n_conditions; i++) {
		const tph_pod_condition *x = &p->conditions[i];
		if (!x->type || !x->type[0] || (unsigned)x->status > TPH_COND_UNKNOWN)
			return tph_w_fail(w, f, "item %u: empty type or bad status", i);
		tph_w_str(w, x->type);
		tph_w_u32(w, (uint32_t)x->status);
		tph_w_i64(w, x->last_transition);
		tph_w_i64(w, x->last_probe);
		tph_w_str(w, x->reason);
		tph_w_str(w, x->message);
	}
	tph_w_sort_unique(w, start, p->n_conditions, 8, f, "type");
}

static void r_limits(tph_rd *r, tph_pod_meta *m)
{
	m->n_limits = tph_r_u32(r);
	tph_limit_row *l = tph_r_new(r, m->n_limits, sizeof *l), scratch;
	for (uint32_t i = 0; i < m->n_limits; i++) {
		tph_limit_row *x = l ? &l[i] : &scratch;
		x->name = tph_r_u32(r);
		x->value = tph_r_i64(r);
	}
	m->limits = l;
}

static void r_conditions(tph_rd *r, tph_pod_meta *m)
{
	m->n_conditions = tph_r_u32(r);
	tph_cond_row *c = tph_r_new(r, m->n_conditions, sizeof *c), scratch;
	for (uint32_t i = 0; i < m->n_conditions; i++) {
		tph_cond_row *x = c ? &c[i] : &scratch;
		x->type = tph_r_u32(r);
		x->status = (uint8_t)tph_r_u32(r);
		x->last_transition = tph_r_i64(r);
		x->last_probe = tph_r_i64(r);
		x->reason = tph_r_u32(r);
		x->message = tph_r_u32(r);
	}
	m->conditions = c;
}

static void *build_pod_meta(tph_rd *r)
{
	tph_pod_meta *m = tph_r_new(r, 1, sizeof *m), scratch;
	tph_pod_meta *t = m ? m : &scratch;
	t->labels = tph_r_labels(r);
	t->annotations = tph_r_labels(r);
	r_limits(r, t);
	r_conditions(r, t);
	t->phase = (uint8_t)tph_r_u32(r);
	return m;
}

int tph_intern_pod_meta(tph_cluster *c, const tph_pod_desc *p, const char *obj,
                        const tph_pod_meta **out, tph_diag *d)
{
	tph_wr w;
	tph_w_begin(&w, c, TPH_B_POD_META, obj, d);
	tph_w_labels(&w, p->labels, "labels");
	tph_w_labels(&w, p->annotations, "annotations");
	w_limits(&w, p->limits);
	w_conditions(&w, p);
	tph_w_u32(&w, (uint32_t)p->phase);
	return tph_w_finish(&w, build_pod_meta, (const void **)out, NULL);
}

/* ---- node meta ---- */

static void w_f64(tph_wr *w, double v)
{
	int64_t bits;
	memcpy(&bits, &v, sizeof bits);
	tph_w_i64(w, bits);
}

static double r_f64(tph_rd *r)
{
	int64_t bits = tph_r_i64(r);
	double v;
	memcpy(&v, &bits, sizeof v);
	return v;
}

static void w_taints(tph_wr *w, const tph_node_desc *n)
{
	if (n->n_taints && !n->taints)
		return tph_w_fail(w, "taints", "no items");
	tph_w_u32(w, n->n_taints);
	for (uint32_t i = 0; i < n->n_taints; i++) {
		const tph_taint *t = &n->taints[i];
		if (!t->key || !t->key[0] || (unsigned)t->effect > TPH_TAINT_NO_EXECUTE)
			return tph_w_fail(w, "taints", "item %u: empty key or bad effect", i);
		tph_w_str(w, t->key);
		tph_w_str(w, t->value);
		tph_w_u32(w, (uint32_t)t->effect);
	}
}

/* status.images as records (name, first, count, size) sorted by name: a name a node lists twice
 * keeps its first entry (addNodeImageStates), then each gets its summary against the cache. */
enum {
	IMG_W = 5
};

static int cmp_image(const void *a, const void *b)
{
	const uint32_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

static void w_node_images(tph_wr *w, const tph_node_desc *n, const tph_node_meta *old)
{
	const char *f = "images";
	if (n->n_images && !n->images)
		return tph_w_fail(w, f, "no items");
	uint32_t at = w->c->nwords, k = 0;
	tph_w_u32(w, 0);
	for (uint32_t i = 0; i < n->n_images && !w->err; i++) {
		const tph_node_image *im = &n->images[i];
		if (!im->names.n || !im->names.items || im->size_bytes < 0)
			return tph_w_fail(w, f, "item %u: no names or a negative size", i);
		for (uint32_t j = 0; j < im->names.n; j++, k++) {
			if (tph_empty(im->names.items[j]))
				return tph_w_fail(w, f, "item %u: empty name", i);
			tph_w_str(w, im->names.items[j]);
			tph_w_u32(w, k);
			tph_w_u32(w, 0);
			tph_w_i64(w, im->size_bytes);
		}
	}
	if (w->err)
		return;
	uint32_t *rec = w->c->words + at + 1, m = 0;
	qsort(rec, k, IMG_W * sizeof *rec, cmp_image);
	for (uint32_t i = 0; i < k; i++) {
		if (m && rec[IMG_W * i] == rec[IMG_W * (m - 1)])
			continue;
		uint32_t *x = rec + IMG_W * m++;
		memmove(x, rec + IMG_W * i, IMG_W * sizeof *x);
		int64_t size = (int64_t)((uint64_t)x[3] | (uint64_t)x[4] << 32);
		tph_images_summary(w->c, x[0], size, old, &size, &x[2]);
		x[1] = 0; /* canonical: equal image lists make equal blobs */
		x[3] = (uint32_t)(uint64_t)size;
		x[4] = (uint32_t)((uint64_t)size >> 32);
	}
	w->c->words[at] = m;
	w->c->nwords = at + 1 + IMG_W * m;
}

static void r_node_images(tph_rd *r, tph_node_meta *m)
{
	m->n_images = tph_r_u32(r);
	tph_image_row *im = tph_r_new(r, m->n_images, sizeof *im), scratch;
	for (uint32_t i = 0; i < m->n_images; i++) {
		tph_image_row *x = im ? &im[i] : &scratch;
		x->name = tph_r_u32(r);
		(void)tph_r_u32(r);
		x->num_nodes = tph_r_u32(r);
		x->size = tph_r_i64(r);
	}
	m->images = im;
}

static void *build_node_meta(tph_rd *r)
{
	tph_node_meta *m = tph_r_new(r, 1, sizeof *m), scratch;
	tph_node_meta *t = m ? m : &scratch;
	t->labels = tph_r_labels(r);
	t->annotations = tph_r_labels(r);
	t->n_taints = tph_r_u32(r);
	tph_taint_row *taints = tph_r_new(r, t->n_taints, sizeof *taints), ts;
	for (uint32_t i = 0; i < t->n_taints; i++) {
		tph_taint_row *x = taints ? &taints[i] : &ts;
		x->key = tph_r_u32(r);
		x->value = tph_r_u32(r);
		x->effect = (uint8_t)tph_r_u32(r);
	}
	t->taints = taints;
	t->usage.present = tph_r_u32(r) != 0;
	t->usage.period_s = tph_r_i64(r);
	t->usage.cpu_pct = r_f64(r);
	t->usage.mem_pct = r_f64(r);
	t->usage.metrics_time = tph_r_i64(r);
	t->numa = tph_r_node_numa(r);
	r_node_images(r, t);
	return m;
}

int tph_intern_node_meta(tph_cluster *c, const tph_node_desc *n, const tph_node_meta *old,
                         const char *obj, const tph_node_meta **out, tph_diag *d)
{
	tph_wr w;
	tph_w_begin(&w, c, TPH_B_NODE_META, obj, d);
	tph_w_labels(&w, n->labels, "labels");
	tph_w_labels(&w, n->annotations, "annotations");
	w_taints(&w, n);
	const tph_node_usage *u = &n->usage;
	tph_w_u32(&w, u->present);
	tph_w_i64(&w, u->present ? u->period_s : 0);
	w_f64(&w, u->present ? u->cpu_pct : 0.0);
	w_f64(&w, u->present ? u->mem_pct : 0.0);
	tph_w_i64(&w, u->present ? u->metrics_time : 0);
	tph_w_node_numa(&w, n->numa);
	w_node_images(&w, n, old);
	return tph_w_finish(&w, build_node_meta, (const void **)out, NULL);
}

/* ---- job meta ---- */

static void w_min_tasks(tph_wr *w, const tph_podgroup_desc *g)
{
	const char *f = "minTaskMember";
	if (g->n_min_tasks && !g->min_tasks)
		return tph_w_fail(w, f, "no items");
	tph_w_u32(w, g->n_min_tasks);
	for (uint32_t i = 0; i < g->n_min_tasks; i++) {
		const char *role = g->min_tasks[i].task_spec ? g->min_tasks[i].task_spec : "";
		if (g->min_tasks[i].min < 0)
			return tph_w_fail(w, f, "%s: negative", role);
		for (uint32_t j = 0; j < i; j++)
			if (!strcmp(role,
			            g->min_tasks[j].task_spec ? g->min_tasks[j].task_spec : ""))
				return tph_w_fail(w, f, "\"%s\" given twice", role);
		tph_w_str(w, role);
		tph_w_u32(w, (uint32_t)g->min_tasks[i].min);
	}
}

static void w_topology(tph_wr *w, const tph_net_topology *t, const char *field)
{
	if ((unsigned)t->mode > TPH_TOPO_SOFT)
		return tph_w_fail(w, field, "bad mode %d", (int)t->mode);
	tph_w_u32(w, (uint32_t)t->mode);
	tph_w_u32(w, (uint32_t)(t->highest_tier < 0 ? -1 : t->highest_tier));
	tph_w_u32(w, t->highest_tier_name ? 1u : 0u);
	if (t->highest_tier_name)
		tph_w_str(w, t->highest_tier_name);
}

static void w_subgroups(tph_wr *w, const tph_podgroup_desc *g)
{
	const char *f = "subGroupPolicy";
	if (g->n_subgroups && !g->subgroups)
		return tph_w_fail(w, f, "no items");
	tph_w_u32(w, g->n_subgroups);
	for (uint32_t i = 0; i < g->n_subgroups; i++) {
		const tph_subgroup_policy *s = &g->subgroups[i];
		if (s->subgroup_size <= 0)
			return tph_w_fail(w, f,
			                  "item %u: subGroupSize must be positive (start from "
			                  "TPH_SUBGROUP_POLICY_INIT, which sets 1)",
			                  i);
		if (s->min_subgroups < 0)
			return tph_w_fail(w, f, "item %u: negative minSubGroups", i);
		tph_w_str(w, s->name);
		tph_w_u32(w, (uint32_t)s->subgroup_size);
		tph_w_u32(w, (uint32_t)s->min_subgroups);
		tph_w_strs(w, s->match_label_keys, f);
		tph_w_selector(w, &s->selector, f);
		w_topology(w, &s->topology, f);
	}
}

static void r_subgroup(tph_rd *r, tph_subgroup_row *x)
{
	x->name = tph_r_u32(r);
	x->subgroup_size = (int32_t)tph_r_u32(r);
	x->min_subgroups = (int32_t)tph_r_u32(r);
	x->n_match_label_keys = tph_r_u32(r);
	x->match_label_keys = tph_r_sids(r, x->n_match_label_keys);
	x->selector = tph_r_selector(r);
	x->topo_mode = (uint8_t)tph_r_u32(r);
	x->topo_tier = (int32_t)tph_r_u32(r);
	x->topo_tier_name = tph_r_u32(r) ? tph_r_u32(r) : TPH_SID_NONE;
}

static void *build_job_meta(tph_rd *r)
{
	tph_job_meta *m = tph_r_new(r, 1, sizeof *m), scratch;
	tph_job_meta *t = m ? m : &scratch;
	t->annotations = tph_r_labels(r);
	t->n_min_tasks = tph_r_u32(r);
	tph_label *roles = tph_r_new(r, t->n_min_tasks, sizeof *roles), rs;
	int32_t *counts = tph_r_new(r, t->n_min_tasks, sizeof *counts), cs;
	for (uint32_t i = 0; i < t->n_min_tasks; i++) {
		*(roles ? &roles[i] : &rs) = (tph_label){tph_r_u32(r), TPH_SID_EMPTY};
		*(counts ? &counts[i] : &cs) = (int32_t)tph_r_u32(r);
	}
	t->min_tasks = roles;
	t->min_task_counts = counts;
	t->n_subgroups = tph_r_u32(r);
	tph_subgroup_row *sg = tph_r_new(r, t->n_subgroups, sizeof *sg), ss;
	for (uint32_t i = 0; i < t->n_subgroups; i++)
		r_subgroup(r, sg ? &sg[i] : &ss);
	t->subgroups = sg;
	return m;
}

int tph_intern_job_meta(tph_cluster *c, const tph_podgroup_desc *g, const char *obj,
                        const tph_job_meta **out, tph_diag *d)
{
	tph_wr w;
	tph_w_begin(&w, c, TPH_B_JOB_META, obj, d);
	tph_w_labels(&w, g->annotations, "annotations");
	w_min_tasks(&w, g);
	w_subgroups(&w, g);
	return tph_w_finish(&w, build_job_meta, (const void **)out, NULL);
}

/* ---- queue meta ---- */

static void *build_queue_meta(tph_rd *r)
{
	tph_queue_meta *m = tph_r_new(r, 1, sizeof *m), scratch;
	tph_queue_meta *t = m ? m : &scratch;
	t->annotations = tph_r_labels(r);
	t->n_aff_required = tph_r_u32(r);
	t->aff_required = tph_r_sids(r, t->n_aff_required);
	t->n_aff_preferred = tph_r_u32(r);
	t->aff_preferred = tph_r_sids(r, t->n_aff_preferred);
	t->n_anti_required = tph_r_u32(r);
	t->anti_required = tph_r_sids(r, t->n_anti_required);
	t->n_anti_preferred = tph_r_u32(r);
	t->anti_preferred = tph_r_sids(r, t->n_anti_preferred);
	t->has_affinity = tph_r_u32(r) != 0;
	return m;
}

int tph_intern_queue_meta(tph_cluster *c, const tph_queue_desc *q, const char *obj,
                          const tph_queue_meta **out, tph_diag *d)
{
	tph_wr w;
	tph_w_begin(&w, c, TPH_B_QUEUE_META, obj, d);
	tph_w_labels(&w, q->annotations, "annotations");
	tph_w_strs(&w, q->affinity_required, "nodeGroupAffinity required");
	tph_w_strs(&w, q->affinity_preferred, "nodeGroupAffinity preferred");
	tph_w_strs(&w, q->anti_affinity_required, "nodeGroupAntiAffinity required");
	tph_w_strs(&w, q->anti_affinity_preferred, "nodeGroupAntiAffinity preferred");
	tph_w_u32(&w, q->has_affinity || q->affinity_required.n || q->affinity_preferred.n ||
	                  q->anti_affinity_required.n || q->anti_affinity_preferred.n);
	return tph_w_finish(&w, build_queue_meta, (const void **)out, NULL);
}

/* ---- hypernode members ---- */

static void w_member(tph_wr *w, const tph_hypernode_member *m, uint32_t i)
{
	const char *f = "members";
	const char *s = m->name_or_regex;
	if ((unsigned)m->kind > TPH_MEMBER_LABELS)
		return tph_w_fail(w, f, "item %u: bad kind", i);
	if (m->kind != TPH_MEMBER_LABELS && (!s || !s[0]))
		return tph_w_fail(w, f, "item %u: empty name", i);
	if (m->kind == TPH_MEMBER_REGEX) {
		tph_re *re;
		char why[256];
		int rc = tph_re_compile(s, &re, why, sizeof why);
		tph_re_free(re);
		if (rc == TPH_ENOMEM && !w->err) {
			w->err = tph_cl_oom(w->d, w->obj);
			return;
		}
		if (rc != TPH_OK)
			return tph_w_fail(w, f, "item %u: bad regex \"%s\": %s", i, s, why);
	}
	tph_w_u32(w, (uint32_t)m->kind);
	tph_w_str(w, m->kind == TPH_MEMBER_LABELS ? "" : s);
	tph_w_labels(w, m->labels, f);
}

static void *build_members(tph_rd *r)
{
	uint32_t n = tph_r_u32(r);
	tph_hn_member_row *m = tph_r_new(r, n ? n : 1, sizeof *m), scratch;
	for (uint32_t i = 0; i < n; i++) {
		tph_hn_member_row *x = m ? &m[i] : &scratch;
		x->kind = (uint8_t)tph_r_u32(r);
		x->name = tph_r_u32(r);
		x->labels = tph_r_labels(r);
	}
	return m;
}

int tph_intern_members(tph_cluster *c, const tph_hypernode_desc *h, const char *obj,
                       const tph_hn_member_row **out, tph_diag *d)
{
	tph_wr w;
	tph_w_begin(&w, c, TPH_B_MEMBERS, obj, d);
	if (h->n_members && !h->members)
		tph_w_fail(&w, "members", "no items");
	tph_w_u32(&w, h->n_members);
	for (uint32_t i = 0; i < h->n_members && !w.err; i++)
		w_member(&w, &h->members[i], i);
	return tph_w_finish(&w, build_members, (const void **)out, NULL);
}

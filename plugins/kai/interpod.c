/* Inter-pod affinity counts (interpod_int.h): pod classes and their rules, the topology
 * domains of every key the rules name, and per task the rules it feeds and the owner rules that
 * apply to it, built at open; then counters that placements move. Kubernetes' InterPodAffinity
 * keeps maps keyed by (topology key, value); a counter per (rule, domain) answers the same
 * questions, since every test there is "some pair > 0" or a sum over pairs. */
#include "interpod_int.h"

#include "tephra/alloc.h"

#include <stdlib.h>
#include <string.h>

static bool wants(const tph_pod_spec *sp, unsigned want)
{
	return ((want & IP_REQUIRED) && (sp->n_pod_required || sp->n_anti_required)) ||
	       ((want & IP_PREFERRED) && (sp->n_pod_preferred || sp->n_anti_preferred));
}

typedef struct cls_key {
	uint32_t spec, task;
	tph_sid ns;
} cls_key;

static int cmp_cls(const void *a, const void *b)
{
	const cls_key *x = a, *y = b;
	if (x->spec != y->spec)
		return x->spec < y->spec ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->task < y->task ? -1 : x->task > y->task;
}

/* Pods with one spec in one namespace read their terms alike: one class each. rep[c] is a
 * task of class c. */
static int classes(ip_index *ix, const tph_kai_tasks *k, unsigned want, uint32_t **rep)
{
	cls_key *ks = tph_calloc((size_t)k->n + 1, sizeof *ks);
	*rep = tph_calloc((size_t)k->n + 1, sizeof **rep);
	if (!ks || !*rep) {
		tph_free(ks);
		return TPH_ENOMEM;
	}
	uint32_t n = 0;
	for (uint32_t t = 0; t < k->n; t++) {
		ix->cls[t] = -1;
		if (wants(k->spec[t], want))
			ks[n++] = (cls_key){k->spec[t]->id, t, k->ns[t]};
	}
	qsort(ks, n, sizeof *ks, cmp_cls);
	for (uint32_t i = 0; i < n; i++) {
		if (i == 0 || ks[i].spec != ks[i - 1].spec || ks[i].ns != ks[i - 1].ns)
			(*rep)[ix->n_cls++] = ks[i].task;
		ix->cls[ks[i].task] = (int32_t)ix->n_cls - 1;
	}
	tph_free(ks);
	return TPH_OK;
}

static int key_index(ip_index *ix, tph_sid key)
{
	for (uint32_t k = 0; k < ix->n_keys; k++)
		if (ix->keys[k] == key)
			return (int)k;
	tph_sid *grown = tph_realloc(ix->keys, ((size_t)ix->n_keys + 1) * sizeof *grown);
	if (!grown)
		return TPH_ENOMEM;
	ix->keys = grown;
	ix->keys[ix->n_keys] = key;
	return (int)ix->n_keys++;
}

static int add_rules(ip_index *ix, uint32_t c, ip_kind kind, const tph_podaff_row *terms,
                     uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		int k = key_index(ix, terms[i].topology_key);
		ip_rule *grown = tph_realloc(ix->rules, ((size_t)ix->n_rules + 1) * sizeof *grown);
		if (k < 0 || !grown)
			return TPH_ENOMEM;
		ix->rules = grown;
		int32_t w =
		    kind == IP_PANTI || kind == IP_XPANTI ? -terms[i].weight : terms[i].weight;
		bool scored =
		    kind == IP_PAFF || kind == IP_PANTI || kind == IP_XPAFF || kind == IP_XPANTI;
		ix->rules[ix->n_rules++] =
		    (ip_rule){(uint8_t)kind, c, (uint32_t)k, scored ? w : 0, 0, NULL, &terms[i]};
	}
	return TPH_OK;
}

/* Each class's own rules, contiguous, then every class's owner rules. */
static int rules(ip_index *ix, const tph_kai_tasks *k, unsigned want, const uint32_t *rep)
{
	ix->own_first = tph_calloc((size_t)ix->n_cls + 1, sizeof *ix->own_first);
	if (!ix->own_first)
		return TPH_ENOMEM;
	int rc = TPH_OK;
	for (uint32_t c = 0; c < ix->n_cls && rc == TPH_OK; c++) {
		const tph_pod_spec *sp = k->spec[rep[c]];
		ix->own_first[c] = ix->n_rules;
		if (want & IP_REQUIRED) {
			rc = add_rules(ix, c, IP_AFF, sp->pod_required, sp->n_pod_required);
			if (rc == TPH_OK)
				rc = add_rules(ix, c, IP_ANTI, sp->anti_required,
				               sp->n_anti_required);
		}
		if ((want & IP_PREFERRED) && rc == TPH_OK) {
			rc = add_rules(ix, c, IP_PAFF, sp->pod_preferred, sp->n_pod_preferred);
			if (rc == TPH_OK)
				rc = add_rules(ix, c, IP_PANTI, sp->anti_preferred,
				               sp->n_anti_preferred);
		}
	}
	ix->own_first[ix->n_cls] = ix->n_rules;
	for (uint32_t c = 0; c < ix->n_cls && rc == TPH_OK; c++) {
		const tph_pod_spec *sp = k->spec[rep[c]];
		if (want & IP_REQUIRED)
			rc = add_rules(ix, c, IP_XANTI, sp->anti_required, sp->n_anti_required);
		if ((want & IP_PREFERRED) && rc == TPH_OK) {
			rc = add_rules(ix, c, IP_XPAFF, sp->pod_preferred, sp->n_pod_preferred);
			if (rc == TPH_OK)
				rc = add_rules(ix, c, IP_XPANTI, sp->anti_preferred,
				               sp->n_anti_preferred);
		}
	}
	return rc;
}

/* Per key, the nodes with one value of the label form one domain, numbered densely. */
static int domains(ip_index *ix, const tph_kai_nodes *nd)
{
	uint32_t n = nd->n;
	ix->dom = tph_calloc((size_t)ix->n_keys * n + 1, sizeof *ix->dom);
	ix->n_dom = tph_calloc((size_t)ix->n_keys + 1, sizeof *ix->n_dom);
	if (!ix->dom || !ix->n_dom)
		return TPH_ENOMEM;
	for (uint32_t k = 0; k < ix->n_keys; k++) {
		int rc = tph_k8s_domains(nd->meta, n, ix->keys[k], ix->dom + (size_t)k * n,
		                         &ix->n_dom[k]);
		if (rc < 0)
			return rc;
	}
	for (uint32_t r = 0; r < ix->n_rules; r++) {
		ix->rules[r].count =
		    tph_calloc((size_t)ix->n_dom[ix->rules[r].key] + 1, sizeof(int64_t));
		if (!ix->rules[r].count)
			return TPH_ENOMEM;
	}
	return TPH_OK;
}

static bool matches(const tph_podaff_row *term, tph_sid owner_ns, const tph_kai_tasks *k,
                    uint32_t t)
{
	return tph_k8s_term_matches(term, owner_ns, k->ns[t], k->meta[t]->labels);
}

/* podMatchesAllAffinityTerms: false without terms. */
static bool matches_all(const tph_pod_spec *sp, tph_sid owner_ns, const tph_kai_tasks *k,
                        uint32_t t)
{
	for (uint32_t i = 0; i < sp->n_pod_required; i++)
		if (!matches(&sp->pod_required[i], owner_ns, k, t))
			return false;
	return sp->n_pod_required > 0;
}

/* Does placing t move rule r (feed), and does r's term apply to t as an incoming pod (xq)? */
static void relation(const ip_index *ix, const tph_kai_tasks *k, const uint32_t *rep,
                     const ip_rule *r, uint32_t t, bool *feed, bool *xq)
{
	uint32_t owner = rep[r->cls];
	tph_sid ns = k->ns[owner];
	*feed = *xq = false;
	if (r->kind == IP_AFF)
		*feed = matches_all(k->spec[owner], ns, k, t);
	else if (r->kind < IP_XANTI)
		*feed = matches(r->term, ns, k, t);
	else {
		*feed = ix->cls[t] == (int32_t)r->cls;
		*xq = matches(r->term, ns, k, t);
	}
}

/* A task with the labels, namespace and class of the one before it relates to the rules alike. */
static bool like_prev(const ip_index *ix, const tph_kai_tasks *k, uint32_t t)
{
	return t > 0 && k->meta[t] == k->meta[t - 1] && k->ns[t] == k->ns[t - 1] &&
	       ix->cls[t] == ix->cls[t - 1];
}

/* The two CSR lists, counted on the first pass (fill false), written on the second. */
static void relate_all(ip_index *ix, const tph_kai_tasks *k, const uint32_t *rep, bool fill)
{
	uint32_t nf = 0, nx = 0;
	for (uint32_t t = 0; t < k->n; t++) {
		if (like_prev(ix, k, t)) {
			for (uint32_t i = ix->feed_first[t - 1]; i < ix->feed_first[t]; i++, nf++)
				if (fill)
					ix->feed[nf] = ix->feed[i];
			for (uint32_t i = ix->xq_first[t - 1]; i < ix->xq_first[t]; i++, nx++)
				if (fill)
					ix->xq[nx] = ix->xq[i];
		} else {
			for (uint32_t r = 0; r < ix->n_rules; r++) {
				bool feed, xq;
				relation(ix, k, rep, &ix->rules[r], t, &feed, &xq);
				if (fill && feed)
					ix->feed[nf] = r;
				if (fill && xq)
					ix->xq[nx] = r;
				nf += feed, nx += xq;
			}
		}
		ix->feed_first[t + 1] = nf, ix->xq_first[t + 1] = nx;
		if (fill)
			ix->self_aff[t] =
			    ix->cls[t] >= 0 && matches_all(k->spec[t], k->ns[t], k, t);
	}
}

static int relate(ip_index *ix, const tph_kai_tasks *k, const uint32_t *rep)
{
	ix->feed_first = tph_calloc((size_t)k->n + 1, sizeof *ix->feed_first);
	ix->xq_first = tph_calloc((size_t)k->n + 1, sizeof *ix->xq_first);
	ix->self_aff = tph_calloc((size_t)k->n + 1, 1);
	if (!ix->feed_first || !ix->xq_first || !ix->self_aff)
		return TPH_ENOMEM;
	relate_all(ix, k, rep, false);
	ix->feed = tph_calloc((size_t)ix->feed_first[k->n] + 1, sizeof *ix->feed);
	ix->xq = tph_calloc((size_t)ix->xq_first[k->n] + 1, sizeof *ix->xq);
	if (!ix->feed || !ix->xq)
		return TPH_ENOMEM;
	relate_all(ix, k, rep, true);
	return TPH_OK;
}

static void count(ip_index *ix, uint32_t t, uint32_t node, int sign)
{
	for (uint32_t i = ix->feed_first[t]; i < ix->feed_first[t + 1]; i++) {
		ip_rule *r = &ix->rules[ix->feed[i]];
		uint32_t d = ix->dom[(size_t)r->key * ix->n_nodes + node];
		if (d != TPH_NOIDX)
			r->count[d] += sign, r->total += sign;
	}
}

/* KAI's node infos hold every pod in an active status, Releasing ones included. */
static void count_open(ip_index *ix, const tph_kai_session *s)
{
	const uint8_t *st = tph_kai_session_status(s);
	const int32_t *node = tph_kai_session_node(s);
	for (uint32_t t = 0; t < ix->n_tasks; t++) {
		ix->at[t] = -1;
		ix->home[t] = node[t] >= 0 && tph_kai_active_used(st[t]) ? node[t] : -1;
		if (ix->home[t] >= 0)
			count(ix, t, (uint32_t)ix->home[t], +1);
	}
}

static int build(ip_index *ix, const tph_kai_session *s, unsigned want)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	uint32_t *rep = NULL;
	ix->n_tasks = v->tasks.n, ix->n_nodes = v->nodes.n;
	ix->cls = tph_calloc((size_t)v->tasks.n + 1, sizeof *ix->cls);
	ix->at = tph_calloc((size_t)v->tasks.n + 1, sizeof *ix->at);
	ix->home = tph_calloc((size_t)v->tasks.n + 1, sizeof *ix->home);
	int rc = ix->cls && ix->at && ix->home ? classes(ix, &v->tasks, want, &rep) : TPH_ENOMEM;
	if (rc == TPH_OK)
		rc = rules(ix, &v->tasks, want, rep);
	if (rc == TPH_OK)
		rc = domains(ix, &v->nodes);
	if (rc == TPH_OK)
		rc = relate(ix, &v->tasks, rep);
	if (rc == TPH_OK)
		count_open(ix, s);
	tph_free(rep);
	return rc;
}

int ip_build(const tph_kai_session *s, unsigned want, ip_index **out)
{
	const tph_kai_tasks *k = &tph_kai_session_view(s)->tasks;
	*out = NULL;
	bool any = false;
	for (uint32_t t = 0; t < k->n && !any; t++)
		any = wants(k->spec[t], want);
	if (!any)
		return TPH_OK;
	ip_index *ix = tph_calloc(1, sizeof *ix);
	int rc = ix ? build(ix, s, want) : TPH_ENOMEM;
	if (rc < 0) {
		ip_free(ix);
		return rc;
	}
	*out = ix;
	return TPH_OK;
}

void ip_free(ip_index *ix)
{
	if (!ix)
		return;
	for (uint32_t r = 0; r < ix->n_rules; r++)
		tph_free(ix->rules[r].count);
	void *cols[] = {ix->keys,     ix->dom,      ix->n_dom, ix->rules, ix->own_first,
	                ix->cls,      ix->self_aff, ix->feed,  ix->xq,    ix->feed_first,
	                ix->xq_first, ix->at,       ix->home};
	for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
		tph_free(cols[i]);
	tph_free(ix);
}

/* KAI adds a pod to its node's info when placed and keeps it there while Releasing (an
 * evicted victim stays on its old node even when pipelined elsewhere), so: a placement away
 * from the pod's node at open counts once; an undo of it uncounts; evictions, unevictions and
 * their undos (events on a Releasing pod or on its node at open) change nothing. */
void ip_event(ip_index *ix, const tph_kai_session *s, uint32_t t, int32_t node, int sign)
{
	if (node < 0 || node == ix->home[t])
		return;
	if (sign > 0 && ix->at[t] < 0) {
		ix->at[t] = node;
		count(ix, t, (uint32_t)node, +1);
	} else if (sign < 0 && ix->at[t] == node &&
	           tph_kai_session_status(s)[t] != TPH_KAI_TS_RELEASING) {
		ix->at[t] = -1;
		count(ix, t, (uint32_t)node, -1);
	}
}

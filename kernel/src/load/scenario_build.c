/* Last step of a scenario load: everything is decoded and checked, so fill a fresh cache with
 * the descriptors. A cache error still names the file, line and object. */
#include "cache/cluster_int.h"
#include "scenario_ld.h"

#include "base/msg_text.h"

#include <stdio.h>
#include <string.h>

/* Where an object's item is: the section's value under the root, item `i` of it (`i` < 0: the
 * section itself), or NULL. */
static const yu_node *item_at(const yu_ctx *c, const yu_node *root, const char *sec, long i)
{
	const yu_node *v = root && root->type == YU_MAP ? yu_map_find(c, root, sec) : NULL;
	if (!v || i < 0)
		return v;
	return v->type == YU_SEQ && (size_t)i < yu_seq_len(v) ? yu_at(c, v->u.items[i]) : NULL;
}

/* A cache error reads "<object>: <field>: <why>" with the object as the cache names it. The
 * document is gone by now (its pages went to the cache) and such errors are rare, so the text
 * is parsed again to point at the item, or at the field when it is one of the item's keys,
 * naming the object once. */
static int wrap(sc_ld *L, int rc, const char *sec, long i, const char *kind, const char *ns,
                const char *name, uint32_t line)
{
	tph_diag *d = L->c.d;
	if (!d)
		return rc;
	char msg[sizeof d->msg], raw[600], who[sizeof raw * 4], field[128] = "";
	char a[TPH_MSG_NAME_MAX + 4], b[TPH_MSG_NAME_MAX + 4];
	memcpy(msg, d->msg, sizeof msg);
	msg[sizeof msg - 1] = '\0';
	/* the object as the cache wrote it: names cut, then escaped */
	snprintf(raw, sizeof raw, "%s%s%s: ", ns ? tph_msg_name(ns, a) : "", ns ? "/" : "",
	         tph_msg_name(name, b));
	tph_msg_escape(who, sizeof who, raw);
	const char *why = strstr(msg, who) ? strstr(msg, who) + strlen(who) : msg;
	const char *colon = strstr(why, ": ");
	if (colon && (size_t)(colon - why) < sizeof field)
		memcpy(field, why, (size_t)(colon - why)), field[colon - why] = '\0';
	yu_doc doc;
	tph_diag scratch = {0};
	if (yu_load(L->buf, L->len, L->sc->file, 0, 0, &doc, &scratch) != TPH_OK)
		return tph_diag_set(d, rc, "%s:%u:1: %s %s%s%s: %s", L->sc->file, (unsigned)line,
		                    kind, ns ? ns : "", ns ? "/" : "", name, why);
	yu_ctx c;
	yu_ctx_init(&c, &doc, L->sc->file, NULL, d);
	yu_set_obj(&c, kind, ns, name, -1);
	const yu_node *item =
	    item_at(&c, doc.root == YU_NONE ? NULL : &doc.nodes[doc.root], sec, i);
	const yu_node *at = field[0] && item ? yu_map_find(&c, item, field) : NULL;
	if (at)
		yu_push(&c, field);
	if (item)
		rc = yu_err(&c, at ? at : item, rc, "%s", at ? colon + 2 : why);
	else
		rc = tph_diag_set(d, rc, "%s:%u:1: %s %s%s%s: %s", L->sc->file, (unsigned)line,
		                  kind, ns ? ns : "", ns ? "/" : "", name, why);
	yu_doc_free(&doc);
	return rc;
}

static int put_cluster_scoped(sc_ld *L, tph_cluster *cl)
{
	tph_scenario *sc = L->sc;
	tph_diag *d = L->c.d;
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < sc->n_pclasses; i++)
		if ((rc = tph_cluster_put_priority_class(cl, &sc->pclasses[i].d, d)) < 0)
			return wrap(L, rc, "priorityClasses", i, "priorityClass", NULL,
			            sc->pclasses[i].d.name, sc->pclasses[i].line);
	for (uint32_t i = 0; rc == TPH_OK && i < sc->n_queues; i++)
		if ((rc = tph_cluster_put_queue(cl, &sc->queues[i].d, d)) < 0)
			return wrap(L, rc, "queues", i, "queue", NULL, sc->queues[i].d.name,
			            sc->queues[i].line);
	for (uint32_t i = 0; rc == TPH_OK && i < sc->n_nodes; i++)
		if ((rc = tph_cluster_put_node(cl, &sc->nodes[i].d, d)) < 0)
			return wrap(L, rc, "nodes", i, "node", NULL, sc->nodes[i].d.name,
			            sc->nodes[i].line);
	for (uint32_t i = 0; rc == TPH_OK && i < sc->n_hypernodes; i++)
		if ((rc = tph_cluster_put_hypernode(cl, &sc->hypernodes[i].d, d)) < 0)
			return wrap(L, rc, "hyperNodes", i, "hyperNode", NULL,
			            sc->hypernodes[i].d.name, sc->hypernodes[i].line);
	return rc;
}

static int put_namespaced(sc_ld *L, tph_cluster *cl)
{
	tph_scenario *sc = L->sc;
	tph_diag *d = L->c.d;
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < sc->n_quotas; i++) {
		const tph_quota_desc *q = &sc->quotas[i].d;
		if ((rc = tph_cluster_put_quota(cl, q, d)) < 0)
			return wrap(L, rc, "resourceQuotas", i, "resourceQuota", q->namespace_,
			            q->name, sc->quotas[i].line);
	}
	for (uint32_t i = 0; rc == TPH_OK && i < sc->n_pdbs; i++) {
		const tph_pdb_desc *p = &sc->pdbs[i].d;
		if ((rc = tph_cluster_put_pdb(cl, p, d)) < 0)
			return wrap(L, rc, "podDisruptionBudgets", i, "podDisruptionBudget",
			            p->namespace_, p->name, sc->pdbs[i].line);
	}
	for (uint32_t i = 0; rc == TPH_OK && i < sc->n_podgroups; i++) {
		const tph_podgroup_desc *g = &sc->podgroups[i].d;
		if ((rc = tph_cluster_put_podgroup(cl, g, d)) < 0)
			return wrap(L, rc, "podGroups", i, "podGroup", g->namespace_, g->name,
			            sc->podgroups[i].line);
	}
	for (uint32_t i = 0; rc == TPH_OK && i < sc->n_pods; i++) {
		const tph_pod_desc *p = &sc->pods[i].d;
		if (i + 1 < sc->n_pods)
			tph_cl_prefetch_pod(cl, &sc->pods[i + 1].d);
		if ((rc = tph_cluster_put_pod(cl, p, d)) < 0)
			return wrap(L, rc, "pods", i, "pod", p->namespace_, p->name,
			            sc->pods[i].line);
	}
	return rc;
}

/* The cache is fresh and every put succeeded, so an object's slot is its index in its section. */
static int check_totals(sc_ld *L)
{
	const tph_scenario *sc = L->sc;
	const tph_cluster *cl = sc->cluster;
	tph_cl_total_at at = {0};
	int rc = tph_cl_check_totals(cl, &at, L->c.d);
	uint32_t i = at.slot;
	if (rc == TPH_OK)
		return rc;
	if (at.kind == &cl->nodes)
		return wrap(L, rc, "nodes", i, "node", NULL, sc->nodes[i].d.name,
		            sc->nodes[i].line);
	if (at.kind == &cl->queues)
		return wrap(L, rc, "queues", i, "queue", NULL, sc->queues[i].d.name,
		            sc->queues[i].line);
	if (at.kind == &cl->pgs)
		return wrap(L, rc, "podGroups", i, "podGroup", sc->podgroups[i].d.namespace_,
		            sc->podgroups[i].d.name, sc->podgroups[i].line);
	if (at.kind == &cl->quotas)
		return wrap(L, rc, "resourceQuotas", i, "resourceQuota", sc->quotas[i].d.namespace_,
		            sc->quotas[i].d.name, sc->quotas[i].line);
	return wrap(L, rc, "pods", i, "pod", sc->pods[i].d.namespace_, sc->pods[i].d.name,
	            sc->pods[i].line);
}

int sc_build(sc_ld *L)
{
	tph_scenario *sc = L->sc;
	int rc = tph_cluster_create(&sc->cluster);
	if (rc < 0)
		return tph_diag_set(L->c.d, rc, "%s: cannot create the cluster cache: %s", sc->file,
		                    tph_strerror(rc));
	/* a pod brings three new strings (key, name, uid), a podgroup as many, a node two */
	uint64_t strings = 3ull * sc->n_pods + 3ull * sc->n_podgroups + 2ull * sc->n_nodes;
	if (tph_cl_reserve_strings(sc->cluster, strings < UINT32_MAX / 2 ? (uint32_t)strings : 0))
		return tph_diag_set(L->c.d, TPH_ENOMEM, "%s: out of memory", sc->file);
	rc = put_cluster_scoped(L, sc->cluster);
	/* A kai scenario's pods and podgroups live in sc->kai until the cache holds KAI's objects
	 * (docs/kai.md): its cache has the nodes and priority classes only. */
	if (rc == TPH_OK && !sc->kai)
		rc = put_namespaced(L, sc->cluster);
	if (rc == TPH_OK)
		rc = check_totals(L);
	if (rc == TPH_OK && sc->sampling != TPH_SAMPLING_CACHE)
		rc = tph_cluster_set_node_sampling(sc->cluster, sc->sampling, L->c.d);
	if (rc == TPH_OK && sc->shard.present) {
		rc = tph_cluster_set_shard(sc->cluster, sc->shard.mode, sc->shard.name,
		                           sc->shard.nodes, L->c.d);
		if (rc < 0)
			rc =
			    wrap(L, rc, "shard", -1, "shard", NULL, sc->shard.name, sc->shard.line);
	}
	return rc;
}

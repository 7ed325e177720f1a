/* Puts for the kinds besides nodes and pods: podgroups, queues, priority classes, hypernodes
 * and quotas (hard limits and status.used). Same shape as cluster.c: validate and prepare, reserve,
 * then write the slot. */
#include "cache/cluster_int.h"

#include <stdio.h>
#include <string.h>

/* ---- podgroups ---- */

typedef struct pg_rec {
	tph_sid key, name, ns, uid, queue, pclass, tier_name;
	tph_rlist min_res;
	const tph_job_meta *meta;
} pg_rec;

static int pg_check(const tph_podgroup_desc *g, tph_diag *d, const char *obj)
{
	if (g->min_member < 0)
		return tph_diag_set(d, TPH_EINVAL, "%s: minMember: negative", obj);
	if ((unsigned)g->phase > TPH_PG_COMPLETED)
		return tph_diag_set(d, TPH_EINVAL, "%s: phase: bad value %d", obj, (int)g->phase);
	if ((unsigned)g->topology.mode > TPH_TOPO_SOFT)
		return tph_diag_set(d, TPH_EINVAL, "%s: networkTopology: bad mode", obj);
	return TPH_OK;
}

static int pg_names(tph_cluster *c, const tph_podgroup_desc *g, pg_rec *r)
{
	int err = TPH_OK;
	r->key = tph_cl_intern2(c, g->namespace_, '/', g->name, &err);
	r->name = tph_cl_intern(c, g->name, &err);
	r->ns = tph_cl_intern(c, g->namespace_, &err);
	r->uid = !tph_empty(g->uid) ? tph_cl_intern(c, g->uid, &err) : r->key;
	r->queue = tph_empty(g->queue) ? c->sid_default : tph_cl_intern(c, g->queue, &err);
	r->pclass =
	    tph_empty(g->priority_class) ? TPH_SID_NONE : tph_cl_intern(c, g->priority_class, &err);
	r->tier_name = tph_empty(g->topology.highest_tier_name)
	                   ? TPH_SID_NONE
	                   : tph_cl_intern(c, g->topology.highest_tier_name, &err);
	return err;
}

static void pg_write(tph_cluster *c, uint32_t s, const pg_rec *r, const tph_podgroup_desc *g)
{
	tph_kind *k = &c->pgs;
	KCOL(k, G_NAME, tph_sid)[s] = r->name;
	KCOL(k, G_NS, tph_sid)[s] = r->ns;
	KCOL(k, G_UID, tph_sid)[s] = r->uid;
	KCOL(k, G_QUEUE, tph_sid)[s] = r->queue;
	KCOL(k, G_PCLASS, tph_sid)[s] = r->pclass;
	KCOL(k, G_MIN_MEMBER, int32_t)[s] = g->min_member;
	KCOL(k, G_PHASE, uint8_t)[s] = (uint8_t)g->phase;
	KCOL(k, G_HAS_MIN_RES, uint8_t)[s] = g->has_min_resources || g->min_resources.n > 0;
	KCOL(k, G_TOPO_MODE, uint8_t)[s] = (uint8_t)g->topology.mode;
	KCOL(k, G_TOPO_TIER, int32_t)
	[s] = g->topology.highest_tier < 0 ? -1 : g->topology.highest_tier;
	KCOL(k, G_TOPO_TIER_NAME, tph_sid)[s] = r->tier_name;
	KCOL(k, G_CREATION, tph_time)[s] = g->creation;
	KCOL(k, G_META, const tph_job_meta *)[s] = r->meta;
	KCOL(k, G_MIN_MASK, tph_dimmask)
	[s] = tph_res_write(c, &r->min_res, tph_kind_at(c, k, G_MIN_RES, s));
}

int tph_cluster_put_podgroup(tph_cluster *c, const tph_podgroup_desc *g, tph_diag *d)
{
	int rc = TPH_CL_PUT_BEGIN(c, g, tph_podgroup_desc, TPH_PODGROUP_DESC_INIT, d);
	if (rc)
		return rc;
	if (tph_empty(g->name) || tph_empty(g->namespace_))
		return tph_diag_set(d, TPH_EINVAL, "podgroup: empty name or namespace");
	char obj[512];
	tph_cl_obj(obj, sizeof obj, "podgroup", g->namespace_, g->name);
	rc = pg_check(g, d, obj);
	if (rc)
		return rc;
	pg_rec r;
	tph_dimplan plan = {0};
	uint32_t s;
	bool fresh;
	if (pg_names(c, g, &r))
		return tph_cl_oom(d, obj);
	if ((rc = tph_res_prepare(c, &g->min_resources, &plan, &r.min_res, d, obj,
	                          "minResources")) ||
	    (rc = tph_intern_job_meta(c, g, obj, &r.meta, d)) ||
	    (rc = tph_cl_reserve(c, &c->pgs, r.key, &plan, &s, &fresh, d, obj)))
		return rc;
	if (!fresh)
		tph_cl_totals_move(c, &c->pgs, s, -1);
	pg_write(c, s, &r, g);
	tph_cl_totals_move(c, &c->pgs, s, 1);
	tph_kind_commit(&c->pgs, r.key, s, fresh);
	return TPH_OK;
}

/* ---- queues ---- */

typedef struct queue_rec {
	tph_sid key, parent;
	tph_rlist cap, des, gua;
	const tph_queue_meta *meta;
} queue_rec;

static int queue_prepare(tph_cluster *c, const tph_queue_desc *q, queue_rec *r, tph_dimplan *plan,
                         tph_diag *d, const char *obj)
{
	int err = TPH_OK, rc;
	r->key = tph_cl_intern(c, q->name, &err);
	if (!tph_empty(q->parent))
		r->parent = tph_cl_intern(c, q->parent, &err);
	else /* every queue but root hangs under root */
		r->parent = r->key == c->sid_root ? TPH_SID_NONE : c->sid_root;
	if (err)
		return tph_cl_oom(d, obj);
	if ((rc = tph_res_prepare(c, &q->capability, plan, &r->cap, d, obj, "capability")) ||
	    (rc = tph_res_prepare(c, &q->deserved, plan, &r->des, d, obj, "deserved")) ||
	    (rc = tph_res_prepare(c, &q->guarantee, plan, &r->gua, d, obj, "guarantee")))
		return rc;
	return tph_intern_queue_meta(c, q, obj, &r->meta, d);
}

static void queue_write(tph_cluster *c, uint32_t s, const queue_rec *r, const tph_queue_desc *q)
{
	tph_kind *k = &c->queues;
	KCOL(k, Q_WEIGHT, int32_t)[s] = q->weight;
	KCOL(k, Q_PARENT, tph_sid)[s] = r->parent;
	KCOL(k, Q_STATE, uint8_t)[s] = (uint8_t)q->state;
	KCOL(k, Q_RECLAIM, uint8_t)[s] = !q->not_reclaimable;
	KCOL(k, Q_PRIO, int32_t)[s] = q->priority;
	KCOL(k, Q_CREATION, tph_time)[s] = q->creation;
	KCOL(k, Q_META, const tph_queue_meta *)[s] = r->meta;
	KCOL(k, Q_CAP_MASK, tph_dimmask)
	[s] = tph_res_write(c, &r->cap, tph_kind_at(c, k, Q_CAP, s));
	KCOL(k, Q_DES_MASK, tph_dimmask)
	[s] = tph_res_write(c, &r->des, tph_kind_at(c, k, Q_DES, s));
	KCOL(k, Q_GUA_MASK, tph_dimmask)
	[s] = tph_res_write(c, &r->gua, tph_kind_at(c, k, Q_GUA, s));
}

int tph_cluster_put_queue(tph_cluster *c, const tph_queue_desc *q, tph_diag *d)
{
	int rc = TPH_CL_PUT_BEGIN(c, q, tph_queue_desc, TPH_QUEUE_DESC_INIT, d);
	if (rc)
		return rc;
	if (tph_empty(q->name))
		return tph_diag_set(d, TPH_EINVAL, "queue: empty name");
	char obj[512];
	tph_cl_obj(obj, sizeof obj, "queue", NULL, q->name);
	if (q->weight < 0)
		return tph_diag_set(d, TPH_EINVAL, "%s: weight: negative", obj);
	if ((unsigned)q->state > TPH_QUEUE_CLOSING)
		return tph_diag_set(d, TPH_EINVAL, "%s: state: bad value %d", obj, (int)q->state);
	queue_rec r;
	tph_dimplan plan = {0};
	uint32_t s;
	bool fresh;
	if ((rc = queue_prepare(c, q, &r, &plan, d, obj)) ||
	    (rc = tph_cl_reserve(c, &c->queues, r.key, &plan, &s, &fresh, d, obj)))
		return rc;
	if (!fresh)
		tph_cl_totals_move(c, &c->queues, s, -1);
	queue_write(c, s, &r, q);
	tph_cl_totals_move(c, &c->queues, s, 1);
	tph_kind_commit(&c->queues, r.key, s, fresh);
	return TPH_OK;
}

/* ---- priority classes ---- */

int tph_cluster_put_priority_class(tph_cluster *c, const tph_priority_class_desc *pc, tph_diag *d)
{
	int err = TPH_CL_PUT_BEGIN(c, pc, tph_priority_class_desc, TPH_PRIORITY_CLASS_DESC_INIT, d);
	if (err)
		return err;
	if (tph_empty(pc->name))
		return tph_diag_set(d, TPH_EINVAL, "priority class: empty name");
	char obj[512];
	tph_cl_obj(obj, sizeof obj, "priority class", NULL, pc->name);
	tph_sid key = tph_cl_intern(c, pc->name, &err);
	uint32_t s;
	bool fresh;
	if (err || tph_cl_reserve(c, &c->pclasses, key, NULL, &s, &fresh, d, obj))
		return tph_cl_oom(d, obj);
	tph_kind *k = &c->pclasses;
	KCOL(k, C_VALUE, int32_t)[s] = pc->value;
	KCOL(k, C_GDEF, uint8_t)[s] = pc->global_default;
	KCOL(k, C_NEVER, uint8_t)[s] = pc->preempt_never;
	/* Volcano's addPriorityClass: the last globalDefault class added wins; an update is a
	 * delete (which clears the default if it was this class) and an add. */
	if (pc->global_default)
		c->gdef = key;
	else if (c->gdef == key)
		c->gdef = TPH_SID_NONE;
	tph_kind_commit(k, key, s, fresh);
	return TPH_OK;
}

/* ---- hypernodes ---- */

int tph_cluster_put_hypernode(tph_cluster *c, const tph_hypernode_desc *h, tph_diag *d)
{
	int rc = TPH_CL_PUT_BEGIN(c, h, tph_hypernode_desc, TPH_HYPERNODE_DESC_INIT, d);
	if (rc)
		return rc;
	if (tph_empty(h->name))
		return tph_diag_set(d, TPH_EINVAL, "hypernode: empty name");
	char obj[512];
	tph_cl_obj(obj, sizeof obj, "hypernode", NULL, h->name);
	if (h->tier < 0 || h->tier > TPH_HN_TIER_MAX)
		return tph_diag_set(d, TPH_EINVAL, "%s: tier: %d is out of range [0, %d]", obj,
		                    (int)h->tier, TPH_HN_TIER_MAX);
	int err = TPH_OK;
	tph_sid key = tph_cl_intern(c, h->name, &err);
	tph_sid tier_name =
	    tph_empty(h->tier_name) ? TPH_SID_NONE : tph_cl_intern(c, h->tier_name, &err);
	if (err)
		return tph_cl_oom(d, obj);
	const tph_hn_member_row *members;
	uint32_t s;
	bool fresh;
	if ((rc = tph_intern_members(c, h, obj, &members, d)) ||
	    (rc = tph_cl_reserve(c, &c->hypernodes, key, NULL, &s, &fresh, d, obj)))
		return rc;
	tph_kind *k = &c->hypernodes;
	KCOL(k, H_TIER, int32_t)[s] = h->tier;
	KCOL(k, H_TIER_NAME, tph_sid)[s] = tier_name;
	KCOL(k, H_MEMBERS, const tph_hn_member_row *)[s] = members;
	KCOL(k, H_NMEMBERS, uint32_t)[s] = h->n_members;
	tph_kind_commit(k, key, s, fresh);
	return TPH_OK;
}

/* ---- quotas ---- */

int tph_cluster_put_quota(tph_cluster *c, const tph_quota_desc *q, tph_diag *d)
{
	int rc = TPH_CL_PUT_BEGIN(c, q, tph_quota_desc, TPH_QUOTA_DESC_INIT, d);
	if (rc)
		return rc;
	if (tph_empty(q->name) || tph_empty(q->namespace_))
		return tph_diag_set(d, TPH_EINVAL, "quota: empty name or namespace");
	char obj[512];
	tph_cl_obj(obj, sizeof obj, "quota", q->namespace_, q->name);
	int err = TPH_OK;
	tph_sid key = tph_cl_intern2(c, q->namespace_, '/', q->name, &err);
	tph_sid name = tph_cl_intern(c, q->name, &err);
	tph_sid ns = tph_cl_intern(c, q->namespace_, &err);
	if (err)
		return tph_cl_oom(d, obj);
	tph_dimplan plan = {0};
	tph_rlist hard, used;
	uint32_t s;
	bool fresh;
	if ((rc = tph_res_prepare(c, &q->hard, &plan, &hard, d, obj, "hard")) ||
	    (rc = tph_res_prepare(c, &q->used, &plan, &used, d, obj, "used")) ||
	    (rc = tph_cl_reserve(c, &c->quotas, key, &plan, &s, &fresh, d, obj)))
		return rc;
	tph_kind *k = &c->quotas;
	if (!fresh)
		tph_cl_totals_move(c, k, s, -1);
	KCOL(k, R_NAME, tph_sid)[s] = name;
	KCOL(k, R_NS, tph_sid)[s] = ns;
	KCOL(k, R_HARD_MASK, tph_dimmask)
	[s] = tph_res_write(c, &hard, tph_kind_at(c, k, R_HARD, s));
	tph_res_write(c, &used, tph_kind_at(c, k, R_USED, s));
	tph_cl_totals_move(c, k, s, 1);
	tph_kind_commit(k, key, s, fresh);
	return TPH_OK;
}

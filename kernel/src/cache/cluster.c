/* The cluster cache's public surface: create/destroy, put (add or replace by key), remove,
 * shard and counts. Every put validates and prepares (interning, capacity, new dimensions)
 * before it writes the slot, so a failed put leaves nothing visible behind. */
#include "cache/cluster_int.h"

#include "base/diag.h"
#include "base/mem.h"

#include <stdio.h>
#include <string.h>

#define COL(T)               \
	{                    \
		sizeof(T), 0 \
	}
#define ROW                        \
	{                          \
		sizeof(int64_t), 1 \
	}

static const tph_coldef node_cols[N_NCOLS] = {COL(uint8_t), COL(tph_sid), ROW,
                                              ROW,          COL(uint8_t), COL(void *)};
static const tph_coldef pod_cols[P_NCOLS] = {
    COL(uint8_t), COL(tph_sid),  COL(tph_sid), COL(tph_sid), COL(tph_sid), COL(tph_sid),
    COL(tph_sid), COL(tph_sid),  COL(tph_sid), COL(tph_sid), COL(uint8_t), COL(uint8_t),
    COL(int32_t), COL(tph_time), COL(void *),  COL(void *),  ROW,          COL(int64_t[2])};
static const tph_coldef pg_cols[G_NCOLS] = {
    COL(uint8_t), COL(tph_sid),  COL(tph_sid), COL(tph_sid), COL(tph_sid),    COL(tph_sid),
    COL(tph_sid), COL(int32_t),  COL(uint8_t), COL(uint8_t), COL(uint8_t),    COL(int32_t),
    COL(tph_sid), COL(tph_time), COL(void *),  ROW,          COL(tph_dimmask)};
static const tph_coldef queue_cols[Q_NCOLS] = {
    COL(uint8_t), COL(tph_sid), COL(int32_t),     COL(tph_sid),     COL(uint8_t),
    COL(uint8_t), COL(int32_t), COL(tph_time),    COL(void *),      ROW,
    ROW,          ROW,          COL(tph_dimmask), COL(tph_dimmask), COL(tph_dimmask)};
static const tph_coldef pclass_cols[C_NCOLS] = {COL(uint8_t), COL(tph_sid), COL(int32_t),
                                                COL(uint8_t), COL(uint8_t)};
static const tph_coldef hn_cols[H_NCOLS] = {COL(uint8_t), COL(tph_sid), COL(int32_t),
                                            COL(tph_sid), COL(void *),  COL(uint32_t)};
static const tph_coldef quota_cols[R_NCOLS] = {
    COL(uint8_t), COL(tph_sid), COL(tph_sid), COL(tph_sid), ROW, COL(tph_dimmask), ROW};
static const tph_coldef pdb_cols[D_NCOLS] = {COL(uint8_t), COL(tph_sid), COL(tph_sid),
                                             COL(tph_sid), COL(int32_t), COL(void *)};

static void init_kinds(tph_cluster *c)
{
	tph_kind_init(&c->nodes, "node", node_cols, N_NCOLS);
	tph_kind_init(&c->pods, "pod", pod_cols, P_NCOLS);
	tph_kind_init(&c->pgs, "podgroup", pg_cols, G_NCOLS);
	tph_kind_init(&c->queues, "queue", queue_cols, Q_NCOLS);
	tph_kind_init(&c->pclasses, "priority class", pclass_cols, C_NCOLS);
	tph_kind_init(&c->hypernodes, "hypernode", hn_cols, H_NCOLS);
	tph_kind_init(&c->quotas, "quota", quota_cols, R_NCOLS);
	tph_kind_init(&c->pdbs, "pod disruption budget", pdb_cols, D_NCOLS);
}

static int init_names(tph_cluster *c)
{
	static const char *const fixed[TPH_RES_FIXED] = {"cpu", "memory", "pods",
	                                                 "ephemeral-storage"};
	int err = TPH_OK;
	for (uint32_t i = 0; i < TPH_RES_FIXED; i++) {
		c->dims.name[i] = tph_cl_intern(c, fixed[i], &err);
		c->dims.unit[i] = (uint8_t)tph_res_unit_of(fixed[i], strlen(fixed[i]));
	}
	c->dims.n = TPH_RES_FIXED;
	c->sid_root = tph_cl_intern(c, "root", &err);
	c->sid_default = tph_cl_intern(c, "default", &err);
	c->sid_task_spec = tph_cl_intern(c, "volcano.sh/task-spec", &err);
	c->sid_group_name = tph_cl_intern(c, "scheduling.k8s.io/group-name", &err);
	c->sid_preemptable = tph_cl_intern(c, "volcano.sh/preemptable", &err);
	c->sid_task_prio = tph_cl_intern(c, "volcano.sh/task-priority", &err);
	return err;
}

int tph_cluster_create(tph_cluster **out)
{
	*out = NULL;
	tph_cluster *c = tph_calloc(1, sizeof *c);
	if (!c)
		return TPH_ENOMEM;
	init_kinds(c);
	atomic_init(&c->refs, 1);
	c->gdef = TPH_SID_NONE;
	c->shard_name = TPH_SID_NONE;
	static const tph_pod_desc empty = {.size = sizeof empty, .name = "", .namespace_ = ""};
	static const tph_podgroup_desc empty_pg = {
	    .size = sizeof empty_pg, .name = "", .namespace_ = "", .min_member = 1};
	if (tph_strtab_init(&c->strs) || tph_arena_init(&c->perm, (size_t)256 << 10) ||
	    tph_blobs_init(c) || init_names(c) ||
	    tph_intern_pod_spec(c, &empty, "cache", &c->empty_spec, NULL) ||
	    tph_intern_pod_meta(c, &empty, "cache", &c->empty_pod_meta, NULL) ||
	    tph_intern_job_meta(c, &empty_pg, "cache", &c->empty_job_meta, NULL)) {
		tph_cluster_destroy(c);
		return TPH_ENOMEM;
	}
	*out = c;
	return TPH_OK;
}

static void cluster_free(tph_cluster *c)
{
	if (!c)
		return;
	tph_kind *kinds[] = {&c->nodes,    &c->pods,       &c->pgs,    &c->queues,
	                     &c->pclasses, &c->hypernodes, &c->quotas, &c->pdbs};
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		tph_kind_free(kinds[i]);
	tph_snap_free(atomic_exchange(&c->parked, NULL));
	tph_images_free(c);
	tph_blobs_free(c);
	tph_free(c->shard_nodes);
	tph_free(c->uid_owner);
	tph_free(c->words);
	tph_free(c->chars);
	tph_free(c->dense);
	tph_free(c->acc);
	tph_arena_destroy(&c->perm);
	tph_strtab_free(&c->strs);
	tph_free(c);
}

void tph_cluster_unhold(tph_cluster *c)
{
	if (atomic_fetch_sub_explicit(&c->refs, 1, memory_order_acq_rel) == 1)
		cluster_free(c);
}

void tph_cluster_destroy(tph_cluster *c)
{
	if (c)
		tph_cluster_unhold(c);
}

/* ---- nodes ---- */

int tph_cluster_put_node(tph_cluster *c, const tph_node_desc *n, tph_diag *d)
{
	int rc = TPH_CL_PUT_BEGIN(c, n, tph_node_desc, TPH_NODE_DESC_INIT, d);
	if (rc)
		return rc;
	if (tph_empty(n->name))
		return tph_diag_set(d, TPH_EINVAL, "node: empty name");
	char obj[512];
	tph_cl_obj(obj, sizeof obj, "node", NULL, n->name);
	int err = TPH_OK;
	tph_sid key = tph_cl_intern(c, n->name, &err);
	if (err)
		return tph_cl_oom(d, obj);
	tph_dimplan plan = {0};
	tph_rlist alloc, cap;
	const tph_node_meta *meta;
	uint32_t s, was = tph_kind_find(&c->nodes, key);
	const tph_node_meta *old =
	    was == TPH_NOIDX ? NULL : KCOL(&c->nodes, N_META, tph_node_meta *)[was];
	bool fresh;
	if ((rc = tph_res_prepare(c, &n->allocatable, &plan, &alloc, d, obj, "allocatable")) ||
	    (rc = tph_res_prepare(c, &n->capacity, &plan, &cap, d, obj, "capacity")))
		return rc;
	if (tph_images_reserve(c, n))
		return tph_cl_oom(d, obj);
	if ((rc = tph_intern_node_meta(c, n, old, obj, &meta, d)) ||
	    (rc = tph_cl_reserve(c, &c->nodes, key, &plan, &s, &fresh, d, obj)))
		return rc;
	tph_images_commit(c, old, meta); /* the put can no longer fail */
	tph_kind *k = &c->nodes;
	if (!fresh)
		tph_cl_totals_move(c, k, s, -1);
	tph_res_write(c, &alloc, tph_kind_at(c, k, N_ALLOC, s));
	tph_res_write(c, n->capacity.n ? &cap : &alloc, tph_kind_at(c, k, N_CAPACITY, s));
	tph_cl_totals_move(c, k, s, 1);
	KCOL(k, N_FLAGS, uint8_t)
	[s] = (uint8_t)((n->not_ready ? 0 : TPH_NODE_READY) |
	                (n->unschedulable ? TPH_NODE_UNSCHEDULABLE : 0));
	KCOL(k, N_META, const tph_node_meta *)[s] = meta;
	tph_kind_commit(k, key, s, fresh);
	return TPH_OK;
}

/* ---- pods ---- */

typedef struct pod_rec {
	tph_sid key, name, ns, uid, role, node, nominated, pg, pclass;
	uint8_t status, flags;
	int32_t prio;
	tph_pod_req req;
	const tph_pod_spec *spec;
	const tph_pod_meta *meta;
} pod_rec;

/* Volcano's getTaskStatus (pkg/scheduler/api/helpers.go). */
static uint8_t pod_status(const tph_pod_desc *p)
{
	switch (p->phase) {
	case TPH_POD_RUNNING:
		return p->deleting ? TPH_TS_RELEASING : TPH_TS_RUNNING;
	case TPH_POD_PENDING:
		if (p->deleting)
			return TPH_TS_RELEASING;
		return tph_empty(p->node_name) ? TPH_TS_PENDING : TPH_TS_BOUND;
	case TPH_POD_SUCCEEDED:
		return TPH_TS_SUCCEEDED;
	case TPH_POD_FAILED:
		return TPH_TS_FAILED;
	default:
		return TPH_TS_UNKNOWN;
	}
}

/* Go's strconv.ParseBool. */
static bool parse_bool(const char *s, bool *out)
{
	static const char *const t[] = {"1", "t", "T", "TRUE", "true", "True"};
	static const char *const f[] = {"0", "f", "F", "FALSE", "false", "False"};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (!strcmp(s, t[i]) || !strcmp(s, f[i])) {
			*out = !strcmp(s, t[i]);
			return true;
		}
	}
	return false;
}

/* Volcano's GetPodPreemptable: annotation, then label; an unparsable value is false. */
static bool pod_preemptable(const tph_pod_desc *p)
{
	if (p->preemptable != TPH_PREEMPTABLE_UNSET)
		return p->preemptable == TPH_PREEMPTABLE_YES;
	const char *v = tph_kv_find(p->annotations, "volcano.sh/preemptable");
	if (!v)
		v = tph_kv_find(p->labels, "volcano.sh/preemptable");
	bool b = true;
	if (v && !parse_bool(v, &b))
		b = false;
	return b;
}

static void pod_derive(const tph_pod_desc *p, pod_rec *r)
{
	r->status = pod_status(p);
	r->flags = TPH_TASK_BEST_EFFORT; /* NewTaskInfo: InitResreq.IsEmpty() */
	for (uint32_t i = 0; i < r->req.row.n; i++)
		if (r->req.row.dim[i] != TPH_RES_PODS && r->req.row.val[i] != 0)
			r->flags = 0;
	if (pod_preemptable(p))
		r->flags |= TPH_TASK_PREEMPTABLE;
	if (p->preempt_never)
		r->flags |= TPH_TASK_PREEMPT_NEVER;
	if (!tph_empty(p->scheduler_name) && strcmp(p->scheduler_name, "volcano"))
		r->flags |= P_FOREIGN;
	r->prio = 0;
	if (p->has_priority) {
		r->flags |= P_PRIO_FIXED | P_PRIO_SPEC;
		r->prio = p->priority;
	}
	int64_t v; /* NewTaskInfo: a well-formed volcano.sh/task-priority overrides */
	const char *a = tph_kv_find(p->annotations, "volcano.sh/task-priority");
	if (a && tph_parse_int(a, 32, &v)) {
		r->flags |= P_PRIO_FIXED;
		r->prio = (int32_t)v;
	}
}

static tph_sid intern_opt(tph_cluster *c, const char *s, int *err)
{
	return tph_empty(s) ? TPH_SID_NONE : tph_cl_intern(c, s, err);
}

/* Volcano reads the role and the podgroup from annotations, then labels (getTaskRole). */
static const char *pod_role(const tph_pod_desc *p)
{
	if (!tph_empty(p->task_spec))
		return p->task_spec;
	const char *v = tph_kv_find(p->annotations, "volcano.sh/task-spec");
	if (tph_empty(v))
		v = tph_kv_find(p->labels, "volcano.sh/task-spec");
	return tph_empty(v) ? "" : v;
}

/* A pod's name and uid are new strings and its node one of many: each probe misses the
 * cache, so their loads start together (and a bulk put starts them a pod ahead). */
void tph_cl_prefetch_pod(const tph_cluster *c, const tph_pod_desc *p)
{
	tph_cl_prefetch(c, p->name);
	tph_cl_prefetch(c, p->uid);
	tph_cl_prefetch(c, p->node_name);
}

static int pod_names(tph_cluster *c, const tph_pod_desc *p, pod_rec *r)
{
	int err = TPH_OK;
	tph_cl_prefetch_pod(c, p);
	r->key = tph_cl_intern2(c, p->namespace_, '/', p->name, &err);
	r->name = tph_cl_intern(c, p->name, &err);
	r->ns = tph_cl_intern(c, p->namespace_, &err);
	r->uid = !tph_empty(p->uid) ? tph_cl_intern(c, p->uid, &err)
	                            : tph_cl_intern2(c, p->namespace_, '-', p->name, &err);
	r->role = tph_cl_intern(c, pod_role(p), &err);
	r->node = intern_opt(c, p->node_name, &err);
	r->nominated = intern_opt(c, p->nominated_node, &err);
	r->pclass = intern_opt(c, p->priority_class, &err);
	const char *pg = p->pod_group; /* getJobID reads the group-name annotation */
	if (tph_empty(pg))
		pg = tph_kv_find(p->annotations, "scheduling.k8s.io/group-name");
	r->pg = tph_empty(pg) ? TPH_SID_NONE : tph_cl_intern2(c, p->namespace_, '/', pg, &err);
	return err;
}

static void pod_write(tph_cluster *c, uint32_t s, const pod_rec *r, tph_time creation)
{
	tph_kind *k = &c->pods;
	KCOL(k, P_NAME, tph_sid)[s] = r->name;
	KCOL(k, P_NS, tph_sid)[s] = r->ns;
	KCOL(k, P_UID, tph_sid)[s] = r->uid;
	KCOL(k, P_ROLE, tph_sid)[s] = r->role;
	KCOL(k, P_NODE, tph_sid)[s] = r->node;
	KCOL(k, P_NOMINATED, tph_sid)[s] = r->nominated;
	KCOL(k, P_PG, tph_sid)[s] = r->pg;
	KCOL(k, P_PCLASS, tph_sid)[s] = r->pclass;
	KCOL(k, P_STATUS, uint8_t)[s] = r->status;
	KCOL(k, P_FLAGS, uint8_t)[s] = r->flags;
	KCOL(k, P_PRIO, int32_t)[s] = r->prio;
	KCOL(k, P_CREATION, tph_time)[s] = creation;
	KCOL(k, P_SPEC, const tph_pod_spec *)[s] = r->spec;
	KCOL(k, P_META, const tph_pod_meta *)[s] = r->meta;
	int64_t *row = tph_kind_at(c, k, P_REQ, s);
	tph_res_write(c, &r->req.row, row);
	row[TPH_RES_PODS] += 1000; /* every task takes one pods unit */
	memcpy(tph_kind_at(c, k, P_NZ, s), r->req.nonzero, sizeof r->req.nonzero);
}

/* Volcano keys a job's tasks by pod UID, so a second pod with a uid already held would take
 * the first one's place. The uid must be free or this pod's own; its entry is made room for
 * here, before anything changes. */
static int check_uid(tph_cluster *c, const pod_rec *r, const char *obj, tph_diag *d)
{
	uint32_t owner = r->uid < c->uid_cap ? c->uid_owner[r->uid] : 0, cap = c->uid_cap;
	if (owner && owner - 1 != r->key)
		return tph_diag_set(
		    d, TPH_EEXIST, "%s: uid: \"%s\" is also pod %s's (Volcano keys tasks by UID)",
		    obj, tph_strtab_str(&c->strs, r->uid), tph_strtab_str(&c->strs, owner - 1));
	if (tph_grow(&c->uid_owner, &c->uid_cap, r->uid + 1, sizeof *c->uid_owner))
		return tph_cl_oom(d, obj);
	memset(c->uid_owner + cap, 0, (size_t)(c->uid_cap - cap) * sizeof *c->uid_owner);
	return TPH_OK;
}

/* Before pod_write: a replaced pod gives its old uid back. */
static void own_uid(tph_cluster *c, uint32_t slot, bool fresh, const pod_rec *r)
{
	if (!fresh)
		c->uid_owner[KCOL(&c->pods, P_UID, tph_sid)[slot]] = 0;
	c->uid_owner[r->uid] = r->key + 1;
}

int tph_cluster_put_pod(tph_cluster *c, const tph_pod_desc *p, tph_diag *d)
{
	int rc = TPH_CL_PUT_BEGIN(c, p, tph_pod_desc, TPH_POD_DESC_INIT, d);
	if (rc)
		return rc;
	if (tph_empty(p->name) || tph_empty(p->namespace_))
		return tph_diag_set(d, TPH_EINVAL, "pod: empty name or namespace");
	char obj[512];
	tph_cl_obj(obj, sizeof obj, "pod", p->namespace_, p->name);
	if ((unsigned)p->phase > TPH_POD_UNKNOWN || (unsigned)p->preemptable > TPH_PREEMPTABLE_NO)
		return tph_diag_set(d, TPH_EINVAL, "%s: bad phase or preemptable", obj);
	pod_rec r;
	tph_dimplan plan = {0};
	uint32_t s;
	bool fresh;
	if (pod_names(c, p, &r))
		return tph_cl_oom(d, obj);
	if ((rc = check_uid(c, &r, obj, d)) ||
	    (rc = tph_pod_req_prepare(c, p, &plan, &r.req, d, obj)) ||
	    (rc = tph_intern_pod_spec(c, p, obj, &r.spec, d)) ||
	    (rc = tph_intern_pod_meta(c, p, obj, &r.meta, d)) ||
	    (rc = tph_cl_reserve(c, &c->pods, r.key, &plan, &s, &fresh, d, obj)))
		return rc;
	pod_derive(p, &r);
	own_uid(c, s, fresh, &r);
	if (!fresh)
		tph_cl_totals_move(c, &c->pods, s, -1);
	pod_write(c, s, &r, p->creation);
	tph_cl_totals_move(c, &c->pods, s, 1);
	tph_kind_commit(&c->pods, r.key, s, fresh);
	return TPH_OK;
}

/* ---- removal, shard, counts ---- */

static int no_cache(tph_diag *d, const char *what)
{
	return tph_diag_set(d, TPH_EINVAL, "remove %s: no cache", what);
}

static int remove_key(tph_cluster *c, tph_kind *k, const char *ns, const char *name, tph_diag *d)
{
	if (tph_empty(name) || (ns && !ns[0]))
		return tph_diag_set(d, TPH_EINVAL, "remove %s: empty name or namespace", k->what);
	tph_sid key;
	if (ns) {
		size_t la = strlen(ns), lb = strlen(name);
		if (la + lb + 1 >= UINT32_MAX ||
		    tph_grow(&c->chars, &c->chars_cap, (uint32_t)(la + lb + 1), 1) != TPH_OK)
			return tph_diag_set(d, TPH_ENOMEM, "remove %s: out of memory", k->what);
		memcpy(c->chars, ns, la);
		c->chars[la] = '/';
		memcpy(c->chars + la + 1, name, lb);
		key = tph_strtab_find(&c->strs, c->chars, la + 1 + lb);
	} else {
		key = tph_strtab_find(&c->strs, name, strlen(name));
	}
	uint32_t slot = tph_kind_find(k, key);
	if (k == &c->pods && slot != TPH_NOIDX)
		c->uid_owner[KCOL(k, P_UID, tph_sid)[slot]] = 0;
	if (slot != TPH_NOIDX)
		tph_cl_totals_move(c, k, slot, -1);
	if (key == TPH_SID_NONE || tph_kind_remove(k, key) != TPH_OK)
		return tph_diag_set(d, TPH_ENOENT, "%s %s%s%s: not found", k->what, ns ? ns : "",
		                    ns ? "/" : "", name);
	return TPH_OK;
}

int tph_cluster_remove_node(tph_cluster *c, const char *name, tph_diag *d)
{
	tph_diag_begin(d);
	if (!c)
		return no_cache(d, "node");
	tph_sid key =
	    tph_empty(name) ? TPH_SID_NONE : tph_strtab_find(&c->strs, name, strlen(name));
	uint32_t s = key == TPH_SID_NONE ? TPH_NOIDX : tph_kind_find(&c->nodes, key);
	const tph_node_meta *old =
	    s == TPH_NOIDX ? NULL : KCOL(&c->nodes, N_META, tph_node_meta *)[s];
	int rc = remove_key(c, &c->nodes, NULL, name, d);
	if (rc == TPH_OK) /* removeNodeImageStates */
		tph_images_commit(c, old, NULL);
	return rc;
}

int tph_cluster_remove_pod(tph_cluster *c, const char *ns, const char *name, tph_diag *d)
{
	tph_diag_begin(d);
	return c ? remove_key(c, &c->pods, ns ? ns : "", name, d) : no_cache(d, "pod");
}

int tph_cluster_remove_podgroup(tph_cluster *c, const char *ns, const char *name, tph_diag *d)
{
	tph_diag_begin(d);
	return c ? remove_key(c, &c->pgs, ns ? ns : "", name, d) : no_cache(d, "podgroup");
}

int tph_cluster_remove_queue(tph_cluster *c, const char *name, tph_diag *d)
{
	tph_diag_begin(d);
	return c ? remove_key(c, &c->queues, NULL, name, d) : no_cache(d, "queue");
}

int tph_cluster_remove_pdb(tph_cluster *c, const char *ns, const char *name, tph_diag *d)
{
	return remove_key(c, &c->pdbs, ns ? ns : "", name, d);
}

int tph_cluster_set_shard(tph_cluster *c, tph_shard_mode mode, const char *name, tph_str_list nodes,
                          tph_diag *d)
{
	tph_diag_begin(d);
	if (!c || (unsigned)mode > TPH_SHARD_SOFT || (nodes.n && !nodes.items))
		return tph_diag_set(d, TPH_EINVAL, "shard: bad mode or node list");
	for (uint32_t i = 0; i < nodes.n; i++)
		if (tph_empty(nodes.items[i]))
			return tph_diag_set(d, TPH_EINVAL, "shard: nodes: item %u is empty", i);
	int err = TPH_OK;
	tph_sid sname = tph_empty(name) ? TPH_SID_NONE : tph_cl_intern(c, name, &err);
	tph_sid *ids = nodes.n ? tph_malloc(nodes.n * sizeof *ids) : NULL;
	if (nodes.n && !ids)
		err = TPH_ENOMEM;
	for (uint32_t i = 0; i < nodes.n && !err; i++)
		ids[i] = tph_cl_intern(c, nodes.items[i], &err);
	if (err) {
		tph_free(ids);
		return tph_cl_oom(d, "shard");
	}
	tph_free(c->shard_nodes);
	c->shard_nodes = ids;
	c->n_shard_nodes = nodes.n;
	c->shard_mode = (uint8_t)mode;
	c->shard_name = sname;
	return TPH_OK;
}

int tph_cluster_set_node_sampling(tph_cluster *c, tph_node_sampling mode, tph_diag *d)
{
	tph_diag_begin(d);
	if (!c || (unsigned)mode > TPH_SAMPLING_VOLCANO)
		return tph_diag_set(d, TPH_EINVAL, "node sampling: no cache or bad mode");
	c->sampling = (uint8_t)mode;
	atomic_store_explicit(&c->sample_start, 0,
	                      memory_order_release); /* a restarted scheduler */
	return TPH_OK;
}

uint32_t tph_cluster_node_sampling_start(const tph_cluster *c)
{
	return c ? atomic_load_explicit(&c->sample_start, memory_order_acquire) : 0;
}

uint32_t tph_cluster_node_count(const tph_cluster *c)
{
	return c ? c->nodes.n - c->nodes.dead : 0;
}

uint32_t tph_cluster_pod_count(const tph_cluster *c)
{
	return c ? c->pods.n - c->pods.dead : 0;
}

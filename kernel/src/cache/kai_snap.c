/* A KAI snapshot (tephra/kai.h): the descriptors of a KAI cluster copied into struct-of-arrays
 * columns with every reference resolved and every KAI default applied (task status from phase,
 * priority from the class, preemptibility, staleness grace, the flattened sub-group tree). The
 * kai session reads nothing else. Names resolve through one string table: ids index arrays. */
#include "base/arena.h"
#include "base/diag.h"
#include "base/mem.h"
#include "base/strtab.h"
#include "kai_snap.h"
#include "tephra/kai.h"

#include <stdio.h>
#include <string.h>

struct tph_kai_snapshot {
	tph_arena arena; /* owns every column and string */
	tph_kai_view v;
	tph_cluster *k8s; /* owns the interned labels, taints and pod specs (kai_snap_k8s.c) */
};

typedef struct kai_build {
	tph_kai_snapshot *s;
	const tph_kai_cluster_desc *c;
	tph_diag *d;
	/* "q:<queue>", "n:<node>", "o:<topology>", "g:<ns>/<podgroup>", "t:<ns>/<pod>",
	 * "d:<level>/<label value>" */
	tph_strtab names;
	int32_t *idx; /* [sid] object index + 1 */
	uint32_t idx_cap;
	bool oom; /* a copy or a column failed: the build fails (columns: at once) */
	char key[1024];
} kai_build;

/* One column of n (+1) zeroed T; a failure is remembered in B->oom, so a group of columns is
 * checked once after it is allocated. */
static void *col_alloc(kai_build *B, size_t n, size_t size)
{
	void *p = tph_arena_calloc(&B->s->arena, n + 1, size, 8);
	B->oom |= !p;
	return p;
}
#define ALLOC(B, n, T) ((T *)col_alloc((B), (size_t)(n), sizeof(T)))

static int cols_done(kai_build *B)
{
	return B->oom ? tph_diag_set(B->d, TPH_ENOMEM, "kai snapshot: out of memory") : TPH_OK;
}

static const char *dup(kai_build *B, const char *s)
{
	s = s ? s : "";
	char *copy = tph_arena_strndup(&B->s->arena, s, strlen(s));
	B->oom |= !copy;
	return copy ? copy : "";
}

static tph_sid key_of(kai_build *B, char kind, const char *ns, const char *name)
{
	int n = ns ? snprintf(B->key, sizeof B->key, "%c:%s/%s", kind, ns, name)
	           : snprintf(B->key, sizeof B->key, "%c:%s", kind, name ? name : "");
	if (n < 0 || (size_t)n >= sizeof B->key)
		return TPH_SID_NONE;
	return tph_strtab_intern(&B->names, B->key, (size_t)n);
}

/* Register object `i` under its key; a repeated key is an error naming `what`. */
static int put_name(kai_build *B, char kind, const char *ns, const char *name, uint32_t i,
                    const char *what)
{
	tph_sid sid = key_of(B, kind, ns, name);
	uint32_t old = B->idx_cap;
	if (sid == TPH_SID_NONE || tph_grow(&B->idx, &B->idx_cap, sid + 1, sizeof *B->idx))
		return tph_diag_set(B->d, TPH_ENOMEM, "kai snapshot: out of memory");
	memset(B->idx + old, 0, (size_t)(B->idx_cap - old) * sizeof *B->idx);
	if (B->idx[sid])
		return tph_diag_set(B->d, TPH_EINVAL, "kai snapshot: duplicate %s %s%s%s", what,
		                    ns ? ns : "", ns ? "/" : "", name);
	B->idx[sid] = (int32_t)i + 1;
	return TPH_OK;
}

/* The index of a named object of `kind`, or -1. */
static int32_t find(kai_build *B, char kind, const char *ns, const char *name)
{
	if (!name)
		return -1;
	int n = ns ? snprintf(B->key, sizeof B->key, "%c:%s/%s", kind, ns, name)
	           : snprintf(B->key, sizeof B->key, "%c:%s", kind, name);
	tph_sid sid = n < 0 || (size_t)n >= sizeof B->key
	                  ? TPH_SID_NONE
	                  : tph_strtab_find(&B->names, B->key, (size_t)n);
	return sid != TPH_SID_NONE && sid < B->idx_cap ? B->idx[sid] - 1 : -1;
}

static int64_t res_of(const tph_res_list *l, const char *name)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].name, name) == 0)
			return l->items[i].value;
	return 0;
}

static const char *label_of(const tph_kv_list *l, const char *key)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i].key, key) == 0)
			return l->items[i].value;
	return NULL;
}

/* ---- queues -----------------------------------------------------------------------------------
 */

/* fullHierarchyFairness: false. KAI flattens the tree: every queue with a parent goes under one
 * implicit queue "default" (index n: quota and limit unlimited, weight 1, named by its key so
 * podgroups of queue "default" find it) and parentless queues are dropped. */
static void flatten_queues(kai_build *B, uint32_t n, const char **name, int32_t *parent,
                           uint8_t *dropped, uint8_t *kids, int32_t *prio, tph_kai_share *res,
                           int64_t *pmr, int64_t *rmr)
{
	name[n] = "default";
	parent[n] = -1;
	prio[n] = 100;
	pmr[n] = rmr[n] = TPH_KAI_INHERIT;
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		res[(size_t)n * TPH_KAI_DIMS + d] =
		    (tph_kai_share){TPH_KAI_UNLIMITED, 1, TPH_KAI_UNLIMITED};
	for (uint32_t i = 0; i < n; i++) {
		bool child = B->c->queues[i].parent != NULL;
		parent[i] = child ? (int32_t)n : -1;
		dropped[i] = !child;
		kids[n] |= child;
	}
	tph_sid sid = key_of(B, 'q', NULL, "default");
	uint32_t old = B->idx_cap;
	if (sid == TPH_SID_NONE || tph_grow(&B->idx, &B->idx_cap, sid + 1, sizeof *B->idx)) {
		B->oom = true;
		return;
	}
	memset(B->idx + old, 0, (size_t)(B->idx_cap - old) * sizeof *B->idx);
	B->idx[sid] = (int32_t)n + 1;
}

static int build_queues(kai_build *B)
{
	const tph_kai_cluster_desc *c = B->c;
	tph_kai_queues *q = &B->s->v.queues;
	bool flat = !B->s->v.params.full_hierarchy_fairness;
	uint32_t n = c->n_queues;
	q->n = n + flat;
	/* ALLOC leaves one spare row: the implicit queue of a flattened tree */
	const char **name = ALLOC(B, n, const char *);
	int32_t *parent = ALLOC(B, n, int32_t), *prio = ALLOC(B, n, int32_t);
	uint8_t *dropped = ALLOC(B, n, uint8_t), *kids = ALLOC(B, n, uint8_t);
	tph_time *creation = ALLOC(B, n, tph_time);
	tph_kai_share *res = ALLOC(B, ((size_t)n + 1) * TPH_KAI_DIMS, tph_kai_share);
	int64_t *pmr = ALLOC(B, n, int64_t), *rmr = ALLOC(B, n, int64_t);
	if (!name || !parent || !prio || !dropped || !kids || !creation || !res || !pmr || !rmr)
		return tph_diag_set(B->d, TPH_ENOMEM, "kai snapshot: out of memory");
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++) {
		const tph_kai_queue_desc *d = &c->queues[i];
		if (d->size != sizeof *d || !d->name)
			return tph_diag_set(
			    B->d, TPH_EINVAL,
			    "kai snapshot: queue %u: start from TPH_KAI_QUEUE_DESC_INIT "
			    "and give a name",
			    i);
		name[i] = dup(B, d->name);
		prio[i] = d->priority;
		creation[i] = d->creation;
		memcpy(&res[(size_t)i * TPH_KAI_DIMS], d->res, sizeof d->res);
		pmr[i] = d->preempt_min_runtime_ms;
		rmr[i] = d->reclaim_min_runtime_ms;
		rc = put_name(B, 'q', NULL, d->name, i, "queue");
	}
	if (rc == TPH_OK && flat)
		flatten_queues(B, n, name, parent, dropped, kids, prio, res, pmr, rmr);
	for (uint32_t i = 0; rc == TPH_OK && !flat && i < n; i++) {
		parent[i] = find(B, 'q', NULL, c->queues[i].parent);
		dropped[i] = c->queues[i].parent && parent[i] < 0;
		if (parent[i] >= 0)
			kids[parent[i]] = 1;
	}
	/* A missing ancestor drops the whole branch (a chain is at most n long). */
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++)
		for (int32_t p = parent[i], steps = 0; p >= 0 && steps <= (int32_t)n;
		     p = parent[p], steps++)
			dropped[i] |= dropped[p];
	*q = (tph_kai_queues){n + flat, name, parent, dropped, kids, prio, creation, res, pmr, rmr};
	return rc;
}

/* ---- nodes ------------------------------------------------------------------------------------
 */

static int64_t label_int(const tph_kv_list *l, const char *key, int64_t dflt)
{
	const char *v = label_of(l, key);
	long long x;
	char tail;
	return v && sscanf(v, "%lld%c", &x, &tail) == 1 && x >= 0 ? x : dflt;
}

static int build_nodes(kai_build *B)
{
	const tph_kai_cluster_desc *c = B->c;
	tph_kai_nodes *nd = &B->s->v.nodes;
	uint32_t n = c->n_nodes;
	const char **name = ALLOC(B, n, const char *);
	int32_t *gpus = ALLOC(B, n, int32_t);
	int64_t *mem_mib = ALLOC(B, n, int64_t), *cpu = ALLOC(B, n, int64_t),
	        *mem = ALLOC(B, n, int64_t);
	uint8_t *synced = ALLOC(B, n, uint8_t), *ready = ALLOC(B, n, uint8_t);
	uint8_t *pool = ALLOC(B, n, uint8_t);
	const char *pool_key = B->s->v.params.node_pool_key;
	const char *pool_value = B->s->v.params.node_pool_value;
	if (!name || !gpus || !mem_mib || !cpu || !mem || !synced || !ready || !pool)
		return tph_diag_set(B->d, TPH_ENOMEM, "kai snapshot: out of memory");
	int rc = TPH_OK;
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++) {
		const tph_node_desc *d = &c->nodes[i];
		if (d->size != sizeof *d || !d->name)
			return tph_diag_set(
			    B->d, TPH_EINVAL,
			    "kai snapshot: node %u: start from TPH_NODE_DESC_INIT and "
			    "give a name",
			    i);
		name[i] = dup(B, d->name);
		int64_t whole = res_of(&d->allocatable, "nvidia.com/gpu") / 1000;
		gpus[i] = (int32_t)label_int(&d->labels, "nvidia.com/gpu.count", whole);
		int64_t m = label_int(&d->labels, "nvidia.com/gpu.memory", -1);
		synced[i] = m >= 0;
		/* MiB, or bytes from 1 TiB up (kai-format.md), floored to a multiple of 100 */
		m = m < 0 ? 100 : m >= (INT64_C(1) << 40) ? m >> 20 : m;
		mem_mib[i] = m / 100 * 100;
		ready[i] = !d->not_ready;
		cpu[i] = res_of(&d->allocatable, "cpu");
		mem[i] = res_of(&d->allocatable, "memory");
		const char *in = pool_key[0] ? label_of(&d->labels, pool_key) : NULL;
		pool[i] = !pool_key[0] || (in ? strcmp(in, pool_value) == 0 : !pool_value[0]);
		rc = put_name(B, 'n', NULL, d->name, i, "node");
	}
	*nd = (tph_kai_nodes){n, name, gpus, mem_mib, synced, ready, cpu, mem, pool};
	return rc;
}

/* ---- jobs and their sub-group trees -----------------------------------------------------------
 */

static int32_t class_value(kai_build *B, const char *name, bool *found)
{
	const tph_kai_cluster_desc *c = B->c;
	*found = false;
	for (uint32_t i = 0; name && i < c->n_pclasses; i++)
		if (strcmp(c->pclasses[i].name, name) == 0)
			return *found = true, c->pclasses[i].value;
	for (uint32_t i = 0; i < c->n_pclasses; i++)
		if (c->pclasses[i].global_default)
			return c->pclasses[i].value;
	return 50; /* KAI's DefaultPodGroupPriority */
}

uint32_t tph_kai_children(const tph_kai_podgroup_desc *g, const char *parent)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->n_subgroups; i++) {
		const char *p = g->subgroups[i].parent;
		n += parent ? p && strcmp(p, parent) == 0 : !p;
	}
	return n;
}

/* Job j's sub-groups from `first` on; without subGroups one pod set "default" of minMember. */
static void build_tree(kai_build *B, uint32_t j, uint32_t first, tph_kai_subgroups *sg)
{
	const tph_kai_podgroup_desc *g = &B->c->podgroups[j];
	char **name = (char **)sg->name;
	uint32_t *job = (uint32_t *)sg->job;
	int32_t *parent = (int32_t *)sg->parent, *mm = (int32_t *)sg->min_member,
	        *ms = (int32_t *)sg->min_subgroup;
	uint8_t *leaf = (uint8_t *)sg->pod_set;
	tph_kai_topo_constraint *topo = (tph_kai_topo_constraint *)sg->topology;
	if (!g->n_subgroups) {
		name[first] = (char *)"default";
		job[first] = j, parent[first] = -1, leaf[first] = 1;
		mm[first] = g->min_member;
		return;
	}
	for (uint32_t i = 0; i < g->n_subgroups; i++) {
		const tph_kai_subgroup *s = &g->subgroups[i];
		uint32_t k = first + i, kids = tph_kai_children(g, s->name);
		name[k] = (char *)dup(B, s->name);
		job[k] = j;
		parent[k] = -1;
		for (uint32_t p = 0; s->parent && p < g->n_subgroups; p++)
			if (strcmp(g->subgroups[p].name, s->parent) == 0)
				parent[k] = (int32_t)(first + p);
		leaf[k] = kids == 0;
		mm[k] = kids || s->min_member < 0 ? 0 : s->min_member;
		ms[k] = !kids ? 0 : s->min_subgroup < 0 ? (int32_t)kids : s->min_subgroup;
		topo[k] = s->topology;
	}
}

static int alloc_subgroups(kai_build *B, uint32_t n, tph_kai_subgroups *sg)
{
	sg->n = n;
	sg->name = ALLOC(B, n, const char *);
	sg->job = ALLOC(B, n, uint32_t);
	sg->parent = ALLOC(B, n, int32_t);
	sg->pod_set = ALLOC(B, n, uint8_t);
	sg->min_member = ALLOC(B, n, int32_t);
	sg->min_subgroup = ALLOC(B, n, int32_t);
	sg->topology = ALLOC(B, n, tph_kai_topo_constraint);
	return cols_done(B);
}

typedef struct job_cols {
	const char **name, **ns;
	int32_t *queue, *prio, *min_sg;
	uint8_t *preemptible;
	tph_time *creation, *last_start, *last_eviction, *stale;
	int64_t *grace, *delay;
	uint32_t *sg_first, *sg_count;
	tph_kai_topo_constraint *topo;
} job_cols;

static int alloc_jobs(kai_build *B, uint32_t n, job_cols *j)
{
	j->name = ALLOC(B, n, const char *), j->ns = ALLOC(B, n, const char *);
	j->queue = ALLOC(B, n, int32_t), j->prio = ALLOC(B, n, int32_t);
	j->min_sg = ALLOC(B, n, int32_t), j->preemptible = ALLOC(B, n, uint8_t);
	j->creation = ALLOC(B, n, tph_time), j->last_start = ALLOC(B, n, tph_time);
	j->last_eviction = ALLOC(B, n, tph_time), j->stale = ALLOC(B, n, tph_time);
	j->grace = ALLOC(B, n, int64_t), j->delay = ALLOC(B, n, int64_t);
	j->sg_first = ALLOC(B, n, uint32_t), j->sg_count = ALLOC(B, n, uint32_t);
	j->topo = ALLOC(B, n, tph_kai_topo_constraint);
	return cols_done(B);
}

static void fill_job(kai_build *B, uint32_t i, job_cols *j)
{
	const tph_kai_podgroup_desc *g = &B->c->podgroups[i];
	const tph_kai_params *p = &B->s->v.params;
	bool named;
	int32_t q = find(B, 'q', NULL, g->queue);
	j->name[i] = dup(B, g->name);
	j->ns[i] = dup(B, g->namespace_);
	j->queue[i] = q >= 0 && !B->s->v.queues.dropped[q] ? q : -1;
	j->prio[i] = g->has_priority ? g->priority : class_value(B, g->priority_class, &named);
	j->preemptible[i] = g->preemptibility == TPH_KAI_PREEMPTIBLE_UNSET
	                        ? j->prio[i] < 100
	                        : g->preemptibility == TPH_KAI_PREEMPTIBLE;
	uint32_t kids = tph_kai_children(g, NULL);
	j->min_sg[i] = !g->n_subgroups ? 1 : g->min_subgroup < 0 ? (int32_t)kids : g->min_subgroup;
	j->creation[i] = g->creation, j->last_start[i] = g->last_start;
	j->last_eviction[i] = g->last_eviction, j->stale[i] = g->stale_since;
	j->grace[i] = g->has_staleness_grace ? g->staleness_grace_ms : p->staleness_grace_ms;
	j->delay[i] = g->preemption_delay_ms;
	j->topo[i] = g->topology;
}

static int build_jobs(kai_build *B)
{
	const tph_kai_cluster_desc *c = B->c;
	uint32_t n = c->n_podgroups, nsg = 0;
	job_cols j;
	int rc = alloc_jobs(B, n, &j);
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++) {
		const tph_kai_podgroup_desc *g = &c->podgroups[i];
		if (g->size != sizeof *g || !g->name)
			return tph_diag_set(B->d, TPH_EINVAL,
			                    "kai snapshot: podgroup %u: start from "
			                    "TPH_KAI_PODGROUP_DESC_INIT and give a name",
			                    i);
		j.sg_first[i] = nsg;
		j.sg_count[i] = g->n_subgroups ? g->n_subgroups : 1;
		nsg += j.sg_count[i];
		rc = put_name(B, 'g', g->namespace_ ? g->namespace_ : "", g->name, i, "podgroup");
	}
	tph_kai_subgroups *sg = &B->s->v.subgroups;
	if (rc == TPH_OK)
		rc = alloc_subgroups(B, nsg, sg);
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++) {
		fill_job(B, i, &j);
		build_tree(B, i, j.sg_first[i], sg);
	}
	B->s->v.jobs = (tph_kai_jobs){
	    n,        j.name,     j.ns,         j.queue,         j.prio,  j.preemptible,
	    j.min_sg, j.creation, j.last_start, j.last_eviction, j.stale, j.grace,
	    j.delay,  j.sg_first, j.sg_count,   j.topo};
	return rc;
}

/* ---- tasks ------------------------------------------------------------------------------------
 */

/* KAI's cache derives a status from the pod when none is written (kai-format.md). */
static uint8_t derive_status(const tph_pod_desc *p, const tph_kai_pod_desc *k)
{
	if (k->status != TPH_KAI_TS_DERIVED)
		return (uint8_t)k->status;
	switch (p->phase) {
	case TPH_POD_RUNNING:
		return p->deleting ? TPH_KAI_TS_RELEASING : TPH_KAI_TS_RUNNING;
	case TPH_POD_PENDING:
		return p->node_name && *p->node_name ? TPH_KAI_TS_BOUND : TPH_KAI_TS_PENDING;
	case TPH_POD_SUCCEEDED:
		return TPH_KAI_TS_SUCCEEDED;
	case TPH_POD_FAILED:
		return TPH_KAI_TS_FAILED;
	default:
		return TPH_KAI_TS_UNKNOWN;
	}
}

/* The pod set `name` of job j (a leaf of its tree), or -1. */
static int32_t pod_set_of(const tph_kai_view *v, int32_t j, const char *name)
{
	if (j < 0)
		return -1;
	const tph_kai_subgroups *sg = &v->subgroups;
	uint32_t first = v->jobs.sg_first[j], n = v->jobs.sg_count[j];
	for (uint32_t k = first; k < first + n; k++)
		if (sg->pod_set[k] && strcmp(sg->name[k], name ? name : "default") == 0)
			return (int32_t)k;
	return -1;
}

typedef struct task_cols {
	const char **name, **ns, **gpu_group;
	int32_t *job, *pod_set, *node, *nominated, *devices, *prio;
	uint8_t *status;
	double *gpus, *fraction;
	int64_t *gpu_mib, *cpu, *mem;
	tph_time *creation;
	tph_str_list *groups;
	tph_kv_list *labels;
} task_cols;

static int alloc_tasks(kai_build *B, uint32_t n, task_cols *t)
{
	t->name = ALLOC(B, n, const char *), t->ns = ALLOC(B, n, const char *);
	t->job = ALLOC(B, n, int32_t), t->pod_set = ALLOC(B, n, int32_t);
	t->node = ALLOC(B, n, int32_t), t->nominated = ALLOC(B, n, int32_t);
	t->devices = ALLOC(B, n, int32_t), t->prio = ALLOC(B, n, int32_t);
	t->status = ALLOC(B, n, uint8_t), t->gpus = ALLOC(B, n, double);
	t->fraction = ALLOC(B, n, double), t->gpu_mib = ALLOC(B, n, int64_t);
	t->cpu = ALLOC(B, n, int64_t), t->mem = ALLOC(B, n, int64_t);
	t->creation = ALLOC(B, n, tph_time), t->gpu_group = ALLOC(B, n, const char *);
	t->groups = ALLOC(B, n, tph_str_list), t->labels = ALLOC(B, n, tph_kv_list);
	return cols_done(B);
}

static tph_str_list dup_strs(kai_build *B, const tph_str_list *l)
{
	const char **items = ALLOC(B, l->n, const char *);
	for (uint32_t i = 0; items && i < l->n; i++)
		items[i] = dup(B, l->items[i]);
	return (tph_str_list){items, items ? l->n : 0};
}

static tph_kv_list dup_kvs(kai_build *B, const tph_kv_list *l)
{
	tph_kv *items = ALLOC(B, l->n, tph_kv);
	for (uint32_t i = 0; items && i < l->n; i++)
		items[i] = (tph_kv){dup(B, l->items[i].key), dup(B, l->items[i].value)};
	return (tph_kv_list){items, items ? l->n : 0};
}

static int fill_task(kai_build *B, uint32_t i, task_cols *t)
{
	static const tph_kai_pod_desc none = TPH_KAI_POD_DESC_INIT;
	const tph_pod_desc *p = &B->c->pods[i];
	const tph_kai_pod_desc *k = B->c->kai_pods ? &B->c->kai_pods[i] : &none;
	if (p->size != sizeof *p || k->size != sizeof *k || !p->name)
		return tph_diag_set(B->d, TPH_EINVAL,
		                    "kai snapshot: pod %u: start from TPH_POD_DESC_INIT and "
		                    "TPH_KAI_POD_DESC_INIT and give a name",
		                    i);
	const char *ns = p->namespace_ ? p->namespace_ : "";
	if (k->legacy_mig && (strncmp(k->legacy_mig, "nvidia.com/mig-", 15) != 0 ||
	                      k->legacy_mig_count < 0 || k->legacy_mig_count > INT32_MAX))
		return tph_diag_set(B->d, TPH_EINVAL,
		                    "kai snapshot: pod %s/%s: legacy MIG request %s of %lld: a "
		                    "nvidia.com/mig-* name and a count in [0, 2^31)",
		                    ns, p->name, k->legacy_mig, (long long)k->legacy_mig_count);
	t->name[i] = dup(B, p->name);
	t->ns[i] = dup(B, ns);
	t->job[i] = find(B, 'g', ns, p->pod_group);
	t->pod_set[i] = pod_set_of(&B->s->v, t->job[i], k->subgroup);
	t->node[i] = find(B, 'n', NULL, p->node_name && *p->node_name ? p->node_name : NULL);
	if (p->node_name && *p->node_name && t->node[i] < 0)
		return tph_diag_set(B->d, TPH_EINVAL, "kai snapshot: pod %s/%s: no node \"%s\"", ns,
		                    p->name, p->node_name);
	t->nominated[i] = find(B, 'n', NULL, p->nominated_node);
	t->status[i] = derive_status(p, k);
	/* A legacy MIG annotation replaces the GPU request (kai_snap_mig.c adds the instances). */
	bool legacy = k->legacy_mig != NULL;
	t->gpus[i] = legacy ? 0 : (double)res_of(&p->requests, "nvidia.com/gpu") / 1000.0;
	t->fraction[i] = legacy ? 0 : k->gpu_fraction;
	t->gpu_mib[i] = legacy ? 0 : k->gpu_memory_mib;
	t->devices[i] = k->gpu_devices;
	t->prio[i] = k->has_task_priority ? k->task_priority : 0;
	t->creation[i] = p->creation;
	t->gpu_group[i] = dup(B, k->gpu_groups.n ? k->gpu_groups.items[0] : "");
	t->groups[i] = dup_strs(B, &k->gpu_groups);
	t->labels[i] = dup_kvs(B, &p->labels);
	t->cpu[i] = res_of(&p->requests, "cpu");
	t->mem[i] = res_of(&p->requests, "memory");
	return put_name(B, 't', ns, p->name, i, "pod");
}

static int build_tasks(kai_build *B)
{
	uint32_t n = B->c->n_pods;
	task_cols t;
	int rc = alloc_tasks(B, n, &t);
	for (uint32_t i = 0; rc == TPH_OK && i < n; i++)
		rc = fill_task(B, i, &t);
	B->s->v.tasks =
	    (tph_kai_tasks){n,      t.name,      t.ns,   t.job,      t.pod_set,  t.status,
	                    t.node, t.nominated, t.gpus, t.fraction, t.gpu_mib,  t.devices,
	                    t.prio, t.creation,  t.cpu,  t.mem,      t.gpu_group};
	B->s->v.tasks.gpu_groups = t.groups;
	B->s->v.tasks.labels = t.labels;
	return rc;
}

/* ---- topologies --------------------------------------------------------------------------------
 */

/* Level l's domains: each node's label value, numbered by first appearance ("d:<l>:<value>"),
 * and each id's value. */
static int level_domains(kai_build *B, uint32_t l, const char *label, uint32_t *n_domains,
                         int32_t *domain, const char **values)
{
	const tph_kai_cluster_desc *c = B->c;
	for (uint32_t i = 0; i < c->n_nodes; i++) {
		const char *value = label_of(&c->nodes[i].labels, label);
		domain[i] = -1;
		if (!value)
			continue;
		char scope[32];
		snprintf(scope, sizeof scope, "%u", (unsigned)l);
		int32_t id = find(B, 'd', scope, value);
		if (id < 0) {
			values[*n_domains] = dup(B, value);
			id = (int32_t)(*n_domains)++;
			int rc = put_name(B, 'd', scope, value, (uint32_t)id, "domain");
			if (rc < 0)
				return rc;
		}
		domain[i] = id;
	}
	return TPH_OK;
}

static int build_topologies(kai_build *B)
{
	const tph_kai_cluster_desc *c = B->c;
	uint32_t n = c->n_topologies, levels = 0, nn = c->n_nodes;
	for (uint32_t t = 0; t < n; t++) {
		if (c->topologies[t].size != sizeof c->topologies[t] || !c->topologies[t].name)
			return tph_diag_set(B->d, TPH_EINVAL,
			                    "kai snapshot: topology %u: start from "
			                    "TPH_KAI_TOPOLOGY_DESC_INIT and give a name",
			                    t);
		levels += c->topologies[t].levels.n;
	}
	const char **name = ALLOC(B, n, const char *), **label = ALLOC(B, levels, const char *);
	uint32_t *first = ALLOC(B, n, uint32_t), *nl = ALLOC(B, n, uint32_t);
	uint32_t *nd = ALLOC(B, levels, uint32_t);
	int32_t *domain = ALLOC(B, (size_t)levels * nn, int32_t);
	const char **value = ALLOC(B, (size_t)levels * nn, const char *);
	if (!name || !label || !first || !nl || !nd || !domain || !value)
		return tph_diag_set(B->d, TPH_ENOMEM, "kai snapshot: out of memory");
	int rc = TPH_OK;
	for (uint32_t t = 0, l = 0; rc == TPH_OK && t < n; t++) {
		const tph_kai_topology_desc *d = &c->topologies[t];
		name[t] = dup(B, d->name);
		first[t] = l, nl[t] = d->levels.n;
		rc = put_name(B, 'o', NULL, d->name, t, "topology");
		for (uint32_t k = 0; rc == TPH_OK && k < d->levels.n; k++, l++) {
			label[l] = dup(B, d->levels.items[k]);
			rc = level_domains(B, l, d->levels.items[k], &nd[l],
			                   &domain[(size_t)l * nn], &value[(size_t)l * nn]);
		}
	}
	B->s->v.topologies =
	    (tph_kai_topologies){n, name, first, nl, levels, label, nd, domain, value};
	return rc;
}

/* ---- entry points -----------------------------------------------------------------------------
 */

int tph_kai_snapshot_build(const tph_kai_cluster_desc *c, tph_time now, tph_kai_snapshot **out,
                           tph_diag *d)
{
	tph_diag_begin(d);
	if (!out || !c || c->size != sizeof *c)
		return tph_diag_set(d, TPH_EINVAL,
		                    "kai snapshot: no output, or a cluster description not from "
		                    "TPH_KAI_CLUSTER_DESC_INIT");
	*out = NULL;
	if (c->params && c->params->size != sizeof *c->params)
		return tph_diag_set(d, TPH_EINVAL,
		                    "kai snapshot: schedulerParams not from TPH_KAI_PARAMS_INIT");
	tph_kai_snapshot *s = tph_calloc(1, sizeof *s);
	kai_build B = {.s = s, .c = c, .d = d};
	int rc = s ? tph_arena_init(&s->arena, (size_t)256 << 10) : TPH_ENOMEM;
	if (rc == TPH_OK)
		rc = tph_strtab_init(&B.names);
	if (rc < 0) {
		tph_free(s);
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	}
	static const tph_kai_params defaults = TPH_KAI_PARAMS_INIT;
	s->v.now = now;
	s->v.params = c->params ? *c->params : defaults;
	s->v.params.scheduler_name = dup(&B, s->v.params.scheduler_name);
	s->v.params.node_pool_key = dup(&B, s->v.params.node_pool_key);
	s->v.params.node_pool_value = dup(&B, s->v.params.node_pool_value);
	rc = build_queues(&B);
	if (rc == TPH_OK)
		rc = build_nodes(&B);
	if (rc == TPH_OK)
		rc = build_topologies(&B);
	if (rc == TPH_OK)
		rc = build_jobs(&B);
	if (rc == TPH_OK)
		rc = build_tasks(&B);
	if (rc == TPH_OK)
		rc = tph_kai_snap_k8s(&s->arena, c, &s->v.nodes, &s->v.tasks, &s->k8s, d);
	if (rc == TPH_OK)
		rc = tph_kai_snap_mig(&s->arena, c, &s->v.nodes, &s->v.tasks, d);
	if (rc == TPH_OK && B.oom)
		rc = tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	tph_strtab_free(&B.names);
	tph_free(B.idx);
	if (rc < 0) {
		tph_kai_snapshot_free(s);
		return rc;
	}
	*out = s;
	return TPH_OK;
}

void tph_kai_snapshot_free(tph_kai_snapshot *s)
{
	if (!s)
		return;
	tph_arena_destroy(&s->arena);
	tph_cluster_destroy(s->k8s);
	tph_free(s);
}

const tph_kai_view *tph_kai_snapshot_view(const tph_kai_snapshot *s)
{
	return s ? &s->v : NULL;
}

/* Snapshots of the cluster cache: the columns are measured, allocated in one chunk of the
 * snapshot's own arena and copied (memcpy by runs of live slots); one pass over the tasks then
 * resolves references by id and derives jobs, priorities, flags and node accounting. */
#include "cache/cluster_int.h"

#include "base/diag.h"
#include "base/mem.h"
#include "base/omp_team.h"

#include <string.h>
#include <sys/mman.h>
#ifdef TPH_HAVE_OPENMP
#include <omp.h>
#endif

const char *const tph_task_status_names[TPH_TS_COUNT] = {
    "Pending", "Allocated", "Pipelined", "Binding", "Bound",
    "Running", "Releasing", "Succeeded", "Failed",  "Unknown"};

tph_sid tph_labels_get(tph_labels l, tph_sid key)
{
	uint32_t lo = 0, hi = l.n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l.items[mid].key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < l.n && l.items[lo].key == key ? l.items[lo].value : TPH_SID_NONE;
}

/* ---- column layout: run once to measure, once to allocate ---- */

typedef struct sizes {
	uint32_t nd, nodes, stride, tasks, pg_jobs, jobs, queues, pclasses, hypernodes, quotas,
	    pdbs;
	const tph_colshare *share; /* pod columns to read in place, or NULL */
} sizes;

typedef struct sb {
	tph_arena *a;
	size_t need;
	bool measure, oom;
} sb;

static void *col(sb *b, size_t count, size_t size, bool zero)
{
	size_t bytes = count * size;
	if (b->measure) {
		b->need += (bytes + 2 * TPH_CACHELINE - 1) & ~(size_t)(TPH_CACHELINE - 1);
		return NULL;
	}
	/* A zeroed column past the chunk's high mark (a fresh snapshot's) is zero already. */
	void *p = zero ? tph_arena_calloc(b->a, count, size, TPH_CACHELINE)
	               : tph_arena_alloc(b->a, bytes, TPH_CACHELINE);
	if (!p)
		b->oom = true;
	return p;
}

#define COLS(b, ptr, count, zero) ((ptr) = col((b), (count), sizeof *(ptr), (zero)))
/* A task column the cache's pod column `pc` gives in place when shared, else one to copy. */
#define TASK_COL(b, z, ptr, pc, count)                                   \
	((ptr) = (z)->share && (z)->share->col[pc] ? (z)->share->col[pc] \
	                                           : col((b), (count), sizeof *(ptr), false))

static void lay_nodes(sb *b, tph_node_store *n, const sizes *z)
{
	size_t cells = (size_t)z->nd * z->stride;
	n->n = z->nodes;
	n->stride = z->stride;
	COLS(b, n->alloc, cells, true); /* the padding past n stays defined */
	COLS(b, n->capacity, cells, true);
	COLS(b, n->idle, cells, false);
	COLS(b, n->used, cells, false);
	COLS(b, n->releasing, cells, true);
	COLS(b, n->pipelined, cells, true);
	COLS(b, n->ntasks, z->nodes, true);
	COLS(b, n->flags, z->nodes, false);
	COLS(b, n->name, z->nodes, false);
	COLS(b, n->meta, z->nodes, false);
}

static void lay_tasks(sb *b, tph_task_store *t, const sizes *z)
{
	t->n = z->tasks;
	TASK_COL(b, z, t->req, P_REQ, (size_t)z->tasks * z->nd);
	COLS(b, t->job, z->tasks, false);
	COLS(b, t->status, z->tasks, false);
	COLS(b, t->node, z->tasks, false);
	COLS(b, t->nominated, z->tasks, false);
	COLS(b, t->priority, z->tasks, false);
	COLS(b, t->flags, z->tasks, false);
	TASK_COL(b, z, t->creation, P_CREATION, z->tasks);
	TASK_COL(b, z, t->name, P_NAME, z->tasks);
	TASK_COL(b, z, t->ns, P_NS, z->tasks);
	TASK_COL(b, z, t->uid, P_UID, z->tasks);
	TASK_COL(b, z, t->role, P_ROLE, z->tasks);
	TASK_COL(b, z, t->key, K_KEY, z->tasks);
	TASK_COL(b, z, t->pclass, P_PCLASS, z->tasks);
	TASK_COL(b, z, t->spec, P_SPEC, z->tasks);
	TASK_COL(b, z, t->meta, P_META, z->tasks);
	TASK_COL(b, z, t->group, P_PG, z->tasks);
	TASK_COL(b, z, t->nonzero, P_NZ, (size_t)z->tasks * 2);
}

static void lay_jobs(sb *b, tph_job_store *j, const sizes *z)
{
	j->n = z->jobs;
	COLS(b, j->queue, z->jobs, false);
	COLS(b, j->min_member, z->jobs, false);
	COLS(b, j->phase, z->jobs, false);
	COLS(b, j->priority, z->jobs, false);
	COLS(b, j->creation, z->jobs, false);
	COLS(b, j->name, z->jobs, false);
	COLS(b, j->ns, z->jobs, false);
	COLS(b, j->uid, z->jobs, false);
	COLS(b, j->min_res, (size_t)z->jobs * z->nd, false);
	COLS(b, j->has_min_res, z->jobs, false);
	COLS(b, j->topo_mode, z->jobs, false);
	COLS(b, j->topo_tier, z->jobs, false);
	COLS(b, j->topo_tier_name, z->jobs, false);
	COLS(b, j->meta, z->jobs, false);
	COLS(b, j->task_off, (size_t)z->jobs + 1, true);
	COLS(b, j->task_idx, z->tasks, false);
	COLS(b, j->ts_count, (size_t)z->jobs * TPH_TS_COUNT, true);
	COLS(b, j->alloc_req, (size_t)z->jobs * z->nd, true);
	COLS(b, j->pending_req, (size_t)z->jobs * z->nd, true);
	COLS(b, j->top_prio, z->jobs, true);
	COLS(b, j->be_pending, z->jobs, true);
	COLS(b, j->min_res_mask, z->jobs, false);
}

static void lay_queues(sb *b, tph_queue_store *q, const sizes *z)
{
	size_t cells = (size_t)z->queues * z->nd;
	q->n = z->queues;
	COLS(b, q->weight, z->queues, false);
	COLS(b, q->capability, cells, false);
	COLS(b, q->deserved, cells, false);
	COLS(b, q->guarantee, cells, false);
	COLS(b, q->cap_mask, z->queues, false);
	COLS(b, q->des_mask, z->queues, false);
	COLS(b, q->gua_mask, z->queues, false);
	COLS(b, q->parent, z->queues, false);
	COLS(b, q->state, z->queues, false);
	COLS(b, q->reclaimable, z->queues, false);
	COLS(b, q->priority, z->queues, false);
	COLS(b, q->creation, z->queues, false);
	COLS(b, q->name, z->queues, false);
	COLS(b, q->meta, z->queues, false);
}

static void lay_small(sb *b, tph_snapshot *s, const sizes *z)
{
	tph_pclass_store *p = &s->pclasses;
	tph_hypernode_store *h = &s->hypernodes;
	tph_quota_store *r = &s->quotas;
	p->n = z->pclasses;
	COLS(b, p->name, p->n, false);
	COLS(b, p->value, p->n, false);
	COLS(b, p->global_default, p->n, false);
	COLS(b, p->preempt_never, p->n, false);
	h->n = z->hypernodes;
	COLS(b, h->name, h->n, false);
	COLS(b, h->tier, h->n, false);
	COLS(b, h->tier_name, h->n, false);
	COLS(b, h->members, h->n, false);
	COLS(b, h->n_members, h->n, false);
	r->n = z->quotas;
	COLS(b, r->name, r->n, false);
	COLS(b, r->ns, r->n, false);
	COLS(b, r->hard, (size_t)r->n * z->nd, false);
	COLS(b, r->hard_mask, r->n, false);
	COLS(b, r->used, (size_t)r->n * z->nd, false);
	tph_pdb_store *d = &s->pdbs;
	d->n = z->pdbs;
	COLS(b, d->name, d->n, false);
	COLS(b, d->ns, d->n, false);
	COLS(b, d->disruptions_allowed, d->n, false);
	COLS(b, d->meta, d->n, false);
}

static void lay_all(sb *b, tph_snapshot *s, const sizes *z)
{
	lay_nodes(b, &s->nodes, z);
	lay_tasks(b, &s->tasks, z);
	lay_jobs(b, &s->jobs, z);
	COLS(b, s->job_pg, z->jobs, false);
	lay_queues(b, &s->queues, z);
	lay_small(b, s, z);
}

/* ---- resolution maps (cache-owned scratch, reused across snapshots) ---- */

static uint32_t dense_map(const tph_kind *k, uint32_t *out)
{
	const uint8_t *live = KCOL(k, K_LIVE, uint8_t);
	uint32_t n = 0;
	for (uint32_t s = 0; s < k->n; s++)
		out[s] = live[s] ? n++ : TPH_NOIDX;
	return n;
}

static uint32_t pod_runs(const tph_kind *k, uint32_t *runs)
{
	const uint8_t *live = KCOL(k, K_LIVE, uint8_t);
	uint32_t nr = 0, s = 0;
	while (s < k->n) {
		if (!live[s]) {
			s++;
			continue;
		}
		uint32_t e = s;
		while (e < k->n && live[e])
			e++;
		runs[2 * nr] = s;
		runs[2 * nr + 1] = e - s;
		nr++;
		s = e;
	}
	return nr;
}

/* A podgroup joins the snapshot when its queue exists (Volcano's cache Snapshot()). */
static uint32_t job_map(const tph_cluster *c, uint32_t *job)
{
	const tph_kind *k = &c->pgs;
	const uint8_t *live = KCOL(k, K_LIVE, uint8_t);
	const tph_sid *queue = KCOL(k, G_QUEUE, tph_sid);
	uint32_t n = 0;
	for (uint32_t s = 0; s < k->n; s++)
		job[s] =
		    live[s] && tph_kind_find(&c->queues, queue[s]) != TPH_NOIDX ? n++ : TPH_NOIDX;
	return n;
}

static uint32_t count_own(const tph_cluster *c)
{
	const tph_kind *k = &c->pods;
	const uint8_t *live = KCOL(k, K_LIVE, uint8_t);
	const tph_sid *pg = KCOL(k, P_PG, tph_sid);
	const uint8_t *flags = KCOL(k, P_FLAGS, uint8_t);
	uint32_t n = 0;
	for (uint32_t s = 0; s < k->n; s++) /* another scheduler's pod has no job (task_job) */
		n += live[s] && !(flags[s] & P_FOREIGN) &&
		     tph_kind_find(&c->pgs, pg[s]) == TPH_NOIDX;
	return n;
}

static int build_maps(tph_cluster *c, tph_snap_maps *m, sizes *z)
{
	if (c->pods.dead > 1024 && /* bounds the number of runs the copy walks */
	    tph_kind_compact(c, &c->pods) != TPH_OK)
		return TPH_ENOMEM;
	uint64_t need = (uint64_t)c->nodes.n + c->queues.n + c->pgs.n + 2ull * (c->pods.dead + 1);
	if (need >= UINT32_MAX || tph_grow(&c->dense, &c->dense_cap, (uint32_t)need, 4))
		return TPH_ENOMEM;
	m->node = c->dense;
	m->queue = m->node + c->nodes.n;
	m->job = m->queue + c->queues.n;
	m->runs = m->job + c->pgs.n;
	m->nruns = pod_runs(&c->pods, m->runs);
	z->nd = c->dims.n;
	z->nodes = dense_map(&c->nodes, m->node);
	z->stride = (z->nodes + 7) & ~7u; /* each dimension's column starts on a cache line */
	uint64_t cells = (uint64_t)z->nodes * c->dims.n;
	if (cells >= UINT32_MAX || tph_grow(&c->acc, &c->acc_cap, (uint32_t)cells + 1, 8))
		return TPH_ENOMEM;
	m->acc = c->acc;
	memset(m->acc, 0, cells * sizeof *m->acc);
	z->queues = dense_map(&c->queues, m->queue);
	z->pg_jobs = m->pg_jobs = job_map(c, m->job);
	uint32_t q = tph_kind_find(&c->queues, c->sid_default);
	m->qdef = q == TPH_NOIDX ? TPH_NOIDX : m->queue[q];
	z->tasks = c->pods.n - c->pods.dead;
	z->jobs = z->pg_jobs + (m->qdef == TPH_NOIDX ? 0 : count_own(c));
	z->pclasses = c->pclasses.n - c->pclasses.dead;
	z->hypernodes = c->hypernodes.n - c->hypernodes.dead;
	z->quotas = c->quotas.n - c->quotas.dead;
	z->pdbs = c->pdbs.n - c->pdbs.dead;
	/* Task t is pod slot t only without tombstones; out of memory, the columns are copied. */
	z->share = c->pods.dead == 0 && c->pods.n > 0 ? tph_pods_share(c) : NULL;
	return TPH_OK;
}

/* ---- copies of the small stores ---- */

static void fill_nodes(const tph_cluster *c, tph_snapshot *s, const tph_snap_maps *m,
                       const sizes *z)
{
	const tph_kind *k = &c->nodes;
	tph_node_store *n = &s->nodes;
	for (uint32_t slot = 0; slot < k->n; slot++) {
		uint32_t i = m->node[slot];
		if (i == TPH_NOIDX)
			continue;
		const int64_t *a = tph_kind_at(c, k, N_ALLOC, slot);
		const int64_t *cap = tph_kind_at(c, k, N_CAPACITY, slot);
		for (uint32_t d = 0; d < z->nd; d++) {
			n->alloc[(size_t)d * z->stride + i] = a[d];
			n->capacity[(size_t)d * z->stride + i] = cap[d];
		}
		n->flags[i] = KCOL(k, N_FLAGS, uint8_t)[slot];
		n->name[i] = KCOL(k, K_KEY, tph_sid)[slot];
		n->meta[i] = KCOL(k, N_META, const tph_node_meta *)[slot];
	}
	for (uint32_t i = 0; i < c->n_shard_nodes; i++) {
		uint32_t slot = tph_kind_find(k, c->shard_nodes[i]);
		if (slot != TPH_NOIDX)
			n->flags[m->node[slot]] |= TPH_NODE_IN_SHARD;
	}
}

static void fill_queue_rows(const tph_cluster *c, tph_queue_store *q, uint32_t slot, uint32_t i)
{
	const tph_kind *k = &c->queues;
	size_t row = (size_t)c->dims.n * sizeof(int64_t);
	memcpy(q->capability + (size_t)i * c->dims.n, tph_kind_at(c, k, Q_CAP, slot), row);
	memcpy(q->deserved + (size_t)i * c->dims.n, tph_kind_at(c, k, Q_DES, slot), row);
	memcpy(q->guarantee + (size_t)i * c->dims.n, tph_kind_at(c, k, Q_GUA, slot), row);
	q->cap_mask[i] = KCOL(k, Q_CAP_MASK, tph_dimmask)[slot];
	q->des_mask[i] = KCOL(k, Q_DES_MASK, tph_dimmask)[slot];
	q->gua_mask[i] = KCOL(k, Q_GUA_MASK, tph_dimmask)[slot];
}

static void fill_queues(const tph_cluster *c, tph_snapshot *s, const tph_snap_maps *m)
{
	const tph_kind *k = &c->queues;
	tph_queue_store *q = &s->queues;
	for (uint32_t slot = 0; slot < k->n; slot++) {
		uint32_t i = m->queue[slot];
		if (i == TPH_NOIDX)
			continue;
		uint32_t p = tph_kind_find(k, KCOL(k, Q_PARENT, tph_sid)[slot]);
		q->parent[i] = p == TPH_NOIDX ? TPH_NOIDX : m->queue[p];
		q->weight[i] = KCOL(k, Q_WEIGHT, int32_t)[slot];
		q->state[i] = KCOL(k, Q_STATE, uint8_t)[slot];
		q->reclaimable[i] = KCOL(k, Q_RECLAIM, uint8_t)[slot];
		q->priority[i] = KCOL(k, Q_PRIO, int32_t)[slot];
		q->creation[i] = KCOL(k, Q_CREATION, tph_time)[slot];
		q->name[i] = KCOL(k, K_KEY, tph_sid)[slot];
		q->meta[i] = KCOL(k, Q_META, const tph_queue_meta *)[slot];
		fill_queue_rows(c, q, slot, i);
	}
}

static void fill_small(const tph_cluster *c, tph_snapshot *s)
{
	const tph_kind *k = &c->pclasses, *h = &c->hypernodes, *r = &c->quotas;
	for (uint32_t slot = 0, i = 0; slot < k->n; slot++) {
		if (!KCOL(k, K_LIVE, uint8_t)[slot])
			continue;
		s->pclasses.name[i] = KCOL(k, K_KEY, tph_sid)[slot];
		s->pclasses.value[i] = KCOL(k, C_VALUE, int32_t)[slot];
		s->pclasses.global_default[i] = KCOL(k, C_GDEF, uint8_t)[slot];
		s->pclasses.preempt_never[i++] = KCOL(k, C_NEVER, uint8_t)[slot];
	}
	for (uint32_t slot = 0, i = 0; slot < h->n; slot++) {
		if (!KCOL(h, K_LIVE, uint8_t)[slot])
			continue;
		s->hypernodes.name[i] = KCOL(h, K_KEY, tph_sid)[slot];
		s->hypernodes.tier[i] = KCOL(h, H_TIER, int32_t)[slot];
		s->hypernodes.tier_name[i] = KCOL(h, H_TIER_NAME, tph_sid)[slot];
		s->hypernodes.members[i] = KCOL(h, H_MEMBERS, const tph_hn_member_row *)[slot];
		s->hypernodes.n_members[i++] = KCOL(h, H_NMEMBERS, uint32_t)[slot];
	}
	for (uint32_t slot = 0, i = 0; slot < r->n; slot++) {
		if (!KCOL(r, K_LIVE, uint8_t)[slot])
			continue;
		s->quotas.name[i] = KCOL(r, R_NAME, tph_sid)[slot];
		s->quotas.ns[i] = KCOL(r, R_NS, tph_sid)[slot];
		memcpy(s->quotas.hard + (size_t)i * c->dims.n, tph_kind_at(c, r, R_HARD, slot),
		       c->dims.n * sizeof(int64_t));
		memcpy(s->quotas.used + (size_t)i * c->dims.n, tph_kind_at(c, r, R_USED, slot),
		       c->dims.n * sizeof(int64_t));
		s->quotas.hard_mask[i++] = KCOL(r, R_HARD_MASK, tph_dimmask)[slot];
	}
}

static void fill_pdbs(const tph_cluster *c, tph_pdb_store *p)
{
	const tph_kind *k = &c->pdbs;
	for (uint32_t slot = 0, i = 0; slot < k->n; slot++) {
		if (!KCOL(k, K_LIVE, uint8_t)[slot])
			continue;
		p->name[i] = KCOL(k, D_NAME, tph_sid)[slot];
		p->ns[i] = KCOL(k, D_NS, tph_sid)[slot];
		p->disruptions_allowed[i] = KCOL(k, D_ALLOWED, int32_t)[slot];
		p->meta[i++] = KCOL(k, D_META, const tph_pdb_meta *)[slot];
	}
}

/* ---- jobs ---- */

int32_t tph_snap_default_prio(const tph_cluster *c, int32_t fallback)
{
	uint32_t p = tph_kind_find(&c->pclasses, c->gdef);
	return p == TPH_NOIDX ? fallback : KCOL(&c->pclasses, C_VALUE, int32_t)[p];
}

int32_t tph_snap_class_prio(const tph_cluster *c, tph_sid name, int32_t dflt)
{
	uint32_t p = tph_kind_find(&c->pclasses, name);
	return p == TPH_NOIDX ? dflt : KCOL(&c->pclasses, C_VALUE, int32_t)[p];
}

static void fill_pg_job(const tph_cluster *c, tph_job_store *j, uint32_t slot, uint32_t i,
                        uint32_t queue)
{
	const tph_kind *k = &c->pgs;
	j->queue[i] = queue;
	j->min_member[i] = KCOL(k, G_MIN_MEMBER, int32_t)[slot];
	j->phase[i] = KCOL(k, G_PHASE, uint8_t)[slot];
	j->priority[i] =
	    tph_snap_class_prio(c, KCOL(k, G_PCLASS, tph_sid)[slot], tph_snap_default_prio(c, 0));
	j->creation[i] = KCOL(k, G_CREATION, tph_time)[slot];
	j->name[i] = KCOL(k, G_NAME, tph_sid)[slot];
	j->ns[i] = KCOL(k, G_NS, tph_sid)[slot];
	j->uid[i] = KCOL(k, G_UID, tph_sid)[slot];
	memcpy(j->min_res + (size_t)i * c->dims.n, tph_kind_at(c, k, G_MIN_RES, slot),
	       c->dims.n * sizeof(int64_t));
	j->has_min_res[i] = KCOL(k, G_HAS_MIN_RES, uint8_t)[slot];
	j->min_res_mask[i] = KCOL(k, G_MIN_MASK, tph_dimmask)[slot];
	j->topo_mode[i] = KCOL(k, G_TOPO_MODE, uint8_t)[slot];
	j->topo_tier[i] = KCOL(k, G_TOPO_TIER, int32_t)[slot];
	j->topo_tier_name[i] = KCOL(k, G_TOPO_TIER_NAME, tph_sid)[slot];
	j->meta[i] = KCOL(k, G_META, const tph_job_meta *)[slot];
}

static void fill_pg_jobs(const tph_cluster *c, tph_snapshot *s, const tph_snap_maps *m, tph_diag *d)
{
	const tph_kind *k = &c->pgs;
	const tph_strtab *st = &c->strs;
	for (uint32_t slot = 0; slot < k->n; slot++) {
		if (!KCOL(k, K_LIVE, uint8_t)[slot])
			continue;
		tph_sid q = KCOL(k, G_QUEUE, tph_sid)[slot];
		uint32_t i = m->job[slot];
		if (i == TPH_NOIDX) {
			tph_diag_warn(d, "podgroup %s: queue \"%s\" does not exist; left out",
			              tph_strtab_str(st, KCOL(k, K_KEY, tph_sid)[slot]),
			              tph_strtab_str(st, q));
			continue;
		}
		fill_pg_job(c, &s->jobs, slot, i, m->queue[tph_kind_find(&c->queues, q)]);
		s->job_pg[i] = KCOL(k, K_KEY, tph_sid)[slot];
	}
}

/* ---- the snapshot ---- */

void tph_snap_free(tph_snapshot *s)
{
	if (!s)
		return;
	tph_colshare_drop(s->pod_share);
	tph_arena_destroy(&s->arena);
	tph_free(s);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

typedef struct slices {
	uintptr_t lo, hi, step;
} slices;

static void populate(void *ud, int i)
{
	const slices *sl = ud;
	uintptr_t b = sl->lo + (uintptr_t)i * sl->step,
	          e = b + sl->step < sl->hi ? b + sl->step : sl->hi;
	if (e > b)
		madvise((void *)b, e - b, MADV_POPULATE_WRITE);
}

/* Faulting in a fresh chunk page by page costs more than the copies that fill it; populating
 * it in slices on every thread is about three times faster. Best effort: an old kernel
 * refuses the advice and the copies fault the pages in as before. */
static void prefault(tph_arena *a, size_t need)
{
	const uintptr_t page = 4096, n = 16;
	if (need < ((size_t)4 << 20) || !tph_arena_alloc(a, 1, 1)) /* maps the chunk */
		return;
	slices sl = {((uintptr_t)a->ptr + page - 1) & ~(page - 1),
	             ((uintptr_t)a->ptr + need) & ~(page - 1), 0};
	if (sl.hi > (uintptr_t)a->end)
		sl.hi = (uintptr_t)a->end & ~(page - 1);
	sl.step = ((sl.hi - sl.lo) / n + page - 1) & ~(page - 1);
	tph_snap_parallel((int)n, true, populate, &sl);
}

void tph_snap_parallel(int n, bool team, void (*each)(void *ud, int i), void *ud)
{
	int nt = 1;
#ifdef TPH_HAVE_OPENMP
	if (team)
		nt = omp_get_max_threads();
#endif
	tph_team_for(nt, n, true, each, ud);
}

/* Reuse the parked snapshot when its arena already holds `need` bytes, else start afresh. */
static tph_snapshot *snap_shell(tph_cluster *c, size_t need)
{
	tph_snapshot *s = atomic_exchange(&c->parked, NULL);
	if (s && s->arena.reserved >= need) {
		tph_arena_reset(&s->arena);
		tph_arena arena = s->arena;
		memset(s, 0, sizeof *s);
		s->arena = arena;
		return s;
	}
	tph_snap_free(s);
	s = tph_calloc(1, sizeof *s);
	if (!s)
		return NULL;
	/* One chunk for every column, with room to grow before the next one is needed. */
	tph_arena_init(&s->arena, need + need / 8 + 4096);
	prefault(&s->arena, need);
	return s;
}

static tph_snapshot *snap_alloc(tph_cluster *c, const sizes *z)
{
	sb b = {NULL, 0, true, false};
	tph_snapshot tmp;
	lay_all(&b, &tmp, z);
	tph_snapshot *s = snap_shell(c, b.need + 4096);
	if (!s)
		return NULL;
	b = (sb){&s->arena, 0, false, false};
	lay_all(&b, s, z);
	if (b.oom) {
		tph_snap_free(s);
		return NULL;
	}
	s->cache = c;
	if (z->share) {
		tph_colshare *sh = c->pods.share;
		tph_colshare_hold(sh, z->tasks);
		s->pod_share = sh;
		for (uint32_t i = 0; i < c->pods.ncols; i++)
			if (sh->col[i])
				s->shared_bytes += tph_kind_col_size(c, &c->pods, i) * z->tasks;
	}
	return s;
}

int tph_cluster_snapshot(tph_cluster *c, tph_time now, tph_snapshot **out, tph_diag *d)
{
	tph_diag_begin(d);
	if (!out)
		return tph_diag_set(d, TPH_EINVAL, "snapshot: no output");
	*out = NULL;
	if (!c)
		return tph_diag_set(d, TPH_EINVAL, "snapshot: no cache");
	int rc = tph_cl_check_totals(c, NULL, d);
	if (rc)
		return rc;
	tph_snap_maps m;
	sizes z;
	tph_snapshot *s = NULL;
	if (build_maps(c, &m, &z) || !(s = snap_alloc(c, &z)))
		return tph_diag_set(d, TPH_ENOMEM, "snapshot: out of memory");
	s->strs = &c->strs;
	s->now = now;
	s->dims = c->dims;
	s->shard_mode = c->shard_mode;
	s->shard_name = c->shard_name;
	s->n_specs = c->n_specs;
	atomic_init(&s->refs, 1);
	atomic_fetch_add_explicit(&c->refs, 1, memory_order_relaxed); /* the snapshot holds it */
	fill_nodes(c, s, &m, &z);
	fill_queues(c, s, &m);
	fill_small(c, s);
	fill_pdbs(c, &s->pdbs);
	fill_pg_jobs(c, s, &m, d);
	tph_snap_tasks(c, s, &m, d);
	*out = s;
	return TPH_OK;
}

void tph_snapshot_hold(const tph_snapshot *s)
{
	/* the count is not part of the snapshot's value: holding a const one is fine */
	atomic_fetch_add_explicit(&((tph_snapshot *)s)->refs, 1, memory_order_relaxed);
}

void tph_snapshot_release(tph_snapshot *s)
{
	if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) > 1)
		return;
	tph_cluster *c = s->cache;
	tph_colshare_drop(s->pod_share); /* the cache may write its columns again */
	s->pod_share = NULL;
	tph_snapshot *none = NULL;
	if (!atomic_compare_exchange_strong(&c->parked, &none, s))
		tph_snap_free(s);
	tph_cluster_unhold(c); /* a parked snapshot belongs to the cache, holding nothing */
}

uint32_t tph_snapshot_node_count(const tph_snapshot *s)
{
	return s ? s->nodes.n : 0;
}

uint32_t tph_snapshot_task_count(const tph_snapshot *s)
{
	return s ? s->tasks.n : 0;
}

uint32_t tph_snapshot_job_count(const tph_snapshot *s)
{
	return s ? s->jobs.n : 0;
}

size_t tph_snapshot_bytes(const tph_snapshot *s)
{
	return s ? s->arena.allocated + s->shared_bytes : 0;
}

/* The snapshot's task pass: copy the task columns by runs of live slots (split across
 * threads), then in one pass resolve each task's job, node and priority by id, sum per job and
 * do Volcano's node accounting. */
#include "cache/cluster_int.h"

#include <string.h>

/* The pod columns the pass reads. The pass holds them, and the stores it makes, in copies of
 * its own: its byte stores could alias the cache's and the snapshot's column tables, and
 * reading the columns through those would load them again after each store. */
typedef struct pod_cols {
	const tph_sid *pclass, *pg, *node, *nominated;
	const uint8_t *flags;
	const int32_t *prio;
	const int64_t *req;
} pod_cols;

typedef struct tpass {
	const tph_cluster *c;
	tph_snapshot *s;
	const tph_snap_maps *m;
	tph_diag *d;
	pod_cols p;
	tph_task_store ts;
	tph_job_store js;
	tph_node_store ns;
	uint32_t nd;
	uint32_t next_own, dropped_own;
	int32_t pod_default; /* priority of a pod without priority or class */
	bool gdef;           /* a globalDefault class exists (the admission gives every pod one) */
	tph_sid last_pg;     /* the podgroup of the previous pod and its slot (task_job) */
	uint32_t last_g;
} tpass;

/* Tasks [t0, t1) of a column gathered from the runs of live slots. */
static void copy_range(void *dst, const void *src, size_t elem, const tph_snap_maps *m, uint32_t t0,
                       uint32_t t1)
{
	char *o = dst;
	const char *in = src;
	for (uint32_t r = 0, at = 0; r < m->nruns && at < t1; r++) {
		uint32_t len = m->runs[2 * r + 1], lo = t0 > at ? t0 : at;
		uint32_t hi = t1 < at + len ? t1 : at + len;
		if (lo < hi)
			memcpy(o + (size_t)lo * elem,
			       in + ((size_t)m->runs[2 * r] + lo - at) * elem,
			       (size_t)(hi - lo) * elem);
		at += len;
	}
}

/* The copies are most of the snapshot's time and bound by memory bandwidth, which one core
 * does not saturate: every column is cut into pieces that the threads share. */
#define COPY_PIECES 8

typedef struct copy_col {
	void *dst;
	const void *src;
	size_t elem;
} copy_col;

typedef struct copy_job {
	const copy_col *col;
	const tph_snap_maps *m;
	uint32_t n, piece;
} copy_job;

static void copy_piece(void *ud, int i)
{
	const copy_job *j = ud;
	const copy_col *col = &j->col[i / COPY_PIECES];
	uint32_t t0 = (uint32_t)(i % COPY_PIECES) * j->piece;
	uint32_t t1 = t0 + j->piece < j->n ? t0 + j->piece : j->n;
	if (t0 < t1)
		copy_range(col->dst, col->src, col->elem, j->m, t0, t1);
}

/* A task column that is the pod column itself (read in place, cluster_share.c) is not copied. */
static void copy_task_cols(const tph_cluster *c, const tph_task_store *t, const tph_snap_maps *m)
{
	const tph_kind *k = &c->pods;
	const copy_col all[] = {
	    {t->status, k->col[P_STATUS], sizeof *t->status},
	    {t->creation, k->col[P_CREATION], sizeof *t->creation},
	    {t->name, k->col[P_NAME], sizeof *t->name},
	    {t->ns, k->col[P_NS], sizeof *t->ns},
	    {t->uid, k->col[P_UID], sizeof *t->uid},
	    {t->role, k->col[P_ROLE], sizeof *t->role},
	    {t->key, k->col[K_KEY], sizeof *t->key},
	    {t->pclass, k->col[P_PCLASS], sizeof *t->pclass},
	    {t->spec, k->col[P_SPEC], sizeof *t->spec},
	    {t->meta, k->col[P_META], sizeof *t->meta},
	    {t->group, k->col[P_PG], sizeof *t->group},
	    {t->nonzero, k->col[P_NZ], 2 * sizeof *t->nonzero},
	};
	copy_col col[sizeof all / sizeof *all];
	int nc = 0;
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		if (all[i].dst != all[i].src)
			col[nc++] = all[i];
	copy_job j = {col, m, t->n, (t->n + COPY_PIECES - 1) / COPY_PIECES};
	int n = nc * COPY_PIECES;
	tph_snap_parallel(n, t->n >= 65536, copy_piece, &j);
}
/* Volcano's pg controller gives a bare pod a podgroup of its own: minMember 1, the pod's
 * priority class, its requests as minResources, Pending (buildPodGroupFromPod). */
static void fill_own_job(const tph_cluster *c, tph_snapshot *s, uint32_t i, uint32_t t,
                         uint32_t queue, tph_sid pclass)
{
	tph_job_store *j = &s->jobs;
	const tph_task_store *ts = &s->tasks;
	j->queue[i] = queue;
	j->min_member[i] = 1;
	j->phase[i] = TPH_PG_PENDING;
	j->priority[i] = tph_snap_class_prio(c, pclass, tph_snap_default_prio(c, 0));
	j->creation[i] = ts->creation[t];
	j->name[i] = ts->name[t];
	j->ns[i] = ts->ns[t];
	j->uid[i] = ts->uid[t];
	memcpy(j->min_res + (size_t)i * c->dims.n, ts->req + (size_t)t * c->dims.n,
	       c->dims.n * sizeof(int64_t));
	j->has_min_res[i] = 1;
	tph_dimmask mask = 0; /* the dimensions the pod's request names, as its quota usage does */
	for (uint32_t d = 0; d < c->dims.n && d < 32; d++)
		if (j->min_res[(size_t)i * c->dims.n + d])
			mask |= (tph_dimmask)1 << d;
	j->min_res_mask[i] = mask;
	j->topo_mode[i] = TPH_TOPO_NONE;
	j->topo_tier[i] = -1;
	j->topo_tier_name[i] = TPH_SID_NONE;
	j->meta[i] = c->empty_job_meta;
	s->job_pg[i] = TPH_SID_NONE;
}

/* CSR from per-job counts held in task_off[j + 1]. */
static void build_csr(tph_snapshot *s)
{
	tph_job_store *j = &s->jobs;
	for (uint32_t i = 0; i < j->n; i++)
		j->task_off[i + 1] += j->task_off[i];
	for (uint32_t t = 0; t < s->tasks.n; t++) {
		uint32_t ji = s->tasks.job[t];
		if (ji != TPH_NOIDX)
			j->task_idx[j->task_off[ji]++] = t;
	}
	for (uint32_t i = j->n; i > 0; i--) /* the fill advanced each offset to the next one */
		j->task_off[i] = j->task_off[i - 1];
	j->task_off[0] = 0;
}

/* NodeInfo.AddTask: Releasing holds and releases, Pipelined only reserves, every other status
 * the cache places (Bound, Running, Unknown, ...) holds. Finished tasks are never placed.
 * What a node holds goes to a row of its own (one cache line, not one per dimension);
 * finish_nodes turns the rows into the used and idle columns. */
static void account(tpass *x, uint32_t i, uint8_t st, const int64_t *req)
{
	tph_node_store *n = &x->ns;
	uint32_t nd = x->nd;
	if (st == TPH_TS_SUCCEEDED || st == TPH_TS_FAILED)
		return;
	n->ntasks[i]++;
	size_t at = i, stride = n->stride;
	if (st == TPH_TS_PIPELINED) {
		for (uint32_t d = 0; d < nd; d++)
			n->pipelined[d * stride + at] += req[d];
		return;
	}
	int64_t *held = x->m->acc + at * nd;
	for (uint32_t d = 0; d < nd; d++)
		held[d] += req[d];
	if (st == TPH_TS_RELEASING)
		for (uint32_t d = 0; d < nd; d++)
			n->releasing[d * stride + at] += req[d];
}

/* idle = allocatable - used: every status that adds to used takes from idle. */
static void finish_nodes(tph_node_store *n, const int64_t *acc, uint32_t nd)
{
	for (uint32_t d = 0; d < nd; d++) {
		size_t col = (size_t)d * n->stride;
		for (uint32_t i = 0; i < n->n; i++) {
			int64_t held = acc[(size_t)i * nd + d];
			n->used[col + i] = held;
			n->idle[col + i] = n->alloc[col + i] - held;
		}
		for (uint32_t i = n->n; i < n->stride; i++)
			n->idle[col + i] = 0;
	}
}

static uint32_t node_of(const tpass *x, tph_sid name)
{
	uint32_t slot = tph_kind_find(&x->c->nodes, name);
	return slot == TPH_NOIDX ? TPH_NOIDX : x->m->node[slot];
}

/* Explicit priority or volcano.sh/task-priority; else the class's; else the default. */
static uint8_t task_priority(tpass *x, uint32_t t, uint32_t slot, uint8_t f)
{
	const tph_kind *pcs = &x->c->pclasses;
	tph_sid name = x->p.pclass[slot];
	uint32_t pc = tph_kind_find(pcs, name);
	int32_t prio = x->pod_default;
	if (name != TPH_SID_NONE && pc == TPH_NOIDX) {
		prio = 0;
		tph_diag_warn(x->d, "pod %s/%s: priority class \"%s\" does not exist; priority 0",
		              tph_strtab_str(&x->c->strs, x->ts.ns[t]),
		              tph_strtab_str(&x->c->strs, x->ts.name[t]),
		              tph_strtab_str(&x->c->strs, name));
	} else if (pc != TPH_NOIDX) {
		prio = KCOL(pcs, C_VALUE, int32_t)[pc];
		if (KCOL(pcs, C_NEVER, uint8_t)[pc])
			f |= TPH_TASK_PREEMPT_NEVER;
	}
	x->ts.priority[t] = f & P_PRIO_FIXED ? x->p.prio[slot] : prio;
	if (!(f & P_PRIO_SPEC) && name == TPH_SID_NONE && !x->gdef)
		f |= TPH_TASK_PRIORITY_NIL;
	return f & (TPH_TASK_BEST_EFFORT | TPH_TASK_PREEMPTABLE | TPH_TASK_PREEMPT_NEVER |
	            TPH_TASK_PRIORITY_NIL);
}

/* The job store's per-job sums (snap.h) for one task of job j, whose request row is hot. */
static void job_sums(tpass *x, uint32_t j, uint32_t t, uint8_t f, const int64_t *req)
{
	tph_job_store *js = &x->js;
	uint8_t st = x->ts.status[t];
	uint32_t nd = x->nd;
	js->ts_count[(size_t)j * TPH_TS_COUNT + st]++;
	if (x->ts.priority[t] > js->top_prio[j])
		js->top_prio[j] = x->ts.priority[t];
	int64_t *row;
	if (st == TPH_TS_PENDING) {
		js->be_pending[j] += (f & TPH_TASK_BEST_EFFORT) != 0;
		row = js->pending_req + (size_t)j * nd;
	} else if (tph_ts_allocated(st)) {
		row = js->alloc_req + (size_t)j * nd;
	} else {
		return;
	}
	for (uint32_t d = 0; d < nd; d++)
		row[d] += req[d];
}

/* The job of a task: its podgroup's (memoised: a job's pods mostly come one after another,
 * and the lookup misses cache), or for a bare pod one of its own. */
static uint32_t task_job(tpass *x, uint32_t t, uint32_t slot, uint8_t *f)
{
	tph_sid pg = x->p.pg[slot];
	if (pg != x->last_pg) {
		x->last_pg = pg;
		x->last_g = tph_kind_find(&x->c->pgs, pg);
	}
	if (x->last_g != TPH_NOIDX)
		return x->m->job[x->last_g];
	if (x->p.flags[slot] & P_FOREIGN)
		return TPH_NOIDX; /* another scheduler's: on its node, in no job */
	*f |= TPH_TASK_OWN_JOB;
	uint32_t j = x->m->qdef == TPH_NOIDX ? TPH_NOIDX : x->next_own++;
	if (j == TPH_NOIDX)
		x->dropped_own++;
	else
		fill_own_job(x->c, x->s, j, t, x->m->qdef, x->p.pclass[slot]);
	return j;
}

/* One pass per task that reads each source once: the request row is copied here rather than
 * with the other columns, so the per-job sums and the node accounting read it in cache (a
 * shared row, t == slot, is read in place). */
static void resolve_task(tpass *x, uint32_t t, uint32_t slot)
{
	const int64_t *req = x->p.req + (size_t)slot * x->nd;
	if (x->ts.req != x->p.req) {
		int64_t *row = x->ts.req + (size_t)t * x->nd;
		for (uint32_t d = 0; d < x->nd; d++)
			row[d] = req[d];
		req = row;
	}
	uint8_t f = task_priority(x, t, slot, x->p.flags[slot]);
	uint32_t j = task_job(x, t, slot, &f);
	x->ts.job[t] = j;
	x->ts.flags[t] = f;
	if (j != TPH_NOIDX) {
		x->js.task_off[j + 1]++;
		job_sums(x, j, t, f, req);
	}
	uint32_t node = node_of(x, x->p.node[slot]);
	x->ts.node[t] = node;
	x->ts.nominated[t] = node_of(x, x->p.nominated[slot]);
	if (node != TPH_NOIDX)
		account(x, node, x->ts.status[t], req);
}

void tph_snap_tasks(const tph_cluster *c, tph_snapshot *s, const tph_snap_maps *m, tph_diag *d)
{
	const tph_kind *k = &c->pods;
	tpass x = {c, s, m, d};
	x.p = (pod_cols){KCOL(k, P_PCLASS, tph_sid), KCOL(k, P_PG, tph_sid),
	                 KCOL(k, P_NODE, tph_sid),   KCOL(k, P_NOMINATED, tph_sid),
	                 KCOL(k, P_FLAGS, uint8_t),  KCOL(k, P_PRIO, int32_t),
	                 KCOL(k, P_REQ, int64_t)};
	x.ts = s->tasks;
	x.js = s->jobs;
	x.ns = s->nodes;
	x.nd = c->dims.n;
	x.next_own = m->pg_jobs;
	x.pod_default = tph_snap_default_prio(c, 1);
	x.gdef = tph_kind_find(&c->pclasses, c->gdef) != TPH_NOIDX;
	x.last_pg = TPH_SID_NONE;
	x.last_g = TPH_NOIDX;
	copy_task_cols(c, &s->tasks, m);
	uint32_t t = 0;
	for (uint32_t r = 0; r < m->nruns; r++) {
		uint32_t slot = m->runs[2 * r], end = slot + m->runs[2 * r + 1];
		for (; slot < end; slot++)
			resolve_task(&x, t++, slot);
	}
	if (x.dropped_own)
		tph_diag_warn(d,
		              "%u pods without a podgroup are left out: queue \"default\" "
		              "does not exist",
		              x.dropped_own);
	finish_nodes(&s->nodes, m->acc, c->dims.n);
	build_csr(s);
}

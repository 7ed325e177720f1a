/* The snapshot's task pass: copy the task columns by runs of live slots, then in one pass
 * resolve each task's job, node and priority by id and do Volcano's node accounting. */
#include "cluster.h"

#include <string.h>

typedef struct tpass {
	const tph_cluster *c;
	tph_snapshot *s;
	const tph_snap_maps *m;
	tph_diag *d;
	uint32_t next_own, dropped_own;
	int32_t pod_default; /* priority of a pod without priority or class */
} tpass;

static void copy_runs(void *dst, const void *src, size_t elem, const tph_snap_maps *m)
{
	char *o = dst;
	const char *in = src;
	for (uint32_t r = 0; r < m->nruns; r++) {
		size_t len = (size_t)m->runs[2 * r + 1] * elem;
		memcpy(o, in + (size_t)m->runs[2 * r] * elem, len);
		o += len;
	}
}

static void copy_task_cols(const tph_cluster *c, tph_task_store *t, const tph_snap_maps *m)
{
	const tph_kind *k = &c->pods;
	copy_runs(t->req, k->col[P_REQ], c->dims.n * sizeof *t->req, m);
	copy_runs(t->status, k->col[P_STATUS], sizeof *t->status, m);
	copy_runs(t->creation, k->col[P_CREATION], sizeof *t->creation, m);
	copy_runs(t->name, k->col[P_NAME], sizeof *t->name, m);
	copy_runs(t->ns, k->col[P_NS], sizeof *t->ns, m);
	copy_runs(t->uid, k->col[P_UID], sizeof *t->uid, m);
	copy_runs(t->role, k->col[P_ROLE], sizeof *t->role, m);
	copy_runs(t->pclass, k->col[P_PCLASS], sizeof *t->pclass, m);
	copy_runs(t->spec, k->col[P_SPEC], sizeof *t->spec, m);
	copy_runs(t->meta, k->col[P_META], sizeof *t->meta, m);
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
	j->topo_mode[i] = TPH_TOPO_NONE;
	j->topo_tier[i] = -1;
	j->topo_tier_name[i] = TPH_SID_NONE;
	j->meta[i] = c->empty_job_meta;
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
	tph_node_store *n = &x->s->nodes;
	uint32_t nd = x->c->dims.n;
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
	const tph_kind *k = &x->c->pods, *pcs = &x->c->pclasses;
	tph_sid name = KCOL(k, P_PCLASS, tph_sid)[slot];
	uint32_t pc = tph_kind_find(pcs, name);
	int32_t prio = x->pod_default;
	if (name != TPH_SID_NONE && pc == TPH_NOIDX) {
		prio = 0;
		tph_diag_warn(x->d, "pod %s/%s: priority class \"%s\" does not exist; priority 0",
		              tph_strtab_str(&x->c->strs, x->s->tasks.ns[t]),
		              tph_strtab_str(&x->c->strs, x->s->tasks.name[t]),
		              tph_strtab_str(&x->c->strs, name));
	} else if (pc != TPH_NOIDX) {
		prio = KCOL(pcs, C_VALUE, int32_t)[pc];
		if (KCOL(pcs, C_NEVER, uint8_t)[pc])
			f |= TPH_TASK_PREEMPT_NEVER;
	}
	x->s->tasks.priority[t] = f & P_PRIO_FIXED ? KCOL(k, P_PRIO, int32_t)[slot] : prio;
	return f & (TPH_TASK_BEST_EFFORT | TPH_TASK_PREEMPTABLE | TPH_TASK_PREEMPT_NEVER);
}

static void resolve_task(tpass *x, uint32_t t, uint32_t slot)
{
	const tph_kind *k = &x->c->pods;
	tph_task_store *ts = &x->s->tasks;
	uint8_t f = task_priority(x, t, slot, KCOL(k, P_FLAGS, uint8_t)[slot]);
	uint32_t g = tph_kind_find(&x->c->pgs, KCOL(k, P_PG, tph_sid)[slot]), j;
	if (g != TPH_NOIDX) {
		j = x->m->job[g];
	} else {
		f |= TPH_TASK_OWN_JOB;
		j = x->m->qdef == TPH_NOIDX ? TPH_NOIDX : x->next_own++;
		if (j == TPH_NOIDX)
			x->dropped_own++;
		else
			fill_own_job(x->c, x->s, j, t, x->m->qdef,
			             KCOL(k, P_PCLASS, tph_sid)[slot]);
	}
	ts->job[t] = j;
	if (j != TPH_NOIDX)
		x->s->jobs.task_off[j + 1]++;
	ts->flags[t] = f;
	ts->node[t] = node_of(x, KCOL(k, P_NODE, tph_sid)[slot]);
	ts->nominated[t] = node_of(x, KCOL(k, P_NOMINATED, tph_sid)[slot]);
	if (ts->node[t] != TPH_NOIDX)
		account(x, ts->node[t], ts->status[t], ts->req + (size_t)t * x->c->dims.n);
}

void tph_snap_tasks(const tph_cluster *c, tph_snapshot *s, const tph_snap_maps *m, tph_diag *d)
{
	tpass x = {c, s, m, d, m->pg_jobs, 0, tph_snap_default_prio(c, 1)};
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

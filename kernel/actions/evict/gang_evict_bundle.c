/* Victim bundles of one domain (Volcano's selectDomainBundles, utils.CreateJobBundles,
 * ApplyAllowedTasks, SortBundlesForPreempt / SortBundlesForReclaim): the domain's candidate
 * tasks grouped by job; per job a safe bundle (the tasks it can lose and stay gang-ready,
 * lowest priority first) and a whole bundle (the rest, which break the gang); ordered safe
 * first, then by victim job (preempt: the job last in JobOrder first) or victim queue
 * (reclaim: VictimQueueOrder), then by return on the need; filtered by UnifiedEvictable. */
#include "gang_evict.h"

#include "base/mem.h"

#include <math.h>
#include <string.h>

/* ---- candidates ---- */

/* IsJobPreemptableForGangEviction: a podgroup that says volcano.sh/preemptable follows it
 * (strconv.ParseBool; anything else is false), one that says nothing may be evicted. */
bool gev_job_evictable(const tph_session *s, tph_idx j)
{
	static const char key[] = "volcano.sh/preemptable";
	const tph_job_meta *m = s->jobs->meta ? s->jobs->meta[j] : NULL;
	tph_sid k = tph_strtab_find(s->snap->strs, key, sizeof key - 1);
	tph_sid v = m && k != TPH_SID_NONE ? tph_labels_get(m->annotations, k) : TPH_SID_NONE;
	if (v == TPH_SID_NONE)
		return true;
	static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
	const char *text = tph_strtab_str(s->snap->strs, v);
	for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
		if (!strcmp(text, yes[i]))
			return true;
	return false;
}

static bool candidate(const gev_ctx *c, tph_idx t)
{
	const tph_session *s = c->s;
	uint8_t st = s->tasks.status[t];
	tph_idx vj = s->tasks.job[t];
	if (!(s->tasks.flags[t] & TPH_TASK_PREEMPTABLE) || vj == TPH_NOIDX)
		return false;
	tph_idx vq = s->jobs->queue[vj];
	if (c->kind == GEV_PREEMPT) {
		if ((st != TPH_TS_BOUND && st != TPH_TS_RUNNING) || vq != c->queue ||
		    vj == c->job || s->jobs->priority[c->job] <= s->jobs->priority[vj])
			return false;
	} else if (st != TPH_TS_RUNNING || vq == c->queue || !s->queues->reclaimable[vq]) {
		return false;
	}
	return c->job_ok[vj];
}

/* Tasks by job, then (inside a job) priority ascending and uid: CreateJobBundles' order. */
static int by_job(const gev_ctx *c, tph_idx a, tph_idx b)
{
	const tph_session *s = c->s;
	tph_idx ja = s->tasks.job[a], jb = s->tasks.job[b];
	if (ja != jb)
		return ja < jb ? -1 : 1;
	int32_t pa = s->tasks.priority[a], pb = s->tasks.priority[b];
	if (pa != pb)
		return pa < pb ? -1 : 1;
	return c->uid_rank[a] < c->uid_rank[b] ? -1 : c->uid_rank[a] > c->uid_rank[b];
}

void gev_msort(uint32_t *v, uint32_t *tmp, uint32_t n, gev_cmp cmp, const void *ctx)
{
	for (uint32_t w = 1; w < n; w *= 2) {
		for (uint32_t lo = 0; lo < n; lo += 2 * w) {
			uint32_t mid = lo + w < n ? lo + w : n,
			         hi = lo + 2 * w < n ? lo + 2 * w : n;
			uint32_t i = lo, j = mid, k = lo;
			while (i < mid && j < hi)
				tmp[k++] = cmp(ctx, v[j], v[i]) < 0 ? v[j++] : v[i++];
			while (i < mid)
				tmp[k++] = v[i++];
			while (j < hi)
				tmp[k++] = v[j++];
		}
		memcpy(v, tmp, n * sizeof *v);
	}
}

static int task_cmp(const void *ctx, uint32_t a, uint32_t b)
{
	return by_job(ctx, a, b);
}

static void collect(gev_ctx *c, tph_idx hn)
{
	const tph_idx *nodes;
	uint32_t n = tph_hn_nodes(&c->s->topo->t, hn, &nodes);
	c->n_cand = 0;
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = c->node_off[nodes[i]]; k < c->node_off[nodes[i] + 1]; k++)
			if (candidate(c, c->node_task[k]))
				c->cand[c->n_cand++] = c->node_task[k];
	gev_msort(c->cand, c->flat, c->n_cand, task_cmp, c);
}

/* ---- bundles (CreateJobBundles) ---- */

/* What job j can lose: surplus over minMember, per role (when the roles' minimums bind) and
 * per subjob group (when it has sub-group policies). */
typedef struct surplus {
	int64_t job;
	const tph_job_meta *m;
	bool roles;
	int64_t *role;   /* [m->n_min_tasks] */
	int64_t *group;  /* [n_subgroups + 1]: the default subjob's group last */
	uint8_t *broken; /* [the job's subjobs] */
	tph_idx first;
} surplus;

static uint32_t group_of(const tph_session *s, const surplus *x, tph_idx sj)
{
	uint32_t p = tph_subjobs_of(s)->policy[sj];
	return p == TPH_NOIDX ? x->m->n_subgroups : p;
}

/* roleReady: allocated or succeeded, plus pending best-effort. */
static void role_ready(const tph_session *s, tph_idx j, surplus *x)
{
	const tph_job_store *js = s->jobs;
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		uint8_t st = s->tasks.status[t];
		bool ready = tph_ts_allocated(st) || st == TPH_TS_SUCCEEDED ||
		             (st == TPH_TS_PENDING && (s->tasks.flags[t] & TPH_TASK_BEST_EFFORT));
		for (uint32_t r = 0; ready && r < x->m->n_min_tasks; r++)
			x->role[r] += x->m->min_tasks[r].key == s->tasks.role[t];
	}
	for (uint32_t r = 0; r < x->m->n_min_tasks; r++)
		x->role[r] -= x->m->min_task_counts[r];
}

static void group_ready(const tph_session *s, tph_idx j, surplus *x)
{
	uint32_t n = tph_job_subjobs(s, j, &x->first);
	for (uint32_t i = 0; i < n; i++) {
		bool ready = tph_subjob_is_ready(s, x->first + i);
		x->broken[i] = !ready;
		x->group[group_of(s, x, x->first + i)] += ready;
	}
	for (uint32_t p = 0; p < x->m->n_subgroups; p++)
		x->group[p] -= x->m->subgroups[p].min_subgroups;
}

static int64_t ready_num(const tph_session *s, tph_idx j)
{
	const uint32_t *n = s->js.count + (size_t)j * TPH_TS_COUNT;
	return (int64_t)n[TPH_TS_ALLOCATED] + n[TPH_TS_BINDING] + n[TPH_TS_BOUND] +
	       n[TPH_TS_RUNNING] + n[TPH_TS_SUCCEEDED];
}

static bool role_safe(const tph_session *s, surplus *x, tph_idx t, int64_t **slot)
{
	*slot = NULL;
	for (uint32_t r = 0; x->roles && r < x->m->n_min_tasks; r++)
		if (x->m->min_tasks[r].key == s->tasks.role[t]) {
			*slot = &x->role[r];
			return x->role[r] > 0;
		}
	return true;
}

/* Whether losing t keeps the job gang-ready; if so, account for it. */
static bool take_safe(const tph_session *s, surplus *x, tph_idx t)
{
	int64_t *role;
	bool rs = role_safe(s, x, t, &role);
	tph_idx sj = tph_task_subjob(s, t);
	uint32_t g = 0;
	bool gs = true;
	if (x->group) {
		g = group_of(s, x, sj);
		gs = x->broken[sj - x->first] || x->group[g] > 0;
	}
	if (x->job <= 0 || !rs || !gs)
		return false;
	x->job--;
	if (role)
		(*role)--;
	if (x->group && !x->broken[sj - x->first]) {
		x->broken[sj - x->first] = 1;
		x->group[g]--;
	}
	return true;
}

static void bundle_push(gev_ctx *c, tph_idx j, bool whole, const tph_idx *t, uint32_t n)
{
	if (!n)
		return;
	memmove(c->bt + c->nbt, t, n * sizeof *t);
	c->b[c->nb++] = (gev_bundle){whole, j, c->nbt, n, 0};
	c->nbt += n;
}

static int surplus_open(const tph_session *s, tph_idx j, surplus *x)
{
	const tph_job_meta *m = s->jobs->meta ? s->jobs->meta[j] : NULL;
	static const tph_job_meta none;
	int64_t total = 0;
	x->m = m ? m : &none;
	for (uint32_t r = 0; r < x->m->n_min_tasks; r++)
		total += x->m->min_task_counts[r];
	x->roles = s->jobs->min_member[j] >= total;
	x->role = tph_calloc(x->m->n_min_tasks + 1, sizeof *x->role);
	if (x->m->n_subgroups) {
		x->group = tph_calloc(x->m->n_subgroups + 1, sizeof *x->group);
		x->broken = tph_calloc(tph_job_subjobs(s, j, &x->first) + 1, 1);
	}
	if (!x->role || (x->m->n_subgroups && (!x->group || !x->broken)))
		return TPH_ENOMEM;
	role_ready(s, j, x);
	if (x->group)
		group_ready(s, j, x);
	return TPH_OK;
}

/* CreateJobBundles for job j's candidates t[0..n) (sorted): its safe then its whole bundle. */
static int job_bundles(gev_ctx *c, tph_idx j, const tph_idx *t, uint32_t n)
{
	const tph_session *s = c->s;
	surplus x = {.job = ready_num(s, j) - s->jobs->min_member[j]};
	if (x.job < 0) { /* not gang-ready anyway: every task is safe */
		bundle_push(c, j, false, t, n);
		return TPH_OK;
	}
	int rc = surplus_open(s, j, &x);
	uint32_t ns = 0, nw = 0;
	tph_idx *safe = c->bt + c->nbt, *whole = c->sel;
	for (uint32_t i = 0; !rc && i < n; i++) {
		if (take_safe(s, &x, t[i]))
			safe[ns++] = t[i];
		else
			whole[nw++] = t[i];
	}
	tph_free(x.role);
	tph_free(x.group);
	tph_free(x.broken);
	if (rc)
		return rc;
	bundle_push(c, j, false, safe, ns);
	bundle_push(c, j, true, whole, nw);
	return TPH_OK;
}

/* ---- order ---- */

/* scoreAgainstNeed: per dimension the job needs, res / need (capped at 1 when cap). */
static double against_need(const tph_session *s, const int64_t *need, const int64_t *res, bool cap)
{
	double score = 0;
	for (uint32_t d = 0; d < s->ndim; d++) {
		if (d == TPH_RES_PODS || need[d] <= 0)
			continue;
		int64_t v = cap && res[d] > need[d] ? need[d] : res[d];
		score += (double)v / (double)need[d];
	}
	return score;
}

/* bundleROI: what the bundle frees toward the need over what the whole job holds (a safe
 * bundle costs no gang: +inf). */
static void bundle_roi(gev_ctx *c, gev_bundle *b)
{
	const tph_session *s = c->s;
	int64_t local[TPH_RES_MAX] = {0}, global[TPH_RES_MAX] = {0};
	for (uint32_t i = 0; i < b->nt; i++)
		for (uint32_t d = 0; d < s->ndim; d++)
			local[d] += s->tasks.req[(size_t)c->bt[b->t0 + i] * s->ndim + d];
	for (uint32_t d = 0; b->whole && d < s->ndim; d++)
		global[d] = c->job_req[(size_t)b->job * s->ndim + d];
	double g = against_need(s, c->need, global, false);
	b->roi = g == 0 ? (double)INFINITY : against_need(s, c->need, local, true) / g;
}

static int str_cmp(const tph_session *s, tph_sid a, tph_sid b)
{
	return strcmp(tph_strtab_str(s->snap->strs, a), tph_strtab_str(s->snap->strs, b));
}

/* Volcano's less(i, j) twice over (ij != ji decides): victim job or victim queue order. */
static int owner_cmp(const gev_ctx *c, tph_idx ja, tph_idx jb)
{
	const tph_session *s = c->s;
	bool ij, ji;
	if (c->kind == GEV_PREEMPT) { /* !JobOrderFn(l, r) */
		ij = !(tph_job_order(s, ja, jb) < 0);
		ji = !(tph_job_order(s, jb, ja) < 0);
	} else {
		tph_idx qa = s->jobs->queue[ja], qb = s->jobs->queue[jb];
		if (qa == qb)
			return 0;
		ij = tph_victim_queue_order(s, qa, qb, c->queue) < 0;
		ji = tph_victim_queue_order(s, qb, qa, c->queue) < 0;
	}
	return ij == ji ? 0 : ij ? -1 : 1;
}

static int bundle_cmp(const void *ctx, uint32_t i, uint32_t j)
{
	const gev_ctx *c = ctx;
	const tph_session *s = c->s;
	const gev_bundle *a = &c->b[i], *b = &c->b[j];
	if (a->whole != b->whole)
		return a->whole ? 1 : -1;
	int r = a->job != b->job ? owner_cmp(c, a->job, b->job) : 0;
	if (r)
		return r;
	if (a->roi != b->roi)
		return a->roi > b->roi ? -1 : 1;
	if ((r = str_cmp(s, s->jobs->uid[a->job], s->jobs->uid[b->job])))
		return r;
	uint32_t ua = c->uid_rank[c->bt[a->t0]], ub = c->uid_rank[c->bt[b->t0]];
	if (ua != ub)
		return ua < ub ? -1 : 1;
	return a->nt == b->nt ? 0 : a->nt < b->nt ? -1 : 1;
}

/* Sort the bundles (stably) by bundle_cmp, their ROI taken against the job's need. */
static void sort_bundles(gev_ctx *c)
{
	uint32_t *ix = c->flat, *tmp = c->sel;
	for (uint32_t i = 0; i < c->nb; i++) {
		bundle_roi(c, &c->b[i]);
		ix[i] = i;
	}
	gev_msort(ix, tmp, c->nb, bundle_cmp, c);
	for (uint32_t i = 0; i < c->nb; i++)
		c->b2[i] = c->b[ix[i]];
	gev_bundle *x = c->b;
	c->b = c->b2;
	c->b2 = x;
}

/* ---- selectDomainBundles ---- */

/* UnifiedEvictable over the bundles' tasks in order: c->allowed[t] for each one allowed. */
static void evictable(gev_ctx *c, tph_idx hn)
{
	tph_session *s = c->s;
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->nb; i++)
		for (uint32_t k = 0; k < c->b[i].nt; k++)
			c->flat[n++] = c->bt[c->b[i].t0 + k];
	uint8_t kind = c->kind == GEV_PREEMPT ? TPH_EVICT_GANG_PREEMPT : TPH_EVICT_GANG_RECLAIM;
	s->eviction = (tph_eviction){.kind = kind, .job = c->job, .hn = hn};
	uint32_t m = tph_unified_evictable(s, TPH_NOIDX, c->flat, n, c->cand);
	s->eviction = (tph_eviction){0};
	for (uint32_t i = 0; i < n; i++)
		c->allowed[c->flat[i]] = 0;
	for (uint32_t i = 0; i < m; i++)
		c->allowed[c->cand[i]] = 1;
}

/* ApplyAllowedTasks: a whole bundle stays only with every task allowed, a safe one keeps its
 * allowed tasks. */
static void apply_allowed(gev_ctx *c)
{
	uint32_t nb = 0;
	for (uint32_t i = 0; i < c->nb; i++) {
		gev_bundle b = c->b[i];
		uint32_t k = 0;
		for (uint32_t x = 0; x < b.nt; x++)
			if (c->allowed[c->bt[b.t0 + x]])
				c->bt[b.t0 + k++] = c->bt[b.t0 + x];
		if (b.whole ? k < b.nt : !k)
			continue;
		b.nt = k;
		c->b[nb++] = b;
	}
	c->nb = nb;
}

int gev_bundles(gev_ctx *c, tph_idx hn, const int64_t *avail)
{
	const tph_session *s = c->s;
	int64_t most[TPH_RES_MAX];
	c->nb = c->nbt = 0;
	collect(c, hn);
	memcpy(most, avail, s->ndim * sizeof *most);
	for (uint32_t i = 0; i < c->n_cand; i++)
		for (uint32_t d = 0; d < s->ndim; d++)
			most[d] += s->tasks.req[(size_t)c->cand[i] * s->ndim + d];
	if (!gev_need_fits(s, c->need, most))
		return TPH_OK;
	for (uint32_t i = 0, k; i < c->n_cand; i = k) {
		tph_idx j = c->s->tasks.job[c->cand[i]];
		for (k = i + 1; k < c->n_cand && c->s->tasks.job[c->cand[k]] == j;)
			k++;
		int rc = job_bundles(c, j, c->cand + i, k - i);
		if (rc)
			return rc;
	}
	if (!c->nb)
		return TPH_OK;
	sort_bundles(c);
	evictable(c, hn);
	apply_allowed(c);
	sort_bundles(c);
	uint32_t nb = 0;
	for (uint32_t i = 0; i < c->nb; i++)
		if (!c->b[i].whole || c->o.allow_whole)
			c->b[nb++] = c->b[i];
	c->nb = nb;
	return TPH_OK;
}

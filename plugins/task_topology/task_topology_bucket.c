/* task-topology's buckets: groups of a job's tasks meant for one node. Built at open from the
 * tasks in order (JobManager.ConstructBucket: bound tasks first, a bucket per node; then each
 * task joins the bucket its affinities favour most, a smaller request breaking ties, or a new
 * one when every bucket repels it), then kept as Volcano keeps them: TaskBound on every
 * allocate or pipeline, nothing on a deallocate. */
#include "task_topology.h"

#include <stdlib.h>
#include <string.h>

#include "tephra/alloc.h"

/* ---- node chains ---- */

static int ent_add(tt_st *g, uint32_t *head, uint32_t key, uint32_t name)
{
	for (uint32_t e = *head; e != TPH_NOIDX; e = g->ent[e].next)
		if (g->ent[e].key == key && g->ent[e].name == name) {
			g->ent[e].count++;
			return TPH_OK;
		}
	if (tph_grow(&g->ent, &g->cap_ent, g->n_ent + 1, sizeof *g->ent))
		return TPH_ENOMEM;
	g->ent[g->n_ent] = (tt_ent){.key = key, .name = name, .count = 1, .next = *head};
	*head = g->n_ent++;
	return TPH_OK;
}

int64_t tt_bucket_on(const tt_st *g, tph_idx node, uint32_t b)
{
	for (uint32_t e = g->head_b[node]; e != TPH_NOIDX; e = g->ent[e].next)
		if (g->ent[e].key == b)
			return g->ent[e].count;
	return 0;
}

int64_t tt_anti_on(const tt_st *g, tph_idx node, tph_idx j, uint32_t a)
{
	const tt_topo *t = &g->topo[j];
	int64_t sum = 0;
	for (uint32_t e = g->head_n[node]; e != TPH_NOIDX; e = g->ent[e].next)
		if (g->ent[e].key == j && (t->rel[a * t->k + g->ent[e].name] & TT_ANTI))
			sum -= g->ent[e].count;
	return sum;
}

/* ---- members and their prefix sums ---- */

static const int64_t *req_of(const tph_session *s, tph_idx t)
{
	return tph_view_of(s)->tasks->req + (size_t)t * tph_view_of(s)->ndim;
}

/* Rows i = 0..size of b: the summed requests of its first i unbound members; pos of each. */
static void prefix(tt_st *g, const tph_session *s, uint32_t b)
{
	int64_t *row = g->b_pre + (size_t)(g->b_off[b] + b) * g->nd;
	memset(row, 0, g->nd * sizeof *row);
	for (uint32_t i = 0; i < g->b_size[b]; i++, row += g->nd) {
		tph_idx t = g->b_cur[g->b_off[b] + i];
		const int64_t *r = req_of(s, t);
		g->pos[t] = i;
		for (uint32_t d = 0; d < g->nd; d++)
			row[g->nd + d] = row[d] + r[d];
	}
}

/* What is left of the request after taking the first k members other than the one at p
 * (TPH_NOIDX: none) fits max. */
static bool left_fits(const tt_st *g, uint32_t b, uint32_t p, const int64_t *treq,
                      const int64_t *max, uint32_t k)
{
	const int64_t *pre = g->b_pre + (size_t)(g->b_off[b] + b) * g->nd;
	const int64_t *req = g->b_req + (size_t)b * g->nd;
	for (uint32_t c = 0; c < g->n_cmp; c++) {
		uint32_t d = g->cmp[c];
		int64_t taken = k <= p ? pre[(size_t)k * g->nd + d]
		                       : pre[(size_t)(k + 1) * g->nd + d] - treq[d];
		if (req[d] - taken > max[d])
			return false;
	}
	return true;
}

/* calcBucketScore takes members out one by one (Go map order; here the order they joined)
 * and stops once the rest fits: what is left only shrinks, so the count is searched. */
int64_t tt_removals(const tt_st *g, uint32_t b, tph_idx task, const int64_t *task_req,
                    const int64_t *max)
{
	uint32_t p = g->bucket[task] == b ? g->pos[task] : TPH_NOIDX;
	uint32_t others = g->b_size[b] - (p != TPH_NOIDX);
	if (!others || !left_fits(g, b, p, task_req, max, others))
		return others;
	uint32_t lo = 1, hi = others;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (left_fits(g, b, p, task_req, max, mid))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int tt_task_bound(tph_session *s, tt_st *g, tph_idx task)
{
	const tph_view *v = tph_view_of(s);
	tph_idx j = v->tasks->job[task], n = v->tasks->node[task];
	if (!g->bucket || j == TPH_NOIDX || !g->managed[j] || n == TPH_NOIDX)
		return TPH_OK;
	int rc =
	    g->tname[task] == TPH_NOIDX ? TPH_OK : ent_add(g, &g->head_n[n], j, g->tname[task]);
	uint32_t b = g->bucket[task];
	if (rc || b == TPH_NOIDX)
		return rc;
	rc = ent_add(g, &g->head_b[n], b, 0);
	uint32_t p = g->pos[task];
	if (p != TPH_NOIDX) { /* delete(b.tasks, uid) */
		tph_idx *cur = g->b_cur + g->b_off[b];
		memmove(cur + p, cur + p + 1, (g->b_size[b] - p - 1) * sizeof *cur);
		g->b_size[b]--;
		g->pos[task] = TPH_NOIDX;
		prefix(g, s, b);
	}
	/* CalcResReq(reqSub) runs whether or not the task was still a member (a task allocated
	 * again after a discarded statement is taken off twice, as in Volcano). */
	int64_t *req = g->b_req + (size_t)b * g->nd;
	const int64_t *r = req_of(s, task);
	for (uint32_t d = 0; d < g->nd; d++)
		req[d] -= r[d];
	return rc;
}

/* ---- construction ---- */

/* TaskOrder in reverse (ConstructBucket): bound tasks first by node name, then by user order,
 * then affinity priority, higher first, then pod name. */
typedef struct tt_key {
	const char *node; /* NULL: not bound */
	int32_t order, prio;
	const char *pod;
	tph_idx t;
} tt_key;

static int cmp_key(const void *pa, const void *pb)
{
	const tt_key *a = pa, *b = pb;
	int c = 0;
	if (!a->node != !b->node)
		return a->node ? -1 : 1;
	if (a->node)
		c = strcmp(a->node, b->node);
	else if (a->order != b->order)
		c = a->order > b->order ? -1 : 1;
	else if (a->prio != b->prio)
		c = a->prio > b->prio ? -1 : 1;
	else
		c = strcmp(a->pod, b->pod);
	return c ? c : (a->t < b->t ? -1 : a->t > b->t);
}

/* One job's construction scratch (heap). */
typedef struct tt_build {
	tt_key *key;
	uint32_t n, nb;    /* tasks in topology, buckets made */
	int32_t *names;    /* [bucket * k + name] taskNameSet */
	double *score;     /* [bucket] reqScore */
	uint32_t *of;      /* [i] the bucket key[i] joined */
	uint32_t *members; /* [bucket] unbound members */
	uint32_t *size;    /* [bucket] members + bound: for bucketMaxSize */
} tt_build;

/* checkTaskSetAffinity(name, taskNameSet, false). */
static int64_t set_affinity(const tt_topo *t, uint32_t a, const int32_t *names)
{
	int64_t sum = 0;
	for (uint32_t x = 0; x < t->k; x++) {
		uint8_t r = t->rel[a * t->k + x];
		sum += ((r & TT_AFF) ? names[x] : 0) - ((r & TT_ANTI) ? names[x] : 0);
	}
	return sum;
}

/* CalcResReq's score: 1 cpu, 1 Mi of memory and one unit of any scalar weigh alike. */
static double req_score(const tt_st *g, const int64_t *r)
{
	double score = (double)r[TPH_RES_CPU] + (double)r[TPH_RES_MEMORY] / 1024 / 1024;
	for (uint32_t c = 0; c < g->n_cmp; c++)
		if (g->cmp[c] > TPH_RES_MEMORY)
			score += vr_vol(&g->vr, g->cmp[c], r[g->cmp[c]]);
	return score;
}

/* buildBucket: the bucket of key[i], made if needed. */
static uint32_t choose(const tt_st *g, const tt_topo *t, tt_build *w, uint32_t i)
{
	uint32_t sel = TPH_NOIDX, a = g->tname[w->key[i].t];
	int64_t best = INT32_MIN;
	if (w->key[i].node) { /* nodeBucketMapping: the bucket of the previous task on the node */
		best = 0;
		if (i && w->key[i - 1].node && !strcmp(w->key[i - 1].node, w->key[i].node))
			sel = w->of[i - 1];
	} else {
		for (uint32_t b = 0; b < w->nb; b++) {
			int64_t aff = set_affinity(t, a, w->names + (size_t)b * t->k);
			if (aff > best ||
			    (aff == best && sel != TPH_NOIDX && w->score[b] < w->score[sel]))
				best = aff, sel = b;
		}
	}
	return best < 0 || sel == TPH_NOIDX ? w->nb++ : sel;
}

static int build_job(tph_session *s, tt_st *g, tph_idx j, tt_build *w)
{
	const tph_view *v = tph_view_of(s);
	const tt_topo *t = &g->topo[j];
	uint32_t first = g->nb, max = 0;
	qsort(w->key, w->n, sizeof *w->key, cmp_key);
	for (uint32_t i = 0; i < w->n; i++) {
		tph_idx task = w->key[i].t, node = v->tasks->node[task];
		uint32_t b = w->of[i] = choose(g, t, w, i);
		w->names[(size_t)b * t->k + g->tname[task]]++;
		if (w->key[i].node) {
			int rc = ent_add(g, &g->head_b[node], first + b, 0);
			if (rc)
				return rc;
		} else {
			w->members[b]++;
			w->score[b] += req_score(g, req_of(s, task));
		}
		if (++w->size[b] > max)
			max = w->size[b];
	}
	g->max_size[j] = max;
	/* Members in the order they joined, bucket by bucket. */
	for (uint32_t b = 0; b < w->nb; b++) {
		uint32_t gb = first + b;
		g->b_job[gb] = j;
		g->b_size[gb] = 0;
		g->b_off[gb + 1] = g->b_off[gb] + w->members[b];
	}
	for (uint32_t i = 0; i < w->n; i++) {
		uint32_t gb = first + w->of[i];
		tph_idx task = w->key[i].t;
		g->bucket[task] = gb;
		if (w->key[i].node)
			continue;
		g->b_cur[g->b_off[gb] + g->b_size[gb]++] = task;
		int64_t *req = g->b_req + (size_t)gb * g->nd;
		const int64_t *r = req_of(s, task);
		for (uint32_t d = 0; d < g->nd; d++)
			req[d] += r[d];
	}
	g->nb += w->nb;
	for (uint32_t b = first; b < g->nb; b++)
		prefix(g, s, b);
	return TPH_OK;
}

/* The job's tasks that have a topology name, with their sort keys; scratch for the rest. */
static int build_prepare(tph_session *s, tt_st *g, tph_idx j, tt_build *w)
{
	const tph_view *v = tph_view_of(s);
	const tt_topo *t = &g->topo[j];
	uint32_t off = v->jobs->task_off[j], m = v->jobs->task_off[j + 1] - off;
	memset(w, 0, sizeof *w);
	w->key = tph_malloc(((size_t)m + 1) * sizeof *w->key);
	if (!w->key)
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < m; i++) {
		tph_idx task = v->jobs->task_idx[off + i], node = v->tasks->node[task];
		uint32_t a = g->tname[task];
		if (a == TPH_NOIDX)
			continue;
		w->key[w->n++] = (tt_key){
		    .node = node == TPH_NOIDX ? NULL : tph_session_str(s, v->nodes->name[node]),
		    .order = t->order[a],
		    .prio = t->prio[a],
		    .pod = tph_session_str(s, v->tasks->name[task]),
		    .t = task};
	}
	size_t nb = (size_t)w->n + 1;
	w->names = tph_calloc(nb * (t->k ? t->k : 1), sizeof *w->names);
	w->score = tph_calloc(nb, sizeof *w->score);
	w->of = tph_calloc(nb, sizeof *w->of);
	w->members = tph_calloc(nb, sizeof *w->members);
	w->size = tph_calloc(nb, sizeof *w->size);
	return w->names && w->score && w->of && w->members && w->size ? TPH_OK : TPH_ENOMEM;
}

static void build_free(tt_build *w)
{
	tph_free(w->key);
	tph_free(w->names);
	tph_free(w->score);
	tph_free(w->of);
	tph_free(w->members);
	tph_free(w->size);
}

/* Per-task columns, the topology name of every task of a managed job, and how many of them
 * there are (no job can make more buckets, members or rows). */
static int columns(tph_session *s, tt_st *g, uint32_t *in_topo)
{
	const tph_view *v = tph_view_of(s);
	uint32_t nt = v->tasks->n + 1, nn = v->nodes->n + 1;
	g->bucket = TPH_SESSION_NEW(s, uint32_t, nt);
	g->tname = TPH_SESSION_NEW(s, uint32_t, nt);
	g->pos = TPH_SESSION_NEW(s, uint32_t, nt);
	g->head_b = TPH_SESSION_NEW(s, uint32_t, nn);
	g->head_n = TPH_SESSION_NEW(s, uint32_t, nn);
	if (!g->bucket || !g->tname || !g->pos || !g->head_b || !g->head_n)
		return TPH_ENOMEM;
	memset(g->bucket, 0xff, nt * sizeof *g->bucket);
	memset(g->tname, 0xff, nt * sizeof *g->tname);
	memset(g->pos, 0xff, nt * sizeof *g->pos);
	memset(g->head_b, 0xff, nn * sizeof *g->head_b);
	memset(g->head_n, 0xff, nn * sizeof *g->head_n);
	tph_sid key = tph_session_sid(s, "volcano.sh/task-spec", 20);
	*in_topo = 0;
	for (tph_idx t = 0; t < v->tasks->n; t++) {
		tph_idx j = v->tasks->job[t];
		if (j != TPH_NOIDX && g->managed[j])
			*in_topo += (g->tname[t] = tt_name_of(s, &g->topo[j], key, t)) != TPH_NOIDX;
	}
	return TPH_OK;
}

int tt_buckets_open(tph_session *s, tt_st *g)
{
	const tph_view *v = tph_view_of(s);
	uint32_t n = 0;
	int rc = columns(s, g, &n);
	if (rc)
		return rc;
	g->b_job = TPH_SESSION_NEW(s, tph_idx, n + 1);
	g->b_size = TPH_SESSION_NEW(s, uint32_t, n + 1);
	g->b_off = TPH_SESSION_NEW(s, uint32_t, n + 2);
	g->b_cur = TPH_SESSION_NEW(s, tph_idx, n + 1);
	g->b_req = TPH_SESSION_NEW(s, int64_t, ((size_t)n + 1) * g->nd);
	g->b_pre = TPH_SESSION_NEW(s, int64_t, (2 * (size_t)n + 1) * g->nd);
	if (!g->b_job || !g->b_size || !g->b_off || !g->b_cur || !g->b_req || !g->b_pre)
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < v->jobs->n && !rc; j++) {
		if (!g->managed[j])
			continue;
		tt_build w;
		rc = build_prepare(s, g, j, &w);
		if (!rc)
			rc = build_job(s, g, j, &w);
		build_free(&w);
	}
	return rc;
}

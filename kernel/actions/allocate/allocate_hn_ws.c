/* Volcano's organizeJobWorksheet (allocate) and organizeEvictionWorksheet (gang preempt and
 * reclaim): a job's subjobs that are not ready, the required ones (until their group reaches
 * minSubGroups) first, then SubJobOrder; per subjob its pending tasks that ask for resources,
 * in TaskOrder. Task queues are only ever popped, so each is a cursor into one array. */
#include "allocate_hn.h"

#include "base/mem.h"

#include <string.h>

void ahn_state_copy(const ahn_ws *w, ahn_state *dst, const ahn_state *src)
{
	tph_idx *items = dst->q.items;
	dst->q = src->q;
	dst->q.items = items;
	memcpy(items, src->q.items, src->q.n * sizeof *items);
	memcpy(dst->cur, src->cur, w->n_sj * sizeof *dst->cur);
}

/* Required subjobs first, then SubJobOrderFn. */
static bool ws_less(const void *ctx, tph_idx a, tph_idx b)
{
	const ahn_ws *w = ctx;
	uint8_t ra = w->required[a - w->first], rb = w->required[b - w->first];
	if (ra != rb)
		return ra;
	return tph_subjob_order(w->s, a, b) < 0;
}

static bool in_worksheet(const tph_session *s, tph_idx t)
{
	return s->tasks.status[t] == TPH_TS_PENDING && !(s->tasks.flags[t] & TPH_TASK_BEST_EFFORT);
}

/* The job's pending tasks in TaskOrder, grouped by subjob (a stable bucket pass). */
static int ws_tasks(tph_session *s, ahn_ws *w, tph_idx *order, uint32_t n)
{
	const tph_job_store *js = s->jobs;
	tph_pq pq;
	tph_pq_init_tasks(&pq, s, w->job, w->task, n); /* the heap lives in w->task until ... */
	for (uint32_t i = js->task_off[w->job]; i < js->task_off[w->job + 1]; i++)
		if (in_worksheet(s, js->task_idx[i]))
			tph_pq_push(&pq, js->task_idx[i]);
	uint32_t *cur = w->st[AHN_MAIN].cur;
	for (uint32_t i = 0; i < n; i++) {
		order[i] = tph_pq_pop(&pq);
		w->off[tph_task_subjob(s, order[i]) - w->first + 1]++;
	}
	for (uint32_t k = 0; k < w->n_sj; k++) {
		w->off[k + 1] += w->off[k];
		cur[k] = w->off[k];
	}
	for (uint32_t i = 0; i < n; i++) /* ... it is empty and the buckets go there */
		w->task[cur[tph_task_subjob(s, order[i]) - w->first]++] = order[i];
	for (uint32_t k = 0; k < w->n_sj; k++)
		cur[k] = w->off[k];
	return TPH_OK;
}

/* Ready subjobs count per group; the rest, in SubJobOrder, are required until their group
 * reaches minSubGroups (the default subjob's group has no minimum). */
static int ws_required(tph_session *s, ahn_ws *w, tph_idx *sorted)
{
	const tph_job_meta *m = s->jobs->meta ? s->jobs->meta[w->job] : NULL;
	uint32_t ng = m ? m->n_subgroups : 0;
	int32_t *cnt = tph_calloc(ng + 1, sizeof *cnt);
	if (!cnt)
		return TPH_ENOMEM;
	const tph_subjobs *o = tph_subjobs_of(s);
	tph_pq pq;
	tph_pq_init(&pq, s, tph_subjob_order, sorted, w->n_sj);
	for (uint32_t i = 0; i < w->n_sj; i++) {
		tph_idx k = w->first + i;
		uint32_t g = o->policy[k] == TPH_NOIDX ? ng : o->policy[k];
		if (tph_subjob_ready(s, w->job, k))
			cnt[g]++;
		else
			tph_pq_push(&pq, k);
	}
	tph_idx k;
	while ((k = tph_pq_pop(&pq)) != TPH_NOIDX) {
		uint32_t g = o->policy[k] == TPH_NOIDX ? ng : o->policy[k];
		if (g < ng && cnt[g] < m->subgroups[g].min_subgroups) {
			w->required[k - w->first] = 1;
			cnt[g]++;
		}
	}
	tph_free(cnt);
	return TPH_OK;
}

static int ws_alloc(tph_session *s, ahn_ws *w, uint32_t n_tasks)
{
	uint32_t n = w->n_sj + 1;
	w->task = TPH_ACT_NEW(s, tph_idx, n_tasks + 1);
	w->off = TPH_ACT_NEW(s, uint32_t, n);
	w->required = TPH_ACT_NEW(s, uint8_t, n);
	w->hn_saved = TPH_ACT_NEW(s, tph_idx, n);
	if (!w->task || !w->off || !w->required || !w->hn_saved)
		return TPH_ENOMEM;
	for (int i = 0; i < AHN_STATES; i++) {
		tph_idx *items = TPH_ACT_NEW(s, tph_idx, n);
		w->st[i].cur = TPH_ACT_NEW(s, uint32_t, n);
		if (!items || !w->st[i].cur)
			return TPH_ENOMEM;
		tph_pq_init_less(&w->st[i].q, w, ws_less, items, w->n_sj);
	}
	return TPH_OK;
}

int ahn_ws_build(tph_session *s, tph_idx job, ahn_ws **out)
{
	const tph_job_store *js = s->jobs;
	uint32_t n = 0;
	for (uint32_t i = js->task_off[job]; i < js->task_off[job + 1]; i++)
		n += in_worksheet(s, js->task_idx[i]);
	ahn_ws *w = TPH_ACT_NEW(s, ahn_ws, 1);
	tph_idx *scratch = tph_malloc((n + 1) * sizeof *scratch);
	int rc = w && scratch ? TPH_OK : TPH_ENOMEM;
	if (!rc) {
		w->s = s;
		w->job = job;
		w->n_sj = tph_job_subjobs(s, job, &w->first);
		rc = ws_alloc(s, w, n);
	}
	if (!rc)
		rc = ws_tasks(s, w, scratch, n);
	if (!rc)
		rc = ws_required(s, w, w->st[AHN_TRY].q.items);
	tph_free(scratch);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < w->n_sj; i++) /* Volcano ranges over a map: index order */
		if (w->off[i + 1] > w->off[i])
			tph_pq_push(&w->st[AHN_MAIN].q, w->first + i);
	*out = w;
	return TPH_OK;
}

/* priority: Volcano's priority plugin. Orders tasks, jobs and subjobs by priority (higher first),
 * lets a preemptor evict only lower-priority work, and calls a job starving while some of its tasks
 * are neither ready nor pipelined. Reads no arguments. */
#include "tephra/plugin.h"
#include "tephra/topology.h"

/* Higher priority first; 0 when equal. */
static int by_priority(int32_t a, int32_t b)
{
	return a == b ? 0 : (a > b ? -1 : 1);
}

static int task_order(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	(void)st;
	return by_priority(tph_view_of(s)->tasks->priority[a], tph_view_of(s)->tasks->priority[b]);
}

/* task_order's key: its answer for any two tasks is the order of their keys. */
static int64_t task_key(void *st, const tph_session *s, tph_idx t)
{
	(void)st;
	return -(int64_t)tph_view_of(s)->tasks->priority[t];
}

static int job_order(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	(void)st;
	return by_priority(tph_view_of(s)->jobs->priority[a], tph_view_of(s)->jobs->priority[b]);
}

/* SubJobInfo.Priority: the highest priority of the subjob's tasks. */
static int subjob_order(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	(void)st;
	const int32_t *prio = tph_subjobs_of(s)->priority;
	return by_priority(prio[a], prio[b]);
}

/* Across jobs the job priorities decide, inside one job the task priorities; a candidate whose
 * job is not in the session is skipped. A preemptor without a job evicts nobody. */
static int preemptable(void *st, const tph_session *s, tph_idx preemptor, const tph_idx *cands,
                       uint32_t n, uint8_t *keep)
{
	(void)st;
	const tph_idx pj = tph_view_of(s)->tasks->job[preemptor];
	if (pj == TPH_NOIDX)
		return 1;
	const int32_t *jprio = tph_view_of(s)->jobs->priority,
	              *tprio = tph_view_of(s)->tasks->priority;
	for (uint32_t i = 0; i < n; i++) {
		tph_idx t = cands[i], j = tph_view_of(s)->tasks->job[t];
		if (j == TPH_NOIDX)
			continue;
		if (j != pj)
			keep[i] = jprio[j] < jprio[pj];
		else
			keep[i] = tprio[t] < tprio[preemptor];
	}
	return 1;
}

/* Ready (allocated or succeeded) plus pipelined tasks fall short of all the job's tasks. */
static bool job_starving(void *st, const tph_session *s, tph_idx j)
{
	(void)st;
	const uint32_t *c = tph_view_of(s)->js->count + (size_t)j * TPH_TS_COUNT;
	uint32_t ready = c[TPH_TS_ALLOCATED] + c[TPH_TS_BINDING] + c[TPH_TS_BOUND] +
	                 c[TPH_TS_RUNNING] + c[TPH_TS_SUCCEEDED];
	uint32_t total = tph_view_of(s)->jobs->task_off[j + 1] - tph_view_of(s)->jobs->task_off[j];
	return ready + c[TPH_TS_PIPELINED] < total;
}

/* UnifiedEvictable (s->eviction): gang reclaim permits every candidate; otherwise a
 * candidate goes only when its job's priority is below the evicting job's. Without an
 * eviction context (no evicting job) it abstains. */
static int unified_evictable(void *st, const tph_session *s, tph_idx who, const tph_idx *cands,
                             uint32_t n, uint8_t *keep)
{
	(void)st, (void)who;
	const int32_t *jprio = tph_view_of(s)->jobs->priority;
	tph_idx ej = tph_view_of(s)->eviction->job;
	if (tph_view_of(s)->eviction->kind == TPH_EVICT_UNKNOWN)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		tph_idx j = tph_view_of(s)->tasks->job[cands[i]];
		keep[i] = tph_view_of(s)->eviction->kind == TPH_EVICT_GANG_RECLAIM ||
		          (j != TPH_NOIDX && ej != TPH_NOIDX && jprio[j] < jprio[ej]);
	}
	return 1;
}

static int priority_open(tph_session *s, void *st, const tph_args *args)
{
	(void)st;
	(void)args;
	int rc = tph_on_task_order(s, task_order);
	if (!rc)
		rc = tph_declare_task_order_key(s, task_key);
	if (!rc)
		rc = tph_on_job_order(s, job_order);
	if (!rc)
		rc = tph_on_subjob_order(s, subjob_order);
	if (!rc)
		rc = tph_on_preemptable(s, preemptable);
	if (!rc) /* the preemptor's job and priority */
		rc = tph_declare_victim_locality(s, TPH_VICTIM_CLASS);
	if (!rc)
		rc = tph_on_unified_evictable(s, unified_evictable);
	if (!rc)
		rc = tph_on_job_starving(s, job_starving);
	return rc;
}

const tph_plugin tph_plugin_priority = {
    .abi = TPH_PLUGIN_ABI,
    .name = "priority",
    .on_session_open = priority_open,
};

/* gang: Volcano's gang plugin. A job counts only as a whole: it is valid, ready, pipelined or
 * starving by its minMember (and the minimums of minTaskMember roles and subgroups; subjobs
 * are ready or pipelined by their subGroupSize), unready jobs and subjobs go
 * first, victims are taken only above minMember, and at session close every job that is not
 * ready gets this session's Unschedulable condition. Reads no arguments. */
#include "tephra/plugin.h"
#include "tephra/topology.h"

#include <stdio.h>
#include <string.h>

#define BIT(st) (1u << (st))
#define ALLOCATED \
	(BIT(TPH_TS_ALLOCATED) | BIT(TPH_TS_BINDING) | BIT(TPH_TS_BOUND) | BIT(TPH_TS_RUNNING))
#define OCCUPIED        (ALLOCATED | BIT(TPH_TS_SUCCEEDED)) /* ReadyTaskNum */
#define PIPELINED       (OCCUPIED | BIT(TPH_TS_PIPELINED))  /* ... plus WaitingTaskNum */
#define VALID           (PIPELINED | BIT(TPH_TS_PENDING))   /* ValidTaskNum */
#define WITH_PENDING_BE 1u /* also count Pending best-effort tasks */

typedef struct gang_st {
	int32_t *occupied; /* per job: victim scratch, valid where stamp == call */
	uint32_t *stamp;
	uint32_t call;
	char msg[96]; /* JobValid's message: valid until the next JobValid call */
} gang_st;

static const uint32_t *counts(const tph_session *s, tph_idx j)
{
	return tph_view_of(s)->js->count + (size_t)j * TPH_TS_COUNT;
}

static int32_t sum_status(const uint32_t *c, uint32_t set)
{
	uint32_t n = 0;
	for (uint32_t st = 0; st < TPH_TS_COUNT; st++)
		if (set & BIT(st))
			n += c[st];
	return (int32_t)n;
}

/* Volcano's ReadyTaskNum: allocated or succeeded. */
static int32_t ready_num(const tph_session *s, tph_idx j)
{
	return sum_status(counts(s, j), OCCUPIED);
}

/* PendingBestEffortTaskNum: best-effort tasks still Pending need no node to run. A task is
 * Pending in a session only if it was at open (a statement's undo restores no other status),
 * so a job with none then has none now and skips the task walk. */
static int32_t pending_be(const tph_session *s, const gang_st *g, tph_idx j)
{
	(void)g;
	if (!tph_view_of(s)->js->open_be_pending[j])
		return 0;
	const tph_job_store *js = tph_view_of(s)->jobs;
	int32_t n = 0;
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		n += tph_view_of(s)->tasks->status[t] == TPH_TS_PENDING &&
		     (tph_view_of(s)->tasks->flags[t] & TPH_TASK_BEST_EFFORT);
	}
	return n;
}

static bool is_ready(const tph_session *s, const gang_st *g, tph_idx j)
{
	return ready_num(s, j) + pending_be(s, g, j) >= tph_view_of(s)->jobs->min_member[j];
}

static bool is_pipelined(const tph_session *s, const gang_st *g, tph_idx j)
{
	int32_t waiting = (int32_t)counts(s, j)[TPH_TS_PIPELINED];
	return waiting + ready_num(s, j) + pending_be(s, g, j) >=
	       tph_view_of(s)->jobs->min_member[j];
}

/* ---- per-role minimums (minTaskMember) ---- */

/* Whether `min` tasks of `role` have a status in `set` (or are Pending best-effort tasks,
 * when asked): the walk stops at the min-th. */
static bool role_reaches(const tph_session *s, tph_idx j, tph_sid role, uint32_t set, unsigned opt,
                         int32_t min)
{
	const tph_job_store *js = tph_view_of(s)->jobs;
	int32_t n = 0;
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1] && n < min; i++) {
		tph_idx t = js->task_idx[i];
		if (tph_view_of(s)->tasks->role[t] != role)
			continue;
		uint8_t st = tph_view_of(s)->tasks->status[t];
		n += (set & BIT(st)) || ((opt & WITH_PENDING_BE) && st == TPH_TS_PENDING &&
		                         (tph_view_of(s)->tasks->flags[t] & TPH_TASK_BEST_EFFORT));
	}
	return n >= min;
}

/* Volcano's CheckTask{Valid,Ready,Pipelined}: every role reaches its minimum, counting the
 * tasks in `set`. A job whose minMember is below the sum of the role minimums skips it. */
static bool roles_reach(const tph_session *s, tph_idx j, uint32_t set, unsigned opt)
{
	const tph_job_meta *m = tph_view_of(s)->jobs->meta ? tph_view_of(s)->jobs->meta[j] : NULL;
	if (!m || !m->n_min_tasks)
		return true;
	int64_t total = 0;
	for (uint32_t k = 0; k < m->n_min_tasks; k++)
		total += m->min_task_counts[k];
	if (tph_view_of(s)->jobs->min_member[j] < total)
		return true;
	for (uint32_t k = 0; k < m->n_min_tasks; k++) {
		int32_t min = m->min_task_counts[k];
		if (min > 0 && !role_reaches(s, j, m->min_tasks[k].key, set, opt, min))
			return false;
	}
	return true;
}

/* ---- extension points ---- */

static int job_valid(void *st, const tph_session *s, tph_idx j, tph_valid_result *out)
{
	gang_st *g = st;
	if (!roles_reach(s, j, VALID, 0)) {
		out->reason = "NotEnoughPodsOfTask";
		out->message = "Not enough valid pods of each task for gang-scheduling";
		return TPH_EINVAL;
	}
	if (!tph_job_subjobs_valid(s, j)) {
		out->reason = "NotEnoughPodsOfTask";
		out->message = "Not enough valid subGroups of each task for gang-scheduling";
		return TPH_EINVAL;
	}
	int32_t valid = sum_status(counts(s, j), VALID), min = tph_view_of(s)->jobs->min_member[j];
	if (valid >= min)
		return TPH_OK;
	snprintf(g->msg, sizeof g->msg,
	         "Not enough valid tasks for gang-scheduling, valid: %d, min: %d", valid, min);
	out->reason = "NotEnoughTasks";
	out->message = g->msg;
	return TPH_EINVAL;
}

/* Preemptable and Reclaimable: a job gives up tasks only while it keeps more than minMember
 * ready, counting down as this call takes its tasks. */
static int victims(void *st, const tph_session *s, tph_idx preemptor, const tph_idx *cands,
                   uint32_t n, uint8_t *keep)
{
	(void)preemptor;
	gang_st *g = st;
	if (++g->call == 0) { /* wrapped: stamps from 2^32 calls ago would look current */
		memset(g->stamp, 0, sizeof *g->stamp * tph_view_of(s)->jobs->n);
		g->call = 1;
	}
	for (uint32_t i = 0; i < n; i++) {
		tph_idx j = tph_view_of(s)->tasks->job[cands[i]];
		if (j == TPH_NOIDX)
			continue;
		if (g->stamp[j] != g->call) {
			g->stamp[j] = g->call;
			g->occupied[j] = ready_num(s, j);
		}
		if (g->occupied[j] > tph_view_of(s)->jobs->min_member[j]) {
			g->occupied[j]--;
			keep[i] = 1;
		}
	}
	return 1;
}

/* Gang-aware eviction (UnifiedEvictable) keeps minMember through its own bundles. */
static int evict_all(void *st, const tph_session *s, tph_idx preemptor, const tph_idx *cands,
                     uint32_t n, uint8_t *keep)
{
	(void)st, (void)s, (void)preemptor, (void)cands;
	memset(keep, 1, n);
	return 1;
}

/* Jobs that are not ready yet go first. */
static int job_order(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	bool ra = is_ready(s, st, a), rb = is_ready(s, st, b);
	return ra == rb ? 0 : (ra ? 1 : -1);
}

/* Volcano's CheckTaskReady && CheckSubJobReady && IsReady, cheapest first. */
static bool job_ready(void *st, const tph_session *s, tph_idx j)
{
	gang_st *g = st;
	return is_ready(s, g, j) && roles_reach(s, j, OCCUPIED, WITH_PENDING_BE) &&
	       tph_job_subjobs_ready(s, j);
}

static int job_pipelined(void *st, const tph_session *s, tph_idx j)
{
	gang_st *g = st;
	bool ok = is_pipelined(s, g, j) && roles_reach(s, j, PIPELINED, WITH_PENDING_BE) &&
	          tph_job_subjobs_pipelined(s, j);
	return ok ? TPH_PERMIT : TPH_REJECT;
}

/* Subjobs: the same rules over the session's subjob partition (subjob.h). */
static int subjob_order(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	(void)st;
	bool ra = tph_subjob_is_ready(s, a), rb = tph_subjob_is_ready(s, b);
	return ra == rb ? 0 : (ra ? 1 : -1);
}

static bool subjob_ready(void *st, const tph_session *s, tph_idx sj)
{
	(void)st;
	return tph_subjob_is_ready(s, sj);
}

static int subjob_pipelined(void *st, const tph_session *s, tph_idx sj)
{
	(void)st;
	return tph_subjob_is_pipelined(s, sj) ? TPH_PERMIT : TPH_REJECT;
}

/* In preemption only the job's minMember matters, not the role minimums. */
static bool job_starving(void *st, const tph_session *s, tph_idx j)
{
	(void)st;
	int32_t waiting = (int32_t)counts(s, j)[TPH_TS_PIPELINED];
	return waiting + ready_num(s, j) < tph_view_of(s)->jobs->min_member[j];
}

/* ---- session close ---- */

/* Volcano's shouldSkipUnschedulableForReleasing: a job with nothing left to schedule whose
 * scheduled tasks, counting Releasing ones still on a node, reach minMember keeps its
 * condition. */
static bool releasing_covers(const tph_session *s, tph_idx j)
{
	const tph_job_store *js = tph_view_of(s)->jobs;
	const uint32_t *c = counts(s, j);
	int32_t releasing = 0;
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		releasing += tph_view_of(s)->tasks->status[t] == TPH_TS_RELEASING &&
		             tph_view_of(s)->tasks->node[t] != TPH_NOIDX;
	}
	if (!releasing || c[TPH_TS_PENDING] || c[TPH_TS_PIPELINED])
		return false;
	int32_t scheduled = sum_status(c, BIT(TPH_TS_RUNNING) | BIT(TPH_TS_BOUND) |
	                                      BIT(TPH_TS_FAILED) | BIT(TPH_TS_SUCCEEDED));
	return scheduled + releasing >= js->min_member[j];
}

static void gang_close(tph_session *s, void *st)
{
	const tph_job_store *js = tph_view_of(s)->jobs;
	for (tph_idx j = 0; j < js->n; j++) {
		if (js->task_off[j + 1] == js->task_off[j] || is_ready(s, st, j))
			continue;
		if (!releasing_covers(s, j))
			tph_job_mark_unschedulable(s, j);
	}
}

/* ---- session open ---- */

static int gang_state(tph_session *s, gang_st *g)
{
	uint32_t nj = tph_view_of(s)->jobs->n;
	g->occupied = tph_session_alloc(s, sizeof *g->occupied * (nj + 1));
	g->stamp = tph_session_alloc(s, sizeof *g->stamp * (nj + 1));
	return g->occupied && g->stamp ? TPH_OK : TPH_ENOMEM;
}

static int gang_open(tph_session *s, void *st, const tph_args *args)
{
	(void)args;
	int rc = gang_state(s, st);
	if (!rc)
		rc = tph_on_job_valid(s, job_valid);
	if (!rc)
		rc = tph_on_reclaimable(s, victims);
	if (!rc)
		rc = tph_on_preemptable(s, victims);
	if (!rc) /* the preemptor is not read */
		rc = tph_declare_victim_locality(s, TPH_VICTIM_CLASS);
	if (!rc)
		rc = tph_on_unified_evictable(s, evict_all);
	if (!rc)
		rc = tph_on_job_order(s, job_order);
	if (!rc)
		rc = tph_on_subjob_order(s, subjob_order);
	if (!rc)
		rc = tph_on_job_ready(s, job_ready);
	if (!rc)
		rc = tph_on_subjob_ready(s, subjob_ready);
	if (!rc)
		rc = tph_on_job_pipelined(s, job_pipelined);
	if (!rc)
		rc = tph_on_subjob_pipelined(s, subjob_pipelined);
	if (!rc)
		rc = tph_on_job_starving(s, job_starving);
	return rc;
}

const tph_plugin tph_plugin_gang = {
    .abi = TPH_PLUGIN_ABI,
    .name = "gang",
    .state_size = sizeof(gang_st),
    .on_session_open = gang_open,
    .on_session_close = gang_close,
};

/* One job's pass over the cluster (Volcano's allocateResourcesForTasks for a job without
 * hard topology or sub-groups): tasks in TaskOrder, each filtered and placed inside one
 * statement, stopping when the job is ready or when gang rules say it cannot be; then commit,
 * keep (pipelined) or discard. */
#include "allocate.h"
#include "allocate_fast.h"

#include "session/fitlog.h"

#include <stdio.h>
#include <string.h>

/* ---- Volcano's NeedContinueAllocating ---- */

static int32_t min_of_role(const tph_job_meta *m, tph_sid role, int32_t *total)
{
	int32_t v = 0;
	*total = 0;
	for (uint32_t i = 0; m && i < m->n_min_tasks; i++) {
		*total += m->min_task_counts[i];
		if (m->min_tasks[i].key == role)
			v = m->min_task_counts[i];
	}
	return v;
}

/* getJobAllocatedRoles for one role: allocated or succeeded tasks, and best-effort pending. */
static int32_t allocated_of_role(const tph_session *s, tph_idx j, tph_sid role)
{
	const tph_job_store *js = s->jobs;
	int32_t n = 0;
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		uint8_t st = s->tasks.status[t];
		if (s->tasks.role[t] != role)
			continue;
		n += tph_ts_allocated(st) || st == TPH_TS_SUCCEEDED ||
		     (st == TPH_TS_PENDING && (s->tasks.flags[t] & TPH_TASK_BEST_EFFORT));
	}
	return n;
}

/* Case 1: minMember below the roles' sum: ready tasks plus pending tasks of roles that never
 * failed must still reach minMember. */
static bool enough_left(alloc_ctx *c, tph_idx j, const tph_fit_roles *failed)
{
	const tph_session *s = c->s;
	const tph_job_store *js = s->jobs;
	const uint32_t *cnt = s->js.count + (size_t)j * TPH_TS_COUNT;
	int64_t left = 0;
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		left += s->tasks.status[t] == TPH_TS_PENDING &&
		        !tph_fit_roles_has(failed, s->tasks.role[t]);
	}
	int64_t ready = (int64_t)cnt[TPH_TS_ALLOCATED] + cnt[TPH_TS_BINDING] + cnt[TPH_TS_BOUND] +
	                cnt[TPH_TS_RUNNING] + cnt[TPH_TS_SUCCEEDED];
	return ready + left >= js->min_member[j];
}

bool alloc_need_continue(alloc_ctx *c, tph_idx j)
{
	tph_session *s = c->s;
	const tph_job_store *js = s->jobs;
	int64_t n_tasks = js->task_off[j + 1] - js->task_off[j];
	/* every task must run; the default sub-job's size is minMember over all the tasks */
	if (js->min_member[j] >= n_tasks)
		return false;
	const tph_fit_roles *failed = tph_fitlog_failed_roles(s, j, TPH_NOIDX);
	int32_t total;
	min_of_role(js->meta[j], TPH_SID_NONE, &total);
	if (js->min_member[j] < total)
		return enough_left(c, j, failed);
	for (uint32_t i = 0; i < failed->n; i++) {
		int32_t min = min_of_role(js->meta[j], failed->v[i], &total);
		if (min && allocated_of_role(s, j, failed->v[i]) < min)
			return false;
	}
	return true;
}

/* ---- one task ---- */

static int record_all(alloc_ctx *c, tph_idx task, tph_reason_code code)
{
	tph_session *s = c->s;
	uint32_t *hist = tph_fitlog_hist(s);
	if (!hist)
		return TPH_ENOMEM;
	hist[tph_fitlog_slot(s->n_reasons, code)] = s->n_ready;
	int rc = tph_fitlog_counted(s, task);
	if (rc != 1)
		return rc;
	for (uint32_t i = 0; i < s->n_ready; i++)
		c->codes[i] = code;
	return tph_fitlog_unres(s, task, s->ready_nodes, c->codes, s->n_ready);
}

/* The nominated node first (where an earlier preemption made room), then every node. */
static uint32_t feasible(alloc_ctx *c, tph_idx task)
{
	tph_session *s = c->s;
	tph_idx nom = s->tasks.nominated[task];
	uint32_t n = 0;
	if (nom != TPH_NOIDX && (s->nodes.flags[nom] & TPH_NODE_READY) &&
	    tph_fits(s, task, nom, true))
		n = tph_ph_predicate(&c->ph, task, &nom, 1, c->feas, c->codes);
	if (!n)
		n = tph_ph_predicate(&c->ph, task, s->ready_nodes, s->n_ready, c->feas, c->codes);
	return n;
}

/* The node for a task: from its shape (allocate_fast.c) when it qualifies, else by filtering
 * and prioritizeNodes. AF_NODE with *best (TPH_NOIDX when no score won), AF_NONE with the
 * task's failure recorded, or an error. */
static int choose(alloc_ctx *c, tph_idx task, tph_idx *best)
{
	tph_session *s = c->s;
	int rc = c->fast ? alloc_fast_pick_logged(c->fast, task, best, c->codes) : TPH_DECLINED;
	if (rc != TPH_DECLINED)
		return rc;
	uint32_t n = feasible(c, task);
	if (!n) {
		rc = tph_fitlog_nodes(s, task, s->ready_nodes, c->codes, s->n_ready);
		return rc ? rc : AF_NONE;
	}
	*best = alloc_best_node(c, task, c->feas, n);
	return AF_NODE;
}

enum {
	TASK_NEXT = 0,
	TASK_STOP = 1
};

/* One task of the loop: TASK_NEXT to go on, TASK_STOP to leave it, or an error. */
static int one_task(alloc_ctx *c, tph_statement *st, tph_idx j, tph_idx t)
{
	tph_session *s = c->s;
	if (!tph_allocatable(s, s->jobs->queue[j], t)) {
		tph_jobwhy_note(s, j, TPH_NOTE_QUEUE);
		return TASK_NEXT;
	}
	if (tph_fitlog_role_failed(s, t, TPH_NOIDX))
		return tph_fitlog_skip(s, t);
	int rc;
	tph_reason_code pre = tph_prepredicate(s, t);
	if (pre != TPH_PASS) {
		if ((rc = record_all(c, t, pre)))
			return rc;
		return alloc_need_continue(c, j) ? TASK_NEXT : TASK_STOP;
	}
	tph_idx best;
	if ((rc = choose(c, t, &best)) < 0)
		return rc;
	if (rc == AF_NONE)
		return alloc_need_continue(c, j) ? TASK_NEXT : TASK_STOP;
	if (best == TPH_NOIDX)
		return TASK_NEXT;
	rc = alloc_place(c, st, t, best);
	if (rc == TPH_ENOMEM)
		return rc;
	if (rc < 0)
		return TASK_NEXT;
	return tph_job_ready(s, j) ? TASK_STOP : TASK_NEXT;
}

int alloc_flat_job(alloc_ctx *c, tph_idx j, bool *again)
{
	tph_session *s = c->s;
	tph_statement st;
	tph_stmt_init(&st, s);
	tph_ph_reset(&c->ph);
	tph_idx t;
	int rc = TASK_NEXT;
	while (rc == TASK_NEXT && (t = tph_pq_pop(&c->tasks[j])) != TPH_NOIDX)
		rc = one_task(c, &st, j, t);
	if (rc < 0) {
		tph_ph_touch_stmt(&c->ph, &st);
		tph_stmt_discard(&st);
		return rc;
	}
	if (tph_job_ready(s, j)) {
		*again = c->tasks[j].n > 0;
		return tph_stmt_commit(&st);
	}
	if (tph_job_pipelined(s, j))
		return tph_stmt_keep(&st);
	tph_ph_touch_stmt(&c->ph, &st);
	tph_stmt_discard(&st);
	return TPH_OK;
}

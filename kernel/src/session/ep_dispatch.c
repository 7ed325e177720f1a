/* Combination rules: how the answers of every registered plugin become the one answer an
 * action gets. Each function follows its namesake in Volcano's
 * pkg/scheduler/framework/session_plugins.go; comments note where tephra must differ. */
#include "ep.h"

#include "base/mem.h"
#include "prof.h"

#include <string.h>

#define CALL(type, e) ((type)(e)->fn)

/* The end of the tier that starts at entry i. */
static uint32_t tier_end(const tph_ep_list *l, uint32_t i)
{
	uint32_t j = i;
	while (j < l->n && l->e[j].tier == l->e[i].tier)
		j++;
	return j;
}

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

static const char *str(const tph_session *s, tph_sid id)
{
	return tph_strtab_str(s->snap->strs, id);
}

/* ---- orders ---- */

static int first_cmp(const tph_session *s, tph_ep ep, tph_idx a, tph_idx b)
{
	TPH_PROF(s, ep);
	const tph_ep_list *l = &s->ep[ep];
	for (uint32_t i = 0; i < l->n; i++) {
		int r = CALL(tph_cmp_fn, &l->e[i])(l->e[i].st, s, a, b);
		if (r)
			return sign(r);
	}
	return 0;
}

int tph_job_order_cmp_plugins(const tph_session *s, tph_idx a, tph_idx b)
{
	return first_cmp(s, TPH_EP_JOB_ORDER, a, b);
}

/* JobOrderFn: CreationTimestamp, then UID. */
int tph_job_order(const tph_session *s, tph_idx a, tph_idx b)
{
	if (a == b)
		return 0;
	int r = first_cmp(s, TPH_EP_JOB_ORDER, a, b);
	if (!r)
		r = cmp_i64(s->jobs->creation[a], s->jobs->creation[b]);
	if (!r)
		r = sign(strcmp(str(s, s->jobs->uid[a]), str(s, s->jobs->uid[b])));
	return r ? r : (a < b ? -1 : 1);
}

/* QueueOrderFn: CreationTimestamp, then UID, which Volcano sets to the queue's name. */
int tph_queue_order(const tph_session *s, tph_idx a, tph_idx b)
{
	if (a == b)
		return 0;
	int r = first_cmp(s, TPH_EP_QUEUE_ORDER, a, b);
	if (!r)
		r = cmp_i64(s->queues->creation[a], s->queues->creation[b]);
	if (!r)
		r = sign(strcmp(str(s, s->queues->name[a]), str(s, s->queues->name[b])));
	return r ? r : (a < b ? -1 : 1);
}

/* strconv.Atoi: an optional sign, then decimal digits that fit an int64. */
static bool go_atoi(const char *p, int64_t *out)
{
	bool neg = *p == '-';
	if (*p == '+' || *p == '-')
		p++;
	if (!*p)
		return false;
	uint64_t v = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		unsigned dgt = (unsigned)(*p - '0');
		if (v > (lim - dgt) / 10)
			return false;
		v = v * 10 + dgt;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

/* helpers.GetPodIndexUnderTask: strings.Split(name, "-") must give at least three parts. */
bool tph_task_pod_index(const char *name, int64_t *out)
{
	const char *last = strrchr(name, '-');
	return last && memchr(name, '-', (size_t)(last - name)) && go_atoi(last + 1, out);
}

int tph_task_order_cmp_plugins(const tph_session *s, tph_idx a, tph_idx b)
{
	return first_cmp(s, TPH_EP_TASK_ORDER, a, b);
}

/* Each task's pod index, parsed on its first comparison (running tasks that no action orders
 * are never parsed) and kept for the session. */
static tph_ep_ctx *pod_indexes(const tph_session *s)
{
	tph_ep_ctx *c = s->epx;
	if (!c || c->pod_index)
		return c;
	size_t n = (size_t)s->tasks.n + 1;
	int64_t *v = tph_calloc(n, sizeof *v + 1);
	if (!v)
		return NULL;
	c->pod_has = (uint8_t *)(v + n);
	c->pod_index = v;
	return c;
}

/* pod_index's first ask for task t (or every ask without a cache), out of line so that the
 * comparisons that find t parsed stay short. */
static __attribute__((noinline)) bool pod_parse(const tph_session *s, tph_ep_ctx *c, tph_idx t,
                                                int64_t *out)
{
	int64_t *v = c ? &c->pod_index[t] : out;
	bool has = tph_task_pod_index(str(s, s->tasks.name[t]), v);
	if (c) {
		c->pod_has[t] = (uint8_t)(1 + has);
		*out = *v;
	}
	return has;
}

/* Whether task t has a pod index (then in *out). */
static inline bool pod_index(const tph_session *s, tph_ep_ctx *c, tph_idx t, int64_t *out)
{
	uint8_t has = c ? c->pod_has[t] : 0;
	if (!has)
		return pod_parse(s, c, t, out);
	*out = c->pod_index[t];
	return has == 2;
}

/* helpers.CompareTask (pkg/controllers/job/helpers): pod index when both have one and they
 * differ, else CreationTimestamp, then UID. */
static int compare_task(const tph_session *s, tph_idx a, tph_idx b)
{
	const tph_task_store *t = &s->tasks;
	tph_ep_ctx *c = pod_indexes(s);
	int64_t ia, ib;
	if (pod_index(s, c, a, &ia) && pod_index(s, c, b, &ib) && ia != ib)
		return ia < ib ? -1 : 1;
	int r = cmp_i64(t->creation[a], t->creation[b]);
	if (!r)
		r = sign(strcmp(str(s, t->uid[a]), str(s, t->uid[b])));
	return r;
}

int tph_task_order(const tph_session *s, tph_idx a, tph_idx b)
{
	if (a == b)
		return 0;
	int r = first_cmp(s, TPH_EP_TASK_ORDER, a, b);
	if (!r)
		r = compare_task(s, a, b);
	return r ? r : (a < b ? -1 : 1);
}

int tph_subjob_order(const tph_session *s, tph_idx a, tph_idx b)
{
	if (a == b)
		return 0;
	int r = first_cmp(s, TPH_EP_SUBJOB_ORDER, a, b);
	return r ? r : (a < b ? -1 : 1);
}

int tph_cluster_order(const tph_session *s, tph_idx a, tph_idx b)
{
	if (a == b)
		return 0;
	int r = first_cmp(s, TPH_EP_CLUSTER_ORDER, a, b);
	return r ? r : (a < b ? -1 : 1);
}

/* VictimQueueOrderFn: the plugins, then !QueueOrderFn(l, r). */
int tph_victim_queue_order(const tph_session *s, tph_idx qa, tph_idx qb, tph_idx preemptor_q)
{
	TPH_PROF(s, TPH_EP_VICTIM_QUEUE_ORDER);
	if (qa == qb)
		return 0;
	const tph_ep_list *l = &s->ep[TPH_EP_VICTIM_QUEUE_ORDER];
	for (uint32_t i = 0; i < l->n; i++) {
		int r = CALL(tph_victim_queue_cmp_fn, &l->e[i])(l->e[i].st, s, qa, qb, preemptor_q);
		if (r)
			return sign(r);
	}
	return -tph_queue_order(s, qa, qb);
}

/* ---- votes and predicates ---- */

/* JobEnqueueable / JobPipelined: a Reject vetoes; a Permit ends the walk at its tier's end.
 * `by`, when given, gets the index of the plugin that vetoed. */
static bool vote(const tph_session *s, tph_ep ep, tph_idx x, uint32_t *by)
{
	TPH_PROF(s, ep);
	const tph_ep_list *l = &s->ep[ep];
	bool permit = false;
	for (uint32_t i = 0; i < l->n; i++) {
		int v = CALL(tph_job_vote_fn, &l->e[i])(l->e[i].st, s, x);
		if (v < 0) {
			if (by)
				*by = l->e[i].plugin;
			return false;
		}
		permit |= v > 0;
		if (permit && (i + 1 == l->n || l->e[i + 1].tier != l->e[i].tier))
			return true;
	}
	return true;
}

static bool all_true(const tph_session *s, tph_ep ep, tph_idx x)
{
	TPH_PROF(s, ep);
	const tph_ep_list *l = &s->ep[ep];
	for (uint32_t i = 0; i < l->n; i++)
		if (!CALL(tph_job_pred_fn, &l->e[i])(l->e[i].st, s, x))
			return false;
	return true;
}

/* JobInfo.ContainsSubJobPolicy. */
static bool has_subjob_policy(const tph_session *s, tph_idx job)
{
	const tph_job_meta *m = s->jobs && s->jobs->meta ? s->jobs->meta[job] : NULL;
	return m && m->n_subgroups > 0;
}

bool tph_job_enqueueable(const tph_session *s, tph_idx job)
{
	return vote(s, TPH_EP_JOB_ENQUEUEABLE, job, NULL);
}

bool tph_job_enqueueable_by(const tph_session *s, tph_idx job, uint32_t *by)
{
	return vote(s, TPH_EP_JOB_ENQUEUEABLE, job, by);
}

bool tph_job_pipelined(const tph_session *s, tph_idx job)
{
	return vote(s, TPH_EP_JOB_PIPELINED, job, NULL);
}

bool tph_subjob_pipelined(const tph_session *s, tph_idx job, tph_idx subjob)
{
	if (!has_subjob_policy(s, job))
		return tph_job_pipelined(s, job);
	return vote(s, TPH_EP_SUBJOB_PIPELINED, subjob, NULL);
}

bool tph_job_ready(const tph_session *s, tph_idx job)
{
	return all_true(s, TPH_EP_JOB_READY, job);
}

bool tph_subjob_ready(const tph_session *s, tph_idx job, tph_idx subjob)
{
	if (!has_subjob_policy(s, job))
		return tph_job_ready(s, job);
	return all_true(s, TPH_EP_SUBJOB_READY, subjob);
}

static bool queue_task_all(const tph_session *s, tph_ep ep, tph_idx queue, tph_idx task)
{
	TPH_PROF(s, ep);
	const tph_ep_list *l = &s->ep[ep];
	for (uint32_t i = 0; i < l->n; i++)
		if (!CALL(tph_queue_task_pred_fn, &l->e[i])(l->e[i].st, s, queue, task))
			return false;
	return true;
}

bool tph_allocatable(const tph_session *s, tph_idx queue, tph_idx task)
{
	return queue_task_all(s, TPH_EP_ALLOCATABLE, queue, task);
}

bool tph_preemptive(const tph_session *s, tph_idx queue, tph_idx task)
{
	return queue_task_all(s, TPH_EP_PREEMPTIVE, queue, task);
}

bool tph_overused(const tph_session *s, tph_idx queue)
{
	TPH_PROF(s, TPH_EP_OVERUSED);
	const tph_ep_list *l = &s->ep[TPH_EP_OVERUSED];
	for (uint32_t i = 0; i < l->n; i++)
		if (CALL(tph_queue_pred_fn, &l->e[i])(l->e[i].st, s, queue))
			return true;
	return false;
}

bool tph_job_starving(const tph_session *s, tph_idx job)
{
	TPH_PROF(s, TPH_EP_JOB_STARVING);
	const tph_ep_list *l = &s->ep[TPH_EP_JOB_STARVING];
	if (!l->n)
		return false;
	for (uint32_t i = 0, end = tier_end(l, 0); i < end; i++)
		if (!CALL(tph_job_pred_fn, &l->e[i])(l->e[i].st, s, job))
			return false;
	return true;
}

int tph_job_valid_by(const tph_session *s, tph_idx job, tph_valid_result *out, uint32_t *by)
{
	TPH_PROF(s, TPH_EP_JOB_VALID);
	const tph_ep_list *l = &s->ep[TPH_EP_JOB_VALID];
	for (uint32_t i = 0; i < l->n; i++) {
		tph_valid_result r = {NULL, NULL};
		int rc = CALL(tph_job_valid_fn, &l->e[i])(l->e[i].st, s, job, &r);
		if (rc != TPH_OK) {
			if (out)
				*out = r;
			if (by)
				*by = l->e[i].plugin;
			return rc;
		}
	}
	return TPH_OK;
}

int tph_job_valid(const tph_session *s, tph_idx job, tph_valid_result *out)
{
	return tph_job_valid_by(s, job, out, NULL);
}

void tph_job_enqueued(tph_session *s, tph_idx job)
{
	TPH_PROF(s, TPH_EP_JOB_ENQUEUED);
	const tph_ep_list *l = &s->ep[TPH_EP_JOB_ENQUEUED];
	for (uint32_t i = 0; i < l->n; i++)
		CALL(tph_job_event_fn, &l->e[i])(l->e[i].st, s, job);
}

void tph_reserved_nodes(tph_session *s)
{
	TPH_PROF(s, TPH_EP_RESERVED_NODES);
	const tph_ep_list *l = &s->ep[TPH_EP_RESERVED_NODES];
	for (uint32_t i = 0; i < l->n; i++)
		CALL(tph_session_event_fn, &l->e[i])(l->e[i].st, s);
}

tph_idx tph_target_job(const tph_session *s, const tph_idx *jobs, uint32_t n)
{
	TPH_PROF(s, TPH_EP_TARGET_JOB);
	const tph_ep_list *l = &s->ep[TPH_EP_TARGET_JOB];
	if (!l->n)
		return TPH_NOIDX;
	return CALL(tph_target_job_fn, &l->e[0])(l->e[0].st, s, jobs, n);
}

/* ---- mask scratch ---- */

/* The context's mask buffer when free, else (a nested call, or no context) a heap block. */
static uint8_t *mask_take(tph_session *s, size_t bytes, bool *owned)
{
	tph_ep_ctx *c = tph_ep_ctx_of(s);
	*owned = !c || c->mask_busy || bytes > UINT32_MAX;
	if (*owned)
		return tph_malloc(bytes ? bytes : 1);
	if (tph_grow(&c->mask, &c->mask_cap, (uint32_t)bytes, 1))
		return NULL;
	c->mask_busy = true;
	return c->mask;
}

static void mask_give(tph_session *s, uint8_t *m, bool owned)
{
	if (owned) {
		tph_free(m);
		return;
	}
	tph_ep_ctx *c = tph_ep_ctx_of(s);
	c->mask_busy = false;
}

/* ---- victims ---- */

static uint32_t count_set(uint8_t *m, uint32_t n)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		m[i] = m[i] != 0;
		k += m[i];
	}
	return k;
}

/* One tier of Preemptable/Reclaimable/UnifiedEvictable: the number of victims left in acc.
 * As in Volcano, an intersection that comes out empty makes the list nil again, so the next
 * plugin of the tier starts it afresh, while a plugin that chooses nothing ends the tier. */
static uint32_t victims_tier(tph_session *s, const tph_ep_list *l, uint32_t i, uint32_t end,
                             tph_idx who, const tph_idx *cands, uint32_t n, uint8_t *keep,
                             uint8_t *acc)
{
	uint32_t have = 0;
	for (; i < end; i++) {
		memset(keep, 0, n);
		if (!CALL(tph_victims_fn, &l->e[i])(l->e[i].st, s, who, cands, n, keep))
			continue;
		uint32_t k = count_set(keep, n);
		if (!k)
			return 0;
		if (!have) {
			memcpy(acc, keep, n);
			have = k;
			continue;
		}
		have = 0;
		for (uint32_t j = 0; j < n; j++)
			have += (acc[j] &= keep[j]);
	}
	return have;
}

static uint32_t victims(tph_session *s, tph_ep ep, tph_idx who, const tph_idx *cands, uint32_t n,
                        tph_idx *out)
{
	TPH_PROF(s, ep);
	const tph_ep_list *l = &s->ep[ep];
	if (!l->n || !n)
		return 0;
	bool owned;
	uint8_t *keep = mask_take(s, (size_t)n * 2, &owned);
	if (!keep) {
		tph_diag_warn(s->diag, "%s: out of memory; no victims", tph_ep_table[ep].name);
		s->oom = true;
		return 0;
	}
	uint8_t *acc = keep + n;
	uint32_t k = 0;
	for (uint32_t i = 0; i < l->n && !k; i = tier_end(l, i))
		k = victims_tier(s, l, i, tier_end(l, i), who, cands, n, keep, acc);
	for (uint32_t j = 0, o = 0; k && j < n; j++)
		if (acc[j])
			out[o++] = cands[j];
	mask_give(s, keep, owned);
	return k;
}

uint32_t tph_preemptable(tph_session *s, tph_idx preemptor, const tph_idx *cands, uint32_t n,
                         tph_idx *victims_out)
{
	return victims(s, TPH_EP_PREEMPTABLE, preemptor, cands, n, victims_out);
}

uint32_t tph_reclaimable(tph_session *s, tph_idx reclaimer, const tph_idx *cands, uint32_t n,
                         tph_idx *victims_out)
{
	return victims(s, TPH_EP_RECLAIMABLE, reclaimer, cands, n, victims_out);
}

uint32_t tph_unified_evictable(tph_session *s, tph_idx preemptor, const tph_idx *cands, uint32_t n,
                               tph_idx *victims_out)
{
	return victims(s, TPH_EP_UNIFIED_EVICTABLE, preemptor, cands, n, victims_out);
}

uint32_t tph_victim_tasks(tph_session *s, const tph_idx *tasks, uint32_t n, uint8_t *victim_out)
{
	TPH_PROF(s, TPH_EP_VICTIM_TASKS);
	const tph_ep_list *l = &s->ep[TPH_EP_VICTIM_TASKS];
	memset(victim_out, 0, n);
	if (!l->n || !n)
		return 0;
	bool owned;
	uint8_t *m = mask_take(s, n, &owned);
	if (!m) {
		tph_diag_warn(s->diag, "VictimTasks: out of memory; no victims");
		s->oom = true;
		return 0;
	}
	uint32_t k = 0;
	for (uint32_t i = 0; i < l->n && !k;) {
		for (uint32_t end = tier_end(l, i); i < end; i++) {
			memset(m, 0, n);
			CALL(tph_victim_tasks_fn, &l->e[i])(l->e[i].st, s, tasks, n, m);
			for (uint32_t j = 0; j < n; j++)
				victim_out[j] |= m[j] != 0;
		}
		k = count_set(victim_out, n);
	}
	mask_give(s, m, owned);
	return k;
}

/* ---- simulations ---- */

bool tph_sim_allocatable(const tph_session *s, tph_idx queue, tph_idx task)
{
	TPH_PROF(s, TPH_EP_SIM_ALLOCATABLE);
	const tph_ep_list *l = &s->ep[TPH_EP_SIM_ALLOCATABLE];
	for (uint32_t i = 0; i < l->n; i++)
		if (!CALL(tph_sim_allocatable_fn, &l->e[i])(l->e[i].st, s, queue, task))
			return false;
	return true;
}

tph_reason_code tph_sim_predicate(const tph_session *s, tph_idx task, tph_idx node)
{
	TPH_PROF(s, TPH_EP_SIM_PREDICATE);
	const tph_ep_list *l = &s->ep[TPH_EP_SIM_PREDICATE];
	for (uint32_t i = 0; i < l->n; i++) {
		tph_reason_code r = CALL(tph_sim_predicate_fn, &l->e[i])(l->e[i].st, s, task, node);
		if (r != TPH_PASS)
			return r;
	}
	return TPH_PASS;
}

static int sim_task(tph_session *s, tph_ep ep, tph_idx pending, tph_idx task, tph_idx node)
{
	TPH_PROF(s, ep);
	const tph_ep_list *l = &s->ep[ep];
	for (uint32_t i = 0; i < l->n; i++) {
		int rc = CALL(tph_sim_task_fn, &l->e[i])(l->e[i].st, s, pending, task, node);
		if (rc)
			return rc;
	}
	return TPH_OK;
}

int tph_sim_add_task(tph_session *s, tph_idx pending, tph_idx task, tph_idx node)
{
	return sim_task(s, TPH_EP_SIM_ADD_TASK, pending, task, node);
}

int tph_sim_remove_task(tph_session *s, tph_idx pending, tph_idx task, tph_idx node)
{
	return sim_task(s, TPH_EP_SIM_REMOVE_TASK, pending, task, node);
}

tph_reason_code tph_prepredicate(const tph_session *s, tph_idx task)
{
	TPH_PROF(s, TPH_EP_PREPREDICATE);
	const tph_ep_list *l = &s->ep[TPH_EP_PREPREDICATE];
	for (uint32_t i = 0; i < l->n; i++) {
		tph_reason_code r = CALL(tph_prepredicate_fn, &l->e[i])(l->e[i].st, s, task);
		if (r != TPH_PASS)
			return r;
	}
	return TPH_PASS;
}

/* ---- events ----
 * Volcano's Statement calls every AllocateFunc even after one fails and then, in unallocate,
 * every DeallocateFunc (the failing plugin's too); it ignores DeallocateFunc errors. Here a
 * failure stops the walk and only the handlers that succeeded are undone, so a handler that
 * fails must leave its own state as it found it. Decisions only differ when a handler fails. */

static int fire(tph_session *s, tph_ep ep, tph_ep undo_ep, tph_idx task)
{
	TPH_PROF(s, ep);
	const tph_ep_list *l = &s->ep[ep], *u = &s->ep[undo_ep];
	for (uint32_t i = 0; i < l->n; i++) {
		tph_task_event_fn fn = CALL(tph_task_event_fn, &l->e[i]);
		int rc = fn ? fn(l->e[i].st, s, task) : TPH_OK;
		if (rc == TPH_OK)
			continue;
		for (uint32_t j = i; j-- > 0;) {
			tph_task_event_fn undo = CALL(tph_task_event_fn, &u->e[j]);
			if (undo && l->e[j].fn)
				undo(u->e[j].st, s, task);
		}
		return rc;
	}
	return TPH_OK;
}

int tph_fire_allocate(tph_session *s, tph_idx task)
{
	return fire(s, TPH_EP_ALLOCATE_EVENT, TPH_EP_DEALLOCATE_EVENT, task);
}

int tph_fire_deallocate(tph_session *s, tph_idx task)
{
	return fire(s, TPH_EP_DEALLOCATE_EVENT, TPH_EP_ALLOCATE_EVENT, task);
}

/* Session.Allocate calls every AllocateFunc and never looks at event.Err. */
void tph_fire_allocate_all(tph_session *s, tph_idx task)
{
	TPH_PROF(s, TPH_EP_ALLOCATE_EVENT);
	const tph_ep_list *l = &s->ep[TPH_EP_ALLOCATE_EVENT];
	for (uint32_t i = 0; i < l->n; i++) {
		tph_task_event_fn fn = CALL(tph_task_event_fn, &l->e[i]);
		if (fn)
			(void)fn(l->e[i].st, s, task);
	}
}

/* The KAI session: open over a snapshot and a KAI conf, run the conf's actions in order from the
 * built-in table, and keep the state and the decisions they leave (tephra/kai.h). Plugins and
 * extension points: kai_ep.c; the node ledger: kai_ledger.c; the statement: kai_stmt.c. */
#include "kai_int.h"

#include "base/diag.h"
#include "base/mem.h"
#include "load/conf_int.h"

#include <string.h>
#include <time.h>

bool tph_kai_alive(uint8_t st)
{
	return st == TPH_KAI_TS_ALLOCATED || st == TPH_KAI_TS_PIPELINED ||
	       st == TPH_KAI_TS_BINDING || st == TPH_KAI_TS_BOUND || st == TPH_KAI_TS_RUNNING ||
	       st == TPH_KAI_TS_PENDING;
}

bool tph_kai_active_allocated(uint8_t st)
{
	return st == TPH_KAI_TS_ALLOCATED || st == TPH_KAI_TS_PIPELINED ||
	       st == TPH_KAI_TS_BINDING || st == TPH_KAI_TS_BOUND || st == TPH_KAI_TS_RUNNING;
}

bool tph_kai_active_used(uint8_t st)
{
	return tph_kai_active_allocated(st) || st == TPH_KAI_TS_RELEASING ||
	       st == TPH_KAI_TS_STUCK_RELEASING;
}

/* Sub-group k satisfied: a pod set by its counted tasks, a set by its satisfied children. */
static bool satisfied(const tph_kai_view *v, uint32_t k, const uint32_t *count)
{
	const tph_kai_subgroups *sg = &v->subgroups;
	if (sg->pod_set[k])
		return (int64_t)count[k] >= sg->min_member[k];
	uint32_t j = sg->job[k], first = v->jobs.sg_first[j], ok = 0;
	for (uint32_t c = first; c < first + v->jobs.sg_count[j]; c++)
		ok += sg->parent[c] == (int32_t)k && satisfied(v, c, count);
	return ok >= (uint32_t)sg->min_subgroup[k];
}

bool tph_kai_gang_satisfied(const tph_kai_session *s, uint32_t j, bool (*counts)(uint8_t))
{
	const tph_kai_view *v = s->v;
	uint32_t first = v->jobs.sg_first[j], n = v->jobs.sg_count[j];
	uint32_t count[64] = {0}, *cnt = n <= 64 ? count : tph_calloc(n, sizeof *cnt);
	if (!cnt)
		return true; /* out of memory: claim nothing is wrong (no eviction follows) */
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++) {
		uint32_t t = s->job_tasks[i];
		int32_t ps = v->tasks.pod_set[t];
		if (ps >= 0 && counts(s->status[t]))
			cnt[(uint32_t)ps - first]++;
	}
	uint32_t ok = 0;
	for (uint32_t c = first; c < first + n; c++)
		ok += v->subgroups.parent[c] < 0 && satisfied(v, c, cnt - first);
	if (cnt != count)
		tph_free(cnt);
	return ok >= (uint32_t)v->jobs.min_subgroup[j];
}

static int record(tph_kai_decisions *l, uint32_t t, int32_t node, const char *action)
{
	if (tph_grow(&l->items, &l->cap, l->n + 1, sizeof *l->items))
		return TPH_ENOMEM;
	l->items[l->n++] = (tph_kai_decision){t, node, action};
	return TPH_OK;
}

int tph_kai_evict(tph_kai_session *s, uint32_t t)
{
	tph_kai_release_now(s, t);
	return record(&s->evictions, t, -1, s->action);
}

int tph_kai_record_eviction(tph_kai_session *s, uint32_t t)
{
	return record(&s->evictions, t, -1, s->action);
}

int tph_kai_record_bind(tph_kai_session *s, uint32_t t, int32_t node)
{
	return record(&s->binds, t, node, s->action);
}

int tph_kai_record_pipelined(tph_kai_session *s, uint32_t t, int32_t node)
{
	return record(&s->pipelined, t, node, s->action);
}

/* Tasks grouped by job (a counting sort: each job's tasks keep their snapshot order). */
static int group_tasks(tph_kai_session *s)
{
	const tph_kai_view *v = s->v;
	uint32_t nj = v->jobs.n, nt = v->tasks.n;
	s->job_first = tph_calloc((size_t)nj + 2, sizeof *s->job_first);
	s->job_tasks = tph_calloc((size_t)nt + 1, sizeof *s->job_tasks);
	if (!s->job_first || !s->job_tasks)
		return TPH_ENOMEM;
	for (uint32_t t = 0; t < nt; t++)
		if (v->tasks.job[t] >= 0)
			s->job_first[v->tasks.job[t] + 2]++;
	for (uint32_t j = 0; j < nj; j++)
		s->job_first[j + 2] += s->job_first[j + 1];
	for (uint32_t t = 0; t < nt; t++)
		if (v->tasks.job[t] >= 0)
			s->job_tasks[s->job_first[v->tasks.job[t] + 1]++] = t;
	return TPH_OK;
}

static int copy_state(tph_kai_session *s)
{
	const tph_kai_view *v = s->v;
	uint32_t nt = v->tasks.n, nj = v->jobs.n;
	s->status = tph_malloc((size_t)nt + 1);
	s->node = tph_malloc(((size_t)nt + 1) * sizeof *s->node);
	s->last_start = tph_malloc(((size_t)nj + 1) * sizeof *s->last_start);
	s->stale_since = tph_malloc(((size_t)nj + 1) * sizeof *s->stale_since);
	if (!s->status || !s->node || !s->last_start || !s->stale_since)
		return TPH_ENOMEM;
	memcpy(s->status, v->tasks.status, nt);
	memcpy(s->node, v->tasks.node, (size_t)nt * sizeof *s->node);
	memcpy(s->last_start, v->jobs.last_start, (size_t)nj * sizeof *s->last_start);
	memcpy(s->stale_since, v->jobs.stale_since, (size_t)nj * sizeof *s->stale_since);
	s->virt = tph_calloc((size_t)nt + 1, 1);
	s->order_tmp = tph_calloc((size_t)nt + 1, sizeof *s->order_tmp);
	s->job_sig = tph_calloc((size_t)nj + 1, sizeof *s->job_sig);
	if (!s->virt || !s->order_tmp || !s->job_sig)
		return TPH_ENOMEM;
	s->job_gen = tph_calloc((size_t)nj + 1, sizeof *s->job_gen);
	s->turn_gen = tph_calloc((size_t)nj + 1, sizeof *s->turn_gen);
	s->turn_n = tph_calloc((size_t)nj + 1, sizeof *s->turn_n);
	s->turn_tasks = tph_calloc((size_t)nt + 1, sizeof *s->turn_tasks);
	s->queue_gen = tph_calloc((size_t)v->queues.n + 1, sizeof *s->queue_gen);
	if (!s->job_gen || !s->turn_gen || !s->turn_n || !s->turn_tasks || !s->queue_gen)
		return TPH_ENOMEM;
	for (uint32_t j = 0; j < nj; j++)
		s->job_gen[j] = 1; /* no turn kept yet */
	s->sg_order = tph_calloc((size_t)v->subgroups.n + 1, sizeof *s->sg_order);
	s->sg_alloc = tph_calloc((size_t)v->subgroups.n + 1, sizeof *s->sg_alloc);
	if (!s->sg_order || !s->sg_alloc)
		return TPH_ENOMEM;
	for (uint32_t k = 0; k < v->subgroups.n; k++)
		s->sg_order[k] = k;
	int rc = group_tasks(s);
	if (rc == TPH_OK)
		rc = tph_kai_ledger_build(s);
	return rc < 0 ? rc : tph_kai_ranges_build(s);
}

int tph_kai_session_open(const tph_kai_snapshot *snap, const tph_conf *conf, tph_kai_session **out,
                         tph_diag *d)
{
	tph_diag_begin(d);
	if (!out || !snap || !conf)
		return tph_diag_set(d, TPH_EINVAL, "kai session: no snapshot, conf or output");
	*out = NULL;
	if (tph_conf_flavour_of(conf) != TPH_CONF_KAI)
		return tph_diag_set(d, TPH_EINVAL, "kai session: %s is not a KAI conf", conf->file);
	tph_kai_session *s = tph_calloc(1, sizeof *s);
	if (!s)
		return tph_diag_set(d, TPH_ENOMEM, "kai session: out of memory");
	s->v = tph_kai_snapshot_view(snap);
	s->conf = conf;
	int rc = copy_state(s) < 0 ? tph_diag_set(d, TPH_ENOMEM, "kai session: out of memory")
	                           : tph_kai_open_plugins(s, d);
	if (rc == TPH_OK && tph_kai_rank_tasks(s) < 0)
		rc = tph_diag_set(d, TPH_ENOMEM, "kai session: out of memory");
	if (rc < 0) {
		tph_kai_session_free(s);
		return rc;
	}
	*out = s;
	return TPH_OK;
}

static const tph_kai_action *find_action(const char *name)
{
	for (size_t i = 0; tph_kai_builtin_actions[i]; i++)
		if (strcmp(tph_kai_builtin_actions[i]->name, name) == 0)
			return tph_kai_builtin_actions[i];
	return NULL;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int tph_kai_session_run(tph_kai_session *s, tph_diag *d)
{
	tph_diag_begin(d);
	tph_free(s->times);
	s->n_times = 0;
	s->times = tph_calloc(s->conf->n_actions ? s->conf->n_actions : 1, sizeof *s->times);
	if (!s->times)
		return tph_diag_set(d, TPH_ENOMEM, "kai session: out of memory");
	for (uint32_t i = 0; i < s->conf->n_actions; i++) {
		const tph_kai_action *a = find_action(s->conf->actions[i]);
		if (!a)
			return tph_diag_set(d, TPH_ENOTSUP, "kai: action %s not built yet",
			                    s->conf->actions[i]);
		s->action = a->name;
		double t0 = now_ms();
		int rc = a->run(s, d);
		s->times[s->n_times++] = (tph_kai_action_time){a->name, now_ms() - t0};
		if (rc < 0)
			return rc;
	}
	return TPH_OK;
}

void tph_kai_session_set_naive(tph_kai_session *s, bool naive)
{
	s->naive = naive;
}

uint32_t tph_kai_session_action_times(const tph_kai_session *s, const tph_kai_action_time **out)
{
	*out = s->times;
	return s->n_times;
}

void tph_kai_session_free(tph_kai_session *s)
{
	if (!s)
		return;
	tph_kai_close_plugins(s);
	tph_kai_free_hooks(s);
	tph_free(s->status);
	tph_free(s->node);
	tph_free(s->last_start);
	tph_free(s->stale_since);
	tph_free(s->job_first);
	tph_free(s->job_tasks);
	tph_kai_ranges_free(s);
	tph_free(s->idle);
	tph_free(s->releasing);
	tph_free(s->mig_idle);
	tph_free(s->mig_rel);
	tph_kai_gpu_free(s);
	tph_free(s->ops);
	tph_free(s->virt);
	tph_free(s->order_tmp);
	tph_free(s->job_sig);
	tph_free(s->job_gen);
	tph_free(s->turn_gen);
	tph_free(s->turn_n);
	tph_free(s->turn_tasks);
	tph_free(s->queue_gen);
	tph_free(s->task_rank);
	tph_free(s->job_ranked);
	tph_free(s->op_devs);
	tph_free(s->sg_order);
	tph_free(s->sg_alloc);
	tph_free(s->evictions.items);
	tph_free(s->binds.items);
	tph_free(s->pipelined.items);
	tph_free(s->times);
	tph_free(s);
}

uint64_t tph_kai_session_job_version(const tph_kai_session *s, uint32_t j)
{
	return s->naive ? 0 : s->job_gen[j];
}

const uint8_t *tph_kai_session_status(const tph_kai_session *s)
{
	return s->status;
}

const int32_t *tph_kai_session_node(const tph_kai_session *s)
{
	return s->node;
}

const tph_time *tph_kai_session_last_start(const tph_kai_session *s)
{
	return s->last_start;
}

const tph_time *tph_kai_session_stale_since(const tph_kai_session *s)
{
	return s->stale_since;
}

uint32_t tph_kai_session_evictions(const tph_kai_session *s, const tph_kai_decision **out)
{
	*out = s->evictions.items;
	return s->evictions.n;
}

uint32_t tph_kai_session_binds(const tph_kai_session *s, const tph_kai_decision **out)
{
	*out = s->binds.items;
	return s->binds.n;
}

uint32_t tph_kai_session_pipelined(const tph_kai_session *s, const tph_kai_decision **out)
{
	*out = s->pipelined.items;
	return s->pipelined.n;
}

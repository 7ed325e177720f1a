/* tdm: Volcano's tdm plugin (pkg/scheduler/plugins/tdm/tdm.go). Nodes labelled
 * volcano.sh/revocable-zone belong to a zone that is usable only inside its daily window
 * (`tdm.revocable-zone.<zone>: "HH:MM-HH:MM"`, read on the session clock in UTC); there they take
 * only tasks that may use revocable nodes, and score them MaxNodeScore. Preemptable tasks on
 * ordinary nodes are the only victims of preemption, within each job's disruption budget, and
 * once a zone's window closes its preemptable tasks are VictimTasks (at most every
 * `tdm.evict.period`). Preemptable jobs go last, are never starving, and pipeline by gang count. */
#include "tdm.h"

#include "tephra/alloc.h"
#include "tephra/topology.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define MAX_NODE_SCORE 100.0
#define NS_PER_MIN     60000000000LL

static const tph_arg_spec tdm_args[] = {
    {"tdm.revocable-zone.*", TPH_ARG_STRING, NULL, 0, 0, TPH_ARG_NOFIELD,
     "a zone's daily window, \"HH:MM-HH:MM\" (end not after start: until the next day)"},
    {"tdm.evict.period", TPH_ARG_STRING, NULL, 0, 0, offsetof(tdm_st, period),
     "a Go duration; the least time between two VictimTasks evictions (default 1m)"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* ---- predicate and node order (per node: columns only) ---- */

static bool all_plain(const tph_session *s, const tdm_st *g)
{
	for (uint32_t n = 0; n < tph_view_of(s)->nodes->n; n++)
		if (g->node_state[n] != TDM_NODE_PLAIN)
			return false;
	return true;
}

static void predicate(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, tph_reason_code *out)
{
	const tdm_st *g = st;
	(void)s;
	tph_reason_code open_code = g->task_rz[task] ? TPH_PASS : g->not_allowed;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t state = g->node_state[nodes[i]];
		out[i] = state == TDM_NODE_PLAIN  ? TPH_PASS
		         : state == TDM_NODE_OPEN ? open_code
		                                  : g->node_why[nodes[i]];
	}
}

/* MaxNodeScore on an open zone's node for a task that may use it, else 0. Volcano's nodeOrderFn
 * returns an error on a node whose zone is not open, which drops every node-order score of that
 * node; here tdm scores it 0 (such nodes fail tdm's predicate, so only a conf that enables the
 * score without the predicate sees the difference). */
static void node_order(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                       uint32_t n, double *out)
{
	const tdm_st *g = st;
	(void)s;
	double score = g->task_rz[task] ? MAX_NODE_SCORE : 0.0;
	for (uint32_t i = 0; i < n; i++)
		out[i] = g->node_state[nodes[i]] == TDM_NODE_OPEN ? score : 0.0;
}

/* A task without a zone scores 0 everywhere; one with a zone reads its annotation, which tasks
 * of one shape need not share. */
static int locality(void *st, const tph_session *s, tph_idx task)
{
	const tdm_st *g = st;
	(void)s;
	return !g->any_open || !g->task_rz[task] ? TPH_SCORE_LOCAL : TPH_SCORE_GLOBAL;
}

/* ---- victims ---- */

/* getMaxPodEvictNum: what the job's budget still allows, from its tasks as they stand. */
static int64_t max_evict(const tdm_st *g, const tph_session *s, tph_idx j)
{
	const tph_view *v = tph_view_of(s);
	const uint32_t *c = v->js->count + (size_t)j * TPH_TS_COUNT;
	int64_t running = c[TPH_TS_RUNNING],
	        total = v->jobs->task_off[j + 1] - v->jobs->task_off[j];
	int64_t b = g->budget[j];
	if (g->budget_kind[j] == TDM_BUDGET_MAX) {
		int64_t unavailable = total - c[TPH_TS_SUCCEEDED] - c[TPH_TS_FAILED] - running;
		return unavailable >= b ? 0 : b - unavailable;
	}
	if (g->budget_kind[j] == TDM_BUDGET_MIN && running >= b)
		return b < 0 && running > INT64_MAX + b ? INT64_MAX : running - b;
	return 1; /* defaultPodEvictNum, also under a min-available the job is below */
}

static void next_call(tdm_st *g, const tph_session *s)
{
	if (++g->call == 0) { /* wrapped: stamps from 2^32 calls ago would look current */
		memset(g->stamp, 0, sizeof *g->stamp * tph_view_of(s)->jobs->n);
		g->call = 1;
	}
}

/* maxVictims: the job's first victims in the order met, as many as its budget allows. */
static bool take(tdm_st *g, const tph_session *s, tph_idx j)
{
	if (g->stamp[j] != g->call) {
		g->stamp[j] = g->call;
		g->room[j] = max_evict(g, s, j);
	}
	return g->room[j] > 0 && g->room[j]-- > 0;
}

/* A Running preemptable task of a session job on a ready node: what both victim functions
 * start from. Returns its node, or TPH_NOIDX. */
static tph_idx victim_node(const tph_session *s, tph_idx t)
{
	const tph_view *v = tph_view_of(s);
	tph_idx n = v->tasks->node[t];
	if (!(v->tasks->flags[t] & TPH_TASK_PREEMPTABLE) || v->tasks->status[t] != TPH_TS_RUNNING ||
	    v->tasks->job[t] == TPH_NOIDX || n == TPH_NOIDX ||
	    !(v->nodes->flags[n] & TPH_NODE_READY))
		return TPH_NOIDX;
	return n;
}

/* preemptableFn: a preemptor that is preemptable or may use revocable nodes preempts nobody;
 * otherwise the victims are preemptable Running tasks on nodes without a zone, per job within
 * its budget, in candidate order (Volcano's order is the preempt action's map walk). */
static int preemptable(void *st, const tph_session *s, tph_idx preemptor, const tph_idx *cands,
                       uint32_t n, uint8_t *keep)
{
	tdm_st *g = st;
	const tph_view *v = tph_view_of(s);
	if ((v->tasks->flags[preemptor] & TPH_TASK_PREEMPTABLE) || g->task_rz[preemptor])
		return 1;
	next_call(g, s);
	for (uint32_t i = 0; i < n; i++) {
		tph_idx node = victim_node(s, cands[i]);
		if (node != TPH_NOIDX && g->node_state[node] == TDM_NODE_PLAIN)
			keep[i] = take(g, s, v->tasks->job[cands[i]]);
	}
	return 1;
}

/* victimsFn: once per evict period, the preemptable Running tasks on the nodes of every zone
 * that is not open, per zone and job within the job's budget. Like Volcano it ignores the tasks
 * it is given and walks the session's tasks (Volcano: each revocable node's, in map order;
 * here in snapshot order); it can only name those given (shuffle gives every Running task of
 * the session's jobs, which holds all of them). The last eviction time lives in the session:
 * each session starts as a freshly started scheduler does. */
static void victim_tasks(void *st, const tph_session *s, const tph_idx *tasks, uint32_t n,
                         uint8_t *victim)
{
	tdm_st *g = st;
	const tph_task_store *ts = tph_view_of(s)->tasks;
	if (g->evicted && g->period_ns > 0)
		return;
	g->evicted = true;
	memset(g->chosen, 0, ts->n);
	for (uint32_t z = 0; z < g->n_zone; z++) {
		if (g->zone[z].open)
			continue;
		next_call(g, s);
		for (tph_idx t = 0; t < ts->n; t++) {
			tph_idx node = victim_node(s, t);
			if (node != TPH_NOIDX && g->node_zone[node] == z && take(g, s, ts->job[t]))
				g->chosen[t] = 1;
		}
	}
	for (uint32_t k = 0; k < n; k++)
		victim[k] = g->chosen[tasks[k]];
}

/* ---- jobs ---- */

/* Jobs that are not preemptable first. */
static int job_order(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	const tdm_st *g = st;
	(void)s;
	return g->job_pre[a] == g->job_pre[b] ? 0 : (g->job_pre[a] ? 1 : -1);
}

/* JobInfo.IsPipelined: pipelined, ready and Pending best-effort tasks reach minMember. */
static int job_pipelined(void *st, const tph_session *s, tph_idx j)
{
	(void)st;
	const tph_view *v = tph_view_of(s);
	const uint32_t *c = v->js->count + (size_t)j * TPH_TS_COUNT;
	int64_t n = (int64_t)c[TPH_TS_PIPELINED] + c[TPH_TS_ALLOCATED] + c[TPH_TS_BINDING] +
	            c[TPH_TS_BOUND] + c[TPH_TS_RUNNING] + c[TPH_TS_SUCCEEDED];
	tph_idx first;
	uint32_t k = tph_job_subjobs(s, j, &first);
	for (uint32_t i = 0; i < k; i++)
		n += tph_subjobs_of(s)->be_pending[first + i];
	return n >= v->jobs->min_member[j] ? TPH_PERMIT : TPH_REJECT;
}

/* A preemptable job never starves; any other does while it has Pending tasks. */
static bool job_starving(void *st, const tph_session *s, tph_idx j)
{
	const tdm_st *g = st;
	return !g->job_pre[j] &&
	       tph_view_of(s)->js->count[(size_t)j * TPH_TS_COUNT + TPH_TS_PENDING] > 0;
}

/* ---- open ---- */

typedef struct tdm_keys {
	tph_sid rz, pre, star, jdb_min, jdb_max;
	tph_sid yes[6]; /* strconv.ParseBool's true spellings */
} tdm_keys;

static void keys_init(tph_session *s, tdm_keys *k)
{
	static const char *const yes[6] = {"1", "t", "T", "TRUE", "true", "True"};
	k->rz = tph_session_sid(s, "volcano.sh/revocable-zone", 25);
	k->pre = tph_session_sid(s, "volcano.sh/preemptable", 22);
	k->star = tph_session_sid(s, "*", 1);
	k->jdb_min = tph_session_sid(s, "volcano.sh/jdb-min-available", 28);
	k->jdb_max = tph_session_sid(s, "volcano.sh/jdb-max-unavailable", 30);
	for (int i = 0; i < 6; i++)
		k->yes[i] = tph_session_sid(s, yes[i], strlen(yes[i]));
}

static tph_sid get(tph_labels l, tph_sid key)
{
	return key == TPH_SID_NONE ? TPH_SID_NONE : tph_labels_get(l, key);
}

static bool is_true(const tdm_keys *k, tph_sid v)
{
	for (int i = 0; v != TPH_SID_NONE && i < 6; i++)
		if (k->yes[i] == v)
			return true;
	return false;
}

/* GetPodRevocableZone: the annotation volcano.sh/revocable-zone when present ("*" or nothing),
 * else "*" when the annotation volcano.sh/preemptable parses as true. */
static bool task_rz(const tdm_keys *k, const tph_pod_meta *m)
{
	if (!m)
		return false;
	tph_sid v = get(m->annotations, k->rz);
	if (v != TPH_SID_NONE)
		return v == k->star;
	return is_true(k, get(m->annotations, k->pre));
}

/* tdm's parseIntStr: intstr.Parse (an int32, else a string), then GetValueFromIntOrPercent,
 * which drops every '%', reads the rest with Atoi as a percentage of `total` rounded up; 0
 * with a warning when that fails. */
static int64_t int_or_percent(tph_session *s, const char *text, int64_t total)
{
	int64_t v = 0;
	if (tph_parse_int(text, 32, &v))
		return v;
	size_t len = strlen(text), n = 0;
	char *digits = tph_malloc(len + 1);
	if (!digits)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] != '%')
			digits[n++] = text[i];
	digits[n] = 0;
	bool ok = tph_parse_int(digits, 64, &v);
	tph_free(digits);
	if (!ok) {
		tph_session_warn(s, "tdm: invalid budget \"%s\"; taken as 0", text);
		return 0;
	}
	double x = ceil((double)v * (double)total / 100);
	return x >= -0x1p63 && x < 0x1p63 ? (int64_t)x : INT64_MIN; /* Go's int() on amd64 */
}

/* extractPreemptable (annotation; podgroups have no labels here) and extractBudget. */
static void job_open(tph_session *s, tdm_st *g, const tdm_keys *k, tph_idx j)
{
	const tph_job_store *js = tph_view_of(s)->jobs;
	const tph_job_meta *m = js->meta ? js->meta[j] : NULL;
	if (!m)
		return;
	g->job_pre[j] = is_true(k, get(m->annotations, k->pre));
	tph_sid min = get(m->annotations, k->jdb_min), max = get(m->annotations, k->jdb_max);
	tph_sid v = min != TPH_SID_NONE ? min : max;
	if (v == TPH_SID_NONE || v == TPH_SID_EMPTY)
		return;
	g->budget_kind[j] = min != TPH_SID_NONE ? TDM_BUDGET_MIN : TDM_BUDGET_MAX;
	g->budget[j] =
	    int_or_percent(s, tph_session_str(s, v), js->task_off[j + 1] - js->task_off[j]);
}

static int tasks_jobs_open(tph_session *s, tdm_st *g)
{
	const tph_view *v = tph_view_of(s);
	uint32_t nj = v->jobs->n + 1;
	g->task_rz = TPH_SESSION_NEW(s, uint8_t, v->tasks->n + 1);
	g->chosen = TPH_SESSION_NEW(s, uint8_t, v->tasks->n + 1);
	g->job_pre = TPH_SESSION_NEW(s, uint8_t, nj);
	g->budget_kind = TPH_SESSION_NEW(s, uint8_t, nj);
	g->budget = TPH_SESSION_NEW(s, int64_t, nj);
	g->stamp = TPH_SESSION_NEW(s, uint32_t, nj);
	g->room = TPH_SESSION_NEW(s, int64_t, nj);
	if (!g->task_rz || !g->chosen || !g->job_pre || !g->budget_kind || !g->budget ||
	    !g->stamp || !g->room)
		return TPH_ENOMEM;
	tdm_keys k;
	keys_init(s, &k);
	for (tph_idx t = 0; t < v->tasks->n; t++)
		g->task_rz[t] = task_rz(&k, v->tasks->meta ? v->tasks->meta[t] : NULL);
	for (tph_idx j = 0; j < v->jobs->n; j++)
		job_open(s, g, &k, j);
	return TPH_OK;
}

static int tdm_open(tph_session *s, void *st, const tph_args *args)
{
	tdm_st *g = st;
	g->period_ns = NS_PER_MIN;
	const char *why = NULL;
	int64_t ns = 0;
	if (g->period && tph_parse_duration(g->period, strlen(g->period), &ns, &why) == TPH_OK)
		g->period_ns = ns;
	else if (g->period)
		tph_session_warn(s, "tdm: invalid tdm.evict.period \"%s\" (%s); 1m", g->period,
		                 why);
	g->not_allowed = tph_reason(s, "not allow to dispatch to revocable node", true);
	int rc = g->not_allowed == TPH_REASON_INVALID ? TPH_ENOMEM : tdm_zones_open(s, g, args);
	if (!rc)
		rc = tdm_nodes_open(s, g);
	if (!rc)
		rc = tasks_jobs_open(s, g);
	if (!rc)
		rc = tph_on_predicate(s, predicate);
	if (!rc) /* without revocable nodes every verdict passes; with them it reads annotations */
		rc = tph_declare_predicate_locality(s, all_plain(s, g) ? TPH_PRED_SPEC
		                                                       : TPH_PRED_GLOBAL);
	if (!rc)
		rc = tph_on_node_order(s, node_order);
	if (!rc)
		rc = tph_on_score_locality(s, locality, NULL);
	if (!rc)
		rc = tph_on_preemptable(s, preemptable);
	if (!rc)
		rc = tph_on_victim_tasks(s, victim_tasks);
	if (!rc)
		rc = tph_on_job_order(s, job_order);
	if (!rc)
		rc = tph_on_job_pipelined(s, job_pipelined);
	if (!rc)
		rc = tph_on_job_starving(s, job_starving);
	return rc;
}

const tph_plugin tph_plugin_tdm = {
    .abi = TPH_PLUGIN_ABI,
    .name = "tdm",
    .args = tdm_args,
    .state_size = sizeof(tdm_st),
    .on_session_open = tdm_open,
};

/* usage: Volcano's usage plugin (pkg/scheduler/plugins/usage). Nodes report their average CPU
 * and memory utilisation; while that report is fresh (at most 5 minutes old on the session
 * clock) a node above the cpu or mem threshold takes no task, and nodes score by how much room
 * they have left after the load that their reports cannot show yet: the ShadowLoadCache, an
 * estimate (the estimator section) of every task placed on the node that the metrics have not
 * caught up with (allocated or bound ones, and running pods, which carry no start time here),
 * inflated by a risk factor once the node's composite load reaches a threshold.
 *
 * The verdicts are fixed at open and the scores change only when a task lands on or leaves the
 * node (event handlers), so both callbacks read one column each. Volcano reads the measured
 * averages of the period "10m" only (NODE_METRICS_PERIOD, the one its cache fills); a scenario
 * usage with another period reads as 0 there, as the map lookup would, and one without a period
 * stands for the cache's. */
#include "tephra/plugin.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define METRICS_ACTIVE_MS (5 * 60 * 1000LL) /* MetricsActiveTime */
#define METRICS_PERIOD_S  600               /* source.NODE_METRICS_PERIOD, "10m" */
#define MAX_NODE_SCORE    100.0             /* fwk.MaxNodeScore */
#define SNAP_NONE         UINT32_MAX
#define SNAP_RISK         0x80000000u /* the estimate was inflated by the risk factor */

typedef struct us_st {
	int64_t weight, cpu_w, mem_w; /* usage.weight, cpu.weight, memory.weight */
	double cpu_th, mem_th;        /* thresholds: cpu, mem (percent) */
	double req_ratio, burst_ratio, risk_th, risk_factor; /* estimator */
	double be_cpu, be_mem;                               /* millicores, bytes */
	tph_reason_code r_cpu, r_mem;
	tph_reason_code *reason;                         /* [node]: the predicate's verdict */
	uint8_t *fresh;                                  /* [node]: metrics at most 5 minutes old */
	double *real_cpu, *real_mem, *cap_cpu, *cap_mem; /* [node] */
	/* The ShadowLoadCache (session thread: event handlers): estimated millicores and bytes per
	 * node, the score they give, and per task the node and risk of the estimate it holds. */
	double *est_cpu, *est_mem, *score;
	uint32_t *snap;
} us_st;

#define OFF(f) offsetof(us_st, f)
static const tph_arg_spec us_args[] = {
    {"usage.weight", TPH_ARG_INT, "5", 0, 9.2e18, OFF(weight), "the plugin's score weight"},
    {"cpu.weight", TPH_ARG_INT, "1", 0, 9.2e18, OFF(cpu_w), "cpu's weight in the score"},
    {"memory.weight", TPH_ARG_INT, "1", 0, 9.2e18, OFF(mem_w), "memory's weight in the score"},
    {"thresholds", TPH_ARG_MAP, NULL, 0, 0, TPH_ARG_NOFIELD,
     "{cpu: percent, mem: percent}: a fresh node above either takes no task (default 80)"},
    {"estimator", TPH_ARG_MAP, NULL, 0, 0, TPH_ARG_NOFIELD,
     "request_ratio, burst_ratio, risk_threshold, risk_factor, be_cpu, be_mem"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* ---- arguments: parseThresholdArgs, parseEstimatorArgs ---- */

/* getUsageSectionArgs: a mapping, else nothing. */
static const tph_args *section(const tph_args *args, const char *key)
{
	return tph_args_type(args, key) == TPH_ARG_MAP ? tph_args_child(args, key) : NULL;
}

/* An integer percentage, kept only within [0, 100]. */
static void threshold(tph_session *s, const tph_args *sec, const char *key, double *out)
{
	int64_t v;
	if (tph_args_int(sec, key, &v) != TPH_OK)
		return;
	if (v >= 0 && v <= 100)
		*out = (double)v;
	else
		tph_session_warn(s,
		                 "plugin usage: argument thresholds.%s: %lld is outside [0, 100];"
		                 " using %g",
		                 key, (long long)v, *out);
}

/* A GetFloat64 value kept only within [lo, hi]. */
static void ratio(const tph_args *sec, const char *key, double lo, double hi, double *out)
{
	double v = *out;
	tph_args_float(sec, key, &v);
	if (v >= lo && v <= hi)
		*out = v;
}

/* parseBestEffortCPU / parseBestEffortMemory: an int counts millicores (be_cpu) or MiB
 * (be_mem); a string is a quantity; anything else, or a negative or bad value, the default. */
static void best_effort(const tph_args *sec, const char *key, bool mem, double *out)
{
	int type = tph_args_type(sec, key);
	int64_t v;
	const char *text = NULL;
	if (type == TPH_ARG_INT && tph_args_int(sec, key, &v) == TPH_OK && v >= 0)
		*out = mem ? (double)v * 1024 * 1024 : (double)v;
	else if (type == TPH_ARG_STRING && tph_args_string(sec, key, &text) == TPH_OK &&
	         tph_quantity_parse(text, strlen(text), mem ? TPH_UNIT_BYTES : TPH_UNIT_MILLI, &v,
	                            NULL) == TPH_OK)
		*out = (double)v;
}

static void read_sections(tph_session *s, us_st *st, const tph_args *args)
{
	st->cpu_th = st->mem_th = 80;
	st->req_ratio = 0.7, st->burst_ratio = 0, st->risk_th = 0.6, st->risk_factor = 1.2;
	st->be_cpu = 250, st->be_mem = 200.0 * 1024 * 1024;
	const tph_args *th = section(args, "thresholds"), *est = section(args, "estimator");
	if (th) {
		threshold(s, th, "cpu", &st->cpu_th);
		threshold(s, th, "mem", &st->mem_th);
	}
	if (est) {
		ratio(est, "request_ratio", 0, 1, &st->req_ratio);
		ratio(est, "burst_ratio", 0, 1, &st->burst_ratio);
		ratio(est, "risk_threshold", 0, 1, &st->risk_th);
		ratio(est, "risk_factor", 1, INFINITY, &st->risk_factor);
		best_effort(est, "be_cpu", false, &st->be_cpu);
		best_effort(est, "be_mem", true, &st->be_mem);
	}
}

/* ---- the estimator (estimator.go), in Volcano's order of operations ---- */

/* CalcCompositeUtilization: measured plus shadow load over capacity, within [0, 1]. */
static double composite(double real_pct, double est, double cap)
{
	if (cap <= 0)
		return 0;
	double c = (real_pct / 100.0 * cap + est) / cap;
	return c > 1.0 ? 1.0 : c < 0 ? 0 : c;
}

/* calcNodeScore with CalcNodeScore. */
static double node_score(const us_st *st, uint32_t i)
{
	double cc = composite(st->real_cpu[i], st->est_cpu[i], st->cap_cpu[i]);
	double mc = composite(st->real_mem[i], st->est_mem[i], st->cap_mem[i]);
	int64_t total = st->cpu_w + st->mem_w;
	if (!total)
		return 0;
	double score =
	    ((1.0 - cc) * (double)st->cpu_w + (1.0 - mc) * (double)st->mem_w) / (double)total;
	return score * MAX_NODE_SCORE * (double)st->weight;
}

/* calcAppliedRiskFactor: whether the node's composite load has reached risk_threshold. */
static bool risky(const us_st *st, uint32_t i)
{
	if (st->risk_factor < 1.0)
		return false;
	double cc = composite(st->real_cpu[i], st->est_cpu[i], st->cap_cpu[i]);
	double mc = composite(st->real_mem[i], st->est_mem[i], st->cap_mem[i]);
	int64_t total = st->cpu_w + st->mem_w;
	double load = total ? (cc * (double)st->cpu_w + mc * (double)st->mem_w) / (double)total : 0;
	return load >= st->risk_th;
}

/* EstimatePodResource: request * request_ratio + burst * burst_ratio, times the risk, within
 * [0, effective limit]. Pods carry no limits here: the limit is the request, the burst 0. */
static double estimate(const us_st *st, double request, double limit, double risk)
{
	if (request < 0)
		request = 0;
	double eff = limit <= 0 || limit < request ? request : limit;
	double burst = eff - request;
	if (burst < 0)
		burst = 0;
	double e = (request * st->req_ratio + burst * st->burst_ratio) * risk;
	return e < 0 ? 0 : e > eff ? eff : e;
}

/* estimateTaskResource: best-effort tasks count the configured be_cpu / be_mem. */
static void task_estimate(const us_st *st, const tph_session *s, tph_idx t, bool risk, double *cpu,
                          double *mem)
{
	const tph_view *v = tph_view_of(s);
	double r = risk ? st->risk_factor : 1.0;
	if (v->tasks->flags[t] & TPH_TASK_BEST_EFFORT) {
		*cpu = st->be_cpu * r;
		*mem = st->be_mem * r;
		return;
	}
	const int64_t *req = v->tasks->req + (size_t)t * v->ndim;
	*cpu = estimate(st, (double)req[TPH_RES_CPU], 0, r);
	*mem = estimate(st, (double)req[TPH_RES_MEMORY], 0, r);
}

/* ---- the shadow cache ---- */

static void refresh(us_st *st, uint32_t i)
{
	st->score[i] = st->fresh[i] ? node_score(st, i) : 0;
}

/* SubEstimateBySnapshot: the estimate the task added, recomputed from its recorded risk. */
static void shadow_sub(us_st *st, const tph_session *s, tph_idx t)
{
	uint32_t i = st->snap[t] & ~SNAP_RISK;
	double cpu, mem;
	task_estimate(st, s, t, st->snap[t] & SNAP_RISK, &cpu, &mem);
	st->est_cpu[i] -= cpu;
	if (st->est_cpu[i] < 0)
		st->est_cpu[i] = 0;
	st->est_mem[i] -= mem;
	if (st->est_mem[i] < 0)
		st->est_mem[i] = 0;
	st->snap[t] = SNAP_NONE;
	refresh(st, i);
}

/* handleAllocate: the risk is read before AddEstimate drops the task's earlier estimate. */
static void shadow_add(us_st *st, const tph_session *s, tph_idx t, tph_idx node)
{
	bool risk = risky(st, node);
	double cpu, mem;
	task_estimate(st, s, t, risk, &cpu, &mem);
	if (st->snap[t] != SNAP_NONE)
		shadow_sub(st, s, t);
	st->est_cpu[node] += cpu;
	st->est_mem[node] += mem;
	st->snap[t] = node | (risk ? SNAP_RISK : 0);
	refresh(st, node);
}

static bool in_session(const tph_session *s, tph_idx node)
{
	return node != TPH_NOIDX && (tph_view_of(s)->nodes->flags[node] & TPH_NODE_READY);
}

static int on_allocate(void *stv, tph_session *s, tph_idx t)
{
	tph_idx node = tph_view_of(s)->tasks->node[t];
	if (in_session(s, node))
		shadow_add(stv, s, t, node);
	return TPH_OK;
}

static int on_deallocate(void *stv, tph_session *s, tph_idx t)
{
	us_st *st = stv;
	if (st->snap[t] != SNAP_NONE)
		shadow_sub(st, s, t);
	return TPH_OK;
}

/* warmUpShadowCache: tasks on the session's nodes that hold resources (shouldAddToShadowCache;
 * a running pod without a start time counts). Volcano walks each node's tasks in map order;
 * here in snapshot order, which only matters when the risk threshold is crossed midway. */
static void warm_up(us_st *st, tph_session *s)
{
	const tph_task_store *ts = tph_view_of(s)->tasks;
	for (tph_idx t = 0; t < ts->n; t++)
		if (tph_ts_allocated(ts->status[t]) && in_session(s, ts->node[t]))
			shadow_add(st, s, t, ts->node[t]);
}

/* ---- open ---- */

static int alloc_nodes(tph_session *s, us_st *st, uint32_t n)
{
	st->reason = TPH_SESSION_NEW(s, tph_reason_code, n);
	st->fresh = TPH_SESSION_NEW(s, uint8_t, n);
	double **cols[] = {&st->real_cpu, &st->real_mem, &st->cap_cpu, &st->cap_mem,
	                   &st->est_cpu,  &st->est_mem,  &st->score};
	for (size_t k = 0; k < sizeof cols / sizeof *cols; k++)
		if (!(*cols[k] = TPH_SESSION_NEW(s, double, n)))
			return TPH_ENOMEM;
	return st->reason && st->fresh ? TPH_OK : TPH_ENOMEM;
}

/* The node's report as the predicate and the score read it. */
static void read_node(us_st *st, const tph_view *v, uint32_t i)
{
	const tph_node_usage *u = &v->nodes->meta[i]->usage;
	tph_time at = !u->present       ? TPH_GO_ZERO_TIME_MS
	              : u->metrics_time ? u->metrics_time
	                                : v->now;
	bool period = u->present && (u->period_s == METRICS_PERIOD_S || u->period_s == 0);
	st->fresh[i] = v->now - at <= METRICS_ACTIVE_MS;
	st->real_cpu[i] = period ? u->cpu_pct : 0;
	st->real_mem[i] = period ? u->mem_pct : 0;
	st->cap_cpu[i] = (double)v->nodes->capacity[(size_t)TPH_RES_CPU * v->nodes->stride + i];
	st->cap_mem[i] = (double)v->nodes->capacity[(size_t)TPH_RES_MEMORY * v->nodes->stride + i];
	st->reason[i] = !st->fresh[i]                  ? TPH_PASS
	                : st->real_cpu[i] > st->cpu_th ? st->r_cpu
	                : st->real_mem[i] > st->mem_th ? st->r_mem
	                                               : TPH_PASS;
}

static void predicate(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, tph_reason_code *out)
{
	const us_st *st = stv;
	(void)s, (void)task;
	for (uint32_t i = 0; i < n; i++)
		out[i] = st->reason[nodes[i]];
}

static void score(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                  double *out)
{
	const us_st *st = stv;
	(void)s, (void)task;
	for (uint32_t i = 0; i < n; i++)
		out[i] = st->score[nodes[i]];
}

/* The score reads the node's report and its shadow load, which only a placement on it changes. */
static int locality(void *st, const tph_session *s, tph_idx task)
{
	(void)st, (void)s, (void)task;
	return TPH_SCORE_LOCAL;
}

static int us_open(tph_session *s, void *stv, const tph_args *args)
{
	us_st *st = stv;
	const tph_view *v = tph_view_of(s);
	read_sections(s, st, args);
	st->r_cpu = tph_reason(s, "the CPU load of the node exceeds the upper limit.", true);
	st->r_mem = tph_reason(s, "the memory load of the node exceeds the upper limit.", true);
	if (st->r_cpu == TPH_REASON_INVALID || st->r_mem == TPH_REASON_INVALID)
		return TPH_ENOMEM;
	if (v->nodes->n >= SNAP_RISK)
		return TPH_ERANGE;
	int rc = alloc_nodes(s, st, v->nodes->n + 1);
	if (rc)
		return rc;
	for (uint32_t i = 0; i < v->nodes->n; i++)
		read_node(st, v, i);
	rc = tph_on_predicate(s, predicate);
	if (!rc) /* verdicts are fixed at open and read nothing of the task */
		rc = tph_declare_predicate_locality(s, TPH_PRED_SPEC);
	/* The shadow cache feeds the score alone. */
	if (rc || tph_plugin_flag(s, TPH_FLAG_NODE_ORDER) <= 0)
		return rc;
	if (!(st->snap = TPH_SESSION_NEW(s, uint32_t, v->tasks->n + 1)))
		return TPH_ENOMEM;
	memset(st->snap, 0xff, (v->tasks->n + 1) * sizeof *st->snap);
	for (uint32_t i = 0; i < v->nodes->n; i++)
		refresh(st, i);
	warm_up(st, s);
	rc = tph_on_task_events(s, on_allocate, on_deallocate);
	if (!rc)
		rc = tph_on_node_order(s, score);
	if (!rc)
		rc = tph_on_score_locality(s, locality, NULL);
	return rc;
}

const tph_plugin tph_plugin_usage = {
    .abi = TPH_PLUGIN_ABI,
    .name = "usage",
    .args = us_args,
    .state_size = sizeof(us_st),
    .on_session_open = us_open,
};

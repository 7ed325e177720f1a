/* lowNodeUtilization (low_node_utilization.go, node_utilization_util.go): nodes are grouped by
 * their measured utilisation; when some are low, some high and not all low, pods leave the
 * high nodes, most used first, each node's pods in eviction order (no priority first, then low
 * priority, then BestEffort before Burstable before Guaranteed), while the node stays at or
 * above a target threshold and the low nodes' room (target less current use) is not exactly
 * used up. A pod counts as a victim through the first given task of its name, and takes that
 * task's requests off the room and off its node's utilisation.
 *
 * Where Volcano's order comes from a map walk or a sort.Slice whose comparator is no strict
 * order (nodes and pods), ties go to snapshot order. */
#include "rescheduling.h"

#include "lib/qos.h"
#include "tephra/alloc.h"

#include <stdlib.h>
#include <string.h>

/* source.NODE_METRICS_PERIOD, "10m": a node usage without a period is the cache's. */
#define CACHE_PERIOD_S 600

/* resource.Quantity.AsApproximateFloat64 of a cpu amount in millicores: whole cores read as
 * written, other amounts as millicores times math.Pow10(-3). */
static double cores(int64_t milli)
{
	return milli % 1000 == 0 ? (double)(milli / 1000) : (double)milli * 0.001;
}

/* convertPercentToQuan: int64(percent * capacity * 0.01), truncated. */
static int64_t of_percent(double pct, int64_t cap)
{
	return (int64_t)(pct * (double)cap * 0.01);
}

static int cmp_high(const void *a, const void *b, void *ctx)
{
	const rs_st *g = ctx;
	tph_idx x = *(const tph_idx *)a, y = *(const tph_idx *)b;
	double sx = g->cpu[x] + g->mem[x], sy = g->cpu[y] + g->mem[y];
	return sx > sy ? -1 : sx < sy ? 1 : (x > y) - (x < y);
}

/* getNodeCapacity: allocatable, or capacity when the node lists no allocatable resource (here:
 * when every allocatable value is 0). */
static int64_t node_cap(const tph_node_store *ns, uint32_t ndim, tph_idx n, uint32_t d)
{
	bool any = false;
	for (uint32_t k = 0; k < ndim && !any; k++)
		any = ns->alloc[(size_t)k * ns->stride + n] != 0;
	return (any ? ns->alloc : ns->capacity)[(size_t)d * ns->stride + n];
}

/* getNodeUtilization and groupNodesByUtilization over the session's nodes, and the low nodes'
 * room; fixed for the session since the usage reports are. */
static int classify(tph_session *s, rs_st *g, int64_t period_s, bool period_ok)
{
	const tph_view *v = tph_view_of(s);
	const tph_node_store *ns = v->nodes;
	g->kind = TPH_SESSION_NEW(s, uint8_t, ns->n + 1);
	g->cpu = TPH_SESSION_NEW(s, double, ns->n + 1);
	g->mem = TPH_SESSION_NEW(s, double, ns->n + 1);
	g->high = TPH_SESSION_NEW(s, tph_idx, v->n_ready + 1);
	if (!g->kind || !g->cpu || !g->mem || !g->high)
		return TPH_ENOMEM;
	for (uint32_t r = 0; r < v->n_ready; r++) {
		tph_idx n = v->ready_nodes[r];
		const tph_node_usage *u = ns->meta && ns->meta[n] ? &ns->meta[n]->usage : NULL;
		int64_t p = u && u->period_s ? u->period_s : CACHE_PERIOD_S;
		if (u && u->present && period_ok && p == period_s) {
			g->cpu[n] = u->cpu_pct;
			g->mem[n] = u->mem_pct;
		}
		if (!(ns->flags[n] & TPH_NODE_UNSCHEDULABLE) && g->cpu[n] < g->low_cpu &&
		    g->mem[n] < g->low_mem) {
			g->kind[n] = LNU_LOW;
			g->n_low++;
			int64_t cpu = node_cap(ns, v->ndim, n, TPH_RES_CPU);
			int64_t mem = node_cap(ns, v->ndim, n, TPH_RES_MEMORY);
			g->room_cpu += of_percent(g->target_cpu, cpu) - of_percent(g->cpu[n], cpu);
			g->room_mem += of_percent(g->target_mem, mem) - of_percent(g->mem[n], mem);
		} else if (g->cpu[n] > g->target_cpu || g->mem[n] > g->target_mem) {
			g->kind[n] = LNU_HIGH;
			g->high[g->n_high++] = n;
		}
	}
	qsort_r(g->high, g->n_high, sizeof *g->high, cmp_high, g);
	return TPH_OK;
}

int lnu_open(tph_session *s, rs_st *g, int64_t period_s, bool period_ok)
{
	const tph_view *v = tph_view_of(s);
	int rc = classify(s, g, period_s, period_ok);
	if (rc)
		return rc;
	g->qk = qos_keys_of(s);
	g->off = TPH_SESSION_NEW(s, uint32_t, v->nodes->n + 2);
	g->pods = TPH_SESSION_NEW(s, lnu_pod, v->tasks->n + 1);
	g->names = TPH_SESSION_NEW(s, uint64_t, v->tasks->n + 1);
	return g->off && g->pods && g->names ? TPH_OK : TPH_ENOMEM;
}

/* ---- VictimTasks ---- */

static int cmp_pod(const void *a, const void *b)
{
	const lnu_pod *x = a, *y = b;
	if (x->has_prio != y->has_prio)
		return x->has_prio - y->has_prio;
	if (x->has_prio && x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	if (x->qos != y->qos)
		return x->qos - y->qos;
	return (x->task > y->task) - (x->task < y->task);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* NodeInfo.Pods() of the high nodes as the session holds them (every task placed there and not
 * finished), sorted by sortPods, in g->pods by g->off. */
static void high_pods(rs_st *g, const tph_view *v)
{
	const tph_task_store *ts = v->tasks;
	uint32_t *off = g->off;
	memset(off, 0, (v->nodes->n + 2) * sizeof *off);
	for (tph_idx t = 0; t < ts->n; t++) {
		tph_idx n = ts->node[t];
		uint8_t st = ts->status[t];
		if (n != TPH_NOIDX && g->kind[n] == LNU_HIGH && st != TPH_TS_PENDING &&
		    st != TPH_TS_SUCCEEDED && st != TPH_TS_FAILED)
			off[n + 2]++;
	}
	for (uint32_t n = 0; n < v->nodes->n; n++)
		off[n + 2] += off[n + 1];
	for (tph_idx t = 0; t < ts->n; t++) {
		tph_idx n = ts->node[t];
		uint8_t st = ts->status[t];
		if (n == TPH_NOIDX || g->kind[n] != LNU_HIGH || st == TPH_TS_PENDING ||
		    st == TPH_TS_SUCCEEDED || st == TPH_TS_FAILED)
			continue;
		g->pods[off[n + 1]++] = (lnu_pod){!(ts->flags[t] & TPH_TASK_PRIORITY_NIL),
		                                  (uint8_t)qos_of(v, g->qk, t), ts->priority[t], t};
	}
	for (uint32_t r = 0; r < g->n_high; r++) {
		tph_idx n = g->high[r];
		qsort(g->pods + off[n], off[n + 1] - off[n], sizeof *g->pods, cmp_pod);
	}
}

/* The position of the first candidate named `name`, or UINT32_MAX. */
static uint32_t first_named(const uint64_t *names, uint32_t n, tph_sid name)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (names[mid] >> 32 < name)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && names[lo] >> 32 == name ? (uint32_t)names[lo] : UINT32_MAX;
}

typedef struct lnu_call {
	int64_t room_cpu, room_mem;
	double cpu, mem; /* the node's utilisation as victims leave it */
} lnu_call;

/* isContinueEvictPods: the node is at or above a target threshold and neither room is 0. */
static bool go_on(const rs_st *g, const lnu_call *c)
{
	return (c->cpu >= g->target_cpu || c->mem >= g->target_mem) && c->room_cpu != 0 &&
	       c->room_mem != 0;
}

/* evict: the node's pods in order while go_on holds. */
static void evict_node(const rs_st *g, const tph_view *v, tph_idx n, lnu_call *c,
                       const uint64_t *names, uint32_t nc, const tph_idx *tasks, uint8_t *victim)
{
	const tph_node_store *ns = v->nodes;
	double cap_cpu = cores(ns->capacity[(size_t)TPH_RES_CPU * ns->stride + n]);
	double cap_mem = (double)ns->capacity[(size_t)TPH_RES_MEMORY * ns->stride + n];
	c->cpu = g->cpu[n];
	c->mem = g->mem[n];
	for (uint32_t k = g->off[n]; k < g->off[n + 1] && go_on(g, c); k++) {
		uint32_t at = first_named(names, nc, v->tasks->name[g->pods[k].task]);
		if (at == UINT32_MAX)
			continue;
		const int64_t *req = v->tasks->req + (size_t)tasks[at] * v->ndim;
		c->room_cpu -= req[TPH_RES_CPU];
		c->room_mem -= req[TPH_RES_MEMORY];
		c->cpu -= (double)req[TPH_RES_CPU] * 0.001 * 100 / cap_cpu;
		c->mem -= (double)req[TPH_RES_MEMORY] * 100 / cap_mem;
		victim[at] = 1;
	}
}

void lnu_victims(void *st, const tph_session *s, const tph_idx *tasks, uint32_t n, uint8_t *victim)
{
	rs_st *g = st;
	const tph_view *v = tph_view_of(s);
	if (!g->n_low || g->n_low == v->n_ready || !g->n_high || !n)
		return;
	uint64_t *names = n <= v->tasks->n ? g->names : tph_malloc(n * sizeof *names);
	if (!names) {
		tph_session_warn((tph_session *)s, "rescheduling: out of memory; no victims");
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		names[i] = (uint64_t)v->tasks->name[tasks[i]] << 32 | i;
	qsort(names, n, sizeof *names, cmp_u64);
	high_pods(g, v);
	lnu_call c = {g->room_cpu, g->room_mem, 0, 0};
	for (uint32_t r = 0; r < g->n_high; r++)
		evict_node(g, v, g->high[r], &c, names, n, tasks, victim);
	if (names != g->names)
		tph_free(names);
}

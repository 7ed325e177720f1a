/* Figures the actions read off the ledger over and over, kept as it changes (kai_ledger.c notes
 * every node it touches). The least and the most free amount (idle plus releasing) of each
 * resource over the pool's nodes that have it, so nodeplacement's NodePreOrder reads its range
 * in O(1) instead of a pass over the pool per placed task: each extreme carries how many nodes
 * hold it; only when the last one moves inwards is the range stale, and the next ask rescans.
 * And each node's free GPUs with its shared devices' parts (the solver's idle-GPU filter asks
 * every node per accumulated victim), recomputed only for a node the ledger touched. And the
 * touch log, by which the placement walk knows which of its kept verdicts are stale. The same
 * range is kept over the solver's scenario nodes (tph_kai_ranges_subset), which it re-places
 * pods on task after task. */
#include "kai_int.h"

#include "base/mem.h"

#include <assert.h>
#include <math.h>
#include <string.h>

typedef struct kai_range {
	double min, max;
	uint32_t n_min, n_max;
	bool stale;
} kai_range;

struct tph_kai_ranges {
	double *free_at; /* [node * TPH_KAI_DIMS + dim] as last noted */
	uint32_t *pool;  /* the in-pool nodes, index order */
	uint32_t n_pool;
	kai_range r[TPH_KAI_DIMS];
	const uint32_t *sub_at; /* the declared subset as its owner passes it (NULL: none) */
	uint32_t *sub, n_sub;   /* its nodes */
	uint8_t *in_sub;        /* [node] */
	uint32_t sub_gen;       /* grows at each declaration (tph_kai_ranges_set) */
	kai_range rs[TPH_KAI_DIMS];
	double *free_gpus; /* [node] tph_kai_free_gpus, valid where gpus_ok[node] */
	uint8_t *gpus_ok;
	uint32_t *log, *last; /* tph_kai_touches; the log restarts when full */
	uint32_t n_log, cap_log, log_gen;
	bool log_read;      /* its length was read: a touch of the latest node is news */
	unsigned dims_read; /* bit d: tph_kai_session_free_range gave dim d (tph_kai_ranges_read) */
};

static double allocatable(const tph_kai_view *v, uint32_t n, int dim)
{
	if (dim == TPH_KAI_GPU)
		return v->nodes.gpus[n];
	return dim == TPH_KAI_CPU ? (double)v->nodes.cpu_milli[n] : (double)v->nodes.memory[n];
}

int tph_kai_ranges_build(tph_kai_session *s)
{
	const tph_kai_view *v = s->v;
	size_t nn = (size_t)v->nodes.n;
	tph_kai_ranges *g = tph_calloc(1, sizeof *g);
	if (!g)
		return TPH_ENOMEM;
	s->ranges = g;
	g->free_at = tph_malloc((nn * TPH_KAI_DIMS + 1) * sizeof *g->free_at);
	g->pool = tph_malloc((nn + 1) * sizeof *g->pool);
	g->sub = tph_malloc((nn + 1) * sizeof *g->sub);
	g->in_sub = tph_calloc(nn + 1, 1);
	g->free_gpus = tph_malloc((nn + 1) * sizeof *g->free_gpus);
	g->gpus_ok = tph_calloc(nn + 1, 1);
	g->cap_log = 16 * (uint32_t)nn + 1024;
	g->log = tph_malloc(g->cap_log * sizeof *g->log);
	g->last = tph_calloc(nn + 1, sizeof *g->last);
	if (!g->free_at || !g->pool || !g->sub || !g->in_sub || !g->free_gpus || !g->gpus_ok ||
	    !g->log || !g->last)
		return TPH_ENOMEM;
	for (size_t i = 0; i < nn * TPH_KAI_DIMS; i++)
		g->free_at[i] = s->idle[i] + s->releasing[i];
	for (uint32_t n = 0; n < v->nodes.n; n++)
		if (v->nodes.in_pool[n])
			g->pool[g->n_pool++] = n;
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		g->r[d].stale = g->rs[d].stale = true;
	return TPH_OK;
}

void tph_kai_ranges_free(tph_kai_session *s)
{
	if (!s->ranges)
		return;
	tph_free(s->ranges->free_at);
	tph_free(s->ranges->pool);
	tph_free(s->ranges->sub);
	tph_free(s->ranges->in_sub);
	tph_free(s->ranges->free_gpus);
	tph_free(s->ranges->gpus_ok);
	tph_free(s->ranges->log);
	tph_free(s->ranges->last);
	tph_free(s->ranges);
	s->ranges = NULL;
}

/* One end of a range (least: the minimum) as a node's amount moves from old to now. */
static void move_end(kai_range *r, double *end, uint32_t *count, bool least, double old, double now)
{
	if (least ? now < *end : now > *end) {
		*end = now;
		*count = 1;
	} else if (now == *end) {
		(*count)++;
	} else if (old == *end && --*count == 0) {
		r->stale = true;
	}
}

static void move(kai_range *r, double old, double now)
{
	if (r->stale)
		return;
	move_end(r, &r->min, &r->n_min, true, old, now);
	move_end(r, &r->max, &r->n_max, false, old, now);
}

static void log_touch(const tph_kai_session *s, tph_kai_ranges *g, uint32_t n)
{
	if (g->last[n] == g->n_log && g->n_log && !g->log_read) /* the latest entry already */
		return;
	g->log_read = false;
	if (g->n_log == g->cap_log) {
		memset(g->last, 0, (size_t)s->v->nodes.n * sizeof *g->last);
		g->n_log = 0;
		g->log_gen++;
	}
	g->log[g->n_log++] = n;
	g->last[n] = g->n_log;
}

void tph_kai_ranges_note(tph_kai_session *s, uint32_t n)
{
	tph_kai_ranges *g = s->ranges;
	if (!g) /* not built yet: the build reads the ledger */
		return;
	g->gpus_ok[n] = 0;
	log_touch(s, g, n);
	if (!s->v->nodes.in_pool[n])
		return;
	size_t at = (size_t)n * TPH_KAI_DIMS;
	for (int d = 0; d < TPH_KAI_DIMS; d++) {
		double now = s->idle[at + d] + s->releasing[at + d], old = g->free_at[at + d];
		if (now == old || allocatable(s->v, n, d) == 0)
			continue;
		g->free_at[at + d] = now;
		move(&g->r[d], old, now);
		if (g->in_sub[n])
			move(&g->rs[d], old, now);
	}
}

static void rescan(const tph_kai_session *s, const tph_kai_ranges *g, const uint32_t *nodes,
                   uint32_t count, kai_range *r, int d)
{
	*r = (kai_range){0};
	bool any = false;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t n = nodes[i];
		if (allocatable(s->v, n, d) == 0)
			continue;
		double f = g->free_at[(size_t)n * TPH_KAI_DIMS + (size_t)d];
		if (!any || f < r->min)
			r->min = f, r->n_min = 0;
		if (!any || f > r->max)
			r->max = f, r->n_max = 0;
		r->n_min += f == r->min;
		r->n_max += f == r->max;
		any = true;
	}
}

bool tph_kai_session_free_range(const tph_kai_session *s, int dim, const uint32_t *nodes,
                                uint32_t n, double *min, double *max)
{
	tph_kai_ranges *g = s->ranges;
#ifndef NDEBUG
	for (uint32_t i = 0; i < n; i++)
		assert(s->v->nodes.in_pool[nodes[i]]);
#else
	(void)nodes;
#endif
	if (s->naive || !g || dim < 0 || dim >= TPH_KAI_DIMS)
		return false;
	bool pool = n == g->n_pool;
	if (!pool && (nodes != g->sub_at || n != g->n_sub))
		return false;
	kai_range *r = pool ? &g->r[dim] : &g->rs[dim];
	if (r->stale)
		rescan(s, g, pool ? g->pool : g->sub, pool ? g->n_pool : g->n_sub, r, dim);
	g->dims_read |= 1u << dim;
	*min = r->n_min ? r->min : 1e300;
	*max = r->n_max ? r->max : 0;
	return true;
}

void tph_kai_ranges_subset(const tph_kai_session *s, const uint32_t *nodes, uint32_t n)
{
	tph_kai_ranges *g = s->ranges;
	if (!g)
		return;
	for (uint32_t i = 0; i < g->n_sub; i++)
		g->in_sub[g->sub[i]] = 0;
	g->sub_at = nodes;
	g->n_sub = nodes ? n : 0;
	g->sub_gen = g->sub_gen + 1 ? g->sub_gen + 1 : 1;
	for (uint32_t i = 0; i < g->n_sub; i++) {
		g->sub[i] = nodes[i];
		g->in_sub[nodes[i]] = 1;
	}
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		g->rs[d].stale = true;
}

uint32_t tph_kai_ranges_set(const tph_kai_session *s, const uint32_t *nodes, uint32_t n,
                            const uint8_t **member)
{
	tph_kai_ranges *g = s->ranges;
	if (!g)
		return UINT32_MAX;
	if (n == g->n_pool) {
		*member = s->v->nodes.in_pool;
		return 0;
	}
	if (nodes != g->sub_at || n != g->n_sub || !nodes)
		return UINT32_MAX;
	*member = g->in_sub;
	return g->sub_gen;
}

/* KAI's getGpuMemoryFractionalOnNode: a device's memory as a fraction, up to a hundredth. */
static double mem_fraction(int64_t m, int64_t mem)
{
	return ceil((double)m / (double)mem * 100) / 100;
}

/* KAI's GetSumOfIdleGPUs plus GetSumOfReleasingGPUs: whole GPUs, MIG instances as GPUs, the
 * free part of each device shared pods hold, and the releasing part of each device not wholly
 * releasing (a wholly releasing one is counted whole by the ledger). */
static double free_gpus(const tph_kai_session *s, uint32_t n)
{
	size_t at = (size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU;
	double free = s->idle[at] + s->releasing[at];
	uint32_t m = s->v->nodes.n_mig;
	for (uint32_t p = 0; p < m; p++) {
		size_t i = (size_t)n * m + p;
		free += (double)(s->mig_idle[i] + s->mig_rel[i]) * s->v->nodes.mig_profile_gpus[p];
	}
	int64_t mem = s->v->nodes.gpu_memory_mib[n];
	if (mem <= 0)
		return free;
	for (uint32_t g = s->dev_first[n]; g < s->dev_first[n + 1]; g++) {
		if (s->dev_alloc[g] > 0)
			free += 1 - mem_fraction(s->dev_alloc[g], mem);
		bool all_releasing = s->dev_used[g] != 0 && s->dev_rel[g] == s->dev_used[g];
		if (s->dev_rel[g] > 0 && !all_releasing)
			free += mem_fraction(s->dev_rel[g], mem);
	}
	return free;
}

double tph_kai_free_gpus(const tph_kai_session *s, uint32_t n)
{
	tph_kai_ranges *g = s->ranges;
	if (s->naive || !g)
		return free_gpus(s, n);
	if (!g->gpus_ok[n]) {
		g->free_gpus[n] = free_gpus(s, n);
		g->gpus_ok[n] = 1;
	}
	return g->free_gpus[n];
}

bool tph_kai_touch_log(const tph_kai_session *s, tph_kai_touches *out)
{
	tph_kai_ranges *g = s->ranges;
	if (!g)
		return false;
	g->log_read = true;
	*out = (tph_kai_touches){g->log, g->last, g->n_log, g->log_gen};
	return true;
}

uint32_t tph_kai_pool_size(const tph_kai_session *s)
{
	return s->ranges ? s->ranges->n_pool : 0;
}

unsigned tph_kai_ranges_read(const tph_kai_session *s)
{
	tph_kai_ranges *g = s->ranges;
	unsigned m = g ? g->dims_read : 0;
	if (g)
		g->dims_read = 0;
	return m;
}

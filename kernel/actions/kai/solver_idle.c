/* KAI's AccumulatedIdleGpus filter (solvers/accumulated_scenario_filters/idle_gpus): each
 * node's idle and releasing GPUs plus what the scenario's victims there hold; the probe's GPU
 * requests, largest first, matched greedily onto the k roomiest nodes.
 * Outside naive mode it is kept over one generator run: the victims only grow between two
 * accumulations and the ledger changes only the nodes its touch log names, so each
 * accumulation adds its new victims and refreshes the touched nodes instead of passing over
 * every node. A node's sum is always its free GPUs then its victims' in scenario order, the
 * order the literal pass adds them in, so the sums are the same doubles. */
#include "solver.h"

#include "base/mem.h"

#include <assert.h>
#include <stdlib.h>

int tph_kai_idle_init(tph_kai_idle *ig, uint32_t n_nodes, uint32_t n_tasks)
{
	size_t nn = (size_t)n_nodes + 1;
	*ig = (tph_kai_idle){0};
	ig->cap = tph_calloc(nn, sizeof *ig->cap);
	ig->fresh = tph_calloc(nn, sizeof *ig->fresh);
	ig->pos = tph_calloc(nn, sizeof *ig->pos);
	ig->top = tph_calloc(nn, sizeof *ig->top);
	ig->list = tph_calloc(nn, sizeof *ig->list);
	ig->mark = tph_calloc(nn, 1);
	ig->req = tph_calloc((size_t)n_tasks + 1, sizeof *ig->req);
	bool ok = ig->cap && ig->fresh && ig->pos && ig->top && ig->list && ig->mark && ig->req;
	return ok ? TPH_OK : TPH_ENOMEM;
}

void tph_kai_idle_free(tph_kai_idle *ig)
{
	tph_free(ig->cap);
	tph_free(ig->fresh);
	tph_free(ig->pos);
	tph_free(ig->top);
	tph_free(ig->list);
	tph_free(ig->mark);
	tph_free(ig->req);
}

void tph_kai_idle_reset(tph_kai_idle *ig)
{
	ig->valid = false;
}

static int by_desc(const void *a, const void *b)
{
	double l = *(const double *)a, r = *(const double *)b;
	return l > r ? -1 : l < r;
}

/* The probe's GPU requests, largest first. */
static void sorted_requests(const tph_kai_solver *sv, double *req)
{
	for (uint32_t i = 0; i < sv->k; i++)
		req[i] = tph_kai_accepted_gpus(sv->s, sv->tasks[i]);
	qsort(req, sv->k, sizeof *req, by_desc);
}

/* Node a before node b among the roomiest: more capacity, then the lower index. */
static bool roomier(const double *cap, uint32_t a, uint32_t b)
{
	return cap[a] > cap[b] || (cap[a] == cap[b] && a < b);
}

/* Node n into top[0..*n_top) (at most k, roomiest first) where it belongs, if it does: n is
 * not in it, or is at pos[n] and only gained room. pos NULL: n is not in it, nobody asks. */
static void place_top(const double *cap, uint32_t *top, uint32_t *n_top, int32_t *pos, uint32_t k,
                      uint32_t n)
{
	int32_t at = pos ? pos[n] : -1;
	if (at < 0) {
		if (*n_top < k)
			at = (int32_t)(*n_top)++;
		else if (!k || !roomier(cap, n, top[k - 1]))
			return;
		else if (pos)
			pos[top[at = (int32_t)k - 1]] = -1;
		else
			at = (int32_t)k - 1;
	}
	for (; at > 0 && roomier(cap, n, top[at - 1]); at--) {
		top[at] = top[at - 1];
		if (pos)
			pos[top[at]] = at;
	}
	top[at] = n;
	if (pos)
		pos[n] = at;
}

/* The k roomiest of nn nodes from scratch. */
static uint32_t select_top(const double *cap, uint32_t nn, uint32_t k, uint32_t *top, int32_t *pos)
{
	uint32_t n_top = 0;
	for (uint32_t n = 0; pos && n < nn; n++)
		pos[n] = -1;
	for (uint32_t n = 0; n < nn; n++)
		place_top(cap, top, &n_top, pos, k, n);
	return n_top;
}

/* greedyMatchRequirements of req[0..k) (largest first) onto the roomiest nodes top[0..n). */
static bool match(tph_kai_solver *sv, const double *cap, const uint32_t *top, uint32_t n,
                  const double *req)
{
	for (uint32_t i = 0; i < n; i++)
		sv->rf[top[i]] = 0; /* virtually allocated */
	for (uint32_t i = 0; i < sv->k; i++) {
		if (req[i] <= 0)
			return true;
		bool matched = false;
		for (uint32_t h = 0; h < n && !matched; h++) {
			if (cap[top[h]] < req[i])
				break;
			if (cap[top[h]] - sv->rf[top[h]] >= req[i]) {
				sv->rf[top[h]] += req[i];
				matched = true;
			}
		}
		if (!matched)
			return false;
	}
	return true;
}

static uint32_t victim(const tph_kai_solver *sv, uint32_t i)
{
	return i < sv->n_rec ? sv->rec[i] : sv->pot[i - sv->n_rec];
}

/* cap[n] over every node, the literal pass: free GPUs, then each victim's. */
static void all_caps(const tph_kai_solver *sv, double *cap)
{
	const tph_kai_session *s = sv->s;
	for (uint32_t n = 0; n < s->v->nodes.n; n++)
		cap[n] = tph_kai_free_gpus(s, n);
	for (uint32_t i = 0; i < sv->n_rec + sv->n_pot; i++) {
		uint32_t t = victim(sv, i);
		if (s->node[t] >= 0)
			cap[s->node[t]] += tph_kai_accepted_gpus(s, t);
	}
}

static void build(tph_kai_solver *sv, const tph_kai_touches *log)
{
	tph_kai_idle *ig = &sv->idle;
	uint32_t nn = sv->s->v->nodes.n;
	all_caps(sv, ig->cap);
	ig->n_top = select_top(ig->cap, nn, sv->k, ig->top, ig->pos);
	sorted_requests(sv, ig->req);
	ig->n_seen = sv->n_pot;
	ig->log_at = log->n;
	ig->log_gen = log->gen;
	ig->valid = true;
}

/* Node n's capacity is now c: kept in the roomiest, or (it shrank) a new selection due. */
static void set_cap(tph_kai_idle *ig, uint32_t k, uint32_t n, double c, bool *reselect)
{
	double was = ig->cap[n];
	ig->cap[n] = c;
	if (c < was)
		*reselect = true;
	else if (c > was && !*reselect)
		place_top(ig->cap, ig->top, &ig->n_top, ig->pos, k, n);
}

/* The nodes the ledger touched since the last accumulation, afresh: free GPUs, then the
 * victims counted so far. */
static void refresh_touched(tph_kai_solver *sv, const tph_kai_touches *log, bool *reselect)
{
	const tph_kai_session *s = sv->s;
	tph_kai_idle *ig = &sv->idle;
	uint32_t m = 0;
	for (uint32_t i = ig->log_at; i < log->n; i++) {
		uint32_t n = log->log[i];
		if (!ig->mark[n]) {
			ig->mark[n] = 1;
			ig->fresh[n] = tph_kai_free_gpus(s, n);
			ig->list[m++] = n;
		}
	}
	for (uint32_t i = 0; m && i < sv->n_rec + ig->n_seen; i++) {
		uint32_t t = victim(sv, i);
		if (s->node[t] >= 0 && ig->mark[s->node[t]])
			ig->fresh[s->node[t]] += tph_kai_accepted_gpus(s, t);
	}
	for (uint32_t i = 0; i < m; i++) {
		ig->mark[ig->list[i]] = 0;
		set_cap(ig, sv->k, ig->list[i], ig->fresh[ig->list[i]], reselect);
	}
	ig->log_at = log->n;
}

static void update(tph_kai_solver *sv, const tph_kai_touches *log)
{
	const tph_kai_session *s = sv->s;
	tph_kai_idle *ig = &sv->idle;
	bool reselect = false;
	refresh_touched(sv, log, &reselect);
	for (; ig->n_seen < sv->n_pot; ig->n_seen++) {
		uint32_t t = sv->pot[ig->n_seen];
		int32_t n = s->node[t];
		if (n >= 0)
			set_cap(ig, sv->k, (uint32_t)n, ig->cap[n] + tph_kai_accepted_gpus(s, t),
			        &reselect);
	}
	if (reselect)
		ig->n_top = select_top(ig->cap, s->v->nodes.n, sv->k, ig->top, ig->pos);
}

#ifndef NDEBUG
/* Debug builds: the kept capacities and roomiest nodes are the literal pass's. */
static bool kept_is_fresh(tph_kai_solver *sv)
{
	tph_kai_idle *ig = &sv->idle;
	uint32_t nn = sv->s->v->nodes.n;
	all_caps(sv, sv->cap);
	for (uint32_t n = 0; n < nn; n++)
		if (sv->cap[n] != ig->cap[n])
			return false;
	uint32_t n_top = select_top(sv->cap, nn, sv->k, sv->tmp, NULL);
	for (uint32_t i = 0; i < n_top; i++)
		if (sv->tmp[i] != ig->top[i])
			return false;
	return n_top == ig->n_top;
}
#endif

bool tph_kai_idle_gpus_fit(tph_kai_solver *sv)
{
	tph_kai_touches log;
	if (sv->s->naive || !tph_kai_touch_log(sv->s, &log)) {
		all_caps(sv, sv->cap);
		uint32_t n_top = select_top(sv->cap, sv->s->v->nodes.n, sv->k, sv->tmp, NULL);
		sorted_requests(sv, sv->req);
		return match(sv, sv->cap, sv->tmp, n_top, sv->req);
	}
	tph_kai_idle *ig = &sv->idle;
	if (!ig->valid || log.gen != ig->log_gen || ig->n_seen > sv->n_pot)
		build(sv, &log);
	else
		update(sv, &log);
	assert(kept_is_fresh(sv));
	return match(sv, ig->cap, ig->top, ig->n_top, ig->req);
}

/* The per-node hot path: resource fit plus predicates (tph_filter_nodes), Volcano's
 * PrioritizeNodes (tph_score_nodes) and SelectBestNode (tph_best_node). Nodes are cut into
 * spans of SPAN; OpenMP workers take whole spans, callbacks see one span at a time, and every
 * per-node result is computed in a fixed order, so the outcome is the same for any thread
 * count. */
#include "ep.h"
#include "ep_predicate.h"
#include "fit.h"
#include "prof.h"
#include "base/omp_team.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef TPH_HAVE_OPENMP
#include <omp.h>
#define OMP(x) _Pragma(#x)
#else
#define OMP(x)
#endif

#define SPAN          TPH_SPAN
#define CALL(type, e) ((type)(e)->fn)

static uint32_t n_spans(uint32_t n)
{
	return (n + SPAN - 1) / SPAN;
}

/* Spans each thread must get before a parallel region pays for its fork/join: below this a
 * call stays on the session's thread. Measured on the 2-core VM with one task through filter
 * and score (default conf, ~23 ns per node over five regions, OMP_DYNAMIC=false): two threads
 * over 8 spans (2,000 nodes) ran 1.3-1.6x as fast as one, over 4 spans 0.96-1.4x. A region
 * costs a few us when the workers spin, far more when the machine is oversubscribed. */
#define MIN_SPANS_PER_THREAD 4u

int tph_span_threads(const tph_session *s, uint32_t n)
{
	uint32_t nt = s->threads > 1 ? (uint32_t)s->threads : 1;
	uint32_t most = n_spans(n) / MIN_SPANS_PER_THREAD;
	return (int)(nt < most ? nt : (most ? most : 1));
}

static tph_ep_ctx *ctx(tph_session *s)
{
	tph_ep_ctx *c = tph_ep_ctx_of(s);
	if (!c && tph_ep_init(s) == TPH_OK)
		c = tph_ep_ctx_of(s);
	return c;
}

/* Make the context's columns hold n nodes (only a caller passing more nodes than the session
 * has, e.g. with repeats, gets here after tph_ep_init). */
static int ensure_cols(tph_session *s, tph_ep_ctx *c, uint32_t n)
{
	if (n > c->cols_cap) {
		double *m = TPH_ARENA_NEW(&s->arena, double, n);
		double *r = TPH_ARENA_NEW(&s->arena, double, n);
		double *b = TPH_ARENA_NEW(&s->arena, double, n);
		if (!m || !r || !b)
			return TPH_ENOMEM;
		c->map = m, c->reduce = r, c->batch = b, c->cols_cap = n;
	}
	if (n_spans(n) > c->chunk_cap) {
		uint32_t *k = TPH_ARENA_NEW(&s->arena, uint32_t, n_spans(n));
		if (!k)
			return TPH_ENOMEM;
		c->chunk_cnt = k, c->chunk_cap = n_spans(n);
	}
	return TPH_OK;
}

/* ---- resource fit ---- */

tph_reason_code tph_fit_node(const tph_session *s, tph_idx task, tph_idx node)
{
	tph_ep_ctx *c = ctx((tph_session *)s);
	if (!c)
		return TPH_REASON_INVALID;
	tph_fit_req r;
	tph_fit_prepare(s, task, c->insuff, true, &r);
	return tph_fit_check(&s->nodes, &r, node, true);
}

/* ---- filtering ---- */

/* Fit, then each predicate over the nodes still feasible, in registration order; the first
 * failure names the reason. Returns the feasible count of the span. */
static uint32_t filter_span(const tph_session *s, const tph_fit_req *r, tph_idx task,
                            const tph_idx *nodes, uint32_t n, tph_reason_code *reason)
{
	tph_idx live[SPAN];
	uint32_t pos[SPAN];
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++) {
		reason[i] = tph_fit_check(&s->nodes, r, nodes[i], true);
		if (reason[i] == TPH_PASS) {
			live[m] = nodes[i];
			pos[m++] = i;
		}
	}
	return tph_predicate_span(s, task, live, pos, m, reason);
}

static uint32_t filter_fail(const tph_idx *nodes, uint32_t n, tph_reason_code *reason_out)
{
	(void)nodes;
	for (uint32_t i = 0; i < n; i++)
		reason_out[i] = TPH_REASON_INVALID;
	return 0;
}

/* The feasible nodes of spans [k0, k1) to their place in feasible_out (cnt[k]: where span k's
 * go, after the prefix sum). */
static void compact(const tph_idx *nodes, uint32_t n, const tph_reason_code *reason,
                    const uint32_t *cnt, long k, tph_idx *feasible_out)
{
	uint32_t off = (uint32_t)k * SPAN, len = n - off < SPAN ? n - off : SPAN;
	tph_idx *o = feasible_out + cnt[k];
	for (uint32_t i = off; i < off + len; i++)
		if (reason[i] == TPH_PASS)
			*o++ = nodes[i];
}

static uint32_t prefix(uint32_t *cnt, long spans)
{
	uint32_t total = 0;
	for (long k = 0; k < spans; k++) {
		uint32_t v = cnt[k];
		cnt[k] = total;
		total += v;
	}
	return total;
}

static uint32_t span_len(uint32_t n, long k)
{
	uint32_t off = (uint32_t)k * SPAN;
	return n - off < SPAN ? n - off : SPAN;
}

static uint32_t filter_nodes(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                             tph_reason_code *reason_out, tph_idx *feasible_out)
{
	tph_ep_ctx *c = ctx(s);
	if (!n)
		return 0;
	if (!c || ensure_cols(s, c, n)) {
		s->oom = true;
		return filter_fail(nodes, n, reason_out);
	}
	tph_fit_req r;
	tph_fit_prepare(s, task, c->insuff, true, &r);
	const long spans = (long)n_spans(n);
	uint32_t *cnt = c->chunk_cnt, total = 0;
	const int nt = tph_team_admit(tph_span_threads(s, n));
	if (nt == 1) { /* no parallel region: most calls are a few touched nodes */
		for (long k = 0; k < spans; k++)
			cnt[k] = filter_span(s, &r, task, nodes + k * SPAN, span_len(n, k),
			                     reason_out + k * SPAN);
		total = prefix(cnt, spans);
		for (long k = 0; k < spans; k++)
			compact(nodes, n, reason_out, cnt, k, feasible_out);
		return total;
	}
	int saved = tph_omp_enter();
	uint64_t busy = 0, t0 = tph_mono_ns();
	OMP(omp parallel num_threads(nt) reduction(+ : busy))
	{
		uint64_t b = tph_mono_ns();
		OMP(omp for schedule(static) nowait)
		for (long k = 0; k < spans; k++)
			cnt[k] = filter_span(s, &r, task, nodes + k * SPAN, span_len(n, k),
			                     reason_out + k * SPAN);
		busy += tph_mono_ns() - b;
		OMP(omp barrier)
		OMP(omp single)
		total = prefix(cnt, spans);
		b = tph_mono_ns();
		OMP(omp for schedule(static) nowait)
		for (long k = 0; k < spans; k++)
			compact(nodes, n, reason_out, cnt, k, feasible_out);
		busy += tph_mono_ns() - b;
	}
	tph_team_judge(busy, tph_mono_ns() - t0);
	tph_omp_leave(saved);
	return total;
}

/* ---- scoring ---- */

/* NodeOrder summed per node in registration order, written to out. The first plugin writes
 * into out itself, zeroed as its scratch would be, and 0.0 + x is the sum's first add. */
static void order_span(const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                       double *out)
{
	const tph_ep_list *l = &s->ep[TPH_EP_NODE_ORDER];
	double tmp[SPAN];
	memset(out, 0, n * sizeof *out);
	if (!l->n)
		return;
	CALL(tph_score_fn, &l->e[0])(l->e[0].st, s, task, nodes, n, out);
	for (uint32_t i = 0; i < n; i++)
		out[i] = 0.0 + out[i];
	for (uint32_t p = 1; p < l->n; p++) {
		memset(tmp, 0, n * sizeof *tmp);
		CALL(tph_score_fn, &l->e[p])(l->e[p].st, s, task, nodes, n, tmp);
		for (uint32_t i = 0; i < n; i++)
			out[i] += tmp[i];
	}
}

/* One plugin's NodeMap, floored as PrioritizeNodes stores it (int64(math.Floor(score))). */
static void map_span(const tph_session *s, const tph_ep_entry *e, tph_idx task,
                     const tph_idx *nodes, uint32_t n, double *out)
{
	memset(out, 0, n * sizeof *out);
	CALL(tph_score_fn, e)(e->st, s, task, nodes, n, out);
	for (uint32_t i = 0; i < n; i++)
		out[i] = floor(out[i]);
}

static const tph_ep_entry *find_map(const tph_session *s, uint16_t plugin)
{
	const tph_ep_list *l = &s->ep[TPH_EP_NODE_MAP];
	for (uint32_t i = 0; i < l->n; i++)
		if (l->e[i].plugin == plugin)
			return &l->e[i];
	return NULL;
}

static void one_span(const tph_session *s, const tph_ep_entry *map, tph_idx task,
                     const tph_idx *nodes, uint32_t n, double *out)
{
	if (map)
		map_span(s, map, task, nodes, n, out);
	else
		order_span(s, task, nodes, n, out);
}

/* ---- parallel spans (plugin.h) ---- */

typedef struct span_call {
	tph_span_fn fn;
	void *ctx;
	uint32_t n;
} span_call;

static void one_span_of(void *ud, int k)
{
	const span_call *c = ud;
	uint32_t b = (uint32_t)k * SPAN;
	c->fn(c->ctx, (uint32_t)k, b, b + span_len(c->n, k));
}

void tph_session_parallel(const tph_session *s, uint32_t n, tph_span_fn fn, void *ctx)
{
	span_call c = {fn, ctx, n};
	tph_team_for(tph_span_threads(s, n), (int)n_spans(n), false, one_span_of, &c);
}

/* One scoring call as the span functions below see it. */
typedef struct score_call {
	const tph_session *s;
	const tph_ep_entry *map; /* span_pass: NULL for NodeOrder */
	tph_idx task;
	const tph_idx *nodes;
	double *out;
	const double *reduce, *batch; /* combine: NULL when no plugin registered */
} score_call;

static void pass_span(void *cv, uint32_t k, uint32_t b, uint32_t e)
{
	const score_call *c = cv;
	(void)k;
	one_span(c->s, c->map, c->task, c->nodes + b, e - b, c->out + b);
}

/* The spans of one parallel pass: NodeOrder (map == NULL) or one plugin's NodeMap. */
static void span_pass(const tph_session *s, const tph_ep_entry *map, tph_idx task,
                      const tph_idx *nodes, uint32_t n, double *out)
{
	score_call c = {s, map, task, nodes, out, NULL, NULL};
	tph_session_parallel(s, n, pass_span, &c);
}

/* NodeOrderReduceFn: each NodeReduce rewrites its own plugin's (floored) map scores; the
 * results, kept as int64 by Volcano, are summed in registration order. A plugin with a
 * reduce but no map gets an empty list, as Volcano passes it one; a map without a reduce
 * counts for nothing, so it is not called. */
static bool reduce_pass(tph_session *s, tph_ep_ctx *c, tph_idx task, const tph_idx *nodes,
                        uint32_t n)
{
	const tph_ep_list *l = &s->ep[TPH_EP_NODE_REDUCE];
	if (!l->n)
		return false;
	memset(c->reduce, 0, n * sizeof *c->reduce);
	for (uint32_t p = 0; p < l->n; p++) {
		const tph_ep_entry *m = find_map(s, l->e[p].plugin);
		if (m)
			span_pass(s, m, task, nodes, n, c->map);
		CALL(tph_reduce_fn, &l->e[p])(l->e[p].st, s, task, nodes, m ? n : 0, c->map);
		for (uint32_t i = 0; m && i < n; i++)
			c->reduce[i] += trunc(c->map[i]);
	}
	return true;
}

/* A plugin whose BatchNodeOrder scores and split parts are +0.0 (tph_declare_score_zero),
 * outside naive mode. */
static bool zero_parts(const tph_session *s, const tph_plugin_inst *pi)
{
	return pi->score_zero && !s->opts.naive;
}

/* BatchNodeOrderFn: one call per plugin with every node, summed in registration order. The
 * first plugin that fails (tph_score_fail) ends the walk, as Volcano's BatchNodeOrderFn returns
 * its error at once. */
/* Plugins [from, to) of the list added to acc. The first plugin writes the sum directly: 0.0 + x
 * differs from x only for x == -0.0, and the sign of a zero batch score cannot reach a total
 * (see combine_span). */
static void batch_range(tph_session *s, tph_ep_ctx *c, tph_idx task, const tph_idx *nodes,
                        uint32_t n, uint32_t from, uint32_t to, double *acc)
{
	const tph_ep_list *l = &s->ep[TPH_EP_BATCH_NODE_ORDER];
	for (uint32_t p = from; p < to && !c->batch_failed; p++) {
		if (zero_parts(s, &s->plugins[l->e[p].plugin])) { /* +0.0 written, then added */
			if (!p)
				memset(acc, 0, n * sizeof *acc);
			for (uint32_t i = 0; p && i < n; i++)
				acc[i] += 0.0;
			continue;
		}
		double *col = p ? c->map : acc;
		memset(col, 0, n * sizeof *col);
		CALL(tph_score_fn, &l->e[p])(l->e[p].st, s, task, nodes, n, col);
		for (uint32_t i = 0; p && i < n; i++)
			acc[i] += col[i];
	}
}

static bool batch_pass(tph_session *s, tph_ep_ctx *c, tph_idx task, const tph_idx *nodes,
                       uint32_t n)
{
	const tph_ep_list *l = &s->ep[TPH_EP_BATCH_NODE_ORDER];
	if (!l->n)
		return false;
	batch_range(s, c, task, nodes, n, 0, l->n, c->batch);
	return true;
}

void tph_score_fail(const tph_session *s)
{
	tph_ep_ctx *c = tph_ep_ctx_of(s);
	if (c)
		c->batch_failed = true;
}

/* PrioritizeNodes: score := 0.0; += reduce; += order; += batch. The partial sum before the
 * batch is never -0.0 (x + y is -0.0 only when both are), so the sign of a zero batch score
 * never shows in a total. */
static void combine_span(void *cv, uint32_t k, uint32_t b, uint32_t e)
{
	const score_call *c = cv;
	(void)k;
	for (uint32_t i = b; i < e; i++) {
		double v = 0.0 + (c->reduce ? c->reduce[i] : 0.0);
		v += c->out[i];
		c->out[i] = v + (c->batch ? c->batch[i] : 0.0);
	}
}

static bool score_nodes(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                        double *total_out)
{
	tph_ep_ctx *c = ctx(s);
	if (!n)
		return true;
	if (!c || ensure_cols(s, c, n)) {
		s->oom = true;
		memset(total_out, 0, n * sizeof *total_out);
		return true;
	}
	c->batch_failed = false;
	span_pass(s, NULL, task, nodes, n, total_out);
	bool has_r = reduce_pass(s, c, task, nodes, n);
	bool has_b = batch_pass(s, c, task, nodes, n);
	if (c->batch_failed) {
		c->batch_failed = false;
		for (uint32_t i = 0; i < n; i++)
			total_out[i] = (double)NAN;
		return false;
	}
	/* Without reduce and batch the sum below is the order score itself: it is never -0.0
	 * (order_span starts from +0.0), so 0.0 + 0.0 + order + 0.0 == order, bit for bit. */
	if (!has_r && !has_b)
		return true;
	score_call sc = {
	    s, NULL, task, nodes, total_out, has_r ? c->reduce : NULL, has_b ? c->batch : NULL};
	tph_session_parallel(s, n, combine_span, &sc);
	return true;
}

/* ---- split at a batch plugin (ep.h) ---- */

static bool score_head(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                       uint32_t tail, double *pre, double *bat)
{
	tph_ep_ctx *c = ctx(s);
	if (!c || ensure_cols(s, c, n)) {
		s->oom = true;
		memset(pre, 0, n * sizeof *pre);
		memset(bat, 0, n * sizeof *bat);
		return true;
	}
	c->batch_failed = false;
	span_pass(s, NULL, task, nodes, n, pre);
	bool has_r = reduce_pass(s, c, task, nodes, n);
	memset(bat, 0, n * sizeof *bat);
	batch_range(s, c, task, nodes, n, 0, tail, bat);
	bool ok = !c->batch_failed;
	c->batch_failed = false;
	for (uint32_t i = 0; i < n; i++) /* combine_span's first two sums */
		pre[i] = ok ? 0.0 + (has_r ? c->reduce[i] : 0.0) + pre[i] : (double)NAN;
	return ok;
}

static bool score_tail(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                       uint32_t tail, const double *pre, const double *bat, double *total)
{
	tph_ep_ctx *c = ctx(s);
	if (!c || ensure_cols(s, c, n)) {
		s->oom = true;
		memset(total, 0, n * sizeof *total);
		return true;
	}
	memcpy(total, bat, n * sizeof *total);
	batch_range(s, c, task, nodes, n, tail, s->ep[TPH_EP_BATCH_NODE_ORDER].n, total);
	bool ok = !c->batch_failed;
	c->batch_failed = false;
	for (uint32_t i = 0; i < n; i++)
		total[i] = ok ? pre[i] + total[i] : (double)NAN;
	return ok;
}

/* The last BatchNodeOrder plugin alone (`tail`), its scores written straight into out: no
 * scratch column, no copies. False when it failed. */
static bool last_plugin(tph_session *s, tph_ep_ctx *c, tph_idx task, const tph_idx *nodes,
                        uint32_t n, uint32_t tail, double *out)
{
	const tph_ep_entry *e = &s->ep[TPH_EP_BATCH_NODE_ORDER].e[tail];
	memset(out, 0, n * sizeof *out);
	c->batch_failed = false;
	CALL(tph_score_fn, e)(e->st, s, task, nodes, n, out);
	bool ok = !c->batch_failed;
	c->batch_failed = false;
	return ok;
}

/* score_tail with pre = bat = 0: total = 0.0 + (0.0 + x) = 0.0 + x. */
static bool score_last(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                       uint32_t tail, double *total)
{
	const tph_ep_list *l = &s->ep[TPH_EP_BATCH_NODE_ORDER];
	tph_ep_ctx *c = ctx(s);
	if (!c || ensure_cols(s, c, n)) {
		s->oom = true;
		memset(total, 0, n * sizeof *total);
		return true;
	}
	bool ok;
	if (tail + 1 == l->n) {
		ok = last_plugin(s, c, task, nodes, n, tail, total);
	} else {
		memset(total, 0, n * sizeof *total);
		c->batch_failed = false;
		batch_range(s, c, task, nodes, n, tail, l->n, total);
		ok = !c->batch_failed;
		c->batch_failed = false;
	}
	for (uint32_t i = 0; i < n; i++)
		total[i] = ok ? 0.0 + total[i] : (double)NAN;
	return ok;
}

/* score_tail for a tail of one plugin, the last (a free tail, tph_score_free_tail), summed as
 * batch_range and score_tail sum it, pre + (bat + tail) (bat taken as batch_range's first
 * column when the tail is the first plugin), with no copy of bat: a pick calls it over a few
 * candidates, where the per-call work is most of the cost. */
static bool tail_one(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n, uint32_t tail,
                     const double *pre, const double *bat, double *total)
{
	tph_ep_ctx *c = ctx(s);
	if (!c) {
		s->oom = true;
		memset(total, 0, n * sizeof *total);
		return true;
	}
	bool ok = last_plugin(s, c, task, nodes, n, tail, total);
	for (uint32_t i = 0; i < n; i++)
		total[i] = ok ? pre[i] + (tail ? bat[i] + total[i] : total[i]) : (double)NAN;
	return ok;
}

/* ---- a TPH_SCORE_ROW task's scores from split parts ---- */

static bool all_split(const tph_session *s)
{
	const tph_ep_list *l = &s->ep[TPH_EP_BATCH_NODE_ORDER];
	for (uint32_t p = 0; p < l->n; p++)
		if (!s->plugins[l->e[p].plugin].score_split)
			return false;
	return l->n > 0;
}

/* What a row scoring keeps on the way for allocate's anchored parts: at plugin `at`, the batch
 * sum before it (bat: head_split's, 0 when it is the first) and its row part; pre as head_split
 * writes it. */
typedef struct row_cut {
	uint32_t at;
	double *bat, *row, *pre;
} row_cut;

/* batch_range's sum of the BatchNodeOrder plugins before `upto`, each plugin's score as
 * row + spec (the split contract's bits); acc is left as it is when there are none. False when
 * one of them does not split. `cut` (NULL: none) is kept on the way. A plugin with zero parts
 * is not asked: its row + spec is +0.0, so a first sum of +0.0 stays unwritten (`zero`) until
 * a plugin adds to it, and a later one still adds the +0.0 (it turns -0.0 into +0.0). */
static bool split_batch(tph_session *s, tph_ep_ctx *c, tph_idx task, const tph_idx *nodes,
                        uint32_t n, uint32_t upto, double *acc, const row_cut *cut)
{
	const tph_ep_list *l = &s->ep[TPH_EP_BATCH_NODE_ORDER];
	double *row = c->map, *spec = c->reduce;
	bool zero = false;
	for (uint32_t p = 0; p < upto && p < l->n; p++) {
		const tph_plugin_inst *pi = &s->plugins[l->e[p].plugin];
		bool nil = zero_parts(s, pi);
		if (!pi->score_split ||
		    (!nil && !pi->score_split(l->e[p].st, s, task, nodes, n, NULL, row, spec)))
			return false;
		bool sum = p && !zero; /* acc holds the sum so far */
		if (cut && p == cut->at) {
			for (uint32_t i = 0; i < n; i++)
				cut->bat[i] = sum ? acc[i] : 0.0;
			if (nil)
				memset(cut->row, 0, n * sizeof *cut->row);
			else
				memcpy(cut->row, row, n * sizeof *cut->row);
		}
		if (nil && sum)
			for (uint32_t i = 0; i < n; i++)
				acc[i] = acc[i] + 0.0;
		else if (!nil)
			for (uint32_t i = 0; i < n; i++)
				acc[i] = sum ? acc[i] + (row[i] + spec[i])
				             : (zero ? 0.0 + (row[i] + spec[i]) : row[i] + spec[i]);
		zero = nil && !sum;
	}
	if (zero)
		memset(acc, 0, n * sizeof *acc);
	return true;
}

/* score_nodes without reduce plugins, in one thread: order, then combine_span's sums; the
 * cut's parts too (NULL: none). Also when the session has threads: the calls this serves are
 * few over thousands of nodes (a row's first keys) and many over a few; taking score_nodes'
 * spans for the first ones split them across a team (205 regions on 10k-standard at 2
 * threads) but left the row's anchored parts to be scored apart, and the session's thread did
 * more work than with one thread (bench/RESULTS.md, thirteenth session, pthr2). Inline: GCC
 * left it a call of its own once that refusal went, +3.8M instructions on 10k-standard. */
static inline bool score_row(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                             double *out, const row_cut *cut)
{
	tph_ep_ctx *c;
	if (!n || s->ep[TPH_EP_NODE_REDUCE].n || !all_split(s) ||
	    (cut && cut->at >= s->ep[TPH_EP_BATCH_NODE_ORDER].n) || !(c = ctx(s)) ||
	    ensure_cols(s, c, n) || !split_batch(s, c, task, nodes, n, UINT32_MAX, c->batch, cut))
		return false;
	for (long k = 0; k < (long)n_spans(n); k++)
		order_span(s, task, nodes + k * SPAN, span_len(n, k), out + k * SPAN);
	const double *bat = c->batch;
	for (uint32_t i = 0; i < n; i++) {
		if (cut)
			cut->pre[i] = 0.0 + 0.0 + out[i];
		out[i] = (0.0 + out[i]) + bat[i];
	}
	return true;
}

/* score_head with the batch sum of the plugins before `tail` from their split parts: order
 * into pre, then score_head's sums (no reduce), in one thread whatever the session's threads,
 * as score_row. */
static bool head_split(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                       uint32_t tail, double *pre, double *bat)
{
	tph_ep_ctx *c;
	if (!n || s->ep[TPH_EP_NODE_REDUCE].n || !(c = ctx(s)) || ensure_cols(s, c, n))
		return false;
	memset(bat, 0, n * sizeof *bat);
	if (!split_batch(s, c, task, nodes, n, tail, bat, NULL))
		return false;
	for (long k = 0; k < (long)n_spans(n); k++)
		order_span(s, task, nodes + k * SPAN, span_len(n, k), pre + k * SPAN);
	for (uint32_t i = 0; i < n; i++)
		pre[i] = 0.0 + 0.0 + pre[i];
	return true;
}

/* ---- the profiled entry points (prof.h): one branch when not profiling ---- */

uint32_t tph_filter_nodes(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                          tph_reason_code *reason_out, tph_idx *feasible_out)
{
	if (!s->prof)
		return filter_nodes(s, task, nodes, n, reason_out, feasible_out);
	double t0 = tph_now_ms();
	uint32_t k = filter_nodes(s, task, nodes, n, reason_out, feasible_out);
	tph_prof_add(s, TPH_EP_PREDICATE, n, tph_now_ms() - t0);
	return k;
}

bool tph_score_nodes(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                     double *total_out)
{
	if (!s->prof)
		return score_nodes(s, task, nodes, n, total_out);
	double t0 = tph_now_ms();
	bool ok = score_nodes(s, task, nodes, n, total_out);
	tph_prof_add(s, TPH_EP_NODE_ORDER, n, tph_now_ms() - t0);
	return ok;
}

bool tph_score_nodes_row(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                         double *total_out)
{
	double t0 = s->prof ? tph_now_ms() : 0;
	if (!score_row(s, task, nodes, n, total_out, NULL))
		return tph_score_nodes(s, task, nodes, n, total_out);
	if (s->prof)
		tph_prof_add(s, TPH_EP_NODE_ORDER, n, tph_now_ms() - t0);
	return true;
}

bool tph_score_nodes_row_parts(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                               uint32_t tail, double *total, double *pre, double *bat, double *row)
{
	double t0 = s->prof ? tph_now_ms() : 0;
	const row_cut cut = {tail, bat, row, pre};
	if (!score_row(s, task, nodes, n, total, &cut))
		return false;
	if (s->prof)
		tph_prof_add(s, TPH_EP_NODE_ORDER, n, tph_now_ms() - t0);
	return true;
}

bool tph_score_nodes_head(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                          uint32_t tail, double *pre, double *bat)
{
	double t0 = s->prof ? tph_now_ms() : 0;
	bool ok = score_head(s, task, nodes, n, tail, pre, bat);
	if (s->prof)
		tph_prof_add(s, TPH_EP_NODE_ORDER, n, tph_now_ms() - t0);
	return ok;
}

bool tph_score_nodes_head_split(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                                uint32_t tail, double *pre, double *bat)
{
	double t0 = s->prof ? tph_now_ms() : 0;
	if (!head_split(s, task, nodes, n, tail, pre, bat))
		return tph_score_nodes_head(s, task, nodes, n, tail, pre, bat);
	if (s->prof)
		tph_prof_add(s, TPH_EP_NODE_ORDER, n, tph_now_ms() - t0);
	return true;
}

bool tph_score_nodes_tail(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                          uint32_t tail, const double *pre, const double *bat, double *total)
{
	double t0 = s->prof ? tph_now_ms() : 0;
	bool ok = tail + 1 == s->ep[TPH_EP_BATCH_NODE_ORDER].n
	              ? tail_one(s, task, nodes, n, tail, pre, bat, total)
	              : score_tail(s, task, nodes, n, tail, pre, bat, total);
	if (s->prof)
		tph_prof_add(s, TPH_EP_NODE_ORDER, n, tph_now_ms() - t0);
	return ok;
}

bool tph_score_nodes_last(tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                          uint32_t tail, double *total)
{
	double t0 = s->prof ? tph_now_ms() : 0;
	bool ok = score_last(s, task, nodes, n, tail, total);
	if (s->prof)
		tph_prof_add(s, TPH_EP_NODE_ORDER, n, tph_now_ms() - t0);
	return ok;
}

/* BestNodeFn, then SelectBestNodeAndScore. Volcano picks at random among equal best scores;
 * tephra takes the first in input (snapshot) order, as its spec requires. */
tph_idx tph_best_node(const tph_session *s, tph_idx task, const tph_idx *nodes,
                      const double *scores, uint32_t n)
{
	TPH_PROF(s, TPH_EP_BEST_NODE);
	const tph_ep_list *l = &s->ep[TPH_EP_BEST_NODE];
	for (uint32_t p = 0; p < l->n; p++) {
		tph_idx b = CALL(tph_best_node_fn, &l->e[p])(l->e[p].st, s, task, nodes, scores, n);
		if (b != TPH_NOIDX)
			return b;
	}
	tph_idx best = TPH_NOIDX;
	double max = -(double)INFINITY;
	for (uint32_t i = 0; i < n; i++)
		if (scores[i] > max) {
			max = scores[i];
			best = nodes[i];
		}
	return best;
}

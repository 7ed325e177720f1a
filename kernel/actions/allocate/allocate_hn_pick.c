/* A task's pick inside a hypernode from its head shape (allocate_fast.h): what feasible() and
 * alloc_best_node() decide over the hypernode's nodes, with the verdicts, groups and head sums
 * read from the columns and only the free tail (tph_score_free_tail: network-topology-aware,
 * whose scores read where the subjob is being placed and tie over the call's nodes) run over
 * the candidates, as tph_score_nodes would run it over them. The first group of the last pick
 * over a range of positions is kept for the next pick of the same shape there (af_hkeep). */
#include "allocate_fast.h"

#include "base/mem.h"

#include <math.h>
#include <string.h>

/* The shape's verdict at p and, where it passes, its group: its row's and spec's when it is
 * bare (af_head_bare), else its cells'. */
static inline tph_reason_code own_code(const af_shape *sh, bool bare, uint32_t p)
{
	return bare ? af_type_verdict(sh, p) : sh->code[p];
}
static inline uint8_t own_grp(const af_shape *sh, bool bare, uint32_t p)
{
	return bare ? af_row_grp(sh->row, p) : sh->cell[p].grp;
}

static tph_reason_code code_of(const af_shape *sh, const af_track *t, uint32_t p)
{
	return t ? af_track_code(t, p) : own_code(sh, af_head_bare(sh), p);
}

/* The members of group g among the passing nodes, in their order, into f->nodes, with their
 * positions in f->sub. */
static uint32_t members(alloc_fast *f, const af_shape *sh, const af_track *t, const tph_idx *nodes,
                        uint32_t n, uint8_t g)
{
	uint32_t m = 0;
	bool bare = af_head_bare(sh);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = f->pos[nodes[i]];
		f->nodes[m] = nodes[i];
		f->sub[m] = p;
		m += code_of(sh, t, p) == TPH_PASS && own_grp(sh, bare, p) == g;
	}
	return m;
}

#define NOPOS UINT32_MAX

/* lo when nodes[0..n) are the ready positions lo, lo + 1, ..., lo + n - 1: a hypernode's nodes
 * are ascending and distinct (topology.h), as the ready positions are, so its first and last
 * decide it (racks and zones listed in node order, the cluster top); else NOPOS. */
static uint32_t range_of(const alloc_fast *f, const tph_idx *nodes, uint32_t n)
{
	if (!n)
		return NOPOS;
	uint32_t lo = f->pos[nodes[0]], hi = f->pos[nodes[n - 1]];
	return lo != NOPOS && hi != NOPOS && hi >= lo && hi - lo == n - 1 ? lo : NOPOS;
}

/* The count of each group among the passing nodes and the members of the first group (G_IDLE,
 * nearly always the one chosen from) taken in the same pass; how many pass. Most nodes fail
 * (full), so the pass reads only their verdict: positions from lo when the nodes are a range,
 * and the verdicts into codes only when none passes (the caller's only use of them). Inlined
 * with constant `range`, `track` and (without a tracker) `bare`, one loop per case with no
 * test per node; columns and counts in locals, as the stores could alias them otherwise. */
static inline uint32_t scan(alloc_fast *f, const af_shape *sh, const af_track *t,
                            const tph_idx *nodes, uint32_t n, uint32_t lo, bool range, bool track,
                            bool bare, uint32_t cnt[G_COUNT])
{
	const af_cell *cell = sh->cell;
	const tph_reason_code *own = sh->code;
	const af_rfit *rc = sh->row->fg;
	const tph_reason_code *pv = bare ? sh->pred->code : NULL;
	const uint32_t *pos = f->pos;
	tph_idx *in = f->nodes;
	uint32_t *sub = f->sub, c[G_COUNT], feasible = 0;
	memcpy(c, cnt, sizeof c);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = range ? lo + i : pos[nodes[i]];
		tph_reason_code fit = bare ? rc[p].fit : TPH_PASS;
		tph_reason_code code = track  ? af_track_code(t, p)
		                       : bare ? (fit == TPH_PASS ? pv[p] : fit)
		                              : own[p];
		if (code != TPH_PASS)
			continue;
		feasible++;
		uint8_t g = bare ? rc[p].grp : cell[p].grp;
		in[c[G_IDLE]] = nodes[i];
		sub[c[G_IDLE]] = p;
		c[g]++;
	}
	memcpy(cnt, c, sizeof c);
	return feasible;
}

/* Ranges of at least 1 / WIDE_SHARE of the ready positions (the cluster top) are passed over
 * through their row's fit passes (af_row_pass): most nodes there are full. */
#define WIDE_SHARE 4u

const uint64_t *af_row_pass(alloc_fast *f, af_row *r, const tph_idx *log, uint32_t n_log,
                            uint32_t lost)
{
	bool whole = !r->pass;
	if (!r->built || r->seen != n_log || r->lost != lost ||
	    (whole && !(r->pass = tph_calloc((size_t)f->n / 64 + 1, sizeof *r->pass))))
		return NULL;
	uint32_t k = af_stale(f, r->fg, sizeof *r->fg, whole, r->pseen, r->plost, log, n_log, lost);
	for (uint32_t i = 0; i < (k == NOPOS ? f->n : k); i++) {
		uint32_t p = k == NOPOS ? i : f->plist[i];
		uint64_t bit = 1ull << (p % 64);
		r->pass[p / 64] =
		    r->fg[p].fit == TPH_PASS ? r->pass[p / 64] | bit : r->pass[p / 64] & ~bit;
	}
	r->pseen = n_log;
	r->plost = lost;
	return r->pass;
}

uint32_t af_bits_list(const uint64_t *bits, uint32_t lo, uint32_t n, uint32_t *out)
{
	uint32_t k = 0, hi = lo + n;
	for (uint32_t w = lo / 64; n && w <= (hi - 1) / 64; w++) {
		uint64_t b = bits[w];
		if (w == lo / 64)
			b &= ~0ull << (lo % 64);
		if (w == (hi - 1) / 64 && hi % 64)
			b &= ~(~0ull << (hi % 64));
		for (; b; b &= b - 1)
			out[k++] = w * 64 + (uint32_t)__builtin_ctzll(b);
	}
	return k;
}

/* scan() over the range lo .. lo + n - 1 of a bare shape, at the positions its row fits alone
 * (a tracker's overlays only fail positions the shape passes: none of the others passes). */
static uint32_t scan_pass(alloc_fast *f, const af_shape *sh, const af_track *t,
                          const uint64_t *pass, const tph_idx *nodes, uint32_t n, uint32_t lo,
                          uint32_t cnt[G_COUNT])
{
	const af_rfit *rc = sh->row->fg;
	const tph_reason_code *pv = sh->pred->code;
	tph_idx *in = f->nodes;
	uint32_t *sub = f->sub, *fit = f->at, c[G_COUNT], feasible = 0;
	uint32_t m = af_bits_list(pass, lo, n, fit);
	memcpy(c, cnt, sizeof c);
	for (uint32_t i = 0; i < m; i++) {
		uint32_t p = fit[i];
		if ((t ? af_track_code(t, p) : pv[p]) != TPH_PASS)
			continue;
		feasible++;
		in[c[G_IDLE]] = nodes[p - lo];
		sub[c[G_IDLE]] = p;
		c[rc[p].grp]++;
	}
	memcpy(cnt, c, sizeof c);
	return feasible;
}

static uint32_t verdicts(alloc_fast *f, const af_shape *sh, const af_track *t, const tph_idx *nodes,
                         uint32_t n, tph_reason_code *codes, uint32_t cnt[G_COUNT])
{
	uint32_t lo = range_of(f, nodes, n), feasible;
	bool range = lo != NOPOS, bare = af_head_bare(sh);
	uint32_t n_log, lost;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &lost);
	const uint64_t *pass = range && bare && (uint64_t)n * WIDE_SHARE >= f->n
	                           ? af_row_pass(f, sh->row, log, n_log, lost)
	                           : NULL;
	if (pass)
		feasible = scan_pass(f, sh, t, pass, nodes, n, lo, cnt);
	else if (t)
		feasible = range ? scan(f, sh, t, nodes, n, lo, true, true, bare, cnt)
		                 : scan(f, sh, t, nodes, n, 0, false, true, bare, cnt);
	else if (bare)
		feasible = range ? scan(f, sh, NULL, nodes, n, lo, true, false, true, cnt)
		                 : scan(f, sh, NULL, nodes, n, 0, false, false, true, cnt);
	else
		feasible = range ? scan(f, sh, NULL, nodes, n, lo, true, false, false, cnt)
		                 : scan(f, sh, NULL, nodes, n, 0, false, false, false, cnt);
	for (uint32_t i = 0; !feasible && i < n; i++)
		codes[i] = code_of(sh, t, f->pos[nodes[i]]);
	return feasible;
}

/* The head sums of f->feas[0..k) (nodes a touch left unknown, NaN) into f->pre and f->bat,
 * in one call over them (the head's scores are node-local, so any set of nodes gives each the
 * same sums). */
static void score_unknown(alloc_fast *f, const af_shape *sh, tph_idx task, uint32_t k)
{
	if (tph_score_head_splits(f->s, task, sh->tail)) /* a call costs no batch spans */
		tph_score_nodes_head_split(f->s, task, f->feas, k, sh->tail, f->pre, f->bat);
	else
		tph_score_nodes_head(f->s, task, f->feas, k, sh->tail, f->pre, f->bat);
}

/* The head sums of the m members: those a touch left unknown (af_head_pre NaN, score() in
 * allocate_fast_shape.c) scored first, in the members' order. */
static void head_sums(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t m)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < m; i++) {
		f->feas[k] = f->nodes[i];
		f->at[k] = f->sub[i];
		k += isnan(af_head_pre(sh, f->sub[i]));
	}
	if (k) {
		score_unknown(f, sh, task, k);
		for (uint32_t j = 0; j < k; j++)
			af_head_put(sh, f->at[j], f->pre[j], f->bat[j]);
	}
	for (uint32_t i = 0; i < m; i++) {
		f->pre[i] = sh->part[2 * (size_t)f->sub[i]];
		f->bat[i] = sh->part[2 * (size_t)f->sub[i] + 1];
	}
}

/* ---- the first group kept between picks ---- */

/* Log entries a kept first group follows; past that the pick passes over the range again. */
#define KEEP_LOG 16u

/* The members of a head shape's first group (G_IDLE) over a range of positions as of the
 * last pick there, with their head sums (NaN: to read again), as of the touch log's length
 * `seen`. The shape's columns are a function of each node's own state (node-local verdicts,
 * groups and head scores), so a pick of the same shape over the same range sees the same
 * members but at the positions logged since: a subjob's tasks placed one by one in a
 * hypernode (45.6k of the 67k picks on 10k-topology, most one placement after the last) pass
 * over the members and the touched nodes instead of the whole hypernode. A tracker's overlays
 * only fail nodes the shape passes (allocate_fast_track.c), so a pick whose tracker holds
 * none sees the shape's members; one that holds some takes the whole pass. */
typedef struct af_hkeep {
	const af_shape *sh;
	uint32_t lo, n; /* positions lo..lo + n - 1 */
	uint32_t seen, lost;
	bool valid;
	/* members marked unknown since the last sums: at positions mark[0..n_mark), or any
	 * when `all` */
	bool all;
	uint32_t n_mark, mark[KEEP_LOG];
	uint32_t m;
	uint32_t *pos; /* [m] ascending */
	tph_idx *node;
	double *pre, *bat;
} af_hkeep;

static af_hkeep *keep_of(alloc_fast *f)
{
	af_hkeep *k = f->hkeep;
	if (k || !(k = tph_calloc(1, sizeof *k)))
		return k;
	size_t n = (size_t)f->n + 1;
	k->pos = tph_malloc(n * sizeof *k->pos);
	k->node = tph_malloc(n * sizeof *k->node);
	k->pre = tph_malloc(n * sizeof *k->pre);
	k->bat = tph_malloc(n * sizeof *k->bat);
	f->hkeep = k;
	if (!k->pos || !k->node || !k->pre || !k->bat) {
		af_head_free(f);
		return NULL;
	}
	return k;
}

void af_head_free(alloc_fast *f)
{
	af_hkeep *k = f->hkeep;
	if (!k)
		return;
	tph_free(k->pos);
	tph_free(k->node);
	tph_free(k->pre);
	tph_free(k->bat);
	tph_free(k);
	f->hkeep = NULL;
}

/* The index of the first member at or after position p. */
static uint32_t keep_find(const af_hkeep *k, uint32_t p)
{
	uint32_t a = 0, b = k->m;
	while (a < b) {
		uint32_t c = a + (b - a) / 2;
		if (k->pos[c] < p)
			a = c + 1;
		else
			b = c;
	}
	return a;
}

/* Position p was logged: in or out of the first group as the shape says now. */
static void keep_move(alloc_fast *f, af_hkeep *k, const af_shape *sh, uint32_t p)
{
	uint32_t a = keep_find(k, p);
	bool was = a < k->m && k->pos[a] == p, bare = af_head_bare(sh);
	bool is = own_code(sh, bare, p) == TPH_PASS && own_grp(sh, bare, p) == G_IDLE;
	size_t tail = k->m - a - was;
	if (was != is) {
		uint32_t from = a + was, to = a + is;
		memmove(k->pos + to, k->pos + from, tail * sizeof *k->pos);
		memmove(k->node + to, k->node + from, tail * sizeof *k->node);
		memmove(k->pre + to, k->pre + from, tail * sizeof *k->pre);
		memmove(k->bat + to, k->bat + from, tail * sizeof *k->bat);
		k->m = k->m - was + is;
	}
	if (!is)
		return;
	k->pos[a] = p;
	k->node[a] = f->s->ready_nodes[p];
	k->pre[a] = (double)NAN;
	if (k->n_mark < KEEP_LOG)
		k->mark[k->n_mark++] = p;
	else
		k->all = true;
}

/* Whether the kept group serves this pick (then brought up to the log's end, and not empty). */
static bool keep_hit(alloc_fast *f, af_hkeep *k, const af_shape *sh, const af_track *t, uint32_t lo,
                     uint32_t n)
{
	uint32_t n_log, lost;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &lost);
	if (!k->valid || k->sh != sh || (t && t->n_ovs) || k->lo != lo || k->n != n ||
	    k->lost != lost || n_log - k->seen > KEEP_LOG)
		return false;
	for (uint32_t i = k->seen; i < n_log; i++) {
		uint32_t p = f->pos[log[i]];
		if (p - lo < n)
			keep_move(f, k, sh, p);
	}
	k->seen = n_log;
	return k->m > 0;
}

/* The first group of a full pass (f->nodes, f->sub; sums in f->pre, f->bat when `sums`): the
 * shape's own when the tracker holds no overlay. */
static void keep_save(alloc_fast *f, af_hkeep *k, const af_shape *sh, const af_track *t,
                      uint32_t lo, uint32_t n, uint32_t m, bool sums)
{
	if (t && t->n_ovs)
		return;
	*k = (af_hkeep){.sh = sh,
	                .lo = lo,
	                .n = n,
	                .valid = true,
	                .all = !sums,
	                .m = m,
	                .pos = k->pos,
	                .node = k->node,
	                .pre = k->pre,
	                .bat = k->bat};
	tph_eqc_log(f->eqc, &k->seen, &k->lost);
	memcpy(k->pos, f->sub, m * sizeof *k->pos);
	memcpy(k->node, f->nodes, m * sizeof *k->node);
	for (uint32_t i = 0; i < m; i++) {
		k->pre[i] = sums ? f->pre[i] : (double)NAN;
		k->bat[i] = sums ? f->bat[i] : (double)NAN;
	}
}

/* Kept member i, marked unknown: its sums as the shape holds them, listed for scoring at q
 * when unknown there too; the next q. */
static uint32_t keep_read(alloc_fast *f, af_hkeep *k, const af_shape *sh, uint32_t i, uint32_t q)
{
	size_t p = k->pos[i];
	f->feas[q] = k->node[i];
	f->at[q] = i;
	k->pre[i] = af_head_pre(sh, (uint32_t)p);
	k->bat[i] = isnan(k->pre[i]) ? (double)NAN : sh->part[2 * p + 1];
	return q + isnan(k->pre[i]);
}

/* The marked members in the members' order (the marks sorted, each once). */
static uint32_t keep_marked(alloc_fast *f, af_hkeep *k, const af_shape *sh)
{
	uint32_t q = 0, *mk = k->mark;
	for (uint32_t j = 1; j < k->n_mark; j++)
		for (uint32_t i = j; i && mk[i - 1] > mk[i]; i--) {
			uint32_t x = mk[i];
			mk[i] = mk[i - 1], mk[i - 1] = x;
		}
	for (uint32_t j = 0; j < k->n_mark; j++) {
		uint32_t i = keep_find(k, mk[j]);
		if ((!j || mk[j] != mk[j - 1]) && i < k->m && k->pos[i] == mk[j] &&
		    isnan(k->pre[i]))
			q = keep_read(f, k, sh, i, q);
	}
	return q;
}

/* head_sums over the kept group: only the members marked unknown are read, and those the
 * shape holds unknown scored (the same nodes, in the same order, as head_sums would score).
 * A sum that stays unknown (a failed head) is read again at every pick, as head_sums would. */
static void keep_sums(alloc_fast *f, af_hkeep *k, af_shape *sh, tph_idx task)
{
	uint32_t q = 0;
	if (k->all) {
		for (uint32_t i = 0; i < k->m; i++)
			if (isnan(k->pre[i]))
				q = keep_read(f, k, sh, i, q);
	} else {
		q = keep_marked(f, k, sh);
	}
	k->n_mark = 0;
	k->all = false;
	if (!q)
		return;
	score_unknown(f, sh, task, q);
	for (uint32_t j = 0; j < q; j++) {
		af_head_put(sh, k->pos[f->at[j]], f->pre[j], f->bat[j]);
		k->pre[f->at[j]] = f->pre[j];
		k->bat[f->at[j]] = f->bat[j];
		k->all |= isnan(f->pre[j]);
	}
}

/* The first group's choice from the kept members: true when decided (*node set). */
static bool keep_choose(alloc_fast *f, af_hkeep *k, af_shape *sh, tph_idx task, tph_idx *node)
{
	if (k->m == 1) {
		*node = k->node[0];
		return true;
	}
	keep_sums(f, k, sh, task);
	if (!tph_score_nodes_tail(f->s, task, k->node, k->m, sh->tail, k->pre, k->bat, f->scores))
		return false;
	*node = tph_best_node(f->s, task, k->node, f->scores, k->m);
	return *node != TPH_NOIDX;
}

int af_head_choose(alloc_fast *f, af_shape *sh, const af_track *t, tph_idx task,
                   const tph_idx *nodes, uint32_t n, tph_idx *node, tph_reason_code *codes)
{
	uint32_t cnt[G_COUNT] = {0}, lo = range_of(f, nodes, n);
	af_hkeep *k = lo != NOPOS ? keep_of(f) : NULL;
	uint8_t first = 0;
	*node = TPH_NOIDX;
	if (k && keep_hit(f, k, sh, t, lo, n)) {
		if (keep_choose(f, k, sh, task, node))
			return AF_NODE;
		first = G_IDLE + 1; /* the other groups want the counts: one pass */
		verdicts(f, sh, t, nodes, n, codes, cnt);
	} else {
		if (k)
			k->valid = false;
		if (!verdicts(f, sh, t, nodes, n, codes, cnt))
			return AF_NONE;
	}
	for (uint8_t g = first; g < G_NONE; g++) {
		if (!cnt[g])
			continue;
		uint32_t m = g == G_IDLE ? cnt[g] : members(f, sh, t, nodes, n, g);
		if (m > 1)
			head_sums(f, sh, task, m);
		if (g == G_IDLE && k)
			keep_save(f, k, sh, t, lo, n, m, m > 1);
		if (m == 1) { /* a single candidate is taken unscored */
			*node = f->nodes[0];
			return AF_NODE;
		}
		if (!tph_score_nodes_tail(f->s, task, f->nodes, m, sh->tail, f->pre, f->bat,
		                          f->scores))
			continue; /* a failed BatchNodeOrder: no node of this group */
		*node = tph_best_node(f->s, task, f->nodes, f->scores, m);
		if (*node != TPH_NOIDX)
			return AF_NODE;
	}
	return AF_NODE;
}

/* network-topology-aware scores. Nodes (BatchNodeOrder): a task whose subjob has a network
 * topology scores the tier of the LCA of the node's hypernode and the hypernode its subjob is
 * being placed in; any other task the hypernode-level binpacking of every tier above the node.
 * Hypernodes (HyperNodeOrder): binpacking of a whole subjob. Ties at the top score gain the
 * share of the subjob's tasks already under the candidate. */
#include "network_topology_aware.h"

#include <float.h>
#include <string.h>

/* The dimensions of req that binpack reads (`nd` hoisted by the callers). */
static void bp_prep(const nta_st *st, uint32_t nd, const int64_t *req, nta_bp *bp)
{
	bp->n = 0;
	bp->wsum = 0;
	nd = nd < TPH_RES_MAX ? nd : TPH_RES_MAX;
	for (uint32_t d = 0; d < nd; d++) {
		if (req[d] <= 0 || !st->has[d])
			continue;
		bp->off[bp->n] = (size_t)d * st->nh;
		bp->r[bp->n] = (double)req[d];
		bp->w[bp->n++] = (double)st->w[d];
		bp->wsum += st->w[d];
	}
}

/* getPodHyperNodeBinPackingScore / getSubJobHyperNodeBinPackingScore: the weighted average of
 * (used + request) / allocatable over the requested weighted resources, 0 when one overflows. */
static double binpack(const nta_st *st, const nta_bp *bp, tph_idx h)
{
	double total = 0;
	for (uint32_t k = 0; k < bp->n; k++) {
		double alloc = (double)st->alloc[bp->off[k] + h];
		double used = (double)st->used[bp->off[k] + h];
		if (used + bp->r[k] > alloc)
			return 0;
		total += bp->w[k] * ((used + bp->r[k]) / alloc);
	}
	return bp->wsum > 0 ? total / (double)bp->wsum : 0;
}

/* Count (by +1) or uncount (by -1) a task on node's hypernodes. */
static void count_at(nta_st *st, const tph_hn_tree *t, tph_idx node, uint32_t by)
{
	if (node == TPH_NOIDX)
		return;
	for (uint32_t k = t->of_off[node]; k < t->of_off[node + 1]; k++)
		st->cnt[t->of[k]] += by;
}

/* Task k of the current subjob counted at its node now. */
static void recount(nta_st *st, const tph_hn_tree *t, const tph_idx *node, tph_idx k)
{
	if (node[k] != st->seen[k]) {
		count_at(st, t, st->seen[k], (uint32_t)-1);
		count_at(st, t, node[k], 1);
		st->seen[k] = node[k];
	}
}

/* scoreWithTaskNum for every hypernode: st->cnt[h] = subjob sj's tasks on nodes of h. Kept
 * from the last call: the subjob's move counter (topology.h) says whether no task changed
 * node since, or one (a pick's placement between two calls), and which; else every task whose
 * node differs from the one it was counted at is recounted. */
static void task_counts(nta_st *st, const tph_session *s, tph_idx sj)
{
	const tph_subjobs *o = &tph_view_of(s)->topo->sj;
	const tph_hn_tree *t = &tph_view_of(s)->topo->t;
	const tph_idx *node = tph_view_of(s)->tasks->node;
	if (st->cnt_sj != sj) {
		if (st->cnt_sj != TPH_NOIDX)
			for (uint32_t i = o->task_off[st->cnt_sj]; i < o->task_off[st->cnt_sj + 1];
			     i++)
				count_at(st, t, st->seen[o->task[i]], (uint32_t)-1);
		for (uint32_t i = o->task_off[sj]; i < o->task_off[sj + 1]; i++)
			st->seen[o->task[i]] = TPH_NOIDX;
		st->cnt_sj = sj;
	} else if (o->moves[sj] == st->cnt_moves) {
		return;
	} else if (o->moves[sj] == st->cnt_moves + 1) {
		recount(st, t, node, o->last_moved[sj]);
		st->cnt_moves = o->moves[sj];
		return;
	}
	for (uint32_t i = o->task_off[sj]; i < o->task_off[sj + 1]; i++)
		recount(st, t, node, o->task[i]);
	st->cnt_moves = o->moves[sj];
}

/* One BatchNodeOrder call as its span functions see it. */
typedef struct nta_call {
	const nta_st *st;
	const tph_session *s;
	const int64_t *req;
	nta_bp bp; /* req's */
	const tph_idx *nodes;
	double *out;
	const double *hb; /* normal_pods: binpack of every hypernode for the task, or NULL */
} nta_call;

static double normal_node(const nta_call *c, tph_idx node)
{
	const nta_st *st = c->st;
	const tph_hn_tree *t = &tph_view_of(c->s)->topo->t;
	double total = 0;
	for (int32_t tier = st->min_tier; tier <= st->max_tier; tier++) {
		tph_idx h = nta_at_tier(t, node, tier);
		double score = h == TPH_NOIDX ? 1.0 : c->hb ? c->hb[h] : binpack(st, &c->bp, h);
		total += st->tier_w[tier - st->min_tier] * score;
	}
	return nta_scale(st, total / st->tier_w_sum);
}

static void normal_span(void *cv, uint32_t k, uint32_t b, uint32_t e)
{
	const nta_call *c = cv;
	(void)k;
	for (uint32_t i = b; i < e; i++)
		c->out[i] = normal_node(c, c->nodes[i]);
}

/* The same scores from the table: a node whose hypernodes are one chain scores as the first
 * node of its chain in the call did (the session thread fills the chain scores first). */
static void chain_span(void *cv, uint32_t k, uint32_t b, uint32_t e)
{
	const nta_call *c = cv;
	const nta_st *st = c->st;
	(void)k;
	for (uint32_t i = b; i < e; i++) {
		tph_idx ch = st->chain[c->nodes[i]];
		c->out[i] = ch != TPH_NOIDX ? st->chain_score[ch] : normal_node(c, c->nodes[i]);
	}
}

/* normal_node from the hb table for a node of chain ch, the same sums in the same order: the
 * kept sum of the tiers but the last (pre), then the last's term, `top` (every chain's
 * hypernode of the last tier is the cluster top, the only one of its tier: chains()). */
static double chain_pre(nta_st *st, const double *hb, tph_idx ch)
{
	uint32_t last = (uint32_t)(st->max_tier - st->min_tier);
	if (st->pre_mark[ch] != st->pre_gen) {
		const tph_idx *at = st->chain_at + (size_t)ch * (last + 1);
		double total = 0;
		for (uint32_t k = 0; k < last; k++)
			total += st->tier_w[k] * (at[k] == TPH_NOIDX ? 1.0 : hb[at[k]]);
		st->pre[ch] = total;
		st->pre_mark[ch] = st->pre_gen;
	}
	return st->pre[ch];
}

static double chain_node(nta_st *st, const nta_call *c, tph_idx ch, double top)
{
	return nta_scale(st, (chain_pre(st, c->hb, ch) + top) / st->tier_w_sum);
}

/* The cluster top's term of a chain's sum, from the table (chain_at only). */
static double top_term(const nta_st *st, const tph_session *s)
{
	return st->tier_w[st->max_tier - st->min_tier] * st->hb[tph_view_of(s)->topo->t.top];
}

/* A new call's chain scores: none valid. */
static void chain_reset(nta_st *st)
{
	if (++st->chain_gen == 0) { /* wrapped: old marks would look current */
		memset(st->chain_mark, 0, (st->nh + 1) * sizeof *st->chain_mark);
		st->chain_gen = 1;
	}
}

/* Also the scores of the nodes with a chain: whether that was every node (then no span pass
 * is needed; allocate's sets of hypernodes ask for one node of each chain). */
static bool chain_scores(nta_st *st, const nta_call *c, uint32_t n)
{
	bool all = true;
	tph_idx prev = TPH_NOIDX; /* a pick's nodes come rack by rack */
	double score = 0, top = 0;
	if (st->chain_at)
		top = top_term(st, c->s);
	chain_reset(st);
	for (uint32_t i = 0; i < n; i++) {
		tph_idx ch = st->chain[c->nodes[i]];
		if (ch == TPH_NOIDX) {
			all = false;
			continue;
		}
		if (ch != prev && st->chain_mark[ch] != st->chain_gen) {
			st->chain_mark[ch] = st->chain_gen;
			st->chain_score[ch] =
			    st->chain_at ? chain_node(st, c, ch, top) : normal_node(c, c->nodes[i]);
		}
		if (ch != prev)
			score = st->chain_score[ch], prev = ch;
		c->out[i] = score;
	}
	return all;
}

/* Every chain's kept sum dropped. */
static void pre_all(nta_st *st)
{
	if (st->pre && ++st->pre_gen == 0) { /* wrapped: old marks would look current */
		memset(st->pre_mark, 0, (st->nh + 1) * sizeof *st->pre_mark);
		st->pre_gen = 1;
	}
}

/* The chains' kept sums that read hb[h]: those of the chains under h (h holds their nodes),
 * unless h is of the last tier (no kept sum reads it); all of them when the hypernodes do not
 * form a tree (no pre-order to find them by). */
static void pre_drop(nta_st *st, const tph_hn_tree *t, tph_idx h)
{
	if (!st->pre || t->tier[h] >= st->max_tier)
		return;
	if (!t->ready) {
		pre_all(st);
		return;
	}
	for (uint32_t i = t->pre[h]; i < t->pre[h] + t->size[h]; i++)
		st->pre_mark[t->preorder[i]] = 0;
}

/* Every hypernode's binpack for req into st->hb: only those whose used moved since, when the
 * table holds this request row (allocate asks row after row of one shape). */
static void hb_fill(nta_st *st, const tph_hn_tree *t, uint32_t nd, const int64_t *req,
                    const nta_bp *bp)
{
	bool same = st->hb_valid && !memcmp(st->hb_req, req, nd * sizeof *req);
	for (uint32_t i = 0; same && i < st->n_dirty; i++) {
		st->hb[st->hb_dirty[i]] = binpack(st, bp, st->hb_dirty[i]);
		pre_drop(st, t, st->hb_dirty[i]);
	}
	for (tph_idx h = 0; !same && h < st->nh; h++)
		st->hb[h] = binpack(st, bp, h);
	if (!same)
		pre_all(st);
	for (uint32_t i = 0; i < st->n_dirty; i++)
		st->hb_stale[st->hb_dirty[i]] = 0;
	st->n_dirty = 0;
	memcpy(st->hb_req, req, nd * sizeof *req);
	st->hb_valid = true;
}

/* batchNodeOrderFnForNormalPods: a tier without a hypernode over the node scores full. Per
 * node, so spans of nodes go to the session's threads; they write every score, so out is
 * zeroed only when they do not run. */
static void normal_pods(nta_st *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                        uint32_t n, double *out)
{
	if (!st->normal_enable || !(st->tier_w_sum > 0)) {
		memset(out, 0, n * sizeof *out);
		return;
	}
	const uint32_t nd = tph_view_of(s)->ndim;
	nta_call c = {.st = st,
	              .s = s,
	              .req = tph_view_of(s)->tasks->req + (size_t)task * nd,
	              .nodes = nodes,
	              .out = out};
	bp_prep(st, nd, c.req, &c.bp);
	/* Nodes under one hypernode share its binpack, and nodes with the same hypernodes their
	 * whole score: when the nodes' binpacks outnumber the hypernodes (allocate asks for one
	 * node per set of hypernodes), or the table holds this request row (then only the
	 * hypernodes whose used moved are computed again), each is computed once (the same value
	 * as per node) before the spans read them. */
	uint32_t tiers = (uint32_t)(st->max_tier - st->min_tier + 1);
	bool kept = st->hb_valid && !memcmp(st->hb_req, c.req, nd * sizeof *c.req);
	if ((uint64_t)n * tiers < st->nh && !kept) {
		tph_session_parallel(s, n, normal_span, &c);
		return;
	}
	hb_fill(st, &tph_view_of(s)->topo->t, nd, c.req, &c.bp);
	c.hb = st->hb;
	if (!chain_scores(st, &c, n))
		tph_session_parallel(s, n, chain_span, &c);
}

/* scoreHyperNodeWithTier: (maxTier - tier) / (maxTier - minTier) inside the tiers. */
static double tier_score(const nta_st *st, int32_t tier)
{
	if (st->min_tier == st->max_tier)
		return 1;
	if (tier < st->min_tier || tier > st->max_tier)
		return 0;
	return (double)(st->max_tier - tier) / (double)(st->max_tier - st->min_tier);
}

/* Add the task share to the scores that tie at the maximum, when more than one does. The
 * hypernode of entry i is map[idx[i]], or idx[i] itself when map is NULL. */
static void break_ties(nta_st *st, const tph_session *s, tph_idx sj, const tph_idx *map,
                       const tph_idx *idx, uint32_t n, double *score)
{
	double max = -1;
	uint32_t at_max = 0;
	for (uint32_t i = 0; i < n; i++)
		if (score[i] > max) {
			max = score[i];
			at_max = 1;
		} else if (score[i] == max) {
			at_max++;
		}
	const tph_subjobs *o = &tph_view_of(s)->topo->sj;
	uint32_t total = o->task_off[sj + 1] - o->task_off[sj];
	if (at_max < 2 || !total)
		return;
	task_counts(st, s, sj);
	for (uint32_t i = 0; i < n; i++) {
		tph_idx h = map ? map[idx[i]] : idx[i];
		if (score[i] == max && h != TPH_NOIDX)
			score[i] += (double)st->cnt[h] / (double)total;
	}
}

/* The tier score of the LCA of each node's lowest hypernode and the placing one, computed
 * once per lowest hypernode of the call (its nodes score alike) into the chain scores, those
 * hypernodes listed; a node without one scores 0. The top score and how many nodes reach it
 * (break_ties' first pass) into *max, *at_max; returns how many are listed. */
static uint32_t lca_scores(nta_st *st, const tph_hn_tree *t, tph_idx placing, const tph_idx *nodes,
                           uint32_t n, double *max, uint32_t *at_max)
{
	double top = -1, v = 0;
	uint32_t at = 0, nl = 0;
	tph_idx prev = TPH_NOIDX; /* a pick's nodes come rack by rack */
	chain_reset(st);
	for (uint32_t i = 0; i < n; i++) {
		tph_idx h = t->lowest[nodes[i]];
		if (h == TPH_NOIDX)
			v = 0, prev = TPH_NOIDX;
		else if (h != prev) {
			prev = h;
			if (st->chain_mark[h] != st->chain_gen) {
				st->chain_mark[h] = st->chain_gen;
				st->listed[nl++] = h;
				st->chain_score[h] =
				    h == placing
				        ? 1
				        : tier_score(st, t->tier[tph_hn_lca(t, h, placing)]);
			}
			v = st->chain_score[h];
		}
		at = v > top ? 1 : at + (v == top);
		top = v > top ? v : top;
	}
	*max = top, *at_max = at;
	return nl;
}

/* batchNodeOrderFnForNetworkAwarePods: nothing until the subjob is being placed somewhere.
 * Nodes with the same lowest hypernode score alike, the tie break's share included, so
 * break_ties and the scaling run once per listed hypernode (a pick calls this over a few
 * candidates, mostly of one or two racks). */
static void network_aware(nta_st *st, const tph_session *s, tph_idx task, tph_idx sj,
                          const tph_idx *nodes, uint32_t n, double *out)
{
	const tph_hn_tree *t = &tph_view_of(s)->topo->t;
	tph_idx placing = tph_task_job_hn(s, task);
	if (placing == TPH_NOIDX) {
		memset(out, 0, n * sizeof *out);
		return;
	}
	double max;
	uint32_t at_max, nl = lca_scores(st, t, placing, nodes, n, &max, &at_max);
	const tph_subjobs *o = &tph_view_of(s)->topo->sj;
	uint32_t total = o->task_off[sj + 1] - o->task_off[sj];
	bool ties = at_max >= 2 && total;
	if (ties)
		task_counts(st, s, sj);
	for (uint32_t k = 0; k < nl; k++) {
		tph_idx h = st->listed[k];
		double v = st->chain_score[h];
		if (ties && v == max)
			v += (double)st->cnt[h] / (double)total;
		st->chain_score[h] = nta_scale(st, v);
	}
	double none = nta_scale(st, 0); /* no lowest hypernode: no share either */
	for (uint32_t i = 0; i < n; i++) {
		tph_idx h = t->lowest[nodes[i]];
		out[i] = h == TPH_NOIDX ? none : st->chain_score[h];
	}
}

/* Which of batchNodeOrderFn's branches scores the task. */
enum {
	NTA_NO_JOB,
	NTA_AWARE,
	NTA_NORMAL
};
static int branch(const tph_session *s, tph_idx task, tph_idx sj)
{
	if (tph_view_of(s)->tasks->job[task] == TPH_NOIDX)
		return NTA_NO_JOB;
	return sj != TPH_NOIDX && tph_view_of(s)->topo->sj.topo_has[sj] ? NTA_AWARE : NTA_NORMAL;
}

void nta_batch_node_order(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                          uint32_t n, double *out)
{
	nta_st *st = stv;
	tph_idx sj = tph_task_subjob(s, task);
	switch (branch(s, task, sj)) {
	case NTA_AWARE:
		network_aware(st, s, task, sj, nodes, n, out);
		break;
	case NTA_NORMAL:
		normal_pods(st, s, task, nodes, n, out);
		break;
	default:
		memset(out, 0, n * sizeof *out);
	}
}

/* chain_node's score is scale((pre + top) / sum) = (100 w) * ((pre + top) / sum): against
 * (100 w / sum) * (pre + top), four roundings of the score's and two of the bound's scale, each
 * relative and at most DBL_EPSILON / 2, so 8 DBL_EPSILON covers |pre + top| <= |pre| + |top|. */
bool nta_score_hn_bound(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                        uint32_t n, double *lower, tph_score_bound *b)
{
	nta_st *st = stv;
	if (branch(s, task, tph_task_subjob(s, task)) != NTA_NORMAL || !st->normal_enable ||
	    !(st->tier_w_sum > 0) || !st->chain_at)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (st->chain[nodes[i]] == TPH_NOIDX)
			return false;
	const uint32_t nd = tph_view_of(s)->ndim;
	const int64_t *req = tph_view_of(s)->tasks->req + (size_t)task * nd;
	nta_bp bp;
	bp_prep(st, nd, req, &bp);
	hb_fill(st, &tph_view_of(s)->topo->t, nd, req, &bp);
	for (uint32_t i = 0; i < n; i++)
		lower[i] = chain_pre(st, st->hb, st->chain[nodes[i]]);
	b->top = top_term(st, s);
	b->scale = nta_scale(st, 1.0) / st->tier_w_sum;
	b->rel = 8 * DBL_EPSILON;
	return true;
}

int nta_score_locality(void *stv, const tph_session *s, tph_idx task)
{
	const nta_st *st = stv;
	switch (branch(s, task, tph_task_subjob(s, task))) {
	case NTA_AWARE: /* the LCA tiers and the tie break read where the subjob is going */
		return tph_task_job_hn(s, task) == TPH_NOIDX ? TPH_SCORE_LOCAL : TPH_SCORE_GLOBAL;
	case NTA_NORMAL:
		return st->normal_enable && st->tier_w_sum > 0
		           ? TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE | TPH_SCORE_HN_SET
		           : TPH_SCORE_LOCAL;
	default:
		return TPH_SCORE_LOCAL;
	}
}

/* Each hypernode's binpacking of the whole subjob, unscaled. */
static void subjob_binpack(nta_st *st, const tph_session *s, tph_idx sj, const tph_idx *hns,
                           uint32_t n, double *out)
{
	const tph_subjobs *o = &tph_view_of(s)->topo->sj;
	int64_t *req = st->sj_req; /* the requests of every task of the subjob: fixed */
	if (st->sj_req_of != sj) {
		memset(req, 0, tph_view_of(s)->ndim * sizeof *req);
		for (uint32_t i = o->task_off[sj]; i < o->task_off[sj + 1]; i++) {
			const int64_t *r =
			    tph_view_of(s)->tasks->req + (size_t)o->task[i] * tph_view_of(s)->ndim;
			for (uint32_t d = 0; d < tph_view_of(s)->ndim; d++)
				req[d] += r[d];
		}
		st->sj_req_of = sj;
		bp_prep(st, tph_view_of(s)->ndim, req, &st->sj_bp);
	}
	for (uint32_t i = 0; i < n; i++)
		out[i] = binpack(st, &st->sj_bp, hns[i]);
}

void nta_hypernode_order(void *stv, const tph_session *s, tph_idx sj, const tph_idx *hns,
                         uint32_t n, double *out)
{
	nta_st *st = stv;
	subjob_binpack(st, s, sj, hns, n, out);
	if (n > 1) /* one score ties with none */
		break_ties(st, s, sj, NULL, hns, n, out);
	for (uint32_t i = 0; i < n; i++)
		out[i] = nta_scale(st, out[i]);
}

/* A call for one hypernode breaks no tie: its binpack, scaled. */
void nta_hypernode_order_each(void *stv, const tph_session *s, tph_idx sj, const tph_idx *hns,
                              uint32_t n, double *out)
{
	nta_st *st = stv;
	subjob_binpack(st, s, sj, hns, n, out);
	for (uint32_t i = 0; i < n; i++)
		out[i] = nta_scale(st, out[i]);
}

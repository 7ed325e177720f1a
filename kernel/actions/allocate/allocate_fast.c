/* Class-level candidates for allocate's flat path (allocate_fast.h): which tasks qualify, the
 * shape table with its memory budget, and the choice itself, read from a shape's tournament
 * as prioritizeNodes and SelectBestNode would make it. */
#include "allocate_fast.h"
#include "allocate_fast_type.h"
#include "allocate_hn_rank.h"

#include "base/mem.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#define NOPOS UINT32_MAX
/* The default budget of shape columns kept at once: room for BUDGET_SHAPES plain shapes, at
 * least BUDGET bytes. A workload's shapes are its pod specs times request rows, whatever the
 * node count, while a shape grows with the ready nodes: a fixed byte budget that holds every
 * shape of a 10k cluster makes a 100k one evict and rebuild (197 shapes, ~1.66 MB each). */
#define BUDGET        ((size_t)256 << 20)
#define BUDGET_SHAPES 256u
/* alloc_fast_pick_among serves subsets of at least 1/AMONG_SHARE of the ready nodes: the
 * shape's upkeep covers every node the action touched, which for a rack costs more than
 * filtering and scoring the rack itself (10k-topology and 10k-mixed, 1 thread, CPU s: 1.59 /
 * 0.99 serving every subset, 1.01 / 0.78 from a quarter, 1.54 / 0.80 serving none). */
#define AMONG_SHARE 4u
/* prepare(): the shape's columns were left alone, its pick reads the types (light_decide). */
#define AF_LIGHT 3 /* not TPH_OK, TPH_DECLINED or an error */

/* ---- context ---- */

/* Predicates that read nothing of a task but its spec and request (TPH_PRED_SPEC): shapes can
 * then be shared by jobs. (action_eqc.c has already refused predicates that are not node-local.) */
static bool spec_only_predicates(const tph_session *s)
{
	return tph_predicate_locality(s) >= TPH_PRED_SPEC;
}

static int scratch(alloc_fast *f)
{
	tph_session *s = f->s;
	size_t n = (size_t)f->n + 1;
	f->pos = tph_malloc(((size_t)s->nodes.n + 1) * sizeof *f->pos);
	f->plist = tph_malloc(n * sizeof *f->plist);
	f->sub = tph_malloc(n * sizeof *f->sub);
	f->at = tph_malloc(n * sizeof *f->at);
	f->nodes = tph_malloc(n * sizeof *f->nodes);
	f->feas = tph_malloc(n * sizeof *f->feas);
	f->codes = tph_malloc(n * sizeof *f->codes);
	f->vbuf = tph_malloc(n * sizeof *f->vbuf);
	f->scores = tph_malloc(n * sizeof *f->scores);
	f->pre = tph_malloc(n * sizeof *f->pre);
	f->bat = tph_malloc(n * sizeof *f->bat);
	if (!f->pos || tph_lazy32_init(&f->shape_of, s->tasks.n + 1) ||
	    tph_lazy32_init(&f->head_of, s->tasks.n + 1) || !f->plist || !f->sub || !f->at ||
	    !f->nodes || !f->feas || !f->codes || !f->vbuf || !f->scores || !f->pre || !f->bat ||
	    af_recent_init(f))
		return TPH_ENOMEM;
	memset(f->pos, 0xff, ((size_t)s->nodes.n + 1) * sizeof *f->pos);
	for (uint32_t p = 0; p < f->n; p++)
		f->pos[s->ready_nodes[p]] = p;
	return TPH_OK;
}

size_t alloc_fast_default_budget(uint32_t n)
{
	const af_shape plain = {.tail = AF_NOTAIL};
	size_t room = BUDGET_SHAPES * af_shape_bytes(&plain, n);
	return room > BUDGET ? room : BUDGET;
}

alloc_fast *alloc_fast_new(tph_session *s, tph_eqc *eqc, tph_ph *ph)
{
	if (!eqc || s->opts.naive || ph->o.sampling || s->ep[TPH_EP_BEST_NODE].n || !s->n_ready)
		return NULL;
	alloc_fast *f = tph_calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->s = s;
	f->eqc = eqc;
	f->ph = ph;
	f->n = s->n_ready;
	f->fit_task = TPH_NOIDX;
	f->by_job = !spec_only_predicates(s);
	f->spec_only = tph_predicate_locality(s) >= TPH_PRED_SPEC_ONLY;
	f->soft = s->snap->shard_mode == TPH_SHARD_SOFT;
	f->shard_code = ph->shard_code;
	f->budget =
	    s->opts.shape_cache_bytes ? s->opts.shape_cache_bytes : alloc_fast_default_budget(f->n);
	if (scratch(f)) {
		alloc_fast_free(f);
		return NULL;
	}
	return f;
}

void alloc_fast_free(alloc_fast *f)
{
	if (!f)
		return;
	for (uint32_t i = 0; i < f->n_shapes; i++) {
		af_shape_release(f->shapes[i]);
		tph_free(f->shapes[i]);
	}
	af_track_free(f);
	af_hn_sets_free(f);
	af_row_free(f);
	af_anchor_free(f);
	af_head_free(f);
	af_type_free(f);
	af_none_free(f);
	tph_free(f->shapes);
	tph_free(f->tab);
	tph_free(f->pos);
	tph_lazy32_free(&f->shape_of);
	tph_lazy32_free(&f->head_of);
	tph_free(f->plist);
	tph_free(f->sub);
	tph_free(f->at);
	af_recent_free(f);
	tph_free(f->nodes);
	tph_free(f->feas);
	tph_free(f->codes);
	tph_free(f->vbuf);
	tph_free(f->scores);
	tph_free(f->pre);
	tph_free(f->bat);
	tph_free(f);
}

/* ---- shapes: (spec, request row[, job]) ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0x100000001b3ull;
}

static bool same_shape(const alloc_fast *f, const af_shape *sh, tph_idx t, tph_idx job, bool head)
{
	const tph_session *s = f->s;
	return sh->spec == s->tasks.spec[t] && sh->job == job && af_head_only(sh) == head &&
	       !memcmp(sh->req, s->tasks.req + (size_t)t * s->ndim, s->ndim * sizeof *sh->req);
}

static int rehash(alloc_fast *f, uint32_t cap)
{
	uint32_t *t = tph_calloc(cap, sizeof *t);
	if (!t)
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < f->n_shapes; i++) {
		uint32_t at = (uint32_t)f->shapes[i]->hash & (cap - 1);
		while (t[at])
			at = (at + 1) & (cap - 1);
		t[at] = i + 1;
	}
	tph_free(f->tab);
	f->tab = t;
	f->tcap = cap;
	return TPH_OK;
}

static af_shape *shape_add(alloc_fast *f, tph_idx t, tph_idx job, uint64_t h, int loc,
                           uint32_t tail, bool keyrow)
{
	const tph_session *s = f->s;
	af_shape *sh = tph_calloc(1, sizeof *sh);
	af_row *row = sh ? af_row_of(f, t) : NULL;
	af_pred *pred = row && f->spec_only ? af_pred_of(f, t) : NULL;
	if (!row || (f->spec_only && !pred) ||
	    tph_grow(&f->shapes, &f->cap_shapes, f->n_shapes + 1, sizeof *f->shapes)) {
		tph_free(sh);
		return NULL;
	}
	*sh = (af_shape){.spec = s->tasks.spec[t],
	                 .req = s->tasks.req + (size_t)t * s->ndim,
	                 .job = job,
	                 .row = row,
	                 .pred = pred,
	                 .keyrow = keyrow,
	                 .hash = h,
	                 .loc = loc,
	                 .tail = tail};
	f->shapes[f->n_shapes++] = sh;
	if ((uint64_t)f->n_shapes * 2 > f->tcap && rehash(f, f->tcap ? f->tcap * 2 : 64))
		return NULL; /* kept in the list (freed at the end), not findable */
	uint32_t at = (uint32_t)h & (f->tcap - 1);
	while (f->tab[at])
		at = (at + 1) & (f->tcap - 1);
	f->tab[at] = f->n_shapes;
	return sh;
}

/* The task's shape (made with locality `loc`, split `tail` and the row's keys or not when new),
 * keyed on its job too when `by_job`; NULL when out of memory. Its head shape
 * (allocate_hn_pick.c) is another, with `loc` plain LOCAL and the split of the free tail. */
static af_shape *shape_of(alloc_fast *f, tph_idx t, int loc, uint32_t tail, bool by_job,
                          bool keyrow)
{
	bool head = loc == TPH_SCORE_LOCAL && tail != AF_NOTAIL;
	tph_lazy32 *of = head ? &f->head_of : &f->shape_of;
	uint32_t known = tph_lazy32_get(of, t);
	if (known)
		return f->shapes[known - 1];
	const tph_session *s = f->s;
	const int64_t *req = s->tasks.req + (size_t)t * s->ndim;
	tph_idx job = f->by_job || by_job ? s->tasks.job[t] : TPH_NOIDX;
	/* a job's tasks mostly share one shape: the last answer is tried before the hash (a
	 * shape's identity is unique, so the table would find the same one) */
	uint32_t last = f->last_of[head];
	if (last && same_shape(f, f->shapes[last - 1], t, job, head)) {
		tph_lazy32_set(of, t, last);
		return f->shapes[last - 1];
	}
	uint64_t h = mix((uint64_t)(uintptr_t)s->tasks.spec[t], job == TPH_NOIDX ? 0 : job);
	h = mix(h, head);
	for (uint32_t d = 0; d < s->ndim; d++)
		h = mix(h, (uint64_t)req[d]);
	for (uint32_t at = f->tcap ? (uint32_t)h & (f->tcap - 1) : 0; f->tcap && f->tab[at];
	     at = (at + 1) & (f->tcap - 1)) {
		af_shape *sh = f->shapes[f->tab[at] - 1];
		if (sh->hash == h && same_shape(f, sh, t, job, head)) {
			tph_lazy32_set(of, t, f->last_of[head] = f->tab[at]);
			return sh;
		}
	}
	af_shape *sh = shape_add(f, t, job, h, loc, tail, keyrow);
	if (sh)
		tph_lazy32_set(of, t, f->last_of[head] = f->n_shapes);
	return sh;
}

/* Free the columns of the least recently used shape nobody needs now. */
static bool evict_one(alloc_fast *f, const af_shape *keep)
{
	af_shape *lru = NULL;
	for (uint32_t i = 0; i < f->n_shapes; i++) {
		af_shape *sh = f->shapes[i];
		if (!sh->bytes || sh == keep || af_track_pins(f, sh))
			continue;
		if (!lru || sh->used < lru->used)
			lru = sh;
	}
	if (!lru)
		return false;
	f->bytes -= lru->bytes;
	af_shape_release(lru);
	return true;
}

static int columns(alloc_fast *f, af_shape *sh)
{
	if (sh->bytes) /* a bare head shape has no cells (af_head_bare) */
		return TPH_OK;
	size_t need = af_shape_bytes(sh, f->n);
	while (f->bytes + need > f->budget && evict_one(f, sh))
		;
	if (af_shape_alloc(sh, f->n))
		return TPH_ENOMEM;
	f->bytes += sh->bytes;
	return TPH_OK;
}

/* ---- choosing ---- */

static tph_reason_code verdict(const af_shape *sh, const af_track *t, uint32_t p)
{
	return t ? af_track_code(t, p) : af_track_base(sh, p);
}

/* Nodes the role's cache holds failed that pass now leave the candidates for this task:
 * their count, or NOPOS (nothing masked) when scores are ANCHORED, whose set they would
 * change, or the shape is ranked per hypernode set (whose ranks score only the candidate
 * sets' tails: no profile masks one). */
static uint32_t mask(alloc_fast *f, af_shape *sh, const af_track *t)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < t->n_ovs; i++)
		k += sh->cell[t->ovs[i]].grp < G_NONE;
	if (!k || sh->hn || af_anchored(sh))
		return k ? NOPOS : 0;
	for (uint32_t i = 0; i < t->n_ovs; i++) {
		uint32_t p = t->ovs[i];
		if (sh->cell[p].grp >= G_NONE)
			continue;
		sh->cnt[sh->cell[p].grp]--;
		sh->cell[p].grp = AF_MASKED;
		af_tree_update(sh, &p, 1);
	}
	return k;
}

static void unmask(alloc_fast *f, af_shape *sh, const af_track *t)
{
	for (uint32_t i = 0; i < t->n_ovs; i++) {
		uint32_t p = t->ovs[i];
		if (sh->cell[p].grp != AF_MASKED)
			continue;
		sh->cell[p].grp = alloc_group_of(f->s, &f->fit, f->s->ready_nodes[p], f->soft);
		sh->cnt[sh->cell[p].grp]++;
		af_tree_update(sh, &p, 1);
	}
}

/* prioritizeNodes past a group whose every score is -inf or NaN: the next groups in order,
 * by a scan (no plugin in this tree scores so). */
static tph_idx scan_from(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t g0)
{
	for (uint32_t g = g0; g < G_NONE; g++) {
		if (!sh->cnt[g] || (sh->dirty[g] && af_rescore(f, sh, task, g)))
			continue;
		uint32_t best = NOPOS;
		double max = -(double)INFINITY;
		for (uint32_t p = 0; p < f->n; p++) {
			if (sh->cell[p].grp != g)
				continue;
			if (sh->cnt[g] == 1 || sh->cell[p].key > max)
				max = sh->cell[p].key, best = p;
		}
		if (best != NOPOS)
			return f->s->ready_nodes[best];
	}
	return TPH_NOIDX;
}

/* The verdict a light pick reads at p: the role's cache's, else the row's and spec's. */
static tph_reason_code light_verdict(const af_shape *sh, const af_track *t, uint32_t p)
{
	return t ? af_track_code(t, p) : af_type_verdict(sh, p);
}

/* The task's nominated node when the resource fit and the pick's verdict (light: read as
 * light_decide reads it, else the shape's cells) pass it: a pick takes it first, as the normal
 * path would. */
static bool nominated(const alloc_fast *f, const af_shape *sh, const af_track *t, bool light,
                      tph_idx task, tph_idx *node)
{
	tph_idx nom = f->s->tasks.nominated[task];
	uint32_t pn = nom == TPH_NOIDX ? NOPOS : f->pos[nom];
	if (pn == NOPOS || tph_fit_check(&f->s->nodes, &f->fit, nom, true) != TPH_PASS ||
	    (light ? light_verdict(sh, t, pn) : verdict(sh, t, pn)) != TPH_PASS)
		return false;
	*node = nom;
	return true;
}

static int decide(alloc_fast *f, af_shape *sh, const af_track *t, tph_idx task, tph_idx *node,
                  tph_reason_code *codes)
{
	const tph_session *s = f->s;
	if (nominated(f, sh, t, false, task, node))
		return AF_NODE;
	uint32_t total = 0;
	for (uint32_t g = 0; g < G_NONE; g++)
		total += sh->cnt[g];
	if (!total)
		return af_none(f, sh, t, false, task, codes);
	uint32_t g = 0; /* the first's group: the first with members (masked ones are not) */
	while (!sh->cnt[g])
		g++;
	if (sh->dirty[g] && af_rescore(f, sh, task, g))
		return TPH_ENOMEM;
	af_win first;
	if (!sh->tree_due || !af_type_serves(sh) || af_type_first(f, sh, true, NULL, &first))
		first = af_tree_first(sh, f->n);
	uint32_t w = first.pos;
	*node = sh->cnt[g] == 1 || sh->cell[w].key > -(double)INFINITY
	            ? s->ready_nodes[w]
	            : scan_from(f, sh, task, g + 1);
	return AF_NODE;
}

/* decide() for a shape whose picks read the type winners and whose columns were left as they
 * were: the verdicts from its row's fit and its spec's (the tracker's, if any, whose failed
 * nodes leave the candidates as mask() has them); its first from the types, which decline
 * when a group's count would decide (decide). */
static int light_decide(alloc_fast *f, af_shape *sh, const af_track *t, tph_idx task, tph_idx *node,
                        tph_reason_code *codes)
{
	if (nominated(f, sh, t, true, task, node))
		return AF_NODE;
	af_win first;
	if (af_type_first(f, sh, false, t, &first))
		return TPH_DECLINED;
	if (first.pos == NOPOS)
		return af_none(f, sh, t, true, task, codes);
	if (!(first.key > -(double)INFINITY))
		return TPH_DECLINED;
	*node = f->s->ready_nodes[first.pos];
	return AF_NODE;
}

/* The task takes the normal path: what its role saw here goes to the helper's cache. */
static int decline(alloc_fast *f, tph_idx task)
{
	af_track_handover(f, task);
	return TPH_DECLINED;
}

/* The task's shape brought up to date, its tracker's evaluation folded in; TPH_DECLINED (the
 * role handed over) when the task must take the normal path. `local`: only plain
 * TPH_SCORE_LOCAL scores qualify (a subset's best is then read from the columns); `head`
 * (not AF_NOTAIL): the task's head shape split there (tph_score_free_tail) instead. */
static int prepare(alloc_fast *f, tph_idx task, bool local, uint32_t head, af_shape **shp,
                   af_track **tp)
{
	const tph_session *s = f->s;
	bool keyrow = false;
	int loc = !tph_eqc_spec_local(s->tasks.spec[task]) ? TPH_SCORE_GLOBAL
	          : head != AF_NOTAIL                      ? TPH_SCORE_LOCAL
	                              : tph_score_locality_row(s, task, &keyrow);
	bool by_job = loc & TPH_SCORE_JOB;
	loc &= ~TPH_SCORE_JOB;
	if (local && loc != TPH_SCORE_LOCAL)
		return decline(f, task);
	uint32_t tail = loc & TPH_SCORE_HYPERNODE ? tph_score_hn_tail(s, task) : head;
	af_shape *sh =
	    loc == TPH_SCORE_GLOBAL ? NULL : shape_of(f, task, loc, tail, by_job, keyrow);
	bool refuse = !sh || sh->loc != loc || sh->tail != tail || sh->keyrow != keyrow;
	af_track *t = refuse ? NULL : af_track_get(f, task, sh, &refuse);
	alloc_group_req(s, task, &f->fit);
	f->fit_task = task;
	bool types = !refuse && !local && head == AF_NOTAIL && af_type_serves(sh);
	if (types)
		sh->tree_due = true; /* its picks read its row's type winners, not its tournament */
	*shp = sh;
	*tp = NULL;
	/* its trackers follow its row and spec, not its cells (af_track_moved); masking would
	 * change an ANCHORED shape's candidates, which mask() declines */
	bool light = types && (!t || (loc & ~TPH_SCORE_HYPERNODE) != TPH_SCORE_ANCHORED);
	if (light && !af_type_sync(f, sh, task)) {
		sh->used = ++f->clock;
		if (t)
			af_track_eval(t);
		*tp = t;
		return AF_LIGHT; /* its columns stay as they are until a pick must read them */
	}
	if (refuse || columns(f, sh) || af_sync(f, sh, task))
		return decline(f, task);
	sh->used = ++f->clock;
	if (t)
		af_track_eval(t);
	*shp = sh;
	*tp = t;
	return TPH_OK;
}

int alloc_fast_pick(alloc_fast *f, tph_idx task, tph_idx *node, tph_reason_code *codes)
{
	af_shape *sh;
	af_track *t;
	int rc = prepare(f, task, false, AF_NOTAIL, &sh, &t);
	if (rc == AF_LIGHT) {
		rc = light_decide(f, sh, t, task, node, codes);
		if (rc != TPH_DECLINED)
			return rc;
		if (columns(f, sh) || af_sync(f, sh, task))
			return decline(f, task);
		rc = TPH_OK;
	}
	if (rc)
		return rc;
	uint32_t masked = t ? mask(f, sh, t) : 0;
	if (masked == NOPOS)
		return decline(f, task);
	*node = TPH_NOIDX;
	rc = decide(f, sh, t, task, node, codes);
	if (masked)
		unmask(f, sh, t);
	return rc;
}

const tph_fit_req *alloc_fast_fit(const alloc_fast *f, tph_idx task)
{
	return f && f->fit_task == task ? &f->fit : NULL;
}

int alloc_fast_pick_logged(alloc_fast *f, tph_idx task, tph_idx *node, tph_reason_code *codes)
{
	f->log_none = true;
	int rc = alloc_fast_pick(f, task, node, codes);
	f->log_none = false;
	return rc;
}

/* prioritizeNodes over a subset, from the columns: per group the count, the first member and
 * the first of the highest keys (SelectBestNode's order is the subset's, ascending like the
 * positions). */
typedef struct af_among {
	uint32_t cnt[G_NONE], one[G_NONE], best[G_NONE];
	double max[G_NONE];
} af_among;

/* A hypernode whose nodes are consecutive ready positions (racks and zones listed in node
 * order) takes the tournament's first over its range, the role's failed nodes masked: the
 * same node as the scan below when that is a feasible node with a score; false otherwise. */
static bool among_range(alloc_fast *f, af_shape *sh, const af_track *t, const tph_idx *nodes,
                        uint32_t n, tph_idx *node)
{
	uint32_t lo = f->pos[nodes[0]], hi = f->pos[nodes[n - 1]];
	if (lo == NOPOS || hi == NOPOS || hi < lo || hi - lo != n - 1)
		return false;
	uint32_t masked = t ? mask(f, sh, t) : 0;
	af_win w = af_tree_range(sh, f->n, lo, hi + 1);
	if (masked)
		unmask(f, sh, t);
	if (w.pos == NOPOS || w.grp >= G_NONE || !(w.key > -(double)INFINITY))
		return false; /* none feasible, or no score won the first group: the scan decides */
	*node = f->s->ready_nodes[w.pos];
	return true;
}

#ifndef NDEBUG
/* Whether every node of nodes[0..n) is ready (has a position): only ready nodes belong to
 * hypernodes (topology.h), so the callers' lists are; checked in debug builds only, as the
 * check is a pass over the list (2% of 10k-topology's session). */
static bool all_ready(const alloc_fast *f, const tph_idx *nodes, uint32_t n)
{
	if (f->n == f->s->nodes.n)
		return true;
	for (uint32_t i = 0; i < n; i++)
		if (f->pos[nodes[i]] == NOPOS)
			return false;
	return true;
}
#endif

/* A task whose scores split at a free tail takes its head shape, whatever the subset. */
static int among_head(alloc_fast *f, tph_idx task, uint32_t head, const tph_idx *nodes, uint32_t n,
                      tph_idx *node, tph_reason_code *codes)
{
	af_shape *sh;
	af_track *t;
	int rc = prepare(f, task, false, head, &sh, &t);
	return rc ? rc : af_head_choose(f, sh, t, task, nodes, n, node, codes);
}

int alloc_fast_pick_among(alloc_fast *f, tph_idx task, const tph_idx *nodes, uint32_t n,
                          tph_idx *node, tph_reason_code *codes)
{
	if (f->s->tasks.nominated[task] != TPH_NOIDX)
		return decline(f, task); /* the nominated node is tried alone first */
	assert(all_ready(f, nodes, n));
	uint32_t head = tph_score_free_tail(f->s, task);
	if (head != AF_NOTAIL)
		return among_head(f, task, head, nodes, n, node, codes);
	if ((uint64_t)n * AMONG_SHARE < f->n)
		return decline(f, task);
	/* As many ascending ready nodes as there are ready nodes: all of them, where the flat
	 * path chooses alike (unless the scores read the hypernode being placed in) */
	const tph_session *s = f->s;
	int loc = tph_eqc_spec_local(s->tasks.spec[task]) ? tph_score_locality(s, task) : 0;
	if (n == f->n && loc && !(loc & TPH_SCORE_HYPERNODE))
		return alloc_fast_pick(f, task, node, codes);
	af_shape *sh;
	af_track *t;
	int rc = prepare(f, task, true, AF_NOTAIL, &sh, &t);
	if (rc)
		return rc;
	if (among_range(f, sh, t, nodes, n, node))
		return AF_NODE;
	af_among a = {.cnt = {0}};
	uint32_t feasible = 0;
	for (uint32_t g = 0; g < G_NONE; g++)
		a.best[g] = NOPOS, a.max[g] = -(double)INFINITY;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = f->pos[nodes[i]];
		codes[i] = verdict(sh, t, p);
		if (codes[i] != TPH_PASS)
			continue;
		feasible++;
		const af_cell *x = &sh->cell[p];
		if (x->grp >= G_NONE)
			continue;
		if (!a.cnt[x->grp]++)
			a.one[x->grp] = p;
		if (x->key > a.max[x->grp])
			a.max[x->grp] = x->key, a.best[x->grp] = p;
	}
	if (!feasible)
		return AF_NONE;
	*node = TPH_NOIDX;
	for (uint32_t g = 0; g < G_NONE; g++) {
		uint32_t p = a.cnt[g] == 1 ? a.one[g] : a.best[g];
		if (a.cnt[g] && p != NOPOS) {
			*node = f->s->ready_nodes[p];
			break;
		}
	}
	return AF_NODE;
}

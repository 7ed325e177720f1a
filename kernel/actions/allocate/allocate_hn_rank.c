/* Ranks per hypernode set (allocate_hn_rank.h): the sets of ready nodes held by the same
 * hypernodes, each ranked shape's members per set in head-sum order, the tail scored once per
 * set, and the best of the sets' best nodes as the shape's root. */
#include "allocate_hn_rank.h"

#include "base/mem.h"
#include "tephra/topology.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define NOPOS UINT32_MAX
/* Sets rank with insertion sorts: larger sets, or more sets than a quarter of the positions
 * (racks of fewer than 4 nodes), are left to the tournament over every position. */
#define MAX_SET   256u
#define SET_SHARE 4u

typedef struct af_hn_sets {
	bool usable;
	uint32_t n;    /* sets */
	uint32_t *off; /* [n + 1]: the members of set c are pos[off[c] .. off[c + 1]), ascending */
	uint32_t *pos;
	uint32_t *of; /* [positions] the set of each position */
	tph_idx *rep; /* [n] the set's first node: the tail is scored over it */
	/* The sets under each hypernode but the cluster top: those of hypernode h are
	 * under[under_off[h] .. under_off[h + 1]). */
	uint32_t *under_off, *under;
	uint32_t *hmark, hgen; /* [hypernodes] scratch: those seen in one pass, == hgen */
	/* [n] scratch of one ranked shape's build or update, shared by every shape (a shape's
	 * own would fault in its pages; 83 shapes are ranked on 10k-topology): the candidate
	 * sets (cand) and their first nodes (crep), the tails (ft), the estimates (est), and the
	 * touched sets (touched, mark == gen) */
	uint32_t *cand, *touched, *mark, gen;
	tph_idx *crep;
	double *ft, *est;
} af_hn_sets;

/* A set's first member in rank order, and the first member after it that set_scan's walk
 * does not skip (the walk passes over members equal to the first in group, pre and bat: they
 * tie it from higher positions): whether the walk goes on past the first, from one compact row
 * instead of the set's scattered cells. */
typedef struct af_hn_lead {
	double pre, bat; /* the first member's head sums */
	double next;     /* open: the other member's pre + bat */
	uint32_t pos;
	uint8_t grp;
	bool open;   /* that member is in the first's group (G_NONE: no member ranks) */
	bool sorted; /* the set's members in ord are in rank order (a build leaves them not) */
} af_hn_lead;

typedef struct af_hn {
	af_hn_sets *hs;
	af_hn_lead *lead; /* [sets], kept with ord */
	/* [positions]: each set's members, ord[off[c] .. off[c + 1]) in rank order when
	 * lead[c].sorted, else not written (they are then hs->pos's, ascending): most sets are
	 * never sorted, and their part of ord is never faulted in */
	uint32_t *ord;
	/* The sets whose lead had a group when sorted at the last build or update (any order):
	 * fset[0 .. nf), their first nodes in frep for the tail's call (its scores in hs->ft),
	 * and each set's index in fset (fat, NOPOS when not listed). */
	uint32_t *fset, *fat, nf;
	tph_idx *frep;
	/* Per listed set, in fset's order (compact, for the estimates' passes): its lead's head
	 * sum pre + bat (lh) and group (lg), and its lower part (ll) where low_ok[set]. */
	double *lh, *ll;
	uint8_t *lg, *low_ok;
	uint32_t nt; /* sets to rank again, listed in hs->touched[0 .. nt) */
	double mag;  /* at least |pre| + |bat| of every position scored while ranked */
	size_t bytes;
} af_hn;

/* ---- the sets ---- */

static bool same_list(const tph_hn_tree *t, tph_idx a, tph_idx b)
{
	uint32_t na = t->of_off[a + 1] - t->of_off[a], nb = t->of_off[b + 1] - t->of_off[b];
	return na == nb && !memcmp(t->of + t->of_off[a], t->of + t->of_off[b], na * sizeof *t->of);
}

/* Each position's set, with each set's size in off[c + 1]: sets sharing the first hypernode
 * of their list are chained from it. */
static void assign(alloc_fast *f, af_hn_sets *hs, uint32_t *next, tph_idx *head)
{
	const tph_session *s = f->s;
	const tph_hn_tree *t = &s->topo->t;
	for (uint32_t p = 0; p < f->n; p++) {
		tph_idx node = s->ready_nodes[p];
		uint32_t c = NOPOS;
		bool listed = t->of_off[node] != t->of_off[node + 1];
		tph_idx first = listed ? t->of[t->of_off[node]] : TPH_NOIDX;
		if (listed)
			for (c = head[first]; c != NOPOS && !same_list(t, hs->rep[c], node);
			     c = next[c])
				;
		if (c == NOPOS) {
			c = hs->n++;
			hs->rep[c] = node;
			next[c] = listed ? head[first] : NOPOS;
			if (listed)
				head[first] = c;
		}
		hs->of[p] = c;
		hs->off[c + 1]++;
	}
}

/* Members per set in ascending positions (a counting sort over assign's counts, f->sub the
 * sets' next slots); whether the sets are few and small enough to rank. */
static bool members(alloc_fast *f, af_hn_sets *hs)
{
	uint32_t largest = 0, *next = f->sub;
	for (uint32_t c = 0; c < hs->n; c++) {
		uint32_t m = hs->off[c + 1];
		largest = m > largest ? m : largest;
		hs->off[c + 1] = hs->off[c] + m;
		next[c] = hs->off[c];
	}
	for (uint32_t p = 0; p < f->n; p++)
		hs->pos[next[hs->of[p]]++] = p;
	return largest <= MAX_SET && (uint64_t)hs->n * SET_SHARE <= f->n;
}

/* The sets under each hypernode but the top, from each set's first node (its members are held
 * by the same hypernodes): a counting sort. */
static bool unders(alloc_fast *f, af_hn_sets *hs)
{
	const tph_hn_tree *t = &f->s->topo->t;
	size_t total = 0;
	hs->under_off = tph_calloc((size_t)t->n + 2, sizeof *hs->under_off);
	if (!hs->under_off)
		return false;
	for (uint32_t c = 0; c < hs->n; c++)
		for (uint32_t k = t->of_off[hs->rep[c]]; k < t->of_off[hs->rep[c] + 1]; k++)
			if (t->of[k] != t->top) {
				hs->under_off[t->of[k] + 2]++;
				total++;
			}
	for (uint32_t h = 0; h < t->n; h++)
		hs->under_off[h + 2] += hs->under_off[h + 1];
	hs->under = tph_malloc((total + 1) * sizeof *hs->under);
	hs->hmark = tph_calloc((size_t)t->n + 1, sizeof *hs->hmark);
	if (!hs->under || !hs->hmark)
		return false;
	for (uint32_t c = 0; c < hs->n; c++)
		for (uint32_t k = t->of_off[hs->rep[c]]; k < t->of_off[hs->rep[c] + 1]; k++)
			if (t->of[k] != t->top)
				hs->under[hs->under_off[t->of[k] + 1]++] = c;
	return true;
}

static bool scratch(af_hn_sets *hs)
{
	size_t n = (size_t)hs->n + 1;
	hs->cand = tph_malloc(n * sizeof *hs->cand);
	hs->touched = tph_malloc(n * sizeof *hs->touched);
	hs->mark = tph_calloc(n, sizeof *hs->mark);
	hs->crep = tph_malloc(n * sizeof *hs->crep);
	hs->ft = tph_malloc(n * sizeof *hs->ft);
	hs->est = tph_malloc(n * sizeof *hs->est);
	return hs->cand && hs->touched && hs->mark && hs->crep && hs->ft && hs->est;
}

static af_hn_sets *sets_make(alloc_fast *f)
{
	uint32_t n = f->n, nh = f->s->topo->t.n;
	af_hn_sets *hs = tph_calloc(1, sizeof *hs);
	uint32_t *next = tph_malloc(((size_t)n + 1) * sizeof *next);
	tph_idx *head = tph_malloc(((size_t)nh + 1) * sizeof *head);
	if (hs) {
		hs->off = tph_calloc((size_t)n + 2, sizeof *hs->off);
		hs->pos = tph_malloc(((size_t)n + 1) * sizeof *hs->pos);
		hs->of = tph_malloc(((size_t)n + 1) * sizeof *hs->of);
		hs->rep = tph_malloc(((size_t)n + 1) * sizeof *hs->rep);
	}
	if (hs && next && head && hs->off && hs->pos && hs->of && hs->rep) {
		memset(head, 0xff, ((size_t)nh + 1) * sizeof *head);
		assign(f, hs, next, head);
		hs->usable = members(f, hs) && unders(f, hs) && scratch(hs);
	}
	tph_free(next);
	tph_free(head);
	return hs;
}

void af_hn_sets_free(alloc_fast *f)
{
	af_hn_sets *hs = f->hsets;
	if (!hs)
		return;
	tph_free(hs->off);
	tph_free(hs->pos);
	tph_free(hs->of);
	tph_free(hs->rep);
	tph_free(hs->under_off);
	tph_free(hs->under);
	tph_free(hs->hmark);
	tph_free(hs->cand);
	tph_free(hs->touched);
	tph_free(hs->mark);
	tph_free(hs->crep);
	tph_free(hs->ft);
	tph_free(hs->est);
	tph_free(hs);
	f->hsets = NULL;
}

/* ---- ranks ---- */

/* A member's rank key: its group and head sums (pre + bat summed as the cells' readers sum it). */
typedef struct af_hn_key {
	double sum, pre, bat;
	uint32_t pos;
	uint8_t grp;
} af_hn_key;

/* A position of no group ranks by position alone: its sums are not read (two sets in three
 * on 10k-topology have no feasible member). */
static inline af_hn_key key_of(const af_shape *sh, uint32_t p)
{
	uint8_t g = sh->cell[p].grp;
	if (g >= G_NONE)
		return (af_hn_key){0, 0, 0, p, g};
	const double *x = sh->part + 2 * (size_t)p;
	return (af_hn_key){x[0] + x[1], x[0], x[1], p, g};
}

/* Rank order inside a set: the lower group, the higher head sum, then pre, then bat, then the
 * lower position; positions of no group (infeasible, masked) by position after the others. A
 * total order on distinct positions, so every sort gives the same order. */
static inline bool before(const af_hn_key *a, const af_hn_key *b)
{
	if (a->grp != b->grp)
		return a->grp < b->grp;
	if (a->grp >= G_NONE)
		return a->pos < b->pos;
	if (a->sum != b->sum)
		return a->sum > b->sum;
	if (a->pre != b->pre)
		return a->pre > b->pre;
	if (a->bat != b->bat)
		return a->bat > b->bat;
	return a->pos < b->pos;
}

/* Insertion sort of o[0..m), nearly sorted (the last sort's order, or ascending positions):
 * the sorted prefix's last key is carried, so a member already in place costs one key. */
static void sort_set(const af_shape *sh, uint32_t *o, uint32_t m)
{
	af_hn_key last = key_of(sh, o[0]);
	for (uint32_t i = 1; i < m; i++) {
		af_hn_key x = key_of(sh, o[i]);
		if (!before(&x, &last)) {
			last = x;
			continue;
		}
		uint32_t j = i;
		for (; j; j--) {
			af_hn_key y = key_of(sh, o[j - 1]);
			if (!before(&x, &y))
				break;
			o[j] = o[j - 1];
		}
		o[j] = x.pos;
	}
}

/* Set c in rank order, and its lead row; a set never sorted starts from ascending positions. */
static void order_set(const af_shape *sh, af_hn *hn, uint32_t c)
{
	uint32_t *o = hn->ord + hn->hs->off[c], m = hn->hs->off[c + 1] - hn->hs->off[c], i = 1;
	if (!hn->lead[c].sorted)
		memcpy(o, hn->hs->pos + hn->hs->off[c], m * sizeof *o);
	sort_set(sh, o, m);
	af_hn_lead *l = &hn->lead[c];
	const double *x = sh->part + 2 * (size_t)o[0], *y = x;
	l->pos = o[0];
	l->grp = sh->cell[o[0]].grp;
	l->pre = x[0];
	l->bat = x[1];
	for (; i < m && l->grp < G_NONE && sh->cell[o[i]].grp == l->grp; i++) {
		y = sh->part + 2 * (size_t)o[i];
		if (y[0] != x[0] || y[1] != x[1])
			break;
	}
	l->open = i < m && l->grp < G_NONE && sh->cell[o[i]].grp == l->grp;
	l->next = l->open ? y[0] + y[1] : 0;
	l->sorted = true;
}

/* Whether two keys tie for the walk (order_set's skip): the same group, pre and bat. Their
 * sums are then equal, so the keys that tie one are next to each other in rank order. */
static inline bool same_rank(const af_hn_key *a, const af_hn_key *b)
{
	return a->grp == b->grp && a->pre == b->pre && a->bat == b->bat;
}

/* Set c's lead row without its sort, by one selection in the same rank order over its members
 * in ascending positions (a build, or an update of a set never sorted: most sets are never walked
 * before the shape goes, and a sort from ascending positions costs a set's square). The first
 * member is the least; the members tying it follow it in rank order, so the row's other member is
 * the least of the rest. Kept along the pass: a new least that does not tie the old one makes the
 * old one that member (the old one comes before every other key seen but the new least, and the
 * keys tying it are after it); one that ties it leaves the member as it was. The head sums are
 * finite (fold), so rank order is total and tying an equivalence. */
static void lead_set(const af_shape *sh, af_hn *hn, uint32_t c)
{
	const uint32_t *o = hn->hs->pos + hn->hs->off[c];
	uint32_t m = hn->hs->off[c + 1] - hn->hs->off[c];
	af_hn_key first = key_of(sh, o[0]), next = {0, 0, 0, NOPOS, G_NONE};
	for (uint32_t i = 1; i < m; i++) {
		af_hn_key x = key_of(sh, o[i]);
		if (before(&x, &first)) {
			if (!same_rank(&x, &first))
				next = first;
			first = x;
		} else if (!same_rank(&x, &first) && (next.pos == NOPOS || before(&x, &next))) {
			next = x;
		}
	}
	af_hn_lead *l = &hn->lead[c];
	*l = (af_hn_lead){first.pre, first.bat, 0, first.pos, first.grp, false, false};
	if (first.grp >= G_NONE)
		return; /* no member ranks: the row is closed */
	l->open = next.pos != NOPOS && next.grp == l->grp;
	l->next = l->open ? next.sum : 0;
}

/* Set c's lead row again after its members changed: a sorted set sorted again (nearly sorted,
 * about one key a member), one never sorted by selection, left so. */
static void relead(const af_shape *sh, af_hn *hn, uint32_t c)
{
	if (hn->lead[c].sorted)
		order_set(sh, hn, c);
	else
		lead_set(sh, hn, c);
}

/* Whether the head sums of position p are finite; folds them into the magnitude bound. */
static bool fold(af_hn *hn, const af_shape *sh, uint32_t p)
{
	if (sh->cell[p].grp >= G_NONE)
		return true;
	double a = fabs(sh->part[2 * (size_t)p]) + fabs(sh->part[2 * (size_t)p + 1]);
	hn->mag = a > hn->mag ? a : hn->mag;
	return isfinite(a);
}

/* The tail of every listed set (a feasible member) over its first node, with zero head sums:
 * 0 + (0 + tail), which adds to any pre + bat as the tail does in tph_score_nodes (a zero's
 * sign cannot reach a total). A set not listed (its lead of no group: two in three on
 * 10k-topology, the full racks) keeps a stale tail that nothing reads: rank_all stops at its
 * lead, and only the next update can give it a member (a tracker's mask between updates takes
 * members away and gives back the same ones). Neither does the tournament over every position
 * read an infeasible node's score, finite or not. The tail answers per node (TPH_SCORE_HN_SET),
 * so a subset of the sets scores as the whole would. */
static bool set_scores(alloc_fast *f, af_shape *sh, af_hn *hn, tph_idx task)
{
	uint32_t m = hn->nf;
	double *ft = hn->hs->ft;
	if (m && !tph_score_nodes_last(f->s, task, hn->frep, m, sh->tail, ft))
		return false;
	bool finite = true;
	for (uint32_t i = 0; i < m; i++)
		finite &= isfinite(ft[i]) != 0;
	return finite;
}

/* Set c listed or not by its lead's group after a sort. */
static void list_set(af_hn *hn, uint32_t c)
{
	const af_hn_lead *l = &hn->lead[c];
	bool in = l->grp < G_NONE;
	uint32_t i = hn->fat[c];
	if (in && i == NOPOS) {
		i = hn->fat[c] = hn->nf;
		hn->fset[hn->nf] = c;
		hn->frep[hn->nf++] = hn->hs->rep[c];
		hn->low_ok[c] = 0; /* its lower part was not kept while out */
	} else if (!in && i != NOPOS) {
		uint32_t last = hn->fset[--hn->nf];
		hn->fset[i] = last;
		hn->frep[i] = hn->frep[hn->nf];
		hn->lh[i] = hn->lh[hn->nf];
		hn->ll[i] = hn->ll[hn->nf];
		hn->lg[i] = hn->lg[hn->nf];
		hn->fat[last] = i;
		hn->fat[c] = NOPOS;
		return;
	}
	if (in) {
		hn->lh[i] = l->pre + l->bat;
		hn->lg[i] = l->grp;
	}
}

/* A set's walk: in its first group, the members whose head sum is within the rounding of
 * pre + (bat + tail) of the first (|error| <= 3u (mag + |tail|) per total, so 32u covers the
 * gap of two and the threshold's own rounding), each summed; the highest total, then the
 * lowest position. A member equal in pre and bat to the one before it (a lower position) never
 * wins. */
static af_win set_scan(af_shape *sh, af_hn *hn, uint32_t c, double t)
{
	if (!hn->lead[c].sorted)
		order_set(sh, hn, c);
	const uint32_t *o = hn->ord + hn->hs->off[c];
	uint32_t m = hn->hs->off[c + 1] - hn->hs->off[c];
	af_win best = {0, NOPOS, 0};
	double floor = 0;
	const double *prev = NULL;
	for (uint32_t i = 0; i < m; i++) {
		uint32_t p = o[i];
		const double *x = sh->part + 2 * (size_t)p;
		uint8_t g = sh->cell[p].grp;
		if (!i && g < G_NONE)
			floor = (x[0] + x[1]) - 16 * DBL_EPSILON * (hn->mag + fabs(t));
		if (g >= G_NONE || (i && (g != best.grp || x[0] + x[1] < floor)))
			break;
		if (prev && x[0] == prev[0] && x[1] == prev[1])
			continue;
		prev = x;
		double total = x[0] + (x[1] + t);
		sh->cell[p].key = total;
		if (best.pos == NOPOS || total > best.key || (total == best.key && p < best.pos))
			best = (af_win){total, p, g};
	}
	return best;
}

/* Whether a set's best (key, pos, grp) replaces the running best w in allocate_fast_tree.c's
 * order: the lower group, the higher score, the lower position (w none: it does). Scalars, not
 * an af_win built per set: the root's pass runs over every listed set at each update. */
static inline bool beats(double key, uint32_t pos, uint8_t grp, double wkey, uint32_t wpos,
                         uint8_t wgrp)
{
	if (wpos == NOPOS)
		return true;
	if (grp != wgrp)
		return grp < wgrp;
	if (key != wkey)
		return !(wkey > key);
	return pos < wpos;
}

/* The shape's root: the best of the listed sets' best nodes, in one pass (the order above is
 * total on distinct positions, so any order of the sets gives the same winner), each listed
 * set's tail ft[i] kept in t. A set's best: the walk's first step from the lead row, and its
 * end there when the next member it would not skip stops it (another group, or a head sum under
 * the same floor, computed alike): the same winner, total and written key as set_scan, without
 * its reads of the set's cells. A set not listed has no feasible member until the next
 * update. */
static void rank_all(af_shape *sh, af_hn *hn, const uint32_t *sets, uint32_t m)
{
	double wkey = 0;
	uint32_t wpos = NOPOS;
	uint8_t wgrp = 0;
	for (uint32_t i = 0; i < m; i++) {
		uint32_t c = sets[i];
		double t = hn->hs->ft[i];
		const af_hn_lead *l = &hn->lead[c];
		if (l->grp >= G_NONE)
			continue;
		double floor = (l->pre + l->bat) - 16 * DBL_EPSILON * (hn->mag + fabs(t));
		af_win b;
		if (l->open && !(l->next < floor)) {
			b = set_scan(sh, hn, c, t);
		} else {
			b = (af_win){l->pre + (l->bat + t), l->pos, l->grp, 0};
			sh->cell[b.pos].key = b.key;
		}
		if (b.pos != NOPOS && beats(b.key, b.pos, b.grp, wkey, wpos, wgrp)) {
			wkey = b.key;
			wpos = b.pos;
			wgrp = b.grp;
		}
	}
	sh->win[1] = (af_win){wkey, wpos, wgrp, 0};
}

/* The group every listed set's lead must have to win: the lowest (the root's order takes
 * the lower group first). */
static uint8_t first_group(const af_hn *hn)
{
	uint8_t g = G_NONE;
	for (uint32_t i = 0; i < hn->nf; i++)
		g = hn->lg[i] < g ? hn->lg[i] : g;
	return g;
}

/* The listed sets of group g whose estimate (lead's head sum plus the bound's tail) lies within
 * the margin of the highest, into cand and crep; how many, or NOPOS when an estimate is not
 * finite. A set's best total T (the walk's, from any member in its first group) lies within E
 * = rel A + 8 DBL_EPSILON (mag + A) of its estimate, A >= scale (|lower| + |top|) >= |tail| /
 * (1 + rel): the tail's bound, the walk's floor and the sums' roundings (DBL_EPSILON / 2
 * each, at most five of them on mag + A). The root's set W has T_W >= T of the best estimate's
 * set, so its estimate is within 2E of the highest; the margin is twice that. */
static uint32_t candidates(af_hn *hn, const tph_score_bound *b, uint8_t g)
{
	/* compact passes, no branch: e - e is 0 unless e is not finite (then NaN) */
	double emax = -(double)INFINITY, lmax = 0, nan = 0;
	const double *lh = hn->lh, *ll = hn->ll;
	const uint8_t *lg = hn->lg;
	double *est = hn->hs->est;
	for (uint32_t i = 0; i < hn->nf; i++) {
		double e = lh[i] + b->scale * (ll[i] + b->top);
		est[i] = e;
		nan += e - e;
		lmax = fabs(ll[i]) > lmax ? fabs(ll[i]) : lmax;
		emax = lg[i] == g && e > emax ? e : emax;
	}
	double amax = b->scale * (lmax + fabs(b->top));
	double margin = 4 * (b->rel * amax + 8 * DBL_EPSILON * (hn->mag + amax));
	double floor = emax - margin;
	if (nan != 0 || !isfinite(floor))
		return NOPOS;
	uint32_t m = 0;
	for (uint32_t i = 0; i < hn->nf; i++)
		if (lg[i] == g && est[i] >= floor) {
			hn->hs->cand[m] = hn->fset[i];
			hn->hs->crep[m++] = hn->frep[i];
		}
	return m;
}

/* The shape's root from the sets the tail's bound leaves as candidates, their tails scored
 * exactly (the same call, over fewer nodes): AF_OK; AF_NONE when the plugin gives no bound
 * (the caller scores every listed set); TPH_DECLINED at a score that is not finite. Only the
 * candidates' best members get their keys written: a ranked shape's other cells are read by
 * no pick (its root is win[1]; scan_from needs a winner of no finite key, and a tracker's mask
 * declines on a ranked shape, allocate_fast.c). */
enum {
	RANK_OK,
	RANK_NONE,
	RANK_FAIL
};
static int rank_bound(alloc_fast *f, af_shape *sh, af_hn *hn, tph_idx task)
{
	tph_score_bound b;
	af_hn_sets *hs = hn->hs;
	uint32_t m = 0;
	for (uint32_t i = 0; i < hn->nf; i++)
		if (!hn->low_ok[hn->fset[i]]) {
			hs->cand[m] = hn->fset[i];
			hs->crep[m++] = hn->frep[i];
		}
	if (!hn->nf || !tph_score_hn_bound(f->s, task, sh->tail, hs->crep, m, hs->ft, &b)) {
		memset(hn->low_ok, 0, hs->n * sizeof *hn->low_ok);
		return RANK_NONE;
	}
	for (uint32_t i = 0; i < m; i++) {
		hn->ll[hn->fat[hs->cand[i]]] = hs->ft[i];
		hn->low_ok[hs->cand[i]] = 1;
	}
	m = candidates(hn, &b, first_group(hn));
	if (m == NOPOS)
		return RANK_NONE;
	if (!tph_score_nodes_last(f->s, task, hs->crep, m, sh->tail, hs->ft))
		return RANK_FAIL;
	for (uint32_t i = 0; i < m; i++)
		if (!isfinite(hs->ft[i]))
			return RANK_FAIL;
	rank_all(sh, hn, hs->cand, m);
	return RANK_OK;
}

/* The shape's root, from the tail's bound when its plugin gives one, else from every listed
 * set's tail; false at a score that is not finite (the caller drops the ranks). */
static bool rank(alloc_fast *f, af_shape *sh, af_hn *hn, tph_idx task)
{
	int rc = rank_bound(f, sh, hn, task);
	if (rc != RANK_NONE)
		return rc == RANK_OK;
	if (!set_scores(f, sh, hn, task))
		return false;
	rank_all(sh, hn, hn->fset, hn->nf);
	return true;
}

/* ---- a shape's ranks ---- */

static void drop(alloc_fast *f, af_shape *sh)
{
	size_t b = sh->hn ? sh->hn->bytes : 0;
	af_hn_free(sh);
	sh->bytes -= b;
	f->bytes -= b;
}

void af_hn_free(af_shape *sh)
{
	af_hn *hn = sh->hn;
	if (!hn)
		return;
	tph_free(hn->ord);
	tph_free(hn->lead);
	tph_free(hn->frep);
	tph_free(hn->fset);
	tph_free(hn->fat);
	tph_free(hn->lh);
	tph_free(hn->ll);
	tph_free(hn->lg);
	tph_free(hn->low_ok);
	tph_free(hn);
	sh->hn = NULL;
}

static af_hn *ranks(alloc_fast *f, af_shape *sh)
{
	if (sh->hn)
		return sh->hn;
	af_hn_sets *hs = f->hsets;
	af_hn *hn = tph_calloc(1, sizeof *hn);
	if (!hn)
		return NULL;
	sh->hn = hn;
	hn->hs = hs;
	hn->ord = tph_malloc(((size_t)f->n + 1) * sizeof *hn->ord);
	hn->lead = tph_malloc(((size_t)hs->n + 1) * sizeof *hn->lead);
	hn->frep = tph_malloc(((size_t)hs->n + 1) * sizeof *hn->frep);
	hn->fset = tph_malloc(((size_t)hs->n + 1) * sizeof *hn->fset);
	hn->fat = tph_malloc(((size_t)hs->n + 1) * sizeof *hn->fat);
	hn->lh = tph_malloc(((size_t)hs->n + 1) * sizeof *hn->lh);
	hn->ll = tph_malloc(((size_t)hs->n + 1) * sizeof *hn->ll);
	hn->lg = tph_malloc(((size_t)hs->n + 1) * sizeof *hn->lg);
	hn->low_ok = tph_calloc((size_t)hs->n + 1, sizeof *hn->low_ok);
	hn->bytes = sizeof *hn + ((size_t)f->n + 1) * sizeof *hn->ord +
	            ((size_t)hs->n + 1) *
	                (sizeof *hn->lead + sizeof *hn->frep + sizeof *hn->fset + sizeof *hn->fat +
	                 sizeof *hn->lh + sizeof *hn->ll + sizeof *hn->lg + sizeof *hn->low_ok);
	sh->bytes += hn->bytes;
	f->bytes += hn->bytes;
	if (!hn->ord || !hn->lead || !hn->frep || !hn->fset || !hn->fat || !hn->lh || !hn->ll ||
	    !hn->lg || !hn->low_ok) {
		drop(f, sh);
		return NULL;
	}
	return hn;
}

/* Whether the shape's head sums are its parts: LOCAL, or ANCHORED scored whole through them
 * (not from a split's row parts, which write the keys alone). */
static bool parts_kept(const af_shape *sh)
{
	return sh->loc == (TPH_SCORE_LOCAL | TPH_SCORE_HYPERNODE) ||
	       (sh->loc == (TPH_SCORE_ANCHORED | TPH_SCORE_HYPERNODE) && sh->split == AF_NOTAIL);
}

static bool qualifies(alloc_fast *f, const af_shape *sh, tph_idx task)
{
	if (!sh->part || !parts_kept(sh) || !f->s->topo || !tph_score_hn_set(f->s, task, sh->tail))
		return false;
	if (!f->hsets)
		f->hsets = sets_make(f);
	return f->hsets && f->hsets->usable;
}

/* Whether a group with members has its sums: an ANCHORED shape's build leaves every group due
 * (scored when first read, af_rescore, which ranks it then). */
static bool summed(const af_shape *sh)
{
	for (uint32_t g = 0; g < G_NONE; g++)
		if (sh->cnt[g] && !sh->dirty[g])
			return true;
	return false;
}

void af_hn_build(alloc_fast *f, af_shape *sh, tph_idx task)
{
	af_hn *hn = qualifies(f, sh, task) && summed(sh) ? ranks(f, sh) : NULL;
	if (!hn) {
		drop(f, sh);
		return;
	}
	const af_hn_sets *hs = hn->hs;
	bool finite = true;
	hn->mag = 0;
	memset(hn->low_ok, 0, hs->n * sizeof *hn->low_ok);
	for (uint32_t p = 0; p < f->n; p++)
		finite &= fold(hn, sh, p);
	hn->nf = 0;
	memset(hn->fat, 0xff, hs->n * sizeof *hn->fat);
	for (uint32_t c = 0; c < hs->n; c++) {
		lead_set(sh, hn, c);
		list_set(hn, c);
	}
	if (!finite || !rank(f, sh, hn, task))
		drop(f, sh);
}

/* Position p's set listed in touched once, its head sums folded; false when not finite. */
static bool touch_one(af_hn *hn, const af_shape *sh, uint32_t p)
{
	af_hn_sets *hs = hn->hs;
	uint32_t c = hs->of[p];
	if (hs->mark[c] != hs->gen) {
		hs->mark[c] = hs->gen;
		hs->touched[hn->nt++] = c;
	}
	return fold(hn, sh, p);
}

/* The sets of the touched positions plist[0..k) in touched[0 .. nt), each once and ascending
 * (the order of a pass over every set, so the list of feasible sets changes as it did), their
 * head sums folded; false at a sum that is not finite. An ANCHORED shape's update scores its
 * groups' anchors with the touched nodes (rescore_anchored), but an anchor not touched sums
 * the same bits as before (plugin.h: over anchors <= T <= S each node scores as over S). */
static bool touch(af_hn *hn, const af_shape *sh, const uint32_t *plist, uint32_t k)
{
	af_hn_sets *hs = hn->hs;
	if (++hs->gen == 0) { /* wrapped: old marks would look current */
		memset(hs->mark, 0, hs->n * sizeof *hs->mark);
		hs->gen = 1;
	}
	hn->nt = 0;
	for (uint32_t i = 0; i < k; i++)
		if (!touch_one(hn, sh, plist[i]))
			return false;
	uint32_t *to = hs->touched;
	if ((uint64_t)hn->nt * hn->nt > hs->n) { /* a pass over the marks is the cheaper sort */
		hn->nt = 0;
		for (uint32_t c = 0; c < hs->n; c++)
			if (hs->mark[c] == hs->gen)
				to[hn->nt++] = c;
		return true;
	}
	for (uint32_t i = 1; i < hn->nt; i++) {
		uint32_t c = to[i], j = i;
		for (; j && c < to[j - 1]; j--)
			to[j] = to[j - 1];
		to[j] = c;
	}
	return true;
}

/* The kept lower parts a task event on the touched positions plist[0..k) may have moved: those
 * of the sets sharing a hypernode but the top with a touched node (tph_score_hn_bound_fn), each
 * hypernode's sets once (the touched nodes share racks). */
static void stale_lows(const alloc_fast *f, af_hn *hn, uint32_t k)
{
	const tph_hn_tree *t = &f->s->topo->t;
	af_hn_sets *hs = f->hsets;
	if (++hs->hgen == 0) { /* wrapped: old marks would look current */
		memset(hs->hmark, 0, t->n * sizeof *hs->hmark);
		hs->hgen = 1;
	}
	for (uint32_t i = 0; i < k; i++) {
		tph_idx node = f->s->ready_nodes[f->plist[i]];
		for (uint32_t j = t->of_off[node]; j < t->of_off[node + 1]; j++) {
			tph_idx h = t->of[j];
			if (h == t->top || hs->hmark[h] == hs->hgen)
				continue;
			hs->hmark[h] = hs->hgen;
			for (uint32_t u = hs->under_off[h]; u < hs->under_off[h + 1]; u++)
				hn->low_ok[hs->under[u]] = 0;
		}
	}
}

int af_hn_update(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t k)
{
	af_hn *hn = sh->hn;
	bool finite =
	    parts_kept(sh) && tph_score_hn_set(f->s, task, sh->tail) && touch(hn, sh, f->plist, k);
	stale_lows(f, hn, k);
	for (uint32_t i = 0; i < hn->nt && finite; i++) {
		relead(sh, hn, hn->hs->touched[i]);
		list_set(hn, hn->hs->touched[i]);
	}
	if (!finite || !rank(f, sh, hn, task)) {
		drop(f, sh);
		return TPH_DECLINED;
	}
	return TPH_OK;
}

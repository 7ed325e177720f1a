/* The touch log's distinct positions since a point (allocate_fast.h, af_recent): each shape,
 * request row and pod spec brought up to date asks for the nodes logged since it was last
 * current. The log is read once into ready positions, each with the index of its last entry,
 * so a walk keeps an entry when it is its position's last, with no marks to write. */
#include "allocate_fast.h"

#include "base/mem.h"
#include "session/fit.h"
#include "tephra/topology.h"

#include <assert.h>

#define NOPOS UINT32_MAX
#define SCAN  4u /* more log entries than n / SCAN: the touched positions by a scan */

int af_recent_init(alloc_fast *f)
{
	af_recent *r = &f->rec;
	r->fed = r->cap = 0;
	r->plog = NULL;
	r->prev = NULL;
	r->span = NULL;
	r->hn_eff = r->n_undone = r->cap_undone = r->ecap = 0;
	r->undo_on = false;
	r->last = tph_calloc((size_t)f->n + 1, sizeof *r->last);
	r->eff = tph_calloc((size_t)f->n + 1, sizeof *r->eff);
	r->bits = tph_calloc((size_t)f->n / 64 + 1, sizeof *r->bits);
	r->alt = tph_malloc(((size_t)f->n + 1) * sizeof *r->alt);
	r->room = r->room_mem = NULL;
	r->room_ok = false;
	r->hn_last = 0;
	r->wsync = r->wok = false;
	return r->last && r->eff && r->bits && r->alt ? TPH_OK : TPH_ENOMEM;
}

void af_recent_free(alloc_fast *f)
{
	tph_free(f->rec.last);
	tph_free(f->rec.plog);
	tph_free(f->rec.eff);
	tph_free(f->rec.prev);
	tph_free(f->rec.span);
	tph_free(f->rec.bits);
	tph_free(f->rec.room_mem);
	tph_free(f->rec.alt);
}

/* Position p's row of room from node's columns. */
static void room_fill(alloc_fast *f, uint32_t p, tph_idx node)
{
	const tph_node_store *ns = &f->s->nodes;
	uint32_t nd = f->rec.rnd;
	int64_t *r = f->rec.room + (size_t)p * f->rec.rw;
	for (uint32_t d = 0; d < nd; d++) {
		r[d] = tph_fit_room(ns, d, node, true);
		r[nd + d] = tph_fit_room(ns, d, node, false);
	}
}

/* The undo columns of the fed entries [a, b): what eff and hn_eff were before each. */
static int undo_feed(alloc_fast *f, const tph_idx *log, uint32_t a, uint32_t b)
{
	af_recent *r = &f->rec;
	if (tph_grow(&r->prev, &r->ecap, b, sizeof *r->prev))
		return TPH_ENOMEM;
	const uint32_t *of_off = f->s && f->s->topo ? f->s->topo->t.of_off : NULL;
	for (uint32_t i = a; i < b; i++) {
		uint32_t p = r->plog[i];
		r->prev[i] = (af_prev){r->eff[p], r->hn_eff};
		r->eff[p] = i + 1;
		if (of_off && of_off[log[i]] != of_off[log[i] + 1])
			r->hn_eff = i + 1;
	}
	r->eff[f->n] = 0;
	return TPH_OK;
}

/* Room for n_log entries of plog. The first asks for as many as the session has tasks, what
 * a run logs when it places each once: pages never written cost nothing, and growing by
 * copies faulted in as many again (100k-nodes: ~240 pages). */
static uint32_t plog_need(const alloc_fast *f, uint32_t n_log)
{
	uint32_t tasks = f->s ? f->s->tasks.n : 0;
	return f->rec.cap || n_log > tasks ? n_log : tasks;
}

/* Log entries [fed, n_log) as positions; a node that is not ready is the spare position n,
 * which no walk keeps. */
static int feed(alloc_fast *f, const tph_idx *log, uint32_t n_log)
{
	af_recent *r = &f->rec;
	if (r->fed == n_log) /* most calls: every consumer of a sync feeds */
		return TPH_OK;
	if (n_log > r->cap && tph_grow(&r->plog, &r->cap, plog_need(f, n_log), sizeof *r->plog))
		return TPH_ENOMEM;
	const uint32_t *of_off = f->s && f->s->topo ? f->s->topo->t.of_off : NULL;
	for (uint32_t i = r->fed; i < n_log; i++) {
		uint32_t p = f->pos[log[i]];
		p = p == NOPOS ? f->n : p;
		r->plog[i] = p;
		r->last[p] = i + 1;
		if (of_off && of_off[log[i]] != of_off[log[i] + 1])
			r->hn_last = i + 1;
	}
	if (r->undo_on && undo_feed(f, log, r->fed, n_log))
		return TPH_ENOMEM;
	r->last[f->n] = 0;
	r->fed = n_log;
	return TPH_OK;
}

/* The first undone span ending after `seen` (n_undone: none). */
static uint32_t span_after(const af_recent *r, uint32_t seen)
{
	uint32_t a = 0, b = r->n_undone;
	if (!b || r->span[b - 1].e <= seen) /* most: current since the last span */
		return b;
	while (a < b) {
		uint32_t c = a + (b - a) / 2;
		if (r->span[c].e <= seen)
			a = c + 1;
		else
			b = c;
	}
	return a;
}

/* Whether columns current as of `seen` read the entries not undone: unless `seen` lies inside
 * an undone span (those columns saw the dry run, and its nodes changed back since). */
static bool past_undone(const af_recent *r, uint32_t seen)
{
	uint32_t a = span_after(r, seen);
	return a == r->n_undone || r->span[a].b >= seen;
}

/* Whether columns current as of `seen` pass over the undone spans (there are some). */
static bool read_eff(const af_recent *r, uint32_t seen)
{
	return r->n_undone && past_undone(r, seen);
}

/* The last entry of each position to read for columns current as of `seen`. */
static const uint32_t *last_of(const af_recent *r, uint32_t seen)
{
	return read_eff(r, seen) ? r->eff : r->last;
}

void alloc_fast_undone(alloc_fast *f, uint32_t from, uint32_t lost)
{
	uint32_t n_log, now;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &now);
	if (now == lost)
		af_undone(f, log, n_log, from);
}

void af_undone(alloc_fast *f, const tph_idx *log, uint32_t n_log, uint32_t from)
{
	af_recent *r = &f->rec;
	if (from >= n_log || feed(f, log, n_log))
		return;
	if (!r->undo_on && undo_feed(f, log, 0, n_log)) /* the first span: the columns from 0 */
		return;
	r->undo_on = true;
	uint32_t k = r->n_undone;
	while (k && r->span[k - 1].b >= from) /* spans inside this one */
		k--;
	if (tph_grow(&r->span, &r->cap_undone, k + 1, sizeof *r->span))
		return;
	/* backwards: each position ends at what it was before its first entry of the span */
	for (uint32_t i = n_log; i-- > from;)
		r->eff[r->plog[i]] = r->prev[i].eff;
	r->eff[f->n] = 0;
	r->hn_eff = r->prev[from].hn;
	r->span[k] = (af_span){from, n_log, (k ? r->span[k - 1].cum : 0) + (n_log - from)};
	r->n_undone = k + 1;
}

/* plist[0..k) in ascending order, through a bitmap: for many positions, so that their
 * evaluations walk the node columns forward. */
static void ascending(alloc_fast *f, uint32_t *plist, uint32_t k)
{
	uint64_t *bits = f->rec.bits;
	for (uint32_t i = 0; i < k; i++)
		bits[plist[i] / 64] |= 1ull << (plist[i] % 64);
	k = 0;
	for (uint32_t w = 0; w <= f->n / 64; w++) {
		for (uint64_t b = bits[w]; b; b &= b - 1)
			plist[k++] = w * 64 + (uint32_t)__builtin_ctzll(b);
		bits[w] = 0;
	}
}

uint32_t af_stale(alloc_fast *f, const void *cells, size_t size, bool whole, uint32_t seen,
                  uint32_t lost, const tph_idx *log, uint32_t n_log, uint32_t log_lost)
{
	if (whole || lost != log_lost || n_log - seen > (uint64_t)f->n * 4)
		return NOPOS;
	return af_touched(f, seen, log, n_log, cells, size);
}

/* The distinct positions logged in [seen, n_log) into plist, the log fed. */
static uint32_t touched_into(alloc_fast *f, uint32_t seen, uint32_t n_log, const void *cells,
                             size_t size, uint32_t *plist)
{
	const af_recent *r = &f->rec;
	const uint32_t *plog = r->plog, *last = r->last;
	uint32_t k = 0, n = f->n, entries = n_log - seen, j = r->n_undone;
	if (read_eff(r, seen)) { /* the undone spans after seen pass unread */
		j = span_after(r, seen);
		last = r->eff;
		entries -= j < r->n_undone
		               ? r->span[r->n_undone - 1].cum - (j ? r->span[j - 1].cum : 0)
		               : 0;
	}
	if ((uint64_t)entries * SCAN > n) { /* a scan of the positions costs less */
		for (uint32_t p = 0; p < n; p++) {
			plist[k] = p;
			k += last[p] > seen;
		}
		return k;
	}
	/* No branch (repeats are common and unpredictable): every entry is written at plist[k]
	 * and kept only when no later entry has its position; its cells are cold after a while.
	 * An undone span's entries would all be dropped: its span is stepped over. */
	for (uint32_t i = seen; i < n_log;) {
		uint32_t end = j < r->n_undone ? r->span[j].b : n_log;
		for (; i < end; i++) {
			uint32_t p = plog[i];
			plist[k] = p;
			k += last[p] == i + 1;
			__builtin_prefetch((const char *)cells + (size_t)p * size, 1);
		}
		if (j < r->n_undone)
			i = r->span[j++].e;
	}
	if ((uint64_t)k * 8 > n)
		ascending(f, plist, k);
	return k;
}

uint32_t af_touched(alloc_fast *f, uint32_t seen, const tph_idx *log, uint32_t n_log,
                    const void *cells, size_t size)
{
	assert(n_log >= f->rec.fed); /* the log only grows */
	return feed(f, log, n_log) ? NOPOS : touched_into(f, seen, n_log, cells, size, f->plist);
}

void af_walk_begin(alloc_fast *f, uint32_t k, uint32_t seen, uint32_t n_log)
{
	af_recent *r = &f->rec;
	r->wsync = true;
	r->wok = k != NOPOS;
	r->wseen = seen;
	r->wlog = n_log;
	r->wk = k;
}

void af_walk_end(alloc_fast *f)
{
	f->rec.wsync = f->rec.wok = false;
}

/* The walk's positions logged after `seen` (> wseen) into r->alt, in the walk's order. */
static uint32_t narrow(alloc_fast *f, uint32_t seen, const void *cells, size_t size)
{
	const af_recent *r = &f->rec;
	const uint32_t *plist = f->plist, *last = last_of(r, seen);
	uint32_t k = 0, *out = r->alt;
	for (uint32_t i = 0; i < r->wk; i++) {
		uint32_t p = plist[i];
		out[k] = p;
		k += last[p] > seen;
		__builtin_prefetch((const char *)cells + (size_t)p * size, 1);
	}
	return k;
}

uint32_t af_stale_list(alloc_fast *f, const void *cells, size_t size, bool whole, uint32_t seen,
                       uint32_t lost, const tph_idx *log, uint32_t n_log, uint32_t log_lost,
                       const uint32_t **list)
{
	af_recent *r = &f->rec;
	*list = f->plist;
	if (!r->wsync)
		return af_stale(f, cells, size, whole, seen, lost, log, n_log, log_lost);
	if (whole || lost != log_lost || n_log - seen > (uint64_t)f->n * 4 || feed(f, log, n_log))
		return NOPOS;
	if (!r->wok) { /* the first to walk: the shape builds whole and reads no list */
		af_walk_begin(f, touched_into(f, seen, n_log, cells, size, f->plist), seen, n_log);
		return r->wk;
	}
	assert(r->wlog == n_log);
	if (seen == r->wseen)
		return r->wk;
	*list = r->alt;
	/* a position of the walk costs about an entry of a walk of one's own; the walk holds the
	 * positions of the undone entries too when they were read for wseen */
	if (seen > r->wseen && r->wk <= n_log - seen && read_eff(r, seen) == read_eff(r, r->wseen))
		return narrow(f, seen, cells, size);
	return touched_into(f, seen, n_log, cells, size, r->alt);
}

bool af_hn_since(const alloc_fast *f, uint32_t seen, uint32_t n_log)
{
	assert(f->rec.fed == n_log);
	uint32_t hn = read_eff(&f->rec, seen) ? f->rec.hn_eff : f->rec.hn_last;
	return seen != n_log && (!f->s->topo || hn > seen);
}

const int64_t *af_room(alloc_fast *f, const tph_idx *log, uint32_t n_log, uint32_t lost)
{
	af_recent *r = &f->rec;
	if (!r->room_mem) {
		r->rnd = f->s->ndim < TPH_RES_MAX ? f->s->ndim : TPH_RES_MAX;
		r->rw = af_room_width(r->rnd);
		r->room_mem = tph_malloc((((size_t)f->n + 1) * r->rw + 8) * sizeof *r->room_mem);
		if (!r->room_mem)
			return NULL;
		r->room = (int64_t *)(((uintptr_t)r->room_mem + 63) & ~(uintptr_t)63);
	}
	if (feed(f, log, n_log))
		return NULL;
	if (!r->room_ok || r->rlost != lost) {
		for (uint32_t p = 0; p < f->n; p++)
			room_fill(f, p, f->s->ready_nodes[p]);
		r->room_ok = true;
		r->rlost = lost;
	} else { /* each position logged since, once: at its last entry (never the spare n) */
		for (uint32_t i = r->rseen; i < n_log; i++)
			if (r->last[r->plog[i]] == i + 1)
				room_fill(f, r->plog[i], log[i]);
	}
	r->rseen = n_log;
	return r->room;
}

/* A failed pick's verdicts (allocate_fast.h): listed for the caller, or, on allocate's flat
 * path, counted into the fit log without a list. A memo per verdict source (a request row
 * with a pod spec's verdicts, or a shape's cells) keeps a copy of the verdicts with their
 * histogram and unresolvable nodes, brought up to date from the touch log, so that a failure
 * costs the nodes logged since the source last failed, not the cluster: every verdict reads
 * node-local state that only logged nodes change (the fast path's premise). The role's cache's
 * failures are a correction over the few nodes it holds. */
#include "allocate_fast.h"

#include "base/mem.h"
#include "session/fitlog.h"

#include <string.h>

#define NOPOS UINT32_MAX
/* Sources a run keeps memos for, the least recently used replaced (a memo is 2 bytes a
 * position, 4 more while it lists unresolvable nodes). */
#define MEMO_MAX 8u

typedef struct af_fail {
	const void *src, *src2; /* the row and spec verdicts, or the shape and NULL */
	uint32_t seen, lost;    /* the log length and lost counter `code` reflects */
	uint64_t used;
	tph_reason_code *code; /* [pos] */
	uint32_t *hist;        /* [slots] */
	tph_idx *unres;        /* ready nodes whose code is unresolvable, ascending */
	uint32_t n_unres, cap_unres;
	bool built;    /* code and hist hold a whole state */
	bool unres_ok; /* unres lists them */
} af_fail;

struct af_fails {
	af_fail m[MEMO_MAX];
	uint64_t clock;
	uint32_t nr;  /* reason codes the memos count (s->n_reasons when made) */
	uint8_t *bad; /* [max(nr, 1)] the code is UnschedulableAndUnresolvable */
};

void af_none_free(alloc_fast *f)
{
	struct af_fails *x = f->fails;
	if (!x)
		return;
	for (uint32_t i = 0; i < MEMO_MAX; i++) {
		tph_free(x->m[i].code);
		tph_free(x->m[i].hist);
		tph_free(x->m[i].unres);
	}
	tph_free(x->bad);
	tph_free(x);
	f->fails = NULL;
}

/* The memos, made (again, when the reason table grew) on first use; NULL when out of memory. */
static struct af_fails *fails_of(alloc_fast *f)
{
	const tph_session *s = f->s;
	if (f->fails && f->fails->nr == s->n_reasons)
		return f->fails;
	af_none_free(f);
	struct af_fails *x = tph_calloc(1, sizeof *x);
	uint32_t slots = s->n_reasons ? s->n_reasons : 1;
	if (!x || !(x->bad = tph_calloc(slots, 1))) {
		tph_free(x);
		return NULL;
	}
	x->nr = s->n_reasons;
	for (uint32_t c = 1; c < x->nr; c++)
		x->bad[c] = tph_reason_unresolvable(s, (tph_reason_code)c);
	return f->fails = x;
}

/* Where the verdicts of a pick are kept: a tracker's base (af_track_base), a light pick's row
 * and spec (af_type_verdict), else the shape's cells. */
static bool by_types(const af_track *t, bool light)
{
	return t ? af_shared_verdicts(t->sh) : light;
}

static inline tph_reason_code base_at(const af_shape *sh, bool types, uint32_t p)
{
	return types ? af_type_verdict(sh, p) : af_track_base(sh, p);
}

static void list(const af_shape *sh, const af_track *t, bool types, uint32_t n,
                 tph_reason_code *codes)
{
	for (uint32_t p = 0; p < n; p++)
		codes[p] = t ? af_track_code(t, p) : base_at(sh, types, p);
}

/* Whether the source's columns are current with the log: the memo reads them only then. */
static bool current(const af_shape *sh, bool types, uint32_t n_log, uint32_t lost)
{
	if (!types)
		return sh->built && sh->cell && sh->seen == n_log && sh->lost == lost;
	const af_row *r = sh->row;
	const af_pred *v = sh->pred;
	return r->built && r->seen == n_log && r->lost == lost && v->built && v->seen == n_log &&
	       v->lost == lost;
}

/* The memo of the source, made or replacing the least recently used one; NULL when none. */
static af_fail *memo_slot(alloc_fast *f, struct af_fails *x, const void *src, const void *src2)
{
	af_fail *lru = &x->m[0];
	for (uint32_t i = 0; i < MEMO_MAX; i++) {
		af_fail *m = &x->m[i];
		if (m->code && m->src == src && m->src2 == src2)
			return m;
		if (m->used < lru->used)
			lru = m;
	}
	uint32_t slots = x->nr ? x->nr : 1;
	if (!lru->code && !(lru->code = tph_malloc(((size_t)f->n + 1) * sizeof *lru->code)))
		return NULL;
	if (!lru->hist && !(lru->hist = tph_malloc(slots * sizeof *lru->hist)))
		return NULL;
	lru->src = src;
	lru->src2 = src2;
	lru->built = false;
	return lru;
}

static void memo_whole(const alloc_fast *f, const struct af_fails *x, af_fail *m,
                       const af_shape *sh, bool types)
{
	memset(m->hist, 0, (x->nr ? x->nr : 1) * sizeof *m->hist);
	for (uint32_t p = 0; p < f->n; p++) {
		m->code[p] = base_at(sh, types, p);
		m->hist[tph_fitlog_slot(x->nr, m->code[p])]++;
	}
	m->unres_ok = false;
}

static void memo_moved(const struct af_fails *x, af_fail *m, const af_shape *sh, bool types,
                       const uint32_t *plist, uint32_t k)
{
	for (uint32_t i = 0; i < k; i++) {
		uint32_t p = plist[i];
		tph_reason_code now = base_at(sh, types, p), was = m->code[p];
		if (now == was)
			continue;
		uint32_t a = tph_fitlog_slot(x->nr, was), b = tph_fitlog_slot(x->nr, now);
		m->hist[a]--;
		m->hist[b]++;
		m->unres_ok &= x->bad[a] == x->bad[b];
		m->code[p] = now;
	}
}

/* The memo of sh's verdicts (types: its row's and spec's, else its cells), current; NULL when
 * the columns are behind the log or out of memory (the caller counts them itself). */
static af_fail *memo_get(alloc_fast *f, const af_shape *sh, bool types)
{
	uint32_t n_log, lost;
	const tph_idx *log = tph_eqc_log(f->eqc, &n_log, &lost);
	struct af_fails *x = current(sh, types, n_log, lost) ? fails_of(f) : NULL;
	af_fail *m = x ? memo_slot(f, x, types ? (const void *)sh->row : sh,
	                           types ? (const void *)sh->pred : NULL)
	               : NULL;
	if (!m)
		return NULL;
	uint32_t k =
	    af_stale(f, m->code, sizeof *m->code, !m->built, m->seen, m->lost, log, n_log, lost);
	if (k == NOPOS)
		memo_whole(f, x, m, sh, types);
	else
		memo_moved(x, m, sh, types, f->plist, k);
	m->built = true;
	m->seen = n_log;
	m->lost = lost;
	m->used = ++x->clock;
	return m;
}

static void count(const af_shape *sh, bool types, uint32_t nr, uint32_t n, uint32_t *hist)
{
	for (uint32_t p = 0; p < n; p++)
		hist[tph_fitlog_slot(nr, base_at(sh, types, p))]++;
}

/* The tracker's cached reasons replace the base verdicts where they differ (af_track_code);
 * returns whether one of those it replaces or puts is unresolvable. */
static bool count_overrides(const af_track *t, bool types, const struct af_fails *x, uint32_t nr,
                            uint32_t *hist)
{
	bool bad = false;
	for (uint32_t i = 0; i < t->n_ovs; i++) {
		uint32_t p = t->ovs[i];
		if (t->ov_at[p] != t->ov_gen)
			continue;
		uint32_t a = tph_fitlog_slot(nr, base_at(t->sh, types, p));
		uint32_t b = tph_fitlog_slot(nr, t->ov_code[p]);
		hist[a]--;
		hist[b]++;
		bad |= !x || x->bad[a] || x->bad[b];
	}
	return bad;
}

static int memo_unres(const alloc_fast *f, const struct af_fails *x, af_fail *m)
{
	if (m->unres_ok)
		return TPH_OK;
	if (tph_grow(&m->unres, &m->cap_unres, f->n, sizeof *m->unres))
		return TPH_ENOMEM;
	uint32_t k = 0;
	for (uint32_t p = 0; p < f->n; p++)
		if (x->bad[tph_fitlog_slot(x->nr, m->code[p])])
			m->unres[k++] = f->s->ready_nodes[p];
	m->n_unres = k;
	m->unres_ok = true;
	return TPH_OK;
}

int af_none(alloc_fast *f, const af_shape *sh, const af_track *t, bool light, tph_idx task,
            tph_reason_code *codes)
{
	tph_session *s = f->s;
	bool types = by_types(t, light);
	const af_shape *base = t ? t->sh : sh;
	if (!f->log_none) {
		list(base, t, types, f->n, codes);
		return AF_NONE;
	}
	af_fail *m = memo_get(f, base, types);
	uint32_t *hist = tph_fitlog_hist(s);
	if (!hist)
		return TPH_ENOMEM;
	if (m)
		memcpy(hist, m->hist, (s->n_reasons ? s->n_reasons : 1) * sizeof *hist);
	else
		count(base, types, s->n_reasons, f->n, hist);
	bool own = !m;
	if (t && count_overrides(t, types, f->fails, s->n_reasons, hist))
		own = true; /* the memo's nodes are the base's */
	int rc = tph_fitlog_counted(s, task);
	if (rc == 1 && own) {
		list(base, t, types, f->n, codes);
		rc = tph_fitlog_unres(s, task, s->ready_nodes, codes, f->n);
	} else if (rc == 1) {
		rc = memo_unres(f, f->fails, m);
		rc = rc ? rc : tph_fitlog_unres_nodes(s, task, m->unres, m->n_unres);
	}
	return rc ? rc : AF_NONE;
}

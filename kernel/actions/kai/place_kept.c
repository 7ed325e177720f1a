/* Kept verdicts for the placement walk (place.h): the solver re-places the same few task shapes
 * over the whole pool in scenario after scenario, each of which changes the ledger on a handful
 * of nodes and rolls back. Per shape, the nodes it fits are kept with their summed scores, best
 * first; a task then evaluates afresh only the nodes the ledger touched since (its touch log,
 * kai_range.c) and walks the kept order past them. Exact while the scores are local (tephra/kai.h)
 * and the pool's free ranges, which nodeplacement's scores read, are the ones kept with them.
 * The same over the set the solver declares for a scenario (tph_kai_ranges_subset), kept apart
 * from the pool's. */
#include "place.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

#define KEPT_SHAPES 8
#define EMPTY       UINT32_MAX

typedef struct kept_shape {
	ranked *ranked; /* [pool] the fitting nodes as filled, best first */
	uint32_t n;
	uint32_t task;    /* a task of the shape (its request columns are the key); EMPTY: none */
	uint32_t set;     /* which set it was filled over (tph_kai_ranges_set) */
	uint32_t gen, at; /* the touch log's generation and length when filled */
	double range[TPH_KAI_DIMS][2]; /* of the dims in `dims` */
	unsigned dims;                 /* the ranges NodePreOrder read (tph_kai_ranges_read) */
	uint64_t used;                 /* the lookup count at its last use, for replacement */
	bool sorted; /* ranked is in the walk's order (sorted at the shape's second use) */
} kept_shape;

/* A node and its score (node -1: none). */
typedef struct pick {
	double score;
	int64_t node;
} pick;

struct tph_kai_kept {
	kept_shape shape[KEPT_SHAPES];
	uint64_t lookups;
	const uint8_t *member;   /* [node] of the set asked now */
	ranked *spare, *touched; /* [pool] refresh's merge output and its touched nodes */
};

int tph_kai_kept_new(tph_kai_kept **out, const tph_kai_session *s)
{
	size_t nn = (size_t)s->v->nodes.n + 1;
	tph_kai_kept *k = tph_calloc(1, sizeof *k);
	*out = k;
	if (!k)
		return TPH_ENOMEM;
	for (int i = 0; i < KEPT_SHAPES; i++) {
		k->shape[i].task = EMPTY;
		if (!(k->shape[i].ranked = tph_malloc(nn * sizeof *k->shape[i].ranked)))
			return TPH_ENOMEM;
	}
	k->spare = tph_malloc(nn * sizeof *k->spare);
	k->touched = tph_malloc(nn * sizeof *k->touched);
	return k->spare && k->touched ? TPH_OK : TPH_ENOMEM;
}

void tph_kai_kept_free(tph_kai_kept *k)
{
	if (!k)
		return;
	for (int i = 0; i < KEPT_SHAPES; i++)
		tph_free(k->shape[i].ranked);
	tph_free(k->spare);
	tph_free(k->touched);
	tph_free(k);
}

/* Whether tasks a and b ask the same of every node: the request columns local scores and the
 * fit tests read. */
static bool same_shape(const tph_kai_view *v, uint32_t a, uint32_t b)
{
	const tph_kai_tasks *k = &v->tasks;
	uint32_t m = v->nodes.n_mig;
	return k->gpus[a] == k->gpus[b] && k->gpu_fraction[a] == k->gpu_fraction[b] &&
	       k->gpu_memory_mib[a] == k->gpu_memory_mib[b] &&
	       k->gpu_devices[a] == k->gpu_devices[b] && k->cpu_milli[a] == k->cpu_milli[b] &&
	       k->memory[a] == k->memory[b] && k->nominated_node[a] == k->nominated_node[b] &&
	       k->mig[a] == k->mig[b] &&
	       (!m || memcmp(k->mig_request + (size_t)a * m, k->mig_request + (size_t)b * m,
	                     m * sizeof *k->mig_request) == 0);
}

/* The shape of task t over set `set`: kept, or a slot emptied: one kept over an earlier
 * declared subset (it cannot be asked again), else the least recently used. */
static kept_shape *shape_of(tph_kai_kept *k, const tph_kai_view *v, uint32_t t, uint32_t set)
{
	kept_shape *old = &k->shape[0];
	for (int i = 0; i < KEPT_SHAPES; i++) {
		kept_shape *sh = &k->shape[i];
		if (sh->task != EMPTY && sh->set == set && same_shape(v, sh->task, t))
			return sh;
		if (sh->task != EMPTY && sh->set != 0 && sh->set != set)
			sh->used = 0;
		old = sh->used < old->used ? sh : old;
	}
	old->task = EMPTY;
	old->set = set;
	return old;
}

static int by_rank(const void *pa, const void *pb)
{
	const ranked *l = pa, *r = pb;
	return tph_kai_ranked_before(l->score, l->rank, r->score, r->rank) ? -1 : 1;
}

/* Every node of the pool evaluated for t, the fitting ones kept unsorted (a shape asked once
 * does not pay the sort); -2 on a NaN score. */
static int fill(tph_kai_placer *a, kept_shape *sh, uint32_t t, const uint32_t *set, uint32_t n)
{
	double need[TPH_KAI_DIMS];
	tph_kai_place_need(a->s, t, need);
	sh->n = 0;
	sh->sorted = false;
	for (uint32_t i = 0; i < n; i++) {
		double sc;
		int fit = tph_kai_place_eval(a->s, t, need, set[i], &sc);
		if (fit < 0)
			return fit;
		if (fit)
			sh->ranked[sh->n++] = (ranked){sc, a->name_rank[set[i]], set[i]};
	}
	sh->task = t;
	return 0;
}

/* The best of `c` and the kept nodes untouched since the fill whose predicates pass. Sorted:
 * the first such node in the kept order unless c comes before it; else every one compared. */
static int64_t best_kept(tph_kai_placer *a, const kept_shape *sh, uint32_t t,
                         const tph_kai_touches *tl, pick c)
{
	for (uint32_t i = 0; i < sh->n; i++) {
		const ranked *r = &sh->ranked[i];
		if (tl->last[r->node] > sh->at)
			continue;
		bool wins = c.node < 0 ||
		            tph_kai_ranked_before(r->score, r->rank, c.score, a->name_rank[c.node]);
		if (!wins && sh->sorted)
			break;
		if (wins && tph_kai_predicate(a->s, t, r->node)) {
			c = (pick){r->score, r->node};
			if (sh->sorted)
				break;
		}
	}
	return c.node;
}

/* The next node of the kept set touched since log entry *e, each once (at its latest entry);
 * UINT32_MAX when none is left. */
static uint32_t next_touched(const tph_kai_kept *k, const tph_kai_touches *tl, uint32_t *e)
{
	while (*e < tl->n) {
		uint32_t node = tl->log[(*e)++];
		if (tl->last[node] == *e && k->member[node])
			return node;
	}
	return UINT32_MAX;
}

/* The best node among those touched since the fill (each once: at its latest log entry) that t
 * fits and whose predicates pass (node -1: none; -2: a NaN score). */
static pick best_touched(tph_kai_placer *a, const kept_shape *sh, uint32_t t,
                         const tph_kai_touches *tl)
{
	const tph_kai_session *s = a->s;
	double need[TPH_KAI_DIMS];
	pick c = {0, -1};
	tph_kai_place_need(s, t, need);
	for (uint32_t e = sh->at, node; (node = next_touched(a->kept, tl, &e)) != UINT32_MAX;) {
		double sc;
		int fit = tph_kai_place_eval(s, t, need, node, &sc);
		if (fit < 0)
			return (pick){0, fit};
		if (fit &&
		    (c.node < 0 || tph_kai_ranked_before(sc, a->name_rank[node], c.score,
		                                         a->name_rank[c.node])) &&
		    tph_kai_predicate(s, t, node))
			c = (pick){sc, node};
	}
	return c;
}

/* The touched nodes evaluated afresh and merged into the sorted verdicts, the untouched ones
 * kept as they are: no plugin call for them. 0, or -2 on a NaN score. */
static int refresh(tph_kai_placer *a, kept_shape *sh, uint32_t t, const tph_kai_touches *tl)
{
	tph_kai_kept *k = a->kept;
	double need[TPH_KAI_DIMS];
	uint32_t nt = 0, n = 0, i = 0, j = 0;
	tph_kai_place_need(a->s, t, need);
	for (uint32_t e = sh->at, node; (node = next_touched(k, tl, &e)) != UINT32_MAX;) {
		double sc;
		int fit = tph_kai_place_eval(a->s, t, need, node, &sc);
		if (fit < 0)
			return fit;
		if (fit)
			k->touched[nt++] = (ranked){sc, a->name_rank[node], node};
	}
	qsort(k->touched, nt, sizeof *k->touched, by_rank);
	while (i < sh->n || j < nt) {
		const ranked *r = i < sh->n ? &sh->ranked[i] : NULL;
		if (r && tl->last[r->node] > sh->at) {
			i++;
			continue;
		}
		bool mine =
		    !r || (j < nt && tph_kai_ranked_before(k->touched[j].score, k->touched[j].rank,
		                                           r->score, r->rank));
		k->spare[n++] = mine ? k->touched[j++] : sh->ranked[i++];
	}
	ranked *old = sh->ranked;
	sh->ranked = k->spare;
	k->spare = old;
	sh->n = n;
	sh->at = tl->n;
	return 0;
}

/* Whether NodePreOrder read the same free ranges of the pool as when the shape was filled (it
 * read them just now: no rescan); the ranges are noted for the next time. */
static bool same_ranges(const tph_kai_session *s, kept_shape *sh, const uint32_t *set, uint32_t n)
{
	unsigned dims = tph_kai_ranges_read(s);
	bool same = dims == sh->dims;
	sh->dims = dims;
	for (int d = 0; d < TPH_KAI_DIMS; d++) {
		double lo, hi;
		if (!(dims >> d & 1u))
			continue;
		if (!tph_kai_session_free_range(s, d, set, n, &lo, &hi))
			return false;
		same = same && sh->range[d][0] == lo && sh->range[d][1] == hi;
		sh->range[d][0] = lo, sh->range[d][1] = hi;
	}
	return same;
}

int64_t tph_kai_kept_best(tph_kai_placer *a, uint32_t t, const uint32_t *set, uint32_t n)
{
	const tph_kai_session *s = a->s;
	tph_kai_touches tl;
	tph_kai_kept *k = a->kept;
	uint32_t key = tph_kai_ranges_set(s, set, n, &k->member);
	if (s->naive || key == UINT32_MAX || !tph_kai_touch_log(s, &tl) ||
	    !tph_kai_scores_local(s, t))
		return -3;
	kept_shape *sh = shape_of(k, s->v, t, key);
	sh->used = ++k->lookups;
	bool fresh = sh->task == EMPTY || sh->gen != tl.gen;
	if (!same_ranges(s, sh, set, n) || fresh) {
		sh->task = EMPTY;
		int rc = fill(a, sh, t, set, n);
		if (rc < 0)
			return rc;
		tph_kai_touch_log(s, &tl);
		sh->gen = tl.gen;
		sh->at = tl.n;
		return best_kept(a, sh, t, &tl, (pick){0, -1});
	}
	if (!sh->sorted) {
		qsort(sh->ranked, sh->n, sizeof *sh->ranked, by_rank);
		sh->sorted = true;
	}
	/* Each touch is evaluated at every ask until a refresh, which costs a pass over the kept
	 * verdicts without plugin calls: refresh after a few touches per hundred nodes. */
	if (tl.n - sh->at > 32 + n / 64) {
		int rc = refresh(a, sh, t, &tl);
		if (rc < 0) {
			sh->task = EMPTY;
			return rc;
		}
	}
	pick c = best_touched(a, sh, t, &tl);
	return c.node < -1 ? c.node : best_kept(a, sh, t, &tl, c);
}

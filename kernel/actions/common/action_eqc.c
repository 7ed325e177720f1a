/* Equivalence classes for node filtering: tasks of one job with the same spec pointer, request
 * row and role share a verdict column over the nodes. Each verdict carries the touch clock of
 * its evaluation and each node the clock of its last touch, so a class evaluates again only the
 * nodes it is asked about that were touched since (the hypernode path asks about one rack at a
 * time: a class never pays for the nodes it is not asked about).
 * Valid only when a node's verdict depends on that node alone, so classes are refused when a
 * predicate plugin might look further (inter-pod terms, unknown plugins). */
#include "action_util.h"

#include "session/ep.h"
#include "session/ep_predicate.h"
#include "base/lazycol.h"
#include "base/mem.h"

#include <string.h>

#define CLS_NONE   UINT32_MAX /* the task is evaluated on its own */
#define SMALL_EVAL 4u         /* fewer nodes than this: evaluate directly */
/* Verdict columns kept at once, LRU beyond: the classes a pass keeps coming back to are far
 * fewer (the generated profiles do the same filtering work with 256 columns as with 3,000),
 * and each column costs 6 bytes per node, which is session memory while the action runs. */
#define MAX_SLOTS   256u
#define SLOT_BUDGET ((size_t)64 << 20)
/* A column's stamps are zeroed a block at a time, when a node of the block is first asked
 * about: the hypernode path asks a class about a few racks, and zeroing the whole column
 * faulted in ~1,060 pages on 10k-topology of which ~300 were read. */
#define AT_SHIFT 10u /* 1,024 stamps, a page */

typedef struct eq_slot {
	uint32_t cls;  /* CLS_NONE: free */
	uint32_t base; /* tick when the class took the column: older stamps are not its */
	uint64_t used; /* LRU clock */
	tph_reason_code *verdict; /* [node] */
	uint32_t *at;             /* [node] touch clock + 1 when verdict[node] was evaluated */
	uint8_t *zeroed;          /* [node >> AT_SHIFT] 1 when that block of `at` is zeroed */
} eq_slot;

struct tph_eqc {
	tph_session *s;
	bool with_fit;
	tph_lazy32 cls;    /* [task]: class + 1; 0 not yet known (few asked: zeroed by block) */
	uint32_t *table;   /* open addressing over class ids + 1 */
	uint32_t tcap;     /* power of two */
	tph_idx *rep;      /* [class] its first task */
	uint64_t *hash;    /* [class] */
	uint32_t *slot_of; /* [class] slot + 1, 0 none */
	uint32_t n_cls, cap_rep, cap_hash, cap_slot_of;
	eq_slot *slots;
	uint32_t n_slots, cap_slots, max_slots;
	uint64_t clock;
	tph_idx *log; /* touched nodes, in order (for tph_eqc_log's readers) */
	uint32_t n_log, cap_log;
	uint32_t lost;     /* bumped when a touch could not be logged */
	uint32_t tick;     /* touch clock: touches and column takeovers */
	uint32_t *touched; /* [node] the clock of its last touch */
	tph_idx *sub, *sub_feas;
	uint32_t *sub_pos;
	tph_reason_code *sub_codes;
};

/* Classes need every predicate node-local, as its plugin declared (tph_on_predicate_locality's
 * contract in tephra/plugin.h; a plugin that declares nothing is not). */
static bool predicates_node_local(const tph_session *s)
{
	if (tph_predicate_locality(s) < TPH_PRED_LOCAL)
		return false;
	/* A placed pod's required anti-affinity reaches every node of its topology domain. */
	for (uint32_t t = 0; t < s->tasks.n; t++)
		if (s->tasks.spec[t] && s->tasks.spec[t]->n_anti_required)
			return false;
	return true;
}

/* Inter-pod affinity and hard spreading make a verdict depend on other nodes' pods. */
bool tph_eqc_spec_local(const tph_pod_spec *sp)
{
	if (!sp)
		return true;
	if (sp->n_pod_required || sp->n_anti_required)
		return false;
	for (uint32_t i = 0; i < sp->n_spread; i++)
		if (sp->spread[i].do_not_schedule)
			return false;
	return true;
}

bool tph_eqc_usable(const tph_session *s)
{
	return !s->opts.naive && predicates_node_local(s);
}

tph_eqc *tph_eqc_new(tph_session *s, bool with_fit)
{
	if (!tph_eqc_usable(s))
		return NULL;
	tph_eqc *e = tph_calloc(1, sizeof *e);
	if (!e)
		return NULL;
	uint32_t nn = s->nodes.n + 1;
	e->s = s;
	e->with_fit = with_fit;
	e->touched = tph_calloc(nn, sizeof *e->touched);
	e->sub = tph_malloc(nn * sizeof *e->sub);
	e->sub_pos = tph_malloc(nn * sizeof *e->sub_pos);
	e->sub_feas = tph_malloc(nn * sizeof *e->sub_feas);
	e->sub_codes = tph_malloc(nn * sizeof *e->sub_codes);
	size_t per = (size_t)nn * (sizeof(tph_reason_code) + sizeof(uint32_t));
	size_t max = SLOT_BUDGET / per;
	e->max_slots = max < 4 ? 4 : max > MAX_SLOTS ? MAX_SLOTS : (uint32_t)max;
	if (tph_lazy32_init(&e->cls, s->tasks.n + 1) || !e->touched || !e->sub || !e->sub_pos ||
	    !e->sub_feas || !e->sub_codes) {
		tph_eqc_free(e);
		return NULL;
	}
	return e;
}

void tph_eqc_free(tph_eqc *e)
{
	if (!e)
		return;
	for (uint32_t i = 0; i < e->n_slots; i++) {
		tph_free(e->slots[i].verdict);
		tph_free(e->slots[i].at);
		tph_free(e->slots[i].zeroed);
	}
	tph_free(e->slots);
	tph_lazy32_free(&e->cls);
	tph_free(e->table);
	tph_free(e->rep);
	tph_free(e->hash);
	tph_free(e->slot_of);
	tph_free(e->log);
	tph_free(e->touched);
	tph_free(e->sub);
	tph_free(e->sub_pos);
	tph_free(e->sub_feas);
	tph_free(e->sub_codes);
	tph_free(e);
}

/* Out of clock: forget every column's stamps (never in practice: 2^32 touches). */
static void clock_reset(tph_eqc *e)
{
	uint32_t nn = e->s->nodes.n + 1;
	for (uint32_t i = 0; i < e->n_slots; i++) {
		memset(e->slots[i].zeroed, 0, (nn >> AT_SHIFT) + 1);
		e->slots[i].base = 0;
	}
	memset(e->touched, 0, nn * sizeof *e->touched);
	e->tick = 0;
}

void tph_eqc_touch(tph_eqc *e, tph_idx node)
{
	if (e->tick >= UINT32_MAX - 2)
		clock_reset(e);
	e->touched[node] = ++e->tick;
	if (tph_grow(&e->log, &e->cap_log, e->n_log + 1, sizeof *e->log)) {
		e->lost++;
		return;
	}
	e->log[e->n_log++] = node;
}

const tph_idx *tph_eqc_log(const tph_eqc *e, uint32_t *n, uint32_t *lost)
{
	*n = e->n_log;
	*lost = e->lost;
	return e->log;
}

/* ---- class keys ---- */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h * 0x100000001b3ull;
}

static uint64_t key_hash(const tph_session *s, tph_idx t)
{
	const int64_t *req = s->tasks.req + (size_t)t * s->ndim;
	uint64_t h = mix(s->tasks.job[t], (uint64_t)(uintptr_t)s->tasks.spec[t]);
	h = mix(h, s->tasks.role[t]);
	for (uint32_t d = 0; d < s->ndim; d++)
		h = mix(h, (uint64_t)req[d]);
	return h;
}

bool tph_eqc_same_class(const tph_session *s, tph_idx a, tph_idx b)
{
	const tph_task_store *ts = &s->tasks;
	return ts->job[a] == ts->job[b] && ts->spec[a] == ts->spec[b] &&
	       ts->role[a] == ts->role[b] &&
	       !memcmp(ts->req + (size_t)a * s->ndim, ts->req + (size_t)b * s->ndim,
	               s->ndim * sizeof *ts->req);
}

static int rehash(tph_eqc *e, uint32_t cap)
{
	uint32_t *t = tph_calloc(cap, sizeof *t);
	if (!t)
		return TPH_ENOMEM;
	for (uint32_t c = 0; c < e->n_cls; c++) {
		uint32_t i = (uint32_t)e->hash[c] & (cap - 1);
		while (t[i])
			i = (i + 1) & (cap - 1);
		t[i] = c + 1;
	}
	tph_free(e->table);
	e->table = t;
	e->tcap = cap;
	return TPH_OK;
}

static uint32_t class_add(tph_eqc *e, tph_idx t, uint64_t h)
{
	uint32_t c = e->n_cls;
	if (tph_grow(&e->rep, &e->cap_rep, c + 1, sizeof *e->rep) ||
	    tph_grow(&e->hash, &e->cap_hash, c + 1, sizeof *e->hash) ||
	    tph_grow(&e->slot_of, &e->cap_slot_of, c + 1, sizeof *e->slot_of))
		return CLS_NONE;
	e->rep[c] = t;
	e->hash[c] = h;
	e->slot_of[c] = 0;
	e->n_cls++;
	if ((uint64_t)e->n_cls * 2 > e->tcap && rehash(e, e->tcap ? e->tcap * 2 : 64)) {
		e->n_cls--;
		return CLS_NONE;
	}
	uint32_t i = (uint32_t)h & (e->tcap - 1);
	while (e->table[i])
		i = (i + 1) & (e->tcap - 1);
	e->table[i] = c + 1;
	return c;
}

static uint32_t class_of(tph_eqc *e, tph_idx t)
{
	uint32_t known = tph_lazy32_get(&e->cls, t);
	if (known)
		return known - 1;
	const tph_session *s = e->s;
	uint32_t c = CLS_NONE;
	if (tph_eqc_spec_local(s->tasks.spec[t])) {
		uint64_t h = key_hash(s, t);
		for (uint32_t i = e->tcap ? (uint32_t)h & (e->tcap - 1) : 0; e->tcap && e->table[i];
		     i = (i + 1) & (e->tcap - 1)) {
			uint32_t k = e->table[i] - 1;
			if (e->hash[k] == h && tph_eqc_same_class(s, e->rep[k], t)) {
				c = k;
				break;
			}
		}
		if (c == CLS_NONE)
			c = class_add(e, t, h);
	}
	tph_lazy32_set(&e->cls, t, c == CLS_NONE ? CLS_NONE : c + 1);
	return c;
}

/* ---- verdict columns ---- */

static eq_slot *slot_new(tph_eqc *e)
{
	if (e->n_slots >= e->max_slots)
		return NULL;
	uint32_t nn = e->s->nodes.n + 1;
	tph_reason_code *v = tph_malloc(nn * sizeof *v);
	uint32_t *at = tph_malloc(nn * sizeof *at);
	uint8_t *zeroed = tph_calloc((nn >> AT_SHIFT) + 1, 1);
	if (!v || !at || !zeroed ||
	    tph_grow(&e->slots, &e->cap_slots, e->n_slots + 1, sizeof *e->slots)) {
		tph_free(v);
		tph_free(at);
		tph_free(zeroed);
		return NULL;
	}
	eq_slot *sl = &e->slots[e->n_slots++];
	*sl = (eq_slot){.cls = CLS_NONE, .verdict = v, .at = at, .zeroed = zeroed};
	return sl;
}

/* The class's column: its own, a new one, or the least recently used one taken over. */
static eq_slot *slot_bind(tph_eqc *e, uint32_t c)
{
	if (e->slot_of[c])
		return &e->slots[e->slot_of[c] - 1];
	eq_slot *sl = slot_new(e);
	if (!sl)
		for (uint32_t i = 0; i < e->n_slots; i++)
			if (!sl || e->slots[i].used < sl->used)
				sl = &e->slots[i];
	if (!sl)
		return NULL;
	if (sl->cls != CLS_NONE)
		e->slot_of[sl->cls] = 0;
	if (e->tick >= UINT32_MAX - 2)
		clock_reset(e);
	sl->cls = c;
	sl->base = ++e->tick; /* every stamp so far is at most this: none counts for c */
	e->slot_of[c] = (uint32_t)(sl - e->slots) + 1;
	return sl;
}

/* The stamp of node in sl, its block of stamps zeroed when first read. */
static inline uint32_t stamp(const tph_eqc *e, eq_slot *sl, tph_idx node)
{
	uint32_t b = node >> AT_SHIFT;
	if (!sl->zeroed[b]) {
		uint32_t lo = b << AT_SHIFT, nn = e->s->nodes.n + 1;
		uint32_t hi = nn - lo < (1u << AT_SHIFT) ? nn : lo + (1u << AT_SHIFT);
		memset(sl->at + lo, 0, (hi - lo) * sizeof *sl->at);
		sl->zeroed[b] = 1;
	}
	return sl->at[node];
}

static void direct(tph_eqc *e, tph_idx task, const tph_idx *nodes, uint32_t n, tph_reason_code *out)
{
	if (e->with_fit)
		tph_filter_nodes(e->s, task, nodes, n, out, e->sub_feas);
	else
		tph_predicate_nodes(e->s, task, nodes, n, out);
}

void tph_eqc_eval(tph_eqc *e, tph_idx task, const tph_idx *nodes, uint32_t n, tph_reason_code *out)
{
	/* columns hold the ready nodes only (the candidates every caller passes) */
	bool ready = n >= SMALL_EVAL;
	for (uint32_t i = 0; ready && i < n; i++)
		ready = e->s->nodes.flags[nodes[i]] & TPH_NODE_READY;
	uint32_t c = ready ? class_of(e, task) : CLS_NONE;
	eq_slot *sl = c == CLS_NONE ? NULL : slot_bind(e, c);
	if (!sl) {
		direct(e, task, nodes, n, out);
		return;
	}
	sl->used = ++e->clock;
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		tph_idx node = nodes[i];
		uint32_t at = stamp(e, sl, node);
		if (at > sl->base && at > e->touched[node]) {
			out[i] = sl->verdict[node];
			continue;
		}
		e->sub[k] = node;
		e->sub_pos[k++] = i;
	}
	if (!k)
		return;
	direct(e, task, e->sub, k, e->sub_codes);
	for (uint32_t j = 0; j < k; j++) {
		sl->verdict[e->sub[j]] = e->sub_codes[j];
		sl->at[e->sub[j]] = e->tick + 1;
		out[e->sub_pos[j]] = e->sub_codes[j];
	}
}

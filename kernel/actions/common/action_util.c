/* Shared action helpers: the queue and job heaps, node-filtering options and Session.dispatch
 * of a ready job (through a statement, the decision log's one writer). */
#include "action_util.h"

#include "session/ep.h"
#include "base/mem.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ---- action scratch ---- */

static void *act_block(tph_act_scratch *sc, size_t count, size_t size, bool zero)
{
	if (tph_grow(&sc->blk, &sc->cap, sc->n + 1, sizeof *sc->blk))
		return NULL;
	void *p = zero                      ? tph_calloc(count, size)
	          : count > SIZE_MAX / size ? NULL
	                                    : tph_malloc(count * size);
	if (p)
		sc->blk[sc->n++] = p;
	return p;
}

/* Most blocks are small (a topology job's worksheet takes about ten), so they are cut from
 * zeroed chunks: a heap block, an entry in the session's heap account and a run of fresh pages
 * per chunk, not per block. The sanitizer build (TPH_ARENA_MALLOC) keeps a heap block for each,
 * so that ASan sees every block's bounds. */
#define ACT_CHUNK ((size_t)64 << 10)
#define ACT_SMALL ((size_t)2 << 10)
#define ACT_ALIGN ((size_t)16) /* what malloc guarantees on the platforms we build for */

static void *act_cut(tph_session *s, size_t count, size_t size, bool zero)
{
	tph_act_scratch *sc = &s->act_scratch;
	count = count ? count : 1;
	size = size ? size : 1;
	if (TPH_ARENA_MALLOC || count > ACT_SMALL / size)
		return act_block(sc, count, size, zero);
	size_t bytes = (count * size + ACT_ALIGN - 1) & ~(ACT_ALIGN - 1);
	if ((size_t)(sc->end - sc->ptr) < bytes) {
		char *c = act_block(sc, 1, ACT_CHUNK, true);
		if (!c)
			return NULL;
		sc->ptr = c;
		sc->end = c + ACT_CHUNK;
	}
	void *p = sc->ptr;
	sc->ptr += bytes;
	return p;
}

void *tph_act_calloc(tph_session *s, size_t count, size_t size)
{
	return act_cut(s, count, size, true);
}

void *tph_act_alloc(tph_session *s, size_t count, size_t size)
{
	return act_cut(s, count, size, false);
}

void tph_act_scratch_end(tph_session *s)
{
	tph_act_scratch *sc = &s->act_scratch;
	for (uint32_t i = 0; i < sc->n; i++)
		tph_free(sc->blk[i]);
	tph_free(sc->blk);
	*sc = (tph_act_scratch){0};
	tph_fitlog_drop_roles(s);
}

/* ---- the queue and job loops ---- */

int tph_act_job_heaps(tph_session *s, const uint32_t *per_queue, tph_pq *queues, tph_pq **jobs)
{
	uint32_t nq = s->queues->n;
	tph_idx *qbuf = TPH_ACT_NEW(s, tph_idx, nq + 1);
	tph_idx *jbuf = TPH_ACT_NEW(s, tph_idx, s->jobs->n + 1);
	*jobs = TPH_ACT_NEW(s, tph_pq, nq + 1);
	if (!qbuf || !jbuf || !*jobs)
		return TPH_ENOMEM;
	tph_pq_init(queues, s, tph_queue_order, qbuf, nq);
	for (tph_idx q = 0; q < nq; q++) {
		tph_pq_init(&(*jobs)[q], s, tph_job_order, jbuf, per_queue[q]);
		jbuf += per_queue[q];
	}
	return TPH_OK;
}

void tph_act_push_job(const tph_session *s, tph_pq *queues, tph_pq *jobs, tph_idx j)
{
	tph_idx q = s->jobs->queue[j];
	if (!jobs[q].n)
		tph_pq_push(queues, q);
	tph_pq_push(&jobs[q], j);
}

/* ---- options ---- */

typedef struct ph_args {
	bool cache, cache_alias;
	int64_t min_nodes, min_pct, pct;
} ph_args;

/* The sampling knobs are scheduler flags in Volcano; here they are action arguments, and -1
 * (left out) keeps sampling off. enablePredicateErrorCache is the spelling the scenario format
 * shows; either key set to false turns the cache off. */
const tph_arg_spec tph_ph_arg_spec[] = {
    {"predicateErrorCacheEnable", TPH_ARG_BOOL, "true", 0, 0, offsetof(ph_args, cache),
     "cache a role's failed nodes within one job's pass"},
    {"enablePredicateErrorCache", TPH_ARG_BOOL, "true", 0, 0, offsetof(ph_args, cache_alias),
     "alias of predicateErrorCacheEnable"},
    {"minimum-feasible-nodes", TPH_ARG_INT, "-1", 0, 0, offsetof(ph_args, min_nodes),
     "node sampling: minimum feasible nodes to find (Volcano 100)"},
    {"minimum-percentage-nodes-to-find", TPH_ARG_INT, "-1", 0, 0, offsetof(ph_args, min_pct),
     "node sampling: minimum percentage of nodes to find (Volcano 5)"},
    {"percentage-nodes-to-find", TPH_ARG_INT, "-1", 0, 0, offsetof(ph_args, pct),
     "node sampling: percentage of nodes to find, 0 adaptive (Volcano 0)"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

static int32_t clamp32(int64_t v)
{
	return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

void tph_ph_opts_read(tph_session *s, const tph_args *args, const char *action, tph_ph_opts *o)
{
	ph_args a;
	tph_args_apply(args, tph_ph_arg_spec, &a, s->diag, action);
	o->error_cache = a.cache && a.cache_alias;
	o->volcano = s->sampling == TPH_SAMPLING_VOLCANO;
	o->sampling = o->volcano || a.min_nodes >= 0 || a.min_pct >= 0 || a.pct >= 0;
	o->min_nodes = a.min_nodes >= 0 ? clamp32(a.min_nodes) : 100;
	o->min_pct = a.min_pct >= 0 ? clamp32(a.min_pct) : 5;
	o->pct = a.pct >= 0 ? clamp32(a.pct) : 0;
}

uint32_t tph_ph_nodes_to_find(const tph_ph_opts *o, uint32_t n_all)
{
	int32_t all = (int32_t)n_all;
	if (!o->sampling || all <= o->min_nodes || o->pct >= 100)
		return n_all;
	int32_t pct = o->pct;
	if (pct <= 0) {
		pct = 50 - all / 125;
		if (pct < o->min_pct)
			pct = o->min_pct;
	}
	int32_t n = (int32_t)((int64_t)all * pct / 100);
	if (n < o->min_nodes)
		n = o->min_nodes;
	return n < 1 ? 1 : (uint32_t)n;
}

uint32_t tph_ph_start(const tph_session *s, const tph_ph_opts *o, const uint32_t *rr, uint32_t n)
{
	if (!o->sampling || !n)
		return 0;
	return (o->volcano ? s->sample_rr : *rr) % n;
}

/* newIndex := (startIndex + processedNodes) % allNodes (PredicateNodes): a scan of one node
 * brings the index back to 0. */
void tph_ph_advance(tph_session *s, const tph_ph_opts *o, uint32_t *rr, uint32_t start,
                    uint32_t processed, uint32_t n)
{
	if (!o->sampling || !n)
		return;
	uint32_t next = (uint32_t)(((uint64_t)start + processed) % n);
	if (o->volcano)
		s->sample_rr = next;
	else
		*rr = next;
}

/* ---- Session.dispatch ---- */

/* Allocated tasks of the job other than `first`, in snapshot order; `left` of them. */
static int dispatch_rest(tph_statement *st, tph_idx job, tph_idx first, uint32_t left)
{
	const tph_session *s = st->s;
	const tph_job_store *js = s->jobs;
	int rc = TPH_OK;
	for (uint32_t i = js->task_off[job]; i < js->task_off[job + 1] && left && !rc; i++) {
		tph_idx t = js->task_idx[i];
		if (t == first || s->tasks.status[t] != TPH_TS_ALLOCATED)
			continue;
		rc = tph_stmt_dispatch(st, t);
		left--;
	}
	return rc;
}

int tph_act_dispatch_job(tph_session *s, tph_idx job, tph_idx first)
{
	uint32_t allocated = s->js.count[(size_t)job * TPH_TS_COUNT + TPH_TS_ALLOCATED];
	tph_statement st;
	tph_stmt_init(&st, s);
	int rc = tph_stmt_dispatch(&st, first);
	if (!rc)
		rc = dispatch_rest(&st, job, first, allocated - 1);
	if (rc) {
		tph_stmt_discard(&st);
		return rc;
	}
	return tph_stmt_commit(&st);
}

bool tph_conf_has_action(const tph_session *s, const char *action)
{
	uint32_t n = tph_conf_action_count(s->conf);
	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(tph_conf_action(s->conf, i), action))
			return true;
	return false;
}

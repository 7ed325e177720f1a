/* Score locality (plugin.h): registration, and the combined answer over every plugin that
 * scores, on which allocate's class-level scores (allocate_fast.c) rely. A plugin's locality
 * callback speaks for all its score registrations; a scoring plugin without one is GLOBAL.
 * Predicate locality: a built-in's declaration that its predicate is not node-local
 * (action_eqc.c reads it); final reasons: verdicts allocate keeps without asking again; pod-count
 * passes: passes it keeps while the node's count stays below its limit. Allocatable
 * locality: whether preempt may skip nodes whose evictions could not make Allocatable say yes
 * (preempt_normal.c reads it). Victim locality: whether preempt and reclaim may fail a task as the
 * last of its class failed. Task order keys: whether a job's task queues may compare ranks
 * (task_rank.c). Anchors and normalisation values: what an ANCHORED score's normalisation reads
 * of the call's nodes. */
#include "ep.h"
#include "prof.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#define CALL(type, e) ((type)(e)->fn)

int tph_on_score_locality(tph_session *s, tph_score_locality_fn locality,
                          tph_score_anchors_fn anchors)
{
	if (!locality)
		return TPH_EINVAL;
	int rc = tph_ep_register(s, TPH_EP_SCORE_LOCALITY, (tph_any_fn)locality);
	if (!rc && anchors)
		rc = tph_ep_register(s, TPH_EP_SCORE_ANCHORS, (tph_any_fn)anchors);
	return rc;
}

/* The plugin now opening, when it may declare `locality` (0..most); else NULL and *rc says
 * why. */
static tph_plugin_inst *declaring(tph_session *s, int locality, int most, int *rc)
{
	*rc = TPH_OK;
	if (s->frozen)
		*rc = TPH_EFROZEN;
	else if (s->cur_plugin < 0 || (uint32_t)s->cur_plugin >= s->n_plugins || locality < 0 ||
	         locality > most)
		*rc = TPH_EINVAL;
	return *rc ? NULL : &s->plugins[s->cur_plugin];
}

/* The same for a callback, which must be given. */
static tph_plugin_inst *opening(tph_session *s, bool given, int *rc)
{
	*rc = TPH_EINVAL;
	return given ? declaring(s, 0, 0, rc) : NULL;
}

int tph_on_score_norm(tph_session *s, tph_score_norm_fn norm)
{
	int rc;
	tph_plugin_inst *pi = opening(s, norm != NULL, &rc);
	if (pi)
		pi->score_norm = norm;
	return rc;
}

int tph_on_score_split(tph_session *s, tph_score_split_fn split)
{
	int rc;
	tph_plugin_inst *pi = opening(s, split != NULL, &rc);
	if (pi)
		pi->score_split = split;
	return rc;
}

int tph_declare_score_zero(tph_session *s)
{
	int rc;
	tph_plugin_inst *pi = declaring(s, 0, 0, &rc);
	if (pi && !pi->score_split)
		return TPH_EINVAL;
	if (pi && tph_ep_enabled(pi, TPH_EP_BATCH_NODE_ORDER))
		pi->score_zero = true;
	return rc;
}

int tph_on_score_hn_bound(tph_session *s, tph_score_hn_bound_fn bound)
{
	int rc;
	tph_plugin_inst *pi = opening(s, bound != NULL, &rc);
	if (pi)
		pi->score_hn_bound = bound;
	return rc;
}

int tph_on_hypernode_order_each(tph_session *s, tph_hn_score_fn each)
{
	int rc;
	tph_plugin_inst *pi = opening(s, each != NULL, &rc);
	if (pi)
		pi->hn_order_each = each;
	return rc;
}

static const tph_ep_entry *entry_of(const tph_session *s, tph_ep ep, uint16_t plugin)
{
	const tph_ep_list *l = &s->ep[ep];
	for (uint32_t i = 0; i < l->n; i++)
		if (l->e[i].plugin == plugin)
			return &l->e[i];
	return NULL;
}

bool tph_scores_declared(const tph_session *s)
{
	static const tph_ep scoring[] = {TPH_EP_NODE_ORDER, TPH_EP_BATCH_NODE_ORDER,
	                                 TPH_EP_NODE_MAP, TPH_EP_NODE_REDUCE};
	for (size_t k = 0; k < sizeof scoring / sizeof *scoring; k++) {
		const tph_ep_list *l = &s->ep[scoring[k]];
		for (uint32_t i = 0; i < l->n; i++)
			if (!entry_of(s, TPH_EP_SCORE_LOCALITY, l->e[i].plugin))
				return false;
	}
	return true;
}

/* Asked on every pick; the registrations cannot change once frozen. */
static bool all_declared(const tph_session *s)
{
	return s->frozen ? s->scores_declared : tph_scores_declared(s);
}

#define FLAGS (TPH_SCORE_JOB | TPH_SCORE_HYPERNODE | TPH_SCORE_HN_SET)

/* One plugin's answer: LOCAL or ANCHORED, each perhaps with TPH_SCORE_JOB, LOCAL perhaps with
 * TPH_SCORE_HYPERNODE (and then perhaps TPH_SCORE_HN_SET), else GLOBAL; *row (row may be
 * NULL): whether it is LOCAL with TPH_SCORE_ROW. */
static int answer(const tph_session *s, const tph_ep_entry *e, tph_idx task, bool *row)
{
	int a = CALL(tph_score_locality_fn, e)(e->st, s, task);
	if (!(a & TPH_SCORE_HYPERNODE))
		a &= ~TPH_SCORE_HN_SET;
	int kind = a & ~(FLAGS | TPH_SCORE_ROW);
	if (row)
		*row = kind == TPH_SCORE_LOCAL && (a & TPH_SCORE_ROW);
	if (kind == TPH_SCORE_ANCHORED && (a & TPH_SCORE_HYPERNODE))
		return TPH_SCORE_GLOBAL;
	return kind == TPH_SCORE_LOCAL || kind == TPH_SCORE_ANCHORED ? a & (kind | FLAGS)
	                                                             : TPH_SCORE_GLOBAL;
}

int tph_score_locality_row(const tph_session *s, tph_idx task, bool *row_out)
{
	TPH_PROF(s, TPH_EP_SCORE_LOCALITY);
	*row_out = false;
	/* BestNode plugins choose from the whole scored list: nothing to keep. */
	if (s->ep[TPH_EP_BEST_NODE].n || !all_declared(s))
		return TPH_SCORE_GLOBAL;
	const tph_ep_list *l = &s->ep[TPH_EP_SCORE_LOCALITY];
	int kind = TPH_SCORE_LOCAL, flags = 0;
	bool all_row = true;
	for (uint32_t i = 0; i < l->n && kind != TPH_SCORE_GLOBAL; i++) {
		bool row;
		int a = answer(s, &l->e[i], task, &row);
		all_row &= row;
		flags |= a & (TPH_SCORE_JOB | TPH_SCORE_HYPERNODE); /* HN_SET: tph_score_hn_set */
		a &= ~FLAGS;
		kind = a == TPH_SCORE_LOCAL ? kind : a;
	}
	/* anchored normalisation in some plugins, hypernode aggregates in others: the fast path
	 * keeps the anchored ones' sums and reruns the others when it can split between them */
	if (kind == TPH_SCORE_ANCHORED && (flags & TPH_SCORE_HYPERNODE) &&
	    tph_score_hn_tail(s, task) == UINT32_MAX)
		return TPH_SCORE_GLOBAL;
	*row_out = all_row && kind == TPH_SCORE_LOCAL && !flags;
	return kind == TPH_SCORE_GLOBAL ? kind : kind | flags;
}

int tph_score_locality(const tph_session *s, tph_idx task)
{
	bool row;
	return tph_score_locality_row(s, task, &row);
}

static bool hn_answer(const tph_session *s, uint16_t plugin, tph_idx task)
{
	const tph_ep_entry *e = entry_of(s, TPH_EP_SCORE_LOCALITY, plugin);
	return e && (answer(s, e, task, NULL) & TPH_SCORE_HYPERNODE);
}

uint32_t tph_score_hn_tail(const tph_session *s, tph_idx task)
{
	static const tph_ep others[] = {TPH_EP_NODE_ORDER, TPH_EP_NODE_MAP, TPH_EP_NODE_REDUCE};
	const tph_ep_list *b = &s->ep[TPH_EP_BATCH_NODE_ORDER], *l = &s->ep[TPH_EP_SCORE_LOCALITY];
	uint32_t hn = 0, tail = b->n;
	for (uint32_t i = 0; i < l->n; i++) {
		if (!(answer(s, &l->e[i], task, NULL) & TPH_SCORE_HYPERNODE))
			continue;
		hn++;
		for (size_t k = 0; k < sizeof others / sizeof *others; k++)
			if (entry_of(s, others[k], l->e[i].plugin))
				return UINT32_MAX;
	}
	while (tail && hn_answer(s, b->e[tail - 1].plugin, task))
		tail--;
	return hn && b->n - tail == hn ? tail : UINT32_MAX;
}

/* Whether the plugin owning BatchNodeOrder entry `last` registers any other score. */
static bool scores_elsewhere(const tph_session *s, uint16_t plugin, uint32_t last)
{
	static const tph_ep others[] = {TPH_EP_NODE_ORDER, TPH_EP_NODE_MAP, TPH_EP_NODE_REDUCE};
	for (size_t k = 0; k < sizeof others / sizeof *others; k++)
		if (entry_of(s, others[k], plugin))
			return true;
	const tph_ep_list *b = &s->ep[TPH_EP_BATCH_NODE_ORDER];
	for (uint32_t i = 0; i < last; i++)
		if (b->e[i].plugin == plugin)
			return true;
	return false;
}

uint32_t tph_score_free_tail(const tph_session *s, tph_idx task)
{
	const tph_ep_list *b = &s->ep[TPH_EP_BATCH_NODE_ORDER], *l = &s->ep[TPH_EP_SCORE_LOCALITY];
	if (s->ep[TPH_EP_BEST_NODE].n || !b->n || !all_declared(s))
		return UINT32_MAX;
	uint32_t last = b->n - 1;
	uint16_t tail = b->e[last].plugin;
	if (scores_elsewhere(s, tail, last))
		return UINT32_MAX;
	for (uint32_t i = 0; i < l->n; i++)
		if (l->e[i].plugin != tail && answer(s, &l->e[i], task, NULL) != TPH_SCORE_LOCAL)
			return UINT32_MAX;
	return last;
}

bool tph_score_head_splits(const tph_session *s, tph_idx task, uint32_t tail)
{
	const tph_ep_list *b = &s->ep[TPH_EP_BATCH_NODE_ORDER];
	for (uint32_t p = 0; p < tail && p < b->n; p++) {
		const tph_ep_entry *e = entry_of(s, TPH_EP_SCORE_LOCALITY, b->e[p].plugin);
		bool row = false;
		if (!s->plugins[b->e[p].plugin].score_split || !e)
			return false;
		answer(s, e, task, &row);
		if (!row)
			return false;
	}
	return true;
}

bool tph_score_hn_set(const tph_session *s, tph_idx task, uint32_t tail)
{
	const tph_ep_list *b = &s->ep[TPH_EP_BATCH_NODE_ORDER];
	if (tail == UINT32_MAX || tail + 1 != b->n)
		return false;
	const tph_ep_entry *e = entry_of(s, TPH_EP_SCORE_LOCALITY, b->e[tail].plugin);
	return e && (answer(s, e, task, NULL) & TPH_SCORE_HN_SET);
}

bool tph_score_hn_bound(const tph_session *s, tph_idx task, uint32_t tail, const tph_idx *nodes,
                        uint32_t n, double *lower, tph_score_bound *b)
{
	const tph_ep_list *l = &s->ep[TPH_EP_BATCH_NODE_ORDER];
	if (tail + 1 != l->n || !tph_score_hn_set(s, task, tail))
		return false;
	const tph_ep_entry *e = &l->e[tail];
	tph_score_hn_bound_fn fn = s->plugins[e->plugin].score_hn_bound;
	return fn && fn(e->st, s, task, nodes, n, lower, b) && isfinite(b->top) &&
	       isfinite(b->scale) && isfinite(b->rel) && b->scale >= 0 && b->rel >= 0;
}

int tph_declare_predicate_locality(tph_session *s, int locality)
{
	int rc;
	tph_plugin_inst *pi = declaring(s, locality, TPH_PRED_SPEC_ONLY, &rc);
	if (pi && tph_ep_enabled(pi, TPH_EP_PREDICATE))
		pi->pred_locality = (int8_t)locality;
	return rc;
}

int tph_predicate_locality(const tph_session *s)
{
	const tph_ep_list *l = &s->ep[TPH_EP_PREDICATE];
	int least = TPH_PRED_SPEC_ONLY;
	for (uint32_t i = 0; i < l->n; i++) {
		int k = s->plugins[l->e[i].plugin].pred_locality;
		least = k < least ? k : least;
	}
	return least;
}

int tph_declare_final_reason(tph_session *s, tph_reason_code code)
{
	int rc;
	tph_plugin_inst *pi = declaring(s, 0, 0, &rc);
	if (!pi)
		return rc;
	if (code == TPH_PASS || code >= s->n_reasons || s->reasons[code].owner != s->cur_plugin)
		return TPH_EINVAL;
	if (tph_ep_enabled(pi, TPH_EP_PREDICATE) && !s->reasons[code].final) {
		s->reasons[code].final = true;
		s->n_final++;
	}
	return TPH_OK;
}

int tph_declare_pass_pods(tph_session *s, tph_pass_pods_fn pods, const uint32_t *count,
                          const int64_t *limit)
{
	int rc;
	tph_plugin_inst *pi = opening(s, pods && count && limit, &rc);
	if (pi && tph_ep_enabled(pi, TPH_EP_PREDICATE)) {
		pi->pass_pods = pods;
		pi->pass_count = count;
		pi->pass_limit = limit;
	}
	return rc;
}

const tph_plugin_inst *tph_pass_pods_plugin(const tph_session *s)
{
	const tph_ep_list *l = &s->ep[TPH_EP_PREDICATE];
	const tph_plugin_inst *pi = l->n == 1 ? &s->plugins[l->e[0].plugin] : NULL;
	return pi && pi->pass_pods ? pi : NULL;
}

int tph_reason_final_plugin(const tph_session *s)
{
	const tph_ep_list *l = &s->ep[TPH_EP_PREDICATE];
	return s->n_final && l->n ? l->e[0].plugin : -1;
}

int tph_declare_allocatable_locality(tph_session *s, int locality)
{
	int rc;
	tph_plugin_inst *pi = declaring(s, locality, TPH_ALLOC_QUEUE, &rc);
	if (pi && tph_ep_enabled(pi, TPH_EP_ALLOCATABLE))
		pi->alloc_locality = (int8_t)locality;
	return rc;
}

int tph_declare_victim_locality(tph_session *s, int locality)
{
	int rc;
	tph_plugin_inst *pi = declaring(s, locality, TPH_VICTIM_CLASS, &rc);
	if (pi &&
	    (tph_ep_enabled(pi, TPH_EP_PREEMPTABLE) || tph_ep_enabled(pi, TPH_EP_RECLAIMABLE)))
		pi->victim_locality = (int8_t)locality;
	return rc;
}

int tph_declare_task_order_key(tph_session *s, tph_task_key_fn key)
{
	int rc;
	tph_plugin_inst *pi = opening(s, key != NULL, &rc);
	if (pi && tph_ep_enabled(pi, TPH_EP_TASK_ORDER))
		pi->task_key = key;
	return rc;
}

/* Whether every plugin registered at `ep` declared the locality `want` (alloc: Allocatable's,
 * else the victims'). */
static bool all_declared_as(const tph_session *s, tph_ep ep, bool alloc, int want)
{
	const tph_ep_list *l = &s->ep[ep];
	for (uint32_t i = 0; i < l->n; i++) {
		const tph_plugin_inst *pi = &s->plugins[l->e[i].plugin];
		if ((alloc ? pi->alloc_locality : pi->victim_locality) != want)
			return false;
	}
	return true;
}

int tph_allocatable_locality(const tph_session *s)
{
	return all_declared_as(s, TPH_EP_ALLOCATABLE, true, TPH_ALLOC_QUEUE) ? TPH_ALLOC_QUEUE
	                                                                     : TPH_ALLOC_GLOBAL;
}

int tph_victims_locality(const tph_session *s, bool reclaim)
{
	tph_ep ep = reclaim ? TPH_EP_RECLAIMABLE : TPH_EP_PREEMPTABLE;
	return all_declared_as(s, ep, false, TPH_VICTIM_CLASS) ? TPH_VICTIM_CLASS
	                                                       : TPH_VICTIM_GLOBAL;
}

/* Add a plugin's anchors to out[0..n) without repeats; false when they do not fit. */
static bool merge(tph_idx *out, uint32_t *n, uint32_t cap, const tph_idx *add, uint32_t k)
{
	for (uint32_t i = 0; i < k; i++) {
		uint32_t j = 0;
		while (j < *n && out[j] != add[i])
			j++;
		if (j < *n)
			continue;
		if (*n == cap)
			return false;
		out[(*n)++] = add[i];
	}
	return true;
}

/* The next locality registration from *i on whose answer for the task is ANCHORED (*i moves
 * past it), or NULL. */
static const tph_ep_entry *next_anchored(const tph_session *s, tph_idx task, uint32_t *i)
{
	const tph_ep_list *l = &s->ep[TPH_EP_SCORE_LOCALITY];
	for (; *i < l->n; (*i)++)
		if ((answer(s, &l->e[*i], task, NULL) & ~FLAGS) == TPH_SCORE_ANCHORED)
			return &l->e[(*i)++];
	return NULL;
}

uint32_t tph_score_anchors(const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                           tph_idx *out, uint32_t cap)
{
	TPH_PROF(s, TPH_EP_SCORE_ANCHORS);
	uint32_t k = 0, i = 0;
	for (const tph_ep_entry *e; (e = next_anchored(s, task, &i));) {
		const tph_ep_entry *a = entry_of(s, TPH_EP_SCORE_ANCHORS, e->plugin);
		tph_idx mine[TPH_SCORE_MAX_ANCHORS];
		uint32_t m = a ? CALL(tph_score_anchors_fn, a)(a->st, s, task, nodes, n, mine) : 0;
		if (!a || m > TPH_SCORE_MAX_ANCHORS || !merge(out, &k, cap, mine, m))
			return UINT32_MAX;
	}
	return k;
}

uint32_t tph_score_norm(const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                        int64_t *out, uint32_t cap)
{
	TPH_PROF(s, TPH_EP_SCORE_ANCHORS);
	uint32_t k = 0, i = 0;
	for (const tph_ep_entry *e; (e = next_anchored(s, task, &i));) {
		tph_score_norm_fn fn = s->plugins[e->plugin].score_norm;
		int64_t mine[TPH_SCORE_MAX_ANCHORS];
		uint32_t m = fn ? fn(e->st, s, task, nodes, n, mine) : UINT32_MAX;
		if (m > TPH_SCORE_MAX_ANCHORS || m > cap - k)
			return UINT32_MAX;
		memcpy(out + k, mine, m * sizeof *mine);
		k += m;
	}
	return k;
}

/* The one plugin answering ANCHORED for the task when every other answers LOCAL | ROW and
 * none carries a flag; else NULL. */
static const tph_ep_entry *lone_anchored(const tph_session *s, tph_idx task)
{
	const tph_ep_list *l = &s->ep[TPH_EP_SCORE_LOCALITY];
	const tph_ep_entry *one = NULL;
	for (uint32_t i = 0; i < l->n; i++) {
		bool row;
		int a = answer(s, &l->e[i], task, &row);
		if (a == TPH_SCORE_ANCHORED && !one)
			one = &l->e[i];
		else if (!row || a != TPH_SCORE_LOCAL)
			return NULL;
	}
	return one;
}

uint32_t tph_score_split_at(const tph_session *s, tph_idx task)
{
	const tph_ep_list *b = &s->ep[TPH_EP_BATCH_NODE_ORDER];
	if (s->ep[TPH_EP_BEST_NODE].n || !all_declared(s) || !b->n)
		return UINT32_MAX;
	const tph_ep_entry *e = lone_anchored(s, task);
	tph_score_split_fn fn = e ? s->plugins[e->plugin].score_split : NULL;
	if (!fn || b->e[b->n - 1].plugin != e->plugin ||
	    !fn(e->st, s, task, NULL, 0, NULL, NULL, NULL))
		return UINT32_MAX;
	return b->n - 1;
}

void tph_score_split(const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                     const int64_t *norm, double *row, double *spec)
{
	double t0 = s->prof ? tph_now_ms() : 0;
	const tph_ep_entry *e = lone_anchored(s, task);
	bool ok = e && s->plugins[e->plugin].score_split(e->st, s, task, nodes, n, norm, row, spec);
	assert(ok);
	(void)ok;
	if (s->prof && spec) /* a shape's scores from the row parts: not whole scorings */
		tph_prof_add(s, TPH_EP_SCORE_ANCHORS, n, tph_now_ms() - t0);
}

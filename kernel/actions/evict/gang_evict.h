/* Gang-aware eviction, shared by the gangpreempt and gangreclaim actions (Volcano's
 * actions/gangpreempt, actions/gangreclaim and actions/utils): a starving job looks for room
 * in up to maxDomains hypernodes of its eviction gradient; in each, victims come in bundles
 * (whole jobs, or the tasks a job can lose and stay gang-ready), added one bundle at a time
 * until the domain's idle plus the victims covers the job's pending requests; then a dry run
 * evicts them and pipelines every subjob of the job's worksheet onto the domain's nodes. The
 * first plan that leaves the job pipelined is kept; the job's statement commits when the job
 * is pipelined, and its subjobs are nominated to the hypernodes they landed in (allocate
 * honours the nomination).
 *
 * Files: gang_evict.c (the queue and job loops, domains, the per-domain search),
 * gang_evict_bundle.c (victim candidates, bundles, their order, UnifiedEvictable),
 * gang_evict_plan.c (the dry run: worksheet, trials per hypernode, the plan), gangpreempt.c
 * and gangreclaim.c (the two actions). Everything runs on the session's thread. */
#ifndef TPH_ACTION_GANG_EVICT_H
#define TPH_ACTION_GANG_EVICT_H

#include "allocate/allocate.h"
#include "allocate/allocate_hn.h"

typedef enum gev_kind {
	GEV_PREEMPT = 0, /* victims in the job's own queue with a lower job priority */
	GEV_RECLAIM = 1, /* running victims of other, reclaimable queues */
} gev_kind;

/* The actions' arguments, Volcano's keys and defaults (maxDomains <= 0 means 8). */
typedef struct gev_opts {
	int64_t max_domains;
	bool allow_whole;
} gev_opts;

extern const tph_arg_spec gev_arg_spec[];

/* A victim bundle (utils.Bundle): tasks of one job, all or nothing when `whole`. */
typedef struct gev_bundle {
	uint8_t whole;
	tph_idx job;
	uint32_t t0, nt; /* its tasks: gev_ctx.bt[t0 .. t0 + nt) */
	double roi;      /* bundleROI against the job's need */
} gev_bundle;

/* One nomination of the plan: a subjob and the hypernode it was pipelined in. */
typedef struct gev_nom {
	tph_idx sj, hn;
} gev_nom;

typedef struct gev_ctx {
	tph_session *s;
	gev_kind kind;
	const char *reason; /* the eviction reason: the action's name */
	gev_opts o;
	tph_ph_opts ph; /* predicate error cache and sampling, as allocate reads them */
	tph_hn_gradient g, gs;
	tph_idx *dom; /* the turn's candidate domains */
	/* Tasks Bound or Running on each ready node when the action started (statuses are
	 * checked again at use): node_task[node_off[n] .. node_off[n + 1]). */
	uint32_t *node_off;
	tph_idx *node_task;
	uint32_t *uid_rank; /* [tasks]: position in uid order (CreateJobBundles' tie-break) */
	int64_t *job_req;   /* [jobs * ndim]: every task's request summed (a whole bundle's cost) */
	uint8_t *job_ok;    /* [jobs]: IsJobPreemptableForGangEviction */
	/* The preemptor job of this turn: its worksheet, pending tasks and summed requests. */
	tph_idx job, queue;
	ahn_ws *ws;
	tph_idx *pending;
	uint32_t n_pending;
	int64_t *need; /* [ndim] */
	/* One domain: candidate victims, bundles, the victims selected so far. */
	tph_idx *cand, *flat, *sel;
	uint8_t *allowed; /* [tasks] */
	uint32_t n_cand, n_sel;
	gev_bundle *b, *b2; /* b2: sorting scratch */
	uint32_t nb;
	tph_idx *bt;
	uint32_t nbt;
	/* The dry run: candidate nodes, filter scratch, the role error cache, nominations. */
	alloc_ctx ac; /* only s, feas, grouped, grp and scores: alloc_best_node's scratch */
	tph_idx *nodes;
	uint32_t *skip, skip_gen; /* [node]: the task's unresolvable nodes */
	tph_fit_cache cache;      /* PredicateHelper's error cache: one pass per trial */
	gev_nom *nom;
	uint32_t n_nom;
} gev_ctx;

/* A stable merge sort of v[0..n) by cmp (<0: a first), tmp having room for n. */
typedef int (*gev_cmp)(const void *ctx, uint32_t a, uint32_t b);
void gev_msort(uint32_t *v, uint32_t *tmp, uint32_t n, gev_cmp cmp, const void *ctx);

/* gang_evict.c: the action over kind k. */
int gev_execute(tph_session *s, const tph_args *args, gev_kind k);

/* gang_evict_bundle.c: selectDomainBundles for the turn's job in domain hn: c->b[0..nb) in
 * order, whole bundles dropped unless allowed. None when even every candidate added to
 * `avail` (the domain's idle and releasing) would not cover the need: no prefix could. */
int gev_bundles(gev_ctx *c, tph_idx hn, const int64_t *avail);
/* IsJobPreemptableForGangEviction. */
bool gev_job_evictable(const tph_session *s, tph_idx j);
/* jobNeed.LessEqual(available, Zero): cpu and memory, and every other dimension the job asks
 * for (pods aside: Volcano's requests carry none). */
bool gev_need_fits(const tph_session *s, const int64_t *need, const int64_t *avail);

/* gang_evict_plan.c: CollectPendingTasksForGangEviction into c->pending (the worksheet built
 * for the turn). */
int gev_pending(gev_ctx *c);
/* BuildNominationPlanInDomain: evict victims[0..n) and pipeline the worksheet's subjobs under
 * hn. *ok: the job is pipelined; st then holds the plan (applied) and c->nom its nominations.
 * Otherwise nothing is left applied. */
int gev_plan(gev_ctx *c, tph_idx hn, const tph_idx *victims, uint32_t n, tph_statement *st,
             bool *ok);

#endif

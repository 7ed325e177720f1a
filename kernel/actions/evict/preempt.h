/* The preempt action's internals, shared by preempt.c (the job and task loops),
 * preempt_normal.c (normalPreempt) and preempt_topology.c (topologyAwarePreempt). */
#ifndef TPH_PREEMPT_H
#define TPH_PREEMPT_H

#include "evict_util.h"

/* Which running tasks a preemptor may consider (Volcano's filter closures). */
typedef enum tph_preempt_scope {
	TPH_PREEMPT_OTHER_JOBS = 0, /* other jobs of the preemptor's queue */
	TPH_PREEMPT_SAME_JOB = 1,   /* tasks of the preemptor's own job */
} tph_preempt_scope;

/* The action's own arguments, Volcano's keys and defaults (preempt.go New/parseArguments);
 * predicateErrorCacheEnable and the sampling knobs are read as allocate reads them. */
typedef struct tph_preempt_opts {
	bool topology_aware; /* enableTopologyAwarePreemption: false */
	int64_t workers; /* topologyAwarePreemptWorkerNum: 16 (tephra runs the dry run serially) */
	int64_t min_pct; /* minCandidateNodesPercentage: 10 */
	int64_t min_abs; /* minCandidateNodesAbsolute: 1 */
	int64_t max_abs; /* maxCandidateNodesAbsolute: 100 */
} tph_preempt_opts;

/* Release rows after which Allocatable still refused the current preemptor (preempt_skip.c). */
#define TPH_REFUSED_MAX 8u

typedef struct tph_preempt_ctx {
	tph_evict_ctx ev;
	tph_preempt_opts o;
	bool fast;        /* the exact shortcuts (not --naive) */
	bool alloc_queue; /* every Allocatable declared TPH_ALLOC_QUEUE (tephra/plugin.h) */
	uint32_t n_refused;
	int64_t refused[TPH_REFUSED_MAX][TPH_RES_MAX];
	/* The last preemptor that found no node, while nothing changed since (epoch): the next of
	 * its class fails alike when memo_ok (the localities of tephra/plugin.h hold). */
	bool memo_ok;
	bool score_failed; /* a BatchNodeOrder failed for the current preemptor */
	tph_idx failed;
	tph_preempt_scope failed_scope;
	uint32_t epoch, failed_epoch; /* epoch: bumped whenever the action changes the session */
	int64_t *qrel;   /* fast: per node, ndim each: what qrel_of's preemptable tasks held */
	tph_idx qrel_of; /* the queue qrel is for (TPH_NOIDX: none yet) */
	uint8_t *qmask;  /* per queue: 1 for qrel_of alone */
	uint32_t *qoff;  /* fast: per node, the tasks qrel sums: qtask[qoff[n] .. qoff[n+1]) */
	tph_idx *qtask;
	/* fast: per node, ndim each: what the filter's candidates there held when
	 * tph_preempt_bounds last passed its first bound on the node (tph_preempt_covered) */
	int64_t *crel;
	/* kept candidates on: per node, ndim each, what qtask's Bound or Running tasks there hold,
	 * summed when the node's tph_ecands_ver was qrun_ver - 1 (0: not summed for qrel_of) */
	int64_t *qrun;
	uint32_t *qrun_ver;
	uint32_t *own; /* per node: == own_stamp where job own_of had a task Bound or Running */
	uint32_t own_stamp;
	tph_idx own_of;
	tph_idx *live;      /* normal, fast: positions of the nodes that may take the preemptor */
	tph_idx *live_node; /* normal, fast: those nodes */
	double *scores;     /* normal: scores of the candidate nodes (n_ready) */
	tph_scored *order;  /* normal: the nodes by score, a heap (n_ready) */
	uint8_t *removed;   /* topology: per potential victim, removed in the simulation */
	tph_idx *cand_node; /* topology: candidate nodes found by the dry run */
	uint32_t *cand_off; /* topology: victims of candidate k: cand_vict[cand_off[k] ..) */
	tph_idx *cand_vict;
	uint32_t n_cand;
	tph_ecands cands; /* evict_cands.c, keyed on the scope */
} tph_preempt_ctx;

int tph_preempt_scratch(tph_preempt_ctx *c);

/* The filter closures of preempt.go: the task is Bound or Running, a BestEffort preemptor only
 * takes BestEffort tasks, the task is preemptable, and it is in the scope. */
bool tph_preempt_filter(const tph_session *s, tph_idx preemptor, tph_idx task,
                        tph_preempt_scope scope);
/* The tasks on `node` that pass the filter, into out; returns how many. */
uint32_t tph_preemptees(const tph_evict_ctx *c, tph_idx preemptor, tph_preempt_scope scope,
                        tph_idx node, tph_idx *out);

/* Shortcuts (preempt_skip.c), exact because a node whose try ends without pipelining leaves
 * the session as it found it. tph_preempt_bounds: two bounds that rule a node out before
 * Preemptable runs: FutureIdle plus every preemptable task of the preemptor's queue that was
 * on the node when the action started fits the preemptor (victims come from those alone, and
 * no task joins them: a few loads per node), and FutureIdle plus every task the filter passes
 * on the node fits it (Preemptable keeps a subset, so without it ValidateVictims fails).
 * tph_refused_covers: an earlier node of this preemptor, whose victims released at least
 * `rel` on every dimension, still left Allocatable refusing it (so will this node's);
 * tph_refused_add remembers such a release. */
bool tph_preempt_bounds(tph_preempt_ctx *c, tph_idx preemptor, tph_preempt_scope scope,
                        tph_idx node);
/* tph_preempt_bounds over nodes[0..n) into live[] (1: passes), with the same effects; what
 * depends on the preemptor alone (its queue's rows, own job's marks, counted dimensions) is
 * worked out once. */
void tph_preempt_bounds_many(tph_preempt_ctx *c, tph_idx preemptor, tph_preempt_scope scope,
                             const tph_idx *nodes, uint32_t n, uint8_t *live);
/* tph_preemptees, walking only the preemptable tasks of the preemptor's queue when they are
 * listed (fast mode, once tph_preempt_bounds ran for that queue). */
uint32_t tph_preempt_cands_on(const tph_preempt_ctx *c, tph_idx preemptor, tph_preempt_scope scope,
                              tph_idx node, tph_idx *out);
bool tph_refused_covers(const tph_preempt_ctx *c, const int64_t *rel);
/* The victims a try on `node` could evict release no more than a remembered refusal: the try
 * fails (with the localities tph_refused_add needs). Reads what the last tph_preempt_bounds
 * call on the node found, so only for a node that call passed, unchanged since, for a
 * preemptor of the same class and scope. */
bool tph_preempt_covered(const tph_preempt_ctx *c, tph_idx preemptor, tph_idx node);
/* Whether tph_preempt_covered can answer true for the preemptor now (else it answers false
 * for every node; then tph_refused_covers over the node's crel row is its answer). */
bool tph_preempt_may_cover(const tph_preempt_ctx *c, tph_idx preemptor);
void tph_refused_add(tph_preempt_ctx *c, const int64_t *rel);

/* normalPreempt and topologyAwarePreempt over nodes[0..n): true when the preemptor was
 * pipelined; its evictions and pipeline are then merged into stmt. */
bool tph_preempt_normal(tph_preempt_ctx *c, tph_statement *stmt, tph_idx preemptor,
                        tph_preempt_scope scope, const tph_idx *nodes, uint32_t n);
bool tph_preempt_topology(tph_preempt_ctx *c, tph_statement *stmt, tph_idx preemptor,
                          tph_preempt_scope scope, const tph_idx *nodes, uint32_t n);

#endif

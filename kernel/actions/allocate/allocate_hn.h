/* The allocate action's hypernode path, shared by its files: allocate_topo.c (entry, job
 * worksheets, the decision recorder), allocate_hn_job.c (Volcano's allocateForJob and
 * allocateForSubJob: dry runs per candidate hypernode, then the best one replayed) and
 * allocate_hn_sub.c (allocateForSubJob), allocate_hn_tasks.c (allocateResourcesForTasks inside
 * one hypernode, allocateFromNomination, the subjob-scoped fit errors), allocate_hn_bound.c
 * (what lets a dry run be skipped exactly) and allocate_hn_ws.c (the worksheets, which gang
 * preempt and reclaim share).
 *
 * A dry run applies its operations for real (so predicates, scores and plugin events see
 * them), records them as ahn_op rows, then discards; the chosen candidate's rows are replayed
 * into a fresh statement (Volcano's SaveOperations / RecoverOperations). Everything runs on
 * the session's thread. */
#ifndef TPH_ACTION_ALLOCATE_HN_H
#define TPH_ACTION_ALLOCATE_HN_H

#include "allocate.h"
#include "session/topo/hypernode.h"

/* One operation of a dry run: what RecoverOperations needs, plus the task's
 * JobAllocatedHyperNode at the time (the saved task clone carries it). */
typedef struct ahn_op {
	tph_idx task, node, jhn;
	uint8_t kind; /* TPH_OP_ALLOCATE or TPH_OP_PIPELINE */
} ahn_op;

typedef struct ahn_ops {
	ahn_op *v;
	uint32_t n, cap;
} ahn_ops;

/* The mutable part of a JobWorksheet (what Clone copies): the subjob queue and, per subjob,
 * the next task of its task queue. */
typedef struct ahn_state {
	tph_pq q;      /* subjobs (session indices); items are this state's own storage */
	uint32_t *cur; /* [n_sj] next position in ahn_ws.task */
} ahn_state;

enum {
	AHN_MAIN = 0, /* the worksheet itself */
	AHN_TRY = 1,  /* a job-level dry run's copy */
	AHN_BEST = 2, /* the best dry run's copy so far */
	AHN_STATES
};

/* A cut of the node-by-node bound: a request row v over the bounded dimensions, and how many
 * of the worksheet's tasks ask for less than v in some dimension. */
typedef struct ahn_cut {
	int64_t *v;
	uint32_t below;
	uint32_t row; /* its row in ahn_ctx.row (AHN_ROWS: not kept) */
} ahn_cut;

/* A row's node-by-node room at one hypernode (what its nodes take of tasks asking for the row),
 * kept while no task moves on its nodes: stamp is tph_hn_tree.moves[hn] + 1 when it was
 * counted (0: never); room is at least that many tasks, exactly when `all` (else the count
 * stopped early or passed AHN_ROOM_MAX). */
typedef struct ahn_room {
	uint32_t stamp;
	uint32_t room : 31, all : 1;
} ahn_room;

#define AHN_ROOM_MAX 0x7fffffff
#define AHN_ROWS     64 /* the most distinct cut rows (over every dimension) whose room is kept */

#define AHN_CKEYS 256 /* the most class keys (pod spec's kept verdicts, request row) kept */

#define AHN_CUTS    8 /* the first distinct request rows of the worksheet */
#define AHN_CLASSES 4 /* the most classes of one worksheet whose verdicts bound a run */

/* A job's JobWorksheet, built on its first visit (organizeJobWorksheet). Task queues hold
 * only popped-in-order tasks, so a queue is a suffix of a fixed array and its clone is a
 * cursor. */
typedef struct ahn_ws {
	const tph_session *s;
	tph_idx job, first; /* subjobs first .. first + n_sj */
	uint32_t n_sj;
	tph_idx *task;     /* pending tasks grouped by subjob, TaskOrder inside each group */
	uint32_t *off;     /* [n_sj + 1] */
	uint8_t *required; /* [n_sj] kept ahead of the others (minSubGroups) */
	tph_idx *hn_saved; /* [n_sj] SnapshotSubJobStatus */
	ahn_state st[AHN_STATES];
	/* The bound on tasks a hypernode can take (allocate_hn_bound.c): per bounded dimension,
	 * the prefix sums of the worksheet's requests sorted ascending; built on first use. */
	uint32_t n_dim;
	uint32_t *dim;   /* [n_dim] the dimensions */
	int64_t *prefix; /* [n_dim * (tasks + 1)] */
	ahn_cut *cut;
	uint32_t n_cut;
	/* The classes (tph_eqc_same_class) of the worksheet's tasks, when there are at most
	 * AHN_CLASSES of them: cls[i] of task[i], n_cls classes (0: too many); built with the
	 * prefix sums. */
	uint8_t *cls;
	uint32_t n_cls;
	/* [AHN_CLASSES] each class's key in ahn_ctx.ckey_pred (AHN_CKEYS: not kept), found on
	 * first use (CKEY_UNSEEN before) */
	uint16_t ckey[AHN_CLASSES];
	uint8_t rows; /* 0: not looked at; 1: every task asks for the same row; 2: not */
} ahn_ws;

/* A successful subjob candidate of one gradient group. */
typedef struct ahn_cand {
	tph_idx hn;
	uint32_t cur;      /* the subjob's task cursor after the run */
	uint32_t op0, nop; /* its rows in ahn_ctx.cand_ops */
} ahn_cand;

typedef struct ahn_ctx {
	alloc_ctx *c;
	tph_session *s;
	tph_hn_gradient gj, gs; /* job and subjob gradients (arena, room for every hypernode) */
	ahn_ws **ws;            /* [job] NULL until the job's first visit */
	ahn_ops job_try, job_best, cand_ops;
	ahn_cand *cand;
	tph_idx *cand_hn;
	double *cand_score;
	uint32_t n_cand, cap_cand;
	/* Exact shortcuts (allocate_hn_bound.c). prune: the resource bound may skip dry runs (no
	 * node with a negative future idle, no sampling); gang_job / gang_sj: the builtin gang
	 * votes on JobReady and JobPipelined / SubJobReady and SubJobPipelined, so a dry run
	 * succeeds only once enough tasks are placed. memo[hn] == gen: the first subjob of this
	 * allocateForJob call failed its first-step dry run at hn. */
	bool prune, memo_on, gang_job, gang_sj;
	/* Every Allocatable declared TPH_ALLOC_QUEUE (tephra/plugin.h) and memo_on: a run's
	 * refusal stands for the rest of the run for tasks of the same request row
	 * (allocate_hn_tasks.c). */
	bool refusal_stands;
	/* With refusal_stands, for the search under way (ahn_for_job): the job's counted tasks at
	 * its start (ahn_job_have), the request rows of its worksheet's placed tasks then
	 * (placed0, ndim; ahn_placed_sum), and the most tasks a run of the search can place by
	 * its queue's refusals so far (INT64_MAX: none refused; allocate_hn_tasks.c). */
	int64_t have0, q_cap;
	int64_t *placed0;
	/* Set by ahn_for_job for its search when no task of the job passes Allocatable: every
	 * run is sure to fail (allocate_hn_job.c). */
	bool shut;
	/* Set while ahn_doomed is asked with another candidate's successful run still applied
	 * (allocate_hn_job.c's group_full): tasks that run placed are pending again for the next.
	 */
	bool held;
	uint32_t gen, *memo;
	/* The cuts' rows over every dimension (row_v[r * ndim ..]) shared by every worksheet, and
	 * each row's kept room per hypernode (row_room[r], [hypernodes], on first use). */
	int64_t *row_v;
	ahn_room *row_room[AHN_ROWS];
	uint32_t n_rows;
	/* A class's room at a hypernode (allocate_hn_bound.c's class_short): keyed by the pod
	 * spec's kept verdicts and the request row (a class is one job's tasks of one spec, role
	 * and row, so jobs of a shape share a key); ckey_row[k * ndim ..], ckey_room[k]
	 * [hypernodes] on first use. */
	const struct af_pred *ckey_pred[AHN_CKEYS];
	int64_t *ckey_row;
	ahn_room *ckey_room[AHN_CKEYS];
	uint32_t n_ckeys;
	tph_scored *ranked;       /* [hypernodes] allocate_hn_job.c's group order: a heap */
	tph_reason_code *verdict; /* [nodes] scratch of the class-verdict bound */

	/* [hypernodes] scratch of the group order: its candidates and their scores */
	tph_idx *rank_hn;
	double *rank_sc;
	/* The job-level dry run under way: fidelity (its fit errors may survive: every candidate
	 * that ends a gradient group runs for real), first_step, and what makes its score known
	 * in advance (simple: one subjob step, won by the job-level hypernode alone). */
	bool fidelity, first_step, simple;
	uint32_t steps;
	tph_idx try_hn;
	/* Recorder: jobDecisions per job, subJobDecisions keyed by (hyperNodeForJob, subjob). */
	tph_idx *job_dec;
	uint64_t *dec_key; /* open addressing; 0 = empty, else key + 1 */
	tph_idx *dec_val;
	uint32_t dec_n, dec_cap;
} ahn_ctx;

/* allocate_topo.c: Recorder.SaveSubJobDecision. */
int ahn_dec_save(ahn_ctx *h, tph_idx hn_for_job, tph_idx sj, tph_idx hn);

/* allocate_hn_ws.c: the job's worksheet from the session's current state (session arena). */
int ahn_ws_build(tph_session *s, tph_idx job, ahn_ws **out);
/* Copy a worksheet state (its queue and cursors) into dst's storage. */
void ahn_state_copy(const ahn_ws *w, ahn_state *dst, const ahn_state *src);

/* allocate_hn_job.c: allocateForJob. *found: out holds the chosen hypernode's operations
 * and the worksheet continues from that run. */
int ahn_for_job(ahn_ctx *h, ahn_ws *w, tph_idx avail, tph_statement *out, bool *found);
/* A dry run's start: the touch log's length and lost counter (allocate_fast.h). */
typedef struct ahn_mark {
	uint32_t at, lost;
} ahn_mark;

/* allocate_hn_sub.c: the mark of now. */
ahn_mark ahn_mark_now(const ahn_ctx *h);
/* ahn_discard of the dry run started at m, when st holds every task it moved that is not back
 * where it was (its runs inside were undone or merged into st): its nodes are then as they were
 * at m, which the flat path's columns need not read again (alloc_fast_undone). */
void ahn_undo(ahn_ctx *h, tph_statement *st, const ahn_mark *m);
/* Replay recorded rows into st (RecoverOperations). */
int ahn_replay(ahn_ctx *h, const ahn_op *ops, uint32_t n, tph_statement *st);
/* Append st's operations to ops (SaveOperations). */
int ahn_save(ahn_ctx *h, const tph_statement *st, ahn_ops *ops);
/* Discard st, telling the predicate caches and clearing JobAllocatedHyperNode. */
void ahn_discard(ahn_ctx *h, tph_statement *st);

/* allocate_hn_sub.c: allocateForSubJob, into out when *got (the subjob's score in *score). */
int ahn_for_subjob(ahn_ctx *h, ahn_ws *w, ahn_state *ws, tph_idx k, tph_idx hn_for_job,
                   tph_statement *out, bool *got, double *score);

/* allocate_hn_bound.c */
/* Set h->prune, gang_job, gang_sj and the memo at the action's first hypernode-path job. */
int ahn_bound_init(ahn_ctx *h);
/* The job's tasks that gang counts (placed, pipelined or pending best-effort). */
int64_t ahn_job_have(const ahn_ctx *h, tph_idx job);
/* The fewest tasks a dry run of the job (k == TPH_NOIDX) or subjob k must place to succeed. */
int64_t ahn_need(const ahn_ctx *h, const ahn_ws *w, tph_idx k);
/* The summed-room bound for one need: the `need` smallest requests of the worksheet, summed
 * per bounded dimension (all: more than it holds, so every hypernode is short). */
typedef struct ahn_sum {
	uint32_t n;
	bool all;
	uint32_t dim[TPH_RES_MAX];
	int64_t v[TPH_RES_MAX];
} ahn_sum;
void ahn_sum_prep(ahn_ctx *h, ahn_ws *w, int64_t need, ahn_sum *out);
/* Whether hn's summed future idle is short of it in some dimension (so its nodes take fewer
 * than `need` of the worksheet's tasks now). */
bool ahn_sum_short(const ahn_ctx *h, const ahn_sum *sum, tph_idx hn);
/* The positions k < n of the hypernodes hns[k] that ahn_sum_short finds not short, in order:
 * the hypernode into at[], k into o[].pos; how many. */
uint32_t ahn_sum_keep(const ahn_ctx *h, const ahn_sum *sum, const tph_idx *hns, uint32_t n,
                      tph_idx *at, tph_scored *o);
/* The request rows of the worksheet's tasks that are not pending, summed into sum[ndim]. */
void ahn_placed_sum(const ahn_ctx *h, const ahn_ws *w, int64_t *sum);
/* The most tasks a run of the search under way can place, now that Allocatable refused a
 * task asking for `row` (INT64_MAX: no bound); valid under ahn_ctx.refusal_stands. */
int64_t ahn_refused_cap(ahn_ctx *h, ahn_ws *w, const int64_t *row);
/* Whether a dry run at hn needing `need` tasks is sure to fail, by resources alone. */
bool ahn_hopeless(ahn_ctx *h, ahn_ws *w, tph_idx hn, int64_t need);
/* The same, or the search is shut (ahn_ctx.shut), or by its classes' verdicts of hn's nodes
 * (allocate_hn_bound.c): a node every class fails takes none (verdicts may need evaluating,
 * so it is asked just before a run; the pod specs' kept verdicts serve it when they exist). */
bool ahn_doomed(ahn_ctx *h, ahn_ws *w, tph_idx hn, int64_t need);
/* ahn_doomed of a hn whose summed room ahn_sum_short found enough for `need` in the state
 * the search starts each run from (a run that failed was discarded since): the sums are not
 * asked again. */
bool ahn_doomed_summed(ahn_ctx *h, ahn_ws *w, tph_idx hn, int64_t need);

/* allocate_hn_tasks.c */
/* allocateResourcesForTasks of subjob `k` over the nodes of `hn`, its task queue at *cur.
 * *ok: st holds the run (the subjob is ready or pipelined); otherwise st was discarded. */
int ahn_tasks_in_hn(ahn_ctx *h, ahn_ws *w, tph_idx k, uint32_t *cur, tph_idx hn, tph_statement *st,
                    bool *ok);
/* allocateFromNomination; *ok false: the nomination was invalidated (the caller goes on). */
int ahn_from_nomination(ahn_ctx *h, ahn_ws *w, ahn_state *ws, tph_idx k, tph_idx hn_for_job,
                        tph_statement *out, bool *ok);
/* job.ResetFitErr / job.ResetSubJobFitErr. */
void ahn_reset_job_fit(ahn_ctx *h, ahn_ws *w);
void ahn_reset_subjob_fit(ahn_ctx *h, ahn_ws *w, tph_idx k);

static inline uint32_t ahn_end(const ahn_ws *w, tph_idx k)
{
	return w->off[k - w->first + 1];
}

static inline bool ahn_policy_job(const ahn_ws *w)
{
	const tph_job_meta *m = w->s->jobs->meta ? w->s->jobs->meta[w->job] : NULL;
	return m && m->n_subgroups > 0;
}

#endif

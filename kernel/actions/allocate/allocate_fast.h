/* Class-level candidates for allocate's flat path: the decision of one task (filter every
 * ready node, group by Idle / FutureIdle fit, score the first group, take the best) kept
 * between tasks instead of being made from scratch.
 *
 * Tasks with the same pod spec and request row form a shape. A shape keeps, per ready node
 * (its position in s->ready_nodes), the verdict of the fit and the predicates (unless its row
 * and spec give it, below), the gradient group and the total score, plus a tournament over the
 * positions ordered as allocate chooses (group, then score, then position), so a task takes
 * the root. The parts that do not read the pod spec are kept once per request row (af_row:
 * fit, group, and the scores when they read only the row, TPH_SCORE_ROW) and the predicates'
 * verdicts once per pod spec (af_pred, when they do not read the request, TPH_PRED_SPEC_ONLY);
 * a shape combines them. A placement on node X logs X (tph_eqc_touch); a shape brought up to
 * date computes X again, and only X, which is exact as long as
 *  - every predicate is node-local and reads nothing of the task but its spec and request
 *    (the built-in predicates, resource-strategy-fit and usage; else shapes also key on the
 *    job),
 *  - every scoring plugin answers TPH_SCORE_LOCAL or TPH_SCORE_ANCHORED for the task
 *    (plugin.h); for ANCHORED the group X leaves or joins is scored again whole when X was
 *    one of its anchors or was never in the set the group was scored over (with the
 *    plugins' normalisation values, tph_score_norm_fn, only when X raises one of them or
 *    the anchors of what remains give others); an answer with
 *    TPH_SCORE_JOB keys the task's shape on its job; with TPH_SCORE_HYPERNODE a touched node
 *    that lies in a hypernode has every feasible node of the shape scored again (its
 *    verdicts stay; when the flagged plugins are the last BatchNodeOrder ones, only they run
 *    again, over the kept sums of the others; when that is one plugin answering
 *    TPH_SCORE_HN_SET, once per set of nodes held by the same hypernodes, and the shape's
 *    root comes from each set's best, allocate_hn_rank.h),
 *  - there is no node sampling and no BestNode plugin.
 * A task that does not qualify takes the normal path (alloc_best_node over tph_ph_predicate).
 *
 * The per-role error cache (session/fitlog.h) makes a node that failed a task of (job, role)
 * fail again for the rest of the job's pass, with its first reason. A tracker follows the
 * cache's entry of (job, role) in place of its codes: it keeps what the role's tasks saw (the
 * shape's verdicts at each of their evaluations) and the first failing reason of each node
 * whose verdict changed since; before a task of the role takes the normal path, the tracker
 * writes the entry's codes and lets go of it. Everything here runs on the session's thread;
 * filtering and scoring still split their spans across threads. */
#ifndef TPH_ALLOCATE_FAST_H
#define TPH_ALLOCATE_FAST_H

#include "allocate.h"

#include "base/lazycol.h"

#include <math.h>

typedef struct alloc_fast alloc_fast;

/* NULL when the path cannot be used (naive mode, no equivalence classes, node sampling, a
 * BestNode plugin) or out of memory. The helper `ph` must outlive it. */
alloc_fast *alloc_fast_new(tph_session *s, tph_eqc *eqc, tph_ph *ph);
void alloc_fast_free(alloc_fast *f);
/* Bytes of shape columns kept at once when tph_session_opts.shape_cache_bytes is 0, for n
 * ready nodes: room for 256 shapes (about 3.2 KiB a node), at least 256 MiB. */
size_t alloc_fast_default_budget(uint32_t n);

enum {
	AF_NODE = 0, /* *node is the choice (TPH_NOIDX: feasible nodes but no score won) */
	AF_NONE = 2  /* no feasible node; codes[i] is the verdict of s->ready_nodes[i] */
};
/* What feasible() and alloc_best_node() would decide for `task`, or TPH_DECLINED when the
 * task must take that path; TPH_ENOMEM. codes has room for s->n_ready. */
int alloc_fast_pick(alloc_fast *f, tph_idx task, tph_idx *node, tph_reason_code *codes);
/* The same for allocate's flat path, whose failures go to the fit log: with AF_NONE the task's
 * record is made (what tph_fitlog_nodes over the verdicts would make), counted from the
 * columns that keep the verdicts, and codes is scratch. */
int alloc_fast_pick_logged(alloc_fast *f, tph_idx task, tph_idx *node, tph_reason_code *codes);
/* The request alloc_group_req() gives `task` when it is the last task a pick prepared (the
 * placement that follows reads it), else NULL; f may be NULL. */
const tph_fit_req *alloc_fast_fit(const alloc_fast *f, tph_idx task);
/* The same choice among nodes[0..n) (a hypernode's, in its order: ascending ready nodes,
 * topology.h), for tasks that have no nominated node: from the task's head shape when its
 * scores split at a free tail (tph_score_free_tail), whatever n (allocate_hn_pick.c); else for
 * tasks whose scores are TPH_SCORE_LOCAL, when n is at least a quarter of the ready nodes
 * (ascending). With AF_NONE, codes[i] is the verdict of nodes[i]. Each call is one evaluation
 * for the role's error cache, as the filter's would be. */
int alloc_fast_pick_among(alloc_fast *f, tph_idx task, const tph_idx *nodes, uint32_t n,
                          tph_idx *node, tph_reason_code *codes);
/* The touch log's entries since length `from` (lost counter `lost` then) changed nothing:
 * every node they name is as it was at `from` (a dry run undone, nothing else moved since).
 * Columns current as of `from` or earlier then pass over them (allocate_fast_log.c). */
void alloc_fast_undone(alloc_fast *f, uint32_t from, uint32_t lost);

/* ---- private to allocate_fast*.c ---- */

#define AF_BLOCK       64u          /* positions per tournament leaf */
#define AF_MAX_ANCHORS 8u           /* anchors kept per group */
#define AF_AHEAD       8u           /* a list walk asks for entry i + AF_AHEAD's lines at i */
#define AF_VOLATILE    UINT32_MAX   /* n_anchor: too many; any change rescores the group */
#define AF_NONORM      UINT32_MAX   /* n_norm: no values; joins and leaves go by anchors */
#define AF_MASKED      (G_NONE + 1) /* grp of a node a tracker holds failed for one query */
#define AF_NOTAIL      UINT32_MAX   /* af_shape.tail, .split: the scores do not split */

/* One node's fit and group for one request row (af_row.fg). Most of the row's readers (the
 * catch-ups, the verdicts, the groups, the pass bits) need these 3 bytes and not the score:
 * packed, 21 positions share a line (4 did with the score beside them; padded to 4 bytes, 16:
 * on 10k-standard 0.19M fewer simulated last-level read misses than padded, for 18M more
 * instructions, the index times 3). */
typedef struct __attribute__((packed)) af_rfit {
	tph_reason_code fit; /* the hard shard's reason outside the shard, else the fit's */
	uint8_t grp;         /* G_*; G_NONE unless fit passes */
} af_rfit;

/* What every shape of one request row and non-zero request shares, whatever its pod spec:
 * the fit verdict and gradient group of each ready node and, once a shape whose scores read
 * only the row (TPH_SCORE_ROW) asked, the score of each node the row fits. Each part is kept
 * current from the touch log like a shape, with its own place in the log: the scores move
 * only when a TPH_SCORE_ROW task asks, so that no other task ever scores them. Rows are few
 * (one per request row) and live outside the shape budget. */
typedef struct af_row {
	const int64_t *req;     /* the request row of the task that made it */
	int64_t nz[2];          /* its non-zero cpu and memory request */
	bool built, scored;     /* fit and grp / key hold a whole state */
	uint32_t seen, lost;    /* touch log length and lost counter fit and grp reflect */
	uint32_t kseen, klost;  /* the same for key */
	tph_fit_req ffit, gfit; /* the filter's request (pods unit, reasons) and the group's */
	af_rfit *fg;            /* [pos] */
	/* [pos] where fit passes, once scored (NaN read as -inf); NULL until the first scoring:
	 * most rows are never scored (a TPH_SCORE_ROW task asks), and their pages stay unmade */
	double *key;
	uint32_t trow;        /* where allocate_fast_type.c last found its tournaments */
	tph_idx ktask;        /* the task key was last scored for (when scored) */
	struct af_arow *arow; /* its anchored parts, NULL until an ANCHORED shape asks */
	bool kapart;          /* the last keys asked to move arow could not: score apart */
	/* allocate_hn_pick.c: bit p set when fg[p].fit passes, as of log length pseen and lost
	 * counter plost; NULL until a head pick over a wide range asks */
	uint64_t *pass;
	uint32_t pseen, plost;
} af_row;

/* Row r at position p, for the readers of one position (the loops hold the columns). */
static inline tph_reason_code af_row_fit(const af_row *r, uint32_t p)
{
	return r->fg[p].fit;
}
static inline uint8_t af_row_grp(const af_row *r, uint32_t p)
{
	return r->fg[p].grp;
}
/* Only once the row is scored (r->scored) and where it fits. */
static inline double af_row_key(const af_row *r, uint32_t p)
{
	return r->key[p];
}

/* What every shape of one pod spec shares when every predicate is TPH_PRED_SPEC_ONLY: the
 * predicates' verdict on each ready node, whatever the request row (the fit is the row's),
 * kept current from the touch log: a catch-up asks again neither a final verdict nor, while
 * the sole predicate plugin promises it for the task, a pass on a node below its pod limit
 * (plugin.h, tph_declare_pass_pods). Specs are few and live outside the shape budget. */
typedef struct af_pred {
	const tph_pod_spec *spec;
	bool built;
	uint32_t seen, lost;
	tph_reason_code *code; /* [pos] */
	uint64_t *final;       /* [pos / 64] bit: code[pos] is final, never asked again */
	uint32_t unsettled;    /* positions that hold a failure that is not final */
	uint32_t flips;        /* verdicts that moved between pass and fail once built */
	uint32_t at;           /* in f->preds */
} af_pred;

/* What every ANCHORED shape of one request row and non-zero request shares when its scores
 * split (tph_score_split_at): per ready node the head's sums before the split plugin and that
 * plugin's row part (tph_score_split_fn), kept current from the touch log where the row fits,
 * so a shape's score of a node is one spec part and three additions
 * (allocate_fast_anchor.c). When the row also has keys, both are brought to the same point and
 * then move together: each touched node scored once for both (tph_score_nodes_row_parts). Few,
 * outside the shape budget. */
typedef struct af_arow {
	const af_row *row; /* its request row */
	bool built;
	uint32_t seen, lost;
	double *col;   /* [3 * pos]: pre, bat, row part */
	uint32_t tail; /* where its tasks' scores split (tph_score_split_at) */
} af_arow;

/* One node for one shape. Packed, 9 bytes: its verdict is not kept here (af_shape.code, or
 * its row's and spec's), nor which set its group was scored over (af_shape.kset): 16 bytes
 * with the verdict made the ANCHORED shapes' cells 100k-nodes' largest share of page faults. */
typedef struct __attribute__((packed)) af_cell {
	double key;  /* total score, NaN read as -inf */
	uint8_t grp; /* G_*; G_NONE when infeasible */
} af_cell;

/* A tournament entry: the winning position below it with the group and score it had when it
 * won, so updates compare entries without reading the cells. */
typedef struct af_win {
	double key;
	uint32_t pos; /* UINT32_MAX: none */
	uint8_t grp;
	uint8_t stale; /* at a leaf: the block's winner got worse, the entry is only a bound */
} af_win;

/* No position: its group loses to every cell's. */
#define AF_NOWIN ((af_win){0, UINT32_MAX, UINT8_MAX, 0})

/* Whether a comes before b; equal group and score go to the lower position. */
static inline bool af_win_before(const af_win *a, const af_win *b)
{
	if (a->grp != b->grp)
		return a->grp < b->grp;
	if (a->key != b->key)
		return a->key > b->key;
	return a->pos < b->pos;
}

/* A tournament leaf's entry w offered position p's entry e (AF_NOWIN when p is infeasible).
 * Every position of the leaf is, as it stands or as it stood when last offered, no better
 * than w: a winner that got worse leaves its entry as that bound, marked stale, for the
 * readers to scan again only when it would win (most never do); anything better replaces it,
 * exact again. Whether the entry changed so. */
static inline bool af_win_offer(af_win *w, af_win e, uint32_t p)
{
	bool worse = e.grp > w->grp || (e.grp == w->grp && e.key < w->key);
	if (w->pos == p && worse)
		w->stale = 1;
	if (worse || (w->pos != p && e.grp == w->grp && e.key == w->key && p > w->pos))
		return false;
	/* by field: a whole copy of a made entry had GCC read its padding back from a stack
	 * slot written in two parts, a stalled store forwarding at every offer taken */
	w->key = e.key;
	w->pos = e.pos;
	w->grp = e.grp;
	w->stale = e.stale;
	return true;
}

/* Tournament node i's ancestors in win merged again, up to the first whose entry stays. The
 * winner is compared and copied through a pointer: a merged value would be packed into a
 * register. */
static inline void af_win_fix_up(af_win *win, uint32_t i)
{
	for (i >>= 1; i; i >>= 1) {
		const af_win *l = &win[2 * i], *r = &win[2 * i + 1];
		const af_win *m = af_win_before(r, l) ? r : l;
		if (m->pos == win[i].pos && m->grp == win[i].grp && m->key == win[i].key)
			return;
		win[i] = *m;
	}
}

/* A walk of list[0..k) (NULL: positions 0..k in order, which need no help) asks for the lines
 * of entry i + d while at i < this bound, so it never reads past list[k - 1]. */
static inline uint32_t af_ahead_end_by(const uint32_t *list, uint32_t k, uint32_t d)
{
	return list && k > d ? k - d : 0;
}
static inline uint32_t af_ahead_end(const uint32_t *list, uint32_t k)
{
	return af_ahead_end_by(list, k, AF_AHEAD);
}

typedef struct af_shape {
	const tph_pod_spec *spec;
	const int64_t *req; /* the request row of the task that made it */
	tph_idx job;        /* TPH_NOIDX unless the shape keys on the job */
	af_row *row;        /* its request row's fit, groups and perhaps scores */
	af_pred *pred;      /* its pod spec's predicate verdicts, or NULL: its own */
	bool keyrow;        /* TPH_SCORE_ROW: the keys are the row's */
	uint64_t hash;
	int loc;       /* TPH_SCORE_LOCAL (perhaps | TPH_SCORE_HYPERNODE) or TPH_SCORE_ANCHORED */
	bool built;    /* the columns hold a whole state, current as of `seen` */
	bool tree_due; /* the tournament is rebuilt whole when next read (allocate_fast_tree.c) */
	uint32_t seen; /* touch-log length the columns reflect */
	uint32_t lost; /* the log's lost counter at `seen` */
	uint64_t used; /* LRU clock */
	size_t bytes;  /* of the columns below, 0 when they are freed */
	af_cell *cell; /* [pos] */
	/* [pos] fit and predicate verdict, hard shard included; NULL when the verdicts are the
	 * row's and spec's (af_shared_verdicts) */
	tph_reason_code *code;
	af_win *win;  /* [2 * cap] tournament: the winner of each tree node */
	uint32_t cap; /* tournament leaves, a power of two */
	uint32_t cnt[G_COUNT];
	bool dirty[G_COUNT]; /* ANCHORED: the group's scores must be computed again */
	/* TPH_SCORE_HYPERNODE (tph_score_hn_tail): the BatchNodeOrder plugin where the scores
	 * split, or AF_NOTAIL; with a tail, part[2p] and part[2p + 1] keep the head's pre and bat
	 * of each feasible position, so a change of hypernode state runs only the tail. */
	uint32_t tail;
	double *part;
	/* a head shape (af_head_only): [pos] 1 when part holds the position's head sums */
	uint8_t *known;
	uint32_t n_anchor[G_COUNT];
	uint32_t anchor[G_COUNT][AF_MAX_ANCHORS]; /* positions */
	/* ANCHORED: [g][pos / 64] bit, position pos was in group g when g was last scored whole
	 * since the build, once kset_ok[g] (af_shape_known): written whole for the few groups
	 * ever scored, where a byte a cell was (1,460 pages on 100k-nodes) */
	uint64_t *kset[G_NONE];
	bool kset_ok[G_NONE];
	/* ANCHORED: each group's normalisation values (tph_score_norm) as of its last whole
	 * scoring, n_norm AF_NONORM when unknown; recheck: since then an anchor left
	 * (AF_LEFT), nodes it was not scored with joined (AF_JOINED) */
	uint32_t n_norm[G_COUNT];
	int64_t norm[G_COUNT][AF_MAX_ANCHORS];
	uint8_t recheck[G_COUNT];
	/* ANCHORED, split: the batch position of the split for the task of this sync
	 * (tph_score_split_at), AF_NOTAIL when its scores do not split; its row's parts */
	uint32_t split;
	af_arow *arow;
	struct af_hn *hn; /* ranks per hypernode set (allocate_hn_rank.h), or NULL */
} af_shape;

/* What an entry of the touch log changed in the columns over the entries not undone. */
typedef struct af_prev {
	uint32_t eff, hn; /* eff of its position and hn_eff before it */
} af_prev;
/* An undone span of the touch log (alloc_fast_undone). */
typedef struct af_span {
	uint32_t b, e; /* entries [b, e) */
	uint32_t cum;  /* the entries of the spans up to this one */
} af_span;

/* The touch log read as ready positions (allocate_fast_log.c): plog[i] is entry i's position
 * (n for a node that is not ready), last[p] 1 + the index of p's last entry (0: never). */
typedef struct af_recent {
	uint32_t fed, cap; /* entries read; room in plog */
	uint32_t *plog;
	uint32_t *last; /* [pos], and [n] kept 0 */
	/* The same over the entries not undone (alloc_fast_undone): eff[pos] ([n] kept 0), and
	 * per entry what eff of its position and hn_eff were before it (prev: room for ecap), kept
	 * from the first undone span on (undo_on); the undone spans, disjoint and ascending:
	 * span[i] for i < n_undone. */
	bool undo_on;
	uint32_t *eff, hn_eff, ecap;
	af_prev *prev;
	af_span *span;
	uint32_t n_undone, cap_undone;
	uint64_t *bits;   /* scratch, a bit a position, all clear between calls */
	uint32_t hn_last; /* 1 + the index of the last entry whose node lies in a hypernode */
	/* One sync's shared walk (af_walk_begin): while `wsync`, f->plist[0..wk) holds, when `wok`,
	 * the positions logged in [wseen, wlog); the row, spec and anchored row of the sync take
	 * theirs from it, into `alt` ([pos]) when they differ. */
	bool wsync, wok;
	uint32_t wseen, wlog, wk;
	uint32_t *alt;
	/* Each position's FutureIdle then Idle by dimension, what the rows' fits compare (one
	 * cache line a node for up to four dimensions, against three columns a dimension in the
	 * node store): filled whole when first read or after a lost entry, then, when read, each
	 * position logged since the last read once, every change of a node's columns being
	 * logged before the next sync. */
	int64_t *room, *room_mem; /* room: room_mem aligned to a cache line */
	uint32_t rnd, rw;         /* dimensions; int64 a position (af_room_width) */
	uint32_t rlost, rseen; /* the log's lost counter when filled whole; length at last read */
	bool room_ok;          /* room holds every position */
} af_recent;

/* What the tasks of one (job, role) saw in the current pass of the job: the follower of the
 * cache's entry for the role. */
typedef struct af_track {
	uint32_t gen; /* the cache's pass; dead when it moved on */
	af_shape *sh; /* NULL once the tracker let go of its entry */
	uint32_t evals;
	uint32_t mod_gen, ov_gen; /* stamps of mod_at / ov_at */
	uint32_t *mod_at, *ov_at; /* [pos] */
	tph_reason_code *mod_old; /* [pos] verdict at the last evaluation, when changed since */
	tph_reason_code *ov_code; /* [pos] cached reason that differs from the verdict */
	uint32_t *mods, *ovs;     /* positions with a mod_at / ov_at stamp */
	uint32_t n_mods, n_ovs;
} af_track;

struct alloc_fast {
	tph_session *s;
	tph_eqc *eqc;
	tph_ph *ph;
	bool by_job;                /* a predicate may read the job: shapes key on it */
	bool soft;                  /* soft sharding splits the groups */
	tph_reason_code shard_code; /* hard sharding: the verdict outside the shard */
	uint32_t n;                 /* ready nodes: positions */
	tph_fit_req fit;            /* the request of the task being picked (alloc_group_req) */
	tph_idx fit_task;           /* the task `fit` is for, TPH_NOIDX before the first */
	uint32_t *pos;              /* [node] position, UINT32_MAX when not ready */
	tph_lazy32 shape_of;        /* [task] shape + 1 (few tasks pending: zeroed by block) */
	uint32_t last_of[2];        /* shape_of's last answer + 1: [0] shapes, [1] head shapes */
	af_shape **shapes;
	uint32_t n_shapes, cap_shapes;
	uint32_t *tab, tcap; /* open addressing over shape + 1 */
	size_t bytes, budget;
	uint64_t clock;
	af_track **tr;
	uint32_t n_tr, cap_tr;
	af_row **rows;
	uint32_t n_rows, cap_rows;
	bool spec_only; /* every predicate is TPH_PRED_SPEC_ONLY: verdicts per pod spec */
	af_pred **preds;
	uint32_t n_preds, cap_preds;
	/* The touch log read for nodes at their pod limit (af_pred_sync's settled specs): up to
	 * pods_fed; pods_full is one past the last entry read at the limit, or the log's length
	 * when a touch went unlogged (pods_lost: the lost counter last read). */
	uint32_t pods_fed, pods_full, pods_lost;
	/* scratch for n positions */
	uint32_t *plist, *sub, *at;
	af_recent rec;
	tph_idx *nodes, *feas;
	tph_reason_code *codes, *vbuf;
	double *scores, *pre, *bat;
	struct af_hn_sets *hsets; /* allocate_hn_rank.c's sets of ready nodes, made on first use */
	af_arow **arows;          /* allocate_fast_anchor.c */
	uint32_t n_arows, cap_arows;
	double *rpart;           /* [n] scratch: row parts (with the first arow) */
	tph_lazy32 head_of;      /* [task] head shape + 1 (allocate_hn_pick.c) */
	struct af_aspec *aspecs; /* allocate_fast_anchor.c: spec parts per (pod spec, norm) */
	uint32_t n_aspecs, next_aspec;
	struct af_hkeep *hkeep;      /* allocate_hn_pick.c: the last pick's first group */
	struct af_type_state *types; /* allocate_fast_type.c, made on first use */
	bool log_none;               /* a failed pick records the task (alloc_fast_pick_logged) */
	struct af_fails *fails;      /* allocate_fast_none.c's memos, made on first use */
};

/* A head shape (allocate_hn_pick.c): plain TPH_SCORE_LOCAL with a split at the last
 * BatchNodeOrder plugin (tph_score_free_tail), whose columns keep the head's sums (part, known)
 * and, unless bare, the verdicts and groups, but no total: the tail runs over each pick's
 * candidates. */
static inline bool af_head_only(const af_shape *sh)
{
	return sh->tail != AF_NOTAIL && !(sh->loc & TPH_SCORE_HYPERNODE);
}
/* A head shape whose verdicts and groups are its row's fit and its spec's predicates
 * (sh->pred), both current after its sync: it keeps no cells, only the marks of known head
 * sums, so a build writes a byte a position where the cells took 16 (10k-topology's 120 head
 * shapes, ~4,700 pages faulted in). Its trackers follow the row and spec (af_track_moved). */
static inline bool af_head_bare(const af_shape *sh)
{
	return af_head_only(sh) && sh->pred;
}
/* A head shape's kept head sums of position p: pre, NaN while unknown (a touch or the build
 * marked it in `known`, so the part column is written only where a pick scored); bat is read
 * only where pre is known. */
static inline double af_head_pre(const af_shape *sh, uint32_t p)
{
	return sh->known[p] ? sh->part[2 * (size_t)p] : (double)NAN;
}
static inline void af_head_put(af_shape *sh, uint32_t p, double pre, double bat)
{
	sh->part[2 * (size_t)p] = pre;
	sh->part[2 * (size_t)p + 1] = bat;
	sh->known[p] = 1;
}
/* A head shape's choice among nodes[0..n) (ready nodes, in the order the normal path filters
 * them), as feasible() and alloc_best_node() make it over them: the verdicts (the role's
 * cache through t) and groups from the columns, the tail scored over the first group's
 * members; AF_NODE or AF_NONE as alloc_fast_pick_among. */
/* A pick found no node (allocate_fast_none.c): the verdicts of shape sh (its row's and spec's
 * when `light`) and tracker t, if any, listed into codes[0..n) or, with f->log_none, recorded
 * for the task; AF_NONE or an error. */
int af_none(alloc_fast *f, const af_shape *sh, const af_track *t, bool light, tph_idx task,
            tph_reason_code *codes);
void af_none_free(alloc_fast *f);
int af_head_choose(alloc_fast *f, af_shape *sh, const af_track *t, tph_idx task,
                   const tph_idx *nodes, uint32_t n, tph_idx *node, tph_reason_code *codes);
void af_head_free(alloc_fast *f);

/* Whether the shape's scores are normalised over its groups (ANCHORED, with or without the
 * hypernode part). */
static inline bool af_anchored(const af_shape *sh)
{
	return (sh->loc & ~TPH_SCORE_HYPERNODE) == TPH_SCORE_ANCHORED;
}
/* Whether position p was in group g (< G_NONE) of an ANCHORED shape when g was last scored
 * whole since the shape's build. */
static inline bool af_shape_known(const af_shape *sh, uint32_t g, uint32_t p)
{
	return sh->kset_ok[g] && (sh->kset[g][p / 64] >> (p % 64) & 1);
}
/* allocate_fast_shape.c: bring a shape up to date for `task` (built when needed);
 * TPH_ENOMEM leaves it unbuilt. */
int af_sync(alloc_fast *f, af_shape *sh, tph_idx task);
/* Score group g of an ANCHORED shape again, over its members. */
int af_rescore(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t g);
/* Bytes of a shape's columns for n positions; making and freeing them. */
size_t af_shape_bytes(const af_shape *sh, uint32_t n);
int af_shape_alloc(af_shape *sh, uint32_t n);
void af_shape_release(af_shape *sh);

/* allocate_fast_log.c: the distinct ready positions logged since `seen`, into f->plist, in
 * ascending order when they are many (cells: the columns to prefetch, `size` bytes a
 * position); NOPOS when out of memory; making and freeing f->rec. */
uint32_t af_touched(alloc_fast *f, uint32_t seen, const tph_idx *log, uint32_t n_log,
                    const void *cells, size_t size);
/* The positions to evaluate again for columns current as of log length `seen` and lost
 * counter `lost` (the log's now: n_log, log_lost), the same way: NOPOS (every one) when
 * `whole`, when entries were lost since or when there are more than 4 a position. */
uint32_t af_stale(alloc_fast *f, const void *cells, size_t size, bool whole, uint32_t seen,
                  uint32_t lost, const tph_idx *log, uint32_t n_log, uint32_t log_lost);
/* af_stale for a consumer brought up to date inside a sync (the row, the spec, the anchored
 * row), its positions at *list: the shape's walk (f->plist, which stays) when the consumer was
 * current at the same point, else the positions of that walk logged after its own point, or
 * its own walk, in f->rec.alt, valid until the next call. Outside a sync: af_stale. */
uint32_t af_stale_list(alloc_fast *f, const void *cells, size_t size, bool whole, uint32_t seen,
                       uint32_t lost, const tph_idx *log, uint32_t n_log, uint32_t log_lost,
                       const uint32_t **list);
/* A sync's consumers take their positions from the shape's (k, af_stale's answer for the
 * shape's point `seen`, NOPOS when none) until af_walk_end. */
void af_walk_begin(alloc_fast *f, uint32_t k, uint32_t seen, uint32_t n_log);
void af_walk_end(alloc_fast *f);
/* Whether a node logged in [seen, n_log) lies in a hypernode (every node without a topology);
 * the log fed to n_log. */
bool af_hn_since(const alloc_fast *f, uint32_t seen, uint32_t n_log);
/* alloc_fast_undone over the log's n_log entries, lost counter unchanged since `from`: for
 * columns current as of a point outside [from, n_log), the positions logged in it alone are
 * no longer stale, nor is a hypernode's node logged in it alone (af_hn_since); for columns
 * current as of a point inside it, they still are. */
void af_undone(alloc_fast *f, const tph_idx *log, uint32_t n_log, uint32_t from);
/* allocate_hn_pick.c: r's fit passes as bits (af_row.pass), brought to the log's n_log entries
 * as a consumer of the log, each position logged since read from r's cells; NULL when r is not
 * current with the log or out of memory. */
const uint64_t *af_row_pass(alloc_fast *f, af_row *r, const tph_idx *log, uint32_t n_log,
                            uint32_t lost);
/* The positions lo .. lo + n - 1 whose bit is set, ascending, into out; how many. */
uint32_t af_bits_list(const uint64_t *bits, uint32_t lo, uint32_t n, uint32_t *out);
int af_recent_init(alloc_fast *f);
void af_recent_free(alloc_fast *f);
/* int64 a position of f->rec.room for rnd dimensions: 2 * rnd, and 2 more when a position
 * of that width could span one cache line more than its size needs (a 48-byte tail); not a
 * whole line: 100k-nodes' five dimensions took 128 bytes a position for 80 (1,200 pages). */
static inline uint32_t af_room_width(uint32_t rnd)
{
	uint32_t w = 2 * rnd;
	return w % 8 == 6 ? w + 2 : w;
}
/* f->rec.room current with the log (n_log entries, lost counter `lost`); NULL when out of
 * memory. */
const int64_t *af_room(alloc_fast *f, const tph_idx *log, uint32_t n_log, uint32_t lost);

/* allocate_fast_row.c: the task's request row (made when new; NULL when out of memory),
 * brought up to date for `task`; `keys`: its scores too (the task's scores are TPH_SCORE_ROW).
 * Both take their positions through af_stale_list and use f->sub. */
af_row *af_row_of(alloc_fast *f, tph_idx task);
int af_row_sync(alloc_fast *f, af_row *r, tph_idx task, bool keys);
void af_row_free(alloc_fast *f);
/* The same for the task's pod spec's predicate verdicts (f->spec_only). */
af_pred *af_pred_of(alloc_fast *f, tph_idx task);
void af_pred_sync(alloc_fast *f, af_pred *v, tph_idx task);

/* allocate_fast_anchor.c: for an ANCHORED shape, whether the task's scores split and, when
 * they do, its row's parts brought up to date (inside af_sync, from the shape's walk of the
 * log, af_stale_list); TPH_ENOMEM. Then the keys of positions plist[0..m) of group g, whose
 * normalisation values are known, from those parts (f->nodes and f->scores are its scratch). */
int af_anchor_sync(alloc_fast *f, af_shape *sh, tph_idx task);
void af_anchor_keys(alloc_fast *f, af_shape *sh, tph_idx task, uint32_t g, const uint32_t *plist,
                    uint32_t m);
/* Group g's kept spec parts when its keys come from them (split, values known), else NULL;
 * then the key of p from its row's parts (af_arow.col) and its spec part: what score_tail
 * adds up, pre + (bat + batch score), the split plugin being the last batch plugin (the
 * first's score is the sum itself). */
const double *af_anchor_kept(const alloc_fast *f, const af_shape *sh, uint32_t g);
static inline double af_anchor_key(const double *part, uint32_t split, uint32_t p, double spec)
{
	const double *c = &part[3 * (size_t)p];
	double b = c[2] + spec;
	double total = c[0] + (split ? c[1] + b : b);
	return isnan(total) ? -(double)INFINITY : total;
}
void af_anchor_free(alloc_fast *f);
/* The row's anchored parts when they move with its keys: the row's keys and parts current as
 * of the same point (`whole`: the keys are scored again everywhere), else NULL. Then the
 * parts of f->sub[0..m) from f->pre, f->bat and f->rpart (tph_score_nodes_row_parts). */
af_arow *af_arow_with_keys(const af_row *r, bool whole);
void af_arow_put(alloc_fast *f, af_arow *a, uint32_t m);

/* allocate_fast_tree.c: the tournament over n positions: leaves (blocks of AF_BLOCK) for n,
 * a whole build, and the upkeep after the grp or key of positions plist[0..k) changed (in any
 * order; every changed position must be listed before the tournament is read again). A block
 * whose winner got worse is scanned again only when a reader would take it, so sh->win[1] is
 * read through af_tree_first. A whole build waits for the next reader (updates until then cost
 * nothing), but in a shape whose scores read hypernodes, whose ranks write sh->win[1]. */
uint32_t af_tree_leaves(uint32_t n);
void af_tree_build(af_shape *sh, uint32_t n);
void af_tree_update(af_shape *sh, const uint32_t *plist, uint32_t k);
/* The same one position at a time (win and cap: the shape's): its entry e offered, its leaf's
 * ancestors merged again while at most cap / 8 leaves moved (*moved counts them); then
 * af_tree_put_end, which merges every node past that. */
static inline void af_tree_put(af_win *win, uint32_t cap, af_win e, uint32_t *moved)
{
	uint32_t i = cap + e.pos / AF_BLOCK;
	if (af_win_offer(&win[i], e, e.pos) && (*moved)++ < cap / 8)
		af_win_fix_up(win, i);
}
void af_tree_put_end(af_shape *sh, uint32_t moved);
/* The tournament's first over all n positions (pos UINT32_MAX: none). */
af_win af_tree_first(af_shape *sh, uint32_t n);
/* The tournament's order over positions lo..hi-1 alone (lo < hi <= n): its first. */
af_win af_tree_range(af_shape *sh, uint32_t n, uint32_t lo, uint32_t hi);

/* allocate_fast_track.c: the tracker of the task's (job, role) in the current pass, made and
 * bound to `sh` on the role's first task; NULL with *decline set when the task must take the
 * normal path. */
af_track *af_track_get(alloc_fast *f, tph_idx task, af_shape *sh, bool *decline);
/* The verdict of sh (a tracker's shape) at p changed from `old`; ignored for a shape whose
 * verdicts are its row's and spec's (af_shared_verdicts: its trackers hear af_track_moved). */
void af_track_notify(alloc_fast *f, const af_shape *sh, uint32_t p, tph_reason_code old);
/* Row r's fit (v NULL) or spec v's verdict (r NULL) at p changed from `old`: trackers of the
 * shapes whose verdicts are read from them follow their verdicts there. */
void af_track_moved(alloc_fast *f, const af_row *r, const af_pred *v, uint32_t p,
                    tph_reason_code old);
/* Whether the shape's picks may read its row's type winners (allocate_fast_type.c), so that
 * its own tournament need not be kept, nor its cells for its trackers: its keys are its row's
 * (TPH_SCORE_ROW) and its verdicts its row's fit and its pod spec's. */
static inline bool af_type_serves(const af_shape *sh)
{
	return sh->keyrow && sh->pred;
}
/* Such a shape's verdict at position p from its row and spec (its columns may be behind), or
 * a bare head shape's (af_head_bare). */
static inline tph_reason_code af_type_verdict(const af_shape *sh, uint32_t p)
{
	tph_reason_code fit = af_row_fit(sh->row, p);
	return fit == TPH_PASS ? sh->pred->code[p] : fit;
}
/* Whether the shape's verdicts are read from its row and spec (sh->pred): it keeps no verdict
 * column of its own (af_shape.code), as its sync would only copy them there; those of a shape
 * whose picks read the types may be ahead of its cells. */
static inline bool af_shared_verdicts(const af_shape *sh)
{
	return sh->pred != NULL;
}
/* The shape's verdict at p, which a tracker of sh follows: from the row and spec
 * (af_shared_verdicts), else from its own column. */
static inline tph_reason_code af_track_base(const af_shape *sh, uint32_t p)
{
	return af_shared_verdicts(sh) ? af_type_verdict(sh, p) : sh->code[p];
}
/* An evaluation by a task of the tracker's role: fold the changes since the last one. */
void af_track_eval(af_track *t);
/* The verdict the role's cache gives position p (after af_track_eval); inline for the
 * loops over a hypernode's nodes. */
static inline tph_reason_code af_track_code(const af_track *t, uint32_t p)
{
	return t->ov_at[p] == t->ov_gen ? t->ov_code[p] : af_track_base(t->sh, p);
}
/* The tracker of the task's (job, role), if any, writes its entry's codes and ends. */
void af_track_handover(alloc_fast *f, tph_idx task);
/* Whether a live tracker is bound to sh (its columns must stay). */
bool af_track_pins(const alloc_fast *f, const af_shape *sh);
void af_track_free(alloc_fast *f);

#endif

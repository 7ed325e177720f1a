/* Placing a job's tasks of one turn, shared by allocate and the job solver (KAI's
 * actions/common/allocate.go AllocateJob): the sub-group tree with SubsetNodes' node sets, each
 * task on the best-scored node of its set it fits, bound on idle resources or pipelined onto
 * releasing ones. With `pipeline_only` (the solver re-placing a job over evicted victims) every
 * task is pipelined, as KAI's isPipelineOnly does. */
#ifndef TPH_KAI_PLACE_H
#define TPH_KAI_PLACE_H

#include "session/kai/kai_int.h"

/* A node scored for one task. */
typedef struct ranked {
	double score;
	uint32_t rank; /* name_rank */
	uint32_t node;
} ranked;

typedef struct tph_kai_kept tph_kai_kept;

/* The placer's scratch, sized once per action run (tph_kai_placer_init). */
typedef struct tph_kai_placer {
	tph_kai_session *s;
	uint32_t *name_rank; /* [node] its name's position in byte order (score ties) */
	uint32_t *nodes;     /* [node] one task's candidate nodes */
	ranked *ranked;      /* [node] one task's scored nodes, best first */
	tph_kai_kept *kept;  /* place_kept.c */
	bool pipeline_only;
} tph_kai_placer;

int tph_kai_placer_init(tph_kai_placer *p, tph_kai_session *s);
void tph_kai_placer_free(tph_kai_placer *p);

/* Job j's tasks of this turn on `nodes` in the open statement: 1 all placed, 0 not (what was
 * placed stays: the caller rolls back), < 0 error. */
int tph_kai_place_job(tph_kai_placer *p, uint32_t j, const uint32_t *tasks, uint32_t n_tasks,
                      const uint32_t *nodes, uint32_t n_nodes);

/* Whether (score, rank) l comes before r in the walk's order (highest score, then name). */
static inline bool tph_kai_ranked_before(double ls, uint32_t lr, double rs, uint32_t rr)
{
	return ls != rs ? ls > rs : lr < rr;
}

/* What task t takes from the ledger at least, [TPH_KAI_DIMS]: whole GPUs (none for a shared
 * pod, whose devices tph_kai_fits_future compares instead of the vector), cpu, memory. */
void tph_kai_place_need(const tph_kai_session *s, uint32_t t, double need[TPH_KAI_DIMS]);
/* Node `node` for task t, with `need` from tph_kai_place_need: 1 when t fits it (idle plus
 * releasing) and no NodeOrder drops it (*sc: the summed score), 0 when not, -2 for a NaN
 * score. */
int tph_kai_place_eval(const tph_kai_session *s, uint32_t t, const double need[TPH_KAI_DIMS],
                       uint32_t node, double *sc);

/* Kept verdicts (place_kept.c): per task shape, the nodes of the pool it fits with their
 * scores, best first, as they were when the touch log held `at` entries; a task whose scores
 * are local (tephra/kai.h) and whose set is the whole pool finds its node from them plus a
 * fresh evaluation of the nodes touched since. */
int tph_kai_kept_new(tph_kai_kept **out, const tph_kai_session *s);
void tph_kai_kept_free(tph_kai_kept *k);
/* The node best_fitting would give task t over the pool `set` (NodePreOrder already run): the
 * node, -1 none fits, -2 a NaN score (the sort decides), -3 not kept (not the whole pool,
 * not local, naive mode). */
int64_t tph_kai_kept_best(tph_kai_placer *a, uint32_t t, const uint32_t *set, uint32_t n);
/* The running action's queueDepthPerAction, -1 when the conf gives none (job_depth.c). */
int32_t tph_kai_queue_depth(const tph_kai_session *s);
/* Clear in[j] of every flagged job past the depth of its leaf queue (queue q's jobs are
 * q_jobs[q_first[q] .. q_first[q + 1])): the depth best by JobOrder stay. TPH_ENOMEM or
 * TPH_OK. */
int tph_kai_limit_depth(const tph_kai_session *s, uint8_t *in, const uint32_t *q_first,
                        const uint32_t *q_jobs);

#endif

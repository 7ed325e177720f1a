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

/* The placer's scratch, sized once per action run (tph_kai_placer_init). */
typedef struct tph_kai_placer {
	tph_kai_session *s;
	uint32_t *name_rank; /* [node] its name's position in byte order (score ties) */
	uint32_t *nodes;     /* [node] one task's candidate nodes */
	ranked *ranked;      /* [node] one task's scored nodes, best first */
	bool pipeline_only;
} tph_kai_placer;

int tph_kai_placer_init(tph_kai_placer *p, tph_kai_session *s);
void tph_kai_placer_free(tph_kai_placer *p);

/* Job j's tasks of this turn on `nodes` in the open statement: 1 all placed, 0 not (what was
 * placed stays: the caller rolls back), < 0 error. */
int tph_kai_place_job(tph_kai_placer *p, uint32_t j, const uint32_t *tasks, uint32_t n_tasks,
                      const uint32_t *nodes, uint32_t n_nodes);

/* The running action's queueDepthPerAction, -1 when the conf gives none (job_depth.c). */
int32_t tph_kai_queue_depth(const tph_kai_session *s);
/* Clear in[j] of every flagged job past the depth of its leaf queue (queue q's jobs are
 * q_jobs[q_first[q] .. q_first[q + 1])): the depth best by JobOrder stay. TPH_ENOMEM or
 * TPH_OK. */
int tph_kai_limit_depth(const tph_kai_session *s, uint8_t *in, const uint32_t *q_first,
                        const uint32_t *q_jobs);

#endif

/* The kai allocate action's working state, shared by its files . Scratch is sized once per
 * run. */
#ifndef TPH_KAI_ALLOCATE_INT_H
#define TPH_KAI_ALLOCATE_INT_H

#include "tephra/kai.h"

typedef struct tph_kai_alloc {
	tph_kai_session *s;
	uint8_t *queued; /* [job] waiting in the job queues */
	uint32_t *tasks; /* the tasks this turn tries, in order */
	uint32_t n_tasks;
	uint32_t *nodes; /* [node] candidate nodes of one task, best first */
	double *score;   /* [node] */
} tph_kai_alloc;

#endif

/* The enqueue action (Volcano's actions/enqueue): queues take turns by QueueOrder, each turn
 * offering its best Pending job (JobOrder); a job without minResources is admitted at once,
 * any other by the JobEnqueueable vote. Admission fires JobEnqueued and makes it Inqueue. */
#include "common/action_util.h"
#include "session/ep.h"
#include "session/jobwhy.h"

typedef struct enq_ctx {
	tph_pq queues;
	tph_pq *jobs; /* [queue] its Pending jobs */
} enq_ctx;

/* Every queue that holds a job takes part; only Pending jobs are offered. */
static int build(tph_session *s, enq_ctx *c)
{
	const tph_job_store *js = s->jobs;
	uint32_t nq = s->queues->n, nj = js->n;
	uint32_t *pending = TPH_ACT_NEW(s, uint32_t, nq + 1);
	uint8_t *seen = TPH_ACT_NEW(s, uint8_t, nq + 1);
	if (!pending || !seen)
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < nj; j++)
		pending[js->queue[j]] += s->js.phase[j] == TPH_PG_PENDING;
	if (tph_act_job_heaps(s, pending, &c->queues, &c->jobs))
		return TPH_ENOMEM;
	for (tph_idx j = 0; j < nj; j++) {
		tph_idx q = js->queue[j];
		if (!seen[q]) {
			seen[q] = 1;
			tph_pq_push(&c->queues, q);
		}
		if (s->js.phase[j] == TPH_PG_PENDING)
			tph_pq_push(&c->jobs[q], j);
	}
	return TPH_OK;
}

static int enqueue_execute(tph_session *s, const tph_args *args)
{
	(void)args;
	enq_ctx c;
	int rc = build(s, &c);
	if (rc)
		return rc;
	tph_idx q;
	/* a queue goes back after each turn, so shares changed by JobEnqueued reorder it */
	while ((q = tph_pq_pop(&c.queues)) != TPH_NOIDX) {
		tph_idx j = tph_pq_pop(&c.jobs[q]);
		if (j == TPH_NOIDX)
			continue;
		uint32_t by = 0;
		if (!s->jobs->has_min_res[j] || tph_job_enqueueable_by(s, j, &by)) {
			tph_job_enqueued(s, j);
			s->js.phase[j] = TPH_PG_INQUEUE;
		} else
			tph_jobwhy_rejected(s, j, by);
		tph_pq_push(&c.queues, q);
	}
	return TPH_OK;
}

const tph_action tph_action_enqueue = {
    TPH_PLUGIN_ABI, "enqueue", NULL, NULL, enqueue_execute, NULL,
};

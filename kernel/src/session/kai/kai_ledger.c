/* KAI's node ledger (api/node_info): per node, idle = allocatable less every pod holding it,
 * releasing = what Releasing pods hold (free once they go); a Pipelined pod has already
 * claimed part of the releasing amount. A fractional or gpu-memory pod sits on shared devices
 * (kai_gpu.c), which move the node's GPUs as KAI's shared-GPU ledger does. */
#include "kai_int.h"

#include "base/mem.h"

#include <string.h>

void tph_kai_task_request(const tph_kai_session *s, uint32_t t, double req[TPH_KAI_DIMS])
{
	const tph_kai_tasks *k = &s->v->tasks;
	double frac = k->gpu_fraction[t] > 0 ? k->gpu_fraction[t] * k->gpu_devices[t] : 0;
	req[TPH_KAI_GPU] = k->gpus[t] + frac;
	req[TPH_KAI_CPU] = (double)k->cpu_milli[t];
	req[TPH_KAI_MEMORY] = (double)k->memory[t];
}

void tph_kai_task_quota(const tph_kai_session *s, uint32_t t, double req[TPH_KAI_DIMS])
{
	tph_kai_task_request(s, t, req);
	req[TPH_KAI_GPU] += s->v->tasks.mig_gpus[t];
}

/* What a task takes from the ledger's vectors: a shared pod's devices are counted by
 * kai_gpu.c. */
static void ledger_request(const tph_kai_session *s, uint32_t t, double req[TPH_KAI_DIMS])
{
	tph_kai_task_request(s, t, req);
	if (tph_kai_gpu_shared(s, t))
		req[TPH_KAI_GPU] = s->v->tasks.gpus[t];
}

/* MIG instances move between idle and releasing as the vectors do. */
static void mig_take(tph_kai_session *s, uint32_t t, uint32_t n, uint8_t st, int sign)
{
	uint32_t m = s->v->nodes.n_mig;
	const int64_t *req = s->v->tasks.mig_request + (size_t)t * m;
	int64_t *idle = s->mig_idle + (size_t)n * m, *rel = s->mig_rel + (size_t)n * m;
	for (uint32_t p = 0; p < m; p++) {
		int64_t x = sign * req[p];
		if (st != TPH_KAI_TS_PIPELINED)
			idle[p] -= x;
		if (st == TPH_KAI_TS_RELEASING)
			rel[p] += x;
		else if (st == TPH_KAI_TS_PIPELINED)
			rel[p] -= x;
	}
}

static bool mig_fits(const tph_kai_session *s, uint32_t t, uint32_t n, bool with_releasing)
{
	uint32_t m = s->v->nodes.n_mig;
	const int64_t *req = s->v->tasks.mig_request + (size_t)t * m;
	const int64_t *idle = s->mig_idle + (size_t)n * m, *rel = s->mig_rel + (size_t)n * m;
	for (uint32_t p = 0; p < m; p++)
		if (req[p] > idle[p] + (with_releasing ? rel[p] : 0))
			return false;
	return true;
}

void tph_kai_ledger_take(tph_kai_session *s, uint32_t t, uint32_t n, uint8_t st, int sign)
{
	if (s->v->nodes.n_mig)
		mig_take(s, t, n, st, sign);
	double req[TPH_KAI_DIMS];
	ledger_request(s, t, req);
	s->gpu_used[n] += sign * req[TPH_KAI_GPU];
	if (tph_kai_gpu_shared(s, t))
		tph_kai_gpu_take(s, t, n, st, sign);
	double *idle = s->idle + (size_t)n * TPH_KAI_DIMS;
	double *rel = s->releasing + (size_t)n * TPH_KAI_DIMS;
	for (int d = 0; d < TPH_KAI_DIMS; d++) {
		double x = sign * req[d];
		if (st == TPH_KAI_TS_RELEASING) {
			rel[d] += x;
			idle[d] -= x;
		} else if (st == TPH_KAI_TS_PIPELINED) {
			rel[d] -= x;
		} else {
			idle[d] -= x;
		}
	}
	tph_kai_ranges_note(s, n);
}

int tph_kai_ledger_build(tph_kai_session *s)
{
	const tph_kai_view *v = s->v;
	uint32_t nn = v->nodes.n;
	s->idle = tph_calloc((size_t)nn * TPH_KAI_DIMS + 1, sizeof *s->idle);
	s->releasing = tph_calloc((size_t)nn * TPH_KAI_DIMS + 1, sizeof *s->releasing);
	size_t nm = (size_t)nn * v->nodes.n_mig;
	s->mig_idle = tph_calloc(nm + 1, sizeof *s->mig_idle);
	s->mig_rel = tph_calloc(nm + 1, sizeof *s->mig_rel);
	if (!s->idle || !s->releasing || !s->mig_idle || !s->mig_rel)
		return TPH_ENOMEM;
	if (nm)
		memcpy(s->mig_idle, v->nodes.mig_alloc, nm * sizeof *s->mig_idle);
	for (uint32_t n = 0; n < nn; n++) {
		s->idle[n * TPH_KAI_DIMS + TPH_KAI_GPU] = v->nodes.gpus[n];
		s->idle[n * TPH_KAI_DIMS + TPH_KAI_CPU] = (double)v->nodes.cpu_milli[n];
		s->idle[n * TPH_KAI_DIMS + TPH_KAI_MEMORY] = (double)v->nodes.memory[n];
	}
	int rc = tph_kai_gpu_build(s);
	if (rc != TPH_OK)
		return rc;
	for (uint32_t t = 0; t < v->tasks.n; t++)
		if (s->node[t] >= 0 && tph_kai_active_used(s->status[t]))
			tph_kai_ledger_take(s, t, (uint32_t)s->node[t], s->status[t], +1);
	return TPH_OK;
}

/* A shared pod fits where KAI finds it devices, now only when none of them (nor the node)
 * waits for Releasing pods (kai_gpu_pick.c); its GPUs are not compared with the vectors. */
static bool fits(const tph_kai_session *s, uint32_t t, uint32_t n, bool with_releasing)
{
	double req[TPH_KAI_DIMS];
	bool shared = tph_kai_gpu_shared(s, t), later = false;
	if (shared && (tph_kai_gpu_pick(s, t, n, NULL, &later) < 0 || (later && !with_releasing)))
		return false;
	ledger_request(s, t, req);
	const double *idle = s->idle + (size_t)n * TPH_KAI_DIMS;
	const double *rel = s->releasing + (size_t)n * TPH_KAI_DIMS;
	for (int d = shared ? TPH_KAI_GPU + 1 : 0; d < TPH_KAI_DIMS; d++)
		if (req[d] > idle[d] + (with_releasing ? rel[d] : 0))
			return false;
	return !s->v->nodes.n_mig || mig_fits(s, t, n, with_releasing);
}

bool tph_kai_task_allocatable(const tph_kai_session *s, uint32_t t, uint32_t n)
{
	if (tph_kai_gpu_shared(s, t))
		return tph_kai_gpu_allocatable(s, t, n);
	double req[TPH_KAI_DIMS];
	tph_kai_task_request(s, t, req);
	const double *idle = s->idle + (size_t)n * TPH_KAI_DIMS;
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		if (req[d] > idle[d])
			return false;
	return !s->v->nodes.n_mig || mig_fits(s, t, n, false);
}

bool tph_kai_fits_idle(const tph_kai_session *s, uint32_t t, uint32_t n)
{
	return fits(s, t, n, false);
}

bool tph_kai_fits_future(const tph_kai_session *s, uint32_t t, uint32_t n)
{
	return fits(s, t, n, true);
}

const double *tph_kai_session_idle(const tph_kai_session *s)
{
	return s->idle;
}

const double *tph_kai_session_releasing(const tph_kai_session *s)
{
	return s->releasing;
}

/* Planning the 10k-gpu workload: jobs of six kinds, the running ones packed onto the nodes in
 * node order up to each node's drawn GPU budget (shared devices opened as fractional and
 * gpu-memory pods need them), then the pending jobs. */
#include "gen_kai.h"

#include <stdlib.h>

enum {
	SECTION_RUNNING = 14,
	SECTION_PENDING = 15,
	SECTION_BUDGET = 16,
};

/* Share of each kind among jobs, in percent (KJ_* order). */
static const uint32_t kind_weight[KJ_KINDS] = {30, 22, 15, 13, 10, 10};

/* What is left of one node while running pods are packed onto it. */
typedef struct node_fill {
	int64_t cpu, mem; /* left */
	uint8_t gpu;      /* whole GPUs left of the drawn budget */
	uint8_t devs;     /* shared devices opened */
	uint8_t frac_dev,
	    mem_dev; /* the open shared device of each kind (valid when its left > 0) */
	uint32_t frac_left, mem_left; /* hundredths of a GPU, MiB */
} node_fill;

/* Running work piles into the hot third of the queues (over their quota: reclaim has
 * victims); pending work mostly arrives in the others (under quota: they may reclaim). */
static uint32_t pick_queue(const kai_state *k, gen_rng *r, bool running)
{
	uint32_t nq = k->o->queues, hot = (nq + 2) / 3;
	if (running && rng_pct(r, 60))
		return 3 * rng_below(r, hot);
	uint32_t q = rng_below(r, nq);
	if (!running && nq > 1 && kai_queue_hot(q) && rng_pct(r, 70))
		q = (q + 1) % nq;
	return q;
}

static uint32_t log2_floor(uint32_t v)
{
	uint32_t b = 0;
	while (v >>= 1)
		b++;
	return b;
}

static void draw_shape(const kai_state *k, gen_rng *r, kai_job *j)
{
	static const uint32_t mib[] = {5000, 10000, 20000};
	switch (j->kind) {
	case KJ_TRAIN: /* powers of two up to --max-gang nodes' worth */
		j->gpu = KAI_GPUS_PER_NODE;
		j->size = j->min = 1u << rng_below(r, log2_floor(k->o->max_gang) + 1);
		break;
	case KJ_SINGLE:
		j->gpu = 1u << rng_below(r, 3);
		j->size = j->min = 1;
		break;
	case KJ_ELASTIC:
		j->gpu = 1u << rng_below(r, 4);
		j->size = rng_range(r, 2, 16);
		j->min = rng_range(r, 1, j->size - 1);
		break;
	case KJ_FRACTION: /* inference replicas: any one serves */
		j->gpu = rng_pct(r, 50) ? 25 : 50;
		j->size = rng_range(r, 1, 4);
		j->min = 1;
		break;
	case KJ_GPUMEM:
		j->gpu = mib[rng_below(r, 3)];
		j->size = rng_range(r, 1, 2);
		j->min = 1;
		break;
	default:
		j->gpu = 0;
		j->size = j->min = rng_range(r, 1, 4);
		break;
	}
}

/* Requests per pod: 12 cores and 96Gi per whole GPU, less for shared and CPU pods. */
static void draw_requests(gen_rng *r, kai_job *j)
{
	if (j->kind <= KJ_ELASTIC) {
		j->cpu = 12000 * (int64_t)j->gpu;
		j->mem = 96 * GIB * (int64_t)j->gpu;
	} else if (j->kind == KJ_CPU) {
		j->cpu = 1000 * (int64_t)(2u << rng_below(r, 4));
		j->mem = 4 * GIB * (j->cpu / 1000);
	} else {
		j->cpu = 1000 * (int64_t)rng_range(r, 2, 4);
		j->mem = 16 * GIB;
	}
}

static uint8_t draw_prio(gen_rng *r, uint8_t kind)
{
	switch (kind) {
	case KJ_SINGLE:
		return rng_pct(r, 50) ? KP_INTERACTIVE : KP_TRAIN;
	case KJ_FRACTION:
		return rng_pct(r, 50) ? KP_INFERENCE : KP_INTERACTIVE;
	case KJ_GPUMEM:
		return rng_pct(r, 50) ? KP_BUILD : KP_TRAIN;
	case KJ_CPU:
		return KP_BUILD;
	default:
		return KP_TRAIN;
	}
}

static void draw_job(const kai_state *k, gen_rng *r, kai_job *j, bool running)
{
	*j = (kai_job){0};
	j->kind = (uint8_t)rng_weighted(r, kind_weight, KJ_KINDS);
	j->queue = pick_queue(k, r, running);
	draw_shape(k, r, j);
	draw_requests(r, j);
	j->prio = draw_prio(r, j->kind);
	if (running) {
		j->created = GEN_NOW - (int64_t)rng_range(r, 3600, 2 * 86400);
		j->started = j->created + (int64_t)rng_range(r, 10, 1800);
		/* an elastic job has grown part of the way: the rest of its pods are pending */
		j->running = j->kind == KJ_ELASTIC ? rng_range(r, j->min, j->size) : j->size;
	} else {
		j->created = GEN_NOW - (int64_t)rng_range(r, 60, 7200);
	}
}

/* Whether one pod of j fits on the node, and if so take it (recording its device). */
static bool take(const kai_state *k, node_fill *f, uint32_t node, const kai_job *j, kai_pod *p)
{
	if (f->cpu < j->cpu || f->mem < j->mem)
		return false;
	bool frac = j->kind == KJ_FRACTION, gmem = j->kind == KJ_GPUMEM;
	uint32_t *left = frac ? &f->frac_left : &f->mem_left;
	uint8_t *dev = frac ? &f->frac_dev : &f->mem_dev;
	if (frac || gmem) {
		if (*left < j->gpu) { /* open a new shared device */
			if (!f->gpu)
				return false;
			f->gpu--;
			*dev = f->devs++;
			*left = frac ? 100 : kai_node(k, node)->gpu_mem;
		}
		*left -= j->gpu;
		p->dev = *dev;
	} else if (j->kind != KJ_CPU) {
		if (f->gpu < j->gpu)
			return false;
		f->gpu = (uint8_t)(f->gpu - j->gpu);
	}
	f->cpu -= j->cpu;
	f->mem -= j->mem;
	p->node = node;
	return true;
}

/* Each node's GPU budget: --load percent of its GPUs, +-20 points. */
static void draw_budgets(kai_state *k, node_fill *fill)
{
	const tph_gen_opts *o = k->o;
	gen_rng r = rng_stream(o->seed, SECTION_BUDGET);
	uint32_t lo = o->load_pct > 20 ? o->load_pct - 20 : 0;
	for (uint32_t n = 0; n < o->nodes; n++) {
		uint32_t pct = rng_range(&r, lo, o->load_pct + 20);
		uint32_t gpus = (KAI_GPUS_PER_NODE * pct + 50) / 100;
		const kai_node_type *t = kai_node(k, n);
		fill[n] = (node_fill){
		    .cpu = t->cpu,
		    .mem = t->mem,
		    .gpu = (uint8_t)(gpus < KAI_GPUS_PER_NODE ? gpus : KAI_GPUS_PER_NODE)};
	}
}

/* Nodes a pod may look ahead of the cursor: gangs fill the free GPUs of nearby nodes (a rack or
 * three), as a cluster packed over time does, without a quadratic search. */
#define WINDOW 64u

static bool take_near(kai_state *k, node_fill *fill, uint32_t cursor, const kai_job *j, kai_pod *p)
{
	uint32_t end = cursor + WINDOW < k->o->nodes ? cursor + WINDOW : k->o->nodes;
	for (uint32_t n = cursor; n < end; n++)
		if (take(k, &fill[n], n, j, p))
			return true;
	return false;
}

/* Pack one running job's pods near the cursor, which moves past nodes whose budget is used up;
 * a job that finds no room at all closes the cursor's node (its leftover stays free). A job
 * keeps the pods it got: its gang shrinks to them. */
static void place_job(kai_state *k, node_fill *fill, uint32_t *cursor, kai_job *j)
{
	uint32_t placed = 0;
	while (placed < j->running &&
	       take_near(k, fill, *cursor, j, &k->pods[k->n_pods + placed])) {
		placed++;
		while (*cursor < k->o->nodes && !fill[*cursor].gpu)
			++*cursor;
	}
	if (!placed)
		++*cursor;
	if (placed < j->running)
		j->size = j->min = j->running = placed;
	k->n_pods += placed;
}

int kai_plan_running(kai_state *k)
{
	node_fill *fill = malloc((size_t)k->o->nodes * sizeof *fill);
	if (!fill)
		return -1;
	draw_budgets(k, fill);
	gen_rng r = rng_stream(k->o->seed, SECTION_RUNNING);
	uint32_t cap = 0, pod_cap = 0, cursor = 0;
	int rc = 0;
	while (cursor < k->o->nodes) {
		kai_job j;
		draw_job(k, &r, &j, true);
		rc = gen_grow((void **)&k->pods, &pod_cap, k->n_pods + j.running, sizeof *k->pods);
		if (rc)
			break;
		j.first_pod = k->n_pods;
		place_job(k, fill, &cursor, &j);
		if (!j.running)
			continue;
		rc = gen_grow((void **)&k->rjobs, &cap, k->n_rjobs + 1, sizeof *k->rjobs);
		if (rc)
			break;
		k->rjobs[k->n_rjobs++] = j;
	}
	free(fill);
	return rc;
}

/* Pending jobs up to exactly --tasks pods (the last one trimmed). */
int kai_plan_pending(kai_state *k)
{
	gen_rng r = rng_stream(k->o->seed, SECTION_PENDING);
	uint32_t cap = 0, pods = 0;
	while (pods < k->o->tasks) {
		if (gen_grow((void **)&k->jobs, &cap, k->n_jobs + 1, sizeof *k->jobs))
			return -1;
		kai_job *j = &k->jobs[k->n_jobs++];
		draw_job(k, &r, j, false);
		if (j->size > k->o->tasks - pods)
			j->size = k->o->tasks - pods;
		if (j->min > j->size)
			j->min = j->size;
		pods += j->size;
	}
	return 0;
}

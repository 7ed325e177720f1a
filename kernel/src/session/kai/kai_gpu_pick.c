/* Which devices a shared pod takes on a node (framework/session.go FittingGPUs,
 * gpu_sharing/gpuSharing.go GetNodePreferableGpuForSharing), and the GpuOrder point that ranks
 * them. Candidates are the node's used devices that fit the pod once Releasing pods go, then
 * one entry per idle or releasing whole GPU; GpuOrder sums score each, the best come first
 * (equal scores: devices in index order, then whole GPUs), and the pod takes the first
 * `gpu_devices` of them. It is pipelined when one of them, or the node, fits it only later. */
#include "kai_int.h"

#include "base/mem.h"

#include <stdlib.h>

#define EPS 1e-9

typedef struct tph_kai_gpu_cand {
	double score;
	int32_t dev; /* TPH_KAI_WHOLE_GPU: a free whole GPU */
	uint32_t seq;
} tph_kai_gpu_cand;

struct tph_kai_gpu_cand *tph_kai_gpu_cands_alloc(uint32_t devices)
{
	return tph_calloc((size_t)devices * 2 + 1, sizeof(tph_kai_gpu_cand));
}

int tph_kai_add_gpu_order(tph_kai_session *s, tph_kai_gpu_order_fn fn, void *state)
{
	return tph_kai_hooks_add(s, &s->gpu_order, (void *)fn, state);
}

int tph_kai_gpu_order(const tph_kai_session *s, uint32_t task, uint32_t node, int32_t dev,
                      double *score)
{
	const tph_kai_hooks *h = &s->gpu_order;
	double sum = 0;
	for (uint32_t i = 0; i < h->n; i++) {
		double x = 0;
		if (((tph_kai_gpu_order_fn)h->items[i].fn)(h->items[i].state, s, task, node, dev,
		                                           &x) < 0)
			return -1;
		sum += x;
	}
	*score = sum;
	return 0;
}

/* KAI's IsTaskFitOnGpuGroup: a used device, with room once Releasing pods go, not all of it
 * releasing. */
static bool fits_device(const tph_kai_session *s, uint32_t g, int64_t m, int64_t mem)
{
	return s->dev_used[g] != 0 && mem - s->dev_alloc[g] + s->dev_rel[g] - m >= 0 &&
	       s->dev_alloc[g] != s->dev_rel[g];
}

/* KAI's EnoughIdleResourcesOnGpu: room now; a device only Pipelined pods use has none. */
static bool fits_device_now(const tph_kai_session *s, uint32_t g, int64_t m, int64_t mem)
{
	return (s->dev_flags[g] & KAI_DEV_SEEN) && mem - s->dev_alloc[g] - m >= 0;
}

static uint32_t fitting_devices(const tph_kai_session *s, uint32_t t, uint32_t n)
{
	int64_t m = tph_kai_gpu_memory(s, t, n), mem = s->v->nodes.gpu_memory_mib[n];
	uint32_t c = 0;
	for (uint32_t g = s->dev_first[n]; g < s->dev_first[n + 1]; g++)
		c += fits_device(s, g, m, mem);
	return c;
}

/* KAI's IsTaskAllocatable for a shared pod: cpu and memory fit idle, and idle whole GPUs plus
 * the used devices that fit it are enough. */
bool tph_kai_gpu_allocatable(const tph_kai_session *s, uint32_t t, uint32_t n)
{
	if (tph_kai_gpu_fraction(s, t, n) > 1 + EPS)
		return false;
	const double *idle = s->idle + (size_t)n * TPH_KAI_DIMS;
	double req[TPH_KAI_DIMS];
	tph_kai_task_request(s, t, req);
	if (req[TPH_KAI_CPU] > idle[TPH_KAI_CPU] || req[TPH_KAI_MEMORY] > idle[TPH_KAI_MEMORY])
		return false;
	int64_t whole = (int64_t)(idle[TPH_KAI_GPU] + EPS);
	return whole + fitting_devices(s, t, n) >= (uint32_t)s->v->tasks.gpu_devices[t];
}

static int by_score(const void *pa, const void *pb)
{
	const tph_kai_gpu_cand *l = pa, *r = pb;
	if (l->score != r->score)
		return l->score > r->score ? -1 : 1;
	return l->seq < r->seq ? -1 : l->seq > r->seq;
}

/* The candidates of task t on node n, scored, best first; how many. */
static uint32_t candidates(const tph_kai_session *s, uint32_t t, uint32_t n)
{
	tph_kai_gpu_cand *c = s->gpu_cands;
	int64_t m = tph_kai_gpu_memory(s, t, n), mem = s->v->nodes.gpu_memory_mib[n];
	uint32_t k = 0, lo = s->dev_first[n], hi = s->dev_first[n + 1];
	double sc;
	for (uint32_t g = lo; g < hi; g++)
		if (fits_device(s, g, m, mem) && tph_kai_gpu_order(s, t, n, (int32_t)g, &sc) == 0) {
			c[k] = (tph_kai_gpu_cand){sc, (int32_t)g, k};
			k++;
		}
	size_t at = (size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU;
	int64_t whole = (int64_t)s->idle[at] + (int64_t)s->releasing[at];
	whole = whole > (int64_t)(hi - lo) ? (int64_t)(hi - lo) : whole;
	if (whole > 0 && tph_kai_gpu_order(s, t, n, TPH_KAI_WHOLE_GPU, &sc) == 0)
		for (int64_t i = 0; i < whole; i++) {
			c[k] = (tph_kai_gpu_cand){sc, TPH_KAI_WHOLE_GPU, k};
			k++;
		}
	qsort(c, k, sizeof *c, by_score);
	return k;
}

/* The next device from *next on that no pod uses (a whole GPU becomes a new group), or -1. */
static int32_t free_device(const tph_kai_session *s, uint32_t n, uint32_t *next)
{
	for (; *next < s->dev_first[n + 1]; (*next)++)
		if (s->dev_used[*next] == 0)
			return (int32_t)(*next)++;
	return -1;
}

int32_t tph_kai_gpu_pick(const tph_kai_session *s, uint32_t t, uint32_t n, int32_t *out,
                         bool *releasing)
{
	if (tph_kai_gpu_fraction(s, t, n) > 1 + EPS)
		return -1;
	uint32_t k = candidates(s, t, n), want = (uint32_t)s->v->tasks.gpu_devices[t], got = 0;
	uint32_t next = s->dev_first[n];
	int64_t m = tph_kai_gpu_memory(s, t, n), mem = s->v->nodes.gpu_memory_mib[n];
	bool now = tph_kai_gpu_allocatable(s, t, n);
	*releasing = false;
	for (uint32_t i = 0; i < k && got < want; i++) {
		int32_t g = s->gpu_cands[i].dev;
		if (g == TPH_KAI_WHOLE_GPU && (g = free_device(s, n, &next)) < 0)
			continue;
		bool later = s->gpu_cands[i].dev == TPH_KAI_WHOLE_GPU
		                 ? !now
		                 : !now || !fits_device_now(s, (uint32_t)g, m, mem);
		*releasing = *releasing || later;
		if (out)
			out[got] = g;
		got++;
	}
	return got == want && want > 0 ? (int32_t)got : -1;
}

bool tph_kai_gpu_opens_group(const tph_kai_session *s, uint32_t t, uint32_t n)
{
	if (tph_kai_gpu_fraction(s, t, n) > 1 + EPS)
		return true;
	uint32_t k = candidates(s, t, n), want = (uint32_t)s->v->tasks.gpu_devices[t], got = 0;
	uint32_t next = s->dev_first[n];
	for (uint32_t i = 0; i < k && got < want; i++) {
		if (s->gpu_cands[i].dev != TPH_KAI_WHOLE_GPU) {
			got++;
			continue;
		}
		if (free_device(s, n, &next) >= 0)
			return true;
	}
	return got < want;
}

const uint32_t *tph_kai_session_devices(const tph_kai_session *s)
{
	return s->dev_first;
}

int tph_kai_gpu_used_portion(const tph_kai_session *s, uint32_t node, uint32_t dev, double *portion)
{
	int64_t mem = s->v->nodes.gpu_memory_mib[node];
	if (mem < 100)
		return TPH_EINVAL;
	*portion = (double)s->dev_used[dev] / (double)mem;
	return TPH_OK;
}

bool tph_kai_gpu_fits_shared(const tph_kai_session *s, uint32_t task, uint32_t node)
{
	return tph_kai_gpu_shared(s, task) && fitting_devices(s, task, node) > 0;
}

uint32_t tph_kai_task_devices(const tph_kai_session *s, uint32_t task, const int32_t **out)
{
	*out = s->task_devs + s->task_dev_first[task];
	return s->task_n_dev[task];
}

const char *tph_kai_device_name(const tph_kai_session *s, uint32_t dev)
{
	return s->dev_group[dev];
}

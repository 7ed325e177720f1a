/* KAI's shared GPUs (api/node_info, gpu sharing): a one-device fractional or gpu-memory pod sits
 * on one device of its node, which several such pods share while their fractions sum to at
 * most 1. A device in use by shared pods is out of the node's idle whole GPUs until its last
 * pod leaves. Devices are a node's slice dev_first[n] .. dev_first[n + 1]; those named by
 * running pods' gpuGroups come first, in name order (kai-format.md "Fallback orders"). */
#include "kai_int.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

#define EPS 1e-9

bool tph_kai_gpu_shared(const tph_kai_session *s, uint32_t t)
{
	const tph_kai_tasks *k = &s->v->tasks;
	return (k->gpu_fraction[t] > 0 || k->gpu_memory_mib[t] > 0) && k->gpu_devices[t] == 1;
}

double tph_kai_gpu_fraction(const tph_kai_session *s, uint32_t t, uint32_t n)
{
	const tph_kai_tasks *k = &s->v->tasks;
	if (k->gpu_fraction[t] > 0)
		return k->gpu_fraction[t];
	/* A node without the memory label cannot serve a memory request: more than one GPU. */
	if (!s->v->nodes.memory_synced[n])
		return 2;
	return (double)k->gpu_memory_mib[t] / (double)s->v->nodes.gpu_memory_mib[n];
}

static bool device_free(const tph_kai_session *s, uint32_t g)
{
	return s->dev_used[g] <= EPS;
}

/* KAI walks the GPUs in order and takes the first one the pod fits once releasing pods are
 * gone; it is allocated there if it fits now, else pipelined (even when a later GPU is idle). */
int32_t tph_kai_gpu_pick(const tph_kai_session *s, uint32_t t, uint32_t n, bool *now)
{
	double f = tph_kai_gpu_fraction(s, t, n);
	int32_t whole = -1;
	for (uint32_t g = s->dev_first[n]; g < s->dev_first[n + 1]; g++) {
		if (device_free(s, g)) {
			whole = whole < 0 ? (int32_t)g : whole;
			continue;
		}
		/* A device only releasing pods hold is a releasing whole GPU: another pod may have
		 * claimed it (pipelined whole) meanwhile. */
		bool claimed = s->dev_used[g] - s->dev_rel[g] <= EPS &&
		               s->idle[(size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU] +
		                       s->releasing[(size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU] <
		                   1 - EPS;
		if (!claimed && s->dev_used[g] - s->dev_rel[g] + f <= 1 + EPS) {
			*now = s->dev_used[g] + f <= 1 + EPS;
			return (int32_t)g;
		}
	}
	size_t at = (size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU;
	*now = s->idle[at] >= 1 - EPS;
	bool future = s->idle[at] + s->releasing[at] >= 1 - EPS;
	return f <= 1 + EPS && future ? whole : -1;
}

/* The device task t sits on: a running pod's named group, else the pick (also for a victim
 * the solver re-places: its group names where it was). */
static int32_t device_of(tph_kai_session *s, uint32_t t, uint32_t n)
{
	const char *name = s->v->tasks.gpu_group[t];
	if (*name && !s->virt[t])
		for (uint32_t g = s->dev_first[n]; g < s->dev_first[n + 1]; g++)
			if (s->dev_group[g] && strcmp(s->dev_group[g], name) == 0)
				return (int32_t)g;
	bool now;
	return tph_kai_gpu_pick(s, t, n, &now);
}

/* A device taken or left whole moves one GPU of the node's vectors as a whole-GPU pod in
 * status st would: Releasing to releasing, Pipelined out of releasing. */
static void whole_device(tph_kai_session *s, uint32_t n, uint8_t st, int sign)
{
	double *idle = &s->idle[(size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU];
	double *rel = &s->releasing[(size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU];
	if (st == TPH_KAI_TS_RELEASING)
		*rel += sign;
	if (st == TPH_KAI_TS_PIPELINED)
		*rel -= sign;
	else
		*idle -= sign;
}

/* A Releasing pod's share frees once it goes; a Pipelined one has claimed such a share. */
static double releasing_share(uint8_t st, double f)
{
	return st == TPH_KAI_TS_RELEASING ? f : st == TPH_KAI_TS_PIPELINED ? -f : 0;
}

void tph_kai_gpu_take(tph_kai_session *s, uint32_t t, uint32_t n, uint8_t st, int sign)
{
	double f = tph_kai_gpu_fraction(s, t, n);
	if (sign > 0) {
		int32_t g = device_of(s, t, n);
		s->task_dev[t] = g;
		if (g < 0)
			return; /* over-committed: KAI's ledger has no room for it either */
		if (device_free(s, (uint32_t)g))
			whole_device(s, n, st, +1);
		s->dev_used[g] += f;
		s->dev_rel[g] += releasing_share(st, f);
		return;
	}
	int32_t g = s->task_dev[t];
	s->task_dev[t] = -1;
	if (g < 0)
		return;
	s->dev_used[g] -= f;
	s->dev_rel[g] -= releasing_share(st, f);
	if (device_free(s, (uint32_t)g)) {
		s->dev_used[g] = s->dev_rel[g] = 0;
		whole_device(s, n, st, -1);
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Names node n's first devices after the distinct gpuGroups of its running shared pods. */
static void name_devices(tph_kai_session *s, uint32_t n, const uint32_t *tasks, uint32_t nt)
{
	uint32_t lo = s->dev_first[n], hi = s->dev_first[n + 1], used = lo;
	for (uint32_t i = 0; i < nt; i++) {
		const char *name = s->v->tasks.gpu_group[tasks[i]];
		bool seen = false;
		for (uint32_t g = lo; g < used && !seen; g++)
			seen = strcmp(s->dev_group[g], name) == 0;
		if (!seen && *name && used < hi)
			s->dev_group[used++] = name;
	}
	qsort(s->dev_group + lo, used - lo, sizeof *s->dev_group, by_name);
}

/* Running shared pods grouped by node (a counting sort), so each node's devices are named once. */
static int name_all(tph_kai_session *s)
{
	const tph_kai_view *v = s->v;
	uint32_t nn = v->nodes.n, nt = v->tasks.n;
	uint32_t *first = tph_calloc((size_t)nn + 2, sizeof *first);
	uint32_t *by_node = tph_calloc((size_t)nt + 1, sizeof *by_node);
	int rc = first && by_node ? TPH_OK : TPH_ENOMEM;
	for (uint32_t t = 0; rc == TPH_OK && t < nt; t++)
		if (s->node[t] >= 0 && tph_kai_active_used(s->status[t]) &&
		    tph_kai_gpu_shared(s, t))
			first[s->node[t] + 2]++;
	for (uint32_t n = 0; rc == TPH_OK && n < nn; n++)
		first[n + 2] += first[n + 1];
	for (uint32_t t = 0; rc == TPH_OK && t < nt; t++)
		if (s->node[t] >= 0 && tph_kai_active_used(s->status[t]) &&
		    tph_kai_gpu_shared(s, t))
			by_node[first[s->node[t] + 1]++] = t;
	for (uint32_t n = 0; rc == TPH_OK && n < nn; n++)
		name_devices(s, n, by_node + first[n], first[n + 1] - first[n]);
	tph_free(first);
	tph_free(by_node);
	return rc;
}

int tph_kai_gpu_build(tph_kai_session *s)
{
	const tph_kai_view *v = s->v;
	uint32_t nn = v->nodes.n, nt = v->tasks.n;
	s->dev_first = tph_calloc((size_t)nn + 1, sizeof *s->dev_first);
	s->task_dev = tph_calloc((size_t)nt + 1, sizeof *s->task_dev);
	if (!s->dev_first || !s->task_dev)
		return TPH_ENOMEM;
	for (uint32_t n = 0; n < nn; n++)
		s->dev_first[n + 1] =
		    s->dev_first[n] + (uint32_t)(v->nodes.gpus[n] > 0 ? v->nodes.gpus[n] : 0);
	for (uint32_t t = 0; t < nt; t++)
		s->task_dev[t] = -1;
	s->dev_used = tph_calloc((size_t)s->dev_first[nn] + 1, sizeof *s->dev_used);
	s->dev_rel = tph_calloc((size_t)s->dev_first[nn] + 1, sizeof *s->dev_rel);
	s->dev_group = tph_calloc((size_t)s->dev_first[nn] + 1, sizeof *s->dev_group);
	if (!s->dev_used || !s->dev_rel || !s->dev_group)
		return TPH_ENOMEM;
	return name_all(s);
}

void tph_kai_gpu_free(tph_kai_session *s)
{
	tph_free(s->dev_first);
	tph_free(s->dev_used);
	tph_free(s->dev_rel);
	tph_free(s->dev_group);
	tph_free(s->task_dev);
}

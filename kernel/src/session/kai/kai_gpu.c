/* KAI's shared GPUs (api/node_info/gpu_sharing_node_info.go, gpu_sharing/gpuSharing.go): a
 * fractional or gpu-memory pod sits on `gpu_devices` devices of its node, each shared with other
 * such pods while their memory fits the device. Per device KAI keeps three memory figures (used,
 * allocated, releasing) and moves one whole GPU of the node's idle and releasing vectors when a
 * device starts or stops being used; the rules below are KAI's, case by case. Devices are a
 * node's slots dev_first[n] .. dev_first[n + 1], two per GPU; those named by running pods'
 * gpuGroups come first, by name (kai-format.md "Fallback orders"). Choosing devices is
 * kai_gpu_pick.c. */
#include "kai_int.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

bool tph_kai_gpu_shared(const tph_kai_session *s, uint32_t t)
{
	const tph_kai_tasks *k = &s->v->tasks;
	return k->gpu_fraction[t] > 0 || k->gpu_memory_mib[t] > 0;
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

/* KAI's getNumberOfUsedGPUs: whole GPUs of other pods plus devices with used memory. */
static int used_gpus(const tph_kai_session *s, uint32_t n)
{
	int c = (int)s->gpu_used[n];
	for (uint32_t g = s->dev_first[n]; g < s->dev_first[n + 1]; g++)
		c += s->dev_used[g] > 0;
	return c;
}

/* KAI skips touching idle when the node's count already holds every used device. */
static bool idle_overcounts(const tph_kai_session *s, uint32_t n, const double *idle)
{
	return s->v->nodes.gpus[n] < (int)*idle + used_gpus(s, n);
}

static void mark(tph_kai_session *s, uint32_t g, double *rel, int sign)
{
	*rel += sign;
	if (sign > 0)
		s->dev_flags[g] |= KAI_DEV_MARKED;
	else
		s->dev_flags[g] &= (uint8_t)~KAI_DEV_MARKED;
}

static void device_add(tph_kai_session *s, uint32_t n, uint32_t g, int64_t m, uint8_t st)
{
	double *idle = &s->idle[(size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU];
	double *rel = &s->releasing[(size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU];
	bool marked = s->dev_flags[g] & KAI_DEV_MARKED;
	s->dev_used[g] += m;
	if (st == TPH_KAI_TS_PIPELINED) {
		s->dev_rel[g] -= m;
		/* the device was free or all releasing: the pod claims that releasing GPU */
		if (s->dev_used[g] - m == s->dev_rel[g] + m)
			*rel -= 1;
		return;
	}
	s->dev_alloc[g] += m;
	s->dev_flags[g] |= KAI_DEV_SEEN;
	if (st == TPH_KAI_TS_RELEASING) {
		s->dev_rel[g] += m;
		if (s->dev_used[g] != s->dev_rel[g])
			return;
		if (!marked)
			mark(s, g, rel, +1);
		if (idle_overcounts(s, n, idle))
			*idle -= 1;
		return;
	}
	if (s->dev_used[g] <= m && idle_overcounts(s, n, idle))
		*idle -= 1;
	if (marked)
		mark(s, g, rel, -1);
}

static bool releasing_from_shared(const tph_kai_session *s, uint32_t g)
{
	return s->dev_used[g] != 0 && s->dev_rel[g] == s->dev_used[g];
}

static void device_remove(tph_kai_session *s, uint32_t n, uint32_t g, int64_t m, uint8_t st)
{
	double *idle = &s->idle[(size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU];
	double *rel = &s->releasing[(size_t)n * TPH_KAI_DIMS + TPH_KAI_GPU];
	s->dev_used[g] -= m;
	if (st == TPH_KAI_TS_PIPELINED) {
		s->dev_rel[g] += m;
		bool was_all_releasing = s->dev_used[g] + m == s->dev_rel[g] - m;
		if (was_all_releasing || (s->dev_used[g] == 0 && s->dev_rel[g] == 0))
			*rel += 1;
		return;
	}
	s->dev_alloc[g] -= m;
	if (st == TPH_KAI_TS_RELEASING)
		s->dev_rel[g] -= m;
	if (s->dev_used[g] <= 0 && !idle_overcounts(s, n, idle))
		*idle += 1;
	if (st == TPH_KAI_TS_RELEASING) {
		if (s->dev_used[g] <= 0 && (s->dev_flags[g] & KAI_DEV_MARKED))
			mark(s, g, rel, -1);
		return;
	}
	if (releasing_from_shared(s, g) && !(s->dev_flags[g] & KAI_DEV_MARKED))
		mark(s, g, rel, +1);
}

/* KAI's GetResourceGpuMemory: the memory asked, or the fraction of the node's device memory. */
int64_t tph_kai_gpu_memory(const tph_kai_session *s, uint32_t t, uint32_t n)
{
	const tph_kai_tasks *k = &s->v->tasks;
	if (k->gpu_memory_mib[t] > 0)
		return k->gpu_memory_mib[t];
	return (int64_t)(k->gpu_fraction[t] * (double)s->v->nodes.gpu_memory_mib[n]);
}

/* A device by its gpuGroups name on node n, -1 when no running pod named it. */
static int32_t named(const tph_kai_session *s, uint32_t n, const char *name)
{
	for (uint32_t g = s->dev_first[n]; g < s->dev_first[n + 1]; g++)
		if (s->dev_group[g] && strcmp(s->dev_group[g], name) == 0)
			return (int32_t)g;
	return -1;
}

/* The devices task t takes on n: where the snapshot placed it, its gpuGroups (not for a victim
 * the solver re-places: they name where it was); put back after a status change, the ones it
 * left; else KAI's choice. */
static uint32_t devices_for(tph_kai_session *s, uint32_t t, uint32_t n, int32_t *out)
{
	const tph_kai_tasks *k = &s->v->tasks;
	uint32_t c = 0, want = s->task_dev_first[t + 1] - s->task_dev_first[t];
	if (s->gpu_keep)
		return s->task_n_dev[t];
	if (k->node[t] == (int32_t)n && tph_kai_active_used(k->status[t]) && k->gpu_groups[t].n &&
	    !s->virt[t]) {
		for (uint32_t i = 0; i < k->gpu_groups[t].n && c < want; i++)
			if ((out[c] = named(s, n, k->gpu_groups[t].items[i])) >= 0)
				c++;
		return c;
	}
	bool releasing;
	int32_t got = tph_kai_gpu_pick(s, t, n, out, &releasing);
	return got < 0 ? 0 : (uint32_t)got;
}

/* A device no pod uses becomes a new GPU group (KAI: a fresh UUID): no name, no history. */
static void fresh(tph_kai_session *s, uint32_t g)
{
	s->dev_flags[g] = 0;
	s->dev_alloc[g] = s->dev_rel[g] = 0;
	s->dev_group[g] = NULL;
}

void tph_kai_gpu_take(tph_kai_session *s, uint32_t t, uint32_t n, uint8_t st, int sign)
{
	int32_t *devs = s->task_devs + s->task_dev_first[t];
	int64_t m = tph_kai_gpu_memory(s, t, n);
	if (sign < 0) {
		for (uint32_t i = 0; i < s->task_n_dev[t]; i++)
			device_remove(s, n, (uint32_t)devs[i], m, st);
		s->task_n_dev[t] = s->gpu_keep ? s->task_n_dev[t] : 0;
		return;
	}
	bool placed_here = s->v->tasks.node[t] == (int32_t)n;
	uint32_t c = devices_for(s, t, n, devs);
	/* too few: over-committed, KAI's ledger has no room for it either */
	for (uint32_t i = 0; i < c; i++) {
		/* a device the snapshot names, or kept across a status change, keeps its identity
		 */
		bool named_here = placed_here && s->dev_group[devs[i]];
		if (s->dev_used[devs[i]] == 0 && !s->gpu_keep && !named_here)
			fresh(s, (uint32_t)devs[i]);
		device_add(s, n, (uint32_t)devs[i], m, st);
	}
	s->task_n_dev[t] = c;
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
		const tph_str_list *l = &s->v->tasks.gpu_groups[tasks[i]];
		for (uint32_t k = 0; k < l->n; k++) {
			bool seen = !*l->items[k];
			for (uint32_t g = lo; g < used && !seen; g++)
				seen = strcmp(s->dev_group[g], l->items[k]) == 0;
			if (!seen && used < hi)
				s->dev_group[used++] = l->items[k];
		}
	}
	qsort(s->dev_group + lo, used - lo, sizeof *s->dev_group, by_name);
}

static bool placed_shared(const tph_kai_session *s, uint32_t t)
{
	return s->node[t] >= 0 && tph_kai_active_used(s->status[t]) && tph_kai_gpu_shared(s, t);
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
		if (placed_shared(s, t))
			first[s->node[t] + 2]++;
	for (uint32_t n = 0; rc == TPH_OK && n < nn; n++)
		first[n + 2] += first[n + 1];
	for (uint32_t t = 0; rc == TPH_OK && t < nt; t++)
		if (placed_shared(s, t))
			by_node[first[s->node[t] + 1]++] = t;
	for (uint32_t n = 0; rc == TPH_OK && n < nn; n++)
		name_devices(s, n, by_node + first[n], first[n + 1] - first[n]);
	tph_free(first);
	tph_free(by_node);
	return rc;
}

static int alloc_devices(tph_kai_session *s, uint32_t n_dev)
{
	s->dev_used = tph_calloc((size_t)n_dev + 1, sizeof *s->dev_used);
	s->dev_alloc = tph_calloc((size_t)n_dev + 1, sizeof *s->dev_alloc);
	s->dev_rel = tph_calloc((size_t)n_dev + 1, sizeof *s->dev_rel);
	s->dev_flags = tph_calloc((size_t)n_dev + 1, sizeof *s->dev_flags);
	s->dev_group = tph_calloc((size_t)n_dev + 1, sizeof *s->dev_group);
	return s->dev_used && s->dev_alloc && s->dev_rel && s->dev_flags && s->dev_group
	           ? TPH_OK
	           : TPH_ENOMEM;
}

/* Two slots per GPU: KAI's devices are group names, and a GPU whose shared pods are all leaving
 * can already be promised whole to a new group. Returns the widest node's count, 0 when the
 * total would not fit a device index. */
static uint32_t slot_devices(tph_kai_session *s)
{
	const tph_kai_view *v = s->v;
	uint64_t total = 0, widest = 0;
	for (uint32_t n = 0; n < v->nodes.n; n++) {
		uint64_t c = 2 * (uint64_t)(v->nodes.gpus[n] > 0 ? v->nodes.gpus[n] : 0);
		widest = c > widest ? c : widest;
		total += c;
		if (total >= INT32_MAX)
			return 0;
		s->dev_first[n + 1] = (uint32_t)total;
	}
	return (uint32_t)widest + 1;
}

/* A shared task's room for devices: its device count, never more than a node has. */
static void slot_tasks(tph_kai_session *s, uint32_t widest)
{
	const tph_kai_tasks *k = &s->v->tasks;
	for (uint32_t t = 0; t < k->n; t++) {
		uint32_t want = tph_kai_gpu_shared(s, t) ? (uint32_t)k->gpu_devices[t] : 0;
		s->task_dev_first[t + 1] = s->task_dev_first[t] + (want < widest ? want : widest);
	}
}

int tph_kai_gpu_build(tph_kai_session *s)
{
	uint32_t nn = s->v->nodes.n, nt = s->v->tasks.n;
	s->dev_first = tph_calloc((size_t)nn + 1, sizeof *s->dev_first);
	s->gpu_used = tph_calloc((size_t)nn + 1, sizeof *s->gpu_used);
	s->task_dev_first = tph_calloc((size_t)nt + 1, sizeof *s->task_dev_first);
	s->task_n_dev = tph_calloc((size_t)nt + 1, sizeof *s->task_n_dev);
	if (!s->dev_first || !s->gpu_used || !s->task_dev_first || !s->task_n_dev)
		return TPH_ENOMEM;
	uint32_t widest = slot_devices(s);
	if (!widest)
		return TPH_ENOMEM;
	slot_tasks(s, widest);
	s->task_devs = tph_calloc((size_t)s->task_dev_first[nt] + 1, sizeof *s->task_devs);
	s->gpu_cands = tph_kai_gpu_cands_alloc(widest);
	if (!s->task_devs || !s->gpu_cands || alloc_devices(s, s->dev_first[nn]) != TPH_OK)
		return TPH_ENOMEM;
	return name_all(s);
}

void tph_kai_gpu_free(tph_kai_session *s)
{
	tph_free(s->dev_first);
	tph_free(s->dev_used);
	tph_free(s->dev_alloc);
	tph_free(s->dev_rel);
	tph_free(s->dev_flags);
	tph_free(s->dev_group);
	tph_free(s->gpu_used);
	tph_free(s->task_dev_first);
	tph_free(s->task_n_dev);
	tph_free(s->task_devs);
	tph_free(s->gpu_order.items);
	tph_free(s->gpu_cands);
}

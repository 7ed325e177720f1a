/* The MIG part of a KAI snapshot: every MIG profile (a resource named nvidia.com/mig-*) that a
 * node offers or a pod requests becomes a column of node allocatable and pod request, which
 * the session's ledger fits as KAI's resource vector does (api/resource_info: the vector map
 * holds every MIG resource of the cluster). Each profile also counts as GPUs in KAI's queue
 * and solver accounting (ResourceVector.TotalGPUs, GetGpusQuota), summed here once per node
 * and per pod. */
#include "kai_snap.h"

#include <string.h>

#define MIG_PREFIX "nvidia.com/mig-"

static bool is_mig(const char *name)
{
	return strncmp(name, MIG_PREFIX, sizeof MIG_PREFIX - 1) == 0;
}

static int32_t find(const char *const *names, uint32_t n, const char *name)
{
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return (int32_t)i;
	return -1;
}

/* Add l's MIG names not seen yet; names has room for every item of every list. */
static void collect(const tph_res_list *l, const char **names, uint32_t *n)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (is_mig(l->items[i].name) && find(names, *n, l->items[i].name) < 0)
			names[(*n)++] = l->items[i].name;
}

/* KAI's ExtractGpuAndMemoryFromMigResourceName: the g and m of nvidia.com/mig-<g>g.<m>gb; a
 * name of another form counts as neither (KAI logs it and skips it). */
static void profile_parse(const char *name, double *gpus, double *gb)
{
	const char *c = name + sizeof MIG_PREFIX - 1;
	uint32_t g = 0, m = 0, digits = 0, mem_digits = 0;
	*gpus = *gb = 0;
	for (; *c >= '0' && *c <= '9' && digits < 9; c++, digits++)
		g = g * 10 + (uint32_t)(*c - '0');
	if (!digits || strncmp(c, "g.", 2) != 0)
		return;
	for (c += 2; *c >= '0' && *c <= '9' && mem_digits < 9; c++, mem_digits++)
		m = m * 10 + (uint32_t)(*c - '0');
	if (mem_digits && strcmp(c, "gb") == 0)
		*gpus = (double)g, *gb = (double)m;
}

/* GPUs of each row of instances: sum over profiles of count x the profile's g. */
static double *row_gpus(tph_arena *a, const int64_t *rows, uint32_t n_rows, const double *g,
                        uint32_t n)
{
	double *out = tph_arena_calloc(a, (size_t)n_rows + 1, sizeof *out, 8);
	for (uint32_t i = 0; out && n && i < n_rows; i++)
		for (uint32_t p = 0; p < n; p++)
			out[i] += (double)rows[(size_t)i * n + p] * g[p];
	return out;
}

/* Quantities are milli-units; MIG instances are counted whole. */
static void fill(const tph_res_list *l, const char *const *names, uint32_t n, int64_t *row)
{
	for (uint32_t i = 0; i < l->n; i++) {
		int32_t p = is_mig(l->items[i].name) ? find(names, n, l->items[i].name) : -1;
		if (p >= 0)
			row[p] += l->items[i].value / 1000;
	}
}

/* A legacy MIG pod (pod_info.updateLegacyMigResourceRequestFromAnnotations): the annotation
 * sets its profile's count in the request vector, beside what the containers request, but its
 * GPU requirement, which GetGpusQuota counts, holds the annotation's profile alone. */
static void fill_legacy(const tph_kai_pod_desc *k, const char *const *names, uint32_t n,
                        const double *g, int64_t *row, double *gpus)
{
	int32_t p = find(names, n, k->legacy_mig);
	row[p] = k->legacy_mig_count;
	*gpus = (double)k->legacy_mig_count * g[p];
}

/* KAI's AddTasksToNode adds active-used pods only; a legacy one marks its node for good. */
static int legacy_nodes(tph_arena *a, const tph_kai_cluster_desc *c, tph_kai_nodes *nd,
                        tph_kai_tasks *t)
{
	uint8_t *on = tph_arena_calloc(a, (size_t)c->n_nodes + 1, 1, 8);
	uint8_t *legacy = tph_arena_calloc(a, (size_t)c->n_pods + 1, 1, 8);
	if (!on || !legacy)
		return TPH_ENOMEM;
	for (uint32_t i = 0; c->kai_pods && i < c->n_pods; i++) {
		uint8_t st = t->status[i];
		bool active = st >= TPH_KAI_TS_ALLOCATED && st <= TPH_KAI_TS_STUCK_RELEASING;
		legacy[i] = c->kai_pods[i].legacy_mig != NULL;
		if (legacy[i] && active && t->node[i] >= 0)
			on[t->node[i]] = 1;
	}
	nd->legacy_mig = on, t->legacy_mig = legacy;
	return TPH_OK;
}

/* Every MIG name of the cluster: node allocatable, pod requests, legacy annotations. */
static const char **collect_all(tph_arena *a, const tph_kai_cluster_desc *c, uint32_t *n)
{
	size_t room = 1 + c->n_pods;
	for (uint32_t i = 0; i < c->n_nodes; i++)
		room += c->nodes[i].allocatable.n;
	for (uint32_t i = 0; i < c->n_pods; i++)
		room += c->pods[i].requests.n;
	const char **names = tph_arena_calloc(a, room, sizeof *names, 8);
	*n = 0;
	for (uint32_t i = 0; names && i < c->n_nodes; i++)
		collect(&c->nodes[i].allocatable, names, n);
	for (uint32_t i = 0; names && i < c->n_pods; i++) {
		const char *legacy = c->kai_pods ? c->kai_pods[i].legacy_mig : NULL;
		collect(&c->pods[i].requests, names, n);
		if (legacy && find(names, *n, legacy) < 0)
			names[(*n)++] = legacy;
	}
	return names;
}

int tph_kai_snap_mig(tph_arena *a, const tph_kai_cluster_desc *c, tph_kai_nodes *nd,
                     tph_kai_tasks *t, tph_diag *d)
{
	uint32_t n;
	const char **names = collect_all(a, c, &n);
	int64_t *alloc = tph_arena_calloc(a, (size_t)c->n_nodes * n + 1, sizeof *alloc, 8);
	int64_t *req = tph_arena_calloc(a, (size_t)c->n_pods * n + 1, sizeof *req, 8);
	double *g = tph_arena_calloc(a, (size_t)n + 1, sizeof *g, 8);
	double *gb = tph_arena_calloc(a, (size_t)n + 1, sizeof *gb, 8);
	if (!names || !alloc || !req || !g || !gb)
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	for (uint32_t p = 0; p < n; p++)
		profile_parse(names[p], &g[p], &gb[p]);
	/* The descriptors are borrowed; the view keeps copies of the names. */
	const char **kept = tph_arena_calloc(a, (size_t)n + 1, sizeof *kept, 8);
	for (uint32_t p = 0; kept && p < n; p++)
		if (!(kept[p] = tph_arena_strndup(a, names[p], strlen(names[p]))))
			kept = NULL;
	if (!kept)
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	for (uint32_t i = 0; n && i < c->n_nodes; i++)
		fill(&c->nodes[i].allocatable, names, n, alloc + (size_t)i * n);
	for (uint32_t i = 0; n && i < c->n_pods; i++)
		fill(&c->pods[i].requests, names, n, req + (size_t)i * n);
	nd->n_mig = n, nd->mig_names = kept, nd->mig_alloc = alloc, nd->mig_profile_gpus = g;
	nd->mig_profile_gb = gb;
	nd->mig_gpus = row_gpus(a, alloc, c->n_nodes, g, n);
	t->mig_request = req;
	double *pod_gpus = row_gpus(a, req, c->n_pods, g, n);
	t->mig_gpus = pod_gpus;
	if (!nd->mig_gpus || !pod_gpus || legacy_nodes(a, c, nd, t) < 0)
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	for (uint32_t i = 0; i < c->n_pods; i++)
		if (t->legacy_mig[i])
			fill_legacy(&c->kai_pods[i], names, n, g, req + (size_t)i * n,
			            &pod_gpus[i]);
	return TPH_OK;
}

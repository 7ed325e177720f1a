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

/* KAI's ExtractGpuAndMemoryFromMigResourceName: the g of nvidia.com/mig-<g>g.<m>gb; a name of
 * another form counts as no GPU (KAI logs it and skips it). */
static double profile_gpus(const char *name)
{
	const char *c = name + sizeof MIG_PREFIX - 1;
	uint32_t g = 0, digits = 0, mem_digits = 0;
	for (; *c >= '0' && *c <= '9' && digits < 9; c++, digits++)
		g = g * 10 + (uint32_t)(*c - '0');
	if (!digits || strncmp(c, "g.", 2) != 0)
		return 0;
	for (c += 2; *c >= '0' && *c <= '9' && mem_digits < 9; c++)
		mem_digits++;
	return mem_digits && strcmp(c, "gb") == 0 ? (double)g : 0;
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

int tph_kai_snap_mig(tph_arena *a, const tph_kai_cluster_desc *c, tph_kai_nodes *nd,
                     tph_kai_tasks *t, tph_diag *d)
{
	size_t room = 1;
	for (uint32_t i = 0; i < c->n_nodes; i++)
		room += c->nodes[i].allocatable.n;
	for (uint32_t i = 0; i < c->n_pods; i++)
		room += c->pods[i].requests.n;
	const char **names = tph_arena_calloc(a, room, sizeof *names, 8);
	if (!names)
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->n_nodes; i++)
		collect(&c->nodes[i].allocatable, names, &n);
	for (uint32_t i = 0; i < c->n_pods; i++)
		collect(&c->pods[i].requests, names, &n);
	int64_t *alloc = tph_arena_calloc(a, (size_t)c->n_nodes * n + 1, sizeof *alloc, 8);
	int64_t *req = tph_arena_calloc(a, (size_t)c->n_pods * n + 1, sizeof *req, 8);
	if (!alloc || !req)
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	for (uint32_t i = 0; n && i < c->n_nodes; i++)
		fill(&c->nodes[i].allocatable, names, n, alloc + (size_t)i * n);
	for (uint32_t i = 0; n && i < c->n_pods; i++)
		fill(&c->pods[i].requests, names, n, req + (size_t)i * n);
	double *g = tph_arena_calloc(a, (size_t)n + 1, sizeof *g, 8);
	if (!g)
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	for (uint32_t p = 0; p < n; p++)
		g[p] = profile_gpus(names[p]);
	nd->n_mig = n, nd->mig_names = names, nd->mig_alloc = alloc, nd->mig_profile_gpus = g;
	nd->mig_gpus = row_gpus(a, alloc, c->n_nodes, g, n);
	t->mig_request = req;
	t->mig_gpus = row_gpus(a, req, c->n_pods, g, n);
	if (!nd->mig_gpus || !t->mig_gpus)
		return tph_diag_set(d, TPH_ENOMEM, "kai snapshot: out of memory");
	return TPH_OK;
}

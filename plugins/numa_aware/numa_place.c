/* One task on one node, as Volcano's numaaware predicateFn decides it: filterNodeByPolicy, the
 * CPU manager's topology hints (provider/cpumanager GetTopologyHints), the node's topology
 * manager policy merging them (policy/policy.go and one file per policy) and the CPU assignment
 * (cpuMng.Allocate). A pod is one container here (scenario pods carry one request row), so the
 * per-container loop runs once. Pure: per-node callbacks call it from several threads. */
#include "numa_aware.h"

#include <string.h>

/* A merged hint: a mask of NUMA ids and whether it is preferred. */
typedef struct hint {
	uint64_t mask;
	bool pref;
} hint;

/* bitmask.IsNarrowerThan: fewer bits, or as many and a smaller number. */
static bool narrower(uint64_t a, uint64_t b)
{
	int ca = __builtin_popcountll(a), cb = __builtin_popcountll(b);
	return ca == cb ? a < b : ca < cb;
}

/* mergeFilteredHints' step for one hint of the (single) provider: its mask is ANDed with the
 * default affinity, an empty result is skipped, preferred beats not preferred, then narrower. */
static void merge(hint *best, uint64_t all, hint h)
{
	h.mask &= all;
	if (!h.mask || (!h.pref && best->pref))
		return;
	if ((h.pref && !best->pref) || narrower(h.mask, best->mask))
		*best = h;
}

/* generateCPUTopologyHints merged as the policy merges them: every NUMA mask in
 * bitmask.IterateBitMasks order (by size, then lexicographically) that holds `request` free
 * CPUs is a hint, preferred when its size is the least that could hold the request. The hints
 * go through the policy's filter (single-numa-node keeps preferred single-node ones) and into
 * mergeFilteredHints one by one. No hint at all leaves the initial {default, false}. */
static hint merge_masks(const numa_node *nd, int64_t request)
{
	const uint32_t *cnt = nd->avail;
	uint32_t idx[TPH_NUMA_MAX_NODES];
	hint best = {nd->all_numa, false};
	uint32_t min_aff = nd->k;
	for (uint32_t sz = 1; sz < nd->k; sz++)
		if (nd->most_cpus[sz] >= request) {
			min_aff = sz;
			break;
		}
	for (uint32_t sz = 1; sz <= nd->k; sz++) {
		for (uint32_t j = 0; j < sz; j++)
			idx[j] = j;
		for (;;) {
			uint64_t mask = 0, matching = 0;
			for (uint32_t j = 0; j < sz; j++) {
				mask |= 1ull << nd->numa_id[idx[j]];
				matching += cnt[idx[j]];
			}
			bool pref = sz == min_aff;
			if ((int64_t)matching >= request &&
			    (nd->policy != NP_SINGLE || (pref && sz == 1)))
				merge(&best, nd->all_numa, (hint){mask, pref});
			int32_t j = (int32_t)sz - 1;
			while (j >= 0 && idx[j] == nd->k - sz + (uint32_t)j)
				j--;
			if (j < 0)
				break;
			idx[j]++;
			for (uint32_t m = (uint32_t)j + 1; m < sz; m++)
				idx[m] = idx[m - 1] + 1;
		}
	}
	return best;
}

/* cpuMng.Allocate: CPUs on the hint's NUMA nodes first (when the policy gave a mask), the rest
 * anywhere; a failure of either take leaves the container with no CPU. */
static void allocate(const numa_node *nd, int64_t request, bool has_mask, uint64_t mask,
                     numa_cpus *out)
{
	uint64_t avail[NUMA_WORDS], set[NUMA_WORDS], rest[NUMA_WORDS];
	memset(out, 0, sizeof *out);
	for (uint32_t k = 0; k < nd->words; k++)
		avail[k] = nd->free[k] & ~nd->reserved[k];
	if (has_mask) {
		memset(set, 0, sizeof set);
		for (uint32_t i = 0; i < nd->nc; i++)
			if (((avail[i / 64] >> (i % 64)) & 1) &&
			    ((mask >> nd->numa_id[nd->npos[i]]) & 1))
				set[i / 64] |= 1ull << (i % 64);
		int64_t aligned = numa_count(set, nd->words);
		if (!numa_take(nd, set, request < aligned ? request : aligned, out->w))
			return;
	}
	for (uint32_t k = 0; k < nd->words; k++)
		avail[k] &= ~out->w[k];
	if (!numa_take(nd, avail, request - numa_count(out->w, nd->words), rest)) {
		memset(out, 0, sizeof *out);
		return;
	}
	for (uint32_t k = 0; k < nd->words; k++)
		out->w[k] |= rest[k];
}

/* filterNodeByPolicy: a task with a policy needs the node's Numatopology, the static CPU
 * manager, the same topology policy and a free CPU (errors, which fail the node); a task
 * without one is left alone (no assignment) unless the node is active. */
static tph_reason_code filter(const numa_st *g, const numa_node *nd, uint16_t tp, bool *go_on)
{
	*go_on = false;
	if (!tp) {
		*go_on = nd && nd->active;
		return TPH_PASS;
	}
	if (!nd)
		return g->r_no_info;
	if (!nd->is_static)
		return g->r_not_static;
	if (g->task_pol[tp] != nd->tm)
		return g->r_policy ? g->r_policy[(size_t)tp * g->n_node_pol + nd->tm_index]
		                   : g->r_policy_any;
	if (!nd->has_cpu || !nd->n_free)
		return g->r_no_cpu;
	*go_on = true;
	return TPH_PASS;
}

tph_reason_code numa_place(const numa_st *g, tph_idx t, tph_idx n, bool *record, numa_cpus *cpus)
{
	*record = false;
	if (!g->guaranteed[t])
		return TPH_PASS;
	const numa_node *nd = g->node[n];
	bool go_on;
	tph_reason_code why = filter(g, nd, g->tpol[t], &go_on);
	if (!go_on)
		return why;
	int64_t request = g->req_cpus[t];
	/* GetTopologyHints returns nil (one preferred any-NUMA hint) for a fractional request and
	 * for a node without a cpu entry in numares. */
	bool nil = request == 0 || !nd->has_cpu;
	hint best = nd->policy == NP_NONE ? (hint){0, true}
	            : nil                 ? (hint){nd->all_numa, nd->all_numa != 0}
	                                  : merge_masks(nd, request);
	if ((nd->policy == NP_RESTRICTED || nd->policy == NP_SINGLE) && !best.pref)
		return g->r_admit;
	if (cpus)
		allocate(nd, request, nd->policy != NP_NONE, best.mask, cpus);
	*record = true;
	return TPH_PASS;
}

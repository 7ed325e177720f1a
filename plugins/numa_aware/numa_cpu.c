/* A node's CPU tables, built once at open from its Numatopology, and takeByTopology: the copy of
 * the kubelet's CPU accumulator in Volcano's numaaware/provider/cpumanager/cpu_assignment.go,
 * quirks included (a "free socket" is a socket id that is also a free CPU id, a "free core" a
 * core id that is also one, and a core id names the CPUs of every socket that reuses it). */
#include "numa_aware.h"

#include "lib/gosort.h"

#include <stdlib.h>
#include <string.h>

#define MAXC TPH_NUMA_MAX_CPUS

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* Sort and dedupe v[0..n); returns the distinct count. */
static uint32_t distinct(int32_t *v, uint32_t n)
{
	qsort(v, n, sizeof *v, cmp_i32);
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

/* Position of x in the ascending v[0..n), or -1. */
static int32_t find(const int32_t *v, uint32_t n, int32_t x)
{
	const int32_t *p = bsearch(&x, v, n, sizeof *v, cmp_i32);
	return p ? (int32_t)(p - v) : -1;
}

static inline bool has(const uint64_t *w, uint32_t i)
{
	return (w[i / 64] >> (i % 64)) & 1;
}

static inline void put(uint64_t *w, uint32_t i)
{
	w[i / 64] |= 1ull << (i % 64);
}

/* ---- the accumulator ---- */

typedef struct acc {
	const numa_node *nd;
	uint64_t details[NUMA_WORDS]; /* CPUs still free to take */
	uint64_t *result;
	int64_t need;
} acc;

/* take(cpus): into the result, out of the details. */
static void take(acc *a, const uint64_t *cpus)
{
	for (uint32_t k = 0; k < a->nd->words; k++) {
		a->result[k] |= cpus[k];
		a->details[k] &= ~cpus[k];
	}
	a->need -= numa_count(cpus, a->nd->words);
}

/* The free CPUs whose position in `pos` (spos or cpos) is p. */
static void cpus_at(const acc *a, const uint16_t *pos, uint32_t p, uint64_t *out)
{
	memset(out, 0, a->nd->words * sizeof *out);
	for (uint32_t i = 0; i < a->nd->nc; i++)
		if (pos[i] == p && has(a->details, i))
			put(out, i);
}

/* The id x is the id of a free CPU (the Intersection with details.CPUs()). */
static bool free_cpu_id(const acc *a, int32_t x)
{
	int32_t i = find(a->nd->id, a->nd->nc, x);
	return i >= 0 && has(a->details, (uint32_t)i);
}

/* freeSockets: details.Sockets() ∩ details.CPUs(), ascending. */
static uint32_t free_sockets(const acc *a, uint16_t *out)
{
	const numa_node *nd = a->nd;
	uint8_t seen[MAXC];
	uint32_t n = 0;
	memset(seen, 0, nd->n_sockets);
	for (uint32_t i = 0; i < nd->nc; i++)
		if (has(a->details, i))
			seen[nd->spos[i]] = 1;
	for (uint32_t p = 0; p < nd->n_sockets; p++)
		if (seen[p] && free_cpu_id(a, nd->socket_id[p]))
			out[n++] = (uint16_t)p;
	return n;
}

/* freeCores: per socket, CoresInSockets(s) ∩ details.CPUs(), ascending; the sockets by how many
 * such cores they have, then by id, as the function's comment says (its sort.Slice comparator
 * is no strict order and its input comes from a map: Volcano's order there is not fixed). */
static uint32_t free_cores(const acc *a, uint16_t *out)
{
	const numa_node *nd = a->nd;
	_Static_assert(MAXC <= UINT16_MAX, "core positions are uint16");
	uint16_t off[MAXC + 1], cnt[MAXC], list[MAXC];
	uint8_t mark[MAXC];
	uint32_t ns = 0, total = 0;
	for (uint32_t p = 0; p < nd->n_sockets; p++) {
		memset(mark, 0, nd->n_cores);
		bool any = false;
		for (uint32_t i = 0; i < nd->nc; i++)
			if (nd->spos[i] == p && has(a->details, i))
				mark[nd->cpos[i]] = 1, any = true;
		if (!any)
			continue;
		off[ns] = (uint16_t)total;
		for (uint32_t c = 0; c < nd->n_cores; c++)
			if (mark[c] && free_cpu_id(a, nd->core_id[c]))
				list[total++] = (uint16_t)c;
		cnt[ns] = (uint16_t)(total - off[ns]);
		ns++;
	}
	off[ns] = (uint16_t)total;
	uint16_t idx[MAXC];
	for (uint32_t s = 0; s < ns; s++) { /* stable insertion by count; ids already ascend */
		uint32_t j = s;
		for (; j > 0 && cnt[idx[j - 1]] > cnt[s]; j--)
			idx[j] = idx[j - 1];
		idx[j] = (uint16_t)s;
	}
	uint32_t n = 0;
	for (uint32_t s = 0; s < ns; s++)
		for (uint32_t k = off[idx[s]]; k < off[idx[s] + 1]; k++)
			out[n++] = list[k];
	return n;
}

/* freeCPUs' sort keys per core, fixed while the cores are sorted. */
typedef struct core_keys {
	uint16_t core[MAXC];
	int32_t colo[MAXC], sfree[MAXC], cfree[MAXC], sock[MAXC], id[MAXC];
} core_keys;

static bool keys_less(void *ctx, uint32_t i, uint32_t j)
{
	const core_keys *k = ctx;
	uint16_t a = k->core[i], b = k->core[j];
	return k->colo[a] > k->colo[b] || k->sfree[a] < k->sfree[b] || k->cfree[a] < k->cfree[b] ||
	       k->sock[a] < k->sock[b] || k->id[a] < k->id[b];
}

static void keys_swap(void *ctx, uint32_t i, uint32_t j)
{
	core_keys *k = ctx;
	uint16_t t = k->core[i];
	k->core[i] = k->core[j];
	k->core[j] = t;
}

/* freeCPUs: the free cores (details.Cores().List()) sorted by Go's sort.Slice with Volcano's
 * comparator, each core's free CPUs ascending. */
static uint32_t free_cpus(const acc *a, uint16_t *out)
{
	const numa_node *nd = a->nd;
	core_keys k;
	int32_t in_result[MAXC], sock_free[MAXC], core_free[MAXC];
	memset(in_result, 0, nd->n_sockets * sizeof *in_result);
	memset(sock_free, 0, nd->n_sockets * sizeof *sock_free);
	memset(core_free, 0, nd->n_cores * sizeof *core_free);
	for (uint32_t i = 0; i < nd->nc; i++) {
		in_result[nd->spos[i]] += has(a->result, i);
		sock_free[nd->spos[i]] += has(a->details, i);
		core_free[nd->cpos[i]] += has(a->details, i);
	}
	uint32_t n = 0;
	for (uint32_t c = 0; c < nd->n_cores; c++) {
		if (!core_free[c])
			continue;
		uint16_t s = nd->core_sock[c]; /* the socket of CPUsInCores(c).List()[0] */
		k.colo[c] = in_result[s];
		k.sfree[c] = sock_free[s];
		k.cfree[c] = core_free[c];
		k.sock[c] = nd->socket_id[s];
		k.id[c] = nd->core_id[c];
		k.core[n++] = (uint16_t)c;
	}
	go_sort_slice(&(go_less_swap){keys_less, keys_swap, &k}, n);
	uint32_t m = 0;
	for (uint32_t x = 0; x < n; x++)
		for (uint32_t i = 0; i < nd->nc; i++)
			if (nd->cpos[i] == k.core[x] && has(a->details, i))
				out[m++] = (uint16_t)i;
	return m;
}

/* Steps 1 and 2 of takeByTopology: whole units (sockets or cores) of `list`, each the free
 * CPUs at that position of `pos`, while at least `per` CPUs are needed. True when satisfied. */
static bool take_units(acc *a, const uint16_t *list, uint32_t n, const uint16_t *pos, uint32_t per)
{
	uint64_t set[NUMA_WORDS];
	for (uint32_t x = 0; x < n; x++) {
		cpus_at(a, pos, list[x], set);
		take(a, set);
		if (a->need < 1)
			return true;
		if (a->need < per)
			break;
	}
	return false;
}

bool numa_take(const numa_node *nd, const uint64_t *avail, int64_t need, uint64_t *out)
{
	acc a = {.nd = nd, .result = out, .need = need};
	memcpy(a.details, avail, nd->words * sizeof *avail);
	memset(out, 0, nd->words * sizeof *out);
	if (a.need < 1)
		return true;
	if (a.need > numa_count(a.details, nd->words))
		return false;
	uint16_t list[MAXC];
	if (a.need >= nd->per_socket &&
	    take_units(&a, list, free_sockets(&a, list), nd->spos, nd->per_socket))
		return true;
	if (a.need >= nd->per_core &&
	    take_units(&a, list, free_cores(&a, list), nd->cpos, nd->per_core))
		return true;
	uint32_t n = free_cpus(&a, list);
	for (uint32_t x = 0; x < n; x++) {
		if (a.need >= 1) {
			uint64_t set[NUMA_WORDS] = {0};
			put(set, list[x]);
			take(&a, set);
		}
		if (a.need < 1)
			return true;
	}
	memset(out, 0, nd->words * sizeof *out);
	return false;
}

/* ---- the node's tables ---- */

/* Positions of v[i] (i < n, stride 4 in rows) among the distinct values; returns the count. */
static uint32_t positions(tph_session *s, const tph_numa_cpu_row *r, uint32_t n, size_t field,
                          int32_t **ids, uint16_t **pos)
{
	int32_t *v = TPH_SESSION_NEW(s, int32_t, n + 1);
	*pos = TPH_SESSION_NEW(s, uint16_t, n + 1);
	if (!v || !*pos)
		return UINT32_MAX;
	for (uint32_t i = 0; i < n; i++)
		memcpy(&v[i], (const char *)&r[i] + field, sizeof *v);
	uint32_t m = distinct(v, n);
	for (uint32_t i = 0; i < n; i++) {
		int32_t x;
		memcpy(&x, (const char *)&r[i] + field, sizeof x);
		(*pos)[i] = (uint16_t)find(v, m, x);
	}
	*ids = v;
	return m;
}

static int cmp_desc_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x < y) - (x > y);
}

/* NUMA nodes, CPUs per NUMA node, and the most CPUs any s of them hold (CPUs of distinct NUMA
 * nodes are disjoint, so it is the s largest). */
static int numa_tables(tph_session *s, numa_node *nd, const tph_node_numa_row *row)
{
	int32_t *ids;
	uint16_t *pos;
	nd->k = positions(s, row->cpus, nd->nc, offsetof(tph_numa_cpu_row, numa), &ids, &pos);
	uint8_t *npos = TPH_SESSION_NEW(s, uint8_t, nd->nc + 1);
	if (nd->k == UINT32_MAX || !npos)
		return TPH_ENOMEM;
	uint32_t sorted[TPH_NUMA_MAX_NODES];
	for (uint32_t p = 0; p < nd->k; p++) {
		nd->numa_id[p] = ids[p];
		nd->all_numa |= 1ull << ids[p];
	}
	for (uint32_t i = 0; i < nd->nc; i++) {
		npos[i] = (uint8_t)pos[i];
		nd->numa_cpus[pos[i]]++;
	}
	memcpy(sorted, nd->numa_cpus, sizeof sorted);
	qsort(sorted, nd->k, sizeof *sorted, cmp_desc_u32);
	for (uint32_t sz = 1; sz <= nd->k; sz++)
		nd->most_cpus[sz] = nd->most_cpus[sz - 1] + sorted[sz - 1];
	nd->npos = npos;
	return TPH_OK;
}

/* Sockets, cores, and CPUTopology's NumCores: distinct socket/core pairs. */
static int core_tables(tph_session *s, numa_node *nd, const tph_node_numa_row *row)
{
	int32_t *sid, *cid;
	uint16_t *spos, *cpos;
	nd->n_sockets =
	    positions(s, row->cpus, nd->nc, offsetof(tph_numa_cpu_row, socket), &sid, &spos);
	nd->n_cores =
	    positions(s, row->cpus, nd->nc, offsetof(tph_numa_cpu_row, core), &cid, &cpos);
	uint16_t *core_sock = TPH_SESSION_NEW(s, uint16_t, nd->nc + 1);
	int32_t *pairs = TPH_SESSION_NEW(s, int32_t, nd->nc + 1);
	if (nd->n_sockets == UINT32_MAX || nd->n_cores == UINT32_MAX || !core_sock || !pairs)
		return TPH_ENOMEM;
	memset(core_sock, 0xff, (nd->nc + 1) * sizeof *core_sock);
	for (uint32_t i = 0; i < nd->nc; i++) {
		if (core_sock[cpos[i]] == UINT16_MAX)
			core_sock[cpos[i]] = spos[i];
		pairs[i] = (int32_t)(spos[i] * MAXC + cpos[i]);
	}
	uint32_t n_pairs = distinct(pairs, nd->nc);
	nd->per_socket = nd->n_sockets ? nd->nc / nd->n_sockets : 0;
	nd->per_core = n_pairs ? nd->nc / n_pairs : 0;
	nd->socket_id = sid, nd->core_id = cid;
	nd->spos = spos, nd->cpos = cpos, nd->core_sock = core_sock;
	return TPH_OK;
}

/* The allocatable cpuset over the node's CPUs (others counted in `unknown`), and the reserved
 * CPUs: ceil(resReserved cpu) taken by topology from every CPU, none when that fails. */
static int sets(tph_session *s, numa_node *nd, const tph_node_numa_row *row)
{
	int32_t *id = TPH_SESSION_NEW(s, int32_t, nd->nc + 1);
	nd->free = TPH_SESSION_NEW(s, uint64_t, nd->words + 1);
	nd->reserved = TPH_SESSION_NEW(s, uint64_t, nd->words + 1);
	if (!id || !nd->free || !nd->reserved)
		return TPH_ENOMEM;
	for (uint32_t i = 0; i < nd->nc; i++)
		id[i] = row->cpus[i].id;
	nd->id = id;
	for (uint32_t k = 0; k < row->n_cpu_alloc; k++) {
		int32_t i = find(id, nd->nc, row->cpu_alloc[k]);
		if (i < 0)
			nd->unknown++;
		else
			put(nd->free, (uint32_t)i);
	}
	uint64_t all[NUMA_WORDS] = {0};
	for (uint32_t i = 0; i < nd->nc; i++)
		put(all, i);
	if (!numa_take(nd, all, (row->reserved_cpu + 999) / 1000, nd->reserved))
		memset(nd->reserved, 0, nd->words * sizeof *nd->reserved);
	return TPH_OK;
}

/* The free CPUs (less the reserved ones) of each NUMA node; CPUs of the cpuset that cpuDetail
 * does not list read as NUMA node 0 (CPUDetails[c] is the zero CPUInfo). */
void numa_node_count(numa_node *nd)
{
	memset(nd->avail, 0, sizeof nd->avail);
	for (uint32_t i = 0; i < nd->nc; i++)
		if (((nd->free[i / 64] & ~nd->reserved[i / 64]) >> (i % 64)) & 1)
			nd->avail[nd->npos[i]]++;
	if (nd->k && nd->numa_id[0] == 0)
		nd->avail[0] += nd->unknown;
	nd->n_free = numa_count(nd->free, nd->words) + nd->unknown;
}

static uint8_t policy_of(const char *tm)
{
	return !strcmp(tm, "best-effort")        ? NP_BEST_EFFORT
	       : !strcmp(tm, "restricted")       ? NP_RESTRICTED
	       : !strcmp(tm, "single-numa-node") ? NP_SINGLE
	                                         : NP_NONE;
}

numa_node *numa_node_build(tph_session *s, const tph_node_numa_row *row)
{
	numa_node *nd = TPH_SESSION_NEW(s, numa_node, 1);
	if (!nd)
		return NULL;
	nd->nc = row->n_cpus;
	nd->words = (nd->nc + 63) / 64;
	if (numa_tables(s, nd, row) || core_tables(s, nd, row) || sets(s, nd, row))
		return NULL;
	const char *cm = tph_session_str(s, row->cpu_manager_policy);
	const char *tm = tph_session_str(s, row->topology_manager_policy);
	nd->tm = row->topology_manager_policy;
	nd->has_cpu = row->has_cpu;
	nd->is_static = cm && !strcmp(cm, "static");
	nd->policy = tm ? policy_of(tm) : NP_NONE;
	nd->active = nd->is_static && tm && *tm && strcmp(tm, "none");
	numa_node_count(nd);
	return nd;
}

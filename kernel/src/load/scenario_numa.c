/* A node's `numa:` (docs/format-numa.md): the spec of its Numatopology object, read strictly
 * (unknown keys, bad cpusets and ids out of the cache's bounds are located errors) into a
 * tph_node_numa that the cache validates again for hosts. */
#include "cache/cluster_int.h"
#include "scenario_ld.h"

#include <string.h>

static int f_i32_numa(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	return yu_i32(c, v, 0, TPH_NUMA_ID_MAX, dst);
}

static const yu_field cpu_fields[] = {
    YU_F("numa", f_i32_numa, tph_numa_cpu, numa, NULL, 0),
    YU_F("socket", yu_f_i32_nonneg, tph_numa_cpu, socket, NULL, 0),
    YU_F("core", yu_f_i32_nonneg, tph_numa_cpu, core, NULL, 0),
};

/* A mapping of mappings: per key one `size`-byte item, named from its key by `key`, then read
 * with `fields`. */
typedef int (*entry_key_fn)(yu_ctx *c, const yu_node *k, void *item);

static int entries(yu_ctx *c, const yu_node *v, size_t size, const yu_field *fields, size_t nf,
                   entry_key_fn key, void **items, uint32_t *n)
{
	int rc = yu_check_unique_keys(c, v);
	if (rc < 0)
		return rc;
	size_t cnt = yu_map_len(v);
	char *arr = yu_alloc_array(c->arena, cnt, size);
	if (!arr)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	*items = arr;
	*n = (uint32_t)cnt;
	for (size_t i = 0; i < cnt && rc == TPH_OK; i++) {
		yu_node *k = yu_at(c, v->u.pairs[i].key), *item = yu_at(c, v->u.pairs[i].value);
		if ((rc = key(c, k, arr + i * size)) < 0)
			return rc;
		yu_push(c, yu_sv(k));
		rc = yu_want_map(c, item);
		if (rc == TPH_OK)
			rc = yu_walk(c, item, fields, nf, arr + i * size);
		yu_pop(c);
	}
	return rc;
}

static void take_lo(void *ud, int32_t lo, int32_t hi)
{
	(void)hi;
	*(int32_t *)ud = lo;
}

/* A cpuDetail key: strconv.Atoi's decimal (an optional '+'), a CPU id below TPH_CPUSET_MAX. */
static int cpu_key(yu_ctx *c, const yu_node *k, void *item)
{
	const char *s = yu_sv(k), *why = NULL;
	if (!*s || strpbrk(s, "-,") ||
	    tph_cpuset_parse(s, take_lo, &((tph_numa_cpu *)item)->cpu, &why))
		return yu_err(c, k, TPH_EINVAL, "CPU id \"%s\" is not an integer in [0, %d]", s,
		              TPH_CPUSET_MAX - 1);
	return TPH_OK;
}

/* cpuDetail: CPU id -> {numa, socket, core}; ids unique as numbers, NUMA nodes bounded. */
static int f_cpus(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	tph_node_numa *n = dst;
	if (v->type == YU_MAP && yu_map_len(v) > TPH_NUMA_MAX_CPUS)
		return yu_err(c, v, TPH_ERANGE, "%u CPUs, more than %d", v->len, TPH_NUMA_MAX_CPUS);
	void *items = NULL;
	int rc = entries(c, v, sizeof(tph_numa_cpu), cpu_fields,
	                 sizeof cpu_fields / sizeof cpu_fields[0], cpu_key, &items, &n->n_cpus);
	const tph_numa_cpu *cpus = n->cpus = items;
	uint64_t numa = 0;
	for (uint32_t i = 0; rc == TPH_OK && i < n->n_cpus; i++) {
		for (uint32_t j = 0; j < i; j++)
			if (cpus[j].cpu == cpus[i].cpu) {
				yu_push(c, yu_sv(yu_at(c, v->u.pairs[i].key)));
				rc = yu_err(c, yu_at(c, v->u.pairs[i].key), TPH_EINVAL,
				            "CPU %d appears twice", cpus[i].cpu);
				yu_pop(c);
				return rc;
			}
		numa |= 1ull << cpus[i].numa;
	}
	if (rc == TPH_OK && __builtin_popcountll(numa) > TPH_NUMA_MAX_NODES)
		rc = yu_err(c, v, TPH_ERANGE, "more than %d NUMA nodes", TPH_NUMA_MAX_NODES);
	return rc;
}

static int f_cpuset(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	const char *why = NULL;
	int rc = yu_want_scalar(c, v, "a cpuset");
	if (rc == TPH_OK && !yu_is_null(v) && tph_cpuset_parse(yu_sv(v), NULL, NULL, &why))
		return yu_err(c, v, TPH_EINVAL, "bad cpuset \"%s\": %s", yu_sv(v), why);
	*(const char **)dst = yu_is_null(v) ? "" : yu_sv(v);
	return rc;
}

static const yu_field res_fields[] = {
    YU_F("allocatable", f_cpuset, tph_numa_res, allocatable, NULL, 0),
    YU_F("capacity", yu_f_i32, tph_numa_res, capacity, NULL, 0),
};

static int res_key(yu_ctx *c, const yu_node *k, void *item)
{
	tph_numa_res *r = item;
	r->allocatable = "";
	return k->len ? yu_str(c, k, &r->name) : yu_err(c, k, TPH_EINVAL, "empty resource name");
}

/* numares: resource name -> {allocatable, capacity}. */
static int f_numares(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	tph_node_numa *n = dst;
	void *items = NULL;
	int rc = entries(c, v, sizeof(tph_numa_res), res_fields,
	                 sizeof res_fields / sizeof res_fields[0], res_key, &items, &n->n_numares);
	n->numares = items;
	return rc;
}

/* The policy names are the CRD's enum (PolicyName); their values are free strings. */
static const yu_field policy_fields[] = {
    YU_F("CPUManagerPolicy", yu_f_str, tph_node_numa, cpu_manager_policy, NULL, 0),
    YU_F("TopologyManagerPolicy", yu_f_str, tph_node_numa, topology_manager_policy, NULL, 0),
};

static int f_policies(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	int rc = yu_want_map(c, v);
	return rc < 0 ? rc
	              : yu_walk(c, v, policy_fields, sizeof policy_fields / sizeof policy_fields[0],
	                        dst);
}

static int f_reserved(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	return yu_res_list(c, v, &((tph_node_numa *)dst)->res_reserved);
}

static const yu_field numa_fields[] = {
    {"policies", f_policies, 0, NULL, 0},
    {"resReserved", f_reserved, 0, NULL, 0},
    {"numares", f_numares, 0, NULL, 0},
    {"cpuDetail", f_cpus, 0, NULL, 0},
};

int sc_f_numa(yu_ctx *c, yu_node *v, void *dst, const void *aux)
{
	(void)aux;
	tph_node_numa *n = yu_alloc_array(c->arena, 1, sizeof *n);
	if (!n)
		return yu_err(c, v, TPH_ENOMEM, "out of memory");
	*(const tph_node_numa **)dst = n;
	int rc = yu_want_map(c, v);
	return rc < 0 ? rc
	              : yu_walk(c, v, numa_fields, sizeof numa_fields / sizeof numa_fields[0], n);
}

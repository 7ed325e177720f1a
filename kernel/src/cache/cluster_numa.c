/* A node's Numatopology in the node meta blob (cluster_spec.c): cpusets read as Volcano reads
 * them (k8s.io/utils/cpuset.Parse), the descriptor validated and written canonically (CPUs by
 * id), and built back into the tph_node_numa_row the numa-aware plugin reads. */
#include "cache/cluster_int.h"
#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

/* strconv.Atoi over s[0..len): an optional sign ('-' cannot occur: cpuset.Parse splits at it
 * first) and decimal digits; ids at or above TPH_CPUSET_MAX are refused here. */
static bool cpu_id(const char *s, size_t len, int32_t *out, const char **why)
{
	size_t i = len && s[0] == '+';
	int64_t v = 0;
	if (i == len) {
		*why = "an element is not a number";
		return false;
	}
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9') {
			*why = "an element is not a number";
			return false;
		}
		v = v * 10 + (s[i] - '0');
		if (v >= TPH_CPUSET_MAX) {
			*why = "a CPU id is not below 65536";
			return false;
		}
	}
	*out = (int32_t)v;
	return true;
}

int tph_cpuset_parse(const char *s, tph_cpuset_fn each, void *ud, const char **why)
{
	if (!s || !*s)
		return TPH_OK;
	for (const char *p = s;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *dash = memchr(p, '-', len);
		int32_t lo, hi;
		if (!cpu_id(p, dash ? (size_t)(dash - p) : len, &lo, why))
			return TPH_EINVAL;
		hi = lo;
		if (dash && !cpu_id(dash + 1, len - (size_t)(dash + 1 - p), &hi, why))
			return TPH_EINVAL;
		if (lo > hi) {
			*why = "a range ends below its start";
			return TPH_EINVAL;
		}
		if (each)
			each(ud, lo, hi);
		if (!end)
			return TPH_OK;
		p = end + 1;
	}
}

/* ---- writing ---- */

static void mark(void *ud, int32_t lo, int32_t hi)
{
	uint64_t *bits = ud;
	for (int32_t i = lo; i <= hi; i++)
		bits[i / 64] |= 1ull << (i % 64);
}

/* The cpu entry's allocatable set, ascending (empty when numares has no cpu entry). */
static void w_alloc(tph_wr *w, const tph_node_numa *n, const char *cpu)
{
	uint64_t *bits = tph_calloc(TPH_CPUSET_MAX / 64, sizeof *bits);
	if (!bits) {
		w->err = tph_cl_oom(w->d, w->obj);
		return;
	}
	uint32_t count = 0;
	for (uint32_t i = 0; i < n->n_numares && !w->err; i++) {
		const char *why = NULL, *text = n->numares[i].allocatable;
		bool is_cpu = !strcmp(n->numares[i].name, "cpu");
		if (tph_cpuset_parse(text, is_cpu ? mark : NULL, bits, &why))
			tph_w_fail(w, "numa.numares", "%s: bad cpuset \"%s\": %s",
			           n->numares[i].name, text, why);
	}
	for (uint32_t k = 0; k < TPH_CPUSET_MAX / 64; k++)
		count += (uint32_t)__builtin_popcountll(bits[k]);
	tph_w_u32(w, cpu ? 1 : 0);
	tph_w_u32(w, count);
	for (uint32_t k = 0; k < TPH_CPUSET_MAX / 64; k++)
		for (uint64_t b = bits[k]; b; b &= b - 1)
			tph_w_u32(w, k * 64 + (uint32_t)__builtin_ctzll(b));
	tph_free(bits);
}

static int cmp_cpu(const void *a, const void *b)
{
	const tph_numa_cpu *x = a, *y = b;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

/* cpuDetail, sorted by id, within the bounds of cluster.h. */
static void w_cpus(tph_wr *w, const tph_node_numa *n)
{
	const char *f = "numa.cpuDetail";
	if (n->n_cpus > TPH_NUMA_MAX_CPUS)
		return tph_w_fail(w, f, "%u CPUs, more than %d", n->n_cpus, TPH_NUMA_MAX_CPUS);
	tph_numa_cpu *c = tph_malloc((n->n_cpus + 1) * sizeof *c);
	if (!c) {
		w->err = tph_cl_oom(w->d, w->obj);
		return;
	}
	if (n->n_cpus) {
		memcpy(c, n->cpus, n->n_cpus * sizeof *c);
		qsort(c, n->n_cpus, sizeof *c, cmp_cpu);
	}
	uint64_t numa = 0;
	for (uint32_t i = 0; i < n->n_cpus && !w->err; i++) {
		if (c[i].cpu < 0 || c[i].cpu >= TPH_CPUSET_MAX || c[i].socket < 0 ||
		    c[i].core < 0 || c[i].numa < 0 || c[i].numa > TPH_NUMA_ID_MAX)
			tph_w_fail(w, f, "CPU %d: an id out of range", c[i].cpu);
		else if (i && c[i].cpu == c[i - 1].cpu)
			tph_w_fail(w, f, "CPU %d appears twice", c[i].cpu);
		else
			numa |= 1ull << c[i].numa;
	}
	if (__builtin_popcountll(numa) > TPH_NUMA_MAX_NODES)
		tph_w_fail(w, f, "more than %d NUMA nodes", TPH_NUMA_MAX_NODES);
	tph_w_u32(w, n->n_cpus);
	for (uint32_t i = 0; i < n->n_cpus; i++) {
		tph_w_u32(w, (uint32_t)c[i].cpu);
		tph_w_u32(w, (uint32_t)c[i].numa);
		tph_w_u32(w, (uint32_t)c[i].socket);
		tph_w_u32(w, (uint32_t)c[i].core);
	}
	tph_free(c);
}

void tph_w_node_numa(tph_wr *w, const tph_node_numa *n)
{
	tph_w_u32(w, n != NULL);
	if (!n)
		return;
	if ((n->n_numares && !n->numares) || (n->n_cpus && !n->cpus) ||
	    (n->res_reserved.n && !n->res_reserved.items))
		return tph_w_fail(w, "numa", "no items");
	const char *cpu = NULL;
	int64_t reserved = 0;
	for (uint32_t i = 0; i < n->n_numares; i++) {
		if (!n->numares[i].name || !n->numares[i].name[0])
			return tph_w_fail(w, "numa.numares", "an empty resource name");
		for (uint32_t k = 0; k < i; k++)
			if (!strcmp(n->numares[k].name, n->numares[i].name))
				return tph_w_fail(w, "numa.numares", "%s appears twice",
				                  n->numares[i].name);
		if (!strcmp(n->numares[i].name, "cpu"))
			cpu = n->numares[i].name;
	}
	for (uint32_t i = 0; i < n->res_reserved.n; i++) {
		const tph_res_item *r = &n->res_reserved.items[i];
		if (r->value < 0)
			return tph_w_fail(w, "numa.resReserved", "%s: negative", r->name);
		if (r->name && !strcmp(r->name, "cpu"))
			reserved = r->value;
	}
	tph_w_str(w, n->cpu_manager_policy);
	tph_w_str(w, n->topology_manager_policy);
	tph_w_i64(w, reserved);
	w_alloc(w, n, cpu);
	w_cpus(w, n);
}

/* ---- building ---- */

const tph_node_numa_row *tph_r_node_numa(tph_rd *r)
{
	if (!tph_r_u32(r))
		return NULL;
	tph_node_numa_row *m = tph_r_new(r, 1, sizeof *m), scratch;
	tph_node_numa_row *t = m ? m : &scratch;
	t->cpu_manager_policy = tph_r_u32(r);
	t->topology_manager_policy = tph_r_u32(r);
	t->reserved_cpu = tph_r_i64(r);
	t->has_cpu = tph_r_u32(r) != 0;
	t->n_cpu_alloc = tph_r_u32(r);
	int32_t *alloc = tph_r_new(r, t->n_cpu_alloc, sizeof *alloc);
	if (alloc)
		memcpy(alloc, r->p, t->n_cpu_alloc * sizeof *alloc);
	r->p += t->n_cpu_alloc;
	t->cpu_alloc = alloc;
	t->n_cpus = tph_r_u32(r);
	tph_numa_cpu_row *cpus = tph_r_new(r, t->n_cpus, sizeof *cpus);
	if (cpus)
		memcpy(cpus, r->p, t->n_cpus * sizeof *cpus);
	r->p += 4 * (size_t)t->n_cpus;
	t->cpus = cpus;
	return m;
}

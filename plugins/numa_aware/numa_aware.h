/* numa-aware's state, shared by its files: numa_aware.c (extension points), numa_cpu.c (a
 * node's CPU tables and the kubelet CPU accumulator Volcano copies) and numa_place.c (topology
 * hints, the topology manager policies and the CPU assignment of one task on one node).
 *
 * CPUs are numbered densely per node: index i is the i-th CPU of the node's cpuDetail by id, and
 * CPU sets are bitsets over those indices (NUMA_WORDS words at most). */
#ifndef TPH_PLUGINS_NUMA_AWARE_H
#define TPH_PLUGINS_NUMA_AWARE_H

#include <stdbool.h>
#include <stdint.h>

#include "tephra/plugin.h"

#define NUMA_WORDS ((TPH_NUMA_MAX_CPUS + 63) / 64)

/* The node's TopologyManagerPolicy as policy.GetPolicy reads it; anything else is policyNone. */
enum {
	NP_NONE = 0,
	NP_BEST_EFFORT,
	NP_RESTRICTED,
	NP_SINGLE,
};

/* One node's Numatopology, read-only after open except `free`. */
typedef struct numa_node {
	uint32_t nc, words;        /* cpuDetail CPUs, bitset words */
	const int32_t *id;         /* [i] CPU id, ascending */
	const uint8_t *npos;       /* [i] its NUMA node's position in numa_id */
	const uint16_t *spos;      /* [i] its socket's position in socket_id */
	const uint16_t *cpos;      /* [i] its core's position in core_id */
	const int32_t *socket_id;  /* distinct sockets, ascending */
	const int32_t *core_id;    /* distinct core ids, ascending */
	const uint16_t *core_sock; /* [core pos] socket pos of the lowest CPU with that core id */
	uint32_t n_sockets, n_cores;
	uint32_t k;                                 /* NUMA nodes */
	int32_t numa_id[TPH_NUMA_MAX_NODES];        /* ascending */
	uint32_t numa_cpus[TPH_NUMA_MAX_NODES];     /* CPUs of each (CPUDetails.CPUsInNUMANodes) */
	uint32_t most_cpus[TPH_NUMA_MAX_NODES + 1]; /* [s]: most CPUs in s NUMA nodes */
	uint64_t all_numa;                          /* the default affinity: every NUMA id */
	uint32_t per_socket, per_core;              /* CPUTopology.CPUsPerSocket / CPUsPerCore */
	uint32_t unknown;                           /* allocatable CPUs missing from cpuDetail */
	uint64_t *reserved; /* resReserved cpu, taken by topology from every CPU */
	uint64_t *free;     /* mutable: numares cpu less what events allocated */
	/* Mutable with `free` (numa_node_count): the free CPUs with the unknown ones, and per NUMA
	 * node those not reserved (the unknown ones count as NUMA node 0). */
	uint32_t n_free;
	uint32_t avail[TPH_NUMA_MAX_NODES];
	tph_sid tm;     /* TopologyManagerPolicy (TPH_SID_EMPTY when absent) */
	uint8_t policy; /* NP_* */
	bool has_cpu, is_static;
	bool active;       /* static CPU manager and a topology policy other than none / "" */
	uint16_t tm_index; /* the TopologyManagerPolicy among g->node_pol */
} numa_node;

/* The assignment of one task on one node: CPUs (bitset words of that node). */
typedef struct numa_cpus {
	uint64_t w[NUMA_WORDS];
} numa_cpus;

/* Written at open; the per-task assignments and the nodes' `free` sets by the event handlers
 * (session thread); the per-node callbacks only read. */
typedef struct numa_st {
	int64_t weight;
	bool predicate_on;   /* the predicate is registered: Volcano's assignRes gets filled */
	numa_node **node;    /* [node] NULL: no Numatopology */
	uint8_t *guaranteed; /* [task] Guaranteed QoS (lib/qos.h) */
	uint16_t *tpol;      /* [task] its topology policy among task_pol, 0: none */
	int32_t *req_cpus;   /* [task] guaranteedCPUs: whole requested CPUs, 0 when fractional */
	tph_sid *task_pol;   /* distinct task policies, [0] unused */
	uint32_t n_task_pol;
	tph_sid *node_pol; /* distinct TopologyManagerPolicy values of static nodes */
	uint32_t n_node_pol;
	tph_reason_code r_no_info, r_not_static, r_no_cpu, r_admit;
	tph_reason_code *r_policy; /* [tpol * n_node_pol + tm_index]; NULL: r_policy_any */
	tph_reason_code r_policy_any;
	/* Event handlers: the CPUs each Guaranteed task holds (Volcano's assignRes entry that its
	 * AllocateFunc applied), `words` words per task in `held`. */
	tph_idx *held_node; /* [task] the node it holds CPUs on, TPH_NOIDX none */
	uint64_t *held;
	uint32_t words;
} numa_st;

/* numa_cpu.c */
numa_node *numa_node_build(tph_session *s, const tph_node_numa_row *row);
/* takeByTopology(topo, avail, need): true with *out when it succeeds (out may then hold more
 * CPUs than asked, as the kubelet copy does when it takes a whole socket). */
bool numa_take(const numa_node *nd, const uint64_t *avail, int64_t need, uint64_t *out);
/* Recount n_free and avail after `free` changed. */
void numa_node_count(numa_node *nd);

/* numa_place.c: Volcano's predicateFn for task t on node n. Returns TPH_PASS or a reason; sets
 * *record when Volcano would record an assignment (assignRes), and then, unless `cpus` is NULL,
 * puts its CPUs in *cpus. */
tph_reason_code numa_place(const numa_st *g, tph_idx t, tph_idx n, bool *record, numa_cpus *cpus);

static inline uint32_t numa_count(const uint64_t *w, uint32_t words)
{
	uint32_t c = 0;
	for (uint32_t k = 0; k < words; k++)
		c += (uint32_t)__builtin_popcountll(w[k]);
	return c;
}

#endif

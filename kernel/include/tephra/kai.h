/* The `kai` flavour's objects: what KAI-Scheduler reads beyond the Kubernetes objects that
 * tephra/cluster.h already describes (../shared/spec/kai-format.md).
 *
 * A KAI cluster is described with the shared descriptors where KAI reads the same thing (a
 * node is a tph_node_desc: allocatable, labels such as nvidia.com/gpu.count and
 * nvidia.com/gpu.memory, taints; a pod's Kubernetes part is a tph_pod_desc) and with the
 * descriptors below for what only KAI has: Queue v2 with its per-resource quota triples and
 * tree, PodGroup v2alpha2 with its sub-group tree and timestamps, a pod's KAI status and GPU
 * request, Topology objects, and the scheduler's command-line parameters. Every descriptor
 * starts from its INIT macro, which sets `size` and KAI's defaults; new fields are only ever
 * appended.
 *
 * Units: gpu in GPUs (fractions allowed), cpu in millicores, memory in bytes (the scenario's
 * megabytes times 10^6); durations in milliseconds. */
#ifndef TEPHRA_KAI_H
#define TEPHRA_KAI_H

#include <stdbool.h>
#include <stdint.h>

#include "tephra/cluster.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/* The KAI resource dimensions of a queue's quota triple, in this order. */
typedef enum tph_kai_dim {
	TPH_KAI_GPU = 0,
	TPH_KAI_CPU = 1,
	TPH_KAI_MEMORY = 2,
	TPH_KAI_DIMS = 3,
} tph_kai_dim;

/* "gpu", "cpu", "memory", indexed by tph_kai_dim. */
const char *tph_kai_dim_name(tph_kai_dim d);

/* Unlimited, for a quota or a limit. */
#define TPH_KAI_UNLIMITED (-1.0)

/* One dimension of a queue: its deserved quota, its over-quota weight and its limit. A queue
 * that leaves a dimension out has all three 0 (KAI reads the zero values). */
typedef struct tph_kai_share {
	double quota;             /* TPH_KAI_UNLIMITED or >= 0 */
	double over_quota_weight; /* >= 0 */
	double limit;             /* TPH_KAI_UNLIMITED or >= 0 */
} tph_kai_share;

/* No min-runtime given: inherited from the parent queue, then the minruntime plugin's default. */
#define TPH_KAI_INHERIT (-1)

typedef struct tph_kai_queue_desc {
	uint32_t size; /* sizeof(tph_kai_queue_desc): start from TPH_KAI_QUEUE_DESC_INIT */
	const char *name;
	const char *parent;       /* NULL: a top-level queue */
	int32_t priority;         /* the macro sets KAI's default, 100 */
	tph_time creation;        /* the last tie-break of queue order */
	const char *display_name; /* NULL: none */
	tph_kai_share res[TPH_KAI_DIMS];
	int64_t preempt_min_runtime_ms; /* TPH_KAI_INHERIT or >= 0 */
	int64_t reclaim_min_runtime_ms; /* TPH_KAI_INHERIT or >= 0 */
} tph_kai_queue_desc;

#define TPH_KAI_QUEUE_DESC_INIT                                      \
	{                                                            \
		.size = sizeof(tph_kai_queue_desc), .priority = 100, \
		.preempt_min_runtime_ms = TPH_KAI_INHERIT,           \
		.reclaim_min_runtime_ms = TPH_KAI_INHERIT            \
	}

/* A Topology object: node-label levels, highest first. */
typedef struct tph_kai_topology_desc {
	uint32_t size; /* sizeof(tph_kai_topology_desc): start from TPH_KAI_TOPOLOGY_DESC_INIT */
	const char *name;
	tph_str_list levels; /* node label keys */
} tph_kai_topology_desc;

#define TPH_KAI_TOPOLOGY_DESC_INIT                    \
	{                                             \
		.size = sizeof(tph_kai_topology_desc) \
	}

/* A topology constraint of a podgroup or a sub-group; all NULL: none. */
typedef struct tph_kai_topo_constraint {
	const char *topology;       /* a Topology's name */
	const char *required_level; /* one of its level labels, or NULL */
	const char *preferred_level;
} tph_kai_topo_constraint;

/* Unset counts: minMember / minSubGroup not written. */
#define TPH_KAI_UNSET (-1)

/* A node of a podgroup's sub-group tree. A sub-group that is some sub-group's parent is a set
 * (minSubGroup of its children must be satisfied); the others are pod sets (minMember pods). */
typedef struct tph_kai_subgroup {
	const char *name;     /* unique within the podgroup */
	const char *parent;   /* NULL: a child of the root */
	int32_t min_member;   /* a pod set's; TPH_KAI_UNSET: 0 */
	int32_t min_subgroup; /* a set's; TPH_KAI_UNSET: all its children */
	tph_kai_topo_constraint topology;
} tph_kai_subgroup;

typedef enum tph_kai_preemptibility {
	TPH_KAI_PREEMPTIBLE_UNSET = 0, /* preemptible iff priority < 100 */
	TPH_KAI_PREEMPTIBLE = 1,
	TPH_KAI_NON_PREEMPTIBLE = 2,
} tph_kai_preemptibility;

typedef struct tph_kai_podgroup_desc {
	uint32_t size;    /* sizeof(tph_kai_podgroup_desc): start from TPH_KAI_PODGROUP_DESC_INIT */
	const char *name; /* also its UID */
	const char *namespace_; /* NULL: "" (keys are then the bare name) */
	const char *queue;
	const char *priority_class; /* NULL: the global default class, else 50 */
	bool has_priority;          /* `priority:` given directly (tephra shorthand) */
	int32_t priority;
	tph_kai_preemptibility preemptibility;
	int32_t min_member;   /* the default pod set's; the macro sets 1; 0 = no gang */
	int32_t min_subgroup; /* the root's; TPH_KAI_UNSET: all its direct sub-groups */
	const tph_kai_subgroup *subgroups; /* n == 0: one pod set, "default" */
	uint32_t n_subgroups;
	tph_kai_topo_constraint topology;
	int64_t preemption_delay_ms; /* -1: none */
	bool has_staleness_grace;    /* else the scheduler's global default */
	int64_t staleness_grace_ms;  /* negative: never evicted as stale */
	tph_time creation;
	tph_time last_start;    /* kai.scheduler/last-start-timestamp; 0: never started */
	tph_time last_eviction; /* kai.scheduler/last-eviction-timestamp; 0: none */
	tph_time stale_since;   /* kai.scheduler/stale-podgroup-timestamp; 0: not stale */
} tph_kai_podgroup_desc;

#define TPH_KAI_PODGROUP_DESC_INIT                                       \
	{                                                                \
		.size = sizeof(tph_kai_podgroup_desc), .min_member = 1,  \
		.min_subgroup = TPH_KAI_UNSET, .preemption_delay_ms = -1 \
	}

/* KAI's task statuses (pod_status.PodStatus), in the order of the format. */
typedef enum tph_kai_status {
	TPH_KAI_TS_DERIVED =
	    0, /* not written: from phase, node and deletion, as KAI's cache does */
	TPH_KAI_TS_PENDING,
	TPH_KAI_TS_GATED,
	TPH_KAI_TS_ALLOCATED,
	TPH_KAI_TS_PIPELINED,
	TPH_KAI_TS_BINDING,
	TPH_KAI_TS_BOUND,
	TPH_KAI_TS_RUNNING,
	TPH_KAI_TS_RELEASING,
	TPH_KAI_TS_STUCK_RELEASING,
	TPH_KAI_TS_SUCCEEDED,
	TPH_KAI_TS_FAILED,
	TPH_KAI_TS_UNKNOWN,
	TPH_KAI_TS_COUNT
} tph_kai_status;

/* "Pending", "Gated", ... ("" for TPH_KAI_TS_DERIVED); NULL past the end. */
const char *tph_kai_status_name(tph_kai_status s);

/* How a running pod got its GPU (the received-resource-type annotation). */
typedef enum tph_kai_received {
	TPH_KAI_RECEIVED_NONE = 0,
	TPH_KAI_RECEIVED_REGULAR = 1,
	TPH_KAI_RECEIVED_FRACTION = 2,
	TPH_KAI_RECEIVED_MIG = 3,
} tph_kai_received;

/* What KAI adds to a pod (beside its tph_pod_desc, matched by namespace and name). The GPU
 * request comes from the pod's annotations; the loader reads them into the fields below. */
typedef struct tph_kai_pod_desc {
	uint32_t size; /* sizeof(tph_kai_pod_desc): start from TPH_KAI_POD_DESC_INIT */
	tph_kai_status status;
	double gpu_fraction;    /* gpu-fraction, in (0, 1]; 0: none (or out of range: ignored) */
	int64_t gpu_memory_mib; /* gpu-memory; 0: none */
	int32_t gpu_devices;    /* gpu-fraction-num-devices; the macro sets 1 */
	tph_kai_received received;
	tph_str_list gpu_groups;    /* shared GPUs the pod sits on; equal names = same GPU */
	const char *scheduler_name; /* NULL: "kai-scheduler" */
	const char *subgroup;       /* the kai.scheduler/subgroup-name label; NULL: "default" */
	bool has_task_priority;     /* the kai.scheduler/task-priority label */
	int32_t task_priority;
} tph_kai_pod_desc;

#define TPH_KAI_POD_DESC_INIT                                      \
	{                                                          \
		.size = sizeof(tph_kai_pod_desc), .gpu_devices = 1 \
	}

/* KAI's command-line SchedulerParams that change decisions; the macro sets KAI's defaults. */
typedef struct tph_kai_params {
	uint32_t size; /* sizeof(tph_kai_params): start from TPH_KAI_PARAMS_INIT */
	int32_t max_consolidation_preemptees; /* 0: no consolidation; -1: unlimited */
	bool allow_consolidating_reclaim;
	bool use_scheduling_signatures;
	int64_t staleness_grace_ms; /* negative: never evict stale gangs */
	bool full_hierarchy_fairness;
	bool restrict_scheduling_nodes;
	int64_t stuck_in_releasing_ms;
	const char *scheduler_name;
	bool has_gpu_memory; /* nodeGPUMemoryMiB given: else computed from the nodes' labels */
	int64_t gpu_memory_min_mib;
	int64_t gpu_memory_max_mib;
	const char *node_pool_key; /* "" or NULL: no partition */
	const char *node_pool_value;
} tph_kai_params;

#define TPH_KAI_PARAMS_INIT                                                             \
	{                                                                               \
		.size = sizeof(tph_kai_params), .max_consolidation_preemptees = 16,     \
		.allow_consolidating_reclaim = true, .use_scheduling_signatures = true, \
		.staleness_grace_ms = 60000, .full_hierarchy_fairness = true,           \
		.stuck_in_releasing_ms = 120000, .scheduler_name = "kai-scheduler"      \
	}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif

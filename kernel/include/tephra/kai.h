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
#include "tephra/args.h"
#include "tephra/columns.h"
#include "tephra/k8s.h"
#include "tephra/conf.h"

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
	/* ---- appended: legacy MIG pods ---- */
	/* A `nvidia.com/mig-<profile>: "<count>"` annotation (KAI's legacy MIG request): the
	 * annotation's name (NULL: none) and count (>= 0). It replaces the pod's GPU request
	 * (whole GPUs, fraction, memory) by `count` instances of the profile; such a pod is never
	 * placed, and while it holds a node no other MIG pod is placed there. */
	const char *legacy_mig;
	int64_t legacy_mig_count;
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

/* ---- a KAI cluster and its snapshot ------------------------------------------------------ */

/* Everything a KAI session reads, as arrays of descriptors (strings and arrays borrowed for the
 * duration of tph_kai_snapshot_build, which copies what it keeps). kai_pods[i] is pods[i]'s KAI
 * part (NULL: every pod at TPH_KAI_POD_DESC_INIT). */
typedef struct tph_kai_cluster_desc {
	uint32_t size; /* sizeof(tph_kai_cluster_desc): start from TPH_KAI_CLUSTER_DESC_INIT */
	const tph_kai_params *params; /* NULL: TPH_KAI_PARAMS_INIT */
	const tph_priority_class_desc *pclasses;
	uint32_t n_pclasses;
	const tph_kai_topology_desc *topologies;
	uint32_t n_topologies;
	const tph_kai_queue_desc *queues;
	uint32_t n_queues;
	const tph_node_desc *nodes;
	uint32_t n_nodes;
	const tph_kai_podgroup_desc *podgroups;
	uint32_t n_podgroups;
	const tph_pod_desc *pods;
	const tph_kai_pod_desc *kai_pods;
	uint32_t n_pods;
} tph_kai_cluster_desc;

#define TPH_KAI_CLUSTER_DESC_INIT                    \
	{                                            \
		.size = sizeof(tph_kai_cluster_desc) \
	}

/* The read-only columns of a KAI snapshot, struct-of-arrays (one entry per object, in the
 * order given; every reference resolved to an index, -1 for none). Owned by the snapshot. */
typedef struct tph_kai_queues {
	uint32_t n;
	const char *const *name;
	const int32_t *parent;   /* -1: top level */
	const uint8_t *dropped;  /* a missing ancestor: KAI drops the queue and its jobs */
	const uint8_t *has_kids; /* a queue with children: its jobs are never scheduled */
	const int32_t *priority;
	const tph_time *creation;
	const tph_kai_share *res;              /* [q * TPH_KAI_DIMS + dim] */
	const int64_t *preempt_min_runtime_ms; /* as given (TPH_KAI_INHERIT: not given) */
	const int64_t *reclaim_min_runtime_ms;
} tph_kai_queues;

typedef struct tph_kai_jobs {
	uint32_t n;
	const char *const *name;
	const char *const *namespace_;
	const int32_t *queue;    /* -1: no such queue (or dropped): never scheduled */
	const int32_t *priority; /* from the class, the shorthand, else the default class or 50 */
	const uint8_t *preemptible;  /* as written, else priority < 100 */
	const int32_t *min_subgroup; /* the root's, resolved: unset = its number of children */
	const tph_time *creation;
	const tph_time *last_start;        /* 0: never started */
	const tph_time *last_eviction;     /* 0: none */
	const tph_time *stale_since;       /* 0: not marked stale */
	const int64_t *staleness_grace_ms; /* own, else schedulerParams'; negative: never */
	const int64_t *preemption_delay_ms;
	const uint32_t *sg_first; /* its sub-groups: [sg_first, sg_first + sg_count) */
	const uint32_t *sg_count; /* at least 1: without subGroups, one pod set "default" */
	const tph_kai_topo_constraint *topology;
} tph_kai_jobs;

/* Every job's sub-group tree, flattened: a job's entries are contiguous, parents before
 * children in the order written. */
typedef struct tph_kai_subgroups {
	uint32_t n;
	const char *const *name;
	const uint32_t *job;
	const int32_t *parent;       /* -1: a child of the job's root */
	const uint8_t *pod_set;      /* a leaf (pods name it), else a set */
	const int32_t *min_member;   /* a pod set's minimum; 0 for sets */
	const int32_t *min_subgroup; /* a set's, resolved; 0 for pod sets */
	const tph_kai_topo_constraint *topology;
} tph_kai_subgroups;

typedef struct tph_kai_tasks {
	uint32_t n;
	const char *const *name;
	const char *const *namespace_;
	const int32_t *job;     /* -1: no podgroup (never scheduled) */
	const int32_t *pod_set; /* a sub-group index; -1: names no pod set of its job */
	const uint8_t *status;  /* tph_kai_status, never DERIVED */
	const int32_t *node;    /* -1: none (a Pending pod's nodeName holds nothing) */
	const int32_t *nominated_node;
	const double *gpus; /* whole GPUs (nvidia.com/gpu); fractions in gpu_fraction */
	const double *gpu_fraction;
	const int64_t *gpu_memory_mib;
	const int32_t *gpu_devices;
	const int32_t *task_priority; /* the label; 0 without */
	const tph_time *creation;
	const int64_t *cpu_milli;
	const int64_t *memory; /* bytes */
	/* The first of gpuGroups: the shared GPU a running one-device fractional pod sits on ("":
	 * none; equal names on one node = the same GPU). */
	const char *const *gpu_group;
	/* ---- appended: what the predicates plugin reads ---- */
	/* The pod's scheduling constraints (node selector, required node affinity, tolerations),
	 * interned: pods with equal constraints share one row (and its id), whose ids compare
	 * with the node labels and taints of tph_kai_nodes.meta (tephra/k8s.h matches them). */
	const tph_pod_spec *const *spec;
	const uint8_t *mig; /* requests a MIG profile (a resource named nvidia.com/mig-*) */
	/* Every gpuGroups name (a multi-device shared pod sits on several), in the order given. */
	const tph_str_list *gpu_groups;
	/* The pod's labels (plugins read roles from them: kubeflow, ray); cold data, read once. */
	const tph_kv_list *labels;
	/* ---- appended: what inter-pod affinity reads (predicates, podaffinity) ---- */
	/* The pod's labels interned with the ids of `spec` and the nodes' meta (pods with equal
	 * labels share one row), and its namespace's id, so a pod (anti-)affinity term of `spec`
	 * matches a pod with tph_k8s_term_matches and no string work. */
	const tph_pod_meta *const *meta;
	const tph_sid *ns;
	/* ---- appended: MIG instances as node resources ---- */
	const int64_t *mig_request; /* [task * nodes.n_mig + profile]: instances requested */
	/* ---- appended: MIG instances as GPUs ---- */
	/* The GPUs its MIG instances count as (mig_request by nodes.mig_profile_gpus): KAI's
	 * GetGpusQuota, which its queue accounting and job solver add to the GPU request; the node
	 * ledger does not (it fits the instances themselves). */
	const double *mig_gpus;
	/* ---- appended: legacy MIG pods ---- */
	const uint8_t *legacy_mig; /* a legacy MIG pod (tph_kai_pod_desc.legacy_mig) */
} tph_kai_tasks;

typedef struct tph_kai_nodes {
	uint32_t n;
	const char *const *name;
	const int32_t *gpus;           /* nvidia.com/gpu.count, else allocatable nvidia.com/gpu */
	const int64_t *gpu_memory_mib; /* per device, floored to 100; 100 when not labelled */
	const uint8_t *memory_synced;  /* the node has the nvidia.com/gpu.memory label */
	const uint8_t *ready;
	const int64_t *cpu_milli; /* allocatable */
	const int64_t *memory;
	/* In this scheduler's node pool (schedulerParams nodePoolLabelKey/Value: the label equals
	 * the value, or is absent when the value is ""); 1 for every node without a pool key.
	 * Actions leave the other nodes alone. */
	const uint8_t *in_pool;
	/* ---- appended: what the predicates plugin reads ---- */
	const uint8_t *unschedulable; /* spec.unschedulable */
	const int64_t *max_pods;      /* allocatable pods; -1 when not given (no limit) */
	const uint8_t *mig;           /* tph_kai_mig */
	const uint8_t *workers;       /* TPH_KAI_GPU_WORKER | TPH_KAI_CPU_WORKER labels present */
	const tph_node_meta *const *meta; /* labels and taints, interned as the tasks' specs */
	/* The node labels that node-affinity Gt/Lt requirements of the tasks name, parsed once
	 * (tph_k8s_node_affinity's `nums`). */
	const tph_k8s_nums *label_nums;
	/* ---- appended: MIG instances as node resources ---- */
	/* The MIG profiles (resources named nvidia.com/mig-*) some node offers or some pod asks
	 * for, and each node's allocatable instances of each, [node * n_mig + profile]; KAI fits
	 * them as it fits cpu and memory (its resource vector holds every MIG resource). */
	uint32_t n_mig;
	const char *const *mig_names;
	const int64_t *mig_alloc;
	/* ---- appended: MIG instances as GPUs ---- */
	/* GPUs one instance of each profile counts as, [profile]: the g of
	 * nvidia.com/mig-<g>g.<m>gb, 0 for a name of another form (KAI's
	 * ExtractGpuAndMemoryFromMigResourceName); and each node's allocatable instances counted
	 * so, [node] (KAI's ResourceVector.TotalGPUs). */
	const double *mig_profile_gpus;
	const double *mig_gpus;
	/* ---- appended: MIG memory and legacy MIG pods ---- */
	/* GB of GPU memory one instance of each profile counts as, [profile]: the m of
	 * nvidia.com/mig-<g>g.<m>gb, 0 for a name of another form (consolidation's admission
	 * sums it, as KAI's GetTasksToAllocateRequestedGPUs does). */
	const double *mig_profile_gb;
	/* A legacy MIG pod of an active status holds the node at the snapshot (KAI's
	 * NodeInfo.LegacyMIGTasks, which a session never empties). */
	const uint8_t *legacy_mig;
} tph_kai_nodes;

/* A node's MIG mode (node-role.kubernetes.io/mig-enabled, else an allocatable MIG resource;
 * then nvidia.com/mig.strategy). */
typedef enum tph_kai_mig {
	TPH_KAI_MIG_OFF = 0,
	TPH_KAI_MIG_NONE = 1, /* enabled, no (or an unknown) strategy */
	TPH_KAI_MIG_SINGLE = 2,
	TPH_KAI_MIG_MIXED = 3,
} tph_kai_mig;

/* The node-role labels restrictSchedulingNodes reads (KAI's default keys). */
#define TPH_KAI_GPU_WORKER 1u /* node-role.kubernetes.io/gpu-worker */
#define TPH_KAI_CPU_WORKER 2u /* node-role.kubernetes.io/cpu-worker */

/* Topology objects and the domains their levels cut the nodes into. Level l of all topologies
 * (levels numbered across topologies: topology t owns [level_first[t], level_first[t] +
 * n_levels[t]), highest first) puts node i in domain domain[l * nodes.n + i]: an id dense per
 * level (0 .. n_domains[l] - 1, by first appearance in node order), -1 when the node lacks
 * the level's label. */
typedef struct tph_kai_topologies {
	uint32_t n;
	const char *const *name;
	const uint32_t *level_first;
	const uint32_t *n_levels;
	uint32_t n_all_levels;
	const char *const *level_label;  /* [level] node label key */
	const uint32_t *n_domains;       /* [level] */
	const int32_t *domain;           /* [level * nodes.n + node] */
	const char *const *domain_value; /* [level * nodes.n + id]: domain id's label value */
} tph_kai_topologies;

typedef struct tph_kai_view {
	tph_time now;
	tph_kai_params params;
	tph_kai_queues queues;
	tph_kai_jobs jobs;
	tph_kai_subgroups subgroups;
	tph_kai_tasks tasks;
	tph_kai_nodes nodes;
	tph_kai_topologies topologies;
} tph_kai_view;

typedef struct tph_kai_snapshot tph_kai_snapshot;

/* Build a snapshot: copy the descriptors into columns, resolve every name (a podgroup's queue, a
 * pod's podgroup, pod set and node) and every default. Refused (TPH_EINVAL, naming the object):
 * a descriptor not from its INIT macro, two objects of a kind with one name, a pod bound to a
 * node that is not given. Free it with tph_kai_snapshot_free. */
int tph_kai_snapshot_build(const tph_kai_cluster_desc *c, tph_time now, tph_kai_snapshot **out,
                           tph_diag *d);
void tph_kai_snapshot_free(tph_kai_snapshot *s);
const tph_kai_view *tph_kai_snapshot_view(const tph_kai_snapshot *s);

/* ---- a KAI session ------------------------------------------------------------------------ */

/* A session over a KAI snapshot with a conf of flavour kai (tph_conf_load_kai_string): its
 * actions run in the conf's order, once each, when tph_kai_session_run is called. The caller
 * keeps the snapshot and the conf until tph_kai_session_free. */
typedef struct tph_kai_session tph_kai_session;

/* One committed decision: a task evicted (by `action`), bound or pipelined (to `node`). */
typedef struct tph_kai_decision {
	uint32_t task;
	int32_t node;       /* -1 for an eviction */
	const char *action; /* "stalegangeviction", ... */
} tph_kai_decision;

/* TPH_EINVAL for a conf that is not KAI's. */
int tph_kai_session_open(const tph_kai_snapshot *snap, const tph_conf *conf, tph_kai_session **out,
                         tph_diag *d);
/* Run every action of the conf; TPH_ENOTSUP, naming it, at the first action not built yet
 * (the decisions of the actions before it stay). */
int tph_kai_session_run(tph_kai_session *s, tph_diag *d);
void tph_kai_session_free(tph_kai_session *s);

/* The session's view of the cluster as the actions left it: each task's status (a
 * tph_kai_status) and node (-1: none), each job's last-start and stale-since timestamps. */
const uint8_t *tph_kai_session_status(const tph_kai_session *s);
const int32_t *tph_kai_session_node(const tph_kai_session *s);
const tph_time *tph_kai_session_last_start(const tph_kai_session *s);
const tph_time *tph_kai_session_stale_since(const tph_kai_session *s);
/* The committed decisions of each kind, in the order they were made. */
uint32_t tph_kai_session_evictions(const tph_kai_session *s, const tph_kai_decision **out);
uint32_t tph_kai_session_binds(const tph_kai_session *s, const tph_kai_decision **out);
uint32_t tph_kai_session_pipelined(const tph_kai_session *s, const tph_kai_decision **out);

/* The wall time of each action the last tph_kai_session_run ran, in the conf's order (one that
 * failed included; none not built); timing never changes a decision. Owned by the session. */
typedef struct tph_kai_action_time {
	const char *action;
	double ms;
} tph_kai_action_time;
uint32_t tph_kai_session_action_times(const tph_kai_session *s, const tph_kai_action_time **out);
/* Naive mode (`tephra run --naive`), set before tph_kai_session_run: allocate sorts every node
 * of a task's set by score and walks them, and compares every queued job of a queue on every
 * pick, as KAI's code reads, instead of its exact shortcuts (the best fitting node in one pass,
 * each queue's best job kept). The decisions are the same; tests compare the two. */
void tph_kai_session_set_naive(tph_kai_session *s, bool naive);

/* ---- KAI plugins and their extension points ----------------------------------------------- */

/* A KAI plugin is one constant descriptor, found by name in the built-in table when a session
 * opens its conf. on_session_open registers callbacks (only then) with its state; arguments are
 * KAI's strings (tephra/args.h getters or tph_args_apply; a bad value warns and keeps the
 * default, as KAI does). Slots are only ever appended. */
#define TPH_KAI_PLUGIN_ABI 1

typedef struct tph_kai_plugin {
	uint32_t abi; /* TPH_KAI_PLUGIN_ABI */
	const char *name;
	/* Allocate state in *state (tph_calloc), read `args`, register callbacks. */
	int (*on_session_open)(tph_kai_session *s, const tph_args *args, void **state, tph_diag *d);
	/* Free the state; may be NULL. */
	void (*on_session_close)(tph_kai_session *s, void *state);
} tph_kai_plugin;

/* The two actions that take victims from running jobs and ask plugins first. */
typedef enum tph_kai_evict_action {
	TPH_KAI_RECLAIM = 0,
	TPH_KAI_PREEMPT = 1,
} tph_kai_evict_action;

/* A scenario: a preemptor job and, per victim job, the tasks it would give up. */
typedef struct tph_kai_scenario {
	uint32_t preemptor;         /* a job */
	uint32_t n_victims;         /* victim jobs */
	const uint32_t *victim_job; /* [n_victims] */
	const uint32_t *task_first; /* [n_victims + 1]: victim v's tasks are */
	const uint32_t *tasks;      /*   tasks[task_first[v] .. task_first[v + 1]) */
	/* ---- appended: the preemptor's partial job ---- */
	/* The tasks of the preemptor's turn this probe places (the first k: KAI's partial job
	 * representative's tasks to allocate), placed by now; a validator that asks what the
	 * preemptor requires reads them, as KAI's reads the representative's init resources. */
	uint32_t n_partial;
	const uint32_t *partial;
} tph_kai_scenario;

/* ReclaimVictimFilter / PreemptVictimFilter: may `preemptor` take from job `victim`? */
typedef bool (*tph_kai_victim_filter_fn)(void *state, const tph_kai_session *s, uint32_t preemptor,
                                         uint32_t victim);
/* ReclaimScenarioValidator / PreemptScenarioValidator: is the scenario acceptable? */
typedef bool (*tph_kai_scenario_validator_fn)(void *state, const tph_kai_session *s,
                                              const tph_kai_scenario *sc);

/* Registration, from on_session_open only (TPH_EINVAL afterwards, TPH_ENOMEM). */
int tph_kai_add_victim_filter(tph_kai_session *s, tph_kai_evict_action a,
                              tph_kai_victim_filter_fn fn, void *state);
int tph_kai_add_scenario_validator(tph_kai_session *s, tph_kai_evict_action a,
                                   tph_kai_scenario_validator_fn fn, void *state);

/* Dispatch with KAI's rules: every filter, and every validator, must pass (none: true). */
bool tph_kai_victim_allowed(const tph_kai_session *s, tph_kai_evict_action a, uint32_t preemptor,
                            uint32_t victim);
bool tph_kai_scenario_valid(const tph_kai_session *s, tph_kai_evict_action a,
                            const tph_kai_scenario *sc);

/* ---- the allocate action's extension points (KAI-NOTES section 3) ----
 * Orders return < 0 when l goes first, > 0 when r does, 0 for "no opinion": the first
 * non-zero answer of the registered functions wins, then KAI's fallback (creation time, then
 * name; for queues also creation, then name). A JobOrder compares two jobs by their own state
 * only (their pods, their podgroups): allocate keeps each queue's best job until one of that
 * queue's jobs changes, as KAI's per-queue heaps do. A TaskOrder compares two tasks by what
 * the snapshot says of them (labels, creation, roles), never by session state: the session
 * ranks every task once after open and sorts by rank. NodeOrder scores are pure (the same
 * session, task and node give the same score, whatever was scored before) and never NaN:
 * allocate scores only the nodes a task fits. */
typedef int (*tph_kai_job_order_fn)(void *state, const tph_kai_session *s, uint32_t l, uint32_t r);
typedef int (*tph_kai_task_order_fn)(void *state, const tph_kai_session *s, uint32_t l, uint32_t r);
/* SubGroupOrder over two members of one sub-group set (sub-group indices: sets and pod sets
 * alike, as KAI sorts a set's members together); fallback: name. The point keeps its first
 * name, PodSetOrder, from when it ordered pod sets only. It compares by the state of the
 * members' own job only: the session keeps each job's turn (tph_kai_tasks_to_allocate) until
 * one of that job's tasks changes. */
typedef int (*tph_kai_pod_set_order_fn)(void *state, const tph_kai_session *s, uint32_t l,
                                        uint32_t r);
/* QueueOrder with each side's best pending job (-1: none). In a victims queue (reclaim's and
 * preempt's solver walk it reversed) the jobs are -1 and lvictims/rvictims, NULL elsewhere, are
 * KAI's lVictims/rVictims summed, [TPH_KAI_DIMS] as tph_kai_task_quota gives them: the requests
 * of the tasks in an allocated status (Allocated, Binding, Bound, Running) of every victim job
 * the queue gave so far, each as it was when popped (an elastic job popped twice counts twice,
 * the second time without the tasks taken the first), and of the one it would give next.
 * Besides its arguments and the snapshot, QueueOrder reads only the jobs' own state and what
 * events (tph_kai_event_fn) of tasks in the two queues' subtrees change: the solver keeps an
 * answer while neither side's job, job version (tph_kai_session_job_version), victims nor
 * subtree events changed. */
typedef int (*tph_kai_queue_order_fn)(void *state, const tph_kai_session *s, uint32_t lq,
                                      uint32_t rq, int32_t ljob, int32_t rjob,
                                      const double *lvictims, const double *rvictims);
/* NodePreOrder: once per task before its nodes are scored, over the nodes it fits on (idle
 * plus releasing), so a plugin can take the range it scores against. */
typedef void (*tph_kai_node_pre_order_fn)(void *state, const tph_kai_session *s, uint32_t task,
                                          const uint32_t *nodes, uint32_t n);
/* NodeOrder: *score for placing task on node; scores are SUMMED over plugins; a negative return
 * drops the node from the task's list. */
typedef int (*tph_kai_node_order_fn)(void *state, const tph_kai_session *s, uint32_t task,
                                     uint32_t node, double *score);
/* IsJobOverQueueCapacity: may job j take the tasks it is about to allocate? Only the first
 * registered counts; none registered: schedulable. */
typedef bool (*tph_kai_job_capacity_fn)(void *state, const tph_kai_session *s, uint32_t job,
                                        const uint32_t *tasks, uint32_t n);
/* Event handler: task placed on node virtually (sign +1: allocate or pipeline) or taken back
 * (sign -1: undo at a rollback or a discarded statement). */
typedef void (*tph_kai_event_fn)(void *state, const tph_kai_session *s, uint32_t task, int32_t node,
                                 int sign);

int tph_kai_add_job_order(tph_kai_session *s, tph_kai_job_order_fn fn, void *state);
int tph_kai_add_task_order(tph_kai_session *s, tph_kai_task_order_fn fn, void *state);
int tph_kai_add_pod_set_order(tph_kai_session *s, tph_kai_pod_set_order_fn fn, void *state);
int tph_kai_add_queue_order(tph_kai_session *s, tph_kai_queue_order_fn fn, void *state);
int tph_kai_add_node_pre_order(tph_kai_session *s, tph_kai_node_pre_order_fn fn, void *state);
int tph_kai_add_node_order(tph_kai_session *s, tph_kai_node_order_fn fn, void *state);
int tph_kai_add_job_capacity(tph_kai_session *s, tph_kai_job_capacity_fn fn, void *state);
int tph_kai_add_event_handler(tph_kai_session *s, tph_kai_event_fn fn, void *state);
/* Score locality (optional): what lets the placement walk keep a task shape's fit verdicts and
 * summed scores over the whole pool between tasks and scenarios, and evaluate again only the
 * nodes the ledger touched since. A NodeOrder or NodePreOrder function registered with the two
 * calls below promises, for every task its `local` callback answers true for (NULL: every
 * task), that node i's score depends only on the task's request (GPUs, fraction, devices, GPU
 * memory, CPU, memory, MIG instances, nominated node), node i's ledger row (idle, releasing, its
 * shared devices and MIG instances), its static columns, and the free ranges of the pool its
 * NodePreOrder read with tph_kai_session_free_range (read any other way, they would not be
 * checked); a NodePreOrder so registered keeps no other state the scores read. Kept scores
 * are used only while every registered NodeOrder and NodePreOrder function is local for the
 * task; GpuOrder functions, which decide where a shared pod fits, are taken to read only the
 * node's devices. The callback runs on the session's thread and writes nothing. */
typedef bool (*tph_kai_score_local_fn)(void *state, const tph_kai_session *s, uint32_t task);
int tph_kai_add_local_node_pre_order(tph_kai_session *s, tph_kai_node_pre_order_fn fn,
                                     tph_kai_score_local_fn local, void *state);
int tph_kai_add_local_node_order(tph_kai_session *s, tph_kai_node_order_fn fn,
                                 tph_kai_score_local_fn local, void *state);

/* A list of node sets (SubsetNodes' answer): set i is nodes[first[i] .. first[i + 1]), node
 * indices of the view. Zero-initialise; tph_kai_node_sets_free releases it. */
typedef struct tph_kai_node_sets {
	uint32_t *nodes;
	uint32_t *first; /* [n + 1] once a set is pushed */
	uint32_t n;
	uint32_t cap_nodes, cap_first;
} tph_kai_node_sets;
/* Append one set (a copy of nodes[0..n)); TPH_ENOMEM on failure. */
int tph_kai_node_sets_push(tph_kai_node_sets *ns, const uint32_t *nodes, uint32_t n);
void tph_kai_node_sets_free(tph_kai_node_sets *ns);

/* SubsetNodes: the node sets job `job` may try for the sub-group `subgroup` (-1: its root) and
 * its turn's tasks in that subtree, pushed onto *out in the order to try, from `nodes`. An
 * empty answer means "nowhere"; < 0 aborts the job's turn. */
typedef int (*tph_kai_subset_nodes_fn)(void *state, const tph_kai_session *s, uint32_t job,
                                       int32_t subgroup, const uint32_t *tasks, uint32_t n_tasks,
                                       const uint32_t *nodes, uint32_t n_nodes,
                                       tph_kai_node_sets *out);
/* PreJobAllocation: called once before each of a job's allocation turns. */
typedef void (*tph_kai_pre_job_allocation_fn)(void *state, const tph_kai_session *s, uint32_t job);
int tph_kai_add_subset_nodes(tph_kai_session *s, tph_kai_subset_nodes_fn fn, void *state);
int tph_kai_add_pre_job_allocation(tph_kai_session *s, tph_kai_pre_job_allocation_fn fn,
                                   void *state);
/* KAI's tree expansion: starting from the one set `nodes`, each registered function in turn
 * splits every set the previous one gave, the subsets kept in order (none registered: the one
 * set). *out is reset first. */
int tph_kai_subset_nodes(const tph_kai_session *s, uint32_t job, int32_t subgroup,
                         const uint32_t *tasks, uint32_t n_tasks, const uint32_t *nodes,
                         uint32_t n_nodes, tph_kai_node_sets *out);
void tph_kai_pre_job_allocation(const tph_kai_session *s, uint32_t job);

/* Dispatch with KAI's rules (above). tph_kai_node_score: the sum, or -1 when a plugin drops
 * the node (then *score is unset). */
int tph_kai_job_order(const tph_kai_session *s, uint32_t l, uint32_t r);
int tph_kai_task_order(const tph_kai_session *s, uint32_t l, uint32_t r);
int tph_kai_pod_set_order(const tph_kai_session *s, uint32_t l, uint32_t r);
int tph_kai_queue_order(const tph_kai_session *s, uint32_t lq, uint32_t rq, int32_t ljob,
                        int32_t rjob, const double *lvictims, const double *rvictims);
void tph_kai_node_pre_order(const tph_kai_session *s, uint32_t task, const uint32_t *nodes,
                            uint32_t n);
int tph_kai_node_score(const tph_kai_session *s, uint32_t task, uint32_t node, double *score);
bool tph_kai_job_schedulable(const tph_kai_session *s, uint32_t job, const uint32_t *tasks,
                             uint32_t n);

/* ---- the points of reclaim, preempt and consolidation (KAI-NOTES sections 3 and 5) ----
 * CanReclaimResources: may `job` take resources from other queues at all? Only the first
 * registered counts; none registered: no. */
typedef bool (*tph_kai_can_reclaim_fn)(void *state, const tph_kai_session *s, uint32_t job);
/* OnJobSolutionStart: the solver starts on a new pending job (a plugin resets the state its
 * scenario validators simulate with). All run. */
typedef void (*tph_kai_solution_start_fn)(void *state, const tph_kai_session *s);
/* IsTaskAllocationOnNodeOverCapacity: may `task` be placed on `node` as far as its queue's
 * capacity goes? Only the first registered counts; none registered: yes. */
typedef bool (*tph_kai_task_capacity_fn)(void *state, const tph_kai_session *s, uint32_t task,
                                         uint32_t node);

int tph_kai_add_can_reclaim(tph_kai_session *s, tph_kai_can_reclaim_fn fn, void *state);
int tph_kai_add_job_solution_start(tph_kai_session *s, tph_kai_solution_start_fn fn, void *state);
/* IsNonPreemptibleJobOverQueueQuota, with IsJobOverQueueCapacity's signature (true: within). */
int tph_kai_add_nonpreemptible_quota(tph_kai_session *s, tph_kai_job_capacity_fn fn, void *state);
int tph_kai_add_task_capacity(tph_kai_session *s, tph_kai_task_capacity_fn fn, void *state);

/* Dispatch with KAI's rules (above). Scenario validators (tph_kai_scenario_valid) are asked
 * with the scenario applied in the solver's open statement: a victim task re-placed is then
 * Pipelined (tph_kai_session_status), one that is killed Releasing. */
bool tph_kai_can_reclaim(const tph_kai_session *s, uint32_t job);
void tph_kai_job_solution_start(const tph_kai_session *s);
bool tph_kai_nonpreemptible_within_quota(const tph_kai_session *s, uint32_t job,
                                         const uint32_t *tasks, uint32_t n);
bool tph_kai_task_within_capacity(const tph_kai_session *s, uint32_t task, uint32_t node);

/* ---- the predicates (KAI-NOTES section 3) ----
 * PrePredicate: may `task` of `job` be placed at all (once per task, before its nodes are
 * scored)? Every registered function must pass; none registered: yes. */
typedef bool (*tph_kai_pre_predicate_fn)(void *state, const tph_kai_session *s, uint32_t task,
                                         uint32_t job);
/* VictimInvariantPrePredicate: does `task` fail for a reason no eviction can change (the
 * solver's actions then skip its job)? The first function that says so decides. */
typedef bool (*tph_kai_victim_invariant_fn)(void *state, const tph_kai_session *s, uint32_t task);
/* Predicate: may `task` go on `node`, which its request fits (idle plus releasing)? Every
 * registered function must pass; the first refusal rejects the node. Pure, as NodeOrder is:
 * allocate asks it only of a node that would beat the best found so far. */
typedef bool (*tph_kai_predicate_fn)(void *state, const tph_kai_session *s, uint32_t task,
                                     uint32_t node);
/* QueueFairShare: queue q's fair share per dimension (GPUs, millicores, bytes) into out.
 * Only the first registered counts. */
typedef void (*tph_kai_fair_share_fn)(void *state, const tph_kai_session *s, uint32_t q,
                                      double out[TPH_KAI_DIMS]);

int tph_kai_add_pre_predicate(tph_kai_session *s, tph_kai_pre_predicate_fn fn, void *state);
int tph_kai_add_victim_invariant(tph_kai_session *s, tph_kai_victim_invariant_fn fn, void *state);
int tph_kai_add_predicate(tph_kai_session *s, tph_kai_predicate_fn fn, void *state);
int tph_kai_add_fair_share(tph_kai_session *s, tph_kai_fair_share_fn fn, void *state);

/* Dispatch with KAI's rules (above). tph_kai_victim_invariant_fails: true when a function
 * says the task fails whatever is evicted. tph_kai_fair_share: false when none is registered
 * (out untouched). */
bool tph_kai_pre_predicate(const tph_kai_session *s, uint32_t task, uint32_t job);
bool tph_kai_victim_invariant_fails(const tph_kai_session *s, uint32_t task);
bool tph_kai_predicate(const tph_kai_session *s, uint32_t task, uint32_t node);
bool tph_kai_fair_share(const tph_kai_session *s, uint32_t q, double out[TPH_KAI_DIMS]);

/* Whether a shared-GPU task placed on `node` now would open a new GPU group (a device no
 * shared pod uses yet, or none fits), which KAI's reservation pod makes cost a second pod. */
bool tph_kai_gpu_new_group(const tph_kai_session *s, uint32_t task, uint32_t node);
/* Whether task t takes a part of one shared device (a one-device fraction or GPU memory). */
bool tph_kai_task_shared_gpu(const tph_kai_session *s, uint32_t t);
/* ScenarioGenerator (sg-nodelocalgreedy, sg-multinodegang): the job solver of reclaim, preempt
 * and consolidation tries the registered generators in registration order for each job. Both
 * are built into the solver (kernel/actions/kai/solver_gen.c); a plugin enables one by
 * registering it. A generator registered twice counts once (KAI keys them by name). */
typedef enum tph_kai_generator {
	TPH_KAI_GEN_NODE_LOCAL_GREEDY = 0, /* per-node scenarios of the accumulated victims */
	TPH_KAI_GEN_MULTI_NODE_GANG = 1,   /* accumulated victims, node subsets by capacity */
	TPH_KAI_N_GENERATORS
} tph_kai_generator;
int tph_kai_add_scenario_generator(tph_kai_session *s, tph_kai_generator g);

/* KAI's node ledger as the actions left it, [node * TPH_KAI_DIMS + dim]: idle (allocatable
 * less every pod holding the node) and releasing (held by Releasing pods, free once they go).
 * GPUs are whole devices; cpu millicores; memory bytes. */
const double *tph_kai_session_idle(const tph_kai_session *s);
const double *tph_kai_session_releasing(const tph_kai_session *s);
/* The least (*min) and the most (*max) idle plus releasing amount of dimension dim
 * (TPH_KAI_GPU, _CPU or _MEMORY) over the in-pool nodes whose allocatable of it is not zero,
 * kept as the ledger changes: O(1) amortized, for a NodePreOrder that takes a range. `nodes`,
 * n: the set the plugin was handed, distinct in-pool nodes (a SubsetNodes answer is drawn from
 * its input). Returns false, leaving *min and *max alone, unless the set is the whole pool (n
 * is the pool's size) or the set the solver re-places a scenario's pods on (kept the same way),
 * and in naive mode, where the plugin takes the range itself. When no
 * pool node has the resource, *min = 1e300 and *max = 0. */
bool tph_kai_session_free_range(const tph_kai_session *s, int dim, const uint32_t *nodes,
                                uint32_t n, double *min, double *max);
/* What node n's shared GPUs (devices that fractional pods hold part of, out of the idle whole
 * GPUs) still offer, in GPUs: per device 1 less its pods' fractions plus the Releasing ones'
 * (KAI's AvailableSharedGPUFractions, the topology plugin's room for fractional pods). */
double tph_kai_session_shared_gpus_free(const tph_kai_session *s, uint32_t node);
/* KAI's status sets (pod_status) over tph_kai_status values: alive (pending or allocated),
 * active-allocated (Allocated, Pipelined, Binding, Bound, Running), active-used (those,
 * Releasing and StuckInReleasing: holding a node; a stuck pod's resources are not releasing). */
bool tph_kai_alive(uint8_t status);
bool tph_kai_active_used(uint8_t status);
bool tph_kai_active_allocated(uint8_t status);

/* KAI's GetTasksToAllocate: the pending tasks job j tries in its next allocate turn, in order,
 * written to out (room for the job's tasks); returns how many. Walking the sub-group tree, a
 * set below its minimum K takes from its K best members in sub-group order; a satisfied set
 * takes from its first member that has something (one pod more: elastic growth). */
uint32_t tph_kai_tasks_to_allocate(const tph_kai_session *s, uint32_t j, uint32_t *out);
/* A task's request in the same units, [dim]: what node fit compares (no MIG instances). */
void tph_kai_task_request(const tph_kai_session *s, uint32_t task, double req[TPH_KAI_DIMS]);
/* The request as KAI's queue accounting and solver quantify it (GetGpusQuota, TotalGPUs): MIG
 * instances counted as GPUs, each as the g of its profile. */
void tph_kai_task_quota(const tph_kai_session *s, uint32_t task, double req[TPH_KAI_DIMS]);

/* What plugins read of a session: its snapshot's columns and the state the actions left
 * (tph_kai_session_status, _node, _last_start above); job j's tasks, in snapshot order. */
const tph_kai_view *tph_kai_session_view(const tph_kai_session *s);
uint32_t tph_kai_session_job_tasks(const tph_kai_session *s, uint32_t j, const uint32_t **out);
/* A number that grows whenever one of job j's tasks changes status, node or virtual eviction
 * (a statement operation, a rollback, a commit), never 0 outside naive mode: a plugin may keep
 * what it derives from the job's own tasks (its turn's resources, its active pods) while the
 * number stays the same. 0 in naive mode: keep nothing, compute afresh. */
uint64_t tph_kai_session_job_version(const tph_kai_session *s, uint32_t j);

/* ---- shared GPUs and GpuOrder (KAI-NOTES sections 1 and 3) ----
 * A fractional or gpu-memory pod takes `gpu_devices` devices of its node: devices shared pods
 * already use that still fit it (once Releasing pods go), and free whole ones. GpuOrder scores
 * each candidate for (task, node): `dev` is a device index (tph_kai_session_devices) or
 * TPH_KAI_WHOLE_GPU for a free whole GPU; scores are SUMMED over plugins, a negative return
 * drops the candidate. The pod takes the best-scored candidates; equal scores keep devices in
 * index order (a node's devices named by running pods first, by name) before whole GPUs. */
#define TPH_KAI_WHOLE_GPU (-1)
typedef int (*tph_kai_gpu_order_fn)(void *state, const tph_kai_session *s, uint32_t task,
                                    uint32_t node, int32_t dev, double *score);
int tph_kai_add_gpu_order(tph_kai_session *s, tph_kai_gpu_order_fn fn, void *state);
/* The sum, or -1 when a plugin drops the candidate (*score then unset). */
int tph_kai_gpu_order(const tph_kai_session *s, uint32_t task, uint32_t node, int32_t dev,
                      double *score);
/* Node n's devices are dev_first[n] .. dev_first[n + 1]: two per GPU of nvidia.com/gpu.count,
 * since KAI's devices are GPU-group names and a GPU whose shared pods are all leaving can
 * already be promised whole to a new group. */
const uint32_t *tph_kai_session_devices(const tph_kai_session *s);
/* KAI's GetUsedGpuPortion: the GPU memory shared pods use on device `dev` of node `node` over
 * the node's memory per device. TPH_EINVAL when that memory is below 100 MiB (KAI's error). */
int tph_kai_gpu_used_portion(const tph_kai_session *s, uint32_t node, uint32_t dev,
                             double *portion);
/* KAI's IsTaskAllocatable: task fits node's idle resources now. A shared pod: its cpu and
 * memory fit, and the node's idle whole GPUs plus the used devices that fit it (once Releasing
 * pods go, as KAI counts them) are at least its device count. */
bool tph_kai_task_allocatable(const tph_kai_session *s, uint32_t task, uint32_t node);
/* Whether task fits some device of node that shared pods already use (KAI's
 * IsTaskFitOnGpuGroup over the node's GPU groups). */
bool tph_kai_gpu_fits_shared(const tph_kai_session *s, uint32_t task, uint32_t node);
/* The devices a placed shared task sits on (its gpuGroups), written to *out; how many (0: none
 * or not shared). A device's gpuGroups name: the running pods' name, NULL for a device first
 * taken in this session (KAI names it with a fresh UUID). */
uint32_t tph_kai_task_devices(const tph_kai_session *s, uint32_t task, const int32_t **out);
const char *tph_kai_device_name(const tph_kai_session *s, uint32_t dev);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif

/* Read-only column views of a session: what every plugin, built-in or external, reads.
 *
 * The kernel keeps the cluster in struct-of-arrays stores (one column per field, indices dense
 * 0..n-1 in snapshot order, which breaks ties); a session copies the mutable columns (node
 * used/idle/releasing/pipelined, task status, node and nominated, job counters) into its arena and
 * keeps them current as actions decide. tph_view_of() gives a plugin those stores. Per-node
 * callbacks read the columns directly, so a task-node pair costs loads, never a function call.
 *
 * Contract:
 * - Everything reached from a view is READ-ONLY for plugins (const where C allows it; the
 *   columns are plain pointers because the kernel writes them). A plugin changes the session
 *   only through the framework: statements, event handlers, registrations.
 * - Columns marked "mutable" change while actions run; read them when called, do not cache
 *   values across callbacks (pointers stay valid for the session's life).
 * - Strings are interned ids (tph_sid): compare ids, not text; tph_session_str() gives the text.
 * - The view grows only at its end; `size` is sizeof(tph_view) as the kernel was built, so a
 *   plugin built against a newer header can tell which fields it may read
 *   (TPH_VIEW_HAS(v, field)). A store's layout changes only with TPH_PLUGIN_ABI. */
#ifndef TEPHRA_COLUMNS_H
#define TEPHRA_COLUMNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tephra/cluster.h"
#include "tephra/resource.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

/* An interned string. */
typedef uint32_t tph_sid;
#define TPH_SID_EMPTY 0u         /* the empty string, always interned */
#define TPH_SID_NONE  UINT32_MAX /* no string (absent value) */

typedef uint32_t tph_idx;
#define TPH_NOIDX UINT32_MAX

/* Volcano's task statuses, in Volcano's order. */
typedef enum tph_task_status {
	TPH_TS_PENDING = 0,
	TPH_TS_ALLOCATED,
	TPH_TS_PIPELINED,
	TPH_TS_BINDING,
	TPH_TS_BOUND,
	TPH_TS_RUNNING,
	TPH_TS_RELEASING,
	TPH_TS_SUCCEEDED,
	TPH_TS_FAILED,
	TPH_TS_UNKNOWN,
	TPH_TS_COUNT
} tph_task_status;

extern const char *const tph_task_status_names[TPH_TS_COUNT];

/* Volcano's AllocatedStatus(): the task holds resources on its node. */
static inline bool tph_ts_allocated(uint8_t s)
{
	return s == TPH_TS_ALLOCATED || s == TPH_TS_BINDING || s == TPH_TS_BOUND ||
	       s == TPH_TS_RUNNING;
}

/* ---- resource dimensions ---- */

typedef struct tph_dims {
	uint32_t n;
	tph_sid name[TPH_RES_MAX];
	uint8_t unit[TPH_RES_MAX]; /* tph_res_unit */
} tph_dims;

/* A resource row with a mask of the dimensions that were given (bit d = dimension d). Rows
 * whose absence means "unlimited" (capability) or "unset" (deserved) need the mask. */
typedef uint32_t tph_dimmask;

/* ---- cold data: interned, immutable, shared by cache and snapshots ---- */

typedef struct tph_label {
	tph_sid key, value;
} tph_label;

/* Labels sorted by key id, so a lookup is a binary search and sets compare by memcmp. */
typedef struct tph_labels {
	const tph_label *items;
	uint32_t n;
} tph_labels;

typedef struct tph_taint_row {
	tph_sid key, value;
	uint8_t effect; /* tph_taint_effect */
} tph_taint_row;

typedef struct tph_tol_row {
	tph_sid key, value; /* key TPH_SID_EMPTY with Exists: every key */
	uint8_t op;         /* tph_toleration_op */
	int8_t effect;      /* -1: every effect */
} tph_tol_row;

typedef struct tph_expr_row {
	tph_sid key;
	uint8_t op; /* tph_sel_op */
	uint32_t n_values;
	const tph_sid *values;
	const int64_t *numbers; /* Gt/Lt: values parsed as integers */
} tph_expr_row;

typedef struct tph_term_row {
	const tph_expr_row *exprs;
	uint32_t n;
} tph_term_row;

typedef struct tph_pref_row {
	int32_t weight;
	tph_term_row term;
} tph_pref_row;

typedef struct tph_selector_row {
	bool present;
	tph_labels match_labels;
	tph_term_row match_exprs;
} tph_selector_row;

typedef struct tph_podaff_row {
	tph_selector_row selector;
	const tph_sid *namespaces; /* n_namespaces == 0: the pod's own */
	uint32_t n_namespaces;
	tph_sid topology_key;
	int32_t weight;
} tph_podaff_row;

typedef struct tph_spread_row {
	int32_t max_skew;
	tph_sid topology_key;
	bool do_not_schedule;
	int32_t min_domains;
	tph_selector_row selector;
} tph_spread_row;

/* One logical CPU of a node's Numatopology (spec.cpuDetail). */
typedef struct tph_numa_cpu_row {
	int32_t id, numa, socket, core;
} tph_numa_cpu_row;

/* A node's Numatopology (tph_node_numa), as Volcano's numa-aware plugin reads it. */
typedef struct tph_node_numa_row {
	tph_sid cpu_manager_policy;      /* policies.CPUManagerPolicy; TPH_SID_EMPTY when absent */
	tph_sid topology_manager_policy; /* policies.TopologyManagerPolicy; TPH_SID_EMPTY: absent */
	int64_t reserved_cpu;            /* resReserved cpu, millicores; 0 when absent */
	bool has_cpu;                    /* numares has a "cpu" entry */
	const int32_t *cpu_alloc;        /* its allocatable CPUs, ascending ids */
	uint32_t n_cpu_alloc;
	const tph_numa_cpu_row *cpus; /* cpuDetail, ascending id */
	uint32_t n_cpus;
} tph_node_numa_row;

/* One entry of a node's ImageStates: an image name it holds, with the summary Volcano's cache
 * made when the node was put (addNodeImageStates): the size of the first node that brought the
 * name, and how many nodes held it then, this one included. */
typedef struct tph_image_row {
	tph_sid name;
	uint32_t num_nodes;
	int64_t size;
} tph_image_row;

/* Node metadata (cold): labels, annotations, taints, measured usage, NUMA topology, images. */
typedef struct tph_node_meta {
	tph_labels labels;
	tph_labels annotations;
	const tph_taint_row *taints;
	uint32_t n_taints;
	tph_node_usage usage;
	const tph_node_numa_row *numa; /* NULL: the node has no Numatopology */
	/* ---- appended (tph_view.rev >= 1) ---- */
	const tph_image_row *images; /* sorted by name id, names unique; NULL when none */
	uint32_t n_images;
} tph_node_meta;

/* One container limit: a resource name and its amount in exact units (never a dimension). */
typedef struct tph_limit_row {
	tph_sid name;
	int64_t value;
} tph_limit_row;

/* One pod status condition. */
typedef struct tph_cond_row {
	tph_sid type;
	uint8_t status;                       /* tph_cond_status */
	tph_time last_transition, last_probe; /* 0: the zero time */
	tph_sid reason, message;              /* TPH_SID_EMPTY: "" */
} tph_cond_row;

/* Pod labels and annotations (often unique per pod), and what only some pods carry: container
 * limits (sorted by name id, for device code and the extender) and status conditions (sorted
 * by type id; types are unique). NULL lists when a pod has none. */
typedef struct tph_pod_meta {
	tph_labels labels;
	tph_labels annotations;
	const tph_limit_row *limits;
	uint32_t n_limits;
	const tph_cond_row *conditions;
	uint32_t n_conditions;
	/* The pod's status.phase as loaded (tph_pod_phase): status follows from it but does not
	 * keep it (a deleting pod is Releasing in either phase), and cdp reads Running. */
	uint8_t phase;
} tph_pod_meta;

/* A host port a pod binds (NodePorts), as kube-scheduler's HostPortInfo keys it. */
typedef struct tph_port_row {
	tph_sid ip;       /* the host IP as written; "0.0.0.0" (every address) when none */
	uint8_t protocol; /* tph_port_protocol */
	int32_t port;     /* 1..65535 */
} tph_port_row;

/* A pod's scheduling constraints, interned: pods with equal specs share one id, which is the
 * basis of equivalence classes. */
typedef struct tph_pod_spec {
	uint32_t id;
	tph_labels node_selector;
	const tph_tol_row *tolerations;
	uint32_t n_tolerations;
	const tph_term_row *node_required; /* OR of terms */
	uint32_t n_node_required;
	const tph_pref_row *node_preferred;
	uint32_t n_node_preferred;
	const tph_podaff_row *pod_required, *pod_preferred, *anti_required, *anti_preferred;
	uint32_t n_pod_required, n_pod_preferred, n_anti_required, n_anti_preferred;
	const tph_spread_row *spread;
	uint32_t n_spread;
	/* ---- appended (tph_view.rev >= 1) ---- */
	const tph_port_row *host_ports; /* in the pod's order; NULL when none */
	uint32_t n_host_ports;
	/* ImageLocality: the known images of the init containers, then of the containers, as
	 * normalizedImageName writes them (":latest" added to a name without a tag), repeats kept;
	 * and how many containers the pod has, init containers included. */
	const tph_sid *images;
	uint32_t n_images;
	uint32_t n_containers;
} tph_pod_spec;

typedef struct tph_subgroup_row {
	tph_sid name;
	int32_t subgroup_size, min_subgroups;
	const tph_sid *match_label_keys;
	uint32_t n_match_label_keys;
	tph_selector_row selector;
	uint8_t topo_mode;
	int32_t topo_tier;      /* -1: none */
	tph_sid topo_tier_name; /* TPH_SID_NONE: none */
} tph_subgroup_row;

/* Podgroup cold data. */
typedef struct tph_job_meta {
	tph_labels annotations;
	const tph_label *min_tasks; /* key = role, value unused; counts in min_task_counts */
	const int32_t *min_task_counts;
	uint32_t n_min_tasks;
	const tph_subgroup_row *subgroups;
	uint32_t n_subgroups;
} tph_job_meta;

/* Queue cold data. `has_affinity`: spec.affinity is set (even with every list empty), or
 * some list is not empty. */
typedef struct tph_queue_meta {
	tph_labels annotations;
	const tph_sid *aff_required, *aff_preferred, *anti_required, *anti_preferred;
	uint32_t n_aff_required, n_aff_preferred, n_anti_required, n_anti_preferred;
	bool has_affinity;
} tph_queue_meta;

typedef struct tph_hn_member_row {
	uint8_t kind; /* tph_member_kind */
	tph_sid name; /* name or regex text */
	tph_labels labels;
} tph_hn_member_row;

/* ---- stores ---- */

enum {
	TPH_NODE_READY = 1u << 0,
	TPH_NODE_UNSCHEDULABLE = 1u << 1,
	TPH_NODE_IN_SHARD = 1u << 2,
};

/* Node columns; per-dimension columns are laid out [d * stride + i]. */
typedef struct tph_node_store {
	uint32_t n, stride;
	int64_t *alloc, *capacity;                    /* immutable */
	int64_t *used, *idle, *releasing, *pipelined; /* mutable */
	uint32_t *ntasks;                             /* mutable: tasks placed on the node */
	uint8_t *flags;
	tph_sid *name;
	const tph_node_meta **meta;
	/* ---- appended (tph_view.rev >= 2) ---- */
	/* A session's allocatable and used cpu and memory node-major, [i * TPH_NODE_CM + TPH_CM_*]
	 * (32 bytes a node, on a cache line), the same values as alloc and used, kept with used:
	 * a scorer of scattered nodes reads one line for the four where the columns cost four
	 * lines. NULL in a snapshot's store. */
	int64_t *cm;
} tph_node_store;

enum {
	TPH_CM_ALLOC_CPU,
	TPH_CM_ALLOC_MEM,
	TPH_CM_USED_CPU,
	TPH_CM_USED_MEM,
	TPH_NODE_CM
};

enum {
	TPH_TASK_BEST_EFFORT = 1u << 0,
	TPH_TASK_PREEMPTABLE = 1u << 1,
	TPH_TASK_PREEMPT_NEVER = 1u << 2,
	TPH_TASK_OWN_JOB = 1u << 3, /* no podgroup: a one-member job of its own */
	/* pod.Spec.Priority is nil: no priority, no priorityClassName and no globalDefault class
	 * (the task's priority is then Volcano's default 1). */
	TPH_TASK_PRIORITY_NIL = 1u << 4,
};

/* Task columns; requests are rows [t * ndim + d]. */
typedef struct tph_task_store {
	uint32_t n;
	int64_t *req;       /* immutable */
	tph_idx *job;       /* TPH_NOIDX: its job was left out (queue missing) */
	uint8_t *status;    /* mutable: tph_task_status */
	tph_idx *node;      /* mutable */
	tph_idx *nominated; /* mutable: allocate clears a nomination it finds invalid */
	int32_t *priority;
	uint8_t *flags;
	tph_time *creation;
	tph_sid *name, *ns, *uid, *role;
	tph_sid *key;    /* "namespace/name": the decision log names tasks by it, uncopied */
	tph_sid *pclass; /* priorityClassName as written; TPH_SID_NONE: none */
	const tph_pod_spec **spec;
	const tph_pod_meta **meta;
	/* The pod's scheduling.k8s.io/group-name annotation as "namespace/name" (its podGroup,
	 * whether or not that podgroup exists; Volcano's device code keys pod groups so);
	 * TPH_SID_NONE: none. */
	tph_sid *group;
	/* ---- appended (tph_view.rev >= 1) ---- */
	/* kube-scheduler's non-zero request of the pod, rows [t * 2 + k], k 0 cpu (millicores), 1
	 * memory (bytes): each container (and init container) that names no cpu counts 100m, none
	 * no memory 200Mi (NonMissingContainerRequests), overhead added. req holds the real ones.
	 */
	int64_t *nonzero;
} tph_task_store;

typedef struct tph_job_store {
	uint32_t n;
	tph_idx *queue;
	int32_t *min_member;
	uint8_t *phase; /* tph_pg_phase as loaded */
	int32_t *priority;
	tph_time *creation;
	tph_sid *name, *ns, *uid;
	int64_t *min_res; /* rows [j * ndim + d] */
	uint8_t *has_min_res;
	uint8_t *topo_mode;
	int32_t *topo_tier;      /* -1: none */
	tph_sid *topo_tier_name; /* TPH_SID_NONE: none */
	const tph_job_meta **meta;
	uint32_t *task_off; /* CSR: tasks of job j are task_idx[task_off[j] .. task_off[j+1]) */
	tph_idx *task_idx;  /* in snapshot order within each job */
	/* Sums over each job's tasks as the snapshot holds them, made in the tasks pass so that a
	 * session starts from them instead of walking the tasks again: tasks per status
	 * [j * TPH_TS_COUNT + st], the requests of AllocatedStatus and of Pending tasks (rows
	 * [j * ndim + d]), the highest task priority (at least 0), Pending best-effort tasks. */
	uint32_t *ts_count;
	int64_t *alloc_req, *pending_req;
	int32_t *top_prio;
	uint32_t *be_pending;
	/* ---- appended (tph_view.rev >= 1) ---- */
	tph_dimmask *min_res_mask; /* the dimensions minResources names (a zero value included) */
} tph_job_store;

typedef struct tph_queue_store {
	uint32_t n;
	int32_t *weight;
	int64_t *capability, *deserved, *guarantee; /* rows [q * ndim + d] */
	tph_dimmask *cap_mask, *des_mask, *gua_mask;
	tph_idx *parent; /* TPH_NOIDX: none (root, or parent named root when root is absent) */
	uint8_t *state;
	uint8_t *reclaimable;
	int32_t *priority;
	tph_time *creation;
	tph_sid *name;
	const tph_queue_meta **meta;
} tph_queue_store;

typedef struct tph_pclass_store {
	uint32_t n;
	tph_sid *name;
	int32_t *value;
	uint8_t *global_default, *preempt_never;
} tph_pclass_store;

typedef struct tph_hypernode_store {
	uint32_t n;
	tph_sid *name;
	int32_t *tier;
	tph_sid *tier_name; /* TPH_SID_NONE: none */
	const tph_hn_member_row **members;
	uint32_t *n_members;
} tph_hypernode_store;

typedef struct tph_quota_store {
	uint32_t n;
	tph_sid *name, *ns;
	int64_t *hard; /* rows [i * ndim + d] */
	tph_dimmask *hard_mask;
	/* ---- appended (tph_view.rev >= 1) ---- */
	int64_t *used; /* status.used, rows [i * ndim + d]; 0 where it names nothing */
} tph_quota_store;

/* One entry of a PodDisruptionBudget's status.disruptedPods: a pod of the budget's namespace. */
typedef struct tph_disrupted_row {
	tph_sid pod; /* the pod's name */
	tph_time time;
} tph_disrupted_row;

/* PodDisruptionBudget cold data, interned. The selector as written: not present (nil) or with
 * neither matchLabels nor matchExpressions, it selects no pod for Volcano's pdb plugin (policy/v1
 * would select the namespace); only In, NotIn, Exists and DoesNotExist occur in it. The disrupted
 * pods sorted by name id, names unique. minAvailable/maxUnavailable as written (at most one
 * present); no scheduler reads them. */
typedef struct tph_pdb_meta {
	tph_selector_row selector;
	const tph_disrupted_row *disrupted;
	uint32_t n_disrupted;
	tph_int_or_percent min_available, max_unavailable;
} tph_pdb_meta;

/* PodDisruptionBudgets in snapshot order. */
typedef struct tph_pdb_store {
	uint32_t n;
	tph_sid *name, *ns;
	int32_t *disruptions_allowed; /* status.disruptionsAllowed (>= 0), never derived */
	const tph_pdb_meta **meta;
} tph_pdb_store;

/* Label lookup: the value id of `key`, or TPH_SID_NONE (binary search: labels are sorted). */
tph_sid tph_labels_get(tph_labels l, tph_sid key);

/* ---- session state beyond the snapshot ---- */

/* Per-job counters the framework keeps current as tasks change status. */
typedef struct tph_job_state {
	uint32_t *count;        /* [j * TPH_TS_COUNT + status] */
	int64_t *allocated;     /* [j * ndim + d]: requests of tasks in an allocated status */
	uint8_t *phase;         /* mutable podgroup phase */
	uint8_t *unschedulable; /* set this session (gang's close-time condition) */
	/* As the tasks stood at open (the subjob tables start from them): the highest task
	 * priority, at least 0, and the Pending best-effort tasks; the snapshot's columns. */
	const int32_t *open_top_prio;
	const uint32_t *open_be_pending;
} tph_job_state;

/* Volcano's api.EvictionKind. */
typedef enum tph_evict_kind {
	TPH_EVICT_UNKNOWN = 0,
	TPH_EVICT_GANG_PREEMPT = 1, /* the gangpreempt action */
	TPH_EVICT_GANG_RECLAIM = 2, /* the gangreclaim action */
	TPH_EVICT_TASK_PREEMPT = 3,
	TPH_EVICT_TASK_RECLAIM = 4,
} tph_evict_kind;

/* Volcano's EvictionContext, plus the candidate set of Preemptive(queue, tasks): an eviction
 * action sets it around its tph_unified_evictable() and tph_preemptive() calls and zeroes it
 * after (see ep.h); callbacks read it. */
typedef struct tph_eviction {
	uint8_t kind;         /* tph_evict_kind */
	tph_idx job;          /* EvictionContext.Job: the evicting job */
	tph_idx hn;           /* EvictionContext.HyperNode: the domain */
	const tph_idx *tasks; /* Preemptive's candidates when it is asked with task TPH_NOIDX */
	uint32_t n_tasks;
} tph_eviction;

typedef struct tph_session tph_session;
struct tph_topo; /* tephra/topology.h */

/* What a plugin reads of a session. The session begins with it (tph_view_of is a cast). */
typedef struct tph_view {
	uint32_t size; /* sizeof(tph_view) as the kernel was built */
	uint32_t
	    ndim; /* resource dimensions: rows are [i * ndim + d], node columns [d * stride + i] */
	const tph_dims *dims;
	const tph_node_store *nodes;      /* the session's (mutable columns are its copies) */
	const tph_task_store *tasks;      /* the session's (status and node are mutable) */
	const tph_task_store *open_tasks; /* the snapshot's: tasks as they stood at open */
	const tph_job_store *jobs;
	const tph_job_state *js; /* mutable per-job counters */
	const tph_queue_store *queues;
	const tph_pclass_store *pclasses;
	const tph_quota_store *quotas;
	const tph_hypernode_store *hypernodes; /* as declared; the session's tree is in topo */
	const tph_idx *ready_nodes;            /* READY nodes in snapshot order: the candidates */
	uint32_t n_ready;
	uint32_t n_specs;             /* every tasks->spec[t]->id is below this */
	tph_time now;                 /* the session clock (the scenario's `now`) */
	const tph_eviction *eviction; /* set by eviction actions around their victim calls */
	const struct tph_topo *topo;  /* hypernode tree, job topologies, subjobs */
	/* ---- appended later: a plugin checks TPH_VIEW_HAS(v, field) before reading ---- */
	/* The snapshot's PodDisruptionBudgets. A kernel whose view has them also fills
	 * tph_pod_meta.phase, which came with them. */
	const tph_pdb_store *pdbs;
	/* Which of the fields appended to the stores and cold rows above this kernel fills: those
	 * marked "tph_view.rev >= N" for N up to this; TPH_COLUMNS_REV as the kernel was built. */
	uint32_t rev;
} tph_view;

/* 1: quota used, job minResources masks, task non-zero requests, pod host ports and images,
 * node images. 2: the nodes' cpu and memory lines (tph_node_store.cm). */
#define TPH_COLUMNS_REV 2

#define TPH_VIEW_HAS(v, field) ((v)->size >= offsetof(tph_view, field) + sizeof((v)->field))
/* Whether the view's kernel fills the fields of revision r. */
#define TPH_VIEW_REV(v, r) (TPH_VIEW_HAS(v, rev) && (v)->rev >= (r))

static inline const tph_view *tph_view_of(const tph_session *s)
{
	return (const tph_view *)(const void *)s;
}

/* Queue of a task's job (TPH_NOIDX without a job). */
static inline tph_idx tph_task_queue_of(const tph_view *v, tph_idx t)
{
	tph_idx j = v->tasks->job[t];
	return j == TPH_NOIDX ? TPH_NOIDX : v->jobs->queue[j];
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif

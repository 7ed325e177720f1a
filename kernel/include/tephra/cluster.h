/* The cluster cache: the persistent model of a cluster that a host updates incrementally,
 * and the immutable snapshots that sessions are opened over.
 *
 * A host describes objects with the plain-data descriptors below (strings are borrowed for
 * the duration of the call; the cache copies and interns what it keeps). Resources are given
 * in exact units (see resource.h); the scenario loader is just one way to fill a cache. A closed
 * session's decisions go back into the cache with tph_cluster_apply (tephra/session.h).
 *
 * Descriptors and their defaults. Every descriptor a put takes starts from its INIT macro:
 *
 *     tph_node_desc n = TPH_NODE_DESC_INIT;
 *     n.name = "n1";
 *     n.allocatable = (tph_res_list){cpu_and_memory, 2};
 *
 *     TPH_NODE_DESC_INIT    TPH_POD_DESC_INIT             TPH_PODGROUP_DESC_INIT
 *     TPH_QUEUE_DESC_INIT   TPH_PRIORITY_CLASS_DESC_INIT  TPH_HYPERNODE_DESC_INIT
 *     TPH_QUOTA_DESC_INIT   (and for the items of a podgroup: TPH_SUBGROUP_POLICY_INIT)
 *
 * The macro sets `size` (the struct's sizeof) and the few defaults that are not zero: a queue's
 * weight 1, a podgroup's minMember 1, a subgroup's size 1, "no highest tier" in a network
 * topology. Weight 0 and minMember 0 are values Volcano accepts, distinct from the defaults,
 * so they are not encoded as zero. Every other field is named so that zero is what Kubernetes
 * and Volcano do when the field is left out: a node is ready (`not_ready`) and schedulable, a
 * queue is Open and reclaimable (`not_reclaimable`) under root, a pod is Pending and unbound
 * and preemptable as its volcano.sh/preemptable annotation or label says, true without either
 * (TPH_PREEMPTABLE_UNSET), a podgroup is Pending in queue "default". A put refuses a descriptor
 * whose `size` is 0 with TPH_EINVAL and "tph_queue_desc not initialised: start from
 * TPH_QUEUE_DESC_INIT", and one whose `size` is another struct's (built against other headers).
 *
 * Lifetimes: a snapshot keeps its cache alive, and a session its snapshot and conf
 * (tephra/session.h). tph_cluster_destroy() and tph_snapshot_release() give up the caller's
 * hold; the memory goes when the last holder lets go, so a host may tear down in any order.
 *
 * Threading: a cache is not thread-safe; serialise updates, snapshots and applies. A snapshot
 * is immutable and may be read from any number of threads and sessions at once; it stays valid
 * until released, independently of later updates to the cache. */
#ifndef TEPHRA_CLUSTER_H
#define TEPHRA_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "tephra/resource.h"
#include "tephra/status.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Exported from libtephra, which builds with -fvisibility=hidden. */
#pragma GCC visibility push(default)

typedef struct tph_cluster tph_cluster;
typedef struct tph_snapshot tph_snapshot;

/* Milliseconds since the Unix epoch (UTC); 0 is "not set" and sorts first. */
typedef int64_t tph_time;
/* The millisecond value of Go's zero time, 0001-01-01T00:00:00Z. */
#define TPH_GO_ZERO_TIME_MS (-62135596800000LL)

/* ---- descriptors ------------------------------------------------------------------------ */

typedef struct tph_kv {
	const char *key;
	const char *value;
} tph_kv;

/* One resource amount in exact units: millicores, bytes or milli-units (resource.h). */
typedef struct tph_res_item {
	const char *name;
	int64_t value;
} tph_res_item;

typedef struct tph_res_list {
	const tph_res_item *items;
	uint32_t n;
} tph_res_list;

typedef struct tph_kv_list {
	const tph_kv *items;
	uint32_t n;
} tph_kv_list;

typedef struct tph_str_list {
	const char *const *items;
	uint32_t n;
} tph_str_list;

typedef enum tph_taint_effect {
	TPH_TAINT_NO_SCHEDULE = 0,
	TPH_TAINT_PREFER_NO_SCHEDULE = 1,
	TPH_TAINT_NO_EXECUTE = 2,
} tph_taint_effect;

typedef struct tph_taint {
	const char *key;
	const char *value;
	tph_taint_effect effect;
} tph_taint;

typedef enum tph_toleration_op {
	TPH_TOL_EQUAL = 0,
	TPH_TOL_EXISTS = 1,
} tph_toleration_op;

/* An effect of -1 tolerates every effect; an empty key with Exists tolerates every taint. */
typedef struct tph_toleration {
	const char *key;
	tph_toleration_op op;
	const char *value;
	int effect;
} tph_toleration;

typedef enum tph_sel_op {
	TPH_SEL_IN = 0,
	TPH_SEL_NOT_IN = 1,
	TPH_SEL_EXISTS = 2,
	TPH_SEL_DOES_NOT_EXIST = 3,
	TPH_SEL_GT = 4,
	TPH_SEL_LT = 5,
} tph_sel_op;

typedef struct tph_sel_expr {
	const char *key;
	tph_sel_op op;
	tph_str_list values;
} tph_sel_expr;

/* A node selector term (or a label selector's matchExpressions): all expressions must hold. */
typedef struct tph_sel_term {
	const tph_sel_expr *exprs;
	uint32_t n;
} tph_sel_term;

typedef struct tph_pref_term {
	int32_t weight;
	tph_sel_term term;
} tph_pref_term;

/* A Kubernetes LabelSelector: matchLabels AND matchExpressions. A selector with neither
 * matches everything; `present == false` (a nil selector) matches nothing. */
typedef struct tph_label_selector {
	bool present;
	tph_kv_list match_labels;
	tph_sel_term match_exprs;
} tph_label_selector;

typedef struct tph_pod_affinity_term {
	tph_label_selector selector;
	tph_str_list namespaces; /* empty: the pod's own namespace */
	const char *topology_key;
	int32_t weight; /* preferred terms only */
} tph_pod_affinity_term;

typedef struct tph_affinity {
	const tph_sel_term *node_required; /* OR of terms; n_node_required == 0: none */
	uint32_t n_node_required;
	const tph_pref_term *node_preferred;
	uint32_t n_node_preferred;
	const tph_pod_affinity_term *pod_required;
	uint32_t n_pod_required;
	const tph_pod_affinity_term *pod_preferred;
	uint32_t n_pod_preferred;
	const tph_pod_affinity_term *anti_required;
	uint32_t n_anti_required;
	const tph_pod_affinity_term *anti_preferred;
	uint32_t n_anti_preferred;
} tph_affinity;

typedef struct tph_spread_constraint {
	int32_t max_skew;
	const char *topology_key;
	bool do_not_schedule; /* whenUnsatisfiable: DoNotSchedule (else ScheduleAnyway) */
	tph_label_selector selector;
	int32_t min_domains; /* 0: unset */
} tph_spread_constraint;

typedef enum tph_pod_phase {
	TPH_POD_PENDING = 0,
	TPH_POD_RUNNING = 1,
	TPH_POD_SUCCEEDED = 2,
	TPH_POD_FAILED = 3,
	TPH_POD_UNKNOWN = 4,
} tph_pod_phase;

typedef enum tph_pg_phase {
	TPH_PG_PENDING = 0,
	TPH_PG_INQUEUE = 1,
	TPH_PG_RUNNING = 2,
	TPH_PG_UNKNOWN = 3,
	TPH_PG_COMPLETED = 4,
} tph_pg_phase;

typedef enum tph_queue_state {
	TPH_QUEUE_OPEN = 0,
	TPH_QUEUE_CLOSED = 1,
	TPH_QUEUE_CLOSING = 2,
} tph_queue_state;

typedef enum tph_topo_mode {
	TPH_TOPO_NONE = 0,
	TPH_TOPO_HARD = 1,
	TPH_TOPO_SOFT = 2,
} tph_topo_mode;

/* highest_tier < 0 and tier_name == NULL: no limit. */
typedef struct tph_net_topology {
	tph_topo_mode mode;
	int32_t highest_tier;
	const char *highest_tier_name;
} tph_net_topology;

typedef struct tph_node_usage {
	bool present;
	int64_t period_s;
	double cpu_pct;
	double mem_pct;
	tph_time metrics_time; /* 0: the scenario clock */
} tph_node_usage;

/* A node's Numatopology: the spec of Volcano's nodeinfo.volcano.sh/v1alpha1 object of the node's
 * name, which the numa-aware plugin reads (its exporter reports the kubelet's CPU and topology
 * manager policies and the CPUs left for exclusive use). docs/format-numa.md describes it. */
typedef struct tph_numa_cpu {
	int32_t cpu;    /* logical CPU id, 0 .. TPH_CPUSET_MAX - 1 */
	int32_t numa;   /* NUMA node id, 0 .. TPH_NUMA_ID_MAX */
	int32_t socket; /* >= 0 */
	int32_t core;   /* physical core id as reported, >= 0 (may repeat across sockets) */
} tph_numa_cpu;

typedef struct tph_numa_res {
	const char *name;        /* a resource name: "cpu" is the one read */
	const char *allocatable; /* CPUs left, Linux list format ("0-3,8"; "" empty) */
	int32_t capacity;        /* carried as written; no decision reads it */
} tph_numa_res;

/* Bounds the cache holds a Numatopology to. Volcano tries every subset of a node's NUMA nodes
 * for every container, and the kubelet's masks are 64 bits wide. */
#define TPH_CPUSET_MAX     65536 /* CPU ids are below it */
#define TPH_NUMA_MAX_CPUS  1024  /* cpuDetail entries */
#define TPH_NUMA_MAX_NODES 16    /* distinct NUMA nodes */
#define TPH_NUMA_ID_MAX    63

typedef struct tph_node_numa {
	const char *cpu_manager_policy;      /* policies.CPUManagerPolicy; NULL: absent */
	const char *topology_manager_policy; /* policies.TopologyManagerPolicy; NULL: absent */
	tph_res_list res_reserved;           /* resReserved in exact units; only cpu is read */
	const tph_numa_res *numares;         /* at most one entry per name */
	uint32_t n_numares;
	const tph_numa_cpu *cpus; /* cpuDetail; each CPU id at most once */
	uint32_t n_cpus;
} tph_node_numa;
/* An image a node holds (an entry of node.status.images): its names and its size. */
typedef struct tph_node_image {
	tph_str_list names; /* at least one, none empty */
	int64_t size_bytes; /* >= 0 */
} tph_node_image;

typedef struct tph_node_desc {
	uint32_t size; /* sizeof(tph_node_desc): start from TPH_NODE_DESC_INIT */
	const char *name;
	tph_res_list allocatable;
	tph_res_list capacity; /* n == 0: same as allocatable */
	tph_kv_list labels;
	tph_kv_list annotations;
	const tph_taint *taints;
	uint32_t n_taints;
	bool unschedulable;
	bool not_ready; /* the node's Ready condition is not True: Volcano leaves it out */
	tph_node_usage usage;
	const tph_node_numa *numa; /* NULL: the node has no Numatopology */
	/* status.images, in order (ImageLocality). The cache summarises them as Volcano's does when
	 * the node is put: for each name, the size of the first node that brought it and the number
	 * of nodes holding it at that moment (tph_node_meta.images). */
	const tph_node_image *images;
	uint32_t n_images;
} tph_node_desc;

/* A pod status condition (v1.PodCondition). */
typedef enum tph_cond_status {
	TPH_COND_TRUE = 0,
	TPH_COND_FALSE = 1,
	TPH_COND_UNKNOWN = 2,
} tph_cond_status;

typedef struct tph_pod_condition {
	const char *type; /* PodScheduled, Ready, ...; unique within a pod */
	tph_cond_status status;
	tph_time last_transition; /* 0: the zero time (not set) */
	tph_time last_probe;      /* 0: the zero time */
	const char *reason;       /* NULL: "" */
	const char *message;      /* NULL: "" */
} tph_pod_condition;

#define TPH_NODE_DESC_INIT                    \
	{                                     \
		.size = sizeof(tph_node_desc) \
	}

/* Whether a pod may be preempted or reclaimed (Volcano's volcano.sh/preemptable). */
typedef enum tph_pod_preemptable {
	TPH_PREEMPTABLE_UNSET = 0, /* the annotation, else the label, decides; true without both */
	TPH_PREEMPTABLE_YES = 1,
	TPH_PREEMPTABLE_NO = 2,
} tph_pod_preemptable;

/* The protocol of a host port (v1.Protocol). */
typedef enum tph_port_protocol {
	TPH_PROTO_TCP = 0,
	TPH_PROTO_UDP = 1,
	TPH_PROTO_SCTP = 2,
} tph_port_protocol;

/* A container port bound to the host (v1.ContainerPort with hostPort > 0), of a container or of
 * a restartable init container: what kube-scheduler's NodePorts filter compares. */
typedef struct tph_host_port {
	int32_t port; /* hostPort, 1..65535 */
	tph_port_protocol protocol;
	const char *host_ip; /* NULL or "": 0.0.0.0, every address */
} tph_host_port;

/* An init container (spec.initContainers[i]): its requests count toward the pod's as Volcano's
 * GetPodResourceRequest says. A restartable one (restartPolicy: Always, a sidecar) keeps running
 * beside the containers. */
typedef struct tph_init_container {
	const char *name;  /* unique within the pod */
	const char *image; /* NULL: none known (ImageLocality) */
	tph_res_list requests;
	bool restart_always;
} tph_init_container;

typedef struct tph_pod_desc {
	uint32_t size; /* sizeof(tph_pod_desc): start from TPH_POD_DESC_INIT */
	const char *name;
	const char *namespace_;
	const char *pod_group; /* NULL or "": the pod is its own one-member job */
	tph_pod_phase phase;
	const char *node_name; /* NULL or "": not bound */
	/* The containers' requests, summed. The task's request (Volcano's Resreq and InitResreq)
	 * is the larger, per resource, of this plus the restartable init containers and each init
	 * container, plus the overhead; a pod whose request is empty is best-effort. */
	tph_res_list requests;
	const char *task_spec; /* volcano.sh/task-spec role; NULL: none */
	tph_kv_list labels;
	tph_kv_list annotations;
	tph_kv_list node_selector;
	const tph_toleration *tolerations;
	uint32_t n_tolerations;
	const tph_affinity *affinity; /* NULL: none */
	const tph_spread_constraint *spread;
	uint32_t n_spread;
	bool has_priority;
	int32_t priority;
	const char *priority_class; /* NULL: none */
	bool preempt_never;         /* preemptionPolicy: Never */
	tph_pod_preemptable preemptable;
	const char *nominated_node; /* NULL: none */
	bool deleting;
	tph_time creation;
	const char *uid; /* NULL: "<namespace>-<name>" */
	/* Container limits in exact units, as device code and the extender read them. They are
	 * never copied into requests and never take part in a fit or a resource dimension. */
	tph_res_list limits; /* n == 0: none */
	const tph_pod_condition *conditions;
	uint32_t n_conditions;
	/* spec.initContainers, in order; and spec.overhead (n == 0: none). */
	const tph_init_container *init_containers;
	uint32_t n_init_containers;
	tph_res_list overhead;
	/* The image of each container, in order (ImageLocality); n == 0: the pod has one container
	 * whose image no node holds. */
	tph_str_list images;
	/* The host ports the pod's containers bind (NodePorts); no two equal. */
	const tph_host_port *host_ports;
	uint32_t n_host_ports;
	/* spec.schedulerName; NULL, "" or "volcano": this scheduler's. A pod of another scheduler
	 * that names no podgroup (or one that does not exist) belongs to no job, as in Volcano's
	 * cache (getOrCreateJob): it holds its node's resources when placed, and is never
	 * scheduled, evicted or counted in a queue. */
	const char *scheduler_name;
} tph_pod_desc;

#define TPH_POD_DESC_INIT                    \
	{                                    \
		.size = sizeof(tph_pod_desc) \
	}

typedef struct tph_min_task {
	const char *task_spec; /* "" counts pods with no task spec */
	int32_t min;
} tph_min_task;

/* A podgroup's subgroup policy; start from TPH_SUBGROUP_POLICY_INIT. */
typedef struct tph_subgroup_policy {
	const char *name;
	int32_t subgroup_size; /* at least 1; the macro sets Volcano's default, 1 */
	int32_t min_subgroups;
	tph_str_list match_label_keys;
	tph_label_selector selector;
	tph_net_topology topology;
} tph_subgroup_policy;

#define TPH_NET_TOPOLOGY_INIT           \
	{                               \
		TPH_TOPO_NONE, -1, NULL \
	}
#define TPH_SUBGROUP_POLICY_INIT                                      \
	{                                                             \
		.subgroup_size = 1, .topology = TPH_NET_TOPOLOGY_INIT \
	}

typedef struct tph_podgroup_desc {
	uint32_t size; /* sizeof(tph_podgroup_desc): start from TPH_PODGROUP_DESC_INIT */
	const char *name;
	const char *namespace_;
	const char *queue;  /* NULL: "default" */
	int32_t min_member; /* the macro sets 1; 0 is a valid minMember */
	const tph_min_task *min_tasks;
	uint32_t n_min_tasks;
	tph_res_list min_resources; /* n == 0: none */
	bool has_min_resources;
	tph_pg_phase phase;
	const char *priority_class;
	tph_time creation;
	tph_kv_list annotations;
	const char *uid; /* NULL: "<namespace>/<name>" */
	tph_net_topology topology;
	const tph_subgroup_policy *subgroups;
	uint32_t n_subgroups;
} tph_podgroup_desc;

#define TPH_PODGROUP_DESC_INIT                                      \
	{                                                           \
		.size = sizeof(tph_podgroup_desc), .min_member = 1, \
		.topology = TPH_NET_TOPOLOGY_INIT                   \
	}

typedef struct tph_queue_desc {
	uint32_t size; /* sizeof(tph_queue_desc): start from TPH_QUEUE_DESC_INIT */
	const char *name;
	int32_t weight; /* the macro sets 1; 0 is a valid weight (the queue gets nothing) */
	tph_res_list capability; /* n == 0: unlimited */
	tph_res_list deserved;
	tph_res_list guarantee;
	bool not_reclaimable; /* reclaimable: false */
	tph_queue_state state;
	const char *parent; /* NULL: "root" (none for the queue named root) */
	int32_t priority;
	tph_time creation;
	tph_kv_list annotations;
	tph_str_list affinity_required;      /* nodeGroupAffinity required */
	tph_str_list affinity_preferred;     /* nodeGroupAffinity preferred */
	tph_str_list anti_affinity_required; /* nodeGroupAntiAffinity required */
	tph_str_list anti_affinity_preferred;
	/* spec.affinity is set, even with every list empty: such a queue does not inherit its
	 * ancestors' affinity (nodegroup with enableHierarchy). Implied by any non-empty list. */
	bool has_affinity;
} tph_queue_desc;

#define TPH_QUEUE_DESC_INIT                                 \
	{                                                   \
		.size = sizeof(tph_queue_desc), .weight = 1 \
	}

typedef struct tph_priority_class_desc {
	uint32_t
	    size; /* sizeof(tph_priority_class_desc): start from TPH_PRIORITY_CLASS_DESC_INIT */
	const char *name;
	int32_t value;
	bool global_default;
	bool preempt_never;
} tph_priority_class_desc;

#define TPH_PRIORITY_CLASS_DESC_INIT                    \
	{                                               \
		.size = sizeof(tph_priority_class_desc) \
	}

typedef enum tph_member_kind {
	TPH_MEMBER_NAME = 0,   /* a node or a hypernode, by exact name */
	TPH_MEMBER_REGEX = 1,  /* nodes whose name matches a regex in Go's RE2 syntax */
	TPH_MEMBER_LABELS = 2, /* nodes carrying all these labels */
} tph_member_kind;

typedef struct tph_hypernode_member {
	tph_member_kind kind;
	const char *name_or_regex;
	tph_kv_list labels;
} tph_hypernode_member;

/* Tiers are 0..TPH_HN_TIER_MAX: a real network has a handful, and the implicit cluster top
 * sits one above the highest (a tier of INT32_MAX overflowed there). */
#define TPH_HN_TIER_MAX 1000000

typedef struct tph_hypernode_desc {
	uint32_t size; /* sizeof(tph_hypernode_desc): start from TPH_HYPERNODE_DESC_INIT */
	const char *name;
	int32_t tier;          /* 0..TPH_HN_TIER_MAX */
	const char *tier_name; /* NULL: none */
	const tph_hypernode_member *members;
	uint32_t n_members;
} tph_hypernode_desc;

#define TPH_HYPERNODE_DESC_INIT                    \
	{                                          \
		.size = sizeof(tph_hypernode_desc) \
	}

typedef struct tph_quota_desc {
	uint32_t size; /* sizeof(tph_quota_desc): start from TPH_QUOTA_DESC_INIT */
	const char *name;
	const char *namespace_;
	tph_res_list hard;
	tph_res_list used; /* status.used: what the namespace already uses; absent: 0 */
} tph_quota_desc;

/* An intstr.IntOrString as a PodDisruptionBudget's minAvailable/maxUnavailable holds it. */
typedef struct tph_int_or_percent {
	bool present;
	bool percent;  /* "50%": value is the percentage */
	int32_t value; /* >= 0 */
} tph_int_or_percent;

typedef struct tph_disrupted_pod {
	const char *pod; /* a pod name in the budget's namespace */
	tph_time time;
} tph_disrupted_pod;

/* A policy/v1 PodDisruptionBudget with the status fields Volcano's pdb plugin reads. */
typedef struct tph_pdb_desc {
	uint32_t size; /* sizeof(tph_pdb_desc): start from TPH_PDB_DESC_INIT */
	const char *name;
	const char *namespace_;
	/* Volcano's pdb plugin matches no pod with an absent or empty selector (policy/v1 would
	 * select the whole namespace). */
	tph_label_selector selector;
	tph_int_or_percent min_available; /* at most one of the two is present */
	tph_int_or_percent max_unavailable;
	int32_t disruptions_allowed; /* status.disruptionsAllowed; never derived from the above */
	const tph_disrupted_pod *disrupted_pods; /* status.disruptedPods */
	uint32_t n_disrupted_pods;
} tph_pdb_desc;
#define TPH_PDB_DESC_INIT                    \
	{                                    \
		.size = sizeof(tph_pdb_desc) \
	}

#define TPH_QUOTA_DESC_INIT                    \
	{                                      \
		.size = sizeof(tph_quota_desc) \
	}

typedef enum tph_shard_mode {
	TPH_SHARD_NONE = 0,
	TPH_SHARD_HARD = 1,
	TPH_SHARD_SOFT = 2,
} tph_shard_mode;

/* How the placing actions look for feasible nodes (Volcano's PredicateHelper.PredicateNodes).
 * FULL filters every node (an action's minimum-feasible-nodes, minimum-percentage-nodes-to-find
 * or percentage-nodes-to-find argument turns sampling on for that action alone). VOLCANO samples
 * as Volcano's scheduler does by default: every PredicateNodes call (allocate, backfill, preempt,
 * reclaim, the gang eviction dry runs) stops once CalculateNumOfFeasibleNodesToFind nodes passed
 * (minimum 100 nodes, 50% less 1% per 125 nodes, at least 5%; those arguments override), starts
 * where the previous call stopped (lastProcessedNodeIndex), and the index carries from session
 * to session of one cache, as Volcano's process-wide one does. */
typedef enum tph_node_sampling {
	TPH_SAMPLING_CACHE = 0, /* session option: the cache's mode (full unless set) */
	TPH_SAMPLING_FULL = 1,
	TPH_SAMPLING_VOLCANO = 2,
} tph_node_sampling;

/* ---- the cache --------------------------------------------------------------------------- */

int tph_cluster_create(tph_cluster **out);
/* Give up the host's hold on the cache: it is freed now, or when the last snapshot taken from
 * it is released. The host must not use `c` afterwards. NULL is a no-op. */
void tph_cluster_destroy(tph_cluster *c);

/* Add or replace (by name, or namespace/name) an object. Replacing keeps the object's place in
 * the snapshot order. References between objects (a pod's node and podgroup, a podgroup's
 * queue, a queue's parent, hypernode members) are by name and resolved when a snapshot is
 * taken, so a host may add objects in any order. At snapshot time, as in Volcano: a pod whose
 * podgroup is absent is its own one-member job; a podgroup whose queue is absent is left out
 * with a warning; a pod bound to an absent node holds no node's resources.
 * On error nothing changes and `d` says why. */
int tph_cluster_put_node(tph_cluster *c, const tph_node_desc *n, tph_diag *d);
int tph_cluster_put_pod(tph_cluster *c, const tph_pod_desc *p, tph_diag *d);
int tph_cluster_put_podgroup(tph_cluster *c, const tph_podgroup_desc *g, tph_diag *d);
int tph_cluster_put_queue(tph_cluster *c, const tph_queue_desc *q, tph_diag *d);
int tph_cluster_put_priority_class(tph_cluster *c, const tph_priority_class_desc *pc, tph_diag *d);
int tph_cluster_put_hypernode(tph_cluster *c, const tph_hypernode_desc *h, tph_diag *d);
int tph_cluster_put_quota(tph_cluster *c, const tph_quota_desc *q, tph_diag *d);
/* A PodDisruptionBudget, by namespace/name. Refused (TPH_EINVAL, naming the budget and the
 * field) as the API server's validation would refuse it: a negative disruptionsAllowed, both
 * minAvailable and maxUnavailable, a negative value or a percentage above 100, a selector
 * expression whose operator is not In, NotIn, Exists or DoesNotExist or whose values do not
 * suit it, an empty or repeated disrupted pod name, a repeated matchLabels key. */
int tph_cluster_put_pdb(tph_cluster *c, const tph_pdb_desc *p, tph_diag *d);

/* Remove by name (namespace is only for namespaced kinds). TPH_ENOENT if absent. */
int tph_cluster_remove_node(tph_cluster *c, const char *name, tph_diag *d);
int tph_cluster_remove_pod(tph_cluster *c, const char *ns, const char *name, tph_diag *d);
int tph_cluster_remove_podgroup(tph_cluster *c, const char *ns, const char *name, tph_diag *d);
int tph_cluster_remove_queue(tph_cluster *c, const char *name, tph_diag *d);
int tph_cluster_remove_pdb(tph_cluster *c, const char *ns, const char *name, tph_diag *d);

/* The shard this scheduler instance owns; nodes named here need not exist yet. */
int tph_cluster_set_shard(tph_cluster *c, tph_shard_mode mode, const char *name, tph_str_list nodes,
                          tph_diag *d);

/* The node sampling of sessions over this cache's snapshots whose options leave it to the cache
 * (TPH_SAMPLING_CACHE, the default); TPH_SAMPLING_CACHE here means full. Setting it, even to the
 * mode it has, starts the carried index over at 0, as a restarted scheduler does. */
int tph_cluster_set_node_sampling(tph_cluster *c, tph_node_sampling mode, tph_diag *d);
/* Where the next VOLCANO-sampling session starts its first scan: the index the last such session
 * closed over this cache's snapshots left (0 before any). Sessions read it at open and store it
 * at close (atomically: they may close on any thread). */
uint32_t tph_cluster_node_sampling_start(const tph_cluster *c);

/* Counts of live objects. */
uint32_t tph_cluster_node_count(const tph_cluster *c);
uint32_t tph_cluster_pod_count(const tph_cluster *c);

/* Take an immutable snapshot (copies columns, not objects; the pod columns no session writes
 * are read in place while the cache has no removed pods waiting for compaction, and the cache
 * copies them before it next writes one the snapshot reads). `now` is the session clock. Fails
 * with TPH_ERANGE, naming the object and field, when a resource summed over the objects of one
 * kind passes TPH_RES_TOTAL_MAX (resource.h). */
int tph_cluster_snapshot(tph_cluster *c, tph_time now, tph_snapshot **out, tph_diag *d);
/* Give up the caller's hold on a snapshot; sessions opened over it keep their own until they
 * are freed. NULL is a no-op. Safe from any thread. */
void tph_snapshot_release(tph_snapshot *s);

uint32_t tph_snapshot_node_count(const tph_snapshot *s);
uint32_t tph_snapshot_task_count(const tph_snapshot *s);
uint32_t tph_snapshot_job_count(const tph_snapshot *s);
/* Bytes the snapshot holds (columns and indices, those it reads in the cache included; shared
 * interned data excluded). */
size_t tph_snapshot_bytes(const tph_snapshot *s);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif

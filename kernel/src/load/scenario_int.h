/* The loaded scenario as plain structs: the objects as the loader decoded them (cache
 * descriptors with their source lines), the conf, the cache, and the `expect:` and `probe:`
 * sections with every reference kept as written and resolved to an object index. The check
 * command reads these; everything is owned by the scenario's arena. */
#ifndef TPH_SCENARIO_INTERNAL_H
#define TPH_SCENARIO_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "load/conf_int.h"
#include "tephra/cluster.h"
#include "tephra/kai.h"
#include "tephra/scenario.h"
#include "yaml_util.h"

/* 1-based line and column in the scenario file. */
typedef struct tph_sc_loc {
	uint32_t line;
	uint32_t col;
} tph_sc_loc;

/* ---- objects (in file order; `line` is where the object's mapping starts) ------------------- */

typedef struct tph_sc_pclass {
	tph_priority_class_desc d;
	uint32_t line;
} tph_sc_pclass;

typedef struct tph_sc_queue {
	tph_queue_desc d; /* parent filled: "root" for every queue but root (NULL) */
	uint32_t line;
} tph_sc_queue;

typedef struct tph_sc_node {
	tph_node_desc d;
	uint32_t line;
} tph_sc_node;

typedef struct tph_sc_hypernode {
	tph_hypernode_desc d;
	uint32_t line;
} tph_sc_hypernode;

typedef struct tph_sc_quota {
	tph_quota_desc d;
	uint32_t line;
} tph_sc_quota;

typedef struct tph_sc_podgroup {
	tph_podgroup_desc d; /* namespace, queue and uid filled with their defaults */
	uint32_t line;
} tph_sc_podgroup;

typedef struct tph_sc_pod {
	tph_pod_desc d; /* namespace and uid filled; node_name NULL when unbound */
	uint32_t line;
} tph_sc_pod;

typedef struct tph_sc_pdb {
	tph_pdb_desc d; /* namespace filled ("default") */
	uint32_t line;
} tph_sc_pdb;

typedef struct tph_sc_ext_response {
	tph_extender_response r;
	uint32_t line;
} tph_sc_ext_response;

typedef struct tph_sc_shard {
	bool present;
	tph_shard_mode mode; /* default hard */
	const char *name;    /* "" when absent */
	tph_str_list nodes;
	uint32_t line;
} tph_sc_shard;

/* ---- expect / probe
 * ------------------------------------------------------------------------------ */

/* A reference to an object as written ("c1/p1" for pods and podgroups, a name for queues and
 * nodes) and the index of that object in the scenario's list of its kind. */
typedef struct tph_sc_ref {
	const char *key;
	uint32_t idx;
	tph_sc_loc loc;
} tph_sc_ref;

typedef struct tph_sc_refs {
	bool present;
	uint32_t n;
	tph_sc_ref *items;
} tph_sc_refs;

typedef struct tph_sc_bind {
	tph_sc_ref pod;
	tph_sc_ref node;
} tph_sc_bind;

typedef struct tph_sc_binds {
	bool present;
	uint32_t n;
	tph_sc_bind *items;
} tph_sc_binds;

/* A key with a list of nodes: pipelined (podgroup -> nodes), feasibleNodes (pod -> nodes). */
typedef struct tph_sc_keyed_nodes {
	tph_sc_ref key;
	tph_sc_refs nodes;
} tph_sc_keyed_nodes;

typedef struct tph_sc_keyed_nodes_list {
	bool present;
	uint32_t n;
	tph_sc_keyed_nodes *items;
} tph_sc_keyed_nodes_list;

typedef struct tph_sc_phase {
	tph_sc_ref podgroup;
	tph_pg_phase phase;
} tph_sc_phase;

typedef struct tph_sc_phases {
	bool present;
	uint32_t n;
	tph_sc_phase *items;
} tph_sc_phases;

/* Volcano's task statuses, in the order the spec lists them. */
typedef enum tph_sc_task_status {
	TPH_SC_TS_PENDING = 0,
	TPH_SC_TS_ALLOCATED,
	TPH_SC_TS_PIPELINED,
	TPH_SC_TS_BINDING,
	TPH_SC_TS_BOUND,
	TPH_SC_TS_RUNNING,
	TPH_SC_TS_RELEASING,
	TPH_SC_TS_SUCCEEDED,
	TPH_SC_TS_FAILED,
	TPH_SC_TS_UNKNOWN,
	TPH_SC_TS_COUNT
} tph_sc_task_status;

/* "Pending", "Allocated", ... indexed by tph_sc_task_status. */
extern const char *const tph_sc_task_status_names[TPH_SC_TS_COUNT + 1];

typedef struct tph_sc_status_count {
	tph_sc_ref podgroup;
	int32_t count[TPH_SC_TS_COUNT]; /* -1: status not listed (not checked) */
} tph_sc_status_count;

typedef struct tph_sc_status_counts {
	bool present;
	uint32_t n;
	tph_sc_status_count *items;
} tph_sc_status_counts;

typedef struct tph_sc_ints {
	bool present;
	uint32_t n;
	int64_t *items;
} tph_sc_ints;

/* bindAnnotations: a pod and what its bind must carry among the annotations plugins set. */
typedef struct tph_sc_bind_ann {
	tph_sc_ref pod;
	tph_kv_list annotations; /* key -> exact value */
} tph_sc_bind_ann;

typedef struct tph_sc_bind_anns {
	bool present;
	uint32_t n;
	tph_sc_bind_ann *items;
} tph_sc_bind_anns;

typedef struct tph_sc_expect {
	bool present;
	tph_sc_loc loc;
	tph_sc_binds binds;                /* pod -> node, exact */
	int64_t bind_count;                /* -1: absent */
	tph_sc_refs evictions;             /* pods, exact */
	int64_t eviction_count;            /* -1: absent */
	tph_sc_keyed_nodes_list pipelined; /* podgroup -> nodes */
	tph_sc_phases podgroup_phases;
	tph_sc_status_counts task_status_counts;
	tph_sc_ints binds_per_hypernode; /* as written (the check sorts) */
	tph_sc_bind_anns bind_annotations;
} tph_sc_expect;

typedef struct tph_sc_score {
	tph_sc_ref node;
	double score;
} tph_sc_score;

typedef struct tph_sc_score_row {
	tph_sc_ref pod;
	uint32_t n;
	tph_sc_score *items;
} tph_sc_score_row;

typedef struct tph_sc_score_rows {
	bool present;
	uint32_t n;
	tph_sc_score_row *items;
} tph_sc_score_rows;

typedef struct tph_sc_flag {
	tph_sc_ref key;
	bool value;
} tph_sc_flag;

typedef struct tph_sc_flags {
	bool present;
	uint32_t n;
	tph_sc_flag *items;
} tph_sc_flags;

/* One victims probe: Preemptable (preemptor) or Reclaimable (reclaimer) over candidates. */
typedef struct tph_sc_victims {
	bool reclaim;           /* reclaimer/reclaimable, else preemptor/preemptable */
	tph_sc_ref actor;       /* the preemptor or reclaimer pod */
	tph_sc_refs candidates; /* pods */
	tph_sc_refs victims;    /* pods, a subset of candidates */
	tph_sc_loc loc;
} tph_sc_victims;

typedef struct tph_sc_victims_list {
	bool present;
	uint32_t n;
	tph_sc_victims *items;
} tph_sc_victims_list;

/* One victimTasks probe: the VictimTasks vote over candidates given in this order. */
typedef struct tph_sc_victim_tasks {
	tph_sc_refs candidates; /* pods */
	tph_sc_refs victims;    /* pods, a subset of candidates; compared as a set */
	tph_sc_loc loc;
} tph_sc_victim_tasks;

typedef struct tph_sc_victim_tasks_list {
	bool present;
	uint32_t n;
	tph_sc_victim_tasks *items;
} tph_sc_victim_tasks_list;

typedef struct tph_sc_probe {
	bool present;
	tph_sc_loc loc;
	tph_sc_score_rows node_scores;          /* pod -> node -> score (within 0.01) */
	tph_sc_keyed_nodes_list feasible_nodes; /* pod -> nodes, exact */
	tph_sc_refs job_order;                  /* podgroups */
	tph_sc_refs task_order;                 /* pods */
	tph_sc_refs queue_order;                /* queues */
	tph_sc_flags job_enqueueable;           /* podgroups */
	tph_sc_flags job_ready;
	tph_sc_flags job_pipelined;
	tph_sc_flags job_starving;
	tph_sc_flags job_valid;
	tph_sc_flags overused; /* queues */
	tph_sc_victims_list victims;
	tph_sc_victim_tasks_list victim_tasks;
} tph_sc_probe;

/* ---- the kai flavour (shared/spec/kai-format.md) ------------------------------------------- */

typedef struct tph_sc_kai_queue {
	tph_kai_queue_desc d;
	uint32_t line;
} tph_sc_kai_queue;

typedef struct tph_sc_kai_topology {
	tph_kai_topology_desc d;
	uint32_t line;
} tph_sc_kai_topology;

typedef struct tph_sc_kai_podgroup {
	tph_kai_podgroup_desc d; /* namespace "" when absent */
	uint32_t line;
} tph_sc_kai_podgroup;

/* A task expectation (`tasks:` per pod, `podGroups:` per podgroup). */
typedef struct tph_sc_kai_task_exp {
	tph_sc_ref key;        /* a pod or a podgroup */
	tph_kai_status status; /* TPH_KAI_TS_DERIVED: not checked */
	bool has_node;
	tph_sc_ref node;
	bool has_gpus;
	double accepted_gpus;
	int64_t older_than_ms; /* lastStartTimestampOlderThan; -1: absent */
} tph_sc_kai_task_exp;

typedef struct tph_sc_kai_task_exps {
	bool present;
	uint32_t n;
	tph_sc_kai_task_exp *items;
} tph_sc_kai_task_exps;

/* `nodes:`: a node's whole-GPU ledger; NaN: not checked. */
typedef struct tph_sc_kai_node_exp {
	tph_sc_ref node;
	double idle_gpus;
	double releasing_gpus;
} tph_sc_kai_node_exp;

typedef struct tph_sc_kai_node_exps {
	bool present;
	uint32_t n;
	tph_sc_kai_node_exp *items;
} tph_sc_kai_node_exps;

typedef struct tph_sc_kai_expect {
	bool present;
	tph_sc_loc loc;
	tph_sc_kai_task_exps tasks;
	tph_sc_kai_task_exps podgroups;
	tph_sc_kai_node_exps nodes;
	tph_sc_binds binds;    /* exact */
	tph_sc_refs evictions; /* exact */
	int64_t max_binds;     /* -1: absent */
	int64_t max_evictions;
	int64_t max_pipelined;
} tph_sc_kai_expect;

typedef enum tph_sc_kai_action {
	TPH_SC_KAI_RECLAIM = 0,
	TPH_SC_KAI_PREEMPT = 1,
} tph_sc_kai_action;

/* probe.victimFilter: may `preemptor` take `victim`'s pods in that action? */
typedef struct tph_sc_kai_victim_filter {
	tph_sc_kai_action action;
	tph_sc_ref preemptor; /* podgroups */
	tph_sc_ref victim;
	bool allowed;
	tph_sc_loc loc;
} tph_sc_kai_victim_filter;

/* One victim job of a probe.scenarioValid scenario and the pods it gives up. */
typedef struct tph_sc_kai_victim_job {
	tph_sc_ref job;
	tph_sc_refs pods;
} tph_sc_kai_victim_job;

typedef struct tph_sc_kai_scenario_valid {
	tph_sc_kai_action action;
	tph_sc_ref preemptor;
	tph_sc_kai_victim_job *victims;
	uint32_t n_victims;
	bool valid;
	tph_sc_loc loc;
} tph_sc_kai_scenario_valid;

/* probe.fairShare: a queue's share per dimension; NaN: not checked. */
typedef struct tph_sc_kai_fair_share {
	tph_sc_ref queue;
	double share[TPH_KAI_DIMS];
} tph_sc_kai_fair_share;

typedef struct tph_sc_kai_probe {
	uint32_t n_victim_filters;
	tph_sc_kai_victim_filter *victim_filters;
	uint32_t n_scenario_valid;
	tph_sc_kai_scenario_valid *scenario_valid;
	tph_sc_flags can_reclaim; /* podgroups */
	uint32_t n_fair_shares;
	tph_sc_kai_fair_share *fair_shares;
} tph_sc_kai_probe;

/* What a kai scenario adds; pods and nodes sit in the scenario's own lists (`pods[i]`'s KAI
 * part is `pods[i]` here), priority classes too. */
typedef struct tph_sc_kai {
	tph_kai_params params;
	tph_sc_kai_queue *queues;
	uint32_t n_queues;
	tph_sc_kai_topology *topologies;
	uint32_t n_topologies;
	tph_sc_kai_podgroup *podgroups;
	uint32_t n_podgroups;
	tph_kai_pod_desc *pods; /* n_pods of the scenario */
	tph_sc_kai_expect expect;
	tph_sc_kai_probe probe;       /* beside the Volcano-shaped probes of tph_scenario.probe */
	tph_kai_cluster_desc cluster; /* the objects as descriptor arrays (kai snapshot input) */
} tph_sc_kai;

/* ---- the scenario
 * ------------------------------------------------------------------------------------ */

struct tph_scenario {
	yu_arena arena; /* owns every string and array below */
	const char *file;
	const char *dir; /* directory of `file` ("." when none); confFile is relative to it */
	const char *name;
	tph_time now;
	bool now_given; /* `now:` was written */
	bool enable_flags_default;
	tph_node_sampling sampling; /* `nodeSampling:`; TPH_SAMPLING_CACHE when absent */
	tph_conf *conf;             /* owned; NULL: none */
	tph_cluster *cluster;       /* owned */

	tph_sc_pclass *pclasses;
	uint32_t n_pclasses;
	tph_sc_queue *queues;
	uint32_t n_queues;
	tph_sc_node *nodes;
	uint32_t n_nodes;
	tph_sc_hypernode *hypernodes;
	uint32_t n_hypernodes;
	tph_sc_quota *quotas;
	uint32_t n_quotas;
	tph_sc_podgroup *podgroups;
	uint32_t n_podgroups;
	tph_sc_pod *pods;
	uint32_t n_pods;
	tph_sc_pdb *pdbs;
	uint32_t n_pdbs;
	tph_sc_ext_response *ext_responses; /* extenderResponses, in file order */
	uint32_t n_ext_responses;
	tph_sc_shard shard;

	tph_sc_expect expect;
	tph_sc_probe probe;

	tph_conf_flavour flavour;
	tph_sc_kai *kai; /* flavour kai: its objects and expectations; NULL otherwise */

	double parse_ms, decode_ms, build_ms;
};

#endif

/* The extension points, declared once. TPH_EP_TABLE(X) expands X once per point; the tph_ep
 * enum (session_int.h), the info table with each point's name, gate, rule and flavours, and the
 * plain tph_on_* registration functions (ep.c) are its views. plugin.h keeps the documented
 * prototypes and callback types: a generated definition that disagrees with its prototype, or
 * has none, does not compile (-Wmissing-prototypes), and tests/unit/test_ep_table.c checks the
 * rest (names, conf spellings, that each Volcano point's dispatcher follows its rule). */
#ifndef TPH_EP_TABLE_H
#define TPH_EP_TABLE_H

#include <stdint.h>

#include "tephra/conf.h"
#include "tephra/plugin.h"

/* The gate of a point: a tph_conf_flag, or one of these. */
#define TPH_EP_ALWAYS                     (-1) /* never gated */
#define TPH_EP_PREEMPTABLE_OR_ALLOCATABLE (-2) /* Simulate{Add,Remove}Task */

/* How the answers of every registration become one (the dispatchers of ep_dispatch.c,
 * ep_score.c, ep_predicate.c, ep_topology.c and ep_locality.c; KAI's are to come). */
typedef enum tph_ep_rule {
	/* The first answer that decides, tiers aside: an order's non-zero, BestNode's node. */
	TPH_RULE_FIRST_NONZERO = 0,
	/* Every registration must pass; the first failure answers; none: pass. */
	TPH_RULE_ALL_PASS,
	/* Answers add, in registration order. */
	TPH_RULE_SUM,
	/* Not combined on its own: a plugin's answer goes to its registration of the paired point
	 * (NodeMap scores count through the same plugin's NodeReduce). */
	TPH_RULE_PAIRED,
	/* Permit/Abstain/Reject: a Reject vetoes, a tier with a Permit ends the walk; none: yes. */
	TPH_RULE_VOTE,
	/* Victim sets intersect inside a tier; the first tier left with victims answers. */
	TPH_RULE_TIER_INTERSECT,
	/* Victim sets unite inside a tier; the first tier with any victim answers. */
	TPH_RULE_TIER_UNION,
	/* AND inside the first tier that has a registration; none: false. */
	TPH_RULE_FIRST_TIER_ALL,
	/* OR; none: false. */
	TPH_RULE_ANY,
	/* Every registration runs (task events: a failure undoes the handlers before it). */
	TPH_RULE_ALL_RUN,
	/* The first registration alone answers. */
	TPH_RULE_FIRST_ONLY,
	/* ScoreLocality: GLOBAL if any answers it, else ANCHORED if any does, else LOCAL. */
	TPH_RULE_WEAKEST,
	/* ScoreAnchors: the union of the anchors of the plugins that answered ANCHORED. */
	TPH_RULE_UNION,
	/* KAI's SubsetNodes: each registration splits every set the one before it produced. */
	TPH_RULE_TREE,
	/* KAI's BindRequestMutate: the answers merge, a later key overriding an earlier one. */
	TPH_RULE_MERGE,
	/* KAI's scenario generators: tried one after another, in registration order. */
	TPH_RULE_IN_ORDER,
	TPH_RULE_COUNT
} tph_ep_rule;

/* Which scheduler has the point (bits). KAI has no enable flags, so a kai-only point is never
 * gated; a shared point's gate is Volcano's. */
enum {
	TPH_FLAVOUR_VOLCANO = 1,
	TPH_FLAVOUR_KAI = 2,
	TPH_FLAVOUR_BOTH = 3
};

/* How tph_on_<registration> registers: REPLACE keeps one function per plugin (Volcano's maps),
 * APPEND a list (Volcano's VictimTasks, KAI's slices); CUSTOM is written by hand because it
 * takes more than one function (tph_on_task_events, tph_on_score_locality). */
enum {
	TPH_EP_REG_REPLACE = 0,
	TPH_EP_REG_APPEND,
	TPH_EP_REG_CUSTOM
};

typedef struct tph_ep_info {
	const char *name;     /* Volcano's or KAI's spelling */
	const char *reg;      /* tph_on_<reg> */
	const char *gate_key; /* the gate's conf key ("" when never gated) */
	int8_t gate;          /* a tph_conf_flag or one of the TPH_EP_ gates above */
	uint8_t rule;         /* tph_ep_rule */
	uint8_t flavours;     /* TPH_FLAVOUR_* */
	uint8_t mode;         /* TPH_EP_REG_* */
} tph_ep_info;

/* X(id, name, registration, callback type,
 *   mode, rule, gate, gate's conf key, flavour)
 * id becomes TPH_EP_<id>; registration is tph_on_<registration>; mode, rule and flavour are
 * the suffixes of TPH_EP_REG_*, TPH_RULE_* and TPH_FLAVOUR_*. Volcano's points come first, in
 * the order of the profile's rows. */
/* clang-format off */
#define TPH_EP_TABLE(X)                                                                            \
	/* ---- Volcano's, ruled as in its session_plugins.go (BOTH: KAI has it too) ---- */       \
	X(JOB_ORDER, "JobOrder", job_order, tph_cmp_fn,                                            \
	  REPLACE, FIRST_NONZERO,  TPH_FLAG_JOB_ORDER,        "enableJobOrder",        BOTH)       \
	X(QUEUE_ORDER, "QueueOrder", queue_order, tph_cmp_fn,                                      \
	  REPLACE, FIRST_NONZERO,  TPH_FLAG_QUEUE_ORDER,      "enableQueueOrder",      VOLCANO)    \
	X(TASK_ORDER, "TaskOrder", task_order, tph_cmp_fn,                                         \
	  REPLACE, FIRST_NONZERO,  TPH_FLAG_TASK_ORDER,       "enableTaskOrder",       BOTH)       \
	X(SUBJOB_ORDER, "SubJobOrder", subjob_order, tph_cmp_fn,                                   \
	  REPLACE, FIRST_NONZERO,  TPH_FLAG_SUBJOB_ORDER,     "enabledSubJobOrder",    VOLCANO)    \
	X(CLUSTER_ORDER, "ClusterOrder", cluster_order, tph_cmp_fn,                                \
	  REPLACE, FIRST_NONZERO,  TPH_FLAG_CLUSTER_ORDER,    "enabledClusterOrder",   VOLCANO)    \
	X(VICTIM_QUEUE_ORDER, "VictimQueueOrder", victim_queue_order, tph_victim_queue_cmp_fn,     \
	  REPLACE, FIRST_NONZERO,  TPH_EP_ALWAYS,             "",                      VOLCANO)    \
	X(PREDICATE, "Predicate", predicate, tph_predicate_fn,                                     \
	  REPLACE, ALL_PASS,       TPH_FLAG_PREDICATE,        "enablePredicate",       BOTH)       \
	X(PREPREDICATE, "PrePredicate", prepredicate, tph_prepredicate_fn,                         \
	  REPLACE, ALL_PASS,       TPH_FLAG_PREDICATE,        "enablePredicate",       BOTH)       \
	X(NODE_ORDER, "NodeOrder", node_order, tph_score_fn,                                       \
	  REPLACE, SUM,            TPH_FLAG_NODE_ORDER,       "enableNodeOrder",       BOTH)       \
	X(BATCH_NODE_ORDER, "BatchNodeOrder", batch_node_order, tph_score_fn,                      \
	  REPLACE, SUM,            TPH_FLAG_NODE_ORDER,       "enableNodeOrder",       VOLCANO)    \
	X(NODE_MAP, "NodeMap", node_map, tph_score_fn,                                             \
	  REPLACE, PAIRED,         TPH_FLAG_NODE_ORDER,       "enableNodeOrder",       VOLCANO)    \
	X(NODE_REDUCE, "NodeReduce", node_reduce, tph_reduce_fn,                                   \
	  REPLACE, SUM,            TPH_FLAG_NODE_ORDER,       "enableNodeOrder",       VOLCANO)    \
	X(BEST_NODE, "BestNode", best_node, tph_best_node_fn,                                      \
	  REPLACE, FIRST_NONZERO,  TPH_FLAG_BEST_NODE,        "enableBestNode",        VOLCANO)    \
	X(PREEMPTABLE, "Preemptable", preemptable, tph_victims_fn,                                 \
	  REPLACE, TIER_INTERSECT, TPH_FLAG_PREEMPTABLE,      "enablePreemptable",     VOLCANO)    \
	X(RECLAIMABLE, "Reclaimable", reclaimable, tph_victims_fn,                                 \
	  REPLACE, TIER_INTERSECT, TPH_FLAG_RECLAIMABLE,      "enableReclaimable",     VOLCANO)    \
	X(UNIFIED_EVICTABLE, "UnifiedEvictable", unified_evictable, tph_victims_fn,                \
	  REPLACE, TIER_INTERSECT, TPH_EP_ALWAYS,             "",                      VOLCANO)    \
	X(VICTIM_TASKS, "VictimTasks", victim_tasks, tph_victim_tasks_fn,                          \
	  APPEND,  TIER_UNION,     TPH_FLAG_VICTIM,           "enabledVictim",         VOLCANO)    \
	X(JOB_ENQUEUEABLE, "JobEnqueueable", job_enqueueable, tph_job_vote_fn,                     \
	  REPLACE, VOTE,           TPH_FLAG_JOB_ENQUEUED,     "enableJobEnqueued",     VOLCANO)    \
	X(JOB_PIPELINED, "JobPipelined", job_pipelined, tph_job_vote_fn,                           \
	  REPLACE, VOTE,           TPH_FLAG_JOB_PIPELINED,    "enableJobPipelined",    VOLCANO)    \
	X(SUBJOB_PIPELINED, "SubJobPipelined", subjob_pipelined, tph_job_vote_fn,                  \
	  REPLACE, VOTE,           TPH_FLAG_SUBJOB_PIPELINED, "enabledSubJobPipelined",VOLCANO)    \
	X(JOB_READY, "JobReady", job_ready, tph_job_pred_fn,                                       \
	  REPLACE, ALL_PASS,       TPH_FLAG_JOB_READY,        "enableJobReady",        VOLCANO)    \
	X(SUBJOB_READY, "SubJobReady", subjob_ready, tph_job_pred_fn,                              \
	  REPLACE, ALL_PASS,       TPH_FLAG_SUBJOB_READY,     "enabledSubJobReady",    VOLCANO)    \
	X(JOB_STARVING, "JobStarving", job_starving, tph_job_pred_fn,                              \
	  REPLACE, FIRST_TIER_ALL, TPH_FLAG_JOB_STARVING,     "enableJobStarving",     VOLCANO)    \
	X(JOB_VALID, "JobValid", job_valid, tph_job_valid_fn,                                      \
	  REPLACE, ALL_PASS,       TPH_EP_ALWAYS,             "",                      VOLCANO)    \
	X(JOB_ENQUEUED, "JobEnqueued", job_enqueued, tph_job_event_fn,                             \
	  REPLACE, ALL_RUN,        TPH_FLAG_JOB_ENQUEUED,     "enableJobEnqueued",     VOLCANO)    \
	X(OVERUSED, "Overused", overused, tph_queue_pred_fn,                                       \
	  REPLACE, ANY,            TPH_FLAG_OVERUSED,         "enabledOverused",       VOLCANO)    \
	X(ALLOCATABLE, "Allocatable", allocatable, tph_queue_task_pred_fn,                         \
	  REPLACE, ALL_PASS,       TPH_FLAG_ALLOCATABLE,      "enabledAllocatable",    VOLCANO)    \
	X(PREEMPTIVE, "Preemptive", preemptive, tph_queue_task_pred_fn,                            \
	  REPLACE, ALL_PASS,       TPH_FLAG_PREEMPTIVE,       "enablePreemptive",      VOLCANO)    \
	X(TARGET_JOB, "TargetJob", target_job, tph_target_job_fn,                                  \
	  REPLACE, FIRST_ONLY,     TPH_FLAG_TARGET_JOB,       "enableTargetJob",       VOLCANO)    \
	X(RESERVED_NODES, "ReservedNodes", reserved_nodes, tph_session_event_fn,                   \
	  REPLACE, ALL_RUN,        TPH_FLAG_RESERVED_NODES,   "enableReservedNodes",   VOLCANO)    \
	X(SIM_ALLOCATABLE, "SimulateAllocatable", sim_allocatable, tph_sim_allocatable_fn,         \
	  REPLACE, ALL_PASS,       TPH_FLAG_ALLOCATABLE,      "enabledAllocatable",    VOLCANO)    \
	X(SIM_PREDICATE, "SimulatePredicate", sim_predicate, tph_sim_predicate_fn,                 \
	  REPLACE, ALL_PASS,       TPH_FLAG_PREDICATE,        "enablePredicate",       VOLCANO)    \
	X(SIM_ADD_TASK, "SimulateAddTask", sim_add_task, tph_sim_task_fn,                          \
	  REPLACE, ALL_PASS,       TPH_EP_PREEMPTABLE_OR_ALLOCATABLE,                              \
	                           "enablePreemptable|enabledAllocatable", VOLCANO)                \
	X(SIM_REMOVE_TASK, "SimulateRemoveTask", sim_remove_task, tph_sim_task_fn,                 \
	  REPLACE, ALL_PASS,       TPH_EP_PREEMPTABLE_OR_ALLOCATABLE,                              \
	                           "enablePreemptable|enabledAllocatable", VOLCANO)                \
	X(ALLOCATE_EVENT, "AllocateEvent", task_events, tph_task_event_fn,                         \
	  CUSTOM,  ALL_RUN,        TPH_EP_ALWAYS,             "",                      BOTH)       \
	X(DEALLOCATE_EVENT, "DeallocateEvent", task_events, tph_task_event_fn,                     \
	  CUSTOM,  ALL_RUN,        TPH_EP_ALWAYS,             "",                      BOTH)       \
	X(HYPERNODE_ORDER, "HyperNodeOrder", hypernode_order, tph_hn_score_fn,                     \
	  REPLACE, SUM,            TPH_FLAG_HYPERNODE_ORDER,  "enabledHyperNodeOrder", VOLCANO)    \
	X(HN_GRADIENT_JOB, "HyperNodeGradientForJob", hypernode_gradient_job, tph_hn_gradient_fn,  \
	  REPLACE, FIRST_ONLY,     TPH_FLAG_HYPERNODE_GRADIENT,                                    \
	                           "enabledHyperNodeGradient", VOLCANO)                            \
	X(HN_GRADIENT_SUBJOB, "HyperNodeGradientForSubJob",                                        \
	  hypernode_gradient_subjob, tph_hn_gradient_fn,                                           \
	  REPLACE, FIRST_ONLY,     TPH_FLAG_HYPERNODE_GRADIENT,                                    \
	                           "enabledHyperNodeGradient", VOLCANO)                            \
	/* ---- tephra's own: what lets allocate keep scores (plugin.h) ---- */                    \
	X(SCORE_LOCALITY, "ScoreLocality", score_locality, tph_score_locality_fn,                  \
	  CUSTOM,  WEAKEST,        TPH_FLAG_NODE_ORDER,       "enableNodeOrder",       VOLCANO)    \
	X(SCORE_ANCHORS, "ScoreAnchors", score_locality, tph_score_anchors_fn,                     \
	  CUSTOM,  UNION,          TPH_FLAG_NODE_ORDER,       "enableNodeOrder",       VOLCANO)    \
	/* ---- KAI's (KAI-NOTES.md section 3): not dispatched yet ---- */                         \
	X(KAI_QUEUE_ORDER, "QueueOrder", kai_queue_order, tph_kai_queue_cmp_fn,                    \
	  APPEND,  FIRST_NONZERO,  TPH_EP_ALWAYS,             "",                      KAI)        \
	X(SUBGROUP_ORDER, "SubGroupOrder", subgroup_order, tph_cmp_fn,                             \
	  APPEND,  FIRST_NONZERO,  TPH_EP_ALWAYS,             "",                      KAI)        \
	X(NODE_PRE_ORDER, "NodePreOrder", node_pre_order, tph_node_pre_order_fn,                   \
	  APPEND,  ALL_RUN,        TPH_EP_ALWAYS,             "",                      KAI)        \
	X(GPU_ORDER, "GpuOrder", gpu_order, tph_gpu_order_fn,                                      \
	  APPEND,  SUM,            TPH_EP_ALWAYS,             "",                      KAI)        \
	X(VICTIM_INVARIANT_PREPREDICATE, "VictimInvariantPrePredicate",                            \
	  victim_invariant_prepredicate, tph_prepredicate_fn,                                      \
	  APPEND,  ALL_PASS,       TPH_EP_ALWAYS,             "",                      KAI)        \
	X(SUBSET_NODES, "SubsetNodes", subset_nodes, tph_subset_nodes_fn,                          \
	  APPEND,  TREE,           TPH_EP_ALWAYS,             "",                      KAI)        \
	X(CAN_RECLAIM, "CanReclaimResources", can_reclaim_resources, tph_job_pred_fn,              \
	  APPEND,  FIRST_ONLY,     TPH_EP_ALWAYS,             "",                      KAI)        \
	X(RECLAIM_VICTIM_FILTER, "ReclaimVictimFilter",                                            \
	  reclaim_victim_filter, tph_victim_filter_fn,                                             \
	  APPEND,  ALL_PASS,       TPH_EP_ALWAYS,             "",                      KAI)        \
	X(PREEMPT_VICTIM_FILTER, "PreemptVictimFilter",                                            \
	  preempt_victim_filter, tph_victim_filter_fn,                                             \
	  APPEND,  ALL_PASS,       TPH_EP_ALWAYS,             "",                      KAI)        \
	X(RECLAIM_SCENARIO_VALID, "ReclaimScenarioValidator",                                      \
	  reclaim_scenario_validator, tph_scenario_valid_fn,                                       \
	  APPEND,  ALL_PASS,       TPH_EP_ALWAYS,             "",                      KAI)        \
	X(PREEMPT_SCENARIO_VALID, "PreemptScenarioValidator",                                      \
	  preempt_scenario_validator, tph_scenario_valid_fn,                                       \
	  APPEND,  ALL_PASS,       TPH_EP_ALWAYS,             "",                      KAI)        \
	X(JOB_SOLUTION_START, "OnJobSolutionStart", job_solution_start, tph_session_event_fn,      \
	  APPEND,  ALL_RUN,        TPH_EP_ALWAYS,             "",                      KAI)        \
	X(JOB_OVER_CAPACITY, "IsJobOverQueueCapacity",                                             \
	  job_over_queue_capacity, tph_job_capacity_fn,                                            \
	  APPEND,  FIRST_ONLY,     TPH_EP_ALWAYS,             "",                      KAI)        \
	X(NONPREEMPTIBLE_OVER_QUOTA, "IsNonPreemptibleJobOverQueueQuota",                          \
	  nonpreemptible_over_queue_quota, tph_job_capacity_fn,                                    \
	  APPEND,  FIRST_ONLY,     TPH_EP_ALWAYS,             "",                      KAI)        \
	X(TASK_OVER_CAPACITY, "IsTaskAllocationOnNodeOverCapacity",                                \
	  task_over_node_capacity, tph_task_capacity_fn,                                           \
	  APPEND,  FIRST_ONLY,     TPH_EP_ALWAYS,             "",                      KAI)        \
	X(QUEUE_ALLOCATED, "QueueAllocatedResources", queue_allocated, tph_queue_resources_fn,     \
	  APPEND,  FIRST_ONLY,     TPH_EP_ALWAYS,             "",                      KAI)        \
	X(QUEUE_DESERVED, "QueueDeservedResources", queue_deserved, tph_queue_resources_fn,        \
	  APPEND,  FIRST_ONLY,     TPH_EP_ALWAYS,             "",                      KAI)        \
	X(QUEUE_FAIR_SHARE, "QueueFairShare", queue_fair_share, tph_queue_resources_fn,            \
	  APPEND,  FIRST_ONLY,     TPH_EP_ALWAYS,             "",                      KAI)        \
	X(PRE_JOB_ALLOCATION, "PreJobAllocation", pre_job_allocation, tph_job_event_fn,            \
	  APPEND,  ALL_RUN,        TPH_EP_ALWAYS,             "",                      KAI)        \
	X(NUMA_PLACEMENT, "NumaPlacement", numa_placement, tph_numa_placement_fn,                  \
	  APPEND,  FIRST_ONLY,     TPH_EP_ALWAYS,             "",                      KAI)        \
	X(BIND_REQUEST_MUTATE, "BindRequestMutate", bind_request_mutate, tph_bind_mutate_fn,       \
	  APPEND,  MERGE,          TPH_EP_ALWAYS,             "",                      KAI)        \
	X(SCENARIO_GENERATOR, "ScenarioGenerator", scenario_generator, tph_scenario_gen_fn,        \
	  APPEND,  IN_ORDER,       TPH_EP_ALWAYS,             "",                      KAI)

/* clang-format on */

#endif

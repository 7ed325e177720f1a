/* Private to the predicates plugin (predicates.c, predicates_pod.c, predicates_ports.c): its
 * session state, the PreFilter state of the pod-to-pod filters (InterPodAffinity,
 * PodTopologySpread) and the nodes' used host ports (NodePorts). */
#ifndef TPH_PREDICATES_H
#define TPH_PREDICATES_H

#include <pthread.h>
#include <stdatomic.h>

#include "lib/devices.h"
#include "lib/k8s_view.h"

/* The PreFilter state of InterPodAffinity and PodTopologySpread for one pod shape (spec,
 * namespace, labels): per-domain counts that equal a fresh computation over the view. Built
 * on the session thread or under `lock`; event handlers keep it current incrementally. */
typedef struct pred_pod {
	bool valid;
	const tph_pod_spec *spec;
	tph_sid ns;
	tph_labels labels;
	/* InterPodAffinity: counts per topology domain (flat, topo.off[k] + dom). */
	int32_t *aff, *anti, *exist;
	uint32_t aff_pairs, anti_pairs, exist_pairs; /* domains with a non-zero count */
	uint32_t *exist_key_pairs;                   /* [key] */
	uint32_t *req_key, *anti_key;                /* [term] topology key of the pod's terms */
	bool self_match; /* the pod matches all its own required affinity terms */
	/* PodTopologySpread over the DoNotSchedule constraints. */
	uint32_t n_c;
	uint32_t *c_row, *c_key, *c_off; /* [c] spread row, topology key, start in cnt */
	int32_t *cnt;                    /* matching pods per domain; -1: no eligible node */
	int32_t *c_min;                  /* [c] minMatchNum */
	uint8_t *c_self, *c_counts;      /* [c] selector matches the pod; selector counts pods */
	uint8_t *elig;                   /* [node] spreading counts this node */
	bool mins_dirty;
} pred_pod;

/* SimulateAddTask / SimulateRemoveTask on one node: what Volcano does to a copy of the
 * preemptor's cycle state, as per-key deltas at that node's domains. A call for another
 * preemptor or node starts a fresh copy. */
typedef struct pred_sim {
	bool active;
	tph_idx pending, node;
	uint64_t gen;
	int32_t *aff, *anti, *exist; /* [key] */
} pred_sim;

/* NodeInfo.UsedPorts of each node: a set, in the heap (event handlers grow it). */
typedef struct pred_port_set {
	tph_port_row *items;
	uint32_t n, cap;
} pred_port_set;

typedef struct pred_ports {
	pred_port_set *node; /* [node]; NULL when NodePorts is off or no pod binds a host port */
	uint32_t n_nodes;
	tph_sid any; /* "0.0.0.0" */
} pred_ports;

typedef struct pred_st {
	/* arguments (predicate.*Enable) */
	bool node_affinity, node_ports, taint_toleration, pod_affinity, volume_limits, volume_zone,
	    topology_spread, volume_binding, cache;
	tph_k8s_view *v;     /* the session's shared view; predicates' events keep it live */
	tph_devices *dev;    /* the session's devices (deviceshare fills them); events take cards */
	bool reserve;        /* Reserve can run: enablePredicate is on (see on_allocate) */
	int64_t *max_pods;   /* [node] allocatable pods (MaxTaskNum) */
	uint32_t *taint_off; /* [node + 1] into taint_code */
	tph_reason_code *taint_code; /* per taint of each node; TPH_PASS: PreferNoSchedule */
	tph_sid unsched_key;         /* node.kubernetes.io/unschedulable */
	tph_reason_code r_podnum, r_unsched, r_nodeaff, r_aff, r_anti, r_exist, r_spread,
	    r_spread_label, r_ports;
	bool any_pod_terms; /* some task has required pod terms or DoNotSchedule spreads */
	pred_pod pp;
	pred_sim sim;
	pred_ports ports; /* written by event handlers (session thread), read by filters */
	pthread_mutex_t lock;
	bool lock_init;
	_Atomic uint32_t ready_task; /* pp answers for this task at ready_gen */
	_Atomic uint64_t ready_gen;
	/* The stable filters' verdict per spec id and node, made once a spec has been filtered
	 * over as many nodes as the session has; written under `lock`, published atomically. */
	uint32_t n_specs;
	_Atomic(tph_reason_code *) *stable;
	_Atomic uint32_t *stable_seen; /* [spec] nodes filtered without a column */
	size_t stable_bytes;           /* under lock */
} pred_st;

/* Size pp and sim for the session's specs (session arena). */
int tph_pred_pod_init(pred_st *st, tph_session *s);
/* The pod state for `task`, current with the view: built or refreshed under the lock when
 * another task or an event came since. Safe from concurrent predicate callbacks. */
const pred_pod *tph_pred_pod_state(pred_st *st, const tph_session *s, tph_idx task);
/* Whether the task needs the pod state at all (required pod terms, DoNotSchedule spreads,
 * or existing pods with required anti-affinity). */
bool tph_pred_pod_needed(const pred_st *st, const tph_session *s, tph_idx task);
/* InterPodAffinity and PodTopologySpread Filters on one node, in Volcano's order: TPH_PASS,
 * or the reason; *unres says whether it is UnschedulableAndUnresolvable. */
tph_reason_code tph_pred_pod_filter(const pred_st *st, const tph_session *s, const pred_pod *pp,
                                    tph_idx task, tph_idx node, bool *unres);
/* Keep pp current: the view just added `task` on `node` (sign +1) or removed it (-1). */
void tph_pred_pod_event(pred_st *st, const tph_session *s, tph_idx task, tph_idx node, int sign);

/* NodePorts: the sets at open (predicate.NodePortsEnable, and some pod binds a host port),
 * the filter on one node (TPH_PASS or r_ports, Unschedulable), the view's add (+1) or removal
 * (-1) of `task` on `node` (ENOMEM when a set cannot grow), and freeing the sets. */
int tph_pred_ports_init(pred_st *st, tph_session *s);
tph_reason_code tph_pred_ports_filter(const pred_st *st, const tph_pod_spec *sp, tph_idx node);
int tph_pred_ports_event(pred_st *st, const tph_session *s, tph_idx task, tph_idx node, int sign);
void tph_pred_ports_free(pred_st *st);

/* Simulations over InterPodAffinity only, as Volcano's predicates registers them. */
int tph_pred_sim_add(void *st, tph_session *s, tph_idx pending, tph_idx task, tph_idx node);
int tph_pred_sim_remove(void *st, tph_session *s, tph_idx pending, tph_idx task, tph_idx node);
tph_reason_code tph_pred_sim_predicate(void *st, const tph_session *s, tph_idx task, tph_idx node);

#endif

/* The Kubernetes NodeInfo view that Volcano's predicates and nodeorder plugins hand to the
 * kube-scheduler plugins they wrap (ssn.NodeMap): which pods each session node holds, their
 * summed requests, and the node lists a k8s snapshot takes once at session open. Volcano
 * builds it from the session's nodes and only the predicates plugin's event handlers keep it
 * current, so the view is "live" (updated on allocate/deallocate) only when predicates runs in
 * the session. One view per session serves every plugin (tph_k8s_view_share). Also the per-session
 * indexes those plugins need: dense topology domains of the keys pod terms use, and node label
 * numbers for Gt/Lt.
 *
 * Written at session open and by event handlers (session thread); read by any thread. */
#ifndef TPH_K8S_VIEW_H
#define TPH_K8S_VIEW_H

#include "tephra/k8s.h"
#include "tephra/plugin.h"

/* Per node sums of the requests of the pods the view holds (NodeInfo.Requested and
 * NonZeroRequested, in Kubernetes units: millicores, bytes, whole GPUs). */
enum {
	TPH_KV_CPU = 0,
	TPH_KV_MEM,
	TPH_KV_NZ_CPU, /* cpu with 100m for each container that names none (tph_k8s_nonzero) */
	TPH_KV_NZ_MEM, /* memory with 200Mi for each container that names none */
	TPH_KV_GPU,    /* nvidia.com/gpu */
	TPH_KV_COUNT
};

/* One node's sums beside its allocatable cpu, memory and nvidia.com/gpu (constant in a
 * session), one 64-byte line: a score of one node (nodeorder's LeastAllocated and
 * BalancedAllocation) reads one line, and an add or remove writes one, where columns of each
 * cost a line apiece at every scattered node. */
typedef struct tph_k8s_line {
	int64_t sum[TPH_KV_COUNT];
	int64_t cap_cpu, cap_mem, cap_gpu; /* cap_gpu 0 when there is no nvidia.com/gpu */
} tph_k8s_line;

/* Topology domains: for each key a pod term or spread constraint of any task uses, the dense
 * id of each node's value, so per-domain counts are flat arrays. */
typedef struct tph_k8s_topo {
	uint32_t n_keys;
	tph_sid *keys;
	uint32_t *dom;   /* [k * n_nodes + node]; TPH_NOIDX when the node lacks the label */
	uint32_t *n_dom; /* [k] distinct values */
	uint32_t *off;   /* [k] start of key k in a flat per-domain array of `total` entries */
	uint32_t total;
} tph_k8s_topo;

typedef struct tph_k8s_view {
	uint32_t n_nodes, n_tasks;
	tph_idx *at;          /* [task] node the view holds it on; TPH_NOIDX: not held */
	tph_idx *next, *prev; /* [task] the node's pod list */
	tph_idx *head;        /* [node] */
	uint32_t *npods;      /* [node] len(NodeInfo.Pods) */
	tph_k8s_line *line;   /* [node], cache-line aligned */
	/* Snapshot lists taken at open (never updated, as Volcano's k8s snapshot): nodes with a
	 * pod that has any pod (anti-)affinity, and with one that has required anti-affinity. */
	uint8_t *open_aff, *open_anti;
	tph_idx *anti_nodes;
	uint32_t n_anti_nodes;
	tph_idx *aff_nodes;
	uint32_t n_aff_nodes;
	uint32_t gpu_dim; /* TPH_NOIDX when no task or node has nvidia.com/gpu */
	tph_sid hostname; /* kubernetes.io/hostname, TPH_SID_NONE if never interned */
	tph_k8s_topo topo;
	tph_k8s_nums nums;
	/* The most terms of each kind any one task's spec has (plugins size per-pod scratch by
	 * them without walking the tasks again). */
	uint32_t max_pod_required, max_anti_required, max_spread, max_soft_spread;
	uint64_t gen; /* bumped by every add and remove */
} tph_k8s_view;

/* Build the view from the session's tasks on ready nodes (every status a node holds) and the
 * indexes from every task's spec. Session arena; call from on_session_open. */
int tph_k8s_view_init(tph_k8s_view *v, tph_session *s);
/* The session's one view (a session-shared object, built by the first plugin that asks), as
 * Volcano's plugins all read the one ssn.NodeMap: `*out` points at the session's view. Only
 * predicates' event handlers call add/remove, which is what makes the view live exactly when
 * predicates is in the conf. */
int tph_k8s_view_share(tph_session *s, tph_k8s_view **out);
/* NodeInfo.AddPod / RemovePod. remove returns the node the task was held on (TPH_NOIDX when
 * it was not held). */
void tph_k8s_view_add(tph_k8s_view *v, const tph_session *s, tph_idx task, tph_idx node);
tph_idx tph_k8s_view_remove(tph_k8s_view *v, const tph_session *s, tph_idx task);

/* NodeInfo.Requested (TPH_KV_CPU ...) of a node. */
static inline int64_t tph_k8s_sum(const tph_k8s_view *v, tph_idx node, uint32_t k)
{
	return v->line[node].sum[k];
}

/* The index of a topology key, TPH_NOIDX when no spec uses it. */
uint32_t tph_k8s_topo_key(const tph_k8s_topo *t, tph_sid key);
static inline uint32_t tph_k8s_dom(const tph_k8s_view *v, uint32_t k, tph_idx node)
{
	return v->topo.dom[(size_t)k * v->n_nodes + node];
}

/* A pod with any pod affinity or anti-affinity term (NodeInfo.PodsWithAffinity). */
static inline bool tph_k8s_has_pod_affinity(const tph_pod_spec *sp)
{
	return sp->n_pod_required || sp->n_pod_preferred || sp->n_anti_required ||
	       sp->n_anti_preferred;
}

/* kube-scheduler's non-zero cpu and memory request of a task (tph_task_store.nonzero): 100m and
 * 200Mi for each container that names none. */
static inline const int64_t *tph_k8s_nonzero(const tph_session *s, tph_idx t)
{
	return tph_view_of(s)->tasks->nonzero + (size_t)t * 2;
}

/* Whole units of a milli-unit count, rounded up as resource.Quantity.Value() does. */
static inline int64_t tph_k8s_value(int64_t milli)
{
	return milli / 1000 + (milli % 1000 > 0);
}

#endif

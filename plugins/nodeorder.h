/* Private to the nodeorder plugin (nodeorder.c, nodeorder_pod.c): its state and the
 * pod-to-pod scorers (InterPodAffinity, PodTopologySpread). */
#ifndef TPH_NODEORDER_H
#define TPH_NODEORDER_H

#include "k8s_view.h"

typedef struct no_st {
	/* arguments: the weight of each kube-scheduler score plugin */
	int64_t w_least, w_most, w_node_aff, w_pod_aff, w_balanced, w_taint, w_image, w_spread;
	tph_k8s_view v;   /* kept current only when predicates runs in the session, as in Volcano */
	uint32_t *prefer; /* [node] PreferNoSchedule taints */
	bool any_prefer;  /* some node has one */
	/* NodeAffinity's raw score per spec id and node (labels only: it never changes), made
	 * once a spec has been scored over as many nodes as the session has (session thread) */
	uint32_t n_specs;
	int64_t **aff_raw;
	uint32_t *aff_seen;
	size_t aff_bytes;
	/* scratch for one batch call (session thread) */
	int64_t *raw;  /* [candidate] one plugin's scores */
	uint8_t *skip; /* [candidate] PodTopologySpread's ignored nodes */
	int64_t *topo; /* [topo.total] InterPodAffinity score per domain */
	int64_t *cnt;  /* [soft constraint * maxdom] PodTopologySpread counts per domain */
	uint8_t *seen; /* [soft constraint * maxdom] a candidate sits in the domain */
	uint32_t maxdom, max_soft;
	const tph_spread_row **pts_row; /* [max_soft] one pod's ScheduleAnyway constraints */
	uint32_t *pts_key, *pts_off;
	double *pts_weight;
	uint8_t *pts_host;
} no_st;

/* kube-scheduler's score range. */
#define TPH_MAX_NODE_SCORE 100

/* InterPodAffinity Score plus NormalizeScore into raw[0..n); false when PreScore skips. */
bool tph_no_pod_affinity(no_st *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                         uint32_t n, int64_t *raw);
/* PodTopologySpread Score plus NormalizeScore; false when PreScore skips. */
bool tph_no_spread(no_st *st, const tph_session *s, tph_idx task, const tph_idx *nodes, uint32_t n,
                   int64_t *raw);
/* Size the scratch the two need (session arena). */
int tph_no_pod_init(no_st *st, tph_session *s);

#endif

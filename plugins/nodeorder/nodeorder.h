/* Private to the nodeorder plugin (nodeorder.c, nodeorder_pod.c, nodeorder_image.c): its state,
 * the pod-to-pod scorers (InterPodAffinity, PodTopologySpread) and ImageLocality. */
#ifndef TPH_NODEORDER_H
#define TPH_NODEORDER_H

#include "lib/k8s_view.h"

/* The scorers BatchNodeOrder normalises over the candidates: one raw column each. */
enum {
	NO_AFF,   /* NodeAffinity */
	NO_IPA,   /* InterPodAffinity */
	NO_TAINT, /* TaintToleration */
	NO_PTS,   /* PodTopologySpread */
	NO_COLS
};

typedef struct no_st {
	/* arguments: the weight of each kube-scheduler score plugin */
	int64_t w_least, w_most, w_node_aff, w_pod_aff, w_balanced, w_taint, w_image, w_spread;
	tph_k8s_view *v;  /* the session's shared view (never add/remove through it):
	                     live only when predicates runs in the session, as in Volcano */
	uint32_t *prefer; /* [node] PreferNoSchedule taints */
	bool any_prefer;  /* some node has one */
	/* NodeAffinity's raw score per spec id and node (labels only: it never changes), made
	 * once a spec has been scored over as many nodes as the session has (session thread) */
	uint32_t n_specs;
	int64_t **aff_raw;
	uint32_t *aff_seen;
	size_t aff_bytes;
	/* scratch for one batch call: written by its span functions (tph_session_parallel), each
	 * in its own span's slice, and read on the session's thread between passes */
	int64_t *raw;          /* [candidate] one plugin's scores (locality anchors) */
	int64_t *col[NO_COLS]; /* [candidate] raw scores of the normalised scorers; NULL when no
	                        * spec of the session can need that scorer */
	int64_t *ext;          /* [span][2 * NO_COLS] per-span minima, then maxima: a cache line */
	uint32_t pts_n;        /* soft constraints of the pod being scored (PodTopologySpread) */
	uint8_t *skip;         /* [candidate] PodTopologySpread's ignored nodes */
	int64_t *topo;         /* [topo.total] InterPodAffinity score per domain */
	int64_t *cnt;          /* [soft constraint * maxdom] PodTopologySpread counts per domain */
	uint8_t *seen;         /* [soft constraint * maxdom] a candidate sits in the domain */
	uint32_t maxdom, max_soft;
	const tph_spread_row **pts_row; /* [max_soft] one pod's ScheduleAnyway constraints */
	uint32_t *pts_key, *pts_off;
	double *pts_weight;
	uint8_t *pts_host;
	/* ImageLocality, made at open: each node's image names (sorted, from its ImageStates) with
	 * their scaledImageScore over the session's node count, rows img_off[n] .. img_off[n + 1];
	 * NULL when the weight is 0 or no pod has a known image */
	uint32_t *img_off;
	tph_sid *img_name;
	int64_t *img_score;
} no_st;

/* kube-scheduler's score range. */
#define TPH_MAX_NODE_SCORE 100

/* InterPodAffinity's PreScore for `task` (scores per topology domain in st->topo): false when
 * it skips. Then Score over nodes[0..n) into raw (any span, after the PreScore), and
 * NormalizeScore of one raw score given the extremes over every candidate. */
bool tph_no_ipa_prescore(no_st *st, const tph_session *s, tph_idx task);
void tph_no_ipa_raw(const no_st *st, const tph_idx *nodes, uint32_t n, int64_t *raw);
static inline int64_t tph_no_ipa_norm(int64_t raw, int64_t min, int64_t max)
{
	double f = 0;
	if (max - min > 0)
		f = (double)TPH_MAX_NODE_SCORE * ((double)(raw - min) / (double)(max - min));
	return (int64_t)f;
}
/* PodTopologySpread's PreScore over the candidates nodes[0..n) (st->skip[i]: candidate i lacks
 * a key and is ignored): false when it skips. Then Score of a span of candidates, nodes and
 * skip being that span's slices, and NormalizeScore given the extremes over the candidates
 * that are not skipped. */
bool tph_no_pts_prescore(no_st *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                         uint32_t n);
void tph_no_pts_raw(const no_st *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                    const uint8_t *skip, uint32_t n, int64_t *raw);
static inline int64_t tph_no_pts_norm(int64_t raw, bool skip, int64_t min, int64_t max)
{
	if (skip)
		return 0;
	return max ? TPH_MAX_NODE_SCORE * (max + min - raw) / max : TPH_MAX_NODE_SCORE;
}
/* Size the scratch the two need (session arena). */
int tph_no_pod_init(no_st *st, tph_session *s);

/* ImageLocality (nodeorder_image.c): its tables at open, and its NodeOrder callback. */
int tph_no_image_init(no_st *st, tph_session *s);
void tph_no_image_locality(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                           uint32_t n, double *out);

#endif

/* nodeorder's NodeOrder: kube-scheduler's ImageLocality (imagelocality.Score), weighted by
 * imagelocality.weight. A node scores the images it holds that the pod's containers and init
 * containers use, each its size scaled by the share of nodes holding it (scaledImageScore,
 * NumNodes as Volcano's cache froze it when the node was put, over the session's nodes), the
 * sum clamped between 23 MiB and 1000 MiB per container and mapped onto 0..100
 * (calculatePriority). The scaled scores are made at open; a task-node pair costs a binary
 * search per image of the pod. */
#include "nodeorder.h"

#include <string.h>

#define MIB               (1024LL * 1024)
#define MIN_THRESHOLD     (23 * MIB)
#define MAX_PER_CONTAINER (1000 * MIB)

static bool any_images(const tph_session *s)
{
	const tph_task_store *ts = tph_view_of(s)->tasks;
	for (tph_idx t = 0; t < ts->n; t++)
		if (ts->spec[t]->n_images)
			return true;
	return false;
}

int tph_no_image_init(no_st *st, tph_session *s)
{
	const tph_node_store *ns = tph_view_of(s)->nodes;
	if (!st->w_image || !TPH_VIEW_REV(tph_view_of(s), 1) || !any_images(s))
		return TPH_OK;
	uint32_t total = 0;
	st->img_off = TPH_SESSION_NEW(s, uint32_t, ns->n + 1);
	if (!st->img_off)
		return TPH_ENOMEM;
	for (tph_idx n = 0; n < ns->n; n++) {
		st->img_off[n] = total;
		total += ns->meta[n]->n_images;
	}
	st->img_off[ns->n] = total;
	st->img_name = TPH_SESSION_NEW(s, tph_sid, total + 1);
	st->img_score = TPH_SESSION_NEW(s, int64_t, total + 1);
	if (!st->img_name || !st->img_score)
		return TPH_ENOMEM;
	/* totalNumNodes: the NodeInfos of the session's snapshot, its ready nodes */
	double nodes = (double)(tph_view_of(s)->n_ready ? tph_view_of(s)->n_ready : 1);
	for (tph_idx n = 0; n < ns->n; n++) {
		const tph_node_meta *m = ns->meta[n];
		for (uint32_t i = 0; i < m->n_images; i++) {
			double spread = (double)m->images[i].num_nodes / nodes;
			st->img_name[st->img_off[n] + i] = m->images[i].name;
			st->img_score[st->img_off[n] + i] =
			    (int64_t)((double)m->images[i].size * spread);
		}
	}
	return TPH_OK;
}

/* The node's scaled score of an image, 0 when it does not hold it. */
static int64_t scaled(const no_st *st, tph_idx node, tph_sid image)
{
	uint32_t lo = st->img_off[node], hi = st->img_off[node + 1];
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (st->img_name[mid] < image)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->img_off[node + 1] && st->img_name[lo] == image ? st->img_score[lo] : 0;
}

/* calculatePriority, in Go's int64 arithmetic (wrapping where it would). */
static int64_t priority(int64_t sum, uint32_t containers)
{
	int64_t max = (int64_t)((uint64_t)MAX_PER_CONTAINER * containers);
	if (sum < MIN_THRESHOLD)
		sum = MIN_THRESHOLD;
	else if (sum > max)
		sum = max;
	return (int64_t)((uint64_t)TPH_MAX_NODE_SCORE * (uint64_t)(sum - MIN_THRESHOLD)) /
	       (max - MIN_THRESHOLD);
}

void tph_no_image_locality(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                           uint32_t n, double *out)
{
	const no_st *st = stv;
	const tph_pod_spec *sp = tph_view_of(s)->tasks->spec[task];
	if (!st->img_off || !sp->n_images) { /* the sum stays under the threshold: 0 */
		memset(out, 0, n * sizeof *out);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		int64_t sum = 0;
		for (uint32_t k = 0; k < sp->n_images; k++)
			sum += scaled(st, nodes[i], sp->images[k]);
		out[i] = (double)priority(sum, sp->n_containers) * (double)st->w_image;
	}
}

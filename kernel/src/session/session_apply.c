/* tph_cluster_apply: a closed session's decisions written back into the cache its snapshot came
 * from, so that the host's next snapshot starts where this session left off (tephra/session.h).
 * It walks the decision log's rows, which hold snapshot indices, and finds each pod, node and
 * podgroup in the cache by the key the snapshot kept: nothing is named, built or interned. */
#include "session/session_int.h"

#include "base/diag.h"
#include "cache/cluster_int.h"

typedef struct apply_ctx {
	tph_cluster *c;
	const tph_session *s;
	tph_diag *d;
} apply_ctx;

static const char *str(const apply_ctx *a, tph_sid id)
{
	return tph_strtab_str(&a->c->strs, id);
}

/* The cache slot of task t's pod, or TPH_NOIDX (with a warning) when it was removed. */
static uint32_t pod_slot(const apply_ctx *a, tph_idx t, const char *what)
{
	tph_sid key = a->s->snap->tasks.key[t];
	uint32_t slot = tph_kind_find(&a->c->pods, key);
	if (slot == TPH_NOIDX)
		tph_diag_warn(a->d, "apply: pod %s was removed since the snapshot; %s skipped",
		              str(a, key), what);
	return slot;
}

/* The pod's slot and the node's name of a bind or a nomination; false (with a warning) when
 * either was removed. */
static bool pod_and_node(const apply_ctx *a, tph_log_row r, const char *what, uint32_t *slot,
                         tph_sid *node)
{
	*slot = pod_slot(a, r.task, what);
	*node = a->s->snap->nodes.name[r.node];
	if (*slot == TPH_NOIDX || tph_kind_find(&a->c->nodes, *node) != TPH_NOIDX)
		return *slot != TPH_NOIDX;
	tph_diag_warn(a->d, "apply: node %s was removed since the snapshot; pod %s: %s skipped",
	              str(a, *node), str(a, a->s->snap->tasks.key[r.task]), what);
	return false;
}

/* Whether the pod in `slot` is as the snapshot saw task t: same status, same node. A host that
 * updated it since (the kubelet started it, another scheduler bound it) wins. */
static bool unchanged(const apply_ctx *a, uint32_t slot, tph_idx t, const char *what)
{
	const tph_snapshot *sn = a->s->snap;
	const tph_kind *k = &a->c->pods;
	tph_idx n = sn->tasks.node[t];
	tph_sid was = n == TPH_NOIDX ? TPH_SID_NONE : sn->nodes.name[n];
	uint8_t st = KCOL(k, P_STATUS, uint8_t)[slot];
	if (st == sn->tasks.status[t] && KCOL(k, P_NODE, tph_sid)[slot] == was)
		return true;
	tph_diag_warn(a->d, "apply: pod %s changed since the snapshot (now %s); %s skipped",
	              str(a, sn->tasks.key[t]), tph_task_status_names[st], what);
	return false;
}

static void apply_binds(const apply_ctx *a)
{
	const tph_log *l = &a->s->log;
	uint8_t *status = KCOL(&a->c->pods, P_STATUS, uint8_t);
	tph_sid *at = KCOL(&a->c->pods, P_NODE, tph_sid);
	for (uint32_t i = 0; i < l->n_binds; i++) {
		uint32_t slot;
		tph_sid node;
		if (!pod_and_node(a, l->binds[i], "its bind", &slot, &node) ||
		    (status[slot] == TPH_TS_BOUND && at[slot] == node) || /* applied already */
		    !unchanged(a, slot, l->binds[i].task, "its bind"))
			continue;
		status[slot] = TPH_TS_BOUND; /* Pending with a nodeName: the spec's Bound */
		at[slot] = node;
	}
}

static void apply_pipelined(const apply_ctx *a)
{
	const tph_log *l = &a->s->log;
	tph_sid *nominated = KCOL(&a->c->pods, P_NOMINATED, tph_sid);
	for (uint32_t i = 0; i < l->n_pipelined; i++) {
		uint32_t slot;
		tph_sid node;
		if (pod_and_node(a, l->pipelined[i], "its nomination", &slot, &node) &&
		    unchanged(a, slot, l->pipelined[i].task, "its nomination"))
			nominated[slot] = node; /* the pod stays Pending */
	}
}

static void apply_evictions(const apply_ctx *a)
{
	const tph_log *l = &a->s->log;
	uint8_t *status = KCOL(&a->c->pods, P_STATUS, uint8_t);
	for (uint32_t i = 0; i < l->n_evictions; i++) {
		tph_idx t = l->evictions[i].task;
		uint32_t slot = pod_slot(a, t, "its eviction");
		if (slot == TPH_NOIDX || status[slot] == TPH_TS_RELEASING ||
		    !unchanged(a, slot, t, "its eviction"))
			continue;
		status[slot] = TPH_TS_RELEASING; /* deleting, still holding its node */
	}
}

static void apply_phases(const apply_ctx *a)
{
	const tph_snapshot *sn = a->s->snap;
	const tph_kind *k = &a->c->pgs;
	uint8_t *phase = KCOL(k, G_PHASE, uint8_t);
	for (uint32_t j = 0; j < sn->jobs.n; j++) {
		tph_sid key = sn->job_pg[j];
		uint32_t slot = tph_kind_find(k, key);
		if (slot != TPH_NOIDX)
			phase[slot] = a->s->js.phase[j];
		else if (key != TPH_SID_NONE) /* (a bare pod's own job has no podgroup) */
			tph_diag_warn(a->d, "apply: podgroup %s was removed since the snapshot; %s",
			              str(a, key), "its phase skipped");
	}
}

int tph_cluster_apply(tph_cluster *c, const tph_session *s, tph_diag *d)
{
	tph_diag_begin(d);
	if (!c || !s)
		return tph_diag_set(d, TPH_EINVAL, "apply: no cache or no session");
	if (!s->closed)
		return tph_diag_set(d, TPH_EINVAL,
		                    "apply: the session is not closed (tph_session_close first)");
	if (s->snap->cache != c)
		return tph_diag_set(d, TPH_EINVAL,
		                    "apply: the session's snapshot was taken from another cache");
	/* Nothing below allocates or can fail: every write goes to a slot that exists, so the
	 * checks above are all there is to all-or-nothing. */
	apply_ctx a = {c, s, d};
	apply_binds(&a);
	apply_pipelined(&a);
	apply_evictions(&a);
	apply_phases(&a);
	return TPH_OK;
}

/* nodegroup plugin, private: the tables both halves share. nodegroup.c builds the node groups and
 * the per-queue affinity rows and answers the predicate and the node order; nodegroup_limits.c
 * reads the queues' volcano.sh/nodegroup-resource-limits annotations and keeps what each limited
 * queue holds per node group as tasks come and go. */
#ifndef TPH_PLUGINS_NODEGROUP_H
#define TPH_PLUGINS_NODEGROUP_H

#include "lib/vres.h"

#define NG_NONE UINT32_MAX

/* One queue's limit on one node group (Volcano's nodeGroupResourceLimit with the queue's
 * nodeGroupAllocated entry for that group). */
typedef struct ng_limit {
	tph_dimmask dims; /* limited dimensions a task can hold: visible to Volcano, not pods */
	bool always;      /* a limited resource no task holds has a negative limit: always over */
	bool touched;     /* Volcano's nodeGroupAllocated has the group (something was added) */
	int64_t *lim;     /* [ndim]: in the dimension's units, milli-bytes where `milli` says */
	int64_t *used;    /* [ndim]: what the queue's tasks hold on the group's nodes (mutable,
	                     session thread: the event handlers) */
} ng_limit;

typedef struct ng_st {
	bool strict, preferred_order; /* arguments `strict`, `enablePreferredOrder` */
	vr_dims v;
	tph_dimmask milli; /* dimensions Volcano keeps in milli-bytes (ephemeral, hugepages) */
	/* Node groups: the distinct volcano.sh/nodegroup-name values on nodes, sorted by id. */
	uint32_t n_groups, stride; /* stride = n_groups + 1: column n_groups is "no label" */
	tph_sid *groups;
	uint32_t *grp; /* [node]: its group, n_groups without the label */
	/* Affinity rows: row 0 is a queue without affinity rules (Volcano's unsetAffinity). */
	uint32_t *row;            /* [queue] */
	tph_reason_code *verdict; /* [row * stride + group] */
	double *score;            /* [row * stride + group] */
	/* Resource limits (NULL when no queue has the annotation). */
	uint8_t *bad;      /* [queue]: the annotation does not parse (every node fails) */
	uint32_t *lim_row; /* [queue]: into lim_of, NG_NONE without limits on node groups */
	uint32_t *lim_of;  /* [lim_row * stride + group]: into limits, NG_NONE unlimited */
	ng_limit *limits;
	uint32_t n_limits, n_lim_rows;
	tph_idx *ev_node; /* [task]: the node the task was counted on (an undone allocation has
	                     lost its node when the deallocate event fires) */
	tph_reason_code r_nojob, r_nolabel, r_notfound, r_unsat, r_invalid, r_exceeded;
} ng_st;

/* ---- nodegroup_json.c ---- */

/* A parsed annotation: names and quantity texts in `text`, groups in document order. */
typedef struct ng_jres {
	uint32_t name; /* offset of the decoded, NUL-terminated name in the text buffer */
	uint32_t raw;  /* offset of the quantity's text (NUL-terminated), UINT32_MAX for null */
} ng_jres;

typedef struct ng_jgroup {
	uint32_t name;
	uint32_t first, n; /* its resources: res[first .. first + n) */
	bool null;         /* "group": null */
} ng_jgroup;

typedef struct ng_json {
	const char *p, *end;
	char *text; /* decoded names and quantity texts */
	uint32_t n_text, cap_text;
	ng_jres *res;
	uint32_t n_res, cap_res;
	ng_jgroup *grp;
	uint32_t n_grp, cap_grp;
	bool oom;
} ng_json;

/* json.Unmarshal(raw, &map[string]v1.ResourceList{}) succeeds: the groups are in `j` (zeroed
 * first; free with ng_json_free, also after a failure). j->oom tells a failure of memory. */
bool ng_json_parse(ng_json *j, const char *raw);
void ng_json_free(ng_json *j);
/* The text of a quantity, NULL for null. */
static inline const char *ng_json_raw(const ng_json *j, uint32_t raw)
{
	return raw == UINT32_MAX ? NULL : j->text + raw;
}
/* resource.ParseQuantity of a quantity's text (NULL: the zero quantity), spaces trimmed as
 * Quantity.UnmarshalJSON does, scaled to `unit`: negative for a negative quantity; a magnitude
 * beyond int64 saturates. */
bool ng_quantity(const char *text, tph_res_unit unit, int64_t *v);

/* The group index of a label value, or NG_NONE when no node carries it. */
uint32_t ng_group_of(const ng_st *st, tph_sid value);

/* Read every queue's resource-limit annotation, count what the limited queues hold at open and
 * register the event handlers that keep it current (only when some queue has limits). */
int ng_limits_open(tph_session *s, ng_st *st);

/* checkNodeGroupResourceLimit for a task's request row against limit `l`. */
static inline bool ng_over(const ng_st *st, const ng_limit *l, const int64_t *req, uint32_t nd)
{
	if (l->always)
		return true;
	for (uint32_t d = 0; d < nd; d++) {
		if (!vr_has(l->dims, d))
			continue;
		int64_t u = l->used[d] + req[d];
		if ((vr_has(st->milli, d) ? u * 1000 : u) > l->lim[d])
			return true;
	}
	return false;
}

#endif

/* Which pending tasks of a job the allocate action tries in one turn (KAI's GetTasksToAllocate,
 * api/podgroup_info): walking the sub-group tree, a set below its minimum K (gang phase) takes
 * from its K best children, the satisfied among them giving nothing; a satisfied set takes
 * from its best child with something to give (elastic phase). A pod set below its minMember
 * gives exactly the missing tasks or none; at its minimum, one task. Tasks in TaskOrder,
 * children in sub-group order (sg_cmp). */
#include "kai_int.h"

#include <string.h>

/* Siblings grouped by parent (root first), each group by SubGroupOrder over sets and pod sets
 * alike, then name (KAI sorts a set's members, GetMembers, by SubGroupOrderFn). */
static int sg_cmp(const tph_kai_session *s, uint32_t a, uint32_t b)
{
	const tph_kai_subgroups *sg = &s->v->subgroups;
	if (sg->parent[a] != sg->parent[b])
		return sg->parent[a] < sg->parent[b] ? -1 : 1;
	return tph_kai_pod_set_order(s, a, b);
}

void tph_kai_order_subgroups(const tph_kai_session *s, uint32_t j)
{
	uint32_t *order = s->sg_order, first = s->v->jobs.sg_first[j];
	for (uint32_t c = first; c < first + s->v->jobs.sg_count[j]; c++) {
		uint32_t at = c, k = order[c];
		while (at > first && sg_cmp(s, k, order[at - 1]) < 0) {
			order[at] = order[at - 1];
			at--;
		}
		order[at] = k;
	}
}

void tph_kai_order_members(const tph_kai_session *s, uint32_t j, int32_t set)
{
	const int32_t *parent = s->v->subgroups.parent;
	uint32_t *order = s->sg_order, first = s->v->jobs.sg_first[j];
	for (uint32_t i = first; i < first + s->v->jobs.sg_count[j]; i++) {
		uint32_t at = i, k = order[i];
		if (parent[k] != set)
			continue;
		for (uint32_t p = i; p-- > first;) {
			if (parent[order[p]] != set)
				continue;
			if (tph_kai_pod_set_order(s, k, order[p]) >= 0)
				break;
			order[at] = order[p];
			at = p;
		}
		order[at] = k;
	}
}

/* One pick's working state: the session's scratch and the output. */
typedef struct tph_kai_picker {
	const tph_kai_session *s;
	const uint32_t *sg_order;
	uint32_t *allocated; /* [sub-group] active allocated tasks of a pod set */
	uint32_t *tasks;
	uint32_t n_tasks;
} tph_kai_picker;

static bool sg_satisfied(const tph_kai_picker *a, uint32_t k);

/* A set's satisfied children, and whether that meets its minimum. */
static uint32_t satisfied_kids(const tph_kai_picker *a, uint32_t j, int32_t set)
{
	const tph_kai_view *v = a->s->v;
	uint32_t first = v->jobs.sg_first[j], ok = 0;
	for (uint32_t c = first; c < first + v->jobs.sg_count[j]; c++)
		ok += v->subgroups.parent[c] == set && sg_satisfied(a, c);
	return ok;
}

static int32_t set_min(const tph_kai_view *v, uint32_t j, int32_t set)
{
	return set < 0 ? v->jobs.min_subgroup[j] : v->subgroups.min_subgroup[set];
}

static bool sg_satisfied(const tph_kai_picker *a, uint32_t k)
{
	const tph_kai_view *v = a->s->v;
	if (v->subgroups.pod_set[k])
		return (int64_t)a->allocated[k] >= v->subgroups.min_member[k];
	return (int64_t)satisfied_kids(a, v->subgroups.job[k], (int32_t)k) >=
	       v->subgroups.min_subgroup[k];
}

/* Pending, or evicted in the open statement (KAI's ShouldAllocate outside a real allocation:
 * the solver re-places its victims; allocate's statements never evict). */
static bool to_allocate(const tph_kai_session *s, uint32_t t)
{
	return s->status[t] == TPH_KAI_TS_PENDING ||
	       (s->status[t] == TPH_KAI_TS_RELEASING && s->virt[t]);
}

/* from_pod_set outside naive mode: the job's tasks in rank order (job_ranked) filtered are
 * already in TaskOrder, so the walk stops at the tasks it takes. */
static uint32_t from_pod_set_ranked(tph_kai_picker *a, uint32_t j, uint32_t ps)
{
	const tph_kai_session *s = a->s;
	int64_t have = a->allocated[ps], min = s->v->subgroups.min_member[ps];
	uint32_t want = have >= min ? 1 : (uint32_t)(min - have), n = 0;
	uint32_t *out = a->tasks + a->n_tasks;
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1] && n < want; i++) {
		uint32_t t = s->job_ranked[i];
		if (s->v->tasks.pod_set[t] == (int32_t)ps && to_allocate(s, t))
			out[n++] = t;
	}
	if (have < min && n < want)
		return 0;
	a->n_tasks += n;
	return n;
}

/* Append pod set ps's tasks to take (see the top); returns how many. */
static uint32_t from_pod_set(tph_kai_picker *a, uint32_t j, uint32_t ps)
{
	const tph_kai_session *s = a->s;
	if (!s->naive && s->job_ranked)
		return from_pod_set_ranked(a, j, ps);
	uint32_t n = 0, *out = a->tasks + a->n_tasks;
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++) {
		uint32_t t = s->job_tasks[i];
		if (s->v->tasks.pod_set[t] != (int32_t)ps || !to_allocate(s, t))
			continue;
		out[n++] = t;
	}
	tph_kai_sort_tasks(s, out, n, +1);
	int64_t have = a->allocated[ps], min = s->v->subgroups.min_member[ps];
	uint32_t want = have >= min ? (n ? 1 : 0) : (uint32_t)(min - have);
	if (have < min && n < want)
		return 0;
	a->n_tasks += want;
	return want;
}

static uint32_t from_set(tph_kai_picker *a, uint32_t j, int32_t set);

static uint32_t from_child(tph_kai_picker *a, uint32_t j, uint32_t c, bool gang)
{
	if (gang && sg_satisfied(a, c))
		return 0;
	return a->s->v->subgroups.pod_set[c] ? from_pod_set(a, j, c) : from_set(a, j, (int32_t)c);
}

/* Below its minimum K, a set takes from its first K children in sub-group order (a satisfied
 * one among them gives nothing), as KAI's collectTasksFromSubGroupSet does; at or above it,
 * from the first child with something to give. */
static uint32_t from_set(tph_kai_picker *a, uint32_t j, int32_t set)
{
	const tph_kai_view *v = a->s->v;
	uint32_t first = v->jobs.sg_first[j], end = first + v->jobs.sg_count[j];
	int64_t k = set_min(v, j, set), seen = 0;
	bool gang = satisfied_kids(a, j, set) < k;
	uint32_t got = 0;
	for (uint32_t i = first; i < end && (!gang || seen < k); i++) {
		uint32_t c = a->sg_order[i];
		if (v->subgroups.parent[c] != set)
			continue;
		uint32_t m = from_child(a, j, c, gang);
		if (m && !gang)
			return m;
		got += m;
		seen++;
	}
	return got;
}

static uint32_t afresh(const tph_kai_session *s, uint32_t j, uint32_t *out)
{
	tph_kai_order_subgroups(s, j);
	tph_kai_picker pk = {s, s->sg_order, s->sg_alloc, out, 0}, *a = &pk;
	const tph_kai_view *v = s->v;
	uint32_t first = v->jobs.sg_first[j];
	for (uint32_t c = first; c < first + v->jobs.sg_count[j]; c++)
		a->allocated[c] = 0;
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++) {
		uint32_t t = s->job_tasks[i];
		if (v->tasks.pod_set[t] >= 0 && tph_kai_active_allocated(s->status[t]))
			a->allocated[v->tasks.pod_set[t]]++;
	}
	a->n_tasks = 0;
	return from_set(a, j, -1);
}

/* Outside naive mode a job's turn is kept until one of its tasks changes (tph_kai_touch): the
 * walk reads only the job's own tasks, TaskOrder is static and SubGroupOrder compares the
 * job's own sub-groups (tephra/kai.h). Re-sorting the job's sub-groups in the same state
 * leaves them as they are, so skipping tph_kai_order_subgroups on a hit changes nothing. */
void tph_kai_set_partial(tph_kai_session *s, uint32_t j, const uint32_t *tasks, uint32_t n)
{
	s->job_gen[j]++;
	s->partial = tasks;
	s->partial_n = n;
	s->partial_job = j;
}

uint32_t tph_kai_tasks_to_allocate(const tph_kai_session *s, uint32_t j, uint32_t *out)
{
	if (s->partial && j == s->partial_job) {
		memmove(out, s->partial, s->partial_n * sizeof *out);
		return s->partial_n;
	}
	if (s->naive || !s->job_ranked)
		return afresh(s, j, out);
	uint32_t *kept = s->turn_tasks + s->job_first[j];
	if (s->turn_gen[j] != s->job_gen[j]) {
		s->turn_n[j] = afresh(s, j, kept);
		s->turn_gen[j] = s->job_gen[j];
	}
	memcpy(out, kept, s->turn_n[j] * sizeof *out);
	return s->turn_n[j];
}

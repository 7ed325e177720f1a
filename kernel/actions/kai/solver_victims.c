/* The victims queue of one generator run (actions/utils victims queue, podgroup_info
 * GetTasksToEvict, solvers/pod_scenario_builder.go addNextPotentialVictims): each pop takes
 * the next job of the reversed hierarchical order and the tasks it gives this time — one
 * elastic pod (deepest surplus first) or, with no surplus, the whole gang — and pushes the rest
 * of the job back. A job reads as KAI's clone of it with the popped tasks gone. */
#include "solver.h"

static bool left(const tph_kai_solver *sv, uint32_t t)
{
	return !sv->taken[t] && tph_kai_active_allocated(sv->s->status[t]);
}

static int32_t min_of(const tph_kai_view *v, uint32_t j, int32_t set)
{
	return set < 0 ? v->jobs.min_subgroup[j] : v->subgroups.min_subgroup[set];
}

static uint32_t sat_kids(const tph_kai_solver *sv, uint32_t j, int32_t set)
{
	const tph_kai_subgroups *g = &sv->s->v->subgroups;
	uint32_t first = sv->s->v->jobs.sg_first[j], ok = 0;
	for (uint32_t c = first; c < first + sv->s->v->jobs.sg_count[j]; c++) {
		if (g->parent[c] != set)
			continue;
		ok += g->pod_set[c] ? (int64_t)sv->rem[c] >= g->min_member[c]
		                    : (int64_t)sat_kids(sv, j, (int32_t)c) >= g->min_subgroup[c];
	}
	return ok;
}

static bool surplus(const tph_kai_solver *sv, uint32_t j, int32_t set)
{
	const tph_kai_subgroups *g = &sv->s->v->subgroups;
	if ((int64_t)sat_kids(sv, j, set) > min_of(sv->s->v, j, set))
		return true;
	uint32_t first = sv->s->v->jobs.sg_first[j];
	for (uint32_t c = first; c < first + sv->s->v->jobs.sg_count[j]; c++)
		if (g->parent[c] == set && (g->pod_set[c] ? (int64_t)sv->rem[c] > g->min_member[c]
		                                          : surplus(sv, j, (int32_t)c)))
			return true;
	return false;
}

/* Up to `max` tasks of pod set ps left in the queue, the last in TaskOrder first. */
static uint32_t from_pod_set(const tph_kai_solver *sv, uint32_t ps, uint32_t *out, uint32_t max)
{
	const tph_kai_session *s = sv->s;
	uint32_t j = s->v->subgroups.job[ps], n = 0;
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++) {
		uint32_t t = s->job_tasks[i];
		if (s->v->tasks.pod_set[t] != (int32_t)ps || !left(sv, t))
			continue;
		out[n++] = t;
	}
	tph_kai_sort_tasks(s, out, n, -1);
	return n < max ? n : max;
}

static bool under(const tph_kai_view *v, int32_t sg, int32_t set)
{
	for (; sg >= 0; sg = v->subgroups.parent[sg])
		if (sg == set)
			return true;
	return set < 0;
}

/* Every task left below `set` (KAI's gang eviction of a member). */
static uint32_t from_all(const tph_kai_solver *sv, uint32_t j, int32_t set, uint32_t *out)
{
	const tph_kai_view *v = sv->s->v;
	uint32_t n = 0, first = v->jobs.sg_first[j];
	for (uint32_t c = first; c < first + v->jobs.sg_count[j]; c++)
		if (v->subgroups.pod_set[c] && under(v, (int32_t)c, set))
			n += from_pod_set(sv, c, out + n, UINT32_MAX);
	return n;
}

/* KAI's elastic phases: a surplus deeper in the tree gives one pod, else a set above its
 * minimum gives up its last member whole; members in reverse sub-group order. */
static uint32_t elastic(const tph_kai_solver *sv, uint32_t j, int32_t set, uint32_t *out)
{
	const tph_kai_view *v = sv->s->v;
	uint32_t sat = sat_kids(sv, j, set), first = v->jobs.sg_first[j];
	if (!sat)
		return 0;
	for (int phase = 0; phase < 2; phase++) {
		if (phase == 0 ? !surplus(sv, j, set) : (int64_t)min_of(v, j, set) >= sat)
			continue;
		for (uint32_t i = first + v->jobs.sg_count[j]; i-- > first;) {
			uint32_t c = sv->s->sg_order[i], n;
			if (v->subgroups.parent[c] != set)
				continue;
			if (phase == 1)
				n = from_all(sv, j, (int32_t)c, out);
			else if (v->subgroups.pod_set[c])
				n = (int64_t)sv->rem[c] > v->subgroups.min_member[c]
				        ? from_pod_set(sv, c, out, 1)
				        : 0;
			else
				n = elastic(sv, j, (int32_t)c, out);
			if (n)
				return n;
		}
	}
	return 0;
}

/* KAI's GetTasksToEvict on the job's clone: the tasks, and whether some are left after them. */
static uint32_t to_evict(tph_kai_solver *sv, uint32_t j, uint32_t *out, bool *more)
{
	const tph_kai_view *v = sv->s->v;
	uint32_t first = v->jobs.sg_first[j], total = 0;
	for (uint32_t c = first; c < first + v->jobs.sg_count[j]; c++)
		sv->rem[c] = 0;
	for (uint32_t i = sv->s->job_first[j]; i < sv->s->job_first[j + 1]; i++) {
		uint32_t t = sv->s->job_tasks[i];
		if (left(sv, t) && v->tasks.pod_set[t] >= 0) {
			sv->rem[v->tasks.pod_set[t]]++;
			total++;
		}
	}
	tph_kai_order_subgroups(sv->s, j);
	uint32_t n = elastic(sv, j, -1, out);
	if (!n)
		n = from_all(sv, j, -1, out);
	*more = n < total;
	return n;
}

static void take(tph_kai_solver *sv, uint32_t t)
{
	sv->taken[t] = 1;
	sv->taken_list[sv->n_taken++] = t;
}

/* The next victim job: the queue read with the popped tasks gone (masked as Releasing while
 * the orders look, then restored). */
static int32_t pop(tph_kai_solver *sv)
{
	uint8_t *st = sv->s->status;
	for (uint32_t i = 0; i < sv->n_taken; i++) {
		uint32_t t = sv->taken_list[i];
		sv->saved[i] = st[t];
		st[t] = TPH_KAI_TS_RELEASING;
		tph_kai_touch(sv->s, t);
	}
	int32_t j = tph_kai_jobq_pop(sv, sv->vq_in, &sv->vq, true);
	for (uint32_t i = 0; i < sv->n_taken; i++) {
		st[sv->taken_list[i]] = sv->saved[i];
		tph_kai_touch(sv->s, sv->taken_list[i]);
	}
	return j;
}

void tph_kai_victims_reset(tph_kai_solver *sv)
{
	for (uint32_t i = 0; i < sv->n_taken; i++)
		sv->taken[sv->taken_list[i]] = 0;
	sv->n_taken = sv->n_pot = sv->n_batch = 0;
	const tph_kai_view *v = sv->s->v;
	for (uint32_t j = 0; j < v->jobs.n; j++)
		sv->vq_in[j] = sv->cand[j];
	tph_kai_jobq_forget(sv, &sv->vq, true);
	tph_kai_idle_reset(&sv->idle);
}

int tph_kai_victims_next(tph_kai_solver *sv)
{
	int32_t j = pop(sv);
	if (j < 0)
		return -1;
	bool more;
	uint32_t *out = sv->pot + sv->n_pot, n = to_evict(sv, (uint32_t)j, out, &more);
	bool recorded = false;
	for (uint32_t i = 0; i < n && !recorded; i++)
		recorded = sv->in_rec[out[i]];
	if (recorded) {
		/* Pushed back without the recorded victims: they are in every scenario already. */
		const tph_kai_session *s = sv->s;
		for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++) {
			uint32_t t = s->job_tasks[i];
			if (sv->in_rec[t] && !sv->taken[t])
				take(sv, t);
		}
		for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1] && !sv->vq_in[j]; i++)
			sv->vq_in[j] = left(sv, s->job_tasks[i]);
		return 0;
	}
	for (uint32_t i = 0; i < n; i++)
		take(sv, out[i]);
	sv->vq_in[j] = more;
	if (n) {
		sv->n_pot += n;
		sv->batch_end[sv->n_batch++] = sv->n_pot;
	}
	return 1;
}

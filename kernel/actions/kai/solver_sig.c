/* KAI's scheduling signatures (actions/common/minimal_job_comparison.go, the signatures of
 * pod_info, subgroup_info/podset.go, podgroup_info/job_info.go), used by the solver's three
 * actions when useSchedulingSignatures is set: a pending job is skipped when a job of the same
 * signature already failed in this action (per queue in reclaim and preempt) and the job is
 * no easier to schedule than it. A signature hashes what constrains placement; "easier"
 * compares the pending pods' resource vectors. */
#include "solver.h"

#include "base/mem.h"

#include <stdlib.h>
#include <string.h>

static uint64_t str_hash(uint64_t h, const char *str)
{
	for (const char *c = str ? str : ""; *c; c++)
		h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
	return tph_kai_mix(h ^ 0x3a);
}

/* TopologyConstraintInfo's "topology:required:preferred"; none hashes as nothing. */
static uint64_t topo_hash(uint64_t h, const tph_kai_topo_constraint *c)
{
	if (!c->topology && !c->required_level && !c->preferred_level)
		return tph_kai_mix(h ^ 0x7c);
	return str_hash(str_hash(str_hash(h, c->topology), c->required_level), c->preferred_level);
}

/* A pod set's signature: its topology and its ancestors', and the multiset of its pods'
 * constraints (interned specs) over the pods not active-allocated; 0 when every pod is. */
static uint64_t pod_set_sig(const tph_kai_session *s, uint32_t j, uint32_t ps)
{
	const tph_kai_view *v = s->v;
	uint64_t pods = 0, n = 0;
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++) {
		uint32_t t = s->job_tasks[i];
		if (v->tasks.pod_set[t] != (int32_t)ps || tph_kai_active_allocated(s->status[t]))
			continue;
		pods += tph_kai_mix(v->tasks.spec[t] ? (uint64_t)v->tasks.spec[t]->id + 1 : 0);
		n++;
	}
	if (!n)
		return 0;
	uint64_t h = topo_hash(0, &v->subgroups.topology[ps]);
	for (int32_t p = v->subgroups.parent[ps]; p >= 0; p = v->subgroups.parent[p])
		h = topo_hash(h, &v->subgroups.topology[p]);
	h = topo_hash(h, &v->jobs.topology[j]);
	return tph_kai_mix(h + pods) | 1;
}

uint64_t tph_kai_job_signature(tph_kai_session *s, uint32_t j)
{
	if (s->job_sig[j]) /* KAI caches a podgroup's signature for the session */
		return s->job_sig[j];
	const tph_kai_view *v = s->v;
	uint64_t h = 0;
	for (uint32_t c = v->jobs.sg_first[j]; c < v->jobs.sg_first[j] + v->jobs.sg_count[j]; c++)
		if (v->subgroups.pod_set[c]) {
			uint64_t ps = pod_set_sig(s, j, c);
			h += ps ? tph_kai_mix(ps) : 0;
		}
	return s->job_sig[j] = tph_kai_mix(h) | 1;
}

/* A resource vector for the comparisons: GPUs, CPU, memory (KAI's ResReqVector less pods,
 * one per pod, and the extended resources the format does not carry). */
typedef struct vec3 {
	double r[TPH_KAI_DIMS];
} vec3;

static bool le(const vec3 *a, const vec3 *b)
{
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		if (a->r[d] > b->r[d])
			return false;
	return true;
}

/* KAI sorts with LessEqual, a partial order, in Go map order; a lexicographic order extends
 * it, so comparable vectors land as KAI's do and the rest deterministically. */
static int by_lex(const void *pa, const void *pb)
{
	const vec3 *a = pa, *b = pb;
	for (int d = 0; d < TPH_KAI_DIMS; d++)
		if (a->r[d] != b->r[d])
			return a->r[d] < b->r[d] ? -1 : 1;
	return 0;
}

/* Job j's Pending pods' vectors, sorted; -1 when one asks for a MIG profile (the format
 * carries no MIG quantities to compare). */
static int32_t pending_vecs(const tph_kai_session *s, uint32_t j, vec3 *out)
{
	uint32_t n = 0;
	for (uint32_t i = s->job_first[j]; i < s->job_first[j + 1]; i++) {
		uint32_t t = s->job_tasks[i];
		if (s->status[t] != TPH_KAI_TS_PENDING)
			continue;
		if (s->v->tasks.mig[t])
			return -1;
		tph_kai_task_request(s, t, out[n++].r);
	}
	qsort(out, n, sizeof *out, by_lex);
	return (int32_t)n;
}

struct tph_kai_reps {
	uint64_t *sig;
	int32_t *scope, *job; /* job -1: an empty slot */
	uint32_t mask;
	vec3 *a, *b;
};

tph_kai_reps *tph_kai_reps_new(const tph_kai_session *s)
{
	uint32_t cap = 2;
	while (cap < 2 * (s->v->jobs.n + 1))
		cap *= 2;
	tph_kai_reps *r = tph_calloc(1, sizeof *r);
	if (!r)
		return NULL;
	r->mask = cap - 1;
	r->sig = tph_calloc(cap, sizeof *r->sig);
	r->scope = tph_calloc(cap, sizeof *r->scope);
	r->job = tph_malloc(cap * sizeof *r->job);
	r->a = tph_calloc((size_t)s->v->tasks.n + 1, sizeof *r->a);
	r->b = tph_calloc((size_t)s->v->tasks.n + 1, sizeof *r->b);
	if (!r->sig || !r->scope || !r->job || !r->a || !r->b) {
		tph_kai_reps_free(r);
		return NULL;
	}
	memset(r->job, 0xff, cap * sizeof *r->job);
	return r;
}

void tph_kai_reps_free(tph_kai_reps *r)
{
	if (!r)
		return;
	tph_free(r->sig);
	tph_free(r->scope);
	tph_free(r->job);
	tph_free(r->a);
	tph_free(r->b);
	tph_free(r);
}

/* The slot of (scope, signature): its entry, or the empty slot where it goes. */
static uint32_t slot(const tph_kai_reps *r, int32_t scope, uint64_t sig)
{
	uint32_t i = (uint32_t)tph_kai_mix(sig ^ (uint64_t)(uint32_t)scope) & r->mask;
	while (r->job[i] >= 0 && (r->sig[i] != sig || r->scope[i] != scope))
		i = (i + 1) & r->mask;
	return i;
}

/* KAI's jobEasierToScheduleComparison(job, rep). */
static bool easier(tph_kai_reps *r, const tph_kai_session *s, uint32_t job, uint32_t rep)
{
	int32_t n1 = pending_vecs(s, job, r->a), n2 = pending_vecs(s, rep, r->b);
	if (n1 < 0 || n2 < 0)
		return true; /* not comparable here: tried (docs/kai.md) */
	if (n1 == 0 || n2 == 0)
		return false;
	if (n2 > n1)
		return true;
	for (int32_t i = 0; i < n1; i++) {
		if (i >= n2)
			return false;
		if (le(&r->a[i], &r->b[i]) && !le(&r->b[i], &r->a[i]))
			return true;
	}
	return false;
}

bool tph_kai_reps_skip(tph_kai_reps *r, tph_kai_session *s, int32_t scope, uint32_t j)
{
	uint32_t i = slot(r, scope, tph_kai_job_signature(s, j));
	return r->job[i] >= 0 && !easier(r, s, j, (uint32_t)r->job[i]);
}

/* KAI's isPodGroupFootprintSmaller(job, rep). */
static bool smaller(tph_kai_reps *r, const tph_kai_session *s, uint32_t job, uint32_t rep)
{
	int32_t n1 = pending_vecs(s, job, r->a), n2 = pending_vecs(s, rep, r->b);
	if (n1 <= 0 || n2 <= 0 || n1 > n2)
		return false;
	for (int32_t i = 0; i < n1; i++)
		if (!le(&r->a[i], &r->b[i]))
			return false;
	return true;
}

void tph_kai_reps_failed(tph_kai_reps *r, tph_kai_session *s, int32_t scope, uint32_t j)
{
	uint64_t sig = tph_kai_job_signature(s, j);
	uint32_t i = slot(r, scope, sig);
	if (r->job[i] >= 0 && !smaller(r, s, j, (uint32_t)r->job[i]))
		return;
	r->sig[i] = sig;
	r->scope[i] = scope;
	r->job[i] = (int32_t)j;
}

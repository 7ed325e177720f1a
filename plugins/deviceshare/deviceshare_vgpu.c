/* HAMi vGPU cards (Volcano's nvidia/vgpu GPUDevices in hami-core mode, the only mode the
 * default device config knows), wrapped by the exclusivity rules (deviceshare/gpuexclusive.go).
 * The card search is checkNodeGPUSharingPredicateAndScore: FilterNode runs it on a copy,
 * Allocate on the cards themselves; each card is tried once, so the copy's tentative adds
 * never meet again and the filter needs no copy. Release and SubResource read the pod's own
 * volcano.sh/vgpu-ids-new, which a pod allocated in this session lacks: what Allocate took
 * stays taken until the session ends. */
#include "deviceshare.h"

#include <stdio.h>
#include <string.h>

#include "tephra/alloc.h"

ds_user *ds_user_of(ds_card *c, tph_idx task, bool make)
{
	for (uint32_t i = 0; i < c->n_users; i++)
		if (c->users[i].task == task)
			return &c->users[i];
	if (!make || tph_grow(&c->users, &c->cap_users, c->n_users + 1, sizeof *c->users))
		return NULL;
	c->users[c->n_users] = (ds_user){task, 0, 0};
	return &c->users[c->n_users++];
}

void ds_user_drop(ds_card *c, tph_idx task)
{
	for (uint32_t i = 0; i < c->n_users; i++)
		if (c->users[i].task == task) {
			c->users[i] = c->users[--c->n_users];
			return;
		}
}

uint32_t ds_vg_card_of(const ds_st *st, const ds_node *n, ds_str uuid)
{
	for (uint32_t p = 0; p < n->n; p++)
		if (ds_str_eq(ds_card_at(st, n, p)->uuid, uuid))
			return p;
	for (uint32_t p = 0; p < n->n; p++)
		if (ds_str_contains(uuid, ds_card_at(st, n, p)->uuid))
			return p;
	return DS_NONE;
}

/* sortedDeviceIndicesByPolicy: binpack most used memory first, spread fewest users first,
 * ties to the lower index; otherwise the highest index first. */
static bool before(const ds_st *st, const ds_node *n, uint32_t a, uint32_t b)
{
	const ds_card *x = ds_card_at(st, n, a), *y = ds_card_at(st, n, b);
	if (st->policy == DS_POLICY_BINPACK && x->used_mem != y->used_mem)
		return x->used_mem > y->used_mem;
	if (st->policy == DS_POLICY_SPREAD && x->used_num != y->used_num)
		return x->used_num < y->used_num;
	return a < b;
}

void ds_vg_reorder(const ds_st *st, ds_node *n)
{
	for (uint32_t p = 0; p < n->n; p++)
		n->order[p] = st->policy == DS_POLICY_UNSET ? n->n - 1 - p : p;
	if (st->policy == DS_POLICY_UNSET)
		return;
	for (uint32_t i = 1; i < n->n; i++) {
		uint32_t v = n->order[i], j = i;
		for (; j > 0 && before(st, n, v, n->order[j - 1]); j--)
			n->order[j] = n->order[j - 1];
		n->order[j] = v;
	}
}

/* gpuUUIDFilter.matches over the card's UUID id. */
static bool uuid_ok(const ds_st *st, const ds_task *x, const ds_card *c)
{
	if (!x->n_allow && !x->n_deny)
		return true;
	if (c->uuid_id == st->empty_uuid)
		return false;
	bool in = !x->n_allow;
	for (uint32_t i = 0; !in && i < x->n_allow; i++)
		in = st->uuid_ids[x->allow + i] == c->uuid_id;
	for (uint32_t i = 0; in && i < x->n_deny; i++)
		in = st->uuid_ids[x->deny + i] != c->uuid_id;
	return in;
}

/* deviceHasPodFromSameGroup. */
static bool same_group(const ds_st *st, const ds_card *c, uint32_t key)
{
	for (uint32_t i = 0; i < c->n_users; i++) {
		const ds_user *u = &c->users[i];
		if (st->t[u->task].group == key && (u->mem > 0 || u->core > 0))
			return true;
	}
	return false;
}

/* A card a rule of the task holds (capGPUs sets its Number to UsedNum). */
static bool reserved(const ds_st *st, const ds_node *n, tph_idx task, uint32_t p)
{
	if (!n->rsv)
		return false;
	const uint64_t *rw = st->rules + (size_t)task * st->rule_words;
	for (uint32_t r = 0; r < st->n_rules; r++)
		if ((rw[r / 64] >> (r % 64) & 1) && n->rsv[(size_t)r * n->n + p])
			return true;
	return false;
}

/* memreqForCard. */
static uint64_t memreq(const ds_task *x, const ds_card *c)
{
	if (x->vg_pct != 101)
		return (uint64_t)((double)c->memory * (double)x->vg_pct / 100.0);
	return (uint64_t)(int64_t)x->vg_mem;
}

/* GPUScore of the card once the task is on it. */
static double card_score(int policy, uint64_t used_mem, uint64_t memory, uint64_t used_num)
{
	if (policy == DS_POLICY_BINPACK)
		return 100.0 * ((double)used_mem / (double)memory);
	return policy == DS_POLICY_SPREAD && used_num == 0 ? 100.0 : 0.0;
}

/* Whether card p takes the task, in the search's order of checks. */
static bool card_fits(const ds_st *st, const ds_node *n, tph_idx task, uint32_t p)
{
	const ds_task *x = &st->t[task];
	const ds_card *c = ds_card_at(st, n, p);
	if (c->number <= c->used_num || reserved(st, n, task, p))
		return false;
	if (x->spread != DS_NONE && same_group(st, c, x->spread))
		return false;
	if ((int64_t)c->memory - (int64_t)c->used_mem < (int64_t)memreq(x, c))
		return false;
	uint64_t core = (uint64_t)(int64_t)x->vg_core;
	if (c->used_core + core > 100 || (x->vg_core == 100 && c->used_num > 0) ||
	    (c->used_core == 100 && x->vg_core == 0))
		return false;
	return st->type_nvidia[c->type_id] && (!x->type_ok || x->type_ok[c->type_id]);
}

/* The search for the task's one container: the cards it takes in taken[0..*n_taken) (NULL:
 * not wanted) and the device score; false when it does not fit. Only the first *n_devs taken
 * cards become devices (a request for 0 or fewer cards still takes the first fitting one,
 * or every one). */
static bool search(const ds_st *st, const ds_node *n, tph_idx task, double *score, uint32_t *taken,
                   uint32_t *n_taken, uint32_t *n_devs)
{
	const ds_task *x = &st->t[task];
	*score = 0;
	*n_taken = *n_devs = 0;
	if (!x->mode_ok || (int64_t)x->vg_nums > (int64_t)n->n)
		return false;
	int32_t nums = x->vg_nums;
	for (uint32_t k = 0; k < n->n; k++) {
		uint32_t p = n->order[k];
		const ds_card *c = ds_card_at(st, n, p);
		if (!uuid_ok(st, x, c) || !card_fits(st, n, task, p))
			continue;
		if (taken)
			taken[*n_taken] = p;
		(*n_taken)++;
		if (nums > 0) {
			nums--;
			(*n_devs)++;
			*score += card_score(st->policy, c->used_mem + memreq(x, c), c->memory,
			                     c->used_num + 1);
		}
		if (nums == 0)
			break;
	}
	return nums <= 0;
}

bool ds_vg_filter(const ds_st *st, const ds_node *n, tph_idx task, double *score)
{
	uint32_t nt, nd;
	return search(st, n, task, score, NULL, &nt, &nd);
}

/* The exclusivity wrapper: the task's rules now hold the cards that list it. */
static void track(ds_st *st, tph_idx task, tph_idx node)
{
	ds_node *n = &st->nodes[node];
	if (!n->rsv || !ds_rule_any(st, task))
		return;
	st->t[task].tracked = node;
	const uint64_t *rw = st->rules + (size_t)task * st->rule_words;
	for (uint32_t p = 0; p < n->n; p++) {
		if (!ds_user_of(&st->cards[n->first + p], task, false))
			continue;
		for (uint32_t r = 0; r < st->n_rules; r++)
			if (rw[r / 64] >> (r % 64) & 1)
				n->rsv[(size_t)r * n->n + p] = 1;
	}
}

void ds_vg_untrack(ds_st *st, tph_idx task, tph_idx node)
{
	ds_node *n = &st->nodes[node];
	if (!n->rsv || st->t[task].tracked != node)
		return;
	st->t[task].tracked = TPH_NOIDX;
	const uint64_t *rw = st->rules + (size_t)task * st->rule_words;
	for (uint32_t p = 0; p < n->n; p++) {
		/* stillUsed: another pod the wrapper tracks sits in the card's PodMap */
		const ds_card *c = ds_card_at(st, n, p);
		bool used = false;
		for (uint32_t i = 0; i < c->n_users && !used; i++)
			used = c->users[i].task != task && st->t[c->users[i].task].tracked == node;
		for (uint32_t r = 0; !used && r < st->n_rules; r++)
			if (rw[r / 64] >> (r % 64) & 1)
				n->rsv[(size_t)r * n->n + p] = 0;
	}
}

/* The card of the i-th device of the task's own volcano.sh/vgpu-ids-new, NULL. */
static ds_card *own_card(ds_st *st, const ds_node *n, const ds_cdev *d)
{
	uint32_t p = ds_vg_card_of(st, n, d->uuid);
	return p == DS_NONE ? NULL : &st->cards[n->first + p];
}

int ds_vg_add(ds_st *st, tph_idx task, tph_idx node)
{
	ds_node *n = &st->nodes[node];
	const ds_task *x = &st->t[task];
	for (const ds_cdev *d = st->cdevs + x->cdevs; d < st->cdevs + x->cdevs + x->n_cdevs; d++) {
		ds_card *c = own_card(st, n, d);
		if (!c || ds_user_of(c, task, false)) /* HAMi AddPod: once per pod */
			continue;
		ds_user *u = ds_user_of(c, task, true);
		if (!u)
			return TPH_ENOMEM;
		*u = (ds_user){task, d->mem, d->cores};
		c->used_num++;
		c->used_mem += d->mem;
		c->used_core += d->cores;
	}
	track(st, task, node);
	ds_vg_reorder(st, n);
	return TPH_OK;
}

void ds_vg_sub(ds_st *st, tph_idx task, tph_idx node)
{
	ds_node *n = &st->nodes[node];
	const ds_task *x = &st->t[task];
	for (const ds_cdev *d = st->cdevs + x->cdevs; d < st->cdevs + x->cdevs + x->n_cdevs; d++) {
		ds_card *c = own_card(st, n, d);
		if (!c || !ds_user_of(c, task, false)) /* HAMi SubPod: "pod not exist" */
			continue;
		c->used_num--;
		c->used_mem -= d->mem;
		c->used_core -= d->cores;
		ds_user_drop(c, task);
	}
	ds_vg_untrack(st, task, node);
	ds_vg_reorder(st, n);
}

/* encodePodDevices of the one container: `UUID,NVIDIA,memory,cores:` per card. */
static char *encode(const ds_st *st, const ds_node *n, const ds_task *x, const uint32_t *taken,
                    uint32_t n_devs)
{
	size_t cap = 1;
	for (uint32_t i = 0; i < n_devs; i++)
		cap += ds_card_at(st, n, taken[i])->uuid.n + 56;
	char *buf = tph_malloc(cap), *w = buf;
	for (uint32_t i = 0; buf && i < n_devs; i++) {
		const ds_card *c = ds_card_at(st, n, taken[i]);
		w += snprintf(w, cap - (size_t)(w - buf), "%.*s,NVIDIA,%lld,%lld:", (int)c->uuid.n,
		              c->uuid.p, (long long)(int64_t)memreq(x, c),
		              (long long)(int64_t)(uint64_t)(int64_t)x->vg_core);
	}
	if (buf)
		*w = 0;
	return buf;
}

static int annotate(const ds_st *st, tph_session *s, tph_idx task, tph_idx node, const char *ids)
{
	const char *kv[][2] = {
	    {"volcano.sh/vgpu-node", tph_session_node_name(s, node)},
	    {"volcano.sh/vgpu-time", st->now_s},
	    {"volcano.sh/vgpu-ids-new", ids},
	    {"volcano.sh/devices-to-allocate", ids},
	    {"volcano.sh/bind-phase", "allocating"},
	    {"volcano.sh/bind-time", st->now_s},
	};
	int rc = TPH_OK;
	for (size_t i = 0; !rc && i < sizeof kv / sizeof *kv; i++)
		rc = tph_task_annotate(s, task, kv[i][0], kv[i][1]);
	return rc;
}

/* Allocate: the search on the cards themselves (TryAddPod keeps what it adds), the
 * assignment as annotations, the task in the PodMap of each card it got (addToPodMap), and
 * the exclusivity wrapper's bookkeeping. */
int ds_vg_allocate(ds_st *st, tph_session *s, tph_idx task, tph_idx node)
{
	ds_node *n = &st->nodes[node];
	const ds_task *x = &st->t[task];
	uint32_t *taken = tph_malloc(((size_t)n->n + 1) * sizeof *taken), nt, nd;
	double score;
	if (!taken)
		return TPH_ENOMEM;
	if (!search(st, n, task, &score, taken, &nt, &nd)) {
		tph_free(taken);
		return TPH_ENOENT;
	}
	char *ids = encode(st, n, x, taken, nd);
	int rc = ids ? annotate(st, s, task, node, ids) : TPH_ENOMEM;
	tph_free(ids);
	for (uint32_t i = 0; !rc && i < nt; i++) {
		ds_card *c = &st->cards[n->first + taken[i]];
		c->used_num++;
		c->used_mem += memreq(x, c);
		c->used_core += (uint64_t)(int64_t)x->vg_core;
	}
	for (uint32_t i = 0; !rc && i < nd; i++) {
		const ds_card *got = ds_card_at(st, n, taken[i]);
		uint32_t p = ds_vg_card_of(st, n, got->uuid);
		ds_user *u = ds_user_of(&st->cards[n->first + p], task, true);
		if (!u) {
			rc = TPH_ENOMEM;
			break;
		}
		u->mem += memreq(x, got);
		u->core += (uint64_t)(int64_t)x->vg_core;
	}
	tph_free(taken);
	if (!rc)
		track(st, task, node);
	ds_vg_reorder(st, n);
	return rc;
}

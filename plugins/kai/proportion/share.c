/* The fair-share division (KAI's resource_division.go and proportion.go's setFairShare): each
 * set of sibling queues divides what its parent got, one resource at a time, quotas first,
 * then over-quota by priority band and weight, then the floored-off remainders. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "proportion_int.h"

/* Scratch, by position in the sibling set: share weight, remainder (and whether one is
 * recorded), the positions in priority order, sort keys; then the tree's child lists. */
typedef struct sort_key {
	double rem;
	int64_t created;
	uint32_t rank, pos;
	int32_t prio;
} sort_key;

typedef struct scratch {
	double *sw, *rem;
	sort_key *key;
	uint32_t *order;
	uint8_t *has;
} scratch;

static size_t division_bytes(uint32_t n)
{
	size_t b = (size_t)n * (2 * sizeof(double) + sizeof(sort_key) + sizeof(uint32_t) + 1);
	return (b + 7) & ~(size_t)7;
}

size_t kai_share_scratch_bytes(uint32_t n)
{
	return division_bytes(n) + ((size_t)n * 3 + 2) * sizeof(uint32_t);
}

static scratch carve(void *mem, uint32_t n)
{
	scratch s;
	s.sw = mem;
	s.rem = s.sw + n;
	s.key = (sort_key *)(s.rem + n);
	s.order = (uint32_t *)(s.key + n);
	s.has = (uint8_t *)(s.order + n);
	return s;
}

/* Higher priority first; positions keep the order of equals (a total order, so qsort is
 * deterministic). */
static int by_priority(const void *pa, const void *pb)
{
	const sort_key *a = pa, *b = pb;
	if (a->prio != b->prio)
		return a->prio > b->prio ? -1 : 1;
	return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* remainingRequestedOrderFn: larger remainder, then created first, then UID. */
static int by_remainder(const void *pa, const void *pb)
{
	const sort_key *a = pa, *b = pb;
	if (a->rem != b->rem)
		return a->rem > b->rem ? -1 : 1;
	if (a->created != b->created)
		return a->created < b->created ? -1 : 1;
	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static double requestable(const kai_share *r, uint32_t i)
{
	if (r->max_allowed[i] == KAI_UNLIMITED)
		return r->request[i];
	return fmin(r->max_allowed[i], r->request[i]);
}

static double remaining_requested(const kai_share *r, uint32_t i)
{
	double req = requestable(r, i);
	return req < r->fair[i] ? 0 : req - r->fair[i];
}

static bool satisfied(const kai_share *r, uint32_t i)
{
	if (r->request[i] <= r->fair[i])
		return true;
	return r->max_allowed[i] != KAI_UNLIMITED && r->max_allowed[i] <= r->fair[i];
}

double kai_share_divide(kai_queues *q, int res, const uint32_t *set, uint32_t m, double total,
                        double k, void *scratch_mem)
{
	kai_share *r = &q->r[res];
	double left = total;
	for (uint32_t p = 0; p < m; p++) {
		uint32_t i = set[p];
		double deserved = r->deserved[i] == KAI_UNLIMITED ? total : r->deserved[i];
		double amount = fmin(deserved, requestable(r, i));
		r->fair[i] += amount;
		left -= amount;
	}
	if (left <= 0)
		return 0;
	return kai_share_over_quota(q, res, set, m, left, k, scratch_mem);
}

/* calcShareWeights over one band (positions band[0..nb)); returns their sum. */
static double share_weights(const kai_queues *q, int res, const uint32_t *set, const uint32_t *band,
                            uint32_t nb, double k, double *sw)
{
	const kai_share *r = &q->r[res];
	double total_w = 0, sum = 0;
	for (uint32_t b = 0; b < nb; b++) {
		uint32_t i = set[band[b]];
		if (remaining_requested(r, i) > 0)
			total_w += r->weight[i];
	}
	if (total_w == 0)
		return 0;
	for (uint32_t b = 0; b < nb; b++) {
		uint32_t i = set[band[b]];
		if (satisfied(r, i))
			continue;
		double nw = r->weight[i] / total_w;
		sw[band[b]] = fmax(0, nw + k * (nw - r->usage[i]));
		sum += sw[band[b]];
	}
	return sum;
}

/* getResourceToGiveInCurrentRound for position p: the rest when it fits, else the whole
 * units of the share, recording what was floored off. */
static double to_give(scratch *s, uint32_t p, double share, double rest)
{
	if (rest <= share) {
		s->has[p] = 0;
		return rest;
	}
	double give = floor(share) > 0 ? floor(share) : 0;
	if (share - give > 0) {
		s->has[p] = 1;
		s->rem[p] = share - give;
	}
	return give;
}

/* One round of divideUpToFairShare: whether another is due. */
static bool one_round(kai_queues *q, int res, const uint32_t *set, const uint32_t *band,
                      uint32_t nb, double sum, double *left, scratch *s)
{
	kai_share *r = &q->r[res];
	double round_amount = *left;
	bool again = false;
	for (uint32_t b = 0; b < nb && *left != 0; b++) {
		uint32_t p = band[b], i = set[p];
		if (satisfied(r, i) || r->weight[i] == 0)
			continue;
		double rest = remaining_requested(r, i);
		double share = round_amount * (s->sw[p] / sum);
		double give = to_give(s, p, share, rest);
		if (give == 0)
			continue;
		r->fair[i] += give;
		*left -= give;
		again = again || rest < share;
	}
	return again;
}

/* Each "again" round satisfies a queue in exact arithmetic; the bound only guards against
 * float rests that never close. */
static double up_to_fair_share(kai_queues *q, int res, const uint32_t *set, const uint32_t *band,
                               uint32_t nb, double left, double k, scratch *s)
{
	for (uint32_t round = 0; round <= 2 * nb + 8; round++) {
		double sum = share_weights(q, res, set, band, nb, k, s->sw);
		if (sum == 0)
			break;
		if (!one_round(q, res, set, band, nb, sum, &left, s) || left == 0)
			break;
	}
	return left;
}

/* divideRemainingResource over one band: a unit each, largest remainder first. */
static double hand_out_remainders(kai_queues *q, int res, const uint32_t *set, const uint32_t *band,
                                  uint32_t nb, double left, scratch *s)
{
	uint32_t ne = 0;
	for (uint32_t b = 0; b < nb; b++) {
		uint32_t p = band[b], i = set[p];
		if (s->has[p])
			s->key[ne++] = (sort_key){.rem = s->rem[p],
			                          .created = q->created[i],
			                          .rank = q->rank[i],
			                          .pos = p};
	}
	qsort(s->key, ne, sizeof *s->key, by_remainder);
	for (uint32_t e = 0; e < ne && left != 0; e++) {
		double give = fmin(1, left);
		q->r[res].fair[set[s->key[e].pos]] += give;
		left -= give;
	}
	return left;
}

static uint32_t band_end(const kai_queues *q, const uint32_t *set, const uint32_t *order,
                         uint32_t m, uint32_t b)
{
	uint32_t e = b + 1;
	while (e < m && q->priority[set[order[e]]] == q->priority[set[order[b]]])
		e++;
	return e;
}

double kai_share_over_quota(kai_queues *q, int res, const uint32_t *set, uint32_t m, double total,
                            double k, void *scratch_mem)
{
	scratch s = carve(scratch_mem, m);
	for (uint32_t p = 0; p < m; p++) {
		s.key[p] = (sort_key){.prio = q->priority[set[p]], .pos = p};
		s.has[p] = 0;
	}
	qsort(s.key, m, sizeof *s.key, by_priority);
	for (uint32_t p = 0; p < m; p++)
		s.order[p] = s.key[p].pos;
	double left = total;
	for (uint32_t b = 0, e; b < m; b = e) {
		e = band_end(q, set, s.order, m, b);
		left = up_to_fair_share(q, res, set, s.order + b, e - b, left, k, &s);
	}
	for (uint32_t b = 0, e; b < m && left > 0; b = e) {
		e = band_end(q, set, s.order, m, b);
		left = hand_out_remainders(q, res, set, s.order + b, e - b, left, &s);
	}
	return left;
}

/* Children lists in CSR form: off[n + 2], kids[n]; the top-level queues under index n. */
static int child_lists(const kai_queues *q, uint32_t *off, uint32_t *kids)
{
	uint32_t n = q->n;
	memset(off, 0, (n + 2) * sizeof *off);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = q->parent[i] == KAI_NOQ ? n : q->parent[i];
		if (p > n || p == i)
			return -1;
		off[p + 1]++;
	}
	for (uint32_t i = 0; i <= n; i++)
		off[i + 1] += off[i];
	for (uint32_t i = 0; i < n; i++) {
		uint32_t p = q->parent[i] == KAI_NOQ ? n : q->parent[i];
		kids[off[p]++] = i;
	}
	for (uint32_t i = n + 1; i > 0; i--)
		off[i] = off[i - 1];
	off[0] = 0;
	return 0;
}

static void divide_set(kai_queues *q, const uint32_t *set, uint32_t m, const double total[KAI_NRES],
                       double k, void *scratch_mem)
{
	for (int r = 0; r < KAI_NRES; r++)
		kai_share_divide(q, r, set, m, total[r], k, scratch_mem);
}

int kai_share_tree(kai_queues *q, const double total[KAI_NRES], double k, void *scratch_mem)
{
	uint32_t n = q->n;
	uint32_t *off = (uint32_t *)((char *)scratch_mem + division_bytes(n)), *kids = off + n + 2;
	uint32_t *bfs = kids + n;
	if (child_lists(q, off, kids))
		return -1;
	for (int r = 0; r < KAI_NRES; r++)
		memset(q->r[r].fair, 0, n * sizeof(double));
	/* Parents before children, so each set divides a finished fair share; a queue the walk
	 * from the top never reaches sits on a cycle. */
	uint32_t reached = off[n + 1] - off[n];
	memcpy(bfs, kids + off[n], reached * sizeof *bfs);
	divide_set(q, bfs, reached, total, k, scratch_mem);
	for (uint32_t h = 0; h < reached; h++) {
		uint32_t p = bfs[h], m = off[p + 1] - off[p];
		if (m == 0)
			continue;
		double parent_share[KAI_NRES];
		for (int r = 0; r < KAI_NRES; r++)
			parent_share[r] = q->r[r].fair[p];
		divide_set(q, kids + off[p], m, parent_share, k, scratch_mem);
		memcpy(bfs + reached, kids + off[p], m * sizeof *bfs);
		reached += m;
	}
	return reached == n ? 0 : -1;
}

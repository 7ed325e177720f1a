/* The questions InterPodAffinity's Filter and Score ask, over the counters of interpod.c:
 * satisfyPodAffinity, satisfyPodAntiAffinity, satisfyExistingPodsAntiAffinity (filtering.go)
 * and the topology score sum (scoring.go), with PreFilter's and PreScore's Skip. */
#include "interpod_int.h"

static uint32_t dom_of(const ip_index *ix, const ip_rule *r, uint32_t node)
{
	return ix->dom[(size_t)r->key * ix->n_nodes + node];
}

static int64_t at_node(const ip_index *ix, const ip_rule *r, uint32_t node)
{
	uint32_t d = dom_of(ix, r, node);
	return d == TPH_NOIDX ? 0 : r->count[d];
}

bool ip_filter_skips(const ip_index *ix, uint32_t t)
{
	int32_t c = ix->cls[t];
	if (c >= 0)
		for (uint32_t r = ix->own_first[c]; r < ix->own_first[c + 1]; r++)
			if (ix->rules[r].kind == IP_AFF || ix->rules[r].kind == IP_ANTI)
				return false;
	for (uint32_t i = ix->xq_first[t]; i < ix->xq_first[t + 1]; i++)
		if (ix->rules[ix->xq[i]].kind == IP_XANTI && ix->rules[ix->xq[i]].total > 0)
			return false;
	return true;
}

/* Every required affinity term needs its key on the node and a matching pod in its domain;
 * without one anywhere (no counted pair at all) a pod that matches its own terms may start
 * the series. */
static bool affinity_ok(const ip_index *ix, uint32_t t, uint32_t node)
{
	int32_t c = ix->cls[t];
	if (c < 0)
		return true;
	bool exist = true;
	int64_t any = 0;
	for (uint32_t r = ix->own_first[c]; r < ix->own_first[c + 1]; r++) {
		const ip_rule *x = &ix->rules[r];
		if (x->kind != IP_AFF)
			continue;
		if (dom_of(ix, x, node) == TPH_NOIDX)
			return false;
		exist = exist && at_node(ix, x, node) > 0;
		any += x->total;
	}
	return exist || (any == 0 && ix->self_aff[t]);
}

static bool anti_ok(const ip_index *ix, uint32_t t, uint32_t node)
{
	int32_t c = ix->cls[t];
	if (c >= 0)
		for (uint32_t r = ix->own_first[c]; r < ix->own_first[c + 1]; r++)
			if (ix->rules[r].kind == IP_ANTI && at_node(ix, &ix->rules[r], node) > 0)
				return false;
	for (uint32_t i = ix->xq_first[t]; i < ix->xq_first[t + 1]; i++) {
		const ip_rule *x = &ix->rules[ix->xq[i]];
		if (x->kind == IP_XANTI && at_node(ix, x, node) > 0)
			return false;
	}
	return true;
}

bool ip_filter(const ip_index *ix, uint32_t t, uint32_t node)
{
	return affinity_ok(ix, t, node) && anti_ok(ix, t, node);
}

static bool scored(uint8_t kind)
{
	return kind == IP_PAFF || kind == IP_PANTI || kind == IP_XPAFF || kind == IP_XPANTI;
}

/* PreScore skips when no existing pod added an entry to the topology score map: every rule
 * that scores t counts nothing. */
bool ip_score_skips(const ip_index *ix, uint32_t t)
{
	int32_t c = ix->cls[t];
	if (c >= 0)
		for (uint32_t r = ix->own_first[c]; r < ix->own_first[c + 1]; r++)
			if (scored(ix->rules[r].kind) && ix->rules[r].total > 0)
				return false;
	for (uint32_t i = ix->xq_first[t]; i < ix->xq_first[t + 1]; i++)
		if (scored(ix->rules[ix->xq[i]].kind) && ix->rules[ix->xq[i]].total > 0)
			return false;
	return true;
}

int64_t ip_score(const ip_index *ix, uint32_t t, uint32_t node)
{
	int64_t sum = 0;
	int32_t c = ix->cls[t];
	if (c >= 0)
		for (uint32_t r = ix->own_first[c]; r < ix->own_first[c + 1]; r++)
			if (scored(ix->rules[r].kind))
				sum += ix->rules[r].weight * at_node(ix, &ix->rules[r], node);
	for (uint32_t i = ix->xq_first[t]; i < ix->xq_first[t + 1]; i++) {
		const ip_rule *x = &ix->rules[ix->xq[i]];
		if (scored(x->kind))
			sum += x->weight * at_node(ix, x, node);
	}
	return sum;
}

/* Why a job in hard network-topology mode is short: which tier bounds it and how close the
 * roomiest hypernode within it comes, read from the hypernode tree's live aggregates at close
 * (jobwhy_rows.c asks, once per such job). */
#include "jobwhy.h"

#include "tephra/topology.h"

#include <stdio.h>

/* The requests of the job's pending tasks. */
static void pending_request(const tph_session *s, tph_idx j, int64_t *need)
{
	const tph_job_store *js = s->jobs;
	for (uint32_t d = 0; d < s->ndim; d++)
		need[d] = 0;
	for (uint32_t i = js->task_off[j]; i < js->task_off[j + 1]; i++) {
		tph_idx t = js->task_idx[i];
		if (s->tasks.status[t] != TPH_TS_PENDING)
			continue;
		for (uint32_t d = 0; d < s->ndim; d++)
			need[d] += s->tasks.req[(size_t)t * s->ndim + d];
	}
}

/* The dimension the job asks most of, relative to the cluster top's allocatable (pods aside). */
static uint32_t scarce_dim(const tph_session *s, const tph_hn_tree *t, const int64_t *need)
{
	uint32_t best = TPH_RES_CPU;
	double most = -1;
	for (uint32_t d = 0; d < s->ndim; d++) {
		int64_t total = t->alloc[(size_t)d * t->n + t->top];
		if (d == TPH_RES_PODS || need[d] <= 0 || total <= 0)
			continue;
		double r = (double)need[d] / (double)total;
		if (r > most) {
			most = r;
			best = d;
		}
	}
	return best;
}

static void qty(const tph_session *s, uint32_t d, int64_t v, char *buf, size_t cap)
{
	tph_quantity_format(v, (tph_res_unit)s->snap->dims.unit[d], buf, cap);
}

void tph_jobwhy_topology(tph_session *s, tph_idx j, char *buf, size_t cap)
{
	const tph_hn_tree *t = &s->topo->t;
	int32_t tier = s->topo->job_tier[j];
	if (!t->ready) {
		snprintf(buf, cap,
		         "hard network topology: the hypernodes do not form a tree, so jobs "
		         "with a network topology are not placed");
		return;
	}
	if (tier < 0) {
		snprintf(buf, cap, "hard network topology: its tier name matches no hypernode");
		return;
	}
	int64_t need[TPH_RES_MAX];
	if (tph_hn_aggregates(s)) {
		snprintf(buf, cap, "hard network topology: out of memory");
		return;
	}
	pending_request(s, j, need);
	uint32_t d = scarce_dim(s, t, need), within = 0;
	tph_idx roomiest = TPH_NOIDX;
	for (tph_idx h = 0; h < t->n; h++) {
		if (t->tier[h] > tier)
			continue;
		within++;
		if (roomiest == TPH_NOIDX ||
		    t->idle[(size_t)d * t->n + h] > t->idle[(size_t)d * t->n + roomiest])
			roomiest = h;
	}
	const char *dn = tph_strtab_str(s->snap->strs, s->snap->dims.name[d]);
	char a[48], b[48];
	qty(s, d, need[d], a, sizeof a);
	if (roomiest == TPH_NOIDX) {
		snprintf(buf, cap,
		         "hard network topology (highest tier %d): no hypernode of tier %d "
		         "or below",
		         tier, tier);
		return;
	}
	qty(s, d, t->idle[(size_t)d * t->n + roomiest], b, sizeof b);
	snprintf(
	    buf, cap,
	    "hard network topology (highest tier %d): its pending tasks (%s %s) found no place "
	    "within one hypernode of tier %d or below; the roomiest of %u, %s (tier %d, %u "
	    "nodes), has %s %s idle",
	    tier, dn, a, tier, within, tph_hn_name(s, roomiest), t->tier[roomiest],
	    tph_hn_node_count(t, roomiest), dn, b);
}

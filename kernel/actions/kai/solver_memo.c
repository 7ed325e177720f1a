/* KAI's failed-scenario memo (solvers/job_solver.go failedScenarios, scenario_fingerprint.go):
 * within one job's search, a scenario is named by the preemptor, its pending tasks (the probe's
 * k), and the sets of recorded and potential victims; one that failed is not simulated again.
 * The statement is rolled back after every failure, so the same scenario fails again: the memo
 * only saves time, and naive mode does without it. */
#include "solver.h"

#include "base/mem.h"

#include <string.h>

/* Two independent 64-bit set hashes (order-free sums of mixed task ids), as KAI's sha256. */
static void fingerprint(const tph_kai_solver *sv, const uint32_t *pot, uint32_t n, uint64_t out[2])
{
	uint64_t rec[2] = {0, 0}, sum[2] = {0, 0};
	for (uint32_t i = 0; i < sv->n_rec; i++) {
		rec[0] += tph_kai_mix(sv->rec[i]);
		rec[1] += tph_kai_mix(~(uint64_t)sv->rec[i]);
	}
	for (uint32_t i = 0; i < n; i++) {
		sum[0] += tph_kai_mix(pot[i]);
		sum[1] += tph_kai_mix(~(uint64_t)pot[i]);
	}
	for (int h = 0; h < 2; h++)
		out[h] = tph_kai_mix(tph_kai_mix(tph_kai_mix(sv->k + (uint64_t)h) ^ rec[h]) +
		                     3 * sum[h]) |
		         1;
}

static uint32_t find(const tph_kai_memo *m, const uint64_t key[2])
{
	uint32_t i = (uint32_t)key[0] & m->mask;
	while (m->gen[i] == m->cur && (m->key[2 * i] != key[0] || m->key[2 * i + 1] != key[1]))
		i = (i + 1) & m->mask;
	return i;
}

static int grow(tph_kai_memo *m)
{
	tph_kai_memo old = *m;
	uint32_t cap = old.mask ? 2 * (old.mask + 1) : 1024;
	m->key = tph_malloc((size_t)cap * 2 * sizeof *m->key);
	m->gen = tph_calloc(cap, sizeof *m->gen);
	if (!m->key || !m->gen) {
		tph_free(m->key);
		tph_free(m->gen);
		*m = old;
		return TPH_ENOMEM;
	}
	m->mask = cap - 1;
	m->cur = 1;
	m->n = 0;
	for (uint32_t i = 0; old.mask && i <= old.mask; i++)
		if (old.gen[i] == old.cur) {
			uint32_t at = find(m, old.key + 2 * i);
			memcpy(m->key + 2 * at, old.key + 2 * i, 2 * sizeof *m->key);
			m->gen[at] = m->cur;
			m->n++;
		}
	tph_free(old.key);
	tph_free(old.gen);
	return TPH_OK;
}

void tph_kai_memo_reset(tph_kai_memo *m)
{
	m->n = 0;
	if (++m->cur == 0) { /* the stamps wrapped: clear them */
		if (m->gen)
			memset(m->gen, 0, ((size_t)m->mask + 1) * sizeof *m->gen);
		m->cur = 1;
	}
}

bool tph_kai_memo_failed_before(const tph_kai_solver *sv, const uint32_t *pot, uint32_t n)
{
	const tph_kai_memo *m = &sv->memo;
	if (sv->s->naive || !m->gen)
		return false;
	uint64_t key[2];
	fingerprint(sv, pot, n, key);
	return m->gen[find(m, key)] == m->cur;
}

int tph_kai_memo_add(tph_kai_solver *sv, const uint32_t *pot, uint32_t n)
{
	tph_kai_memo *m = &sv->memo;
	if (sv->s->naive)
		return TPH_OK;
	if (2 * (m->n + 1) > (m->gen ? m->mask + 1 : 0) && grow(m) < 0)
		return TPH_ENOMEM;
	uint64_t key[2];
	fingerprint(sv, pot, n, key);
	uint32_t at = find(m, key);
	if (m->gen[at] != m->cur) {
		m->key[2 * at] = key[0];
		m->key[2 * at + 1] = key[1];
		m->gen[at] = m->cur;
		m->n++;
	}
	return TPH_OK;
}

void tph_kai_memo_free(tph_kai_memo *m)
{
	tph_free(m->key);
	tph_free(m->gen);
	*m = (tph_kai_memo){0};
}

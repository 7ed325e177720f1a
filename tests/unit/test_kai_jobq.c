/* Unit tests for the solver's job queues (kernel/actions/kai/solver_queue.c, solver_leaf.c):
 * with a tph_kai_jobq keeping each leaf's pop sequence and QueueOrder's answers, every pop of
 * the victims queue and of re-placement's queue returns the job a pop without it (the literal
 * walk, as naive mode) returns, across evictions, placements and rollbacks that change the
 * queues' allocations under jobs that stay the same, masks that change jobs' states without an
 * event, jobs put back after their pop, and forgets that replay a leaf's sequence. Each kept
 * input (a side's job version, event version, popped count, rival's stamp; a leaf's starting
 * jobs and versions, its put-back check) was dropped by hand once: the test failed each time. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai/solver.h"
#include "kai_fixture.h"

#define N_LEAVES      4
#define JOBS_PER_LEAF 4

__attribute__((format(printf, 3, 4))) static void add(char **at, const char *end, const char *fmt,
                                                      ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(*at, (size_t)(end - *at), fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && *at + n < end);
	*at += n;
}

#define RES(gpus)                                                             \
	"resources: {gpu: {quota: " gpus ", limit: -1, overQuotaWeight: 1}, " \
	"cpu: {quota: -1, limit: -1}, memory: {quota: -1, limit: -1}}"

/* Two departments of two leaf queues; per leaf three elastic jobs of 1-3 Running pods and one
 * of two Pending pods, two by two of equal priority (so elastic's order, which follows their
 * states, decides between them); one node with room for all. */
static void open_tree(kf *f, char *text, size_t cap)
{
	char *at = text, *end = text + cap;
	add(&at, end,
	    "flavour: kai\nnow: \"2026-01-01T00:00:00Z\"\nconf: |\n  actions: \"reclaim\"\n"
	    "  tiers:\n  - plugins: [{name: proportion}, {name: priority}, {name: elastic}]\n"
	    "nodes: [{name: n0, allocatable: {cpu: \"256\", memory: 256Gi, nvidia.com/gpu: "
	    "\"64\"}}]\nqueues:\n  - {name: d0, " RES("6") "}\n  - {name: d1, " RES("4") "}\n");
	for (int l = 0; l < N_LEAVES; l++)
		add(&at, end, "  - {name: l%d, parentQueue: d%d, " RES("%d") "}\n", l, l / 2,
		    1 + l % 3);
	add(&at, end, "podGroups:\n");
	for (int l = 0; l < N_LEAVES; l++)
		for (int k = 0; k < JOBS_PER_LEAF; k++)
			add(&at, end,
			    "  - {name: j%d-%d, queue: l%d, minMember: 1, priority: %d}\n", l, k, l,
			    40 + 10 * (k / 2));
	add(&at, end, "pods:\n");
	for (int l = 0; l < N_LEAVES; l++)
		for (int k = 0; k < JOBS_PER_LEAF; k++)
			for (int p = 0; p < (k == JOBS_PER_LEAF - 1 ? 2 : 1 + (l + k) % 3); p++) {
				add(&at, end, "  - {name: j%d-%d-%d, podGroup: ", l, k, p);
				add(&at, end, "j%d-%d, requests: {nvidia.com/gpu: 1}, %s}\n", l, k,
				    k == JOBS_PER_LEAF - 1 ? "status: Pending"
				                           : "status: Running, nodeName: n0");
			}
	kai_load(f, text);
}

static uint32_t lcg(uint32_t *x)
{
	*x = *x * 1664525u + 1013904223u;
	return *x >> 8;
}

/* One pop with the jobq against one without, from the same queue state: the same job, and
 * (victims) the same popped victims afterwards. */
static int32_t pop_both(tph_kai_solver *sv, uint8_t *kept_in, uint8_t *fresh_in, tph_kai_jobq *jq,
                        bool victims)
{
	size_t bytes = (size_t)sv->s->v->queues.n * TPH_KAI_DIMS * sizeof(double);
	double before[64], after[64];
	assert_true(bytes <= sizeof before);
	memcpy(before, sv->vq_popped, bytes);
	int32_t j = tph_kai_jobq_pop(sv, kept_in, jq, victims);
	memcpy(after, sv->vq_popped, bytes);
	memcpy(sv->vq_popped, before, bytes);
	assert_int_equal(tph_kai_jobq_pop(sv, fresh_in, NULL, victims), j);
	assert_memory_equal(sv->vq_popped, after, bytes);
	return j;
}

/* A task of the given status class, from a pseudo-random start. */
static int32_t some_task(const tph_kai_session *s, uint32_t r, bool running)
{
	uint32_t n = s->v->tasks.n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t t = (r + i) % n;
		bool active = tph_kai_active_allocated(s->status[t]) && !s->virt[t];
		if (running ? active && s->status[t] != TPH_KAI_TS_PIPELINED
		            : s->status[t] == TPH_KAI_TS_PENDING)
			return (int32_t)t;
	}
	return -1;
}

/* The solver's victims queue reads popped tasks as Releasing while it orders (a change of the
 * job's state with no event): mask or unmask task t so. */
static void mask(tph_kai_session *s, uint32_t t, uint8_t *saved, bool on)
{
	if (on)
		*saved = s->status[t];
	s->status[t] = on ? TPH_KAI_TS_RELEASING : *saved;
	tph_kai_touch(s, t);
}

typedef struct walk {
	tph_kai_solver sv;
	uint8_t vk[64], vf[64], rk[64], rf[64]; /* in[] of each queue, kept and fresh */
	uint32_t masked[64], n_masked, pops[2];
	uint8_t saved[64];
} walk;

static void pop_victims(walk *w, uint32_t r)
{
	uint32_t nj = w->sv.s->v->jobs.n;
	int32_t j = pop_both(&w->sv, w->vk, w->vf, &w->sv.vq, true);
	if (j >= 0) {
		w->pops[0]++;
		w->vk[j] = w->vf[j] = (r >> 4) % 2; /* pushed back, as an elastic job's rest */
		return;
	}
	tph_kai_victims_reset(&w->sv); /* empty: a new generator run */
	memcpy(w->vk, w->sv.vq_in, nj);
	memcpy(w->vf, w->sv.vq_in, nj);
}

static void pop_replacement(walk *w)
{
	uint32_t nj = w->sv.s->v->jobs.n;
	if (pop_both(&w->sv, w->rk, w->rf, &w->sv.rq, false) >= 0) {
		w->pops[1]++;
		return;
	}
	memset(w->rk, 1, nj);
	memset(w->rf, 1, nj);
	tph_kai_jobq_forget(&w->sv, &w->sv.rq, false);
}

/* An operation on the session (the masks lifted first), or a new mask. */
static void change(walk *w, uint32_t op, uint32_t r, uint32_t start)
{
	tph_kai_session *s = w->sv.s;
	int32_t t = some_task(s, r >> 3, op != 6);
	if (op == 8 && t >= 0 && w->n_masked < 64) {
		w->masked[w->n_masked] = (uint32_t)t;
		mask(s, (uint32_t)t, &w->saved[w->n_masked++], true);
	} else if (op != 8) {
		while (w->n_masked) {
			w->n_masked--;
			mask(s, w->masked[w->n_masked], &w->saved[w->n_masked], false);
		}
	}
	if (op == 5 && t >= 0)
		assert_int_equal(tph_kai_stmt_evict(s, (uint32_t)t), 0);
	else if (op == 6 && t >= 0)
		assert_int_equal(tph_kai_stmt_allocate(s, (uint32_t)t, 0), 0);
	else if (op == 7)
		tph_kai_stmt_rollback(s, start);
	tph_kai_jobq_forget(&w->sv, &w->sv.vq, false);
	tph_kai_jobq_forget(&w->sv, &w->sv.rq, false);
}

/* Pops of both queues interleaved with statement operations and masks; after each of them
 * the leaves' best jobs are forgotten (other jobs changed), QueueOrder's answers are not. */
static void test_pops_match_literal(void **state)
{
	(void)state;
	static char text[16384];
	static walk w;
	kf f;
	open_tree(&f, text, sizeof text);
	tph_kai_session *s = f.s;
	assert_int_equal(tph_kai_solver_init(&w.sv, s, (tph_kai_solver_rules){0}), 0);
	uint32_t nj = s->v->jobs.n, x = 7, start = tph_kai_stmt_checkpoint(s);
	assert_true(nj <= sizeof w.vk);
	memset(w.sv.cand, 1, nj);
	pop_victims(&w, 0);
	pop_replacement(&w);
	for (int step = 0; step < 4000; step++) {
		uint32_t r = lcg(&x), op = r % 9;
		if (op < 3)
			pop_victims(&w, r);
		else if (op < 5)
			pop_replacement(&w);
		else
			change(&w, op, r, start);
	}
	assert_true(w.pops[0] > 500 && w.pops[1] > 500);
	change(&w, 7, 0, start);
	tph_kai_solver_free(&w.sv);
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pops_match_literal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Unit tests for the task ranks (kernel/src/session/task_rank.c) and the task queues that
 * compare them (pq.c's tph_pq_init_tasks): on random jobs the ranks order every pair as
 * tph_task_order does, queues pop as the callbacks' queues pop, and the callbacks keep
 * deciding where a key is missing, in naive mode and where CompareTask is no key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "harness.h"
#include "session/pq.h"

/* The probe plugin orders tasks by index modulo 3, as a key when keyed is set. */
static bool keyed = true;

static int probe_order(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	(void)st, (void)s;
	return (int)(a % 3) - (int)(b % 3);
}

static int64_t probe_key(void *st, const tph_session *s, tph_idx t)
{
	(void)st, (void)s;
	return t % 3;
}

static int probe_open(tph_session *s, void *st, const tph_args *args)
{
	(void)st, (void)args;
	int rc = tph_on_task_order(s, probe_order);
	if (!rc && keyed)
		rc = tph_declare_task_order_key(s, probe_key);
	return rc;
}

static const tph_plugin probe_plugin = {
    TPH_PLUGIN_ABI, "rank-probe", NULL, 0, probe_open, NULL,
};

enum {
	NPODS = 40
};

/* One pod of job g in y[*n..cap). */
static void pod(char *y, size_t *n, size_t cap, const char *name, char g, int prio, int uid, int i,
                int minute)
{
	*n += (size_t)snprintf(y + *n, cap - *n,
	                       "  - {name: %s, namespace: ns, podGroup: %c, priority: %d,"
	                       " uid: u%d-%c%d, creationTimestamp: '2026-01-01T00:0%d:00Z',"
	                       " requests: {cpu: '1'}}\n",
	                       name, g, prio, uid, g, i, minute);
}

/* A scenario: jobs a (pods "a-w<i>-<index>"), b (pods "b<i>", without an index) and m (both
 * kinds), with few priorities, indexes, creation times and uids, so every tie-break is
 * reached; o lists its pods in TaskOrder, s too but for its last two. */
static char *scenario(unsigned seed, const char *plugins)
{
	size_t cap = 64 * 1024, n = 0;
	char *y = malloc(cap);
	assert_non_null(y);
	n += (size_t)snprintf(y + n, cap - n,
	                      "conf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n%s"
	                      "queues: [{name: q1}]\n"
	                      "nodes:\n  - {name: n1, allocatable: {cpu: '8', pods: '99'}}\n"
	                      "podGroups:\n",
	                      plugins);
	for (const char *g = "abmos"; *g; g++)
		n += (size_t)snprintf(y + n, cap - n, "  - {name: %c, namespace: ns, queue: q1}\n",
		                      *g);
	n += (size_t)snprintf(y + n, cap - n, "pods:\n");
	srand(seed);
	char name[32];
	for (const char *g = "abm"; *g; g++)
		for (int i = 0; i < NPODS; i++) {
			if (*g == 'a' || (*g == 'm' && i % 2))
				snprintf(name, sizeof name, "%c-w%d-%d", *g, i, rand() % 8);
			else
				snprintf(name, sizeof name, "%c%d", *g, i);
			int prio = rand() % 3, uid = rand() % 4;
			pod(y, &n, cap, name, *g, prio, uid, i, rand() % 3);
		}
	for (const char *g = "os"; *g; g++)
		for (int i = 0; i < NPODS; i++) {
			int last = *g == 's' && i >= NPODS - 2 ? 2 * NPODS - 3 - i : i;
			snprintf(name, sizeof name, "%c-w-%d", *g, last);
			pod(y, &n, cap, name, *g, 1, 0, i, 0);
		}
	assert_true(n < cap);
	return y;
}

static uint32_t job_tasks(const pts *p, const char *key, const tph_idx **tasks)
{
	const tph_job_store *js = p->s->jobs;
	tph_idx j = pts_job(p, key);
	*tasks = js->task_idx + js->task_off[j];
	return js->task_off[j + 1] - js->task_off[j];
}

/* Every pair of the job's tasks: rank order is tph_task_order's. */
static void expect_ranks_match(const pts *p, const char *job)
{
	const tph_idx *t;
	uint32_t n = job_tasks(p, job, &t);
	const uint32_t *r = tph_task_ranks(p->s, pts_job(p, job));
	assert_non_null(r);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < n; k++)
			if (i != k && (r[t[i]] < r[t[k]]) != (tph_task_order(p->s, t[i], t[k]) < 0))
				fail_msg("%s: tasks %u and %u", job, t[i], t[k]);
}

static const char priority_only[] = "    - name: priority\n";
static const char priority_probe[] = "    - name: priority\n    - name: rank-probe\n";
static const char no_order[] = "    - name: rank-probe\n      enableTaskOrder: false\n";

/* o's pods come in TaskOrder, s's but for the last two: ranking checks the order it is
 * given before it sorts. */
static void test_pods_in_order(void **state)
{
	(void)state;
	char *y = scenario(1, priority_only);
	pts p;
	pts_open(&p, y);
	const tph_idx *o, *t;
	uint32_t n = job_tasks(&p, "ns/o", &o);
	assert_int_equal(job_tasks(&p, "ns/s", &t), n);
	for (uint32_t i = 1; i < n; i++) {
		assert_true(tph_task_order(p.s, o[i - 1], o[i]) < 0);
		assert_true((tph_task_order(p.s, t[i - 1], t[i]) < 0) == (i < n - 1));
	}
	pts_free(&p);
	free(y);
}

static void test_ranks_match_the_chain(void **state)
{
	static const char *const jobs[] = {"ns/a", "ns/b", "ns/o", "ns/s", NULL};
	(void)state;
	for (unsigned seed = 1; seed <= 8; seed++)
		for (int k = 0; k < 3; k++) {
			const char *plugins[] = {priority_only, priority_probe, no_order};
			char *y = scenario(seed, plugins[k]);
			pts p;
			pts_open(&p, y);
			for (const char *const *j = jobs; *j; j++)
				expect_ranks_match(&p, *j);
			pts_free(&p);
			free(y);
		}
}

/* Give task t the name of a pod with index `want` (scenario() makes them all). */
static void name_with_index(pts *p, tph_idx t, int64_t want)
{
	for (tph_idx u = 0; u < p->s->tasks.n; u++) {
		int64_t v;
		if (tph_task_pod_index(pts_str(p->s, p->s->tasks.name[u]), &v) && v == want) {
			p->s->tasks.name[t] = p->s->tasks.name[u];
			return;
		}
	}
	fail_msg("no pod with index %lld", (long long)want);
}

/* Pods with and without an index in one job: CompareTask is then no key, nor always
 * transitive (x before z by index, z before y and y before x by creation). */
static void test_mixed_index_keeps_the_chain(void **state)
{
	(void)state;
	char *y = scenario(3, priority_only);
	pts p;
	pts_open(&p, y);
	assert_null(tph_task_ranks(p.s, pts_job(&p, "ns/m")));
	assert_non_null(tph_task_ranks(p.s, pts_job(&p, "ns/a")));
	const tph_idx *t;
	uint32_t n = job_tasks(&p, "ns/m", &t);
	tph_task_store *ts = &p.s->tasks;
	tph_idx x = t[0], z = t[1], w = t[2];
	name_with_index(&p, x, 1);
	name_with_index(&p, z, 2);
	ts->name[w] = tph_session_sid(p.s, "b0", 2);
	ts->priority[x] = ts->priority[z] = ts->priority[w] = 0;
	ts->creation[x] = 3, ts->creation[w] = 2, ts->creation[z] = 1;
	assert_true(n > 3);
	assert_true(tph_task_order(p.s, x, z) < 0);
	assert_true(tph_task_order(p.s, z, w) < 0);
	assert_true(tph_task_order(p.s, w, x) < 0);
	pts_free(&p);
	free(y);
}

/* A TaskOrder plugin without a key, or naive mode: no ranks. */
static void test_undeclared_or_naive_keeps_the_chain(void **state)
{
	(void)state;
	char *y = scenario(5, priority_probe);
	pts p;
	keyed = false;
	pts_open(&p, y);
	keyed = true;
	assert_null(tph_task_ranks(p.s, pts_job(&p, "ns/a")));
	tph_pq q;
	tph_idx buf[NPODS];
	tph_pq_init_tasks(&q, p.s, pts_job(&p, "ns/a"), buf, NPODS);
	assert_null(q.rank);
	pts_free(&p);
	tph_session_opts o = {.naive = true};
	pts_open_with(&p, y, &o);
	assert_null(tph_task_ranks(p.s, pts_job(&p, "ns/a")));
	pts_free(&p);
	free(y);
}

/* enableTaskOrder: false gates the declaration as it gates the order. */
static void test_key_gated_by_enable_task_order(void **state)
{
	(void)state;
	char *y = scenario(2, no_order);
	pts p;
	pts_open(&p, y);
	for (uint32_t i = 0; i < p.s->n_plugins; i++)
		assert_null(p.s->plugins[i].task_key);
	assert_int_equal(p.s->ep[TPH_EP_TASK_ORDER].n, 0);
	pts_free(&p);
	free(y);
}

/* Rounds of pushes of the job's tasks in rank order, reversed or shuffled, and pops at
 * random: the rank queue pops what the callbacks' heap pops. seen[] notes the queue's forms
 * met, desc_grew a run down that grew by pushes below its last item. */
static void queue_rounds(const pts *p, const char *key, bool *seen, bool *desc_grew)
{
	const tph_idx *t;
	uint32_t n = job_tasks(p, key, &t);
	tph_idx job = pts_job(p, key), by_rank[NPODS], order[NPODS];
	const uint32_t *r = tph_task_ranks(p->s, job);
	assert_non_null(r);
	for (uint32_t i = 0; i < n; i++)
		by_rank[r[t[i]]] = t[i];
	for (int round = 0; round < 150; round++) {
		for (uint32_t i = 0; i < n; i++)
			order[i] = by_rank[round % 3 == 1 ? n - 1 - i : i];
		for (uint32_t i = n - 1; round % 3 == 2 && i > 0; i--) {
			uint32_t k = (uint32_t)rand() % (i + 1);
			tph_idx x = order[i];
			order[i] = order[k], order[k] = x;
		}
		tph_idx b1[NPODS], b2[NPODS];
		tph_pq q1, q2;
		tph_pq_init_tasks(&q1, p->s, job, b1, n);
		tph_pq_init(&q2, p->s, tph_task_order, b2, n);
		for (uint32_t next = 0; next < n || q2.n;) {
			if (next < n && (rand() % 3 || !q2.n)) {
				tph_pq_push(&q1, order[next]);
				tph_pq_push(&q2, order[next++]);
				*desc_grew |= q1.run == TPH_PQ_DESC && q1.n > 1;
			} else {
				assert_int_equal(tph_pq_pop(&q1), tph_pq_pop(&q2));
			}
			seen[q1.run] = true;
		}
		assert_int_equal(tph_pq_pop(&q1), TPH_NOIDX);
	}
}

static void test_queues_pop_as_the_chain(void **state)
{
	(void)state;
	bool seen[3] = {false}, desc_grew = false;
	srand(11);
	for (int k = 0; k < 2; k++) {
		char *y = scenario(7 + (unsigned)k, k ? priority_only : priority_probe);
		pts p;
		pts_open(&p, y);
		queue_rounds(&p, "ns/a", seen, &desc_grew);
		queue_rounds(&p, "ns/b", seen, &desc_grew);
		pts_free(&p);
		free(y);
	}
	assert_true(seen[TPH_PQ_HEAP] && seen[TPH_PQ_ASC] && seen[TPH_PQ_DESC] && desc_grew);
}

static int setup(void **state)
{
	(void)state;
	return pts_register(&probe_plugin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_pods_in_order),
	    cmocka_unit_test(test_ranks_match_the_chain),
	    cmocka_unit_test(test_mixed_index_keeps_the_chain),
	    cmocka_unit_test(test_undeclared_or_naive_keeps_the_chain),
	    cmocka_unit_test(test_key_gated_by_enable_task_order),
	    cmocka_unit_test(test_queues_pop_as_the_chain),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}

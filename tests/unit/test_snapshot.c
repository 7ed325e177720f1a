/* Snapshot tests: Volcano's derivations (task status, node accounting, priorities,
 * preemptability, best effort, own jobs, dropped podgroups) and snapshot immutability. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "base/omp_team.h"
#include "cache/cluster_int.h"

#include <stdlib.h>
#ifdef TPH_HAVE_OPENMP
#include <omp.h>
#endif

static tph_cluster *cache(void)
{
	tph_cluster *c = NULL;
	assert_int_equal(tph_cluster_create(&c), TPH_OK);
	return c;
}

static void node(tph_cluster *c, const char *name)
{
	tph_res_item al[] = {{"cpu", 10000}, {"memory", 10LL << 30}, {"pods", 110000}};
	tph_node_desc n = TPH_NODE_DESC_INIT;
	n.name = name;
	n.allocatable = (tph_res_list){al, 3};
	assert_int_equal(tph_cluster_put_node(c, &n, NULL), TPH_OK);
}

static void queue(tph_cluster *c, const char *name)
{
	tph_queue_desc q = TPH_QUEUE_DESC_INIT;
	q.name = name;
	assert_int_equal(tph_cluster_put_queue(c, &q, NULL), TPH_OK);
}

static void pclass(tph_cluster *c, const char *name, int32_t value, bool gdef, bool never)
{
	tph_priority_class_desc pc = TPH_PRIORITY_CLASS_DESC_INIT;
	pc.name = name;
	pc.value = value;
	pc.global_default = gdef;
	pc.preempt_never = never;
	assert_int_equal(tph_cluster_put_priority_class(c, &pc, NULL), TPH_OK);
}

static tph_pod_desc pod(const char *name)
{
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = name;
	p.namespace_ = "ns";
	return p;
}

static tph_podgroup_desc podgroup(const char *name)
{
	tph_podgroup_desc g = TPH_PODGROUP_DESC_INIT;
	g.name = name;
	g.namespace_ = "ns";
	return g;
}

static void put(tph_cluster *c, const tph_pod_desc *p)
{
	assert_int_equal(tph_cluster_put_pod(c, p, NULL), TPH_OK);
}

static void count_warning(void *ud, const char *msg)
{
	(void)msg;
	if (ud)
		++*(int *)ud;
}

static tph_snapshot *snap(tph_cluster *c, int *warnings)
{
	tph_diag d = {.warn = count_warning, .warn_ud = warnings};
	tph_snapshot *s = NULL;
	assert_int_equal(tph_cluster_snapshot(c, 42, &s, &d), TPH_OK);
	return s;
}

static uint32_t task(const tph_snapshot *s, const char *name)
{
	tph_sid id = tph_strtab_find(s->strs, name, strlen(name));
	for (uint32_t t = 0; t < s->tasks.n; t++)
		if (s->tasks.name[t] == id)
			return t;
	fail_msg("no task %s", name);
	return TPH_NOIDX;
}

static void test_status_table(void **state)
{
	(void)state;
	static const struct {
		tph_pod_phase phase;
		bool bound, deleting;
		tph_task_status want;
	} rows[] = {
	    {TPH_POD_PENDING, false, false, TPH_TS_PENDING},
	    {TPH_POD_PENDING, true, false, TPH_TS_BOUND},
	    {TPH_POD_PENDING, false, true, TPH_TS_RELEASING},
	    {TPH_POD_PENDING, true, true, TPH_TS_RELEASING},
	    {TPH_POD_RUNNING, false, false, TPH_TS_RUNNING},
	    {TPH_POD_RUNNING, true, false, TPH_TS_RUNNING},
	    {TPH_POD_RUNNING, false, true, TPH_TS_RELEASING},
	    {TPH_POD_RUNNING, true, true, TPH_TS_RELEASING},
	    {TPH_POD_SUCCEEDED, false, false, TPH_TS_SUCCEEDED},
	    {TPH_POD_SUCCEEDED, true, true, TPH_TS_SUCCEEDED},
	    {TPH_POD_FAILED, false, false, TPH_TS_FAILED},
	    {TPH_POD_FAILED, true, true, TPH_TS_FAILED},
	    {TPH_POD_UNKNOWN, false, false, TPH_TS_UNKNOWN},
	    {TPH_POD_UNKNOWN, true, true, TPH_TS_UNKNOWN},
	};
	size_t n = sizeof rows / sizeof rows[0];
	tph_cluster *c = cache();
	node(c, "n1");
	char names[16][8];
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof names[i], "p%zu", i);
		tph_pod_desc p = pod(names[i]);
		p.phase = rows[i].phase;
		p.node_name = rows[i].bound ? "n1" : NULL;
		p.deleting = rows[i].deleting;
		put(c, &p);
	}
	tph_snapshot *s = snap(c, NULL);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(tph_task_status_names[s->tasks.status[i]],
		                    tph_task_status_names[rows[i].want]);
		assert_int_equal(s->tasks.node[i], rows[i].bound ? 0 : TPH_NOIDX);
	}
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void running(tph_cluster *c, const char *name, tph_pod_phase ph, const char *on,
                    bool deleting, int64_t cpu)
{
	tph_res_item rq[] = {{"cpu", cpu}, {"memory", 1 << 20}};
	tph_pod_desc p = pod(name);
	p.phase = ph;
	p.node_name = on;
	p.deleting = deleting;
	p.requests = (tph_res_list){rq, 2};
	put(c, &p);
}

static void test_node_accounting(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	node(c, "n1");
	node(c, "n2");
	running(c, "run", TPH_POD_RUNNING, "n1", false, 1000);
	running(c, "bound", TPH_POD_PENDING, "n1", false, 2000);
	running(c, "rel", TPH_POD_RUNNING, "n1", true, 4000);
	running(c, "unk", TPH_POD_UNKNOWN, "n1", false, 100);
	running(c, "done", TPH_POD_SUCCEEDED, "n1", false, 500);
	running(c, "bad", TPH_POD_FAILED, "n1", false, 500);
	running(c, "wait", TPH_POD_PENDING, NULL, false, 700);
	running(c, "ghost", TPH_POD_RUNNING, "gone", false, 900); /* node absent: holds nothing */
	tph_snapshot *s = snap(c, NULL);
	const tph_node_store *n = &s->nodes;
	size_t cpu = TPH_RES_CPU * n->stride, pods = TPH_RES_PODS * n->stride;
	size_t mem = TPH_RES_MEMORY * n->stride;
	assert_int_equal(n->used[cpu], 7100);
	assert_int_equal(n->idle[cpu], 10000 - 7100);
	assert_int_equal(n->releasing[cpu], 4000);
	assert_int_equal(n->pipelined[cpu], 0);
	assert_int_equal(n->ntasks[0], 4);
	assert_int_equal(n->used[pods], 4000);
	assert_int_equal(n->used[mem], 4 << 20);
	assert_int_equal(n->idle[cpu + 1], 10000); /* n2 untouched */
	assert_int_equal(n->ntasks[1], 0);
	assert_int_equal(s->tasks.node[task(s, "ghost")], TPH_NOIDX);
	assert_int_equal(s->tasks.status[task(s, "ghost")], TPH_TS_RUNNING);
	assert_int_equal(n->capacity[cpu], 10000); /* capacity defaults to allocatable */
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_priority_table(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	queue(c, "default");
	pclass(c, "high", 1000, false, false);
	pclass(c, "never", 50, false, true);
	tph_kv prio77[] = {{"volcano.sh/task-priority", "77"}};
	tph_kv prio_bad[] = {{"volcano.sh/task-priority", "7x"}};
	tph_pod_desc p = pod("explicit");
	p.has_priority = true, p.priority = 5, p.priority_class = "high";
	put(c, &p);
	p = pod("class"), p.priority_class = "high";
	put(c, &p);
	p = pod("unknown"), p.priority_class = "nope";
	put(c, &p);
	p = pod("plain");
	put(c, &p);
	p = pod("annot"), p.priority_class = "high", p.annotations = (tph_kv_list){prio77, 1};
	put(c, &p);
	p = pod("badannot"), p.priority_class = "high", p.annotations = (tph_kv_list){prio_bad, 1};
	put(c, &p);
	p = pod("nev"), p.priority_class = "never";
	put(c, &p);
	int warnings = 0;
	tph_snapshot *s = snap(c, &warnings);
	const int32_t *pr = s->tasks.priority;
	assert_int_equal(pr[task(s, "explicit")], 5);
	assert_int_equal(pr[task(s, "class")], 1000);
	assert_int_equal(pr[task(s, "unknown")], 0);
	assert_int_equal(pr[task(s, "plain")], 1);
	assert_int_equal(pr[task(s, "annot")], 77);
	assert_int_equal(pr[task(s, "badannot")], 1000);
	assert_int_equal(pr[task(s, "nev")], 50);
	assert_true(s->tasks.flags[task(s, "nev")] & TPH_TASK_PREEMPT_NEVER);
	assert_false(s->tasks.flags[task(s, "class")] & TPH_TASK_PREEMPT_NEVER);
	assert_int_equal(warnings, 1);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_priority_global_default(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	queue(c, "default");
	tph_pod_desc p = pod("plain"), u = pod("unknown");
	u.priority_class = "nope";
	put(c, &p), put(c, &u);
	pclass(c, "gd", 500, true, false);
	tph_snapshot *s = snap(c, NULL);
	assert_int_equal(s->tasks.priority[task(s, "plain")], 500);
	assert_int_equal(s->tasks.priority[task(s, "unknown")], 0);
	tph_snapshot_release(s);
	pclass(c, "gd2", 700, true, false); /* the last globalDefault added wins */
	s = snap(c, NULL);
	assert_int_equal(s->tasks.priority[task(s, "plain")], 700);
	tph_snapshot_release(s);
	pclass(c, "gd2", 700, false, false); /* an update that drops globalDefault clears it */
	s = snap(c, NULL);
	assert_int_equal(s->tasks.priority[task(s, "plain")], 1);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_job_priority(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	queue(c, "default");
	pclass(c, "gd", 300, true, false);
	pclass(c, "high", 1000, false, false);
	tph_podgroup_desc g = podgroup("a");
	g.priority_class = "high";
	assert_int_equal(tph_cluster_put_podgroup(c, &g, NULL), 0);
	g = podgroup("b");
	g.priority_class = "nope";
	assert_int_equal(tph_cluster_put_podgroup(c, &g, NULL), 0);
	g = podgroup("c");
	assert_int_equal(tph_cluster_put_podgroup(c, &g, NULL), 0);
	tph_snapshot *s = snap(c, NULL);
	assert_int_equal(s->jobs.priority[0], 1000);
	assert_int_equal(s->jobs.priority[1], 300);
	assert_int_equal(s->jobs.priority[2], 300);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_preemptable_table(void **state)
{
	(void)state;
#define U TPH_PREEMPTABLE_UNSET
#define Y TPH_PREEMPTABLE_YES
#define N TPH_PREEMPTABLE_NO
	static const struct {
		tph_pod_preemptable desc;
		const char *annot, *label;
		bool want;
	} rows[] = {
	    {U, NULL, NULL, true},     {N, NULL, NULL, false},     {Y, "false", NULL, true},
	    {U, "false", NULL, false}, {U, "true", NULL, true},    {U, "bogus", NULL, false},
	    {U, "1", NULL, true},      {U, "F", NULL, false},      {U, NULL, "false", false},
	    {U, NULL, "TRUE", true},   {U, "true", "false", true}, {U, "", NULL, false},
	};
#undef U
#undef Y
#undef N
	size_t n = sizeof rows / sizeof rows[0];
	tph_cluster *c = cache();
	char names[16][8];
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof names[i], "p%zu", i);
		tph_kv a = {"volcano.sh/preemptable", rows[i].annot};
		tph_kv l = {"volcano.sh/preemptable", rows[i].label};
		tph_pod_desc p = pod(names[i]);
		p.preemptable = rows[i].desc;
		p.annotations = (tph_kv_list){&a, rows[i].annot ? 1 : 0};
		p.labels = (tph_kv_list){&l, rows[i].label ? 1 : 0};
		put(c, &p);
	}
	tph_snapshot *s = snap(c, NULL);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(!!(s->tasks.flags[i] & TPH_TASK_PREEMPTABLE), rows[i].want);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_best_effort(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_res_item zero[] = {{"cpu", 0}}, gpu[] = {{"nvidia.com/gpu", 1000}};
	tph_res_item mem[] = {{"memory", 1}}, pods[] = {{"pods", 5000}};
	const tph_res_list lists[] = {{NULL, 0}, {zero, 1}, {gpu, 1}, {mem, 1}, {pods, 1}};
	const bool want[] = {true, true, false, false, true};
	char names[5][8];
	for (int i = 0; i < 5; i++) {
		snprintf(names[i], sizeof names[i], "p%d", i);
		tph_pod_desc p = pod(names[i]);
		p.requests = lists[i];
		put(c, &p);
	}
	tph_snapshot *s = snap(c, NULL);
	for (uint32_t i = 0; i < 5; i++) {
		assert_int_equal(!!(s->tasks.flags[i] & TPH_TASK_BEST_EFFORT), want[i]);
		assert_true(s->tasks.req[i * s->dims.n + TPH_RES_PODS] >= 1000);
	}
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_own_jobs_and_csr(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	queue(c, "default");
	pclass(c, "high", 900, false, false);
	tph_podgroup_desc g = podgroup("pg");
	g.min_member = 2;
	assert_int_equal(tph_cluster_put_podgroup(c, &g, NULL), 0);
	tph_pod_desc p = pod("a"), q = pod("solo"), r = pod("b"), u = pod("lost");
	p.pod_group = "pg", r.pod_group = "pg", u.pod_group = "missing";
	q.priority_class = "high", q.creation = 1234, q.task_spec = "worker";
	put(c, &p), put(c, &q), put(c, &r), put(c, &u);
	tph_snapshot *s = snap(c, NULL);
	const tph_job_store *j = &s->jobs;
	assert_int_equal(j->n, 3);
	uint32_t solo = task(s, "solo"), js = s->tasks.job[solo];
	assert_int_equal(js, 1); /* podgroups first, then own jobs in pod order */
	assert_true(s->tasks.flags[solo] & TPH_TASK_OWN_JOB);
	assert_false(s->tasks.flags[task(s, "a")] & TPH_TASK_OWN_JOB);
	assert_int_equal(j->min_member[js], 1);
	assert_int_equal(j->queue[js], 0);
	assert_int_equal(j->phase[js], TPH_PG_PENDING);
	assert_int_equal(j->priority[js], 900);
	assert_int_equal(j->creation[js], 1234);
	assert_int_equal(j->name[js], s->tasks.name[solo]);
	assert_int_equal(j->uid[js], s->tasks.uid[solo]);
	assert_string_equal(tph_strtab_str(s->strs, s->tasks.uid[solo]), "ns-solo");
	assert_string_equal(tph_strtab_str(s->strs, s->tasks.role[solo]), "worker");
	assert_string_equal(tph_strtab_str(s->strs, j->uid[0]), "ns/pg");
	assert_int_equal(s->tasks.job[task(s, "lost")], 2);
	assert_int_equal(j->task_off[0], 0); /* CSR in snapshot order */
	assert_int_equal(j->task_off[1], 2);
	assert_int_equal(j->task_off[3], 4);
	assert_int_equal(j->task_idx[0], task(s, "a"));
	assert_int_equal(j->task_idx[1], task(s, "b"));
	assert_int_equal(j->task_idx[2], solo);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

/* The job store's per-job sums equal a walk over each job's tasks. */
static void expect_job_sums(const tph_snapshot *s)
{
	const tph_job_store *j = &s->jobs;
	uint32_t nd = s->dims.n;
	for (uint32_t k = 0; k < j->n; k++) {
		uint32_t count[TPH_TS_COUNT] = {0}, be = 0;
		int64_t alloc[TPH_RES_MAX] = {0}, pend[TPH_RES_MAX] = {0};
		int32_t top = 0;
		for (uint32_t i = j->task_off[k]; i < j->task_off[k + 1]; i++) {
			uint32_t t = j->task_idx[i];
			uint8_t st = s->tasks.status[t];
			count[st]++;
			top = s->tasks.priority[t] > top ? s->tasks.priority[t] : top;
			be += st == TPH_TS_PENDING && (s->tasks.flags[t] & TPH_TASK_BEST_EFFORT);
			int64_t *row = st == TPH_TS_PENDING   ? pend
			               : tph_ts_allocated(st) ? alloc
			                                      : NULL;
			for (uint32_t d = 0; row && d < nd; d++)
				row[d] += s->tasks.req[(size_t)t * nd + d];
		}
		assert_memory_equal(j->ts_count + (size_t)k * TPH_TS_COUNT, count, sizeof count);
		assert_memory_equal(j->alloc_req + (size_t)k * nd, alloc, nd * sizeof *alloc);
		assert_memory_equal(j->pending_req + (size_t)k * nd, pend, nd * sizeof *pend);
		assert_int_equal(j->top_prio[k], top);
		assert_int_equal(j->be_pending[k], be);
	}
}

static void test_job_sums(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	node(c, "n1");
	queue(c, "default");
	pclass(c, "high", 900, false, false);
	tph_podgroup_desc g = podgroup("pg");
	g.min_member = 2;
	assert_int_equal(tph_cluster_put_podgroup(c, &g, NULL), 0);
	tph_res_item rq[] = {{"cpu", 1500}, {"memory", 1 << 20}};
	static const tph_pod_phase ph[] = {TPH_POD_PENDING, TPH_POD_RUNNING, TPH_POD_SUCCEEDED,
	                                   TPH_POD_PENDING, TPH_POD_PENDING, TPH_POD_RUNNING};
	char names[12][8];
	for (int i = 0; i < 12; i++) { /* podgroup and bare pods interleaved, as a cache may be */
		snprintf(names[i], sizeof names[i], "p%d", i);
		tph_pod_desc p = pod(names[i]);
		p.pod_group = i % 3 ? "pg" : NULL;
		p.phase = ph[i % 6];
		p.node_name = p.phase == TPH_POD_RUNNING || i == 4 ? "n1" : NULL;
		p.requests = (tph_res_list){rq, i % 4 ? 2u : 0u}; /* some best-effort */
		p.priority_class = i == 7 ? "high" : NULL;
		put(c, &p);
	}
	tph_snapshot *s = snap(c, NULL);
	assert_int_equal(s->jobs.n, 5);
	expect_job_sums(s);
	assert_int_equal(s->jobs.top_prio[0], 900);
	assert_true(s->jobs.ts_count[TPH_TS_PENDING] > 0);
	tph_snapshot_release(s);
	/* a second snapshot reuses the first one's memory: the sums start from zero again */
	s = snap(c, NULL);
	expect_job_sums(s);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_missing_queue_drops_job(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	queue(c, "q1");
	tph_podgroup_desc g = podgroup("g1"), h = podgroup("g2");
	g.queue = "q1";
	h.queue = "nope";
	assert_int_equal(tph_cluster_put_podgroup(c, &g, NULL), 0);
	assert_int_equal(tph_cluster_put_podgroup(c, &h, NULL), 0);
	tph_pod_desc p = pod("in"), q = pod("out"), r = pod("bare");
	p.pod_group = "g1", q.pod_group = "g2";
	put(c, &p), put(c, &q), put(c, &r);
	int warnings = 0;
	tph_snapshot *s = snap(c, &warnings);
	assert_int_equal(s->jobs.n, 1); /* no "default" queue: the bare pod's job is out too */
	assert_int_equal(s->tasks.job[task(s, "in")], 0);
	assert_int_equal(s->tasks.job[task(s, "out")], TPH_NOIDX);
	assert_int_equal(s->tasks.job[task(s, "bare")], TPH_NOIDX);
	assert_true(s->tasks.flags[task(s, "bare")] & TPH_TASK_OWN_JOB);
	assert_int_equal(warnings, 2);
	assert_int_equal(s->jobs.task_off[1], 1);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_queue_parents(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_queue_desc q = TPH_QUEUE_DESC_INIT;
	q.name = "child";
	q.parent = "mid";
	q.weight = 2;
	assert_int_equal(tph_cluster_put_queue(c, &q, NULL), 0);
	queue(c, "mid");
	queue(c, "root");
	q = (tph_queue_desc)TPH_QUEUE_DESC_INIT;
	q.name = "orphan";
	q.parent = "nowhere";
	assert_int_equal(tph_cluster_put_queue(c, &q, NULL), 0);
	tph_snapshot *s = snap(c, NULL);
	assert_int_equal(s->queues.parent[0], 1);
	assert_int_equal(s->queues.parent[1], 2); /* default parent: root */
	assert_int_equal(s->queues.parent[2], TPH_NOIDX);
	assert_int_equal(s->queues.parent[3], TPH_NOIDX);
	assert_int_equal(s->queues.weight[0], 2);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_immutability(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	queue(c, "default");
	node(c, "n1");
	node(c, "n2");
	running(c, "a", TPH_POD_RUNNING, "n1", false, 1000);
	running(c, "b", TPH_POD_RUNNING, "n2", false, 2000);
	tph_snapshot *s1 = snap(c, NULL);
	size_t bytes = tph_snapshot_bytes(s1);
	assert_true(bytes > 0);
	running(c, "a", TPH_POD_RUNNING, "n2", false, 3000); /* replace */
	assert_int_equal(tph_cluster_remove_node(c, "n1", NULL), 0);
	tph_res_item rq[] = {{"nvidia.com/gpu", 1000}};
	tph_pod_desc p = pod("c");
	p.requests = (tph_res_list){rq, 1};
	put(c, &p);
	tph_snapshot *s2 = snap(c, NULL);
	assert_int_equal(s1->dims.n, 4);
	assert_int_equal(s1->nodes.n, 2);
	assert_int_equal(s1->tasks.n, 2);
	assert_int_equal(s1->tasks.req[TPH_RES_CPU], 1000);
	assert_int_equal(s1->tasks.node[0], 0);
	assert_int_equal(s1->nodes.used[TPH_RES_CPU * s1->nodes.stride], 1000);
	assert_int_equal(tph_snapshot_bytes(s1), bytes);
	assert_int_equal(s2->dims.n, 5);
	assert_int_equal(s2->nodes.n, 1);
	assert_int_equal(s2->tasks.n, 3);
	assert_int_equal(s2->tasks.req[TPH_RES_CPU], 3000);
	assert_int_equal(s2->nodes.used[TPH_RES_CPU * s2->nodes.stride], 5000);
	assert_int_equal(tph_snapshot_node_count(s2), 1);
	assert_int_equal(tph_snapshot_task_count(s2), 3);
	assert_int_equal(tph_snapshot_job_count(s2), 3);
	assert_int_equal(s2->now, 42);
	tph_snapshot_release(s1);
	tph_snapshot_release(s2);
	tph_snapshot *s3 = snap(c, NULL); /* reuses a parked arena */
	assert_int_equal(s3->tasks.req[TPH_RES_CPU], 3000);
	assert_int_equal(s3->jobs.n, 3);
	tph_snapshot_release(s3);
	tph_cluster_destroy(c);
}

static void test_shard_flags_and_nodes(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	const char *names[] = {"n2", "later"};
	assert_int_equal(
	    tph_cluster_set_shard(c, TPH_SHARD_SOFT, "sh", (tph_str_list){names, 2}, NULL), 0);
	node(c, "n1");
	tph_node_desc n = TPH_NODE_DESC_INIT;
	n.name = "n2";
	n.unschedulable = true;
	n.not_ready = true;
	assert_int_equal(tph_cluster_put_node(c, &n, NULL), 0);
	tph_snapshot *s = snap(c, NULL);
	assert_int_equal(s->nodes.flags[0], TPH_NODE_READY);
	assert_int_equal(s->nodes.flags[1], TPH_NODE_UNSCHEDULABLE | TPH_NODE_IN_SHARD);
	assert_int_equal(s->shard_mode, TPH_SHARD_SOFT);
	assert_string_equal(tph_strtab_str(s->strs, s->shard_name), "sh");
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

typedef struct spy {
	_Atomic int calls[40];
	_Atomic int in_team; /* calls made inside a parallel region */
} spy;

static void count_call(void *ud, int i)
{
	spy *sp = ud;
	sp->calls[i]++;
#ifdef TPH_HAVE_OPENMP
	sp->in_team += omp_in_parallel();
#endif
}

static void expect_each_once(bool team, int want_in_team)
{
	spy sp = {0};
	tph_snap_parallel(37, team, count_call, &sp);
	for (int i = 0; i < 40; i++)
		assert_int_equal(sp.calls[i], i < 37);
	if (want_in_team >= 0)
		assert_int_equal(sp.in_team, want_in_team);
}

/* The snapshot's regions (prefault, column copies): every index once, with a team or without;
 * while the governor pauses teams (omp_team.h), on the caller's thread only. */
static void test_parallel_regions(void **state)
{
	(void)state;
	expect_each_once(false, 0);
	expect_each_once(true, -1);
	const char *exact = getenv("TPH_THREADS_EXACT");
	char saved[8] = "";
	if (exact)
		snprintf(saved, sizeof saved, "%s", exact);
	unsetenv("TPH_THREADS_EXACT");
	tph_team_reset();
	tph_team_judge(0, 1000000000ull); /* a team that did not pay: pause */
	assert_true(tph_team_paused_until() > 0);
	expect_each_once(true, 0);
	tph_team_reset();
	if (exact)
		setenv("TPH_THREADS_EXACT", saved, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_status_table),
	    cmocka_unit_test(test_node_accounting),
	    cmocka_unit_test(test_priority_table),
	    cmocka_unit_test(test_priority_global_default),
	    cmocka_unit_test(test_job_priority),
	    cmocka_unit_test(test_preemptable_table),
	    cmocka_unit_test(test_best_effort),
	    cmocka_unit_test(test_own_jobs_and_csr),
	    cmocka_unit_test(test_job_sums),
	    cmocka_unit_test(test_missing_queue_drops_job),
	    cmocka_unit_test(test_queue_parents),
	    cmocka_unit_test(test_immutability),
	    cmocka_unit_test(test_shard_flags_and_nodes),
	    cmocka_unit_test(test_parallel_regions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

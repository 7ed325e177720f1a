/* The unit tests' session harness: open a real session from a scenario string (loader, cache,
 * snapshot at the scenario's clock, the scenario's conf), run its actions when a test wants
 * decisions, and find its objects by name. Every helper fails the test on an error, printing
 * the loader's or session's message. Include after <cmocka.h>. */
#ifndef TPH_TEST_HARNESS_H
#define TPH_TEST_HARNESS_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "session/ep.h"
#include "session/ep_predicate.h"
#include "session/session_int.h"
#include "session/statement.h"
#include "session/topo/subjob.h"
#include "tephra/tephra.h"

typedef struct pts {
	tph_scenario *scn;
	tph_snapshot *snap;
	tph_session *s;
	tph_diag d;
	const tph_decision_log *log; /* pts_run's decisions */
} pts;

/* The process's minor page faults so far, for tests that count the pages a column takes. */
static inline long pts_minor_faults(void)
{
	struct rusage u;
	getrusage(RUSAGE_SELF, &u);
	return u.ru_minflt;
}

/* A block of n bytes filled with 0xff, for test allocators whose blocks must not read as
 * zeroed memory (NULL when malloc fails). */
static inline void *pts_filled_block(size_t n)
{
	void *p = malloc(n);
	if (p)
		memset(p, 0xff, n);
	return p;
}

/* A scenario of n nodes for the flat path's row tests, under one tier of `plugins` (YAML
 * list items): one node in three has 2 cpu, too small for task a's 3; the others have 4, or
 * 4 to 7 with `spread` (so that their scores differ). Task b asks another request row. The
 * caller frees it. */
static inline char *pts_rows_scenario(uint32_t n, const char *plugins, bool spread)
{
	size_t cap = 100u * n + 1024 + strlen(plugins), len = 0;
	char *y = malloc(cap);
	assert_non_null(y);
	len += (size_t)snprintf(y + len, cap - len,
	                        "conf: |\n"
	                        "  actions: \"allocate\"\n"
	                        "  tiers: [{plugins: [%s]}]\n"
	                        "queues: [{name: q1}]\n"
	                        "nodes:\n",
	                        plugins);
	for (uint32_t i = 0; i < n; i++)
		len += (size_t)snprintf(y + len, cap - len,
		                        "  - {name: n%u, allocatable: {cpu: '%u', memory: 8Gi, "
		                        "pods: '110'}}\n",
		                        i, i % 3 ? 4u + (spread ? i % 4 : 0) : 2u);
	snprintf(y + len, cap - len,
	         "podGroups:\n"
	         "  - {name: pg, namespace: ns, queue: q1, minMember: 1, phase: Inqueue}\n"
	         "pods:\n"
	         "  - {name: a, namespace: ns, podGroup: pg, requests: {cpu: '3'}}\n"
	         "  - {name: b, namespace: ns, podGroup: pg, requests: {cpu: '1'}}\n");
	return y;
}

/* A group setup's registration of an in-process test plugin: 0, or -1 with the refusal
 * printed (cmocka then fails the group). */
static inline int pts_register(const tph_plugin *plugin)
{
	tph_diag d = {0};
	if (tph_plugins_register(plugin, &d) == TPH_OK)
		return 0;
	fprintf(stderr, "%s: %s\n", plugin->name, d.msg);
	return -1;
}

/* Open with session options o (NULL: the defaults). */
static inline void pts_open_with(pts *p, const char *yaml, const tph_session_opts *o)
{
	memset(p, 0, sizeof *p);
	int rc = tph_scenario_load_buffer(yaml, strlen(yaml), "test.yaml", &p->scn, &p->d);
	if (rc)
		fprintf(stderr, "scenario: %s\n", p->d.msg);
	assert_int_equal(rc, TPH_OK);
	rc = tph_cluster_snapshot(tph_scenario_cluster(p->scn), tph_scenario_now(p->scn), &p->snap,
	                          &p->d);
	assert_int_equal(rc, TPH_OK);
	rc = tph_session_open(p->snap, tph_scenario_conf(p->scn), o, &p->s, &p->d);
	if (rc)
		fprintf(stderr, "session: %s\n", p->d.msg);
	assert_int_equal(rc, TPH_OK);
}

static inline void pts_open(pts *p, const char *yaml)
{
	pts_open_with(p, yaml, NULL);
}

/* Run the conf's actions and close the session; p->log gets its decisions. */
static inline void pts_run(pts *p)
{
	int rc = tph_session_run(p->s, &p->d);
	if (rc)
		fprintf(stderr, "run: %s\n", p->d.msg);
	assert_int_equal(rc, TPH_OK);
	assert_int_equal(tph_session_close(p->s, &p->d), TPH_OK);
	p->log = tph_session_decisions(p->s);
	assert_non_null(p->log);
}

static inline void pts_free(pts *p)
{
	tph_session_free(p->s);
	tph_snapshot_release(p->snap);
	tph_scenario_free(p->scn);
}

/* allocate alone over `body` (queues, nodes, groups, pods) with one tier of `plugins` (its
 * list, YAML at four spaces), naive or not, at one thread: pts_open_with, then pts_run. */
static inline void pts_run_tier(pts *p, const char *plugins, const char *body, bool naive)
{
	char yaml[8192];
	int len =
	    snprintf(yaml, sizeof yaml,
	             "name: tier\nconf: |\n  actions: \"allocate\"\n  tiers:\n  - plugins:\n%s%s",
	             plugins, body);
	assert_true(len > 0 && (size_t)len < sizeof yaml);
	tph_session_opts o = {0};
	o.naive = naive;
	o.threads = 1;
	pts_open_with(p, yaml, &o);
	pts_run(p);
}

/* A predicate that passes every node, TPH_PRED_SPEC_ONLY: the plugin "pts-pass", registered
 * before a spy predicate, makes the spy a later predicate plugin. */
static inline void pts_pass_predicate(void *st, const tph_session *s, tph_idx task,
                                      const tph_idx *nodes, uint32_t n, tph_reason_code *out)
{
	(void)st, (void)s, (void)task, (void)nodes;
	memset(out, 0, n * sizeof *out);
}

static inline int pts_pass_open(tph_session *s, void *st, const tph_args *args)
{
	(void)st, (void)args;
	int rc = tph_declare_predicate_locality(s, TPH_PRED_SPEC_ONLY);
	return rc ? rc : tph_on_predicate(s, pts_pass_predicate);
}

static inline const tph_plugin *pts_pass_plugin(void)
{
	static const tph_plugin pass = {TPH_PLUGIN_ABI, "pts-pass", NULL, 1, pts_pass_open, NULL};
	return &pass;
}

/* A decision log as text, one decision per line (binds, pipelined, evictions, phases, pending
 * with their reasons), for byte comparisons of two runs; malloc'd. */
static inline char *pts_log_text(const tph_decision_log *l)
{
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	for (uint32_t i = 0; i < l->n_binds; i++)
		fprintf(f, "bind %s %s\n", l->binds[i].pod, l->binds[i].node);
	for (uint32_t i = 0; i < l->n_pipelined; i++)
		fprintf(f, "pipe %s %s\n", l->pipelined[i].pod, l->pipelined[i].node);
	for (uint32_t i = 0; i < l->n_evictions; i++)
		fprintf(f, "evict %s\n", l->evictions[i].pod);
	for (uint32_t i = 0; i < l->n_phases; i++)
		fprintf(f, "phase %s %s\n", l->phases[i].podgroup, l->phases[i].phase);
	for (uint32_t i = 0; i < l->n_pending; i++) {
		fprintf(f, "pending %s", l->pending[i].pod);
		for (uint32_t k = 0; k < l->pending[i].n_reasons; k++)
			fprintf(f, " | %s", l->pending[i].reasons[k]);
		fputc('\n', f);
	}
	fclose(f);
	return buf;
}

/* ---- objects by name ---- */

static inline const char *pts_str(const tph_session *s, tph_sid id)
{
	return tph_strtab_str(s->snap->strs, id);
}

static inline bool pts_key_is(const tph_session *s, tph_sid ns, tph_sid name, const char *key)
{
	const char *a = pts_str(s, ns), *b = pts_str(s, name);
	size_t la = strlen(a);
	return !strncmp(key, a, la) && key[la] == '/' && !strcmp(key + la + 1, b);
}

/* The job (podgroup) "namespace/name". */
static inline tph_idx pts_job(const pts *p, const char *key)
{
	for (tph_idx j = 0; j < p->s->jobs->n; j++)
		if (pts_key_is(p->s, p->s->jobs->ns[j], p->s->jobs->name[j], key))
			return j;
	fail_msg("no job %s", key);
	return TPH_NOIDX;
}

/* The task (pod) "namespace/name". */
static inline tph_idx pts_task(const pts *p, const char *key)
{
	for (tph_idx t = 0; t < p->s->tasks.n; t++)
		if (pts_key_is(p->s, p->s->tasks.ns[t], p->s->tasks.name[t], key))
			return t;
	fail_msg("no task %s", key);
	return TPH_NOIDX;
}

/* The tasks "<ns>/<w>" for the space-separated words w of `names`, into out[0..cap); returns
 * how many. */
static inline uint32_t pts_tasks(const pts *p, const char *ns, const char *names, tph_idx *out,
                                 uint32_t cap)
{
	char buf[512], key[128];
	uint32_t n = 0;
	snprintf(buf, sizeof buf, "%s", names);
	for (char *save, *w = strtok_r(buf, " ", &save); w && n < cap;
	     w = strtok_r(NULL, " ", &save)) {
		snprintf(key, sizeof key, "%s/%s", ns, w);
		out[n++] = pts_task(p, key);
	}
	return n;
}

/* The names of tasks[0..n) joined with spaces, in buf. */
static inline const char *pts_task_names(const pts *p, const tph_idx *tasks, uint32_t n, char *buf,
                                         size_t cap)
{
	buf[0] = '\0';
	for (uint32_t i = 0; i < n; i++) {
		strncat(buf, i ? " " : "", cap - strlen(buf) - 1);
		strncat(buf, pts_str(p->s, p->s->tasks.name[tasks[i]]), cap - strlen(buf) - 1);
	}
	return buf;
}

static inline tph_idx pts_queue(const pts *p, const char *name)
{
	for (tph_idx q = 0; q < p->s->queues->n; q++)
		if (!strcmp(pts_str(p->s, p->s->queues->name[q]), name))
			return q;
	fail_msg("no queue %s", name);
	return TPH_NOIDX;
}

static inline tph_idx pts_node(const pts *p, const char *name)
{
	for (tph_idx n = 0; n < p->s->nodes.n; n++)
		if (!strcmp(pts_str(p->s, p->s->nodes.name[n]), name))
			return n;
	fail_msg("no node %s", name);
	return TPH_NOIDX;
}

/* ---- changing and reading the session ---- */

/* Move a task to another status through the framework (job, node and subjob accounting).
 * A task that leaves Pending without a node goes to the first node; Pending has none. */
static inline void pts_set_status(pts *p, tph_idx t, tph_task_status st)
{
	tph_idx node = p->s->tasks.node[t];
	if (st == TPH_TS_PENDING)
		node = TPH_NOIDX;
	else if (node == TPH_NOIDX)
		node = 0;
	tph_task_move(p->s, t, (uint8_t)st, node);
}

/* The ready nodes where the plugins' predicates (no resource fit) pass the task, as
 * "n1,n3". */
static inline const char *pts_passing(const pts *p, const char *task, char *buf, size_t cap)
{
	tph_idx t = pts_task(p, task);
	buf[0] = 0;
	for (uint32_t i = 0; i < p->s->n_ready; i++) {
		tph_idx n = p->s->ready_nodes[i];
		if (tph_predicate_node(p->s, t, n) != TPH_PASS)
			continue;
		if (buf[0])
			strncat(buf, ",", cap - strlen(buf) - 1);
		strncat(buf, pts_str(p->s, p->s->nodes.name[n]), cap - strlen(buf) - 1);
	}
	return buf;
}

/* The node-order scores of `task` on the first two ready nodes are w1 and w2. */
static inline void pts_expect_scores(pts *p, const char *task, double w1, double w2)
{
	double got[2];
	tph_score_nodes(p->s, pts_task(p, task), p->s->ready_nodes, 2, got);
	if (fabs(got[0] - w1) > 1e-6 || fabs(got[1] - w2) > 1e-6)
		fail_msg("%s: expected %.4f %.4f, got %.4f %.4f", task, w1, w2, got[0], got[1]);
}

#endif

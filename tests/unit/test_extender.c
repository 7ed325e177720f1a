/* Unit tests for plugins/extender through real sessions, each against its own loopback server
 * (kernel/cli/ext_server.c) with canned answers: the predicate's verdicts and reasons (codes,
 * ignorable on and off over a 500, garbage and a timeout), IsInterested, prioritize's scores and
 * its failure (no node chosen), preemptable victims by UID, the job and queue votes, the event
 * handlers, and an onSessionOpen that fails. Only 127.0.0.1; every wait is bounded. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "ext_server.h"
#include "harness.h"
#include "session/ep_predicate.h"

#define CLUSTER                                                              \
	"queues: [{name: default, weight: 1}]\n"                             \
	"nodes:\n"                                                           \
	"  - {name: n1, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n" \
	"  - {name: n2, allocatable: {cpu: '4', memory: 8Gi, pods: '10'}}\n" \
	"pods:\n"                                                            \
	"  - {name: p1, namespace: c1, requests: {cpu: '1'}}\n"

typedef struct ext_case {
	pts p;
	ext_server *srv;
} ext_case;

/* A session whose conf has the extender with `args` (YAML flow entries) pointing at a server
 * that gives answers a[0..n); `actions` run if the test calls pts_run. */
static void open_case(ext_case *c, const tph_extender_response *a, uint32_t n, const char *args,
                      const char *actions, const char *objects)
{
	char err[256], yaml[4096];
	if (ext_server_start(a, n, &c->srv, err, sizeof err))
		fail_msg("%s", err);
	snprintf(yaml, sizeof yaml,
	         "conf:\n  actions: \"%s\"\n  tiers:\n  - plugins:\n    - name: extender\n"
	         "      arguments: {extender.urlPrefix: 'http://127.0.0.1:%u', %s}\n%s",
	         actions, (unsigned)ext_server_port(c->srv), args, objects);
	pts_open(&c->p, yaml);
}

static void close_case(ext_case *c)
{
	pts_free(&c->p);
	ext_server_stop(c->srv);
}

/* The predicate's verdict for p1 on n1: "" when it passes, else the reason's text. */
static const char *verdict(ext_case *c, bool *unresolvable)
{
	tph_reason_code r =
	    tph_predicate_node(c->p.s, pts_task(&c->p, "c1/p1"), pts_node(&c->p, "n1"));
	if (unresolvable)
		*unresolvable = tph_reason_unresolvable(c->p.s, r);
	return tph_reason_text(c->p.s, r);
}

static void test_predicate_codes(void **state)
{
	(void)state;
	static const struct {
		const char *body;
		const char *reason;
		bool unresolvable;
	} cases[] = {
	    {"{\"status\":\"busy\",\"code\":3}", "busy", true},
	    {"{\"status\":\"busy\",\"code\":2}", "busy", false},
	    {"{\"status\":\"busy\"}", "busy", false}, /* code 0 with a message: Error */
	    {"{\"status\":\"\",\"code\":3}", "", false},
	    {"{}", "", false},
	    {"null", "", false},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		tph_extender_response a = {"pred", 200, cases[i].body, true};
		ext_case c;
		open_case(&c, &a, 1, "extender.predicateVerb: pred", "", CLUSTER);
		bool unres;
		assert_string_equal(verdict(&c, &unres), cases[i].reason);
		assert_int_equal(unres, cases[i].unresolvable);
		close_case(&c);
	}
}

static void test_predicate_failures(void **state)
{
	(void)state;
	const tph_extender_response a[] = {{"down", 500, "{}", true}, {"junk", 200, "nope", false}};
	ext_case c;
	open_case(&c, a, 2, "extender.predicateVerb: down", "", CLUSTER);
	char want[128];
	snprintf(want, sizeof want,
	         "failed down with extender at URL http://127.0.0.1:%u/down, code 500",
	         (unsigned)ext_server_port(c.srv));
	assert_string_equal(verdict(&c, NULL), want);
	close_case(&c);
	open_case(&c, a, 2, "extender.predicateVerb: down, extender.ignorable: true", "", CLUSTER);
	assert_string_equal(verdict(&c, NULL), "");
	close_case(&c);
	open_case(&c, a, 2, "extender.predicateVerb: junk", "", CLUSTER);
	assert_string_equal(verdict(&c, NULL),
	                    "invalid character 'o' in literal null (expecting 'u')");
	close_case(&c);
	open_case(&c, a, 2, "extender.predicateVerb: junk, extender.ignorable: 'true'", "",
	          CLUSTER);
	assert_string_equal(verdict(&c, NULL), "");
	close_case(&c);
	/* A verb without an answer: 404. */
	open_case(&c, a, 2, "extender.predicateVerb: other", "", CLUSTER);
	assert_non_null(strstr(verdict(&c, NULL), "code 404"));
	close_case(&c);
}

static void test_interested(void **state)
{
	(void)state;
	tph_extender_response a = {"pred", 200, "{\"status\":\"no\"}", true};
	ext_case c;
	open_case(&c, &a, 1,
	          "extender.predicateVerb: pred, extender.managedResources: [example.com/x]", "",
	          CLUSTER "  - {name: p2, namespace: c1, limits: {example.com/x: '0'}}\n");
	assert_string_equal(verdict(&c, NULL), ""); /* p1 names no managed resource: not asked */
	assert_int_equal(ext_server_requests(c.srv), 0);
	tph_idx p2 = pts_task(&c.p, "c1/p2"), n1 = pts_node(&c.p, "n1");
	assert_int_not_equal(tph_predicate_node(c.p.s, p2, n1), TPH_PASS); /* a limit, even 0 */
	assert_int_equal(ext_server_requests(c.srv), 1);
	close_case(&c);
}

/* A silent listener: the call must give up after httpTimeout, not hang. */
static void test_timeout(void **state)
{
	(void)state;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof sa;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	char yaml[1024];
	snprintf(
	    yaml, sizeof yaml,
	    "conf:\n  actions: \"\"\n  tiers:\n  - plugins:\n    - name: extender\n"
	    "      arguments: {extender.urlPrefix: 'http://127.0.0.1:%u', extender.predicateVerb: "
	    "p, extender.httpTimeout: 250ms}\n" CLUSTER,
	    (unsigned)ntohs(sa.sin_port));
	ext_case c = {0};
	pts_open(&c.p, yaml);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	const char *why = verdict(&c, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	assert_non_null(strstr(why, "Client.Timeout exceeded"));
	if (ms < 200 || ms > 3000)
		fail_msg("a 250ms timeout took %.0f ms", ms);
	pts_free(&c.p);
	close(fd);
}

static void test_prioritize(void **state)
{
	(void)state;
	const tph_extender_response a[] = {
	    {"score", 200,
	     "{\"nodeScore\":{\"n2\":10,\"nowhere\":99,\"n1\":-1},\"errorMessage\":\"\"}", true},
	    {"bad", 200, "{\"nodeScore\":{\"n2\":10},\"errorMessage\":\"no\"}", true},
	    {"nil", 200, "{}", true},
	    {"down", 500, "", false},
	};
	static const struct {
		const char *args, *want;
	} cases[] = {
	    {"extender.prioritizeVerb: score", "bind c1/p1 n2\n"},
	    /* An error leaves PrioritizeNodes without scores: no node of the group is chosen. */
	    {"extender.prioritizeVerb: bad", "pending c1/p1\n"},
	    {"extender.prioritizeVerb: nil, extender.ignorable: true", "pending c1/p1\n"},
	    {"extender.prioritizeVerb: down", "pending c1/p1\n"},
	    {"extender.prioritizeVerb: down, extender.ignorable: true", "bind c1/p1 n1\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		ext_case c;
		open_case(&c, a, 4, cases[i].args, "allocate", CLUSTER);
		pts_run(&c.p);
		char *log = pts_log_text(c.p.log);
		if (strcmp(log, cases[i].want))
			fail_msg("%s: got \"%s\", want \"%s\"", cases[i].args, log, cases[i].want);
		free(log);
		close_case(&c);
	}
}

#define RUNNING                                                                               \
	"  - {name: p2, namespace: c1, phase: Running, nodeName: n1, requests: {cpu: '1'}}\n" \
	"  - {name: p3, namespace: c1, phase: Running, nodeName: n1, requests: {cpu: '1'}}\n"

static void test_victims(void **state)
{
	(void)state;
	const tph_extender_response a[] = {
	    {"two", 200, "{\"status\":1,\"victims\":[{\"UID\":\"c1-p3\"},null,{\"UID\":\"zz\"}]}",
	     true},
	    {"abstain", 200, "{\"status\":0,\"victims\":[{\"UID\":\"c1-p3\"}]}", true},
	    {"down", 503, "", false},
	};
	static const struct {
		const char *verb;
		uint32_t n;
	} cases[] = {{"two", 1}, {"abstain", 0}, {"down", 0}};
	for (size_t i = 0; i < 3; i++) {
		ext_case c;
		char args[96];
		snprintf(args, sizeof args, "extender.preemptableVerb: %s", cases[i].verb);
		open_case(&c, a, 3, args, "", CLUSTER RUNNING);
		tph_idx cands[2] = {pts_task(&c.p, "c1/p2"), pts_task(&c.p, "c1/p3")}, out[2];
		uint32_t k = tph_preemptable(c.p.s, pts_task(&c.p, "c1/p1"), cands, 2, out);
		assert_int_equal(k, cases[i].n);
		if (k)
			assert_int_equal(out[0], cands[1]);
		assert_int_equal(ext_server_requests(c.srv), 1);
		close_case(&c);
	}
}

static void test_votes(void **state)
{
	(void)state;
	const tph_extender_response a[] = {
	    {"deny", 200, "{\"status\":-7}", true},
	    {"over", 200, "{\"overused\":true}", true},
	    {"notready", 200, "{\"status\":false}", true},
	    {"down", 500, "", false},
	};
	ext_case c;
	open_case(&c, a, 4,
	          "extender.jobEnqueueableVerb: deny, extender.queueOverusedVerb: over, "
	          "extender.jobReadyVerb: notready",
	          "", CLUSTER);
	tph_idx job = c.p.s->tasks.job[pts_task(&c.p, "c1/p1")], q = pts_queue(&c.p, "default");
	assert_false(tph_job_enqueueable(c.p.s, job));
	assert_true(tph_overused(c.p.s, q));
	assert_false(tph_job_ready(c.p.s, job));
	close_case(&c);
	/* Failed sends: Permit / not overused / ready with ignorable, the opposite without. */
	const char *down = "extender.jobEnqueueableVerb: down, extender.queueOverusedVerb: down, "
	                   "extender.jobReadyVerb: down";
	for (int ign = 0; ign < 2; ign++) {
		char args[256];
		snprintf(args, sizeof args, "%s, extender.ignorable: %s", down,
		         ign ? "true" : "false");
		open_case(&c, a, 4, args, "", CLUSTER);
		job = c.p.s->tasks.job[pts_task(&c.p, "c1/p1")];
		assert_int_equal(tph_job_enqueueable(c.p.s, job), ign);
		assert_int_equal(tph_overused(c.p.s, pts_queue(&c.p, "default")), !ign);
		assert_int_equal(tph_job_ready(c.p.s, job), !ign);
		close_case(&c);
	}
}

static void test_events(void **state)
{
	(void)state;
	const tph_extender_response a[] = {
	    {"refuse", 200, "{\"errorMessage\":\"no room\"}", true},
	    {"ok", 200, "{\"errorMessage\":\"\"}", true},
	    {"partial", 200, "{\"errorMessage\":\"kept\",\"errorMessage\":5}", true},
	};
	ext_case c;
	open_case(&c, a, 3,
	          "extender.allocateFuncVerb: refuse, extender.deallocateFuncVerb: refuse", "",
	          CLUSTER);
	tph_idx t = pts_task(&c.p, "c1/p1");
	assert_int_not_equal(tph_fire_allocate(c.p.s, t), TPH_OK);
	assert_int_equal(tph_fire_deallocate(c.p.s, t), TPH_OK); /* Volcano ignores it */
	close_case(&c);
	open_case(&c, a, 3, "extender.allocateFuncVerb: ok", "", CLUSTER);
	assert_int_equal(tph_fire_allocate(c.p.s, pts_task(&c.p, "c1/p1")), TPH_OK);
	close_case(&c);
	/* A type error after the message: the message still fails the event, ignorable or not. */
	open_case(&c, a, 3, "extender.allocateFuncVerb: partial, extender.ignorable: true", "",
	          CLUSTER);
	assert_int_not_equal(tph_fire_allocate(c.p.s, pts_task(&c.p, "c1/p1")), TPH_OK);
	close_case(&c);
}

/* onSessionOpen failing without ignorable: no callback at all; with it: as usual. */
static void test_session_open(void **state)
{
	(void)state;
	const tph_extender_response a[] = {{"pred", 200, "{\"status\":\"no\"}", true},
	                                   {"close", 200, "", false}};
	ext_case c;
	open_case(&c, a, 2,
	          "extender.onSessionOpenVerb: open, extender.onSessionCloseVerb: close, "
	          "extender.predicateVerb: pred",
	          "", CLUSTER);
	assert_string_equal(verdict(&c, NULL), "");
	pts_run(&c.p);
	assert_int_equal(ext_server_requests(c.srv), 2); /* open (404), close */
	close_case(&c);
	open_case(&c, a, 2,
	          "extender.onSessionOpenVerb: open, extender.predicateVerb: pred, "
	          "extender.ignorable: true",
	          "", CLUSTER);
	assert_string_equal(verdict(&c, NULL), "no");
	close_case(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_predicate_codes), cmocka_unit_test(test_predicate_failures),
	    cmocka_unit_test(test_interested),      cmocka_unit_test(test_timeout),
	    cmocka_unit_test(test_prioritize),      cmocka_unit_test(test_victims),
	    cmocka_unit_test(test_votes),           cmocka_unit_test(test_events),
	    cmocka_unit_test(test_session_open),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

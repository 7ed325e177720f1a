/* Unit tests for inter-pod affinity in the kai flavour (plugins/kai/interpod*.c): the counts
 * move with the statement's placements and undos (an eviction keeps the pod counted, as KAI's
 * node infos keep a Releasing pod), the podaffinity plugin's score and its sticky PreScore
 * skip, and the predicates plugin's required terms (anti-affinity both ways, the first pod of
 * an affinity series, a missing topology key) with their sticky PreFilter skip. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "kai_fixture.h"

static void open_aff(kf *f, const char *plugins, const char *pods)
{
	char rest[4096];
	snprintf(rest, sizeof rest,
	         "nodes:\n"
	         "  - {name: a0, allocatable: {cpu: \"8\", memory: 8G}, labels: {zone: a}}\n"
	         "  - {name: b0, allocatable: {cpu: \"8\", memory: 8G}, labels: {zone: b}}\n"
	         "  - {name: c0, allocatable: {cpu: \"8\", memory: 8G}}\n"
	         "podGroups: [{name: g, queue: q, minMember: 0}]\n"
	         "pods:\n%s",
	         pods);
	kai_open_tier(f, "", plugins, rest);
}

#define POD(name, app, extra)                                                                  \
	"  - {name: " name                                                                     \
	", podGroup: g, status: Pending, requests: {cpu: \"1\"}, labels: {app: " app "}" extra \
	"}\n"
#define PREF(kind, w, app)                                                                      \
	", affinity: {" kind ": {preferredDuringSchedulingIgnoredDuringExecution: [{weight: " w \
	", podAffinityTerm: {labelSelector: {matchLabels: {app: " app "}}, topologyKey: zone}}]}}"
#define REQ(kind, app, key)                                                    \
	", affinity: {" kind                                                   \
	": {requiredDuringSchedulingIgnoredDuringExecution: [{labelSelector: " \
	"{matchLabels: {app: " app "}}, topologyKey: " key "}]}}"

static const uint32_t all_nodes[] = {0, 1, 2};

static double score(kf *f, const char *task, uint32_t node)
{
	uint32_t t = task_of(f, task);
	double sc = -1;
	tph_kai_node_pre_order(f->s, t, all_nodes, 3);
	assert_int_equal(tph_kai_node_score(f->s, t, node, &sc), 0);
	return sc;
}

static bool fits(kf *f, const char *task, uint32_t node)
{
	uint32_t t = task_of(f, task);
	uint32_t j = (uint32_t)tph_kai_session_view(f->s)->tasks.job[t];
	return tph_kai_pre_predicate(f->s, t, j) && tph_kai_predicate(f->s, t, node);
}

/* cache-0 prefers zones with web pods (10) and web pods prefer cache pods near them (5): a web
 * pod placed on b0 gives b0 15 * 10^6, nothing elsewhere; the undo takes it back; an eviction
 * leaves it (the Releasing pod still counts). */
static void test_score_follows_placements(void **state)
{
	(void)state;
	kf f;
	open_aff(&f, "[{name: podaffinity}]",
	         POD("web-0", "web", PREF("podAffinity", "5", "cache"))
	             POD("cache-0", "cache", PREF("podAffinity", "10", "web")));
	uint32_t cp = tph_kai_stmt_checkpoint(f.s);
	assert_int_equal(tph_kai_stmt_allocate(f.s, task_of(&f, "web-0"), 1), 0);
	assert_true(score(&f, "cache-0", 1) == 15e6);
	assert_true(score(&f, "cache-0", 0) == 0);
	assert_true(score(&f, "cache-0", 2) == 0);
	assert_int_equal(tph_kai_stmt_evict(f.s, task_of(&f, "web-0")), 0);
	assert_true(score(&f, "cache-0", 1) == 15e6);
	tph_kai_stmt_rollback(f.s, cp);
	assert_true(score(&f, "cache-0", 1) == 0);
	close_kai(&f);
}

/* Preferred anti-affinity subtracts its weight; a task whose PreScore once skipped (nothing
 * scored it) keeps scoring 0 for the session, as KAI's skip map remembers it. */
static void test_score_anti_and_sticky_skip(void **state)
{
	(void)state;
	kf f;
	open_aff(&f, "[{name: podaffinity}]",
	         POD("web-0", "web", "") POD("late-0", "late", PREF("podAntiAffinity", "7", "web"))
	             POD("early-0", "early", PREF("podAntiAffinity", "7", "web")));
	assert_true(score(&f, "early-0", 1) == 0); /* skipped: no web pod placed yet */
	assert_int_equal(tph_kai_stmt_allocate(f.s, task_of(&f, "web-0"), 1), 0);
	assert_true(score(&f, "late-0", 1) == -7e6);
	assert_true(score(&f, "late-0", 0) == 0);
	assert_true(score(&f, "early-0", 1) == 0);
	close_kai(&f);
}

/* Required anti-affinity of the incoming pod and of a placed one: each keeps the other out of
 * its zone once placed; a pod whose PreFilter skipped before any such pod was placed is not
 * filtered again. */
static void test_required_anti(void **state)
{
	(void)state;
	kf f;
	open_aff(&f, "[{name: predicates}]",
	         POD("guard-0", "guard", REQ("podAntiAffinity", "x", "zone")) POD("x-0", "x", "")
	             POD("x-1", "x", "") POD("s-0", "s", REQ("podAntiAffinity", "s", "zone"))
	                 POD("s-1", "s", REQ("podAntiAffinity", "s", "zone")));
	assert_true(fits(&f, "x-0", 0)); /* skipped from here on */
	assert_int_equal(tph_kai_stmt_allocate(f.s, task_of(&f, "guard-0"), 0), 0);
	assert_int_equal(tph_kai_stmt_allocate(f.s, task_of(&f, "s-0"), 1), 0);
	assert_false(fits(&f, "x-1", 0));
	assert_true(fits(&f, "x-1", 1));
	assert_true(fits(&f, "x-1", 2)); /* no zone label: no domain to share */
	assert_true(fits(&f, "x-0", 0));
	assert_false(fits(&f, "s-1", 1));
	assert_true(fits(&f, "s-1", 0));
	close_kai(&f);
}

/* Required affinity: a node without the key never passes; with no matching pod anywhere a pod
 * that matches its own term may start the series, one that does not may not; once one is
 * placed the others must join its zone. */
static void test_required_affinity(void **state)
{
	(void)state;
	kf f;
	open_aff(&f, "[{name: predicates}]",
	         POD("p-0", "p", REQ("podAffinity", "p", "zone"))
	             POD("p-1", "p", REQ("podAffinity", "p", "zone"))
	                 POD("o-0", "o", REQ("podAffinity", "p", "zone")));
	assert_true(fits(&f, "p-0", 0));
	assert_true(fits(&f, "p-0", 1));
	assert_false(fits(&f, "p-0", 2));
	assert_false(fits(&f, "o-0", 0));
	uint32_t cp = tph_kai_stmt_checkpoint(f.s);
	assert_int_equal(tph_kai_stmt_allocate(f.s, task_of(&f, "p-0"), 1), 0);
	assert_true(fits(&f, "p-1", 1));
	assert_false(fits(&f, "p-1", 0));
	assert_true(fits(&f, "o-0", 1));
	tph_kai_stmt_rollback(f.s, cp);
	assert_true(fits(&f, "p-1", 0));
	close_kai(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_score_follows_placements),
	    cmocka_unit_test(test_score_anti_and_sticky_skip),
	    cmocka_unit_test(test_required_anti),
	    cmocka_unit_test(test_required_affinity),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

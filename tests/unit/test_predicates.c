/* Unit tests for plugins/predicates/predicates.c, predicates_pod.c and predicates_ports.c: node
 * selector and required node affinity operators, taints, unschedulable nodes, the pod-count
 * check, host ports (NodePorts, kept current by events), inter-pod affinity and anti-affinity
 * (kept current by allocate/deallocate events), topology spread, the enable arguments, the
 * preempt simulations and the BatchNodeOrder Volcano registers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "session/ep_predicate.h"
#include "harness.h"
#include "session/statement.h"

#define CONF(args)          \
	"conf: |\n"         \
	"  actions: \"\"\n" \
	"  tiers:\n"        \
	"  - plugins:\n"    \
	"    - name: predicates\n" args "queues: [{name: q1}]\n"

/* The verdict of the predicates alone (no resource fit) for a task on every node, as text. */
static const char *why(const pts *p, const char *task, const char *node)
{
	tph_idx n = pts_node(p, node);
	tph_reason_code c = tph_predicate_node(p->s, pts_task(p, task), n);
	return tph_reason_text(p->s, c);
}

/* Feasible nodes (fit + predicates) as a string "n1,n3". */
static const char *feasible(pts *p, const char *task, char *buf, size_t cap)
{
	tph_session *s = p->s;
	tph_idx out[16];
	tph_reason_code codes[16];
	uint32_t k = tph_filter_nodes(s, pts_task(p, task), s->ready_nodes, s->n_ready, codes, out);
	buf[0] = 0;
	for (uint32_t i = 0; i < k; i++) {
		if (i)
			strncat(buf, ",", cap - strlen(buf) - 1);
		strncat(buf, tph_strtab_str(s->snap->strs, s->nodes.name[out[i]]),
		        cap - strlen(buf) - 1);
	}
	return buf;
}

static const char node_affinity_yaml[] =
    CONF("") "nodes:\n"
             "  - {name: n1, allocatable: {cpu: '4', pods: '10'}, labels: {zone: a, gen: '3'}}\n"
             "  - {name: n2, allocatable: {cpu: '4', pods: '10'}, labels: {zone: b, gen: '5'}}\n"
             "  - {name: n3, allocatable: {cpu: '4', pods: '10'}, labels: {gen: x}}\n"
             "pods:\n"
             "  - {name: sel, namespace: ns, nodeSelector: {zone: a}}\n"
             "  - name: in\n    namespace: ns\n    affinity: {nodeAffinity: "
             "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
             "[{matchExpressions: [{key: zone, operator: In, values: [b, c]}]}]}}}\n"
             "  - name: notin\n    namespace: ns\n    affinity: {nodeAffinity: "
             "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
             "[{matchExpressions: [{key: zone, operator: NotIn, values: [a]}]}]}}}\n"
             "  - name: exists\n    namespace: ns\n    affinity: {nodeAffinity: "
             "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
             "[{matchExpressions: [{key: zone, operator: Exists}]}]}}}\n"
             "  - name: dne\n    namespace: ns\n    affinity: {nodeAffinity: "
             "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
             "[{matchExpressions: [{key: zone, operator: DoesNotExist}]}]}}}\n"
             "  - name: gt\n    namespace: ns\n    affinity: {nodeAffinity: "
             "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
             "[{matchExpressions: [{key: gen, operator: Gt, values: ['3']}]}]}}}\n"
             "  - name: lt-or\n    namespace: ns\n    affinity: {nodeAffinity: "
             "{requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: "
             "[{matchExpressions: [{key: gen, operator: Lt, values: ['4']}]},"
             " {matchExpressions: [{key: zone, operator: In, values: [b]}]}]}}}\n";

static void test_node_affinity_operators(void **state)
{
	(void)state;
	pts p;
	char b[64];
	pts_open(&p, node_affinity_yaml);
	assert_string_equal(feasible(&p, "ns/sel", b, sizeof b), "n1");
	assert_string_equal(feasible(&p, "ns/in", b, sizeof b), "n2");
	assert_string_equal(feasible(&p, "ns/notin", b, sizeof b), "n2,n3");
	assert_string_equal(feasible(&p, "ns/exists", b, sizeof b), "n1,n2");
	assert_string_equal(feasible(&p, "ns/dne", b, sizeof b), "n3");
	/* Gt/Lt parse the label; "x" is no integer and never matches. */
	assert_string_equal(feasible(&p, "ns/gt", b, sizeof b), "n2");
	assert_string_equal(feasible(&p, "ns/lt-or", b, sizeof b), "n1,n2");
	assert_string_equal(why(&p, "ns/sel", "n2"),
	                    "node(s) didn't match Pod's node affinity/selector");
	tph_reason_code c = tph_predicate_node(p.s, pts_task(&p, "ns/sel"), pts_node(&p, "n2"));
	assert_true(tph_reason_unresolvable(p.s, c));
	pts_free(&p);
}

static void test_node_affinity_disabled(void **state)
{
	(void)state;
	pts p;
	char b[64];
	pts_open(
	    &p,
	    CONF("      arguments: {predicate.NodeAffinityEnable: false}\n") "nodes:\n"
	                                                                     "  - {name: n1, "
	                                                                     "allocatable: {cpu: "
	                                                                     "'4', pods: '10'}, "
	                                                                     "labels: {zone: a}}\n"
	                                                                     "  - {name: n2, "
	                                                                     "allocatable: {cpu: "
	                                                                     "'4', pods: '10'}}\n"
	                                                                     "pods:\n"
	                                                                     "  - {name: sel, "
	                                                                     "namespace: ns, "
	                                                                     "nodeSelector: {zone: "
	                                                                     "a}}\n");
	assert_string_equal(feasible(&p, "ns/sel", b, sizeof b), "n1,n2");
	pts_free(&p);
}

static const char taints_yaml[] =
    CONF("") "nodes:\n"
             "  - {name: n1, allocatable: {cpu: '4', pods: '10'}, taints: [{key: dedicated,"
             " value: gpu, effect: NoSchedule}]}\n"
             "  - {name: n2, allocatable: {cpu: '4', pods: '10'}, taints: [{key: soft, value: x,"
             " effect: PreferNoSchedule}, {key: gone, effect: NoExecute}]}\n"
             "  - {name: n3, allocatable: {cpu: '4', pods: '10'}, unschedulable: true}\n"
             "pods:\n"
             "  - {name: plain, namespace: ns}\n"
             "  - {name: gpu, namespace: ns, tolerations: [{key: dedicated, operator: Equal,"
             " value: gpu, effect: NoSchedule}]}\n"
             "  - {name: all, namespace: ns, tolerations: [{operator: Exists}]}\n"
             "  - {name: wrong, namespace: ns, tolerations: [{key: dedicated, operator: Equal,"
             " value: cpu}]}\n"
             "  - {name: soft, namespace: ns, tolerations: [{key: dedicated, operator: Equal,"
             " value: gpu, effect: PreferNoSchedule}]}\n";

static void test_taints_and_unschedulable(void **state)
{
	(void)state;
	pts p;
	char b[64];
	pts_open(&p, taints_yaml);
	assert_string_equal(feasible(&p, "ns/plain", b, sizeof b), "");
	assert_string_equal(why(&p, "ns/plain", "n1"),
	                    "node(s) had untolerated taint {dedicated: gpu}");
	/* PreferNoSchedule never filters; the NoExecute taint does. */
	assert_string_equal(why(&p, "ns/plain", "n2"), "node(s) had untolerated taint {gone: }");
	assert_string_equal(why(&p, "ns/plain", "n3"), "node(s) were unschedulable");
	assert_string_equal(feasible(&p, "ns/gpu", b, sizeof b), "n1");
	assert_string_equal(feasible(&p, "ns/wrong", b, sizeof b), "");
	/* Key and value match, but a PreferNoSchedule toleration does not tolerate NoSchedule. */
	assert_string_equal(feasible(&p, "ns/soft", b, sizeof b), "");
	assert_string_equal(why(&p, "ns/soft", "n1"),
	                    "node(s) had untolerated taint {dedicated: gpu}");
	/* An empty key with Exists tolerates every taint, node.kubernetes.io/unschedulable too. */
	assert_string_equal(feasible(&p, "ns/all", b, sizeof b), "n1,n2,n3");
	pts_free(&p);
}

static void test_pod_number(void **state)
{
	(void)state;
	pts p;
	/* The fit sees one pod slot being released; the pod count sees two pods on n1. */
	pts_open(&p, CONF("") "nodes:\n"
	                      "  - {name: n1, allocatable: {cpu: '4', pods: '2'}}\n"
	                      "  - {name: n2, allocatable: {cpu: '4'}}\n"
	                      "pods:\n"
	                      "  - {name: r, namespace: ns, phase: Running, nodeName: n1}\n"
	                      "  - {name: d, namespace: ns, phase: Running, nodeName: n1,"
	                      " deleting: true}\n"
	                      "  - {name: new, namespace: ns}\n");
	assert_string_equal(why(&p, "ns/new", "n1"), "node(s) pod number exceeded");
	tph_reason_code c = tph_predicate_node(p.s, pts_task(&p, "ns/new"), pts_node(&p, "n1"));
	assert_false(tph_reason_unresolvable(p.s, c));
	/* A node that lists no pods holds none. */
	assert_string_equal(why(&p, "ns/new", "n2"), "node(s) pod number exceeded");
	pts_free(&p);
}

/* predicates' pod-count promise (tph_declare_pass_pods) for a task: its columns are the view's
 * pod counts against allocatable pods. */
static bool promised(const pts *p, const char *task)
{
	const tph_plugin_inst *pi = tph_pass_pods_plugin(p->s);
	assert_non_null(pi);
	return pi->pass_pods(pi->st, p->s, pts_task(p, task));
}

/* The promise holds for a spec without host ports and without pod-to-pod filters, and not for
 * a spec with a host port, required pod terms or a DoNotSchedule spread, nor for any spec once
 * a pod with required anti-affinity runs somewhere (its terms may select the spec). */
static void test_pass_pods_promise(void **state)
{
	(void)state;
	static const char pods[] =
	    "nodes:\n"
	    "  - {name: n1, allocatable: {cpu: '4', pods: '3'}}\n"
	    "pods:\n"
	    "  - {name: r, namespace: ns, phase: Running, nodeName: n1}\n"
	    "  - {name: plain, namespace: ns}\n"
	    "  - {name: port, namespace: ns, hostPorts: [{hostPort: 80}]}\n"
	    "  - {name: aff, namespace: ns, labels: {app: web},\n"
	    "    affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
	    " [{labelSelector: {matchLabels: {app: web}}, topologyKey: zone}]}}}\n"
	    "  - {name: spread, namespace: ns, labels: {app: w},\n"
	    "    topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone,"
	    " whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: w}}}]}\n";
	char yaml[2048];
	pts p;
	snprintf(yaml, sizeof yaml, CONF("") "%s", pods);
	pts_open(&p, yaml);
	const tph_plugin_inst *pi = tph_pass_pods_plugin(p.s);
	tph_idx n1 = pts_node(&p, "n1");
	assert_int_equal(pi->pass_count[n1], 1);
	assert_int_equal(pi->pass_limit[n1], 3);
	assert_true(promised(&p, "ns/plain"));
	assert_false(promised(&p, "ns/port"));
	assert_false(promised(&p, "ns/aff"));
	assert_false(promised(&p, "ns/spread"));
	pts_free(&p);
	snprintf(yaml, sizeof yaml,
	         CONF("") "%s  - {name: guard, namespace: ns, phase: Running, nodeName: n1,\n"
	                  "    affinity: {podAntiAffinity: "
	                  "{requiredDuringSchedulingIgnoredDuringExecution:"
	                  " [{labelSelector: {matchLabels: {app: db}}, topologyKey: zone}]}}}\n",
	         pods);
	pts_open(&p, yaml);
	assert_false(promised(&p, "ns/plain"));
	pts_free(&p);
}

#define ANTI(key)                                                                          \
	"    affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution:" \
	" [{labelSelector: {matchLabels: {app: web}}, topologyKey: " key "}]}}\n"

static const char anti_yaml[] = CONF(
    "") "nodes:\n"
        "  - {name: n1, allocatable: {cpu: '4', pods: '10'}, labels: {zone: a, h: n1}}\n"
        "  - {name: n2, allocatable: {cpu: '4', pods: '10'}, labels: {zone: a, h: n2}}\n"
        "  - {name: n3, allocatable: {cpu: '4', pods: '10'}, labels: {zone: b, h: n3}}\n"
        "  - {name: n4, allocatable: {cpu: '4', pods: '10'}}\n"
        "pods:\n"
        "  - {name: old, namespace: ns, phase: Running, nodeName: n1, labels: {app: web}}\n"
        "  - name: zone-anti\n    namespace: ns\n    labels: {app: web}\n" ANTI(
            "zone") "  - name: other-ns\n    namespace: ns2\n" ANTI("zone") "  - {name: web, "
                                                                            "namespace: ns, "
                                                                            "labels: {app: web}}\n"
                                                                            "  - name: host-anti\n "
                                                                            "   namespace: ns\n    "
                                                                            "labels: {app: "
                                                                            "db}\n" ANTI("h");

static void test_anti_affinity_by_topology(void **state)
{
	(void)state;
	pts p;
	char b[64];
	pts_open(&p, anti_yaml);
	/* Zone a holds a web pod: n1 and n2 refuse; n4 has no zone label and passes. */
	assert_string_equal(feasible(&p, "ns/zone-anti", b, sizeof b), "n3,n4");
	assert_string_equal(why(&p, "ns/zone-anti", "n2"),
	                    "node(s) didn't match pod anti-affinity rules");
	/* Terms select in the pod's own namespace unless they name others. */
	assert_string_equal(feasible(&p, "ns2/other-ns", b, sizeof b), "n1,n2,n3,n4");
	assert_string_equal(feasible(&p, "ns/host-anti", b, sizeof b), "n2,n3,n4");
	pts_free(&p);
}

static void test_anti_affinity_follows_events(void **state)
{
	(void)state;
	pts p;
	char b[64];
	pts_open(&p, anti_yaml);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	/* A web pod placed on n3 closes zone b for the zone-anti pod, and h=n3 for host-anti. */
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/web"), pts_node(&p, "n3")),
	                 TPH_OK);
	assert_string_equal(feasible(&p, "ns/zone-anti", b, sizeof b), "n4");
	assert_string_equal(feasible(&p, "ns/host-anti", b, sizeof b), "n2,n4");
	tph_stmt_discard(&st);
	assert_string_equal(feasible(&p, "ns/zone-anti", b, sizeof b), "n3,n4");
	/* An eviction removes the pod from the view; discarding it brings it back. */
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_evict(&st, pts_task(&p, "ns/old"), "test"), TPH_OK);
	assert_string_equal(feasible(&p, "ns/zone-anti", b, sizeof b), "n1,n2,n3,n4");
	tph_stmt_discard(&st);
	assert_string_equal(feasible(&p, "ns/zone-anti", b, sizeof b), "n3,n4");
	pts_free(&p);
}

static const char existing_yaml[] =
    CONF("") "nodes:\n"
             "  - {name: n1, allocatable: {cpu: '4', pods: '10'}, labels: {h: n1}}\n"
             "  - {name: n2, allocatable: {cpu: '4', pods: '10'}, labels: {h: n2}}\n"
             "pods:\n"
             "  - name: guard\n    namespace: ns\n    phase: Running\n    nodeName: n1\n" ANTI(
                 "h") "  - {name: web, namespace: ns, labels: {app: web}}\n"
                      "  - {name: db, namespace: ns, labels: {app: db}}\n";

static void test_existing_pods_anti_affinity(void **state)
{
	(void)state;
	pts p;
	char b[64];
	pts_open(&p, existing_yaml);
	assert_string_equal(feasible(&p, "ns/web", b, sizeof b), "n2");
	assert_string_equal(why(&p, "ns/web", "n1"),
	                    "node(s) didn't satisfy existing pods anti-affinity rules");
	assert_string_equal(feasible(&p, "ns/db", b, sizeof b), "n1,n2");
	pts_free(&p);
}

static const char affinity_yaml[] =
    CONF("") "nodes:\n"
             "  - {name: n1, allocatable: {cpu: '4', pods: '10'}, labels: {zone: a}}\n"
             "  - {name: n2, allocatable: {cpu: '4', pods: '10'}, labels: {zone: b}}\n"
             "  - {name: n3, allocatable: {cpu: '4', pods: '10'}}\n"
             "pods:\n"
             "  - name: first\n    namespace: ns\n    labels: {app: web}\n"
             "    affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
             " [{labelSelector: {matchLabels: {app: web}}, topologyKey: zone}]}}\n"
             "  - name: stranger\n    namespace: ns\n    labels: {app: db}\n"
             "    affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
             " [{labelSelector: {matchLabels: {app: web}}, topologyKey: zone}]}}\n"
             "  - {name: web, namespace: ns, labels: {app: web}}\n";

static void test_affinity_first_pod_and_follow(void **state)
{
	(void)state;
	pts p;
	char b[64];
	pts_open(&p, affinity_yaml);
	/* No web pod anywhere: a pod matching its own terms may go to any node with the key. */
	assert_string_equal(feasible(&p, "ns/first", b, sizeof b), "n1,n2");
	assert_string_equal(feasible(&p, "ns/stranger", b, sizeof b), "");
	assert_string_equal(why(&p, "ns/stranger", "n3"),
	                    "node(s) didn't match pod affinity rules");
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/web"), pts_node(&p, "n2")),
	                 TPH_OK);
	assert_string_equal(feasible(&p, "ns/first", b, sizeof b), "n2");
	assert_string_equal(feasible(&p, "ns/stranger", b, sizeof b), "n2");
	tph_stmt_discard(&st);
	pts_free(&p);
}

static const char spread_yaml[] =
    CONF("") "nodes:\n"
             "  - {name: n1, allocatable: {cpu: '8', pods: '10'}, labels: {zone: a}}\n"
             "  - {name: n2, allocatable: {cpu: '8', pods: '10'}, labels: {zone: b}}\n"
             "  - {name: n3, allocatable: {cpu: '8', pods: '10'}}\n"
             "  - {name: n4, allocatable: {cpu: '8', pods: '10'}, labels: {zone: c}}\n"
             "pods:\n"
             "  - {name: a1, namespace: ns, phase: Running, nodeName: n1, labels: {app: w}}\n"
             "  - {name: a2, namespace: ns, phase: Running, nodeName: n1, labels: {app: w}}\n"
             "  - {name: b1, namespace: ns, phase: Running, nodeName: n2, labels: {app: w}}\n"
             "  - {name: gone, namespace: ns, phase: Running, nodeName: n4, labels: {app: w},"
             " deleting: true}\n"
             "  - name: loose\n    namespace: ns\n    labels: {app: w}\n"
             "    topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone,"
             " whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: w}}}]\n"
             "  - name: picky\n    namespace: ns\n    labels: {app: w}\n"
             "    affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution:"
             " {nodeSelectorTerms: [{matchExpressions: [{key: zone, operator: In,"
             " values: [a, b]}]}]}}}\n"
             "    topologySpreadConstraints: [{maxSkew: 1, topologyKey: zone,"
             " whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: w}}}]\n";

static void test_topology_spread(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, spread_yaml);
	/* Zones a=2, b=1, c=0 (the deleting pod does not count): skew = count + 1 - 0. */
	const char *skew = "node(s) didn't match pod topology spread constraints";
	assert_string_equal(why(&p, "ns/loose", "n1"), skew);
	assert_string_equal(why(&p, "ns/loose", "n2"), skew);
	assert_string_equal(why(&p, "ns/loose", "n4"), "");
	assert_string_equal(
	    why(&p, "ns/loose", "n3"),
	    "node(s) didn't match pod topology spread constraints (missing required "
	    "label)");
	/* Only the nodes the pod's node affinity admits count: the minimum is zone b's 1. */
	assert_string_equal(why(&p, "ns/picky", "n2"), "");
	assert_string_equal(why(&p, "ns/picky", "n1"), skew);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/b1"), pts_node(&p, "n4")), TPH_OK);
	/* b1 moved from zone b to c: a=2, b=0, c=1. */
	assert_string_equal(why(&p, "ns/loose", "n4"), skew);
	assert_string_equal(why(&p, "ns/loose", "n2"), "");
	tph_stmt_discard(&st);
	assert_string_equal(why(&p, "ns/loose", "n4"), "");
	pts_free(&p);
}

static void test_simulations(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, existing_yaml);
	tph_session *s = p.s;
	tph_idx web = pts_task(&p, "ns/web"), guard = pts_task(&p, "ns/guard");
	tph_idx n1 = pts_node(&p, "n1"), n2 = pts_node(&p, "n2");
	tph_prepredicate(s, web);
	assert_int_not_equal(tph_sim_predicate(s, web, n1), TPH_PASS);
	assert_int_equal(tph_sim_remove_task(s, web, guard, n1), TPH_OK);
	assert_int_equal(tph_sim_predicate(s, web, n1), TPH_PASS);
	/* Another node starts from a fresh copy of the state. */
	assert_int_equal(tph_sim_predicate(s, web, n2), TPH_PASS);
	assert_int_equal(tph_sim_add_task(s, web, guard, n2), TPH_OK);
	assert_int_not_equal(tph_sim_predicate(s, web, n2), TPH_PASS);
	assert_int_not_equal(tph_sim_predicate(s, web, n1), TPH_PASS);
	pts_free(&p);
}

#define PORTS_NODES                                                                             \
	"nodes:\n"                                                                              \
	"  - {name: n1, allocatable: {cpu: '4', pods: '10'}}\n"                                 \
	"  - {name: n2, allocatable: {cpu: '4', pods: '10'}}\n"                                 \
	"  - {name: n3, allocatable: {cpu: '4', pods: '10'}}\n"                                 \
	"  - {name: n4, allocatable: {cpu: '4', pods: '10'}}\n"                                 \
	"pods:\n"                                                                               \
	"  - {name: web, namespace: ns, phase: Running, nodeName: n1, hostPorts: [{hostPort: "  \
	"80}]}\n"                                                                               \
	"  - {name: dns, namespace: ns, phase: Running, nodeName: n2, hostPorts: [{hostPort: "  \
	"53, protocol: UDP, hostIP: 10.0.0.2}]}\n"                                              \
	"  - {name: ip80, namespace: ns, phase: Running, nodeName: n3, hostPorts: [{hostPort: " \
	"80, hostIP: 10.0.0.3}]}\n"                                                             \
	"  - {name: a, namespace: ns, phase: Running, nodeName: n4, hostPorts: [{hostPort: "    \
	"8080}]}\n"                                                                             \
	"  - {name: b, namespace: ns, phase: Running, nodeName: n4, hostPorts: [{hostPort: "    \
	"8080, protocol: TCP, hostIP: ''}]}\n"                                                  \
	"  - {name: any80, namespace: ns, hostPorts: [{hostPort: 80}]}\n"                       \
	"  - {name: on3, namespace: ns, hostPorts: [{hostPort: 80, hostIP: 10.0.0.3}]}\n"       \
	"  - {name: on9, namespace: ns, hostPorts: [{hostPort: 80, hostIP: 10.0.0.9}]}\n"       \
	"  - {name: udp80, namespace: ns, hostPorts: [{hostPort: 80, protocol: UDP}]}\n"        \
	"  - {name: udp53, namespace: ns, hostPorts: [{hostPort: 53, protocol: UDP}]}\n"        \
	"  - {name: w8080, namespace: ns, hostPorts: [{hostPort: 9}, {hostPort: 8080}]}\n"      \
	"  - {name: none, namespace: ns}\n"

/* HostPortInfo.CheckConflict: 0.0.0.0 meets every address, an address meets itself and
 * 0.0.0.0; protocols never meet each other. */
static void test_node_ports(void **state)
{
	(void)state;
	pts p;
	char b[64];
	pts_open(&p, CONF("") PORTS_NODES);
	assert_string_equal(feasible(&p, "ns/any80", b, sizeof b), "n2,n4");
	assert_string_equal(feasible(&p, "ns/on3", b, sizeof b), "n2,n4");
	assert_string_equal(feasible(&p, "ns/on9", b, sizeof b), "n2,n3,n4");
	assert_string_equal(feasible(&p, "ns/udp80", b, sizeof b), "n1,n2,n3,n4");
	assert_string_equal(feasible(&p, "ns/udp53", b, sizeof b), "n1,n3,n4");
	assert_string_equal(feasible(&p, "ns/w8080", b, sizeof b), "n1,n2,n3");
	assert_string_equal(feasible(&p, "ns/none", b, sizeof b), "n1,n2,n3,n4");
	assert_string_equal(why(&p, "ns/any80", "n1"),
	                    "node(s) didn't have free ports for the requested pod ports");
	tph_reason_code c = tph_predicate_node(p.s, pts_task(&p, "ns/any80"), pts_node(&p, "n1"));
	assert_false(tph_reason_unresolvable(p.s, c));
	pts_free(&p);
	/* predicate.NodePortsEnable: false turns the filter off. */
	pts_open(&p, CONF("      arguments: {predicate.NodePortsEnable: false}\n") PORTS_NODES);
	assert_string_equal(feasible(&p, "ns/any80", b, sizeof b), "n1,n2,n3,n4");
	pts_free(&p);
}

/* The used ports follow the events; a node's ports are a set, so evicting one of two pods that
 * bind 8080 frees it (HostPortInfo.Remove), and discarding the eviction binds it again. */
static void test_node_ports_follow_events(void **state)
{
	(void)state;
	pts p;
	char b[64];
	pts_open(&p, CONF("") PORTS_NODES);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_allocate(&st, pts_task(&p, "ns/any80"), pts_node(&p, "n2")),
	                 TPH_OK);
	assert_string_equal(feasible(&p, "ns/on9", b, sizeof b), "n3,n4");
	assert_string_equal(feasible(&p, "ns/udp80", b, sizeof b), "n1,n2,n3,n4");
	tph_stmt_discard(&st);
	assert_string_equal(feasible(&p, "ns/on9", b, sizeof b), "n2,n3,n4");
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_evict(&st, pts_task(&p, "ns/a"), "test"), TPH_OK);
	assert_string_equal(feasible(&p, "ns/w8080", b, sizeof b), "n1,n2,n3,n4");
	tph_stmt_discard(&st);
	assert_string_equal(feasible(&p, "ns/w8080", b, sizeof b), "n1,n2,n3");
	pts_free(&p);
}

/* Volcano's predicates registers a BatchNodeOrder (VolumeBinding and DRA scores): 0 on every
 * node for pods without claims, and node-local. */
static void test_batch_node_order(void **state)
{
	(void)state;
	pts p;
	double got[4] = {1, 1, 1, 1};
	pts_open(&p, CONF("") PORTS_NODES);
	tph_session *s = p.s;
	assert_int_equal(s->ep[TPH_EP_BATCH_NODE_ORDER].n, 1);
	tph_score_nodes(s, pts_task(&p, "ns/any80"), s->ready_nodes, s->n_ready, got);
	for (int i = 0; i < 4; i++)
		assert_true(got[i] == 0);
	assert_int_equal(tph_score_locality(s, pts_task(&p, "ns/any80")), TPH_SCORE_LOCAL);
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_node_ports),
	    cmocka_unit_test(test_node_ports_follow_events),
	    cmocka_unit_test(test_batch_node_order),
	    cmocka_unit_test(test_node_affinity_operators),
	    cmocka_unit_test(test_node_affinity_disabled),
	    cmocka_unit_test(test_taints_and_unschedulable),
	    cmocka_unit_test(test_pod_number),
	    cmocka_unit_test(test_anti_affinity_by_topology),
	    cmocka_unit_test(test_anti_affinity_follows_events),
	    cmocka_unit_test(test_existing_pods_anti_affinity),
	    cmocka_unit_test(test_affinity_first_pod_and_follow),
	    cmocka_unit_test(test_topology_spread),
	    cmocka_unit_test(test_simulations),
	    cmocka_unit_test(test_pass_pods_promise),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

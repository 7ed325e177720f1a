/* Unit tests for plugins/deviceshare: the annotation parsers (node-vgpu-register, vgpu-ids-new,
 * gpu-index, unhealthy ids, the UUID lists, card types); the arguments (conflicting device
 * kinds fail the open, policies, weight, exclusivity rules); gpushare by memory and by number
 * (cards from capacity, unhealthy ids, holders, the bind annotations, a discard frees the
 * cards); vGPU cards (allocatable and register, holders by UUID, mode, UUID and type filters,
 * every per-card rule of the search, policies and scores, the bind annotations, a discard
 * keeps the usage, exclusivity, spread by pod group); the predicates plugin's role (no
 * assignment without it, none with its enablePredicate off); and the fast path deciding as
 * the naive one, with tasks of a shape asking alike or not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>

#include "deviceshare/deviceshare.h"
#include "harness.h"

/* 2026-01-01T00:00:10Z */
#define NOW_S  "1767225610"
#define NOW_NS "1767225610000000000"

#define HEAD(actions, ds)                                                                      \
	"now: '2026-01-01T00:00:10Z'\nconf: |\n  actions: \"" actions "\"\n  tiers:\n"         \
	"  - plugins:\n    - name: predicates\n    - name: deviceshare\n      arguments: {" ds \
	"}\nqueues: [{name: default}]\n"
#define VGPU   "deviceshare.VGPUEnable: true"
#define SHARE  "deviceshare.GPUSharingEnable: true"
#define NUMBER "deviceshare.GPUNumberEnable: true"

/* A vGPU node with the register annotation `reg`. */
#define VNODE(name, reg)                                                                    \
	"  - {name: " name ", allocatable: {cpu: '8', memory: 16Gi, pods: '10', "           \
	"volcano.sh/vgpu-number: '40', volcano.sh/vgpu-memory: '65536', "                   \
	"volcano.sh/vgpu-cores: '400'}, annotations: {volcano.sh/node-vgpu-register: '" reg \
	"'}}\n"
#define CARD(uuid, num, mem) uuid "," num "," mem ",NVIDIA,true,hami-core:"
#define CARD4(uuid)          CARD(uuid, "4", "16384")
/* A gpushare node: `mem` total over `num` cards. */
#define GNODE(name, mem, num, ann)                                                                \
	"  - {name: " name ", allocatable: {cpu: '8', memory: 16Gi, pods: '10', "                 \
	"volcano.sh/gpu-memory: '" mem "', volcano.sh/gpu-number: '" num "'}, annotations: {" ann \
	"}}\n"
/* A pending pod of its own job. */
#define POD(name, extra) "  - {name: " name ", namespace: ns, requests: {cpu: '1'}, " extra "}\n"
/* A running pod on node n1. */
#define HOLDER(name, extra)                                                                  \
	"  - {name: " name ", namespace: ns, phase: Running, nodeName: n1, requests: {cpu: " \
	"'1'}, " extra "}\n"
#define VLIM(num, mem, cores)                                                             \
	"limits: {volcano.sh/vgpu-number: '" num "', volcano.sh/vgpu-memory: '" mem "', " \
	"volcano.sh/vgpu-cores: '" cores "'}"

/* ---- helpers ---- */

static const char *why(const pts *p, const char *task, const char *node)
{
	return tph_reason_text(p->s,
	                       tph_predicate_node(p->s, pts_task(p, task), pts_node(p, node)));
}

static void expect_feasible(const char *yaml, const char *task, const char *want)
{
	pts p;
	char b[128];
	pts_open(&p, yaml);
	if (strcmp(pts_passing(&p, task, b, sizeof b), want))
		fail_msg("%s: feasible on \"%s\", expected \"%s\"", task, b, want);
	pts_free(&p);
}

/* The value of `key` on the bind of `pod` after the run; NULL when not bound or not set. */
static const char *bind_ann(const pts *p, const char *pod, const char *key)
{
	for (uint32_t i = 0; i < p->log->n_binds; i++) {
		const tph_decision *d = &p->log->binds[i];
		if (strcmp(d->pod, pod))
			continue;
		for (uint32_t k = 0; k < d->annotations.n; k++)
			if (!strcmp(d->annotations.items[k].key, key))
				return d->annotations.items[k].value;
		return NULL;
	}
	return NULL;
}

static void expect_bind(const char *yaml, const char *pod, const char *key, const char *want)
{
	pts p;
	pts_open(&p, yaml);
	pts_run(&p);
	const char *got = bind_ann(&p, pod, key);
	if (want ? !got || strcmp(got, want) : got != NULL)
		fail_msg("%s %s: got \"%s\", expected \"%s\"", pod, key, got ? got : "(none)",
		         want ? want : "(none)");
	pts_free(&p);
}

static double score(pts *p, const char *task, const char *node)
{
	double out;
	tph_idx n = pts_node(p, node);
	tph_score_nodes(p->s, pts_task(p, task), &n, 1, &out);
	return out;
}

static void collect(void *ud, const char *msg)
{
	strncat(ud, msg, 1023 - strlen(ud));
}

/* Open a session; its status, and the warnings in warn[1024]. */
static int open_rc(const char *yaml, char *warn)
{
	tph_diag d = {.warn = collect, .warn_ud = warn};
	tph_scenario *scn;
	tph_snapshot *snap;
	tph_session *s = NULL;
	warn[0] = 0;
	assert_int_equal(tph_scenario_load_buffer(yaml, strlen(yaml), "t.yaml", &scn, &d), TPH_OK);
	assert_int_equal(
	    tph_cluster_snapshot(tph_scenario_cluster(scn), tph_scenario_now(scn), &snap, &d),
	    TPH_OK);
	int rc = tph_session_open(snap, tph_scenario_conf(scn), NULL, &s, &d);
	tph_session_free(s);
	tph_snapshot_release(snap);
	tph_scenario_free(scn);
	return rc;
}

static ds_str S(const char *s)
{
	return (ds_str){s, (uint32_t)strlen(s)};
}

/* ---- parsers ---- */

static void test_parse_register(void **state)
{
	(void)state;
	ds_reg_card c[4];
	assert_int_equal(ds_parse_register(S("GPU-a,10,30000,NVIDIA,true,hami-core:GPU-b,4,-1,"
	                                     "NVIDIA-A100,false,mig:"),
	                                   c, 4),
	                 2);
	assert_true(ds_str_eq(c[0].uuid, S("GPU-a")));
	assert_int_equal(c[0].number, 10);
	assert_int_equal(c[0].memory, 30000);
	assert_true(ds_str_eq(c[1].type, S("NVIDIA-A100")));
	assert_true(ds_str_eq(c[1].mode, S("mig")));
	assert_int_equal(c[1].memory, UINT64_MAX); /* uint(-1) */
	/* pieces without a comma are skipped; a bad number reads 0 */
	assert_int_equal(ds_parse_register(S("x::GPU-a,ten,5,T,h,m"), c, 4), 1);
	assert_int_equal(c[0].number, 0);
	assert_int_equal(c[0].memory, 5);
	/* no ':' at all, or an entry short of 6 fields: no devices */
	assert_int_equal(ds_parse_register(S("GPU-a,10,30000,NVIDIA,true,hami-core"), c, 4), -1);
	assert_int_equal(ds_parse_register(S("GPU-a,10,30000,NVIDIA,true:"), c, 4), -1);
	assert_int_equal(ds_parse_register(S(""), c, 4), -1);
}

/* TestDecodeContainerDevicesRejectsInvalidUsage */
static void test_parse_ids(void **state)
{
	(void)state;
	ds_cdev d[4];
	assert_int_equal(ds_parse_ids(S("GPU-a,NVIDIA,4096,25:"), d, 4), 1);
	assert_true(ds_str_eq(d[0].uuid, S("GPU-a")));
	assert_int_equal(d[0].mem, 4096);
	assert_int_equal(d[0].cores, 25);
	assert_int_equal(ds_parse_ids(S("GPU-a,NVIDIA,-1,25:"), d, 4), 0);
	assert_int_equal(ds_parse_ids(S("GPU-a,NVIDIA,1,-25:"), d, 4), 0);
	assert_int_equal(ds_parse_ids(S("GPU-a,NVIDIA,x,25:"), d, 4), 0);
	assert_int_equal(ds_parse_ids(S("GPU-a,NVIDIA,1:"), d, 4), 0);
	assert_int_equal(ds_parse_ids(S("GPU-a,NVIDIA,4294967296,1:"), d, 4), 0);
	assert_int_equal(ds_parse_ids(S("bad,N,x,1:GPU-b,NVIDIA,2,3:"), d, 4), 1);
	assert_true(ds_str_eq(d[0].uuid, S("GPU-b")));
	/* containers split by ';' */
	assert_int_equal(ds_parse_ids(S("GPU-a,N,1,2:;GPU-b,N,3,4:GPU-c,N,5,6:"), d, 4), 3);
	assert_int_equal(d[2].cores, 6);
	assert_int_equal(ds_parse_ids(S(""), d, 4), 0);
}

static void test_parse_lists(void **state)
{
	(void)state;
	int64_t v[4];
	uint32_t n;
	assert_true(ds_parse_index(S("0,2"), v, 4, &n));
	assert_int_equal(n, 2);
	assert_int_equal(v[1], 2);
	assert_false(ds_parse_index(S("0,x"), v, 4, &n));
	assert_false(ds_parse_index(S(""), v, 4, &n)); /* strconv.Atoi("") fails */
	assert_true(ds_parse_index(S("+1,-3"), v, 4, &n));
	assert_int_equal(v[1], -3);
	assert_int_equal(ds_parse_unhealthy(S("1,x,3,"), v, 4), 2);
	assert_int_equal(v[1], 3);
	ds_str u[4];
	assert_int_equal(ds_parse_uuids(S(" GPU-a , ,GPU-b,,"), u, 4), 2);
	assert_true(ds_str_eq(u[0], S("GPU-a")));
	assert_true(ds_str_eq(u[1], S("GPU-b")));
	assert_int_equal(ds_parse_uuids(S(","), u, 4), 0);
}

/* TestCheckGPUtype */
static void test_gpu_type(void **state)
{
	(void)state;
	ds_str a100 = S("NVIDIA-A100");
	assert_true(ds_gpu_type_ok("A100", NULL, a100));
	assert_true(ds_gpu_type_ok("a100", NULL, a100));
	assert_true(ds_gpu_type_ok("V100,A100", NULL, a100));
	assert_false(ds_gpu_type_ok("V100,T4", NULL, a100));
	assert_false(ds_gpu_type_ok(NULL, "A100", a100));
	assert_false(ds_gpu_type_ok(NULL, "a100", a100));
	assert_false(ds_gpu_type_ok(NULL, "V100,A100", a100));
	assert_true(ds_gpu_type_ok(NULL, "V100,T4", a100));
	assert_true(ds_gpu_type_ok(NULL, NULL, a100));
	assert_true(ds_gpu_type_ok("", NULL, a100));                   /* strings.Contains(x, "") */
	assert_true(ds_gpu_type_ok("V100", "A100", S("NVIDIA-V100"))); /* use decides alone */
}

/* ---- arguments ---- */

static void test_conflicting_kinds(void **state)
{
	(void)state;
	char warn[1024];
	const char *tail = "nodes: []\n";
	char yaml[1024];
	snprintf(yaml, sizeof yaml, "%s%s", HEAD("", SHARE ", " NUMBER), tail);
	assert_int_equal(open_rc(yaml, warn), TPH_EINVAL);
	assert_non_null(strstr(warn, "can not define true in both gpu sharing and gpu number"));
	snprintf(yaml, sizeof yaml, "%s%s", HEAD("", NUMBER ", " VGPU), tail);
	assert_int_equal(open_rc(yaml, warn), TPH_EINVAL);
	assert_non_null(strstr(warn, "gpu-share and vgpu can't be used together"));
	snprintf(yaml, sizeof yaml, "%s%s", HEAD("", SHARE ", " VGPU), tail);
	assert_int_equal(open_rc(yaml, warn), TPH_EINVAL);
	/* A string is read as strconv.ParseBool reads it. */
	snprintf(yaml, sizeof yaml, "%s%s", HEAD("", SHARE ", deviceshare.GPUNumberEnable: 'true'"),
	         tail);
	assert_int_equal(open_rc(yaml, warn), TPH_EINVAL);
	snprintf(yaml, sizeof yaml, "%s%s", HEAD("", VGPU ", deviceshare.NodeLockEnable: true"),
	         tail);
	assert_int_equal(open_rc(yaml, warn), TPH_OK);
}

/* No device kind: nothing registered; a weight of 0 (or not an int) scores nothing. */
static void test_registrations(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HEAD("", "deviceshare.ScheduleWeight: 5") "nodes: []\n");
	assert_int_equal(p.s->ep[TPH_EP_PREDICATE].n, 1); /* predicates' own */
	pts_free(&p);
	pts_open(&p, HEAD("", VGPU ", deviceshare.ScheduleWeight: '5'") "nodes: []\n");
	assert_int_equal(p.s->ep[TPH_EP_PREDICATE].n, 2);
	assert_int_equal(p.s->ep[TPH_EP_NODE_ORDER].n, 0);
	pts_free(&p);
	pts_open(&p, HEAD("", VGPU ", deviceshare.ScheduleWeight: 5") "nodes: []\n");
	assert_int_equal(p.s->ep[TPH_EP_NODE_ORDER].n, 1);
	pts_free(&p);
	/* gpushare scores 0 whatever the weight */
	pts_open(&p, HEAD("", SHARE ", deviceshare.ScheduleWeight: 5") "nodes: []\n");
	assert_int_equal(p.s->ep[TPH_EP_NODE_ORDER].n, 0);
	pts_free(&p);
}

/* ---- gpushare ---- */

#define GS_MEM(n) "limits: {volcano.sh/gpu-memory: '" n "'}"
#define GS_NUM(n) "limits: {volcano.sh/gpu-number: '" n "'}"

static void test_gpushare_memory(void **state)
{
	(void)state;
	/* 3000 over 3 cards; card 0 holds 800 (the holder's limit), card 1 is unhealthy */
	const char *yaml = HEAD("allocate", SHARE) "nodes:\n" GNODE(
	    "n1", "3000", "3",
	    "volcano.sh/gpu-unhealthy-ids: '1,x'") "pods:\n" HOLDER("h",
	                                                            GS_MEM("800") ", "
	                                                                          "annotations: {"
	                                                                          "volcano.sh/"
	                                                                          "gpu-index: "
	                                                                          "'0'}")
	    POD("p", GS_MEM("500"));
	expect_bind(yaml, "ns/p", "volcano.sh/gpu-index", "2");
	expect_bind(yaml, "ns/p", "volcano.sh/predicate-time", NOW_NS);
	/* 200 left on card 0: taken first */
	expect_bind(
	    HEAD("allocate", SHARE) "nodes:\n" GNODE("n1", "3000", "3", "") "pods:\n" HOLDER(
	        "h", GS_MEM("800") ", annotations: {volcano.sh/gpu-index: '0'}")
	        POD("p", GS_MEM("200")),
	    "ns/p", "volcano.sh/gpu-index", "0");
	/* no card has 1001: rejected with the node's reason */
	pts p;
	pts_open(&p, HEAD("", SHARE) "nodes:\n" GNODE("n1", "3000", "3",
	                                              "") "pods:\n" POD("p", GS_MEM("1001")));
	assert_string_equal(why(&p, "ns/p", "n1"), "GpuShare no enough gpu memory on node n1");
	pts_free(&p);
	/* a node without gpu-number has no cards: a pod asking memory passes there */
	expect_feasible(
	    HEAD("", SHARE) "nodes:\n  - {name: n1, allocatable: {cpu: '8', pods: "
	                    "'10', volcano.sh/gpu-memory: '100'}}\npods:\n" POD("p", GS_MEM("500")),
	    "ns/p", "n1");
}

static void test_gpushare_number(void **state)
{
	(void)state;
	/* card 1 held by a pod whose index names it; "9" names no card */
	const char *nodes = "nodes:\n" GNODE("n1", "4000", "4", "") "pods:\n" HOLDER(
	    "h", GS_NUM("1") ", annotations: {volcano.sh/gpu-index: '1,9'}");
	char yaml[2048];
	snprintf(yaml, sizeof yaml, "%s%s%s", HEAD("allocate", NUMBER), nodes,
	         POD("p", GS_NUM("2")));
	expect_bind(yaml, "ns/p", "volcano.sh/gpu-index", "0,2");
	snprintf(yaml, sizeof yaml, "%s%s%s", HEAD("", NUMBER), nodes, POD("p", GS_NUM("4")));
	pts p;
	pts_open(&p, yaml);
	assert_string_equal(why(&p, "ns/p", "n1"), "GpuNumber no enough gpu number on node n1");
	pts_free(&p);
	/* 3 idle cards fit 3 */
	snprintf(yaml, sizeof yaml, "%s%s%s", HEAD("", NUMBER), nodes, POD("p", GS_NUM("3")));
	expect_feasible(yaml, "ns/p", "n1");
	/* a holder without a gpushare limit holds nothing */
	expect_feasible(HEAD("", NUMBER) "nodes:\n" GNODE("n1", "2000", "2", "") "pods:\n" HOLDER(
	                    "h", "annotations: {volcano.sh/gpu-index: '0'}") POD("p", GS_NUM("2")),
	                "ns/p", "n1");
}

/* A flag covers its own ask only. */
static void test_gpushare_flags(void **state)
{
	(void)state;
	/* no card left, but the pod's ask is not the enabled kind's */
	const char *full = "nodes:\n" GNODE("n1", "1000", "1", "") "pods:\n" HOLDER(
	    "h", "limits: {volcano.sh/gpu-memory: '1000', volcano.sh/gpu-number: '1'}, "
	         "annotations: {volcano.sh/gpu-index: '0'}");
	char yaml[2048];
	snprintf(yaml, sizeof yaml, "%s%s%s", HEAD("", SHARE), full, POD("p", GS_NUM("1")));
	expect_feasible(yaml, "ns/p", "n1");
	snprintf(yaml, sizeof yaml, "%s%s%s", HEAD("", NUMBER), full, POD("p", GS_MEM("1")));
	expect_feasible(yaml, "ns/p", "n1");
	snprintf(yaml, sizeof yaml, "%s%s%s", HEAD("", NUMBER), full, POD("p", GS_NUM("1")));
	expect_feasible(yaml, "ns/p", "");
}

/* A discarded allocation gives its gpushare cards back, and its annotations. */
static void test_gpushare_discard(void **state)
{
	(void)state;
	pts p;
	pts_open(&p, HEAD("", NUMBER) "nodes:\n" GNODE("n1", "1000", "1", "") "pods:\n" POD(
	                 "a", GS_NUM("1")) POD("b", GS_NUM("1")));
	char b[64];
	tph_statement st;
	tph_stmt_init(&st, p.s);
	tph_idx a = pts_task(&p, "ns/a");
	assert_int_equal(tph_stmt_allocate(&st, a, pts_node(&p, "n1")), TPH_OK);
	assert_string_equal(tph_task_annotation(p.s, a, "volcano.sh/gpu-index"), "0");
	assert_string_equal(pts_passing(&p, "ns/b", b, sizeof b), "");
	tph_stmt_discard(&st);
	assert_null(tph_task_annotation(p.s, a, "volcano.sh/gpu-index"));
	assert_string_equal(pts_passing(&p, "ns/b", b, sizeof b), "n1");
	pts_free(&p);
}

/* ---- vGPU ---- */

#define TWO_CARDS VNODE("n1", CARD4("GPU-A") CARD4("GPU-B"))

static void test_vgpu_node(void **state)
{
	(void)state;
	/* without vgpu-cores in allocatable, or with a malformed register, a node has no vGPU
	 * devices, and Volcano's predicate skips a device the node lacks */
	const char *pod = "pods:\n" POD("p", VLIM("3", "1000", "0"));
	char yaml[2048];
	snprintf(
	    yaml, sizeof yaml, "%snodes:\n%s%s%s", HEAD("", VGPU), TWO_CARDS,
	    "  - {name: n2, allocatable: {cpu: '8', pods: '10', volcano.sh/vgpu-number: '8', "
	    "volcano.sh/vgpu-memory: '100'}, annotations: {volcano.sh/node-vgpu-register: '" CARD4(
	        "GPU-C") "'}}\n" VNODE("n3", "GPU-D,4,16384,NVIDIA,true:"),
	    pod);
	expect_feasible(yaml, "ns/p", "n2,n3");
	/* a pod asking no vGPU passes everywhere */
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s", HEAD("", VGPU), TWO_CARDS,
	         POD("p", "limits: {volcano.sh/vgpu-cores: '100'}"));
	expect_feasible(yaml, "ns/p", "n1");
}

/* A holder's entry names a card by exact UUID, else the lowest-index card its UUID
 * contains; with cores 100 a card with any user is closed. */
static void test_vgpu_holders(void **state)
{
	(void)state;
	const char *node = VNODE("n1", CARD4("GPU-1") CARD4("GPU-10") CARD4("GPU-2"));
	char yaml[2048];
	const char *excl = POD("p", VLIM("2", "1", "100"));
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s%s", HEAD("allocate", VGPU), node,
	         HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-10,NVIDIA,1,0:'}"), excl);
	expect_bind(yaml, "ns/p", "volcano.sh/vgpu-ids-new",
	            "GPU-2,NVIDIA,1,100:GPU-1,NVIDIA,1,100:");
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s%s", HEAD("allocate", VGPU), node,
	         HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'x-GPU-10-y,NVIDIA,1,0:'}"),
	         excl);
	expect_bind(yaml, "ns/p", "volcano.sh/vgpu-ids-new",
	            "GPU-2,NVIDIA,1,100:GPU-10,NVIDIA,1,100:");
	/* two containers, an unknown UUID, a Releasing holder (holds nothing) */
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s%s%s", HEAD("", VGPU), node,
	         HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-2,N,1,0:;GPU-9,N,1,0:'}"),
	         "  - {name: r, namespace: ns, phase: Running, deleting: true, nodeName: n1, "
	         "annotations: {volcano.sh/vgpu-ids-new: 'GPU-1,N,1,0:'}}\n",
	         POD("p", VLIM("2", "1", "100")));
	expect_feasible(yaml, "ns/p", "n1");
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s%s", HEAD("", VGPU), node,
	         HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-2,N,1,0:;GPU-1,N,1,0:'}"),
	         POD("p", VLIM("2", "1", "100")));
	expect_feasible(yaml, "ns/p", "");
}

static void test_vgpu_mode_uuid_type(void **state)
{
	(void)state;
	char yaml[2048];
#define ONE(ann)                                                                        \
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s", HEAD("", VGPU), TWO_CARDS, \
	         POD("p", VLIM("1", "1000", "0") ", annotations: {" ann "}"))
	ONE("volcano.sh/vgpu-mode: mig");
	expect_feasible(yaml, "ns/p", "");
	ONE("volcano.sh/vgpu-mode: hami-core");
	expect_feasible(yaml, "ns/p", "n1");
	ONE("volcano.sh/vgpu-use-gpuuuid: 'GPU'");
	expect_feasible(yaml, "ns/p", ""); /* no partial match */
	ONE("volcano.sh/vgpu-use-gpuuuid: ' , GPU-B'");
	expect_feasible(yaml, "ns/p", "n1");
	ONE("volcano.sh/vgpu-use-gpuuuid: 'GPU-B', volcano.sh/vgpu-nouse-gpuuuid: 'GPU-B'");
	expect_feasible(yaml, "ns/p", ""); /* the denylist wins */
	ONE("volcano.sh/vgpu-use-gpuuuid: ','");
	expect_feasible(yaml, "ns/p", "n1"); /* nothing listed: no filter */
	ONE("nvidia.com/use-gputype: a100");
	expect_feasible(yaml, "ns/p", "");
	ONE("nvidia.com/nouse-gputype: 't4,nvidia'");
	expect_feasible(yaml, "ns/p", "");
	ONE("nvidia.com/nouse-gputype: t4");
	expect_feasible(yaml, "ns/p", "n1");
#undef ONE
	/* a card whose type lacks NVIDIA never fits; an empty card UUID fails any filter */
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s", HEAD("", VGPU),
	         VNODE("n1", "GPU-A,4,16384,Other,true,hami-core:,4,16384,NVIDIA,true,mig:"),
	         POD("p", VLIM("1", "1000", "0") ", annotations: {volcano.sh/vgpu-nouse-"
	                                         "gpuuuid: GPU-A}"));
	expect_feasible(yaml, "ns/p", "");
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s", HEAD("allocate", VGPU),
	         VNODE("n1", "GPU-A,4,16384,Other,true,hami-core:,4,16384,NVIDIA,true,mig:"),
	         POD("p", VLIM("1", "1000", "0")));
	expect_bind(yaml, "ns/p", "volcano.sh/vgpu-ids-new", ",NVIDIA,1000,0:");
}

/* The per-card rules of the search. */
static void test_vgpu_card_rules(void **state)
{
	(void)state;
	char yaml[2048];
#define CASE(node, holder, limits, want)                                                          \
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s%s", HEAD("", VGPU), VNODE("n1", node), \
	         holder, POD("p", limits));                                                       \
	expect_feasible(yaml, "ns/p", want)
	/* more cards than the node has */
	CASE(CARD4("GPU-A"), "", VLIM("2", "1", "0"), "");
	/* memory: 16384 - 16000 < 1000 */
	CASE(CARD4("GPU-A"),
	     HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-A,N,16000,0:'}"),
	     VLIM("1", "1000", "0"), "");
	/* no memory asked: the whole card, which a user with memory leaves short */
	CASE(CARD4("GPU-A"), HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-A,N,1,0:'}"),
	     "limits: {volcano.sh/vgpu-number: '1'}", "");
	CASE(CARD4("GPU-A"), HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-A,N,0,0:'}"),
	     "limits: {volcano.sh/vgpu-number: '1'}", "n1");
	/* cores: 80 + 30 > 100; a full card takes no 0-core pod; 100 wants the card alone */
	CASE(CARD4("GPU-A"), HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-A,N,1,80:'}"),
	     VLIM("1", "1", "30"), "");
	CASE(CARD4("GPU-A"),
	     HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-A,N,1,100:'}"),
	     VLIM("1", "1", "0"), "");
	CASE(CARD4("GPU-A"), HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-A,N,1,0:'}"),
	     VLIM("1", "1", "100"), "");
	/* the card's sharing count */
	CASE(CARD("GPU-A", "1", "16384"),
	     HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-A,N,1,0:'}"),
	     VLIM("1", "1", "0"), "");
	/* memory alone asks one card; memory and cores come from requests too */
	CASE(CARD4("GPU-A"), "", "limits: {volcano.sh/vgpu-memory: '16384'}", "n1");
	CASE(CARD4("GPU-A"), "", "limits: {volcano.sh/vgpu-memory: '16385'}", "");
#undef CASE
#define REQ(holder, ask, want)                                                                    \
	snprintf(                                                                                 \
	    yaml, sizeof yaml, "%snodes:\n%spods:\n%s%s", HEAD("", VGPU),                         \
	    VNODE("n1", CARD4("GPU-A")),                                                          \
	    HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-A,N," holder ":'}"),         \
	    "  - {name: p, namespace: ns, limits: {volcano.sh/vgpu-number: '1'}, requests: {" ask \
	    "}}\n");                                                                              \
	expect_feasible(yaml, "ns/p", want)
	REQ("1,0", "volcano.sh/vgpu-memory: '16383'", "n1");
	REQ("2,0", "volcano.sh/vgpu-memory: '16383'", "");
	REQ("0,90", "volcano.sh/vgpu-cores: '10'", "n1");
	REQ("0,90", "volcano.sh/vgpu-cores: '20'", "");
#undef REQ
}

#define THREE VNODE("n1", CARD4("GPU-A") CARD4("GPU-B") CARD4("GPU-C"))
/* GPU-B holds 1 pod and 4096 MiB, GPU-C 2 pods and 2048 MiB */
#define USED                                                                      \
	HOLDER("h1", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-B,N,4096,0:'}") \
	HOLDER("h2", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-C,N,1024,0:'}") \
	HOLDER("h3", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-C,N,1024,0:'}")

static void test_vgpu_policies(void **state)
{
	(void)state;
	char yaml[2048];
#define PICK(policy, want)                                                                    \
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s%s",                                \
	         HEAD("allocate", VGPU ", deviceshare.SchedulePolicy: " policy), THREE, USED, \
	         POD("p", VLIM("1", "1000", "10")));                                          \
	expect_bind(yaml, "ns/p", "volcano.sh/vgpu-ids-new", want ",NVIDIA,1000,10:")
	PICK("binpack", "GPU-B");
	PICK("spread", "GPU-A");
	PICK("other", "GPU-C");
	PICK("''", "GPU-C");
#undef PICK
}

/* The node order of task p over THREE with USED for `args`, as `want`. */
static void expect_score(const char *args, const char *limits, double want)
{
	char yaml[2048];
	snprintf(yaml, sizeof yaml,
	         "now: '2026-01-01T00:00:10Z'\nconf: |\n  actions: \"\"\n  tiers:\n  - plugins:\n"
	         "    - name: predicates\n    - name: deviceshare\n      arguments: {%s}\n"
	         "queues: [{name: default}]\nnodes:\n%spods:\n%s  - {name: p, namespace: ns, "
	         "limits: {%s}}\n",
	         args, THREE, USED, limits);
	pts p;
	pts_open(&p, yaml);
	double got = score(&p, "ns/p", "n1");
	if (fabs(got - want) > 1e-9)
		fail_msg("%s / %s: score %g, expected %g", args, limits, got, want);
	pts_free(&p);
}

static void test_vgpu_score(void **state)
{
	(void)state;
	const char *one = "volcano.sh/vgpu-number: '1', volcano.sh/vgpu-memory: '1000'";
	/* binpack: 100 * (4096 + 1000) / 16384 = 31.1 -> 31, times 3 */
	expect_score(VGPU ", deviceshare.SchedulePolicy: binpack, deviceshare.ScheduleWeight: 3",
	             one, 93);
	/* two cards: B (5096) then C (3048): 31.10 + 18.60 = 49.71 -> 50 */
	expect_score(VGPU ", deviceshare.SchedulePolicy: binpack, deviceshare.ScheduleWeight: 1",
	             "volcano.sh/vgpu-number: '2', volcano.sh/vgpu-memory: '1000'", 50);
	/* spread rewards a card without users, counted after the task joins it: 0 */
	expect_score(VGPU ", deviceshare.SchedulePolicy: spread, deviceshare.ScheduleWeight: 3",
	             one, 0);
	expect_score(VGPU ", deviceshare.ScheduleWeight: 3", one, 0);
	/* a pod asking no vGPU scores 0 */
	expect_score(VGPU ", deviceshare.SchedulePolicy: binpack, deviceshare.ScheduleWeight: 3",
	             "volcano.sh/vgpu-cores: '1'", 0);
}

static void test_vgpu_annotations(void **state)
{
	(void)state;
	char yaml[2048];
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s", HEAD("allocate", VGPU), TWO_CARDS,
	         POD("p", VLIM("2", "100", "5")));
	pts p;
	pts_open(&p, yaml);
	pts_run(&p);
	assert_int_equal(p.log->n_binds, 1);
	const tph_kv_list a = p.log->binds[0].annotations;
	const char *want[][2] = {
	    {"volcano.sh/bind-phase", "allocating"},
	    {"volcano.sh/bind-time", NOW_S},
	    {"volcano.sh/devices-to-allocate", "GPU-B,NVIDIA,100,5:GPU-A,NVIDIA,100,5:"},
	    {"volcano.sh/vgpu-ids-new", "GPU-B,NVIDIA,100,5:GPU-A,NVIDIA,100,5:"},
	    {"volcano.sh/vgpu-node", "n1"},
	    {"volcano.sh/vgpu-time", NOW_S},
	};
	assert_int_equal(a.n, 6);
	for (uint32_t i = 0; i < 6; i++) {
		assert_string_equal(a.items[i].key, want[i][0]);
		assert_string_equal(a.items[i].value, want[i][1]);
	}
	pts_free(&p);
}

/* A discarded allocation drops its annotations but keeps its vGPU usage (Volcano's release
 * reads the pod's own annotations, which lack the assignment). */
static void test_vgpu_discard_keeps_usage(void **state)
{
	(void)state;
	pts p;
	char yaml[2048], b[64];
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s%s", HEAD("", VGPU),
	         VNODE("n1", CARD4("GPU-A")), POD("a", VLIM("1", "1", "100")),
	         POD("b", VLIM("1", "1", "0")));
	pts_open(&p, yaml);
	tph_statement st;
	tph_stmt_init(&st, p.s);
	tph_idx a = pts_task(&p, "ns/a");
	assert_int_equal(tph_stmt_allocate(&st, a, pts_node(&p, "n1")), TPH_OK);
	assert_non_null(tph_task_annotation(p.s, a, "volcano.sh/vgpu-ids-new"));
	tph_stmt_discard(&st);
	assert_null(tph_task_annotation(p.s, a, "volcano.sh/vgpu-ids-new"));
	assert_string_equal(pts_passing(&p, "ns/b", b, sizeof b), ""); /* the card stays full */
	assert_string_equal(pts_passing(&p, "ns/a", b, sizeof b), "");
	pts_free(&p);
}

/* ---- exclusivity ---- */

#define RULES                                                                            \
	VGPU ", deviceshare.GPUExclusiveRules: [{app: train, team: ml}, {tier: 1}, {}, " \
	     "{workload: infer}]"

static void test_exclusive(void **state)
{
	(void)state;
	char yaml[4096];
	/* GPU-A held by a Releasing rule-0 pod, GPU-B by a rule-3 pod; a {tier: 1} rule has no
	 * string value and {} is no rule */
	const char *holders =
	    "  - {name: ra, namespace: ns, phase: Running, deleting: true, nodeName: n1, labels: "
	    "{app: train, team: ml}, annotations: {volcano.sh/vgpu-ids-new: "
	    "'GPU-A,N,0,0:'}}\n" HOLDER(
	        "rb", "labels: {workload: infer}, annotations: {volcano.sh/vgpu-ids-new: "
	              "'GPU-B,N,0,0:'}");
#define EX(labels, num, want)                                                                    \
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s%s", HEAD("", RULES), THREE, holders,  \
	         POD("p", "labels: {" labels "}, limits: {volcano.sh/vgpu-number: '" num "'}")); \
	expect_feasible(yaml, "ns/p", want)
	EX("app: train, team: ml", "2", "n1");
	EX("app: train, team: ml", "3", "");
	EX("app: train", "3", "n1");
	EX("workload: infer", "3", "");
	EX("app: train, team: ml, workload: infer", "1", "n1");
	EX("app: train, team: ml, workload: infer", "2", "");
	EX("tier: '1'", "3", "n1");
#undef EX
	/* a rule pod allocated in the session closes its card to the next one of the rule */
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s%s%s",
	         HEAD("allocate", RULES ", deviceshare.SchedulePolicy: binpack"),
	         VNODE("n1", CARD4("GPU-A") CARD4("GPU-B")),
	         POD("p1", "labels: {workload: infer}, " VLIM("1", "100", "0")),
	         POD("p2", "labels: {workload: infer}, " VLIM("1", "100", "0")),
	         POD("p3", "labels: {workload: infer}, " VLIM("1", "100", "0")));
	pts p;
	pts_open(&p, yaml);
	pts_run(&p);
	assert_int_equal(p.log->n_binds, 2);
	assert_string_equal(bind_ann(&p, "ns/p1", "volcano.sh/vgpu-ids-new"),
	                    "GPU-A,NVIDIA,100,0:");
	assert_string_equal(bind_ann(&p, "ns/p2", "volcano.sh/vgpu-ids-new"),
	                    "GPU-B,NVIDIA,100,0:");
	pts_free(&p);
	/* labels matching a rule differently do not matter to pods that ask no device */
	snprintf(yaml, sizeof yaml,
	         "%snodes:\n%spodGroups: [{name: g, namespace: ns}]\npods:\n%s%s", HEAD("", RULES),
	         THREE, POD("a", "podGroup: g, labels: {workload: infer}"),
	         POD("b", "podGroup: g"));
	pts_open(&p, yaml);
	assert_false((tph_predicate_locality(p.s) == TPH_PRED_GLOBAL));
	pts_free(&p);
	snprintf(
	    yaml, sizeof yaml, "%snodes:\n%spodGroups: [{name: g, namespace: ns}]\npods:\n%s%s",
	    HEAD("", RULES), THREE,
	    POD("a", "podGroup: g, labels: {workload: infer}, limits: {volcano.sh/vgpu-number: "
	             "'1'}"),
	    POD("b", "podGroup: g, limits: {volcano.sh/vgpu-number: '1'}"));
	pts_open(&p, yaml);
	assert_true((tph_predicate_locality(p.s) == TPH_PRED_GLOBAL));
	pts_free(&p);
}

/* spread keeps a pod off a card that holds one of its group (by podGroup, else by the Volcano
 * group-name annotation); a card's user without memory and cores does not count */
static void test_spread_group(void **state)
{
	(void)state;
	char yaml[4096];
	snprintf(
	    yaml, sizeof yaml, "%snodes:\n%spodGroups: [{name: g, namespace: ns}]\npods:\n%s%s",
	    HEAD("allocate", VGPU ", deviceshare.SchedulePolicy: binpack"), TWO_CARDS,
	    HOLDER("h", "podGroup: g, annotations: {volcano.sh/vgpu-ids-new: 'GPU-A,N,10,0:'}"),
	    POD("p", "annotations: {volcano.sh/vgpu-podgroup-policy: spread, "
	             "scheduling.volcano.sh/group-name: g}, " VLIM("1", "100", "0")));
	expect_bind(yaml, "ns/p", "volcano.sh/vgpu-ids-new", "GPU-B,NVIDIA,100,0:");
	/* without the policy annotation binpack stacks on the group's card */
	snprintf(
	    yaml, sizeof yaml, "%snodes:\n%spodGroups: [{name: g, namespace: ns}]\npods:\n%s%s",
	    HEAD("allocate", VGPU ", deviceshare.SchedulePolicy: binpack"), TWO_CARDS,
	    HOLDER("h", "podGroup: g, annotations: {volcano.sh/vgpu-ids-new: 'GPU-A,N,10,0:'}"),
	    POD("p", "podGroup: g, " VLIM("1", "100", "0")));
	expect_bind(yaml, "ns/p", "volcano.sh/vgpu-ids-new", "GPU-A,NVIDIA,100,0:");
	/* the holder's usage is zero: no conflict */
	snprintf(
	    yaml, sizeof yaml, "%snodes:\n%spodGroups: [{name: g, namespace: ns}]\npods:\n%s%s",
	    HEAD("allocate", VGPU ", deviceshare.SchedulePolicy: binpack"), TWO_CARDS,
	    HOLDER("h", "podGroup: g, annotations: {volcano.sh/vgpu-ids-new: 'GPU-B,N,0,0:'}"),
	    POD("p", "podGroup: g, annotations: {volcano.sh/vgpu-podgroup-policy: spread}, " VLIM(
	                 "1", "100", "0")));
	expect_bind(yaml, "ns/p", "volcano.sh/vgpu-ids-new", "GPU-A,NVIDIA,100,0:");
}

/* ---- the predicates plugin's part ---- */

static void test_needs_predicates(void **state)
{
	(void)state;
	const char *rest = "queues: [{name: default}]\nnodes:\n" VNODE(
	    "n1", CARD4("GPU-A")) "pods:\n" POD("p", VLIM("1", "100", "0"));
	char yaml[2048];
	/* without predicates: bound, no assignment */
	snprintf(yaml, sizeof yaml,
	         "conf: |\n  actions: allocate\n  tiers:\n  - plugins:\n    - name: deviceshare\n"
	         "      arguments: {" VGPU "}\n%s",
	         rest);
	pts p;
	pts_open(&p, yaml);
	pts_run(&p);
	assert_int_equal(p.log->n_binds, 1);
	assert_int_equal(p.log->binds[0].annotations.n, 0);
	pts_free(&p);
	/* predicates with enablePredicate off: Reserve fails, nothing binds */
	snprintf(yaml, sizeof yaml,
	         "enableFlagsDefault: false\nconf: |\n  actions: allocate\n  tiers:\n  - plugins:\n"
	         "    - name: predicates\n    - name: deviceshare\n      enablePredicate: true\n"
	         "      arguments: {" VGPU "}\n%s",
	         rest);
	pts_open(&p, yaml);
	pts_run(&p);
	assert_int_equal(p.log->n_binds, 0);
	pts_free(&p);
	/* backfill (a best-effort pod) binds anyway, without an assignment; with enablePredicate
	 * on, with one */
	const char *be = "queues: [{name: default}]\nnodes:\n" VNODE(
	    "n1", CARD4("GPU-A")) "pods:\n  - {name: p, namespace: ns, " VLIM("1", "100",
	                                                                      "0") "}\n";
	for (int on = 0; on < 2; on++) {
		snprintf(
		    yaml, sizeof yaml,
		    "enableFlagsDefault: false\nconf: |\n  actions: allocate, backfill\n  tiers:\n"
		    "  - plugins:\n    - name: predicates\n      enablePredicate: %s\n"
		    "    - name: deviceshare\n      enablePredicate: true\n"
		    "      arguments: {" VGPU "}\n%s",
		    on ? "true" : "false", be);
		pts_open(&p, yaml);
		pts_run(&p);
		assert_int_equal(p.log->n_binds, 1);
		assert_int_equal(p.log->binds[0].annotations.n, on ? 6 : 0);
		pts_free(&p);
	}
}

/* Evicting a holder gives back what its own annotation holds (NodeInfo.RemoveTask); undoing
 * the eviction takes it again. */
static void test_evict_frees(void **state)
{
	(void)state;
	pts p;
	char yaml[2048], b[64];
	snprintf(yaml, sizeof yaml, "%snodes:\n%spods:\n%s%s", HEAD("", VGPU),
	         VNODE("n1", CARD4("GPU-A")),
	         HOLDER("h", "annotations: {volcano.sh/vgpu-ids-new: 'GPU-A,N,10,10:'}"),
	         POD("p", VLIM("1", "1", "100")));
	pts_open(&p, yaml);
	assert_string_equal(pts_passing(&p, "ns/p", b, sizeof b), "");
	tph_statement st;
	tph_stmt_init(&st, p.s);
	assert_int_equal(tph_stmt_evict(&st, pts_task(&p, "ns/h"), "test"), TPH_OK);
	assert_string_equal(pts_passing(&p, "ns/p", b, sizeof b), "n1");
	tph_stmt_discard(&st);
	assert_string_equal(pts_passing(&p, "ns/p", b, sizeof b), "");
	pts_free(&p);
}

/* Decisions of the fast path equal the naive ones, with 1 and 2 threads; a shape whose tasks
 * ask differently makes the predicate non-local. */
static void test_fast_equals_naive(void **state)
{
	(void)state;
	char yaml[8192];
	size_t len = (size_t)snprintf(
	    yaml, sizeof yaml, "%snodes:\n%s%s%s",
	    HEAD("allocate", VGPU ", deviceshare.SchedulePolicy: binpack, "
	                          "deviceshare.ScheduleWeight: 2"),
	    VNODE("n1", CARD4("GPU-A") CARD4("GPU-B")), VNODE("n2", CARD4("GPU-C")),
	    VNODE("n3", CARD4("GPU-D") CARD4("GPU-E")));
	len += (size_t)snprintf(yaml + len, sizeof yaml - len,
	                        "podGroups: [{name: same, namespace: ns, minMember: 4}, {name: "
	                        "mixed, namespace: ns, minMember: 2}]\npods:\n");
	for (int i = 0; i < 6; i++)
		len += (size_t)snprintf(yaml + len, sizeof yaml - len,
		                        "  - {name: s%d, namespace: ns, podGroup: same, requests: "
		                        "{cpu: '1'}, " VLIM("1", "6000", "30") "}\n",
		                        i);
	char mixed[8192];
	snprintf(mixed, sizeof mixed, "%s", yaml);
	for (int i = 0; i < 4; i++)
		len += (size_t)snprintf(yaml + len, sizeof yaml - len,
		                        "  - {name: m%d, namespace: ns, podGroup: mixed, requests: "
		                        "{cpu: '1'}, limits: {volcano.sh/vgpu-number: '1', "
		                        "volcano.sh/vgpu-memory: '%d'}}\n",
		                        i, 3000 + 1000 * (i % 2));
	char *text[3];
	for (int mode = 0; mode < 3; mode++) {
		tph_session_opts o = {.threads = mode == 2 ? 2 : 1, .naive = mode == 1};
		pts p;
		pts_open_with(&p, yaml, &o);
		assert_true((tph_predicate_locality(p.s) == TPH_PRED_GLOBAL));
		pts_run(&p);
		text[mode] = pts_log_text(p.log);
		pts_free(&p);
	}
	assert_string_equal(text[0], text[1]);
	assert_string_equal(text[0], text[2]);
	for (int i = 0; i < 3; i++)
		free(text[i]);
	pts p;
	pts_open(&p, mixed);
	assert_false((tph_predicate_locality(p.s) == TPH_PRED_GLOBAL));
	pts_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_register),
	    cmocka_unit_test(test_parse_ids),
	    cmocka_unit_test(test_parse_lists),
	    cmocka_unit_test(test_gpu_type),
	    cmocka_unit_test(test_conflicting_kinds),
	    cmocka_unit_test(test_registrations),
	    cmocka_unit_test(test_gpushare_memory),
	    cmocka_unit_test(test_gpushare_number),
	    cmocka_unit_test(test_gpushare_flags),
	    cmocka_unit_test(test_gpushare_discard),
	    cmocka_unit_test(test_vgpu_node),
	    cmocka_unit_test(test_vgpu_holders),
	    cmocka_unit_test(test_vgpu_mode_uuid_type),
	    cmocka_unit_test(test_vgpu_card_rules),
	    cmocka_unit_test(test_vgpu_policies),
	    cmocka_unit_test(test_vgpu_score),
	    cmocka_unit_test(test_vgpu_annotations),
	    cmocka_unit_test(test_vgpu_discard_keeps_usage),
	    cmocka_unit_test(test_exclusive),
	    cmocka_unit_test(test_spread_group),
	    cmocka_unit_test(test_needs_predicates),
	    cmocka_unit_test(test_evict_frees),
	    cmocka_unit_test(test_fast_equals_naive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Cluster cache tests for what containers bring beyond their summed requests: the request of a
 * pod with init containers (restartable or not) and overhead, kube's non-zero requests, host
 * ports and images in the interned spec, the node image summaries Volcano's cache freezes at
 * each put, and quota status.used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cache/cluster_int.h"

#define MI (1024LL * 1024)

static tph_cluster *cache(void)
{
	tph_cluster *c = NULL;
	assert_int_equal(tph_cluster_create(&c), TPH_OK);
	return c;
}

static tph_snapshot *snap(tph_cluster *c)
{
	tph_snapshot *s = NULL;
	assert_int_equal(tph_cluster_snapshot(c, 0, &s, NULL), TPH_OK);
	return s;
}

static const int64_t *req_of(const tph_snapshot *s, uint32_t t)
{
	return s->tasks.req + (size_t)t * s->dims.n;
}

/* GetPodResourceRequest: max(containers + sidecars, each init beside the sidecars before it),
 * then overhead; the non-zero request counts 100m / 200Mi per container that names none. */
static void test_init_containers_and_overhead(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_res_item rq[] = {{"cpu", 1000}, {"memory", 1024 * MI}};
	tph_res_item i1[] = {{"cpu", 3000}};
	tph_res_item sc[] = {{"cpu", 500}, {"memory", 0}};
	tph_res_item i2[] = {{"cpu", 2000}, {"memory", 2048 * MI}};
	tph_res_item oh[] = {{"cpu", 100}};
	tph_init_container init[] = {{"i1", NULL, {i1, 1}, false},
	                             {"side", "envoy", {sc, 2}, true},
	                             {"i2", NULL, {i2, 2}, false}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = "p";
	p.namespace_ = "ns";
	p.requests = (tph_res_list){rq, 2};
	p.init_containers = init;
	p.n_init_containers = 3;
	p.overhead = (tph_res_list){oh, 1};
	assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_OK);
	/* only overhead: no longer best-effort; cpu 100m from no container plus 50m overhead */
	tph_res_item mem[] = {{"memory", 64 * MI}};
	tph_res_item oh2[] = {{"cpu", 50}};
	tph_pod_desc q = TPH_POD_DESC_INIT;
	q.name = "q";
	q.namespace_ = "ns";
	q.requests = (tph_res_list){mem, 1};
	q.overhead = (tph_res_list){oh2, 1};
	assert_int_equal(tph_cluster_put_pod(c, &q, NULL), TPH_OK);
	tph_pod_desc be = TPH_POD_DESC_INIT;
	be.name = "be";
	be.namespace_ = "ns";
	assert_int_equal(tph_cluster_put_pod(c, &be, NULL), TPH_OK);
	tph_snapshot *s = snap(c);
	/* containers + side: 1500m, 1Gi; i1: 3000m; side: 500m; i2 + side: 2500m, 2Gi */
	assert_int_equal(req_of(s, 0)[TPH_RES_CPU], 3100);
	assert_int_equal(req_of(s, 0)[TPH_RES_MEMORY], 2048 * MI);
	assert_int_equal(req_of(s, 0)[TPH_RES_PODS], 1000);
	assert_int_equal(s->tasks.nonzero[0], 3100);
	assert_int_equal(s->tasks.nonzero[1], 2048 * MI);
	assert_int_equal(req_of(s, 1)[TPH_RES_CPU], 50);
	assert_false(s->tasks.flags[1] & TPH_TASK_BEST_EFFORT);
	assert_int_equal(s->tasks.nonzero[2], 150);
	assert_int_equal(s->tasks.nonzero[3], 64 * MI);
	assert_true(s->tasks.flags[2] & TPH_TASK_BEST_EFFORT);
	assert_int_equal(s->tasks.nonzero[4], 100);
	assert_int_equal(s->tasks.nonzero[5], 200 * MI);
	/* the sidecar's image, then the pod's one container of no known image */
	const tph_pod_spec *sp = s->tasks.spec[0];
	assert_int_equal(sp->n_images, 1);
	assert_string_equal(tph_strtab_str(s->strs, sp->images[0]), "envoy:latest");
	assert_int_equal(sp->n_containers, 4);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static void test_init_containers_validated(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_res_item big[] = {{"cpu", TPH_RES_VALUE_MAX}};
	tph_init_container twice[] = {{"a", NULL, {NULL, 0}, false}, {"a", NULL, {NULL, 0}, false}};
	tph_init_container noname[] = {{"", NULL, {NULL, 0}, false}};
	tph_init_container side[] = {{"s", NULL, {big, 1}, true}};
	const struct {
		const tph_init_container *init;
		uint32_t n;
		const char *want;
	} cases[] = {
	    {twice, 2, "initContainers: a given twice"},
	    {noname, 1, "initContainers: item 0: empty name"},
	    {side, 1, "cpu is above 2^53 units"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		tph_diag d = {0};
		tph_pod_desc p = TPH_POD_DESC_INIT;
		p.name = "p";
		p.namespace_ = "ns";
		p.requests = (tph_res_list){big, 1};
		p.init_containers = cases[i].init;
		p.n_init_containers = cases[i].n;
		assert_int_not_equal(tph_cluster_put_pod(c, &p, &d), TPH_OK);
		if (!strstr(d.msg, cases[i].want))
			fail_msg("got \"%s\", want \"%s\"", d.msg, cases[i].want);
	}
	assert_int_equal(tph_cluster_pod_count(c), 0);
	tph_cluster_destroy(c);
}

/* Host ports are sorted into the spec with 0.0.0.0 for no address; equal ones are refused. */
static void test_host_ports(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_host_port ok[] = {{8080, TPH_PROTO_UDP, "10.0.0.1"}, {80, TPH_PROTO_TCP, NULL}};
	tph_host_port dup[] = {{80, TPH_PROTO_TCP, NULL}, {80, TPH_PROTO_TCP, "0.0.0.0"}};
	tph_host_port zero[] = {{0, TPH_PROTO_TCP, NULL}};
	tph_pod_desc p = TPH_POD_DESC_INIT;
	p.name = "p";
	p.namespace_ = "ns";
	p.host_ports = ok;
	p.n_host_ports = 2;
	assert_int_equal(tph_cluster_put_pod(c, &p, NULL), TPH_OK);
	tph_diag d = {0};
	p.host_ports = dup;
	assert_int_equal(tph_cluster_put_pod(c, &p, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "hostPorts: port 80/TCP on 0.0.0.0 given twice"));
	p.host_ports = zero;
	p.n_host_ports = 1;
	assert_int_equal(tph_cluster_put_pod(c, &p, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "port 0 out of 1..65535"));
	tph_snapshot *s = snap(c);
	const tph_pod_spec *sp = s->tasks.spec[0];
	assert_int_equal(sp->n_host_ports, 2);
	uint32_t tcp = sp->host_ports[0].protocol == TPH_PROTO_TCP ? 0 : 1;
	assert_int_equal(sp->host_ports[tcp].port, 80);
	assert_string_equal(tph_strtab_str(s->strs, sp->host_ports[tcp].ip), "0.0.0.0");
	assert_string_equal(tph_strtab_str(s->strs, sp->host_ports[1 - tcp].ip), "10.0.0.1");
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

static int put_images(tph_cluster *c, const char *node, const char *image, int64_t size)
{
	const char *names[] = {image, image};
	tph_node_image im[] = {{{names, 1}, size}, {{names + 1, 1}, size + 1}};
	tph_node_desc n = TPH_NODE_DESC_INIT;
	n.name = node;
	n.images = im;
	n.n_images = 2; /* the second entry repeats the name: the first one counts */
	return tph_cluster_put_node(c, &n, NULL);
}

/* The image of `node` as its meta summarises it: size and NumNodes. */
static void summary(tph_cluster *c, const char *node, int64_t size, uint32_t count)
{
	tph_snapshot *s = snap(c);
	for (uint32_t i = 0; i < s->nodes.n; i++) {
		if (strcmp(tph_strtab_str(s->strs, s->nodes.name[i]), node))
			continue;
		const tph_node_meta *m = s->nodes.meta[i];
		assert_int_equal(m->n_images, 1);
		assert_int_equal(m->images[0].size, size);
		assert_int_equal(m->images[0].num_nodes, count);
		tph_snapshot_release(s);
		return;
	}
	fail_msg("no node %s", node);
}

/* addNodeImageStates / removeNodeImageStates: a node's summary is frozen when it is put. */
static void test_image_states(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	assert_int_equal(put_images(c, "n1", "x", 10), TPH_OK);
	assert_int_equal(put_images(c, "n2", "x", 20), TPH_OK);
	summary(c, "n1", 10, 1); /* not updated by n2 */
	summary(c, "n2", 10, 2); /* the size of the first node that brought x */
	assert_int_equal(put_images(c, "n1", "x", 30), TPH_OK); /* an update counts n1 once */
	summary(c, "n1", 10, 2);
	assert_int_equal(tph_cluster_remove_node(c, "n2", NULL), TPH_OK);
	assert_int_equal(put_images(c, "n3", "x", 40), TPH_OK);
	summary(c, "n3", 10, 2);
	assert_int_equal(tph_cluster_remove_node(c, "n1", NULL), TPH_OK);
	assert_int_equal(tph_cluster_remove_node(c, "n3", NULL), TPH_OK);
	assert_int_equal(put_images(c, "n4", "x", 50), TPH_OK); /* x was gone: a new state */
	summary(c, "n4", 50, 1);
	/* a refused put changes no count */
	const char *none[] = {""};
	tph_node_image bad = {{none, 1}, 1};
	tph_node_desc n = TPH_NODE_DESC_INIT;
	n.name = "n5";
	n.images = &bad;
	n.n_images = 1;
	tph_diag d = {0};
	assert_int_equal(tph_cluster_put_node(c, &n, &d), TPH_EINVAL);
	assert_non_null(strstr(d.msg, "images: item 0: empty name"));
	assert_int_equal(put_images(c, "n6", "x", 60), TPH_OK);
	summary(c, "n6", 50, 2);
	tph_cluster_destroy(c);
}

static void test_quota_used(void **state)
{
	(void)state;
	tph_cluster *c = cache();
	tph_res_item hard[] = {{"cpu", 4000}}, used[] = {{"cpu", 1500}, {"count/pods", 3000}};
	tph_quota_desc q = TPH_QUOTA_DESC_INIT;
	q.name = "q";
	q.namespace_ = "ns";
	q.hard = (tph_res_list){hard, 1};
	q.used = (tph_res_list){used, 2};
	assert_int_equal(tph_cluster_put_quota(c, &q, NULL), TPH_OK);
	tph_snapshot *s = snap(c);
	assert_int_equal(s->quotas.used[TPH_RES_CPU], 1500);
	assert_int_equal(s->quotas.used[s->dims.n - 1], 3000);
	assert_int_equal(s->quotas.hard_mask[0], 1u << TPH_RES_CPU);
	tph_snapshot_release(s);
	tph_cluster_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_init_containers_and_overhead),
	    cmocka_unit_test(test_init_containers_validated),
	    cmocka_unit_test(test_host_ports),
	    cmocka_unit_test(test_image_states),
	    cmocka_unit_test(test_quota_used),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

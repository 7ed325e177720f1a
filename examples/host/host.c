/* A host that embeds tephra: it keeps a cluster cache up to date through the put API, and every
 * scheduling cycle takes a snapshot, runs a session over it and applies the session's decisions
 * back to the cache (tph_cluster_apply), as Volcano's scheduler loop does with its cache. The
 * host plays the kubelet too: a pod bound in one cycle is Running in the next, and a pod
 * evicted in one cycle is gone in the next.
 *
 * Four cycles on three 4-cpu nodes: a batch job fills the cluster; an urgent job preempts two of
 * its pods and is pipelined onto the room they are releasing; once they are gone it binds there;
 * a job too big for any node stays pending. Prints each cycle's decisions and a summary line
 * (examples/host/expected.txt). */
#include <stdio.h>
#include <string.h>

#include <tephra/tephra.h>

#define MAX_PODS 32

/* What the host knows of a pod (its own mirror of the API server). */
typedef struct host_pod {
	char name[32];
	char group[32];
	const char *pclass;
	int64_t cpu;        /* millicores */
	char node[32];      /* "" until bound */
	int bound, evicted; /* decided last cycle: the kubelet acts on them this cycle */
} host_pod;

typedef struct host {
	tph_cluster *cache;
	tph_conf *conf;
	tph_diag d;
	host_pod pods[MAX_PODS];
	int n_pods;
} host;

static const char conf_text[] = "actions: \"enqueue, allocate, preempt\"\n"
                                "tiers:\n"
                                "- plugins: [{name: priority}, {name: gang}, {name: conformance}]\n"
                                "- plugins: [{name: predicates}, {name: proportion},"
                                " {name: nodeorder}]\n";

static int fail(host *h, const char *what, int rc)
{
	fprintf(stderr, "host: %s: %s (%s)\n", what, h->d.msg, tph_strerror(rc));
	return rc;
}

static int put_pod(host *h, const host_pod *p, tph_pod_phase phase)
{
	tph_res_item req[] = {{"cpu", p->cpu}, {"memory", p->cpu << 20}};
	tph_pod_desc d =
	    TPH_POD_DESC_INIT; /* Pending, unbound, preemptable: Kubernetes' defaults */
	d.name = p->name;
	d.namespace_ = "default";
	d.pod_group = p->group;
	d.priority_class = p->pclass;
	d.requests = (tph_res_list){req, 2};
	d.phase = phase;
	d.node_name = p->node[0] ? p->node : NULL;
	return tph_cluster_put_pod(h->cache, &d, &h->d);
}

static int setup(host *h)
{
	int rc = tph_cluster_create(&h->cache);
	if (rc)
		return rc;
	tph_queue_desc q = TPH_QUEUE_DESC_INIT; /* weight 1, open, reclaimable */
	q.name = "default";
	tph_priority_class_desc high = TPH_PRIORITY_CLASS_DESC_INIT, low = high;
	high.name = "urgent";
	high.value = 1000;
	low.name = "batch";
	low.value = 10;
	if ((rc = tph_cluster_put_queue(h->cache, &q, &h->d)) ||
	    (rc = tph_cluster_put_priority_class(h->cache, &high, &h->d)) ||
	    (rc = tph_cluster_put_priority_class(h->cache, &low, &h->d)))
		return rc;
	for (int i = 0; i < 3 && !rc; i++) {
		char name[16];
		snprintf(name, sizeof name, "node-%d", i);
		tph_res_item alloc[] = {{"cpu", 4000}, {"memory", 16LL << 30}, {"pods", 110000}};
		tph_node_desc n = TPH_NODE_DESC_INIT; /* ready and schedulable */
		n.name = name;
		n.allocatable = (tph_res_list){alloc, 3};
		rc = tph_cluster_put_node(h->cache, &n, &h->d);
	}
	return rc ? rc
	          : tph_conf_load_string(conf_text, sizeof conf_text - 1, "host.conf", true,
	                                 &h->conf, &h->d);
}

/* A job arrives: its podgroup (gang of min pods) and its pods, Pending. */
static int arrive(host *h, const char *job, const char *pclass, int pods, int min, int64_t cpu)
{
	tph_podgroup_desc g = TPH_PODGROUP_DESC_INIT; /* queue "default", Pending */
	g.name = job;
	g.namespace_ = "default";
	g.min_member = min;
	g.priority_class = pclass;
	int rc = tph_cluster_put_podgroup(h->cache, &g, &h->d);
	for (int i = 0; i < pods && !rc && h->n_pods < MAX_PODS; i++) {
		host_pod *p = &h->pods[h->n_pods++];
		memset(p, 0, sizeof *p);
		snprintf(p->name, sizeof p->name, "%s-%d", job, i);
		snprintf(p->group, sizeof p->group, "%s", job);
		p->pclass = pclass;
		p->cpu = cpu;
		rc = put_pod(h, p, TPH_POD_PENDING);
	}
	return rc;
}

/* The kubelet: what was bound last cycle now runs; what was evicted is gone. */
static int kubelet(host *h)
{
	int rc = TPH_OK;
	for (int i = 0; i < h->n_pods && !rc; i++) {
		host_pod *p = &h->pods[i];
		if (p->bound)
			rc = put_pod(h, p, TPH_POD_RUNNING);
		else if (p->evicted)
			rc = tph_cluster_remove_pod(h->cache, "default", p->name, &h->d);
		p->bound = p->evicted = 0;
	}
	return rc;
}

static host_pod *find(host *h, const char *key) /* "default/<name>" */
{
	for (int i = 0; i < h->n_pods; i++)
		if (!strcmp(key + strlen("default/"), h->pods[i].name))
			return &h->pods[i];
	return NULL;
}

/* The phase the session gave podgroup default/<group>. */
static const char *phase_of(const tph_decision_log *log, const char *group)
{
	for (uint32_t i = 0; i < log->n_phases; i++)
		if (!strcmp(log->phases[i].podgroup + strlen("default/"), group))
			return log->phases[i].phase;
	return "unknown";
}

/* Mirror the decisions in the host's own records, and print them. */
static void report(host *h, int cycle, const tph_decision_log *log)
{
	printf("cycle %d: %u bound, %u evicted, %u pipelined, %u pending\n", cycle, log->n_binds,
	       log->n_evictions, log->n_pipelined, log->n_pending);
	for (uint32_t i = 0; i < log->n_binds; i++) {
		host_pod *p = find(h, log->binds[i].pod);
		if (p) {
			snprintf(p->node, sizeof p->node, "%s", log->binds[i].node);
			p->bound = 1;
		}
		printf("  bind %s -> %s\n", log->binds[i].pod, log->binds[i].node);
	}
	for (uint32_t i = 0; i < log->n_evictions; i++) {
		host_pod *p = find(h, log->evictions[i].pod);
		if (p)
			p->evicted = 1;
		printf("  evict %s (%s)\n", log->evictions[i].pod, log->evictions[i].reason);
	}
	for (uint32_t i = 0; i < log->n_pipelined; i++)
		printf("  pipeline %s -> %s\n", log->pipelined[i].pod, log->pipelined[i].node);
	for (uint32_t i = 0; i < log->n_pending; i++) {
		const tph_pending_row *r = &log->pending[i];
		host_pod *p = find(h, r->pod);
		if (r->n_reasons || !p)
			printf("  pending %s: %s\n", r->pod, r->n_reasons ? r->reasons[0] : "");
		else /* no node was tried (its queue had no room left, say): say where it stands */
			printf("  pending %s: podgroup %s is %s\n", r->pod, p->group,
			       phase_of(log, p->group));
	}
}

/* One scheduling cycle: snapshot, session, apply. */
static int schedule(host *h, int cycle)
{
	tph_snapshot *snap = NULL;
	tph_session *s = NULL;
	int rc = tph_cluster_snapshot(h->cache, 0, &snap, &h->d);
	if (!rc)
		rc = tph_session_open(snap, h->conf, NULL, &s, &h->d);
	tph_snapshot_release(snap); /* the session holds it */
	if (!rc)
		rc = tph_session_run(s, &h->d);
	if (!rc)
		rc = tph_session_close(s, &h->d);
	if (!rc)
		rc = tph_cluster_apply(h->cache, s, &h->d);
	if (!rc)
		report(h, cycle, tph_session_decisions(s));
	tph_session_free(s);
	return rc;
}

int main(void)
{
	host h = {0}; /* warnings, if any, go to stderr: h.d.warn is NULL */
	int rc = setup(&h);
	for (int cycle = 1; cycle <= 4 && !rc; cycle++) {
		if ((rc = kubelet(&h)))
			break;
		if (cycle == 1)
			rc = arrive(&h, "batch", "batch", 6, 1, 2000);
		else if (cycle == 2)
			rc = arrive(&h, "urgent", "urgent", 2, 2, 2000);
		else if (cycle == 4)
			rc = arrive(&h, "huge", "batch", 1, 1, 8000);
		if (!rc)
			rc = schedule(&h, cycle);
	}
	if (rc)
		fail(&h, "cycle", rc);
	tph_conf_free(h.conf);
	tph_cluster_destroy(h.cache);
	return rc ? 1 : 0;
}

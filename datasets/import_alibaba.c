/* `tephra import alibaba`: the Alibaba openb GPU trace (2023) as a scheduling backlog. Nodes
 * come from the node list as they are; pods become pending tasks in arrival order, each its own
 * gang unless --gang-window groups identical pods created together. See datasets/README.md. */
#include "cmdline.h"
#include "import.h"

#include <stdlib.h>
#include <string.h>

#define MIB ((int64_t)1 << 20)
/* The trace counts seconds from its start; tephra places the start here (2023-01-01). */
#define TRACE_EPOCH 1672531200

static const char alibaba_usage[] =
    "usage: tephra import alibaba DIR [options] -o FILE\n"
    "\n"
    "DIR holds openb_node_list_all_node.csv and openb_pod_list_default.csv (the files of\n"
    "shared/datasets/alibaba-openb-gpu2023). Every pod becomes a pending task; see\n"
    "datasets/README.md for the mapping.\n"
    "\n"
    "Options:\n"
    "  --pods FILE         another pod list of the same columns (e.g. upstream's gpushare;\n"
    "                      `-`: standard input)\n"
    "  --at SECONDS        keep only pods alive then (creation <= T < deletion)\n"
    "  --limit N           keep the first N pods in arrival order\n"
    "  --gang-window S     identical pods created within S seconds form one gang (max 128)\n"
    "  --queues N          spread gangs round-robin over N queues (default 1)\n"
    "  --inqueue           podgroups start Inqueue (default Pending: enqueue admits them)\n"
    "  --durations         annotate each podgroup with its run time in seconds\n"
    "                      (tephra.io/duration: deletion - scheduled, for tephra simulate)\n"
    "  -o, --output FILE   where to write (`-` for standard output)\n"
    "  -h, --help          show this help\n";

typedef struct ali_pod {
	char name[40];
	int64_t cpu, mem_mib, gpu_milli_total, created, deleted, run_s;
	uint8_t prio;
	uint32_t row;
} ali_pod;

typedef struct ali_opts {
	const char *dir, *pods, *out;
	int64_t at;
	bool has_at, inqueue, durations;
	uint32_t limit, queues, window;
} ali_opts;

/* Per pod, so that a gang of 128 stays within one value's limit (2^53: tephra/resource.h). */
#define MAX_CPU_MILLI 1000000000 /* a million cores */
#define MAX_POD_MIB   (1 << 26)  /* 64 TiB */
#define MAX_NODE_MIB  ((int64_t)1 << 33)
#define MAX_GPUS      1000000
#define MAX_NAME      253 /* a Kubernetes object name */
#define MAX_TOTAL_MIB (CSV_TOTAL_MAX / MIB)

static const char *const prio_names[] = {"high", "normal", "low"};

/* LS and Guaranteed are latency-sensitive, Burstable in between, BE best effort. */
static uint8_t qos_prio(const char *qos)
{
	if (!strcmp(qos, "LS") || !strcmp(qos, "Guaranteed"))
		return 0;
	return !strcmp(qos, "Burstable") ? 1 : 2;
}

static bool parse_pod(const csv_reader *c, ali_pod *p)
{
	int64_t ngpu, gmilli, sched = 0;
	if (!csv_name(c, 0, "name", sizeof p->name - 1, false) ||
	    !csv_int(c, 1, "cpu_milli", 0, MAX_CPU_MILLI, false, &p->cpu) ||
	    !csv_int(c, 2, "memory_mib", 0, MAX_POD_MIB, false, &p->mem_mib) ||
	    !csv_int(c, 3, "num_gpu", 0, MAX_GPUS, false, &ngpu) ||
	    !csv_int(c, 4, "gpu_milli", 0, 1000, true, &gmilli) ||
	    !csv_int(c, 8, "creation_time", 0, CSV_MAX_TIME, false, &p->created) ||
	    !csv_int(c, 9, "deletion_time", 0, CSV_MAX_TIME, true, &p->deleted) ||
	    (c->n > 10 && !csv_int(c, 10, "scheduled_time", 0, CSV_MAX_TIME, true, &sched)))
		return false;
	/* Run time from the start; a pod never scheduled is counted from its creation. */
	int64_t from = c->n > 10 && *c->field[10] ? sched : p->created;
	p->run_s = p->deleted > from ? p->deleted - from : 0;
	snprintf(p->name, sizeof p->name, "%s", c->field[0]);
	p->gpu_milli_total = ngpu * (gmilli ? gmilli : 1000);
	p->prio = qos_prio(c->field[6]);
	return true;
}

/* Pods are written by name into one namespace: a name given twice would not load. */
static int distinct_pods(const ali_pod *p, uint32_t n, const char *path)
{
	csv_names names = {0};
	int rc = 0;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = csv_names_add(&names, p[i].name, p[i].row);
	rc = rc ? rc : csv_names_check(&names, path, "name");
	csv_names_free(&names);
	return rc;
}

static bool keep_pod(const ali_opts *o, const ali_pod *p)
{
	return !o->has_at || (p->created <= o->at && o->at < p->deleted);
}

static int read_pods(const ali_opts *o, const char *path, ali_pod **out, uint32_t *n_out)
{
	static const char *const hdr[] = {"name", "cpu_milli", "memory_mib", "num_gpu",
	                                  "gpu_milli"};
	csv_reader c;
	if (csv_open(&c, path))
		return -1;
	ali_pod *pods = NULL;
	uint32_t n = 0, cap = 0;
	int64_t mib = 0;
	int rc = csv_header(&c, hdr, 5);
	while (!rc && csv_next(&c) == 1) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			ali_pod *np = realloc(pods, cap * sizeof *np);
			if (!np) {
				rc = -1;
				break;
			}
			pods = np;
		}
		pods[n].row = c.line_no;
		if (!parse_pod(&c, &pods[n]))
			rc = -1;
		else if (keep_pod(o, &pods[n]))
			rc = csv_sum(&c, "memory_mib", pods[n++].mem_mib, MAX_TOTAL_MIB, &mib) ? 0
			                                                                       : -1;
	}
	if (csv_close(&c))
		rc = -1;
	*out = pods;
	*n_out = n;
	return rc;
}

static int by_arrival(const void *a, const void *b)
{
	const ali_pod *x = a, *y = b;
	if (x->created != y->created)
		return x->created < y->created ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static bool same_shape(const ali_pod *a, const ali_pod *b)
{
	return a->cpu == b->cpu && a->mem_mib == b->mem_mib &&
	       a->gpu_milli_total == b->gpu_milli_total && a->prio == b->prio;
}

/* Gang k covers pods [start[k], start[k + 1]). */
static uint32_t form_gangs(const ali_opts *o, const ali_pod *p, uint32_t n, uint32_t *start)
{
	uint32_t g = 0;
	for (uint32_t i = 0; i < n; i++) {
		bool join = g && i - start[g - 1] < 128 && same_shape(&p[start[g - 1]], &p[i]) &&
		            p[i].created - p[start[g - 1]].created <= (int64_t)o->window;
		if (!join || !o->window)
			start[g++] = i;
	}
	start[g] = n;
	return g;
}

static void write_requests(gen_out *w, const ali_pod *p, int64_t times)
{
	out_str(w, "{cpu: ");
	out_milli(w, p->cpu * times);
	out_str(w, ", memory: ");
	out_bytes(w, p->mem_mib * MIB * times);
	if (p->gpu_milli_total) {
		out_str(w, ", nvidia.com/gpu: ");
		out_milli(w, p->gpu_milli_total * times);
	}
	out_str(w, "}");
}

static bool read_node(const csv_reader *c, int64_t *v, int64_t *mib)
{
	return csv_name(c, 0, "sn", MAX_NAME, false) &&
	       csv_int(c, 1, "cpu_milli", 0, MAX_CPU_MILLI, false, &v[0]) &&
	       csv_int(c, 2, "memory_mib", 0, MAX_NODE_MIB, false, &v[1]) &&
	       csv_int(c, 3, "gpu", 0, MAX_GPUS, true, &v[2]) &&
	       csv_name(c, 4, "model", MAX_NAME, true) &&
	       csv_sum(c, "memory_mib", v[1], MAX_TOTAL_MIB, mib);
}

static void write_node(gen_out *w, const csv_reader *c, const int64_t *v)
{
	out_fmt(w, "  - {name: %s, allocatable: {cpu: ", c->field[0]);
	out_milli(w, v[0]);
	out_str(w, ", memory: ");
	out_bytes(w, v[1] * MIB);
	out_str(w, ", pods: \"110\"");
	if (v[2]) {
		out_str(w, ", nvidia.com/gpu: ");
		out_milli(w, v[2] * 1000);
	}
	out_fmt(w, "}, labels: {kubernetes.io/hostname: %s", c->field[0]);
	if (*c->field[4])
		out_fmt(w, ", alibabacloud.com/gpu-card-model: %s", c->field[4]);
	out_str(w, "}}\n");
}

static int write_nodes(gen_out *w, const char *dir)
{
	static const char *const hdr[] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
	char path[4096];
	snprintf(path, sizeof path, "%s/openb_node_list_all_node.csv", dir);
	csv_reader c;
	if (csv_open(&c, path))
		return -1;
	csv_names names = {0};
	int rc = csv_header(&c, hdr, 5);
	out_str(w, "nodes:\n");
	int64_t v[3], mib = 0;
	while (!rc && csv_next(&c) == 1) {
		if (!read_node(&c, v, &mib) || csv_names_add(&names, c.field[0], c.line_no))
			rc = -1;
		else
			write_node(w, &c, v);
	}
	rc = csv_close(&c) || rc ? -1 : csv_names_check(&names, path, "sn");
	csv_names_free(&names);
	return rc;
}

static void write_queues(gen_out *w, const ali_opts *o)
{
	out_str(w, "priorityClasses:\n"
	           "  - {name: high, value: 1000}\n"
	           "  - {name: normal, value: 100}\n"
	           "  - {name: low, value: 10}\n"
	           "queues:\n");
	for (uint32_t q = 0; q < o->queues; q++)
		out_fmt(w, "  - {name: q%u, weight: 1}\n", q);
}

static int64_t longest_run(const ali_pod *p, uint32_t a, uint32_t b)
{
	int64_t m = 0;
	for (uint32_t i = a; i < b; i++)
		m = p[i].run_s > m ? p[i].run_s : m;
	return m;
}

static void write_groups(gen_out *w, const ali_opts *o, const ali_pod *p, const uint32_t *start,
                         uint32_t ng)
{
	out_str(w, "podGroups:\n");
	for (uint32_t g = 0; g < ng; g++) {
		const ali_pod *f = &p[start[g]];
		uint32_t size = start[g + 1] - start[g];
		out_fmt(
		    w,
		    "  - {name: g%u, namespace: openb, queue: q%u, minMember: %u, minResources: ",
		    g, g % o->queues, size);
		write_requests(w, f, size);
		out_fmt(w, ", phase: %s, priorityClassName: %s, creationTimestamp: ",
		        o->inqueue ? "Inqueue" : "Pending", prio_names[f->prio]);
		out_time(w, TRACE_EPOCH + f->created);
		if (o->durations) /* the gang's longest pod */
			out_fmt(w, ", annotations: {tephra.io/duration: \"%lld\"}",
			        (long long)longest_run(p, start[g], start[g + 1]));
		out_str(w, "}\n");
	}
}

static void write_pods(gen_out *w, const ali_pod *p, const uint32_t *start, uint32_t ng)
{
	out_str(w, "pods:\n");
	for (uint32_t g = 0; g < ng; g++)
		for (uint32_t i = start[g]; i < start[g + 1]; i++) {
			out_fmt(w, "  - {name: %s, namespace: openb, podGroup: g%u, requests: ",
			        p[i].name, g);
			write_requests(w, &p[i], 1);
			out_fmt(w, ", priorityClassName: %s, creationTimestamp: ",
			        prio_names[p[i].prio]);
			out_time(w, TRACE_EPOCH + p[i].created);
			out_str(w, "}\n");
		}
}

static int write_all(const ali_opts *o, ali_pod *pods, uint32_t n, uint32_t *start)
{
	uint32_t ng = form_gangs(o, pods, n, start);
	out_file of;
	if (import_open_out(&of, o->out) != 0)
		return -1;
	gen_out *w = malloc(sizeof *w);
	if (!w) {
		out_file_discard(&of);
		return -1;
	}
	out_init(w, of.f);
	int64_t now = o->has_at ? o->at : (n ? pods[n - 1].created : 0);
	import_header(w, "alibaba-openb-gpu2023", o->pods ? o->pods : o->dir,
	              TRACE_EPOCH + now + 1);
	write_queues(w, o);
	int rc = write_nodes(w, o->dir);
	if (!rc) {
		write_groups(w, o, pods, start, ng);
		write_pods(w, pods, start, ng);
	}
	if (!import_close_out(w, &of, rc == 0))
		rc = -1;
	free(w);
	if (!rc)
		fprintf(stderr, "tephra import: wrote %s: %u pods in %u gangs\n", o->out, n, ng);
	return rc;
}

enum {
	OPT_PODS = CMD_LONG,
	OPT_AT,
	OPT_LIMIT,
	OPT_WINDOW,
	OPT_QUEUES,
	OPT_INQUEUE,
	OPT_DURATIONS
};

static const struct option alibaba_longs[] = {
    {"help", no_argument, NULL, 'h'},
    {"output", required_argument, NULL, 'o'},
    {"pods", required_argument, NULL, OPT_PODS},
    {"at", required_argument, NULL, OPT_AT},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"gang-window", required_argument, NULL, OPT_WINDOW},
    {"queues", required_argument, NULL, OPT_QUEUES},
    {"inqueue", no_argument, NULL, OPT_INQUEUE},
    {"durations", no_argument, NULL, OPT_DURATIONS},
    {NULL, 0, NULL, 0},
};

#define MAX_VALUE 1000000000u /* of --at, --limit and --gang-window */

/* One option or operand; 0 to go on, 2 after a usage error, -1 after --help. */
static int alibaba_arg(const cmd_args *a, int c, void *ud)
{
	ali_opts *o = ud;
	uint32_t at;
	switch (c) {
	case 'h':
		fputs(alibaba_usage, stdout);
		return -1;
	case 'o':
		o->out = a->arg;
		return 0;
	case OPT_PODS:
		o->pods = a->arg;
		return 0;
	case OPT_AT:
		o->has_at = true;
		if (!cmd_u32(a, "at", 0, MAX_VALUE, &at))
			return 2;
		o->at = at;
		return 0;
	case OPT_LIMIT:
		return cmd_u32(a, "limit", 0, MAX_VALUE, &o->limit) ? 0 : 2;
	case OPT_WINDOW:
		return cmd_u32(a, "gang-window", 0, MAX_VALUE, &o->window) ? 0 : 2;
	case OPT_QUEUES:
		return cmd_u32(a, "queues", 1, 10000, &o->queues) ? 0 : 2;
	case OPT_INQUEUE:
		o->inqueue = true;
		return 0;
	case OPT_DURATIONS:
		o->durations = true;
		return 0;
	case CMD_OPERAND:
		return cmd_operand(a, &o->dir);
	default:
		return 2; /* CMD_ERROR: said already */
	}
}

static int parse_alibaba(int argc, char **argv, ali_opts *o)
{
	cmd_args a;
	cmd_args_init(&a, "import alibaba", argc, argv, "ho:", alibaba_longs);
	int rc = cmd_parse(&a, alibaba_arg, o);
	if (rc)
		return rc;
	if (!o->dir)
		return cmd_usage_error("import alibaba", "no trace folder given");
	if (!o->out)
		return cmd_usage_error("import alibaba", "no output file (-o FILE)");
	return 0;
}

int import_alibaba(int argc, char **argv)
{
	ali_opts o = {.queues = 1};
	int rc = parse_alibaba(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : 2;
	char path[4096];
	snprintf(path, sizeof path, "%s/openb_pod_list_default.csv", o.dir);
	ali_pod *pods = NULL;
	uint32_t n = 0;
	const char *list = o.pods ? o.pods : path;
	rc = read_pods(&o, list, &pods, &n);
	if (n)
		qsort(pods, n, sizeof *pods, by_arrival);
	n = o.limit && o.limit < n ? o.limit : n;
	if (!rc)
		rc = distinct_pods(pods, n, list);
	uint32_t *start = rc ? NULL : malloc((n + 1) * sizeof *start);
	rc = start ? write_all(&o, pods, n, start) : -1;
	free(start);
	free(pods);
	return rc ? 2 : 0;
}

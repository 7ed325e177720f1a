/* `tephra import itp`: Microsoft ITP job traces (ElasticFlow raw traces) as a backlog of GPU
 * gangs on an assumed fleet of 8-GPU servers. Reads clusterNN.csv straight out of the tarball
 * through `tar`, or a CSV extracted by hand. See datasets/README.md for the mapping. */
#include "cmdline.h"
#include "import.h"

#include <stdlib.h>
#include <string.h>

#define GIB ((int64_t)1 << 30)
/* Collection started on 2021-03-04 (the README of the traces). */
#define TRACE_EPOCH 1614816000

static const char itp_usage[] =
    "usage: tephra import itp TRACE [options] -o FILE\n"
    "\n"
    "TRACE is raw-traces.tar.gz (shared/datasets/msft-itp-elasticflow; read through `tar`) or\n"
    "one clusterNN.csv extracted from it (`-`: that CSV on standard input). Each job becomes\n"
    "a pending gang of 8-GPU tasks (or one task when it asks for 8 GPUs or fewer); see\n"
    "datasets/README.md for the mapping.\n"
    "\n"
    "Options:\n"
    "  --cluster NN|all    which cluster file of the archive (default all; one queue each)\n"
    "  --at SECONDS        keep only jobs running then (submission <= T < submission+duration)\n"
    "  --limit N           keep the first N jobs in arrival order\n"
    "  --nodes N           8-GPU servers in the assumed fleet (default 256)\n"
    "  -o, --output FILE   where to write (`-` for standard output)\n"
    "  -h, --help          show this help\n";

/* The assumed server: 8 GPUs, 64 cores, 512Gi; a task gets 6 cores and 48Gi per GPU. */
#define NODE_GPUS    8
#define NODE_CPU     64000
#define NODE_MEM     (512 * GIB)
#define CPU_PER_GPU  6000
#define MEM_PER_GPU  (48 * GIB)
#define MAX_CLUSTERS 10
/* A job's GPUs at most (the traces' largest is 8930), and all jobs' together: their memory
 * stays within a cluster's total (CSV_TOTAL_MAX). */
#define MAX_JOB_GPUS   65536
#define MAX_TOTAL_GPUS (CSV_TOTAL_MAX / MEM_PER_GPU)

typedef struct itp_job {
	char id[40];
	int64_t submit, duration, gpus;
	uint32_t cluster, row;
} itp_job;

typedef struct itp_opts {
	const char *trace, *out;
	int cluster; /* 1..10, 0: all */
	int64_t at;
	bool has_at;
	uint32_t limit, nodes;
} itp_opts;

typedef struct job_vec {
	itp_job *v;
	uint32_t n, cap;
	int64_t gpus; /* of the jobs kept */
} job_vec;

static int push(job_vec *jv, const itp_job *j)
{
	if (jv->n == jv->cap) {
		uint32_t cap = jv->cap ? jv->cap * 2 : 4096;
		itp_job *nv = realloc(jv->v, cap * sizeof *nv);
		if (!nv)
			return -1;
		jv->v = nv;
		jv->cap = cap;
	}
	jv->v[jv->n++] = *j;
	return 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && !strcmp(s + n - m, suffix);
}

/* One cluster's CSV (or standard input), not the archive. */
static bool is_csv(const char *trace)
{
	return ends_with(trace, ".csv") || !strcmp(trace, "-");
}

static bool read_job(csv_reader *c, itp_job *j)
{
	return csv_name(c, 0, "job_id", sizeof j->id - 1, false) &&
	       csv_int(c, 1, "submission_time", 0, CSV_MAX_TIME, false, &j->submit) &&
	       csv_int(c, 2, "duration", 0, CSV_MAX_TIME, false, &j->duration) &&
	       csv_int(c, 3, "num_gpu", 0, MAX_JOB_GPUS, false, &j->gpus);
}

static int read_rows(csv_reader *c, const itp_opts *o, uint32_t cluster, job_vec *jv)
{
	static const char *const hdr[] = {"job_id", "submission_time", "duration", "num_gpu"};
	if (csv_header(c, hdr, 4))
		return -1;
	itp_job j = {.cluster = cluster};
	while (csv_next(c) == 1) {
		if (!read_job(c, &j))
			return -1;
		snprintf(j.id, sizeof j.id, "%s", c->field[0]);
		j.row = c->line_no - 1;
		bool alive = !o->has_at || (j.submit <= o->at && o->at < j.submit + j.duration);
		if (alive &&
		    (!csv_sum(c, "num_gpu", j.gpus, MAX_TOTAL_GPUS, &jv->gpus) || push(jv, &j)))
			return -1;
	}
	return 0;
}

static int read_cluster(const itp_opts *o, uint32_t cluster, job_vec *jv)
{
	csv_reader c;
	char member[32];
	snprintf(member, sizeof member, "cluster%02u.csv", cluster);
	int rc = is_csv(o->trace) ? csv_open(&c, o->trace) : csv_open_tar(&c, o->trace, member);
	if (rc)
		return -1;
	rc = read_rows(&c, o, cluster, jv);
	return csv_close(&c) || rc ? -1 : 0;
}

static int by_arrival(const void *a, const void *b)
{
	const itp_job *x = a, *y = b;
	if (x->submit != y->submit)
		return x->submit < y->submit ? -1 : 1;
	if (x->cluster != y->cluster)
		return x->cluster < y->cluster ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* A gang of ceil(gpus / 8) tasks of up to 8 GPUs each (the traces only hold powers of two). */
static int64_t task_count(const itp_job *j)
{
	return j->gpus <= NODE_GPUS ? 1 : (j->gpus + NODE_GPUS - 1) / NODE_GPUS;
}

static void write_requests(gen_out *w, int64_t gpus)
{
	out_str(w, "{cpu: ");
	out_milli(w, gpus ? gpus * CPU_PER_GPU : 1000);
	out_str(w, ", memory: ");
	out_bytes(w, gpus ? gpus * MEM_PER_GPU : 4 * GIB);
	if (gpus) {
		out_str(w, ", nvidia.com/gpu: ");
		out_milli(w, gpus * 1000);
	}
	out_str(w, "}");
}

static void write_cluster_parts(gen_out *w, const itp_opts *o)
{
	out_str(w, "queues:\n");
	for (int c = 1; c <= MAX_CLUSTERS; c++)
		if (!o->cluster || o->cluster == c)
			out_fmt(w, "  - {name: c%02d, weight: 1}\n", c);
	out_str(w, "nodes:\n");
	for (uint32_t i = 0; i < o->nodes; i++) {
		out_fmt(w, "  - {name: itp-n%u, allocatable: {cpu: ", i);
		out_milli(w, NODE_CPU);
		out_str(w, ", memory: ");
		out_bytes(w, NODE_MEM);
		out_fmt(
		    w,
		    ", pods: \"110\", nvidia.com/gpu: \"%d\"}, labels: {kubernetes.io/hostname: "
		    "itp-n%u, tephra.io/rack: rack%u}}\n",
		    NODE_GPUS, i, i / 8);
	}
}

static void write_group(gen_out *w, const itp_job *j)
{
	int64_t tasks = task_count(j);
	out_fmt(w,
	        "  - {name: c%02u-j%u, namespace: itp, queue: c%02u, minMember: %lld, "
	        "minResources: ",
	        j->cluster, j->row, j->cluster, (long long)tasks);
	write_requests(w, j->gpus);
	out_str(w, ", phase: Pending, creationTimestamp: ");
	out_time(w, TRACE_EPOCH + j->submit);
	out_fmt(w, ", annotations: {elasticflow/job-id: %s, elasticflow/duration: \"%lld\"}}\n",
	        j->id, (long long)j->duration);
}

static void write_pods(gen_out *w, const itp_job *j)
{
	int64_t tasks = task_count(j);
	for (int64_t t = 0; t < tasks; t++) {
		out_fmt(w,
		        "  - {name: c%02u-j%u-worker-%lld, namespace: itp, podGroup: c%02u-j%u, "
		        "requests: ",
		        j->cluster, j->row, (long long)t, j->cluster, j->row);
		write_requests(w, j->gpus / tasks);
		out_str(w, ", creationTimestamp: ");
		out_time(w, TRACE_EPOCH + j->submit);
		out_str(w, "}\n");
	}
}

static int write_all(const itp_opts *o, const job_vec *jv)
{
	out_file of;
	if (import_open_out(&of, o->out) != 0)
		return -1;
	gen_out *w = malloc(sizeof *w);
	if (!w) {
		out_file_discard(&of);
		return -1;
	}
	out_init(w, of.f);
	int64_t now = o->has_at ? o->at : (jv->n ? jv->v[jv->n - 1].submit : 0);
	import_header(w, "msft-itp-elasticflow", o->trace, TRACE_EPOCH + now + 1);
	write_cluster_parts(w, o);
	out_str(w, "podGroups:\n");
	for (uint32_t i = 0; i < jv->n; i++)
		write_group(w, &jv->v[i]);
	out_str(w, "pods:\n");
	for (uint32_t i = 0; i < jv->n; i++)
		write_pods(w, &jv->v[i]);
	int rc = import_close_out(w, &of, true) ? 0 : -1;
	free(w);
	if (!rc)
		fprintf(stderr, "tephra import: wrote %s: %u jobs on %u nodes\n", o->out, jv->n,
		        o->nodes);
	return rc;
}

enum {
	OPT_CLUSTER = CMD_LONG,
	OPT_AT,
	OPT_LIMIT,
	OPT_NODES
};

static const struct option itp_longs[] = {
    {"help", no_argument, NULL, 'h'},
    {"output", required_argument, NULL, 'o'},
    {"cluster", required_argument, NULL, OPT_CLUSTER},
    {"at", required_argument, NULL, OPT_AT},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"nodes", required_argument, NULL, OPT_NODES},
    {NULL, 0, NULL, 0},
};

#define MAX_VALUE 1000000000u /* of --at and --limit */

/* One option or operand; 0 to go on, 2 after a usage error, -1 after --help. */
static int itp_arg(const cmd_args *a, int c, void *ud)
{
	itp_opts *o = ud;
	uint32_t v;
	switch (c) {
	case 'h':
		fputs(itp_usage, stdout);
		return -1;
	case 'o':
		o->out = a->arg;
		return 0;
	case OPT_CLUSTER:
		if (!strcmp(a->arg, "all")) {
			o->cluster = 0;
			return 0;
		}
		if (!cmd_u32(a, "cluster", 1, MAX_CLUSTERS, &v))
			return 2;
		o->cluster = (int)v;
		return 0;
	case OPT_AT:
		o->has_at = true;
		if (!cmd_u32(a, "at", 0, MAX_VALUE, &v))
			return 2;
		o->at = v;
		return 0;
	case OPT_LIMIT:
		return cmd_u32(a, "limit", 0, MAX_VALUE, &o->limit) ? 0 : 2;
	case OPT_NODES:
		return cmd_u32(a, "nodes", 1, 1000000, &o->nodes) ? 0 : 2;
	case CMD_OPERAND:
		return cmd_operand(a, &o->trace);
	default:
		return 2; /* CMD_ERROR: said already */
	}
}

static int parse_itp(int argc, char **argv, itp_opts *o)
{
	cmd_args a;
	cmd_args_init(&a, "import itp", argc, argv, "ho:", itp_longs);
	int rc = cmd_parse(&a, itp_arg, o);
	if (rc)
		return rc;
	if (!o->trace)
		return cmd_usage_error("import itp", "no trace given");
	if (!o->out)
		return cmd_usage_error("import itp", "no output file (-o FILE)");
	/* A lone CSV is one cluster; without --cluster it is queue c01. */
	if (is_csv(o->trace) && !o->cluster)
		o->cluster = 1;
	return 0;
}

int import_itp(int argc, char **argv)
{
	itp_opts o = {.nodes = 256};
	int rc = parse_itp(argc, argv, &o);
	if (rc)
		return rc < 0 ? 0 : 2;
	job_vec jv = {0};
	for (int c = 1; c <= MAX_CLUSTERS && !rc; c++)
		if (!o.cluster || o.cluster == c)
			rc = read_cluster(&o, (uint32_t)c, &jv);
	if (!rc) {
		if (jv.n)
			qsort(jv.v, jv.n, sizeof *jv.v, by_arrival);
		jv.n = o.limit && o.limit < jv.n ? o.limit : jv.n;
		rc = write_all(&o, &jv);
	}
	free(jv.v);
	return rc ? 2 : 0;
}

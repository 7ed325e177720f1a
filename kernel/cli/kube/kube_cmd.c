/* The `tephra import kube` and `tephra export kube` commands, and the in-memory import that
 * `tephra run --kube` loads (kube_scenario). */
#include "kube.h"

#include "../cli.h"
#include "out_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KUBE_MAX_INPUTS 64

static const char import_usage[] =
    "usage: tephra import kube FILE|DIR... [-o SCENARIO] [--scheduler-name NAME]\n"
    "\n"
    "Reads what `kubectl get ... -o yaml` or `-o json` prints (a List, multi-document YAML, or\n"
    "one object per file; a DIR is read recursively, *.yaml, *.yml and *.json in name order;\n"
    "`-` is standard input) and writes a scenario: Nodes, Pods, Volcano PodGroups, Queues and\n"
    "HyperNodes, PriorityClasses, ResourceQuotas, PodDisruptionBudgets and the ConfigMap with\n"
    "`volcano-scheduler.conf` (its conf). Other kinds are skipped with one warning per kind.\n"
    "Objects are read as Volcano's scheduler cache reads them (datasets/README.md).\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE        write the scenario there (default: standard output)\n"
    "  --scheduler-name NAME    the scheduler whose pods are scheduled (default: volcano);\n"
    "                           other schedulers' pods hold their node's resources only\n"
    "  -h, --help               show this help\n";

static const char export_usage[] =
    "usage: tephra export kube SCENARIO [-o FILE]\n"
    "\n"
    "Writes the scenario as a `kind: List` of Kubernetes objects that `kubectl apply` (or a\n"
    "KWOK cluster) accepts: Namespaces, the volcano-scheduler-configmap in volcano-system,\n"
    "PriorityClasses, Queues, Nodes, HyperNodes, ResourceQuotas, PodDisruptionBudgets,\n"
    "PodGroups and Pods. `tephra import kube` reads it back to the same decisions; expect:\n"
    "and probe: are dropped (datasets/README.md lists what goes where).\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE   write there (default: standard output; `-` too)\n"
    "  -h, --help          show this help\n";

enum {
	OPT_SCHEDULER = CMD_LONG
};

typedef struct kube_args {
	const char *in[KUBE_MAX_INPUTS];
	int n_in;
	const char *out;
	const char *scheduler;
	const char *cmd;
	const char *usage;
} kube_args;

static int kube_arg(const cmd_args *a, int c, void *ud)
{
	kube_args *ka = ud;
	switch (c) {
	case 'h':
		fputs(ka->usage, stdout);
		return CLI_DONE;
	case 'o':
		ka->out = a->arg;
		return CLI_OK;
	case OPT_SCHEDULER:
		ka->scheduler = a->arg;
		return CLI_OK;
	case CMD_OPERAND:
		if (ka->n_in == KUBE_MAX_INPUTS)
			return cmd_usage_error(ka->cmd, "more than %d inputs", KUBE_MAX_INPUTS);
		ka->in[ka->n_in++] = a->arg;
		return CLI_OK;
	default:
		return CLI_USAGE;
	}
}

static void print_warning(void *ud, const char *msg)
{
	fprintf(stderr, "%s: warning: %s\n", (const char *)ud, msg);
}

static int import_all(kube_import *k, const char *const *in, int n)
{
	int rc = TPH_OK;
	for (int i = 0; rc == TPH_OK && i < n; i++)
		rc = kube_import_path(k, in[i]);
	return rc;
}

static void default_name(char *buf, size_t cap, const char *const *in, int n)
{
	snprintf(buf, cap, "kube import of %s%s", in[0], n > 1 ? " and more" : "");
}

/* Read every input and write the scenario into a malloc'd buffer, loaded once to check it. */
static int import_buffer(kube_import *k, const char *const *in, int n, char **buf, size_t *len,
                         tph_scenario **scn)
{
	int rc = import_all(k, in, n);
	*buf = NULL;
	FILE *f = rc == TPH_OK ? open_memstream(buf, len) : NULL;
	if (rc == TPH_OK && !f)
		rc = tph_diag_set(k->d, TPH_ENOMEM, "out of memory");
	char name[512];
	default_name(name, sizeof name, in, n);
	if (rc == TPH_OK)
		rc = kube_import_write(k, name, f);
	if (f && fclose(f) && rc == TPH_OK)
		rc = tph_diag_set(k->d, TPH_ENOMEM, "out of memory");
	if (rc == TPH_OK)
		rc = kube_load(k, *buf, *len, scn);
	if (rc < 0) {
		free(*buf);
		*buf = NULL;
	}
	return rc;
}

int kube_scenario(const char *const *in, int n, const char *scheduler, tph_scenario **out,
                  tph_diag *d)
{
	kube_import k;
	char *buf = NULL;
	size_t len;
	int rc = kube_import_init(&k, scheduler ? scheduler : "volcano", d);
	if (rc == TPH_OK)
		rc = import_buffer(&k, in, n, &buf, &len, out);
	free(buf);
	kube_import_free(&k);
	return rc;
}

static const struct option import_longs[] = {
    {"help", no_argument, NULL, 'h'},
    {"output", required_argument, NULL, 'o'},
    {"scheduler-name", required_argument, NULL, OPT_SCHEDULER},
    {NULL, 0, NULL, 0},
};

static int import_to(const kube_args *ka, kube_import *k)
{
	char *buf;
	size_t len;
	tph_scenario *scn;
	int rc = import_buffer(k, ka->in, ka->n_in, &buf, &len, &scn);
	if (rc < 0)
		return rc;
	tph_scenario_free(scn);
	out_file of;
	if (out_file_open(&of, ka->out ? ka->out : "-", "tephra import kube") != 0) {
		free(buf);
		return TPH_EIO;
	}
	int err = fwrite(buf, 1, len, of.f) == len ? 0 : errno ? errno : EIO;
	free(buf);
	return out_file_close(&of, err, "tephra import kube") ? TPH_EIO : TPH_OK;
}

int cmd_import_kube(int argc, char **argv)
{
	kube_args ka = {.cmd = "import kube", .usage = import_usage, .scheduler = "volcano"};
	cmd_args a;
	cmd_args_init(&a, "import kube", argc, argv, "ho:", import_longs);
	int rc = cmd_parse(&a, kube_arg, &ka);
	if (rc != CLI_OK)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (!ka.n_in)
		return cmd_usage_error("import kube", "no file or directory given");
	tph_diag d = {.warn = print_warning, .warn_ud = (void *)"tephra import kube"};
	kube_import k;
	rc = kube_import_init(&k, ka.scheduler, &d);
	if (rc == TPH_OK)
		rc = import_to(&ka, &k);
	kube_import_free(&k);
	if (rc < 0 && rc != TPH_EIO)
		fprintf(stderr, "tephra import kube: %s\n", d.msg[0] ? d.msg : tph_strerror(rc));
	return rc < 0 ? CLI_USAGE : CLI_OK;
}

static const struct option export_longs[] = {
    {"help", no_argument, NULL, 'h'},
    {"output", required_argument, NULL, 'o'},
    {NULL, 0, NULL, 0},
};

int cmd_export(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (!strcmp(what, "--help") || !strcmp(what, "-h")) {
		fputs(export_usage, stdout);
		return CLI_OK;
	}
	if (!*what)
		return cmd_usage_error("export", "no format given (kube)");
	if (strcmp(what, "kube"))
		return cmd_usage_error("export", "unknown format '%s' (kube)", what);
	kube_args ka = {.cmd = "export kube", .usage = export_usage};
	cmd_args a;
	cmd_args_init(&a, "export kube", argc - 1, argv + 1, "ho:", export_longs);
	int rc = cmd_parse(&a, kube_arg, &ka);
	if (rc != CLI_OK)
		return rc == CLI_DONE ? CLI_OK : rc;
	if (ka.n_in != 1)
		return cmd_usage_error("export kube",
		                       ka.n_in ? "one scenario at a time" : "no scenario given");
	tph_diag d = {.warn = print_warning, .warn_ud = (void *)"tephra export kube"};
	out_file of;
	if (out_file_open(&of, ka.out ? ka.out : "-", "tephra export kube") != 0)
		return CLI_USAGE;
	rc = kube_export(ka.in[0], of.f, &d);
	if (rc < 0) {
		out_file_discard(&of);
		fprintf(stderr, "tephra export kube: %s\n", d.msg[0] ? d.msg : tph_strerror(rc));
		return CLI_USAGE;
	}
	return out_file_close(&of, ferror(of.f) ? EIO : 0, "tephra export kube") ? CLI_USAGE
	                                                                         : CLI_OK;
}

/* `tephra import alibaba|itp ...`: turn a real trace into a scenario (import_alibaba.c,
 * import_itp.c). `import kube` is the CLI's (kernel/cli/kube, dispatched before this). */
#include "cmdline.h"
#include "datasets.h"
#include "import.h"

#include <string.h>

static const char import_usage[] =
    "usage: tephra import TRACE ARGS... [-o FILE]\n"
    "\n"
    "Traces:\n"
    "  alibaba DIR    Alibaba openb GPU cluster trace 2023 (node and pod lists)\n"
    "  itp ARCHIVE    Microsoft ITP job traces (ElasticFlow raw-traces.tar.gz)\n"
    "  kube FILE|DIR  what `kubectl get ... -o yaml|json` prints (kernel/cli/kube)\n"
    "\n"
    "`tephra import TRACE --help` lists a trace's options; datasets/README.md documents how\n"
    "each trace maps onto nodes, gangs, queues and priorities. Options take `--opt=value` or\n"
    "`--opt value`; `--` ends them; `-o -` writes to standard output.\n";

int tph_cmd_import(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (!strcmp(what, "alibaba"))
		return import_alibaba(argc - 1, argv + 1);
	if (!strcmp(what, "itp"))
		return import_itp(argc - 1, argv + 1);
	if (!strcmp(what, "--help") || !strcmp(what, "-h")) {
		fputs(import_usage, stdout);
		return 0;
	}
	if (!*what)
		return cmd_usage_error("import", "no trace given (alibaba, itp or kube)");
	if (what[0] == '-' && what[1])
		return cmd_usage_error("import", "unknown option '%.*s'", (int)strcspn(what, "="),
		                       what);
	return cmd_usage_error("import", "unknown trace '%s' (alibaba, itp or kube)", what);
}

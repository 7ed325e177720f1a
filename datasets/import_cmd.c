/* `tephra import alibaba|itp ...`: turn a real trace into a scenario (import_alibaba.c,
 * import_itp.c). */
#include "datasets.h"
#include "import.h"

#include <string.h>

static const char import_usage[] =
    "usage: tephra import TRACE ARGS... -o FILE\n"
    "\n"
    "Traces:\n"
    "  alibaba DIR    Alibaba openb GPU cluster trace 2023 (node and pod lists)\n"
    "  itp ARCHIVE    Microsoft ITP job traces (ElasticFlow raw-traces.tar.gz)\n"
    "\n"
    "`tephra import TRACE --help` lists a trace's options; datasets/README.md documents how\n"
    "each trace maps onto nodes, gangs, queues and priorities.\n";

int tph_cmd_import(int argc, char **argv)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (!strcmp(what, "alibaba"))
		return import_alibaba(argc, argv);
	if (!strcmp(what, "itp"))
		return import_itp(argc, argv);
	if (!strcmp(what, "--help") || !strcmp(what, "-h")) {
		fputs(import_usage, stdout);
		return 0;
	}
	fprintf(stderr, "tephra import: %s%s\n\n%s", *what ? "unknown trace " : "no trace given",
	        what, import_usage);
	return 2;
}

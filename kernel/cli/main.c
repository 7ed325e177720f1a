/* The `tephra` command line: run scenarios, check them against their expectations, and
 * generate synthetic clusters. Exit codes: 0 ok, 1 expectations failed, 2 bad input, usage or
 * output that could not be written. */
#include "cli.h"
#include "datasets.h"
#include "sim.h"
#include "kube/kube.h"

#include <errno.h>
#include <string.h>

static const char usage[] =
    "usage: tephra COMMAND [ARGS]\n"
    "\n"
    "Commands:\n"
    "  run SCENARIO     run the session(s) of a scenario file and print the decisions\n"
    "  check PATH...    run scenarios with expect:/probe: sections and report PASS/FAIL\n"
    "  explain SCENARIO say why each pending job is pending, and each queue's readout\n"
    "  gen PROFILE      write a synthetic scenario (10k-standard, 10k-preempt, ...)\n"
    "  import TRACE     turn a real trace (alibaba, itp) or kubectl objects (kube) into a\n"
    "                   scenario\n"
    "  export kube      write a scenario as Kubernetes objects (kubectl apply)\n"
    "  simulate ...     replay a workload over time; JSON lines and an HTML report\n"
    "\n"
    "Options:\n"
    "  -h, --help       show this help (or `tephra COMMAND --help`)\n"
    "  -V, --version    print the version\n"
    "\n"
    "Every command takes `--opt=value` or `--opt value`; `--` ends the options, and `-` as\n"
    "a file means standard input (standard output for -o).\n"
    "\n"
    "Exit codes: 0 ok, 1 expectations failed, 2 bad input, usage or a failed write.\n";

static int run_command(int argc, char **argv)
{
	if (argc < 2)
		return cmd_usage_error(
		    NULL,
		    "no command given (run, check, explain, gen, import, export or simulate)");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return CLI_OK;
	}
	if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
		printf("tephra %s\n", tph_version_string());
		return CLI_OK;
	}
	if (!strcmp(cmd, "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(cmd, "explain"))
		return cmd_explain(argc - 1, argv + 1);
	if (!strcmp(cmd, "gen"))
		return tph_cmd_gen(argc - 1, argv + 1);
	if (!strcmp(cmd, "import") && argc > 2 && !strcmp(argv[2], "kube"))
		return cmd_import_kube(argc - 2, argv + 2);
	if (!strcmp(cmd, "import"))
		return tph_cmd_import(argc - 1, argv + 1);
	if (!strcmp(cmd, "simulate"))
		return tph_cmd_simulate(argc - 1, argv + 1);
	if (!strcmp(cmd, "export"))
		return cmd_export(argc - 1, argv + 1);
	if (cmd[0] == '-')
		return cmd_usage_error(NULL, "unknown option '%s'", cmd);
	return cmd_usage_error(NULL, "unknown command '%s'", cmd);
}

/* Output to a full disk or a closed pipe may fail only when the buffer is flushed at close:
 * then the run did not deliver its result and must not exit 0. Returns 0, or the errno (EIO
 * when an earlier write failed and none is known). */
static int close_stdout(void)
{
	bool failed = ferror(stdout) != 0;
	errno = 0;
	if (fclose(stdout) != 0 || failed)
		return errno ? errno : EIO;
	return 0;
}

int main(int argc, char **argv)
{
	int rc = run_command(argc, argv);
	int err = close_stdout();
	if (err) {
		if (rc != CLI_USAGE) /* else the command has already said what went wrong */
			fprintf(stderr, "tephra: standard output: write failed: %s\n",
			        strerror(err));
		rc = CLI_USAGE;
	}
	return rc;
}

/* `tephra check PATH...`: run every scenario that has expect:/probe:, print PASS/FAIL per file
 * with what differs (SKIP for one with neither), and end with "N passed, N failed" and, when some
 * were skipped, ", N skipped". */
#include "check.h"
#include "cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char check_usage[] =
    "usage: tephra check PATH... [--threads N] [--naive] [--plugins PATH] [--quiet]\n"
    "\n"
    "PATH is a scenario file, a folder searched recursively for *.yaml, or `-` for a scenario\n"
    "on standard input. Each scenario with an expect: or probe: section is run; PASS or FAIL\n"
    "is printed per file with a readable diff, SKIP for a file with neither section, then the\n"
    "line `N passed, N failed` (`, N skipped` added when files were skipped). Exit 0 only\n"
    "when none fails, 1 when some fail, 2 on bad usage.\n"
    "\n"
    "Options (`--opt=value` or `--opt value`; `--` ends them):\n"
    "  --threads N     threads for filtering and scoring (default: OMP_NUM_THREADS)\n"
    "  --naive         naive mode: no equivalence classes, no incremental updates\n"
    "  --plugins PATH  load external plugins (a .so file or a directory of them) before any\n"
    "                  scenario, as `tephra run --plugins` does\n"
    "  --quiet         print only failures and the closing line\n"
    "  -h, --help      show this help\n";

static const struct option check_longs[] = {
    {"help", no_argument, NULL, 'h'},        {"threads", required_argument, NULL, OPT_THREADS},
    {"naive", no_argument, NULL, OPT_NAIVE}, {"plugins", required_argument, NULL, OPT_PLUGINS},
    {"quiet", no_argument, NULL, OPT_QUIET}, {NULL, 0, NULL, 0},
};

typedef struct path_list {
	char **p;
	uint32_t n, cap;
} path_list;

static int push(path_list *l, const char *s)
{
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? l->cap * 2 : 64;
		char **np = realloc(l->p, cap * sizeof *np);
		if (!np)
			return -1;
		l->p = np;
		l->cap = cap;
	}
	l->p[l->n] = strdup(s);
	return l->p[l->n++] ? 0 : -1;
}

static void free_paths(path_list *l)
{
	for (uint32_t i = 0; i < l->n; i++)
		free(l->p[i]);
	free(l->p);
}

static bool is_yaml(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && !strcmp(name + n - 5, ".yaml");
}

static int walk(const char *path, path_list *out)
{
	struct stat st;
	if (!strcmp(path, "-"))
		return push(out, path); /* standard input */
	if (stat(path, &st) != 0) {
		fprintf(stderr, "tephra check: %s: no such file or directory\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return push(out, path);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int rc = 0;
	for (struct dirent *e; !rc && (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char full[4096];
		snprintf(full, sizeof full, "%s/%s", path, e->d_name);
		struct stat es;
		if (stat(full, &es) != 0)
			continue;
		if (S_ISDIR(es.st_mode))
			rc = walk(full, out);
		else if (S_ISREG(es.st_mode) && is_yaml(e->d_name)) /* a FIFO would block */
			rc = push(out, full);
	}
	closedir(d);
	return rc;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* What `tephra check` was asked for; the paths are walked afterwards. */
typedef struct check_args {
	run_opts o;
	bool quiet, stdin_seen;
	path_list given;
} check_args;

/* One option or operand; CLI_OK to go on. */
static int check_arg(const cmd_args *a, int c, void *ud)
{
	check_args *ca = ud;
	int shared = run_opt(a, c, &ca->o);
	if (shared)
		return shared > 0 ? CLI_OK : CLI_USAGE;
	switch (c) {
	case 'h':
		fputs(check_usage, stdout);
		return CLI_DONE;
	case OPT_QUIET:
		ca->quiet = true;
		return CLI_OK;
	case CMD_OPERAND:
		if (!strcmp(a->arg, "-") && ca->stdin_seen)
			return cmd_usage_error("check", "standard input ('-') given twice");
		ca->stdin_seen |= !strcmp(a->arg, "-");
		return push(&ca->given, a->arg) ? CLI_USAGE : CLI_OK;
	default:
		return CLI_USAGE; /* CMD_ERROR: said already */
	}
}

static int parse_check(int argc, char **argv, check_args *ca)
{
	cmd_args a;
	cmd_args_init(&a, "check", argc, argv, "h", check_longs);
	int rc = cmd_parse(&a, check_arg, ca);
	if (rc == CLI_OK && !ca->given.n)
		return cmd_usage_error("check", "no scenario file or folder given");
	return rc;
}

/* Every given path, folders walked; CLI_OK, or CLI_USAGE after saying what is missing. */
static int collect(const path_list *given, path_list *paths)
{
	for (uint32_t i = 0; i < given->n; i++)
		if (walk(given->p[i], paths) != 0)
			return CLI_USAGE;
	if (!paths->n) {
		fputs("tephra check: no *.yaml file in the folders given\n", stderr);
		return CLI_USAGE;
	}
	qsort(paths->p, paths->n, sizeof *paths->p, cmp_path);
	return CLI_OK;
}

static int check_all(const path_list *paths, const run_opts *o, bool quiet)
{
	uint32_t n[3] = {0}; /* by verdict: skipped, passed, failed */
	for (uint32_t i = 0; i < paths->n; i++)
		n[check_file(paths->p[i], o, quiet, stdout)]++;
	printf("%u passed, %u failed", n[CHECK_PASS], n[CHECK_FAIL]);
	if (n[CHECK_SKIP])
		printf(", %u skipped", n[CHECK_SKIP]);
	putchar('\n');
	if (n[CHECK_SKIP] && !n[CHECK_PASS] && !n[CHECK_FAIL])
		fputs(
		    "tephra check: no file has an expect: or probe: section: nothing was checked\n",
		    stderr);
	return n[CHECK_FAIL] ? CLI_FAILED : CLI_OK;
}

int cmd_check(int argc, char **argv)
{
	check_args ca = {.o = {.notes_name_file = true}};
	path_list paths = {0};
	int rc = parse_check(argc, argv, &ca);
	if (rc == CLI_OK)
		rc = collect(&ca.given, &paths);
	if (rc == CLI_OK && load_plugins("check", &ca.o) != CLI_OK)
		rc = CLI_USAGE;
	if (rc == CLI_OK)
		rc = check_all(&paths, &ca.o, ca.quiet);
	free_paths(&ca.given);
	free_paths(&paths);
	return rc == CLI_DONE ? CLI_OK : rc;
}

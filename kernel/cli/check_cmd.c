/* `tephra check PATH...`: run every scenario that has expect:/probe:, print PASS/FAIL per file
 * with what differs, and end with "N passed, N failed". */
#include "check.h"
#include "cli.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char check_usage[] =
    "usage: tephra check PATH... [--threads N] [--naive] [--plugins PATH] [--quiet]\n"
    "\n"
    "PATH is a scenario file or a folder searched recursively for *.yaml. Each scenario with\n"
    "an expect: or probe: section is run; PASS or FAIL is printed per file with a readable\n"
    "diff, then the line `N passed, N failed`. Exit 0 only when all pass, 1 when some fail,\n"
    "2 on bad usage.\n"
    "\n"
    "--plugins PATH loads external plugins (a .so file or a directory of them) before any\n"
    "scenario, as `tephra run --plugins` does.\n";

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
		else if (is_yaml(e->d_name))
			rc = push(out, full);
	}
	closedir(d);
	return rc;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int parse_check_opts(int argc, char **argv, run_opts *o, bool *quiet, path_list *paths)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--threads") && v && parse_int(v, 1, 1024, &o->threads))
			i++;
		else if (!strcmp(a, "--plugins") && v)
			o->plugin_dir = argv[++i];
		else if (!strcmp(a, "--naive"))
			o->naive = true;
		else if (!strcmp(a, "--quiet"))
			*quiet = true;
		else if (a[0] == '-') {
			fprintf(stderr, "tephra check: bad or incomplete option '%s'\n", a);
			return -1;
		} else if (walk(a, paths) != 0)
			return -1;
	}
	return paths->n ? 0 : -1;
}

int cmd_check(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(check_usage, stdout);
			return CLI_OK;
		}
	run_opts o = {0};
	bool quiet = false;
	path_list paths = {0};
	int rc = parse_check_opts(argc, argv, &o, &quiet, &paths);
	if (rc != 0)
		fputs(check_usage, stderr);
	if (rc != 0 || load_plugins("check", &o) != CLI_OK) {
		free_paths(&paths);
		return CLI_USAGE;
	}
	qsort(paths.p, paths.n, sizeof *paths.p, cmp_path);
	uint32_t passed = 0, failed = 0;
	for (uint32_t i = 0; i < paths.n; i++) {
		int v = check_file(paths.p[i], &o, quiet, stdout);
		passed += v == CHECK_PASS;
		failed += v == CHECK_FAIL;
	}
	free_paths(&paths);
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? CLI_FAILED : CLI_OK;
}

/* CSV and tarball reading for the importers, and their shared output helpers. The archive is
 * read through the system `tar` (fork/exec, no shell), so no compression library is needed. */
#include "import.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int csv_open(csv_reader *c, const char *path)
{
	memset(c, 0, sizeof *c);
	bool std_in = !strcmp(path, "-");
	c->path = std_in ? "<stdin>" : path;
	c->f = std_in ? stdin : fopen(path, "r");
	if (!c->f) {
		fprintf(stderr, "tephra import: %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int csv_open_tar(csv_reader *c, const char *archive, const char *member)
{
	memset(c, 0, sizeof *c);
	c->path = member;
	if (access(archive, R_OK) != 0) {
		fprintf(stderr, "tephra import: %s: %s\n", archive, strerror(errno));
		return -1;
	}
	int fd[2];
	if (pipe(fd) != 0) {
		fprintf(stderr, "tephra import: pipe: %s\n", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execlp("tar", "tar", "-xzOf", archive, member, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	c->f = pid > 0 ? fdopen(fd[0], "r") : NULL;
	if (!c->f) {
		fprintf(stderr, "tephra import: cannot run tar for %s: %s\n", archive,
		        strerror(errno));
		close(fd[0]);
		return -1;
	}
	c->child = pid;
	return 0;
}

static void split(csv_reader *c, size_t len)
{
	while (len && (c->line[len - 1] == '\n' || c->line[len - 1] == '\r'))
		c->line[--len] = '\0';
	c->n = 0;
	char *p = c->line;
	for (;;) {
		if (c->n < CSV_MAX_FIELDS)
			c->field[c->n++] = p;
		char *comma = strchr(p, ',');
		if (!comma)
			break;
		*comma = '\0';
		p = comma + 1;
	}
}

int csv_next(csv_reader *c)
{
	errno = 0;
	ssize_t len = getline(&c->line, &c->cap, c->f);
	if (len < 0 && !ferror(c->f))
		return 0;
	c->line_no++;
	if (len < 0 || memchr(c->line, '\0', (size_t)len)) {
		fprintf(stderr, "tephra import: %s:%u: %s\n", c->path, c->line_no,
		        len < 0 ? strerror(errno) : "a NUL byte in the line");
		c->bad = true;
		return -1;
	}
	split(c, (size_t)len);
	return 1;
}

int csv_close(csv_reader *c)
{
	int rc = c->bad ? -1 : 0;
	if (c->f == stdin)
		rc = ferror(stdin) ? -1 : rc; /* left open */
	else if (c->f && fclose(c->f) != 0)
		rc = -1;
	if (c->child > 0) {
		int st = 0;
		if (waitpid(c->child, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			fprintf(stderr, "tephra import: tar could not extract %s\n", c->path);
			rc = -1;
		}
	}
	free(c->line);
	memset(c, 0, sizeof *c);
	return rc;
}

bool csv_i64(const csv_reader *c, uint32_t i, bool allow_empty, int64_t *out)
{
	if (i >= c->n)
		return false;
	const char *s = c->field[i];
	if (!*s) {
		*out = 0;
		return allow_empty;
	}
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (*end || errno)
		return false;
	*out = v;
	return true;
}

bool csv_header_is(const csv_reader *c, const char *const *names, uint32_t n)
{
	if (c->n < n)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (strcmp(c->field[i], names[i]) != 0)
			return false;
	return true;
}

int csv_header(csv_reader *c, const char *const *names, uint32_t n)
{
	if (csv_next(c) == 1 && csv_header_is(c, names, n))
		return 0;
	fprintf(stderr, "tephra import: %s:1: not the header wanted (", c->path);
	for (uint32_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? "," : "", names[i]);
	fprintf(stderr, ")\n");
	return -1;
}

void import_header(gen_out *w, const char *name, const char *source, int64_t now)
{
	out_fmt(w, "# imported by `tephra import` from %s\nname: \"%s\"\nnow: ", source, name);
	out_time(w, now);
	out_str(w, "\nconf: |\n"
	           "  actions: \"enqueue, allocate, backfill\"\n"
	           "  tiers:\n"
	           "  - plugins:\n"
	           "    - name: priority\n"
	           "    - name: gang\n"
	           "      enablePreemptable: false\n"
	           "    - name: conformance\n"
	           "  - plugins:\n"
	           "    - name: overcommit\n"
	           "    - name: drf\n"
	           "      enablePreemptable: false\n"
	           "    - name: predicates\n"
	           "    - name: proportion\n"
	           "    - name: nodeorder\n"
	           "    - name: binpack\n");
}

int import_open_out(out_file *of, const char *path)
{
	return out_file_open(of, path, "tephra import");
}

bool import_close_out(gen_out *w, out_file *of, bool keep)
{
	if (!keep) {
		out_file_discard(of);
		return false;
	}
	int err = out_flush(w) ? 0 : w->errnum;
	return out_file_close(of, err, "tephra import") == 0;
}

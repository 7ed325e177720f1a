/* Output files written beside their target and renamed into place (out_file.h). */
#include "out_file.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool in_place(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}

/* "<dir>/.<name>.tmp-XXXXXX" beside `path`; false when it does not fit. */
static bool temp_name(const char *path, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');
	int dir_len = slash ? (int)(slash - path + 1) : 0;
	int n = snprintf(out, cap, "%.*s.%s.tmp-XXXXXX", dir_len, path, slash ? slash + 1 : path);
	return n > 0 && (size_t)n < cap;
}

static int open_temp(out_file *o)
{
	if (!temp_name(o->path, o->tmp, sizeof o->tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = mkstemp(o->tmp);
	if (fd < 0)
		return -1;
	/* mkstemp makes it 0600; the file should get what a plain open would have given it. */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || !(o->f = fdopen(fd, "wb"))) {
		int e = errno;
		close(fd);
		unlink(o->tmp);
		errno = e;
		return -1;
	}
	return 0;
}

int out_file_open(out_file *o, const char *path, const char *who)
{
	o->f = NULL;
	o->path = path;
	o->tmp[0] = '\0';
	if (!strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	if (in_place(path))
		o->f = fopen(path, "wb");
	else if (open_temp(o) != 0)
		o->f = NULL;
	if (o->f)
		return 0;
	o->tmp[0] = '\0';
	fprintf(stderr, "%s: %s: %s\n", who, path, strerror(errno));
	return -1;
}

/* Flush and close (only flush standard output); the errno of the first failure, else 0. */
static int finish(out_file *o)
{
	errno = 0;
	if (o->f == stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			return errno ? errno : EIO;
		return 0;
	}
	bool failed = ferror(o->f) != 0;
	if (fclose(o->f) != 0 || failed)
		return errno ? errno : EIO;
	return 0;
}

int out_file_close(out_file *o, int write_err, const char *who)
{
	const char *name = o->f == stdout ? "standard output" : o->path;
	int err = finish(o);
	if (!write_err)
		write_err = err;
	if (!write_err && o->tmp[0] && rename(o->tmp, o->path) != 0)
		write_err = errno;
	if (o->tmp[0] && write_err)
		unlink(o->tmp);
	o->f = NULL;
	if (!write_err)
		return 0;
	fprintf(stderr, "%s: %s: write failed: %s\n", who, name, strerror(write_err));
	return -1;
}

void out_file_discard(out_file *o)
{
	if (o->f && o->f != stdout)
		fclose(o->f);
	if (o->tmp[0])
		unlink(o->tmp);
	o->f = NULL;
}

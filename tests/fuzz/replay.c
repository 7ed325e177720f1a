/* Replay driver: the harness built without a fuzzer. Runs LLVMFuzzerTestOneInput over every
 * file named on the command line, directories read one level deep in name order (dotfiles
 * skipped), so ctest can replay a corpus under the normal and the sanitizer builds. */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: cannot open\n", path);
		return 1;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	for (size_t got = 1; buf && got;) {
		if (n == cap) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
			if (!buf)
				break;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "replay: %s: out of memory\n", path);
		return 1;
	}
	/* An exact-size copy, so ASan sees a read past the input's end. */
	char *exact = malloc(n ? n : 1);
	if (exact)
		memcpy(exact, buf, n);
	free(buf);
	if (!exact)
		return 1;
	LLVMFuzzerTestOneInput((const uint8_t *)exact, n);
	free(exact);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, unsigned *count)
{
	DIR *dh = opendir(dir);
	if (!dh) {
		fprintf(stderr, "replay: %s: cannot open\n", dir);
		return 1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	int failed = 0;
	for (struct dirent *e; (e = readdir(dh));) {
		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? cap * 2 : 256) * sizeof *nn);
			if (!nn)
				break;
			names = nn;
		}
		names[n] = malloc(strlen(dir) + strlen(e->d_name) + 2);
		if (!names[n])
			break;
		sprintf(names[n++], "%s/%s", dir, e->d_name);
	}
	closedir(dh);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		failed |= run_file(names[i]);
		(*count)++;
		free(names[i]);
	}
	free(names);
	return failed;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int failed = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
			failed |= run_dir(argv[i], &count);
		else {
			failed |= run_file(argv[i]);
			count++;
		}
	}
	printf("%s: %u inputs replayed\n", argv[0], count);
	return failed || count == 0;
}

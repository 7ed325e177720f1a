/* Fuzz harness for tph_scenario_load_buffer on a buffer with nothing after it. The input is
 * copied to the end of a mapping whose next page is inaccessible, so a read past the end
 * faults in any build, not only under ASan, and loads twice: as a small file, and as a large
 * one takes it (the split of yaml_split.c and the fast path of yaml_fast.c forced on, as for
 * files of 1 MiB or more, where an over-read once hid). Both loads must give the same status
 * and message, and a failure must be located. */
#include "fuzz.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "load/yaml_util.h"
#include "tephra/tephra.h"

#define FILE_NAME "fuzz.yaml"

/* `size` bytes ending exactly where an inaccessible page starts; *map and *map_len for
 * munmap. NULL when the mapping fails. */
static char *at_page_end(size_t size, void **map, size_t *map_len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t data_pages = (size + page - 1) / page + (size == 0);
	*map_len = (data_pages + 1) * page;
	*map = mmap(NULL, *map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*map == MAP_FAILED)
		return NULL;
	char *guard = (char *)*map + data_pages * page;
	if (mprotect(guard, page, PROT_NONE) != 0) {
		munmap(*map, *map_len);
		return NULL;
	}
	return guard - size;
}

static int load(const char *buf, size_t len, bool split, tph_diag *d)
{
	yu_split_min_bytes = split ? 0 : SIZE_MAX;
	yu_split_min_chunk = 1; /* chunks of a quarter of the input */
	yu_split_threads = 2;
	tph_scenario *sc = (tph_scenario *)d; /* must be overwritten */
	int rc = tph_scenario_load_buffer(buf, len, FILE_NAME, &sc, d);
	if (rc != TPH_OK && sc)
		fuzz_fail("failed load returned a scenario", rc, d);
	if (rc != TPH_OK)
		fuzz_check_error(rc, d, FILE_NAME);
	tph_scenario_free(rc == TPH_OK ? sc : NULL);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *map;
	size_t map_len;
	char *buf = at_page_end(size, &map, &map_len);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	tph_diag small = {0}, large = {0};
	int rs = load(buf, size, false, &small);
	int rl = load(buf, size, true, &large);
	if (rs != rl || strcmp(small.msg, large.msg) != 0) {
		fprintf(stderr, "fuzz_unterminated: small rc=%d \"%s\"\n  large rc=%d \"%s\"\n", rs,
		        small.msg, rl, large.msg);
		abort();
	}
	yu_split_min_bytes = (size_t)1 << 20;
	munmap(map, map_len);
	return 0;
}

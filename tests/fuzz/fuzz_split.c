/* Differential fuzz harness for the parallel YAML split (yaml_split.c): with the split forced on
 * tiny inputs, yu_load_parallel must give the same document as yu_load (same tree, texts,
 * styles, lines and columns) or the same error, and a scenario load must give the same status
 * and message either way. */
#include "fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tephra/tephra.h"
#include "load/yaml_util.h"

#define FILE_NAME "fuzz.yaml"

typedef struct cmp_state {
	const yu_doc *a, *b;
	unsigned long budget; /* alias bombs share nodes: stop after this many visits */
} cmp_state;

static void differ(const char *what, const yu_node *x, const yu_node *y)
{
	fprintf(stderr, "fuzz_split: documents differ: %s (serial %u:%u, split %u:%u)\n", what,
	        x->line + 1, x->col + 1, y->line + 1, y->col + 1);
	abort();
}

static void same_node(cmp_state *st, uint32_t ia, uint32_t ib, int depth)
{
	if (!st->budget || depth > 1000)
		return;
	st->budget--;
	const yu_node *x = &st->a->nodes[ia], *y = &st->b->nodes[ib];
	if (x->type != y->type || x->len != y->len)
		differ("type or length", x, y);
	if (x->line != y->line || x->col != y->col)
		differ("position", x, y);
	if (x->type == YU_SCALAR) {
		if (x->style != y->style || memcmp(x->u.str, y->u.str, x->len + 1) != 0)
			differ("scalar", x, y);
		return;
	}
	uint32_t kids = x->type == YU_MAP ? x->len * 2 : x->len;
	for (uint32_t i = 0; i < kids; i++)
		same_node(st, x->u.items[i], y->u.items[i], depth + 1);
}

static void split_on(bool on)
{
	yu_split_min_bytes = on ? 0 : SIZE_MAX;
	yu_split_min_chunk = 1; /* chunks of a quarter of the input */
	yu_split_threads = 2;
}

static void compare_docs(const char *buf, size_t len)
{
	yu_doc serial, split;
	tph_diag ds = {0}, dp = {0};
	int rs = yu_load(buf, len, FILE_NAME, 0, 0, &serial, &ds);
	split_on(true);
	int rp = yu_load_parallel(buf, len, FILE_NAME, &split, &dp);
	if (rs != rp || strcmp(ds.msg, dp.msg) != 0) {
		fprintf(stderr, "fuzz_split: serial rc=%d \"%s\"\n  split rc=%d \"%s\"\n", rs,
		        ds.msg, rp, dp.msg);
		abort();
	}
	if (rs != TPH_OK)
		return;
	if ((serial.root == YU_NONE) != (split.root == YU_NONE)) {
		fprintf(stderr, "fuzz_split: one document is empty\n");
		abort();
	}
	if (serial.root != YU_NONE) {
		cmp_state st = {&serial, &split, 1u << 20};
		same_node(&st, serial.root, split.root, 0);
	}
	yu_doc_free(&serial);
	yu_doc_free(&split);
}

static void compare_loads(const char *buf, size_t len)
{
	tph_diag ds = {0}, dp = {0};
	tph_scenario *ss = NULL, *sp = NULL;
	split_on(false);
	int rs = tph_scenario_load_buffer(buf, len, FILE_NAME, &ss, &ds);
	split_on(true);
	int rp = tph_scenario_load_buffer(buf, len, FILE_NAME, &sp, &dp);
	if (rs != rp || strcmp(ds.msg, dp.msg) != 0) {
		fprintf(stderr, "fuzz_split: serial load rc=%d \"%s\"\n  split load rc=%d \"%s\"\n",
		        rs, ds.msg, rp, dp.msg);
		abort();
	}
	if (rs != TPH_OK)
		fuzz_check_error(rs, &ds, FILE_NAME);
	tph_scenario_free(ss);
	tph_scenario_free(sp);
}

/* FUZZ_SPLIT_STATS=1 prints how many loads took the split path (is the harness reaching it?). */
static void print_stats(void)
{
	fprintf(stderr, "fuzz_split: %lu loads split\n", yu_split_done);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool init;
	if (!init && getenv("FUZZ_SPLIT_STATS"))
		atexit(print_stats);
	init = true;
	compare_docs((const char *)data, size);
	compare_loads((const char *)data, size);
	split_on(false);
	return 0;
}

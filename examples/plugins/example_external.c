/* The smallest useful external plugin, "example-external": a predicate that rejects nodes whose
 * name starts with "blocked-" and a job order by name, on the public API alone. Built as a
 * shared object; tests/unit/test_external.c and the CLI tests (tests/cli/) load it. */
#include "tephra/plugin.h"

#include <string.h>

typedef struct example_state {
	tph_reason_code blocked;
	int64_t calls;
} example_state;

static void predicate(void *st, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, tph_reason_code *out)
{
	const example_state *es = st;
	for (uint32_t i = 0; i < n; i++) {
		const char *name = tph_session_node_name(s, nodes[i]);
		out[i] = strncmp(name, "blocked-", 8) ? TPH_PASS : es->blocked;
	}
}

static int job_order(void *st, const tph_session *s, tph_idx a, tph_idx b)
{
	((example_state *)st)->calls++;
	return strcmp(tph_session_job_name(s, a), tph_session_job_name(s, b));
}

static int on_open(tph_session *s, void *st, const tph_args *args)
{
	example_state *es = st;
	es->blocked = tph_reason(s, "node(s) were blocked by the example plugin", false);
	int rc = tph_on_predicate(s, predicate);
	return rc ? rc : tph_on_job_order(s, job_order);
}

static const tph_plugin example = {
    .abi = TPH_PLUGIN_ABI,
    .name = "example-external",
    .state_size = sizeof(example_state),
    .on_session_open = on_open,
};

const tph_plugin *tph_plugin_entry(uint32_t host_abi);

const tph_plugin *tph_plugin_entry(uint32_t host_abi)
{
	(void)host_abi;
	return &example;
}

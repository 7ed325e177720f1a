/* `tephra run --summary --format yaml|json`: the text summary's figures (output.c) as one
 * mapping, in JSON or in YAML flow style: counts, timing (a superset of the decision output's
 * `timing`) and memory in bytes. README ("Using it") and doc/tephra.1 document the shape. */
#include "cli.h"

double mem_budget(const run_result *r)
{
	return 256.0 * tph_snapshot_node_count(r->snap) + 128.0 * tph_snapshot_task_count(r->snap);
}

/* `"key": ` in JSON, `key: ` in YAML; `first` leaves out the separating comma. */
static void key(FILE *f, bool json, bool first, const char *k)
{
	fprintf(f, json ? "%s\"%s\": " : "%s%s: ", first ? "" : ", ", k);
}

static void counts(FILE *f, const tph_decision_log *l, bool json)
{
	const struct {
		const char *k;
		uint32_t v;
	} c[] = {{"binds", l->n_binds},         {"evictions", l->n_evictions},
	         {"pipelined", l->n_pipelined}, {"pending", l->n_pending},
	         {"jobs_ready", l->jobs_ready}, {"jobs", l->jobs_total}};
	fputc('{', f);
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		key(f, json, i == 0, c[i].k);
		fprintf(f, "%u", c[i].v);
	}
	fputc('}', f);
}

static void timing(FILE *f, const run_result *r, bool json)
{
	const tph_decision_log *l = r->log;
	double secs = r->session_ms / 1e3;
	fputc('{', f);
	key(f, json, true, "load_ms");
	fprintf(f, "%.3f", r->load_ms);
	key(f, json, false, "session_ms");
	fprintf(f, "%.3f", r->session_ms);
	key(f, json, false, "snapshot_ms");
	fprintf(f, "%.3f", r->snap_ms);
	key(f, json, false, "open_ms");
	fprintf(f, "%.3f", l->open_ms);
	key(f, json, false, "actions");
	fputc('{', f);
	for (uint32_t i = 0; i < l->n_actions; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, l->actions[i].action);
		fprintf(f, ": %.3f", l->actions[i].ms);
	}
	fputc('}', f);
	key(f, json, false, "close_ms");
	fprintf(f, "%.3f", l->close_ms);
	key(f, json, false, "tasks_per_s");
	fprintf(f, "%.0f", secs > 0 ? l->n_binds / secs : 0.0);
	fputc('}', f);
}

static void memory(FILE *f, const run_result *r, bool json)
{
	tph_session_memory m = tph_session_mem(r->ssn);
	const struct {
		const char *k;
		double v;
	} c[] = {{"open_bytes", (double)r->mem_open},
	         {"actions_bytes", (double)r->mem_run},
	         {"close_bytes", (double)(m.arena + m.heap)},
	         {"arena_bytes", (double)m.arena},
	         {"heap_bytes", (double)m.heap},
	         {"peak_bytes", (double)m.peak},
	         {"budget_bytes", mem_budget(r)},
	         {"snapshot_bytes", (double)tph_snapshot_bytes(r->snap)}};
	fputc('{', f);
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
		key(f, json, i == 0, c[i].k);
		fprintf(f, "%.0f", c[i].v);
	}
	fputc('}', f);
}

void write_summary(FILE *f, const run_result *r, bool json)
{
	/* One top-level key per line: `{\n  "k": v,\n ... \n}` or `k: v\n...`. */
	const char *open = json ? "{\n  \"" : "", *sep = json ? ",\n  \"" : "\n";
	const char *q = json ? "\"" : "";
	fprintf(f, "%sscenario%s: ", open, q);
	json_str(f, tph_scenario_name(r->scn));
	fprintf(f, "%scounts%s: ", sep, q);
	counts(f, r->log, json);
	fprintf(f, "%stiming%s: ", sep, q);
	timing(f, r, json);
	fprintf(f, "%smemory%s: ", sep, q);
	memory(f, r, json);
	fputs(json ? "\n}\n" : "\n", f);
}

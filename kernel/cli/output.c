/* Decision writers: text for people, YAML, and JSON exactly as the spec's "Decision output"
 * section says (other tools parse it). Everything but timing is deterministic. */
#include "cli.h"

#include "base/msg_text.h"

#include <stdlib.h>
#include <string.h>

void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* `, "annotations": {...}` of a bind on which plugins set some (keys come sorted). */
static void json_annotations(FILE *f, tph_kv_list a)
{
	if (!a.n)
		return;
	fputs(", \"annotations\": {", f);
	for (uint32_t k = 0; k < a.n; k++) {
		fputs(k ? ", " : "", f);
		json_str(f, a.items[k].key);
		fputs(": ", f);
		json_str(f, a.items[k].value);
	}
	fputc('}', f);
}

static void json_rows(FILE *f, const char *key, const tph_decision *d, uint32_t n,
                      const char *second)
{
	fprintf(f, "  \"%s\": [", key);
	for (uint32_t i = 0; i < n; i++) {
		fputs(i ? ",\n    {\"pod\": " : "\n    {\"pod\": ", f);
		json_str(f, d[i].pod);
		fprintf(f, ", \"%s\": ", second);
		json_str(f, second[0] == 'n' ? d[i].node : d[i].reason);
		json_annotations(f, d[i].annotations);
		fputc('}', f);
	}
	fputs(n ? "\n  ],\n" : "],\n", f);
}

static void json_pending(FILE *f, const tph_decision_log *l)
{
	fputs("  \"pending\": [", f);
	for (uint32_t i = 0; i < l->n_pending; i++) {
		fputs(i ? ",\n    {\"pod\": " : "\n    {\"pod\": ", f);
		json_str(f, l->pending[i].pod);
		fputs(", \"reasons\": [", f);
		for (uint32_t k = 0; k < l->pending[i].n_reasons; k++) {
			if (k)
				fputs(", ", f);
			json_str(f, l->pending[i].reasons[k]);
		}
		fputs("]}", f);
	}
	fputs(l->n_pending ? "\n  ],\n" : "],\n", f);
}

void write_json(FILE *f, const run_result *r)
{
	const tph_decision_log *l = r->log;
	fputs("{\n  \"scenario\": ", f);
	json_str(f, tph_scenario_name(r->scn));
	fputs(",\n", f);
	json_rows(f, "binds", l->binds, l->n_binds, "node");
	json_rows(f, "evictions", l->evictions, l->n_evictions, "reason");
	json_rows(f, "pipelined", l->pipelined, l->n_pipelined, "node");
	fputs("  \"podGroups\": [", f);
	for (uint32_t i = 0; i < l->n_phases; i++) {
		fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
		json_str(f, l->phases[i].podgroup);
		fputs(", \"phase\": ", f);
		json_str(f, l->phases[i].phase);
		fputc('}', f);
	}
	fputs(l->n_phases ? "\n  ],\n" : "],\n", f);
	json_pending(f, l);
	fprintf(f, "  \"timing\": {\"load_ms\": %.3f, \"session_ms\": %.3f, \"actions\": {",
	        r->load_ms, r->session_ms);
	for (uint32_t i = 0; i < l->n_actions; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, l->actions[i].action);
		fprintf(f, ": %.3f", l->actions[i].ms);
	}
	fputs("}},\n", f);
	json_why(f, l, NULL);
	fputs("}\n", f);
}

/* JSON strings are valid YAML double-quoted scalars, so one escaper serves both. */
static void yaml_rows(FILE *f, const char *key, const tph_decision *d, uint32_t n, bool node)
{
	fprintf(f, "%s:%s\n", key, n ? "" : " []");
	for (uint32_t i = 0; i < n; i++) {
		fputs("  - {pod: ", f);
		json_str(f, d[i].pod);
		fprintf(f, ", %s: ", node ? "node" : "reason");
		json_str(f, node ? d[i].node : d[i].reason);
		json_annotations(f, d[i].annotations); /* a JSON object is a YAML flow mapping */
		fputs("}\n", f);
	}
}

static void yaml_pending(FILE *f, const tph_decision_log *l)
{
	fprintf(f, "pending:%s\n", l->n_pending ? "" : " []");
	for (uint32_t i = 0; i < l->n_pending; i++) {
		fputs("  - pod: ", f);
		json_str(f, l->pending[i].pod);
		fputs("\n    reasons: [", f);
		for (uint32_t k = 0; k < l->pending[i].n_reasons; k++) {
			fputs(k ? ", " : "", f);
			json_str(f, l->pending[i].reasons[k]);
		}
		fputs("]\n", f);
	}
}

void write_yaml(FILE *f, const run_result *r)
{
	const tph_decision_log *l = r->log;
	fputs("scenario: ", f);
	json_str(f, tph_scenario_name(r->scn));
	fputc('\n', f);
	yaml_rows(f, "binds", l->binds, l->n_binds, true);
	yaml_rows(f, "evictions", l->evictions, l->n_evictions, false);
	yaml_rows(f, "pipelined", l->pipelined, l->n_pipelined, true);
	fprintf(f, "podGroups:%s\n", l->n_phases ? "" : " []");
	for (uint32_t i = 0; i < l->n_phases; i++) {
		fputs("  - {name: ", f);
		json_str(f, l->phases[i].podgroup);
		fprintf(f, ", phase: %s}\n", l->phases[i].phase);
	}
	yaml_pending(f, l);
	fprintf(f, "timing: {load_ms: %.3f, session_ms: %.3f}\n", r->load_ms, r->session_ms);
	yaml_why(f, l, NULL);
}

static void text_timing(FILE *f, const run_result *r)
{
	const tph_decision_log *l = r->log;
	fprintf(f, "timing: load %.2f ms, session %.2f ms (snapshot %.2f, open %.2f", r->load_ms,
	        r->session_ms, r->snap_ms, l->open_ms);
	for (uint32_t i = 0; i < l->n_actions; i++)
		fprintf(f, ", %s %.2f", l->actions[i].action, l->actions[i].ms);
	fprintf(f, ", close %.2f)\n", l->close_ms);
}

/* What the session holds (tph_session_mem) against the budget of 256 B per node and 128 B per
 * task, beside the snapshot's bytes. */
static void text_memory(FILE *f, const run_result *r)
{
	const double mb = 1024.0 * 1024.0;
	tph_session_memory m = tph_session_mem(r->ssn);
	double budget = mem_budget(r);
	fprintf(
	    f,
	    "memory: session %.2f MB after open, %.2f after actions, %.2f at close (arena %.2f +"
	    " heap %.2f), peak %.2f; budget %.2f MB (close %.2f of it); snapshot %.2f MB\n",
	    r->mem_open / mb, r->mem_run / mb, (m.arena + m.heap) / mb, m.arena / mb, m.heap / mb,
	    m.peak / mb, budget / mb, (m.arena + m.heap) / budget,
	    tph_snapshot_bytes(r->snap) / mb);
}

/* Names and reasons come from the input: in text, to a terminal, a control byte is \xNN (JSON
 * and YAML escape them their own way). */
static void text_str(FILE *f, const char *s)
{
	size_t cap = 4 * strlen(s) + 1;
	char small[512], *buf = cap <= sizeof small ? small : malloc(cap);
	if (!buf)
		return;
	tph_msg_escape(buf, cap, s);
	fputs(buf, f);
	if (buf != small)
		free(buf);
}

/* "<prefix><a><middle><b>\n", a and b escaped. */
static void text_row(FILE *f, const char *prefix, const char *a, const char *middle, const char *b)
{
	fputs(prefix, f);
	text_str(f, a);
	fputs(middle, f);
	text_str(f, b);
	fputc('\n', f);
}

static void text_summary(FILE *f, const run_result *r)
{
	const tph_decision_log *l = r->log;
	double secs = r->session_ms / 1e3;
	text_str(f, tph_scenario_name(r->scn));
	fprintf(f, ": %u tasks bound, %u evicted, %u pipelined, %u/%u jobs ready, %u pending",
	        l->n_binds, l->n_evictions, l->n_pipelined, l->jobs_ready, l->jobs_total,
	        l->n_pending);
	if (secs > 0)
		fprintf(f, ", %.0f tasks/s", l->n_binds / secs);
	fputc('\n', f);
	text_timing(f, r);
	text_memory(f, r);
}

void write_text(FILE *f, const run_result *r, bool summary_only)
{
	const tph_decision_log *l = r->log;
	text_summary(f, r);
	if (summary_only)
		return;
	for (uint32_t i = 0; i < l->n_binds; i++)
		text_row(f, "bind      ", l->binds[i].pod, " -> ", l->binds[i].node);
	for (uint32_t i = 0; i < l->n_evictions; i++) { /* reasons are the kernel's own words */
		fputs("evict     ", f);
		text_str(f, l->evictions[i].pod);
		fprintf(f, " (%s)\n", l->evictions[i].reason ? l->evictions[i].reason : "");
	}
	for (uint32_t i = 0; i < l->n_pipelined; i++)
		text_row(f, "pipeline  ", l->pipelined[i].pod, " -> ", l->pipelined[i].node);
	for (uint32_t i = 0; i < l->n_phases; i++)
		text_row(f, "podgroup  ", l->phases[i].podgroup, " ", l->phases[i].phase);
	for (uint32_t i = 0; i < l->n_pending; i++) {
		fputs("pending   ", f);
		text_str(f, l->pending[i].pod);
		for (uint32_t k = 0; k < l->pending[i].n_reasons; k++) {
			fputs(k ? "; " : ": ", f);
			text_str(f, l->pending[i].reasons[k]);
		}
		fputc('\n', f);
	}
	text_why(f, l, NULL, false);
}

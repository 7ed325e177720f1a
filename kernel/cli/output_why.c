/* Writers for why jobs are pending and the queue readout (tph_job_row, tph_queue_row): text
 * lines, and the `jobs` and `queues` keys that `run` and `explain` add after the spec's
 * decision output (docs/format-additions.md). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static void qty(FILE *f, const tph_decision_log *l, uint32_t d, int64_t v)
{
	char buf[48];
	tph_quantity_format(v, (tph_res_unit)l->dim_units[d], buf, sizeof buf);
	fputs(buf, f);
}

/* Dimensions a resource list shows: cpu and memory always (Volcano's ResourceList has both),
 * the others when non-zero; never an unlimited value. */
static bool shown(const tph_decision_log *l, const int64_t *row, uint32_t d)
{
	if (row[d] == INT64_MAX)
		return false;
	return row[d] || !strcmp(l->dims[d], "cpu") || !strcmp(l->dims[d], "memory");
}

/* {"cpu": "4", "memory": "8Gi"} (a JSON object is a YAML flow mapping), or null. */
static void json_res(FILE *f, const tph_decision_log *l, const int64_t *row)
{
	if (!row) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	bool first = true;
	for (uint32_t d = 0; d < l->n_dims; d++) {
		if (!shown(l, row, d))
			continue;
		fputs(first ? "" : ", ", f);
		first = false;
		json_str(f, l->dims[d]);
		fputs(": \"", f);
		qty(f, l, d, row[d]);
		fputc('"', f);
	}
	fputc('}', f);
}

/* The shortest of %.15g and %.17g that reads back as the same double, so readers get the
 * plugin's value exactly. */
static void json_double(FILE *f, double v)
{
	char b[40];
	snprintf(b, sizeof b, "%.15g", v);
	if (strtod(b, NULL) != v)
		snprintf(b, sizeof b, "%.17g", v);
	fputs(b, f);
}

static void json_or_null(FILE *f, const char *s)
{
	if (s)
		json_str(f, s);
	else
		fputs("null", f);
}

static void json_job(FILE *f, const tph_job_row *j)
{
	fputs("{\"podGroup\": ", f);
	json_str(f, j->podgroup);
	fputs(", \"queue\": ", f);
	json_str(f, j->queue);
	fprintf(f, ", \"kind\": \"%s\", \"plugin\": ", tph_job_why_name(j->why));
	json_or_null(f, j->plugin);
	fputs(", \"message\": ", f);
	json_str(f, j->message);
	fprintf(f,
	        ", \"minMember\": %d, \"tasks\": %u, \"ready\": %u, \"placeable\": %u, "
	        "\"pending\": %u, \"unfit\": %u, \"condition\": ",
	        j->min_member, j->tasks, j->ready, j->placeable, j->pending, j->unfit);
	if (!j->cond_type) {
		fputs("null}", f);
		return;
	}
	fputs("{\"type\": ", f);
	json_str(f, j->cond_type);
	fputs(", \"reason\": ", f);
	json_str(f, j->cond_reason);
	fputs(", \"message\": ", f);
	json_str(f, j->cond_message);
	fputs("}}", f);
}

static void json_queue(FILE *f, const tph_decision_log *l, const tph_queue_row *q)
{
	static const char *const keys[] = {"allocated", "deserved",   "request",
	                                   "inqueue",   "capability", "guarantee"};
	const int64_t *rows[] = {q->allocated, q->deserved,   q->request,
	                         q->inqueue,   q->capability, q->guarantee};
	fputs("{\"name\": ", f);
	json_str(f, q->name);
	fprintf(f, ", \"state\": \"%s\", \"weight\": %d, \"share\": ", q->state, q->weight);
	if (q->share >= 0)
		json_double(f, q->share);
	else
		fputs("null", f);
	fputs(", \"reportedBy\": ", f);
	json_or_null(f, q->reported_by);
	for (int i = 0; i < 6; i++) {
		fprintf(f, ", \"%s\": ", keys[i]);
		json_res(f, l, rows[i]);
	}
	fprintf(f,
	        ", \"status\": {\"pending\": %u, \"inqueue\": %u, \"running\": %u, \"unknown\": "
	        "%u, \"completed\": %u}",
	        q->podgroups[0], q->podgroups[1], q->podgroups[2], q->podgroups[3],
	        q->podgroups[4]);
	fprintf(f, ", \"pending\": {\"jobs\": %u", q->jobs_pending);
	for (int k = 0; k < TPH_WHY_COUNT; k++)
		if (q->by_why[k])
			fprintf(f, ", \"%s\": %u", tph_job_why_name((tph_job_why)k), q->by_why[k]);
	fputs("}, \"summary\": ", f);
	json_str(f, q->summary);
	fputc('}', f);
}

/* `  "jobs": [...],\n  "queues": [...]\n`, the last keys of the object; only the job named
 * `job` when it is not NULL. */
void json_why(FILE *f, const tph_decision_log *l, const char *job)
{
	fputs("  \"jobs\": [", f);
	uint32_t k = 0;
	for (uint32_t i = 0; i < l->n_jobs; i++) {
		if (job && strcmp(job, l->jobs[i].podgroup))
			continue;
		fputs(k++ ? ",\n    " : "\n    ", f);
		json_job(f, &l->jobs[i]);
	}
	fputs(k ? "\n  ],\n  \"queues\": [" : "],\n  \"queues\": [", f);
	for (uint32_t i = 0; i < l->n_queues; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		json_queue(f, l, &l->queues[i]);
	}
	fputs(l->n_queues ? "\n  ]\n" : "]\n", f);
}

/* The same in YAML: one flow mapping per row. */
void yaml_why(FILE *f, const tph_decision_log *l, const char *job)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < l->n_jobs; i++)
		k += !job || !strcmp(job, l->jobs[i].podgroup);
	fprintf(f, "jobs:%s\n", k ? "" : " []");
	for (uint32_t i = 0; i < l->n_jobs; i++) {
		if (job && strcmp(job, l->jobs[i].podgroup))
			continue;
		fputs("  - ", f);
		json_job(f, &l->jobs[i]);
		fputc('\n', f);
	}
	fprintf(f, "queues:%s\n", l->n_queues ? "" : " []");
	for (uint32_t i = 0; i < l->n_queues; i++) {
		fputs("  - ", f);
		json_queue(f, l, &l->queues[i]);
		fputc('\n', f);
	}
}

static void text_res(FILE *f, const tph_decision_log *l, const char *key, const int64_t *row)
{
	if (!row)
		return;
	fprintf(f, "; %s", key);
	bool any = false;
	for (uint32_t d = 0; d < l->n_dims; d++) {
		if (!shown(l, row, d))
			continue;
		fprintf(f, "%s%s ", any ? ", " : " ", l->dims[d]);
		qty(f, l, d, row[d]);
		any = true;
	}
	if (!any)
		fputs(" -", f);
}

static void text_queue(FILE *f, const tph_decision_log *l, const tph_queue_row *q)
{
	fprintf(f, "queue     %s %s weight %d", q->name, q->state, q->weight);
	if (q->share >= 0)
		fprintf(f, " share %.3g (%s)", q->share, q->reported_by);
	fprintf(f, "; podgroups %u pending, %u inqueue, %u running", q->podgroups[0],
	        q->podgroups[1], q->podgroups[2]);
	text_res(f, l, "allocated", q->allocated);
	text_res(f, l, "deserved", q->deserved);
	text_res(f, l, "request", q->request);
	text_res(f, l, "inqueue", q->inqueue);
	text_res(f, l, "capability", q->capability);
	text_res(f, l, "guarantee", q->guarantee);
	fputc('\n', f);
}

/* One line per pending job, then per queue its readout and its pending summary. */
void text_why(FILE *f, const tph_decision_log *l, const char *job, bool conditions)
{
	for (uint32_t i = 0; i < l->n_jobs; i++) {
		const tph_job_row *j = &l->jobs[i];
		if (job && strcmp(job, j->podgroup))
			continue;
		fprintf(f, "job       %s [%s] %s\n", j->podgroup, tph_job_why_name(j->why),
		        j->message);
		if (conditions && j->cond_type)
			fprintf(f, "          condition %s/%s: %s\n", j->cond_type, j->cond_reason,
			        j->cond_message);
	}
	for (uint32_t i = 0; i < l->n_queues; i++) {
		text_queue(f, l, &l->queues[i]);
		fprintf(f, "          %s\n", l->queues[i].summary);
	}
}

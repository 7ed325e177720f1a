/* `--jsonl FILE`: one JSON object per recorded cycle and a closing summary (sim/README.md
 * documents every key). Numbers are printed with %.6g; timing keys end in _ms. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void body(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
}

static void str(FILE *f, const char *s)
{
	fputc('"', f);
	body(f, s);
	fputc('"', f);
}

static void num(FILE *f, double v)
{
	fprintf(f, "%.6g", isfinite(v) ? v : 0);
}

static void res3(FILE *f, const char *key, const double *v)
{
	fprintf(f, ",\"%s\":{", key);
	for (int r = 0; r < R_N; r++) {
		fprintf(f, "%s\"%s\":", r ? "," : "", sim_res_names[r]);
		num(f, v[r]);
	}
	fputc('}', f);
}

void sim_jsonl_cycle(FILE *f, const sim_run *r, uint32_t row)
{
	const sim_cycle *c = &r->rows[row];
	const sim_cycle *first = &r->rows[0];
	fputs("{\"run\":", f);
	str(f, r->label);
	fprintf(f, ",\"t\":");
	num(f, (double)(c->t_ms - first->t_ms) / 1000.0);
	fprintf(f, ",\"cycles\":%u", c->cycles);
	res3(f, "alloc", c->alloc);
	fprintf(f,
	        ",\"pending_tasks\":%u,\"running_tasks\":%u,\"pending_jobs\":%u,"
	        "\"running_jobs\":%u,\"arrivals\":%u,\"completions\":%u,\"binds\":%u,"
	        "\"evictions\":%u,\"pipelined\":%u,\"frag\":",
	        c->pending_tasks, c->running_tasks, c->pending_jobs, c->running_jobs, c->arrivals,
	        c->completions, c->binds, c->evictions, c->pipelined);
	num(f, c->frag);
	fputs(",\"queues\":{", f);
	for (uint32_t q = 0; q < r->n_queues; q++) {
		fputs(q ? "," : "", f);
		str(f, r->queue_names[q]);
		fputs(":{\"allocated\":", f);
		num(f, r->queue_alloc[(size_t)row * r->n_queues + q]);
		fputs(",\"deserved\":", f);
		num(f, r->queue_deserved[(size_t)row * r->n_queues + q]);
		fputc('}', f);
	}
	fputs("},\"session_ms\":", f);
	num(f, c->session_ms);
	fputs("}\n", f);
}

/* Seconds after the first cycle, or null for a time that has not come. */
static void at(FILE *f, const char *key, int64_t ms, int64_t t0)
{
	fprintf(f, ",\"%s\":", key);
	if (ms < 0)
		fputs("null", f);
	else
		num(f, (double)(ms - t0) / 1000.0);
}

void sim_jsonl_jobs(FILE *f, const sim_workload *w, const sim_run *r)
{
	int64_t t0 = r->n_rows ? r->rows[0].t_ms : w->t0_ms;
	for (uint32_t i = 0; i < w->n_jobs; i++) {
		const sim_job *j = &w->jobs[i];
		if (!j->arrived || !j->n_pods)
			continue;
		const tph_pod_desc *p = &w->pods[j->first_pod].d;
		fputs("{\"run\":", f);
		str(f, r->label);
		fputs(",\"job\":\"", f);
		body(f, j->d.name ? j->d.namespace_ : p->namespace_);
		fputc('/', f);
		body(f, j->d.name ? j->d.name : p->name);
		fputs("\",\"queue\":", f);
		str(f, w->queues[j->queue].name);
		fprintf(f, ",\"pods\":%u,\"min_member\":%d", j->n_pods, j->min_member);
		at(f, "arrival", j->arrive_ms > t0 ? j->arrive_ms : t0, t0);
		at(f, "start", j->start_ms < 0 ? -1 : j->start_ms > t0 ? j->start_ms : t0, t0);
		fputs(",\"wait\":", f);
		if (j->start_ms < 0)
			fputs("null", f);
		else
			num(f, (double)(j->start_ms - j->arrive_ms) / 1000.0);
		at(f, "end", j->end_ms, t0);
		fputs("}\n", f);
	}
}

void sim_summarise(sim_run *r, sim_summary *s)
{
	memset(s, 0, sizeof *s);
	s->wait_p50_s = sim_percentile(r->waits, r->n_waits, 50) / 1000.0;
	s->wait_p90_s = sim_percentile(r->waits, r->n_waits, 90) / 1000.0;
	s->wait_p99_s = sim_percentile(r->waits, r->n_waits, 99) / 1000.0;
	double cycles = 0;
	for (uint32_t i = 0; i < r->n_rows; i++) {
		const sim_cycle *c = &r->rows[i];
		for (int k = 0; k < R_N; k++)
			s->mean_alloc[k] += c->alloc[k] * c->cycles;
		s->mean_frag += c->frag * c->cycles;
		cycles += c->cycles;
	}
	s->session_ms_max = r->session_max_ms;
	for (int k = 0; k < R_N && cycles; k++)
		s->mean_alloc[k] /= cycles;
	s->mean_frag = cycles ? s->mean_frag / cycles : 0;
	s->session_ms_mean = r->sessions ? r->session_ms / (double)r->sessions : 0;
}

void sim_jsonl_summary(FILE *f, const sim_run *r)
{
	sim_summary s;
	sim_summarise((sim_run *)r, &s);
	fputs("{\"summary\":true,\"run\":", f);
	str(f, r->label);
	fprintf(f,
	        ",\"cycles\":%llu,\"sessions\":%llu,\"binds\":%llu,\"evictions\":%llu,"
	        "\"jobs_started\":%u,\"jobs_done\":%llu,\"wait_s\":{\"p50\":",
	        (unsigned long long)r->cycles, (unsigned long long)r->sessions,
	        (unsigned long long)r->binds, (unsigned long long)r->evictions, r->n_waits,
	        (unsigned long long)r->jobs_done);
	num(f, s.wait_p50_s);
	fputs(",\"p90\":", f);
	num(f, s.wait_p90_s);
	fputs(",\"p99\":", f);
	num(f, s.wait_p99_s);
	fputc('}', f);
	res3(f, "mean_alloc", s.mean_alloc);
	fputs(",\"deserved_source\":", f);
	str(f, r->deserved_source[0] ? r->deserved_source : "simulator");
	fputs(",\"mean_frag\":", f);
	num(f, s.mean_frag);
	if (r->n_cap) {
		fprintf(f, ",\"capacity\":{\"arrivals\":%u,\"final_request_pct\":", r->n_cap);
		num(f, r->cap_x[r->n_cap - 1]);
		fputs(",\"final_alloc_pct\":", f);
		num(f, r->cap_y[r->n_cap - 1]);
		fputs("},\"capacity_ms\":", f);
		num(f, r->cap_wall_ms);
	}
	fputs(",\"session_ms\":", f);
	num(f, r->session_ms);
	fputs(",\"session_mean_ms\":", f);
	num(f, s.session_ms_mean);
	fputs(",\"session_max_ms\":", f);
	num(f, s.session_ms_max);
	fputs(",\"wall_ms\":", f);
	num(f, r->wall_ms);
	fputs("}\n", f);
}

/* When jobs arrive and how long they run: an arrival file, draws from a seed (Poisson arrivals,
 * log-normal durations), a window of a trace; then the start, which takes every job that has not
 * arrived yet out of the cache. */
#include "sim.h"
#include "gen_io.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A job's name as an arrival file writes it: namespace/podgroup, or namespace/pod without one. */
static bool job_is(const sim_workload *w, const sim_job *j, const char *key, size_t n)
{
	const tph_pod_desc *p = &w->pods[j->first_pod].d;
	const char *ns = j->d.name ? j->d.namespace_ : p->namespace_;
	const char *name = j->d.name ? j->d.name : p->name;
	size_t l = strlen(ns);
	return j->n_pods && l < n && !strncmp(key, ns, l) && key[l] == '/' &&
	       strlen(name) == n - l - 1 && !strncmp(key + l + 1, name, n - l - 1);
}

static int bad(const char *path, uint32_t line, size_t col, const char *what, const char *tok,
               size_t n)
{
	fprintf(stderr, "tephra simulate: %s:%u:%zu: %s (\"%.*s\")\n", path, line, col + 1, what,
	        (int)(n > 64 ? 64 : n), tok);
	return 2;
}

/* Seconds as a decimal number, >= 0 (or "-" when `dash_ok`: -1). */
static bool seconds(const char *s, size_t n, bool dash_ok, int64_t *ms)
{
	if (dash_ok && n == 1 && *s == '-') {
		*ms = -1;
		return true;
	}
	char buf[64], *end;
	if (!n || n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = 0;
	errno = 0;
	double v = strtod(buf, &end);
	if (*end || errno || !(v >= 0) || v > 1e12)
		return false;
	*ms = (int64_t)llround(v * 1000);
	return true;
}

static int arrival_line(const char *path, uint32_t ln, const char *l, sim_workload *w)
{
	const char *tok[3] = {l, l, l};
	size_t len[3] = {0}, n = 0;
	for (const char *p = l; *p && n < 4;) {
		p += strspn(p, " \t\r");
		if (!*p || *p == '#')
			break;
		size_t k = strcspn(p, " \t\r#");
		if (n == 3)
			return bad(path, ln, (size_t)(p - l), "too many fields", p, k);
		tok[n] = p, len[n++] = k;
		p += k;
	}
	if (!n)
		return 0;
	if (n < 2)
		return bad(path, ln, 0, "want: namespace/podgroup arrival_s [duration_s]", l,
		           strlen(l));
	uint32_t j = 0;
	while (j < w->n_jobs && !job_is(w, &w->jobs[j], tok[0], len[0]))
		j++;
	if (j == w->n_jobs)
		return bad(path, ln, 0, "no such podgroup (or pod without one)", tok[0], len[0]);
	int64_t at, dur = w->jobs[j].dur_ms;
	if (!seconds(tok[1], len[1], false, &at))
		return bad(path, ln, (size_t)(tok[1] - l), "field arrival: not seconds >= 0",
		           tok[1], len[1]);
	if (n == 3 && !seconds(tok[2], len[2], true, &dur))
		return bad(path, ln, (size_t)(tok[2] - l), "field duration: not seconds >= 0 or -",
		           tok[2], len[2]);
	w->jobs[j].arrive_ms = w->now_ms + at;
	w->jobs[j].dur_ms = dur;
	return 0;
}

int sim_arrivals_read(const char *path, sim_workload *w)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	if (!f) {
		fprintf(stderr, "tephra simulate: %s: %s\n", path, strerror(errno));
		return 2;
	}
	char line[4096];
	uint32_t ln = 0;
	int rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		ln++;
		size_t l = strlen(line);
		if (l && line[l - 1] == '\n')
			line[--l] = 0;
		else if (!feof(f))
			rc = bad(path, ln, 4095, "line too long", "", 0);
		if (!rc)
			rc = arrival_line(path, ln, line, w);
	}
	if (!rc && ferror(f))
		rc = bad(path, ln, 0, "read error", strerror(errno), strlen(strerror(errno)));
	if (f != stdin)
		fclose(f);
	return rc;
}

/* Whether a job waits for a place: it has pods, none of them placed or done yet. */
static bool fresh(const sim_job *j)
{
	return j->n_pods && !j->placed && !j->done;
}

static double normal(gen_rng *r)
{
	double u = rng_unit(r), v = rng_unit(r);
	return sqrt(-2.0 * log(1.0 - u)) * cos(2.0 * 3.14159265358979323846 * v);
}

void sim_arrivals_draw(sim_workload *w, uint64_t seed, double span_s, double median_s, double sigma)
{
	gen_rng arr = rng_stream(seed, 101), dur = rng_stream(seed, 102);
	uint32_t n = 0;
	for (uint32_t j = 0; j < w->n_jobs; j++)
		n += fresh(&w->jobs[j]);
	double gap = n ? span_s / n : 0, t = 0;
	for (uint32_t j = 0; j < w->n_jobs; j++) {
		if (!fresh(&w->jobs[j]))
			continue;
		t += -log(1.0 - rng_unit(&arr)) * gap;
		w->jobs[j].arrive_ms = w->now_ms + (int64_t)llround(t * 1000);
		double d = median_s * exp(sigma * normal(&dur));
		w->jobs[j].dur_ms = (int64_t)llround((d < 1 ? 1 : d) * 1000);
	}
}

void sim_window(sim_workload *w, int64_t from_s, int64_t span_s)
{
	int64_t base = INT64_MAX;
	for (uint32_t j = 0; j < w->n_jobs; j++)
		if (fresh(&w->jobs[j]) && w->jobs[j].arrive_ms < base)
			base = w->jobs[j].arrive_ms;
	if (base == INT64_MAX)
		return;
	int64_t from = base + from_s * 1000, to = from + span_s * 1000;
	for (uint32_t j = 0; j < w->n_jobs; j++) {
		sim_job *job = &w->jobs[j];
		if (!fresh(job))
			continue;
		if (job->arrive_ms < from) {
			int64_t left = job->dur_ms < 0 ? -1 : job->arrive_ms + job->dur_ms - from;
			job->dropped = job->dur_ms >= 0 && left <= 0;
			job->arrive_ms = from;
			job->dur_ms = left;
		} else
			job->dropped = job->arrive_ms >= to;
	}
	w->end_ms = to;
}

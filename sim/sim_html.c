/* `--html FILE`: one self-contained XHTML page (inline CSS and SVG; nothing fetched) with the
 * summary table and the plots of one run, or of two overlaid (--compare: the second dashed).
 * Every plot is an <svg> with a fixed id (sim/README.md lists them). */
#include "sim.h"
#include "sim_svg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SERIES 24
#define MAX_QUEUES 6

static const char css[] =
    "body{font-family:sans-serif;margin:2em;color:#222;max-width:1400px}"
    "h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.5em}"
    "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:3px 8px;"
    "text-align:right}th:first-child,td:first-child{text-align:left}"
    "svg{margin:4px;border:1px solid #eee}.frame{fill:none;stroke:#888}"
    ".grid{stroke:#eee}.tick{font-size:10px;fill:#555}.title{font-size:13px;"
    "font-weight:bold}.label{font-size:11px;fill:#333}.legend{font-size:11px}";

/* Series data lives here until the chart is written. */
typedef struct chart_buf {
	svg_series s[MAX_SERIES];
	double *mem[MAX_SERIES * 2];
	uint32_t n, n_mem;
	bool failed;
} chart_buf;

static double *col(chart_buf *b, uint32_t n)
{
	double *v = b->n_mem < MAX_SERIES * 2 ? malloc((n + 1) * sizeof *v) : NULL;
	if (!v)
		b->failed = true;
	else
		b->mem[b->n_mem++] = v;
	return v;
}

static void buf_free(chart_buf *b)
{
	for (uint32_t i = 0; i < b->n_mem; i++)
		free(b->mem[i]);
	memset(b, 0, sizeof *b);
}

/* Hours since the run's first cycle. */
static double *hours(chart_buf *b, const sim_run *r)
{
	double *x = col(b, r->n_rows);
	for (uint32_t i = 0; x && i < r->n_rows; i++)
		x[i] = (double)(r->rows[i].t_ms - r->rows[0].t_ms) / 3.6e6;
	return x;
}

typedef double (*row_fn)(const sim_cycle *c, int k);

static void add(chart_buf *b, const sim_run *r, uint32_t ri, const double *x, row_fn fn, int k,
                const char *label, uint32_t color)
{
	double *y = col(b, r->n_rows);
	if (!y || !x || b->n == MAX_SERIES)
		return;
	for (uint32_t i = 0; i < r->n_rows; i++)
		y[i] = fn(&r->rows[i], k);
	b->s[b->n++] = (svg_series){label, x, y, r->n_rows, svg_color(color), ri > 0};
}

static double f_alloc(const sim_cycle *c, int k)
{
	return 100 * c->alloc[k];
}
static double f_tasks(const sim_cycle *c, int k)
{
	return k ? c->running_tasks : c->pending_tasks;
}
static double f_frag(const sim_cycle *c, int k)
{
	return (void)k, 100 * c->frag;
}
static double f_sess(const sim_cycle *c, int k)
{
	return (void)k, c->session_ms;
}

static void chart(FILE *f, chart_buf *b, const char *id, const char *title, const char *yl,
                  const char *xl, double ymax)
{
	svg_chart c = {id, title, xl, yl, b->s, b->n, ymax};
	svg_chart_write(f, &c);
	buf_free(b);
}

static const char *tag(const char *base, uint32_t ri, uint32_t n_runs, char *buf, size_t cap)
{
	if (n_runs < 2)
		return base;
	snprintf(buf, cap, "%s (%c)", base, 'A' + ri);
	return buf;
}

static void time_plots(FILE *f, sim_run *const *runs, uint32_t n)
{
	static const char *const res[] = {"cpu", "memory", "GPU"};
	static const char *const tasks[] = {"pending tasks", "running tasks"};
	char lab[MAX_SERIES][64];
	chart_buf b = {0};
	for (uint32_t ri = 0; ri < n; ri++)
		for (int k = 0; k < R_N; k++)
			add(&b, runs[ri], ri, hours(&b, runs[ri]), f_alloc, k,
			    tag(res[k], ri, n, lab[ri * R_N + k], 64), (uint32_t)k);
	chart(f, &b, "plot-alloc", "Allocation (% of capacity)", "%", "hours", 100);
	for (uint32_t ri = 0; ri < n; ri++)
		for (int k = 0; k < 2; k++)
			add(&b, runs[ri], ri, hours(&b, runs[ri]), f_tasks, k,
			    tag(tasks[k], ri, n, lab[ri * 2 + k], 64), (uint32_t)k);
	chart(f, &b, "plot-tasks", "Pending and running tasks", "tasks", "hours", 0);
	for (uint32_t ri = 0; ri < n; ri++)
		add(&b, runs[ri], ri, hours(&b, runs[ri]), f_frag, 0,
		    tag("fragmentation", ri, n, lab[ri], 64), 0);
	chart(f, &b, "plot-frag",
	      "GPU fragmentation (FGD: % of unallocated GPU no typical task can use)", "%", "hours",
	      100);
	for (uint32_t ri = 0; ri < n; ri++)
		add(&b, runs[ri], ri, hours(&b, runs[ri]), f_sess, 0,
		    tag("session", ri, n, lab[ri], 64), 0);
	chart(f, &b, "plot-session", "Session time per cycle (ms)", "ms", "hours", 0);
}

static void wait_plot(FILE *f, sim_run *const *runs, uint32_t n)
{
	chart_buf b = {0};
	char lab[2][64];
	for (uint32_t ri = 0; ri < n; ri++) {
		const sim_run *r = runs[ri]; /* waits are sorted by sim_summarise */
		double *x = col(&b, r->n_waits), *y = col(&b, r->n_waits);
		for (uint32_t i = 0; x && y && i < r->n_waits; i++)
			x[i] = (double)r->waits[i] / 1000.0, y[i] = 100.0 * (i + 1) / r->n_waits;
		if (x && y)
			b.s[b.n++] = (svg_series){tag("jobs", ri, n, lab[ri], 64),
			                          x,
			                          y,
			                          r->n_waits,
			                          svg_color(0),
			                          ri > 0};
	}
	chart(f, &b, "plot-wait", "Job wait (creation to minMember placed), CDF", "% of jobs",
	      "seconds", 100);
}

static void queue_plot(FILE *f, const sim_run *r, uint32_t ri, uint32_t n_runs)
{
	chart_buf b = {0};
	char lab[2 * MAX_QUEUES][80], id[32], title[128];
	double *x = hours(&b, r);
	uint32_t nq = r->n_queues < MAX_QUEUES ? r->n_queues : MAX_QUEUES;
	for (uint32_t q = 0; x && q < nq; q++)
		for (int k = 0; k < 2; k++) {
			double *y = col(&b, r->n_rows),
			       *src = k ? r->queue_deserved : r->queue_alloc;
			for (uint32_t i = 0; y && i < r->n_rows; i++)
				y[i] = 100 * src[(size_t)i * r->n_queues + q];
			snprintf(lab[2 * q + k], sizeof lab[0], "%s %s", r->queue_names[q],
			         k ? "deserved" : "allocated");
			if (y)
				b.s[b.n++] = (svg_series){lab[2 * q + k], x,     y, r->n_rows,
				                          svg_color(q),   k == 1};
		}
	snprintf(id, sizeof id, "plot-queues-%u", ri + 1);
	snprintf(title, sizeof title,
	         "Queues%s: allocated vs deserved (computed by the simulator), %% of cluster",
	         n_runs > 1 ? (ri ? " (B)" : " (A)") : "");
	chart(f, &b, id, title, "%", "hours", 0);
}

static void capacity_plot(FILE *f, sim_run *const *runs, uint32_t n)
{
	chart_buf b = {0};
	char lab[2][64];
	for (uint32_t ri = 0; ri < n; ri++)
		if (runs[ri]->n_cap)
			b.s[b.n++] = (svg_series){tag("GPU allocation", ri, n, lab[ri], 64),
			                          runs[ri]->cap_x,
			                          runs[ri]->cap_y,
			                          runs[ri]->n_cap,
			                          svg_color(0),
			                          ri > 0};
	if (b.n)
		chart(f, &b, "plot-capacity",
		      "Capacity: GPU allocation ratio against arrived GPU request",
		      "% of GPUs allocated", "arrived GPU request, % of capacity", 100);
}

static void row(FILE *f, const char *name, const double *v, uint32_t n, int decimals)
{
	fprintf(f, "<tr><td>%s</td>", name);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "<td>%.*f</td>", decimals, v[i]);
	fputs("</tr>\n", f);
}

static void table(FILE *f, sim_run *const *runs, uint32_t n)
{
	sim_summary s[2];
	double v[2];
	fputs("<table id=\"summary\"><tr><th>metric</th>", f);
	for (uint32_t i = 0; i < n; i++) {
		sim_summarise(runs[i], &s[i]);
		fputs("<th>", f);
		svg_text(f, runs[i]->label);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
#define ROW(name, expr, decimals)                \
	do {                                     \
		for (uint32_t i = 0; i < n; i++) \
			v[i] = (expr);           \
		row(f, name, v, n, decimals);    \
	} while (0)
	ROW("cycles (skipped ones included)", (double)runs[i]->cycles, 0);
	ROW("sessions", (double)runs[i]->sessions, 0);
	ROW("binds", (double)runs[i]->binds, 0);
	ROW("evictions", (double)runs[i]->evictions, 0);
	ROW("jobs started", (double)runs[i]->n_waits, 0);
	ROW("jobs completed", (double)runs[i]->jobs_done, 0);
	ROW("job wait p50 (s)", s[i].wait_p50_s, 1);
	ROW("job wait p90 (s)", s[i].wait_p90_s, 1);
	ROW("job wait p99 (s)", s[i].wait_p99_s, 1);
	ROW("mean cpu allocation (%)", 100 * s[i].mean_alloc[R_CPU], 1);
	ROW("mean memory allocation (%)", 100 * s[i].mean_alloc[R_MEM], 1);
	ROW("mean GPU allocation (%)", 100 * s[i].mean_alloc[R_GPU], 1);
	ROW("mean GPU fragmentation (%)", 100 * s[i].mean_frag, 1);
	ROW("session time mean (ms)", s[i].session_ms_mean, 2);
	ROW("session time max (ms)", s[i].session_ms_max, 2);
	if (runs[0]->n_cap) {
		ROW("capacity: arrived GPU request (%)",
		    runs[i]->n_cap ? runs[i]->cap_x[runs[i]->n_cap - 1] : 0, 1);
		ROW("capacity: GPUs allocated at the end (%)",
		    runs[i]->n_cap ? runs[i]->cap_y[runs[i]->n_cap - 1] : 0, 1);
	}
	ROW("wall time (s)", runs[i]->wall_ms / 1000, 1);
#undef ROW
	fputs("</table>\n", f);
}

int sim_html_write(FILE *f, const char *title, sim_run *const *runs, uint32_t n_runs)
{
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n"
	      "<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
	      "<meta charset=\"UTF-8\"/>\n<title>tephra simulate: ",
	      f);
	svg_text(f, title);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>tephra simulate: ", css);
	svg_text(f, title);
	fputs("</h1>\n<h2>Summary</h2>\n", f);
	table(f, runs, n_runs);
	fputs("<h2>Over time</h2>\n<div>\n", f);
	time_plots(f, runs, n_runs);
	for (uint32_t i = 0; i < n_runs; i++)
		queue_plot(f, runs[i], i, n_runs);
	wait_plot(f, runs, n_runs);
	capacity_plot(f, runs, n_runs);
	fputs("</div>\n<p>Dashed lines: the second conf (B) of --compare, or a queue's deserved "
	      "share. Deserved is proportion's water-filling over queue weights, computed by the "
	      "simulator. Generated by tephra simulate.</p>\n</body>\n</html>\n",
	      f);
	return ferror(f) ? (errno = EIO, -1) : 0;
}

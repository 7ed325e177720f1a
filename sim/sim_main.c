/* `tephra simulate`'s driver: the workload each run starts from (a scenario file or a generated
 * profile, loaded afresh for every conf so that --compare runs both over the same one), the runs,
 * and the JSON lines and HTML, written beside their targets and renamed into place. */
#include "sim_cmd.h"
#include "cmdline.h"
#include "datasets.h"
#include "out_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WHO "tephra simulate"

static int load_gen(const sim_args *g, tph_scenario **scn, tph_diag *d)
{
	tph_gen_opts o;
	if (tph_gen_profile(g->profile, &o))
		return cmd_usage_error("simulate", "unknown profile '%s' (tephra gen --help)",
		                       g->profile);
	o.seed = g->seed;
	o.nodes = g->nodes ? g->nodes : o.nodes;
	o.tasks = g->tasks ? g->tasks : o.tasks;
	o.jobs = g->jobs ? g->jobs : o.jobs;
	o.queues = g->queues ? g->queues : o.queues;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int rc = !f || tph_gen_write(&o, f, NULL) ? -1 : 0;
	if (f && fclose(f))
		rc = -1;
	if (!rc)
		rc = tph_scenario_load_buffer(buf, len, g->profile, scn, d);
	free(buf);
	if (rc)
		fprintf(stderr, WHO ": --gen %s: %s\n", g->profile,
		        d->msg[0] ? d->msg : strerror(errno));
	return rc ? 2 : 0;
}

static int load(const sim_args *g, tph_scenario **scn, sim_workload *w)
{
	tph_diag d = {0};
	int rc = g->profile ? load_gen(g, scn, &d) : tph_scenario_load_file(g->scenario, scn, &d);
	if (rc) {
		if (!g->profile)
			fprintf(stderr, WHO ": %s\n", d.msg);
		return 2;
	}
	if (sim_workload_from_scenario(*scn, w, &d))
		return 2;
	if (g->arrivals && sim_arrivals_read(g->arrivals, w))
		return 2;
	if (g->capacity)
		return 0;
	if (g->profile)
		sim_arrivals_draw(w, g->seed, g->over, g->median, g->sigma);
	if (g->from || g->has_span) {
		sim_window(w, g->from, g->has_span ? g->span : 1000000000);
		if (!g->has_span)
			w->end_ms = INT64_MAX;
	}
	return sim_workload_start(w, &d);
}

static int conf_for(const sim_args *g, uint32_t i, tph_scenario *scn, tph_conf **own,
                    const tph_conf **conf)
{
	tph_diag d = {0};
	int rc = 0;
	if (g->n_confs)
		rc = tph_conf_load_file(g->confs[i], tph_scenario_enable_flags_default(scn), own,
		                        &d);
	else if (tph_scenario_conf(scn)) {
		*conf = tph_scenario_conf(scn);
		return 0;
	} else {
		fprintf(stderr, WHO ": no conf given: using Volcano's default conf\n");
		rc = tph_conf_load_string(TPH_CONF_VOLCANO_DEFAULT,
		                          sizeof TPH_CONF_VOLCANO_DEFAULT - 1, "default", true, own,
		                          &d);
	}
	if (rc)
		fprintf(stderr, WHO ": %s\n", d.msg);
	*conf = *own;
	return rc ? 2 : 0;
}

static int one_run(const sim_args *g, const sim_opts *o, uint32_t i, sim_run *r)
{
	tph_scenario *scn = NULL;
	tph_conf *own = NULL;
	const tph_conf *conf = NULL;
	sim_workload w = {0};
	int rc = load(g, &scn, &w);
	if (!rc)
		rc = conf_for(g, i, scn, &own, &conf);
	r->label = g->n_confs                      ? g->confs[i]
	           : scn && tph_scenario_conf(scn) ? "scenario conf"
	                                           : "Volcano default conf";
	if (!rc)
		rc = g->capacity ? sim_capacity(&w, conf, o, g->seed, g->stop, r)
		                 : sim_run_loop(&w, conf, o, r);
	if (!rc && o->jsonl) {
		sim_jsonl_jobs(o->jsonl, &w, r);
		sim_jsonl_summary(o->jsonl, r);
	}
	sim_workload_free(&w);
	tph_conf_free(own);
	tph_scenario_free(scn);
	return rc;
}

/* The report into `of` (opened before the runs, so that a bad path fails first). */
static int write_html(const sim_args *g, out_file *of, sim_run *runs, uint32_t n)
{
	char title[512];
	const char *what = g->profile ? g->profile : g->scenario;
	if (n > 1)
		snprintf(title, sizeof title, "%s%s: %s (A) vs %s (B)", what,
		         g->capacity ? " capacity" : "", runs[0].label, runs[1].label);
	else
		snprintf(title, sizeof title, "%s%s: %s", what, g->capacity ? " capacity" : "",
		         runs[0].label);
	sim_run *ptr[2] = {&runs[0], &runs[1]};
	int err = sim_html_write(of->f, title, ptr, n) ? errno : 0;
	return out_file_close(of, err, WHO) ? 2 : 0;
}

int tph_cmd_simulate(int argc, char **argv)
{
	sim_args g = {.seed = 1, .stop = 130, .over = 3600, .median = 600, .sigma = 1, .period = 1};
	int rc = sim_parse(argc, argv, &g);
	if (rc)
		return rc < 0 ? 0 : 2;
	sim_opts o = {.period_ms = (int64_t)(g.period * 1000),
	              .threads = (int)g.threads,
	              .no_skip = g.no_skip,
	              .progress = isatty(STDERR_FILENO)};
	out_file jf, hf;
	if (g.jsonl && out_file_open(&jf, g.jsonl, WHO))
		return 2;
	if (g.html && out_file_open(&hf, g.html, WHO)) {
		if (g.jsonl)
			out_file_discard(&jf);
		return 2;
	}
	o.jsonl = g.jsonl ? jf.f : NULL;
	sim_run runs[2] = {{0}};
	uint32_t n = g.n_confs == 2 ? 2 : 1;
	for (uint32_t i = 0; i < n && !rc; i++)
		rc = one_run(&g, &o, i, &runs[i]);
	if (g.jsonl && (rc ? (out_file_discard(&jf), 0) : out_file_close(&jf, 0, WHO)))
		rc = 2;
	if (g.html && rc)
		out_file_discard(&hf);
	else if (g.html)
		rc = write_html(&g, &hf, runs, n);
	for (uint32_t i = 0; i < n; i++) {
		if (!rc)
			fprintf(stderr,
			        WHO ": %s: %llu cycles, %llu sessions, %llu binds, %llu evictions, "
			            "%u jobs started; %.1f s\n",
			        runs[i].label, (unsigned long long)runs[i].cycles,
			        (unsigned long long)runs[i].sessions,
			        (unsigned long long)runs[i].binds,
			        (unsigned long long)runs[i].evictions, runs[i].n_waits,
			        runs[i].wall_ms / 1000);
		sim_run_free(&runs[i]);
	}
	return rc;
}

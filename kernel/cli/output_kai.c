/* `tephra run` output for a kai scenario: the session's committed decisions (kai-format.md,
 * "Decision output additions"): binds and pipelined pods with their nodes (and a shared-GPU
 * pod's gpuGroups), evictions with the KAI action as their reason. Text is one line per decision;
 * json (and yaml, whose flow style it is) one object. */
#include "cli.h"

#include <string.h>

typedef struct kai_list {
	const char *key, *verb;
	uint32_t n;
	const tph_kai_decision *d;
} kai_list;

/* A pod's key: its bare name in namespace "", else namespace/name; quoted in json. */
static void pod_name(FILE *f, const tph_kai_view *v, uint32_t t, bool json)
{
	char key[512];
	const char *ns = v->tasks.namespace_[t];
	snprintf(key, sizeof key, "%s%s%s", ns, ns[0] ? "/" : "", v->tasks.name[t]);
	if (json)
		json_str(f, key);
	else
		fputs(key, f);
}

/* The gpuGroups of a placed shared pod, comma-separated (json: a list of strings). A device no
 * running pod named is "<node>/gpu<k>", its k-th device (KAI names it with a fresh UUID). */
static void gpu_groups(FILE *f, const tph_kai_session *s, const tph_kai_decision *d, bool json)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	const int32_t *devs;
	uint32_t n = d->node >= 0 ? tph_kai_task_devices(s, d->task, &devs) : 0;
	if (!n)
		return;
	fputs(json ? ", \"gpuGroups\": [" : " gpuGroups ", f);
	for (uint32_t i = 0; i < n; i++) {
		char fresh[300];
		const char *name = tph_kai_device_name(s, (uint32_t)devs[i]);
		if (!name) {
			uint32_t first = tph_kai_session_devices(s)[d->node];
			snprintf(fresh, sizeof fresh, "%s/gpu%u", v->nodes.name[d->node],
			         (uint32_t)devs[i] - first);
			name = fresh;
		}
		if (i)
			fputs(json ? ", " : ",", f);
		if (json)
			json_str(f, name);
		else
			fputs(name, f);
	}
	if (json)
		fputc(']', f);
}

static void write_json_list(FILE *f, const tph_kai_session *s, const kai_list *l)
{
	const tph_kai_view *v = tph_kai_session_view(s);
	fprintf(f, "  \"%s\": [", l->key);
	for (uint32_t i = 0; i < l->n; i++) {
		fputs(i ? ",\n    {\"pod\": " : "\n    {\"pod\": ", f);
		pod_name(f, v, l->d[i].task, true);
		fputs(l->d[i].node >= 0 ? ", \"node\": " : ", \"reason\": ", f);
		json_str(f, l->d[i].node >= 0 ? v->nodes.name[l->d[i].node] : l->d[i].action);
		gpu_groups(f, s, &l->d[i], true);
		fputs("}", f);
	}
	fputs(l->n ? "\n  ]" : "]", f);
}

/* Pending tasks at open and after the actions. */
static void count_pending(const run_result *r, uint32_t *before, uint32_t *after)
{
	const tph_kai_view *v = tph_kai_snapshot_view(r->kai_snap);
	const uint8_t *now = tph_kai_session_status(r->kai_ssn);
	*before = *after = 0;
	for (uint32_t t = 0; t < v->tasks.n; t++) {
		*before += v->tasks.status[t] == TPH_KAI_TS_PENDING;
		*after += now[t] == TPH_KAI_TS_PENDING;
	}
}

static void write_kai_summary(FILE *f, const run_result *r, const kai_list *l)
{
	uint32_t before, after;
	count_pending(r, &before, &after);
	const double s = r->session_ms / 1e3;
	fprintf(f,
	        "%s: %u binds, %u pipelined, %u evictions, %u of %u pending tasks left, %.0f "
	        "binds/s\n",
	        tph_scenario_name(r->scn), l[0].n, l[1].n, l[2].n, after, before,
	        s > 0 ? l[0].n / s : 0.0);
	fprintf(f, "timing: load %.2f ms, session %.2f ms (snapshot %.2f, open %.2f", r->load_ms,
	        r->session_ms, r->snap_ms, r->kai_open_ms);
	const tph_kai_action_time *t;
	uint32_t n = tph_kai_session_action_times(r->kai_ssn, &t);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, ", %s %.2f", t[i].action, t[i].ms);
	fputs(")\n", f);
}

void write_kai_profile(FILE *f, const run_result *r)
{
	const tph_kai_action_time *t;
	uint32_t n = tph_kai_session_action_times(r->kai_ssn, &t);
	fputs("profile: action            calls         ms\n", f);
	for (uint32_t i = 0; i < n; i++)
		fprintf(f, "  %-22s %7u %10.2f\n", t[i].action, 1u, t[i].ms);
}

void write_kai(FILE *f, const run_result *r, bool json, bool summary)
{
	const tph_kai_view *v = tph_kai_snapshot_view(r->kai_snap);
	kai_list l[3] = {{"binds", "bind", 0, NULL},
	                 {"pipelined", "pipeline", 0, NULL},
	                 {"evictions", "evict", 0, NULL}};
	l[0].n = tph_kai_session_binds(r->kai_ssn, &l[0].d);
	l[1].n = tph_kai_session_pipelined(r->kai_ssn, &l[1].d);
	l[2].n = tph_kai_session_evictions(r->kai_ssn, &l[2].d);
	if (json) {
		fputs("{\n  \"scenario\": ", f);
		json_str(f, tph_scenario_name(r->scn));
		fputs(",\n  \"flavour\": \"kai\",\n", f);
		for (int k = 0; k < 3; k++) {
			write_json_list(f, r->kai_ssn, &l[k]);
			fputs(k < 2 ? ",\n" : "\n}\n", f);
		}
		return;
	}
	if (summary) {
		write_kai_summary(f, r, l);
		return;
	}
	for (int k = 0; k < 3; k++)
		for (uint32_t i = 0; i < l[k].n; i++) {
			fprintf(f, "%s ", l[k].verb);
			pod_name(f, v, l[k].d[i].task, false);
			if (l[k].d[i].node >= 0)
				fprintf(f, " -> %s", v->nodes.name[l[k].d[i].node]);
			else
				fprintf(f, " (%s)", l[k].d[i].action);
			gpu_groups(f, r->kai_ssn, &l[k].d[i], false);
			fputc('\n', f);
		}
	fprintf(f, "%u binds, %u pipelined, %u evictions\n", l[0].n, l[1].n, l[2].n);
}

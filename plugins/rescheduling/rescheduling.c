/* rescheduling: Volcano's rescheduling plugin (pkg/scheduler/plugins/rescheduling), a source
 * of VictimTasks for the shuffle action. Its arguments name strategies; the one Volcano
 * implements, lowNodeUtilization, evicts pods from nodes used above the target thresholds
 * while nodes below the low thresholds have room (rescheduling_lnu.c). It runs once per
 * `interval` of the scheduler's life.
 *
 * The interval: Volcano starts the clock when the scheduler process starts (timeToRun, with
 * lastRescheduleTime set at init) and keeps it across sessions. tephra's sessions are each
 * the first of a freshly started scheduler that opens it at once: the strategies run when the
 * interval is not positive (`interval: 0s`), never with the default 5m.
 *
 * Arguments of the wrong type, which Volcano's type assertions turn into a panic of the
 * scheduler (interval or metricsPeriod not a string, a threshold not an integer), are warned
 * about and read as absent. */
#include "rescheduling.h"

#include <string.h>
#include <strings.h>

#define DEFAULT_INTERVAL_NS (5 * 60 * 1000000000LL)

static const tph_arg_spec rs_args[] = {
    {"interval", TPH_ARG_STRING, NULL, 0, 0, TPH_ARG_NOFIELD,
     "a Go duration; strategies run when it has passed since the scheduler started (5m)"},
    {"metricsPeriod", TPH_ARG_STRING, NULL, 0, 0, TPH_ARG_NOFIELD,
     "the key of the nodes' usage averages (5m)"},
    {"strategies", TPH_ARG_LIST, NULL, 0, 0, TPH_ARG_NOFIELD,
     "[{name, params}]; lowNodeUtilization takes params thresholds and targetThresholds"},
    {NULL, 0, NULL, 0, 0, 0, NULL},
};

/* parseArguments' interval: a string time.ParseDuration reads, else 5m. */
static int64_t interval_ns(tph_session *s, const tph_args *args)
{
	const char *text = NULL, *why = NULL;
	int64_t ns = DEFAULT_INTERVAL_NS;
	tph_args_string(args, "interval", &text);
	if (text && tph_parse_duration(text, strlen(text), &ns, &why) != TPH_OK) {
		tph_session_warn(s, "rescheduling: interval \"%s\" (%s); 5m", text, why);
		ns = DEFAULT_INTERVAL_NS;
	}
	return ns;
}

/* mapstructure's field match: the exact name first, then any key equal ignoring case. */
static const tph_args *field(const tph_args *item, const char *name, const char **key)
{
	uint32_t n = tph_args_count(item), hit = UINT32_MAX;
	for (uint32_t i = 0; i < n && hit == UINT32_MAX; i++)
		if (!strcmp(tph_args_key_at(item, i), name))
			hit = i;
	for (uint32_t i = 0; i < n && hit == UINT32_MAX; i++)
		if (!strcasecmp(tph_args_key_at(item, i), name))
			hit = i;
	*key = hit == UINT32_MAX ? NULL : tph_args_key_at(item, hit);
	return hit == UINT32_MAX ? NULL : tph_args_at(item, hit);
}

static bool yaml_null(const char *t)
{
	return !*t || !strcmp(t, "~") || !strcmp(t, "null") || !strcmp(t, "Null") ||
	       !strcmp(t, "NULL");
}

/* mapstructure.Decode of one strategy into {Name string; Params map[string]interface{}}:
 * true when it decodes and is named lowNodeUtilization; *params is then its Params (NULL when
 * absent or null). A strategy that does not decode is dropped, as Volcano drops it. */
static bool decode_lnu(const tph_args *item, const tph_args **params)
{
	const char *key, *name = NULL;
	*params = NULL;
	if (tph_args_text(item) || (tph_args_count(item) && !tph_args_key_at(item, 0)))
		return false; /* not a mapping */
	if (field(item, "Name", &key) && tph_args_string(item, key, &name) != TPH_OK)
		return false;
	if (!name || strcmp(name, "lowNodeUtilization"))
		return false;
	const tph_args *p = field(item, "Params", &key);
	if (!p)
		return true;
	if (tph_args_text(p))
		return yaml_null(tph_args_text(p)); /* a scalar is no map */
	if (tph_args_count(p) && !tph_args_key_at(p, 0))
		return false; /* a sequence is no map either */
	*params = p;
	return true;
}

/* parseArguments' strategies: a non-empty sequence replaces the default (lowNodeUtilization
 * with its defaults) by the strategies that decode; the last lowNodeUtilization's params are
 * what its VictimTasks reads (RegisteredStrategyConfigs). Returns whether it is among them. */
static bool strategies(const tph_args *args, const tph_args **params)
{
	const tph_args *list = tph_args_child(args, "strategies");
	*params = NULL;
	if (!list || !tph_args_count(list) || tph_args_key_at(list, 0))
		return true;
	bool found = false;
	for (uint32_t i = 0; i < tph_args_count(list); i++) {
		const tph_args *p;
		if (decode_lnu(tph_args_at(list, i), &p)) {
			found = true;
			*params = p;
		}
	}
	return found;
}

/* parseThreshold: integer cpu, memory (and pod, which no node utilisation has) of one map. */
static void thresholds(const tph_args *map, double *cpu, double *mem)
{
	for (uint32_t i = 0; i < tph_args_count(map); i++) {
		const char *k = tph_args_key_at(map, i);
		int64_t v;
		/* Volcano asserts every value to int and panics on another type: warned, skipped */
		if (tph_args_int(map, k, &v) != TPH_OK)
			continue;
		if (!strcmp(k, "cpu"))
			*cpu = (double)v;
		else if (!strcmp(k, "memory"))
			*mem = (double)v;
	}
}

/* LowNodeUtilizationConf.parse: thresholds, then targetThresholds; a value of either that is
 * not a mapping abandons the rest. */
static void lnu_params(tph_session *s, rs_st *g, const tph_args *params)
{
	g->low_cpu = g->low_mem = g->target_cpu = g->target_mem = 100;
	static const char *const keys[2] = {"thresholds", "targetThresholds"};
	for (int k = 0; params && k < 2; k++) {
		uint32_t i = 0, n = tph_args_count(params);
		while (i < n && strcmp(tph_args_key_at(params, i), keys[k]))
			i++;
		if (i == n)
			continue;
		const tph_args *map = tph_args_at(params, i);
		if (tph_args_text(map) || (tph_args_count(map) && !tph_args_key_at(map, 0))) {
			tph_session_warn(
			    s, "rescheduling: %s is not a mapping; the rest is ignored", keys[k]);
			return;
		}
		if (k == 0)
			thresholds(map, &g->low_cpu, &g->low_mem);
		else
			thresholds(map, &g->target_cpu, &g->target_mem);
	}
}

/* metricsPeriod: a string, "" meaning 5m; as a duration, to match the nodes' usage periods. */
static bool metrics_period(tph_session *s, const tph_args *args, int64_t *period_s)
{
	const char *text = NULL, *why = NULL;
	int64_t ns = 0;
	tph_args_string(args, "metricsPeriod", &text);
	if (!text || !*text)
		text = "5m";
	if (tph_parse_duration(text, strlen(text), &ns, &why) != TPH_OK) {
		tph_session_warn(
		    s, "rescheduling: metricsPeriod \"%s\" (%s): no node usage matches", text, why);
		return false;
	}
	*period_s = ns / 1000000000;
	return true;
}

static int rs_open(tph_session *s, void *st, const tph_args *args)
{
	rs_st *g = st;
	const tph_args *params = NULL;
	int64_t period_s = 0;
	bool period_ok = metrics_period(s, args, &period_s);
	bool lnu = strategies(args, &params);
	if (interval_ns(s, args) > 0 || !lnu)
		return TPH_OK;
	lnu_params(s, g, params);
	int rc = lnu_open(s, g, period_s, period_ok);
	return rc ? rc : tph_on_victim_tasks(s, lnu_victims);
}

const tph_plugin tph_plugin_rescheduling = {
    .abi = TPH_PLUGIN_ABI,
    .name = "rescheduling",
    .args = rs_args,
    .state_size = sizeof(rs_st),
    .on_session_open = rs_open,
};

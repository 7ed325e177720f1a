/* deviceshare: Volcano's deviceshare plugin (pkg/scheduler/plugins/deviceshare) over gpushare
 * and HAMi vGPU cards. Its arguments enable the device kinds (Volcano's package globals) and
 * its open builds the session's devices (lib/devices.h), which the predicates plugin's events
 * allocate from; it registers the predicate (FilterNode of each device the task asks), the
 * node order (the vGPU device score, rounded, times deviceshare.ScheduleWeight) and events
 * that keep NodeInfo.AddTask / RemoveTask's device bookkeeping. */
#include "deviceshare.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tephra/alloc.h"

#define RULES "deviceshare.GPUExclusiveRules"

#define OFF(f) offsetof(ds_st, f)
static const tph_arg_spec ds_args[] = {
    {"deviceshare.GPUSharingEnable", TPH_ARG_BOOL, "false", 0, 0, OFF(sharing),
     "gpushare: a card by volcano.sh/gpu-memory"},
    {"deviceshare.GPUNumberEnable", TPH_ARG_BOOL, "false", 0, 0, OFF(number),
     "gpushare: whole cards by volcano.sh/gpu-number"},
    {"deviceshare.VGPUEnable", TPH_ARG_BOOL, "false", 0, 0, OFF(vgpu), "HAMi vGPU"},
    {"deviceshare.NodeLockEnable", TPH_ARG_BOOL, "false", 0, 0, OFF(node_lock),
     "no-op: no API server holds node locks"},
    {"deviceshare.SchedulePolicy", TPH_ARG_STRING, NULL, 0, 0, OFF(policy_arg),
     "binpack or spread; else vGPU cards from the highest index"},
    {"deviceshare.ScheduleWeight", TPH_ARG_INT, "0", 0, 0, OFF(weight),
     "the device score's weight; 0 scores nothing"},
    {RULES, TPH_ARG_LIST, NULL, 0, 0, TPH_ARG_NOFIELD,
     "label maps; a vGPU card a pod of a rule holds is closed to the rule's other pods"},
    {"deviceshare.AscendMindClusterVNPUEnable", TPH_ARG_BOOL, "false", 0, 0, OFF(ascend_mc),
     "Ascend vNPU: not modelled"},
    {"deviceshare.AscendHAMiVNPUEnable", TPH_ARG_BOOL, "false", 0, 0, OFF(ascend_hami),
     "Ascend vNPU: not modelled"},
    {"deviceshare.KnownGeometriesCMName", TPH_ARG_STRING, NULL, 0, 0, OFF(geo_name),
     "no-op: the built-in device config (no MIG geometry)"},
    {"deviceshare.KnownGeometriesCMNamespace", TPH_ARG_STRING, NULL, 0, 0, OFF(geo_ns),
     "no-op: the built-in device config"},
    {NULL, 0, NULL, 0, 0, 0, NULL, NULL},
};

/* ---- NodeInfo.AddTask / RemoveTask ---- */

int ds_hold(ds_st *st, tph_idx task, tph_idx want)
{
	ds_task *x = &st->t[task];
	if (x->held == want)
		return TPH_OK;
	tph_idx had = x->held;
	x->held = want;
	if (had != TPH_NOIDX && st->nodes[had].kind == DS_KIND_GPUSHARE &&
	    (x->gs_mem > 0 || x->gs_num > 0))
		ds_gs_remove(st, task, had);
	else if (had != TPH_NOIDX && st->nodes[had].kind == DS_KIND_VGPU)
		ds_vg_sub(st, task, had);
	if (want == TPH_NOIDX)
		return TPH_OK;
	if (st->nodes[want].kind == DS_KIND_GPUSHARE)
		return ds_gs_add(st, task, want);
	return st->nodes[want].kind == DS_KIND_VGPU ? ds_vg_add(st, task, want) : TPH_OK;
}

/* A task holds its own devices while it sits on a node in an allocated status; a deallocate
 * always takes it off (a failed allocation is undone while the task still shows its node). */
static int on_allocate(void *stv, tph_session *s, tph_idx task)
{
	ds_st *st = stv;
	const tph_view *v = tph_view_of(s);
	if (!st->t[task].relevant)
		return TPH_OK;
	bool pipelined = v->tasks->status[task] == TPH_TS_PIPELINED;
	return ds_hold(st, task, pipelined ? TPH_NOIDX : v->tasks->node[task]);
}

static int on_deallocate(void *stv, tph_session *s, tph_idx task)
{
	ds_st *st = stv;
	(void)s;
	return st->t[task].relevant ? ds_hold(st, task, TPH_NOIDX) : TPH_OK;
}

/* ---- what predicates' events call (lib/devices.h) ---- */

/* Devices.Allocate of the node's kind, after NodeInfo.AddTask (Statement.Allocate adds the
 * task to the node before it fires the events). A refusal leaves everything as it was. */
static int dev_allocate(tph_devices *d, tph_session *s, tph_idx task)
{
	ds_st *st = d->impl;
	const tph_view *v = tph_view_of(s);
	tph_idx node = v->tasks->node[task], had = st->t[task].held;
	bool pipelined = v->tasks->status[task] == TPH_TS_PIPELINED;
	int rc = ds_hold(st, task, pipelined ? TPH_NOIDX : node);
	if (rc || node == TPH_NOIDX)
		return rc;
	st->t[task].at = node;
	if (st->nodes[node].kind == DS_KIND_GPUSHARE)
		rc = ds_gs_allocate(st, s, task, node);
	else if (st->nodes[node].kind == DS_KIND_VGPU && st->t[task].vg_ask)
		rc = ds_vg_allocate(st, s, task, node);
	if (rc)
		ds_hold(st, task, had);
	return rc;
}

/* Devices.Release on the node the task left, after NodeInfo.RemoveTask. */
static int dev_release(tph_devices *d, tph_session *s, tph_idx task)
{
	ds_st *st = d->impl;
	tph_idx node = tph_view_of(s)->tasks->node[task];
	if (node == TPH_NOIDX)
		node = st->t[task].at;
	ds_hold(st, task, TPH_NOIDX);
	if (node == TPH_NOIDX)
		return TPH_OK;
	if (st->nodes[node].kind == DS_KIND_GPUSHARE)
		ds_gs_remove(st, task, node);
	else if (st->nodes[node].kind == DS_KIND_VGPU && st->t[task].vg_ask)
		ds_vg_sub(st, task, node);
	return TPH_OK;
}

/* ---- predicate and node order ---- */

static tph_reason_code filter(const ds_st *st, tph_idx task, tph_idx node, double *score)
{
	const ds_node *n = &st->nodes[node];
	*score = 0;
	if (n->kind == DS_KIND_GPUSHARE)
		return ds_gs_filter(st, n, &st->t[task]);
	if (n->kind == DS_KIND_VGPU && st->t[task].vg_ask)
		return ds_vg_filter(st, n, task, score) ? TPH_PASS : st->r_vgpu;
	return TPH_PASS; /* no device of the kind on the node: Volcano skips it */
}

static void predicate(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                      uint32_t n, tph_reason_code *out)
{
	const ds_st *st = stv;
	(void)s;
	double score;
	for (uint32_t i = 0; i < n; i++)
		out[i] = st->asks[task] ? filter(st, task, nodes[i], &score) : TPH_PASS;
}

/* int64(math.Floor(s + 0.5)); Go's conversion of what int64 cannot hold gives its minimum
 * on amd64. */
static int64_t go_round(double s)
{
	double f = floor(s + 0.5);
	return isfinite(f) && f >= -9223372036854775808.0 && f < 9223372036854775808.0 ? (int64_t)f
	                                                                               : INT64_MIN;
}

/* getDeviceScore: the score the task's FilterNode computed on the node (computed again here,
 * on the same state). */
static void node_order(void *stv, const tph_session *s, tph_idx task, const tph_idx *nodes,
                       uint32_t n, double *out)
{
	const ds_st *st = stv;
	(void)s;
	for (uint32_t i = 0; i < n; i++) {
		double score = 0;
		if (st->asks[task])
			filter(st, task, nodes[i], &score);
		out[i] = (double)go_round(score) * (double)st->weight;
	}
}

/* The score reads the node's cards and the task's ask, which every Pending task of its job,
 * spec and request shares unless `uniform` says otherwise. */
static int locality(void *stv, const tph_session *s, tph_idx task)
{
	const ds_st *st = stv;
	(void)s;
	if (!st->asks[task])
		return TPH_SCORE_LOCAL;
	return st->t[task].uniform ? TPH_SCORE_LOCAL | TPH_SCORE_JOB : TPH_SCORE_GLOBAL;
}

/* ---- open ---- */

/* parseExclusiveRules: a list of maps; string values only; an empty map is no rule. */
static int parse_rules(ds_st *st, tph_session *s, const tph_args *args)
{
	int type = tph_args_type(args, RULES);
	if (type != TPH_ARG_LIST) {
		if (type != TPH_ENOENT)
			tph_session_warn(s, "deviceshare: %s is not a list of label maps; no rules",
			                 RULES);
		return TPH_OK;
	}
	const tph_args *list = tph_args_child(args, RULES);
	uint32_t n = tph_args_count(list), pairs = 0;
	for (uint32_t i = 0; i < n; i++)
		pairs += tph_args_count(tph_args_at(list, i));
	st->rule_off = TPH_SESSION_NEW(s, uint32_t, (size_t)n + 1);
	st->rule_kv = TPH_SESSION_NEW(s, tph_label, (size_t)pairs + 1);
	if (!st->rule_off || !st->rule_kv)
		return TPH_ENOMEM;
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++) {
		const tph_args *m = tph_args_at(list, i);
		uint32_t start = k;
		for (uint32_t j = 0; j < tph_args_count(m); j++) {
			const char *key = tph_args_key_at(m, j);
			const char *val = key ? tph_args_text(tph_args_at(m, j)) : NULL;
			if (!val || tph_args_type(m, key) != TPH_ARG_STRING)
				continue;
			st->rule_kv[k++] = (tph_label){tph_session_sid(s, key, strlen(key)),
			                               tph_session_sid(s, val, strlen(val))};
		}
		if (k > start)
			st->rule_off[++st->n_rules] = k;
	}
	st->rule_words = (st->n_rules + 63) / 64;
	return TPH_OK;
}

static int register_all(ds_st *st, tph_session *s)
{
	st->r_vgpu = tph_reason(s, "hami-vgpuDeviceSharing error", false);
	if (st->r_vgpu == TPH_REASON_INVALID)
		return TPH_ENOMEM;
	int rc = tph_on_predicate(s, predicate);
	if (!rc)
		rc = tph_on_task_events(s, on_allocate, on_deallocate);
	/* gpushare scores 0, and so does a weight of 0: nothing to add */
	if (!rc && st->vgpu && st->weight > 0)
		rc = tph_on_node_order(s, node_order);
	if (!rc && st->vgpu && st->weight > 0)
		rc = tph_on_score_locality(s, locality, NULL);
	return rc;
}

static int ds_open(tph_session *s, void *stv, const tph_args *args)
{
	ds_st *st = stv;
	/* Volcano's enablePredicate exits on these (klog.Fatal) */
	if (st->sharing && st->number) {
		tph_session_warn(s, "deviceshare: can not define true in both gpu sharing and gpu "
		                    "number");
		return TPH_EINVAL;
	}
	if ((st->sharing || st->number) && st->vgpu) {
		tph_session_warn(s, "deviceshare: gpu-share and vgpu can't be used together");
		return TPH_EINVAL;
	}
	if (st->ascend_mc || st->ascend_hami)
		tph_session_warn(s, "deviceshare: Ascend vNPU devices are not modelled; ignored");
	const char *p = st->policy_arg ? st->policy_arg : "";
	st->policy = !strcmp(p, "binpack")  ? DS_POLICY_BINPACK
	             : !strcmp(p, "spread") ? DS_POLICY_SPREAD
	                                    : DS_POLICY_UNSET;
	int rc = tph_devices_share(s, &st->dev);
	if (rc || (!st->sharing && !st->number && !st->vgpu))
		return rc; /* no device kind: the predicate passes and the score is 0 */
	if (st->dev->impl) {
		tph_session_warn(s, "deviceshare: listed twice; only the first one decides");
		return TPH_OK;
	}
	int64_t ms = tph_session_now(s), sec = ms / 1000 - (ms % 1000 < 0);
	snprintf(st->now_s, sizeof st->now_s, "%lld", (long long)sec);
	snprintf(st->now_ns, sizeof st->now_ns, "%lld", (long long)ms * 1000000LL);
	rc = parse_rules(st, s, args);
	if (!rc)
		rc = ds_build(st, s);
	if (!rc)
		rc = register_all(st, s);
	if (rc)
		return rc;
	*st->dev = (tph_devices){st->asks, dev_allocate, dev_release, st};
	return TPH_OK;
}

static void ds_close(tph_session *s, void *stv)
{
	ds_st *st = stv;
	(void)s;
	for (uint32_t c = 0; st->cards && c < st->n_cards; c++)
		tph_free(st->cards[c].users);
	tph_free(st->ids);
	tph_free(st->cdevs);
	tph_free(st->uuid_ids);
	tph_free(st->syn);
	st->cards = NULL;
	st->ids = NULL;
	st->cdevs = NULL;
	st->uuid_ids = NULL;
	st->syn = NULL;
}

const tph_plugin tph_plugin_deviceshare = {
    .abi = TPH_PLUGIN_ABI,
    .name = "deviceshare",
    .args = ds_args,
    .state_size = sizeof(ds_st),
    .on_session_open = ds_open,
    .on_session_close = ds_close,
};

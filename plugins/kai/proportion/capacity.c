/* The capacity checks (KAI's capacity_policy: max_allowed_check.go, quota_check.go) that
 * allocate asks before a job and the predicates before a task on a node, with the messages KAI
 * writes (api/unschedule_info.go), numbers formatted as Go's strconv and go-humanize do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proportion_int.h"

/* isOverLimit / isAllocatedNonPreemptibleOverQuota on one queue: the first resource in KAI's
 * order whose bound (limit or quota) is passed, or -1. */
static int first_over(const kai_queues *q, uint32_t i, const double req[KAI_NRES], bool quota)
{
	for (int r = 0; r < KAI_NRES; r++) {
		const kai_share *s = &q->r[r];
		double bound = quota ? s->deserved[i] : s->max_allowed[i];
		double used = quota ? s->alloc_np[i] : s->allocated[i];
		if (bound == KAI_UNLIMITED || req[r] == 0)
			continue;
		if (bound < used + req[r])
			return r;
	}
	return -1;
}

static int walk(const kai_queues *q, uint32_t queue, const double req[KAI_NRES], bool quota,
                kai_verdict *v)
{
	for (uint32_t i = queue; i < q->n; i = q->parent[i]) {
		int r = first_over(q, i, req, quota);
		if (r < 0)
			continue;
		const kai_share *s = &q->r[r];
		v->reason = quota ? KAI_NONPREEMPTIBLE_OVER : KAI_OVER_LIMIT;
		v->queue = i;
		v->res = r;
		v->bound = quota ? s->deserved[i] : s->max_allowed[i];
		v->used = quota ? s->alloc_np[i] : s->allocated[i];
		v->requested = req[r];
		return v->reason;
	}
	return KAI_SCHEDULABLE;
}

static void verdict_init(kai_verdict *v, const double req[KAI_NRES])
{
	memset(v, 0, sizeof *v);
	v->queue = KAI_NOQ;
	v->res = -1;
	memcpy(v->req, req, sizeof v->req);
}

int kai_nonpreemptible_over_quota(const kai_queues *q, uint32_t queue, const double req[KAI_NRES],
                                  bool preemptible, kai_verdict *v)
{
	verdict_init(v, req);
	return preemptible ? KAI_SCHEDULABLE : walk(q, queue, req, true, v);
}

int kai_job_over_capacity(const kai_queues *q, uint32_t queue, const double req[KAI_NRES],
                          bool preemptible, kai_verdict *v)
{
	verdict_init(v, req);
	if (walk(q, queue, req, false, v))
		return v->reason;
	return kai_nonpreemptible_over_quota(q, queue, req, preemptible, v);
}

/* The digits of strconv.FormatFloat(x, _, -1, 64): the shortest that read back as x; *dp is the
 * decimal point's position ("15" with dp 1 is 1.5). x finite, not negative; 0 gives "0", dp 1. */
static int shortest(double x, char *digits, int *dp)
{
	char buf[40];
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, sizeof buf, "%.*e", p - 1, x);
		if (strtod(buf, NULL) == x)
			break;
	}
	char *e = strchr(buf, 'e');
	int nd = 0;
	for (char *c = buf; c < e; c++)
		if (*c != '.')
			digits[nd++] = *c;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = 0;
	*dp = x == 0 ? 1 : atoi(e + 1) + 1;
	return nd;
}

/* Fixed notation of the shortest digits with at most `frac` fraction digits, cut (not
 * rounded), trailing zeros and point dropped: go-humanize's FtoaWithDigits over 'f', -1. */
static void fixed(double x, int frac, char *out)
{
	char d[24];
	int dp, nd = shortest(x < 0 ? -x : x, d, &dp), o = 0;
	if (x < 0)
		out[o++] = '-';
	if (dp <= 0)
		out[o++] = '0';
	for (int i = 0; i < dp; i++)
		out[o++] = i < nd ? d[i] : '0';
	int point = o;
	out[o++] = '.';
	for (int i = dp; i < nd && i - dp < frac; i++)
		out[o++] = i < 0 ? '0' : d[i];
	while (o > point + 1 && out[o - 1] == '0')
		o--;
	if (o == point + 1)
		o--;
	out[o] = 0;
}

/* Go's %v of a float64: strconv 'g' with the shortest digits, the exponent form when the
 * exponent is below -4 or at least 6. Only the GPUs of a request print this way. */
static void go_v(double x, char *out)
{
	char d[24];
	int dp, nd = shortest(x < 0 ? -x : x, d, &dp), exp = dp - 1;
	if (exp >= -4 && exp < 6) {
		fixed(x, 40, out);
		return;
	}
	sprintf(out, "%s%c%s%s%se%c%02d", x < 0 ? "-" : "", d[0], nd > 1 ? "." : "", d + 1, "",
	        exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
}

/* HumanizeResource(value, unit). */
static void humanize(double x, double unit, char *out)
{
	if (x == KAI_UNLIMITED)
		strcpy(out, "Unlimited");
	else
		fixed(x / unit, 3, out);
}

static const double unit_of[KAI_NRES] = {1000, 1e9, 1};

int kai_verdict_message(const kai_verdict *v, const char *queue_name, char *buf, size_t n)
{
	static const char *limit_name[KAI_NRES] = {"CPU cores", "memory", "GPUs"};
	static const char *req_name[KAI_NRES] = {"CPU cores", "GB memory", "GPUs"};
	static const char *unit_name[KAI_NRES] = {"cores", "GB", "GPUs"};
	char bound[64], used[64], req[64];
	if (v->reason == KAI_SCHEDULABLE || v->res < 0 || v->res >= KAI_NRES)
		return snprintf(buf, n, "%s", "");
	int r = v->res;
	humanize(v->bound, unit_of[r], bound);
	humanize(v->used, unit_of[r], used);
	const char *u = unit_name[r];
	if (v->reason == KAI_OVER_LIMIT) {
		humanize(v->requested, unit_of[r], req);
		return snprintf(buf, n,
		                "%s quota has reached the allowable limit of %s. Limit is %s %s, "
		                "currently %s %s allocated and workload requested %s %s",
		                queue_name, limit_name[r], bound, u, used, u, req, u);
	}
	if (r == KAI_GPU)
		go_v(v->req[KAI_GPU], req);
	else
		humanize(v->req[r], unit_of[r], req);
	return snprintf(buf, n,
	                "Non-preemptible workload is over quota. Workload requested %s %s, but %s "
	                "quota is %s %s, while %s %s are already allocated for non-preemptible "
	                "pods. Use a preemptible workload to go over quota.",
	                req, req_name[r], queue_name, bound, u, used, u);
}

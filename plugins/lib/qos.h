/* A pod's QoS class as Kubernetes computes it (v1qos.GetPodQOS, k8s.io/kubernetes
 * pkg/apis/core/v1/helper/qos), for the plugins that read it (rescheduling's victim order,
 * numa-aware's Guaranteed pods).
 *
 * GetPodQOS over the pod's requests and limits as written (a scenario pod is one container, and
 * the API server's defaulting of requests to limits is not applied, as the format says): only
 * cpu and memory count, and zero amounts count as absent. Neither requested nor limited:
 * BestEffort. Limits on both, and every request equal to its limit: Guaranteed. Otherwise
 * Burstable. */
#ifndef TPH_PLUGINS_LIB_QOS_H
#define TPH_PLUGINS_LIB_QOS_H

#include "tephra/columns.h"
#include "tephra/plugin.h"

/* In the order Volcano's rescheduling evicts them: BestEffort first. */
enum {
	QOS_BEST_EFFORT = 0,
	QOS_BURSTABLE = 1,
	QOS_GUARANTEED = 2,
};

/* The limit names to look for, found once per session. */
typedef struct qos_keys {
	tph_sid cpu, mem;
} qos_keys;

static inline qos_keys qos_keys_of(const tph_session *s)
{
	return (qos_keys){tph_session_sid(s, "cpu", 3), tph_session_sid(s, "memory", 6)};
}

static inline int64_t qos_limit(const tph_pod_meta *m, tph_sid name)
{
	for (uint32_t i = 0; m && name != TPH_SID_NONE && i < m->n_limits; i++)
		if (m->limits[i].name == name)
			return m->limits[i].value;
	return 0;
}

static inline int qos_of(const tph_view *v, qos_keys k, tph_idx t)
{
	const int64_t *req = v->tasks->req + (size_t)t * v->ndim;
	const tph_pod_meta *m = v->tasks->meta ? v->tasks->meta[t] : NULL;
	int64_t rc = req[TPH_RES_CPU], rm = req[TPH_RES_MEMORY];
	int64_t lc = qos_limit(m, k.cpu), lm = qos_limit(m, k.mem);
	if (!rc && !rm && !lc && !lm)
		return QOS_BEST_EFFORT;
	/* requests equal limits, resource by resource (a request without its limit differs) */
	bool equal = (!rc || rc == lc) && (!rm || rm == lm);
	return lc && lm && equal && rc == lc && rm == lm ? QOS_GUARANTEED : QOS_BURSTABLE;
}

#endif

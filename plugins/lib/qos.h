/* A pod's QoS class as Kubernetes computes it (v1qos.GetPodQOS, k8s.io/kubernetes
 * pkg/apis/core/v1/helper/qos), for the plugins that read it (rescheduling's victim order,
 * numa-aware's Guaranteed pods).
 *
 * GetPodQOS compares each container's cpu and memory limits with its requests. Scenario pods
 * carry requests only for now, so the rule here takes a pod's limits to equal its requests:
 * Guaranteed when it requests both cpu and memory, BestEffort when it requests neither,
 * Burstable otherwise. A pod written with requests equal to its limits gets the class
 * Kubernetes gives it; a pod with limits above its requests, or with limits alone, does not
 * (it reads as Guaranteed or BestEffort where Kubernetes says Burstable). */
#ifndef TPH_PLUGINS_LIB_QOS_H
#define TPH_PLUGINS_LIB_QOS_H

#include "tephra/columns.h"

/* In the order Volcano's rescheduling evicts them: BestEffort first. */
enum {
	QOS_BEST_EFFORT = 0,
	QOS_BURSTABLE = 1,
	QOS_GUARANTEED = 2,
};

static inline int qos_of(const tph_view *v, tph_idx t)
{
	const int64_t *req = v->tasks->req + (size_t)t * v->ndim;
	bool cpu = req[TPH_RES_CPU] > 0, mem = req[TPH_RES_MEMORY] > 0;
	return cpu && mem ? QOS_GUARANTEED : cpu || mem ? QOS_BURSTABLE : QOS_BEST_EFFORT;
}

#endif

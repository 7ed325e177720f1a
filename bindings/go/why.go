package tephra

// #include "shim.h"
import "C"

import (
	"math"
	"unsafe"
)

// PodGroupCondition is the condition Volcano's gang plugin writes on a podgroup it could not
// schedule.
type PodGroupCondition struct {
	Type    string `json:"type"`   // "Unschedulable"
	Reason  string `json:"reason"` // "NotEnoughResources"
	Message string `json:"message"`
}

// PendingJob says why a podgroup is pending: a kind, the plugin that refused it, one line with
// numbers ("needs 8, 5 placeable: 3 tasks fit no node — 2 Insufficient cpu, ...").
type PendingJob struct {
	PodGroup  string             `json:"podGroup"`
	Queue     string             `json:"queue"`
	Kind      string             `json:"kind"` // Invalid, NotEnqueued, QueueShare, GangShort, ...
	Plugin    *string            `json:"plugin"`
	Message   string             `json:"message"`
	MinMember int                `json:"minMember"`
	Tasks     int                `json:"tasks"`
	Ready     int                `json:"ready"`
	Placeable int                `json:"placeable"`
	Pending   int                `json:"pending"`
	Unfit     int                `json:"unfit"`
	Condition *PodGroupCondition `json:"condition"`
}

// QueueStatus is a queue after close: resources as quantity strings ({"cpu": "4"}), nil when
// no plugin reported them; Pending counts its pending jobs ("jobs") and them by kind.
type QueueStatus struct {
	Name       string            `json:"name"`
	State      string            `json:"state"`
	Weight     int               `json:"weight"`
	Share      *float64          `json:"share"`
	ReportedBy *string           `json:"reportedBy"`
	Allocated  map[string]string `json:"allocated"`
	Deserved   map[string]string `json:"deserved"`
	Request    map[string]string `json:"request"`
	Inqueue    map[string]string `json:"inqueue"`
	Capability map[string]string `json:"capability"`
	Guarantee  map[string]string `json:"guarantee"`
	Status     map[string]int    `json:"status"` // podgroups by phase (Volcano's queue status)
	Pending    map[string]int    `json:"pending"`
	Summary    string            `json:"summary"`
}

func optString(p *C.char) *string {
	if p == nil {
		return nil
	}
	s := C.GoString(p)
	return &s
}

// resources shows a queue row as `tephra run` does: cpu and memory always, the others when
// non-zero, never an unlimited value.
func resources(l *C.tph_decision_log, row *C.int64_t) map[string]string {
	if row == nil {
		return nil
	}
	out := map[string]string{}
	var buf [48]C.char
	dims := unsafe.Slice(l.dims, l.n_dims)
	units := unsafe.Slice(l.dim_units, l.n_dims)
	for d, v := range unsafe.Slice(row, l.n_dims) {
		name := C.GoString(dims[d])
		if int64(v) == math.MaxInt64 || (v == 0 && name != "cpu" && name != "memory") {
			continue
		}
		C.tph_quantity_format(v, C.tph_res_unit(units[d]), &buf[0], C.size_t(len(buf)))
		out[name] = C.GoString(&buf[0])
	}
	return out
}

func pendingJobs(l *C.tph_decision_log) []PendingJob {
	out := make([]PendingJob, 0, l.n_jobs)
	for _, r := range unsafe.Slice(l.jobs, l.n_jobs) {
		j := PendingJob{PodGroup: goString(r.podgroup), Queue: goString(r.queue),
			Kind: goString(C.tph_job_why_name(r.why)), Plugin: optString(r.plugin),
			Message: goString(r.message), MinMember: int(r.min_member), Tasks: int(r.tasks),
			Ready: int(r.ready), Placeable: int(r.placeable), Pending: int(r.pending),
			Unfit: int(r.unfit)}
		if r.cond_type != nil {
			j.Condition = &PodGroupCondition{goString(r.cond_type), goString(r.cond_reason),
				goString(r.cond_message)}
		}
		out = append(out, j)
	}
	return out
}

func queueStatuses(l *C.tph_decision_log) []QueueStatus {
	out := make([]QueueStatus, 0, l.n_queues)
	for _, q := range unsafe.Slice(l.queues, l.n_queues) {
		s := QueueStatus{Name: goString(q.name), State: goString(q.state), Weight: int(q.weight),
			ReportedBy: optString(q.reported_by), Summary: goString(q.summary),
			Allocated: resources(l, q.allocated), Deserved: resources(l, q.deserved),
			Request: resources(l, q.request), Inqueue: resources(l, q.inqueue),
			Capability: resources(l, q.capability), Guarantee: resources(l, q.guarantee),
			Pending: map[string]int{"jobs": int(q.jobs_pending)}, Status: map[string]int{}}
		for i, phase := range []string{"pending", "inqueue", "running", "unknown", "completed"} {
			s.Status[phase] = int(q.podgroups[i])
		}
		if q.share >= 0 {
			share := float64(q.share)
			s.Share = &share
		}
		for k, n := range q.by_why {
			if n > 0 {
				s.Pending[goString(C.tph_job_why_name(C.tph_job_why(k)))] = int(n)
			}
		}
		out = append(out, s)
	}
	return out
}

package tephra

// The one place Go objects become C descriptors. Every descriptor starts from its
// TPH_*_DESC_INIT macro (shim.h), so `size` is always the C struct's sizeof; strings and arrays
// are copied into C memory owned by a cmem and freed after the call, so no Go pointer is ever
// stored in memory the library reads.

// #include "shim.h"
import "C"

import (
	"sort"
	"time"
	"unsafe"
)

// cmem owns the C memory of one call's descriptors.
type cmem struct {
	ptrs []unsafe.Pointer
	err  error // the first bad value met (an unknown enum spelling)
}

func (m *cmem) free() {
	for _, p := range m.ptrs {
		C.free(p)
	}
	m.ptrs = nil
}

func (m *cmem) fail(format string, args ...any) {
	if m.err == nil {
		m.err = errorf(C.TPH_EINVAL, format, args...)
	}
}

// array allocates n zeroed T in C memory (nil for n == 0).
func array[T any](m *cmem, n int) []T {
	if n == 0 {
		return nil
	}
	var zero T
	p := C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(zero)))
	if p == nil {
		panic("tephra: out of memory")
	}
	m.ptrs = append(m.ptrs, p)
	return unsafe.Slice((*T)(p), n)
}

func first[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// str copies s; "" is NULL, which every optional string of the API reads as "not set".
func (m *cmem) str(s string) *C.char {
	if s == "" {
		return nil
	}
	return m.text(s)
}

// text copies s, "" included.
func (m *cmem) text(s string) *C.char {
	p := C.CString(s)
	m.ptrs = append(m.ptrs, unsafe.Pointer(p))
	return p
}

func sortedKeys[V any](mp map[string]V) []string {
	keys := make([]string, 0, len(mp))
	for k := range mp {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (m *cmem) kvs(mp map[string]string) C.tph_kv_list {
	keys := sortedKeys(mp)
	items := array[C.tph_kv](m, len(keys))
	for i, k := range keys {
		items[i] = C.tph_kv{key: m.text(k), value: m.text(mp[k])}
	}
	return C.tph_kv_list{items: first(items), n: C.uint32_t(len(items))}
}

func (m *cmem) res(r Resources) C.tph_res_list {
	keys := sortedKeys(r)
	items := array[C.tph_res_item](m, len(keys))
	for i, k := range keys {
		items[i] = C.tph_res_item{name: m.text(k), value: C.int64_t(r[k])}
	}
	return C.tph_res_list{items: first(items), n: C.uint32_t(len(items))}
}

func (m *cmem) strs(ss []string) C.tph_str_list {
	items := array[*C.char](m, len(ss))
	for i, s := range ss {
		items[i] = m.text(s)
	}
	return C.tph_str_list{items: first(items), n: C.uint32_t(len(items))}
}

// millis is a tph_time: milliseconds since the epoch, 0 for the zero time.
func millis(t time.Time) C.tph_time {
	if t.IsZero() {
		return 0
	}
	return C.tph_time(t.UnixMilli())
}

// enum maps a Kubernetes spelling to its C value; "" is the first (the default).
func (m *cmem) enum(what, v string, names ...string) C.int {
	if v == "" {
		return 0
	}
	for i, n := range names {
		if n == v {
			return C.int(i)
		}
	}
	m.fail("%s: %q is none of %v", what, v, names)
	return 0
}

func (m *cmem) effect(e TaintEffect) C.int {
	return m.enum("taint effect", string(e), string(NoSchedule), string(PreferNoSchedule),
		string(NoExecute))
}

func (m *cmem) term(reqs []Requirement) C.tph_sel_term {
	exprs := array[C.tph_sel_expr](m, len(reqs))
	for i, r := range reqs {
		op := m.enum("selector operator", r.Operator, "In", "NotIn", "Exists", "DoesNotExist",
			"Gt", "Lt")
		exprs[i] = C.tph_sel_expr{key: m.text(r.Key), op: C.tph_sel_op(op), values: m.strs(r.Values)}
	}
	return C.tph_sel_term{exprs: first(exprs), n: C.uint32_t(len(exprs))}
}

func (m *cmem) selector(s *LabelSelector) C.tph_label_selector {
	if s == nil {
		return C.tph_label_selector{}
	}
	return C.tph_label_selector{present: true, match_labels: m.kvs(s.MatchLabels),
		match_exprs: m.term(s.MatchExpressions)}
}

func (m *cmem) podTerms(ts []PodAffinityTerm) (*C.tph_pod_affinity_term, C.uint32_t) {
	out := array[C.tph_pod_affinity_term](m, len(ts))
	for i, t := range ts {
		out[i] = C.tph_pod_affinity_term{selector: m.selector(t.Selector),
			namespaces: m.strs(t.Namespaces), topology_key: m.str(t.TopologyKey),
			weight: C.int32_t(t.Weight)}
	}
	return first(out), C.uint32_t(len(out))
}

func (m *cmem) affinity(a *Affinity) *C.tph_affinity {
	if a == nil {
		return nil
	}
	c := &array[C.tph_affinity](m, 1)[0]
	req := array[C.tph_sel_term](m, len(a.NodeRequired))
	for i, t := range a.NodeRequired {
		req[i] = m.term(t)
	}
	c.node_required, c.n_node_required = first(req), C.uint32_t(len(req))
	pref := array[C.tph_pref_term](m, len(a.NodePreferred))
	for i, t := range a.NodePreferred {
		pref[i] = C.tph_pref_term{weight: C.int32_t(t.Weight), term: m.term(t.Term)}
	}
	c.node_preferred, c.n_node_preferred = first(pref), C.uint32_t(len(pref))
	c.pod_required, c.n_pod_required = m.podTerms(a.PodRequired)
	c.pod_preferred, c.n_pod_preferred = m.podTerms(a.PodPreferred)
	c.anti_required, c.n_anti_required = m.podTerms(a.AntiRequired)
	c.anti_preferred, c.n_anti_preferred = m.podTerms(a.AntiPreferred)
	return c
}

func (m *cmem) topology(t *NetworkTopology) C.tph_net_topology {
	c := C.tph_go_init_tph_net_topology()
	if t == nil {
		return c
	}
	c.mode = C.tph_topo_mode(m.enum("network topology mode", t.Mode, "", "hard", "soft"))
	if t.HighestTier != nil {
		c.highest_tier = C.int32_t(*t.HighestTier)
	}
	c.highest_tier_name = m.str(t.HighestTierName)
	return c
}

func (m *cmem) node(n *Node) *C.tph_node_desc {
	c := C.tph_go_init_tph_node_desc()
	c.name = m.str(n.Name)
	c.allocatable = m.res(n.Allocatable)
	c.capacity = m.res(n.Capacity)
	c.labels = m.kvs(n.Labels)
	c.annotations = m.kvs(n.Annotations)
	taints := array[C.tph_taint](m, len(n.Taints))
	for i, t := range n.Taints {
		taints[i] = C.tph_taint{key: m.text(t.Key), value: m.str(t.Value),
			effect: C.tph_taint_effect(m.effect(t.Effect))}
	}
	c.taints, c.n_taints = first(taints), C.uint32_t(len(taints))
	c.unschedulable = C.bool(n.Unschedulable)
	c.not_ready = C.bool(n.NotReady)
	if u := n.Usage; u != nil {
		c.usage = C.tph_node_usage{present: true, period_s: C.int64_t(u.Period / time.Second),
			cpu_pct: C.double(u.CPUPercent), mem_pct: C.double(u.MemPercent),
			metrics_time: millis(u.MetricsTime)}
	}
	return &c
}

func (m *cmem) pod(p *Pod) *C.tph_pod_desc {
	c := C.tph_go_init_tph_pod_desc()
	c.name, c.namespace_ = m.str(p.Name), m.str(p.Namespace)
	c.pod_group = m.str(p.PodGroup)
	c.phase = C.tph_pod_phase(m.enum("pod phase", string(p.Phase), string(PodPending),
		string(PodRunning), string(PodSucceeded), string(PodFailed), string(PodUnknown)))
	c.node_name = m.str(p.NodeName)
	c.requests, c.limits = m.res(p.Requests), m.res(p.Limits)
	c.task_spec = m.str(p.TaskSpec)
	c.labels, c.annotations = m.kvs(p.Labels), m.kvs(p.Annotations)
	c.node_selector = m.kvs(p.NodeSelector)
	tols := array[C.tph_toleration](m, len(p.Tolerations))
	for i, t := range p.Tolerations {
		effect := C.int(-1) // every effect
		if t.Effect != "" {
			effect = m.effect(t.Effect)
		}
		tols[i] = C.tph_toleration{key: m.str(t.Key), value: m.str(t.Value), effect: effect,
			op: C.tph_toleration_op(m.enum("toleration operator", t.Operator, "Equal", "Exists"))}
	}
	c.tolerations, c.n_tolerations = first(tols), C.uint32_t(len(tols))
	c.affinity = m.affinity(p.Affinity)
	spread := array[C.tph_spread_constraint](m, len(p.TopologySpread))
	for i, s := range p.TopologySpread {
		spread[i] = C.tph_spread_constraint{max_skew: C.int32_t(s.MaxSkew),
			topology_key: m.str(s.TopologyKey), do_not_schedule: C.bool(s.DoNotSchedule),
			selector: m.selector(s.Selector), min_domains: C.int32_t(s.MinDomains)}
	}
	c.spread, c.n_spread = first(spread), C.uint32_t(len(spread))
	if p.Priority != nil {
		c.has_priority, c.priority = true, C.int32_t(*p.Priority)
	}
	c.priority_class = m.str(p.PriorityClass)
	c.preempt_never = C.bool(p.PreemptNever)
	if p.Preemptable != nil {
		c.preemptable = C.TPH_PREEMPTABLE_NO
		if *p.Preemptable {
			c.preemptable = C.TPH_PREEMPTABLE_YES
		}
	}
	c.nominated_node = m.str(p.NominatedNode)
	c.deleting = C.bool(p.Deleting)
	c.creation = millis(p.Creation)
	c.uid = m.str(p.UID)
	conds := array[C.tph_pod_condition](m, len(p.Conditions))
	for i, k := range p.Conditions {
		if k.Status == "" {
			m.fail("pod %s/%s: condition %s: status is none of True, False, Unknown",
				p.Namespace, p.Name, k.Type)
		}
		conds[i] = C.tph_pod_condition{_type: m.text(k.Type),
			status: C.tph_cond_status(m.enum("condition status", k.Status, "True", "False",
				"Unknown")),
			last_transition: millis(k.LastTransition), last_probe: millis(k.LastProbe),
			reason: m.str(k.Reason), message: m.str(k.Message)}
	}
	c.conditions, c.n_conditions = first(conds), C.uint32_t(len(conds))
	return &c
}

func (m *cmem) podGroup(g *PodGroup) *C.tph_podgroup_desc {
	c := C.tph_go_init_tph_podgroup_desc()
	c.name, c.namespace_, c.queue = m.str(g.Name), m.str(g.Namespace), m.str(g.Queue)
	if g.MinMember != nil {
		c.min_member = C.int32_t(*g.MinMember)
	}
	keys := sortedKeys(g.MinTaskMember)
	tasks := array[C.tph_min_task](m, len(keys))
	for i, k := range keys {
		tasks[i] = C.tph_min_task{task_spec: m.text(k), min: C.int32_t(g.MinTaskMember[k])}
	}
	c.min_tasks, c.n_min_tasks = first(tasks), C.uint32_t(len(tasks))
	c.min_resources, c.has_min_resources = m.res(g.MinResources), g.MinResources != nil
	c.phase = C.tph_pg_phase(m.enum("podgroup phase", string(g.Phase), string(PodGroupPending),
		string(PodGroupInqueue), string(PodGroupRunning), string(PodGroupUnknown),
		string(PodGroupCompleted)))
	c.priority_class = m.str(g.PriorityClass)
	c.creation = millis(g.Creation)
	c.annotations = m.kvs(g.Annotations)
	c.uid = m.str(g.UID)
	c.topology = m.topology(g.NetworkTopology)
	subs := array[C.tph_subgroup_policy](m, len(g.SubGroups))
	for i, s := range g.SubGroups {
		subs[i] = C.tph_go_init_tph_subgroup_policy()
		subs[i].name = m.str(s.Name)
		if s.SubGroupSize != nil {
			subs[i].subgroup_size = C.int32_t(*s.SubGroupSize)
		}
		subs[i].min_subgroups = C.int32_t(s.MinSubGroups)
		subs[i].match_label_keys = m.strs(s.MatchLabelKeys)
		subs[i].selector = m.selector(s.Selector)
		subs[i].topology = m.topology(s.NetworkTopology)
	}
	c.subgroups, c.n_subgroups = first(subs), C.uint32_t(len(subs))
	return &c
}

func (m *cmem) queue(q *Queue) *C.tph_queue_desc {
	c := C.tph_go_init_tph_queue_desc()
	c.name = m.str(q.Name)
	if q.Weight != nil {
		c.weight = C.int32_t(*q.Weight)
	}
	c.capability, c.deserved, c.guarantee = m.res(q.Capability), m.res(q.Deserved),
		m.res(q.Guarantee)
	c.not_reclaimable = C.bool(q.Reclaimable != nil && !*q.Reclaimable)
	c.state = C.tph_queue_state(m.enum("queue state", string(q.State), string(QueueOpen),
		string(QueueClosed), string(QueueClosing)))
	c.parent = m.str(q.Parent)
	c.priority = C.int32_t(q.Priority)
	c.creation = millis(q.Creation)
	c.annotations = m.kvs(q.Annotations)
	if a := q.Affinity; a != nil {
		c.has_affinity = true
		c.affinity_required, c.affinity_preferred = m.strs(a.Required), m.strs(a.Preferred)
		c.anti_affinity_required = m.strs(a.AntiRequired)
		c.anti_affinity_preferred = m.strs(a.AntiPreferred)
	}
	return &c
}

func (m *cmem) priorityClass(p *PriorityClass) *C.tph_priority_class_desc {
	c := C.tph_go_init_tph_priority_class_desc()
	c.name, c.value = m.str(p.Name), C.int32_t(p.Value)
	c.global_default, c.preempt_never = C.bool(p.GlobalDefault), C.bool(p.PreemptNever)
	return &c
}

func (m *cmem) hyperNode(h *HyperNode) *C.tph_hypernode_desc {
	c := C.tph_go_init_tph_hypernode_desc()
	c.name, c.tier, c.tier_name = m.str(h.Name), C.int32_t(h.Tier), m.str(h.TierName)
	members := array[C.tph_hypernode_member](m, len(h.Members))
	for i, x := range h.Members {
		switch {
		case x.Name != "" && x.Regex == "" && x.Labels == nil:
			members[i] = C.tph_hypernode_member{kind: C.TPH_MEMBER_NAME, name_or_regex: m.text(x.Name)}
		case x.Regex != "" && x.Name == "" && x.Labels == nil:
			members[i] = C.tph_hypernode_member{kind: C.TPH_MEMBER_REGEX, name_or_regex: m.text(x.Regex)}
		case x.Labels != nil && x.Name == "" && x.Regex == "":
			members[i] = C.tph_hypernode_member{kind: C.TPH_MEMBER_LABELS, labels: m.kvs(x.Labels)}
		default:
			m.fail("hypernode %s: member %d: set exactly one of Name, Regex, Labels", h.Name, i)
		}
	}
	c.members, c.n_members = first(members), C.uint32_t(len(members))
	return &c
}

func (m *cmem) quota(q *Quota) *C.tph_quota_desc {
	c := C.tph_go_init_tph_quota_desc()
	c.name, c.namespace_, c.hard = m.str(q.Name), m.str(q.Namespace), m.res(q.Hard)
	return &c
}

func intOrPercent(v *IntOrPercent) C.tph_int_or_percent {
	if v == nil {
		return C.tph_int_or_percent{}
	}
	return C.tph_int_or_percent{present: true, percent: C.bool(v.Percent), value: C.int32_t(v.Value)}
}

func (m *cmem) pdb(p *PodDisruptionBudget) *C.tph_pdb_desc {
	c := C.tph_go_init_tph_pdb_desc()
	c.name, c.namespace_ = m.str(p.Name), m.str(p.Namespace)
	c.selector = m.selector(p.Selector)
	c.min_available, c.max_unavailable = intOrPercent(p.MinAvailable), intOrPercent(p.MaxUnavailable)
	c.disruptions_allowed = C.int32_t(p.DisruptionsAllowed)
	names := sortedKeys(p.DisruptedPods)
	pods := array[C.tph_disrupted_pod](m, len(names))
	for i, n := range names {
		pods[i] = C.tph_disrupted_pod{pod: m.text(n), time: millis(p.DisruptedPods[n])}
	}
	c.disrupted_pods, c.n_disrupted_pods = first(pods), C.uint32_t(len(pods))
	return &c
}

package tephra

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// gangs is bindings/testdata/gangs.yaml, loaded from memory.
func gangs(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "gangs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestScenarioBinds(t *testing.T) {
	sc, err := LoadScenarioBytes(gangs(t), "gangs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	if sc.Name() != "two gangs" || sc.Conf() == nil || sc.Cluster().NodeCount() != 2 {
		t.Fatalf("name %q, conf %v, nodes %d", sc.Name(), sc.Conf(), sc.Cluster().NodeCount())
	}
	sc.Cluster().Close() // no-ops: the scenario owns its cache and conf
	sc.Conf().Close()
	for _, threads := range []int{1, 2} {
		d, err := sc.Run(&SessionOptions{Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		var binds []string
		for _, b := range d.Binds {
			binds = append(binds, b.Pod+"->"+b.Node)
		}
		if got := strings.Join(binds, " "); got != "team/fits-0->n1 team/fits-1->n2 team/fits-2->n1" {
			t.Errorf("threads %d: binds %s", threads, got)
		}
		if len(d.Pending) != 2 || d.Pending[0].Pod != "team/toobig-0" || d.JobsTotal != 2 {
			t.Errorf("threads %d: pending %+v, jobs %d", threads, d.Pending, d.JobsTotal)
		}
	}
}

// cycle runs one explicit cycle: snapshot, open, run, close, apply, free, with the snapshot
// released while the session is open (the session holds it).
func cycle(t *testing.T, cl *Cluster, conf *Conf) *Decisions {
	t.Helper()
	snap, err := cl.Snapshot(nilTime)
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenSession(snap, conf, &SessionOptions{Threads: 1})
	snap.Close()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Free()
	if _, err := s.Decisions(); !errors.Is(err, ErrInvalid) {
		t.Errorf("decisions before close: %v", err)
	}
	for _, step := range []func() error{s.Run, s.Close, func() error { return cl.Apply(s) }} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	d, err := s.Decisions()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func binds(d *Decisions) string {
	var out []string
	for _, b := range d.Binds {
		out = append(out, b.Pod+"->"+b.Node)
	}
	return strings.Join(out, " ")
}

// Several cycles through the put API: Apply makes the binds stick (the next snapshot holds the
// bound pods' resources), and the host moves pods on as the kubelet would.
func TestCyclesWithApply(t *testing.T) {
	cl, err := NewCluster(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(cl.PutQueue(Queue{Name: "default"}))
	must(cl.PutNode(Node{Name: "n1", Allocatable: Resources{"cpu": 2000, "pods": 110000},
		Labels: map[string]string{"zone": "a"}, Taints: []Taint{{Key: "gpu", Effect: NoSchedule}}}))
	must(cl.PutNode(Node{Name: "n2", Allocatable: Resources{"cpu": 2000, "pods": 110000}}))
	pod := func(name string) Pod { return Pod{Name: name, Namespace: "ns", Requests: Resources{"cpu": 1500}} }
	a := pod("a")
	a.Tolerations = []Toleration{{Key: "gpu", Operator: "Exists"}}
	a.NodeSelector = map[string]string{"zone": "a"}
	must(cl.PutPod(a))
	must(cl.PutPod(pod("b")))
	must(cl.PutPod(pod("c")))

	// 1: a and b bind, c finds no room.
	d := cycle(t, cl, nil)
	if binds(d) != "ns/a->n1 ns/b->n2" || len(d.Pending) != 1 || d.Pending[0].Pod != "ns/c" {
		t.Fatalf("cycle 1: binds %s, pending %+v", binds(d), d.Pending)
	}
	// 2: nothing changed but the applied binds: nothing new binds, and a and b stay put.
	if d = cycle(t, cl, nil); binds(d) != "" || len(d.Pending) != 1 {
		t.Fatalf("cycle 2: binds %s, pending %+v", binds(d), d.Pending)
	}
	// 3: a runs and b completes (the kubelet's news): c takes b's room on n2.
	a.Phase, a.NodeName = PodRunning, "n1"
	must(cl.PutPod(a))
	must(cl.RemovePod("ns", "b"))
	if d = cycle(t, cl, nil); binds(d) != "ns/c->n2" || len(d.Pending) != 0 {
		t.Fatalf("cycle 3: binds %s, pending %+v", binds(d), d.Pending)
	}
	if cl.PodCount() != 2 || cl.NodeCount() != 2 || cl.Warnings() != 0 {
		t.Errorf("cache: %d pods, %d nodes, %d warnings", cl.PodCount(), cl.NodeCount(), cl.Warnings())
	}
}

// A session outlives everything it was opened over; freed objects refuse further use.
func TestLifetimes(t *testing.T) {
	cl, err := NewCluster(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.PutQueue(Queue{Name: "default"}); err != nil {
		t.Fatal(err)
	}
	if err := cl.PutNode(Node{Name: "n1", Allocatable: Resources{"cpu": 1000, "pods": 110000}}); err != nil {
		t.Fatal(err)
	}
	if err := cl.PutPod(Pod{Name: "p", Namespace: "ns", Requests: Resources{"cpu": 500}}); err != nil {
		t.Fatal(err)
	}
	conf, err := DefaultConf()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(conf.Actions(), ","); got != "enqueue,allocate,backfill" {
		t.Errorf("default conf actions: %s", got)
	}
	snap, err := cl.Snapshot(nilTime)
	if err != nil {
		t.Fatal(err)
	}
	s, err := OpenSession(snap, conf, nil)
	if err != nil {
		t.Fatal(err)
	}
	snap.Close()
	conf.Close()
	cl.Close() // the session holds the cache through its snapshot
	cl.Close() // a no-op
	if err := s.Run(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := s.Decisions()
	s.Free()
	s.Free() // a no-op
	if err != nil || binds(d) != "ns/p->n1" {
		t.Errorf("decisions %+v, %v", d, err)
	}
	if err := cl.PutNode(Node{Name: "n2"}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("put on a closed cache: %v", err)
	}
	if err := s.Run(); !errors.Is(err, ErrInvalid) {
		t.Errorf("run on a freed session: %v", err)
	}
	if _, err := OpenSession(snap, nil, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("open on a closed snapshot: %v", err)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("nodes:\n  - {name: n1, allocatable: {cpu: abc}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadScenario(bad)
	var e *Error
	if !errors.As(err, &e) || e.Code >= 0 || !strings.HasPrefix(e.Name, "TPH_E") ||
		!strings.Contains(e.Message, "bad.yaml:2:") || !strings.Contains(err.Error(), e.Name) {
		t.Fatalf("bad quantity: %#v", err)
	}
	_, err = LoadScenarioBytes([]byte("nodes: [\n"), "broken.yaml")
	if !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "broken.yaml:") {
		t.Errorf("broken YAML: %v", err)
	}
	if _, err = LoadScenario(filepath.Join(dir, "none.yaml")); err == nil {
		t.Error("missing file loaded")
	}
	if _, err = ParseConf("actions: \"allocate, frobnicate\"\n", "c.conf"); !strings.Contains(fmt.Sprint(err), "c.conf:1:") {
		t.Errorf("bad conf: %v", err)
	}

	cl, err := NewCluster(Silent)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// The zero value of every Go object is a valid descriptor (its INIT macro's defaults); what
	// the library refuses is a missing name, never an uninitialised descriptor.
	for what, err := range map[string]error{
		"node": cl.PutNode(Node{}), "pod": cl.PutPod(Pod{}), "podgroup": cl.PutPodGroup(PodGroup{}),
		"queue": cl.PutQueue(Queue{}), "class": cl.PutPriorityClass(PriorityClass{}),
		"quota": cl.PutQuota(Quota{}), "hypernode": cl.PutHyperNode(HyperNode{}),
		"pdb": cl.PutPodDisruptionBudget(PodDisruptionBudget{}),
	} {
		if !errors.Is(err, ErrInvalid) || strings.Contains(err.Error(), "not initialised") {
			t.Errorf("%s without a name: %v", what, err)
		}
	}
	if err := cl.PutQueue(Queue{Name: "q"}); err != nil {
		t.Errorf("zero queue: %v", err)
	}
	if err := cl.PutPod(Pod{Name: "p", Namespace: "ns", Phase: "Sleeping"}); !errors.Is(err, ErrInvalid) ||
		!strings.Contains(err.Error(), `"Sleeping"`) {
		t.Errorf("bad phase: %v", err)
	}
	if err := cl.RemovePod("ns", "nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("remove a missing pod: %v", err)
	}
	if _, err := Quantity("cpu", "abc"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad quantity: %v", err)
	}
	if v, _ := Quantity("memory", "1Gi"); v != 1<<30 {
		t.Errorf("1Gi = %d", v)
	}
	if Version() != HeaderVersion {
		t.Errorf("library %s, headers %s", Version(), HeaderVersion)
	}
}

// Objects dropped without Close are released by their finalizers, without a crash.
func TestFinalizers(t *testing.T) {
	for i := 0; i < 3; i++ {
		sc, err := LoadScenarioBytes(gangs(t), "")
		if err != nil {
			t.Fatal(err)
		}
		snap, err := sc.Cluster().Snapshot(sc.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := OpenSession(snap, sc.Conf(), nil); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.GC()
}

// Warnings reach the WarnFunc given, not stderr.
func TestWarnings(t *testing.T) {
	var got []string
	cl, err := NewCluster(func(msg string) { got = append(got, msg) })
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.PutPod(Pod{Name: "p", Namespace: "ns"}); err != nil { // no queue "default"
		t.Fatal(err)
	}
	snap, err := cl.Snapshot(nilTime)
	if err != nil {
		t.Fatal(err)
	}
	snap.Close()
	if len(got) != 1 || !strings.Contains(got[0], `queue "default" does not exist`) || cl.Warnings() != 1 {
		t.Errorf("warnings %q (%d counted)", got, cl.Warnings())
	}
}

// Every kind of object, with the nested parts desc.go maps (selectors, affinity, spread,
// subgroups, members, budgets), is accepted, and removed again.
func TestEveryKind(t *testing.T) {
	cl, err := NewCluster(Silent)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	sel := &LabelSelector{MatchLabels: map[string]string{"app": "web"},
		MatchExpressions: []Requirement{{Key: "tier", Operator: "In", Values: []string{"a", "b"}}}}
	zero, two := int32(0), int32(2)
	no := false
	for _, err := range []error{
		cl.PutQueue(Queue{Name: "default", Weight: &zero, Capability: Resources{"cpu": 8000},
			Reclaimable: &no, Affinity: &QueueAffinity{Required: []string{"g1"}}}),
		cl.PutQueue(Queue{Name: "child", Parent: "default", State: QueueClosed}),
		cl.PutPriorityClass(PriorityClass{Name: "high", Value: 100, GlobalDefault: true}),
		cl.PutQuota(Quota{Name: "q", Namespace: "ns", Hard: Resources{"pods": 10000}}),
		cl.PutNode(Node{Name: "n1", Allocatable: Resources{"cpu": 4000}, Capacity: Resources{"cpu": 4000},
			Usage: &NodeUsage{Period: time.Minute, CPUPercent: 10, MemPercent: 20}}),
		cl.PutHyperNode(HyperNode{Name: "h1", Tier: 1, Members: []HyperNodeMember{{Name: "n1"},
			{Regex: "^n"}, {Labels: map[string]string{"a": "b"}}}}),
		cl.PutPodGroup(PodGroup{Name: "g", Namespace: "ns", MinMember: &zero,
			MinTaskMember: map[string]int32{"worker": 1}, MinResources: Resources{"cpu": 1000},
			Phase: PodGroupInqueue, NetworkTopology: &NetworkTopology{Mode: "hard", HighestTier: &two},
			SubGroups: []SubGroupPolicy{{Name: "s", SubGroupSize: &two, MatchLabelKeys: []string{"k"},
				Selector: sel}}}),
		cl.PutPod(Pod{Name: "p", Namespace: "ns", PodGroup: "g", Priority: &two, Preemptable: &no,
			Limits: Resources{"cpu": 2000},
			Affinity: &Affinity{NodeRequired: []NodeSelectorTerm{{{Key: "zone", Operator: "Exists"}}},
				NodePreferred: []PreferredNodeTerm{{Weight: 3,
					Term: NodeSelectorTerm{{Key: "z", Operator: "NotIn", Values: []string{"x"}}}}},
				AntiPreferred: []PodAffinityTerm{{Selector: sel, Namespaces: []string{"ns"},
					TopologyKey: "zone", Weight: 10}}},
			TopologySpread: []SpreadConstraint{{MaxSkew: 1, TopologyKey: "zone", DoNotSchedule: true,
				Selector: sel}},
			Conditions: []PodCondition{{Type: "PodScheduled", Status: "False", Reason: "Unschedulable"}}}),
		cl.PutPodDisruptionBudget(PodDisruptionBudget{Name: "b", Namespace: "ns", Selector: sel,
			MinAvailable: &IntOrPercent{Value: 50, Percent: true}, DisruptionsAllowed: 1,
			DisruptedPods: map[string]time.Time{"p": time.Unix(1, 0)}}),
		cl.SetShard("soft", "s1", []string{"n1"}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	snap, err := cl.Snapshot(nilTime)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Nodes() != 1 || snap.Tasks() != 1 {
		t.Errorf("snapshot: %d nodes, %d tasks", snap.Nodes(), snap.Tasks())
	}
	snap.Close()
	for _, err := range []error{cl.RemovePodDisruptionBudget("ns", "b"), cl.RemovePod("ns", "p"),
		cl.RemovePodGroup("ns", "g"), cl.RemoveQueue("child"), cl.RemoveNode("n1")} {
		if err != nil {
			t.Error(err)
		}
	}
	if err := cl.PutHyperNode(HyperNode{Name: "h", Members: []HyperNodeMember{{Name: "a", Regex: "b"}}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("a member with a name and a regex: %v", err)
	}
}

package tephra

// #include "shim.h"
import "C"

import (
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Cluster is the cluster cache (tph_cluster): the host's model of the cluster, updated
// incrementally with Put and Remove, snapshotted once per scheduling cycle, and brought up to
// date with a cycle's decisions by Apply. Its methods are safe to call from several goroutines
// (they take a lock), though a host usually drives one cache from one loop.
//
// Close it when done; a finalizer closes a forgotten one, but explicit Close is the rule (the
// memory is C memory, which the Go collector neither sees nor hurries for). Snapshots and
// sessions taken from the cache keep it alive on the C side, so they may outlive Close.
type Cluster struct {
	mu    sync.Mutex
	c     *C.tph_cluster
	d     *diag
	owner *Scenario // set when the cache belongs to a scenario (Scenario.Cluster)
}

// NewCluster creates an empty cache. Warnings go to warn, or to stderr when it is nil.
func NewCluster(warn WarnFunc) (*Cluster, error) {
	var c *C.tph_cluster
	if rc := C.tph_cluster_create(&c); rc != 0 {
		return nil, sentinel(rc)
	}
	cl := &Cluster{c: c, d: newDiag(warn)}
	runtime.SetFinalizer(cl, (*Cluster).Close)
	return cl, nil
}

// Close gives up the host's hold on the cache. It is a no-op on a closed cache, and on the
// cache of a scenario (Scenario.Close releases that one).
func (cl *Cluster) Close() error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.owner != nil || cl.c == nil {
		return nil
	}
	C.tph_cluster_destroy(cl.c)
	runtime.SetFinalizer(cl, nil)
	cl.c = nil
	cl.d.free()
	return nil
}

// lock takes the cache's lock and returns its handle, or an error for a closed cache (or one
// whose scenario was closed). The caller unlocks.
func (cl *Cluster) lock() (*C.tph_cluster, error) {
	cl.mu.Lock()
	if cl.c == nil || (cl.owner != nil && cl.owner.s == nil) {
		cl.mu.Unlock()
		return nil, errorf(C.TPH_EINVAL, "cluster is closed")
	}
	return cl.c, nil
}

// put maps an object with fill (desc.go) and hands it to the library's put of its kind.
func (cl *Cluster) put(kind C.int, fill func(m *cmem) unsafe.Pointer) error {
	c, err := cl.lock()
	if err != nil {
		return err
	}
	defer cl.mu.Unlock()
	var m cmem
	defer m.free()
	desc := fill(&m)
	if m.err != nil {
		return m.err
	}
	return cl.d.err(C.tph_go_put(c, kind, desc, cl.d.c))
}

// PutNode adds or replaces (by name) a node.
func (cl *Cluster) PutNode(n Node) error {
	return cl.put(C.TPH_GO_NODE, func(m *cmem) unsafe.Pointer { return unsafe.Pointer(m.node(&n)) })
}

// PutPod adds or replaces (by namespace/name) a pod.
func (cl *Cluster) PutPod(p Pod) error {
	return cl.put(C.TPH_GO_POD, func(m *cmem) unsafe.Pointer { return unsafe.Pointer(m.pod(&p)) })
}

// PutPodGroup adds or replaces (by namespace/name) a podgroup.
func (cl *Cluster) PutPodGroup(g PodGroup) error {
	return cl.put(C.TPH_GO_PODGROUP, func(m *cmem) unsafe.Pointer { return unsafe.Pointer(m.podGroup(&g)) })
}

// PutQueue adds or replaces (by name) a queue.
func (cl *Cluster) PutQueue(q Queue) error {
	return cl.put(C.TPH_GO_QUEUE, func(m *cmem) unsafe.Pointer { return unsafe.Pointer(m.queue(&q)) })
}

// PutPriorityClass adds or replaces (by name) a priority class.
func (cl *Cluster) PutPriorityClass(pc PriorityClass) error {
	return cl.put(C.TPH_GO_PRIORITY_CLASS,
		func(m *cmem) unsafe.Pointer { return unsafe.Pointer(m.priorityClass(&pc)) })
}

// PutHyperNode adds or replaces (by name) a hypernode.
func (cl *Cluster) PutHyperNode(h HyperNode) error {
	return cl.put(C.TPH_GO_HYPERNODE, func(m *cmem) unsafe.Pointer { return unsafe.Pointer(m.hyperNode(&h)) })
}

// PutQuota adds or replaces (by namespace/name) a resource quota.
func (cl *Cluster) PutQuota(q Quota) error {
	return cl.put(C.TPH_GO_QUOTA, func(m *cmem) unsafe.Pointer { return unsafe.Pointer(m.quota(&q)) })
}

// PutPodDisruptionBudget adds or replaces (by namespace/name) a PodDisruptionBudget; one the API
// server would refuse is refused with ErrInvalid.
func (cl *Cluster) PutPodDisruptionBudget(b PodDisruptionBudget) error {
	return cl.put(C.TPH_GO_PDB, func(m *cmem) unsafe.Pointer { return unsafe.Pointer(m.pdb(&b)) })
}

// remove calls a tph_cluster_remove_* function, or any other taking C strings, under the lock.
func (cl *Cluster) remove(call func(c *C.tph_cluster, m *cmem, d *C.tph_diag) C.int) error {
	c, err := cl.lock()
	if err != nil {
		return err
	}
	defer cl.mu.Unlock()
	var m cmem
	defer m.free()
	return cl.d.err(call(c, &m, cl.d.c))
}

func (cl *Cluster) removeKind(kind C.int, namespace, name string) error {
	return cl.remove(func(c *C.tph_cluster, m *cmem, d *C.tph_diag) C.int {
		return C.tph_go_remove(c, kind, m.text(namespace), m.text(name), d)
	})
}

// RemoveNode removes a node; ErrNotFound if there is none of that name.
func (cl *Cluster) RemoveNode(name string) error { return cl.removeKind(C.TPH_GO_NODE, "", name) }

// RemovePod removes a pod (the host does this once the kubelet says an evicted pod is gone).
func (cl *Cluster) RemovePod(namespace, name string) error {
	return cl.removeKind(C.TPH_GO_POD, namespace, name)
}

// RemovePodGroup removes a podgroup.
func (cl *Cluster) RemovePodGroup(namespace, name string) error {
	return cl.removeKind(C.TPH_GO_PODGROUP, namespace, name)
}

// RemoveQueue removes a queue.
func (cl *Cluster) RemoveQueue(name string) error { return cl.removeKind(C.TPH_GO_QUEUE, "", name) }

// RemovePodDisruptionBudget removes a PodDisruptionBudget.
func (cl *Cluster) RemovePodDisruptionBudget(namespace, name string) error {
	return cl.removeKind(C.TPH_GO_PDB, namespace, name)
}

// SetShard names the shard this scheduler instance owns: mode "hard" or "soft" ("": none).
func (cl *Cluster) SetShard(mode, name string, nodes []string) error {
	var probe cmem
	md := probe.enum("shard mode", mode, "", "hard", "soft")
	if probe.err != nil {
		return probe.err
	}
	return cl.remove(func(c *C.tph_cluster, m *cmem, d *C.tph_diag) C.int {
		return C.tph_cluster_set_shard(c, C.tph_shard_mode(md), m.str(name), m.strs(nodes), d)
	})
}

// NodeCount and PodCount count the live objects of the cache.
func (cl *Cluster) NodeCount() int {
	c, err := cl.lock()
	if err != nil {
		return 0
	}
	defer cl.mu.Unlock()
	return int(C.tph_cluster_node_count(c))
}

func (cl *Cluster) PodCount() int {
	c, err := cl.lock()
	if err != nil {
		return 0
	}
	defer cl.mu.Unlock()
	return int(C.tph_cluster_pod_count(c))
}

// Warnings counts the warnings the cache's calls have emitted so far.
func (cl *Cluster) Warnings() int {
	if _, err := cl.lock(); err != nil {
		return 0
	}
	defer cl.mu.Unlock()
	return cl.d.warnings()
}

// Snapshot takes an immutable snapshot; now is the session clock (the zero time: the epoch).
func (cl *Cluster) Snapshot(now time.Time) (*Snapshot, error) {
	c, err := cl.lock()
	if err != nil {
		return nil, err
	}
	defer cl.mu.Unlock()
	var s *C.tph_snapshot
	if err := cl.d.err(C.tph_cluster_snapshot(c, millis(now), &s, cl.d.c)); err != nil {
		return nil, err
	}
	snap := &Snapshot{s: s}
	runtime.SetFinalizer(snap, (*Snapshot).Close)
	return snap, nil
}

// Apply writes a closed session's decisions into the cache, so the next snapshot starts from
// them: binds make pods Bound, evictions make them Releasing, pipelined tasks get their
// nominated node, podgroups get their phase. Moving a pod to Running (or removing an evicted
// one) stays the host's, when the kubelet says so.
func (cl *Cluster) Apply(s *Session) error {
	c, err := cl.lock()
	if err != nil {
		return err
	}
	defer cl.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return errorf(C.TPH_EINVAL, "session is freed")
	}
	return cl.d.err(C.tph_cluster_apply(c, s.s, cl.d.c))
}

// Schedule runs one cycle: snapshot at now, open a session with conf (nil: Volcano's default
// conf) and opts, run, close, apply the decisions to the cache, and return them.
func (cl *Cluster) Schedule(now time.Time, conf *Conf, opts *SessionOptions) (*Decisions, error) {
	snap, err := cl.Snapshot(now)
	if err != nil {
		return nil, err
	}
	s, err := OpenSession(snap, conf, opts)
	snap.Close() // the session holds it
	if err != nil {
		return nil, err
	}
	defer s.Free()
	if err = s.Run(); err == nil {
		err = s.Close()
	}
	if err == nil {
		err = cl.Apply(s)
	}
	if err != nil {
		return nil, err
	}
	return s.Decisions()
}

// Snapshot is an immutable snapshot of a cache (tph_snapshot), safe to share between goroutines
// and sessions. Close it when the sessions are open (they hold their own reference); a finalizer
// is only a safety net.
type Snapshot struct {
	mu sync.Mutex
	s  *C.tph_snapshot
}

// Close releases the snapshot; a no-op the second time.
func (s *Snapshot) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s != nil {
		C.tph_snapshot_release(s.s)
		s.s = nil
		runtime.SetFinalizer(s, nil)
	}
	return nil
}

func (s *Snapshot) count(f func(*C.tph_snapshot) C.uint32_t) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return 0
	}
	return int(f(s.s))
}

// Nodes, Tasks and Jobs count what the snapshot holds (0 once closed).
func (s *Snapshot) Nodes() int {
	return s.count(func(p *C.tph_snapshot) C.uint32_t { return C.tph_snapshot_node_count(p) })
}

func (s *Snapshot) Tasks() int {
	return s.count(func(p *C.tph_snapshot) C.uint32_t { return C.tph_snapshot_task_count(p) })
}

func (s *Snapshot) Jobs() int {
	return s.count(func(p *C.tph_snapshot) C.uint32_t { return C.tph_snapshot_job_count(p) })
}

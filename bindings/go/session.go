package tephra

// #include "shim.h"
import "C"

import (
	"fmt"
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Conf is a loaded scheduler configuration (volcano-scheduler.conf format, tph_conf). It is
// immutable and may be shared by any number of sessions; each session holds it until freed, so
// Close may come before the sessions end. A finalizer is only a safety net.
type Conf struct {
	mu       sync.Mutex
	c        *C.tph_conf
	borrowed *Scenario // a scenario's conf: released with the scenario
}

func newConf(load func(c **C.tph_conf, d *diag) C.int) (*Conf, error) {
	d := newDiag(nil)
	defer d.free()
	var c *C.tph_conf
	if err := d.err(load(&c, d)); err != nil {
		return nil, err
	}
	conf := &Conf{c: c}
	runtime.SetFinalizer(conf, (*Conf).Close)
	return conf, nil
}

// LoadConf reads a conf file. As in Volcano, an enable flag left out of a plugin entry is true.
func LoadConf(path string) (*Conf, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return newConf(func(c **C.tph_conf, d *diag) C.int {
		return C.tph_conf_load_file(cpath, true, c, d.c)
	})
}

// ParseConf reads a conf from text; name stands for it in messages.
func ParseConf(text, name string) (*Conf, error) {
	ctext, cname := C.CString(text), C.CString(name)
	defer C.free(unsafe.Pointer(ctext))
	defer C.free(unsafe.Pointer(cname))
	return newConf(func(c **C.tph_conf, d *diag) C.int {
		return C.tph_conf_load_string(ctext, C.size_t(len(text)), cname, true, c, d.c)
	})
}

// DefaultConf is Volcano's built-in conf (actions "enqueue, allocate, backfill", its default
// tiers), what Volcano runs without a conf file.
func DefaultConf() (*Conf, error) {
	var n C.size_t
	text := C.tph_go_default_conf(&n)
	return newConf(func(c **C.tph_conf, d *diag) C.int {
		return C.tph_conf_load_string(text, n, text0, true, c, d.c)
	})
}

var text0 = C.CString("volcano default conf") // never freed: one per process

// Actions lists the conf's actions in order.
func (c *Conf) Actions() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.c == nil {
		return nil
	}
	out := make([]string, C.tph_conf_action_count(c.c))
	for i := range out {
		out[i] = C.GoString(C.tph_conf_action(c.c, C.uint32_t(i)))
	}
	return out
}

// Close gives up the hold on the conf; a no-op for a scenario's conf and the second time.
func (c *Conf) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.borrowed != nil || c.c == nil {
		return nil
	}
	C.tph_conf_free(c.c)
	runtime.SetFinalizer(c, nil)
	c.c = nil
	return nil
}

// SessionOptions tune a session; the zero value (or nil) is the library's defaults.
type SessionOptions struct {
	Threads         int    // 0: OMP_NUM_THREADS, else the OpenMP default
	Naive           bool   // no equivalence classes, no incremental updates
	PluginDir       string // external plugins to load at open ("": none)
	Profile         bool   // count calls and time per extension point
	ShapeCacheBytes int    // 0: room for 256 shapes (~4.2 KiB per ready node), at least 256 MiB
	Warn            WarnFunc
}

// Session is one scheduling cycle over a snapshot (tph_session): Open, Run, Close (which
// computes the podgroup phases and makes Decisions readable), then Cluster.Apply and Free.
// A session holds its snapshot and conf, so both may be closed while it is open.
//
// Free it when done: explicit Free is the rule, the finalizer only a safety net.
type Session struct {
	mu sync.Mutex
	s  *C.tph_session
	d  *diag
}

var defaultConf struct {
	once sync.Once
	conf *Conf
	err  error
}

// OpenSession opens a session over snap with conf (nil: Volcano's default conf, DefaultConf).
func OpenSession(snap *Snapshot, conf *Conf, opts *SessionOptions) (*Session, error) {
	if conf == nil {
		defaultConf.once.Do(func() { defaultConf.conf, defaultConf.err = DefaultConf() })
		if conf = defaultConf.conf; conf == nil {
			return nil, defaultConf.err
		}
	}
	if opts == nil {
		opts = &SessionOptions{}
	}
	co := C.tph_session_opts{threads: C.int(opts.Threads), naive: C.bool(opts.Naive),
		profile: C.bool(opts.Profile), shape_cache_bytes: C.size_t(opts.ShapeCacheBytes)}
	if opts.PluginDir != "" {
		co.plugin_dir = C.CString(opts.PluginDir)
		defer C.free(unsafe.Pointer(co.plugin_dir))
	}
	snap.mu.Lock()
	defer snap.mu.Unlock()
	conf.mu.Lock()
	defer conf.mu.Unlock()
	if snap.s == nil || conf.c == nil {
		return nil, errorf(C.TPH_EINVAL, "snapshot or conf is closed")
	}
	s := &Session{d: newDiag(opts.Warn)}
	if err := s.d.err(C.tph_session_open(snap.s, conf.c, &co, &s.s, s.d.c)); err != nil {
		s.d.free()
		return nil, err
	}
	runtime.SetFinalizer(s, (*Session).Free)
	return s, nil
}

func (s *Session) call(f func(*C.tph_session, *C.tph_diag) C.int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return errorf(C.TPH_EINVAL, "session is freed")
	}
	return s.d.err(f(s.s, s.d.c))
}

// Run executes the conf's actions in order.
func (s *Session) Run() error {
	return s.call(func(p *C.tph_session, d *C.tph_diag) C.int { return C.tph_session_run(p, d) })
}

// Close ends the session: plugins close, podgroup phases are computed, Decisions become
// readable. The session's memory stays until Free.
func (s *Session) Close() error {
	return s.call(func(p *C.tph_session, d *C.tph_diag) C.int { return C.tph_session_close(p, d) })
}

// Free releases the session (and its holds on the snapshot and conf); a no-op the second time.
func (s *Session) Free() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s != nil {
		C.tph_session_free(s.s)
		s.s = nil
		runtime.SetFinalizer(s, nil)
	}
	s.d.free()
}

// Decision is one bind, eviction or pipelined task. Node is empty for evictions; Annotations are
// those plugins set on a bound task (none for other rows).
type Decision struct {
	Pod         string            `json:"pod"` // "namespace/name"
	Node        string            `json:"node,omitempty"`
	Reason      string            `json:"reason,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// PodGroupStatus is the phase a session's close gave a podgroup.
type PodGroupStatus struct {
	Name  string `json:"name"` // "namespace/name"
	Phase string `json:"phase"`
}

// PendingPod is a task left unplaced, with why (one line per reason, as Volcano's fit errors).
type PendingPod struct {
	Pod     string   `json:"pod"`
	Reasons []string `json:"reasons"`
}

// ActionTime is the time one action took.
type ActionTime struct {
	Action string
	Time   time.Duration
}

// Decisions is a closed session's decision log, copied into Go memory: it stays valid after
// the session is freed.
type Decisions struct {
	Binds     []Decision       `json:"binds"`
	Evictions []Decision       `json:"evictions"`
	Pipelined []Decision       `json:"pipelined"`
	PodGroups []PodGroupStatus `json:"podGroups"`
	Pending   []PendingPod     `json:"pending"`
	Actions   []ActionTime     `json:"-"`
	OpenTime  time.Duration    `json:"-"`
	CloseTime time.Duration    `json:"-"`
	JobsTotal int              `json:"-"`      // podgroups in the session
	JobsReady int              `json:"-"`      // of which allocated and succeeded tasks reach minMember
	Jobs      []PendingJob     `json:"jobs"`   // every pending job, and why
	Queues    []QueueStatus    `json:"queues"` // every queue after close
}

func goString(p *C.char) string {
	if p == nil {
		return ""
	}
	return C.GoString(p)
}

func decisions(rows *C.tph_decision, n C.uint32_t) []Decision {
	out := make([]Decision, 0, n)
	for _, r := range unsafe.Slice(rows, n) {
		d := Decision{Pod: goString(r.pod), Node: goString(r.node), Reason: goString(r.reason)}
		if r.annotations.n > 0 {
			d.Annotations = map[string]string{}
			for _, kv := range unsafe.Slice(r.annotations.items, r.annotations.n) {
				d.Annotations[goString(kv.key)] = goString(kv.value)
			}
		}
		out = append(out, d)
	}
	return out
}

func millisDuration(ms C.double) time.Duration {
	return time.Duration(float64(ms) * float64(time.Millisecond))
}

// Decisions copies the decision log; an error before Close.
func (s *Session) Decisions() (*Decisions, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return nil, errorf(C.TPH_EINVAL, "session is freed")
	}
	l := C.tph_session_decisions(s.s)
	if l == nil {
		return nil, errorf(C.TPH_EINVAL, "session is not closed: no decisions yet")
	}
	out := &Decisions{
		Binds: decisions(l.binds, l.n_binds), Evictions: decisions(l.evictions, l.n_evictions),
		Pipelined: decisions(l.pipelined, l.n_pipelined),
		OpenTime:  millisDuration(l.open_ms), CloseTime: millisDuration(l.close_ms),
		JobsTotal: int(l.jobs_total), JobsReady: int(l.jobs_ready),
		PodGroups: make([]PodGroupStatus, 0, l.n_phases), Pending: make([]PendingPod, 0, l.n_pending),
		Jobs: pendingJobs(l), Queues: queueStatuses(l),
	}
	for _, p := range unsafe.Slice(l.phases, l.n_phases) {
		out.PodGroups = append(out.PodGroups, PodGroupStatus{goString(p.podgroup), goString(p.phase)})
	}
	for _, p := range unsafe.Slice(l.pending, l.n_pending) {
		reasons := make([]string, 0, p.n_reasons)
		for _, r := range unsafe.Slice(p.reasons, p.n_reasons) {
			reasons = append(reasons, goString(r))
		}
		out.Pending = append(out.Pending, PendingPod{goString(p.pod), reasons})
	}
	for _, a := range unsafe.Slice(l.actions, l.n_actions) {
		out.Actions = append(out.Actions, ActionTime{goString(a.action), millisDuration(a.ms)})
	}
	return out, nil
}

// Warnings counts the warnings the session's calls have emitted so far.
func (s *Session) Warnings() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.s == nil {
		return 0
	}
	return s.d.warnings()
}

// Version is the library's version ("0.1.0"); HeaderVersion the headers' the binding was built
// against. They differ only when the shared library was replaced after the build.
func Version() string { return C.GoString(C.tph_version_string()) }

var HeaderVersion = fmt.Sprintf("%d.%d.%d", C.TPH_VERSION_MAJOR, C.TPH_VERSION_MINOR,
	C.TPH_VERSION_PATCH)

package tephra

// #include "shim.h"
import "C"

import (
	"runtime"
	"sync"
	"time"
	"unsafe"
)

// Scenario is a loaded scenario file (tph_scenario; the format is the spec's scenario-format.md):
// a filled cache, the conf to run over it, and its clock. Close it when done; a finalizer is
// only a safety net. Its Cluster and Conf belong to it: they stop working at Close, while
// snapshots and sessions already taken keep what they use.
type Scenario struct {
	mu      sync.Mutex
	s       *C.tph_scenario
	cluster *Cluster
	conf    *Conf
}

func newScenario(load func(s **C.tph_scenario, d *C.tph_diag) C.int, warn WarnFunc) (*Scenario, error) {
	d := newDiag(warn)
	var s *C.tph_scenario
	if err := d.err(load(&s, d.c)); err != nil {
		d.free()
		return nil, err
	}
	sc := &Scenario{s: s}
	sc.cluster = &Cluster{c: C.tph_scenario_cluster(s), d: d, owner: sc}
	if c := C.tph_scenario_conf(s); c != nil {
		sc.conf = &Conf{c: (*C.tph_conf)(unsafe.Pointer(c)), borrowed: sc}
	}
	runtime.SetFinalizer(sc, (*Scenario).Close)
	return sc, nil
}

// LoadScenario loads a scenario file. A bad file is an *Error whose message names the file,
// line and column, the object and the field. Warnings go to stderr (see LoadScenarioWarn).
func LoadScenario(path string) (*Scenario, error) { return LoadScenarioWarn(path, nil) }

// LoadScenarioWarn is LoadScenario with the load's and the cache's warnings going to warn.
func LoadScenarioWarn(path string, warn WarnFunc) (*Scenario, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	return newScenario(func(s **C.tph_scenario, d *C.tph_diag) C.int {
		return C.tph_scenario_load_file(cpath, s, d)
	}, warn)
}

// LoadScenarioBytes loads a scenario from memory; name stands for it in messages ("" is
// "<buffer>") and a confFile: in it is read relative to name's directory.
func LoadScenarioBytes(data []byte, name string) (*Scenario, error) {
	buf := C.CBytes(data)
	defer C.free(buf)
	var cname *C.char
	if name != "" {
		cname = C.CString(name)
		defer C.free(unsafe.Pointer(cname))
	}
	return newScenario(func(s **C.tph_scenario, d *C.tph_diag) C.int {
		return C.tph_scenario_load_buffer((*C.char)(buf), C.size_t(len(data)), cname, s, d)
	}, nil)
}

// Close frees the scenario; a no-op the second time.
func (sc *Scenario) Close() error {
	sc.cluster.mu.Lock() // no cache call is under way
	defer sc.cluster.mu.Unlock()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.s != nil {
		C.tph_scenario_free(sc.s)
		sc.s = nil
		sc.cluster.c = nil
		sc.cluster.d.free()
		if sc.conf != nil {
			sc.conf.mu.Lock()
			sc.conf.c = nil
			sc.conf.mu.Unlock()
		}
		runtime.SetFinalizer(sc, nil)
	}
	return nil
}

// Cluster is the cache the scenario filled, valid until the scenario is closed.
func (sc *Scenario) Cluster() *Cluster { return sc.cluster }

// Conf is the scenario's conf, or nil when it has none (OpenSession then runs Volcano's default).
func (sc *Scenario) Conf() *Conf { return sc.conf }

func (sc *Scenario) read(f func(*C.tph_scenario)) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.s != nil {
		f(sc.s)
	}
}

// Name is the scenario's name: ("" when absent or closed).
func (sc *Scenario) Name() (name string) {
	sc.read(func(s *C.tph_scenario) { name = C.GoString(C.tph_scenario_name(s)) })
	return
}

// Now is the session clock: the scenario's now:, else its latest creation time, else the epoch.
func (sc *Scenario) Now() (now time.Time) {
	sc.read(func(s *C.tph_scenario) { now = time.UnixMilli(int64(C.tph_scenario_now(s))).UTC() })
	return
}

// Run runs one session over the scenario as `tephra run` does: a snapshot at Now, the
// scenario's conf (Volcano's default without one), run, close; it returns the decisions and
// leaves the cache as it was.
func (sc *Scenario) Run(opts *SessionOptions) (*Decisions, error) {
	snap, err := sc.cluster.Snapshot(sc.Now())
	if err != nil {
		return nil, err
	}
	s, err := OpenSession(snap, sc.conf, opts)
	snap.Close()
	if err != nil {
		return nil, err
	}
	defer s.Free()
	if err = s.Run(); err == nil {
		err = s.Close()
	}
	if err != nil {
		return nil, err
	}
	return s.Decisions()
}

// Package tephra is the Go binding of libtephra, the C11 scheduling kernel that makes the Volcano
// batch scheduler's decisions.
//
// A host keeps a Cluster current with Put and Remove and, every cycle, takes a Snapshot, runs a
// Session over it and applies the session's Decisions back to the cache:
//
//	cl, _ := tephra.NewCluster(nil)
//	defer cl.Close()
//	cl.PutQueue(tephra.Queue{Name: "default"})
//	cl.PutNode(tephra.Node{Name: "n1", Allocatable: tephra.MustResources(map[string]string{"cpu": "4"})})
//	cl.PutPod(tephra.Pod{Name: "p", Namespace: "default", Requests: tephra.Resources{"cpu": 1000}})
//	snap, _ := cl.Snapshot(time.Now())
//	s, _ := tephra.OpenSession(snap, conf, &tephra.SessionOptions{Threads: 2})
//	snap.Close()          // the session holds it
//	s.Run()
//	s.Close()             // podgroup phases; the decisions are final
//	cl.Apply(s)           // binds, evictions, nominations, phases into the cache
//	d, _ := s.Decisions() // plain Go data, valid after Free
//	s.Free()
//
// Cluster.Schedule does that cycle in one call, and LoadScenario reads a scenario file.
//
// Lifetimes: every object holds C memory, released by its Close (Free for a Session, whose Close
// ends the cycle). Explicit Close is the rule; finalizers release what was forgotten, but the
// collector does not see C memory and may run them late. A session holds its snapshot and conf
// and a snapshot its cache, on the C side, so they may be closed in any order.
//
// Errors are *Error values carrying the library's status (Code, Name such as "TPH_EPARSE") and
// its message, which names the file, line, object and field at fault; errors.Is(err,
// tephra.ErrParse) compares codes. Warnings go to stderr unless a WarnFunc is given.
//
// The Go objects mirror the C descriptors (types.go): their zero values are Kubernetes' and
// Volcano's defaults, and the binding starts every C descriptor from its TPH_*_DESC_INIT macro,
// so an uninitialised descriptor cannot reach the library. No Go pointer is kept in C memory:
// strings and arrays are copied with C.CString/C.calloc for the call and freed after it.
package tephra

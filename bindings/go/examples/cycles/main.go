// Command cycles is a host that embeds tephra through the Go binding, as examples/host/host.c
// does in C: it keeps a cluster cache current through the put API and, every scheduling cycle,
// snapshots it, runs a session and applies the decisions back (Cluster.Schedule). It plays the
// kubelet too: a pod bound in one cycle is Running in the next, one evicted is gone.
//
// Four cycles on three 4-cpu nodes: a batch job fills the cluster; an urgent job preempts two of
// its pods and is pipelined onto the room they release; once they are gone it binds there; a job
// too big for any node stays pending. The output is examples/host/expected.txt, line for line.
//
//	go run ./examples/cycles [-threads N]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"tephra"
)

const conf = `actions: "enqueue, allocate, preempt"
tiers:
- plugins: [{name: priority}, {name: gang}, {name: conformance}]
- plugins: [{name: predicates}, {name: proportion}, {name: nodeorder}]
`

// pod is what the host knows of a pod (its own mirror of the API server).
type pod struct {
	name, group, class string
	cpu                int64 // millicores
	node               string
	bound, evicted     bool // decided last cycle: the kubelet acts on them this cycle
}

type host struct {
	cl   *tephra.Cluster
	conf *tephra.Conf
	pods []*pod
	out  io.Writer
}

func (h *host) put(p *pod, phase tephra.PodPhase) error {
	return h.cl.PutPod(tephra.Pod{Name: p.name, Namespace: "default", PodGroup: p.group,
		PriorityClass: p.class, Phase: phase, NodeName: p.node,
		Requests: tephra.Resources{"cpu": p.cpu, "memory": p.cpu << 20}})
}

func (h *host) setup() error {
	if err := h.cl.PutQueue(tephra.Queue{Name: "default"}); err != nil {
		return err
	}
	for _, pc := range []tephra.PriorityClass{{Name: "urgent", Value: 1000}, {Name: "batch", Value: 10}} {
		if err := h.cl.PutPriorityClass(pc); err != nil {
			return err
		}
	}
	alloc, err := tephra.ParseResources(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"})
	for i := 0; i < 3 && err == nil; i++ {
		err = h.cl.PutNode(tephra.Node{Name: fmt.Sprintf("node-%d", i), Allocatable: alloc})
	}
	return err
}

// arrive puts a job: its podgroup (a gang of min pods) and its pods, Pending.
func (h *host) arrive(job, class string, pods int, min int32, cpu int64) error {
	err := h.cl.PutPodGroup(tephra.PodGroup{Name: job, Namespace: "default", MinMember: &min,
		PriorityClass: class})
	for i := 0; i < pods && err == nil; i++ {
		p := &pod{name: fmt.Sprintf("%s-%d", job, i), group: job, class: class, cpu: cpu}
		h.pods = append(h.pods, p)
		err = h.put(p, tephra.PodPending)
	}
	return err
}

// kubelet: what was bound last cycle now runs; what was evicted is gone.
func (h *host) kubelet() error {
	for _, p := range h.pods {
		var err error
		if p.bound {
			err = h.put(p, tephra.PodRunning)
		} else if p.evicted {
			err = h.cl.RemovePod("default", p.name)
		}
		p.bound, p.evicted = false, false
		if err != nil {
			return err
		}
	}
	return nil
}

func (h *host) find(key string) *pod {
	for _, p := range h.pods {
		if "default/"+p.name == key {
			return p
		}
	}
	return nil
}

// report mirrors the decisions in the host's records, and prints them.
func (h *host) report(cycle int, d *tephra.Decisions) {
	fmt.Fprintf(h.out, "cycle %d: %d bound, %d evicted, %d pipelined, %d pending\n", cycle,
		len(d.Binds), len(d.Evictions), len(d.Pipelined), len(d.Pending))
	for _, b := range d.Binds {
		if p := h.find(b.Pod); p != nil {
			p.node, p.bound = b.Node, true
		}
		fmt.Fprintf(h.out, "  bind %s -> %s\n", b.Pod, b.Node)
	}
	for _, e := range d.Evictions {
		if p := h.find(e.Pod); p != nil {
			p.evicted = true
		}
		fmt.Fprintf(h.out, "  evict %s (%s)\n", e.Pod, e.Reason)
	}
	for _, p := range d.Pipelined {
		fmt.Fprintf(h.out, "  pipeline %s -> %s\n", p.Pod, p.Node)
	}
	phases := map[string]string{}
	for _, g := range d.PodGroups {
		phases[g.Name] = g.Phase
	}
	for _, r := range d.Pending {
		if p := h.find(r.Pod); len(r.Reasons) == 0 && p != nil {
			// no node was tried (its queue had no room left, say): say where it stands
			fmt.Fprintf(h.out, "  pending %s: podgroup %s is %s\n", r.Pod, p.group,
				phases["default/"+p.group])
		} else {
			reason := ""
			if len(r.Reasons) > 0 {
				reason = r.Reasons[0]
			}
			fmt.Fprintf(h.out, "  pending %s: %s\n", r.Pod, reason)
		}
	}
}

// run plays the four cycles, printing to out.
func run(out io.Writer, opts *tephra.SessionOptions) error {
	cl, err := tephra.NewCluster(nil) // warnings, if any, go to stderr
	if err != nil {
		return err
	}
	defer cl.Close()
	h := &host{cl: cl, out: out}
	if h.conf, err = tephra.ParseConf(conf, "cycles.conf"); err != nil {
		return err
	}
	defer h.conf.Close()
	if err := h.setup(); err != nil {
		return err
	}
	arrivals := map[int]func() error{
		1: func() error { return h.arrive("batch", "batch", 6, 1, 2000) },
		2: func() error { return h.arrive("urgent", "urgent", 2, 2, 2000) },
		4: func() error { return h.arrive("huge", "batch", 1, 1, 8000) },
	}
	for cycle := 1; cycle <= 4; cycle++ {
		if err := h.kubelet(); err != nil {
			return err
		}
		if arrive := arrivals[cycle]; arrive != nil {
			if err := arrive(); err != nil {
				return err
			}
		}
		d, err := cl.Schedule(time.Time{}, h.conf, opts)
		if err != nil {
			return err
		}
		h.report(cycle, d)
	}
	return nil
}

func main() {
	threads := flag.Int("threads", 0, "threads for filtering and scoring (0: OMP_NUM_THREADS)")
	flag.Parse()
	if err := run(os.Stdout, &tephra.SessionOptions{Threads: *threads}); err != nil {
		fmt.Fprintln(os.Stderr, "cycles:", err)
		os.Exit(1)
	}
}

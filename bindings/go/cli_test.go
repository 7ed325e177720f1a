package tephra

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

var nilTime time.Time

// The binding's decisions are the command line's: `tephra run --format json` on the bindings'
// shared scenario. The CLI is $TEPHRA_CLI (set by the ctest), else build/bin/tephra.
func TestSameAsCLI(t *testing.T) {
	cli := os.Getenv("TEPHRA_CLI")
	if cli == "" {
		cli = filepath.Join("..", "..", "build", "bin", "tephra")
		if _, err := os.Stat(cli); err != nil {
			t.Skip("no build/bin/tephra (set TEPHRA_CLI)")
		}
	}
	scenario := filepath.Join("..", "testdata", "small.yaml")
	out, err := exec.Command(cli, "run", scenario, "--format", "json").Output()
	if err != nil {
		t.Fatalf("%s: %v", cli, err)
	}
	var want Decisions
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	sc, err := LoadScenario(scenario)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	got, err := sc.Run(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Only what the JSON carries (no timings).
	got = &Decisions{Binds: got.Binds, Evictions: got.Evictions, Pipelined: got.Pipelined,
		PodGroups: got.PodGroups, Pending: got.Pending, Jobs: got.Jobs, Queues: got.Queues}
	if !reflect.DeepEqual(got, &want) {
		t.Errorf("binding:\n%+v\ntephra run --format json:\n%+v", got, &want)
	}
	if len(want.Binds) == 0 || len(want.Pending) == 0 || len(want.Jobs) == 0 || len(want.Queues) == 0 {
		t.Errorf("the scenario decides too little: %s", out)
	}
}

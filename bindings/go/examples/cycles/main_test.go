package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tephra"
)

// The Go host makes the C host's decisions (examples/host/expected.txt), with 1 and 2 threads.
func TestCyclesLikeTheCHost(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "examples", "host", "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 2} {
		var out strings.Builder
		if err := run(&out, &tephra.SessionOptions{Threads: threads}); err != nil {
			t.Fatal(err)
		}
		if out.String() != string(want) {
			t.Errorf("threads %d:\n%s\nwant (examples/host/expected.txt):\n%s", threads, out.String(), want)
		}
	}
}

package check

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile/casefiletest"
	"github.com/conformsuite/conform/internal/heaptest"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/oracle"
	"github.com/conformsuite/conform/internal/protocol"
)

// startProtocolChild starts the test binary as the conform/1 child of TestMain
// in the given mode.
func startProtocolChild(t *testing.T, mode string) impl.Impl {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CONFORM_FAULTY_CHILD", mode)
	im, err := oracle.Open(exe+" -test.run=^$", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { im.Close() })
	return im
}

// TestSharedBigInputStaysInBudget checks that with a protocol
// implementation the cases in flight are bounded by their bytes, not
// only by their number: 40 cases sharing one 4 MiB input, 64 cases in
// flight and a budget of 16 MiB hold a few cases' inputs at a time
// (each case holds its decoded input and its request line), where
// holding them all at once takes well over 500 MiB.
func TestSharedBigInputStaysInBudget(t *testing.T) {
	const n, size = 40, 4 << 20
	x, err := engine.FromBytes(engine.Float64Type, []int{size / 8}, make([]byte, size))
	if err != nil {
		t.Fatal(err)
	}
	want, err := engine.FromBytes(engine.Float64Type, []int{2}, make([]byte, 16))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i := 0; i < n; i++ {
		lines = append(lines, fmt.Sprintf(`{"id":"c/%02d","op":"getitem","inputs":{"x":"x.npy"},"index":"x[%d:%d]","expect":{"output":"want.npy","source":"engine"}}`, i, i, i+2))
	}
	fsys := fstest.MapFS{
		"c/x.npy":       {Data: encode(x)},
		"c/want.npy":    {Data: encode(want)},
		"c/cases.jsonl": {Data: []byte(strings.Join(lines, "\n"))},
	}
	im := startProtocolChild(t, "zeros")
	var s *Summary
	grew := heaptest.Growth(func() {
		s, err = Run(context.Background(), fsys, im, Options{Workers: 64, MaxBytes: 16 << 20})
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Line() != fmt.Sprintf("%d passed, 0 failed, 0 skipped", n) {
		t.Errorf("summary %q", s.Line())
	}
	t.Logf("the heap grew by %d MiB", grew>>20)
	if bound := uint64(100 << 20); grew > bound {
		t.Errorf("the heap grew by %d MiB, want at most %d MiB", grew>>20, bound>>20)
	}
}

// bigName is the length of the name the "bigname" child gives.
const bigName = 200 << 10

// TestBigNameIsBoundedAndShared checks that a child's hello name is cut
// to protocol.MaxNameBytes and that the skip reason of the cases of an op
// it does not list is one string shared by them all: 2000 skipped cases
// cost little, where a copy of a 200 KiB name in each costs 400 MiB.
func TestBigNameIsBoundedAndShared(t *testing.T) {
	const n = 2000
	var lines []string
	for i := 0; i < n; i++ {
		lines = append(lines, fmt.Sprintf(`{"id":"c/%04d","op":"getitem","inputs":{"x":"x.npy"},"index":"x[%d]","expect":{"error":"out_of_range","source":"engine"}}`, i, i))
	}
	fsys := fstest.MapFS{
		"c/x.npy":       {Data: casefiletest.Int32NPY(1, 2, 3)},
		"c/cases.jsonl": {Data: []byte(strings.Join(lines, "\n"))},
	}
	im := startProtocolChild(t, "bigname")
	if len(im.Name()) > protocol.MaxNameBytes+64 {
		t.Errorf("the name is %d bytes long, want it cut to %d", len(im.Name()), protocol.MaxNameBytes)
	}
	var s *Summary
	var err error
	grew := heaptest.Growth(func() {
		s, err = Run(context.Background(), fsys, im, Options{Workers: 64})
	})
	if err != nil {
		t.Fatal(err)
	}
	if s.Skipped != n {
		t.Fatalf("summary %q, want every case skipped", s.Line())
	}
	if bound := uint64(50 << 20); grew > bound {
		t.Errorf("the heap grew by %d MiB, want at most %d MiB", grew>>20, bound>>20)
	}
}

package engine_test

import (
	"bytes"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/expr"
)

// getItem evaluates the subscript s on x.
func getItem(t *testing.T, x *engine.Tensor, s string) *engine.Tensor {
	t.Helper()
	items, err := expr.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.GetItem(x, items)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReleaseReusesMemory checks that a released result's memory holds a
// later result of the same size, and that the later result is right in
// full (new buffers are poisoned in the tests, so a kernel that relied on
// the old contents would fail).
func TestReleaseReusesMemory(t *testing.T) {
	x := arange(512, 1024) // 4 MiB
	reused := false
	// sync.Pool may drop a buffer (the race detector drops one Put in
	// four on purpose), so try a few times.
	for try := 0; try < 20 && !reused; try++ {
		even := getItem(t, x, "x[:, ::2]") // 2 MiB
		first := &even.Data[0]
		engine.Release(even)
		odd := getItem(t, x, "x[:, 1::2]")
		reused = &odd.Data[0] == first
		for i, v := range ints(odd) {
			if want := int64(2*i + 1); v != want {
				t.Fatalf("x[:, 1::2] after a Release: element %d is %d, want %d", i, v, want)
			}
		}
		engine.Release(odd)
	}
	if !reused {
		t.Error("20 results of 2 MiB, each after releasing one of the same size: none reused the released memory")
	}
}

// TestReleaseLeavesOtherMemory checks that Release ignores every tensor
// whose memory the engine did not allocate for a result: the memory of a
// view of the input, or of a tensor over the caller's own bytes, must
// never hold a later result.
func TestReleaseLeavesOtherMemory(t *testing.T) {
	x := arange(512, 1024) // 4 MiB
	before := append([]byte(nil), x.Data...)
	own, err := engine.FromBytes(engine.Int64Type, []int{256, 1024}, make([]byte, 2<<20))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		why string
		t   *engine.Tensor
	}{
		{"a result that is a view of the input's first rows", getItem(t, x, "x[:256]")},
		{"a result that is a view of the input's last rows", getItem(t, x, "x[256:]")},
		{"the input itself", x},
		{"a tensor over the caller's bytes", own},
		{"a nil tensor", nil},
	} {
		engine.Release(tt.t)
		for i := 0; i < 8; i++ {
			out := getItem(t, x, "x[:, ::2]") // 2 MiB, as the views and own
			if p := &out.Data[0]; p == &x.Data[0] || p == &x.Data[len(x.Data)/2] || p == &own.Data[0] {
				t.Fatalf("after releasing %s: a new result is in that tensor's memory", tt.why)
			}
			engine.Release(out)
		}
	}
	if !bytes.Equal(x.Data, before) {
		t.Error("the input changed")
	}
}

// TestUnreleasedBuffersForgotten checks that the engine's record of the
// results it handed out does not keep them alive, and is cleared once the
// garbage collector has freed them.
func TestUnreleasedBuffersForgotten(t *testing.T) {
	x := arange(512, 1024)
	base := engine.OwnedBuffers()
	results := make([]*engine.Tensor, 10)
	for i := range results {
		results[i] = getItem(t, x, "x[:, ::2]")
	}
	if n := engine.OwnedBuffers(); n < base+len(results) {
		t.Fatalf("%d results handed out: the engine tracks %d buffers, had %d before", len(results), n, base)
	}
	runtime.KeepAlive(results)
	// Cleanups run on their own goroutine after a collection.
	deadline := time.Now().Add(10 * time.Second)
	for engine.OwnedBuffers() > base && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := engine.OwnedBuffers(); n > base {
		t.Errorf("the engine still tracks %d buffers after the results died, had %d before", n, base)
	}
}

// TestReleaseConcurrent checks results made and released from several
// goroutines at once: each result must be right in full while other
// goroutines release and reuse memory (run with -race for the
// bookkeeping).
func TestReleaseConcurrent(t *testing.T) {
	x := arange(512, 1024) // 4 MiB
	items := make([][]engine.IndexItem, 2)
	for i, s := range []string{"x[:, ::2]", "x[:, 1::2]"} {
		var err error
		if items[i], err = expr.Parse(s); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				odd := (g + i) % 2
				out, err := engine.GetItem(x, items[odd])
				if err != nil {
					errs <- err.Error()
					return
				}
				for k, v := range ints(out) {
					if want := int64(2*k + odd); v != want {
						errs <- fmt.Sprintf("goroutine %d, result %d: element %d is %d, want %d", g, i, k, v, want)
						return
					}
				}
				engine.Release(out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestReleaseOnlyTheResult checks that Release takes memory back only
// through the header the op returned: a view over another result's
// memory (which starts at the same byte), a copy of a result's header,
// and a second Release of a result whose memory already holds a new
// result must all leave the memory to its live owner.
func TestReleaseOnlyTheResult(t *testing.T) {
	x := getItem(t, arange(512, 2048), "x[:, ::2]") // a 4 MiB result
	first := getItem(t, x, "x[:256]")               // a view: x's first 2 MiB
	if &first.Data[0] != &x.Data[0] {
		t.Fatal("x[:256] of a result is not a view of its first block")
	}
	header := *x
	saved := append([]byte(nil), x.Data...)
	engine.Release(first)
	engine.Release(&header)
	for i := 0; i < 8; i++ {
		for _, s := range []string{"x[:, ::2]", "x[:, 1::2]", "x[:, ::4]"} { // 4, 4 and 2 MiB
			out := getItem(t, arange(512, 2048), s)
			if &out.Data[0] == &x.Data[0] {
				t.Fatalf("after releasing a view of a result and a copy of its header, a new result %s is in that result's memory", s)
			}
			engine.Release(out)
		}
	}
	if !bytes.Equal(x.Data, saved) {
		t.Fatal("the result changed")
	}

	// Release twice, with a new result in the memory between the calls.
	in := arange(512, 2048)
	for try := 0; try < 20; try++ {
		a := getItem(t, in, "x[:, ::2]")
		engine.Release(a)
		b := getItem(t, in, "x[:, 1::2]")
		if &b.Data[0] != &a.Data[0] {
			engine.Release(b)
			continue // b is elsewhere; try again
		}
		engine.Release(a) // a second time: b owns the memory now
		c := getItem(t, in, "x[:, ::2]")
		if &c.Data[0] == &b.Data[0] {
			t.Fatal("a second Release of a result gave its memory away while a new result held it")
		}
		return
	}
	t.Skip("20 results of 4 MiB, each after releasing one: none reused the memory, so the second Release was not exercised")
}

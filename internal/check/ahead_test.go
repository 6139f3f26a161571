package check

import (
	"context"
	"fmt"
	"io/fs"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/casefile/casefiletest"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/protocol"
)

// openLog is a file system that reports when a given file is opened.
type openLog struct {
	fs.FS
	watch  string
	once   sync.Once
	opened chan struct{} // closed when watch is opened
}

func (o *openLog) Open(name string) (fs.File, error) {
	if name == o.watch {
		o.once.Do(func() { close(o.opened) })
	}
	return o.FS.Open(name)
}

// Stat looks at a file without opening it.
func (o *openLog) Stat(name string) (fs.FileInfo, error) { return fs.Stat(o.FS, name) }

// waitingEngine is the engine, except that its first call waits up to
// patience for the watched file of log to be opened; it records the first
// input element of every case it is asked, in order.
type waitingEngine struct {
	impl.Engine
	log      *openLog
	patience time.Duration
	sawWatch bool
	firsts   []int32
}

func (w *waitingEngine) Run(ctx context.Context, c *casefile.Case) protocol.Answer {
	if w.firsts == nil {
		select {
		case <-w.log.opened:
			w.sawWatch = true
		case <-time.After(w.patience):
		}
	}
	x := c.Inputs["x"]
	w.firsts = append(w.firsts, int32(x.Data[0])|int32(x.Data[1])<<8)
	return w.Engine.Run(ctx, c)
}

// readAheadCorpus has n passing cases, c/k000 to c/k<n-1>, case k
// reversing its own input file [k, k+1].
func readAheadCorpus(n int) fstest.MapFS {
	fsys := fstest.MapFS{}
	for k := 0; k < n; k++ {
		fsys[fmt.Sprintf("c/x%03d.npy", k)] = &fstest.MapFile{Data: casefiletest.Int32NPY(int32(k), int32(k+1))}
		fsys[fmt.Sprintf("c/r%03d.npy", k)] = &fstest.MapFile{Data: casefiletest.Int32NPY(int32(k+1), int32(k))}
		fsys[fmt.Sprintf("c/k%03d.json", k)] = &fstest.MapFile{Data: fmt.Appendf(nil,
			`{"op":"getitem","inputs":{"x":"x%03d.npy"},"index":"x[::-1]","expect":{"output":"r%03d.npy","source":"test"}}`, k, k)}
	}
	return fsys
}

// TestRunReadsAhead checks that a run with one case in flight reads the
// cases after the current one while the implementation works on it, up
// to its byte budget, and still asks the implementation every case once,
// in order, with results in order.
func TestRunReadsAhead(t *testing.T) {
	const n = 3*aheadBatch + 3
	for _, tc := range []struct {
		name     string
		maxBytes int64
		patience time.Duration
		ahead    bool // whether the third batch is read during the first case's run
	}{
		// The batches after the first are read while the first case runs.
		{"default budget", 0, 10 * time.Second, true},
		// A budget smaller than one batch holds the batch running and
		// at most one more.
		{"budget of one byte", 1, 300 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			watch := fmt.Sprintf("c/x%03d.npy", 2*aheadBatch+8) // an input of the third batch
			log := &openLog{FS: readAheadCorpus(n), watch: watch, opened: make(chan struct{})}
			im := &waitingEngine{log: log, patience: tc.patience}
			s, err := Run(context.Background(), log, im, Options{MaxBytes: tc.maxBytes})
			if err != nil {
				t.Fatal(err)
			}
			if im.sawWatch != tc.ahead {
				t.Errorf("%s read during the first case's run: %v, want %v", watch, im.sawWatch, tc.ahead)
			}
			if s.Passed != n || len(s.Results) != n {
				t.Fatalf("%s, %d results", s.Line(), len(s.Results))
			}
			for k, r := range s.Results {
				if want := fmt.Sprintf("c/k%03d", k); r.ID != want {
					t.Errorf("result %d is %s, want %s", k, r.ID, want)
				}
			}
			for k, first := range im.firsts {
				if first != int32(k) {
					t.Fatalf("call %d was asked the case of input %d: the calls are out of order (%v)", k, first, im.firsts)
				}
			}
			if len(im.firsts) != n {
				t.Errorf("%d calls, want %d", len(im.firsts), n)
			}
		})
	}
}

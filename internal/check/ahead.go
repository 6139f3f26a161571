package check

import (
	"context"
	"io/fs"
	"runtime"
	"sync"

	"github.com/conformsuite/conform/internal/budget"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/impl"
)

// aheadBatch is the number of consecutive cases a reader of runInOrder
// reads at a time: each batch handed over may wake a goroutine, which on
// a busy machine waits for a core (handing over batches of 32 cases made
// the gate slower than reading each case at its turn while other jobs ran).
const aheadBatch = 128

// runInOrder runs the cases of entries against im one at a time, in
// order, writing the result of entries[i] to results[i], while up to
// runtime.GOMAXPROCS goroutines read the cases ahead of their turn (their
// JSON, expected outputs and inputs: most of the work of a case run
// in-process), aheadBatch consecutive cases at a time. At most two
// batches per reader are read and not yet run, and each batch takes its
// cases' bytes (caseSize) from room before reading their files, in the
// batches' order, so that the cases held at once stay within room's bound
// (a batch larger than the bound is held alone). im sees the same calls,
// in the same order, as when each case is read at its turn.
func runInOrder(ctx context.Context, fsys fs.FS, entries []corpus.Entry, im impl.Impl, room *budget.Budget, results []Result) {
	readers := runtime.GOMAXPROCS(0)
	batches := (len(entries) + aheadBatch - 1) / aheadBatch
	ready := make([]chan []loaded, batches)
	for b := range ready {
		ready[b] = make(chan []loaded, 1)
	}
	jobs := make(chan int)
	window := make(chan struct{}, 2*readers) // a token per batch read and not yet run
	go func() {
		defer close(jobs)
		for b := range batches {
			window <- struct{}{}
			jobs <- b
		}
	}()
	turn := newTurns()
	for range readers {
		go func() {
			for b := range jobs {
				ready[b] <- readBatch(fsys, entries[b*aheadBatch:min((b+1)*aheadBatch, len(entries))], room, turn, b)
			}
		}()
	}
	for b := range batches {
		batch := <-ready[b]
		var n int64
		for k := range batch {
			results[b*aheadBatch+k] = batch[k].result(ctx, im)
			n += batch[k].bytes
			batch[k] = loaded{} // let the case's tensors go
		}
		room.Release(n)
		<-window
	}
}

// readBatch reads the cases of batch, the batch number b of a run: it
// prepares them, waits for b's turn to take their bytes from room, and
// reads their files.
func readBatch(fsys fs.FS, batch []corpus.Entry, room *budget.Budget, turn *turns, b int) []loaded {
	cases := make([]loaded, len(batch))
	var n int64
	for k, e := range batch {
		fields, err := parseCase(e)
		cases[k] = prepare(e, fields, err)
		cases[k].size(fsys)
		n += cases[k].bytes
	}
	turn.wait(b)
	room.Acquire(context.Background(), n) // a canceled run still ends every case
	turn.next()
	for k := range cases {
		cases[k].read(fsys)
	}
	return cases
}

// turns lets goroutines take a step one at a time in a given order:
// wait(i) returns once the steps numbered below i have been taken, and
// next marks the current step taken.
type turns struct {
	mu      sync.Mutex
	changed *sync.Cond
	current int
}

// newTurns returns turns at step 0.
func newTurns() *turns {
	t := &turns{}
	t.changed = sync.NewCond(&t.mu)
	return t
}

// wait blocks until it is step i's turn.
func (t *turns) wait(i int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for t.current != i {
		t.changed.Wait()
	}
}

// next passes the turn to the following step.
func (t *turns) next() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.current++
	t.changed.Broadcast()
}

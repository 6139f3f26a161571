package check

import (
	"context"
	"io/fs"
	"runtime"
	"sync"

	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/impl"
)

// aheadBatch is the number of consecutive cases runInOrder reads at a
// time, and aheadBatches the number of batches per core it reads ahead
// of the case it runs: enough that, on a busy machine, the other cores
// keep reading while the goroutine reading the next batch to run waits
// for a core (with 4 batches per core the gate was slower than reading
// each case at its turn while other jobs filled the machine).
const (
	aheadBatch   = 64
	aheadBatches = 16
)

// runInOrder runs the cases of entries against im one at a time, in
// order, writing the result of entries[i] to results[i], while the cases
// after the one running are read ahead on every core (their JSON,
// expected outputs and inputs: most of the work of a case run
// in-process). im sees the same calls, in the same order, as when each
// case is read at its turn.
//
// There are runtime.GOMAXPROCS goroutines, each of which reads the next
// batch of aheadBatch cases not yet taken and then runs, in order, the
// batches that are read and next in line, if no other goroutine is
// running one. So no goroutine waits for a batch another one is reading
// (on a busy machine, a goroutine that waits is slow to get a core again
// once woken): a goroutine waits only when aheadBatches batches per core
// are read or being read and not yet run, or when the batch it has parsed
// would take the bytes of the batches let read and not yet run (caseSize)
// past maxBytes, unless nothing is held or the batch is the next to run:
// the bound is passed by the next batch to run at most (a batch let read
// while nothing was held, then the next one to run).
func runInOrder(ctx context.Context, fsys fs.FS, entries []corpus.Entry, im impl.Impl, maxBytes int64, results []Result) {
	workers := runtime.GOMAXPROCS(0)
	r := &inOrder{
		ctx: ctx, im: im, fsys: fsys, entries: entries, results: results, maxBytes: maxBytes,
		batches: (len(entries) + aheadBatch - 1) / aheadBatch,
		window:  aheadBatches * workers,
		ready:   map[int][]loaded{},
	}
	r.changed = sync.NewCond(&r.mu)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.work()
		}()
	}
	wg.Wait()
}

// inOrder is the state of a runInOrder, shared by its goroutines.
type inOrder struct {
	ctx      context.Context
	im       impl.Impl
	fsys     fs.FS
	entries  []corpus.Entry
	results  []Result
	maxBytes int64
	batches  int // the number of batches of entries
	window   int // the most batches taken and not yet run

	mu       sync.Mutex
	changed  *sync.Cond
	taken    int              // the batches taken by a goroutine so far
	run      int              // the batches run so far
	running  bool             // a goroutine is running batch run
	ready    map[int][]loaded // the batches read and not yet run
	admitted int              // the batches let read so far, in order
	held     int64            // the bytes of the batches let read and not yet run
}

// work takes batches, reads them and runs those next in line until every
// batch has run.
func (r *inOrder) work() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.run < r.batches {
		switch {
		case r.runReady():
		case r.taken < r.batches && r.taken-r.run < r.window:
			r.read(r.taken)
		default:
			r.changed.Wait()
		}
	}
}

// runReady runs the batches read and next in line, if no other goroutine
// runs one, and reports whether it ran any. It is called with r.mu held,
// which it releases while running.
func (r *inOrder) runReady() bool {
	if r.running {
		return false
	}
	ran := false
	for {
		batch, ok := r.ready[r.run]
		if !ok {
			return ran
		}
		delete(r.ready, r.run)
		r.running, ran = true, true
		first := r.run * aheadBatch
		r.mu.Unlock()
		var n int64
		for k := range batch {
			r.results[first+k] = batch[k].result(r.ctx, r.im)
			n += batch[k].bytes
		}
		r.mu.Lock()
		r.running = false
		r.run++
		r.held -= n
		r.changed.Broadcast()
	}
}

// read takes batch b and reads it: it parses its cases, waits for room
// for their bytes (running the batches next in line meanwhile), reads
// their files, and puts the batch among the ready ones. It is called with
// r.mu held, which it releases while parsing and reading.
func (r *inOrder) read(b int) {
	r.taken++
	r.mu.Unlock()
	batch := r.entries[b*aheadBatch : min((b+1)*aheadBatch, len(r.entries))]
	cases := make([]loaded, len(batch))
	var n int64
	for k, e := range batch {
		fields, err := parseCase(e)
		cases[k] = prepare(e, fields, err)
		cases[k].size(r.fsys)
		n += cases[k].bytes
	}
	r.mu.Lock()
	for r.held > 0 && r.held+n > r.maxBytes && b != r.run {
		if !r.runReady() {
			r.changed.Wait()
		}
	}
	r.held += n
	r.mu.Unlock()
	for k := range cases {
		cases[k].read(r.fsys)
	}
	r.mu.Lock()
	r.ready[b] = cases
	r.changed.Broadcast()
}

// Package fuzz runs live differential fuzzing: generated cases go to an
// implementation under test and to oracles, pipelined; every disagreement
// is shrunk to a minimal case with rapid's shrinker and saved as a normal
// case file that `conform check --cases DIR` replays.
package fuzz

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conformsuite/conform/gen"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/progress"
)

// Options configures Run.
type Options struct {
	Impl    impl.Impl   // the implementation under test
	Oracles []impl.Impl // the first that runs a case is its reference
	// Duration, if > 0, bounds the run's wall time: no case is generated
	// and no shrinking step starts after it, and the cases in flight then
	// and the shrinking under way get at most CaseTimeout more (see Run).
	// MaxCases (if > 0) bounds the number of cases.
	Duration time.Duration
	MaxCases int
	// CaseTimeout is the implementations' per-case timeout (that of the
	// protocol client): how much longer than Duration a run may last.
	// With 0, whatever runs at the deadline is cut off there.
	CaseTimeout time.Duration
	Seed        uint64
	// Shard and Shards split the case space between processes: this run
	// takes case indices i with i % Shards == Shard.
	Shard, Shards int
	// Out is the directory minimal cases are saved in ("" saves nothing).
	Out string
	// Workers is the number of cases in flight.
	Workers int
	// ShrinkTime bounds the shrinking of one disagreement.
	ShrinkTime time.Duration
	// MaxShrinks bounds how many disagreements are shrunk (the rest are
	// counted); shrinking stops early once the same minimal case repeats.
	MaxShrinks int
	// StopAfter, if > 0, ends the run once that many findings are saved.
	StopAfter int
	// Ops restricts the ops generated (default: every op the
	// implementation supports).
	Ops []string
	Log io.Writer
}

// Finding is one disagreement, shrunk.
type Finding struct {
	ID       string
	Case     casefile.Memory // the minimal case
	Oracle   string          // the reference that disagreed
	Want     impl.Result     // the reference's result on the minimal case
	Got      impl.Result     // the implementation's
	Detail   string
	Seed     int // the rapid seed of the original case
	Original int // number of input elements before shrinking
	// Partial is set when shrinking stopped at the run's deadline: Case
	// is the smallest failing case found by then, not necessarily
	// minimal.
	Partial bool
	Path    string
}

// Summary is the result of a run.
type Summary struct {
	Cases, Agreed, Disagreed, Skipped int
	Elapsed                           time.Duration
	Findings                          []Finding
	// Unshrunk counts disagreements not shrunk (over MaxShrinks, repeats
	// of one minimal case, or found after the deadline).
	Unshrunk int
}

// Rate returns cases per second.
func (s *Summary) Rate() float64 { return float64(s.Cases) / s.Elapsed.Seconds() }

// Line returns the summary line "N passed, N failed, N skipped", where a
// failure is a case on which the implementation disagreed with its
// reference.
func (s *Summary) Line() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", s.Agreed, s.Disagreed, s.Skipped)
}

// outcome is the comparison of one case.
type outcome struct {
	skipped bool
	oracle  string
	want    impl.Result
	got     impl.Result
	diff    string
}

// compareCase runs m on the implementation and the oracles and compares
// the implementation with the first oracle that ran the case.
func compareCase(ctx context.Context, im impl.Impl, oracles []impl.Impl, m casefile.Memory) outcome {
	got := im.Run(ctx, m)
	if got.Skip != "" {
		return outcome{skipped: true, got: got}
	}
	for _, o := range oracles {
		want := o.Run(ctx, m)
		if !want.Ran() {
			continue
		}
		return outcome{oracle: o.Name(), want: want, got: got, diff: impl.Diff(want, got)}
	}
	return outcome{skipped: true, got: got}
}

// Run fuzzes until the duration or case limit is reached or ctx is done.
//
// With a Duration, the run's wall time is at most Duration plus
// CaseTimeout (and the time to write findings): at the deadline the
// workers stop generating cases, the cases in flight get until
// deadline+CaseTimeout to finish (one cut off there is not counted), and
// shrinking starts no new step after the deadline: the disagreement being
// shrunk is saved as the smallest failing case found so far, marked
// Partial, and the ones still queued are counted in Unshrunk.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	if opts.Shards < 1 {
		opts.Shards = 1
	}
	if opts.Shard < 0 || opts.Shard >= opts.Shards {
		return nil, fmt.Errorf("shard %d is not in [0, %d)", opts.Shard, opts.Shards)
	}
	if len(opts.Oracles) == 0 {
		return nil, fmt.Errorf("no oracle")
	}
	ops := opts.Ops
	if len(ops) == 0 {
		for _, op := range casefile.Ops {
			if opts.Impl.Supports(op) {
				ops = append(ops, op)
			}
		}
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("%s supports none of the ops %v", opts.Impl.Name(), casefile.Ops)
	}
	if opts.Workers < 1 {
		opts.Workers = 64
	}
	if opts.MaxShrinks < 1 {
		opts.MaxShrinks = 20
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	start := time.Now()
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	// caseCtx bounds every comparison, shrinking's included; genCtx ends
	// the generation of cases.
	caseCtx, genCtx := runCtx, runCtx
	var deadline time.Time
	if opts.Duration > 0 {
		deadline = start.Add(opts.Duration)
		var cancelCases, cancelGen context.CancelFunc
		caseCtx, cancelCases = context.WithDeadline(runCtx, deadline.Add(max(opts.CaseTimeout, 0)))
		defer cancelCases()
		genCtx, cancelGen = context.WithDeadline(caseCtx, deadline)
		defer cancelGen()
	}

	// The run allocates many short-lived buffers; collecting less often
	// buys throughput for a bounded amount of memory.
	defer debug.SetGCPercent(debug.SetGCPercent(400))

	s := &Summary{}
	var mu sync.Mutex
	var next atomic.Int64
	bar := progress.New(opts.Log, "fuzz", opts.MaxCases)
	shrinks := make(chan disagreement, 64)
	shrinker := newShrinker(caseCtx, deadline, opts)
	shrinkDone := make(chan struct{})
	go func() {
		defer close(shrinkDone)
		for d := range shrinks {
			mu.Lock()
			done := opts.StopAfter > 0 && len(s.Findings) >= opts.StopAfter
			mu.Unlock()
			if done {
				shrinker.skipped++
				continue
			}
			if f, ok := shrinker.shrink(d); ok {
				mu.Lock()
				s.Findings = append(s.Findings, f)
				enough := opts.StopAfter > 0 && len(s.Findings) >= opts.StopAfter
				mu.Unlock()
				if enough {
					stopRun()
				}
			}
		}
	}()

	var wg sync.WaitGroup
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for genCtx.Err() == nil {
				k := int(next.Add(1) - 1)
				if opts.MaxCases > 0 && k >= opts.MaxCases {
					return
				}
				index := k*opts.Shards + opts.Shard
				op := ops[index%len(ops)]
				seed := gen.CaseSeed(opts.Seed, op, index)
				m := gen.CaseOf(op).Example(seed)
				out := compareCase(caseCtx, opts.Impl, opts.Oracles, m)
				if caseCtx.Err() != nil {
					return // a result cut short is not a result
				}
				mu.Lock()
				s.Cases++
				switch {
				case out.skipped:
					s.Skipped++
				case out.diff == "":
					s.Agreed++
				default:
					s.Disagreed++
					select {
					case shrinks <- disagreement{op: op, seed: seed, m: m, out: out}:
					default:
						s.Unshrunk++
					}
				}
				mu.Unlock()
				bar.Add(1)
			}
		}()
	}
	wg.Wait()
	s.Elapsed = time.Since(start)
	bar.Done()
	close(shrinks)
	<-shrinkDone
	s.Unshrunk += shrinker.skipped
	return s, nil
}

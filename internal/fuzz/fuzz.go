// Package fuzz runs live differential fuzzing: generated cases go to an
// implementation under test and to oracles, pipelined. Every disagreement
// is classified by its signature (package signature); the first
// disagreement of each signature is shrunk, keeping that signature, to a
// minimal case with rapid's shrinker and saved as a normal case file that
// `conform check --cases DIR` replays. Later disagreements of a signature
// already seen are only counted.
package fuzz

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/gen"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/output"
	"github.com/conformsuite/conform/internal/progress"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/signature"
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
	// MaxShrinks bounds how many distinct signatures are shrunk: the
	// disagreements of further signatures are counted, not shrunk.
	MaxShrinks int
	// StopAfter, if > 0, ends the run once that many findings are saved.
	StopAfter int
	// Ops restricts the ops generated (default: every op the
	// implementation supports).
	Ops []string
	// KnownFailures is a known-failures list as check.ReadKnownFailures
	// reads it (entry to reason). Its entries that are signatures (see
	// signature.Parse) are known: disagreements with those signatures are
	// counted in Summary.Known, not shrunk, saved or counted as failures.
	// Other entries (case IDs) are ignored. A crash or timeout (the
	// symptom "crash") is known only with AllowKnownCrashes; without it
	// its disagreements are failures like any other. Either way they are
	// counted in Summary.KnownCrashes and KnownTimeouts.
	KnownFailures     map[string]string
	AllowKnownCrashes bool
	// Inputs are the files the run reads: a saved file that would replace
	// one is not saved (see package output). Nil: none.
	Inputs *output.Inputs
	Log    io.Writer
}

// Finding is one disagreement, shrunk.
type Finding struct {
	ID string
	// Signature is that of the disagreement first seen; the minimal case
	// disagrees with the same signature.
	Signature signature.Signature
	Case      *casefile.Case  // the minimal case
	Oracle    string          // the reference that disagreed
	Want      protocol.Answer // the reference's answer on the minimal case
	Got       protocol.Answer // the implementation's
	Detail    string
	Seed      int // the rapid seed of the original case
	Original  int // number of input elements before shrinking
	// Partial is set when shrinking stopped at the run's deadline: Case
	// is the smallest failing case found by then, not necessarily
	// minimal.
	Partial bool
	// Path is the saved case file, empty if nothing was saved; SaveErr
	// says why saving failed.
	Path    string
	SaveErr error
}

// Group is the disagreements of one signature, or, for an implementation
// the golden corpus defines divergence classes for, of one class.
type Group struct {
	// Signature is the first disagreement's signature.
	Signature signature.Signature
	// Count is the number of disagreements with this signature.
	Count int
	// Known is set when the signature is in Options.KnownFailures: its
	// disagreements are counted, not shrunk, and not failures.
	Known bool
	// Reason is the known-failures entry's reason.
	Reason string
	// Finding is the saved minimal case, nil if the signature was not
	// shrunk: it is known, over MaxShrinks or StopAfter, or was first
	// seen after the deadline.
	Finding *Finding
	// queued is set once a disagreement of this signature is queued for
	// shrinking.
	queued bool
	// crash is set when the signature is a crash or timeout a
	// known-failures entry matches.
	crash bool
}

// Summary is the result of a run.
type Summary struct {
	// Disagreed counts the disagreements whose signature is not known;
	// Known those whose signature is (not included in Disagreed).
	Cases, Agreed, Disagreed, Known, Skipped int
	Elapsed                                  time.Duration
	// Findings are the minimal cases saved, one per signature, in the
	// order they were found.
	Findings []Finding
	// Groups lists every signature seen (known ones included), the most
	// frequent first (then by signature).
	Groups []*Group
	// Unshrunk counts the signatures not known that were not shrunk
	// (over MaxShrinks or StopAfter, or first seen after the deadline).
	Unshrunk int
	// KnownCrashes and KnownTimeouts count the crashes and timeouts of
	// the implementation whose signature a known-failures entry matched
	// (known only with Options.AllowKnownCrashes).
	KnownCrashes, KnownTimeouts int
	// Unsaved counts the findings that could not be saved.
	Unsaved int
}

// Compared returns the number of cases on which the implementation was
// compared with a reference: agreed, disagreed or known.
func (s *Summary) Compared() int { return s.Agreed + s.Disagreed + s.Known }

// Rate returns cases per second.
func (s *Summary) Rate() float64 { return float64(s.Cases) / s.Elapsed.Seconds() }

// Line returns the summary line "N passed, N failed, N skipped", where a
// failure is a case on which the implementation disagreed with its
// reference.
func (s *Summary) Line() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", s.Agreed, s.Disagreed, s.Skipped)
}

// knownSignatures returns the entries of a known-failures list that are
// signatures, with their reasons.
func knownSignatures(list map[string]string) map[signature.Signature]string {
	known := map[signature.Signature]string{}
	for entry, reason := range list {
		if sig, err := signature.Parse(entry); err == nil {
			known[sig] = reason
		}
	}
	return known
}

// outcome is the comparison of one case.
type outcome struct {
	skipped bool
	oracle  string
	want    protocol.Answer
	got     protocol.Answer
	agree   protocol.Agreement // of got with want
	diff    string             // agree.Text
}

// compareCase runs m on the implementation and the oracles and compares
// the implementation with the first oracle that ran the case.
func compareCase(ctx context.Context, im impl.Impl, oracles []impl.Impl, m *casefile.Case) outcome {
	got := im.Run(ctx, m)
	if got.IsSkip() {
		return outcome{skipped: true, got: got}
	}
	for _, o := range oracles {
		want := o.Run(ctx, m)
		if !want.Ran() {
			continue
		}
		agree := protocol.Compare(want, got)
		return outcome{oracle: o.Name(), want: want, got: got, agree: agree, diff: agree.Text}
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
//
// Every disagreement is classified by signature.Classify (the reference's
// result as want, the implementation's as got). The first disagreement of
// a signature neither known nor seen before is shrunk, keeping its
// signature, and saved (up to MaxShrinks signatures); later ones are
// counted in their Group. The run goes on generating cases until its
// duration or case limit, or until StopAfter findings are saved.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	opts, ops, err := withDefaults(opts)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	caseCtx, genCtx, deadline, cancel := deadlineContexts(runCtx, start, opts)
	defer cancel()

	// The run allocates many short-lived buffers; collecting less often
	// buys throughput for a bounded amount of memory.
	defer debug.SetGCPercent(debug.SetGCPercent(400))

	r := &run{
		opts:    opts,
		ops:     ops,
		known:   knownSignatures(opts.KnownFailures),
		caseCtx: caseCtx,
		genCtx:  genCtx,
		stopRun: stopRun,
		bar:     progress.New(opts.Log, "fuzz", opts.MaxCases),
		// Each signature is queued at most once, so the queue rarely
		// fills; when it does, the signature is queued again with its
		// next disagreement.
		shrinks: make(chan disagreement, min(opts.MaxShrinks, 256)),
		s:       &Summary{},
		groups:  map[signature.Signature]*Group{},
	}
	r.shrinker = newShrinker(caseCtx, deadline, opts, r.pending.Load)
	shrinkDone := r.startShrinkers()
	r.generate()
	r.s.Elapsed = time.Since(start)
	r.bar.Done()
	close(r.shrinks)
	<-shrinkDone
	r.listGroups()
	return r.s, nil
}

// withDefaults checks opts and fills in its defaults. It returns the ops
// to generate: Options.Ops, or every op the implementation supports.
func withDefaults(opts Options) (Options, []string, error) {
	if opts.Shards < 1 {
		opts.Shards = 1
	}
	if opts.Shard < 0 || opts.Shard >= opts.Shards {
		return opts, nil, fmt.Errorf("shard %d is not in [0, %d)", opts.Shard, opts.Shards)
	}
	if len(opts.Oracles) == 0 {
		return opts, nil, fmt.Errorf("no oracle")
	}
	ops := opts.Ops
	if len(ops) == 0 {
		for _, op := range casefile.OpNames() {
			if opts.Impl.Supports(op) {
				ops = append(ops, op)
			}
		}
	}
	if len(ops) == 0 {
		return opts, nil, fmt.Errorf("%s supports none of the ops %v", opts.Impl.Name(), casefile.OpNames())
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
	return opts, ops, nil
}

// deadlineContexts returns the contexts of a run started at start:
// caseCtx bounds every comparison, shrinking's included, and genCtx ends
// the generation of cases. With a Duration, generation ends at the
// deadline (start+Duration, zero without one) and comparisons
// CaseTimeout later; without one, both are runCtx. cancel releases them.
func deadlineContexts(runCtx context.Context, start time.Time, opts Options) (caseCtx, genCtx context.Context, deadline time.Time, cancel func()) {
	if opts.Duration <= 0 {
		return runCtx, runCtx, time.Time{}, func() {}
	}
	deadline = start.Add(opts.Duration)
	caseCtx, cancelCases := context.WithDeadline(runCtx, deadline.Add(max(opts.CaseTimeout, 0)))
	genCtx, cancelGen := context.WithDeadline(caseCtx, deadline)
	return caseCtx, genCtx, deadline, func() {
		cancelGen()
		cancelCases()
	}
}

// shrinkers is the number of disagreements shrunk at once.
const shrinkers = 4

// run is the state of one Run, shared by its workers, which generate and
// compare cases, and its shrinkers.
type run struct {
	opts     Options
	ops      []string
	known    map[signature.Signature]string // knownSignatures(opts.KnownFailures)
	caseCtx  context.Context                // bounds every comparison
	genCtx   context.Context                // ends the generation of cases
	stopRun  context.CancelFunc             // ends the run (StopAfter)
	bar      *progress.Bar
	next     atomic.Int64 // the next case number
	pending  atomic.Int64 // disagreements queued or being shrunk
	shrinks  chan disagreement
	shrinker *shrinker

	mu      sync.Mutex // guards what follows
	s       *Summary
	groups  map[signature.Signature]*Group
	queued  int // signatures queued for shrinking (at most MaxShrinks)
	started int // shrinks started
}

// startShrinkers starts the shrinkers, which shrink the disagreements
// sent on r.shrinks until it is closed; the channel returned is closed
// when they are done.
//
// A few disagreements are shrunk at once: the implementation and the
// oracles answer one comparison at a time while shrinking, so one
// shrinker alone would leave them idle (rapid's phase is serialised by
// rapidMu; the axis-by-axis phase runs in parallel).
func (r *run) startShrinkers() <-chan struct{} {
	shrinkDone := make(chan struct{})
	var shrinking sync.WaitGroup
	for range shrinkers {
		shrinking.Add(1)
		go func() {
			defer shrinking.Done()
			for d := range r.shrinks {
				r.shrinkOne(d)
			}
		}()
	}
	go func() {
		shrinking.Wait()
		close(shrinkDone)
	}()
	return shrinkDone
}

// shrinkOne shrinks one queued disagreement and records its finding,
// unless StopAfter shrinks have already started. It ends the run once
// StopAfter findings are saved.
func (r *run) shrinkOne(d disagreement) {
	// StopAfter counts the shrinks started, so that shrinkers running at
	// once do not save more than it allows.
	r.mu.Lock()
	done := r.opts.StopAfter > 0 && r.started >= r.opts.StopAfter
	r.started++
	r.mu.Unlock()
	if done {
		r.pending.Add(-1)
		return
	}
	f, ok := r.shrinker.shrink(d)
	r.pending.Add(-1)
	if ok && r.addFinding(f) {
		r.stopRun()
	}
}

// addFinding records a finding in the summary and its group, and reports
// whether StopAfter findings are now saved.
func (r *run) addFinding(f Finding) (enough bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if f.SaveErr != nil {
		r.s.Unsaved++
	}
	r.s.Findings = append(r.s.Findings, f)
	saved := f
	r.groups[groupKey(f.Signature)].Finding = &saved
	return r.opts.StopAfter > 0 && len(r.s.Findings) >= r.opts.StopAfter
}

// generate runs the workers, each generating and comparing cases, until
// generation ends (genCtx), the case limit is reached or a comparison is
// cut short.
func (r *run) generate() {
	var wg sync.WaitGroup
	for w := 0; w < r.opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r.genCtx.Err() == nil {
				r.yieldToShrinking(w)
				k := int(r.next.Add(1) - 1)
				if r.opts.MaxCases > 0 && k >= r.opts.MaxCases {
					return
				}
				if !r.fuzzCase(k) {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// yieldToShrinking pauses worker w while disagreements wait to be shrunk,
// unless it is one of the first eighth of the workers: shrinking compares
// one case at a time, and would otherwise queue behind every generated
// case in flight.
func (r *run) yieldToShrinking(w int) {
	for w >= r.opts.Workers/8 && r.pending.Load() > 0 && r.genCtx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
}

// fuzzCase generates the run's k-th case, compares the implementation
// with its reference on it and counts the result. It reports false when
// the comparison was cut short (then nothing is counted).
func (r *run) fuzzCase(k int) bool {
	index := k*r.opts.Shards + r.opts.Shard
	op := r.ops[index%len(r.ops)]
	seed := gen.CaseSeed(r.opts.Seed, op, index)
	m := example(op, seed)
	out := compareCase(r.caseCtx, r.opts.Impl, r.opts.Oracles, m)
	if r.caseCtx.Err() != nil {
		return false // a result cut short is not a result
	}
	// Only a disagreement is classified (outside the lock): the hot path
	// of agreeing cases does not pay for it.
	var sig signature.Signature
	if !out.skipped && out.diff != "" {
		sig = classify(r.opts.Impl.Name(), m, out)
	}
	r.mu.Lock()
	r.s.Cases++
	switch {
	case out.skipped:
		r.s.Skipped++
	case out.diff == "":
		r.s.Agreed++
	default:
		r.countDisagreement(disagreement{op: op, seed: seed, m: m, out: out, sig: sig})
	}
	r.mu.Unlock()
	r.bar.Add(1)
	return true
}

// countDisagreement counts d in its group and in the summary, and queues
// it for shrinking if it is the first of a signature neither known nor
// queued, within MaxShrinks. r.mu is held.
func (r *run) countDisagreement(d disagreement) {
	g := r.group(d.sig)
	g.Count++
	if g.crash && d.sig.Detail == string(protocol.CrashTimeout) {
		r.s.KnownTimeouts++
	} else if g.crash {
		r.s.KnownCrashes++
	}
	if g.Known {
		r.s.Known++
		return
	}
	r.s.Disagreed++
	if g.queued || r.queued >= r.opts.MaxShrinks {
		return
	}
	select {
	case r.shrinks <- d:
		g.queued = true
		r.queued++
		r.pending.Add(1)
	default:
	}
}

// group returns the group of sig, made (and looked up in the known
// failures) on its first disagreement. r.mu is held.
func (r *run) group(sig signature.Signature) *Group {
	if g := r.groups[groupKey(sig)]; g != nil {
		return g
	}
	g := &Group{Signature: sig}
	for _, form := range sig.Forms() {
		if g.Reason, g.Known = r.known[form]; g.Known {
			g.crash = sig.Symptom == signature.Crash
			g.Known = !g.crash || r.opts.AllowKnownCrashes
			break
		}
	}
	r.groups[groupKey(sig)] = g
	return g
}

// listGroups lists the groups in the summary, the most frequent first
// (then by signature), and counts the unknown signatures not shrunk.
func (r *run) listGroups() {
	s := r.s
	for _, g := range r.groups {
		s.Groups = append(s.Groups, g)
		if !g.Known && g.Finding == nil {
			s.Unshrunk++
		}
	}
	sort.Slice(s.Groups, func(i, j int) bool {
		a, b := s.Groups[i], s.Groups[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Signature.String() < b.Signature.String()
	})
}

// Package fuzz runs live differential fuzzing: generated cases go to an
// implementation under test and to oracles, pipelined. Every disagreement
// is classified by its signature (package signature) and by the rules of
// the reference its case exercises (engine.Trace). A disagreement that no
// cause found so far explains is shrunk, keeping its signature, to a
// minimal case with rapid's shrinker; its cause is the rule of the minimal
// case that neighbours confirm (package neighbour), and it is saved, one
// minimal case per cause, as a normal case file that `conform check
// --cases DIR` replays. Later disagreements a cause explains are only
// counted; a minimal case no rule confirms is saved under its signature.
package fuzz

import (
	"context"
	"fmt"
	"io"
	"maps"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/gen"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/neighbour"
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
	// Workers is the number of cases in flight (default DefaultWorkers).
	Workers int
	// ShrinkTime bounds the shrinking of one disagreement.
	ShrinkTime time.Duration
	// ShrinkJobs is how many candidates of a shrinking step after rapid's
	// are compared at once (default 1): as many as the children of the
	// implementations can run. The case kept is the same either way.
	ShrinkJobs int
	// MaxShrinks bounds how many minimal cases no rule explains are
	// saved (one per signature at most); causes are not bounded (default
	// 20).
	MaxShrinks int
	// StopAfter, if > 0, ends the run once that many findings are saved.
	StopAfter int
	// Ops restricts the ops generated (default: every op the
	// implementation supports).
	Ops []string
	// KnownFailures is a known-failures list as check.ReadKnownFailures
	// reads it (entry to reason). Its entries that are signatures (see
	// signature.Parse) or causes (see check.ParseCause) are known:
	// disagreements with those signatures, and those whose case exercises
	// a known cause's rule with its symptom, are counted in Summary.Known,
	// not shrunk, saved or counted as failures. A disagreement with a
	// known cause's symptom whose case does not exercise its rule is not
	// known. Other entries (case IDs) are ignored. A crash or timeout (the
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
	// Cause is the rule neighbours confirmed as the finding's cause, ""
	// if none did; Symptom is its symptom (check.CauseSymptom). Passing
	// is the passing neighbour that confirmed it, Neighbour describes it
	// (neighbour.Describe) and Edit is the edit that made it.
	Cause                    engine.RuleID
	Symptom, Neighbour, Edit string
	Passing                  *casefile.Case
	ID                       string
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
	// Finding is the saved minimal case no rule explains, nil if there is
	// none: the signature is known, its shrinks found causes (or none
	// finished, over StopAfter or the deadline), or MaxShrinks such cases
	// were saved already.
	Finding *Finding
	// queued is set while a disagreement of this signature is queued for
	// shrinking or being shrunk: one at a time.
	queued bool
	// fruitless counts the shrinks of its disagreements in a row that
	// found no new cause; at maxFruitless, they are no longer shrunk.
	fruitless int
	// seen counts its disagreements by symptom and rules (see
	// ruleSetKey), so that those a cause found later explains are
	// counted under it at the end of the run.
	seen map[string]int
	// crash is set when the signature is a crash or timeout a
	// known-failures entry matches.
	crash bool
}

// Summary is the result of a run.
type Summary struct {
	// Disagreed counts the disagreements neither a known signature nor
	// a known cause explains; Known those one does (not included in
	// Disagreed).
	Cases, Agreed, Disagreed, Known, Skipped int
	Elapsed                                  time.Duration
	// Findings are the minimal cases saved, one per cause and one per
	// signature no rule explains, in the order they were found.
	Findings []Finding
	// Causes lists the causes confirmed and the known causes that
	// explained a disagreement, the most frequent first (then by op and
	// rule).
	Causes []*Cause
	// Groups lists the signatures of the disagreements no cause
	// explained when they were seen (known signatures included), the
	// most frequent first (then by signature).
	Groups []*Group
	// Unshrunk counts the signatures not known that have disagreements
	// no cause explains and no saved minimal case (their shrinks found
	// causes for other disagreements, were over MaxShrinks or StopAfter,
	// or were stopped by the deadline).
	Unshrunk int
	// Flaky counts the crashes and timeouts that did not happen again
	// when their case (minimal and original) was re-run: not saved.
	Flaky int
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
// the implementation with the first oracle that ran the case, as check
// compares it with an expected answer (impl.CompareFor: errors by
// exception class on NumPy-defined ops when the implementation's errors
// are Python exceptions, by kind otherwise).
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
		agree := impl.CompareFor(im, m.Op, want, got) // errors by class or by kind, as check compares them
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
// result as want, the implementation's as got), and the rules its case
// exercises are read from the engine (engine.Trace and the rule of its
// error). One whose case exercises the rule of a cause already found for
// its op, with the cause's symptom, is counted under that cause; so is one
// of a known cause (counted as known). Any other disagreement of a
// signature not known is shrunk, one per signature at a time, keeping its
// signature and exercising no rule of a cause found (so that it does not
// turn into a known cause's case); its cause is the rule of the minimal
// case that neighbours confirm (neighbour.Confirm: the minimal case fails
// with its symptom and a neighbour without the rule passes) with the
// passing neighbour that changes the fewest of its rules, the rarest
// among the run's passing cases first on a tie. The first minimal case of each
// cause is saved; one no rule confirms is saved under its signature, at
// most one per signature and MaxShrinks in all. A crash or timeout is
// re-run before it is saved (the minimal case, then the original): one
// that does not happen again is counted in Summary.Flaky. After
// maxFruitless shrinks in a row of a signature found no new cause, its
// disagreements are only counted. The run goes on generating cases until
// its duration or case limit, or until StopAfter findings are saved.
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
		opts:        opts,
		ops:         ops,
		known:       knownSignatures(opts.KnownFailures),
		knownCauses: knownCauses(opts.KnownFailures),
		causes:      map[causeKey]*Cause{},
		knownSeen:   map[check.KnownCause]map[string]*Cause{},
		passes:      map[string]map[engine.RuleID]int{},
		caseCtx:     caseCtx,
		genCtx:      genCtx,
		stopRun:     stopRun,
		bar:         progress.New(opts.Log, "fuzz", opts.MaxCases),
		// Each signature is queued once at a time, so the queue rarely
		// fills; when it does, the signature is queued with its next
		// disagreement.
		shrinks: make(chan disagreement, 256),
		order:   newInOrder(),
		s:       &Summary{},
		groups:  map[signature.Signature]*Group{},
	}
	r.shrinker = newShrinker(caseCtx, deadline, opts, r.pending.Load)
	r.shrinker.explained = r.explainedNow
	shrinkDone := r.startShrinkers()
	r.generate()
	r.order.flush()
	r.s.Elapsed = time.Since(start)
	r.bar.Done()
	close(r.shrinks)
	<-shrinkDone
	r.attributeLate()
	r.listGroups()
	r.listCauses()
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
		opts.Workers = DefaultWorkers
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

// DefaultWorkers is the number of cases in flight when Options.Workers is
// not set: enough that each child of a fast oracle reads many requests at
// a time and answers them in few writes (with 64, NumPy's two children
// read about 12 requests a read; fuzz against NumPy ran 1% to 21% faster
// with 256 in three alternating pairs of runs).
const DefaultWorkers = 256

// shrinkers is the number of disagreements shrunk at once.
const shrinkers = 4

// maxFruitless is how many shrinks in a row of a signature's
// disagreements may find no new cause before its disagreements are only
// counted: a signature no rule explains cannot take all the shrinking.
const maxFruitless = 3

// passSample is how often an agreeing case is traced for the per-op
// counts of the rules passing cases exercise (one in passSample): tracing
// costs one more evaluation on the engine.
const passSample = 8

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
	order    *inOrder // applies the cases' results in case order

	knownCauses map[check.KnownCause]string // knownCauses(opts.KnownFailures)

	mu     sync.Mutex // guards what follows
	s      *Summary
	groups map[signature.Signature]*Group
	// causes are the causes confirmed, by op and rule; knownSeen the
	// known causes that explained a disagreement, by entry and op.
	causes    map[causeKey]*Cause
	knownSeen map[check.KnownCause]map[string]*Cause
	// passes counts, per op, the traced agreeing cases (one in
	// passSample) exercising each rule.
	passes      map[string]map[engine.RuleID]int
	unexplained int // minimal cases no rule explains saved (at most MaxShrinks)
	started     int // shrinks started that have not ended without a finding
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

// shrinkOne shrinks one queued disagreement, finds its cause and records
// its finding (see settle), unless StopAfter shrinks that may give a
// finding have already started. It ends the run once StopAfter findings
// are saved.
func (r *run) shrinkOne(d disagreement) {
	// StopAfter counts the shrinks started that did not end without a
	// finding, so that shrinkers running at once do not save more than
	// it allows.
	r.mu.Lock()
	done := r.opts.StopAfter > 0 && r.started >= r.opts.StopAfter
	if done {
		r.groups[groupKey(d.sig)].queued = false
	}
	r.started++
	r.mu.Unlock()
	if done {
		r.pending.Add(-1)
		return
	}
	f, ok := r.shrinker.shrink(d)
	found := ok && r.settle(d, f)
	r.pending.Add(-1)
	r.mu.Lock()
	if !found {
		r.started--
	}
	g := r.groups[groupKey(d.sig)]
	g.queued = false
	if found && f.Cause != "" {
		g.fruitless = 0
	} else {
		g.fruitless++
	}
	enough := r.opts.StopAfter > 0 && len(r.s.Findings) >= r.opts.StopAfter
	r.mu.Unlock()
	if enough {
		r.stopRun()
	}
}

// settle decides what a shrunk disagreement d, minimal case f, is and
// saves it, reporting whether it was recorded as a finding: a crash or
// timeout that does not happen again is counted as flaky; a minimal case
// some rule confirms is its cause's finding, unless the cause was found
// already (then it is counted under it); one no rule confirms is its
// signature's finding, within MaxShrinks.
func (r *run) settle(d disagreement, f Finding) bool {
	sh := r.shrinker
	if f.Signature.Symptom == signature.Crash && !sh.reproduces(f) {
		orig := sh.finding(d, d.m, d.out, f.Partial)
		if !sh.reproduces(orig) {
			r.mu.Lock()
			r.s.Flaky++
			r.mu.Unlock()
			fmt.Fprintf(r.opts.Log, "fuzz: %s (%s) did not happen again when re-run: not saved\n", f.ID, f.Signature)
			return false
		}
		f = orig
	}
	symptom := symptomOf(f.Signature)
	r.mu.Lock()
	passes := maps.Clone(r.passes[f.Case.Op])
	r.mu.Unlock()
	conf, confirmed := sh.confirm(f.Case, symptom, passes)

	r.mu.Lock()
	g := r.groups[groupKey(d.sig)]
	if confirmed {
		f.Cause, f.Symptom = conf.Rule, symptom
		f.Passing, f.Neighbour, f.Edit = conf.Passing.Case, neighbour.Describe(conf.Passing.Case), conf.Passing.Edit
		key := causeKey{f.Case.Op, conf.Rule}
		if c := r.causes[key]; c != nil {
			// Found meanwhile by another shrinker, or with another
			// symptom: counted under it.
			if !c.explains(symptom) {
				c.Symptoms = append(c.Symptoms, symptom)
			}
			c.Count++
			g.Count--
			g.seen[ruleSetKey(d.symptom, d.rules)]--
			r.mu.Unlock()
			return false
		}
		c := &Cause{Op: f.Case.Op, Rule: conf.Rule, Symptoms: []string{symptom}, Count: 1}
		r.causes[key] = c
		g.Count-- // d is counted under its cause from now on
		g.seen[ruleSetKey(d.symptom, d.rules)]--
		r.mu.Unlock()
		r.save(&f)
		r.mu.Lock()
		c.Finding = r.addFinding(f)
		r.mu.Unlock()
		return true
	}
	if g.Finding != nil || r.unexplained >= r.opts.MaxShrinks {
		r.mu.Unlock()
		return false
	}
	r.unexplained++
	g.Finding = &Finding{} // reserved
	r.mu.Unlock()
	r.save(&f)
	r.mu.Lock()
	g.Finding = r.addFinding(f)
	r.mu.Unlock()
	return true
}

// save saves f in Options.Out (if set), recording its path or the error.
func (r *run) save(f *Finding) {
	if r.opts.Out == "" {
		return
	}
	f.Path, f.SaveErr = Save(r.opts.Out, *f, r.opts)
	if f.SaveErr != nil {
		fmt.Fprintf(r.opts.Log, "fuzz: cannot save %s: %v\n", f.ID, f.SaveErr)
	}
}

// addFinding records a finding in the summary and returns the summary's
// copy. r.mu is held.
func (r *run) addFinding(f Finding) *Finding {
	if f.SaveErr != nil {
		r.s.Unsaved++
	}
	r.s.Findings = append(r.s.Findings, f)
	saved := f
	return &saved
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
			trace := new(engine.Trace)
			for r.genCtx.Err() == nil {
				r.yieldToShrinking(w)
				k := int(r.next.Add(1) - 1)
				if r.opts.MaxCases > 0 && k >= r.opts.MaxCases {
					return
				}
				if !r.fuzzCase(k, trace) {
					return
				}
			}
		}()
	}
	wg.Wait()
}

// yieldToShrinking pauses worker w while disagreements wait to be shrunk,
// unless it is one of the first eighth of the workers (at most 8):
// shrinking compares one case at a time, and would otherwise queue behind
// every generated case in flight.
func (r *run) yieldToShrinking(w int) {
	for w >= min(r.opts.Workers/8, 8) && r.pending.Load() > 0 && r.genCtx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
}

// fuzzCase generates the run's k-th case, compares the implementation
// with its reference on it and counts the result, in case order (see
// inOrder). It reports false when the comparison was cut short (then
// nothing is counted). trace is the worker's, reused.
func (r *run) fuzzCase(k int, trace *engine.Trace) bool {
	index := k*r.opts.Shards + r.opts.Shard
	op := r.ops[index%len(r.ops)]
	seed := gen.CaseSeed(r.opts.Seed, op, index)
	m := example(op, seed)
	out := compareCase(r.caseCtx, r.opts.Impl, r.opts.Oracles, m)
	if r.caseCtx.Err() != nil {
		r.order.deliver(k, nil) // a result cut short is not a result
		return false
	}
	// Only a disagreement is classified (outside the lock): the hot path
	// of agreeing cases does not pay for it. What waits for its turn holds
	// no more than it needs: the case and the answers of a disagreement.
	var d *disagreement
	var rules []engine.RuleID
	skipped, agreed := out.skipped, !out.skipped && out.diff == ""
	if !skipped && !agreed {
		sig := classify(r.opts.Impl.Name(), m, out)
		d = &disagreement{op: op, seed: seed, m: m, out: out, sig: sig, rules: neighbour.Rules(m, trace), symptom: symptomOf(sig)}
	}
	tracePass := agreed && k%passSample == 0
	if tracePass {
		rules = neighbour.Rules(m, trace)
	}
	r.order.deliver(k, func() {
		r.mu.Lock()
		r.s.Cases++
		switch {
		case skipped:
			r.s.Skipped++
		case agreed:
			r.s.Agreed++
			if tracePass {
				r.countPass(op, rules)
			}
		default:
			r.countDisagreement(*d)
		}
		r.mu.Unlock()
		r.bar.Add(1)
	})
	return true
}

// countPass counts the rules a passing case of op exercised. r.mu is
// held.
func (r *run) countPass(op string, rules []engine.RuleID) {
	counts := r.passes[op]
	if counts == nil {
		counts = map[engine.RuleID]int{}
		r.passes[op] = counts
	}
	for _, rule := range rules {
		counts[rule]++
	}
}

// countDisagreement counts d under the known cause or the cause found
// that explains it, else in its signature's group, and in the summary;
// it queues it for shrinking if its signature is not known and none of
// its disagreements is queued or being shrunk (and its shrinks have not
// been fruitless maxFruitless times in a row). r.mu is held.
func (r *run) countDisagreement(d disagreement) {
	kc, knownCrash := r.knownCause(d)
	if kc != nil {
		kc.Count++
		r.s.Known++
		return
	}
	g := r.group(d.sig)
	if (g.crash || knownCrash) && d.sig.Detail == string(protocol.CrashTimeout) {
		r.s.KnownTimeouts++
	} else if g.crash || knownCrash {
		r.s.KnownCrashes++
	}
	if g.Known {
		g.Count++
		r.s.Known++
		return
	}
	r.s.Disagreed++
	if c := r.causeOf(d.m.Op, d.rules, d.symptom); c != nil {
		c.Count++
		return
	}
	g.Count++
	if g.seen == nil {
		g.seen = map[string]int{}
	}
	g.seen[ruleSetKey(d.symptom, d.rules)]++
	if g.queued || g.fruitless >= maxFruitless {
		return
	}
	select {
	case r.shrinks <- d:
		g.queued = true
		r.pending.Add(1)
	default:
	}
}

// knownCause returns the known cause that explains d (a known-failures
// entry naming a rule d's case exercises and d's symptom), nil if none
// does. A crash or timeout is known only with AllowKnownCrashes; without
// it knownCause returns nil and crash set when an entry matched it. r.mu
// is held.
func (r *run) knownCause(d disagreement) (c *Cause, crash bool) {
	if len(r.knownCauses) == 0 {
		return nil, false
	}
	for _, rule := range d.rules {
		k := check.KnownCause{Rule: rule, Symptom: d.symptom}
		reason, ok := r.knownCauses[k]
		if !ok {
			continue
		}
		if d.sig.Symptom == signature.Crash && !r.opts.AllowKnownCrashes {
			return nil, true
		}
		if d.sig.Symptom == signature.Crash && d.sig.Detail == string(protocol.CrashTimeout) {
			r.s.KnownTimeouts++
		} else if d.sig.Symptom == signature.Crash {
			r.s.KnownCrashes++
		}
		byOp := r.knownSeen[k]
		if byOp == nil {
			byOp = map[string]*Cause{}
			r.knownSeen[k] = byOp
		}
		if byOp[d.m.Op] == nil {
			byOp[d.m.Op] = &Cause{Op: d.m.Op, Rule: rule, Symptoms: []string{d.symptom}, Known: true, Reason: reason}
		}
		return byOp[d.m.Op], false
	}
	return nil, false
}

// causeOf returns the cause found for op that explains a disagreement
// exercising rules with symptom, nil if none does. r.mu is held.
func (r *run) causeOf(op string, rules []engine.RuleID, symptom string) *Cause {
	for _, rule := range rules {
		if c := r.causes[causeKey{op, rule}]; c != nil && c.explains(symptom) {
			return c
		}
	}
	return nil
}

// explainedNow reports whether a cause found or a known cause explains a
// disagreement of op exercising rules with symptom: shrinking keeps
// clear of such cases.
func (r *run) explainedNow(op string, rules []engine.RuleID, symptom string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.causeOf(op, rules, symptom) != nil {
		return true
	}
	for _, rule := range rules {
		if _, ok := r.knownCauses[check.KnownCause{Rule: rule, Symptom: symptom}]; ok {
			return true
		}
	}
	return false
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
		if g.Count == 0 && g.Finding == nil {
			continue // every disagreement went to a cause
		}
		s.Groups = append(s.Groups, g)
		if !g.Known && g.Finding == nil && g.Count > 0 {
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

// listCauses lists the causes found and the known causes that explained
// a disagreement in the summary, the most frequent first (then by op and
// rule).
func (r *run) listCauses() {
	s := r.s
	for _, c := range r.causes {
		s.Causes = append(s.Causes, c)
	}
	for _, byOp := range r.knownSeen {
		for _, c := range byOp {
			s.Causes = append(s.Causes, c)
		}
	}
	sort.Slice(s.Causes, func(i, j int) bool {
		a, b := s.Causes[i], s.Causes[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		if a.Rule != b.Rule {
			return a.Rule < b.Rule
		}
		return a.Group() < b.Group()
	})
}

// ruleSetKey is the key under which Group.seen counts a disagreement with
// symptom exercising rules.
func ruleSetKey(symptom string, rules []engine.RuleID) string {
	var b strings.Builder
	b.WriteString(symptom)
	for _, r := range rules {
		b.WriteByte(0)
		b.WriteString(string(r))
	}
	return b.String()
}

// attributeLate counts under the causes found the disagreements counted
// in their signature's group because no cause explained them yet when
// they were seen.
func (r *run) attributeLate() {
	for _, g := range r.groups {
		if g.Known {
			continue
		}
		for key, n := range g.seen {
			parts := strings.Split(key, "\x00")
			rules := make([]engine.RuleID, 0, len(parts)-1)
			for _, p := range parts[1:] {
				rules = append(rules, engine.RuleID(p))
			}
			if c := r.causeOf(g.Signature.Op, rules, parts[0]); c != nil && n > 0 {
				c.Count += n
				g.Count -= n
			}
		}
	}
}

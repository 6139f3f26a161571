package fuzz

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/gen"
	"github.com/conformsuite/conform/internal/golden"
	"github.com/conformsuite/conform/internal/neighbour"
	"github.com/conformsuite/conform/internal/signature"
)

// disagreement is a case on which the implementation disagreed with its
// reference, before shrinking.
type disagreement struct {
	op   string
	seed int
	m    *casefile.Case
	out  outcome
	sig  signature.Signature // signature.Classify of the case's disagreement
	// rules are the rules the case exercises (neighbour.Rules), symptom the
	// disagreement's (symptomOf).
	rules   []engine.RuleID
	symptom string
}

// shrinker turns disagreements into minimal findings, one at a time.
type shrinker struct {
	ctx      context.Context // bounds every comparison
	deadline time.Time       // no comparison starts after it (zero: none)
	opts     Options
	pending  func() int64 // how many disagreements wait or are being shrunk
	// explained reports whether a cause found (or known) explains a
	// disagreement of op exercising rules with symptom; nil: none does.
	explained func(op string, rules []engine.RuleID, symptom string) bool
}

func newShrinker(ctx context.Context, deadline time.Time, opts Options, pending func() int64) *shrinker {
	return &shrinker{ctx: ctx, deadline: deadline, opts: opts, pending: pending}
}

// rapidMu serialises uses of rapid's engine, whose settings are global
// flags.
var rapidMu sync.Mutex

// shrink minimises one disagreement with rapid's shrinker: it replays the
// generator from the case's seed (rapid's first test case for a seed is
// the generator's example for that seed) and keeps the smallest case on
// which the implementation still disagrees with its reference with the
// same signature, and that no cause found explains, so that a rarer
// failure is not shrunk into a more common one. It reports false when the
// deadline has passed or the run is over. A shrink the deadline stops is
// a Partial finding. Nothing is saved.
func (s *shrinker) shrink(d disagreement) (Finding, bool) {
	if s.expired() {
		return Finding{}, false
	}
	minimal, out, cut := s.minimise(d)
	if !cut {
		minimal, out, cut = s.reduce(minimal, out, d.sig)
	}
	return s.finding(d, minimal, out, cut), true
}

// finding is the finding of disagreement d with case m, its comparison
// out.
func (s *shrinker) finding(d disagreement, m *casefile.Case, out outcome, partial bool) Finding {
	return Finding{
		ID:        caseID(m),
		Signature: classify(s.opts.Impl.Name(), m, out), Case: m, Oracle: out.oracle, Want: out.want, Got: out.got, Detail: out.diff,
		Seed: d.seed, Original: elements(d.m), Partial: partial,
	}
}

// reproduces runs a finding's case again and reports whether the
// implementation disagrees with its reference the same way (the same
// group, see groupKey): a crash or timeout is re-run before it is saved.
// A run cut short by the end of the run counts as reproduced: nothing
// says it was not.
func (s *shrinker) reproduces(f Finding) bool {
	out := compareCase(s.ctx, s.opts.Impl, s.opts.Oracles, f.Case)
	if s.ctx.Err() != nil {
		return true
	}
	return !out.skipped && out.diff != "" && groupKey(classify(s.opts.Impl.Name(), f.Case, out)) == groupKey(f.Signature)
}

// expired reports whether no comparison may start any more: the deadline
// has passed or the run is over.
func (s *shrinker) expired() bool {
	return s.ctx.Err() != nil || (!s.deadline.IsZero() && !time.Now().Before(s.deadline))
}

// budget returns how long a shrinking phase may take: ShrinkTime, or less
// if the deadline comes first (then capped is set).
func (s *shrinker) budget() (d time.Duration, capped bool) {
	d = s.shrinkTime()
	if !s.deadline.IsZero() {
		left := time.Until(s.deadline)
		if left < d {
			return left, true
		}
		// A fair share of the time left among the disagreements waiting
		// to be shrunk, so that each gets a minimal case before the
		// deadline rather than the first few a long one.
		if n := s.pending(); n > 1 {
			d = min(d, max(left/time.Duration(n), 500*time.Millisecond))
		}
	}
	return d, false
}

// compare runs a shrinking candidate; ok is false if the comparison was
// not run or cut short (by the deadline or the end of the run), and then
// out means nothing.
func (s *shrinker) compare(m *casefile.Case) (out outcome, ok bool) {
	if s.expired() {
		return outcome{}, false
	}
	out = compareCase(s.ctx, s.opts.Impl, s.opts.Oracles, m)
	return out, s.ctx.Err() == nil
}

// same reports whether out is a disagreement with signature sig that no
// cause found explains. It is called only while shrinking, where every
// candidate is classified.
func (s *shrinker) same(m *casefile.Case, out outcome, sig signature.Signature) bool {
	if out.skipped || out.diff == "" {
		return false
	}
	got := classify(s.opts.Impl.Name(), m, out)
	if groupKey(got) != groupKey(sig) {
		return false
	}
	return s.explained == nil || !s.explained(m.Op, neighbour.Rules(m, new(engine.Trace)), symptomOf(got))
}

// groupKey is what makes two disagreements the same finding: their
// divergence class, when the golden corpus defines one for the
// implementation (the classes are what users of the oracles know, and a
// class may show several symptoms); else the op and the engine variant
// that reproduces them (the rule the implementation follows instead of
// the reference's, whatever symptom a case shows: a wrapped negative
// gather index gives other values with bad_indices "zero" and an output
// for an error otherwise); else their signature.
func groupKey(sig signature.Signature) signature.Signature {
	switch {
	case sig.Class != "":
		return signature.Signature{Class: sig.Class}
	case sig.Variant != "":
		return signature.Signature{Op: sig.Op, Variant: sig.Variant}
	}
	return sig
}

// classify names a disagreement: its signature (signature.Classify), with
// the divergence class the golden corpus defines for the implementation
// called name when it is one of the oracles.
func classify(name string, m *casefile.Case, out outcome) signature.Signature {
	sig := signature.Attribute(m, signature.FromAgreement(m.Op, out.agree), out.got)
	sig.Class = golden.ClassOf(name, m, out.want, out.got)
	return sig
}

// minimise runs rapid on the case generator of d's op, seeded so that its
// first case is d's case, and keeps the smallest case that disagrees with
// d's signature. cut reports that the deadline stopped it.
func (s *shrinker) minimise(d disagreement) (m *casefile.Case, o outcome, cut bool) {
	// The budget is taken once this shrinker has rapid to itself: the
	// wait for it must not eat into it.
	rapidMu.Lock()
	defer rapidMu.Unlock()
	budget, capped := s.budget()
	if budget <= 0 {
		return d.m, d.out, true
	}
	best, bestOut := d.m, d.out
	prop := func(t *rapid.T) {
		m := gen.CaseOf(d.op).Draw(t, "case")
		out, ok := s.compare(m)
		if !ok {
			cut = true
			return
		}
		if !s.same(m, out, d.sig) {
			return
		}
		// rapid re-runs the minimal failing case last.
		best, bestOut = m, out
		t.Fatalf("disagreement: %s", out.diff)
	}
	restore := setRapidFlags(map[string]string{
		"rapid.seed":       strconv.FormatUint(uint64(d.seed), 10),
		"rapid.checks":     "1",
		"rapid.nofailfile": "true",
		"rapid.shrinktime": budget.String(),
	})
	defer restore()
	runQuietly(prop)
	if capped && s.expired() {
		cut = true
	}
	return best, bestOut, cut
}

// shrinkTime is the time limit of each shrinking phase.
func (s *shrinker) shrinkTime() time.Duration {
	if s.opts.ShrinkTime > 0 {
		return s.opts.ShrinkTime
	}
	return 10 * time.Second
}

var initTesting sync.Once

// rapidFlags guards rapid's global flags: minimise sets them (under
// rapidMu, so one shrinker at a time) while the generating workers' calls
// to Example read rapid.seed. Example takes it for reading (see example),
// setRapidFlags for writing.
var rapidFlags sync.RWMutex

// example draws the case of op with seed, as Generator.Example does, but
// never while setRapidFlags writes the flags Example reads.
func example(op string, seed int) *casefile.Case {
	rapidFlags.RLock()
	defer rapidFlags.RUnlock()
	return gen.CaseOf(op).Example(seed)
}

// setRapidFlags sets rapid's (global) flags and returns a function that
// restores them.
func setRapidFlags(values map[string]string) func() {
	initTesting.Do(func() {
		// rapid reads testing.Short(), which needs the testing flags
		// registered and parsed, also outside a test binary.
		if flag.Lookup("test.short") == nil {
			testing.Init()
		}
		if !flag.Parsed() {
			flag.CommandLine.Parse(nil)
		}
	})
	rapidFlags.Lock()
	defer rapidFlags.Unlock()
	old := map[string]string{}
	for name, v := range values {
		f := flag.Lookup(name)
		if f == nil {
			continue
		}
		old[name] = f.Value.String()
		flag.Set(name, v)
	}
	return func() {
		rapidFlags.Lock()
		defer rapidFlags.Unlock()
		for name, v := range old {
			flag.Set(name, v)
		}
	}
}

// runQuietly runs rapid.Check with a TB that records nothing and turns
// the final FailNow into a return.
func runQuietly(prop func(*rapid.T)) {
	tb := &quietTB{}
	defer func() {
		if p := recover(); p != nil && p != errFailNow {
			panic(p)
		}
	}()
	rapid.Check(tb, prop)
}

var errFailNow = fmt.Errorf("fail now")

// quietTB implements rapid.TB outside a test.
type quietTB struct{ failed bool }

func (*quietTB) Helper()                  {}
func (*quietTB) Name() string             { return "conform-fuzz" }
func (*quietTB) Logf(string, ...any)      {}
func (*quietTB) Log(...any)               {}
func (tb *quietTB) Skipf(string, ...any)  { panic(errFailNow) }
func (tb *quietTB) Skip(...any)           { panic(errFailNow) }
func (tb *quietTB) SkipNow()              { panic(errFailNow) }
func (tb *quietTB) Errorf(string, ...any) { tb.failed = true }
func (tb *quietTB) Error(...any)          { tb.failed = true }
func (tb *quietTB) Fatalf(string, ...any) { tb.failed = true; panic(errFailNow) }
func (tb *quietTB) Fatal(...any)          { tb.failed = true; panic(errFailNow) }
func (tb *quietTB) FailNow()              { tb.failed = true; panic(errFailNow) }
func (tb *quietTB) Fail()                 { tb.failed = true }
func (tb *quietTB) Failed() bool          { return tb.failed }

// elements counts the input elements of a case.
func elements(m *casefile.Case) int {
	n := 0
	for _, t := range m.Inputs {
		n += t.Len()
	}
	return n
}

// caseID names a case by its op and content.
func caseID(m *casefile.Case) string {
	sum := gen.Fingerprint(m)
	return m.Op + "-" + hex.EncodeToString(sum[:6])
}

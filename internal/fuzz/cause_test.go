package fuzz

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/neighbour"
	"github.com/conformsuite/conform/internal/protocol"
)

// refusing is the engine with planted refusals: it answers invalid_spec
// to every case whose evaluation exercises one of its rules (read from
// the engine's trace), as a library that does not support a feature
// does. Two such rules of one op give two causes with the same symptom.
type refusing struct{ rules []engine.RuleID }

func (refusing) Name() string            { return "refusing" }
func (refusing) Version() string         { return "0" }
func (refusing) Supports(op string) bool { return true }
func (refusing) Close() error            { return nil }
func (r refusing) Run(ctx context.Context, c *casefile.Case) protocol.Answer {
	exercised := neighbour.Rules(c, nil)
	for _, rule := range r.rules {
		for _, e := range exercised {
			if e == rule {
				return protocol.Error(engine.InvalidSpec, "refused")
			}
		}
	}
	return impl.Engine{}.Run(ctx, c)
}

// plantedRefusals are two bugs of getitem with the same symptom
// (error/invalid_spec): negative steps and 0-d index arrays refused.
var plantedRefusals = []engine.RuleID{engine.RuleGetItemNegativeStep, engine.RuleGetItem0DIntArray}

// fuzzCauses fuzzes getitem for a few seconds against im, with the engine
// as the oracle.
func fuzzCauses(t *testing.T, im impl.Impl, known map[string]string) (*Summary, string) {
	t.Helper()
	out := t.TempDir()
	s, err := Run(context.Background(), Options{
		Impl: im, Oracles: []impl.Impl{impl.Engine{}}, Duration: 3 * time.Second, Seed: 1, Out: out,
		Workers: 8, ShrinkTime: 500 * time.Millisecond, Ops: []string{casefile.OpGetItem}, KnownFailures: known,
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, out
}

// causeOf returns the cause of s with rule, nil if there is none.
func causeOf(s *Summary, rule engine.RuleID) *Cause {
	for _, c := range s.Causes {
		if c.Rule == rule {
			return c
		}
	}
	return nil
}

// TestFuzzSavesEachCause checks that two bugs of one op with the same
// symptom each get a saved minimal case confirmed as its cause (one per
// signature used to save one of them only), that the saved case says its
// cause and its confirming neighbour, and that check replays it.
func TestFuzzSavesEachCause(t *testing.T) {
	s, out := fuzzCauses(t, refusing{plantedRefusals}, nil)
	t.Logf("%s; causes %d, findings %d", s.Line(), len(s.Causes), len(s.Findings))
	for _, rule := range plantedRefusals {
		c := causeOf(s, rule)
		if c == nil || c.Finding == nil || c.Finding.Path == "" {
			t.Errorf("%s: no saved minimal case confirmed as its cause; causes: %v", rule, s.Causes)
			continue
		}
		if c.Count < 1 || !c.explains("error/invalid_spec") {
			t.Errorf("%s: count %d, symptoms %v; want error/invalid_spec", rule, c.Count, c.Symptoms)
		}
		data, err := os.ReadFile(c.Finding.Path)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Provenance struct {
				Cause       string            `json:"cause"`
				Symptom     string            `json:"symptom"`
				ConfirmedBy map[string]string `json:"confirmed_by"`
			} `json:"provenance"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		p := doc.Provenance
		if p.Cause != string(rule) || p.Symptom != "getitem/error/invalid_spec" || p.ConfirmedBy["neighbour"] == "" || p.ConfirmedBy["edit"] == "" {
			t.Errorf("%s: saved provenance %+v, want its cause, symptom and confirming neighbour", rule, p)
		}
	}
	r, err := check.Run(context.Background(), os.DirFS(out), refusing{plantedRefusals}, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed != len(s.Findings) || r.Failed == 0 {
		t.Errorf("replay: %s, want all %d saved cases failing", r.Line(), len(s.Findings))
	}
}

// TestFuzzKnownCause checks that a cause named in the known failures is
// fuzzed past (counted as known, not shrunk or saved, not failures)
// while the other cause with the same symptom is still found and saved;
// a known signature would have hidden both.
func TestFuzzKnownCause(t *testing.T) {
	known := map[string]string{"cause:getitem/negative-step@error/invalid_spec": "refused upstream"}
	s, out := fuzzCauses(t, refusing{plantedRefusals}, known)
	t.Logf("%s, %d known", s.Line(), s.Known)
	c := causeOf(s, engine.RuleGetItemNegativeStep)
	if c == nil || !c.Known || c.Finding != nil || s.Known != c.Count || s.Known == 0 {
		t.Errorf("negative-step: %+v, %d known; want a known cause counting every known failure and nothing saved", c, s.Known)
	}
	if c := causeOf(s, engine.RuleGetItem0DIntArray); c == nil || c.Known || c.Finding == nil || c.Finding.Path == "" {
		t.Errorf("0d-index-array: %+v, want a saved minimal case", c)
	}
	saved, _ := filepath.Glob(filepath.Join(out, "*.json"))
	for _, path := range saved {
		data, _ := os.ReadFile(path)
		var doc struct {
			Provenance struct {
				Cause string `json:"cause"`
			} `json:"provenance"`
		}
		json.Unmarshal(data, &doc)
		if doc.Provenance.Cause == string(engine.RuleGetItemNegativeStep) {
			t.Errorf("%s: a case of the known cause was saved", path)
		}
	}
}

// flaky is the engine, except that it times out on the first case it is
// given (as a child on a loaded machine does), and answers every later
// case, that one included.
type flaky struct {
	once *sync.Once
}

func (flaky) Name() string            { return "flaky" }
func (flaky) Version() string         { return "0" }
func (flaky) Supports(op string) bool { return op == casefile.OpSlice }
func (flaky) Close() error            { return nil }
func (f flaky) Run(ctx context.Context, c *casefile.Case) protocol.Answer {
	timedOut := false
	f.once.Do(func() { timedOut = true })
	if timedOut {
		return protocol.Crash(string(protocol.CrashTimeout), "timeout after 5s")
	}
	return impl.Engine{}.Run(ctx, c)
}

// TestFlakyTimeoutNotSaved checks that a timeout that does not happen
// again when its case is re-run is counted as flaky, not saved (a
// load-induced timeout used to be saved as a finding).
func TestFlakyTimeoutNotSaved(t *testing.T) {
	out := t.TempDir()
	s, err := Run(context.Background(), Options{
		Impl: flaky{new(sync.Once)}, Oracles: []impl.Impl{impl.Engine{}}, MaxCases: 200, Seed: 1, Out: out,
		Workers: 4, ShrinkTime: 200 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	saved, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if s.Disagreed != 1 || s.Flaky != 1 || len(s.Findings) != 0 || len(saved) != 0 {
		t.Errorf("%s, %d flaky, %d findings, %d saved; want the one timeout counted as flaky and nothing saved", s.Line(), s.Flaky, len(s.Findings), len(saved))
	}
}

// TestFuzzCauseIsTheRuleAlone checks that a cause is confirmed only by a
// neighbour that is evidence: with one bug, refusing index arrays
// narrower than 64 bits, the bug's rule is found, and every cause found is
// confirmed by a neighbour without it (a neighbour whose reference
// refuses it anyway, as x[i, :, j] on a 2-d x does, passed whatever the
// implementation does and confirmed other rules).
func TestFuzzCauseIsTheRuleAlone(t *testing.T) {
	s, _ := fuzzCauses(t, refusing{[]engine.RuleID{engine.RuleGetItemNarrowArray}}, nil)
	if c := causeOf(s, engine.RuleGetItemNarrowArray); c == nil || c.Finding == nil {
		t.Errorf("%s: no minimal case confirmed as its cause", engine.RuleGetItemNarrowArray)
	}
	for _, c := range s.Causes {
		f := c.Finding
		if f == nil || f.Passing == nil {
			t.Errorf("cause %s: no finding or no passing neighbour", c.Rule)
			continue
		}
		for _, r := range neighbour.Rules(f.Passing, nil) {
			if r == engine.RuleGetItemNarrowArray {
				t.Errorf("cause %s — %s: confirmed by %s (%s), which still has the bug's rule %s", c.Rule, c.Group(),
					f.Neighbour, f.Edit, engine.RuleGetItemNarrowArray)
			}
		}
	}
}

// TestConfirmCleanestNeighbour checks which rule confirm names when
// neighbours confirm several: the one whose passing neighbour changes the
// fewest rules. x[0, i] with i an int8 array of shape (1, 1) fails on an
// implementation refusing narrow index arrays; dropping i passes and
// drops the n-d index array's rule too, casting i to int64 passes and
// drops the narrow dtype's rule alone. The n-d rule is made the rarer
// among passes, so trying rules by rarity alone would name it.
func TestConfirmCleanestNeighbour(t *testing.T) {
	x, _ := engine.FromBytes(engine.Int64Type, []int{2, 3}, make([]byte, 48))
	i, _ := engine.FromBytes(engine.Int8Type, []int{1, 1}, []byte{0})
	m := casefile.New(map[string]any{"op": "getitem", "index": "x[0, i]"}, map[string]*engine.Tensor{"x": x, "i": i})
	rules := neighbour.Rules(m, nil)
	passes := map[engine.RuleID]int{}
	for _, r := range rules {
		passes[r] = 100
	}
	passes[engine.RuleGetItemNDIndexArray] = 0
	sh := newShrinker(context.Background(), time.Time{}, Options{
		Impl: refusing{[]engine.RuleID{engine.RuleGetItemNarrowArray}}, Oracles: []impl.Impl{impl.Engine{}},
	}, func() int64 { return 0 })
	c, ok := sh.confirm(m, "error/invalid_spec", passes)
	if !ok || c.Rule != engine.RuleGetItemNarrowArray {
		t.Errorf("confirm(%s) = %s, %v (passing %s: %s); want %s (rules %v)", neighbour.Describe(m), c.Rule, ok,
			neighbour.Describe(c.Passing.Case), c.Passing.Edit, engine.RuleGetItemNarrowArray, rules)
	}
}

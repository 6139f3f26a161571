package fuzz

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/signature"
)

// A plantedBug changes the engine's result on some cases; apply reports
// whether it did. The three are disjoint, and each gives one signature.
type plantedBug struct {
	name  string
	sig   string // the signature of its disagreements
	apply func(op string, r *protocol.Answer) bool
}

var plantedBugs = []plantedBug{
	// The first two bugs are rules of the engine's variants: their
	// signatures name them.
	{"empty-invalid", "slice/error-for-output/invalid_spec@empty-range-refused", func(op string, r *protocol.Answer) bool {
		// rejects every slice whose result is empty
		if op != casefile.OpSlice || !r.IsOutput() || out(r).Len() != 0 {
			return false
		}
		*r = protocol.Error(engine.InvalidSpec, "empty result")
		return true
	}},
	{"drop-ones", "slice/shape/rank@drop-size-1-dims", func(op string, r *protocol.Answer) bool {
		// drops the size-1 dimensions of a non-empty slice result
		if op != casefile.OpSlice || !r.IsOutput() || out(r).Len() == 0 {
			return false
		}
		var shape []int
		for _, d := range out(r).Shape {
			if d != 1 {
				shape = append(shape, d)
			}
		}
		if len(shape) == out(r).Rank() {
			return false
		}
		o := out(r).Contiguous()
		t, err := engine.FromBytes(o.DType, shape, o.Bytes())
		if err != nil {
			return false
		}
		*r = protocol.Output(t)
		return true
	}},
	{"flip-first", "getitem/values", func(op string, r *protocol.Answer) bool {
		// flips bits of the first byte of a non-empty getitem result (a
		// common difference: most getitem cases have it; not the lowest
		// bit alone, which would turn a value into its neighbour, another
		// element an engine variant may read)
		if op != casefile.OpGetItem || !r.IsOutput() || out(r).Len() == 0 {
			return false
		}
		o := out(r).Contiguous()
		b := append([]byte(nil), o.Bytes()...)
		b[0] ^= 0xa5
		t, err := engine.FromBytes(o.DType, o.Shape, b)
		if err != nil {
			return false
		}
		*r = protocol.Output(t)
		return true
	}},
}

// buggyImpl is the in-process engine with some of the planted bugs.
type buggyImpl struct {
	impl.Engine
	bugs []plantedBug
}

func (b buggyImpl) Name() string { return "buggy" }

func (b buggyImpl) Run(ctx context.Context, m *casefile.Case) protocol.Answer {
	r := b.Engine.Run(ctx, m)
	for _, bug := range b.bugs {
		if bug.apply(m.Op, &r) {
			break
		}
	}
	return r
}

// fuzzBuggy fuzzes the implementation with every planted bug against the
// engine for a short while, saving in a new directory.
func fuzzBuggy(t *testing.T, known map[string]string) (*Summary, string) {
	t.Helper()
	out := t.TempDir()
	s, err := Run(context.Background(), Options{
		Impl: buggyImpl{bugs: plantedBugs}, Oracles: []impl.Impl{impl.Engine{}},
		Duration: 3 * time.Second, Seed: 7, Out: out, Workers: 8, ShrinkTime: time.Second,
		Ops: []string{casefile.OpSlice, casefile.OpGetItem}, KnownFailures: known,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range s.Groups {
		t.Logf("%s: %d (known %v, saved %v)", g.Signature, g.Count, g.Known, g.Finding != nil)
	}
	return s, out
}

// savedSignatures returns the saved findings by signature, checking that
// no cause is saved twice, nor a signature twice without a cause, and that
// each case file's provenance records its finding's signature.
func savedSignatures(t *testing.T, s *Summary) map[string][]Finding {
	t.Helper()
	saved := map[string][]Finding{}
	causes := map[causeKey]bool{}
	for _, f := range s.Findings {
		sig := f.Signature.String()
		key := causeKey{f.Case.Op, f.Cause}
		if f.Cause == "" {
			key.op = sig
		}
		if causes[key] {
			t.Errorf("%s (cause %q) saved twice", sig, f.Cause)
		}
		causes[key] = true
		saved[sig] = append(saved[sig], f)
		var doc struct {
			Provenance struct {
				Signature string `json:"signature"`
			} `json:"provenance"`
		}
		data, err := os.ReadFile(f.Path)
		if err == nil {
			err = jsonUnmarshal(data, &doc)
		}
		if err != nil {
			t.Fatalf("%s: %v", f.ID, err)
		}
		if doc.Provenance.Signature != sig {
			t.Errorf("%s: provenance signature %q, want %q", f.Path, doc.Provenance.Signature, sig)
		}
	}
	return saved
}

// replay checks one saved case file against im and returns its result.
func replay(t *testing.T, path string, im impl.Impl) check.Result {
	t.Helper()
	dir := t.TempDir()
	base := strings.TrimSuffix(filepath.Base(path), ".json")
	files, err := filepath.Glob(filepath.Join(filepath.Dir(path), base+".*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, filepath.Base(f)), data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	r, err := check.Run(context.Background(), os.DirFS(dir), im, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 1 {
		t.Fatalf("%s: %d results, want 1", path, len(r.Results))
	}
	return r.Results[0]
}

// TestOneCasePerSignature fuzzes an implementation with three planted
// bugs, one of them common, and checks that each bug is found, shrunk
// without drifting to another bug's signature, and saved: each saved case
// fails with its own bug alone (with its signature) and passes with each
// of the others alone; every disagreement is counted once, under a cause
// or in its signature's group.
func TestOneCasePerSignature(t *testing.T) {
	s, _ := fuzzBuggy(t, nil)
	saved := savedSignatures(t, s)
	if len(saved) != len(plantedBugs) {
		t.Fatalf("saved %d signatures, want %d: %v", len(saved), len(plantedBugs), s.Findings)
	}
	if s.Known != 0 {
		t.Errorf("%d known, want 0", s.Known)
	}
	counted := 0
	for _, g := range s.Groups {
		counted += g.Count
		if g.Finding != nil && g.Finding.Signature != g.Signature {
			t.Errorf("group %s: finding %v", g.Signature, g.Finding)
		}
	}
	for _, c := range s.Causes {
		counted += c.Count
	}
	if counted != s.Disagreed {
		t.Errorf("groups and causes count %d disagreements, summary %d", counted, s.Disagreed)
	}
	for _, bug := range plantedBugs {
		if len(saved[bug.sig]) == 0 {
			t.Errorf("%s: no case saved with signature %s", bug.name, bug.sig)
		}
		for _, f := range saved[bug.sig] {
			for _, other := range plantedBugs {
				r := replay(t, f.Path, buggyImpl{bugs: []plantedBug{other}})
				switch {
				case other.name == bug.name && (r.Status != check.Fail || r.Signature.String() != bug.sig):
					t.Errorf("%s: its case %s with its bug alone: %v %s, want a failure %s", bug.name, f.ID, r.Status, r.Signature, bug.sig)
				case other.name != bug.name && r.Status != check.Pass:
					t.Errorf("%s: its case %s with %s alone: %v %s, want a pass", bug.name, f.ID, other.name, r.Status, r.Signature)
				}
			}
		}
	}
}

// TestKnownSignaturesNotSaved lists two of the three bugs' signatures (and
// a case ID, which fuzz ignores) as known failures and checks that only
// the third bug is saved and counted as failing, the others as known.
func TestKnownSignaturesNotSaved(t *testing.T) {
	list, err := check.ReadKnownFailures([]byte(
		plantedBugs[0].sig + " # empty slices rejected\n" +
			plantedBugs[2].sig + "\n" +
			"seeds/some_case # a case ID\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, _ := fuzzBuggy(t, list)
	saved := savedSignatures(t, s)
	if _, ok := saved[plantedBugs[1].sig]; !ok || len(saved) != 1 {
		t.Errorf("saved %v, want only %s", s.Findings, plantedBugs[1].sig)
	}
	known := 0
	for _, g := range s.Groups {
		want := g.Signature.String() != plantedBugs[1].sig
		if g.Known != want {
			t.Errorf("%s: known %v, want %v", g.Signature, g.Known, want)
		}
		if g.Known {
			known += g.Count
			if g.Finding != nil {
				t.Errorf("%s: known but saved", g.Signature)
			}
		}
	}
	if known == 0 || known != s.Known {
		t.Errorf("groups count %d known disagreements, summary %d; want the same, > 0", known, s.Known)
	}
	if len(s.Groups) > 0 && s.Disagreed == 0 {
		t.Errorf("the unknown bug's disagreements are not failures: %s", s.Line())
	}
}

// TestKnownSignatures checks which known-failure entries fuzz takes: only
// those that are signatures.
func TestKnownSignatures(t *testing.T) {
	tests := []struct {
		entry string
		known bool
	}{
		{"getitem/values", true},                      // op/symptom
		{"slice/error-for-output/invalid_spec", true}, // op/symptom/detail
		{"seeds/tf_doc_1", false},                     // a case ID
		{"getitem/banana", false},                     // no such symptom
		{"getitem/values/a/b", false},                 // too many parts
	}
	for _, tt := range tests {
		got := knownSignatures(map[string]string{tt.entry: "r"})
		sig, _ := signature.Parse(tt.entry)
		if _, ok := got[sig]; ok != tt.known || len(got) != map[bool]int{true: 1}[tt.known] {
			t.Errorf("%q: known %v, want %v", tt.entry, got, tt.known)
		}
	}
}

// out returns the tensor of an answer that is an output.
func out(r *protocol.Answer) *engine.Tensor {
	t, _ := r.Tensor()
	return t
}

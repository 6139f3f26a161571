package conformtest

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/corpus"
)

// TestEngine runs the whole embedded corpus through the harness on the
// reference engine, one subtest per case: everything passes.
func TestEngine(t *testing.T) {
	t.Parallel()
	Run(t, engineAdapter{})
}

// loadedCase is one case of the embedded corpus, loaded once for the
// independent model below.
type loadedCase struct {
	id, op string
	c      *casefile.Case // nil when conform rejects the spec itself
	engine outcome        // the engine's result
}

var loadCorpus = sync.OnceValues(func() ([]loadedCase, error) {
	entries, err := corpus.Entries(cases.FS)
	if err != nil {
		return nil, err
	}
	fsys := corpus.Open(cases.FS)
	var out []loadedCase
	for _, e := range entries {
		m, err := check.LoadCase(fsys, e)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", e.ID, err)
		}
		lc := loadedCase{id: e.ID, op: m.Op}
		if c := m; c.Err == nil {
			lc.c, lc.engine = c, outcomeOf(c.Eval())
		}
		out = append(out, lc)
	}
	return out, nil
})

// outcome is what one call returned, in comparable form.
type outcome struct {
	Kind  engine.ErrorKind
	DType engine.DType
	Shape []int
	Data  []byte
	Other string // "panic", "no kind", "nil"
}

func (o outcome) equal(p outcome) bool {
	return o.Kind == p.Kind && o.DType == p.DType && slices.Equal(o.Shape, p.Shape) && bytes.Equal(o.Data, p.Data) && o.Other == p.Other
}

func outcomeOf(out *engine.Tensor, err error) outcome {
	switch {
	case err != nil && engine.KindOf(err) == "":
		return outcome{Other: "no kind"}
	case err != nil:
		return outcome{Kind: engine.KindOf(err)}
	case out == nil:
		return outcome{Other: "nil"}
	}
	return outcome{DType: out.DType, Shape: out.Shape, Data: out.Bytes()}
}

// callDirectly calls im's method for c with the arguments the harness
// documents (contiguous inputs, strides filled in, the parsed index),
// without the harness. ok is false if im does not implement the op.
func callDirectly(im any, c *casefile.Case) (o outcome, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			o, ok = outcome{Other: "panic"}, true
		}
	}()
	if !c.Def.Implements(im) {
		return outcome{}, false
	}
	if s, ok := c.Spec.(engine.GetItemSpec); ok && s.ParseErr != nil {
		return outcomeOf(nil, s.ParseErr), true
	}
	// The loaded cases are shared by parallel tests: call on a copy.
	direct := *c
	direct.Inputs = make(map[string]*engine.Tensor, len(c.Inputs))
	for name, t := range c.Inputs {
		direct.Inputs[name] = t.Contiguous()
	}
	out, err := c.Def.Call(im, &direct)
	return outcomeOf(out, err), true
}

// modelFailures computes, without the harness, the cases im should fail:
// those where calling im directly and evaluating the case on the engine
// disagree. (TestEngine shows that the engine passes every case, so these
// are exactly the cases where im disagrees with the expectation.) Cases
// whose spec conform rejects itself never reach im.
func modelFailures(t *testing.T, im any) (failing []string, ran int) {
	t.Helper()
	loaded, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	for _, lc := range loaded {
		if lc.c == nil {
			if implements(im, lc.op) {
				ran++ // conform rejects the spec: the case passes
			}
			continue
		}
		got, ok := callDirectly(im, lc.c)
		if !ok {
			continue
		}
		ran++
		if !lc.engine.equal(got) {
			failing = append(failing, lc.id)
		}
	}
	return failing, ran
}

func implements(im any, op string) bool {
	d, ok := casefile.Lookup(op)
	return ok && d.Implements(im)
}

// sliceCorpus is the golden slice cases alone, for the tests that need
// one op only.
var sliceCorpus = sync.OnceValue(func() fstest.MapFS {
	fsys := fstest.MapFS{}
	sums := map[string]string{}
	for _, name := range []string{"slice.jsonl", corpus.PackName} {
		data, err := fs.ReadFile(cases.FS, "golden/"+name)
		if err != nil {
			panic(err)
		}
		fsys["golden/"+name] = &fstest.MapFile{Data: data}
		sums[name] = corpus.Sum(data)
	}
	// A directory with a pack carries its MANIFEST.
	fsys["golden/"+corpus.ManifestName] = &fstest.MapFile{Data: corpus.FormatManifest(sums)}
	return fsys
})

func idsWith(s *check.Summary, status check.Status) []string {
	var ids []string
	for _, r := range s.Results {
		if r.Status == status {
			ids = append(ids, r.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// TestBrokenImplementations checks that implementations with one bug each
// fail exactly the cases where they disagree with the engine, computed
// independently of the harness, and that the failures say why.
func TestBrokenImplementations(t *testing.T) {
	tests := []struct {
		rule   string
		impl   any
		buggy  bool   // the implementation fails some cases (not all)
		detail string // every failure's detail contains this
	}{
		{"a size of -1 runs to the end of the dimension, not one short", shortSlicer{}, true, ""},
		{"shrink_axis_mask shrinks whatever the stride", shrinkStrideSlicer{}, true, ""},
		{"negative gather indices are out of range, never wrapped", wrappingGatherer{}, true, ""},
		{"a result keeps the input's byte order", nativeOrderGetItemer{}, true, "dtype <"},
		{"a rejected case is an error with a kind", kindlessSlicer{}, true, "error without a kind: slice: "},
		{"a panic fails the case that panicked, and only it", panickySlicer{}, true, "panicked: runtime error: integer divide by zero"},
		{"a strided view is as good as a contiguous result", viewSlicer{}, false, ""},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%T", tt.impl), func(t *testing.T) {
			t.Parallel()
			want, ran := modelFailures(t, tt.impl)
			if ran == 0 {
				t.Fatalf("%s: the model ran no case", tt.rule)
			}
			if tt.buggy != (len(want) > 0) || len(want) == ran {
				t.Fatalf("%s: the model fails %d of %d cases", tt.rule, len(want), ran)
			}
			t.Logf("%s: %d of %d cases fail", tt.rule, len(want), ran)
			s, err := run(tt.impl, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, idsWith(s, check.Fail)); diff != "" {
				t.Errorf("%s: failing cases (-model +harness):\n%s", tt.rule, diff)
			}
			if s.Passed+s.Failed != ran {
				t.Errorf("%s: %s, but the model ran %d cases", tt.rule, s.Line(), ran)
			}
			for _, r := range s.Results {
				if r.Status == check.Fail && (!strings.Contains(r.Detail, tt.detail) || r.Source == "") {
					t.Errorf("%s: %s: detail %q, source %q; want the detail to contain %q and a source", tt.rule, r.ID, r.Detail, r.Source, tt.detail)
				}
			}
			if err := summaryError(s); (err == nil) != (len(want) == 0) {
				t.Errorf("%s: Check would return %v with %d failing cases", tt.rule, err, len(want))
			}
		})
	}
}

// TestPanicReport checks that a panic's report shows the implementation's
// frames, not the runtime's or the harness's.
func TestPanicReport(t *testing.T) {
	t.Parallel()
	s, err := run(panickySlicer{}, []Option{Cases(sliceCorpus())})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range s.Results {
		if r.Status != check.Fail {
			continue
		}
		if !strings.Contains(r.Detail, "conformtest.panickySlicer.Slice") || !strings.Contains(r.Detail, "impls_test.go:") ||
			strings.Contains(r.Detail, "runtime.") || strings.Contains(r.Detail, "(*adapter)") {
			t.Errorf("%s: the panic report should hold the implementation's frames only:\n%s", r.ID, r.Detail)
		}
		return
	}
	t.Fatal("no case panicked")
}

// TestCheckError checks the summary Check returns: the summary line, the
// causes of the failures (shortSlicer's one bug: a size of -1 stops one
// short), then the first failures with their IDs, sources and cause, and
// how many more.
func TestCheckError(t *testing.T) {
	t.Parallel()
	s, err := run(shortSlicer{}, []Option{Cases(sliceCorpus())})
	if err != nil {
		t.Fatal(err)
	}
	failing := idsWith(s, check.Fail)
	if len(failing) <= maxListed {
		t.Fatalf("need more than %d failures, have %d", maxListed, len(failing))
	}
	lines := strings.Split(Check(shortSlicer{}, Cases(sliceCorpus())).Error(), "\n")
	var want []string
	want = append(want, "conformtest: "+s.Line(), "\tfailures by cause (1):",
		fmt.Sprintf("\t\tcause slice/size-minus-one — slice/shape/dims: %d failing cases; ", len(failing)))
	for _, id := range failing[:maxListed] {
		want = append(want, "\t"+id+": ", "\t    case: slice ", "\t    signature: slice/", "\t    cause: slice/size-minus-one")
	}
	want = append(want, fmt.Sprintf("\t... and %d more failures", len(failing)-maxListed))
	if len(lines) != len(want) {
		t.Fatalf("Check's error has %d lines, want %d:\n%s", len(lines), len(want), strings.Join(lines, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("line %d is %q, want it to start with %q", i, lines[i], want[i])
		}
		if i > 2 && i <= 2+4*maxListed && i%4 == 3 && !strings.HasSuffix(lines[i], "(expected: numpy 1.24.2)") {
			t.Errorf("line %d %q does not name the source of the expected value", i, lines[i])
		}
	}
}

// TestCheckCaseErrors checks that Check's error wraps one *CaseError per
// failed case, in the corpus's order, each with its ID, signature and
// cause (the rule that explains shortSlicer's failures).
func TestCheckCaseErrors(t *testing.T) {
	t.Parallel()
	s, err := run(shortSlicer{}, []Option{Cases(sliceCorpus())})
	if err != nil {
		t.Fatal(err)
	}
	var want []*CaseError
	for _, r := range s.Results {
		if r.Status == check.Fail {
			sig := ""
			if !r.Signature.IsZero() {
				sig = r.Signature.String()
			}
			want = append(want, &CaseError{ID: r.ID, Signature: sig, Detail: r.Detail, Source: r.Source, Case: r.Case,
				Cause: engine.RuleSliceSizeToEnd})
		}
	}
	err = Check(shortSlicer{}, Cases(sliceCorpus()))
	var first *CaseError
	if !errors.As(err, &first) {
		t.Fatalf("errors.As finds no *CaseError in %T", err)
	}
	if first.ID != want[0].ID || first.Signature == "" {
		t.Errorf("the first *CaseError is %s (signature %q), want %s with a signature", first.ID, first.Signature, want[0].ID)
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		t.Fatalf("Check's error %T has no Unwrap() []error", err)
	}
	var got []*CaseError
	for _, e := range joined.Unwrap() {
		var ce *CaseError
		if errors.As(e, &ce) {
			got = append(got, ce)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the *CaseErrors of Check's error (-want +got):\n%s", diff)
	}
}

// TestSkips checks that the ops an implementation lacks, the ops Ops
// leaves out and the cases it reports as unsupported are skipped with the
// reason, and that skips do not fail the run.
func TestSkips(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rule string
		impl any
		opts []Option
		// runs reports whether a case runs (and passes); c is nil for a
		// case whose spec conform rejects itself.
		runs   func(op string, c *casefile.Case) bool
		reason string // every skip's reason contains this
	}{
		{"an op whose interface is not implemented is skipped", sliceOnly{}, nil,
			func(op string, c *casefile.Case) bool { return op == "slice" }, "conformtest.sliceOnly does not implement"},
		{"an op left out by Ops is skipped", engineAdapter{}, []Option{Ops("getitem"), Ops("gather_nd")},
			func(op string, c *casefile.Case) bool { return op == "getitem" || op == "gather_nd" }, "is not selected by conformtest.Ops"},
		{"an error wrapping errors.ErrUnsupported skips the case", float64Only{}, nil,
			func(op string, c *casefile.Case) bool {
				return op == "slice" && c.Inputs["x"].DType == engine.Float64Type
			}, ""},
	}
	loaded, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		s, err := run(tt.impl, tt.opts)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, lc := range loaded {
			if tt.runs(lc.op, lc.c) {
				want = append(want, lc.id)
			}
		}
		for _, r := range s.Results {
			if r.Status == check.Skip && !strings.Contains(r.Detail, tt.reason) {
				t.Errorf("%s: %s skipped for %q, want a reason containing %q", tt.rule, r.ID, r.Detail, tt.reason)
			}
		}
		if diff := cmp.Diff(want, idsWith(s, check.Pass)); diff != "" {
			t.Errorf("%s: passing cases (-want +got):\n%s", tt.rule, diff)
		}
		if s.Failed != 0 || s.Passed == 0 || s.Passed+s.Skipped != len(loaded) {
			t.Errorf("%s: %s", tt.rule, s.Line())
		}
		if err := summaryError(s); err != nil {
			t.Errorf("%s: Check would return %v", tt.rule, err)
		}
	}
}

// TestKnownFailures checks the known-failures list: a listed failure
// passes, a listed pass fails as an unexpected pass, an unknown ID is
// only a warning, and the file form reads like the map form.
func TestKnownFailures(t *testing.T) {
	t.Parallel()
	slices := Cases(sliceCorpus())
	base, err := run(shortSlicer{}, []Option{slices})
	if err != nil {
		t.Fatal(err)
	}
	failing, passing := idsWith(base, check.Fail), idsWith(base, check.Pass)
	all := map[string]string{}
	for _, id := range failing {
		all[id] = "size -1 stops short"
	}
	dir := t.TempDir()
	listFile := filepath.Join(dir, "known.txt")
	var list bytes.Buffer
	list.WriteString("# shortSlicer's known failures\n\n")
	for _, id := range failing {
		fmt.Fprintf(&list, "%s  # size -1 stops short\n", id)
	}
	if err := os.WriteFile(listFile, list.Bytes(), 0o666); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		rule       string
		opts       []Option
		wantFailed []string
		wantXFail  int
		wantErr    string // Check's error contains this ("" for nil)
	}{
		{"listing every failing case makes the run pass",
			[]Option{KnownFailures(all)}, nil, len(failing), ""},
		{"the list may come from a file, with '#' reasons and comments",
			[]Option{KnownFailuresFile(listFile)}, nil, len(failing), ""},
		{"listing one failing case passes that case only",
			[]Option{KnownFailures(map[string]string{failing[0]: "known"})}, failing[1:], 1, failing[1] + ": "},
		{"listing a passing case fails it as an unexpected pass",
			[]Option{KnownFailures(all), KnownFailures(map[string]string{passing[0]: "thought broken"})}, []string{passing[0]}, len(failing),
			passing[0] + ": unexpected pass: the case is listed as a known failure (thought broken); remove it from the list"},
		{"an ID that is not in the corpus is a warning, not a failure",
			[]Option{KnownFailures(all), KnownFailures(map[string]string{"slice/nope": "x"})}, nil, len(failing), ""},
	}
	for _, tt := range tests {
		s, err := run(shortSlicer{}, append([]Option{slices}, tt.opts...))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.wantFailed, idsWith(s, check.Fail)); diff != "" {
			t.Errorf("%s: failing cases (-want +got):\n%s", tt.rule, diff)
		}
		if got := len(idsWith(s, check.XFail)); got != tt.wantXFail {
			t.Errorf("%s: %d known failures, want %d", tt.rule, got, tt.wantXFail)
		}
		switch err := summaryError(s); {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: Check = %v, want nil", tt.rule, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: Check = %v, want an error containing %q", tt.rule, err, tt.wantErr)
		}
	}
}

// TestBadSetup checks that unusable implementations and options are
// reported at once.
func TestBadSetup(t *testing.T) {
	tests := []struct {
		rule string
		impl any
		opts []Option
		want string
	}{
		{"a nil implementation is an error", nil, nil, "the implementation is nil"},
		{"an implementation of no op is an error", struct{}{}, nil, "struct {} has none of the methods of the ops"},
		{"a method with another signature does not count", intSlicer{}, nil, "has none of the methods"},
		{"Ops names known ops only", engineAdapter{}, []Option{Ops("slice", "gather_all")}, `unknown op "gather_all"`},
		{"Ops names at least one op", engineAdapter{}, []Option{Ops()}, "Ops() names no op"},
		{"a missing known-failures file is an error", engineAdapter{}, []Option{KnownFailuresFile(filepath.Join(t.TempDir(), "none"))}, "no such file"},
		{"Cases needs a file system", engineAdapter{}, []Option{Cases(nil)}, "Cases(nil)"},
	}
	for _, tt := range tests {
		err := Check(tt.impl, tt.opts...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Check = %v, want an error containing %q", tt.rule, err, tt.want)
		}
	}
}

// intSlicer's Slice has the wrong parameter types for Slicer.
type intSlicer struct{}

func (intSlicer) Slice(x *engine.Tensor, begin, size []int) (*engine.Tensor, error) { return x, nil }

// TestOpsDocNamesEveryOp checks that the documentation of Ops names every
// op a case can have, so that it cannot list fewer again.
func TestOpsDocNamesEveryOp(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "conformtest.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Name.Name == "Ops" && fn.Doc != nil {
			text = fn.Doc.Text()
		}
	}
	for _, op := range casefile.OpNames() {
		if !strings.Contains(text, `"`+op+`"`) {
			t.Errorf("the documentation of Ops does not name %q", op)
		}
	}
}

// Package conformtest runs conform's case corpus against a Go
// implementation of tensor slicing and gathering, from the
// implementation's own `go test`.
//
// An implementation is any value that has one or more of the ops'
// methods — one tiny interface per op, as in gonum's testlapack, in the
// order of the ops (casefile.OpNames): GetItemer, StridedSlicer, Slicer,
// GatherNDer, ONNXSlicer, ONNXGatherNDer, Taker, TakeAlongAxiser,
// Gatherer, ONNXGatherer and ONNXGatherElementser (each an alias of the
// interface the op's definition in casefile declares). The methods work
// on conform's own tensor
// type, *engine.Tensor (a dtype, a shape, byte strides and the raw bytes),
// so a library adapts its tensors in a few lines: a tensor comes in, the
// library's op runs, and its result goes back out as an *engine.Tensor of
// the input's dtype (for getitem, the dtype NumPy gives: see GetItemer).
// Ops whose interface the implementation does not satisfy are skipped,
// with the reason.
//
// Wire it into a library's tests with Run, one subtest per case:
//
//	func TestConformance(t *testing.T) {
//		conformtest.Run(t, myAdapter{})
//	}
//
// The corpus is the one embedded in conform (the seed cases from the
// documents conform was built from and the golden corpus whose expected
// values NumPy produced: about 17,700 cases, every op); for an
// in-process implementation the whole run takes about a second.
// Subtests are grouped by op and named by case ID
// ("TestConformance/slice/slice/00042", "TestConformance/getitem/seeds/tf_doc_1"),
// so `go test -run 'TestConformance/^slice$'` runs exactly the slice cases
// (not strided_slice or onnx_slice), and the last line Run logs is the
// summary "conformtest: N passed, N failed, N skipped". A failing case
// names the source of the expected value and the first differing element
// by its N-D index. When cases failed, Run's summary first groups them by
// cause, one line each, as `conform check` does: the rule of the
// reference semantics that explains a group of failures, with the op,
// the symptom and the count ("cause slice/size-minus-one —
// slice/shape/dims: 856 failing cases; 856 of 1,004 cases exercising the
// rule fail so, 0 of 596 without"), and the failures no rule explains by
// op and symptom ("symptom take/values: 3 failing cases that no rule
// explains"). Check does the same without a *testing.T and returns an
// error summarising the run, like testing/fstest.TestFS: the summary
// line, the causes, then the first failures; it joins one *CaseError per
// failed case, so a caller can take each failure's case ID, signature
// and cause with errors.As.
//
// # What is compared
//
// Results are compared exactly, as by `conform check`: the dtype (byte
// order included: slicing a ">f4" tensor gives a ">f4" tensor, except a
// getitem scalar, see GetItemer), the shape,
// and the raw bytes of every element in row-major order (NaN payloads and
// -0 included). A result may be any valid view (strides and offset are
// free); it is read in row-major order.
//
// A case the implementation rejects is reported by returning an error of
// the right kind — engine.InvalidSpec, engine.OutOfRange or
// engine.BadInput — and only the kind is compared, never the message. The
// harness takes the kind with engine.KindOf, so return an *engine.Error
// (engine.Errorf) or an error wrapping one; an error without a kind fails
// the case ("error without a kind"). An error wrapping
// errors.ErrUnsupported skips the case instead (for example a dtype the
// library has no equivalent of), with the error's text as the reason.
//
// A panic in the implementation fails that case only, with the panic
// value and the stack of the implementation's frames; so does a nil
// result without an error, or a result tensor whose strides, offset and
// data do not fit together. A case that hangs hangs the test: go test's
// -timeout applies.
//
// # What the implementation receives
//
// Inputs are C-contiguous tensors (Offset 0, Data holding exactly the
// elements in row-major order) of any dtype the corpus has: bool, signed
// and unsigned integers of 1-8 bytes, float16/32/64, complex64/128 and
// fixed-width byte ("S") and unicode ("U") strings, little- or big-endian,
// rank 0 to 32, zero-size dimensions included. Each call gets inputs of
// its own, which the result may share memory with. The methods are never
// called concurrently.
//
// conform turns each case's spec into the method's arguments. Where that
// step itself rejects the case — a getitem subscript that does not parse,
// a mask list with an entry other than 0 or 1 — the result is conform's
// error and the implementation is not called, exactly as the reference
// engine would report it.
//
// # Converting tensors
//
// Values and FromValues convert between conform's tensors and Go slices
// of every element type (bool, the sized integers, floats, complex), in
// row-major order, whatever the tensor's strides and byte order; Strings
// and FromStrings do the same for S and U tensors, FromFloat16Bits for
// float16.
//
// # Serving the adapter to the conform command
//
// Serve runs the same adapter as a conform/1 protocol child, so that
// `conform check --impl ./mychild`, `conform fuzz --impl ./mychild` and
// `conform report --impl ./mychild` put the library under test too.
//
// # Options
//
// KnownFailures and KnownFailuresFile list the cases an implementation is
// known to fail (they pass, and a listed case that passes fails as an
// unexpected pass, so the list shrinks as the implementation improves);
// Cases runs another corpus, such as the findings `conform fuzz` saves;
// Ops restricts the run to some ops. The package registers no flags.
package conformtest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"testing"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/corpus"
)

// An Option configures Run and Check.
type Option interface {
	apply(*config) error
}

type optionFunc func(*config) error

func (f optionFunc) apply(c *config) error { return f(c) }

type config struct {
	fsys    fs.FS
	known   map[string]string
	crashes bool            // signature entries absorb crashes (AllowKnownCrashes)
	ops     map[string]bool // nil: every op
	// name and version identify the implementation (Named); "" for the
	// defaults.
	name, version string
}

// Named gives the name and version of the implementation, which Serve
// says in its hello, so that conform's reports head its column with
// them: the library's name and its version, "gorgonia" and "v0.9.24".
// Without it the name is the implementation's Go type and the version
// "conformtest".
func Named(name, version string) Option {
	return optionFunc(func(c *config) error {
		if name == "" {
			return errors.New("Named() gives no name")
		}
		c.name, c.version = name, version
		return nil
	})
}

// AllowKnownCrashes lets a signature entry of the known failures
// ("slice/crash/panic") absorb crashes: panics and errors without a kind.
// Without it such a crash fails, like `conform check` without
// --allow-known-crashes, so that an implementation that panics on every
// case cannot pass through one signature entry.
func AllowKnownCrashes() Option {
	return optionFunc(func(c *config) error {
		c.crashes = true
		return nil
	})
}

// KnownFailures lists the IDs of cases the implementation is known to
// fail, each with the reason. A listed case that fails counts as passed;
// a listed case that passes fails, as an unexpected pass. IDs that are
// not in the corpus do not fail the run: Run logs a warning for each, and
// Check lists them when it returns an error. Several KnownFailures and
// KnownFailuresFile options add up.
func KnownFailures(known map[string]string) Option {
	return optionFunc(func(c *config) error {
		for id, reason := range known {
			c.known[id] = reason
		}
		return nil
	})
}

// KnownFailuresFile reads a known-failures list from a file, in the format
// of `conform check --known-failures`: one case ID per line, optionally
// followed by "# reason"; blank lines and lines starting with '#' are
// ignored. See KnownFailures.
func KnownFailuresFile(path string) Option {
	return optionFunc(func(c *config) error {
		known, err := check.ReadKnownFailuresFile(path, 0)
		if err != nil {
			return err
		}
		for id, reason := range known {
			c.known[id] = reason
		}
		return nil
	})
}

// Cases runs the corpus in fsys instead of the one embedded in conform:
// a directory of case files (*.json, inputs and expected outputs beside
// them) and case lists (*.jsonl), such as a directory written by
// `conform fuzz --out DIR`, opened with os.DirFS(DIR). A MANIFEST in it
// is verified first.
func Cases(fsys fs.FS) Option {
	return optionFunc(func(c *config) error {
		if fsys == nil {
			return errors.New("Cases(nil)")
		}
		c.fsys = fsys
		return nil
	})
}

// Ops restricts the run to the named ops, the names case files use (see
// casefile.OpNames): "getitem", "take", "take_along_axis",
// "strided_slice", "slice", "gather", "gather_nd", "onnx_slice",
// "onnx_gather", "onnx_gather_elements" and "onnx_gather_nd". The cases
// of other ops are skipped. Several Ops options add up.
func Ops(ops ...string) Option {
	return optionFunc(func(c *config) error {
		if len(ops) == 0 {
			return errors.New("Ops() names no op")
		}
		if c.ops == nil {
			c.ops = map[string]bool{}
		}
		for _, op := range ops {
			if _, ok := casefile.Lookup(op); !ok {
				return fmt.Errorf("Ops: unknown op %q (the ops are %s)", op, strings.Join(casefile.OpNames(), ", "))
			}
			c.ops[op] = true
		}
		return nil
	})
}

// setup applies the options and adapts the implementation.
func setup(implementation any, opts []Option) (*config, *adapter, error) {
	c := &config{fsys: cases.FS, known: map[string]string{}}
	for _, o := range opts {
		if o == nil {
			continue
		}
		if err := o.apply(c); err != nil {
			return nil, nil, fmt.Errorf("conformtest: %v", err)
		}
	}
	a, err := newAdapter(implementation, c.ops)
	if err != nil {
		return nil, nil, err
	}
	if c.name != "" {
		a.name = c.name
	}
	return c, a, nil
}

// Run runs every case of the corpus against implementation, each as a
// subtest of t named by the case ID. A failing case fails its subtest
// with the difference and the source of the expected value; a skipped
// case (an op the implementation lacks or the harness has no interface
// for, an op not selected by Ops, a case without an expectation,
// errors.ErrUnsupported) skips its subtest with the reason; a known failure passes with a log line. Files of the
// corpus that do not match its MANIFEST fail t itself. At the end Run
// logs the causes of the failures, one line each, then the summary line.
//
// Run fails t at once if implementation satisfies none of GetItemer,
// StridedSlicer, Slicer, GatherNDer, ONNXSlicer and ONNXGatherNDer, or
// an option is invalid.
func Run(t *testing.T, implementation any, opts ...Option) {
	t.Helper()
	c, a, err := setup(implementation, opts)
	if err != nil {
		t.Fatal(err)
	}
	problems, total, err := corpus.VerifyManifest(c.fsys)
	if err != nil {
		t.Fatalf("conformtest: reading the corpus: %v", err)
	}
	for _, p := range problems {
		t.Errorf("corpus integrity: %s (does not match the MANIFEST)", p)
	}
	if _, line := (&check.Summary{Integrity: problems, IntegrityTotal: total}).MoreIntegrity(); line != "" {
		t.Errorf("corpus integrity: %s", line)
	}
	entries, err := corpus.Entries(c.fsys)
	if err != nil {
		t.Fatalf("conformtest: reading the corpus: %v", err)
	}
	fsys := corpus.Open(c.fsys)
	seen := make(map[string]bool, len(entries))
	var summary check.Summary
	byOp := map[string][]corpus.Entry{}
	var ops []string
	for _, e := range entries {
		op := e.Op()
		if op == "" {
			op = "unreadable" // fails under this name
		}
		if byOp[op] == nil {
			ops = append(ops, op)
		}
		byOp[op] = append(byOp[op], e)
	}
	sort.Strings(ops)
	for _, op := range ops {
		t.Run(op, func(t *testing.T) {
			for _, e := range byOp[op] {
				seen[e.ID] = true
				t.Run(e.ID, func(t *testing.T) {
					r := check.One(context.Background(), fsys, e, a)
					if !r.Signature.IsZero() {
						for _, form := range r.Signature.Forms() {
							seen[form.String()] = true
						}
					}
					r = check.ApplyKnownFailures(r, c.known, c.crashes)
					summary.Add(r)
					switch r.Status {
					case check.Fail:
						t.Error(describe(r))
					case check.Skip:
						t.Skip(r.Detail)
					case check.XFail:
						t.Log(r.Detail)
					}
				})
			}
		})
	}
	for _, id := range unknownIDs(c.known, seen) {
		t.Logf("warning: known failure %s is neither a case of this corpus nor the signature of a failure", id)
	}
	if summary.Failed > 0 {
		if err := summary.FindCauses(c.fsys); err != nil {
			t.Errorf("conformtest: finding the causes of the failures: %v", err)
		}
	}
	for _, line := range causeLines(&summary) {
		t.Log(line)
	}
	t.Logf("conformtest: %s", summary.Line())
}

// causeLines returns the causes of the failures of s (found by
// check.Summary.FindCauses), a heading and one line each: "cause RULE —
// OP/SYMPTOM: N failing cases; ..." for a rule that explains failures,
// "symptom OP/SYMPTOM: N failing cases that no rule explains" for the
// rest; none if no cause was found.
func causeLines(s *check.Summary) []string {
	if len(s.Causes) == 0 {
		return nil
	}
	lines := []string{fmt.Sprintf("conformtest: failures by cause (%d):", len(s.Causes))}
	for _, c := range s.Causes {
		what := "cause"
		if !c.Explained() {
			what = "symptom"
		}
		lines = append(lines, fmt.Sprintf("\t%s %s (first: %s)", what, c, c.Cases[0]))
	}
	return lines
}

// Check runs every case of the corpus against implementation, as Run
// does, and returns nil if every case passed, failed as a known failure
// or was skipped, and the corpus matched its MANIFEST. Otherwise the
// error's first line is the summary "N passed, N failed, N skipped", and
// the following lines name the corpus files that do not match the
// MANIFEST, the causes of the failures (as Run logs them), and the first
// ten failures, each with its case ID, the difference, the source of the
// expected value and its cause.
//
// The error joins one *CaseError per failed case, as errors.Join would
// (its Unwrap() []error lists them, in the corpus's order): errors.As
// finds the first, and a caller can go through them all, e.g. to compare
// the signatures of a run with those of the last one, as
// testing/fstest.TestFS's error does.
func Check(implementation any, opts ...Option) error {
	s, err := run(implementation, opts)
	if err != nil {
		return err
	}
	return summaryError(s)
}

// run is Check without the summary: it runs the corpus and, if a case
// failed, finds the causes of the failures (check.Summary.FindCauses).
func run(implementation any, opts []Option) (*check.Summary, error) {
	c, a, err := setup(implementation, opts)
	if err != nil {
		return nil, err
	}
	s, err := check.Run(context.Background(), c.fsys, a, check.Options{KnownFailures: c.known, AllowKnownCrashes: c.crashes, Workers: 1})
	if err != nil {
		return nil, fmt.Errorf("conformtest: reading the corpus: %v", err)
	}
	if s.Failed > 0 {
		if err := s.FindCauses(c.fsys); err != nil {
			return nil, fmt.Errorf("conformtest: finding the causes of the failures: %v", err)
		}
	}
	return s, nil
}

// maxListed bounds the failures the text of Check's error lists.
const maxListed = 10

// A CaseError is the failure of one case, as Check returns it (see
// Check).
type CaseError struct {
	// ID is the case's ID, e.g. "golden/slice/00015".
	ID string
	// Signature names the kind of failure, "op/symptom" or
	// "op/symptom/detail" with an optional "@variant" (see "conform
	// check"); empty when the case failed before the implementation
	// answered (its inputs could not be read) or as an unexpected pass.
	Signature string
	// Detail says what differs: the first differing element by its N-D
	// index, or the error kinds.
	Detail string
	// Source names where the expected value comes from, e.g.
	// "numpy 1.24.2".
	Source string
	// Case describes the case in one line: op, spec, inputs' dtypes and
	// shapes.
	Case string
	// Cause is the rule of the reference semantics that explains the
	// failure, with the other failures it explains (see "Causes first"
	// in conform's docs/commands.md); empty when no rule explains it.
	Cause engine.RuleID
}

// Error returns the case ID and the failure, as Run reports it: the
// difference with the source of the expected value, then the case and
// the signature on lines of their own.
func (e *CaseError) Error() string { return e.ID + ": " + e.describe() }

// describe renders the failure without the case ID: the difference and
// where the expected value comes from, the case and the signature.
func (e *CaseError) describe() string {
	text := e.Detail
	if e.Source != "" {
		text += " (expected: " + e.Source + ")"
	}
	if e.Case != "" {
		text += "\n    case: " + e.Case
	}
	if e.Signature != "" {
		text += "\n    signature: " + e.Signature
	}
	if e.Cause != "" {
		text += "\n    cause: " + string(e.Cause)
	}
	return text
}

// caseError returns the failure r as a *CaseError.
func caseError(r check.Result) *CaseError {
	e := &CaseError{ID: r.ID, Detail: r.Detail, Source: r.Source, Case: r.Case}
	if !r.Signature.IsZero() {
		e.Signature = r.Signature.String()
	}
	if r.Cause != nil {
		e.Cause = r.Cause.Rule
	}
	return e
}

// checkError is the error of Check: its text is the summary and the
// first failures, and it wraps every *CaseError.
type checkError struct {
	text string
	errs []error
}

func (e *checkError) Error() string   { return e.text }
func (e *checkError) Unwrap() []error { return e.errs }

// summaryError returns the error of Check for the summary s, or nil if
// the run passed.
func summaryError(s *check.Summary) error {
	if s.OK() {
		return nil
	}
	var errs []error
	for _, r := range s.Results {
		if r.Status == check.Fail {
			errs = append(errs, caseError(r))
		}
	}
	var b strings.Builder
	b.WriteString("conformtest: " + s.Line())
	if s.KnownFailures+s.UnexpectedPasses > 0 {
		fmt.Fprintf(&b, " (%d known failures, %d unexpected passes)", s.KnownFailures, s.UnexpectedPasses)
	}
	for _, p := range s.Integrity {
		fmt.Fprintf(&b, "\n\tcorpus integrity: %s (does not match the MANIFEST)", p)
	}
	if _, line := s.MoreIntegrity(); line != "" {
		fmt.Fprintf(&b, "\n\tcorpus integrity: %s", line)
	}
	for _, line := range causeLines(s) {
		fmt.Fprintf(&b, "\n\t%s", strings.TrimPrefix(line, "conformtest: "))
	}
	listed := 0
	for _, r := range s.Results {
		if r.Status != check.Fail {
			continue
		}
		if listed == maxListed {
			fmt.Fprintf(&b, "\n\t... and %d more failures", s.Failed-listed)
			break
		}
		listed++
		fmt.Fprintf(&b, "\n\t%s: %s", r.ID, strings.ReplaceAll(describe(r), "\n", "\n\t"))
	}
	for _, id := range s.UnknownIDs {
		fmt.Fprintf(&b, "\n\twarning: known failure %s is neither a case of this corpus nor the signature of a failure", id)
	}
	return &checkError{b.String(), errs}
}

// describe renders a failure: the difference and where the expected
// value comes from, the case and the signature.
func describe(r check.Result) string { return caseError(r).describe() }

func unknownIDs(known map[string]string, seen map[string]bool) []string {
	var ids []string
	for id := range known {
		if !seen[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids
}

// Package check runs a corpus of cases with expectations against an
// implementation and reports, per case, pass, fail or skip.
package check

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/npy"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/compare"
	"github.com/conformsuite/conform/internal/corpus"
)

// Status is the outcome of one case.
type Status string

// The outcomes.
const (
	Pass Status = "pass"
	Fail Status = "fail"
	Skip Status = "skip"
)

// Result is the outcome of one case, with the reason for a failure or
// skip.
type Result struct {
	ID     string // the case file's path without ".json"
	Status Status
	Source string // where the expected value comes from
	Detail string
}

// Summary collects the results of a run.
type Summary struct {
	Passed, Failed, Skipped int
	Results                 []Result
	// Integrity lists the corpus files that do not match its manifest.
	Integrity []corpus.ManifestProblem
}

// OK reports whether every case passed or was skipped and the corpus
// matched its manifest.
func (s *Summary) OK() bool { return s.Failed == 0 && len(s.Integrity) == 0 }

// Line returns the summary line "N passed, N failed, N skipped".
func (s *Summary) Line() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", s.Passed, s.Failed, s.Skipped)
}

func (s *Summary) add(r Result) {
	switch r.Status {
	case Pass:
		s.Passed++
	case Fail:
		s.Failed++
	case Skip:
		s.Skipped++
	}
	s.Results = append(s.Results, r)
}

// Evaluator evaluates a case; the reference engine's is (*casefile.Case).Eval.
type Evaluator func(*casefile.Case) (*engine.Tensor, error)

// Expectation is the "expect" object of a case file: either an output
// file or an error kind, and where the expected value comes from.
type Expectation struct {
	Output string `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
	Source string `json:"source"`
}

// Run checks every case under fsys (see corpus.Entries) with eval, after
// verifying the checksum manifests the corpus carries.
func Run(fsys fs.FS, eval Evaluator) (*Summary, error) {
	problems, err := corpus.VerifyManifest(fsys)
	if err != nil {
		return nil, err
	}
	entries, err := corpus.Entries(fsys)
	if err != nil {
		return nil, err
	}
	s := &Summary{Integrity: problems}
	fsys = corpus.Open(fsys)
	for _, e := range entries {
		s.add(One(fsys, e, eval))
	}
	return s, nil
}

// One checks one case of a corpus with eval.
func One(fsys fs.FS, e corpus.Entry, eval Evaluator) Result {
	r := Result{ID: e.ID}
	fail := func(format string, args ...any) Result {
		r.Status = Fail
		r.Detail = fmt.Sprintf(format, args...)
		return r
	}
	var want Expectation
	var head struct {
		Expect *json.RawMessage `json:"expect"`
	}
	if err := json.Unmarshal(e.JSON, &head); err != nil {
		return fail("malformed case: %v", err)
	}
	if head.Expect == nil {
		r.Status = Skip
		r.Detail = "the case has no expectation"
		return r
	}
	if err := json.Unmarshal(*head.Expect, &want); err != nil {
		return fail("malformed expect: %v", err)
	}
	r.Source = want.Source
	if (want.Output == "") == (want.Error == "") {
		return fail(`expect must hold exactly one of "output" and "error"`)
	}
	// A case the loader rejects (a malformed spec or input) is a rejection
	// like any other: its kind is compared with the expected one.
	var got *engine.Tensor
	c, gotErr := casefile.Parse(e.JSON, casefile.FSInputs(fsys, e.Dir))
	if gotErr == nil {
		got, gotErr = eval(c)
	}
	if want.Error != "" {
		if gotErr == nil {
			return fail("got an output of shape %v, want error %s", got.Shape, want.Error)
		}
		if kind := engine.KindOf(gotErr); string(kind) != want.Error {
			return fail("got error %v, want error kind %s", gotErr, want.Error)
		}
		r.Status = Pass
		return r
	}
	data, err := fs.ReadFile(fsys, path.Join(e.Dir, want.Output))
	if err != nil {
		return fail("cannot read expected output: %v", err)
	}
	wantT, err := npy.Decode(data)
	if err != nil {
		return fail("expected output %s: %v", want.Output, err)
	}
	if gotErr != nil {
		return fail("got error %v, want an output of shape %v", gotErr, wantT.Shape)
	}
	if err := compare.Tensors(wantT, got); err != nil {
		return fail("%v", err)
	}
	r.Status = Pass
	return r
}

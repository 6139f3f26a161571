// Package check runs a corpus of cases with expectations against an
// implementation and reports, per case, pass, fail or skip: the gate of
// `conform check`.
package check

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/budget"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/cause"
	"github.com/conformsuite/conform/internal/confine"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/signature"
)

// Status is the outcome of one case.
type Status string

// The outcomes. A known failure (see Options.KnownFailures) that fails
// counts as passed, with status XFail.
const (
	Pass  Status = "pass"
	Fail  Status = "fail"
	Skip  Status = "skip"
	XFail Status = "xfail"
)

// Result is the outcome of one case, with the reason for a failure or
// skip.
type Result struct {
	ID     string // the case's ID (a case file's path without ".json")
	Status Status
	Source string // where the expected value comes from
	Detail string
	// Case describes a failed case in one line: op, spec, input dtypes
	// and shapes (see *casefile.Case.Describe); empty if its inputs
	// could not be read.
	Case string
	// Op is the case's op ("" for a case that could not be read at
	// all); Spec (its spec fields as written, by name) and Inputs (its
	// inputs' dtypes and shapes) are set with Case.
	Op     string
	Spec   map[string]json.RawMessage
	Inputs []Input
	// Signature names the kind of failure (see package signature); zero
	// unless the case failed on the implementation's answer.
	Signature signature.Signature
	// Level says how an expected error was compared with the answer's:
	// "kind" (conform's kinds) or "class" (the exception classes, for an
	// implementation whose errors are Python exceptions, on NumPy-defined
	// ops); empty unless both were errors (protocol.Agreement.Level).
	Level string
	// KnownCrash is the signature entry of the known-failures list that
	// matched the case's crash or timeout, or empty (see
	// ApplyKnownFailures).
	KnownCrash string
	// Cause is the cause the failure belongs to (one of Summary.Causes),
	// or nil: a case that did not fail on the implementation's answer, or
	// a run whose causes were not found (see Summary.FindCauses).
	Cause *cause.Cause
}

// Input is the name, dtype and shape of an input of a case.
type Input struct {
	Name  string `json:"name"`
	DType string `json:"dtype"`
	Shape []int  `json:"shape"`
}

// Summary collects the results of a run.
type Summary struct {
	Passed, Failed, Skipped int
	// KnownFailures counts the failures listed as known (included in
	// Passed); UnexpectedPasses the listed cases that passed (included in
	// Failed).
	KnownFailures, UnexpectedPasses int
	Results                         []Result
	// Integrity lists the corpus files that do not match its manifest:
	// the first corpus.MaxListedProblems by path. IntegrityTotal counts
	// all of them.
	Integrity      []corpus.ManifestProblem
	IntegrityTotal int
	// Protocol lists protocol errors of the implementation that belong to
	// no case: answers it gave after the case's answer had been returned
	// (see protocol.FaultError). Any fails the run.
	Protocol []string
	// UnknownIDs lists known-failure entries that are neither a case of
	// the corpus nor the signature of a failure of this run.
	UnknownIDs []string
	// StaleCauses lists the cause entries of the known-failures list
	// ("cause:RULE@SYMPTOM") that no failure of the run has (see
	// ApplyKnownCauses). Any fails the run.
	StaleCauses []string
	// KnownCrashes and KnownTimeouts count the crashes and timeouts a
	// signature entry of the known-failures list matched: failures
	// unless Options.AllowKnownCrashes, known failures with it.
	KnownCrashes, KnownTimeouts int
	// Causes are the causes of the failures (see FindCauses), nil until
	// they are found or if no case failed on the implementation's answer.
	Causes []cause.Cause
	// CasesDir is the directory of the corpus the run read, "" for the
	// embedded corpus: the `conform show` command of a failure in the
	// JSON report names it.
	CasesDir string
	// Confirmations are the confirmations of the causes by neighbours,
	// Confirmations[i] that of Causes[i] (nil for a cause no rule
	// explains); nil until ConfirmCauses runs.
	Confirmations []*Confirmation
}

// OK reports whether every case passed (or failed as expected) or was
// skipped, the corpus matched its manifest, the implementation made no
// protocol error outside a case, and no cause entry of the known failures
// was stale.
func (s *Summary) OK() bool {
	return s.Failed == 0 && len(s.Integrity) == 0 && len(s.Protocol) == 0 && len(s.StaleCauses) == 0
}

// MoreIntegrity returns the number of integrity problems not listed in
// Integrity, and a line that says so ("... and N more integrity
// problems"), or "" if there are none.
func (s *Summary) MoreIntegrity() (int, string) {
	n := s.IntegrityTotal - len(s.Integrity)
	if n <= 0 {
		return 0, ""
	}
	return n, fmt.Sprintf("... and %d more integrity problems (%d in all)", n, s.IntegrityTotal)
}

// Line returns the summary line "N passed, N failed, N skipped".
func (s *Summary) Line() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", s.Passed, s.Failed, s.Skipped)
}

// Add counts r in the summary and appends it to its results.
func (s *Summary) Add(r Result) {
	switch r.Status {
	case Pass, XFail:
		s.Passed++
	case Fail:
		s.Failed++
	case Skip:
		s.Skipped++
	}
	s.Results = append(s.Results, r)
}

// Expectation is the "expect" object of a case: either an output file or
// an error kind, and where the expected value comes from.
type Expectation struct {
	Output string `json:"output,omitempty"`
	Error  string `json:"error,omitempty"`
	// Type is the class of the exception the reference raised for an
	// expected error ("IndexError", "numpy.AxisError"), where the
	// reference is Python's NumPy; empty otherwise.
	Type   string `json:"type,omitempty"`
	Source string `json:"source"`
}

// Options configures Run.
type Options struct {
	// KnownFailures maps case IDs expected to fail to the reason.
	KnownFailures map[string]string
	// Workers is the number of cases in flight (default 1; protocol
	// implementations are pipelined when it is larger). With 1, the
	// implementation is asked one case at a time, in order, while the
	// cases after it are read ahead on every core (see runInOrder).
	Workers int
	// AllowKnownCrashes lets a signature entry of KnownFailures absorb
	// crashes and timeouts (see ApplyKnownFailures).
	AllowKnownCrashes bool
	// MaxBytes bounds the bytes of the cases in flight or read ahead,
	// default DefaultMaxBytes. A case counts the size of
	// its request (its input files as base64) plus its expected output
	// file, as the files' sizes say before they are read; a case that
	// would go past the bound waits, in order, until others are done. A
	// case larger than the bound runs alone. With Workers 1, the cases
	// read ahead are counted in batches of aheadBatch, and the bound is
	// passed by one batch at most, the next to run (see runInOrder).
	MaxBytes int64
}

// DefaultMaxBytes is the default Options.MaxBytes: 256 MiB.
const DefaultMaxBytes = 256 << 20

// PipelinedCases is the number of cases conform check and report keep in
// flight to a protocol implementation (Options.Workers).
const PipelinedCases = 64

// Run checks every case under fsys (see corpus.Entries) against im,
// after verifying the checksum manifests the corpus carries.
func Run(ctx context.Context, fsys fs.FS, im impl.Impl, opts Options) (*Summary, error) {
	// The manifest is verified while the cases run (it hashes every file
	// of the corpus: work for the other core).
	var problems []corpus.ManifestProblem
	var total int
	var manifestErr error
	verified := make(chan struct{})
	go func(fsys fs.FS) {
		defer close(verified)
		problems, total, manifestErr = corpus.VerifyManifest(fsys)
	}(fsys)
	entries, err := corpus.Entries(fsys)
	if err != nil {
		<-verified
		return nil, cmp.Or(manifestErr, err)
	}
	fsys = corpus.Open(fsys)
	results := make([]Result, len(entries))
	workers := max(opts.Workers, 1)
	maxBytes := opts.MaxBytes
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	if workers == 1 {
		runInOrder(ctx, fsys, entries, im, maxBytes, results)
	} else {
		runConcurrent(ctx, fsys, entries, im, workers, budget.New(maxBytes), results)
	}
	if <-verified; manifestErr != nil {
		return nil, manifestErr
	}

	s := &Summary{Integrity: problems, IntegrityTotal: total}
	seen := map[string]bool{}
	for _, r := range results {
		seen[r.ID] = true
		if !r.Signature.IsZero() {
			for _, form := range r.Signature.Forms() {
				seen[form.String()] = true
			}
		}
		before := r.Status
		r = ApplyKnownFailures(r, opts.KnownFailures, opts.AllowKnownCrashes)
		s.CountKnownCrash(r)
		switch {
		case r.Status == XFail:
			s.KnownFailures++
		case before == Pass && r.Status == Fail:
			s.UnexpectedPasses++
		}
		s.Add(r)
	}
	for id := range opts.KnownFailures {
		if !seen[id] && !IsCauseEntry(id) { // causes are matched later (ApplyKnownCauses)
			s.UnknownIDs = append(s.UnknownIDs, id)
		}
	}
	sort.Strings(s.UnknownIDs)
	return s, nil
}

// runConcurrent runs the cases of entries against im with workers cases
// in flight, each taking its bytes from room, writing the result of
// entries[i] to results[i].
func runConcurrent(ctx context.Context, fsys fs.FS, entries []corpus.Entry, im impl.Impl, workers int, room *budget.Budget, results []Result) {
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				fields, err := parseCase(entries[i])
				l := prepare(entries[i], fields, err)
				l.size(fsys)
				room.Acquire(context.Background(), l.bytes) // a canceled run still ends every case
				l.read(fsys)
				results[i] = l.result(ctx, im)
				room.Release(l.bytes)
			}
		}()
	}
	for i := range entries {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
}

// CorpusFailure returns the summary of a run that could not read its
// corpus at all: one failed result, "corpus", saying why, so that reports
// (JUnit, JSON) are written for it like for any other run.
func CorpusFailure(err error) *Summary {
	s := &Summary{}
	s.Add(Result{ID: "corpus", Status: Fail, Detail: "cannot read the corpus: " + err.Error()})
	return s
}

// ApplyKnownFailures turns the failure of a case listed in known into
// XFail, and a listed case that passed into a failure (an unexpected
// pass: the list must shrink as the implementation improves). An entry of
// known may also be a signature ("getitem/values", see package
// signature; without "@variant" or "#class" it covers every variant or
// class): every failure with that signature is then known too; a case
// that passes is not an unexpected pass for a signature entry.
//
// A signature entry absorbs a crash or a timeout (the symptom "crash")
// only if crashes is true: otherwise the failure stays one, and says
// which entry matched it. Either way the result's KnownCrash names the
// entry (see Summary.CountKnownCrash).
func ApplyKnownFailures(r Result, known map[string]string, crashes bool) Result {
	reason, listed := known[r.ID]
	if !listed && r.Status == Fail && !r.Signature.IsZero() {
		for _, form := range r.Signature.Forms() {
			if reason, listed = known[form.String()]; listed {
				if r.Signature.Symptom == signature.Crash {
					r.KnownCrash = form.String()
					if !crashes {
						r.Detail += " (the known-failure entry " + r.KnownCrash + " matches this crash; crashes and timeouts count as known only with --allow-known-crashes)"
						return r
					}
				}
				break
			}
		}
	}
	if !listed {
		return r
	}
	switch r.Status {
	case Fail:
		r.Status = XFail
		r.Detail = "known failure (" + reason + "): " + r.Detail
	case Pass:
		r.Status = Fail
		r.Detail = "unexpected pass: the case is listed as a known failure (" + reason + "); remove it from the list"
	}
	return r
}

// CountKnownCrash counts r in KnownCrashes or KnownTimeouts if a
// signature entry matched its crash (r.KnownCrash).
func (s *Summary) CountKnownCrash(r Result) {
	switch {
	case r.KnownCrash == "":
	case r.Signature.Detail == string(protocol.CrashTimeout):
		s.KnownTimeouts++
	default:
		s.KnownCrashes++
	}
}

// One checks one case of a corpus against im.
func One(ctx context.Context, fsys fs.FS, e corpus.Entry, im impl.Impl) Result {
	fields, err := parseCase(e)
	return one(ctx, fsys, e, fields, err, im)
}

// parseCase splits the JSON object of a corpus entry into its fields.
func parseCase(e corpus.Entry) (map[string]json.RawMessage, error) {
	if e.Err != nil {
		return nil, fmt.Errorf("bad corpus entry: %v", e.Err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(e.JSON, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("malformed case: %v", err)
	}
	return fields, nil
}

// caseSize returns what a case of the given input files and expected
// output file (if any) takes in flight: the size of its input files as
// base64 plus that of its expected output file, from the sizes the files
// have before they are read (a file that cannot be read counts 0: the
// case fails before it takes any room).
func caseSize(fsys fs.FS, dir string, inputs map[string]string, output string) int64 {
	size := func(p string) int64 {
		if confine.CheckPath(p) != nil {
			return 0
		}
		fi, err := fs.Stat(fsys, path.Join(dir, p))
		if err != nil || !fi.Mode().IsRegular() {
			return 0
		}
		return fi.Size()
	}
	var in int64
	for _, p := range inputs {
		in += size(p)
	}
	n := (in + 2) / 3 * 4
	if output != "" {
		n += size(output)
	}
	return n
}

// one is One on the case's fields, or the error that they cannot be read.
// It takes fields' metadata away.
func one(ctx context.Context, fsys fs.FS, e corpus.Entry, fields map[string]json.RawMessage, parseErr error, im impl.Impl) Result {
	l := prepare(e, fields, parseErr)
	l.read(fsys)
	return l.result(ctx, im)
}

// loaded is a case read for its run: its expectation and its inputs, all
// that comes before asking the implementation. Reading needs neither the
// implementation nor the cases before it, so that a run can read cases
// ahead of their turn (see runInOrder).
type loaded struct {
	r        Result // the result so far; the case's result if done
	done     bool   // the case failed or was skipped before its run
	entry    corpus.Entry
	fields   map[string]json.RawMessage
	want     Expectation
	paths    map[string]string // the case's input files by input name
	bytes    int64             // what the case takes in flight (caseSize)
	expected protocol.Answer
	c        *casefile.Case
	err      error // why the case's spec or inputs cannot be read
}

// prepare parses the case of fields (or takes the error that they
// cannot be read): its expectation and the paths of its files,
// without reading the files (see read).
func prepare(e corpus.Entry, fields map[string]json.RawMessage, parseErr error) loaded {
	l := loaded{r: Result{ID: e.ID}, done: true, entry: e, fields: fields}
	if parseErr != nil {
		return l.fail("%v", parseErr)
	}
	rawExpect, ok := fields["expect"]
	if !ok || string(rawExpect) == "null" {
		l.r.Status = Skip
		l.r.Detail = "the case has no expectation"
		return l
	}
	if err := json.Unmarshal(rawExpect, &l.want); err != nil {
		return l.fail("malformed expect: %v", err)
	}
	l.r.Source = l.want.Source
	if (l.want.Output == "") == (l.want.Error == "") {
		return l.fail(`expect must hold exactly one of "output" and "error"`)
	}
	l.paths, l.err = inputPaths(fields)
	l.done = false
	return l
}

// size sets l.bytes to what the prepared case takes in flight (see
// caseSize); 0 for a case that ended before reading its files.
func (l *loaded) size(fsys fs.FS) {
	if !l.done {
		l.bytes = caseSize(fsys, l.entry.Dir, l.paths, l.want.Output)
	}
}

// fail ends the case with a failure.
func (l loaded) fail(format string, args ...any) loaded {
	l.r.Status = Fail
	l.r.Detail = fmt.Sprintf(format, args...)
	l.done = true
	return l
}

// read reads the files of a prepared case: its expected output and its
// inputs. It takes the case's metadata fields away.
func (l *loaded) read(fsys fs.FS) {
	if l.done {
		return
	}
	l.expected = protocol.TypedError(engine.ErrorKind(l.want.Error), "", l.want.Type)
	if l.want.Output != "" {
		t, err := readNPY(fsys, l.entry.Dir, l.want.Output)
		if err != nil {
			*l = l.fail("cannot read the expected output: %v", err)
			return
		}
		l.expected = protocol.Output(t)
	}
	if l.err == nil {
		l.c, l.err = readCase(fsys, l.entry, l.fields, l.paths)
	}
	l.fields = nil
}

// result returns the result of the read case: the one it ended with, or
// that of its run.
func (l *loaded) result(ctx context.Context, im impl.Impl) Result {
	if l.done {
		return l.r
	}
	return l.run(ctx, im)
}

// run asks im for the answer of the read case and compares it with the
// expectation.
func (l *loaded) run(ctx context.Context, im impl.Impl) Result {
	r, want, expected, c := l.r, l.want, l.expected, l.c
	fail := func(format string, args ...any) Result {
		r.Status = Fail
		r.Detail = fmt.Sprintf(format, args...)
		return r
	}
	var got protocol.Answer
	switch {
	case l.err == nil:
		got = im.Run(ctx, c)
	case im.Name() == "engine":
		// A case whose spec or inputs the loader rejects is a rejection
		// like any other for the engine: its kind is compared.
		got = impl.Of(nil, l.err)
	default:
		// Another implementation cannot be sent a case whose inputs are
		// unreadable.
		got = protocol.Skip("the case's inputs cannot be read: "+l.err.Error(), "")
	}
	if got.IsSkip() {
		r.Status = Skip
		r.Detail = got.Reason()
		return r
	}
	var op string
	if c != nil {
		op = c.Op
	}
	if op == "" {
		op = l.entry.Op() // a case that could not be read: its line's op
	}
	r.Op = op
	agreement := impl.CompareFor(im, op, expected, got)
	r.Level = agreement.Level
	r.Signature = signature.FromAgreement(op, agreement)
	if c != nil {
		r.Signature = signature.Attribute(c, r.Signature, got)
	}
	if !got.IsCrash() && r.Signature.IsZero() {
		r.Status = Pass
		return r
	}
	if c != nil {
		r.Case = c.Describe()
		r.Spec, r.Inputs = specOf(c), inputsOf(c)
	}
	switch {
	case got.IsCrash():
		return fail("crash: %s", got.Reason())
	case want.Error != "" && !got.IsError():
		t, _ := got.Tensor()
		return fail("got an output of shape %v, want error %s", t.Shape, want.Error)
	case want.Output != "" && got.IsError():
		t, _ := expected.Tensor()
		return fail("got error %s (%s), want an output of shape %v", got.Kind(), got.Message(), t.Shape)
	}
	return fail("%s", agreement.Text)
}

// specOf returns the spec fields of c as written, by name; nil for an
// unknown op.
func specOf(c *casefile.Case) map[string]json.RawMessage {
	if c.Def == nil {
		return nil
	}
	spec := map[string]json.RawMessage{}
	for _, f := range c.Def.Fields {
		if raw, ok := c.Fields[f]; ok {
			spec[f] = raw
		}
	}
	return spec
}

// inputsOf returns the name, dtype and shape of each input of c, by name.
func inputsOf(c *casefile.Case) []Input {
	inputs := make([]Input, 0, len(c.Inputs))
	for name, t := range c.Inputs {
		inputs = append(inputs, Input{Name: name, DType: t.DType.String(), Shape: append([]int{}, t.Shape...)})
	}
	sort.Slice(inputs, func(i, j int) bool { return inputs[i].Name < inputs[j].Name })
	return inputs
}

// metadataFields are the fields of a stored case that are not part of
// the case an implementation receives.
var metadataFields = []string{"id", "expect", "oracles", "provenance", "disagreement", "rule", "source", "note", "inputs"}

// LoadCase loads a stored case: its fields as written (the metadata
// left out) parsed once into a casefile.Case, with its decoded inputs. A
// case whose fields do not make a valid case is returned all the same,
// carrying the reason (casefile.Case.Err); an error means the line is
// not a JSON object or its inputs cannot be read (bad_input).
func LoadCase(fsys fs.FS, e corpus.Entry) (*casefile.Case, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(e.JSON, &fields); err != nil || fields == nil {
		return nil, engine.Errorf(engine.BadInput, "case is not a JSON object: %v", err)
	}
	return loadCase(fsys, e, fields)
}

// loadCase is LoadCase on the case's fields, split: the metadata (an
// oracle's results, provenance), which can be most of a line, is taken
// out of fields, never decoded.
func loadCase(fsys fs.FS, e corpus.Entry, fields map[string]json.RawMessage) (*casefile.Case, error) {
	paths, err := inputPaths(fields)
	if err != nil {
		return nil, err
	}
	return readCase(fsys, e, fields, paths)
}

// inputPaths returns the "inputs" field of a case: its input files by
// input name.
func inputPaths(fields map[string]json.RawMessage) (map[string]string, error) {
	var paths map[string]string
	if raw, ok := fields["inputs"]; !ok || json.Unmarshal(raw, &paths) != nil || paths == nil {
		return nil, engine.Errorf(engine.BadInput, `"inputs" must map input names to .npy files`)
	}
	return paths, nil
}

// readCase is loadCase once the paths of the case's inputs are known.
func readCase(fsys fs.FS, e corpus.Entry, fields map[string]json.RawMessage, paths map[string]string) (*casefile.Case, error) {
	for _, f := range metadataFields {
		delete(fields, f)
	}
	names := make([]string, 0, len(paths))
	for name := range paths {
		names = append(names, name)
	}
	sort.Strings(names)
	inputs := make(map[string]*engine.Tensor, len(names))
	for _, name := range names {
		t, err := readNPY(fsys, e.Dir, paths[name])
		if err != nil {
			return nil, engine.Errorf(engine.BadInput, "input %q: %v", name, err)
		}
		inputs[name] = t
	}
	return casefile.FromFields(fields, inputs), nil
}

// readNPY reads the .npy file at the path p of a case in dir: a path
// inside the corpus (see confine.CheckPath) naming a regular file within
// the input limit. The error's message names the file, without a kind.
func readNPY(fsys fs.FS, dir, p string) (*engine.Tensor, error) {
	if err := confine.CheckPath(p); err != nil {
		return nil, err
	}
	t, err := confine.ReadNPY(fsys, path.Join(dir, p))
	if e := (*engine.Error)(nil); errors.As(err, &e) {
		return nil, errors.New(e.Message)
	}
	return t, err
}

// MaxKnownFailuresBytes bounds the size of a known-failures file: a list
// of case IDs and signatures, far smaller than a corpus.
const MaxKnownFailuresBytes = 16 << 20

// ReadKnownFailuresFile reads the known-failures file at path (see
// ReadKnownFailures) as the files of a corpus are read: only a regular
// file, refused before it is opened otherwise, of at most
// MaxKnownFailuresBytes (or the input limit inputLimit, if smaller; 0 or
// less means confine.DefaultLimit). The error names the file.
func ReadKnownFailuresFile(path string, inputLimit int64) (map[string]string, error) {
	data, err := confine.ReadPathWithin(path, MaxKnownFailuresBytes, inputLimit)
	if err != nil {
		return nil, err
	}
	known, err := ReadKnownFailures(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return known, nil
}

// ReadKnownFailures parses a known-failures list: one case ID, failure
// signature or cause ("cause:RULE@SYMPTOM", see ParseCause; refused if
// it is not one) per line, optionally followed by white space and "# reason";
// blank lines and lines starting with '#' are ignored. A '#' within the
// entry belongs to it (a signature's class).
func ReadKnownFailures(data []byte) (map[string]string, error) {
	known := map[string]string{}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		// The reason starts at a '#' after white space: a '#' inside the
		// entry is a signature's class ("slice/values#tfjs-x").
		id, reason := line, ""
		if i := strings.IndexFunc(line, unicode.IsSpace); i >= 0 {
			id, reason = line[:i], strings.TrimSpace(line[i:])
			if !strings.HasPrefix(reason, "#") {
				return nil, fmt.Errorf("line %d: %q is not one case ID or signature (write the reason after ' #')", n+1, line)
			}
			reason = strings.TrimSpace(strings.TrimPrefix(reason, "#"))
		}
		if reason == "" {
			reason = "no reason given"
		}
		if IsCauseEntry(id) {
			if _, err := ParseCause(id); err != nil {
				return nil, fmt.Errorf("line %d: %v", n+1, err)
			}
		}
		known[id] = reason
	}
	return known, nil
}

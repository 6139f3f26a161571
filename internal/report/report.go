package report

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/golden"
	"github.com/conformsuite/conform/internal/impl"

	"github.com/conformsuite/conform/internal/protocol"
)

// Impl names one column of the report.
type Impl struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Errors is "class" for an implementation whose errors are Python
	// exceptions, compared by class on NumPy-defined ops (see
	// impl.CompareFor); empty for one compared by kind.
	Errors string `json:"errors,omitempty"`
	// Reference marks the reference engine run in process (impl.Engine):
	// the ecosystem view leaves its column out.
	Reference bool `json:"reference,omitempty"`
}

// Label is the implementation's column heading: its name and version,
// followed by "(errors by exception class)" when its errors are compared
// by exception class, the level of comparison every rendering of the
// report shows.
func (im Impl) Label() string {
	label := im.Name
	if im.Version != "" {
		label += " " + im.Version
	}
	if im.Errors == protocol.LevelClass {
		label += " (errors by exception class)"
	}
	return label
}

// Failure is one failing case of a cell.
type Failure struct {
	ID       string `json:"id"`
	Detail   string `json:"detail"`
	Elements int    `json:"elements"` // input elements
	Snippet  string `json:"snippet"`  // NumPy / TF code that reproduces the case
}

// Cell is one rule x implementation entry.
type Cell struct {
	Passed   int      `json:"passed"`
	Total    int      `json:"total"` // cases run (passed + failed)
	Skipped  int      `json:"skipped"`
	Smallest *Failure `json:"smallest_failure,omitempty"`
	// Causes names the causes (see Cause) of the cell's failing cases,
	// in the order of their names.
	Causes []CellCause `json:"causes,omitempty"`
}

// CellCause is one cause of the failing cases of a cell: the rule that
// explains them (Rule), or, when no rule does, the op and symptom of
// their group (Group); and how many of the cell's cases it holds.
type CellCause struct {
	Rule  string `json:"rule,omitempty"`
	Group string `json:"group,omitempty"`
	Cases int    `json:"cases"`
}

// Name is the rule of the cause, or "unexplained GROUP" when no rule
// explains its failures.
func (c CellCause) Name() string {
	if c.Rule != "" {
		return c.Rule
	}
	return "unexplained " + c.Group
}

// Row is one rule with its cells, one per implementation.
type Row struct {
	Feature
	Cases int     `json:"cases"`
	Cells []*Cell `json:"cells"`
}

// Report is the compliance matrix.
type Report struct {
	Corpus string `json:"corpus"`
	Cases  int    `json:"cases"`
	Impls  []Impl `json:"impls"`
	Rows   []Row  `json:"rows"`
	// Causes lists every implementation's failing cases by cause, none
	// left out.
	Causes []Cause `json:"causes"`
}

// Cause is one group of one implementation's failing cases: the cases
// one rule of the reference semantics explains (see
// check.Summary.FindCauses and package cause), or the failures of one op
// and symptom that no rule explains.
type Cause struct {
	Impl string `json:"impl"`
	// Rule is the rule that explains the failures, "" if none does;
	// Statement and Source are the rule's (engine.RuleTable).
	Rule      string `json:"rule,omitempty"`
	Statement string `json:"statement,omitempty"`
	Source    string `json:"source,omitempty"`
	// Group is the op and the (commonest) symptom of the failures,
	// "getitem/error/invalid_spec"; Symptoms lists every symptom they
	// have, the commonest first, when they have several.
	Group    string   `json:"group"`
	Symptoms []string `json:"symptoms,omitempty"`
	// Line describes the cause in one line, as conform check prints it
	// (cause.Cause.String): the rule, the group, the failing cases and
	// how they follow the rule ("194 of 218 cases exercising the rule
	// fail so, 4 of 2,100 without"), or that no rule explains them.
	Line     string   `json:"line"`
	Cases    int      `json:"cases"`
	Smallest *Failure `json:"smallest_failure"`
	// Confirmation is the evidence of the neighbours of the cause's
	// smallest case that the failures follow the rule (its smallest case
	// as check.Summary.ConfirmCauses picks it); nil when no rule
	// explains them.
	Confirmation *Confirmation `json:"confirmation,omitempty"`
	// Recorded lists the divergence classes the golden corpus records
	// for the implementation on the cause's cases (from each case's
	// "disagreement" field; cases/golden/DISAGREEMENTS.md), by ID.
	Recorded []Recorded `json:"recorded_classes,omitempty"`
	// CaseIDs lists every failing case of the cause.
	CaseIDs []string `json:"case_ids"`
	// column is the position of the cause's implementation in
	// Report.Impls.
	column int
}

// Explained reports whether a rule explains the cause's failures.
func (c Cause) Explained() bool { return c.Rule != "" }

// Recorded is a divergence class the golden corpus records for an
// implementation, with how many of a cause's cases record it.
type Recorded struct {
	ID          string `json:"id"`
	Explanation string `json:"explanation"`
	Cases       int    `json:"cases"`
}

// recordedClass returns the divergence class the case records for impl
// in its "disagreement" field ("tfjs: tfjs-x; tflite: tflite-y"), or "".
func recordedClass(disagreement, impl string) string {
	for _, part := range strings.Split(disagreement, "; ") {
		if name, class, ok := strings.Cut(part, ": "); ok && name == impl {
			return class
		}
	}
	return ""
}

// explain returns the explanation of a divergence class.
func explain(id string) string {
	for _, d := range golden.Divergences {
		if d.ID == id {
			return d.Explanation
		}
	}
	return golden.Unexplained.Explanation
}

// Build runs every case of the corpus in fsys with an expectation on
// every implementation, tallies the results by rule, and groups each
// implementation's failures by cause.
func Build(ctx context.Context, fsys fs.FS, corpusName string, impls []impl.Impl) (*Report, error) {
	entries, err := corpus.Entries(fsys)
	if err != nil {
		return nil, err
	}
	runs, err := runAll(ctx, fsys, impls)
	if err != nil {
		return nil, err
	}
	cases := corpus.Open(fsys)
	r := &Report{Corpus: corpusName}
	for _, im := range impls {
		_, reference := im.(impl.Engine)
		column := Impl{Name: im.Name(), Version: im.Version(), Reference: reference}
		if ce, ok := im.(impl.ClassErrors); ok && ce.ErrorClasses() {
			column.Errors = protocol.LevelClass
		}
		r.Impls = append(r.Impls, column)
	}
	t := newTally(impls, runs)
	for n, e := range entries {
		var head struct {
			Expect       *check.Expectation `json:"expect"`
			Disagreement string             `json:"disagreement"`
		}
		if json.Unmarshal(e.JSON, &head) != nil || head.Expect == nil {
			continue
		}
		m, err := check.LoadCase(cases, e)
		if err != nil {
			continue
		}
		r.Cases++
		causes := t.addFailures(n, e.ID, m, head.Disagreement)
		t.addFeatures(n, e.ID, m, engine.ErrorKind(head.Expect.Error), causes)
	}
	r.Causes = t.sortedCauses()
	r.Rows = t.sortedRows()
	return r, ctx.Err()
}

// runAll runs the corpus in fsys on each implementation (the engine in
// one worker, a child pipelined over 32) and returns each one's run,
// its results in the order of corpus.Entries and the causes of its
// failures found (check.Summary.FindCauses, which also takes back the
// variants a run contradicts from the failures' signatures) and
// confirmed by neighbours (check.Summary.ConfirmCauses).
func runAll(ctx context.Context, fsys fs.FS, impls []impl.Impl) ([]*check.Summary, error) {
	runs := make([]*check.Summary, len(impls))
	for i, im := range impls {
		workers := 1
		if im.Name() != "engine" {
			workers = 32 // pipelined over the child
		}
		run, err := check.Run(ctx, fsys, im, check.Options{Workers: workers})
		if err != nil {
			return nil, err
		}
		if err := run.FindCauses(fsys); err != nil {
			return nil, err
		}
		if err := run.ConfirmCauses(ctx, fsys, im); err != nil {
			return nil, err
		}
		runs[i] = run
	}
	return runs, nil
}

// tally collects the rows and the causes of a report from the
// implementations' runs, case by case.
type tally struct {
	impls []impl.Impl
	runs  []*check.Summary // per implementation, results in the order of corpus.Entries
	rows  map[string]*Row
	// causes holds each implementation's causes: first those of its
	// run (in the order FindCauses found them), then the groups of the
	// failures no cause holds, in the order they came.
	causes [][]*Cause
	// index finds a failure's group: by the run's cause, or by the
	// failure's signature for a failure no cause holds.
	index []map[any]*Cause
	// trace records the rules of each case's evaluation (Features).
	trace *engine.Trace
}

// newTally returns an empty tally of the runs of impls, with one empty
// group per cause each run found.
func newTally(impls []impl.Impl, runs []*check.Summary) *tally {
	t := &tally{impls: impls, runs: runs, rows: map[string]*Row{}, trace: new(engine.Trace),
		causes: make([][]*Cause, len(impls)), index: make([]map[any]*Cause, len(impls))}
	for i, run := range runs {
		t.index[i] = map[any]*Cause{}
		for ci := range run.Causes {
			c := &run.Causes[ci]
			rc := &Cause{Impl: impls[i].Name(), Group: c.Group(), Line: c.String(), column: i}
			if len(c.Symptoms) > 1 {
				rc.Symptoms = c.Symptoms
			}
			if c.Explained() {
				rc.Rule = string(c.Rule)
				if rule, ok := engine.RuleByID(c.Rule); ok {
					rc.Statement, rc.Source = rule.Statement, rule.Source
				}
			}
			if ci < len(run.Confirmations) {
				rc.Confirmation = confirmation(run.Confirmations[ci])
			}
			t.causes[i] = append(t.causes[i], rc)
			t.index[i][c] = rc
		}
	}
	return t
}

// addFailures adds case n (id, m) to the cause of each implementation
// it fails on, with the divergence class the case records for the
// implementation in disagreement, if any. A failure no cause holds (its
// case could not be judged: an input that cannot be read) is grouped
// by its signature. It returns the cause of the case on each
// implementation, nil where it did not fail.
func (t *tally) addFailures(n int, id string, m *casefile.Case, disagreement string) []*Cause {
	causes := make([]*Cause, len(t.impls))
	for i, im := range t.impls {
		res := t.runs[i].Results[n]
		if res.Status != check.Fail {
			continue
		}
		var key any = res.Cause
		if res.Cause == nil {
			key = res.Signature.String()
		}
		c := t.index[i][key]
		if c == nil {
			c = &Cause{Impl: im.Name(), Group: res.Signature.String(), Line: "failures that are not the implementation's answer (a case or an input that cannot be read): no rule explains them", column: i}
			if res.Signature.IsZero() {
				c.Group = "unjudged"
			}
			t.index[i][key] = c
			t.causes[i] = append(t.causes[i], c)
		}
		c.Cases++
		c.CaseIDs = append(c.CaseIDs, id)
		if size := elements(m); smaller(c.Smallest, size, id) {
			c.Smallest = &Failure{ID: id, Detail: res.Detail, Elements: size, Snippet: Snippet(m)}
		}
		if class := recordedClass(disagreement, im.Name()); class != "" {
			c.record(class)
		}
		causes[i] = c
	}
	return causes
}

// record counts one case of the cause that records divergence class id.
func (c *Cause) record(id string) {
	for i := range c.Recorded {
		if c.Recorded[i].ID == id {
			c.Recorded[i].Cases++
			return
		}
	}
	c.Recorded = append(c.Recorded, Recorded{ID: id, Explanation: explain(id), Cases: 1})
}

// addFeatures counts case n (id, m, expecting error kind want) in the
// row of its op and of each of its features; causes holds the case's
// cause on each implementation it fails on (addFailures).
func (t *tally) addFeatures(n int, id string, m *casefile.Case, want engine.ErrorKind, causes []*Cause) {
	feats := append([]Feature{{ID: "op:" + m.Op, Group: "ops", Description: "the " + m.Op + " op"}},
		Features(m, want, t.trace)...)
	for _, f := range feats {
		row := t.rows[f.ID]
		if row == nil {
			row = &Row{Feature: f}
			for range t.impls {
				row.Cells = append(row.Cells, &Cell{})
			}
			t.rows[f.ID] = row
		}
		row.Cases++
		for i := range t.impls {
			addResult(row.Cells[i], t.runs[i].Results[n], id, m, causes[i])
		}
	}
}

// addResult counts one implementation's result on case id (m) in cell,
// a failure under its cause c.
func addResult(cell *Cell, res check.Result, id string, m *casefile.Case, c *Cause) {
	switch res.Status {
	case check.Skip:
		cell.Skipped++
	case check.Pass, check.XFail:
		cell.Passed++
		cell.Total++
	case check.Fail:
		cell.Total++
		if size := elements(m); smaller(cell.Smallest, size, id) {
			cell.Smallest = &Failure{ID: id, Detail: res.Detail, Elements: size, Snippet: Snippet(m)}
		}
		cell.addCause(c)
	}
}

// addCause counts one failing case of the cell under its cause c, the
// causes kept in the order of their names (CellCause.Name).
func (cell *Cell) addCause(c *Cause) {
	cc := CellCause{Rule: c.Rule}
	if !c.Explained() {
		cc.Group = c.Group
	}
	i := slices.IndexFunc(cell.Causes, func(x CellCause) bool { return x.Rule == cc.Rule && x.Group == cc.Group })
	if i < 0 {
		cell.Causes = append(cell.Causes, cc)
		i = len(cell.Causes) - 1
	}
	cell.Causes[i].Cases++
	slices.SortFunc(cell.Causes, func(a, b CellCause) int { return strings.Compare(a.Name(), b.Name()) })
}

// Columns returns the report of its first n implementations alone: the
// report Build gives for them (each implementation's run and causes are
// its own), so that one run over more implementations can also write
// the report of a few, as conform report --ecosystem-impl does.
func (r *Report) Columns(n int) *Report {
	out := *r
	out.Impls = r.Impls[:n]
	out.Rows = make([]Row, len(r.Rows))
	for i, row := range r.Rows {
		row.Cells = row.Cells[:n]
		out.Rows[i] = row
	}
	out.Causes = nil
	for _, c := range r.Causes {
		if c.column < n {
			out.Causes = append(out.Causes, c)
		}
	}
	return &out
}

// smaller reports whether a failing case (id, of size input elements)
// replaces the smallest failure f so far: f is nil, or the case has fewer
// elements, or as many and an ID that sorts first.
func smaller(f *Failure, size int, id string) bool {
	return f == nil || size < f.Elements || (size == f.Elements && id < f.ID)
}

// sortedCauses returns the causes of every implementation, in the
// report's order of implementations; an implementation's causes stay in
// the order its run found them, each one's recorded classes sorted by
// ID. A cause of the run that holds no case of the report (a case
// without an expectation) is left out.
func (t *tally) sortedCauses() []Cause {
	var out []Cause
	for _, causes := range t.causes {
		for _, c := range causes {
			if c.Cases == 0 {
				continue
			}
			sort.Slice(c.Recorded, func(i, j int) bool { return c.Recorded[i].ID < c.Recorded[j].ID })
			out = append(out, *c)
		}
	}
	return out
}

// sortedRows returns the rows: the ops (by ID), then the rows of the
// catalogue in its order (shapes, the rules by op, forms, errors), then
// the dtypes (by ID).
func (t *tally) sortedRows() []Row {
	order := map[string]int{}
	for i, f := range catalogue() {
		order[f.ID] = i
	}
	rank := func(r Row) (int, int) {
		if r.Group == "ops" {
			return 0, 0
		}
		if i, ok := order[r.ID]; ok {
			return 1, i
		}
		return 2, 0
	}
	var out []Row
	for _, row := range t.rows {
		out = append(out, *row)
	}
	sort.Slice(out, func(i, j int) bool {
		ra, ia := rank(out[i])
		rb, ib := rank(out[j])
		if ra != rb {
			return ra < rb
		}
		if ia != ib {
			return ia < ib
		}
		return out[i].ID < out[j].ID
	})
	return out
}

func elements(m *casefile.Case) int {
	n := 0
	for _, t := range m.Inputs {
		n += t.Len()
	}
	return n
}

// Failing reports whether any cell of the row has a failure.
func (r Row) Failing() bool {
	for _, c := range r.Cells {
		if c.Passed < c.Total {
			return true
		}
	}
	return false
}

// MostlySkipped reports whether the implementation skipped more of the
// rule's cases than it ran: then a cell without failures is no pass (a
// library that cannot do a negative stride at all must not look green
// on the few negative-stride cases it happened to run).
func (c *Cell) MostlySkipped() bool { return c.Skipped > c.Total }

// String formats a cell as "passed/total", followed by ", N skipped"
// if the implementation skipped some of its cases.
func (c *Cell) String() string {
	if c.Total == 0 {
		if c.Skipped > 0 {
			return fmt.Sprintf("skipped (%d)", c.Skipped)
		}
		return "-"
	}
	if c.Skipped > 0 {
		// The implementation skipped some of the rule's cases itself: the
		// cell must not look green on the cases it ran alone (say, the
		// error cases of a dtype it does not implement).
		return fmt.Sprintf("%d/%d, %d skipped", c.Passed, c.Total, c.Skipped)
	}
	return fmt.Sprintf("%d/%d", c.Passed, c.Total)
}

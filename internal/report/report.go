package report

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/golden"
	"github.com/conformsuite/conform/internal/impl"
)

// Impl names one column of the report.
type Impl struct {
	Name    string `json:"name"`
	Version string `json:"version"`
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
	// Classes lists every implementation's failing cases by divergence
	// class, none left out.
	Classes []Class `json:"divergence_classes"`
}

// Class is one group of one implementation's failing cases: the cases
// the golden corpus records under one divergence class for the
// implementation's name (from the case's "disagreement" field), or, for a
// failure the corpus records no class for, the cases of one failure
// signature (see package signature), so that every implementation's
// failures are grouped by what they are.
type Class struct {
	Impl        string   `json:"impl"`
	ID          string   `json:"id"`
	Explanation string   `json:"explanation"`
	Cases       int      `json:"cases"`
	Smallest    *Failure `json:"smallest_failure"`
	// CaseIDs lists every failing case of the class.
	CaseIDs []string `json:"case_ids"`
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
// every implementation and tallies the results by rule.
func Build(ctx context.Context, fsys fs.FS, corpusName string, impls []impl.Impl) (*Report, error) {
	entries, err := corpus.Entries(fsys)
	if err != nil {
		return nil, err
	}
	results, err := runAll(ctx, fsys, impls)
	if err != nil {
		return nil, err
	}
	cases := corpus.Open(fsys)
	r := &Report{Corpus: corpusName}
	for _, im := range impls {
		r.Impls = append(r.Impls, Impl{im.Name(), im.Version()})
	}
	t := newTally(impls, results)
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
		t.addFailures(n, e.ID, m, head.Disagreement)
		t.addFeatures(n, e.ID, m, engine.ErrorKind(head.Expect.Error))
	}
	r.Classes = t.sortedClasses()
	r.Rows = t.sortedRows()
	return r, ctx.Err()
}

// runAll runs the corpus in fsys on each implementation (the engine in
// one worker, a child pipelined over 32) and returns each one's results
// in the order of corpus.Entries.
func runAll(ctx context.Context, fsys fs.FS, impls []impl.Impl) ([][]check.Result, error) {
	results := make([][]check.Result, len(impls))
	for i, im := range impls {
		workers := 1
		if im.Name() != "engine" {
			workers = 32 // pipelined over the child
		}
		run, err := check.Run(ctx, fsys, im, check.Options{Workers: workers})
		if err != nil {
			return nil, err
		}
		results[i] = run.Results
	}
	return results, nil
}

// tally collects the rows and the divergence classes of a report from
// the implementations' results, case by case.
type tally struct {
	impls   []impl.Impl
	results [][]check.Result // per implementation, in the order of corpus.Entries
	rows    map[string]*Row
	classes map[[2]string]*Class // by implementation name and class ID
}

// newTally returns an empty tally of the results of impls.
func newTally(impls []impl.Impl, results [][]check.Result) *tally {
	return &tally{impls: impls, results: results, rows: map[string]*Row{}, classes: map[[2]string]*Class{}}
}

// addFailures adds case n (id, m) to the class of each implementation it
// fails on: the class the case records for the implementation in
// disagreement, else the failure's signature.
func (t *tally) addFailures(n int, id string, m *casefile.Case, disagreement string) {
	for i, im := range t.impls {
		res := t.results[i][n]
		if res.Status != check.Fail {
			continue
		}
		class, explanation := recordedClass(disagreement, im.Name()), ""
		if class != "" {
			explanation = explain(class)
		} else {
			sig := res.Signature
			class, explanation = "signature "+sig.String(), sig.Explain()
		}
		key := [2]string{im.Name(), class}
		cl := t.classes[key]
		if cl == nil {
			cl = &Class{Impl: key[0], ID: class, Explanation: explanation}
			t.classes[key] = cl
		}
		cl.Cases++
		cl.CaseIDs = append(cl.CaseIDs, id)
		if size := elements(m); smaller(cl.Smallest, size, id) {
			cl.Smallest = &Failure{ID: id, Detail: res.Detail, Elements: size, Snippet: Snippet(m)}
		}
	}
}

// addFeatures counts case n (id, m, expecting error kind want) in the
// row of its op and of each of its features.
func (t *tally) addFeatures(n int, id string, m *casefile.Case, want engine.ErrorKind) {
	feats := append([]Feature{{ID: "op:" + m.Op, Group: "ops", Description: "the " + m.Op + " op"}},
		Features(m, want)...)
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
			addResult(row.Cells[i], t.results[i][n], id, m)
		}
	}
}

// addResult counts one implementation's result on case id (m) in cell.
func addResult(cell *Cell, res check.Result, id string, m *casefile.Case) {
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
	}
}

// smaller reports whether a failing case (id, of size input elements)
// replaces the smallest failure f so far: f is nil, or the case has fewer
// elements, or as many and an ID that sorts first.
func smaller(f *Failure, size int, id string) bool {
	return f == nil || size < f.Elements || (size == f.Elements && id < f.ID)
}

// sortedClasses returns the classes by implementation (in the report's
// order) and class ID.
func (t *tally) sortedClasses() []Class {
	implOrder := map[string]int{}
	for i, im := range t.impls {
		implOrder[im.Name()] = i
	}
	var out []Class
	for _, cl := range t.classes {
		out = append(out, *cl)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Impl != b.Impl {
			return implOrder[a.Impl] < implOrder[b.Impl]
		}
		return a.ID < b.ID
	})
	return out
}

// sortedRows returns the rows by group, then in catalogue order, then
// (features the catalogue does not list) by ID.
func (t *tally) sortedRows() []Row {
	order := map[string]int{}
	for i, f := range catalogue() {
		order[f.ID] = i
	}
	var out []Row
	for _, row := range t.rows {
		out = append(out, *row)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ga, gb := groupRank(a.Group), groupRank(b.Group); ga != gb {
			return ga < gb
		}
		oa, okA := order[a.ID]
		ob, okB := order[b.ID]
		if okA && okB {
			return oa < ob
		}
		if okA != okB {
			return okA
		}
		return a.ID < b.ID
	})
	return out
}

var groups = []string{"ops", "ranges", "masks", "shapes", "gather", "onnx", "errors", "dtypes"}

func groupRank(g string) int {
	for i, x := range groups {
		if x == g {
			return i
		}
	}
	return len(groups)
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

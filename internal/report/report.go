package report

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/conformsuite/conform/casefile"
	"github.com/conformsuite/conform/engine"
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
	base := fsys
	fsys = corpus.Open(fsys)
	r := &Report{Corpus: corpusName}
	for _, im := range impls {
		r.Impls = append(r.Impls, Impl{im.Name(), im.Version()})
	}
	rows := map[string]*Row{}
	classes := map[[2]string]*Class{}
	results := make([][]check.Result, len(impls))
	for i, im := range impls {
		workers := 1
		if im.Name() != "engine" {
			workers = 32 // pipelined over the child
		}
		run, err := check.Run(ctx, base, im, check.Options{Workers: workers})
		if err != nil {
			return nil, err
		}
		results[i] = run.Results // in the order of corpus.Entries
	}
	for n, e := range entries {
		var head struct {
			Expect       *check.Expectation `json:"expect"`
			Disagreement string             `json:"disagreement"`
		}
		if json.Unmarshal(e.JSON, &head) != nil || head.Expect == nil {
			continue
		}
		m, err := check.Memory(fsys, e)
		if err != nil {
			continue
		}
		r.Cases++
		for i, im := range impls {
			if results[i][n].Status != check.Fail {
				continue
			}
			id, explanation := recordedClass(head.Disagreement, im.Name()), ""
			if id != "" {
				explanation = explain(id)
			} else {
				sig := results[i][n].Signature
				id, explanation = "signature "+sig.String(), sig.Explain()
			}
			key := [2]string{im.Name(), id}
			cl := classes[key]
			if cl == nil {
				cl = &Class{Impl: key[0], ID: id, Explanation: explanation}
				classes[key] = cl
			}
			cl.Cases++
			cl.CaseIDs = append(cl.CaseIDs, e.ID)
			if size := elements(m); cl.Smallest == nil || size < cl.Smallest.Elements || (size == cl.Smallest.Elements && e.ID < cl.Smallest.ID) {
				cl.Smallest = &Failure{ID: e.ID, Detail: results[i][n].Detail, Elements: size, Snippet: Snippet(m)}
			}
		}
		feats := append([]Feature{{ID: "op:" + m.Op(), Group: "ops", Description: "the " + m.Op() + " op"}},
			Features(m, engine.ErrorKind(head.Expect.Error))...)
		for _, f := range feats {
			row := rows[f.ID]
			if row == nil {
				row = &Row{Feature: f}
				for range impls {
					row.Cells = append(row.Cells, &Cell{})
				}
				rows[f.ID] = row
			}
			row.Cases++
			for i := range impls {
				res := results[i][n]
				cell := row.Cells[i]
				switch res.Status {
				case check.Skip:
					cell.Skipped++
				case check.Pass, check.XFail:
					cell.Passed++
					cell.Total++
				case check.Fail:
					cell.Total++
					size := elements(m)
					if cell.Smallest == nil || size < cell.Smallest.Elements ||
						(size == cell.Smallest.Elements && e.ID < cell.Smallest.ID) {
						cell.Smallest = &Failure{ID: e.ID, Detail: res.Detail, Elements: size, Snippet: Snippet(m)}
					}
				}
			}
		}
	}
	order := map[string]int{}
	for i, f := range catalogue() {
		order[f.ID] = i
	}
	for _, row := range rows {
		r.Rows = append(r.Rows, *row)
	}
	implOrder := map[string]int{}
	for i, im := range impls {
		implOrder[im.Name()] = i
	}
	for _, cl := range classes {
		r.Classes = append(r.Classes, *cl)
	}
	sort.Slice(r.Classes, func(i, j int) bool {
		a, b := r.Classes[i], r.Classes[j]
		if a.Impl != b.Impl {
			return implOrder[a.Impl] < implOrder[b.Impl]
		}
		return a.ID < b.ID
	})
	sort.Slice(r.Rows, func(i, j int) bool {
		a, b := r.Rows[i], r.Rows[j]
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
	return r, ctx.Err()
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

func elements(m casefile.Memory) int {
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

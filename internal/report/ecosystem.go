package report

import "github.com/conformsuite/conform/engine"

// Ecosystem is the interop view of a report, after web-platform-tests'
// interop dashboard: one row per rule of the reference semantics
// (engine.RuleTable) that the corpus exercises, one column per
// implementation, each cell saying whether the implementation agrees
// with the reference — the corpus's expected answers — on the rule's
// cases it runs, differs on some (and by which causes), or runs none;
// per rule, how many implementations agree, and the one implementation
// that stands alone when exactly one differs. The reference engine's own
// column (Impl.Reference), if the report has one, is left out.
type Ecosystem struct {
	// Date is the day the page states it was generated (YYYY-MM-DD).
	Date   string   `json:"date"`
	Corpus string   `json:"corpus"`
	Cases  int      `json:"cases"`
	Impls  []Impl   `json:"impls"`
	Rows   []EcoRow `json:"rows"`
}

// EcoRow is one rule of the ecosystem view, with one cell per
// implementation (the report's cells).
type EcoRow struct {
	Feature
	Cases int     `json:"cases"`
	Cells []*Cell `json:"cells"`
	// Ran counts the implementations that ran some of the rule's cases;
	// Agree those of them that passed every case of the rule they ran.
	Ran   int `json:"ran"`
	Agree int `json:"agree"`
	// Alone is the implementation that stands alone: exactly one of
	// those that ran the rule's cases differs and at least two agree
	// (with one agreeing, two implementations differ from each other and
	// neither stands alone); nil otherwise (whatever its name, "" too).
	Alone *Impl `json:"alone,omitempty"`
}

// Standing sums up one implementation over the rows of the view.
type Standing struct {
	Impl
	// Ran counts the rules of which it ran some case, Agree those on
	// which it agrees with the reference, Alone those on which it alone
	// differs.
	Ran, Agree, Alone int
}

// Agrees reports whether the cell's implementation ran some of the
// rule's cases and passed every one it ran.
func (c *Cell) Agrees() bool { return c.Total > 0 && c.Passed == c.Total }

// Ecosystem returns the interop view of the report, stating date.
func (r *Report) Ecosystem(date string) *Ecosystem {
	var keep []int
	e := &Ecosystem{Date: date, Corpus: r.Corpus, Cases: r.Cases}
	for i, im := range r.Impls {
		if !im.Reference {
			keep = append(keep, i)
			e.Impls = append(e.Impls, im)
		}
	}
	for _, row := range r.Rows {
		if _, ok := engine.RuleByID(engine.RuleID(row.ID)); !ok {
			continue
		}
		er := EcoRow{Feature: row.Feature, Cases: row.Cases}
		var differ []*Impl
		for _, i := range keep {
			c := row.Cells[i]
			er.Cells = append(er.Cells, c)
			switch {
			case c.Agrees():
				er.Ran++
				er.Agree++
			case c.Total > 0:
				er.Ran++
				differ = append(differ, &r.Impls[i])
			}
		}
		if len(differ) == 1 && er.Agree >= 2 {
			er.Alone = differ[0]
		}
		e.Rows = append(e.Rows, er)
	}
	return e
}

// Standings sums up each implementation over the view's rules, in the
// order of the columns.
func (e *Ecosystem) Standings() []Standing {
	out := make([]Standing, len(e.Impls))
	for i, im := range e.Impls {
		out[i].Impl = im
		for _, row := range e.Rows {
			c := row.Cells[i]
			if c.Total > 0 {
				out[i].Ran++
			}
			if c.Agrees() {
				out[i].Agree++
			}
			if row.Alone != nil && c.Total > 0 && !c.Agrees() {
				out[i].Alone++ // the one that differs
			}
		}
	}
	return out
}

// EcoTally counts the rules of an ecosystem view by how the
// implementations that ran their cases compare with the reference.
type EcoTally struct {
	// AllAgree: every one agrees. Alone: one stands alone (EcoRow.Alone).
	// OneDiffers: one differs and fewer than two agree (it and one
	// other, or it alone, ran the rule's cases). Several: two or more
	// differ. NoneRan: no implementation ran the rule's cases.
	AllAgree, Alone, OneDiffers, Several, NoneRan int
}

// Tally counts the view's rules (see EcoTally).
func (e *Ecosystem) Tally() EcoTally {
	var t EcoTally
	for _, row := range e.Rows {
		switch differ := row.Ran - row.Agree; {
		case row.Ran == 0:
			t.NoneRan++
		case differ == 0:
			t.AllAgree++
		case row.Alone != nil:
			t.Alone++
		case differ == 1:
			t.OneDiffers++
		default:
			t.Several++
		}
	}
	return t
}

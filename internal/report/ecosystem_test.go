package report

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/casefile/casefiletest"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/protocol"
)

// named is an implementation under another name.
type named struct {
	impl.Impl
	name string
}

func (n named) Name() string { return n.name }

// runsNoGetitem is the engine, version 3, without getitem: it skips
// every case of the corpus, as a protocol child that does not list the
// op does.
type runsNoGetitem struct{ impl.Engine }

func (runsNoGetitem) Name() string            { return "nogetitem" }
func (runsNoGetitem) Version() string         { return "3" }
func (runsNoGetitem) Supports(op string) bool { return op != casefile.OpGetItem }

func (e runsNoGetitem) Run(ctx context.Context, c *casefile.Case) protocol.Answer {
	if !e.Supports(c.Op) {
		return protocol.Skip("no "+c.Op, "")
	}
	return e.Engine.Run(ctx, c)
}

// ecosystemCorpus is negativeStepCorpus with one more case exercising
// getitem/step-over-1 whose expected output is wrong: every
// implementation fails it, and no rule explains the failure.
func ecosystemCorpus() fstest.MapFS {
	fsys := negativeStepCorpus()
	fsys["c/wrong.npy"] = &fstest.MapFile{Data: casefiletest.Int32NPY(0, 2)} // x[::3] is [0 3]
	list := string(fsys["c/cases.jsonl"].Data) +
		`{"id":"c/12","op":"getitem","inputs":{"x":"x.npy"},"index":"x[::3]","expect":{"output":"wrong.npy","source":"test"}}` + "\n"
	fsys["c/cases.jsonl"] = &fstest.MapFile{Data: []byte(list)}
	return fsys
}

// TestEcosystem checks the ecosystem view of reports on a small corpus:
// which implementations agree on a rule, which one stands alone, and
// what each cell says.
func TestEcosystem(t *testing.T) {
	good := func(name string) impl.Impl { return named{impl.Engine{}, name} }
	broken := refusesNegativeSteps{} // named "broken"
	tests := []struct {
		rule       string
		impls      []impl.Impl
		row        string
		columns    []string
		ran, agree int
		alone      string
		cells      []string // the Markdown of each cell
	}{
		{"one library that differs while two agree stands alone; its cell names the cause; the engine's column is left out",
			[]impl.Impl{impl.Engine{}, good("a"), good("b"), broken}, "getitem/negative-step",
			[]string{"a", "b", "broken"}, 3, 2, "broken", []string{"✅ 4/4", "✅ 4/4", "❌ 0/4: `getitem/negative-step`"}},
		{"two that differ: none stands alone",
			[]impl.Impl{good("a"), good("b"), broken, named{broken, "broken2"}}, "getitem/negative-step",
			[]string{"a", "b", "broken", "broken2"}, 4, 2, "(nobody)", []string{"✅ 4/4", "✅ 4/4", "❌ 0/4: `getitem/negative-step`", "❌ 0/4: `getitem/negative-step`"}},
		{"one that differs against one that agrees: neither stands alone",
			[]impl.Impl{good("a"), broken}, "getitem/negative-step",
			[]string{"a", "broken"}, 2, 1, "(nobody)", []string{"✅ 4/4", "❌ 0/4: `getitem/negative-step`"}},
		{"an implementation that runs none of the rule's cases is skipped and not counted",
			[]impl.Impl{good("a"), good("b"), broken, runsNoGetitem{}}, "getitem/negative-step",
			[]string{"a", "b", "broken", "nogetitem"}, 3, 2, "broken", []string{"✅ 4/4", "✅ 4/4", "❌ 0/4: `getitem/negative-step`", "➖ skipped (4)"}},
		{"a failure no rule explains is named unexplained, with its op and symptom",
			[]impl.Impl{good("a"), good("b")}, "getitem/step-over-1",
			[]string{"a", "b"}, 2, 0, "(nobody)", []string{"❌ 2/3: unexplained `getitem/values`", "❌ 2/3: unexplained `getitem/values`"}},
		{"a cell names every cause of its failures, a rule other than the row's among them",
			[]impl.Impl{good("a"), broken}, "getitem/step-over-1",
			[]string{"a", "broken"}, 2, 0, "(nobody)", []string{"❌ 2/3: unexplained `getitem/values`", "❌ 1/3: `getitem/negative-step`, unexplained `getitem/values`"}},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			r, err := Build(context.Background(), ecosystemCorpus(), "test", tc.impls)
			if err != nil {
				t.Fatal(err)
			}
			e := r.Ecosystem("2026-01-02")
			var columns []string
			for _, im := range e.Impls {
				columns = append(columns, im.Name)
			}
			if diff := cmp.Diff(tc.columns, columns); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
			var row *EcoRow
			for i := range e.Rows {
				if e.Rows[i].ID == tc.row {
					row = &e.Rows[i]
				}
			}
			if row == nil {
				t.Fatalf("no row %s", tc.row)
			}
			if row.Ran != tc.ran || row.Agree != tc.agree || aloneName(row) != tc.alone {
				t.Errorf("ran %d, agree %d, alone %q; want %d, %d, %q", row.Ran, row.Agree, aloneName(row), tc.ran, tc.agree, tc.alone)
			}
			var cells []string
			for _, c := range row.Cells {
				cells = append(cells, ecoCellMarkdown(c))
			}
			if diff := cmp.Diff(tc.cells, cells); diff != "" {
				t.Errorf("cells (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEcosystemOnlyRules checks that the view's rows are the rules of
// the reference semantics only: no op, shape, form, error or dtype row.
func TestEcosystemOnlyRules(t *testing.T) {
	r, err := Build(context.Background(), ecosystemCorpus(), "test", []impl.Impl{impl.Engine{}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, row := range r.Ecosystem("2026-01-02").Rows {
		ids = append(ids, row.ID)
	}
	want := []string{"getitem/negative-step", "getitem/negative-step-omitted-start", "getitem/negative-step-omitted-stop",
		"getitem/step-over-1", "getitem/empty-range"}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

// TestEcosystemPages checks what the Markdown and HTML pages of the view
// show: the date, each implementation's standing, the rows by op with
// the agreement and the implementation that stands alone, the cells.
func TestEcosystemPages(t *testing.T) {
	r, err := Build(context.Background(), ecosystemCorpus(), "test",
		[]impl.Impl{impl.Engine{}, named{impl.Engine{}, "a"}, named{impl.Engine{}, "b"}, refusesNegativeSteps{}, runsNoGetitem{}})
	if err != nil {
		t.Fatal(err)
	}
	e := r.Ecosystem("2026-01-02")
	var md, page bytes.Buffer
	if err := e.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := e.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	v := impl.EngineVersion
	for _, tc := range []struct {
		rule, format, want string
	}{
		{"the page states its date and corpus", "md", "Generated on 2026-01-02 from 13 cases."},
		{"a standing counts the rules run, agreed on, differed on, stood alone on (all but the one every implementation fails)", "md", "| broken | " + v + " | kind | 5 | 0 | 5 | 4 |"},
		{"an implementation that ran no rule has a standing of zeros", "md", "| nogetitem | 3 | kind | 0 | 0 | 0 | 0 |"},
		{"the tally of rules", "md", "Of 5 rules, every implementation that ran them agrees with the reference on 0; one stands alone on 4; one differs with fewer than two agreeing on 0; several differ on 1; none ran 0."},
		{"one section per op", "md", "\n## getitem\n"},
		{"the columns are the implementations but the engine", "md", "| rule | cases | agree | a " + v + " | b " + v + " | broken " + v + " | nogetitem 3 |"},
		{"a row: agreement, who stands alone, cells", "md", "| `getitem/negative-step` | 4 | 2/3 · only **broken** differs | ✅ 4/4 | ✅ 4/4 | ❌ 0/4: `getitem/negative-step` | ➖ skipped (4) |"},
		{"a row on which all differ", "md", "| `getitem/step-over-1` | 3 | 0/3 | ❌ 2/3: unexplained `getitem/values` |"},
		{"the HTML states its date", "html", "Generated on 2026-01-02 from 13 cases."},
		{"the HTML marks who stands alone", "html", `<td>2/3 · <span class="alone">only broken differs</span></td>`},
		{"the HTML cell of a failure names its cause", "html", `<td class="differs">❌ 0/4: <code>getitem/negative-step</code></td>`},
		{"the HTML cell of an unexplained failure", "html", `unexplained <code>getitem/values</code>`},
		{"the HTML cell of a skipped rule", "html", `<td class="none">➖ skipped (4)</td>`},
		{"the HTML standings", "html", `<tr><td>broken</td><td>` + v + `</td><td>kind</td><td class="n">5</td><td class="n">0</td><td class="n">5</td><td class="n">4</td></tr>`},
	} {
		out := map[string]string{"md": md.String(), "html": page.String()}[tc.format]
		if !strings.Contains(out, tc.want) {
			t.Errorf("%s: the %s lacks %q:\n%s", tc.rule, tc.format, tc.want, out)
		}
	}
}

// TestEcosystemTally checks how the view classes a rule by its cells.
func TestEcosystemTally(t *testing.T) {
	agree, differ, skip := Cell{Passed: 3, Total: 3}, Cell{Passed: 1, Total: 3}, Cell{Skipped: 3}
	tests := []struct {
		rule  string
		cells []Cell
		want  EcoTally
		alone string
	}{
		{"all that ran agree; a skipped implementation does not count", []Cell{agree, agree, skip}, EcoTally{AllAgree: 1}, "(nobody)"},
		{"one differs and two agree: it stands alone", []Cell{agree, agree, differ}, EcoTally{Alone: 1}, "i2"},
		{"an agreeing implementation that skipped most cases still agrees", []Cell{{Passed: 1, Total: 1, Skipped: 9}, agree, differ}, EcoTally{Alone: 1}, "i2"},
		{"one differs, one agrees: no one stands alone", []Cell{agree, differ, skip}, EcoTally{OneDiffers: 1}, "(nobody)"},
		{"the only one that ran differs", []Cell{skip, differ}, EcoTally{OneDiffers: 1}, "(nobody)"},
		{"two differ", []Cell{agree, differ, differ, agree}, EcoTally{Several: 1}, "(nobody)"},
		{"none ran", []Cell{skip, skip}, EcoTally{NoneRan: 1}, "(nobody)"},
	}
	for _, tc := range tests {
		r := &Report{Rows: []Row{{Feature: Feature{ID: "getitem/negative-step", Group: "getitem"}}}}
		for i := range tc.cells {
			r.Impls = append(r.Impls, Impl{Name: fmt.Sprintf("i%d", i)})
			r.Rows[0].Cells = append(r.Rows[0].Cells, &tc.cells[i])
		}
		e := r.Ecosystem("2026-01-02")
		if got := e.Tally(); got != tc.want || aloneName(&e.Rows[0]) != tc.alone {
			t.Errorf("%s: tally %+v, alone %q; want %+v, %q", tc.rule, got, aloneName(&e.Rows[0]), tc.want, tc.alone)
		}
	}
}

// aloneName is the name of the implementation that stands alone in the
// row, "(nobody)" if none does.
func aloneName(row *EcoRow) string {
	if row.Alone == nil {
		return "(nobody)"
	}
	return row.Alone.Name
}

// TestEcosystemAloneWithoutName checks that an implementation whose
// hello gave an empty name still stands alone: the row, the tally, its
// standing and both pages say so.
func TestEcosystemAloneWithoutName(t *testing.T) {
	agree, differ := Cell{Passed: 3, Total: 3}, Cell{Passed: 1, Total: 3}
	r := &Report{Impls: []Impl{{Name: "a"}, {Name: "b"}, {Name: ""}},
		Rows: []Row{{Feature: Feature{ID: "getitem/negative-step", Group: "getitem"}, Cells: []*Cell{&agree, &agree, &differ}}}}
	e := r.Ecosystem("2026-01-02")
	if got := aloneName(&e.Rows[0]); got != "" {
		t.Errorf("alone %q, want the implementation named \"\"", got)
	}
	if got := e.Tally(); got != (EcoTally{Alone: 1}) {
		t.Errorf("tally %+v, want one rule where one stands alone", got)
	}
	if got := e.Standings()[2].Alone; got != 1 {
		t.Errorf("the unnamed implementation stands alone on %d rules, want 1", got)
	}
	var md, page strings.Builder
	if err := e.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := e.WriteHTML(&page); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "only **** differs") || !strings.Contains(page.String(), `<span class="alone">only  differs</span>`) {
		t.Errorf("a page does not say that the unnamed implementation alone differs:\n%s\n%s", md.String(), page.String())
	}
}

// TestColumns checks that the report of the first implementations of a
// run is the report of a run of them alone.
func TestColumns(t *testing.T) {
	all := []impl.Impl{impl.Engine{}, refusesNegativeSteps{}, named{refusesNegativeSteps{}, "broken2"}, runsNoGetitem{}}
	whole, err := Build(context.Background(), ecosystemCorpus(), "test", all)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= len(all); n++ {
		alone, err := Build(context.Background(), ecosystemCorpus(), "test", all[:n])
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(alone, whole.Columns(n), cmp.AllowUnexported(Cause{})); diff != "" {
			t.Errorf("the first %d columns of a run differ from a run of them alone (-alone +columns):\n%s", n, diff)
		}
	}
}

// TestComparedBy checks the level of error comparison each standing
// names.
func TestComparedBy(t *testing.T) {
	for _, tc := range []struct {
		rule string
		impl Impl
		want string
	}{
		{"an implementation compared by kind", Impl{Name: "tfjs"}, "kind"},
		{"an implementation whose errors are Python exceptions", Impl{Name: "torch", Errors: "class"}, "exception class on NumPy-defined ops, kind elsewhere"},
	} {
		if got := comparedBy(tc.impl); got != tc.want {
			t.Errorf("%s: comparedBy = %q, want %q", tc.rule, got, tc.want)
		}
	}
}

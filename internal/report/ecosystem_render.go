package report

import (
	"fmt"
	"html/template"
	"io"
	"strings"

	"github.com/conformsuite/conform/internal/protocol"
)

// ecoLegend explains the cells of the ecosystem view, in every rendering.
const ecoLegend = "The reference is conform's engine: the corpus's expected answers. One row per rule of the " +
	"reference semantics the corpus exercises (docs/rules.md), one column per implementation. " +
	"✅ agrees with the reference on every case of the rule it ran (passed/run); " +
	"⚠️ agrees, but skipped most of the rule's cases; " +
	"❌ differs (passed/run), followed by the causes conform finds for its failures — the rule of the reference " +
	"semantics that explains them, or \"unexplained\" and their op and symptom (their cases are in the compliance report); " +
	"➖ ran none of the rule's cases (the op, or the cases' dtypes, are not supported). " +
	"\"agree\" counts the implementations that agree among those that ran some of the rule's cases; " +
	"\"only X differs\" marks a rule on which X alone differs from the reference and at least two others agree."

// ecoGroup is the rules of one op (the rows' group), in the view's order.
type ecoGroup struct {
	Name string
	Rows []EcoRow
}

// groups returns the view's rows by group, in order of first appearance.
func (e *Ecosystem) groups() []ecoGroup {
	var out []ecoGroup
	for _, row := range e.Rows {
		if len(out) == 0 || out[len(out)-1].Name != row.Group {
			out = append(out, ecoGroup{Name: row.Group})
		}
		g := &out[len(out)-1]
		g.Rows = append(g.Rows, row)
	}
	return out
}

// String says how many rules fall in each class of the tally.
func (t EcoTally) String() string {
	return fmt.Sprintf("every implementation that ran them agrees with the reference on %d; one stands alone on %d; "+
		"one differs with fewer than two agreeing on %d; several differ on %d; none ran %d.",
		t.AllAgree, t.Alone, t.OneDiffers, t.Several, t.NoneRan)
}

// Agreement writes how many of the implementations that ran the rule's
// cases agree, "agree/ran", or "–" when none ran them.
func (row EcoRow) Agreement() string {
	if row.Ran == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d", row.Agree, row.Ran)
}

// comparedBy names the level at which an implementation's errors are
// compared.
func comparedBy(im Impl) string {
	if im.Errors == protocol.LevelClass {
		return "exception class on NumPy-defined ops, kind elsewhere"
	}
	return "kind"
}

// WriteMarkdown writes the view as Markdown: the legend, each
// implementation's standing, the tally of rules, then one table per op.
// Texts from a child or a case are escaped as in Report.WriteMarkdown.
func (e *Ecosystem) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Ecosystem: %s\n\n", mdText(e.Corpus))
	fmt.Fprintf(&b, "Generated on %s from %d cases. %s\n\n", mdText(e.Date), e.Cases, mdText(ecoLegend))
	b.WriteString("| implementation | version | errors compared by | rules run | agrees | differs | alone differs |\n|---|---|---|---:|---:|---:|---:|\n")
	for _, s := range e.Standings() {
		fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %d | %d |\n", mdText(s.Name), mdText(s.Version), comparedBy(s.Impl), s.Ran, s.Agree, s.Ran-s.Agree, s.Alone)
	}
	fmt.Fprintf(&b, "\nOf %d rules, %s\n", len(e.Rows), e.Tally())
	for _, g := range e.groups() {
		fmt.Fprintf(&b, "\n## %s\n\n", mdText(g.Name))
		writeTableHead(&b, "| rule | cases | agree |", "|---|---:|---|", e.Impls)
		for _, row := range g.Rows {
			agree := row.Agreement()
			if row.Alone != nil {
				agree += " · only **" + mdText(row.Alone.Name) + "** differs"
			}
			fmt.Fprintf(&b, "| %s | %d | %s |", mdCode(row.ID), row.Cases, agree)
			for _, c := range row.Cells {
				fmt.Fprintf(&b, " %s |", ecoCellMarkdown(c))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ecoCellMarkdown writes a cell of the view: its mark and counts, then
// the causes of its failures by name. Their numbers of cases are left to
// the report: when a library fails a case differently from one run to
// the next (PyTorch 1.13 corrupting its heap), the case may change cause
// while the causes stay the same.
func ecoCellMarkdown(c *Cell) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s", mark(c), c)
	for i, cc := range c.Causes {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		b.WriteString(sep)
		if cc.Rule == "" {
			b.WriteString("unexplained ")
		}
		b.WriteString(mdCode(cc.Rule + cc.Group))
	}
	return b.String()
}

// WriteHTML writes the view as one self-contained static page (no
// script): the Markdown's content, each cell coloured by its state.
func (e *Ecosystem) WriteHTML(w io.Writer) error {
	return ecoTemplate.Execute(w, map[string]any{
		"E": e, "Legend": ecoLegend, "Tally": e.Tally(), "Standings": e.Standings(), "Groups": e.groups(),
	})
}

// ecoState is the class of a cell of the HTML view.
func ecoState(c *Cell) string {
	switch {
	case c.Total == 0:
		return "none"
	case !c.Agrees():
		return "differs"
	case c.MostlySkipped():
		return "partly"
	}
	return "agrees"
}

var ecoTemplate = template.Must(template.New("ecosystem").Funcs(template.FuncMap{
	"mark": mark, "state": ecoState, "comparedBy": comparedBy, "minus": func(a, b int) int { return a - b },
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Ecosystem: {{.E.Corpus}}</title>
<style>
 body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; max-width: 110em; }
 table { border-collapse: collapse; margin: .5em 0 1.5em; }
 th, td { padding: 4px 8px; border: 1px solid #ddd; vertical-align: top; }
 th { background: #f4f4f4; }
 td.rule, code { font-family: ui-monospace, monospace; }
 td.rule { white-space: nowrap; }
 td.n { text-align: right; color: #666; }
 td.agrees { background: hsl(120,60%,85%); }
 td.partly { background: hsl(50,80%,82%); }
 td.differs { background: hsl(0,70%,86%); }
 td.none { background: #fafafa; color: #999; }
 .alone { font-weight: 600; }
</style>
</head>
<body>
<h1>Ecosystem: {{.E.Corpus}}</h1>
<p>Generated on {{.E.Date}} from {{.E.Cases}} cases. {{.Legend}}</p>
<table>
<thead><tr><th>implementation</th><th>version</th><th>errors compared by</th><th>rules run</th><th>agrees</th><th>differs</th><th>alone differs</th></tr></thead>
<tbody>
{{- range .Standings}}
<tr><td>{{.Name}}</td><td>{{.Version}}</td><td>{{comparedBy .Impl}}</td><td class="n">{{.Ran}}</td><td class="n">{{.Agree}}</td><td class="n">{{minus .Ran .Agree}}</td><td class="n">{{.Alone}}</td></tr>
{{- end}}
</tbody>
</table>
<p>Of {{len .E.Rows}} rules, {{.Tally}}</p>
{{- range .Groups}}
<h2>{{.Name}}</h2>
<table>
<thead><tr><th>rule</th><th>cases</th><th>agree</th>{{range $.E.Impls}}<th>{{.Label}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr><td class="rule" title="{{.Description}}">{{.ID}}</td><td class="n">{{.Cases}}</td><td>{{.Agreement}}{{with .Alone}} · <span class="alone">only {{.Name}} differs</span>{{end}}</td>
{{- range .Cells}}<td class="{{state .}}">{{mark .}} {{.String}}{{range $i, $c := .Causes}}{{if eq $i 0}}: {{else}}, {{end}}{{if not .Rule}}unexplained {{end}}<code>{{.Rule}}{{.Group}}</code>{{end}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{- end}}
</body>
</html>
`))

package report

import (
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/conformsuite/conform/internal/printable"
)

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(r)
}

// WriteMarkdown writes the matrix as a Markdown table that fits a pull
// request comment (GitHub-flavoured Markdown), followed by the smallest
// failing case of every failing cell, each in a collapsed block. Every
// text that came from a child or a case is escaped for where it stands
// (see mdText, mdCode, htmlText and fence): it cannot add markup, table
// columns or lines, nor close a block conform opened.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Spec compliance: %s\n\n", mdText(r.Corpus))
	fmt.Fprintf(&b, "%d cases. Each cell: cases passed / cases run, and how many the implementation skipped. ", r.Cases)
	b.WriteString("✅ all passed, ❌ some failed, ⚠️ none failed but most were skipped (not a pass), ➖ not run.\n\n")
	writeTableHead(&b, "| rule | group | cases |", "|---|---|---:|", r.Impls)
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %s | %s | %d |", mdCode(row.ID), mdText(row.Group), row.Cases)
		for _, c := range row.Cells {
			fmt.Fprintf(&b, " %s %s |", mark(c), c)
		}
		b.WriteString("\n")
	}
	// One block per distinct smallest failing case, listing the cells it
	// stands for.
	type failing struct {
		f     *Failure
		impl  string
		cells []string
	}
	var order []string
	byID := map[string]*failing{}
	for _, row := range r.Rows {
		for i, c := range row.Cells {
			if c.Smallest == nil {
				continue
			}
			key := c.Smallest.ID + "\x00" + r.Impls[i].Name
			fl := byID[key]
			if fl == nil {
				fl = &failing{f: c.Smallest, impl: r.Impls[i].Name}
				byID[key] = fl
				order = append(order, key)
			}
			fl.cells = append(fl.cells, "<code>"+htmlText(row.ID)+"</code>")
		}
	}
	writeCauses(&b, r.Causes)
	if len(order) > 0 {
		b.WriteString("\n## Smallest failing cases\n\n")
	}
	for _, key := range order {
		fl := byID[key]
		fmt.Fprintf(&b, "<details><summary><b>%s</b> fails <code>%s</code> (%d input elements): %s</summary>\n\n",
			htmlText(fl.impl), htmlText(fl.f.ID), fl.f.Elements, strings.Join(fl.cells, ", "))
		writeFailure(&b, fl.f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeCauses writes the failures by cause: a table of every
// implementation's causes, then each one's block: the rule's statement
// and source, how the failures follow it, the divergence classes the
// corpus records on its cases, and its smallest case.
func writeCauses(b *strings.Builder, causes []Cause) {
	if len(causes) == 0 {
		return
	}
	b.WriteString("\n## Failures by cause\n\n")
	b.WriteString("Every failing case of every implementation, grouped by its cause: the rule of the reference semantics\n")
	b.WriteString("that explains it, found as `conform check` finds it (fault localisation over the rules each case\n")
	b.WriteString("exercises, per op and symptom; see docs/rules.md). Failures that no rule explains stay grouped by op and\n")
	b.WriteString("symptom and say so. The last column names the divergence classes the golden corpus records for the\n")
	b.WriteString("cause's cases (cases/golden/DISAGREEMENTS.md). The smallest case of each cause follows the table.\n\n")
	b.WriteString("| implementation | cause | op/symptom | failing cases | corpus records |\n|---|---|---|---:|---|\n")
	for _, c := range causes {
		var recorded []string
		for _, r := range c.Recorded {
			recorded = append(recorded, fmt.Sprintf("%s (%d)", mdCode(r.ID), r.Cases))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s |\n", mdText(c.Impl), causeCell(c), symptomsCell(c), c.Cases, strings.Join(recorded, ", "))
	}
	b.WriteString("\n")
	for _, c := range causes {
		f := c.Smallest
		name := "no rule explains " + c.Group
		if c.Explained() {
			name = c.Rule + " — " + c.Group
		}
		fmt.Fprintf(b, "<details><summary><b>%s</b> <code>%s</code>: %s, smallest <code>%s</code> (%d input elements)</summary>\n\n",
			htmlText(c.Impl), htmlText(name), failingCases(c.Cases), htmlText(f.ID), f.Elements)
		if c.Explained() {
			fmt.Fprintf(b, "Rule: %s (source: %s)\n\n", mdText(c.Statement), mdText(c.Source))
		}
		fmt.Fprintf(b, "Found: %s\n\n", mdText(c.Line))
		for _, r := range c.Recorded {
			fmt.Fprintf(b, "Corpus records %s on %d of its cases: %s\n\n", mdCode(r.ID), r.Cases, mdText(cut(r.Explanation)))
		}
		writeConfirmation(b, c.Confirmation)
		writeFailure(b, f)
	}
}

// writeConfirmation writes what the neighbours of a cause's smallest
// case say (see Confirmation), as a paragraph; nothing without one.
func writeConfirmation(b *strings.Builder, conf *Confirmation) {
	switch {
	case conf == nil:
	case conf.Confirmed:
		fmt.Fprintf(b, "Confirmed by a neighbour: %s fails (%s); one edit away (%s), %s passes.\n\n",
			mdText(conf.Failing), mdText(conf.Symptom), mdText(conf.Edit), mdText(conf.Passing))
	case conf.Failing == "":
		b.WriteString("Not confirmed: no case of the cause could be read.\n\n")
	case !conf.Reproduced:
		fmt.Fprintf(b, "Not confirmed: %s did not fail again (%s).\n\n", mdText(conf.Failing), mdText(conf.Symptom))
	default:
		fmt.Fprintf(b, "Not confirmed: %s fails (%s), but none of the %d neighbours without the rule that were tried passes.\n\n",
			mdText(conf.Failing), mdText(conf.Symptom), conf.Tried)
	}
}

// failingCases writes "1 failing case" or "N failing cases".
func failingCases(n int) string {
	if n == 1 {
		return "1 failing case"
	}
	return fmt.Sprintf("%d failing cases", n)
}

// symptomsCell writes a cause's op and symptom for a table cell, with
// its other symptoms if its failures have several.
func symptomsCell(c Cause) string {
	cell := mdCode(c.Group)
	if len(c.Symptoms) > 1 {
		var others []string
		for _, s := range c.Symptoms[1:] {
			others = append(others, mdCode(s))
		}
		cell += " (also " + strings.Join(others, ", ") + ")"
	}
	return cell
}

// causeCell writes a cause's rule for a table cell, or that no rule
// explains the cause's failures.
func causeCell(c Cause) string {
	if !c.Explained() {
		return "none: no rule explains these"
	}
	return mdCode(c.Rule)
}

// writeFailure writes the body of a failing case's block: its detail as
// a paragraph, its snippet in a code fence, and the end of the block.
func writeFailure(b *strings.Builder, f *Failure) {
	snippet := strings.TrimSuffix(f.Snippet, "\n")
	fence := fence(snippet)
	fmt.Fprintf(b, "%s\n\n%spython\n%s\n%s\n</details>\n\n", mdText(cut(f.Detail)), fence, mdSnippet(snippet), fence)
}

func mark(c *Cell) string {
	switch {
	case c.Total == 0:
		return "➖"
	case c.Passed < c.Total:
		return "❌"
	case c.MostlySkipped():
		return "⚠️"
	}
	return "✅"
}

// cut shortens a message to its first 400 bytes (on a character
// boundary), marking the cut with "...".
func cut(s string) string {
	if len(s) <= 400 {
		return s
	}
	n := 400
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// writeTableHead writes the head of a Markdown table: the columns of
// first, then one per implementation of impls, and its delimiter row,
// the delimiters of first then one per implementation.
func writeTableHead(b *strings.Builder, first, delimiters string, impls []Impl) {
	b.WriteString(first)
	for _, im := range impls {
		fmt.Fprintf(b, " %s |", mdText(im.Label()))
	}
	b.WriteString("\n" + delimiters)
	for range impls {
		b.WriteString("---|")
	}
	b.WriteString("\n")
}

// mdText escapes text for a line of Markdown (a paragraph, a heading or
// a table cell): control characters as printable.Escape writes them (so
// the text stays on its line), <, > and & as entities (no HTML, no
// comment hiding the rest), a backslash before every character that can
// start markup inside a line (` * [ ] | ~ \\, and _ unless between letters
// or digits, where it cannot), and a backslash before a first character
// that would start a block (# - + and the . or ) of "1. " or "1) ").
// Leading and trailing spaces are dropped (four spaces would start a code
// block).
func mdText(s string) string {
	s = strings.TrimSpace(printable.Escape(s))
	var b strings.Builder
	for i, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
			continue
		case '<':
			b.WriteString("&lt;")
			continue
		case '>':
			b.WriteString("&gt;")
			continue
		case '`', '*', '[', ']', '|', '~', '\\':
			b.WriteByte('\\')
		case '_':
			if i == 0 || i+1 == len(s) || !isAlnum(s[i-1]) || !isAlnum(s[i+1]) {
				b.WriteByte('\\')
			}
		case '#', '-', '+':
			if i == 0 {
				b.WriteByte('\\')
			}
		case '.', ')':
			// "1. " and "1) " at the start make a numbered list.
			if i > 0 && strings.TrimLeft(s[:i], "0123456789") == "" && (i+1 == len(s) || s[i+1] == ' ') {
				b.WriteByte('\\')
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isAlnum reports whether c is an ASCII letter or digit.
func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// mdCode returns text as a Markdown code span in a table cell: control
// characters escaped (printable.Escape), delimited by a run of backticks
// longer than any in the text, | escaped as GitHub's tables require
// inside a code span. The empty text is an empty cell.
func mdCode(s string) string {
	s = printable.Escape(s)
	if s == "" {
		return ""
	}
	s = strings.ReplaceAll(s, "|", "\\|")
	ticks := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") || strings.Trim(s, " ") == "" {
		s = " " + s + " " // a code span strips one space on each side
	}
	return ticks + s + ticks
}

// htmlText escapes text for HTML that GitHub shows as it is (the summary
// line of a collapsed block is an HTML block: no Markdown there): control
// characters escaped (printable.Escape), then <, >, &, ' and " as
// entities.
func htmlText(s string) string {
	return html.EscapeString(printable.Escape(s))
}

// fence returns the backtick fence of a code block holding code: longer
// than any run of backticks in it, at least three.
func fence(code string) string {
	return strings.Repeat("`", max(3, longestRun(code, '`')+1))
}

// mdSnippet makes a snippet safe inside a code fence: control characters
// other than newlines escaped, so that no line can end elsewhere than at
// the snippet's own newlines (conform's snippets hold none; this keeps the
// fence intact whatever a Failure holds).
func mdSnippet(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = printable.Escape(l)
	}
	return strings.Join(lines, "\n")
}

// longestRun returns the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// WriteHTML writes one self-contained page: a colour matrix of rules by
// implementations with filters, and the smallest failing case of a cell
// (with its reproduction snippet) shown on click. The data is embedded as
// JSON and the table is built by the page's script.
func (r *Report) WriteHTML(w io.Writer) error {
	labels := make([]string, len(r.Impls))
	for i, im := range r.Impls {
		labels[i] = im.Label()
	}
	// The column headings come with the data, as Label writes them.
	data, err := json.Marshal(struct {
		*Report
		Labels []string `json:"labels"`
	}{r, labels})
	if err != nil {
		return err
	}
	return pageTemplate.Execute(w, map[string]any{"Title": "Spec compliance: " + r.Corpus, "Data": template.JS(data)})
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{{.Title}}</title>
<style>
 body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
 h1 { font-size: 1.4em; margin: 0 0 .3em; }
 .controls { display: flex; gap: 1.5em; flex-wrap: wrap; align-items: center; margin: .8em 0; }
 .controls label { white-space: nowrap; }
 table { border-collapse: collapse; }
 th, td { padding: 4px 8px; border: 1px solid #ddd; }
 th { background: #f4f4f4; position: sticky; top: 0; }
 td.rule { font-family: ui-monospace, monospace; }
 td.group, td.n { color: #666; }
 td.cell { text-align: center; cursor: default; min-width: 7em; }
 td.cell.fail { cursor: pointer; font-weight: 600; }
 td.cell.none { color: #aaa; background: #fafafa; }
 tr.group-start td { border-top: 2px solid #999; }
 #detail { margin-top: 1em; padding: 1em; border: 1px solid #ccc; background: #fffdf5; display: none; }
 #detail pre, #cause-detail pre { background: #272822; color: #f8f8f2; padding: .8em; overflow-x: auto; }
 .legend span { display: inline-block; width: 1em; height: 1em; vertical-align: middle; margin: 0 .3em 0 1em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<div id="summary"></div>
<div class="controls">
 <label>Group <select id="group"><option value="">all</option></select></label>
 <label><input type="checkbox" id="failing"> only rules with failures</label>
 <label>Search <input type="search" id="search" placeholder="rule or description"></label>
 <span id="impls"></span>
 <span class="legend">pass rate<span style="background:hsl(120,60%,82%)"></span>100%<span style="background:hsl(60,75%,80%)"></span>50%<span style="background:hsl(0,70%,80%)"></span>0%</span>
</div>
<table id="matrix"><thead></thead><tbody></tbody></table>
<div id="detail"></div>
<h2>Failures by cause</h2>
<p>Every failing case of every implementation, grouped by the rule of the reference semantics that explains it (as conform check finds it); failures that no rule explains stay grouped by op and symptom. Click a row for the rule, the evidence and its smallest case.</p>
<table id="causes"><thead><tr><th>implementation</th><th>cause</th><th>op/symptom</th><th>failing cases</th><th>corpus records</th></tr></thead><tbody></tbody></table>
<div id="cause-detail"></div>
<script id="data" type="application/json">{{.Data}}</script>
<script>
"use strict";
const report = JSON.parse(document.getElementById("data").textContent);
const shown = report.impls.map(() => true);
const el = (tag, attrs, text) => { const e = document.createElement(tag); Object.assign(e, attrs || {}); if (text !== undefined) e.textContent = text; return e; };
document.getElementById("summary").textContent = report.cases + " cases, " + report.rows.length + " rules, " + report.impls.length + " implementations. Click a red cell for its smallest failing case.";
const groupSel = document.getElementById("group");
[...new Set(report.rows.map(r => r.group))].forEach(g => groupSel.appendChild(el("option", {value: g}, g)));
const implBox = document.getElementById("impls");
report.impls.forEach((im, i) => {
  const cb = el("input", {type: "checkbox", checked: true});
  cb.addEventListener("change", () => { shown[i] = cb.checked; render(); });
  const lab = el("label"); lab.appendChild(cb); lab.appendChild(document.createTextNode(" " + im.name + " "));
  implBox.appendChild(lab);
});
function mostlySkipped(c) { return c.skipped > c.total; }
function colour(c) {
  if (c.total === 0) return "";
  if (c.passed === c.total && mostlySkipped(c)) return "hsl(50,80%,80%)";
  const hue = Math.round(120 * c.passed / c.total);
  return "hsl(" + hue + ",65%,81%)";
}
function showDetail(row, i) {
  const c = row.cells[i], f = c.smallest_failure, d = document.getElementById("detail");
  d.innerHTML = "";
  d.appendChild(el("h2", {}, report.impls[i].name + " on " + row.id));
  d.appendChild(el("p", {}, row.description + ": " + c.passed + "/" + c.total + " passed. Smallest failing case " + f.id + " (" + f.elements + " input elements):"));
  d.appendChild(el("p", {}, f.detail));
  d.appendChild(el("pre", {}, f.snippet));
  d.style.display = "block";
  d.scrollIntoView({behavior: "smooth"});
}
function render() {
  const head = document.querySelector("#matrix thead"), body = document.querySelector("#matrix tbody");
  head.innerHTML = ""; body.innerHTML = "";
  const hr = el("tr");
  ["rule", "group", "cases"].forEach(h => hr.appendChild(el("th", {}, h)));
  report.impls.forEach((im, i) => { if (shown[i]) hr.appendChild(el("th", {}, report.labels[i])); });
  head.appendChild(hr);
  const g = groupSel.value, onlyFailing = document.getElementById("failing").checked;
  const q = document.getElementById("search").value.toLowerCase();
  let last = null;
  report.rows.forEach(row => {
    if (g && row.group !== g) return;
    const failing = row.cells.some((c, i) => shown[i] && c.passed < c.total);
    if (onlyFailing && !failing) return;
    if (q && !(row.id + " " + row.description).toLowerCase().includes(q)) return;
    const tr = el("tr", {className: "rule-row" + (row.group !== last ? " group-start" : "")});
    last = row.group;
    tr.appendChild(el("td", {className: "rule", title: row.description}, row.id));
    tr.appendChild(el("td", {className: "group"}, row.group));
    tr.appendChild(el("td", {className: "n"}, row.cases));
    row.cells.forEach((c, i) => {
      if (!shown[i]) return;
      const text = c.total === 0 ? (c.skipped ? "skipped " + c.skipped : "–") : c.passed + "/" + c.total + (c.skipped ? ", " + c.skipped + " skipped" : "");
      const td = el("td", {className: "cell" + (c.total === 0 ? " none" : c.passed < c.total ? " fail" : mostlySkipped(c) ? " skipped" : " pass")}, text);
      td.style.background = colour(c);
      if (c.smallest_failure) { td.title = "smallest failing case: " + c.smallest_failure.id; td.addEventListener("click", () => showDetail(row, i)); }
      tr.appendChild(td);
    });
    body.appendChild(tr);
  });
}
// Filters can be set from the address: #group=strided_slice&failing=1&q=shrink&hide=tfjs
const params = new URLSearchParams(location.hash.slice(1));
if (params.get("group")) groupSel.value = params.get("group");
if (params.get("failing")) document.getElementById("failing").checked = true;
if (params.get("q")) document.getElementById("search").value = params.get("q");
(params.get("hide") || "").split(",").forEach(name => {
  const i = report.impls.findIndex(im => im.name === name);
  if (i >= 0) { shown[i] = false; implBox.querySelectorAll("input")[i].checked = false; }
});
(report.causes || []).forEach(c => {
  const tr = el("tr", {className: "cause-row"});
  tr.appendChild(el("td", {}, c.impl));
  tr.appendChild(el("td", {className: "rule"}, c.rule || "none: no rule explains these"));
  tr.appendChild(el("td", {className: "rule"}, c.group + ((c.symptoms || []).length > 1 ? " (also " + c.symptoms.slice(1).join(", ") + ")" : "")));
  tr.appendChild(el("td", {className: "n"}, c.cases));
  tr.appendChild(el("td", {}, (c.recorded_classes || []).map(r => r.id + " (" + r.cases + ")").join(", ")));
  tr.style.cursor = "pointer";
  tr.addEventListener("click", () => {
    const d = document.getElementById("cause-detail"), f = c.smallest_failure;
    d.innerHTML = "";
    d.appendChild(el("h3", {}, c.impl + " " + (c.rule || "no rule explains") + " — " + c.group + ": smallest case " + f.id + " (" + f.elements + " input elements)"));
    if (c.rule) d.appendChild(el("p", {}, "Rule: " + c.statement + " (source: " + c.source + ")"));
    d.appendChild(el("p", {}, "Found: " + c.line));
    const conf = c.confirmation;
    if (conf && conf.confirmed) {
      d.appendChild(el("p", {}, "Confirmed by a neighbour: " + conf.failing + " fails (" + conf.failing_symptom + "); one edit away (" + conf.edit + "), " + conf.passing + " passes."));
    } else if (conf) {
      d.appendChild(el("p", {}, "Not confirmed: no neighbour of " + conf.failing + " without the rule passes (" + conf.tried + " tried)."));
    }
    (c.recorded_classes || []).forEach(r => d.appendChild(el("p", {}, "Corpus records " + r.id + " on " + r.cases + " of its cases: " + r.explanation)));
    d.appendChild(el("p", {}, f.detail));
    d.appendChild(el("pre", {}, f.snippet));
  });
  document.querySelector("#causes tbody").appendChild(tr);
});
groupSel.addEventListener("change", render);
document.getElementById("failing").addEventListener("change", render);
document.getElementById("search").addEventListener("input", render);
render();
</script>
</body>
</html>
`))

package report

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/conformsuite/conform/internal/printable"
)

// outside are the texts of a report that come from a child or a case.
type outside struct {
	corpus, name, version, rule, group, caseID, detail, snippet, class, explanation string
}

// neutral is outside with every text replaced by plain words.
var neutral = outside{"corpus", "impl", "1", "rule", "group", "case", "detail", "x[0]", "class", "explanation"}

// hostile returns a report whose every text that comes from outside is
// taken from o: three implementations, two failing cells (one in a row
// of the ecosystem view, where o.name stands alone), one cause a rule
// explains and one group no rule explains.
func hostile(o outside) *Report {
	f := &Failure{ID: o.caseID, Detail: o.detail, Elements: 3, Snippet: o.snippet}
	return &Report{
		Corpus: o.corpus, Cases: 2,
		Impls: []Impl{{Name: o.name, Version: o.version}, {Name: "engine", Version: o.version}, {Name: "other", Version: "2"}},
		Rows: []Row{
			{Feature: Feature{ID: o.rule, Group: o.group, Description: o.detail}, Cases: 2,
				Cells: []*Cell{{Passed: 1, Total: 2, Smallest: f}, {Passed: 2, Total: 2}, {Passed: 2, Total: 2}}},
			{Feature: Feature{ID: "op:" + o.rule, Group: o.group}, Cases: 1,
				Cells: []*Cell{{Skipped: 1}, {Passed: 1, Total: 1}, {Skipped: 1}}},
			// A rule of the engine's table: a row of the ecosystem view.
			{Feature: Feature{ID: "getitem/negative-step", Group: o.group, Description: o.detail}, Cases: 2,
				Cells: []*Cell{{Passed: 0, Total: 2, Smallest: f, Causes: []CellCause{{Rule: o.rule, Cases: 1}, {Group: o.group, Cases: 1}}}, {Passed: 2, Total: 2}, {Passed: 2, Total: 2}}},
		},
		Causes: []Cause{
			{Impl: o.name, Rule: "op/" + o.class, Statement: o.explanation, Source: o.explanation, Group: o.group, Line: o.detail,
				Cases: 1, Smallest: f, Recorded: []Recorded{{ID: o.class, Explanation: o.explanation, Cases: 1}}, CaseIDs: []string{o.caseID},
				Symptoms: []string{o.group, o.detail}, Confirmation: &Confirmation{Confirmed: true, Failing: o.detail, Symptom: o.group,
					Passing: o.caseID, Edit: o.explanation, Reproduced: true, Tried: 1}},
			{Impl: o.name, Group: o.group, Line: o.detail, Cases: 1, Smallest: f, CaseIDs: []string{o.caseID}},
		},
	}
}

var conformTags = strings.NewReplacer("<details>", "", "</details>", "", "<summary>", "", "</summary>", "", "<b>", "", "</b>", "", "<code>", "", "</code>", "")

var (
	fenceLine = regexp.MustCompile("^ {0,3}(`{3,})(.*)$")
	numbered  = regexp.MustCompile(`^[0-9]+[.)]( |$)`)
)

// markdownLines splits md into the lines outside code fences and checks
// the fences: each opens with conform's "```python" line (any number of
// backticks from three), closes with a line of the same backticks, and is
// followed by the end of its block.
func markdownLines(t *testing.T, md string) (outside []string, fences int) {
	t.Helper()
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceLine.FindStringSubmatch(lines[i])
		if m == nil {
			outside = append(outside, lines[i])
			continue
		}
		if m[2] != "python" || strings.HasPrefix(lines[i], " ") {
			t.Fatalf("line %d opens a code fence conform did not write: %q", i+1, lines[i])
		}
		ticks := m[1]
		closed := false
		for i++; i < len(lines); i++ {
			if c := fenceLine.FindStringSubmatch(lines[i]); c != nil && len(c[1]) >= len(ticks) && strings.TrimSpace(c[2]) == "" {
				closed = lines[i] == ticks && i+1 < len(lines) && lines[i+1] == "</details>"
				break
			}
		}
		if !closed {
			t.Fatalf("the code fence %q is closed elsewhere than where conform closes it", ticks)
		}
		fences++
		outside = append(outside, "```")
	}
	return outside, fences
}

// pipes counts the unescaped | of a table line: the cell separators.
func pipes(line string) int {
	n := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			n++
		}
	}
	return n
}

// withoutCodeSpans returns a Markdown line without its code spans, whose
// text is shown as it is: a run of backticks not escaped by a backslash
// opens one, the next run of the same length closes it.
func withoutCodeSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line):
			b.WriteString(line[i : i+2])
			i++
		case c == '`':
			n := len(line[i:]) - len(strings.TrimLeft(line[i:], "`"))
			ticks, rest := line[i:i+n], line[i+n:]
			end := -1
			for j := 0; j < len(rest); {
				k := strings.Index(rest[j:], ticks)
				if k < 0 {
					break
				}
				k += j
				m := len(rest[k:]) - len(strings.TrimLeft(rest[k:], "`"))
				if m == n {
					end = k
					break
				}
				j = k + m
			}
			if end < 0 {
				b.WriteString(ticks) // no closing run: literal backticks
				i += n - 1
				continue
			}
			i += n + end + n - 1
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// markdownPages are the Markdown renderings of a report: the report and
// its ecosystem view.
var markdownPages = map[string]func(*Report, io.Writer) error{
	"report":    (*Report).WriteMarkdown,
	"ecosystem": func(r *Report, w io.Writer) error { return r.Ecosystem("2026-01-02").WriteMarkdown(w) },
}

// checkMarkdown checks that each Markdown page of hostile(o) has the
// structure of the page of hostile(neutral): the same lines outside code
// fences, each of the same kind (blank, table row with as many cells,
// HTML, heading, fence, paragraph not starting a block), the same fences,
// no HTML conform did not write, and no control characters.
func checkMarkdown(t *testing.T, o outside) {
	t.Helper()
	for _, write := range markdownPages {
		checkMarkdownPage(t, o, write)
	}
}

// checkMarkdownPage is checkMarkdown for the page write writes.
func checkMarkdownPage(t *testing.T, o outside, write func(*Report, io.Writer) error) {
	t.Helper()
	render := func(o outside) string {
		var b bytes.Buffer
		if err := write(hostile(o), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	md, want := render(o), render(neutral)
	got, fences := markdownLines(t, md)
	ref, refFences := markdownLines(t, want)
	if len(got) != len(ref) || fences != refFences {
		t.Fatalf("the Markdown has %d lines outside %d code fences, want %d outside %d:\n%s", len(got), fences, len(ref), refFences, md)
	}
	for i, line := range got {
		r := ref[i]
		switch {
		case r == "" || r == "```":
			if line != r {
				t.Fatalf("line %q stands where conform writes %q:\n%s", line, r, md)
			}
		case r[0] == '|' || r[0] == '<' || r[0] == '#':
			if line[0] != r[0] || r[0] == '|' && pipes(line) != pipes(r) {
				t.Fatalf("line %q (%d cells) stands where conform writes %q (%d cells):\n%s", line, pipes(line), r, pipes(r), md)
			}
		case line == "": // an empty paragraph is a blank line
		default: // a paragraph
			if strings.ContainsAny(line[:1], "#-+*>|<` ") || numbered.MatchString(line) {
				t.Fatalf("paragraph line %q starts a block:\n%s", line, md)
			}
		}
		if strings.Contains(conformTags.Replace(withoutCodeSpans(line)), "<") {
			t.Fatalf("line %q holds HTML conform did not write:\n%s", line, md)
		}
	}
	for _, line := range strings.Split(md, "\n") {
		if printable.Escape(line) != line {
			t.Fatalf("line %q holds control characters", line)
		}
	}
}

// TestMarkdownEscapesOutsideText checks that texts from a child or a case
// cannot change the structure of the Markdown report.
func TestMarkdownEscapesOutsideText(t *testing.T) {
	tests := []struct {
		rule string
		o    outside
	}{
		{"an HTML comment in a child's name cannot hide the rest", with(func(o *outside) { o.name = "evil <!-- " })},
		{"a | in a version cannot add a table column", with(func(o *outside) { o.version = "1 | ✅ 9/9" })},
		{"an ID cannot inject HTML", with(func(o *outside) { o.caseID = "<h1>ALL PASSED</h1>"; o.rule = "</code><h1>x</h1>" })},
		{"a snippet cannot close the code fence", with(func(o *outside) { o.snippet = "x = 1\n```\n# ALL PASSED\n````" })},
		{"a detail cannot start a heading, a list or a new line", with(func(o *outside) { o.detail = "# ALL PASSED\n\n- 17732 passed, 0 failed" })},
		{"a detail cannot start an indented code block or a numbered list", with(func(o *outside) { o.detail = "    1. code" })},
		{"a backtick in an ID cannot end its code span", with(func(o *outside) { o.rule = "a`|`b"; o.class = "`` | ``" })},
		{"a group cannot break the table with a newline", with(func(o *outside) { o.group = "g\n| x | y |" })},
		{"escapes and bidirectional controls are escaped", with(func(o *outside) { o.explanation = "\x1b[2J\u202eok\r" })},
		{"a corpus name cannot add a heading line", with(func(o *outside) { o.corpus = "c\n# ALL PASSED" })},
		{"a detail cannot define a link reference", with(func(o *outside) { o.detail = "[x]: https://example.com" })},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) { checkMarkdown(t, tt.o) })
	}
}

func TestMDText(t *testing.T) {
	tests := []struct {
		rule, in, want string
	}{
		{"plain words, versions and intraword underscores stay as they are", "numpy 1.24.2 batch_dims", "numpy 1.24.2 batch_dims"},
		{"an underscore that could start emphasis is escaped", "_a_ b_", `\_a\_ b\_`},
		{"HTML is entities", "<!-- & -->", "&lt;!-- &amp; --&gt;"},
		{"a numbered list marker at the start is escaped", "1. x", `1\. x`},
		{"a heading marker at the start is escaped", "# x", `\# x`},
		{"a newline is an escape, its backslash escaped", "a\nb", `a\\nb`},
	}
	for _, tt := range tests {
		if got := mdText(tt.in); got != tt.want {
			t.Errorf("%s: mdText(%q) = %q, want %q", tt.rule, tt.in, got, tt.want)
		}
	}
}

func with(change func(*outside)) outside {
	o := neutral
	change(&o)
	return o
}

// FuzzMarkdown renders reports with arbitrary texts wherever a text
// comes from a child or a case and checks the structure of the Markdown.
func FuzzMarkdown(f *testing.F) {
	f.Add("c", "evil <!-- ", "1 | 2", "a`b", "g", "<h1>ALL PASSED</h1>", "# x\n- y", "```\nz", "``", "\x1b[1m|")
	f.Add("", "", "", "", "", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, corpus, name, version, rule, group, caseID, detail, snippet, class, explanation string) {
		checkMarkdown(t, outside{corpus, name, version, rule, group, caseID, detail, snippet, class, explanation})
	})
}

var tagName = regexp.MustCompile(`<(/?[A-Za-z][A-Za-z0-9-]*)`)

// checkHTML checks that the pages of hostile(o), the report's and its
// ecosystem view's, have exactly the elements of the pages of
// hostile(neutral), and that the report's embedded data reads back as the
// report.
func checkHTML(t *testing.T, o outside) {
	t.Helper()
	render := func(r *Report, ecosystem bool) string {
		var b bytes.Buffer
		write := r.WriteHTML
		if ecosystem {
			write = r.Ecosystem("2026-01-02").WriteHTML
		}
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	r := hostile(o)
	for _, ecosystem := range []bool{false, true} {
		page, want := render(r, ecosystem), render(hostile(neutral), ecosystem)
		if got, ref := tagName.FindAllString(page, -1), tagName.FindAllString(want, -1); !cmp.Equal(got, ref) {
			t.Fatalf("the page (ecosystem view: %v) has elements conform did not write: %s", ecosystem, cmp.Diff(ref, got))
		}
	}
	page := render(r, false)
	const open = `<script id="data" type="application/json">`
	_, data, _ := strings.Cut(page, open)
	data, _, _ = strings.Cut(data, "</script>")
	var back Report
	if err := json.Unmarshal([]byte(data), &back); err != nil {
		t.Fatalf("the embedded data is not the report: %v", err)
	}
	for _, s := range []string{o.corpus, o.name, o.version, o.rule, o.group, o.caseID, o.detail, o.snippet, o.class, o.explanation} {
		if !utf8.ValidString(s) {
			return // JSON carries U+FFFD for bytes that are not UTF-8
		}
	}
	if diff := cmp.Diff(r, &back, cmpopts.IgnoreUnexported(Cause{})); diff != "" { // the JSON has no column numbers
		t.Fatalf("the embedded data reads back otherwise:\n%s", diff)
	}
}

func TestHTMLEscapesOutsideText(t *testing.T) {
	for _, o := range []outside{
		with(func(o *outside) { o.corpus = "</title><script>alert(1)</script>" }),
		with(func(o *outside) { o.detail = "</script><h1>ALL PASSED</h1><!--" }),
		with(func(o *outside) { o.name = "\u2028\u2029</SCRIPT >" }),
	} {
		checkHTML(t, o)
	}
}

// FuzzHTML renders reports with arbitrary texts wherever a text comes
// from a child or a case and checks the page's elements and data.
func FuzzHTML(f *testing.F) {
	f.Add("</title><b>", "</script>", "1", "a", "g", "<h1>x</h1>", "<!--", "]]>", "c", "\u2028")
	f.Fuzz(func(t *testing.T, corpus, name, version, rule, group, caseID, detail, snippet, class, explanation string) {
		checkHTML(t, outside{corpus, name, version, rule, group, caseID, detail, snippet, class, explanation})
	})
}

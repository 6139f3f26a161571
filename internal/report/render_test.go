package report

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sample is a small report: two rules, two implementations, one failure.
func sample() *Report {
	return &Report{
		Corpus: "test corpus", Cases: 3,
		Impls: []Impl{{Name: "engine", Version: "1"}, {Name: "broken", Version: "2"}},
		Rows: []Row{
			{Feature: Feature{ID: "negative-stride", Group: "ranges", Description: "a range with a negative stride"}, Cases: 2,
				Cells: []*Cell{{Passed: 2, Total: 2}, {Passed: 1, Total: 2, Smallest: &Failure{ID: "c/1", Detail: "element [0] is 1, want 2", Elements: 3, Snippet: "x[::-1]"}}}},
			{Feature: Feature{ID: "dtype:f2", Group: "dtypes", Description: "data of dtype f2"}, Cases: 1,
				Cells: []*Cell{{Passed: 1, Total: 1}, {Skipped: 1}}},
		},
		Causes: []Cause{{Impl: "broken", Rule: "getitem/negative-step", Statement: "a negative step walks backwards", Source: "NumPy docs",
			Group: "getitem/values", Line: "getitem/negative-step — getitem/values: 2 failing cases", Cases: 1,
			Recorded: []Recorded{{ID: "broken-reversal", Explanation: "reverses the wrong way", Cases: 1}},
			Smallest: &Failure{ID: "c/1", Detail: "element [0] is 1, want 2", Elements: 3, Snippet: "x[::-1]"}}},
	}
}

// TestRecordedClass checks how a case's "disagreement" field names the
// class of each implementation.
func TestRecordedClass(t *testing.T) {
	for _, tt := range []struct {
		field, impl, want string
		why               string
	}{
		{"tfjs: tfjs-slice-rank0; tflite: tflite-trap", "tflite", "tflite-trap", "the entry for the implementation"},
		{"tfjs: tfjs-slice-rank0", "tfjs", "tfjs-slice-rank0", "a single entry"},
		{"tfjs: tfjs-slice-rank0", "tflite", "", "no entry for the implementation"},
		{"", "engine", "", "no disagreement recorded"},
		{"tfjsx: a; tfjs: b", "tfjs", "b", "names match exactly, not by prefix"},
	} {
		if got := recordedClass(tt.field, tt.impl); got != tt.want {
			t.Errorf("%s: recordedClass(%q, %q) = %q, want %q", tt.why, tt.field, tt.impl, got, tt.want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := sample().WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"| `negative-stride` | ranges | 2 | ✅ 2/2 | ❌ 1/2 |",
		"| `dtype:f2` | dtypes | 1 | ✅ 1/1 | ➖ skipped (1) |",
		"<b>broken</b> fails <code>c/1</code>",
		"```python\nx[::-1]\n```\n</details>",
		"## Failures by cause",
		"| broken | `getitem/negative-step` | `getitem/values` | 1 | `broken-reversal` (1) |",
		"<b>broken</b> <code>getitem/negative-step — getitem/values</code>: 1 failing case, smallest <code>c/1</code>",
		"Rule: a negative step walks backwards (source: NumPy docs)",
		"Corpus records `broken-reversal` on 1 of its cases: reverses the wrong way",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := sample().WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Rows[0].Cells[1].Smallest.ID != "c/1" {
		t.Fatalf("JSON report does not round-trip: %v\n%s", err, b.String())
	}
}

// TestHTMLInBrowser renders the page in headless Chromium and checks
// that its script builds the matrix, colours the cells, and applies the
// filters given in the address.
func TestHTMLInBrowser(t *testing.T) {
	var browser string
	var err error
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if browser, err = exec.LookPath(name); err == nil {
			break
		}
	}
	if err != nil {
		if os.Getenv("CONFORM_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("chromium required but not installed")
		}
		t.Skip("chromium not installed (apt-get install chromium)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	r := sample()
	r.Impls[1].Errors = "class" // compared by exception class: its heading says so
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte("<script src")) || bytes.Contains(b.Bytes(), []byte("<link")) {
		t.Error("the page loads external resources; it must be self-contained")
	}
	dom := func(hash string) string {
		t.Helper()
		profile := filepath.Join(dir, "profile"+hash)
		cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
			"--disable-background-networking", "--disable-component-update", "--disable-sync",
			"--user-data-dir="+profile, "--virtual-time-budget=2000", "--dump-dom", "file://"+page+hash)
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("chromium: %v\n%s", err, stderr.String())
			}
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
			t.Fatal("chromium did not finish in 60 s")
		}
		return out.String()
	}
	all := dom("")
	if n := strings.Count(all, `class="rule-row`); n != 2 {
		t.Errorf("the script rendered %d rule rows, want 2", n)
	}
	// Cells are coloured by pass rate: green at 100%, yellow at 50%.
	for _, want := range []string{`>1/2<`, `>2/2<`, `skipped 1`,
		`class="cell pass" style="background: rgb(175, 238, 175);"`,
		`class="cell fail" title="smallest failing case: c/1" style="background: rgb(238, 238, 175);"`,
		`<td class="rule">getitem/negative-step</td>`, `<td>broken-reversal (1)</td>`,
		`<th>engine 1</th>`, `<th>broken 2 (errors by exception class)</th>`} {
		if !strings.Contains(all, want) {
			t.Errorf("rendered page lacks %q", want)
		}
	}
	failing := dom("#failing=1")
	if n := strings.Count(failing, `class="rule-row`); n != 1 || !strings.Contains(failing, ">negative-stride<") {
		t.Errorf("with #failing=1 the page shows %d rows, want only negative-stride", n)
	}
	hidden := dom("#hide=broken")
	if strings.Contains(hidden, ">broken 2") || !strings.Contains(hidden, ">engine 1<") {
		t.Error("#hide=broken should hide the broken column only")
	}
}

// TestCellMark checks the mark of a cell: a failure is ❌ however many
// cases were skipped, and a cell without failures is a pass only if its
// implementation ran at least as many of the rule's cases as it skipped.
func TestCellMark(t *testing.T) {
	for _, tt := range []struct {
		cell Cell
		want string
		why  string
	}{
		{Cell{Passed: 90, Total: 90}, "✅", "every case run passed, none skipped"},
		{Cell{Passed: 90, Total: 90, Skipped: 90}, "✅", "half skipped is not mostly skipped"},
		{Cell{Passed: 90, Total: 90, Skipped: 1536}, "⚠️", "most of the rule's cases skipped: no pass"},
		{Cell{Passed: 89, Total: 90, Skipped: 1536}, "❌", "a failure shows whatever was skipped"},
		{Cell{Passed: 0, Total: 1}, "❌", "the only case run failed"},
		{Cell{Skipped: 4}, "➖", "nothing run"},
		{Cell{}, "➖", "no case of the rule"},
	} {
		if got := mark(&tt.cell); got != tt.want {
			t.Errorf("%s: mark(%+v) = %s, want %s", tt.why, tt.cell, got, tt.want)
		}
	}
}

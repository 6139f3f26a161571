package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/confine"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/expr"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/protocol"
)

// robustnessDoc is the document whose generated tables the tests check.
const robustnessDoc = "../../docs/robustness.md"

// limitsTable is docs/robustness.md's table of the bounds conform holds
// on every input, built from the constants the code enforces.
func limitsTable() string {
	rows := []struct{ input, bound, beyond string }{
		{"case file, case list, `.npy` file, pack member", size(confine.DefaultLimit) + " (`--max-input`)", "refused before it is read: that case fails (`bad_input`)"},
		{"a case's JSON", size(casefile.MaxCaseBytes), "refused before it is parsed (`bad_input`)"},
		{"`.npy` header", size(npy.MaxHeaderBytes) + ", NumPy's own limit", "`bad_input`"},
		{"tensor rank", fmt.Sprint(engine.MaxRank, " dimensions"), "`bad_input` for a `.npy` file, `invalid_spec` for a result"},
		{"shape", "item size × product of the non-zero dimensions within int64 (NumPy's rule)", "`bad_input` for a `.npy` file, `invalid_spec` for a result"},
		{"an op's result", size(engine.DefaultOutputLimit) + " (`--max-output`)", "`invalid_spec`, before anything is allocated"},
		{"getitem subscript", size(expr.MaxSourceBytes), "`invalid_spec`"},
		{"strided_slice spec", fmt.Sprint(engine.MaxSpecLength, " entries"), "`invalid_spec`"},
		{"`blobs.npz` pack", fmt.Sprintf("%s members, a central directory of %s", count(corpus.MaxPackMembers), size(corpus.MaxPackDirectory)), "the cases that use the pack fail; the rest of the corpus runs"},
		{"`MANIFEST`", fmt.Sprintf("%s, %s files", size(corpus.MaxManifestBytes), count(corpus.MaxManifestFiles)), "one integrity problem"},
		{"integrity problems printed", count(corpus.MaxListedProblems) + " lines", "one more line counts the rest; JSON and JUnit carry the total"},
		{"`--known-failures` file", size(check.MaxKnownFailuresBytes) + " (or `--max-input` if smaller), a regular file", "exit status 2 before the run"},
		{"cases in flight to a child (`check`, `report`)", fmt.Sprintf("%d cases and %s of inputs", check.PipelinedCases, size(check.DefaultMaxBytes)), "the next case waits; a larger case runs alone"},
		{"request lines in flight to a child", size(protocol.DefaultMaxInflightBytes), "the next request waits; a larger one runs alone"},
		{"a child's response line", size(protocol.DefaultMaxLine) + " (the base64 of `--max-output` plus 1 MiB)", "the cases in flight crash; the child is restarted"},
		{"a child's hello name, version and op names, skip and crash codes", size(protocol.MaxNameBytes), "cut, ending in `... (truncated, N bytes)`"},
		{"a child's error messages, skip and crash reasons", size(protocol.MaxMessageBytes), "cut, ending in `... (truncated, N bytes)`"},
		{"`conform serve` request line", size(protocol.MaxRequestLine), "serve answers the requests before it and stops with an error"},
		{"`conform serve` requests read ahead of their answers", size(protocol.MaxPending), "reading waits"},
	}
	var b strings.Builder
	b.WriteString("| input | bound | beyond it |\n|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.input, r.bound, r.beyond)
	}
	return b.String()
}

// size writes a byte count as a power-of-two unit when it is one.
func size(n int64) string {
	for _, u := range []struct {
		shift int
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d %s", n>>u.shift, u.name)
		}
	}
	return count(int(n)) + " bytes"
}

// count writes n with thousands separators.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestLimitsTable checks that docs/robustness.md's table of input bounds
// is the one the code's constants give. UPDATE_DOC_TABLES=1 rewrites it.
func TestLimitsTable(t *testing.T) {
	checkDocTable(t, robustnessDoc, "limits", limitsTable())
}

// checkDocTable checks that the generated block name of the document at
// path holds want: the lines between "<!-- generated: name -->" and the
// first blank line after it. With UPDATE_DOC_TABLES=1 it rewrites the
// block instead.
func checkDocTable(t *testing.T, path, name, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	marker := "<!-- generated: " + name + " -->\n"
	start := strings.Index(doc, marker)
	if start < 0 {
		t.Fatalf("%s has no %q block", path, strings.TrimSpace(marker))
	}
	start += len(marker)
	end := strings.Index(doc[start:], "\n\n")
	if end < 0 {
		end = len(doc) - start
	}
	end += start + 1
	if doc[start:end] == want {
		return
	}
	if os.Getenv("UPDATE_DOC_TABLES") == "1" {
		if err := os.WriteFile(path, []byte(doc[:start]+want+doc[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the %s table is not the generated one (UPDATE_DOC_TABLES=1 go test ./cmd/conform -run %s rewrites it); want:\n%s", path, name, t.Name(), want)
}

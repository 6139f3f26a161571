package report

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestReportsSayErrorLevel checks that every rendering of the report
// heads the column of an implementation compared by exception class so,
// and heads a column compared by kind with its name and version only.
func TestReportsSayErrorLevel(t *testing.T) {
	byClass := Impl{Name: "torch", Version: "2", Errors: "class"}
	byKind := Impl{Name: "tfjs", Version: "4"}
	tests := []struct {
		rule   string
		impl   Impl
		format string
		want   string
	}{
		{"a Markdown column compared by class says so", byClass, "md", "| torch 2 (errors by exception class) |"},
		{"a Markdown column compared by kind is unchanged", byKind, "md", "| tfjs 4 |"},
		{"the HTML page's column compared by class says so", byClass, "html", `"labels":["torch 2 (errors by exception class)"]`},
		{"the HTML page's column compared by kind has name and version", byKind, "html", `"labels":["tfjs 4"]`},
	}
	for _, tc := range tests {
		var b bytes.Buffer
		r := &Report{Corpus: "c", Impls: []Impl{tc.impl}}
		write := map[string]func(io.Writer) error{"md": r.WriteMarkdown, "html": r.WriteHTML}[tc.format]
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("%s: no %q in\n%s", tc.rule, tc.want, b.String())
		}
	}
}

// TestImplLabel checks the column heading of an implementation.
func TestImplLabel(t *testing.T) {
	for _, tc := range []struct {
		rule string
		impl Impl
		want string
	}{
		{"name and version", Impl{Name: "tfjs", Version: "4.22.0"}, "tfjs 4.22.0"},
		{"no version: the name alone", Impl{Name: "mylib"}, "mylib"},
		{"errors compared by exception class", Impl{Name: "torch", Version: "1.13", Errors: "class"}, "torch 1.13 (errors by exception class)"},
	} {
		if got := tc.impl.Label(); got != tc.want {
			t.Errorf("%s: Label() = %q, want %q", tc.rule, got, tc.want)
		}
	}
}

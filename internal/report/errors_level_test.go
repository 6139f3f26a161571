package report

import (
	"strings"
	"testing"
)

// TestMarkdownSaysErrorLevel checks that the report's column of an
// implementation compared by exception class says so, and that a column
// compared by kind is written as before.
func TestMarkdownSaysErrorLevel(t *testing.T) {
	tests := []struct {
		rule   string
		impl   Impl
		header string
	}{
		{"a column compared by class says so", Impl{Name: "torch", Version: "2", Errors: "class"}, "| torch 2 (errors by exception class) |"},
		{"a column compared by kind is unchanged", Impl{Name: "tfjs", Version: "4"}, "| tfjs 4 |"},
	}
	for _, tc := range tests {
		var b strings.Builder
		r := &Report{Corpus: "c", Impls: []Impl{tc.impl}}
		if err := r.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.header) {
			t.Errorf("%s: no %q in\n%s", tc.rule, tc.header, b.String())
		}
	}
}

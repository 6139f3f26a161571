package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// TestInternalError checks that a panic inside conform (a bug, not a
// property of the case) exits with status 3 and one line naming it an
// internal error, with the stack only when CONFORM_DEBUG=1, and writes
// nothing.
func TestInternalError(t *testing.T) {
	dir := t.TempDir()
	writeInput(t, dir, "x.npy", 2, 3)
	casePath := filepath.Join(dir, "case.json")
	if err := os.WriteFile(casePath, []byte(`{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[1]"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.npy")
	defer func(e func(*casefile.Case, engine.Rules) (*engine.Tensor, error)) { evaluate = e }(evaluate)
	evaluate = func(*casefile.Case, engine.Rules) (*engine.Tensor, error) { panic("planted engine bug") }
	panicking := &command{name: "panic", usage: []string{"panic"}, short: "panics", long: "Panics.\n",
		define: func(*flag.FlagSet) func([]string, stdio) int {
			return func([]string, stdio) int { panic("planted command bug") }
		}}
	defer func(c []*command) { commands = c }(commands)
	commands = append(commands, panicking)
	tests := []struct {
		rule  string
		args  []string
		debug bool
	}{
		{"an engine panic in eval is an internal error, not bad_input", []string{"eval", casePath, "-o", out}, false},
		{"with CONFORM_DEBUG=1 the stack follows the line", []string{"eval", casePath, "-o", out}, true},
		{"a panic in any command is an internal error", []string{"panic"}, false},
		{"a panic in any command shows its stack with CONFORM_DEBUG=1", []string{"panic"}, true},
	}
	for _, tt := range tests {
		debug := ""
		if tt.debug {
			debug = "1"
		}
		t.Setenv("CONFORM_DEBUG", debug)
		code, stdout, stderr := runCLI(tt.args...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		hasStack := strings.Contains(stderr, "goroutine ")
		switch {
		case code != exitInternal:
			t.Errorf("%s: exit %d, want %d; stderr %q", tt.rule, code, exitInternal, stderr)
		case !strings.Contains(lines[0], "internal error") || strings.Contains(lines[0], string(engine.BadInput)):
			t.Errorf("%s: first line %q does not name an internal error (or names an error kind)", tt.rule, lines[0])
		case !tt.debug && len(lines) != 1:
			t.Errorf("%s: %d lines on stderr, want 1:\n%s", tt.rule, len(lines), stderr)
		case hasStack != tt.debug:
			t.Errorf("%s: stack printed %v, want %v:\n%s", tt.rule, hasStack, tt.debug, stderr)
		case stdout != "":
			t.Errorf("%s: stdout %q, want nothing", tt.rule, stdout)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: the output file exists (%v)", tt.rule, err)
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetupCommandLine(t *testing.T) {
	tests := []struct {
		rule   string
		args   []string
		code   int
		stdout string // a part of stdout, or ""
		stderr string // a part of stderr, or ""
	}{
		{"setup --help prints the usage and succeeds", []string{"setup", "--help"}, 0, "", "Usage: conform setup [--oracles numpy,tfjs,ort,tflite]"},
		{"setup -h lists the --oracles flag and its default", []string{"setup", "-h"}, 0, "", `-oracles oracles`},
		{"an unknown oracle is a usage error", []string{"setup", "--oracles", "numpy,torch"}, 2, "", `unknown oracle "torch"`},
		{"an empty --oracles is a usage error", []string{"setup", "--oracles", ","}, 2, "", "names no oracle"},
		{"a positional argument is a usage error", []string{"setup", "numpy"}, 2, "", `unexpected argument "numpy"`},
		{"an unknown flag is a usage error", []string{"setup", "--frob"}, 2, "", "Usage: conform setup"},
		{"conform help lists setup", []string{"help"}, 0, "conform setup [--oracles", ""},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(tt.args...)
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d\nstderr: %s", tt.rule, code, tt.code, stderr)
		}
		if !strings.Contains(stdout, tt.stdout) {
			t.Errorf("%s: stdout lacks %q:\n%s", tt.rule, tt.stdout, stdout)
		}
		if !strings.Contains(stderr, tt.stderr) {
			t.Errorf("%s: stderr lacks %q:\n%s", tt.rule, tt.stderr, stderr)
		}
	}
}

// TestSetupReportsWhatIsMissing runs conform setup with no node and npm on
// PATH: it fails with exit status 1 and says what to install, after naming
// the oracle directory it chose.
func TestSetupReportsWhatIsMissing(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CONFORM_ORACLE_DIR", dir)
	t.Setenv("PATH", t.TempDir())
	code, stdout, stderr := runCLI("setup", "--oracles", "tfjs")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if want := "setup: oracle directory " + dir + " (CONFORM_ORACLE_DIR)"; !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	if want := "conform setup: node and npm not on PATH: install Node.js"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err == nil {
		t.Errorf("setup created node_modules without npm")
	}
}

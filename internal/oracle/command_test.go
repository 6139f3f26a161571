package oracle

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		rule string
		in   string
		want []string
	}{
		{"words split at white space", "node  oracle.js\t-x", []string{"node", "oracle.js", "-x"}},
		{"single quotes keep everything", `sh -c 'echo "a b" \x'`, []string{"sh", "-c", `echo "a b" \x`}},
		{"double quotes keep spaces and unescape \\\"", `prog "a b" "c\"d" "e\f"`, []string{"prog", "a b", `c"d`, `e\f`}},
		{"an unquoted backslash keeps the next character", `prog a\ b`, []string{"prog", "a b"}},
		{"quotes join with adjacent text", `prog x'y'"z"`, []string{"prog", "xyz"}},
		{"an empty quoted word is a word", `prog ''`, []string{"prog", ""}},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if err != nil {
			t.Errorf("%s: SplitCommand(%q): %v", tt.rule, tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: SplitCommand(%q) mismatch (-want +got):\n%s", tt.rule, tt.in, diff)
		}
	}
	for _, in := range []string{"", "   ", `prog 'open`, `prog "open`, `prog \`} {
		if got, err := SplitCommand(in); err == nil {
			t.Errorf("SplitCommand(%q) = %q, want an error", in, got)
		}
	}
}

func TestCommand(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule      string
		impl      string
		installed bool // false: the row needs an oracle that is not installed here
		want      []string
	}{
		{"numpy runs Debian's python3", "numpy", haveNumPy(), []string{"/usr/bin/python3", filepath.Join(dir, "numpy", "oracle.py")}},
		{"tfjs runs node", "tfjs", haveTFJS(), []string{"node", filepath.Join(dir, "tfjs", "oracle.js")}},
		{"anything else is a command line", "./impl --fast 'a b'", true, []string{"./impl", "--fast", "a b"}},
	}
	for _, tt := range tests {
		if !tt.installed {
			t.Logf("%s: skipped, the oracle is not installed (conform setup)", tt.rule)
			continue
		}
		got, err := Command(tt.impl)
		if err != nil {
			t.Errorf("%s: Command(%q): %v", tt.rule, tt.impl, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: Command(%q) mismatch (-want +got):\n%s", tt.rule, tt.impl, diff)
		}
	}
	t.Setenv("CONFORM_ORACLE_DIR", t.TempDir())
	if got, err := Command("numpy"); err == nil {
		t.Errorf("Command(numpy) with an empty CONFORM_ORACLE_DIR = %q, want an error", got)
	}
}

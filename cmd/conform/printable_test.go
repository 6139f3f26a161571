package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/conformsuite/conform/internal/printable"
)

// forged matches a line that looks like a summary line but is not
// conform's own: conform's never reports 17732 passed cases here.
var forged = regexp.MustCompile(`(?m)^\s*17732 passed`)

// injection is what the hostile child puts in everything it says: a
// terminal escape sequence, a forged summary line, a bidirectional
// override and a C1 control.
const injection = `\u001b[2J\u001b]0;pwned\u0007\n17732 passed, 0 failed, 0 skipped\r\u202e\u009b1m`

// hostileChild writes a conform/1 child whose hello name and version and
// whose every answer (error messages, crash reasons, skip reasons) carry
// injection, and which writes escape sequences to its stderr. It lists
// getitem only and answers the requests in turn with an error of the
// wrong kind, a reported crash and a skip.
func hostileChild(t *testing.T, dir string) string {
	t.Helper()
	child := filepath.Join(dir, "hostile.sh")
	// printf '%s' writes its arguments as they are (dash's echo would
	// interpret the backslashes).
	answer := func(field string) string {
		return `printf '%s%s%s\n' '{"id": ' "$id" ', ` + field + `}'`
	}
	writeFile(t, child, `#!/bin/sh
printf '\033[31mstderr\n17732 passed\n' >&2
printf '%s\n' '{"hello": {"name": "evil`+injection+`", "version": "1`+injection+`", "ops": ["getitem"]}}'
n=0
while read -r line; do
  id=$(echo "$line" | sed 's/.*"id": *\([0-9]*\).*/\1/')
  case $((n % 3)) in
  0) `+answer(`"error": {"kind": "out_of_range", "message": "msg`+injection+`"}`)+` ;;
  1) `+answer(`"crash": "crash`+injection+`"`)+` ;;
  2) `+answer(`"skip": "skip`+injection+`"`)+` ;;
  esac
  n=$((n + 1))
done
`)
	if err := os.Chmod(child, 0o755); err != nil {
		t.Fatal(err)
	}
	return child
}

// checkPrintable fails if out holds a control character other than a
// newline (or any character printable.Escape escapes) or a forged line.
func checkPrintable(t *testing.T, what, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if printable.Escape(line) != line {
			t.Errorf("%s: raw control characters in %q", what, line)
		}
	}
	if forged.MatchString(out) {
		t.Errorf("%s: a forged summary line:\n%s", what, out)
	}
}

// TestOutsideTextIsEscaped runs check and fuzz against a child whose
// names and messages carry escape sequences and newlines, over a corpus
// whose case IDs and subscripts carry them too: nothing of it reaches
// stdout or stderr raw, no line is forged, and the JUnit report is valid
// XML.
func TestOutsideTextIsEscaped(t *testing.T) {
	top := t.TempDir()
	child := hostileChild(t, top)
	dir := filepath.Join(top, "corpus")
	writeFile(t, filepath.Join(dir, "list.jsonl"), strings.Join([]string{
		`{"id":"zero-step` + injection + `","op":"getitem","inputs":{"x":"x.npy"},"index":"x[::0]","expect":{"error":"invalid_spec","source":"src` + injection + `"}}`,
		`{"id":"crash` + injection + `","op":"getitem","inputs":{"x":"x.npy"},"index":"x[0]\n` + injection + `","expect":{"error":"invalid_spec","source":"test"}}`,
		`{"id":"skip","op":"getitem","inputs":{"x":"x.npy"},"index":"x[0]","expect":{"output":"x.npy","source":"test"}}`,
		`{"id":"unlisted","op":"slice","inputs":{"x":"x.npy"},"begin":[0,0],"size":[-1,-1],"expect":{"output":"x.npy","source":"test"}}`,
	}, "\n")+"\n")
	writeInput(t, dir, "x.npy", 2, 3)
	junit := filepath.Join(top, "junit.xml")
	code, stdout, stderr := runCLI("check", "--cases", dir, "--impl", child, "--junit", junit, "-v")
	if code != 1 || !strings.Contains(stdout, `evil\x1b[2J`) || !strings.Contains(stdout, `\n17732 passed`) {
		t.Errorf("check: exit %d, want 1 with the child's text escaped\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	checkPrintable(t, "check stdout", stdout)
	checkPrintable(t, "check stderr", stderr)
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	for dec := xml.NewDecoder(bytes.NewReader(data)); ; {
		if _, err := dec.Token(); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("the JUnit report is not valid XML: %v", err)
		}
	}
	if !utf8.Valid(data) {
		t.Error("the JUnit report is not UTF-8")
	}

	// Every group of findings is shrunk and printed, with the child's
	// texts: which cases get the child's error, crash and skip answers
	// depends on the order the workers send them in.
	code, stdout, stderr = runCLI("fuzz", "--impl", child, "--oracle", "engine", "--max-cases", "12", "--duration", "30s",
		"--shrink-time", "1s", "--max-findings", "12", "--out", filepath.Join(top, "findings"))
	if code != 1 || !strings.Contains(stdout, `msg\x1b[2J`) {
		t.Errorf("fuzz: exit %d, want 1 with the child's messages escaped\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	checkPrintable(t, "fuzz stdout", stdout)
	checkPrintable(t, "fuzz stderr", stderr)
}

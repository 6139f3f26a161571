package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/conformsuite/conform/internal/corpus"
)

// TestReportOutputsRefuseInputs checks that check's --junit and --json and
// report's --out never replace a file the run reads — the corpus's files,
// its MANIFEST, the known-failures file, the implementation's program —
// under any spelling, hard link or symbolic link, nor a directory, nor
// each other: the run is refused before it starts (exit 2, one line on
// stderr, nothing on stdout) and nothing under the test's directory
// changes. Each row prepares the directory (corpus/ with list.jsonl,
// x.npy and a MANIFEST; known.txt) and returns the command line.
func TestReportOutputsRefuseInputs(t *testing.T) {
	tests := []struct {
		rule string
		args func(t *testing.T, top, cases, known string) []string
	}{
		{"--junit naming the corpus's case list is refused (it used to be truncated)", func(t *testing.T, top, cases, known string) []string {
			return []string{"check", "--cases", cases, "--junit", filepath.Join(cases, "list.jsonl")}
		}},
		{"--json naming the corpus's MANIFEST by another spelling is refused", func(t *testing.T, top, cases, known string) []string {
			return []string{"check", "--cases", cases, "--json", cases + "/./sub/../" + corpus.ManifestName}
		}},
		{"--json through a symbolic link to a corpus input is refused (it used to be followed)", func(t *testing.T, top, cases, known string) []string {
			symlink(t, filepath.Join(cases, "x.npy"), filepath.Join(top, "link.json"))
			return []string{"check", "--cases", cases, "--json", filepath.Join(top, "link.json")}
		}},
		{"--junit naming a hard link to the known-failures file is refused", func(t *testing.T, top, cases, known string) []string {
			if err := os.Link(known, filepath.Join(top, "hard.xml")); err != nil {
				t.Skip("hard link:", err)
			}
			return []string{"check", "--cases", cases, "--known-failures", known, "--junit", filepath.Join(top, "hard.xml")}
		}},
		{"--junit naming the known-failures file is refused with the embedded corpus too", func(t *testing.T, top, cases, known string) []string {
			return []string{"check", "--known-failures", known, "--junit", known}
		}},
		{"--json naming the implementation's program is refused", func(t *testing.T, top, cases, known string) []string {
			prog := filepath.Join(top, "adapter.sh")
			writeFile(t, prog, "#!/bin/sh\necho '{\"hello\": {\"name\": \"none\", \"version\": \"0\", \"ops\": []}}'\nexec cat >/dev/null\n")
			os.Chmod(prog, 0o755)
			return []string{"check", "--cases", cases, "--impl", "sh " + prog, "--json", prog}
		}},
		{"--junit and --json naming one file are refused (the second replaced the first)", func(t *testing.T, top, cases, known string) []string {
			return []string{"check", "--cases", cases, "--junit", filepath.Join(top, "r"), "--json", filepath.Join(top, "r")}
		}},
		{"--junit naming a directory is refused before the run", func(t *testing.T, top, cases, known string) []string {
			return []string{"check", "--cases", cases, "--junit", top}
		}},
		{"report --out naming a corpus file is refused (it used to be truncated)", func(t *testing.T, top, cases, known string) []string {
			return []string{"report", "--impl", "engine", "--cases", cases, "--format", "json", "--out", filepath.Join(cases, "list.jsonl")}
		}},
		{"report --ecosystem and --out naming one file are refused", func(t *testing.T, top, cases, known string) []string {
			return []string{"report", "--impl", "engine", "--cases", cases, "--out", filepath.Join(top, "r.md"), "--ecosystem", filepath.Join(top, "r")}
		}},
		{"report --ecosystem whose HTML page would replace a directory is refused", func(t *testing.T, top, cases, known string) []string {
			os.Mkdir(filepath.Join(top, "eco.html"), 0o755)
			return []string{"report", "--impl", "engine", "--cases", cases, "--ecosystem", filepath.Join(top, "eco")}
		}},
		{"report --date that is no day is refused before the run", func(t *testing.T, top, cases, known string) []string {
			return []string{"report", "--impl", "engine", "--cases", cases, "--ecosystem", filepath.Join(top, "eco"), "--date", "2026-13-01"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			top := t.TempDir()
			cases := filepath.Join(top, "corpus")
			writeFile(t, filepath.Join(cases, "list.jsonl"), goodCase+"\n")
			writeInput(t, cases, "x.npy", 2, 3)
			os.Mkdir(filepath.Join(cases, "sub"), 0o755)
			sums := map[string]string{}
			for _, name := range []string{"list.jsonl", "x.npy"} {
				data, _ := os.ReadFile(filepath.Join(cases, name))
				sums[name] = corpus.Sum(data)
			}
			writeFile(t, filepath.Join(cases, corpus.ManifestName), string(corpus.FormatManifest(sums)))
			known := filepath.Join(top, "known.txt")
			writeFile(t, known, "slice/values # a reason\n")
			args := tt.args(t, top, cases, known)
			before := treeState(t, top)
			code, stdout, stderr := runCLI(args...)
			if code != exitUsage || strings.Count(stderr, "\n") != 1 || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, one line on stderr, nothing on stdout", code, stdout, stderr)
			}
			if d := diffState(before, treeState(t, top)); d != "" {
				t.Errorf("the directory changed: %s", d)
			}
		})
	}
}

// TestReportEcosystem checks that report --ecosystem BASE writes the
// ecosystem view to BASE.md and BASE.html without --out, stating the day
// --date gives, or today (UTC) without it.
func TestReportEcosystem(t *testing.T) {
	top := t.TempDir()
	cases := filepath.Join(top, "corpus")
	writeFile(t, filepath.Join(cases, "list.jsonl"), goodCase+"\n")
	writeInput(t, cases, "x.npy", 2, 3)
	tests := []struct {
		rule string
		date []string // the --date flag, if any
		want []string // the days the page may state
	}{
		{"--date sets the day the page states", []string{"--date", "2026-01-02"}, []string{"2026-01-02"}},
		{"without --date the page states today in UTC", nil, nil},
	}
	for _, tc := range tests {
		before := time.Now().UTC().Format(time.DateOnly)
		code, stdout, stderr := runCLI(append([]string{"report", "--impl", "engine", "--cases", cases, "--ecosystem", filepath.Join(top, "eco")}, tc.date...)...)
		want := tc.want
		if want == nil {
			want = []string{before, time.Now().UTC().Format(time.DateOnly)} // the run may cross midnight
		}
		if code != exitOK || !strings.Contains(stdout, "wrote "+filepath.Join(top, "eco.html")) || !strings.Contains(stdout, "\necosystem: ") {
			t.Fatalf("%s: exit %d\n%s%s", tc.rule, code, stdout, stderr)
		}
		for _, name := range []string{"eco.md", "eco.html"} {
			data, err := os.ReadFile(filepath.Join(top, name))
			if err != nil || !strings.Contains(string(data), "Generated on "+want[0]) && !strings.Contains(string(data), "Generated on "+want[len(want)-1]) {
				t.Errorf("%s: %s (%v) does not state %v:\n%s", tc.rule, name, err, want, data)
			}
		}
	}

	// An --ecosystem-impl is a column of the view, not of the report.
	noOps := filepath.Join(top, "no-ops.sh")
	writeFile(t, noOps, "#!/bin/sh\necho '{\"hello\": {\"name\": \"none\", \"version\": \"0\", \"ops\": []}}'\nexec cat >/dev/null\n")
	code, stdout, stderr := runCLI("report", "--impl", "engine", "--ecosystem-impl", "sh "+noOps, "--cases", cases,
		"--out", filepath.Join(top, "r.md"), "--ecosystem", filepath.Join(top, "eco"))
	if code != exitOK {
		t.Fatalf("--ecosystem-impl: exit %d\n%s%s", code, stdout, stderr)
	}
	report, _ := os.ReadFile(filepath.Join(top, "r.md"))
	view, _ := os.ReadFile(filepath.Join(top, "eco.md"))
	if !strings.Contains(string(report), "| rule | group | cases | engine ") || strings.Contains(string(report), "none 0") {
		t.Errorf("the report's columns are not the --impl ones:\n%s", report)
	}
	if !strings.Contains(string(view), "| rule | cases | agree | none 0 |") {
		t.Errorf("the ecosystem view's column is not the --ecosystem-impl:\n%s", view)
	}
	if code, _, _ := runCLI("report", "--impl", "engine", "--ecosystem-impl", "engine", "--out", filepath.Join(top, "r.md")); code != exitUsage {
		t.Errorf("--ecosystem-impl without --ecosystem: exit %d, want %d", code, exitUsage)
	}
}

// TestReportOutputsWritten checks what the outputs may replace: a
// symbolic link is replaced by the report and its target left as it was,
// an existing report keeps its mode, and a new file inside the corpus
// directory (not a file the run reads) is written.
func TestReportOutputsWritten(t *testing.T) {
	top := t.TempDir()
	cases := filepath.Join(top, "corpus")
	writeFile(t, filepath.Join(cases, "list.jsonl"), goodCase+"\n")
	writeInput(t, cases, "x.npy", 2, 3)
	target := filepath.Join(top, "target.txt")
	writeFile(t, target, "keep me")
	symlink(t, target, filepath.Join(top, "link.xml"))
	old := filepath.Join(top, "old.json")
	writeFile(t, old, "earlier report")
	os.Chmod(old, 0o640)
	code, stdout, stderr := runCLI("check", "--cases", cases, "--junit", filepath.Join(top, "link.xml"), "--json", old)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if data, _ := os.ReadFile(target); string(data) != "keep me" {
		t.Errorf("the link's target was written: %q", data)
	}
	if st, err := os.Lstat(filepath.Join(top, "link.xml")); err != nil || !st.Mode().IsRegular() {
		t.Errorf("the link was not replaced by the report: %v", err)
	}
	if st, err := os.Stat(old); err != nil || st.Mode().Perm() != 0o640 || st.Size() == int64(len("earlier report")) {
		t.Errorf("the replaced report: %v, %v", st, err)
	}
	if temps, _ := filepath.Glob(filepath.Join(top, ".conform-*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
	code, stdout, stderr = runCLI("check", "--cases", cases, "--junit", filepath.Join(cases, "junit.xml"))
	if _, err := os.Stat(filepath.Join(cases, "junit.xml")); code != exitOK || err != nil {
		t.Errorf("a new report inside the corpus directory: exit %d, %v\n%s%s", code, err, stdout, stderr)
	}
}

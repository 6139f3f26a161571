package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/conformsuite/conform/internal/corpus"
)

// goodCase is a case line whose expected output is its own input x.npy,
// sliced whole: it passes on the engine.
const goodCase = `{"id":"good","op":"slice","inputs":{"x":"x.npy"},"begin":[0,0],"size":[-1,-1],"expect":{"output":"x.npy","source":"test"}}`

// hostileCorpora are corpus directories a careless or hostile user might
// hand to conform check. Each must cost only its bad entries: the good
// case still runs and passes, the run fails, the JUnit report is written,
// nothing outside the corpus is read and memory stays small.
var hostileCorpora = []struct {
	rule  string
	build func(t *testing.T, dir, outside string)
	fail  string // a substring of the failure report
}{
	{"a malformed case-list line fails alone", func(t *testing.T, dir, _ string) {
		appendFile(t, filepath.Join(dir, "list.jsonl"), "{\"id\": \n")
	}, "list.jsonl:2"},
	{"a dangling symbolic link fails alone", func(t *testing.T, dir, _ string) {
		symlink(t, "nowhere.json", filepath.Join(dir, "dangling.json"))
	}, "dangling.json"},
	{"a case file linked from outside the corpus is not read", func(t *testing.T, dir, outside string) {
		symlink(t, filepath.Join(outside, "case.json"), filepath.Join(dir, "escape.json"))
	}, "escape.json"},
	{"an input path leaving the corpus is refused", func(t *testing.T, dir, outside string) {
		writeFile(t, filepath.Join(dir, "up.json"), `{"op":"slice","inputs":{"x":"../outside/x.npy"},"begin":[0,0],"size":[1,1],"expect":{"error":"out_of_range","source":"test"}}`)
	}, "not a relative path inside"},
	{"an absolute input path is refused", func(t *testing.T, dir, outside string) {
		writeFile(t, filepath.Join(dir, "abs.json"), `{"op":"slice","inputs":{"x":"`+filepath.Join(outside, "x.npy")+`"},"begin":[0,0],"size":[1,1],"expect":{"error":"out_of_range","source":"test"}}`)
	}, "not a relative path inside"},
	{"an input linked to /dev/zero is refused", func(t *testing.T, dir, _ string) {
		symlink(t, "/dev/zero", filepath.Join(dir, "zero.npy"))
		writeFile(t, filepath.Join(dir, "zero.json"), `{"op":"slice","inputs":{"x":"zero.npy"},"begin":[0],"size":[1],"expect":{"error":"out_of_range","source":"test"}}`)
	}, "zero"},
	{"a case file that is a named pipe is refused without blocking", func(t *testing.T, dir, _ string) {
		if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err != nil {
			t.Fatal(err)
		}
	}, "fifo.json"},
	{"a sparse 4 GiB .npy is refused before it is read", func(t *testing.T, dir, _ string) {
		huge := npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (536870912,), }")
		writeFile(t, filepath.Join(dir, "huge.npy"), string(huge))
		if err := os.Truncate(filepath.Join(dir, "huge.npy"), int64(len(huge))+4<<30); err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(dir, "huge.json"), `{"op":"slice","inputs":{"x":"huge.npy"},"begin":[0],"size":[1],"expect":{"error":"out_of_range","source":"test"}}`)
	}, `input "x": npy: huge.npy is 4294967424 bytes, more than the input limit`},
	{"a compressed pack member (a deflate bomb) is refused", func(t *testing.T, dir, _ string) {
		payload := npyHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (134217728,), }")
		name := corpus.Sum(payload)[:24] + ".npy" // the checksum is irrelevant: it is refused first
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(payload)
		zero := make([]byte, 1<<20)
		for i := 0; i < 128; i++ { // 128 MiB in about 128 KiB
			w.Write(zero)
		}
		zw.Close()
		writeFile(t, filepath.Join(dir, "packed", corpus.PackName), b.String())
		writeFile(t, filepath.Join(dir, "packed", "bomb.jsonl"), `{"id":"bomb","op":"slice","inputs":{"x":"blobs/`+name+`"},"begin":[0],"size":[1],"expect":{"error":"out_of_range","source":"test"}}`+"\n")
	}, "is compressed"},
	{"a corpus whose MANIFEST was deleted fails its integrity check", func(t *testing.T, dir, _ string) {
		writeFile(t, filepath.Join(dir, "golden", corpus.PackName), "")
	}, "missing file golden/MANIFEST"},
	{"a pack of 250,000 empty members costs a few bytes a member", func(t *testing.T, dir, _ string) {
		var b bytes.Buffer
		zw := zip.NewWriter(&b)
		for i := 0; i < 250000; i++ {
			if _, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("%d.npy", i), Method: zip.Store}); err != nil {
				t.Fatal(err)
			}
		}
		zw.Close()
		writeFile(t, filepath.Join(dir, "packed", corpus.PackName), b.String())
		writeFile(t, filepath.Join(dir, "packed", "empty.jsonl"), `{"id":"empty","op":"slice","inputs":{"x":"blobs/0.npy"},"begin":[0],"size":[1],"expect":{"error":"out_of_range","source":"test"}}`+"\n")
	}, "0.npy in packed/blobs.npz is corrupt"},
	{"a MANIFEST listing 250,000 missing files costs no memory per file and prints the first 100", func(t *testing.T, dir, _ string) {
		var b strings.Builder
		for i := 0; i < 250000; i++ {
			fmt.Fprintf(&b, "%s  missing/%07d\n", corpus.Sum(nil), i)
		}
		writeFile(t, filepath.Join(dir, corpus.ManifestName), b.String())
	}, "integrity: ... and 249902 more integrity problems (250002 in all)"},
}

func TestHostileCorpora(t *testing.T) {
	for _, tt := range hostileCorpora {
		t.Run(tt.rule, func(t *testing.T) {
			top := t.TempDir()
			dir, outside := filepath.Join(top, "corpus"), filepath.Join(top, "outside")
			os.MkdirAll(dir, 0o755)
			os.MkdirAll(outside, 0o755)
			writeInput(t, dir, "x.npy", 2, 3)
			writeInput(t, outside, "x.npy", 2, 3)
			writeFile(t, filepath.Join(outside, "case.json"), `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0,0],"size":[1,1],"expect":{"output":"x.npy","source":"outside"}}`)
			writeFile(t, filepath.Join(dir, "list.jsonl"), goodCase+"\n")
			tt.build(t, dir, outside)
			junit := filepath.Join(top, "junit.xml")
			report := filepath.Join(top, "report.json")

			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			code, stdout, stderr := runCLI("check", "--cases", dir, "--junit", junit, "--json", report)
			runtime.ReadMemStats(&after)

			if code != 1 {
				t.Errorf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			if !strings.Contains(stdout, tt.fail) {
				t.Errorf("the report does not name the fault (%q):\n%s", tt.fail, stdout)
			}
			if !strings.Contains(stdout, "1 passed") {
				t.Errorf("the good case did not run and pass:\n%s", stdout)
			}
			if strings.Contains(stdout, "expected: outside") || strings.Contains(stdout, "got an output") {
				t.Errorf("a file outside the corpus was read:\n%s", stdout)
			}
			var results struct{ Results []json.RawMessage }
			if data, err := os.ReadFile(report); err != nil || json.Unmarshal(data, &results) != nil || len(results.Results) == 0 {
				t.Errorf("no JSON report with results: %v", err)
			}
			if data, err := os.ReadFile(junit); err != nil || !bytes.Contains(data, []byte("<testcase")) {
				t.Errorf("no JUnit report: %v", err)
			}
			if n := strings.Count(stdout, "\nintegrity: "); n > corpus.MaxListedProblems+1 {
				t.Errorf("%d integrity lines printed, more than %d and the count of the rest", n, corpus.MaxListedProblems)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("the run allocated %d MiB", grew>>20)
			}
		})
	}
}

func TestCheckNothingRan(t *testing.T) {
	top := t.TempDir()
	// An adapter that implements no op: every case is skipped.
	noOps := filepath.Join(top, "no-ops.sh")
	writeFile(t, noOps, "#!/bin/sh\necho '{\"hello\": {\"name\": \"none\", \"version\": \"0\", \"ops\": []}}'\nexec cat >/dev/null\n")
	os.Chmod(noOps, 0o755)
	full := filepath.Join(top, "full")
	writeFile(t, filepath.Join(full, "list.jsonl"), goodCase+"\n")
	writeInput(t, full, "x.npy", 2, 3)
	tests := []struct {
		rule  string
		cases string // "": an empty directory
		args  []string
		code  int
		want  string
	}{
		{"an empty corpus fails the gate", "", nil, 1, "no case ran: the corpus holds no cases"},
		{"--allow-empty accepts an empty corpus", "", []string{"--allow-empty"}, 0, "allowed by --allow-empty"},
		{"an adapter that skips everything fails the gate", full, []string{"--impl", noOps}, 1, "no case ran: all 1 cases were skipped"},
		{"--allow-empty accepts an all-skipped run", full, []string{"--impl", noOps, "--allow-empty"}, 0, "allowed by --allow-empty"},
		{"a run with a case that ran needs no flag", full, nil, 0, "1 passed, 0 failed, 0 skipped"},
	}
	for _, tt := range tests {
		dir := tt.cases
		if dir == "" {
			dir = t.TempDir()
		}
		junit := filepath.Join(t.TempDir(), "junit.xml")
		code, stdout, stderr := runCLI(append([]string{"check", "--cases", dir, "--junit", junit}, tt.args...)...)
		if code != tt.code || !strings.Contains(stdout, tt.want) {
			t.Errorf("%s: exit %d, output:\n%s%s", tt.rule, code, stdout, stderr)
		}
		if _, err := os.Stat(junit); err != nil {
			t.Errorf("%s: no JUnit report: %v", tt.rule, err)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func appendFile(t *testing.T, path, content string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestCheckSecondAnswer checks that a child answering a case twice, with
// different results, fails the gate even though the first answer passed.
func TestCheckSecondAnswer(t *testing.T) {
	top := t.TempDir()
	child := filepath.Join(top, "twice.sh")
	writeFile(t, child, `#!/bin/sh
echo '{"hello": {"name": "twice", "version": "0", "ops": ["getitem"]}}'
while read -r line; do
  id=$(echo "$line" | sed 's/.*"id": *\([0-9]*\).*/\1/')
  echo "{\"id\": $id, \"error\": {\"kind\": \"invalid_spec\", \"message\": \"first\"}}"
  echo "{\"id\": $id, \"error\": {\"kind\": \"out_of_range\", \"message\": \"second\"}}"
done
`)
	os.Chmod(child, 0o755)
	dir := filepath.Join(top, "corpus")
	writeFile(t, filepath.Join(dir, "list.jsonl"), `{"id":"zero-step","op":"getitem","inputs":{"x":"x.npy"},"index":"x[::0]","expect":{"error":"invalid_spec","source":"test"}}`+"\n")
	writeInput(t, dir, "x.npy", 2, 3)
	junit := filepath.Join(top, "junit.xml")
	code, stdout, stderr := runCLI("check", "--cases", dir, "--impl", child, "--junit", junit)
	if code != 1 || !strings.Contains(stdout, "protocol: ") || !strings.Contains(stdout, "second answer") {
		t.Errorf("exit %d, want 1 with a protocol error\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if data, err := os.ReadFile(junit); err != nil || !bytes.Contains(data, []byte("conform.protocol")) {
		t.Errorf("the JUnit report lacks the protocol error: %v", err)
	}
}

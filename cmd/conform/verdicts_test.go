package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
)

// childScripts are conform/1 children written as shell scripts, for the
// tests of what check and fuzz conclude from a run.
var childScripts = map[string]string{
	// no-ops lists no op: every case is skipped.
	"no-ops": "#!/bin/sh\necho '{\"hello\": {\"name\": \"none\", \"version\": \"0\", \"ops\": []}}'\nexec cat >/dev/null\n",
	// skips lists every op and answers every request with a skip.
	"skips": "#!/bin/sh\necho '{\"hello\": {\"name\": \"skips\", \"version\": \"0\", \"ops\": [\"getitem\", \"strided_slice\", \"slice\", \"gather_nd\", \"onnx_slice\", \"onnx_gather_nd\", \"take\", \"take_along_axis\", \"gather\", \"onnx_gather\", \"onnx_gather_elements\"]}}'\nwhile IFS= read -r line; do\n  id=${line#*\\\"id\\\":}; id=${id%%[!0-9]*}\n  echo \"{\\\"id\\\": $id, \\\"skip\\\": \\\"not today\\\"}\"\ndone\n",
	// dies implements every op and dies on every request.
	"dies": "#!/bin/sh\necho '{\"hello\": {\"name\": \"dies\", \"version\": \"0\", \"ops\": [\"getitem\", \"strided_slice\", \"slice\", \"gather_nd\", \"onnx_slice\", \"onnx_gather_nd\", \"take\", \"take_along_axis\", \"gather\", \"onnx_gather\", \"onnx_gather_elements\"]}}'\nread line\nexit 3\n",
}

// writeChild writes the child script name into dir and returns the
// command line that starts it.
func writeChild(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name+".sh")
	writeFile(t, path, childScripts[name])
	return "sh " + path
}

// TestKnownFailuresConfined checks that --known-failures is read as a
// corpus file is: only a regular file, refused before it is opened
// otherwise, and within a size bound, for check and for fuzz. Each is
// refused with exit 2, one line on stderr, before the run starts.
func TestKnownFailuresConfined(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.txt")
	writeFile(t, big, "")
	if err := os.Truncate(big, check.MaxKnownFailuresBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		rule, path string
	}{
		{"a named pipe is refused without blocking (it used to block forever)", fifo},
		{"a file over the bound is refused before it is read (it used to be read whole)", big},
		{"a device is refused before it is read (/dev/zero used to run out of memory)", "/dev/zero"},
		{"a directory is refused", dir},
	} {
		for _, cmd := range [][]string{
			{"check", "--cases", t.TempDir(), "--allow-empty"},
			{"fuzz", "--impl", "engine", "--oracle", "engine", "--max-cases", "10", "--out", ""},
		} {
			args := append(cmd, "--known-failures", tt.path)
			done := make(chan struct{})
			var code int
			var stdout, stderr string
			go func() {
				code, stdout, stderr = runCLI(args...)
				close(done)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				// Unblock the reader, so that the test ends.
				if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					f.Close()
				}
				<-done
				t.Errorf("%s: %s blocked", tt.rule, cmd[0])
			}
			if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "--known-failures") {
				t.Errorf("%s: %s: exit %d, stdout %.300q, stderr %.300q; want exit 2 and one line on stderr", tt.rule, cmd[0], code, stdout, stderr)
			}
		}
	}
}

// TestFuzzVerdicts checks what fuzz concludes from runs that compared
// nothing, or whose failures are all crashes listed as known, and that
// --out is checked before fuzzing starts.
func TestFuzzVerdicts(t *testing.T) {
	dir := t.TempDir()
	noOps, skips, dies := writeChild(t, dir, "no-ops"), writeChild(t, dir, "skips"), writeChild(t, dir, "dies")
	crashes := filepath.Join(dir, "crashes.txt")
	var entries string
	for _, op := range casefile.OpNames() {
		entries += op + "/crash/died # dies on every request\n"
	}
	writeFile(t, crashes, entries)
	file := filepath.Join(dir, "file")
	writeFile(t, file, "not a directory")
	badCause := filepath.Join(dir, "bad-cause.txt")
	writeFile(t, badCause, "cause:getitem/no-such-rule@error/invalid_spec # a rule the table does not have\n")
	base := []string{"fuzz", "--max-cases", "40", "--workers", "4", "--duration", "20s", "--seed", "1", "--shrink-time", "200ms", "--max-findings", "1"}
	for _, tt := range []struct {
		rule string
		args []string
		code int
		line string // a line stdout must hold ("" for none)
	}{
		{"an oracle that lists no op compares nothing: the run fails (it exited 0)",
			[]string{"--impl", "engine", "--oracle", noOps, "--out", ""}, 1, ""},
		{"an implementation that skips every case compares nothing: the run fails",
			[]string{"--impl", skips, "--oracle", "engine", "--out", ""}, 1, ""},
		{"--allow-empty accepts a run that compared nothing",
			[]string{"--impl", skips, "--oracle", "engine", "--out", "", "--allow-empty"}, 0, ""},
		{"crashes absorbed by signature entries fail the run (it said 40 passed, exit 0)",
			[]string{"--impl", dies, "--oracle", "engine", "--out", "", "--known-failures", crashes}, 1, "40 crashes and 0 timeouts matched known-failure entries"},
		{"--allow-known-crashes accepts them, and the count is still printed",
			[]string{"--impl", dies, "--oracle", "engine", "--out", "", "--known-failures", crashes, "--allow-known-crashes"}, 0, "40 crashes and 0 timeouts matched known-failure entries"},
		{"--out naming a regular file is refused before fuzzing (every save used to fail silently)",
			[]string{"--impl", "engine", "--oracle", "engine", "--out", file}, 2, ""},
		{"--out inside a regular file is refused before fuzzing",
			[]string{"--impl", "engine", "--oracle", "engine", "--out", filepath.Join(file, "sub")}, 2, ""},
		{"a known-failures entry naming a cause whose rule does not exist is refused before fuzzing",
			[]string{"--impl", "engine", "--oracle", "engine", "--out", "", "--known-failures", badCause}, 2, ""},
		{"--out naming the known-failures file is refused before fuzzing",
			[]string{"--impl", "engine", "--oracle", "engine", "--out", crashes, "--known-failures", crashes}, 2, ""},
	} {
		code, stdout, stderr := runCLI(append(base, tt.args...)...)
		ok := code == tt.code
		if tt.code == exitUsage && (stdout != "" || strings.Count(stderr, "\n") != 1) {
			ok = false
		}
		if tt.line != "" && !strings.Contains(stdout, "\n"+tt.line) {
			ok = false
		}
		if !ok {
			t.Errorf("%s: exit %d, want %d (and %q)\nstdout:\n%s\nstderr:\n%s", tt.rule, code, tt.code, tt.line, stdout, stderr)
		}
	}
	if data, _ := os.ReadFile(file); string(data) != "not a directory" {
		t.Errorf("--out's file changed: %q", data)
	}
}

// TestCheckKnownCrashes checks that a known-failure signature entry does
// not turn crashes into passes silently in check: they are counted and
// printed, and fail the run unless --allow-known-crashes is given.
func TestCheckKnownCrashes(t *testing.T) {
	dir := t.TempDir()
	dies := writeChild(t, dir, "dies")
	cases := filepath.Join(dir, "cases")
	writeFile(t, filepath.Join(cases, "list.jsonl"), goodCase+"\n")
	writeInput(t, cases, "x.npy", 2, 3)
	for _, tt := range []struct {
		rule    string
		entry   string
		args    []string
		code    int
		counted bool // whether the crash is counted as matched by a signature entry
	}{
		{"a signature entry matching the crash does not absorb it (it said 1 passed, exit 0)", "slice/crash/died", nil, 1, true},
		{"--allow-known-crashes lets the entry absorb it, counted", "slice/crash/died", []string{"--allow-known-crashes"}, 0, true},
		{"a case-ID entry names the case itself: it absorbs the crash", "good", nil, 0, false},
	} {
		known := filepath.Join(dir, "known.txt")
		writeFile(t, known, tt.entry+" # dies\n")
		code, stdout, stderr := runCLI(append([]string{"check", "--cases", cases, "--impl", dies, "--known-failures", known}, tt.args...)...)
		if code != tt.code || strings.Contains(stdout, "\n1 crashes and 0 timeouts matched known-failure entries") != tt.counted {
			t.Errorf("%s: exit %d, want %d and the count\nstdout:\n%s\nstderr:\n%s", tt.rule, code, tt.code, stdout, stderr)
		}
	}
}

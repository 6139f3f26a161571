package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/protocol"
)

// fakeChildEnv makes the test binary a conform/1 child (see
// runFakeChild); fakeLogEnv names the file it logs each answer in.
const (
	fakeChildEnv = "CONFORM_JOBS_CHILD"
	fakeLogEnv   = "CONFORM_JOBS_CHILD_LOG"
)

func TestMain(m *testing.M) {
	if os.Getenv(fakeChildEnv) != "" {
		runFakeChild()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runFakeChild serves the engine with three deliberate faults: it lists
// every op but onnx_slice (its cases are skipped), refuses getitem
// subscripts with a negative step written "::-" (a cause the neighbours
// confirm), and dies, writing nothing, on a take case of three indices
// (a crash that restarts the child). It sleeps a millisecond per case, so
// that children overlap (CONFORM_JOBS_CHILD=sleep), and logs "pid start
// end" (nanoseconds) per case.
func runFakeChild() {
	sleep := os.Getenv(fakeChildEnv) == "sleep"
	log, _ := os.OpenFile(os.Getenv(fakeLogEnv), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	ops := slices.DeleteFunc(casefile.OpNames(), func(op string) bool { return op == casefile.OpONNXSlice })
	answer := func(line []byte) protocol.Answer {
		start := time.Now()
		if sleep {
			time.Sleep(time.Millisecond)
		}
		defer func() { fmt.Fprintf(log, "%d %d %d\n", os.Getpid(), start.UnixNano(), time.Now().UnixNano()) }()
		c, err := casefile.Parse(line, casefile.Base64Inputs)
		if err != nil {
			return protocol.EngineAnswer(line)
		}
		if idx := c.Inputs["indices"]; c.Op == casefile.OpTake && idx != nil && idx.Len() == 3 {
			os.Exit(3)
		}
		if index := c.Fields["index"]; c.Op == casefile.OpGetItem && strings.Contains(string(index), "::-") {
			return protocol.Error(engine.InvalidSpec, "negative steps unsupported")
		}
		return protocol.EngineAnswer(line)
	}
	protocol.ServeAnswers(os.Stdin, os.Stdout, protocol.Hello{Name: "fake", Version: "1", Ops: ops}, answer)
}

// TestJobsSameResults checks that --jobs 4 gives what --jobs 1 gives,
// byte for byte, with a child that fails, skips and crashes (restarting
// its child): check's text, JSON and JUnit reports, report's JSON,
// Markdown and HTML, and fuzz's findings and saved cases (fuzz with a
// shrinking time limit that its shrinks never reach, which makes its run
// a function of its seed and case count). It also checks that the run with --jobs 4 had
// children answering at once, and the one with --jobs 1 never did.
func TestJobsSameResults(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	type command struct {
		rule string
		mode string   // of the fake child
		args []string // "DIR/" in an argument is a temporary directory
		code int
		want string // in stdout
	}
	run := func(t *testing.T, c command, jobs string) (outputs []string, overlap bool) {
		t.Helper()
		log := filepath.Join(dir, "log-"+c.args[0]+jobs)
		t.Setenv(fakeChildEnv, c.mode)
		t.Setenv(fakeLogEnv, log)
		args := []string{}
		for _, a := range c.args {
			args = append(args, strings.ReplaceAll(a, "DIR/", dir+"/")) // the same paths for both runs
		}
		args = append(args, "--impl", exe+" -test.run=^$", "--jobs", jobs)
		code, stdout, stderr := runCLI(args...)
		if code != c.code {
			t.Fatalf("conform %v: exit %d, want %d; stderr:\n%s", args, code, c.code, stderr)
		}
		outputs = append(outputs, fmt.Sprint(code), stdout, stderr)
		for _, pattern := range []string{"r.*", "out/*"} {
			files, _ := filepath.Glob(filepath.Join(dir, pattern))
			for _, f := range files {
				data, _ := os.ReadFile(f)
				outputs = append(outputs, f, string(data))
				os.Remove(f)
			}
		}
		os.Remove(filepath.Join(dir, "out"))
		return outputs, overlapping(t, log)
	}
	tests := []command{
		{"check: the same failures, causes, skips and crashes in every report", "sleep",
			[]string{"check", "--cases", "../../cases/seeds", "--json", "DIR/r.json", "--junit", "DIR/r.xml"}, exitRejected, "take/crash/died: 4"},
		{"report: the same matrix and causes in every format", "sleep",
			[]string{"report", "--cases", "../../cases/seeds", "--format", "json,md,html", "--out", "DIR/r.json"}, exitOK, "139 cases"},
		{"fuzz: the same findings and saved cases for one seed and case count", "plain",
			[]string{"fuzz", "--oracle", "engine", "--seed", "13", "--max-cases", "60", "--duration", "5m", "--shrink-time", "2m", "--out", "DIR/out"}, exitRejected, "getitem/negative-step"},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			one, overlap1 := run(t, tt, "1")
			four, overlap4 := run(t, tt, "4")
			if tt.args[0] == "fuzz" {
				dropRates(one)
				dropRates(four)
			}
			if diff := cmp.Diff(one, four); diff != "" {
				t.Errorf("%s: --jobs 1 and --jobs 4 differ (-1 +4):\n%s", tt.rule, diff)
			}
			if !strings.Contains(one[1], tt.want) {
				t.Errorf("%s: no %q in the run:\n%s", tt.rule, tt.want, one[1])
			}
			if overlap1 {
				t.Errorf("%s: --jobs 1 ran children at once", tt.rule)
			}
			if tt.mode == "sleep" && !overlap4 {
				t.Errorf("%s: --jobs 4 never ran two children at once", tt.rule)
			}
		})
	}
}

// dropRates removes what gives fuzz's throughput, which differs from
// run to run, from its stdout and stderr in outputs: the line "N cases
// in T s: R cases/s" and the progress bar.
func dropRates(outputs []string) {
	for i := 1; i <= 2; i++ {
		var lines []string
		for _, line := range strings.Split(outputs[i], "\n") {
			if !strings.Contains(line, "/s") {
				lines = append(lines, line)
			}
		}
		outputs[i] = strings.Join(lines, "\n")
	}
}

// overlapping reports whether two processes answered cases at once,
// from the fake child's log.
func overlapping(t *testing.T, log string) bool {
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	type span struct{ pid, start, end int64 }
	var spans []span
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var s span
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("bad log line %q", line)
		}
		s.pid, _ = strconv.ParseInt(f[0], 10, 64)
		s.start, _ = strconv.ParseInt(f[1], 10, 64)
		s.end, _ = strconv.ParseInt(f[2], 10, 64)
		spans = append(spans, s)
	}
	for i, a := range spans {
		for _, b := range spans[i+1:] {
			if a.pid != b.pid && a.start < b.end && b.start < a.end {
				return true
			}
		}
	}
	return false
}

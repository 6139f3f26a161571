package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/npy"
)

// TestFailureLines checks what a failure line tells (with -v): the
// case's spec, its inputs' dtypes and shapes, what differs, the signature
// and the cause; that without -v the causes are printed instead, first;
// and that a known-failures entry may name a signature.
func TestFailureLines(t *testing.T) {
	dir := t.TempDir()
	writeInput(t, dir, "x.npy", 2, 3)
	writeInput(t, dir, "y.npy", 3, 2)
	writeFile(t, filepath.Join(dir, "list.jsonl"),
		`{"id":"wrong-shape","op":"slice","inputs":{"x":"x.npy"},"begin":[0,0],"size":[-1,-1],"expect":{"output":"y.npy","source":"test"}}`+"\n"+
			`{"id":"wrong-kind","op":"getitem","inputs":{"x":"x.npy"},"index":"x[1]","expect":{"error":"out_of_range","source":"test"}}`+"\n")
	code, stdout, _ := runCLI("check", "--cases", dir)
	wantCauses := "failures by cause (0 causes, 2 groups that no rule explains; -v lists every failing case):\n" +
		"  symptom getitem/output-for-error/out_of_range: 1 failing case that no rule explains (first: wrong-kind)\n" +
		"  symptom slice/shape/dims: 1 failing case that no rule explains (first: wrong-shape)\n"
	if !strings.HasPrefix(stdout, wantCauses) || strings.Contains(stdout, "fail wrong-shape") || code != 1 {
		t.Errorf("without -v the causes come first and no failing case is listed: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI("check", "--cases", dir, "-v")
	for _, want := range []string{
		// One line per failure: what differs, the case, its signature and cause.
		"fail wrong-shape (expected: test): shape [2 3], want [3 2] — case slice begin=[0,0] size=[-1,-1]; x: <i4 (2, 3) — signature slice/shape/dims — cause none: no rule explains slice/shape/dims here\n",
		" — case getitem x[1]; x: <i4 (2, 3) — signature getitem/output-for-error/out_of_range — cause none: no rule explains getitem/output-for-error/out_of_range here\n",
		"failures by signature (2):\n",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the output lacks %q:\n%s", want, stdout)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}

	// A subscript of several lines, with a control character, is escaped onto the failure's line.
	multi := t.TempDir()
	writeInput(t, multi, "x.npy", 2, 3)
	writeFile(t, filepath.Join(multi, "list.jsonl"),
		`{"id":"multi","op":"getitem","inputs":{"x":"x.npy"},"index":"x[1,\n\u001b0]","expect":{"error":"out_of_range","source":"test"}}`+"\n")
	_, stdout, _ = runCLI("check", "--cases", multi, "-v")
	for _, line := range strings.Split(stdout, "\n") {
		if strings.HasPrefix(line, "fail multi") && !strings.Contains(line, " — case getitem x[1,") {
			t.Errorf("the failure's line does not hold its case:\n%s", stdout)
		}
		if strings.ContainsAny(line, "\x1b\r") || strings.HasPrefix(line, "0]") {
			t.Errorf("a control character or the subscript's second line is printed raw:\n%q", stdout)
		}
	}

	known := filepath.Join(t.TempDir(), "known.txt")
	os.WriteFile(known, []byte("slice/shape/dims # a signature\nwrong-kind # a case ID\n"), 0o644)
	code, stdout, _ = runCLI("check", "--cases", dir, "--known-failures", known)
	if code != 0 || !strings.Contains(stdout, "2 known failures") {
		t.Errorf("known failures by signature and by ID: exit %d\n%s", code, stdout)
	}
}

// TestKnownCauses checks that check's known-failures list may name a
// cause (cause:RULE@SYMPTOM): the failures conform finds that cause for
// are known, and a listed cause that no failure has fails the run.
func TestKnownCauses(t *testing.T) {
	requireNumPy(t)
	t.Setenv("CONFORM_PLANTED_BUGS", "negative-step") // the planted adapter refuses negative steps
	dir := t.TempDir()
	writeInput(t, dir, "x.npy", 4)
	data, err := os.ReadFile(filepath.Join(dir, "x.npy"))
	if err != nil {
		t.Fatal(err)
	}
	x, err := npy.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i, index := range []string{"x[::-1]", "x[::-2]", "x[2::-1]", "x[:0:-1]", "x[::1]", "x[1:3]", "x[::2]", "x[1:]", "x[:2]", "x[-2:]"} {
		out, err := casefile.New(map[string]any{"op": "getitem", "index": index}, map[string]*engine.Tensor{"x": x}).Eval()
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("out%d.npy", i)
		writeFile(t, filepath.Join(dir, name), string(npy.Encode(out)))
		lines = append(lines, fmt.Sprintf(`{"id":"c%d","op":"getitem","inputs":{"x":"x.npy"},"index":%q,"expect":{"output":%q,"source":"test"}}`, i, index, name))
	}
	writeFile(t, filepath.Join(dir, "cases.jsonl"), strings.Join(lines, "\n")+"\n")
	adapter := "/usr/bin/python3 ../../examples/planted/adapter.py"
	for _, tt := range []struct {
		rule, list string
		code       int
		out        string
	}{
		{"the cause's failures are known", "cause:getitem/negative-step@error/invalid_spec # planted\n", 0, "4 known failures"},
		{"a cause no failure has is stale and fails the run",
			"cause:getitem/negative-step@error/invalid_spec # planted\ncause:getitem/step-over-1@shape/dims # fixed\n", 1,
			"stale known failure cause:getitem/step-over-1@shape/dims"},
		{"without the entry the failures fail", "# nothing\n", 1, "6 passed, 4 failed"},
	} {
		known := filepath.Join(t.TempDir(), "known.txt")
		writeFile(t, known, tt.list)
		code, stdout, stderr := runCLI("check", "--cases", dir, "--impl", adapter, "--known-failures", known)
		if code != tt.code || !strings.Contains(stdout, tt.out) {
			t.Errorf("%s: exit %d, want %d and %q:\n%s%s", tt.rule, code, tt.code, tt.out, stdout, stderr)
		}
	}
}

package conformtest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/internal/check"
)

// helperImpls are the implementations TestHelperRun can run.
var helperImpls = map[string]any{
	"shortSlicer":   shortSlicer{},
	"panickySlicer": panickySlicer{},
	"none":          struct{}{},
}

// helperOptions returns the options TestHelperRun uses: the slice corpus
// if slices, and the known-failures file if known is not "".
func helperOptions(slices bool, known string) []Option {
	var opts []Option
	if slices {
		opts = append(opts, Cases(sliceCorpus()))
	}
	if known != "" {
		opts = append(opts, KnownFailuresFile(known))
	}
	return opts
}

// TestHelperRun is the test binary's second role: re-run by
// TestRunInsideGoTest with CONFORMTEST_HELPER set, it calls Run with the
// implementation named there, in a real go test, whose output the parent
// reads.
func TestHelperRun(t *testing.T) {
	name := os.Getenv("CONFORMTEST_HELPER")
	if name == "" {
		t.Skip("run by TestRunInsideGoTest in a child process")
	}
	Run(t, helperImpls[name], helperOptions(os.Getenv("CONFORMTEST_SLICES") != "", os.Getenv("CONFORMTEST_KNOWN"))...)
}

// subtestResult reads a case's subtest result: TestHelperRun/<op>/<case ID>.
var subtestResult = regexp.MustCompile(`(?m)^\s*--- (PASS|FAIL|SKIP): TestHelperRun/[^/\s]+/(\S+) \(`)

// TestRunInsideGoTest runs Run inside a child go test and checks that
// every case's subtest passes, fails or skips exactly as Check judges the
// case, and that the output says why.
func TestRunInsideGoTest(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// A known-failures file listing one failing and one passing case of
	// shortSlicer.
	base, err := run(shortSlicer{}, helperOptions(true, ""))
	if err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(t.TempDir(), "known.txt")
	list := fmt.Sprintf("%s # stops short\n%s # wrongly listed\n", idsWith(base, check.Fail)[0], idsWith(base, check.Pass)[0])
	if err := os.WriteFile(known, []byte(list), 0o666); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		rule   string
		impl   string
		slices bool
		known  string
		output []string // the child's output contains these
	}{
		{"failures, known failures and unexpected passes become subtest results; the summary groups the failures by cause", "shortSlicer", true, known,
			[]string{"(expected: numpy 1.24.2)", "known failure (stops short): ", "unexpected pass: the case is listed as a known failure (wrongly listed)",
				"conformtest: failures by cause (1):", "cause slice/size-minus-one — slice/shape/dims: "}},
		{"a panic fails its case's subtest only; ops not implemented are skipped", "panickySlicer", false, "",
			[]string{"crash: the implementation panicked: runtime error: integer divide by zero", "conformtest.panickySlicer does not implement getitem's method GetItem("}},
		{"an implementation of no op fails the test at once", "none", false, "",
			[]string{"--- FAIL: TestHelperRun", "struct {} has none of the methods of the ops"}},
	}
	for _, tt := range tests {
		t.Run(tt.impl, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(exe, "-test.run=^TestHelperRun$", "-test.v")
			cmd.Env = append(os.Environ(), "CONFORMTEST_HELPER="+tt.impl, "CONFORMTEST_KNOWN="+tt.known)
			if tt.slices {
				cmd.Env = append(cmd.Env, "CONFORMTEST_SLICES=1")
			}
			out, childErr := cmd.CombinedOutput()
			if _, failed := childErr.(*exec.ExitError); childErr != nil && !failed {
				t.Fatal(childErr)
			}
			got := map[string]string{}
			for _, m := range subtestResult.FindAllStringSubmatch(string(out), -1) {
				got[m[2]] = m[1]
			}
			want := map[string]string{}
			if im := helperImpls[tt.impl]; im != struct{}{} {
				s, err := run(im, helperOptions(tt.slices, tt.known))
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range s.Results {
					want[r.ID] = map[check.Status]string{check.Pass: "PASS", check.XFail: "PASS", check.Fail: "FAIL", check.Skip: "SKIP"}[r.Status]
				}
				if (childErr == nil) != s.OK() {
					t.Errorf("%s: the child exited with %v, but Check's summary is %s", tt.rule, childErr, s.Line())
				}
				if line := "conformtest: " + s.Line(); !strings.Contains(string(out), line) {
					t.Errorf("%s: Run did not log the summary %q", tt.rule, line)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: subtest results (-Check +Run):\n%s", tt.rule, diff)
			}
			for _, text := range tt.output {
				if !strings.Contains(string(out), text) {
					t.Errorf("%s: the output does not contain %q", tt.rule, text)
				}
			}
			if t.Failed() {
				t.Logf("output (truncated):\n%.3000s", out)
			}
		})
	}
}

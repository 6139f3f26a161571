package conformtest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/oracle"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/google/go-cmp/cmp"
)

// TestHelperServe is the test binary's role as a protocol child: re-run
// by TestServe with CONFORMTEST_SERVE naming an implementation of
// helperImpls, it serves it on stdin and stdout.
func TestHelperServe(t *testing.T) {
	name := os.Getenv("CONFORMTEST_SERVE")
	if name == "" {
		t.Skip("run by TestServe in a child process")
	}
	if err := Serve(helperImpls[name]); err != nil {
		t.Fatal(err)
	}
	os.Exit(0) // no test output on stdout after the protocol
}

// TestServe checks that an adapter served as a conform/1 child gets, case
// for case, the verdicts Check gives it in process: the same passes,
// failures (with the same signatures) and skips.
func TestServe(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"shortSlicer", "panickySlicer"} {
		os.Setenv("CONFORMTEST_SERVE", name)
		child, err := oracle.Open(exe+" -test.run=^TestHelperServe$", 10*time.Second)
		os.Unsetenv("CONFORMTEST_SERVE")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		served, err := check.Run(context.Background(), sliceCorpus(), child, check.Options{Workers: 8})
		child.Close()
		if err != nil {
			t.Fatal(err)
		}
		inProcess, err := run(helperImpls[name], []Option{Cases(sliceCorpus())})
		if err != nil {
			t.Fatal(err)
		}
		verdicts := func(s *check.Summary) map[string]string {
			m := map[string]string{}
			for _, r := range s.Results {
				m[r.ID] = string(r.Status) + " " + r.Signature.String()
			}
			return m
		}
		if diff := cmp.Diff(verdicts(inProcess), verdicts(served)); diff != "" {
			t.Errorf("%s: verdicts (-in process +served):\n%s", name, diff)
		}
		if served.Passed == 0 || served.Failed == 0 {
			t.Errorf("%s: %s: the test needs both passes and failures", name, served.Line())
		}
	}
}

// TestServeHello checks the name and version an adapter served as a
// conform/1 child says in its hello.
func TestServeHello(t *testing.T) {
	tests := []struct {
		rule          string
		opts          []Option
		name, version string
	}{
		{"without Named: the Go type, and conformtest", nil, "conformtest.shortSlicer", "conformtest"},
		{"Named gives the library's name and version", []Option{Named("gorgonia", "v0.9.24")}, "gorgonia", "v0.9.24"},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		if err := serveIO(strings.NewReader(""), &out, shortSlicer{}, tc.opts); err != nil {
			t.Fatal(err)
		}
		var line struct{ Hello protocol.Hello }
		if err := json.Unmarshal(out.Bytes(), &line); err != nil {
			t.Fatalf("%s: hello %q: %v", tc.rule, out.String(), err)
		}
		if line.Hello.Name != tc.name || line.Hello.Version != tc.version {
			t.Errorf("%s: hello names %q %q, want %q %q", tc.rule, line.Hello.Name, line.Hello.Version, tc.name, tc.version)
		}
	}
	if err := serveIO(strings.NewReader(""), io.Discard, shortSlicer{}, []Option{Named("", "1")}); err == nil {
		t.Error("Named without a name was accepted")
	}
}

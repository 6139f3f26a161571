package engine_test

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// anonHugeKiB returns the process's anonymous memory in transparent huge
// pages, in KiB.
func anonHugeKiB(t *testing.T) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps_rollup")
	if err != nil {
		t.Skipf("no smaps_rollup: %v", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "AnonHugePages:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			if err != nil {
				t.Fatalf("smaps_rollup: %q", s.Text())
			}
			return n
		}
	}
	t.Skip("smaps_rollup has no AnonHugePages line")
	return 0
}

// TestMakeDataHugePages checks that tensor data of 4 MiB or more is
// advised to transparent huge pages: written for the first time, part of
// it is in 2 MiB pages. The advice only acts on memory not mapped yet, so
// the check runs in a new process of this test binary, whose heap has not
// held (and mapped) the memory of other tests. It is skipped where the
// kernel gives no huge pages on advice (transparent_hugepage/enabled
// "never").
func TestMakeDataHugePages(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(mode), "[madvise]") && !strings.Contains(string(mode), "[always]") {
		t.Skipf("transparent huge pages are not given on advice here (%q, %v)", mode, err)
	}
	if os.Getenv("ENGINE_TEST_HUGE_PAGES_CHILD") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMakeDataHugePages$", "-test.v")
		cmd.Env = append(os.Environ(), "ENGINE_TEST_HUGE_PAGES_CHILD=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the check in a new process failed: %v\n%s", err, out)
		}
		return
	}
	before := anonHugeKiB(t)
	b := engine.MakeData(16 << 20)
	for i := range b {
		if b[i] != 0 {
			t.Fatalf("byte %d of new data is %d, want 0", i, b[i])
		}
		b[i] = byte(i)
	}
	if after := anonHugeKiB(t); after-before < 2<<10 {
		t.Errorf("16 MiB of new data written: %d KiB more in huge pages, want at least 2048", after-before)
	}
}

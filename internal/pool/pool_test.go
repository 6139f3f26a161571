package pool

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/conformsuite/conform/internal/protocol"
)

// The test binary re-runs itself as a child (see runChild) when
// childEnv is set.
const (
	childEnv      = "CONFORM_POOL_CHILD"       // "serial", "twice", "pidversion" or "twostarts"
	helloDelayEnv = "CONFORM_POOL_HELLO_DELAY" // a duration before the hello
	caseDelayEnv  = "CONFORM_POOL_CASE_DELAY"  // a duration per case
	startsEnv     = "CONFORM_POOL_STARTS"      // the file "twostarts" counts its starts in
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		runChild(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runChild answers each request, one at a time, with a skip whose reason
// is the child's process id: "serial" once, "twice" twice (a protocol
// error the client can only record as a fault), "pidversion" once, with
// the process id as the version in its hello, and "twostarts" once, but
// only its first two starts get as far as the hello. Every child exits
// on a request {"die": true}.
func runChild(mode string) {
	if mode == "twostarts" {
		data, _ := os.ReadFile(os.Getenv(startsEnv))
		n, _ := strconv.Atoi(string(data))
		os.WriteFile(os.Getenv(startsEnv), []byte(strconv.Itoa(n+1)), 0o644)
		if n >= 2 {
			os.Exit(5)
		}
	}
	helloDelay, _ := time.ParseDuration(os.Getenv(helloDelayEnv))
	caseDelay, _ := time.ParseDuration(os.Getenv(caseDelayEnv))
	time.Sleep(helloDelay)
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	version := "1"
	if mode == "pidversion" {
		version = strconv.Itoa(os.Getpid())
	}
	enc.Encode(map[string]any{"hello": map[string]any{"name": "pooltest", "version": version, "ops": []string{"getitem"}}})
	out.Flush()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		var req struct {
			ID  int64 `json:"id"`
			Die bool  `json:"die"`
		}
		json.Unmarshal(in.Bytes(), &req)
		if req.Die {
			os.Exit(3)
		}
		time.Sleep(caseDelay)
		answer := map[string]any{"id": req.ID, "skip": strconv.Itoa(os.Getpid())}
		enc.Encode(answer)
		if mode == "twice" {
			enc.Encode(answer)
		}
		out.Flush()
	}
}

// startPool starts a pool of the test binary as a child in mode.
func startPool(t *testing.T, mode string, helloDelay, caseDelay time.Duration, jobs int) *Pool {
	t.Helper()
	t.Setenv(childEnv, mode)
	t.Setenv(helloDelayEnv, helloDelay.String())
	t.Setenv(caseDelayEnv, caseDelay.String())
	p, err := Start([]string{os.Args[0]}, protocol.Options{}, jobs)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runCases runs n requests through p, inflight at a time, and returns the
// children (process ids) that answered them, and how many answers were
// not the test child's skip.
func runCases(t *testing.T, p *Pool, n, inflight int) (pids map[string]bool, others int) {
	t.Helper()
	var mu sync.Mutex
	pids = map[string]bool{}
	next := make(chan int)
	var wg sync.WaitGroup
	for range inflight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				a := p.Do(context.Background(), map[string]any{"op": "getitem"})
				mu.Lock()
				if a.IsSkip() {
					pids[a.Reason()] = true
				} else {
					others++
				}
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return pids, others
}

func TestPoolStartsChildrenAsTheWorkNeedsThem(t *testing.T) {
	tests := []struct {
		rule                  string
		helloDelay, caseDelay time.Duration
		jobs, cases, inflight int
		children              int
	}{
		{"cases one at a time never find every child busy: one child", 0, time.Millisecond, 4, 100, 1, 1},
		{"a burst shorter than a child's start uses the first child alone", 300 * time.Millisecond, time.Millisecond, 4, 20, 8, 1},
		{"a long burst starts every child allowed", 0, 2 * time.Millisecond, 3, 600, 16, 3},
		{"--jobs 1 runs one child however long the burst", 0, time.Millisecond, 1, 200, 16, 1},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			p := startPool(t, "serial", tt.helloDelay, tt.caseDelay, tt.jobs)
			pids, others := runCases(t, p, tt.cases, tt.inflight)
			if others > 0 {
				t.Errorf("%s: %d answers not the test child's", tt.rule, others)
			}
			if n := p.Children(); n != tt.children {
				t.Errorf("%s: %d children started, want %d", tt.rule, n, tt.children)
			}
			if tt.children > 1 && len(pids) < 2 {
				t.Errorf("%s: every case answered by one child", tt.rule)
			}
			if err := p.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
}

// TestPoolCloseSumsFaults checks that the faults of every child are
// reported as one *protocol.FaultError counting them all, as one child
// would report them.
func TestPoolCloseSumsFaults(t *testing.T) {
	p := startPool(t, "twice", 0, 2*time.Millisecond, 2)
	const n = 300
	_, crashes := runCases(t, p, n, 16) // a second answer before the first was taken
	if p.Children() != 2 {
		t.Fatalf("%d children started, want 2", p.Children())
	}
	_, total := p.Faults()
	var fe *protocol.FaultError
	if err := p.Close(); !errors.As(err, &fe) {
		t.Fatalf("Close() = %v, want a *protocol.FaultError", err)
	}
	// A case whose second answer came before its caller took the first
	// is a crash of the case instead.
	if fe.Total != total || total+crashes != n {
		t.Errorf("FaultError.Total = %d, Faults() total %d, %d crashes: want a fault for each of the %d cases but the crashes", fe.Total, total, crashes, n)
	}
}

// TestPoolRefusesAnotherHello checks that a child whose hello differs
// from the first's is not used, and that Close says so.
func TestPoolRefusesAnotherHello(t *testing.T) {
	p := startPool(t, "pidversion", 0, 2*time.Millisecond, 2)
	pids, _ := runCases(t, p, 400, 16)
	err := p.Close() // waits for a child being started
	if n := p.Children(); n != 1 || len(pids) != 1 {
		t.Errorf("%d children used (%d answered), want the first alone", n, len(pids))
	}
	if err == nil {
		t.Errorf("Close() = nil, want the error of the child not used")
	}
}

// TestPoolAvoidsABrokenChild checks that once a child cannot be
// restarted any more, the cases go to the children that still run
// instead of all failing on it.
func TestPoolAvoidsABrokenChild(t *testing.T) {
	t.Setenv(startsEnv, filepath.Join(t.TempDir(), "starts"))
	p := startPool(t, "twostarts", 0, 2*time.Millisecond, 2)
	defer p.Close()
	runCases(t, p, 300, 16)
	if p.Children() != 2 {
		t.Fatalf("%d children started, want 2", p.Children())
	}
	// The first child (both are idle) dies, and cannot be restarted.
	if a := p.Do(context.Background(), map[string]any{"die": true}); !a.IsCrash() {
		t.Fatalf("the case that kills its child: %v, want a crash", a)
	}
	pids, others := runCases(t, p, 50, 1)
	if others > 1 || len(pids) != 1 {
		t.Errorf("after a child broke: %d answers not the test child's (want at most 1, the one that finds it broken), %d children answered (want 1)", others, len(pids))
	}
}

package fuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/oracle"
)

// hangingImpl starts the test binary as a child that never answers, with
// the given per-case timeout.
func hangingImpl(t *testing.T, timeout time.Duration) impl.Impl {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(hangingEnv, "1") // restarted children inherit it too
	im, err := oracle.Open(fmt.Sprintf("%s -test.run=^$", exe), timeout)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { im.Close() })
	return im
}

// TestDurationBoundsWallTime checks that Duration bounds a run's wall
// time: it ends within Duration plus one per-case timeout (plus slack for
// a busy machine), shrinking included, however long ShrinkTime is.
func TestDurationBoundsWallTime(t *testing.T) {
	const (
		duration    = 3 * time.Second
		caseTimeout = time.Second
		// slack for starting children and a busy 2-core machine; without
		// the deadline, shrinking alone would take ShrinkTime (60 s).
		slack = 4 * time.Second
	)
	tests := []struct {
		rule        string
		impl        func(t *testing.T) impl.Impl
		wantPartial bool // a finding whose shrinking the deadline stopped
	}{
		{"a child that hangs on every case: in-flight cases and shrinking stop at most one timeout after the deadline, and the finding being shrunk is saved as not minimal",
			func(t *testing.T) impl.Impl { return hangingImpl(t, caseTimeout) }, true},
		{"an implementation that agrees with its oracle: the run ends at the deadline",
			func(t *testing.T) impl.Impl { return impl.Engine{} }, false},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			im := tt.impl(t)
			out := t.TempDir()
			start := time.Now()
			s, err := Run(context.Background(), Options{
				Impl: im, Oracles: []impl.Impl{impl.Engine{}}, Duration: duration, CaseTimeout: caseTimeout,
				Seed: 1, Out: out, Workers: 16, ShrinkTime: time.Minute,
			})
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%v: %s, %d findings, %d not shrunk", elapsed, s.Line(), len(s.Findings), s.Unshrunk)
			if bound := duration + caseTimeout + slack; elapsed > bound {
				t.Errorf("the run took %v, want at most %v (duration %v + timeout %v + slack %v)", elapsed, bound, duration, caseTimeout, slack)
			}
			if elapsed < duration {
				t.Errorf("the run took %v, less than its duration %v", elapsed, duration)
			}
			if !tt.wantPartial {
				if len(s.Findings) != 0 {
					t.Errorf("findings %v, want none", s.Findings)
				}
				return
			}
			if len(s.Findings) == 0 {
				t.Fatalf("no finding, want the timeouts found and saved")
			}
			f := s.Findings[0]
			if !f.Partial {
				t.Errorf("finding %s is not marked Partial, though its shrinking could not finish before the deadline", f.ID)
			}
			data, err := os.ReadFile(f.Path)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				Provenance map[string]any `json:"provenance"`
			}
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatal(err)
			}
			if _, ok := doc.Provenance["shrinking"]; !ok {
				t.Errorf("saved case %s: provenance %v does not say shrinking stopped", f.Path, doc.Provenance)
			}
		})
	}
}

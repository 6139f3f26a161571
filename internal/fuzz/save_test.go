package fuzz

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/output"
	"github.com/conformsuite/conform/internal/protocol"
)

// refuser answers every case with an out_of_range error: it disagrees
// with the engine on every case that has an output.
type refuser struct{}

func (refuser) Name() string            { return "refuser" }
func (refuser) Version() string         { return "0" }
func (refuser) Supports(op string) bool { return op == casefile.OpSlice }
func (refuser) Close() error            { return nil }
func (refuser) Run(ctx context.Context, m *casefile.Case) protocol.Answer {
	return protocol.Error(engine.OutOfRange, "no")
}

// TestSaveFailuresReported checks that a finding that cannot be saved
// says so: no path, the reason in SaveErr, counted in Summary.Unsaved
// (saves used to fail silently), for each way a save can fail before its first file is written.
func TestSaveFailuresReported(t *testing.T) {
	for _, tt := range []struct {
		rule string
		out  func(t *testing.T, dir string) (string, *output.Inputs)
	}{
		{"a directory inside a regular file cannot be created", func(t *testing.T, dir string) (string, *output.Inputs) {
			os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
			return filepath.Join(dir, "file", "out"), nil
		}},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			out, inputs := tt.out(t, t.TempDir())
			s, err := Run(context.Background(), Options{
				Impl: refuser{}, Oracles: []impl.Impl{impl.Engine{}}, MaxCases: 40, Seed: 1,
				Out: out, Inputs: inputs, Workers: 4, ShrinkTime: 100 * time.Millisecond, MaxShrinks: 2,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Findings) == 0 {
				t.Fatalf("no finding: %s", s.Line())
			}
			for _, f := range s.Findings {
				if f.Path != "" || f.SaveErr == nil {
					t.Errorf("finding %s: path %q, error %v; want no path and the reason", f.ID, f.Path, f.SaveErr)
				}
			}
			if s.Unsaved != len(s.Findings) {
				t.Errorf("%d unsaved, want %d", s.Unsaved, len(s.Findings))
			}
		})
	}
}

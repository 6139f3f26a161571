package fuzz

import (
	"context"
	"encoding/binary"
	"os"
	"testing"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/oracle"
	"github.com/conformsuite/conform/internal/protocol"
)

// The test binary re-runs itself as a deliberately broken conform/1 child
// when CONFORM_BROKEN names one of these bugs. Each is the engine with one
// planted bug, of the kinds real implementations have.
var bugs = map[string]struct {
	rule string
	// answer returns the broken result, or ok=false to answer correctly.
	answer func(c *casefile.Case) (out *engine.Tensor, err error, ok bool)
}{
	"swap-f16": {"swaps the first two elements of every float16 result (a data-movement bug)", func(c *casefile.Case) (*engine.Tensor, error, bool) {
		out, err := c.Eval()
		if err != nil || out.DType.Kind != engine.Float || out.DType.Size != 2 || out.Len() < 2 {
			return nil, nil, false
		}
		b := append([]byte(nil), out.Bytes()...)
		b[0], b[1], b[2], b[3] = b[2], b[3], b[0], b[1]
		t, _ := engine.FromBytes(out.DType, out.Shape, b)
		return t, nil, true
	}},
	"gather-wraps": {"wraps negative gather_nd indices like ONNX instead of rejecting them", func(c *casefile.Case) (*engine.Tensor, error, bool) {
		if c.Op != casefile.OpGatherND || c.Inputs["indices"].DType != engine.Int64Type {
			return nil, nil, false
		}
		idx, params := c.Inputs["indices"].Contiguous(), c.Inputs["params"]
		if idx.Rank() == 0 || params.Rank() <= c.Spec.(engine.GatherNDSpec).BatchDims {
			return nil, nil, false
		}
		depth := idx.Shape[idx.Rank()-1]
		data := append([]byte(nil), idx.Data...)
		changed := false
		for i := 0; i*8 < len(data); i++ {
			v := int64(binary.LittleEndian.Uint64(data[8*i:]))
			dim := c.Spec.(engine.GatherNDSpec).BatchDims + i%max(depth, 1)
			if v < 0 && dim < params.Rank() {
				binary.LittleEndian.PutUint64(data[8*i:], uint64(v+int64(params.Shape[dim])))
				changed = true
			}
		}
		if !changed {
			return nil, nil, false
		}
		wrapped, _ := engine.FromBytes(idx.DType, idx.Shape, data)
		out, err := engine.GatherND(params, wrapped, c.Spec.(engine.GatherNDSpec).BatchDims, c.Spec.(engine.GatherNDSpec).BadIndices)
		return out, err, true
	}},
	"strict-shrink": {"rejects shrink axes with a stride other than 1, which TF accepts", func(c *casefile.Case) (*engine.Tensor, error, bool) {
		if c.Op != casefile.OpStridedSlice {
			return nil, nil, false
		}
		spec := c.Spec.(engine.StridedSliceSpec)
		for i, s := range spec.Strides {
			if spec.ShrinkAxisMask.Has(i) && !spec.NewAxisMask.Has(i) && !spec.EllipsisMask.Has(i) && s > 1 {
				return nil, engine.Errorf(engine.InvalidSpec, "shrink stride must be 1"), true
			}
		}
		return nil, nil, false
	}},
	"slice-minus-one": {"computes tf.slice size -1 as d - begin - 1", func(c *casefile.Case) (*engine.Tensor, error, bool) {
		if c.Op != casefile.OpSlice {
			return nil, nil, false
		}
		spec := c.Spec.(engine.SliceSpec)
		if len(spec.Size) != c.Inputs["x"].Rank() {
			return nil, nil, false
		}
		size := append([]int64(nil), spec.Size...)
		changed := false
		for i, s := range size {
			if s == -1 && int64(c.Inputs["x"].Shape[i]) > spec.Begin[i] {
				size[i] = int64(c.Inputs["x"].Shape[i]) - spec.Begin[i] - 1
				changed = true
			}
		}
		if !changed {
			return nil, nil, false
		}
		out, err := engine.Slice(c.Inputs["x"], spec.Begin, size)
		return out, err, true
	}},
	"crash-on-empty": {"dies on any input with no elements", func(c *casefile.Case) (*engine.Tensor, error, bool) {
		for _, t := range c.Inputs {
			if t.Len() == 0 {
				os.Exit(3)
			}
		}
		return nil, nil, false
	}},
}

// hangingEnv, when set, makes the test binary a conform/1 child that says
// hello and then never answers.
const hangingEnv = "CONFORM_HANGING"

func TestMain(m *testing.M) {
	if mode := os.Getenv(instantEnv); mode != "" {
		serveInstant(mode)
		os.Exit(0)
	}
	if os.Getenv(hangingEnv) != "" {
		protocol.ServeFunc(os.Stdin, os.Stdout, protocol.Hello{Name: "hanging", Version: "0", Ops: casefile.OpNames()}, func([]byte) map[string]any {
			select {}
		})
		os.Exit(0)
	}
	if name := os.Getenv("CONFORM_BROKEN"); name != "" {
		bug, ok := bugs[name]
		if !ok {
			os.Exit(2)
		}
		answer := func(line []byte) protocol.Answer {
			c, err := casefile.Parse(line, casefile.Base64Inputs)
			if err == nil {
				if out, err, ok := bug.answer(c); ok {
					return impl.Of(out, err)
				}
			}
			return protocol.EngineAnswer(line)
		}
		protocol.ServeAnswers(os.Stdin, os.Stdout, protocol.Hello{Name: "broken-" + name, Version: "0", Ops: casefile.OpNames()}, answer)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// brokenImpl starts the test binary as the broken child.
func brokenImpl(t *testing.T, bug string) impl.Impl {
	t.Helper()
	return startTestChild(t, "CONFORM_BROKEN", bug, "-test.run=^$") // restarted children inherit it too
}

// startTestChild starts the test binary with args as a conform/1 child
// whose TestMain serves as the environment variable env, set to value,
// says; it is closed when the test ends.
func startTestChild(tb testing.TB, env, value, args string) impl.Impl {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Setenv(env, value)
	child, err := oracle.Open(exe+" "+args, 5*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { child.Close() })
	return child
}

// TestFuzzFindsPlantedBugs runs `conform fuzz` against each broken child
// through the real protocol, with the engine as the oracle, and checks
// that the bug is found within 30 s, shrunk to at most 12 input elements,
// and saved as a case that fails against the broken child and passes
// against the engine.
func TestFuzzFindsPlantedBugs(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes for up to 30 s per bug")
	}
	for name, bug := range bugs {
		t.Run(name, func(t *testing.T) {
			im := brokenImpl(t, name)
			out := t.TempDir()
			start := time.Now()
			s, err := Run(context.Background(), Options{
				Impl: im, Oracles: []impl.Impl{impl.Engine{}}, Duration: 30 * time.Second,
				Seed: 1, Out: out, Workers: 32, ShrinkTime: shrinkTime, StopAfter: 1,
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Findings) == 0 {
				t.Fatalf("%s: not found in %v (%s)", bug.rule, time.Since(start), s.Line())
			}
			f := s.Findings[0]
			if n := elements(f.Case); n > 12 {
				t.Errorf("%s: shrunk to %d input elements (from %d), want at most 12: %v", bug.rule, n, f.Original, f.Case)
			}
			t.Logf("%s: found after %d cases, shrunk from %d to %d input elements: %v; broken gives %v, engine %v",
				bug.rule, s.Cases, f.Original, elements(f.Case), f.Case, f.Got, f.Want)

			// The saved case replays: it fails against the broken child
			// and passes against the engine.
			replay := func(im impl.Impl) *check.Summary {
				r, err := check.Run(context.Background(), os.DirFS(out), im, check.Options{})
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			if r := replay(brokenImpl(t, name)); r.Failed != 1 {
				t.Errorf("replay against the broken child: %s, want 1 failed", r.Line())
			}
			if r := replay(impl.Engine{}); r.Passed != 1 || !r.OK() {
				t.Errorf("replay against the engine: %s, want 1 passed", r.Line())
			}
		})
	}
}

var shrinkTime = func() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("SHRINK")); err == nil {
		return d
	}
	return 5 * time.Second
}()

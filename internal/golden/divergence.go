package golden

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/expr"
	"github.com/conformsuite/conform/engine/npy"
	"github.com/conformsuite/conform/internal/casefile"
)

// Divergence is a known class of disagreement between an oracle and the
// reference, explained in one line.
type Divergence struct {
	ID          string
	Oracle      string
	Explanation string
	// Match reports whether a disagreement on case m (reference outcome
	// ref, oracle outcome got) belongs to the class.
	Match func(m casefile.Memory, ref, got Outcome) bool
}

// Unexplained is the class of a disagreement no known divergence matches.
var Unexplained = Divergence{ID: "unexplained", Explanation: "no known divergence explains this disagreement: investigate"}

// Divergences lists the known divergence classes, most specific first.
// Each was confirmed by running TF.js directly; see oracle/README.md.
var Divergences = []Divergence{
	{
		ID: "tfjs-strings-not-byte-safe", Oracle: "tfjs",
		Explanation: "TF.js keeps strings as JavaScript strings on some kernel paths and replaces bytes that are not valid UTF-8 with U+FFFD, so |S values change (and widen).",
		Match: func(m casefile.Memory, ref, got Outcome) bool {
			return inputKind(m) == engine.Bytes && got.Output != nil && bytes.Contains(got.Output, []byte("\xef\xbf\xbd"))
		},
	},
	{
		ID: "tfjs-invalid-tensor", Oracle: "tfjs",
		Explanation: "TF.js returned a tensor no .npy can hold (a negative or NaN dimension, or fewer values than its shape) where TF raises an error or returns a valid result.",
		Match: func(m casefile.Memory, ref, got Outcome) bool {
			return strings.HasPrefix(got.Skip, invalidTensorSkip)
		},
	},
	{
		ID: "tfjs-strided-slice-empty-range-throws", Oracle: "tfjs",
		Explanation: "On its slice fast path (all strides 1, or only dim 0 sliced) TF.js turns an empty range into a negative size and throws where TF returns an empty tensor (strided_slice, and getitem through TF's encoding).",
		Match: func(m casefile.Memory, ref, got Outcome) bool {
			return isStridedSlice(m) && ref.Output != nil && emptyOutput(ref) &&
				containsAny(got.Message, "Negative size values should be exactly -1", "must match the rank", "must match the product of shape")
		},
	},
	{
		ID: "tfjs-strided-slice-shrink-misaligned", Oracle: "tfjs",
		Explanation: "On its general path TF.js walks the output shape with shrink axes removed but indexes begin/strides densely, so a shrink axis (an integer index in getitem) shifts every later axis: wrong elements or an out-of-range read.",
		Match: func(m casefile.Memory, ref, got Outcome) bool {
			return isStridedSlice(m) && ref.Output != nil && hasShrunkAxis(m) &&
				(got.Output != nil || containsAny(got.Message, "Requested out of range element", "number of provided coordinates"))
		},
	},
	{
		ID: "tfjs-slice-rank0", Oracle: "tfjs",
		Explanation: "TF.js refuses tf.slice of a rank-0 tensor (\"Slicing scalar is not possible\"); TF returns it unchanged for empty begin/size.",
		Match: func(m casefile.Memory, ref, got Outcome) bool {
			return m.Op() == casefile.OpSlice && strings.Contains(got.Message, "Slicing scalar is not possible")
		},
	},
	{
		ID: "tfjs-slice-short-spec", Oracle: "tfjs",
		Explanation: "TF.js pads a begin/size shorter than the rank (begin 0, size -1) where TF requires one entry per dimension.",
		Match: func(m casefile.Memory, ref, got Outcome) bool {
			return m.Op() == casefile.OpSlice && ref.Kind == engine.InvalidSpec && got.Kind == "" && specLen(m, "begin") < inputRank(m, "x")
		},
	},
	{
		ID: "tfjs-slice-begin-unchecked", Oracle: "tfjs",
		Explanation: "TF.js tf.slice does not check begin against the dimension (negative, or beyond it): it returns a wrong slice or fails later on a negative shape, where TF reports out of range.",
		Match: func(m casefile.Memory, ref, got Outcome) bool {
			return m.Op() == casefile.OpSlice && ref.Kind == engine.OutOfRange &&
				(got.Output != nil || containsAny(got.Message, "shape comprised of positive integers", "Invalid typed array length"))
		},
	},
	{
		ID: "tfjs-result-over-32-dims", Oracle: "tfjs",
		Explanation: "TF.js, like TF, returns results of more than 32 dimensions (new axes); NumPy and conform cap results at 32 dimensions (invalid_spec), so no .npy holds them.",
		Match: func(m casefile.Memory, ref, got Outcome) bool {
			return ref.Kind == engine.InvalidSpec && strings.Contains(ref.Message, "number of dimensions must be within [0, 32]") && got.Output != nil
		},
	},
	{
		ID: "tfjs-gather-nd-flat-bounds", Oracle: "tfjs",
		Explanation: "TF.js gatherND bounds-checks only the flattened offset, so a row with a negative or too-large component that lands inside params is accepted.",
		Match: func(m casefile.Memory, ref, got Outcome) bool {
			return m.Op() == casefile.OpGatherND && ref.Kind == engine.OutOfRange && got.Output != nil
		},
	},
	{
		ID: "tfjs-gather-nd-empty-params", Oracle: "tfjs",
		Explanation: "TF.js gatherND throws on params with no elements even when no rows are requested; TF returns an empty result.",
		Match: func(m casefile.Memory, ref, got Outcome) bool {
			return m.Op() == casefile.OpGatherND && ref.Output != nil && got.Kind != "" && m.Inputs["params"].Len() == 0
		},
	},
}

// The ONNX Runtime divergences from the ONNX specification, on the ONNX
// ops (see oracle/README.md).
func init() {
	Divergences = append(Divergences,
		Divergence{
			ID: "ort-slice-intmax-end", Oracle: "ort",
			Explanation: "ONNX Runtime reads an end of exactly INT64_MAX or INT32_MAX with a negative step as \"to the beginning\"; the ONNX spec clamps it to dim-1, giving an empty slice.",
			Match: func(m casefile.Memory, ref, got Outcome) bool {
				if m.Op() != casefile.OpONNXSlice {
					return false
				}
				c, err := m.Case()
				if err != nil {
					return false
				}
				for i, e := range c.Ends {
					step := int64(1)
					if i < len(c.Steps) {
						step = c.Steps[i]
					}
					if step < 0 && (e == math.MaxInt64 || e == math.MaxInt32) {
						return true
					}
				}
				return false
			},
		},
		Divergence{
			ID: "ort-gather-nd-batch-shape", Oracle: "ort",
			Explanation: "ONNX Runtime's GatherND only checks that the batch sizes divide each other, not that data and indices have the same batch dimensions as the ONNX spec requires.",
			Match: func(m casefile.Memory, ref, got Outcome) bool {
				c, err := m.Case()
				return err == nil && m.Op() == casefile.OpONNXGatherND && c.BatchDims > 0 && ref.Kind == engine.InvalidSpec && got.Output != nil
			},
		},
		Divergence{
			ID: "ort-gather-nd-negative-batch-dims", Oracle: "ort",
			Explanation: "ONNX Runtime's GatherND accepts a negative batch_dims (and computes a result); the ONNX spec requires 0 <= batch_dims < min(rank(data), rank(indices)).",
			Match: func(m casefile.Memory, ref, got Outcome) bool {
				c, err := m.Case()
				return err == nil && m.Op() == casefile.OpONNXGatherND && c.BatchDims < 0 && ref.Kind == engine.InvalidSpec && got.Output != nil
			},
		},
		Divergence{
			ID: "ort-gather-nd-empty-output", Oracle: "ort",
			Explanation: "ONNX Runtime's GatherND skips the index bounds check when the output has no elements; the ONNX spec requires every index in range.",
			Match: func(m casefile.Memory, ref, got Outcome) bool {
				return m.Op() == casefile.OpONNXGatherND && ref.Kind == engine.OutOfRange && got.Output != nil && emptyOutput(got)
			},
		},
	)
}

// invalidTensorSkip starts the skip reason the TF.js oracle gives when
// TF.js returns a tensor that cannot be written as .npy.
const invalidTensorSkip = "TF.js returned an invalid tensor"

// inputKind returns the dtype kind of the case's data input.
func inputKind(m casefile.Memory) engine.Kind {
	for _, name := range []string{"x", "params"} {
		if t, ok := m.Inputs[name]; ok {
			return t.DType.Kind
		}
	}
	return 0
}

func inputRank(m casefile.Memory, name string) int {
	if t, ok := m.Inputs[name]; ok {
		return t.Rank()
	}
	return -1
}

func specLen(m casefile.Memory, field string) int {
	switch v := m.Spec[field].(type) {
	case []int64:
		return len(v)
	case []any:
		return len(v)
	}
	return -1
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// emptyOutput reports whether an output has no elements.
func emptyOutput(o Outcome) bool {
	t, err := npy.Decode(o.Output)
	return err == nil && t.Len() == 0
}

// isStridedSlice reports whether TF.js ran the case through its
// stridedSlice kernel: strided_slice, and getitem through TF's Python
// __getitem__ encoding.
func isStridedSlice(m casefile.Memory) bool {
	return m.Op() == casefile.OpStridedSlice || m.Op() == casefile.OpGetItem
}

// hasShrunkAxis reports whether a strided_slice or getitem case, as the
// engine reads it, drops an input axis (a shrink bit, an integer index).
func hasShrunkAxis(m casefile.Memory) bool {
	c, err := m.Case()
	if err != nil {
		return false
	}
	x := c.Inputs["x"]
	var plan *engine.Plan
	if c.Op == casefile.OpGetItem {
		items, perr := expr.Parse(c.Index)
		if perr != nil {
			return false
		}
		plan, err = engine.GetItemPlan(x.Shape, items)
	} else {
		plan, err = engine.StridedSlicePlan(x.Shape, c.Spec())
	}
	if err != nil {
		return false
	}
	used := map[int]bool{}
	for _, a := range plan.Axes {
		used[a.Input] = true
	}
	return len(used) < x.Rank()+boolInt(used[engine.NewAxis])
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Classify returns the known divergence that explains a disagreement, or
// Unexplained.
func Classify(oracleName string, m casefile.Memory, ref, got Outcome) Divergence {
	for _, d := range Divergences {
		if d.Oracle == oracleName && d.Match(m, ref, got) {
			return d
		}
	}
	return Unexplained
}

func divergenceByID(id string) Divergence {
	for _, d := range Divergences {
		if d.ID == id {
			return d
		}
	}
	return Unexplained
}

// disagreementsReport renders DISAGREEMENTS.md: every case where an
// oracle disagrees with the reference, grouped by divergence class.
func disagreementsReport(s *Summary, versions map[string]string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# Oracle disagreements in the golden corpus\n\n")
	fmt.Fprintf(&b, "Generated by `conform golden`. The reference is %s %s; every case where another oracle's\n", Reference, versions[Reference])
	fmt.Fprintf(&b, "output or error kind differs from it is listed here, by divergence class. Nothing is dropped:\n")
	fmt.Fprintf(&b, "the cases stay in the corpus with both results, marked with a \"disagreement\" field.\n\n")
	names := make([]string, 0, len(s.Agreement))
	for name := range s.Agreement {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c := s.Agreement[name]
		fmt.Fprintf(&b, "## %s %s\n\n", name, versions[name])
		fmt.Fprintf(&b, "%d agree, %d disagree, %d skipped, %d crashed.\n\n", c["agree"], c["disagree"], c["skip"], c["crash"])
		classes := s.Disagreements[name]
		ids := make([]string, 0, len(classes))
		for id := range classes {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			d := divergenceByID(id)
			fmt.Fprintf(&b, "### %s (%d cases)\n\n%s\n\n", id, len(classes[id]), d.Explanation)
			fmt.Fprintf(&b, "%s\n\n", strings.Join(classes[id], ", "))
		}
	}
	return b.Bytes()
}

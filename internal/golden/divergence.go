package golden

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/signature"
)

// Divergence is a known class of disagreement between an oracle and the
// reference, explained in one line.
type Divergence struct {
	ID          string
	Oracle      string
	Explanation string
	// Match reports whether a disagreement belongs to the class. It sees
	// no message: a class is defined by the op, the disagreement's
	// signature (symptom, detail, the engine variant that reproduces the
	// oracle's answer), the engine's rules that apply to the case, the
	// oracle's skip or crash code and the spec.
	Match func(d *Disagreement) bool
}

// noError reports whether the oracle raised no error: it returned an
// output, or failed without an error (a crash the oracle detected).
func noError(a protocol.Answer) bool { return a.IsOutput() || a.IsCrash() }

// crashed reports whether the oracle reported a crash with the code.
func crashed(a protocol.Answer, code string) bool { return a.IsCrash() && a.Code() == code }

// Disagreement is one case on which an oracle disagrees with the
// reference, as the divergence classes see it.
type Disagreement struct {
	Case *casefile.Case
	// Ref and Got are the reference's and the oracle's answers, without
	// their messages (protocol.Answer.WithoutText): a class sees none.
	Ref, Got protocol.Answer
	// Signature is signature.Classify's name for the disagreement.
	Signature signature.Signature

	applies map[engine.Variant]bool
}

// newDisagreement classifies the disagreement of got with ref on m.
func newDisagreement(m *casefile.Case, ref, got protocol.Answer) *Disagreement {
	return &Disagreement{
		Case: m, Ref: ref.WithoutText(), Got: got.WithoutText(),
		Signature: signature.Classify(m, ref, got),
	}
}

// Op is the case's op.
func (d *Disagreement) Op() string { return d.Case.Op }

// Is reports whether the signature has the symptom and, if detail is not
// empty, the detail.
func (d *Disagreement) Is(symptom signature.Symptom, detail string) bool {
	return d.Signature.Symptom == symptom && (detail == "" || d.Signature.Detail == detail)
}

// Follows reports whether the engine under variant v reproduces the
// oracle's answer (the signature names v).
func (d *Disagreement) Follows(v engine.Variant) bool { return d.Signature.Variant == v.String() }

// RaisedUnder returns the rule whose error the engine raises on the case
// under variant v, or "" if it raises none (or panics, or the case is not
// valid). It is how a class asks which check a spec reaches once one
// rule is replaced, e.g. once an out-of-range index is clamped.
func (d *Disagreement) RaisedUnder(v engine.Variant) engine.RuleID {
	if d.Case.Err != nil {
		return ""
	}
	_, err, ok := d.Case.EvalSafely(engine.Rules{}.With(v))
	if !ok {
		return ""
	}
	return engine.RuleOf(err)
}

// Raised returns the rule whose error the engine raises on the case
// under the reference rules, or "" if it raises none (or panics, or the
// case is not valid).
func (d *Disagreement) Raised() engine.RuleID {
	if d.Case.Err != nil {
		return ""
	}
	_, err, ok := d.Case.EvalSafely(engine.Rules{})
	if !ok {
		return ""
	}
	return engine.RuleOf(err)
}

// Exercises reports whether the engine's evaluation of the case under
// the reference rules exercises rule: records it in its trace (see
// engine.Trace) or raises its error.
func (d *Disagreement) Exercises(rule engine.RuleID) bool {
	if d.Case.Err != nil {
		return false
	}
	trace := new(engine.Trace)
	_, err, ok := d.Case.EvalSafely(engine.Rules{Trace: trace})
	return ok && (trace.Has(rule) || engine.RuleOf(err) == rule)
}

// Applies reports whether the rule variant v replaces applies to the case:
// the engine under v answers otherwise than under the reference rules (an
// output of other bytes, dtype or shape, or another error kind). This is
// how a class asks the engine about a spec, instead of re-deriving TF's
// rules.
func (d *Disagreement) Applies(v engine.Variant) bool {
	if got, ok := d.applies[v]; ok {
		return got
	}
	if d.Case.Err != nil {
		return false
	}
	applies := d.Case.VariantChanges(v)
	if d.applies == nil {
		d.applies = map[engine.Variant]bool{}
	}
	d.applies[v] = applies
	return applies
}

// Unexplained is the class of a disagreement no known divergence matches.
var Unexplained = Divergence{ID: "unexplained", Explanation: "no known divergence explains this disagreement: investigate"}

// Divergences lists the known divergence classes, most specific first.
// Each was confirmed by running TF.js directly; see internal/oracle/README.md.
var Divergences = []Divergence{
	{
		ID: "tfjs-strings-not-byte-safe", Oracle: "tfjs",
		Explanation: "TF.js keeps strings as JavaScript strings on some kernel paths and replaces bytes that are not valid UTF-8 with U+FFFD, so |S values change (and widen).",
		Match: func(d *Disagreement) bool {
			return inputKind(d.Case) == engine.Bytes && d.Got.IsOutput() && bytes.Contains(d.Got.NPY(), []byte("\xef\xbf\xbd"))
		},
	},
	{
		ID: "tfjs-invalid-tensor", Oracle: "tfjs",
		Explanation: "TF.js returned a tensor no .npy can hold (a negative or NaN dimension, or fewer values than its shape) where TF raises an error or returns a valid result.",
		Match: func(d *Disagreement) bool {
			return d.Got.IsSkip() && d.Got.Code() == CodeInvalidTensor
		},
	},
	{
		ID: "tfjs-strided-slice-empty-range-throws", Oracle: "tfjs",
		Explanation: "On its slice fast path (all strides 1, or only dim 0 sliced) TF.js turns an empty range into a negative size and throws where TF returns an empty tensor (strided_slice, and getitem through TF's encoding).",
		Match: func(d *Disagreement) bool {
			// The variant empty-range-refused gives invalid_spec; TF.js
			// throws out_of_range as often, so any error kind counts. A
			// spec with a shrink axis and a stride other than 1 takes
			// the general path (tfjs-strided-slice-shrink-misaligned).
			return isStridedSlice(d.Case) && d.Is(signature.ErrorForOutput, "") && d.Applies(engine.EmptyRangeRefused) &&
				(!hasShrunkAxis(d.Case) || unitSteps(d.Case))
		},
	},
	{
		ID: "tfjs-strided-slice-shrink-misaligned", Oracle: "tfjs",
		Explanation: "On its general path TF.js walks the output shape with shrink axes removed but indexes begin/strides densely, so a shrink axis (an integer index in getitem) shifts every later axis: wrong elements or an out-of-range read.",
		Match: func(d *Disagreement) bool {
			return isStridedSlice(d.Case) && d.Ref.IsOutput() && d.Got.Ran() && hasShrunkAxis(d.Case)
		},
	},
	{
		ID: "tfjs-slice-rank0", Oracle: "tfjs",
		Explanation: "TF.js refuses tf.slice of a rank-0 tensor (\"Slicing scalar is not possible\"); TF returns it unchanged for empty begin/size.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpSlice && d.Is(signature.ErrorForOutput, "") && inputRank(d.Case, "x") == 0
		},
	},
	{
		ID: "tfjs-slice-short-spec", Oracle: "tfjs",
		Explanation: "TF.js pads a begin/size shorter than the rank (begin 0, size -1) where TF requires one entry per dimension.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpSlice && d.Follows(engine.ShortSliceSpecPadded)
		},
	},
	{
		ID: "tfjs-slice-begin-unchecked", Oracle: "tfjs",
		Explanation: "TF.js tf.slice does not check begin against the dimension (negative, or beyond it): it returns a wrong slice or fails later on a negative shape, where TF reports out of range.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpSlice && d.Ref.Kind() == engine.OutOfRange && d.Got.Ran() && beginOutside(d.Case)
		},
	},
	{
		ID: "tfjs-result-over-32-dims", Oracle: "tfjs",
		Explanation: "TF.js, like TF, returns results of more than 32 dimensions (new axes); NumPy and conform cap results at 32 dimensions (invalid_spec), so no .npy holds them.",
		Match: func(d *Disagreement) bool {
			// The oracle's .npy writer has no cap; the reader refuses
			// more than engine.MaxRank dimensions.
			return d.Ref.Kind() == engine.InvalidSpec && d.Is(signature.Crash, protocol.CrashBadOutput) && d.Got.IsOutput()
		},
	},
	{
		ID: "tfjs-gather-nd-flat-bounds", Oracle: "tfjs",
		Explanation: "TF.js gatherND bounds-checks only the flattened offset, so a row with a negative or too-large component that lands inside params is accepted.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpGatherND && d.Follows(engine.GatherFlatBounds)
		},
	},
	{
		ID: "tfjs-gather-nd-empty-params", Oracle: "tfjs",
		Explanation: "TF.js gatherND throws on params with no elements even when no rows are requested; TF returns an empty result.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpGatherND && d.Is(signature.ErrorForOutput, "") && d.Case.Inputs["params"].Len() == 0
		},
	},
	{
		ID: "tfjs-gather-batch-dims-empty", Oracle: "tfjs",
		Explanation: "TF.js tf.gather with batch_dims fails on params or indices with no elements (it reshapes to a NaN dimension) where TF returns an empty result.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpGather && d.Is(signature.ErrorForOutput, "") && gatherBatchDims(d.Case) != 0 &&
				(d.Case.Inputs["params"].Len() == 0 || d.Case.Inputs["indices"].Len() == 0)
		},
	},
	{
		ID: "tfjs-gather-indices-first", Oracle: "tfjs",
		Explanation: "TF.js tf.gather checks the index values before axis and batch_dims, so a case with a bad batch_dims or axis and an out-of-range index is out of range where TF reports the invalid spec.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpGather && d.Ref.Kind() == engine.InvalidSpec && d.Got.Kind() == engine.OutOfRange
		},
	},
	{
		ID: "tfjs-gather-any-integer-indices", Oracle: "tfjs",
		Explanation: "TF.js tf.gather takes indices of every integer dtype (its tensors hold them as int32); TF's GatherV2 registers Tindices as int32 and int64 only and refuses the others before its kernel runs.",
		Match: func(d *Disagreement) bool {
			if d.Op() != casefile.OpGather || d.Ref.Kind() != engine.BadInput {
				return false
			}
			dt := d.Case.Inputs["indices"].DType
			return dt.IsInteger() && !engine.TFGatherIndexDType(dt)
		},
	},
	{
		ID: "tfjs-gather-empty-output-checked", Oracle: "tfjs",
		Explanation: "TF.js tf.gather bounds-checks the indices even when the result has no elements (params with an empty dimension before the axis); TF returns the empty result.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpGather && d.Is(signature.ErrorForOutput, string(engine.OutOfRange)) && emptyOutput(d.Ref)
		},
	},
}

// gatherBatchDims returns the batch_dims of a gather case (0 for a case
// that does not parse).
func gatherBatchDims(c *casefile.Case) int {
	if c.Err != nil {
		return 0
	}
	return c.Spec.(engine.GatherSpec).BatchDims
}

// The ONNX Runtime divergences from the ONNX specification, on the ONNX
// ops (see internal/oracle/README.md).
func init() {
	Divergences = append(Divergences,
		Divergence{
			ID: "ort-slice-intmax-end", Oracle: "ort",
			Explanation: "ONNX Runtime reads an end of exactly INT64_MAX or INT32_MAX with a negative step as \"to the beginning\"; the ONNX spec clamps it to dim-1, giving an empty slice.",
			Match: func(d *Disagreement) bool {
				if d.Op() != casefile.OpONNXSlice {
					return false
				}
				if d.Case.Err != nil {
					return false
				}
				spec := d.Case.Spec.(engine.ONNXSliceSpec)
				for i, e := range spec.Ends {
					step := int64(1)
					if i < len(spec.Steps) {
						step = spec.Steps[i]
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
			Match: func(d *Disagreement) bool {
				c := d.Case
				return c.Err == nil && d.Op() == casefile.OpONNXGatherND && c.Spec.(engine.ONNXGatherNDSpec).BatchDims > 0 && d.Is(signature.OutputForError, string(engine.InvalidSpec))
			},
		},
		Divergence{
			ID: "ort-gather-nd-negative-batch-dims", Oracle: "ort",
			Explanation: "ONNX Runtime's GatherND accepts a negative batch_dims (and computes a result); the ONNX spec requires 0 <= batch_dims < min(rank(data), rank(indices)).",
			Match: func(d *Disagreement) bool {
				c := d.Case
				return c.Err == nil && d.Op() == casefile.OpONNXGatherND && c.Spec.(engine.ONNXGatherNDSpec).BatchDims < 0 && d.Is(signature.OutputForError, string(engine.InvalidSpec))
			},
		},
		Divergence{
			ID: "ort-gather-strings", Oracle: "ort",
			Explanation: "ONNX Runtime's Gather on string data copies only the first string of each gathered slice and leaves the others empty.",
			Match: func(d *Disagreement) bool {
				k := inputKind(d.Case)
				return d.Op() == casefile.OpONNXGather && (k == engine.Bytes || k == engine.Unicode) && d.Is(signature.Values, "")
			},
		},
		Divergence{
			ID: "ort-gather-nd-empty-output", Oracle: "ort",
			Explanation: "ONNX Runtime's GatherND skips the index bounds check when the output has no elements; the ONNX spec requires every index in range.",
			Match: func(d *Disagreement) bool {
				return d.Op() == casefile.OpONNXGatherND && d.Is(signature.OutputForError, string(engine.OutOfRange)) && emptyOutput(d.Got)
			},
		},
	)
}

// inputKind returns the dtype kind of the case's data input.
func inputKind(c *casefile.Case) engine.Kind {
	if c.Def == nil {
		return 0
	}
	if t, ok := c.Inputs[c.Def.Inputs[0]]; ok {
		return t.DType.Kind
	}
	return 0
}

func inputRank(m *casefile.Case, name string) int {
	if t, ok := m.Inputs[name]; ok {
		return t.Rank()
	}
	return -1
}

// beginOutside reports whether a slice case has a begin entry outside its
// dimension: negative, or beyond the dimension's size.
func beginOutside(c *casefile.Case) bool {
	if c.Err != nil || c.Op != casefile.OpSlice {
		return false
	}
	shape := c.Inputs["x"].Shape
	for i, b := range c.Spec.(engine.SliceSpec).Begin {
		if b < 0 || (i < len(shape) && b > int64(shape[i])) {
			return true
		}
	}
	return false
}

// emptyOutput reports whether an output (.npy bytes) has no elements.
func emptyOutput(a protocol.Answer) bool {
	t, err := a.Tensor()
	return a.IsOutput() && err == nil && t.Len() == 0
}

// isStridedSlice reports whether TF.js ran the case through its
// stridedSlice kernel: strided_slice, and getitem through TF's Python
// __getitem__ encoding.
func isStridedSlice(c *casefile.Case) bool {
	return c.Op == casefile.OpStridedSlice || c.Op == casefile.OpGetItem
}

// stridedPlan returns the engine's plan of a strided_slice or getitem
// case and its input's rank, or nil.
func stridedPlan(c *casefile.Case) (*engine.Plan, int) {
	if c.Err != nil {
		return nil, 0
	}
	x := c.Inputs["x"]
	var plan *engine.Plan
	var err error
	if c.Op == casefile.OpGetItem {
		spec := c.Spec.(engine.GetItemSpec)
		if spec.ParseErr != nil {
			return nil, 0
		}
		plan, err = engine.GetItemPlan(x.Shape, spec.Items)
	} else if c.Op == casefile.OpStridedSlice {
		plan, err = engine.StridedSlicePlan(x.Shape, c.Spec.(engine.StridedSliceSpec))
	} else {
		return nil, 0
	}
	if err != nil {
		return nil, 0
	}
	return plan, x.Rank()
}

// unitSteps reports whether every output axis of a strided_slice or
// getitem case, as the engine plans it, steps by 1.
func unitSteps(m *casefile.Case) bool {
	plan, _ := stridedPlan(m)
	if plan == nil {
		return false
	}
	for _, a := range plan.Axes {
		if a.Input != engine.NewAxis && a.Step != 1 {
			return false
		}
	}
	return true
}

// hasShrunkAxis reports whether a strided_slice or getitem case, as the
// engine reads it, drops an input axis (a shrink bit, an integer index).
func hasShrunkAxis(m *casefile.Case) bool {
	plan, rank := stridedPlan(m)
	if plan == nil {
		return false
	}
	used := map[int]bool{}
	for _, a := range plan.Axes {
		used[a.Input] = true
	}
	return len(used) < rank+boolInt(used[engine.NewAxis])
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Classify returns the known divergence that explains a disagreement, or
// Unexplained.
func Classify(oracleName string, m *casefile.Case, ref, got protocol.Answer) Divergence {
	d := newDisagreement(m, ref, got)
	for _, div := range Divergences {
		if div.Oracle == oracleName && div.Match(d) {
			return div
		}
	}
	return Unexplained
}

// HasClasses reports whether the golden corpus defines divergence classes
// for the implementation named name (one of its oracles).
func HasClasses(name string) bool {
	for _, d := range Divergences {
		if d.Oracle == name {
			return true
		}
	}
	return false
}

// ClassOf returns the divergence class that explains the answer got of
// the implementation called name to case m, whose expected answer is ref,
// or "" if none does (or name has no classes).
func ClassOf(name string, m *casefile.Case, ref, got protocol.Answer) string {
	if !HasClasses(name) {
		return ""
	}
	if d := Classify(name, m, ref, got); d.ID != Unexplained.ID {
		return d.ID
	}
	return ""
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

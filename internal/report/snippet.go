package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// Snippet returns Python code that reproduces a case in NumPy and in
// TensorFlow, with the inputs written out exactly.
func Snippet(m casefile.Memory) string {
	var b strings.Builder
	b.WriteString("import numpy as np\nimport tensorflow as tf\n")
	names := []string{"x", "params", "indices", "data"}
	for _, n := range names {
		if t, ok := m.Inputs[n]; ok {
			fmt.Fprintf(&b, "%s = %s\n", n, pyLiteral(t))
		}
	}
	c, err := m.Case()
	if err != nil {
		spec, _ := json.Marshal(m.Spec)
		fmt.Fprintf(&b, "# the case spec is malformed (%v): %s\n", err, spec)
		return b.String()
	}
	switch c.Op {
	case casefile.OpGetItem:
		np := strings.Replace(c.Index, "tf.newaxis", "np.newaxis", -1)
		fmt.Fprintf(&b, "%s  # NumPy\n", np)
		tfIndex := strings.Replace(strings.Replace(c.Index, "np.newaxis", "tf.newaxis", -1), "numpy.newaxis", "tf.newaxis", -1)
		fmt.Fprintf(&b, "tf.constant(x)%s  # TensorFlow\n", strings.TrimLeftFunc(tfIndex, func(r rune) bool { return r != '[' }))
	case casefile.OpStridedSlice:
		masks := []struct {
			name string
			m    engine.Mask
		}{{"begin_mask", c.BeginMask}, {"end_mask", c.EndMask}, {"ellipsis_mask", c.EllipsisMask}, {"new_axis_mask", c.NewAxisMask}, {"shrink_axis_mask", c.ShrinkAxisMask}}
		strides := c.Strides
		if strides == nil {
			strides = make([]int64, len(c.Begin))
			for i := range strides {
				strides[i] = 1
			}
		}
		fmt.Fprintf(&b, "tf.strided_slice(x, %s, %s, %s", ints(c.Begin), ints(c.End), ints(strides))
		for _, mk := range masks {
			if mk.m.Bits != 0 {
				fmt.Fprintf(&b, ", %s=%d", mk.name, int64(mk.m.Bits))
			}
		}
		b.WriteString(")  # TensorFlow\n")
		if plan, err := engine.StridedSlicePlan(c.Inputs["x"].Shape, c.Spec()); err == nil {
			fmt.Fprintf(&b, "x[%s]  # NumPy equivalent\n", planIndex(plan, c.Inputs["x"].Rank()))
		}
	case casefile.OpSlice:
		fmt.Fprintf(&b, "tf.slice(x, %s, %s)  # TensorFlow\n", ints(c.Begin), ints(c.Size))
		if len(c.Begin) == len(c.Size) && len(c.Begin) == c.Inputs["x"].Rank() {
			parts := make([]string, len(c.Begin))
			for i := range c.Begin {
				if c.Size[i] == -1 {
					parts[i] = fmt.Sprintf("%d:", c.Begin[i])
				} else {
					parts[i] = fmt.Sprintf("%d:%d", c.Begin[i], c.Begin[i]+c.Size[i])
				}
			}
			fmt.Fprintf(&b, "x[%s]  # NumPy equivalent (where TF's checks pass)\n", strings.Join(parts, ", "))
		}
	case casefile.OpONNXSlice:
		fmt.Fprintf(&b, "# ONNX Slice-13: starts=%s, ends=%s", ints(c.Starts), ints(c.Ends))
		if c.Axes != nil {
			fmt.Fprintf(&b, ", axes=%s", ints(c.Axes))
		}
		if c.Steps != nil {
			fmt.Fprintf(&b, ", steps=%s", ints(c.Steps))
		}
		b.WriteString("\n")
		spec := engine.ONNXSliceSpec{Starts: c.Starts, Ends: c.Ends, Axes: c.Axes, Steps: c.Steps}
		if plan, err := engine.ONNXSlicePlan(c.Inputs["data"].Shape, spec); err == nil {
			fmt.Fprintf(&b, "data[%s]  # NumPy equivalent under ONNX's clamping\n", planIndex(plan, c.Inputs["data"].Rank()))
		}
	case casefile.OpONNXGatherND:
		fmt.Fprintf(&b, "# ONNX GatherND-13: batch_dims=%d (negative indices wrap once)\n", c.BatchDims)
		if c.BatchDims == 0 {
			b.WriteString("data[tuple(np.moveaxis(indices, -1, 0))]  # NumPy equivalent when every index is in [-dim, dim)\n")
		}
	case casefile.OpGatherND:
		extra := ""
		if c.BatchDims != 0 {
			extra = fmt.Sprintf(", batch_dims=%d", c.BatchDims)
		}
		fmt.Fprintf(&b, "tf.gather_nd(params, indices%s)  # TensorFlow (CPU)\n", extra)
		if c.BatchDims == 0 {
			b.WriteString("params[tuple(np.moveaxis(indices, -1, 0))]  # NumPy equivalent\n")
		}
	}
	return b.String()
}

func ints(v []int64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// planIndex writes a NumPy subscript that selects what the plan selects:
// per output axis the resolved range, integers for dropped axes, None for
// new axes.
func planIndex(plan *engine.Plan, rank int) string {
	used := map[int]bool{}
	for _, a := range plan.Axes {
		used[a.Input] = true
	}
	var parts []string
	next := 0 // next input axis to place
	flush := func(upto int) {
		for ; next < upto; next++ {
			if !used[next] {
				parts = append(parts, fmt.Sprint(plan.Fixed[next]))
			}
		}
	}
	for _, a := range plan.Axes {
		if a.Input == engine.NewAxis {
			parts = append(parts, "None")
			continue
		}
		flush(a.Input)
		next = a.Input + 1
		if a.Count == 0 {
			parts = append(parts, "0:0")
			continue
		}
		stop := a.Start + a.Count*a.Step
		stopText := fmt.Sprint(stop)
		if stop < 0 {
			stopText = "None"
		}
		parts = append(parts, fmt.Sprintf("%d:%s:%d", a.Start, stopText, a.Step))
	}
	flush(rank)
	switch len(parts) {
	case 0:
		return "..."
	case 1:
		return parts[0] + ","
	}
	return strings.Join(parts, ", ")
}

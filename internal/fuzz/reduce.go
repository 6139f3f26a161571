package fuzz

import (
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/signature"
)

// reduce shrinks a failing case further after rapid, directly on its
// tensors: it tries cutting each input down along each axis (to 0, 1, half
// and one less), the batch axes of gather_nd on both inputs at once, and
// keeps every candidate on which the implementation still disagrees with
// its reference with signature sig, until no candidate helps or its time (ShrinkTime, or
// less if the deadline comes first) is up. cut reports that the deadline
// stopped it. Candidates are compared ShrinkJobs at a time, and the first
// of them (in their order) that still disagrees is kept, as comparing
// them one by one would keep.
func (s *shrinker) reduce(m *casefile.Case, out outcome, sig signature.Signature) (*casefile.Case, outcome, bool) {
	budget, capped := s.budget()
	end := time.Now().Add(budget)
	for progress := true; progress; {
		progress = false
		var smaller []*casefile.Case
		for _, cand := range candidates(m) {
			if elements(cand) < elements(m) {
				smaller = append(smaller, cand)
			}
		}
		for len(smaller) > 0 && !progress {
			if !time.Now().Before(end) {
				return m, out, capped
			}
			batch := smaller[:min(len(smaller), max(s.opts.ShrinkJobs, 1))]
			smaller = smaller[len(batch):]
			outs, ok := s.compareAll(batch)
			if !ok {
				return m, out, true
			}
			for i, cand := range batch {
				if s.same(cand, outs[i], sig) {
					m, out, progress = cand, outs[i], true
					break
				}
			}
		}
	}
	return m, out, false
}

// compareAll runs the candidates ms at once; ok is false if a comparison
// was not run or cut short (see compare).
func (s *shrinker) compareAll(ms []*casefile.Case) ([]outcome, bool) {
	outs := make([]outcome, len(ms))
	oks := make([]bool, len(ms))
	var wg sync.WaitGroup
	for i, m := range ms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			outs[i], oks[i] = s.compare(m)
		}()
	}
	wg.Wait()
	return outs, !slices.Contains(oks, false)
}

// candidates lists smaller variants of m: each input cut along one axis,
// and for an op with batch_dims (gather_nd, gather, onnx_gather_nd) the
// batch axes cut on its data input and indices together.
func candidates(m *casefile.Case) []*casefile.Case {
	var list []*casefile.Case
	names := make([]string, 0, len(m.Inputs))
	for name := range m.Inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	batch, data := batchDims(m), ""
	if batch > 0 {
		data = m.Def.Inputs[0]
	}
	for axis := 0; axis < batch; axis++ {
		p, i := m.Inputs[data], m.Inputs["indices"]
		if p == nil || i == nil || axis >= p.Rank() || axis >= i.Rank() || p.Shape[axis] != i.Shape[axis] {
			continue
		}
		for _, n := range sizes(p.Shape[axis]) {
			list = append(list, m.WithInputs(map[string]*engine.Tensor{data: prefix(p, axis, n), "indices": prefix(i, axis, n)}))
		}
	}
	for _, name := range names {
		t := m.Inputs[name]
		for axis := range t.Shape {
			for _, n := range sizes(t.Shape[axis]) {
				list = append(list, m.WithInputs(map[string]*engine.Tensor{name: prefix(t, axis, n)}))
			}
		}
	}
	return list
}

// sizes lists smaller sizes to try for a dimension of size d, smallest
// first.
func sizes(d int) []int {
	var out []int
	for _, n := range []int{0, 1, d / 2, d - 1} {
		if n >= 0 && n < d && (len(out) == 0 || n > out[len(out)-1]) {
			out = append(out, n)
		}
	}
	return out
}

// batchDims returns the batch_dims of a valid gather_nd, gather or
// onnx_gather_nd case, or 0.
func batchDims(c *casefile.Case) int {
	switch s := c.Spec.(type) {
	case engine.GatherNDSpec:
		return s.BatchDims
	case engine.GatherSpec:
		return s.BatchDims
	case engine.ONNXGatherNDSpec:
		return s.BatchDims
	}
	return 0
}

// prefix returns the first n positions of t along axis, as a
// C-contiguous tensor (a view of t when those positions are one block of
// it; nothing writes to either).
func prefix(t *engine.Tensor, axis, n int) *engine.Tensor {
	plan := &engine.Plan{Fixed: make([]int, t.Rank())}
	for a, d := range t.Shape {
		if a == axis {
			d = n
		}
		plan.Axes = append(plan.Axes, engine.PlanAxis{Input: a, Step: 1, Count: d})
	}
	return plan.Apply(t)
}

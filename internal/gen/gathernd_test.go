package gen

import (
	"testing"

	"github.com/conformsuite/conform/engine"
)

// badRow reports whether some index row of a valid-layout gather_nd case
// points outside params.
func badRow(e evaluated) bool {
	params, indices, b, depth, rows := gatherInfo(e.m)
	vals := indexValues(indices)
	if vals == nil || depth == 0 || rows == 0 || b < 0 || b+depth > params.Rank() {
		return false
	}
	for i, v := range vals {
		if d := params.Shape[b+i%depth]; v < 0 || v >= int64(d) {
			return true
		}
	}
	return false
}

// negativeIndex reports whether some index component is negative.
func negativeIndex(e evaluated) bool {
	_, indices, _, _, _ := gatherInfo(e.m)
	for _, v := range indexValues(indices) {
		if v < 0 && indices.DType.Kind == engine.Int {
			return true
		}
	}
	return false
}

// TestGatherNDFindAny checks that gather_nd cases reach every edge class.
func TestGatherNDFindAny(t *testing.T) {
	dtype := func(e evaluated) engine.DType { return e.m.Inputs["indices"].DType }
	zero := func(e evaluated) bool { return wire(e.m)["bad_indices"] == "zero" }
	requireAll(t, pool()["gather_nd"], []findRow{
		{"index depth 0 (each row selects all of params)", func(e evaluated) bool {
			_, _, _, depth, rows := gatherInfo(e.m)
			return depth == 0 && rows > 0 && e.ok()
		}},
		{"index depth == rank(params) (each row selects one element)", func(e evaluated) bool {
			p, _, b, depth, rows := gatherInfo(e.m)
			return b == 0 && depth == p.Rank() && rows > 0 && e.ok()
		}},
		{"index depth == rank(params) - batch_dims with batch_dims >= 1", func(e evaluated) bool {
			p, _, b, depth, rows := gatherInfo(e.m)
			return b >= 1 && depth == p.Rank()-b && rows > 0 && e.ok()
		}},
		{"batch_dims >= 1", func(e evaluated) bool { _, _, b, _, rows := gatherInfo(e.m); return b >= 1 && rows > 0 && e.ok() }},
		{"batch_dims 2 or more", func(e evaluated) bool { _, _, b, _, _ := gatherInfo(e.m); return b >= 2 && e.ok() }},
		{"batch_dims given explicitly as 0", func(e evaluated) bool { v, ok := wire(e.m)["batch_dims"]; return ok && v == int64(0) }},
		{"rank-1 indices (a single row)", func(e evaluated) bool { _, i, _, _, _ := gatherInfo(e.m); return i.Rank() == 1 && e.ok() }},
		{"three row dimensions", func(e evaluated) bool { _, i, b, _, _ := gatherInfo(e.m); return i.Rank()-b-1 == 3 && e.ok() }},
		{"empty rows (a zero-size row dimension)", func(e evaluated) bool { _, _, _, _, rows := gatherInfo(e.m); return rows == 0 && e.ok() }},
		{"empty params with no rows (empty result, no error)", func(e evaluated) bool {
			p, _, _, _, rows := gatherInfo(e.m)
			return p.Len() == 0 && rows == 0 && e.ok()
		}},
		{"empty params with rows (out_of_range)", func(e evaluated) bool {
			p, _, _, _, rows := gatherInfo(e.m)
			return p.Len() == 0 && rows > 0 && e.kind() == engine.OutOfRange
		}},
		{"empty params with rows in zero mode (out_of_range all the same)", func(e evaluated) bool {
			p, _, _, _, rows := gatherInfo(e.m)
			return p.Len() == 0 && rows > 0 && zero(e) && e.kind() == engine.OutOfRange
		}},
		{"an out-of-range row (out_of_range)", func(e evaluated) bool { return badRow(e) && e.kind() == engine.OutOfRange }},
		{"a negative index (out_of_range: no wrap)", func(e evaluated) bool { return negativeIndex(e) && e.kind() == engine.OutOfRange }},
		{"an out-of-range row in zero mode (zeros, no error)", func(e evaluated) bool { return badRow(e) && zero(e) && e.ok() }},
		{"a negative index in zero mode", func(e evaluated) bool { return negativeIndex(e) && zero(e) && e.ok() }},
		{"bad_indices omitted", func(e evaluated) bool { _, ok := wire(e.m)["bad_indices"]; return !ok }},
		{"bad_indices \"error\"", func(e evaluated) bool { return wire(e.m)["bad_indices"] == "error" }},
		{"int32 indices", func(e evaluated) bool { return dtype(e) == engine.Int32Type && e.ok() }},
		{"int64 indices", func(e evaluated) bool { return dtype(e) == engine.Int64Type && e.ok() }},
		{"big-endian indices", func(e evaluated) bool { return dtype(e).BigEndian && e.ok() }},
		{"unsigned indices", func(e evaluated) bool { return dtype(e).Kind == engine.Uint && e.ok() }},
		{"a huge unsigned index (beyond int64)", func(e evaluated) bool {
			return dtype(e) == engine.Uint64Type && e.kind() == engine.OutOfRange && badRow(e)
		}},
		{"float indices (bad_input)", func(e evaluated) bool { return dtype(e).Kind == engine.Float && e.kind() == engine.BadInput }},
		{"index depth too deep (invalid_spec)", func(e evaluated) bool {
			p, _, b, depth, _ := gatherInfo(e.m)
			return b >= 0 && depth > p.Rank()-b && e.kind() == engine.InvalidSpec
		}},
		{"negative batch_dims (invalid_spec)", func(e evaluated) bool {
			_, _, b, _, _ := gatherInfo(e.m)
			return b < 0 && e.kind() == engine.InvalidSpec
		}},
		{"batch_dims == rank(params) (invalid_spec)", func(e evaluated) bool {
			p, _, b, _, _ := gatherInfo(e.m)
			return b == p.Rank() && e.kind() == engine.InvalidSpec
		}},
		{"batch dimensions that differ (invalid_spec)", func(e evaluated) bool {
			p, i, b, _, _ := gatherInfo(e.m)
			if b <= 0 || b >= p.Rank() || b >= i.Rank() {
				return false
			}
			for k := 0; k < b; k++ {
				if p.Shape[k] != i.Shape[k] {
					return e.kind() == engine.InvalidSpec
				}
			}
			return false
		}},
		{"string params", func(e evaluated) bool {
			k := e.m.Inputs["params"].DType.Kind
			return (k == engine.Bytes || k == engine.Unicode) && e.ok()
		}},
		{"params of rank 6", func(e evaluated) bool { return e.m.Inputs["params"].Rank() == 6 && e.ok() }},
	})
}

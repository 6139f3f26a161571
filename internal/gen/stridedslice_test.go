package gen

import (
	"math/bits"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// masks returns the five masks of a strided_slice case in maskNames
// order, and whether any is a list.
func masks(e evaluated) (m [5]uint64, list bool) {
	for i, name := range maskNames {
		var l bool
		m[i], l, _ = mask(e.m, name)
		list = list || l
	}
	return m, list
}

// anyEntry reports whether some entry i < n satisfies pred, given the
// masks, begin and stride of the entry.
func anyEntry(e evaluated, pred func(i int, m [5]uint64, begin, stride int64) bool) bool {
	m, _ := masks(e)
	begin, st := ints(e.m, "begin"), strides(e.m)
	for i := range begin {
		if i < len(st) && pred(i, m, begin[i], st[i]) {
			return true
		}
	}
	return false
}

func has(m uint64, i int) bool { return i < 64 && m&(1<<uint(i)) != 0 }

// TestStridedSliceFindAny checks that strided_slice cases reach every edge
// class of TF's StridedSlice and OpenVINO's list masks.
func TestStridedSliceFindAny(t *testing.T) {
	n := func(e evaluated) int { return len(ints(e.m, "begin")) }
	requireAll(t, pool()["strided_slice"], []findRow{
		{"an empty spec (n = 0)", func(e evaluated) bool { return n(e) == 0 && e.ok() }},
		{"rank 0 input", func(e evaluated) bool { return input(e.m).Rank() == 0 && e.ok() }},
		{"rank > 8 input (beyond TF's kernel)", func(e evaluated) bool { return input(e.m).Rank() > 8 && e.ok() }},
		{"a long valid spec (9 <= n < 32)", func(e evaluated) bool { return n(e) >= 9 && n(e) < 32 && e.ok() }},
		{"n >= 32 (invalid_spec)", func(e evaluated) bool { return n(e) >= 32 && e.kind() == engine.InvalidSpec }},
		{"n == 31, the longest valid spec", func(e evaluated) bool { return n(e) == 31 }},
		{"strides omitted", func(e evaluated) bool { _, ok := wire(e.m)["strides"]; return !ok && n(e) > 0 && e.ok() }},
		{"a mask omitted", func(e evaluated) bool { _, ok := wire(e.m)["begin_mask"]; return !ok }},
		{"several mask bits on one position", func(e evaluated) bool {
			return e.ok() && anyEntry(e, func(i int, m [5]uint64, _, _ int64) bool {
				c := 0
				for _, b := range m {
					if has(b, i) {
						c++
					}
				}
				return c >= 2
			})
		}},
		{"ellipsis and shrink on one bit (acts as ellipsis)", func(e evaluated) bool {
			return e.ok() && anyEntry(e, func(i int, m [5]uint64, _, _ int64) bool { return has(m[mEllipsis], i) && has(m[mShrink], i) })
		}},
		{"ellipsis and new axis on one bit (acts as ellipsis)", func(e evaluated) bool {
			return e.ok() && anyEntry(e, func(i int, m [5]uint64, _, _ int64) bool { return has(m[mEllipsis], i) && has(m[mNewAxis], i) })
		}},
		{"new axis and shrink on one bit (acts as new axis)", func(e evaluated) bool {
			return e.ok() && anyEntry(e, func(i int, m [5]uint64, _, _ int64) bool {
				return has(m[mNewAxis], i) && has(m[mShrink], i) && !has(m[mEllipsis], i)
			})
		}},
		{"stride 0 on a new axis (accepted)", func(e evaluated) bool {
			return e.ok() && anyEntry(e, func(i int, m [5]uint64, _, s int64) bool { return has(m[mNewAxis], i) && s == 0 })
		}},
		{"mask bits beyond n (integer masks)", func(e evaluated) bool {
			m, list := masks(e)
			for _, b := range m {
				if !list && b>>uint(n(e)) != 0 {
					return e.ok()
				}
			}
			return false
		}},
		{"a negative integer mask (bit 63)", func(e evaluated) bool {
			for _, name := range maskNames {
				if v, ok := wire(e.m)[name].(int64); ok && v < 0 {
					return true
				}
			}
			return false
		}},
		{"an ellipsis bit beyond n next to one within (invalid_spec)", func(e evaluated) bool {
			m, _ := masks(e)
			return m[mEllipsis]>>uint(n(e)) != 0 && m[mEllipsis]&(1<<uint(n(e))-1) != 0 && e.kind() == engine.InvalidSpec
		}},
		{"two ellipsis bits within n (invalid_spec)", func(e evaluated) bool {
			m, _ := masks(e)
			return bits.OnesCount64(m[mEllipsis]&(1<<uint(n(e))-1)) == 2 && e.kind() == engine.InvalidSpec
		}},
		{"an ellipsis covering zero dims", func(e evaluated) bool {
			m, _ := masks(e)
			if m[mEllipsis]&(1<<uint(n(e))-1) == 0 || !e.ok() {
				return false
			}
			consuming := 0
			for i := 0; i < n(e); i++ {
				if !has(m[mEllipsis], i) && !has(m[mNewAxis], i) {
					consuming++
				}
			}
			return consuming == input(e.m).Rank() && consuming > 0
		}},
		{"shrink with a negative index", func(e evaluated) bool {
			return e.ok() && anyEntry(e, func(i int, m [5]uint64, b, _ int64) bool {
				return has(m[mShrink], i) && !has(m[mEllipsis], i) && !has(m[mNewAxis], i) && b < 0
			})
		}},
		{"shrink with stride 2 or more (accepted)", func(e evaluated) bool {
			return e.ok() && anyEntry(e, func(i int, m [5]uint64, _, s int64) bool {
				return has(m[mShrink], i) && !has(m[mEllipsis], i) && !has(m[mNewAxis], i) && s >= 2
			})
		}},
		{"shrink with a negative stride (invalid_spec)", func(e evaluated) bool {
			return e.kind() == engine.InvalidSpec && anyEntry(e, func(i int, m [5]uint64, _, s int64) bool {
				return has(m[mShrink], i) && !has(m[mEllipsis], i) && !has(m[mNewAxis], i) && s < 0
			})
		}},
		{"shrink out of range (out_of_range)", func(e evaluated) bool {
			return e.kind() == engine.OutOfRange
		}},
		{"zero stride on a range (invalid_spec)", func(e evaluated) bool {
			return e.kind() == engine.InvalidSpec && anyEntry(e, func(i int, m [5]uint64, _, s int64) bool {
				return s == 0 && !has(m[mEllipsis], i) && !has(m[mNewAxis], i) && !has(m[mShrink], i)
			})
		}},
		{"a negative stride with begin below -d (no masks: entry i is dim i)", func(e evaluated) bool {
			shape := input(e.m).Shape
			return e.ok() && anyEntry(e, func(i int, m [5]uint64, b, s int64) bool {
				return m == [5]uint64{} && i < len(shape) && s < 0 && b < -int64(shape[i])
			})
		}},
		{"an extreme begin (int64 edge)", func(e evaluated) bool {
			return e.ok() && anyEntry(e, func(_ int, _ [5]uint64, b, _ int64) bool { return b == -1<<63 || b == 1<<63-1 })
		}},
		{"more range entries than dims (invalid_spec)", func(e evaluated) bool {
			m, _ := masks(e)
			if m[mEllipsis] != 0 {
				return false
			}
			consuming := 0
			for i := 0; i < n(e); i++ {
				if !has(m[mNewAxis], i) {
					consuming++
				}
			}
			return consuming > input(e.m).Rank() && e.kind() == engine.InvalidSpec
		}},
		{"OpenVINO list masks of length n", func(e evaluated) bool {
			_, l, k := mask(e.m, "new_axis_mask")
			return l && k == n(e) && n(e) > 0 && e.ok()
		}},
		{"OpenVINO list masks shorter than n", func(e evaluated) bool {
			_, l, k := mask(e.m, "begin_mask")
			return l && k < n(e) && e.ok()
		}},
		{"OpenVINO list masks longer than n", func(e evaluated) bool {
			_, l, k := mask(e.m, "end_mask")
			return l && k > n(e) && e.ok()
		}},
		{"an OpenVINO list entry other than 0 and 1 (invalid_spec)", func(e evaluated) bool {
			for _, name := range maskNames {
				if l, ok := wire(e.m)[name].([]int64); ok {
					for _, v := range l {
						if v != 0 && v != 1 {
							return e.kind() == engine.InvalidSpec
						}
					}
				}
			}
			return false
		}},
		{"an out_of_range error", func(e evaluated) bool { return e.kind() == engine.OutOfRange }},
		{"an invalid_spec error", func(e evaluated) bool { return e.kind() == engine.InvalidSpec }},
	})
}

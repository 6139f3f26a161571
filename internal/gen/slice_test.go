package gen

import (
	"math"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// anyDim reports whether some dimension i of a slice case satisfies pred,
// given its size, begin and size entries.
func anyDim(e evaluated, pred func(d int, begin, size int64) bool) bool {
	shape := input(e.m).Shape
	begin, size := ints(e.m, "begin"), ints(e.m, "size")
	for i, d := range shape {
		if i < len(begin) && i < len(size) && pred(d, begin[i], size[i]) {
			return true
		}
	}
	return false
}

// TestSliceFindAny checks that tf.slice cases reach every edge class.
func TestSliceFindAny(t *testing.T) {
	requireAll(t, pool()["slice"], []findRow{
		{"rank 0 input, empty begin and size (identity)", func(e evaluated) bool { return input(e.m).Rank() == 0 && e.ok() }},
		{"size -1 (to the end)", func(e evaluated) bool {
			return e.ok() && anyDim(e, func(d int, b, s int64) bool { return s == -1 && d > 0 && b > 0 })
		}},
		{"begin == d with size 0", func(e evaluated) bool {
			return e.ok() && anyDim(e, func(d int, b, s int64) bool { return d > 0 && b == int64(d) && s == 0 })
		}},
		{"begin == d with size -1", func(e evaluated) bool {
			return e.ok() && anyDim(e, func(d int, b, s int64) bool { return d > 0 && b == int64(d) && s == -1 })
		}},
		{"a zero dimension with size -1", func(e evaluated) bool {
			return e.ok() && anyDim(e, func(d int, b, s int64) bool { return d == 0 && s == -1 })
		}},
		{"a full slice of a non-trivial dimension", func(e evaluated) bool {
			return e.ok() && anyDim(e, func(d int, b, s int64) bool { return d > 1 && b == 0 && s == int64(d) })
		}},
		{"a slice strictly inside a dimension", func(e evaluated) bool {
			return e.ok() && anyDim(e, func(d int, b, s int64) bool { return b > 0 && s > 0 && b+s < int64(d) })
		}},
		{"begin and size of the wrong length (invalid_spec)", func(e evaluated) bool {
			r := input(e.m).Rank()
			return (len(ints(e.m, "begin")) != r || len(ints(e.m, "size")) != r) && e.kind() == engine.InvalidSpec
		}},
		{"a negative begin (out_of_range)", func(e evaluated) bool {
			return e.kind() == engine.OutOfRange && anyDim(e, func(d int, b, s int64) bool { return b < 0 })
		}},
		{"begin beyond d (out_of_range)", func(e evaluated) bool {
			return e.kind() == engine.OutOfRange && anyDim(e, func(d int, b, s int64) bool { return b > int64(d) })
		}},
		{"size -2 (out_of_range)", func(e evaluated) bool {
			return e.kind() == engine.OutOfRange && anyDim(e, func(d int, b, s int64) bool { return s == -2 })
		}},
		{"size one past the end (out_of_range)", func(e evaluated) bool {
			return e.kind() == engine.OutOfRange && anyDim(e, func(d int, b, s int64) bool { return b >= 0 && s == int64(d)-b+1 })
		}},
		{"begin + size overflowing int64 (out_of_range)", func(e evaluated) bool {
			return e.kind() == engine.OutOfRange && anyDim(e, func(d int, b, s int64) bool { return b > 0 && s == math.MaxInt64 })
		}},
		{"a non-zero begin on a zero dimension (out_of_range)", func(e evaluated) bool {
			return e.kind() == engine.OutOfRange && anyDim(e, func(d int, b, s int64) bool { return d == 0 && b != 0 })
		}},
	})
}

package tfspec

import (
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

func input(t *testing.T, dt engine.DType, shape []int, data []byte) *engine.Tensor {
	t.Helper()
	if data == nil {
		data = make([]byte, engine.NumElements(shape)*dt.Size)
	}
	x, err := engine.FromBytes(dt, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestShrinks checks which dimension each shrink entry indexes in TF's
// expansion: entries before the ellipsis from the first dimension on,
// entries after it the last ones.
func TestShrinks(t *testing.T) {
	for _, tt := range []struct {
		index string
		shape []int
		dims  []int64 // the sizes of the dimensions the shrinks index
		ok    bool
	}{
		{"x[1]", []int{2, 3}, []int64{2}, true},
		{"x[..., 1]", []int{2, 3}, []int64{3}, true},
		{"x[1, ..., None, 0]", []int{2, 3, 4}, []int64{2, 4}, true},
		{"x[None, :, 0]", []int{2, 3}, []int64{3}, true},
		{"x[0, 0, 0]", []int{2, 3}, nil, false}, // more indices than dimensions
	} {
		m := casefile.New(map[string]any{"op": "getitem", "index": tt.index}, map[string]*engine.Tensor{"x": input(t, engine.Int32Type, tt.shape, nil)})
		s, ok := ReadStrided(m)
		if !ok {
			t.Fatalf("%s: not read", tt.index)
		}
		shrinks, ok := s.Shrinks()
		var dims []int64
		for _, d := range shrinks {
			dims = append(dims, d.Dim)
		}
		if ok != tt.ok || len(dims) != len(tt.dims) {
			t.Errorf("%s on %v: dims %v, %v; want %v, %v", tt.index, tt.shape, dims, ok, tt.dims, tt.ok)
			continue
		}
		for i := range dims {
			if dims[i] != tt.dims[i] {
				t.Errorf("%s on %v: dims %v, want %v", tt.index, tt.shape, dims, tt.dims)
			}
		}
	}
}

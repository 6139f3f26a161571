package expr

import (
	"encoding/binary"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestRefusedItemOrder checks that the error of a literal NumPy refuses
// comes where NumPy 1.24's checks reach it, among the other faults of the
// index (each row's kind was checked against NumPy 1.24: x is
// arange(12).reshape(3, 4), i = [0, 1], big = [7], u = np.uint64(2**63)
// 0-d).
func TestRefusedItemOrder(t *testing.T) {
	u := make([]byte, 8)
	binary.LittleEndian.PutUint64(u, 1<<63)
	inputs := map[string]*engine.Tensor{
		"x":   mustTensor(engine.Int64Type, []int{3, 4}, ints(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)),
		"i":   mustTensor(engine.Int64Type, []int{2}, ints(0, 1)),
		"big": mustTensor(engine.Int64Type, []int{1}, ints(7)),
		"u":   mustTensor(engine.DType{Kind: engine.Uint, Size: 8}, []int{}, u),
	}
	cases := []struct {
		rule string
		src  string
		kind engine.ErrorKind
	}{
		{"a float list is refused whatever names follow", "x[[1.0], i]", engine.InvalidSpec},
		{"a float list is refused whatever names precede", "x[i, [0.5]]", engine.InvalidSpec},
		{"a 0-d uint64 beyond int64 before a float list is NumPy's OverflowError first", "x[u, [1.0]]", engine.OutOfRange},
		{"a float list before a 0-d uint64 beyond int64 is refused first", "x[[1.0], u]", engine.InvalidSpec},
		{"a refused item comes before too many indices", "x[[1.0], 0, 0, 0]", engine.InvalidSpec},
		{"a float slice bound comes after too many indices", "x[1.5:2, 0, 0]", engine.InvalidSpec},
		{"a float slice bound is read with the bounds, in item order: first here", "x[1.5:2, 5]", engine.InvalidSpec},
		{"a float slice bound is read with the bounds, in item order: an earlier integer out of bounds wins", "x[5, 1.5:2]", engine.OutOfRange},
		{"a float slice bound is read after NumPy's pass over the items", "x[1.5:2, u]", engine.OutOfRange},
		{"a float slice bound is read before the values of the index arrays", "x[big, 1.5:]", engine.InvalidSpec},
		{"a second ellipsis before a 0-d uint64 beyond int64 wins", "x[..., ..., u]", engine.InvalidSpec},
		{"a 0-d uint64 beyond int64 before a second ellipsis wins", "x[u, ..., ...]", engine.OutOfRange},
		{"a second ellipsis among names is refused", "x[..., i, ...]", engine.InvalidSpec},
		{"a string item among names is refused", "x[i, 'a']", engine.InvalidSpec},
	}
	for _, tc := range cases {
		items, err := Parse(tc.src)
		if err != nil {
			t.Errorf("%s: Parse(%q): %v", tc.rule, tc.src, err)
			continue
		}
		bound, err := Bind(items, inputs)
		if err != nil {
			t.Errorf("%s: Bind(%q): %v", tc.rule, tc.src, err)
			continue
		}
		out, err := engine.GetItem(inputs["x"], bound)
		if k := engine.KindOf(err); k != tc.kind {
			t.Errorf("%s: x%s = %v, %v; want kind %s", tc.rule, tc.src[1:], out, err, tc.kind)
		}
	}
}

func ints(v ...int64) []byte {
	b := make([]byte, 8*len(v))
	for k, x := range v {
		binary.LittleEndian.PutUint64(b[8*k:], uint64(x))
	}
	return b
}

func mustTensor(dt engine.DType, shape []int, data []byte) *engine.Tensor {
	t, err := engine.FromBytes(dt, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

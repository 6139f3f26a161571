package conformtest_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/conformsuite/conform/conformtest"
	"github.com/conformsuite/conform/engine"
)

// Dense is a hypothetical Go tensor library's tensor: float32 values in
// row-major order.
type Dense struct {
	Shape  []int
	Values []float32
}

// The library's errors.
var (
	errRank   = errors.New("tensorlib: begin and size need one entry per dimension")
	errBounds = errors.New("tensorlib: slice outside the tensor")
)

// Slice is the library's tf.slice: size -1 means "to the end".
func (d Dense) Slice(begin, size []int) (Dense, error) {
	if len(begin) != len(d.Shape) || len(size) != len(d.Shape) {
		return Dense{}, errRank
	}
	out := Dense{Shape: make([]int, len(d.Shape))}
	count := 1
	for i, n := range d.Shape {
		s := size[i]
		if s == -1 {
			s = n - begin[i]
		}
		if begin[i] < 0 || begin[i] > n || s < 0 || s > n-begin[i] {
			return Dense{}, errBounds
		}
		out.Shape[i] = s
		count *= s
	}
	pos := make([]int, len(out.Shape)) // the output position, row-major
	for k := 0; k < count; k++ {
		src := 0
		for i := range pos {
			src = src*d.Shape[i] + begin[i] + pos[i]
		}
		out.Values = append(out.Values, d.Values[src])
		for i := len(pos) - 1; i >= 0; i-- {
			if pos[i]++; pos[i] < out.Shape[i] {
				break
			}
			pos[i] = 0
		}
	}
	return out, nil
}

// slicer adapts the library to conformtest.Slicer: conform's tensors in,
// the library's op, conform's tensors out, and the library's errors
// mapped to conform's error kinds.
type slicer struct{}

func (slicer) Slice(x *engine.Tensor, begin, size []int64) (*engine.Tensor, error) {
	if x.DType != engine.Float32Type { // little-endian float32 only
		return nil, fmt.Errorf("tensorlib has no %v tensors: %w", x.DType, errors.ErrUnsupported)
	}
	in := Dense{Shape: x.Shape, Values: make([]float32, x.Len())}
	for i := range in.Values { // inputs are C-contiguous
		in.Values[i] = math.Float32frombits(binary.LittleEndian.Uint32(x.Data[4*i:]))
	}
	out, err := in.Slice(toInts(begin), toInts(size))
	switch {
	case errors.Is(err, errRank):
		return nil, engine.Errorf(engine.InvalidSpec, "%v", err)
	case errors.Is(err, errBounds):
		return nil, engine.Errorf(engine.OutOfRange, "%v", err)
	case err != nil:
		return nil, err
	}
	data := make([]byte, 4*len(out.Values))
	for i, v := range out.Values {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	return engine.FromBytes(engine.Float32Type, out.Shape, data)
}

func toInts(v []int64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// A Go tensor library puts its ops under conform's corpus with a small
// adapter to conform's tensors (slicer, above) and one test:
//
//	func TestConformance(t *testing.T) {
//		conformtest.Run(t, slicer{})
//	}
//
// Each case is then a subtest, grouped by op: `go test -run
// 'TestConformance/^slice$'` runs the tf.slice cases, and a failure names the case, the
// first differing element and where the expected value comes from.
// slicer implements Slicer only, so the other ops are skipped, as are
// the inputs it reports as unsupported (every dtype but float32).
//
// Check runs the same cases without a *testing.T:
func Example() {
	if err := conformtest.Check(slicer{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("tensorlib passes every float32 tf.slice case")
	// Output: tensorlib passes every float32 tf.slice case
}

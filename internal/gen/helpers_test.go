package gen

import (
	"encoding/binary"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/casefile/casefiletest"
	"github.com/conformsuite/conform/internal/expr"
)

// poolPerOp is the number of cases per op in the shared pool that the
// find-any tests search.
const poolPerOp = 3000

// evaluated is a generated case with its outcome on the engine.
type evaluated struct {
	m   *casefile.Case
	out *engine.Tensor
	err error
}

func (e evaluated) kind() engine.ErrorKind { return engine.KindOf(e.err) }
func (e evaluated) ok() bool               { return e.err == nil }

// pool is a corpus of poolPerOp cases per op, evaluated once and shared by
// the tests.
var pool = sync.OnceValue(func() map[string][]evaluated {
	perOp := map[string]int{}
	for _, op := range casefile.OpNames() {
		perOp[op] = poolPerOp
	}
	out := map[string][]evaluated{}
	for _, m := range Corpus(1, perOp) {
		out[m.Op] = append(out[m.Op], evaluate(m))
	}
	return out
})

// evaluate runs a case on the engine, turning a panic into an error
// without a kind.
func evaluate(m *casefile.Case) (e evaluated) {
	e.m = m
	defer func() {
		if r := recover(); r != nil {
			e.err = panicError{r}
		}
	}()
	c := m
	if err := c.Err; err != nil {
		e.err = err
		return e
	}
	e.out, e.err = c.Eval()
	return e
}

type panicError struct{ v any }

func (p panicError) Error() string { return "panic: " + strings.TrimSpace(fmtAny(p.v)) }

func fmtAny(v any) string {
	if err, ok := v.(error); ok {
		return err.Error()
	}
	if s, ok := v.(string); ok {
		return s
	}
	return "non-string panic"
}

// findAny reports whether some value among the first n examples of g
// satisfies pred (rapid's own tests and Hypothesis' find work this way).
func findAny[V any](g *rapid.Generator[V], n int, pred func(V) bool) bool {
	for i := 0; i < n; i++ {
		if pred(g.Example(i)) {
			return true
		}
	}
	return false
}

// input returns the main input tensor of a case: x, or params.
func input(m *casefile.Case) *engine.Tensor {
	if x := m.Inputs["x"]; x != nil {
		return x
	}
	return m.Inputs["params"]
}

// ints returns a list field of the spec.
func ints(m *casefile.Case, key string) []int64 {
	v, _ := wire(m)[key].([]int64)
	return v
}

// mask returns a mask field: its bits (positions 0-63), whether it is a
// list and the list's length.
func mask(m *casefile.Case, key string) (bits uint64, isList bool, n int) {
	switch v := wire(m)[key].(type) {
	case int64:
		return uint64(v), false, 0
	case []int64:
		for i, b := range v {
			if b == 1 && i < 64 {
				bits |= 1 << uint(i)
			}
		}
		return bits, true, len(v)
	}
	return 0, false, 0
}

// strides returns the strides of a strided_slice spec (all ones when
// omitted).
func strides(m *casefile.Case) []int64 {
	if s, ok := wire(m)["strides"].([]int64); ok {
		return s
	}
	s := make([]int64, len(ints(m, "begin")))
	for i := range s {
		s[i] = 1
	}
	return s
}

// index returns the subscript of a getitem case.
func index(m *casefile.Case) string {
	s, _ := wire(m)["index"].(string)
	return s
}

// compact returns s without white space.
func compact(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' {
			return -1
		}
		return r
	}, s)
}

// parsed is a getitem subscript parsed by the engine's parser, with the
// input dimension of each consuming item (-1 for none).
type parsed struct {
	items    []engine.IndexItem
	dims     []int
	ellipsis int // position of the ellipsis, -1 if none
	consumed int
}

// parseIndex parses the subscript of a getitem case; ok is false if the
// parser rejects it.
func parseIndex(m *casefile.Case) (p parsed, ok bool) {
	items, err := expr.Parse(index(m))
	if err != nil {
		return p, false
	}
	shape := input(m).Shape
	p.items, p.ellipsis = items, -1
	p.dims = make([]int, len(items))
	for i, it := range items {
		p.dims[i] = -1
		switch it.Kind {
		case engine.IndexEllipsis:
			if p.ellipsis < 0 {
				p.ellipsis = i
			}
		case engine.IndexInt, engine.IndexSlice:
			p.consumed++
		}
	}
	end := len(items)
	if p.ellipsis >= 0 {
		end = p.ellipsis
	}
	k := 0
	for i := 0; i < end; i++ {
		if it := items[i]; it.Kind == engine.IndexInt || it.Kind == engine.IndexSlice {
			p.dims[i] = k
			k++
		}
	}
	if p.ellipsis >= 0 {
		k = len(shape) - 1
		for i := len(items) - 1; i > p.ellipsis; i-- {
			if it := items[i]; it.Kind == engine.IndexInt || it.Kind == engine.IndexSlice {
				p.dims[i] = k
				k--
			}
		}
	}
	for i, d := range p.dims {
		if d >= len(shape) {
			p.dims[i] = -1
		}
	}
	return p, true
}

// indexValues returns the values of an integer index tensor, or nil for
// another dtype.
func indexValues(x *engine.Tensor) []int64 {
	if !x.DType.IsInteger() {
		return nil
	}
	var o binary.ByteOrder = binary.LittleEndian
	if x.DType.BigEndian {
		o = binary.BigEndian
	}
	b := x.Bytes()
	size := x.DType.Size
	out := make([]int64, len(b)/size)
	for i := range out {
		e := b[i*size : (i+1)*size]
		var u uint64
		switch size {
		case 1:
			u = uint64(e[0])
		case 2:
			u = uint64(o.Uint16(e))
		case 4:
			u = uint64(o.Uint32(e))
		case 8:
			u = o.Uint64(e)
		}
		if x.DType.Kind == engine.Int {
			shift := 64 - 8*uint(size)
			out[i] = int64(u<<shift) >> shift
		} else if u > math.MaxInt64 {
			out[i] = -1
		} else {
			out[i] = int64(u)
		}
	}
	return out
}

// gatherInfo describes the layout of a gather_nd case.
func gatherInfo(m *casefile.Case) (params, indices *engine.Tensor, batchDims, depth, rows int) {
	params, indices = m.Inputs["params"], m.Inputs["indices"]
	if v, ok := wire(m)["batch_dims"].(int64); ok {
		batchDims = int(v)
	}
	depth = indices.Shape[len(indices.Shape)-1]
	rows = engine.NumElements(indices.Shape[:len(indices.Shape)-1])
	return
}

// requireAll fails the test for each row whose predicate no case satisfies.
func requireAll(t *testing.T, cases []evaluated, rows []findRow) {
	t.Helper()
	for _, r := range rows {
		found := false
		for _, e := range cases {
			if r.pred(e) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no case among %d: %s", len(cases), r.rule)
		}
		if testing.Verbose() && os.Getenv("GEN_COUNTS") != "" {
			n := 0
			for _, e := range cases {
				if r.pred(e) {
					n++
				}
			}
			t.Logf("%5d  %s", n, r.rule)
		}
	}
}

// findRow is one edge class the generators must reach.
type findRow struct {
	rule string
	pred func(evaluated) bool
}

// wire is casefiletest.Wire: the fields of a case as written, decoded.
var wire = casefiletest.Wire

package engine_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/expr"
)

// refGetItem is x[items] for a valid advanced index, computed the plain
// way: every boolean array becomes its nonzero() coordinates (a 0-d True
// an index array of shape (1,) that indexes no dimension, False one of
// shape (0,)), every 0-d integer array an integer, all index arrays are
// broadcast together, and each output element is looked up in x from its
// coordinates. It returns the output shape and bytes.
func refGetItem(x *engine.Tensor, items []engine.IndexItem) ([]int, []byte) {
	type ent struct {
		kind  string // int, slice, new, ell, arr, bool0
		index int64
		item  engine.IndexItem
		vals  []int64 // an index array's values (row-major)
		shape []int   // and shape
	}
	var ents []ent
	used := 0
	for _, it := range items {
		switch it.Kind {
		case engine.IndexInt:
			ents = append(ents, ent{kind: "int", index: it.Index})
			used++
		case engine.IndexSlice:
			ents = append(ents, ent{kind: "slice", item: it})
			used++
		case engine.IndexNewAxis:
			ents = append(ents, ent{kind: "new"})
		case engine.IndexEllipsis:
			ents = append(ents, ent{kind: "ell"})
		case engine.IndexArray:
			a := it.Array
			vals := elementInts(a)
			switch {
			case a.DType.Kind == engine.Bool && a.Rank() == 0:
				n := int(vals[0] & 1)
				ents = append(ents, ent{kind: "bool0", shape: []int{n}})
			case a.DType.Kind == engine.Bool:
				// nonzero(): one array per dimension.
				var coords [][]int64
				idx := make([]int, a.Rank())
				for _, v := range vals {
					if v != 0 {
						coords = append(coords, append([]int64{}, toInt64s(idx)...))
					}
					for d := len(idx) - 1; d >= 0; d-- {
						if idx[d]++; idx[d] < a.Shape[d] {
							break
						}
						idx[d] = 0
					}
				}
				for d := 0; d < a.Rank(); d++ {
					col := make([]int64, len(coords))
					for k, c := range coords {
						col[k] = c[d]
					}
					ents = append(ents, ent{kind: "arr", vals: col, shape: []int{len(coords)}})
					used++
				}
			case a.Rank() == 0:
				ents = append(ents, ent{kind: "int", index: vals[0]})
				used++
			default:
				ents = append(ents, ent{kind: "arr", vals: vals, shape: a.Shape})
				used++
			}
		}
	}
	// Expand the ellipsis (or add one at the end).
	var full []ent
	ell := false
	for _, e := range ents {
		if e.kind == "ell" {
			ell = true
			// The ellipsis separates arrays even where it covers no
			// dimension.
			full = append(full, ent{kind: "sep"})
			for k := 0; k < x.Rank()-used; k++ {
				full = append(full, ent{kind: "slice", item: engine.IndexItem{Kind: engine.IndexSlice}})
			}
			continue
		}
		full = append(full, e)
	}
	if !ell {
		for k := 0; k < x.Rank()-used; k++ {
			full = append(full, ent{kind: "slice", item: engine.IndexItem{Kind: engine.IndexSlice}})
		}
	}
	// Broadcast the arrays; place their dimensions.
	var bshape []int
	var advPos []int
	for i, e := range full {
		if e.kind == "arr" || e.kind == "bool0" {
			bshape = broadcastShapes(bshape, e.shape)
		}
		if e.kind == "arr" || e.kind == "bool0" || e.kind == "int" {
			advPos = append(advPos, i)
		}
	}
	adjacent := len(advPos) > 0 && advPos[len(advPos)-1]-advPos[0] == len(advPos)-1
	// The output dimensions: per basic dimension, its x axis (or -1 for
	// a new axis), start and step.
	type bdim struct{ axis, start, step, count int }
	var before, after []bdim
	axis, seenAdv := 0, false
	arrAxes := map[int]int{} // entry -> x axis
	fixed := make([]int, x.Rank())
	for i, e := range full {
		var d *bdim
		switch e.kind {
		case "int":
			v := e.index
			if v < 0 {
				v += int64(x.Shape[axis])
			}
			fixed[axis] = int(v)
			axis++
		case "arr":
			arrAxes[i] = axis
			axis++
		case "slice":
			n := x.Shape[axis]
			start, step, count := sliceRange(n, e.item)
			d = &bdim{axis, start, step, count}
			axis++
		case "new":
			d = &bdim{-1, 0, 0, 1}
		}
		if e.kind == "arr" || e.kind == "bool0" || e.kind == "int" {
			seenAdv = true
		}
		if d != nil {
			if seenAdv && adjacent {
				after = append(after, *d)
			} else if !adjacent && len(advPos) > 0 {
				after = append(after, *d)
			} else {
				before = append(before, *d)
			}
		}
	}
	var shape []int
	for _, d := range before {
		shape = append(shape, d.count)
	}
	shape = append(shape, bshape...)
	for _, d := range after {
		shape = append(shape, d.count)
	}
	size := x.DType.Size
	n := engine.NumElements(shape)
	out := make([]byte, 0, n*size)
	pos := make([]int, len(shape))
	coord := make([]int, x.Rank())
	for k := 0; k < n; k++ {
		copy(coord, fixed)
		for j, d := range before {
			if d.axis >= 0 {
				coord[d.axis] = d.start + pos[j]*d.step
			}
		}
		g := pos[len(before) : len(before)+len(bshape)]
		for i, e := range full {
			if e.kind == "arr" {
				v := e.vals[broadcastIndex(e.shape, g)]
				ax := arrAxes[i]
				if v < 0 {
					v += int64(x.Shape[ax])
				}
				coord[ax] = int(v)
			}
		}
		for j, d := range after {
			if d.axis >= 0 {
				coord[d.axis] = d.start + pos[len(before)+len(bshape)+j]*d.step
			}
		}
		off := x.Offset
		for a, c := range coord {
			off += c * x.Strides[a]
		}
		out = append(out, x.Data[off:off+size]...)
		for d := len(pos) - 1; d >= 0; d-- {
			if pos[d]++; pos[d] < shape[d] {
				break
			}
			pos[d] = 0
		}
	}
	if shape == nil {
		shape = []int{}
	}
	return shape, out
}

func toInt64s(s []int) []int64 {
	out := make([]int64, len(s))
	for i, v := range s {
		out[i] = int64(v)
	}
	return out
}

// broadcastShapes is NumPy's broadcasting of two shapes (which must be
// compatible).
func broadcastShapes(a, b []int) []int {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := 0; i < n; i++ {
		da, db := 1, 1
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == 1:
			out[i] = db
		case db == 1 || da == db:
			out[i] = da
		default:
			panic(fmt.Sprintf("shapes %v and %v do not broadcast", a, b))
		}
	}
	return out
}

// broadcastIndex returns the row-major position in an array of shape of
// the element at grid position g of the broadcast grid.
func broadcastIndex(shape, g []int) int {
	k := 0
	for i, d := range shape {
		p := g[len(g)-len(shape)+i]
		if d == 1 {
			p = 0
		}
		k = k*d + p
	}
	return k
}

// sliceRange is Python's slice.indices for the non-empty... any slice.
func sliceRange(n int, it engine.IndexItem) (start, step, count int) {
	step = 1
	if it.HasStep {
		step = int(it.Step)
	}
	clamp := func(v, lo, hi int) int { return min(max(v, lo), hi) }
	var stop int
	if step > 0 {
		start, stop = 0, n
		if it.HasStart {
			start = int(it.Start)
			if start < 0 {
				start += n
			}
			start = clamp(start, 0, n)
		}
		if it.HasStop {
			stop = int(it.Stop)
			if stop < 0 {
				stop += n
			}
			stop = clamp(stop, 0, n)
		}
		count = max(0, (stop-start+step-1)/step)
	} else {
		start, stop = n-1, -1
		if it.HasStart {
			start = int(it.Start)
			if start < 0 {
				start += n
			}
			start = clamp(start, -1, n-1)
		}
		if it.HasStop {
			stop = int(it.Stop)
			if stop < 0 {
				stop += n
			}
			stop = clamp(stop, -1, n-1)
		}
		count = max(0, (start-stop-step-1)/(-step))
	}
	return start, step, count
}

// elementInts returns the elements of an integer or bool tensor (any
// strides, either byte order) in row-major order, unsigned 64-bit values
// with their bits as int64 (NumPy's cast to intp).
func elementInts(t *engine.Tensor) []int64 {
	b := byElement(t)
	size := t.DType.Size
	out := make([]int64, len(b)/size)
	for i := range out {
		e := b[i*size : (i+1)*size]
		var u uint64
		for k := 0; k < size; k++ {
			sh := k
			if t.DType.BigEndian {
				sh = size - 1 - k
			}
			u |= uint64(e[k]) << (8 * sh)
		}
		if t.DType.Kind == engine.Int {
			u = uint64(int64(u<<(64-8*size)) >> (64 - 8*size))
		}
		out[i] = int64(u)
	}
	return out
}

// indexTensor returns a tensor of dtype dt holding values (row-major) in
// the given shape, laid out in memory in a random order of its axes, with
// a random byte order when dt has one.
func indexTensor(t *rapid.T, label string, dt engine.DType, shape []int, values []int64) *engine.Tensor {
	if dt.Size > 1 {
		dt.BigEndian = rapid.Bool().Draw(t, label+"_big")
	}
	rank := len(shape)
	perm := rapid.Permutation(seq(rank)).Draw(t, label+"_perm")
	// Memory shape: shape permuted; strides mapped back.
	mshape := make([]int, rank)
	for i, p := range perm {
		mshape[i] = shape[p]
	}
	mstrides := engine.ContiguousStrides(mshape, dt.Size)
	strides := make([]int, rank)
	for i, p := range perm {
		strides[p] = mstrides[i]
	}
	n := len(values)
	data := make([]byte, n*dt.Size)
	idx := make([]int, rank)
	for k := 0; k < n; k++ {
		off := 0
		for i, j := range idx {
			off += j * strides[i]
		}
		u := uint64(values[k])
		for b := 0; b < dt.Size; b++ {
			sh := b
			if dt.BigEndian {
				sh = dt.Size - 1 - b
			}
			data[off+b] = byte(u >> (8 * sh))
		}
		for d := rank - 1; d >= 0; d-- {
			if idx[d]++; idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return &engine.Tensor{DType: dt, Shape: shape, Strides: strides, Data: data}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestAdvancedMatchesReference checks GetItem on random valid advanced
// indices (integer arrays of every dtype, byte order and layout, masks,
// 0-d booleans, mixed with integers, slices, new axes and an ellipsis,
// over transposed inputs) against refGetItem.
func TestAdvancedMatchesReference(t *testing.T) {
	intTypes := []engine.DType{engine.Int8Type, engine.Uint8Type, engine.Int16Type, engine.Int32Type, engine.Uint32Type, engine.Int64Type, engine.Uint64Type}
	rapid.Check(t, func(t *rapid.T) {
		rank := rapid.IntRange(0, 4).Draw(t, "rank")
		shape := rapid.SliceOfN(rapid.IntRange(0, 4), rank, rank).Draw(t, "shape")
		x := arange(shape...)
		if rank > 1 && rapid.Bool().Draw(t, "transpose") {
			// A view of the same elements with its axes reversed in memory.
			perm := rapid.Permutation(seq(rank)).Draw(t, "perm")
			v := *x
			v.Shape, v.Strides = make([]int, rank), make([]int, rank)
			for i, p := range perm {
				v.Shape[i], v.Strides[i] = x.Shape[p], x.Strides[p]
			}
			x, shape = &v, v.Shape
		}
		bshape := rapid.SliceOfN(rapid.IntRange(0, 3), 1, 3).Draw(t, "bshape")
		var items []engine.IndexItem
		axis, ellipsis, arrays := 0, false, 0
		nitems := rapid.IntRange(1, rank+2).Draw(t, "nitems")
		for k := 0; k < nitems; k++ {
			left := rank - axis
			kind := rapid.IntRange(0, 7).Draw(t, "kind")
			switch {
			case kind == 0 && left > 0 && shape[axis] > 0:
				d := int64(shape[axis])
				items = append(items, engine.IndexItem{Kind: engine.IndexInt, Index: rapid.Int64Range(-d, d-1).Draw(t, "int")})
				axis++
			case kind == 1 && left > 0:
				it := engine.IndexItem{Kind: engine.IndexSlice}
				if rapid.Bool().Draw(t, "hasStart") {
					it.Start, it.HasStart = rapid.Int64Range(-5, 5).Draw(t, "start"), true
				}
				if rapid.Bool().Draw(t, "hasStop") {
					it.Stop, it.HasStop = rapid.Int64Range(-5, 5).Draw(t, "stop"), true
				}
				if rapid.Bool().Draw(t, "hasStep") {
					it.Step, it.HasStep = rapid.SampledFrom([]int64{-2, -1, 1, 2, 3}).Draw(t, "step"), true
				}
				items = append(items, it)
				axis++
			case kind == 2:
				items = append(items, engine.IndexItem{Kind: engine.IndexNewAxis})
			case kind == 3 && !ellipsis:
				ellipsis = true
			case kind == 4:
				items = append(items, engine.IndexItem{Kind: engine.IndexArray, Array: boolScalar(true)})
			case (kind == 5 || kind == 6) && left > 0 && shape[axis] > 0:
				// An integer array shaped to broadcast against bshape.
				r := rapid.IntRange(0, len(bshape)).Draw(t, "arank")
				s := append([]int{}, bshape[len(bshape)-r:]...)
				for i := range s {
					if rapid.IntRange(0, 4).Draw(t, "one") == 0 {
						s[i] = 1
					}
				}
				dt := rapid.SampledFrom(intTypes).Draw(t, "dtype")
				d := int64(shape[axis])
				lo := -d
				if dt.Kind == engine.Uint {
					lo = 0
				}
				if dt.Size == 1 {
					d = min(d, 127)
				}
				vals := make([]int64, engine.NumElements(s))
				for i := range vals {
					vals[i] = rapid.Int64Range(max(lo, -128), d-1).Draw(t, "v")
				}
				if r > 0 {
					arrays++
				}
				items = append(items, engine.IndexItem{Kind: engine.IndexArray, Array: indexTensor(t, "arr", dt, s, vals)})
				axis++
			case kind == 7 && left > 0:
				r := rapid.IntRange(1, left).Draw(t, "mrank")
				s := shape[axis : axis+r]
				vals := make([]int64, engine.NumElements(s))
				for i := range vals {
					if rapid.Bool().Draw(t, "m") {
						vals[i] = 1
					}
				}
				if arrays > 0 || len(items) > 0 && rapid.Bool().Draw(t, "maskWithArrays") {
					// The mask's nonzero count must broadcast: skip
					// mixing unless it does, by making the mask the
					// only advanced index (arrays == 0).
					if arrays > 0 {
						continue
					}
				}
				arrays++
				items = append(items, engine.IndexItem{Kind: engine.IndexArray, Array: indexTensor(t, "mask", engine.BoolType, append([]int{}, s...), vals)})
				axis += r
				bshape = nil // later arrays must broadcast against the count
			}
			if bshape == nil {
				break
			}
		}
		if ellipsis {
			// At the end, or anywhere when the items use every
			// dimension (it then covers none).
			at := len(items)
			if axis == rank {
				at = rapid.IntRange(0, len(items)).Draw(t, "ellipsisAt")
			}
			items = append(items[:at], append([]engine.IndexItem{{Kind: engine.IndexEllipsis}}, items[at:]...)...)
		}
		got, err := engine.GetItem(x, items)
		if err != nil {
			// Only a broadcast mismatch of a mask's count with 0-d
			// booleans or the 32-array limit can make a drawn index
			// invalid.
			if engine.KindOf(err) == engine.InvalidSpec {
				t.Skip(err)
			}
			t.Fatalf("GetItem(%v, %s): %v", x.Shape, describeItems(items), err)
		}
		wantShape, want := refGetItem(x, items)
		if !slices.Equal(got.Shape, wantShape) {
			t.Fatalf("GetItem(%v, %s): shape %v, want %v", x.Shape, describeItems(items), got.Shape, wantShape)
		}
		if !got.IsContiguous() || got.DType != x.DType {
			t.Fatalf("GetItem(%v, %s): result is not a contiguous %v tensor", x.Shape, describeItems(items), x.DType)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("GetItem(%v, %s): values %v, want %v", x.Shape, describeItems(items), ints(got), bytesInts(want))
		}
	})
}

func bytesInts(b []byte) []int64 {
	out := make([]int64, len(b)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

func describeItems(items []engine.IndexItem) string {
	s := "["
	for i, it := range items {
		if i > 0 {
			s += ", "
		}
		switch it.Kind {
		case engine.IndexInt:
			s += fmt.Sprint(it.Index)
		case engine.IndexSlice:
			s += fmt.Sprintf("slice(%v:%v:%v)", part(it.Start, it.HasStart), part(it.Stop, it.HasStop), part(it.Step, it.HasStep))
		case engine.IndexNewAxis:
			s += "None"
		case engine.IndexEllipsis:
			s += "..."
		case engine.IndexArray:
			s += fmt.Sprintf("array(%v %v %v)", it.Array.DType, it.Array.Shape, elementInts(it.Array))
		}
	}
	return s + "]"
}

func part(v int64, has bool) string {
	if !has {
		return ""
	}
	return fmt.Sprint(v)
}

func boolScalar(b bool) *engine.Tensor {
	d := []byte{0}
	if b {
		d[0] = 1
	}
	return &engine.Tensor{DType: engine.BoolType, Shape: []int{}, Strides: []int{}, Data: d}
}

// parseBind parses src and binds its names to inputs.
func parseBind(t *testing.T, src string, inputs map[string]*engine.Tensor) ([]engine.IndexItem, error) {
	t.Helper()
	items, err := expr.Parse(src)
	if err != nil {
		return nil, err
	}
	return expr.Bind(items, inputs)
}

// u64 returns a uint64 tensor of the given shape and values.
func u64(shape []int, values ...uint64) *engine.Tensor {
	data := make([]byte, 8*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint64(data[8*i:], v)
	}
	t, err := engine.FromBytes(engine.Uint64Type, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

// boolTensor returns a bool tensor of the given shape and values.
func boolTensor(shape []int, values ...bool) *engine.Tensor {
	data := make([]byte, len(values))
	for i, v := range values {
		if v {
			data[i] = 1
		}
	}
	t, err := engine.FromBytes(engine.BoolType, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// TestAdvancedRules checks NumPy 1.24's rules of advanced indexing, each
// verified against NumPy: the result of a valid index is checked against
// refGetItem (want.shape only, values from the reference), an invalid one
// by its error kind.
func TestAdvancedRules(t *testing.T) {
	i64 := func(shape []int, v ...int64) *engine.Tensor { return intTensor(t, shape, v...) }
	zeros32 := map[string]*engine.Tensor{}
	var names31, names32 string
	for k := 0; k < 32; k++ {
		name := fmt.Sprintf("a%d", k)
		zeros32[name] = i64([]int{1}, 0)
		if k < 31 {
			names31 += name + ", "
		}
		names32 += name + ", "
	}
	with := func(m map[string]*engine.Tensor, kv ...any) map[string]*engine.Tensor {
		out := map[string]*engine.Tensor{}
		for k, v := range m {
			out[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1].(*engine.Tensor)
		}
		return out
	}
	cases := []struct {
		rule   string
		shape  []int
		src    string
		inputs map[string]*engine.Tensor
		want   []int // the result shape; nil with kind set
		kind   engine.ErrorKind
	}{
		// Placement of the broadcast dimensions.
		{"adjacent arrays replace their dimensions in place", []int{2, 3, 4}, "x[:, [0, 1], [0, 1]]", nil, []int{2, 2}, ""},
		{"arrays separated by a slice go first", []int{2, 3, 4}, "x[[0, 1], :, [0, 1]]", nil, []int{2, 3}, ""},
		{"an integer counts as an array: separated by a slice, they go first", []int{2, 3, 4}, "x[0, :, [0, 1]]", nil, []int{2, 3}, ""},
		{"an integer adjacent to an array keeps the place", []int{2, 3, 4}, "x[:, 0, [0, 1]]", nil, []int{2, 2}, ""},
		{"an ellipsis covering no dimension still separates", []int{2, 3, 4}, "x[:, [0], ..., [0]]", nil, []int{1, 2}, ""},
		{"a trailing ellipsis does not separate", []int{2, 3, 4}, "x[:, [0], [0], ...]", nil, []int{2, 1}, ""},
		{"a new axis separates", []int{2, 3, 4}, "x[[0], None, [0]]", nil, []int{1, 1, 4}, ""},
		{"a 0-d True separated from an integer goes first", []int{2, 3, 4}, "x[0, :, True]", nil, []int{1, 3, 4}, ""},
		{"broadcast dimensions of a 2-d array in place", []int{3, 4, 5}, "x[1:, i, ::-2]", map[string]*engine.Tensor{"i": i64([]int{1, 3}, 3, 0, -1)}, []int{2, 1, 3, 3}, ""},
		{"the brief's example x[i, 1:, j]: separated", []int{3, 4, 5}, "x[i, 1:, j]", map[string]*engine.Tensor{"i": i64([]int{2, 1}, 0, 2), "j": i64([]int{3}, 1, -1, 3)}, []int{2, 3, 3}, ""},

		// Booleans.
		{"x[True] adds a dimension of 1", []int{2, 3}, "x[True]", nil, []int{1, 2, 3}, ""},
		{"x[False] adds a dimension of 0", []int{2, 3}, "x[False]", nil, []int{0, 2, 3}, ""},
		{"x[True] on a 0-d array", []int{}, "x[True]", nil, []int{1}, ""},
		{"x[False] on a 0-d array", []int{}, "x[False]", nil, []int{0}, ""},
		{"x[None, True] on a 0-d array", []int{}, "x[None, True]", nil, []int{1, 1}, ""},
		{"two Trues broadcast to one dimension", []int{2, 3}, "x[True, True]", nil, []int{1, 2, 3}, ""},
		{"False then an array of 1 broadcasts to 0", []int{2, 3}, "x[False, [0]]", nil, []int{0, 3}, ""},
		{"an array of 2 then False do not broadcast", []int{2, 3}, "x[[0, 1], False]", nil, nil, engine.InvalidSpec},
		{"False then an array of 2 do not broadcast", []int{2, 3}, "x[False, [0, 1]]", nil, nil, engine.InvalidSpec},
		{"False against a 2-d array of last dimension 1", []int{2, 3}, "x[False, [[0], [1]]]", nil, []int{2, 0, 3}, ""},
		{"a mask of x's shape selects elements", []int{2, 3}, "x[m]", map[string]*engine.Tensor{"m": boolTensor([]int{2, 3}, true, false, true, false, false, true)}, []int{3}, ""},
		{"a mask of x's shape with a trailing comma is the same", []int{2, 3}, "x[m,]", map[string]*engine.Tensor{"m": boolTensor([]int{2, 3}, true, false, true, false, false, true)}, []int{3}, ""},
		{"a mask of fewer dimensions keeps the rest", []int{2, 3}, "x[m]", map[string]*engine.Tensor{"m": boolTensor([]int{2}, false, true)}, []int{1, 3}, ""},
		{"a mask after a slice", []int{2, 3}, "x[:, m]", map[string]*engine.Tensor{"m": boolTensor([]int{3}, true, false, true)}, []int{2, 2}, ""},
		{"a mask and an integer array broadcast", []int{2, 3, 4}, "x[m, [0, 2]]", map[string]*engine.Tensor{"m": boolTensor([]int{2}, true, true)}, []int{2, 4}, ""},
		{"a mask's count must broadcast with the arrays", []int{2, 3, 4}, "x[m, [0, 2, 1]]", map[string]*engine.Tensor{"m": boolTensor([]int{2}, true, true)}, nil, engine.InvalidSpec},
		{"a mask that does not match its dimension", []int{2, 3}, "x[m]", map[string]*engine.Tensor{"m": boolTensor([]int{3}, true, true, true)}, nil, engine.InvalidSpec},
		{"a mask of x's rank but another shape", []int{2, 3}, "x[m]", map[string]*engine.Tensor{"m": boolTensor([]int{2, 2}, true, true, true, true)}, nil, engine.InvalidSpec},
		{"a mask with more dimensions than x", []int{2}, "x[m]", map[string]*engine.Tensor{"m": boolTensor([]int{2, 1}, true, true)}, nil, engine.InvalidSpec},
		{"a mask dimension of 0 is not checked", []int{2, 3}, "x[m]", map[string]*engine.Tensor{"m": boolTensor([]int{0})}, []int{0, 3}, ""},
		{"a mask of shape (2, 0) on (2, 3)", []int{2, 3}, "x[m]", map[string]*engine.Tensor{"m": boolTensor([]int{2, 0})}, []int{0}, ""},
		{"a mask of shape (0, 5) on (2, 3): the 5 is checked", []int{2, 3}, "x[m]", map[string]*engine.Tensor{"m": boolTensor([]int{0, 5})}, nil, engine.InvalidSpec},
		{"a list of booleans is a mask", []int{3}, "x[[True, False, True]]", nil, []int{2}, ""},
		{"a list mixing booleans and integers is an integer array", []int{3}, "x[[True, 0]]", nil, []int{2}, ""},
		{"a 1-d mask on a 0-d array is too many indices", []int{}, "x[m]", map[string]*engine.Tensor{"m": boolTensor([]int{1}, true)}, nil, engine.InvalidSpec},

		// Integer arrays and scalars.
		{"negative indices count from the end", []int{2, 3, 4}, "x[[-1], [-3]]", nil, []int{1, 4}, ""},
		{"an index below -d is out of range", []int{2, 3, 4}, "x[[-3]]", nil, nil, engine.OutOfRange},
		{"an index of d is out of range", []int{2, 3, 4}, "x[:, [3]]", nil, nil, engine.OutOfRange},
		{"a 0-d integer array is an integer", []int{2, 3, 4}, "x[i, [0]]", map[string]*engine.Tensor{"i": i64([]int{}, 1)}, []int{1, 4}, ""},
		{"a full index of 0-d integer arrays is a scalar", []int{2, 3}, "x[i, i]", map[string]*engine.Tensor{"i": i64([]int{}, 1)}, []int{}, ""},
		{"a 0-d integer array out of bounds", []int{5}, "x[i]", map[string]*engine.Tensor{"i": i64([]int{}, 7)}, nil, engine.OutOfRange},
		{"a 0-d uint64 beyond int64 is NumPy's OverflowError", []int{2, 3}, "x[i]", map[string]*engine.Tensor{"i": u64([]int{}, math.MaxUint64)}, nil, engine.OutOfRange},
		{"the OverflowError comes before too many indices", []int{}, "x[i]", map[string]*engine.Tensor{"i": u64([]int{}, math.MaxUint64)}, nil, engine.OutOfRange},
		{"a uint64 array beyond int64 wraps like NumPy's cast to intp", []int{5}, "x[i]", map[string]*engine.Tensor{"i": u64([]int{1}, math.MaxUint64)}, []int{1}, ""},
		{"a wrapped uint64 array below -d is out of range", []int{5}, "x[i]", map[string]*engine.Tensor{"i": u64([]int{1}, 1<<63)}, nil, engine.OutOfRange},
		{"an empty list is an empty integer array", []int{2, 3}, "x[[]]", nil, []int{0, 3}, ""},
		{"an empty tuple item is an empty integer array", []int{2, 3}, "x[(), 0]", nil, []int{0}, ""},
		{"nested empty lists", []int{2, 3}, "x[[[], []]]", nil, []int{2, 0, 3}, ""},
		{"a tuple item is a sequence", []int{2, 3, 4}, "x[(0, 1), 2]", nil, []int{2, 4}, ""},
		{"a tuple of lists is a 2-d array", []int{2, 3, 4}, "x[[(0, 1), (1, 0)]]", nil, []int{2, 2, 3, 4}, ""},
		{"x may index itself", []int{4}, "x[x]", nil, []int{4}, ""},
		{"a float array is invalid", []int{2}, "x[f]", map[string]*engine.Tensor{"f": {DType: engine.Float64Type, Shape: []int{1}, Strides: []int{8}, Data: make([]byte, 8)}}, nil, engine.InvalidSpec},
		{"an unbound name is invalid", []int{2}, "x[i]", nil, nil, engine.BadInput},
		{"too many indices with arrays", []int{2, 3, 4}, "x[[0], [0], [0], [0]]", nil, nil, engine.InvalidSpec},

		// Order of the checks.
		{"an integer out of bounds comes before a broadcast mismatch", []int{2, 3, 4}, "x[5, [0, 1], [0, 1, 2]]", nil, nil, engine.OutOfRange},
		{"a broadcast mismatch comes before array bounds", []int{2, 3, 4}, "x[[0, 1], [0, 1, 2], [9]]", nil, nil, engine.InvalidSpec},
		{"a mask mismatch comes before an integer out of bounds", []int{2, 3, 4}, "x[5, m]", map[string]*engine.Tensor{"m": boolTensor([]int{2}, true, true)}, nil, engine.InvalidSpec},
		{"a zero step comes before a broadcast mismatch", []int{2, 3, 4}, "x[[0, 1], ::0, [0, 1, 2]]", nil, nil, engine.InvalidSpec},
		{"a zero step comes before array bounds", []int{2, 3, 4}, "x[[0], ::0, [9]]", nil, nil, engine.InvalidSpec},
		{"an integer is checked even when the result is empty", []int{3, 0}, "x[5, [0]]", nil, nil, engine.OutOfRange},

		// Empty results are not bounds-checked.
		{"an empty broadcast grid checks no index", []int{2, 3, 4}, "x[i, [[5]]]", map[string]*engine.Tensor{"i": i64([]int{0})}, []int{1, 0, 4}, ""},
		{"an empty array checks no index of another one", []int{2, 3, 4}, "x[i, [7]]", map[string]*engine.Tensor{"i": i64([]int{0})}, []int{0, 4}, ""},
		{"empty non-indexed dimensions check no index", []int{3, 0}, "x[[5]]", nil, []int{1, 0}, ""},
		{"an empty slice checks no index", []int{0, 3}, "x[:, [5]]", nil, []int{0, 1}, ""},
		{"a non-empty result from an empty axis is out of range", []int{0, 3}, "x[[0]]", nil, nil, engine.OutOfRange},

		// Dimension limits.
		{"a 32-d index array on a 1-d x", []int{1}, "x[i]", map[string]*engine.Tensor{"i": i64(ones(32), 0)}, ones(32), ""},
		{"a 32-d index array and a slice make 33 dimensions", []int{1, 2}, "x[i, :]", map[string]*engine.Tensor{"i": i64(ones(32), 0)}, nil, engine.InvalidSpec},
		{"a 31-d index array and a slice", []int{1, 2}, "x[i, :]", map[string]*engine.Tensor{"i": i64(ones(31), 0)}, append(ones(31), 2), ""},
		{"32 index arrays with no subspace are refused", ones(32), "x[" + names32 + "]", zeros32, nil, engine.InvalidSpec},
		{"31 index arrays and a True with a subspace of 2", append(ones(31), 2), "x[" + names31 + "True, :]", zeros32, []int{1, 2}, ""},
		{"31 index arrays and a True with a subspace of 1", append(ones(31), 2), "x[" + names31 + "True, 1:]", zeros32, nil, engine.InvalidSpec},
		{"31 index arrays and a True with an empty subspace", append(ones(31), 1), "x[" + names31 + "True, 1:]", zeros32, []int{1, 0}, ""},
		{"33 index arrays are refused", []int{3, 3}, "x[[0]" + repeatString(", True", 32) + "]", nil, nil, engine.InvalidSpec},
		{"a whole mask of 32 dimensions is not an index iterator", ones(32), "x[m]", map[string]*engine.Tensor{"m": boolTensor(ones(32), true)}, []int{1}, ""},
		{"a 32-d mask with a new axis is 32 index arrays", ones(32), "x[m, None]", map[string]*engine.Tensor{"m": boolTensor(ones(32), true)}, nil, engine.InvalidSpec},
	}
	for _, tc := range cases {
		x := arange(tc.shape...)
		inputs := with(tc.inputs, "x", x)
		items, err := parseBind(t, tc.src, inputs)
		var got *engine.Tensor
		if err == nil {
			got, err = engine.GetItem(x, items)
		}
		if tc.kind != "" {
			if k := engine.KindOf(err); k != tc.kind {
				t.Errorf("%s: %s on %v: error %v, want kind %s", tc.rule, tc.src, tc.shape, err, tc.kind)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %s on %v: %v", tc.rule, tc.src, tc.shape, err)
			continue
		}
		if !slices.Equal(got.Shape, tc.want) {
			t.Errorf("%s: %s on %v: shape %v, want %v", tc.rule, tc.src, tc.shape, got.Shape, tc.want)
			continue
		}
		wantShape, want := refGetItem(x, items)
		if !slices.Equal(wantShape, tc.want) || !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: %s on %v: values %v, reference %v %v", tc.rule, tc.src, tc.shape, ints(got), wantShape, bytesInts(want))
		}
	}
}

func repeatString(s string, n int) string {
	out := ""
	for i := 0; i < n; i++ {
		out += s
	}
	return out
}

// TestAdvancedDType checks that results keep x's dtype and byte order (a
// copy), except a full index of 0-d integer arrays, which NumPy returns as
// a scalar of native byte order.
func TestAdvancedDType(t *testing.T) {
	big := engine.DType{Kind: engine.Int, Size: 4, BigEndian: true}
	x, err := engine.FromBytes(big, []int{3}, []byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rule string
		src  string
		want engine.DType
		data []byte
	}{
		{"an integer array keeps the byte order", "x[[2, 0]]", big, []byte{0, 0, 0, 3, 0, 0, 0, 1}},
		{"a mask keeps the byte order", "x[[True, False, True]]", big, []byte{0, 0, 0, 1, 0, 0, 0, 3}},
		{"x[True] keeps the byte order", "x[True]", big, []byte{0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3}},
		{"a 0-d integer array with an ellipsis is an array", "x[i, ...]", big, []byte{0, 0, 0, 2}},
		{"a full index of 0-d integer arrays is a native scalar", "x[i]", engine.Int32Type, []byte{2, 0, 0, 0}},
	} {
		items, err := parseBind(t, tc.src, map[string]*engine.Tensor{"x": x, "i": intTensor(t, []int{}, 1)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := engine.GetItem(x, items)
		if err != nil {
			t.Errorf("%s: %v", tc.rule, err)
			continue
		}
		if got.DType != tc.want || !bytes.Equal(got.Bytes(), tc.data) {
			t.Errorf("%s: %v %v, want %v %v", tc.rule, got.DType, got.Bytes(), tc.want, tc.data)
		}
	}
}

// TestAdvancedVariants checks that the variants that change a result after
// the op apply to advanced indices.
func TestAdvancedVariants(t *testing.T) {
	x := arange(2, 3)
	items, err := parseBind(t, "x[[1], :]", nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := engine.GetItemUnder(x, items, engine.Rules{}.With(engine.DropSize1Dims))
	if err != nil || !slices.Equal(got.Shape, []int{3}) || !slices.Equal(ints(got), []int64{3, 4, 5}) {
		t.Errorf("drop-size-1-dims: %v %v, want [3] [3 4 5]", shapeOf(got), err)
	}
	items, err = parseBind(t, "x[[]]", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.GetItemUnder(x, items, engine.Rules{}.With(engine.EmptyRangeRefused)); engine.KindOf(err) != engine.InvalidSpec {
		t.Errorf("empty-range-refused: error %v, want invalid_spec", err)
	}
}

// TestAdvancedLarge checks the paths only large indices reach: work split
// across goroutines, and a mask walked from the middle (its running count
// per chunk).
func TestAdvancedLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("large inputs")
	}
	rng := rand.New(rand.NewSource(1))
	const rows, cols = 1 << 16, 16
	x := arange(rows, cols)
	xs := ints(x)

	// Rows: x[i] with random (negative too) row indices.
	idx := make([]int64, 1<<17)
	for k := range idx {
		idx[k] = rng.Int63n(2*rows) - rows
	}
	got, err := engine.GetItem(x, []engine.IndexItem{{Kind: engine.IndexArray, Array: intTensor(t, []int{len(idx)}, idx...)}})
	if err != nil {
		t.Fatal(err)
	}
	g := ints(got)
	for k, r := range idx {
		if r < 0 {
			r += rows
		}
		for c := 0; c < cols; c++ {
			if g[k*cols+c] != xs[int(r)*cols+c] {
				t.Fatalf("x[i]: row %d (x row %d) differs", k, r)
			}
		}
	}

	// Columns: x[:, j], one element per row.
	cidx := intTensor(t, []int{5}, 3, -1, 0, 7, 3)
	got, err = engine.GetItem(x, []engine.IndexItem{{Kind: engine.IndexSlice}, {Kind: engine.IndexArray, Array: cidx}})
	if err != nil {
		t.Fatal(err)
	}
	g = ints(got)
	for r := 0; r < rows; r++ {
		for k, c := range []int{3, 15, 0, 7, 3} {
			if g[r*5+k] != xs[r*cols+c] {
				t.Fatalf("x[:, j]: [%d, %d] differs", r, k)
			}
		}
	}

	// A mask over every element, and one over the rows with a slice
	// after it.
	n := rows * cols
	mvals := make([]bool, n)
	var want []int64
	for k := range mvals {
		mvals[k] = rng.Intn(3) == 0
		if mvals[k] {
			want = append(want, xs[k])
		}
	}
	got, err = engine.GetItem(x, []engine.IndexItem{{Kind: engine.IndexArray, Array: boolTensor([]int{rows, cols}, mvals...)}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ints(got), want) {
		t.Fatalf("x[m]: values differ")
	}
	got, err = engine.GetItem(x, []engine.IndexItem{{Kind: engine.IndexArray, Array: boolTensor([]int{rows}, mvals[:rows]...)}, {Kind: engine.IndexSlice, Step: -1, HasStep: true}})
	if err != nil {
		t.Fatal(err)
	}
	g = ints(got)
	k := 0
	for r := 0; r < rows; r++ {
		if !mvals[r] {
			continue
		}
		for c := 0; c < cols; c++ {
			if g[k*cols+c] != xs[r*cols+cols-1-c] {
				t.Fatalf("x[m, ::-1]: row %d differs", r)
			}
		}
		k++
	}
	if k*cols != len(g) {
		t.Fatalf("x[m, ::-1]: %d rows, want %d", len(g)/cols, k)
	}
}

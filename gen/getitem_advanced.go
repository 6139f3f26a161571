package gen

import (
	"strconv"
	"strings"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/casefile"
	"github.com/conformsuite/conform/engine"
)

// advancedPerMille is the rate of getitem cases with advanced indices
// (integer and boolean arrays); the others use basic indexing only.
const advancedPerMille = 400

// selfIndexPerMille is the rate of advanced cases indexing x by itself,
// x[x]: a boolean x (its own mask) or a 1-D integer x holding 0 .. n-1.
const selfIndexPerMille = 25

// Kinds of the items of an advanced index.
type advKind int

const (
	advSlice      advKind = iota // start:stop:step
	advInt                       // a Python integer (a 0-d array among arrays)
	advNewAxis                   // None, np.newaxis ...
	advEllipsis                  // ...
	advIntArray                  // an integer array: a named input or an inline list
	advBoolArray                 // a boolean array of rank >= 1: named or inline
	advBoolScalar                // True, False, or a named 0-d boolean array
	advFloatList                 // an inline list of floats: invalid_spec
)

// advArrayWeights are the rates of the kinds of advanced items: named
// integer array, inline integer list, named boolean array, inline boolean
// list, True/False (or a named 0-d boolean).
var advArrayWeights = []int{400, 250, 130, 60, 160}

// advCountWeights are the rates of 1, 2, 3 and 4 advanced items.
var advCountWeights = []int{550, 300, 120, 30}

// Faults of an advanced index (the plan is valid otherwise).
const (
	advFaultNone      = iota
	advFaultBroadcast // two integer arrays whose shapes do not broadcast
	advFaultBoolShape // a boolean array whose shape is not that of the dims it covers
	advFaultBounds    // an index out of bounds
	advFaultTooMany   // more indices than dims
	advFaultFloat     // a list of floats
)

var advFaultWeights = []int{800, 45, 40, 60, 30, 25}

// advIndexDTypes are the dtypes of named integer index arrays: every
// integer type, either byte order.
var advIndexDTypes = allIndexDTypes(250, 150, 90, 80, 0)

// advNames are the input names of named index arrays, in order of use.
var advNames = []string{"i", "j", "k", "m", "n", "idx", "sel", "mask"}

// advItem is one item of an advanced index before rendering.
type advItem struct {
	kind   advKind
	named  bool
	ndim   int   // dims of x it covers
	dims   []int // their sizes (3 for a dim beyond x)
	shape  []int // the array's shape (index arrays)
	values []int64
	dt     engine.DType
	name   string
	truth  bool // advBoolScalar: True or False
	zero   bool // an integer array on a dim of size 0 (must stay empty)
}

// drawAdvancedGetItem draws a getitem case with advanced indices: x of
// any dtype, rank 0 to 5 and at most 48 elements, and a subscript mixing
// one to four array items (named integer arrays of any integer dtype and
// byte order, inline integer lists, flat or nested, named or inline
// boolean arrays, True, False) with slices, integers, new axes and an
// ellipsis, the arrays next to each other about half the time and
// separated otherwise. Integer arrays broadcast together (shapes of rank
// 0 to 2, dims of 1 broadcasting, sometimes empty); a boolean array has
// the shape of the dims it covers. About one case in eight is invalid on
// purpose: shapes that do not broadcast, a boolean shape mismatch, an
// index out of bounds, too many indices or a float list. It returns the
// case and its planned fault.
func drawAdvancedGetItem(t *rapid.T) (casefile.Memory, int) {
	shape := drawDataShape(t, 0, 5)
	if chance(t, "x[x]", selfIndexPerMille) {
		return drawSelfIndex(t, shape), advFaultNone
	}
	x := Tensor(DType(), rapid.Just(shape)).Draw(t, "x")
	r := len(shape)
	fault := pick(t, "advanced fault", advFaultWeights...)
	if fault == advFaultBroadcast && r < 2 {
		fault = advFaultBounds
	}
	if fault == advFaultBoolShape && r < 1 {
		fault = advFaultTooMany
	}
	capacity := r
	if fault == advFaultTooMany {
		capacity = r + 1
	}

	// The advanced items, with the dims each covers.
	nArr := 1 + pick(t, "advanced count", advCountWeights...)
	if fault == advFaultBroadcast {
		nArr = max(nArr, 2)
	}
	var adv []*advItem
	used, haveBool := 0, false
	for i := 0; i < nArr; i++ {
		it := &advItem{}
		k := pick(t, "advanced kind", advArrayWeights...)
		switch {
		case fault == advFaultBroadcast && i < 2:
			k = offset(t, "inline", 1) // a named or inline integer array
		case fault == advFaultBoolShape && i == 0:
			k = 2 + offset(t, "inline", 1) // a named or inline boolean array
		}
		it.named = k == 0 || k == 2
		switch k {
		case 0, 1:
			it.kind = advIntArray
		case 2, 3:
			it.kind = advBoolArray
			if haveBool {
				it.kind = advIntArray
			}
		default:
			it.kind = advBoolScalar
		}
		switch it.kind {
		case advIntArray:
			it.ndim = 1
		case advBoolArray:
			it.ndim = 1
			if chance(t, "2-d mask", 250) {
				it.ndim = 2
			}
			it.ndim = min(it.ndim, capacity-used)
		}
		if it.ndim == 0 || used+it.ndim > capacity {
			it.kind, it.ndim = advBoolScalar, 0
			it.named = chance(t, "named 0-d bool", 250)
		}
		if it.kind == advBoolScalar {
			it.truth = !chance(t, "False", 300)
		}
		haveBool = haveBool || it.kind == advBoolArray
		used += it.ndim
		adv = append(adv, it)
	}

	// The basic consuming items: as many as the dims left (half the time)
	// or fewer; with too many indices, exactly one more than the dims.
	rest := capacity - used
	nb := rest
	if fault != advFaultTooMany && rest > 0 && bit.Draw(t, "fewer basic") {
		nb = rest - 1 - offset(t, "fewer by", 7)%rest
	}
	items := make([]*advItem, 0, nb+len(adv)+4)
	for i := 0; i < nb; i++ {
		k := advSlice
		if chance(t, "integer item", 250) {
			k = advInt
		}
		items = append(items, &advItem{kind: k, ndim: 1})
	}
	if chance(t, "adjacent", 500) {
		p := mod(offset(t, "block at", 31), len(items)+1)
		items = append(items[:p], append(append([]*advItem{}, adv...), items[p:]...)...)
	} else {
		for _, it := range adv {
			items = insertItem(t, items, it)
		}
	}
	if fault == advFaultFloat {
		items = insertItem(t, items, &advItem{kind: advFloatList})
	}
	if chance(t, "ellipsis", 300) {
		items = insertItem(t, items, &advItem{kind: advEllipsis})
	}
	for i := pick(t, "new axes", 750, 200, 50); i > 0; i-- {
		items = insertItem(t, items, &advItem{kind: advNewAxis})
	}
	assignAdvDims(items, shape)

	// The broadcast shape of the integer arrays.
	var b []int
	for i := pick(t, "broadcast rank", 300, 500, 200); i > 0; i-- {
		b = append(b, []int{1, 2 + offset(t, "broadcast dim", 1), 0}[pick(t, "broadcast dim kind", 120, 800, 80)])
	}
	for _, it := range items {
		switch it.kind {
		case advInt:
			if it.dims[0] == 0 {
				it.kind = advSlice
			}
		case advBoolArray:
			it.shape = append([]int{}, it.dims...)
			if fault == advFaultBoolShape {
				j := offset(t, "mismatch at", 1) % len(it.shape)
				if it.shape[j] > 0 && bit.Draw(t, "shorter") {
					it.shape[j]--
				} else {
					it.shape[j]++
				}
				if it.shape[j] == 0 {
					// NumPy 1.24 lets a boolean dimension of size 0
					// match a dimension of any size: valid.
					fault = advFaultNone
				}
			}
			if !it.named && hasZero(it.shape) {
				it.named = true // an empty list would be an integer index
			}
			it.dt = engine.BoolType
			n := engine.NumElements(it.shape)
			it.values = make([]int64, n)
			all := pick(t, "mask fill", 700, 150, 150)
			nnz := 0
			for c := range it.values {
				switch all {
				case 0:
					it.values[c] = int64(offset(t, "mask", 1))
				case 1:
					it.values[c] = 1
				}
				nnz += int(it.values[c])
			}
			if nnz > 4 && len(b) > 1 {
				b = b[1:]
			}
			if len(b) == 0 {
				b = []int{nnz}
			} else {
				b[len(b)-1] = nnz
			}
		case advIntArray:
			it.zero = it.dims[0] == 0
		}
	}
	for _, it := range items {
		if it.kind == advIntArray && it.zero && !hasZero(b) {
			if len(b) == 0 || (haveBool && len(b) == 1) {
				b = append([]int{0}, b...)
			} else {
				b[0] = 0
			}
		}
	}
	for _, it := range items {
		if it.kind != advIntArray {
			continue
		}
		switch {
		case it.zero:
			it.shape = append([]int{}, b...)
		case it.named:
			rank := offset(t, "array rank", 2) % (len(b) + 1)
			it.shape = broadcastable(t, b[len(b)-rank:])
		default:
			rank := 1 + offset(t, "list rank", 1)%max(len(b), 1)
			if len(b) == 0 {
				it.shape = []int{1}
			} else {
				it.shape = broadcastable(t, b[len(b)-rank:])
			}
		}
		if !it.named && len(it.shape) == 2 && it.shape[0] == 0 {
			it.named = true // [] can only be written with a 0 last
		}
	}
	var arrays []*advItem
	for _, it := range items {
		if it.kind == advIntArray {
			arrays = append(arrays, it)
		}
	}
	if fault == advFaultBroadcast && len(arrays) >= 2 {
		for j, it := range arrays[:2] {
			if len(it.shape) == 0 {
				it.shape = []int{0}
			}
			it.shape[len(it.shape)-1] = 2 + j
			it.zero = false
		}
	}
	// False (an empty array) must broadcast with the other arrays.
	var nonScalars []*advItem
	for _, it := range items {
		if it.kind != advBoolScalar {
			nonScalars = append(nonScalars, it)
		}
	}
	if bshape, ok := broadcastAll(nonScalars); ok && len(bshape) > 0 && bshape[len(bshape)-1] > 1 {
		for _, it := range items {
			if it.kind == advBoolScalar && !it.truth {
				it.truth = true
			}
		}
	}

	// Values and dtypes.
	for _, it := range items {
		switch it.kind {
		case advInt:
			it.values = []int64{drawInRange(t, it.dims[0], true)}
		case advIntArray:
			it.dt = engine.Int64Type
			if it.named {
				it.dt = drawWeightedDType(t, advIndexDTypes)
			}
			it.values = make([]int64, engine.NumElements(it.shape))
			for c := range it.values {
				if d := it.dims[0]; d > 0 {
					it.values[c] = drawInRange(t, d, it.dt.Kind == engine.Int)
				}
			}
		}
	}
	if fault == advFaultBounds {
		var cands []*advItem
		for _, it := range items {
			if (it.kind == advIntArray || it.kind == advInt) && len(it.values) > 0 {
				cands = append(cands, it)
			}
		}
		if bshape, _ := broadcastAll(items); len(cands) == 0 || engine.NumElements(bshape) == 0 {
			// No index to put out of bounds, or arrays that broadcast to
			// nothing (NumPy checks no index then).
			fault = advFaultNone
		} else {
			it := cands[offset(t, "bad item", 7)%len(cands)]
			c := offset(t, "bad element", 15) % len(it.values)
			dt := it.dt
			if it.kind == advInt {
				dt = engine.Int64Type
			}
			it.values[c] = drawOutOfRange(t, it.dims[0], dt, dt.Kind != engine.Uint)
		}
	}

	// Names, in order of appearance; a named integer array sometimes
	// reuses an earlier one that fits (x[i, i]).
	inputs := map[string]*engine.Tensor{"x": x}
	var namedInts []*advItem
	for _, it := range items {
		if !it.named || (it.kind != advIntArray && it.kind != advBoolArray && it.kind != advBoolScalar) {
			continue
		}
		if it.kind == advIntArray && len(namedInts) > 0 && chance(t, "reuse name", 80) {
			e := namedInts[offset(t, "reuse", 3)%len(namedInts)]
			if sameShape(e.shape, it.shape) && !anyOutside(e.dt, e.values, -int64(it.dims[0]), int64(it.dims[0])) {
				it.name, it.dt, it.values = e.name, e.dt, e.values
				continue
			}
		}
		it.name = advNames[len(inputs)-1]
		switch it.kind {
		case advBoolScalar:
			v := int64(0)
			if it.truth {
				v = 1
			}
			inputs[it.name] = newTensor(engine.BoolType, nil, []byte{byte(v)})
		default:
			inputs[it.name] = newTensor(it.dt, it.shape, encodeIndices(it.dt, it.values))
		}
		if it.kind == advIntArray {
			namedInts = append(namedInts, it)
		}
	}

	texts := make([]string, len(items))
	hasSlice := false
	for i, it := range items {
		texts[i] = renderAdvItem(t, it)
		hasSlice = hasSlice || it.kind == advSlice
	}
	return casefile.Memory{
		Spec:   map[string]any{"op": casefile.OpGetItem, "index": renderKey(t, texts, hasSlice)},
		Inputs: inputs,
	}, fault
}

// drawSelfIndex draws x[x]: a boolean x of the given shape (its own mask)
// or a 1-D integer x holding 0 .. n-1 (a permutation index).
func drawSelfIndex(t *rapid.T, shape []int) casefile.Memory {
	var x *engine.Tensor
	if bit.Draw(t, "boolean self") {
		x = Tensor(rapid.Just(engine.BoolType), rapid.Just(shape)).Draw(t, "x")
	} else {
		dt := drawWeightedDType(t, advIndexDTypes)
		n := engine.NumElements(shape)
		values := make([]int64, n)
		for i := range values {
			values[i] = int64(i)
		}
		x = newTensor(dt, []int{n}, encodeIndices(dt, values))
	}
	return casefile.Memory{
		Spec:   map[string]any{"op": casefile.OpGetItem, "index": "x[x]"},
		Inputs: map[string]*engine.Tensor{"x": x},
	}
}

// insertItem inserts it at a drawn position of items.
func insertItem(t *rapid.T, items []*advItem, it *advItem) []*advItem {
	p := mod(offset(t, "insert at", 31), len(items)+1)
	return append(items[:p], append([]*advItem{it}, items[p:]...)...)
}

// assignAdvDims sets the dims each item covers, as NumPy lines them up:
// items before the ellipsis from the front, items after it from the back.
// A dim beyond x (too many indices) has size 3.
func assignAdvDims(items []*advItem, shape []int) {
	r := len(shape)
	size := func(k int) int {
		if k < 0 || k >= r {
			return 3
		}
		return shape[k]
	}
	ell := len(items)
	for i, it := range items {
		if it.kind == advEllipsis {
			ell = i
			break
		}
	}
	for _, it := range items {
		if it.kind == advSlice || it.kind == advInt || it.kind == advFloatList {
			it.ndim = 1
		}
	}
	k := 0
	for _, it := range items[:ell] {
		it.dims = nil
		for j := 0; j < it.ndim; j++ {
			it.dims = append(it.dims, size(k))
			k++
		}
	}
	k = r - 1
	for i := len(items) - 1; i > ell; i-- {
		it := items[i]
		it.dims = make([]int, it.ndim)
		for j := it.ndim - 1; j >= 0; j-- {
			it.dims[j] = size(k)
			k--
		}
	}
}

// broadcastable returns a shape that broadcasts to b: each dim b's or,
// sometimes, 1.
func broadcastable(t *rapid.T, b []int) []int {
	out := append([]int{}, b...)
	for i := range out {
		if chance(t, "broadcast one", 250) {
			out[i] = 1
		}
	}
	return out
}

// broadcastAll returns the broadcast shape of the integer arrays and the
// boolean arrays' and scalars' nonzero() of items, or false if they do not
// broadcast.
func broadcastAll(items []*advItem) ([]int, bool) {
	var out []int
	for _, it := range items {
		var s []int
		switch it.kind {
		case advIntArray:
			s = it.shape
		case advBoolArray:
			nnz := 0
			for _, v := range it.values {
				nnz += int(v)
			}
			s = []int{nnz}
		case advBoolScalar:
			s = []int{0}
			if it.truth {
				s[0] = 1
			}
		default:
			continue
		}
		for len(out) < len(s) {
			out = append([]int{1}, out...)
		}
		off := len(out) - len(s)
		for i, d := range s {
			switch o := out[off+i]; {
			case o == d || d == 1:
			case o == 1:
				out[off+i] = d
			default:
				return nil, false
			}
		}
	}
	return out, true
}

// hasZero reports whether shape has a dimension of size 0.
func hasZero(shape []int) bool {
	for _, d := range shape {
		if d == 0 {
			return true
		}
	}
	return false
}

// sameShape reports whether a and b are the same shape.
func sameShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// floatLists are inline float lists (invalid_spec).
var floatLists = []string{"[0.5]", "[1.0, 2.0]", "[[0.0]]", "[1.5, 0]", "[-1.0]"}

// renderAdvItem writes one item as Python source.
func renderAdvItem(t *rapid.T, it *advItem) string {
	switch it.kind {
	case advSlice:
		return renderSlice(t, it.dims[0])
	case advInt:
		return spellInt(t, it.values[0])
	case advNewAxis:
		return newAxisSpellings[pick(t, "new axis spelling", newAxisWeights...)]
	case advEllipsis:
		return "..."
	case advFloatList:
		return floatLists[offset(t, "float list", len(floatLists)-1)]
	case advBoolScalar:
		if it.named {
			return it.name
		}
		if it.truth {
			return "True"
		}
		return "False"
	}
	if it.named {
		return it.name
	}
	var b strings.Builder
	writeList(&b, it.shape, it.values, it.kind == advBoolArray)
	return b.String()
}

// writeList writes values of the given shape as a nested Python list of
// integers or booleans.
func writeList(b *strings.Builder, shape []int, values []int64, boolean bool) {
	b.WriteByte('[')
	if len(shape) == 1 {
		for i, v := range values[:shape[0]] {
			if i > 0 {
				b.WriteString(", ")
			}
			switch {
			case boolean && v != 0:
				b.WriteString("True")
			case boolean:
				b.WriteString("False")
			default:
				b.WriteString(strconv.FormatInt(v, 10))
			}
		}
	} else {
		n := engine.NumElements(shape[1:])
		for i := 0; i < shape[0]; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			writeList(b, shape[1:], values[i*n:], boolean)
		}
	}
	b.WriteByte(']')
}

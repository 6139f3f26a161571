package gen

import (
	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

func init() {
	register(casefile.OpStridedSlice, StridedSliceCase())
}

// Roles of strided_slice spec entries: what the entry does after TF's
// priority rules (ellipsis > new axis > shrink / range).
const (
	roleRange = iota
	roleShrink
	roleNewAxis
	roleEllipsis
)

// Spec layouts.
const (
	layoutAligned = iota // consuming entries line up with the dims (sometimes one or two too many)
	layoutFree           // 0-8 entries of random roles: several ellipses, too many entries
	layoutLong           // 9-33 entries, mostly new axes; n >= 32 is invalid
)

var layoutWeights = []int{850, 110, 40}

// shrinkPerMille is the rate of shrink entries among consuming entries.
const shrinkPerMille = 250

// freeRoleWeights are the role rates of the free layout.
var freeRoleWeights = []int{55, 20, 15, 10}

// shrinkIndexWeights are the index categories of a shrink position
// (front, back, d, -d-1, far, extreme).
var shrinkIndexWeights = []int{620, 330, 20, 12, 10, 8}

// shrinkStrideWeights: 1, 2-3 (accepted by TF), -1 (invalid), 0 (invalid).
var shrinkStrideWeights = []int{870, 100, 20, 10}

// Mask noise rates, per mille: extra bits that do not change the meaning
// of an entry, bits at positions >= n, a second ellipsis bit.
const (
	overlapPerMille        = 120 // per entry: another mask bit on the same position
	beyondPerMille         = 100 // per mask: a bit at a position >= n
	ellipsisBeyondPerMille = 15  // the ellipsis mask gets a bit >= n (a second ellipsis if there is one)
	secondEllipsisPerMille = 12  // a second ellipsis bit within n
	listMaskPerMille       = 220 // masks as OpenVINO 0/1 lists
	stridesOmittedPerMille = 120 // no "strides" key: all ones
	omitZeroMaskPerMille   = 500 // an all-zero mask is left out
	badListEntryPerMille   = 5   // a list mask entry other than 0 and 1
	randomMasksPerMille    = 300 // free specs: random bits in every mask too
)

// maskNames are the five masks in the order of engine.StridedSliceSpec.
var maskNames = []string{"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}

const (
	mBegin = iota
	mEnd
	mEllipsis
	mNewAxis
	mShrink
)

// StridedSliceSpec returns a generator of raw strided_slice specs for a
// tensor of the given shape: the fields "op", "begin", "end", "strides"
// (sometimes omitted, meaning all ones) and the five masks (as TF integer
// bitmasks, or about one time in five as OpenVINO 0/1 lists; an all-zero
// mask is often omitted).
//
// Most specs line up with the shape: integer-like shrink entries (mostly
// in range, positive or negative; sometimes out of range, with stride 2 or
// 3, rarely -1 or 0), ranges with bounds near 0, d and -d and extremes,
// strides of either sign, new axes and at most one ellipsis (often
// covering no dimension). Some have random roles and 0 to 8 entries (two
// ellipses, too many entries), sometimes with random bits in every mask; a few have 9 to 33 entries, mostly new
// axes (32 or more is invalid). Mask bits overlap on one position
// (ellipsis with shrink or new axis, new axis with shrink, range masks on
// non-range entries), fall beyond the spec length (bit 63 included, so
// the integer is negative) or, rarely, set a second ellipsis. List masks
// are sometimes shorter or longer than the spec, and rarely hold an entry
// other than 0 or 1.
func StridedSliceSpec(shape []int) *rapid.Generator[map[string]any] {
	shape = append([]int(nil), shape...)
	return rapid.Custom(func(t *rapid.T) map[string]any { return drawStridedSlice(t, shape) })
}

// drawStridedSlice draws one strided_slice spec for a tensor of the given
// shape (see StridedSliceSpec): the entries' roles, each entry's bounds,
// stride and mask bits, the mask noise, and the spec's encoding.
func drawStridedSlice(t *rapid.T, shape []int) map[string]any {
	roles, free := drawRoles(t, len(shape))
	n := len(roles)
	dims := roleDims(roles, shape)
	s := &ssDraft{begin: make([]int64, n), end: make([]int64, n), strides: make([]int64, n)}
	omitStrides := chance(t, "omit strides", stridesOmittedPerMille)
	for i, r := range roles {
		switch r {
		case roleRange:
			s.drawRange(t, i, dims[i])
		case roleShrink:
			s.drawShrink(t, i, dims[i])
		case roleNewAxis, roleEllipsis:
			s.drawMarker(t, i, dims[i], r)
		}
	}
	if omitStrides {
		for i := range s.strides {
			s.strides[i] = 1
		}
	}
	// Free specs sometimes get random bits in every mask as well, so any
	// combination of bits on one position can occur.
	if free && chance(t, "random masks", randomMasksPerMille) {
		s.drawRandomBits(t)
	}
	s.drawSecondEllipsis(t)
	s.drawBitsBeyond(t)
	return s.encode(t, omitStrides)
}

// ssDraft is a strided_slice spec being drawn: one begin, end and stride
// per entry, and the five masks as bitmasks in maskNames order.
type ssDraft struct {
	begin, end, strides []int64
	masks               [5]uint64
}

// set sets bit i of mask m.
func (s *ssDraft) set(m, i int) { s.masks[m] |= 1 << uint(i) }

// drawRange draws range entry i on a dim of size d: bounds near 0, d, -d
// and extremes, a stride of either sign, and sometimes a begin or end
// mask bit.
func (s *ssDraft) drawRange(t *rapid.T, i, d int) {
	s.begin[i] = drawBound(t, "begin", d)
	s.end[i] = drawBound(t, "end", d)
	s.strides[i] = drawStride(t, "stride")
	if chance(t, "begin masked", 250) {
		s.set(mBegin, i)
	}
	if chance(t, "end masked", 250) {
		s.set(mEnd, i)
	}
}

// drawShrink draws shrink entry i on a dim of size d: its shrink bit, an
// index (mostly in range), usually end = index + 1, a stride of 1 (rarely
// 2 or 3, -1 or 0), and sometimes a begin or end bit, which shrink
// overrides.
func (s *ssDraft) drawShrink(t *rapid.T, i, d int) {
	s.set(mShrink, i)
	s.begin[i] = drawIndex(t, "shrink at", d, shrinkIndexWeights)
	s.end[i] = s.begin[i] + 1
	if chance(t, "shrink end", 300) {
		s.end[i] = drawBound(t, "shrink end", d)
	}
	switch pick(t, "shrink stride", shrinkStrideWeights...) {
	case 0:
		s.strides[i] = 1
	case 1:
		s.strides[i] = 2 + int64(offset(t, "shrink stride", 1))
	case 2:
		s.strides[i] = -1
	}
	if chance(t, "overlap", overlapPerMille) {
		s.set([]int{mBegin, mEnd}[offset(t, "overlap bit", 1)], i)
	}
}

// drawMarker draws new axis or ellipsis entry i (role r, next to a dim of
// size d): its bit, sometimes bounds and a stride it ignores, and
// sometimes another bit it overrides.
func (s *ssDraft) drawMarker(t *rapid.T, i, d, r int) {
	if r == roleNewAxis {
		s.set(mNewAxis, i)
	} else {
		s.set(mEllipsis, i)
	}
	if chance(t, "junk bounds", 400) {
		s.begin[i] = drawBound(t, "junk begin", d)
		s.end[i] = drawBound(t, "junk end", d)
	}
	s.strides[i] = []int64{1, 0, 1, -1}[offset(t, "junk stride", 3)]
	if chance(t, "overlap", overlapPerMille) {
		// new axis + shrink acts as new axis; ellipsis + anything as ellipsis.
		bits := []int{mBegin, mEnd, mShrink, mNewAxis}
		if r == roleNewAxis {
			bits = bits[:3]
		}
		s.set(bits[offset(t, "overlap bit", len(bits)-1)], i)
	}
}

// drawRandomBits sets random bits within the spec in every mask.
func (s *ssDraft) drawRandomBits(t *rapid.T) {
	for m := range s.masks {
		for i := range s.begin {
			if chance(t, "random bit", 200) {
				s.set(m, i)
			}
		}
	}
}

// drawSecondEllipsis rarely sets two ellipsis bits within the spec.
func (s *ssDraft) drawSecondEllipsis(t *rapid.T) {
	n := len(s.begin)
	if n >= 2 && chance(t, "second ellipsis", secondEllipsisPerMille) {
		a := offset(t, "ellipsis bit", 31) % n
		b := (a + 1 + offset(t, "ellipsis bit", 31)%(n-1)) % n
		s.masks[mEllipsis] |= 1<<uint(a) | 1<<uint(b)
	}
}

// drawBitsBeyond sometimes sets a bit at a position >= n in each mask
// (bit 63 included, so the integer is negative).
func (s *ssDraft) drawBitsBeyond(t *rapid.T) {
	n := len(s.begin)
	for m := range s.masks {
		rate := beyondPerMille
		if m == mEllipsis {
			rate = ellipsisBeyondPerMille
		}
		if n < 64 && chance(t, "bit beyond n", rate) {
			p := n + offset(t, "beyond by", 63-n)
			if chance(t, "bit 63", 150) {
				p = 63
			}
			s.masks[m] |= 1 << uint(p)
		}
	}
}

// encode returns the spec: begin, end, strides unless omitted, and the
// masks as TF integer bitmasks or OpenVINO 0/1 lists (an all-zero mask
// often left out).
func (s *ssDraft) encode(t *rapid.T, omitStrides bool) map[string]any {
	spec := map[string]any{"op": casefile.OpStridedSlice, "begin": s.begin, "end": s.end}
	if !omitStrides {
		spec["strides"] = s.strides
	}
	list, listLen := drawListMasks(t, len(s.begin))
	for m, bits := range s.masks {
		if bits == 0 && chance(t, "omit zero mask", omitZeroMaskPerMille) {
			continue
		}
		if !list {
			spec[maskNames[m]] = int64(bits)
			continue
		}
		spec[maskNames[m]] = drawListMask(t, bits, listLen)
	}
	return spec
}

// drawListMasks draws whether the masks of a spec of n entries are
// written as lists and, if so, their length: n, or sometimes shorter or
// longer.
func drawListMasks(t *rapid.T, n int) (list bool, listLen int) {
	if !chance(t, "list masks", listMaskPerMille) {
		return false, n
	}
	switch pick(t, "list length", 700, 150, 150) {
	case 1:
		return true, max(0, n-1-offset(t, "shorter by", 1))
	case 2:
		return true, n + 1 + offset(t, "longer by", 2)
	}
	return true, n
}

// drawListMask writes a bitmask as a 0/1 list of the given length, rarely
// with one entry other than 0 and 1.
func drawListMask(t *rapid.T, bits uint64, listLen int) []int64 {
	l := make([]int64, listLen)
	for i := range l {
		if i < 64 && bits&(1<<uint(i)) != 0 {
			l[i] = 1
		}
	}
	if listLen > 0 && chance(t, "bad list entry", badListEntryPerMille) {
		l[offset(t, "bad entry at", 31)%listLen] = []int64{2, -1}[offset(t, "bad entry", 1)]
	}
	return l
}

// drawRoles draws the entries' roles by layout, and reports whether the
// layout is the free one.
func drawRoles(t *rapid.T, rank int) (roles []int, free bool) {
	layout := pick(t, "layout", layoutWeights...)
	if layout == layoutFree {
		n := offset(t, "entries", 8)
		roles := make([]int, n)
		for i := range roles {
			roles[i] = pick(t, "role", freeRoleWeights...)
		}
		return roles, true
	}
	// The aligned skeleton: consuming entries, an optional ellipsis, new
	// axes; the long layout pads it with new axes to 9-33 entries.
	consumed := drawConsumed(t, rank)
	roles = make([]int, 0, 34)
	for i := 0; i < consumed; i++ {
		r := roleRange
		if chance(t, "shrink", shrinkPerMille) {
			r = roleShrink
		}
		roles = append(roles, r)
	}
	if chance(t, "ellipsis", 400) {
		roles = insertRole(t, roles, roleEllipsis)
	}
	newAxes := drawNewAxes(t, false)
	if layout == layoutLong {
		newAxes = max(0, 9+offset(t, "long entries", 24)-len(roles))
	}
	for i := 0; i < newAxes; i++ {
		roles = insertRole(t, roles, roleNewAxis)
	}
	return roles, false
}

// insertRole inserts r at a drawn position.
func insertRole(t *rapid.T, roles []int, r int) []int {
	p := mod(offset(t, "insert at", 31), len(roles)+1)
	roles = append(roles, 0)
	copy(roles[p+1:], roles[p:])
	roles[p] = r
	return roles
}

// roleDims returns, per entry, the size of the input dimension the entry
// applies to, as TF's sparse-to-dense expansion lines entries up: entries
// before the first ellipsis from the front, entries after it from the
// back (an implicit ellipsis follows the last entry). Entries without a
// dimension get size 3.
func roleDims(roles []int, shape []int) []int {
	items := make([]item, len(roles))
	for i, r := range roles {
		switch r {
		case roleRange:
			items[i].kind = engine.IndexSlice
		case roleShrink:
			items[i].kind = engine.IndexInt
		case roleNewAxis:
			items[i].kind = engine.IndexNewAxis
		case roleEllipsis:
			items[i].kind = engine.IndexEllipsis
		}
	}
	assignDims(items, shape)
	dims := make([]int, len(roles))
	for i, it := range items {
		dims[i] = it.dim
	}
	return dims
}

// StridedSliceCase returns a generator of strided_slice cases: a tensor of
// any dtype with a shape of rank 0 to 12 (mostly up to 8; TF's kernel
// stops at 8, the semantics do not) and a StridedSliceSpec for it.
func StridedSliceCase() *rapid.Generator[*casefile.Case] {
	return rapid.Custom(func(t *rapid.T) *casefile.Case {
		shape := drawShape(t, 0, 12, MaxElements)
		x := tensorOf(t, drawDType, shape)
		return casefile.New(drawStridedSlice(t, shape), map[string]*engine.Tensor{"x": x})
	})
}

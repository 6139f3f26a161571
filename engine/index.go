package engine

// IndexItemKind says what one item of a NumPy basic index is.
type IndexItemKind int

// The kinds of basic index items.
const (
	IndexInt      IndexItemKind = iota // an integer k: selects one position and drops the axis
	IndexSlice                         // start:stop:step, each part optional
	IndexNewAxis                       // None / np.newaxis: inserts a size-1 axis
	IndexEllipsis                      // ...: as many full slices as needed
)

// IndexItem is one item of a NumPy basic index such as x[1, 2:4, None, ...].
// Slice bounds beyond the int64 range are clamped by the parser the way
// CPython's PySlice_Unpack clamps them (start/stop to the int64 range,
// step to [-MaxInt64, MaxInt64]).
type IndexItem struct {
	Kind IndexItemKind
	// Index is the integer of an IndexInt item.
	Index int64
	// Start, Stop and Step are the parts of an IndexSlice item; the Has
	// flags are false where the part was omitted or written as None.
	Start, Stop, Step          int64
	HasStart, HasStop, HasStep bool
}

package engine

// IndexItemKind says what one item of a NumPy index is.
type IndexItemKind int

// The kinds of index items.
const (
	IndexInt      IndexItemKind = iota // an integer k: selects one position and drops the axis
	IndexSlice                         // start:stop:step, each part optional
	IndexNewAxis                       // None / np.newaxis: inserts a size-1 axis
	IndexEllipsis                      // ...: as many full slices as needed
	IndexArray                         // an integer or boolean array (advanced index)
)

// IndexItem is one item of a NumPy index such as x[1, 2:4, None, ..., i]:
// the items of basic indexing, and integer or boolean arrays (advanced
// indexing, IndexArray).
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
	// Array is the array of an IndexArray item: any integer dtype or
	// bool, of any shape and strides. The parser sets it for arrays
	// written inline (lists, True, False); for an array written as a
	// name it is nil until the caller binds the name to its input.
	Array *Tensor
	// Name is the input name of an IndexArray item written as a name
	// ("i" in x[i]); it is "" for an array written inline.
	Name string
}

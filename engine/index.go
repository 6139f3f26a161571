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
	IndexInvalid                       // a literal NumPy refuses as an item: Err says why
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
	// Err is the error NumPy 1.24 raises for an item it refuses, which
	// the parser keeps as an item so that the rest of the subscript (its
	// names above all) is still read:
	//   - for an IndexInvalid item (a float, a complex number, a string,
	//     bytes, an integer beyond int64, a list NumPy makes no integer or
	//     boolean array of), the error of NumPy's conversion of the item,
	//     raised when NumPy's pass over the items reaches it (before it
	//     counts the indices);
	//   - for an IndexSlice item, a bound that is not an integer or None
	//     (NumPy's TypeError "slice indices must be integers or None"),
	//     raised where NumPy reads the slice: with the integer bounds
	//     checks and zero steps, in item order, after the indices are
	//     counted.
	//
	// It is nil for every other item.
	Err error
}

// Refused returns the error of the first item of items that NumPy
// refuses whatever the input (an IndexInvalid item or a slice with an
// Err), or nil. It is the answer of an implementation that checks every
// item before it looks at the input, as TF's Python x[...] does; NumPy's
// own order is GetItem's.
func Refused(items []IndexItem) error {
	for _, it := range items {
		if it.Err != nil {
			return it.Err
		}
	}
	return nil
}

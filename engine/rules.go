package engine

import "strings"

// Variant is a named alternative to one rule of the reference semantics:
// a way real implementations depart from NumPy and TF. The engine can
// evaluate a case under any set of variants (Rules), each applied by the
// engine function that owns the rule it replaces, so that a classifier can
// say which variant an answer follows: the answer is attributed to a
// variant only when the variant's own rule decides it (the engine, run
// with that variant, gives the same output exactly, or raises the error
// by a rule of the variant itself: Rule.Variant). Which ops a variant applies to is declared by each op's
// definition (casefile.OpDef.Variants), not here.
type Variant uint

// The variants. Each is described in Variants.
const (
	// InputByteOrder: a getitem result that NumPy returns as a scalar
	// (x[1, 2]), or a 0-d take result, keeps the input's dtype (byte
	// order and string width) instead of the scalar's.
	InputByteOrder Variant = iota + 1
	// DropSize1Dims: size-1 dimensions of a slicing result are dropped
	// (a squeeze after the op).
	DropSize1Dims
	// EmptyRangeRefused: a slice whose result has a dimension of size 0
	// is refused (invalid_spec) instead of returning an empty tensor.
	EmptyRangeRefused
	// EllipsisCoversOneDim: an ellipsis always stands for at least one
	// dimension, even where the other entries already cover them all.
	EllipsisCoversOneDim
	// ShrinkIndexClamped: a strided_slice shrink index (an integer index)
	// out of bounds is clamped into the dimension instead of refused.
	ShrinkIndexClamped
	// ExtraEntriesIgnored: spec entries beyond the input's dimensions
	// (strided_slice entries, tf.slice begin/size) are ignored instead of
	// refused.
	ExtraEntriesIgnored
	// ShortSliceSpecPadded: a tf.slice begin/size shorter than the rank
	// is padded with begin 0, size -1 instead of refused.
	ShortSliceSpecPadded
	// Int32Arithmetic: spec values are truncated to 32-bit integers
	// before they are used.
	Int32Arithmetic
	// NegativeGatherIndicesWrap: gather_nd's and gather's negative
	// indices count from the end of their axis (as in ONNX) instead of
	// being out of range.
	NegativeGatherIndicesWrap
	// GatherFlatBounds: gather_nd checks an index row only by its
	// flattened offset into params (an index beyond one axis that lands
	// inside params reads there) instead of per axis.
	GatherFlatBounds
	// MaskBitsPastSpecApplied: strided_slice mask bits at positions
	// beyond the spec's entries take effect (as entries of begin 0, end
	// 0, stride 1) instead of being ignored.
	MaskBitsPastSpecApplied
	// NegativeStepRefused: a getitem slice with a negative step is
	// refused (invalid_spec) instead of walking the dimension backwards
	// (PyTorch).
	NegativeStepRefused
	// Int64IndicesOnly: index arrays of an integer dtype other than the
	// ones PyTorch takes are refused (out_of_range, as PyTorch's
	// IndexError/RuntimeError): int64 everywhere, also uint8 in getitem,
	// also int32 in take along an axis (index_select).
	Int64IndicesOnly
	// NegativeIndicesRefused: a negative index is out of range instead
	// of counting from the end (PyTorch's index_select, take_along_dim,
	// gather).
	NegativeIndicesRefused
	// BoolAsInteger: a Python True/False in a subscript is the integer
	// 1/0 instead of a 0-d boolean index (Dask).
	BoolAsInteger
	// ZeroDIndexArrayRefused: a 0-d index array (an array input, not a
	// Python bool) is refused (out_of_range, Dask's AssertionError or
	// IndexError) instead of taken as an integer or a 0-d mask.
	ZeroDIndexArrayRefused
	// OneIndexArrayOnly: a subscript with more than one index array of
	// rank >= 1 is refused (out_of_range, Dask's NotImplementedError).
	OneIndexArrayOnly
	// NDIndexArrayRefused: a non-empty integer index array of two or more
	// dimensions is refused (invalid_spec, Dask's TypeError).
	NDIndexArrayRefused
	// GatherIndicesClamped: a gather index outside its axis is clamped
	// into it (XLA's Gather, whose operation semantics clamp the start
	// indices so that a slice stays in bounds) instead of out of range.
	GatherIndicesClamped
	// IntegersBesideArraysBasic: integers among index arrays are basic
	// indices, so they do not separate the arrays nor count as arrays
	// when NumPy decides where the broadcast dimensions go (PyTorch,
	// Dask).
	IntegersBesideArraysBasic
)

// VariantInfo describes a variant.
type VariantInfo struct {
	Variant Variant
	// Name is the variant's name in signatures, e.g.
	// "drop-size-1-dims".
	Name string
	// Explanation says in one line what the variant does differently.
	Explanation string
}

// Variants lists every variant, most specific first: a classifier tries
// them in this order and attributes an answer to the first one whose own
// rule decides it. Where two variants' own rules refuse the same case
// with the same kind (an empty result with a negative step: PyTorch
// refuses the step, an implementation that refuses empty results the
// result), one case cannot tell them apart: the variants of PyTorch,
// Dask and XLA come after the older ones, so that they take no name from
// them, and among themselves in the order the libraries check (PyTorch
// an index's dtype before its values).
var Variants = []VariantInfo{
	{InputByteOrder, "input-byte-order",
		"a full integer index (x[1, 2]) gives a 0-d array of the input's dtype, where NumPy gives a scalar: native byte order, strings as wide as their value"},
	{Int32Arithmetic, "int32-arithmetic",
		"begin, end, size and strides are truncated to 32-bit integers"},
	{ShortSliceSpecPadded, "short-slice-spec-padded",
		"a tf.slice begin/size shorter than the rank is padded with begin 0, size -1 instead of refused"},
	{ExtraEntriesIgnored, "extra-entries-ignored",
		"spec entries beyond the input's dimensions are ignored instead of refused"},
	{MaskBitsPastSpecApplied, "mask-bits-past-spec-applied",
		"mask bits beyond the spec's entries take effect instead of being ignored: a new_axis bit pushes the last dimension off (TFLite)"},
	{EllipsisCoversOneDim, "ellipsis-covers-one-dim",
		"an ellipsis stands for at least one dimension, even where the other entries cover them all; the entry pushed past the last dimension falls off"},
	{ShrinkIndexClamped, "shrink-index-clamped",
		"an out-of-bounds integer (shrink) index is clamped into its dimension instead of refused"},
	{NegativeGatherIndicesWrap, "negative-gather-indices-wrap",
		"negative gather indices count from the end of their axis instead of being out of range"},
	{GatherFlatBounds, "gather-flat-bounds",
		"an index row is checked only by its flattened offset into params, not per axis"},
	{EmptyRangeRefused, "empty-range-refused",
		"a result with a dimension of size 0 is refused instead of returned empty"},
	{GatherIndicesClamped, "gather-indices-clamped",
		"a gather index outside its axis is clamped into it instead of out of range (XLA's Gather, operation semantics: start indices are clamped; JAX's lax.gather mode='clip')"},
	{BoolAsInteger, "bool-as-integer",
		"a Python True/False in a subscript is the integer 1/0, not a 0-d boolean index (Dask)"},
	{OneIndexArrayOnly, "one-index-array-only",
		"a subscript with more than one index array is refused (out_of_range) (Dask)"},
	{ZeroDIndexArrayRefused, "0d-index-array-refused",
		"a 0-d index array is refused (out_of_range) instead of taken as an integer or a 0-d mask (Dask)"},
	{Int64IndicesOnly, "int64-indices-only",
		"index arrays of an integer dtype PyTorch does not take are refused (out_of_range): int64 only, also uint8 in getitem, also int32 in take along an axis (PyTorch)"},
	{NegativeIndicesRefused, "negative-indices-refused",
		"a negative index is out of range instead of counting from the end (PyTorch's index_select, take_along_dim, gather)"},
	{IntegersBesideArraysBasic, "integers-beside-arrays-basic",
		"integers among index arrays are basic indices: they neither separate the arrays nor join them, so arrays they separate keep their place (PyTorch, Dask)"},
	{NegativeStepRefused, "negative-step-refused",
		"a slice with a negative step is refused (invalid_spec) instead of walking backwards (PyTorch)"},
	{NDIndexArrayRefused, "nd-index-array-refused",
		"a non-empty integer index array of 2 or more dimensions is refused (invalid_spec) (Dask)"},
	{DropSize1Dims, "drop-size-1-dims",
		"size-1 dimensions of the result are dropped"},
}

// Info returns the description of v.
func (v Variant) Info() VariantInfo {
	for _, info := range Variants {
		if info.Variant == v {
			return info
		}
	}
	return VariantInfo{Variant: v, Name: "unknown"}
}

// String returns the variant's name.
func (v Variant) String() string { return v.Info().Name }

// VariantByName returns the variant called name.
func VariantByName(name string) (Variant, bool) {
	for _, info := range Variants {
		if info.Name == name {
			return info.Variant, true
		}
	}
	return 0, false
}

// Rules is how the engine evaluates an op: the variants of the reference
// semantics it follows, and the largest result it produces. The zero
// Rules is the reference semantics with the default output limit. Rules
// is a value: runs with different Rules may go on at the same time (each
// with its own Trace, if any).
type Rules struct {
	variants uint64 // bit v for each Variant v
	// OutputLimit is the largest result, in bytes, that an op produces;
	// a larger result is refused with invalid_spec before anything is
	// allocated. 0 or less means DefaultOutputLimit.
	OutputLimit int64
	// Trace, if not nil, records the rules the evaluation exercises (see
	// Trace). Evaluations that run at the same time need a Trace each.
	Trace *Trace
}

// With returns r with v added.
func (r Rules) With(v Variant) Rules {
	r.variants |= 1 << v
	return r
}

// Has reports whether r includes v.
func (r Rules) Has(v Variant) bool { return r.variants&(1<<v) != 0 }

// outputLimit returns the output limit of r in bytes.
func (r Rules) outputLimit() int64 {
	if r.OutputLimit <= 0 {
		return DefaultOutputLimit
	}
	return r.OutputLimit
}

// String lists the variants of r by name, joined by "+".
func (r Rules) String() string {
	var names []string
	for _, info := range Variants {
		if r.Has(info.Variant) {
			names = append(names, info.Name)
		}
	}
	return strings.Join(names, "+")
}

// finish applies the variants that change an op's result after the op
// (DropSize1Dims, EmptyRangeRefused) to out.
func (r Rules) finish(out *Tensor) (*Tensor, error) {
	if r.Has(EmptyRangeRefused) {
		for i, d := range out.Shape {
			if d == 0 {
				return nil, RuleEmptyRangeRefused.Errorf("dimension %d of the result is empty (variant %s)", i, EmptyRangeRefused)
			}
		}
	}
	if r.Has(DropSize1Dims) {
		var shape, strides []int
		for i, d := range out.Shape {
			if d != 1 {
				shape = append(shape, d)
				strides = append(strides, out.Strides[i])
			}
		}
		if len(shape) != len(out.Shape) {
			squeezed := *out
			squeezed.Shape, squeezed.Strides = append([]int{}, shape...), append([]int{}, strides...)
			return &squeezed, nil
		}
	}
	return out, nil
}

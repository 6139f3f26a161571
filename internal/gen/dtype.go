package gen

import (
	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
)

// dtypeWeights lists every kind and size of engine dtype with its relative
// rate; S and U get a drawn width.
var dtypeWeights = []weightedDType{
	{engine.Int64Type, 9},
	{engine.Float32Type, 9},
	{engine.BoolType, 6},
	{engine.Int8Type, 5},
	{engine.Int16Type, 5},
	{engine.Int32Type, 8},
	{engine.Uint8Type, 5},
	{engine.Uint16Type, 4},
	{engine.Uint32Type, 4},
	{engine.Uint64Type, 4},
	{engine.Float16Type, 6},
	{engine.Float64Type, 8},
	{engine.Complex64, 5},
	{engine.Complex128, 5},
	{engine.DType{Kind: engine.Bytes}, 8},
	{engine.DType{Kind: engine.Unicode}, 8},
}

// bigEndianPerMille is the rate of big-endian dtypes among the dtypes that
// have a byte order.
const bigEndianPerMille = 150

// DType returns a generator of every dtype the engine supports: bool,
// int8-64, uint8-64, float16/32/64, complex64/128, S<n> (n mostly 1 to 8,
// sometimes up to 40) and U<n> (n mostly 1 to 6, sometimes up to 20).
// Dtypes with a byte order are big-endian about one time in seven.
func DType() *rapid.Generator[engine.DType] { return dtypes }

// dtypes is the generator DType returns, made once: the generators draw
// a dtype for nearly every tensor.
var dtypes = rapid.Custom(drawDType)

func drawDType(t *rapid.T) engine.DType {
	dt := dtypeWeights[pickOf(t, "dtype", dtypeWeights, weightedDType.rate)].dt
	switch dt.Kind {
	case engine.Bytes:
		dt.Size = stringWidth(t, 8, 40)
	case engine.Unicode:
		dt.Size = 4 * stringWidth(t, 6, 20)
	}
	if dt.HasByteOrder() {
		dt.BigEndian = chance(t, "big-endian", bigEndianPerMille)
	}
	return dt
}

// stringWidth draws the character count of a string dtype: mostly 1 to
// common, sometimes up to wide.
func stringWidth(t *rapid.T, common, wide int) int {
	if pick(t, "string width", 90, 10) == 0 {
		return 1 + offset(t, "width", common-1)
	}
	return common + 1 + offset(t, "wide width", wide-common-1)
}

// indexDTypeWeights are the dtypes of gather_nd indices: int32 and int64
// mostly, the other integer types sometimes and, rarely, a float type that
// the engine rejects as bad_input.
var indexDTypeWeights = []weightedDType{
	{engine.Int32Type, 440},
	{engine.Int64Type, 400},
	{engine.Int8Type, 25},
	{engine.Int16Type, 25},
	{engine.Uint8Type, 25},
	{engine.Uint16Type, 20},
	{engine.Uint32Type, 20},
	{engine.Uint64Type, 25},
	{engine.Float32Type, 8},
	{engine.Float64Type, 6},
	{engine.Float16Type, 3},
}

// IndexDType returns a generator of gather_nd index dtypes: int32 or int64
// five times in six, the other integer types otherwise and, about one time
// in sixty, a float dtype (which the engine rejects with bad_input).
// Multi-byte types are big-endian about one time in seven.
func IndexDType() *rapid.Generator[engine.DType] { return indexDTypes }

// indexDTypes is the generator IndexDType returns, made once.
var indexDTypes = rapid.Custom(func(t *rapid.T) engine.DType {
	return drawWeightedDType(t, indexDTypeWeights)
})

// Package gen generates conform cases with pgregory.net/rapid: shapes,
// dtypes and input data, NumPy subscripts for getitem (basic items and
// advanced ones: index arrays as named inputs, inline lists, True/False),
// raw TF and OpenVINO strided_slice specs, tf.slice specs, index tensors
// of every integer dtype and bool for the gather family (gather_nd,
// gather, take, take_along_axis and the ONNX gathers), and whole cases of
// every op (Case, CaseOf); each op's generator file registers it. Corpus builds a deterministic,
// deduplicated corpus from a seed: the same seed gives the same cases, byte
// for byte, on every run and machine.
//
// The generators aim at the edges of the semantics (docs/case-format.md):
// empty and size-1 dimensions, rank 0 and high ranks, every dtype in both
// byte orders, out-of-range and huge bounds, reverse slices, ellipses
// covering no dimension, overlapping mask bits, mask bits beyond the spec,
// empty gathers and out-of-range rows, broadcast and mismatched index
// shapes, negative and out-of-range indices under every policy, and about
// one case in seven is rejected by the reference engine with one of the
// three error kinds.
//
// Every generator draws a category first and then an offset from a fixed
// range, and maps the pair onto the value it needs (a bound near a
// dimension, an index in range); no draw has a range that depends on an
// earlier draw, so rapid's shrinker can reduce each part independently.
// Categories are chosen with fixed weights from uniform random bits (see
// pick), so the rates are the ones written in the tables of each file, and
// shrinking a category moves it towards the first, most ordinary, one.
package gen

// One-op TFLite models (schema.fbs: file identifier TFL3, schema version
// 3), written with ./flatbuf.js: STRIDED_SLICE, SLICE, GATHER_ND and
// GATHER. The data operand is a graph input; begin/end/strides and
// begin/size are constant tensors (as a converter writes them, so the output is sized in
// Prepare); the indices of GATHER_ND and GATHER are a graph input.
//
// A model may apply the same op to several data inputs of different
// types (one operator per type, sharing the other operands): the oracle
// runs an input's real dtype next to an int32 tensor of element positions
// in one interpreter.
'use strict';

const { finish } = require('./flatbuf');

// TensorType (schema.fbs).
const TT = {
  FLOAT32: 0, FLOAT16: 1, INT32: 2, UINT8: 3, INT64: 4, STRING: 5, BOOL: 6, INT16: 7,
  COMPLEX64: 8, INT8: 9, FLOAT64: 10, COMPLEX128: 11, UINT64: 12, UINT32: 15, UINT16: 16,
};

// BuiltinOperator codes and BuiltinOptions union indices (schema.fbs).
const OP = { GATHER: 36, STRIDED_SLICE: 45, SLICE: 65, GATHER_ND: 107 };
const OPTIONS = { GatherOptions: 23, StridedSliceOptions: 32, SliceOptions: 48, GatherNdOptions: 83 };

function int32Bytes(vals) {
  const b = Buffer.alloc(4 * vals.length);
  for (let i = 0; i < vals.length; i++) b.writeInt32LE(vals[i], 4 * i);
  return b;
}

function int64Bytes(vals) {
  const b = Buffer.alloc(8 * vals.length);
  for (let i = 0; i < vals.length; i++) b.writeBigInt64LE(BigInt(vals[i]), 8 * i);
  return b;
}

// build writes a one-subgraph model in which op (with builtin options
// table options of union type optionsType) runs once per entry of
// dataTypes, on a graph input of that type and shape dataShape, followed
// by the shared operands ({name, type, shape, data}: data null for a
// graph input, else the constant's bytes). Graph inputs: the data inputs
// in order, then the operands that are not constant; graph outputs: one
// per data input, in order.
function build(op, optionsType, options, dataTypes, dataShape, operands) {
  const tensors = [];
  const buffers = [[]]; // buffer 0: the empty sentinel
  const tensor = (name, type, shape, data) => {
    const t = [];
    if (shape !== null) t[0] = ['i32s', shape];
    t[1] = ['i8', type];
    let buf = 0;
    if (data !== null) {
      buf = buffers.length;
      buffers.push([['bytes', data, 16]]);
    }
    t[2] = ['u32', buf];
    t[3] = ['string', name];
    tensors.push(t);
    return tensors.length - 1;
  };
  const dataIdx = dataTypes.map((type, k) => tensor(`x${k}`, type, dataShape, null));
  const operandIdx = operands.map((o) => tensor(o.name, o.type, o.shape, o.data));
  const outIdx = dataTypes.map((type, k) => tensor(`out${k}`, type, null, null));
  const graphInputs = dataIdx.concat(operandIdx.filter((_, i) => operands[i].data === null));
  const operators = dataTypes.map((_, k) => {
    const o = [];
    o[0] = ['u32', 0];
    o[1] = ['i32s', [dataIdx[k]].concat(operandIdx)];
    o[2] = ['i32s', [outIdx[k]]];
    o[3] = ['u8', optionsType];
    o[4] = ['table', options];
    return o;
  });
  const subgraph = [
    ['tables', tensors],
    ['i32s', graphInputs],
    ['i32s', outIdx],
    ['tables', operators],
    ['string', 'main'],
  ];
  const opcode = [];
  opcode[0] = ['i8', Math.min(op, 127)]; // deprecated_builtin_code
  opcode[2] = ['i32', 1]; // version
  opcode[3] = ['i32', op]; // builtin_code
  return finish([
    ['u32', 3], // schema version
    ['tables', [opcode]],
    ['tables', [subgraph]],
    ['string', 'conform'],
    ['tables', buffers],
  ], 'TFL3');
}

// stridedSlice: STRIDED_SLICE of data inputs of the given types and shape
// with constant int32 begin, end and strides, and the masks {begin_mask,
// end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask} (32-bit
// integers).
function stridedSlice(types, shape, begin, end, strides, m) {
  const options = [
    ['i32', m.begin_mask | 0], ['i32', m.end_mask | 0], ['i32', m.ellipsis_mask | 0],
    ['i32', m.new_axis_mask | 0], ['i32', m.shrink_axis_mask | 0],
  ];
  return build(OP.STRIDED_SLICE, OPTIONS.StridedSliceOptions, options, types, shape, [
    { name: 'begin', type: TT.INT32, shape: [begin.length], data: int32Bytes(begin) },
    { name: 'end', type: TT.INT32, shape: [end.length], data: int32Bytes(end) },
    { name: 'strides', type: TT.INT32, shape: [strides.length], data: int32Bytes(strides) },
  ]);
}

// slice: SLICE with constant begin and size, int32 or (wide) int64.
function slice(types, shape, begin, size, wide) {
  const enc = wide ? int64Bytes : int32Bytes;
  const it = wide ? TT.INT64 : TT.INT32;
  return build(OP.SLICE, OPTIONS.SliceOptions, [], types, shape, [
    { name: 'begin', type: it, shape: [begin.length], data: enc(begin) },
    { name: 'size', type: it, shape: [size.length], data: enc(size) },
  ]);
}

// gatherNd: GATHER_ND of params inputs of the given types and shape by an
// indices graph input (the last input).
function gatherNd(types, pShape, iType, iShape) {
  return build(OP.GATHER_ND, OPTIONS.GatherNdOptions, [], types, pShape, [
    { name: 'indices', type: iType, shape: iShape, data: null },
  ]);
}

// gather: GATHER of params inputs of the given types and shape by an
// indices graph input (the last input), with GatherOptions {axis,
// batch_dims} (int32 fields).
function gather(types, pShape, iType, iShape, axis, batchDims) {
  return build(OP.GATHER, OPTIONS.GatherOptions, [['i32', axis], ['i32', batchDims]], types, pShape, [
    { name: 'indices', type: iType, shape: iShape, data: null },
  ]);
}

module.exports = { TT, stridedSlice, slice, gatherNd, gather };

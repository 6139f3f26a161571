// A minimal ONNX model writer: just enough of onnx.proto (ModelProto,
// GraphProto, NodeProto, AttributeProto, ValueInfoProto, TypeProto,
// TensorShapeProto, OperatorSetIdProto) to build one-node-chain graphs
// whose every operand is a graph input with dynamic dimensions, hand-encoded
// as protocol buffers (varints and length-delimited fields only).
'use strict';

// TensorProto.DataType (onnx/onnx.proto).
const DT = {
  float: 1, uint8: 2, int8: 3, uint16: 4, int16: 5, int32: 6, int64: 7, string: 8,
  bool: 9, float16: 10, double: 11, uint32: 12, uint64: 13, complex64: 14, complex128: 15,
};

// AttributeProto.AttributeType.
const ATTR_INT = 2;

// IR version 8 (ONNX 1.10+) with opset 13: Slice-13, GatherND-13,
// Squeeze-13 and Unsqueeze-13 (axes as inputs).
const IR_VERSION = 8;
const OPSET = 13;

class Writer {
  constructor() {
    this.parts = [];
  }

  varint(v) {
    let x = BigInt.asUintN(64, BigInt(v));
    const out = [];
    while (x >= 0x80n) {
      out.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    out.push(Number(x));
    this.parts.push(Buffer.from(out));
    return this;
  }

  tag(field, wire) {
    return this.varint((field << 3) | wire);
  }

  int(field, v) {
    return this.tag(field, 0).varint(v);
  }

  bytes(field, b) {
    this.tag(field, 2).varint(b.length);
    this.parts.push(Buffer.from(b));
    return this;
  }

  string(field, s) {
    return this.bytes(field, Buffer.from(s, 'utf8'));
  }

  message(field, w) {
    return this.bytes(field, w.finish());
  }

  finish() {
    return Buffer.concat(this.parts);
  }
}

// valueInfo encodes a ValueInfoProto: a tensor of the given element type
// and rank, every dimension unknown (neither dim_value nor dim_param).
// rank null leaves the shape out entirely (any rank).
function valueInfo(name, elemType, rank) {
  const tensor = new Writer().int(1, elemType);
  if (rank !== null) {
    const shape = new Writer();
    for (let i = 0; i < rank; i++) shape.message(1, new Writer());
    tensor.message(2, shape);
  }
  return new Writer().string(1, name).message(2, new Writer().message(1, tensor));
}

// node encodes a NodeProto; attrs maps names to int64 attribute values.
function node(opType, inputs, outputs, attrs = {}) {
  const w = new Writer();
  for (const i of inputs) w.string(1, i);
  for (const o of outputs) w.string(2, o);
  w.string(3, `${opType}_${outputs[0]}`);
  w.string(4, opType);
  for (const [name, v] of Object.entries(attrs)) {
    w.message(5, new Writer().string(1, name).int(20, ATTR_INT).int(3, v));
  }
  return w;
}

// model encodes a ModelProto: nodes in order, graph inputs and outputs as
// [name, elemType, rank] triples.
function model(nodes, inputs, outputs) {
  const g = new Writer();
  for (const n of nodes) g.message(1, n);
  g.string(2, 'conform');
  for (const [name, t, r] of inputs) g.message(11, valueInfo(name, t, r));
  for (const [name, t, r] of outputs) g.message(12, valueInfo(name, t, r));
  return new Writer()
    .int(1, IR_VERSION)
    .string(2, 'conform-ort-oracle')
    .message(7, g)
    .message(8, new Writer().string(1, '').int(2, OPSET))
    .finish();
}

module.exports = { DT, model, node, OPSET, IR_VERSION };

#!/usr/bin/env node
// conform/1 oracle backed by ONNX Runtime (onnxruntime-node, CPU execution
// provider; version pinned in ../package.json).
//
// It reads one JSON request per line on stdin and writes one JSON response
// per request on stdout, after a hello line; see "Protocol conform/1" in
// the project's design notes and ../README.md.
//
// Every case runs as a small ONNX model (opset 13) built here, byte by
// byte (./onnx.js), whose operands are all graph inputs with dynamic
// dimensions, so that one InferenceSession per (op, dtype, rank, ...)
// serves every case of that kind; sessions are cached.
//
// Ops:
//   onnx_slice      Slice(data, starts, ends[, axes][, steps])
//   onnx_gather_nd  GatherND(data, indices) with the batch_dims attribute
//   slice           tf.slice as a converter writes it: Slice(x, begin,
//                   begin + size), size -1 as INT64_MAX
//   strided_slice   TF's StridedSlice as a converter writes it: the sparse
//   getitem         spec expanded to one entry per dim by TF's rules, then
//                   Slice (masked bounds as INT64_MAX / INT64_MIN),
//                   Squeeze (shrink axes) and Unsqueeze (new axes);
//                   getitem is NumPy's subscript (parsed by the TF.js
//                   oracle's parser) mapped the same way, and its result
//                   follows NumPy's dtype rule for a full integer index
//                   (see asNumPyScalar); a getitem with one integer index
//                   array among full slices and an ellipsis is Gather on
//                   the array's axis (see gatherLowering)
//   gather_nd       tf.gather_nd as a converter writes it: GatherND with the
//                   indices as int64
// ONNX Runtime's answers are reported as they are, errors mapped to
// conform's kinds by message (table in ../README.md).
'use strict';

const req = require('../request');

req.quietConsole(); // keep stdout for the protocol

const ort = require('onnxruntime-node');
const json = require('./json');
const npy = require('../npy');
const { DT, model, node } = require('./onnx');

const ORT_VERSION = require('onnxruntime-node/package.json').version;
ort.env.logLevel = 'fatal';

const { INT64_MAX, INT64_MIN, CaseError, Skip, invalid, bad, ints } = req;
const { swapped } = npy;
const MAX_SPEC_LENGTH = 31; // TF StridedSlice: n < 32

const OP_INPUTS = { ...req.CLASSIC_INPUTS, ...req.ONNX_INPUTS };

// int64Values reads an integer array as ONNX's Cast to int64 would:
// modulo 2^64.
function int64Values(a) {
  return BigInt64Array.from(npy.intValues(a), (v) => BigInt.asIntN(64, v));
}

// getitem subscripts are parsed by the TF.js oracle's parser (../request.js).
const OPS = ['onnx_slice', 'onnx_gather_nd', 'onnx_gather', 'onnx_gather_elements', 'slice', 'strided_slice', 'gather_nd']
  .concat(req.haveSubscriptParser() ? ['getitem'] : []);
const OP_FIELDS = Object.fromEntries(OPS.concat(['getitem']).map((op) => [op, req.ALL_FIELDS[op]]));

// ------------------------------------------------------------ case fields

// A strided_slice mask: bits 0-63 as a BigInt, and the count of set list
// entries beyond position 63 (they matter only for the ellipsis count).
function mask(c, name) {
  const m = req.mask(c, name);
  if (m === null) return { bits: 0n, extra: 0 };
  if (m.list === undefined) return { bits: BigInt.asUintN(64, m.int), extra: 0 };
  let bits = 0n;
  let extra = 0;
  m.list.forEach((e, i) => {
    if (e === 1n) {
      if (i < 64) bits |= 1n << BigInt(i);
      else extra++;
    }
  });
  return { bits, extra };
}

const hasBit = (m, i) => i < 64 && ((m.bits >> BigInt(i)) & 1n) === 1n;
function bitCount(m) {
  let n = m.extra;
  for (let b = m.bits; b > 0n; b >>= 1n) n += Number(b & 1n);
  return n;
}

function parseSpec(c) {
  const op = req.caseOp(c);
  req.checkFields(c, op, OP_FIELDS);
  const spec = { op };
  if (req.classicSpec(c, spec, mask)) {
    if (op === 'gather_nd') spec.batch_dims = Number(spec.batch_dims);
    return spec;
  }
  if (op === 'onnx_slice') {
    spec.starts = ints(c, 'starts', true);
    spec.ends = ints(c, 'ends', true);
    spec.axes = ints(c, 'axes', false);
    spec.steps = ints(c, 'steps', false);
  } else if (op === 'onnx_gather_nd') {
    spec.batch_dims = Number(req.batchDims(c));
  } else { // onnx_gather, onnx_gather_elements
    spec.axis = req.axis(c);
  }
  return spec;
}

// ------------------------------------------------------------ tensors

// Element types ONNX Runtime runs natively: NumPy kind + size -> the
// onnxruntime-node tensor type, the ONNX element type and the typed array.
const NATIVE = {
  b1: ['bool', DT.bool, Uint8Array],
  i1: ['int8', DT.int8, Int8Array],
  i2: ['int16', DT.int16, Int16Array],
  i4: ['int32', DT.int32, Int32Array],
  i8: ['int64', DT.int64, BigInt64Array],
  u1: ['uint8', DT.uint8, Uint8Array],
  u2: ['uint16', DT.uint16, Uint16Array],
  u4: ['uint32', DT.uint32, Uint32Array],
  u8: ['uint64', DT.uint64, BigUint64Array],
  f2: ['float16', DT.float16, Uint16Array],
  f4: ['float32', DT.float, Float32Array],
  f8: ['float64', DT.double, Float64Array],
};

// stringElements decodes the elements of an S or U array into JS strings
// for an ORT string tensor, or returns null when some element cannot make
// the round trip: onnxruntime-node passes strings as C strings (an embedded
// NUL ends them) in UTF-8 (a surrogate code point is not encodable).
// Trailing NULs are padding (NumPy's value of the element) and come back
// as padding.
function stringElements(a) {
  const out = new Array(a.count);
  for (let i = 0; i < a.count; i++) {
    const e = a.data.subarray(i * a.size, (i + 1) * a.size);
    if (a.kind === 'S') {
      let end = e.length;
      while (end > 0 && e[end - 1] === 0) end--;
      const body = e.subarray(0, end);
      if (body.includes(0)) return null;
      out[i] = body.toString('latin1');
    } else {
      const cps = [];
      for (let j = 0; j < a.n; j++) cps.push(a.big ? e.readUInt32BE(4 * j) : e.readUInt32LE(4 * j));
      while (cps.length > 0 && cps[cps.length - 1] === 0) cps.pop();
      if (cps.some((c) => c === 0 || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)) return null;
      out[i] = String.fromCodePoint(...cps);
    }
  }
  return out;
}

// runAs decides how an input array runs on ONNX Runtime:
//   native     the numeric and bool types, byte-swapped to native order;
//   string     S and U as ORT string tensors (when every element can
//              make the round trip);
//   positions  every other case (complex64/128, which ONNX Runtime's CPU
//              kernels do not register, and strings with embedded NULs or
//              surrogates) as an int64 tensor of the same shape holding
//              the element positions 0..N-1. Slice and GatherND move
//              elements without looking at them (ONNX Runtime's kernels
//              dispatch on the element size only), so the positions that
//              come back name the input elements picked, and the output
//              is their bytes.
function toOrt(a) {
  const key = a.kind + a.size;
  if (NATIVE[key]) {
    const [type, elem, Typed] = NATIVE[key];
    const b = a.big ? swapped(a.data, a.size) : Buffer.from(a.data);
    const ab = new ArrayBuffer(b.length);
    Buffer.from(ab).set(b);
    return { mode: 'native', elem, tensor: new ort.Tensor(type, new Typed(ab), a.shape) };
  }
  if (a.kind === 'S' || a.kind === 'U') {
    const strs = stringElements(a);
    if (strs !== null) return { mode: 'string', elem: DT.string, tensor: new ort.Tensor('string', strs, a.shape) };
  }
  const pos = new BigInt64Array(a.count);
  for (let i = 0; i < a.count; i++) pos[i] = BigInt(i);
  return { mode: 'positions', elem: DT.int64, tensor: new ort.Tensor('int64', pos, a.shape) };
}

// fromOrt turns ONNX Runtime's output into .npy bytes with the dtype of
// the input a.
function fromOrt(t, a, mode) {
  const dims = Array.from(t.dims, Number);
  const n = dims.reduce((x, y) => x * y, 1);
  const vals = t.data;
  if (!dims.every((d) => Number.isSafeInteger(d) && d >= 0) || vals.length !== n) {
    throw new Skip(`ONNX Runtime returned an invalid tensor: shape [${dims}] with ${vals.length} values`, 'invalid-tensor');
  }
  if (mode === 'native') {
    const b = Buffer.from(vals.buffer, vals.byteOffset, vals.byteLength);
    return npy.encode(a.descr, dims, a.big ? swapped(b, a.size) : Buffer.from(b));
  }
  if (mode === 'positions') {
    const out = Buffer.alloc(n * a.size);
    for (let i = 0; i < n; i++) {
      const p = vals[i];
      if (!(p >= 0n && p < BigInt(a.count))) {
        throw new Skip(`ONNX Runtime returned an invalid tensor: element ${i} holds position ${p} of ${a.count}`, 'invalid-tensor');
      }
      a.data.copy(out, i * a.size, Number(p) * a.size, (Number(p) + 1) * a.size);
    }
    return npy.encode(a.descr, dims, out);
  }
  // Strings: fixed width, NUL-padded; a longer string widens the dtype.
  if (a.kind === 'S') {
    let w = a.n;
    for (const s of vals) {
      if (/[^\u0000-\u00ff]/.test(s)) throw new Skip('ONNX Runtime returned a string the input does not hold', 'invalid-tensor');
      w = Math.max(w, s.length);
    }
    const out = Buffer.alloc(n * w);
    vals.forEach((s, i) => out.write(s, i * w, 'latin1'));
    return npy.encode(`|S${w}`, dims, out);
  }
  const cps = vals.map((s) => Array.from(s, (ch) => ch.codePointAt(0)));
  const w = Math.max(a.n, ...cps.map((c) => c.length));
  const out = Buffer.alloc(n * 4 * w);
  cps.forEach((c, i) => c.forEach((cp, j) => {
    if (a.big) out.writeUInt32BE(cp, (i * w + j) * 4);
    else out.writeUInt32LE(cp, (i * w + j) * 4);
  }));
  return npy.encode(`${a.big ? '>' : '<'}U${w}`, dims, out);
}

// asNumPyScalar gives the result of a getitem whose index is one integer
// per input dimension and nothing else the dtype NumPy gives it (part of
// getitem's contract, which is NumPy's; ONNX has no byte order): NumPy
// returns a scalar there, and np.asarray of a scalar has native
// (little-endian) byte order; an S or U scalar has no trailing NULs, and
// its array is exactly as wide as the string, at least one character.
// out is the .npy of ONNX Runtime's result in the input's dtype.
function asNumPyScalar(out) {
  const a = npy.decode(out);
  if (a.kind === 'S' || a.kind === 'U') {
    const char = a.kind === 'U' ? 4 : 1;
    const zero = Buffer.alloc(char);
    // The width: the longest element without its trailing NUL characters.
    let w = 1;
    for (let i = 0; i < a.count; i++) {
      let len = a.n;
      while (len > 0 && a.data.subarray(i * a.size + (len - 1) * char, i * a.size + len * char).equals(zero)) len--;
      w = Math.max(w, len);
    }
    const data = Buffer.alloc(a.count * w * char);
    for (let i = 0; i < a.count; i++) {
      const keep = Math.min(w, a.n);
      const src = a.data.subarray(i * a.size, i * a.size + keep * char);
      (a.big ? swapped(src, 4) : src).copy(data, i * w * char);
    }
    return npy.encode(`${a.kind === 'U' ? '<' : '|'}${a.kind}${w}`, a.shape, data);
  }
  if (!a.big) return out;
  const half = a.kind === 'c'; // a complex number is two floats, each swapped
  return npy.encode(`<${a.kind}${a.n}`, a.shape, swapped(a.data, half ? a.size / 2 : a.size));
}

const i64 = (list) => new ort.Tensor('int64', BigInt64Array.from(list), [list.length]);

// ------------------------------------------------------------ sessions

// Sessions by key. A session that ONNX Runtime refuses to create (an
// invalid model: a type or shape inference error) is cached as the error.
const MAX_SESSIONS = 512;
const sessions = new Map();
const SESSION_OPTIONS = {
  intraOpNumThreads: 1, // one thread per session: creation stays cheap
  interOpNumThreads: 1,
  executionMode: 'sequential',
  logSeverityLevel: 4,
};

function session(key, build) {
  let s = sessions.get(key);
  if (s !== undefined) {
    sessions.delete(key);
    sessions.set(key, s);
    return s;
  }
  s = ort.InferenceSession.create(build(), SESSION_OPTIONS);
  s.catch(() => {}); // kept as the cached answer
  sessions.set(key, s);
  if (sessions.size > MAX_SESSIONS) {
    const [oldKey, old] = sessions.entries().next().value;
    sessions.delete(oldKey);
    old.then((x) => x.release()).catch(() => {});
  }
  return s;
}

// ------------------------------------------------------------ errors

// ONNX Runtime 1.30 error messages (CPU kernels slice.cc / slice_helper.h,
// gather_nd.cc, squeeze.h; ONNX shape inference at session creation) and
// the kind each maps to. Keep in step with the table in ../README.md.
const ERROR_KINDS = [
  [/Cannot slice scalars/, 'invalid_spec'],
  [/'step' value cannot be 0/, 'invalid_spec'],
  [/'axes' has an axis outside of the tensor dimension count/, 'invalid_spec'],
  [/'axes' has duplicates/, 'invalid_spec'],
  [/Starts and (ends|axes|steps) shape mismatch/, 'invalid_spec'],
  [/'starts' and 'ends' must have at least as many elements as 'axes'/, 'invalid_spec'],
  [/invalid index found, index = /, 'out_of_range'],
  [/last dimension of indices must not be larger than rank of input tensor/, 'invalid_spec'],
  [/indices batch size \(\d+\) is not divisible by input batch size/, 'invalid_spec'],
  [/input tensor batch dimensions cannot be zero/, 'invalid_spec'],
  [/indices tensor must has rank larger than 0/, 'invalid_spec'],
  [/need to have rank larger than 0/, 'invalid_spec'],
  [/SafeIntOnOverflow|Integer overflow/, 'invalid_spec'],
  [/Dimension of input \d+ must be 1 instead of 0/, 'out_of_range'],
  // Squeeze of a shrink dim the converted Slice left at another size
  // (seen on inputs with no elements, where TF's answer is an output).
  [/Dimension of input \d+ must be 1 instead of \d+/, 'out_of_range'],
  [/Type Error: Type '?tensor\(\w+\)'? of input parameter \(indices\)/, 'bad_input'],
  // Gather (gather.cc, onnx shape inference) and GatherElements
  // (gather_elements.cc); providers/common.h HandleNegativeAxis.
  [/indices element out of data bounds, idx=-?\d+ must be within the inclusive range/, 'out_of_range'],
  [/axis must be in \[-r, r-1\]/, 'invalid_spec'],
  [/data tensor must have rank >= 1/, 'invalid_spec'],
  [/IsAxisInRange\(axis, tensor_rank\) was false/, 'invalid_spec'],
  [/GatherElements op: Out of range value in index tensor/, 'out_of_range'],
  [/GatherElements op: 'indices' shape should have values within bounds of 'data' shape/, 'invalid_spec'],
  [/GatherElements op: Rank of input 'data' needs to be equal to rank of input 'indices'/, 'invalid_spec'],
  [/GatherElements op: Cannot operate on scalar input/, 'invalid_spec'],
];

function mapError(e) {
  if (e instanceof CaseError || e instanceof Skip) return e;
  const msg = e && e.message !== undefined ? String(e.message) : String(e);
  for (const [re, kind] of ERROR_KINDS) {
    if (re.test(msg)) return new CaseError(kind, msg.replace(/\s+/g, ' ').trim());
  }
  process.stderr.write(`ort oracle: unrecognised ONNX Runtime error: ${msg}\n`);
  return new CaseError('invalid_spec', `unrecognised ORT error: ${msg.replace(/\s+/g, ' ').trim()}`);
}

// ------------------------------------------------------------ ops

// A graph is {key, nodes, inputs: [[name, elem, rank]], feeds}; the output
// is always named "out".
async function runGraph(g, like, mode) {
  let out;
  try {
    const s = await session(g.key, () => model(g.nodes, g.inputs, [['out', g.outElem, null]]));
    out = (await s.run(g.feeds)).out;
  } catch (e) {
    throw mapError(e);
  }
  try {
    return fromOrt(out, like, mode);
  } finally {
    if (out && typeof out.dispose === 'function') out.dispose();
  }
}

function onnxSlice(spec, inputs) {
  const a = inputs.data;
  const x = toOrt(a);
  const names = ['data', 'starts', 'ends'];
  const decl = [['data', x.elem, a.shape.length], ['starts', DT.int64, 1], ['ends', DT.int64, 1]];
  const feeds = { data: x.tensor, starts: i64(spec.starts), ends: i64(spec.ends) };
  if (spec.axes !== null) {
    names.push('axes');
    decl.push(['axes', DT.int64, 1]);
    feeds.axes = i64(spec.axes);
  } else if (spec.steps !== null) {
    names.push(''); // an omitted optional input
  }
  if (spec.steps !== null) {
    names.push('steps');
    decl.push(['steps', DT.int64, 1]);
    feeds.steps = i64(spec.steps);
  }
  const g = {
    key: `Slice|${x.elem}|${a.shape.length}|${names.join(',')}`,
    nodes: [node('Slice', names, ['out'])],
    inputs: decl,
    outElem: x.elem,
    feeds,
  };
  return runGraph(g, a, x.mode);
}

// The ONNX element type of an index array (whatever ONNX Runtime then
// says about it).
function indexElem(a) {
  const key = a.kind + a.size;
  if (NATIVE[key]) return NATIVE[key][1];
  if (a.kind === 'c') return a.size === 8 ? DT.complex64 : DT.complex128;
  return DT.string;
}

function gatherND(data, indices, indicesElem, indicesTensor, batchDims) {
  const q = indices.shape.length;
  if (batchDims < 0 && data.shape.length >= 1 && q >= 1 && indicesElem === DT.int64 &&
      batchDims + indices.shape[q - 1] < 0) {
    // GatherND::Compute builds the output shape from
    // data.shape.begin() + batch_dims + indices.shape[-1]: before the
    // start, the process aborts (std::terminate), whatever the data.
    throw new Skip('ONNX Runtime 1.30 aborts the process on GatherND with batch_dims + indices.shape[-1] < 0 ' +
      '("terminate called without an active exception"); not run', 'not-run-aborts');
  }
  const x = toOrt(data);
  const g = {
    key: `GatherND|${x.elem}|${data.shape.length}|${indicesElem}|${indices.shape.length}|${batchDims}`,
    nodes: [node('GatherND', ['data', 'indices'], ['out'], { batch_dims: batchDims })],
    inputs: [['data', x.elem, data.shape.length], ['indices', indicesElem, indices.shape.length]],
    outElem: x.elem,
    feeds: { data: x.tensor, indices: indicesTensor },
  };
  return runGraph(g, data, x.mode);
}


function onnxGatherND(spec, inputs) {
  const ia = inputs.indices;
  const elem = indexElem(ia);
  let t = null;
  if (elem === DT.int64) t = new ort.Tensor('int64', int64Values(ia), ia.shape);
  // Any other index type: ONNX Runtime refuses the model before any
  // tensor is fed (GatherND-13 takes int64 indices only).
  if (t === null) t = new ort.Tensor('int64', new BigInt64Array(ia.count), ia.shape);
  return gatherND(inputs.data, ia, elem, t, spec.batch_dims);
}

// onnxIndices is the tensor of an index array for Gather and
// GatherElements (whose indices may be int32 or int64), with its ONNX
// element type. Any other type goes in the model as it is, and ONNX
// Runtime refuses the model before a tensor is fed.
function onnxIndices(ia) {
  const elem = indexElem(ia);
  if (elem === DT.int64) return { elem, tensor: new ort.Tensor('int64', int64Values(ia), ia.shape) };
  if (elem === DT.int32) return { elem, tensor: new ort.Tensor('int32', Int32Array.from(npy.intValues(ia), Number), ia.shape) };
  return { elem, tensor: new ort.Tensor('int64', new BigInt64Array(ia.count), ia.shape) };
}

// gatherOp runs Gather-13 or GatherElements-13 (opType) with the axis
// attribute (an int64 attribute: any int64 value is written as it is).
function gatherOp(opType, data, ia, axis) {
  return gatherGraph(opType, data, onnxIndices(ia), ia.shape.length, axis);
}

// gatherGraph runs opType on data and the index tensor ix ({elem,
// tensor}, of rank indicesRank) with the axis attribute.
function gatherGraph(opType, data, ix, indicesRank, axis) {
  const x = toOrt(data);
  const g = {
    key: `${opType}|${x.elem}|${data.shape.length}|${ix.elem}|${indicesRank}|${axis}`,
    nodes: [node(opType, ['data', 'indices'], ['out'], { axis })],
    inputs: [['data', x.elem, data.shape.length], ['indices', ix.elem, indicesRank]],
    outElem: x.elem,
    feeds: { data: x.tensor, indices: ix.tensor },
  };
  return runGraph(g, data, x.mode);
}

// tf.gather_nd as a converter writes it: integer indices cast to int64.
function tfGatherND(spec, inputs) {
  if (spec.bad_indices !== 'error') {
    throw new Skip('ONNX GatherND has no bad_indices "zero" mode (TF GPU behaviour)', 'unsupported-spec');
  }
  const ia = inputs.indices;
  if (ia.kind !== 'i' && ia.kind !== 'u') {
    throw bad(`conversion: tf.gather_nd indices must be integers, got ${ia.descr}`);
  }
  const t = new ort.Tensor('int64', int64Values(ia), ia.shape);
  return gatherND(inputs.params, ia, DT.int64, t, spec.batch_dims);
}

// tf.slice as a converter writes it (tf2onnx): starts = begin, ends =
// begin + size in int64 arithmetic (wrapping), size -1 as INT64_MAX.
function tfSlice(spec, inputs) {
  const a = inputs.x;
  const x = toOrt(a);
  const ends = spec.size.map((s, i) => (s === -1n ? INT64_MAX : BigInt.asIntN(64, (spec.begin[i] ?? 0n) + s)));
  const g = {
    key: `Slice|${x.elem}|${a.shape.length}|data,starts,ends`,
    nodes: [node('Slice', ['data', 'starts', 'ends'], ['out'])],
    inputs: [['data', x.elem, a.shape.length], ['starts', DT.int64, 1], ['ends', DT.int64, 1]],
    outElem: x.elem,
    feeds: { data: x.tensor, starts: i64(spec.begin), ends: i64(ends) },
  };
  return runGraph(g, a, x.mode);
}

// Sparse spec entries: {kind: 'range', begin, end, stride, beginMasked,
// endMasked} | {kind: 'shrink', begin, stride} | {kind: 'newaxis'} |
// {kind: 'ellipsis'}, BigInt values.

// tfEntries turns a TF StridedSlice spec into sparse entries, with TF's
// checks on the spec itself (strided_slice_op.cc): equal lengths, n < 32,
// at most one ellipsis bit in the raw mask; then priority ellipsis > new
// axis > shrink > range per entry.
function tfEntries(s) {
  const n = s.begin.length;
  const strides = s.strides === null ? s.begin.map(() => 1n) : s.strides;
  if (s.end.length !== n || strides.length !== n) {
    throw invalid(`conversion: begin, end and strides must have equal lengths, got ${n}, ${s.end.length} and ${strides.length}`);
  }
  if (n > MAX_SPEC_LENGTH) throw invalid(`conversion: spec has ${n} entries; at most ${MAX_SPEC_LENGTH} are allowed`);
  if (bitCount(s.ellipsis_mask) > 1) throw invalid('conversion: multiple ellipses in slice spec not allowed');
  const out = [];
  for (let i = 0; i < n; i++) {
    if (hasBit(s.ellipsis_mask, i)) out.push({ kind: 'ellipsis' });
    else if (hasBit(s.new_axis_mask, i)) out.push({ kind: 'newaxis' });
    else if (hasBit(s.shrink_axis_mask, i)) out.push({ kind: 'shrink', begin: s.begin[i], stride: strides[i] });
    else {
      out.push({
        kind: 'range', begin: s.begin[i], end: s.end[i], stride: strides[i],
        beginMasked: hasBit(s.begin_mask, i), endMasked: hasBit(s.end_mask, i),
      });
    }
  }
  return out;
}

// getitemEntries turns the parsed items of a NumPy subscript (internal/expr's
// grammar, via the TF.js oracle's parser) without index arrays into
// sparse entries, with NumPy's checks on the items: at most one ellipsis,
// not more integers and slices than dims.
function getitemEntries(items, rank) {
  if (items.filter((it) => it.kind === 'ellipsis').length > 1) {
    throw invalid("conversion: an index can only have a single ellipsis ('...')");
  }
  const consumed = items.filter((it) => it.kind === 'int' || it.kind === 'slice').length;
  if (consumed > rank) {
    throw invalid(`conversion: too many indices for array: array is ${rank}-dimensional, but ${consumed} were indexed`);
  }
  return items.map((it) => {
    switch (it.kind) {
      case 'ellipsis': return { kind: 'ellipsis' };
      case 'newaxis': return { kind: 'newaxis' };
      case 'int': return { kind: 'shrink', begin: it.n, stride: 1n };
      default:
        return {
          kind: 'range', begin: it.start ?? 0n, end: it.stop ?? 0n, stride: it.step ?? 1n,
          beginMasked: it.start === null, endMasked: it.stop === null,
        };
    }
  });
}

// ------------------------------------------------------------ getitem as Gather

// inlineIndices reads an inline list of a subscript (nested arrays of
// {kind: 'int' | 'bool', n}) as the integer array NumPy makes of it, as
// {shape, values: BigInt64Array}, or returns null when NumPy would not
// make an int64 array of it: all booleans (a bool array), a value beyond
// int64 (uint64 or float64), ragged nesting or more than MAX_RANK levels.
// Booleans among integers count as 0 and 1; a list without leaves ([],
// [[]]) is an empty integer array, as NumPy reads an empty index.
const MAX_RANK = 32;
function inlineIndices(list) {
  const shape = [];
  for (let l = list; Array.isArray(l); l = l[0]) {
    shape.push(l.length);
    if (shape.length > MAX_RANK) return null;
    if (l.length === 0) break;
  }
  const values = [];
  let ints = 0;
  const walk = (l, depth) => {
    if (depth === shape.length) {
      if (Array.isArray(l)) return false;
      if (l.n < INT64_MIN || l.n > INT64_MAX) return false;
      if (l.kind === 'int') ints++;
      values.push(l.n);
      return true;
    }
    if (!Array.isArray(l) || l.length !== shape[depth]) return false;
    return l.every((e) => walk(e, depth + 1));
  };
  if (!walk(list, 0)) return null;
  if (values.length > 0 && ints === 0) return null;
  return { shape, values: BigInt64Array.from(values) };
}

// gatherLowering returns how a converter writes a getitem subscript with
// index arrays as ONNX Gather, or null when it is not one of those: exactly
// one integer index array (an input of the case of an integer dtype, or an
// inline integer list), every other item a full slice ':' or an ellipsis
// (at most one), no new axis and no integer. The array is cast to int64 (a
// uint64 beyond int64 wraps, as ONNX's Cast does) and the axis is the
// dimension it indexes. NumPy puts a single index array's dimensions where
// it stands, Gather at its axis: the same shape.
function gatherLowering(items, inputs) {
  const arrays = items.filter((it) => it.kind === 'array');
  if (arrays.length !== 1) return null;
  if (items.filter((it) => it.kind === 'ellipsis').length > 1) return null;
  const full = (it) => it.kind === 'slice' && it.start === null && it.stop === null && it.step === null;
  if (!items.every((it) => it.kind === 'array' || it.kind === 'ellipsis' || full(it))) return null;
  const it = arrays[0];
  let shape;
  let values;
  if (it.name !== undefined) {
    const a = inputs[it.name];
    if (a.kind !== 'i' && a.kind !== 'u') return null;
    shape = a.shape;
    values = int64Values(a);
  } else if (it.list !== undefined) {
    const l = inlineIndices(it.list);
    if (l === null) return null;
    ({ shape, values } = l);
  } else {
    return null; // True, False
  }
  const rank = inputs.x.shape.length;
  const used = items.filter((e) => e.kind !== 'ellipsis').length;
  if (used > rank) {
    throw invalid(`conversion: too many indices for array: array is ${rank}-dimensional, but ${used} were indexed`);
  }
  let axis = 0;
  for (const e of items) {
    if (e === it) break;
    axis += e.kind === 'ellipsis' ? rank - used : 1;
  }
  return { axis, shape, values };
}

// getitemGather runs a getitem subscript with index arrays as Gather
// (see gatherLowering); any other is skipped. A 0-d index array that is
// the only item on a 1-d input is NumPy's scalar rule (NumPy reads a 0-d
// integer array as an integer), as for basic indexing.
function getitemGather(items, inputs) {
  const low = gatherLowering(items, inputs);
  if (low === null) {
    const skip = req.advancedSkip(items, 'the ORT oracle');
    throw new Skip(skip.message.replace(/runs basic indexing only$/,
      'runs basic indexing (Slice, Squeeze, Unsqueeze) and one integer index array among full slices and an ellipsis (Gather) only'), skip.code);
  }
  const ix = { elem: DT.int64, tensor: new ort.Tensor('int64', low.values, low.shape) };
  const out = gatherGraph('Gather', inputs.x, ix, low.shape.length, low.axis);
  if (items.length !== 1 || low.shape.length !== 0 || inputs.x.shape.length !== 1) return out;
  return Promise.resolve(out).then(asNumPyScalar);
}

// stridedGraph expands sparse entries to one entry per input dim by TF's
// rules (an implicit trailing ellipsis; the ellipsis covers the dims the
// entries after it leave) and writes them as ONNX: Slice with one entry per
// dim (a masked begin as 0 / INT64_MAX and a masked end as INT64_MAX /
// INT64_MIN for a positive / negative stride, ellipsis dims as 0 to
// INT64_MAX; a shrink entry k as k to k+1, or -1 to INT64_MAX, with its
// stride), then Squeeze of the shrink dims and Unsqueeze at the output
// positions of the new axes.
function stridedGraph(entries, a) {
  const rank = a.shape.length;
  let ell = entries.findIndex((e) => e.kind === 'ellipsis');
  if (ell < 0) {
    entries = entries.concat([{ kind: 'ellipsis' }]);
    ell = entries.length - 1;
  }
  const newAfter = entries.slice(ell + 1).filter((e) => e.kind === 'newaxis').length;
  const starts = [];
  const ends = [];
  const steps = [];
  const squeeze = [];
  const outputs = []; // per output axis: 'dim' or 'new'
  let full = 0;
  entries.forEach((e, i) => {
    switch (e.kind) {
      case 'ellipsis': {
        const next = Math.min(rank, rank - (entries.length - i) + 1 + newAfter);
        for (; full < next; full++) {
          starts.push(0n);
          ends.push(INT64_MAX);
          steps.push(1n);
          outputs.push('dim');
        }
        break;
      }
      case 'newaxis':
        outputs.push('new');
        break;
      default:
        if (full === rank) {
          throw invalid(`conversion: index out of range using input dim ${full}; input has only ${rank} dims`);
        }
        if (e.kind === 'shrink') {
          starts.push(e.begin);
          ends.push(e.begin === -1n ? INT64_MAX : BigInt.asIntN(64, e.begin + 1n));
          steps.push(e.stride);
          squeeze.push(BigInt(full));
        } else {
          const fwd = e.stride > 0n;
          starts.push(e.beginMasked ? (fwd ? 0n : INT64_MAX) : e.begin);
          ends.push(e.endMasked ? (fwd ? INT64_MAX : INT64_MIN) : e.end);
          steps.push(e.stride);
          outputs.push('dim');
        }
        full++;
    }
  });
  const unsqueeze = [];
  outputs.forEach((o, i) => {
    if (o === 'new') unsqueeze.push(BigInt(i));
  });
  const x = toOrt(a);
  const nodes = [node('Slice', ['data', 'starts', 'ends', '', 'steps'], [squeeze.length || unsqueeze.length ? 'sliced' : 'out'])];
  const inputs = [['data', x.elem, rank], ['starts', DT.int64, 1], ['ends', DT.int64, 1], ['steps', DT.int64, 1]];
  const feeds = { data: x.tensor, starts: i64(starts), ends: i64(ends), steps: i64(steps) };
  if (squeeze.length) {
    nodes.push(node('Squeeze', ['sliced', 'squeeze_axes'], [unsqueeze.length ? 'squeezed' : 'out']));
    inputs.push(['squeeze_axes', DT.int64, 1]);
    feeds.squeeze_axes = i64(squeeze);
  }
  if (unsqueeze.length) {
    nodes.push(node('Unsqueeze', [squeeze.length ? 'squeezed' : 'sliced', 'unsqueeze_axes'], ['out']));
    inputs.push(['unsqueeze_axes', DT.int64, 1]);
    feeds.unsqueeze_axes = i64(unsqueeze);
  }
  const g = {
    key: `Strided|${x.elem}|${rank}|${squeeze.length > 0}|${unsqueeze.length > 0}`,
    nodes,
    inputs,
    outElem: x.elem,
    feeds,
  };
  return runGraph(g, a, x.mode);
}

// MAX_DIM is the largest tensor dimension onnxruntime-node's binding
// takes ("Tensor.dims[i] is invalid" beyond it; beyond 2^53 its Tensor
// refuses the number first).
const MAX_DIM = 2 ** 32 - 1;

function run(spec, inputs) {
  req.skipHugeDims(inputs, MAX_DIM, 'the 2^32-1 onnxruntime-node takes');
  switch (spec.op) {
    case 'onnx_slice': return onnxSlice(spec, inputs);
    case 'onnx_gather_nd': return onnxGatherND(spec, inputs);
    case 'onnx_gather': return gatherOp('Gather', inputs.data, inputs.indices, spec.axis);
    case 'onnx_gather_elements': return gatherOp('GatherElements', inputs.data, inputs.indices, spec.axis);
    case 'slice': return tfSlice(spec, inputs);
    case 'gather_nd': return tfGatherND(spec, inputs);
    case 'strided_slice': return stridedGraph(tfEntries(spec), inputs.x);
    case 'getitem': {
      if (!OPS.includes('getitem')) throw new Skip('getitem needs the TF.js oracle\'s subscript parser (oracle/node_modules)', 'no-parser');
      const rank = inputs.x.shape.length;
      const items = req.parseSubscript(spec.index, /TF\.js/g, inputs);
      req.checkSubscriptNames(items, inputs);
      if (items.some((it) => it.kind === 'array')) return getitemGather(items, inputs);
      const entries = getitemEntries(items, rank);
      const out = stridedGraph(entries, inputs.x);
      if (entries.length !== rank || entries.some((e) => e.kind !== 'shrink')) return out;
      return Promise.resolve(out).then(asNumPyScalar);
    }
  }
  throw bad(`unknown op "${spec.op}"`);
}

// ------------------------------------------------------------ protocol

async function respond(line) {
  const c = req.request('ort', line, json.parse);
  if (c === null) return null;
  const id = json.stringify(c.id);
  try {
    const spec = parseSpec(c);
    const inputs = req.loadInputs(c, spec.op, OP_INPUTS);
    return req.output(id, await run(spec, inputs));
  } catch (e) {
    return req.failure('ort', id, e);
  }
}

// Requests run a few at a time (ONNX Runtime sessions are safe to run
// concurrently); responses go out as they are ready, in any order.
const MAX_IN_FLIGHT = 8;

function main() {
  process.stdout.write(JSON.stringify({
    hello: {
      name: 'ort',
      version: ORT_VERSION,
      ops: OPS,
      notes: {
        onnx: 'ONNX Slice-13 and GatherND-13 on the CPU execution provider; every operand a graph input',
        tf_ops: 'slice, strided_slice, getitem and gather_nd as a converter writes them in ONNX ' +
          '(Slice + Squeeze + Unsqueeze; getitem with one integer index array among full slices and an ' +
          'ellipsis as Gather; GatherND with int64 indices)',
        dtypes: 'numeric and bool run natively; S/U as string tensors when representable; ' +
          'complex and other strings as int64 element positions',
      },
    },
  }) + '\n');
  const queue = [];
  let inFlight = 0;
  let ended = false;
  const pump = () => {
    while (inFlight < MAX_IN_FLIGHT && queue.length > 0) {
      const line = queue.shift();
      inFlight++;
      respond(line).then((r) => {
        if (r !== null) process.stdout.write(r);
      }, (e) => {
        process.stderr.write(`ort oracle: ${e && e.stack}\n`);
      }).finally(() => {
        inFlight--;
        pump();
      });
    }
    if (ended && inFlight === 0 && queue.length === 0) process.stdout.end();
  };
  req.readLines((lines) => {
    for (const line of lines) queue.push(line);
    pump();
  }, (last) => {
    for (const line of last) queue.push(line);
    ended = true;
    pump();
  });
}

if (require.main === module) {
  try {
    main();
  } catch (e) {
    process.stderr.write(`ort oracle: cannot start: ${e && e.stack}\n`);
    process.exit(1);
  }
} else {
  module.exports = { respond, parseSpec, ERROR_KINDS };
}

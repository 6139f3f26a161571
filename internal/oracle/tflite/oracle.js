#!/usr/bin/env node
// conform/1 oracle backed by TensorFlow Lite's own C++ interpreter and
// kernels, compiled to WebAssembly: the emscripten build that
// @tensorflow/tfjs-tflite (version pinned in ../package.json) ships in its
// wasm/ directory, loaded directly (./runtime.js); none of tfjs-tflite's
// JavaScript and none of TensorFlow.js runs.
//
// It reads one JSON request per line on stdin and writes one JSON response
// per request on stdout, after a hello line; see "Protocol conform/1" in
// the project's design notes and ../README.md.
//
// Every case is a one-op .tflite model written here (./model.js,
// ./flatbuf.js) and run in the interpreter; models are cached by spec,
// input dtype and shapes, so a repeated spec only feeds new data.
//   strided_slice  STRIDED_SLICE: begin/end/strides as constant int32
//                  tensors, the five masks as StridedSliceOptions
//   getitem        TF's Python x[...] encoding (_slice_helper in
//                  tensorflow/python/ops/array_ops.py) run as
//                  strided_slice; the subscript is parsed by the TF.js
//                  oracle's parser, which follows internal/expr
//   slice          SLICE (TFLite's own tf.slice kernel, what a converter
//                  writes for tf.slice): begin/size as constant int32
//                  tensors, int64 if a value does not fit
//   gather_nd      GATHER_ND (batch_dims 0), indices as int32
//   gather         GATHER with GatherOptions {axis, batch_dims}, indices
//                  as int32 (see gather below)
// The answer is what TFLite does: an output, or TFLite's refusal (from
// Prepare, when the interpreter is built, or from Invoke) mapped to an
// error kind by its message (ERROR_KINDS below, table in ../README.md).
//
// Dtypes. An input runs as its real TFLite type when the kernel has it
// and the web API can feed and read it: bool, int8, uint8, int16, int32,
// float32 (not bool for GATHER_ND), either byte order (big-endian data is
// byte-swapped into the little-endian WebAssembly heap and back). int64,
// which the kernels have but whose typed-array views the web API does
// not provide, runs as an int32 tensor of element positions: slicing and
// gathering move elements without looking at them (one C++ template per
// element type, the same index logic), so the positions that come back
// name the input elements TFLite picked, and the output is their bytes.
// A dtype the kernels lack (float16, float64, uint16/32/64, complex, S,
// U, bool for GATHER_ND) is skipped with the reason (kernelType).
// The position tensor also runs next to every real-typed run, as a second
// operator of the same model, with positions that start at an offset
// drawn from a hash of the input: when an output position is not one of
// the input's, TFLite read outside its input without raising an error
// (its SLICE does not check a negative begin, its STRIDED_SLICE reads one
// element past the end for an out-of-range shrink index). Such a case,
// and an output with a negative dimension, is answered as a crash: the
// values TFLite returned are whatever the heap held.
//
// Skipped, with the reason: what TFLite cannot express (more than 5
// dimensions, counting added axes, as TFLite itself reports; begin, end
// or strides beyond int32 for STRIDED_SLICE, which takes int32 only; a
// mask bit at position 32 or above that TF would not ignore; index values
// beyond int32; gather_nd with batch_dims != 0 or bad_indices "zero"),
// and gather_nd outputs beyond MAX_OUTPUT_ELEMENTS.
//
// Answered as a crash without running (the message says "not run"):
// specs TFLite accepts and then gets wrong in a way that would make its
// answer chance or hang the oracle, as runs of them did: specs whose
// expansion makes STRIDED_SLICE read past the input shape or the spec
// (replayed in stridedSliceReads), SLICE begin/size shorter than the rank
// (not checked, read past), and strides whose product with the input
// size overflows int32 (TFLite's index arithmetic wraps: traps, or loops
// of about 2^32 steps). Where TFLite would refuse the spec first (more
// than 5 dimensions), they are skips.
//
// A trap inside the WebAssembly module (an out-of-bounds memory access or
// an abort) makes the instance unusable: a fresh one is made from the
// compiled module, and the case is answered {"id": N, "crash": "..."},
// the protocol's answer for a case the child failed on: conform records a
// crash of that case and keeps the oracle running.
'use strict';

const req = require('../request');

req.quietConsole(); // keep stdout for the protocol

const json = require('../ort/json');
const npy = require('../npy');
const model = require('./model');
const { Runtime, Trap, ModelError, OracleError, version, VARIANT } = require('./runtime');

const { TT } = model;
const { INT32_MIN, INT32_MAX, MASKS, CaseError, Skip, bad, has } = req;
const { swapped } = npy;
const MAX_OUTPUT_ELEMENTS = 1 << 24; // gather_nd outputs beyond this are skipped

const { ONNX_OPS } = req; // the ONNX ops are conform's, not TFLite's
const OP_INPUTS = req.CLASSIC_INPUTS;
// Crash is a case on which TFLite failed without raising an error: it
// returned an invalid tensor, or values read from outside its input. The
// answer is {"id": N, "crash": "...", "code": "..."}, like a trap's; code
// is the reason as a code (oracle/README.md lists them).
class Crash extends Error {
  constructor(message, code) {
    super(message);
    this.code = code;
  }
}

// getitem subscripts are parsed by the TF.js oracle's parser (../request.js).
const OPS = ['strided_slice', 'slice', 'gather_nd', 'gather'].concat(req.haveSubscriptParser() ? ['getitem'] : []);

const OP_FIELDS = Object.fromEntries(OPS.concat(['getitem']).map((op) => [op, req.ALL_FIELDS[op]]));

// ------------------------------------------------------------ case fields

// mask reads a strided_slice mask: {int} for an integer bitmask, {list}
// for a list of 0/1.
function mask(c, name) {
  const m = req.mask(c, name);
  return m === null ? { int: 0n } : m;
}

function parseSpec(c) {
  const op = req.caseOp(c);
  if (ONNX_OPS.includes(op)) throw new Skip(`op ${op} is not run by the TFLite oracle (it runs ${OPS.join(', ')})`, 'unsupported-op');
  req.checkFields(c, op, OP_FIELDS);
  const spec = { op };
  if (op === 'gather') {
    spec.batch_dims = req.batchDims(c);
    spec.axis = req.axis(c, spec.batch_dims); // tf.gather: axis defaults to batch_dims
    spec.bad_indices = req.badIndices(c);
    return spec;
  }
  req.classicSpec(c, spec, mask);
  return spec;
}

// int32 converts spec values for TFLite's int32 tensors and options.
function int32(list, what) {
  return list.map((v, i) => {
    if (v < INT32_MIN || v > INT32_MAX) {
      throw new Skip(`${what}[${i}] = ${v} does not fit TFLite's int32 ${what} tensor`, 'int32-limit');
    }
    return Number(v);
  });
}

// maskBits lists the positions of the set bits of a mask (an integer as
// req.mask gives it: within int32 its 32-bit pattern, beyond int32 its
// 64-bit two's complement).
function maskBits(m) {
  const out = [];
  if (m.list !== undefined) {
    m.list.forEach((e, i) => {
      if (e === 1n) out.push(i);
    });
    return out;
  }
  const u = BigInt.asUintN(64, m.int);
  for (let i = 0; i < 64; i++) {
    if ((u >> BigInt(i)) & 1n) out.push(i);
  }
  return out;
}

// mask32 converts a mask for StridedSliceOptions (int32 fields) of a spec
// of n entries. Bits 0-31 go as they are (bit 31 as the sign bit). A bit
// at 32 or above cannot be written: it is dropped where TF ignores it (a
// position past the spec, except a second ellipsis bit, which TF counts),
// and the case is skipped otherwise.
function mask32(m, name, n) {
  if (m.list === undefined && m.int >= 0n && m.int <= INT32_MAX) return Number(m.int); // bits 0-30 only
  const bits = maskBits(m);
  let v = 0;
  for (const i of bits) {
    if (i < 32) {
      v |= 1 << i;
    } else if (i < n) {
      throw new Skip(`${name} sets bit ${i} (spec entry ${i}); TFLite's masks are 32-bit integers`, 'int32-limit');
    } else if (name === 'ellipsis_mask' && bits.length > 1) {
      throw new Skip(`ellipsis_mask sets bit ${i} besides another (TF counts both as ellipses); ` +
        'TFLite\'s masks are 32-bit integers', 'int32-limit');
    }
  }
  return v;
}

// ------------------------------------------------------------ tensors

// TFLite types the kernels run for real, by NumPy kind + size.
const REAL = { b1: TT.BOOL, i1: TT.INT8, u1: TT.UINT8, i2: TT.INT16, i4: TT.INT32, f4: TT.FLOAT32 };
// GATHER_ND has no bool params.
const REAL_GATHER = new Set(['i1', 'u1', 'i2', 'i4', 'f4']);

function realType(a, gather) {
  const key = a.kind + a.size;
  if (!has(REAL, key) || (gather && !REAL_GATHER.has(key))) return null;
  return REAL[key];
}

// kernelType checks that TFLite's kernel has a's dtype: the REAL ones,
// and int64, which the kernels have but the web API cannot read (it runs
// as positions). Any other dtype (float16, float64, uint16/32/64,
// complex, S, U, and bool for GATHER_ND) is skipped: TFLite cannot run
// it, and positions would report index logic as if it could.
function kernelType(a, gather) {
  const key = a.kind + a.size;
  if (realType(a, gather) !== null || key === 'i8') return;
  const [kernel, types] = gather ?
    ['GATHER_ND', 'int8, uint8, int16, int32, int64 and float32 params'] :
    ['STRIDED_SLICE and SLICE', 'bool, int8, uint8, int16, int32, int64 and float32'];
  throw new Skip(`TFLite's ${kernel} kernels have no ${a.descr} type (they run ${types})`, 'unsupported-dtype');
}

// positions returns int32 little-endian bytes base, base+1, ... for the
// elements of a, and the base: an offset drawn from a hash of the input
// (so that answers are the same on every run), far from small numbers,
// so that a value TFLite read from outside the tensor is not mistaken for
// one of them.
function positions(a) {
  const n = a.count;
  if (n > 0x7fffffff - (1 << 22)) throw new Skip(`${n} elements do not fit int32 positions`, 'int32-limit');
  let h = 0x811c9dc5; // FNV-1a over the shape and the bytes
  const feed = (byte) => { h = Math.imul(h ^ byte, 0x01000193) >>> 0; };
  for (const d of a.shape) for (const ch of String(d) + ',') feed(ch.charCodeAt(0));
  for (let i = 0; i < a.data.length; i++) feed(a.data[i]);
  const base = (1 << 20) + (h % (0x7fffffff - (1 << 21) - n));
  const b = Buffer.alloc(4 * n);
  for (let i = 0; i < n; i++) b.writeInt32LE(base + i, 4 * i);
  return { bytes: b, base };
}

// Operand is how one data input runs: types (the TFLite types of the
// model's data inputs: the real type if any, then INT32 positions) and
// their feeds.
function dataOperand(a, gather) {
  const real = realType(a, gather);
  const pos = positions(a);
  const types = [];
  const feeds = [];
  if (real !== null) {
    types.push(real);
    feeds.push(a.big ? swapped(a.data, a.size) : a.data);
  }
  types.push(TT.INT32);
  feeds.push(pos.bytes);
  return { a, real, base: pos.base, types, feeds };
}

// result turns the model's outputs (one per data input) into .npy bytes
// of a's dtype.
function result(op, outs) {
  const a = op.a;
  const posOut = outs[outs.length - 1];
  const shape = posOut.shape;
  const n = shape.reduce((x, y) => x * y, 1);
  if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0) || posOut.bytes.length !== 4 * n) {
    throw new Crash(`TFLite returned an invalid tensor (no error raised): shape [${shape}] with ${posOut.bytes.length} bytes`, 'invalid-tensor');
  }
  const p = new DataView(posOut.bytes.buffer, posOut.bytes.byteOffset, posOut.bytes.byteLength);
  const picked = Buffer.alloc(n * a.size);
  for (let i = 0; i < n; i++) {
    const k = p.getInt32(4 * i, true) - op.base;
    if (!(k >= 0 && k < a.count)) {
      throw new Crash(`TFLite read outside its input (no error raised): output element ${i} of shape [${shape}] ` +
        `is not one of the ${a.count} input elements (read from outside the input, or never written); ` +
        'its values are whatever the heap held', 'read-outside');
    }
    a.data.copy(picked, i * a.size, k * a.size, (k + 1) * a.size);
  }
  if (op.real === null) return npy.encode(a.descr, shape, picked);
  const realOut = outs[0];
  if (realOut.shape.join(',') !== shape.join(',') || realOut.bytes.length !== picked.length) {
    // The two operators of one model computed different shapes from the
    // same spec: TFLite read memory it never wrote.
    throw new Crash(`TFLite's answer is chance (no error raised): the ${a.descr} run gave shape [${realOut.shape}] and the positions ` +
      `run [${shape}] for the same spec (uninitialised memory)`, 'chance');
  }
  let bytes = Buffer.from(realOut.bytes.buffer, realOut.bytes.byteOffset, realOut.bytes.byteLength);
  if (a.big) bytes = swapped(bytes, a.size);
  if (!bytes.equals(picked)) {
    process.stderr.write(`tflite oracle: the ${a.descr} run and the positions run picked different elements; reporting the ${a.descr} run\n`);
  }
  return npy.encode(a.descr, shape, bytes);
}

// ------------------------------------------------------------ errors

// TFLite's messages (kernels strided_slice.cc, slice.cc, gather_nd.cc;
// core/subgraph.cc) and the kind each maps to. Keep in step with the table
// in ../README.md.
const ERROR_KINDS = [
  [/stride value has to be non-zero/, 'invalid_spec'],
  [/NumElements\(op_context\.begin\) != NumElements\(op_context\.end\)/, 'invalid_spec'],
  [/NumElements\(begin\) != NumElements\(size\)/, 'invalid_spec'],
  [/^Invalid size\.?$/, 'out_of_range'],
  [/^Invalid begin and size\.?$/, 'out_of_range'],
  [/BytesRequired number of (bytes|elements) overflowed/, 'out_of_range'],
  [/gather_nd index out of bounds/, 'out_of_range'],
  [/indices_has_only_positive_elements was not true/, 'out_of_range'],
  [/\(NumElements\(params\) == 0 && NumElements\(indices\) == 0\) \|\| NumElements\(params\) > 0 was not true/, 'out_of_range'],
  [/Index innermost dimension length must be <= params rank/, 'invalid_spec'],
  [/Indices must be at least a vector/, 'invalid_spec'],
  [/Params must be at least a vector/, 'invalid_spec'],
  [/Indices of type '[^']*' are not supported by gather_nd/, 'bad_input'],
  [/Params of type '[^']*' are not supported by gather_nd/, 'bad_input'],
  [/Type \S+ is currently not supported by (StridedSlice|Slice)/, 'bad_input'],
  // GATHER (gather.cc): indices_has_only_positive_elements above is its
  // check of negative indices too.
  [/gather index out of bounds/, 'out_of_range'],
  [/0 <= axis && axis < NumDimensions\(input\) was not true/, 'invalid_spec'],
  [/0 <= batch_dims && batch_dims < NumDimensions\(input\) was not true/, 'invalid_spec'],
  [/batch_dims <= NumDimensions\(positions\) was not true/, 'invalid_spec'],
  [/batch_dims <= axis was not true/, 'invalid_spec'],
  [/input->dims->data\[\w+\] != positions->dims->data\[\w+\]/, 'invalid_spec'],
  [/Positions of type '[^']*' are not supported by gather/, 'bad_input'],
  [/Type '[^']*' is not supported by gather/, 'bad_input'],
];

// What TFLite says it cannot do at all: skipped.
const CANNOT = [
  /StridedSlice op only supports 1D-5D input arrays/,
  /StridedSlice op only supports up to 5D output including added axis/,
  /Slice op only supports 1D-5D input arrays/,
];

function mapError(e) {
  const msg = e.message.replace(/\s+/g, ' ').trim();
  for (const re of CANNOT) {
    if (re.test(msg)) return new Skip(`TFLite cannot run this: ${msg}`, 'unsupported-rank');
  }
  for (const [re, kind] of ERROR_KINDS) {
    if (re.test(msg)) return new CaseError(kind, `TFLite (${e.stage}): ${msg}`);
  }
  process.stderr.write(`tflite oracle: unrecognised TFLite error (${e.stage}): ${msg}\n`);
  return new CaseError('invalid_spec', `unrecognised TFLite error (${e.stage}): ${msg}`);
}

// ------------------------------------------------------------ ops

let runtime = null;

function rt() {
  if (runtime === null) runtime = new Runtime();
  return runtime;
}

function runModel(key, build, feeds) {
  try {
    return rt().run(key, build, feeds);
  } catch (e) {
    if (e instanceof ModelError) throw mapError(e);
    throw e;
  }
}

function shapeKey(s) {
  return s.join(',');
}

// stridedSliceReads replays what BuildStridedSliceParams in TFLite's
// strided_slice.cc (this build) reads while it expands a spec of n
// entries (masks m) over an input of rank dims (at most 5, which Prepare
// checks first), and returns a description of the first read outside the
// input's shape or outside the begin/end/strides tensors (strides has
// nStrides entries), or null. Such reads take whatever memory holds: the
// output shape is not TFLite's answer to the spec but chance. The shifts
// are 32-bit as in WebAssembly (1 << 33 is 2).
function stridedSliceReads(rank, n, nStrides, m) {
  const ell = m.ellipsis_mask;
  const na = m.new_axis_mask;
  let added = 0;
  for (let i = 0; i < n; i++) {
    if (!((1 << i) & ell) && ((1 << i) & na)) added++;
  }
  const dims = rank + added;
  if (dims > 5) return null; // TFLite then refuses the spec ("up to 5D output")
  let effEll = 0;
  let effNew = 0;
  let ellStart = dims;
  let expanded = 0;
  for (let i = 0; i < dims;) {
    if ((1 << i) & ell) {
      ellStart = i;
      const ellEnd = Math.max(i + 1, Math.min(i + 1 + added + rank - n, dims));
      expanded = ellEnd - ellStart - 1;
      for (; i < ellEnd; ++i) effEll |= 1 << i;
      continue;
    }
    if ((1 << (i - expanded)) & na) effNew |= 1 << i;
    ++i;
  }
  let addedEll = 0;
  let addedAxes = 0;
  for (let i = 0; i < dims; ++i) {
    let dim = i - addedAxes;
    if ((1 << i) & effEll) {
      addedEll = Math.max(0, i - ellStart);
    } else if ((1 << i) & effNew) {
      addedAxes++;
      dim = null;
    } else if (i < n + expanded) {
      const k = i - addedEll;
      if (k < 0 || k >= n) return `spec entry ${k} of ${n}`;
      if (k >= nStrides) return `strides entry ${k} of ${nStrides}`;
    }
    if (dim !== null && (dim < 0 || dim >= rank)) return `dimension ${dim} of an input of rank ${rank}`;
  }
  return null;
}

// stridedSlice runs TF's StridedSlice spec s (BigInt values, mask
// objects) on x.
function stridedSlice(s, x) {
  const n = s.begin.length;
  const stridesIn = s.strides === null ? s.begin.map(() => 1n) : s.strides;
  const begin = int32(s.begin, 'begin');
  const end = int32(s.end, 'end');
  const strides = int32(stridesIn, 'strides');
  const m = {};
  for (const k of MASKS) m[k] = mask32(s[k], k, n);
  const rank = x.shape.length;
  // Prepare refuses a rank above 5, more than 5 output dimensions and
  // begin and end of different lengths before it looks further; a spec
  // that passes those checks and that TFLite then gets wrong without an
  // error is answered as a crash without running it (its answer would be
  // chance, or take minutes).
  let added = 0;
  for (let i = 0; i < Math.min(n, 32); i++) if ((m.new_axis_mask >>> i) & 1) added++;
  const prepared = rank <= 5 && rank + added <= 5 && end.length === n;
  strides.forEach((st, i) => {
    if (Math.abs(st) * Math.max(1, x.count) >= 2 ** 31) {
      // Seen: traps (out-of-bounds reads) and loops of about 2^32 steps
      // that take seconds to minutes, with strides such as 2^30 or 2^31-1
      // on inputs of a few elements.
      const msg = `strides[${i}] = ${st} on an input of ${x.count} elements: TFLite's int32 index arithmetic ` +
        'overflows (out-of-bounds reads, or loops of about 2^32 steps)';
      if (prepared) throw new Crash(`TFLite fails on this spec without an error (not run): ${msg}`, 'not-run-stride-overflow');
      throw new Skip(msg, 'not-run-stride-overflow');
    }
  });
  if (prepared) {
    const read = stridedSliceReads(rank, n, strides.length, m);
    if (read !== null) {
      throw new Crash(`TFLite fails on this spec without an error (not run): it reads past its operands (${read}): ` +
        'STRIDED_SLICE\'s expansion of the spec reads uninitialised memory, so its answer would be chance',
        'not-run-reads-past');
    }
  }
  const d = dataOperand(x, false);
  const key = `ss|${d.types}|${shapeKey(x.shape)}|${begin}|${end}|${strides}|${MASKS.map((k) => m[k])}`;
  // With several ellipsis bits (which TFLite does not refuse) STRIDED_SLICE
  // answers, but leaves the heap corrupted: later, unrelated cases trapped
  // in a random order of every mask combination. The instance is made anew
  // after such a spec, so that no other case depends on it.
  try {
    return result(d, runModel(key, () => model.stridedSlice(d.types, x.shape, begin, end, strides, m), d.feeds));
  } finally {
    if (m.ellipsis_mask & (m.ellipsis_mask - 1)) rt().reset();
  }
}

// encodeIndex encodes getitem items as TF's Python __getitem__ does
// (_slice_helper): a:b:c -> begin a (or 0 and a begin_mask bit), end b
// (or 0 and an end_mask bit), stride c (or 1); ... -> an ellipsis_mask
// bit; None -> a new_axis_mask bit; an integer k -> begin k, end k+1,
// stride 1 and a shrink_axis_mask bit.
function encodeIndex(items) {
  const s = { begin: [], end: [], strides: [] };
  const bits = {};
  for (const k of MASKS) bits[k] = [];
  items.forEach((it, i) => {
    let b = 0n;
    let e = 0n;
    let st = 1n;
    const set = (k) => {
      while (bits[k].length <= i) bits[k].push(0n);
      bits[k][i] = 1n;
    };
    switch (it.kind) {
      case 'slice':
        if (it.start === null) set('begin_mask'); else b = it.start;
        if (it.stop === null) set('end_mask'); else e = it.stop;
        if (it.step !== null) st = it.step;
        break;
      case 'ellipsis':
        set('ellipsis_mask');
        break;
      case 'newaxis':
        set('new_axis_mask');
        break;
      default:
        b = it.n;
        e = it.n + 1n;
        set('shrink_axis_mask');
    }
    s.begin.push(b);
    s.end.push(e);
    s.strides.push(st);
  });
  for (const k of MASKS) s[k] = { list: bits[k] };
  return s;
}

// getitem runs the subscript as TF's encoding does, and gives its result
// the dtype NumPy gives it (getitem's contract is NumPy's, and TFLite
// has no byte order): an index of one integer per input dimension and
// nothing else makes NumPy return a scalar, whose np.asarray is in native
// (little-endian) byte order. Only numbers of up to 8 bytes get here
// (kernelType skips S and U, whose scalars also change width, and
// complex), so the rule is: a big-endian input's result is byte-swapped
// to little-endian.
function getitem(index, inputs) {
  const x = inputs.x;
  const items = req.parseSubscript(index, /TF\.js('s)?/g, inputs);
  req.checkSubscriptNames(items, inputs);
  const adv = req.advancedSkip(items, "the TFLite oracle (TF's x[...] encoding on STRIDED_SLICE)");
  if (adv !== null) throw adv;
  const out = stridedSlice(encodeIndex(items), x);
  const scalar = items.length === x.shape.length && items.every((it) => it.kind === 'int');
  if (!scalar || !x.big) return out;
  const r = npy.decode(out);
  return npy.encode(`<${r.kind}${r.n}`, r.shape, swapped(r.data, r.size));
}

// slice runs tf.slice as TFLite's SLICE.
function slice(s, x) {
  const rank = x.shape.length;
  if (s.begin.length === s.size.length && s.begin.length < rank) {
    // SLICE checks begin against size, and reads both for every input
    // dimension.
    const msg = `begin and size have ${s.begin.length} entries for an input of rank ${rank}: TFLite does not check ` +
      'their length against the rank and would read past them';
    if (rank <= 5) throw new Crash(`TFLite fails on this spec without an error (not run): ${msg}`, 'not-run-short-spec');
    throw new Skip(msg, 'not-run-short-spec');
  }
  const fits = (v) => v >= INT32_MIN && v <= INT32_MAX;
  const wide = !(s.begin.every(fits) && s.size.every(fits));
  const d = dataOperand(x, false);
  const key = `slice|${d.types}|${shapeKey(x.shape)}|${s.begin}|${s.size}`;
  const begin = wide ? s.begin : s.begin.map(Number);
  const size = wide ? s.size : s.size.map(Number);
  const outs = runModel(key, () => model.slice(d.types, x.shape, begin, size, wide), d.feeds);
  return result(d, outs);
}

// Index types TFLite's GATHER_ND should refuse, for the non-integer index
// dtypes (by NumPy kind + size), with the bytes to feed if it does not.
const INDEX_TYPES = { f2: TT.FLOAT16, f4: TT.FLOAT32, f8: TT.FLOAT64, b1: TT.BOOL, c8: TT.COMPLEX64, c16: TT.COMPLEX128 };


function gatherNd(spec, params, indices) {
  if (spec.batch_dims !== 0n) throw new Skip('TFLite GATHER_ND has no batch_dims (only batch_dims 0 runs)', 'unsupported-spec');
  if (spec.bad_indices !== 'error') throw new Skip('TFLite GATHER_ND has no bad_indices "zero" mode (TF GPU behaviour)', 'unsupported-spec');
  let iType;
  let iFeed;
  if (indices.kind === 'i' || indices.kind === 'u') {
    // Integer indices of any width run as int32 (the web API cannot feed
    // int64 tensors; TFLite's int32 and int64 index paths are one template).
    iType = TT.INT32;
    iFeed = Buffer.alloc(4 * indices.count);
    npy.intValues(indices).forEach((v, i) => {
      if (v < INT32_MIN || v > INT32_MAX) throw new Skip(`index value ${v} does not fit TFLite's int32 indices`, 'int32-limit');
      iFeed.writeInt32LE(Number(v), 4 * i);
    });
  } else {
    // Non-integer indices: a tensor of the nearest TFLite type, which
    // GATHER_ND refuses when the interpreter is built.
    const key = indices.kind + indices.size;
    iType = has(INDEX_TYPES, key) ? INDEX_TYPES[key] : TT.STRING;
    iFeed = null;
  }
  const pr = params.shape.length;
  const ir = indices.shape.length;
  if (pr >= 1 && ir >= 1 && indices.shape[ir - 1] <= pr) {
    const rows = indices.shape.slice(0, ir - 1).reduce((x, y) => x * y, 1);
    const inner = params.shape.slice(indices.shape[ir - 1]).reduce((x, y) => x * y, 1);
    if (rows * inner > MAX_OUTPUT_ELEMENTS) {
      throw new Skip(`output of ${rows * inner} elements is beyond the oracle's limit of ${MAX_OUTPUT_ELEMENTS}`, 'output-limit');
    }
  }
  const d = dataOperand(params, true);
  const key = `gnd|${d.types}|${shapeKey(params.shape)}|${iType}|${shapeKey(indices.shape)}`;
  const build = () => model.gatherNd(d.types, params.shape, iType, indices.shape);
  let outs;
  if (iFeed === null) {
    try {
      outs = rt().run(key, build, d.feeds.concat([Buffer.alloc(0)]));
    } catch (e) {
      if (e instanceof ModelError) throw mapError(e);
      if (e instanceof OracleError) {
        throw new Skip(`TFLite accepted GATHER_ND indices of type ${indices.descr} (not run: ${e.message})`, 'unsupported-dtype');
      }
      throw e;
    }
    throw new Skip(`TFLite accepted GATHER_ND indices of type ${indices.descr}`, 'unsupported-dtype');
  }
  outs = runModel(key, build, d.feeds.concat([iFeed]));
  return result(d, outs);
}

// gatherParamsType checks that GATHER can run params a: bool, int8,
// uint8, int16, int32 and float32 for real, int64 as positions. GATHER
// has string params too, but the web API cannot feed string tensors; the
// other dtypes (float16, float64, uint16/32/64, complex) it lacks.
function gatherParamsType(a) {
  const key = a.kind + a.size;
  if (has(REAL, key) || key === 'i8') return;
  if (a.kind === 'S' || a.kind === 'U') {
    throw new Skip(`TFLite's GATHER has string params, but the web API cannot feed string tensors (${a.descr})`, 'unsupported-dtype');
  }
  throw new Skip(`TFLite's GATHER kernel has no ${a.descr} type (it runs bool, int8, uint8, int16, int32, int64, float32 ` +
    'and string params)', 'unsupported-dtype');
}

// TFLite types of the index dtypes GATHER does not take (by NumPy kind +
// size).
const GATHER_INDEX_TYPES = {
  ...INDEX_TYPES, i1: TT.INT8, i2: TT.INT16, u1: TT.UINT8, u2: TT.UINT16, u4: TT.UINT32, u8: TT.UINT64,
};

// gather runs tf.gather as TFLite's GATHER (what a converter writes):
// axis and batch_dims in GatherOptions (int32 fields; TFLite's Prepare
// checks them and normalises negative ones). GATHER takes int32 and int64
// positions: both run as int32 values (the web API cannot feed int64
// tensors; the two paths are one template). Every other index dtype,
// int8, int16 and the unsigned ones included, goes in the model with its
// own type, and GATHER refuses it in Prepare (bad_input). GATHER refuses
// negative indices and indices past the axis (bad_indices "error", TF's
// CPU behaviour), except that it checks nothing past the axis when the
// output has no elements. It has no "zero" mode: a "zero" case runs, since
// where every index is in range both policies agree, and is skipped where
// TFLite refuses an index.
function gather(spec, params, indices) {
  const axis = int32([spec.axis], 'axis')[0];
  const batchDims = int32([spec.batch_dims], 'batch_dims')[0];
  let iType;
  let iFeed = null;
  const iKey = indices.kind + indices.size;
  if (iKey === 'i4' || iKey === 'i8') {
    iType = TT.INT32;
    iFeed = Buffer.alloc(4 * indices.count);
    npy.intValues(indices).forEach((v, i) => {
      if (v < INT32_MIN || v > INT32_MAX) throw new Skip(`index value ${v} does not fit TFLite's int32 indices`, 'int32-limit');
      iFeed.writeInt32LE(Number(v), 4 * i);
    });
  } else {
    // Any other index type goes in the model as the TFLite type of the
    // same name (the nearest one for strings), which GATHER refuses.
    iType = has(GATHER_INDEX_TYPES, iKey) ? GATHER_INDEX_TYPES[iKey] : TT.STRING;
  }
  const pr = params.shape.length;
  const ir = indices.shape.length;
  const ax = axis < 0 ? axis + pr : axis;
  const bd = batchDims < 0 ? batchDims + ir : batchDims;
  if (ax >= 0 && ax < pr && bd >= 0 && bd <= ir) {
    const n = params.shape.slice(0, ax).concat(indices.shape.slice(bd), params.shape.slice(ax + 1)).reduce((x, y) => x * y, 1);
    if (n > MAX_OUTPUT_ELEMENTS) {
      throw new Skip(`output of ${n} elements is beyond the oracle's limit of ${MAX_OUTPUT_ELEMENTS}`, 'output-limit');
    }
  }
  const d = dataOperand(params, false);
  const key = `gather|${d.types}|${shapeKey(params.shape)}|${iType}|${shapeKey(indices.shape)}|${axis}|${batchDims}`;
  const build = () => model.gather(d.types, params.shape, iType, indices.shape, axis, batchDims);
  if (iFeed === null) {
    try {
      rt().run(key, build, d.feeds.concat([Buffer.alloc(0)]));
    } catch (e) {
      if (e instanceof ModelError) throw mapError(e);
      if (e instanceof OracleError) {
        throw new Skip(`TFLite accepted GATHER indices of type ${indices.descr} (not run: ${e.message})`, 'unsupported-dtype');
      }
      throw e;
    }
    throw new Skip(`TFLite accepted GATHER indices of type ${indices.descr}`, 'unsupported-dtype');
  }
  let outs;
  try {
    outs = runModel(key, build, d.feeds.concat([iFeed]));
  } catch (e) {
    if (spec.bad_indices === 'zero' && e instanceof CaseError && e.kind === 'out_of_range') {
      throw new Skip(`TFLite's GATHER has no bad_indices "zero" mode (TF GPU behaviour); it refused an index: ${e.message}`, 'unsupported-spec');
    }
    throw e;
  }
  return result(d, outs);
}

function run(spec, inputs) {
  // A dtype TFLite's kernel lacks is skipped before anything else.
  if (spec.op === 'gather_nd') kernelType(inputs.params, true);
  else if (spec.op === 'gather') gatherParamsType(inputs.params);
  else kernelType(inputs.x, false);
  req.skipHugeDims(inputs, INT32_MAX, "TFLite's int32 tensor shapes");
  switch (spec.op) {
    case 'strided_slice': return stridedSlice(spec, inputs.x);
    case 'slice': return slice(spec, inputs.x);
    case 'gather_nd': return gatherNd(spec, inputs.params, inputs.indices);
    case 'gather': return gather(spec, inputs.params, inputs.indices);
    case 'getitem':
      if (!OPS.includes('getitem')) throw new Skip('getitem needs the TF.js oracle\'s subscript parser (oracle/node_modules)', 'no-parser');
      return getitem(spec.index, inputs);
  }
  throw bad(`unknown op "${spec.op}"`);
}

// ------------------------------------------------------------ protocol

// parseRequest parses a request line as ../ort/json.js does (an integer
// literal becomes a BigInt, exactly; any other number a Number), taking
// JSON.parse's faster path when no number in the line could be read
// differently: none with a fraction, an exponent or 16 digits or more.
function parseRequest(line) {
  const outside = line.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  if (/[0-9][.eE]|[0-9]{16}/.test(outside)) return json.parse(line);
  return bigInts(JSON.parse(line));
}

function bigInts(v) {
  if (typeof v === 'number') return BigInt(v);
  if (Array.isArray(v)) return v.map(bigInts);
  if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) v[k] = bigInts(v[k]);
  }
  return v;
}

// jsonString is JSON.stringify(s) with every non-ASCII character escaped,
// so that responses can be written as Latin-1 (a byte per character).
function jsonString(s) {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function respond(line) {
  const c = req.request('tflite', line, parseRequest);
  if (c === null) return null;
  const id = json.stringify(c.id).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  try {
    const spec = parseSpec(c);
    const inputs = req.loadInputs(c, spec.op, OP_INPUTS);
    return req.output(id, run(spec, inputs));
  } catch (e) {
    if (e instanceof Crash) return `{"id":${id},"crash":${jsonString(e.message)}${req.withCode(e.code)}}\n`;
    if (e instanceof Trap) {
      const msg = `TFLite trapped (WebAssembly instance re-created): ${e.message}`;
      process.stderr.write(`tflite oracle: request ${id}: ${msg}\n`);
      return `{"id":${id},"crash":${jsonString(msg)}${req.withCode('trap')}}\n`;
    }
    return req.failure('tflite', id, e, jsonString);
  }
}

function main() {
  rt();
  process.stdout.write(JSON.stringify({
    hello: {
      name: 'tflite',
      version: version(),
      ops: OPS,
      notes: {
        runtime: `TensorFlow Lite's interpreter and kernels from @tensorflow/tfjs-tflite ${version()} ` +
          `(wasm/${VARIANT}.wasm), one .tflite model per case`,
        ops: 'strided_slice and getitem (TF\'s _slice_helper encoding) as STRIDED_SLICE, slice as SLICE, ' +
          'gather_nd as GATHER_ND (batch_dims 0), gather as GATHER (axis, batch_dims)',
        dtypes: 'bool, int8, uint8, int16, int32 and float32 run for real (not bool for GATHER_ND); ' +
          'every other dtype runs as int32 element positions',
        crash: 'a WebAssembly trap is answered {"id": N, "crash": "..."} and the instance re-created',
      },
    },
  }) + '\n');
  req.serve(respond, 'latin1');
}

if (require.main === module) {
  try {
    main();
  } catch (e) {
    process.stderr.write(`tflite oracle: cannot start: ${e && e.stack}\n`);
    process.exit(1);
  }
} else {
  module.exports = { respond, parseSpec, ERROR_KINDS, encodeIndex, runtime: rt };
}

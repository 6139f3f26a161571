#!/usr/bin/env node
// conform/1 oracle backed by TensorFlow.js (@tensorflow/tfjs-core with the
// cpu backend, versions pinned in ../package.json).
//
// It reads one JSON request per line on stdin and writes one JSON response
// per request on stdout, after a hello line; see "Protocol conform/1" in
// the project's design notes and ../README.md.
//
// Ops: strided_slice (tf.stridedSlice), slice (tf.slice), gather_nd
// (tf.gatherND). TF.js is a port of TF that diverges from it in corners;
// this program reports exactly what TF.js returns or throws, and maps
// TF.js's error messages to conform's error kinds (table in ../README.md).
//
// Dtypes: TF.js moves int32, bool and string tensors exactly. float32
// data is run as int32 bit patterns (so NaN payloads survive), big-endian
// data is byte-swapped on the way in and out, |S strings are string
// tensors of the raw bytes; every other dtype is skipped.
'use strict';

const util = require('util');

// tfjs writes its greeting with console.log: keep stdout for the protocol.
for (const name of ['log', 'info', 'warn', 'debug', 'error']) {
  console[name] = (...args) => process.stderr.write(util.format(...args) + '\n');
}

const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');

const OPS = ['strided_slice', 'slice', 'gather_nd'];
const ALL_OPS = ['getitem', 'strided_slice', 'slice', 'gather_nd'];
const OP_INPUTS = {
  getitem: ['x'],
  strided_slice: ['x'],
  slice: ['x'],
  gather_nd: ['params', 'indices'],
};
const OP_FIELDS = {
  getitem: ['index'],
  strided_slice: ['begin', 'end', 'strides', 'begin_mask', 'end_mask', 'ellipsis_mask', 'new_axis_mask', 'shrink_axis_mask'],
  slice: ['begin', 'size'],
  gather_nd: ['batch_dims', 'bad_indices'],
};
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_LIMIT = 9223372036854775808; // 2^63 as a double

class CaseError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}
class Skip extends Error {}

const invalid = (msg) => new CaseError('invalid_spec', msg);
const outOfRange = (msg) => new CaseError('out_of_range', msg);
const bad = (msg) => new CaseError('bad_input', msg);

// ------------------------------------------------------------ case fields

function isInt(v) {
  return typeof v === 'number' && Number.isInteger(v) && v >= -INT64_LIMIT && v <= INT64_LIMIT; // 2^63-1 parses as 2^63
}

function ints(c, name, required) {
  if (!(name in c)) {
    if (required) throw bad(`${c.op} case has no "${name}" field`);
    return null;
  }
  const v = c[name];
  if (!Array.isArray(v)) throw bad(`"${name}" must be a list of integers`);
  v.forEach((x, i) => {
    if (!isInt(x)) throw bad(`${name}[${i}] is not an integer within int64`);
  });
  return v;
}

// A mask as TF.js takes it: a 32-bit integer. extraBits counts set bits
// that a 32-bit mask cannot hold (list entries beyond position 31).
function mask(c, name) {
  if (!(name in c)) return 0;
  const v = c[name];
  if (Array.isArray(v)) {
    const list = ints(c, name, true);
    let m = 0;
    list.forEach((e, i) => {
      if (e === 1) {
        if (i > 31) throw new Skip(`${name} sets entry ${i}; TF.js masks are 32-bit integers`);
        m |= 1 << i;
      } else if (e !== 0) {
        throw invalid(`${name}: mask list entry ${i} is ${e}; entries must be 0 or 1`);
      }
    });
    return m;
  }
  if (!isInt(v)) throw bad(`"${name}" must be an integer bitmask or a list of 0/1`);
  if (v < INT32_MIN || v > INT32_MAX) throw new Skip(`${name} ${v} does not fit TF.js's int32 masks`);
  return v;
}

function parseSpec(c) {
  if (!('op' in c)) throw bad('case has no "op" field');
  const op = c.op === null ? '' : c.op;
  if (typeof op !== 'string') throw bad('"op" must be a string');
  if (!Object.prototype.hasOwnProperty.call(OP_FIELDS, op)) throw bad(`unknown op "${op}"`);
  const own = OP_FIELDS[op];
  for (const other of ALL_OPS) {
    if (other === op) continue;
    for (const f of OP_FIELDS[other]) {
      if (f in c && !own.includes(f)) throw bad(`field "${f}" does not apply to op ${op}`);
    }
  }
  const spec = { op };
  if (op === 'getitem') {
    if (!('index' in c)) throw bad('getitem case has no "index" field');
    if (c.index !== null && typeof c.index !== 'string') throw bad('"index" must be a string');
  } else if (op === 'strided_slice') {
    spec.begin = ints(c, 'begin', true);
    spec.end = ints(c, 'end', true);
    spec.strides = ints(c, 'strides', false);
    for (const m of ['begin_mask', 'end_mask', 'ellipsis_mask', 'new_axis_mask', 'shrink_axis_mask']) {
      spec[m] = mask(c, m);
    }
  } else if (op === 'slice') {
    spec.begin = ints(c, 'begin', true);
    spec.size = ints(c, 'size', true);
  } else {
    let b = 0;
    if ('batch_dims' in c) {
      b = c.batch_dims;
      if (!isInt(b)) throw bad('"batch_dims" must be an integer');
      if (b < INT32_MIN || b > INT32_MAX) throw invalid(`batch_dims ${b} is out of range`);
    }
    spec.batch_dims = b;
    const policy = 'bad_indices' in c ? c.bad_indices : 'error';
    if (policy !== 'error' && policy !== 'zero') throw bad('"bad_indices" must be "error" or "zero"');
    spec.bad_indices = policy;
  }
  return spec;
}

function loadInputs(c, op) {
  if (!('inputs' in c)) throw bad('case has no "inputs" field');
  const inputs = c.inputs;
  if (inputs === null || typeof inputs !== 'object' || Array.isArray(inputs)) {
    throw bad('"inputs" must be an object mapping input names to .npy files');
  }
  const want = OP_INPUTS[op];
  for (const name of Object.keys(inputs).sort()) {
    if (!want.includes(name)) throw bad(`op ${op} has no input "${name}"`);
  }
  const out = {};
  for (const name of want) {
    if (!(name in inputs)) throw bad(`op ${op} needs input "${name}"`);
    let v = inputs[name];
    if (v === null) v = '';
    if (typeof v !== 'string') throw bad(`input "${name}" must be a string`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) throw bad(`input "${name}": invalid base64`);
    try {
      out[name] = decodeNpy(Buffer.from(v, 'base64'));
    } catch (e) {
      if (e instanceof CaseError) throw bad(`input "${name}": ${e.message}`);
      throw bad(`input "${name}": npy: ${e.message}`);
    }
  }
  return out;
}

// ------------------------------------------------------------ .npy codec

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // \x93NUMPY

// decodeNpy parses a .npy file into {descr, kind, size, big, shape, data}
// with data in C order (a Buffer of the file's bytes, not swapped).
function decodeNpy(buf) {
  if (buf.length < 10 || !buf.subarray(0, 6).equals(MAGIC)) throw bad('not a .npy file');
  const major = buf[6];
  const minor = buf[7];
  if (major < 1 || major > 3 || minor !== 0) throw bad(`unsupported format version ${major}.${minor}`);
  let hlen;
  let start;
  if (major === 1) {
    hlen = buf.readUInt16LE(8);
    start = 10;
  } else {
    if (buf.length < 12) throw bad('file too short');
    hlen = buf.readUInt32LE(8);
    start = 12;
  }
  if (hlen > 10000 || start + hlen > buf.length) throw bad('bad header length');
  const header = buf.subarray(start, start + hlen).toString(major === 3 ? 'utf8' : 'latin1');
  if (!header.endsWith('\n')) throw bad('header does not end in a newline');
  const dict = header.trim();
  const descrM = /['"]descr['"]\s*:\s*['"]([<>|=]?)([biufcSU])(\d+)['"]/.exec(dict);
  const fortranM = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(dict);
  const shapeM = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(dict);
  if (!descrM || !fortranM || !shapeM || !dict.startsWith('{') || !dict.endsWith('}')) {
    throw bad(`unsupported header ${JSON.stringify(dict.slice(0, 100))}`);
  }
  const [, order, kind, sizeStr] = descrM;
  const n = Number(sizeStr);
  const sizes = { b: [1], i: [1, 2, 4, 8], u: [1, 2, 4, 8], f: [2, 4, 8], c: [8, 16] };
  if (!(n > 0) || (sizes[kind] && !sizes[kind].includes(n)) || sizeStr[0] === '0') {
    throw bad(`unsupported dtype ${order}${kind}${sizeStr}`);
  }
  const size = kind === 'U' ? 4 * n : n;
  const shapeText = shapeM[1].trim();
  const shape = shapeText === '' ? [] : shapeText.replace(/,\s*$/, '').split(',').map((s) => {
    const d = s.trim();
    if (!/^\d+$/.test(d)) throw bad(`bad shape (${shapeText})`);
    return Number(d);
  });
  if (shape.length > 32) throw bad(`rank ${shape.length} exceeds the maximum of 32`);
  const count = shape.reduce((a, b) => a * b, 1);
  if (!Number.isSafeInteger(count * size)) throw bad('shape too large');
  const payload = buf.subarray(start + hlen);
  if (payload.length !== count * size) {
    throw bad(`shape (${shape}) of ${order}${kind}${sizeStr} needs ${count * size} payload bytes, the file has ${payload.length}`);
  }
  const hasOrder = !(kind === 'b' || kind === 'S' || (size === 1 && kind !== 'U'));
  const big = hasOrder && order === '>';
  let data = payload;
  if (fortranM[1] === 'True' && shape.length > 1 && count > 0) data = fortranToC(payload, shape, size);
  return { kind, n, size, big, shape, data, descr: descrOf(kind, n, big, hasOrder) };
}

function descrOf(kind, n, big, hasOrder) {
  return (hasOrder ? (big ? '>' : '<') : '|') + kind + n;
}

function fortranToC(src, shape, size) {
  const count = shape.reduce((a, b) => a * b, 1);
  const out = Buffer.alloc(src.length);
  const fstrides = [];
  let s = 1;
  for (const d of shape) {
    fstrides.push(s);
    s *= d;
  }
  const idx = new Array(shape.length).fill(0);
  for (let i = 0; i < count; i++) {
    let f = 0;
    for (let k = 0; k < shape.length; k++) f += idx[k] * fstrides[k];
    src.copy(out, i * size, f * size, (f + 1) * size);
    for (let k = shape.length - 1; k >= 0; k--) {
      if (++idx[k] < shape[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

// encodeNpy writes a version 1.0 .npy file exactly as NumPy's np.save does.
function encodeNpy(descr, shape, data) {
  let dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
  if (shape.length > 0) dict += ' '.repeat(Math.max(0, 21 - String(shape[0]).length));
  let lenSize = 2;
  let major = 1;
  const hlen = dict.length + 1;
  let pad = 64 - ((6 + 2 + lenSize + hlen) % 64);
  if (hlen + pad > 0xffff) {
    major = 2;
    lenSize = 4;
    pad = 64 - ((6 + 2 + lenSize + hlen) % 64);
  }
  const head = Buffer.alloc(8 + lenSize);
  MAGIC.copy(head, 0);
  head[6] = major;
  head[7] = 0;
  if (lenSize === 2) head.writeUInt16LE(hlen + pad, 8);
  else head.writeUInt32LE(hlen + pad, 8);
  return Buffer.concat([head, Buffer.from(dict + ' '.repeat(pad) + '\n', 'latin1'), data]);
}

// ------------------------------------------------------------ tensors

const DTYPE_NAMES = {
  b1: 'bool', i1: 'int8', i2: 'int16', i4: 'int32', i8: 'int64',
  u1: 'uint8', u2: 'uint16', u4: 'uint32', u8: 'uint64',
  f2: 'float16', f4: 'float32', f8: 'float64', c8: 'complex64', c16: 'complex128',
};

function dtypeName(a) {
  if (a.kind === 'S') return `bytes S${a.n}`;
  if (a.kind === 'U') return `unicode U${a.n}`;
  return DTYPE_NAMES[a.kind + a.n];
}

// tfType returns the TF.js dtype an array is run as, or throws a Skip.
function tfType(a) {
  switch (a.kind + a.size) {
    case 'f4':
    case 'i4':
      return 'int32';
    case 'b1':
      return 'bool';
  }
  if (a.kind === 'S') return 'string';
  if (a.kind === 'c' && a.size === 8) {
    throw new Skip('complex64 is not run: the TF.js cpu StridedSlice and Slice kernels reject it');
  }
  throw new Skip(`TF.js has no ${dtypeName(a)} dtype`);
}

// little returns the bytes of a in little-endian order.
function little(a) {
  if (!a.big) return a.data;
  const out = Buffer.from(a.data);
  if (a.size === 4) out.swap32();
  else if (a.size === 2) out.swap16();
  else if (a.size === 8) out.swap64();
  return out;
}

function toTensor(a) {
  const type = tfType(a);
  const count = a.shape.reduce((x, y) => x * y, 1);
  if (type === 'int32') {
    const b = little(a);
    const vals = new Int32Array(count);
    for (let i = 0; i < count; i++) vals[i] = b.readInt32LE(4 * i);
    return tf.tensor(vals, a.shape, 'int32');
  }
  if (type === 'bool') return tf.tensor(new Uint8Array(a.data), a.shape, 'bool');
  const vals = [];
  for (let i = 0; i < count; i++) vals.push(new Uint8Array(a.data.subarray(i * a.size, (i + 1) * a.size)));
  return tf.tensor(vals, a.shape, 'string');
}

// fromTensor turns TF.js's result into .npy bytes with the dtype of like
// (the input it came from).
function fromTensor(t, like) {
  const vals = tf.engine().readSync(t.dataId);
  const shape = t.shape;
  const count = shape.reduce((a, b) => a * b, 1);
  if (!shape.every((d) => Number.isInteger(d) && d >= 0) || vals.length !== count) {
    // TF.js made a tensor no .npy can hold (a negative or NaN dimension,
    // or fewer values than its shape says). It raised no error, so this
    // is not an error kind either; say what it returned.
    throw new Skip(`TF.js returned an invalid tensor: shape [${shape}] with ${vals.length} values`);
  }
  if (t.dtype !== 'string' && !ArrayBuffer.isView(vals)) {
    vals.forEach((v, i) => {
      if (typeof v !== 'number' && typeof v !== 'boolean') {
        throw new Skip(`TF.js returned an invalid tensor: element ${i} is ${typeof v}`);
      }
    });
  }
  if (t.dtype === 'int32' && tfType(like) === 'int32') {
    const b = Buffer.alloc(vals.length * 4);
    for (let i = 0; i < vals.length; i++) b.writeInt32LE(vals[i], 4 * i);
    if (like.big) b.swap32();
    return encodeNpy(like.descr, shape, b);
  }
  if (t.dtype === 'bool' && like.kind === 'b') {
    const b = Uint8Array.from(vals, Number);
    return encodeNpy('|b1', shape, Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  }
  if (t.dtype === 'string' && like.kind === 'S') {
    // Fixed-width S<n>: shorter strings are NUL-padded, as NumPy would
    // store them; if TF.js made a string longer, the dtype widens.
    let n = like.n;
    vals.forEach((v, i) => {
      if (!(v instanceof Uint8Array)) {
        throw new Skip(`TF.js returned an invalid tensor: string element ${i} is ${typeof v}`);
      }
      n = Math.max(n, v.length);
    });
    const b = Buffer.alloc(vals.length * n);
    vals.forEach((v, i) => Buffer.from(v).copy(b, i * n));
    return encodeNpy(`|S${n}`, shape, b);
  }
  // TF.js changed the dtype: write what it returned.
  if (t.dtype === 'int32' || t.dtype === 'float32') {
    const b = Buffer.from(new (t.dtype === 'int32' ? Int32Array : Float32Array)(vals).buffer);
    return encodeNpy(t.dtype === 'int32' ? '<i4' : '<f4', shape, b);
  }
  if (t.dtype === 'bool') return encodeNpy('|b1', shape, Buffer.from(new Uint8Array(vals)));
  throw new Error(`TF.js returned a ${t.dtype} tensor for a ${like.descr} input`);
}

// int32 checks that every value fits TF.js's int32 attributes.
function int32(list, what) {
  list.forEach((v, i) => {
    if (v < INT32_MIN || v > INT32_MAX) throw new Skip(`${what}[${i}] = ${v} does not fit TF.js's int32 ${what}`);
  });
  return list;
}

// ------------------------------------------------------------ errors

// TF.js error messages (tfjs-core 4.22.0 slice_util.js, slice.js,
// gather_nd_util.js, tensor_util_env.js, tfjs-backend-cpu GatherNd_Impl.js)
// and the kind each maps to. Keep in step with the table in ../README.md.
const ERROR_KINDS = [
  [/Multiple ellipses in slice is not allowed/, 'invalid_spec'],
  [/strides\[-?\d+\] must be non-zero/, 'invalid_spec'],
  [/only stride 1 allowed on non-range indexing/, 'invalid_spec'],
  [/slice index .* of dimension .* out of bounds/, 'out_of_range'],
  [/Index out of range using input dim/, 'invalid_spec'],
  [/Input must have rank at least 1/, 'invalid_spec'],
  [/Slicing scalar is not possible/, 'invalid_spec'],
  [/Length of (begin|size) .* must match the rank of the array/, 'invalid_spec'],
  [/would overflow input\.shape/, 'out_of_range'],
  [/does not support negative begin indexing/, 'out_of_range'],
  [/Negative size values should be exactly -1/, 'out_of_range'],
  [/expects the input to be rank 1 or higher/, 'invalid_spec'],
  [/expects the indices to be rank 1 or higher/, 'invalid_spec'],
  [/expects the indices to be int32 type/, 'bad_input'],
  [/must be int32 tensor, but got/, 'bad_input'],
  [/index innermost dimension length must be <= tensor rank/, 'invalid_spec'],
  [/Requested more than 0 entries, but input is empty/, 'out_of_range'],
  [/Invalid indices: .* does not index into/, 'out_of_range'],
  [/Requested out of range element at/, 'out_of_range'],
];

function mapError(e) {
  const msg = e && e.message !== undefined ? String(e.message) : String(e);
  for (const [re, kind] of ERROR_KINDS) {
    if (re.test(msg)) return new CaseError(kind, msg);
  }
  // Not a TF.js validation message (e.g. a TypeError or RangeError from
  // deep inside a kernel): report it verbatim, flagged.
  process.stderr.write(`tfjs oracle: unrecognised TF.js error: ${msg}\n`);
  return new CaseError('invalid_spec', `unrecognised TF.js error (${e && e.name}): ${msg}`);
}

// ------------------------------------------------------------ ops

function run(spec, inputs) {
  const made = [];
  const mk = (a) => {
    const t = a.tensorOverride ? a.tensorOverride() : toTensor(a);
    made.push(t);
    return t;
  };
  try {
    let like;
    let thunk;
    if (spec.op === 'getitem') {
      throw new Skip('TF.js has no Python subscript (getitem)');
    } else if (spec.op === 'strided_slice') {
      const x = inputs.x;
      like = x;
      const strides = spec.strides === null ? spec.begin.map(() => 1) : spec.strides;
      const begin = int32(spec.begin, 'begin');
      const end = int32(spec.end, 'end');
      int32(strides, 'strides');
      const xt = mk(x);
      thunk = () => tf.stridedSlice(xt, begin, end, strides, spec.begin_mask, spec.end_mask,
        spec.ellipsis_mask, spec.new_axis_mask, spec.shrink_axis_mask);
    } else if (spec.op === 'slice') {
      like = inputs.x;
      const begin = int32(spec.begin, 'begin');
      const size = int32(spec.size, 'size');
      const xt = mk(inputs.x);
      thunk = () => tf.slice(xt, begin, size);
    } else {
      if (spec.batch_dims !== 0) throw new Skip('TF.js gatherND has no batch_dims');
      if (spec.bad_indices !== 'error') throw new Skip('TF.js gatherND has no bad_indices "zero" mode (TF GPU behaviour)');
      const p = inputs.params;
      like = p;
      const it = mk(indicesFor(inputs.indices));
      const pt = mk(p);
      thunk = () => tf.gatherND(pt, it);
    }
    let out;
    try {
      out = thunk();
    } catch (e) {
      throw mapError(e);
    }
    made.push(out);
    return fromTensor(out, like);
  } finally {
    for (const t of made) t.dispose();
  }
}

// indicesFor converts an index array for tf.gatherND: integers become
// int32 values (TF.js takes int32 indices only); float32 and bool stay as
// they are, so that TF.js itself rejects them.
function indicesFor(a) {
  if (a.kind !== 'i' && a.kind !== 'u') {
    if ((a.kind === 'f' && a.size === 4) || a.kind === 'b') {
      if (a.kind === 'f') {
        const b = little(a);
        const count = b.length / 4;
        const vals = new Float32Array(count);
        for (let i = 0; i < count; i++) vals[i] = b.readFloatLE(4 * i);
        return { tensorOverride: () => tf.tensor(vals, a.shape, 'float32') };
      }
      return a;
    }
    throw new Skip(`TF.js has no ${dtypeName(a)} dtype (indices)`);
  }
  const count = a.shape.reduce((x, y) => x * y, 1);
  const vals = new Int32Array(count);
  for (let i = 0; i < count; i++) {
    const off = i * a.size;
    let v;
    switch (a.size) {
      case 1: v = a.kind === 'i' ? a.data.readInt8(off) : a.data.readUInt8(off); break;
      case 2: v = a.big ? (a.kind === 'i' ? a.data.readInt16BE(off) : a.data.readUInt16BE(off))
        : (a.kind === 'i' ? a.data.readInt16LE(off) : a.data.readUInt16LE(off)); break;
      case 4: v = a.big ? (a.kind === 'i' ? a.data.readInt32BE(off) : a.data.readUInt32BE(off))
        : (a.kind === 'i' ? a.data.readInt32LE(off) : a.data.readUInt32LE(off)); break;
      default: v = a.big ? (a.kind === 'i' ? a.data.readBigInt64BE(off) : a.data.readBigUInt64BE(off))
        : (a.kind === 'i' ? a.data.readBigInt64LE(off) : a.data.readBigUInt64LE(off));
    }
    if (v < INT32_MIN || v > INT32_MAX) {
      throw new Skip(`index value ${v} does not fit TF.js's int32 indices`);
    }
    vals[i] = Number(v);
  }
  return { tensorOverride: () => tf.tensor(vals, a.shape, 'int32') };
}

// ------------------------------------------------------------ protocol

function evaluate(c) {
  const spec = parseSpec(c);
  const inputs = loadInputs(c, spec.op);
  return run(spec, inputs);
}

function respond(line) {
  let c;
  try {
    c = JSON.parse(line);
  } catch (e) {
    process.stderr.write(`tfjs oracle: request is not JSON: ${e.message}\n`);
    return null;
  }
  if (c === null || typeof c !== 'object' || Array.isArray(c) || !('id' in c)) {
    process.stderr.write('tfjs oracle: request without an id\n');
    return null;
  }
  const id = JSON.stringify(c.id);
  try {
    const npy = evaluate(c);
    return `{"id":${id},"output":"${npy.toString('base64')}"}\n`;
  } catch (e) {
    if (e instanceof CaseError) {
      return `{"id":${id},"error":{"kind":"${e.kind}","message":${JSON.stringify(e.message)}}}\n`;
    }
    if (e instanceof Skip) return `{"id":${id},"skip":${JSON.stringify(e.message)}}\n`;
    process.stderr.write(`tfjs oracle: internal error on request ${id}: ${e && e.stack}\n`);
    return `{"id":${id},"skip":${JSON.stringify(`tfjs oracle internal error: ${e && e.message}`)}}\n`;
  }
}

async function main() {
  await tf.setBackend('cpu');
  await tf.ready();
  process.stdout.write(JSON.stringify({ hello: { name: 'tfjs', version: tf.version_core, ops: OPS } }) + '\n');
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop();
    const out = [];
    for (const line of lines) {
      if (line.trim() === '') continue;
      const r = respond(line);
      if (r !== null) out.push(r);
    }
    if (out.length > 0) process.stdout.write(out.join(''));
  });
  process.stdin.on('end', () => {
    if (pending.trim() !== '') {
      const r = respond(pending);
      if (r !== null) process.stdout.write(r);
    }
  });
}

main().catch((e) => {
  process.stderr.write(`tfjs oracle: cannot start: ${e && e.stack}\n`);
  process.exit(1);
});

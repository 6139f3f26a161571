// The .npy codec of the node oracles (TF.js, ONNX Runtime): reads format versions 1-3 (C or
// Fortran order, either byte order, the dtypes conform supports) and
// writes version 1.0 byte-identical to NumPy's np.save. Errors are thrown
// as NpyError (the caller reports them as bad_input).
'use strict';

class NpyError extends Error {}

const MAGIC = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // \x93NUMPY
const MAX_RANK = 32;

// decode parses a .npy file into {descr, kind, n, size, big, shape, data}:
// kind is the NumPy kind character, n the number in the dtype string
// (bytes, or characters for U), size the bytes per element, data the
// elements in C order as a Buffer (not byte-swapped).
function decode(buf) {
  const bad = (m) => new NpyError(m);
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
  const [, order, kind, nStr] = descrM;
  const n = Number(nStr);
  const sizes = { b: [1], i: [1, 2, 4, 8], u: [1, 2, 4, 8], f: [2, 4, 8], c: [8, 16] };
  if (!(n > 0) || (sizes[kind] && !sizes[kind].includes(n)) || nStr[0] === '0') {
    throw bad(`unsupported dtype ${order}${kind}${nStr}`);
  }
  const size = kind === 'U' ? 4 * n : n;
  const shapeText = shapeM[1].trim();
  const shape = shapeText === '' ? [] : shapeText.replace(/,\s*$/, '').split(',').map((s) => {
    const d = s.trim();
    if (!/^\d+$/.test(d)) throw bad(`bad shape (${shapeText})`);
    return Number(d);
  });
  if (shape.length > MAX_RANK) throw bad(`rank ${shape.length} exceeds the maximum of ${MAX_RANK}`);
  const count = shape.reduce((a, b) => a * b, 1);
  if (!Number.isSafeInteger(count * size)) throw bad('shape too large');
  const payload = buf.subarray(start + hlen);
  if (payload.length !== count * size) {
    throw bad(`shape (${shape}) of ${order}${kind}${nStr} needs ${count * size} payload bytes, the file has ${payload.length}`);
  }
  const hasOrder = !(kind === 'b' || kind === 'S' || (size === 1 && kind !== 'U'));
  const big = hasOrder && order === '>';
  let data = payload;
  if (fortranM[1] === 'True' && shape.length > 1 && count > 0) data = fortranToC(payload, shape, size);
  return { kind, n, size, big, shape, data, count, descr: descrOf(kind, n, big, hasOrder) };
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

// encode writes a version 1.0 .npy file exactly as NumPy's np.save does
// (version 2.0 if the header needs it).
function encode(descr, shape, data) {
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

// swapped returns a copy of b with each element of size bytes reversed.
function swapped(b, size) {
  const out = Buffer.from(b);
  if (size === 2) out.swap16();
  else if (size === 4) out.swap32();
  else if (size === 8) out.swap64();
  return out;
}

// intValues reads the elements of a decoded integer array (kind i or u,
// either byte order) as BigInts, exactly.
function intValues(a) {
  const out = new Array(a.count);
  const signed = a.kind === 'i';
  for (let i = 0; i < a.count; i++) {
    const off = i * a.size;
    let v;
    switch (a.size) {
      case 1: v = signed ? a.data.readInt8(off) : a.data.readUInt8(off); break;
      case 2: v = a.big ? (signed ? a.data.readInt16BE(off) : a.data.readUInt16BE(off))
        : (signed ? a.data.readInt16LE(off) : a.data.readUInt16LE(off)); break;
      case 4: v = a.big ? (signed ? a.data.readInt32BE(off) : a.data.readUInt32BE(off))
        : (signed ? a.data.readInt32LE(off) : a.data.readUInt32LE(off)); break;
      default: v = a.big ? (signed ? a.data.readBigInt64BE(off) : a.data.readBigUInt64BE(off))
        : (signed ? a.data.readBigInt64LE(off) : a.data.readBigUInt64LE(off));
    }
    out[i] = BigInt(v);
  }
  return out;
}

module.exports = { decode, encode, swapped, intValues, NpyError };

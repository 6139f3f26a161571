#!/usr/bin/env node
// conform/1 oracle backed by TensorFlow.js (@tensorflow/tfjs-core with the
// cpu backend, versions pinned in ../package.json).
//
// It reads one JSON request per line on stdin and writes one JSON response
// per request on stdout, after a hello line; see "Protocol conform/1" in
// the project's design notes and ../README.md.
//
// Ops: strided_slice (tf.stridedSlice), slice (tf.slice), gather_nd
// (tf.gatherND), gather (tf.gather), and getitem: TF's Python x[...] encoding (_slice_helper in
// tensorflow/python/ops/array_ops.py) run on tf.stridedSlice. TF.js is a
// port of TF that diverges from it in corners; this program reports
// exactly what TF.js returns or throws, and maps TF.js's error messages to
// conform's error kinds (table in ../README.md).
//
// Dtypes: int32 runs as int32 values, bool as bool, |S strings as string
// tensors of the raw bytes. Every other dtype runs as an int32 tensor of
// element positions: TF.js moves numeric elements without looking at
// them, so the positions it returns name the input elements it picked,
// and the output is their bytes (any dtype, either byte order).
'use strict';

const req = require('../request');

// tfjs writes its greeting with console.log: keep stdout for the protocol.
req.quietConsole();

const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const npy = require('../npy');

const OPS = ['getitem', 'strided_slice', 'slice', 'gather_nd', 'gather'];
const OP_INPUTS = req.CLASSIC_INPUTS;
const OP_FIELDS = Object.fromEntries(OPS.map((op) => [op, req.CLASSIC_FIELDS[op]]));
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const INT64_LIMIT = 9223372036854775808; // 2^63 as a double

const { CaseError, Skip, invalid, bad } = req;
const outOfRange = (msg) => new CaseError('out_of_range', msg);

// ------------------------------------------------------------ case fields

// ints reads a list of integers of int64 (plain numbers here).
const ints = (c, name, required) => req.ints(c, name, required, isInt);

function isInt(v) {
  return typeof v === 'number' && Number.isInteger(v) && v >= -INT64_LIMIT && v <= INT64_LIMIT; // 2^63-1 parses as 2^63
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
        if (i > 31) throw new Skip(`${name} sets entry ${i}; TF.js masks are 32-bit integers`, 'int32-limit');
        m |= 1 << i;
      } else if (e !== 0) {
        throw invalid(`${name}: mask list entry ${i} is ${e}; entries must be 0 or 1`);
      }
    });
    return m;
  }
  if (!isInt(v)) throw bad(`"${name}" must be an integer bitmask or a list of 0/1`);
  if (v < INT32_MIN || v > INT32_MAX) throw new Skip(`${name} ${v} does not fit TF.js's int32 masks`, 'int32-limit');
  return v;
}

function parseSpec(c) {
  const op = req.caseOp(c);
  req.checkFields(c, op, OP_FIELDS);
  const spec = { op };
  if (op === 'getitem') {
    if (!('index' in c)) throw bad('getitem case has no "index" field');
    if (c.index !== null && typeof c.index !== 'string') throw bad('"index" must be a string');
    spec.index = c.index === null ? '' : c.index; // Go's json.Unmarshal leaves null as ""
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
    spec.bad_indices = req.badIndices(c);
    if (op === 'gather') {
      spec.axis = b; // tf.gather: axis defaults to batch_dims
      if ('axis' in c) {
        spec.axis = c.axis;
        if (!isInt(spec.axis)) throw bad('"axis" must be an integer');
      }
    }
  }
  return spec;
}

// ------------------------------------------------------------ tensors

function count(a) {
  return a.shape.reduce((x, y) => x * y, 1);
}

// runMode returns how an input runs on TF.js:
//   'int32'     int32 data (<i4, >i4) as an int32 tensor of its values;
//   'bool'      |b1 as a bool tensor;
//   'string'    |S<n> as a string tensor of the raw bytes;
//   'positions' every other dtype: an int32 tensor of the same shape
//               whose elements are their own positions 1..N. TF.js's
//               slicing and gathering kernels move numeric elements
//               without looking at them (int32, float32 and the
//               positions share one code path), so the positions TF.js
//               returns say exactly which input elements it picked, and
//               the output is those elements' bytes, untouched.
function runMode(a) {
  if (a.kind === 'i' && a.size === 4) return 'int32';
  if (a.kind === 'b') return 'bool';
  if (a.kind === 'S') return 'string';
  return 'positions';
}

function toTensor(a) {
  const mode = runMode(a);
  const n = count(a);
  if (mode === 'int32') {
    const vals = new Int32Array(n);
    for (let i = 0; i < n; i++) vals[i] = a.big ? a.data.readInt32BE(4 * i) : a.data.readInt32LE(4 * i);
    return tf.tensor(vals, a.shape, 'int32');
  }
  if (mode === 'bool') return tf.tensor(new Uint8Array(a.data), a.shape, 'bool');
  if (mode === 'positions') {
    if (n > INT32_MAX) throw new Skip(`${n} elements do not fit TF.js int32 positions`, 'int32-limit');
    const vals = new Int32Array(n);
    for (let i = 0; i < n; i++) vals[i] = i + 1;
    return tf.tensor(vals, a.shape, 'int32');
  }
  const vals = [];
  for (let i = 0; i < n; i++) vals.push(new Uint8Array(a.data.subarray(i * a.size, (i + 1) * a.size)));
  return tf.tensor(vals, a.shape, 'string');
}

// fromTensor turns TF.js's result into .npy bytes with the dtype of like
// (the input it came from).
function fromTensor(t, like) {
  const vals = tf.engine().readSync(t.dataId);
  const shape = t.shape;
  const n = shape.reduce((a, b) => a * b, 1);
  if (!shape.every((d) => Number.isInteger(d) && d >= 0) || vals.length !== n) {
    // TF.js made a tensor no .npy can hold (a negative or NaN dimension,
    // or fewer values than its shape says). It raised no error, so this
    // is not an error kind either; say what it returned.
    throw new Skip(`TF.js returned an invalid tensor: shape [${shape}] with ${vals.length} values`, 'invalid-tensor');
  }
  if (t.dtype !== 'string' && !ArrayBuffer.isView(vals)) {
    vals.forEach((v, i) => {
      if (typeof v !== 'number' && typeof v !== 'boolean') {
        throw new Skip(`TF.js returned an invalid tensor: element ${i} is ${typeof v}`, 'invalid-tensor');
      }
    });
  }
  const mode = runMode(like);
  if (t.dtype === 'int32' && mode === 'positions') {
    const size = like.size;
    const total = count(like);
    const b = Buffer.alloc(vals.length * size);
    for (let i = 0; i < vals.length; i++) {
      const p = vals[i];
      if (!(Number.isInteger(p) && p >= 1 && p <= total)) {
        // TF.js never wrote this element (a typed array's default 0):
        // it has no value of the input's dtype (an int32 tensor would
        // show 0 there, a float32 one NaN).
        throw new Skip(`TF.js returned an invalid tensor: element ${i} was never written (it holds no input element)`, 'invalid-tensor');
      }
      like.data.copy(b, i * size, (p - 1) * size, p * size);
    }
    return npy.encode(like.descr, shape, b);
  }
  if (mode === 'positions') throw new Error(`TF.js returned a ${t.dtype} tensor for int32 positions`);
  if (t.dtype === 'int32' && mode === 'int32') {
    const b = Buffer.alloc(vals.length * 4);
    for (let i = 0; i < vals.length; i++) b.writeInt32LE(vals[i], 4 * i);
    if (like.big) b.swap32();
    return npy.encode(like.descr, shape, b);
  }
  if (t.dtype === 'bool' && mode === 'bool') {
    const b = Uint8Array.from(vals, Number);
    return npy.encode('|b1', shape, Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  }
  if (t.dtype === 'string' && mode === 'string') {
    // Fixed-width S<n>: shorter strings are NUL-padded, as NumPy would
    // store them; if TF.js made a string longer, the dtype widens.
    let w = like.n;
    vals.forEach((v, i) => {
      if (!(v instanceof Uint8Array)) {
        throw new Skip(`TF.js returned an invalid tensor: string element ${i} is ${typeof v}`, 'invalid-tensor');
      }
      w = Math.max(w, v.length);
    });
    const b = Buffer.alloc(vals.length * w);
    vals.forEach((v, i) => Buffer.from(v).copy(b, i * w));
    return npy.encode(`|S${w}`, shape, b);
  }
  // TF.js changed the dtype: write what it returned.
  if (t.dtype === 'int32' || t.dtype === 'float32') {
    const b = Buffer.from(new (t.dtype === 'int32' ? Int32Array : Float32Array)(vals).buffer);
    return npy.encode(t.dtype === 'int32' ? '<i4' : '<f4', shape, b);
  }
  if (t.dtype === 'bool') return npy.encode('|b1', shape, Buffer.from(new Uint8Array(vals)));
  throw new Error(`TF.js returned a ${t.dtype} tensor for a ${like.descr} input`);
}

// int32 checks that every value fits TF.js's int32 attributes.
function int32(list, what) {
  list.forEach((v, i) => {
    if (v < INT32_MIN || v > INT32_MAX) throw new Skip(`${what}[${i}] = ${v} does not fit TF.js's int32 ${what}`, 'int32-limit');
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
  // tf.gather: GatherV2 (tfjs-backend-cpu), parseAxisParam (util_base.js),
  // collectGatherOpShapeInfo (segment_util.js).
  [/GatherV2: the index value -?\d+ is not in \[0, -?\d+\]/, 'out_of_range'],
  [/All values in axis param must be in range/, 'invalid_spec'],
  [/Expect batchDims in the range of/, 'invalid_spec'],
  [/batchDims \(-?\d+\) must be less than rank\(x\)/, 'invalid_spec'],
  [/batchDims \(-?\d+\) must be less than or equal to axis/, 'invalid_spec'],
  [/x\.shape\[\d+\]: \d+ should be equal to indices\.shape\[\d+\]/, 'invalid_spec'],
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

// ------------------------------------------------------------ getitem

// getitem runs TF's Python x[...] encoding (_slice_helper in
// tensorflow/python/ops/array_ops.py) on tf.stridedSlice. The subscript is
// first parsed as internal/expr parses it: the Python 3.4 expression grammar
// (as gpython implements it), then NumPy's basic-indexing rules on the
// items, with the same error kinds. Nothing is evaluated.

const MAX_INDEX_SOURCE = 64 << 10; // bytes, as internal/expr
const MAX_INDEX_ITEMS = 64; // NumPy's limit, checked before the items
const MAX_NESTING = 200; // parentheses etc.; deeper sources are skipped
const INT64_MIN_BIG = -(1n << 63n);
const INT64_MAX_BIG = (1n << 63n) - 1n;
const MSG_INVALID_INDEX = 'only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices';
const MSG_SLICE_INDEX = 'slice indices must be integers or None or have an __index__ method';

// PySyntax is a syntax error in the Python 3.4 grammar.
class PySyntax extends Error {}
// Unsure marks source this parser does not decide: a construct that can
// never be a valid index (lambda, yield, comprehensions, starred
// expressions, string escapes, non-ASCII names, ...) where it does not
// check every detail of Python's grammar. The source is then invalid_spec
// unless an integer literal in it could be an index beyond int64 (then
// out_of_range could be the right answer and the case is skipped).
class Unsure extends Error {}

// Python's keywords; async and await since Python 3.7, as in every Python NumPy 1.24 runs on.
const PY_KEYWORDS = new Set(['False', 'None', 'True', 'and', 'as', 'assert', 'async', 'await', 'break', 'class',
  'continue', 'def', 'del', 'elif', 'else', 'except', 'finally', 'for', 'from', 'global', 'if', 'import', 'in',
  'is', 'lambda', 'nonlocal', 'not', 'or', 'pass', 'raise', 'return', 'try', 'while', 'with', 'yield']);
const OPERATORS = ['**=', '//=', '>>=', '<<=', '...', '**', '//', '<<', '>>', '<=', '>=', '==', '!=', '->',
  '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '@=', '+', '-', '*', '/', '%', '@', '&', '|', '^', '~',
  '<', '>', '(', ')', '[', ']', '{', '}', ',', ':', '.', ';', '='];

// goSpace is Go's unicode.IsSpace, which gpython uses to find blank lines.
const GO_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*/;
// Identifier characters as gpython's lexer takes them.
const ID_START = /^[A-Za-z_\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Nl}]/u;
const ID_CHARS = /^[A-Za-z0-9_\p{Lu}\p{Ll}\p{Lt}\p{Lm}\p{Lo}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]+/u;

// pyTokens splits Python source into tokens: {t: 'name'|'num'|'str'|'op'|
// 'nl'|'end', v, num}; num is {kind: 'int', n: BigInt}, {kind: 'float'}
// or {kind: 'complex'}. It follows gpython's lexer (the one internal/expr
// uses): lines that are blank or hold only a comment are skipped (blank
// by Go's unicode.IsSpace), an indented line outside brackets is a syntax
// error, a backslash continues the line (or ends the input), and only
// space and tab separate tokens.
function pyTokens(text) {
  const toks = [];
  try {
    scanTokens(text, toks);
  } catch (e) {
    if (e instanceof Unsure) e.bigBefore = toks.some(isBigInt);
    throw e;
  }
  return toks;
}

function scanTokens(text, toks) {
  let i = 0;
  let depth = 0;
  let lineStart = true;
  const n = text.length;
  const isDigit = (c) => c >= '0' && c <= '9';
  while (i < n) {
    if (lineStart) {
      lineStart = false;
      let j = i;
      while (j < n && (text[j] === ' ' || text[j] === '\t')) j++;
      let eol = text.indexOf('\n', j);
      if (eol < 0) eol = n;
      const rest = text.slice(j, eol).replace(GO_SPACE, '');
      if (rest === '' || rest[0] === '#') {
        // A blank or comment line: skipped whole, no NEWLINE.
        i = eol + 1;
        lineStart = true;
        continue;
      }
      if (j > i && depth === 0) throw new PySyntax('unexpected indent');
      i = j;
    }
    const c = text[i];
    if (c === ' ' || c === '\t') { i++; continue; }
    if (c === '#' || c === '\n') {
      // The rest of the line is a comment; a NEWLINE outside brackets.
      const eol = text.indexOf('\n', i);
      i = eol < 0 ? n : eol + 1;
      // Like gpython, even after a continuation line with no tokens yet
      // (so "\\\n# c\nx[1]" starts with a NEWLINE: a syntax error).
      if (depth <= 0) toks.push({ t: 'nl' });
      lineStart = true;
      continue;
    }
    if (c === '\\' && (i + 1 === n || text[i + 1] === '\n')) {
      i += 2; // a continuation line: no indentation or blank-line rules
      continue;
    }
    if (isDigit(c) || (c === '.' && i + 1 < n && isDigit(text[i + 1]))) {
      i = pyNumber(text, i, toks);
      continue;
    }
    let m = /^([rRbBuU]|[rR][bB]|[bB][rR])?['"]/.exec(text.slice(i, i + 3));
    if (m) {
      const prefix = (m[1] || '').toLowerCase();
      i = pyString(text, i + prefix.length, prefix.includes('b'), prefix.includes('r'), toks);
      continue;
    }
    if (ID_START.test(text.slice(i, i + 2))) {
      m = ID_CHARS.exec(text.slice(i, i + 4096));
      toks.push({ t: 'name', v: m[0] });
      i += m[0].length;
      continue;
    }
    let op = null;
    for (const o of OPERATORS) {
      if (text.startsWith(o, i)) { op = o; break; }
    }
    if (op === null) throw new PySyntax(`invalid character ${JSON.stringify(c)}`);
    if (op === '(' || op === '[' || op === '{') {
      if (++depth > MAX_NESTING) throw new Skip(`index nests brackets more than ${MAX_NESTING} deep`, 'parser-limit');
    } else if (op === ')' || op === ']' || op === '}') {
      depth--;
    }
    toks.push({ t: 'op', v: op });
    i += op.length;
  }
  if (toks.length > 0 && toks[toks.length - 1].t !== 'nl') toks.push({ t: 'nl' });
  toks.push({ t: 'end' });
}

// isBigInt reports whether a token is an integer literal so large that a
// chain of unary operators in a 64 KiB source could put it beyond int64.
function isBigInt(tok) {
  return tok.t === 'num' && tok.num.kind === 'int' && tok.num.n >= (1n << 63n) - (1n << 17n);
}

// pyString scans a string literal whose quote is at text[i] and returns
// the position after it.
function pyString(text, i, bytes, raw, toks) {
  const q = text[i];
  const triple = text.startsWith(q + q + q, i);
  const close = triple ? q + q + q : q;
  let j = i + close.length;
  for (;;) {
    if (j >= text.length) throw new PySyntax('unterminated string literal');
    const ch = text[j];
    if (text.startsWith(close, j)) break;
    if (ch === '\n' && !triple) throw new PySyntax('EOL while scanning string literal');
    if (ch === '\\') {
      if (j + 1 >= text.length) throw new PySyntax('unterminated string literal');
      if (!raw && 'xuUN'.includes(text[j + 1])) throw new Unsure('escape sequence in a string literal');
      if (text[j + 1] === '\n' && !triple) throw new Unsure('line continuation in a string literal');
      j += 2;
      continue;
    }
    j++;
  }
  toks.push({ t: 'str', bytes });
  return j + close.length;
}

// The numeric literals pyNumber reads, digits grouped by single
// underscores (PY_DIGITS): octal, hexadecimal and binary integers; floats and
// imaginary numbers; decimal integers and imaginary numbers.
const PY_DIGITS = '[0-9](?:_?[0-9])*';
const PY_BASED = /^(?:0[oO](?:_?[0-7])+|0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+)/;
const PY_FLOAT = new RegExp(`^(?:(?:${PY_DIGITS}|(?:${PY_DIGITS})?\\.${PY_DIGITS}|${PY_DIGITS}\\.)[eE][+-]?${PY_DIGITS}|(?:${PY_DIGITS})?\\.${PY_DIGITS}|${PY_DIGITS}\\.)[jJ]?`);
const PY_DECIMAL = new RegExp(`^${PY_DIGITS}[jJ]?`);

// pyNumber scans a numeric literal at text[i] as gpython's lexer does
// (its regular expressions, in its order, with no look at what follows:
// "1if" is 1 then if, "1__0" is 1 then the name __0), with the digit
// groups of Python 3.6 (1_000, 0x_ff: single underscores between digits
// and after a base prefix), which the Pythons NumPy 1.24 runs on read,
// and returns the position after it.
function pyNumber(text, i, toks) {
  const rest = text.slice(i, i + 70000);
  let m;
  let num;
  if ((m = PY_BASED.exec(rest))) {
    num = { kind: 'int', n: BigInt(m[0].replace(/_/g, '').toLowerCase()) };
  } else if ((m = PY_FLOAT.exec(rest))) {
    num = { kind: /[jJ]$/.test(m[0]) ? 'complex' : 'float' };
  } else {
    m = PY_DECIMAL.exec(rest);
    const digits = m[0].replace(/_/g, '');
    if (/[jJ]$/.test(digits)) num = { kind: 'complex' };
    else if (/^0[0-9]*[1-9][0-9]*$/.test(digits)) throw new PySyntax('illegal decimal with leading zero');
    else num = { kind: 'int', n: BigInt(digits) };
  }
  toks.push({ t: 'num', num });
  return i + m[0].length;
}

// PyParser is a recursive-descent parser of the Python 3.4 expression
// grammar. Nodes: {t: 'num'|'name'|'const'|'ellipsis'|'attr'|'unary'|
// 'tuple'|'list'|'sub'|'other', ...}; parentheses leave no node.
class PyParser {
  constructor(toks) {
    this.toks = toks;
    this.p = 0;
    this.depth = 0;
  }

  peek(k = 0) { return this.toks[Math.min(this.p + k, this.toks.length - 1)]; }
  isOp(v, k = 0) { const t = this.peek(k); return t.t === 'op' && t.v === v; }
  isName(v, k = 0) { const t = this.peek(k); return t.t === 'name' && t.v === v; }
  next() { return this.toks[this.p++]; }
  eatOp(v) {
    if (this.isOp(v)) { this.p++; return true; }
    return false;
  }
  expectOp(v) {
    if (!this.eatOp(v)) throw new PySyntax(`expected ${JSON.stringify(v)}`);
  }
  eatName(v) {
    if (this.isName(v)) { this.p++; return true; }
    return false;
  }
  enter() {
    if (++this.depth > 4 * MAX_NESTING) throw new Skip(`index expression nests more than ${MAX_NESTING} deep`, 'parser-limit');
  }

  // eval_input: testlist NEWLINE* ENDMARKER
  evalInput() {
    try {
      return this.evalInputUnchecked();
    } catch (e) {
      if (e instanceof Unsure) e.bigBefore = this.toks.slice(0, this.p).some(isBigInt);
      throw e;
    }
  }

  evalInputUnchecked() {
    const e = this.testlist();
    while (this.peek().t === 'nl') this.p++;
    if (this.peek().t !== 'end') throw new PySyntax('unexpected token after the expression');
    return e;
  }

  testlist() {
    const first = this.test();
    if (!this.isOp(',')) return first;
    const elts = [first];
    while (this.eatOp(',')) {
      if (!this.startsTest()) break;
      elts.push(this.test());
    }
    return { t: 'tuple', elts };
  }

  // startsTest reports whether the next token can start a test.
  startsTest() {
    const t = this.peek();
    if (t.t === 'num' || t.t === 'str') return true;
    if (t.t === 'name') return !PY_KEYWORDS.has(t.v) || ['None', 'True', 'False', 'not', 'lambda'].includes(t.v);
    return t.t === 'op' && ['(', '[', '{', '-', '+', '~', '...'].includes(t.v);
  }

  test() {
    if (this.isName('lambda')) throw new Unsure('lambda');
    this.enter();
    let e = this.orTest();
    if (this.eatName('if')) {
      this.orTest();
      if (!this.eatName('else')) throw new PySyntax('expected else');
      this.test();
      e = { t: 'other', what: 'a conditional expression' };
    }
    this.depth--;
    return e;
  }

  orTest() {
    let e = this.andTest();
    while (this.eatName('or')) {
      this.andTest();
      e = { t: 'other', what: 'an operator expression' };
    }
    return e;
  }

  andTest() {
    let e = this.notTest();
    while (this.eatName('and')) {
      this.notTest();
      e = { t: 'other', what: 'an operator expression' };
    }
    return e;
  }

  notTest() {
    // not_test: 'not' not_test | comparison, iteratively.
    let nots = 0;
    while (this.eatName('not')) nots++;
    let e = this.comparison();
    for (let k = 0; k < nots; k++) e = { t: 'unary', op: 'not', operand: e };
    return e;
  }

  comparison() {
    let e = this.expr();
    for (;;) {
      const t = this.peek();
      if (t.t === 'op' && ['<', '>', '==', '>=', '<=', '!='].includes(t.v)) {
        this.p++;
      } else if (this.isName('in')) {
        this.p++;
      } else if (this.isName('not') && this.isName('in', 1)) {
        this.p += 2;
      } else if (this.isName('is')) {
        this.p++;
        this.eatName('not');
      } else {
        return e;
      }
      this.expr();
      e = { t: 'other', what: 'an operator expression' };
    }
  }

  // expr through term: binary operators, all left-associative.
  expr() { return this.binary(0); }

  binary(level) {
    const LEVELS = [['|'], ['^'], ['&'], ['<<', '>>'], ['+', '-'], ['*', '/', '%', '//']];
    if (level === LEVELS.length) return this.factor();
    let e = this.binary(level + 1);
    for (;;) {
      const t = this.peek();
      if (!(t.t === 'op' && LEVELS[level].includes(t.v))) return e;
      this.p++;
      this.binary(level + 1);
      e = { t: 'other', what: 'an operator expression' };
    }
  }

  factor() {
    // factor: ('+'|'-'|'~') factor | power, iteratively.
    const ops = [];
    while (this.isOp('-') || this.isOp('+') || this.isOp('~')) ops.push(this.next().v);
    let e = this.power();
    for (let k = ops.length - 1; k >= 0; k--) e = { t: 'unary', op: ops[k], operand: e };
    return e;
  }

  power() {
    let e = this.atom();
    for (;;) {
      if (this.eatOp('(')) {
        this.arglist();
        e = { t: 'other', what: 'a call' };
      } else if (this.isOp('[')) {
        this.p++;
        const sub = this.subscriptlist();
        this.expectOp(']');
        e = { t: 'sub', value: e, sub };
      } else if (this.eatOp('.')) {
        const t = this.next();
        if (t.t !== 'name' || PY_KEYWORDS.has(t.v)) throw new PySyntax('expected an attribute name');
        e = { t: 'attr', value: e, attr: t.v };
      } else {
        break;
      }
    }
    if (this.eatOp('**')) {
      this.factor();
      e = { t: 'other', what: 'an operator expression' };
    }
    return e;
  }

  arglist() {
    while (!this.eatOp(')')) {
      if (this.isOp('*') || this.isOp('**')) throw new Unsure('starred call argument');
      if (this.peek().t === 'name' && this.isOp('=', 1)) {
        const t = this.next();
        if (PY_KEYWORDS.has(t.v)) throw new PySyntax('keyword argument is a keyword');
        this.p++;
      }
      this.test();
      if (this.isName('for')) throw new Unsure('generator expression');
      if (!this.eatOp(',')) {
        this.expectOp(')');
        break;
      }
    }
  }

  atom() {
    const t = this.next();
    switch (t.t) {
      case 'num':
        return { t: 'num', kind: t.num.kind, n: t.num.n };
      case 'str': {
        let bytes = t.bytes;
        while (this.peek().t === 'str') {
          if (this.next().bytes !== bytes) throw new PySyntax('cannot mix bytes and nonbytes literals');
        }
        return { t: 'other', what: bytes ? 'a bytes literal' : 'a string', literal: true };
      }
      case 'name':
        if (t.v === 'None' || t.v === 'True' || t.v === 'False') return { t: 'const', v: t.v };
        if (t.v === 'yield') throw new Unsure('yield');
        if (PY_KEYWORDS.has(t.v)) throw new PySyntax(`unexpected keyword ${t.v}`);
        return { t: 'name', id: t.v };
      case 'op':
        break;
      default:
        throw new PySyntax('unexpected end of input');
    }
    switch (t.v) {
      case '...':
        return { t: 'ellipsis' };
      case '(': {
        if (this.eatOp(')')) return { t: 'tuple', elts: [] };
        if (this.isName('yield')) throw new Unsure('yield');
        const e = this.testlistComp(')');
        this.expectOp(')');
        return e.tuple ? { t: 'tuple', elts: e.elts } : e.elts[0];
      }
      case '[': {
        if (this.eatOp(']')) return { t: 'list', elts: [] };
        const e = this.testlistComp(']');
        this.expectOp(']');
        return { t: 'list', elts: e.elts };
      }
      case '{': {
        if (this.eatOp('}')) return { t: 'other', what: 'a dict' };
        if (this.isOp('*') || this.isOp('**')) throw new PySyntax('unexpected star in a display');
        this.test();
        if (this.isName('for')) throw new Unsure('comprehension');
        let what = 'a set';
        if (this.eatOp(':')) {
          what = 'a dict';
          this.test();
          if (this.isName('for')) throw new Unsure('comprehension');
        }
        while (this.eatOp(',')) {
          if (this.isOp('}')) break;
          this.test();
          if (what === 'a dict') {
            this.expectOp(':');
            this.test();
          }
        }
        this.expectOp('}');
        return { t: 'other', what };
      }
      default:
        throw new PySyntax(`unexpected ${JSON.stringify(t.v)}`);
    }
  }

  // testlistComp parses the inside of () or []: {tuple, elts}.
  testlistComp(closer) {
    const elts = [];
    let tuple = false;
    for (;;) {
      if (this.isOp('*')) throw new Unsure('starred expression');
      elts.push(this.test());
      if (this.isName('for')) throw new Unsure('comprehension');
      if (!this.eatOp(',')) break;
      tuple = true;
      if (this.isOp(closer)) break;
    }
    return { tuple, elts };
  }

  // subscriptlist: subscript (',' subscript)* [','] as {dims, tuple}: the
  // items, and whether there was a comma.
  subscriptlist() {
    const dims = [];
    let tuple = false;
    for (;;) {
      dims.push(this.subscript());
      if (!this.eatOp(',')) break;
      tuple = true;
      if (this.isOp(']')) break;
    }
    return { dims, tuple };
  }

  // subscript: test | [test] ':' [test] [':' [test]]
  subscript() {
    let lower = null;
    if (!this.isOp(':')) {
      lower = this.test();
      if (!this.isOp(':')) return lower;
    }
    this.expectOp(':');
    const part = () => (this.isOp(':') || this.isOp(',') || this.isOp(']') ? null : this.test());
    const upper = part();
    let step = null;
    if (this.eatOp(':')) step = part();
    return { t: 'slice', lower, upper, step };
  }
}

// describeNode names an expression for messages.
function describeNode(e) {
  switch (e.t) {
    case 'num': return e.kind === 'int' ? 'a number' : e.kind === 'float' ? 'a float' : 'a complex number';
    case 'name': return `the name '${e.id.slice(0, 40)}'`;
    case 'const': return 'a constant';
    case 'ellipsis': return 'an ellipsis';
    case 'attr':
      return e.value.t === 'name' ? `the attribute ${e.value.id.slice(0, 40)}.${e.attr.slice(0, 40)}` : 'an attribute';
    case 'unary': return 'an operator expression';
    case 'tuple': return 'a tuple';
    case 'list': return 'a list';
    case 'sub': return 'a subscript';
    case 'slice': return 'a slice';
  }
  return e.what || 'an unsupported expression';
}

// evalNode evaluates an item expression as internal/expr does: an int
// literal, True, False, None or np.newaxis under a chain of unary -, +, ~
// and not. Returns {kind: 'int'|'bool'|'none'|'other', n, what, literal};
// literal marks an 'other' value that is a Python literal NumPy refuses as
// an index (a float or complex number, a string, bytes, the ellipsis), not
// an expression.
function evalNode(e) {
  const ops = [];
  while (e.t === 'unary') {
    ops.push(e.op);
    e = e.operand;
  }
  let v;
  let number = false;
  if (e.t === 'num' && e.kind === 'int') v = { kind: 'int', n: e.n };
  else if (e.t === 'num') {
    v = { kind: 'other', what: describeNode(e), literal: true };
    number = true;
  } else if ((e.t === 'other' && e.literal) || e.t === 'ellipsis' || (e.t === 'name' && e.id === 'Ellipsis')) {
    v = { kind: 'other', what: e.t === 'other' ? e.what : 'an ellipsis', literal: true };
  } else if (e.t === 'const') {
    v = e.v === 'None' ? { kind: 'none', what: 'None' } : { kind: 'bool', n: e.v === 'True' ? 1n : 0n };
  } else if (e.t === 'attr' && e.attr === 'newaxis' && e.value.t === 'name' && ['np', 'numpy', 'tf'].includes(e.value.id)) {
    v = { kind: 'none', what: 'newaxis' };
  } else {
    v = { kind: 'other', what: describeNode(e) };
  }
  for (let k = ops.length - 1; k >= 0; k--) {
    const op = ops[k];
    if (op === 'not') {
      if (v.kind !== 'int' && v.kind !== 'bool') return { kind: 'other', what: "a 'not' expression" };
      v = { kind: 'bool', n: v.n === 0n ? 1n : 0n };
      continue;
    }
    if (v.kind !== 'int' && v.kind !== 'bool') {
      if (number && op !== '~') continue; // -1.5 is still a float
      return { kind: 'other', what: `a unary operation on ${v.what}` };
    }
    if (op === '-') v = { kind: 'int', n: -v.n };
    else if (op === '~') v = { kind: 'int', n: -v.n - 1n };
    else v = { kind: 'int', n: v.n };
  }
  return v;
}

// parseIndex parses "x[...]" into items: {kind: 'int', n} | {kind:
// 'slice', start, stop, step} (BigInt or null; bounds clamped to int64 as
// internal/expr clamps them) | {kind: 'newaxis'} | {kind: 'ellipsis'}.
// Several ellipses are kept: TF.js's stridedSlice decides about them.
function parseIndex(src) {
  if (Buffer.byteLength(src, 'utf8') > MAX_INDEX_SOURCE) {
    throw invalid(`index source is longer than the limit of ${MAX_INDEX_SOURCE} bytes`);
  }
  const quoted = JSON.stringify(src.length > 120 ? src.slice(0, 120) + '...' : src);
  const text = src.replace(/\r\n?/g, '\n').replace(/^[ \t\n]+/, '');
  let tree;
  try {
    tree = new PyParser(pyTokens(text)).evalInput();
  } catch (e) {
    if (e instanceof PySyntax) throw invalid(`syntax error in index ${quoted}: ${e.message}`);
    if (e instanceof Unsure) {
      // Never a valid index item, valid Python or not: invalid_spec,
      // unless an earlier item is an integer beyond int64 and the rest is
      // valid Python (then out_of_range), which this parser cannot tell.
      if (e.bigBefore) {
        throw new Skip(`index ${quoted} has ${e.message} after a huge integer: the TF.js oracle's parser cannot tell invalid_spec from out_of_range`, 'parser-ambiguous');
      }
      throw invalid(`index ${quoted} is not a valid basic index (${e.message})`);
    }
    if (e instanceof RangeError) throw new Skip(`index ${quoted} nests too deeply for the TF.js oracle's parser`, 'parser-limit');
    throw e;
  }
  if (tree.t !== 'sub') throw invalid(`index ${quoted} must be a single subscript of a name, like x[1, 2:4]`);
  if (tree.value.t !== 'name') throw invalid(`index ${quoted} must subscript a plain name, like x[1, 2:4], not ${describeNode(tree.value)}`);
  const { dims, tuple } = tree.sub;
  let items;
  if (tuple) items = dims;
  else if (dims[0].t === 'tuple') items = dims[0].elts;
  else items = dims;
  if (items.length > MAX_INDEX_ITEMS) {
    throw invalid(`too many indices for array: ${items.length} items, at most ${MAX_INDEX_ITEMS} are allowed`);
  }
  // A literal NumPy refuses is an item with an error (see refusal), so the
  // names of the subscript are known whatever else it holds.
  return items.map((d, i) => (d.t === 'slice' ? convertSlice(i, d) : convertItem(i, d)));
}

// nonLiteral describes the first part of e that is not a literal (see
// evalNode; lists and tuples of literals are literals), or returns null.
function nonLiteral(e) {
  const stack = [e];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node.t === 'list' || node.t === 'tuple') {
      stack.push(...node.elts);
      continue;
    }
    const v = evalNode(node);
    if (v.kind === 'other' && !v.literal) return v.what;
  }
  return null;
}

// refusal returns what the oracles answer for parsed items that hold a
// literal NumPy refuses (an item of kind 'invalid', or a slice with an
// error), or null: TF's Python x[...] checks each item in order before
// its kernel sees any, so the first refused item's error is the answer,
// unless an index array comes before it (the oracles do not run those:
// null, and advancedSkip says so) or it is an integer beyond int64 after
// two ellipses (TF.js never sees it: a parser-ambiguous skip). A second
// ellipsis is no refused item here: TF.js decides about ellipses.
function refusal(items) {
  let ellipses = 0;
  for (const it of items) {
    if (it.kind === 'array') return null;
    if (it.kind === 'ellipsis') ellipses++;
    const e = it.error;
    if (e === undefined) continue;
    if (e.kind === 'out_of_range' && ellipses >= 2) {
      return new Skip(`index has two ellipses and then ${e.message}: TF.js never sees it`, 'parser-ambiguous');
    }
    return e;
  }
  return null;
}

// arrayLeaves returns the values of an inline list (or a tuple inside the
// index tuple: NumPy reads it as a list) as nested arrays of {kind: 'int'
// | 'bool', n}, or null when a leaf is neither an integer nor a boolean.
function arrayLeaves(e) {
  if (e.t === 'list' || e.t === 'tuple') {
    const out = [];
    for (const x of e.elts) {
      const v = arrayLeaves(x);
      if (v === null) return null;
      out.push(v);
    }
    return out;
  }
  const v = evalNode(e);
  return v.kind === 'int' || v.kind === 'bool' ? v : null;
}

// convertItem converts one item of the index tuple. Advanced indices
// (integer or boolean arrays) become {kind: 'array'} items: a name (an
// input of the case) {name}, an inline list {list: nested leaves}, True,
// False or another boolean expression {bool: 0n | 1n}; the oracles do not
// run them, and say so (see advancedSkip).
function convertItem(i, e) {
  if (e.t === 'ellipsis' || (e.t === 'name' && e.id === 'Ellipsis')) return { kind: 'ellipsis' };
  if (e.t === 'name') return { kind: 'array', name: e.id };
  if (e.t === 'tuple' || e.t === 'list') {
    const what = nonLiteral(e);
    if (what !== null) throw invalid(`item ${i + 1} is ${describeNode(e)} holding ${what}: conform evaluates no expressions`);
    const list = arrayLeaves(e);
    if (list === null) {
      return { kind: 'invalid', error: invalid(`item ${i + 1} is ${describeNode(e)} with an element that is not an integer or a boolean: ${MSG_INVALID_INDEX}`) };
    }
    return { kind: 'array', list };
  }
  const v = evalNode(e);
  switch (v.kind) {
    case 'none': return { kind: 'newaxis' };
    case 'bool': return { kind: 'array', bool: v.n };
    case 'int':
      if (v.n < INT64_MIN_BIG || v.n > INT64_MAX_BIG) {
        return { kind: 'invalid', error: outOfRange(`item ${i + 1}: index ${v.n} does not fit in int64 and is out of bounds for any axis`) };
      }
      return { kind: 'int', n: v.n };
  }
  const err = invalid(`item ${i + 1} is ${v.what}: ${MSG_INVALID_INDEX}`);
  if (v.literal) return { kind: 'invalid', error: err };
  throw err;
}

function convertSlice(i, s) {
  const out = { kind: 'slice', start: null, stop: null, step: null };
  for (const [e, name, lo] of [[s.lower, 'start', INT64_MIN_BIG], [s.upper, 'stop', INT64_MIN_BIG], [s.step, 'step', -INT64_MAX_BIG]]) {
    if (e === null) continue;
    const v = evalNode(e);
    if (v.kind === 'none') continue;
    if (v.kind !== 'int' && v.kind !== 'bool') {
      const seq = e.t === 'list' || e.t === 'tuple';
      if (seq ? nonLiteral(e) !== null : !v.literal) {
        throw invalid(`item ${i + 1}: slice ${name} is ${v.what}: conform evaluates no expressions`);
      }
      // A literal that is not an integer: NumPy's and TF's TypeError.
      if (out.error === undefined) out.error = invalid(`item ${i + 1}: slice ${name} is ${v.what}: ${MSG_SLICE_INDEX}`);
      continue;
    }
    out[name] = v.n < lo ? lo : v.n > INT64_MAX_BIG ? INT64_MAX_BIG : v.n;
  }
  return out;
}

// encodeIndex encodes index items as TF's Python __getitem__ does
// (_slice_helper): a:b:c -> begin a (or 0 and a begin_mask bit), end b
// (or 0 and an end_mask bit), stride c (or 1); ... -> an ellipsis_mask
// bit; None -> a new_axis_mask bit; an integer k -> begin k, end k+1,
// stride 1 and a shrink_axis_mask bit.
function encodeIndex(items) {
  const spec = {
    op: 'strided_slice', begin: [], end: [], strides: [],
    begin_mask: 0, end_mask: 0, ellipsis_mask: 0, new_axis_mask: 0, shrink_axis_mask: 0,
  };
  const num = (v, what, i) => {
    if (v < BigInt(INT32_MIN) || v > BigInt(INT32_MAX)) {
      throw new Skip(`item ${i + 1}: ${what} ${v} is a value beyond int32, which TF.js's stridedSlice cannot take`, 'int32-limit');
    }
    return Number(v);
  };
  items.forEach((it, i) => {
    const setBit = (m) => {
      if (i > 31) throw new Skip(`item ${i + 1} needs bit ${i} of ${m}; TF.js masks are 32-bit integers`, 'int32-limit');
      spec[m] |= 1 << i;
    };
    let b = 0;
    let e = 0;
    let s = 1;
    switch (it.kind) {
      case 'slice':
        if (it.start === null) setBit('begin_mask'); else b = num(it.start, 'slice start', i);
        if (it.stop === null) setBit('end_mask'); else e = num(it.stop, 'slice stop', i);
        if (it.step !== null) s = num(it.step, 'slice step', i);
        break;
      case 'ellipsis':
        setBit('ellipsis_mask');
        break;
      case 'newaxis':
        setBit('new_axis_mask');
        break;
      default:
        b = num(it.n, 'index', i);
        e = num(it.n + 1n, 'end (index + 1)', i);
        setBit('shrink_axis_mask');
    }
    spec.begin.push(b);
    spec.end.push(e);
    spec.strides.push(s);
  });
  return spec;
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
    let scalar = false;
    if (spec.op === 'getitem' || spec.op === 'strided_slice') {
      const x = inputs.x;
      like = x;
      let s = spec;
      if (spec.op === 'getitem') {
        let items;
        try {
          items = parseIndex(spec.index);
        } catch (e) {
          // A subscript that does not parse names no inputs (as in the
          // reference): an input besides x is bad_input first.
          if (e instanceof CaseError) req.checkSubscriptNames([], inputs);
          throw e;
        }
        req.checkSubscriptNames(items, inputs);
        const refused = refusal(items);
        if (refused !== null) throw refused;
        const adv = req.advancedSkip(items, "the TF.js oracle (TF's x[...] encoding on tf.stridedSlice)");
        if (adv !== null) throw adv;
        scalar = items.length === x.shape.length && items.every((it) => it.kind === 'int');
        s = encodeIndex(items);
      }
      const strides = s.strides === null ? s.begin.map(() => 1) : s.strides;
      const begin = int32(s.begin, 'begin');
      const end = int32(s.end, 'end');
      int32(strides, 'strides');
      const xt = mk(x);
      thunk = () => tf.stridedSlice(xt, begin, end, strides, s.begin_mask, s.end_mask,
        s.ellipsis_mask, s.new_axis_mask, s.shrink_axis_mask);
    } else if (spec.op === 'slice') {
      like = inputs.x;
      const begin = int32(spec.begin, 'begin');
      const size = int32(spec.size, 'size');
      const xt = mk(inputs.x);
      thunk = () => tf.slice(xt, begin, size);
    } else if (spec.op === 'gather') {
      // tf.gather(params, indices, axis, batchDims). TF.js's CPU kernel
      // (GatherV2) refuses any index outside [0, params.shape[axis] - 1],
      // negative ones included, before it looks at batchDims: TF's CPU
      // behaviour, bad_indices "error". It has no "zero" mode (TF's GPU
      // behaviour); a "zero" case still runs, because where every index is
      // in range both policies give the same answer, and where TF.js
      // refuses an index it is skipped (below) rather than reported as
      // TF.js's answer to a policy it does not implement.
      const p = inputs.params;
      like = p;
      // tf.gather refuses string params ("must be numeric tensor") and
      // the cpu kernel complex ones (assertNotComplex): TF.js cannot
      // gather them, so they are not run as positions either.
      if (p.kind === 'S' || p.kind === 'U' || p.kind === 'c') {
        throw new Skip(`TF.js's tf.gather (cpu backend) has no ${p.descr} params (strings and complex numbers are refused)`, 'unsupported-dtype');
      }
      const it = mk(indicesFor(inputs.indices));
      const pt = mk(p);
      const zero = spec.bad_indices === 'zero';
      thunk = () => {
        try {
          return tf.gather(pt, it, spec.axis, spec.batch_dims);
        } catch (e) {
          if (zero && /GatherV2: the index value/.test(String(e && e.message))) {
            throw new Skip(`TF.js gather has no bad_indices "zero" mode (TF GPU behaviour); its CPU kernel refused an index: ${e.message}`, 'unsupported-spec');
          }
          throw e;
        }
      };
    } else {
      if (spec.batch_dims !== 0) throw new Skip('TF.js gatherND has no batch_dims', 'unsupported-spec');
      if (spec.bad_indices !== 'error') throw new Skip('TF.js gatherND has no bad_indices "zero" mode (TF GPU behaviour)', 'unsupported-spec');
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
      if (e instanceof Skip) throw e;
      throw mapError(e);
    }
    made.push(out);
    const buf = fromTensor(out, like);
    return scalar ? numpyScalar(buf) : buf;
  } finally {
    for (const t of made) t.dispose();
  }
}

// numpyScalar applies getitem's result rule, which is NumPy's and not TF's
// (TF has no byte order): an index of one integer per input dimension and
// nothing else makes NumPy return a scalar, and np.asarray of a scalar is
// a 0-d array of native (little-endian) byte order; an S or U scalar
// (np.bytes_, np.str_) loses its trailing NULs, and its array is exactly
// as wide as what is left, at least 1. buf is the .npy of TF.js's result
// in the input's dtype.
function numpyScalar(buf) {
  const a = npy.decode(buf);
  const count = a.shape.reduce((x, y) => x * y, 1);
  if (a.kind === 'S' || a.kind === 'U') {
    const unit = a.kind === 'U' ? 4 : 1;
    const strings = [];
    for (let i = 0; i < count; i++) {
      const units = [];
      for (let j = 0; j < a.n; j++) {
        const off = i * a.size + j * unit;
        units.push(unit === 1 ? a.data[off] : (a.big ? a.data.readUInt32BE(off) : a.data.readUInt32LE(off)));
      }
      while (units.length > 0 && units[units.length - 1] === 0) units.pop();
      strings.push(units);
    }
    const width = Math.max(1, ...strings.map((u) => u.length));
    const out = Buffer.alloc(count * width * unit);
    strings.forEach((units, i) => units.forEach((u, j) => {
      if (unit === 1) out[i * width + j] = u;
      else out.writeUInt32LE(u, (i * width + j) * 4);
    }));
    return npy.encode(a.kind === 'S' ? `|S${width}` : `<U${width}`, a.shape, out);
  }
  if (!a.big) return buf;
  // Each float of a complex number is swapped on its own.
  const part = a.kind === 'c' ? a.size / 2 : a.size;
  return npy.encode(a.descr.replace('>', '<'), a.shape, npy.swapped(a.data, part));
}

// indicesFor converts an index array for tf.gatherND and tf.gather.
// Integers of any dtype become int32 values: TF.js has int32 indices only
// and no int64 dtype, and int32 is what a TF.js user's code makes of
// integer data (tf.tensor of integers, and tfjs-converter's int64 tensors,
// are int32); a value beyond int32 is skipped. Other dtypes become the
// nearest TF.js dtype (float32, complex64, bool or string) so that TF.js
// itself rejects them.
function indicesFor(a) {
  const n = count(a);
  if (a.kind === 'b') return a;
  if (a.kind === 'S' || a.kind === 'U') {
    return { tensorOverride: () => toTensor({ ...a, kind: 'S', n: a.size }) };
  }
  if (a.kind === 'f' || a.kind === 'c') {
    const parts = a.kind === 'c' ? 2 : 1;
    const w = a.size / parts;
    const vals = new Float32Array(n * parts);
    for (let i = 0; i < n * parts; i++) {
      const off = i * w;
      if (w === 2) vals[i] = half(a.big ? a.data.readUInt16BE(off) : a.data.readUInt16LE(off));
      else if (w === 4) vals[i] = a.big ? a.data.readFloatBE(off) : a.data.readFloatLE(off);
      else vals[i] = a.big ? a.data.readDoubleBE(off) : a.data.readDoubleLE(off);
    }
    if (parts === 1) return { tensorOverride: () => tf.tensor(vals, a.shape, 'float32') };
    return {
      tensorOverride: () => tf.tidy(() => tf.complex(
        tf.tensor(vals.filter((_, i) => i % 2 === 0), a.shape, 'float32'),
        tf.tensor(vals.filter((_, i) => i % 2 === 1), a.shape, 'float32'))),
    };
  }
  const vals = new Int32Array(n);
  for (let i = 0; i < n; i++) {
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
      throw new Skip(`index value ${v} does not fit TF.js's int32 indices`, 'int32-limit');
    }
    vals[i] = Number(v);
  }
  return { tensorOverride: () => tf.tensor(vals, a.shape, 'int32') };
}

// half decodes IEEE 754 binary16 bits.
function half(h) {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * f * 2 ** -24;
  if (e === 31) return f ? NaN : s * Infinity;
  return s * (1 + f / 1024) * 2 ** (e - 15);
}

// ------------------------------------------------------------ protocol

function evaluate(c) {
  const spec = parseSpec(c);
  const inputs = req.loadInputs(c, spec.op, OP_INPUTS);
  return run(spec, inputs);
}

function respond(line) {
  const c = req.request('tfjs', line, JSON.parse);
  if (c === null) return null;
  const id = JSON.stringify(c.id);
  try {
    return req.output(id, evaluate(c));
  } catch (e) {
    return req.failure('tfjs', id, e);
  }
}

async function main() {
  await tf.setBackend('cpu');
  await tf.ready();
  process.stdout.write(JSON.stringify({
    hello: {
      name: 'tfjs',
      version: tf.version_core,
      ops: OPS,
      notes: {
        getitem: "TF's Python __getitem__ encoding (array_ops._slice_helper) run on tf.stridedSlice; " +
          'the index is parsed as internal/expr parses it',
        gather: 'tf.gather(params, indices, axis, batchDims); the CPU kernel refuses out-of-range indices, ' +
          'so bad_indices "zero" runs only where every index is in range',
        dtypes: 'int32, bool and |S run natively; every other dtype runs as int32 element positions',
      },
    },
  }) + '\n');
  req.serve(respond, 'utf8');
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`tfjs oracle: cannot start: ${e && e.stack}\n`);
    process.exit(1);
  });
} else {
  // For tests: the index parser and encoder, and one case.
  module.exports = { parseIndex, refusal, encodeIndex, respond, CaseError, Skip };
}

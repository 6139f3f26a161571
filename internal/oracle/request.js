// What the Node oracles (./tfjs, ./ort, ./tflite) share of protocol
// conform/1 (see ../README.md): the outcome classes of a case, the reading
// of a request's case fields and inputs (for the oracles that read
// integers as BigInts, ./ort/json.js), the subscript parser's loading, the
// answer lines and the stdin loop. Each oracle keeps its own messages
// where they differ; what is here is word for word what they said.
'use strict';

const fs = require('fs');
const path = require('path');
const util = require('util');
const npy = require('./npy');

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const INT32_MIN = -(1n << 31n);
const INT32_MAX = (1n << 31n) - 1n;

// The ops of a case, the inputs each takes and its spec fields, as the
// registry (package casefile) has them: ./ops.json, generated from it. The
// TF/NumPy ops are the classic ones; getitem takes "x" plus one input per
// name its subscript uses (loadInputs decodes them; checkSubscriptNames
// matches them).
const REGISTRY = require('./ops.json').ops;
const classic = REGISTRY.filter((o) => o.family !== 'onnx');
const onnx = REGISTRY.filter((o) => o.family === 'onnx');
const CLASSIC_OPS = classic.map((o) => o.name);
const ONNX_OPS = onnx.map((o) => o.name);
const CLASSIC_INPUTS = Object.fromEntries(classic.map((o) => [o.name, o.inputs]));
const ONNX_INPUTS = Object.fromEntries(onnx.map((o) => [o.name, o.inputs]));
const fieldNames = (o) => o.fields.map((f) => f.name);
const CLASSIC_FIELDS = Object.fromEntries(classic.map((o) => [o.name, fieldNames(o)]));
const ONNX_FIELDS = Object.fromEntries(onnx.map((o) => [o.name, fieldNames(o)]));
const ALL_FIELDS = { ...CLASSIC_FIELDS, ...ONNX_FIELDS };
// The strided_slice masks.
const MASKS = REGISTRY.find((o) => o.name === 'strided_slice').fields.filter((f) => f.type === 'mask').map((f) => f.name);

// quietConsole sends console output to stderr: stdout is the protocol's.
function quietConsole() {
  for (const name of ['log', 'info', 'warn', 'debug', 'error']) {
    console[name] = (...args) => process.stderr.write(util.format(...args) + '\n');
  }
}

// CaseError is an error answer of the kind given; Skip a case the oracle
// does not run, with the reason.
class CaseError extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}
// Skip is thrown for a case the oracle does not run. code is the reason as
// a code (oracle/README.md lists each oracle's codes), answered next to
// the message as "code".
class Skip extends Error {
  constructor(message, code) {
    super(message);
    this.code = code;
  }
}

// withCode is the JSON member that carries a skip or crash reason's code
// (empty without one).
const withCode = (code) => (code ? `,"code":"${code}"` : '');

const invalid = (msg) => new CaseError('invalid_spec', msg);
const bad = (msg) => new CaseError('bad_input', msg);
const has = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

// ------------------------------------------------------------ case fields
// (integers as BigInts)

function isInt64(v) {
  return typeof v === 'bigint' && v >= INT64_MIN && v <= INT64_MAX;
}

// ints reads a list of integers of int64 (isInteger says which values
// are: BigInts by default, for oracles that parse JSON numbers as such).
function ints(c, name, required, isInteger = isInt64) {
  if (!has(c, name)) {
    if (required) throw bad(`${c.op} case has no "${name}" field`);
    return null;
  }
  const v = c[name];
  if (!Array.isArray(v)) throw bad(`"${name}" must be a list of integers`);
  v.forEach((x, i) => {
    if (!isInteger(x)) throw bad(`${name}[${i}] is not an integer within int64`);
  });
  return v;
}

// mask reads a strided_slice mask: null when the case has none, {int} for
// an integer bitmask, {list} for a list of 0/1 (checked here). TF's masks
// are int32 attributes: an integer within int32 is its 32-bit pattern
// (-2^31 is bit 31 alone, given as 2^31), one beyond int32 (which TF
// refuses) its 64-bit pattern.
function mask(c, name) {
  if (!has(c, name)) return null;
  const v = c[name];
  if (Array.isArray(v)) {
    const list = ints(c, name, true);
    list.forEach((e, i) => {
      if (e !== 0n && e !== 1n) throw invalid(`${name}: mask list entry ${i} is ${e}; entries must be 0 or 1`);
    });
    return { list };
  }
  if (!isInt64(v)) throw bad(`"${name}" must be an integer bitmask or a list of 0/1`);
  if (v >= -(2n ** 31n) && v < 2n ** 31n) return { int: BigInt.asUintN(32, v) };
  return { int: v };
}

// caseOp reads the case's op.
function caseOp(c) {
  if (!has(c, 'op')) throw bad('case has no "op" field');
  const op = c.op === null ? '' : c.op;
  if (typeof op !== 'string') throw bad('"op" must be a string');
  return op;
}

// checkFields refuses an op the oracle does not know (fields: op -> its
// fields, the oracle's ops) and a field that belongs to any op of the case
// format (ALL_FIELDS) but not to op: bad_input, as casefile and
// the NumPy oracle have it.
function checkFields(c, op, fields) {
  if (!has(fields, op)) throw bad(`unknown op "${op}"`);
  const own = ALL_FIELDS[op] || fields[op];
  for (const other of Object.keys(ALL_FIELDS)) {
    if (other === op) continue;
    for (const f of ALL_FIELDS[other]) {
      if (has(c, f) && !own.includes(f)) throw bad(`field "${f}" does not apply to op ${op}`);
    }
  }
}

// classicSpec reads the fields of TF's ops (getitem, strided_slice, slice,
// gather_nd) into spec, the masks with readMask; false for another op.
// batch_dims is a BigInt.
function classicSpec(c, spec, readMask) {
  switch (spec.op) {
    case 'getitem':
      if (!has(c, 'index')) throw bad('getitem case has no "index" field');
      if (c.index !== null && typeof c.index !== 'string') throw bad('"index" must be a string');
      spec.index = c.index === null ? '' : c.index; // Go's json.Unmarshal leaves null as ""
      return true;
    case 'strided_slice':
      spec.begin = ints(c, 'begin', true);
      spec.end = ints(c, 'end', true);
      spec.strides = ints(c, 'strides', false);
      for (const m of MASKS) spec[m] = readMask(c, m);
      return true;
    case 'slice':
      spec.begin = ints(c, 'begin', true);
      spec.size = ints(c, 'size', true);
      return true;
    case 'gather_nd':
      spec.batch_dims = batchDims(c);
      spec.bad_indices = badIndices(c);
      return true;
  }
  return false;
}

function batchDims(c) {
  if (!has(c, 'batch_dims')) return 0n;
  const b = c.batch_dims;
  if (!isInt64(b)) throw bad('"batch_dims" must be an integer');
  if (b < INT32_MIN || b > INT32_MAX) throw invalid(`batch_dims ${b} is out of range`);
  return b;
}

// axis reads an "axis" field of integer (BigInt) value: def when the case
// has none.
function axis(c, def = 0n) {
  if (!has(c, 'axis')) return def;
  if (!isInt64(c.axis)) throw bad('"axis" must be an integer');
  return c.axis;
}

function badIndices(c) {
  const policy = has(c, 'bad_indices') ? c.bad_indices : 'error';
  if (policy !== 'error' && policy !== 'zero') throw bad('"bad_indices" must be "error" or "zero"');
  return policy;
}

// loadInputs decodes the case's inputs, the ones op takes (opInputs: op ->
// its input names).
function loadInputs(c, op, opInputs) {
  if (!has(c, 'inputs')) throw bad('case has no "inputs" field');
  const inputs = c.inputs;
  if (inputs === null || typeof inputs !== 'object' || Array.isArray(inputs)) {
    throw bad('"inputs" must be an object mapping input names to .npy files');
  }
  let want = opInputs[op];
  if (op === 'getitem') {
    // "x" and the names of the subscript's index arrays (matched against
    // the subscript by checkSubscriptNames).
    want = want.concat(Object.keys(inputs).filter((name) => !want.includes(name)).sort());
  }
  for (const name of Object.keys(inputs).sort()) {
    if (!want.includes(name)) throw bad(`op ${op} has no input "${name}" (it takes ${want.join(', ')})`);
  }
  const out = {};
  for (const name of want) {
    if (!has(inputs, name)) throw bad(`op ${op} needs input "${name}"`);
    let v = inputs[name];
    if (v === null) v = '';
    if (typeof v !== 'string') throw bad(`input "${name}" must be a string`);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v) || v.length % 4 !== 0) throw bad(`input "${name}": invalid base64`);
    try {
      out[name] = npy.decode(Buffer.from(v, 'base64'));
    } catch (e) {
      throw bad(`input "${name}": ${e.message}`);
    }
  }
  return out;
}

// ------------------------------------------------------------ getitem parser

// getitem subscripts are parsed by the TF.js oracle's parser, which
// follows internal/expr exactly (see ./README.md); it is loaded on first use
// (it loads TensorFlow.js), and getitem is offered only if it is there.
const TFJS_ORACLE = path.join(__dirname, 'tfjs', 'oracle.js');
let tfjsParser = null;
function haveSubscriptParser() {
  try {
    require.resolve('@tensorflow/tfjs-core');
    require.resolve('@tensorflow/tfjs-backend-cpu');
    return fs.existsSync(TFJS_ORACLE);
  } catch (e) {
    return false;
  }
}
function subscriptParser() {
  if (tfjsParser === null) tfjsParser = require(TFJS_ORACLE);
  return tfjsParser;
}

// parseSubscript parses a NumPy subscript with the TF.js oracle's parser
// into its items, turning the parser's errors into this module's; in a
// skip reason, what tfjsName matches (the parser's mentions of TF.js) is
// replaced by "the parser". A subscript that does not parse names no
// inputs: the case's inputs are checked against "x" alone first, as the
// reference does (an input besides x is bad_input before the parse error).
function parseSubscript(index, tfjsName, inputs) {
  const p = subscriptParser();
  const mapped = (e) => {
    if (e instanceof p.CaseError) return new CaseError(e.kind, e.message);
    if (e instanceof p.Skip) return new Skip(e.message.replace(tfjsName, 'the parser'), e.code);
    return e;
  };
  let items;
  try {
    items = p.parseIndex(index);
  } catch (e) {
    if (e instanceof p.CaseError) checkSubscriptNames([], inputs);
    throw mapped(e);
  }
  // A literal NumPy refuses is an item (its names are known): the names
  // are checked first, then the parser's refusal is the answer.
  checkSubscriptNames(items, inputs);
  const refused = p.refusal(items);
  if (refused !== null) throw mapped(refused);
  return items;
}

// checkSubscriptNames matches the names of a getitem subscript's index
// arrays (parsed items of kind 'array' with a name) against the case's
// inputs other than "x": a name with no input, or an input no name uses,
// is bad_input. "x" may appear in the subscript.
function checkSubscriptNames(items, inputs) {
  const used = new Set(items.filter((it) => it.kind === 'array' && it.name).map((it) => it.name));
  for (const name of [...used].sort()) {
    if (!has(inputs, name)) throw bad(`getitem subscript uses "${name}", which is not an input of the case`);
  }
  for (const name of Object.keys(inputs).sort()) {
    if (name !== 'x' && !used.has(name)) throw bad(`getitem input "${name}" is not used by the subscript`);
  }
}

// advancedSkip returns the skip for a getitem subscript with advanced
// indices (integer or boolean arrays: names, inline lists, True/False)
// that oracle who does not run, or null when there are none.
function advancedSkip(items, who) {
  const adv = items.filter((it) => it.kind === 'array');
  if (adv.length === 0) return null;
  const what = adv.map((it) => (it.name ? `the array ${it.name}` : it.list ? 'an inline list' : 'a boolean')).join(', ');
  return new Skip(`the subscript has advanced indices (${what}); ${who} runs basic indexing only`, 'advanced-index');
}

// skipHugeDims skips a case with an input dimension beyond max, the
// largest the oracle's runtime can be given (possible only with no
// elements); limit says whose limit it is.
function skipHugeDims(inputs, max, limit) {
  for (const [name, a] of Object.entries(inputs)) {
    const i = a.shape.findIndex((d) => d > max);
    if (i >= 0) throw new Skip(`${name}.shape[${i}] = ${a.shape[i]} is beyond ${limit}`, 'int32-limit');
  }
}

// ------------------------------------------------------------ protocol

// request parses a request line with parse; null (said on stderr, as
// oracle name) for a line that is not JSON or has no id.
function request(name, line, parse) {
  let c;
  try {
    c = parse(line);
  } catch (e) {
    process.stderr.write(`${name} oracle: request is not JSON: ${e.message}\n`);
    return null;
  }
  if (c === null || typeof c !== 'object' || Array.isArray(c) || !has(c, 'id')) {
    process.stderr.write(`${name} oracle: request without an id\n`);
    return null;
  }
  return c;
}

// output is the answer line for a case's output (.npy bytes); id is JSON.
function output(id, out) {
  return `{"id":${id},"output":"${out.toString('base64')}"}\n`;
}

// failure is the answer line for what a case threw: an error, a skip (with
// its code), or (said on stderr) an internal error, answered as a skip with
// the code "internal-error". quote writes a
// message as a JSON string.
function failure(name, id, e, quote = JSON.stringify) {
  if (e instanceof CaseError) {
    return `{"id":${id},"error":{"kind":"${e.kind}","message":${quote(e.message)}}}\n`;
  }
  if (e instanceof Skip) return `{"id":${id},"skip":${quote(e.message)}${withCode(e.code)}}\n`;
  process.stderr.write(`${name} oracle: internal error on request ${id}: ${e && e.stack}\n`);
  return `{"id":${id},"skip":${quote(`${name} oracle internal error: ${e && e.message}`)}${withCode('internal-error')}}\n`;
}

// readLines calls batch with the non-blank lines of each chunk of stdin,
// and end with the last line (if not blank) when stdin ends.
function readLines(batch, end) {
  let pending = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop();
    batch(lines.filter((l) => l.trim() !== ''));
  });
  process.stdin.on('end', () => end(pending.trim() !== '' ? [pending] : []));
}

// serve answers the requests on stdin one by one with respond (a line,
// or null for none), writing the answers to a chunk of stdin at once in
// the given encoding.
function serve(respond, encoding) {
  const answer = (lines) => {
    const out = [];
    for (const l of lines) {
      const r = respond(l);
      if (r !== null) out.push(r);
    }
    if (out.length > 0) process.stdout.write(out.join(''), encoding);
  };
  readLines(answer, answer);
}

module.exports = {
  parseSubscript,
  INT64_MAX, INT64_MIN, INT32_MIN, INT32_MAX, MASKS,
  CLASSIC_OPS, ONNX_OPS, CLASSIC_INPUTS, ONNX_INPUTS, CLASSIC_FIELDS, ONNX_FIELDS,
  quietConsole, CaseError, Skip, withCode, invalid, bad, has,
  isInt64, ints, mask, caseOp, checkFields, classicSpec, batchDims, badIndices, axis, loadInputs,
  checkSubscriptNames, advancedSkip, skipHugeDims, ALL_FIELDS,
  haveSubscriptParser, subscriptParser,
  request, output, failure, readLines, serve,
};

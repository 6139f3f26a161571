// A JSON parser that keeps integers exact: a number literal without a
// fraction or exponent becomes a BigInt (so int64 bounds such as
// 9223372036854775807 survive, which JSON.parse would round to 2^63);
// any other number becomes a Number. Everything else is as JSON.parse,
// except that a duplicate key keeps its last value (as JSON.parse and Go's
// encoding/json do) and no reviver is taken.
'use strict';

class JSONError extends SyntaxError {}

function parse(text) {
  let i = 0;
  const n = text.length;
  const fail = (what) => {
    throw new JSONError(`${what} at position ${i}`);
  };
  const ws = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
  const string = () => {
    // text[i] is the opening quote.
    const start = i;
    let j = i + 1;
    let escaped = false;
    for (;;) {
      const q = text.indexOf('"', j);
      if (q < 0) fail('unterminated string');
      const bs = text.indexOf('\\', j);
      if (bs >= 0 && bs < q) {
        escaped = true;
        j = bs + 2;
        continue;
      }
      j = q;
      break;
    }
    i = j + 1;
    const body = text.slice(start + 1, j);
    // Control characters must be escaped in JSON.
    if (/[\u0000-\u001f]/.test(body)) fail('control character in string');
    if (!escaped) return body;
    try {
      return JSON.parse(text.slice(start, j + 1));
    } catch (e) {
      return fail(`bad string: ${e.message}`);
    }
  };
  const value = (depth) => {
    if (depth > 512) fail('nesting too deep');
    ws();
    if (i >= n) fail('unexpected end of input');
    const c = text[i];
    if (c === '{') {
      i++;
      const obj = {};
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a string key');
        const key = string();
        ws();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        const v = value(depth + 1);
        Object.defineProperty(obj, key, { value: v, enumerable: true, writable: true, configurable: true });
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const arr = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail("expected ',' or ']'");
      }
    }
    if (c === '"') return string();
    for (const [lit, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(lit, i)) {
        i += lit.length;
        return v;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) fail('unexpected character');
    i += m[0].length;
    if (m[1] === undefined && m[2] === undefined) return BigInt(m[0]);
    return Number(m[0]);
  };
  const v = value(0);
  ws();
  if (i !== n) fail('unexpected data after the value');
  return v;
}

// stringify writes a value as JSON; a BigInt (such as a request id read
// by parse) becomes an integer literal.
function stringify(v) {
  if (typeof v === 'bigint') return v.toString();
  return JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? Number(x) : x));
}

module.exports = { parse, JSONError, stringify };

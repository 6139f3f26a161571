// A minimal FlatBuffers writer for the few tables of TFLite's schema that a
// one-op model needs (tensorflow/lite/schema/schema.fbs). Objects are laid
// out front to back: a table's vtable right before it, and every object a
// table or vector refers to after it (FlatBuffers offsets are unsigned and
// point forward). Scalars are aligned to their size, vectors to 4 bytes
// and their elements' size, buffer data to 16 bytes (force_align: 16).
'use strict';

// Field values:
//   ['u8'|'i8'|'bool', v], ['i32'|'u32', v]          inline scalars
//   ['table', fields]                                 a sub-table
//   ['tables', [fields, ...]]                         a vector of tables
//   ['i32s', Int32Array|number[]]                     a vector of int32
//   ['bytes', Uint8Array, align]                      a vector of ubyte
//   ['string', text]                                  an ASCII string
// A table is an array of field values indexed by field id (holes for
// absent fields).

const SIZE = { u8: 1, i8: 1, bool: 1, i32: 4, u32: 4 };

class Writer {
  constructor(capacity) {
    this.buf = Buffer.allocUnsafe(capacity);
    this.pos = 0;
  }

  reserve(n) {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const b = Buffer.allocUnsafe(cap);
    this.buf.copy(b, 0, 0, this.pos);
    this.buf = b;
  }

  // pad advances pos with zeros until (pos + extra) % align === 0.
  pad(align, extra = 0) {
    const n = (align - ((this.pos + extra) % align)) % align;
    this.reserve(n);
    this.buf.fill(0, this.pos, this.pos + n);
    this.pos += n;
  }

  // table writes a vtable and its table; returns the table's position.
  table(fields) {
    const n = fields.length;
    // Inline layout: soffset, then 4-byte fields, then 1-byte fields.
    const slots = new Array(n).fill(0);
    let size = 4;
    for (const want of [4, 1]) {
      for (let i = 0; i < n; i++) {
        const f = fields[i];
        if (f === undefined) continue;
        const s = SIZE[f[0]] || 4; // references are 4-byte uoffsets
        if (s !== want) continue;
        slots[i] = size;
        size += s;
      }
    }
    const inline = size;
    size = (size + 3) & ~3;
    const vtSize = 4 + 2 * n;
    this.pad(4, vtSize);
    this.reserve(vtSize + size);
    const vt = this.pos;
    const b = this.buf;
    b.writeUInt16LE(vtSize, vt);
    b.writeUInt16LE(inline, vt + 2);
    for (let i = 0; i < n; i++) b.writeUInt16LE(slots[i], vt + 4 + 2 * i);
    const t = vt + vtSize;
    b.fill(0, t, t + size);
    b.writeInt32LE(t - vt, t);
    this.pos = t + size;
    for (let i = 0; i < n; i++) {
      const f = fields[i];
      if (f === undefined) continue;
      const at = t + slots[i];
      switch (f[0]) {
        case 'u8': case 'bool': this.buf.writeUInt8(f[1] & 0xff, at); break;
        case 'i8': this.buf.writeInt8(f[1], at); break;
        case 'i32': this.buf.writeInt32LE(f[1], at); break;
        case 'u32': this.buf.writeUInt32LE(f[1], at); break;
        default: {
          const child = this.object(f); // may grow (replace) this.buf
          this.buf.writeUInt32LE(child - at, at);
        }
      }
    }
    return t;
  }

  // object writes a referenced object and returns where it starts.
  object(f) {
    switch (f[0]) {
      case 'table':
        return this.table(f[1]);
      case 'tables': {
        const list = f[1];
        this.pad(4);
        this.reserve(4 + 4 * list.length);
        const v = this.pos;
        this.buf.writeUInt32LE(list.length, v);
        this.pos += 4 + 4 * list.length;
        list.forEach((fields, i) => {
          const slot = v + 4 + 4 * i;
          const t = this.table(fields);
          this.buf.writeUInt32LE(t - slot, slot);
        });
        return v;
      }
      case 'i32s': {
        const vals = f[1];
        this.pad(4);
        this.reserve(4 + 4 * vals.length);
        const v = this.pos;
        this.buf.writeUInt32LE(vals.length, v);
        for (let i = 0; i < vals.length; i++) this.buf.writeInt32LE(vals[i], v + 4 + 4 * i);
        this.pos += 4 + 4 * vals.length;
        return v;
      }
      case 'bytes': {
        const data = f[1];
        this.pad(Math.max(4, f[2] || 1), 4);
        this.reserve(4 + data.length);
        const v = this.pos;
        this.buf.writeUInt32LE(data.length, v);
        this.buf.set(data, v + 4);
        this.pos += 4 + data.length;
        return v;
      }
      case 'string': {
        const s = f[1];
        this.pad(4);
        this.reserve(5 + s.length);
        const v = this.pos;
        this.buf.writeUInt32LE(s.length, v);
        this.buf.write(s, v + 4, 'latin1');
        this.buf[v + 4 + s.length] = 0;
        this.pos += 5 + s.length;
        return v;
      }
    }
    throw new Error(`flatbuf: unknown field type ${f[0]}`);
  }
}

// One writer, reused: finish's result is valid until the next call.
const shared = new Writer(1 << 16);

// finish writes a whole buffer: the root offset, the file identifier and
// the root table. The bytes it returns are overwritten by the next call.
function finish(root, ident) {
  const w = shared;
  w.pos = 0;
  w.reserve(8);
  w.buf.writeUInt32LE(0, 0);
  w.buf.write(ident, 4, 'latin1');
  w.pos = 8;
  const t = w.table(root);
  w.buf.writeUInt32LE(t, 0);
  w.pad(16);
  return w.buf.subarray(0, w.pos);
}

module.exports = { finish };

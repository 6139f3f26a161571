// TensorFlow Lite's interpreter and kernels as the emscripten build that
// @tensorflow/tfjs-tflite ships (wasm/tflite_web_api_cc.{js,wasm}), loaded
// directly: none of tfjs-tflite's JavaScript (nor TensorFlow.js) is used.
// The embind API: TFLiteWebModelRunner.CreateFromBufferAndOptions(ptr,
// len, options) builds an interpreter for a model in the module's heap and
// allocates its tensors (every op's Prepare runs there); a runner's
// GetInputs() and GetOutputs() give TensorInfo objects whose data() is a
// typed-array view of the tensor in the heap; Infer() runs Invoke.
//
// The WebAssembly module is compiled once; an instance is created from it
// synchronously. A trap (WebAssembly.RuntimeError: an out-of-bounds memory
// access, an abort, ...) leaves the instance unusable, so any exception
// from inside the module drops the instance, with every cached runner,
// and a fresh one is made before the error is passed on as a Trap.
'use strict';

const fs = require('fs');
const path = require('path');

const PKG = '@tensorflow/tfjs-tflite';
const VARIANT = 'tflite_web_api_cc'; // the build without SIMD or threads

class Trap extends Error {}

// OracleError is a fault of the caller (an input the web API cannot feed,
// a size mismatch), not of TFLite.
class OracleError extends Error {}

// A failed model: TFLite's error message and where it came from.
class ModelError extends Error {
  constructor(message, stage) {
    super(message);
    this.stage = stage; // 'prepare' (runner creation) or 'invoke'
  }
}

function packageDir() {
  return path.dirname(require.resolve(`${PKG}/package.json`));
}

function version() {
  return require(`${PKG}/package.json`).version;
}

// Lines TFLite writes around the message that matters.
const NOISE = [
  /^Node number \d+ \([A-Z_0-9]+\) failed to (prepare|invoke)\.?$/,
  /^Failed to apply the default TensorFlow Lite delegate indexed at \d+\.?$/,
  /^Created TensorFlow Lite XNNPACK delegate for CPU\.?$/,
];

// tfliteMessage picks TFLite's own error message out of what it logged.
function tfliteMessage(lines) {
  for (const line of lines) {
    const m = /^(?:ERROR|WARNING): (.*)$/.exec(line);
    if (!m) continue;
    const s = m[1].trim();
    if (s === '' || NOISE.some((re) => re.test(s))) continue;
    return s;
  }
  return null;
}

class Runtime {
  constructor(opts = {}) {
    const dir = path.join(packageDir(), 'wasm');
    this.factory = require(path.join(dir, `${VARIANT}.js`));
    this.wasmModule = new WebAssembly.Module(fs.readFileSync(path.join(dir, `${VARIANT}.wasm`)));
    this.maxRunners = opts.maxRunners || 1024;
    this.instances = 0;
    this.M = null;
    this.log = [];
    this.runners = new Map(); // key -> {runner, status, ptr} or ModelError
    this.instantiate();
  }

  // instantiate makes a fresh instance of the compiled module.
  instantiate() {
    const log = (s) => this.log.push(String(s));
    const mod = this.wasmModule;
    const M = {
      print: log,
      printErr: log,
      instantiateWasm(imports, receive) {
        const inst = new WebAssembly.Instance(mod, imports);
        receive(inst, mod);
        return inst.exports;
      },
    };
    const ready = this.factory(M);
    if (ready && typeof ready.catch === 'function') ready.catch(() => {});
    if (!M.calledRun || typeof M.TFLiteWebModelRunner !== 'function') {
      throw new Error('the TFLite WebAssembly module did not start synchronously');
    }
    this.M = M;
    this.runners = new Map();
    this.instances++;
  }

  // trapped drops the instance after an exception from inside it and
  // returns the Trap to throw.
  trapped(e) {
    const what = e instanceof Error ? `${e.name}: ${e.message}` : `exception ${String(e)}`;
    const logged = this.log.filter((l) => l.trim() !== '').slice(-3).join(' | ');
    try {
      this.reset();
    } catch (e2) {
      return new Trap(`${what}; re-creating the instance failed too: ${e2.message}`);
    }
    return new Trap(logged ? `${what} (TFLite log: ${logged})` : what);
  }

  // reset drops the instance, with every cached runner, and makes a fresh
  // one: after a trap, and after a run that leaves the heap corrupted
  // without one (see stridedSlice in oracle.js). If making the new one
  // fails, run makes it later.
  reset() {
    this.M = null;
    this.runners = new Map();
    this.instantiate();
  }

  // runner returns the cached runner for key, creating it from the model
  // build() writes; a model TFLite refuses is cached as its ModelError.
  runner(key, build) {
    let r = this.runners.get(key);
    if (r !== undefined) {
      this.runners.delete(key);
      this.runners.set(key, r);
      return r;
    }
    const M = this.M;
    let bytes;
    try {
      bytes = build();
    } catch (e) {
      throw new OracleError(`writing the model: ${e && e.stack}`);
    }
    const ptr = M._malloc(bytes.length);
    if (!ptr) throw new OracleError(`cannot allocate ${bytes.length} bytes for the model`);
    M.HEAPU8.set(bytes, ptr);
    this.log = [];
    const status = M.TFLiteWebModelRunner.CreateFromBufferAndOptions(ptr, bytes.length, {
      numThreads: 1,
      enableProfiling: false,
      maxProfilingBufferEntries: 0,
    });
    if (!status.ok()) {
      const msg = tfliteMessage(this.log) || status.errorMessage();
      status.delete();
      M._free(ptr);
      r = new ModelError(msg, 'prepare');
    } else {
      // The runner lives inside the status (a StatusOr holding it by
      // value): value() is a reference into it, so the runner is freed by
      // deleting the status. Deleting the runner handle instead frees an
      // interior pointer and corrupts the heap (seen here: traps and hangs
      // hundreds of cases later).
      r = { runner: status.value(), status, ptr };
    }
    this.runners.set(key, r);
    if (this.runners.size > this.maxRunners) {
      const [oldKey, old] = this.runners.entries().next().value;
      this.runners.delete(oldKey);
      if (!(old instanceof ModelError)) {
        old.status.delete();
        M._free(old.ptr);
      }
    }
    return r;
  }

  // run feeds the graph inputs (little-endian bytes, one Uint8Array per
  // input) to the model key (written by build() if not cached), invokes
  // it and returns the outputs as [{type, shape, bytes}] (bytes copied out
  // of the heap). TFLite's refusals throw ModelError; an exception from
  // inside the module throws Trap. After a runner's first successful run
  // the heap addresses of its tensors are kept (the arena is planned once,
  // in Prepare, and every output shape here is known there), so later runs
  // make no embind calls but Infer.
  run(key, build, feeds) {
    if (this.M === null) this.instantiate();
    this.log = [];
    try {
      const r = this.runner(key, build);
      if (r instanceof ModelError) throw r;
      if (r.io !== undefined) return this.runCached(r, feeds);
      const { runner } = r;
      const io = { ins: [], outs: [] };
      const ins = runner.GetInputs();
      try {
        if (ins.size() !== feeds.length) throw new OracleError(`model has ${ins.size()} inputs, ${feeds.length} fed`);
        for (let i = 0; i < feeds.length; i++) {
          const t = ins.get(i);
          try {
            const view = t.data();
            if (typeof view !== 'object' || view === null) {
              throw new OracleError(`input ${i} (${t.dataType}) cannot be fed through the web API`);
            }
            if (view.byteLength !== feeds[i].length) {
              throw new OracleError(`input ${i}: tensor has ${view.byteLength} bytes, ${feeds[i].length} fed`);
            }
            new Uint8Array(view.buffer, view.byteOffset, view.byteLength).set(feeds[i]);
            io.ins.push({ ptr: view.byteOffset, len: view.byteLength });
          } finally {
            t.delete();
          }
        }
      } finally {
        ins.delete();
      }
      this.log = [];
      if (!runner.Infer()) {
        throw new ModelError(tfliteMessage(this.log) || 'Infer() failed without a message', 'invoke');
      }
      const outs = runner.GetOutputs();
      const results = [];
      try {
        for (let i = 0; i < outs.size(); i++) {
          const t = outs.get(i);
          try {
            const view = t.data();
            if (typeof view !== 'object' || view === null) {
              throw new OracleError(`output ${i} (${t.dataType}) cannot be read through the web API`);
            }
            const shape = t.shape === '' ? [] : String(t.shape).split(',').map(Number);
            const out = { type: t.dataType, shape, ptr: view.byteOffset, len: view.byteLength };
            io.outs.push(out);
            results.push({ type: out.type, shape, bytes: this.M.HEAPU8.slice(out.ptr, out.ptr + out.len) });
          } finally {
            t.delete();
          }
        }
      } finally {
        outs.delete();
      }
      r.io = io;
      return results;
    } catch (e) {
      if (e instanceof ModelError || e instanceof OracleError) throw e;
      throw this.trapped(e);
    }
  }

  // runCached runs a runner whose tensor addresses are known.
  runCached(r, feeds) {
    const { ins, outs } = r.io;
    if (ins.length !== feeds.length) throw new OracleError(`model has ${ins.length} inputs, ${feeds.length} fed`);
    for (let i = 0; i < feeds.length; i++) {
      if (ins[i].len !== feeds[i].length) {
        throw new OracleError(`input ${i}: tensor has ${ins[i].len} bytes, ${feeds[i].length} fed`);
      }
      this.M.HEAPU8.set(feeds[i], ins[i].ptr);
    }
    this.log = [];
    if (!r.runner.Infer()) {
      throw new ModelError(tfliteMessage(this.log) || 'Infer() failed without a message', 'invoke');
    }
    const heap = this.M.HEAPU8; // (re-read: Infer may have grown the memory)
    return outs.map((o) => ({ type: o.type, shape: o.shape, bytes: heap.slice(o.ptr, o.ptr + o.len) }));
  }
}

module.exports = { Runtime, Trap, ModelError, OracleError, version, VARIANT };

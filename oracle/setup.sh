#!/bin/sh
# Installs what conform's oracles need on a Debian machine, idempotently:
# NumPy for /usr/bin/python3 (Debian's python3-numpy), node + npm if node is
# missing, and the pinned TF.js, ONNX Runtime and TFLite (tfjs-tflite's
# WebAssembly build) packages of oracle/package-lock.json in
# oracle/node_modules. Run from anywhere: sh oracle/setup.sh
set -eu

here=$(cd "$(dirname "$0")" && pwd)

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
fi

need_apt=
if ! /usr/bin/python3 -c 'import numpy' >/dev/null 2>&1; then
	need_apt="$need_apt python3-numpy"
fi
if ! command -v node >/dev/null 2>&1; then
	need_apt="$need_apt nodejs"
fi
if ! command -v npm >/dev/null 2>&1; then
	need_apt="$need_apt npm"
fi
if [ -n "$need_apt" ]; then
	echo "setup: apt-get install$need_apt"
	$SUDO apt-get update
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y $need_apt
fi

# onnxruntime-node's install script would download extra (GPU) files, which
# fails here and is not needed: the CPU library ships inside the package.
ONNXRUNTIME_NODE_INSTALL=skip
export ONNXRUNTIME_NODE_INSTALL

# npm ci installs exactly the lock file; skip it when node_modules already
# matches (npm records what it installed in node_modules/.package-lock.json).
if [ -f "$here/node_modules/.package-lock.json" ] &&
	[ -f "$here/node_modules/@tensorflow/tfjs-core/package.json" ] &&
	[ -f "$here/node_modules/onnxruntime-node/package.json" ] &&
	[ -f "$here/node_modules/@tensorflow/tfjs-tflite/wasm/tflite_web_api_cc.wasm" ] &&
	[ "$here/node_modules/.package-lock.json" -nt "$here/package-lock.json" ]; then
	echo "setup: oracle/node_modules is up to date"
else
	echo "setup: npm ci in oracle/"
	(cd "$here" && npm ci --no-audit --no-fund)
fi

echo "setup: versions:"
echo "  python3: $(/usr/bin/python3 --version 2>&1)"
echo "  numpy:   $(/usr/bin/python3 -c 'import numpy; print(numpy.__version__)')"
echo "  node:    $(node --version)"
echo "  npm:     $(npm --version 2>/dev/null)"
(cd "$here" && node -e '
for (const p of ["@tensorflow/tfjs-core", "@tensorflow/tfjs-backend-cpu", "onnxruntime-node", "@tensorflow/tfjs-tflite"]) {
  console.log("  " + p + ": " + require(p + "/package.json").version);
}
// The ONNX Runtime CPU library loads (the package ships it per platform).
require("onnxruntime-node");
// TFLite'"'"'s WebAssembly build compiles (the TFLite oracle loads it directly).
const fs = require("fs"), path = require("path");
new WebAssembly.Module(fs.readFileSync(path.join(path.dirname(
  require.resolve("@tensorflow/tfjs-tflite/package.json")), "wasm", "tflite_web_api_cc.wasm")));')

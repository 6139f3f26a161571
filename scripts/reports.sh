#!/usr/bin/env bash
# Regenerates the published reports from one run of conform report over
# every implementation conform publishes: the reference engine and its
# oracles NumPy, TF.js, ONNX Runtime and TFLite (after `conform setup`),
# the columns of the compliance matrix; and, for the ecosystem page only,
# PyTorch and Dask through the adapters in examples/pytorch and
# examples/dask (/usr/bin/python3 with Debian's python3-torch and
# python3-dask) and gorgonia through the child in examples/gorgonia,
# built here. It writes
#
#   DIR/compliance.md                  the compliance matrix (docs/reports.md)
#   DIR/ecosystem.md, ecosystem.html   the ecosystem page
#
#   scripts/reports.sh [DIR [DAY]]
#
# DIR is docs by default. DAY (YYYY-MM-DD) is the day the ecosystem page
# states it was generated, today in UTC by default; .ci/run passes the day
# of the committed page, so that the pages it regenerates are byte for
# byte the committed ones when the results have not changed.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-docs}
day=${2:-}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/conform" ./cmd/conform
(cd examples/gorgonia && go build -o "$bin/gorgonia-child" ./cmd/gorgonia-child)
"$bin/conform" report \
  --impl engine --impl numpy --impl tfjs --impl ort --impl tflite \
  --ecosystem-impl '/usr/bin/python3 examples/pytorch/adapter.py' \
  --ecosystem-impl '/usr/bin/python3 examples/dask/adapter.py' \
  --ecosystem-impl "$bin/gorgonia-child" \
  --format md --out "$dir/compliance.md" --ecosystem "$dir/ecosystem" ${day:+--date "$day"}

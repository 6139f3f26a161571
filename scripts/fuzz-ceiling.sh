#!/bin/sh
# Where the CPU of `conform fuzz --impl engine --oracle numpy` goes, and how
# fast fuzzing could go on this machine whatever the oracle did.
#
#   sh scripts/fuzz-ceiling.sh        (Linux: reads /proc; needs /usr/bin/python3 with NumPy)
#
# Runs, DURATION each (default 20s), with the default --jobs:
#   1. conform fuzz against the NumPy oracle;
#   2. conform fuzz against a child that answers every request with a skip,
#      reading nothing of it but its id: conform's own work with (almost) no
#      oracle behind it;
# and for each prints the cases a second and the CPU time a case of conform's
# process and of its children, read from /proc near the end of the run. Then
#   3. times, in one Python process with no pipe, the least a NumPy child can
#      do for a case: read one JSON request holding a small raw array, make the
#      array, slice it, write the raw answer (no check of any field).
#
# Two cores give 2 s of CPU a second: N cases a second leave 2/N s a case
# for conform and its children together (50 µs at 40,000 cases/s).
set -eu
cd "$(dirname "$0")/.."
DURATION=${DURATION:-20s}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/conform" ./cmd/conform

cat > "$work/skip_child.py" <<'EOF'
import json, os, sys
ops = ["getitem", "strided_slice", "slice", "gather_nd", "gather", "take", "take_along_axis",
       "onnx_slice", "onnx_gather_nd", "onnx_gather", "onnx_gather_elements"]
out = sys.stdout.buffer
out.write((json.dumps({"hello": {"name": "skip", "version": "0", "ops": ops, "arrays": "raw"}}) + "\n").encode())
out.flush()
fd, rest = sys.stdin.fileno(), b""
while True:
    chunk = os.read(fd, 1 << 20)
    if not chunk:
        break
    lines = (rest + chunk).split(b"\n")
    rest = lines.pop()
    answers = []
    for line in lines:
        i = line.index(b'"id":') + 5
        answers.append(b'{"id":%s,"skip":"x"}\n' % line[i:line.index(b",", i)])
    out.write(b"".join(answers))
    out.flush()
EOF

cat > "$work/floor.py" <<'EOF'
import base64, json, time
import numpy as np
x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
request = json.dumps({"id": 123, "op": "slice", "begin": [0, 1, 0], "size": [2, 2, -1], "inputs": {"x": {
    "dtype": "<i4", "shape": [2, 3, 4], "data": base64.b64encode(x.tobytes()).decode()}}}).encode()

def answer(line):
    case = json.loads(line)
    a = case["inputs"]["x"]
    x = np.frombuffer(base64.b64decode(a["data"]), dtype=a["dtype"]).reshape(a["shape"])
    out = np.ascontiguousarray(x[tuple(slice(b, None if n < 0 else b + n) for b, n in zip(case["begin"], case["size"]))])
    return b'{"id":%d,"output":{"dtype":"%s","shape":%s,"data":"%s"}}\n' % (
        case["id"], out.dtype.str.encode(), str(list(out.shape)).encode(), base64.b64encode(out.tobytes()))

n = 200000
for _ in range(3):
    t = time.perf_counter()
    for _ in range(n):
        answer(request)
    print("  %.1f µs a case" % ((time.perf_counter() - t) / n * 1e6))
EOF

# run NAME ORACLE: one fuzz run, then its rate and CPU a case by process.
run() {
	"$work/conform" fuzz --impl engine --oracle "$2" --allow-empty --duration "$DURATION" --out '' >"$work/out" 2>&1 &
	pid=$!
	secs=${DURATION%s}
	sleep $((secs - 1))
	self=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	kids=0
	for child in $(pgrep -P "$pid"); do
		kids=$((kids + $(awk '{print $14 + $15}' "/proc/$child/stat")))
	done
	wait "$pid" || true
	cases=$(sed -n 's/^\([0-9]*\) cases in.*/\1/p' "$work/out")
	rate=$(sed -n 's/.*: \([0-9]*\) cases\/s$/\1/p' "$work/out")
	awk -v name="$1" -v rate="$rate" -v self="$self" -v kids="$kids" -v cases="$cases" -v hz="$(getconf CLK_TCK)" -v secs="$secs" 'BEGIN {
		scale = 1e6 / hz / cases * secs / (secs - 1)
		printf "%s: %d cases/s; CPU a case: conform %.1f µs, its children %.1f µs\n", name, rate, self * scale, kids * scale
	}'
}

run "against the NumPy oracle" numpy
run "against a child that skips every case" "/usr/bin/python3 $work/skip_child.py"
echo "the least a NumPy child does for a small slice case, in process (no pipe, no checks):"
/usr/bin/python3 "$work/floor.py"

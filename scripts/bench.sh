#!/bin/sh
# Benchmarks the engine's kernels against memcpy and NumPy, and the gate.
#
#   sh scripts/bench.sh            (after go run ./cmd/conform setup)
#
# Runs BenchmarkKernels of engine/kernels_bench_test.go (each row: the op
# on a 64 MiB input, output allocation included, each output given back
# with engine.Release after the call as NumPy frees each result; the same
# without Release; for the slicing rows, the same kernel writing into a
# buffer allocated once, Plan.ApplyTo; a Go copy of as many bytes into a
# buffer allocated once; bytes.Clone of them) and the same operations in
# NumPy (np.ascontiguousarray(x[...]), the index arrays of the advanced
# rows bound by name; x[tuple(idx.T)] for gather_nd; np.take(params,
# indices, axis=1) for tf.gather along axis 1; and np.copyto of as many
# bytes; and the ops again on inputs made with NumPy's huge page advice
# off, in 4 KiB pages), in ROUNDS interleaved rounds (default
# 3), and prints the median time of each over the rounds, their spread,
# the ratios, the memory traffic of each row against the copy rate of the
# run, and the last lines "median ratio engine/NumPy: M" and "worst ratio
# engine/NumPy: R" (the engine's time over NumPy's, the median and the
# largest over every row). Then it runs
# the gate (cases.BenchmarkCheck: conform check on the whole embedded
# corpus) and internal/fuzz.BenchmarkFuzzEngineVsNumPy (conform fuzz
# --impl engine --oracle numpy) and prints their numbers. BENCHTIME
# (default 3s) is the go test -benchtime of each Go row and the time NumPy
# spends on each row in each round: with 1s, the Go rows that allocate
# tens of MiB per call measured up to a third slower (the heap is still
# growing and giving memory back to the OS).
set -eu
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
BENCHTIME=${BENCHTIME:-3s}
PYTHON=/usr/bin/python3

case $ROUNDS in
'' | *[!0-9]* | 0)
	echo "bench: ROUNDS must be a positive number, not $ROUNDS" >&2
	exit 2
	;;
esac
secs=${BENCHTIME%s}
case $BENCHTIME:$secs in
*s:*[!0-9.]* | *s: | *[!s]:*)
	echo "bench: BENCHTIME must be a number of seconds such as 3s, not $BENCHTIME" >&2
	exit 2
	;;
esac
if ! $PYTHON -c 'import numpy' 2>/dev/null; then
	echo "bench: $PYTHON has no NumPy; run go run ./cmd/conform setup first" >&2
	exit 1
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

go test -c -o "$tmp/engine.test" ./engine
go test -c -o "$tmp/cases.test" ./cases
go test -c -o "$tmp/fuzz.test" ./internal/fuzz

# The NumPy side of one row of BenchmarkKernels (same op, same input and
# index rows): numpy_bench.py BENCHTIME ROW prints "ROW
# numpy|copyto|copy|numpy4k SECONDS" and "ROW bytes|view N".
cat >"$tmp/numpy_bench.py" <<'EOF'
import sys, time
import numpy as np

benchtime = float(sys.argv[1])
wanted = sys.argv[2]

def mix(z):
    # The splitmix64 finaliser, as mix in engine/kernels_bench_test.go.
    z = z * np.uint64(0x9E3779B97F4A7C15)
    z ^= z >> np.uint64(29)
    z = z * np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(32)
    return z

def indices(shape, bound):
    # benchIndices: element k is mix(k) mod bound.
    n = int(np.prod(shape))
    return (mix(np.arange(n, dtype=np.uint64)) % np.uint64(bound)).astype(np.int64).reshape(shape)

def mask(shape):
    # benchMask: element k is the low bit of mix(k).
    n = int(np.prod(shape))
    return (mix(np.arange(n, dtype=np.uint64)) & np.uint64(1)).astype(bool).reshape(shape)

# The advanced rows whose NumPy result is not C-contiguous (x[:, i]: NumPy
# writes it in the transposed order): the subscript without
# np.ascontiguousarray, timed besides.
raws = {}

def input_maker():
    inputs = {}
    def make_input(shape):
        key = tuple(shape)
        if key not in inputs:
            n = int(np.prod(shape))
            inputs[key] = np.arange(n, dtype=np.uint32).view(np.float32).reshape(shape)
        return inputs[key]
    return make_input

def timed(f):
    """Mean seconds per call over calls filling benchtime (like go test)."""
    f()
    n, start = 0, time.perf_counter()
    while True:
        f()
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= benchtime:
            return elapsed / n

def build_rows(make_input):
    """(name, input, op, copy op or None) for the wanted row."""
    rows = []
    for name, shape, index in [
        ("row-slice", (4096, 4096), "x[1024:3072]"),
        ("column-slice", (4096, 4096), "x[:, 1024:3072]"),
        ("reversed-rows", (4096, 4096), "x[::-1]"),
        ("reversed-axis", (4096, 4096), "x[:, ::-1]"),
        ("step-3", (4096, 4096), "x[:, ::3]"),
        ("newaxis-shrink", (16, 16, 256, 256), "x[:, 3, None, :, None, :]"),
    ]:
        if name != wanted:
            continue
        x = make_input(shape)
        # Compiled once, as the engine's rows parse their subscript once:
        # evaluating the string itself would add some 10 us to every call.
        code = compile(index, "<index>", "eval")
        view = lambda x=x, code=code: eval(code, {"x": x})
        rows.append((name, x, lambda view=view: np.ascontiguousarray(view()), lambda view=view: view().copy()))
    for name, nrows, depth in [("gather-rows", 4096, 1), ("gather-scalars", 1 << 20, 2)]:
        if name != wanted:
            continue
        x = make_input((4096, 4096))
        idx = indices((nrows, depth), 4096)
        rows.append((name, x, lambda x=x, idx=idx: x[tuple(idx.T)], None))
    # The advanced rows: arrays maps each index name to the shape and
    # bound of its indices (benchIndices), or None for a mask of x's shape
    # (benchMask).
    for name, shape, index, arrays in [
        ("fancy-rows", (1 << 20, 16), "x[i]", {"i": ((1 << 20,), 1 << 20)}),
        ("fancy-columns", (4096, 4096), "x[:, i]", {"i": ((1024,), 4096)}),
        ("bool-mask", (16 << 20,), "x[m]", {"m": None}),
    ]:
        if name != wanted:
            continue
        x = make_input(shape)
        names = {"x": x}
        for a, spec in arrays.items():
            names[a] = mask(shape) if spec is None else indices(*spec)
        code = compile(index, "<index>", "eval")
        raw = lambda code=code, names=names: eval(code, names)
        rows.append((name, x, lambda raw=raw: np.ascontiguousarray(raw()), None))
        if not raw().flags.c_contiguous:
            raws[name] = raw
    if wanted == "tf-gather-axis1":
        # tf.gather(params, indices, axis=1) is np.take(params, indices, axis=1).
        x = make_input((4096, 4096))
        idx = indices((4096,), 4096)
        rows.append((wanted, x, lambda x=x, idx=idx: np.take(x, idx, axis=1), None))
    if not rows:
        sys.exit(f"numpy_bench.py: no row {wanted}")
    return rows

def anon_huge_kib():
    for line in open("/proc/self/smaps_rollup"):
        if line.startswith("AnonHugePages:"):
            return int(line.split()[1])
    return 0

for name, x, op, copy_op in build_rows(input_maker()):
    out = op()
    src = x.reshape(-1).view(np.uint8)[: out.nbytes]
    dst = np.empty_like(src)
    np.copyto(dst, src)
    print(name, "bytes", out.nbytes)
    print(name, "view", int(np.shares_memory(out, x)))
    print(name, "numpy", timed(op))
    print(name, "copyto", timed(lambda: np.copyto(dst, src)))
    if copy_op is not None and np.shares_memory(out, x):
        print(name, "copy", timed(copy_op))
    if name in raws:
        print(name, "raw", timed(raws[name]))
    del out, dst
    sys.stdout.flush()

# The same ops on inputs in 4 KiB pages: NumPy asks the kernel for
# transparent huge pages (madvise MADV_HUGEPAGE) on every array of 4 MiB
# or more, as the engine does for its inputs (engine.MakeData) and
# outputs. New inputs, made with the advice off, show what the advice is
# worth; it is back on for the outputs.
np.core.multiarray._set_madvise_hugepage(False)
before = anon_huge_kib()
rows4k = build_rows(input_maker())
if anon_huge_kib() > before:
    # Transparent huge pages are on for every allocation here ("always"):
    # Go's heap gets them too, and there is nothing to compare.
    print("bench: the inputs made without huge page advice got huge pages; no 4 KiB page rows", file=sys.stderr)
    rows4k = []
np.core.multiarray._set_madvise_hugepage(True)
for name, x, op, copy_op in rows4k:
    print(name, "numpy4k", timed(op))
    sys.stdout.flush()
EOF

# The rows of BenchmarkKernels, in its order. Each round measures each
# row in Go and then at once in NumPy, so that the two sides of a row are
# measured minutes apart at most, not a whole round.
rows="row-slice column-slice reversed-rows reversed-axis step-3 newaxis-shrink gather-rows gather-scalars
fancy-rows fancy-columns bool-mask tf-gather-axis1"

echo "bench: $ROUNDS rounds of the Go and NumPy rows, interleaved row by row, -benchtime $BENCHTIME"
i=1
while [ "$i" -le "$ROUNDS" ]; do
	for row in $rows; do
		(cd engine && "$tmp/engine.test" -test.run '^$' -test.bench "^BenchmarkKernels\$/^$row\$/" -test.benchtime "$BENCHTIME") >>"$tmp/go.txt"
		$PYTHON "$tmp/numpy_bench.py" "$secs" "$row" >>"$tmp/numpy.txt"
	done
	echo "bench: round $i done"
	i=$((i + 1))
done

echo "bench: the gate and the fuzzer"
(cd cases && "$tmp/cases.test" -test.run '^$' -test.bench '^BenchmarkCheck$' -test.benchtime 5x -test.count 3) >"$tmp/gate.txt"
(cd internal/fuzz && "$tmp/fuzz.test" -test.run '^$' -test.bench '^BenchmarkFuzzEngineVsNumPy$' -test.benchtime 3000x -test.count 3) >"$tmp/fuzz.txt"

$PYTHON - "$tmp" "$rows" <<'EOF'
import re, statistics, sys
tmp = sys.argv[1]

go = {}  # (row, engine|unreleased|into|memcpy|clone) -> [seconds per op]
go_bytes, go_view = {}, {}
for line in open(f"{tmp}/go.txt"):
    m = re.match(r"BenchmarkKernels/([\w-]+)/(engine|unreleased|into|memcpy|clone)-\d+\s+\d+\s+([\d.]+) ns/op.*?([\d.]+) out-bytes(?:\s+([\d.]+) view)?", line)
    if m:
        go.setdefault((m[1], m[2]), []).append(float(m[3]) * 1e-9)
        go_bytes[m[1]] = int(float(m[4]))
        if m[5] is not None:
            go_view[m[1]] = float(m[5]) == 1
np_t, np_info = {}, {}
for line in open(f"{tmp}/numpy.txt"):
    row, what, value = line.split()
    if what in ("bytes", "view"):
        np_info[(row, what)] = int(value)
    else:
        np_t.setdefault((row, what), []).append(float(value))

rows = sys.argv[2].split()
for r in rows:
    if (r, "engine") not in go or (r, "numpy") not in np_t:
        sys.exit(f"bench: row {r} was not measured on both sides (a row of BenchmarkKernels missing, or renamed?)")
if sorted(rows) != sorted(r for r, w in go if w == "engine"):
    sys.exit("bench: the rows measured differ from the list in bench.sh")
med = lambda xs: statistics.median(xs)
def ms(s):
    return f"{s * 1e3:.3f}" if s >= 1e-5 else f"{s * 1e3:.6f}"
for r in rows:
    if go_bytes[r] != np_info[(r, "bytes")]:
        sys.exit(f"bench: row {r}: the engine outputs {go_bytes[r]} bytes, NumPy {np_info[(r, 'bytes')]}")

# The slicing rows whose elements are runs of contiguous memory (the 70%
# of memcpy bar of the performance issue applies to these).
contiguous_runs = ["row-slice", "column-slice", "reversed-rows", "newaxis-shrink"]

def note(r):
    # Marks a result that is a view of the input (no bytes moved).
    return " (view)" if go_view.get(r) else ""

def pct(copy_time, t, r=None):
    if r is not None and go_view.get(r):
        return "view"
    return f"{100 * copy_time / t:.0f}%"

print()
print("Median of %d rounds; times in ms." % len(go[(rows[0], "engine")]))
print()
print("The ops (engine: a new output per call, given back with engine.Release after the call as NumPy frees each result,")
print("or a view of the input; unreleased: each output left to the garbage collector) and in NumPy; NumPy, 4 KiB pages:")
print("NumPy on an input in 4 KiB pages (its own arrays of 4 MiB or more, and the engine's inputs, get huge pages).")
print()
print("| row | output MiB | engine | unreleased | NumPy | engine/NumPy | unreleased/NumPy | NumPy, 4 KiB pages | engine/NumPy, 4 KiB pages |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
worst = worst_unreleased = 0.0
views, below_op, below_into = [], [], []
for r in rows:
    e = med(go[(r, "engine")])
    u = med(go[(r, "unreleased")])
    n = med(np_t[(r, "numpy")])
    n4 = med(np_t[(r, "numpy4k")]) if (r, "numpy4k") in np_t else None
    worst = max(worst, e / n)
    worst_unreleased = max(worst_unreleased, u / n)
    np_note = ""
    if np_info[(r, "view")]:
        np_note = " (view)"
        views.append(r)
    print(f"| {r} | {go_bytes[r] / 2**20:.1f} | {ms(e)}{note(r)} | {ms(u)}{note(r)} | {ms(n)}{np_note} | {e / n:.2f} | {u / n:.2f} | "
          f"{ms(n4) + np_note if n4 else '-'} | {f'{e / n4:.2f}' if n4 else '-'} |")
print()
print("Copy rates: into: the engine's kernel writing into a buffer allocated once (Plan.ApplyTo), the condition of the Go copy;")
print("Go copy: copy() of as many bytes into a buffer allocated once; % of Go copy: the Go copy's time / the engine's (its rate as a share of")
print("the copy's); Go clone: bytes.Clone, a new slice per call; np.copyto: into an array allocated once.")
print()
print("| row | engine | into | Go copy | engine % of Go copy | into % of Go copy | Go clone | np.copyto |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    e = med(go[(r, "engine")])
    gc = med(go[(r, "memcpy")])
    gk = med(go[(r, "clone")])
    nc = med(np_t[(r, "copyto")])
    into = med(go[(r, "into")]) if (r, "into") in go else None
    if r in contiguous_runs:
        if not go_view.get(r) and gc / e < 0.7:
            below_op.append(f"{r} ({100 * gc / e:.0f}%)")
        if into is not None and gc / into < 0.7:
            below_into.append(f"{r} ({100 * gc / into:.0f}%)")
    print(f"| {r} | {ms(e)}{note(r)} | {ms(into) if into is not None else '-'} | {ms(gc)} | {pct(gc, e, r)} | "
          f"{pct(gc, into) if into is not None else '-'} | {ms(gk)} | {ms(nc)} |")
# The memory each call of a row reads, in bytes, besides the output it
# writes: the cache lines of the input it touches and its index arrays.
# A row whose traffic (read + written) runs close to the copy rate is
# bound by the memory bandwidth, not by its loop.
MiB = 2**20
reads = {
    "row-slice": 0,                       # a view: nothing moves
    "column-slice": 32 * MiB,             # the middle 8 KiB of each 16 KiB row
    "reversed-rows": 64 * MiB,
    "reversed-axis": 64 * MiB,
    "step-3": 64 * MiB,                   # every third element: every line of the input
    "newaxis-shrink": 4 * MiB,            # 16 blocks of 256 KiB
    "gather-rows": 64 * MiB + 32 * 2**10,  # 4096 rows of 16 KiB, 4096 int64 indices
    "gather-scalars": 64 * MiB + 16 * MiB,  # a line per element, 1M pairs of int64 indices
    "fancy-rows": 64 * MiB + 8 * MiB,     # 1M rows of 64 B (a line each), 1M int64 indices
    "fancy-columns": 64 * MiB,            # 1024 random columns: nearly every line of each row
    "bool-mask": 64 * MiB + 16 * MiB,     # the input and the mask, whole
    "tf-gather-axis1": 64 * MiB,          # 4096 random columns of each row: every line
}
if sorted(reads) != sorted(rows):
    sys.exit("bench: the memory traffic of the rows (reads in bench.sh) does not list every row")
# The copy rate of this run: a Go copy of 64 MiB into a buffer allocated
# once (the memcpy column of the rows of 64 MiB output), bytes read plus
# written per second, the median over those rows and rounds.
copy_runs = [t for r in rows if go_bytes[r] == 64 * MiB for t in go[(r, "memcpy")]]
copy_rate = 2 * 64 * MiB / med(copy_runs)
print()
print(f"Memory traffic: the bytes each call reads (input lines touched, index arrays) and writes (the output), over the engine's time,")
print(f"against the copy rate of this run ({copy_rate / 1e9:.1f} GB/s read + written: a Go copy of 64 MiB, on one goroutine, into a buffer allocated once).")
print()
print("| row | read MiB | written MiB | engine GB/s | % of the copy rate |")
print("|---|---:|---:|---:|---:|")
for r in rows:
    if go_view.get(r):
        print(f"| {r} | 0 | 0 | view | view |")
        continue
    traffic = reads[r] + go_bytes[r]
    rate = traffic / med(go[(r, "engine")])
    print(f"| {r} | {reads[r] / MiB:.1f} | {go_bytes[r] / MiB:.1f} | {rate / 1e9:.1f} | {100 * rate / copy_rate:.0f}% |")
print()
print("Spread over the rounds (min to max, ms):")
print()
print("| row | engine | unreleased | NumPy | NumPy, 4 KiB pages | into | Go copy | Go clone |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
spread = lambda xs: f"{ms(min(xs))} to {ms(max(xs))}"
for r in rows:
    into = spread(go[(r, "into")]) if (r, "into") in go else "-"
    n4 = spread(np_t[(r, "numpy4k")]) if (r, "numpy4k") in np_t else "-"
    print(f"| {r} | {spread(go[(r, 'engine')])} | {spread(go[(r, 'unreleased')])} | {spread(np_t[(r, 'numpy')])} | {n4} | {into} | {spread(go[(r, 'memcpy')])} | {spread(go[(r, 'clone')])} |")
print()
for r in views:
    c = med(np_t[(r, "copy")])
    line = f"{r}: np.ascontiguousarray returns the view itself (no bytes move); NumPy's copy x[...].copy() takes {ms(c)} ms"
    if (r, "into") in go:
        line += f", the engine's copy into a buffer (into) {ms(med(go[(r, 'into')]))} ms"
    print(line)
for r in rows:
    if (r, "raw") in np_t:
        print(f"{r}: NumPy's result of x[...] is not C-contiguous (its elements are in the transposed order); "
              f"x[...] without np.ascontiguousarray takes {ms(med(np_t[(r, 'raw')]))} ms")
print("contiguous-run rows below 70% of the Go copy rate, into a buffer allocated once (into): " + (", ".join(below_into) if below_into else "none"))
print("contiguous-run rows below 70% of the Go copy rate, the op, its output released after each call (engine): " + (", ".join(below_op) if below_op else "none"))

def bench_lines(path, name):
    return [l for l in open(path) if l.startswith(name)]
gate = bench_lines(f"{tmp}/gate.txt", "BenchmarkCheck")
gate_ns = [float(re.search(r"([\d.]+) ns/op", l)[1]) for l in gate]
cases = re.search(r"([\d.]+) cases/op", gate[0])[1]
print(f"gate (conform check, {cases} cases): median {med(gate_ns) / 1e6:.0f} ms per run of the corpus "
      f"({', '.join(f'{x / 1e6:.0f}' for x in gate_ns)})")
fuzz = bench_lines(f"{tmp}/fuzz.txt", "BenchmarkFuzzEngineVsNumPy")
rates = [float(re.search(r"([\d.]+) cases/s", l)[1]) for l in fuzz]
print(f"fuzz (--impl engine --oracle numpy): median {med(rates):.0f} cases/s "
      f"({', '.join(f'{x:.0f}' for x in rates)})")
ratios = [med(go[(r, "engine")]) / med(np_t[(r, "numpy")]) for r in rows]
print(f"worst ratio engine/NumPy without Release (unreleased): {worst_unreleased:.2f}")
print(f"median ratio engine/NumPy: {med(ratios):.2f}")
print(f"worst ratio engine/NumPy: {worst:.2f}")
EOF

package npy

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	npyio "github.com/sbinet/npyio/npy"

	"github.com/conformsuite/conform/engine"
)

const python = "/usr/bin/python3"

// generateScript writes .npy files with NumPy for every dtype, byte order,
// memory order, format version and a range of shapes and bit patterns.
// Next to each case.npy it writes case.raw, the C-order bytes of the
// array, and it lists the cases in manifest.json.
const generateScript = `
import json, os, sys
import numpy as np
from numpy.lib import format as fmt

out = sys.argv[1]
rng = np.random.default_rng(20240601)
cases = []

def add(label, a, version, fortran=False):
    if fortran:
        a = np.asfortranarray(a)
    name = "c%04d" % len(cases)
    path = os.path.join(out, name + ".npy")
    with open(path, "wb") as f:
        fmt.write_array(f, a, version=version)
    with open(os.path.join(out, name + ".raw"), "wb") as f:
        f.write(np.ascontiguousarray(a).tobytes())
    with open(path, "rb") as f:
        v = fmt.read_magic(f)
        _, fortran_order, _ = fmt._read_array_header(f, v)
    cases.append(dict(name=name, label="%s %s %s v%d.0" % (label, a.dtype.str, a.shape, version[0]),
                      descr=a.dtype.str, shape=list(a.shape), fortran=fortran_order, version=version[0]))

VERSIONS = [(1, 0), (2, 0), (3, 0)]
ORDERED = ["i2", "i4", "i8", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16", "U3"]
dtypes = [np.dtype(d) for d in ["|b1", "|i1", "|u1", "|S5"]]
for code in ORDERED:
    dtypes += [np.dtype("<" + code), np.dtype(">" + code)]
SHAPES = [(), (0,), (2, 0, 3), (5,), (3, 4), (2, 3, 4), (2, 1, 3, 2)]

def random_array(dt, shape):
    n = int(np.prod(shape, dtype=np.int64))
    return np.frombuffer(rng.bytes(n * dt.itemsize), dtype=dt).reshape(shape)

# Every bit pattern: random bytes viewed as the dtype.
for dt in dtypes:
    for shape in SHAPES:
        for version in VERSIONS:
            add("random", random_array(dt, shape), version)
            if len(shape) >= 2 and 0 not in shape:
                add("random fortran", random_array(dt, shape), version, fortran=True)

# arange-based values.
for i, dt in enumerate(dtypes):
    version = VERSIONS[i % 3]
    if dt.kind == "b":
        a = np.arange(24) % 3 == 1
    elif dt.kind == "S":
        a = np.array([str(k * 7).encode() for k in range(24)], dtype=dt)
    elif dt.kind == "U":
        a = np.array([chr(0x41 + k) + "\u00e9\U0001F600"[: k % 3] for k in range(24)], dtype=dt)
    else:
        a = (np.arange(24) - 5).astype(dt)
    a = a.reshape(2, 3, 4)
    add("arange", a, version)
    add("arange fortran", a, version, fortran=True)

# Special floating-point bit patterns: NaN payloads, signalling NaN, -0.0,
# infinities, the smallest subnormal, 1.0.
patterns = {
    2: [0x7e01, 0x7c01, 0xfe00, 0x8000, 0x7c00, 0xfc00, 0x0001, 0x3c00],
    4: [0x7fc00001, 0x7f800001, 0xffc00000, 0x80000000, 0x7f800000, 0xff800000, 0x00000001, 0x3f800000],
    8: [0x7ff8000000000001, 0x7ff0000000000001, 0xfff8000000000000, 0x8000000000000000,
        0x7ff0000000000000, 0xfff0000000000000, 0x0000000000000001, 0x3ff0000000000000],
}
for i, code in enumerate(["f2", "f4", "f8", "c8", "c16"]):
    for order in "<>":
        dt = np.dtype(order + code)
        fsize = dt.itemsize if dt.kind == "f" else dt.itemsize // 2
        bits = np.array(patterns[fsize], dtype=order + "u%d" % fsize)
        a = bits.view(dt)
        add("special", a, VERSIONS[i % 3])
        add("special fortran", a.reshape(2, -1), VERSIONS[i % 3], fortran=True)

# Byte strings without interior NULs, bools that are 0 or 1.
s = np.array([b"", b"a", b"hello", b"ab", b"\xff\x01xyz", b"0"], dtype="|S5").reshape(2, 3)
add("clean strings", s, (1, 0))
add("clean strings fortran", s, (2, 0), fortran=True)
b = rng.integers(0, 2, size=(3, 4)).astype(bool)
add("clean bools", b, (1, 0))
add("clean bools fortran", b, (2, 0), fortran=True)

# Larger Fortran arrays.
add("large fortran", random_array(np.dtype("<f8"), (64, 33)), (1, 0), fortran=True)
add("large fortran", random_array(np.dtype(">i2"), (17, 3, 29)), (2, 0), fortran=True)
add("large fortran", random_array(np.dtype("<U3"), (5, 7, 2, 3)), (3, 0), fortran=True)

with open(os.path.join(out, "manifest.json"), "w") as f:
    json.dump(cases, f)
print("wrote %d cases" % len(cases))
`

// checkScript loads the files Go wrote and compares them with the arrays
// NumPy wrote: dtype, shape and bytes, and the whole file with np.save's
// output for the C-contiguous array.
const checkScript = `
import io, json, os, sys
import numpy as np

d = sys.argv[1]
items = json.load(open(sys.argv[2]))
bad = 0
for it in items:
    orig = np.load(os.path.join(d, it["name"] + ".npy"))
    if it["view"] == "T":
        want = orig.T
    elif it["view"] == "rev":
        want = orig[::-1]
    else:
        want = orig
    # Not np.ascontiguousarray, which turns a 0-d array into shape (1,).
    want = want.copy(order="C")
    label = "%s (%s, view %s)" % (it["go"], it["label"], it["view"])
    problems = []
    try:
        got = np.load(it["go"])
    except Exception as e:
        problems.append("np.load failed: %r" % e)
        got = None
    if got is not None:
        if got.dtype.str != want.dtype.str:
            problems.append("dtype %s, want %s" % (got.dtype.str, want.dtype.str))
        if got.shape != want.shape:
            problems.append("shape %s, want %s" % (got.shape, want.shape))
        if got.tobytes() != want.tobytes():
            problems.append("payload bytes differ")
    buf = io.BytesIO()
    np.save(buf, want)
    saved = buf.getvalue()
    written = open(it["go"], "rb").read()
    if written != saved:
        i = next((k for k in range(min(len(saved), len(written))) if saved[k] != written[k]), min(len(saved), len(written)))
        problems.append("file differs from np.save at byte %d (lengths %d, %d):\n      np.save: %r\n      Go:      %r"
                        % (i, len(saved), len(written), saved[:saved.find(b"\n") + 1], written[:written.find(b"\n") + 1]))
    if problems:
        bad += 1
        print("MISMATCH %s:\n    %s" % (label, "\n    ".join(problems)))
print("checked %d Go-written files, %d mismatches" % (len(items), bad))
sys.exit(1 if bad else 0)
`

// numpyCase is one entry of the manifest written by generateScript.
type numpyCase struct {
	Name    string `json:"name"`
	Label   string `json:"label"`
	Descr   string `json:"descr"`
	Shape   []int  `json:"shape"`
	Fortran bool   `json:"fortran"`
	Version int    `json:"version"`
}

// requireNumPy skips the test unless /usr/bin/python3 can import numpy.
// With CONFORM_REQUIRE_NUMPY=1 (as in .ci/run) a missing NumPy fails it.
func requireNumPy(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("NumPy cross-checks skipped in -short mode")
	}
	if out, err := exec.Command(python, "-I", "-c", "import numpy").CombinedOutput(); err != nil {
		if os.Getenv("CONFORM_REQUIRE_NUMPY") == "1" {
			t.Fatalf("NumPy required (CONFORM_REQUIRE_NUMPY=1) but not available: %v: %s", err, bytes.TrimSpace(out))
		}
		t.Skipf("NumPy not available: install python3-numpy (%v: %s)", err, bytes.TrimSpace(out))
	}
}

// runPython runs script with args and fails the test if it fails.
func runPython(t *testing.T, script string, args ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.py")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, append([]string{path}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("python %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// generateNumPyFiles runs generateScript into a new directory and returns
// the directory and the cases.
func generateNumPyFiles(t *testing.T) (string, []numpyCase) {
	t.Helper()
	requireNumPy(t)
	dir := t.TempDir()
	t.Log(strings.TrimSpace(runPython(t, generateScript, dir)))
	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []numpyCase
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases generated")
	}
	return dir, cases
}

// TestNumPy generates .npy files with NumPy once and checks the codec
// against NumPy and npyio with them.
func TestNumPy(t *testing.T) {
	dir, cases := generateNumPyFiles(t)
	t.Run("RoundTrip", func(t *testing.T) { testNumPyRoundTrip(t, dir, cases) })
	t.Run("NpyioCrossCheck", func(t *testing.T) { testNpyioCrossCheck(t, dir, cases) })
	t.Run("HeaderDifferential", testHeaderDifferential)
	t.Run("WrapHeader", testWrapHeader)
}

// testNumPyRoundTrip decodes files NumPy wrote and compares them with the
// C-order bytes NumPy reports, then has NumPy load the files Encode wrote
// and compare them with the originals and with np.save's output.
func testNumPyRoundTrip(t *testing.T, dir string, cases []numpyCase) {
	outDir := t.TempDir()
	type goFile struct {
		Name  string `json:"name"`
		Label string `json:"label"`
		View  string `json:"view"`
		Go    string `json:"go"`
	}
	var written []goFile
	seen := map[string]bool{}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join(dir, c.Name+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, c.Name+".raw"))
		if err != nil {
			t.Fatal(err)
		}
		seen[fmt.Sprintf("%s fortran=%v v%d", c.Descr, c.Fortran, c.Version)] = true
		got, err := Decode(data)
		if err != nil {
			t.Errorf("%s (%s): Decode: %v", c.Name, c.Label, err)
			continue
		}
		if !compareCase(t, c, "Decode", got, want) {
			continue
		}
		fromFile, err := ReadFile(filepath.Join(dir, c.Name+".npy"))
		if err != nil {
			t.Errorf("%s (%s): ReadFile: %v", c.Name, c.Label, err)
		} else {
			compareCase(t, c, "ReadFile", fromFile, want)
		}
		if !c.Fortran && len(want) > 0 && &got.Data[0] != &data[len(data)-len(want)] {
			t.Errorf("%s (%s): Decode copied a C-order payload", c.Name, c.Label)
		}

		views := []struct {
			name string
			t    *engine.Tensor
		}{{"same", got}}
		if len(got.Shape) == 2 && got.Len() > 0 {
			s := got.Strides
			views = append(views,
				struct {
					name string
					t    *engine.Tensor
				}{"T", &engine.Tensor{DType: got.DType, Shape: []int{got.Shape[1], got.Shape[0]}, Strides: []int{s[1], s[0]}, Data: got.Data}},
				struct {
					name string
					t    *engine.Tensor
				}{"rev", &engine.Tensor{DType: got.DType, Shape: got.Shape, Strides: []int{-s[0], s[1]}, Offset: (got.Shape[0] - 1) * s[0], Data: got.Data}},
			)
		}
		for _, v := range views {
			path := filepath.Join(outDir, c.Name+"."+v.name+".npy")
			if err := os.WriteFile(path, Encode(v.t), 0o644); err != nil {
				t.Fatal(err)
			}
			written = append(written, goFile{Name: c.Name, Label: c.Label, View: v.name, Go: path})
		}
	}
	t.Logf("decoded %d NumPy files covering %d dtype/order/version combinations", len(cases), len(seen))
	for _, v := range []string{"<i4 fortran=true v1", ">U3 fortran=true v2", "|S5 fortran=false v3", "<f2 fortran=true v3", "|b1 fortran=true v1"} {
		if !seen[v] {
			t.Errorf("no NumPy file for %s", v)
		}
	}
	if t.Failed() {
		return
	}
	list, err := json.Marshal(written)
	if err != nil {
		t.Fatal(err)
	}
	listPath := filepath.Join(outDir, "written.json")
	if err := os.WriteFile(listPath, list, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log(strings.TrimSpace(runPython(t, checkScript, dir, listPath)))
}

// compareCase compares a decoded tensor with what NumPy reported for case
// c, and reports whether they match.
func compareCase(t *testing.T, c numpyCase, fn string, got *engine.Tensor, want []byte) bool {
	t.Helper()
	ok := true
	if got.DType.String() != c.Descr {
		t.Errorf("%s (%s): %s: dtype %v, want %s", c.Name, c.Label, fn, got.DType, c.Descr)
		ok = false
	}
	if diff := cmp.Diff(c.Shape, got.Shape); diff != "" {
		t.Errorf("%s (%s): %s: shape mismatch (-want +got):\n%s", c.Name, c.Label, fn, diff)
		ok = false
	}
	// A Fortran-order file is a view of its payload with Fortran
	// strides, unless that layout is C-contiguous too.
	strides := engine.ContiguousStrides(c.Shape, got.DType.Size)
	if c.Fortran && !got.IsContiguous() {
		strides = fortranStrides(c.Shape, got.DType.Size)
	}
	if diff := cmp.Diff(strides, got.Strides); diff != "" {
		t.Errorf("%s (%s): %s: strides (-want +got):\n%s", c.Name, c.Label, fn, diff)
		ok = false
	}
	if !ok {
		return false
	}
	if got.Offset != 0 || !bytes.Equal(got.Bytes(), want) {
		t.Errorf("%s (%s): %s: payload mismatch (offset %d): %s", c.Name, c.Label, fn, got.Offset,
			firstMismatch(c.Shape, got.DType.Size, want, got.Bytes()))
		return false
	}
	return true
}

// firstMismatch describes the first element where got and want differ,
// with its N-d index.
func firstMismatch(shape []int, size int, want, got []byte) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d bytes, want %d", len(got), len(want))
	}
	for i := 0; i < len(want); i += size {
		if !bytes.Equal(want[i:i+size], got[i:i+size]) {
			return fmt.Sprintf("element %v is % x, want % x", unravel(i/size, shape), got[i:i+size], want[i:i+size])
		}
	}
	return "no difference"
}

// unravel returns the row-major N-d index of flat index k.
func unravel(k int, shape []int) []int {
	idx := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		if shape[i] > 0 {
			idx[i] = k % shape[i]
			k /= shape[i]
		}
	}
	return idx
}

// testNpyioCrossCheck decodes the NumPy-written files that npyio handles
// correctly with both npyio and Decode and compares the element values
// bit for bit.
func testNpyioCrossCheck(t *testing.T, dir string, cases []numpyCase) {
	checked := 0
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join(dir, c.Name+".npy"))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Decode(data)
		if err != nil {
			t.Errorf("%s (%s): Decode: %v", c.Name, c.Label, err)
			continue
		}
		if !npyioHandles(c, got) {
			continue
		}
		checked++
		r, err := npyio.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s (%s): npyio: %v", c.Name, c.Label, err)
			continue
		}
		if r.Header.Descr.Type != c.Descr || r.Header.Descr.Fortran != c.Fortran {
			t.Errorf("%s (%s): npyio header %+v, want descr %s fortran %v", c.Name, c.Label, r.Header.Descr, c.Descr, c.Fortran)
		}
		if diff := cmp.Diff(c.Shape, r.Header.Descr.Shape, cmp.Comparer(func(a, b []int) bool {
			return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b))
		})); diff != "" {
			t.Errorf("%s (%s): npyio shape mismatch (-want +got):\n%s", c.Name, c.Label, diff)
		}
		theirs, err := readNpyio(r, got.DType)
		if err != nil {
			t.Errorf("%s (%s): npyio Read: %v", c.Name, c.Label, err)
			continue
		}
		if c.Fortran {
			theirs = fortranToC(theirs, got.Shape, got.DType.Size)
		}
		ours := littleEndian(got)
		if !bytes.Equal(ours, theirs) {
			t.Errorf("%s (%s): values differ from npyio: %s", c.Name, c.Label, firstMismatch(got.Shape, got.DType.Size, theirs, ours))
		}
	}
	t.Logf("cross-checked %d of %d files with npyio", checked, len(cases))
	if checked < 100 {
		t.Errorf("only %d files cross-checked with npyio", checked)
	}
}

// npyioHandles reports whether npyio v0.6.0 decodes the file of case c,
// whose contents are t, correctly: not version 3.0, not float16 or
// unicode, bools that are 0 or 1, and byte strings without interior NULs
// (npyio cuts them at the first NUL).
func npyioHandles(c numpyCase, t *engine.Tensor) bool {
	if c.Version == 3 {
		return false
	}
	switch t.DType.Kind {
	case engine.Unicode:
		return false
	case engine.Float:
		return t.DType.Size != 2
	case engine.Bool:
		for _, b := range t.Data {
			if b > 1 {
				return false
			}
		}
	case engine.Bytes:
		size := t.DType.Size
		for i := 0; i < len(t.Data); i += size {
			s := bytes.TrimRight(t.Data[i:i+size], "\x00")
			if bytes.IndexByte(s, 0) >= 0 {
				return false
			}
		}
	}
	return true
}

// readNpyio reads the elements with npyio into the Go type of dt and
// returns them as little-endian bytes (byte strings padded with NULs).
func readNpyio(r *npyio.Reader, dt engine.DType) ([]byte, error) {
	var v any
	switch dt.Kind {
	case engine.Bool:
		v = &[]bool{}
	case engine.Int:
		v = map[int]any{1: &[]int8{}, 2: &[]int16{}, 4: &[]int32{}, 8: &[]int64{}}[dt.Size]
	case engine.Uint:
		v = map[int]any{1: &[]uint8{}, 2: &[]uint16{}, 4: &[]uint32{}, 8: &[]uint64{}}[dt.Size]
	case engine.Float:
		v = map[int]any{4: &[]float32{}, 8: &[]float64{}}[dt.Size]
	case engine.Complex:
		v = map[int]any{8: &[]complex64{}, 16: &[]complex128{}}[dt.Size]
	case engine.Bytes:
		var s []string
		if err := r.Read(&s); err != nil {
			return nil, err
		}
		var out []byte
		for _, e := range s {
			b := make([]byte, dt.Size)
			copy(b, strings.TrimRight(e, "\x00"))
			out = append(out, b...)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("dtype %v not cross-checked", dt)
	}
	if err := r.Read(v); err != nil {
		return nil, err
	}
	// Write the slice, not the pointer, and complex numbers as pairs of
	// floats: binary.Write handles pointers and complex numbers through
	// reflection, which converts float32 to float64 and back and so
	// quiets signalling NaNs.
	w := reflect.ValueOf(v).Elem().Interface()
	switch s := w.(type) {
	case []complex64:
		f := make([]float32, 0, 2*len(s))
		for _, c := range s {
			f = append(f, real(c), imag(c))
		}
		w = f
	case []complex128:
		f := make([]float64, 0, 2*len(s))
		for _, c := range s {
			f = append(f, real(c), imag(c))
		}
		w = f
	}
	var buf bytes.Buffer
	if err := binary.Write(&buf, binary.LittleEndian, w); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// littleEndian returns the elements of t in C order with
// every number in little-endian byte order (each half of a complex number
// swapped separately).
func littleEndian(t *engine.Tensor) []byte {
	out := append([]byte{}, t.Bytes()...)
	if !t.DType.BigEndian {
		return out
	}
	word := t.DType.Size
	if t.DType.Kind == engine.Complex {
		word /= 2
	}
	for i := 0; i < len(out); i += word {
		w := out[i : i+word]
		for a, b := 0, len(w)-1; a < b; a, b = a+1, b-1 {
			w[a], w[b] = w[b], w[a]
		}
	}
	return out
}

// fortranToC reorders column-major elements into row-major order.
func fortranToC(data []byte, shape []int, size int) []byte {
	out := make([]byte, len(data))
	n := len(data) / size
	for k := 0; k < n; k++ {
		idx := unravel(k, shape)
		f, stride := 0, 1
		for i, d := range shape {
			f += idx[i] * stride
			stride *= d
		}
		copy(out[k*size:(k+1)*size], data[f*size:(f+1)*size])
	}
	return out
}

// loadScript loads every file listed in argv[2] with np.load and prints a
// JSON line per file: whether NumPy accepted it and, if so, the dtype,
// shape and C-order bytes.
const loadScript = `
import json, sys
import numpy as np

out = []
for path in json.load(open(sys.argv[1])):
    try:
        a = np.load(path)
        out.append(dict(ok=True, descr=a.dtype.str, shape=list(a.shape), data=a.copy(order="C").tobytes().hex()))
    except Exception as e:
        out.append(dict(ok=False, err="%s: %s" % (type(e).__name__, str(e)[:200])))
json.dump(out, open(sys.argv[2], "w"))
`

// testHeaderDifferential mutates valid headers one character at a time
// and checks that every file Decode accepts, NumPy loads with the same
// dtype, shape and C-order bytes. Decode may be stricter than NumPy (it
// accepts a subset of Python literals, requires the final newline and
// rejects trailing data); those cases are only counted.
func testHeaderDifferential(t *testing.T) {
	bases := []struct {
		major byte
		dict  string
	}{
		{1, "{'descr': '<i2', 'fortran_order': True, 'shape': (2, 3), }"},
		{3, "{'shape': (3,), 'descr': '>f4', 'fortran_order': False}"},
		{2, "{'descr': '|S2', 'fortran_order': False, 'shape': (), }"},
		{1, "{\"descr\": \"|u1\", 'fortran_order': True, 'shape': (2L, 3), # c\n}"},
		{2, "{'fortran_order': True, 'shape': (2, 1, 3,), 'descr': '>c8'}"},
	}
	const chars = " ,()[]{}:'\"01-+L#\n\tTx\\."
	var dicts []struct {
		major byte
		dict  string
	}
	seenDict := map[string]bool{}
	add := func(major byte, d string) {
		key := string(rune('0'+major)) + d
		if !seenDict[key] {
			seenDict[key] = true
			dicts = append(dicts, struct {
				major byte
				dict  string
			}{major, d})
		}
	}
	for _, b := range bases {
		add(b.major, b.dict)
		for i := 0; i <= len(b.dict); i++ {
			if i < len(b.dict) {
				add(b.major, b.dict[:i]+b.dict[i+1:])
			}
			for _, c := range chars {
				add(b.major, b.dict[:i]+string(c)+b.dict[i:])
				if i < len(b.dict) {
					add(b.major, b.dict[:i]+string(c)+b.dict[i+1:])
				}
			}
		}
	}
	dir := t.TempDir()
	var paths []string
	var datas [][]byte
	for i, d := range dicts {
		payload := seq(16)
		if h, err := parseHeader(d.dict+"\n", 0, d.major < 3); err == nil && h.nbytes <= 1<<20 {
			payload = make([]byte, h.nbytes)
			for k := range payload {
				payload[k] = byte(k*7 + 3)
			}
		}
		data := file(d.major, d.dict, payload)
		path := filepath.Join(dir, fmt.Sprintf("m%05d.npy", i))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
		datas = append(datas, data)
	}
	list, err := json.Marshal(paths)
	if err != nil {
		t.Fatal(err)
	}
	listPath := filepath.Join(dir, "paths.json")
	resultPath := filepath.Join(dir, "results.json")
	if err := os.WriteFile(listPath, list, 0o644); err != nil {
		t.Fatal(err)
	}
	runPython(t, loadScript, listPath, resultPath)
	resultData, err := os.ReadFile(resultPath)
	if err != nil {
		t.Fatal(err)
	}
	var results []struct {
		OK    bool   `json:"ok"`
		Err   string `json:"err"`
		Descr string `json:"descr"`
		Shape []int  `json:"shape"`
		Data  string `json:"data"`
	}
	if err := json.Unmarshal(resultData, &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != len(dicts) {
		t.Fatalf("%d results for %d files", len(results), len(dicts))
	}
	var bothAccept, bothReject, stricter int
	for i, r := range results {
		got, err := Decode(datas[i])
		switch {
		case err == nil && !r.OK:
			t.Errorf("Decode accepts header %q (v%d) that NumPy rejects: %s", dicts[i].dict, dicts[i].major, r.Err)
		case err == nil:
			bothAccept++
			if got.DType.String() != r.Descr || !cmp.Equal(got.Shape, r.Shape, cmp.Comparer(func(a, b []int) bool {
				return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b))
			})) || fmt.Sprintf("%x", got.Bytes()) != r.Data {
				t.Errorf("header %q (v%d): Decode gives %v %v % x, NumPy %s %v %s",
					dicts[i].dict, dicts[i].major, got.DType, got.Shape, got.Bytes(), r.Descr, r.Shape, r.Data)
			}
		case r.OK:
			stricter++
			if testing.Verbose() {
				t.Logf("stricter than NumPy: header %q (v%d): %v", dicts[i].dict, dicts[i].major, err)
			}
		default:
			bothReject++
		}
	}
	t.Logf("%d mutated headers: %d accepted by both, %d rejected by both, %d accepted only by NumPy",
		len(dicts), bothAccept, bothReject, stricter)
}

// wrapScript prints, for each dict length in argv[1:], the hex of NumPy's
// _wrap_header_guess_version for a dict of that many 'x' characters.
const wrapScript = `
import sys, warnings
from numpy.lib import format as fmt
warnings.simplefilter("ignore")
for n in sys.argv[1:]:
    print(fmt._wrap_header_guess_version("x" * int(n)).hex())
`

// testWrapHeader compares the prefix and padding of wrapHeader with
// NumPy's, around the switch from version 1.0 to 2.0, which Encode cannot
// reach with at most 32 dimensions.
func testWrapHeader(t *testing.T) {
	var lengths []string
	var want []string
	for _, n := range []int{0, 1, 53, 54, 100, 65470, 65471, 65472, 65473, 65480, 65534, 65535, 65536, 70000} {
		lengths = append(lengths, fmt.Sprint(n))
		want = append(want, fmt.Sprintf("%x", wrapHeader(strings.Repeat("x", n))))
	}
	got := strings.Fields(runPython(t, wrapScript, lengths...))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wrapHeader differs from NumPy's _wrap_header_guess_version (-Go +NumPy):\n%s", diff)
	}
}

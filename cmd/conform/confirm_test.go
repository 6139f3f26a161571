package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
)

// writeInt32s writes an int32 tensor of the given shape and values as
// .npy.
func writeInt32s(t *testing.T, dir, name string, shape []int, values ...int32) {
	t.Helper()
	data := make([]byte, 4*len(values))
	for i, v := range values {
		for k := 0; k < 4; k++ {
			data[4*i+k] = byte(uint32(v) >> (8 * k))
		}
	}
	x, err := engine.FromBytes(engine.Int32Type, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), npy.Encode(x), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCheckConfirmsCauses checks that conform check confirms a child's
// cause by neighbours and prints the confirmation under the cause: the
// planted adapter whose gather_nd counts negative indices from the end
// (where the reference refuses them) fails gather_nd(arange(6), [-1]),
// and its neighbour with the index made non-negative passes.
func TestCheckConfirmsCauses(t *testing.T) {
	requireNumPy(t)
	t.Setenv("CONFORM_PLANTED", "wrap")
	dir := t.TempDir()
	writeInt32s(t, dir, "p.npy", []int{6}, 0, 1, 2, 3, 4, 5)
	var lines []string
	for i, k := range []int32{-1, -2, -3, -4, -5, -6, 0, 1, 2, 3, 4, 5, 6, 7} {
		idx := "i" + string(rune('a'+i)) + ".npy"
		writeInt32s(t, dir, idx, []int{1}, k)
		expect := `{"error":"out_of_range","source":"test"}`
		if k >= 0 && k < 6 {
			out := "o" + string(rune('a'+i)) + ".npy"
			writeInt32s(t, dir, out, nil, k)
			expect = `{"output":"` + out + `","source":"test"}`
		}
		lines = append(lines, `{"id":"g`+string(rune('a'+i))+`","op":"gather_nd","inputs":{"params":"p.npy","indices":"`+idx+`"},"expect":`+expect+`}`)
	}
	writeFile(t, filepath.Join(dir, "list.jsonl"), strings.Join(lines, "\n")+"\n")
	code, stdout, stderr := runCLI("check", "--cases", dir, "--impl", plantedAdapter)
	want := "    confirmed: `gather_nd; indices: <i4 (1,), params: <i4 (6,); values indices = [-1]` fails (output-for-error/out_of_range), " +
		"`gather_nd; indices: <i4 (1,), params: <i4 (6,); values indices = [5]` passes (indices: negative indices → non-negative ([-1] → [5]))\n"
	if code != 1 || !strings.Contains(stdout, "  cause gather_nd/") || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, want 1 and the cause confirmed:\n%s\nwant %q\n%s", code, stdout, want, stderr)
	}
}

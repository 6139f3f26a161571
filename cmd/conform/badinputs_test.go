package main

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// npyHeader builds a version-1 .npy header for the given dict text.
func npyHeader(dict string) []byte {
	h := dict + " "
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	return append(b, h...)
}

// badInputs are the malformed inputs docs/robustness.md's table lists; each must be
// rejected with its kind and exit status 1, never a panic.
var badInputs = []struct {
	what string
	npy  []byte // x.npy ("" keeps a valid 2x3 int32 file)
	json string // the case
	kind string
}{
	{"empty .npy file", []byte{}, `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0],"size":[1]}`, "bad_input"},
	{"not a .npy file", []byte("hello world, not numpy"), `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0],"size":[1]}`, "bad_input"},
	{".npy format version 4", append([]byte("\x93NUMPY\x04\x00"), make([]byte, 10)...), `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0],"size":[1]}`, "bad_input"},
	{"truncated header", npyHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }")[:40], `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0,0],"size":[1,1]}`, "bad_input"},
	{"truncated data", append(npyHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }"), make([]byte, 20)...), `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0,0],"size":[1,1]}`, "bad_input"},
	{"trailing bytes after the data", append(npyHeader("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }"), make([]byte, 12)...), `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0],"size":[1]}`, "bad_input"},
	{"header claiming 10^12 elements", npyHeader("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }"), `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0,0],"size":[1,1]}`, "bad_input"},
	{"object dtype", npyHeader("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }"), `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0],"size":[1]}`, "bad_input"},
	{"long double dtype <f16", npyHeader("{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }"), `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0],"size":[1]}`, "bad_input"},
	{"33 dimensions", npyHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (" + strings.Repeat("1, ", 33) + "), }"), `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0],"size":[1]}`, "bad_input"},
	{"negative dimension", npyHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (-1,), }"), `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0],"size":[1]}`, "bad_input"},
	{"dimension of 400 digits", npyHeader("{'descr': '|u1', 'fortran_order': False, 'shape': (1" + strings.Repeat("0", 399) + ",), }"), `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0],"size":[1]}`, "bad_input"},
	{"input path with ..", nil, `{"op":"slice","inputs":{"x":"../x.npy"},"begin":[0,0],"size":[1,1]}`, "bad_input"},
	{"absolute input path", nil, `{"op":"slice","inputs":{"x":"/etc/passwd"},"begin":[0,0],"size":[1,1]}`, "bad_input"},
	{"input linked outside the case's directory", nil, `{"op":"slice","inputs":{"x":"passwd.npy"},"begin":[0,0],"size":[1,1]}`, "bad_input"},
	{"input that is a named pipe", nil, `{"op":"slice","inputs":{"x":"fifo.npy"},"begin":[0,0],"size":[1,1]}`, "bad_input"},
	{"case file is not JSON", nil, `{"op": "slice",`, "bad_input"},
	{"unknown op", nil, `{"op":"transpose","inputs":{"x":"x.npy"}}`, "bad_input"},
	{"missing input file", nil, `{"op":"slice","inputs":{"x":"missing.npy"},"begin":[0,0],"size":[1,1]}`, "bad_input"},
	{"non-integer bound", nil, `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0.5,0],"size":[1,1]}`, "bad_input"},
	{"bound beyond int64", nil, `{"op":"slice","inputs":{"x":"x.npy"},"begin":[99999999999999999999,0],"size":[1,1]}`, "bad_input"},
	{"field of another op", nil, `{"op":"slice","inputs":{"x":"x.npy"},"begin":[0,0],"size":[1,1],"index":"x[0]"}`, "bad_input"},
	{"OpenVINO mask entry 2", nil, `{"op":"strided_slice","inputs":{"x":"x.npy"},"begin":[0],"end":[1],"begin_mask":[2]}`, "invalid_spec"},
	{"subscript syntax error", nil, `{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[1,,2]"}`, "invalid_spec"},
	{"float index list", nil, `{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[[0.5]]"}`, "invalid_spec"},
	{"subscript name without an input", nil, `{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[i]"}`, "bad_input"},
	{"integer index beyond int64", nil, `{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[99999999999999999999]"}`, "out_of_range"},
	{"zero step", nil, `{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[::0]"}`, "invalid_spec"},
	{"two ellipsis bits, one beyond the spec", nil, `{"op":"strided_slice","inputs":{"x":"x.npy"},"begin":[0],"end":[1],"ellipsis_mask":5}`, "invalid_spec"},
	{"32-entry strided_slice spec", nil, `{"op":"strided_slice","inputs":{"x":"x.npy"},"begin":[` + strings.Repeat("0,", 31) + `0],"end":[` + strings.Repeat("0,", 31) + `0]}`, "invalid_spec"},
	{"float gather indices", nil, `{"op":"gather_nd","inputs":{"params":"x.npy","indices":"f.npy"}}`, "bad_input"},
	{"gather row out of range", nil, `{"op":"gather_nd","inputs":{"params":"x.npy","indices":"big.npy"}}`, "out_of_range"},
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	writeInput(t, dir, "ok.npy", 2, 3)
	f := append(npyHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1), }"), 0, 0, 0, 0)
	os.WriteFile(filepath.Join(dir, "f.npy"), f, 0o644)
	big := append(npyHeader("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2), }"), make([]byte, 16)...)
	big[len(big)-16] = 9
	os.WriteFile(filepath.Join(dir, "big.npy"), big, 0o644)
	if err := os.Symlink("/etc/passwd", filepath.Join(dir, "passwd.npy")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.npy"), 0o644); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for i, tt := range badInputs {
		x, _ := os.ReadFile(filepath.Join(dir, "ok.npy"))
		if tt.npy != nil {
			x = tt.npy
		}
		os.WriteFile(filepath.Join(dir, "x.npy"), x, 0o644)
		casePath := filepath.Join(dir, fmt.Sprintf("case%d.json", i))
		os.WriteFile(casePath, []byte(tt.json), 0o644)
		code, _, stderr := runCLI("eval", casePath, "-o", filepath.Join(dir, "out.npy"))
		line := strings.TrimSpace(stderr)
		if strings.Contains(line, "hello world") || strings.Contains(line, "root:") || len(line) > 400 {
			t.Errorf("%s: the message quotes the input file or is too long: %q", tt.what, line)
		}
		if code != 1 || !strings.HasPrefix(line, "conform eval: "+tt.kind+": ") {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and kind %s", tt.what, code, line, tt.kind)
		}
		msg := strings.TrimPrefix(line, "conform eval: "+tt.kind+": ")
		msg = strings.ReplaceAll(msg, dir+"/", "")
		rows = append(rows, fmt.Sprintf("| %s | `%s` | %s |", tt.what, tt.kind, strings.ReplaceAll(msg, "|", "\\|")))
	}
	// The case file itself: a device is refused before it is read.
	code, _, stderr := runCLI("eval", "/dev/zero", "-o", filepath.Join(dir, "out.npy"))
	line := strings.TrimSpace(stderr)
	if code != 1 || !strings.HasPrefix(line, "conform eval: bad_input: ") {
		t.Errorf("case file /dev/zero: exit %d, stderr %q", code, line)
	}
	rows = append(rows, fmt.Sprintf("| case file /dev/zero | `bad_input` | %s |", strings.TrimPrefix(line, "conform eval: bad_input: ")))
	checkDocTable(t, robustnessDoc, "bad-inputs", "| input | kind | message |\n|---|---|---|\n"+strings.Join(rows, "\n")+"\n")
}

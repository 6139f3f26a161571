package protocol

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
)

// npyOf returns the .npy file of an array of dtype descr and shape with
// the elements data.
func npyOf(descr string, shape []int, data string) []byte {
	dt, err := engine.ParseDType(descr)
	if err != nil {
		panic(err)
	}
	t, err := engine.FromBytes(dt, shape, []byte(data))
	if err != nil {
		panic(err)
	}
	return npy.Encode(t)
}

// TestHelloArrays checks that a hello's "arrays" is read when it is "raw"
// and ignored otherwise.
func TestHelloArrays(t *testing.T) {
	tests := []struct {
		rule, line, want string
	}{
		{"arrays raw is read", `{"hello":{"name":"a","version":"1","ops":[],"arrays":"raw"}}`, ArraysRaw},
		{"no arrays field is .npy", `{"hello":{"name":"a","version":"1","ops":[]}}`, ""},
		{"another value is ignored", `{"hello":{"name":"a","version":"1","ops":[],"arrays":"arrow"}}`, ""},
	}
	for _, tc := range tests {
		h, err := parseHello([]byte(tc.line))
		if err != nil || h.Arrays != tc.want {
			t.Errorf("%s: got %+v, %v, want arrays %q", tc.rule, h, err, tc.want)
		}
	}
}

// TestRawOutput checks how an output given as a raw array is read: as
// the array from a child whose hello says "arrays": "raw", written
// compactly or not, and as garbage from any other child.
func TestRawOutput(t *testing.T) {
	const int32s12 = "\x01\x00\x00\x00\x02\x00\x00\x00" // int32 1, 2
	tests := []struct {
		rule, mode, out string
		want            response // ID is ignored
	}{
		{"a raw child's compact raw array is its output", "raw",
			`{"dtype":"<i4","shape":[2],"data":"AQAAAAIAAAA="}`, response{Output: npyOf("<i4", []int{2}, int32s12)}},
		{"white space and another field order read the same", "raw",
			`{"shape": [2], "data": "AQAAAAIAAAA=", "dtype": "<i4"}`, response{Output: npyOf("<i4", []int{2}, int32s12)}},
		{"an escaped dtype reads the same", "raw",
			`{"dtype":"\u003ci4","shape":[2],"data":"AQAAAAIAAAA="}`, response{Output: npyOf("<i4", []int{2}, int32s12)}},
		{"a 0-d array has an empty shape", "raw",
			`{"dtype":"|b1","shape":[],"data":"AQ=="}`, response{Output: npyOf("|b1", nil, "\x01")}},
		{"data of the wrong length is a bad output", "raw",
			`{"dtype":"<i4","shape":[3],"data":"AQAAAAIAAAA="}`, response{CrashKind: CrashBadOutput}},
		{"an unknown dtype is a bad output", "raw",
			`{"dtype":"<q9","shape":[],"data":""}`, response{CrashKind: CrashBadOutput}},
		{"a missing field is a bad output", "raw",
			`{"dtype":"<i4","data":""}`, response{CrashKind: CrashBadOutput}},
		{"a raw array from a child that did not declare them is garbage", "ok",
			`{"dtype":"<i4","shape":[2],"data":"AQAAAAIAAAA="}`, response{CrashKind: CrashGarbage}},
	}
	for _, tc := range tests {
		c := startChild(t, tc.mode, Options{})
		got := do(c, map[string]any{"rawout": tc.out})
		got.ID = 0
		if got.Crash != "" {
			got.Crash = "" // compared by code
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s: response mismatch (-want +got):\n%s", tc.rule, diff)
		}
		if a := c.Do(context.Background(), map[string]any{"value": "abc"}); string(a.NPY()) != "abc" {
			t.Errorf("%s: a .npy output afterwards = %v, want abc", tc.rule, a)
		}
	}
}

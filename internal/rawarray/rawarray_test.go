package rawarray

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
)

func tensor(descr string, shape []int, data string) *engine.Tensor {
	dt, err := engine.ParseDType(descr)
	if err != nil {
		panic(err)
	}
	t, err := engine.FromBytes(dt, shape, []byte(data))
	if err != nil {
		panic(err)
	}
	return t
}

// TestRoundTrip checks that Parse and Decode read back what Append writes,
// dtype (byte order included), shape and elements.
func TestRoundTrip(t *testing.T) {
	tests := []struct {
		rule string
		t    *engine.Tensor
		text string
	}{
		{"a vector", tensor("<i4", []int{2}, "\x01\x00\x00\x00\x02\x00\x00\x00"), `{"dtype":"<i4","shape":[2],"data":"AQAAAAIAAAA="}`},
		{"big-endian keeps its byte order", tensor(">i2", []int{1, 1}, "\x00\x07"), `{"dtype":">i2","shape":[1,1],"data":"AAc="}`},
		{"a 0-d bool", tensor("|b1", nil, "\x01"), `{"dtype":"|b1","shape":[],"data":"AQ=="}`},
		{"an empty array has empty data", tensor("<f8", []int{3, 0}, ""), `{"dtype":"<f8","shape":[3,0],"data":""}`},
		{"unicode strings are 4 bytes a character", tensor("<U1", []int{1}, "a\x00\x00\x00"), `{"dtype":"<U1","shape":[1],"data":"YQAAAA=="}`},
	}
	for _, tc := range tests {
		text := Append(nil, tc.t)
		if string(text) != tc.text {
			t.Errorf("%s: Append = %s, want %s", tc.rule, text, tc.text)
		}
		parsed, ok, err := Parse(text)
		if !ok || err != nil {
			t.Errorf("%s: Parse = %v, %v", tc.rule, ok, err)
			continue
		}
		decoded, err := Decode(json.RawMessage(text))
		if err != nil {
			t.Errorf("%s: Decode: %v", tc.rule, err)
			continue
		}
		for _, got := range []*engine.Tensor{parsed, decoded} {
			if diff := cmp.Diff(tc.t, got); diff != "" {
				t.Errorf("%s: read back (-want +got):\n%s", tc.rule, diff)
			}
		}
	}
}

// TestInvalid checks that Parse leaves every other text to Decode and
// that neither accepts an object that does not describe an array.
func TestInvalid(t *testing.T) {
	tests := []struct {
		rule, text string
		parses     bool // Parse reads it (and fails) rather than leave it to Decode
	}{
		{"data too short", `{"dtype":"<i4","shape":[2],"data":"AQAAAA=="}`, true},
		{"data not base64", `{"dtype":"<i4","shape":[1],"data":"A!AAAA=="}`, true},
		{"unknown dtype", `{"dtype":"<x4","shape":[],"data":""}`, true},
		{"structured dtype", `{"dtype":"[('a', '<i4')]","shape":[],"data":""}`, true},
		{"rank above the maximum", `{"dtype":"|b1","shape":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],"data":"AQ=="}`, true},
		{"negative dimension", `{"dtype":"|b1","shape":[-1],"data":""}`, false},
		{"trailing comma in shape", `{"dtype":"|b1","shape":[1,],"data":"AQ=="}`, false},
		{"missing data", `{"dtype":"|b1","shape":[]}`, false},
		{"shape not a list", `{"dtype":"|b1","shape":1,"data":"AQ=="}`, false},
		{"a control character in data is not JSON", "{\"dtype\":\"|b1\",\"shape\":[],\"data\":\"\nAQ==\"}", false},
		{"bytes not UTF-8 in dtype are read as U+FFFD by the decoder", "{\"dtype\":\"|b1\xf3\",\"shape\":[],\"data\":\"AQ==\"}", false},
		{"a control character in dtype is not JSON", "{\"dtype\":\"|b1\t\",\"shape\":[],\"data\":\"AQ==\"}", false},
	}
	for _, tc := range tests {
		_, ok, err := Parse([]byte(tc.text))
		if ok != tc.parses || (ok && err == nil) {
			t.Errorf("%s: Parse = %v, %v; want read %v and an error", tc.rule, ok, err, tc.parses)
		}
		if _, err := Decode(json.RawMessage(tc.text)); err == nil {
			t.Errorf("%s: Decode accepted it", tc.rule)
		}
	}
}

// TestAppendAllocatesNothing checks that Append writes into a buffer with
// room without allocating: every request of a fuzz run appends its inputs.
func TestAppendAllocatesNothing(t *testing.T) {
	x := tensor(">U2", []int{1, 1}, "\x00\x00\x00a\x00\x00\x00b")
	buf := make([]byte, 0, 256)
	if allocs := testing.AllocsPerRun(100, func() { Append(buf, x) }); allocs != 0 {
		t.Errorf("Append into a buffer with room: %v allocations, want 0", allocs)
	}
}

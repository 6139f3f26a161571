package conformtest

import (
	"encoding/binary"
	"errors"
	"sort"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/npy"
)

// getItemFunc makes a function a GetItemer.
type getItemFunc func(x *engine.Tensor, index string, items []engine.IndexItem) (*engine.Tensor, error)

func (f getItemFunc) GetItem(x *engine.Tensor, index string, items []engine.IndexItem) (*engine.Tensor, error) {
	return f(x, index, items)
}

func int32s(shape []int, values ...int32) *engine.Tensor {
	data := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(v))
	}
	t, err := engine.FromBytes(engine.Int32Type, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

// smallCorpus has two getitem cases on a 2x2 tensor: a reversal that
// succeeds and an index out of range.
func smallCorpus() fstest.MapFS {
	return fstest.MapFS{
		"c/x.npy":   {Data: npy.Encode(int32s([]int{2, 2}, 0, 1, 2, 3))},
		"c/rev.npy": {Data: npy.Encode(int32s([]int{2, 2}, 2, 3, 0, 1))},
		"c/rev.json": {Data: []byte(`{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[::-1]",` +
			`"expect":{"output":"rev.npy","source":"test"}}`)},
		"c/oob.json": {Data: []byte(`{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[5]",` +
			`"expect":{"error":"out_of_range","source":"test"}}`)},
	}
}

// TestResults checks how the harness judges what an implementation
// returns, on a corpus of two cases (Cases).
func TestResults(t *testing.T) {
	reverse := func(x *engine.Tensor, _ string, items []engine.IndexItem) (*engine.Tensor, error) {
		return engine.GetItem(x, items)
	}
	tests := []struct {
		rule string
		impl getItemFunc
		want map[string]string // failing case -> text its detail contains
	}{
		{"the right results pass", reverse, nil},
		{"a wrong element is named by its N-D index", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			out, err := reverse(x, s, items)
			if err == nil {
				out.Data[2*4] = 9
			}
			return out, err
		}, map[string]string{"c/rev": "element [1, 0] is 9, want 0"}},
		{"the index arrives as written and parsed", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			if (s == "x[::-1]") != (len(items) == 1 && items[0].Kind == engine.IndexSlice && items[0].Step == -1) {
				return nil, engine.Errorf(engine.BadInput, "index %q, items %+v", s, items)
			}
			return reverse(x, s, items)
		}, nil},
		{"inputs are C-contiguous", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			if !x.IsContiguous() {
				return nil, engine.Errorf(engine.BadInput, "not contiguous")
			}
			return reverse(x, s, items)
		}, nil},
		{"an error of another kind fails", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			out, err := reverse(x, s, items)
			if err != nil {
				return nil, engine.Errorf(engine.InvalidSpec, "no")
			}
			return out, nil
		}, map[string]string{"c/oob": "got error invalid_spec (no), want error out_of_range"}},
		{"a wrapped *engine.Error counts by its kind", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			out, err := reverse(x, s, items)
			if err != nil {
				return nil, errors.Join(errors.New("mylib"), err)
			}
			return out, nil
		}, nil},
		{"an error without a kind fails", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			out, err := reverse(x, s, items)
			if err != nil {
				return nil, errors.New("index out of bounds")
			}
			return out, nil
		}, map[string]string{"c/oob": "crash: error without a kind: index out of bounds"}},
		{"an output where an error is expected fails", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			return x, nil
		}, map[string]string{"c/oob": "got an output of shape [2 2], want error out_of_range", "c/rev": "element [0, 0] is 0, want 2"}},
		{"neither a tensor nor an error fails", func(*engine.Tensor, string, []engine.IndexItem) (*engine.Tensor, error) {
			return nil, nil
		}, map[string]string{"c/oob": "returned neither a tensor nor an error", "c/rev": "returned neither a tensor nor an error"}},
		{"a tensor whose strides overrun its data fails, without a panic", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			return &engine.Tensor{DType: x.DType, Shape: []int{2, 2}, Strides: []int{8, 8}, Data: x.Data}, nil
		}, map[string]string{"c/oob": "invalid result tensor: shape [2 2], strides [8 8] and offset 0 reach bytes 0 to 20 of a 16-byte Data",
			"c/rev": "invalid result tensor"}},
		{"a tensor with a stride per dimension missing fails", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			return &engine.Tensor{DType: x.DType, Shape: []int{4}, Data: x.Data}, nil
		}, map[string]string{"c/oob": "invalid result tensor: 0 strides for 1 dimensions", "c/rev": "0 strides for 1 dimensions"}},
		{"a zero tensor fails", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			return &engine.Tensor{}, nil
		}, map[string]string{"c/oob": "invalid result tensor: dtype", "c/rev": "invalid result tensor: dtype"}},
		{"a negative offset fails", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			return &engine.Tensor{DType: x.DType, Shape: []int{}, Strides: []int{}, Offset: -4, Data: x.Data}, nil
		}, map[string]string{"c/oob": "offset -4 is outside", "c/rev": "offset -4 is outside"}},
		{"a panic fails the case with the panic value", func(x *engine.Tensor, s string, items []engine.IndexItem) (*engine.Tensor, error) {
			if s == "x[5]" {
				panic("index 5")
			}
			return reverse(x, s, items)
		}, map[string]string{"c/oob": "crash: the implementation panicked: index 5"}},
	}
	for _, tt := range tests {
		s, err := run(tt.impl, []Option{Cases(smallCorpus())})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, r := range s.Results {
			if r.Status == check.Fail {
				got[r.ID] = r.Detail
			}
		}
		if diff := cmp.Diff(keys(tt.want), keys(got)); diff != "" {
			t.Errorf("%s: failing cases (-want +got):\n%s", tt.rule, diff)
		}
		for id, detail := range got {
			if want, ok := tt.want[id]; ok && !strings.Contains(detail, want) {
				t.Errorf("%s: %s failed with %q, want it to contain %q", tt.rule, id, detail, want)
			}
		}
		if err := summaryError(s); (err == nil) != (len(tt.want) == 0) {
			t.Errorf("%s: Check would return %v", tt.rule, err)
		}
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestIntegrity checks that a corpus file that does not match the
// MANIFEST fails the run, naming the file.
func TestIntegrity(t *testing.T) {
	fsys := smallCorpus()
	sums := map[string]string{}
	for name, f := range fsys {
		sums[strings.TrimPrefix(name, "c/")] = corpus.Sum(f.Data)
	}
	fsys["c/MANIFEST"] = &fstest.MapFile{Data: corpus.FormatManifest(sums)}
	if err := Check(engineAdapter{}, Cases(fsys)); err != nil {
		t.Fatalf("the intact corpus: %v", err)
	}
	fsys["c/rev.json"] = &fstest.MapFile{Data: append(fsys["c/rev.json"].Data, ' ')}
	err := Check(engineAdapter{}, Cases(fsys))
	want := "conformtest: 2 passed, 0 failed, 0 skipped\n\tcorpus integrity: changed file c/rev.json (does not match the MANIFEST)"
	if err == nil || err.Error() != want {
		t.Errorf("Check = %v, want %q", err, want)
	}
}

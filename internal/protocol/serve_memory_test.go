package protocol

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/heaptest"
	"github.com/conformsuite/conform/internal/npy"
)

// TestReadAheadStaysInBudget checks that ServeFunc reads requests ahead
// of their answers only up to maxPending bytes: 40 requests of 4 MiB,
// whose answers wait until every request has been sent (or half a
// second), are not all read into memory at once (which takes over 160
// MiB).
func TestReadAheadStaysInBudget(t *testing.T) {
	defer func(old int64) { maxPending = old }(maxPending)
	maxPending = 8 << 20
	const n, size = 40, 4 << 20
	line := []byte(`{"id":1,"pad":"` + strings.Repeat("a", size) + "\"}\n")
	r, w := io.Pipe()
	sent, gate := make(chan struct{}), make(chan struct{})
	go func() {
		for i := 0; i < n; i++ {
			w.Write(line)
		}
		close(sent)
		w.Close()
	}()
	go func() {
		select {
		case <-sent:
		case <-time.After(500 * time.Millisecond):
		}
		close(gate)
	}()
	var out bytes.Buffer
	grew := heaptest.Growth(func() {
		err := ServeFunc(r, &out, Hello{Name: "slow"}, func(line []byte) map[string]any {
			<-gate
			return map[string]any{"id": 1, "skip": "slow"}
		})
		if err != nil {
			t.Error(err)
		}
	})
	if answered := strings.Count(out.String(), `"skip"`); answered != n {
		t.Errorf("%d answers, want %d", answered, n)
	}
	t.Logf("the heap grew by %d MiB", grew>>20)
	if bound := uint64(80 << 20); grew > bound {
		t.Errorf("the heap grew by %d MiB, want at most %d MiB", grew>>20, bound>>20)
	}
}

// TestOutputIsStreamedAsJSON checks that a wireOutput is written exactly as
// the JSON of the base64 of its .npy file, for a contiguous tensor and a
// view, and that an invalid tensor is answered with an error instead.
func TestOutputIsStreamedAsJSON(t *testing.T) {
	x, _ := engine.FromBytes(engine.Int32Type, []int{2, 2}, []byte{1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0})
	view := *x
	view.Shape, view.Strides = []int{2}, []int{8} // the first column
	bad := *x
	bad.Shape = []int{9}
	for _, tt := range []struct {
		rule string
		t    *engine.Tensor
		ok   bool
	}{
		{"a contiguous tensor is its .npy file in base64", x, true},
		{"a view is written in row-major order", &view, true},
		{"a tensor whose shape reaches outside its data is an error", &bad, false},
	} {
		var out bytes.Buffer
		err := ServeFunc(strings.NewReader(`{"id":7}`+"\n"), &out, Hello{Name: "x"}, func([]byte) map[string]any {
			return map[string]any{"id": 7, "output": wireOutput{tt.t}}
		})
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")
		got := lines[len(lines)-1]
		if !tt.ok {
			var resp struct{ Error struct{ Kind string } }
			if json.Unmarshal([]byte(got), &resp) != nil || resp.Error.Kind != string(engine.BadInput) {
				t.Errorf("%s: got %s", tt.rule, got)
			}
			continue
		}
		want := fmt.Sprintf(`{"id":7,"output":"%s"}`, base64.StdEncoding.EncodeToString(npy.Encode(tt.t)))
		if got != want {
			t.Errorf("%s: got %s, want %s", tt.rule, got, want)
		}
		if data, err := json.Marshal(wireOutput{tt.t}); err != nil || string(data) != want[len(`{"id":7,"output":`):len(want)-1] {
			t.Errorf("%s: MarshalJSON gives %s, %v", tt.rule, data, err)
		}
	}
}

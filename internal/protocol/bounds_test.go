package protocol

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// TestHelloBounds checks that the name, version and op names of a hello
// are cut to MaxNameBytes.
func TestHelloBounds(t *testing.T) {
	c := startChild(t, "bigname", Options{})
	h := c.Hello()
	for _, s := range append([]string{h.Name, h.Version}, h.Ops...) {
		if len(s) > MaxNameBytes+64 {
			t.Errorf("a hello field of %d bytes, want it cut to %d", len(s), MaxNameBytes)
		}
	}
	if h.Ops[0] != "getitem" {
		t.Errorf("a short op name was changed to %q", h.Ops[0])
	}
}

// TestMessageBounds checks that the texts a child gives in an answer
// are cut to MaxMessageBytes, one row per text.
func TestMessageBounds(t *testing.T) {
	long := strings.Repeat("é", 1<<19) // 1 MiB
	c := startChild(t, "normal", Options{})
	for _, tt := range []struct {
		rule string
		req  map[string]any
		text func(response) string
	}{
		{"a skip reason is cut", map[string]any{"skip": long}, func(r response) string { return r.Skip }},
		{"a reported crash's reason is cut", map[string]any{"report": long}, func(r response) string { return r.Crash }},
		{"an error message is cut", map[string]any{"kind": "out_of_range", "message": long}, func(r response) string { return r.ErrMessage }},
	} {
		got := tt.text(do(c, tt.req))
		if len(got) > MaxMessageBytes+64 || len(got) < MaxMessageBytes/2 || !utf8.ValidString(got) {
			t.Errorf("%s: %d bytes (valid UTF-8: %v), want about %d", tt.rule, len(got), utf8.ValidString(got), MaxMessageBytes)
		}
	}
}

// TestTruncate checks the rules of Truncate, one per row.
func TestTruncate(t *testing.T) {
	for _, tt := range []struct {
		rule string
		s    string
		max  int
		want string
	}{
		{"a text within the bound is kept", "abc", 3, "abc"},
		{"a longer text is cut and says how long it was", "abcdef", 3, "abc... (truncated, 6 bytes)"},
		{"a character is not cut in two", "aé", 2, "a... (truncated, 3 bytes)"},
	} {
		if got := Truncate(tt.s, tt.max); got != tt.want {
			t.Errorf("%s: Truncate(%q, %d) = %q, want %q", tt.rule, tt.s, tt.max, got, tt.want)
		}
	}
}

// TestInflightBytes checks that the request bytes sent to a child and
// not yet answered stay within Options.MaxInflightBytes, while every
// request is answered, and that a request larger than the bound still
// runs (alone).
func TestInflightBytes(t *testing.T) {
	const max = 3 << 18
	c := startChild(t, "reverse", Options{MaxInflightBytes: max})
	do := func(v string) {
		r := c.DoAppend(context.Background(), len(v)+32, func(dst []byte) ([]byte, error) {
			return append(append(append(dst, `{"value":"`...), v...), `"}`...), nil
		})
		if string(r.NPY()) != v {
			t.Errorf("got %d bytes of output, want %d (%v)", len(r.NPY()), len(v), r)
		}
	}
	stop, peak := make(chan struct{}), make(chan int64)
	go func() {
		var p int64
		for {
			p = max64(p, c.room.Used())
			select {
			case <-stop:
				peak <- p
				return
			case <-time.After(50 * time.Microsecond):
			}
		}
	}()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do(strings.Repeat("v", 1<<18))
		}()
	}
	wg.Wait()
	close(stop)
	if p := <-peak; p > max {
		t.Errorf("%d bytes in flight at once, want at most %d", p, max)
	}
	do(strings.Repeat("w", 2*max)) // larger than the bound: runs alone
	if used := c.room.Used(); used != 0 {
		t.Errorf("%d bytes still counted in flight after every answer", used)
	}
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

package fuzz

import (
	"slices"
	"sync"
	"testing"
	"time"
)

func TestInOrder(t *testing.T) {
	tests := []struct {
		rule    string
		deliver []int // case numbers in the order they are delivered
		none    int   // a case delivered without a result (-1: none)
		flush   bool
		want    []int // the results applied, in order
	}{
		{"results delivered in reverse are applied in case order", []int{3, 2, 1, 0}, -1, false, []int{0, 1, 2, 3}},
		{"a result waits only for the earlier ones", []int{1, 0, 3, 2}, -1, false, []int{0, 1, 2, 3}},
		{"a case without a result lets the later ones through", []int{2, 1, 0}, 0, false, []int{1, 2}},
		{"a result after a case never delivered waits", []int{0, 2}, -1, false, []int{0}},
		{"flush applies the results still waiting, in order", []int{3, 0, 2}, -1, true, []int{0, 2, 3}},
	}
	for _, tt := range tests {
		o := newInOrder()
		var got []int
		for _, k := range tt.deliver {
			if k == tt.none {
				o.deliver(k, nil)
				continue
			}
			o.deliver(k, func() { got = append(got, k) })
		}
		if tt.flush {
			o.flush()
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: applied %v, want %v", tt.rule, got, tt.want)
		}
	}
}

// TestInOrderAhead checks that a result maxAhead cases past the next one
// to apply waits for room, and that it is applied in its turn.
func TestInOrderAhead(t *testing.T) {
	o := newInOrder()
	var mu sync.Mutex
	var got []int
	apply := func(k int) func() {
		return func() { mu.Lock(); got = append(got, k); mu.Unlock() }
	}
	done := make(chan bool)
	go func() {
		o.deliver(maxAhead, apply(maxAhead)) // waits until case 0 is applied
		done <- true
	}()
	select {
	case <-done:
		t.Fatalf("a result %d cases ahead was taken without waiting", maxAhead)
	case <-time.After(50 * time.Millisecond):
	}
	for k := 0; k < maxAhead; k++ {
		o.deliver(k, apply(k))
	}
	<-done
	if len(got) != maxAhead+1 || got[maxAhead] != maxAhead || !slices.IsSorted(got) {
		t.Errorf("applied %d results, the last %d: want 0 to %d in order", len(got), got[len(got)-1], maxAhead)
	}
}

package budget

import (
	"context"
	"testing"
	"time"
)

// TestAcquire checks, one rule per row, when a request for bytes is let
// through at once.
func TestAcquire(t *testing.T) {
	tests := []struct {
		name   string
		max    int64
		held   int64 // taken before
		n      int64
		passes bool
	}{
		{"a request that fits passes", 100, 40, 60, true},
		{"a request that does not fit waits", 100, 40, 61, false},
		{"a request larger than the budget passes when nothing is held", 100, 0, 1000, true},
		{"a request larger than the budget waits while anything is held", 100, 1, 1000, false},
		{"an empty request passes while the budget is full", 100, 100, 0, true},
	}
	for _, tt := range tests {
		b := New(tt.max)
		if tt.held > 0 {
			if err := b.Acquire(context.Background(), tt.held); err != nil {
				t.Fatal(err)
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		err := b.Acquire(ctx, tt.n)
		cancel()
		if passed := err == nil; passed != tt.passes {
			t.Errorf("%s: passed = %v", tt.name, passed)
		}
		want := tt.held
		if tt.passes {
			want += tt.n
		}
		if got := b.Used(); got != want {
			t.Errorf("%s: %d bytes held after, want %d", tt.name, got, want)
		}
	}
}

// TestOrder checks that waiting requests are let through in order: a
// small one that would fit does not pass a large one ahead of it.
func TestOrder(t *testing.T) {
	b := New(100)
	ctx := context.Background()
	b.Acquire(ctx, 90)
	order := make(chan int, 2)
	go func() { b.Acquire(ctx, 50); order <- 1 }()
	time.Sleep(10 * time.Millisecond)
	go func() { b.Acquire(ctx, 5); order <- 2 }()
	time.Sleep(10 * time.Millisecond)
	select {
	case n := <-order:
		t.Fatalf("request %d passed while the first in line waits", n)
	default:
	}
	b.Release(90)
	<-order
	<-order
	if got := b.Used(); got != 55 {
		t.Errorf("%d bytes held, want 55", got)
	}
}

// TestCancelWhileWaiting checks that a request given up while waiting
// takes nothing and lets the ones behind it through.
func TestCancelWhileWaiting(t *testing.T) {
	b := New(100)
	b.Acquire(context.Background(), 60)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- b.Acquire(ctx, 50) }()
	time.Sleep(10 * time.Millisecond)
	behind := make(chan error)
	go func() { behind <- b.Acquire(context.Background(), 40) }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a canceled request was let through")
	}
	if err := <-behind; err != nil {
		t.Fatal(err)
	}
	if got := b.Used(); got != 100 {
		t.Errorf("%d bytes held, want 100", got)
	}
}

// TestAcquireAtOnceAllocatesNothing checks that a request that fits, with
// nothing waiting, is let through without allocating: a pipeline takes
// from its budgets for every piece of work.
func TestAcquireAtOnceAllocatesNothing(t *testing.T) {
	b := New(100)
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		b.Acquire(ctx, 10)
		b.Release(10)
	})
	if allocs != 0 {
		t.Errorf("Acquire and Release of a request that fits: %v allocations, want 0", allocs)
	}
}

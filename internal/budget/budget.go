// Package budget bounds the bytes a pipeline holds at once. Each piece of
// work takes its size from a Budget before it starts and gives it back
// when it is done. Work waits in order for room; when nothing else holds
// any, the first in line is let through however large it is, so that a
// single piece larger than the whole budget still runs, alone.
package budget

import (
	"context"
	"sync"
)

// Budget is a number of bytes shared by concurrent work. Its methods are
// safe for concurrent use.
type Budget struct {
	max int64

	mu    sync.Mutex
	used  int64
	queue []*waiter
}

type waiter struct {
	n       int64
	granted bool
	ready   chan struct{} // closed when granted
}

// New returns a budget of max bytes.
func New(max int64) *Budget { return &Budget{max: max} }

// Max returns the size of the budget.
func (b *Budget) Max() int64 { return b.max }

// Used returns the bytes held now.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Acquire waits until n bytes fit in the budget after the work already
// waiting, or until nothing is held, and takes them. If ctx is done
// first it takes nothing and returns ctx's error. A request that fits
// at once, with nothing waiting, allocates nothing.
func (b *Budget) Acquire(ctx context.Context, n int64) error {
	b.mu.Lock()
	if len(b.queue) == 0 && b.fits(n) {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	b.queue = append(b.queue, w)
	b.grantLocked()
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if w.granted {
		b.used -= n
	} else {
		for i, x := range b.queue {
			if x == w {
				b.queue = append(b.queue[:i:i], b.queue[i+1:]...)
				break
			}
		}
	}
	b.grantLocked() // the ones behind it may fit now
	return ctx.Err()
}

// Release gives back n bytes taken by Acquire.
func (b *Budget) Release(n int64) { b.Adjust(-n) }

// Adjust changes the bytes held by delta, without waiting: for work that
// took an estimate and now knows its real size.
func (b *Budget) Adjust(delta int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used += delta
	b.grantLocked()
}

// grantLocked lets through the waiting work that fits, in order.
func (b *Budget) grantLocked() {
	for len(b.queue) > 0 {
		w := b.queue[0]
		if !b.fits(w.n) {
			return
		}
		b.queue[0] = nil
		b.queue = b.queue[1:]
		b.used += w.n
		w.granted = true
		close(w.ready)
	}
}

// fits reports whether n bytes may be taken now: they fit in what is
// left, or nothing is held. b.mu is held.
func (b *Budget) fits(n int64) bool {
	return b.used == 0 || b.used+n <= b.max
}
